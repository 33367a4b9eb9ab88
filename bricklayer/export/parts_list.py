"""Parts lists: how many of each part in each colour a build takes, and marketplace import files.

Rows are counted over ``build.flattened_placements`` (every part placement,
nested submodels expanded with their multiplicity and colour 16 inherited, as
LDraw spec 1.0.2 says). Each row says what kind of thing it is
(:data:`KINDS`); what is done with stickers, prints, shortcuts and embedded
parts is decided here and documented in docs/export.md:

* ``part``: a library part (``parts/`` file listed in the catalog);
* ``printed``: a library part with a print (LDraw ``p``-suffixed id); it is a
  real element, kept under its LDraw id;
* ``sticker``: a library sticker (category ``Sticker``); stickers come on a
  sheet sold with a set, not one by one;
* ``assembly``: an LDraw shortcut (``!LDRAW_ORG Shortcut``), several real
  parts in one file (a hinge with its top, a wheel with its tyre); listed as
  one row, not split;
* ``embedded``: a part defined inside the model file (a bent hose, a custom
  sticker); its name is the first line of its block;
* ``primitive``, ``sub-part``: a library primitive (``p/``) or sub-part (``parts/s/``)
  placed as a part (``validate``: NOT A PART); drawn, not a part you can buy.
* ``unknown``: neither in the library nor embedded.

Marketplace formats (the sources are in docs/export.md):

* ``rebrickable-csv``: Rebrickable's parts-list import, header
  ``Part,Color,Quantity``; Color is a Rebrickable colour id.
* ``bricklink-xml``: BrickLink's XML (``<INVENTORY><ITEM><ITEMTYPE>P
  </ITEMTYPE><ITEMID>..</ITEMID><COLOR>..</COLOR><MINQTY>..</MINQTY>
  </ITEM>...``), as its Wanted List upload reads; COLOR is a BrickLink colour
  id from BrickLink's Color Guide.

Neither marketplace uses LDraw colour codes, and no table from LDraw colour
codes to their colour ids ships with LDraw (LDConfig.ldr gives LEGO's own
colour numbers in comments, not BrickLink's or Rebrickable's) or with this
project. So these formats need a colour table from the user (``color_map``:
a CSV of ``ldraw_code,id``); colours missing from it are not guessed: their
rows are left out and reported. Part ids are written as LDraw ids (the
marketplaces' numbers are the same for most moulds but not all; a
``part_map`` CSV of ``ldraw_id,id`` replaces them). Stickers, embedded and
unknown parts are left out of the marketplace files and reported.
"""

from __future__ import annotations

__all__ = ["PartsListRow", "PartsListFile", "parts_list", "parts_list_text", "write_parts_list",
           "read_id_map", "KINDS", "FORMATS"]

import csv
import io
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from xml.sax.saxutils import escape
from ..errors import BrickLayerTypeError, BrickLayerValueError, InputNotFoundError

#: Row kinds, see the module docstring.
KINDS = ("part", "printed", "sticker", "assembly", "embedded", "primitive", "sub-part", "unknown")
#: Output formats.
FORMATS = ("csv", "rebrickable-csv", "bricklink-xml")
#: Kinds a marketplace file may hold.
_MARKET_KINDS = ("part", "printed", "assembly")


@dataclass(frozen=True)
class PartsListRow:
    """One part in one colour.

    Attributes
    ----------
    part_id : str
        LDraw id without ``.dat`` (``"3001"``).
    name : str
        Catalog name (``"Brick 2 x 4"``), or the embedded block's title.
    color : int
        LDraw colour code (``LDConfig.ldr``).
    color_name : str
        LDConfig name with spaces (``"Light Bluish Grey"``).
    quantity : int
    kind : str
        One of :data:`KINDS`.
    """

    part_id: str
    name: str
    color: int
    color_name: str
    quantity: int
    kind: str

    def to_dict(self) -> dict:
        """JSON-ready dict."""
        return asdict(self)


def _embedded_titles(build) -> dict[str, str]:
    out: dict[str, str] = {}
    seen = set()

    def walk(b):
        if id(b) in seen:
            return
        seen.add(id(b))
        for key, (_name, body) in getattr(b, "embedded_files", {}).items():
            first = next((ln for ln in body.splitlines() if ln.strip()), "0 ")
            title = first[2:].strip() if first.startswith("0") else key
            out[key.lower().removesuffix(".dat")] = title.lstrip("~") or key
        for p in b.placements:
            if hasattr(p.content, "placements"):
                walk(p.content)

    walk(build)
    return out


def parts_list(build, library=None) -> list[PartsListRow]:
    """Count the parts of a build by part id and colour.

    Parameters
    ----------
    build : LegoBuild
        Nested builds are expanded (each placement of a sub-build counts its parts again).
    library : LDrawLibrary, optional

    Returns
    -------
    list of PartsListRow
        Most used first, then by part id and colour code.

    Raises
    ------
    TypeError
        When ``build`` is not a LegoBuild.
    """
    from ldraw_data.catalog import get_catalog
    from ldraw_data.colors import get_color_table

    from ..build import LegoBuild
    from ..validate._world import not_part_kind

    if not isinstance(build, LegoBuild):
        raise BrickLayerTypeError(f"parts_list needs a LegoBuild, got {type(build).__name__}")
    cat = get_catalog(library)
    table = get_color_table(library)
    embedded = _embedded_titles(build)
    counts = Counter((p.content.ldraw_id, int(p.content.color)) for p in build.flattened_placements)
    rows = []
    for (pid, code), n in counts.items():
        key = pid.lower()
        if key in embedded:  # a block redefining a catalog part keeps the catalog name, as validate says
            kind, name = "embedded", cat.get(pid).name if pid in cat else embedded[key]
        elif pid in cat:
            s = cat.get(pid)
            name = s.name
            kind = ("sticker" if s.category == "Sticker" else "assembly" if s.is_shortcut
                    else "printed" if s.is_printed else "part")
        else:  # a library primitive or sub-part placed as a part (validate: NOT A PART), or not in the library
            kind, name = not_part_kind(pid) or "unknown", pid
        rows.append(PartsListRow(pid, name, code, table.name(code), n, kind))
    rows.sort(key=lambda r: (-r.quantity, r.part_id, r.color))
    return rows


def read_id_map(path, what: str) -> dict[str, str]:
    """Read a two-column CSV (``ldraw,<marketplace id>``; a header row is allowed) into a dict.

    Parameters
    ----------
    path : path
    what : str
        ``"colour"`` or ``"part"``, for error messages.

    Returns
    -------
    dict of str to str
        LDraw id/code (lower case, no ``.dat``) -> marketplace id.

    Raises
    ------
    FileNotFoundError
        When the file does not exist.
    ValueError
        When a row does not have two non-empty columns, the file holds no row after its header (or none at
        all), or the file is not UTF-8 text (names the file and line; CSV files are read as UTF-8, a
        byte-order mark allowed).
    """
    p = Path(path)
    if not p.is_file():
        raise InputNotFoundError(f"{p}: no such {what} table")
    raw = p.read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        raise BrickLayerValueError(
            f"{p} line {line}: the {what} table is not UTF-8 text (byte 0x{raw[exc.start]:02X} at offset "
            f"{exc.start}); save it as UTF-8 (CSV UTF-8 in a spreadsheet)") from None
    out: dict[str, str] = {}
    header = None  # (line, row) of the header row skipped
    with io.StringIO(text, newline="") as fh:
        for no, row in enumerate(csv.reader(fh), 1):
            if not row or not "".join(row).strip() or row[0].lstrip().startswith("#"):
                continue
            if len(row) < 2 or not row[0].strip() or not row[1].strip():
                raise BrickLayerValueError(f"{p} line {no}: a {what} table row is 'ldraw,marketplace id', got {row!r}")
            k, v = row[0].strip().lower().removesuffix(".dat"), row[1].strip()
            if not out and header is None and (
                    not k.isdigit() if what == "colour" else k in ("ldraw", "ldraw_id", "part", "part_id")):
                header = (no, row)
                continue  # header row
            if what == "colour" and not k.isdigit():
                raise BrickLayerValueError(f"{p} line {no}: {row[0]!r} is not an LDraw colour code (a whole number)")
            out[k] = v
    if not out:  # an empty table would read as "no table given" downstream: say what is wrong with this one
        eg = "4,4 (LDraw Red, 4 on Rebrickable)" if what == "colour" else "3001,3001"
        if header is not None:
            raise BrickLayerValueError(
                f"{p} line {header[0]}: the {what} table has no row: {','.join(header[1])!r} was taken as its "
                f"header{' (its first column is not an LDraw colour code)' if what == 'colour' else ''} and no "
                f"row follows; give one 'ldraw,marketplace id' row per {what}, e.g. {eg}")
        raise BrickLayerValueError(f"{p} line 1: the {what} table has no row (empty, or only comments); give one "
                                   f"'ldraw,marketplace id' row per {what}, e.g. {eg}")
    return out


@dataclass
class PartsListFile:
    """A parts list rendered in one format.

    Attributes
    ----------
    text : str
        The file content.
    rows_written : int
    left_out : list of (PartsListRow, str)
        Rows not written and why (no colour id in the table, a sticker, an embedded or unknown part).
    ids_as_ldraw : int
        Rows of a marketplace file whose part id is the LDraw id (not in ``part_map``).
    """

    text: str
    rows_written: int
    left_out: list = field(default_factory=list)
    ids_as_ldraw: int = 0


def parts_list_text(rows, fmt: str = "csv", *, color_map: dict | None = None,
                    part_map: dict | None = None) -> PartsListFile:
    """Render rows in a format (see the module docstring).

    Parameters
    ----------
    rows : list of PartsListRow
    fmt : {"csv", "rebrickable-csv", "bricklink-xml"}
    color_map : dict of str to str, optional
        LDraw colour code (as text) -> marketplace colour id; required by the marketplace formats.
    part_map : dict of str to str, optional
        LDraw part id (lower case) -> marketplace part id; others keep their LDraw id.

    Returns
    -------
    PartsListFile

    Raises
    ------
    ValueError
        Unknown format, or a marketplace format without ``color_map`` (the message says why and what to give).
    """
    if fmt not in FORMATS:
        raise BrickLayerValueError(f"unknown parts list format {fmt!r}; use one of {', '.join(FORMATS)}")
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["part_id", "name", "color", "color_name", "quantity", "kind"])
        for r in rows:
            w.writerow([r.part_id, r.name, r.color, r.color_name, r.quantity, r.kind])
        return PartsListFile(buf.getvalue(), len(rows))
    market = "Rebrickable" if fmt == "rebrickable-csv" else "BrickLink"
    if not color_map:
        raise BrickLayerValueError(
            f"{fmt} needs {market} colour ids, and LDraw colour codes are not {market} colour ids; no table "
            "from one to the other ships with LDraw or this toolkit. Give a CSV of 'ldraw_code,"
            f"{market.lower()}_id' rows (--color-map; docs/export.md says where to get one), or use --format csv")
    part_map = part_map or {}
    left: list = []
    kept: dict[tuple[str, str], int] = {}
    as_ldraw = 0
    for r in rows:
        if r.kind not in _MARKET_KINDS:
            left.append((r, f"{r.kind} part: no {market} item id"))
            continue
        cid = color_map.get(str(r.color))
        if cid is None:
            left.append((r, f"colour {r.color} ({r.color_name}) is not in the colour table"))
            continue
        pid = part_map.get(r.part_id.lower())
        if pid is None:
            pid = r.part_id
            as_ldraw += 1
        kept[(pid, cid)] = kept.get((pid, cid), 0) + r.quantity
    if fmt == "rebrickable-csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["Part", "Color", "Quantity"])
        for (pid, cid), n in kept.items():
            w.writerow([pid, cid, n])
        text = buf.getvalue()
    else:  # BrickLink XML: no XML declaration (BrickLink help "Creating an Inventory in BrickLink XML format")
        items = "".join(f"<ITEM><ITEMTYPE>P</ITEMTYPE><ITEMID>{escape(pid)}</ITEMID><COLOR>{escape(cid)}</COLOR>"
                        f"<MINQTY>{n}</MINQTY></ITEM>\n" for (pid, cid), n in kept.items())
        text = f"<INVENTORY>\n{items}</INVENTORY>\n"
    return PartsListFile(text, len(kept), left, as_ldraw)


def write_parts_list(build, path, fmt: str = "csv", *, color_map=None, part_map=None, overwrite: bool = False,
                     library=None) -> PartsListFile:
    """Write a build's parts list to a file, atomically.

    Parameters
    ----------
    build : LegoBuild
    path : path
    fmt : {"csv", "rebrickable-csv", "bricklink-xml"}
    color_map, part_map : dict or path, optional
        Tables for the marketplace formats (a dict, or a CSV path read with :func:`read_id_map`).
    overwrite : bool
        Replace an existing file (default False: FileExistsError).
    library : LDrawLibrary, optional

    Returns
    -------
    PartsListFile

    Raises
    ------
    FileExistsError, ValueError, FileNotFoundError
    """
    from ldraw_data.fileio import atomic_write

    from ldraw_data.fileio import check_output_file

    p = check_output_file(path, overwrite)
    if color_map is not None and not isinstance(color_map, dict):
        color_map = read_id_map(color_map, "colour")
    if part_map is not None and not isinstance(part_map, dict):
        part_map = read_id_map(part_map, "part")
    res = parts_list_text(parts_list(build, library), fmt, color_map=color_map, part_map=part_map)
    atomic_write(p, res.text, replace=overwrite)  # a racing writer's file is kept
    return res
