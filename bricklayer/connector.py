"""Typed connectors of elements and builds.

A :class:`Connector` is one BrickNet connector label (stud, anti-stud, pin
hole, axle, clip, bar, hinge, ball, ...) expressed in a BrickLayer frame:
the element's local frame for ``Element.connectors``, the containing build's
frame for ``Placement.connectors`` and ``LegoBuild.connectors``.

Convention (BrickNet labels, ``bricknet/_data/v1/labels.json.xz``): each
connector has a frame whose ``axis`` is the mating direction. Studs and the
anti-studs that take them both point *up* out of their top/bottom faces, so
a stud and an anti-stud mate when their positions coincide and their axes
are parallel (same sign). Hinges mate with parallel or anti-parallel axes;
axles, pins, bars and clips mate when their axis lines coincide and their
lengths overlap.
"""

from __future__ import annotations

__all__ = ["Connector", "ConnectorType", "JointKind", "CONNECTOR_TYPES", "compatible_types", "mate_kind",
           "type_matches", "ConnectorMismatchError", "connector_roles", "describe_connectors", "axis_name",
           "slide_limit_studs"]

import numpy as np

from ldraw_data.connectors import JointKind, compatible_types, mate_kind, type_matches

from .constants import AXLE_MIN_HALF, AXLE_MIN_OVERLAP, STUD
from .geometry.types import Pose, Vec3
from .errors import BrickLayerError

#: The connector type names scripts use (bricklayer-api.md, "Connector type names").
CONNECTOR_TYPES = (
    "stud", "open_stud", "antistud", "tube", "post", "axle", "axle_hole", "axle_bore", "pin", "pin_hole",
    "bar", "clip", "towball", "towball_socket",
)


class ConnectorType(str):
    """A connector type name (a ``str``): one of :data:`CONNECTOR_TYPES` or a
    mechanical ``<kind>_<subtype>[_<polarity>]`` name for other BrickNet labels."""


class ConnectorMismatchError(BrickLayerError, ValueError):
    """Two connectors that cannot mate were asked to (``connect``).

    The message names both types and the types the first one does mate with.
    """


class Connector:
    """One connector in some frame.

    Attributes
    ----------
    type : str
        Contract type name (``"stud"``, ``"antistud"``, ``"pin_hole"``, ...).
    frame : Pose
        Connector frame (LDU): origin at the mating point, ``axis`` its third
        column (mating direction), ``roll`` its first column.
    length : float, LDU
        Half-length along the axis of sliding connectors (axles, pins, bars,
        clips; BrickNet's column 5), else 0.
    joint_kind : JointKind
        The joint this connector makes with its mate.
    index : int
        Index of the connector in its element's list.
    path : tuple of Placement
        Placements from the frame's build down to the owning element; empty
        for an element's own connectors.
    """

    __slots__ = ("type", "frame", "length", "joint_kind", "index", "path")

    def __init__(self, type: str, frame: Pose, length: float, joint_kind: JointKind, index: int, path: tuple = ()):
        self.type = type
        self.frame = frame
        self.length = float(length)
        self.joint_kind = joint_kind
        self.index = int(index)
        self.path = tuple(path)

    @property
    def position(self) -> Vec3:
        """Mating point, LDU."""
        return self.frame.translation

    @property
    def axis(self) -> Vec3:
        """Unit mating direction (studs and anti-studs: up, out of the top face)."""
        m = self.frame.matrix
        return Vec3(*map(float, m[:3, 2]))

    @property
    def roll(self) -> Vec3:
        """Unit roll direction, perpendicular to :attr:`axis`."""
        m = self.frame.matrix
        return Vec3(*map(float, m[:3, 0]))

    @property
    def placement(self):
        """The flattened placement owning this connector (None for an element's own)."""
        return self.path[-1] if self.path else None

    def moved(self, pose: Pose, parent=None) -> "Connector":
        """This connector seen from a containing frame: ``pose @ frame``, with ``parent`` prepended to the path."""
        path = ((parent,) + self.path) if parent is not None else self.path
        return Connector(self.type, pose @ self.frame, self.length, self.joint_kind, self.index, path)

    def key(self) -> tuple:
        """Which connector of which part this is, its pose aside: ``(ids of the placements of`` :attr:`path`
        ``, index)``. Two views of one connector (from one build, before and after an edit) share it; the
        hash uses it and equality adds the frame. Compare connectors of one build with it."""
        return (tuple(id(p) for p in self.path), self.index)

    def __eq__(self, other) -> bool:
        return isinstance(other, Connector) and self.key() == other.key() and self.frame == other.frame

    def __hash__(self) -> int:
        return hash(self.key())

    def __repr__(self) -> str:
        p = self.position
        a = self.axis
        return (f"Connector({self.type!r}, position=({p.x:g}, {p.y:g}, {p.z:g}), "
                f"axis=({a.x:.3g}, {a.y:.3g}, {a.z:.3g}), index={self.index})")


def frames_array(connectors) -> np.ndarray:
    """(n, 4, 4) stacked frames of connectors."""
    return np.stack([c.frame.matrix for c in connectors]) if connectors else np.zeros((0, 4, 4))


# ---------------------------------------------------------------------------------------------- readable table

_AXIS_NAMES = {(1, 0, 0): "+x", (-1, 0, 0): "-x", (0, 1, 0): "+y", (0, -1, 0): "-y", (0, 0, 1): "+z", (0, 0, -1): "-z"}
#: Side names of the BrickLayer frame: +X right, +Y back, +Z up (bricklayer-api.md, "Units and frames").
_SIDE_NAMES = {"+x": "right", "-x": "left", "+y": "back", "-y": "front", "+z": "top", "-z": "bottom"}


def axis_name(v) -> str:
    """A direction as the connector tables write it: ``"+x"``, ``"-z"`` ... for a unit vector along an axis of the
    frame it is in, else its components to 2 decimals (``"(0.71, 0.00, 0.71)"``).

    Parameters
    ----------
    v : Vec3 or sequence of 3 floats
        A unit direction (a connector's ``axis``).

    Returns
    -------
    str
    """
    r = tuple(int(round(float(c))) for c in v)
    if r in _AXIS_NAMES and abs(float(np.dot(np.asarray(tuple(v), float), r)) - 1.0) < 1e-6:
        return _AXIS_NAMES[r]
    return "({:.2f}, {:.2f}, {:.2f})".format(*map(float, v))


def _side(c: Connector, centre: np.ndarray, half: np.ndarray) -> str:
    """Which side of the owner's bounding box the connector sits on (``top``, ``left``, ... or ``through x``).

    Measured along the connector's own axis: a hole, hinge or sliding connector near the box's middle
    along its axis (less than half-way to the face) passes through the part (a pin hole, a hinge
    barrel); any other connector is on the face it is nearer to.
    """
    p = np.asarray(tuple(c.position), float) - centre
    a = np.abs(np.asarray(tuple(c.axis), float))
    k = int(np.argmax(a))
    if a[k] < 0.9:  # oblique axis: the face of the largest relative offset
        d = p / np.maximum(half, 1e-9)
        k = int(np.argmax(np.abs(d)))
        return _SIDE_NAMES[("+" if d[k] > 0 else "-") + "xyz"[k]]
    d = p[k] / max(half[k], 1e-9)
    passes = c.length > 0 or "hinge" in c.type or c.type in ("pin_hole", "axle_hole", "axle_bore")
    if passes and abs(d) < 0.5:
        return "through " + "xyz"[k]
    return _SIDE_NAMES[("+" if d > 0 else "-") + "xyz"[k]]


def connector_roles(connectors, box=None) -> list[str]:
    """A role for each connector: the side it sits on and its place among same-type neighbours.

    Parameters
    ----------
    connectors : list of Connector
        Connectors of one element or build, in one frame.
    box : Box, optional
        The owner's bounding box (LDU) in that frame; by default the box around the connector positions.

    Returns
    -------
    list of str
        Same order as ``connectors``. The side is ``top``/``bottom`` for vertical mating axes (studs,
        anti-studs), else ``left``/``right``/``front``/``back`` (+X right, +Y back) or ``through x``
        for a hole or bar crossing the part. Among connectors of the same type on the same side, a grid
        of 2 x 2 or more adds ``row R col C`` (row 0 at the front, -Y; col 0 at the left, -X), a line
        adds ``end`` (first or last along the line) or ``middle``. E.g. ``"top, row 0 col 1"``,
        ``"through y, middle"``.
    """
    cons = list(connectors)
    if not cons:
        return []
    pts = np.array([tuple(c.position) for c in cons], float)
    if box is None:
        lo, hi = pts.min(axis=0), pts.max(axis=0)
    else:
        lo, hi = np.asarray(tuple(box.min), float), np.asarray(tuple(box.max), float)
    centre, half = (lo + hi) / 2, (hi - lo) / 2
    sides = [_side(c, centre, half) for c in cons]
    roles = list(sides)
    groups: dict = {}
    for i, c in enumerate(cons):
        groups.setdefault((c.type, sides[i]), []).append(i)
    for members in groups.values():
        if len(members) < 2:
            continue
        g = pts[members]
        xs, ys = np.unique(np.round(g[:, 0], 3)), np.unique(np.round(g[:, 1], 3))
        vertical = abs(float(cons[members[0]].axis.z)) > 0.9
        if vertical and len(xs) >= 2 and len(ys) >= 2:
            for i in members:
                r = int(np.searchsorted(ys, round(pts[i, 1], 3)))
                col = int(np.searchsorted(xs, round(pts[i, 0], 3)))
                roles[i] += f", row {r} col {col}"
            continue
        spread = g.max(axis=0) - g.min(axis=0)
        k = int(np.argmax(spread))
        if spread[k] < 1e-6:
            continue
        vals = np.round(g[:, k], 3)
        for i, v in zip(members, vals):
            roles[i] += ", end" if v in (vals.min(), vals.max()) else ", middle"
    return roles


def describe_connectors(content, connector_type: str | None = None) -> str:
    """A readable table of connectors: index, type, role, position (LDU), axis and joint.

    Use it to pick a connector by what it is instead of a bare ``connectors[3]``; the index column is
    :attr:`Connector.index`, so ``element.connectors[i]`` is row ``i`` of an element's table.

    Parameters
    ----------
    content : Element, Placement, LegoBuild or list of Connector
        An element (its own frame: origin at the bottom centre, +X right, +Y back, +Z up), a placement
        (the containing build's frame), a build (its free connectors, with the owning part) or connectors.
    connector_type : str, optional
        Only this type (same query groups as ``find_connectors``: ``"stud"`` also lists ``open_stud``).

    Returns
    -------
    str
        A title line and one line per connector, e.g.
        ``"  11  stud       top, row 0 col 0     (-30, -10, 24)   +z   revolute"`` for the first stud of
        a 2 x 4 brick. Roles: :func:`connector_roles`. Sliding connectors (axles, pins, bars, clips) show
        their half-length along the axis.
    """
    # Told apart by what they have (element, placement and build sit above this module, which they import):
    # an Element has a catalog spec, a Placement a content and a pose, a LegoBuild placements.
    owner_col = False
    if hasattr(content, "spec") and hasattr(content, "ldraw_id"):
        title = f"{content.ldraw_id} {content.spec.name}: connectors in the element's frame (LDU)"
        cons, box = list(content.connectors), content.bounding_box
    elif hasattr(content, "content") and hasattr(content, "pose"):
        title = f"{content!r}: connectors in the build's frame (LDU)"
        cons, box = list(content.connectors), content.bounding_box
    elif hasattr(content, "placements") and hasattr(content, "connectors"):
        title = "free connectors of the build, in its frame (LDU)"
        cons, box, owner_col = list(content.connectors), content.bounding_box, True
    else:
        cons, box = list(content), None
        title = "connectors (LDU)"
    if connector_type is not None:
        cons = [c for c in cons if type_matches(c.type, connector_type)]
    if not cons:
        return title + "\n  (none" + (f" of type {connector_type!r})" if connector_type else ")")
    if owner_col:
        # roles per owning part, in the build frame
        roles = [""] * len(cons)
        by_owner: dict = {}
        for i, c in enumerate(cons):
            by_owner.setdefault(id(c.placement), []).append(i)
        for members in by_owner.values():
            pl = cons[members[0]].placement
            pbox = pl.bounding_box if pl is not None else None
            for i, r in zip(members, connector_roles([cons[i] for i in members], pbox)):
                roles[i] = r
    else:
        roles = connector_roles(cons, box)
    tw = max(len(c.type) for c in cons)
    rw = max(len(r) for r in roles)
    lines = [title]
    for c, r in zip(cons, roles):
        p = c.position
        pos = f"({p.x:g}, {p.y:g}, {p.z:g})"
        joint = c.joint_kind.name.lower()
        if c.length:
            joint += f", slides +-{c.length:g} LDU"
        line = f"  {c.index:>3}  {c.type:<{tw}}  {r:<{rw}}  {pos:<20} {axis_name(c.axis):<5} {joint}"
        if owner_col and c.placement is not None:
            el = c.placement.content
            line += f"  on {getattr(el, 'ldraw_id', '?')}"
        lines.append(line)
    return "\n".join(lines)


def slide_limit_studs(connector: Connector, to: Connector) -> float:
    """How far (studs, either way) a sliding connector may slide along its mate and stay engaged.

    The validator's rule for sliding joints (:mod:`bricklayer.validate.connections`, after BrickNet): the
    two extents, each the connector's half-length ``length`` but at least
    :data:`~bricklayer.constants.AXLE_MIN_HALF` (4 LDU), overlap by at least
    :data:`~bricklayer.constants.AXLE_MIN_OVERLAP` (4 LDU). With the two origins ``s`` LDU apart along the
    axis that is ``|s| <= max(l1, 4) + max(l2, 4) - 4``; returned divided by ``STUD`` (20 LDU). A
    4-long axle 3705 (half-length 40 LDU) through a 1-long hole (half-length 10 LDU) may slide
    (40 + 10 - 4) / 20 = 2.3 studs either way.

    Parameters
    ----------
    connector, to : Connector
        The two mated sliding connectors (``length``: half-length along the axis, LDU).

    Returns
    -------
    float
        The slide limit in studs (>= 0).
    """
    return (max(connector.length, AXLE_MIN_HALF) + max(to.length, AXLE_MIN_HALF) - AXLE_MIN_OVERLAP) / STUD
