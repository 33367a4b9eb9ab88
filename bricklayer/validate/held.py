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

import numpy as np

from ..constants import TOL

#: Share of the frame's box a held part must span along each of its two longest axes
#: (module notes: the window glasses measure 0.75 to 0.83).
HELD_SPAN_FRACTION = 0.6

_CORNERS = np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)], dtype=float)


def _world_boxes(placements, poses: np.ndarray, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(k, 3) min and max corners (LDU, world) of the physical bounding boxes of ``placements[idx]``."""
    lo = np.empty((len(idx), 3))
    hi = np.empty((len(idx), 3))
    for r, i in enumerate(idx.tolist()):
        box = placements[i].content.bounding_box
        a = np.array([box.min.x, box.min.y, box.min.z])
        b = np.array([box.max.x, box.max.y, box.max.z])
        pts = a + _CORNERS * (b - a)
        w = pts @ poses[i][:3, :3].T + poses[i][:3, 3]
        lo[r], hi[r] = w.min(axis=0), w.max(axis=0)
    return lo, hi


def held_in_frame_edges(placements, poses: np.ndarray) -> np.ndarray:
    """Part pairs joined because one part is a pane held in the other (module notes).

    Parameters
    ----------
    placements : list of FlatPlacement
        A build's flattened placements (node ``i`` is ``placements[i]``).
    poses : (n, 4, 4) float ndarray
        Their element-to-world poses (LDU, BrickLayer frame), as in
        :class:`._world.WorldArrays`.

    Returns
    -------
    (k, 2) int ndarray
        ``(min index, max index)`` per joined pair, sorted, no duplicates;
        empty when no part lacks connectors (the common case costs one
        pass over the distinct elements).
    """
    n = len(placements)
    none = np.zeros((0, 2), dtype=np.int64)
    if n < 2:
        return none
    bare: dict = {}
    for el in {fp.content for fp in placements}:
        bare[el] = bool(getattr(el, "_known", True)) and not el.connectors
    cand = np.array([i for i, fp in enumerate(placements) if bare[fp.content]], dtype=np.int64)
    if not len(cand):
        return none
    frames = np.array([i for i, fp in enumerate(placements) if not bare[fp.content]], dtype=np.int64)
    if not len(frames):
        return none
    flo, fhi = _world_boxes(placements, poses, frames)
    clo, chi = _world_boxes(placements, poses, cand)
    tol = TOL.connector_position
    out = []
    for r, i in enumerate(cand.tolist()):
        inside = np.all(flo <= clo[r] + tol, axis=1) & np.all(fhi >= chi[r] - tol, axis=1)
        if not inside.any():
            continue
        ext = chi[r] - clo[r]
        long_axes = np.argsort(ext)[1:]  # the pane's two longest axes
        fext = (fhi - flo)[:, long_axes]
        span = np.all(ext[long_axes] >= HELD_SPAN_FRACTION * fext, axis=1)
        for j in frames[inside & span].tolist():
            out.append((min(i, j), max(i, j)))
    if not out:
        return none
    return np.unique(np.asarray(out, dtype=np.int64), axis=0)
