"""The connection graph: which connectors of a build are mated.

Rules (BrickNet's mating tables, ``bricknet/core.py`` and ``graph.py``, with
our tolerances from :data:`bricklayer.constants.TOL`):

- candidate pairs come from a k-d tree over world connector positions
  (scipy ``cKDTree``), never all pairs;
- the two types must mate (:func:`ldraw_data.connectors.mate_kind`) and belong
  to different parts;
- point joints (studs/anti-studs, hinges, balls, fixed mounts): origins within
  ``TOL.connector_position``; studs need parallel axes (cosine >=
  ``TOL.connector_axis_cos``), hinges parallel or anti-parallel, balls any;
- sliding joints (axle, pin, bar, clip and their holes): axes parallel or
  anti-parallel (cosine >= 0.9, BrickNet ``_AXLE_AXIS_THR``), origins within
  ``TOL.connector_position`` of each other's axis line, and the two extents
  (half-length, at least 4 LDU, BrickNet ``_AXLE_DEFAULT_RAD``) overlapping by
  at least 4 LDU (BrickNet ``_AXLE_MIN_OVERLAP``).
"""

from __future__ import annotations

__all__ = ["ConnectionGraph", "connection_graph", "part_connector_arrays", "SLIDING_TYPES"]

from dataclasses import dataclass
from functools import lru_cache

import networkx as nx
import numpy as np
from scipy.spatial import cKDTree

from ldraw_data.connectors import JointKind, mate_kind

from ..connector import Connector
from ..constants import TOL
from ..geometry.types import Pose

#: Types whose connectors slide along their axis and so use the line test.
SLIDING_TYPES = frozenset({"axle", "axle_hole", "axle_bore", "pin", "pin_hole", "bar", "clip"})
#: Long male connectors that stay free after mating (several parts fit along them).
_MULTI = frozenset({"axle", "bar"})
_AXLE_AXIS_COS = 0.9
_AXLE_MIN_HALF = 4.0
_AXLE_MIN_OVERLAP = 4.0

_TYPE_CODES: dict[str, int] = {}


def _code(t: str) -> int:
    c = _TYPE_CODES.get(t)
    if c is None:
        c = _TYPE_CODES[t] = len(_TYPE_CODES)
    return c


@dataclass(frozen=True)
class _PartArrays:
    pos: np.ndarray      # (k,3) local LDU
    axis: np.ndarray     # (k,3)
    roll: np.ndarray     # (k,3)
    length: np.ndarray   # (k,)
    code: np.ndarray     # (k,) int
    conns: tuple         # local Connector objects


@lru_cache(maxsize=None)
def _arrays_for(element) -> _PartArrays:
    conns = element.connectors
    if not conns:
        z = np.zeros((0, 3))
        return _PartArrays(z, z, z, np.zeros(0), np.zeros(0, dtype=np.int64), ())
    m = np.stack([c.frame.matrix for c in conns])
    return _PartArrays(m[:, :3, 3].copy(), m[:, :3, 2].copy(), m[:, :3, 0].copy(),
                       np.array([c.length for c in conns]), np.array([_code(c.type) for c in conns]), tuple(conns))


def part_connector_arrays(element) -> _PartArrays:
    """Cached local connector arrays of an element (positions, axes, lengths, type codes)."""
    return _arrays_for(element.with_color(16) if int(element.color) != 16 else element)


@lru_cache(maxsize=4096)
def _mate_table(n_codes: int) -> tuple[np.ndarray, np.ndarray]:
    names = [None] * n_codes
    for t, c in _TYPE_CODES.items():
        if c < n_codes:
            names[c] = t
    ok = np.zeros((n_codes, n_codes), dtype=bool)
    kind = np.full((n_codes, n_codes), -1, dtype=np.int64)
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            k = mate_kind(a, b)
            if k is not None:
                ok[i, j] = True
                kind[i, j] = list(JointKind).index(k)
    return ok, kind


class ConnectionGraph:
    """Mated connector pairs of a build and the part graph they make.

    Attributes
    ----------
    placements : list of FlatPlacement
        The build's flattened placements (node ``i`` is ``placements[i]``).
    graph : networkx.Graph
        Nodes 0..n-1; an edge per mated part pair with attribute ``kinds``
        (set of JointKind).
    pairs : (m, 4) int ndarray
        ``(part_i, connector_i, part_j, connector_j)`` per mated connector pair.
    """

    def __init__(self, placements, pairs: np.ndarray, kinds: list, world: dict):
        self.placements = placements
        self.pairs = pairs
        self._world = world
        g = nx.Graph()
        g.add_nodes_from(range(len(placements)))
        for (a, ca, b, cb), k in zip(pairs.tolist(), kinds):
            if g.has_edge(a, b):
                g[a][b]["kinds"].add(k)
            else:
                g.add_edge(a, b, kinds={k})
        self.graph = g

    @property
    def components(self) -> list:
        """Connected components as lists of FlatPlacement, largest first (ties: first part first)."""
        comps = [sorted(c) for c in nx.connected_components(self.graph)]
        comps.sort(key=lambda c: (-len(c), c[0]))
        return [[self.placements[i] for i in c] for c in comps]

    @property
    def occupied(self) -> set:
        """``(part index, connector index)`` of every mated connector except long axles and bars."""
        occ = set()
        for a, ca, b, cb in self.pairs.tolist():
            for p, c in ((a, ca), (b, cb)):
                if self._world["types"][p][c] not in _MULTI:
                    occ.add((p, c))
        return occ

    @property
    def free_connectors(self) -> list[Connector]:
        """World connectors not in :attr:`occupied`, as Connector objects with full paths."""
        occ = self.occupied
        out = []
        for i, fp in enumerate(self.placements):
            for c in fp.content.connectors:
                if (i, c.index) not in occ:
                    out.append(Connector(c.type, fp.pose @ c.frame, c.length, c.joint_kind, c.index, fp.path))
        return out

    def neighbors(self, i: int) -> list[int]:
        """Indices of parts mated with part ``i``."""
        return list(self.graph.neighbors(i))


def _world_arrays(flat):
    owners, pos, axis, length, code, cidx = [], [], [], [], [], []
    types = []
    for i, fp in enumerate(flat):
        arr = part_connector_arrays(fp.content)
        types.append([c.type for c in arr.conns])
        k = len(arr.code)
        if not k:
            continue
        m = fp.pose.matrix
        r, t = m[:3, :3], m[:3, 3]
        pos.append(arr.pos @ r.T + t)
        axis.append(arr.axis @ r.T)
        length.append(arr.length)
        code.append(arr.code)
        owners.append(np.full(k, i))
        cidx.append(np.arange(k))
    if not pos:
        z = np.zeros((0, 3))
        return dict(owner=np.zeros(0, int), pos=z, axis=z, length=np.zeros(0), code=np.zeros(0, int),
                    cidx=np.zeros(0, int), types=types)
    axis_arr = np.concatenate(axis)
    n = np.linalg.norm(axis_arr, axis=1, keepdims=True)
    n[n == 0] = 1
    return dict(owner=np.concatenate(owners), pos=np.concatenate(pos), axis=axis_arr / n,
                length=np.concatenate(length), code=np.concatenate(code), cidx=np.concatenate(cidx), types=types)


def find_mated_pairs(w: dict) -> tuple[np.ndarray, list]:
    """Mated connector pairs among world connector arrays (see module rules).

    Parameters
    ----------
    w : dict
        ``owner (N,)``, ``pos (N,3)``, ``axis (N,3)`` unit, ``length (N,)``,
        ``code (N,)``, ``cidx (N,)`` as built for a build's flattened placements.

    Returns
    -------
    (pairs (m, 4) int, kinds list of JointKind)
    """
    pos, axis, code, owner, length = w["pos"], w["axis"], w["code"], w["owner"], w["length"]
    if len(pos) < 2:
        return np.zeros((0, 4), dtype=np.int64), []
    ok_tab, kind_tab = _mate_table(len(_TYPE_CODES))
    sliding_codes = np.array([_TYPE_CODES.get(t, -1) for t in SLIDING_TYPES])
    is_slide = np.isin(code, sliding_codes)
    tree = cKDTree(pos)
    cand = tree.query_pairs(r=TOL.connector_position, output_type="ndarray")
    # sliding connectors: search radius covers both half-lengths
    si = np.flatnonzero(is_slide)
    if len(si) > 1:
        half = np.maximum(length[si], _AXLE_MIN_HALF)
        stree = cKDTree(pos[si])
        rmax = float(half.max())
        extra = stree.query_pairs(r=2 * rmax, output_type="ndarray")
        if len(extra):
            extra = si[extra]
            cand = np.vstack([cand, extra]) if len(cand) else extra
            cand = np.unique(np.sort(cand, axis=1), axis=0)
    if not len(cand):
        return np.zeros((0, 4), dtype=np.int64), []
    a, b = cand[:, 0], cand[:, 1]
    keep = (owner[a] != owner[b]) & ok_tab[code[a], code[b]]
    a, b = a[keep], b[keep]
    kinds_idx = kind_tab[code[a], code[b]]
    kinds_all = list(JointKind)
    dots = np.einsum("ij,ij->i", axis[a], axis[b])
    d = pos[b] - pos[a]
    dist = np.linalg.norm(d, axis=1)
    slide = is_slide[a] & is_slide[b]
    point_ok = ~slide & (dist <= TOL.connector_position)
    kind_arr = np.array([kinds_all[k] for k in kinds_idx], dtype=object) if len(kinds_idx) else np.zeros(0, dtype=object)
    is_rev_stud = np.array([k == JointKind.REVOLUTE for k in kind_arr], dtype=bool)
    is_ball = np.array([k == JointKind.BALL for k in kind_arr], dtype=bool)
    # stud family (revolute, not hinge) needs parallel axes; hinges either way; balls any; fixed: parallel
    hinge_codes = np.array([c for t, c in _TYPE_CODES.items() if "hinge" in t], dtype=np.int64)
    hinge = np.isin(code[a], hinge_codes)
    axis_ok = np.where(is_ball, True, np.where(hinge, np.abs(dots) >= TOL.connector_axis_cos,
                                                 dots >= TOL.connector_axis_cos))
    point_ok &= axis_ok
    # sliding: colinear and overlapping
    proj = np.einsum("ij,ij->i", d, axis[a])
    perp = np.sqrt(np.maximum(dist ** 2 - proj ** 2, 0))
    overlap = np.maximum(length[a], _AXLE_MIN_HALF) + np.maximum(length[b], _AXLE_MIN_HALF) - np.abs(proj)
    slide_ok = slide & (np.abs(dots) >= _AXLE_AXIS_COS) & (perp <= max(TOL.connector_position, 0.5)) & (
        overlap >= _AXLE_MIN_OVERLAP)
    good = point_ok | slide_ok
    a, b = a[good], b[good]
    kinds = [kind_arr[i] for i in np.flatnonzero(good)]
    pairs = np.column_stack([owner[a], w["cidx"][a], owner[b], w["cidx"][b]]).astype(np.int64)
    return pairs, kinds


def connection_graph(build) -> ConnectionGraph:
    """The (cached) connection graph of a build; recomputed after any edit.

    Parameters
    ----------
    build : LegoBuild

    Returns
    -------
    ConnectionGraph
    """
    def make():
        flat = build.flattened_placements
        w = _world_arrays(flat)
        pairs, kinds = find_mated_pairs(w)
        return ConnectionGraph(flat, pairs, kinds, w)

    return build._cached("connections", make)
