"""Rays against triangle meshes (LDU): where a straight line from a point first meets a part's drawn surface.

Used to find the face a sticker goes on (:func:`bricklayer.construction.stick`) and the face a placed sticker
is glued to (:func:`bricklayer.validate.held.glued_sticker_edges`). Plain numpy: trimesh's ray queries need
the optional ``rtree`` package, and these callers cast at most a few dozen rays at one part.
"""

from __future__ import annotations

__all__ = ["first_ray_hits"]

import numpy as np


def first_ray_hits(origins: np.ndarray, direction: np.ndarray, tris: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Nearest hit of rays on triangles (Moller-Trumbore ray-triangle intersection, both faces; memory
    grows as rays x triangles: meant for tens of rays).

    Parameters
    ----------
    origins : (r, 3) float, LDU
    direction : (3,) float, unit, shared by all rays
    tris : (n, 3, 3) float, LDU

    Returns
    -------
    t : (r,) float
        Distance (LDU) to the nearest hit in front of the origin, ``inf`` when the ray misses.
    tri : (r,) int
        Index of the hit triangle (-1 when missed).
    """
    e1 = tris[:, 1] - tris[:, 0]
    e2 = tris[:, 2] - tris[:, 0]
    p = np.cross(direction, e2)  # (n, 3)
    det = np.einsum("ij,ij->i", e1, p)
    ok = np.abs(det) > 1e-12
    inv = np.where(ok, 1.0 / np.where(ok, det, 1.0), 0.0)
    s = origins[:, None, :] - tris[None, :, 0]  # (r, n, 3)
    u = np.einsum("rnj,nj->rn", s, p) * inv
    q = np.cross(s, e1[None])  # (r, n, 3)
    v = (q @ direction) * inv
    t = np.einsum("rnj,nj->rn", q, e2) * inv
    eps = 1e-9
    hit = ok & (u >= -eps) & (v >= -eps) & (u + v <= 1 + eps) & (t > 1e-6)
    t = np.where(hit, t, np.inf)
    idx = np.argmin(t, axis=1)
    best = t[np.arange(len(t)), idx]
    return best, np.where(np.isfinite(best), idx, -1)
