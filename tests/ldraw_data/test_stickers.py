"""The ``sticker_back`` connector (ldraw_data.stickers, source "sticker" of ldraw_data.connectors).

Expected values worked out by hand from the part files (LDraw frame, -Y up, LDU). ``box5-12.dat`` is a
box open at y = 0 and closed at y = 1, x and z from -1 to 1 (p/box5-12.dat); a sticker draws it scaled
and moved to y = -0.25, so its closed face, the back, lies at y = -0.25 + (y scale):

- 004113b "Sticker 1.1 x 1.9 with Danger Stripes Chevron": ``1 16 0 -0.25 0 19 0 0 0 0.25 0 0 0 11
  box5-12.dat``: back at y = 0, x -19..19, z -11..11: centre (0, 0, 0); print (colours 14 and 0) at y = -0.25;
- 4615865e "Sticker 1.0 x 0.9 with Twin Exhaust Pipes Right": ``1 16 0 -0.25 -1.5 9 0 0 0 0.25 0 0 0 10
  box5-12.dat``: back at y = 0, x -9..9, z -11.5..8.5: centre (0, 0, -1.5);
- 191925c "Sticker 2.2 x 3.8 ... Gew.Lok": ``1 16 0 -0.25 0 38 0 0 0 1 0 0 0 22 box5-12.dat``, a slab 1 LDU
  thick: back at y = 0.75, centre (0, 0.75, 0);
- 003497bc01 "Sticker 2.6 x 6 with White and Red Stripes (Formed)": drawn bent, 27.7 LDU deep: no connector.

The back's axis is its outward normal, LDraw +Y (down), the way the sticker travels onto a surface.
"""

import numpy as np
import pytest

from ldraw_data import connectors as C
from ldraw_data.connectors import JointKind


@pytest.fixture(autouse=True)
def _needs_library(library):
    return library


@pytest.mark.parametrize("part, centre, thickness, outline", [
    ("004113b", (0.0, 0.0, 0.0), 0.25, ((-19, -11), (19, 11))),
    ("4615865e", (0.0, 0.0, -1.5), 0.25, ((-9, -10), (9, 10))),
    ("191925c", (0.0, 0.75, 0.0), 1.0, ((-38, -22), (38, 22))),
])
def test_sticker_back_at_the_centre_of_the_back_face(part, centre, thickness, outline):
    conns = C.part_connectors(part)
    assert [c.type for c in conns] == ["sticker_back"]
    c = conns[0]
    assert np.allclose(c.position, centre, atol=1e-4)
    assert np.allclose(c.axis, (0.0, 1.0, 0.0))  # out of the back face, LDraw down
    assert np.allclose(c.roll_axis, (1.0, 0.0, 0.0))
    assert (c.kind, c.subtype, c.polarity, c.joint_kind) == ("sticker", "back", None, JointKind.FIXED)
    from ldraw_data.stickers import library_sticker_back

    back = library_sticker_back(part)
    assert back.thickness == pytest.approx(thickness)
    assert np.allclose(back.outline, outline, atol=1e-4)


def test_formed_sticker_has_no_back_connector():
    assert C.part_connectors("003497bc01") == ()
    assert not C.has_connectors("003497bc01")


def test_sticker_back_mates_with_nothing_and_is_counted_by_its_source():
    assert C.mate_kind("sticker_back", "stud") is None
    assert C.mate_kind("sticker_back", "sticker_back") is None
    assert C.compatible_types("sticker_back") == []
    assert C.connector_types()[-1] == "sticker_back"  # appended: the other type codes do not move
    assert C.has_connectors("004113b")
    assert not C.has_connectors("004113b", sources=("bricknet", "ldcad", "segment", "subpart"))
    # a part with connectors of its own never gets a sticker row
    assert "sticker_back" not in {c.type for c in C.part_connectors("3001")}


def test_the_print_side_decides_which_face_is_the_back():
    # the same sticker mesh turned upside down (LDraw y -> -y, a proper rotation about X): the print now
    # lies on the high face, so the back is the low one and its normal points to -Y
    from ldraw_data.mesh import part_mesh
    from ldraw_data.stickers import sticker_back

    m = part_mesh("004113b.dat")
    flip = np.diag([1.0, -1.0, -1.0])

    class Turned:
        triangles = np.asarray(m.triangles) @ flip.T
        colors = m.colors

    back = sticker_back(Turned)
    assert np.allclose(back.position, (0.0, 0.0, 0.0), atol=1e-6)
    assert np.allclose(back.axis, (0.0, -1.0, 0.0))


def test_official_stickers_touch_their_parts_with_the_back_face(official_dir):
    # 7326 Rise of the Sphinx: the stickers 4613906a-d lie on tiles 87079 and e-h on bricks 2454; a ray from
    # the middle of the slab along the back's axis meets the part at the back face (0.125 LDU), the other
    # way meets nothing within 1 LDU
    from bricklayer import from_ldraw
    from ldraw_data.rays import first_ray_hits
    from ldraw_data.mesh import part_mesh

    b = from_ldraw((official_dir / "7326_1_Rise_of_the_Sphinx.mpd").read_text())
    flat = b.flattened_placements
    world = [p.pose.matrix @ p.content.ldraw_to_local for p in flat]
    seen = 0
    for i, p in enumerate(flat):
        backs = [c for c in C.part_connectors(p.content.ldraw_id) if c.type == "sticker_back"]
        if not backs:
            continue
        seen += 1
        w = world[i]
        pos, axis = w[:3, :3] @ backs[0].position + w[:3, 3], w[:3, :3] @ backs[0].axis
        mid = pos - 0.125 * axis
        along, against = np.inf, np.inf
        for j, q in enumerate(flat):
            if j == i or q.content.ldraw_id.startswith("4613906"):
                continue
            lo, hi = np.asarray(tuple(q.bounding_box.min)), np.asarray(tuple(q.bounding_box.max))
            if np.any(pos < lo - 2) or np.any(pos > hi + 2):
                continue
            t = np.asarray(part_mesh(q.content.ldraw_id + ".dat").triangles, float) @ world[j][:3, :3].T + world[j][:3, 3]
            along = min(along, first_ray_hits(mid[None], axis, t)[0][0])
            against = min(against, first_ray_hits(mid[None], -axis, t)[0][0])
        assert along == pytest.approx(0.125, abs=0.01), p.content.ldraw_id
        assert against > 1.0, p.content.ldraw_id
    assert seen == 8


def test_saved_table_gives_the_rows_the_meshes_give():
    from ldraw_data.stickers import _saved_table, build_sticker_table, library_sticker_back, sticker_back_row
    from ldraw_data.stickers import sticker_size_ldu

    assert build_sticker_table() == 2022  # the flat ones of the library's stickers (docs/connectors.md)
    assert _saved_table() is not None  # the rows below come from the table
    for part in ("004113b", "4615865e", "191925c"):
        frame, thickness = sticker_back_row(part)
        back = library_sticker_back(part)
        assert np.array_equal(frame, back.frame) and thickness == back.thickness
        (u0, v0), (u1, v1) = back.outline.tolist()
        assert sticker_size_ldu(part) == (round(u1 - u0, 2), round(v1 - v0, 2))
    # 004113b "Sticker 1.1 x 1.9 with Danger Stripes Chevron": back x -19..19, z -11..11 in its file
    assert sticker_size_ldu("004113b") == (38.0, 22.0)
    assert sticker_size_ldu("003497bc01") is None and sticker_size_ldu("3001") is None
    assert sticker_back_row("003497bc01") is None  # formed
    assert sticker_back_row("3001") is None  # no sticker
