"""LegoBuild: grid placement, stacking, names, nesting, steps, copies (values worked by hand)."""

import pytest

from bricklayer import Anchor, Color, Element, LDrawColor, LegoBuild, Rotation, Vec3, to_ldraw
from ldraw_data.errors import PartNotFoundError


def seed():
    b = LegoBuild()
    plate = b.add(Element("3031", Color.GREEN), (0, 0, 0), name="base")
    brick = b.stack(Element("3003", Color.RED), on=plate, name="top")
    return b, plate, brick


def test_seed_example_ldraw_lines():
    b, _, _ = seed()
    lines = to_ldraw(b).splitlines()
    assert "1 2 40 -8 40 1 0 0 0 1 0 0 0 1 3031.dat" in lines
    assert "1 4 20 -32 20 1 0 0 0 1 0 0 0 1 3003.dat" in lines


def test_element_identity_and_boxes():
    a, b = Element("3001", Color.RED), Element("3001.DAT", 4)
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert a.color == Color.RED and isinstance(a.color, LDrawColor)
    # 2x4 brick: 80 x 40 LDU footprint, 3 plates high; studs add 4 LDU physically
    assert a.alignment_box.size == Vec3(80, 40, 24)
    assert a.alignment_box.min == Vec3(-40, -20, 0)
    assert a.bounding_box.max.z == pytest.approx(28)
    assert (a.alignment_width, a.alignment_depth, a.alignment_height) == (4, 2, 3)
    assert a.rotated_footprint(Rotation.DEG_90) == (2, 4)
    assert a.spec.name == "Brick 2 x 4"
    with pytest.raises(AttributeError):
        a.color = 1


def test_tile_alignment_uses_physical_top():
    t = Element("3068b")  # tile 2 x 2: no studs, one plate high
    assert t.alignment_box.size == Vec3(40, 40, 8)


def test_unknown_part_suggests_close_ids():
    with pytest.raises(PartNotFoundError, match="did you mean") as e:
        Element("3001x")
    assert "3001" in str(e.value)


def test_grid_add_anchor_and_rotation():
    b = LegoBuild()
    p = b.add(Element("3001"), (1, 2, 3), Rotation.DEG_90)
    # rotated 2x4: 2 wide, 4 deep; min corner at (1, 2) studs, z = 3 plates
    assert p.alignment_box.min == Vec3(20, 40, 24)
    assert p.alignment_box.max == Vec3(60, 120, 48)
    q = b.add(Element("3003"), (0, 0, 0), anchor=Anchor.BACK_LEFT, relative_to=p, target_anchor=Anchor.BACK_LEFT)
    assert q.alignment_box.max.x == 60 and q.alignment_box.max.y == 120 and q.alignment_box.min.z == 24


def test_off_grid_anchor_raises():
    b = LegoBuild()
    with pytest.raises(ValueError, match="off-grid"):
        b.add(Element("3005"), (0, 0, 0), anchor=Anchor.CENTER)  # 1x1 centred on a stud corner
    assert len(b) == 0
    with pytest.raises(ValueError, match="off-grid"):
        b.add(Element("3005"), (0.5, 0, 0))


def test_names_errors_and_index():
    b, plate, brick = seed()
    assert b.named("base") is plate and b.name_of(brick) == "top"
    with pytest.raises(KeyError, match="did you mean 'base'"):
        b.named("bse")
    with pytest.raises(ValueError, match="already used"):
        b.add(Element("3003"), (0, 0, 1), name="top")
    first = b.add(Element("3005"), (3, 3, 1), index=0)
    assert b.placements[0] is first
    with pytest.raises(IndexError):
        b.add(Element("3005"), (3, 3, 1), index=10)


def test_nested_builds_are_shared_and_queries_see_through():
    wall = LegoBuild(name="wall")
    wall.add(Element("3001", Color.RED), (0, 0, 0), name="b1")
    house = LegoBuild()
    house.add(Element("3036", Color.GREEN), (0, 0, 0), name="floor")  # 6x8 plate
    w1 = house.add(wall, (0, 0, 1), name="front")
    house.add(wall, (0, 4, 1), name="back")
    assert house.brick_count == 3
    assert house.name_of(house.flattened_placements[1]) == "front/b1"
    assert house.named("front/b1").content == Element("3001", Color.RED)
    wall.add(Element("3001", Color.BLUE), (0, 0, 3), name="b2")  # edit the shared sub-build
    assert house.brick_count == 5
    assert house.list_elements()[Element("3001", Color.BLUE)] == 2
    assert w1.alignment_box.max.z == 8 + 48


def test_steps_become_ldraw_steps():
    b = LegoBuild()
    b.add(Element("3020"), (0, 0, 0))
    b.step()
    b.add(Element("3001"), (0, 0, 1))
    assert [len(s) for s in b.steps] == [1, 1]
    assert to_ldraw(b).count("0 STEP") == 1


def test_remove_copy_deepcopy():
    b, plate, brick = seed()
    c = b.copy()
    d = b.deepcopy()
    b.remove("top")
    assert b.brick_count == 1 and "top" not in b.names
    assert c.brick_count == 2 and d.brick_count == 2
    with pytest.raises(KeyError):
        b.remove("top")


def test_connectors_hide_covered_studs():
    b, plate, brick = seed()
    studs = b.find_connectors("stud")
    # 16 plate studs - 4 covered by the 2x2 brick + 4 on the brick
    assert len(studs) == 16
    top = b.find_connectors("stud", facing=(0, 0, 1), toward=(0, 0, 100), count=1)[0]
    assert top.position.z == 32


def test_extend_splices_placements():
    sub = LegoBuild()
    sub.add(Element("3003"), (0, 0, 0), name="x")
    b = LegoBuild()
    b.extend(sub, (2, 2, 0))
    assert b.named("x").alignment_box.min == Vec3(40, 40, 0)


def test_connectors_hidden_across_nested_builds():
    """A stud of the parent's plate covered by a brick inside a sub-build is occupied too."""
    top = LegoBuild(name="top")
    top.add(Element("3003", Color.RED), (0, 0, 0))
    parent = LegoBuild()
    parent.add(Element("3031", Color.GREEN), (0, 0, 0))
    parent.add(top, (0, 0, 1))
    plate_studs = [c for c in parent.find_connectors("stud") if c.position.z == 8]
    assert len(plate_studs) == 16 - 4
    # the sub-build's own anti-studs that sit on the plate are occupied as well; its centre tube,
    # between four studs, mates with none (BrickNet: a tube takes a stud only at its centre)
    assert [c.type for c in parent.find_connectors("antistud") if c.position.z == 8] == ["tube"]
    assert parent.num_connected_components == 1


def test_flattened_poses_are_the_products_along_each_path(official_dir):
    # 10179 Millennium Falcon: sub-models placed several times and nested; each flattened pose is the
    # product of the poses along its path, bit for bit, and a part of colour 16 takes its container's
    import numpy as np

    from bricklayer import read_ldraw

    b = read_ldraw(official_dir / "10179_1_Millennium_Falcon_UCS.mpd")
    flat = b.flattened_placements
    assert len(flat) == 5247
    nested = 0
    for fp in flat:
        m = np.eye(4)
        for p in fp.path:
            m = m @ p.pose.matrix
        assert np.array_equal(fp.pose.matrix, m)
        assert not fp.pose.matrix.flags.writeable
        nested += len(fp.path) > 2
        colour = next((p.color for p in reversed(fp.path[:-1]) if p.color is not None), None)
        if int(fp.leaf.content.color) == 16 and colour is not None:
            assert int(fp.content.color) == colour
    assert nested > 100


def test_copy_keeps_the_file_lines_reports_cite():
    """``copy()`` keeps each placement's source line: a copy's report names the same ``file:line`` as the
    original's (a copy used to cite ``#0``/``#1`` instead), and its LDraw notes are written back."""
    from bricklayer import from_ldraw

    text = "0 a note\n1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n1 1 0 -24 0 1 0 0 0 1 0 0 0 1 3001.dat\n"
    b = from_ldraw(text, source="m.ldr")
    c = b.copy()
    assert [c.citation(p) for p in c.placements] == ["m.ldr:2", "m.ldr:3"]
    assert [p.ldraw_notes for p in c.placements] == [p.ldraw_notes for p in b.placements]
