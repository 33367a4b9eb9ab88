"""TestContext: the checks a build.py runs on its own build."""

from __future__ import annotations

import pytest

from brickwright import TestContext, TestReport
from brickwright.testing import CheckResult


def two_bricks(z_top: int):
    """Two red 2x4 bricks (3001), the second ``z_top`` plates up (3 = stacked, 6 = one brick gap)."""
    import bricklayer as bl

    b = bl.LegoBuild()
    b.add(bl.Element("3001", bl.Color.RED), (0, 0, 0), name="base")
    b.add(bl.Element("3001", bl.Color.RED), (0, 0, z_top), name="top")
    return b


def test_custom_checks_and_report():
    ctx = TestContext(build=None)
    ctx.check("four wheels", 4 == 4)
    ctx.check("roof", 0, "roof missing")
    rep = ctx.report()
    assert rep.to_dict() == {"passed": False, "checks": [
        {"name": "four wheels", "passed": True, "detail": ""},
        {"name": "roof", "passed": False, "detail": "roof missing"}]}
    assert rep.summary() == "1/2 checks passed\nFAIL roof: roof missing"


def test_report_coercion():
    assert TestReport.from_any({"checks": [{"name": "a", "passed": True}]}).passed
    assert not TestReport.from_any(False).passed
    assert not TestReport([]).passed  # no checks is not a pass
    with pytest.raises(TypeError, match="TestContext\\(build\\).report\\(\\)"):
        TestReport.from_any(None)


def test_stacked_bricks_pass(needs_validator):
    ctx = TestContext(two_bricks(3))
    assert ctx.check_no_floating() == CheckResult("no_floating", True, "")
    assert ctx.check_no_collisions() == CheckResult("no_collisions", True, "")
    assert ctx.check_connected(1) == CheckResult("connected(1)", True, "")
    assert ctx.report().passed


def test_gap_floats_and_splits(needs_validator):
    ctx = TestContext(two_bricks(6))
    r = ctx.check_no_floating()
    assert not r.passed and r.detail.startswith("1 floating part(s): top: 3001 (Brick 2 x 4, Color.RED)")
    c = ctx.check_connected(1)
    assert not c.passed and c.detail.startswith("2 connected components, expected 1")


def test_overlap_collides(needs_validator):
    ctx = TestContext(two_bricks(1))  # one plate up: the bricks overlap by two plates
    r = ctx.check_no_collisions()
    assert not r.passed and r.detail.startswith("1 colliding pair(s): ")
    assert "base: 3001 (Brick 2 x 4, Color.RED)" in r.detail and "top: 3001 (Brick 2 x 4, Color.RED)" in r.detail


def test_check_motion_never_fakes_a_pass(needs_validator):
    build = two_bricks(3)
    r = TestContext(build).check_motion()
    if hasattr(build, "check_motion"):
        # no joints: a motion check that moved nothing proves nothing, and says so (issue 17, item 12)
        assert not r.passed and r.detail.startswith("0 joints checked: nothing to move")
    else:
        assert not r.passed and "articulation not available" in r.detail


def _door_build(blocked: bool):
    """A 60596/60623 door (bricklayer.construction.door) opening 90 degrees on a 4 x 8 plate;
    ``blocked`` puts a 1 x 1 brick (3005) at studs (0, 3), inside the open door's sweep."""
    import bricklayer as bl
    from bricklayer.construction import brick, door

    b = bl.LegoBuild(name="door_test")
    b.add(bl.Element("3035", bl.Color.DARK_BLUISH_GREY), (0, 0, 0), name="base")
    b.add_raw(door(swing=90), bl.Pose(None, (0, 0, bl.PLATE)), name="door")
    if blocked:
        b.add(brick(1, 1, color=bl.Color.RED), (0, 3, 1), name="blocker")
    return b


def test_check_motion_runs_the_build_check(needs_validator):
    ok = TestContext(_door_build(False)).check_motion(samples=5)
    # a pass says what it covered: the door's joint (named "door/door") over 19 poses
    assert ok == CheckResult("motion", True, "1 joint(s), 19 poses: door/door")
    # a left hinge opens toward +Y at negative angles, sampled every 5 degrees (19 poses); the leaf
    # (x 0..1 stud, y 0.5..4 studs at -90) reaches the brick at y 3..4 from 75 degrees open on
    r = TestContext(_door_build(True)).check_motion(samples=5)
    assert r.detail.startswith("4 of 19 poses fail: door/door at -90 deg: collides door/door: 60623 <-> "
                               "blocker: 3005 | door/door at -85 deg")
    # samples is passed on: 40 values per range are denser than 5 degrees (zero plus 39 more)
    r40 = TestContext(_door_build(True)).check_motion(samples=40)
    assert r40.detail.split(" poses fail")[0].endswith(" of 40")


def test_check_stable_uses_the_stability_analysis():
    """A 1x1 tower of four bricks tips at arctan(10 / 50) = 11.3 degrees (worked by hand in test_stability)."""
    from bricklayer import Element, LegoBuild

    b = LegoBuild()
    for z in range(4):
        b.add(Element("3005"), (0, 0, 3 * z))
    assert TestContext(b).check_stable(min_tilt_deg=10.0).passed
    r = TestContext(b).check_stable(min_tilt_deg=12.0)
    assert not r.passed and r.name == "stable" and r.detail
