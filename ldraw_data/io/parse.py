"""Pure LDraw parsing: text to records (no file system, no library).

Covers the LDraw File Format spec 1.0.2 line types 0-5, the MPD extension
(``0 FILE`` / ``0 NOFILE``), the BFC extension 0.2 (``CERTIFY``, ``CW``/``CCW``,
``NOCLIP``/``CLIP``, ``INVERTNEXT``), file headers (``0 Name:``,
``0 Author:``, ``0 !LDRAW_ORG``, ``0 !CATEGORY``, ``0 !KEYWORDS``), ``0 STEP``
and direct colours ``0x2RRGGBB``. Malformed lines are skipped with an
:class:`~ldraw_data.errors.LDrawWarning` naming the file and line; nothing
else is dropped.
"""

from __future__ import annotations

__all__ = [
    "SubfileRef",
    "Geometry",
    "Meta",
    "LDrawFile",
    "LDrawDocument",
    "parse_color",
    "parse_file",
    "parse_document",
    "DIRECT_COLOR_FLAG",
]

import math
import re
from dataclasses import dataclass, field

import numpy as np

from ..errors import LDrawWarning
from ..library import normalize_name

#: Direct colours are written ``0x2RRGGBB`` (LDraw spec 1.0.2, "Colours");
#: parsed codes keep that value as an int, so ``code >= DIRECT_COLOR_FLAG``
#: marks a direct colour and ``code & 0xFFFFFF`` is its RGB.
DIRECT_COLOR_FLAG = 0x2000000


def parse_color(token: str) -> int:
    """Colour code of a colour token.

    Parameters
    ----------
    token : str
        A decimal code (``"4"``), or a direct colour ``"0x2RRGGBB"`` /
        ``"#2RRGGBB"`` (LDraw spec 1.0.2).

    Returns
    -------
    int
        The code; direct colours are returned as the integer ``0x2RRGGBB``.

    Raises
    ------
    ValueError
        When the token is neither.
    """
    t = token.strip()
    if t[:2].lower() == "0x":
        return int(t[2:], 16)
    if t[:1] == "#":
        return int(t[1:], 16)
    return int(t)


@dataclass(slots=True)
class SubfileRef:
    """A type-1 line: a reference to a part, primitive or submodel.

    Attributes
    ----------
    line : int
        1-based line number in the physical file.
    color : int
        Colour code (16 = inherit, 24 = edge colour, ``0x2RRGGBB`` direct).
    transform : (4, 4) float64 ndarray, LDU
        ``[[a b c x] [d e f y] [g h i z] [0 0 0 1]]`` exactly as written
        (rounded rotations, mirrors and singular matrices are kept).
    name : str
        The reference as written (spaces kept).
    invert : bool
        True when the previous statement was ``0 BFC INVERTNEXT``.
    """

    line: int
    color: int
    transform: np.ndarray
    name: str
    invert: bool = False

    @property
    def key(self) -> str:
        """Normalized reference name (see :func:`~ldraw_data.library.normalize_name`)."""
        return normalize_name(self.name)


@dataclass(slots=True)
class Geometry:
    """A type-2 (line), 3 (triangle), 4 (quad) or 5 (optional line) line.

    Attributes
    ----------
    line : int
        1-based line number.
    kind : int
        The line type, 2 to 5.
    color : int
        Colour code.
    coords : tuple of float, LDU
        The 6, 9, 12 or 12 coordinates as written (x1 y1 z1 x2 ...); type 5
        holds two line ends then two control points. Kept as a tuple so that
        mesh building converts whole files to arrays in one go.
    """

    line: int
    kind: int
    color: int
    coords: tuple

    @property
    def points(self) -> np.ndarray:
        """(k, 3) float64 points, LDU."""
        return np.array(self.coords, dtype=np.float64).reshape(-1, 3)


@dataclass(slots=True)
class Meta:
    """A type-0 line kept for its meaning: ``BFC``, ``STEP`` or other meta.

    Attributes
    ----------
    line : int
        1-based line number.
    command : str
        ``"BFC"``, ``"STEP"`` or the first word of any other meta (upper case).
    args : str
        The rest of the line (for BFC the upper-cased options, e.g. ``"CERTIFY CCW"``).
    """

    line: int
    command: str
    args: str


@dataclass
class LDrawFile:
    """One LDraw file: a stand-alone file or one ``0 FILE`` block of an MPD.

    Attributes
    ----------
    name : str
        ``0 FILE`` name, else ``0 Name:``, else the source name.
    title : str
        First line's description (``"Brick  2 x  4"``).
    header_name : str
        Value of ``0 Name:`` ("" when absent).
    author : str
    ldraw_org : str
        Value of ``0 !LDRAW_ORG`` (``"Part UPDATE 2004-03"``, ``"Model"``, ...).
    category : str
        ``0 !CATEGORY`` value ("" when absent).
    keywords : list of str
        All ``0 !KEYWORDS`` entries, split at commas.
    bfc_certified : bool or None
        True for ``0 BFC CERTIFY``, False for ``0 BFC NOCERTIFY``, None when unstated.
    bfc_winding : str
        ``"CCW"`` (default) or ``"CW"`` from the certify line.
    items : list
        :class:`SubfileRef`, :class:`Geometry` and :class:`Meta` records in file order.
    first_line : int
        Physical line number of the block's first line (its ``0 FILE`` line in an MPD).
    source : str
        File name the block was read from.
    """

    name: str
    source: str = ""
    title: str = ""
    header_name: str = ""
    author: str = ""
    ldraw_org: str = ""
    category: str = ""
    keywords: list[str] = field(default_factory=list)
    bfc_certified: bool | None = None
    bfc_winding: str = "CCW"
    items: list = field(default_factory=list)
    first_line: int = 1

    @property
    def key(self) -> str:
        """Normalized name."""
        return normalize_name(self.name)

    @property
    def refs(self) -> list[SubfileRef]:
        """The type-1 lines, in order."""
        return [it for it in self.items if isinstance(it, SubfileRef)]

    @property
    def moved_to(self) -> str | None:
        """Target id of a ``~Moved to NNNN`` stub, else None (LDraw library convention)."""
        m = re.match(r"~moved\s+to\s+(\S+)", self.title.strip(), re.I)
        return m.group(1) if m else None

    @property
    def is_alias(self) -> bool:
        """True for ``Part Alias`` / ``Shortcut Alias`` files (LDraw org types)."""
        return "alias" in self.ldraw_org.lower()

    @property
    def is_part_like(self) -> bool:
        """True when the header says this block is a part, subpart, primitive or shortcut.

        Used to tell an MPD-embedded ``.dat`` (a sticker, a custom part, a bent
        hose) from a submodel: ``!LDRAW_ORG`` decides; without it, a ``.dat``
        name means a part (MPD convention), anything else a submodel. The
        first block of an MPD is the main model whatever its name: use
        :meth:`LDrawDocument.is_submodel` to decide for a block of a document.
        """
        org = self.ldraw_org.lower()
        if org:
            return not ("model" in org and "part" not in org)
        return self.key.endswith(".dat")


@dataclass
class LDrawDocument:
    """A parsed file: its blocks (one, or several for an MPD) and warnings.

    Attributes
    ----------
    source : str
        The file name it came from.
    files : list of LDrawFile
        Blocks in file order; ``files[0]`` is the main model.
    warnings : list of LDrawWarning
    skipped_refs : list of LDrawWarning
        The type-1 lines (part or submodel references) that could not be read
        and were skipped (too few fields, a non-numeric or non-finite field):
        a subset of ``warnings``, in file order. A model with one of these is
        missing a part its author placed.
    """

    source: str
    files: list[LDrawFile]
    warnings: list[LDrawWarning] = field(default_factory=list)
    skipped_refs: list[LDrawWarning] = field(default_factory=list)
    #: ``0 !DATA`` blocks of an MPD (MPD spec revision 2: binary files such as textures, base64 in
    #: ``0 !:`` lines): ``(name, first line, [the block's lines])``, the ``0 !DATA`` line not included.
    data_blocks: list[tuple[str, int, list[str]]] = field(default_factory=list)

    @property
    def main(self) -> LDrawFile:
        """The first block (the model an MPD shows)."""
        return self.files[0]

    @property
    def is_mpd(self) -> bool:
        """True when the text had ``0 FILE`` blocks."""
        return self._mpd

    _mpd: bool = False

    def is_submodel(self, block: LDrawFile) -> bool:
        """True when ``block`` is walked as a submodel, False when it is one part.

        The first block is the main model (MPD spec), whatever its name:
        official models call it e.g. ``"6907 Sonic Stinger.dat"`` with no
        ``!LDRAW_ORG``; it is a part only when its ``!LDRAW_ORG`` says so.
        Any other block follows :attr:`LDrawFile.is_part_like`.

        Parameters
        ----------
        block : LDrawFile
            One of :attr:`files`.
        """
        if self.files and block is self.files[0]:
            return not (block.ldraw_org and block.is_part_like)
        return not block.is_part_like

    def block(self, name: str) -> LDrawFile | None:
        """The embedded block called ``name`` (case and separator insensitive), or None."""
        return self.blocks_by_key.get(normalize_name(name))

    @property
    def blocks_by_key(self) -> dict[str, LDrawFile]:
        """Blocks by normalized name; the first of duplicate names wins (as LDraw viewers do)."""
        out: dict[str, LDrawFile] = {}
        for f in self.files:
            out.setdefault(f.key, f)
        return out


_NUM_TOKENS = {1: 15, 2: 8, 3: 11, 4: 14, 5: 14}


def _header(f: LDrawFile, body: str, is_first: bool) -> None:
    """Fill header fields from one type-0 line's body.

    The title is the first line's text only (LDraw spec 1.0.2, "File Header");
    a file that opens with ``0 Name:`` or a tool meta has no title.
    """
    low = body.lower()
    if low.startswith("name:"):
        f.header_name = body[5:].strip()
    elif low.startswith("author:"):
        f.author = body[7:].strip()
    elif body.startswith("!LDRAW_ORG"):
        f.ldraw_org = body[10:].strip()
    elif body.startswith("!CATEGORY"):
        f.category = body[9:].strip()
    elif body.startswith("!KEYWORDS"):
        f.keywords.extend(k.strip() for k in body[9:].split(",") if k.strip())
    elif is_first:
        f.title = body.strip()


def parse_file(
    lines: list[str], name: str, *, source: str | None = None, first_line: int = 1,
    warnings: list[LDrawWarning] | None = None, skipped_refs: list[LDrawWarning] | None = None,
) -> LDrawFile:
    """Parse the lines of one LDraw file (or MPD block).

    Parameters
    ----------
    lines : list of str
        The file's lines without line endings.
    name : str
        Its name (``0 FILE`` name or file name).
    source : str, optional
        File name used in warnings (defaults to ``name``).
    first_line : int
        Physical line number of ``lines[0]`` (for MPD blocks).
    warnings : list, optional
        Warnings are appended here.
    skipped_refs : list, optional
        The warning of each type-1 line that could not be read (and was
        skipped) is also appended here (see :attr:`LDrawDocument.skipped_refs`).

    Returns
    -------
    LDrawFile
    """
    src = source or name
    warns = warnings if warnings is not None else []
    skipped = skipped_refs if skipped_refs is not None else []

    def skip(line_no: int, lt: int, message: str) -> None:
        w = LDrawWarning(src, line_no, message)
        warns.append(w)
        if lt == 1:
            skipped.append(w)
    f = LDrawFile(name=name, source=src, first_line=first_line)
    items = f.items
    invert_next = False
    seen_other = False
    seen_any = False
    for offset, raw in enumerate(lines):
        line_no = first_line + offset
        s = raw.strip()
        if not s:
            continue
        is_first, seen_any = not seen_any, True
        kind = s[0]
        if kind == "0":
            body = s[1:].strip()
            if not body:
                continue
            first = body.split(None, 1)
            word = first[0].upper()
            rest = first[1] if len(first) > 1 else ""
            if word == "BFC":
                opts = rest.upper().split()
                if "CERTIFY" in opts:
                    f.bfc_certified = True
                    if "CW" in opts:
                        f.bfc_winding = "CW"
                elif "NOCERTIFY" in opts:
                    f.bfc_certified = False
                if "INVERTNEXT" in opts:
                    invert_next = True
                items.append(Meta(line_no, "BFC", " ".join(opts)))
                continue
            if word == "STEP":
                items.append(Meta(line_no, "STEP", rest))
                continue
            if word in ("FILE", "NOFILE"):
                continue
            if not seen_other or word.startswith("!") or word.endswith(":"):
                _header(f, body, is_first)
            if word.startswith("!") and word not in ("!LDRAW_ORG", "!CATEGORY", "!KEYWORDS", "!LICENSE",
                                                      "!HISTORY", "!HELP", "!CMDLINE"):
                items.append(Meta(line_no, word, rest))
            continue
        seen_other = True
        if kind not in "12345" or (len(s) > 1 and not s[1].isspace()):
            warns.append(LDrawWarning(src, line_no, f"unknown line type {s.split()[0]!r}; line skipped"))
            continue
        lt = int(kind)
        toks = s.split()
        need = _NUM_TOKENS[lt]
        if len(toks) < need:
            skip(line_no, lt, f"type-{lt} line has {len(toks)} fields, needs {need}; line skipped")
            invert_next = False
            continue
        try:
            color = parse_color(toks[1])
            nums = [float(t) for t in toks[2:need - (1 if lt == 1 else 0)]]
        except ValueError:
            skip(line_no, lt, f"type-{lt} line has a non-numeric field; line skipped")
            invert_next = False
            continue
        if not all(map(math.isfinite, nums)):
            bad = next(t for t, v in zip(toks[2:], nums) if not math.isfinite(v))
            skip(line_no, lt, f"type-{lt} line has a non-finite number ({bad}); line skipped")
            invert_next = False
            continue
        if lt == 1:
            m = np.array((nums[3:6] + [nums[0]], nums[6:9] + [nums[1]], nums[9:12] + [nums[2]],
                          (0.0, 0.0, 0.0, 1.0)), dtype=np.float64)
            # a name may contain spaces: everything after the 14th field
            ref_name = s.split(None, 14)[14].strip()
            items.append(SubfileRef(line_no, color, m, ref_name, invert_next))
            invert_next = False
        else:
            if len(toks) > need:
                warns.append(LDrawWarning(src, line_no, f"type-{lt} line has {len(toks) - need} extra field(s); ignored"))
            items.append(Geometry(line_no, lt, color, tuple(nums)))
            invert_next = False
    if not f.name and f.header_name:
        f.name = f.header_name
    return f


def parse_document(text: str, source: str = "<text>") -> LDrawDocument:
    """Parse a ``.dat``, ``.ldr`` or ``.mpd`` text.

    Parameters
    ----------
    text : str
        File contents (CRLF, LF or CR line ends; a leading BOM is ignored).
    source : str
        File name, used as the single block's name when there is no
        ``0 FILE`` line, and in warnings.

    Returns
    -------
    LDrawDocument
        One block per ``0 FILE`` (MPD spec: a block ends at the next
        ``0 FILE``, at ``0 NOFILE`` or at the end); text outside any block
        after a ``0 NOFILE`` is ignored with a warning.
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.splitlines()
    warnings: list[LDrawWarning] = []
    skipped: list[LDrawWarning] = []
    starts, data_starts = [], []
    for i, ln in enumerate(lines):
        st = ln.lstrip()
        if st.startswith("0") and st[1:2].isspace():
            body = st[1:].strip()
            if body[:4].upper() == "FILE" and (len(body) == 4 or body[4].isspace()):
                starts.append((i, body[4:].strip()))
            elif body[:5].upper() == "!DATA" and (len(body) == 5 or body[5].isspace()):
                data_starts.append((i, body[5:].strip()))
    # MPD spec revision 2: a block starts at 0 FILE or 0 !DATA (binary data in 0 !: lines); a !DATA
    # line in a file with no 0 FILE block is no MPD block (left as a meta line of the file)
    data_lines = {i for i, _n in data_starts} if starts else set()
    bounds = sorted([i for i, _n in starts] + sorted(data_lines))
    source_name = source.replace("\\", "/").rsplit("/", 1)[-1]
    if not starts:
        f = parse_file(lines, source_name, source=source_name, warnings=warnings, skipped_refs=skipped)
        doc = LDrawDocument(source_name, [f], warnings, skipped)
        return doc
    files = []
    if any(ln.strip() and not ln.strip().startswith("0") for ln in lines[: starts[0][0]]):
        warnings.append(LDrawWarning(source_name, 1, "lines before the first 0 FILE are ignored (MPD spec)"))
    def block_end(i: int) -> int:
        later = [b for b in bounds if b > i]
        return later[0] if later else len(lines)

    data_blocks = []
    for i, name in data_starts:
        if i not in data_lines:
            continue
        block = lines[i + 1 : block_end(i)]
        for j, ln in enumerate(block):
            if ln.strip()[:1] == "0" and ln.strip()[1:].strip().upper() == "NOFILE":
                block = block[:j]
                break
        data_blocks.append((name or f"unnamed-{i + 1}.png", i + 1, [ln.rstrip() for ln in block]))
    for k, (i, name) in enumerate(starts):
        end = block_end(i)
        block = lines[i + 1 : end]
        for j, ln in enumerate(block):
            st = ln.strip()
            if st.startswith("0") and st[1:].strip().upper() == "NOFILE":
                rest = block[j + 1 :]
                if any(r.strip() for r in rest):
                    warnings.append(LDrawWarning(source_name, i + 2 + j, "text after 0 NOFILE outside any 0 FILE block is ignored"))
                block = block[:j]
                break
        if not name:
            warnings.append(LDrawWarning(source_name, i + 1, "0 FILE line without a name; block named after its line"))
            name = f"unnamed-{i + 1}.ldr"
        files.append(parse_file(block, name, source=source_name, first_line=i + 2, warnings=warnings,
                                skipped_refs=skipped))
        files[-1].first_line = i + 1
    doc = LDrawDocument(source_name, files, warnings, skipped, data_blocks)
    doc._mpd = True
    return doc
