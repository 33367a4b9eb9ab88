"""Catalog checks (validator stage 1): parts the library does not know, and faults of a placement itself.

Consumes the flattened placements of a build (:func:`._world.world_arrays`), the LDraw library and
catalog, and the collision shapes (:data:`.fcl.SHAPE_STORE`); produces :func:`unknown_placements`
(parts neither in the library nor embedded: UNKNOWN PART) and :func:`placement_faults` (mirrored chiral
parts, distorted matrices, duplicate placements). Formerly ``placements.py`` (still importable).

Faults of a placement itself: mirrored chiral parts, distorted matrices, duplicate placements.

A real part can only be moved and turned. LDraw type-1 lines carry a full 3 x 3 matrix, so a file
can mirror, scale or shear a part, or place the same part twice at the same pose (a sub-model line
written twice). None of these can be built (issue 16, items 7, 8, 10):

- **Mirrored** (``det < 0``): a chiral part mirrored is another part (Wing 2 x 4 Right 41769
  mirrored is Wing 2 x 4 Left 41770). A part is chiral when its collision mesh is not its own
  mirror image through one of its three coordinate planes (:func:`is_mirror_symmetric`; LDraw parts
  are drawn with their symmetry planes on the coordinate planes), so a mirrored plate or tile is
  simply the plate turned. Flexible parts (hose segments, LSynth output, chain links: trait
  :data:`ldraw_data.traits.UNSUPPORTED_OK`) are drawn mirrored by official files and are exempt.
  The mirror part is named by the catalog title with "Left" and "Right" swapped (the LDraw
  naming rule for mirror pairs), when the catalog has it.
- **Distorted**: the matrix is not a rotation. Its singular values are the scale factors along
  its principal axes (a rotation has all three equal to 1; a shear by ``k`` has ``1 +- k/2``
  about). A placement is distorted when one of them differs from 1 by more than
  :data:`DISTORTION_TOL`.
- **Duplicate**: two placements of the same part at the same pose (within
  ``TOL.connector_position`` and 0.01 in the matrix): the second is the same brick twice, which
  the collision test cannot always see (coincident surfaces).
"""

from __future__ import annotations

__all__ = ["DISTORTION_TOL", "PlacementFault", "placement_faults", "is_mirror_symmetric", "mirror_part",
           "unknown_placements"]

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..constants import TOL
from .collisions import unchecked_placements, unknown_placements  # re-exported: stage 1 reports them
from .fcl import SHAPE_STORE as _STORE

#: Largest ``max |s_k - 1|`` over the singular values ``s_k`` of a placement's world matrix still
#: taken as a rounded rotation. Measured on the 67 official models (every rigid placement, world
#: matrices composed through sub-models): rounding of 3-6 decimal matrices stays below 0.0071
#: (10227 B-wing; 99% of placements below 1e-4). A few official lines are not rounded rotations but
#: hand-made shears and scales (10182 Cafe Corner ``1 0 0.309017 / 0 1 0 / -0.309017 0 1`` on
#: 4719c01: 1.047; posed minifigure hands in 10213: 1.036; a sub-model of 10030 scaled 0.97-0.99;
#: 30231 scaled x2 in 6907): they are distortions and are reported. A part scaled x0.97 or x1.04 or
#: sheared 5% (singular values 0.975 / 1.025) is caught.
DISTORTION_TOL = 0.01
#: Duplicate placements: largest difference of matrix entries (rounding of the same pose written twice).
_DUP_ROT = 0.01


@dataclass(frozen=True)
class PlacementFault:
    """One placement that cannot be built as drawn.

    Attributes
    ----------
    kind : str
        ``"mirrored"``, ``"distorted"`` or ``"duplicate"``.
    index : int
        Index into ``build.flattened_placements``.
    other : int or None
        For ``"duplicate"``: the index of the first placement at the same pose.
    detail : dict
        ``mirrored``: ``{"mirror_part": id or None}``; ``distorted``: ``{"singular_values": [s1, s2,
        s3]}``; ``duplicate``: ``{}``.
    """

    kind: str
    index: int
    other: int | None
    detail: dict


@lru_cache(maxsize=None)
def _symmetric_key(key: str) -> bool:
    shape = _STORE.shape(key, None)
    if shape is None:
        return True  # no geometry: nothing to tell
    v = np.asarray(shape.vertices, dtype=np.float64)
    return is_mirror_symmetric(v)


def is_mirror_symmetric(vertices: np.ndarray, tol: float = 0.05, share: float = 0.95) -> bool:
    """True when a vertex set is its own mirror image through one of the planes x=0, y=0, z=0.

    Parameters
    ----------
    vertices : (k, 3) float, LDU (LDraw part frame)
    tol : float, LDU
        A mirrored vertex must lie this close to a vertex (the library's 3-4 decimals).
    share : float
        Fraction of mirrored vertices that must find one (the rest: small off-centre details).
        Measured through the best plane: plates, bricks, round 1 x 1 parts, tiles (3020, 3001,
        6141, 3062b, 2431) 100%, the round plate 4032a 95.1%, palm leaf 2518 96.3% (mirrored in
        1788 Treasure Chest), against at most 80.8% for Wing 2 x 4 Right/Left 41769/41770 and 59.5%
        for Wing 4 x 8 Left 3933.

    Returns
    -------
    bool
    """
    from scipy.spatial import cKDTree  # only for mirrored placements, which are rare

    v = np.asarray(vertices, dtype=np.float64)
    if not len(v):
        return True
    tree = cKDTree(v)
    for ax in range(3):
        m = v.copy()
        m[:, ax] = -m[:, ax]
        d, _ = tree.query(m, distance_upper_bound=tol)
        if np.isfinite(d).mean() >= share:
            return True
    return False


@lru_cache(maxsize=None)
def mirror_part(part_id: str) -> str | None:
    """The catalog part that is the mirror image of ``part_id``, or None.

    LDraw names mirror pairs by their side: "Wing 2 x 4 Right" (41769) and "Wing 2 x 4 Left"
    (41770). The title with "Left" and "Right" swapped (whole words) is looked up in the catalog.

    Parameters
    ----------
    part_id : str

    Returns
    -------
    str or None
    """
    import re

    from ldraw_data.catalog import get_catalog

    cat = get_catalog()
    if part_id not in cat:
        return None
    name = cat.get(part_id).name or ""
    if not re.search(r"\b(Left|Right)\b", name):
        return None
    swapped = re.sub(r"\b(Left|Right)\b", lambda m: "Right" if m.group(1) == "Left" else "Left", name)
    index = _names_index()
    return index.get(swapped)


@lru_cache(maxsize=1)
def _names_index() -> dict:
    from ldraw_data.catalog import get_catalog

    cat = get_catalog()
    out: dict = {}
    for pid in cat.ids():
        n = cat.get(pid).name or ""
        if n and not n.startswith("~"):
            out.setdefault(n, pid)
    return out


class _Faults(list):
    """The list of :func:`placement_faults`, with the number of placements it covers
    (``n_placements``), so that it can be extended after append-only edits."""

    n_placements = 0


def placement_faults(build) -> list:
    """Mirrored chiral, distorted and duplicate placements of a build (module rules).

    Parameters
    ----------
    build : LegoBuild

    Returns
    -------
    list of PlacementFault
        By placement index; primitives and flexible parts (:func:`._world.flexible_mask`) are
        never reported mirrored or distorted, parts without geometry never mirrored.
    """

    def make(start: int = 0, old: list | None = None) -> list:
        """The faults of placements ``start`` and later appended to ``old`` (the faults of the first
        ``start``): an appended placement comes after every earlier one, so it changes no earlier
        placement's faults (a duplicate names the lowest index of its class)."""
        from ._world import flexible_mask, world_arrays

        wa = world_arrays(build)
        n = len(wa.placements)
        out = _Faults(old or ())
        out.n_placements = n
        if n <= start:
            return out
        flex = flexible_mask(build)
        r = wa.mesh_transforms[start:, :3, :3]
        # singular values only where the matrix may be off a rotation: the squared singular values are
        # the eigenvalues of R^T R, within its Frobenius distance d from I of 1, so d < 2 t - t^2
        # (t = DISTORTION_TOL) keeps every singular value within t of 1; exact SVD for the rest
        gram = np.einsum("nki,nkj->nij", r, r) - np.eye(3)
        safe = 0.95 * (2 * DISTORTION_TOL - DISTORTION_TOL ** 2)
        maybe = np.flatnonzero(~(np.sqrt((gram ** 2).sum(axis=(1, 2))) < safe))  # NaN matrices go to the SVD
        s = np.ones((n - start, 3))
        if len(maybe):
            s[maybe] = np.linalg.svd(r[maybe], compute_uv=False)
        dev = np.abs(s - 1).max(axis=1)
        det = np.linalg.det(r)
        new: list = []
        for i in (np.flatnonzero(~flex[start:] & (dev > DISTORTION_TOL)) + start).tolist():
            new.append(PlacementFault("distorted", i, None,
                                      {"singular_values": [round(float(x), 4) for x in s[i - start]]}))
        for i in (np.flatnonzero(~flex[start:] & (det < 0)) + start).tolist():
            key = wa.keys[i]
            if key.startswith("?") or _symmetric_key(key):
                continue
            new.append(PlacementFault("mirrored", i, None, {"mirror_part": mirror_part(key)}))
        # duplicates: same part key, same pose (rounded), sorted by a hash of the rounded pose
        def quantized(rows) -> np.ndarray:
            """(len(rows), 12) int: the poses of placements ``rows``, rounded (position, rotation)."""
            p = wa.poses[rows]
            return np.column_stack([np.round(p[:, :3, 3] / max(TOL.connector_position, 1e-6)).astype(np.int64),
                                    np.round(p[:, :3, :3].reshape(len(p), 9) / _DUP_ROT).astype(np.int64)])

        if start:  # each appended placement against the earlier ones of its part (their poses only)
            for i in range(start, n):
                if flex[i]:
                    continue
                idx = np.asarray(wa.groups[wa.keys[i]])
                idx = idx[idx < i]
                same = idx[np.all(quantized(idx) == quantized([i])[0], axis=1)] if len(idx) else idx
                if len(same):
                    new.append(PlacementFault("duplicate", i, int(same.min()), {}))
            new.sort(key=lambda f: (f.index, f.kind))
            out.extend(new)
            return out
        multi = [idx for idx in wa.groups.values() if len(idx) >= 2]
        if multi:
            pos_q = np.round(wa.poses[:, :3, 3] / max(TOL.connector_position, 1e-6)).astype(np.int64)
            rot_q = np.round(wa.poses[:, :3, :3].reshape(n, 9) / _DUP_ROT).astype(np.int64)
            # rows (part key, rounded pose); each row after the first of its class (lowest index) is a duplicate
            rows = np.concatenate(multi).astype(np.int64)
            group = np.repeat(np.arange(len(multi)), [len(x) for x in multi])
            m = np.column_stack([group, pos_q[rows], rot_q[rows]])
            # classes of equal rows by one lexsort (np.unique(axis=0) sorts the rows as records: about
            # twice the time at 100k parts, issue 20); only which rows share a class matters here
            o = np.lexsort(m.T[::-1])
            ms = m[o]
            cls = np.empty(len(m), dtype=np.int64)
            cls[o] = np.cumsum(np.r_[True, (ms[1:] != ms[:-1]).any(axis=1)]) - 1
            first = np.full(int(cls.max()) + 1, np.iinfo(np.int64).max)
            np.minimum.at(first, cls, rows)
            j = first[cls]
            dup = (rows != j) & ~np.asarray(flex, dtype=bool)[rows]
            for i, jj in zip(rows[dup].tolist(), j[dup].tolist()):
                new.append(PlacementFault("duplicate", i, jj, {}))
        new.sort(key=lambda f: (f.index, f.kind))
        out.extend(new)
        return out

    def extend(old, k):
        n0 = getattr(old, "n_placements", None)
        return None if n0 is None else make(n0, old)

    return build.derived_data("validate.placement_faults", make, extend)


