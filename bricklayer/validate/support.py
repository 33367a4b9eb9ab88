"""Floating parts: parts that cannot reach the ground.

Rules (issue #4, docs/bricklayer-api.md "Validation semantics"):

- **Ground.** The build is dropped so its lowest point is the ground; a part
  whose lowest surface point lies within ``TOL.ground_band`` (4 LDU, half a
  plate) of it is grounded. A band rather than the single minimum: in
  official sets a minifigure's feet sit 2 LDU below a vehicle's tyres, and
  models stand on several separate supports (validator notes).
- **Support graph** (directed, "x supports y"):

  * mated connectors (:mod:`.connections`), both ways, press fits included;
  * resting contacts, upward only: a part rests on a lower part when, moved
    down by 1 LDU, its inset mesh meets the lower part's
    (:class:`.collisions.CollisionEngine`, step 5): a part on a tile, a ledge
    or a slope is supported, side contact alone is not;
  * reported collisions, upward only (from the part whose lowest point is
    lower): "one defect, one message" - a brick pushed into the brick below
    it, or sideways into a neighbour, is reported as a collision and not also
    as floating.
- A part floats when no grounded part reaches it. Parts without geometry
  (unknown parts, see :func:`.collisions.unchecked_placements`) are never
  reported and support nothing through contact.
"""

from __future__ import annotations

__all__ = ["floating_placements", "support_graph", "SupportResult"]

from dataclasses import dataclass

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import breadth_first_order

from ..constants import TOL
from .collisions import collision_engine
from .connections import connection_graph


@dataclass(frozen=True, eq=False)
class SupportResult:
    """Support analysis of a build.

    Attributes
    ----------
    ground : float, LDU
        World z of the lowest point of the build.
    grounded : (n,) bool
        Parts standing on the ground (within ``TOL.ground_band``).
    supported : (n,) bool
        Parts reachable from a grounded part.
    floating : (f,) int
        Indices (into ``build.flattened_placements``) of floating parts.
    edges : (e, 2) int
        Directed support edges ``(supporter, supported)``.
    """

    ground: float
    grounded: np.ndarray
    supported: np.ndarray
    floating: np.ndarray
    edges: np.ndarray


def support_graph(build) -> SupportResult:
    """The (cached) support analysis of a build (see module rules).

    Parameters
    ----------
    build : LegoBuild

    Returns
    -------
    SupportResult
    """
    def make() -> SupportResult:
        eng = collision_engine(build)
        n = eng.n
        if n == 0:
            z = np.zeros(0, dtype=bool)
            return SupportResult(0.0, z, z, np.zeros(0, dtype=np.intp), np.zeros((0, 2), dtype=np.intp))
        has = eng.has_shape
        mz = eng.min_z
        ground = float(mz[has].min()) if has.any() else float(mz.min())
        grounded = has & (mz <= ground + TOL.ground_band)
        edges = []
        cg = connection_graph(build)
        if len(cg.pairs):
            e = cg.pairs[:, [0, 2]]
            edges += [e, e[:, ::-1]]
        if len(eng.pairs):
            r = eng.rests
            edges += [eng.pairs[r[:, 0]][:, ::-1], eng.pairs[r[:, 1]]]
        rep = eng.reported()
        if len(rep):
            a, b = rep[:, 0], rep[:, 1]
            lower_a = mz[a] <= mz[b]
            edges.append(np.column_stack([np.where(lower_a, a, b), np.where(lower_a, b, a)]))
        e = np.vstack(edges).astype(np.intp) if edges else np.zeros((0, 2), dtype=np.intp)
        # virtual root n -> every grounded part
        roots = np.flatnonzero(grounded)
        src = np.concatenate([e[:, 0], np.full(len(roots), n)])
        dst = np.concatenate([e[:, 1], roots])
        g = coo_matrix((np.ones(len(src), dtype=np.int8), (src, dst)), shape=(n + 1, n + 1)).tocsr()
        order = breadth_first_order(g, n, directed=True, return_predecessors=False)
        supported = np.zeros(n + 1, dtype=bool)
        supported[order] = True
        supported = supported[:n]
        floating = np.flatnonzero(~supported & has)
        return SupportResult(ground, grounded, supported, floating, e)

    return build._cached("validate.support", make)


def floating_placements(build) -> list:
    """Parts that cannot reach the ground through connections or supporting contacts.

    Parameters
    ----------
    build : LegoBuild

    Returns
    -------
    list of FlatPlacement
        In flattened order.
    """
    res = support_graph(build)
    flat = build.flattened_placements
    return [flat[i] for i in res.floating.tolist()]
