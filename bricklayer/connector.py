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
           "type_matches", "ConnectorMismatchError"]

import numpy as np

from ldraw_data.connectors import JointKind, compatible_types, mate_kind, type_matches

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

    def _key(self):
        return (tuple(id(p) for p in self.path), self.index)

    def __eq__(self, other) -> bool:
        return isinstance(other, Connector) and self._key() == other._key() and self.frame == other.frame

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        p = self.position
        a = self.axis
        return (f"Connector({self.type!r}, position=({p.x:g}, {p.y:g}, {p.z:g}), "
                f"axis=({a.x:.3g}, {a.y:.3g}, {a.z:.3g}), index={self.index})")


def frames_array(connectors) -> np.ndarray:
    """(n, 4, 4) stacked frames of connectors."""
    return np.stack([c.frame.matrix for c in connectors]) if connectors else np.zeros((0, 4, 4))
