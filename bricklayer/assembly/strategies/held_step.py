"""Held steps: a pin or axle that alone holds up a few units goes in last, through them held by hand."""

from __future__ import annotations

from ..options import cpu_clock
from ..plan import Move

__all__ = ["HeldStep"]


def _held_step(search, left: list, why: dict):
    """Deadlock: a held step, or None (module notes).

    A pin or axle (a single part) that alone holds up some units, all
    joined to it through non-stud joints (a clevis straddling a liftarm
    on the axle through both, a wheel on its axle; or through one another:
    an angle connector on an axle pin with a half pin in it), leaves first along
    the axis of such a joint, and the units it held leave right after
    it, one by one, each along a free straight line: built forwards, the
    builder holds those in place by hand and the pin goes in last,
    through them. At most :data:`MAX_HELD` parts in all, and the rest
    stays one piece without them. Returns ``[(unit, direction name),
    ...]`` in removal order, the held units marked ``held``.
    """
    g = search.g
    for k in search.stuck_parts(left, why, "holds"):
        if cpu_clock() > search.deadline:
            return None
        pin = int(search.parts[k][0])
        hang = search.stranded({k})
        if not hang or sum(len(search.parts[v]) for v in hang) + 1 > search.pl.opt.max_held:
            continue
        hp = {i for v in hang for i in search.parts[v].tolist()}
        # threaded on the pin: mated through a non-stud joint, or passed through by the pin as drawn
        # (:meth:`~bricklayer.assembly.geometry._Geometry.threaded_axes`: an axle in a liftarm hole drawn 0.87 LDU off)
        thr = {i: list(g.joint_axes.get((pin, i), ())) for i in hp}
        for i in hp:
            if not thr[i] and i in g.neighbors[pin]:
                thr[i] = g.threaded_axes(pin, i)
        axes = [a for i in hp for a in thr[i]]
        # every held part is threaded on the pin (directly or through held parts joined by non-stud joints)
        reach, todo = {pin}, [pin]
        while todo:
            x = todo.pop()
            for y in g.neighbors[x]:
                if y in hp and y not in reach and ((x, y) in g.joint_axes or (x == pin and thr[y])):
                    reach.add(y)
                    todo.append(y)
        if axes and len(reach) == len(hp) + 1:
            got = _free_without(search, k, set(), axes)
            if got is None or search.cut_off({k} | hang):
                continue
            out = {pin}
            steps = [(k, got)]
            rest = sorted(hang, key=lambda x: -search.top(x))
            while rest:
                for v in rest:
                    fv = _free_without(search, v, out)
                    if fv is not None:
                        break
                else:
                    break
                rest.remove(v)
                out |= search.own_parts(v)
                steps.append((v, fv))
            if rest:
                continue
            res = []
            for n, (v, (dname, dv)) in enumerate(steps):
                search.units[v].dv = dv
                search.units[v].held = n > 0
                res.append((v, dname))
            return res
    return None


def _free_without(search, k: int, out: set, along: list | None = None):
    """(name, unit vector) of the first direction along which unit k gets in when the parts ``out`` are
    gone too, else None (the straight-line test of :meth:`free_direction`, without hinge turns).
    ``along``: only directions within the joint cosine of one of these unit axes."""
    g, own = search.g, search.own_parts(k)
    for dname, dv in search.unit_directions(k):
        if along is not None and not any(abs(float(dv @ ax)) > search.pl.opt.joint_cos for ax in along):
            continue
        if not any(search.alive[j] and j not in own and j not in out and g.blocks(i, j, dv)
                   for i in own for j in g.candidates(i, dv).tolist()):
            return dname, dv
    return None



class HeldStep:
    """A pin or an axle (one part) alone holds up a few units, all joined to it through non-stud joints (a
    clevis straddling a beam on the axle through both, a bush and a beam threaded on an axle). Built
    forwards, the builder holds those units in place by hand, each brought in along a free straight line,
    and the pin goes in last along its joint axis; only then must they hold (the support rule is checked
    for the step as a whole). At most ``PlannerOptions.max_held`` parts per step (0: off); the held moves
    are marked ``held`` and counted in ``AssemblyPlan.held_steps``."""

    name = "held_step"

    def apply(self, search, left: list, why: dict, removed: list, failed: dict) -> list | None:
        step = _held_step(search, left, why)
        if not step:
            return None
        search.pl.held_steps += 1
        for k, dname in step:
            search.drop_unit(k)
            removed.append(Move(search.units[k], dname))
        return []
