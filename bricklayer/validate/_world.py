"""World arrays of a build's flattened placements, shared by the validator modules.

One pass over :attr:`LegoBuild.flattened_placements` stacks every pose into a
``(n, 4, 4)`` array and groups the placements by part, so that the
connection, collision and support modules work in bulk (numpy, one batch per
distinct part) and never loop over placements in Python more than once.
"""

from __future__ import annotations

__all__ = ["WorldArrays", "world_arrays", "part_key"]

from dataclasses import dataclass

import numpy as np

from ..geometry.ldraw_frame import L2B


def part_key(element) -> str:
    """Geometry key of an element: its part id (colour does not change geometry).

    Unknown parts (``Element.unchecked`` with ``_known`` False, e.g. MPD-embedded
    stickers) get the prefix ``"?"`` so they never share a key with a library part.
    """
    return element.ldraw_id if element._known else "?" + element.ldraw_id


@dataclass(frozen=True, eq=False)
class WorldArrays:
    """Stacked world data of a build's flattened placements.

    Attributes
    ----------
    placements : list of FlatPlacement, length n
    poses : (n, 4, 4) float64, LDU
        Element-local (BrickLayer) -> world (BrickLayer frame, +Z up).
    mesh_transforms : (n, 4, 4) float64, LDU
        LDraw part coordinates -> world (BrickLayer frame): ``pose @
        element.ldraw_to_local`` for library parts, ``pose @ L2B`` for unknown
        or embedded parts (the importer places those with the LDraw frame
        rotated into the BrickLayer one, ``bricklayer.io``).
    keys : list of str, length n
        :func:`part_key` of each placement.
    groups : dict of str to (k,) int ndarray
        Placement indices per part key.
    """

    placements: list
    poses: np.ndarray
    mesh_transforms: np.ndarray
    keys: list
    groups: dict


def world_arrays(build) -> WorldArrays:
    """The (cached) :class:`WorldArrays` of a build; recomputed after any edit.

    Parameters
    ----------
    build : LegoBuild

    Returns
    -------
    WorldArrays
    """

    def make() -> WorldArrays:
        flat = build.flattened_placements
        n = len(flat)
        poses = np.empty((n, 4, 4))
        for i, fp in enumerate(flat):
            poses[i] = fp.pose._m
        keys = [part_key(fp.content) for fp in flat]
        groups: dict[str, list[int]] = {}
        for i, k in enumerate(keys):
            groups.setdefault(k, []).append(i)
        g = {k: np.asarray(v, dtype=np.intp) for k, v in groups.items()}
        mt = np.empty_like(poses)
        for k, idx in g.items():
            el = flat[idx[0]].content
            to_local = el.ldraw_to_local if el._known else L2B
            mt[idx] = poses[idx] @ to_local
        return WorldArrays(flat, poses, mt, keys, g)

    return build._cached("validate.world", make)
