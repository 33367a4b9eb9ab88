"""Colours: the :class:`Color` enum of named LDraw colours and :class:`LDrawColor`.

Member names come from the ``!COLOUR`` lines of the installed library's
``LDConfig.ldr`` (``Medium_Azure`` becomes ``Color.MEDIUM_AZURE``), values
are the LDraw colour codes. When no library is installed yet, the names come
from a snapshot of LDConfig shipped in ``ldraw_data/data/colors.json``, so
that scripts can be imported and checked before the library is installed.
"""

from __future__ import annotations

__all__ = ["Color", "LDrawColor", "as_color"]

import enum
import json
from importlib.resources import files
from .errors import BrickLayerValueError


def _color_rows() -> list[tuple[int, str]]:
    try:
        from ldraw_data.colors import get_color_table

        table = get_color_table()
        return [(c.code, c.enum_name) for c in sorted(table.by_code.values(), key=lambda c: c.code)]
    except Exception:  # no library installed yet: shipped snapshot
        data = json.loads((files("ldraw_data") / "data" / "colors.json").read_text())
        rows = []
        for code, name, *_ in data["colors"]:
            rows.append((code, "".join(ch if ch.isalnum() else "_" for ch in name).upper().strip("_")))
        return rows


def _members() -> dict[str, int]:
    out: dict[str, int] = {}
    for code, name in _color_rows():
        if name and name[0].isdigit():
            name = "C_" + name
        out.setdefault(name, code)
    out.setdefault("MAIN_COLOUR", 16)
    out.setdefault("EDGE_COLOUR", 24)
    for name, code in list(out.items()):
        for alias in _spelling_aliases(name):
            out.setdefault(alias, code)
    return out


#: Other spellings of words in colour names: American "GRAY" for LDraw's "GREY" (BrickLink writes
#: "Light Bluish Gray", LDraw "Light_Bluish_Grey"), "COLOR" for "COLOUR", and back.
_SPELLINGS = (("GREY", "GRAY"), ("COLOUR", "COLOR"))


def _spelling_aliases(name: str) -> list[str]:
    """Names that differ from ``name`` only in the spelling of a word of :data:`_SPELLINGS`."""
    words = name.split("_")
    out = []
    for a, b in _SPELLINGS:
        for x, y in ((a, b), (b, a)):
            if x in words:
                out.append("_".join(y if w == x else w for w in words))
    return out


_KNOWN_CODES = frozenset(code for code, _ in _color_rows()) | {16, 24}

#: Named LDraw colours; ``Color.RED == 4``. Codes 16 (``MAIN_COLOUR``, inherit)
#: and 24 (``EDGE_COLOUR``) are the LDraw spec's special codes.
Color = enum.IntEnum("Color", _members(), module=__name__)
Color.__doc__ = (
    "Named LDraw colours from LDConfig.ldr (``Color.RED`` is code 4, ``Color.MEDIUM_AZURE`` 322). "
    "GREY and GRAY spell the same colour (``Color.LIGHT_BLUISH_GRAY`` is ``Color.LIGHT_BLUISH_GREY``, "
    "code 71, BrickLink's Light Bluish Gray; ``Color.DARK_BLUISH_GRAY`` is 72), as do COLOUR and COLOR. "
    "Use ``LDrawColor(code)`` for any other code, including direct colours ``0x2RRGGBB``."
)

#: ``Color.RED.code == 4``: the same attribute as ``LDrawColor.code``, so code written for either kind works.
Color.code = property(lambda self: int(self), doc="The LDraw colour code (``Color.RED.code == 4``).")


class LDrawColor(int):
    """Any LDraw colour code, named or not.

    Parameters
    ----------
    code : int or Color
        An LDConfig code, 16/24, or a direct colour ``0x2RRGGBB``.

    Raises
    ------
    ValueError
        For a negative code.

    Notes
    -----
    An ``int`` subclass: ``LDrawColor(4) == Color.RED`` and both hash alike.
    """

    def __new__(cls, code: int):
        c = int(code)
        if c < 0:
            raise BrickLayerValueError(f"colour codes are non-negative, got {code!r}")
        return super().__new__(cls, c)

    @property
    def code(self) -> int:
        """The colour code."""
        return int(self)

    @property
    def value(self) -> int:
        """The colour code, as ``Color.RED.value`` (so code written for either works)."""
        return int(self)

    @property
    def name(self) -> str:
        """``Color`` member name (``"RED"``), ``"DIRECT_RRGGBB"`` or ``"CODE_<n>"``."""
        try:
            return Color(int(self)).name
        except ValueError:
            if self >= 0x2000000:
                return f"DIRECT_{int(self) & 0xFFFFFF:06X}"
            return f"CODE_{int(self)}"

    def __repr__(self) -> str:
        try:
            return f"Color.{Color(int(self)).name}"
        except ValueError:
            return f"LDrawColor({int(self)})"


def as_color(c) -> LDrawColor:
    """Coerce a Color, LDrawColor, int or colour name (``"red"``, ``"Medium Azure"``) to :class:`LDrawColor`.

    Raises
    ------
    ValueError
        For an unknown name (with close names suggested) or a bad code.
    """
    if isinstance(c, LDrawColor):
        return c
    if isinstance(c, bool) or (isinstance(c, float) and not c.is_integer()):
        raise BrickLayerValueError(f"a colour is a Color member or an LDraw colour code, got {c!r}")
    if isinstance(c, str):
        key = "".join(ch if ch.isalnum() else "_" for ch in c.strip()).upper()
        if key in Color.__members__:
            return LDrawColor(Color[key])
        import difflib

        close = difflib.get_close_matches(key, list(Color.__members__), n=3)
        hint = f"; did you mean {', '.join('Color.' + n for n in close)}?" if close else ""
        raise BrickLayerValueError(f"unknown colour name {c!r}{hint}")
    try:
        code = int(c)
    except (TypeError, ValueError):
        raise BrickLayerValueError(f"a colour is a Color member (e.g. Color.RED), a code or a name, got {c!r}") from None
    if code < 0x2000000 and code not in _KNOWN_CODES:
        raise BrickLayerValueError(f"colour code {code} is not in LDConfig.ldr; use a Color member (e.g. Color.RED) "
                         "or a direct colour 0x2RRGGBB")
    return LDrawColor(code)
