"""Assembly sequence: order, insertion directions, steps in LDraw (values worked by hand)."""

from bricklayer import Element, LegoBuild, from_ldraw, to_ldraw
from bricklayer.assembly import assembly_sequence, write_instructions


def tower(n):
    b = LegoBuild()
    for k in range(n):
        b.add(Element("3005"), (0, 0, 3 * k))
    return b


def test_tower_goes_bottom_up_straight_down():
    plan = assembly_sequence(tower(4), max_parts_per_step=1)
    assert plan.order == [0, 1, 2, 3]
    assert set(plan.directions.values()) == {"down"}
    assert plan.complete and plan.placed_share == 1.0
    text = to_ldraw(plan.sequence)
    assert text.count("0 STEP") == 3  # four steps of one brick


def test_pin_in_a_technic_brick_only_goes_in_from_the_side():
    # a pin in the hole of a Technic brick 1x2 (hole axis along Y): from above it would cut through the brick
    b = LegoBuild()
    b.add(Element("3700"), (0, 0, 0))
    pin = Element("3673")
    hole = next(c for c in b.connectors if c.type == "pin_hole")
    b.connect(pin, next(c for c in pin.connectors if c.type == "pin"), hole)
    plan = assembly_sequence(b)
    assert plan.order == [0, 1]
    assert plan.directions[1] in ("+y", "-y")


def test_buried_brick_cannot_be_placed_after_its_cover():
    # a 1x1 brick under the middle of a 1x3 bridge resting on two 1x1 pillars: the brick must come first
    # (it is reached from above only); the plan puts it before the bridge
    b = LegoBuild()
    for x in (0, 1, 2):
        b.add(Element("3005"), (x, 0, 0))
    b.add(Element("3623"), (0, 0, 3))  # plate 1x3
    plan = assembly_sequence(b)
    assert plan.complete
    assert plan.order.index(3) == 3


def test_write_instructions(tmp_path):
    res = write_instructions(tower(3), tmp_path, images=False, max_parts_per_step=1)
    text = res["mpd"].read_text()
    assert text.count("0 STEP") == 2
    back = from_ldraw(text)
    assert back.brick_count == 3 and len(back.steps) == 3
    assert res["summary"]["placed"] == 3


def test_time_budget_reports_what_was_not_reached():
    # with no time at all nothing is placed, and every part says why
    plan = assembly_sequence(tower(3), time_budget=0.0)
    assert plan.order == [] and plan.placed_share == 0.0
    assert set(plan.failed) == {0, 1, 2}
    assert all(r.startswith("time budget exceeded") for r in plan.failed.values())


def test_moon_buggy_is_fully_sequenced(official_dir):
    # 1180 Space Port Moon Buggy (29 parts): a hinge base 3937 with its top 3938 (interlocked fingers, no
    # straight path apart except along the hinge axis) and a radio 3962b held loosely by a minifigure hand
    # 3820 (0.62 LDU off the clip axis): the greedy search of the first version placed 58.6 %
    from bricklayer import read_ldraw

    b = read_ldraw(official_dir / "1180_1_Space_Port_Moon_Buggy.mpd")
    plan = assembly_sequence(b)
    flat = b.flattened_placements
    assert plan.complete and plan.placed_share == 1.0 and not plan.skipped
    assert sorted(plan.order) == list(range(len(flat)))
    top = next(i for i, fp in enumerate(flat) if fp.content.ldraw_id == "3938")
    base = next(i for i, fp in enumerate(flat) if fp.content.ldraw_id == "3937")
    assert plan.order.index(base) < plan.order.index(top)


def test_path_test_stops_a_brick_sliding_over_a_stud():
    # a 1x1 brick 3005 at the origin (inset box x 0.25..19.75 LDU, its stud top at 24 + 4 - 0.25 = 27.75 LDU)
    # and a 1x4 brick 3010 three studs away (x 60.25..139.75). With its bottom one brick up (z 24 LDU) the
    # 1x4 brick leaving along -x (coming in along +x) passes over the stud from s = 60.25 - 19.75 = 40.5 to
    # 139.75 - 0.25 = 139.5 LDU, and its end wall meets the stud; one plate higher (bottom 32 LDU) its
    # box clears the stud (32.25 > 27.75) and nothing is in the way
    import numpy as np

    from bricklayer.assembly import _Geometry

    for z, blocked in ((3, True), (4, False)):
        b = LegoBuild()
        b.add(Element("3005"), (0, 0, 0))
        b.add(Element("3010"), (3, 0, z))
        g = _Geometry(b)
        assert g.lo[1, 0] == 60.25 and g.hi[0, 2] == 27.75 and g.lo[1, 2] == 8 * z + 0.25
        along_x = np.array([1.0, 0.0, 0.0])
        lo, hi = g._interval(1, 0, along_x)
        if blocked:
            assert (lo, hi) == (40.5, 139.5)
        else:
            assert hi <= lo
        assert g.blocks(1, 0, along_x) is blocked
        # the other way and straight down the 1x1 brick is not on the path
        assert not g.blocks(1, 0, -along_x) and not g.blocks(1, 0, np.array([0.0, 0.0, -1.0]))
