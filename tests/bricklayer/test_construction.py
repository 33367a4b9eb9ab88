"""Construction helpers on the real library: part choice, fills, figures, doors, windows, mirror."""

import random
import sys
from pathlib import Path

import pytest

from bricklayer import Color, Element, LegoBuild, Revolute
from bricklayer.construction import (SizeNotAvailableError, available_sizes, brick, door, fill_box, fill_inverted_slope,
                                     fill_slope, inverted_slope, minifigure, mirror, mirror_counterpart, plate, slope,
                                     tile, window)

HAS_VALIDATOR = (Path(__file__).resolve().parents[2] / "bricklayer" / "validate" / "collisions.py").exists()
needs_validator = pytest.mark.skipif(not HAS_VALIDATOR, reason="bricklayer/validate collisions not written yet")


@pytest.mark.parametrize("call, expected", [
    (lambda: brick(2, 4), "3001"), (lambda: brick(4, 2), "3001"), (lambda: brick(1, 1), "3005"),
    (lambda: brick(1, 2, 2), "3245a"), (lambda: brick(2, 2, 3), "30145"),
    (lambda: plate(1, 2), "3023"), (lambda: plate(2, 1), "3023"), (lambda: plate(4, 8), "3035"),
    (lambda: tile(1, 2), "3069b"), (lambda: tile(2, 2), "3068b"),
    (lambda: slope(2, 2), "3039"), (lambda: slope(2, 1), "3040b"), (lambda: slope(3, 2, 33), "3298"),
    (lambda: inverted_slope(2, 2), "3660a"), (lambda: inverted_slope(2, 1), "3665a"),
])
def test_helpers_pick_the_popular_plain_part(call, expected):
    assert call().ldraw_id == expected


def test_helper_colour_and_footprint():
    e = brick(2, 4, color=Color.RED)
    assert e == Element("3001", Color.RED)
    # LDraw's 3001 has its long side along x: 4 studs along X in BL, 2 after a quarter turn
    assert e.rotated_footprint() == (4, 2)
    assert plate(1, 2).alignment_height == 1 and brick(1, 2).alignment_height == 3


def test_unsupported_size_lists_existing_sizes():
    with pytest.raises(SizeNotAvailableError) as exc:
        brick(3, 3)
    msg = str(exc.value)
    assert "3 x 3" in msg and "2x4" in msg and "1x16" in msg
    with pytest.raises(SizeNotAvailableError, match="45deg 2x2"):
        slope(5, 5)
    assert (2.0, 4.0, 1.0) in available_sizes("brick")
    assert (5.0, 5.0) not in available_sizes("plate")


def test_stacked_helper_parts_connect():
    b = LegoBuild()
    b.add(brick(2, 4), (0, 0, 0))
    b.add(plate(1, 2), (1, 0, 3))
    b.add(slope(2, 2), (2, 0, 3))
    assert b.is_connected()


def _seeded_boxes(n=20, seed=7):
    rng = random.Random(seed)
    return [(rng.randint(1, 12), rng.randint(1, 12), rng.randint(2, 8)) for _ in range(n)]


@pytest.mark.parametrize("w, d, h", _seeded_boxes())
def test_fill_box_connected_and_exact(w, d, h):
    b = fill_box(w, d, h)
    box = b.alignment_box
    assert (box.width, box.depth, box.height) == (w * 20, d * 20, h * 8)
    # the parts' volumes add up to the box: no overlaps, no holes
    vol = sum(p.alignment_box.width * p.alignment_box.depth * p.alignment_box.height for p in b.flattened_placements)
    assert vol == w * d * h * 20 * 20 * 8
    assert b.is_connected()
    if HAS_VALIDATOR:
        assert b.is_valid()


def test_fill_box_single_part_and_parts_used():
    assert [p.content.ldraw_id for p in fill_box(2, 4, 3).flattened_placements] == ["3001"]
    b = fill_box(3, 5, 6)
    ids = {p.content.ldraw_id for p in b.flattened_placements}
    assert ids <= {"3005", "3004", "3622", "3010", "3009", "3008", "6111", "6112", "2465"}
    with pytest.raises(ValueError):
        fill_box(0, 2, 3)


@pytest.mark.parametrize("w, d", [(1, 2), (2, 4), (4, 5), (3, 6)])
def test_fill_wedges(w, d):
    for f, family in ((fill_slope, {"3040b", "3039", "3038", "3037"}), (fill_inverted_slope, {"3665a", "3660a"})):
        b = f(w, d)
        assert b.is_connected()
        box = b.alignment_box
        assert (box.width, box.depth, box.height) == (w * 20, d * 20, (d - 1) * 24)
        ids = {p.content.ldraw_id for p in b.flattened_placements}
        assert ids & family
        if HAS_VALIDATOR:
            assert b.is_valid()


def test_minifigure_parts_and_layout():
    f = minifigure(torso=Color.RED, legs=Color.BLUE, headgear="3901")
    ids = sorted(p.content.ldraw_id for p in f.flattened_placements)
    assert ids == sorted(["3626c", "3901", "973", "3815b", "3816b", "3817b", "3818", "3819", "3820", "3820"])
    # feet on the ground (z = 0); the torso's top (its LDraw origin) 72 LDU above: legs 28 + hips 12 + torso 32
    assert abs(f.bounding_box.min.z) < 1e-6
    assert abs(f.named("torso").pose.apply_point(f.named("torso").content.ldraw_to_local[:3, 3]).z - 72) < 1e-6
    assert f.named("torso").content.color == Color.RED and f.named("leg_left").content.color == Color.BLUE
    # arms and hands are connected to the torso through their connectors
    comp = {f.name_of(p) for p in f.connected_components[0]}
    assert {"torso", "hips", "arm_left", "arm_right", "hand_left", "hand_right", "head"} <= comp


def test_minifigure_pose_moves_arm_forward():
    straight = minifigure()
    raised = minifigure(arm_angles=(90, 0))
    # the raised right hand moves forward (-Y) and up
    h0, h1 = straight.named("hand_right").bounding_box, raised.named("hand_right").bounding_box
    assert h1.center.y < h0.center.y - 5 and h1.center.z > h0.center.z + 20
    assert raised.named("hand_left").bounding_box == straight.named("hand_left").bounding_box


def test_door_hinge_and_swing():
    d = door(swing=90)
    j = d.joint("door")
    assert j.kind.name == "REVOLUTE"
    assert {p.content.ldraw_id for p in d.flattened_placements} == {"60596", "60623"}
    closed = d.named("door").bounding_box
    assert closed.min.x >= 0 and closed.max.x <= 80  # inside the frame
    opened = d.posed({"door": Revolute(-90)}).named("door").bounding_box
    assert opened.max.y > 60 and opened.max.x < 30  # swung to the back around the left hinge
    assert d.is_connected()
    with pytest.raises(KeyError, match="1x4x6"):
        door("nope")


@pytest.mark.parametrize("variant, ids", [("1x2x2", {"60592", "60601"}), ("1x2x3", {"60593", "60602"}),
                                          ("1x4x3", {"3853", "3854"})])
def test_window_pane_inside_frame(variant, ids):
    w = window(variant)
    assert {p.content.ldraw_id for p in w.flattened_placements} == ids
    pane, frame = w.named("pane").bounding_box, w.named("frame").bounding_box
    for a in "xyz":
        assert getattr(pane.min, a) >= getattr(frame.min, a) - 1e-6
        assert getattr(pane.max, a) <= getattr(frame.max, a) + 1e-6
    if HAS_VALIDATOR:
        assert not w.colliding_placements


def test_mirror_swaps_left_right_parts():
    assert mirror_counterpart("41769") == ("41770", "x")
    assert mirror_counterpart("43722") == ("43723", "x")
    b = LegoBuild()
    b.add(brick(2, 4), (0, 0, 0))
    b.add(Element("41769", Color.RED), (0, 0, 3), name="wing")
    b.add(slope(2, 2), (2, 0, 3))
    m = mirror(b, "x")
    ids = [p.content.ldraw_id for p in m.flattened_placements]
    assert ids == ["3001", "41770", "3039"]
    # x -> -x: the brick spanning x 0..80 now spans -80..0; the wing keeps its colour and name
    assert (m.flattened_placements[0].bounding_box.min.x, m.flattened_placements[0].bounding_box.max.x) == (-80, 0)
    assert m.named("wing").content.color == Color.RED
    assert m.is_connected()


def test_mirror_raises_without_counterpart():
    b = LegoBuild()
    b.add(Element("3001"), (0, 0, 0))
    b.add(Element("30363"), (0, 0, 3))  # slope 18 4 x 2 is symmetric: stays
    assert [p.content.ldraw_id for p in mirror(b, "y").flattened_placements] == ["3001", "30363"]
    b.add(Element("3816b"), (0, 0, 6))  # right leg: asymmetric, "Leg Right" -> "Leg Left" exists
    assert [p.content.ldraw_id for p in mirror(b, "x").flattened_placements][-1] == "3817b"
    c = LegoBuild()
    c.add(Element("3626c"), (0, 0, 0))
    c.add(Element("4073"), (0, 0, 0))
    with pytest.raises(ValueError, match="axis"):
        mirror(c, "z")


def test_default_window_on_a_plate_is_valid_and_connected():
    """The pane's snapped box must not shift the window off the studs (a review found a 4 LDU collision)."""
    from bricklayer import Element, LegoBuild, window

    b = LegoBuild()
    b.add(Element("3020"), (0, 0, 0))
    w = b.add(window(), (0, 0, 1))
    assert {p.content.ldraw_id for p in b.flattened_placements} == {"3020", "3853", "3854"}
    assert w.alignment_box.min.z == 8
    assert b.is_valid() and b.is_connected()


def test_helpers_reject_bad_arguments_with_hints():
    """Review findings: booleans as sizes, a negative swing, a brick as headgear."""
    from bricklayer import Color, brick, door, minifigure
    from bricklayer.construction import SizeNotAvailableError

    with pytest.raises(SizeNotAvailableError):
        brick(True, 2)
    with pytest.raises(ValueError, match="0 < swing <= 180"):
        door(swing=-90)
    with pytest.raises(ValueError, match="not minifigure headwear"):
        minifigure(Color.RED, Color.BLUE, headgear="3001")


@pytest.mark.parametrize("rotation, falls_toward", [("DEG_0", (0, -1)), ("DEG_90", (1, 0)),
                                                    ("DEG_180", (0, 1)), ("DEG_270", (-1, 0))])
def test_slope_docstring_quarter_turns_say_where_it_falls(rotation, falls_toward):
    """``slope()``'s docstring: a quarter turn is counter-clockwise seen from above; the slope falls away from
    its studs, so the studs lie on the side opposite to where it falls (3040 slope 45 2 x 1: one stud)."""
    from bricklayer import LegoBuild, Rotation
    from bricklayer.construction import slope

    build = LegoBuild()
    p = build.add(slope(2, 1), (0, 0, 0), getattr(Rotation, rotation))
    studs = [c for c in p.connectors if c.type == "stud"]
    assert len(studs) == 1
    box = p.bounding_box
    centre = ((box.min.x + box.max.x) / 2, (box.min.y + box.max.y) / 2)
    pos = studs[0].position
    offset = (pos.x - centre[0], pos.y - centre[1])
    # the stud sits 10 LDU behind the middle of the 2-stud run, on the side the slope does not fall to
    assert offset[0] == pytest.approx(-10 * falls_toward[0], abs=0.5)
    assert offset[1] == pytest.approx(-10 * falls_toward[1], abs=0.5)
