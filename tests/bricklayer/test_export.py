"""3D exports and parts lists, read back with independent readers and compared with the build.

Truth values worked out by hand for the small model ``SMALL`` (LDraw frame, LDU):
- brick 3001 spans x -40..40, y -4..24 (studs up to -4), z -20..20 (80 x 24 x 40 plus 4 LDU studs);
  the second brick at y = -24 spans y -28..0; plate 3024 (20 x 8 x 20 + studs) at y = -32 spans y -36..-24;
- the chrome brick at x = 100 turned 90 degrees about Y (rows 0 0 1 / 0 1 0 / -1 0 0) maps x' = z, z' = -x:
  x 80..120, z -40..40;
- so the model spans x -40..120, y -36..24, z -40..40 LDU; glTF (+Y up, metres, (x, -y, -z) * 0.0004):
  x -0.016..0.048, y -0.0096..0.0144, z -0.016..0.016; STL (mm, +Z up, (x, z, -y) * 0.4):
  x -16..48, y -16..16, z -9.6..14.4.
- colours: 4 Red #B40000 (linear red 0.4564), 1 Blue, 47 Trans_Clear (ALPHA 128), 383 Chrome_Silver
  (CHROME finish) in LDConfig.ldr.
"""

from __future__ import annotations

import csv
import io
import re
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from bricklayer import from_ldraw, read_ldraw
from bricklayer.export import (parts_list, parts_list_text, write_gltf, write_obj, write_parts_list, write_stl,
                               write_usd)

SMALL = """0 small export test
0 Name: small.ldr
1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat
1 1 0 -24 0 1 0 0 0 1 0 0 0 1 3001.dat
1 47 0 -32 0 1 0 0 0 1 0 0 0 1 3024.dat
1 383 100 0 0 0 0 1 0 1 0 -1 0 0 3001.dat
"""
SMALL_LDU = np.array([[-40.0, -36.0, -40.0], [120.0, 24.0, 40.0]])
SMALL_GLTF_M = np.array([[-0.016, -0.0096, -0.016], [0.048, 0.0144, 0.016]])
SMALL_STL_MM = np.array([[-16.0, -16.0, -9.6], [48.0, 16.0, 14.4]])

OFFICIAL = "6898_1_Ice_Sat_V.mpd"


@pytest.fixture(scope="module")
def small(library):
    return from_ldraw(SMALL, source="small.ldr")


# ------------------------------------------------------------------ independent helpers
def _mpd_blocks(text: str) -> tuple[str, dict[str, list[str]]]:
    """Blocks of an MPD by lower-case name (own parser: '0 FILE name' ... '0 NOFILE')."""
    blocks: dict[str, list[str]] = {}
    order = []
    cur = None
    for line in text.splitlines():
        s = line.strip()
        if s.upper().startswith("0 FILE "):
            cur = s[7:].strip().lower()
            blocks[cur] = []
            order.append(cur)
        elif s.upper() == "0 NOFILE":
            cur = None
        elif cur is not None:
            blocks[cur].append(s)
    return order[0], blocks


def _count_parts(path: Path) -> Counter:
    """(part id lower case, colour code) -> count: type-1 lines walked from the main block, submodels
    expanded with multiplicity and colour 16 replaced by the referencing line's colour (LDraw spec 1.0.2)."""
    main, blocks = _mpd_blocks(path.read_text(encoding="utf-8", errors="replace"))
    out: Counter = Counter()

    def walk(name: str, color: int, mult: int):
        for s in blocks[name]:
            tok = s.split()
            if not tok or tok[0] != "1" or len(tok) < 15:
                continue
            c = int(tok[1])
            c = color if c == 16 else c
            ref = " ".join(tok[14:]).lower().replace("\\", "/")
            if ref in blocks:
                walk(ref, c, mult)
            else:
                out[(ref.removesuffix(".dat"), c)] += mult

    walk(main, 16, 1)
    return out


def _expected_scene(path: Path, library):
    """World vertices bounds (LDU, LDraw frame) and drawn colours of a model, from ldraw_data's own flatten
    and part meshes (not the export code under test)."""
    from ldraw_data.io import load_model
    from ldraw_data.mesh import part_mesh

    m = load_model(path, library)
    lo, hi = np.full(3, np.inf), np.full(3, -np.inf)
    colors = set()
    n = 0
    for p in m.parts:
        if p.source != "library":
            continue
        mesh = part_mesh(p.name, library)
        if mesh.is_empty:
            continue
        n += 1
        t = np.asarray(p.transform)
        w = mesh.triangles.reshape(-1, 3).astype(np.float64) @ t[:3, :3].T + t[:3, 3]
        lo, hi = np.minimum(lo, w.min(axis=0)), np.maximum(hi, w.max(axis=0))
        for c in np.unique(mesh.colors):
            if c == 16:
                colors.add(int(p.color))
            elif c != 24:
                colors.add(int(c))
    return n, np.stack([lo, hi]), colors


def _ldraw_to_gltf_bounds(b: np.ndarray) -> np.ndarray:
    """LDraw LDU [min, max] -> glTF metres (x, -y, -z) * 0.0004."""
    lo = np.array([b[0, 0], -b[1, 1], -b[1, 2]]) * 0.0004
    hi = np.array([b[1, 0], -b[0, 1], -b[0, 2]]) * 0.0004
    return np.stack([lo, hi])


# ------------------------------------------------------------------ glTF
def test_gltf_small_model_nodes_shared_geometry_bounds_and_materials(small, tmp_path):
    import pygltflib
    import trimesh

    res = write_gltf(small, tmp_path / "small.glb")
    g = pygltflib.GLTF2().load(str(tmp_path / "small.glb"))
    placed = [n for n in g.nodes if n.mesh is not None]
    assert len(placed) == 4 and res.placements == 4
    # 3001 in three colours: three meshes over one POSITION accessor; 3024 its own
    assert len(g.meshes) == 4
    pos = {p.attributes.POSITION for m in g.meshes for p in m.primitives}
    assert len(pos) == 2 == res.distinct_parts
    codes = {m.extras["ldraw_code"]: m for m in g.materials}
    assert set(codes) == {4, 1, 47, 383}
    red = codes[4].pbrMetallicRoughness.baseColorFactor
    assert red[0] == pytest.approx(((0xB4 / 255 + 0.055) / 1.055) ** 2.4, abs=1e-6) and red[1:] == [0, 0, 1]
    assert codes[47].alphaMode == "BLEND" and codes[47].pbrMetallicRoughness.baseColorFactor[3] == pytest.approx(
        128 / 255)
    assert codes[4].alphaMode == "OPAQUE"
    assert codes[383].pbrMetallicRoughness.metallicFactor == 1.0
    scene = trimesh.load(tmp_path / "small.glb")  # independent reader: composes the node matrices
    assert np.allclose(scene.bounds, SMALL_GLTF_M, atol=1e-7)


def test_gltf_official_model_against_an_independent_flatten(official_dir, library, tmp_path):
    import pygltflib
    import trimesh

    path = official_dir / OFFICIAL
    n, bounds, colors = _expected_scene(path, library)
    res = write_gltf(read_ldraw(path), tmp_path / "m.glb")
    g = pygltflib.GLTF2().load(str(tmp_path / "m.glb"))
    assert sum(1 for nd in g.nodes if nd.mesh is not None) == n == res.placements
    assert {m.extras["ldraw_code"] for m in g.materials} == colors
    assert len({p.attributes.POSITION for m in g.meshes for p in m.primitives}) == res.distinct_parts
    assert np.allclose(trimesh.load(tmp_path / "m.glb").bounds, _ldraw_to_gltf_bounds(bounds), atol=2e-6)


def test_exports_refuse_to_overwrite_and_check_the_suffix(small, tmp_path):
    target = tmp_path / "a.glb"
    target.write_bytes(b"keep")
    with pytest.raises(FileExistsError, match="overwrite=True"):
        write_gltf(small, target)
    assert target.read_bytes() == b"keep"
    write_gltf(small, target, overwrite=True)
    assert target.read_bytes()[:4] == b"glTF"
    with pytest.raises(ValueError, match=r"\.stl"):
        write_stl(small, tmp_path / "a.obj")
    (tmp_path / "b.mtl").write_text("mine")
    with pytest.raises(FileExistsError):
        write_obj(small, tmp_path / "b.obj")
    assert not (tmp_path / "b.obj").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.glb", "b.mtl"]  # no temporary files left


# ------------------------------------------------------------------ OBJ and STL
def test_obj_bounds_materials_and_alpha(small, tmp_path):
    import trimesh

    res = write_obj(small, tmp_path / "s.obj")
    assert res.materials == 4
    mtl = (tmp_path / "s.mtl").read_text()
    names = re.findall(r"^newmtl (\S+)$", mtl, re.M)
    assert sorted(names) == sorted(["4_Red", "1_Blue", "47_Trans_Clear", "383_Chrome_Silver"])
    assert re.search(r"newmtl 47_Trans_Clear\n(?:.*\n)*?d 0\.50196", mtl)
    used = set(re.findall(r"^usemtl (\S+)$", (tmp_path / "s.obj").read_text(), re.M))
    assert used == set(names)
    scene = trimesh.load(tmp_path / "s.obj")
    assert np.allclose(scene.bounds, SMALL_GLTF_M, atol=1e-7)


def test_stl_is_one_mesh_in_millimetres(small, tmp_path):
    import trimesh

    res = write_stl(small, tmp_path / "s.stl")
    m = trimesh.load(tmp_path / "s.stl")
    assert isinstance(m, trimesh.Trimesh) and len(m.faces) == res.triangles
    assert np.allclose(m.bounds, SMALL_STL_MM, atol=1e-4)
    assert res.watertight == m.is_watertight


# ------------------------------------------------------------------ USD
def test_usd_instances_bounds_and_materials(small, tmp_path):
    pytest.importorskip("pxr", reason="usd-core not installed (optional extra [usd])")
    from pxr import Usd, UsdGeom, UsdShade

    res = write_usd(small, tmp_path / "s.usda")
    st = Usd.Stage.Open(str(tmp_path / "s.usda"))
    assert UsdGeom.GetStageUpAxis(st) == "Y" and UsdGeom.GetStageMetersPerUnit(st) == pytest.approx(0.0004)
    inst = [p for p in st.Traverse() if p.IsInstance()]
    assert len(inst) == 4 == res.placements
    lo, hi = np.full(3, np.inf), np.full(3, -np.inf)
    bound = set()
    cache = UsdGeom.XformCache()
    for p in inst:
        for c in Usd.PrimRange(p, Usd.TraverseInstanceProxies()):
            if not c.IsA(UsdGeom.Mesh):
                continue
            pts = np.array(UsdGeom.Mesh(c).GetPointsAttr().Get(), dtype=np.float64)
            m = np.array(cache.GetLocalToWorldTransform(c))  # row-vector convention
            w = np.c_[pts, np.ones(len(pts))] @ m
            lo, hi = np.minimum(lo, w[:, :3].min(axis=0)), np.maximum(hi, w[:, :3].max(axis=0))
            mat = UsdShade.MaterialBindingAPI(c).ComputeBoundMaterial()[0]
            bound.add(mat.GetPrim().GetCustomDataByKey("ldraw_code"))
    assert np.allclose(np.stack([lo, hi]) * 0.0004, SMALL_GLTF_M, atol=1e-7)
    assert bound == {4, 1, 47, 383}


def test_usd_without_usd_core_says_what_to_install(small, tmp_path, monkeypatch):
    import builtins

    real = builtins.__import__

    def no_pxr(name, *a, **k):
        if name == "pxr" or name.startswith("pxr."):
            raise ImportError("No module named 'pxr'")
        return real(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", no_pxr)
    with pytest.raises(ImportError, match=r"usd-core"):
        write_usd(small, tmp_path / "s.usda")


# ------------------------------------------------------------------ parts list
def test_parts_list_of_an_official_model_matches_an_independent_count(official_dir):
    path = official_dir / OFFICIAL
    expected = _count_parts(path)
    rows = parts_list(read_ldraw(path))
    got = Counter({(r.part_id.lower(), r.color): r.quantity for r in rows})
    assert got == expected
    assert sum(r.quantity for r in rows) == 148
    assert len(rows) == len(expected)


def test_parts_list_kinds_and_names(small):
    rows = {(r.part_id, r.color): r for r in parts_list(small)}
    assert rows[("3001", 4)].name == "Brick 2 x 4" and rows[("3001", 4)].color_name == "Red"
    assert rows[("3024", 47)].color_name == "Trans Clear" and rows[("3024", 47)].kind == "part"
    assert sum(r.quantity for r in rows.values()) == 4


def test_marketplace_formats_need_a_colour_table_and_never_guess(small, tmp_path):
    rows = parts_list(small)
    with pytest.raises(ValueError, match="not Rebrickable colour ids"):
        parts_list_text(rows, "rebrickable-csv")
    # a table that knows two of the four colours: the other rows are left out, not guessed
    res = parts_list_text(rows, "rebrickable-csv", color_map={"4": "4", "1": "1"}, part_map={"3001": "3001"})
    assert list(csv.reader(io.StringIO(res.text))) == [["Part", "Color", "Quantity"], ["3001", "1", "1"],
                                                         ["3001", "4", "1"]]
    assert res.ids_as_ldraw == 0 and res.rows_written == 2
    assert {(r.part_id, r.color) for r, _ in res.left_out} == {("3024", 47), ("3001", 383)}
    xml = parts_list_text(rows, "bricklink-xml", color_map={"4": "5", "1": "7", "47": "12", "383": "22"})
    root = ET.fromstring(xml.text)
    items = {(i.findtext("ITEMID"), i.findtext("COLOR")): int(i.findtext("MINQTY")) for i in root}
    assert items == {("3001", "5"): 1, ("3001", "7"): 1, ("3024", "12"): 1, ("3001", "22"): 1}
    assert all(i.findtext("ITEMTYPE") == "P" for i in root) and not xml.text.startswith("<?xml")
    out = write_parts_list(small, tmp_path / "p.csv")
    assert out.rows_written == 4
    with pytest.raises(FileExistsError):
        write_parts_list(small, tmp_path / "p.csv")


def test_embedded_parts_are_listed_as_embedded(official_dir):
    rows = parts_list(read_ldraw(official_dir / "10179_1_Millennium_Falcon_UCS.mpd"))
    emb = {r.part_id: r for r in rows if r.kind == "embedded"}
    assert emb["10179 - 47996_bended"].name == "Boat Rigging  4 x 28 Rectangular, bended"
    res = parts_list_text(rows, "bricklink-xml", color_map={str(r.color): "1" for r in rows})
    assert {r.part_id for r, _ in res.left_out} == set(emb)
    assert sum(r.quantity for r in rows) == 5247


def test_export_doc_code_runs(library, capsys):
    docs = Path(__file__).resolve().parents[2] / "docs" / "export.md"
    blocks = re.findall(r"```python\n(.*?)```", docs.read_text(), flags=re.S)
    assert blocks
    for i, code in enumerate(blocks):
        exec(compile(code, f"export.md block {i + 1}", "exec"), {})
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "2 2 2" and out[1] == "first.stl"
    assert out[2] == "[('3003', 'Red', 1), ('3031', 'Green', 1)]"  # equal counts: by part id
