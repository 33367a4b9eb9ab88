"""connect(): mating typed connectors (BrickNet labels), with positions worked by hand."""

import itertools

import numpy as np
import pytest

from bricklayer import Color, ConnectorMismatchError, Element, JointKind, LegoBuild, Mounting, Vec3


def _grid_overlap(a_box, b_box) -> int:
    """Number of shared stud cells of two footprints (independent of connectors)."""
    w = max(0, min(a_box.max.x, b_box.max.x) - max(a_box.min.x, b_box.min.x)) / 20
    d = max(0, min(a_box.max.y, b_box.max.y) - max(a_box.min.y, b_box.min.y)) / 20
    return int(round(w) * round(d))


def test_brick_on_plate_every_offset_and_quarter_turn():
    brick = Element("3001", Color.RED)
    antistuds = brick.find_connectors("antistud")
    antistuds = [c for c in antistuds if c.type == "antistud"]
    assert len(antistuds) == 8
    base = LegoBuild()
    plate = base.add(Element("3020", Color.GREEN), (0, 0, 0))
    studs = [c for c in base.find_connectors("stud")]
    assert len(studs) == 8
    seen_offsets = set()
    for stud, hole, turn in itertools.product(range(8), range(8), (0, 90, 180, 270)):
        b = base.copy()
        target = [c for c in b.find_connectors("stud")][stud]
        p = b.connect(brick, antistuds[hole], target, target_rotation=turn)
        box = p.alignment_box
        # bottom of the brick on the plate's top (8 LDU), grid-aligned, 3 plates high
        assert box.min.z == pytest.approx(8) and box.height == pytest.approx(24)
        for v in (box.min.x, box.min.y):
            assert abs(v / 20 - round(v / 20)) < 1e-9
        # every overlapping stud cell is mated: studs covered = overlap cells
        overlap = _grid_overlap(box, plate.alignment_box)
        assert overlap >= 1
        free_plate_studs = [c for c in b.find_connectors("stud") if c.position.z == pytest.approx(8)]
        assert len(free_plate_studs) == 8 - overlap
        assert b.num_connected_components == 1
        assert b.joints[0].kind == JointKind.REVOLUTE
        seen_offsets.add((round(box.min.x), round(box.min.y), round(box.width)))
    # offsets seen: both orientations and many positions, incl. overhangs
    assert len({w for *_, w in seen_offsets}) == 2
    assert len(seen_offsets) > 20


def test_technic_pin_into_brick_hole():
    b = LegoBuild()
    b.add(Element("3700", Color.RED), (0, 0, 0))
    hole = b.find_connector("pin_hole")
    # the hole's axis runs across the brick (Y), centred at x = 20, z = 14 (LDraw y 10 below the stud base)
    assert hole.position == Vec3(20, 10, 14)
    pin = Element("2780", Color.BLACK)
    end = pin.find_connector("pin", toward=(-20, 0, 0))
    p = b.connect(pin, end, hole)
    placed = end.moved(p.pose)
    assert np.allclose(np.asarray(placed.position), [20, 10, 14])
    assert abs(placed.axis.dot(hole.axis)) == pytest.approx(1)
    assert b.joints[0].kind == JointKind.CYLINDRICAL
    assert b.num_connected_components == 1


def test_axle_through_gear_axle_hole():
    b = LegoBuild()
    b.add_raw(Element("3648b", Color.LIGHT_BLUISH_GREY))
    cross = b.find_connector("axle_hole")
    axle = Element("3706", Color.BLACK)
    p = b.connect(axle, axle.find_connector("axle"), cross, target_position=1)
    assert b.joints[0].kind == JointKind.PRISMATIC
    placed = axle.find_connector("axle").moved(p.pose)
    # slid 1 stud (20 LDU) along the hole axis
    d = np.asarray(placed.position) - np.asarray(cross.position)
    assert np.linalg.norm(d) == pytest.approx(20)
    assert abs(placed.axis.dot(cross.axis)) == pytest.approx(1)
    assert b.num_connected_components == 1


def test_clip_onto_bar():
    b = LegoBuild()
    b.add(Element("2540", Color.BLUE), (0, 0, 0))  # plate 1 x 2 with handle (bar)
    bar = b.find_connector("bar", toward=(20, 10, 6))  # middle of the handle (LDraw labels: 3 bar segments)
    assert bar.position == Vec3(20, 10, 6)
    clip_part = Element("4085c", Color.WHITE)
    clip = clip_part.find_connector("clip")
    p = b.connect(clip_part, clip, bar, target_rotation=90)
    placed = clip.moved(p.pose)
    assert np.allclose(np.asarray(placed.position), [20, 10, 6])
    assert abs(placed.axis.dot(bar.axis)) == pytest.approx(1)
    assert b.joints[0].kind == JointKind.CYLINDRICAL
    assert b.num_connected_components == 1


def test_towball_into_socket():
    b = LegoBuild()
    b.add(Element("3183c", Color.BLACK), (0, 0, 0))
    sock = b.find_connector("towball_socket")
    ball_part = Element("2736", Color.LIGHT_BLUISH_GREY)
    b.connect(ball_part, ball_part.find_connector("towball"), sock)
    assert b.joints[0].kind == JointKind.BALL
    assert b.num_connected_components == 1


def test_stud_to_stud_refused_and_nothing_recorded():
    b = LegoBuild()
    b.add(Element("3020"), (0, 0, 0))
    stud = b.find_connector("stud", toward=(0, 0, 0))
    brick = Element("3001")
    with pytest.raises(ConnectorMismatchError) as e:
        b.connect(brick, brick.find_connector("stud", toward=(0, 0, 0)), stud)
    msg = str(e.value)
    assert "'stud' cannot mate with a 'stud'" in msg and "antistud" in msg and "tube" in msg
    assert len(b) == 1 and not b.joints


def test_occupied_target_refused():
    b = LegoBuild()
    plate = b.add(Element("3020"), (0, 0, 0))
    b.stack(Element("3001"), on=plate)
    covered = [c for c in plate.connectors if c.type == "stud"][0]
    brick = Element("3003")
    with pytest.raises(ValueError, match="not a free connector"):
        b.connect(brick, brick.find_connector("antistud", toward=(0, 0, 0)), covered.moved(plate.pose.inverse() @ plate.pose))
    assert len(b) == 2


@pytest.mark.parametrize("pin_end", [0, 1])
def test_away_sends_a_symmetric_pin_out_of_the_build_side(pin_end):
    """A played run put Technic pins 2780 through the holes of two 3700 hubs under a 6 x 10 plate with
    ``away=True``; both ways stick out of a hub as far, and the tie went into the build. Of equally far poses,
    ``away`` now takes the one farther from the build's centre: the hub whose hole is at y = 50 (build y 0..180)
    gets the pin at y 19..59 (outward, -y); the hub at y = 170 gets y 161..201 (+y); whichever pin end is used."""
    import warnings

    from bricklayer import Color, Element, LegoBuild

    b = LegoBuild()
    b.add(Element("3033", Color.BROWN), (0, 0, 1))
    hubs = [b.add(Element("3700"), (0, 2, 0)), b.add(Element("3700"), (0, 8, 0))]
    got = []
    for hub in hubs:
        hole = next(c for c in hub.connectors if c.type == "pin_hole")
        pin = Element("2780")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            p = b.connect(pin, pin.find_connectors("pin")[pin_end], hole, away=True)
        got.append((round(hole.position.y), round(p.bounding_box.min.y), round(p.bounding_box.max.y)))
    assert got == [(50, 19, 59), (170, 161, 201)]
