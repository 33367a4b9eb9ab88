"""Dissolving a stuck sub-build: its placements are planned one by one in the parent."""

from __future__ import annotations

from ..plan import is_sub_build

__all__ = ["DissolveSubBuild"]


class DissolveSubBuild:
    """A sub-build (an LDraw submodel) kept together can be inserted only whole, along one line. When one is
    stuck (blocked, or holding up others), the builder does not make it apart: it is dissolved, its
    placements planned one by one in the parent (nested sub-builds that can still be kept stay whole)."""

    name = "dissolve"

    def apply(self, search, left: list, why: dict, removed: list, failed: dict) -> list | None:
        subs = [k for k in left if is_sub_build(search.units[k].content) and len(search.parts[k]) > 1]
        if not subs:
            return None
        new_units = []
        for k in subs:
            search.pl.dissolved += 1
            search.pl.kept -= 1
            flat = search.g.flat
            new_units.extend(search.pl.expand_sub_builds(search.pl.sub_build_units(search.units[k], flat), flat))
        return search.replace_units(subs, new_units)
