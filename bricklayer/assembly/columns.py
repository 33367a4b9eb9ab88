"""Column rasters of inset collision meshes: an exact-up-to-the-grid path test along world axes.

A part at an axis-aligned rotation (its 3x3 rotation a signed permutation; others on
request, see :func:`world_raster`) is projected along a world axis ``a`` onto the plane across it, on a grid of
columns :data:`H` = 0.5 LDU wide whose centres lie at world coordinates
``(k + 0.5) * H``. Each column keeps the lowest and highest coordinate along
``a`` of the part's surface over its centre (each triangle rasterised by
barycentric interpolation at the column centres inside its projection;
triangles seen edge-on add nothing). Part u moving along ``+a`` meets part j
iff in some column both occupy ``max_j > min_u + EPS`` (j has surface ahead
of some surface of u); along ``-a`` iff ``min_j < max_u - EPS``.

Why this is exact up to the grid: at first contact of two surfaces moving
along ``a``, a surface point of u meets a surface point of j on one line along
``a``; over a column centre both surfaces are present and j's lies ahead of
u's. Both surfaces are inset by ``TOL.collision_inset`` = 0.25 LDU, so
touching neighbours are 0.5 LDU = one column apart and never share a column
at their touching faces. Gap: features thinner than :data:`H` across the
motion (a column centre may miss them) can be missed, where a sampled FCL
test would see them; the sampled test, in turn, can step over walls thinner
than its 1 LDU step, which the columns never do.

Caching: a raster depends only on the shape, mirroring, inset, the local axis
it is projected along and the grid offsets (position modulo :data:`H`) of the
two local axes across it, so it is shared by every placement with those; kept
in memory and on disk under ``cache_dir()/columns-<library fingerprint>-v<collision
cache version>.<COLUMNS_VERSION>/`` as sorted int64 column keys with min and max
arrays (local column indices), written atomically.
"""

from __future__ import annotations
from ..errors import BrickLayerValueError

__all__ = ["H", "EPS", "COLUMNS_VERSION", "axis_map", "LocalRaster", "WorldRaster", "local_raster",
           "world_raster", "meets"]

import hashlib
import logging
from dataclasses import dataclass

import numpy as np

log = logging.getLogger(__name__)

#: Column width (LDU): twice the collision inset, so touching inset neighbours never share a column.
H = 0.5
#: Slack (LDU) of the along-axis comparison.
EPS = 1e-6
#: Format of the on-disk rasters (bump when the raster code changes).
COLUMNS_VERSION = 3
_B = 1 << 30  # column index bias of the int64 keys
_CHUNK = 1 << 21  # (triangle, column) candidates per vectorised batch
_OFF_Q = 1e-4  # grid offsets are rounded to this (LDU) in the cache key


def axis_map(r: np.ndarray, tol: float = 1e-3):
    """Signed permutation of a rotation.

    Parameters
    ----------
    r : (3, 3) float
        Rotation, local -> world.
    tol : float
        Largest deviation of an entry from -1, 0 or 1.

    Returns
    -------
    (perm (3,) int, sign (3,) int) or None
        ``world[w] = sign[w] * local[perm[w]] + t[w]``; None when not axis-aligned.
    """
    r = np.asarray(r, dtype=np.float64)
    rr = np.round(r)
    if np.abs(r - rr).max() > tol:
        return None
    perm = np.abs(rr).argmax(axis=1)
    if len(set(perm.tolist())) != 3 or np.abs(rr).sum() != 3:
        return None
    return perm, rr[np.arange(3), perm].astype(np.int64)


@dataclass
class LocalRaster:
    """Dense column raster in the part's frame.

    Attributes
    ----------
    k0 : (2,) int
        Local column index of ``lo[0, 0]`` along the two cross axes (in increasing local axis order);
        column k is centred at local coordinate ``(k + 0.5) * H + offset``.
    lo, hi : (m, n) float64, LDU
        Lowest / highest surface coordinate along the projection axis; ``+inf`` / ``-inf`` where empty.
    """

    k0: np.ndarray
    lo: np.ndarray
    hi: np.ndarray


@dataclass
class WorldRaster:
    """A part's raster along a world axis: views of a :class:`LocalRaster`.

    Attributes
    ----------
    m0 : (2,) int
        World column index (along the two world axes after ``a``, in order ``(a+1) % 3, (a+2) % 3``) of
        the first entry; ``m1`` one past the last.
    lo, hi : (m, n) float64 views, LDU
        Local along-axis bounds; world values are ``sign * value + t`` (lo/hi swapped when sign < 0).
    sign : int
    t : float
    """

    m0: np.ndarray
    m1: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    sign: int
    t: float

    def window(self, a0, a1):
        """World (lowest, highest) along the axis in world columns [a0, a1) (two (m, n) arrays)."""
        s = (slice(a0[0] - self.m0[0], a1[0] - self.m0[0]), slice(a0[1] - self.m0[1], a1[1] - self.m0[1]))
        lo, hi = self.lo[s], self.hi[s]
        if self.sign > 0:
            return lo + self.t, hi + self.t
        return self.t - hi, self.t - lo


_MEM: dict = {}


def _rasterise(v: np.ndarray, f: np.ndarray, axis: int, off: tuple) -> LocalRaster:
    """Scanline rasterisation: rows of column centres across each triangle, then the columns of each row."""
    p, q = [x for x in range(3) if x != axis]
    if len(v):
        g0 = np.array([np.floor((v[:, p].min() - off[0]) / H - 0.5), np.floor((v[:, q].min() - off[1]) / H - 0.5)],
                      dtype=np.int64)
        g1 = np.array([np.ceil((v[:, p].max() - off[0]) / H - 0.5), np.ceil((v[:, q].max() - off[1]) / H - 0.5)],
                      dtype=np.int64)
    else:
        g0 = g1 = np.zeros(2, dtype=np.int64)
    shape = (int(g1[0] - g0[0] + 1), int(g1[1] - g0[1] + 1))
    lo = np.full(shape[0] * shape[1], np.inf)
    hi = np.full(shape[0] * shape[1], -np.inf)
    tri = v[f]  # (F, 3, 3)
    u, w, z = tri[:, :, p] - off[0], tri[:, :, q] - off[1], tri[:, :, axis]
    du1, dw1, dz1 = u[:, 1] - u[:, 0], w[:, 1] - w[:, 0], z[:, 1] - z[:, 0]
    du2, dw2, dz2 = u[:, 2] - u[:, 0], w[:, 2] - w[:, 0], z[:, 2] - z[:, 0]
    det = du1 * dw2 - du2 * dw1
    k0u = np.ceil(u.min(axis=1) / H - 0.5 - 1e-7).astype(np.int64)
    k1u = np.floor(u.max(axis=1) / H - 0.5 + 1e-7).astype(np.int64)
    nu = np.maximum(k1u - k0u + 1, 0)
    keep = np.flatnonzero((np.abs(det) > 1e-9) & (nu > 0))  # edge-on triangles add nothing
    if not len(keep):
        return LocalRaster(g0, lo.reshape(shape), hi.reshape(shape))
    u, w, z, det, k0u, nu = u[keep], w[keep], z[keep], det[keep], k0u[keep], nu[keep]
    # plane of each triangle: z = z0 + gu (u - u0) + gw (w - w0)
    gu = (dz1 * dw2 - dz2 * dw1)[keep] / det
    gw = (du1 * dz2 - du2 * dz1)[keep] / det
    # rows
    t = np.repeat(np.arange(len(keep)), nu)
    iu = np.arange(len(t)) - np.repeat(np.cumsum(nu) - nu, nu) + k0u[t]
    cu = (iu + 0.5) * H
    ut, wt = u[t], w[t]
    ua, ub = ut, ut[:, [1, 2, 0]]
    wa, wb = wt, wt[:, [1, 2, 0]]
    dd = ub - ua
    flat = np.abs(dd) < 1e-12
    s = (cu[:, None] - ua) / np.where(flat, 1.0, dd)
    ok = ~flat & (s >= -1e-9) & (s <= 1 + 1e-9)
    wx = wa + np.clip(s, 0.0, 1.0) * (wb - wa)
    on = flat & (np.abs(cu[:, None] - ua) <= 1e-7)
    wmin = np.minimum(np.where(ok, wx, np.inf).min(axis=1), np.where(on, np.minimum(wa, wb), np.inf).min(axis=1))
    wmax = np.maximum(np.where(ok, wx, -np.inf).max(axis=1), np.where(on, np.maximum(wa, wb), -np.inf).max(axis=1))
    k0w = np.ceil(wmin / H - 0.5 - 1e-7)
    k1w = np.floor(wmax / H - 0.5 + 1e-7)
    good = np.isfinite(k0w) & np.isfinite(k1w) & (k1w >= k0w)
    t, iu, cu, k0w, k1w = t[good], iu[good], cu[good], k0w[good].astype(np.int64), k1w[good].astype(np.int64)
    nw = k1w - k0w + 1
    zrow = z[t, 0] + gu[t] * (cu - u[t, 0]) - gw[t] * w[t, 0]
    grow = gw[t]
    # clamp to the triangle's own range: nearly edge-on triangles have huge gradients, and a centre
    # within the tolerance outside them would extrapolate far
    zlo, zhi = z.min(axis=1)[t], z.max(axis=1)[t]
    rbase = (iu - g0[0]) * shape[1] - g0[1]
    # columns of each row, in batches
    csum = np.cumsum(nw)
    start = 0
    while start < len(nw):
        base = csum[start - 1] if start else 0
        stop = max(start + 1, int(np.searchsorted(csum, base + _CHUNK, side="right")))
        c = nw[start:stop]
        r = np.repeat(np.arange(start, stop), c)
        kw = np.arange(int(c.sum())) - np.repeat(np.cumsum(c) - c, c) + k0w[r]
        zz = np.clip(zrow[r] + grow[r] * ((kw + 0.5) * H), zlo[r], zhi[r])
        idx = rbase[r] + kw
        np.minimum.at(lo, idx, zz)
        np.maximum.at(hi, idx, zz)
        start = stop
    return LocalRaster(g0, lo.reshape(shape), hi.reshape(shape))


def _disk_path(name: str, key: tuple):
    from ldraw_data.collision import COLLISION_CACHE_VERSION
    from ldraw_data.library import cache_dir, get_library

    fp = get_library().fingerprint[:16]
    h = hashlib.sha1(repr(key).encode()).hexdigest()[:24]
    return cache_dir() / f"columns-{fp}-v{COLLISION_CACHE_VERSION}.{COLUMNS_VERSION}" / f"{h}.npz"


def _save(path, r: LocalRaster):
    from ldraw_data.fileio import atomic_writer

    occ = np.flatnonzero(np.isfinite(r.lo.ravel()))
    n = r.lo.shape[1]
    ku = occ // n + r.k0[0] + _B
    kw = occ % n + r.k0[1] + _B
    keys = (ku << 31) | kw  # sorted: row-major order of the dense grid
    try:
        with atomic_writer(path, "wb") as fh:
            np.savez_compressed(fh, keys=keys.astype(np.int64), lo=r.lo.ravel()[occ], hi=r.hi.ravel()[occ],
                     box=np.array([r.k0[0], r.k0[1], r.lo.shape[0], r.lo.shape[1]], dtype=np.int64))
    except OSError as exc:
        log.warning("could not write the column raster cache %s: %s", path, exc)


def _load(path) -> LocalRaster | None:
    """The raster of a cache file; None when missing or unreadable (then discarded with a warning)."""
    from ldraw_data.fileio import discard_cache_file

    try:
        with np.load(path, allow_pickle=False) as z:
            keys, lo, hi, box = z["keys"], z["lo"], z["hi"], z["box"]
    except FileNotFoundError:
        return None
    except Exception as exc:  # noqa: BLE001 - a truncated zip raises BadZipFile, EOFError, zlib.error, ...
        discard_cache_file(path, "column raster", exc)
        return None
    try:
        if box.shape != (4,) or keys.ndim != 1 or not (keys.shape == lo.shape == hi.shape):
            raise BrickLayerValueError(f"array shapes {box.shape}, {keys.shape}, {lo.shape}, {hi.shape}")
        k0, shape = box[:2], (int(box[2]), int(box[3]))
        if min(shape) < 0 or shape[0] * shape[1] > 1 << 26:
            raise BrickLayerValueError(f"raster of {shape} columns")
        ku = (keys >> 31) - _B - k0[0]
        kw = (keys & ((1 << 31) - 1)) - _B - k0[1]
        if len(keys) and (ku.min() < 0 or kw.min() < 0 or ku.max() >= shape[0] or kw.max() >= shape[1]):
            raise BrickLayerValueError("column indices outside the raster")
    except (ValueError, TypeError) as exc:
        discard_cache_file(path, "column raster", exc)
        return None
    dlo = np.full(shape, np.inf)
    dhi = np.full(shape, -np.inf)
    dlo[ku, kw] = lo
    dhi[ku, kw] = hi
    return LocalRaster(k0.copy(), dlo, dhi)


def local_raster(shape, name: str, mirrored: bool, inset: float, axis: int, off: tuple,
                 rot: np.ndarray | None = None) -> LocalRaster:
    """Raster of a collision shape along one of its local axes (memory, then disk, then computed).

    Parameters
    ----------
    shape : ldraw_data.collision.CollisionShape
    name : str
        Cache key of the shape (the collision engine's part key).
    mirrored : bool
        Mirrored placement: x negated and faces reversed, as the FCL models are built.
    inset : float, LDU
        Collision inset (:meth:`CollisionShape.inset_vertices`).
    axis : int
        Local axis projected along (0, 1, 2).
    off : (2,) float, LDU
        Grid offsets (in [0, H)) of the two other local axes, in increasing axis order.
    rot : (3, 3) float, optional
        Rotation applied to the (mirrored) vertices first (a tilted part: rows are the two cross
        axes and the projection axis, ``axis`` is then 2); rounded to 1e-6 in the cache key.

    Returns
    -------
    LocalRaster
    """
    off = tuple(round(float(o) / _OFF_Q) * _OFF_Q % H for o in off)
    key = (name, bool(mirrored), round(float(inset), 4), int(axis), round(off[0], 4), round(off[1], 4))
    if rot is not None:
        rot = np.round(np.asarray(rot, dtype=np.float64), 6)
        key = key + (tuple(rot.ravel().tolist()),)
    r = _MEM.get(key)
    if r is not None:
        return r
    cacheable = not name.startswith("?")  # MPD-embedded shapes: memory only
    path = _disk_path(name, key) if cacheable else None
    r = _load(path) if cacheable else None
    if r is None:
        v, f = shape.inset_mesh(inset, mirrored)
        if rot is not None:
            v = v @ rot.T
        r = _rasterise(np.asarray(v, dtype=np.float64), np.asarray(f, dtype=np.int64), int(axis), off)
        if cacheable:
            _save(path, r)
    _MEM[key] = r
    return r


def world_raster(shape, name: str, mirrored: bool, inset: float, transform: np.ndarray, a: int,
                 tilted: bool = False):
    """Raster of a placed part along world axis ``a``.

    Parameters
    ----------
    shape, name, mirrored, inset
        As for :func:`local_raster`.
    transform : (4, 4) float
        Mesh transform, LDraw part frame -> world (BrickLayer frame, LDU), proper rotation.
    a : int
        World axis (0, 1, 2).
    tilted : bool
        Also raster a part at any other rotation (its own raster, cached per rotation). Off by
        default: for tilted parts the interference of a straight world-axis path is often a sliver
        thinner than :data:`H` (a stud catching the rim of a part tilted 15-20 degrees moving 1-2 LDU,
        7 misses in 2684 pairs of a 370-part model), which the sampled test sees.

    Returns
    -------
    WorldRaster or None
        A part at a signed-permutation rotation (within 1e-3) shares its raster with every placement of
        the same shape, axis and grid offsets (views, flipped or transposed). None for another
        rotation unless ``tilted``.
    """
    m = axis_map(transform[:3, :3])
    t = transform[:3, 3]
    if m is None:
        return _tilted_raster(shape, name, mirrored, inset, transform, a) if tilted else None
    perm, sign = m
    la = int(perm[a])
    cross = [x for x in range(3) if x != la]  # local cross axes, increasing
    world = [(a + 1) % 3, (a + 2) % 3]
    # per local cross axis: its world axis, sign, grid offset, world index shift
    offs, info = [], []
    for lx in cross:
        w = int(np.flatnonzero(perm == lx)[0])
        sg, tw = int(sign[w]), float(t[w])
        o = (-tw) % H if sg > 0 else tw % H
        o = round(o / _OFF_Q) * _OFF_Q % H
        n = int(round((o + tw) / H)) if sg > 0 else int(round((tw - o) / H))
        offs.append(o)
        info.append((w, sg, n))
    r = local_raster(shape, name, mirrored, inset, la, tuple(offs))
    lo, hi = r.lo, r.hi
    m0 = [0, 0]
    m1 = [0, 0]
    for d, (w, sg, n) in enumerate(info):
        k0, k1 = int(r.k0[d]), int(r.k0[d]) + r.lo.shape[d]  # local index range [k0, k1)
        if sg > 0:
            a0, a1 = k0 + n, k1 + n
        else:
            a0, a1 = n - k1, n - k0  # m = n - 1 - k
            sl = [slice(None), slice(None)]
            sl[d] = slice(None, None, -1)
            lo, hi = lo[tuple(sl)], hi[tuple(sl)]
        pos = world.index(w)
        m0[pos], m1[pos] = a0, a1
    if world.index(info[0][0]) == 1:
        lo, hi = lo.T, hi.T
    return WorldRaster(np.array(m0), np.array(m1), lo, hi, int(sign[a]), float(t[a]))


def _tilted_raster(shape, name, mirrored, inset, transform, a) -> WorldRaster:
    """World raster of a part at any rotation: its vertices turned into the (cross, cross, along) frame."""
    world = [(a + 1) % 3, (a + 2) % 3, a]
    rot = np.asarray(transform, dtype=np.float64)[world, :3]
    t = np.asarray(transform, dtype=np.float64)[world, 3]
    offs = [round(((-float(x)) % H) / _OFF_Q) * _OFF_Q % H for x in t[:2]]
    n = [int(round((o + float(x)) / H)) for o, x in zip(offs, t[:2])]
    r = local_raster(shape, name, mirrored, inset, 2, tuple(offs), rot)
    m0 = np.array([int(r.k0[0]) + n[0], int(r.k0[1]) + n[1]])
    return WorldRaster(m0, m0 + np.array(r.lo.shape), r.lo, r.hi, 1, float(t[2]))


def meets(ru: WorldRaster, rj: WorldRaster, forward: bool) -> bool:
    """Does part u, moving along the world axis of the rasters, meet part j?

    Parameters
    ----------
    ru, rj : WorldRaster
        Rasters of the moving part u and the fixed part j along the same world axis.
    forward : bool
        u moves along +axis (else along -axis).

    Returns
    -------
    bool
        True when some column both occupy has j's surface ahead of some of u's
        (``max_j > min_u + EPS`` moving forward, ``min_j < max_u - EPS`` backward).
    """
    a0 = np.maximum(ru.m0, rj.m0)
    a1 = np.minimum(ru.m1, rj.m1)
    if np.any(a1 <= a0):
        return False
    ulo, uhi = ru.window(a0, a1)
    jlo, jhi = rj.window(a0, a1)
    if forward:
        return bool(np.any(jhi > ulo + EPS))
    return bool(np.any(jlo < uhi - EPS))
