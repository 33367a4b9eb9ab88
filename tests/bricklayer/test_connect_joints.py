"""Joints on the real library: ranges of motion of real hinge and tow-ball pairs, slide limits (issue 17 item 8
and the played-run frictions a-c).

Measured on the LDraw meshes with the validator (module notes of bricklayer.validate.collisions):
- hinge brick 3937 (base) / 3938 (top): free from 0 (top flat on the base, one 1 x 2 brick) to 92 degrees; the
  base's high back wall stops it below 0 (-5 degrees: 0.6 LDU of interference, -10: 1.0) and its front step
  beyond 90 (95: 0.5 LDU, 100: 1.5). All 56 uses of the pair in the official models lie in 0..90 (angles
  0, 8-25, 45, 53, 60, 66, 79-81, 90). So a negative angle colliding is the real part's stop, not a false
  collision.
- tow balls: the labels carry no direction, so before the rest pose of ``connect()`` the hook 30395 hung with
  its shank through the lower jaw of the socket of plate 3730 (2 LDU deep) and the axle 2736 lay across the
  socket of 3183c (3 LDU); with the neck out of the mouth both are free, and they swing sideways about 60
  degrees before the neck meets the jaws.
"""

import warnings

import numpy as np
import pytest

from bricklayer import Color, Element, LegoBuild, MotionRange, Mounting, Revolute
from bricklayer.geometry.types import Pose
from bricklayer.joints import Ball, Joint
from bricklayer.validate.collisions import collision_engine


def _hinge_brick(mounting=None):
    b = LegoBuild()
    h = b.add(Element("3937", Color.RED), (0, 0, 0), name="base")
    t = Element("3938", Color.RED)
    b.connect(t, t.find_connector("hinge_brick_top"), next(c for c in h.connectors if c.type == "hinge_brick_base"),
              name="top", mounting=mounting, motion=MotionRange(Revolute(0), Revolute(90)))
    return b


def _depth(build) -> float:
    """Interference (LDU) of the two parts of a posed two-part build, 0 when they do not collide."""
    if not build.colliding_placements:
        return 0.0
    return collision_engine(build).interference_depth(0, 1)


@pytest.mark.parametrize("mounting", [None, Mounting.FLIPPED])
def test_hinge_brick_turns_through_its_real_range_and_stops_beyond(mounting):
    b = _hinge_brick(mounting)
    # at 0 the top lies flat on the base: one 1 x 2 brick, 28 LDU to the stud tops
    assert b.named("top").bounding_box.max.z == pytest.approx(28)
    for a in (0, 30, 60, 85, 90, 92):
        assert _depth(b.posed({"top": Revolute(a)})) == 0.0, a
    # 0.6-1.0 LDU: the interference ladder starts at the 0.3 LDU inset (press_fit.ROUNDING_MARGIN)
    assert _depth(b.posed({"top": Revolute(-5)})) == pytest.approx(0.6)
    assert _depth(b.posed({"top": Revolute(-10)})) == pytest.approx(1.0)
    assert _depth(b.posed({"top": Revolute(100)})) == pytest.approx(1.5)
    assert b.check_motion().passed
    b.set_motion(b.joint("top"), MotionRange(Revolute(-10), Revolute(90)))
    r = b.check_motion()
    assert not r.passed
    assert sorted(f.positions["top"].angle_deg for f in r.failures) == [-10.0, -5.0]


@pytest.mark.parametrize("socket, ball", [("3730", "30395"), ("3183c", "2736"), ("3730", "2736")])
def test_tow_ball_rests_with_its_neck_out_of_the_socket(socket, ball):
    b = LegoBuild()
    b.add_raw(Element(socket, Color.BLACK), Pose())
    e = Element(ball, Color.LIGHT_BLUISH_GREY)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ConnectCollisionWarning
        b.connect(e, e.find_connector("towball"), b.find_connector("towball_socket"), name="ball")
    assert b.is_valid() and b.num_connected_components == 1
    # the ball part lies outside the socket's mouth (-Y of both sockets), not across or under the socket part
    sock_box, ball_box = b.placements[0].bounding_box, b.named("ball").bounding_box
    assert ball_box.center.y < sock_box.min.y
    assert ball_box.min.z > -6  # nothing hangs below the socket plate (the hook hung to z = -48)


def test_tow_ball_swings_then_meets_the_jaws():
    b = LegoBuild()
    b.add_raw(Element("3730"), Pose())
    e = Element("30395")
    b.connect(e, e.find_connector("towball"), b.find_connector("towball_socket"), name="ball")
    for a in (-60, -30, 30, 60):
        assert not b.posed({"ball": Ball(rz_deg=a)}).colliding_placements, a  # sideways in the slot
    for a in (-90, 90):
        assert b.posed({"ball": Ball(rz_deg=a)}).colliding_placements, a
    b.set_motion(b.joint("ball"), MotionRange(Ball(rz_deg=-45), Ball(rz_deg=45)))
    assert b.check_motion().passed


def test_ball_target_rotation_turns_from_the_rest_pose():
    from bricklayer.geometry.types import Mat3, rotation_about

    b = LegoBuild()
    b.add_raw(Element("3730"), Pose())
    e = Element("30395")
    rest = b.connect(e, e.find_connector("towball"), b.find_connector("towball_socket"))
    b2 = LegoBuild()
    b2.add_raw(Element("3730"), Pose())
    turned = b2.connect(e, e.find_connector("towball"), b2.find_connector("towball_socket"),
                        target_rotation=Mat3(rotation_about((0, 0, 1), 30).matrix))
    assert turned.pose.translation != rest.pose.translation or turned.pose.rotation != rest.pose.rotation
    assert b2.is_valid()


# ------------------------------------------------------------------ slides: (b) the end of an axle, (c) the boundary
def _axle_in_brick(axle="3705"):
    b = LegoBuild()
    b.add(Element("3700"), (0, 0, 0), name="brick")
    ax = Element(axle)
    b.connect(ax, ax.find_connector("axle"), b.find_connector("pin_hole"), name="axle")
    beam = Element("18654")
    return b, beam, beam.find_connector("pin_hole"), next(c for c in b.connectors if c.type == "axle")


def test_slide_past_the_end_of_an_axle_is_refused_with_the_range():
    from bricklayer.build import slide_limit_studs

    b, beam, hole, axle = _axle_in_brick()
    # 3705 axle 4: half-length 37.5 LDU; beam 18654: 10 LDU; 4 LDU must overlap: (37.5 + 10 - 4) / 20
    assert slide_limit_studs(hole, axle) == pytest.approx(2.175)
    with pytest.raises(ValueError, match=r"from -2\.175 to 2\.175 studs"):
        b.connect(beam, hole, axle, target_position=2.5)
    assert len(b) == 2 and len(b.joints) == 1  # nothing recorded
    b.connect(beam, hole, axle, target_position=-2.175, name="beam", motion=MotionRange(Revolute(0), Revolute(90)))
    assert b.is_valid() and b.num_connected_components == 1
    assert b.check_motion().passed


def test_slide_engagement_is_inclusive_at_the_limit():
    """A part at exactly the end of its slide, off by floating-point noise, stays engaged (issue 17, c)."""
    b, beam, hole, axle = _axle_in_brick()
    ref = LegoBuild()
    ref.add(Element("3700"), (0, 0, 0))
    p = b.connect(beam, hole, axle, target_position=2.175, name="beam")
    for noise in (1e-9, 1e-6, 1e-4):
        c = LegoBuild()
        for q in b.placements[:2]:
            c.add_raw(q.content, q.pose)
        m = p.pose.matrix.copy()
        m[1, 3] += noise  # the axle runs along Y: a hair past the limit
        c.add_raw(beam, Pose.from_matrix(m))
        assert c.num_connected_components == 1, noise
    # a real step past the end is not engaged
    c = LegoBuild()
    for q in b.placements[:2]:
        c.add_raw(q.content, q.pose)
    m = p.pose.matrix.copy()
    m[1, 3] += 0.5
    c.add_raw(beam, Pose.from_matrix(m))
    assert c.num_connected_components == 2


def test_a_recorded_joint_off_its_axle_is_named_in_the_report():
    from bricklayer.articulation import unmated_joints
    from brickwright.validation import validation_report

    b, beam, hole, axle = _axle_in_brick()
    p = b.connect(beam, hole, axle, target_position=2.0, name="beam")
    kind = b.joint("beam").kind
    m = p.pose.matrix.copy()
    m[1, 3] += 20.0  # one stud further out: 3.0 studs, past 2.175
    c, _, _, free_axle = _axle_in_brick()
    moved = c.add_raw(beam, Pose.from_matrix(m), name="beam")
    c._joints.append(Joint(free_axle, hole.moved(moved.pose, moved), moved, kind))
    bad = unmated_joints(c)
    assert len(bad) == 1
    assert "+3 studs" in bad[0][1] or "-3 studs" in bad[0][1]
    assert "from -2.175 to 2.175 studs" in bad[0][1]
    text = validation_report(c)["text"]
    assert "past the end of the slide" in text
    assert unmated_joints(b) == []


# ------------------------------------------------------------------ item 13: parts made for each other
def _shadow_installed() -> bool:
    from ldraw_data.library import find_shadow_library

    try:
        return find_shadow_library() is not None
    except Exception:  # noqa: BLE001
        return False


needs_shadow = pytest.mark.skipif(not _shadow_installed(), reason="LDCad shadow library not installed")


@needs_shadow
@pytest.mark.parametrize("holder, part, mate_type", [
    ("3481", "3480", "ldcad_cyl-R7.5"),   # plate 2 x 2 with helicopter tail rotor holder / tail propeller
    ("3462", "3461", "ldcad_cyl-R7.5"),   # plate 2 x 3 with rotor holder / propeller 4 blade with rotor holder
    ("3730", "3731", "towball"),           # plate 2 x 2 with towball socket / plate 2 x 2 with towball
])
def test_parts_made_for_each_other_mate(holder, part, mate_type):
    b = LegoBuild()
    b.add(Element(holder), (0, 0, 0), name="holder")
    e = Element(part)
    src = next(c for c in e.connectors if c.type.startswith(mate_type) and not c.type.endswith("socket"))
    tgt = next(c for c in b.connectors if c.type.startswith(mate_type) and c.type != src.type)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        b.connect(e, src, tgt, name="part")
    assert b.is_valid() and b.num_connected_components == 1


@needs_shadow
def test_a_mismatch_names_the_pair_that_mates():
    """The played run's "antistud cannot mate with pin" on the tail propeller now says which pair does."""
    from bricklayer.connector import ConnectorMismatchError

    b = LegoBuild()
    b.add(Element("3481"), (0, 0, 0))
    e = Element("3480")
    with pytest.raises(ConnectorMismatchError) as exc:
        b.connect(e, e.find_connector("antistud", toward=(-4, 0, 16)), b.find_connector("pin"))
    msg = str(exc.value)
    assert "3480.connectors[2] (ldcad_cyl-R7.5_on) with the ldcad_cyl-R7.5_in at (56.0, 20.0, 16.0)" in msg
    b.connect(e, e.connectors[2], b.find_connector("ldcad_cyl-R7.5_in"))
    assert b.is_valid() and b.num_connected_components == 1


def test_ldcad_clips_hold_round_shafts_of_their_radius():
    """LDCad's SNAP_CLP holds a male round cylinder of its own radius (module ldraw_data.ldcad): the
    generic clip and shaft rows mate as a sliding (cylindrical) joint, other radii do not."""
    from ldraw_data.connectors import JointKind, is_sliding_type, mate_kind

    assert mate_kind("ldcad_clp-r3_on", "ldcad_clp-r3_in") is JointKind.CYLINDRICAL
    assert mate_kind("ldcad_clp-r3_on", "ldcad_clp-r2_in") is None
    assert is_sliding_type("ldcad_clp-r5_on") and is_sliding_type("pin_hole") and not is_sliding_type("stud")
    assert not is_sliding_type("ldcad_cyl-R7.5_in")  # generic cylinders stay point connectors


@needs_shadow
def test_ldcad_clip_rows_of_real_parts():
    """Handcuffs 61482: two radius-5 clips 45 LDU apart (LDCad: clips at x = -22.5 and 22.5, 4 LDU long,
    axis along the part's Z); minifig arm 3818: the radius-5 round shaft a clip holds; the radius-6 clip
    of the 3652 piston block is a pin hole (clips round a pin-sized shaft)."""
    from ldraw_data.connectors import part_connectors

    cuffs = [c for c in part_connectors("61482") if c.type == "ldcad_clp-r5_on"]
    assert sorted(round(float(c.position[0]), 1) for c in cuffs) == [-22.5, 22.5]
    assert all(abs(float(c.axis[2])) == 1.0 and c.length == 4.0 for c in cuffs)
    assert any(c.type == "ldcad_clp-r5_in" for c in part_connectors("3818"))
    holes = sorted(round(float(c.position[2])) for c in part_connectors("3652") if c.type == "pin_hole")
    assert holes == [-12, 12]


@needs_shadow
def test_grab_jaw_clip_on_its_holder_pin_and_pulled_apart():
    """Arm piece grab jaw 4221 on the 4220a "Arm Piece with Grab Jaw Holder": mated by its radius-3 clip on
    the holder's pin (a cylindrical joint besides the hinge label); moved 10 LDU across the pin, two components."""
    from bricklayer.validate.connections import connection_graph
    from ldraw_data.connectors import JointKind

    b = LegoBuild()
    b.add(Element("4220a"), (0, 0, 0), name="holder")
    jaw = Element("4221")
    src = next(c for c in jaw.connectors if c.type == "ldcad_clp-r3_on")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        p = b.connect(jaw, src, b.find_connectors("ldcad_clp-r3_in")[0], name="jaw")
    assert b.is_valid() and b.num_connected_components == 1
    g = connection_graph(b)
    assert JointKind.CYLINDRICAL in g.graph.edges[0, 1]["kinds"]
    apart = LegoBuild()
    apart.add(Element("4220a"), (0, 0, 0))
    m = p.pose.matrix.copy()
    axis = m[:3, :3] @ np.asarray(tuple(src.axis), float)  # the clip axis in the world
    side = np.cross(axis, (1.0, 0.0, 0.0) if abs(axis[0]) < 0.9 else (0.0, 0.0, 1.0))
    m[:3, 3] += 10.0 * side / np.linalg.norm(side)  # 10 LDU off the shaft, across it (along it, a clip slides)
    apart.add_raw(Element("4221"), Pose.from_matrix(m))
    assert apart.num_connected_components == 2
