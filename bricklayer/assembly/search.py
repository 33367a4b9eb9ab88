"""The search: assembly by disassembly of a set of units over one geometry (module notes of
:mod:`bricklayer.assembly`), and the planner that runs it on a build and its sub-builds."""

from __future__ import annotations

import copy
import heapq
import logging

import numpy as np

from ..constants import TOL
from .geometry import _TIMED_OUT, _Geometry
from .options import _DIR_NAMES, DIRECTIONS
from .options import PlannerOptions, cpu_clock
from .plan import Move, PlannedAssembly, _identity, is_sub_build, planned_parts, Unit
from .strategies import strategies_named

__all__: list = []

log = logging.getLogger("bricklayer.assembly")


class _Planner:
    def __init__(self, max_parts_per_step: int, deadline: float, check_deadline: float,
                 separate_objects: bool = False, start: float | None = None, options: PlannerOptions | None = None):
        self.opt = opt = options if options is not None else PlannerOptions()
        #: the deadlock strategies, in the order the search tries them (``PlannerOptions.strategies``)
        self.strategies = strategies_named(opt.strategies)
        self.max_step = max_parts_per_step
        self.separate_objects = separate_objects
        self.deadline = deadline              # the disassembly search stops here
        self.check_deadline = check_deadline  # the forward check of the parts it did not reach stops here
        # sub-builds (planned first, in hand) must be done by here, so the top level keeps time of its own
        self.sub_deadline = start + opt.sub_share * (deadline - start) if start is not None else deadline
        #: CPU seconds peels may still take (:func:`~bricklayer.assembly.strategies.peel._peel` re-plans whole sub-builds: uncapped, they took half the budget of a large model)
        self.peel_left = opt.peel_share * (deadline - start) if start is not None else float("inf")
        self.depth = 0
        self.sub_plans: dict = {}   # id(sub-build) -> its PlannedAssembly, or None when it cannot be kept
        self.kept = 0
        self.dissolved = 0
        self.snap_fits = 0          # part pairs found to be snap fits (``_Geometry.snap_fit``)
        self.held_steps = 0         # held steps (``strategies.held_step._held_step``)
        self.groups: list = []      # (flat indices at top level or None, direction) of subassemblies

    # -- units of a planning build
    @staticmethod
    def _units_of(flat, placements, base: int, pose, color, prefix: str) -> list:
        out = []
        k = base
        for i, p in enumerate(placements):
            if is_sub_build(p.content):
                m = p.content.brick_count
                if m == 0:
                    continue
                c = p.color if p.color is not None else color
                out.append(Unit(np.arange(k, k + m), p.content, pose @ p.pose, c,
                                 f"{prefix}{p.content.name or 'sub-build'}"))
                k += m
            else:
                out.append(Unit(np.array([k]), flat[k].content, flat[k].pose, None, f"{prefix}#{i}"))
                k += 1
        return out

    def sub_build_units(self, unit: Unit, flat) -> list:
        """The units one level down of sub-build unit ``unit``: one per placement of its ``LegoBuild``
        (a part, or a nested sub-build), their flat indices counted from the unit's first; ``flat``: the
        planning build's flattened placements."""
        return self._units_of(flat, unit.content.placements, int(unit.idx[0]), unit.pose, unit.color,
                              unit.label + "/")

    def expand_sub_builds(self, units: list, flat) -> list:
        """``units`` with every sub-build unit that cannot be sequenced on its own (planned in hand first,
        :meth:`plan`) replaced by its placements, recursively; counts ``kept`` and ``dissolved``."""
        out = []
        for u in units:
            if is_sub_build(u.content):
                key = id(u.content)
                if key not in self.sub_plans:
                    res = self.plan(u.content)
                    ok = not res.failed and len(res.order) > 0
                    self.sub_plans[key] = res if ok else None
                if self.sub_plans[key] is not None:
                    self.kept += 1
                    out.append(u)
                else:
                    self.dissolved += 1
                    out.extend(self.expand_sub_builds(self.sub_build_units(u, flat), flat))
            else:
                out.append(u)
        return out

    def plan(self, build) -> dict:
        """Sequence a build in its own frame by disassembly (see module notes)."""
        g = _Geometry(build, self.separate_objects, self.opt)
        flat = g.flat
        self.depth += 1
        try:
            units = self.expand_sub_builds(self._units_of(flat, build.placements, 0, _identity(), None, ""), flat)
        finally:
            self.depth -= 1
        top = self.depth == 0
        s = _Search(self, g, units, g.grounded.copy(), allow_groups=True, top=top, in_hand=not top,
                    deadline=self.deadline if top else self.sub_deadline)
        removed, failed = s.run()
        return self.planned_assembly(g, removed, failed)

    def planned_assembly(self, g, removed: list, failed: dict) -> PlannedAssembly:
        """The :class:`PlannedAssembly` of a search over geometry ``g``: ``removed`` (its :class:`Move` s in
        removal order) reversed into building order, kept sub-builds and subassemblies in their own
        order; ``failed``: flat index -> reason."""
        seq_units = removed[::-1]
        order: list[int] = []
        directions: dict = {}
        placed = np.zeros(g.n, dtype=bool)
        for u, name in seq_units:
            if is_sub_build(u.content):
                sub = self.sub_plans[id(u.content)]
                off = int(u.idx[0])
                order.extend(off + i for i in sub.order)
                for i, dn in sub.directions.items():
                    directions[off + i] = dn
            elif u.sub is not None:
                order.extend(u.sub.order)
                directions.update(u.sub.directions)
            else:
                p = planned_parts(g, u)
                order.extend(p.tolist())
                for i in p.tolist():
                    directions[i] = name
            placed[planned_parts(g, u)] = True
        return PlannedAssembly(order, directions, seq_units, failed=failed, skip=dict(g.skip), flat=g.flat,
                               placed=placed)


class _Search:
    """Assembly by disassembly of a set of units over one geometry (module notes)."""

    def __init__(self, planner: _Planner, g: _Geometry, units: list, roots: np.ndarray, allow_groups: bool,
                 top: bool = False, in_hand: bool = False, deadline: float | None = None):
        self.pl, self.g = planner, g
        #: the search stops here (:func:`cpu_clock` seconds): the planner's, or the earlier one of sub-builds
        self.deadline = planner.deadline if deadline is None else deadline
        self.allow_groups = allow_groups
        self.top_level = top
        #: built in hand (a sub-build or a subassembly): no ground; every part joins the ones placed
        #: before it, so a removal must leave the rest in one piece (``roots`` unused)
        self.in_hand = in_hand
        self.n_left = 0
        #: a unit that holds waits for every neighbour, not only the ones it cuts off (set for subassemblies)
        self.wake_all = False
        self.press_met: dict = {}   # unit -> parts that stopped its last pressed try (:func:`~bricklayer.assembly.strategies.pressed_part._pressed_part`)
        self.bad_peels: set = set()  # peels that failed (:func:`~bricklayer.assembly.strategies.peel._peel`)
        #: the search of a subassembly built in hand: its own subassemblies take none (one level of nesting)
        self.nested = False
        self._turn_met: dict = {}
        n = g.n
        self.units: list = []
        self.parts: list = []
        self.gr: list = []
        self.owner = np.full(n, -1)
        self.alive = np.zeros(n, dtype=bool)
        self.gone: list = []
        self.roots = roots
        self.nbr: list = []
        self.ptr: dict = {}
        self._own_sets: dict = {}
        self.bad_groups: set = set()
        for u in units:
            self._add(u)

    # -- unit bookkeeping
    def _add(self, u: Unit) -> int:
        k = len(self.units)
        p = planned_parts(self.g, u)
        self.units.append(u)
        self.parts.append(p)
        self.gr.append(bool(self.roots[p].any()) if len(p) else False)
        self.gone.append(len(p) == 0)
        self.nbr.append(set())
        if len(p):
            self.n_left += 1
            self.owner[p] = k
            self.alive[p] = True
            for i in p.tolist():
                for j in self.g.neighbors[i]:
                    o = int(self.owner[j])
                    if o >= 0 and o != k and self.alive[j]:
                        self.nbr[k].add(o)
                        self.nbr[o].add(k)
        return k

    def drop_unit(self, k: int, removed: bool = True):
        """Take unit k out (removed, failed or merged into another unit)."""
        if not self.gone[k]:
            self.n_left -= 1
        self.gone[k] = True
        self.alive[self.parts[k]] = False
        for v in self.nbr[k]:
            self.nbr[v].discard(k)

    def replace_units(self, ks: list, new_units: list) -> list:
        """Take units ``ks`` out and add ``new_units`` (:class:`Unit` s carrying the same parts, split or
        merged) in their place; returns the new units' indices."""
        # a root taken apart (a dissolved sub-build that stood on the ground or on a left-out part) hands its
        # footing on: the pieces it leaves reaching no root are rooted again by :meth:`_float_roots`
        lost = not self.in_hand and any(self.gr[k] and not self.gone[k] for k in ks)
        for k in ks:
            self.drop_unit(k)
        new = [self._add(u) for u in new_units]
        if lost:
            seen: set = set()
            for _ in self._walk([v for v in range(len(self.units)) if not self.gone[v] and self.gr[v]], seen):
                pass
            for k0 in new:
                if not self.gone[k0] and k0 not in seen:
                    for v in self._float_roots(list(self._walk([k0], seen))):
                        self.gr[v] = True
        return new

    def grounded(self, k: int) -> bool:
        """Whether unit k is a root (stands on the ground or on a part left out of the planning)."""
        return self.gr[k]

    def top(self, k: int) -> float:
        """Top of unit k: the highest z (LDU, BrickLayer frame, z up) of its parts' inset boxes."""
        return float(self.g.hi[self.parts[k], 2].max())

    # -- tests
    def unit_directions(self, k: int) -> list:
        """Insertion directions of unit k, ``(name, unit vector)`` in the order tried: a single part's
        (:meth:`_Geometry.directions`), else the six world axes, a tilted sub-build's own axes first."""
        u = self.units[k]
        p = self.parts[k]
        if len(p) == 1:
            return self.g.directions(int(p[0]))
        out = [(n, d) for n, d in zip(_DIR_NAMES, DIRECTIONS)]
        if is_sub_build(u.content):
            r = np.asarray(u.pose.matrix)[:3, :3]
            if not np.allclose(np.abs(r), np.round(np.abs(r)), atol=1e-3):
                # a tilted sub-build goes in along its own axes first, down (its -z) first
                own = []
                for c, n in ((2, "sub-z"), (0, "sub+x"), (0, "sub-x"), (1, "sub+y"), (1, "sub-y"), (2, "sub+z")):
                    own.append((n, -r[:, c] if n.endswith(("-z", "-x", "-y")) else r[:, c]))
                out = own + out
        return out

    def first_blocker(self, k: int, di: int, dv: np.ndarray) -> int:
        """A live part (not of unit k) that stops unit k along direction ``dv``, or -1; ``_TIMED_OUT``
        when the search's deadline passes first (a sub-build of thousands of parts tests long).

        Watched blocker: the scan over (own part, candidate) resumes where it
        stopped; candidates passed are dead, own, or do not block, which stays
        so while the search goes on.
        """
        g, alive, own = self.g, self.alive, self.parts[k]
        key = (k, di)
        pi, p = self.ptr.get(key, (0, 0))
        mine = None
        n = 0
        while pi < len(own):
            i = int(own[pi])
            c = g.candidates(i, dv)
            while p < len(c):
                j = int(c[p])
                n += 1
                if n % 64 == 0 and cpu_clock() > self.deadline:
                    self.ptr[key] = (pi, p)
                    return _TIMED_OUT
                if alive[j]:
                    if len(own) > 1:
                        if mine is None:
                            mine = self.own_parts(k)
                        if j in mine:
                            p += 1
                            continue
                    if g.blocks(i, j, dv):
                        self.ptr[key] = (pi, p)
                        return j
                p += 1
            pi, p = pi + 1, 0
        self.ptr[key] = (pi, 0)
        return -1

    def own_parts(self, k: int) -> set:
        """The flat indices of unit k's parts as a set (memoized)."""
        m = self._own_sets.get(k)
        if m is None:
            m = self._own_sets[k] = set(self.parts[k].tolist())
        return m

    def all_blockers(self, parts: set, dv: np.ndarray) -> set:
        """Every live part not in ``parts`` (flat indices) that stops them coming in together along unit
        vector ``dv``."""
        g, alive = self.g, self.alive
        out = set()
        for i in parts:
            for j in g.candidates(i, dv).tolist():
                if alive[j] and j not in parts and j not in out and g.blocks(i, j, dv):
                    out.add(j)
        return out

    def cut_off(self, ks: set, cap: int = 400) -> list:
        """Remaining neighbours of units ``ks`` that would no longer reach a root without them.

        Best-first search from each neighbour towards low units (the ground is
        usually a few steps down); a search that visits more than ``cap``
        units counts as cut off (the unit waits rather than risk stranding
        parts).
        """
        good: set = set()
        out = []
        nb = set()
        for k in ks:
            nb |= self.nbr[k]
        nb -= ks
        if self.in_hand:
            return self._splits(ks, nb)
        for v in nb:
            if self.gone[v] or v in good or self.grounded(v):
                continue
            seen = set(ks) | {v}
            heap = [(self.zkey[v], v)]
            found = False
            while heap and len(seen) < cap:
                _, x = heapq.heappop(heap)
                if x in good or self.grounded(x):
                    found = True
                    break
                for y in self.nbr[x]:
                    if y not in seen and not self.gone[y]:
                        seen.add(y)
                        heapq.heappush(heap, (self.zkey[y], y))
            if found:
                good.update(seen - ks)
            else:
                out.append(v)
        return out

    def _splits(self, ks: set, nb: set) -> list:
        """In hand: the neighbours of units ``ks`` that the rest no longer joins to the others without them.

        The rest was one piece, so it stays one piece when the neighbours of ``ks`` still reach each other
        (a breadth-first walk from one of them, stopping once all are found)."""
        nb = {v for v in nb if not self.gone[v]}
        if len(nb) <= 1:
            return []
        start = next(iter(nb))
        want = set(nb) - {start}
        for x in self._walk([start], set(ks)):
            want.discard(x)
            if not want:
                break
        return sorted(want)

    def _walk(self, start: list, seen: set):
        """Live units joined to units ``start`` through neighbours, each yielded once (depth first, the
        start units first); units in ``seen`` are passed over, and every unit reached is added to it."""
        stack = [k for k in start if k not in seen]
        seen.update(stack)
        while stack:
            k = stack.pop()
            yield k
            for v in self.nbr[k]:
                if v not in seen and not self.gone[v]:
                    seen.add(v)
                    stack.append(v)

    def _fail_disconnected(self, failed: dict):
        """In hand: pieces not joined to the largest one are loose (the parent holds them); fail them."""
        seen: set = set()
        comps = [list(self._walk([k0], seen)) for k0 in range(len(self.units)) if not self.gone[k0] and k0 not in seen]
        comps.sort(key=lambda c: -sum(len(self.parts[k]) for k in c))
        for comp in comps[1:]:
            for k in comp:
                for i in self.parts[k].tolist():
                    failed[i] = "not joined to the rest of its sub-build (a loose piece its parent holds)"
                self.drop_unit(k)

    def free_direction(self, k: int, full: bool = True):
        """(name, None) for the first free direction of unit k, else (None, {name: blocker part}).

        ``full`` False: straight down only (the first stage of the search)."""
        blockers = {}
        dirs = self.unit_directions(k)
        for di, (dname, dv) in enumerate(dirs if full else dirs[:1]):
            j = self.first_blocker(k, di, dv)
            if j == _TIMED_OUT:
                return None, blockers  # the search is out of time: it stops at the next unit
            if j < 0:
                self.units[k].dv = dv
                return dname, None
            blockers[dname] = j
        p = self.parts[k]
        if full and len(p) == 1 and int(p[0]) in self.g.hinged:
            met = self._turn_met.get(k)
            if met is None or not all(self.alive[x] for x in met):
                met = set()
                got = self.g.turn_in(int(p[0]), self.alive, met)
                if got is not None:
                    name, dv, turn = got
                    self.units[k].dv, self.units[k].turn = dv, turn
                    return name, None
                self._turn_met[k] = met
        return None, blockers

    # -- the search
    def run(self) -> tuple[list, dict]:
        g = self.g
        removed: list = []
        failed: dict = {}
        self.zkey: dict = {}
        for k in range(len(self.units)):
            if not self.gone[k]:
                self.zkey[k] = float(g.min_z[self.parts[k]].min())
        # parts reaching no root at all: floating in the model as drawn (in hand: pieces apart)
        if self.in_hand:
            self._fail_disconnected(failed)
            if failed:
                return removed, failed  # loose pieces: the sub-build is dissolved anyway
        else:
            self._fail_floating(failed)
        why: dict = {}
        heap = [(-self.top(k), k) for k in range(len(self.units)) if not self.gone[k]]
        heapq.heapify(heap)
        waiters: dict = {}
        full = False
        while True:
            while heap:
                if cpu_clock() > self.deadline:
                    break
                _, k = heapq.heappop(heap)
                if self.gone[k]:
                    continue
                if not self.nbr[k] and not (self.in_hand and self.n_left == 1) and not self.grounded(k):
                    why[k] = ("lost", None)
                    continue
                dep = self.cut_off({k})
                if dep:
                    why[k] = ("holds", int(self.parts[dep[0]][0]))
                    # in a subassembly built in hand, k splits the rest while two of its neighbours join
                    # only through it: any neighbour leaving can change that, not only the ones cut off
                    for v in (self.nbr[k] if self.wake_all else dep):
                        waiters.setdefault(v, []).append(k)
                    continue
                dname, blockers = self.free_direction(k, full)
                if dname is None:
                    why[k] = ("blocked", blockers)
                    for v in set(int(self.owner[b]) for b in blockers.values()):
                        waiters.setdefault(v, []).append(k)
                    continue
                self.drop_unit(k)
                removed.append(Move(self.units[k], dname))
                for w in waiters.pop(k, ()):
                    if not self.gone[w]:
                        heapq.heappush(heap, (-self.top(w), w))
            left = [k for k in range(len(self.units)) if not self.gone[k]]
            if not left:
                break
            if not full and cpu_clock() <= self.deadline:
                # stage two: the units stuck going straight down try every direction
                full = True
                waiters = {}
                heap = [(-self.top(k), k) for k in left]
                heapq.heapify(heap)
                continue
            if cpu_clock() > self.deadline:
                if self.top_level:
                    removed.extend(self._forward_check(left, failed))
                else:
                    for k in left:
                        for i in self.parts[k].tolist():
                            failed[i] = "time budget exceeded: not reached"
                break
            new = self._unstick(left, why, removed, failed)
            full = False
            waiters = {}
            heap = [(-self.top(k), k) for k in range(len(self.units)) if not self.gone[k]]
            heapq.heapify(heap)
            for k in new:
                if not self.gone[k]:
                    self.zkey[k] = float(g.min_z[self.parts[k]].min())
        return removed, failed

    def _forward_check(self, left: list, failed: dict) -> list:
        """Units the search did not reach, placed bottom-up and each checked against the ones before it.

        The disassembly ran out of time with ``left`` still in the model: they come first in the
        assembly order, lowest first among those standing on the ground or touching a unit already
        ordered (a breadth-first walk of the support and connection graph). Each is checked by the two rules against the units of ``left``
        placed before it (support: it stands on the ground or touches one of them; path: a free
        direction). Returns ``(unit, direction)`` in removal order (the reverse of placing) for the
        ones that pass; the others are reported failed with the reason, and so is everything left
        when :attr:`_Planner.check_deadline` passes.
        """
        g = self.g
        # lowest first among the units that stand on the ground or touch one already in the order
        # (support and connection neighbours), so each comes after something that holds it
        key = {k: (self.zkey[k], self.top(k), k) for k in left}
        heap = [key[k] for k in left if self.grounded(k)]
        heapq.heapify(heap)
        seen = {h[2] for h in heap}
        order = []
        while heap:
            k = heapq.heappop(heap)[2]
            order.append(k)
            for i in self.parts[k].tolist():
                for j in g.neighbors[i]:
                    v = int(self.owner[j])
                    if v in key and v not in seen:
                        seen.add(v)
                        heapq.heappush(heap, key[v])
        order += sorted((k for k in left if k not in seen), key=lambda k: key[k])
        present = np.zeros(g.n, dtype=bool)
        passed = []
        for n_done, k in enumerate(order):
            parts = self.parts[k]
            if cpu_clock() > self.pl.check_deadline:
                for v in order[n_done:]:
                    for i in self.parts[v].tolist():
                        failed[i] = "time budget exceeded: not reached"
                break
            mine = set(parts.tolist())
            holds = self.grounded(k) or any(present[j] for i in mine for j in g.neighbors[i])
            dname, blockers = None, {}
            for dn, dv in self.unit_directions(k):
                b = next((j for i in mine for j in g.candidates(i, dv).tolist()
                          if present[j] and j not in mine and g.blocks(i, j, dv)), -1)
                if b < 0:
                    dname = dn
                    self.units[k].dv = dv
                    break
                blockers[dn] = b
            present[parts] = True
            if holds and dname is not None:
                passed.append(Move(self.units[k], dname))
                continue
            text = ("floating when placed bottom-up after the time budget ran out: touches no part placed "
                    "before it" if not holds else self._why_text(("blocked", blockers)))
            for i in parts.tolist():
                failed[i] = text
        for k in left:
            self.drop_unit(k)
        return passed[::-1]

    def _fail_floating(self, failed: dict):
        """Components reaching no root stand on every unit that touches a part left out of the
        planning that the validator finds supported (a vault on its MPD-embedded tyres, a
        robot's wheels in their treads), or else on their own lowest unit when a left-out part lies
        under it (a vehicle on its flexible treads): those units are the component's roots
        (:meth:`_float_roots`). Any other component is floating (reported). Objects drawn apart are
        roots already when ``separate_objects`` is on (the support graph's rule: a gap of
        ``SEPARATE_GAP`` to every other object)."""
        seen: set = set()
        for _ in self._walk([k for k in range(len(self.units)) if not self.gone[k] and self.grounded(k)], seen):
            pass
        for k0 in range(len(self.units)):
            if self.gone[k0] or k0 in seen:
                continue
            comp = list(self._walk([k0], seen))
            roots = self._float_roots(comp)
            parts = self.parts[min(comp, key=lambda x: (self.zkey[x], x))]
            if roots:
                for k in roots:
                    self.gr[k] = True
                log.info("assembly: %d units stand on %d of their own, lowest %s", len(comp), len(set(roots)),
                         self._desc(int(parts[0])))
                continue
            for k in comp:
                for i in self.parts[k].tolist():
                    failed[i] = ("floating: not on the ground and not connected to or resting on any part "
                                 "that is (the model as drawn)")
                self.drop_unit(k)

    def _float_roots(self, comp: list) -> list:
        """Roots of a component reaching no root: its units touching a left-out part that the validator
        finds supported (that part is added in the last step), else its lowest unit when a left-out part
        lies under it, its top within ``TOL.ground_band`` below the unit's bottom (a vehicle on its
        flexible treads; before, any depth counted, and a flag was rooted 700 LDU above a hull part that the
        validator finds floating); [] when it floats."""
        g = self.g
        low = min(comp, key=lambda x: (float(g.min_z[self.parts[x]].min()), x))
        parts = self.parts[low]
        # what lies under it: a left-out part (treads, hoses) or nothing at all
        lo, hi = g.lo[parts].min(axis=0), g.hi[parts].max(axis=0)
        under = np.flatnonzero(np.all(g.lo[:, :2] < hi[:2], axis=1) & np.all(g.hi[:, :2] > lo[:2], axis=1)
                               & (g.hi[:, 2] <= lo[2] + 1.0) & (g.hi[:, 2] >= lo[2] - TOL.ground_band))
        under = [j for j in under.tolist() if self.owner[j] < 0 or j in g.skip]
        roots = [k for k in comp if any((self.owner[j] < 0 or j in g.skip) and g.supported[j]
                                        for i in self.parts[k].tolist() for j in g.neighbors[i])]
        if under and not roots:
            roots.append(low)
        return roots

    def _unstick(self, left: list, why: dict, removed: list, failed: dict) -> list:
        """Deadlock: the first strategy of ``PlannerOptions.strategies`` that finds a way on (each in
        :mod:`bricklayer.assembly.strategies`, tried in order), else give up on one unit (:meth:`_give_up`).
        Returns the units the strategy added."""
        for strategy in self.pl.strategies:
            new = strategy.apply(self, left, why, removed, failed)
            if new is not None:
                return new
        return self._give_up(left, why, failed)

    def _give_up(self, left: list, why: dict, failed: dict) -> list:
        """No strategy found a way on: give up on the highest unit that is blocked (freeing what it blocks),
        else the highest; in hand, the whole sub-build or subassembly stops there."""
        # give up on the highest unit that is blocked (freeing what it blocks), else the highest
        blocked = [k for k in left if why.get(k, ("",))[0] == "blocked"]
        k = max(blocked or left, key=lambda x: (self.top(x), x))
        text = self._why_text(why.get(k))
        if why.get(k, ("",))[0] == "lost" and not any(self.g.neighbors[i] for i in self.parts[k].tolist()):
            # a part of a dissolved sub-build that touches nothing at all: floating as drawn
            text = ("floating: not on the ground and not connected to or resting on any part that is "
                    "(the model as drawn)")
        if not self.top_level:
            # a sub-build or subassembly with a part it cannot place is dissolved (or not formed) whatever
            # else happens: stop here
            for v in left:
                for i in self.parts[v].tolist():
                    failed[i] = text if v == k else "not reached: its sub-build stopped at a part it cannot place"
                self.drop_unit(v)
            return []
        for i in self.parts[k].tolist():
            failed[i] = text
        self.drop_unit(k)
        return []

    def child_units(self, u: Unit) -> list:
        """The units one level down of a multi-part unit: a kept sub-build's placements, a subassembly's
        (or peeled unit's) own units, else its single parts."""
        g = self.g
        if is_sub_build(u.content):
            return self.pl.expand_sub_builds(self.pl.sub_build_units(u, g.flat), g.flat)
        if u.sub is not None:
            return [copy.copy(v) for v, _ in u.sub.units]
        return [Unit(np.array([i]), g.flat[i].content, g.flat[i].pose, None, f"#{i}") for i in u.idx.tolist()]

    def units_without(self, u: Unit, drop: set) -> list:
        """The units of multi-part unit u without parts ``drop``: those holding none kept whole, the others
        opened further."""
        out = []
        for v in self.child_units(u):
            ids = set(v.idx.tolist())
            if not ids & drop:
                out.append(copy.copy(v))
            elif len(ids) > 1:
                out.extend(self.units_without(v, drop))
        return out

    def units_taken_apart(self, u: Unit) -> list:
        """A peeled unit taken apart: its units, subassemblies among them opened down to single parts or
        kept sub-builds."""
        out = []
        for v in self.child_units(u):
            out.extend(self.units_taken_apart(v) if v.sub is not None and v.content is None else [v])
        return out

    def stuck_parts(self, left: list, why: dict, kind: str) -> list:
        """Units of ``left`` that are single parts stuck for reason ``kind`` (``"holds"``, ``"blocked"``),
        highest first, at most :data:`_GROUP_SEEDS`."""
        out = sorted((k for k in left if why.get(k, ("",))[0] == kind and len(self.parts[k]) == 1),
                     key=lambda x: -self.top(x))
        return out[:self.pl.opt.group_seeds]

    def stranded(self, ks: set):
        """Units that taking units ``ks`` out would leave hanging, or None when that is more than
        :data:`MAX_GROUP` parts: the pieces cut off from the roots (in hand: every piece but the largest)."""
        cut = self.cut_off(ks)
        if not cut:
            return set()
        if self.in_hand:
            # every piece the rest falls into, the walk's own start piece too (``cut_off`` leaves it out)
            cut = sorted({v for k in ks for v in self.nbr[k] if v not in ks and not self.gone[v]})
        pieces = []
        seen = set(ks)
        for v in cut:
            if v in seen:
                continue
            piece, size = set(), 0
            for x in self._walk([v], seen):
                piece.add(x)
                size += len(self.parts[x])
                if size > self.pl.opt.max_group and not self.in_hand:
                    return None
            pieces.append((size, piece))
        if self.in_hand:
            pieces.sort(key=lambda t: -t[0])
            pieces = pieces[1:] if len(pieces) > 1 else []
            if sum(t[0] for t in pieces) > self.pl.opt.max_group:
                return None
        out = set()
        for _, piece in pieces:
            out |= piece
        return out

    def units_connected(self, ks: set) -> bool:
        """Whether units ``ks`` are one piece through their neighbours among themselves."""
        start = next(iter(ks))
        seen, stack = {start}, [start]
        while stack:
            x = stack.pop()
            for y in self.nbr[x]:
                if y in ks and y not in seen:
                    seen.add(y)
                    stack.append(y)
        return len(seen) == len(ks)

    def sequence_group(self, ks: set, extra=()):
        """Order of a subassembly built in hand (every part joins the ones placed), or None. ``extra``:
        parts taken back to join it (:func:`~bricklayer.assembly.strategies.subassembly._bridges`).

        A subassembly formed by the top level or a sub-build may itself take subassemblies of its own
        (one level deep, :data:`MAX_GROUP` each): a SNOT core built in hand from a plate-and-bracket
        block made first (the two halves of a core with their 1 x 6 tiles, each half's own
        plate, bracket and clip plates put together apart and slid on). When the whole group turns out
        to be one such subassembly, it is that subassembly."""
        g = self.g
        parts = sorted(set().union(*(set(self.parts[k].tolist()) for k in ks)) | set(extra))
        units = [Unit(np.array([i]), g.flat[i].content, g.flat[i].pose, None, f"#{i}") for i in parts]
        s = _Search(self.pl, g, units, np.zeros(g.n, dtype=bool), allow_groups=not self.nested, in_hand=True,
                    deadline=self.deadline)
        s.wake_all = True
        s.nested = True
        rem, fail = s.run()
        if fail:
            return None
        rem = rem[::-1]
        if len(rem) == 1 and rem[0].unit.sub is not None:
            return rem[0].unit.sub
        order: list = []
        directions: dict = {}
        for u, d in rem:
            if u.sub is not None:  # a nested subassembly: its parts in its own order
                order.extend(int(i) for i in u.sub.order)
                directions.update(u.sub.directions)
            else:  # one part, or a held pair
                order.extend(int(i) for i in u.idx.tolist())
                directions.update({int(i): d for i in u.idx.tolist()})
        return PlannedAssembly(order, directions, rem)

    def _why_text(self, w) -> str:
        if w is None:
            return "could not be placed"
        if w[0] == "holds":
            return "holds up: " + self._desc(w[1]) + " (which cannot leave first)"
        if w[0] == "lost":
            return "lost every neighbour"
        return "blocked in every direction: " + ", ".join(
            f"{dn} by {self._desc(v)}" for dn, v in list(w[1].items())[:6])

    def _desc(self, i: int) -> str:
        fp = self.g.flat[i]
        try:
            name = fp.content.spec.name
        except Exception:  # noqa: BLE001 - a part without catalogue entry has no name
            name = ""
        label = "/".join(str(p.content.name or "?") for p in fp.path[:-1])
        return f"#{i} {fp.content.ldraw_id} ({name})" + (f" in {label}" if label else "")
