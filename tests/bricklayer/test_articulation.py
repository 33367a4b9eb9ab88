"""Articulation: posing, motion checks and their reports on real parts and the example builds."""

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from bricklayer import Color, Element, JointKind, LegoBuild, MotionRange, Prismatic, Revolute, Cylindrical
from bricklayer.articulation import joint_transform, posed, sample_range
from bricklayer.construction import brick, door, plate

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "examples"))
HAS_VALIDATOR = (ROOT / "bricklayer" / "validate" / "collisions.py").exists() and (
    ROOT / "bricklayer" / "validate" / "support.py").exists()
needs_validator = pytest.mark.skipif(not HAS_VALIDATOR, reason="bricklayer/validate collisions/support not written yet")


def test_sample_range_includes_zero_and_limits():
    s = sample_range(MotionRange(Revolute(-45), Revolute(90)), 4)
    assert s[0] == Revolute(0)
    # 135 degrees in steps of at most MAX_STEP (5 deg): every 5 degrees, zero first
    assert [c.angle_deg for c in s] == [0.0] + [float(a) for a in range(-45, 91, 5) if a]
    cyl = sample_range(MotionRange(Cylindrical(0, 0), Cylindrical(90, 2)), 2)
    # 19 angles (0..90 by 5) times 9 slides (0..2 studs by 0.25)
    assert len(cyl) == 19 * 9
    assert {Cylindrical(0, 0), Cylindrical(90, 0), Cylindrical(0, 2), Cylindrical(90, 2)} <= set(cyl)
    with pytest.raises(ValueError, match="at least 2"):
        sample_range(MotionRange(Revolute(-45), Revolute(90)), 1)


def test_joint_transform_rejects_wrong_kind():
    d = door()
    j = d.joint("door")
    with pytest.raises(ValueError, match="revolute"):
        joint_transform(j, Prismatic(1))
    # a quarter turn about the hinge axis keeps the hinge point fixed
    t = joint_transform(j, Revolute(90))
    p = np.asarray(j.parent.position)
    assert np.allclose(t[:3, :3] @ p + t[:3, 3], p)


def _crane():
    import articulation_crane

    return articulation_crane.create_build()


def test_posed_moves_rigidly_attached_parts():
    b = _crane()
    p = posed(b, {"turntable_top": Revolute(90)})
    # the arm (stacked on the top, not a joint child) follows: its 8-stud length turns from X to Y
    arm = p.named("arm").bounding_box
    assert (round(arm.width), round(arm.depth)) == (20, 160)
    # about the turntable axis through (60, 60): x 20..180 at y 40..60 becomes y -60..100 at x 40..60
    assert (round(arm.min.x), round(arm.max.x), round(arm.min.y), round(arm.max.y)) == (40, 60, -60, 100)
    # the turntable axis points down, so +90 turns clockwise seen from above: x 20..60 -> y 60..100
    assert p.named("counterweight").bounding_box.min.y == pytest.approx(60)
    # the fixed side does not move, the original build is unchanged
    assert p.named("tower").bounding_box == b.named("tower").bounding_box
    assert b.named("arm").bounding_box.width == 160
    assert p.brick_count == b.brick_count and not p.joints
    # joints resolve by object too, and LegoBuild.posed is the same function
    q = b.posed({b.joint("turntable_top"): Revolute(90)})
    assert q.named("arm").bounding_box == p.named("arm").bounding_box


def test_closed_loop_raises():
    b = LegoBuild()
    b.add(plate(6, 6), (0, 0, 0))
    b.add(brick(1, 1), (0, 0, 1))
    b.add(brick(1, 1), (1, 0, 1))
    pl = plate(1, 2)
    stud = b.find_connector("stud", toward=(10, 10, 32))
    b.connect(pl, pl.find_connector("antistud", toward=(-10, 0, 0)), stud, name="lid",
              motion=MotionRange(Revolute(0), Revolute(90)))
    # the plate's second anti-stud sits on the other brick: the lid is held twice
    with pytest.raises(ValueError, match="closed kinematic loop"):
        posed(b, {"lid": Revolute(30)})


def test_pose_key_errors():
    b = _crane()
    with pytest.raises(KeyError):
        posed(b, {"nope": Revolute(3)})
    with pytest.raises(KeyError):
        posed(b, {"tower": Revolute(3)})  # placed with add(), not a joint


#: Poses check_motion samples: the zero pose once plus, per joint, the non-zero values at most 5 degrees
#: or a quarter stud apart (door 0..-90: 18; crane -180..180: 72; each car axle 72; drawer 0..3 studs: 12).
EXAMPLE_POSES = {"articulation_door": 19, "articulation_crane": 73, "articulation_car": 145,
                 "articulation_drawer": 13}
#: Parts written by each example script (its posed snapshot, one type-1 line per part).
EXAMPLE_PARTS = {"articulation_door": 3, "articulation_crane": 6, "articulation_car": 14, "articulation_drawer": 11}


@needs_validator
@pytest.mark.parametrize("example", sorted(EXAMPLE_POSES))
def test_examples_pass_check_motion(example):
    mod = __import__(example)
    b = mod.create_build()
    assert b.is_valid() and b.is_connected()
    report = b.check_motion()
    assert report.passed, str(report)
    assert report.samples == EXAMPLE_POSES[example]


@needs_validator
def test_blocked_door_is_reported_at_the_open_pose():
    import articulation_door

    report = articulation_door.create_build(blocked=True).check_motion(samples=5)
    assert not report.passed
    # the 1 x 1 brick at y 60..80 is reached from 75 degrees open on; up to 70 the swing is free
    bad = [list(f.positions.values())[0] for f in report.failures]
    assert sorted(c.angle_deg for c in bad) == [-90.0, -85.0, -80.0, -75.0]
    f = next(f for f in report.failures if list(f.positions.values())[0] == Revolute(-90.0))
    assert any("blocker" in a or "blocker" in b for a, b in f.colliding)
    assert "door/door" in str(report)


@pytest.mark.parametrize("example", sorted(EXAMPLE_PARTS))
def test_example_scripts_write_ldr(tmp_path, example):
    if not HAS_VALIDATOR:
        pytest.skip("the scripts run check_motion, which needs the validator")
    r = subprocess.run([sys.executable, str(ROOT / "examples" / f"{example}.py"), "--out", str(tmp_path)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / f"{example}.ldr").read_text().count("\n1 ") == EXAMPLE_PARTS[example]


# ---------------------------------------------------------------------------------------------- car
def _car(blocked=False):
    import articulation_car

    return articulation_car.create_build(blocked=blocked)


def test_car_axle_turns_in_both_frame_holes_and_carries_its_wheels():
    b = _car()
    # the axle mates with the round holes of both frame bricks (one joint, two mates on one axis line):
    # posing must not call that a closed loop
    p = posed(b, {"axle_front": Revolute(90)})
    # the axle line: x = 140, z = 14 LDU, along Y (pin_hole axis +Y); a quarter turn about +Y maps
    # (x, z) offsets (dx, dz) -> (dz, -dx): every front-wheel point keeps its distance to the line
    line = np.array([140.0, 0.0, 14.0])
    for name in ("wheel_front_left", "wheel_front_right", "axle_front"):
        before, after = b.named(name).pose.matrix, p.named(name).pose.matrix
        quarter = np.array([[0, 0, 1], [0, 1, 0], [-1, 0, 0]], dtype=float)  # Ry(+90)
        assert np.allclose(after[:3, :3], quarter @ before[:3, :3], atol=1e-9), name
        d = before[:3, 3] - line
        assert np.allclose(after[:3, 3] - line, quarter @ d, atol=1e-9), name
    # the wheel hubs stay on the axle line (y = -9.5 and 89.5 LDU), the rear axle and body stay put
    for name in ("wheel_rear_left", "wheel_rear_right", "axle_rear", "floor", "frame_right"):
        assert np.allclose(p.named(name).pose.matrix, b.named(name).pose.matrix), name


@needs_validator
def test_blocked_car_is_reported_when_the_crank_points_up():
    report = _car(blocked=True).check_motion(samples=5)
    assert not report.passed
    # the crank hangs 40 LDU below the axle (z 14): free from 0 to +-90 (horizontal, between the frame
    # bricks), into the floor plate (z 24..32) once it points above horizontal (every sample past 90
    # degrees, 5 degrees apart); the rear axle carries no crank
    bad = {(lbl, c) for f in report.failures for lbl, c in f.positions.items()}
    assert bad == {("axle_front", Revolute(float(a))) for a in range(95, 181, 5)} | {
        ("axle_front", Revolute(float(-a))) for a in range(95, 181, 5)}
    for f in report.failures:
        pairs = [(a.split(":")[0], b_.split(":")[0]) for a, b_ in f.colliding]
        assert ("floor", "crank") in pairs and all("crank" in p for p in pairs)  # near vertical also the cab
        assert not f.floating and not f.disengaged


# ---------------------------------------------------------------------------------------------- drawer
def _drawer(blocked=False):
    import articulation_drawer

    return articulation_drawer.create_build(blocked=blocked)


def test_drawer_slides_toward_the_front():
    b = _drawer()
    assert b.joint("drawer").kind == JointKind.PRISMATIC  # axle in a cross hole (BrickNet mate table)
    p = posed(b, {"drawer": Prismatic(2)})
    # the axle's connector axis points to -Y: 2 studs = 40 LDU toward the front; floor 20..100 x 40..120
    fl = p.named("drawer_floor").bounding_box
    assert (fl.min.x, fl.min.y, fl.max.x, fl.max.y, fl.min.z) == (20, 0, 100, 80, 40)
    assert p.named("drawer").bounding_box.min.y == 60
    for fixed in ("rail", "rail_brick", "track_front", "base"):
        assert p.named(fixed).bounding_box == b.named(fixed).bounding_box


@needs_validator
def test_drawer_is_prismatic_and_a_bare_axle_hole_too():
    from bricklayer.articulation import classify_sliding

    b = _drawer()
    assert classify_sliding(b, "drawer") == JointKind.PRISMATIC
    assert b.check_motion().sliding == {"drawer": "prismatic"}
    # without the track: an axle turned 15 degrees in a cross hole (32064b) hits its arms (about
    # 1.5 LDU, inside the 2 LDU press-fit allowance, which classify_sliding does not grant);
    # in the round hole of a 3701 it turns freely
    for host, hole, expected in (("32064b", "axle_hole", JointKind.PRISMATIC),
                                 ("3701", "pin_hole", JointKind.CYLINDRICAL)):
        t = LegoBuild()
        t.add(Element(host), (0, 0, 0))
        ax = Element("3705")
        t.connect(ax, ax.find_connector("axle"), t.find_connectors(hole)[0], name="axle")
        assert classify_sliding(t, "axle") == expected, host


@needs_validator
def test_blocked_drawer_is_reported_once_it_reaches_the_wall():
    report = _drawer(blocked=True).check_motion(samples=5)
    assert not report.passed
    # drawer floor front edge at y = 40 LDU, the wall y 0..20 LDU up to z 56: free up to 1 stud (edge
    # at 20, touching the wall face), into the upper wall brick from 1.25 studs (edge at 15) to 3
    bad = [f.positions["drawer"] for f in report.failures]
    assert bad == [Prismatic(s / 4) for s in range(5, 13)]
    for f in report.failures:
        assert ("drawer_floor", "blocker_high") in {(a.split(":")[0], b_.split(":")[0]) for a, b_ in f.colliding}
        assert not any("blocker_low" in a + b_ for a, b_ in f.colliding)  # 24 LDU tall, below the floor


def test_parts_on_the_studs_of_a_joint_child_move_with_it():
    """``posed`` docstring: a plate stacked on a hinge top (3938, joint "lid") turns with it. At 90 degrees the
    top's box goes from y 0..20, z 8..28 to y -4..16, z 4..24: the rigid turn y' = 24 - z, z' = y + 4. The 1 x 2
    plate 3023 on its studs (y 0..20, z 24..36 with studs) must follow the same turn: y -12..0, z 4..24."""
    from bricklayer import Color, Element, LegoBuild, MotionRange, Revolute, posed

    b = LegoBuild()
    b.add(Element("3937", Color.LIGHT_GREY), (0, 0, 0))
    top = Element("3938", Color.LIGHT_GREY)
    b.connect(top, top.find_connector("hinge_brick_top"), b.find_connector("hinge_brick_base"), away=True,
              motion=MotionRange(Revolute(0), Revolute(90)), name="lid")
    b.stack(Element("3023", Color.RED), on="lid", name="deck")

    def boxes(angle):
        q = posed(b, {"lid": Revolute(angle)})
        return {f.element.ldraw_id: (f.bounding_box.min.y, f.bounding_box.min.z, f.bounding_box.max.y,
                                     f.bounding_box.max.z) for f in q.flattened_placements}

    flat, up = boxes(0), boxes(90)
    assert flat["3938"] == pytest.approx((0, 8, 20, 28), abs=0.01)
    assert up["3938"] == pytest.approx((-4, 4, 16, 24), abs=0.01)
    assert flat["3023"] == pytest.approx((0, 24, 20, 36), abs=0.01)
    y0, z0, y1, z1 = flat["3023"]
    assert up["3023"] == pytest.approx((24 - z1, y0 + 4, 24 - z0, y1 + 4), abs=0.01)
    assert up["3937"] == flat["3937"]
