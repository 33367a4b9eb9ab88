"""Replay assembly plans and check them against the two rules of issue #8, independently of the planner.

Usage: ``python benchmarks/check_plans.py [MODEL.mpd ...] [--budget S] [--examples K]`` (default: eight
official models of ``/work/shared/models/official``). Each model is planned with
``assembly_sequence(build, time_budget=S, separate_objects=True)``; its ``AssemblyPlan.insertions`` are
replayed move by move, and the script prints per model the insertions checked, the violations by rule
(the first few described by part index, id and title) and the time taken.

The checker (:func:`check_insertions`, :func:`check_plan`) reads only the validator's public pieces
(``collision_engine``: ``transforms``, ``has_shape``, ``box_lo``/``box_hi``, ``pairs``/``hit``, the
memoized narrow phase ``_query``; ``connection_graph``: ``pairs``, ``pair_codes()``; ``support_graph``:
``grounded``, ``edges``; ``part_connector_arrays`` for connector axes) and none of the planner's
geometry (``_Geometry``, ``_columns``, ``_Search``), so a bug there cannot hide itself here.

Rules checked (``bricklayer/assembly/__init__.py`` module docstring):

``holds``
    Some moving part touches a part already in its assembly (a support edge or a mated connector pair,
    either way), or, at level 0 (the model on the ground), some moving part is grounded
    (``support_graph(build, separate_objects=True).grounded``) or touches a part the plan leaves out
    (``plan.skipped``: treads, hoses) that the validator finds supported. The first move of an in-hand assembly
    (level other than 0) needs nothing. A move marked ``held`` (a part held in place by hand while a pin
    or axle goes in) is checked together with the next move of its level not so marked: every part of
    the moves is reached from a grounded part or a part of the assembly before them through parts of
    the moves that touch (or move with it); a held move never followed by such a move breaks the rule.
``path``
    The moving parts, translated by ``-s * direction`` for ``s`` from the largest distance at which
    their bounding boxes overlap an assembly part's box down to the smallest (0 at the closest), in
    steps of at most :data:`STEP` (1 LDU), never meet an assembly part: inset meshes
    (``TOL.collision_inset``, 0.25 LDU) intersecting. Exempt, as the planner documents: a pair that
    already meets at the final pose is tested with :data:`PRESS_EXTRA` (+0.5 LDU, then +1.0 LDU)
    added to the inset, and ignored when it still meets at the final pose (a collision drawn in the
    file); a pair mated through a non-stud joint (pin, axle, bar, clip, hinge, minifigure, ball) when
    the motion lies within 18 degrees of that joint's axis (``|cos| > 0.95``), and so does a pair in contact
    whose sliding connectors nearly mate (:data:`NEAR_LINE`, :data:`NEAR_COS`: a clip drawn half an LDU off
    its bar); a pair mated through a
    minifigure or snap-socket joint (``*_peg`` / ``*_socket`` / ``neck*`` connector types); a pair
    with a tyre or rubber part; a boat rigging net on its own move (a placed net still blocks). A move
    with ``turn`` (``axis``, ``pivot``, ``degrees``: a part clicked
    on with its hinge open) comes in straight at its pose turned by ``degrees`` about the hinge and then
    turns shut, sampled so that no corner of its box moves more than 1 LDU between samples; a pair mated
    through a non-stud joint along the hinge axis (the hinge itself) is exempt in both stages. A move
    with ``press`` (``direction``, ``distance``: a part slid in lifted and pressed onto its studs) comes in
    straight at its pose moved by ``-distance * direction`` and is then pressed that far along
    ``direction``, both stages sampled and exempt alike.
``snap``
    A path violation between two parts in contact (a broad-phase pair of the collision engine: boxes
    within 1.25 LDU, the planner's condition for a snap fit). The planner may have decided that the
    pair is a snap fit (``AssemblyPlan.snap_fits`` is only a count), so these are reported apart as
    "possible snap fit", not as failures.
``cover``
    Every planned part (all but ``skipped`` and ``failed``) moves exactly once at level 0 (directly or
    inside the move of a whole sub-build or subassembly); every in-hand level's parts are moved
    exactly once inside it and then inserted whole, by exactly one later move of another level whose
    parts are exactly that level's parts; directions are unit vectors; no skipped, failed or
    shapeless part moves.
"""

from __future__ import annotations

__all__ = ["STEP", "PRESS_EXTRA", "SHALLOW", "JOINT_COS", "NEAR_LINE", "NEAR_COS", "Violation", "PlanCheck", "check_insertions", "check_plan",
           "main"]

import argparse
import logging
import os
import re
import sys
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path


sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's packages, not another editable install

import numpy as np

log = logging.getLogger(__name__)

OFFICIAL = Path(os.environ.get("BRICKWRIGHT_MODELS_DIR",
                               Path(__file__).resolve().parents[1].parent / "shared" / "models" / "official"))
DEFAULT_MODELS = ("1180_1_Space_Port_Moon_Buggy", "6887_1_Allied_Avenger", "10029_Lunar_Lander",
                  "6905_Biwing_Blaster", "21041_1_Great_Wall_of_China", "7181_TIE_Interceptor_UCS",
                  "6080_Kings_Castle", "10156_1_LEGO_Truck")

#: Largest gap (LDU) between two samples of an insertion path (issue #8 rule 2; a part's walls are
#: 1.5 LDU or more thick and the two insets leave another 0.5 LDU, so no wall slips between samples).
STEP = 1.0
#: Extra inset (LDU) tried, in order, for a pair whose inset meshes already meet at the final pose (the
#: press fit of a stud, then others), as the planner documents; a pair meeting even so is a drawn collision.
PRESS_EXTRA = (0.5, 1.0)
#: Extra inset (LDU) of the depth hint given with each path violation: a meeting gone with it is thinner
#: than the planner's 0.5 LDU column grid (``bricklayer/assembly/columns.py``: blind to thinner features).
SHALLOW = 0.25
#: A non-stud joint lets its mate in along its axis: motion within 18 degrees (|cos| > 0.95) of it.
JOINT_COS = 0.95
#: Connector type families that are stud joints (their mates block every direction but the stud's).
#: Near mates (the planner's use of the validator's ``LOOSE_MATE``): a pair in contact whose sliding
#: connectors lie within this distance (LDU) of each other's axis line and this |cos| of parallel slides
#: along that axis like a mated pair.
NEAR_LINE = 0.7
NEAR_COS = 0.9
_STUD_TYPES = frozenset({"stud", "open_stud", "antistud", "tube", "post"})
#: Minifigure and snap-socket joints (BrickNet labels): pressed together with flex, never a block.
_MINIFIG = re.compile(r"_(peg|socket)$|^neck")
#: Tyres and rubber parts stretch over their rims.
_ELASTIC = re.compile(r"tyre|tire|rubber", re.I)
_SOFT = re.compile(r"rigging", re.I)  # draped nets: exempt on their own move only
#: Sample indices of one pair tested per round (nearest samples first; a blocker is usually met at once).
_ROUNDS = (0, 4, 24, None)


@dataclass
class Violation:
    """One broken rule.

    Attributes
    ----------
    rule : str
        ``"holds"``, ``"path"``, ``"snap"`` (possible snap fit) or ``"cover"``.
    step : int
        Index of the insertion in the plan (-1: the plan as a whole).
    parts : list of int
        Moving parts concerned (flat indices).
    other : int or None
        The assembly part met (rule ``path``/``snap``).
    text : str
        Description by part index, id and title.
    shallow : bool
        Rules ``path``/``snap``: the parts no longer meet with :data:`SHALLOW` (0.25 LDU) more inset, a
        contact thinner than the planner's 0.5 LDU column grid, which its module notes say it cannot see.
    """

    rule: str
    step: int
    parts: list
    other: int | None
    text: str
    shallow: bool = False


@dataclass
class PlanCheck:
    """The result of replaying a plan.

    Attributes
    ----------
    insertions : int
        Moves replayed.
    violations : list of Violation
    seconds : float
    pair_tests : int
        Narrow-phase tests asked of the collision engine (memoized ones included).
    """

    insertions: int
    violations: list = field(default_factory=list)
    seconds: float = 0.0
    pair_tests: int = 0

    def by_rule(self, rule: str) -> list:
        """Violations of one rule, in plan order."""
        return [v for v in self.violations if v.rule == rule]

    def counts(self) -> dict:
        """Number of violations per rule (every rule present)."""
        return {r: len(self.by_rule(r)) for r in ("holds", "path", "snap", "cover")}

    @property
    def ok(self) -> bool:
        """No violation of ``holds``, ``path`` or ``cover`` (possible snap fits are not failures)."""
        return not any(v.rule != "snap" for v in self.violations)


def _describe(flat, i: int) -> str:
    el = flat[i].content
    try:
        title = el.spec.name or ""
    except Exception:  # noqa: BLE001 - a part without catalogue entry has no title
        title = ""
    return f"{i} {el.ldraw_id} '{title}'"


class _Context:
    """Public validator data of one build, read once."""

    def __init__(self, build, separate_objects: bool):
        from ldraw_data.connectors import connector_types

        from bricklayer.validate.collisions import collision_engine
        from bricklayer.validate.connections import connection_graph, part_connector_arrays
        from bricklayer.validate.support import support_graph

        self.flat = build.flattened_placements
        eng = self.eng = collision_engine(build)
        n = self.n = eng.n
        self.t = eng.transforms
        self.lo, self.hi = eng.box_lo, eng.box_hi
        self.has = np.asarray(eng.has_shape, dtype=bool)
        self.hit = set()
        self.contact = set()
        for (a, b), h in zip(eng.pairs.tolist(), eng.hit.tolist()):
            self.contact.update(((a, b), (b, a)))
            if h:
                self.hit.update(((a, b), (b, a)))
        sup = support_graph(build, separate_objects=separate_objects)
        self.grounded = np.asarray(sup.grounded, dtype=bool)
        self.supported = np.asarray(sup.supported, dtype=bool)
        self.separate_objects = separate_objects
        self._instances = None      # submodel instance (path of placement ids) -> (LegoBuild, first flat index)
        self._level_touch: dict = {}
        self.touch = [set() for _ in range(n)]
        for a, b in np.asarray(sup.edges).reshape(-1, 2).tolist():
            if a != b:
                self.touch[a].add(b)
                self.touch[b].add(a)
        cg = connection_graph(build)
        names = connector_types()
        self.joint_axes: dict = {}   # (a, b) -> list of world unit axes of non-stud joints
        self.minifig = set()         # pairs mated through a minifigure / snap-socket joint
        self.mated = [set() for _ in range(n)]
        if len(cg.pairs):
            codes = cg.pair_codes().tolist()
            for (a, ca, b, cb), (c1, c2) in zip(cg.pairs.tolist(), codes):
                if a == b:
                    continue
                self.touch[a].add(b)
                self.touch[b].add(a)
                self.mated[a].add(b)
                self.mated[b].add(a)
                n1, n2 = names[c1], names[c2]
                if _MINIFIG.search(n1) or _MINIFIG.search(n2):
                    self.minifig.update(((a, b), (b, a)))
                if n1 in _STUD_TYPES and n2 in _STUD_TYPES:
                    continue
                ax = None
                for p, c in ((a, ca), (b, cb)):
                    arr = part_connector_arrays(self.flat[p].content)
                    if c < len(arr.axis):
                        ax = self.flat[p].pose.matrix[:3, :3] @ arr.axis[c]
                        break
                if ax is None or np.linalg.norm(ax) < 1e-9:
                    continue
                ax = ax / np.linalg.norm(ax)
                for key in ((a, b), (b, a)):
                    self.joint_axes.setdefault(key, []).append(ax)
        for (a, b), axes in self._near_mates(names).items():
            for key in ((a, b), (b, a)):
                self.joint_axes.setdefault(key, []).extend(axes)
        self.elastic = np.zeros(n, dtype=bool)
        self.soft = np.zeros(n, dtype=bool)
        for i, fp in enumerate(self.flat):
            try:
                self.elastic[i] = bool(_ELASTIC.search(fp.content.spec.name or ""))
                self.soft[i] = bool(_SOFT.search(fp.content.spec.name or ""))
            except Exception:  # noqa: BLE001 - no catalogue entry: not known to be rubber
                pass
        self.tests = 0

    def level_touch(self, parts: set):
        """Touch sets for the moves of an in-hand level holding ``parts``: a level made of parts of one
        LDraw submodel instance may be built in that submodel's own frame, or in the frame of a submodel
        enclosing it (the planner sequences a sub-build in its frame, as its instructions draw it, and forms
        subassemblies in the frame of the sub-build it plans), so its parts also touch through the resting
        contacts of the support graphs of those submodels, each in its own frame; a level of parts of
        several top-level objects uses the world's."""
        inst = self._instance_of(parts)
        if inst is None:
            return self.touch
        hit = self._level_touch.get(inst)
        if hit is None:
            from bricklayer.validate.support import support_graph

            hit = [set(t) for t in self.touch]
            for d in range(1, len(inst) + 1):
                if inst[:d] not in self._instances:
                    continue
                sub, off = self._instances[inst[:d]]
                sup = support_graph(sub, separate_objects=self.separate_objects)
                for a, b in np.asarray(sup.edges).reshape(-1, 2).tolist():
                    if a != b:
                        hit[off + a].add(off + b)
                        hit[off + b].add(off + a)
            self._level_touch[inst] = hit
        return hit

    def _instance_of(self, parts: set):
        """The deepest LDraw submodel instance (its path of placements) whose flattened parts include all of
        ``parts``, or None when that is the whole build."""
        if self._instances is None:
            from bricklayer import LegoBuild

            self._instances = {}
            for i, fp in enumerate(self.flat):
                for d in range(1, len(fp.path)):
                    key = tuple(id(p) for p in fp.path[:d])
                    if key not in self._instances and isinstance(fp.path[d - 1].content, LegoBuild):
                        self._instances[key] = (fp.path[d - 1].content, i)
        paths = [tuple(id(p) for p in self.flat[i].path[:-1]) for i in parts]
        common = paths[0]
        for q in paths[1:]:
            k = 0
            while k < min(len(common), len(q)) and common[k] == q[k]:
                k += 1
            common = common[:k]
        return common if common in self._instances else None

    def _near_mates(self, names) -> dict:
        """Pairs in contact (broad phase) left unmated whose sliding connectors nearly mate: mating types
        (BrickNet mate matrix), axes within |cos| :data:`NEAR_COS`, the second origin within :data:`NEAR_LINE`
        of the first's axis line, half-lengths (at least 4 LDU) overlapping by 4 LDU or more. -> {(a, b): [axis]}
        (a clip drawn 0.56 LDU off its handle bar, 21019: it slides onto the bar along the bar)."""
        from bricklayer.validate.connections import SLIDING_TYPES, part_connector_arrays
        from ldraw_data.connectors import mate_matrix

        mm = mate_matrix()
        cache: dict = {}

        def world(p):
            if p not in cache:
                try:
                    arr = part_connector_arrays(self.flat[p].content)
                except Exception:  # noqa: BLE001 - no connectors known
                    arr = None
                out = []
                if arr is not None:
                    r = self.flat[p].pose.matrix
                    for k, c in enumerate(arr.code.tolist()):
                        if names[c] in SLIDING_TYPES:
                            out.append((r[:3, :3] @ arr.pos[k] + r[:3, 3], r[:3, :3] @ arr.axis[k], float(arr.length[k]), c))
                cache[p] = out
            return cache[p]

        out: dict = {}
        for a, b in self.contact:
            if a > b or (a, b) in self.joint_axes:
                continue
            wa = world(a)
            if not wa:
                continue
            wb = world(b)
            for pa, xa, la, ca in wa:
                for pb, xb, lb, cb in wb:
                    if mm[ca, cb] < 0:
                        continue
                    na, nb_ = float(np.linalg.norm(xa)), float(np.linalg.norm(xb))
                    if na < 1e-9 or nb_ < 1e-9 or abs(float(xa @ xb)) / (na * nb_) < NEAR_COS:
                        continue
                    ax = xa / na
                    d = pb - pa
                    along = float(d @ ax)
                    if (float(np.linalg.norm(d - along * ax)) <= NEAR_LINE
                            and max(la, 4.0) + max(lb, 4.0) - abs(along) >= 4.0):
                        out.setdefault((a, b), []).append(ax)
        return out

    def query(self, ia: np.ndarray, ib: np.ndarray, ta: np.ndarray, tb: np.ndarray, inset: float) -> np.ndarray:
        self.tests += len(ia)
        if not len(ia):
            return np.zeros(0, dtype=bool)
        return np.asarray(self.eng._query(ia, ib, ta, tb, inset), dtype=bool)


def _turn_matrix(axis, pivot, degrees: float) -> np.ndarray:
    """(4, 4) world rotation by ``degrees`` about the line through ``pivot`` (LDU) along ``axis`` (Rodrigues)."""
    ax = np.asarray(axis, dtype=np.float64)
    ax = ax / np.linalg.norm(ax)
    p = np.asarray(pivot, dtype=np.float64)
    a = np.radians(float(degrees))
    kx = np.array([[0, -ax[2], ax[1]], [ax[2], 0, -ax[0]], [-ax[1], ax[0], 0]])
    r = np.eye(3) + np.sin(a) * kx + (1 - np.cos(a)) * (kx @ kx)
    out = np.eye(4)
    out[:3, :3] = r
    out[:3, 3] = p - r @ p
    return out


def _moved_boxes(ctx: _Context, m: np.ndarray, g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """World boxes (lo, hi) (k, 3) LDU of parts m moved rigidly by g: the box of their box's corners
    (a superset of the moved mesh's box)."""
    if np.allclose(g, np.eye(4)):
        return ctx.lo[m], ctx.hi[m]
    lo, hi = ctx.lo[m], ctx.hi[m]
    sel = np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)], dtype=bool)
    c = np.where(sel[None], hi[:, None, :], lo[:, None, :])          # (k, 8, 3)
    w = c @ g[:3, :3].T + g[:3, 3]
    return w.min(axis=1), w.max(axis=1)


def _intervals(lo_m, hi_m, m: np.ndarray, lo_a, hi_a, a: np.ndarray, d: np.ndarray):
    """(u, j, s_lo, s_hi) of the (moving, assembly) pairs whose boxes overlap for s in (s_lo, s_hi), s >= 0,
    the moving boxes ``lo_m``/``hi_m`` translated by -s * d."""
    lo_u, hi_u = lo_m[:, None, :], hi_m[:, None, :]
    lo_j, hi_j = lo_a[None, :, :], hi_a[None, :, :]
    s_lo = np.zeros((len(m), len(a)))
    s_hi = np.full((len(m), len(a)), np.inf)
    for x in range(3):
        dx = d[x]
        if abs(dx) < 1e-12:
            ok = (lo_u[..., x] < hi_j[..., x]) & (lo_j[..., x] < hi_u[..., x])
            s_hi = np.where(ok, s_hi, -1.0)
            continue
        e1 = (lo_u[..., x] - hi_j[..., x]) / dx   # box u - s d meets j's box from this s ...
        e2 = (hi_u[..., x] - lo_j[..., x]) / dx   # ... to this one (or the reverse for dx < 0)
        s_lo = np.maximum(s_lo, np.minimum(e1, e2))
        s_hi = np.minimum(s_hi, np.maximum(e1, e2))
    ku, kj = np.nonzero(s_hi > s_lo)
    return m[ku], a[kj], s_lo[ku, kj], s_hi[ku, kj]


def _exempt(ctx: _Context, u, j, d, turn_axis, *extra):
    """Drop the exempt pairs (module docstring) and choose each remaining pair's inset.

    Returns ``u, j, *extra, insets`` filtered alike. ``turn_axis``: the hinge axis of a turned move;
    a pair mated through a non-stud joint along it is the hinge itself and is exempt.
    """
    from bricklayer.constants import TOL

    keep = ~(ctx.elastic[u] | ctx.elastic[j] | ctx.soft[u])
    for q in np.flatnonzero(keep).tolist():
        key = (int(u[q]), int(j[q]))
        axes = ctx.joint_axes.get(key, ())
        if key in ctx.minifig or (d is not None and any(abs(float(ax @ d)) > JOINT_COS for ax in axes)) or (
                turn_axis is not None and any(abs(float(ax @ turn_axis)) > JOINT_COS for ax in axes)):
            keep[q] = False
    insets = np.full(len(u), TOL.collision_inset)
    pressed = np.fromiter(((a_, b_) in ctx.hit for a_, b_ in zip(u.tolist(), j.tolist())), dtype=bool,
                          count=len(u))
    todo = np.flatnonzero(pressed & keep)
    for extra_inset in PRESS_EXTRA:
        if not len(todo):
            break
        val = TOL.collision_inset + extra_inset
        still = ctx.query(u[todo], j[todo], ctx.t[u[todo]], ctx.t[j[todo]], val)
        insets[todo[~still]] = val
        todo = todo[still]
    keep[todo] = False   # meets at the final pose even so: a collision drawn in the file
    return (u[keep], j[keep], *(x[keep] for x in extra), insets[keep])


def _path_hits(ctx: _Context, u: np.ndarray, j: np.ndarray, s_lo: np.ndarray, s_hi: np.ndarray,
               d: np.ndarray, inset: float, base: np.ndarray) -> np.ndarray:
    """(p,) float: first sampled s at which moving part u (at world pose ``base`` (p, 4, 4) moved by
    -s * d) meets j (inset meshes), NaN when never. Samples every <= :data:`STEP` LDU over [s_lo, s_hi]."""
    p = len(u)
    first = np.full(p, np.nan)
    if not p:
        return first
    nseg = np.maximum(1, np.ceil((s_hi - s_lo) / STEP - 1e-9)).astype(np.int64)
    step = (s_hi - s_lo) / nseg
    alive = np.ones(p, dtype=bool)
    for r0, r1 in zip(_ROUNDS[:-1], _ROUNDS[1:]):
        hi_k = nseg + 1 if r1 is None else np.minimum(nseg + 1, r1)
        cnt = np.where(alive, np.maximum(hi_k - r0, 0), 0)
        if not cnt.sum():
            continue
        rows = np.repeat(np.arange(p), cnt)
        k = r0 + np.arange(cnt.sum()) - np.repeat(np.cumsum(cnt) - cnt, cnt)
        s = s_lo[rows] + k * step[rows]
        ta = base[rows].copy()
        ta[:, :3, 3] -= s[:, None] * d[None, :]
        met = ctx.query(u[rows], j[rows], ta, ctx.t[j[rows]], inset)
        if met.any():
            rr, ss = rows[met], s[met]
            order = np.lexsort((ss, rr))
            rr, ss = rr[order], ss[order]
            keep = np.r_[True, rr[1:] != rr[:-1]]
            first[rr[keep]] = ss[keep]
            alive[rr[keep]] = False
        if r1 is None:
            break
    return first


def _turn_hits(ctx: _Context, m: np.ndarray, a: np.ndarray, turn: dict) -> list:
    """(u, j, degrees, inset) of the assembly parts j that moving part u meets while turning shut from
    ``turn["degrees"]`` to 0 about its hinge; sampled so that no corner of a moving box moves more than
    :data:`STEP` LDU between samples. The first angle met per pair."""
    axis = np.asarray(turn["axis"], dtype=np.float64)
    axis = axis / np.linalg.norm(axis)
    pivot = np.asarray(turn["pivot"], dtype=np.float64)
    deg = float(turn["degrees"])
    c = np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)], dtype=bool)
    lo, hi = ctx.lo[m], ctx.hi[m]
    corners = np.where(c[None], hi[:, None, :], lo[:, None, :]).reshape(-1, 3)
    radius = float(np.linalg.norm(np.cross(corners - pivot, axis), axis=1).max()) if len(corners) else 0.0
    n = max(2, int(np.ceil(np.radians(abs(deg)) * max(radius, 1.0) / STEP)) + 1)
    angles = deg * (1 - np.arange(n) / (n - 1))
    gs = [_turn_matrix(axis, pivot, x) for x in angles]
    lo_s, hi_s = ctx.lo[m].copy(), ctx.hi[m].copy()
    for g in gs:
        b0, b1 = _moved_boxes(ctx, m, g)
        lo_s, hi_s = np.minimum(lo_s, b0), np.maximum(hi_s, b1)
    ov = np.all(lo_s[:, None, :] < ctx.hi[a][None], axis=2) & np.all(ctx.lo[a][None] < hi_s[:, None, :], axis=2)
    ku, kj = np.nonzero(ov)
    u, j, insets = _exempt(ctx, m[ku], a[kj], None, axis)
    out = []
    for val in np.unique(insets).tolist():
        sel = np.flatnonzero(insets == val)
        uu, jj = u[sel], j[sel]
        rows = np.repeat(np.arange(len(sel)), n)
        ang = np.tile(np.arange(n), len(sel))
        g = np.stack(gs)[ang]
        ta = g @ ctx.t[uu[rows]]
        met = ctx.query(uu[rows], jj[rows], ta, ctx.t[jj[rows]], val)
        seen = set()
        for r, q in zip(rows[met].tolist(), ang[met].tolist()):
            if r not in seen:
                seen.add(r)
                out.append((int(uu[r]), int(jj[r]), float(angles[q]), val))
    return out


def check_insertions(build, insertions, *, planned=None, separate_objects: bool = True,
                     max_examples: int | None = None, snap_fits: int | None = None,
                     left_out=None) -> PlanCheck:
    """Replay a list of moves and check the rules of issue #8 (module docstring).

    Parameters
    ----------
    build : LegoBuild
    insertions : list of dict
        Moves in building order, as ``AssemblyPlan.insertions``: ``parts`` (list of flat indices into
        ``build.flattened_placements``), ``direction`` ((3,) float, world unit vector of the motion
        into place, BrickLayer frame, LDU), ``level`` (int; 0: the model on the ground), optional
        ``name``.
    planned : iterable of int or None
        Parts the plan must move (rule ``cover``); None: every part with collision geometry.
    separate_objects : bool
        Passed to :func:`bricklayer.validate.support.support_graph` (grounded parts).
    max_examples : int or None
        Keep at most this many violations per rule (None: all).
    snap_fits : int or None
        ``AssemblyPlan.snap_fits``. None or more than 0: every violation between parts in contact is a
        possible snap fit (``"snap"``). 0: the planner took no pair for a snap fit, so such a violation is
        a ``"path"`` one, except between parts that meet at the final pose without a mated connector
        pair (a tool held loosely in a minifigure hand, exempt along its joint axis by the validator's
        loose match, which the public API does not give).
    left_out : iterable of int or None
        Parts the plan leaves out and adds in a last step (``AssemblyPlan.skipped``: treads, hoses,
        MPD-embedded parts). At level 0 a move also holds when one of its parts touches one of them
        that the validator finds supported (``support_graph(...).supported``): the planner lets a
        model stand on its treads, which go on last.

    Returns
    -------
    PlanCheck

    Raises
    ------
    ValueError
        A move names a part index out of range.
    """
    from bricklayer.constants import TOL

    t0 = time.perf_counter()
    ctx = _Context(build, separate_objects)
    flat, n = ctx.flat, ctx.n
    out = PlanCheck(len(insertions))
    bearing = {int(j) for j in (left_out or ()) if ctx.supported[int(j)]}  # left-out parts a model stands on
    counts: dict = {}

    def classify(uu: int, jj: int) -> str:
        if (uu, jj) not in ctx.contact:
            return "path"
        if snap_fits is None or snap_fits > 0:
            return "snap"
        return "snap" if (uu, jj) in ctx.hit and jj not in ctx.mated[uu] else "path"

    def report(rule, k, parts, other, text, shallow=False):
        counts[rule] = counts.get(rule, 0) + 1
        if max_examples is None or counts[rule] <= max_examples:
            out.violations.append(Violation(rule, k, list(parts), other, text, shallow))

    assembly: dict = {}      # level -> list of parts in it
    in_set: dict = {}        # level -> set of parts in it
    moved_at: dict = {}      # part -> number of moves at level 0
    last_move: dict = {}     # level -> index of its last own move
    pending: dict = {}       # level -> held moves waiting for the move that pins them
    for k, ins in enumerate(insertions):
        m = np.asarray(ins["parts"], dtype=np.int64).reshape(-1)
        lev = int(ins.get("level", 0))
        d = np.asarray(ins["direction"], dtype=np.float64).reshape(3)
        if len(m) and (m.min() < 0 or m.max() >= n):
            raise ValueError(f"insertion {k} names part {int(m.max() if m.max() >= n else m.min())}, but the "
                             f"build has {n} placements: pass insertions of this build")
        what = _describe(flat, int(m[0])) + (f" (+{len(m) - 1} parts)" if len(m) > 1 else "") if len(m) else "-"
        dname = ins.get("name", "")
        if not len(m):
            report("cover", k, [], None, f"#{k} level {lev}: a move of no parts")
            continue
        if abs(np.linalg.norm(d) - 1.0) > 1e-6:
            report("cover", k, m.tolist(), None, f"#{k} {what}: direction {d.tolist()} is not a unit vector")
            d = d / max(np.linalg.norm(d), 1e-12)
        if (~ctx.has[m]).any():
            report("cover", k, m.tolist(), None, f"#{k} {what}: moves a part without geometry")
        a_list = assembly.setdefault(lev, [])
        a_set = in_set.setdefault(lev, set())
        dup = [int(i) for i in m if int(i) in a_set]
        if dup:
            report("cover", k, dup, None, f"#{k} level {lev}: {_describe(flat, dup[0])} is already in the assembly")
        # rule 1: it holds. A held move waits for the next move of its level that is not held: together
        # they must hold, every part of them reaching a grounded part or the assembly before them through
        # parts of them that touch
        if ins.get("held"):
            pending.setdefault(lev, []).append((k, m, what, dname))
        else:
            group = pending.pop(lev, []) + [(k, m, what, dname)]
            together = {int(i) for _, mm_, _, _ in group for i in mm_}
            before = a_set - together
            if lev == 0 or before or len(group) > 1:
                touch = ctx.touch if lev == 0 else ctx.level_touch(together | a_set)
                reach = {i for i in together if (lev == 0 and (ctx.grounded[i] or ctx.touch[i] & bearing))
                         or touch[i] & before}
                if lev != 0 and not before:
                    reach = {int(group[0][1][0])}  # the first move of an in-hand assembly needs nothing
                mates = {int(i): {int(x) for x in mm_} for _, mm_, _, _ in group for i in mm_}
                todo = list(reach)
                while todo:
                    x = todo.pop()
                    for y in (touch[x] & together) | mates[x]:
                        if y not in reach:
                            reach.add(y)
                            todo.append(y)
                for kk, mm_, ww, dn in group:
                    if not any(int(i) in reach for i in mm_):
                        report("holds", kk, mm_.tolist(), None,
                               f"#{kk} level {lev} {ww} moving {dn}: touches no part of its assembly"
                               + (" and stands on no ground" if lev == 0 else "")
                               + (" (held, and still so once pinned)" if kk != k else ""))
        # rule 2: it gets in (straight, then turned shut on its hinge when the move says so)
        if a_list:
            a = np.asarray([j for j in a_list if ctx.has[j]], dtype=np.int64)
            mm = m[ctx.has[m]]
            turn = ins.get("turn")
            g = np.eye(4) if turn is None else _turn_matrix(turn["axis"], turn["pivot"], turn["degrees"])
            press = ins.get("press")
            if press is not None:  # slid in lifted off its place by the press distance, then pressed in
                pdir = np.asarray(press["direction"], dtype=np.float64)
                pdist = float(press["distance"])
                g = g.copy()
                g[:3, 3] -= pdir * pdist
            tax = None if turn is None else np.asarray(turn["axis"], dtype=np.float64)
            base = g[None] @ ctx.t[mm]
            lo_m, hi_m = _moved_boxes(ctx, mm, g)
            u, j, s_lo, s_hi = _intervals(lo_m, hi_m, mm, ctx.lo[a], ctx.hi[a], a, d)
            u, j, s_lo, s_hi, insets = _exempt(ctx, u, j, d, tax, s_lo, s_hi)
            bmap = {int(x): q for q, x in enumerate(mm.tolist())}
            bu = np.asarray([bmap[int(x)] for x in u], dtype=np.int64)
            for val in np.unique(insets).tolist():
                sel = insets == val
                first = _path_hits(ctx, u[sel], j[sel], s_lo[sel], s_hi[sel], d, val, base[bu[sel]])
                bad = np.flatnonzero(~np.isnan(first))
                # depth hint: does the pair still meet with a further SHALLOW LDU of inset?
                sb = np.flatnonzero(sel)[bad]
                deep = ~np.isnan(_path_hits(ctx, u[sb], j[sb], s_lo[sb], s_hi[sb], d, val + SHALLOW, base[bu[sb]]))
                for q, dp in zip(bad.tolist(), deep.tolist()):
                    uu, jj = int(u[sel][q]), int(j[sel][q])
                    report(classify(uu, jj), k, [uu], jj,
                           f"#{k} level {lev} {_describe(flat, uu)} moving {dname or d.round(3).tolist()}"
                           f"{' with ' + str(len(m) - 1) + ' more' if len(m) > 1 else ''} meets "
                           f"{_describe(flat, jj)} {float(first[q]):.1f} LDU before "
                           f"{'its place' if turn is None else 'the turn'} (inset {val:.2f} LDU; "
                           f"{'still meets' if dp else 'clear'} with {SHALLOW} LDU more)", not dp)
            if press is not None:
                u, j, s_lo, s_hi = _intervals(ctx.lo[mm], ctx.hi[mm], mm, ctx.lo[a], ctx.hi[a], a, pdir)
                near = s_lo < pdist
                u, j, s_lo, s_hi = u[near], j[near], s_lo[near], np.minimum(s_hi[near], pdist)
                u, j, s_lo, s_hi, insets = _exempt(ctx, u, j, pdir, None, s_lo, s_hi)
                for val in np.unique(insets).tolist():
                    sel = insets == val
                    first = _path_hits(ctx, u[sel], j[sel], s_lo[sel], s_hi[sel], pdir, val, ctx.t[u[sel]])
                    for q in np.flatnonzero(~np.isnan(first)).tolist():
                        uu, jj = int(u[sel][q]), int(j[sel][q])
                        report(classify(uu, jj), k, [uu], jj,
                               f"#{k} level {lev} {_describe(flat, uu)} pressed in ({dname}) meets "
                               f"{_describe(flat, jj)} {float(first[q]):.1f} LDU before its place (inset {val:.2f} LDU)")
            if turn is not None:
                for uu, jj, deg, val in _turn_hits(ctx, mm, a, turn):
                    report(classify(uu, jj), k, [uu], jj,
                           f"#{k} level {lev} {_describe(flat, uu)} turning shut on its hinge ({dname}) meets "
                           f"{_describe(flat, jj)} at {deg:+.1f} deg (inset {val:.2f} LDU)")
        a_list.extend(m.tolist())
        a_set.update(m.tolist())
        last_move[lev] = k
        if lev == 0:
            for i in m.tolist():
                moved_at[i] = moved_at.get(i, 0) + 1
    for lev, group in pending.items():
        for kk, mm_, ww, dn in group:
            report("holds", kk, mm_.tolist(), None, f"#{kk} level {lev} {ww} moving {dn}: held, and never pinned")
    # rule 3: coverage and consistency of levels
    plan_set = set(range(n)) if planned is None else {int(i) for i in planned}
    if planned is None:
        plan_set = {i for i in plan_set if ctx.has[i]}
    for i in sorted(plan_set - set(moved_at)):
        report("cover", -1, [i], None, f"{_describe(flat, i)} is never moved into the model (level 0)")
    for i, c in sorted(moved_at.items()):
        if c > 1:
            report("cover", -1, [i], None, f"{_describe(flat, i)} is moved {c} times at level 0")
    for i in sorted(set(moved_at) - plan_set):
        report("cover", -1, [i], None, f"{_describe(flat, i)} is moved but not planned (skipped or failed)")
    for lev, parts in assembly.items():
        if lev == 0:
            continue
        whole = sorted(parts)
        inserted = [k for k, ins in enumerate(insertions)
                    if int(ins.get("level", 0)) != lev and sorted(int(i) for i in ins["parts"]) == whole]
        after = [k for k in inserted if k > last_move[lev]]
        if len(after) != 1 or len(inserted) != 1:
            report("cover", -1, whole, None,
                   f"in-hand level {lev} ({len(whole)} parts, first {_describe(flat, whole[0])}) is inserted whole "
                   f"{len(after)} time(s) after its own moves and {len(inserted) - len(after)} before them; "
                   f"expected once, after")
    out.seconds = time.perf_counter() - t0
    out.pair_tests = ctx.tests
    return out


def check_plan(build, plan, *, separate_objects: bool = True, max_examples: int | None = None) -> PlanCheck:
    """Check an :class:`~bricklayer.assembly.AssemblyPlan` of ``build`` (see :func:`check_insertions`).

    The planned parts are all placements but ``plan.skipped`` and ``plan.failed`` (``plan.skipped`` is
    passed as ``left_out``); ``plan.snap_fits``
    decides whether touching pairs may be snap fits.

    Parameters
    ----------
    build : LegoBuild
    plan : AssemblyPlan
    separate_objects : bool
        As given to ``assembly_sequence``.
    max_examples : int or None

    Returns
    -------
    PlanCheck
    """
    n = len(build.flattened_placements)
    planned = set(range(n)) - set(plan.skipped) - set(plan.failed)
    return check_insertions(build, plan.insertions, planned=planned, separate_objects=separate_objects,
                            max_examples=max_examples, snap_fits=plan.snap_fits, left_out=plan.skipped)


def _resolve(m: str) -> Path:
    p = Path(m)
    if p.exists():
        return p
    q = OFFICIAL / (m if m.endswith(".mpd") else m + ".mpd")
    if q.exists():
        return q
    raise SystemExit(f"no model {m!r}: give a path or a name in {OFFICIAL}")


def main(argv=None) -> int:
    """Command line entry (module docstring); prints one block per model."""
    from bricklayer import read_ldraw
    from bricklayer.assembly import assembly_sequence

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("models", nargs="*")
    ap.add_argument("--budget", type=float, default=60.0, help="planning time budget per model, seconds")
    ap.add_argument("--examples", type=int, default=3, help="violations described per rule")
    a = ap.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    warnings.simplefilter("ignore")
    models = [_resolve(m) for m in (a.models or DEFAULT_MODELS)]
    total: dict = {}
    for path in models:
        b = read_ldraw(path)
        t0 = time.perf_counter()
        plan = assembly_sequence(b, time_budget=a.budget, separate_objects=True)
        t1 = time.perf_counter()
        res = check_plan(b, plan, separate_objects=True)
        c = res.counts()
        for r, v in c.items():
            total[r] = total.get(r, 0) + v
        print(f"{path.name}: {len(b.flattened_placements)} parts, {len(plan.order)} placed, "
              f"{len(plan.failed)} failed, {len(plan.skipped)} skipped, snap_fits {plan.snap_fits}; "
              f"plan {t1 - t0:.1f}s, check {res.seconds:.1f}s ({res.pair_tests} pair tests)")
        shallow = sum(v.shallow for v in res.by_rule("path"))
        print(f"  insertions checked {res.insertions}: holds {c['holds']}  path {c['path']} ({shallow} shallow)  "
              f"possible snap fit {c['snap']}  cover {c['cover']}  -> {'OK' if res.ok else 'VIOLATIONS'}",
              flush=True)
        for r in ("holds", "path", "snap", "cover"):
            for v in res.by_rule(r)[:a.examples]:
                print(f"    [{r}] {v.text}")
    print("total:", total)
    return 0


if __name__ == "__main__":
    sys.exit(main())
