"""Captured parts (validator stage 6, support: after connections and resting contacts): held because they
cannot move, not because they mate or rest.

Consumes the collision engine (:class:`.collisions.CollisionEngine`: inset meshes, poses) and the parts
supported so far; produces capture edges (capturer -> captured part) for :mod:`.support`.

A part can be held with no connector and no resting contact: window glass
(60601, 60602: no BrickNet labels) stands in the grooves of its frame with
about 1 LDU of play on every side and its lower edge just above the groove
floor. It cannot fall or leave, so it is supported.

Rule: a part that is not yet supported is *captured* by supported parts when,
moved along each of the six world axis directions in steps of
:data:`CAPTURE_STEP`, its inset collision mesh meets a supported part within
:data:`CAPTURE_PLAY` but not at the first step: it is enclosed with play. A
part that meets its neighbours at the first step in some direction touches
them there, and side contact alone holds nothing (issue #4): a helmet wedged
between two panels after its head is removed still floats (support fault
injection, 6232 Skeleton Crew). Its capturers then support it (support
edges capturer -> part), and the test repeats for parts next to newly
supported ones. Measured on 10224 Town Hall: each glass 60602 in its frame
60593 meets the frame after 1.5 LDU down or up, 1.0 along the frame and
0.75 across it (inset meshes, 0.25 LDU steps).

Known limit: glass drawn 1 LDU high in its frame touches the top of the
groove (it meets the frame at the first step up) and is reported floating,
though a real pane would drop 1 LDU and sit in the groove.

A part lifted off its studs or left hanging after its holder is removed
has free travel of a plate (8 LDU) or more downwards, so it is not captured
and still floats (fault-injection benchmarks). Escape along a diagonal is
not tested (a part blocked along all six axes but free along a diagonal is
taken as held; none was found on the official models).
"""

from __future__ import annotations

__all__ = ["CAPTURE_PLAY", "CAPTURE_STEP", "captured_edges"]

import numpy as np

from ..constants import TOL
from .memo import PAIR_MEMO as _MEMO
from .spatial import box_overlap_pairs

#: Largest free travel (LDU) along an axis for a part still to count as captured in that direction.
CAPTURE_PLAY = 2.0
#: Step (LDU) of the capture test; thinner than any groove wall of the library's frames (>= 1 LDU).
CAPTURE_STEP = 0.5
_DIRS = np.array([[0, 0, -1], [0, 0, 1], [1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0]], dtype=np.float64)


def _first_hit(eng, i: int, others: np.ndarray, d: np.ndarray) -> np.ndarray:
    """Travel (LDU) after which part ``i``, moved along unit ``d``, first meets each of ``others``.

    ``inf`` where it meets it within no step up to :data:`CAPTURE_PLAY`. All
    steps go to the engine's memoized pair test in one batch (the answers
    are kept in the on-disk pair cache, so a warm run builds no mesh).
    """
    steps = np.arange(CAPTURE_STEP, CAPTURE_PLAY + 1e-9, CAPTURE_STEP)
    k = len(steps)
    ib = np.repeat(np.asarray(others, dtype=np.int64), k)
    ia = np.full(len(ib), i, dtype=np.int64)
    ta = np.repeat(eng.transforms[i][None], len(ib), axis=0)
    ta[:, :3, 3] += np.tile(steps, len(others))[:, None] * d[None, :]
    hit = eng._query(ia, ib, ta, eng.transforms[ib], TOL.collision_inset).reshape(len(others), k)
    return np.where(hit.any(axis=1), steps[np.argmax(hit, axis=1)], np.inf)


def captured_edges(eng, supported: np.ndarray, candidates: np.ndarray) -> np.ndarray:
    """Support edges of captured parts (module rule).

    Parameters
    ----------
    eng : CollisionEngine
        The build's collision engine (inset meshes, world transforms, boxes).
    supported : (n,) bool
        Parts already reachable from the ground.
    candidates : (c,) int
        Parts to test (not supported, with geometry, not flexible).

    Returns
    -------
    (e, 2) int
        Directed edges ``(capturer, captured)``; empty when none.
    """
    sup = np.asarray(supported, dtype=bool).copy()
    left = [int(i) for i in candidates if eng.has_shape[i]]
    lo, hi = eng.box_lo, eng.box_hi
    pad = CAPTURE_PLAY + 2 * TOL.collision_inset
    edges: list = []
    # boxes within reach of each candidate's (padded) box, found once on the broad phase's grid; which
    # of them are supported is read when the candidate is tested (captures earlier in a pass count)
    shaped = np.flatnonzero(eng.has_shape)
    cand = np.asarray(left, dtype=np.int64)
    p = box_overlap_pairs(lo[shaped], hi[shaped], lo[cand] - pad, hi[cand] + pad)
    starts = np.searchsorted(p[:, 0], np.arange(len(cand) + 1))
    reach = {i: shaped[p[starts[k]:starts[k + 1], 1]] for k, i in enumerate(left)}
    changed = True
    while changed and left:
        changed = False
        rest = []
        for i in left:
            near = reach[i]
            near = near[sup[near] & (near != i)]
            if not len(near):
                rest.append(i)
                continue
            by = np.zeros(len(near), dtype=bool)
            ok = True
            for d in _DIRS:
                hit = _first_hit(eng, i, near, d)
                first = float(hit.min())
                if not (CAPTURE_STEP < first < np.inf):  # free, or touching (side contact is no hold)
                    ok = False
                    break
                by |= hit < np.inf
            if ok:
                edges += [(j, i) for j in near[by].tolist()]
                sup[i] = True
                changed = True
            else:
                rest.append(i)
        left = rest
    _MEMO.save()
    return np.array(edges, dtype=np.intp).reshape(-1, 2)
