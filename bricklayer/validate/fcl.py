"""Narrow phase, FCL side (validator stage 3): collision shapes, their FCL BVHs, one FCL test.

Consumes part keys (:func:`._world.part_key`), the MPD-embedded document of a build and the inset
(LDU) of :data:`~bricklayer.constants.TOL`; produces :class:`ShapeStore` (per process: the inset
collision shape of each part and its ``fcl.BVHModel`` per (inset, mirrored), the radial insets of press
fits) and :func:`collide` (do two BVHs at a relative pose intersect?). Used by
:mod:`.collisions` (the per-build engine), :mod:`.catalog_checks` (mirrored parts) and the planner.
"""

from __future__ import annotations

__all__ = ["ShapeStore", "SHAPE_STORE", "collide", "inv_rigid"]

import logging
import threading

import fcl
import numpy as np

from ldraw_data.collision import collision_shape
from ldraw_data.errors import PartNotFoundError

from .press_fit import AXIAL_EXTRA, JOINT_RADIUS

log = logging.getLogger(__name__)

_MIRROR = np.diag([-1.0, 1.0, 1.0, 1.0])


class _ShapeStore:
    """Collision shapes and FCL BVHs of parts, built lazily and kept for the process.

    ``shape(key, embedded)``: the part's :class:`ldraw_data.collision.CollisionShape` (key ``"3001"``, or
    ``"?name"`` for an MPD-embedded part found in ``embedded``), or None when the part has no geometry
    (not in the library, or empty; logged, never raised). ``model(shape, mirrored, inset)``: an
    ``fcl.BVHModel`` of the shape's mesh with every face moved inward by ``inset`` LDU (the validator uses
    ``TOL.collision_inset`` = 0.25 LDU), mirrored in x for det < 0 placements, keyed by (shape, mirrored,
    inset rounded to 1e-4 LDU). Thread-safe for the worker's threads (one lock).
    """

    def __init__(self):
        self.shapes: dict = {}
        self.bvh: dict = {}
        self.lock = threading.Lock()

    def shape(self, key: str, embedded):
        memo_key = (key, id(embedded)) if key.startswith("?") else (key, None)
        if memo_key in self.shapes:
            return self.shapes[memo_key]
        s = None
        try:
            if not key.startswith("?"):
                s = collision_shape(key)
            elif embedded is not None and any(f.key == key[1:] + ".dat" or f.key == key[1:]
                                              for f in embedded.files):
                s = collision_shape(key[1:], embedded=embedded)
        except (PartNotFoundError, FileNotFoundError, KeyError) as exc:
            log.info("no collision geometry for part %s: %s", key, exc)
        if s is not None and s.is_empty:
            s = None
        self.shapes[memo_key] = s
        return s

    def model(self, shape, mirrored: bool, inset: float):
        k = (id(shape), mirrored, round(inset, 4))
        m = self.bvh.get(k)
        if m is None:
            v, f = shape.inset_mesh(inset, mirrored)
            m = fcl.BVHModel()
            m.beginModel(len(v), len(f))
            m.addSubModel(v, f)
            m.endModel()
            self.bvh[k] = (m, shape)  # keep the shape alive: id() is the key
            return m
        return m[0]


    def radial_model(self, shape, mirrored: bool, inset: float, extra: float, axis: np.ndarray,
                     points: np.ndarray | None = None):
        """BVH of a shape inset by ``inset`` plus ``extra`` across ``axis`` (model frame, unit), see
        :meth:`CollisionEngine._query_radial`; at most ``shape.caps`` per vertex in total. With
        ``points`` ((k, 3), model frame: points of the joints' axis lines, all along ``axis``) the extra
        radial inset is given only to vertices within :data:`JOINT_RADIUS` of one of those lines."""
        pk = () if points is None else tuple(np.round(np.asarray(points), 1).ravel().tolist())
        k = (id(shape), mirrored, round(inset, 4), round(extra, 4), AXIAL_EXTRA, tuple(np.round(axis, 2).tolist()),
             pk, JOINT_RADIUS)
        m = self.bvh.get(k)
        if m is not None:
            return m[0]
        v, x, f = shape.vertices, shape.directions, shape.faces
        if mirrored:
            v = v * np.array([-1.0, 1.0, 1.0])
            x = x * np.array([-1.0, 1.0, 1.0])
            f = f[:, ::-1]
        caps = shape.caps if shape.caps is not None else np.full(len(v), np.inf)
        base = np.minimum(inset, caps)
        more = np.clip(caps - base, 0.0, extra)
        a = np.asarray(axis, dtype=np.float64)
        radial = more
        if points is not None and len(points):
            near = np.zeros(len(v), dtype=bool)
            for q in np.asarray(points, dtype=np.float64).reshape(-1, 3):
                d = v - q
                near |= np.linalg.norm(d - np.outer(d @ a, a), axis=1) <= JOINT_RADIUS
            radial = np.where(near, more, 0.0)
        xa = np.outer(x @ a, a)
        v = v - base[:, None] * x - radial[:, None] * (x - xa) - np.minimum(more, AXIAL_EXTRA)[:, None] * xa
        m = fcl.BVHModel()
        m.beginModel(len(v), len(f))
        m.addSubModel(v, np.ascontiguousarray(f))
        m.endModel()
        self.bvh[k] = (m, shape)
        return m



#: The process-wide :class:`ShapeStore` (shapes and FCL BVHs of every part met so far).
SHAPE_STORE = _ShapeStore()
#: Old private names (``bricklayer.assembly`` reads them; keep until it switches to the public ones).
ShapeStore = _ShapeStore
_STORE = SHAPE_STORE


def collide(ma, mb, rel: np.ndarray) -> bool:
    """Do two FCL BVHs intersect, ``mb`` placed at ``rel`` ((4, 4) float, rigid, LDU) in ``ma``'s frame?

    ``ma`` and ``mb`` are ``fcl.BVHModel`` (e.g. :meth:`ShapeStore.model`); one FCL test, no contacts.
    """
    oa = fcl.CollisionObject(ma, fcl.Transform())
    ob = fcl.CollisionObject(mb, fcl.Transform(rel[:3, :3], rel[:3, 3]))
    req = fcl.CollisionRequest(num_max_contacts=1, enable_contact=False)
    return fcl.collide(oa, ob, req, fcl.CollisionResult()) > 0


#: Old private name (``bricklayer.assembly`` reads it).
_collide = collide


def inv_rigid(t: np.ndarray) -> np.ndarray:
    """Inverses of (near-)rigid transforms.

    Parameters
    ----------
    t : (n, 4, 4) float array
        Transforms (rotation, translation in LDU), affine (last row ``0 0 0 1``).

    Returns
    -------
    (n, 4, 4) float array
        ``[M^-1, -M^-1 p; 0 0 0 1]`` for each ``[M, p; 0 0 0 1]`` whose determinant is within 1% of +-1
        (a rotation, possibly rounded), ``[M^T, -M^T p; 0 0 0 1]`` for the others (scaled, sheared or
        singular matrices: reported by the catalog checks, :mod:`.catalog_checks`). Official
        files round rotation matrices to 3-4 decimals (singular values up to 1.0004: 10030 Imperial Star
        Destroyer, a sub-model turned 5 and 9 degrees); the transpose of such a matrix is not its
        inverse, so ``R_A^T R_B`` of two parts of one turned sub-model is not a rotation and FCL answered
        a pair's intersection differently depending on which part was the reference (half pin 4274 in
        plate 4282, 10030 lines 2391 / 3310, 0.98 LDU deep by the audit's measure: "no" from the pin,
        "yes" from the plate; audit round 5, ``benchmarks/validator_audit.md``). With the exact inverse
        both parts of one sub-model share the rounding and their relative pose is a rotation again.
    """
    out = np.zeros_like(t)
    # inverse by the adjugate (transposed cofactors over the determinant), vectorized: a fraction of the
    # time of numpy.linalg.inv on many 3 x 3 matrices
    a, b, c = t[:, 0, 0], t[:, 0, 1], t[:, 0, 2]
    d, e, f = t[:, 1, 0], t[:, 1, 1], t[:, 1, 2]
    g, h, k = t[:, 2, 0], t[:, 2, 1], t[:, 2, 2]
    m = out[:, :3, :3]
    m[:, 0, 0], m[:, 0, 1], m[:, 0, 2] = e * k - f * h, c * h - b * k, b * f - c * e
    m[:, 1, 0], m[:, 1, 1], m[:, 1, 2] = f * g - d * k, a * k - c * g, c * d - a * f
    m[:, 2, 0], m[:, 2, 1], m[:, 2, 2] = d * h - e * g, b * g - a * h, a * e - b * d
    det = a * m[:, 0, 0] + b * m[:, 1, 0] + c * m[:, 2, 0]
    # exact inverse only for rotations rounded in the file (|det| within 1% of 1); the transpose, as
    # before, for scaled, sheared or singular matrices (flattened stickers), which the catalog checks report
    rounded = np.abs(np.abs(det) - 1.0) < 0.01
    if rounded.all():  # the usual case: one division, no masked copies
        m /= det[:, None, None]
    else:
        m[rounded] /= det[rounded, None, None]
        m[~rounded] = np.transpose(t[~rounded, :3, :3], (0, 2, 1))
    out[:, :3, 3] = -np.einsum("nij,nj->ni", m, t[:, :3, 3])
    out[:, 3, 3] = 1
    return out


_inv_rigid = inv_rigid
