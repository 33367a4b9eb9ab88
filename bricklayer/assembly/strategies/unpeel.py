"""Taking apart what a peel left when it is still stuck."""

from __future__ import annotations

__all__ = ["TakeApartPeeled"]


class TakeApartPeeled:
    """A unit left by a peel (what remains of a sub-build, or its peeled piece, built in hand) that is still
    stuck is taken apart into its parts and nested sub-builds before any part is given up."""

    name = "take_apart_peeled"

    def apply(self, search, left: list, why: dict, removed: list, failed: dict) -> list | None:
        peeled = [k for k in left if search.units[k].peeled and search.units[k].sub is not None]
        if not peeled:
            return None
        return search.replace_units(peeled, [v for k in peeled for v in search.units_taken_apart(search.units[k])])
