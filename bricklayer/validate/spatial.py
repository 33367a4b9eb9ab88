"""Broad phase (validator stage 2): the spatial index of placement boxes.

Consumes the per-placement arrays of :class:`.collisions.CollisionEngine` (``box_lo`` / ``box_hi``
(n, 3) LDU, ``has_shape``, ``n``); produces candidate pairs ``i < j`` whose boxes, grown down by the
resting drop :data:`REST_DROP`, overlap (closed intervals on all three axes), in bounded chunks
(:meth:`BroadPhase._broad_chunks`). :class:`BroadPhase` is a mixin of the engine.

Method: a uniform grid of cubic cells (:func:`grid_cell_ldu`: the median box size, so a typical box
covers one or two cells per axis) holds each box in every cell it covers; two boxes are candidates
when they share a cell, and a pair is kept only in the cell holding the low corner of the two boxes'
intersection (``max(lo_a, lo_b)``), which both boxes cover, so each overlapping pair is found exactly
once and no pair is lost (the classic uniform-grid broad phase: Ericson, *Real-Time Collision
Detection*, 7.1). The work grows with the parts and their true neighbours, wherever the parts stand:
a sweep along one axis (the method before issue 20) lists every part of the slab a box spans, so
copies of a model side by side cost the square of the copies. Boxes covering more than
:data:`_GRID_MAX_CELLS` cells (a part drawn huge or scaled) are tested against every box directly.
"""

from __future__ import annotations

__all__ = ["BroadPhase", "REST_DROP", "box_overlap_pairs", "grid_cell_ldu"]

import numpy as np

from ..constants import CROWDED_PARTNERS
from .graphs import sorted_unique

#: Broad-phase boxes are grown by this much (LDU) so resting contacts are candidates.
_MARGIN = 1.25
#: Downward move (LDU) of the resting test (module notes, step 5).
_REST_DROP = 1.0
#: Up to this many queried parts, the incremental broad phase tests their boxes against all boxes directly.
_BRUTE_QUERIES = 32
#: Broad-phase rows (candidate boxes) enumerated at once: bounds the memory when many boxes meet
#: (every pair of a few thousand parts drawn at one place).
_BROAD_ROWS = 1 << 16
#: Boxes a broad-phase finder enumerates per pass (:meth:`BroadPhase._broad_chunks`): a finder whose
#: cell holds more boxes (hundreds of parts drawn at one place) takes several passes.
_BROAD_WINDOW = 256
#: A box covering more grid cells than this is tested against every box directly (module notes).
_GRID_MAX_CELLS = 4096
#: Smallest grid cell (LDU): boxes of parts without extent (a point) must not make the cells tiny.
_GRID_MIN_CELL = 4.0


def grid_cell_ldu(lo: np.ndarray, hi: np.ndarray) -> float:
    """Edge (LDU) of the broad phase's cubic grid cells for boxes ``lo`` / ``hi`` ((n, 3) LDU): the
    median of the boxes' largest extents, at least :data:`_GRID_MIN_CELL` (about 60 LDU, three
    studs, on the official models: a brick covers one or two cells per axis)."""
    if not len(lo):
        return _GRID_MIN_CELL
    return max(float(np.median((hi - lo).max(axis=1))), _GRID_MIN_CELL)


def _grid_lists(lo: np.ndarray, hi: np.ndarray, boxes: np.ndarray, queried: np.ndarray | None):
    """The grid's cell lists, in the form the windowed enumeration of :meth:`BroadPhase._broad_chunks` reads.

    Returns ``(box, cell, cur, stop, huge, h, origin)``: ``box`` (E,) the box of each entry (one per
    box and covered cell), sorted by cell then box; ``cell`` (E, 3) int its cell; each entry ``e`` is
    the finder of entries ``cur[e]:stop[e]`` (the later entries of its cell); ``huge`` the boxes
    covering more than :data:`_GRID_MAX_CELLS` cells (left out of the grid); ``h`` the cell edge
    (LDU) and ``origin`` (3,) the grid's corner. With ``queried`` ((n,) bool), cells holding no
    queried box are left out.
    """
    h = grid_cell_ldu(lo[boxes], hi[boxes])
    origin = lo[boxes].min(axis=0) if len(boxes) else np.zeros(3)
    c0 = np.floor((lo[boxes] - origin) / h).astype(np.int64)
    cnt = np.floor((hi[boxes] - origin) / h).astype(np.int64) - c0 + 1
    tot = cnt.prod(axis=1)
    huge = boxes[tot > _GRID_MAX_CELLS]
    keep = tot <= _GRID_MAX_CELLS
    boxes, c0, cnt, tot = boxes[keep], c0[keep], cnt[keep], tot[keep]
    eb = np.repeat(np.arange(len(boxes)), tot)
    k = np.arange(int(tot.sum())) - np.repeat(np.cumsum(tot) - tot, tot)
    cy, cz = cnt[eb, 1], cnt[eb, 2]
    cell = c0[eb] + np.column_stack([k // (cy * cz), (k // cz) % cy, k % cz])
    box = boxes[eb]
    o = np.lexsort((box, cell[:, 2], cell[:, 1], cell[:, 0]))
    box, cell = box[o], cell[o]
    new = np.r_[True, np.any(cell[1:] != cell[:-1], axis=1)] if len(box) else np.zeros(0, dtype=bool)
    group = np.cumsum(new) - 1
    if queried is not None and len(box):
        has_q = np.bincount(group, weights=queried[box], minlength=int(group[-1]) + 1) > 0
        sel = has_q[group]
        box, cell, group = box[sel], cell[sel], group[sel]
        new = np.r_[True, group[1:] != group[:-1]] if len(box) else new[:0]
    starts = np.flatnonzero(new)
    ends = np.r_[starts[1:], len(box)]
    stop = np.repeat(ends, ends - starts)
    cur = np.arange(len(box)) + 1
    return box, cell, cur, stop, huge, h, origin


def box_overlap_pairs(lo: np.ndarray, hi: np.ndarray, q_lo: np.ndarray, q_hi: np.ndarray) -> np.ndarray:
    """(m, 2) int pairs ``(k, j)``: query box ``k`` (``q_lo`` / ``q_hi`` (nq, 3) LDU) overlaps box ``j``
    (``lo`` / ``hi`` (n, 3) LDU; closed intervals on all three axes), sorted by ``(k, j)``.

    The boxes go into a uniform grid (:func:`grid_cell_ldu` of all the boxes); each query box lists
    the boxes of the cells it covers, so the work grows with the boxes and their true neighbours.
    A query box covering more than :data:`_GRID_MAX_CELLS` cells is tested against every box.
    """
    nq, n = len(q_lo), len(lo)
    if not nq or not n:
        return np.zeros((0, 2), dtype=np.int64)
    h = grid_cell_ldu(np.vstack([lo, q_lo]), np.vstack([hi, q_hi]))
    origin = np.minimum(lo.min(axis=0), q_lo.min(axis=0))

    def cells(a_lo, a_hi):
        c0 = np.floor((a_lo - origin) / h).astype(np.int64)
        cnt = np.floor((a_hi - origin) / h).astype(np.int64) - c0 + 1
        return c0, cnt, cnt.prod(axis=1)

    def entries(c0, cnt, tot, idx):
        # boxes in one cell first (most of them: no index arithmetic), then the others cell by cell; the
        # order of entries does not matter (the pairs are made unique and sorted at the end)
        one, idx = idx[tot[idx] == 1], idx[tot[idx] > 1]
        eb = np.repeat(idx, tot[idx])
        t = tot[idx]
        k = np.arange(int(t.sum())) - np.repeat(np.cumsum(t) - t, t)
        cy, cz = cnt[eb, 1], cnt[eb, 2]
        cells = c0[eb] + np.column_stack([k // (cy * cz), (k // cz) % cy, k % cz])
        return np.concatenate([one, eb]), np.concatenate([c0[one], cells.reshape(-1, 3)])

    b0, bcnt, btot = cells(lo, hi)
    q0, qcnt, qtot = cells(q_lo, q_hi)
    out = []
    big_b = btot > _GRID_MAX_CELLS
    big_q = qtot > _GRID_MAX_CELLS
    # huge boxes on either side: direct tests, chunked
    for qs, bs in ((np.flatnonzero(big_q), np.arange(n)), (np.flatnonzero(~big_q), np.flatnonzero(big_b))):
        step = max(1, 2_000_000 // max(len(bs), 1))
        for s in range(0, len(qs), step):
            qq = qs[s:s + step]
            ov = np.all((q_lo[qq, None, :] <= hi[None, bs, :]) & (lo[None, bs, :] <= q_hi[qq, None, :]), axis=2)
            i, j = np.nonzero(ov)
            out.append(np.column_stack([qq[i], bs[j]]))
    eb, ecell = entries(b0, bcnt, btot, np.flatnonzero(~big_b))
    eq, qcell = entries(q0, qcnt, qtot, np.flatnonzero(~big_q))
    if len(eb) and len(eq):
        lo_c = np.minimum(ecell.min(axis=0), qcell.min(axis=0))
        span = np.maximum(ecell.max(axis=0), qcell.max(axis=0)) - lo_c + 1
        if float(np.prod(span.astype(np.float64))) < 2.0 ** 62:
            kb = ((ecell[:, 0] - lo_c[0]) * span[1] + (ecell[:, 1] - lo_c[1])) * span[2] + (ecell[:, 2] - lo_c[2])
            kq = ((qcell[:, 0] - lo_c[0]) * span[1] + (qcell[:, 1] - lo_c[1])) * span[2] + (qcell[:, 2] - lo_c[2])
        else:  # cells too many to number in 64 bits: number the occupied ones
            _, inv = np.unique(np.vstack([ecell, qcell]), axis=0, return_inverse=True)
            inv = inv.ravel()
            kb, kq = inv[:len(ecell)], inv[len(ecell):]
        o = np.argsort(kb, kind="stable")
        ks, eb = kb[o], eb[o]
        a = np.searchsorted(ks, kq, "left")
        c = np.searchsorted(ks, kq, "right") - a
        tot = int(c.sum())
        if tot:
            k = np.repeat(eq, c)
            j = eb[np.repeat(a - (np.cumsum(c) - c), c) + np.arange(tot)]
            # axis by axis (columns: no (m, 3) gathered temporaries), the same comparisons
            ok = np.ones(tot, dtype=bool)
            for ax in range(3):
                ok &= (q_lo[:, ax][k] <= hi[:, ax][j]) & (lo[:, ax][j] <= q_hi[:, ax][k])
            # each pair once: in the cell of the low corner of the intersection
            sel = np.flatnonzero(ok)
            kk, js = k[sel], j[sel]
            qrow = np.repeat(np.arange(len(eq)), c)[sel]
            for ax in range(3):
                corner = np.floor((np.maximum(q_lo[:, ax][kk], lo[:, ax][js]) - origin[ax]) / h).astype(np.int64)
                ok[sel] &= corner == qcell[:, ax][qrow]
            out.append(np.column_stack([k[ok], j[ok]]))
    p = np.vstack(out).astype(np.int64) if out else np.zeros((0, 2), dtype=np.int64)
    if not len(p):
        return p
    if float(nq) * float(n) < 2.0 ** 62:
        # np.unique(p, axis=0) by one integer key per pair (k * n + j: the same (k, j) order), sorted
        # (graphs.sorted_unique), instead of numpy's row-wise unique
        key = sorted_unique(p[:, 0] * n + p[:, 1])
        return np.column_stack([key // n, key % n])
    return np.unique(p, axis=0)


#: Downward move (LDU) of the resting test (public name of ``_REST_DROP``).
REST_DROP = _REST_DROP


class BroadPhase:
    """Broad phase of :class:`.collisions.CollisionEngine` (mixin: uses its per-placement arrays)."""

    # -- broad phase (incremental)
    def _broad_chunks(self, queried: np.ndarray, hits: np.ndarray | None = None):
        """Candidate pairs (i < j, boxes grown down by the rest drop) involving the ``queried`` parts,
        yielded in chunks of at most :data:`_BROAD_ROWS` enumerated rows, each pair once.

        A uniform grid (module notes): each box is entered in every cell it covers; in each cell
        (entries sorted by box) an entry is the finder of the entries after it, and a pair whose
        boxes overlap is kept only in the cell of the low corner of their intersection, so each pair
        is found once. Finders enumerate their lists in passes of :data:`_BROAD_WINDOW` entries, in
        chunks of at most :data:`_BROAD_ROWS` rows, so memory stays bounded even when every box meets
        every other (thousands of parts drawn at one place). With ``hits`` ((n,) int, updated by the
        consumer between chunks), a finder whose box already has
        :data:`~bricklayer.constants.CROWDED_PARTNERS` colliding partners stops enumerating (its pairs
        would not be tested). Boxes covering more than :data:`_GRID_MAX_CELLS` cells are tested against
        every box directly, in the first chunks.
        """
        use = np.flatnonzero(self.has_shape)
        lo = self.box_lo.copy()
        lo[:, 2] -= _REST_DROP + 0.1
        hi = self.box_hi.copy()
        far = np.full(3, 1e18)
        lo[~self.has_shape], hi[~self.has_shape] = far, far + 1  # never overlaps
        is_q = np.zeros(self.n, dtype=bool)
        is_q[queried] = True
        is_q &= self.has_shape
        q = np.flatnonzero(is_q)  # sorted, each once: np.intersect1d(queried, use) without its sorts
        if not len(q):
            return
        if len(q) <= _BRUTE_QUERIES and len(q) < len(use):
            # a few new parts (an edit): test their boxes against every box at once
            ov = np.all(lo[None, :, :] <= hi[q, None, :], axis=2) & np.all(lo[q, None, :] <= hi[None, :, :], axis=2)
            qi, j = np.nonzero(ov)
            p = np.column_stack([q[qi], j])
            p = np.sort(p[p[:, 0] != p[:, 1]], axis=1)
            yield np.unique(p, axis=0) if len(p) else p.reshape(0, 2)
            return
        everyone = len(q) == len(use)
        order, cell, cur, stop, huge, h, origin = _grid_lists(lo, hi, use, None if everyone else is_q)
        if len(huge):
            # boxes too large for the grid: against every box (each pair once: huge pairs from the lower index)
            is_huge = np.zeros(self.n, dtype=bool)
            is_huge[huge] = True
            step = max(1, _BROAD_ROWS // max(len(use), 1))
            for s in range(0, len(huge), step):
                hh = huge[s:s + step]
                ov = np.all((lo[use][None, :, :] <= hi[hh, None, :]) & (lo[hh, None, :] <= hi[use][None, :, :]), axis=2)
                a, b = np.nonzero(ov)
                i, j = hh[a], use[b]
                ok = (i != j) & (~is_huge[j] | (i < j))
                if not everyone:
                    ok &= is_q[i] | is_q[j]
                p = np.sort(np.column_stack([i[ok], j[ok]]), axis=1)
                if len(p):
                    yield p
        lo_t, hi_t = np.ascontiguousarray(lo.T), np.ascontiguousarray(hi.T)  # (3, n): one array per axis
        live = np.flatnonzero(stop > cur)
        while len(live):
            # one window of at most _BROAD_WINDOW entries per finder and pass: a finder that reaches
            # CROWDED_PARTNERS colliding partners stops enumerating (thousands of coincident parts cost
            # each about one window, not all the others)
            if hits is not None:
                live = live[hits[order[live]] < CROWDED_PARTNERS]
            take = np.minimum(stop[live] - cur[live], _BROAD_WINDOW)
            csum = np.cumsum(take)
            k0 = 0
            while k0 < len(live):
                base = csum[k0] - take[k0]
                k1 = max(int(np.searchsorted(csum, base + _BROAD_ROWS, side="right")), k0 + 1)
                c = take[k0:k1]
                m = int(c.sum())
                rows = np.repeat(live[k0:k1], c)
                offs = np.arange(m) - np.repeat(np.cumsum(c) - c, c)
                j = order[np.repeat(cur[live[k0:k1]], c) + offs]
                i = order[rows]
                # box overlap axis by axis (columns of lo / hi: no (m, 3) temporaries), then the
                # same test on the survivors' cells
                ok = (lo_t[0][j] <= hi_t[0][i]) & (lo_t[0][i] <= hi_t[0][j])
                for ax in (1, 2):
                    ok &= (lo_t[ax][j] <= hi_t[ax][i]) & (lo_t[ax][i] <= hi_t[ax][j])
                if not everyone:
                    ok &= is_q[i] | is_q[j]
                # each pair once: only in the cell of the low corner of the two boxes' intersection
                sel = np.flatnonzero(ok)
                isel, jsel, csel = i[sel], j[sel], cell[rows[sel]]
                same = None
                for ax in range(3):
                    c_ax = np.floor((np.maximum(lo_t[ax][isel], lo_t[ax][jsel]) - origin[ax]) / h).astype(np.int64)
                    eq = c_ax == csel[:, ax]
                    same = eq if same is None else same & eq
                sel = sel[same]
                p = np.sort(np.column_stack([i[sel], j[sel]]), axis=1)
                if len(p):
                    yield p
                k0 = k1
            cur[live] += take
            live = live[stop[live] > cur[live]]

    def _broad(self, queried: np.ndarray) -> np.ndarray:
        """Candidate pairs (i < j, sorted) involving the ``queried`` parts (boxes grown down by the rest drop)."""
        chunks = list(self._broad_chunks(queried))
        if not chunks:
            return np.zeros((0, 2), dtype=np.int64)
        p = np.vstack(chunks)
        return p[np.lexsort((p[:, 1], p[:, 0]))]
