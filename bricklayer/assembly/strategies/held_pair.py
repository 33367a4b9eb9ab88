"""Held pairs: two interlocked parts, each holding on its own, set down together."""

from __future__ import annotations

import numpy as np

from ..options import cpu_clock
from ..plan import Move, Unit

__all__ = ["HeldPair"]


def _held_pair(search, left: list, why: dict):
    """Deadlock, last resort: two single parts interlocked with each other, set down together.

    A stuck part k and a part j it touches (collision broad phase) that blocks it, where each part
    holds on its own once placed (stands on the ground or touches a placed part other than the
    other) and the two, moving rigidly together along one of k's directions, meet nothing: the
    builder holds the two together in the fingers and sets them down as one
    (a chest 4738a and a panel 6268a side by side on a plate 3035, each reaching over the other).
    Unlike a subassembly they need not be joined to each other. Returns ``(unit, direction
    name)`` with both parts dropped from the search, or None.
    """
    g = search.g
    for k in search.stuck_parts(left, why, "blocked"):
        if cpu_clock() > search.deadline:
            return None
        a = int(search.parts[k][0])
        for b in sorted(set(why[k][1].values())):
            v = int(search.owner[b])
            if v < 0 or v == k or search.gone[v] or len(search.parts[v]) != 1 or (a, b) not in g.contact:
                continue
            if not all(search.grounded(x) or (search.nbr[x] - {k, v}) for x in (k, v)):
                continue
            if search.cut_off({k, v}):
                continue
            for dname, dv in search.unit_directions(k):
                if search.all_blockers({a, b}, dv):
                    continue
                u = Unit(np.array(sorted((a, b))), None, None, None, "held pair", dv=dv)
                search.drop_unit(k)
                search.drop_unit(v)
                search.pl.held_steps += 1
                return u, dname
    return None



class HeldPair:
    """A stuck part and a touching part that blocks it, where each holds on its own once placed (side by
    side on one plate, each reaching over the other): held together in the fingers, they are set down as
    one move when nothing stops the pair. Counted in ``AssemblyPlan.held_steps``."""

    name = "held_pair"

    def apply(self, search, left: list, why: dict, removed: list, failed: dict) -> list | None:
        pair = _held_pair(search, left, why)
        if pair is None:
            return None
        u, dname = pair
        removed.append(Move(u, dname))
        return []
