"""Mirror a build, swapping left/right parts for their mirror-image counterparts."""

from __future__ import annotations

__all__ = ["mirror", "mirror_counterpart"]

import logging
import re
from functools import lru_cache

import numpy as np

from ..element import Element
from ..geometry.types import Pose
from ..errors import BrickLayerValueError

log = logging.getLogger(__name__)

_REFLECT = {"x": np.diag([-1.0, 1, 1, 1]), "y": np.diag([1.0, -1, 1, 1])}
#: Vertex match tolerance for symmetry tests, LDU (LDraw files use 2-4 decimals).
_SYM_TOL = 0.05


@lru_cache(maxsize=None)
def _local_vertices(part_id: str) -> np.ndarray:
    from ldraw_data.mesh import part_mesh

    e = Element(part_id)
    v = np.unique(np.round(np.asarray(part_mesh(part_id + ".dat").triangles, dtype=np.float64).reshape(-1, 3), 3),
                  axis=0)
    m = e.ldraw_to_local
    return v @ m[:3, :3].T + m[:3, 3]


def _matches(a: np.ndarray, b: np.ndarray) -> bool:
    if len(a) != len(b) or not len(a):
        return len(a) == len(b)
    from scipy.spatial import cKDTree

    d, _ = cKDTree(b).query(a)
    return bool(np.max(d) <= _SYM_TOL)


@lru_cache(maxsize=None)
def _symmetry(part_id: str) -> str | None:
    """Local reflection ("x" or "y") that maps the part onto itself, else None."""
    v = _local_vertices(part_id)
    for ax, r in _REFLECT.items():
        if _matches(v @ r[:3, :3].T, v):
            return ax
    return None


@lru_cache(maxsize=None)
def mirror_counterpart(part_id: str) -> tuple[str, str] | None:
    """The mirror-image part of an asymmetric part, from the catalog titles.

    Parameters
    ----------
    part_id : str

    Returns
    -------
    (str, str) or None
        ``(counterpart id, local reflection axis "x"/"y")``: the part whose
        title swaps ``Left`` and ``Right`` (all other words equal) and whose
        mesh is the reflected mesh; None when there is none.

    Notes
    -----
    Rule: LDraw names mirror pairs by the words Left/Right in otherwise
    equal titles (``Wedge Plate 4 x 2 Right`` 41769 / ``... Left`` 41770).
    """
    from ldraw_data.catalog import get_catalog

    cat = get_catalog()
    if part_id not in cat:
        return None
    name = cat.get(part_id).name
    if not re.search(r"\b(Left|Right)\b", name):
        return None
    swapped = re.sub(r"\b(Left|Right)\b", lambda m: "Right" if m.group(1) == "Left" else "Left", name)
    cands = [s for s in cat if s.name == swapped and s.is_listed]
    cands.sort(key=lambda s: (s.is_printed, -s.popularity))
    v = _local_vertices(part_id)
    for s in cands:
        w = _local_vertices(s.part_id)
        for ax, r in _REFLECT.items():
            if _matches(v @ r[:3, :3].T, w):
                return s.part_id, ax
    if cands:
        log.info("mirror: %s and %s are named as a pair but their meshes are not reflections", part_id,
                 cands[0].part_id)
        return cands[0].part_id, "x"
    return None


def mirror(build, axis: str = "x"):
    """Mirror a build through the plane ``axis = 0`` of its frame.

    Symmetric parts stay (re-posed so they remain proper rigid placements);
    asymmetric parts are replaced by their mirror-image counterparts
    (:func:`mirror_counterpart`).

    Parameters
    ----------
    build : LegoBuild
    axis : {"x", "y"}
        Normal of the mirror plane (through the origin): "x" swaps left and
        right, "y" front and back.

    Returns
    -------
    LegoBuild
        A flat build (one placement per part, names kept with ``/`` turned
        into ``.``); joints are not carried over.

    Raises
    ------
    ValueError
        An unknown axis, or an asymmetric part without a mirror counterpart
        (the message names the part and its placement).

    Examples
    --------
    Wedge plate 41769 (Right) becomes 41770 (Left).
    """
    from ..build import LegoBuild, Placement

    if axis not in _REFLECT:
        raise BrickLayerValueError(f"axis is 'x' or 'y', got {axis!r}")
    m = _REFLECT[axis]
    out = LegoBuild(name=(build.name + "_mirrored") if build.name else None)
    for fp in build.flattened_placements:
        el = fp.content
        pid = el.ldraw_id
        sym = _symmetry(pid)
        if sym is not None:
            new_el, s = el, _REFLECT[sym]
        else:
            cp = mirror_counterpart(pid)
            if cp is None:
                raise BrickLayerValueError(f"cannot mirror {build.describe(fp)}: the part is not symmetric and the catalog "
                                 "has no Left/Right counterpart; replace it with a symmetric part first")
            new_el, s = Element(cp[0], el.color), _REFLECT[cp[1]]
        pose = Pose.from_matrix(m @ fp.pose.matrix @ s)
        name = build.name_of(fp)
        name = name.replace("/", ".") if name else None  # a nested name path "sub/part" becomes "sub.part"
        out.add_raw(new_el, pose, name=name if name is None or not out.has_name(name) else None)
    return out
