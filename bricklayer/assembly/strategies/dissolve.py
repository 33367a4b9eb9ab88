"""Dissolving a stuck sub-build: its placements are planned one by one in the parent."""

from __future__ import annotations

from ..plan import _is_sub_build

__all__ = ["DissolveSubBuild"]


class DissolveSubBuild:
    """A sub-build (an LDraw submodel) kept together can be inserted only whole, along one line. When one is
    stuck (blocked, or holding up others), the builder does not make it apart: it is dissolved, its
    placements planned one by one in the parent (nested sub-builds that can still be kept stay whole)."""

    name = "dissolve"

    def apply(self, search, left: list, why: dict, removed: list, failed: dict) -> list | None:
        self = search
        subs = [k for k in left if _is_sub_build(self.units[k].content) and len(self.parts[k]) > 1]
        if not subs:
            return None
        new_units = []
        for k in subs:
            self.pl.dissolved += 1
            self.pl.kept -= 1
            new_units.extend(self.pl._expand(self.pl._children(self.units[k], self.g.flat), self.g.flat))
        return self._replace(subs, new_units)
