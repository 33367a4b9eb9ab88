"""Stability of a build: mass properties, tipping and the equilibrium of stud connections.

Three questions (issue #8), each answered from the validator's data
(:mod:`bricklayer.validate`: flattened placements, connection graph, support
graph and collision shapes):

1. **Mass properties.** Each part's mass comes from its mesh volume
   (:func:`part_mass_properties`) and ABS density 1.05 g/cm^3 (the density of
   the ABS grade LEGO uses, datasheet value of 1.04-1.06); 1 LDU^3 =
   (0.4 mm)^3 = 0.064 mm^3.
2. **Tipping.** The support polygon is the 2-D convex hull of the ground
   contacts: for every part standing on the ground (within ``TOL.ground_band``
   of the lowest point, as :mod:`bricklayer.validate.support` decides), the
   vertices of its collision hull within :data:`CONTACT_TOL` of its own lowest
   point. The critical tilt angle is ``theta = arctan(d / h_c)`` (LMBuild):
   ``d`` is the horizontal distance from the centre of mass to the nearest edge
   of the polygon (negative when the centre of mass lies outside), ``h_c`` the
   height of the centre of mass above the ground. Tilting the ground by less
   than ``theta`` in any direction does not tip the build over.
3. **Structural equilibrium** (StableLego's force-balance idea, as a linear
   program): every mated connection ``k`` carries an unknown wrench (force
   ``f`` and moment ``m``, in a frame whose first axis is the connection axis)
   acting on one part and its opposite on the other; ground contacts push up
   (compression only, friction ``MU_ABS``); resting contacts (a part lying on a
   tile or slope without connectors) push along +Z over the corners of the
   overlap of the two parts. Every part with geometry must be in equilibrium
   under gravity, forces and torques about its centre of mass. The program
   minimises the largest load fraction ``lam`` (a load over its capacity, see
   :class:`Capacities`); ``lam <= 1`` means the build holds. ``scipy.optimize.
   linprog`` (HiGHS) solves it.

Stud connection model
---------------------
A stud in its anti-stud or tube presses on a square cell of half-size ``r =
10 LDU`` (half a stud pitch) around it and holds by friction (clutch) on the
stud's side:

- normal force ``f_n >= -lam * T`` (``f_n`` > 0: compression, unbounded; < 0:
  tension up to the clutch capacity ``T``);
- shear ``|f_u|, |f_v| <= lam * S``;
- bending about an in-plane axis: the compression may move to the cell's edge
  while the tension acts at the stud, so ``|m_u|, |m_v| <= r * (f_n + lam * T)``;
- torsion ``|m_n| <= lam * T * r_stud`` (friction at the stud radius, 6 LDU).

Several studs between two parts form a lever (tension on one stud,
compression on another), which is how a cantilever holds. Other connections
(pins, axles, hinges, clips, balls, minifigure joints) get symmetric bounds
``|f_i| <= lam * F_other`` and ``|m_i| <= lam * M_other``.

Parts without geometry (unknown parts) and floating parts are left out of the
equilibrium (the validator reports them); their weight is ignored.
"""

from __future__ import annotations

__all__ = [
    "ABS_DENSITY",
    "LDU3_CM3",
    "FILL_FACTOR",
    "CONTACT_TOL",
    "MU_ABS",
    "GRAVITY",
    "Capacities",
    "CAPACITIES",
    "MassProperties",
    "part_mass_properties",
    "mass_properties",
    "TippingResult",
    "tipping",
    "EquilibriumResult",
    "equilibrium",
    "StabilityReport",
    "stability_report",
    "stability_check",
]

import logging
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from ldraw_data.connectors import connector_types
from ldraw_data.errors import PartNotFoundError
from .errors import BrickLayerValueError


log = logging.getLogger(__name__)

#: Density of ABS, g/cm^3 (LEGO's ABS; datasheets give 1.04-1.06).
ABS_DENSITY = 1.05
#: One cubic LDU in cm^3: (0.04 cm)^3 (1 LDU = 0.4 mm, LDraw spec).
LDU3_CM3 = 0.04 ** 3
#: Share of its bounding box a part's material fills, used when its mesh is not
#: closed (most LDraw bricks are open underneath). The mean, over the five bricks
#: whose weighed masses StableLego publishes (``lego_library.json``: 1x1 0.43 g,
#: 1x2 0.81 g, 1x4 1.57 g, 2x2 1.15 g, 2x4 2.16 g), of mass / (ABS density x
#: bounding-box volume): 0.57, 0.54, 0.52, 0.38, 0.36.
FILL_FACTOR = 0.47
#: A mesh is treated as closed when moving the origin of the divergence-theorem
#: volume by the bounding-box diagonal changes it by less than this share
#: (the volume of a closed surface does not depend on the origin).
_CLOSED_REL = 0.02
#: Hull vertices within this height (LDU) above a grounded part's lowest point touch the ground.
CONTACT_TOL = 0.5
#: Static friction coefficient of ABS on ABS (engineering tables: 0.3-0.5; the low end).
MU_ABS = 0.3
#: Standard gravity, m/s^2.
GRAVITY = 9.81
_MM = 0.4  # mm per LDU
_STUD_CELL = 10.0  # LDU, half a stud pitch
_STUD_RADIUS = 6.0  # LDU, LDraw stud primitive radius
_STUD_MALE = frozenset({"stud", "open_stud"})


@dataclass(frozen=True)
class Capacities:
    """Load capacities of connections, newtons.

    Attributes
    ----------
    clutch : float, N
        Tension one stud holds (``T``). StableLego (Liu et al. 2024,
        ``config.json``: ``"T": 100`` grams-force) uses 100 gf = 0.98 N per
        knob, in line with pull-apart measurements of about 1-3 N per stud
        pair reported by hobbyist tests; we take StableLego's value, the
        conservative end.
    shear : float, N
        Side load per stud (``S``): a stud only gives way sideways by bending or
        shearing ABS, far stronger than the clutch; 10 x clutch keeps the
        program from leaning on unlimited shear.
    other_force : float, N
        Force any other connection (pin, axle, hinge, clip, ball, minifigure
        joint) transmits in each direction: 5 x clutch (a Technic pin holds
        several newtons by friction; a hinge or clip is held by its shape).
    other_moment : float, N mm
        Moment such a connection transmits about each axis:
        ``other_force`` x 4 mm (half a stud pitch).
    """

    clutch: float = 0.98
    shear: float = 9.8
    other_force: float = 4.9
    other_moment: float = 19.6


#: The capacities in force.
CAPACITIES = Capacities()


# --------------------------------------------------------------------------------------------
# mass properties


@dataclass(frozen=True)
class MassProperties:
    """Mass and centre of mass of one part, in its LDraw part frame.

    Attributes
    ----------
    mass : float, g
    center : (3,) float, LDU
        Centre of mass, LDraw part frame (-Y up).
    volume : float, LDU^3
        Material volume used (closed-mesh volume, or bounding box x :data:`FILL_FACTOR`).
    closed : bool
        True when the mesh volume was used.
    """

    mass: float
    center: np.ndarray
    volume: float
    closed: bool


@lru_cache(maxsize=None)
def part_mass_properties(name: str) -> MassProperties:
    """Mass properties of a library part.

    Parameters
    ----------
    name : str
        Part reference (``"3001"`` or ``"3001.dat"``).

    Returns
    -------
    MassProperties
        When the mesh is BFC-certified and closed (see ``_CLOSED_REL``): the
        absolute signed volume and the volume centroid; otherwise the
        bounding-box volume times :data:`FILL_FACTOR` and the box centre.

    Raises
    ------
    PartNotFoundError
        When the part is not in the library.

    Examples
    --------
    >>> round(part_mass_properties("3005").mass, 3)   # 1x1 brick, open underneath: box 20 x 28 x 20
    0.354
    """
    from ldraw_data.mesh import part_mesh

    key = name if name.lower().endswith(".dat") else name + ".dat"
    mesh = part_mesh(key)
    t = np.asarray(mesh.triangles, dtype=np.float64)
    lo, hi = np.asarray(mesh.bbox, dtype=np.float64)
    box_vol = float(np.prod(np.maximum(hi - lo, 0.0)))
    if len(t):
        cr = np.cross(t[:, 1] - t[:, 0], t[:, 2] - t[:, 0])
        six_v = np.einsum("ij,ij->i", t[:, 0], cr)
        vol = float(six_v.sum() / 6.0)
        leak = float(np.linalg.norm(cr.sum(axis=0) / 2.0)) * float(np.linalg.norm(hi - lo)) / 3.0
        if mesh.certified and abs(vol) > 0 and leak < _CLOSED_REL * abs(vol):
            center = (six_v[:, None] * t.sum(axis=1)).sum(axis=0) / (4.0 * six_v.sum())
            return MassProperties(abs(vol) * LDU3_CM3 * ABS_DENSITY, center, abs(vol), True)
    vol = box_vol * FILL_FACTOR
    return MassProperties(vol * LDU3_CM3 * ABS_DENSITY, (lo + hi) / 2.0, vol, False)


def mass_properties(build) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-part masses and world centres of mass of a build (cached until the next edit).

    Parameters
    ----------
    build : LegoBuild

    Returns
    -------
    mass : (n,) float, g
        Zero for parts without geometry (unknown or embedded parts).
    centers : (n, 3) float, LDU
        World centre of mass of each part (BrickLayer frame, +Z up); the
        placement origin for massless parts.
    closed : (n,) bool
        True where the closed-mesh volume was used.
    """
    from .validate._world import world_arrays

    def make():
        wa = world_arrays(build)
        n = len(wa.placements)
        mass = np.zeros(n)
        centers = wa.poses[:, :3, 3].copy()
        closed = np.zeros(n, dtype=bool)
        for key, idx in wa.groups.items():
            if key.startswith("?"):
                continue
            try:
                mp = part_mass_properties(key)
            except (PartNotFoundError, FileNotFoundError) as exc:
                log.info("no mass for part %s: %s", key, exc)
                continue
            mass[idx] = mp.mass
            closed[idx] = mp.closed
            t = wa.mesh_transforms[idx]
            centers[idx] = np.einsum("nij,j->ni", t[:, :3, :3], mp.center) + t[:, :3, 3]
        for a in (mass, centers, closed):
            a.flags.writeable = False
        return mass, centers, closed

    return build.derived_data("stability.mass", make)


# --------------------------------------------------------------------------------------------
# tipping


@dataclass(frozen=True)
class TippingResult:
    """Tipping analysis of a build.

    Attributes
    ----------
    mass : float, g
        Total mass.
    center_of_mass : (3,) float, LDU
        World centre of mass (BrickLayer frame).
    ground : float, LDU
        World z of the ground (lowest point of the build).
    polygon : (k, 2) float, LDU
        Support polygon (counter-clockwise convex hull of the ground contacts).
    height : float, LDU
        ``h_c``: height of the centre of mass above the ground.
    margin : float, LDU
        ``d``: distance from the centre of mass (projected) to the nearest
        polygon edge, negative outside.
    inside : bool
        The centre of mass projects inside the polygon (``margin > 0``).
    tilt_deg : float, degrees
        Critical tilt angle ``degrees(arctan2(d, h_c))``; negative when the
        build already tips.
    """

    mass: float
    center_of_mass: np.ndarray
    ground: float
    polygon: np.ndarray
    height: float
    margin: float
    inside: bool
    tilt_deg: float


def _ground_contacts(build):
    """Per grounded part (index), the (p, 3) world points that touch the ground."""
    from .validate.collisions import collision_engine
    from .validate.support import support_graph

    eng = collision_engine(build)
    sup = support_graph(build)
    out = {}
    for i in np.flatnonzero(sup.grounded).tolist():
        shape = eng.shapes.get(eng.keys[i])
        if shape is None:
            continue
        h = shape.hull_points
        if eng.mirrored[i]:
            h = h * np.array([-1.0, 1.0, 1.0])
        t = eng.transforms[i]
        w = h @ t[:3, :3].T + t[:3, 3]
        low = w[w[:, 2] <= w[:, 2].min() + CONTACT_TOL]
        out[i] = low
    return sup.ground, out


def _cross2(a, b) -> float:
    return float(a[0] * b[1] - a[1] * b[0])


def _hull2d(pts: np.ndarray) -> np.ndarray:
    """Counter-clockwise convex hull (Andrew's monotone chain) of (m, 2) points."""
    p = np.unique(np.round(pts, 6), axis=0)
    if len(p) < 3:
        return p
    p = p[np.lexsort((p[:, 1], p[:, 0]))]

    def half(points):
        h = []
        for q in points:
            while len(h) >= 2 and _cross2(h[-1] - h[-2], q - h[-2]) <= 1e-9:
                h.pop()
            h.append(q)
        return h

    lower, upper = half(p), half(p[::-1])
    return np.array(lower[:-1] + upper[:-1])


def _signed_margin(poly: np.ndarray, q: np.ndarray) -> float:
    """Distance from q to the boundary of a CCW convex polygon, positive inside."""
    if len(poly) == 0:
        return -np.inf
    if len(poly) == 1:
        return -float(np.linalg.norm(q - poly[0]))
    a, b = poly, np.roll(poly, -1, axis=0)
    e = b - a
    L = np.linalg.norm(e, axis=1)
    ok = L > 1e-12
    a, e, L = a[ok], e[ok], L[ok]
    # distance to each segment
    s = np.clip(np.einsum("ij,ij->i", q - a, e) / L ** 2, 0, 1)
    dist = np.linalg.norm(a + s[:, None] * e - q, axis=1).min()
    if len(poly) < 3:
        return -float(dist)
    cross = e[:, 0] * (q[1] - a[:, 1]) - e[:, 1] * (q[0] - a[:, 0])
    return float(dist) if np.all(cross >= 0) else -float(dist)


def tipping(build) -> TippingResult:
    """Support polygon, centre of mass and critical tilt angle of a build.

    Parameters
    ----------
    build : LegoBuild

    Returns
    -------
    TippingResult

    Raises
    ------
    ValueError
        When the build has no part with geometry.

    Notes
    -----
    ``theta = arctan(d / h_c)`` (LMBuild's critical tilt angle); see the module notes.
    """
    mass, centers, _ = mass_properties(build)
    if mass.sum() <= 0:
        raise BrickLayerValueError("the build has no part with geometry: nothing to weigh (add library parts)")
    com = (mass[:, None] * centers).sum(axis=0) / mass.sum()
    ground, contacts = _ground_contacts(build)
    pts = np.vstack(list(contacts.values()))[:, :2] if contacts else np.zeros((0, 2))
    poly = _hull2d(pts) if len(pts) else pts
    d = _signed_margin(poly, com[:2])
    h = float(com[2] - ground)
    theta = float(np.degrees(np.arctan2(d, max(h, 1e-9))))
    return TippingResult(float(mass.sum()), com, float(ground), poly, h, float(d), bool(d > 0), theta)


# --------------------------------------------------------------------------------------------
# equilibrium


@dataclass(frozen=True)
class EquilibriumResult:
    """Result of the connection-force linear program.

    Attributes
    ----------
    feasible : bool
        A set of forces within the capacities holds every part (``load <= 1``).
    solvable : bool
        The program has a solution at all (False: no forces balance gravity,
        e.g. the build tips over or a part hangs on nothing).
    load : float
        Smallest achievable largest load fraction ``lam`` (``inf`` when not solvable).
    connections : (m, 4) int
        ``(part_i, connector_i, part_j, connector_j)`` rows of the connection graph used.
    fractions : (m,) float
        Load fraction of each connection in the solution found.
    kinds : list of str, length m
        ``"stud"`` or ``"other"``.
    parts : (p,) int
        Indices of the parts in equilibrium (others: floating or without geometry).
    status : str
        The solver's message.
    """

    feasible: bool
    solvable: bool
    load: float
    connections: np.ndarray
    fractions: np.ndarray
    kinds: list
    parts: np.ndarray
    status: str

    def most_loaded(self, k: int = 10) -> list[tuple[int, float]]:
        """The ``k`` most loaded connections: ``(row of connections, fraction)``, most loaded first."""
        order = np.argsort(-self.fractions, kind="stable")[:k]
        return [(int(i), float(self.fractions[i])) for i in order]


def _frame(n: np.ndarray) -> np.ndarray:
    """(m, 3, 3) right-handed frames whose first column is n (m, 3)."""
    ref = np.where(np.abs(n[:, 2:3]) < 0.9, np.array([[0.0, 0.0, 1.0]]), np.array([[1.0, 0.0, 0.0]]))
    u = np.cross(ref, n)
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    v = np.cross(n, u)
    return np.stack([n, u, v], axis=2)


def equilibrium(build, capacities: Capacities = CAPACITIES) -> EquilibriumResult:
    """Solve for connection forces that balance gravity on every part (see module notes).

    Parameters
    ----------
    build : LegoBuild
    capacities : Capacities

    Returns
    -------
    EquilibriumResult

    Notes
    -----
    Unknowns: per connection 6 wrench components, per ground contact point a
    vertical push and two friction components, per resting contact corner a
    vertical push and friction, plus ``lam``. Equations: 6 per part (force and
    torque about its centre of mass). Lengths in mm, forces in N.
    """
    from scipy.optimize import linprog
    from scipy.sparse import coo_matrix

    from .validate.collisions import collision_engine
    from .validate.connections import connection_graph
    from .validate.support import support_graph

    cap = capacities
    mass, centers, _ = mass_properties(build)
    eng = collision_engine(build)
    sup = support_graph(build)
    cg = connection_graph(build)
    n = len(mass)
    active = sup.supported & eng.has_shape
    parts = np.flatnonzero(active)
    row_of = np.full(n, -1)
    row_of[parts] = np.arange(len(parts))
    c_mm = centers * _MM

    rows, cols, vals = [], [], []
    lb, ub = [], []
    a_ub_r, a_ub_c, a_ub_v = [], [], []  # inequality rows: sum(coef * x) - lam * cap <= 0
    nvar = 0

    def add_vars(k, lo, hi):
        nonlocal nvar
        idx = np.arange(nvar, nvar + k)
        nvar += k
        lb.extend(np.broadcast_to(lo, (k,)).tolist())
        ub.extend(np.broadcast_to(hi, (k,)).tolist())
        return idx

    def apply(part_idx, var_idx, dirs, points, sign=1.0, moment=False):
        """Wrench contributions of variables var_idx (m,) with world directions dirs (m,3) on parts (m,)."""
        r = row_of[part_idx]
        ok = r >= 0
        if not ok.any():
            return
        r, v, d = r[ok], var_idx[ok], dirs[ok] * sign
        if moment:
            tq = d
        else:
            tq = np.cross(points[ok] - c_mm[part_idx[ok]], d)
            for ax in range(3):
                rows.append(6 * r + ax)
                cols.append(v)
                vals.append(d[:, ax])
        for ax in range(3):
            rows.append(6 * r + 3 + ax)
            cols.append(v)
            vals.append(tq[:, ax])

    lam_col = None
    ineq = []  # (var index array, coef array, cap scalar or array) meaning coef*x <= lam*cap

    # connections
    pairs = cg.pairs
    names = connector_types()
    keep_c = np.zeros(len(pairs), dtype=bool)
    kinds: list[str] = []
    if len(pairs):
        keep_c = active[pairs[:, 0]] & active[pairs[:, 2]]
    cp = pairs[keep_c]
    m = len(cp)
    conn_cols = None
    is_stud = np.zeros(m, dtype=bool)
    if m:
        w = cg.world_connectors
        fi = w["start"][cp[:, 0]] + cp[:, 1]
        fj = w["start"][cp[:, 2]] + cp[:, 3]
        codes = w["code"]
        is_stud = np.array([names[c] in _STUD_MALE for c in codes[fi].tolist()])
        kinds = ["stud" if s else "other" for s in is_stud]
        p = w["pos"][fi] * _MM
        R = _frame(w["axis"][fi])
        big = 1e6
        lo = np.where(is_stud[:, None], [-big, -big, -big, -big, -big, -big], -big)
        base = add_vars(6 * m, -big, big).reshape(m, 6)
        conn_cols = base
        for j in range(3):
            # force along frame axis j: on part j-side (+), on part i-side (-)
            d = R[:, :, j]
            apply(cp[:, 2], base[:, j], d, p, 1.0)
            apply(cp[:, 0], base[:, j], d, p, -1.0)
            apply(cp[:, 2], base[:, 3 + j], d, p, 1.0, moment=True)
            apply(cp[:, 0], base[:, 3 + j], d, p, -1.0, moment=True)
        del lo
        s = np.flatnonzero(is_stud)
        o = np.flatnonzero(~is_stud)
        r_mm = _STUD_CELL * _MM
        # stud: -f_n <= lam T ; +-f_u, +-f_v <= lam S ; +-m_u - r f_n <= lam r T ; +-m_n <= lam T r_stud
        if len(s):
            ineq.append(([base[s, 0]], [-1.0], cap.clutch))
            for j in (1, 2):
                ineq.append(([base[s, j]], [1.0], cap.shear))
                ineq.append(([base[s, j]], [-1.0], cap.shear))
            for j in (4, 5):
                for sg in (1.0, -1.0):
                    ineq.append(([base[s, j], base[s, 0]], [sg, -r_mm], cap.clutch * r_mm))
            for sg in (1.0, -1.0):
                ineq.append(([base[s, 3]], [sg], cap.clutch * _STUD_RADIUS * _MM))
        if len(o):
            for j in range(6):
                c = cap.other_force if j < 3 else cap.other_moment
                for sg in (1.0, -1.0):
                    ineq.append(([base[o, j]], [sg], c))

    # ground contacts: vertical push >= 0 and friction |f_x|,|f_y| <= mu * push
    ground, contacts = _ground_contacts(build)
    g_parts, g_pts = [], []
    for i, pts in contacts.items():
        if not active[i]:
            continue
        hull = _hull2d(pts[:, :2])
        z = pts[:, 2].min()
        for q in hull:
            g_parts.append(i)
            g_pts.append([q[0], q[1], z])
    if g_parts:
        gp = np.asarray(g_parts)
        gx = np.asarray(g_pts) * _MM
        k = len(gp)
        fz = add_vars(k, 0.0, np.inf)
        fx = add_vars(k, -np.inf, np.inf)
        fy = add_vars(k, -np.inf, np.inf)
        ez = np.tile([0.0, 0.0, 1.0], (k, 1))
        apply(gp, fz, ez, gx)
        apply(gp, fx, np.tile([1.0, 0.0, 0.0], (k, 1)), gx)
        apply(gp, fy, np.tile([0.0, 1.0, 0.0], (k, 1)), gx)
        for f in (fx, fy):
            for sg in (1.0, -1.0):
                ineq.append(([f, fz], [sg, -MU_ABS], 0.0))

    # resting contacts (support edges that are not connections): push up at the overlap corners
    conn_set = {(int(a), int(b)) for a, b in pairs[:, [0, 2]].tolist()} if len(pairs) else set()
    rest = [(int(a), int(b)) for a, b in sup.edges.tolist()
            if (a, b) not in conn_set and (b, a) not in conn_set and active[a] and active[b]]
    rest = sorted(set(rest))
    if rest:
        rp, rq, rpts = [], [], []
        lo, hi = eng.box_lo, eng.box_hi
        for a, b in rest:  # a supports b
            x0, y0 = max(lo[a, 0], lo[b, 0]), max(lo[a, 1], lo[b, 1])
            x1, y1 = min(hi[a, 0], hi[b, 0]), min(hi[a, 1], hi[b, 1])
            if x1 < x0 or y1 < y0:
                continue
            z = lo[b, 2]
            for q in ((x0, y0), (x1, y0), (x0, y1), (x1, y1)):
                rp.append(a)
                rq.append(b)
                rpts.append([q[0], q[1], z])
        if rp:
            ra, rb, rx = np.asarray(rp), np.asarray(rq), np.asarray(rpts) * _MM
            k = len(ra)
            fz = add_vars(k, 0.0, np.inf)
            fx = add_vars(k, -np.inf, np.inf)
            fy = add_vars(k, -np.inf, np.inf)
            for f, e in ((fz, [0.0, 0.0, 1.0]), (fx, [1.0, 0.0, 0.0]), (fy, [0.0, 1.0, 0.0])):
                d = np.tile(e, (k, 1))
                apply(rb, f, d, rx, 1.0)
                apply(ra, f, d, rx, -1.0)
            for f in (fx, fy):
                for sg in (1.0, -1.0):
                    ineq.append(([f, fz], [sg, -MU_ABS], 0.0))

    lam_col = add_vars(1, 0.0, np.inf)[0]
    # assemble inequalities
    r0 = 0
    for var_lists, coefs, capv in ineq:
        k = len(var_lists[0])
        rr = np.arange(r0, r0 + k)
        for v, c in zip(var_lists, coefs):
            a_ub_r.append(rr)
            a_ub_c.append(v)
            a_ub_v.append(np.full(k, c))
        if capv:
            a_ub_r.append(rr)
            a_ub_c.append(np.full(k, lam_col))
            a_ub_v.append(np.full(k, -capv))
        r0 += k
    n_eq = 6 * len(parts)
    b_eq = np.zeros(n_eq)
    weight = mass[parts] * 1e-3 * GRAVITY  # N
    b_eq[6 * np.arange(len(parts)) + 2] = weight  # sum of forces + (0, 0, -W) = 0
    if rows:
        A_eq = coo_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                          shape=(n_eq, nvar)).tocsr()
    else:
        A_eq = coo_matrix((n_eq, nvar)).tocsr()
    A_ub = coo_matrix((np.concatenate(a_ub_v), (np.concatenate(a_ub_r), np.concatenate(a_ub_c))),
                      shape=(r0, nvar)).tocsr() if r0 else None
    cvec = np.zeros(nvar)
    cvec[lam_col] = 1.0
    res = linprog(cvec, A_ub=A_ub, b_ub=np.zeros(r0) if r0 else None, A_eq=A_eq, b_eq=b_eq,
                  bounds=list(zip(lb, ub)), method="highs")
    all_pairs = cp
    if res.status != 0 or res.x is None:
        return EquilibriumResult(False, False, float("inf"), all_pairs, np.full(m, np.nan), kinds, parts,
                                 str(res.message))
    x = res.x
    lam = float(x[lam_col])
    frac = np.zeros(m)
    if m:
        f = x[conn_cols]
        T, S = cap.clutch, cap.shear
        r_mm = _STUD_CELL * _MM
        stud_frac = np.max(np.column_stack([
            -f[:, 0] / T, np.abs(f[:, 1]) / S, np.abs(f[:, 2]) / S,
            (np.abs(f[:, 4]) - r_mm * f[:, 0]) / (r_mm * T), (np.abs(f[:, 5]) - r_mm * f[:, 0]) / (r_mm * T),
            np.abs(f[:, 3]) / (T * _STUD_RADIUS * _MM)]), axis=1)
        other_frac = np.max(np.column_stack([np.abs(f[:, :3]) / cap.other_force,
                                             np.abs(f[:, 3:]) / cap.other_moment]), axis=1)
        frac = np.maximum(np.where(is_stud, stud_frac, other_frac), 0.0)
    return EquilibriumResult(lam <= 1.0 + 1e-6, True, lam, all_pairs, frac, kinds, parts, str(res.message))


# --------------------------------------------------------------------------------------------
# report


@dataclass
class StabilityReport:
    """Tipping and equilibrium of a build, for users and agents.

    Attributes
    ----------
    tipping : TippingResult
    equilibrium : EquilibriumResult or None
        None when the equilibrium was not computed.
    descriptions : dict of int to str
        ``build.describe`` of the parts named in :meth:`to_dict`.
    """

    tipping: TippingResult
    equilibrium: EquilibriumResult | None
    descriptions: dict = field(default_factory=dict)

    @property
    def stable(self) -> bool:
        """Centre of mass inside the support polygon and (when computed) the connections hold."""
        ok = self.tipping.inside
        if self.equilibrium is not None:
            ok = ok and self.equilibrium.feasible
        return bool(ok)

    def to_dict(self, k: int = 10) -> dict:
        """JSON-ready form; lengths in LDU, mass in g, angles in degrees."""
        t = self.tipping
        out = {
            "stable": self.stable,
            "mass_g": round(t.mass, 3),
            "center_of_mass_ldu": [round(float(v), 2) for v in t.center_of_mass],
            "com_height_ldu": round(t.height, 2),
            "support_margin_ldu": round(t.margin, 2),
            "com_inside_support": t.inside,
            "critical_tilt_deg": round(t.tilt_deg, 2),
            "support_polygon_ldu": [[round(float(a), 2), round(float(b), 2)] for a, b in t.polygon],
        }
        e = self.equilibrium
        if e is not None:
            out["equilibrium"] = {
                "solvable": e.solvable, "holds": e.feasible,
                "max_load_fraction": None if not np.isfinite(e.load) else round(e.load, 4),
                "connections": len(e.connections), "parts": len(e.parts),
                "most_loaded": [
                    {"a": self.descriptions.get(int(e.connections[r, 0]), str(int(e.connections[r, 0]))),
                     "b": self.descriptions.get(int(e.connections[r, 2]), str(int(e.connections[r, 2]))),
                     "kind": e.kinds[r], "fraction": round(fr, 4)}
                    for r, fr in (e.most_loaded(k) if e.solvable else [])],
                "status": e.status,
            }
        return out

    def text(self, k: int = 5) -> str:
        """A few lines for a terminal or an agent."""
        d = self.to_dict(k)
        lines = [f"stability: {'stable' if d['stable'] else 'NOT stable'}; mass {d['mass_g']} g; centre of mass "
                 f"{d['com_height_ldu']} LDU above the ground, {'inside' if d['com_inside_support'] else 'OUTSIDE'} "
                 f"the support polygon (margin {d['support_margin_ldu']} LDU); critical tilt "
                 f"{d['critical_tilt_deg']} deg"]
        e = d.get("equilibrium")
        if e is not None:
            if not e["solvable"]:
                lines.append("equilibrium: no forces balance gravity (the build tips over or a part hangs on nothing)")
            else:
                lines.append(f"equilibrium: {'holds' if e['holds'] else 'FAILS'}; largest load "
                             f"{100 * e['max_load_fraction']:.1f}% of capacity over {e['connections']} connections")
                for c in e["most_loaded"]:
                    lines.append(f"  {100 * c['fraction']:.1f}%  {c['kind']}: {c['a']} -- {c['b']}")
        return "\n".join(lines)


def stability_report(build, *, equilibrium_check: bool = True, capacities: Capacities = CAPACITIES,
                     k: int = 10) -> StabilityReport:
    """Tipping (and by default the equilibrium) of a build; what ``build.stability()`` returns.

    Parameters
    ----------
    build : LegoBuild
    equilibrium_check : bool
        Also solve the connection-force program (seconds for thousands of parts).
    capacities : Capacities
    k : int
        Number of most loaded connections described.

    Returns
    -------
    StabilityReport

    Raises
    ------
    ValueError
        When the build has no part with geometry.
    """
    t = tipping(build)
    e = equilibrium(build, capacities) if equilibrium_check else None
    desc = {}
    if e is not None and e.solvable:
        flat = build.flattened_placements
        for r, _ in e.most_loaded(k):
            for i in (int(e.connections[r, 0]), int(e.connections[r, 2])):
                desc[i] = build.describe(flat[i])
    return StabilityReport(t, e, desc)


def stability_check(build, min_tilt_deg: float = 0.0, *, equilibrium_check: bool = True) -> tuple[bool, str]:
    """Predicate for tests (``TestContext.check_stable``): does the build stand and hold?

    Parameters
    ----------
    build : LegoBuild
    min_tilt_deg : float, degrees
        The critical tilt angle must be at least this (0: the centre of mass
        must lie inside the support polygon).
    equilibrium_check : bool
        Also require the connection forces to stay within capacity.

    Returns
    -------
    ok : bool
    detail : str
        The report's text, prefixed with what failed.
    """
    rep = stability_report(build, equilibrium_check=equilibrium_check)
    why = []
    t = rep.tipping
    if not t.inside or t.tilt_deg < min_tilt_deg:
        why.append(f"critical tilt {t.tilt_deg:.1f} deg < required {min_tilt_deg:.1f} deg")
    if rep.equilibrium is not None and not rep.equilibrium.feasible:
        why.append("connections overloaded" if rep.equilibrium.solvable else "no equilibrium")
    return (not why), ("; ".join(why) + "\n" if why else "") + rep.text()
