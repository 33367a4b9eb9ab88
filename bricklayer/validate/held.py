"""Panes held in a frame: connections that no connector label describes.

Some parts are held by the part around them instead of by studs, pins or
clips: the glass of a window (60601 in 60592, 60602 in 60593, 4862 in
2377, 4036 in 4035) snaps into a groove that runs round the inside of the
frame. BrickNet labels neither the glass nor the groove, so the connector
graph alone leaves the glass a separate component although in real LEGO it
cannot come out without taking the frame apart.

Rule (:func:`held_in_frame_edges`): a part that has no connectors at all is
joined to a part (its *frame*) when

- the part's world bounding box lies inside the frame's, within
  ``TOL.connector_position`` (0.5 LDU) on every side (the frame surrounds it);
- along the part's two longest box axes it spans at least
  :data:`HELD_SPAN_FRACTION` of the frame's box (it fills the opening, so
  its edges are in the frame's groove, not loose in a hollow);
- the frame has connectors (two label-less parts do not hold each other).

Measured: the 10224 Town Hall glass 60602 spans 33 of 40 LDU and 63 of 76 LDU
of its 60593 frame (0.82, 0.83), the 60601 glass 33 of 40 and 39 of 52 of
60592 (0.82, 0.75). A loose part resting inside a large hollow part (a
minifigure accessory in a box) spans far less and is not joined. The joint
is fixed. Collisions are checked as for any pair, so a pane pushed into
the frame's solid material is still a collision.
"""

from __future__ import annotations

__all__ = ["held_in_frame_edges", "HELD_SPAN_FRACTION", "glued_sticker_edges", "GLUE_REACH"]

from functools import lru_cache

import numpy as np

from ..constants import TOL

#: Share of the frame's box a held part must span along each of its two longest axes
#: (module notes: the window glasses measure 0.75 to 0.83).
HELD_SPAN_FRACTION = 0.6

_CORNERS = np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)], dtype=float)


def _group_boxes(element, poses: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(k, 3) world min and max corners (LDU) of one element's physical bounding box at ``poses`` (k, 4, 4)."""
    box = element.bounding_box
    a = np.array([box.min.x, box.min.y, box.min.z])
    b = np.array([box.max.x, box.max.y, box.max.z])
    pts = a + _CORNERS * (b - a)  # (8, 3)
    w = np.einsum("kij,cj->kci", poses[:, :3, :3], pts) + poses[:, None, :3, 3]
    return w.min(axis=1), w.max(axis=1)


@lru_cache(maxsize=None)
def _frame_radius(part_id: str) -> float | None:
    """Farthest corner of the part's local bounding box from its origin (LDU); None when the part
    has no connectors (it can be held, not hold)."""
    from ..element import Element

    el = Element.unchecked(part_id, known=True)
    if all(c.type == "sticker_back" for c in el.connectors):  # none, or a sticker's back only: held, not holding
        return None
    box = el.bounding_box
    return float(np.linalg.norm(np.maximum(np.abs([box.min.x, box.min.y, box.min.z]),
                                           np.abs([box.max.x, box.max.y, box.max.z]))))


def held_in_frame_edges(wa, since: int = 0) -> np.ndarray:
    """Part pairs joined because one part is a pane held in the other (module notes).

    Parameters
    ----------
    wa : WorldArrays
        The build's stacked world data (:func:`._world.world_arrays`): its
        placements (node ``i`` is ``wa.placements[i]``), element-to-world
        poses (LDU) and placement indices per part.
    since : int
        Only the pairs with a part at index ``since`` or later (the parts appended after a validation:
        every other pair is as before, the rule looking at the two parts only); distances are then
        measured from the new frames and to the new panes only.

    Returns
    -------
    (k, 2) int ndarray
        ``(min index, max index)`` per joined pair, sorted, no duplicates.
        When no part lacks connectors (the common case) this costs one
        cached look-up per distinct part. Otherwise frames are first
        narrowed by distance, then boxed per distinct part, vectorized
        (measured: 3.5 ms for 10179 Millennium Falcon, 5,247 parts of
        which 22 without connectors; 26-36 ms for 10224 Town Hall, 2,799
        parts, 76 without connectors, 66 panes held).
    """
    none = np.zeros((0, 2), dtype=np.int64)
    placements = wa.placements
    if len(placements) < 2:
        return none
    new_keys = set(wa.keys[since:]) if since else None  # part keys of the appended placements
    bare_groups, frame_groups, new_frames, new_pane = [], [], [], False
    for key, idx in wa.groups.items():
        el = placements[idx[0]].content
        if not getattr(el, "_known", True):
            continue
        radius = _frame_radius(el.ldraw_id)
        if radius is not None:
            frame_groups.append((idx, radius))
            if since and key in new_keys:
                new_frames.append((idx[idx >= since], radius))
        else:
            bare_groups.append((el, idx))
            new_pane = new_pane or bool(since and key in new_keys)
    if since and not new_pane:
        # no new pane: only the new frames can hold (a pane of the old parts)
        frame_groups = new_frames
    if not bare_groups or not frame_groups:
        return none
    frame_idx = [idx for idx, _ in frame_groups]
    frame_radius = [np.full(len(idx), r) for idx, r in frame_groups]
    frame_el = [np.full(len(idx), k) for k, (idx, _) in enumerate(frame_groups)]
    tol = TOL.connector_position
    cand = [(idx,) + _group_boxes(el, wa.poses[idx]) for el, idx in bare_groups]
    ci = np.concatenate([c[0] for c in cand])
    clo = np.concatenate([c[1] for c in cand])
    chi = np.concatenate([c[2] for c in cand])
    # broad phase: a frame whose box can hold a candidate has its origin within its own box radius
    # of the candidate's corners, so of the candidate's centre plus half its diagonal
    frames = np.concatenate(frame_idx)
    radius = np.concatenate(frame_radius)
    group = np.concatenate(frame_el)
    centre, half = (clo + chi) / 2, np.linalg.norm(chi - clo, axis=1) / 2

    def near_of(f: np.ndarray, c: np.ndarray) -> np.ndarray:
        """Frames ``f`` (indices into ``frames``) near any of candidates ``c`` (indices into ``ci``)."""
        dist = np.linalg.norm(wa.poses[frames[f], None, :3, 3] - centre[None, c], axis=2)  # (frames, cands)
        return np.any(dist <= radius[f, None] + half[None, c] + tol, axis=1)

    if since:  # every frame against the new panes, the new frames against every pane
        near = np.zeros(len(frames), dtype=bool)
        new_c, new_f = np.flatnonzero(ci >= since), np.flatnonzero(frames >= since)
        if len(new_c):
            near |= near_of(np.arange(len(frames)), new_c)
        if len(new_f):
            near[new_f] |= near_of(new_f, np.arange(len(ci)))
    else:
        near = near_of(np.arange(len(frames)), np.arange(len(ci)))
    if not near.any():
        return none
    frames, group = frames[near], group[near]
    flo = np.empty((len(frames), 3))
    fhi = np.empty((len(frames), 3))
    for g in np.unique(group).tolist():
        sel = group == g
        flo[sel], fhi[sel] = _group_boxes(placements[int(frames[sel][0])].content, wa.poses[frames[sel]])
    # (candidates, frames): the frame's box holds the candidate's
    inside = (np.all(flo[None] <= clo[:, None] + tol, axis=2) & np.all(fhi[None] >= chi[:, None] - tol, axis=2))
    r, f = np.nonzero(inside)
    if not len(r):
        return none
    ext = chi[r] - clo[r]
    long_axes = np.argsort(ext, axis=1)[:, 1:]  # each pane's two longest axes
    pane = np.take_along_axis(ext, long_axes, axis=1)
    frame = np.take_along_axis(fhi[f] - flo[f], long_axes, axis=1)
    keep = np.all(pane >= HELD_SPAN_FRACTION * frame, axis=1)
    if since:
        keep &= (ci[r] >= since) | (frames[f] >= since)
    if not keep.any():
        return none
    a, b = ci[r[keep]], frames[f[keep]]
    return np.unique(np.column_stack([np.minimum(a, b), np.maximum(a, b)]).astype(np.int64), axis=0)


#: How far (LDU) behind a sticker's back face the surface it is glued to may lie, and how deep the back may
#: sink into it: the reach of the validator's "sticker on a surface" rule (``support.STICKER_MOVES``: a
#: surface up to about 0.8 LDU behind the back is found), and a slab's thickness into the part (10252's
#: rear-window stickers lie 0.0-0.25 LDU into the windscreen).
GLUE_REACH = 0.8


@lru_cache(maxsize=None)
def _sticker_back_of(part_id: str):
    """(position (3,), axis (3,), thickness) of a library part's ``sticker_back`` connector in its LDraw part
    frame (LDU; :mod:`ldraw_data.stickers`), or None (not a flat sticker)."""
    from ldraw_data.connectors import part_connectors

    for c in part_connectors(part_id):
        if c.type == "sticker_back":
            from ldraw_data.stickers import sticker_back_row

            row = sticker_back_row(part_id)
            thick = row[1] if row is not None else 0.25
            return np.array(c.position, dtype=np.float64), np.array(c.axis, dtype=np.float64), float(thick)
    return None


def glued_sticker_edges(wa, since: int = 0) -> np.ndarray:
    """Part pairs joined because a flat sticker is glued on the other part: ``(min index, max index)``.

    Rule "sticker glued on a face": a library sticker's ``sticker_back`` connector (centre of its back
    face, axis the face's outward normal; :mod:`ldraw_data.stickers`) mates with no connector, it sticks
    to a surface. A ray from the sticker's front face along that axis meets the drawn surface (the part's
    mesh, :func:`ldraw_data.mesh.part_mesh`) of the part it is glued to between the slab's thickness in
    front of the back face and :data:`GLUE_REACH` behind it; the nearest such part (of those whose
    bounding box reaches the back centre) is joined to the sticker, a fixed joint, for the connected
    components (one assembly). Support is not changed: the rule "sticker on a surface"
    (:func:`.support._sticker_surface_edges`) already holds stickers, from the part to the sticker only.
    Stickers embedded in an MPD file have no connector (``part_connectors`` serves library parts).

    Parameters
    ----------
    wa : WorldArrays
        As :func:`held_in_frame_edges` (``mesh_transforms``: LDraw part coordinates -> world).
    since : int
        Only the pairs with a part at index ``since`` or later (appended parts).

    Returns
    -------
    (k, 2) int ndarray
        Sorted, no duplicates. Costs one cached look-up per distinct part when the build holds no sticker.
    """
    none = np.zeros((0, 2), dtype=np.int64)
    placements = wa.placements
    if len(placements) < 2:
        return none
    stickers = []
    for key, idx in wa.groups.items():
        el = placements[idx[0]].content
        if not getattr(el, "_known", True):
            continue
        got = _sticker_back_of(el.ldraw_id)
        if got is not None:
            stickers += [(int(i), got) for i in idx.tolist()]
    if not stickers:
        return none
    from ldraw_data.mesh import part_mesh

    from ldraw_data.rays import first_ray_hits

    from .sunk_stickers import COVER_REACH

    lo, hi = _world_boxes(wa)
    out = []
    for i, (pos, axis, thick) in stickers:
        m = wa.mesh_transforms[i]
        p = m[:3, :3] @ pos + m[:3, 3]
        a = m[:3, :3] @ axis
        near = np.flatnonzero(np.all((lo <= p + GLUE_REACH) & (hi >= p - GLUE_REACH), axis=1))
        near_set = set(near.tolist())
        best = None
        faces = []  # world triangles of the parts whose boxes reach the sticker's (its whole back)
        around = set(np.flatnonzero(np.all((lo <= hi[i] + COVER_REACH) & (hi >= lo[i] - COVER_REACH),
                                           axis=1)).tolist())
        for j in sorted(around | set(near.tolist())):
            if j == i:
                continue
            el = placements[j].content
            if not getattr(el, "_known", True):
                continue
            try:
                tris = np.asarray(part_mesh(el.ldraw_id + ".dat").triangles, dtype=np.float64)
            except Exception:  # noqa: BLE001 - a part without a mesh holds no sticker
                continue
            mj = wa.mesh_transforms[j]
            faces.append(tris @ mj[:3, :3].T + mj[:3, 3])
            if since and i < since and j < since or j not in near_set:
                continue
            t, _ = first_ray_hits((p - thick * a)[None], a, faces[-1])
            gap = float(t[0]) - thick
            if gap <= GLUE_REACH and (best is None or gap < best[0]):
                best = (gap, j)
        if best is not None and _back_covered(placements[i].content, m, faces):
            out.append((min(i, best[1]), max(i, best[1])))
    return np.unique(np.array(out, dtype=np.int64).reshape(-1, 2), axis=0) if out else none


def _back_covered(sticker, m: np.ndarray, faces: list) -> bool:
    """True when the back of a library sticker (an Element, placed by the LDraw-to-world transform ``m``)
    lies on the world triangles ``faces`` of the parts near it, all but
    :data:`.sunk_stickers.UNCOVERED_MAX` of its coverage grid (rule "a sticker's whole back lies on faces",
    :func:`.sunk_stickers.uncovered_back_fraction`): a sticker slid past its face's edge is not glued."""
    from ldraw_data.mesh import part_mesh

    from .sunk_stickers import UNCOVERED_MAX, back_grid, uncovered_back_fraction

    grid, axis = back_grid(np.asarray(part_mesh(sticker.ldraw_id + ".dat").triangles, dtype=np.float64).reshape(-1, 3))
    return uncovered_back_fraction(grid @ m[:3, :3].T + m[:3, 3], m[:3, :3] @ axis, faces) <= UNCOVERED_MAX


def _world_boxes(wa) -> tuple[np.ndarray, np.ndarray]:
    """(n, 3) world min and max corners (LDU) of every placement's physical bounding box."""
    n = len(wa.placements)
    lo, hi = np.zeros((n, 3)), np.zeros((n, 3))
    for idx in wa.groups.values():
        el = wa.placements[idx[0]].content
        lo[idx], hi[idx] = _group_boxes(el, wa.poses[idx])
    return lo, hi
