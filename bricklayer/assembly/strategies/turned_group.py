"""Turned groups: a hinged lid with what is built on it, opened, brought in and turned shut as one."""

from __future__ import annotations

from ..options import cpu_clock
from .subassembly import take_group

__all__ = ["TurnedGroup"]


def _turned_group(search, left: list):
    """Deadlock: a hinged lid with what is built on it, turned in as one subassembly, or None.

    A stuck unit that is, or touches, a part h mated through a click hinge to a live part m outside it
    (the cylinder 6259 on the studs of the hinge plate 4315 that closes over
    the roof 4213) leaves with h and the units only they hold up; a part that stops the group's turn or
    path and is joined to it joins it, up to :data:`MAX_TURN_GROUP` parts. The group must turn in on
    the hinge as one (:meth:`~bricklayer.assembly.geometry._Geometry.turn_group_in`), be connected, leave the rest supported and be
    built in hand. Returns ``(units, direction name, plan, direction, turn)``.
    """
    g = search.g
    mates: dict = {}
    for a, b in g.hinges:
        mates.setdefault(a, []).append(b)
    for k in sorted(left, key=lambda x: -search.top(x))[:search.pl.opt.group_seeds]:
        if cpu_clock() > search.deadline:
            return None
        hs = []
        for i in search.parts[k].tolist():
            for h in [i] + sorted(g.neighbors[i]):
                if search.alive[h] and h in mates and h not in hs:
                    hs.append(h)
        for h in hs:
            for m in mates[h]:
                if not search.alive[m] or int(search.owner[m]) in (int(search.owner[h]), k):
                    continue
                ks = {k, int(search.owner[h])}
                got = None
                while True:
                    more = search.stranded(ks)
                    if more is None:
                        break
                    ks |= more
                    if int(search.owner[m]) in ks:
                        break
                    parts = sorted({i for v in ks for i in search.parts[v].tolist()})
                    if len(parts) > search.pl.opt.max_turn_group:
                        break
                    got, x = g.turn_group_in(parts, h, m, search.alive)
                    if got is not None:
                        break
                    v = int(search.owner[x]) if x >= 0 else -1
                    if v < 0 or v in ks or not any(v in search.nbr[w] for w in ks):
                        break
                    ks.add(v)
                if got is None or not search.units_connected(ks) or search.cut_off(ks):
                    continue
                fk = (frozenset(ks), h, m)
                if fk in search.bad_groups:
                    continue
                sub = search.sequence_group(ks)
                if sub is None:
                    search.bad_groups.add(fk)
                    continue
                name, dv, turn = got
                return ks, name, sub, dv, turn
    return None



class TurnedGroup:
    """A unit on a part mated through a click hinge to a placed part, which cannot come in alone: the
    part, with what is built on it, is made in hand, opened on the hinge, brought in straight and turned
    shut, all parts moving together (at most ``PlannerOptions.max_turn_group`` parts). Only in searches
    that allow groups."""

    name = "turned_group"

    def apply(self, search, left: list, why: dict, removed: list, failed: dict) -> list | None:
        if not search.allow_groups:
            return None
        grp = _turned_group(search, left)
        return None if grp is None else take_group(search, grp, removed)
