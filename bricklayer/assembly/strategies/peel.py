"""Peels: a few parts of a placed sub-build that alone stop a stuck unit come off it first."""

from __future__ import annotations

import copy

import numpy as np

from ..geometry import connected_pieces
from ..options import DIRECTIONS, cpu_clock
from ..plan import PlannedAssembly, is_sub_build, planned_parts, Unit

__all__ = ["Peel"]


def _peel(search, left: list, why: dict):
    """Deadlock (top level, before stuck sub-builds are dissolved): peel a few parts off a placed unit.

    A stuck kept sub-build k that, along one of its directions, only a few parts (at most
    :data:`MAX_PEEL`) of other multi-part units stop (each wing of a fighter is set into a slot of the Technic core and
    held there by two long pins of a connector block, a nested sub-build of the core, that go through
    the core's beam and the wing's). Those parts come off their units, with what they alone hold
    there (the pieces cut off from the unit's largest piece; at most :data:`MAX_PEEL_GROUP` parts in
    all, two at least stay), when each peeled piece can leave along a straight line at once (no
    cascade) and what is left of its unit is still built in hand (re-planned, its kept nested
    sub-builds as units). Built forwards: the unit without them goes in, then the wing into its slot,
    then the peeled piece (the connector block, pushed along its pins through both beams), each an
    ordinary move checked by the rules. Smallest peel first, one per deadlock; returns the new units
    (see :meth:`replace_units`) or None. Failed peels are not tried again, and peels take at most
    :data:`_PEEL_SHARE` of the search time in all."""
    if search.pl.peel_left <= 0:
        return None
    t0 = cpu_clock()
    try:
        return _peel_now(search, left, why)
    finally:
        search.pl.peel_left -= cpu_clock() - t0


def _peel_now(search, left: list, why: dict):
    t0 = cpu_clock()
    g = search.g
    bad = search.bad_peels
    cands = []
    for k in sorted(left, key=lambda x: -search.top(x))[:search.pl.opt.group_seeds]:
        w = why.get(k)
        # a stuck kept sub-build (the wing): a single part has the other fallbacks (held steps, presses)
        if not w or w[0] != "blocked" or not is_sub_build(search.units[k].content):
            continue
        own = search.own_parts(k)
        for dname, dv in search.unit_directions(k):
            if cpu_clock() > search.deadline:
                break
            b: set = set()
            ok = True
            for i in own:
                for j in g.candidates(i, dv).tolist():
                    if search.alive[j] and j not in own and j not in b and g.blocks(i, j, dv):
                        b.add(j)
                        if len(b) > search.pl.opt.max_peel:
                            ok = False
                            break
                if not ok:
                    break
            if not ok or not b:
                continue
            by: dict = {}
            for j in b:
                o = int(search.owner[j])
                if o == k or search.gone[o] or len(search.parts[o]) <= 1:
                    ok = False
                    break
                by.setdefault(o, set()).add(j)
            if not ok:
                continue
            size = 0
            for o in list(by):
                by[o] = by[o] | _cut_loose(search, o, by[o])
                size += len(by[o])
                ok = ok and len(search.parts[o]) - len(by[o]) >= 2
            if not ok or size > search.pl.opt.max_peel_group:
                continue
            key = frozenset((o, frozenset(p)) for o, p in by.items())
            if key in bad:
                continue
            if not all(_piece_free(search, p) for p in by.values()):
                bad.add(key)
                continue
            cands.append((size, -search.top(k), k, by, key))
    cands.sort(key=lambda c: c[:3])
    seen: set = set()
    tries = 0
    for _size, _top, _k, by, key in cands:
        if key in seen:
            continue
        seen.add(key)
        if tries >= search.pl.opt.peel_tries or cpu_clock() > search.deadline or search.pl.peel_left <= cpu_clock() - t0:
            break
        tries += 1
        new_units: list = []
        for o, peel in by.items():
            rest = _replan_without(search, o, peel)
            if rest is None:
                break
            new_units.extend(_peeled_piece(search, o, peel))
            u = search.units[o]
            new_units.append(Unit(np.array(sorted(rest.order)), None, None, None, f"{u.label} (peeled)",
                                   sub=rest, peeled=True))
        else:
            return search.replace_units(list(by), new_units)
        bad.add(key)
    return None


def _cut_loose(search, o: int, drop: set) -> set:
    """Parts of unit o that, with parts ``drop`` gone, are cut off from its largest piece."""
    pieces = sorted(connected_pieces(set(search.parts[o].tolist()) - drop, search.g.neighbors), key=len, reverse=True)
    return set().union(*pieces[1:]) if len(pieces) > 1 else set()


def _piece_free(search, s: set) -> bool:
    """Parts ``s`` can leave together along a straight line now (an axis or one of their directions)."""
    g = search.g
    dirs = list(DIRECTIONS)
    for i in s:
        dirs += [d for _, d in g.directions(i)]
    return any(not any(search.alive[j] and j not in s and g.blocks(i, j, dv)
                       for i in s for j in g.candidates(i, dv).tolist()) for dv in dirs)


def _replan_without(search, o: int, drop: set):
    """Plan (``order``, ``directions``, ``units``) of unit o without parts ``drop``, built in hand, or None."""
    units = search.units_without(search.units[o], drop)
    if not units:
        return None
    s = type(search)(search.pl, search.g, units, np.zeros(search.g.n, dtype=bool), allow_groups=True, in_hand=True,
                deadline=search.deadline)
    s.nested = search.nested
    rem, fail = s.run()
    if fail or not rem:
        return None
    res = search.pl.planned_assembly(search.g, rem, {})
    return PlannedAssembly(res.order, res.directions, res.units)


def _peeled_piece(search, o: int, peel: set) -> list:
    """Units of the parts ``peel`` taken off unit o: a kept nested sub-build that is exactly them, else
    one subassembly built in hand, else single parts."""
    g = search.g

    def kept(u):
        for v in search.child_units(u) if (is_sub_build(u.content) or u.sub is not None) else ():
            ids = set(planned_parts(g, v).tolist())
            if ids == peel and is_sub_build(v.content):
                return copy.copy(v)
            if peel <= ids and len(ids) > len(peel):
                return kept(v)
        return None

    got = kept(search.units[o])
    if got is not None:
        return [got]
    singles = [Unit(np.array([i]), g.flat[i].content, g.flat[i].pose, None, f"#{i} peeled") for i in sorted(peel)]
    if len(peel) > 1:
        s = type(search)(search.pl, g, singles, np.zeros(g.n, dtype=bool), allow_groups=False, in_hand=True,
                    deadline=search.deadline)
        rem, fail = s.run()
        if not fail and rem:
            res = search.pl.planned_assembly(g, rem, {})
            return [Unit(np.array(sorted(res.order)), None, None, None, "peeled piece",
                          sub=PlannedAssembly(res.order, res.directions, res.units),
                          peeled=True)]
    return singles



class Peel:
    """At a deadlock of the top level, before stuck sub-builds are dissolved: a stuck unit that, along one
    of its directions, only a few parts (at most ``PlannerOptions.max_peel``) of other sub-builds stop, as
    pins pushed through two beams hold a wing in the slot of a core. Those parts come off their units, with
    what they alone hold there (at most ``max_peel_group`` parts), when each peeled piece can leave along a
    straight line at once and what is left of its unit is still built in hand. Built forwards: the unit
    without them, then the stuck unit, then the peeled piece. Smallest peel first, one per deadlock;
    failed peels are not tried again; peels take at most ``peel_share`` of the search time in all."""

    name = "peel"

    def apply(self, search, left: list, why: dict, removed: list, failed: dict) -> list | None:
        if not search.top_level:
            return None
        return _peel(search, left, why)
