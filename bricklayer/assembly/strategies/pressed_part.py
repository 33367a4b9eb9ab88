"""Pressed moves: a part slid in above its studs, then pressed down onto them."""

from __future__ import annotations

from ..options import cpu_clock
from ..plan import Move

__all__ = ["PressedPart"]


def _pressed_part(search, left, why):
    """Deadlock: a stuck single part that slides in lifted and is pressed down (:meth:`~bricklayer.assembly.geometry._Geometry.press_in`),
    highest first (at most ``PlannerOptions.group_seeds``); ``(unit, direction name)`` or None. A part whose last try was
    stopped only by parts still in place is not tried again."""
    cache = search.press_met
    for k in search.stuck_parts(left, why, "blocked"):
        if cpu_clock() > search.deadline:
            return None
        met = cache.get(k)
        if met is not None and all(search.alive[x] for x in met):
            continue
        met = set()
        got = search.g.press_in(int(search.parts[k][0]), search.alive, met)
        if got is None:
            cache[k] = met
            continue
        name, dv, press = got
        search.units[k].dv, search.units[k].press = dv, press
        return k, name
    return None



class PressedPart:
    """A stuck single part that can slide in along a direction across its stud axis at one of
    ``PlannerOptions.press_lifts`` above its place and then be pressed straight down onto its studs, as a
    builder pushes a part under an overhang or through an opening and presses it on. Both legs are sampled
    like a hinge turn; the move records ``press`` (direction, distance)."""

    name = "pressed_part"

    def apply(self, search, left: list, why: dict, removed: list, failed: dict) -> list | None:
        got = _pressed_part(search, left, why)
        if got is None:
            return None
        k, dname = got
        search.drop_unit(k)
        removed.append(Move(search.units[k], dname))
        return []
