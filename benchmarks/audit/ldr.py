"""Independent LDraw flattener and mesh measures for the validator audit (``benchmarks/validator_audit.md``).

Nothing here imports the validator (``bricklayer.validate``, ``brickwright.validation``): the file is
walked line by line (LDraw spec, line type 1: ``1 colour x y z a b c d e f g h i file``; MPD spec:
``0 FILE`` blocks, the first is the main model), and the measures work on the triangle soup of the
LDraw library parts (``ldraw_data.mesh``, the mesh loader only). All lengths in LDU, LDraw frame (-Y up).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np


@dataclass
class Leaf:
    """One part placement of a flattened LDraw file.

    index : tuple of int -- index path, 0-based type-1 line indices per (sub)model (the report's ``#a/#b``)
    name : str -- part file name as written (``3001.dat``)
    colour : int -- colour code as written (16 resolved to the parent's)
    world : (4, 4) float -- part frame to model frame (LDraw frame, LDU)
    line : int -- 1-based line number in the file
    text : str -- the line
    via : tuple of int -- file line numbers of the sub-model references leading to it
    """

    index: tuple
    name: str
    colour: int
    world: np.ndarray
    line: int
    text: str
    via: tuple


def read_blocks(path: Path) -> tuple[list[str], dict[str, list[tuple[int, str]]]]:
    """``(order, blocks)``: MPD ``0 FILE`` block names (lower case, in file order) and their lines
    ``(1-based line number, text)``. A plain LDR is one block named after the file."""
    blocks: dict[str, list] = {}
    order: list[str] = []
    cur = None
    for no, raw in enumerate(Path(path).read_text(encoding="utf-8", errors="replace").splitlines(), start=1):
        s = raw.strip()
        t = s.split(None, 2)
        if len(t) >= 3 and t[0] == "0" and t[1].upper() == "FILE":
            cur = t[2].strip().lower()
            order.append(cur)
            blocks[cur] = []
            continue
        if cur is None:
            cur = Path(path).name.lower()
            order.append(cur)
            blocks[cur] = []
        blocks[cur].append((no, s))
    return order, blocks


def flatten(path: Path) -> list[Leaf]:
    """Every part placement of an LDraw/MPD file with its world matrix.

    A type-1 line refers to a sub-model when its file is an MPD block not ending in ``.dat``;
    everything else (library parts, MPD-embedded ``.dat`` parts) is a leaf.
    """
    order, blocks = read_blocks(path)
    out: list[Leaf] = []

    def walk(block: str, m: np.ndarray, colour: int, prefix: tuple, via: tuple, depth: int):
        k = -1
        for no, s in blocks[block]:
            t = s.split()
            if not t or t[0] != "1" or len(t) < 15:
                continue
            k += 1
            c = int(t[1]) if t[1].lstrip("-").isdigit() else 16
            c = colour if c == 16 else c
            x, y, z, a, b, cc, d, e, f, g, h, i = map(float, t[2:14])
            local = np.array([[a, b, cc, x], [d, e, f, y], [g, h, i, z], [0, 0, 0, 1.0]])
            name = " ".join(s.split(None, 14)[14:]).strip()
            w = m @ local
            key = name.lower().replace("\\", "/")
            if key in blocks and not key.endswith(".dat") and depth < 32:
                walk(key, w, c, prefix + (k,), via + (no,), depth + 1)
            else:
                out.append(Leaf(prefix + (k,), name, c, w, no, s, via))

    walk(order[0], np.eye(4), 16, (), (), 0)
    return out


_LINES_LABEL = re.compile(r"^(?P<file>[^:]*):(?P<chain>\d+(?:/:\d+)*):")


def label_key(label: str) -> tuple:
    """The placement a report label names, as a key comparable with :func:`leaf_keys`.

    Two label forms: rounds 1-5 ``"#20/#8: 3962b (...)"`` (0-based type-1 line index path) ->
    ``("I", (20, 8))``; since round 6 ``"model.mpd:11/:577/:1172: 4285b (...)"`` (1-based file line numbers
    of the sub-model references and the part line) -> ``("L", (11, 577, 1172))``.
    """
    m = _LINES_LABEL.match(label.strip())
    if m:
        return "L", tuple(int(x) for x in m.group("chain").split("/:"))
    path = label.split(":")[0].strip()
    return "I", tuple(int(p.strip().lstrip("#")) for p in path.split("/"))


def leaf_keys(lf: Leaf) -> set:
    """Both keys of a leaf (index path and file-line chain), see :func:`label_key`."""
    return {("I", tuple(lf.index)), ("L", tuple(lf.via) + (lf.line,))}


def leaf_named(lf: Leaf, keys: set, prefix: bool = False) -> bool:
    """Whether a leaf is named by one of ``keys`` (:func:`label_key` values); with ``prefix``, also when a key
    names a sub-model reference on the way to it (a ``SCALED`` entry cites the sub-model line that scales
    its parts)."""
    own = leaf_keys(lf)
    if own & keys:
        return True
    if prefix:
        for kind, chain in own:
            if any((kind, chain[:n]) in keys for n in range(1, len(chain))):
                return True
    return False


def leaf_by_index(leaves: list[Leaf], label: str) -> Leaf:
    """The leaf of a report label, either form of :func:`label_key`."""
    key = label_key(label)
    for lf in leaves:
        if key in leaf_keys(lf):
            return lf
    raise KeyError(label)


_DOCS: dict = {}


def part_triangles(name: str, model: Path) -> tuple[np.ndarray, bool]:
    """``(triangles (n, 3, 3) LDU part frame, certified)`` of a part, MPD-embedded parts first, read by the
    audit's own LDraw reader (``ownmesh.geom``; round 4: rounds 1-3 read them with ``ldraw_data.mesh``,
    the loader the validator uses)."""
    import ownmesh

    g = ownmesh.geom(name, ownmesh.embedded_blocks(model))
    return g.tris, g.certified


def part_studs(name: str, model: Path) -> np.ndarray:
    """Male stud frames (k, 4, 4) of a part in its own frame (``ownmesh``: base centre, -Y out of the stud)."""
    import ownmesh

    return ownmesh.geom(name, ownmesh.embedded_blocks(model)).studs


def world_triangles(leaf: Leaf, model: Path) -> tuple[np.ndarray, bool]:
    """Triangles of a leaf in the model frame; winding flipped for mirrored (det < 0) placements."""
    tris, cert = part_triangles(leaf.name, model)
    r, t = leaf.world[:3, :3], leaf.world[:3, 3]
    w = tris @ r.T + t
    if np.linalg.det(r) < 0:
        w = w[:, ::-1]
    return w, cert


def ray_parity(points: np.ndarray, tris: np.ndarray, rays: int = 5, seed: int = 0) -> np.ndarray:
    """Inside test that needs no winding (for parts whose BFC orientation is unknown): the fraction of
    ``rays`` fixed random directions along which a ray from the point crosses the triangle soup an odd number
    of times (Moller-Trumbore intersection). Majority > 0.5 = inside."""
    rng = np.random.default_rng(seed)
    dirs = rng.normal(size=(rays, 3))
    dirs /= np.linalg.norm(dirs, axis=1)[:, None]
    a, e1, e2 = tris[:, 0], tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0]
    odd = np.zeros(len(points))
    step = max(1, 2_000_000 // max(len(tris), 1))
    for d in dirs:
        h = np.cross(d, e2)
        det = (e1 * h).sum(1)
        ok = np.abs(det) > 1e-12
        inv = np.where(ok, 1.0 / np.where(ok, det, 1), 0)
        for s in range(0, len(points), step):
            p = points[s:s + step]
            sv = p[:, None, :] - a[None]
            u = (sv * h[None]).sum(-1) * inv
            q = np.cross(sv, e1[None])
            v = (q * d).sum(-1) * inv
            tt = (q * e2[None]).sum(-1) * inv
            hit = ok & (u >= 0) & (v >= 0) & (u + v <= 1) & (tt > 1e-9)
            odd[s:s + step] += hit.sum(1) % 2
    return odd / rays


def inside(points: np.ndarray, tris: np.ndarray, certified: bool) -> np.ndarray:
    """Boolean mask: points inside the material of a part (winding number > 0.5 when its winding is
    certified, else ray parity majority)."""
    if len(points) == 0:
        return np.zeros(0, bool)
    if certified:
        return winding_number(points, tris) > 0.5
    return ray_parity(points, tris) > 0.5


def winding_number(points: np.ndarray, tris: np.ndarray, chunk: int = 4000) -> np.ndarray:
    """Generalized winding number of each point w.r.t. a triangle soup (Jacobson et al. 2013:
    sum of signed solid angles / 4 pi; Van Oosterom & Strackee 1983 for one triangle).
    About 1 inside closed outward-oriented material, 0 outside, robust to small holes."""
    out = np.zeros(len(points))
    step = max(1, int(chunk * 500 // max(len(tris), 1)))
    for s in range(0, len(points), step):
        p = points[s:s + step]
        a = tris[None, :, 0, :] - p[:, None, :]
        b = tris[None, :, 1, :] - p[:, None, :]
        c = tris[None, :, 2, :] - p[:, None, :]
        la, lb, lc = (np.linalg.norm(v, axis=2) for v in (a, b, c))
        det = np.einsum("ijk,ijk->ij", a, np.cross(b, c))
        den = (la * lb * lc + np.einsum("ijk,ijk->ij", a, b) * lc + np.einsum("ijk,ijk->ij", b, c) * la
               + np.einsum("ijk,ijk->ij", c, a) * lb)
        out[s:s + len(p)] = (2 * np.arctan2(det, den)).sum(axis=1) / (4 * np.pi)
    return out


def sample_surface(tris: np.ndarray, n: int, rng: np.random.Generator, box=None) -> np.ndarray:
    """Area-weighted random points on the triangles (plus their vertices), optionally only triangles
    meeting the box ``(lo, hi)``."""
    if box is not None:
        lo, hi = box
        keep = (tris.max(axis=1) >= lo).all(axis=1) & (tris.min(axis=1) <= hi).all(axis=1)
        tris = tris[keep]
    if len(tris) == 0:
        return np.zeros((0, 3))
    e1, e2 = tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0]
    area = 0.5 * np.linalg.norm(np.cross(e1, e2), axis=1)
    if area.sum() <= 0:
        return tris.reshape(-1, 3)
    k = rng.choice(len(tris), size=n, p=area / area.sum())
    u, v = rng.random(n), rng.random(n)
    flip = u + v > 1
    u[flip], v[flip] = 1 - u[flip], 1 - v[flip]
    pts = tris[k, 0] + u[:, None] * e1[k] + v[:, None] * e2[k]
    verts = tris.reshape(-1, 3)
    if len(verts) > n // 4:
        verts = verts[rng.choice(len(verts), size=n // 4, replace=False)]
    return np.vstack([pts, verts])


def _point_triangle_dist(p: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Distances (k, m) of points p (k, 3) to triangles t (m, 3, 3): closest point on a triangle by
    Voronoi regions (Ericson, Real-Time Collision Detection, 5.1.5)."""
    a, b, c = t[None, :, 0], t[None, :, 1], t[None, :, 2]
    P = p[:, None, :]
    ab, ac, ap = b - a, c - a, P - a
    d1, d2 = (ab * ap).sum(-1), (ac * ap).sum(-1)
    bp = P - b
    d3, d4 = (ab * bp).sum(-1), (ac * bp).sum(-1)
    cp = P - c
    d5, d6 = (ab * cp).sum(-1), (ac * cp).sum(-1)
    va = d3 * d6 - d5 * d4
    vb = d5 * d2 - d1 * d6
    vc = d1 * d4 - d3 * d2
    den = va + vb + vc
    den = np.where(np.abs(den) < 1e-12, 1e-12, den)
    v, w = vb / den, vc / den
    q = a + ab * v[..., None] + ac * w[..., None]  # interior
    # edge regions
    with np.errstate(divide="ignore", invalid="ignore"):
        t_ab = np.clip(d1 / np.where(d1 - d3 == 0, 1e-12, d1 - d3), 0, 1)
        t_ac = np.clip(d2 / np.where(d2 - d6 == 0, 1e-12, d2 - d6), 0, 1)
        t_bc = np.clip((d4 - d3) / np.where((d4 - d3) + (d5 - d6) == 0, 1e-12, (d4 - d3) + (d5 - d6)), 0, 1)
    e_ab = a + ab * t_ab[..., None]
    e_ac = a + ac * t_ac[..., None]
    e_bc = b + (c - b) * t_bc[..., None]
    q = np.where(((vc <= 0) & (d1 >= 0) & (d3 <= 0))[..., None], e_ab, q)
    q = np.where(((vb <= 0) & (d2 >= 0) & (d6 <= 0))[..., None], e_ac, q)
    q = np.where(((va <= 0) & ((d4 - d3) >= 0) & ((d5 - d6) >= 0))[..., None], e_bc, q)
    q = np.where(((d1 <= 0) & (d2 <= 0))[..., None], a, q)
    q = np.where(((d3 >= 0) & (d4 <= d3))[..., None], b, q)
    q = np.where(((d6 >= 0) & (d5 <= d6))[..., None], c, q)
    return np.linalg.norm(P - q, axis=-1)


def surface_distance(points: np.ndarray, tris: np.ndarray, chunk: int = 2_000_000,
                     reach: float = 12.0) -> np.ndarray:
    """Unsigned distance (LDU) of each point to the triangle soup (exact, brute force in chunks), capped
    at ``reach``: only triangles within ``reach`` of the points' bounding box are searched."""
    if len(points) == 0:
        return np.zeros(0)
    lo, hi = points.min(0) - reach, points.max(0) + reach
    tris = tris[(tris.max(axis=1) >= lo).all(axis=1) & (tris.min(axis=1) <= hi).all(axis=1)]
    if len(tris) == 0:
        return np.full(len(points), reach)
    out = np.empty(len(points))
    step = max(1, chunk // max(len(tris), 1))
    for s in range(0, len(points), step):
        out[s:s + step] = _point_triangle_dist(points[s:s + step], tris).min(axis=1)
    return np.minimum(out, reach)


def depth_into(ta: np.ndarray, tb: np.ndarray, rng: np.random.Generator, n: int = 6000,
               certified_b: bool = True) -> tuple[float, int]:
    """``(depth, inside)``: the largest distance (LDU) below B's surface of a surface point of A lying
    inside B's material (winding number > 0.5), and how many sampled points do. Any translation of A
    shorter than that depth leaves the point inside B, so it bounds the interference from below."""
    lo = np.maximum(ta.reshape(-1, 3).min(0), tb.reshape(-1, 3).min(0)) - 0.01
    hi = np.minimum(ta.reshape(-1, 3).max(0), tb.reshape(-1, 3).max(0)) + 0.01
    if (lo > hi).any():
        return 0.0, 0
    pts = sample_surface(ta, n, rng, (lo, hi))
    pts = pts[((pts >= lo) & (pts <= hi)).all(axis=1)]
    if len(pts) == 0:
        return 0.0, 0
    ins = pts[inside(pts, tb, certified_b)]
    if len(ins) == 0:
        return 0.0, 0
    d = surface_distance(ins, tb)
    return float(d.max()), int(len(ins))


def min_distance(ta: np.ndarray, tb: np.ndarray, rng: np.random.Generator, n: int = 4000) -> float:
    """Smallest distance (LDU) between sampled surface points of A and B's surface (0 when they cross)."""
    lo = tb.reshape(-1, 3).min(0) - 8
    hi = tb.reshape(-1, 3).max(0) + 8
    pts = sample_surface(ta, n, rng, (lo, hi))
    if len(pts) == 0:
        return float("inf")
    return float(surface_distance(pts, tb).min())
