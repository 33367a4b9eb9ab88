"""Instruction pictures: every part placed so far (the last step too), new parts in colour, one camera per
(sub)model, one step count in plan.json, steps.mpd and the pictures.

Truth values worked out by hand:
- the model: a red 1 x 4 brick 3010 at the origin (LDraw y 0..24, studs to y -4), a yellow 1 x 4 tile 2431 on it
  (origin at its top face, 8 LDU high: y -8..0) and the sticker 168185a "Sticker 1 x 4 with Red/Green Octan"
  (80 x 20 LDU, 0.25 LDU thick, its base in colour 16, here blue) on the tile's top face at y -8. The planner
  leaves a sticker to a last step (``skip_reason``: "flexible part or sticker"), so steps.mpd has 3 steps of one
  part each with ``max_parts_per_step=1``: brick, tile, sticker;
- seen from the iso camera (above), the sticker covers the tile's top face, so the pixels inside the sticker's
  projected outline are the tile's yellow in picture 2 and mostly the sticker's blue base in picture 3 (its red
  and green letters cover the rest);
- colour hues from LDConfig.ldr: 1 Blue (30, 90, 168), 14 Yellow (242, 205, 55), 4 Red (201, 26, 9).
"""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from bricklayer import Color, Element, LegoBuild, from_ldraw, read_ldraw, to_ldraw
from bricklayer.assembly import _ldraw_step_count, write_instructions
from ldraw_data.colors import get_color_table

from test_render import hue_fraction

STICKER_MODEL = """0 Brick with a sticker on its tile
0 Name: sticker.ldr
1 4 0 0 0 1 0 0 0 1 0 0 0 1 3010.dat
1 14 0 -8 0 1 0 0 0 1 0 0 0 1 2431.dat
1 1 0 -8 0 1 0 0 0 1 0 0 0 1 168185a.dat
"""


@pytest.fixture(scope="module")
def render():
    import bricklayer.render as r

    try:
        r.backend_info()
    except r.RenderBackendError as exc:
        pytest.skip(f"no offscreen OpenGL backend (EGL or OSMesa): {exc}")
    return r


def _inside(uv: np.ndarray, h: int, w: int) -> np.ndarray:
    """(h, w) bool: pixel centres inside the convex quadrilateral ``uv`` (4, 2), given in order."""
    yy, xx = np.mgrid[0:h, 0:w] + 0.5
    sign = []
    for a, b in zip(uv, np.roll(uv, -1, axis=0)):
        sign.append((b[0] - a[0]) * (yy - a[1]) - (b[1] - a[1]) * (xx - a[0]))
    s = np.stack(sign)
    return np.all(s > 0, axis=0) | np.all(s < 0, axis=0)


@pytest.mark.render
def test_sticker_left_to_the_last_step_is_in_the_last_picture(render, tmp_path):
    build = from_ldraw(STICKER_MODEL)
    res = write_instructions(build, tmp_path, max_parts_per_step=1, size=(400, 300))
    s = res["summary"]
    assert res["image_error"] is None
    assert s["skipped_reasons"] == {"flexible part or sticker": 1}
    # one step count: plan.json, steps.mpd (what a viewer pages), the pictures
    mpd_steps = _ldraw_step_count(res["mpd"].read_text())
    assert s["steps"] == s["ldraw_steps"] == s["main_model_steps"] == mpd_steps == len(res["images"]) == 3
    assert [p["image"] for p in s["pictures"]] == ["step-0001.png", "step-0002.png", "step-0003.png"]
    assert [(p["step"], p["of"], p["new_parts"]) for p in s["pictures"]] == [(1, 3, 1), (2, 3, 1), (3, 3, 1)]
    # one camera for the whole sequence, fitted to the finished model (all three parts)
    cams = res["cameras"]
    assert all(np.array_equal(c.pose, cams[0].pose) and c.xmag == cams[0].xmag for c in cams)
    px = [np.asarray(Image.open(p).convert("RGB")) for p in res["images"]]
    # the sticker's outline on the tile top (LDraw x -40..40, z -10..10 at y -8), in the picture
    sticker = build.flattened_placements[2]
    assert sticker.content.ldraw_id == "168185a"
    # the sticker's top face in its own LDraw frame (x -40..40, z -10..10 at y 0), to the world
    corners = np.array([[-40, 0, -10, 1], [40, 0, -10, 1], [40, 0, 10, 1], [-40, 0, 10, 1]], dtype=float)
    world = (sticker.pose.matrix @ sticker.content.ldraw_to_local @ corners.T).T[:, :3]
    uv = cams[-1].project(world)[:, :2]
    mask = _inside(uv, *px[0].shape[:2])
    assert mask.sum() > 1500  # the sticker covers thousands of pixels at 400x300
    table = get_color_table()
    blue, yellow = table.get(1).rgb, table.get(14).rgb
    # picture 2: the tile (new, in colour) under where the sticker goes; picture 3: the sticker's blue base
    assert hue_fraction(px[1][mask], yellow) > 0.9
    assert hue_fraction(px[2][mask], blue) > 0.5
    assert hue_fraction(px[1][mask], blue) == 0.0
    # new parts stand out: the tile is yellow when new, dimmed (pale, unsaturated) once the sticker is on it
    assert hue_fraction(px[1], yellow) > 0.05
    assert hue_fraction(px[2], yellow) < 0.1 * hue_fraction(px[1], yellow)
    # step 1 shows the brick alone, in red; later the brick is dimmed
    red = table.get(4).rgb
    assert hue_fraction(px[0], red) > 0.1
    assert hue_fraction(px[1], red) < 0.1 * hue_fraction(px[0], red)


def _model_with_a_submodel_used_twice():
    sub = LegoBuild(name="axle-block")
    sub.add(Element("3003"), (0, 0, 0))
    sub.step()
    sub.add(Element("3003"), (0, 0, 3))
    main = LegoBuild(name="main")
    main.add(Element("3031"), (0, 0, 0))
    main.step()
    main.add_raw(sub, np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 8], [0, 0, 0, 1]], dtype=float))
    main.add_raw(sub, np.array([[1, 0, 0, 40], [0, 1, 0, 0], [0, 0, 1, 8], [0, 0, 0, 1]], dtype=float))
    return main, sub


def test_step_pages_follow_the_mpd_submodel_first():
    from bricklayer.render import step_pages

    main, sub = _model_with_a_submodel_used_twice()
    pages = step_pages(main)
    # main step 1 (the plate), the submodel's two steps (written once, used twice), main step 2 (both copies)
    assert [(p.model.name, p.step, p.steps) for p in pages] == [
        ("main", 1, 2), ("axle-block", 1, 2), ("axle-block", 2, 2), ("main", 2, 2)]
    assert len(pages) == _ldraw_step_count(to_ldraw(main)) == 4
    assert [len(p.new) for p in pages] == [1, 1, 1, 2]


@pytest.mark.render
def test_one_camera_per_submodel_sequence(render):
    main, sub = _model_with_a_submodel_used_twice()
    shots = list(render.render_steps(main, size=(200, 150)))
    cams = {(p.model.name, p.step): c for p, c, _img in shots}
    assert cams[("main", 1)] is cams[("main", 2)]
    assert cams[("axle-block", 1)] is cams[("axle-block", 2)]
    # each fitted to its finished (sub)model: the 4x4 plate with two 2x2 towers (80 x 80 x 8 + 2 * 24 + 4 LDU)
    # against one tower (40 x 40 x 52 LDU): the main model's view is larger
    assert cams[("main", 1)].ymag > cams[("axle-block", 1)].ymag
    main_bounds = render.instanced_geometry(main).bounds
    assert np.allclose(main_bounds[1] - main_bounds[0], [80, 80, 60], atol=0.5)
    uv = cams[("main", 1)].project(main_bounds)
    assert np.all((uv[:, 0] > 0) & (uv[:, 0] < 200) & (uv[:, 1] > 0) & (uv[:, 1] < 150))


def test_instanced_geometry_draws_what_the_world_space_geometry_draws(official_dir):
    # the instanced meshes (one per distinct part, colour and handedness) hold the same triangles as the
    # world-space reference (build_geometry), counted placement by placement, and the same bounds
    from bricklayer import read_ldraw
    from bricklayer.render import build_geometry, instanced_geometry

    build = read_ldraw(official_dir / "6256_Island_Catamaran.mpd")  # transparent and repeated parts
    ref = build_geometry(build)
    geo = instanced_geometry(build)
    n_inst = sum(len(b.triangles) * len(b.poses) for b in geo.batches)
    n_trans = 0 if geo.transparent is None else len(geo.transparent.triangles)
    assert n_inst + n_trans == len(ref.triangles)
    assert n_trans == int((ref.rgba[:, 3] < 255).sum())
    assert sum(len(b.edges) * len(b.poses) for b in geo.batches) == len(ref.edges)
    assert geo.n_parts == ref.n_parts
    assert np.allclose(geo.bounds, ref.bounds, atol=1e-3)
    assert len(geo.batches) < geo.n_parts  # parts repeat: fewer meshes than placements


EMBEDDED_PART_MODEL = """0 FILE main.ldr
0 Brick with a part embedded in the file
0 Name: main.ldr
1 4 0 0 0 1 0 0 0 1 0 0 0 1 3010.dat
1 15 0 -40 0 1 0 0 0 1 0 0 0 1 mydisc.dat
0 NOFILE
0 FILE mydisc.dat
0 A disc drawn in the file
0 Name: mydisc.dat
0 !LDRAW_ORG Unofficial_Part
1 16 0 0 0 10 0 0 0 1 0 0 0 10 4-4disc.dat
0 NOFILE
"""


def test_embedded_part_blocks_are_not_steps(tmp_path):
    # the planner leaves the embedded part to a last step: 2 steps (brick, disc); the disc's own 0 FILE block
    # in steps.mpd is a part, not a model, and a viewer does not page through it
    build = from_ldraw(EMBEDDED_PART_MODEL)
    res = write_instructions(build, tmp_path, images=False)
    s = res["summary"]
    text = res["mpd"].read_text()
    assert "0 FILE mydisc.dat" in text
    assert s["steps"] == s["ldraw_steps"] == s["main_model_steps"] == 2
    assert _ldraw_step_count(text) == 3  # counting the part block as a model would add a step
    assert s["pictures"] == [] and s["pictures_dropped"] == 2


def _png_bytes(img) -> bytes:
    import io

    fh = io.BytesIO()
    img.save(fh, format="PNG")
    return fh.getvalue()


@pytest.mark.render
def test_a_layer_drawn_at_the_same_depth_as_an_earlier_one_wins_in_every_run(render):
    """Two layers of the same parts at the same poses (a red 2 x 4 brick 3001 under a blue 2 x 2 brick 3003)
    draw every pixel at the same depth; pyrender's own order for them is that of a set of nodes hashed by
    address (a different winner from run to run). The layer added last is drawn first and keeps every
    pixel (pyrender's depth test is GL_LESS): the picture of layers (plain, dimmed) is exactly the picture
    of the dimmed layer alone, and the other way round, every time."""
    from bricklayer.render.camera import fit_camera
    from bricklayer.render.draw import _Scene
    from bricklayer.render.geometry import instanced_geometry
    from bricklayer.render._gl import import_pyrender

    b = LegoBuild()
    base = b.add(Element("3001", Color.RED))
    b.stack(Element("3003", Color.BLUE), on=base)
    flat = b.flattened_placements
    geo = {look: instanced_geometry(flat, looks=[look] * len(flat)) for look in ("plain", "dimmed")}
    cam = fit_camera(geo["plain"].bounds, "iso", (200, 150))
    pr = import_pyrender()

    def picture(*looks):
        scene = _Scene(pr)
        for look in looks:
            scene.add(look, geo[look])
        return scene.render(cam)

    alone = {look: picture(look) for look in geo}
    assert not np.array_equal(alone["plain"], alone["dimmed"])
    for _ in range(3):  # new scenes, new node addresses, new set orders
        np.testing.assert_array_equal(picture("plain", "dimmed"), alone["dimmed"])
        np.testing.assert_array_equal(picture("dimmed", "plain"), alone["plain"])


@pytest.mark.render
def test_instruction_pictures_are_the_same_bytes_in_every_run(render, official_dir, tmp_path):
    """The Moon Buggy 1180 (30 parts, 16 pages): two runs of write_instructions into two folders give the
    same steps.mpd and byte-identical step pictures (before, 12 of its 16 pictures differed by 200-860
    pixels between runs: parts of two layers drawn at the same depth in pyrender's set order)."""
    build = read_ldraw(official_dir / "1180_1_Space_Port_Moon_Buggy.mpd")
    runs = [write_instructions(build, tmp_path / name) for name in ("a", "b")]
    for res in runs:
        assert res["image_error"] is None and len(res["images"]) == 16
    a, b = runs
    assert a["mpd"].read_bytes() == b["mpd"].read_bytes()
    assert [p.name for p in a["images"]] == [p.name for p in b["images"]]
    different = [p.name for p, q in zip(a["images"], b["images"]) if p.read_bytes() != q.read_bytes()]
    assert different == []


@pytest.mark.render
def test_instruction_pictures_are_the_same_from_a_cold_and_a_warm_render_cache(render, official_dir, tmp_path,
                                                                               monkeypatch):
    """The step pictures of the Moon Buggy 1180 drawn with an empty cache folder (every render batch
    computed and written to ``render-batches-v1``) and again with that folder filled (every batch read
    back) are byte-identical PNGs."""
    from bricklayer.assembly import assembly_sequence
    from bricklayer.render.draw import BATCH_CACHE_VERSION

    plan = assembly_sequence(read_ldraw(official_dir / "1180_1_Space_Port_Moon_Buggy.mpd"))
    monkeypatch.setenv("BRICKWRIGHT_CACHE_DIR", str(tmp_path))
    folder = tmp_path / f"render-batches-v{BATCH_CACHE_VERSION}"
    assert not folder.exists()
    cold = [_png_bytes(img) for _page, _cam, img in render.render_steps(plan.sequence)]
    packs = sorted(folder.iterdir())
    assert len(cold) == 16 and packs
    warm = [_png_bytes(img) for _page, _cam, img in render.render_steps(plan.sequence)]
    assert sorted(folder.iterdir()) == packs  # nothing recomputed
    assert [k + 1 for k, (c, w) in enumerate(zip(cold, warm)) if c != w] == []
