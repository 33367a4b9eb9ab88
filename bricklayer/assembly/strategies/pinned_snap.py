"""Pinned snaps: a part hanging on a pin, gripped over its edge by a clip."""

from __future__ import annotations

from ..options import cpu_clock
from .base import snap_fits_found

__all__ = ["PinnedSnap"]


def _pinned_snap(search, left: list, why: dict) -> int:
    """Deadlock, last resort: snap fits of a part on a pin gripped by a clip; returns how many were found.

    A stuck single part u mated through non-stud joints to live parts (the pin it hangs on) can leave
    only along a joint axis: its mates stop it across. When one touching part j with a clip connector
    (BrickNet ``clip`` labels: the part made to flex open and grip), which u meets at its final pose as
    drawn (their inset meshes overlap: pressed together), stops it both ways along the axis, and every
    other direction is stopped by j or a mate, j's clip flexes over u (the clip plate
    60897 gripping the edge of the plate 18677 that hangs on the pin of brick 2458, 0.8 LDU deep as
    drawn). It is the one-sided snap fit of :meth:`~bricklayer.assembly.geometry._Geometry.snap_fit` with the mates' stops across
    their own axis, which every part on a pin has, not held against it. Tried after held pairs: a
    clip is required, else a brick beside a corner brick would pass."""
    g = search.g
    found = 0
    for k in left:
        w = why.get(k)
        if not w or w[0] != "blocked" or not w[1] or len(search.parts[k]) != 1:
            continue
        u = int(search.parts[k][0])
        mates = [m for m in g.neighbors[u] if search.alive[m] and (u, m) in g.joint_axes]
        if not mates:
            continue
        axes = [a for m in mates for a in g.joint_axes[(u, m)]]
        for j in sorted(set(w[1].values()) - set(mates)):
            if (u, j) not in g.hit_pairs or (u, j) in g.snap or not g.has_clip(j):
                continue
            ok, along_any = True, False
            for _, dv in g.directions(u):
                if any(abs(float(a @ dv)) > search.pl.opt.joint_cos for a in axes):
                    along_any = True
                    if not g.blocks(u, j, dv):
                        ok = False
                        break
                elif not (g.blocks(u, j, dv) or any(g.blocks(u, m, dv) for m in mates)):
                    ok = False
                    break
            if ok and along_any:
                g.snap.update(((u, j), (j, u)))
                found += 1
                break
        if cpu_clock() > search.deadline:
            break
    return found



class PinnedSnap:
    """A stuck part hanging on a pin whose mates stop it across the pin, while one touching part with a
    clip, pressed against it as drawn, stops it along the pin and everywhere else: the clip flexes over its
    edge, and the pair is taken as a snap fit (counted in ``AssemblyPlan.snap_fits``)."""

    name = "pinned_snap"

    def apply(self, search, left: list, why: dict, removed: list, failed: dict) -> list | None:
        return snap_fits_found(search, why, _pinned_snap(search, left, why))
