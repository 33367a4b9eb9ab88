"""Full-text part search over the installed library's catalog.

:func:`search_parts` ranks :func:`~ldraw_data.catalog.get_catalog` (or a catalog given) with
:func:`ldraw_data.ranking.rank_parts`; the ranking (BM25 over name, category and keyword tokens, times
popularity, printed-part and query-coverage factors), the tokenizer and their constants are described
and defined in :mod:`ldraw_data.ranking` and re-exported here under their old names. This module sits
above :mod:`ldraw_data.catalog`; the ranking sits below it, so :meth:`~ldraw_data.catalog.Catalog.suggest`
uses the same ranking without importing this module.
"""

from __future__ import annotations

__all__ = [
    "search_parts",
    "tokenize",
    "parse_query",
    "singular",
    "POPULARITY_WEIGHT",
    "PRINTED_PENALTY",
    "COVERAGE_POWER",
]

from .catalog import Catalog, PartSpec, get_catalog
from .ranking import COVERAGE_POWER, POPULARITY_WEIGHT, PRINTED_PENALTY, parse_query, rank_parts, singular, tokenize


def search_parts(
    query: str,
    *,
    category: str | None = None,
    limit: int = 10,
    include_obsolete: bool = False,
    catalog: Catalog | None = None,
) -> list[PartSpec]:
    """Find parts by name, size, category or keyword.

    Parameters
    ----------
    query : str
        Free text (``"brick 2 x 4"``, ``"2x4 brick"``, ``"slope 45 2x2"``),
        optionally with a field filter ``category:Plate`` (see
        :func:`parse_query`). A part id (``"3001"``) finds that part.
    category : str, optional
        Keep only parts of this category (exact, case-insensitive match on
        :attr:`PartSpec.category`, e.g. ``"Brick"``, ``"Minifig Accessory"``).
        Overrides a ``category:`` in the query.
    limit : int
        Largest number of results.
    include_obsolete : bool
        Also search ``~Moved to`` stubs, aliases, obsolete (``~``) and
        physical-colour (``_``) files, which are left out by default.
    catalog : Catalog, optional
        Defaults to :func:`~ldraw_data.catalog.get_catalog`.

    Returns
    -------
    list of PartSpec
        Best first; only parts sharing at least one token with the query.
        With an empty query and a category, the category's most popular parts.
        Score formula: see :mod:`ldraw_data.ranking`; when the query itself
        says pattern, print or sticker, the penalty goes to plain parts
        instead of printed ones.

    Raises
    ------
    Whatever :func:`~ldraw_data.catalog.get_catalog` raises when no catalog is given and the LDraw
    library cannot be found or read.

    Examples
    --------
    >>> [p.part_id for p in search_parts("brick 2 x 4", limit=1)]
    ['3001']
    """
    cat = catalog if catalog is not None else get_catalog()
    return rank_parts(cat, query, category=category, limit=limit, include_obsolete=include_obsolete)
