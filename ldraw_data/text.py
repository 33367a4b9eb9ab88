"""Text from untrusted sources made safe to print and to show a model.

Names, messages and printed output can come from a model's code or from an LDraw file. Before the toolkit
prints them, terminal escape sequences and control characters are removed, so such text cannot move the
cursor, erase lines or reorder what a terminal shows (a forged ``-> VALID`` line): ECMA-48 CSI/OSC sequences,
C0 and C1 controls (except newline and tab), Unicode line and paragraph separators, bidirectional overrides
and isolates (Unicode Bidirectional Algorithm, UAX #9) and zero-width characters.
"""

from __future__ import annotations

__all__ = ["clean_text", "count_of", "short_id", "ID_SHOWN_CHARS", "NAME_SHOWN_CHARS"]

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


def count_of(n: int, noun: str, plural: str | None = None) -> str:
    """``"1 colliding pair"``, ``"2 colliding pairs"``: ``n`` with ``noun`` in the singular for exactly one.

    Parameters
    ----------
    n : int
    noun : str
        The singular, e.g. ``"colliding pair"``.
    plural : str, optional
        The plural when it is not ``noun + "s"``.
    """
    return f"{n} {noun if n == 1 else (plural or noun + 's')}"


#: Characters of a part id (or file name) a message shows before cutting it (:func:`short_id`). Part ids of the
#: installed LDraw library are at most 12 characters (``u9328ap02c01``; counted over the catalog), so only a
#: malformed or hostile id is ever cut.
ID_SHOWN_CHARS = 60
#: Characters of a part name (the title line of its file) a message shows: the longest title of the installed
#: library has 159 (``14397p02c01``), so real names are never cut; an unknown part's name is its id.
NAME_SHOWN_CHARS = 200


def short_id(text: Any, limit: int = ID_SHOWN_CHARS) -> str:
    """A part id or name cut for a message: ``text`` unchanged when at most ``limit`` characters, else its first
    ``limit`` characters, ``...`` and the full length, e.g. ``"xxxx...(5004 characters)"``, so a 5,000-character
    id on a type-1 line does not fill the screen while the message still cites its file and line.

    Parameters
    ----------
    text : any
        Converted with ``str``.
    limit : int
        Characters kept, :data:`ID_SHOWN_CHARS` (60) by default.

    Returns
    -------
    str
    """
    s = str(text)
    return s if len(s) <= limit else f"{s[:limit]}...({len(s)} characters)"
