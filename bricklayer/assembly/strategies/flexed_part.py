"""Flexed fits: a part that gets by its blockers with the press-fit allowance."""

from __future__ import annotations

from ...constants import TOL
from ..options import cpu_clock
from .base import snap_fits_found

__all__ = ["FlexedPart"]


def _flexed_part(search, left, why):
    """Deadlock, last resort: a stuck single part that gets in along one of its directions when the parts
    blocking it there (all touching it, at most 4) let it by with the press-fit allowance; marks those pairs
    snap fits and returns their number, else None."""
    g = search.g
    extra = TOL.collision_inset + max(search.pl.opt.press_insets)
    memo = g.flex_fail
    deep = g.flex_deep
    for k in search.stuck_parts(left, why, "blocked"):
        if cpu_clock() > search.deadline:
            return None
        u = int(search.parts[k][0])
        old = memo.get(u)
        if old is not None and all(search.alive[x] and (u, x) not in g.snap for x in old):
            continue
        stop = set()
        for _, dv in search.unit_directions(k):
            bl = search.all_blockers({u}, dv)
            if not bl:
                continue
            if len(bl) > 4:
                stop |= bl
                continue
            far = [j for j in bl if (u, j) not in g.contact]
            if far:
                stop.add(far[0])
                continue
            dloc = g.inv[u][:3, :3] @ dv
            ok = True
            for j in bl:
                key = (u, j, dv.tobytes())
                hit = deep.get(key)
                if hit is None:
                    base = g.final_inset(u, j)
                    if base is None:
                        hit = False
                    else:
                        ins = max(base, extra)
                        s_lo, s_hi = g.overlap_interval(u, j, dv)
                        hit = g.sweep(g.model(u, ins), g.model(j, ins), g.inv[u] @ g.t[j], dloc, s_lo, s_hi)
                    deep[key] = hit
                if hit:
                    stop.add(j)
                    ok = False
                    break
            if ok:
                for j in bl:
                    g.snap.update(((u, j), (j, u)))
                return len(bl)
        memo[u] = stop
    return None



class FlexedPart:
    """Last, before giving up on a stuck single part: it goes in along one of its directions when every part
    blocking it there touches it (at most 4) and lets it by with the largest press-fit inset
    (``PlannerOptions.press_insets``, 1 LDU more): a thin lip or edge flexes that little as it goes by. The
    pairs count as snap fits."""

    name = "flexed_part"

    def apply(self, search, left: list, why: dict, removed: list, failed: dict) -> list | None:
        return snap_fits_found(search, why, _flexed_part(search, left, why))
