"""Rays against triangle meshes (LDU): where a straight line from a point first meets a drawn surface.

Used to derive the anti-studs of a plate-thick open underside (:mod:`ldraw_data.underside`), to find the
face a sticker goes on (``bricklayer.construction.stick``) and the face a placed sticker is glued to
(``bricklayer.validate.held.glued_sticker_edges``). Plain numpy (Moller and Trumbore, "Fast, minimum
storage ray/triangle intersection", 1997), not trimesh's ray queries: those need the optional ``rtree``
package, which nothing else here uses, and count a hit at the ray's own origin, where these callers start
rays on a surface and want the next one. The callers cast tens of rays at one part, a few thousand
triangles, so the rays x triangles arrays stay small.
"""

from __future__ import annotations

__all__ = ["first_ray_hits"]

import numpy as np

#: Hits nearer than this (LDU) to a ray's origin are not counted: a ray started on a face meets the next one.
MIN_HIT_LDU = 1e-6


def first_ray_hits(origins: np.ndarray, directions: np.ndarray, triangles: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Nearest hit of each ray on a set of triangles, either face (memory grows as rays x triangles).

    Parameters
    ----------
    origins : (r, 3) float, LDU
        Ray origins.
    directions : (3,) or (r, 3) float, unit
        One direction shared by all rays, or one per ray.
    triangles : (n, 3, 3) float, LDU
        Triangle corners.

    Returns
    -------
    t : (r,) float
        Distance (LDU, along unit directions) to the nearest hit farther than :data:`MIN_HIT_LDU` from the
        origin; ``inf`` where the ray meets nothing.
    tri : (r,) int
        Index of that triangle, -1 where the ray meets nothing.
    """
    origins = np.asarray(origins, np.float64).reshape(-1, 3)
    triangles = np.asarray(triangles, np.float64).reshape(-1, 3, 3)
    r = len(origins)
    if not len(triangles) or not r:
        return np.full(r, np.inf), np.full(r, -1, np.int64)
    dirs = np.broadcast_to(np.asarray(directions, np.float64), (r, 3))
    v0 = triangles[:, 0]
    e1 = triangles[:, 1] - v0
    e2 = triangles[:, 2] - v0
    p = np.cross(dirs[:, None, :], e2[None, :, :])  # (r, n, 3)
    det = np.einsum("rnj,nj->rn", p, e1)
    ok = np.abs(det) > 1e-12
    inv = np.divide(1.0, det, out=np.zeros_like(det), where=ok)
    s = origins[:, None, :] - v0[None, :, :]
    u = np.einsum("rnj,rnj->rn", s, p) * inv
    q = np.cross(s, e1[None, :, :])
    v = np.einsum("rj,rnj->rn", dirs, q) * inv
    t = np.einsum("rnj,nj->rn", q, e2) * inv
    eps = 1e-9
    hit = ok & (u >= -eps) & (v >= -eps) & (u + v <= 1 + eps) & (t > MIN_HIT_LDU)
    t = np.where(hit, t, np.inf)
    idx = np.argmin(t, axis=1)
    best = t[np.arange(r), idx]
    return best, np.where(np.isfinite(best), idx, -1)
