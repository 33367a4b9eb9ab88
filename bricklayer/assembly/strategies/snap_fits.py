"""Snap fits: a stuck part and a touching part that blocks it in every direction."""

from __future__ import annotations

from ..options import cpu_clock
from .base import snap_fits_found

__all__ = ["SnapFits"]


class SnapFits:
    """Two touching rigid parts so interlocked that neither can meet the other along any straight line,
    yet the model is built: one flexes into place (a turntable top clicked onto its base, a slotted pin's lip
    through a wheel hub, a clip over a bar). For every stuck part and each part blocking it that it touches,
    the pair is taken as a snap fit when each blocks the other in every direction, or when that part alone
    blocks it in every direction (:meth:`~bricklayer.assembly.geometry._Geometry.snap_fit`); the pair then
    no longer blocks each other. One pass over the stuck parts; applies when it found any."""

    name = "snap_fits"

    def apply(self, search, left: list, why: dict, removed: list, failed: dict) -> list | None:
        found = 0
        for k in left:
            w = why.get(k)
            if not w or w[0] != "blocked" or not w[1]:
                continue
            only = set(w[1].values())
            for j in only:
                for i in search.parts[k].tolist():
                    one = len(only) == 1
                    if (i, j) in search.g.contact and (i, j) not in search.g.snap and search.g.snap_fit(i, j, one):
                        found += 1
            if cpu_clock() > search.deadline:
                break
        return snap_fits_found(search, why, found)
