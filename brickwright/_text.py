"""Old home of :func:`ldraw_data.text.clean_text` (moved below, where the validator's report uses it)."""

from __future__ import annotations

__all__ = ["clean_text"]

from ldraw_data.text import clean_text
