"""Limits on what one model file may expand to, checked before anything is expanded.

An LDraw file is small text, but what it describes is not bounded: an MPD whose
submodels each place the next one twice describes 2^40 parts in about 4 KB, and a
chain of 10,000 submodels nests 10,000 deep (deeper than Python's recursion limit
allows a recursive walk). Every reader of models (:func:`ldraw_data.io.flatten`,
:func:`bricklayer.read_ldraw`, and through them ``brickwright info``, ``validate``,
``render`` and ``instructions``) first measures the submodel graph with
:func:`measure_submodels`, which multiplies part counts through the graph (each
submodel measured once, so it takes time linear in the file) and raises
:class:`~ldraw_data.errors.LDrawLimitError` past these limits:

- :data:`MAX_SUBMODEL_DEPTH`: nesting of submodels (and MPD-embedded parts) below
  the main model;
- :data:`MAX_FLAT_PARTS`: part placements once every submodel is expanded;
- :data:`MAX_PART_TRIANGLES`: triangles (or edge lines) of one part's mesh, checked
  by :mod:`ldraw_data.mesh` before the mesh is assembled.
"""

from __future__ import annotations

__all__ = ["MAX_SUBMODEL_DEPTH", "MAX_FLAT_PARTS", "MAX_PART_TRIANGLES", "SubmodelTree", "measure_submodels"]

from dataclasses import dataclass
from typing import Callable

from ..errors import LDrawLimitError
from .parse import LDrawFile

#: Deepest nesting of submodel (or MPD-embedded part) references below the main model. A
#: model that only places parts has depth 0, one submodel level depth 1. The deepest of the 67
#: official set models nests 10 levels (10227 B-wing Starfighter), so 100 leaves ten times
#: that; it also keeps every recursive walk of a build (a few stack frames per level) far
#: below Python's default recursion limit of 1,000 frames.
MAX_SUBMODEL_DEPTH = 100

#: Most part placements a model may expand to (every submodel placement expanded). The
#: largest builds the project validates have 99,693 parts and the largest official set
#: model 7,541 (10179 Millennium Falcon UCS); 1,000,000 is ten times the former. A flattened
#: placement costs about 0.5-1 KB in memory (a 4x4 float64 matrix plus its record), so the
#: limit also bounds a read to about 1 GB.
MAX_FLAT_PARTS = 1_000_000

#: Most triangles, and separately most edge lines, one part's mesh may have. The largest
#: library parts are baseplates: 782 (Baseplate 50 x 50) has 120,084 triangles and 80,040
#: edge lines; 2,000,000 is about sixteen times that, 144 MB of float64 triangle corners.
MAX_PART_TRIANGLES = 2_000_000


@dataclass(frozen=True)
class SubmodelTree:
    """What a model expands to, measured without expanding it.

    Attributes
    ----------
    depth : int
        Deepest nesting of block references (submodels and embedded parts) below
        the main model; 0 when the main model places only parts.
    parts : int
        Part placements after expanding every submodel (an embedded part counts once
        where it is placed; a reference closing a cycle counts nothing).
    back_edges : frozenset of (str, int)
        ``(key, line)`` (the key the block holding the line was looked up by) of the submodel references that close a cycle (a submodel
        that places, directly or not, a submodel that places it): readers skip them with
        a warning. Found by a depth-first walk in file order, so every reader skips the
        same lines.
    """

    depth: int
    parts: int
    back_edges: frozenset


def _chain(frames: list, limit: int = 6) -> str:
    names = [repr(fr[0].name) for fr in frames]
    if len(names) > limit:
        names = names[:3] + [f"... {len(names) - 5} more ..."] + names[-2:]
    return " > ".join(names)


def measure_submodels(
    main: LDrawFile,
    lookup: Callable[[str], LDrawFile | None],
    is_submodel: Callable[[LDrawFile], bool],
    *,
    max_depth: int | None = None,
    max_parts: int | None = None,
) -> SubmodelTree:
    """Measure nesting depth and expanded part count of a model; raise past the limits.

    An iterative depth-first walk from ``main`` in file order: each block is measured
    once and its counts reused wherever it is placed, so a file of n lines takes O(n)
    time whatever it expands to; Python integers do not overflow (2^40 is counted exactly
    unless the walk stops first at the limit).

    Parameters
    ----------
    main : LDrawFile
        The main model (first block of the file).
    lookup : callable
        ``lookup(key)`` (normalized reference name) -> the block it names (an MPD block or
        a model file beside the model), or None for a part (library or unknown).
    is_submodel : callable
        ``is_submodel(block)`` -> True when the block is walked as a submodel, False when it
        is one part (an MPD-embedded part; its own references count for the depth only).
    max_depth, max_parts : int, optional
        Default :data:`MAX_SUBMODEL_DEPTH` and :data:`MAX_FLAT_PARTS` (read at call time).

    Returns
    -------
    SubmodelTree

    Raises
    ------
    LDrawLimitError
        Naming the file and line of the reference that goes deeper than ``max_depth``, or
        the block whose expanded part count passes ``max_parts``, the limit and what to do.
    """
    max_depth = MAX_SUBMODEL_DEPTH if max_depth is None else max_depth
    max_parts = MAX_FLAT_PARTS if max_parts is None else max_parts
    # frame: [block, refs, next ref index, deepest child depth + 1, parts so far, walked as a submodel,
    #         the key it was looked up by]
    stack: list[list] = [[main, main.refs, 0, 0, 0, True, main.key]]
    on_stack = {main.key}
    done: dict[str, tuple[int, int]] = {}
    back: set[tuple[str, int]] = set()

    def too_many(fr: list, line: int) -> LDrawLimitError:
        blk = fr[0]
        return LDrawLimitError(
            blk.source or blk.name, line,
            f"the model places more than {max_parts:,} parts once its submodels are expanded (counted "
            f"up to here, in {blk.name!r}, via {_chain(stack)}); the limit is ldraw_data.MAX_FLAT_PARTS = "
            f"{max_parts:,}. Check for submodels that place each other over and over (each placing the "
            "next several times multiplies the count), or split the model into several files.")

    while stack:
        fr = stack[-1]
        blk, refs, i = fr[0], fr[1], fr[2]
        if i < len(refs):
            fr[2] = i + 1
            r = refs[i]
            key = r.key
            child = lookup(key)
            if child is None:
                fr[4] += 1
            elif key in on_stack:
                if is_submodel(child):
                    back.add((fr[6], r.line))  # a cycle: skipped by every reader
                else:
                    fr[4] += 1  # an embedded part in a cycle: the mesh builder skips the inner reference
            elif key in done:
                d, n = done[key]
                fr[3] = max(fr[3], d + 1)
                fr[4] += n if is_submodel(child) else 1
            else:
                if len(stack) > max_depth:
                    raise LDrawLimitError(
                        blk.source or blk.name, r.line,
                        f"submodels are nested more than {max_depth} levels deep ({_chain(stack)} > "
                        f"{r.name!r}); the limit is ldraw_data.MAX_SUBMODEL_DEPTH = {max_depth} (official "
                        "models nest at most 10 levels). Merge the deepest submodels into their parents.")
                stack.append([child, child.refs, 0, 0, 0, is_submodel(child), key])
                on_stack.add(key)
                continue
            if fr[4] > max_parts:
                raise too_many(fr, r.line)
            continue
        stack.pop()
        on_stack.discard(fr[6])
        done[fr[6]] = (fr[3], fr[4])
        if stack:
            parent = stack[-1]
            parent[3] = max(parent[3], fr[3] + 1)
            parent[4] += fr[4] if fr[5] else 1
            if parent[4] > max_parts:
                raise too_many(parent, parent[1][parent[2] - 1].line)
    d, n = done[main.key]
    return SubmodelTree(d, n, frozenset(back))
