"""Rule "sticker sunk into a part": a sticker whose whole slab lies inside another part's material collides.

A sticker is a slab 0.25 LDU thick (``box5-12`` scaled 0.25, the LDraw sticker primitives). The collision
test insets both meshes by ``TOL.collision_inset`` (0.25 LDU, :mod:`.collisions`), which leaves no volume of
such a slab, and compares surfaces: a slab pushed through a face into a brick wall (4 LDU thick) crosses no
surface of it until it reaches the wall's inner face, so it was found neither colliding nor (past the reach
of the "sticker on a surface" rule, :data:`.support.STICKER_MOVES`) held. This rule looks at the material
instead: sample points over both faces of the slab (a :data:`GRID_SIDE` square grid over each, pulled
:data:`CORNER_PULL` of the way to its centre, and the two centres) are tested against the other part's oriented
surface (:class:`ldraw_data.collision.CollisionShape`: outward CCW faces, BFC or trimesh's guess). A point is
inside the material when the surface's generalised winding number about it is over :data:`WINDING_INSIDE`
(robust where two faces of a part meet or its primitives overlap inside it: the nearest face met by a ray
there can be an inner one, so a sticker sunk near the lower edge of a slope's face once passed); its depth
is the shorter way out along the slab's normal (:func:`_inside_depth`). When every sample point is inside by more than
:data:`SUNK_MIN` LDU, the sticker is sunk into that part: its printed front face too lies inside, so
moved by its own thickness or more into the face. A sticker laid on a face by ``stick()`` has its back on
the face and its front 0.25 LDU outside it; in 10252 Volkswagen Beetle official stickers lie up to 0.25 LDU
(a slab's thickness) into the windscreen 30007, their front faces still on its surface.
"""

from __future__ import annotations

__all__ = ["SUNK_MIN", "CORNER_PULL", "GRID_SIDE", "WINDING_INSIDE", "COVER_GRID", "COVER_INSET", "COVER_REACH",
           "UNCOVERED_MAX", "back_grid", "uncovered_back_fraction", "STICKER_THICKNESS", "sticker_mask",
           "sunk_sticker_depths", "CLEAR_GRID", "CLEAR_INSET", "CLEAR_MAX_TRIES",
           "sticker_clear_move"]

import numpy as np

#: Mirror in local x (LDraw part frame): a mirrored placement's proper transform is its drawn one times this
#: (``bricklayer.validate.fcl._MIRROR``), so the drawn one is the proper one times it again.
_MIRROR_X = np.diag([-1.0, 1.0, 1.0, 1.0])

#: Smallest depth (LDU) of the shallowest sample point of a sticker's slab inside another part for the
#: sticker to be sunk into it: coordinates rounded in a file (a few 0.001 LDU) stay under it; a sticker
#: moved 0.3 LDU (its 0.25 LDU thickness and 0.05 more) into a face is over it.
SUNK_MIN = 0.02
#: Fraction of the way the slab's corners are pulled toward its centre for sample points: off the slab's
#: edges, where a ray could meet the edge of a face of the other part.
CORNER_PULL = 0.2


#: Largest thickness (LDU, smallest extent of the part-frame geometry) of an MPD-embedded part taken as a
#: sticker whatever its title (:func:`sticker_mask`): LDraw stickers are slabs 0.25 LDU thick (``box5-12``
#: scaled 0.25); every embedded block of the 67 official models that thin is one (5542 Black Thunder's
#: sticker sheet 4111899, blocks titled by the element number only: "4111899i"; 10283's 6342851a;
#: 10252's and 10227's, titled "Sticker ..."), and no other embedded block is under 0.6 LDU.
STICKER_THICKNESS = 0.3


def sticker_mask(eng, start: int = 0) -> np.ndarray:
    """(n,) bool: placements whose part is a sticker (trait "sticker" of :mod:`ldraw_data.traits`, whole
    words: the title starts with "Sticker"): library stickers by their catalog name, MPD-embedded ones
    (``10252 - 6153754q.dat``, "Sticker 3.4 x 0.9 with Dark Azur Rear Window Shape" in 10252
    Volkswagen Beetle) by the first line of their block (:func:`._world.part_title`), or, whatever
    their title, by their shape: a slab at most :data:`STICKER_THICKNESS` thick (5542's
    ``5542 - 4111899i.dat`` on a tile 2431). With ``start`` only placements ``start`` and later are
    looked at (the rest are False): the parts appended by an edit. The whole mask (``start`` 0) is kept on the
    engine while its placements are the same."""
    from ldraw_data.traits import title_traits

    from ._world import _embedded_doc, part_title

    if not start:  # kept on the engine while its placements are the same (validation asks several times)
        got = eng.__dict__.get("_sticker_mask")
        if got is not None and got[0] is eng.wa and len(got[1]) == eng.n:
            return got[1]
        eng._sticker_mask = (eng.wa, sticker_mask(eng, -1))
        return eng._sticker_mask[1]
    start = max(start, 0)
    out = np.zeros(eng.n, dtype=bool)
    emb = None
    if start:
        groups: dict = {}
        for i in range(start, eng.n):
            groups.setdefault(eng.wa.keys[i], []).append(i)
    else:
        groups = eng.wa.groups
    for key, idx in groups.items():
        if key.startswith("?") and emb is None:
            emb = _embedded_doc(eng._build)
        title = part_title(key, eng.wa.placements[idx[0]].content, emb)
        if "sticker" in title_traits(title or ""):
            out[idx] = True
        elif key.startswith("?"):
            shape = eng.shapes.get(key)
            if shape is not None and len(shape.vertices) and np.ptp(shape.vertices, axis=0).min() <= STICKER_THICKNESS:
                out[idx] = True
    return out


#: Sample points per side of the grid laid over each face of a sticker's slab (:func:`_slab_samples`): 4 x 4
#: points, so a sticker only partly inside a part (its lower edge past the edge of a slope's face) is not
#: taken as sunk by points that all happen to lie in the material.
GRID_SIDE = 4


def _slab_samples(shape) -> tuple[np.ndarray, np.ndarray]:
    """Sample points (part frame, LDU) over both faces of a thin slab, and its unit normal (part frame).

    A :data:`GRID_SIDE` x :data:`GRID_SIDE` grid over each face of the slab's box, its outer points pulled
    :data:`CORNER_PULL` of the way to the centre; the last two points are the centres of the back and the
    front. The normal is the axis of the shape's smallest extent (the slab's thickness, as
    :func:`.support._sticker_surface_edges` takes it)."""
    h = shape.hull_points
    lo, hi = h.min(axis=0), h.max(axis=0)
    ax = int(np.argmin(hi - lo))
    normal = np.zeros(3)
    normal[ax] = 1.0
    c = (lo + hi) / 2
    u, v = [a for a in range(3) if a != ax]
    plo, phi = lo + CORNER_PULL * (c - lo), hi + CORNER_PULL * (c - hi)
    gu, gv = np.meshgrid(np.linspace(plo[u], phi[u], GRID_SIDE), np.linspace(plo[v], phi[v], GRID_SIDE))
    pts = []
    for side in (lo[ax], hi[ax]):
        p = np.empty((gu.size, 3))
        p[:, u], p[:, v], p[:, ax] = gu.ravel(), gv.ravel(), side
        pts.append(p)
    faces = [c.copy(), c.copy()]
    faces[0][ax], faces[1][ax] = lo[ax], hi[ax]
    return np.vstack(pts + [faces]), normal


#: Triangles (part frame, LDU) and their outward normals per collision shape, by ``id(shape)`` (the shape is kept
#: with them, so the id is not reused while the entry lives).
_TRIANGLES: dict = {}


def _shape_triangles(shape) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(triangles (f, 3, 3), outward normals (f, 3), centroids (f, 3), radii (f,)) of a collision shape in its
    part frame (LDU, CCW); a radius is the largest distance of a corner from the centroid."""
    got = _TRIANGLES.get(id(shape))
    if got is None or got[0] is not shape:
        tris = shape.vertices[shape.faces]
        c = tris.mean(axis=1)
        got = _TRIANGLES[id(shape)] = (shape, tris, np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0]), c,
                                       np.linalg.norm(tris - c[:, None, :], axis=2).max(axis=1))
    return got[1:]


#: Generalised winding number (Jacobson, Kavan and Sorkine-Hornung, "Robust inside-outside segmentation using
#: generalized winding numbers", 2013) above which a point is inside a part's material: 1 inside a closed
#: outward surface, 0 outside, 2 where two drawn bodies of a part overlap (LDraw parts are built of primitives
#: whose faces meet inside the material), about 0.5 on a face; holes in a drawn surface move it little.
WINDING_INSIDE = 0.5
#: Step (LDU) past a face at which a point is tested when looking for the way out of the material: well over
#: rounding in a file (0.001 LDU), well under the 0.25 LDU thickness of a sticker.
EXIT_STEP = 0.01
#: Faces met along a ray before giving up on a way out (parts are a few faces thick along any line).
EXIT_MAX_FACES = 12


def _winding(points: np.ndarray, tris: np.ndarray) -> np.ndarray:
    """(p,) generalised winding number of the triangles ``tris`` (f, 3, 3; LDU, CCW seen from outside) about
    each point (p, 3): the sum of the triangles' signed solid angles over 4 pi (Van Oosterom and Strackee,
    1983). About 1 inside the material, 0 outside (:data:`WINDING_INSIDE`)."""
    out = np.zeros(len(points))
    for k in range(0, len(points), 16):  # memory grows as points x triangles
        a = tris[None, :, 0, :] - points[k:k + 16, None, :]
        b = tris[None, :, 1, :] - points[k:k + 16, None, :]
        c = tris[None, :, 2, :] - points[k:k + 16, None, :]
        la, lb, lc = (np.linalg.norm(x, axis=2) for x in (a, b, c))
        det = np.einsum("pfi,pfi->pf", a, np.cross(b, c))
        den = (la * lb * lc + np.einsum("pfi,pfi->pf", a, b) * lc + np.einsum("pfi,pfi->pf", b, c) * la
               + np.einsum("pfi,pfi->pf", c, a) * lb)
        out[k:k + 16] = np.arctan2(det, den).sum(axis=1) / (2 * np.pi)
    return out


def _inside_depth(points: np.ndarray, normal: np.ndarray, shape_tris: tuple) -> tuple[np.ndarray, np.ndarray]:
    """Depth (LDU) of each point inside the material bounded by a shape's triangles (``shape_tris``:
    :func:`_shape_triangles`), and the way out; all in the shape's frame, ``normal`` a unit vector.

    A point is inside the material when the triangles' winding number about it is over
    :data:`WINDING_INSIDE` (robust where faces of a part meet or overlap inside it, as they do where a
    slope's face meets the brick's front). Along ``+normal`` and ``-normal`` the way out is the first of the
    point itself and the faces met along the ray, in order, that a point :data:`EXIT_STEP` LDU past is
    outside. Returns ``(depth (p,), ways (2, p))``: ``ways[0]``/``ways[1]`` the distances out along
    ``+normal``/``-normal`` (0 for a point outside or on a face, inf where no way out is found), ``depth``
    the smaller of the two."""
    from ldraw_data.rays import first_ray_hits

    tris = shape_tris[0]
    ways = np.full((2, len(points)), np.inf)
    if not len(tris):
        return np.zeros(len(points)), np.zeros((2, len(points)))
    for w, d in enumerate((normal, -normal)):
        t = np.zeros(len(points))  # distance along the ray of the face last met (0: the point itself)
        todo = np.arange(len(points))
        for _ in range(EXIT_MAX_FACES + 1):
            out = _winding(points[todo] + (t[todo] + EXIT_STEP)[:, None] * d, tris) <= WINDING_INSIDE
            ways[w, todo[out]] = t[todo[out]]
            todo = todo[~out]
            if not len(todo):
                break
            hit, _k = first_ray_hits(points[todo] + t[todo, None] * d, d, tris)
            t[todo] += hit
            todo = todo[np.isfinite(hit)]
            if not len(todo):
                break
    return ways.min(axis=0), ways


def sunk_sticker_depths(eng, pairs: np.ndarray, sticker: np.ndarray) -> list[tuple[float, float, tuple]]:
    """How deep the sticker of each pair is sunk into the other part, and the move that lays it on the face.

    Parameters
    ----------
    eng : CollisionEngine
        Its ``shapes``, ``keys``, ``transforms`` (proper) and ``mirrored`` (:mod:`.collisions`).
    pairs : (m, 2) int
        Placement index pairs (broad-phase candidates).
    sticker : (n,) bool
        Placements that are stickers (:func:`sticker_mask`).

    Returns
    -------
    list of (depth LDU, move LDU, direction (3,) unit) per pair
        For a pair with a sticker (the first sticker of the two when both are) whose slab's sample points all
        lie inside the other part's material by more than :data:`SUNK_MIN` (module notes): the smallest depth
        of a sample point, and the move of the sticker (world, LDU, along its slab normal, toward the nearer
        way out) that brings its whole slab out, its back on the face; ``(0.0, 0.0, (0, 0, 0))`` otherwise.
    """
    out = []
    for a, b in np.asarray(pairs, dtype=np.int64).reshape(-1, 2).tolist():
        got = (0.0, 0.0, (0.0, 0.0, 0.0))
        s, o = (a, b) if sticker[a] else (b, a)
        ss, so = eng.shapes.get(eng.keys[s]), eng.shapes.get(eng.keys[o])
        if sticker[s] and ss is not None and so is not None and not ss.is_empty and not so.is_empty:
            pts, normal = _slab_samples(ss)
            mir = np.array([-1.0 if eng.mirrored[s] else 1.0, 1.0, 1.0])
            t = eng.transforms[s]
            pts = (pts * mir) @ t[:3, :3].T + t[:3, 3]
            n_world = t[:3, :3] @ (normal * mir)
            # into the other part's own (drawn) frame: its faces as drawn, outward as drawn, mirrored or not
            to = eng.transforms[o] @ _MIRROR_X if eng.mirrored[o] else eng.transforms[o]
            inv = np.linalg.inv(to)
            p_o = pts @ inv[:3, :3].T + inv[:3, 3]
            n_o = inv[:3, :3] @ n_world
            n_o /= np.linalg.norm(n_o)
            tris = _shape_triangles(so)
            # the centres of the slab's two faces first (the last two samples): a sticker on a face has its
            # front centre outside, so most pairs end here after four rays
            depth, ways = _inside_depth(p_o[-2:], n_o, tris)
            if depth.min() > SUNK_MIN:
                depth, ways = _inside_depth(p_o, n_o, tris)
            if depth.min() > SUNK_MIN:
                w = int(np.argmin(ways.max(axis=1)))  # the way out that brings every point out soonest
                way = n_world / np.linalg.norm(n_world)
                got = (float(depth.min()), float(ways[w].max()), tuple((way if w == 0 else -way).tolist()))
        out.append(got)
    return out


#: Rule "a sticker's back lies on faces" (:func:`uncovered_back_fraction`), used by the rules "sticker on a
#: surface" (:func:`.support._sticker_surface_edges`, held) and "sticker glued on a face"
#: (:func:`.held.glued_sticker_edges`, joined): a sticker slid off its face is neither. The points of a
#: :data:`COVER_GRID` square grid over its back, :data:`COVER_INSET` LDU inside its edges, are tested for a
#: face within :data:`COVER_REACH`; more than :data:`UNCOVERED_MAX` of them over nothing and it is not glued.
#: The allowance is large because official files draw shaped stickers as rectangles hanging past their
#: part: in 70816 Benny's Spaceship the tail sticker 6074343o hangs 0.755 of its grid past the tail 2340,
#: 6074343n 0.735 past the tiles it lies on; 5542's embedded stickers up to 0.245. A sticker slid 55 LDU
#: along a 3001's front (its centre past the corner) has 0.86 of its grid over nothing. ``stick()`` is
#: stricter (it refuses any overhang).
COVER_GRID = 7
#: Overhang (LDU) allowed at each edge of a sticker's back: the coverage grid's outer points lie this far in.
COVER_INSET = 1.0
#: Largest distance (LDU) from the slab's mid-plane to a face, either way along its normal, for a grid point
#: to lie on it: the slab's half thickness (0.125) and the 0.8 LDU reach of :data:`.support.STICKER_MOVES`.
COVER_REACH = 1.0
#: Largest fraction of the coverage grid's points over no face for the sticker to be glued on (notes above:
#: official shaped stickers hang up to 0.755 past their parts).
UNCOVERED_MAX = 0.8


def back_grid(points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A :data:`COVER_GRID` square grid of points (part frame, LDU) over the mid-plane of a sticker's slab, its
    outer points :data:`COVER_INSET` LDU inside the edges, and the slab's unit normal (part frame).

    ``points`` (k, 3): the sticker's vertices or hull points in its part frame; the normal is the axis of
    their smallest extent (as :func:`.support._sticker_surface_edges` takes it).

    Returns ``(grid, normal)``: ``grid`` (:data:`COVER_GRID` ** 2, 3) float, LDU; ``normal`` (3,) float, unit."""
    lo, hi = points.min(axis=0), points.max(axis=0)
    ax = int(np.argmin(hi - lo))
    normal = np.zeros(3)
    normal[ax] = 1.0
    u, v = [a for a in range(3) if a != ax]

    def side(a):
        inset = min(COVER_INSET, (hi[a] - lo[a]) / 4)
        return np.linspace(lo[a] + inset, hi[a] - inset, COVER_GRID)

    gu, gv = np.meshgrid(side(u), side(v))
    out = np.empty((gu.size, 3))
    out[:, u], out[:, v], out[:, ax] = gu.ravel(), gv.ravel(), (lo[ax] + hi[ax]) / 2
    return out, normal


def uncovered_back_fraction(points: np.ndarray, normal: np.ndarray, triangles: list) -> float:
    """Fraction of a sticker's coverage grid points that lie over no face.

    Parameters
    ----------
    points : (g, 3) float, LDU
        :func:`back_grid` points placed in the world.
    normal : (3,) float
        The slab's normal in the world (any length).
    triangles : list of (f, 3, 3) float, LDU
        World triangles of the parts the sticker may lie on (its neighbours).

    Returns
    -------
    float
        0 when a face of one of them lies within :data:`COVER_REACH` LDU of every point, along the normal
        either way; 1 when none does.
    """
    from ldraw_data.rays import first_ray_hits

    n = np.asarray(normal, dtype=float)
    n = n / np.linalg.norm(n)
    lo, hi = points.min(axis=0) - COVER_REACH, points.max(axis=0) + COVER_REACH
    covered = np.zeros(len(points), dtype=bool)
    for tris in triangles:
        tris = tris[np.all((tris.max(axis=1) >= lo) & (tris.min(axis=1) <= hi), axis=1)]  # near the sticker
        if not len(tris) or covered.all():
            continue
        for d in (n, -n):
            t, _ = first_ray_hits(points[~covered], d, tris)
            covered[np.flatnonzero(~covered)[t <= COVER_REACH]] = True
    return float(1.0 - covered.mean())


#: Sample points per side of the grid over each face of a sticker's slab when looking for the move that
#: clears it (:func:`sticker_clear_move`), and their inset (LDU) from the slab's edges: the whole face, so a
#: sticker half in a brick's hollow and half in its top wall is seen in both.
CLEAR_GRID = 4
CLEAR_INSET = 0.3
#: Candidate moves tested each way (the nearest first) before giving up (cost: each is a winding number of
#: the grid against the whole part).
CLEAR_MAX_TRIES = 8


def sticker_clear_move(eng, s: int, o: int) -> tuple[float, tuple] | None:
    """The move of sticker ``s`` along its normal that brings its whole slab out of part ``o``'s material.

    Rule "a sticker leaves along its normal": a sticker moved sideways still lies in the part; along its
    normal, one way or the other, it comes out onto a face, where ``stick()`` would lay it. Candidates are
    the distances at which a ray from a :data:`CLEAR_GRID` grid point of either face of the slab meets a
    face of ``o`` (:data:`EXIT_MAX_FACES` per ray); the first at which every point, :data:`EXIT_STEP` LDU
    further, is outside ``o``'s material (winding number, :func:`_inside_depth`) wins, the shorter way.
    A sticker 5 LDU into a 3001's 4 LDU front wall (its slab in the hollow, its top edge in the top wall)
    comes out 5 LDU toward the front.

    Parameters
    ----------
    eng : CollisionEngine
        As :func:`sunk_sticker_depths`.
    s, o : int
        Placement indices of the sticker and the other part.

    Returns
    -------
    (move LDU, direction (3,) world unit) or None
        None when either has no shape, the sticker is formed (thicker than :data:`STICKER_THICKNESS`), or no
        way out is found within :data:`CLEAR_MAX_TRIES` candidates each way.
    """
    from ldraw_data.rays import first_ray_hits

    ss, so = eng.shapes.get(eng.keys[s]), eng.shapes.get(eng.keys[o])
    if ss is None or so is None or ss.is_empty or so.is_empty:
        return None
    h = ss.hull_points
    lo, hi = h.min(axis=0), h.max(axis=0)
    if float((hi - lo).min()) > STICKER_THICKNESS:
        return None  # a formed sticker (drawn bent to its part) has no one normal to move along
    ax = int(np.argmin(hi - lo))
    u, v = [a for a in range(3) if a != ax]
    gu, gv = np.meshgrid(np.linspace(lo[u] + CLEAR_INSET, hi[u] - CLEAR_INSET, CLEAR_GRID),
                         np.linspace(lo[v] + CLEAR_INSET, hi[v] - CLEAR_INSET, CLEAR_GRID))
    pts = []
    for side in (lo[ax], hi[ax]):
        p = np.empty((gu.size, 3))
        p[:, u], p[:, v], p[:, ax] = gu.ravel(), gv.ravel(), side
        pts.append(p)
    pts = np.vstack(pts)
    normal = np.zeros(3)
    normal[ax] = 1.0
    mir = np.array([-1.0 if eng.mirrored[s] else 1.0, 1.0, 1.0])
    t = eng.transforms[s]
    pts = (pts * mir) @ t[:3, :3].T + t[:3, 3]
    n_world = t[:3, :3] @ (normal * mir)
    n_world /= np.linalg.norm(n_world)
    to = eng.transforms[o] @ _MIRROR_X if eng.mirrored[o] else eng.transforms[o]
    inv = np.linalg.inv(to)
    p_o = pts @ inv[:3, :3].T + inv[:3, 3]
    n_o = inv[:3, :3] @ n_world
    n_o /= np.linalg.norm(n_o)
    tris = _shape_triangles(so)[0]
    best = None
    for sign in (1.0, -1.0):
        d = sign * n_o
        cand, at, live = [0.0], np.zeros(len(p_o)), np.arange(len(p_o))
        for _ in range(EXIT_MAX_FACES):
            hit, _k = first_ray_hits(p_o[live] + at[live, None] * d, d, tris)
            at[live] += hit
            live = live[np.isfinite(hit)]
            cand += at[live].tolist()
            if not len(live):
                break
        for c in sorted(set(round(x, 6) for x in cand))[:CLEAR_MAX_TRIES]:
            if best is not None and c >= best[0]:
                break
            if (_winding(p_o + (c + EXIT_STEP) * d, tris) <= WINDING_INSIDE).all():
                best = (c, tuple((sign * n_world).tolist()))
                break
    return best
