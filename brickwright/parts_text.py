"""Part search results and part summaries as plain text: what ``brickwright search`` prints and what the MCP
server's ``search_parts`` and ``part_info`` tools answer. Reads the LDraw library only; runs no model code."""

from __future__ import annotations

__all__ = ["search_lines", "search_text", "part_info_text"]

from collections import defaultdict
from .errors import BrickWrightValueError

#: LDraw units per stud pitch (x and z) and per plate height (y): LDraw File Format spec, "LDraw units".
LDU_PER_STUD, LDU_PER_PLATE = 20.0, 8.0


def search_lines(results) -> list[str]:
    """One line per :class:`~ldraw_data.catalog.PartSpec`: part id, name, category and popularity (uses in
    the official set models), in the columns ``brickwright search`` prints; for a flat sticker also its size
    in LDU as ``stick(..., rotation=0)`` lays it (:attr:`~ldraw_data.catalog.PartSpec.sticker_size_ldu`).
    The id and name columns are as wide as the longest id and name listed (at least 12 and 50 characters), so a
    long sticker name never runs into the category column."""
    results = list(results)
    wid = max([12] + [len(s.part_id) for s in results])
    wname = max([50] + [len(s.name) for s in results])
    return [f"{s.part_id:<{wid}} {s.name:<{wname}} {s.category:<14} used {s.popularity}x" + _sticker_note(s)
            for s in results]


def _sticker_note(spec) -> str:
    """", sticker 38 x 46 LDU (width x height as stick() lays it, rotation=0)" for a flat sticker, else ""."""
    size = spec.sticker_size_ldu
    if size is None:
        return ""
    return f", sticker {size[0]:g} x {size[1]:g} LDU (width x height as stick() lays it, rotation=0)"


def search_text(query: str, *, category: str | None = None, limit: int = 10) -> str:
    """Search the part catalog (:func:`ldraw_data.search.search_parts`, BM25 x popularity) and format it.

    Parameters
    ----------
    query : str
        Free text, e.g. ``"brick 2 x 4"``; a part id finds that part.
    category : str, optional
        Exact category (``"Brick"``, ``"Plate"``, ...).
    limit : int
        Largest number of results (at least 1).

    Returns
    -------
    str
        One line per part (:func:`search_lines`).

    Raises
    ------
    ValueError
        Empty query, a limit below 1, or no part matches (the message says which and what to try).
    """
    from ldraw_data.search import search_parts

    if not query.strip():
        raise BrickWrightValueError('the query is empty; try e.g. "brick 2 x 4" or "slope 45"')
    if limit < 1:
        raise BrickWrightValueError(f"limit {limit}: give 1 or more results")
    res = search_parts(query, category=category, limit=limit)
    if not res:
        raise BrickWrightValueError(f"no part matches {query!r}" + (f" in category {category!r}" if category else "")
                         + "; try fewer or other words")
    return "\n".join(search_lines(res))


def _ranges(indices: list[int]) -> str:
    """``[0, 1, 2, 5]`` -> ``"0-2, 5"``."""
    out, start = [], None
    for i, v in enumerate(indices):
        if start is None:
            start = v
        if i + 1 == len(indices) or indices[i + 1] != v + 1:
            out.append(f"{start}" if start == v else f"{start}-{v}")
            start = None
    return ", ".join(out)


def part_info_text(part_id: str) -> str:
    """Name, category, size and connectors of one library part.

    Parameters
    ----------
    part_id : str
        ``"3001"``, ``"3001.dat"`` (any case). A ``~Moved to`` stub is followed, and said.

    Returns
    -------
    str
        Lines: ``ID  NAME`` with category, LDraw type and popularity; the bounding box of the part's mesh in
        its own frame (LDU, -Y up; extents also in studs of 20 LDU and plates of 8 LDU, studs included); the
        connectors (BrickNet labels, :func:`ldraw_data.connectors.part_connectors`) per type with their
        indices in bricklayer's ``Element(part_id, colour).connectors``, or a note when the part has none (it cannot connect to anything).

    Raises
    ------
    PartNotFoundError
        The id is not in the library (with close ids as suggestions).
    """
    from ldraw_data.catalog import get_catalog
    from ldraw_data.connectors import part_connectors
    from ldraw_data.mesh import part_mesh

    cat = get_catalog()
    spec = cat.get(part_id)
    lines = []
    if spec.moved_to:
        target = cat.resolve_moved(part_id)
        lines.append(f"{spec.part_id} was moved to {target.part_id} (~Moved to); use {target.part_id}:")
        spec = target
    kind = spec.ldraw_org or "Part"
    flags = [w for w, on in (("alias", spec.is_alias), ("obsolete", spec.is_obsolete),
                             ("printed", spec.is_printed), ("shortcut", spec.is_shortcut)) if on]
    lines.append(f"{spec.part_id}  {spec.name}  (category {spec.category}; {kind}"
                 + (f"; {', '.join(flags)}" if flags else "") + f"; used {spec.popularity}x in official sets)")
    mesh = part_mesh(spec.part_id)
    if mesh.is_empty:
        lines.append("size: no geometry")
    else:
        lo, hi = mesh.bbox[0].astype(float), mesh.bbox[1].astype(float)
        dx, dy, dz = hi - lo
        lines.append(f"size: {dx:g} x {dy:g} x {dz:g} LDU (x, y, z; bounding box in the part frame, -Y up, "
                     f"x {lo[0]:g}..{hi[0]:g}, y {lo[1]:g}..{hi[1]:g}, z {lo[2]:g}..{hi[2]:g}) = "
                     f"{dx / LDU_PER_STUD:g} x {dz / LDU_PER_STUD:g} studs, {dy / LDU_PER_PLATE:g} plates high")
    conns = part_connectors(spec.part_id)
    if not conns:
        lines.append("connectors: none (no BrickNet labels: nothing can connect to this part)")
    else:
        by_type: dict[str, list[int]] = defaultdict(list)
        for c in conns:
            by_type[c.type].append(c.index)
        lines.append(f"connectors ({len(conns)}; index = position in Element({spec.part_id!r}, colour).connectors): "
                     + "; ".join(f"{t} x{len(ix)} (index {_ranges(sorted(ix))})" for t, ix in by_type.items()))
    return "\n".join(lines)
