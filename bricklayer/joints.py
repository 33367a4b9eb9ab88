"""Joints and articulation value types.

A :class:`Joint` is recorded by ``LegoBuild.connect``: which connector of the
new content mated with which target connector, the joint kind (from the
BrickNet mating tables, see :func:`ldraw_data.connectors.mate_kind`) and,
optionally, a :class:`MotionRange` saying how far it may move.
Joint coordinates are the values :class:`Revolute`, :class:`Prismatic`,
:class:`Cylindrical`, :class:`Ball` and :class:`Fixed`.
"""

from __future__ import annotations

__all__ = ["Joint", "JointKind", "MotionRange", "Mounting", "Revolute", "Prismatic", "Cylindrical", "Ball", "Fixed"]

import enum
from dataclasses import dataclass

from ldraw_data.connectors import JointKind
from .errors import BrickLayerValueError


@dataclass(frozen=True)
class Fixed:
    """Coordinate of a fixed joint (no freedom)."""

    kind = JointKind.FIXED


@dataclass(frozen=True)
class Revolute:
    """Coordinate of a revolute joint: rotation about the connector axis.

    Parameters
    ----------
    angle_deg : float
        Degrees, counter-clockwise looking down the axis.
    """

    angle_deg: float = 0.0
    kind = JointKind.REVOLUTE


@dataclass(frozen=True)
class Prismatic:
    """Coordinate of a prismatic joint: slide along the connector axis.

    Parameters
    ----------
    slide_studs : float
        Slide in studs (1 stud = 20 LDU) along the axis.
    """

    slide_studs: float = 0.0
    kind = JointKind.PRISMATIC


@dataclass(frozen=True)
class Cylindrical:
    """Coordinate of a cylindrical joint: rotation about and slide along the axis.

    Parameters
    ----------
    angle_deg : float
    slide_studs : float
    """

    angle_deg: float = 0.0
    slide_studs: float = 0.0
    kind = JointKind.CYLINDRICAL


@dataclass(frozen=True)
class Ball:
    """Coordinate of a ball joint: rotations about the connector's roll, side and axis directions.

    Parameters
    ----------
    rx_deg, ry_deg, rz_deg : float
        Degrees, applied in the order z, y, x (intrinsic) in the socket frame.
    """

    rx_deg: float = 0.0
    ry_deg: float = 0.0
    rz_deg: float = 0.0
    kind = JointKind.BALL


_COORD = {JointKind.FIXED: Fixed, JointKind.REVOLUTE: Revolute, JointKind.PRISMATIC: Prismatic,
          JointKind.CYLINDRICAL: Cylindrical, JointKind.BALL: Ball}


@dataclass(frozen=True)
class MotionRange:
    """Allowed range of a joint coordinate.

    Parameters
    ----------
    lower, upper : Revolute, Prismatic, Cylindrical or Ball
        Two values of the same kind; the range must contain zero, e.g.
        ``MotionRange(Revolute(-45), Revolute(90))``. A Revolute range on a cylindrical joint
        (an axle or pin turning in a hole) turns it without sliding; a Prismatic range slides it
        without turning; Cylindrical gives both.

    Raises
    ------
    ValueError
        When the kinds differ or zero is outside the range.
    """

    lower: object
    upper: object

    def __post_init__(self):
        if type(self.lower) is not type(self.upper):
            raise BrickLayerValueError(f"MotionRange needs two values of one kind, got {self.lower!r} and {self.upper!r}")
        for lo, hi in zip(_values(self.lower), _values(self.upper)):
            if not (lo <= 0 <= hi):
                raise BrickLayerValueError(f"MotionRange must contain zero and have lower <= upper: {self.lower!r}..{self.upper!r}")

    @property
    def kind(self) -> JointKind:
        """Joint kind of the coordinates."""
        return self.lower.kind


def _values(c) -> tuple:
    return tuple(getattr(c, f) for f in c.__dataclass_fields__)


class Mounting(enum.Enum):
    """How a connector meets its mate along the axis.

    ``DEFAULT``: axes as the mating tables want them (studs and anti-studs
    parallel). ``FLIPPED``: the new part turned over (axis reversed) — for
    hinges, axles, pins, bars and clips, which work either way round.
    """

    DEFAULT = "default"
    FLIPPED = "flipped"


class Joint:
    """A connection recorded by ``connect``.

    Attributes
    ----------
    parent : Connector
        The target connector (in the build's frame at the time of connecting).
    child : Connector
        The new content's connector, as placed (build frame).
    child_placement : Placement
        The placement ``connect`` created.
    kind : JointKind
    motion : MotionRange or None
        None for a static joint.
    """

    __slots__ = ("parent", "child", "child_placement", "kind", "motion")

    def __init__(self, parent, child, child_placement, kind: JointKind, motion: MotionRange | None = None):
        self.parent = parent
        self.child = child
        self.child_placement = child_placement
        self.kind = kind
        self.motion = motion

    @property
    def is_static(self) -> bool:
        """True when no motion range was declared."""
        return self.motion is None

    def __repr__(self) -> str:
        return f"Joint({self.kind.name}, {self.parent.type}->{self.child.type}, motion={self.motion!r})"
