"""Collision geometry, joints and support of one build as the planner sees them (an adapter over the
validator): which part stops which along a direction, and which parts are left out of the planning."""

from __future__ import annotations

import re

import numpy as np

from ldraw_data.traits import DRAWN_BENT, title_traits

from . import columns as _columns
from ..constants import TOL
from .motions import _Motions
from .options import _DIR_NAMES, DIRECTIONS, PlannerOptions
from .plan import _vec_name

__all__ = ["DIRECTIONS", "skip_reason"]

#: Part traits (one table with the validator, :mod:`ldraw_data.traits`, whole words): drawn bent or
#: stickers (:data:`ldraw_data.traits.DRAWN_BENT`: sticker, hose, string, cable, chain, rubber band,
#: cloth, cape, flex...) are added last; "elastic" (tyre, tire, rubber) stretch over their mates;
#: "soft" sheets (boat rigging nets 2541, 6057, 47996) are draped and hooked into clips, never moved
#: along a line: nothing blocks their own move, but a placed net blocks the parts that come after it.
_FLEX = DRAWN_BENT
def _name(el) -> str:
    try:
        return el.spec.name or ""
    except Exception:  # noqa: BLE001 - a part without catalogue entry has no name
        return ""
def skip_reason(placement, has_shape: bool = True, mirrored: bool = False, scaled: bool = False) -> str | None:
    """Why a part is left out of the sequence (added in a last step), or None.

    Parameters
    ----------
    placement : FlatPlacement
    has_shape : bool
        The validator found collision geometry for it.
    mirrored : bool
        Its world transform mirrors (determinant < 0).
    scaled : bool
        Its world transform is not a rotation (``|R^T R - I|`` above ``TOL.scale``, 0.1; rounded rotation
        matrices of official files reach 0.06 in tilted sub-builds): a primitive stretched into a
        rope or rigging line (a sailing ship's file draws 2,098 scaled ``4-4cyli``), which is a
        string, not a rigid part (benchmarks/official_report.md).

    Returns
    -------
    str or None
    """
    el = placement.content
    if not has_shape:
        return "no geometry (unknown part or sticker)"
    if not el.known:
        return "MPD-embedded part (sticker or bent flexible part)"
    if mirrored:
        return "mirrored placement (bent flexible segment)"
    if scaled:
        return "scaled placement (primitive stretched into a string or rope)"
    try:
        name = el.spec.name
    except Exception:  # noqa: BLE001 - a part without catalogue entry is kept
        name = ""
    if (name or "").startswith("~Moved to "):  # a renamed part is the part it moved to (209 -> 30104k02)
        from ldraw_data.catalog import get_catalog
        from ldraw_data.errors import LDrawError

        try:
            name = f"{name}: {get_catalog().resolve_moved(el.ldraw_id).name}"
        except LDrawError:  # the target is missing: judged by its own title
            pass
    if title_traits(name or "") & _FLEX:
        return f"flexible part or sticker ({name})"
    return None


class _Geometry(_Motions):
    """Inset collision geometry, joints and support of one build (adapter over the validator).

    Public validator API used: ``collision_engine`` (``n``, ``transforms``,
    ``mirrored``, ``has_shape``, ``box_lo``, ``box_hi``, ``min_z``, ``keys``,
    ``shapes``), ``connection_graph`` (``pairs``, ``pair_codes()``),
    ``support_graph`` (``grounded``, ``edges``), ``CollisionEngine.wa.placements`` (the flattened
    placements in engine order), ``fcl.SHAPE_STORE.model`` (the inset FCL BVH of a shape),
    ``fcl.collide`` (one FCL test at a relative pose), ``ConnectionGraph.world_connectors`` and
    ``ConnectionGraph.flat_index`` (world axes of mated connectors), ``CollisionEngine.loose_allowances``
    (joint axis of loosely mated touching pairs), ``ldraw_data.connectors.type_label`` (connector family
    of a type name).
    """

    def __init__(self, build, separate_objects: bool = False, options: PlannerOptions | None = None):
        from ldraw_data.connectors import connector_types, type_label

        #: the planner's settings (sampling step, press-fit insets, joint cone, turn angles, press lifts)
        self.opt = options if options is not None else PlannerOptions()

        from ..validate.fcl import SHAPE_STORE, collide
        from ..validate.collisions import collision_engine
        from ..validate.connections import connection_graph
        from ..validate.support import support_graph

        self._store, self._collide_fn = SHAPE_STORE, collide
        eng = collision_engine(build)
        self.eng = eng
        self.n = eng.n
        self.t = eng.transforms
        # rigid inverse (scaled primitives of official files may be singular; they are skipped anyway)
        self.inv = np.zeros_like(self.t)
        if self.n:
            rt = np.transpose(self.t[:, :3, :3], (0, 2, 1))
            self.inv[:, :3, :3] = rt
            self.inv[:, :3, 3] = -np.einsum("nij,nj->ni", rt, self.t[:, :3, 3])
            self.inv[:, 3, 3] = 1.0
        self.mirrored = eng.mirrored
        self.has = eng.has_shape
        ins = TOL.collision_inset
        self.lo = eng.box_lo + ins
        self.hi = eng.box_hi - ins
        self.min_z = eng.min_z
        self.flat = eng.wa.placements
        # separate objects (stands, loose parts drawn apart) stand on their own level, as official files draw them
        sup = support_graph(build, separate_objects=separate_objects)
        self.grounded = np.asarray(sup.grounded, dtype=bool)
        self.supported = np.asarray(sup.supported, dtype=bool)
        nb = [set() for _ in range(self.n)]
        if len(sup.edges):
            for a, b in np.unique(np.sort(sup.edges, axis=1), axis=0).tolist():
                if a != b:
                    nb[a].add(b)
                    nb[b].add(a)
        cg = connection_graph(build)
        # joints: (i, j) -> world axes (unit) of the non-stud joints mating them (pins, axles, bars, clips,
        # hinges, minifigure joints, balls): the pair separates along them, and its own overlap is no block
        self.joint_axes: dict = {}
        #: pairs mated through a minifigure joint (hip, waist, shoulder, wrist, neck: BrickNet ``*_peg`` /
        #: ``*_socket`` labels): snapped together with flex and turned into pose, they never block each other
        self.snap_joints: set = set()
        #: (i, j) -> [(world axis, world pivot)] of click-hinge joints (BrickNet ``hinge_*`` labels, not
        #: minifigure joints) mating them: i may be turned about them into place (:meth:`turn_in`)
        self.hinges: dict = {}
        if len(cg.pairs):
            for a, b in cg.pairs[:, [0, 2]].tolist():
                if a != b:
                    nb[a].add(b)
                    nb[b].add(a)
            names = connector_types()
            codes = cg.pair_codes()
            fam = {}
            for c in np.unique(codes).tolist():
                fam[c] = type_label(names[c])[0] not in ("stud", "hole")
            fi = cg.flat_index(cg.pairs[:, 0], cg.pairs[:, 1])
            axes = cg.world_connectors["axis"][fi]
            pivots = cg.world_connectors["pos"][fi]
            minifig = {c: bool(_MINIFIG_JOINT.search(names[c])) for c in fam}
            hinge = {c: type_label(names[c])[0] == "hinge" for c in fam}
            for (a, _, b, _), (c1, c2), ax, pv in zip(cg.pairs.tolist(), codes.tolist(), axes, pivots):
                if a != b and (minifig[c1] or minifig[c2]):
                    self.snap_joints.update(((a, b), (b, a)))
                elif a != b and (hinge[c1] or hinge[c2]) and float(np.linalg.norm(ax)) > 1e-9:
                    for key in ((a, b), (b, a)):
                        self.hinges.setdefault(key, []).append((ax / np.linalg.norm(ax), np.asarray(pv, float)))
                if a == b or not (fam[c1] or fam[c2]):
                    continue
                nrm = float(np.linalg.norm(ax))
                if nrm < 1e-9:
                    continue
                ax = ax / nrm
                for key in ((a, b), (b, a)):
                    lst = self.joint_axes.setdefault(key, [])
                    if not any(abs(float(ax @ v)) > 0.999 for v in lst):
                        lst.append(ax)
        # pairs the graph leaves unmated but whose sliding connectors mate loosely (the validator's loose
        # match, ``LOOSE_MATE``): touching ones (hand-posed minifigure hands holding tools) are joined and
        # slide along their joint axis; near ones (boxes within the broad phase's 1.25 LDU: a clip drawn
        # 0.56 LDU off its handle bar) only slide, as a clip pressed onto its bar does
        if len(eng.pairs):
            mated = set(map(tuple, np.sort(cg.pairs[:, [0, 2]], axis=1).tolist())) if len(cg.pairs) else set()
            sliding = _sliding_parts(eng)
            rest = [(a, b) for a, b in eng.pairs.tolist()
                    if a != b and (a, b) not in mated and sliding[a] and sliding[b]]
            hit = set(map(tuple, eng.pairs[eng.hit].tolist())) if eng.hit.any() else set()
            if rest:
                for (a, b), (_, ax, *_) in eng.loose_allowances(rest).items():
                    if ax is None:
                        continue
                    ax = np.asarray(ax, dtype=np.float64)
                    for key in ((a, b), (b, a)):
                        self.joint_axes.setdefault(key, []).append(ax)
                    if (a, b) in hit:
                        nb[a].add(b)
                        nb[b].add(a)
        self.neighbors = nb
        self.hinged = {a for a, _ in self.hinges}
        self.skip = {}
        self.elastic = np.zeros(self.n, dtype=bool)
        #: soft sheets (boat rigging nets): draped into place, nothing blocks their own move; placed, they block
        self.soft = np.zeros(self.n, dtype=bool)
        if self.n:
            rr = self.t[:, :3, :3]
            scaled = np.abs(np.einsum("nji,njk->nik", rr, rr) - np.eye(3)).max(axis=(1, 2)) > TOL.scale
        for i, fp in enumerate(self.flat):
            r = skip_reason(fp, bool(self.has[i]), bool(self.mirrored[i]), bool(scaled[i]))
            if r:
                self.skip[i] = r
            elif fp.content.known and "elastic" in title_traits(_name(fp.content)):
                self.elastic[i] = True
            elif fp.content.known and "soft" in title_traits(_name(fp.content)):
                self.soft[i] = True
        self._dirs: dict = {}
        self._cands: dict = {}
        self.usable = self.has.copy()
        if self.skip:
            self.usable[list(self.skip)] = False
        # pairs whose inset meshes meet at the final pose (the validator's narrow phase, same inset)
        self.hit_pairs = set()
        #: memos of the deadlock fallbacks, kept per build across the searches that share this geometry:
        #: part -> parts that stopped its last pressed try (:meth:`press_in`) / every direction of its last
        #: flexed try (:func:`~bricklayer.assembly.strategies.flexed_part._flexed_part`); (u, j, direction) -> still meets with the allowance
        self._press_fail: dict = {}
        self.flex_fail: dict = {}
        self.flex_deep: dict = {}
        if len(eng.pairs):
            for a, b in eng.pairs[eng.hit].tolist():
                self.hit_pairs.add((a, b))
                self.hit_pairs.add((b, a))
        # broad-phase neighbours (boxes within 1.25 LDU): the pairs that can be snap fits
        self.contact = set()
        if len(eng.pairs):
            for a, b in eng.pairs.tolist():
                self.contact.add((a, b))
                self.contact.add((b, a))
        #: snap fits: minifigure joints and pairs found by :meth:`snap_fit` (both orders)
        self.snap: set = set(self.snap_joints)
        self._memo: dict = {}
        self._rasters: dict = {}

    # -- narrow phase
    def model(self, i: int, inset: float):
        return self._store.model(self.eng.shapes[self.eng.keys[i]], bool(self.mirrored[i]), inset)

    def collide(self, ma, mb, rel) -> bool:
        return self._collide_fn(ma, mb, rel)

    # -- directions
    def directions(self, i: int) -> list:
        """Candidate insertion directions of part i: ``(name, unit vector)``, in the order tried.

        A tilted part's own six axes first (down onto its studs first: the
        first stage of the search tries only the first direction, and the
        column test decides moves along a part's own axes past its aligned
        neighbours); then the six world axes (down first); then the axes of
        its pin, axle, bar, clip and hinge joints (both ways) when not along
        one of those.
        """
        hit = self._dirs.get(i)
        if hit is not None:
            return hit
        out: list = []

        def add(name, v):
            v = v / np.linalg.norm(v)
            if not any(float(v @ d) > 0.999 for _, d in out):
                out.append((name, v))

        r = self.t[i][:3, :3]
        if not np.allclose(np.abs(r), np.round(np.abs(r)), atol=1e-3):
            # a tilted part goes on along its own axes first: down onto its studs (LDraw +Y, as -Y is up)
            for k, n in enumerate(("part-y", "part+x", "part-x", "part+z", "part-z", "part+y")):
                axis = np.array([[0, 1, 0], [1, 0, 0], [-1, 0, 0], [0, 0, 1], [0, 0, -1], [0, -1, 0]][k], float)
                add(n, r @ axis)
        for n, d in zip(_DIR_NAMES, DIRECTIONS):
            add(n, d)
        for j in self.neighbors[i]:
            for ax in self.joint_axes.get((i, j), ()):
                add("joint" + _vec_name(ax), ax)
                add("joint" + _vec_name(-ax), -ax)
        self._dirs[i] = out
        return out

    def candidates(self, i: int, dv: np.ndarray) -> np.ndarray:
        """Parts whose inset boxes meet the box part i sweeps when it leaves along ``-dv``, nearest first."""
        key = (i, dv.tobytes())  # directions come from fixed arrays: equal vectors, equal bytes
        hit = self._cands.get(key)
        if hit is not None:
            return hit
        lo, hi = self.lo[i].copy(), self.hi[i].copy()
        lo[dv > 1e-9] = -np.inf
        hi[dv < -1e-9] = np.inf
        ok = self.usable & np.all(self.lo < hi, axis=1) & np.all(self.hi > lo, axis=1)
        ok[i] = False
        c = np.flatnonzero(ok)
        if len(c):
            # entry distance of the box along the removal direction -dv
            r = -dv
            ent = np.zeros(len(c))
            for a in range(3):
                if abs(r[a]) > 1e-9:
                    e = (self.lo[c, a] - self.hi[i, a]) / r[a] if r[a] > 0 else (self.hi[c, a] - self.lo[i, a]) / r[a]
                    ent = np.maximum(ent, e)
            c = c[np.argsort(ent, kind="stable")]
        self._cands[key] = c
        return c

    def blocks(self, u: int, j: int, dv: np.ndarray) -> bool:
        """Does part j stop part u from coming in along unit vector dv (equally: from leaving along -dv)?"""
        if (u, j) in self.snap:
            return False
        mk = (u, j, dv.tobytes())
        hit = self._memo.get(mk)
        if hit is None:
            hit = self._memo[mk] = self._blocks(u, j, dv)
        return hit

    def _blocks(self, u: int, j: int, dv: np.ndarray) -> bool:
        if self.elastic[u] or self.elastic[j] or self.soft[u]:
            return False
        for ax in self.joint_axes.get((u, j), ()):
            if abs(float(ax @ dv)) > self.opt.joint_cos:
                return False  # a pin, clip or hinge goes in along its joint axis: the mate's overlap is the fit
        s_lo, s_hi = self.overlap_interval(u, j, dv)
        if s_hi <= s_lo:
            return False
        rel = self.inv[u] @ self.t[j]
        dloc = self.inv[u][:3, :3] @ dv
        key = (self.eng.keys[u], bool(self.mirrored[u]), self.eng.keys[j], bool(self.mirrored[j]),
               np.round(rel[:3], 2).tobytes(), np.round(dloc, 3).tobytes(), self.opt.sample_step,
               self.opt.press_insets)
        hit = _PATH_MEMO.get(key)
        if hit is not None:
            return hit
        if (u, j) not in self.hit_pairs:
            a = self._world_axis(dv)
            blocked = self.columns_block(u, j, dv) if a is not None else None
            if blocked is not None and _COLUMN_LOG is not None:
                _COLUMN_LOG.append((u, j, a, float(dv[a]), blocked))
            if blocked is None:
                blocked = self.frame_columns_block(u, j, rel, dloc)
            if blocked is not None:
                _PATH_MEMO[key] = blocked
                return blocked
        # the two parts at their final poses: choose the inset (press fits), or ignore a real collision
        inset = self.final_inset(u, j)
        if inset is None:
            _PATH_MEMO[key] = False
            return False
        ma, mb = self.model(u, inset), self.model(j, inset)
        blocked = self.sweep(ma, mb, rel, dloc, s_lo, s_hi)
        _PATH_MEMO[key] = blocked
        return blocked

    @staticmethod
    def _world_axis(dv: np.ndarray):
        """Index of the world axis dv lies along (unit, within 1e-9), else None."""
        ad = np.abs(dv)
        a = int(ad.argmax())
        if abs(ad[a] - 1.0) > 1e-9 or ad.sum() - ad[a] > 1e-9:
            return None
        return a

    def world_raster(self, i: int, a: int):
        """Column raster of part i along world axis a (:func:`bricklayer._columns.world_raster`), kept per build;
        None when the part is not at an axis-aligned rotation."""
        k = (i, a)
        if k in self._rasters:
            return self._rasters[k]
        key = self.eng.keys[i]
        r = _columns.world_raster(self.eng.shapes[key], key, bool(self.mirrored[i]), TOL.collision_inset,
                                  self.t[i], a)
        self._rasters[k] = r
        return r

    def columns_block(self, u: int, j: int, dv: np.ndarray):
        """Column test (module :mod:`bricklayer._columns`): does u, leaving along -dv (a world axis), meet j?

        Exact up to the 0.5 LDU column grid (misses features thinner than a column across the
        motion). None when dv is no world axis or a part is tilted: use the sampled test.
        """
        a = self._world_axis(dv)
        if a is None:
            return None
        ru = self.world_raster(u, a)
        if ru is None:
            return None
        rj = self.world_raster(j, a)
        if rj is None:
            return None
        return _columns.meets(ru, rj, forward=bool(dv[a] < 0))

    def frame_columns_block(self, u: int, j: int, rel: np.ndarray, dloc: np.ndarray):
        """The column test in part u's own frame: for tilted parts moving along one of their own axes past
        a part turned by a signed permutation relative to them (parts of one tilted sub-build).

        ``rel``: j's pose in u's part frame (4, 4); ``dloc``: the insertion direction there. None when
        dloc is no axis of u or j is tilted relative to u (use the sampled test).
        """
        a = self._world_axis(dloc)
        if a is None or _columns.axis_map(rel[:3, :3]) is None:
            return None
        k = (u, "own", a)
        ru = self._rasters.get(k)
        if ru is None:
            key = self.eng.keys[u]
            ru = self._rasters[k] = _columns.world_raster(self.eng.shapes[key], key, bool(self.mirrored[u]),
                                                          TOL.collision_inset, np.eye(4), a)
        key = self.eng.keys[j]
        rj = _columns.world_raster(self.eng.shapes[key], key, bool(self.mirrored[j]), TOL.collision_inset, rel, a)
        if ru is None or rj is None:
            return None
        return _columns.meets(ru, rj, forward=bool(dloc[a] < 0))

    def sweep(self, ma, mb, rel, dloc, s_lo, s_hi) -> bool:
        """Sampled path test: j at ``rel`` moved by ``s * dloc`` (u's frame), s over [s_lo, s_hi] every <= 1 LDU.

        One FCL test per sample; the first :data:`_SINGLE` at ``s_lo + k`` LDU (a blocker is
        usually met at once; a path shorter than that is sampled up to the first point past ``s_hi``).
        """
        n = max(1, int(np.ceil((s_hi - s_lo) / self.opt.sample_step)))
        r = rel.copy()
        first = min(n + 1, _SINGLE)
        for k in range(first):
            r[:3, 3] = rel[:3, 3] + dloc * (s_lo + k * self.opt.sample_step)
            if self.collide(ma, mb, r):
                return True
        s = s_lo + first * self.opt.sample_step
        if s > s_hi:
            return False
        while s <= s_hi + 1e-9:
            r[:3, 3] = rel[:3, 3] + dloc * s
            if self.collide(ma, mb, r):
                return True
            s += self.opt.sample_step
        return False

    def threaded_axes(self, pin: int, i: int) -> list:
        """Axes (unit, world, among the pin's own six directions) along which part ``pin`` passes through
        part ``i`` as drawn: ``i`` stops ``pin`` neither way along the axis and both ways along each of
        the two axes across it (the straight-line test). An axle through a hole drawn a little off the hole's
        axis, beyond the connection graph's tolerance (liftarms 6632 whose rounded rotation rows put
        their far hole 0.87 LDU off the axle 2 through it), is still through the hole."""
        axes: list = []
        for _, d in self.directions(pin)[:6]:
            a = np.asarray(d, dtype=np.float64)
            if not any(abs(float(a @ b)) > 0.99 for b in axes):
                axes.append(a)
        out = []
        for a in axes:
            if self.blocks(pin, i, a) or self.blocks(pin, i, -a):
                continue
            across = [b for b in axes if abs(float(a @ b)) < 0.05]
            if len(across) == 2 and all(self.blocks(pin, i, b) and self.blocks(pin, i, -b) for b in across):
                out.append(a)
        return out

    def has_clip(self, j: int) -> bool:
        """Part ``j`` has a clip connector (BrickNet ``clip`` labels): a part made to flex open and grip."""
        try:
            return any(c.type == "clip" for c in self.flat[j].content.connectors)
        except Exception:  # noqa: BLE001 - a part without a catalogue entry has no connectors
            return False

    def snap_fit(self, u: int, j: int, one_sided: bool = False) -> bool:
        """Are touching parts u and j a snap fit (module notes)? Marks the pair when so.

        True when they touch (collision broad phase) and j blocks u in every
        candidate direction of u, and u blocks j in every direction of j: two
        rigid parts so interlocked cannot be put together along any line, yet
        the official model is built, so one of them flexes (a turntable top
        3404 clicked onto its base 3403, a slotted pin's lip 3673 through a
        wheel hub 6118, a clip over a bar) or turns into place. The pair then
        no longer blocks each other; every other part still does.
        ``one_sided``: the caller found j to be the only part blocking u, in every
        direction, and that is enough: a clip 61252 on a handle 60478, a canopy 2466
        on its hinge plate 4276b, a magnet 2959c01 in its holder 2607).
        """
        if (u, j) in self.snap:
            return True
        if (u, j) not in self.contact:
            return False
        for a, b in (() if one_sided else ((u, j), (j, u))):
            if not all(self.blocks(a, b, dv) for _, dv in self.directions(a)):
                return False
        self.snap.add((u, j))
        self.snap.add((j, u))
        return True

    def final_inset(self, u: int, j: int):
        """Inset (LDU) at which parts u and j are tested on a path ending at their final poses: the common
        one, or for a pair touching there the first press-fit inset that separates them; None when even
        that does not (a collision the validator reports, not held against the path)."""
        if (u, j) not in self.hit_pairs:
            return TOL.collision_inset
        rel = self.inv[u] @ self.t[j]
        for extra in self.opt.press_insets:
            ins = TOL.collision_inset + extra
            if not self.collide(self.model(u, ins), self.model(j, ins), rel):
                return ins
        return None

    def overlap_interval(self, u: int, j: int, dv: np.ndarray) -> tuple[float, float]:
        """Range of s >= 0 over which u's box, moved by -s * dv, overlaps j's box."""
        s_lo, s_hi = 0.0, np.inf
        for a in range(3):
            lo_u, hi_u, lo_j, hi_j = self.lo[u, a], self.hi[u, a], self.lo[j, a], self.hi[j, a]
            da = dv[a]
            if abs(da) < 1e-9:
                if lo_u >= hi_j or lo_j >= hi_u:
                    return 0.0, 0.0
                continue
            a1, a2 = (lo_u - hi_j) / da, (hi_u - lo_j) / da
            s_lo, s_hi = max(s_lo, min(a1, a2)), min(s_hi, max(a1, a2))
        return s_lo, s_hi


_PATH_MEMO: dict = {}
_TIMED_OUT = -2  # first_blocker: the deadline passed before the answer
def _sliding_parts(eng) -> np.ndarray:
    """(n,) bool: placements of the collision engine whose part has a sliding connector (clip, bar, pin,
    axle or their holes: ``bricklayer.validate.connections.is_sliding_type``), by part id, memoized."""
    from ldraw_data.connectors import connector_types

    from ..validate.connections import is_sliding_type, part_connector_arrays

    names = connector_types()
    flags = np.array([is_sliding_type(n) for n in names], dtype=bool)
    out = np.zeros(eng.n, dtype=bool)
    for i, fp in enumerate(eng.wa.placements):
        key = fp.content.ldraw_id if hasattr(fp.content, "ldraw_id") else None
        hit = _SLIDING.get(key)
        if hit is None:
            try:
                arr = part_connector_arrays(fp.content)
                hit = bool(len(arr.code) and flags[arr.code].any())
            except Exception:  # noqa: BLE001 - a part without connectors has no sliding one
                hit = False
            if key is not None:
                _SLIDING[key] = hit
        out[i] = hit
    return out
_SLIDING: dict = {}
def connected_pieces(nodes: set, neighbors) -> list:
    """Connected pieces (sets) of ``nodes`` in the graph ``neighbors[x]`` (iterables of node ids)."""
    todo, out = set(nodes), []
    while todo:
        x = todo.pop()
        piece, stack = {x}, [x]
        while stack:
            for y in neighbors[stack.pop()]:
                if y in todo:
                    todo.discard(y)
                    piece.add(y)
                    stack.append(y)
        out.append(piece)
    return out
#: When a list, every pair the column test decides is appended as (u, j, world axis, dv[axis], blocked).
_COLUMN_LOG = None
#: Path samples taken at ``s_lo + k`` LDU first (see ``_Geometry.sweep``).
_SINGLE = 4
_MINIFIG_JOINT = re.compile(r"_(peg|socket)$|^neck")
