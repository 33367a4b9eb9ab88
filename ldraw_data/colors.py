"""LDraw colours from ``LDConfig.ldr``.

Each ``0 !COLOUR name CODE c VALUE #RRGGBB EDGE #RRGGBB [ALPHA a]
[LUMINANCE l] [CHROME|PEARLESCENT|RUBBER|MATTE_METALLIC|METAL|MATERIAL ...]``
line (LDraw Colour Definition Language spec) becomes a :class:`ColorDef`.
Codes 16 (main colour, inherited) and 24 (edge colour) are the two special
codes of the LDraw spec; direct colours ``0x2RRGGBB`` are decoded by
:func:`color_rgb`.
"""

from __future__ import annotations

__all__ = ["ColorDef", "ColorTable", "parse_ldconfig", "get_color_table", "MAIN_COLOR", "EDGE_COLOR"]

import os
from dataclasses import dataclass
from functools import lru_cache

from .errors import LDrawFileNotFoundError, LDrawWarning
from .library import LDrawLibrary, get_library, read_ldraw_text
from .io.parse import DIRECT_COLOR_FLAG

#: Colour 16: "current colour", inherited from the referencing line (LDraw spec).
MAIN_COLOR = 16
#: Colour 24: "edge colour" of the current colour (LDraw spec).
EDGE_COLOR = 24

_FINISHES = ("CHROME", "PEARLESCENT", "RUBBER", "MATTE_METALLIC", "METAL", "MATERIAL")


@dataclass(frozen=True)
class ColorDef:
    """One LDraw colour.

    Attributes
    ----------
    code : int
    name : str
        As in LDConfig (``"Medium_Azure"``).
    rgb : (int, int, int)
        Face colour, 0-255.
    edge : (int, int, int)
        Edge colour, 0-255.
    alpha : int
        0 (invisible) to 255 (opaque); transparent colours are 128.
    finish : str
        ``""`` (solid), ``"CHROME"``, ``"PEARLESCENT"``, ``"RUBBER"``,
        ``"MATTE_METALLIC"``, ``"METAL"`` or ``"MATERIAL"``.
    luminance : int
    """

    code: int
    name: str
    rgb: tuple[int, int, int]
    edge: tuple[int, int, int]
    alpha: int = 255
    finish: str = ""
    luminance: int = 0

    @property
    def enum_name(self) -> str:
        """Name as a Python identifier in upper case (``"MEDIUM_AZURE"``)."""
        return "".join(ch if ch.isalnum() else "_" for ch in self.name).upper().strip("_")

    @property
    def is_transparent(self) -> bool:
        """True when alpha < 255."""
        return self.alpha < 255


def _hex_rgb(tok: str) -> tuple[int, int, int]:
    t = tok.lstrip("#")
    if t.lower().startswith("0x"):
        t = t[2:]
    t = t[-6:]
    return int(t[0:2], 16), int(t[2:4], 16), int(t[4:6], 16)


def parse_ldconfig(text: str, source: str = "LDConfig.ldr") -> tuple[dict[int, ColorDef], list[LDrawWarning]]:
    """Parse the ``!COLOUR`` lines of an LDConfig text.

    Returns
    -------
    (dict of int to ColorDef, list of LDrawWarning)
        Colours by code; malformed ``!COLOUR`` lines are warned and skipped.
    """
    colors: dict[int, ColorDef] = {}
    warns: list[LDrawWarning] = []
    for no, line in enumerate(text.splitlines(), 1):
        toks = line.split()
        if len(toks) < 3 or toks[0] != "0" or toks[1] != "!COLOUR":
            continue
        try:
            name = toks[2]
            kv = {toks[i].upper(): toks[i + 1] for i in range(3, len(toks) - 1)}
            code = int(kv["CODE"])
            rgb = _hex_rgb(kv["VALUE"])
            edge_tok = kv.get("EDGE", "#333333")
            edge = _hex_rgb(edge_tok) if edge_tok.startswith(("#", "0x")) else (0x33, 0x33, 0x33)
            alpha = int(kv.get("ALPHA", 255))
            lum = int(kv.get("LUMINANCE", 0))
        except (KeyError, ValueError, IndexError):
            warns.append(LDrawWarning(source, no, "malformed !COLOUR line; skipped"))
            continue
        finish = next((t.upper() for t in toks[3:] if t.upper() in _FINISHES), "")
        colors[code] = ColorDef(code, name, rgb, edge, alpha, finish, lum)
    return colors, warns


class ColorTable:
    """The colours of a library, by code and by name.

    Parameters
    ----------
    colors : dict of int to ColorDef
    """

    def __init__(self, colors: dict[int, ColorDef]):
        self.by_code = dict(colors)
        self.by_name = {c.enum_name: c for c in colors.values()}

    def __len__(self) -> int:
        return len(self.by_code)

    def __contains__(self, code: object) -> bool:
        return code in self.by_code or (isinstance(code, int) and code >= DIRECT_COLOR_FLAG)

    def get(self, code: int) -> ColorDef | None:
        """Definition of a code; direct colours get a synthetic definition; None if unknown."""
        if code in self.by_code:
            return self.by_code[code]
        if code >= DIRECT_COLOR_FLAG:
            rgb = ((code >> 16) & 255, (code >> 8) & 255, code & 255)
            return ColorDef(code, f"Direct_{code & 0xFFFFFF:06X}", rgb, (0x33, 0x33, 0x33))
        return None

    def rgba(self, code: int, default: tuple[int, int, int, int] = (128, 128, 128, 255)) -> tuple[int, int, int, int]:
        """(r, g, b, a) 0-255 of a code, ``default`` for an unknown code."""
        c = self.get(code)
        return (*c.rgb, c.alpha) if c else default

    def name(self, code: int) -> str:
        """Human name of a code (``"Red"``), or ``"#<code>"`` for an unknown one."""
        c = self.get(code)
        return c.name.replace("_", " ") if c else f"#{code}"


@lru_cache(maxsize=8)
def _table_for(path: str, mtime: int) -> ColorTable:
    with open(path, "rb") as fh:
        colors, _ = parse_ldconfig(read_ldraw_text(fh.read()), path)
    return ColorTable(colors)


def get_color_table(library: LDrawLibrary | None = None) -> ColorTable:
    """Colour table of a library's ``LDConfig.ldr`` (cached per file version).

    Raises
    ------
    LibraryNotFoundError
        When no library is given and none is installed.
    LDrawFileNotFoundError
        When the library has no ``LDConfig.ldr`` (also a ``FileNotFoundError``).
    """
    lib = library or get_library()
    path = lib.ldconfig_path
    if path is None:
        raise LDrawFileNotFoundError(str(lib.root), None, "no LDConfig.ldr; reinstall the LDraw library")
    return _table_for(str(path), os.stat(path).st_mtime_ns)
