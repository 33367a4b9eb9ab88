"""Text from untrusted sources made safe to print and to show a model.

Names, messages and printed output can come from a model's code or from an LDraw file. Before the toolkit
prints them, terminal escape sequences and control characters are removed, so such text cannot move the
cursor, erase lines or reorder what a terminal shows (a forged ``-> VALID`` line): ECMA-48 CSI/OSC sequences,
C0 and C1 controls (except newline and tab), Unicode line and paragraph separators, bidirectional overrides
and isolates (Unicode Bidirectional Algorithm, UAX #9) and zero-width characters.
"""

from __future__ import annotations

__all__ = ["clean_text"]

import re
from typing import Any

_CONTROL = re.compile(
    r"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"        # OSC ... BEL/ST
    r"|\x1b\[[0-?]*[ -/]*[@-~]"                  # CSI sequences
    r"|\x1b[@-_]?"                               # other ESC sequences
    r"|[\x00-\x08\x0b-\x1f\x7f-\x9f]"            # C0 (not \t \n) and C1 controls
    r"|[\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")  # zero-width, separators, bidi controls


def clean_text(text: Any, *, one_line: bool = False, limit: int | None = None) -> str:
    """``text`` as a string without terminal escapes or invisible control characters.

    Parameters
    ----------
    text : any
        Converted with ``str``.
    one_line : bool
        Also turn newlines and tabs into spaces (names, check names).
    limit : int, optional
        Keep at most this many characters.

    Returns
    -------
    str
    """
    out = _CONTROL.sub("", str(text))
    if one_line:
        out = out.replace("\n", " ").replace("\t", " ")
    return out[:limit] if limit else out
