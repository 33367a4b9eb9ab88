"""Press fits (validator stage 4): which colliding pairs are mated parts drawn pressed together.

Consumes the colliding pairs of :class:`.collisions.CollisionEngine`, the connection graph
(:mod:`.connections`) and gear meshes (:mod:`.gears`); produces the pairs still reported after the
press-fit allowances (:meth:`PressFits.reported`, a mixin of the engine) and the tolerances behind
them (:data:`PRESS_FIT_ALLOWANCE`, :data:`LOOSE_MATE`, :data:`SEAT`, :data:`AXIAL_EXTRA`,
:data:`JOINT_RADIUS`, :data:`HEADGEAR_ALLOWANCE`). See the module notes of :mod:`.collisions`, step 4.
"""

from __future__ import annotations

__all__ = ["PRESS_FIT_ALLOWANCE", "EXACT_FIT_ALLOWANCE", "LOOSE_MATE", "SEAT", "AXIAL_EXTRA", "JOINT_RADIUS",
           "HEADGEAR_ALLOWANCE", "ROUNDING_MARGIN", "PressFits"]

import logging

import numpy as np

from ldraw_data.connectors import connector_types, mate_kind, type_label

from ..constants import TOL
from .connections import (AXLE_MIN_HALF, AXLE_MIN_OVERLAP, SLIDE_END_EPS, connection_graph, is_sliding_type,
                          part_connector_arrays)
from .gear_geometry import mesh_pairs
from .memo import PAIR_MEMO as _MEMO

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
#: Allowances (LDU, total over both parts) of connector pairs that fit exactly, by their two
#: ``type_label`` subtypes, overriding :data:`PRESS_FIT_ALLOWANCE`. An axle in a cross-shaped axle hole
#: cannot turn: LDraw draws ``axle.dat`` and the ``axlehol*.dat`` holes to the same cross, so an axle
#: seated in its hole overlaps nothing, and one turned about its axis by ``a`` presses its arms into the
#: hole's walls by about ``6 sin(a)`` LDU. The 2 LDU of the axle family (a pin's friction ridges) let an
#: axle turned by up to 25 degrees pass. Measured (``benchmarks/audit`` depth, both ways; audit round 5
#: and branch inset16, ``benchmarks/validator_audit.md``): official files draw axles in cross holes up to
#: 0.52 / 0.70 LDU deep (axle pin 43093 turned 5.03 degrees in liftarm 32009, 10227 lines 23 / 27;
#: 4519 in 32064a, 10029; axle 50451 in connector 59443, 75144, 0.42), while axles turned 20-53 degrees in
#: their holes (axle 55013 in liftarm 32348 and eight bushes 3713 on axle 3707, 10212; 60485 in 30033,
#: 10240; 50451 in 33299 and 87083 in 32123a, 75144) measure 1.6-2.1 LDU. 0.5 LDU (1 LDU of radial
#: clearance with the common insets: a turn of about 10 degrees) lies between.
EXACT_FIT_ALLOWANCE: dict[frozenset, float] = {frozenset(("axle", "cross")): 0.5}
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
#: Extra inset per part (LDU) before a colliding pair without a press-fit allowance is reported: the
#: pair must still meet with both meshes inset by ``TOL.collision_inset + ROUNDING_MARGIN`` = 0.3 LDU,
#: i.e. overlap by more than 0.6 LDU. Source: ``shared/docs/validator-notes.md`` ("a shift of 0.6 LDU
#: into a neighbour is then the smallest that shows"): the common inset leaves 0.5 LDU of clearance, and
#: official files write rotated coordinates with 3-4 decimals, so parts meant to touch or to overlap by
#: exactly that 0.5 LDU are drawn up to about 0.1 LDU deeper (audit round 5,
#: ``benchmarks/validator_audit.md``: a thick beam on a half beam turned 5 degrees, 0.503 LDU; a round
#: 1 x 1 brick drawn 0.56 LDU into the edge of a plate at off-grid coordinates). Pushes of 1 LDU and more
#: stay collisions (fault injection).
ROUNDING_MARGIN = 0.05


class PressFits:
    """Press-fit verdicts of :class:`.collisions.CollisionEngine` (mixin: uses its pairs and queries)."""

    # -- press fits
    def reported(self) -> np.ndarray:
        """(r, 2) int: colliding pairs left after the press-fit allowances.

        A pair without an allowance is kept only when it still meets with both meshes inset by a
        further :data:`ROUNDING_MARGIN` (overlap beyond 0.6 LDU); a mated pair only when it meets
        with its allowance (:data:`PRESS_FIT_ALLOWANCE`) inset. Pairs with a library sub-part or
        primitive placed as a part (drawn, not built: :meth:`drawn_only`) are never kept.

        Incremental: the verdict on a pair depends only on its two
        placements (their poses decide both the intersection and the
        connectors mated between them), so it is kept per pair of instance
        ids and only pairs new since the last call are decided.
        """
        if self._reported is not None:
            return self._reported
        cand = self.pairs[self.hit]
        cand = cand[~self.same_flexible(cand)]
        cand = cand[~self.drawn_only(cand)]
        cand = cand[~_meshing(self._build, cand)]
        sunk = self.sunk_stickers()
        if len(sunk):  # rule "sticker sunk into a part" (.sunk_stickers): their inset meshes do not meet
            cand = np.unique(np.vstack([cand.reshape(-1, 2), sunk]), axis=0)
        if not len(cand):
            self._reported = cand
            return cand
        inst = self.inst
        keys = [(int(x), int(y)) for x, y in zip(inst[cand[:, 0]].tolist(), inst[cand[:, 1]].tolist())]
        verdict = self._verdicts
        todo = [k for k, key in enumerate(keys) if key not in verdict]
        log.debug("press fits: %d of %d colliding pairs to decide", len(todo), len(keys))
        if todo:
            sub = cand[todo]
            cg = connection_graph(self._build)
            allow = _pair_allowances(cg, sub)
            rest = [p for p in map(tuple, sub.tolist()) if p not in allow]
            for k, v in self._loose_allowances(rest).items():
                allow[k] = v
            got = [allow.get((int(i), int(j)), (-1.0, None)) for i, j in sub]
            extra = np.array([g[0] for g in got])
            radial = np.array([g[1] is not None for g in got], dtype=bool)
            # no allowance: reported only when the overlap exceeds the clearance plus rounding
            plain = np.flatnonzero(extra <= 0)
            a, b = sub[plain, 0], sub[plain, 1]
            still = np.ones(len(sub), dtype=bool)
            still[plain] = self._query(a, b, self.transforms[a], self.transforms[b],
                                       TOL.collision_inset + ROUNDING_MARGIN)
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
        if len(sunk):
            keep |= (cand[:, None, :] == sunk[None, :, :]).all(axis=2).any(axis=1)
        self._reported = cand[keep]
        return self._reported

    def sunk_stickers(self) -> np.ndarray:
        """(s, 2) int pairs ``i < j`` (broad-phase candidates) of a sticker sunk into the other part: its whole
        slab inside that part's material (rule "sticker sunk into a part", :mod:`.sunk_stickers`).
        :attr:`sunk_depths` maps each pair to ``(depth LDU, move LDU, direction)`` of
        :func:`.sunk_stickers.sunk_sticker_depths` (the sticker's move out). Kept per pair of instance
        ids, as the verdicts are."""
        from .sunk_stickers import sticker_mask, sunk_sticker_depths

        p = self.pairs
        self.sunk_depths = getattr(self, "sunk_depths", {})
        if not len(p):
            return np.zeros((0, 2), dtype=np.int64)
        sticker = sticker_mask(self)
        if not sticker.any():
            return np.zeros((0, 2), dtype=np.int64)
        p = p[sticker[p[:, 0]] | sticker[p[:, 1]]]
        memo = self.__dict__.setdefault("_sunk_memo", {})  # (inst a, inst b) -> (depth, move, direction)
        keys = [(int(x), int(y)) for x, y in zip(self.inst[p[:, 0]].tolist(), self.inst[p[:, 1]].tolist())]
        todo = [k for k, key in enumerate(keys) if key not in memo]
        if todo:
            for k, got in zip(todo, sunk_sticker_depths(self, p[todo], sticker)):
                memo[keys[k]] = got
        sunk = np.array([memo[key][0] > 0 for key in keys], dtype=bool)
        out = p[sunk]
        self.sunk_depths = {(int(i), int(j)): memo[key] for (i, j), key, s in zip(p.tolist(), keys, sunk) if s}
        return out.astype(np.int64)

    def loose_allowances(self, pairs: list) -> dict:
        """Press-fit allowances of colliding pairs ``pairs`` (list of (i, j) placement indices) that the
        connection graph leaves unmated but whose sliding connectors (axles, pins, hinges) mate within the
        looser :data:`LOOSE_MATE` tolerances. Returns ``{(i, j): (allowance_ldu, axis, ...)}``, the joint axis a
        unit 3-vector in the build frame (module notes, step 4). Used by the assembly planner."""
        return self._loose_allowances(pairs)

    def _loose_allowances(self, pairs: list) -> dict:
        """Press-fit allowances of colliding pairs the connection graph leaves unmated but whose
        connectors mate within the looser :data:`LOOSE_MATE` tolerances (module notes, step 4)."""
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

        mates: dict = {}  # (type code, type code) -> the two types mate and one of them slides

        def slide_mate(cx: int, cy: int) -> bool:
            """Connector types ``cx`` and ``cy`` mate (``mate_kind``) through a sliding joint."""
            v = mates.get((cx, cy))
            if v is None:
                ta, tb = names[cx], names[cy]
                v = mates[(cx, cy)] = mate_kind(ta, tb) is not None and (is_sliding_type(ta) or is_sliding_type(tb))
            return v

        for i, j in pairs:
            ai, aj = conn(i), conn(j)
            if not sliding[ai.code].any() or not sliding[aj.code].any():
                continue
            pi = ai.pos @ poses[i, :3, :3].T + poses[i, :3, 3]
            xi = ai.axis @ poses[i, :3, :3].T
            pj = aj.pos @ poses[j, :3, :3].T + poses[j, :3, 3]
            xj = aj.axis @ poses[j, :3, :3].T
            best, best_axis, best_point = -1.0, None, None
            # connector pairs within reach that mate through a sliding joint, found for all pairs at
            # once; each is then judged as one (in the order a, then b)
            d_all = pj[None, :, :] - pi[:, None, :]
            dist_all = np.linalg.norm(d_all, axis=2)
            near = dist_all <= np.maximum(ai.length[:, None] + aj.length[None, :], 0) + LOOSE_MATE["line"] + 4.0
            if not near.any():
                continue
            ca, cb = ai.code.tolist(), aj.code.tolist()
            for a, b in zip(*(x.tolist() for x in np.nonzero(near))):
                if not slide_mate(ca[a], cb[b]):
                    continue  # point joints (studs, hinges, balls): the graph's own tolerance only
                d, dist = d_all[a, b], dist_all[a, b]
                cos = abs(float(xi[a] @ xj[b]))
                along = float(d @ xi[a])
                perp = float(np.sqrt(max(dist ** 2 - along ** 2, 0.0)))
                # the same overlap along the slide as the connection graph (BrickNet 4 LDU): a bar
                # slid out of its clip is not pressed in any more
                overlap = (max(ai.length[a], AXLE_MIN_HALF) + max(aj.length[b], AXLE_MIN_HALF)
                           - abs(along))
                ok = (cos >= LOOSE_MATE["cos"] and perp <= LOOSE_MATE["line"]
                      and overlap >= AXLE_MIN_OVERLAP - SLIDE_END_EPS)
                if ok:
                    v = _type_pair_allowance(int(ai.code[a]), int(aj.code[b]), names)
                    if v > best:
                        best, best_axis = v, xi[a] / max(np.linalg.norm(xi[a]), 1e-12)
                        best_point = pi[a]
            if best >= 0:
                out[(i, j)] = (best, tuple(np.round(best_axis, 6).tolist()),
                               (tuple(np.round(best_point, 3).tolist()),))
        return out
    def press_fits(self) -> np.ndarray:
        """(p, 2) int: colliding pairs excused as press fits of mated parts."""
        cand = self.pairs[self.hit]
        cand = cand[~self.same_flexible(cand)]
        cand = cand[~self.drawn_only(cand)]
        rep = {tuple(x) for x in self.reported().tolist()}
        return np.array([x for x in cand.tolist() if tuple(x) not in rep], dtype=np.intp).reshape(-1, 2)


def _family(code: int, names) -> str:
    kind, sub, _ = type_label(names[code])
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
    w = cg.world_connectors
    fa = cg.flat_index(rows[sel, 0], rows[sel, 1])
    fb = cg.flat_index(rows[sel, 2], rows[sel, 3])
    d = w["pos"][fb] - w["pos"][fa]
    ax = w["axis"][fa]
    along = np.abs(np.einsum("ij,ij->i", d, ax))
    perp = np.linalg.norm(d - np.einsum("ij,ij->i", d, ax)[:, None] * ax, axis=1)
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
    loose = cg.world_connectors.get("loose")
    if loose is None or not len(sel):
        return
    hit = loose[fa] | loose[fb]
    if not hit.any():
        return
    ax = cg.world_connectors["axis"]
    for k, r in enumerate(sel.tolist()):
        if not hit[k]:
            continue
        key = (int(lo[r]), int(hi[r]))
        if HEADGEAR_ALLOWANCE > out.get(key, (-1.0, None))[0]:
            out[key] = (HEADGEAR_ALLOWANCE, tuple(np.round(ax[fa[k]], 6).tolist()))


def _type_pair_allowance(c1: int, c2: int, names) -> float:
    """Press-fit allowance (LDU, total over both parts) of two mated connector types (codes into ``names``):
    :data:`EXACT_FIT_ALLOWANCE` for exact fits (an axle in a cross-shaped axle hole), else the larger
    :data:`PRESS_FIT_ALLOWANCE` of the two families."""
    k1, s1, _ = type_label(names[c1])
    k2, s2, _ = type_label(names[c2])
    exact = EXACT_FIT_ALLOWANCE.get(frozenset((s1, s2))) if k1 == k2 else None
    if exact is not None:
        return exact
    return max(PRESS_FIT_ALLOWANCE.get(_family(c1, names), 0.0), PRESS_FIT_ALLOWANCE.get(_family(c2, names), 0.0))


def _connector_allowance(c1: int, c2: int, names) -> tuple:
    """(allowance LDU, nominal (perp, along, tol) or None when not seat-checked, sliding?) of a type pair."""
    value = _type_pair_allowance(c1, c2, names)
    k1, _, _ = type_label(names[c1])
    k2, _, _ = type_label(names[c2])
    # sliding joints and studs press radially: their extra inset is applied across the axis only
    slide = (is_sliding_type(names[c1]) and is_sliding_type(names[c2])) or _STUD_RADIAL and (
        _family(c1, names) == "stud" and _family(c2, names) == "stud")
    if k1 in ("hinge", "fixed", "ball") or k2 in ("hinge", "fixed", "ball"):
        pair = "/".join(sorted((names[c1], names[c2])))
        return value, SEAT["nominal"].get(pair, (0.0, 0.0, SEAT["tol"])), slide
    return value, None, slide


def _meshing(build, pairs: np.ndarray) -> np.ndarray:
    """(m,) bool: which colliding pairs are meshing gears (:mod:`.gears`), not collisions."""
    out = np.zeros(len(pairs), dtype=bool)
    meshes = {(m.a, m.b) for m in mesh_pairs(build, pairs)}
    if meshes:
        out[:] = [(int(i), int(j)) in meshes for i, j in pairs]
    return out
