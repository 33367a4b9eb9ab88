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
2. **Broad phase.** One FCL ``DynamicAABBTreeCollisionManager`` over the
   whole build holds a box per placement (the inset shape's bounds, grown by
   ``_MARGIN`` so that resting contacts are found too). It is kept between
   validations and updated incrementally: after an edit only placements whose
   path or pose changed are removed or inserted and queried.
3. **Narrow phase.** A pair collides when FCL finds an intersection of the
   two inset meshes. The answer depends only on the two parts and their
   relative pose, so it is memoized on a 64-bit hash of (part, part, relative
   pose rounded to 1e-3 / 0.01 LDU, inset): in memory, and on disk under
   ``cache_dir()/collision-pairs-*.npz`` (official sets repeat the same brick
   pairs thousands of times).
4. **Press fits.** A colliding pair that is mated through a connector
   (:mod:`.connections`) is reported only when it still collides with each
   mesh inset by a further half of the family's allowance (so the two
   surfaces may overlap by up to the allowance): see :data:`PRESS_FIT_ALLOWANCE`.
   A colliding pair the graph leaves unmated but whose sliding connectors
   (clip / bar, axle, pin) mate within :data:`LOOSE_MATE` (0.7 LDU off the
   axis: hand-posed minifigure hands and rounded matrices) gets the same
   allowance.
4b. **Flexible parts.** Segments of one flexible part (hose, string, belt,
   LSynth output: "segment" in the part title, following "~Moved to"
   aliases) under the same parent are pieces of one physical part drawn
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
    "unchecked_placements",
    "collision_engine",
]

import logging
import os
import tempfile
import threading
from dataclasses import dataclass, field

import fcl
import numpy as np

from ldraw_data.collision import collision_shape
from ldraw_data.connectors import _parse_type, connector_types
from ldraw_data.errors import PartNotFoundError
from ldraw_data.library import cache_dir

from ..constants import TOL
from ._world import world_arrays

log = logging.getLogger(__name__)

#: Allowed interference (LDU, total over both parts) of parts mated through a
#: connector family, by BrickNet label kind / axle subtype. Sources: LDraw
#: draws friction ridges of Technic pins (2780, 6558) and the fingers of
#: click hinges, clips and minifigure joints as they look, overlapping their
#: mates by 0.4-0.8 mm (1-2 LDU); measured on the 67 official models
#: (benchmarks/official_report.md) no mated pair overlaps more than this.
#: Studs in anti-studs and tubes are drawn without overlap: no allowance
#: beyond the common 0.5 LDU clearance.
PRESS_FIT_ALLOWANCE: dict[str, float] = {
    "stud": 1.0,
    "axle": 2.0,    # axles, pins, bars, clips and their holes
    "hinge": 2.0,   # click hinges, minifigure shoulders / hips / wrists, turntables
    "fixed": 2.0,   # minifigure neck and waist, wheel / tyre mounts
    "ball": 2.0,    # tow balls and sockets
}
#: Looser connector matching used only to excuse press fits of colliding pairs (LDU, cosine):
#: official files round rotation matrices to 4 decimals and pose minifigure arms and hands by
#: hand, so a hand's clip sits up to about 0.6 LDU off the bar it holds (1180 Moon Buggy: radio
#: 3962b in hand 3820, 0.62 LDU), beyond the connection graph's 0.5 LDU line tolerance.
#: Only sliding joints (clip, bar, axle, pin and their holes) are matched loosely, and only up to
#: 0.7 LDU off the axis, so that a part pushed 1 LDU across a joint (or a stud pushed into its
#: anti-stud) stays a collision. Such a pair gets its family's press-fit allowance.
LOOSE_MATE: dict[str, float] = {"line": 0.7, "cos": 0.9}
#: Broad-phase boxes are grown by this much (LDU) so resting contacts are candidates.
_MARGIN = 1.25
#: Downward move (LDU) of the resting test (module notes, step 5).
_REST_DROP = 1.0
_ROT_Q = 1e-3
_POS_Q = 1e-2
_PAIR_CACHE_VERSION = 1


# ----------------------------------------------------------------------------------------------
# shapes and BVHs (per process)


_MIRROR = np.diag([-1.0, 1.0, 1.0, 1.0])


class _ShapeStore:
    """Collision shapes and FCL BVHs per (part key, mirrored), built lazily."""

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
            v = shape.inset_vertices(inset)
            f = shape.faces
            if mirrored:
                v = v * np.array([-1.0, 1.0, 1.0])
                f = f[:, ::-1]
            m = fcl.BVHModel()
            m.beginModel(len(v), len(f))
            m.addSubModel(v, f)
            m.endModel()
            self.bvh[k] = (m, shape)  # keep the shape alive: id() is the key
            return m
        return m[0]


_STORE = _ShapeStore()


# ----------------------------------------------------------------------------------------------
# pair memo (memory + disk)


def _mix(h: np.ndarray) -> np.ndarray:
    """splitmix64 finalizer on uint64 arrays (wrapping arithmetic)."""
    h = h ^ (h >> np.uint64(30))
    h = h * np.uint64(0xBF58476D1CE4E5B9)
    h = h ^ (h >> np.uint64(27))
    h = h * np.uint64(0x94D049BB133111EB)
    return h ^ (h >> np.uint64(31))


def _code(key: str) -> int:
    import zlib

    return zlib.crc32(key.encode()) | (len(key) << 32)


def _pair_hash(ca: np.ndarray, cb: np.ndarray, rel: np.ndarray, level: np.ndarray) -> np.ndarray:
    """(m,) uint64 hash of (shape code a, shape code b, rounded relative pose (m,3,4), level)."""
    rq = np.round(rel[:, :3, :3] / _ROT_Q).astype(np.int64).reshape(len(rel), 9)
    tq = np.round(rel[:, :3, 3] / _POS_Q).astype(np.int64)
    cols = [ca.astype(np.int64), cb.astype(np.int64), level.astype(np.int64)] + [rq[:, i] for i in range(9)] + [
        tq[:, i] for i in range(3)]
    with np.errstate(over="ignore"):
        h = np.full(len(rel), 0x9E3779B97F4A7C15, dtype=np.uint64)
        for c in cols:
            h = _mix(h ^ c.astype(np.uint64))
    return h


class _PairMemo:
    """Memo of narrow-phase answers keyed by :func:`_pair_hash`; persisted on disk.

    Loaded entries stay in sorted numpy arrays (vectorized lookup with
    ``searchsorted``); new answers go to a dict until saved.
    """

    def __init__(self):
        self.keys = np.zeros(0, dtype=np.uint64)
        self.hits = np.zeros(0, dtype=bool)
        self.new: dict[int, bool] = {}
        self.loaded = False

    def path(self):
        from ldraw_data.collision import COLLISION_CACHE_VERSION
        from ldraw_data.library import get_library

        fp = get_library().fingerprint[:16]
        return cache_dir() / f"collision-pairs-{fp}-v{COLLISION_CACHE_VERSION}.{_PAIR_CACHE_VERSION}.npz"

    def load(self):
        if self.loaded:
            return
        self.loaded = True
        if os.environ.get("BRICKLAYER_NO_PAIR_CACHE"):
            return
        try:
            with np.load(self.path()) as z:
                self.keys, self.hits = z["keys"], z["hits"]
        except (OSError, KeyError, ValueError):
            pass

    def lookup(self, h: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(found (m,) bool, value (m,) bool) for hashes ``h``."""
        self.load()
        found = np.zeros(len(h), dtype=bool)
        val = np.zeros(len(h), dtype=bool)
        if len(self.keys):
            pos = np.minimum(np.searchsorted(self.keys, h), len(self.keys) - 1)
            found = self.keys[pos] == h
            val = found & self.hits[pos]
        if self.new:
            for k in np.flatnonzero(~found).tolist():
                v = self.new.get(int(h[k]))
                if v is not None:
                    found[k], val[k] = True, v
        return found, val

    def save(self):
        if not self.new or os.environ.get("BRICKLAYER_NO_PAIR_CACHE"):
            return
        path = self.path()
        keys = np.concatenate([self.keys, np.fromiter(self.new.keys(), dtype=np.uint64, count=len(self.new))])
        hits = np.concatenate([self.hits, np.fromiter(self.new.values(), dtype=bool, count=len(self.new))])
        try:  # merge with what other processes wrote meanwhile
            with np.load(path) as z:
                keys, hits = np.concatenate([z["keys"], keys]), np.concatenate([z["hits"], hits])
        except (OSError, KeyError, ValueError):
            pass
        keys, first = np.unique(keys, return_index=True)
        self.keys, self.hits, self.new = keys, hits[first], {}
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
            with os.fdopen(fd, "wb") as fh:
                np.savez(fh, keys=self.keys, hits=self.hits)
            os.replace(tmp, path)
        except OSError as exc:
            log.warning("could not write the collision pair cache %s: %s", path, exc)


_MEMO = _PairMemo()


def _collide(ma, mb, rel: np.ndarray) -> bool:
    oa = fcl.CollisionObject(ma, fcl.Transform())
    ob = fcl.CollisionObject(mb, fcl.Transform(rel[:3, :3], rel[:3, 3]))
    req = fcl.CollisionRequest(num_max_contacts=1, enable_contact=False)
    return fcl.collide(oa, ob, req, fcl.CollisionResult()) > 0


# ----------------------------------------------------------------------------------------------
# the per-build engine


def _inv_rigid(t: np.ndarray) -> np.ndarray:
    out = np.zeros_like(t)
    rt = np.transpose(t[:, :3, :3], (0, 2, 1))
    out[:, :3, :3] = rt
    out[:, :3, 3] = -np.einsum("nij,nj->ni", rt, t[:, :3, 3])
    out[:, 3, 3] = 1
    return out


def _embedded_doc(build):
    files = getattr(build, "embedded_files", None) or {}
    if not files:
        return None
    key = tuple(sorted(files))
    hit = build._cache.get("validate.embedded")
    if hit is not None and hit[0] == key:
        return hit[1]
    from ldraw_data.io.parse import parse_document

    text = "\n".join(f"0 FILE {name}\n{body}\n0 NOFILE" for name, body in files.values())
    doc = parse_document(text, f"<embedded parts of {build.name or 'build'}>")
    build._cache["validate.embedded"] = (key, doc)
    return doc


class CollisionEngine:
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
    """

    def __init__(self, build):
        self._build = build
        self._state = None
        self._ids: dict = {}                     # instance key -> int id
        self.pair_ids = np.zeros((0, 2), dtype=np.int64)   # analysed pairs (ids)
        self.pair_flags = np.zeros((0, 3), dtype=bool)     # hit, a rests on b, b rests on a
        self.embedded = None
        self._reported = None

    # -- per placement data
    def _prepare(self):
        wa = world_arrays(self._build)
        self.embedded = _embedded_doc(self._build)
        n = len(wa.placements)
        t = wa.mesh_transforms.copy()
        mirrored = np.linalg.det(t[:, :3, :3]) < 0
        t[mirrored] = t[mirrored] @ _MIRROR
        shapes = {}
        codes = np.zeros(n, dtype=np.int64)
        has = np.zeros(n, dtype=bool)
        lo = np.zeros((n, 3))
        hi = np.zeros((n, 3))
        for key, idx in wa.groups.items():
            s = _STORE.shape(key, self.embedded)
            shapes[key] = s
            if s is None:
                lo[idx] = hi[idx] = wa.poses[idx, :3, 3]
                continue
            has[idx] = True
            codes[idx] = _code(key)
            hull = s.hull_points
            for mir in (False, True):
                sel = idx[mirrored[idx] == mir]
                if not len(sel):
                    continue
                h = hull * np.array([-1.0, 1.0, 1.0]) if mir else hull
                w = np.einsum("nij,kj->nki", t[sel, :3, :3], h) + t[sel, None, :3, 3]
                lo[sel], hi[sel] = w.min(axis=1), w.max(axis=1)
        self.wa, self.n, self.transforms, self.mirrored = wa, n, t, mirrored
        self.keys, self.shapes, self.codes, self.has_shape = wa.keys, shapes, codes, has
        self.box_lo, self.box_hi, self.min_z = lo, hi, lo[:, 2].copy()
        seg = np.zeros(n, dtype=bool)
        for key, idx in wa.groups.items():
            seg[idx] = _is_segment(key, wa.placements[idx[0]].content, self.embedded)
        self.segment = seg
        parents: dict = {}
        self.parent = np.array([parents.setdefault(tuple(id(p) for p in fp.path[:-1]), len(parents))
                                for fp in wa.placements], dtype=np.int64)
        ids = self._ids
        inst = np.empty(n, dtype=np.int64)
        for i, fp in enumerate(wa.placements):
            ik = (tuple(id(p) for p in fp.path), wa.keys[i], t[i].tobytes())
            v = ids.get(ik)
            if v is None:
                v = ids[ik] = len(ids)
            inst[i] = v
        self.inst = inst

    # -- broad phase (incremental)
    def _overlaps(self, q: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """(m, 2) index pairs (q[k], j), j starting inside q[k]'s box on the sweep axis, boxes overlapping.

        Sweep and prune along the axis where the boxes' sweep lists are
        shortest; a pair is found from the member whose box starts first, so
        querying every box finds every pair.
        """
        best = None
        for ax in range(3):
            order = np.argsort(lo[:, ax], kind="stable")
            xs = lo[order, ax]
            start = np.searchsorted(xs, lo[q, ax], side="left")
            stop = np.searchsorted(xs, hi[q, ax], side="right")
            cnt = np.maximum(stop - start, 0)
            if best is None or cnt.sum() < best[0]:
                best = (cnt.sum(), order, start, cnt)
        total, order, start, cnt = best
        if total == 0:
            return np.zeros((0, 2), dtype=np.int64)
        rows = np.repeat(np.arange(len(q)), cnt)
        offs = np.arange(total) - np.repeat(np.cumsum(cnt) - cnt, cnt)
        j = order[np.repeat(start, cnt) + offs]
        i = q[rows]
        ok = (i != j) & np.all(lo[j] <= hi[i], axis=1) & np.all(lo[i] <= hi[j], axis=1)
        return np.column_stack([i[ok], j[ok]])

    def _broad(self, queried: np.ndarray) -> np.ndarray:
        """Candidate pairs (i < j) involving the ``queried`` parts (boxes grown down by the rest drop)."""
        use = np.flatnonzero(self.has_shape)
        lo = self.box_lo.copy()
        lo[:, 2] -= _REST_DROP + 0.1
        hi = self.box_hi.copy()
        far = np.full(3, 1e18)
        lo[~self.has_shape], hi[~self.has_shape] = far, far + 1  # never overlaps
        q = np.intersect1d(queried, use)
        if not len(q):
            return np.zeros((0, 2), dtype=np.int64)
        p = self._overlaps(q, lo, hi)
        if len(q) < len(use):
            # boxes that start before a queried box on x but overlap it
            rev = self._overlaps(use, lo, hi)
            rev = rev[np.isin(rev[:, 1], q)]
            p = np.vstack([p, rev])
        p = np.sort(p, axis=1)
        return np.unique(p, axis=0) if len(p) else p.reshape(0, 2)

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
        h1 = _pair_hash(ca, cb, rel_ab, level)
        h2 = _pair_hash(cb, ca, rel_ba, level)
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

    def refresh(self) -> "CollisionEngine":
        """Bring the analysis up to date with the build (incrementally). Returns self."""
        state = self._build._state_key()
        if self._state == state:
            return self
        self._prepare()
        inst = self.inst
        id_to_idx = np.full(len(self._ids), -1, dtype=np.int64)
        id_to_idx[inst] = np.arange(self.n)
        # keep analysed pairs whose two placements are unchanged
        keep = np.all(id_to_idx[self.pair_ids] >= 0, axis=1) if len(self.pair_ids) else np.zeros(0, dtype=bool)
        old_ids, old_flags = self.pair_ids[keep], self.pair_flags[keep]
        known = np.zeros(len(id_to_idx), dtype=bool)
        known[np.unique(self.pair_ids)] = True if len(self.pair_ids) else False
        seen_before = self._state is not None
        if seen_before:
            prev = self._prev_inst
            is_new = ~np.isin(inst, prev)
            queried = np.flatnonzero(is_new)
        else:
            queried = np.arange(self.n)
        new_pairs = self._broad(queried) if len(queried) else np.zeros((0, 2), dtype=np.int64)
        flags = self._analyse(new_pairs)
        self.pair_ids = np.vstack([old_ids, inst[new_pairs]]) if len(new_pairs) else old_ids
        self.pair_flags = np.vstack([old_flags, flags]) if len(new_pairs) else old_flags
        idx = id_to_idx[self.pair_ids]
        swap = idx[:, 0] > idx[:, 1]
        self.pairs = np.sort(idx, axis=1)
        self.hit = self.pair_flags[:, 0].copy()
        r = self.pair_flags[:, 1:].copy()
        r[swap] = r[swap][:, ::-1]
        self.rests = r
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
        close = np.all(lo[a] + inset < hi[b] - inset, axis=1) & np.all(lo[b] + inset < hi[a] - inset, axis=1)
        sel = np.flatnonzero(close)
        out[sel, 0] = self._query(a[sel], b[sel], t[a[sel]], t[b[sel]], inset)
        # resting: the higher part moved down by _REST_DROP meets the lower one
        a_up = self.min_z[a] > self.min_z[b] + 1e-6
        b_up = self.min_z[b] > self.min_z[a] + 1e-6
        up = np.where(a_up, a, b)
        dn = np.where(a_up, b, a)
        drop = np.array([0, 0, _REST_DROP])
        close_r = np.all(lo[up] - drop + inset < hi[dn] - inset, axis=1) & np.all(
            lo[dn] + inset < hi[up] - drop - inset, axis=1)
        sel = np.flatnonzero(~out[:, 0] & (a_up | b_up) & close_r)
        tu = t[up[sel]].copy()
        tu[:, 2, 3] -= _REST_DROP
        rest = self._query(up[sel], dn[sel], tu, t[dn[sel]], inset)
        out[sel, 1] = rest & a_up[sel]
        out[sel, 2] = rest & b_up[sel]
        return out

    # -- press fits
    def reported(self) -> np.ndarray:
        """(r, 2) int: colliding pairs left after the press-fit allowances."""
        if self._reported is not None:
            return self._reported
        from .connections import connection_graph

        cand = self.pairs[self.hit]
        cand = cand[~self.same_flexible(cand)]
        if not len(cand):
            self._reported = cand
            return cand
        cg = connection_graph(self._build)
        allow = _pair_allowances(cg)
        for k, v in self._loose_allowances([p for p in map(tuple, cand.tolist()) if p not in allow]).items():
            allow[k] = v
        keep = np.ones(len(cand), dtype=bool)
        extra = np.array([allow.get((int(i), int(j)), -1.0) for i, j in cand])
        for value in sorted(set(extra.tolist()) - {-1.0}):
            sel = np.flatnonzero(extra == value)
            if value <= 0:
                continue
            a, b = cand[sel, 0], cand[sel, 1]
            still = self._query(a, b, self.transforms[a], self.transforms[b], TOL.collision_inset + value / 2)
            keep[sel] = still
        _MEMO.save()
        self._reported = cand[keep]
        return self._reported

    def _loose_allowances(self, pairs: list) -> dict:
        """Press-fit allowances of colliding pairs the connection graph leaves unmated but whose
        connectors mate within the looser :data:`LOOSE_MATE` tolerances (module notes, step 4)."""
        from ldraw_data.connectors import mate_kind

        from .connections import SLIDING_TYPES, part_connector_arrays

        names = connector_types()
        sliding = np.array([n in SLIDING_TYPES for n in names])
        out: dict = {}
        poses = self.wa.poses
        for i, j in pairs:
            ai = part_connector_arrays(self.wa.placements[i].content)
            aj = part_connector_arrays(self.wa.placements[j].content)
            if not sliding[ai.code].any() or not sliding[aj.code].any():
                continue
            pi = ai.pos @ poses[i, :3, :3].T + poses[i, :3, 3]
            xi = ai.axis @ poses[i, :3, :3].T
            pj = aj.pos @ poses[j, :3, :3].T + poses[j, :3, 3]
            xj = aj.axis @ poses[j, :3, :3].T
            best = -1.0
            for a in range(len(ai.code)):
                d = pj - pi[a]
                dist = np.linalg.norm(d, axis=1)
                near = np.flatnonzero(dist <= np.maximum(ai.length[a] + aj.length, 0) + LOOSE_MATE["line"] + 4.0)
                for b in near.tolist():
                    ta, tb = names[ai.code[a]], names[aj.code[b]]
                    if mate_kind(ta, tb) is None:
                        continue
                    cos = abs(float(xi[a] @ xj[b]))
                    if ta not in SLIDING_TYPES and tb not in SLIDING_TYPES:
                        continue  # point joints (studs, hinges, balls): the graph's own tolerance only
                    along = float(d[b] @ xi[a])
                    perp = float(np.sqrt(max(dist[b] ** 2 - along ** 2, 0.0)))
                    ok = (cos >= LOOSE_MATE["cos"] and perp <= LOOSE_MATE["line"]
                          and abs(along) <= ai.length[a] + aj.length[b] + LOOSE_MATE["line"])
                    if ok:
                        best = max(best, PRESS_FIT_ALLOWANCE.get(_family(ai.code[a], names), 0.0),
                                   PRESS_FIT_ALLOWANCE.get(_family(aj.code[b], names), 0.0))
            if best >= 0:
                out[(i, j)] = best
        return out

    def same_flexible(self, pairs: np.ndarray) -> np.ndarray:
        """(m,) bool: both parts are segments of a flexible element drawn in the same submodel instance.

        LDraw draws hoses, strings, belts and LSynth output as rigid
        segments that overlap their neighbours where the real part is one
        continuous bent piece ("Hose Flexible Segment ...", "LSynth ... String
        Segment", "Belt Segment ..."). Segments are recognised by the word
        "segment" in the part title; two segments under the same parent are
        pieces of one physical part and are not tested against each other.
        """
        if not len(pairs):
            return np.zeros(0, dtype=bool)
        a, b = pairs[:, 0], pairs[:, 1]
        return self.segment[a] & self.segment[b] & (self.parent[a] == self.parent[b])

    def press_fits(self) -> np.ndarray:
        """(p, 2) int: colliding pairs excused as press fits of mated parts."""
        cand = self.pairs[self.hit]
        cand = cand[~self.same_flexible(cand)]
        rep = {tuple(x) for x in self.reported().tolist()}
        return np.array([x for x in cand.tolist() if tuple(x) not in rep], dtype=np.intp).reshape(-1, 2)

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
        """
        t = self.transforms
        inset = TOL.collision_inset
        ma = _STORE.model(self.shapes[self.keys[i]], bool(self.mirrored[i]), inset)
        mb = _STORE.model(self.shapes[self.keys[j]], bool(self.mirrored[j]), inset)
        inv_a = _inv_rigid(t[i][None])[0]
        best, best_dir = max_shift, (0.0, 0.0, 1.0)
        for d in np.vstack([np.eye(3), -np.eye(3)]):
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
                best, best_dir = hi, tuple(float(x) for x in d)
        return (best + 2 * inset if best < max_shift else max_shift), best_dir


def _is_segment(key: str, element, embedded) -> bool:
    """True when the part's title names it a segment of a flexible element (see ``same_flexible``)."""
    title = ""
    if not key.startswith("?"):
        spec = getattr(element, "spec", None)
        title = getattr(spec, "name", "") or ""
    elif embedded is not None:
        want = key[1:].lower()
        for f in embedded.files:
            if f.key.lower() in (want, want + ".dat"):
                title = f.title or ""
                break
    if title.lower().startswith("~moved to "):  # an alias: the title of the part it moved to
        from ldraw_data.library import get_library

        try:
            path = get_library().find(title.split()[2] + ".dat")
            with open(path, encoding="utf-8", errors="replace") as fh:
                title = fh.readline()
        except (OSError, IndexError, LookupError, ValueError):
            pass
    return "segment" in title.lower()


def _family(code: int, names) -> str:
    kind, sub, _ = _parse_type(names[code])
    return "stud" if kind in ("stud", "hole") else kind


def _pair_allowances(cg) -> dict:
    """(i, j) part pair (i < j) -> largest press-fit allowance of the connectors mating them."""
    names = connector_types()
    out: dict = {}
    if not len(cg.pairs):
        return out
    codes = cg.pair_codes()
    fam_cache: dict = {}
    for (a, _ca, b, _cb), (c1, c2) in zip(cg.pairs.tolist(), codes.tolist()):
        v = fam_cache.get((c1, c2))
        if v is None:
            v = fam_cache[(c1, c2)] = max(PRESS_FIT_ALLOWANCE.get(_family(c1, names), 0.0),
                                          PRESS_FIT_ALLOWANCE.get(_family(c2, names), 0.0))
        k = (a, b) if a < b else (b, a)
        if v > out.get(k, -1.0):
            out[k] = v
    return out


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
        Estimated overlap (see :meth:`CollisionEngine.overlap_depth`).
    direction : (3,) tuple of float
        World direction in which moving ``b`` by ``depth`` separates the parts.
    mated : bool
        True when the two parts are also mated (the overlap exceeds the press-fit allowance).
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

    def message(self) -> str:
        """One line for a user: who, where, how deep."""
        where = "".join(f" [{s}]" for s in self.submodels if s)
        return (f"{self.descriptions[0]} collides with {self.descriptions[1]}{where}: overlap about "
                f"{self.depth:.1f} LDU (move the second part {self.depth:.1f} LDU along "
                f"({self.direction[0]:g}, {self.direction[1]:g}, {self.direction[2]:g}) to clear it)"
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
    from .connections import connection_graph

    eng = collision_engine(build)
    flat = eng.wa.placements
    g = connection_graph(build).graph
    out = []
    for k, (i, j) in enumerate(sorted(map(tuple, eng.reported().tolist()))):
        a, b = flat[i], flat[j]
        if k < max_depth_estimates:
            depth, direction = eng.overlap_depth(i, j)
        else:
            depth, direction = float("nan"), (0.0, 0.0, 0.0)
        out.append(CollisionRecord(
            a, b, (a.content.ldraw_id, b.content.ldraw_id), (build.describe(a), build.describe(b)),
            (_submodel(a), _submodel(b)), float(depth), direction, g.has_edge(i, j)))
    return out


def unchecked_placements(build) -> list:
    """Parts without collision geometry (not in the library nor embedded): never reported as colliding.

    Returns
    -------
    list of FlatPlacement
    """
    eng = collision_engine(build)
    return [fp for fp, ok in zip(eng.wa.placements, eng.has_shape) if not ok]
