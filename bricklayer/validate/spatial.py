"""Broad phase (validator stage 2): the spatial index of placement boxes.

Consumes the per-placement arrays of :class:`.collisions.CollisionEngine` (``box_lo`` / ``box_hi``
(n, 3) LDU, ``has_shape``, ``n``); produces candidate pairs ``i < j`` whose boxes, grown down by the
resting drop :data:`REST_DROP`, overlap: sweep and prune along the axis with the shortest sweep lists,
in bounded chunks (:meth:`BroadPhase._broad_chunks`). :class:`BroadPhase` is a mixin of the engine.
"""

from __future__ import annotations

__all__ = ["BroadPhase", "REST_DROP"]

import numpy as np

from ..constants import CROWDED_PARTNERS

#: Broad-phase boxes are grown by this much (LDU) so resting contacts are candidates.
_MARGIN = 1.25
#: Downward move (LDU) of the resting test (module notes, step 5).
_REST_DROP = 1.0
#: Up to this many queried parts, the incremental broad phase tests their boxes against all boxes directly.
_BRUTE_QUERIES = 32
#: Broad-phase rows (candidate boxes) enumerated at once: bounds the memory of the sweep when many boxes
#: meet (every pair of a few thousand parts drawn at one place).
_BROAD_ROWS = 1 << 16
#: Boxes a broad-phase finder enumerates per pass (:meth:`CollisionEngine._broad_chunks`): a finder
#: whose sweep list is longer (a baseplate under hundreds of parts) takes several passes.
_BROAD_WINDOW = 256

#: Downward move (LDU) of the resting test (public name of ``_REST_DROP``).
REST_DROP = _REST_DROP


class BroadPhase:
    """Broad phase of :class:`.collisions.CollisionEngine` (mixin: uses its per-placement arrays)."""

    # -- broad phase (incremental)
    def _broad_chunks(self, queried: np.ndarray, hits: np.ndarray | None = None):
        """Candidate pairs (i < j, boxes grown down by the rest drop) involving the ``queried`` parts,
        yielded in chunks of at most :data:`_BROAD_ROWS` enumerated rows, each pair once.

        Sweep and prune along the axis where the boxes' sweep lists are shortest: every part with
        geometry is the finder of the boxes that start after its own (in sweep order: by start, ties
        by index) and inside its box on that axis, so each pair is found once, from the member whose
        box starts first. Finders enumerate their lists in passes of :data:`_BROAD_WINDOW` boxes,
        in chunks of at most :data:`_BROAD_ROWS` rows, so memory stays bounded even when every box
        meets every other (thousands of parts drawn at one place). With ``hits`` ((n,) int, updated
        by the consumer between chunks), a finder that already has
        :data:`~bricklayer.constants.CROWDED_PARTNERS` colliding partners stops enumerating (its
        pairs would not be tested).
        """
        use = np.flatnonzero(self.has_shape)
        lo = self.box_lo.copy()
        lo[:, 2] -= _REST_DROP + 0.1
        hi = self.box_hi.copy()
        far = np.full(3, 1e18)
        lo[~self.has_shape], hi[~self.has_shape] = far, far + 1  # never overlaps
        q = np.intersect1d(queried, use)
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
        finders = use
        is_q = np.zeros(self.n, dtype=bool)
        is_q[q] = True
        everyone = len(q) == len(use)
        best = None
        for ax in range(3):
            order = np.argsort(lo[:, ax], kind="stable")
            xs = lo[order, ax]
            stop = np.searchsorted(xs, hi[finders, ax], side="right")
            rank = np.empty(self.n, dtype=np.int64)
            rank[order] = np.arange(self.n)
            first = rank[finders] + 1  # canonical: boxes after the finder's own in sweep order
            total = int(np.maximum(stop - first, 0).sum())
            if best is None or total < best[0]:
                best = (total, order, first, stop)
        total, order, cur, stop = best
        if total == 0:
            return
        live = np.flatnonzero(stop > cur)
        while len(live):
            # one window of at most _BROAD_WINDOW boxes per finder and pass: a finder that reaches
            # CROWDED_PARTNERS colliding partners stops enumerating (thousands of coincident parts cost
            # each about one window, not all the others)
            if hits is not None:
                live = live[hits[finders[live]] < CROWDED_PARTNERS]
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
                i = finders[rows]
                ok = np.all(lo[j] <= hi[i], axis=1) & np.all(lo[i] <= hi[j], axis=1)
                if not everyone:
                    ok &= is_q[i] | is_q[j]
                p = np.sort(np.column_stack([i[ok], j[ok]]), axis=1)
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
