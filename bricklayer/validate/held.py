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

__all__ = ["held_in_frame_edges", "HELD_SPAN_FRACTION"]

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
    if not el.connectors:
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
