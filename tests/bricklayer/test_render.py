"""Rendering: pictures of real official models and of SDK builds, checked for content and framing.

Truth values worked out by hand:
- a 4x4 plate 3031 (80 x 80 x 8 LDU plus 4 LDU studs) with a 2x2 brick 3003 (24 LDU plus studs) stacked on it
  spans 80 x 80 x 36 LDU (8 + 24 + 4);
- in an orthographic front view of 320x240 px with a 5 % margin the camera half-width is
  max(40, 18 * 4/3) ... the wider axis wins: xmag = 40 / 0.95 LDU, so the 80 LDU width covers
  80 / (2 * 40 / 0.95) * 320 = 304 px and the 36 LDU height 36 / (2 * 30 / 0.95) * 240 = 136.8 px;
- colour hues come from LDConfig.ldr (colour 4 Red, 2 Green, 1 Blue, 14 Yellow).
"""

from __future__ import annotations

import colorsys

import numpy as np
import pytest

from bricklayer import Color, Element, LegoBuild, read_ldraw
from ldraw_data.colors import get_color_table

pytestmark = pytest.mark.render

SIZE = (320, 240)


@pytest.fixture(scope="module")
def render():
    """The render package, or a skip when no offscreen OpenGL can be created here."""
    import bricklayer.render as r

    try:
        r.backend_info()
    except r.RenderBackendError as exc:
        pytest.skip(f"no offscreen OpenGL backend (EGL or OSMesa): {exc}")
    return r


@pytest.fixture(scope="module")
def small_build():
    b = LegoBuild()
    plate = b.add(Element("3031", Color.GREEN))
    brick = b.stack(Element("3003", Color.RED), on=plate)
    return b, plate, brick


def hue_fraction(px: np.ndarray, rgb, *, tol_deg: float = 12.0, min_sat: float = 0.35) -> float:
    """Fraction of pixels whose hue is within ``tol_deg`` of ``rgb``'s hue (saturated pixels only)."""
    h0 = colorsys.rgb_to_hsv(*(np.asarray(rgb[:3]) / 255.0))[0] * 360
    f = px.reshape(-1, 3).astype(np.float64) / 255.0
    mx, mn = f.max(axis=1), f.min(axis=1)
    sat = np.where(mx > 0, (mx - mn) / np.maximum(mx, 1e-9), 0)
    d = np.maximum(mx - mn, 1e-9)
    r, g, b = f.T
    h = np.where(mx == r, ((g - b) / d) % 6, np.where(mx == g, (b - r) / d + 2, (r - g) / d + 4)) * 60
    dh = np.abs((h - h0 + 180) % 360 - 180)
    return float(np.mean((dh <= tol_deg) & (sat >= min_sat) & (mx >= 0.15)))


def check_framing(r, cam, px, bounds):
    """The bbox corners project inside the picture and the border rows/columns are background."""
    from bricklayer.render.camera import box_corners

    h, w = px.shape[:2]
    assert (w, h) == (cam.width, cam.height)
    uv = cam.project(box_corners(bounds))
    assert np.all(uv[:, 0] >= 0) and np.all(uv[:, 0] <= w), uv
    assert np.all(uv[:, 1] >= 0) and np.all(uv[:, 1] <= h), uv
    assert np.all(uv[:, 2] > cam.znear) and np.all(uv[:, 2] < cam.zfar)
    bg = np.array(r.BACKGROUND)
    for edge in (px[0], px[-1], px[:, 0], px[:, -1]):
        assert np.all(edge == bg), "a part touches the picture border"


def test_small_build_geometry_bounds(render, small_build):
    b, _, _ = small_build
    g = render.build_geometry(b)
    assert g.n_parts == 2
    np.testing.assert_allclose(g.bounds[1] - g.bounds[0], [80, 80, 36], atol=1e-3)


def test_small_build_front_view_size_and_colours(render, small_build):
    b, _, _ = small_build
    (cam, px), = render.render_views(b, ["front"], size=SIZE)
    g = render.build_geometry(b)
    check_framing(render, cam, px, g.bounds)
    fg = np.any(px != render.BACKGROUND, axis=2)
    rows, cols = np.nonzero(fg)
    # hand-computed extent (module docstring): 304 x 136.8 px; +-3 px for edge lines and antialiasing
    assert abs((cols.max() - cols.min() + 1) - 304) <= 3
    assert abs((rows.max() - rows.min() + 1) - 136.8) <= 3
    table = get_color_table()
    assert hue_fraction(px, table.rgba(4)) > 0.05   # the red brick, seen from the front
    assert hue_fraction(px, table.rgba(2)) > 0.02   # the green plate's edge


def test_small_build_top_view_red_quarter(render, small_build):
    b, _, _ = small_build
    (cam, px), = render.render_views(b, ["top"], size=(240, 240))
    check_framing(render, cam, px, render.build_geometry(b).bounds)
    table = get_color_table()
    red, green = hue_fraction(px, table.rgba(4)), hue_fraction(px, table.rgba(2))
    # from above the 2x2 brick covers 1/4 of the 4x4 plate's 80 x 80 LDU
    assert red / (red + green) == pytest.approx(0.25, abs=0.05)


def test_named_angles_and_pose_views_agree(render, small_build):
    b, _, _ = small_build
    (cam, front), (_, angles) = render.render_views(b, ["front", (0, 0)], size=(160, 120))
    (_, posed), = render.render_views(b, [cam.pose], size=(160, 120))
    assert np.array_equal(front, angles)
    assert np.array_equal(front, posed)
    np.testing.assert_allclose(cam.direction, [0, 1, 0], atol=1e-12)  # front camera looks toward +Y (back)


def test_perspective_frames_build(render, small_build):
    b, _, _ = small_build
    (cam, px), = render.render_views(b, ["iso"], size=SIZE, projection="perspective")
    assert cam.projection == "perspective"
    check_framing(render, cam, px, render.build_geometry(b).bounds)


def test_highlight_draws_warning_and_fades_rest(render, small_build):
    b, plate, brick = small_build
    table = get_color_table()
    img = render.render_build(b, view="iso", size=SIZE, highlight=[brick])
    px = np.asarray(img)
    assert hue_fraction(px, (230, 30, 30)) > 0.03
    normal = np.asarray(render.render_build(b, view="iso", size=SIZE))
    assert hue_fraction(normal, table.rgba(2)) > 0.1
    assert hue_fraction(px, table.rgba(2)) < 0.01  # the plate is faded (desaturated, transparent)
    # a mapping gives the colour: plate in orange
    px2 = np.asarray(render.render_build(b, view="iso", size=SIZE, highlight={plate: (255, 140, 0)}))
    assert hue_fraction(px2, (255, 140, 0)) > 0.1


@pytest.mark.parametrize("model, colours", [
    ("6907_Sonic_Stinger", (1, 42)),            # blue, trans neon green
    ("1180_1_Space_Port_Moon_Buggy", (1, 14)),  # blue cap and tile, yellow minifig head
    ("6232_1_Skeleton_Crew", (1, 14, 4)),       # blue legs, yellow baseplate, red cap
])
def test_official_model_iso(render, model, colours, official_dir):
    b = read_ldraw(official_dir / f"{model}.mpd")
    (cam, px), = render.render_views(b, ["iso"], size=SIZE)
    g = render.build_geometry(b)
    assert g.n_parts >= 0.95 * b.brick_count
    check_framing(render, cam, px, g.bounds)
    assert np.any(px != render.BACKGROUND, axis=2).mean() > 0.08
    table = get_color_table()
    for code in colours:
        assert hue_fraction(px, table.rgba(code)) > 0.002, table.name(code)


def test_sheet_and_file(render, tmp_path, official_dir):
    out = render.render_file(official_dir / "1180_1_Space_Port_Moon_Buggy.mpd", tmp_path / "buggy.png",
                             view="sheet", size=(600, 400))
    from PIL import Image

    img = Image.open(out)
    assert img.size == (600, 400)
    px = np.asarray(img.convert("RGB"))
    title_h = max(14, 400 // 30) + 8
    ch = (400 - title_h) // 2
    for i in range(6):
        x0, y0 = (i % 3) * 200, title_h + (i // 3) * ch
        cell = px[y0 + 20: y0 + ch - 2, x0 + 2: x0 + 198]
        assert np.any(cell != render.BACKGROUND, axis=2).mean() > 0.05, f"empty cell {i}"
        label = px[y0 + 3: y0 + 18, x0 + 4: x0 + 60]
        assert (label.max(axis=2) < 120).any(), f"no label in cell {i}"


def test_bad_view_and_size_and_empty_build(render, small_build):
    b, _, _ = small_build
    with pytest.raises(ValueError, match="iso"):
        render.render_build(b, view="diagonal")
    with pytest.raises(ValueError, match="800x600"):
        render.render_build(b, size="big")
    with pytest.raises(ValueError, match="nothing to render"):
        render.render_build(LegoBuild())


def test_face_lit_shader_matches_pyrender_shader(render, small_build, monkeypatch):
    """Lighting per vertex (face_lit.vert) gives pyrender's per-fragment picture: faces are flat, lights
    directional, the camera orthographic, so the lit colour is constant over a triangle. Ours shares
    vertices across normals (the provoking vertex carries each triangle's); pyrender's shader interpolates
    normals, so its picture is drawn with a vertex per triangle corner and normal."""
    from pyrender.shader_program import ShaderProgramCache

    import bricklayer.render.draw as rr
    from bricklayer.render import _gl

    b, _, _ = small_build
    (_c, ours), = render.render_views(b, ["iso"], size=SIZE)
    inner = _gl._state["renderer"]._renderer
    mine = inner._program_cache
    inner._program_cache = ShaderProgramCache()  # pyrender's own mesh.vert / mesh.frag
    monkeypatch.setattr(rr, "face_lit_active", lambda: False)
    try:
        (_c, theirs), = render.render_views(b, ["iso"], size=SIZE)
    finally:
        inner._program_cache = mine
    diff = np.abs(ours.astype(int) - theirs.astype(int))
    assert np.any(ours != render.BACKGROUND)
    assert diff.mean() < 0.5, diff.mean()
    assert np.mean(diff.max(axis=2) > 24) < 0.002


def test_lean_forward_pass_draws_pyrender_picture(render, monkeypatch):
    """The lean forward pass (state and uniforms set once per pass or change) draws exactly pyrender's own
    picture: opaque and see-through parts (highlight mode fades the rest to alpha 90, blended), two
    materials (plastic, pearlescent), edge lines in two colours, and the occluder depth pass of
    hidden-placement culling (threshold 0, so it runs on this small build)."""
    import bricklayer.render.draw as rr
    from bricklayer.render import _gl

    b = LegoBuild()
    base = b.add(Element("3031", Color.GREEN))
    brick = b.stack(Element("3003", Color.RED), on=base, offset=(1, 1, 0))
    top = b.stack(Element("3001", Color.PEARL_GOLD), on=brick)  # pearlescent: its own material
    b.stack(Element("3003", Color.BLACK), on=top)  # edge colour 595959, the others' 333333
    monkeypatch.setattr(rr, "CULL_HIDDEN_ABOVE_TRIANGLES", 0)
    views = ["iso", "top", "front"]
    plain = render.render_views(b, views, size=SIZE)
    marked = render.render_views(b, views, size=SIZE, highlight=[brick])
    inner = _gl._state["renderer"]._renderer
    lean = inner._forward_pass
    assert lean.pyrender_pass is not None
    inner._forward_pass = lean.pyrender_pass
    try:
        plain_theirs = render.render_views(b, views, size=SIZE)
        marked_theirs = render.render_views(b, views, size=SIZE, highlight=[brick])
    finally:
        inner._forward_pass = lean
    for (_c, ours), (_d, theirs) in zip(plain + marked, plain_theirs + marked_theirs):
        assert np.any(ours != render.BACKGROUND)
        np.testing.assert_array_equal(ours, theirs)
    table = get_color_table()
    assert hue_fraction(marked[0][1], table.rgba(4)) > 0.02  # the highlighted brick shows through


def test_low_resolution_geometry_only_for_big_models(render, small_build):
    """'auto' keeps every detail below LOW_RES_ABOVE_TRIANGLES; 'low' halves the stud triangles
    (stud.dat: 48 triangles, 24 from the 8/ primitives; 16 + 4 studs here)."""
    from bricklayer.render.geometry import instanced_geometry

    b, _, _ = small_build
    n = {res: sum(len(x.triangles) * len(x.poses) for x in instanced_geometry(b, resolution=res).batches)
         for res in ("standard", "auto", "low")}
    assert n["auto"] == n["standard"]
    assert n["standard"] - n["low"] >= 20 * 24
    with pytest.raises(ValueError, match="resolution"):
        instanced_geometry(b, resolution="medium")


def test_subpixel_edges_dropped_only_below_a_pixel(render, small_build):
    """Edge lines shorter than one pixel in every view are dropped. The shortest edges here are the
    16-segment stud circles: 2 * 6 * sin(pi / 16) = 2.341 LDU per segment; at 0.26 LDU a pixel (the
    320x240 front view, xmag 42.1 LDU) all stay, at 2.5 LDU a pixel the circle segments go and the
    80 LDU plate edges stay."""
    from bricklayer.render.geometry import instanced_geometry
    from bricklayer.render.draw import drop_subpixel_edges

    b, _, _ = small_build
    geo = instanced_geometry(b)

    def n_edges(g):
        return sum(len(x.edges) for x in g.batches)

    def shortest(g):
        return min(np.linalg.norm(x.edges[:, 1] - x.edges[:, 0], axis=1).min() for x in g.batches if len(x.edges))

    assert shortest(geo) == pytest.approx(12 * np.sin(np.pi / 16), abs=1e-3)
    assert n_edges(drop_subpixel_edges(geo, 0.26)) == n_edges(geo)
    coarse = drop_subpixel_edges(geo, 2.5)
    assert 0 < n_edges(coarse) < n_edges(geo)
    assert shortest(coarse) >= 2.5


def test_hidden_placements_left_out_without_changing_the_picture(render, monkeypatch):
    """A 2x2 brick 3003 between two 4x4 plates 3031 (its 40 x 40 LDU footprint 20 LDU inside theirs on
    every side, 6 px at 240 px for 80 LDU) cannot be seen from above: the top view leaves it out (its stud
    tops lie 4 LDU under the top plate's upper face, beyond the 1.5 LDU margin) and the picture is the
    one drawn with every part; from the front its sides show, so it stays."""
    import bricklayer.render.draw as rr

    b = LegoBuild()
    base = b.add(Element("3031", Color.GREEN))
    brick = b.stack(Element("3003", Color.RED), on=base, offset=(1, 1, 0))
    b.stack(Element("3031", Color.BLUE), on=brick, offset=(-1, -1, 0))
    pyrender = rr.import_pyrender()
    geo = rr.instanced_geometry(b)
    table = get_color_table()

    def draw(view, threshold):
        monkeypatch.setattr(rr, "CULL_HIDDEN_ABOVE_TRIANGLES", threshold)
        sc = rr._Scene(pyrender)
        sc.add("build", geo)
        px = sc.render(rr.fit_camera(geo.bounds, view, (240, 240)))
        return px, sc.hidden

    every, hidden_every = draw("top", 10**12)
    culled, hidden = draw("top", 0)
    assert hidden_every == 0
    assert hidden == 1
    np.testing.assert_array_equal(culled, every)
    assert hue_fraction(every, table.rgba(4)) == 0.0
    front, hidden_front = draw("front", 0)
    assert hidden_front == 0
    assert hue_fraction(front, table.rgba(4)) > 0.02


def test_cut_instance_buffers_made_whole_for_an_uncut_picture(render, monkeypatch):
    """One scene drawn from the top (the boxed-in brick left out, as in the test above), then from the front
    in perspective (no culling there): the second picture is the one a fresh scene draws, with the brick."""
    import bricklayer.render.draw as rr

    b = LegoBuild()
    base = b.add(Element("3031", Color.GREEN))
    brick = b.stack(Element("3003", Color.RED), on=base, offset=(1, 1, 0))
    b.stack(Element("3031", Color.BLUE), on=brick, offset=(-1, -1, 0))
    monkeypatch.setattr(rr, "CULL_HIDDEN_ABOVE_TRIANGLES", 0)
    pyrender = rr.import_pyrender()
    geo = rr.instanced_geometry(b)
    sc = rr._Scene(pyrender)
    sc.add("build", geo)
    sc.render(rr.fit_camera(geo.bounds, "top", (240, 240)))
    assert sc.hidden == 1
    persp = rr.fit_camera(geo.bounds, (20, 10), (240, 240), projection="perspective")
    again = sc.render(persp)
    assert sc.hidden == 0
    fresh = rr._Scene(pyrender)
    fresh.add("build", geo)
    np.testing.assert_array_equal(again, fresh.render(persp))
    assert hue_fraction(again, get_color_table().rgba(4)) > 0.01


def test_flat_shared_vertices_keep_each_triangle_and_its_shading():
    """A 20 LDU cube (12 triangles, 6 normals): the two triangles of a face pick the same corner, so at
    most 6 picked vertices plus one for each of the 8 corners no face picked (at least 8, the corners),
    against 24 with one vertex per corner and normal; every triangle keeps its corners in the same cyclic
    order (so the same winding) and its last vertex carries its own normal."""
    from bricklayer.render.draw import _flat_shared_vertices

    c = np.array([[x, y, z] for x in (0, 20) for y in (0, 20) for z in (0, 20)], dtype=np.float32)
    quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    tris = np.array([[c[q[0]], c[q[1]], c[q[2]]] for q in quads] + [[c[q[0]], c[q[2]], c[q[3]]] for q in quads],
                    dtype=np.float32)
    nrm = np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0])
    nrm = (nrm / np.linalg.norm(nrm, axis=1, keepdims=True)).astype(np.float32)
    verts, idx = _flat_shared_vertices(tris, nrm)
    assert 8 <= len(verts) <= 14 and idx.shape == (12, 3)
    for t, n, ix in zip(tris, nrm, idx):
        got = verts[ix, :3]
        k = [i for i in range(3) if np.array_equal(got[0], t[i])]
        assert k and np.array_equal(got, t[[(k[0] + i) % 3 for i in range(3)]])  # a rotation of the corners
        np.testing.assert_array_equal(verts[ix[2], 3:], n)


def test_batch_arrays_from_the_cache_are_those_computed(tmp_path, monkeypatch):
    """The upload arrays of each batch of a green 4x4 plate 3031 under a red and a blue 2x2 brick 3003
    (3 batches: the two bricks differ in colour, so each gets its own file) are written once to the cache
    folder; read back they equal the computed ones exactly (same names, dtypes, shapes and values). A
    truncated file is discarded and rebuilt, and the arrays are still the computed ones."""
    from bricklayer.render.draw import _batch_arrays, _compute_batch_arrays, BATCH_CACHE_VERSION

    b = LegoBuild()
    plate = b.add(Element("3031", Color.GREEN))
    b.stack(Element("3003", Color.RED), on=plate)
    b.stack(Element("3003", Color.BLUE), on=plate, offset=(2, 2, 0))
    from bricklayer.render.geometry import instanced_geometry

    geo = instanced_geometry(b)  # meshes from the usual cache; the render cache goes to tmp_path
    monkeypatch.setenv("BRICKWRIGHT_CACHE_DIR", str(tmp_path))
    folder = tmp_path / f"render-batches-v{BATCH_CACHE_VERSION}"
    assert len(geo.batches) == 3
    for batch in geo.batches:
        _batch_arrays(batch, True)
    files = sorted(folder.iterdir())
    assert len(files) == 3
    for batch in geo.batches:
        want = _compute_batch_arrays(batch, True)
        got = _batch_arrays(batch, True)
        assert list(got) == list(want) and "face0_v" in got and "edge0_i" in got and "occ_v" in got
        for k in want:
            assert got[k].dtype == want[k].dtype and got[k].shape == want[k].shape, k
            np.testing.assert_array_equal(got[k], want[k])
    assert sorted(folder.iterdir()) == files
    whole = files[0].read_bytes()
    files[0].write_bytes(whole[:-8])  # truncated
    results = [_batch_arrays(batch, True) for batch in geo.batches]
    assert sorted(folder.iterdir()) == files and files[0].read_bytes() == whole
    for batch, got in zip(geo.batches, results):
        want = _compute_batch_arrays(batch, True)
        for k in want:
            np.testing.assert_array_equal(got[k], want[k])


def test_world_occluders_are_the_big_triangles_of_the_world_geometry():
    """The one-mesh occluders of a green 4x4 plate 3031 under a red 2x2 brick 3003 and a blue one turned a
    quarter turn: the same triangles (corners rounded to 0.001 LDU, in any order) as the triangles of at
    least OCCLUDER_MIN_AREA = 20 LDU^2 of ``build_geometry``, the world-space reference that transforms
    every placement itself (a 4x4 plate's top alone is two triangles of 800 LDU^2)."""
    from bricklayer.render.draw import OCCLUDER_MIN_AREA, _batch_arrays, _world_occluders
    from bricklayer.render.geometry import build_geometry, instanced_geometry

    b = LegoBuild()
    plate = b.add(Element("3031", Color.GREEN))
    b.stack(Element("3003", Color.RED), on=plate)
    b.stack(Element("3003", Color.BLUE), on=plate, offset=(2, 2, 0), rotation=90)
    geo = instanced_geometry(b)
    occ = []
    for batch in geo.batches:
        a = _batch_arrays(batch, True)
        occ.append((a["occ_v"], a["occ_i"], batch.poses.astype(np.float32)))
    verts, idx = _world_occluders(occ)
    got = verts[idx]
    ref = build_geometry(b).triangles
    area = 0.5 * np.linalg.norm(np.cross(ref[:, 1] - ref[:, 0], ref[:, 2] - ref[:, 0]), axis=1)
    ref = ref[area >= OCCLUDER_MIN_AREA]

    def canon(t):
        t = np.round(np.asarray(t, np.float64), 3) + 0.0
        t = np.sort(t.view([("", t.dtype)] * 3).reshape(t.shape[:2]), axis=1).view(np.float64).reshape(t.shape)
        return t[np.lexsort(t.reshape(len(t), -1).T[::-1])]

    assert len(got) == len(ref) > 20
    np.testing.assert_allclose(canon(got), canon(ref), atol=2e-3)


def test_pictures_drawn_together_are_those_drawn_one_by_one(render, monkeypatch):
    """The boxed-in red brick of the tests above (left out from the top, seen from the front), drawn from the
    top, the front and iso with ``render_many`` (the hidden placements of all views found first, each view
    in its own framebuffer, read back at the end): each picture equals the one a fresh scene draws alone,
    the top view without any red; a single picture drawn afterwards (framebuffer 0 again) too."""
    import bricklayer.render.draw as rr

    b = LegoBuild()
    base = b.add(Element("3031", Color.GREEN))
    brick = b.stack(Element("3003", Color.RED), on=base, offset=(1, 1, 0))
    b.stack(Element("3031", Color.BLUE), on=brick, offset=(-1, -1, 0))
    monkeypatch.setattr(rr, "CULL_HIDDEN_ABOVE_TRIANGLES", 0)
    pyrender = rr.import_pyrender()
    geo = rr.instanced_geometry(b)
    cams = [rr.fit_camera(geo.bounds, v, (240, 200)) for v in ("top", "front", "iso")]
    sc = rr._Scene(pyrender)
    sc.add("build", geo)
    together = sc.render_many(cams)
    assert len(together) == 3
    for cam, px in zip(cams, together):
        fresh = rr._Scene(pyrender)
        fresh.add("build", geo)
        np.testing.assert_array_equal(px, fresh.render(cam))
    red = get_color_table().rgba(4)
    assert hue_fraction(together[0], red) == 0.0 and hue_fraction(together[1], red) > 0.02
    np.testing.assert_array_equal(sc.render(cams[1]), together[1])


def test_rendering_defers_pyrenders_unused_imports(render):
    """Drawing a picture imports neither trimesh's scipy/networkx share nor pyglet (pyrender imports them for
    mesh loading and its on-screen viewer); afterwards ``import trimesh`` gives the real, whole package,
    pyrender's own trimesh uses (``Mesh.from_trimesh``) and ``pyrender.Viewer`` reach the real ones. In a
    fresh interpreter, since this test process may have imported those packages already. A 2x2 brick
    3003 drawn at 64x48 px covers some pixels in its LDraw red (colour 4)."""
    import subprocess
    import sys
    from pathlib import Path

    code = """
import sys
from bricklayer import Color, Element, LegoBuild
from bricklayer.render import render_build
b = LegoBuild(); b.add(Element("3003", Color.RED))
px = __import__("numpy").asarray(render_build(b, view="front", size=(64, 48)))
print("red", int(((px[..., 0] > 120) & (px[..., 1] < 60)).sum()))
print("loaded", sorted(m for m in ("scipy", "scipy.spatial", "trimesh", "pyglet", "pyrender.viewer", "freetype")
                      if m in sys.modules))
import trimesh, pyrender, pyrender.mesh
box = trimesh.creation.box()
print("trimesh", type(trimesh).__name__, pyrender.mesh.trimesh.Trimesh is trimesh.Trimesh,
      len(pyrender.Mesh.from_trimesh(box).primitives))
print("viewer", pyrender.Viewer.__module__)
"""
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    lines = dict(line.split(" ", 1) for line in out.stdout.strip().splitlines())
    assert int(lines["red"]) > 100
    assert lines["loaded"] == "[]"
    assert lines["trimesh"] == "module True 1"  # the real package; pyrender's stand-in reaches the same class
    assert lines["viewer"].startswith("bricklayer.render._gl")  # the real viewer is imported when one is made


def test_rectangle_max_is_the_maximum_over_each_rectangle():
    """``_rectangle_max`` (the hidden-part test's farthest occluder depth over each box's rectangle) gives
    exactly ``image[r0:r1, c0:c1].max()`` per rectangle, ``-inf`` for an empty one: on a 383 x 400 depth-like
    picture (a ramp of distances, a background of ``inf`` on the left fifth, one far spike) with rectangles of
    every size from 1 x 1 to the whole picture, touching every border, and empty ones."""
    from bricklayer.render.draw import _rectangle_max

    h, w = 383, 400
    rows, cols = np.mgrid[0:h, 0:w]
    image = 2000.0 + 0.37 * rows + 0.11 * cols
    image[:, : w // 5] = np.inf
    image[200, 300] = 9000.0
    rng = np.random.default_rng(18)
    r0 = np.r_[rng.integers(0, h, 3000), 0, 0, 382, 200, 200, 10, 5]
    c0 = np.r_[rng.integers(0, w, 3000), 0, 0, 399, 300, 299, 10, 5]
    r1 = np.r_[np.minimum(h, r0[:3000] + 2 ** rng.integers(0, 9, 3000) + rng.integers(0, 3, 3000)), h, 1, 383,
               201, 200, 10, 9]
    c1 = np.r_[np.minimum(w, c0[:3000] + 2 ** rng.integers(0, 9, 3000) + rng.integers(0, 3, 3000)), w, 1, 400,
               301, 300, 20, 5]
    want = np.array([image[a:b, c:d].max() if b > a and d > c else -np.inf for a, b, c, d in zip(r0, r1, c0, c1)])
    got = _rectangle_max(image, r0, r1, c0, c1)
    assert np.array_equal(got, want)
    assert got[3000] == np.inf and got[3001] == np.inf and got[3003] == 9000.0  # whole picture, corner, spike
    assert got[3004] == -np.inf and got[3005] == -np.inf and got[3006] == -np.inf  # empty rectangles


def test_coarse_geometry_only_where_a_pixel_is_3_5_ldu_or_more(render, small_build, monkeypatch):
    """'auto' draws a model that gets low-resolution meshes coarse (4-segment tubes and holes) when the
    finest picture has at least COARSE_ABOVE_LDU_PER_PIXEL = 3.5 LDU a pixel, and never a model below
    LOW_RES_ABOVE_TRIANGLES. The 2 x 2 brick's tube and the 4 x 4 plate's nine tubes lose triangles; the
    placements' origins give a lower bound of the pixel size of the views framing the whole build."""
    import bricklayer.render.geometry as geometry
    from bricklayer.render.camera import fit_camera
    from bricklayer.render.draw import SHEET_VIEWS, _least_ldu_per_pixel

    b, _, _ = small_build

    def n_tris(**kw):
        return sum(len(x.triangles) * len(x.poses) for x in geometry.instanced_geometry(b, **kw).batches)

    standard = n_tris(resolution="standard")
    assert n_tris(resolution="auto", ldu_per_pixel=10.0) == standard  # a small model keeps every detail
    monkeypatch.setattr(geometry, "LOW_RES_ABOVE_TRIANGLES", 0)
    low, coarse = n_tris(resolution="low"), n_tris(resolution="coarse")
    assert coarse < low < standard
    assert n_tris(resolution="auto") == low
    assert n_tris(resolution="auto", ldu_per_pixel=geometry.COARSE_ABOVE_LDU_PER_PIXEL - 0.01) == low
    assert n_tris(resolution="auto", ldu_per_pixel=geometry.COARSE_ABOVE_LDU_PER_PIXEL) == coarse

    bounds = geometry.instanced_geometry(b).bounds
    for size in ((400, 383), (40, 38)):
        bound = _least_ldu_per_pixel(b.flattened_placements, SHEET_VIEWS, size)
        exact = min(2.0 * c.xmag / c.width for c in (fit_camera(bounds, v, size) for v in SHEET_VIEWS))
        assert 0 < bound <= exact
