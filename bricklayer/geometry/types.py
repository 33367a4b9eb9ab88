"""Value types: vectors, positions, rotations, poses, directions and anchors.

BrickLayer frame: +X right (studs), +Y back (studs), +Z up (bricks); lengths
in LDU. Values are immutable; wherever a :class:`Vec3` or :class:`Position`
is expected a 3-tuple is accepted and converted once on entry.
"""

from __future__ import annotations

__all__ = [
    "Vec3",
    "Position",
    "Mat3",
    "Pose",
    "Rotation",
    "rotation_about",
    "Direction",
    "Anchor",
    "Box",
    "as_vec3",
    "as_position",
]

import enum
import math
from dataclasses import dataclass
from typing import Iterable, NamedTuple, Union

import numpy as np

from ..constants import PLATE, STUD, TOL
from ..errors import BrickLayerValueError


class Vec3(NamedTuple):
    """A 3-vector in LDU (BrickLayer frame).

    Supports ``+``, ``-``, scalar ``*`` and ``/``; ``np.asarray(v)`` gives a (3,) array.
    """

    x: float
    y: float
    z: float

    def __add__(self, o):  # type: ignore[override]
        o = as_vec3(o)
        return Vec3(self.x + o.x, self.y + o.y, self.z + o.z)

    def __sub__(self, o):
        o = as_vec3(o)
        return Vec3(self.x - o.x, self.y - o.y, self.z - o.z)

    def __mul__(self, k):  # type: ignore[override]
        return Vec3(self.x * k, self.y * k, self.z * k)

    __rmul__ = __mul__

    def __truediv__(self, k):
        return Vec3(self.x / k, self.y / k, self.z / k)

    def __neg__(self):
        return Vec3(-self.x, -self.y, -self.z)

    def dot(self, o) -> float:
        """Dot product."""
        o = as_vec3(o)
        return self.x * o.x + self.y * o.y + self.z * o.z

    @property
    def length(self) -> float:
        """Euclidean norm, LDU."""
        return math.sqrt(self.dot(self))

    def normalized(self) -> "Vec3":
        """Unit vector (raises ValueError for the zero vector)."""
        n = self.length
        if n == 0:
            raise BrickLayerValueError("cannot normalize the zero vector")
        return self / n

    def __repr__(self) -> str:
        return f"Vec3({_fmt(self.x)}, {_fmt(self.y)}, {_fmt(self.z)})"


def _fmt(v: float) -> str:
    r = round(v, 6)
    return str(int(r)) if r == int(r) else repr(r)


class Position(NamedTuple):
    """A grid position: ``x``, ``y`` in whole studs, ``z`` in whole plates.

    ``Position(1, 2, 3).to_ldu()`` is ``Vec3(20, 40, 24)``.
    """

    x: int
    y: int
    z: int

    def to_ldu(self) -> Vec3:
        """The position in LDU (x, y times :data:`STUD`; z times :data:`PLATE`)."""
        return Vec3(self.x * STUD, self.y * STUD, self.z * PLATE)

    @staticmethod
    def from_ldu(v) -> "Position":
        """Nearest grid position of an LDU point.

        Raises
        ------
        ValueError
            When ``v`` is more than ``TOL.grid`` off the grid.
        """
        v = as_vec3(v)
        g = (v.x / STUD, v.y / STUD, v.z / PLATE)
        r = tuple(round(c) for c in g)
        if max(abs(a - b) * s for a, b, s in zip(g, r, (STUD, STUD, PLATE))) > TOL.grid:
            raise BrickLayerValueError(f"{v} LDU is not on the stud/plate grid")
        return Position(*r)


VecLike = Union[Vec3, tuple, list, np.ndarray]


def as_vec3(v: VecLike) -> Vec3:
    """Coerce a 3-sequence to :class:`Vec3` (floats, LDU).

    Raises
    ------
    ValueError
        When ``v`` does not have exactly three finite numbers.
    """
    if isinstance(v, Vec3):
        return v
    try:
        a = [float(c) for c in v]
    except TypeError as exc:
        raise BrickLayerValueError(f"expected 3 numbers, got {v!r}") from exc
    if len(a) != 3 or not all(math.isfinite(c) for c in a):
        raise BrickLayerValueError(f"expected 3 finite numbers, got {v!r}")
    return Vec3(*a)


def as_position(v) -> Position:
    """Coerce a 3-sequence of whole numbers to :class:`Position`.

    Raises
    ------
    ValueError
        When a coordinate is not a whole number ("off-grid"): grid positions
        are whole studs (x, y) and whole plates (z). Use ``add_raw`` for
        arbitrary poses.
    """
    if isinstance(v, Position):
        return v
    try:
        vals = list(v)
    except TypeError:
        raise BrickLayerValueError(f"a grid position is (x studs, y studs, z plates), got {v!r}") from None
    if len(vals) != 3:
        raise BrickLayerValueError(f"a grid position needs 3 numbers (x studs, y studs, z plates), got {v!r}")
    out = []
    for c in vals:
        if isinstance(c, (bool, np.bool_)):
            raise BrickLayerValueError(f"a grid position holds whole numbers, got {tuple(vals)!r}")
        if isinstance(c, (int, np.integer)):
            out.append(int(c))
        elif isinstance(c, float) and c.is_integer():
            out.append(int(c))
        else:
            raise BrickLayerValueError(
                f"position {tuple(vals)} is off-grid: x/y must be whole studs and z whole plates "
                "(1 brick = 3 plates); use add_raw() for a free pose"
            )
    return Position(*out)


class Mat3:
    """An immutable 3x3 matrix (rotation in practice).

    Parameters
    ----------
    m : (3, 3) array-like
    """

    __slots__ = ("_m",)

    def __init__(self, m):
        a = np.array(m, dtype=np.float64).reshape(3, 3)
        a.flags.writeable = False
        self._m = a

    @property
    def matrix(self) -> np.ndarray:
        """(3, 3) float64, read-only."""
        return self._m

    def __array__(self, dtype=None, copy=None):
        return self._m if dtype is None else self._m.astype(dtype)

    def __matmul__(self, o):
        if isinstance(o, Mat3):
            return Mat3(self._m @ o._m)
        return Vec3(*(self._m @ np.asarray(as_vec3(o))))

    def __eq__(self, o) -> bool:
        return isinstance(o, Mat3) and bool(np.allclose(self._m, o._m, atol=1e-9))

    def __hash__(self) -> int:
        return hash(tuple(np.round(self._m, 6).ravel()))

    def transpose(self) -> "Mat3":
        """The transpose (the inverse for a rotation)."""
        return Mat3(self._m.T)

    def __repr__(self) -> str:
        return "Mat3(" + repr(np.round(self._m, 6).tolist()) + ")"


def rotation_about(axis: VecLike, degrees: float) -> Mat3:
    """Right-handed rotation about an axis (Rodrigues' formula).

    Parameters
    ----------
    axis : (3,) LDU vector or Direction
        Axis; any non-zero length.
    degrees : float
        Angle, counter-clockwise looking down the axis toward the origin.

    Returns
    -------
    Mat3
    """
    if isinstance(axis, Direction):
        axis = axis.vector
    a = np.asarray(as_vec3(axis).normalized())
    t = math.radians(degrees)
    c, s = math.cos(t), math.sin(t)
    x, y, z = a
    k = np.array([[0, -z, y], [z, 0, -x], [-y, x, 0]])
    r = np.eye(3) * c + s * k + (1 - c) * np.outer(a, a)
    r[np.abs(r) < 1e-12] = 0.0
    # exact quarter turns stay exact
    rr = np.round(r)
    if np.allclose(r, rr, atol=1e-12):
        r = rr + 0.0
    return Mat3(r)


class Rotation(enum.Enum):
    """Quarter turns about +Z (counter-clockwise seen from above).

    ``Rotation.DEG_90.matrix`` is a :class:`Mat3`; any other rotation is made
    with :func:`rotation_about`.
    """

    DEG_0 = 0
    DEG_90 = 90
    DEG_180 = 180
    DEG_270 = 270

    @property
    def matrix(self) -> Mat3:
        """The rotation matrix."""
        return rotation_about((0, 0, 1), self.value)

    @property
    def degrees(self) -> int:
        """Angle about +Z in degrees."""
        return self.value

    def __matmul__(self, o):
        return self.matrix @ o


class Direction(enum.Enum):
    """Axis directions of the BrickLayer frame.

    RIGHT = +X, LEFT = -X, BACK = +Y, FRONT = -Y, UP = +Z, DOWN = -Z.
    """

    RIGHT = (1, 0, 0)
    LEFT = (-1, 0, 0)
    BACK = (0, 1, 0)
    FRONT = (0, -1, 0)
    UP = (0, 0, 1)
    DOWN = (0, 0, -1)

    @property
    def vector(self) -> Vec3:
        """Unit vector."""
        return Vec3(*map(float, self.value))


class Anchor(enum.Enum):
    """Points of a footprint (the bottom face of an alignment box).

    Values are (fx, fy) fractions from the minimum corner: ``FRONT_RIGHT`` is
    the minimum corner (0, 0) and the default everywhere, ``BACK_LEFT`` the
    maximum corner (1, 1), ``CENTER`` (0.5, 0.5), edge midpoints between.
    The names are the model's own sides, as a minifig standing in it facing
    out of its front sees them: FRONT is -Y (LDraw -Z, toward the viewer of
    LDraw's front view) and RIGHT is -X (LDraw -X), so the model's right is
    the left of someone looking at its front, and Anchor RIGHT is the
    opposite side from ``Direction.RIGHT`` (+X). The point is always on the
    bottom face: minimum Z, which is LDraw's largest Y (LDraw: -Y is up;
    BrickLayer (x, y, z) is LDraw (x, -z, y), ``geometry.ldraw_frame``).

    Each anchor in both frames, with the numbers for brick 2 x 4 (3001) added
    at (0, 0, 0): alignment box x 0..80, y 0..40, z 0..24 LDU, which is LDraw
    X 0..80, Y -24..0, Z 0..40 (written as ``1 c 40 -24 20 ... 3001.dat``)::

        anchor       (fx, fy)    BrickLayer corner     LDraw corner              3001 point, LDraw (X, Y, Z)
        FRONT_RIGHT  (0, 0)      min x, min y, min z   min X, max Y, min Z       (0, 0, 0)
        FRONT_LEFT   (1, 0)      max x, min y, min z   max X, max Y, min Z       (80, 0, 0)
        BACK_RIGHT   (0, 1)      min x, max y, min z   min X, max Y, max Z       (0, 0, 40)
        BACK_LEFT    (1, 1)      max x, max y, min z   max X, max Y, max Z       (80, 0, 40)
        FRONT        (0.5, 0)    mid x, min y, min z   mid X, max Y, min Z       (40, 0, 0)
        BACK         (0.5, 1)    mid x, max y, min z   mid X, max Y, max Z       (40, 0, 40)
        RIGHT        (0, 0.5)    min x, mid y, min z   min X, max Y, mid Z       (0, 0, 20)
        LEFT         (1, 0.5)    max x, mid y, min z   max X, max Y, mid Z       (80, 0, 20)
        CENTER       (0.5, 0.5)  mid x, mid y, min z   mid X, max Y, mid Z       (40, 0, 20)

    In BrickLayer coordinates the same 3001 points are (x, y, 0): FRONT_RIGHT
    (0, 0, 0), BACK_LEFT (80, 40, 0), CENTER (40, 20, 0). ``add(...,
    anchor=A)`` puts point A of the content at ``position``.
    """

    FRONT_RIGHT = (0.0, 0.0)
    FRONT_LEFT = (1.0, 0.0)
    BACK_RIGHT = (0.0, 1.0)
    BACK_LEFT = (1.0, 1.0)
    FRONT = (0.5, 0.0)
    BACK = (0.5, 1.0)
    RIGHT = (0.0, 0.5)
    LEFT = (1.0, 0.5)
    CENTER = (0.5, 0.5)

    def point(self, box: "Box") -> Vec3:
        """The anchor's point on the bottom face of ``box`` (a :class:`Box` in the BrickLayer frame, LDU):
        ``(min.x + fx * size.x, min.y + fy * size.y, min.z)``, a Vec3 in the same frame, LDU."""
        fx, fy = self.value
        return Vec3(box.min.x + fx * (box.max.x - box.min.x), box.min.y + fy * (box.max.y - box.min.y), box.min.z)


@dataclass(frozen=True)
class Box:
    """An axis-aligned box in LDU.

    Attributes
    ----------
    min, max : Vec3
        Minimum and maximum corners.

    A box unpacks as ``(min, max)``: ``lo, hi = part.bounding_box``.
    """

    min: Vec3
    max: Vec3

    def __iter__(self):
        """Iterate ``min`` then ``max`` (so ``lo, hi = box`` works)."""
        return iter((self.min, self.max))

    @property
    def size(self) -> Vec3:
        """(width, depth, height), LDU."""
        return self.max - self.min

    @property
    def center(self) -> Vec3:
        """Centre point, LDU."""
        return (self.min + self.max) / 2

    @property
    def width(self) -> float:
        """Extent along X, LDU."""
        return self.max.x - self.min.x

    @property
    def depth(self) -> float:
        """Extent along Y, LDU."""
        return self.max.y - self.min.y

    @property
    def height(self) -> float:
        """Extent along Z, LDU."""
        return self.max.z - self.min.z

    def transformed(self, pose: "Pose") -> "Box":
        """Axis-aligned box around this box moved by ``pose``: the box around its 8 corners moved (the
        arithmetic of ``Box.around(pose.apply(self.corners()))``, without the per-call numpy wrappers;
        a report describes thousands of placements by their moved alignment boxes)."""
        m = pose._m
        w = self.corners() @ m[:3, :3].T + m[:3, 3]
        return Box(Vec3(*_MIN_REDUCE(w, axis=0).tolist()), Vec3(*_MAX_REDUCE(w, axis=0).tolist()))

    def corners(self) -> np.ndarray:
        """(8, 3) float corners."""
        return np.where(_CORNER_IS_MAX, np.array(self.max, dtype=np.float64), np.array(self.min, dtype=np.float64))

    @staticmethod
    def around(points) -> "Box":
        """Smallest box holding an (n, 3) array of points (n >= 1)."""
        p = np.asarray(points, dtype=np.float64).reshape(-1, 3)
        lo, hi = _MIN_REDUCE(p, axis=0), _MAX_REDUCE(p, axis=0)
        return Box(Vec3(*lo.tolist()), Vec3(*hi.tolist()))

    def union(self, other: "Box") -> "Box":
        """Box around both."""
        return Box(
            Vec3(min(self.min.x, other.min.x), min(self.min.y, other.min.y), min(self.min.z, other.min.z)),
            Vec3(max(self.max.x, other.max.x), max(self.max.y, other.max.y), max(self.max.z, other.max.z)),
        )

    def __repr__(self) -> str:
        return f"Box(min={self.min!r}, max={self.max!r})"


#: (8, 3) bool: which corners of a :class:`Box` take the maximum along each axis (x slowest, z fastest).
_CORNER_IS_MAX = np.array([[i, j, k] for i in (0, 1) for j in (0, 1) for k in (0, 1)]) != 0
_MIN_REDUCE, _MAX_REDUCE = np.minimum.reduce, np.maximum.reduce


class Pose:
    """A rigid placement: rotation then translation (LDU, BrickLayer frame).

    Parameters
    ----------
    rotation : Mat3, Rotation or (3, 3) array-like, optional
        Default identity.
    translation : (3,) LDU, optional
        Default origin.

    Notes
    -----
    ``Pose.matrix`` is the (4, 4) homogeneous matrix ``[[R, t], [0, 1]]``;
    ``a @ b`` composes (apply ``b`` first). Mirrored rotations (det -1, as LDraw
    files draw flexible hoses) are allowed.
    """

    __slots__ = ("_m",)

    def __init__(self, rotation=None, translation=(0.0, 0.0, 0.0)):
        m = np.eye(4)
        if rotation is not None:
            if isinstance(rotation, Rotation):
                rotation = rotation.matrix
            m[:3, :3] = np.asarray(rotation, dtype=np.float64).reshape(3, 3)
        m[:3, 3] = np.asarray(as_vec3(translation))
        m.flags.writeable = False
        self._m = m

    @staticmethod
    def from_matrix(m) -> "Pose":
        """Pose of a (4, 4) homogeneous matrix (the last row is taken as 0 0 0 1).

        Raises
        ------
        ValueError
            When ``m`` is not (4, 4) or holds non-finite numbers.
        """
        a = np.array(m, dtype=np.float64)
        if a.shape != (4, 4) or not np.isfinite(a).all():  # the method: no numpy dispatch per call
            raise BrickLayerValueError(f"a pose matrix is a finite (4, 4) array, got shape {a.shape}")
        a[3] = (0.0, 0.0, 0.0, 1.0)
        a.flags.writeable = False
        p = object.__new__(Pose)
        p._m = a
        return p

    @property
    def matrix(self) -> np.ndarray:
        """(4, 4) float64, read-only."""
        return self._m

    @property
    def rotation(self) -> Mat3:
        """The rotation part."""
        return Mat3(self._m[:3, :3])

    @property
    def translation(self) -> Vec3:
        """The translation part, LDU."""
        return Vec3(*map(float, self._m[:3, 3]))

    @staticmethod
    def _trusted(m: np.ndarray) -> "Pose":
        """Wrap a (4, 4) matrix known to be a valid pose (a product of poses): no checks, no copy."""
        m.flags.writeable = False
        p = object.__new__(Pose)
        p._m = m
        return p

    def __matmul__(self, o):
        if isinstance(o, Pose):
            return Pose._trusted(self._m @ o._m)
        return self.apply_point(o)

    def apply_point(self, p) -> Vec3:
        """Transform one point (LDU)."""
        return Vec3(*map(float, self._m[:3, :3] @ np.asarray(as_vec3(p)) + self._m[:3, 3]))

    def apply_vector(self, v) -> Vec3:
        """Rotate one direction (no translation)."""
        return Vec3(*map(float, self._m[:3, :3] @ np.asarray(as_vec3(v))))

    def apply(self, points) -> np.ndarray:
        """Transform an (n, 3) array of points; returns (n, 3)."""
        p = np.asarray(points, dtype=np.float64).reshape(-1, 3)
        return p @ self._m[:3, :3].T + self._m[:3, 3]

    def inverse(self) -> "Pose":
        """The inverse pose."""
        return Pose.from_matrix(np.linalg.inv(self._m))

    def __eq__(self, o) -> bool:
        return isinstance(o, Pose) and bool(np.allclose(self._m, o._m, atol=1e-9))

    def __hash__(self) -> int:
        return hash(tuple(np.round(self._m, 6).ravel()))

    def __repr__(self) -> str:
        r = np.round(self._m[:3, :3], 6)
        rot = "identity" if np.allclose(r, np.eye(3)) else repr(r.tolist())
        return f"Pose(rotation={rot}, translation={self.translation!r})"


def iter_vec3(points: Iterable) -> list[Vec3]:
    """Coerce an iterable of 3-sequences to a list of :class:`Vec3`."""
    return [as_vec3(p) for p in points]
