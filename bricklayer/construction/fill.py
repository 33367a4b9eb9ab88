"""Fill a cuboid or a wedge with bricks and plates: ``fill_box``, ``fill_slope``, ``fill_inverted_slope``.

Every layer is cut into one-stud-wide strips of 1 x N bricks or plates
(N from the real sizes, :func:`~bricklayer.construction.parts.available_sizes`);
strips run along X in even layers and along Y in odd ones, and the joints
of neighbouring strips are staggered (running bond). Each part sits on the
full layer below (nothing can float) and parts never overlap (no
collisions). Crossed layers tie every strip to the strips it crosses, so
two or more layers are connected; the fill is checked on the connection
graph and other staggers are tried until it is.
"""

from __future__ import annotations

__all__ = ["fill_box", "fill_slope", "fill_inverted_slope"]

import logging

from ..color import Color
from ..geometry.types import Rotation
from .parts import _tables, inverted_slope, slope
from ..errors import BrickLayerValueError

log = logging.getLogger(__name__)


def _lengths(family: str) -> list[int]:
    """Real 1 x N lengths of bricks (1 high) or plates, longest first."""
    tab = _tables()[family]
    if family == "brick":
        return sorted({int(k[1]) for k in tab if k[0] == 1 and k[2] == 1}, reverse=True)
    return sorted({int(k[1]) for k in tab if k[0] == 1}, reverse=True)


def _split(length: int, lengths: list[int], reverse: bool = False, seed: int | None = None) -> list[int]:
    """Cut a strip into real lengths, longest first; ``reverse`` flips the order
    (running bond: neighbouring strips get their joints elsewhere), ``seed``
    shuffles it (a further stagger tried when the first ones do not connect)."""
    out, left = [], length
    while left:
        n = max(n for n in lengths if n <= left)
        out.append(n)
        left -= n
    if reverse:
        out.reverse()
    if seed is not None and len(out) > 1:
        import random

        random.Random(seed).shuffle(out)
    return out


def _element(family: str, n: int, color):
    from .parts import brick, plate

    return brick(1, n, 1, color) if family == "brick" else plate(1, n, color)


def _add_strip(build, family, color, along_x: bool, fixed: int, start: int, segs: list[int], z: int):
    pos = start
    for n in segs:
        el = _element(family, n, color)
        w, d = el.rotated_footprint(Rotation.DEG_0)
        rot = Rotation.DEG_0 if (w >= d) == along_x or n == 1 else Rotation.DEG_90
        xy = (pos, fixed) if along_x else (fixed, pos)
        build.add(el, (xy[0], xy[1], z), rot)
        pos += n


def _layer(build, family, color, x0, y0, w, d, z, along_x: bool, stagger: int, phase: int = 0):
    """Fill the rectangle [x0, x0+w) x [y0, y0+d) at plate height z with strips.

    A one-stud-wide rectangle always gets strips along its length.
    ``phase`` shifts which strips start with a half-length part.
    """
    lengths = _lengths(family)
    if w == 1 and d > 1:
        along_x = False
    elif d == 1 and w > 1:
        along_x = True
    strips, length = (d, w) if along_x else (w, d)
    for s in range(strips):
        segs = _split(length, lengths, reverse=(s + phase) % 2 == 1,
                      seed=None if not stagger else stagger * 7919 + s * 31 + phase)
        if along_x:
            _add_strip(build, family, color, True, y0 + s, x0, segs, z)
        else:
            _add_strip(build, family, color, False, x0 + s, y0, segs, z)


def _layers_of(height: int, footprint_single: bool) -> list[str]:
    fams = ["brick"] * (height // 3) + ["plate"] * (height % 3)
    if len(fams) == 1 and fams[0] == "brick" and not footprint_single:
        fams = ["plate"] * 3  # one brick course of several parts cannot connect; three plate courses can
    return fams


def fill_box(width: int, depth: int, height: int, color=Color.LIGHT_BLUISH_GREY, *, max_tries: int = 16):
    """Fill a cuboid with bricks and plates in a staggered, crossed pattern.

    Parameters
    ----------
    width, depth : int, studs
        Extent along X and Y (>= 1).
    height : int, plates
        Extent along Z in plates (3 per brick, >= 1). Whole bricks are used
        where they fit, plates for the remainder (on top).
    color : Color, LDrawColor or int
    max_tries : int
        Staggers tried before giving up on connectivity.

    Returns
    -------
    LegoBuild
        The fill with its minimum corner at the grid origin (add it with
        ``build.add(fill, position)``). Valid (no collisions, nothing
        floating). Connected whenever that is possible: always with two or
        more layers, and with one layer (a height of one plate) only when
        a single plate covers the footprint; a single brick course is
        built as three plate courses for that reason.

    Raises
    ------
    ValueError
        A size below one stud or plate.

    Examples
    --------
    >>> fill_box(4, 2, 3).is_connected()
    True
    """
    from ..build import LegoBuild
    from .parts import available_sizes

    if min(width, depth, height) < 1 or any(int(v) != v for v in (width, depth, height)):
        raise BrickLayerValueError(f"fill_box needs whole sizes >= 1 (studs, studs, plates), got {width}, {depth}, {height}")
    width, depth, height = int(width), int(depth), int(height)
    single_brick = (min(width, depth), max(width, depth), 1.0) in _tables()["brick"]
    single_plate = (float(min(width, depth)), float(max(width, depth))) in set(available_sizes("plate"))
    fams = _layers_of(height, single_brick)
    best = None
    for attempt in range(max_tries):
        b = LegoBuild(name=f"fill_box_{width}x{depth}x{height}")
        z = 0
        for i, fam in enumerate(fams):
            if len(fams) == 1 and ((fam == "plate" and single_plate) or (fam == "brick" and single_brick)):
                from .parts import brick, plate

                b.add(brick(width, depth, 1, color) if fam == "brick" else plate(width, depth, color), (0, 0, z),
                      Rotation.DEG_0 if (width >= depth) == _long_x(fam, width, depth) else Rotation.DEG_90)
            else:
                _layer(b, fam, color, 0, 0, width, depth, z, along_x=(i + attempt) % 2 == 0, stagger=attempt // 4,
                       phase=i + (attempt // 2) * i)
            z += 3 if fam == "brick" else 1
        if b.is_connected():
            return b
        best = best or b
    log.info("fill_box %dx%dx%d: no connected arrangement found (single layer?)", width, depth, height)
    return best


def _long_x(fam, w, d) -> bool:
    from .parts import brick, plate

    el = brick(w, d) if fam == "brick" else plate(w, d)
    fw, fd = el.rotated_footprint(Rotation.DEG_0)
    return fw >= fd


def _wedge(width, depth, color, inverted: bool, max_tries: int = 8):
    if width < 1 or depth < 2:
        raise BrickLayerValueError(f"a 45 degree wedge needs width >= 1 and depth >= 2 studs, got {width} x {depth}")
    first = None
    for attempt in range(max_tries):
        b = _wedge_once(width, depth, color, inverted, attempt)
        if b.is_connected():
            return b
        first = first or b
    log.info("fill wedge %dx%d: no connected arrangement found (a single course?)", width, depth)
    return first


def _wedge_once(width, depth, color, inverted: bool, attempt: int):
    from ..build import LegoBuild

    b = LegoBuild(name=f"fill_{'inverted_' if inverted else ''}slope_{width}x{depth}")
    widths = sorted({int(k[2]) for k in _tables()["inverted_slope" if inverted else "slope"]
                     if k[0] == 45 and k[1] == 2 and k[3] == 1}, reverse=True)
    maker = inverted_slope if inverted else slope
    courses = depth - 1
    for i in range(courses):
        z = 3 * i
        front = (depth - 2 - i) if inverted else i  # first row (y) of the slope pieces
        rest0, rest1 = (front + 2, depth)
        # slope pieces across the width, staggered by course
        x = 0
        segs = _split(width, widths, reverse=i % 2 == 1, seed=None if not attempt else attempt * 104729 + i)
        for n in segs:
            el = maker(2, n, 45, 1, color)
            w, d = el.rotated_footprint(Rotation.DEG_0)
            if (w, d) == (n, 2):
                b.add(el, (x, front, z))
            else:  # never for the real 45 degree slopes (ridge along X); guard for other parts
                raise RuntimeError(f"unexpected footprint {w}x{d} for {el.ldraw_id}")
            x += n
        if rest1 > rest0:
            _layer(b, "brick", color, 0, rest0, width, rest1 - rest0, z, along_x=i % 2 == 1, stagger=attempt, phase=i + 1)
    return b


def fill_slope(width: int, depth: int, color=Color.LIGHT_BLUISH_GREY):
    """A 45 degree ramp rising toward +Y, built of slope bricks over staggered brick courses.

    Parameters
    ----------
    width : int, studs
        Extent along X (the ridge direction).
    depth : int, studs
        Extent along Y (>= 2). The ramp has ``depth - 1`` brick courses:
        course ``i`` (from z = 3 i plates) covers rows ``i .. depth - 1``,
        with 45 degree slopes (``slope(2, n)``) on rows ``i, i + 1`` and
        1 x N bricks behind them.
    color : Color, LDrawColor or int

    Returns
    -------
    LegoBuild
        Minimum corner at the grid origin; valid (each part sits on the
        course below) and connected.

    Raises
    ------
    ValueError
        ``depth < 2`` or ``width < 1``.
    """
    return _wedge(width, depth, color, inverted=False)


def fill_inverted_slope(width: int, depth: int, color=Color.LIGHT_BLUISH_GREY):
    """An overhang growing toward -Y with height, of 45 degree inverted slopes over staggered courses.

    Parameters
    ----------
    width : int, studs
        Extent along X.
    depth : int, studs
        Extent along Y at the top (>= 2). Course ``i`` (from z = 3 i
        plates) covers rows ``depth - 2 - i .. depth - 1``: an inverted
        slope (``inverted_slope(2, n)``) on its two front rows, whose back
        row rests on the course below, and 1 x N bricks behind.
    color : Color, LDrawColor or int

    Returns
    -------
    LegoBuild
        Minimum corner at the grid origin; valid and connected.

    Raises
    ------
    ValueError
        ``depth < 2`` or ``width < 1``.
    """
    return _wedge(width, depth, color, inverted=True)
