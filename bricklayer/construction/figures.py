"""Minifigures, doors and windows from real parts.

Transforms come from official set models (``10224_Town_Hall.mpd``, the
minifigures of ``6907_Sonic_Stinger.mpd``): the standard LDraw minifigure
layout has the torso at the origin, the head (and headgear) at
y = -24, the hips at y = 32, both legs at y = 44, the arms at
(-/+15.552, 9, 0) turned 9.8 degrees (sin = 0.17) about the depth axis and
the hands at (-/+23.8634, 26.5956, -10.321) (LDraw frame, -Y up, LDU).

Minifigure hip labels
---------------------
The BrickNet connector labels of the legs do not match the LDraw geometry;
the official layout does. In 10224 Town Hall every 3816b/3817b leg sits at
its 3815b hips' transform plus (0, 12, 0), identity rotation. There the
drawn parts agree exactly: the hips' peg is a radius-3 cylinder along X at
(x -9.92..9.92, y 12, z 0) of ``3815b.dat``, i.e. the legs' y = 0, and each
leg's socket is a radius-3 cylinder along X at (y 0, z 0) of
``s/3816bs02.dat`` / ``s/3817bs02.dat`` (x +-2..+-7.25). The labels: the
hips' ``hip_peg`` at (+-2, 44, 0) (figure frame, LDraw axes, torso at the
origin) lies on that axis, but the legs' ``hip_socket`` at (+-2.25, 44, 1.25)
is 0.25 LDU along the axis and 1.25 LDU across it (1.27 LDU apart). So the
labels, not the official models, are off; this module keeps the official
transform. The legs mate in the connection graph only when hinge-family
point joints accept 1.27 LDU (``TOL.joint_position``, 2.1 LDU in
``bricklayer/validate/connections.py``).

Window glass 60601 / 60602 has no BrickNet labels at all: it snaps into the
frame's grooves (60592 / 60593), which BrickNet does not label either. The
pane is placed at the official transform (identity relative to the frame,
10224 Town Hall; the LDraw shortcuts 60592c01 / 60593c01 "(Complete)" use the
same). The validator joins it to the frame by its "pane held in a frame"
rule (:mod:`bricklayer.validate.held`), so every window variant is one
connected component.
"""

from __future__ import annotations

__all__ = ["minifigure", "door", "window", "DOOR_VARIANTS", "WINDOW_VARIANTS"]

import math

import numpy as np

from ..color import Color
from ..element import Element
from ..geometry.ldraw_frame import L2B
from ..geometry.types import Pose
from ..errors import BrickLayerKeyError, BrickLayerValueError

# LDraw-frame transforms of the standard minifigure (10224 Town Hall, "M Mayor" and others).
_ARM_R = np.array([[0.985, -0.17, 0], [0.17, 0.985, 0], [0, 0, 1.0]])
_ARM_L = np.array([[0.985, 0.17, 0], [-0.17, 0.985, 0], [0, 0, 1.0]])
_HAND_R = np.array([[0.985, -0.12019, 0.12019], [0.17, 0.696395, -0.696395], [0, 0.707, 0.707]])
_HAND_L = np.array([[0.985, 0.12019, -0.12019], [-0.17, 0.696395, -0.696395], [0, 0.707, 0.707]])


def _m(r=None, t=(0, 0, 0)) -> np.ndarray:
    m = np.eye(4)
    if r is not None:
        m[:3, :3] = r
    m[:3, 3] = t
    return m


def _rx(deg: float) -> np.ndarray:
    a = math.radians(deg)
    c, s = math.cos(a), math.sin(a)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


def _ry(deg: float) -> np.ndarray:
    a = math.radians(deg)
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])


def _about(point, r) -> np.ndarray:
    return _m(None, point) @ _m(r) @ _m(None, -np.asarray(point, dtype=float))


def _place(build, el: Element, ldraw_matrix: np.ndarray, name: str):
    pose = Pose.from_matrix(L2B @ ldraw_matrix @ el.local_to_ldraw)
    return build.add_raw(el, pose, name=name)


def _attach(build, el: Element, ldraw_matrix: np.ndarray, name: str, mine: str, theirs: str):
    """Place ``el`` where the LDraw matrix puts it, but through ``connect`` on the nearest
    mating connectors, so the joint is recorded and the parts mate exactly (the official
    transforms are within 0.4 LDU of the BrickNet connector positions)."""
    pose = L2B @ ldraw_matrix @ el.local_to_ldraw
    best = None
    for c in el.find_connectors(mine):
        world = pose @ c.frame.matrix
        for t in build.find_connectors(theirs):
            d = float(np.linalg.norm(world[:3, 3] - t.frame.matrix[:3, 3]))
            if best is None or d < best[0]:
                best = (d, c, t, world)
    if best is None or best[0] > 1.0:
        return build.add_raw(el, Pose.from_matrix(pose), name=name)
    _, c, t, world = best
    rel = np.linalg.inv(t.frame.matrix) @ world  # wanted child frame in the target frame
    axis_dot = float(rel[2, 2])
    from ..joints import Mounting

    mounting = None
    if axis_dot < 0:
        mounting = Mounting.FLIPPED
        rel = rel @ np.diag([1.0, -1.0, -1.0, 1.0])
    angle = math.degrees(math.atan2(rel[1, 0], rel[0, 0]))
    return build.connect(el, c, t, target_rotation=angle, mounting=mounting, name=name)


def minifigure(torso=Color.RED, legs=Color.BLUE, *, hips=None, arms=None, hands=Color.YELLOW, head=Color.YELLOW,
               headgear: str | None = None, headgear_color=Color.BLACK, head_angle: float = 0.0,
               arm_angles=(0.0, 0.0), leg_angles=(0.0, 0.0), name: str = "minifig"):
    """A complete minifigure of separate standard parts.

    Parts: 3815b hips, 3816b right leg, 3817b left leg, 973 torso, 3818
    right arm, 3819 left arm, two 3820 hands, 3626c head and, optionally,
    headgear (any part id made for the head stud: ``"3901"`` male hair,
    ``"3624"`` police hat, ``"4485"`` cap, ``"3629"`` cowboy hat,
    ``"3842b"`` classic space helmet, ``"2446"`` modern helmet ...; search
    ranks the classic helmet low for "space helmet": its title lacks
    "space", which only its keywords carry).

    Parameters
    ----------
    torso, legs : Color, LDrawColor or int
    hips : colour, optional
        Default: the legs' colour.
    arms : colour, optional
        Default: the torso's colour.
    hands, head : colour
    headgear : str, optional
        Part id of a hat or hair.
    headgear_color : colour
    head_angle : float, degrees
        Head (and headgear) turn about the vertical, counter-clockwise seen from above.
    arm_angles : (right, left) float, degrees
        Rotation of each arm about its shoulder axis; positive raises the
        arm forward (90: pointing forward). Hands follow.
    leg_angles : (right, left) float, degrees
        Rotation of each leg about the hip axis; positive swings it
        forward (90: sitting).
    name : str
        Build name.

    Returns
    -------
    LegoBuild
        9 or 10 parts, named ``torso``, ``hips``, ``leg_right``,
        ``leg_left``, ``arm_right``, ``arm_left``, ``hand_right``,
        ``hand_left``, ``head`` and ``headgear``. The figure faces -Y
        (front); the bottom of its feet is at z = 0 when the legs are
        straight, its footprint 2 x 1 studs centred on the origin's
        ... as placed by LDraw: the feet's anti-studs sit on the stud grid.

    Raises
    ------
    PartNotFoundError
        An unknown headgear id.

    Notes
    -----
    The figure is posed by placing parts (``add_raw``), not by joints.
    Standard transforms: see the module notes.
    """
    from ..build import LegoBuild

    hips = legs if hips is None else hips
    arms = torso if arms is None else arms
    b = LegoBuild(name=name)
    # LDraw frame: the whole figure is raised so that the feet (y = 44 + 28 = 72 below the
    # torso top) stand at LDraw y = 0.
    lift = _m(None, (0, -72, 0))
    head_m = lift @ _m(_ry(head_angle), (0, -24, 0))
    _place(b, Element("3626c", head), head_m, "head")
    if headgear:
        hg = Element(headgear, headgear_color)
        if hg.spec.category != "Minifig Headwear":
            raise BrickLayerValueError(f"headgear {headgear!r} is a {hg.spec.category} part ({hg.spec.name}), not minifigure "
                             "headwear; try search_parts('minifig hair') or search_parts('minifig helmet')")
        _place(b, hg, head_m, "headgear")
    _place(b, Element("973", torso), lift @ _m(), "torso")
    _place(b, Element("3815b", hips), lift @ _m(None, (0, 32, 0)), "hips")
    # legs: positive = forward = toward LDraw -Z, i.e. a negative turn about LDraw +X
    for side, pid, ang in (("right", "3816b", leg_angles[0]), ("left", "3817b", leg_angles[1])):
        m = _about((0, 44, 0), _rx(-ang)) @ _m(None, (0, 44, 0))
        # official transform (module notes, "Minifigure hip labels"): the drawn socket is coaxial
        # with the hips' peg; the BrickNet hip_socket labels sit 1.27 LDU off it, and moving the
        # leg onto the label makes it collide with the hips
        _place(b, Element(pid, legs), lift @ m, f"leg_{side}")
    for side, pid, sx, rot, hand_rot, ang in (("right", "3818", -1, _ARM_R, _HAND_R, arm_angles[0]),
                                                ("left", "3819", 1, _ARM_L, _HAND_L, arm_angles[1])):
        arm0 = _m(rot, (sx * 15.552, 9, 0))
        turn = arm0 @ _m(_rx(-ang)) @ np.linalg.inv(arm0)
        _attach(b, Element(pid, arms), lift @ turn @ arm0, f"arm_{side}", "shoulder_socket", "shoulder_peg")
        _attach(b, Element("3820", hands), lift @ turn @ _m(hand_rot, (sx * 23.8634, 26.5956, -10.321)),
                f"hand_{side}", "wrist_peg", "wrist_socket")
    return b


#: Door variants: name -> (frame id, door id, door colour default, how they join).
DOOR_VARIANTS = {
    "1x4x6": ("60596", "60623"),          # Door 1 x 4 x 6 Frame + Door with 4 Panes and Stud Handle
    "1x4x6_smooth": ("60596", "60616a"),  # + Door 1 x 4 x 6 Smooth with Square Handle Plinth
}

#: Window variants: name -> (frame id, pane or glass id, pane LDraw transform relative to the frame).
WINDOW_VARIANTS = {
    # glass clipped in the frame at the frame's origin (10224 Town Hall: 60593 + 60602 at identity)
    "1x2x2": ("60592", "60601", np.eye(4)),
    "1x2x3": ("60593", "60602", np.eye(4)),
    # shutter-style pane on the frame's hinge (6761 Bandit's Secret Hide-Out: 3853 + 3854)
    "1x4x3": ("3853", "3854", np.array([[0, 0, 1, 34], [0, 1, 0, 4], [-1, 0, 0, -4], [0, 0, 0, 1.0]])),
    # 10182 Cafe Corner: 4132 + 4133
}


def door(variant: str = "1x4x6", frame_color=Color.WHITE, door_color=Color.RED, *, open_deg: float = 0.0,
         hinge: str = "left", swing: float | None = None, motion=None):
    """A door in its frame, hinged with the parts' own hinge connectors.

    Parameters
    ----------
    variant : str
        A key of :data:`DOOR_VARIANTS`: ``"1x4x6"`` (60596 frame with 60623
        door, 4 panes) or ``"1x4x6_smooth"`` (60616a door).
    frame_color, door_color : colour
    open_deg : float, degrees
        Opening angle (0 closed, 90 open toward +Y, the back).
    hinge : {"left", "right"}
        Hinge side seen from the front (-Y): ``"left"`` is the frame's -X end.
    swing : float, degrees, optional
        Declare the hinge movable from closed to opened by this angle toward
        +Y (the joint range is ``Revolute(-swing)..Revolute(0)`` for a left
        hinge, ``Revolute(0)..Revolute(swing)`` for a right one: the hinge
        axes point opposite ways).
    motion : MotionRange, optional
        A raw range for the hinge joint instead of ``swing``.

    Returns
    -------
    LegoBuild
        Placements ``frame`` and ``door`` (a joint, ``build.joint("door")``);
        the frame's minimum corner at the origin (4 x 1 studs, 18 plates).
        The door leaf's box reaches past the frame's, so place the build by
        its origin: ``build.add_raw(d, Pose(None, (x * STUD, y * STUD, z * PLATE)))``.

    Raises
    ------
    KeyError
        Unknown variant (lists them).
    ValueError
        ``hinge`` not "left"/"right".
    """
    from ..build import LegoBuild
    from ..geometry.types import Direction

    if variant not in DOOR_VARIANTS:
        raise BrickLayerKeyError(f"unknown door variant {variant!r}; variants: {', '.join(DOOR_VARIANTS)}")
    if hinge not in ("left", "right"):
        raise BrickLayerValueError(f"hinge is 'left' or 'right', got {hinge!r}")
    frame_id, door_id = DOOR_VARIANTS[variant]
    b = LegoBuild(name=f"door_{variant}")
    b.add(Element(frame_id, frame_color), (0, 0, 0), name="frame")
    d = Element(door_id, door_color)
    from ..joints import Mounting

    # the door's hinge pin is at its -X end: a left hinge takes it as it is, a right hinge turned over
    target = b.find_connector("hinge_9_on", toward=Direction.LEFT if hinge == "left" else Direction.RIGHT)
    kwargs = {"mounting": Mounting.FLIPPED} if hinge == "right" else {}
    if swing is not None and not (0 < float(swing) <= 180):
        raise BrickLayerValueError(f"swing is how far the door opens, 0 < swing <= 180 degrees, got {swing!r}; "
                         "hinge='left' or 'right' chooses the side")
    if swing is not None:
        from ..joints import MotionRange, Revolute

        motion = (MotionRange(Revolute(-float(swing)), Revolute(0)) if hinge == "left"
                  else MotionRange(Revolute(0), Revolute(float(swing))))
    sign = -1.0 if hinge == "left" else 1.0  # chosen so that a positive open_deg opens toward +Y
    b.connect(d, d.find_connector("hinge_9_in"), target, name="door", motion=motion,
              target_rotation=(0.0 if hinge == "left" else 180.0) + sign * float(open_deg), **kwargs)
    return b


def window(variant: str = "1x4x3", frame_color=Color.WHITE, pane_color=Color.TRANS_CLEAR):
    """A window frame with its glass or pane.

    Parameters
    ----------
    variant : str
        A key of :data:`WINDOW_VARIANTS`: ``"1x2x2"`` (60592 + glass 60601),
        ``"1x2x3"`` (60593 + glass 60602), ``"1x4x3"`` (3853 + pane 3854 on its hinge).
    frame_color, pane_color : colour

    Returns
    -------
    LegoBuild
        Placements ``frame`` and ``pane``; the frame's minimum corner at the grid origin.

    Raises
    ------
    KeyError
        Unknown variant (lists them).

    Notes
    -----
    Every variant is valid and one connected component. The ``"1x4x3"`` pane
    hangs on hinge connectors; the glass of ``"1x2x2"`` and ``"1x2x3"`` (60601,
    60602) sits in the frame's groove, which no connector label describes: the
    validator's "pane held in a frame" rule joins it (module notes).
    """
    from ..build import LegoBuild

    if variant not in WINDOW_VARIANTS:
        raise BrickLayerKeyError(f"unknown window variant {variant!r}; variants: {', '.join(WINDOW_VARIANTS)}")
    frame_id, pane_id, rel = WINDOW_VARIANTS[variant]
    b = LegoBuild(name=f"window_{variant}")
    fe = Element(frame_id, frame_color)
    fp = b.add(fe, (0, 0, 0), name="frame")
    pe = Element(pane_id, pane_color)
    # frame LDraw transform in BL terms: pose_frame = L2B @ T_frame @ fe.local_to_ldraw
    t_frame = np.linalg.inv(L2B) @ fp.pose.matrix @ fe.ldraw_to_local
    b.add_raw(pe, Pose.from_matrix(L2B @ t_frame @ rel @ pe.local_to_ldraw), name="pane")
    return b
