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
    assert [c.angle_deg for c in s] == [0.0, -45.0, 0.0, 45.0, 90.0][:1] + [-45.0, 45.0, 90.0]
    cyl = sample_range(MotionRange(Cylindrical(0, 0), Cylindrical(90, 2)), 2)
    assert set(cyl) == {Cylindrical(0, 0), Cylindrical(90, 0), Cylindrical(0, 2), Cylindrical(90, 2)}


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


@needs_validator
@pytest.mark.parametrize("example", ["articulation_door", "articulation_crane"])
def test_examples_pass_check_motion(example):
    mod = __import__(example)
    b = mod.create_build()
    assert b.is_valid() and b.is_connected()
    report = b.check_motion()
    assert report.passed, str(report)
    assert report.samples == 5


@needs_validator
def test_blocked_door_is_reported_at_the_open_pose():
    import articulation_door

    report = articulation_door.create_build(blocked=True).check_motion(samples=5)
    assert not report.passed
    # closed, 22.5 and 45 degrees are free; the 1 x 1 brick at y 60..80 stops the door at 90 degrees
    bad = [list(f.positions.values())[0] for f in report.failures]
    assert Revolute(-90.0) in bad and Revolute(0) not in bad and Revolute(-22.5) not in bad
    f = next(f for f in report.failures if list(f.positions.values())[0] == Revolute(-90.0))
    assert any("blocker" in a or "blocker" in b for a, b in f.colliding)
    assert "door/door" in str(report)


@pytest.mark.parametrize("example", ["articulation_door", "articulation_crane"])
def test_example_scripts_write_ldr(tmp_path, example):
    if not HAS_VALIDATOR:
        pytest.skip("the scripts run check_motion, which needs the validator")
    r = subprocess.run([sys.executable, str(ROOT / "examples" / f"{example}.py"), "--out", str(tmp_path)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / f"{example}.ldr").read_text().count("\n1 ") == {"articulation_door": 3, "articulation_crane": 6}[example]
