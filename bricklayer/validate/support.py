"""Floating parts (validator stage 6, support): parts that cannot reach the ground.

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
    or a slope is supported, side contact alone is not. This is also how
    parts without BrickNet connector labels (hose segments, window glass,
    some minifigure accessories) are held;
  * hanging (:func:`_hanging_edges`): a part that, moved down by 1 LDU, meets a
    supported part is held by it even when it reaches lower than its holder (a
    hose threaded on an axle, a load on a hook, a curtain on a bar): blocked
    from falling in -Z, just as a part resting on it, when its centre of mass
    lies below the contacts or over them (:func:`_hangs_from`);
  * intersecting meshes (``CollisionEngine.hit``: press fits and reported
    collisions), both ways: a part that interpenetrates another is held by
    it (an accessory gripped in a minifigure hand, whose clip has no BrickNet
    label on many accessories: 6232 Skeleton Crew's pistol and cutlass) or is
    already reported as a collision - "one defect, one message": a brick
    pushed into the brick below it, or sideways into a neighbour, is reported
    as a collision and not also as floating;
  * studs clamped in an unlabelled hollow (:mod:`.hollows`), both ways: studs pushed up into the
    hollow underside of a part where no connector source labels an anti-stud, held by its walls on
    opposite sides along their whole height (slope 3298 hanging by its two studs in the front of
    windscreen 6070); tested for parts left unsupported only;
  * sticker on a surface (:func:`_sticker_surface_edges`): a sticker (title
    "Sticker ...", library or MPD-embedded) lying flat on a part's surface is
    held by it (adhesive contact, from the part to the sticker only): glued
    on by its back face, often on a side face or a slope (1180 Moon Buggy's
    logo sticker on its canopy, 10252's rear-window stickers on the
    windscreen); only when its back lies on faces (all but
    ``sunk_stickers.UNCOVERED_MAX`` of it: a sticker slid off its face is
    not held), and a sticker never stands on the ground (:func:`_grounded`);
  * flexible pieces carry support (:func:`_flexible_carry_edges`): a hose or
    string segment, chain link or primitive drawn as string, never judged
    floating itself, touching a supported part is held by it, and parts
    resting on or hanging from it are held in turn (the crane hook on the
    rigging of 6285 Black Seas Barracuda);
  * a hair above (:func:`_hair_settle_edges`): a group of unsupported parts (joined by the edges
    above, either way) that, lowered as one rigid body by ``SETTLE_LDU`` (2 LDU) plus both
    meshes' insets, meets a supported part is held by it, whatever the group's size, when it rests
    there (:func:`_rests_balanced`: drawn touching, near a mating connector, enclosed on every
    horizontal side, or balanced from no higher than :data:`HAIR_BALANCED_GAP_LDU`): official
    files draw parts a hair above what they rest on (a minifigure 0.9 LDU above its chair in 6977,
    a container 0.5 LDU above a tile in 7150; :data:`bricklayer.constants.SETTLE_LDU`). A part
    lifted 3 LDU, or a plate, still floats, and so does a group left 2 LDU above a part by its
    deleted holder;
- **Separate objects drawn apart** (off by default: ``support_graph(build,
  separate_objects=True)``; the official-set report uses it to classify what
  it finds). Physically an object with nothing under it floats, and that is
  what ``floating_placements`` reports: a plate hovering in mid-air beside a
  build is a fault an agent must hear about. Official files, though, draw a
  model and its stand, display base or loose accessories side by side at
  different heights, a drawing convention; with the option, parts joined by
  any of these edges (taken both ways) form an object, and an object that no
  grounded part reaches stands on its own ground (its lowest parts, within
  ``TOL.ground_band`` of its lowest point, are grounded) when

  * no part of another object lies below its lowest level under the
    footprint (bounding box in x and y) of those lowest parts, and
  * none of its parts is within the collision broad phase of a part of
    another object (boxes 1.25 LDU apart: it touches nothing).

  Official files draw a model and its stand, display base or loose
  accessories side by side at different heights: in 10030 Imperial Star
  Destroyer the 2,927-part hull stands 72 LDU above the lowest point of two
  small stand assemblies drawn apart from it (no contact, 138 LDU gap). A
  part lifted off its studs, or left hanging after its holder is deleted, has
  a part below it or touches its neighbours, so it still floats.
- **Unknown bases.** A part without geometry (not in the library nor
  embedded) cannot be checked; parts whose lowest point lies within
  ``TOL.ground_band`` above the origin of such a part, and whose centre lies
  within :data:`UNKNOWN_BASE_REACH` of it in x and y (half the width of a
  32 x 32 baseplate), are taken to stand on it and are grounded. In 1788 Treasure Chest the whole chest stands on the
  baseplate ``3334H.DAT``, which the library lacks (its origin is its top
  face, LDraw convention for baseplates); without this rule 145 of its 186
  parts were reported floating.
- A part floats when no grounded part reaches it. Parts without geometry
  (unknown parts, see :func:`.collisions.unchecked_placements`) are never
  reported and support nothing through contact.
"""

from __future__ import annotations

__all__ = ["floating_placements", "support_graph", "SupportResult"]

from dataclasses import dataclass

import numpy as np

from ..constants import SETTLE_LDU, TOL
from .capture import captured_edges
from .collisions import collision_engine
from ._world import flexible_mask
from .connections import connection_graph, near_mate_rows, part_rows
from .fcl import SHAPE_STORE
from .graphs import component_labels, reachable
from .hollows import hollow_stud_edges
from .spatial import _REST_DROP, box_overlap_pairs
from .sunk_stickers import STICKER_THICKNESS, sticker_mask as _stickers  # noqa: F401 (their old home)


@dataclass(frozen=True, eq=False)
class SupportResult:
    """Support analysis of a build.

    Attributes
    ----------
    ground : float, LDU
        World z of the lowest point of the build.
    grounded : (n,) bool
        Parts standing on the ground (within ``TOL.ground_band``), including
        the lowest parts of separate objects.
    supported : (n,) bool
        Parts reachable from a grounded part.
    floating : (f,) int
        Indices (into ``build.flattened_placements``) of floating parts.
    edges : (e, 2) int
        Directed support edges ``(supporter, supported)``.
    objects : (n,) int
        Object label of each part (parts joined by support edges either way).
    own_ground : dict of int to float
        Separate objects standing on their own ground: object label -> height
        (LDU) of its lowest point above :attr:`ground`.
    below_ground : (n,) bool
        Stray parts lying below the ground (:func:`_below_ground`); they are among
        :attr:`floating` (nothing holds them to the build), reported as below the ground.
    reuse : dict or None
        Bookkeeping for re-validation after append-only edits (:func:`_extend_support`): the part
        count, the base edges (connections, held panes, resting and intersecting pairs), the sticker
        mask and edges, the parts supported by the base edges alone and the later passes' edges.
        None for the ``separate_objects`` analysis (always recomputed).
    """

    ground: float
    grounded: np.ndarray
    supported: np.ndarray
    floating: np.ndarray
    edges: np.ndarray
    objects: np.ndarray
    own_ground: dict
    below_ground: np.ndarray = None
    reuse: dict = None


def _reach(n: int, e: np.ndarray, roots: np.ndarray) -> np.ndarray:
    """(n,) bool: parts reachable along directed edges ``e`` from ``roots``."""
    return reachable(n, e, roots)


#: Smallest object (parts joined by support edges) that settles (module rules): assemblies set
#: down whole by their weight - 10030's superstructure (1,246 parts), 10283's shuttle on its stand
#: (1,739). Smaller pieces left hanging (a minifigure hand whose arm is deleted, a helmet whose head
#: is deleted, 12 parts of a minifigure) must float even when they would drop a few LDU onto a part
#: (only within ``SETTLE_LDU``, 2 LDU, does any group settle: :func:`_hair_settle_edges`).
SETTLE_MIN_PARTS = 20


def _labels(n: int, e: np.ndarray) -> np.ndarray:
    """(n,) object label of each part: components of the support edges taken both ways."""
    return component_labels(n, e)


def _box_pairs(lo: np.ndarray, hi: np.ndarray, q: np.ndarray, others: np.ndarray) -> np.ndarray:
    """(m, 2) pairs (q[k], others[j]) whose boxes (``lo`` / ``hi`` (n, 3) LDU, closed) overlap, in the
    order of ``k`` then ``j``; from the broad phase's uniform grid (:func:`.spatial.box_overlap_pairs`),
    so the work grows with the parts and their neighbours, not with ``len(q) * len(others)``."""
    q, others = np.asarray(q, dtype=np.intp), np.asarray(others, dtype=np.intp)
    p = box_overlap_pairs(lo[others], hi[others], lo[q], hi[q])
    return np.column_stack([q[p[:, 0]], others[p[:, 1]]]) if len(p) else np.zeros((0, 2), dtype=np.intp)


def _settle_edges(eng, labels: np.ndarray, supported: np.ndarray) -> np.ndarray:
    """Support edges ``(supporter, part)`` of unsupported objects that settle onto another object.

    Every object (parts joined by support edges) of at least
    :data:`SETTLE_MIN_PARTS` parts that no grounded part reaches is moved
    down as one rigid body by ``TOL.settle_drop``; each of
    its parts whose inset mesh then meets a part of another object (and did
    not meet it in place) rests on that part. See the module rules.
    """
    n = eng.n
    has = eng.has_shape.copy()
    # parts drawn inside many others (CollisionEngine.crowded, reported already; none on real models) are
    # left out: lowering thousands of coincident parts onto each other costs their number squared
    has[getattr(eng, "crowded", np.zeros(0, dtype=np.int64))] = False
    size = np.bincount(labels[has], minlength=labels.max() + 1)
    cand = np.flatnonzero(has & ~supported & (size[labels] >= SETTLE_MIN_PARTS))
    if not len(cand):
        return np.zeros((0, 2), dtype=np.intp)
    drop = TOL.settle_drop
    shaped = np.flatnonzero(has)
    lo, hi = eng.box_lo.copy(), eng.box_hi
    lo_q = lo.copy()
    lo_q[:, 2] -= drop
    # pairs (moved part, other part) whose boxes meet once the moved part is lowered
    pairs = _box_pairs(np.where(np.isin(np.arange(n), cand)[:, None], lo_q, lo), hi, cand, shaped)
    pairs = pairs[labels[pairs[:, 0]] != labels[pairs[:, 1]]]
    if not len(pairs):
        return np.zeros((0, 2), dtype=np.intp)
    # already intersecting in place: those are hit edges (same object) or reported elsewhere
    a, b = pairs[:, 0], pairs[:, 1]
    t = eng.transforms
    ta = t[a].copy()
    ta[:, 2, 3] -= drop
    moved = eng._query(a, b, ta, t[b], TOL.collision_inset)
    pairs = pairs[moved]
    if not len(pairs):
        return pairs
    still = eng._query(pairs[:, 0], pairs[:, 1], t[pairs[:, 0]], t[pairs[:, 1]], TOL.collision_inset)
    pairs = pairs[~still]
    return pairs[:, ::-1].astype(np.intp)


def _hair_settle_edges(eng, e: np.ndarray, supported: np.ndarray, cg=None) -> np.ndarray:
    """Support edges ``(holder, part)`` of unsupported groups drawn a hair above a supported part.

    Parameters
    ----------
    eng : CollisionEngine
    e : (m, 2) int
        Support edges found so far; the groups are the components of those joining two unsupported
        parts, taken either way (a minifigure of 11 parts, a container with its door).
    supported : (n,) bool
        Parts reached from the ground so far.
    cg : ConnectionGraph, optional
        The build's connections (:func:`.connections.connection_graph`), for the seat test of
        :func:`_rests_balanced`; without it that test is left out.

    Returns
    -------
    (k, 2) int
        ``(holder, member)`` for every member of each group that, lowered as one rigid body by
        :data:`~bricklayer.constants.SETTLE_LDU` plus both insets (``2 * TOL.collision_inset``: the
        inset meshes of parts drawn touching are that far apart), meets a supported part's inset
        mesh: the group falls at most ``SETTLE_LDU`` before resting on it (module rules), so it is
        held as a whole, when it rests there (:func:`_rests_balanced`): it is drawn touching (it
        meets a supported part within the resting test's ``_REST_DROP``), or it lies on a
        parallel mating connector on that part within one stud pitch, or its centre of mass lies over its contacts. Groups so held may hold others in turn
        (repeated until none is added). Parts drawn inside many others (``CollisionEngine.crowded``)
        are left out, as in :func:`_settle_edges`.
    """
    n = eng.n
    has = eng.has_shape.copy()
    has[getattr(eng, "crowded", np.zeros(0, dtype=np.int64))] = False
    sup = np.asarray(supported, dtype=bool) & has
    free = has & ~sup
    drop = SETTLE_LDU + 2 * TOL.collision_inset
    t = eng.transforms
    out: list = []
    while free.any() and sup.any():
        ee = e[free[e[:, 0]] & free[e[:, 1]]] if len(e) else np.zeros((0, 2), dtype=np.intp)
        group = _labels(n, ee)
        cand = np.flatnonzero(free)
        lo = eng.box_lo.copy()
        lo[cand, 2] -= drop
        pairs = _box_pairs(lo, eng.box_hi, cand, np.flatnonzero(sup))
        if not len(pairs):
            break
        ta = t[pairs[:, 0]].copy()
        ta[:, 2, 3] -= drop
        met = eng._query(pairs[:, 0], pairs[:, 1], ta, t[pairs[:, 1]], TOL.collision_inset)
        if not met.any():
            break
        pairs = pairs[met]
        pairs = pairs[_rests_balanced(eng, pairs, group, cand, drop, cg)]
        if not len(pairs):
            break
        held_groups, first = np.unique(group[pairs[:, 0]], return_index=True)
        holder_of = dict(zip(held_groups.tolist(), pairs[first, 1].tolist()))
        members = cand[np.isin(group[cand], held_groups)]
        new = np.column_stack([[holder_of[g] for g in group[members].tolist()], members])
        out.append(new)
        sup[members] = True
        free[members] = False
    return np.vstack(out).astype(np.intp) if out else np.zeros((0, 2), dtype=np.intp)


def _surface_centroids(eng, parts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Surface areas ``(k,)`` (LDU^2) and world area centroids ``(k, 3)`` (LDU) of ``parts``.

    The weight of a part is taken as its surface area (moulded parts are thin walls of nearly one
    thickness, so mass follows area), from the collision engine's shapes (not inset); used as the
    centre of mass of a group by :func:`_rests_balanced`.
    """
    area = np.zeros(len(parts))
    cen = np.zeros((len(parts), 3))
    memo: dict = {}
    for k, i in enumerate(parts.tolist()):
        key = (eng.keys[i], bool(eng.mirrored[i]))
        if key not in memo:
            sh = eng.shapes[eng.keys[i]]
            v, f = sh.inset_mesh(0.0, key[1])
            tri = v[f]
            a = np.linalg.norm(np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]), axis=1) / 2
            tot = float(a.sum())
            memo[key] = (tot, (a[:, None] * tri.mean(axis=1)).sum(axis=0) / tot if tot > 0 else v.mean(axis=0))
        area[k], c = memo[key]
        t = eng.transforms[i]
        cen[k] = t[:3, :3] @ c + t[:3, 3]
    return area, cen


def _contact_points(eng, a: int, b: int, ta: np.ndarray, tb: np.ndarray) -> np.ndarray:
    """(k, 3) world points (LDU) where part ``a`` at transform ``ta`` meets part ``b`` at ``tb``
    (inset meshes, ``TOL.collision_inset``; FCL triangle-pair contacts)."""
    import fcl

    ma = SHAPE_STORE.model(eng.shapes[eng.keys[a]], bool(eng.mirrored[a]), TOL.collision_inset)
    mb = SHAPE_STORE.model(eng.shapes[eng.keys[b]], bool(eng.mirrored[b]), TOL.collision_inset)
    oa = fcl.CollisionObject(ma, fcl.Transform(ta[:3, :3], ta[:3, 3]))
    ob = fcl.CollisionObject(mb, fcl.Transform(tb[:3, :3], tb[:3, 3]))
    res = fcl.CollisionResult()
    fcl.collide(oa, ob, fcl.CollisionRequest(num_max_contacts=100_000, enable_contact=True), res)
    return np.array([c.pos for c in res.contacts], dtype=np.float64).reshape(-1, 3)


#: A point farther than this (LDU) outside the bounding box of a point set is outside its convex hull for
#: :func:`_over` without building the hull: far above the hull test's 1e-6 LDU border and the joggle of
#: Qhull's ``QJ`` option (input moved by about 1e-11 of the coordinates).
HULL_BOX_MARGIN_LDU = 1e-3


def _over(q: np.ndarray, pts: np.ndarray) -> bool:
    """True when the point ``q`` (2,) lies in the convex hull of ``pts`` (k, 2) (on its border included).

    A point outside the points' bounding box (by more than :data:`HULL_BOX_MARGIN_LDU`) is answered
    without the hull, nor the import of ``scipy.spatial`` (0.3-0.5 s per process): a group that touches
    at one edge beside its centre of mass, as the official models' hair-off groups do."""
    if len(pts) < 3:
        return False
    if np.any(q < pts.min(axis=0) - HULL_BOX_MARGIN_LDU) or np.any(q > pts.max(axis=0) + HULL_BOX_MARGIN_LDU):
        return False
    from scipy.spatial import ConvexHull, QhullError

    try:
        eq = ConvexHull(pts, qhull_options="QJ").equations
    except QhullError:
        return False
    return bool(np.all(eq[:, :2] @ q + eq[:, 2] <= 1e-6))


#: Reach (LDU) of the near-mate test of the hair rule (:func:`_mate_near`): one stud pitch. A group drawn a hair
#: above a part with a parallel mating connector closer than this is drawn joined to it in a way the
#: connection table does not read. Measured on the official models (``benchmarks/official_report``, the 23
#: parts the balance test alone drops): parallel mating pairs 1.1 LDU (93061 on 93061, 10228), 2.0 LDU (bar
#: 87994 in clip tile 2555, 10252), 4.0 LDU (4735 on 3032, 10129), 5.25 LDU (clip on arm 412, 6907), 12 LDU and
#: 14.1 LDU (round plate 6141 / 30057 and dish 3960ps2 seated by their tube between four studs, 5542, 10179,
#: 10212, 10019: 14.1 = 10 * sqrt(2), from a 2 x 2 square's centre to its studs). Fault injection "delete"
#: (``benchmarks/fault_injection_support.py``): the groups left where a deleted part held them have no mating
#: connector on what they touch, or the nearest at 24.2 LDU with axes 60 degrees apart (a hand on the legs).
HAIR_MATE_REACH_LDU = 20.0


#: Largest gap (LDU) along the joint axis between the two connectors of a near mate (:func:`_mate_near`): a
#: near mate is a joint drawn a hair off or seated beside the connector (across the axis, up to
#: :data:`HAIR_MATE_REACH_LDU`), never one whose parts are a part's height apart along it. Measured on the 67
#: official models (every near mate that holds a group in the hair rule): 0.0 LDU (round plates' tubes between
#: four studs, 14.1 LDU across), 0.6 (93061 on 93061, 10228), 1.0 (2536 on 2563, 6264 and 6278), 2.0 (4349 on
#: 2445, 10179), 4.0 (4735 on 3032, 10129; 30374 in 577b, 10212). A part left where a deleted part held it
#: lies that part's height along the axis from the next connector: at least a plate (8 LDU); a hat whose head
#: (24 LDU tall) is deleted, 16 LDU above the torso's neck stud (fault injection "delete", 1788). Between the
#: two. (A round plate 4073 in a saucepan 4529, 6278, reads as a near mate 16 LDU along the axis; it is held
#: because it stands enclosed by the pan's wall, :func:`_enclosed`.)
HAIR_MATE_AXIAL_GAP_LDU = 6.0


def _mate_near(cg, a: np.ndarray, b: np.ndarray, reach: float = HAIR_MATE_REACH_LDU,
               axial_gap: float = HAIR_MATE_AXIAL_GAP_LDU) -> np.ndarray:
    """(m,) bool: part ``a[k]`` has a connector that mates one of part ``b[k]``'s (``mate_matrix``), with
    parallel axes (``TOL.connector_axis_cos``), origins less than ``reach`` (LDU) apart and at most
    ``axial_gap`` (LDU) apart along the axis (:data:`HAIR_MATE_AXIAL_GAP_LDU`).

    ``a``, ``b``: (m,) part indices; ``cg``: the build's ``ConnectionGraph`` (its ``world_connectors``);
    without it (or without labels) all False. Used by :func:`_rests_balanced`: ``a`` is drawn on (or beside)
    a connector of ``b`` it could mate, a hair off (a round plate 1 x 1 0.7 LDU above the stud of the round
    plate 2 x 2 under it; a bar 2 LDU off its clip) or seated in a way the connection table does not read (a
    1 x 1 round plate's tube between four studs, 14.1 LDU from each); see :data:`HAIR_MATE_REACH_LDU`.
    The pairs are those of :func:`.connections.near_mate_rows`, which also finds the near misses that
    FLOATING hints name (:func:`.connections.near_miss`).
    """
    out = np.zeros(len(a), dtype=bool)
    w = cg.world_connectors if cg is not None else None
    if w is None or not len(w.get("owner", ())):
        return out
    for k, (i, j) in enumerate(zip(a.tolist(), b.tolist())):
        out[k] = len(near_mate_rows(w, part_rows(w, i), part_rows(w, j), reach, axial_gap)[0]) > 0
    return out


#: Largest fall (LDU, between the true surfaces) after which a group drawn a hair above a part still rests
#: on it by balance alone (:func:`_rests_balanced`): official files draw such groups up to 1.0 LDU above
#: what they land on (measured on the 67 official models, the three groups only the balance test holds:
#: 2959c01 on 2609a in 6973 0.0 LDU, 70501a/c on 70501b-d in 6285 0.3 LDU, 30240 on 2555 in 10228
#: 1.0 LDU); a group left where a deleted part held it lies as far above its new support as that part
#: was thick or raised it, 2.0 LDU and more (fault injection "delete": 6957's brick 4595 and tile
#: 3069bp15 left 2.0 LDU above hinge base 3937 when hinge top 3938 is deleted). Halfway between.
HAIR_BALANCED_GAP_LDU = 1.5

#: Largest horizontal travel (LDU, inset meshes as drawn) before a group meets a supported part, in each
#: of the four horizontal directions, for it to be enclosed by what holds it (:func:`_enclosed`): it
#: stands in a container or hangs threaded on a bar and cannot tip off. Measured on the official
#: models: two swords 59 standing in barrel 2489 (21325) meet it within 2.5, 2.5, 1.0 and 5.5 LDU, a
#: shield 2586p30 threaded by its handle on the vertical bar of 4623 (6256) within 1.0 LDU. Groups
#: left where a deleted part held them (fault injection "delete", every holder of the 9 models of
#: ``benchmarks/fault_injection_support.py``) are open on one side (no wall within 20 LDU) or farthest
#: from a wall 7.0 LDU or more (a helmet 2446 over the air tanks' collar 3838 whose head is deleted:
#: 7.5; a head and helmet over a slope 3039 whose torso is deleted, 6861: 7.0). Between the two.
ENCLOSED_PLAY_LDU = 6.0

#: Step (LDU) of the enclosure test's horizontal travel (:func:`_enclosed`), as the capture test's.
ENCLOSED_STEP_LDU = 0.5


def _enclosure_pairs(eng, members: np.ndarray, supported: np.ndarray, play: float = ENCLOSED_PLAY_LDU
                     ) -> np.ndarray:
    """(m, 2) int pairs ``(member, supported part)``, sorted, whose boxes overlap once the member's box is
    grown by ``play`` LDU along world x and y: the parts :func:`_enclosed` moves the members against.

    ``members``: (k,) part indices; ``supported``: (n,) bool. One broad phase for any number of groups:
    the pairs of a group are the rows of its members (each pair depends only on its two boxes)."""
    members = np.asarray(members, dtype=np.intp)
    others = np.flatnonzero(np.asarray(supported, dtype=bool) & eng.has_shape)
    if not len(members) or not len(others):
        return np.zeros((0, 2), dtype=np.intp)
    lo, hi = eng.box_lo.copy(), eng.box_hi.copy()
    lo[members, :2] -= play
    hi[members, :2] += play
    near = _box_pairs(lo, hi, members, others)
    return near[near[:, 0] != near[:, 1]]


def _enclosed(eng, members: np.ndarray, supported: np.ndarray, play: float = ENCLOSED_PLAY_LDU,
              near: np.ndarray | None = None) -> bool:
    """True when the group ``members`` ((k,) part indices), moved horizontally as drawn in each of the
    four directions +x, -x, +y, -y (world, z up), meets a part of ``supported`` ((n,) bool) within
    ``play`` LDU (steps of :data:`ENCLOSED_STEP_LDU`, inset meshes ``TOL.collision_inset``).

    Such a group stands in a container or is threaded on a bar (the walls or the bar stop it on every
    side): it cannot slide or tip off what it lands on, wherever its centre of mass lies; see
    :data:`ENCLOSED_PLAY_LDU` for the measurements. Diagonal escapes are not tested (as in
    :mod:`.capture`).

    ``near``: :func:`_enclosure_pairs` of a superset of ``members`` (same ``supported`` and ``play``),
    when the caller tests many groups: its rows of these members are taken instead of a broad phase
    over the whole build per group (thousands of groups in a 100,000-part build).
    """
    members = np.asarray(members, dtype=np.intp)
    if near is None:
        near = _enclosure_pairs(eng, members, supported, play)
    else:
        mine = np.zeros(eng.n, dtype=bool)
        mine[members] = True
        near = near[mine[near[:, 0]]]
    if not len(members) or not len(near):
        return False
    t = eng.transforms
    steps = np.arange(ENCLOSED_STEP_LDU, play + 1e-9, ENCLOSED_STEP_LDU)
    for axis in (0, 1):
        for sign in (1.0, -1.0):
            a, b = near[:, 0], near[:, 1]
            ta = np.repeat(t[a][None], len(steps), axis=0)
            ta[:, :, axis, 3] += sign * steps[:, None]
            ta = ta.reshape(-1, 4, 4)
            k = len(steps)
            hit = eng._query(np.tile(a, k), np.tile(b, k), ta, np.tile(t[b], (k, 1, 1)), TOL.collision_inset)
            if not hit.any():
                return False
    return True


def _rests_balanced(eng, pairs: np.ndarray, group: np.ndarray, cand: np.ndarray, drop: float,
                    cg=None) -> np.ndarray:
    """Mask of ``pairs`` ``(member, supported part)`` (met after lowering by ``drop``, LDU) whose group rests.

    A group rests on what it meets (the hair rule, :func:`_hair_settle_edges`) when

    - it is drawn touching: one of its pairs meets after the resting test's ``_REST_DROP`` (1 LDU,
      0.5 LDU between the surfaces), a resting contact like those of :mod:`.spatial`, whose balance
      is not judged either (70814's slope 61409 on its side, 0.1 LDU above the plate 3021); but a
      member touching a part it reaches lower than is not resting on top of it: it must hang from it
      or rest balanced where it touches (:func:`_hangs_from`), or the group tips off (a bar 6020
      leaning by one end on a plate, whose handle plate is deleted, 1788), unless the balance test
      below holds it with its other contacts (a top hat 3878 lying in a chest 4738a against its
      open lid 4739, 10228); or
    - it has a connector that mates one of the part it meets, with parallel axes, less than one stud
      pitch away across the axis and at most :data:`HAIR_MATE_AXIAL_GAP_LDU` along it
      (:func:`_mate_near`, :data:`HAIR_MATE_REACH_LDU`): the file means them joined, drawn a
      hair off or seated in a way the connection table does not read (a bar 2 LDU off its clip tile,
      10252; a round plate 6141's tube between the four studs of a round plate 4032a, 5542); or
    - it is enclosed by supported parts (:func:`_enclosed`): it stands in a container or hangs
      threaded on a bar, blocked on every horizontal side within :data:`ENCLOSED_PLAY_LDU` as
      drawn, so it cannot tip off wherever its centre of mass lies (two swords 59 leaning in a
      barrel 2489, 21325; a shield's handle on the vertical bar of 4623, 6256); or
    - it is drawn within :data:`HAIR_BALANCED_GAP_LDU` (1.5 LDU between the true surfaces: it meets
      after that fall plus both insets) of what it lands on, and its centre of mass (parts weighted
      by surface area, :func:`_surface_centroids`) lies, seen from above, within the convex hull of
      its contact points after the fall (FCL contacts of all its met pairs lowered by ``drop``, those
      drawn touching by ``_REST_DROP`` only: they sink no deeper into what they touch): a
      rigid body on supports stays where it lands only then (statics). A minifigure 0.9 LDU above
      its chair (6977) lands on its seat around its centre of mass; a hand left where its deleted
      arm held it (0.7 LDU above the legs), a helmet whose head is deleted (1.3 LDU above the air
      tanks' collar), a dish whose brick is deleted (1.0 LDU above a hinge) touch at one edge
      beside it and fall off (fault injection "delete", ``benchmarks/fault_injection_support.py``:
      11 such misses of this rule without the test); a brick left 2.0 LDU above a hinge base when
      the hinge top under it is deleted (6957) lands balanced but was drawn resting on the deleted
      part, not on the base.
    """
    keep = np.zeros(len(pairs), dtype=bool)
    t = eng.transforms
    free = np.zeros(eng.n, dtype=bool)
    free[cand] = True
    enclosing = None  # _enclosure_pairs of all of cand, made when the first group needs it
    for g in np.unique(group[pairs[:, 0]]).tolist():
        sel = np.flatnonzero(group[pairs[:, 0]] == g)
        a, b = pairs[sel, 0], pairs[sel, 1]
        ta = t[a].copy()
        ta[:, 2, 3] -= _REST_DROP
        members = cand[group[cand] == g]
        touch = eng._query(a, b, ta, t[b], TOL.collision_inset)
        # touching a part it reaches lower than, the group hangs from it or rests balanced there, or tips off
        # (:func:`_hangs_from`: its balance judged where it touches, not after the whole hair fall)
        drawn_touching = touch.copy()
        touch &= np.array([eng.min_z[i] >= eng.min_z[j] - 1e-6 or _hangs_from(eng, i, j, _REST_DROP, members)
                           for i, j in zip(a.tolist(), b.tolist())], dtype=bool) if touch.any() else touch
        if touch.any() or _mate_near(cg, a, b).any():
            keep[sel] = True
            continue
        if enclosing is None:  # one broad phase for every group tested (all of cand's parts)
            enclosing = _enclosure_pairs(eng, cand, ~free)
        if _enclosed(eng, members, ~free, near=enclosing):
            keep[sel] = True
            continue
        near = t[a].copy()
        near[:, 2, 3] -= min(drop, HAIR_BALANCED_GAP_LDU + 2 * TOL.collision_inset)
        if not eng._query(a, b, near, t[b], TOL.collision_inset).any():
            continue
        pts = []
        for i, j, d in zip(a.tolist(), b.tolist(), drawn_touching.tolist()):
            ti = t[i].copy()
            ti[2, 3] -= _REST_DROP if d else drop  # a pair drawn touching sinks no deeper into its holder
            pts.append(_contact_points(eng, i, j, ti, t[j]))
        w, c = _surface_centroids(eng, members)
        com = (w[:, None] * c).sum(axis=0) / max(float(w.sum()), 1e-12)
        keep[sel] = _over(com[:2], np.vstack(pts)[:, :2])
    return keep


#: Smallest vertical gap (LDU) between the top of a few stray parts and the lowest point of the rest of
#: the build for the stray parts to lie below the ground (:func:`_below_ground`): ten bricks (240 LDU) of
#: empty height, far beyond a part lifted or pushed by a few plates or an object drawn a little apart
#: (a stack 76 LDU above a lone brick still floats), as a wrong coordinate puts a part (1,000 LDU off).
STRAY_GAP = 240.0


def _below_ground(eng) -> np.ndarray:
    """(n,) bool: stray parts lying below the ground of the rest of the build.

    The ground is the lowest point of the build (module rules) unless the lowest parts are a few
    strays: parts are sorted by their lowest point and cut into layers wherever the next part
    starts more than :data:`STRAY_GAP` above the top of every part below it; the layers below the
    highest such cut that leaves fewer parts below it than above it lie below the ground. With one
    brick 1,000 LDU below a model, the model stands on its own lowest point and the brick is named
    (issue 16 item 9), instead of the whole model floating. A build cut in two halves of equal size
    keeps its lowest point as the ground.
    """
    n = eng.n
    out = np.zeros(n, dtype=bool)
    # the parts with a shape sorted by lowest point (ties by index), kept in the build's derived data: after
    # append-only edits the new parts are merged into the old order (the old parts' boxes do not change)
    # instead of a sort of every part (issue 20: re-validation follows the edit)
    _, idx, mz, top = eng._build.derived_data("support.by_lowest_point", lambda: _by_lowest_point(eng),
                                              lambda old, k: _by_lowest_point(eng, old))
    if len(idx) < 3:
        return out
    reach = np.maximum.accumulate(top)
    cuts = np.flatnonzero(mz[1:] > reach[:-1] + STRAY_GAP)  # a cut after sorted position k
    cuts = cuts[(cuts + 1) * 2 < len(idx)]
    if len(cuts):
        out[idx[:cuts[-1] + 1]] = True
    return out


def _by_lowest_point(eng, old: tuple | None = None) -> tuple:
    """``(n, idx, min_z, top)``: the engine's ``n`` parts with a shape (``idx``, flat indices) in the order of
    their lowest point ``min_z`` (LDU), ties by index (a stable sort), with the top ``top`` (LDU) of each.
    With ``old`` (this tuple for the first ``old[0]`` parts, unchanged since) the parts after them are
    merged in: a new part comes after every old one of the same lowest point, as in the stable sort."""
    has = np.asarray(eng.has_shape, dtype=bool)
    n0 = 0 if old is None or old[0] > eng.n else old[0]
    new = np.flatnonzero(has[n0:]) + n0
    mz_new, top_new = eng.min_z[new], eng.box_hi[new, 2]
    order = np.argsort(mz_new, kind="stable")
    new, mz_new, top_new = new[order], mz_new[order], top_new[order]
    if not n0:
        return eng.n, new, mz_new, top_new
    at = np.searchsorted(old[2], mz_new, side="right")
    return (eng.n, np.insert(old[1], at, new), np.insert(old[2], at, mz_new), np.insert(old[3], at, top_new))


#: Largest distance (LDU, in x and in y) from the origin of an unknown part to the centre of a part
#: taken to stand on it (module rules): half the width of the largest baseplate, 32 x 32 studs.
UNKNOWN_BASE_REACH = 320.0

#: Smallest gap (LDU, between bounding boxes) that separates an object standing on its own ground
#: from every other object. Measured on the official models: the separate objects (stands, display
#: plaques, minifigures beside a vehicle, the 10030 hull beside its stand) are 15.9 LDU or more from
#: everything else; a part left hanging when its holder is deleted (a pistol whose hand is removed,
#: the upper body of a minifigure without hips) is closer to its former neighbours than that.
SEPARATE_GAP = 12.0


def _near_other(lo: np.ndarray, hi: np.ndarray, members: np.ndarray, others: np.ndarray) -> bool:
    """True when a box of ``members`` lies within :data:`SEPARATE_GAP` (Euclidean box gap) of one of ``others``."""
    if not len(others):
        return False
    g = SEPARATE_GAP
    p = _box_pairs(np.where(np.isin(np.arange(len(lo)), members)[:, None], lo - g, lo), hi + g * np.isin(
        np.arange(len(lo)), members)[:, None], members, others)
    if not len(p):
        return False
    a, b = p[:, 0], p[:, 1]
    gap = np.maximum(0, np.maximum(lo[a] - hi[b], lo[b] - hi[a]))
    return bool((np.sqrt((gap ** 2).sum(axis=1)) < g).any())


def _own_ground(eng, labels: np.ndarray, supported: np.ndarray, ground: float) -> tuple[np.ndarray, dict]:
    """Lowest parts of separate objects standing on their own ground (module rules)."""
    n = eng.n
    has = eng.has_shape
    lo, hi, mz = eng.box_lo, eng.box_hi, eng.min_z
    band = TOL.ground_band
    out = np.zeros(n, dtype=bool)
    own: dict = {}
    cand = np.unique(labels[has & ~supported])
    if not len(cand):
        return out, own
    reached = np.zeros(labels.max() + 1, dtype=bool)
    reached[labels[supported]] = True
    # objects touching another object in the broad phase
    touching = np.zeros_like(reached)
    if len(eng.pairs):
        la, lb = labels[eng.pairs[:, 0]], labels[eng.pairs[:, 1]]
        diff = la != lb
        touching[la[diff]] = True
        touching[lb[diff]] = True
    shaped = np.flatnonzero(has)
    for c in cand.tolist():
        if reached[c] or touching[c]:
            continue
        members = np.flatnonzero((labels == c) & has)
        if _near_other(lo, hi, members, shaped[labels[shaped] != c]):
            continue
        low = float(mz[members].min())
        base = members[mz[members] <= low + band]
        others = shaped[labels[shaped] != c]
        below = lo[others, 2] < low - 1e-6
        o = others[below]
        if len(o):
            under = ((lo[o, None, 0] < hi[None, base, 0]) & (hi[o, None, 0] > lo[None, base, 0])
                     & (lo[o, None, 1] < hi[None, base, 1]) & (hi[o, None, 1] > lo[None, base, 1]))
            if under.any():
                continue
        out[base] = True
        own[c] = round(low - ground, 3)
    return out, own


#: Moves (LDU) of a sticker along its normal, each way, in the sticker-on-a-surface test
#: (:func:`_sticker_surface_edges`). A sticker is a slab 0.25 LDU thick (``box5-12`` scaled 0.25, the
#: LDraw sticker primitives); moved by ``m`` its back face crosses a surface lying ``g`` behind it when
#: ``g <= m <= g + 0.25``, so steps 0.2 apart find a surface up to 0.8 LDU off the back face. The test
#: is on the drawn surfaces (no inset): a slab pushed deeper than its thickness into a part lies wholly
#: inside its material and crosses no surface. In 10252 Volkswagen Beetle the rear-window stickers lie
#: 0.0-0.25 LDU (vertex distances) on the windscreen 30007.
STICKER_MOVES = (0.1, 0.3, 0.5, 0.7)


def _sticker_surface_edges(eng, sticker: np.ndarray) -> np.ndarray:
    """Support edges ``(part, sticker)``: a sticker lying flat on a part's surface is held by it.

    Rule "sticker on a surface" (adhesive contact): a sticker is glued on by its back face, often on a
    side face or a slope (1180 Moon Buggy's logo on its canopy, 10252's rear-window stickers on the
    windscreen 30007), so nothing under it holds it up. Its normal is the thinnest axis of its drawn
    shape (part frame); moved by one of :data:`STICKER_MOVES` along that normal, one way or the other,
    its drawn surface crosses the drawn surface of the part it lies on. Support flows from the part to
    the sticker only: a sticker holds nothing up.

    Parameters
    ----------
    eng : CollisionEngine
    sticker : (n,) bool
        :func:`_stickers`.

    Returns
    -------
    (e, 2) int
        Directed edges ``(holding part, sticker)``.
    """
    p = eng.pairs
    if not len(p) or not sticker.any():
        return np.zeros((0, 2), dtype=np.intp)
    q = np.vstack([p[sticker[p[:, 0]]], p[sticker[p[:, 1]]][:, ::-1]])  # (sticker, other part)
    q = q[eng.has_shape[q[:, 0]] & eng.has_shape[q[:, 1]]]
    if not len(q):
        return np.zeros((0, 2), dtype=np.intp)
    t = eng.transforms
    normal = np.zeros((len(q), 3))
    for k, i in enumerate(q[:, 0].tolist()):
        h = eng.shapes[eng.keys[i]].hull_points
        axis = np.zeros(3)
        axis[int(np.argmin(h.max(axis=0) - h.min(axis=0)))] = 1.0
        normal[k] = t[i, :3, :3] @ axis
    held = np.zeros(len(q), dtype=bool)
    for move in STICKER_MOVES:
        for sign in (1.0, -1.0):
            k = np.flatnonzero(~held)
            if not len(k):
                break
            tq = t[q[k, 0]].copy()
            tq[:, :3, 3] += sign * move * normal[k]
            held[k] = eng._query(q[k, 0], q[k, 1], tq, t[q[k, 1]], 0.0)
    q = q[held]
    # rule "a sticker's whole back lies on faces" (.sunk_stickers): a sticker slid past its face's edge is not
    # held, whatever part of it still lies on the face
    keep = np.ones(len(q), dtype=bool)
    for s in np.unique(q[:, 0]).tolist():
        if not _sticker_back_covered(eng, s, eng.pairs):
            keep[q[:, 0] == s] = False
    return q[keep][:, ::-1].astype(np.intp)


def _sticker_back_covered(eng, s: int, pairs: np.ndarray) -> bool:
    """True when the back of sticker ``s`` (a placement index) lies on the faces of the parts it touches
    (broad-phase ``pairs``), all but :data:`.sunk_stickers.UNCOVERED_MAX` of its coverage grid
    (:func:`.sunk_stickers.uncovered_back_fraction`; world frame from the engine's proper transforms)."""
    from .sunk_stickers import UNCOVERED_MAX, back_grid, uncovered_back_fraction

    def world(i, pts):
        t = eng.transforms[i]
        mir = np.array([-1.0 if eng.mirrored[i] else 1.0, 1.0, 1.0])
        return (pts * mir) @ t[:3, :3].T + t[:3, 3]

    grid, axis = back_grid(eng.shapes[eng.keys[s]].hull_points)
    t = eng.transforms[s]
    normal = t[:3, :3] @ axis
    others = np.concatenate([pairs[pairs[:, 0] == s, 1], pairs[pairs[:, 1] == s, 0]])
    tris = []
    for o in np.unique(others).tolist():
        if not eng.has_shape[o]:
            continue
        shape = eng.shapes[eng.keys[o]]
        tris.append(world(o, shape.vertices)[shape.faces])
    return uncovered_back_fraction(world(s, grid), normal, tris) <= UNCOVERED_MAX


def _flexible_carry_edges(eng, supported: np.ndarray, flexible: np.ndarray) -> np.ndarray:
    """Support edges ``(holder, piece)``: pieces of flexible wholes hang from the supported parts they touch.

    Rule "flexible pieces carry support": hose and string segments, chain links and LDraw primitives
    drawn as string (:func:`._world.flexible_mask`: the rigging of 6285 Black Seas Barracuda, 2,149
    scaled ``4-4cyli.dat``) are never judged floating themselves: they are drawn in their final bent or
    hanging shape, held by their ends. A piece that touches a supported part (broad-phase contact,
    boxes within 1.25 LDU) is taken to be held by it, and the pieces touching it in turn (one string,
    segment after segment); parts resting on or hanging from such a piece are then held like parts on
    any supported part (a crane hook 3127a hanging on its rigging string). A primitive placed as a part
    is reported once, as NOT A PART; what hangs on it is not also reported floating (one defect, one
    message). A flexible whole that touches nothing supported (the hoses inside a model drawn apart)
    carries nothing.

    Parameters
    ----------
    eng : CollisionEngine
    supported : (n,) bool
    flexible : (n,) bool

    Returns
    -------
    (e, 2) int
        Directed edges ``(holder, piece)``.
    """
    p = eng.pairs
    flexible = flexible & eng.has_shape
    if not len(p) or not flexible.any():
        return np.zeros((0, 2), dtype=np.intp)
    p = p[flexible[p[:, 0]] | flexible[p[:, 1]]]
    both = np.vstack([p, p[:, ::-1]])
    both = both[flexible[both[:, 1]]]  # (neighbour, flexible piece)
    sup = supported.copy()
    edges = []
    while True:
        e = both[sup[both[:, 0]] & ~sup[both[:, 1]]]
        if not len(e):
            break
        edges.append(e)
        sup[e[:, 1]] = True
    return np.vstack(edges).astype(np.intp) if edges else np.zeros((0, 2), dtype=np.intp)


def _captured(build, eng, supported: np.ndarray, cand: np.ndarray) -> np.ndarray:
    """:func:`._capture.captured_edges`, reused across append-only edits.

    The capture test of a candidate looks only at supported parts within a few
    LDU of it. After parts are appended (``LegoBuild._appended_since``), when
    the old parts' support before capture and the old candidates are
    unchanged and no new part lies within :data:`_CAPTURE_REACH` of an old
    candidate, the old candidates get the same answer (their neighbourhoods
    are the same) and the new ones, which see no old candidate, are tested
    alone: the result is that of a full call.
    """
    memo = build._cache.get("validate.capture.memo")
    state = build._state_key()
    cap = None
    if memo is not None and (memo[0] == state or build._appended_since(memo[0]) is not None):
        _, n0, sup0, cand0, cap0 = memo
        old_c = cand[cand < n0]
        if n0 <= eng.n and np.array_equal(supported[:n0], sup0) and np.array_equal(old_c, cand0):
            new = np.flatnonzero(eng.has_shape[n0:]) + n0
            lo, hi, g = eng.box_lo, eng.box_hi, _CAPTURE_REACH
            near = (len(new) and len(cand0) and bool(np.any(
                np.all(lo[new, None, :] <= hi[None, cand0, :] + g, axis=2)
                & np.all(hi[new, None, :] >= lo[None, cand0, :] - g, axis=2))))
            if not near:
                new_c = cand[cand >= n0]
                cap = np.vstack([cap0, captured_edges(eng, supported, new_c)]) if len(new_c) else cap0
    if cap is None:
        cap = captured_edges(eng, supported, cand)
    cap = np.asarray(cap, dtype=np.intp).reshape(-1, 2)
    build._cache["validate.capture.memo"] = (state, eng.n, supported.copy(), cand.copy(), cap)
    return cap


#: Largest fall (LDU) of a hanging part onto its holder (:func:`_hanging_edges`): a ribbed hose 72504
#: threaded on an axle 3705 meets it after 1.5 LDU (its bore is wider than the axle), as the capture
#: test's play (:data:`._capture.CAPTURE_PLAY`, 2 LDU); a part lifted a plate (8 LDU) still floats.
HANG_DROP = 2.0


def _hangs_from(eng, part: int, holder: int, fall: float, members=None) -> bool:
    """True when ``part``, lowered by ``fall`` (LDU) onto ``holder`` (part indices), stays there: its centre of
    mass (:func:`_surface_centroids`; with ``members``, (k,) part indices, that of the group it belongs to)
    lies below the highest of its contact points with the holder (FCL
    contacts of the inset meshes, :func:`_contact_points`), so it hangs from them as a pendulum does (a hose on
    an axle, a hook's load, a curtain on a bar, a part under a 1 x 1 round plate), or lies, seen from above,
    within their convex hull (:func:`_over`), so it rests there balanced (statics).

    A part that meets its holder below its centre of mass and beside it tips off: a hat whose head is deleted
    caught by its brim on a palm leaf beside it (centre of mass, lowered with it, 2.4 LDU above the contacts
    and 12 LDU beside them), a bar 6020 whose clip's handle plate is deleted caught at one end on the plate
    below (49 LDU above, 10 LDU beside them; fault injection "delete" on 1788,
    ``benchmarks/fault_injection_support.py``). Measured on the 67 official models, every part the hanging
    test held before this check (79 pairs) has its centre of mass, lowered with it, 1.75 LDU (flower petals
    24866 on a stem 24855, 21325) to 53 LDU (a monkey 2550c01 on the rigging, 6285) below its contacts, or
    over them (2959c01 on 2607, 6898 and 6973), but three, each held by another rule as well: a dish 3960 in
    a Technic brick 3700 (1180) and a plate 3020 under a plate 2445 (21321) by other paths, a top hat 3878
    lying in a chest 4738a against its open lid 4739 (10228) by the balance test of :func:`_rests_balanced`
    on the chest and lid together.

    Returns True as well when FCL reports the pair met but gives no contact point.
    """
    t = eng.transforms
    ti = t[part].copy()
    ti[2, 3] -= fall
    pts = _contact_points(eng, part, holder, ti, t[holder])
    if not len(pts):  # FCL met the pair but reports no contact point: keep the hanging answer
        return True
    w, c = _surface_centroids(eng, np.array([part]) if members is None else np.asarray(members, dtype=np.intp))
    com = (w[:, None] * c).sum(axis=0) / max(float(w.sum()), 1e-12) - np.array([0.0, 0.0, fall])
    return bool(com[2] < pts[:, 2].max()) or _over(com[:2], pts[:, :2])


#: Longest fall (LDU) of a fabric sheet (trait ``"fabric"`` of :mod:`ldraw_data.traits`: titles starting
#: "Sheet Fabric") onto a part it hangs on in :func:`_hanging_edges`: a sheet hangs through holes punched
#: wider than the bars or arms through them. 6716 Covered Wagon's cover 71396p01c01 (line 79) hangs through
#: its 6 edge holes on the arms of 6 plates 4623 (lines 61-66), drawn 0.2 LDU clear of them; it meets them
#: (0.25 LDU insets) after a fall of about 4 LDU (audit round 6, F47, ``benchmarks/validator_audit.md``). A
#: sheet drawn a plate (8 LDU) above anything it could hang on is not reached by these falls.
SHEET_HANG_DROP = 6.0
#: The falls tried for a sheet beyond :data:`HANG_DROP` (LDU), shortest first.
SHEET_HANG_STEPS = (3.0, 4.5, SHEET_HANG_DROP)


def _fabric(eng) -> np.ndarray:
    """(n,) bool: placements whose part title carries the trait ``"fabric"`` (whole words, "Sheet Fabric ..."),
    library parts by their catalog name, MPD-embedded ones by the first line of their block."""
    from ldraw_data.traits import title_traits

    from ._world import _embedded_doc, part_title

    out = np.zeros(eng.n, dtype=bool)
    emb = None
    for key, idx in eng.wa.groups.items():
        if key.startswith("?") and emb is None:
            emb = _embedded_doc(eng._build)
        if "fabric" in title_traits(part_title(key, eng.wa.placements[idx[0]].content, emb) or ""):
            out[idx] = True
    return out


def _hangs_from_all(eng, part: int, holders: np.ndarray, falls: np.ndarray) -> bool:
    """:func:`_hangs_from` for a part met by several holders (part indices ``holders``, each after its fall,
    ``falls`` in LDU): the contact points of all of them together, the centre of mass lowered by the
    longest fall. A fabric sheet hung through holes along both sides (6716's wagon cover on 6 arms)
    meets each holder beside its centre of mass, all of them around it."""
    t = eng.transforms
    pts = []
    for h, f in zip(np.asarray(holders).tolist(), np.asarray(falls, dtype=float).tolist()):
        ti = t[part].copy()
        ti[2, 3] -= f
        pts.append(_contact_points(eng, part, int(h), ti, t[int(h)]))
    pts = np.vstack(pts) if pts else np.zeros((0, 3))
    if not len(pts):
        return False
    w, c = _surface_centroids(eng, np.array([part]))
    com = (w[:, None] * c).sum(axis=0) / max(float(w.sum()), 1e-12) - np.array([0.0, 0.0, float(np.max(falls))])
    return bool(com[2] < pts[:, 2].max()) or _over(com[:2], pts[:, :2])


def _hanging_edges(eng, supported: np.ndarray, cand: np.ndarray) -> np.ndarray:
    """Support edges ``(holder, part)`` of parts hanging from supported parts (module rules).

    A part hangs from a supported part when it reaches lower than that part and, moved down by
    ``_REST_DROP`` (1 LDU) or :data:`HANG_DROP`, its inset mesh meets that part's while it does not
    meet it in place: it is blocked from falling, in -Z, as a part resting on the holder is (a
    hose threaded on an axle, a load on a hook, a curtain on a bar, a part under a 1 x 1 round
    plate: issue 16 item 1), when it hangs from the contacts or rests balanced on them
    (:func:`_hangs_from`): met below its centre of mass and beside it, it tips off. The resting test
    of the collision engine only moves the part whose lowest point is higher, so these are tested
    here, for the parts left unsupported only; newly held parts may hold others in turn. A fabric
    sheet (:func:`_fabric`) hangs through holes wider than what they hang on: it is also tried with
    the falls of :data:`SHEET_HANG_STEPS`, up to :data:`SHEET_HANG_DROP`.
    """
    sup = np.asarray(supported, dtype=bool).copy()
    left = np.asarray(cand, dtype=np.intp)
    if not len(left) or not len(eng.pairs):
        return np.zeros((0, 2), dtype=np.intp)
    p = eng.pairs[~eng.hit]
    edges: list = []
    t = eng.transforms
    fabric = _fabric(eng)
    fabric = fabric if fabric.any() else None
    while len(left):
        is_left = np.zeros(eng.n, dtype=bool)
        is_left[left] = True
        # (part left unsupported, supported neighbour) of broad-phase pairs that do not intersect in place
        q = np.vstack([p[is_left[p[:, 0]] & sup[p[:, 1]]], p[is_left[p[:, 1]] & sup[p[:, 0]]][:, ::-1]])
        q = q[eng.min_z[q[:, 0]] < eng.min_z[q[:, 1]] - 1e-6]
        if not len(q):
            break
        held = np.zeros(len(q), dtype=bool)
        fall = np.zeros(len(q))
        for drop in (_REST_DROP, HANG_DROP):
            tq = t[q[:, 0]].copy()
            tq[:, 2, 3] -= drop
            met = eng._query(q[:, 0], q[:, 1], tq, t[q[:, 1]], TOL.collision_inset) & ~held
            fall[met] = drop
            held |= met
        sheet = fabric[q[:, 0]] & ~held if fabric is not None else None
        if sheet is not None and sheet.any():  # a sheet hangs through wide holes: longer falls, sheets only
            for drop in SHEET_HANG_STEPS:
                k = np.flatnonzero(sheet & ~held)
                if not len(k):
                    break
                tq = t[q[k, 0]].copy()
                tq[:, 2, 3] -= drop
                met = eng._query(q[k, 0], q[k, 1], tq, t[q[k, 1]], TOL.collision_inset)
                fall[k[met]] = drop
                held[k[met]] = True
        met_all = held.copy()
        for k in np.flatnonzero(held).tolist():
            held[k] = _hangs_from(eng, int(q[k, 0]), int(q[k, 1]), float(fall[k]))
        if sheet is not None:  # a sheet hangs on all its holders together (a cover on the arms along both sides)
            for part in np.unique(q[met_all & ~held & fabric[q[:, 0]], 0]).tolist():
                k = np.flatnonzero((q[:, 0] == part) & met_all)
                if len(k) > 1 and _hangs_from_all(eng, part, q[k, 1], fall[k]):
                    held[k] = True
        if not held.any():
            break
        e = q[held][:, ::-1]
        edges.append(e)
        sup[e[:, 1]] = True
        left = left[~sup[left]]
    return np.vstack(edges).astype(np.intp) if edges else np.zeros((0, 2), dtype=np.intp)


#: Box distance (LDU) beyond which a part cannot change the capture test of another: well over the
#: test's reach (``CAPTURE_PLAY`` plus both insets, :mod:`._capture`).
_CAPTURE_REACH = 8.0


def _base_edges(eng, cg) -> np.ndarray:
    """(e, 2) int directed support edges ``(supporter, supported)`` that hold whatever else is
    supported: mated connectors and held panes both ways, resting pairs (lower part first) and
    intersecting pairs both ways, in this order (the first stage of :func:`support_graph`)."""
    edges = []
    if len(cg.pairs):
        e = cg.pairs[:, [0, 2]]
        edges += [e, e[:, ::-1]]
    if len(cg.held):  # a pane held in its frame (.held): support passes both ways, as through connectors
        edges += [cg.held, cg.held[:, ::-1]]
    if len(eng.pairs):
        r = eng.rests
        edges += [eng.pairs[r[:, 0]][:, ::-1], eng.pairs[r[:, 1]]]
        hit = eng.pairs[eng.hit]
        edges += [hit, hit[:, ::-1]]
    return np.vstack(edges).astype(np.intp) if edges else np.zeros((0, 2), dtype=np.intp)


def _base_blocks(eng, cg) -> tuple:
    """Row counts of the eight blocks of :func:`_base_edges` in its order: mated pairs both ways, held panes
    both ways, resting pairs (each side), intersecting pairs both ways."""
    nc, nh = len(cg.pairs), len(cg.held)
    if not len(eng.pairs):
        return (nc, nc, nh, nh, 0, 0, 0, 0)
    r0, r1, nhit = (int(np.count_nonzero(eng.rests[:, 0])), int(np.count_nonzero(eng.rests[:, 1])),
                    int(np.count_nonzero(eng.hit)))
    return (nc, nc, nh, nh, r0, r1, nhit, nhit)


def _appended_base_edges(eng, cg, r: dict, edges: np.ndarray):
    """After append-only edits, :func:`_base_edges` of the build and the support edges with the new base rows
    in their places, made from the old ones without a pass over every row: ``(base, edges, new rows)`` or
    None when the connection graph or the collision engine did not extend their old rows (then the
    caller compares all rows). ``r``: the old analysis' bookkeeping (its base edges, block row counts and
    the engine's pair count); ``edges``: its support edges (base rows first). Each block of the base
    keeps its old rows in order; the connection graph says where its new mated pairs and held panes go
    (:attr:`.connections.ConnectionGraph.appended`), the engine's new pairs come after its old ones
    (``kept_pairs``), so their resting and intersecting rows end their blocks."""
    app = cg.appended
    blocks = r.get("blocks")
    if (app is None or blocks is None or app["parts"] != r["n"] or app["pairs"] is None
            or app["pairs"][0] != blocks[0] or app["held"][0] != blocks[2]
            or getattr(eng, "kept_pairs", -1) != r.get("eng_pairs") or len(eng.pairs) < r["eng_pairs"]):
        return None
    _, at_c, rows_c = app["pairs"]
    _, at_h, rows_h = app["held"]
    p = eng.pairs[r["eng_pairs"]:]
    rests, hit = eng.rests[r["eng_pairs"]:], eng.hit[r["eng_pairs"]:]
    pc = rows_c[:, [0, 2]].astype(np.intp)
    ph = np.asarray(rows_h, dtype=np.intp).reshape(-1, 2)
    ph_hit = p[hit].astype(np.intp)
    off = np.concatenate([[0], np.cumsum(blocks)]).astype(np.int64)
    parts = [(off[0] + at_c, pc), (off[1] + at_c, pc[:, ::-1]), (off[2] + at_h, ph), (off[3] + at_h, ph[:, ::-1]),
             (np.full(int(rests[:, 0].sum()), off[5]), p[rests[:, 0]][:, ::-1].astype(np.intp)),
             (np.full(int(rests[:, 1].sum()), off[6]), p[rests[:, 1]].astype(np.intp)),
             (np.full(len(ph_hit), off[7]), ph_hit), (np.full(len(ph_hit), off[8]), ph_hit[:, ::-1])]
    at = np.concatenate([a for a, _ in parts]).astype(np.int64)
    rows = np.vstack([v.reshape(-1, 2) for _, v in parts]).astype(np.intp)
    if not len(rows):
        return r["base"], edges, rows
    new_edges = np.insert(edges, at, rows, axis=0)
    return new_edges[:len(r["base"]) + len(rows)], new_edges, rows


def _grounded(eng, ground: float, below: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """(len(rows),) bool: parts ``rows`` standing on the ground (module rules: within
    ``TOL.ground_band`` of ``ground`` (LDU), or on an unknown part's origin within
    :data:`UNKNOWN_BASE_REACH`). A sticker never stands on the ground, whatever its height (rule "a sticker
    is glued, not resting": it is held only by its back on a part's surface, :func:`_sticker_surface_edges`;
    a sticker lifted 1-5 LDU off a brick standing on the ground once stood there on its 0.25 LDU edge)."""
    from .sunk_stickers import sticker_mask

    has, mz = eng.has_shape[rows], eng.min_z[rows]
    has = has & ~sticker_mask(eng)[rows]
    out = has & ~below[rows] & (mz <= ground + TOL.ground_band)
    unknown = eng.wa.poses[~eng.has_shape, :3, 3]
    if len(unknown):
        dz = mz[:, None] - unknown[None, :, 2]
        mid = (eng.box_lo[rows, :2] + eng.box_hi[rows, :2]) / 2
        dxy = np.abs(mid[:, None, :] - unknown[None, :, :2]).max(axis=2)
        out |= has & np.any((dz >= -0.5) & (dz <= TOL.ground_band) & (dxy <= UNKNOWN_BASE_REACH), axis=1)
    return out


#: Box distance (LDU) beyond which an appended supported part cannot change the later passes of
#: the support analysis (settle, hollow studs, flexible carry, hanging, capture, hair) for another
#: part: over twice :data:`HAIR_MATE_REACH_LDU` (the longest reach among them: 20 LDU between
#: connectors) plus ``TOL.settle_drop`` (6 LDU). See :func:`_extend_support`.
SUPPORT_REACH_LDU = 48.0


def _extend_support(build, old: SupportResult) -> SupportResult | None:
    """The support analysis after parts were appended, from the one before; None when it must be
    recomputed (:func:`support_graph`'s ``make``).

    Rule: a new part that stands on the ground or is joined by a base edge (:func:`_base_edges`) to
    a part the base edges already held up is supported in every stage of the analysis, so it is never
    a candidate of the later passes; it can change their answers only for a part they look at
    (one not held up by the base edges) within :data:`SUPPORT_REACH_LDU` of it, and it cannot make
    another part float. So when, after the edit, the ground and the parts below it are the same, the
    base edges among the old parts are the same (in the same order), no new part is a sticker, a
    flexible piece or without geometry, every new part is held up by the base edges, and none lies
    within :data:`SUPPORT_REACH_LDU` of an old part the base edges did not hold up or touches a
    sticker, the result is the old one with the new parts supported: edges, objects, supported and
    floating parts equal those of a full analysis (``tests/bricklayer/test_validate_incremental.py``).
    """
    from .connections import connection_graph

    r = old.reuse
    if r is None:
        return None
    eng = collision_engine(build)
    n, n0 = eng.n, r["n"]
    if n <= n0:
        return None
    new = np.arange(n0, n)
    has = eng.has_shape
    if not has[new].all() or flexible_mask(build)[new].any() or _stickers(eng, n0)[new].any():
        return None
    below = _below_ground(eng)
    if below[new].any() or not np.array_equal(below[:n0], old.below_ground):
        return None
    ground = float(eng.min_z[has & ~below].min())
    if ground != old.ground:
        return None
    p = eng.pairs
    sticker = np.concatenate([r["sticker"], np.zeros(n - n0, dtype=bool)])
    if len(p) and sticker.any():
        touch = (p >= n0).any(axis=1)
        if (sticker[p[touch]]).any():  # a new part touching a sticker may hold it
            return None
    cg = connection_graph(build)
    got = _appended_base_edges(eng, cg, r, old.edges)
    if got is not None:  # the new rows put in their places; the old rows are as they were
        base, e_new, fresh = got
    else:
        base = _base_edges(eng, cg)
        old_rows = (base < n0).all(axis=1)
        if not np.array_equal(base[old_rows], r["base"]):
            return None
        fresh = base[~old_rows]
        e_new = None
    grounded_new = _grounded(eng, ground, below, new)
    sup0 = np.concatenate([r["sup0"], grounded_new])
    if (~sup0[fresh[:, 1]] & (fresh[:, 1] < n0)).any():  # a new part holds up an old loose one
        return None
    while True:  # held up along base edges from the old supported parts and the new grounded ones
        step = fresh[sup0[fresh[:, 0]] & ~sup0[fresh[:, 1]]]
        if not len(step):
            break
        sup0[step[:, 1]] = True
    if not sup0[new].all():
        return None
    loose = np.flatnonzero(~r["sup0"])  # old parts the later passes look at
    if len(loose):
        g = SUPPORT_REACH_LDU
        lo, hi = eng.box_lo, eng.box_hi
        if np.any(np.all(lo[new, None, :] <= hi[None, loose, :] + g, axis=2)
                  & np.all(hi[new, None, :] >= lo[None, loose, :] - g, axis=2)):
            return None
    e = np.vstack([base, r["sticker_edges"]] + r["later"]).astype(np.intp) if e_new is None else e_new
    nb = fresh[(fresh < n0).any(axis=1)]
    nb = np.where(nb[:, 0] < n0, nb[:, 0], nb[:, 1])
    labs = np.unique(old.objects[nb])
    if n - n0 == 1 and len(labs) <= 1:  # labels by smallest part: the new (last) part joins one or starts one
        lab = int(labs[0]) if len(labs) else (int(old.objects.max()) + 1 if n0 else 0)
        labels = np.concatenate([old.objects, [lab]]).astype(np.intp)
    else:
        labels = _labels(n, e).astype(np.intp)
    return SupportResult(ground, np.concatenate([old.grounded, grounded_new]),
                         np.concatenate([old.supported, np.ones(n - n0, dtype=bool)]), old.floating, e,
                         labels, {}, below,
                         dict(r, n=n, base=base, sticker=sticker, sup0=sup0, blocks=_base_blocks(eng, cg),
                              eng_pairs=len(eng.pairs)))


def support_graph(build, *, separate_objects: bool = False) -> SupportResult:
    """The (cached) support analysis of a build (see module rules).

    After append-only edits the analysis is extended rather than redone when the new parts cannot
    change it (:func:`_extend_support`).

    Parameters
    ----------
    build : LegoBuild
    separate_objects : bool
        Let objects drawn apart (touching nothing, nothing below them) stand on
        their own lowest level, as official files draw stands and loose parts.
        Off by default: physically such an object floats.

    Returns
    -------
    SupportResult
    """
    def make() -> SupportResult:
        eng = collision_engine(build)
        n = eng.n
        if n == 0:
            z = np.zeros(0, dtype=bool)
            return SupportResult(0.0, z, z, np.zeros(0, dtype=np.intp), np.zeros((0, 2), dtype=np.intp),
                                 np.zeros(0, dtype=np.intp), {}, z)
        has = eng.has_shape
        mz = eng.min_z
        below = _below_ground(eng)
        ground = float(mz[has & ~below].min()) if has.any() else float(mz.min())
        grounded = _grounded(eng, ground, below, np.arange(n))
        cg = connection_graph(build)
        base = _base_edges(eng, cg)
        sticker = _stickers(eng) if len(eng.pairs) else np.zeros(n, dtype=bool)
        sticker_e = _sticker_surface_edges(eng, sticker) if sticker.any() else np.zeros((0, 2), dtype=np.intp)
        e = np.vstack([base, sticker_e]).astype(np.intp)
        later = []  # edges of the later passes, in order

        def add(extra):
            # the object labels are only read after the last pass: made once, from the final edges
            nonlocal e, supported, labels
            later.append(np.asarray(extra, dtype=np.intp).reshape(-1, 2))
            e = np.vstack([e, extra])
            supported = _reach(n, e, np.flatnonzero(grounded))
            labels = None

        supported = _reach(n, e, np.flatnonzero(grounded))
        sup0 = supported.copy()
        labels = _labels(n, e)
        settle = _settle_edges(eng, labels, supported)
        if len(settle):
            add(settle)
        flexible = flexible_mask(build)
        cand = np.flatnonzero(~supported & has & ~flexible)
        if len(cand):
            hollow = hollow_stud_edges(eng, cg.world_connectors, supported, np.flatnonzero(~supported & has))
            if len(hollow):
                add(hollow)
                cand = np.flatnonzero(~supported & has & ~flexible)
        if len(cand):
            carry = _flexible_carry_edges(eng, supported, flexible)
            if len(carry):
                add(carry)
                cand = np.flatnonzero(~supported & has & ~flexible)
        if len(cand):
            hang = _hanging_edges(eng, supported, np.flatnonzero(~supported & has))
            if len(hang):
                add(hang)
                cand = np.flatnonzero(~supported & has & ~flexible)
        if len(cand):
            cap = _captured(build, eng, supported, cand)
            if len(cap):
                add(cap)
        if len(cand):
            hair = _hair_settle_edges(eng, e, supported, cg)
            if len(hair):
                add(hair)
        if labels is None:
            labels = _labels(n, e)
        own_base, own = (_own_ground(eng, labels, supported, ground) if separate_objects
                         else (np.zeros(n, dtype=bool), {}))
        if own_base.any():
            grounded = grounded | own_base
            supported = _reach(n, e, np.flatnonzero(grounded))
        floating = np.flatnonzero(~supported & has & ~flexible)
        reuse = None if separate_objects else dict(n=n, base=base, sticker=sticker, sticker_edges=sticker_e,
                                                   sup0=sup0, later=later, blocks=_base_blocks(eng, cg),
                                                   eng_pairs=len(eng.pairs))
        return SupportResult(ground, grounded, supported, floating, e, labels.astype(np.intp), own, below, reuse)

    if separate_objects:
        return build._cached("validate.support.apart", make)
    return build.derived_data("validate.support", make, lambda old, k: _extend_support(build, old))


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
