"""Collisions: parts whose meshes, each inset by 0.25 LDU, intersect.

Pipeline (issue #4; validator notes)
------------------------------------
1. **Geometry.** Each distinct part gets an inset surface
   (:func:`ldraw_data.collision.collision_shape`: vertices moved inward so
   every face plane moves by ``TOL.collision_inset`` = 0.25 LDU; certified
   parts use their BFC winding, uncertified ones the winding trimesh
   repairs; see that module for the method and its limits). An FCL
   ``BVHModel`` is built once per process per (part, inset, mirrored), only
   for parts that reach the narrow phase. Mirrored placements (det < 0, the
   flexible hoses of official files) use a mirrored copy of the shape, so
   every FCL transform is a proper rotation. MPD-embedded parts (stickers,
   bent parts) get their geometry from ``build.embedded_files``; parts found
   nowhere have no geometry and are listed by :func:`unchecked_placements`.
2. **Broad phase.** A box per placement (the inset shape's bounds, grown by
   ``_MARGIN`` so that resting contacts are found too); a uniform grid of
   cells about one brick wide lists the pairs of boxes that overlap, each
   once (:mod:`.spatial`, :meth:`CollisionEngine._broad_chunks`), so the
   work grows with the parts and their true neighbours (issue 20).
   The analysed pairs are kept between validations: after an edit only
   placements whose path or pose changed are queried. After append-only
   edits (``LegoBuild._appended_since``: parts added at the end of the top
   level) the per-placement arrays are extended rather than rebuilt and only
   the new parts' boxes are tested against all boxes, so adding a part to
   the 5,247-part Millennium Falcon costs a few milliseconds here.
3. **Narrow phase.** A pair collides when FCL finds an intersection of the
   two inset meshes. The answer depends only on the two parts and their
   relative pose, so it is memoized on a 64-bit hash of (part, part, relative
   pose rounded to 1e-3 / 0.01 LDU, inset): in memory, and on disk under
   ``cache_dir()/collision-pairs-*.npz`` (official sets repeat the same brick
   pairs thousands of times).
3b. **Parts drawn inside many others.** Once a part has
   :data:`~bricklayer.constants.CROWDED_PARTNERS` (32) colliding partners, its
   further candidate pairs are not narrow-phase tested nor kept
   (:meth:`CollisionEngine._analyse_capped`; counted in
   :attr:`CollisionEngine.unexamined`). A file that draws thousands of parts at one
   place (sub-models that each place the next one twice) or a few LDU apart would
   otherwise cost time and memory in the square of its parts; real parts meet at
   most 11 others (official models), so no real result changes. The broad phase
   enumerates its candidates in bounded chunks for the same reason.
4. **Press fits** (local to the joint). A colliding pair that is mated
   through a connector (:mod:`.connections`) is reported only when it still
   collides with each mesh inset by a further half of the family's
   allowance (:data:`PRESS_FIT_ALLOWANCE`), applied only where the joint
   presses:

   * sliding joints (pin, axle, bar, clip) and studs press radially: the
     extra inset is applied across the joint axis, and only
     :data:`AXIAL_EXTRA` along it (:meth:`CollisionEngine._query_radial`),
     so a pin, axle or hat pushed along its joint into a stop is still
     caught; for sliding joints only within :data:`JOINT_RADIUS` of the
     mated connectors' axis lines, so a pin's collar pushed into the bore of
     a beam is caught too;
   * point joints (hinges, minifigure shoulders / wrists / hips, control
     sticks, tow balls) get their allowance only while they sit on their
     seat (:data:`SEAT`): the offset of the two connector origins within
     0.6 LDU of its nominal value, so a minifigure arm or hinge pushed 1 LDU
     into its mate (still mated: the graph's 2.1 LDU joint tolerance) loses
     the allowance.

   A colliding pair the graph leaves unmated but whose sliding connectors
   (clip / bar, axle, pin) mate within :data:`LOOSE_MATE` (0.7 LDU off the
   axis: hand-posed minifigure hands and rounded matrices) gets the same
   (radial) allowance. A colliding pair with no allowance is reported only
   when it still meets with both meshes inset a further
   :data:`~.press_fit.ROUNDING_MARGIN` (0.05 LDU each): an overlap of at most
   0.6 LDU is the 0.5 LDU clearance plus coordinates rounded in the file.
   Verdicts are kept per pair of placements, so after an
   edit only new colliding pairs are decided (:meth:`CollisionEngine.reported`).
4b. **Flexible parts.** Segments of one flexible part (hose, string, belt,
   LSynth output: "segment" in the part title, following "~Moved to"
   aliases) and links of one chain ("chain link") under the same parent are pieces of one physical part drawn
   overlapping; they are not tested against each other
   (:meth:`CollisionEngine.same_flexible`), but against every other part.
5. **Resting contacts** (used by :mod:`.support`): part A rests on part B
   when A, moved down by ``_REST_DROP`` = 1 LDU, collides with B while A's
   lowest point is above B's. With the 0.5 LDU gap the inset leaves, this
   finds surfaces that touch within 0.5 LDU (or press into each other);
   vertical side faces never meet under a vertical move, so side contact
   alone is not support.

Overlap depth (:func:`collision_details`) is estimated for reported pairs
only: the smallest shift along one of the six world axis directions that
separates the two inset meshes (bisection to 0.1 LDU), plus the 0.5 LDU the
inset hides (so a brick pushed 1 LDU into its neighbour reports about 1 LDU).
"""


from __future__ import annotations

__all__ = [
    "colliding_placements",
    "collision_details",
    "CollisionRecord",
    "PRESS_FIT_ALLOWANCE",
    "LOOSE_MATE",
    "SEAT",
    "AXIAL_EXTRA",
    "JOINT_RADIUS",
    "INTERFERENCE_INSETS",
    "unchecked_placements",
    "unknown_placements",
    "collision_engine",
]

import logging
from dataclasses import dataclass, field

import numpy as np

from ..constants import CROWDED_PARTNERS, TOL
from ._world import _embedded_doc, appended_rows, with_room, world_arrays
from .connections import connection_graph
from .fcl import _MIRROR, SHAPE_STORE as _STORE, collide as _collide, inv_rigid as _inv_rigid
from .memo import _DEPTH_MEMO, _MEMO, _ROT_Q, _PairMemo, _code, _pair_hash  # noqa: F401 (_PairMemo: old home)
from .press_fit import (AXIAL_EXTRA, JOINT_RADIUS, LOOSE_MATE, PRESS_FIT_ALLOWANCE, SEAT, PressFits,
                        _pair_allowances)  # noqa: F401 (old homes)
from .spatial import _REST_DROP, BroadPhase

log = logging.getLogger(__name__)

#: Insets (LDU) tried by :meth:`CollisionEngine.interference_depth`, in order (the common 0.25 LDU first:
#: a reported pair always meets there; 0.3 LDU: pairs without a press-fit allowance are reported only
#: when they meet there too, :data:`~.press_fit.ROUNDING_MARGIN`, so they read at least 0.6 LDU deep).
INTERFERENCE_INSETS = (0.3, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0)
_SHIFTS = np.vstack([np.eye(3), -np.eye(3)])




# ----------------------------------------------------------------------------------------------
# the per-build engine

def _hull_boxes(t: np.ndarray, hull: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """World boxes of one part's hull at many placements: ``(lo, hi)``, each (n, 3) LDU.

    ``t``: (n, 4, 4) world transforms; ``hull``: (k, 3) hull points (LDU, part frame). The box of a
    placement is the min / max over the hull points of ``R p + t``. Placements of one part share few
    rotations (a large build repeats the same orientations thousands of times), so ``R p`` and its
    min / max are computed once per distinct rotation (by its bytes) and the translation added after:
    floating-point addition is monotonic, so ``min(x_k) + t`` equals ``min(x_k + t)`` bit for bit, and
    the boxes are those of transforming every point of every placement.
    """
    n = len(t)
    rot = np.ascontiguousarray(t[:, :3, :3]).reshape(n, 9)
    first: dict = {}
    inv = np.fromiter((first.setdefault(b, len(first)) for b in map(bytes, rot)), dtype=np.intp, count=n)
    if len(first) == n:
        uniq = np.arange(n)
    else:
        uniq = np.zeros(len(first), dtype=np.intp)
        uniq[inv] = np.arange(n)  # a placement of each rotation (any: their rotations are the same bytes)
    w = np.einsum("nij,kj->nki", t[uniq, :3, :3], hull)
    move = t[:, :3, 3]
    return w.min(axis=1)[inv] + move, w.max(axis=1)[inv] + move


class CollisionEngine(BroadPhase, PressFits):
    """Broad phase, narrow phase and resting contacts of one build, kept between edits.

    Get it with :func:`collision_engine`; :meth:`refresh` brings it up to date
    with the build (incrementally).

    Attributes
    ----------
    n : int
        Number of placements analysed.
    transforms : (n, 4, 4) float64
        Proper (det +1) mesh transforms, LDraw part frame -> world (BrickLayer, LDU).
    has_shape : (n,) bool
        False for parts without geometry (no collisions, grounded by their origin).
    min_z : (n,) float64, LDU
        Lowest world point of each part's (uninset) surface.
    pairs : (m, 2) int
        Broad-phase candidate pairs ``i < j``.
    hit : (m,) bool
        Inset meshes intersect.
    rests : (m, 2) bool
        ``rests[k, 0]``: ``pairs[k, 0]`` rests on ``pairs[k, 1]``; ``[k, 1]`` the reverse.
    unexamined : int
        Candidate pairs left untested because a member already had
        :data:`~bricklayer.constants.CROWDED_PARTNERS` colliding partners (module notes, step 3b);
        0 on every real model.
    crowded : (c,) int
        Parts that reached that many colliding partners ("drawn inside many others").
    """

    def __init__(self, build):
        self._build = build
        self._state = None
        self._ids: dict = {}                     # instance key -> int id
        self.pair_ids = np.zeros((0, 2), dtype=np.int64)   # analysed pairs (ids)
        self.pair_flags = np.zeros((0, 3), dtype=bool)     # hit, a rests on b, b rests on a
        self.embedded = None
        self._reported = None
        self._verdicts: dict = {}               # (inst a, inst b) -> still colliding after allowances
        self.unexamined = 0                     # candidate pairs left untested (crowded parts)
        self.crowded = np.zeros(0, dtype=np.int64)

    # -- per placement data
    def _prepare(self, start: int = 0) -> bool:
        """Per-placement arrays; with ``start`` > 0 (append-only edits, see :meth:`refresh`) the
        first ``start`` placements are kept and only the ones after them are computed. Returns
        False when that is not possible (MPD-embedded parts changed)."""
        wa = world_arrays(self._build)
        emb = _embedded_doc(self._build)
        if start and emb is not self.embedded:
            return False
        self.embedded = emb
        n = len(wa.placements)
        m = n - start
        t = wa.mesh_transforms[start:].copy()
        mirrored = np.linalg.det(t[:, :3, :3]) < 0 if m else np.zeros(0, dtype=bool)
        t[mirrored] = t[mirrored] @ _MIRROR
        shapes = self.shapes if start else {}
        codes = np.zeros(m, dtype=np.int64)
        has = np.zeros(m, dtype=bool)
        seg = np.zeros(m, dtype=np.int8)
        lo = np.zeros((m, 3))
        hi = np.zeros((m, 3))
        if start:
            groups: dict = {}
            for i in range(start, n):
                groups.setdefault(wa.keys[i], []).append(i - start)
            groups = {k: np.asarray(v, dtype=np.intp) for k, v in groups.items()}
        else:
            groups = wa.groups
        for key, idx in groups.items():
            s = _STORE.shape(key, self.embedded)
            shapes[key] = s
            seg[idx] = _is_segment(key, s, self.embedded)
            if s is None:
                lo[idx] = hi[idx] = wa.poses[idx + start, :3, 3]
                continue
            has[idx] = True
            codes[idx] = _code(key)
            hull = s.hull_points
            for mir in (False, True):
                sel = idx[mirrored[idx] == mir]
                if not len(sel):
                    continue
                h = hull * np.array([-1.0, 1.0, 1.0]) if mir else hull
                lo[sel], hi[sel] = _hull_boxes(t[sel], h)
        if not start:
            self._parents = {}
        parents = self._parents
        ids = self._ids
        paths = wa.path_ids[start:]
        parent = np.fromiter((parents.setdefault(p[:-1], len(parents)) for p in paths), dtype=np.int64, count=m)
        ik = zip(paths, wa.keys[start:], map(bytes, np.ascontiguousarray(t).reshape(m, 16)))
        inst = np.fromiter((ids.setdefault(k, len(ids)) for k in ik), dtype=np.int64, count=m)
        if start:
            t, mirrored = np.concatenate([self.transforms, t]), np.concatenate([self.mirrored, mirrored])
            codes, has = np.concatenate([self.codes, codes]), np.concatenate([self.has_shape, has])
            lo, hi = np.concatenate([self.box_lo, lo]), np.concatenate([self.box_hi, hi])
            seg, parent = np.concatenate([self.segment, seg]), np.concatenate([self.parent, parent])
            inst = np.concatenate([self.inst, inst])
        self.wa, self.n, self.transforms, self.mirrored = wa, n, t, mirrored
        self.keys, self.shapes, self.codes, self.has_shape = wa.keys, shapes, codes, has
        self.box_lo, self.box_hi, self.min_z = lo, hi, lo[:, 2].copy()
        self.segment, self.parent, self.inst = seg, parent, inst
        return True

    def _broad_and_analyse(self, queried: np.ndarray, hits: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Candidate pairs of the ``queried`` parts and their flags (:meth:`_analyse_capped`), sorted.

        ``hits``: (n,) int colliding partners each part already has (pairs kept from before).
        Sets :attr:`unexamined` (pairs left untested) and :attr:`crowded` (parts that reached
        :data:`~bricklayer.constants.CROWDED_PARTNERS`).
        """
        hits = np.zeros(self.n, dtype=np.int64) if hits is None else hits.astype(np.int64).copy()
        pairs, flags, skipped = [], [], 0
        for chunk in self._broad_chunks(queried, hits):
            p, f, k = self._analyse_capped(chunk, hits)
            pairs.append(p)
            flags.append(f)
            skipped += k
        self.unexamined = skipped
        self.crowded = np.flatnonzero(hits >= CROWDED_PARTNERS)
        if not pairs:
            return np.zeros((0, 2), dtype=np.int64), np.zeros((0, 3), dtype=bool)
        p, f = np.vstack(pairs), np.vstack(flags)
        o = np.lexsort((p[:, 1], p[:, 0]))
        return p[o], f[o]

    def _analyse_capped(self, pairs: np.ndarray, hits: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
        """Narrow phase of candidate pairs with at most :data:`~bricklayer.constants.CROWDED_PARTNERS`
        colliding partners per part ("parts drawn inside many others").

        Pairs are taken in order (sorted by ``(i, j)``) in rounds; in a round a part takes part in at
        most as many tests as it may still find partners, so no part exceeds the cap and the result
        is what testing pair by pair in that order gives. Once a part has the cap, its remaining
        pairs are not tested and not kept. ``hits`` ((n,) int) is updated in place.

        Returns
        -------
        pairs : (m, 2) int
            The pairs tested.
        flags : (m, 3) bool
            As :meth:`_analyse`.
        skipped : int
            Pairs not tested.
        """
        pend = pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))]
        done_p, done_f, skipped = [], [], 0
        while len(pend):
            budget = CROWDED_PARTNERS - hits
            live = (budget[pend[:, 0]] > 0) & (budget[pend[:, 1]] > 0)
            skipped += int((~live).sum())
            pend = pend[live]
            if not len(pend):
                break
            # rank of each pair among the pending pairs of each of its members (in pair order)
            flat = pend.ravel()  # a0, b0, a1, b1, ...
            o = np.argsort(flat, kind="stable")
            sf = flat[o]
            first = np.searchsorted(sf, sf, side="left")
            rank = np.empty(len(flat), dtype=np.int64)
            rank[o] = np.arange(len(flat)) - first
            rank = rank.reshape(-1, 2)
            take = (rank[:, 0] < budget[pend[:, 0]]) & (rank[:, 1] < budget[pend[:, 1]])
            now = pend[take]
            f = self._analyse(now)
            np.add.at(hits, now[f[:, 0]].ravel(), 1)
            done_p.append(now)
            done_f.append(f)
            pend = pend[~take]
        if not done_p:
            return np.zeros((0, 2), dtype=np.int64), np.zeros((0, 3), dtype=bool), skipped
        return np.vstack(done_p), np.vstack(done_f), skipped

    # -- narrow phase, memoized
    def _query(self, ia: np.ndarray, ib: np.ndarray, ta: np.ndarray, tb: np.ndarray, inset: float) -> np.ndarray:
        """Do part ia at world transform ta and part ib at tb intersect (inset meshes)? (m,) bool."""
        m = len(ia)
        if not m:
            return np.zeros(0, dtype=bool)
        rel_ab = _inv_rigid(ta) @ tb
        rel_ba = _inv_rigid(tb) @ ta
        level = np.full(m, int(round(inset * 1000)))
        ca = self.codes[ia] * 2 + self.mirrored[ia]
        cb = self.codes[ib] * 2 + self.mirrored[ib]
        h12 = _pair_hash(np.r_[ca, cb], np.r_[cb, ca], np.concatenate([rel_ab, rel_ba]), np.r_[level, level])
        h1, h2 = h12[:m], h12[m:]
        use_ab = h1 <= h2
        h = np.where(use_ab, h1, h2)
        found, out = _MEMO.lookup(h)
        todo: dict = {}
        for k in np.flatnonzero(~found).tolist():
            todo.setdefault(int(h[k]), []).append(k)
        for hk, ks in todo.items():
            k = ks[0]
            a, b = (ia[k], ib[k]) if use_ab[k] else (ib[k], ia[k])
            rel = rel_ab[k] if use_ab[k] else rel_ba[k]
            sa, sb = self.shapes[self.keys[a]], self.shapes[self.keys[b]]
            ma = _STORE.model(sa, bool(self.mirrored[a]), inset)
            mb = _STORE.model(sb, bool(self.mirrored[b]), inset)
            v = _collide(ma, mb, rel)
            _MEMO.new[hk] = v
            out[ks] = v
        return out

    def _query_radial(self, i: int, j: int, extra: float, axis: np.ndarray, points=None) -> bool:
        """Do parts i and j intersect with the common inset plus ``extra`` (LDU) across ``axis`` only?

        The press fit of a sliding or stud joint (pin, axle, bar, clip,
        stud) is radial: the pin's ridges press into the hole's wall. Each
        vertex takes its extra inset along its direction with the component
        along the joint axis (world, unit) cut to :data:`AXIAL_EXTRA`, so end
        faces, collars and axle stops are inset by the common 0.25 LDU plus
        0.2 LDU only: a pin or axle pushed 1 LDU along its hole into a stop,
        or a collar pushed into the beam, stays a collision.
        Memoized like :meth:`_query` (the axis, in each part's frame, is part
        of the key).
        """
        t = self.transforms
        la = t[i, :3, :3].T @ axis
        lb = t[j, :3, :3].T @ axis
        rel = _inv_rigid(t[i][None])[0] @ t[j]
        pa = pb = None
        if points is not None and len(points):
            w = np.asarray(points, dtype=np.float64).reshape(-1, 3)
            pa = (w - t[i, :3, 3]) @ t[i, :3, :3]
            pb = (w - t[j, :3, 3]) @ t[j, :3, :3]
        level = (int(round(TOL.collision_inset * 1000)) + (int(round(extra * 1000)) << 12)
                 + (int(round(AXIAL_EXTRA * 1000)) << 24))
        ax_code = np.round(np.concatenate([la, lb] + ([] if pa is None else [pa.ravel() / 10, [JOINT_RADIUS]]))
                           * 100).astype(np.int64)
        for c in ax_code.tolist():
            level = (level * 1000003 + (c & 0xFFFF)) & 0x7FFFFFFFFFFF
        ca = np.array([self.codes[i] * 2 + self.mirrored[i]])
        cb = np.array([self.codes[j] * 2 + self.mirrored[j]])
        h = _pair_hash(ca, cb, rel[None], np.array([level | (1 << 47)]))
        found, val = _MEMO.lookup(h)
        if found[0]:
            return bool(val[0])
        ma = _STORE.radial_model(self.shapes[self.keys[i]], bool(self.mirrored[i]), TOL.collision_inset, extra, la, pa)
        mb = _STORE.radial_model(self.shapes[self.keys[j]], bool(self.mirrored[j]), TOL.collision_inset, extra, lb, pb)
        v = _collide(ma, mb, rel)
        _MEMO.new[int(h[0])] = v
        return v

    def refresh(self) -> "CollisionEngine":
        """Bring the analysis up to date with the build (incrementally). Returns self."""
        state = self._build._state_key()
        if self._state == state:
            return self
        if self.unexamined:
            # pairs were left untested (crowded parts): their verdicts depend on the order of the whole
            # analysis, so analyse everything again rather than keeping pairs
            self._state = None
            self.pair_ids = np.zeros((0, 2), dtype=np.int64)
            self.pair_flags = np.zeros((0, 3), dtype=bool)
        if self._state is not None and self._build._appended_since(self._state) is not None:
            # append-only edits: the first self.n placements are unchanged, keep their arrays and pairs
            n_old = self.n
            old_hits = self.pairs[self.hit]
            if self._prepare(n_old):
                hits = np.bincount(old_hits.ravel(), minlength=self.n)
                new_pairs, flags = self._broad_and_analyse(np.arange(n_old, self.n), hits)
                # the kept pairs stay first, in their order (kept_pairs of them); the new rows are written
                # after them in place where the arrays have room (_world.appended_rows), not copied with them
                self.kept_pairs = len(self.pairs)
                new_pairs = np.asarray(new_pairs, dtype=self.pairs.dtype).reshape(-1, 2)
                self.pair_ids = appended_rows(self.pair_ids, self.inst[new_pairs].astype(self.pair_ids.dtype))
                self.pair_flags = appended_rows(self.pair_flags, flags)
                self.pairs = appended_rows(self.pairs, new_pairs)  # new_pairs are i < j already
                self.hit = appended_rows(self.hit, flags[:, 0])
                self.rests = appended_rows(self.rests, flags[:, 1:])
                self._prev_inst = self.inst
                self._state = state
                self._reported = None
                _MEMO.save()
                return self
        self._prepare()
        inst = self.inst
        id_to_idx = np.full(len(self._ids), -1, dtype=np.int64)
        id_to_idx[inst] = np.arange(self.n)
        # keep analysed pairs whose two placements are unchanged
        keep = np.all(id_to_idx[self.pair_ids] >= 0, axis=1) if len(self.pair_ids) else np.zeros(0, dtype=bool)
        old_ids, old_flags = self.pair_ids[keep], self.pair_flags[keep]
        seen_before = self._state is not None
        if seen_before:
            prev = self._prev_inst
            is_new = ~np.isin(inst, prev)
            queried = np.flatnonzero(is_new)
        else:
            queried = np.arange(self.n)
        hits = np.zeros(self.n, dtype=np.int64)
        if len(old_ids):
            np.add.at(hits, id_to_idx[old_ids[old_flags[:, 0]]].ravel(), 1)
        new_pairs, flags = self._broad_and_analyse(queried, hits)
        self.pair_ids = np.vstack([old_ids, inst[new_pairs]]) if len(new_pairs) else old_ids
        self.pair_flags = np.vstack([old_flags, flags]) if len(new_pairs) else old_flags
        idx = id_to_idx[self.pair_ids]
        swap = idx[:, 0] > idx[:, 1]
        # with room after the rows for the pairs of appended parts (the append path above)
        self.pair_ids, self.pair_flags = with_room(self.pair_ids), with_room(self.pair_flags)
        self.pairs = with_room(np.sort(idx, axis=1))
        self.hit = with_room(self.pair_flags[:, 0])
        r = with_room(self.pair_flags[:, 1:])
        r[swap] = r[swap][:, ::-1]
        self.rests = r
        self.kept_pairs = 0  # rows of pairs in the order of the last state: none (see the append path)
        self._prev_inst = inst
        self._state = state
        self._reported = None
        _MEMO.save()
        return self

    def _analyse(self, pairs: np.ndarray) -> np.ndarray:
        """(m, 3) bool flags (hit, a rests on b, b rests on a) of index pairs."""
        m = len(pairs)
        out = np.zeros((m, 3), dtype=bool)
        if not m:
            return out
        a, b = pairs[:, 0], pairs[:, 1]
        t = self.transforms
        inset = TOL.collision_inset
        lo, hi = self.box_lo, self.box_hi
        # collision needs the inset boxes to overlap
        la, lb, ha, hb = lo[a], lo[b], hi[a], hi[b]
        close = np.ones(m, dtype=bool)
        for ax in range(3):  # axis by axis: the same comparisons as np.all(..., axis=1), fewer temporaries
            close &= (la[:, ax] + inset < hb[:, ax] - inset) & (lb[:, ax] + inset < ha[:, ax] - inset)
        sel = np.flatnonzero(close)
        out[sel, 0] = self._query(a[sel], b[sel], t[a[sel]], t[b[sel]], inset)
        # resting: the higher part moved down by _REST_DROP meets the lower one
        a_up = self.min_z[a] > self.min_z[b] + 1e-6
        b_up = self.min_z[b] > self.min_z[a] + 1e-6
        up = np.where(a_up, a, b)
        dn = np.where(a_up, b, a)
        drop = np.array([0, 0, _REST_DROP])
        lu, ld, hu, hd = lo[up], lo[dn], hi[up], hi[dn]
        close_r = np.ones(m, dtype=bool)
        for ax in range(3):
            close_r &= (lu[:, ax] - drop[ax] + inset < hd[:, ax] - inset) & (
                ld[:, ax] + inset < hu[:, ax] - drop[ax] - inset)
        sel = np.flatnonzero(~out[:, 0] & (a_up | b_up) & close_r)
        tu = t[up[sel]].copy()
        tu[:, 2, 3] -= _REST_DROP
        rest = self._query(up[sel], dn[sel], tu, t[dn[sel]], inset)
        out[sel, 1] = rest & a_up[sel]
        out[sel, 2] = rest & b_up[sel]
        return out

    def same_flexible(self, pairs: np.ndarray) -> np.ndarray:
        """(m,) bool: both parts are pieces of one flexible element drawn in the same submodel instance.

        LDraw draws hoses, strings, belts and LSynth output as rigid
        segments that overlap their neighbours where the real part is one
        continuous bent piece ("Hose Flexible Segment ...", "LSynth ... String
        Segment", "Belt Segment ..."), and a chain as links threaded through
        each other ("Minifig Chain Link" 30104k02, issue 16 item 4). Pieces
        are recognised by the trait of their title (:data:`PIECE_TRAITS`,
        whole words); two pieces of the same trait under the same parent are
        pieces of one physical part and are not tested against each other.
        """
        if not len(pairs):
            return np.zeros(0, dtype=bool)
        a, b = pairs[:, 0], pairs[:, 1]
        return (self.segment[a] > 0) & (self.segment[a] == self.segment[b]) & (self.parent[a] == self.parent[b])

    def drawn_only(self, pairs: np.ndarray) -> np.ndarray:
        """(m,) bool: one of the two parts is a library sub-part or primitive placed as a part
        (:func:`._world.drawn_not_part`): drawn, not built, so the pair is no collision (the part is
        reported once as NOT A PART instead)."""
        if not len(pairs):
            return np.zeros(0, dtype=bool)
        from ._world import drawn_not_part

        keys = self.keys
        return np.fromiter((drawn_not_part(keys[i]) or drawn_not_part(keys[j]) for i, j in pairs.tolist()),
                           dtype=bool, count=len(pairs))

    def interference_depth(self, i: int, j: int) -> float:
        """How deep the material of parts ``i`` and ``j`` overlaps (LDU), apart from the move that clears it.

        Both inset meshes are inset further, by the steps of :data:`INTERFERENCE_INSETS`; material
        overlapping by ``d`` separates once each surface has moved in by more than ``d / 2``
        (surfaces that touch count as meeting), so with ``c`` the first inset that separates them
        and ``p`` the one before (the common ``TOL.collision_inset`` first), ``2 p <= d < 2 c``;
        ``2 p`` is returned (exact for faces drawn on the grid: a brick pushed 1 LDU into the one
        below gives 1.0). A headdress seated on a head interferes 1.5 LDU even where the shortest
        shift that separates the two is 28 LDU (issue 16 item 13). ``inf`` when the largest inset
        does not separate them (parts drawn through each other, or walls too thin to inset:
        ``shape.caps``). Memoized like the narrow phase.
        """
        return float(self.interference_depths(np.array([[i, j]]))[0])

    def interference_depths(self, pairs: np.ndarray) -> np.ndarray:
        """:meth:`interference_depth` of many pairs ((m, 2) int part indices): (m,) float LDU (``inf`` as
        there). One narrow-phase query per inset step for all the pairs still meeting at the step before
        (a report estimates up to 200 pairs: batched, the memo lookups cost a few numpy calls per step,
        not per pair); the answers are those of the pair by pair loop."""
        pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
        out = np.full(len(pairs), np.inf)
        t = self.transforms
        live = np.arange(len(pairs))
        prev = TOL.collision_inset
        for c in INTERFERENCE_INSETS:
            if not len(live):
                break
            a, b = pairs[live, 0], pairs[live, 1]
            meet = self._query(a, b, t[a], t[b], c)
            out[live[~meet]] = 2.0 * prev
            live = live[meet]
            prev = c
        return out

    def overlap_depth(self, i: int, j: int, max_shift: float = 48.0) -> tuple[float, tuple]:
        """Estimated overlap of parts ``i`` and ``j`` (module notes).

        Returns
        -------
        depth : float, LDU
            Smallest axis-aligned shift of part ``j`` that separates the inset
            meshes, plus the 0.5 LDU the insets hide (``max_shift`` when none
            up to it does).
        direction : (3,) tuple
            The world direction of that shift.

        Memoized like the narrow phase, in memory and on disk
        (``cache_dir()/collision-depths-*.npz``), per shapes, relative pose and
        the first part's world rotation: a repeated pair costs no FCL call.
        """
        t = self.transforms
        inset = TOL.collision_inset
        inv_a = _inv_rigid(t[i][None])[0]
        # memo key: shapes, relative pose, level = inset, max_shift and the first part's world rotation
        rq = np.round(t[i, :3, :3] / _ROT_Q).astype(np.int64).ravel().tolist()
        level = (int(round(inset * 1000)) * 1000003 + int(round(max_shift * 100))) & 0x7FFFFFFFFFFF
        for c in rq:
            level = (level * 1000003 + (c & 0xFFFF)) & 0x7FFFFFFFFFFF
        h = _pair_hash(np.array([self.codes[i] * 2 + self.mirrored[i]]),
                       np.array([self.codes[j] * 2 + self.mirrored[j]]), (inv_a @ t[j])[None],
                       np.array([level | (1 << 46)]))
        found, val = _DEPTH_MEMO.lookup(h)
        if found[0]:
            k = int(val[0] // 100)
            return float(val[0] - 100 * k), tuple(float(x) for x in _SHIFTS[k])
        ma = _STORE.model(self.shapes[self.keys[i]], bool(self.mirrored[i]), inset)
        mb = _STORE.model(self.shapes[self.keys[j]], bool(self.mirrored[j]), inset)
        best, best_k = max_shift, 2
        for k, d in enumerate(_SHIFTS):
            def free(s):
                tb = t[j].copy()
                tb[:3, 3] += d * s
                return not _collide(ma, mb, inv_a @ tb)

            lo, hi = 0.0, None
            s = 0.5
            while s <= min(best, max_shift):
                if free(s):
                    hi = s
                    break
                lo, s = s, s * 2
            if hi is None:
                continue
            while hi - lo > 0.1:
                mid = (lo + hi) / 2
                if free(mid):
                    hi = mid
                else:
                    lo = mid
            if hi < best:
                best, best_k = hi, k
        depth = best + 2 * inset if best < max_shift else max_shift
        _DEPTH_MEMO.new[int(h[0])] = depth + 100 * best_k
        _DEPTH_MEMO.save()
        return depth, tuple(float(x) for x in _SHIFTS[best_k])


#: Traits (:data:`ldraw_data.traits.TRAITS`) of pieces of one flexible part, by code: pieces with the same
#: code under the same parent are not tested against each other (:meth:`CollisionEngine.same_flexible`).
PIECE_TRAITS = ("segment", "chain link")


def _is_segment(key: str, shape, embedded) -> int:
    """Piece code of a part: ``1 + k`` when its title carries ``PIECE_TRAITS[k]`` (a hose or string
    segment, a link of a chain), else 0 (see ``same_flexible``).

    Library parts take the title stored with their collision shape (the
    file's first line, ``~Moved to`` aliases followed, see
    :class:`ldraw_data.collision.CollisionShape`), which costs nothing once
    the shape is loaded; MPD-embedded parts the title of their block. An
    MPD-embedded block marked as a sub-part (``!LDRAW_ORG ... Subpart``) and
    placed as a part is a segment too, whatever its title (70814 draws its
    rubber belt as sub-parts "43903a" and "Belt Segment Curved").
    """
    from ldraw_data.traits import title_traits

    from ._world import _embedded_title, embedded_is_subpart

    title = (getattr(shape, "title", "") or "") if not key.startswith("?") else _embedded_title(key, embedded)
    t = title_traits(title)
    for k, name in enumerate(PIECE_TRAITS):
        if name in t:
            return k + 1
    if embedded_is_subpart(key, embedded):  # an embedded sub-part placed as a part: a piece of a drawn whole
        return PIECE_TRAITS.index("segment") + 1 if "segment" in PIECE_TRAITS else 0
    return 0

def collision_engine(build) -> CollisionEngine:
    """The build's (persistent, incrementally updated) :class:`CollisionEngine`, refreshed."""
    eng = build._cache.get("validate.engine")
    if eng is None:
        eng = CollisionEngine(build)
        build._cache["validate.engine"] = eng
    return eng.refresh()


# ----------------------------------------------------------------------------------------------
# public queries


def colliding_placements(build) -> list:
    """Pairs of parts whose inset meshes intersect (press fits of mated parts excepted).

    Parameters
    ----------
    build : LegoBuild

    Returns
    -------
    list of (FlatPlacement, FlatPlacement)
        Each pair once, in flattened order (``a`` before ``b``), sorted.
    """
    eng = collision_engine(build)
    rep = eng.reported()
    flat = eng.wa.placements
    return [(flat[i], flat[j]) for i, j in sorted(map(tuple, rep.tolist()))]


@dataclass(frozen=True)
class CollisionRecord:
    """One reported collision, for feedback to users and agents.

    Attributes
    ----------
    a, b : FlatPlacement
    part_ids : (str, str)
        LDraw part ids.
    descriptions : (str, str)
        ``build.describe(...)``: name or index path, part id, part name, colour.
    submodels : (str, str)
        Names of the sub-builds (LDraw submodels) holding each part, ``"/"``-joined; ``""`` at top level.
    depth : float, LDU
        The move that clears the pair: the shortest axis-aligned shift of ``b`` that separates them
        (see :meth:`CollisionEngine.overlap_depth`).
    direction : (3,) tuple of float
        World direction in which moving ``b`` by ``depth`` separates the parts.
    mated : bool
        True when the two parts are also mated (the overlap exceeds the press-fit allowance).
    interference : float, LDU
        How deep the material overlaps (:meth:`CollisionEngine.interference_depth`; when its inset
        steps do not separate the pair, the move that clears it, ``depth``, if that is under
        ``2 * INTERFERENCE_INSETS[-1]`` (12 LDU): an upper bound, exact for a part pushed along an
        axis; otherwise ``inf``: drawn through each other), ``nan`` when not estimated.
    """

    a: object
    b: object
    part_ids: tuple
    descriptions: tuple
    submodels: tuple
    depth: float
    direction: tuple
    mated: bool = False
    extra: dict = field(default_factory=dict)
    interference: float = float("nan")

    def interference_text(self) -> str:
        """The interference in words: "interfering about 1.0 LDU deep", "drawn through each other", "sunk into
        it ..." (rule "sticker sunk into a part", :mod:`.sunk_stickers`) or ""."""
        x = self.interference
        if self.extra.get("sunk_sticker"):
            return (f"the sticker is sunk into the part, its whole slab inside the material (at least {x:.2f} "
                    "LDU under its surface)")
        if x != x:
            return ""
        if x == float("inf"):
            return f"drawn through each other (more than {2 * INTERFERENCE_INSETS[-1]:g} LDU deep)"
        return f"interfering about {x:.1f} LDU deep"

    def move_text(self) -> str:
        """The move that clears the pair in words ("" when not estimated)."""
        if self.depth != self.depth:
            return ""
        return (f"moving the second part {self.depth:.1f} LDU along "
                f"({self.direction[0]:g}, {self.direction[1]:g}, {self.direction[2]:g}) clears it")

    def message(self) -> str:
        """One line for a user: who, where, how deep the parts interfere, and the move that clears them."""
        where = "".join(f" [{s}]" for s in self.submodels if s)
        parts = [x for x in (self.interference_text(), self.move_text()) if x]
        return (f"{self.descriptions[0]} collides with {self.descriptions[1]}{where}"
                + (": " + "; ".join(parts) if parts else "")
                + (" although they are mated (more than a press fit allows)" if self.mated else ""))


def _submodel(fp) -> str:
    names = [p.content.name or "?" for p in fp.path[:-1]]
    return "/".join(names)


def collision_details(build, max_depth_estimates: int = 200) -> list[CollisionRecord]:
    """Reported collisions with part ids, names, submodels and overlap estimates.

    Parameters
    ----------
    build : LegoBuild
    max_depth_estimates : int
        Depth is estimated (a few dozen FCL calls each) for this many pairs;
        later ones get ``depth = nan``.

    Returns
    -------
    list of CollisionRecord
        In the order of :func:`colliding_placements`.
    """
    eng = collision_engine(build)
    flat = eng.wa.placements
    g = connection_graph(build)
    out = []
    # placement index -> build.describe: a part in many pairs is described once, and the descriptions
    # are kept across append-only edits (names and index paths of the earlier parts do not change)
    said: dict = build.derived_data("validate.described", dict, lambda old, k: old)
    # the geometry of a pair (overlap move, interference) depends only on its two instances (path,
    # part, pose): kept per pair of instance ids while the engine lives, so re-validation after an
    # edit estimates only new pairs
    depths: dict = eng.__dict__.setdefault("_depths", {})
    inst = eng.inst

    def describe(i):
        d = said.get(i)
        if d is None:
            d = said[i] = build.describe(flat[i])
        return d

    records: dict = build.derived_data("validate.records", dict, lambda old, k: old)
    rep_arr = np.asarray(eng.reported(), dtype=np.int64).reshape(-1, 2)
    rep_arr = rep_arr[np.lexsort((rep_arr[:, 1], rep_arr[:, 0]))]  # (i, j) in ascending order
    rep = rep_arr.tolist()
    mated_all = g.mated_pairs(rep_arr).tolist()
    inst_i, inst_j = inst[rep_arr[:, 0]].tolist(), inst[rep_arr[:, 1]].tolist()  # one conversion, not per row
    # interference of the pairs to estimate that have none yet, in one batch (CollisionEngine.interference_depths)
    todo = [(i, j) for (i, j), ii, ij in zip(rep[:max_depth_estimates], inst_i, inst_j) if (ii, ij) not in depths]
    inter_of = dict(zip(todo, eng.interference_depths(np.array(todo, dtype=np.int64).reshape(-1, 2)).tolist()))
    for k, (i, j) in enumerate(rep):
        a, b = flat[i], flat[j]
        mated = mated_all[k]
        # a record is kept across append-only edits while its placements, instances, estimate and
        # mating are the same (indices of the earlier parts do not move)
        rkey = (i, j, inst_i[k], inst_j[k], k < max_depth_estimates, mated)
        rec = records.get(rkey)
        if rec is not None and rec.a is a and rec.b is b:
            out.append(rec)
            continue
        sunk = eng.sunk_depths.get((i, j)) if getattr(eng, "sunk_depths", None) else None
        sticker_pair = False
        if sunk is not None:
            # rule "sticker sunk into a part": the move is the sticker's way out (a move of the second part)
            _d, move, way = sunk
            sign = 1.0 if _is_sticker_at(eng, j) else -1.0
            depth, direction, inter = move, tuple(float(sign * x) + 0.0 for x in way), _d
        elif k < max_depth_estimates:
            key = (inst_i[k], inst_j[k])
            got = depths.get(key)
            if got is None:
                depth, direction = eng.overlap_depth(i, j)
                inter = inter_of.get((i, j))
                got = depths[key] = (depth, direction, eng.interference_depth(i, j) if inter is None else inter)
            depth, direction, inter = got
            s_i, s_j = _is_sticker_at(eng, i), _is_sticker_at(eng, j)
            if s_i or s_j:
                # rule "a sticker leaves along its normal" (.sunk_stickers): the move of the sticker (as a
                # move of the second part) that brings it out onto a face, not the pair's smallest overlap
                from .sunk_stickers import sticker_clear_move

                clear = sticker_clear_move(eng, j, i) if s_j else sticker_clear_move(eng, i, j)
                if clear is not None:
                    sign = 1.0 if s_j else -1.0
                    depth, direction = clear[0], tuple(float(sign * x) + 0.0 for x in clear[1])
                    sticker_pair = True
            if inter == float("inf") and depth < 2 * INTERFERENCE_INSETS[-1]:
                # the inset steps stop separating thin walls (a brick pushed 3 LDU into the one below
                # meets at every step), but the move that clears the pair bounds how deep they interfere
                inter = depth
        else:
            depth, direction, inter = float("nan"), (0.0, 0.0, 0.0), float("nan")
        rec = records[rkey] = CollisionRecord(
            a, b, (a.content.ldraw_id, b.content.ldraw_id), (describe(i), describe(j)),
            (_submodel(a), _submodel(b)), float(depth), direction, mated, interference=float(inter),
            extra={"sunk_sticker": True} if sunk is not None else {"sticker": True} if sticker_pair else {})
        out.append(rec)
    return out


def _is_sticker_at(eng, i: int) -> bool:
    """True when placement ``i`` of the engine is a sticker (:func:`.support._stickers`)."""
    from .sunk_stickers import sticker_mask

    return bool(sticker_mask(eng)[i])


def unchecked_placements(build) -> list:
    """Parts without collision geometry (not in the library nor embedded): never reported as colliding.

    Returns
    -------
    list of FlatPlacement
    """
    eng = collision_engine(build)
    flat = eng.wa.placements
    return [flat[i] for i in np.flatnonzero(~np.asarray(eng.has_shape, dtype=bool)).tolist()]


def unknown_placements(build) -> list:
    """Placements of parts that are neither in the LDraw library nor embedded in the file.

    Such a part (a typo, a part of a newer library) has no geometry and no connectors, so it can
    be neither checked nor planned into an assembly order: ``brickwright validate`` reports it as
    UNKNOWN PART, ``brickwright instructions`` as not placed.

    Parameters
    ----------
    build : LegoBuild

    Returns
    -------
    list of FlatPlacement
        In flattened order: the placements without collision geometry
        (:func:`bricklayer.validate.collisions.unchecked_placements`) whose part is not a library
        part and not an MPD-embedded block (``build.embedded_files``, keys as normalized names).
    """
    from ldraw_data.library import normalize_name

    embedded = set()
    for b in (build, *build.sub_builds()):
        embedded |= {normalize_name(k) for k in getattr(b, "embedded_files", {})}
    out = []
    for fp in unchecked_placements(build):
        el = fp.content
        if getattr(el, "known", True):
            continue
        key = normalize_name(el.ldraw_id)
        if key in embedded or key + ".dat" in embedded:
            continue
        out.append(fp)
    return out
