"""What an LDraw part title says beyond its words: the nominal size (:func:`parse_dims`).

Below :mod:`ldraw_data.catalog` (which reads every title with it) and :mod:`ldraw_data.ranking` (which
makes size tokens of queries with it); imports nothing of the package. ``ldraw_data.catalog.parse_dims``
is the same function.
"""

from __future__ import annotations

__all__ = ["parse_dims"]

import re

# Numbers in titles: "2", "0.667", "2 1/3" (mixed), "1/2".
_NUM = r"(?:\d+(?:\.\d+)?(?:\s+\d+/\d+)?|\d+/\d+)"
_DIMS = re.compile(rf"(?<![\w./])({_NUM})\s*[xX]\s*({_NUM})(?:\s*[xX]\s*({_NUM}))?(?![\w/])")


def _num(text: str) -> float:
    parts = text.split()
    total = 0.0
    for p in parts:
        if "/" in p:
            a, b = p.split("/")
            total += float(a) / float(b) if float(b) else 0.0
        else:
            total += float(p)
    return round(total, 4)


def parse_dims(title: str) -> tuple[float, ...]:
    """Nominal size written in a part title.

    Parameters
    ----------
    title : str
        Part title, e.g. ``"Brick  2 x  4"``.

    Returns
    -------
    tuple of float
        The first run of two or three numbers joined by ``x`` in the title,
        in the order written (studs for bricks and plates; bricks' third
        number is the height in bricks). Numbers may be decimals (``0.667``)
        or mixed fractions (``2 1/3``). Empty when the title has no such run.

    Notes
    -----
    Rule: LDraw titles give sizes as ``W x L [x H]`` (Official Library
    Header Specification, "Part title" conventions), usually after the part
    type and optional angle. Numbers that are not joined by ``x`` (slope
    angles such as the ``45`` of ``Slope Brick 45 2 x 2``) are skipped; only
    the first ``x`` run counts, so sizes mentioned later (``... with 2 x 2
    Cutout``) are ignored.

    Examples
    --------
    >>> parse_dims("Brick  2 x  4")
    (2.0, 4.0)
    >>> parse_dims("Slope Brick 45  2 x  2")
    (2.0, 2.0)
    >>> parse_dims("Brick  1 x  2 x  5")
    (1.0, 2.0, 5.0)
    >>> parse_dims("Electric 9V Battery Box  4 x  8 x  2 1/3 Lid")
    (4.0, 8.0, 2.3333)
    >>> parse_dims("Minifig Hat")
    ()
    """
    m = _DIMS.search(title)
    if not m:
        return ()
    return tuple(_num(g) for g in m.groups() if g is not None)
