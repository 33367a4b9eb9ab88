"""Ranking of part records by a free-text query: the engine of part search.

:func:`rank_parts` ranks the records of a catalog (any iterable of :class:`~ldraw_data.catalog.PartSpec`
that keeps derived data, see :meth:`~ldraw_data.catalog.Catalog.derived_data`). It sits below
:mod:`ldraw_data.catalog`, whose :meth:`~ldraw_data.catalog.Catalog.suggest` falls back to it for a
description, and below :mod:`ldraw_data.search`, whose :func:`~ldraw_data.search.search_parts` ranks the
installed library's catalog with it; it imports nothing of the catalog (record types under
``TYPE_CHECKING`` only) and takes sizes from titles with :func:`ldraw_data.titles.parse_dims`.

Ranking is BM25 (Okapi, via ``rank_bm25``, default ``k1=1.5, b=0.75``) over
the tokens of each part's name, category and keywords, times a popularity
factor, times a penalty for printed/patterned variants::

    score = bm25 * (1 + POPULARITY_WEIGHT * log(1 + count)) * (PRINTED_PENALTY if printed else 1)
                 * coverage ** COVERAGE_POWER

where ``coverage`` is the share of the query's distinct tokens the part has,

and ``count`` is the part's placement count in the official set models
(:func:`ldraw_data.catalog.popularity`). With ``POPULARITY_WEIGHT = 0.15`` a
part used 1 000 times gets a factor of about 2.0 and an unused one 1.0: enough
to pick the common part among equally good text matches, not enough to lift a
poor text match over a good one. When the query says ``pattern``, ``print``
or ``sticker`` the penalty goes to the plain parts instead. A printed part
whose *print description* (the words of its name that its unprinted base part's
name lacks: ``Eye`` of ``Tile 1 x 1 Round with Eye Pattern`` over ``Tile 1 x 1
Round``) shares a word with the query is not penalised either: the query asks
for that print, so ``eye`` finds the tiles printed with an eye.

Tokenizing (:func:`tokenize`) lower-cases, splits digits from a glued ``x``
so ``2x4``, ``2 x 4`` and ``2 X 4`` give the same tokens, drops ``x`` and a
few filler words, and adds a *dimension token* per size (``2x4``; also
``2x4x3`` for three numbers; the first two numbers sorted, so ``4 x 2`` finds
``2 x 4``; ``2 by 4`` reads as ``2 x 4``) and folds plurals to the singular
(:func:`singular`: ``eyes`` and ``eye``, ``wheels`` and ``wheel``, ``axles``
and ``axle`` give one token), so neither word order nor number changes a
result. Dimension tokens are rare (high IDF) and count twice in a query,
so an exact size match weighs a lot and ``brick 2 x 4`` does not rank
``Brick 2 x 2`` high. A part's category words are added to its name's
tokens, so the part type (``Brick`` of ``Brick 2 x 4``) counts twice and
outweighs the same word used as a qualifier (``Slope Brick 18 4 x 2``).

Moved stubs, aliases, obsolete (``~``) and physical-colour (``_``) files are
left out unless asked for. The index is built once per catalog and kept on
it (about 0.5 s for 16k parts); a query then takes 10-30 ms.
"""

from __future__ import annotations

__all__ = [
    "rank_parts",
    "tokenize",
    "parse_query",
    "singular",
    "POPULARITY_WEIGHT",
    "PRINTED_PENALTY",
    "COVERAGE_POWER",
]

import logging
import re

import numpy as np

from typing import TYPE_CHECKING

from .titles import parse_dims

if TYPE_CHECKING:
    from .catalog import Catalog, PartSpec

log = logging.getLogger(__name__)

#: Weight of ``log(1 + count)`` in the popularity factor (see module docstring).
POPULARITY_WEIGHT = 0.15

#: Exponent of the query-coverage factor ``(words matched / distinct query words) ** COVERAGE_POWER``:
#: with 2, a part matching one of two query words keeps a quarter of its score, which outweighs the
#: popularity factor (at most about 2.3), so a full match ranks above a popular half match.
COVERAGE_POWER = 2

#: Score factor of printed/patterned/stickered variants, so that the plain
#: part ranks above its prints (a printed ``Brick 2 x 4 with ... Pattern``
#: otherwise competes on text alone).
PRINTED_PENALTY = 0.5

#: Words that carry no meaning for finding a part.
STOPWORDS = frozenset({"x", "with", "and", "the", "of", "a", "to", "for", "in", "on", "w"})

_SPLIT = re.compile(r"(\d+(?:\.\d+)?|[a-z]+)")
# "2x4", "2 X 4", "1x2x5", "2 1/3" are normalized by parse_dims on the text
# with digits split from a glued "x".
_GLUED_X = re.compile(r"(?<=\d)(?:\s*[x×]\s*|\s+by\s+)(?=\d)", re.IGNORECASE)
_FIELD = re.compile(r"\b(category|cat):(\"[^\"]*\"|'[^']*'|\S+)", re.IGNORECASE)


def _fmt(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:g}"


def _dim_tokens(dims: tuple[float, ...]) -> list[str]:
    if len(dims) < 2:
        return []
    a, b = sorted(dims[:2])
    out = [f"{_fmt(a)}x{_fmt(b)}"]
    if len(dims) > 2:
        out.append(f"{_fmt(a)}x{_fmt(b)}x{_fmt(dims[2])}")
    return out


#: Words ending in ``s`` that are not plurals (or whose singular is another word).
_NOT_PLURAL = frozenset({"glass", "cross", "boss", "bus", "gas", "lens", "chassis", "always", "this", "its",
                         "has", "was", "plus", "minus", "torus", "radius", "status", "canvas", "sis", "ss",
                         "series", "species", "pants", "trousers", "scissors", "binoculars", "goggles", "glasses",
                         "dots", "legs"})


def singular(word: str) -> str:
    """The singular of a lower-case English word, by suffix rules (no dictionary).

    ``eyes`` -> ``eye``, ``wheels`` -> ``wheel``, ``boxes`` -> ``box``,
    ``accessories`` -> ``accessory``; words of 3 letters or fewer, words ending
    in ``ss``, ``us`` or ``is`` and a few listed non-plurals (``glass``,
    ``lens``, ``chassis``, ``legs`` of ``Minifig Legs``, ...) are kept. Applied
    to part names and queries alike, so an imperfect singular still matches.
    """
    if len(word) <= 3 or not word.endswith("s") or word in _NOT_PLURAL or word.endswith(("ss", "us", "is")):
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("xes", "ches", "shes", "sses", "zes")):
        return word[:-2]
    return word[:-1]


def tokenize(text: str, dims: tuple[float, ...] | None = None) -> list[str]:
    """Search tokens of a text.

    Parameters
    ----------
    text : str
        A part name or a query (``"Brick 2 x 4"``, ``"2x4 brick"``).
    dims : tuple of float, optional
        Size to make dimension tokens from; parsed from ``text`` with
        :func:`~ldraw_data.titles.parse_dims` when not given.

    Returns
    -------
    list of str
        Word and number tokens (words in the singular, see :func:`singular`),
        without stop words, plus dimension tokens.

    Examples
    --------
    >>> tokenize("Brick  2 x  4")
    ['brick', '2', '4', '2x4']
    >>> tokenize("2X4 brick")
    ['2', '4', 'brick', '2x4']
    >>> tokenize("Brick 1 x 2 x 5")
    ['brick', '1', '2', '5', '1x2', '1x2x5']
    """
    spaced = _GLUED_X.sub(" x ", text.lower())
    words = [singular(t) for t in _SPLIT.findall(spaced) if t not in STOPWORDS]
    if dims is None:
        dims = parse_dims(spaced)
    return words + _dim_tokens(tuple(dims))


def parse_query(query: str) -> tuple[str, str | None]:
    """Split field filters out of a query.

    Parameters
    ----------
    query : str
        Free text, optionally with ``category:Brick`` or
        ``category:"Minifig Accessory"`` (``cat:`` works too).

    Returns
    -------
    (str, str or None)
        The free text and the category filter (None when absent).
    """
    category = None
    m = _FIELD.search(query)
    if m:
        category = m.group(2).strip("\"'")
        query = (query[: m.start()] + " " + query[m.end() :]).strip()
    return query, category


def _doc_tokens(spec: PartSpec) -> list[str]:
    toks = tokenize(spec.name.lstrip("~_=|"), spec.dims)
    # Category words, always: names usually start with them too, so the part
    # type ("Brick" of "Brick 2 x 4") counts twice and outweighs the same word
    # as a qualifier ("Slope Brick 18 4 x 2", category Slope).
    toks += tokenize(spec.category, ())
    for kw in spec.keywords:
        toks += tokenize(kw, ())
    toks.append(spec.part_id)
    return toks


#: Words of common LDConfig colour names. In a query they say what colour the part should be (LDraw parts
#: are colourless), so they never select a print ("red brick" is not a brick printed with something red).
_COLOUR_WORDS = frozenset({"red", "blue", "green", "yellow", "black", "white", "gray", "grey", "orange", "brown",
                           "tan", "pink", "purple", "lime", "azure", "silver", "gold", "dark", "light", "bright",
                           "medium", "trans", "transparent", "clear", "reddish", "bluish", "violet", "magenta"})

_PATTERN_SUFFIX = re.compile(r"^(.+?)p[a-z0-9]{1,4}$")


def _print_tokens(spec: PartSpec, catalog_specs: dict) -> set[str]:
    """Tokens of a printed part's print description (empty for a plain part).

    The description is what the name says beyond its base part's name: the
    base is the part id without its ``p..`` pattern suffix (LDraw pattern
    numbering, ``98138p07`` -> ``98138``); without a base in the catalog,
    the words after the name's first ``with``.
    """
    if not spec.is_printed:
        return set()
    name = spec.name.lstrip("~_=|")
    m = _PATTERN_SUFFIX.match(spec.part_id)
    base = catalog_specs.get(m.group(1)) if m else None
    if base is not None:
        toks = set(tokenize(name, ())) - set(tokenize(base.name.lstrip("~_=|"), ()))
    else:
        _, _, tail = name.lower().partition(" with ")
        toks = set(tokenize(tail, ()))
    return toks - {"pattern", "print", "printed", "sticker"} - _COLOUR_WORDS


class _Index:
    """BM25 index over some catalog records, with their score factors."""

    def __init__(self, specs: list[PartSpec], all_specs: dict | None = None):
        from rank_bm25 import BM25Okapi

        self.specs = specs
        docs = [_doc_tokens(s) for s in specs]
        self.bm25 = BM25Okapi(docs)
        postings: dict[str, list[int]] = {}
        for i, toks in enumerate(docs):
            for t in set(toks):
                postings.setdefault(t, []).append(i)
        #: token -> indices of the parts whose tokens contain it
        self.postings = {t: np.array(v, dtype=np.int64) for t, v in postings.items()}
        pop = np.array([s.popularity for s in specs], dtype=np.float64)
        self.popularity = pop
        printed = np.array([s.is_printed for s in specs], dtype=bool)
        self.printed = printed
        self.pop_factor = 1.0 + POPULARITY_WEIGHT * np.log1p(pop)
        self.factor = self.pop_factor * np.where(printed, PRINTED_PENALTY, 1.0)
        self.print_factor = self.pop_factor * np.where(printed, 1.0, PRINTED_PENALTY)
        self.category = np.array([s.category.lower() for s in specs], dtype=object)
        self.ids = {s.part_id: i for i, s in enumerate(specs)}
        # print-description token -> indices of printed parts whose print it describes
        by_id = all_specs if all_specs is not None else {s.part_id: s for s in specs}
        printed_by: dict[str, list[int]] = {}
        for i in np.flatnonzero(printed):
            for t in _print_tokens(specs[i], by_id):
                printed_by.setdefault(t, []).append(int(i))
        self.printed_by = {t: np.array(v, dtype=np.int64) for t, v in printed_by.items()}


def _index(catalog: Catalog, include_obsolete: bool) -> _Index:
    def build() -> _Index:
        specs = [s for s in catalog if include_obsolete or s.is_listed]
        idx = _Index(specs, {s.part_id: s for s in catalog})
        log.debug("search index of %d parts built", len(specs))
        return idx

    return catalog.derived_data(("ranking", include_obsolete), build)


def rank_parts(
    catalog: Catalog,
    query: str,
    *,
    category: str | None = None,
    limit: int = 10,
    include_obsolete: bool = False,
) -> list[PartSpec]:
    """The parts of a catalog that best match a query by name, size, category or keyword.

    Parameters
    ----------
    catalog : Catalog
        The records to rank (iterated once per ``include_obsolete`` value; the index is kept on it with
        :meth:`~ldraw_data.catalog.Catalog.derived_data`).
    query : str
        Free text (``"brick 2 x 4"``, ``"2x4 brick"``, ``"slope 45 2x2"``),
        optionally with a field filter ``category:Plate`` (see
        :func:`parse_query`). A part id (``"3001"``) finds that part.
    category : str, optional
        Keep only parts of this category (exact, case-insensitive match on
        :attr:`~ldraw_data.catalog.PartSpec.category`, e.g. ``"Brick"``, ``"Minifig Accessory"``).
        Overrides a ``category:`` in the query.
    limit : int
        Largest number of results.
    include_obsolete : bool
        Also search ``~Moved to`` stubs, aliases, obsolete (``~``) and
        physical-colour (``_``) files, which are left out by default.

    Returns
    -------
    list of PartSpec
        Best first; only parts sharing at least one token with the query.
        With an empty query and a category, the category's most popular parts.
        Score formula: see the module docstring; when the query itself
        says pattern, print or sticker, the penalty goes to plain parts
        instead of printed ones.

    Examples
    --------
    >>> from ldraw_data.catalog import get_catalog
    >>> [p.part_id for p in rank_parts(get_catalog(), "brick 2 x 4", limit=1)]
    ['3001']
    """
    text, cat_in_query = parse_query(query or "")
    category = category if category is not None else cat_in_query
    idx = _index(catalog, include_obsolete)
    n = len(idx.specs)
    if n == 0 or limit <= 0:
        return []
    mask = np.ones(n, dtype=bool)
    if category:
        mask &= idx.category == category.strip().lower()
    q = tokenize(text)
    # Dimension tokens count twice: an exact size match is what a size query asks for.
    q += [t for t in q if "x" in t and t[0].isdigit()]
    if q:
        scores = np.asarray(idx.bm25.get_scores(q), dtype=np.float64)
        # Only documents sharing a token: BM25 gives exactly 0 otherwise.
        mask &= scores > 0
        # A query asking for prints ("pattern", "printed", "sticker") turns the
        # penalty around: plain parts get it instead.
        wants_print = any(t.startswith(("pattern", "print", "sticker")) for t in q)
        factor = idx.print_factor if wants_print else idx.factor.copy()
        if not wants_print:
            # printed parts whose print the query names ("eye") are not penalised
            for t in set(q):
                hit = idx.printed_by.get(t)
                if hit is not None:
                    factor[hit] = idx.pop_factor[hit]
        # Coverage: the share of the query's distinct words a part has, squared, so a part matching
        # every word ("eye tile": a tile printed with an eye) beats a popular part matching half of them.
        # Colour words are optional: the part is colourless, so a part lacking "red" is no worse a match.
        terms = (set(q) - _COLOUR_WORDS) or set(q)
        covered = np.zeros(n, dtype=np.float64)
        for t in terms:
            hit = idx.postings.get(t)
            if hit is not None:
                covered[hit] += 1.0
        scores = scores * factor * (covered / len(terms)) ** COVERAGE_POWER
    elif category:
        scores = idx.factor.copy()
    else:
        return []
    cand = np.flatnonzero(mask)
    if cand.size == 0:
        return []
    # Sort by score desc, then popularity desc, then id (records are in id order).
    pops = idx.popularity[cand]
    order = np.lexsort((cand, -pops, -np.round(scores[cand], 9)))[:limit]
    return [idx.specs[i] for i in cand[order]]
