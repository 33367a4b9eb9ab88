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
   ``_MARGIN`` so that resting contacts are found too; sweep and prune
   along the axis with the shortest sweep lists, :meth:`CollisionEngine._broad_chunks`).
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
   (radial) allowance. Verdicts are kept per pair of placements, so after an
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
import os
import threading
from dataclasses import dataclass, field

import fcl
import numpy as np

from ldraw_data.fileio import atomic_writer, discard_cache_file
from ldraw_data.collision import collision_shape
from ldraw_data.connectors import _parse_type, connector_types
from ldraw_data.errors import PartNotFoundError
from ldraw_data.library import cache_dir

from ..constants import CROWDED_PARTNERS, TOL
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
#: Press fits of point joints are excused only on their seat (LDU). The graph mates hinge, fixed and
#: ball labels within ``TOL.joint_position`` (2.1 LDU) because some labels sit off the drawn rotation
#: centre, so a minifigure arm or a hinge pushed 1 LDU into its mate stays mated; its press-fit
#: allowance would then hide the push. A mated pair keeps its allowance only while the offset between
#: its two connector origins (``perp`` off the first connector's axis, ``along`` it) is within ``tol``
#: of the pair's nominal offset. Rotation about the joint axis (the joint's free motion) keeps
#: ``perp`` and ``along`` for labels on the axis; a push of 1 LDU along the axis or across it changes
#: them by 1 LDU, in any direction by at least 0.7 LDU. ``nominal`` maps a type pair to
#: ``(perp, along, tol)``, default ``(0, 0, tol)``; the values are the offsets of all mated pairs of
#: that kind on the 67 official models (median, and the spread where it is wide because the label
#: sits off the axis and the offset turns with the joint: locking hinges 30364/30365 and 30386 at
#: 0-2 LDU, so they keep the graph's 2.1 LDU and only the allowance size guards them).
SEAT: dict = {
    "tol": 0.6,
    "nominal": {
        "control_stick/control_stick_base": (2.0, 0.0, 0.6),
        "hinge_2_in/hinge_2_on": (0.0, 0.0, 2.1),
        "hinge_13_in/hinge_13_on": (0.0, 0.0, 2.1),
        "hinge_15_in/hinge_15_on": (1.0, 0.0, 1.0),
        "hinge_31_in/hinge_31_on": (1.0, 0.0, 1.0),
        "hinge_49_in/hinge_49_on": (1.0, 0.0, 0.6),
        "hinge_3_in/hinge_3_on": (0.4, 1.0, 1.1),
        "hinge_14_in/hinge_14_on": (0.0, 0.75, 0.6),
        "fixed_21_in/fixed_21_on": (0.0, 2.0, 0.6),
        "neck_bracket/neck_mount": (0.0, 0.5, 0.6),
        "towball/towball_socket": (0.0, 0.5, 0.6),
        "constraction_ball/constraction_socket": (0.0, 0.0, 2.1),
        "hip_peg/hip_socket": (0.25, 0.25, 0.6),
        "shoulder_peg/shoulder_socket": (0.12, 0.0, 0.6),
        "wrist_peg/wrist_socket": (0.12, 0.08, 0.6),
    },
}
#: Extra inset per part (LDU) along the axis of a sliding or stud joint (:meth:`CollisionEngine._query_radial`):
#: collars, end faces and stud roots of official files overlap their mates by up to about 0.5 LDU
#: along the axis (friction pins 2780 / 6558 in thin beams 60484, 32316, 32140 of 75060 Slave I:
#: 0.49-0.52 LDU), so both parts may be inset by 0.2 LDU more there (0.9 LDU of axial overlap is
#: excused in all), while a part pushed 1 LDU along the joint into a stop still collides.
AXIAL_EXTRA = 0.2
#: The extra radial inset of a sliding joint (pin, axle, bar, clip) applies only within this distance
#: (LDU) of the mated connectors' axis lines: a pin's shaft and friction ridges (radius 6-6.5 LDU), an
#: axle's arms, a bar (radius 4) and the bores of their holes and clips (radius 4-6) press radially, but
#: a pin's collar (radius 8) pushed into the bore of a beam is a collision (3673 in 3700, 2 LDU deep).
JOINT_RADIUS = 7.0
_STUD_RADIAL = True
#: Insets (LDU) tried by :meth:`CollisionEngine.interference_depth`, in order (the common 0.25 LDU first:
#: a reported pair always meets there).
INTERFERENCE_INSETS = (0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0)
#: Broad-phase boxes are grown by this much (LDU) so resting contacts are candidates.
_MARGIN = 1.25
#: Downward move (LDU) of the resting test (module notes, step 5).
_REST_DROP = 1.0
_ROT_Q = 1e-3
#: Up to this many queried parts, the incremental broad phase tests their boxes against all boxes directly.
_BRUTE_QUERIES = 32
#: Broad-phase rows (candidate boxes) enumerated at once: bounds the memory of the sweep when many boxes
#: meet (every pair of a few thousand parts drawn at one place).
_BROAD_ROWS = 1 << 16
#: Boxes a broad-phase finder enumerates per pass (:meth:`CollisionEngine._broad_chunks`): a finder
#: whose sweep list is longer (a baseplate under hundreds of parts) takes several passes.
_BROAD_WINDOW = 256
_POS_Q = 1e-2
_PAIR_CACHE_VERSION = 3
#: New narrow-phase answers kept in memory before the pair cache is rewritten (the rest at exit).
_SAVE_BATCH = 256


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

    def __init__(self, stem: str = "collision-pairs", dtype=bool):
        self.stem, self.dtype = stem, dtype
        self.keys = np.zeros(0, dtype=np.uint64)
        self.hits = np.zeros(0, dtype=dtype)
        self.new: dict = {}
        self.loaded = False
        self._atexit = False

    def path(self):
        from ldraw_data.collision import COLLISION_CACHE_VERSION
        from ldraw_data.library import get_library

        fp = get_library().fingerprint[:16]
        return cache_dir() / f"{self.stem}-{fp}-v{COLLISION_CACHE_VERSION}.{_PAIR_CACHE_VERSION}.npz"

    def load(self):
        if self.loaded:
            return
        self.loaded = True
        if os.environ.get("BRICKLAYER_NO_PAIR_CACHE"):
            return
        got = self._read(self.path())
        if got is not None:
            self.keys, self.hits = got

    def _read(self, path) -> tuple[np.ndarray, np.ndarray] | None:
        """(keys, answers) of the cache file; None when missing or unreadable (then discarded with a warning).

        Checked: both arrays present, one-dimensional, of the same length, of this memo's dtypes, keys
        strictly increasing (``lookup`` searches them with ``searchsorted``)."""
        try:
            with np.load(path, allow_pickle=False) as z:
                keys, hits = z["keys"], z["hits"]
        except FileNotFoundError:
            return None
        except Exception as exc:  # noqa: BLE001 - a truncated zip raises BadZipFile, EOFError, zlib.error, ...
            discard_cache_file(path, self.stem, exc)
            return None
        if (keys.ndim != 1 or keys.shape != hits.shape or keys.dtype != np.uint64
                or hits.dtype != np.dtype(self.dtype) or (len(keys) > 1 and not (keys[1:] > keys[:-1]).all())):
            discard_cache_file(path, self.stem, f"arrays {keys.dtype}{keys.shape} and {hits.dtype}{hits.shape}, "
                                                "or keys not sorted")
            return None
        return keys, hits

    def lookup(self, h: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(found (m,) bool, value (m,) of the memo's dtype) for hashes ``h``."""
        self.load()
        found = np.zeros(len(h), dtype=bool)
        val = np.zeros(len(h), dtype=self.dtype)
        if len(self.keys):
            pos = np.minimum(np.searchsorted(self.keys, h), len(self.keys) - 1)
            found = self.keys[pos] == h
            val = np.where(found, self.hits[pos], val).astype(self.dtype)
        if self.new:
            for k in np.flatnonzero(~found).tolist():
                v = self.new.get(int(h[k]))
                if v is not None:
                    found[k], val[k] = True, v
        return found, val

    def save(self, force: bool = False):
        """Write new answers to disk (merged with what other processes wrote).

        Small batches (fewer than ``_SAVE_BATCH`` new answers, e.g. after one
        edit) wait for the next save or for the exit of the process
        (``atexit``), so an incremental validation does not rewrite the file.
        """
        if not self.new or os.environ.get("BRICKLAYER_NO_PAIR_CACHE"):
            return
        if not force and len(self.new) < _SAVE_BATCH:
            if not self._atexit:
                import atexit

                atexit.register(self.save, True)
                self._atexit = True
            return
        path = self.path()
        keys = np.concatenate([self.keys, np.fromiter(self.new.keys(), dtype=np.uint64, count=len(self.new))])
        hits = np.concatenate([self.hits, np.fromiter(self.new.values(), dtype=self.dtype, count=len(self.new))])
        got = self._read(path)  # merge with what other processes wrote meanwhile
        if got is not None:
            keys, hits = np.concatenate([got[0], keys]), np.concatenate([got[1], hits])
        keys, first = np.unique(keys, return_index=True)
        self.keys, self.hits, self.new = keys, hits[first], {}
        try:
            with atomic_writer(path, "wb") as fh:
                np.savez(fh, keys=self.keys, hits=self.hits)
        except OSError as exc:
            log.warning("could not write the collision pair cache %s: %s", path, exc)


_MEMO = _PairMemo()
#: Overlap depths (:meth:`CollisionEngine.overlap_depth`): value ``depth + 100 * k`` (LDU), ``k`` the index of
#: the separating shift in ``_SHIFTS``; keyed by the pair's shapes, relative pose and the first part's
#: world rotation (the shifts are along world axes).
_DEPTH_MEMO = _PairMemo("collision-depths", np.float64)
_SHIFTS = np.vstack([np.eye(3), -np.eye(3)])


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
                w = np.einsum("nij,kj->nki", t[sel, :3, :3], h) + t[sel, None, :3, 3]
                lo[sel], hi[sel] = w.min(axis=1), w.max(axis=1)
        if not start:
            self._parents = {}
        parents = self._parents
        ids = self._ids
        inst = np.empty(m, dtype=np.int64)
        parent = np.empty(m, dtype=np.int64)
        tb = [r.tobytes() for r in t.reshape(m, 16)]
        keys = wa.keys
        for i, fp in enumerate(wa.placements[start:]):
            path = tuple(map(id, fp.path))
            parent[i] = parents.setdefault(path[:-1], len(parents))
            ik = (path, keys[i + start], tb[i])
            v = ids.get(ik)
            if v is None:
                v = ids[ik] = len(ids)
            inst[i] = v
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
                self.pair_ids = np.vstack([self.pair_ids, self.inst[new_pairs]])
                self.pair_flags = np.vstack([self.pair_flags, flags])
                self.pairs = np.vstack([self.pairs, new_pairs])  # new_pairs are i < j already
                self.hit = np.concatenate([self.hit, flags[:, 0]])
                self.rests = np.vstack([self.rests, flags[:, 1:]])
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
        """(r, 2) int: colliding pairs left after the press-fit allowances.

        Incremental: the verdict on a pair depends only on its two
        placements (their poses decide both the intersection and the
        connectors mated between them), so it is kept per pair of instance
        ids and only pairs new since the last call are decided.
        """
        if self._reported is not None:
            return self._reported
        cand = self.pairs[self.hit]
        cand = cand[~self.same_flexible(cand)]
        cand = cand[~_meshing(self._build, cand)]
        if not len(cand):
            self._reported = cand
            return cand
        inst = self.inst
        keys = [(int(x), int(y)) for x, y in zip(inst[cand[:, 0]].tolist(), inst[cand[:, 1]].tolist())]
        verdict = self._verdicts
        todo = [k for k, key in enumerate(keys) if key not in verdict]
        log.debug("press fits: %d of %d colliding pairs to decide", len(todo), len(keys))
        if todo:
            from .connections import connection_graph

            sub = cand[todo]
            cg = connection_graph(self._build)
            allow = _pair_allowances(cg, sub)
            rest = [p for p in map(tuple, sub.tolist()) if p not in allow]
            for k, v in self._loose_allowances(rest).items():
                allow[k] = v
            still = np.ones(len(sub), dtype=bool)
            got = [allow.get((int(i), int(j)), (-1.0, None)) for i, j in sub]
            extra = np.array([g[0] for g in got])
            radial = np.array([g[1] is not None for g in got], dtype=bool)
            for value in sorted(set(extra.tolist()) - {-1.0}):
                if value <= 0:
                    continue
                sel = np.flatnonzero((extra == value) & ~radial)
                a, b = sub[sel, 0], sub[sel, 1]
                still[sel] = self._query(a, b, self.transforms[a], self.transforms[b],
                                         TOL.collision_inset + value / 2)
                for k in np.flatnonzero((extra == value) & radial).tolist():
                    still[k] = self._query_radial(int(sub[k, 0]), int(sub[k, 1]), value / 2, np.array(got[k][1]),
                                                  got[k][2] if len(got[k]) > 2 else None)
            for k, v in zip(todo, still.tolist()):
                verdict[keys[k]] = v
            _MEMO.save()
        keep = np.fromiter((verdict[k] for k in keys), dtype=bool, count=len(keys))
        self._reported = cand[keep]
        return self._reported

    def _loose_allowances(self, pairs: list) -> dict:
        """Press-fit allowances of colliding pairs the connection graph leaves unmated but whose
        connectors mate within the looser :data:`LOOSE_MATE` tolerances (module notes, step 4)."""
        from ldraw_data.connectors import mate_kind

        from .connections import (_AXLE_MIN_HALF, _AXLE_MIN_OVERLAP, SLIDE_END_EPS, is_sliding_type,
                                  part_connector_arrays)

        names = connector_types()
        sliding = np.array([is_sliding_type(n) for n in names])
        out: dict = {}
        poses = self.wa.poses
        arrays: dict = {}  # part key -> connector arrays (a part may be in many pairs)

        def conn(i):
            a = arrays.get(self.keys[i])
            if a is None:
                a = arrays[self.keys[i]] = part_connector_arrays(self.wa.placements[i].content)
            return a

        for i, j in pairs:
            ai, aj = conn(i), conn(j)
            if not sliding[ai.code].any() or not sliding[aj.code].any():
                continue
            pi = ai.pos @ poses[i, :3, :3].T + poses[i, :3, 3]
            xi = ai.axis @ poses[i, :3, :3].T
            pj = aj.pos @ poses[j, :3, :3].T + poses[j, :3, 3]
            xj = aj.axis @ poses[j, :3, :3].T
            best, best_axis, best_point = -1.0, None, None
            for a in range(len(ai.code)):
                d = pj - pi[a]
                dist = np.linalg.norm(d, axis=1)
                near = np.flatnonzero(dist <= np.maximum(ai.length[a] + aj.length, 0) + LOOSE_MATE["line"] + 4.0)
                for b in near.tolist():
                    ta, tb = names[ai.code[a]], names[aj.code[b]]
                    if mate_kind(ta, tb) is None:
                        continue
                    cos = abs(float(xi[a] @ xj[b]))
                    if not is_sliding_type(ta) and not is_sliding_type(tb):
                        continue  # point joints (studs, hinges, balls): the graph's own tolerance only
                    along = float(d[b] @ xi[a])
                    perp = float(np.sqrt(max(dist[b] ** 2 - along ** 2, 0.0)))
                    # the same overlap along the slide as the connection graph (BrickNet 4 LDU): a bar
                    # slid out of its clip is not pressed in any more
                    overlap = (max(ai.length[a], _AXLE_MIN_HALF) + max(aj.length[b], _AXLE_MIN_HALF)
                               - abs(along))
                    ok = (cos >= LOOSE_MATE["cos"] and perp <= LOOSE_MATE["line"]
                          and overlap >= _AXLE_MIN_OVERLAP - SLIDE_END_EPS)
                    if ok:
                        v = max(PRESS_FIT_ALLOWANCE.get(_family(ai.code[a], names), 0.0),
                                PRESS_FIT_ALLOWANCE.get(_family(aj.code[b], names), 0.0))
                        if v > best:
                            best, best_axis = v, xi[a] / max(np.linalg.norm(xi[a]), 1e-12)
                            best_point = pi[a]
            if best >= 0:
                out[(i, j)] = (best, tuple(np.round(best_axis, 6).tolist()),
                               (tuple(np.round(best_point, 3).tolist()),))
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

    def press_fits(self) -> np.ndarray:
        """(p, 2) int: colliding pairs excused as press fits of mated parts."""
        cand = self.pairs[self.hit]
        cand = cand[~self.same_flexible(cand)]
        rep = {tuple(x) for x in self.reported().tolist()}
        return np.array([x for x in cand.tolist() if tuple(x) not in rep], dtype=np.intp).reshape(-1, 2)

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
        a, b = np.array([i]), np.array([j])
        t = self.transforms
        prev = TOL.collision_inset
        for c in INTERFERENCE_INSETS:
            if not self._query(a, b, t[a], t[b], c)[0]:
                return 2.0 * prev
            prev = c
        return float("inf")

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


def _family(code: int, names) -> str:
    kind, sub, _ = _parse_type(names[code])
    return "stud" if kind in ("stud", "hole") else kind


def _pair_allowances(cg, pairs: np.ndarray | None = None) -> dict:
    """(i, j) part pair (i < j) -> largest press-fit allowance of the connectors mating them.

    A mated connector pair grants its allowance only while it sits on its
    joint (:data:`SEAT`): point joints (hinge, fixed and ball labels, which
    the graph mates within ``TOL.joint_position`` = 2.1 LDU) must lie within
    ``SEAT["tol"]`` of their nominal offset; pairs off their seat get 0
    (only the common 0.5 LDU clearance). Sliding and stud joints are mated
    by the graph within 0.5 LDU of their axis already.

    Parameters
    ----------
    cg : ConnectionGraph
    pairs : (m, 2) int, optional
        Only these part pairs (``i < j``); default all mated pairs.
    """
    names = connector_types()
    out: dict = {}
    if not len(cg.pairs):
        return out
    rows = cg.pairs
    lo = np.minimum(rows[:, 0], rows[:, 2])
    hi = np.maximum(rows[:, 0], rows[:, 2])
    sel = np.arange(len(rows))
    if pairs is not None:
        n = max(int(hi.max()), int(np.max(pairs))) + 1 if len(pairs) else 1
        sel = np.flatnonzero(np.isin(lo * n + hi, pairs[:, 0].astype(np.int64) * n + pairs[:, 1]))
        if not len(sel):
            return out
    codes = cg.pair_codes()[sel]
    w = cg._world
    fa = cg._flat_index(rows[sel, 0], rows[sel, 1])
    fb = cg._flat_index(rows[sel, 2], rows[sel, 3])
    d = w["pos"][fb] - w["pos"][fa]
    ax = w["axis"][fa]
    along = np.abs(np.einsum("ij,ij->i", d, ax))
    perp = np.linalg.norm(d - np.einsum("ij,ij->i", d, ax)[:, None] * ax, axis=1)
    from .connections import is_sliding_type

    fam_cache: dict = {}
    pos_of = {r: k for k, r in enumerate(sel.tolist())}
    lines: dict = {}  # pair -> [(axis, point)] of its sliding (pin, axle, bar, clip) mates
    for r, (c1, c2), pe, al in zip(sel.tolist(), codes.tolist(), perp.tolist(), along.tolist()):
        v = fam_cache.get((c1, c2))
        if v is None:
            v = fam_cache[(c1, c2)] = _connector_allowance(c1, c2, names)
        value, nominal, slide = v
        if nominal is not None and (abs(pe - nominal[0]) > nominal[2] or abs(al - nominal[1]) > nominal[2]):
            value = 0.0
        k = (int(lo[r]), int(hi[r]))
        if is_sliding_type(names[c1]) and is_sliding_type(names[c2]):
            lines.setdefault(k, []).append((ax[pos_of[r]], w["pos"][fa[pos_of[r]]]))
        if value > out.get(k, (-1.0, None))[0]:
            out[k] = (value, tuple(np.round(ax[pos_of[r]], 6).tolist())
                      if slide else None)
    _headgear_allowances(out, cg, sel, fa, fb, lo, hi)
    # a sliding joint's extra inset stays near its axis lines (JOINT_RADIUS): the points of the pair's
    # sliding mates along the chosen axis; stud joints (many studs per pair) keep it everywhere
    for k, (value, axis) in list(out.items()):
        if axis is None or k not in lines:
            continue
        a = np.asarray(axis)
        pts = [tuple(np.round(q, 3).tolist()) for x, q in lines[k] if abs(float(x @ a)) > 0.99]
        if pts:
            out[k] = (value, axis, tuple(dict.fromkeys(pts)))
    return out


#: Allowed interference (LDU, total over both parts) of headgear mated on the stud of a minifigure
#: head (the connection graph's "loose" head studs, :mod:`.connections`): hats, helmets, hair and
#: headdresses are drawn hugging the head they sit on, with their soft rims or inner ribs pressed
#: against it, as the pin ridges and hinge fingers of :data:`PRESS_FIT_ALLOWANCE` are. Measured:
#: headdress 93249 on head 3626b at the same origin (issue 16, item 3) interferes by 1.5 LDU (a
#: winding-number depth on the LDraw meshes); the allowance is that of the other drawn-as-they-look
#: families, 2 LDU, applied across the stud axis only, so headgear pushed down or sideways onto the
#: head by more than that still collides.
HEADGEAR_ALLOWANCE = 2.0


def _headgear_allowances(out: dict, cg, sel, fa, fb, lo, hi) -> None:
    """Raise the allowance of part pairs mated through the stud of a minifigure head to
    :data:`HEADGEAR_ALLOWANCE` (radial, about the stud axis), in place in ``out``."""
    loose = cg._world.get("loose")
    if loose is None or not len(sel):
        return
    hit = loose[fa] | loose[fb]
    if not hit.any():
        return
    ax = cg._world["axis"]
    for k, r in enumerate(sel.tolist()):
        if not hit[k]:
            continue
        key = (int(lo[r]), int(hi[r]))
        if HEADGEAR_ALLOWANCE > out.get(key, (-1.0, None))[0]:
            out[key] = (HEADGEAR_ALLOWANCE, tuple(np.round(ax[fa[k]], 6).tolist()))


def _connector_allowance(c1: int, c2: int, names) -> tuple:
    """(allowance LDU, nominal (perp, along, tol) or None when not seat-checked, sliding?) of a type pair."""
    from .connections import is_sliding_type

    value = max(PRESS_FIT_ALLOWANCE.get(_family(c1, names), 0.0), PRESS_FIT_ALLOWANCE.get(_family(c2, names), 0.0))
    k1, _, _ = _parse_type(names[c1])
    k2, _, _ = _parse_type(names[c2])
    # sliding joints and studs press radially: their extra inset is applied across the axis only
    slide = (is_sliding_type(names[c1]) and is_sliding_type(names[c2])) or _STUD_RADIAL and (
        _family(c1, names) == "stud" and _family(c2, names) == "stud")
    if k1 in ("hinge", "fixed", "ball") or k2 in ("hinge", "fixed", "ball"):
        pair = "/".join(sorted((names[c1], names[c2])))
        return value, SEAT["nominal"].get(pair, (0.0, 0.0, SEAT["tol"])), slide
    return value, None, slide


def _meshing(build, pairs: np.ndarray) -> np.ndarray:
    """(m,) bool: which colliding pairs are meshing gears (:mod:`.gears`), not collisions."""
    from .gears import mesh_pairs

    out = np.zeros(len(pairs), dtype=bool)
    meshes = {(m.a, m.b) for m in mesh_pairs(build, pairs)}
    if meshes:
        out[:] = [(int(i), int(j)) in meshes for i, j in pairs]
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
        The move that clears the pair: the shortest axis-aligned shift of ``b`` that separates them
        (see :meth:`CollisionEngine.overlap_depth`).
    direction : (3,) tuple of float
        World direction in which moving ``b`` by ``depth`` separates the parts.
    mated : bool
        True when the two parts are also mated (the overlap exceeds the press-fit allowance).
    interference : float, LDU
        How deep the material overlaps (:meth:`CollisionEngine.interference_depth`; ``inf`` when
        drawn through each other), ``nan`` when not estimated.
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
        """The interference in words: "interfering about 1.0 LDU deep", "drawn through each other" or ""."""
        x = self.interference
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
    from .connections import connection_graph

    eng = collision_engine(build)
    flat = eng.wa.placements
    g = connection_graph(build)
    out = []
    said: dict = {}  # placement index -> build.describe (a part in many pairs is described once)

    def describe(i):
        d = said.get(i)
        if d is None:
            d = said[i] = build.describe(flat[i])
        return d

    for k, (i, j) in enumerate(sorted(map(tuple, eng.reported().tolist()))):
        a, b = flat[i], flat[j]
        if k < max_depth_estimates:
            depth, direction = eng.overlap_depth(i, j)
            inter = eng.interference_depth(i, j)
        else:
            depth, direction, inter = float("nan"), (0.0, 0.0, 0.0), float("nan")
        out.append(CollisionRecord(
            a, b, (a.content.ldraw_id, b.content.ldraw_id), (describe(i), describe(j)),
            (_submodel(a), _submodel(b)), float(depth), direction, g.mated(i, j), interference=float(inter)))
    return out


def unchecked_placements(build) -> list:
    """Parts without collision geometry (not in the library nor embedded): never reported as colliding.

    Returns
    -------
    list of FlatPlacement
    """
    eng = collision_engine(build)
    return [fp for fp, ok in zip(eng.wa.placements, eng.has_shape) if not ok]


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
    for b in (build, *build._all_builds()):
        embedded |= {normalize_name(k) for k in getattr(b, "embedded_files", {})}
    out = []
    for fp in unchecked_placements(build):
        el = fp.content
        if getattr(el, "_known", True):
            continue
        key = normalize_name(el.ldraw_id)
        if key in embedded or key + ".dat" in embedded:
            continue
        out.append(fp)
    return out
