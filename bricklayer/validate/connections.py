"""The connection graph: which connectors of a build are mated.

Rules (BrickNet's mating tables, ``bricknet/core.py`` and ``graph.py``, with
our tolerances from :data:`bricklayer.constants.TOL`):

- candidate pairs come from k-d trees over world connector positions
  (scipy ``cKDTree``), never all pairs: point connectors are paired within
  ``TOL.connector_position``; each sliding connector is queried with its own
  radius (``2 * half_length - min_overlap + 0.5``; a pair that can overlap is
  found from the side of its longer member);
- the two types must mate: :func:`ldraw_data.connectors.mate_matrix` over the
  global type codes of :func:`ldraw_data.connectors.type_code`, and the two
  connectors belong to different parts;
- point joints (studs/anti-studs, hinges, balls, fixed mounts): origins within
  ``TOL.connector_position``; stud-family and fixed connectors need parallel
  axes (cosine >= ``TOL.connector_axis_cos``), hinges parallel or
  anti-parallel, balls any (:attr:`ldraw_data.connectors.ConnectorDef.directional`);
- sliding joints (axle, pin, bar, clip and their holes): axes parallel or
  anti-parallel (cosine >= 0.9, BrickNet ``_AXLE_AXIS_THR``), origins within
  0.5 LDU of each other's axis line, and the two extents (half-length, at
  least 4 LDU, BrickNet ``_AXLE_DEFAULT_RAD``) overlapping by at least 4 LDU
  (BrickNet ``_AXLE_MIN_OVERLAP``).

Everything is vectorized: per distinct part one batched transform of its
connector arrays, then array tests over all candidate pairs (the 5,247-part
Millennium Falcon, 10179, takes about 0.1 s).
"""

from __future__ import annotations

__all__ = ["ConnectionGraph", "connection_graph", "part_connector_arrays", "find_mated_pairs", "SLIDING_TYPES"]

from dataclasses import dataclass
from functools import lru_cache

import networkx as nx
import numpy as np
from scipy.spatial import cKDTree

from ldraw_data.connectors import JointKind, _parse_type, connector_types, mate_matrix

from ..connector import Connector
from ..constants import TOL
from ._world import world_arrays

#: Types whose connectors slide along their axis and so use the line test.
SLIDING_TYPES = frozenset({"axle", "axle_hole", "axle_bore", "pin", "pin_hole", "bar", "clip"})
#: Long male connectors that stay free after mating (several parts fit along them).
_MULTI = frozenset({"axle", "bar"})
_AXLE_AXIS_COS = 0.9  # BrickNet _AXLE_AXIS_THR
_AXLE_MIN_HALF = 4.0  # BrickNet _AXLE_DEFAULT_RAD
_AXLE_MIN_OVERLAP = 4.0  # BrickNet _AXLE_MIN_OVERLAP
_AXLE_LINE_TOL = 0.5  # LDU off the axis line still accepted (rounded matrices of tilted beams)
_KINDS = list(JointKind)


@lru_cache(maxsize=1)
def _type_tables():
    """Per type code: sliding?, directional (signed axis test)?, ball?, stays free when mated?, male side?

    Every mate in BrickNet's table pairs a "male" type (stud kind; axle, pin,
    bar; polarity ``in``) with a "female" one (hole kind; cross, socket, clip,
    hole; polarity ``on``), which lets the k-d tree search go one way only.
    """
    names = connector_types()
    sliding = np.array([n in SLIDING_TYPES for n in names])
    kinds = [_parse_type(n)[0] for n in names]
    directional = np.array([k in ("stud", "hole", "fixed") for k in kinds])
    ball = np.array([k == "ball" for k in kinds])
    multi = np.array([n in _MULTI for n in names])
    labels = [_parse_type(n) for n in names]
    male = np.array([(k == "stud") or (k == "axle" and sub in ("axle", "pin", "bar")) or pol == "in"
                     for k, sub, pol in labels])
    return sliding, directional, ball, multi, male


@dataclass(frozen=True)
class _PartArrays:
    pos: np.ndarray      # (k,3) local LDU
    axis: np.ndarray     # (k,3)
    length: np.ndarray   # (k,)
    code: np.ndarray     # (k,) int, global type codes (ldraw_data.connectors.type_code)
    conns: tuple         # local Connector objects


@lru_cache(maxsize=1)
def _code_of() -> dict:
    return {t: i for i, t in enumerate(connector_types())}


@lru_cache(maxsize=None)
def _arrays_for(element) -> _PartArrays:
    # unknown parts (kept from an LDraw file) have no connector data; asking the
    # element would search the library for a part that is not there
    conns = element.connectors if element._known else ()
    if not conns:
        z = np.zeros((0, 3))
        return _PartArrays(z, z, np.zeros(0), np.zeros(0, dtype=np.int64), ())
    m = np.stack([c.frame.matrix for c in conns])
    return _PartArrays(m[:, :3, 3].copy(), m[:, :3, 2].copy(), np.array([c.length for c in conns]),
                       np.array([_code_of()[c.type] for c in conns], dtype=np.int64), tuple(conns))


def part_connector_arrays(element) -> _PartArrays:
    """Cached local connector arrays of an element.

    Parameters
    ----------
    element : Element

    Returns
    -------
    _PartArrays
        ``pos (k, 3)`` LDU and ``axis (k, 3)`` unit in the element's local
        frame, ``length (k,)`` half-lengths in LDU, ``code (k,)`` global type
        codes, ``conns`` the local :class:`~bricklayer.connector.Connector` objects.
    """
    return _arrays_for(element.with_color(16) if int(element.color) != 16 else element)


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
    kinds : list of JointKind, length m
        Joint made by each row of :attr:`pairs`.
    """

    def __init__(self, placements, pairs: np.ndarray, kinds: list, world: dict):
        self.placements = placements
        self.pairs = pairs
        self.kinds = kinds
        self._world = world
        g = nx.Graph()
        g.add_nodes_from(range(len(placements)))
        edges: dict = {}
        for (a, _ca, b, _cb), k in zip(pairs.tolist(), kinds):
            edges.setdefault((a, b) if a < b else (b, a), set()).add(k)
        g.add_edges_from((a, b, {"kinds": ks}) for (a, b), ks in edges.items())
        self.graph = g

    @property
    def components(self) -> list:
        """Connected components as lists of FlatPlacement, largest first (ties: first part first)."""
        comps = [sorted(c) for c in nx.connected_components(self.graph)]
        comps.sort(key=lambda c: (-len(c), c[0]))
        return [[self.placements[i] for i in c] for c in comps]

    def pair_codes(self) -> np.ndarray:
        """(m, 2) int: global type codes of the two connectors of each row of :attr:`pairs`."""
        w = self._world
        if not len(self.pairs):
            return np.zeros((0, 2), dtype=np.int64)
        return np.column_stack([w["code"][self._flat_index(self.pairs[:, 0], self.pairs[:, 1])],
                                w["code"][self._flat_index(self.pairs[:, 2], self.pairs[:, 3])]])

    def _flat_index(self, part: np.ndarray, conn: np.ndarray) -> np.ndarray:
        return self._world["start"][part] + conn

    @property
    def occupied(self) -> set:
        """``(part index, connector index)`` of every mated connector except long axles and bars."""
        multi = _type_tables()[3]
        occ = set()
        if not len(self.pairs):
            return occ
        codes = self.pair_codes()
        for col, (pc, cc) in enumerate(((0, 1), (2, 3))):
            keep = ~multi[codes[:, col]]
            occ.update(zip(self.pairs[keep, pc].tolist(), self.pairs[keep, cc].tolist()))
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


def _world_connectors(build) -> dict:
    wa = world_arrays(build)
    n = len(wa.placements)
    counts = np.zeros(n, dtype=np.int64)
    per_group = []
    for key, idx in wa.groups.items():
        arr = part_connector_arrays(wa.placements[idx[0]].content)
        counts[idx] = len(arr.code)
        if len(arr.code):
            per_group.append((idx, arr))
    start = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts, out=start[1:])
    total = int(start[-1])
    pos = np.zeros((total, 3))
    axis = np.zeros((total, 3))
    length = np.zeros(total)
    code = np.zeros(total, dtype=np.int64)
    owner = np.zeros(total, dtype=np.int64)
    cidx = np.zeros(total, dtype=np.int64)
    for idx, arr in per_group:
        k = len(arr.code)
        rows = (start[idx][:, None] + np.arange(k)[None, :]).ravel()  # (len(idx)*k,)
        r = wa.poses[idx, :3, :3]
        t = wa.poses[idx, :3, 3]
        pos[rows] = (np.einsum("nij,kj->nki", r, arr.pos) + t[:, None, :]).reshape(-1, 3)
        axis[rows] = np.einsum("nij,kj->nki", r, arr.axis).reshape(-1, 3)
        length[rows] = np.tile(arr.length, len(idx))
        code[rows] = np.tile(arr.code, len(idx))
        owner[rows] = np.repeat(idx, k)
        cidx[rows] = np.tile(np.arange(k), len(idx))
    nrm = np.linalg.norm(axis, axis=1, keepdims=True)
    nrm[nrm == 0] = 1
    return dict(owner=owner, pos=pos, axis=axis / nrm, length=length, code=code, cidx=cidx, start=start)


def find_mated_pairs(w: dict) -> tuple[np.ndarray, list]:
    """Mated connector pairs among world connector arrays (see module rules).

    Parameters
    ----------
    w : dict
        ``owner (N,)``, ``pos (N, 3)`` LDU, ``axis (N, 3)`` unit, ``length (N,)``
        LDU, ``code (N,)`` global type codes, ``cidx (N,)`` as built for a
        build's flattened placements.

    Returns
    -------
    pairs : (m, 4) int ndarray
        ``(part_i, connector_i, part_j, connector_j)``.
    kinds : list of JointKind, length m
    """
    pos, axis, code, owner, length = w["pos"], w["axis"], w["code"], w["owner"], w["length"]
    if len(pos) < 2:
        return np.zeros((0, 4), dtype=np.int64), []
    sliding_t, directional_t, ball_t, _, side_t = _type_tables()
    mm = mate_matrix()
    # only connectors of a type that mates with something present can pair
    present = np.unique(code)
    useful = present[(mm[np.ix_(present, present)] >= 0).any(axis=1)]
    usable = np.isin(code, useful)
    is_slide = sliding_t[code]
    side = side_t[code]
    cands = []
    # point joints: every mate pairs a male-side type with a female-side one (stud with hole kinds,
    # "in" with "on" polarities), so a tree over one side queried with the other finds them all
    pm = np.flatnonzero(usable & ~is_slide & side)
    pf = np.flatnonzero(usable & ~is_slide & ~side)
    if len(pm) and len(pf):
        k = min(8, len(pm))
        dd, ii = cKDTree(pos[pm]).query(pos[pf], k=k, distance_upper_bound=TOL.connector_position)
        dd, ii = dd.reshape(len(pf), k), ii.reshape(len(pf), k)
        hit = np.isfinite(dd)
        cands.append(np.column_stack([pm[ii[hit]], np.repeat(pf, k).reshape(len(pf), k)[hit]]))
    # sliding joints: axle/pin/bar (male) with holes and clips (female); a pair that can overlap by
    # min_overlap lies within 2 * half - min_overlap (+ line tolerance) of its longer member
    sm = np.flatnonzero(usable & is_slide & side)
    sf = np.flatnonzero(usable & is_slide & ~side)
    slide_c = []
    if len(sm) and len(sf):
        for q, other in ((sm, sf), (sf, sm)):
            half = np.maximum(length[q], _AXLE_MIN_HALF)
            radius = np.maximum(2 * half - _AXLE_MIN_OVERLAP, 0) + _AXLE_LINE_TOL
            lists = cKDTree(pos[other]).query_ball_point(pos[q], r=radius)
            lens = np.fromiter((len(x) for x in lists), dtype=np.int64, count=len(lists))
            if lens.sum():
                found = other[np.concatenate([np.asarray(x, dtype=np.int64) for x in lists if len(x)])]
                pairs = np.column_stack([np.repeat(q, lens), found])
                slide_c.append(pairs if q is sm else pairs[:, ::-1])
    if slide_c:
        cands.append(np.unique(np.vstack(slide_c), axis=0))
    if not cands:
        return np.zeros((0, 4), dtype=np.int64), []
    cand = np.vstack(cands)
    a, b = cand[:, 0], cand[:, 1]
    jk = mm[code[a], code[b]]
    keep = (owner[a] != owner[b]) & (jk >= 0)
    a, b, jk = a[keep], b[keep], jk[keep]
    dots = np.einsum("ij,ij->i", axis[a], axis[b])
    d = pos[b] - pos[a]
    dist = np.linalg.norm(d, axis=1)
    slide = is_slide[a] & is_slide[b]
    directional = directional_t[code[a]] | directional_t[code[b]]
    ball = ball_t[code[a]]
    axis_ok = ball | (np.where(directional, dots, np.abs(dots)) >= TOL.connector_axis_cos)
    point_ok = ~slide & (dist <= TOL.connector_position) & axis_ok
    proj = np.einsum("ij,ij->i", d, axis[a])
    perp = np.sqrt(np.maximum(dist ** 2 - proj ** 2, 0))
    overlap = np.maximum(length[a], _AXLE_MIN_HALF) + np.maximum(length[b], _AXLE_MIN_HALF) - np.abs(proj)
    slide_ok = slide & (np.abs(dots) >= _AXLE_AXIS_COS) & (perp <= _AXLE_LINE_TOL) & (overlap >= _AXLE_MIN_OVERLAP)
    good = point_ok | slide_ok
    a, b, jk = a[good], b[good], jk[good]
    kinds = [_KINDS[k] for k in jk.tolist()]
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
        w = _world_connectors(build)
        pairs, kinds = find_mated_pairs(w)
        return ConnectionGraph(world_arrays(build).placements, pairs, kinds, w)

    return build._cached("connections", make)
