"""Frictions of played agent runs (issue 20): lookups that offer occupied connectors, and a collision hint that
did not fit a clip plate whose clip reaches over the plate below. Real parts of the LDraw library."""

import warnings

import numpy as np
import pytest

from bricklayer import Color, Element, LegoBuild, Pose, Rotation
from bricklayer.validate import validation_report as _report


def validation_report(build) -> dict:
    return _report(build).to_dict()


def _plate_with_brick():
    """A 2 x 4 plate (3020, 8 studs, x 0..80, y 0..40 LDU) with a 2 x 2 brick (3003) stacked at its
    front-right corner: 4 of the plate's 8 studs are covered, 4 stay free (x 40..80)."""
    b = LegoBuild()
    plate = b.add(Element("3020", Color.TAN), (0, 0, 0))
    brick = b.stack(Element("3003", Color.RED), on=plate)
    return b, plate, brick


def test_a_placement_lists_every_stud_but_can_be_asked_for_free_ones():
    b, plate, brick = _plate_with_brick()
    assert len(plate.find_connectors("stud")) == 8  # the placement alone does not know its build
    free = plate.find_connectors("stud", free_in=b)
    assert len(free) == 4 and all(c.position.x > 40 for c in free)
    on = b.find_connectors("stud", on=plate)  # the same four, asked of the build
    assert sorted((c.position.x, c.position.y) for c in on) == sorted((c.position.x, c.position.y) for c in free)
    assert sorted((c.position.x, c.position.y) for c in on) == [(50, 10), (50, 30), (70, 10), (70, 30)]
    assert len(b.find_connectors("stud", on=brick)) == 4  # the brick's own studs, all free
    assert len(b.find_connectors("stud")) == 8  # 4 of the plate, 4 of the brick


def test_an_occupied_target_is_refused_with_the_way_to_ask_for_free_ones():
    b, plate, _ = _plate_with_brick()
    tile = Element("3070b", Color.WHITE)  # tile 1 x 1
    taken = plate.find_connector("stud", toward=(0, 0, 8))  # under the brick
    with pytest.raises(ValueError, match=r"find_connector\(type, on=placement"):
        b.connect(tile, tile.find_connector("antistud"), taken)
    target = b.find_connector("stud", on=plate, toward=(0, 0, 8))  # the nearest free one: (50, 10)
    assert (target.position.x, target.position.y) == (50, 10)
    b.connect(tile, tile.find_connector("antistud"), target)
    assert b.is_valid() and b.num_connected_components == 1


def test_on_and_free_in_refuse_what_they_cannot_mean():
    b, plate, _ = _plate_with_brick()
    other = LegoBuild()
    with pytest.raises(ValueError, match="not a top-level placement"):
        plate.find_connectors("stud", free_in=other)
    with pytest.raises(TypeError, match="on= is for a build"):
        Element("3001").find_connectors("stud", on=plate)
    with pytest.raises(KeyError):
        b.find_connectors("stud", on="no such name")
    named = b.add(Element("3024", Color.BLUE), (3, 1, 1), name="knob")  # plate 1 x 1 on the last free stud row
    assert len(b.find_connectors("stud", on="knob")) == 1 and b.find_connectors("stud", on=named)


def _clip_plate_on_a_plate(part: str, offset, rotation: int):
    b = LegoBuild()
    table = b.add(Element("3020", Color.TAN), (0, 0, 0))
    b.stack(Element(part, Color.LIGHT_GREY), on=table, offset=offset, rotation=Rotation(rotation))
    return b


@pytest.mark.parametrize("part", ["61252", "4085c"])  # 1 x 1 plates with a horizontal / vertical clip
def test_a_clip_plate_whose_clip_reaches_over_the_plate_below_is_told_to_turn(part):
    # On the back row of the 2 x 4 plate (stud cell y 20..40) the clip, on the plate's -y side, reaches over
    # the stud at y = 10 of the plate below: the two collide while the clip plate sits exactly on its stud.
    r = validation_report(_clip_plate_on_a_plate(part, (3, 1, 0), 0))
    assert not r["valid"] and len(r["collisions"]) == 1
    c = r["collisions"][0]
    assert c["mated"] and "turn that part" in c["hint"] and "pressed deeper" not in c["hint"]
    # turned 180 degrees the clip reaches past the back edge (y > 40): nothing collides
    assert validation_report(_clip_plate_on_a_plate(part, (3, 1, 0), 180))["valid"]


def test_a_hinge_pushed_into_its_base_keeps_the_pressed_deeper_hint():
    from bricklayer import MotionRange, Revolute

    seated = LegoBuild()  # hinge brick 1 x 2: top 3938 on base 3937, as connect() seats it
    seated.add(Element("3937", Color.LIGHT_GREY), (0, 0, 0))
    top = Element("3938", Color.LIGHT_GREY)
    seated.connect(top, top.find_connector("hinge_brick_top"), seated.find_connector("hinge_brick_base"),
                   away=True, motion=MotionRange(Revolute(0), Revolute(90)))
    assert validation_report(seated)["valid"]
    base, top = seated.placements
    b = LegoBuild()
    b.add_raw(base.content, base.pose)
    m = np.array(top.pose.matrix, dtype=float)
    m[0, 3] += 1.0  # 1 LDU along the hinge axis (+x): still mated (2.1 LDU joint tolerance), off its seat
    b.add_raw(top.content, Pose.from_matrix(m))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = validation_report(b)
    assert [(c["mated"], c["hint"].startswith("mated, but pressed deeper")) for c in r["collisions"]] == [(True, True)]
