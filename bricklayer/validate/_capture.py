"""Old name of :mod:`.capture` (captured parts); kept importable. Import from :mod:`.capture`."""

from __future__ import annotations

from .capture import CAPTURE_PLAY, CAPTURE_STEP, _DIRS, _first_hit, captured_edges  # noqa: F401

__all__ = ["CAPTURE_PLAY", "CAPTURE_STEP", "captured_edges"]
