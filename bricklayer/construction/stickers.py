"""Putting a sticker on a part: :func:`stick`.

A sticker (an LDraw part titled "Sticker ...", a slab 0.25 LDU thin) has one connector, its adhesive back
(``sticker_back``, :mod:`ldraw_data.stickers`); it mates with no other connector, so ``connect()`` cannot
place it. :func:`stick` finds the target part's surface by casting rays at its drawn mesh
(:func:`ldraw_data.mesh.part_mesh`, the render mesh the validator's collision shapes come from) and lays the
sticker's back flat on it, which is what the validator's rule "sticker on a surface"
(:func:`bricklayer.validate.support._sticker_surface_edges`) accepts as held.
"""

from __future__ import annotations

__all__ = ["stick", "FLAT_TOLERANCE"]

import math

import numpy as np

from ..element import Element
from ..errors import BrickLayerTypeError, BrickLayerValueError
from ldraw_data.rays import first_ray_hits as _ray_hits
from ..geometry.types import Pose

#: Largest difference (LDU) along the face normal between the surface under any point of a sticker's
#: back and the plane the sticker is laid on, for the face to count as flat under it: the smallest move of
#: the validator's sticker rule (``bricklayer.validate.support.STICKER_MOVES``, 0.1 LDU), so a sticker
#: :func:`stick` accepts is one the validator finds lying on the part.
FLAT_TOLERANCE = 0.1
#: Smallest cosine between the hit face's normal and the asked side direction: a face turned more than
#: about 75 degrees away from ``side`` is not "on that side" (the sloped face of slope 3039 seen from
#: the front is 45 degrees off).
_MIN_FACING_COS = 0.25
#: Footprint samples per direction of the sticker's back rectangle, and their inset from its edges (LDU):
#: the corners of a sticker laid to the LDraw sticker standard sit 2 LDU inside the face's edges.
_SAMPLES = 7
_EDGE_INSET = 0.25
#: Cosine within which a surface under the footprint is parallel to the sticker's plane (about 2.5 degrees).
_PARALLEL_COS = 0.999


#: Sides of a part in the build frame (+X right, +Y back, +Z up), by name: the outward direction.
_SIDES = {"front": (0, -1, 0), "-y": (0, -1, 0), "back": (0, 1, 0), "+y": (0, 1, 0),
          "left": (-1, 0, 0), "-x": (-1, 0, 0), "right": (1, 0, 0), "+x": (1, 0, 0),
          "top": (0, 0, 1), "+z": (0, 0, 1), "bottom": (0, 0, -1), "-z": (0, 0, -1)}
_SIDE_OF = {(0, -1, 0): "front", (0, 1, 0): "back", (-1, 0, 0): "left", (1, 0, 0): "right", (0, 0, 1): "top",
            (0, 0, -1): "bottom"}


def _side_basis(side) -> tuple[np.ndarray, np.ndarray, np.ndarray, str]:
    """(d, u, v, name): the outward direction of ``side`` and the (right, up) directions of a viewer facing
    that side (build frame: +X right, +Y back, +Z up)."""
    from ..geometry.types import Direction

    key = side.value if isinstance(side, Direction) else _SIDES.get(str(side).strip().lower())
    if key is None:
        raise BrickLayerValueError(
            f"stick(side={side!r}): use 'front', 'back', 'left', 'right', 'top' or 'bottom' (or '+x', '-y', "
            "..., or a Direction): the side of the part, seen from outside, that the sticker goes on")
    d = np.asarray(key, dtype=np.float64)
    v = np.array([0.0, 1.0, 0.0]) if abs(d[2]) > 0.5 else np.array([0.0, 0.0, 1.0])
    u = np.cross(v, d)
    return d, u, v, _SIDE_OF[tuple(int(x) for x in key)]


def _sticker_element(sticker) -> tuple[Element, object]:
    from ldraw_data.stickers import library_sticker_back

    el = Element(sticker) if isinstance(sticker, str) else sticker
    if not isinstance(el, Element):
        raise BrickLayerTypeError(f"stick(): sticker must be an Element or a part id such as '004113b', "
                                  f"got {type(sticker).__name__}")
    back = library_sticker_back(el.ldraw_id) if el.known else None
    if back is None:
        raise BrickLayerValueError(
            f"stick(): part {el.ldraw_id!r} has no sticker_back connector: it is not a flat sticker of the "
            "library (title 'Sticker ...', a slab at most 1 LDU thin; formed stickers, drawn bent to one "
            "part, are not flat). Find stickers with search_parts('sticker ...'); place other parts with "
            "add(), stack() or connect()")
    return el, back


def _is_sticker(part: Element) -> bool:
    """True when ``part`` is a flat library sticker (it has a ``sticker_back``, :mod:`ldraw_data.stickers`)."""
    from ldraw_data.stickers import library_sticker_back

    return part.known and library_sticker_back(part.ldraw_id) is not None


def _placement_label(build, onto) -> str:
    """A short label of the placement ``onto`` names (a name, a name path or a placement) for messages."""
    if isinstance(onto, str):
        return f"placement {onto!r}"
    try:
        name = build.name_of(onto)
    except Exception:  # noqa: BLE001 - a label only
        name = None
    return f"placement {name!r}" if name else "an unnamed placement"


def stick(build, sticker, onto, side="front", at=(0.0, 0.0), rotation: float = 0.0, *, name=None):
    """Glue a sticker flat onto a face of a placed part.

    The sticker's adhesive back (its ``sticker_back`` connector: centre of the back face, axis its outward
    normal; :mod:`ldraw_data.stickers`) is laid on the surface of ``onto`` seen from ``side``: a ray from
    outside the part, travelling against ``side``, through the point ``at`` finds the surface (the part's
    drawn mesh, ``ldraw_data.mesh.part_mesh``); the sticker's back centre goes on the hit point, its back
    flat on the hit face (sloped faces too: seen from the front, the slope of 3039 is hit), with its own
    X axis along the viewer's right projected onto the face and its +Z edge (LDraw, as the sticker file is
    drawn) at the top, then turned by ``rotation``. So at ``rotation=0`` it lands
    ``PartSpec.sticker_size_ldu`` = (width, height) LDU, as ``search_parts`` shows it (4603014f: 38 wide,
    46 high); the title's "2.3 x 1.9" (studs) does not say which way; ``rotation=90`` swaps width and
    height. Then every point of the sticker's back (a
    7 x 7 grid over its back rectangle, 0.25 LDU inside its edges) must have that same face under it:
    within :data:`FLAT_TOLERANCE` (0.1 LDU, the smallest move of the validator's "sticker on a surface"
    rule, ``bricklayer.validate.support.STICKER_MOVES``) of the plane, parallel to it, and nothing of the
    part standing above it.

    ``connect()`` does not place stickers: a ``sticker_back`` mates with no connector.

    Parameters
    ----------
    build : LegoBuild
        The build holding ``onto``; the sticker is added to it (``add_raw``).
    sticker : Element or str
        A flat library sticker: ``Element("004113b")`` or ``"004113b"`` (titles "Sticker ..."; find them
        with ``search_parts("sticker chevron")``).
    onto : Placement or str
        The part (an element placement of ``build``, or its name or name path ``"sub/part"``).
    side : str or Direction
        The side of ``onto`` the sticker goes on, in the build frame: ``"front"`` (-Y), ``"back"`` (+Y),
        ``"left"`` (-X), ``"right"`` (+X), ``"top"`` (+Z), ``"bottom"`` (-Z), or ``"+x"``, ``"-x"``, ``"+y"``,
        ``"-y"``, ``"+z"``, ``"-z"`` / a :class:`Direction`; any other name is refused.
    at : (u, v) float, LDU
        Offset of the sticker's centre from the centre of the part's alignment box (its body without the
        studs on top, ``Element.alignment_box``) as seen from ``side``:
        ``u`` toward the viewer's right, ``v`` up (for ``"top"``/``"bottom"``: ``v`` toward +Y, back),
        i.e. ``u = v_dir x side``. ``(0, 0)``: the middle of that side.
    rotation : float, degrees
        Counter-clockwise turn of the sticker about the face normal, seen from outside (0: its X axis along
        the viewer's right; 90: its X axis up the face).
    name : str, optional
        Name of the new placement (see ``LegoBuild.add``).

    Returns
    -------
    Placement
        The sticker's placement.

    Raises
    ------
    ValueError
        ``sticker`` is not a flat sticker; ``onto`` is a sub-build (give one of its part placements) or a
        sticker itself; ``side`` is unknown; ``at`` or ``rotation`` is not finite; the same sticker already
        lies at that pose (within :data:`SAME_POSE_LDU`: the place is taken); the ray through ``at`` misses the part
        (the message gives the part's extent seen from that side, in LDU from its centre); the face hit is turned more than about 75 degrees
        away from ``side``; or the face is not flat under the whole sticker (part of the back would hang
        over an edge, sit on another face, or under something of the part standing out): the message says
        where (the first failing point, in LDU from the sticker's centre along its width and its height up,
        as ``at`` is measured) and what to try. Nothing is added in these cases.
    KeyError
        Unknown ``onto`` name.

    Examples
    --------
    >>> b = LegoBuild()                                                     # doctest: +SKIP
    >>> wall = b.add(Element("3001", Color.RED))                            # doctest: +SKIP
    >>> stick(b, "004113b", onto=wall, side="front")                        # doctest: +SKIP
    """
    from ldraw_data.mesh import part_mesh

    from ..build import LegoBuild

    if not isinstance(build, LegoBuild):
        raise BrickLayerTypeError(f"stick(build, ...): build must be a LegoBuild, got {type(build).__name__}")
    el, back = _sticker_element(sticker)
    target, pose = build._resolve(onto)
    if not isinstance(target.content, Element):
        raise BrickLayerValueError("stick(): onto is a sub-build; give the placement of the part the sticker goes "
                                   "on (its name path 'sub/part', or sub_build.placements[i])")
    part = target.content
    if _is_sticker(part):
        raise BrickLayerValueError(
            f"stick(): onto is the sticker {part.ldraw_id!r} ({_placement_label(build, onto)}); a sticker goes on the "
            "face of a part, not on another sticker: give the part under it as onto (and a different `at` or "
            "side if that face is taken)")
    d, u, v, side_name = _side_basis(side)
    try:
        rotation = float(rotation)
    except (TypeError, ValueError):
        rotation = float("nan")
    if not math.isfinite(rotation):
        raise BrickLayerValueError(f"stick(rotation={rotation!r}): give a finite number of degrees, e.g. 0 or 90 "
                                   "(counter-clockwise about the face normal, seen from outside)")
    try:
        at_u, at_v = (float(x) for x in at)
    except (TypeError, ValueError):
        raise BrickLayerValueError(f"stick(at={at!r}): give (u, v) in LDU, e.g. (0, 0) for the middle of the side") from None
    if not (math.isfinite(at_u) and math.isfinite(at_v)):
        raise BrickLayerValueError(f"stick(at={tuple(at)!r}): u and v must be finite numbers of LDU, e.g. (0, 0) for "
                                   "the middle of the side")
    world = pose.matrix @ part.ldraw_to_local  # LDraw part coordinates -> build frame
    mesh = part_mesh(part.ldraw_id + ".dat")
    tris = np.asarray(mesh.triangles, np.float64) @ world[:3, :3].T + world[:3, 3]
    if not len(tris):
        raise BrickLayerValueError(f"stick(): part {part.ldraw_id!r} has no drawn geometry to stick onto")
    pts = tris.reshape(-1, 3)
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    box = part.alignment_box.transformed(pose)  # the body without its studs (Element.alignment_box)
    centre = np.array(tuple(box.center), dtype=np.float64)
    reach = float(np.linalg.norm(hi - lo)) + 10.0
    rel = pts - centre
    span_u = (float((rel @ u).min()), float((rel @ u).max()))
    span_v = (float((rel @ v).min()), float((rel @ v).max()))
    # a point past the part's extent misses it: say so before casting a ray (a huge `at` would overflow it)
    outside = not (span_u[0] - 1.0 <= at_u <= span_u[1] + 1.0 and span_v[0] - 1.0 <= at_v <= span_v[1] + 1.0)
    if not outside:
        origin = centre + at_u * u + at_v * v + reach * d
        t, k = _ray_hits(origin[None], -d, tris)
    if outside or k[0] < 0:
        raise BrickLayerValueError(
            f"stick(): at={tuple(at)} misses part {part.ldraw_id!r} seen from its {side_name}: its extent there "
            f"is u {span_u[0]:.1f} to {span_u[1]:.1f}, v {span_v[0]:.1f} to {span_v[1]:.1f} LDU from its centre; "
            "pick a point inside it")
    hit = origin - t[0] * d
    tri = tris[k[0]]
    n = np.cross(tri[1] - tri[0], tri[2] - tri[0])
    n /= np.linalg.norm(n)
    if n @ d < 0:
        n = -n
    if n @ d < _MIN_FACING_COS:
        raise BrickLayerValueError(
            f"stick(): the face of {part.ldraw_id!r} at {tuple(at)} seen from its {side_name} is turned "
            f"{math.degrees(math.acos(min(1.0, float(n @ d)))):.0f} degrees away from that side; stick on a "
            "side the face looks toward")
    roll = u - (u @ n) * n
    if np.linalg.norm(roll) < 1e-6:
        roll = v - (v @ n) * n
    roll /= np.linalg.norm(roll)
    a = math.radians(float(rotation))
    roll = math.cos(a) * roll + math.sin(a) * np.cross(n, roll)  # counter-clockwise about n, seen from outside
    target_frame = np.eye(4)
    target_frame[:3, 0] = roll
    target_frame[:3, 1] = n  # the connector's -Y column is its axis, which points into the part (-n)
    target_frame[:3, 2] = np.cross(roll, n)
    target_frame[:3, 3] = hit
    sticker_world = target_frame @ np.linalg.inv(back.frame)  # sticker LDraw coordinates -> build frame
    _check_flat(tris, back, target_frame, n, part.ldraw_id, side_name, at, rotation)
    new_pose = Pose.from_matrix(sticker_world @ el.local_to_ldraw)
    _check_free(build, el, new_pose, part.ldraw_id, side_name, at)
    return build.add_raw(el, new_pose, name=name)


#: Largest difference (LDU, any entry of the 4 x 4 pose matrices) for two stickers to be at the same pose.
SAME_POSE_LDU = 0.01


def _check_free(build, el: Element, pose: Pose, part_id: str, side_name: str, at) -> None:
    """Raise when a sticker with the same part id already lies at ``pose`` (build frame; within
    :data:`SAME_POSE_LDU`): the validator would report the two as a DUPLICATE, and the face there is taken."""
    m = np.asarray(pose.matrix, dtype=np.float64)
    for fp in build.flattened_placements:
        c = fp.content
        if isinstance(c, Element) and c.ldraw_id == el.ldraw_id and np.abs(
                np.asarray(fp.pose.matrix, dtype=np.float64) - m).max() <= SAME_POSE_LDU:
            raise BrickLayerValueError(
                f"stick(): sticker {el.ldraw_id!r} is already on the {side_name} face of {part_id!r} at "
                f"{tuple(at)} ({build.citation(fp)}); that place is taken: pick another `at` or side, or "
                "remove the first one")


def _check_flat(tris: np.ndarray, back, frame: np.ndarray, n: np.ndarray, part_id: str, side_name: str, at,
                rotation: float = 0.0) -> None:
    """Raise unless the face under every sample of the sticker's back lies in the sticker's plane.

    ``frame``: the sticker's back frame placed in the build (X, Z columns span the back, Y = outward
    normal ``n``); samples: a grid over :attr:`StickerBack.outline` inset by :data:`_EDGE_INSET`, kept
    where the back face's own triangles are (a round or shaped sticker). ``rotation`` (degrees, as given to
    :func:`stick`): the advice to turn the sticker by 90 degrees is given only when it is not turned yet."""
    (u0, v0), (u1, v1) = back.outline
    uu = np.linspace(min(u0 + _EDGE_INSET, 0.0), max(u1 - _EDGE_INSET, 0.0), _SAMPLES)
    vv = np.linspace(min(v0 + _EDGE_INSET, 0.0), max(v1 - _EDGE_INSET, 0.0), _SAMPLES)
    g = np.array([(a, b) for a in uu for b in vv])
    if len(back.footprint):  # keep samples on the drawn back face (sticker frame coordinates)
        local = g[:, :1] * back.frame[:3, 0] + g[:, 1:] * back.frame[:3, 2] + back.frame[:3, 3]
        inside = np.isfinite(_ray_hits(local - back.axis, back.axis, np.asarray(back.footprint))[0])
        g = g[inside] if inside.any() else g
    pts = frame[:3, 3] + g[:, :1] * frame[:3, 0] + g[:, 1:] * frame[:3, 2]
    lift = 2.0 * float(np.ptp(tris.reshape(-1, 3) @ n)) + 10.0
    t, k = _ray_hits(pts + lift * n, -n, tris)
    gap = t - lift  # > 0: the surface lies below the sticker's plane; < 0: something stands above it
    normals = np.cross(tris[k, 1] - tris[k, 0], tris[k, 2] - tris[k, 0])
    normals /= np.maximum(np.linalg.norm(normals, axis=1, keepdims=True), 1e-12)
    bad = ~np.isfinite(t) | (np.abs(gap) > FLAT_TOLERANCE) | (np.abs(normals @ n) < _PARALLEL_COS)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        # the frame's Z column (X x normal) points down the face as the sticker is seen from outside; the
        # message gives the height up, as ``at``'s v is measured
        where = f"({g[i, 0]:+.1f}, {-g[i, 1] + 0.0:+.1f}) LDU from the sticker's centre along its width and height (up)"
        what = ("nothing of the part is under it (the sticker hangs over an edge)" if not np.isfinite(t[i]) else
                f"something of the part stands {-gap[i]:.1f} LDU out of the face there" if gap[i] < -FLAT_TOLERANCE else
                f"the surface there lies {gap[i]:.1f} LDU below the face" if gap[i] > FLAT_TOLERANCE else
                "the surface there is not parallel to the face (an edge or a curve)")
        raise BrickLayerValueError(
            f"stick(): the {side_name} face of {part_id!r} at {tuple(at)} is not flat under the whole sticker: at "
            f"{where}, {what}; {int(bad.sum())} of {len(bad)} sample points fail. Move `at` toward the middle "
            "of the face, " + ("turn the sticker (rotation=90), " if rotation % 180 == 0 else "")
            + "or pick a smaller sticker")
