"""Catalog access for scripts: part search and existence, and grounding a build."""

from __future__ import annotations

__all__ = ["search_parts", "part_exists", "translate_to_ground"]

from .geometry.types import Pose


def search_parts(query: str, *, category: str | None = None, limit: int = 10):
    """Search the part catalog.

    BM25 over part names, categories and keywords, times a popularity factor
    growing with the log of how often official models use the part (see
    :func:`ldraw_data.search.search_parts`). ``"2x4 brick"`` and
    ``"brick 2 x 4"`` both find 3001; printed and patterned variants rank
    below the plain part.

    Parameters
    ----------
    query : str
        Free text; ``category:Brick`` narrows to one category.
    category : str, optional
        Exact category filter (``"Brick"``, ``"Plate"``, ``"Slope"``, ...).
    limit : int
        Maximum number of results.

    Returns
    -------
    list of PartSpec
        Best first; each has ``part_id``, ``name``, ``category``, ``dims`` (the title's size, studs), and a
        flat sticker ``sticker_size_ldu``: (width, height) LDU as ``stick(..., rotation=0)`` lays it.
    """
    from ldraw_data.search import search_parts as _search

    return _search(query, category=category, limit=limit)


def part_exists(part_id: str) -> bool:
    """True when ``part_id`` (``"3001"`` or ``"3001.dat"``) is a catalog part."""
    from ldraw_data.catalog import get_catalog

    from .element import normalize_id

    return normalize_id(part_id) in get_catalog()


def translate_to_ground(build):
    """Move a build's top-level placements so its lowest point is at z = 0 (in place).

    Parameters
    ----------
    build : LegoBuild

    Returns
    -------
    LegoBuild
        The same build, for chaining.
    """
    dz = -build.bounding_box.min.z
    if dz:
        shift = Pose(None, (0, 0, dz))
        for p in build.placements:
            p.pose = shift @ p.pose
        build.mark_edited()
    return build
