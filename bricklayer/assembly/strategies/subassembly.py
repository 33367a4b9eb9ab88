"""Subassemblies: a stuck unit with its blockers in one direction, built in hand and set in whole."""

from __future__ import annotations

import numpy as np

from ..geometry import connected_pieces
from ..options import cpu_clock
from ..plan import Move, is_sub_build, planned_parts, Unit

__all__ = ["Subassembly"]


def _find_group(search, left: list, removed: list = ()):
    """A smallest rigid group of stuck units that can leave together (see module notes), or None.

    ``removed``: the search's removals so far; a group in pieces may take back single parts from it
    that join its pieces (:func:`~bricklayer.assembly.strategies.subassembly._bridges`), which are then deleted from it."""
    seeds = sorted((k for k in left), key=lambda x: -search.top(x))[:search.pl.opt.group_seeds]
    best = None
    for k in seeds:
        if cpu_clock() > search.deadline:
            break
        for dname, dv in search.unit_directions(k):
            ks = {k}
            parts = set(search.parts[k].tolist())
            ok = False
            while len(parts) <= search.pl.opt.max_group:
                b = search.all_blockers(parts, dv)
                more = {int(search.owner[j]) for j in b}
                if not more:
                    # what the group alone holds up goes with it (a plate with the dishes hanging under it)
                    more = search.stranded(ks)
                    if more is None:
                        break
                if not more:
                    ok = True
                    break
                ks |= more
                for v in more:
                    parts |= set(search.parts[v].tolist())
            if not ok or len(ks) < 2 or (best is not None and len(parts) >= best[0]):
                continue
            if search.cut_off(ks):
                continue
            bridge: list = []
            if not search.units_connected(ks):
                bridge = _bridges(search, ks, dv, removed)
                if not bridge:
                    continue
            extra = [int(removed[pos].unit.idx[0]) for pos in bridge]
            if len(parts) + len(extra) > search.pl.opt.max_group:
                continue
            fk = (frozenset(ks), tuple(sorted(extra)))
            if fk in search.bad_groups:
                continue
            sub = search.sequence_group(ks, extra)
            if sub is None:
                search.bad_groups.add(fk)  # its parts do not change: it cannot be built in hand later either
                continue
            best = (len(parts) + len(extra), ks, dname, sub, dv, bridge)
            if len(parts) <= 3:
                break
        if best is not None:
            break
    if best is None:
        return None
    _, ks, dname, sub, dv, bridge = best
    for pos in sorted(bridge, reverse=True):
        del removed[pos]  # taken back: it goes in with the subassembly now
    return ks, dname, sub, dv


def _bridges(search, ks: set, dv: np.ndarray, removed: list):
    """Single parts already taken out that join the pieces of group ``ks`` into one: positions in
    ``removed`` (at most :data:`MAX_BRIDGE`), or None.

    The half pins 4274 between a trap door 92099 and its angle connectors 32013 are free along
    their axes and leave before the door, which leaves the door's group in three pieces. A builder
    making that group in hand puts its pins in. A candidate is a single part (not a sub-build,
    subassembly, held or turned move, nor the pin of a held step) with neighbours in two pieces of the
    group. Taken back, it is placed with the group, earlier than before, so it must get in with the
    group along ``dv`` (no live part outside the group blocks it) and must not stop any unit placed
    between (those removed after it) along that unit's direction.
    """
    if not removed:
        return None
    g = search.g
    pieces = connected_pieces(set(ks), search.nbr)
    if len(pieces) < 2:
        return []
    where = {i: n for n, piece in enumerate(pieces) for k in piece for i in search.parts[k].tolist()}
    merged = list(range(len(pieces)))

    def root(n):
        while merged[n] != n:
            n = merged[n]
        return n

    picked = []
    for pos in range(len(removed) - 1, -1, -1):  # most recent first (nearest in the assembly order)
        u = removed[pos].unit
        if u.sub is not None or u.turn is not None or u.held or len(u.idx) != 1 or is_sub_build(u.content):
            continue
        if pos + 1 < len(removed) and removed[pos + 1].unit.held:
            continue  # the pin of a held step: its held units rely on it going in after them
        p = int(u.idx[0])
        if p in g.skip or not g.has[p]:
            continue
        touched = {root(where[j]) for j in g.neighbors[p] if j in where}
        if len(touched) < 2:
            continue
        if any(search.alive[j] and j not in where and g.blocks(p, j, dv) for j in g.candidates(p, dv).tolist()):
            continue
        ok = True
        for v, _ in removed[pos + 1:]:
            vparts = planned_parts(g, v) if v.sub is None else np.asarray(v.sub.order, dtype=np.int64)
            if v.dv is None or v.press is not None or (v.turn is not None and any((int(i), p) in g.contact for i in vparts.tolist())):
                ok = False  # no direction known, or a turned move near it (not re-tested here)
                break
            dvv = np.asarray(v.dv, dtype=np.float64)
            if any(g.blocks(int(i), p, dvv) for i in vparts.tolist()):
                ok = False
                break
        if not ok:
            continue
        picked.append(pos)
        first = touched.pop()
        for n in touched:
            merged[root(n)] = root(first)
        if len({root(n) for n in range(len(pieces))}) == 1:
            return picked
        if len(picked) >= search.pl.opt.max_bridge:
            return None
    return None



def take_group(search, grp, removed: list) -> list:
    """Replace the units of a group found by a strategy by one subassembly unit and remove it at once."""
    ks, dname, sub, dv, *turn = grp
    u = Unit(np.array(sorted(sub.order)), None, None, None, "subassembly", sub=sub, dv=dv,
              turn=turn[0] if turn else None)
    new = search.replace_units(list(ks), [u])
    search.drop_unit(new[0])
    removed.append(Move(u, dname))
    return []


class Subassembly:
    """Single units deadlock where a builder would make a small block first: a stuck unit with its blockers
    in one direction and the units that only it holds up, grown until the group can leave along one line and
    leaves nothing hanging, connected, at most ``PlannerOptions.max_group`` parts. The group is sequenced on
    its own in hand (it may take one level of subassemblies of its own) and inserted whole. A group in
    pieces takes back, as its pins, up to ``max_bridge`` single parts already taken out that join its
    pieces, when they get in with it and stop none of the units placed in between. Only in searches that
    allow groups."""

    name = "subassembly"

    def apply(self, search, left: list, why: dict, removed: list, failed: dict) -> list | None:
        if not search.allow_groups:
            return None
        grp = _find_group(search, left, removed)
        return None if grp is None else take_group(search, grp, removed)
