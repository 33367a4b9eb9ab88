"""Tests of ldraw_data.mesh on the real LDraw library and small real LDraw files written to a tmp library.

Hand-worked values:

- 16-gon prism of radius 6 and height 4 (stud.dat: 4-4cyli + 4-4disc, 16 segments):
  area = 16/2 * 6^2 * sin(2 pi / 16) = 110.215..., volume = 440.8603...
- 3024 Plate 1 x 1: a 20 x 8 x 20 box with a 12 x 4 x 12 hollow underneath (walls and top 4 LDU) plus one
  stud: 3200 - 576 + 440.86 = 3064.86 LDU^3.
- 3005 Brick 1 x 1: 20 x 24 x 20 box, hollow 12 x 20 x 12, plus one stud: 9600 - 2880 + 440.86.
- box.dat: cube [-1, 1]^3 drawn as 6 quads (12 triangles), volume 8.
"""

from __future__ import annotations

import logging
import math
from pathlib import Path

import numpy as np
import pytest

from ldraw_data import get_library
from ldraw_data.errors import PartNotFoundError
from ldraw_data.io.parse import parse_document
from ldraw_data.library import LDrawLibrary
from ldraw_data.mesh import (
    PartMesh,
    clear_mesh_cache,
    load_meshes,
    mesh_cache_dir,
    mesh_from_document,
    part_mesh,
    triangle_counts,
    world_bounds,
)
from ldraw_data import mesh as M

STUD_VOLUME = 16 / 2 * 36 * math.sin(2 * math.pi / 16) * 4  # 440.8603...
FALCON = Path(__file__).resolve().parents[2].parent / "shared" / "models" / "official" / "10179_1_Millennium_Falcon_UCS.mpd"


@pytest.fixture(autouse=True)
def _tmp_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("BRICKWRIGHT_CACHE_DIR", str(tmp_path / "cache"))
    clear_mesh_cache()
    yield
    clear_mesh_cache()


@pytest.fixture(scope="module")
def lib():
    return get_library()


# ------------------------------------------------------------------------------------------- real parts


def test_brick_2x4_bbox(lib):
    m = part_mesh("3001.dat", lib)
    # 3001.dat: side quads x -40..40, y 0..24, z -20..20; studs (stud.dat) rise to y = -4
    np.testing.assert_allclose(m.bbox, [[-40, -4, -20], [40, 24, 20]], atol=1e-4)
    assert m.certified and m.oriented.all() and m.missing == ()
    assert m.triangles.dtype == np.float32 and m.triangles.shape[1:] == (3, 3)
    assert m.colors.shape == (m.n_triangles,) and m.colors.dtype == np.int32
    assert set(np.unique(m.colors)) == {16}
    assert m.edges.shape[1:] == (2, 3) and set(np.unique(m.edge_colors)) == {24}


def test_plate_1x1_bbox_and_volume(lib):
    m = part_mesh("3024", lib)  # no .dat, still found
    assert m.name == "3024.dat"
    np.testing.assert_allclose(m.bbox, [[-10, -4, -10], [10, 8, 10]], atol=1e-4)
    assert m.signed_volume() == pytest.approx(3200 - 576 + STUD_VOLUME, abs=0.05)


def test_brick_1x1_volume(lib):
    assert part_mesh("3005.dat", lib).signed_volume() == pytest.approx(9600 - 2880 + STUD_VOLUME, abs=0.05)


def test_box_primitive_counts_and_outward_normals(lib):
    m = part_mesh("box.dat", lib)
    text = lib.read("box.dat").splitlines()
    n_quads = sum(1 for ln in text if ln.split()[:1] == ["4"])
    n_tris = sum(1 for ln in text if ln.split()[:1] == ["3"])
    n_lines = sum(1 for ln in text if ln.split()[:1] == ["2"])
    assert (n_quads, n_tris, n_lines) == (6, 0, 12)
    assert m.n_triangles == 2 * n_quads + n_tris and len(m.edges) == n_lines
    assert m.signed_volume() == pytest.approx(8.0)
    # cube centred on the origin: every outward normal points away from the centre
    centroids = m.triangles.mean(axis=1)
    assert (np.einsum("ij,ij->i", m.normals(), centroids) > 0.99).all()


def test_stud_mirrored_cylinder_is_outward(lib):
    # stud.dat places 4-4cyli.dat with matrix diag(6, -4, 6): det < 0 must flip the winding
    m = part_mesh("stud.dat", lib)
    assert m.n_triangles == 16 * 2 + 16  # 16 cylinder quads + 16 disc triangles
    # the primitives round sin(22.5 deg) = 0.382683 to 0.3827: 2e-5 relative
    assert m.signed_volume() == pytest.approx(STUD_VOLUME, rel=1e-4)
    side = np.abs(m.normals()[:, 1]) < 0.5
    radial = m.triangles[side].mean(axis=1)[:, [0, 2]]
    assert (np.einsum("ij,ij->i", m.normals()[side][:, [0, 2]], radial) > 0).all()


def test_arrays_read_only(lib):
    m = part_mesh("3024.dat", lib)
    for a in (m.triangles, m.colors, m.oriented, m.edges, m.edge_colors, m.bbox):
        assert not a.flags.writeable


def test_unknown_part_error_suggests(lib):
    with pytest.raises(PartNotFoundError, match="3001") as err:
        part_mesh("3001x.dat", lib)
    assert "did you mean" in str(err.value)


# ------------------------------------------------------------------------------------------- disk cache


def test_disk_cache_round_trip(lib):
    first = part_mesh("3001.dat", lib)
    folder = mesh_cache_dir(lib)
    files = list(folder.glob("*.mesh"))
    assert [f.name for f in files] == ["3001.dat.mesh"]
    assert not list(folder.glob(".tmp-*"))  # atomic write left no temp file
    clear_mesh_cache()  # drop in-process caches: the next load reads the pack file
    again = part_mesh("3001.dat", lib)
    assert again is not first
    for attr in ("triangles", "colors", "oriented", "edges", "edge_colors", "bbox"):
        a, b = getattr(first, attr), getattr(again, attr)
        assert a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)
        assert not b.flags.writeable
    assert again.certified is True and again.name == "3001.dat"


def test_corrupt_cache_file_is_rebuilt(lib, caplog):
    m = part_mesh("3024.dat", lib)
    path = mesh_cache_dir(lib) / "3024.dat.mesh"
    path.write_bytes(b"garbage")
    clear_mesh_cache()
    with caplog.at_level(logging.WARNING, logger="ldraw_data.mesh"):
        again = part_mesh("3024.dat", lib)
    assert "unreadable" in caplog.text
    assert np.array_equal(again.triangles, m.triangles)


# ------------------------------------------------------------------------------------------- batches


def test_load_meshes_distinct_and_missing(lib, caplog):
    with caplog.at_level(logging.WARNING, logger="ldraw_data.mesh"):
        out = load_meshes(["3001.dat", "3001.DAT", "3024.dat", "3001.dat", "nosuchpart.dat"], lib)
    assert set(out) == {"3001.dat", "3001.DAT", "3024.dat", "nosuchpart.dat"}
    assert out["3001.dat"] is out["3001.DAT"]
    assert out["nosuchpart.dat"].is_empty and np.isnan(out["nosuchpart.dat"].bbox).all()
    assert "nosuchpart.dat" in caplog.text
    assert "nosuchpart.dat" not in load_meshes(["nosuchpart.dat"], lib, on_missing="skip")
    with pytest.raises(PartNotFoundError):
        load_meshes(["nosuchpart.dat"], lib, on_missing="raise")


def test_triangle_counts_from_pack_headers(lib, caplog):
    names = ["3001.dat", "3024.dat", "4-4cyli.dat", "3001.DAT"]
    first = triangle_counts(names + ["nosuchpart.dat"], lib)  # nothing on disk yet: meshed, packs written
    meshes = load_meshes(names, lib)
    assert {n: first[n] for n in names} == {n: meshes[n].n_triangles for n in names}
    assert first["nosuchpart.dat"] == 0 and first["3001.dat"] > 0
    # 4-4cyli.dat: 16 segments, one quad (two triangles) each
    assert first["4-4cyli.dat"] == 32
    clear_mesh_cache()  # memo dropped: the counts now come from the pack headers alone
    assert triangle_counts(names, lib) == {n: first[n] for n in names}
    assert not M._LRU.get((mesh_cache_dir(lib).name, "3001.dat"))  # no mesh was loaded for it
    low = triangle_counts(["4-4cyli.dat"], lib, resolution="low")
    assert low["4-4cyli.dat"] == load_meshes(["4-4cyli.dat"], lib, resolution="low")["4-4cyli.dat"].n_triangles


def test_world_bounds(lib):
    meshes = load_meshes(["3001.dat", "nosuchpart.dat"], lib, on_missing="warn")
    rot_y90 = np.eye(4)
    rot_y90[:3, :3] = [[0, 0, 1], [0, 1, 0], [-1, 0, 0]]  # x' = z, z' = -x
    rot_y90[:3, 3] = [100, -24, 0]
    shifted = np.eye(4)
    shifted[:3, 3] = [0, 0, 50]
    b = world_bounds(meshes, ["3001.dat", "3001.dat", "nosuchpart.dat"], np.stack([rot_y90, shifted, np.eye(4)]))
    assert b.shape == (3, 2, 3)
    # rotated: x spans z -20..20 shifted by 100; z spans -x: -40..40; y -4..24 shifted by -24
    np.testing.assert_allclose(b[0], [[80, -28, -40], [120, 0, 40]], atol=1e-4)
    np.testing.assert_allclose(b[1], [[-40, -4, 30], [40, 24, 70]], atol=1e-4)
    assert np.isnan(b[2]).all()
    with pytest.raises(KeyError, match="load_meshes"):
        world_bounds(meshes, ["3024.dat"], np.eye(4)[None])
    with pytest.raises(ValueError, match="shape"):
        world_bounds(meshes, ["3001.dat"], np.eye(4))


def test_embedded_bent_part_from_falcon_mpd(lib, official_dir):
    # the real block "10179 - 47996_bended.dat" and its embedded subfiles, lines 8997-9081 of the MPD
    lines = (official_dir / FALCON.name).read_text(encoding="utf-8", errors="replace").splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.strip() == "0 FILE 10179 - 47996_bended.dat")
    end = next(i for i, ln in enumerate(lines) if ln.strip() == "0 FILE 10179 - 33299a.dat")
    doc = parse_document("\n".join(lines[start:end]), "10179.mpd")
    m = mesh_from_document("10179 - 47996_bended.dat", doc, lib)
    one = mesh_from_document("10179 - 47996_bended_01.dat", doc, lib)
    two = mesh_from_document("10179 - 47996_bended_02.dat", doc, lib)
    assert m.missing == () and two.missing == ()  # "s\10179 - 6057s04_bended.dat" found in the MPD
    # the block places _01 twice and _02 twelve times, all in colour 71
    assert m.n_triangles == 2 * one.n_triangles + 12 * two.n_triangles > 0
    assert set(np.unique(m.colors)) == {71}
    assert not m.certified  # the embedded blocks carry no BFC CERTIFY
    assert not list(mesh_cache_dir(lib).glob("*bended*"))  # embedded meshes are cached by content, not name
    assert len(list(mesh_cache_dir(lib).glob("embedded-*.mesh"))) == 3
    via_load = load_meshes(["10179 - 47996_bended.dat", "3001.dat"], lib, embedded=doc)
    assert np.array_equal(via_load["10179 - 47996_bended.dat"].triangles, m.triangles)


def test_embedded_mesh_disk_cache_is_keyed_by_content(lib, official_dir):
    # the Falcon's bent hose block and the two embedded blocks it places (_01 twice, _02 twelve times)
    lines = (official_dir / FALCON.name).read_text(encoding="utf-8", errors="replace").splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.strip() == "0 FILE 10179 - 47996_bended.dat")
    end = next(i for i, ln in enumerate(lines) if ln.strip() == "0 FILE 10179 - 33299a.dat")
    text = "\n".join(lines[start:end])
    doc = parse_document(text, "10179.mpd")
    first = load_meshes(["10179 - 47996_bended.dat"], lib, embedded=doc)["10179 - 47996_bended.dat"]
    folder = mesh_cache_dir(lib)
    packs = sorted(folder.glob("embedded-*.mesh"))
    assert len(packs) == 1 and len(packs[0].name) == len("embedded-") + 40 + len(".mesh")
    clear_mesh_cache()  # in-process memo dropped: the next load reads the pack
    again = load_meshes(["10179 - 47996_bended.dat"], lib, embedded=parse_document(text, "10179.mpd"))
    again = again["10179 - 47996_bended.dat"]
    assert again is not first and again.name == "10179 - 47996_bended.dat"
    for attr in ("triangles", "colors", "oriented", "edges", "edge_colors", "bbox"):
        assert np.array_equal(getattr(first, attr), getattr(again, attr))
    assert sorted(folder.glob("embedded-*.mesh")) == packs
    # the first subpart line of the block it uses (_02, placed 12 times in colour 71) recoloured 16 -> 4:
    # the top block's text is unchanged, yet it gets a new pack with the new colour
    body = lines[start:end]
    i02 = body.index("0 FILE 10179 - 47996_bended_02.dat")
    k = next(j for j in range(i02 + 1, len(body)) if body[j].startswith("1 16 "))
    body[k] = "1 4 " + body[k][len("1 16 "):]
    edited = load_meshes(["10179 - 47996_bended.dat"], lib,
                         embedded=parse_document("\n".join(body), "10179.mpd"))["10179 - 47996_bended.dat"]
    assert len(list(folder.glob("embedded-*.mesh"))) == 2
    assert set(np.unique(edited.colors)) == {4, 71} and set(np.unique(first.colors)) == {71}
    assert edited.n_triangles == first.n_triangles


# ------------------------------------------------------------------------------------------- BFC rules on a tmp library

# one triangle (0,0,0) (1,0,0) (0,0,1): (b-a) x (c-a) = (1,0,0) x (0,0,1) = (0,-1,0), i.e. facing up (-Y)
TRI = "0 Test triangle\n0 Name: tri.dat\n0 !LDRAW_ORG Primitive\n0 BFC CERTIFY CCW\n3 16 0 0 0 1 0 0 0 0 1\n2 24 0 0 0 1 0 0\n"
ID = "1 0 0 0 1 0 0 0 1"
MIRROR_X = "-1 0 0 0 1 0 0 0 1"
MIRROR_Y = "1 0 0 0 -1 0 0 0 1"


def _part(body: str, certify: str = "0 BFC CERTIFY CCW\n") -> str:
    return "0 Test part\n0 !LDRAW_ORG Part\n" + certify + body


@pytest.fixture()
def tmp_lib(tmp_path):
    root = tmp_path / "ldraw"
    (root / "parts" / "s").mkdir(parents=True)
    (root / "p").mkdir()
    (root / "p" / "tri.dat").write_text(TRI)
    (root / "p" / "tri_uncert.dat").write_text(TRI.replace("0 BFC CERTIFY CCW\n", ""))
    parts = {
        "plain.dat": _part(f"1 16 0 0 0 {ID} tri.dat\n"),
        "invert.dat": _part(f"0 BFC INVERTNEXT\n1 16 0 0 0 {ID} tri.dat\n"),
        "mirror_y.dat": _part(f"1 16 0 0 0 {MIRROR_Y} tri.dat\n"),
        "mirror_x.dat": _part(f"1 16 0 0 0 {MIRROR_X} tri.dat\n"),
        "both.dat": _part(f"0 BFC INVERTNEXT\n1 16 0 0 0 {MIRROR_X} tri.dat\n"),
        "nested.dat": _part(f"0 BFC INVERTNEXT\n1 16 0 5 0 {ID} s\\sub.dat\n"),
        "cw.dat": _part("3 16 0 0 0 1 0 0 0 0 1\n0 BFC CCW\n3 16 0 0 0 1 0 0 0 0 1\n", "0 BFC CERTIFY CW\n"),
        "uncert_child.dat": _part(f"1 16 0 0 0 {ID} tri_uncert.dat\n1 16 0 0 0 {ID} tri.dat\n"),
        "uncert_parent.dat": _part(f"0 BFC INVERTNEXT\n1 16 0 0 0 {ID} tri.dat\n", certify=""),
        "colored.dat": _part(f"1 4 0 0 0 {ID} tri.dat\n1 24 0 0 0 {ID} tri.dat\n3 16 0 0 0 0 0 1 1 0 0\n"),
        "missing.dat": _part(f"1 16 0 0 0 {ID} tri.dat\n1 16 0 0 0 {ID} nothere.dat\n"),
        "quad.dat": _part("4 16 0 0 0 2 0 0 2 0 2 0 0 2\n"),
    }
    # s\sub.dat: the triangle mirrored in x (outward kept), so nested.dat = INVERTNEXT of an outward triangle
    (root / "parts" / "s" / "sub.dat").write_text(_part(f"1 16 0 0 0 {MIRROR_X} tri.dat\n"))
    for name, text in parts.items():
        (root / "parts" / name).write_text(text)
    (root / "LDConfig.ldr").write_text(
        "0 !COLOUR Red CODE 4 VALUE #C91A09 EDGE #333333\n0 !COLOUR Black CODE 0 VALUE #1B2A34 EDGE #808080\n")
    return LDrawLibrary(root)


def _normal_y(m: PartMesh) -> list[float]:
    return [round(float(v), 6) for v in m.normals()[:, 1]]


@pytest.mark.parametrize(
    "name, expected",
    [
        ("plain.dat", [-1.0]),  # as drawn
        ("invert.dat", [1.0]),  # INVERTNEXT flips
        ("mirror_y.dat", [1.0]),  # same points (y = 0), det < 0 flips the winding
        ("mirror_x.dat", [-1.0]),  # mirrored points would face +Y; det < 0 flips back: still outward (-Y)
        ("both.dat", [1.0]),  # INVERTNEXT and det < 0 cancel: mirrored points face +Y
        ("nested.dat", [1.0]),  # sub.dat keeps -Y, INVERTNEXT on it flips
        ("cw.dat", [1.0, -1.0]),  # CERTIFY CW: first reversed; after 0 BFC CCW: as drawn
    ],
)
def test_bfc_winding(tmp_lib, name, expected):
    m = part_mesh(name, tmp_lib)
    assert _normal_y(m) == expected
    assert m.certified and m.oriented.all()


def test_mirror_x_points(tmp_lib):
    m = part_mesh("mirror_x.dat", tmp_lib)
    assert sorted(map(tuple, m.triangles[0].tolist())) == [(-1, 0, 0), (0, 0, 0), (0, 0, 1)]
    np.testing.assert_allclose(m.bbox, [[-1, 0, 0], [0, 0, 1]])


def test_quad_split(tmp_lib):
    m = part_mesh("quad.dat", tmp_lib)
    assert m.n_triangles == 2
    # (0,0,0) (2,0,0) (2,0,2) (0,0,2): both halves keep the quad's -Y facing, total area 4
    assert _normal_y(m) == [-1.0, -1.0]
    area = 0.5 * np.linalg.norm(np.cross(m.triangles[:, 1] - m.triangles[:, 0],
                                         m.triangles[:, 2] - m.triangles[:, 0]), axis=1)
    assert area.sum() == pytest.approx(4.0)


def test_uncertified_subfile(tmp_lib):
    m = part_mesh("uncert_child.dat", tmp_lib)
    assert not m.certified
    assert m.oriented.tolist() == [False, True]
    assert _normal_y(m) == [-1.0, -1.0]  # kept as written


def test_uncertified_parent_ignores_invertnext(tmp_lib):
    m = part_mesh("uncert_parent.dat", tmp_lib)
    assert not m.certified
    assert m.oriented.tolist() == [False]  # BFC spec: inversion unknown below an uncertified file
    assert _normal_y(m) == [-1.0]


def test_color_inheritance(tmp_lib):
    m = part_mesh("colored.dat", tmp_lib)
    # own triangle first (16 stays 16), then tri.dat in red (4), then tri.dat in edge colour (24)
    assert m.colors.tolist() == [16, 4, 24]
    # tri.dat's edge (24) placed in red takes red's edge #333333 as a direct colour
    assert m.edge_colors.tolist() == [0x2333333, 24]


def test_missing_subfile_warns_and_loads(tmp_lib, caplog):
    with caplog.at_level(logging.WARNING, logger="ldraw_data.mesh"):
        m = part_mesh("missing.dat", tmp_lib)
    assert "nothere.dat" in caplog.text and "missing.dat" in caplog.text
    assert m.n_triangles == 1 and m.missing == ("nothere.dat",)
    assert not m.certified


def test_low_resolution_uses_8_segment_primitives(lib):
    """stud.dat = 4-4cyli (16 quads) + 4-4disc (16 triangles) + two 4-4edge (16 lines each); the library's
    8/ versions have 8 of each. Worked out from the files: 48 triangles and 32 edges, 24 and 16 at low
    resolution, with the same box (the 8-gon keeps the vertices at +-6 LDU on x and z)."""
    std = load_meshes(["stud.dat"], lib)["stud.dat"]
    low = load_meshes(["stud.dat"], lib, resolution="low")["stud.dat"]
    assert (std.n_triangles, len(std.edges)) == (48, 32)
    assert (low.n_triangles, len(low.edges)) == (24, 16)
    np.testing.assert_allclose(low.bbox, [[-6, -4, -6], [6, 0, 6]], atol=1e-4)
    np.testing.assert_allclose(std.bbox, low.bbox, atol=1e-4)
    # the standard mesh is unchanged by the low one cached beside it
    assert load_meshes(["stud.dat"], lib)["stud.dat"].n_triangles == 48
    with pytest.raises(ValueError, match="resolution"):
        load_meshes(["stud.dat"], lib, resolution="high")


def test_low_resolution_keeps_big_circles(lib):
    """Dish 10x10 (50990a) draws its rim with 48\\4-4cyli.dat at scale 100, itself four 48\\1-4cyli.dat at
    scale 1: the low-resolution mesh must keep all 48 segments there (a big octagon would show), while its
    stud2.dat studs (radius 6) drop to 8."""
    std = load_meshes(["50990a.dat"], lib)["50990a.dat"]
    low = load_meshes(["50990a.dat"], lib, resolution="low")["50990a.dat"]

    def rim_angles(m):
        v = m.triangles.reshape(-1, 3).astype(np.float64)
        rim = np.abs(np.hypot(v[:, 0], v[:, 2]) - 100.0) < 0.01  # float32 vertices
        return set(np.round(np.degrees(np.arctan2(v[rim, 2], v[rim, 0])) % 360, 1))

    assert {round(7.5 * k, 1) for k in range(48)} <= rim_angles(std)
    assert rim_angles(low) == rim_angles(std)
    assert low.n_triangles < std.n_triangles


def _angles_about(points: np.ndarray, cx: float, cz: float) -> set:
    """Angles (degrees, to the nearest 0.5) of ``points`` (n, 3) about the vertical axis through (cx, cz)."""
    return set((np.round(2 * (np.degrees(np.arctan2(points[:, 2] - cz, points[:, 0] - cx)) % 360)) / 2).tolist())


def test_coarse_resolution_cuts_small_circles_to_4_segments(lib):
    """Brick 2 x 2 (3003): four outer studs (s/3003s01.dat places stud.dat, "Stud") and one tube under it
    (stud4.dat, "Stud Tube Open", radii 6 and 8, drawn 20 LDU long so the low resolution keeps its 16
    segments: 20 > LOW_RES_MAX_SCALE). Coarse meshes draw the tube's faces and edge lines with 4 segments
    (vertices at 0, 90, 180, 270 degrees about its axis, the even 8-gon vertices) and keep the studs' 8
    (every 45 degrees); the box is the same, since the squares keep the vertices at +-r on x and z."""
    low = load_meshes(["3003.dat"], lib, resolution="low")["3003.dat"]
    coarse = load_meshes(["3003.dat"], lib, resolution="coarse")["3003.dat"]

    def tube(p):  # below the top (LDraw +y is down), within radius 8 of the brick's axis
        p = p.reshape(-1, 3).astype(np.float64)
        r = np.hypot(p[:, 0], p[:, 2])
        return p[(p[:, 1] > 4) & (r > 5.9) & (r < 8.1)]

    def stud(p):  # the stud at (10, 10), above the top
        p = p.reshape(-1, 3).astype(np.float64)
        return p[(p[:, 1] <= 0) & (np.abs(np.hypot(p[:, 0] - 10, p[:, 2] - 10) - 6) < 0.01)]

    assert _angles_about(tube(low.triangles), 0, 0) == {22.5 * k for k in range(16)}
    assert _angles_about(tube(coarse.triangles), 0, 0) == {0, 90, 180, 270}
    assert _angles_about(tube(coarse.edges), 0, 0) == {0, 90, 180, 270}
    for m in (low, coarse):
        assert _angles_about(stud(m.triangles), 10, 10) == {45 * k for k in range(8)}
        assert _angles_about(stud(m.edges), 10, 10) == {45 * k for k in range(8)}
    np.testing.assert_allclose(coarse.bbox, low.bbox, atol=1e-4)
    assert coarse.n_triangles < low.n_triangles and len(coarse.edges) < len(low.edges)
    with pytest.raises(ValueError, match="coarse"):
        load_meshes(["3003.dat"], lib, resolution="fine")


def test_four_segment_circles_keep_a_disc_and_its_surround_closed(lib):
    """8/4-4disc.dat (the unit disc) and 8/4-4ndis.dat (the square of side 2 around it, less the disc)
    together cover the square, area 4. Cut to 4 segments, the disc becomes the square with corners at
    radius 1 on the axes (area 2) and the surround keeps its corners at (+-1, +-1) (radius sqrt 2 at 45
    degrees, not on a circle of the disc's, so they do not move): area 4 - 2 = 2, the two still meet."""
    from ldraw_data.mesh import _Resolver, four_segment_circles

    res = _Resolver(lib, resolution="low")

    def area(g):
        t = g.tris
        return 0.5 * np.linalg.norm(np.cross(t[:, 1] - t[:, 0], t[:, 2] - t[:, 0]), axis=1).sum()

    disc, ndis = res.geom("8/4-4disc.dat"), res.geom("8/4-4ndis.dat")
    assert area(disc) + area(ndis) == pytest.approx(4.0, abs=1e-3)
    disc4, ndis4 = four_segment_circles(disc), four_segment_circles(ndis)
    assert area(disc4) == pytest.approx(2.0, abs=1e-3)
    assert area(ndis4) == pytest.approx(2.0, abs=1e-3)
    corners = ndis4.tris.reshape(-1, 3)
    assert np.any(np.all(np.abs(corners - [1, 0, 1]) < 1e-4, axis=1))
    assert len(disc4.tris) < len(disc.tris)
