"""Basic parts by size: ``brick``, ``plate``, ``tile``, ``slope``, ``inverted_slope``.

Each helper returns the :class:`~bricklayer.element.Element` of the real
catalog part of that size. The size tables are built once per process from
the part catalog (:func:`ldraw_data.catalog.get_catalog`): plain parts
(not printed, not obsolete, not moved, not an alias, with anti-stud or tube
connectors so that they can be put on studs) whose title is exactly
the family's pattern, e.g. ``Brick 2 x 4``, ``Plate 1 x 2``, ``Tile 1 x 2
with Groove``, ``Slope Brick 45 2 x 1``, ``Slope Brick 45 2 x 2 Inverted
...``. When several parts share a size the one used most often in the
official set models wins (``PartSpec.popularity``), which picks 3001 for the
2 x 4 brick, 3023 for the 1 x 2 plate, 3069b for the 1 x 2 tile, 3039/3040b
for the 45 degree slopes and 3660a/3665a for the inverted ones.

Orientation: an element's footprint is the LDraw part's (``brick(2, 4)``
and ``brick(4, 2)`` are both 3001, four studs along X). Turn it with the
``rotation`` argument of ``LegoBuild.add`` (``Rotation.DEG_90``); check with
``element.rotated_footprint(rotation)``.
"""

from __future__ import annotations

__all__ = ["brick", "plate", "tile", "slope", "inverted_slope", "available_sizes", "SizeNotAvailableError"]

# One signature (all helpers): the sizes come first, positionally, footprint first, then the
# optional sizes with their defaults, then the colour, which may also be given as ``color=``.
# A Color or LDrawColor given where an optional size goes is the colour when the sizes after it
# are left out: ``brick(1, 8, Color.RED)`` is the red 1 x 8 brick, as ``plate(1, 8, Color.RED)``
# is the red plate. A colour in a footprint slot raises SizeNotAvailableError with the fix.

import re
from functools import lru_cache

from ..color import Color, LDrawColor
from ..element import Element
from ..errors import BrickLayerError

#: Title patterns of each family (LDraw titles: "<type> W x D [x H]").
_NUM = r"(\d+(?:\.\d+)?)"
_PATTERNS = {
    "brick": re.compile(rf"^Brick {_NUM} x {_NUM}(?: x {_NUM})?$"),
    "plate": re.compile(rf"^Plate {_NUM} x {_NUM}$"),
    "tile": re.compile(rf"^Tile {_NUM} x {_NUM}(?: with Groove)?$"),
    "slope": re.compile(rf"^Slope Brick (\d+) {_NUM} x {_NUM}(?: x {_NUM})?(?P<rest> .*)?$"),
    "inverted_slope": re.compile(rf"^Slope Brick (\d+) {_NUM} x {_NUM}(?: x {_NUM})? Inverted(?P<rest> .*)?$"),
}
#: Title words that make a slope something other than a plain single slope.
_NOT_PLAIN_SLOPE = re.compile(
    r"Double|Triple|Quadruple|Corner|Curved|Grille|Cutout|Convex|Concave|on Slope|Pins|Holes?\b|Inverted|"
    r"without Centre Stud|without Stud|Open Centre", re.IGNORECASE)


class SizeNotAvailableError(BrickLayerError, ValueError):
    """No real part exists for the requested size; the message lists the sizes that do."""


def _fmt(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:g}"


def _sits_on_studs(part_id: str) -> bool:
    """True when the part has anti-stud or tube connectors, i.e. it can be put on studs.

    The connector labels of a few old parts leave the underside out (733
    Brick 10 x 10: studs only; 6934 Tile 3 x 6: no connectors); a helper that
    picked them would return a part that joins nothing below it.
    """
    from ldraw_data.connectors import part_connectors

    return any(c.type in ("antistud", "tube") for c in part_connectors(part_id))


@lru_cache(maxsize=None)
def _tables() -> dict:
    """Family -> {size key: part id}; see the module notes for the rules."""
    from ldraw_data.catalog import get_catalog

    best: dict[str, dict[tuple, tuple[int, str]]] = {k: {} for k in _PATTERNS}
    for s in get_catalog():
        if not s.is_listed or s.is_printed or s.is_shortcut:
            continue
        name = s.name
        for fam, pat in _PATTERNS.items():
            m = pat.match(name)
            if not m:
                continue
            g = [x for x in m.groups()[: (5 if fam in ("slope", "inverted_slope") else 3)]]
            if fam in ("brick", "plate", "tile"):
                w, d = float(g[0]), float(g[1])
                h = float(g[2]) if len(g) > 2 and g[2] else 1.0
                key = (min(w, d), max(w, d)) + ((h,) if fam == "brick" else ())
            else:
                rest = m.group("rest") or ""
                if fam == "slope" and _NOT_PLAIN_SLOPE.search(rest):
                    continue
                if fam == "inverted_slope" and re.search(r"Double|Quadruple|Curved|Cutout|Convex|Pins", rest):
                    continue
                angle, run, wid = int(g[0]), float(g[1]), float(g[2])
                h = float(g[3]) if g[3] else 1.0
                if not (run.is_integer() and wid.is_integer()):
                    continue
                key = (angle, run, wid, h)
            if any(not float(v).is_integer() and fam != "slope" for v in key):
                continue
            if not _sits_on_studs(s.part_id):
                continue
            cur = best[fam].get(key)
            if cur is None or s.popularity > cur[0]:
                best[fam][key] = (s.popularity, s.part_id)
    return {fam: {k: v[1] for k, v in tab.items()} for fam, tab in best.items()}


def available_sizes(family: str) -> list[tuple]:
    """The sizes a helper accepts.

    Parameters
    ----------
    family : {"brick", "plate", "tile", "slope", "inverted_slope"}

    Returns
    -------
    list of tuple
        Sorted keys: ``(w, d, h)`` for bricks (w <= d, h in bricks),
        ``(w, d)`` for plates and tiles, ``(angle, run, width, h)`` for
        slopes (``h`` in bricks, may be fractional, e.g. 0.667).

    Raises
    ------
    KeyError
        Unknown family.
    """
    return sorted(_tables()[family])


def _lookup(family: str, key: tuple, shown: str, describe, hint: str = "") -> str:
    tab = _tables()[family]
    if key in tab:
        return tab[key]
    sizes = ", ".join(describe(k) for k in sorted(tab))
    raise SizeNotAvailableError(f"no real {family.replace('_', ' ')} {shown}{hint}; sizes that exist: {sizes}")


_DEFAULT = Color.LIGHT_BLUISH_GREY


def _is_colour(v) -> bool:
    return isinstance(v, (Color, LDrawColor))


def _colour_after_sizes(helper: str, required: dict, optional: list, color):
    """Sort out the colour of a size helper call (module notes, "One signature").

    ``required``: name -> value of the footprint sizes; ``optional``: ``[(name, value, default)]``
    of the optional sizes in signature order. A Color or LDrawColor in an optional size slot is
    the colour when every later slot keeps its default and ``color`` is not given too; returns
    ``(sizes, colour)`` with the defaults restored. Raises SizeNotAvailableError naming the slot
    for a colour in a footprint slot or one that cannot be the colour.
    """
    for name, v in required.items():
        if _is_colour(v):
            v = LDrawColor(v)  # repr "Color.RED"
            raise SizeNotAvailableError(
                f"{helper}(): {name} is a size in studs, got the colour {v!r}; give the sizes first, then "
                f"the colour, e.g. {helper}(1, 2, {v!r}) or {helper}(1, 2, color={v!r})")
    values = [v for _, v, _ in optional]
    for i, (name, v, default) in enumerate(optional):
        if not _is_colour(v):
            continue
        shown = LDrawColor(v)
        later = [n for n, x, d in optional[i + 1:] if not (x is d or x == d)]
        if later or color is not _DEFAULT:
            raise SizeNotAvailableError(
                f"{helper}(): {name} is a size, got the colour {shown!r}; pass the colour after the sizes or as "
                f"color={shown!r}")
        values[i:] = [d for _, _, d in optional[i:]]
        return values, v
    return values, color


def _wd(w, d) -> tuple[float, float]:
    if isinstance(w, bool) or isinstance(d, bool):
        raise SizeNotAvailableError(f"sizes are positive whole studs, got {w!r} x {d!r}")
    w, d = float(w), float(d)
    if w <= 0 or d <= 0:
        raise SizeNotAvailableError(f"sizes are positive whole studs, got {w:g} x {d:g}")
    return min(w, d), max(w, d)


def brick(w: int, d: int, h: int = 1, color=_DEFAULT) -> Element:
    """The real brick of a size, long side along X: ``brick(2, 4)`` runs 4 studs along X, 2 along Y.

    The order of ``w`` and ``d`` does not choose the direction: the element
    keeps the LDraw part's footprint, long side along X, whatever the order;
    ``add(..., rotation=Rotation.DEG_90)`` makes it run along Y
    (``element.rotated_footprint(rotation)`` gives (x studs, y studs)).

    Parameters
    ----------
    w, d : int, studs
        Footprint; either order (``brick(2, 4)`` and ``brick(4, 2)`` are both
        3001). Orientation comes from the placement's rotation: the element
        keeps the LDraw part's footprint, long side along X.
    h : int, bricks
        Height in bricks (1 brick = 3 plates = 24 LDU); real tall bricks are
        1 x 1 x 3, 1 x 2 x 2, 1 x 4 x 3, 2 x 2 x 3, 2 x 4 x 3, ...
    color : Color, LDrawColor or int
        Default light bluish grey (71). Every size helper takes the sizes
        first and the colour after them, positionally or as ``color=``; a
        Color given in place of an optional size is the colour (``brick(1,
        8, Color.RED)`` is the red 1 x 8 brick, the height keeps its default).

    Returns
    -------
    Element

    Raises
    ------
    SizeNotAvailableError
        No such brick; the message lists every size that exists
        (1 x 1 to 1 x 16, 2 x 2 to 2 x 10, 4 x 6, 4 x 10, 4 x 12, 8 x 8, ...).
        Also a colour in place of ``w`` or ``d``, or a colour followed by a size.

    Examples
    --------
    >>> brick(2, 4).ldraw_id
    '3001'
    >>> brick(1, 2, 2).ldraw_id
    '3245a'
    """
    (h,), color = _colour_after_sizes("brick", {"w": w, "d": d}, [("h", h, 1)], color)
    a, b = _wd(w, d)
    hint = (f" (h is the height in bricks; if {h!r} is a colour code, pass color={h!r})"
            if isinstance(h, int) and not isinstance(h, bool) and h != 1 else "")
    pid = _lookup("brick", (a, b, float(h)), f"{_fmt(w)} x {_fmt(d)} x {_fmt(h)}",
                  lambda k: f"{_fmt(k[0])}x{_fmt(k[1])}" + (f"x{_fmt(k[2])}" if k[2] != 1 else ""), hint)
    return Element(pid, color)


def plate(w: int, d: int, color=_DEFAULT) -> Element:
    """The real plate of a size, long side along X: ``plate(6, 12)`` runs 12 studs along X, 6 along Y.

    1 plate = 8 LDU high. The order of ``w`` and ``d`` does not choose the
    direction: the element keeps the LDraw part's footprint, long side along
    X; ``add(..., rotation=Rotation.DEG_90)`` makes it run along Y
    (``element.rotated_footprint(rotation)`` gives (x studs, y studs)).

    Parameters
    ----------
    w, d : int, studs
        Footprint, either order (``plate(1, 2)`` and ``plate(2, 1)`` are 3023).
    color : Color, LDrawColor or int
        Default light bluish grey (71). Every size helper takes the sizes
        first and the colour after them, positionally or as ``color=``; a
        Color given in place of an optional size is the colour (``brick(1,
        8, Color.RED)`` is the red 1 x 8 brick, the height keeps its default).

    Returns
    -------
    Element

    Raises
    ------
    SizeNotAvailableError
        No such plate (there is no 5 x 5, 3 x 4, ...); lists the sizes that exist.

    Examples
    --------
    >>> plate(1, 2).ldraw_id
    '3023'
    """
    _, color = _colour_after_sizes("plate", {"w": w, "d": d}, [], color)
    a, b = _wd(w, d)
    pid = _lookup("plate", (a, b), f"{_fmt(w)} x {_fmt(d)}", lambda k: f"{_fmt(k[0])}x{_fmt(k[1])}")
    return Element(pid, color)


def tile(w: int, d: int, color=_DEFAULT) -> Element:
    """The real tile of a size, long side along X: ``tile(2, 4)`` runs 4 studs along X, 2 along Y.

    A tile is a flat plate without studs, with a groove where one exists. The
    order of ``w`` and ``d`` does not choose the direction: the element keeps
    the LDraw part's footprint, long side along X; ``add(...,
    rotation=Rotation.DEG_90)`` makes it run along Y.

    Parameters
    ----------
    w, d : int, studs
        Footprint, either order.
    color : Color, LDrawColor or int
        Default light bluish grey (71). Every size helper takes the sizes
        first and the colour after them, positionally or as ``color=``; a
        Color given in place of an optional size is the colour (``brick(1,
        8, Color.RED)`` is the red 1 x 8 brick, the height keeps its default).

    Returns
    -------
    Element

    Raises
    ------
    SizeNotAvailableError
        Lists the sizes that exist (1 x 1, 1 x 2, 1 x 3, 1 x 4, 1 x 6, 1 x 8,
        2 x 2, 2 x 3, 2 x 4, 2 x 6, 3 x 6, 4 x 4, 8 x 16).

    Examples
    --------
    >>> tile(1, 2).ldraw_id
    '3069b'
    """
    _, color = _colour_after_sizes("tile", {"w": w, "d": d}, [], color)
    a, b = _wd(w, d)
    pid = _lookup("tile", (a, b), f"{_fmt(w)} x {_fmt(d)}", lambda k: f"{_fmt(k[0])}x{_fmt(k[1])}")
    return Element(pid, color)


def _slope_desc(k) -> str:
    return f"{k[0]}deg {_fmt(k[1])}x{_fmt(k[2])}" + (f"x{_fmt(k[3])}" if k[3] != 1 else "")


def slope(run: int = 2, width: int = 1, angle: int = 45, h: float = 1, color=_DEFAULT) -> Element:
    """The real single slope brick of a size and angle: ``run`` studs along Y (falling toward -Y), ``width`` along X.

    The 55 degree 1 x 6 x 5 (30249) is the exception: its 6 studs run along
    Y; check any part with ``element.rotated_footprint()`` (x studs, y studs).

    Sizes are given as LDraw titles give them: ``run`` studs from the low
    front edge to the back (the slope plus the row of studs at its top),
    then ``width`` studs along the ridge, then the height ``h`` in bricks.
    In the element's frame the slope falls toward -Y (front), the studs are
    at the back (+Y) and the ridge runs along X. Placed with a quarter turn
    (counter-clockwise seen from above): ``Rotation.DEG_90`` makes it fall
    toward +X, ``DEG_180`` toward +Y, ``DEG_270`` toward -X.

    Parameters
    ----------
    run : int, studs
    width : int, studs
    angle : int, degrees
        Nominal angle of the title: 18, 33, 45, 55, 65 or 75 (45 has the most sizes).
    h : float, bricks
        1 for most; 75 degree slopes are 3 high, 65 degree 2 high, the
        31 degree 1 x 1 / 1 x 2 "cheese" slopes 0.667 (two plates).
    color : Color, LDrawColor or int
        Default light bluish grey (71). Every size helper takes the sizes
        first and the colour after them, positionally or as ``color=``; a
        Color given in place of an optional size is the colour (``brick(1,
        8, Color.RED)`` is the red 1 x 8 brick, the height keeps its default).

    Accepted combinations (the catalog's plain slopes): 45: 2x1, 2x2, 2x3,
    2x4, 2x6, 2x8, 4x4; 33: 3x1, 3x2, 3x3, 3x4, 3x6, 8x1x3; 18: 4x1, 4x2;
    65: 2x1x2; 75: 2x1x3, 2x2x3; 55: 1x6x5; 31: 1x1x0.667, 1x2x0.667; 10: 6x8.
    :func:`available_sizes` ``("slope")`` (``from bricklayer import available_sizes``) gives the exact list.

    Returns
    -------
    Element

    Raises
    ------
    SizeNotAvailableError
        No such slope; lists the combinations that exist.

    Examples
    --------
    >>> slope(2, 1).ldraw_id
    '3040b'
    >>> slope(2, 2).ldraw_id
    '3039'
    """
    (run, width, angle, h), color = _colour_after_sizes(
        "slope", {}, [("run", run, 2), ("width", width, 1), ("angle", angle, 45), ("h", h, 1)], color)
    key = (int(angle), float(run), float(width), round(float(h), 3))
    tab = _tables()["slope"]
    if key not in tab:  # titles write fractions as 0.667: compare with tolerance
        near = [k for k in tab if k[:3] == key[:3] and abs(k[3] - key[3]) < 0.01]
        if near:
            key = near[0]
    pid = _lookup("slope", key, f"{angle} degrees {_fmt(run)} x {_fmt(width)} x {_fmt(h)}", _slope_desc)
    return Element(pid, color)


def inverted_slope(run: int = 2, width: int = 1, angle: int = 45, h: float = 1, color=_DEFAULT) -> Element:
    """The real single inverted slope brick of a size and angle: ``run`` studs along Y, ``width`` along X.

    Same size convention as :func:`slope`: ``run`` from the overhanging
    front edge to the back, ``width`` along the ridge, ``h`` in bricks. In
    the element's frame the top is flat with studs over the whole footprint,
    the underside rises toward -Y (front) and the anti-studs are at the back.

    Parameters
    ----------
    run, width : int, studs
    angle : int, degrees
        45 (2x1, 2x2), 33 (3x1, 3x2), 75 (2x1x3), 60 (4x1x3), 33 (5x6x2).
    h : float, bricks
    color : Color, LDrawColor or int
        Default light bluish grey (71). Every size helper takes the sizes
        first and the colour after them, positionally or as ``color=``; a
        Color given in place of an optional size is the colour (``brick(1,
        8, Color.RED)`` is the red 1 x 8 brick, the height keeps its default).

    Returns
    -------
    Element

    Raises
    ------
    SizeNotAvailableError
        Lists the combinations that exist.

    Examples
    --------
    >>> inverted_slope(2, 2).ldraw_id
    '3660a'
    >>> inverted_slope(2, 1).ldraw_id
    '3665a'
    """
    (run, width, angle, h), color = _colour_after_sizes(
        "inverted_slope", {}, [("run", run, 2), ("width", width, 1), ("angle", angle, 45), ("h", h, 1)], color)
    key = (int(angle), float(run), float(width), float(h))
    pid = _lookup("inverted_slope", key, f"{angle} degrees {_fmt(run)} x {_fmt(width)} x {_fmt(h)}", _slope_desc)
    return Element(pid, color)
