"""Old name of :mod:`.catalog_checks` (faults of a placement itself); kept importable."""

from __future__ import annotations

from .catalog_checks import (DISTORTION_TOL, PlacementFault, _DUP_ROT, _names_index, _symmetric_key,  # noqa: F401
                             is_mirror_symmetric, mirror_part, placement_faults)

__all__ = ["DISTORTION_TOL", "PlacementFault", "placement_faults", "is_mirror_symmetric", "mirror_part"]
