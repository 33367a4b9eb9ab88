"""The part catalog: one :class:`PartSpec` per top-level part file.

The catalog is built from the *header* of every file of ``parts/`` (see
:meth:`~ldraw_data.library.LDrawLibrary.part_files`; ``parts/s/`` subparts and
``p/`` primitives are not parts). Only the meta lines before the first
drawing line are read (LDraw File Format spec 1.0.2 and the Official Library
Header Specification put the title, ``Name:``, ``Author:``, ``!LDRAW_ORG``,
``!CATEGORY`` and ``!KEYWORDS`` there). The result is cached on disk as
gzipped JSON in ``cache_dir()/catalog-<library fingerprint>.json.gz`` (rebuilt
when the library changes) and in memory per process. Beside it,
``catalog-<fingerprint>.rows`` holds the same records one JSON line each, after a
header line with the ids and the lines' byte ends: a process loads that index
(a few ms) and parses a record only when it is asked for (a model uses a few
hundred of the 20,000 parts; loading them all costs about 0.2 s and 26 MiB,
issue 16 "Speed").

Usage counts (``popularity``) come from the table shipped in
``ldraw_data/data/popularity.csv``: how often each part is placed in the
official LEGO set models after flattening (see :func:`build_popularity`).
"""

from __future__ import annotations

__all__ = [
    "PartSpec",
    "Catalog",
    "get_catalog",
    "build_catalog",
    "parse_header",
    "parse_dims",
    "normalize_part_id",
    "popularity",
    "build_popularity",
    "write_popularity",
    "CATALOG_FORMAT",
]

import collections
import collections.abc
import csv
import difflib
import gc
import gzip
import io
import json
import logging
import os
import re
import time
import zlib
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path
from typing import Iterable, Iterator

from .fileio import atomic_writer, discard_cache_file
from .errors import LDrawError, PartNotFoundError
from .library import LDrawLibrary, cache_dir, data_dir, get_library, normalize_name, read_ldraw_text
from .ranking import rank_parts
from .titles import parse_dims
from .errors import LDrawValueError

log = logging.getLogger(__name__)

#: Version of the on-disk catalog layout; a cache file of another version is rebuilt.
CATALOG_FORMAT = 2

#: Bytes read from the start of each part file. Headers are short: in the
#: 2024 library every ``!CATEGORY``/``!KEYWORDS`` line sits within the first
#: 2 kB except a few files with long ``!HELP`` blocks (6023.dat: line 26), so
#: 8 kB covers every header with room to spare; reading stops earlier at the
#: first drawing line.
HEADER_BYTES = 8192

#: Title prefixes with a meaning in the LDraw Official Library Header
#: Specification: ``~`` part not shown in part lists (obsolete, moved or
#: only to be used inside another part), ``_`` physical-colour part,
#: ``=`` alias, ``|`` (old) alias marker.
TITLE_PREFIXES = "~_=|"

# A printed/patterned variant id: base id, "p", 1-4 pattern characters,
# optional "cNN" assembly suffix (LDraw part numbering guidelines, e.g.
# 3001p01, 3626bp04, 3068bpx1, 973p1q, u9496p02c01).
_PATTERN_ID = re.compile(r"^[a-z]*\d+[a-z]{0,2}p[0-9a-z]{1,4}(?:c\d{2})?$")
_PRINT_WORDS = re.compile(r"\b(?:pattern(?:ed)?|print(?:ed)?|stickers?)\b", re.IGNORECASE)
_MOVED = re.compile(r"^~moved\s+to\s+(\S+)", re.IGNORECASE)

def normalize_part_id(name: str) -> str:
    """Catalog key of a part reference.

    Parameters
    ----------
    name : str
        ``"3001"``, ``"3001.dat"``, ``"3001.DAT"``, ``"parts\\3001.dat"``.

    Returns
    -------
    str
        Lower case, no folder, no ``.dat`` (``"3001"``). LDraw names are
        case-insensitive (LDraw File Format spec 1.0.2).
    """
    key = normalize_name(str(name))
    if key.startswith("parts/"):
        key = key[len("parts/") :]
    if key.endswith(".dat"):
        key = key[:-4]
    return key


@dataclass(frozen=True)
class PartSpec:
    """Catalog record of one part file.

    Attributes
    ----------
    part_id : str
        File name without ``.dat``, lower case (``"3001"``).
    title : str
        First line of the file without ``0 ``, as written (``"Brick  2 x  4"``).
    name : str
        Title with runs of blanks collapsed (``"Brick 2 x 4"``).
    category : str
        ``0 !CATEGORY`` value; else the first word of the title without its
        ``~ _ = |`` prefix (Official Library Header Specification).
    keywords : tuple of str
        ``0 !KEYWORDS`` entries (comma separated, all lines), as written.
    dims : tuple of float
        Size from the title, see :func:`parse_dims` (studs / bricks). A sticker's title size is in studs,
        not in the order it lands on a face: read :attr:`sticker_size_ldu` (shown in the repr) instead.
    ldraw_org : str
        ``!LDRAW_ORG`` type and qualifier (``"Part"``, ``"Part Alias"``,
        ``"Shortcut"``, ``"Unofficial_Part"``, ...), without the release.
    moved_to : str or None
        Target id of a ``~Moved to X`` stub.
    is_alias : bool
        ``!LDRAW_ORG Part Alias`` or ``Shortcut Alias`` (a second number
        for an identical part).
    is_obsolete : bool
        Title starts with ``~`` and is not a move stub (LDraw: not to be
        shown in part lists: obsolete or only used inside another part), or
        title says ``(Obsolete)``, or category ``Obsolete``.
    is_printed : bool
        Printed/patterned/stickered variant: the id has a pattern suffix
        (``3001p01``, ``3068bpx1``) or the title says Pattern, Print or
        Sticker.
    is_patterned : bool
        Same as :attr:`is_printed` (kept as a second name).
    is_shortcut : bool
        ``!LDRAW_ORG Shortcut`` (an assembly of several parts in one file).
    is_physical_colour : bool
        ``Physical_Colour`` part or ``_`` title (a part drawn in a fixed colour).
    popularity : int
        Placements in the official set models (shipped table), including
        placements of ids that were moved to this one.
    """

    part_id: str
    title: str
    name: str
    category: str
    keywords: tuple[str, ...] = ()
    dims: tuple[float, ...] = ()
    ldraw_org: str = ""
    moved_to: str | None = None
    is_alias: bool = False
    is_obsolete: bool = False
    is_printed: bool = False
    is_patterned: bool = False
    is_shortcut: bool = False
    is_physical_colour: bool = False
    popularity: int = 0

    @property
    def sticker_size_ldu(self) -> tuple[float, float] | None:
        """A flat sticker's ``(width, height)`` in LDU as ``stick(..., rotation=0)`` lays it on a face (width
        toward the viewer's right, height up the face; ``rotation=90`` swaps them), or None for a part that is
        no flat sticker (:func:`ldraw_data.stickers.sticker_size_ldu`, from the sticker's back face). Only
        parts of category ``Sticker`` are looked at (a mesh read the first time, then cached)."""
        if self.category.lower() != "sticker":
            return None
        from .stickers import sticker_size_ldu

        return sticker_size_ldu(self.part_id)

    def __repr__(self) -> str:
        """The dataclass repr, with ``sticker_size_ldu`` after ``dims`` for a flat sticker (its title's numbers
        are studs, in no fixed order)."""
        parts = []
        for name in self.__dataclass_fields__:
            parts.append(f"{name}={getattr(self, name)!r}")
            if name == "dims":
                size = self.sticker_size_ldu
                if size is not None:
                    parts.append(f"sticker_size_ldu={size!r}")
        return f"PartSpec({', '.join(parts)})"

    @property
    def filename(self) -> str:
        """Reference to write in a type-1 line (``"3001.dat"``)."""
        return self.part_id + ".dat"

    @property
    def is_listed(self) -> bool:
        """True for a usable part: not a move stub, alias, obsolete or physical-colour file."""
        return not (self.moved_to or self.is_alias or self.is_obsolete or self.is_physical_colour)


def parse_header(part_id: str, text: str) -> PartSpec:
    """Build a :class:`PartSpec` from the start of a part file.

    Parameters
    ----------
    part_id : str
        Catalog key (``"3001"``).
    text : str
        The file text, or only its first lines; reading stops at the first
        line that is not a comment/meta line (type 1-5).

    Returns
    -------
    PartSpec
        With ``popularity`` 0.
    """
    title = ""
    category = ""
    org = ""
    keywords: list[str] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        if line[0] != "0":
            break
        body = line[1:].strip()
        if not title:
            # First line: title (spec: the first line of a file is "0 <title>").
            title = body
            continue
        upper = body.upper()
        if upper.startswith("!CATEGORY"):
            category = body[len("!CATEGORY") :].strip()
        elif upper.startswith("!KEYWORDS"):
            keywords.extend(k.strip() for k in body[len("!KEYWORDS") :].split(",") if k.strip())
        elif upper.startswith("!LDRAW_ORG"):
            words = body.split()[1:]
            # Drop the release ("UPDATE 2004-03", "ORIGINAL"): keep type and qualifier.
            kept = [w for w in words if w.upper() not in ("UPDATE", "ORIGINAL") and not re.match(r"^\d{4}-\d{2}$", w)]
            org = " ".join(kept)
        elif upper.startswith("!HISTORY"):
            break  # history comes after category and keywords in the header spec
    name = " ".join(title.split())
    moved = _MOVED.match(name)
    moved_to = normalize_part_id(moved.group(1)) if moved else None
    if not category:
        first = name.lstrip(TITLE_PREFIXES).split(" ", 1)[0] if name else ""
        category = first
    org_words = org.lower().split()
    unhidden = name.lstrip("~")  # "~_Ball ... (Obsolete)": hidden physical-colour part
    is_alias = "alias" in org_words or unhidden.startswith("=")
    is_shortcut = bool(org_words) and org_words[0] in ("shortcut", "unofficial_shortcut")
    is_physical = "physical_colour" in org_words or unhidden.startswith("_")
    is_obsolete = (
        (name.startswith("~") and moved_to is None)
        or category.lower() == "obsolete"
        or "(obsolete)" in name.lower()
    )
    printed = bool(_PATTERN_ID.match(part_id)) or bool(_PRINT_WORDS.search(name))
    return PartSpec(
        part_id=part_id,
        title=title,
        name=name,
        category=category,
        keywords=tuple(keywords),
        dims=parse_dims(name),
        ldraw_org=org,
        moved_to=moved_to,
        is_alias=is_alias,
        is_obsolete=is_obsolete,
        is_printed=printed,
        is_patterned=printed,
        is_shortcut=is_shortcut,
        is_physical_colour=is_physical,
    )


def _read_head(path: Path) -> str:
    with open(path, "rb") as fh:
        return read_ldraw_text(fh.read(HEADER_BYTES))


# --------------------------------------------------------------------------- popularity


def user_popularity_path() -> Path:
    """The user's own usage table, ``popularity.csv`` in :func:`~ldraw_data.library.data_dir`.

    ``brickwright popularity rebuild FOLDER`` writes it; when it exists, :func:`popularity` reads it
    instead of the shipped table (delete it to go back). The shipped table inside the package is never
    written."""
    return data_dir() / "popularity.csv"


def popularity() -> dict[str, int]:
    """Usage table: part id -> placements in the official set models (or the user's own table).

    Returns
    -------
    dict of str to int
        Loaded from :func:`user_popularity_path` when that file exists, else
        from the shipped ``ldraw_data/data/popularity.csv`` (columns
        ``part_id,count``) via :mod:`importlib.resources`; cached per process.
        Empty when the table is missing (a warning is logged).

    Notes
    -----
    The table was computed by :func:`build_popularity` over the 67 official
    LEGO set models of ``shared/models/official``.
    """
    global _POPULARITY
    if _POPULARITY is None:
        try:
            user = user_popularity_path()
            text = user.read_text("utf-8") if user.is_file() else _shipped_popularity_text()
        except OSError:
            log.warning("ldraw_data/data/popularity.csv is missing; parts have popularity 0")
            text = "part_id,count\n"
        _POPULARITY = _read_popularity_csv(text)
    return dict(_POPULARITY)


_POPULARITY: dict[str, int] | None = None

_SHIPPED_POPULARITY = Path(__file__).resolve().parent / "data" / "popularity.csv"


def _shipped_popularity_text() -> str:
    try:
        return resources.files("ldraw_data").joinpath("data/popularity.csv").read_text("utf-8")
    except (OSError, TypeError, ValueError):
        # importlib.resources cannot read a package imported as a namespace
        # (an editable install made before __init__.py existed); read beside
        # this module instead.
        return _SHIPPED_POPULARITY.read_text("utf-8")


def _read_popularity_csv(text: str) -> dict[str, int]:
    out: dict[str, int] = {}
    reader = csv.reader(io.StringIO(text))
    for row in reader:
        if not row or row[0] == "part_id":
            continue
        out[row[0]] = int(row[1])
    return out


def build_popularity(
    folder: str | os.PathLike, library: LDrawLibrary | None = None, *, pattern: Iterable[str] = ("*.mpd", "*.ldr")
) -> collections.Counter:
    """Count how often each library part is placed in a folder of models.

    Parameters
    ----------
    folder : path
        Folder of ``.mpd``/``.ldr`` model files (searched recursively).
    library : LDrawLibrary, optional
        Defaults to :func:`~ldraw_data.library.get_library`.
    pattern : iterable of str
        File name patterns to read.

    Returns
    -------
    collections.Counter
        Part id (``"3023"``) -> number of placements after flattening with
        :func:`~ldraw_data.io.load_model` (a submodel used three times counts
        its parts three times). Only references to top-level library parts
        count: MPD-embedded parts, unknown references, primitives and
        ``s/`` subparts placed directly (LSynth hoses) are left out.

    Raises
    ------
    LDrawError
        When ``folder`` is not a folder or holds no model file.
    """
    from .io import load_model

    base = Path(folder).expanduser()
    if not base.is_dir():
        raise LDrawError(f"{base}: not a folder. Give a folder holding .mpd/.ldr model files.")
    files = sorted({p for pat in pattern for p in base.rglob(pat)})
    files += sorted({p for pat in pattern for p in base.rglob(pat.upper())} - set(files))
    if not files:
        raise LDrawError(f"{base}: no model files ({', '.join(pattern)}) in it.")
    lib = library if library is not None else get_library()
    counts: collections.Counter = collections.Counter()
    for path in files:
        model = load_model(path, lib)
        for p in model.parts:
            if p.source == "library" and not p.primitive and "/" not in p.part_id:
                counts[p.part_id] += 1
    log.info("popularity: %d placements of %d parts in %d models", sum(counts.values()), len(counts), len(files))
    return counts


def write_popularity(counter: collections.Counter | dict[str, int], path: str | os.PathLike) -> Path:
    """Write a usage table as CSV, atomically.

    Parameters
    ----------
    counter : Counter or dict of str to int
        Part id -> count (as from :func:`build_popularity`).
    path : path
        Target file (e.g. ``ldraw_data/data/popularity.csv``).

    Returns
    -------
    Path
        The written file: header ``part_id,count``, rows sorted by count
        descending then id. Written to a temporary file then ``os.replace``-d.
    """
    global _POPULARITY
    target = Path(path).expanduser()
    rows = sorted(((str(k), int(v)) for k, v in counter.items() if int(v) > 0), key=lambda kv: (-kv[1], kv[0]))
    target.parent.mkdir(parents=True, exist_ok=True)
    with atomic_writer(target, "w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["part_id", "count"])
        w.writerows(rows)
    if target.resolve() in (_SHIPPED_POPULARITY, user_popularity_path().resolve()):
        # The table search uses was rewritten: reload it and re-apply to catalogs.
        _POPULARITY = None
        _CATALOGS.clear()
    return target


# --------------------------------------------------------------------------- catalog


class Catalog:
    """All parts of a library, by id.

    Parameters
    ----------
    specs : iterable of PartSpec
        One record per part file.
    fingerprint : str
        Fingerprint of the library the records come from.

    Notes
    -----
    Iterating yields :class:`PartSpec` records sorted by id; ``in`` and
    :meth:`get` take ids in any LDraw spelling (``"3001"``, ``"3001.DAT"``).
    """

    def __init__(self, specs: Iterable[PartSpec], fingerprint: str = ""):
        specs = list(specs)
        ids = [s.part_id for s in specs]
        if any(a >= b for a, b in zip(ids, ids[1:])):
            specs.sort(key=lambda s: s.part_id)
        self._specs: dict[str, PartSpec] = {s.part_id: s for s in specs}
        self.fingerprint = fingerprint
        #: Derived data (search indexes) keyed by their owner module; see :mod:`ldraw_data.ranking`.
        self._derived: dict = {}

    def __repr__(self) -> str:
        return f"<Catalog {len(self._specs)} parts, library {self.fingerprint or '?'}>"

    def derived_data(self, key, fn):
        """Data derived from this catalog (a search index...), computed once per catalog and kept with it.

        A catalog does not change once made (a new library gives a new catalog), so nothing is dropped.

        Parameters
        ----------
        key : hashable
            Names the data; its first item names the module computing it (``("ranking", True)``).
        fn : callable
            ``fn()`` computes the value the first time.

        Returns
        -------
        object
            The kept or computed value.
        """
        if key not in self._derived:
            self._derived[key] = fn()
        return self._derived[key]

    def __len__(self) -> int:
        return len(self._specs)

    def __iter__(self) -> Iterator[PartSpec]:
        return iter(self._specs.values())

    def __contains__(self, part_id: object) -> bool:
        return isinstance(part_id, str) and normalize_part_id(part_id) in self._specs

    def ids(self) -> list[str]:
        """All part ids, sorted."""
        return list(self._specs)

    def get(self, part_id: str) -> PartSpec:
        """Record of one part.

        Parameters
        ----------
        part_id : str
            ``"3001"``, ``"3001.dat"``, ``"3001.DAT"`` or ``"parts\\3001.dat"``.

        Returns
        -------
        PartSpec
            The record as is (a ``~Moved to`` stub is returned, not followed;
            see :meth:`resolve_moved`).

        Raises
        ------
        PartNotFoundError
            With up to 5 close ids as suggestions (``"3001x"`` suggests ``"3001"``).
        """
        key = normalize_part_id(part_id)
        spec = self._specs.get(key)
        if spec is None:
            raise PartNotFoundError(str(part_id), self.suggest(key))
        return spec

    __getitem__ = get

    def suggest(self, text: str, n: int = 5) -> list[str]:
        """Ids close to a misspelt id or a short description.

        Parameters
        ----------
        text : str
            An id with a typo (``"3001x"``, ``"30O1"``) or a name (``"brick 2x4"``).
        n : int
            Largest number of suggestions.

        Returns
        -------
        list of str
            Best first. Ids are compared with :func:`difflib.get_close_matches`
            (ratio >= 0.6), after the id with look-alike letters replaced
            (``O`` -> ``0``, ``l``/``I`` -> ``1`` next to digits) when that
            exists; among similar ids, ids that are a prefix of the
            text or start like it, usable (listed) parts, plain parts and
            popular parts come first. When no id is close and the text has
            letters and blanks, the top results of
            :func:`ldraw_data.ranking.rank_parts` over this catalog (the ranking of
            :func:`ldraw_data.search.search_parts`) are returned.
        """
        key = normalize_part_id(text)
        if not key:
            return []
        # Letters typed for look-alike digits ("3O23", "30l0") are tried first.
        fixed = re.sub(r"(?<=\d)[oO]|[oO](?=\d)", "0", key)
        fixed = re.sub(r"(?<=\d)[lI]|[lI](?=\d)", "1", fixed)
        exact = [fixed] if fixed != key and fixed in self._specs else []
        close = difflib.get_close_matches(key, self._specs.keys(), n=max(4 * n, 20), cutoff=0.6)
        if close or exact:

            def rank(pid: str) -> tuple:
                s = self._specs[pid]
                ratio = difflib.SequenceMatcher(None, key, pid).ratio()
                prefix = key.startswith(pid) or pid.startswith(key)
                return (-(ratio + (0.1 if prefix else 0.0)), not s.is_listed, s.is_printed, -s.popularity, pid)

            return (exact + [c for c in sorted(close, key=rank) if c not in exact])[:n]
        if " " in key.strip() and re.search(r"[a-z]", key):
            return [s.part_id for s in rank_parts(self, text, limit=n)]
        return []

    def resolve_moved(self, part_id: str) -> PartSpec:
        """Follow ``~Moved to`` stubs to the part now in use.

        Parameters
        ----------
        part_id : str
            Any id spelling.

        Returns
        -------
        PartSpec
            The first record of the chain that is not a move stub (the part
            itself when it was never moved).

        Raises
        ------
        PartNotFoundError
            When the id, or a target in the chain, is not in the catalog.
        LDrawError
            When the chain loops.
        """
        spec = self.get(part_id)
        seen = [spec.part_id]
        while spec.moved_to:
            if spec.moved_to in seen:
                raise LDrawError(f"~Moved to chain loops: {' -> '.join(seen + [spec.moved_to])}")
            if spec.moved_to not in self._specs:
                raise PartNotFoundError(spec.moved_to, self.suggest(spec.moved_to))
            spec = self._specs[spec.moved_to]
            seen.append(spec.part_id)
        return spec

    def categories(self) -> dict[str, int]:
        """Category -> number of listed parts in it, largest first."""
        c = collections.Counter(s.category for s in self if s.is_listed)
        return dict(c.most_common())

    def with_popularity(self, counts: dict[str, int]) -> "Catalog":
        """Copy whose records carry ``counts`` as popularity.

        Counts of ``~Moved to`` stubs are added to the part they resolve to
        (models written before a move use the old number), so the target's
        popularity covers both numbers.
        """
        totals = self._popularity_totals(counts)
        specs = (replace(s, popularity=totals.get(s.part_id, 0)) if s.popularity != totals.get(s.part_id, 0) else s for s in self)
        return Catalog(specs, self.fingerprint)

    def _popularity_totals(self, counts: dict[str, int]) -> dict[str, int]:
        """Part id -> its count plus the counts of the ``~Moved to`` stubs that resolve to it."""
        totals: dict[str, int] = collections.defaultdict(int)
        for pid, cnt in counts.items():
            pid = normalize_part_id(pid)
            if pid not in self._specs:
                continue
            totals[pid] += cnt
            if self._specs[pid].moved_to:
                try:
                    target = self.resolve_moved(pid).part_id
                except LDrawError:
                    continue
                totals[target] += cnt
        return dict(totals)

    # -- (de)serialization
    def to_json(self) -> dict:
        """JSON-able dict of the records (without popularity)."""
        keys = [f for f in PartSpec.__dataclass_fields__ if f != "popularity"]
        rows = []
        for s in self:
            rows.append([list(v) if isinstance(v, tuple) else v for v in (getattr(s, k) for k in keys)])
        return {"format": CATALOG_FORMAT, "fingerprint": self.fingerprint, "fields": keys, "rows": rows}

    @classmethod
    def from_json(cls, data: dict) -> "Catalog":
        """Inverse of :meth:`to_json`.

        Raises
        ------
        ValueError
            When the data is of another format version.
        """
        if data.get("format") != CATALOG_FORMAT:
            raise LDrawValueError(f"catalog format {data.get('format')!r}, expected {CATALOG_FORMAT}")
        keys = list(data["fields"])
        if set(keys) | {"popularity"} != set(PartSpec.__dataclass_fields__):
            raise LDrawValueError(f"catalog fields {keys} do not match PartSpec")
        kw_i, dims_i = keys.index("keywords"), keys.index("dims")
        specs = []
        new, setattr_ = object.__new__, object.__setattr__
        keys.append("popularity")
        for row in data["rows"]:
            row[kw_i] = tuple(row[kw_i])
            row[dims_i] = tuple(row[dims_i])
            row.append(0)
            # Bypass the frozen dataclass __init__ (one object.__setattr__ per
            # field): several times faster for 20k records, same result as
            # PartSpec(**d).
            spec = new(PartSpec)
            setattr_(spec, "__dict__", dict(zip(keys, row)))
            specs.append(spec)
        return cls(specs, data.get("fingerprint", ""))


#: Version of the ``catalog-<fingerprint>.rows`` index layout.
_INDEX_VERSION = 1


class _IndexedSpecs(collections.abc.Mapping):
    """Part id -> :class:`PartSpec`, each record parsed from the rows index when first asked for.

    ``data`` is the index file's body (one JSON row per part, :meth:`Catalog.to_json` field order,
    no popularity); ``ends`` the byte end of each row; ``popularity`` the totals
    (:meth:`Catalog._popularity_totals`) set once the catalog can resolve moves. Iteration order is
    the file's (the eager catalog's, sorted by id)."""

    def __init__(self, data: bytes, fields: list[str], ids: list[str], ends: list[int]):
        self._data, self._ids, self._ends = data, ids, ends
        self._row = {pid: i for i, pid in enumerate(ids)}
        self._keys = list(fields) + ["popularity"]
        self._kw_i, self._dims_i = fields.index("keywords"), fields.index("dims")
        self._memo: dict[str, PartSpec] = {}
        self.popularity: dict[str, int] = {}

    def __getitem__(self, part_id: str) -> PartSpec:
        spec = self._memo.get(part_id)
        if spec is None:
            i = self._row[part_id]  # KeyError: not a part (Mapping.get / `in` rely on it)
            row = json.loads(self._data[self._ends[i - 1] if i else 0:self._ends[i]])
            row[self._kw_i] = tuple(row[self._kw_i])
            row[self._dims_i] = tuple(row[self._dims_i])
            row.append(self.popularity.get(part_id, 0))
            spec = object.__new__(PartSpec)  # as Catalog.from_json: same record as PartSpec(**d)
            object.__setattr__(spec, "__dict__", dict(zip(self._keys, row)))
            self._memo[part_id] = spec
        return spec

    def set_popularity(self, totals: dict[str, int]) -> None:
        """Give the records these popularity totals (records parsed so far are parsed again)."""
        self.popularity = totals
        self._memo.clear()

    def __contains__(self, part_id: object) -> bool:
        return part_id in self._row

    def __iter__(self) -> Iterator[str]:
        return iter(self._ids)

    def __len__(self) -> int:
        return len(self._ids)


def _index_path(library: LDrawLibrary) -> Path:
    return cache_dir() / f"catalog-{library.fingerprint}.rows"


def _gz_stamp(path: Path) -> str:
    st = path.stat()
    return f"{st.st_size}:{st.st_mtime_ns}"


def _write_index(path: Path, cat: Catalog, gz: Path) -> None:
    """Write the rows index of ``cat`` (records without popularity), stamped with the gzipped cache it
    mirrors (size and modification time: a changed or corrupted ``.json.gz`` invalidates it)."""
    data = cat.to_json()
    body, ends = bytearray(), []
    for row in data["rows"]:
        body += json.dumps(row, separators=(",", ":")).encode("utf-8") + b"\n"
        ends.append(len(body))
    header = {"index": _INDEX_VERSION, "format": CATALOG_FORMAT, "fingerprint": cat.fingerprint, "gz": _gz_stamp(gz),
              "fields": data["fields"], "ids": [s.part_id for s in cat], "ends": ends,
              "crc32": zlib.crc32(body)}
    with atomic_writer(path, "wb") as fh:
        fh.write(json.dumps(header, separators=(",", ":")).encode("utf-8") + b"\n")
        fh.write(bytes(body))


def _read_index(path: Path, gz: Path, fingerprint: str) -> Catalog | None:
    """The catalog of a rows index, records parsed on demand; None when the index is missing or does not
    match the gzipped cache (then it is rewritten); discarded with a warning when unreadable."""
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    try:
        nl = raw.index(b"\n")
        header = json.loads(raw[:nl])
        body = raw[nl + 1:]
        if (header.get("index") != _INDEX_VERSION or header.get("format") != CATALOG_FORMAT
                or header.get("fingerprint") != fingerprint):
            return None
        try:
            if header.get("gz") != _gz_stamp(gz):
                return None
        except OSError:
            return None
        ids, ends, fields = header["ids"], header["ends"], header["fields"]
        if (len(ids) != len(ends) or (ends and ends[-1] != len(body)) or zlib.crc32(body) != header["crc32"]
                or set(fields) | {"popularity"} != set(PartSpec.__dataclass_fields__)):
            raise LDrawValueError("rows do not match the header (truncated or altered file)")
    except (ValueError, KeyError, TypeError, AttributeError) as exc:  # JSONDecodeError is a ValueError
        discard_cache_file(path, "catalog index", exc)
        return None
    cat = Catalog((), fingerprint)
    cat._specs = _IndexedSpecs(body, fields, ids, ends)  # type: ignore[assignment]
    return cat


def build_catalog(library: LDrawLibrary) -> Catalog:
    """Read the header of every part file of ``library`` (no cache).

    Returns
    -------
    Catalog
        Without popularity.
    """
    specs = []
    for fname, path in library.part_files():
        pid = fname[:-4] if fname.endswith(".dat") else fname
        try:
            specs.append(parse_header(pid, _read_head(path)))
        except OSError as exc:
            log.warning("%s: cannot read (%s); left out of the catalog", path, exc)
    return Catalog(specs, library.fingerprint)


_CATALOGS: dict[tuple[str, str], Catalog] = {}


def _cache_path(library: LDrawLibrary) -> Path:
    return cache_dir() / f"catalog-{library.fingerprint}.json.gz"


def get_catalog(library: LDrawLibrary | None = None, *, rebuild: bool = False) -> Catalog:
    """The catalog of a library, from the process cache, the disk cache, or built.

    Parameters
    ----------
    library : LDrawLibrary, optional
        Defaults to :func:`~ldraw_data.library.get_library`.
    rebuild : bool
        Ignore both caches and re-read every part header.

    Returns
    -------
    Catalog
        Records carry popularity from :func:`popularity`.

    Raises
    ------
    LibraryNotFoundError
        When no library is given and none is installed.

    Notes
    -----
    Cold build (about 20k headers) takes a few seconds; the gzipped JSON
    cache ``cache_dir()/catalog-<fingerprint>.json.gz`` then loads in a
    fraction of a second. The file name carries the library fingerprint, so a
    changed library is rebuilt; the cache is written atomically. Once the
    rows index ``catalog-<fingerprint>.rows`` mirrors that cache (written
    beside it), a process loads only the index (about 10 ms) and parses each
    record when first asked for; the records are the same.
    """
    lib = library if library is not None else get_library()
    key = (str(lib.root), lib.fingerprint)
    if not rebuild and key in _CATALOGS:
        return _CATALOGS[key]
    t0 = time.perf_counter()
    path = _cache_path(lib)
    index = _index_path(lib)
    if not rebuild:
        lazy = _read_index(index, path, lib.fingerprint)
        if lazy is not None:
            lazy._specs.set_popularity(lazy._popularity_totals(popularity()))
            log.info("catalog: index of %d parts loaded from %s in %.3f s", len(lazy), index, time.perf_counter() - t0)
            _CATALOGS[key] = lazy
            return lazy
    cat: Catalog | None = None
    if not rebuild and path.is_file():
        # The cyclic GC would run many times over the 20k fresh records for
        # nothing (they hold no cycles); pausing it halves the load time.
        gc_was_on = gc.isenabled()
        gc.disable()
        try:
            with gzip.open(path, "rb") as fh:
                cat = Catalog.from_json(json.loads(fh.read()))
            log.info("catalog: %d parts loaded from %s in %.2f s", len(cat), path, time.perf_counter() - t0)
        except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError, EOFError, zlib.error) as exc:
            discard_cache_file(path, "catalog", exc)
            cat = None
        finally:
            if gc_was_on:
                gc.enable()
    if cat is None:
        cat = build_catalog(lib)
        log.info("catalog: %d part headers read in %.2f s", len(cat), time.perf_counter() - t0)
        try:
            with atomic_writer(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=5) as gz:
                gz.write(json.dumps(cat.to_json(), separators=(",", ":")).encode("utf-8"))
        except OSError as exc:
            log.warning("could not write catalog cache %s: %s", path, exc)
    try:
        if path.is_file():  # the index mirrors the gzipped cache: next processes read records on demand
            _write_index(index, cat, path)
    except OSError as exc:
        log.warning("could not write catalog index %s: %s", index, exc)
    cat = cat.with_popularity(popularity())
    _CATALOGS[key] = cat
    return cat
