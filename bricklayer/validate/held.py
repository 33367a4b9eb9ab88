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


def held_in_frame_edges(wa) -> np.ndarray:
    """Part pairs joined because one part is a pane held in the other (module notes).

    Parameters
    ----------
    wa : WorldArrays
        The build's stacked world data (:func:`._world.world_arrays`): its
        placements (node ``i`` is ``wa.placements[i]``), element-to-world
        poses (LDU) and placement indices per part.

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
    bare_groups, frame_idx, frame_radius, frame_el = [], [], [], []
    for key, idx in wa.groups.items():
        el = placements[idx[0]].content
        if not getattr(el, "_known", True):
            continue
        radius = _frame_radius(el.ldraw_id)
        if radius is not None:
            frame_idx.append(idx)
            frame_radius.append(np.full(len(idx), radius))
            frame_el.append(np.full(len(idx), len(frame_el)))
        else:
            bare_groups.append((el, idx))
    if not bare_groups or not frame_idx:
        return none
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
    dist = np.linalg.norm(wa.poses[frames, None, :3, 3] - centre[None], axis=2)  # (frames, candidates)
    near = np.any(dist <= radius[:, None] + half[None] + tol, axis=1)
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
    if not keep.any():
        return none
    a, b = ci[r[keep]], frames[f[keep]]
    return np.unique(np.column_stack([np.minimum(a, b), np.maximum(a, b)]).astype(np.int64), axis=0)
