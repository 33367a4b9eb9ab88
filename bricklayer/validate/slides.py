"""The slide that clears a part on a sliding joint (bar in a clip, axle or pin in a hole).

``LegoBuild.connect`` warns when the part it placed collides (``ConnectCollisionWarning``), and validate hints at
a fix for a collision of a part placed with ``connect()``. On a sliding joint the fix is often a slide along the
joint, not a turn: a minifigure ice-cream cone 33120 whose bar, clipped in an open-stud round plate 85861, reaches
through it into the plate below (played7 kiosk) clears it at ``target_position=-0.15``, 3 LDU up, while no turn
about the vertical bar does. :func:`clearing_slide` finds that slide, with its sign as ``connect`` reads it, by
the validator's own collision rule (a scratch build of the part and what it must clear).

Like every consumer of a build here, this module does not import :mod:`bricklayer.build`: the caller passes the
build class that makes the scratch build.
"""

from __future__ import annotations

__all__ = ["SLIDE_STEP_STUDS", "collides_with_any", "clearing_slide", "slide_words"]

import numpy as np

from ..connector import slide_limit_studs
from ..constants import SLIDE_END_EPS, STUD
from ..geometry.types import Pose

#: Step (studs) of the slides :func:`clearing_slide` tries: 1 LDU (0.05 stud), the grid of LDraw coordinates.
SLIDE_STEP_STUDS = 0.05


def collides_with_any(build_type, content, pose4, obstacles) -> bool:
    """Whether ``content`` at ``pose4`` collides with any of ``obstacles``, by the validator's rule.

    Parameters
    ----------
    build_type : type
        The build class (``LegoBuild``) that makes the scratch build.
    content : Element or LegoBuild
    pose4 : (4, 4) array
        Content frame -> the obstacles' frame, LDU.
    obstacles : sequence of (content, (4, 4) pose)
        The parts to test against (placed with ``add_raw``; they are not tested against each other).

    Returns
    -------
    bool
        True when a part of ``content`` and an obstacle collide (press fits of mated parts allowed, as in
        :func:`~bricklayer.validate.collisions.colliding_placements`).
    """
    scratch = build_type()
    for c, m in obstacles:
        scratch.add_raw(c, Pose.from_matrix(np.asarray(m, float)))
    new = scratch.add_raw(content, Pose.from_matrix(np.asarray(pose4, float)))
    for a, b in scratch.colliding_placements:
        if (new in getattr(a, "path", ())) != (new in getattr(b, "path", ())):
            return True
    return False


def _holder(parent):
    """(content, 4x4 pose) of the part owning connector ``parent`` (its path composed), or None."""
    path = getattr(parent, "path", ()) or ()
    if not path:
        return None
    m = np.eye(4)
    for p in path:
        m = m @ np.asarray(p.pose.matrix, float)
    return path[-1].content, m


def clearing_slide(build_type, content, pose4, parent, child, obstacles) -> tuple | None:
    """The smallest slide of a part on a sliding joint that clears the parts it collides with.

    Parameters
    ----------
    build_type : type
        The build class (``LegoBuild``) that makes the scratch builds.
    content : Element or LegoBuild
        The slid part, placed at ``pose4`` ((4, 4), content frame -> build frame, LDU).
    parent, child : Connector
        The joint's target connector and the part's own connector as placed (build frame), as
        :class:`~bricklayer.joints.Joint` keeps them.
    obstacles : sequence of (content, (4, 4) pose)
        The parts it must clear (those it collides with), in the build frame. The part owning ``parent``
        is added, so the slide does not push the part into its own holder.

    Returns
    -------
    (target_position, move_ldu, direction) or None
        ``target_position``: the ``connect(target_position=...)`` value (studs; positive slides the part toward
        the target connector's ``axis``, as ``connect`` reads it) of the smallest slide that clears every
        obstacle, tried in :data:`SLIDE_STEP_STUDS` steps out from the present one, alternately toward
        -axis and +axis, within :func:`~bricklayer.connector.slide_limit_studs` (the validator's engagement
        rule); ``move_ldu``: how far that moves the part (LDU); ``direction``: the unit direction it moves
        (build frame). None when no slide in range clears them.
    """
    obstacles = list(obstacles)
    holder = _holder(parent)
    if holder is not None and not any(c is holder[0] and np.allclose(np.asarray(m, float), holder[1])
                                      for c, m in obstacles):
        obstacles.append(holder)
    axis = np.asarray(tuple(parent.axis), float)
    now = float((np.asarray(tuple(child.position), float) - np.asarray(tuple(parent.position), float)) @ axis) / STUD
    limit = slide_limit_studs(child, parent)
    base = np.asarray(pose4, float)
    steps = int(np.floor(2 * limit / SLIDE_STEP_STUDS + 1e-9))
    for k in range(1, steps + 1):
        for sign in (-1.0, 1.0):
            tp = round(now + sign * k * SLIDE_STEP_STUDS, 4)
            if abs(tp) * STUD > limit * STUD + SLIDE_END_EPS:
                continue
            m = base.copy()
            m[:3, 3] += axis * (tp - now) * STUD
            if not collides_with_any(build_type, content, m, obstacles):
                return tp, abs(tp - now) * STUD, tuple(float(v) for v in axis * sign)
    return None


def slide_words(found: tuple) -> str:
    """:func:`clearing_slide`'s answer in words, e.g. "target_position=-0.15 (studs) lifts it clear (moves it
    3 LDU up)".

    Parameters
    ----------
    found : (target_position studs, move_ldu, direction)

    Returns
    -------
    str
        "lifts it clear" / "lowers it clear" when the move is along +Z / -Z of the build (up / down: bricklayer's
        Z is up), else "slides it clear" with the direction: "toward -y" along a build axis, else (x, y, z).
    """
    tp, move, d = found
    z = d[2]
    verb = "lifts it clear" if z > 0.99 else "lowers it clear" if z < -0.99 else "slides it clear"
    k = int(np.argmax(np.abs(d)))
    if z > 0.99 or z < -0.99:
        where = "up" if z > 0 else "down"
    elif abs(d[k]) > 0.99:  # along a build axis: name it
        where = f"toward {'+' if d[k] > 0 else '-'}{'xyz'[k]}"
    else:
        where = "along ({:g}, {:g}, {:g})".format(*(round(float(v), 3) + 0.0 for v in d))
    return f"target_position={tp:g} (studs) {verb} (moves it {move:.3g} LDU {where})"
