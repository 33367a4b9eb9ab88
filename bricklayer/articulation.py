"""Articulation: pose a build at joint coordinates and check that its joints can move.

A joint is recorded by ``LegoBuild.connect``; declaring a
:class:`~bricklayer.joints.MotionRange` (``connect(..., motion=...)`` or
``set_motion``) makes it movable. This module gives

- :func:`posed`: a flat snapshot of a build with joints set to coordinates.
  Rigid bodies are found on the connection graph (mated connectors,
  :mod:`bricklayer.validate.connections`) after cutting the edges of the
  movable joints; every part of a sub-build placed by ``connect`` also rides
  with that joint's child (a tyre on its rim has no connector to follow).
  Further axle/pin mates of a joint's parts on the joint's own axis line that
  allow its motion (an axle turning in a second round hole, sliding through a
  second axle hole) move with the joint and are cut too, unless they hold a
  part to one side only (``_Kinematics._cut_coaxial``).
  Joints on one axis line between the same two bodies (a lid on two hinges) move as one.
  Bodies and joints must form a tree (closed loops raise ``ValueError``);
  the body holding the build's first part stays put.
- :func:`check_motion`: samples each range (zero and both limits included)
  and reports, per failing pose, collisions, floating parts and connector
  pairs that came apart.
- :func:`classify_sliding`: prismatic versus cylindrical for a sliding
  joint, by turning it 15 degrees about its axis and testing collision
  (bricklayer-api.md, "Validation semantics").

Joint motion is expressed in the parent connector's frame (the target of
``connect``): revolute turns about its axis (right hand, degrees), prismatic
slides along it (studs, 1 stud = 20 LDU), ball turns about its roll, side and
axis directions.
"""

from __future__ import annotations

__all__ = ["posed", "check_motion", "MotionReport", "PoseFailure", "classify_sliding", "joint_transform",
           "sample_range", "GROUND_TOLERANCE", "NOTHING_TO_MOVE", "unmated_joints"]

import itertools
import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import networkx as nx

from .constants import STUD
from .geometry.types import Pose, rotation_about
from .joints import Ball, Cylindrical, Fixed, Joint, JointKind, MotionRange, Prismatic, Revolute
from .errors import BrickLayerKeyError, BrickLayerTypeError, BrickLayerValueError

if TYPE_CHECKING:  # networkx is imported where used (it costs 0.1 s at import)
    import networkx as nx

log = logging.getLogger(__name__)

#: Angle of the prismatic/cylindrical test turn (bricklayer-api.md: 15 degrees).
SLIDING_TEST_DEG = 15.0
#: A mate lies on a joint's axis line when its connectors are this close to it (LDU) and this
#: parallel (|cos|): the connection graph's own sliding test (validate/connections.py, BrickNet).
_AXIS_LINE_TOL = 0.5
_AXIS_COS = 0.9
#: Mate kinds that keep mating while a joint moves by a motion of this kind along the same axis line.
_COMPATIBLE = {
    JointKind.REVOLUTE: (JointKind.REVOLUTE, JointKind.CYLINDRICAL),
    JointKind.PRISMATIC: (JointKind.PRISMATIC, JointKind.CYLINDRICAL),
    JointKind.CYLINDRICAL: (JointKind.CYLINDRICAL,),
}


# ---------------------------------------------------------------------------------------------- coordinates
def _coord_matrix(coord) -> np.ndarray:
    """(4, 4) motion of a coordinate in its joint frame (axis = local +Z), LDU."""
    m = np.eye(4)
    if isinstance(coord, Revolute):
        m[:3, :3] = rotation_about((0, 0, 1), coord.angle_deg).matrix
    elif isinstance(coord, Prismatic):
        m[2, 3] = coord.slide_studs * STUD
    elif isinstance(coord, Cylindrical):
        m[:3, :3] = rotation_about((0, 0, 1), coord.angle_deg).matrix
        m[2, 3] = coord.slide_studs * STUD
    elif isinstance(coord, Ball):
        r = (rotation_about((0, 0, 1), coord.rz_deg).matrix @ rotation_about((0, 1, 0), coord.ry_deg).matrix
             @ rotation_about((1, 0, 0), coord.rx_deg).matrix)
        m[:3, :3] = r
    elif isinstance(coord, Fixed):
        pass
    else:
        raise BrickLayerTypeError(f"a joint coordinate is Revolute, Prismatic, Cylindrical, Ball or Fixed, got {coord!r}")
    return m


_ALLOWED = {
    JointKind.REVOLUTE: (Revolute, Fixed),
    JointKind.PRISMATIC: (Prismatic, Fixed),
    JointKind.CYLINDRICAL: (Revolute, Prismatic, Cylindrical, Fixed),
    JointKind.BALL: (Ball, Revolute, Fixed),
    JointKind.FIXED: (Fixed,),
}


def joint_transform(joint: Joint, coord) -> np.ndarray:
    """World motion that moves a joint's child side to a coordinate.

    Parameters
    ----------
    joint : Joint
        Frames in the build's (root) frame.
    coord : Revolute, Prismatic, Cylindrical, Ball, Fixed or a number
        A plain number is read as the joint's natural coordinate: degrees for a revolute, cylindrical or ball
        joint (``Revolute(x)``), studs for a prismatic one (``Prismatic(x)``); so ``posed({"lid": 60})`` and a
        JSON ``pose`` work.

    Returns
    -------
    (4, 4) float
        ``F @ M(coord) @ F^-1`` with ``F`` the parent connector frame, LDU.

    Raises
    ------
    ValueError
        When the coordinate does not fit the joint kind (a stud joint cannot
        slide, a fixed joint cannot move).
    """
    if isinstance(coord, (int, float)) and not isinstance(coord, bool) and joint.kind != JointKind.FIXED:
        coord = Prismatic(float(coord)) if joint.kind == JointKind.PRISMATIC else Revolute(float(coord))
    if not isinstance(coord, _ALLOWED[joint.kind]):
        raise BrickLayerValueError(f"a {joint.kind.name.lower()} joint cannot take the coordinate {coord!r}; "
                         f"use {' or '.join(c.__name__ for c in _ALLOWED[joint.kind])}")
    f = joint.parent.frame.matrix
    return f @ _coord_matrix(coord) @ np.linalg.inv(f)


#: A posed part may reach this far (LDU) below the zero pose's lowest point before it counts as going
#: through the ground: the snap-fit clearance (``TOL.connector_position``, 0.5 LDU), so rounding in
#: the posed matrices is not a failure while a leg turned 15 degrees into the floor (tens of LDU) is.
GROUND_TOLERANCE = 0.5
#: Why a motion check of a build without movable joints fails.
NOTHING_TO_MOVE = ("nothing to move: no joint has a motion range; declare one with "
                   "connect(..., motion=MotionRange(...)) or build.set_motion(joint, MotionRange(...))")

#: Largest gap between two sampled coordinates: 5 degrees of turn, a quarter stud (5 LDU) of slide.
#: A part swept by a turning door between two samples moves at most r * 5 deg (~7 LDU at r = 80 LDU),
#: so even a 1 x 1 round plate in the swing is met (a review showed 22.5 deg steps stepping over one).
MAX_STEP = {"deg": 5.0, "studs": 0.25}


def sample_range(motion: MotionRange, samples: int = 5) -> list:
    """Coordinates sampled over a range: at least ``samples`` evenly spaced values
    per degree of freedom, and never further apart than :data:`MAX_STEP`; both
    limits and zero always included.

    Parameters
    ----------
    motion : MotionRange
    samples : int
        Minimum values per degree of freedom (at least 2: the limits).

    Raises
    ------
    ValueError
        When ``samples`` is below 2.

    Returns
    -------
    list of coordinates
        Zero first. A cylindrical range gives the grid of angles times
        slides; a ball range samples each of its three angles alone (the
        others at zero).
    """
    if int(samples) < 2:
        raise BrickLayerValueError(f"samples must be at least 2 (both limits), got {samples}")
    samples = int(samples)
    lo, hi = motion.lower, motion.upper
    fields = list(lo.__dataclass_fields__)
    cls = type(lo)

    def axis_values(a, b, step):
        n = max(samples, int(np.ceil((b - a) / step - 1e-9)) + 1)
        vals = set(np.round(np.linspace(a, b, n), 9).tolist()) | {0.0}
        return sorted(vals, key=lambda v: (v != 0, v))

    per = [axis_values(getattr(lo, f), getattr(hi, f), MAX_STEP["studs" if f.endswith("studs") else "deg"])
           for f in fields]
    out = [cls()]
    if cls is Ball:
        for i, vals in enumerate(per):
            for v in vals:
                if v:
                    args = [0.0, 0.0, 0.0]
                    args[i] = v
                    out.append(cls(*args))
    else:
        for combo in itertools.product(*per):
            if any(combo):
                out.append(cls(*combo))
    return out


# ---------------------------------------------------------------------------------------------- kinematics
def _same_joint(a: Joint, b: Joint) -> bool:
    return a.child_placement is b.child_placement and a.parent.key() == b.parent.key()


def _resolve_joint(build, key, joints: list[Joint]) -> Joint:
    if isinstance(key, Joint):
        for j in joints:
            if j is key or _same_joint(j, key):
                return j
        raise BrickLayerKeyError("that joint is not part of this build (take it from build.flattened_joints or build.joint())")
    j = build.joint(key)
    for k in joints:
        if _same_joint(k, j):
            return k
    return j


class _Kinematics:
    """Rigid bodies and the joint tree of a build (computed once per build state)."""

    def __init__(self, build, moving: list[Joint]):
        import networkx as nx  # lazily: bricklayer imports this module, few builds articulate

        from .validate.connections import connection_graph

        self.build = build
        g = connection_graph(build)
        self.flat = g.placements
        index = {tuple(id(p) for p in fp.path): i for i, fp in enumerate(self.flat)}
        rigid = nx.Graph(g.graph)
        self.joint_parts: list[tuple[int, int]] = []
        children_of = []
        for j in moving:
            pi = index.get(tuple(id(p) for p in j.parent.path))
            ci = index.get(tuple(id(p) for p in j.child.path))
            if pi is None or ci is None:
                raise BrickLayerValueError(f"{j!r}: its parts are no longer in the build")
            under = [i for i, fp in enumerate(self.flat) if any(p is j.child_placement for p in fp.path)]
            self.joint_parts.append((pi, ci))
            children_of.append(under)
        # cut the joint edges first, then tie each child placement's parts to its connector part
        for pi, ci in self.joint_parts:
            if rigid.has_edge(pi, ci):
                rigid.remove_edge(pi, ci)
        self._cut_coaxial(g, rigid, moving)
        for k, (under, (pi, ci)) in enumerate(zip(children_of, self.joint_parts)):
            inner = set()
            for m, other in enumerate(children_of):
                if m != k and set(other) < set(under):
                    inner |= set(other)
            for i in under:
                if i not in inner and i != pi:
                    rigid.add_edge(ci, i)
        comps = list(nx.connected_components(rigid))
        self.body_of = np.empty(len(self.flat), dtype=np.int64)
        for b, comp in enumerate(comps):
            for i in comp:
                self.body_of[i] = b
        self.n_bodies = len(comps)
        tree = nx.MultiGraph()
        tree.add_nodes_from(range(self.n_bodies))
        #: follower joint index -> (leader joint index, +1/-1): coaxial joints that move as one
        self.follows: dict[int, tuple[int, float]] = {}
        for k, (pi, ci) in enumerate(self.joint_parts):
            bp, bc = int(self.body_of[pi]), int(self.body_of[ci])
            lead = self._coaxial_leader(k, bp, bc, tree, moving)
            if lead is not None:
                self.follows[k] = lead
                continue
            if bp == bc:
                try:  # name the parts through which the child is held: the second connection is among them
                    path = nx.shortest_path(rigid, ci, pi)
                    via = " -> ".join(build.describe(self.flat[i]) for i in path[:6]) + (
                        " -> ..." if len(path) > 6 else "")
                except (nx.NetworkXNoPath, nx.NodeNotFound):
                    via = ""
                raise BrickLayerValueError(
                    f"closed kinematic loop: the child of joint {moving[k]!r} ({build.describe(self.flat[ci])}) "
                    f"is also held to its parent ({build.describe(self.flat[pi])}) by other connections"
                    + (f" (through {via})" if via else "") + "; a posable build must be tree-shaped (remove the "
                    "second connection, e.g. studs that mate where parts only should pass, or declare it a joint)")
            tree.add_edge(bp, bc, key=k)
        if self.n_bodies and not nx.is_forest(nx.Graph(tree)) or tree.number_of_edges() != nx.Graph(tree).number_of_edges():
            raise BrickLayerValueError("closed kinematic loop: the movable joints and rigid bodies form a cycle; "
                             "a posable build must be tree-shaped")
        self.tree = tree
        self.moving = moving

    def _coaxial_leader(self, k: int, bp: int, bc: int, tree, moving: list[Joint]):
        """``(leader index, sign)`` when joint ``k`` joins the same two bodies as an earlier joint
        about the same axis line, else None.

        Two hinges of one lid (a piano lid, a door on two hinges) are two joints between the same
        two rigid bodies; they are one motion when their axes lie on one line (origins within
        ``_AXIS_LINE_TOL`` of the other's axis line, axes parallel or anti-parallel within
        ``_AXIS_COS``) and they move alike (both turn, or both slide). ``sign`` is -1 when a
        coordinate of ``k`` is the negated coordinate of the leader (axes anti-parallel, or the
        joint recorded from the other body).
        """
        if not tree.has_edge(bp, bc):
            return None
        jk = moving[k]
        kind_k = jk.motion.kind if jk.motion is not None else jk.kind
        for _, _, lead in tree.edges(bp, keys=True):
            pl, cl = self.joint_parts[lead]
            if {int(self.body_of[pl]), int(self.body_of[cl])} != {bp, bc}:
                continue
            jl = moving[lead]
            kind_l = jl.motion.kind if jl.motion is not None else jl.kind
            if kind_k != kind_l or kind_k not in (JointKind.REVOLUTE, JointKind.PRISMATIC):
                continue
            o1, a1 = np.asarray(jl.parent.position, float), np.asarray(jl.parent.axis, float)
            o2, a2 = np.asarray(jk.parent.position, float), np.asarray(jk.parent.axis, float)
            a1, a2 = a1 / np.linalg.norm(a1), a2 / np.linalg.norm(a2)
            cos = float(a1 @ a2)
            d = o2 - o1
            if abs(cos) < _AXIS_COS or np.linalg.norm(d - (d @ a1) * a1) > _AXIS_LINE_TOL:
                continue
            sign = 1.0 if cos > 0 else -1.0
            if int(self.body_of[pl]) != bp:
                sign = -sign
            return lead, sign
        return None

    def coords_with_followers(self, coords: dict[int, object]) -> dict[int, object]:
        """Joint index -> coordinate with followers' coordinates moved to their leaders.

        Raises
        ------
        ValueError
            When a follower and its leader get different coordinates.
        """
        out = {k: c for k, c in coords.items() if k not in self.follows}
        for k, c in coords.items():
            if k not in self.follows:
                continue
            lead, sign = self.follows[k]
            want = _scaled(c, sign)
            have = out.get(lead)
            if have is not None and not _same_coord(have, want):
                raise BrickLayerValueError(
                    f"joints {self.moving[lead]!r} and {self.moving[k]!r} share an axis and move as one; "
                    f"give a coordinate for one of them (got {have!r} and {c!r})")
            out[lead] = want
        return out

    def _cut_coaxial(self, g, rigid: nx.Graph, moving: list[Joint]) -> None:
        """Cut the mates that slide or turn with a joint on its own axis line.

        An axle turning in two round holes, or sliding through two axle
        holes, is one joint with several mates: ``connect`` records one, the
        connection graph finds all. A mate belongs to joint ``j`` when it
        involves ``j``'s parent or child part, both its connectors are
        sliding ones (axle, pin, bar, clip and their holes), lie on ``j``'s
        axis line (within ``_AXIS_LINE_TOL``) parallel to it, and its own
        kind allows ``j``'s motion (a round hole turns and slides, an axle
        hole only slides; BrickNet mate kinds). So does a second hinge on
        the same axis line (two hinge labels mated there, between any two
        parts, with the sliding mates between those two parts: the clips
        and bars of a 3937/3938 hinge brick): a lid on two hinges turns on
        both. Studs are never cut this
        way: a brick on a stud under a hinged plate stays on its base.
        Such edges are cut, then put back one by one (in graph order) unless
        putting one back would join a moving joint's two sides; an axle's
        wheels (axle holes, which cannot turn) stay rigid on it.
        """
        import networkx as nx  # lazily: bricklayer imports this module, few builds articulate

        if not len(g.pairs):
            return
        from ldraw_data.connectors import connector_types, type_label

        from .validate.connections import is_sliding_type

        w = g.world_connectors
        ia = g.flat_index(g.pairs[:, 0], g.pairs[:, 1])
        ib = g.flat_index(g.pairs[:, 2], g.pairs[:, 3])
        names = connector_types()
        sliding_code = np.array([is_sliding_type(n) for n in names])
        hinge_code = np.array([type_label(n)[0] == "hinge" for n in names])
        sliding = sliding_code[w["code"][ia]] & sliding_code[w["code"][ib]]
        # a second hinge on the joint's axis line (a lid on two hinges), anywhere in the build
        hinge = hinge_code[w["code"][ia]] & hinge_code[w["code"][ib]]
        cut = []
        for j, (pi, ci) in zip(moving, self.joint_parts):
            kinds = _COMPATIBLE.get(j.motion.kind if j.motion is not None else j.kind, ())
            if not kinds:
                continue
            o = np.asarray(j.parent.position, dtype=float)
            ax = np.asarray(j.parent.axis, dtype=float)
            ax = ax / np.linalg.norm(ax)
            kind_ok = np.array([k in kinds for k in g.kinds])
            own = np.isin(g.pairs[:, 0], (pi, ci)) | np.isin(g.pairs[:, 2], (pi, ci))
            # the joint's own parts: sliding mates; a second hinge (two hinge labels) on the axis
            # line anywhere, with the sliding mates of its two parts (its clips and bars)
            second = hinge & kind_ok & ~own
            hinge_parts = np.unique(g.pairs[second][:, [0, 2]]) if second.any() else np.zeros(0, dtype=np.int64)
            ok = kind_ok & ((sliding & (own | (np.isin(g.pairs[:, 0], hinge_parts)
                                                & np.isin(g.pairs[:, 2], hinge_parts)))) | hinge)
            for idx in (ia, ib):
                d = w["pos"][idx] - o
                perp = np.linalg.norm(d - np.outer(d @ ax, ax), axis=1)
                ok &= (perp <= _AXIS_LINE_TOL) & (np.abs(w["axis"][idx] @ ax) >= _AXIS_COS)
            for a, b in g.pairs[ok][:, [0, 2]].tolist():
                if rigid.has_edge(a, b):
                    rigid.remove_edge(a, b)
                    cut.append((a, b))
        if not cut:
            return
        comp = {}
        for n, c in enumerate(nx.connected_components(rigid)):
            for i in c:
                comp[i] = n
        for a, b in cut:
            ca, cb = comp[a], comp[b]
            if ca == cb:
                rigid.add_edge(a, b)
                continue
            if any({comp[pi], comp[ci]} == {ca, cb} for pi, ci in self.joint_parts):
                continue
            rigid.add_edge(a, b)
            for i, c in comp.items():
                if c == cb:
                    comp[i] = ca

    def world_poses(self, coords: dict[int, object]) -> list[Pose]:
        """Posed world poses of every flat placement; ``coords`` maps joint index -> coordinate
        (a follower's coordinate moves its leader, :meth:`coords_with_followers`)."""
        import networkx as nx  # lazily: bricklayer imports this module, few builds articulate

        coords = self.coords_with_followers(coords)
        motion = [np.eye(4) for _ in range(self.n_bodies)]
        seen = set()
        for comp in nx.connected_components(nx.Graph(self.tree)):
            # the root of each tree: the body holding the lowest flat index
            root = min(comp, key=lambda b: int(np.flatnonzero(self.body_of == b)[0]))
            seen.add(root)
            for parent, child in nx.bfs_edges(nx.Graph(self.tree), root):
                data = self.tree.get_edge_data(parent, child)
                k = next(iter(data))
                j = self.moving[k]
                c = coords.get(k)
                t = np.eye(4) if c is None else joint_transform(j, c)
                if int(self.body_of[self.joint_parts[k][0]]) != parent:  # joint recorded the other way round
                    t = np.linalg.inv(t)
                motion[child] = motion[parent] @ t
        return [Pose.from_matrix(motion[int(self.body_of[i])] @ fp.pose.matrix) for i, fp in enumerate(self.flat)]


def _scaled(coord, sign: float):
    """A single-axis coordinate times ``sign`` (+1 or -1)."""
    if sign > 0 or isinstance(coord, Fixed):
        return coord
    return type(coord)(*[-v for v in _values(coord)])


def _same_coord(a, b) -> bool:
    return type(a) is type(b) and np.allclose(_values(a), _values(b), atol=1e-9)


def _kinematics(build, moving: list[Joint]) -> _Kinematics:
    key = "kinematics:" + ",".join(f"{id(j.child_placement)}" for j in moving)
    return build.derived_data(key, lambda: _Kinematics(build, moving))


def posed(build, positions=None):
    """A flat snapshot of a build with joints set to coordinates.

    Parameters
    ----------
    build : LegoBuild
    positions : dict, optional
        Joint (from ``build.flattened_joints`` / ``build.joint(...)``), child
        placement or child name (``"door"``, ``"car/wheel_fl"``) ->
        coordinate (``Revolute(90)``, ``Prismatic(2)``, ``Cylindrical(30,
        1)``, ``Ball(0, 20, 0)``, ``Fixed()``). Joints not given stay at zero.

    Returns
    -------
    LegoBuild
        One top-level placement per part (in ``flattened_placements`` order),
        named by the original name paths with ``/`` turned into ``.``;
        no joints. The input build is not changed.

    Raises
    ------
    ValueError
        A coordinate that does not fit its joint's kind, a closed
        kinematic loop (a moved part also held to the rest by another
        connection, or joints forming a cycle), or two coaxial joints given
        different coordinates.

    Two joints (or a joint and a second hinge found by the connection graph)
    whose axes lie on one line and that join the same two rigid bodies move
    as one, like the two hinges of a piano lid: give a coordinate for either
    (the other follows; anti-parallel axes take the negated value).
    KeyError
        A key that names no joint of the build.

    Notes
    -----
    Coordinates are not clamped to the declared ``MotionRange``; posing
    outside it is allowed (``check_motion`` stays inside). Everything held
    rigidly to a joint's child (parts on its studs, placed with ``add`` /
    ``stack`` or a fixed ``connect``) moves with the child, found through
    the connection graph: a drawbridge plate on the studs of two hinge tops
    rises with them.
    """
    positions = dict(positions or {})
    joints = build.flattened_joints
    chosen: dict[int, object] = {}
    moving = [j for j in joints if j.motion is not None]
    for key, coord in positions.items():
        j = _resolve_joint(build, key, joints)
        if not any(m is j for m in moving):
            moving.append(j)
        chosen[id(j)] = coord
    kin = _kinematics(build, moving)
    coords = {k: chosen[id(j)] for k, j in enumerate(moving) if id(j) in chosen}
    return build.flat_snapshot(kin.world_poses(coords))


# ---------------------------------------------------------------------------------------------- checking
@dataclass
class PoseFailure:
    """What went wrong at one sampled pose.

    Attributes
    ----------
    positions : dict
        Joint label (child name or ``"joint #k"``) -> coordinate.
    colliding : list of (str, str)
        Colliding part pairs, described (``name: id (part name, colour)``).
    floating : list of str
        Floating parts.
    disengaged : list of (str, str)
        Part pairs mated at the zero pose whose connectors no longer mate.
    below_ground : list of (str, float)
        Parts that reach below the ground of the zero pose (its lowest point),
        with how far, LDU (:data:`GROUND_TOLERANCE`).
    """

    positions: dict
    colliding: list = field(default_factory=list)
    floating: list = field(default_factory=list)
    disengaged: list = field(default_factory=list)
    below_ground: list = field(default_factory=list)

    def __str__(self) -> str:
        pos = ", ".join(f"{k}={v!r}" for k, v in self.positions.items()) or "zero pose"
        bits = []
        if self.colliding:
            bits.append("collides: " + "; ".join(f"{a} <-> {b}" for a, b in self.colliding))
        if self.floating:
            bits.append("floating: " + "; ".join(self.floating))
        if self.disengaged:
            bits.append("disengaged: " + "; ".join(f"{a} / {b}" for a, b in self.disengaged))
        if self.below_ground:
            bits.append("through the ground: " + "; ".join(f"{a} ({d:.1f} LDU below)" for a, d in self.below_ground))
        return f"at {pos}: " + " | ".join(bits)


@dataclass
class MotionReport:
    """Result of :func:`check_motion`.

    Attributes
    ----------
    passed : bool
        True when no sampled pose failed and there was at least one movable
        joint (a check with nothing to move fails: :data:`NOTHING_TO_MOVE`).
    failures : list of PoseFailure
        One per failing pose, in sampling order.
    samples : int
        Poses checked.
    joints : list of str
        Labels of the movable joints checked.
    truncated : bool
        True when ``max_samples`` cut the sampling short.
    sliding : dict
        Label -> ``"prismatic"`` / ``"cylindrical"`` for sliding joints
        (:func:`classify_sliding`).
    """

    passed: bool
    failures: list
    samples: int
    joints: list
    truncated: bool = False
    sliding: dict = field(default_factory=dict)

    def __bool__(self) -> bool:
        return self.passed

    def __str__(self) -> str:
        head = (f"motion check {'passed' if self.passed else 'FAILED'}: {len(self.joints)} joints, "
                f"{self.samples} poses" + (" (truncated)" if self.truncated else "")
                + (" (the zero pose, then each joint alone through its range: both limits and steps of at most "
                   f"{MAX_STEP['deg']:g} degrees or {MAX_STEP['studs']:g} stud apart)" if self.joints else ""))
        if not self.joints:
            head += f" ({NOTHING_TO_MOVE})"
        return "\n".join([head] + [f"  {f}" for f in self.failures])


def _label(build, j: Joint, k: int) -> str:
    n = build.name_of(j.child_placement)
    return n if n else f"joint #{k}"


def _problems(snap, baseline_pairs: set):
    colliding = snap.colliding_placements
    floating = snap.floating_placements
    from .validate.connections import connection_graph

    g = connection_graph(snap)
    now = {(min(a, b), max(a, b)) for a, b in g.graph.edges}
    lost = sorted(baseline_pairs - now)
    return colliding, floating, lost


def check_motion(build, *, samples: int = 5, max_samples: int = 10000) -> MotionReport:
    """Move every joint with a declared range through it and check each pose.

    Each movable joint is sampled alone (the others at zero): ``samples``
    values per degree of freedom over its range, zero and both limits
    included (:func:`sample_range`); the zero pose is checked once. At each
    pose the snapshot (:func:`posed`) is checked for collisions
    (``colliding_placements``), floating parts (``floating_placements``)
    and connector pairs that were mated at the zero pose and no longer are,
    and against the ground like a static build: the zero pose stands on its
    lowest point, and a part that reaches more than :data:`GROUND_TOLERANCE`
    (0.5 LDU) below it at another pose goes through the floor (a leg turned
    down into the ground). Problems already present at the zero pose are
    reported once, at the zero pose, and not again at the others.

    Joints whose axes lie on one line and join the same two rigid bodies (a
    lid on two hinges) move as one (:func:`posed`). A build without any
    movable joint fails: the report has 0 joints and says so
    (:data:`NOTHING_TO_MOVE`). ``str(report)`` names the joints and poses
    covered ("motion check passed: 2 joints, 25 poses").

    Parameters
    ----------
    build : LegoBuild
    samples : int
        Values per degree of freedom (>= 2).
    max_samples : int
        Stop after this many poses (``report.truncated`` is then True).

    Returns
    -------
    MotionReport

    Raises
    ------
    ValueError
        A closed kinematic loop (see :func:`posed`).
    """
    joints = build.flattened_joints
    moving = [j for j in joints if j.motion is not None]
    labels = [_label(build, j, k) for k, j in enumerate(moving)]
    kin = _kinematics(build, moving)
    from .validate.connections import connection_graph

    base = connection_graph(build)
    base_pairs = {(min(a, b), max(a, b)) for a, b in base.graph.edges}
    def describe_pair(snap, a, b):
        return (build.describe(build.flattened_placements[a]), build.describe(build.flattened_placements[b]))

    flat0 = build.flattened_placements

    poses = [(None, None)]
    for k, j in enumerate(moving):
        for c in sample_range(j.motion, samples):
            if any(_values(c)):
                poses.append((k, c))
    truncated = len(poses) > max_samples
    poses = poses[:max_samples]
    failures = []
    zero_coll: set = set()
    zero_float: set = set()
    zero_lost: set = set()
    ground = None
    for k, c in poses:
        coords = {} if k is None else {k: c}
        snap = build.flat_snapshot(kin.world_poses(coords))
        sflat = snap.flattened_placements
        pos_index = {id(fp.path[-1]): i for i, fp in enumerate(sflat)}
        colliding, floating, lost = _problems(snap, base_pairs)
        low = _lowest_points(snap)
        if ground is None:  # the zero pose stands on the ground: its lowest point
            ground = float(np.nanmin(low)) if np.isfinite(low).any() else 0.0
        below = [(i, ground - float(z)) for i, z in enumerate(low.tolist())
                 if np.isfinite(z) and z < ground - GROUND_TOLERANCE]
        coll_idx = {tuple(sorted((pos_index[id(a.path[-1])], pos_index[id(b.path[-1])]))) for a, b in colliding}
        float_idx = {pos_index[id(f.path[-1])] for f in floating}
        lost_idx = set(lost)
        if k is None:
            zero_coll, zero_float, zero_lost = coll_idx, float_idx, lost_idx
        else:
            coll_idx -= zero_coll
            float_idx -= zero_float
            lost_idx -= zero_lost
        if coll_idx or float_idx or lost_idx or below:
            failures.append(PoseFailure(
                {} if k is None else {labels[k]: c},
                [describe_pair(snap, a, b) for a, b in sorted(coll_idx)],
                [build.describe(flat0[i]) for i in sorted(float_idx)],
                [describe_pair(snap, a, b) for a, b in sorted(lost_idx)],
                [(build.describe(flat0[i]), round(d, 1)) for i, d in below]))
    sliding = {}
    for k, j in enumerate(moving):
        if j.kind in (JointKind.PRISMATIC, JointKind.CYLINDRICAL):
            try:
                sliding[labels[k]] = classify_sliding(build, j).name.lower()
            except ValueError:
                pass
    report = MotionReport(not failures and bool(moving), failures, len(poses), labels, truncated, sliding)
    log.info("%s", report)
    return report


def unmated_joints(build) -> list[tuple[Joint, str]]:
    """Joints recorded by ``connect()`` whose two connectors the validator does not see as mated.

    A joint records that two parts were mated; the validator joins parts only through connectors that mate
    at their current poses (:mod:`bricklayer.validate.connections`). When the two disagree (a part slid off
    the end of an axle, a joint kept after its parent was replaced) the child part is held by nothing the
    validator knows, and the reason belongs in the report.

    Parameters
    ----------
    build : LegoBuild

    Returns
    -------
    list of (Joint, str)
        Each such joint (``build.flattened_joints``, root frame) with a sentence saying why: for a sliding
        joint the slide (studs) and the range that stays engaged (:func:`bricklayer.connector.slide_limit_studs`),
        else the distance (LDU) between the two connector origins. Joints whose parts are no longer in the
        build are skipped.
    """
    from .connector import slide_limit_studs
    from .validate.connections import connection_graph, is_sliding_type

    from .validate._world import world_arrays

    def records(b, prefix: tuple):
        """(placements from ``build`` down to ``b``, joint of ``b``) of every joint, in the order of
        ``build.flattened_joints``, without moving the connectors into ``build``'s frame (done below only
        for the joints that do not mate)."""
        for j in b._joints:
            yield prefix, j
        for pl in b._placements:
            if getattr(pl.content, "_joints", None) is not None:  # a sub-build (not importing build: no cycle)
                yield from records(pl.content, prefix + (pl,))

    joints = list(records(build, ()))
    if not joints:
        return []

    g = connection_graph(build)
    flat = g.placements
    path_ids = world_arrays(build).path_ids  # tuple(map(id, fp.path)) of each flattened placement

    def path_index(start: int = 0, into: dict | None = None) -> tuple:
        """(placements seen, path of Placement ids -> flat index), extended after append-only edits."""
        into = {} if into is None else into
        into.update(zip(path_ids[start:], range(start, len(flat))))
        return len(flat), into

    _, index = build.derived_data("articulation.path_index", path_index,
                                  lambda old, k: None if old[0] > len(flat) else path_index(old[0], old[1]))
    found = []
    for prefix, j in joints:
        head = tuple(id(p) for p in prefix)
        pi = index.get(head + tuple(id(p) for p in j.parent.path))
        ci = index.get(head + tuple(id(p) for p in j.child.path))
        if pi is not None and ci is not None:
            found.append((prefix, j, pi, ci))
    # mated or held (an edge of the part graph): one binary search for all joints, no networkx graph
    joined = g.mated_pairs(np.array([(pi, ci) for _, _, pi, ci in found], dtype=np.int64).reshape(-1, 2)).tolist()
    out = []
    for (prefix, j, pi, ci), ok in zip(found, joined):
        if ok:
            continue
        parent, child = j.parent, j.child
        for pl in reversed(prefix):  # into this build's frame, as build.flattened_joints gives it
            parent, child = parent.moved(pl.pose, pl), child.moved(pl.pose, pl)
        j = Joint(parent, child, j.child_placement, j.kind, j.motion)
        d = np.asarray(tuple(child.position), float) - np.asarray(tuple(parent.position), float)
        who = f"{build.describe(g.placements[ci])} on {build.describe(g.placements[pi])}"
        if is_sliding_type(parent.type) and is_sliding_type(child.type):
            along = float(d @ np.asarray(tuple(parent.axis), float)) / STUD
            limit = slide_limit_studs(child, parent)
            out.append((j, f"the joint of {who} is recorded, but its {child.type} sits {along:+g} studs along the "
                           f"{parent.type}, past the end of the slide (engaged from {-limit:g} to {limit:g} "
                           "studs): connect() it again with target_position in that range, or use a longer axle"))
        else:
            out.append((j, f"the joint of {who} is recorded, but its {child.type} and {parent.type} are "
                           f"{float(np.linalg.norm(d)):.1f} LDU apart and no longer mate: connect() it again"))
    return out


def _lowest_points(snap) -> np.ndarray:
    """(n,) lowest world z (LDU) of each part's surface in a posed snapshot (NaN: no geometry),
    from the collision engine that ``colliding_placements`` already built for it."""
    from .validate.collisions import collision_engine

    e = collision_engine(snap)
    return np.where(e.has_shape, e.min_z, np.nan)


def _values(c) -> list:
    return [getattr(c, f) for f in getattr(c, "__dataclass_fields__", ())]


def classify_sliding(build, joint) -> JointKind:
    """Prismatic or cylindrical: can the joint's child turn 15 degrees about the axis without collision?

    Parameters
    ----------
    build : LegoBuild
    joint : Joint or str
        A sliding joint (axle, pin, bar, clip) or the name of its child.

    Returns
    -------
    JointKind
        ``PRISMATIC`` when the turned pose has an intersection of inset
        meshes (press fits of mated parts included) that the zero pose does
        not have, else ``CYLINDRICAL``.

    Raises
    ------
    ValueError
        When the joint is not a sliding one.

    Notes
    -----
    Rule from bricklayer-api.md ("Validation semantics"): a joint that
    cannot turn 15 degrees about its axis without collision is prismatic.
    An axle in a cross hole turns into the hole's arms (about 1.5 LDU at
    15 degrees, so press fits count here: ``colliding_placements`` excuses
    up to 2 LDU between mated axle parts); an axle in a round hole turns
    freely. The turned part's other neighbours count too: a drawer brick
    turned on its rail may also hit its track.
    """
    joints = build.flattened_joints
    j = _resolve_joint(build, joint, joints)
    if j.kind not in (JointKind.PRISMATIC, JointKind.CYLINDRICAL):
        raise BrickLayerValueError(f"classify_sliding() is for sliding joints (axle, pin, bar, clip); this one is "
                         f"{j.kind.name.lower()}")
    moving = [m for m in joints if m.motion is not None]
    if not any(m is j for m in moving):
        moving.append(j)
    kin = _kinematics(build, moving)
    k = next(i for i, m in enumerate(moving) if m is j)
    # turn about the axis: a Cylindrical coordinate whatever the table's kind
    saved_kind = j.kind
    try:
        j.kind = JointKind.CYLINDRICAL
        snap = build.flat_snapshot(kin.world_poses({k: Cylindrical(SLIDING_TEST_DEG, 0)}))
    finally:
        j.kind = saved_kind
    zero = build.flat_snapshot(kin.world_poses({}))

    def pairs(s):
        # every intersection of the inset meshes, press fits of mated parts included: a cross axle
        # turned 15 degrees in a cross hole overlaps its arms by about 1.5 LDU, within the 2 LDU
        # press-fit allowance that colliding_placements grants mated axles
        from .validate.collisions import collision_engine

        e = collision_engine(s)
        both = [np.asarray(e.reported()).reshape(-1, 2), np.asarray(e.press_fits()).reshape(-1, 2)]
        return {(min(a, b), max(a, b)) for a, b in np.concatenate(both).tolist()}

    new = pairs(snap) - pairs(zero)
    return JointKind.PRISMATIC if new else JointKind.CYLINDRICAL

