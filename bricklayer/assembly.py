"""A buildable assembly sequence: which part goes on when, and from which side.

Rules (issue #8)
----------------
A part (or a kept sub-build, see below) may be added when

1. **it holds**: one of its parts stands on the ground (within
   ``TOL.ground_band``, as :mod:`bricklayer.validate.support` decides) or
   touches a part already placed through a mated connection or a resting
   contact (the support graph's edges, both ways); and
2. **it can get in**: moved in a straight line along one of the six axis
   directions - straight down onto studs first, then +X, -X, +Y, -Y, and up -
   from far away to its place, its collision mesh (each surface inset by
   ``TOL.collision_inset`` = 0.25 LDU, :mod:`ldraw_data.collision`) meets no
   placed part. The path is sampled in steps of at most 1 LDU over the stretch
   where the two parts' bounding boxes overlap (a part's walls are 1.5 LDU or
   more thick, and the insets leave another 0.5 LDU). A pair that already
   touches at the final pose (a stud's press fit) is tested with the
   press-fit allowance of the validator (:data:`~bricklayer.validate.collisions.
   PRESS_FIT_ALLOWANCE`) added to the inset; a pair that collides even so
   is a collision the validator reports, and is not held against the path.

Order: a greedy forward search, lowest part first (a part's lowest point,
then its index): a part that does not hold yet waits until a neighbour is
placed; a part that holds but is blocked in all six directions by placed parts
stays blocked (placing more parts never frees a path) and is reported with
its blockers. Answers of the path test depend only on the two parts, their
relative pose and the direction, and are memoized.

Sub-builds (LDraw submodels) stay together: a sub-build is first sequenced on
its own, in its own frame and on its own ground, and then inserted whole (all
its parts move together along one direction) as one step of its parent. A
sub-build that cannot be sequenced on its own (say it is loose pieces held by
the parent) or that cannot be inserted whole is dissolved: its placements
are planned one by one in the parent.

Left out, added in a last step: stickers and parts without geometry (no
placement to test), MPD-embedded parts (bent hoses), mirrored placements
(official files draw bent flexible parts as mirrored segments), and flexible
parts by name (hose, string, cable, chain, rubber band, cloth, cape, flex):
their drawn shape is the bent final one, which cannot travel along a line.
"""

from __future__ import annotations

__all__ = [
    "DIRECTIONS",
    "SAMPLE_STEP",
    "AssemblyPlan",
    "assembly_sequence",
    "write_instructions",
    "skip_reason",
]

import heapq
import logging
import re
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .constants import TOL

log = logging.getLogger(__name__)

#: Insertion directions (direction of motion, BrickLayer frame), in the order tried.
DIRECTIONS = np.array([[0, 0, -1], [1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1]], dtype=np.float64)
_DIR_NAMES = ("down", "+x", "-x", "+y", "-y", "up")
#: Largest gap (LDU) between two samples of an insertion path.
SAMPLE_STEP = 1.0
_FLEX = re.compile(r"sticker|hose|string|cable|chain|rubber band|cloth|cape|flex|electric wire|ribbon", re.I)
_ELASTIC = re.compile(r"tyre|tire|rubber", re.I)
_PRESS_INSETS = (0.5, 1.0)  # extra inset (LDU) tried for pairs touching at the final pose: stud, then others


def _name(el) -> str:
    try:
        return el.spec.name or ""
    except Exception:  # noqa: BLE001 - a part without catalogue entry has no name
        return ""


def skip_reason(placement, has_shape: bool = True, mirrored: bool = False) -> str | None:
    """Why a part is left out of the sequence (added in a last step), or None.

    Parameters
    ----------
    placement : FlatPlacement
    has_shape : bool
        The validator found collision geometry for it.
    mirrored : bool
        Its world transform mirrors (determinant < 0).

    Returns
    -------
    str or None
    """
    el = placement.content
    if not has_shape:
        return "no geometry (unknown part or sticker)"
    if not el._known:
        return "MPD-embedded part (sticker or bent flexible part)"
    if mirrored:
        return "mirrored placement (bent flexible segment)"
    try:
        name = el.spec.name
    except Exception:  # noqa: BLE001 - a part without catalogue entry is kept
        name = ""
    if _FLEX.search(name or ""):
        return f"flexible part or sticker ({name})"
    return None


# --------------------------------------------------------------------------------------------
# geometry adapter over the validator's collision engine


class _Geometry:
    """Per-placement inset collision geometry of one build (adapter over ``collision_engine``)."""

    def __init__(self, build):
        from .validate.collisions import collision_engine
        from .validate.connections import connection_graph
        from .validate.support import support_graph

        eng = collision_engine(build)
        self.eng = eng
        self.n = eng.n
        self.t = eng.transforms
        self.inv = np.linalg.inv(self.t)
        self.mirrored = eng.mirrored
        self.has = eng.has_shape
        ins = TOL.collision_inset
        self.lo = eng.box_lo + ins
        self.hi = eng.box_hi - ins
        self.min_z = eng.min_z
        sup = support_graph(build)
        self.grounded = sup.grounded
        nb = [set() for _ in range(self.n)]
        cg = connection_graph(build)
        edges = [cg.pairs[:, [0, 2]]] if len(cg.pairs) else []
        if len(sup.edges):
            edges.append(sup.edges)
        for e in edges:
            for a, b in e.tolist():
                if a != b:
                    nb[a].add(b)
                    nb[b].add(a)
        self.neighbors = nb
        flat = eng.wa.placements
        self.skip = {}
        self.elastic = np.zeros(self.n, dtype=bool)
        for i, fp in enumerate(flat):
            r = skip_reason(fp, bool(self.has[i]), bool(self.mirrored[i]))
            if r:
                self.skip[i] = r
            elif fp.content._known and _ELASTIC.search(_name(fp.content)):
                self.elastic[i] = True

    def directions(self, i: int) -> list:
        """Candidate insertion directions of part i: the six world axes, then its own axes when tilted."""
        out = [(n, d) for n, d in zip(_DIR_NAMES, DIRECTIONS)]
        r = self.t[i][:3, :3]
        if not np.allclose(np.abs(r), np.round(np.abs(r)), atol=1e-3):
            for k, n in enumerate(("part-y", "part+x", "part-x", "part+z", "part-z", "part+y")):
                # LDraw part frame: -Y is up, so "down onto studs" is +Y
                axis = np.array([[0, 1, 0], [1, 0, 0], [-1, 0, 0], [0, 0, 1], [0, 0, -1], [0, -1, 0]][k], float)
                v = r @ axis
                out.append((n, v / np.linalg.norm(v)))
        return out

    def model(self, i: int, inset: float):
        from .validate.collisions import _STORE

        return _STORE.model(self.eng.shapes[self.eng.keys[i]], bool(self.mirrored[i]), inset)


_PATH_MEMO: dict = {}


def _collide(ma, mb, rel) -> bool:
    from .validate.collisions import _collide as c

    return c(ma, mb, rel)


def _interval(g: _Geometry, u: int, j: int, dv: np.ndarray) -> tuple[float, float]:
    """Range of s >= 0 over which u's box, moved by -s * dv, overlaps j's box."""
    s_lo, s_hi = 0.0, np.inf
    for a in range(3):
        lo_u, hi_u, lo_j, hi_j = g.lo[u, a], g.hi[u, a], g.lo[j, a], g.hi[j, a]
        da = dv[a]
        if abs(da) < 1e-9:
            if lo_u >= hi_j or lo_j >= hi_u:
                return 0.0, 0.0
            continue
        a1, a2 = (lo_u - hi_j) / da, (hi_u - lo_j) / da
        s_lo, s_hi = max(s_lo, min(a1, a2)), min(s_hi, max(a1, a2))
    return s_lo, s_hi


def _path_blocked(g: _Geometry, u: int, j: int, dv: np.ndarray) -> bool:
    """Does part u, moving along unit vector dv into its place, meet placed part j on the way?"""
    if g.elastic[u] or g.elastic[j]:
        return False
    s_lo, s_hi = _interval(g, u, j, dv)
    if s_hi <= s_lo:
        return False
    rel = g.inv[u] @ g.t[j]
    dloc = g.inv[u][:3, :3] @ dv
    key = (g.eng.keys[u], bool(g.mirrored[u]), g.eng.keys[j], bool(g.mirrored[j]),
           np.round(rel[:3], 2).tobytes(), np.round(dloc, 3).tobytes())
    hit = _PATH_MEMO.get(key)
    if hit is not None:
        return hit
    # the two parts at their final poses: choose the inset (press fits), or ignore a real collision
    inset = TOL.collision_inset
    ma, mb = g.model(u, inset), g.model(j, inset)
    if _collide(ma, mb, rel):
        for extra in _PRESS_INSETS:
            inset = TOL.collision_inset + extra
            ma, mb = g.model(u, inset), g.model(j, inset)
            if not _collide(ma, mb, rel):
                break
        else:
            _PATH_MEMO[key] = False
            return False
    n = max(1, int(np.ceil((s_hi - s_lo) / SAMPLE_STEP)))
    ss = s_lo + (np.arange(n) + 0.5) * ((s_hi - s_lo) / n)
    blocked = False
    # moving u back by s along -dv is moving j by +s*dv in u's frame
    for s in ss:
        r = rel.copy()
        r[:3, 3] += dloc * s
        if _collide(ma, mb, r):
            blocked = True
            break
    _PATH_MEMO[key] = blocked
    return blocked


def _swept_candidates(g: _Geometry, u: int, dv: np.ndarray, alive: np.ndarray) -> np.ndarray:
    """Alive parts whose boxes meet the box swept by part u coming in along dv from far away."""
    lo, hi = g.lo[u].copy(), g.hi[u].copy()
    lo[dv > 1e-9] = -np.inf
    hi[dv < -1e-9] = np.inf
    ok = alive & np.all(g.lo < hi, axis=1) & np.all(g.hi > lo, axis=1)
    return np.flatnonzero(ok)


# --------------------------------------------------------------------------------------------
# units and planning


@dataclass
class _Unit:
    idx: np.ndarray          # flat indices (planning level) of the parts it carries
    content: object          # Element (coloured) or LegoBuild
    pose: object             # Pose in the planning frame
    color: int | None        # sub-build colour
    label: str
    children: list | None = None   # for a sub-build: its placements as units (lazy)


@dataclass
class AssemblyPlan:
    """An assembly sequence of a build.

    Attributes
    ----------
    order : list of int
        Indices into ``build.flattened_placements`` in the order they are added
        (parts of a kept sub-build in its own order).
    steps : list of list of int
        The order grouped into building steps (LDraw ``0 STEP`` groups of the
        top level; a kept sub-build is one step).
    directions : dict of int to str
        Insertion direction of each placed part (``"down"``, ``"+x"``, ...; a
        part of a kept sub-build: the direction within its sub-build).
    failed : dict of int to str
        Parts that could not be placed, and why.
    skipped : dict of int to str
        Parts left out of the planning (stickers, flexible parts), added last.
    subbuilds : int
        Number of sub-builds kept together.
    dissolved : int
        Number of sub-builds planned part by part.
    sequence : LegoBuild
        The build re-ordered into steps (parts placed, then a step of skipped
        parts, then a step of failed ones), ready for ``write_ldraw``.
    seconds : float
        Time taken.
    """

    order: list
    steps: list
    directions: dict
    failed: dict
    skipped: dict
    subbuilds: int
    dissolved: int
    sequence: object
    seconds: float = 0.0
    n_parts: int = 0

    @property
    def placed_share(self) -> float:
        """Share of the planned parts (all but skipped) that were placed, 0..1."""
        planned = self.n_parts - len(self.skipped)
        return 1.0 if planned <= 0 else len(self.order) / planned

    @property
    def complete(self) -> bool:
        """Every planned part was placed."""
        return not self.failed

    def summary(self, build=None, k: int = 10) -> dict:
        """JSON-ready summary; with the build, failed parts are described by name."""
        flat = build.flattened_placements if build is not None else None

        def desc(i):
            return build.describe(flat[i]) if flat is not None else str(i)

        reasons: dict = {}
        for r in self.skipped.values():
            key = r.split(" (")[0]
            reasons[key] = reasons.get(key, 0) + 1
        return {
            "parts": self.n_parts, "placed": len(self.order), "skipped": len(self.skipped),
            "failed": len(self.failed), "placed_share": round(self.placed_share, 4),
            "steps": len(self.steps), "subbuilds_kept": self.subbuilds, "subbuilds_dissolved": self.dissolved,
            "skipped_reasons": reasons,
            "failures": [{"part": desc(i), "reason": r} for i, r in list(self.failed.items())[:k]],
            "seconds": round(self.seconds, 2),
        }


class _Planner:
    def __init__(self, max_parts_per_step: int):
        self.max_step = max_parts_per_step
        self.sub_plans: dict = {}   # id(sub-build) -> (plan result dict) or None when it cannot be kept
        self.kept = 0
        self.dissolved = 0

    # -- units of a planning build
    @staticmethod
    def _units_of(build, flat, placements, base: int, pose, color, prefix: str) -> list:
        from .build import LegoBuild

        out = []
        k = base
        for i, p in enumerate(placements):
            if isinstance(p.content, LegoBuild):
                m = p.content.brick_count
                c = p.color if p.color is not None else color
                out.append(_Unit(np.arange(k, k + m), p.content, pose @ p.pose, c,
                                 f"{prefix}{p.content.name or 'sub-build'}"))
                k += m
            else:
                out.append(_Unit(np.array([k]), flat[k].content, flat[k].pose, None, f"{prefix}#{i}"))
                k += 1
        return out

    def _children(self, unit: _Unit, flat) -> list:
        return self._units_of(None, flat, unit.content._placements, int(unit.idx[0]), unit.pose, unit.color,
                              unit.label + "/")

    # -- sequence one build in its own frame
    def plan(self, build) -> dict:
        """Sequence a build in its own frame by disassembly (see module notes)."""
        from .build import LegoBuild

        g = _Geometry(build)
        flat = g.eng.wa.placements
        units = self._expand(self._units_of(build, flat, build._placements, 0, _identity(), None, ""), flat)
        alive = np.zeros(g.n, dtype=bool)          # parts still in the (dis)assembly
        removed: list = []                         # (unit, direction name), removal order
        failed: dict = {}
        while True:
            units = [u for u in units if len(self._planned(g, u))]
            owner = np.full(g.n, -1)
            parts_of = []
            for k, u in enumerate(units):
                p = self._planned(g, u)
                owner[p] = k
                parts_of.append(p)
            alive = owner >= 0
            m = len(units)
            if not m:
                break
            nbr = [set() for _ in range(m)]
            for k, p in enumerate(parts_of):
                for i in p.tolist():
                    for j in g.neighbors[i]:
                        o = owner[j]
                        if o >= 0 and o != k:
                            nbr[k].add(int(o))
            grounded = np.array([bool(g.grounded[p].any()) for p in parts_of])
            gone = np.zeros(m, dtype=bool)
            why: dict = {}
            for k in range(m):
                if not grounded[k] and not nbr[k]:
                    gone[k] = True
                    for i in parts_of[k].tolist():
                        failed[i] = ("floating: not on the ground and not connected to or resting on any other "
                                     "part")
                    alive[parts_of[k]] = False
            heap = [(-float(g.hi[parts_of[k], 2].max()), k) for k in range(m) if not gone[k]]
            heapq.heapify(heap)
            waiters: dict = {}

            zkey = [float(g.min_z[p].min()) for p in parts_of]

            def n_alive(k):
                return sum(1 for v in nbr[k] if not gone[v])

            progress = True
            while heap:
                _, k = heapq.heappop(heap)
                if gone[k]:
                    continue
                u = units[k]
                if not grounded[k] and n_alive(k) == 0:
                    why[k] = "lost every neighbour"
                    continue
                dep = _cut_off(k, nbr, gone, grounded, zkey)
                if dep:
                    why[k] = "holds up " + build.describe(flat[int(parts_of[dep[0]][0])])
                    for v in dep:
                        waiters.setdefault(v, []).append(k)
                    continue
                parts = parts_of[k]
                alive[parts] = False  # the unit does not block itself
                d_ok, blockers = None, {}
                for dname, dv in g.directions(int(parts[0])):
                    hit = None
                    for i in parts.tolist():
                        for j in _swept_candidates(g, i, dv, alive).tolist():
                            if _path_blocked(g, i, j, dv):
                                hit = j
                                break
                        if hit is not None:
                            break
                    if hit is None:
                        d_ok = dname
                        break
                    blockers[dname] = hit
                if d_ok is None:
                    alive[parts] = True
                    why[k] = "blocked in every direction: " + ", ".join(
                        f"{dn} by {build.describe(flat[v])}" for dn, v in list(blockers.items())[:6])
                    for v in set(int(owner[b]) for b in blockers.values()):
                        waiters.setdefault(v, []).append(k)
                    continue
                gone[k] = True
                removed.append((u, d_ok))
                for w in waiters.pop(k, ()):
                    if not gone[w]:
                        heapq.heappush(heap, (-float(g.hi[parts_of[w], 2].max()), w))
            left = [k for k in range(m) if not gone[k]]
            if not left:
                break
            subs = [k for k in left if isinstance(units[k].content, LegoBuild) and len(units[k].idx) > 1]
            if subs:
                # dissolve the stuck sub-builds and go on with their placements
                keep = [units[k] for k in left if k not in subs]
                for k in subs:
                    self.dissolved += 1
                    self.kept -= 1
                    keep.extend(self._expand(self._children(units[k], flat), flat))
                units = keep
                continue
            for k in left:
                for i in parts_of[k].tolist():
                    failed[i] = why.get(k, "could not be placed")
            break
        seq_units = removed[::-1]
        order: list[int] = []
        directions: dict = {}
        placed = np.zeros(g.n, dtype=bool)
        for u, name in seq_units:
            if isinstance(u.content, LegoBuild):
                sub = self.sub_plans[id(u.content)]
                off = int(u.idx[0])
                order.extend(off + i for i in sub["order"])
                for i, dn in sub["directions"].items():
                    directions[off + i] = dn
            else:
                p = self._planned(g, u)
                order.extend(p.tolist())
                for i in p.tolist():
                    directions[i] = name
            placed[self._planned(g, u)] = True
        return dict(order=order, directions=directions, failed=failed, skip=dict(g.skip), units=seq_units,
                    flat=flat, placed=placed)

    @staticmethod
    def _planned(g, u) -> np.ndarray:
        return np.array([i for i in u.idx.tolist() if i not in g.skip], dtype=np.int64)

    def _expand(self, units: list, flat) -> list:
        """Replace sub-build units that cannot be sequenced on their own by their placements."""
        from .build import LegoBuild

        out = []
        for u in units:
            if isinstance(u.content, LegoBuild):
                key = id(u.content)
                if key not in self.sub_plans:
                    res = self.plan(u.content)
                    ok = not res["failed"] and len(res["order"]) > 0
                    self.sub_plans[key] = res if ok else None
                if self.sub_plans[key] is not None:
                    self.kept += 1
                    out.append(u)
                else:
                    self.dissolved += 1
                    out.extend(self._expand(self._children(u, flat), flat))
            else:
                out.append(u)
        return out


def _cut_off(k: int, nbr: list, gone: np.ndarray, grounded: np.ndarray, zkey: list, cap: int = 4000) -> list:
    """Remaining neighbours of unit k that would no longer reach the ground without k.

    Best-first search from each neighbour towards low units (the ground is
    usually a few steps down); a search that visits more than ``cap`` units
    counts as cut off (the unit waits rather than risk stranding parts).
    """
    good: set = set()
    out = []
    for v in nbr[k]:
        if gone[v] or grounded[v] or v in good:
            continue
        seen = {v, k}
        heap = [(zkey[v], v)]
        found = False
        while heap and len(seen) < cap:
            _, x = heapq.heappop(heap)
            if grounded[x] or x in good:
                found = True
                break
            for y in nbr[x]:
                if y not in seen and not gone[y]:
                    seen.add(y)
                    heapq.heappush(heap, (zkey[y], y))
        if found:
            good.update(seen - {k})
        else:
            out.append(v)
    return out


def _identity():
    from .geometry.types import Pose

    return Pose()


def _sequence_build(planner: _Planner, build, res: dict, memo: dict):
    """The build re-created with placements in plan order and steps."""
    from .build import LegoBuild

    if id(build) in memo:
        return memo[id(build)]
    seq = LegoBuild(name=build.name)
    seq.embedded_files = dict(build.embedded_files)
    flat = res["flat"]
    n_in_step, last_dir, first = 0, None, True
    for u, dname in res["units"]:
        is_sub = isinstance(u.content, LegoBuild)
        if not first and (is_sub or dname != last_dir or n_in_step >= planner.max_step):
            seq.step()
            n_in_step = 0
        first = False
        if is_sub:
            sub = _sequence_build(planner, u.content, planner.sub_plans[id(u.content)], memo)
            seq.add_raw(sub, u.pose, color=u.color)
            n_in_step = planner.max_step  # a sub-build is a step of its own
        else:
            for i in [i for i in u.idx.tolist() if i not in res["skip"]]:
                seq.add_raw(flat[i].content, flat[i].pose)
                n_in_step += 1
        last_dir = dname
    placed = res["placed"]
    extra = [sorted(res["skip"]), sorted(res["failed"])]
    for group in extra:
        group = [i for i in group if not placed[i]]
        if group:
            if len(seq):
                seq.step()
            for i in group:
                seq.add_raw(flat[i].content, flat[i].pose)
    memo[id(build)] = seq
    return seq


def assembly_sequence(build, *, max_parts_per_step: int = 6) -> AssemblyPlan:
    """Find a buildable order of a build's parts (see module rules).

    Parameters
    ----------
    build : LegoBuild
    max_parts_per_step : int
        Consecutive parts inserted in the same direction are grouped into
        steps of at most this many.

    Returns
    -------
    AssemblyPlan
        Indices refer to ``build.flattened_placements``.
    """
    t0 = time.perf_counter()
    pl = _Planner(max_parts_per_step)
    res = pl.plan(build)
    seq = _sequence_build(pl, build, res, {})
    # steps of the top level in flat indices
    steps, cur, n_in, last = [], [], 0, None
    from .build import LegoBuild

    for u, dname in res["units"]:
        if isinstance(u.content, LegoBuild):
            if cur:
                steps.append(cur)
            off = int(u.idx[0])
            steps.append([off + i for i in pl.sub_plans[id(u.content)]["order"]])
            cur, n_in, last = [], 0, None
            continue
        ids = [i for i in u.idx.tolist() if i not in res["skip"]]
        if cur and (dname != last or n_in >= max_parts_per_step):
            steps.append(cur)
            cur, n_in = [], 0
        cur.extend(ids)
        n_in += len(ids)
        last = dname
    if cur:
        steps.append(cur)
    # skipped parts inside kept sub-builds are counted at the top level too
    skipped = dict(res["skip"])
    plan = AssemblyPlan(res["order"], steps, res["directions"], res["failed"], skipped, pl.kept, pl.dissolved,
                        seq, time.perf_counter() - t0, len(res["flat"]))
    log.info("assembly sequence: %d of %d planned parts placed (%d skipped) in %.2f s", len(plan.order),
             plan.n_parts - len(skipped), len(skipped), plan.seconds)
    return plan


def write_instructions(build, out_dir, *, images: bool = True, max_images: int = 200, size=(800, 600),
                       max_parts_per_step: int = 6) -> dict:
    """Write the assembly sequence as an MPD with ``0 STEP`` groups and, with the renderer, an image per step.

    What ``brickwright instructions MODEL --out DIR`` calls.

    Parameters
    ----------
    build : LegoBuild
    out_dir : str or Path
        Created when missing. Gets ``steps.mpd``, ``plan.json`` and
        ``step-0001.png`` ... (top-level steps, cumulative, when
        :mod:`bricklayer.render` imports and works).
    images : bool
    max_images : int
        Render at most this many steps (the last ones are dropped).
    size : (width, height), pixels
    max_parts_per_step : int

    Returns
    -------
    dict
        ``{"mpd": Path, "plan": Path, "images": [Path, ...], "summary": dict, "image_error": str or None}``.
    """
    import json

    from .build import LegoBuild
    from .io import write_ldraw

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    plan = assembly_sequence(build, max_parts_per_step=max_parts_per_step)
    mpd = write_ldraw(plan.sequence, out / "steps.mpd", overwrite=True, title=f"{build.name or 'model'} - assembly sequence")
    summary = plan.summary(build)
    pj = out / "plan.json"
    pj.write_text(json.dumps(summary, indent=2), encoding="utf-8")
    paths, err = [], None
    if images:
        try:
            from .render import save_render
        except ImportError as exc:
            err = f"no renderer: {exc}"
        else:
            flat = build.flattened_placements
            partial = LegoBuild(name="step")
            for k, step in enumerate(plan.steps[:max_images]):
                for i in step:
                    partial.add_raw(flat[i].content, flat[i].pose)
                try:
                    paths.append(save_render(partial, out / f"step-{k + 1:04d}.png", size=size,
                                             title=f"step {k + 1}"))
                except Exception as exc:  # noqa: BLE001 - renderer backend missing: keep the MPD
                    err = f"rendering failed: {exc}"
                    log.warning("step images not written: %s", exc)
                    break
    return {"mpd": mpd, "plan": pj, "images": paths, "summary": summary, "image_error": err}
