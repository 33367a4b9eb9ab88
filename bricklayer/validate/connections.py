"""The connection graph (validator stage 5): which connectors of a build are mated.

Rules (BrickNet's mating tables, ``bricknet/core.py`` and ``graph.py``, with
our tolerances from :data:`bricklayer.constants.TOL`, each measured on the 67
official models, see its docstring):

- candidate pairs come from a spatial grid index (sorted cell keys) over world connector positions
  (a uniform grid of sorted cell keys, numpy), never all pairs: point connectors are paired within
  their position tolerance; each sliding connector is queried with its own
  radius (``2 * half_length - min_overlap + line tolerance``; a pair that can
  overlap is found from the side of its longer member);
- the two types must mate: :func:`ldraw_data.connectors.mate_matrix` over the
  global type codes of :func:`ldraw_data.connectors.type_code`, and the two
  connectors belong to different parts;
- point joints: stud-family connectors (studs, anti-studs, tubes, posts)
  within ``TOL.connector_position`` (0.5 LDU), hinge, fixed and ball labels
  (click hinges, minifigure joints, control sticks, tow balls) within
  ``TOL.joint_position`` (2.1 LDU: their label origins sit off the drawn
  rotation centres); so is headgear on the stud of a minifigure head
  (catalog name "Minifig Head ..."): measured on the official models, all
  32 helmets 2446 (and prints) sit 1.19-1.26 LDU from the head's stud (their
  BrickNet tube label lies at (0, -0.9, 0.8) in the part frame, off the
  drawn centre), caps 4485 1.08, helmets 30168a 2.0; stud-family and fixed connectors need parallel axes
  (cosine >= ``TOL.connector_axis_cos``), hinges parallel or anti-parallel,
  balls any;
- sliding joints (axle, pin, bar, clip and their holes): axes parallel or
  anti-parallel (cosine >= 0.9, BrickNet ``_AXLE_AXIS_THR``), origins within
  ``TOL.connector_line`` of each other's axis line, and the two extents
  (half-length, at least 4 LDU, BrickNet ``_AXLE_DEFAULT_RAD``) overlapping by
  at least 4 LDU (BrickNet ``_AXLE_MIN_OVERLAP``).

Everything is vectorized: per distinct part one batched transform of its
connector arrays, then array tests over all candidate pairs. The graph is
kept between edits (:class:`_ConnectionIndex`): after an edit only the
connectors of new or moved placements are transformed and queried. After
append-only edits (``LegoBuild._appended_since``) the world connector rows
are extended, not re-sorted, and a few queried connectors (up to
``_BRUTE_QUERIES``) are matched by distances to all rows instead of the grid
index, so adding one part to the 5,247-part Millennium Falcon (10179) costs
a few milliseconds of connector work instead of a full rebuild.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import networkx as nx

__all__ = ["ConnectionGraph", "connection_graph", "part_connector_arrays", "embedded_aliases", "find_mated_pairs",
           "SLIDING_TYPES", "is_sliding_type", "JOINT_TOLERANCE", "TOL_EPS", "SLIDE_END_EPS",
           "STUD_SEAT_REACH", "AXLE_MIN_HALF", "AXLE_MIN_OVERLAP", "NearMiss", "near_miss", "near_mate_rows",
           "part_rows", "NEAR_MISS_ACROSS_LDU", "NEAR_MISS_ALONG_LDU"]

import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ldraw_data.connectors import JointKind, connector_types, is_sliding_type, mate_matrix, type_label

from ..connector import Connector
from ..constants import AXLE_MIN_HALF, AXLE_MIN_OVERLAP, COINCIDENT_CONNECTORS, SLIDE_END_EPS, TOL
from ._world import _embedded_doc, appended_rows, flexible_mask, room_buffer, world_arrays
from .graphs import sorted_unique
from .held import glued_sticker_edges, held_in_frame_edges

#: Every distance test against a tolerance of :data:`bricklayer.constants.TOL` is inclusive ("within 0.5
#: LDU" mates at exactly 0.5) with this much room (LDU) for the rounding of world positions composed through
#: matrices (0.5 becomes 0.50000000001); issue 16 item 2: a brick 0.5 LDU above a plate did not mate.
TOL_EPS = 1e-6
#: Types whose connectors slide along their axis and so use the line test (BrickNet's names; LDCad's generic
#: clips and the round shafts they hold, ``ldcad_clp-*``, slide too: :func:`is_sliding_type`).
SLIDING_TYPES = frozenset({"axle", "axle_hole", "axle_bore", "pin", "pin_hole", "bar", "clip"})
#: Long male connectors that stay free after mating (several parts fit along them).
_MULTI = frozenset({"axle", "bar"})
_AXLE_AXIS_COS = 0.9  # BrickNet _AXLE_AXIS_THR
_AXLE_MIN_HALF = AXLE_MIN_HALF  # old private names (bricklayer.build read them)
_AXLE_MIN_OVERLAP = AXLE_MIN_OVERLAP
#: Nearest neighbours examined per point connector (several parts may share a spot, e.g. a stud
#: under a plate and the tube of a round brick).
_K_NEAREST = 8
#: Up to this many query points, candidate neighbours are found by distances to all points (no grid index).
_BRUTE_QUERIES = 64
_KINDS = list(JointKind)
_KIND_INDEX = {k: i for i, k in enumerate(_KINDS)}


@lru_cache(maxsize=None)
def _kind_set(codes: tuple) -> frozenset:
    """frozenset of JointKind for a tuple of kind indices (memoized: hashing enums per edge is slow)."""
    return frozenset(_KINDS[c] for c in codes)


@lru_cache(maxsize=1)
def _type_names() -> tuple:
    """:func:`ldraw_data.connectors.connector_types` made once per process (the tables of :func:`_type_tables`
    are made from it once too): a name look-up per near miss, not a tuple of every type name."""
    return connector_types()


@lru_cache(maxsize=1)
def _type_tables():
    """Per type code: sliding?, directional?, ball?, stays free when mated?, male side?, joint label?

    Every mate in BrickNet's table pairs a "male" type (stud kind; axle, pin,
    bar; polarity ``in``) with a "female" one (hole kind; cross, socket, clip,
    hole; polarity ``on``), which lets the grid search go one way only.
    "Joint label" marks hinge, fixed and ball kinds (``TOL.joint_position``).
    """
    names = connector_types()
    labels = [type_label(n) for n in names]
    kinds = [k for k, _, _ in labels]
    sliding = np.array([is_sliding_type(n) for n in names])
    directional = np.array([k in ("stud", "hole", "fixed") for k in kinds])
    ball = np.array([k == "ball" for k in kinds])
    multi = np.array([n in _MULTI for n in names])
    male = np.array([(k == "stud") or (k == "axle" and sub in ("axle", "pin", "bar")) or pol == "in"
                     for k, sub, pol in labels])
    joint = np.array([k in ("hinge", "fixed", "ball") for k in kinds])
    return sliding, directional, ball, multi, male, joint


#: Joint labels (hinge, fixed, ball kinds) mate within ``TOL.joint_position`` (2.1 LDU) because some
#: labels sit off the drawn rotation centre; the kinds whose official mates sit closer are held to that:
#: per type pair (names sorted, "/"-joined), the largest offset between the two label origins over all
#: their mates on the 67 official models plus 0.2 LDU, rounded up to 0.1, at least ``TOL.connector_position`` (kinds with at
#: least 5 mates there; the rest, and those needing 2.1 or more, keep ``TOL.joint_position``). A hinge
#: brick top 3938 lifted 1 LDU off its base 3937 is then no longer mated (official mates: 0.68 LDU at most),
#: so the two are two components (it still rests on the base: the 1 LDU resting test finds them touching).
JOINT_TOLERANCE: dict = {
    "fixed_12_in/fixed_12_on": 0.5, "fixed_13_in/fixed_13_on": 0.5, "fixed_4_in/fixed_4_on": 0.5,
    "fixed_5_in/fixed_5_on": 0.5, "fixed_6_in/fixed_6_on": 0.5, "fixed_7_in/fixed_7_on": 0.5,
    "hinge_10_in/hinge_10_on": 0.5, "hinge_11_in/hinge_11_on": 0.5, "hinge_14_in/hinge_14_on": 1.0,
    "hinge_15_in/hinge_15_on": 1.2, "hinge_20_in/hinge_20_on": 0.5, "hinge_24_in/hinge_24_on": 0.5,
    "hinge_26_in/hinge_26_on": 0.5, "hinge_2_fingers/hinge_3_fingers": 0.5, "hinge_31_in/hinge_31_on": 1.2,
    "hinge_34_in/hinge_34_on": 0.5, "hinge_39_in/hinge_39_on": 1.0, "hinge_49_in/hinge_49_on": 1.2,
    "hinge_6_in/hinge_6_on": 1.2, "hinge_9_in/hinge_9_on": 0.5, "hinge_brick_base/hinge_brick_top": 0.9,
    "shoulder_peg/shoulder_socket": 1.1, "turntable_pin/turntable_socket": 0.9,
    "visor_hinge/visor_mount": 1.6, "waist_peg/waist_socket": 1.2,
}


@lru_cache(maxsize=1)
def _joint_tolerances() -> np.ndarray:
    """(T, T) float: mate distance (LDU) of joint labels by type codes (:data:`JOINT_TOLERANCE`)."""
    names = connector_types()
    out = np.full((len(names), len(names)), TOL.joint_position)
    code = {n: i for i, n in enumerate(names)}
    for key, tol in JOINT_TOLERANCE.items():
        a, b = key.split("/")
        if a in code and b in code:
            out[code[a], code[b]] = out[code[b], code[a]] = min(tol, TOL.joint_position)
    return out


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


#: ``(part id, whether a library part)`` -> its :class:`_PartArrays`. Not keyed by the Element: elements are equal
#: when part id and colour are (the API contract), so an MPD block named ``3001.dat`` (an embedded part without
#: connectors) equals the library's 3001 in that colour, and a cache keyed by it gave the library brick no
#: connectors for the rest of the process (a test after a shadowed-file test found two stacked 2 x 4 unjoined).
_ARRAYS: dict = {}


def _arrays_for(element) -> _PartArrays:
    key = (element.ldraw_id, bool(element._known))
    got = _ARRAYS.get(key)
    if got is None:
        got = _ARRAYS[key] = _arrays_made(element)
    return got


def _arrays_made(element) -> _PartArrays:
    """:func:`_arrays_for` computed: the element's connectors stacked (none for an unknown or embedded part)."""
    conns = element.connectors  # empty at once for unknown parts (Element._geom)
    if not conns:
        z = np.zeros((0, 3))
        return _PartArrays(z, z, np.zeros(0), np.zeros(0, dtype=np.int64), ())
    m = np.stack([c.frame.matrix for c in conns])
    return _PartArrays(m[:, :3, 3].copy(), m[:, :3, 2].copy(), np.array([c.length for c in conns]),
                       np.array([_code_of()[c.type] for c in conns], dtype=np.int64), tuple(conns))


#: Largest difference (LDU) between the bounding boxes of an MPD-embedded part and the library part
#: its name points to for the embedded copy to take that part's connectors (module notes).
_ALIAS_BOX_TOL = 1.0


def _transformed(arr: _PartArrays, m: np.ndarray) -> _PartArrays:
    """Connector arrays moved by the rigid (4, 4) ``m``."""
    return _PartArrays(arr.pos @ m[:3, :3].T + m[:3, 3], arr.axis @ m[:3, :3].T, arr.length, arr.code, arr.conns)


#: A print code at the end of an LDraw part id: "p" and 2-4 characters (LDraw library file-naming
#: convention: ``3626bp69`` is 3626b printed; ``4490pb02`` is 4490 printed).
_PRINT_SUFFIX = re.compile(r"p[0-9a-z]{2,4}$")


def embedded_aliases(build) -> dict:
    """Connectors for MPD-embedded copies of library parts.

    Official files embed unofficial copies of parts released later, named
    ``"<set> - <part>.dat"`` (10283 Space Shuttle: ``"10283 - 61332.dat"``,
    Philo's Technic Pin with Friction Type 2, library part 61332). Such a copy
    has no BrickNet labels; it takes the library part's connectors when the
    name after the last ``" - "`` is a catalog part, or a printed id whose
    unprinted base is one (``"70816 - 4490pb02.dat"`` -> 4490, the LDraw
    pattern-code convention, :data:`_PRINT_SUFFIX`), and the two meshes'
    bounding boxes (LDraw part frame) agree within ``_ALIAS_BOX_TOL`` (1 LDU),
    so that a different part of the same number is not given wrong connectors.

    Parameters
    ----------
    build : LegoBuild

    Returns
    -------
    dict of str to _PartArrays
        Part key (``"?<name>"``) -> connector arrays in the embedded element's
        local frame (the importer places unknown parts with ``L2B``).
    """
    def make() -> dict:
        from ldraw_data.catalog import get_catalog
        from ldraw_data.collision import collision_shape

        from ..element import Element
        from ..geometry.ldraw_frame import L2B

        wa = world_arrays(build)
        keys = tuple(sorted(k for k in wa.groups if k.startswith("?")))
        memo = build._cache.get("validate.aliases.memo")  # kept across edits: same embedded keys, same answer
        if memo is not None and memo[0] == keys:
            return memo[1]
        out: dict = {}
        build._cache["validate.aliases.memo"] = (keys, out)
        emb = _embedded_doc(build) if keys else None
        if emb is None:
            return out
        cat = get_catalog()
        for key in keys:
            tail = key[1:].rsplit(" - ", 1)[-1].strip()
            if tail.lower().endswith(".dat"):
                tail = tail[:-4]
            if tail and tail not in cat:
                # a printed copy ("70816 - 4490pb02"): the unprinted base part's connectors (LDraw numbers
                # prints as base id + "p" + a 2-4 character code; the print does not change the shape)
                m = _PRINT_SUFFIX.search(tail)
                tail = tail[:m.start()] if m is not None and m.start() > 0 else tail
            if not tail or tail not in cat:
                continue
            try:
                lib_el = Element(tail)
                if not lib_el.connectors:
                    continue
                a = collision_shape(key[1:], embedded=emb).hull_points
                b = collision_shape(cat.get(tail).part_id).hull_points
            except Exception:  # noqa: BLE001 - any unreadable copy simply keeps no connectors
                continue
            if not len(a) or not len(b):
                continue
            diff = max(np.abs(a.min(0) - b.min(0)).max(), np.abs(a.max(0) - b.max(0)).max())
            if diff > _ALIAS_BOX_TOL:
                continue
            out[key] = _transformed(part_connector_arrays(lib_el), L2B @ lib_el.local_to_ldraw)
        return out

    return build._cached("validate.aliases", make)


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
    return _arrays_for(element)  # colour changes no connector


class ConnectionGraph:
    """Mated connector pairs of a build and the part graph they make.

    Attributes
    ----------
    placements : list of FlatPlacement
        The build's flattened placements (node ``i`` is ``placements[i]``).
    graph : networkx.Graph
        Nodes 0..n-1; an edge per mated part pair with attribute ``kinds``
        (frozenset of JointKind).
    pairs : (m, 4) int ndarray
        ``(part_i, connector_i, part_j, connector_j)`` per mated connector pair.
    kinds : list of JointKind, length m
        Joint made by each row of :attr:`pairs`.
    exempt : (n,) bool ndarray
        Flexible or primitive placements left out of :attr:`components` when unmated.
    unseated : (u, 4) float ndarray
        Part pairs whose studs touch but are not seated ``(part_i, part_j, reason, value)``, ``i < j``:
        reason 0 tilted (value: angle between stud axes, degrees), 1 turned or shifted (value: the
        largest miss of a stud, LDU); their stud mates are not in :attr:`pairs` (:func:`_unseated_rows`).
    held : (k, 2) int ndarray
        Part pairs joined without connectors, a pane held in its frame
        (:func:`.held.held_in_frame_edges`); edges of :attr:`graph` (kind
        FIXED) and of :attr:`components`, not rows of :attr:`pairs`.
    glued : (g, 2) int ndarray
        Part pairs joined because a flat sticker is glued on the other part
        (:func:`.held.glued_sticker_edges`); edges of :attr:`graph` (kind FIXED) and of
        :attr:`components` only: support keeps its own sticker rule (from the part to the sticker).
    """

    unseated = np.zeros((0, 4))
    #: After append-only edits (:func:`connection_graph`): how :attr:`pairs` and :attr:`held` extend those
    #: of the graph before the edit, ``{"parts": old part count, "pairs": (old rows, insertion indices,
    #: rows), "held": (...)}``; None for a graph computed from scratch.
    appended = None

    def __init__(self, placements, pairs: np.ndarray, kinds, world: dict, exempt=None, held=None, edges=None,
                 glued=None):
        """``edges``: the part pairs of ``pairs`` and ``held`` when the caller already has them ((e, 2) int,
        unique ``(lo, hi)`` rows in lexicographic order, as computed here otherwise; the append path of
        :func:`connection_graph` merges the new pairs into the old graph's)."""
        self.placements = placements
        self.held = np.zeros((0, 2), dtype=np.int64) if held is None else np.asarray(held, dtype=np.int64)
        self.glued = np.zeros((0, 2), dtype=np.int64) if glued is None else np.asarray(glued, dtype=np.int64)
        self.exempt = np.zeros(len(placements), dtype=bool) if exempt is None else np.asarray(exempt, dtype=bool)
        self.pairs = pairs
        if isinstance(kinds, np.ndarray):
            kc = kinds.astype(np.int64)
            self._kinds = None
        else:
            kc = np.fromiter((_KIND_INDEX[k] for k in kinds), dtype=np.int64, count=len(kinds))
            self._kinds = list(kinds)
        self._kind_codes = kc
        self._world = world
        self._graph = None
        n = len(placements)
        self._n = n
        if edges is not None:
            self._edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
            return
        if len(pairs):
            lo = np.minimum(pairs[:, 0], pairs[:, 2]).astype(np.int64)
            hi = np.maximum(pairs[:, 0], pairs[:, 2]).astype(np.int64)
            u = sorted_unique(lo * max(n, 1) + hi)  # lexicographic (lo, hi) order, as unique(axis=0)
            self._edges = np.column_stack([u // max(n, 1), u % max(n, 1)])
        else:
            self._edges = np.zeros((0, 2), dtype=np.int64)
        if len(self.held) or len(self.glued):
            self._edges = np.unique(np.vstack([self._edges, self.held, self.glued]), axis=0)

    @property
    def graph(self) -> nx.Graph:
        """The part graph (networkx), built on first use: nodes 0..n-1, one edge per mated part pair
        with attribute ``kinds`` (frozenset of JointKind)."""
        if self._graph is None:
            import networkx as nx  # only when asked for: the import costs about 0.2 s

            g = nx.Graph()
            n = self._n
            g.add_nodes_from(range(n))
            pairs, kc = self.pairs, self._kind_codes
            if len(pairs):
                # one edge per part pair with the set of joint kinds; grouped in numpy (JointKind hashing
                # per row would dominate)
                lo = np.minimum(pairs[:, 0], pairs[:, 2])
                hi = np.maximum(pairs[:, 0], pairs[:, 2])
                u = np.unique(np.column_stack([lo, hi, kc]), axis=0)
                keys = u[:, 0] * n + u[:, 1]
                first = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
                bounds = np.r_[first, len(u)].tolist()
                ucol = u[:, 2].tolist()
                ab = u[:, :2].tolist()
                g.add_edges_from((ab[f][0], ab[f][1], {"kinds": _kind_set(tuple(ucol[f:e]))})
                                 for f, e in zip(bounds[:-1], bounds[1:]))
            for i, j in self.held.tolist() + self.glued.tolist():
                if not g.has_edge(i, j):
                    g.add_edge(i, j, kinds=frozenset({JointKind.FIXED}))
            self._graph = g
        return self._graph

    def mated(self, i: int, j: int) -> bool:
        """True when parts ``i`` and ``j`` share at least one mated connector pair."""
        a, b = min(int(i), int(j)), max(int(i), int(j))
        found = self.__dict__.get("_edge_set")
        if found is None:  # built on first use: one look-up per call, not a scan of every edge
            found = self._edge_set = set(map(tuple, self._edges.tolist()))
        return (a, b) in found

    def mated_pairs(self, ij: np.ndarray) -> np.ndarray:
        """(m,) bool: :meth:`mated` of each row ``(i, j)`` of ``ij`` ((m, 2) int part indices), by one
        binary search of the sorted part pairs (for the thousands of colliding pairs of a large build)."""
        ij = np.asarray(ij, dtype=np.int64).reshape(-1, 2)
        e, n = self._edges, max(self._n, 1)
        if not len(ij) or not len(e):
            return np.zeros(len(ij), dtype=bool)
        keys = e[:, 0] * n + e[:, 1]  # sorted: the edges are unique rows in (lo, hi) order
        q = np.minimum(ij[:, 0], ij[:, 1]) * n + np.maximum(ij[:, 0], ij[:, 1])
        pos = np.minimum(np.searchsorted(keys, q), len(keys) - 1)
        return keys[pos] == q

    def _component_labels(self) -> np.ndarray:
        """(n,) component label of each part: the connected components of :attr:`graph`, computed
        in numpy over the same edges (:func:`.graphs.component_labels`, scipy's labels; no networkx graph needed)."""
        from .graphs import component_labels

        return component_labels(self._n, self._edges)

    def component_roots(self) -> np.ndarray:
        """(n,) int64: the smallest part index of each part's connected component (computed once per
        graph; the append path of :func:`connection_graph` extends the old graph's by the new edges)."""
        got = self.__dict__.get("_roots")
        if got is None:
            labels = self._component_labels().astype(np.int64)
            # labels are numbered in the order of their smallest part, so a label's first part is where the
            # running maximum of the labels grows
            grows = labels > np.maximum.accumulate(np.r_[-1, labels[:-1]]) if self._n else np.zeros(0, bool)
            got = self._roots = np.flatnonzero(grows)[labels]
        return got

    def _extended_roots(self, n: int, new_edges: np.ndarray) -> np.ndarray:
        """:meth:`component_roots` of the graph of this graph's ``self._n`` parts plus parts up to ``n``
        and the edges ``new_edges`` ((k, 2) int; every edge of this graph is kept): each new edge joins
        two components by giving every part of the one with the larger root the smaller root (one pass
        over the roots per join, so the cost grows with the joins the edit makes, not the edges)."""
        root = np.concatenate([self.component_roots(), np.arange(self._n, n, dtype=np.int64)])
        for a, b in np.asarray(new_edges, dtype=np.int64).reshape(-1, 2).tolist():
            ra, rb = int(root[a]), int(root[b])
            if ra != rb:
                lo, hi = min(ra, rb), max(ra, rb)
                root[root == hi] = lo
        return root

    @property
    def kinds(self) -> list:
        """JointKind made by each row of :attr:`pairs` (list, length m)."""
        if self._kinds is None:
            self._kinds = [_KINDS[k] for k in self._kind_codes.tolist()]
        return self._kinds

    @property
    def components(self) -> list:
        """Connected components as lists of FlatPlacement, largest first (ties: first part first).

        Flexible or primitive placements (:attr:`exempt`, :func:`._world.flexible_mask`: string,
        hose and LSynth segments, scaled primitives) that mate with nothing but each other are left
        out: LDraw draws one bent string as dozens of unconnected pieces (2,103 ``4-4cyli`` in 6285
        Black Seas Barracuda), and one hose as dozens of segments jointed to each other (the hose
        segment joints of :mod:`ldraw_data.segments`: 44 in 6285's chest), which are pieces of one
        flexible whole, not separate objects of the model.
        """
        pl = self.placements
        return [[pl[i] for i in c] for c in self.component_indices]

    @property
    def component_indices(self) -> list:
        """:attr:`components` as lists of indices into :attr:`placements` (the flattened placements),
        in the same order (computed once per graph)."""
        got = self.__dict__.get("_component_idx")
        if got is None:
            got = self.__dict__["_component_idx"] = [c.tolist() for c in self.component_arrays()]
        return [list(c) for c in got]

    def component_arrays(self) -> list:
        """:attr:`component_indices` as ascending (k,) int64 arrays, the same order, shared (read only):
        what a report that lists a few components and counts the rest needs, without a list per part.

        Computed once per graph. A graph of the append path of :func:`connection_graph` starts from the
        components of the graph before the edit: only those joined by the new edges and those holding new
        parts are made anew (:meth:`_component_groups`), so the cost follows the edit, not the build."""
        got = self.__dict__.get("_component_arr")
        if got is None:
            groups, exempt = self._component_groups()
            keep = sorted((r for r in groups if not exempt[r]), key=lambda r: (-len(groups[r]), r))
            got = self._component_arr = [groups[r] for r in keep]
        return got

    def _component_groups(self) -> tuple[dict, dict]:
        """Every connected component, exempt ones included: ``({root: ascending parts}, {root: all parts
        exempt})``, ``root`` the smallest part index (:meth:`component_roots`). With ``_groups_base`` (the
        groups of the graph before an append-only edit and its part count) the groups whose root did not
        change and that gained no new part are kept as they are."""
        got = self.__dict__.get("_groups")
        if got is not None:
            return got
        roots = self.component_roots()
        base = self.__dict__.pop("_groups_base", None)
        ex = self.exempt
        if base is None or base[2] > self._n:
            order = np.argsort(roots, kind="stable")  # ascending parts within each root
            cuts = np.flatnonzero(np.diff(roots[order])) + 1
            groups = {int(c[0]): c for c in np.split(order, cuts)} if self._n else {}
            exempt = {r: bool(ex[c].all()) for r, c in groups.items()}
        else:
            old, old_ex, n0 = base
            firsts = np.fromiter(old, dtype=np.int64, count=len(old))
            moved = firsts[roots[firsts] != firsts]  # old components joined to one of a smaller root
            added = np.arange(n0, self._n)
            touched = np.unique(np.concatenate([roots[moved], roots[n0:]]))
            groups, exempt = dict(old), dict(old_ex)
            for f in moved.tolist():
                del groups[f], exempt[f]
            into = roots[moved]
            for t in touched.tolist():
                parts = ([old[t]] if t in old else []) + [old[f] for f in moved[into == t].tolist()]
                c = np.concatenate(parts + [added[roots[n0:] == t]])
                if len(parts) > 1:  # new parts come after every old one: only joined old parts need a sort
                    c.sort()
                groups[t], exempt[t] = c, bool(ex[c].all())
        self._groups = (groups, exempt)
        return self._groups

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
    def world_connectors(self) -> dict:
        """The build's connectors, flattened, in its frame: arrays ``pos`` and ``axis`` ((c, 3), LDU and unit),
        ``length`` (half-length, LDU), ``code`` (type code, :func:`ldraw_data.connectors.connector_types`),
        ``owner`` (part index), ``cidx`` (connector index on its part), ``start`` ((n,) first row of each
        part), ``loose`` (optional bool mask). Rows are addressed by :meth:`flat_index`. Read only."""
        return self._world

    def flat_index(self, part, conn) -> np.ndarray:
        """Rows of :attr:`world_connectors` of connectors ``conn`` of parts ``part`` (int arrays of one
        shape, e.g. columns of :attr:`pairs`)."""
        return self._flat_index(part, conn)

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


_FIELDS = ("pos", "axis", "length", "code", "cidx", "inst", "loose", "turns")


@lru_cache(maxsize=1)
def _stud_codes() -> np.ndarray:
    """(types,) bool: stud and open-stud type codes (the male stud family)."""
    return np.array([n in ("stud", "open_stud") for n in connector_types()])


@lru_cache(maxsize=None)
def _head_id(pid: str) -> bool:
    from ldraw_data.catalog import get_catalog

    cat = get_catalog()
    return pid in cat and cat.get(pid).name.lower().startswith("minifig head")


@lru_cache(maxsize=None)
def _turns_id(pid: str) -> bool:
    from ldraw_data.catalog import get_catalog
    from ldraw_data.traits import title_traits

    cat = get_catalog()
    if pid not in cat:
        return False
    try:
        name = cat.resolve_moved(pid).name
    except Exception:  # noqa: BLE001 - a stub whose target is missing: its own title
        name = cat.get(pid).name
    return "round" in title_traits(name or "")


def _turns_on_studs(element) -> bool:
    """True for parts that may turn on their studs (trait "round" of :mod:`ldraw_data.traits`: a round
    2 x 2 plate's studs sit between its rim and centre tube, not in separate anti-stud sockets)."""
    return _turns_id(element.ldraw_id)


def _is_minifig_head(element) -> bool:
    """True for minifigure heads (catalog name "Minifig Head ..."): headgear mates on their stud
    within ``TOL.joint_position`` (module notes)."""
    return _head_id(element.ldraw_id)


def _group_arrays(wa, key, idx: np.ndarray, aliases=None):
    """Connector arrays of the part group ``key`` (placements ``idx`` of one part): the MPD-embedded copy's
    alias arrays where ``aliases`` has them (:func:`embedded_aliases`), else the part's own."""
    arr = aliases.get(key) if aliases and key.startswith("?") else None
    return arr if arr is not None else part_connector_arrays(wa.placements[idx[0]].content)


def _distinct_rotations(r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct (3, 3) rotations of ``r`` ((n, 3, 3), compared by their bytes) and, for each of the
    n, the index of its own among them: ``(distinct (u, 3, 3), inv (n,))`` with ``distinct[inv]`` equal
    to ``r``. The placements of one part in a large build share few orientations (19 Falcons: 99,693
    parts), so products with the part's connector rows are made once per orientation."""
    n = len(r)
    first: dict = {}
    inv = np.fromiter((first.setdefault(b, len(first)) for b in map(bytes, np.ascontiguousarray(r).reshape(n, 9))),
                      dtype=np.intp, count=n)
    if len(first) == n:
        return r, inv
    pick = np.zeros(len(first), dtype=np.intp)
    pick[inv] = np.arange(n)  # a placement of each rotation (any: their rotations are the same bytes)
    return r[pick], inv


def _group_geometry(wa, idx: np.ndarray, arr) -> tuple[np.ndarray, np.ndarray]:
    """World ``pos`` (LDU) and unnormalised ``axis`` ((n*k, 3) each) of the k connector rows ``arr`` of
    placements ``idx`` of one part, in (placement, connector index) order (the first two fields of
    :func:`_group_rows`): each distinct rotation times the part's rows once, then gathered."""
    r, inv = _distinct_rotations(wa.poses[idx, :3, :3])
    t = wa.poses[idx, :3, 3]
    return ((np.einsum("nij,kj->nki", r, arr.pos)[inv] + t[:, None, :]).reshape(-1, 3),
            np.einsum("nij,kj->nki", r, arr.axis)[inv].reshape(-1, 3))


def _group_rows(wa, idx: np.ndarray, arr, stud_like: np.ndarray) -> tuple:
    """World connector rows of placements ``idx`` of one part with connector arrays ``arr`` (k rows), in
    (placement, connector index) order: ``pos`` and unnormalised ``axis`` ((n*k, 3), LDU), ``length``,
    ``code``, ``cidx``, ``loose`` (studs of a minifigure head) and ``turns`` ((n*k,) each)."""
    k, n = len(arr.code), len(idx)
    el = wa.placements[idx[0]].content
    return (*_group_geometry(wa, idx, arr),
            np.tile(arr.length, n), np.tile(arr.code, n), np.tile(np.arange(k), n),
            np.tile(stud_like[arr.code] & _is_minifig_head(el), n),
            np.full(n * k, _turns_on_studs(el)))


def _transform_rows(wa, idx_all: np.ndarray, inst: np.ndarray, aliases=None) -> dict:
    """World connector rows of placements ``idx_all`` (unsorted), with their instance ids.

    ``aliases``: part key -> connector arrays for MPD-embedded copies (:func:`embedded_aliases`)."""
    pos, axis, length, code, cidx, owner, loose, turns = [], [], [], [], [], [], [], []
    stud_like = _stud_codes()
    sel = np.zeros(len(wa.placements), dtype=bool)
    sel[idx_all] = True
    for key, gidx in wa.groups.items():
        idx = gidx[sel[gidx]]
        if not len(idx):
            continue
        arr = _group_arrays(wa, key, idx, aliases)
        k = len(arr.code)
        if not k:
            continue
        for out, v in zip((pos, axis, length, code, cidx, loose, turns), _group_rows(wa, idx, arr, stud_like)):
            out.append(v)
        owner.append(np.repeat(idx, k))
    if not pos:
        z3 = np.zeros((0, 3))
        zi = np.zeros(0, dtype=np.int64)
        return dict(pos=z3, axis=z3.copy(), length=np.zeros(0), code=zi, cidx=zi.copy(), inst=zi.copy(),
                    loose=np.zeros(0, dtype=bool), turns=np.zeros(0, dtype=bool))
    owner_a = np.concatenate(owner)
    ax = np.vstack(axis)
    nrm = np.linalg.norm(ax, axis=1, keepdims=True)
    nrm[nrm == 0] = 1
    return dict(pos=np.vstack(pos), axis=ax / nrm, length=np.concatenate(length),
                code=np.concatenate(code).astype(np.int64), cidx=np.concatenate(cidx).astype(np.int64),
                inst=inst[owner_a], loose=np.concatenate(loose).astype(bool),
                turns=np.concatenate(turns).astype(bool))


def _all_rows_sorted(wa, inst: np.ndarray, aliases=None) -> dict:
    """``_finish(_transform_rows(wa, all placements, inst, aliases), inst, ...)`` in one pass.

    The rows of every placement are written straight to their place in (placement, connector
    index) order (the offsets of each placement's rows known from the connector count of its part),
    instead of being stacked part by part and then gathered by a sort: at 100,000 parts (1.8 M
    rows, issue 20) that saves the stacking, the sort and a gather of every field. Each row's
    values are computed as :func:`_transform_rows` computes them (the same product per part
    group), so the arrays are identical."""
    n = len(wa.placements)
    stud_like = _stud_codes()
    per_group = []
    counts = np.zeros(n, dtype=np.int64)
    for key, idx in wa.groups.items():
        if not len(idx):
            continue
        arr = _group_arrays(wa, key, idx, aliases)
        k = len(arr.code)
        if not k:
            continue
        counts[idx] = k
        per_group.append((idx, arr, k))
    start = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts, out=start[1:])
    total = int(start[-1])
    if not per_group:
        z3 = np.zeros((0, 3))
        zi = np.zeros(0, dtype=np.int64)
        return dict(pos=z3, axis=z3.copy(), length=np.zeros(0), code=zi, cidx=zi.copy(), inst=zi.copy(),
                    loose=np.zeros(0, dtype=bool), turns=np.zeros(0, dtype=bool), owner=zi.copy(), start=start)
    length_t = np.result_type(*[g[1].length for g in per_group])
    # unused rows after the arrays, for the rows of appended parts (_world.appended_rows)
    pos = room_buffer(total, (3,))
    ax = room_buffer(total, (3,))
    length = room_buffer(total, dtype=length_t)
    code = room_buffer(total, dtype=np.int64)
    cidx = room_buffer(total, dtype=np.int64)
    loose = room_buffer(total, dtype=bool)
    turns = room_buffer(total, dtype=bool)
    # the positions and axes are scattered to their rows group by group; the per-connector fields
    # (length, code, connector index, loose, turns: np.tile of the part's k values in _group_rows) are
    # gathered for all rows at once from the groups' tables by (group, connector index)
    group_of = np.zeros(n, dtype=np.int64)
    tab_start = np.zeros(len(per_group) + 1, dtype=np.int64)
    tab_len, tab_code, tab_loose, group_turns = [], [], [], np.zeros(len(per_group), dtype=bool)
    for g, (idx, arr, k) in enumerate(per_group):
        at = (start[idx][:, None] + np.arange(k)).ravel()
        gpos, gax = _group_geometry(wa, idx, arr)
        pos[at], ax[at] = gpos, gax
        el = wa.placements[idx[0]].content
        group_of[idx] = g
        tab_start[g + 1] = tab_start[g] + k
        tab_len.append(arr.length)
        tab_code.append(arr.code)
        tab_loose.append(stud_like[arr.code] & _is_minifig_head(el))
        group_turns[g] = _turns_on_studs(el)
    owner = room_buffer(total, dtype=np.int64)
    owner[:total] = np.repeat(np.arange(n, dtype=np.int64), counts)
    row_group = group_of[owner[:total]]
    cidx[:total] = np.arange(total, dtype=np.int64) - start[:-1][owner[:total]]
    at = tab_start[row_group] + cidx[:total]
    length[:total] = np.concatenate(tab_len).astype(length_t, copy=False)[at]
    code[:total] = np.concatenate(tab_code)[at]
    loose[:total] = np.concatenate(tab_loose).astype(bool, copy=False)[at]
    turns[:total] = group_turns[row_group]
    ax = ax[:total]
    nrm = np.linalg.norm(ax, axis=1, keepdims=True)
    nrm[nrm == 0] = 1
    np.divide(ax, nrm, out=ax)
    inst_rows = room_buffer(total, dtype=inst.dtype)
    np.take(inst, owner[:total], out=inst_rows[:total])
    return dict(pos=pos[:total], axis=ax, length=length[:total], code=code[:total], cidx=cidx[:total],
                inst=inst_rows[:total], loose=loose[:total], turns=turns[:total], owner=owner[:total], start=start)


def _finish(rows: dict, inst: np.ndarray, n_ids: int) -> dict:
    """Sort rows by (placement, connector index) and add ``owner`` and ``start`` (CSR offsets)."""
    id_to_idx = np.full(n_ids, -1, dtype=np.int64)
    id_to_idx[inst] = np.arange(len(inst))
    owner = id_to_idx[rows["inst"]]
    # (owner, connector index) is unique per row, so one integer key sorts as the two-key lexsort; the
    # rows come in ascending runs (one per part), which the stable sort merges
    order = np.argsort(owner * (int(rows["cidx"].max()) + 1 if len(owner) else 1) + rows["cidx"], kind="stable")
    w = {f: rows[f][order] for f in _FIELDS}
    w["owner"] = owner[order]
    counts = np.bincount(w["owner"], minlength=len(inst))
    start = np.zeros(len(inst) + 1, dtype=np.int64)
    np.cumsum(counts, out=start[1:])
    w["start"] = start
    return w


class _ConnectionIndex:
    """World connectors and mated pairs of one build, kept between edits.

    Placements are identified by an instance id per (path of Placement
    objects, part key, pose); after an edit the rows and pairs of unchanged
    instances are kept, and only the connectors of new instances are
    transformed and matched (against all connectors).
    """

    def __init__(self):
        self._ids: dict = {}
        self.rows = None            # dict of _FIELDS arrays (world connector rows)
        self.pairs_inst = np.zeros((0, 4), dtype=np.int64)  # (inst_a, conn_a, inst_b, conn_b)
        self.kind_codes = np.zeros(0, dtype=np.int64)
        self.unseated_inst = np.zeros((0, 4))  # (inst_a, inst_b, reason, value), see _unseated_rows

    def _instances(self, wa) -> np.ndarray:
        ids = self._ids
        n = len(wa.placements)
        rows = np.ascontiguousarray(wa.poses).reshape(n, 16)
        keys = zip(wa.path_ids, wa.keys, map(bytes, rows))
        return np.fromiter((ids.setdefault(k, len(ids)) for k in keys), dtype=np.int64, count=n)

    def refresh(self, build) -> tuple[dict, np.ndarray, list]:
        wa = world_arrays(build)
        aliases = embedded_aliases(build)
        inst = self._instances(wa)
        n_ids = len(self._ids)
        alive = np.zeros(n_ids, dtype=bool)
        alive[inst] = True
        if self.rows is None:
            rows = None  # all rows, made in order by _all_rows_sorted below
            query = None
            old_pairs, old_kinds = np.zeros((0, 4), dtype=np.int64), np.zeros(0, dtype=np.int64)
        else:
            old = self.rows
            known = np.zeros(n_ids, dtype=bool)
            known[old["inst"]] = True
            known[sorted_unique(self.pairs_inst[:, [0, 2]])] = True
            known[self._seen] = True
            new_idx = np.flatnonzero(~known[inst])
            keep = alive[old["inst"]]
            new_rows = _transform_rows(wa, new_idx, inst, aliases)
            rows = {f: np.concatenate([old[f][keep], new_rows[f]]) for f in _FIELDS}
            query = np.concatenate([np.zeros(int(keep.sum()), dtype=bool), np.ones(len(new_rows["code"]), bool)])
            pk = np.all(alive[self.pairs_inst[:, [0, 2]]], axis=1) if len(self.pairs_inst) else np.zeros(0, bool)
            old_pairs, old_kinds = self.pairs_inst[pk], self.kind_codes[pk]
            uk = self.unseated_inst
            self.unseated_inst = uk[np.all(alive[uk[:, :2].astype(np.int64)], axis=1)] if len(uk) else uk
        w = _all_rows_sorted(wa, inst, aliases) if rows is None else _finish(rows, inst, n_ids)
        if query is not None:
            id_to_idx = np.full(n_ids, -1, dtype=np.int64)
            id_to_idx[inst] = np.arange(len(inst))
            qmask = np.zeros(len(inst), dtype=bool)
            qmask[new_idx] = True
            query = qmask[w["owner"]]
        else:
            self.unseated_inst = np.zeros((0, 4))
        uns: list = []
        self._ranks = _coincident_ranks(w)
        pairs, kind_codes = _mated(w, query, uns, self._ranks[0])
        self._add_unseated(uns, inst)
        # pairs found now are in placement indices; store by instance
        new_inst_pairs = np.column_stack([inst[pairs[:, 0]], pairs[:, 1], inst[pairs[:, 2]], pairs[:, 3]]) \
            if len(pairs) else np.zeros((0, 4), dtype=np.int64)
        self.pairs_inst = np.vstack([old_pairs, new_inst_pairs]).astype(np.int64)
        self.kind_codes = np.concatenate([old_kinds, kind_codes]).astype(np.int64)
        self.rows = {f: w[f] for f in _FIELDS}
        self._seen = sorted_unique(inst)
        self._reach = _connector_reach(wa, 0, aliases)  # for the append path (_near_rows), one look-up per part
        return self._output(w, inst)

    def _add_unseated(self, rows: list, inst: np.ndarray) -> None:
        """Store unseated stud pairs found by :func:`_mated` (placement indices) by instance id."""
        if rows:
            u = np.vstack(rows)
            u[:, 0], u[:, 1] = inst[u[:, 0].astype(np.int64)], inst[u[:, 1].astype(np.int64)]
            self.unseated_inst = np.vstack([self.unseated_inst, u])

    def unseated(self) -> np.ndarray:
        """(u, 4) float: unseated stud pairs ``(part_i, part_j, reason, value)`` in placement indices
        of the last refresh (see :func:`_unseated_rows`)."""
        u = self.unseated_inst
        if not len(u):
            return np.zeros((0, 4))
        id_to_idx = np.full(len(self._ids), -1, dtype=np.int64)
        id_to_idx[self._inst] = np.arange(len(self._inst))
        out = u.copy()
        out[:, 0], out[:, 1] = id_to_idx[u[:, 0].astype(np.int64)], id_to_idx[u[:, 1].astype(np.int64)]
        out = out[(out[:, 0] >= 0) & (out[:, 1] >= 0)]
        return out[np.lexsort((out[:, 1], out[:, 0]))] if len(out) else out

    def _output(self, w: dict, inst: np.ndarray) -> tuple[dict, np.ndarray, np.ndarray]:
        """Record the state reached and return ``(world rows, pairs in placement indices, kinds)``,
        the pairs sorted by (part_i, connector_i, part_j, connector_j)."""
        n_ids = len(self._ids)
        self._inst, self._n, self._w = inst, len(inst), w
        id_to_idx = np.full(n_ids, -1, dtype=np.int64)
        id_to_idx[inst] = np.arange(len(inst))
        pi = self.pairs_inst
        out = np.column_stack([id_to_idx[pi[:, 0]], pi[:, 1], id_to_idx[pi[:, 2]], pi[:, 3]]) \
            if len(pi) else np.zeros((0, 4), dtype=np.int64)
        order = np.lexsort((out[:, 3], out[:, 2], out[:, 1], out[:, 0])) if len(out) else np.zeros(0, np.int64)
        self._out = out[order], self.kind_codes[order]  # kept for the merge of appended pairs (append)
        self.new_pairs = self.inserted = None
        return (w, *self._out)

    def append(self, build, n_old: int):
        """Fast path of :meth:`refresh` after append-only edits (``LegoBuild._appended_since``):
        the first ``n_old`` placements are those of the last refresh, unchanged; only the
        connectors of the placements after them are transformed and matched. Returns None when
        the index is not in that state (then :meth:`refresh` is used).

        Its cost grows with the edit, not the build (issue 20): the world rows are written into
        growable buffers (:func:`._world.appended_rows`); the new rows are matched within the rows near them
        (:func:`_near_rows`, the same pairs as against all rows); their coincident-connector ranks
        come from the kept sorted keys (:class:`_SortedKeys`); the new mated pairs are merged into
        the kept sorted output (:func:`_merge_sorted_rows`) instead of a sort of all pairs."""
        if self.rows is None or getattr(self, "_n", -1) != n_old or getattr(self, "_out", None) is None:
            return None
        wa = world_arrays(build)
        n = len(wa.placements)
        ids = self._ids
        keys = [(wa.path_ids[i], wa.keys[i], wa.poses[i].tobytes()) for i in range(n_old, n)]
        if any(k in ids for k in keys) or len(set(keys)) != len(keys):
            return None  # an instance seen before: let refresh sort out which rows are alive
        new_ids = np.arange(len(ids), len(ids) + len(keys), dtype=np.int64)
        for k, v in zip(keys, new_ids.tolist()):
            ids[k] = v
        inst = np.concatenate([self._inst, new_ids])
        new_idx = np.arange(n_old, n)
        rows = _transform_rows(wa, new_idx, inst, embedded_aliases(build))
        owner = new_idx[np.searchsorted(new_ids, rows["inst"])]
        order = np.lexsort((rows["cidx"], owner))
        old = self._w
        n0, k = len(old["code"]), len(owner)
        w = {f: appended_rows(old[f], rows[f][order]) for f in _FIELDS}
        w["owner"] = appended_rows(old["owner"], owner[order])
        counts = np.bincount(owner - n_old, minlength=n - n_old) if k else np.zeros(n - n_old, np.int64)
        w["start"] = appended_rows(old["start"], old["start"][-1] + np.cumsum(counts))
        prev = getattr(self, "_ranks", None)
        if prev is not None and len(prev[0]) == n0 and (prev[1] is None) == (n0 <= COINCIDENT_CONNECTORS):
            rank_new, keys_sorted = _appended_ranks(w, n0, prev[1])
            rank = appended_rows(prev[0], rank_new)
        else:
            rank, keys_sorted = _coincident_ranks(w)
            keys_sorted = None if keys_sorted is None else _SortedKeys(keys_sorted)
        self._ranks = (rank, keys_sorted)
        types = self.__dict__.get("_type_count")
        if types is None or int(types.sum()) != n0:
            types = np.bincount(old["code"], minlength=len(mate_matrix()))
        types = types + np.bincount(w["code"][n0:], minlength=len(types))
        self._type_count = types
        aliases = embedded_aliases(build)
        reach_of = self.__dict__.get("_reach")
        if reach_of is None or len(reach_of) != n_old:
            reach_of = _connector_reach(wa, 0, aliases)[:n_old]
        self._reach = reach_of = appended_rows(reach_of, _connector_reach(wa, n_old, aliases))
        sub = _near_rows(w, n0, self.__dict__, wa.poses[:n_old, :3, 3], reach_of[:n_old])
        ws = {f: w[f][sub] for f in ("pos", "axis", "code", "owner", "length", "cidx", "loose", "turns")}
        query = sub >= n0
        uns: list = []
        pairs, kind_codes = _mated(ws, query, uns, rank[sub], type_count=types)
        self._add_unseated(uns, inst)
        new_inst_pairs = np.column_stack([inst[pairs[:, 0]], pairs[:, 1], inst[pairs[:, 2]], pairs[:, 3]]) \
            if len(pairs) else np.zeros((0, 4), dtype=np.int64)
        self._extend_pairs(new_inst_pairs, kind_codes)
        self.rows = {f: w[f] for f in _FIELDS}
        self._seen = np.concatenate([self._seen, new_ids])
        self._inst, self._n, self._w = inst, len(inst), w
        out_pairs, out_kinds = self._out
        at = np.zeros(0, dtype=np.int64)
        o = np.lexsort((pairs[:, 3], pairs[:, 2], pairs[:, 1], pairs[:, 0])) if len(pairs) else at
        if len(pairs):
            at = _merge_sorted_rows(out_pairs, pairs[o])
            out_pairs = np.insert(out_pairs, at, pairs[o], axis=0)
            out_kinds = np.insert(out_kinds, at, kind_codes[o].astype(np.int64))
        # where the new pairs went: (old row count, insertion indices into the old rows, the rows inserted)
        self.inserted = (len(self._out[0]), at, pairs[o])
        self._out = out_pairs, out_kinds
        self.new_pairs = pairs
        return w, out_pairs, out_kinds

    @property
    def pairs_inst(self) -> np.ndarray:
        """(m, 4) int: mated pairs ``(inst_a, conn_a, inst_b, conn_b)`` by instance id (the chunks
        appended by :meth:`append` joined on first use)."""
        chunks = self.__dict__.get("_pair_chunks")
        if chunks and len(chunks) > 1:
            self._pair_chunks = [np.vstack(chunks).astype(np.int64)]
            self._kind_chunks = [np.concatenate(self._kind_chunks).astype(np.int64)]
        return self._pair_chunks[0]

    @pairs_inst.setter
    def pairs_inst(self, value) -> None:
        self._pair_chunks = [value]

    @property
    def kind_codes(self) -> np.ndarray:
        """(m,) int JointKind indices of :attr:`pairs_inst`."""
        self.pairs_inst  # joins the chunks
        return self._kind_chunks[0]

    @kind_codes.setter
    def kind_codes(self, value) -> None:
        self._kind_chunks = [value]

    def _extend_pairs(self, pairs_inst: np.ndarray, kind_codes: np.ndarray) -> None:
        """Append mated pairs (by instance id) and their kinds without copying the kept ones."""
        if len(pairs_inst):
            self._pair_chunks.append(pairs_inst.astype(np.int64))
            self._kind_chunks.append(kind_codes.astype(np.int64))


class _SortedKeys:
    """Sorted uint64 row keys of :func:`_coincident_hash`, kept as a long sorted base and a short sorted
    tail so that appending a few keys does not copy all of them (the tail is merged into the base when it
    grows past a sixteenth of it)."""

    def __init__(self, base: np.ndarray, tail: np.ndarray | None = None):
        self.base = base
        self.tail = np.zeros(0, dtype=base.dtype) if tail is None else tail

    def __len__(self) -> int:
        return len(self.base) + len(self.tail)

    def count(self, h: np.ndarray) -> np.ndarray:
        """(k,) int: how many kept keys equal each of ``h``."""
        out = np.searchsorted(self.base, h, "right") - np.searchsorted(self.base, h, "left")
        if len(self.tail):
            out += np.searchsorted(self.tail, h, "right") - np.searchsorted(self.tail, h, "left")
        return out

    def added(self, hs: np.ndarray) -> "_SortedKeys":
        """A new key set with the sorted keys ``hs`` added (this one is left unchanged)."""
        tail = np.insert(self.tail, np.searchsorted(self.tail, hs), hs)
        if len(tail) * 16 > len(self.base):
            return _SortedKeys(np.insert(self.base, np.searchsorted(self.base, tail), tail))
        return _SortedKeys(self.base, tail)


def _appended_ranks(w: dict, n0: int, kept) -> tuple:
    """Coincident-connector ranks (:func:`_coincident_ranks`) of the rows ``n0`` and later of ``w``, whose
    parts come after every part of the first ``n0`` rows, and the sorted keys of all rows (``kept``: those of
    the first ``n0`` rows, a :class:`_SortedKeys` or sorted array, or None when they were too few to rank).
    A new row's rank is the number of kept rows with its key plus its place among the new rows with that
    key (row order is part order, as the ranks go by owning part)."""
    n = len(w["code"])
    if n <= COINCIDENT_CONNECTORS:
        return np.zeros(n - n0, dtype=np.int64), None
    if kept is None:
        rank, hs = _coincident_ranks(w)
        return rank[n0:], _SortedKeys(hs)
    kept = kept if isinstance(kept, _SortedKeys) else _SortedKeys(kept)
    h = _coincident_hash(w, n0)
    o = np.argsort(h, kind="stable")
    hn = h[o]
    start = np.flatnonzero(np.r_[True, hn[1:] != hn[:-1]]) if len(hn) else np.zeros(0, np.int64)
    within = np.empty(len(h), dtype=np.int64)
    within[o] = np.arange(len(h)) - np.repeat(start, np.diff(np.r_[start, len(h)]))
    return kept.count(h) + within, kept.added(hn)


def _near_rows(w: dict, n0: int, memo: dict, origins: np.ndarray | None = None,
               reach_of: np.ndarray | None = None) -> np.ndarray:
    """Ascending rows of ``w`` that can take part in a mate with a row ``n0`` or later: those rows and
    every earlier row inside their box grown by the farthest reach of the search (:func:`_mated`):
    ``STUD_SEAT_REACH`` for stud-family rows, ``TOL.joint_position`` for joint labels and loose studs,
    and, when a new row slides, the slide search radius of the longest sliding row
    (``2 * half_length - AXLE_MIN_OVERLAP`` plus the line tolerance). Matching the new rows within
    these rows gives the pairs (and their order) of matching them against all rows: the subset keeps
    the row order and holds every row within each search radius. ``memo`` keeps the longest
    half-length (LDU) of the earlier rows. With ``origins`` ((parts, 3) LDU, the placements' origins) and
    ``reach_of`` (:func:`_connector_reach` of each), only the rows of parts that can reach the box are
    tested."""
    n = len(w["code"])
    if n0 >= n:
        return np.arange(n0, n)
    reach = max(TOL.connector_position, STUD_SEAT_REACH, TOL.joint_position) + TOL_EPS
    sliding = _type_tables()[0]
    new_slide = sliding[w["code"][n0:]]
    longest = memo.get("_longest_slide") if memo.get("_longest_rows") == n0 else None
    if new_slide.any():
        if longest is None:
            m = sliding[w["code"][:n0]]
            longest = float(w["length"][:n0][m].max()) if m.any() else 0.0
        longest = max(longest, float(w["length"][n0:][new_slide].max()))
        half = max(longest, _AXLE_MIN_HALF)
        reach = max(reach, max(2 * half - _AXLE_MIN_OVERLAP, 0) + TOL.connector_line + TOL_EPS + SLIDE_END_EPS)
    if longest is not None:
        memo["_longest_slide"], memo["_longest_rows"] = longest, n
    qp = w["pos"][n0:]
    lo, hi = qp.min(axis=0) - reach, qp.max(axis=0) + reach
    if origins is not None and reach_of is not None and len(origins) == len(reach_of):
        # the parts whose connectors can lie in the box: a part's rows lie within its connector reach of
        # its origin (one pass over the parts, not the rows), then the box test on their rows only
        r = reach_of + 1e-3  # room for the rounding of the composed world positions
        m = (origins[:, 0] >= lo[0] - r) & (origins[:, 0] <= hi[0] + r)
        for a in (1, 2):  # column by column: a bool (n, 3) reduction costs several times more
            m &= (origins[:, a] >= lo[a] - r) & (origins[:, a] <= hi[a] + r)
        near = np.flatnonzero(m)
        start = w["start"]
        near = near[start[near] < np.minimum(start[near + 1], n0)]
        if not len(near):
            return np.arange(n0, n)
        ends = np.minimum(start[near + 1], n0)
        lens = ends - start[near]
        cand = np.repeat(start[near] - np.cumsum(lens) + lens, lens) + np.arange(int(lens.sum()))
    else:
        x = w["pos"][:n0, 0]
        cand = np.flatnonzero((x >= lo[0]) & (x <= hi[0]))
    p = w["pos"][cand]
    cand = cand[np.all((p >= lo) & (p <= hi), axis=1)]
    return np.concatenate([cand, np.arange(n0, n)])


def _connector_reach(wa, start: int = 0, aliases=None) -> np.ndarray:
    """(n - start,) float: for each placement from ``start`` on, the largest distance (LDU) of its connector
    origins from the placement's origin (0 without connectors): its world rows lie within this distance
    of the origin, since a placement's pose is rigid (:func:`_near_rows`). One look-up per part group."""
    n = len(wa.placements)
    out = np.zeros(n - start)
    if start == 0:
        groups = wa.groups
    else:
        groups = {}
        for i in range(start, n):
            groups.setdefault(wa.keys[i], []).append(i)
    for key, idx in groups.items():
        idx = np.asarray(idx)
        arr = _group_arrays(wa, key, idx, aliases)
        if len(arr.code):
            out[idx - start] = float(np.sqrt((arr.pos ** 2).sum(axis=1)).max())
    return out


def _merge_sorted_rows(old: np.ndarray, new: np.ndarray) -> np.ndarray:
    """(k,) insertion indices for ``np.insert(old, at, new, axis=0)`` keeping the rows of ``old`` ((m, c)
    int, lexicographically sorted) and ``new`` ((k, c), sorted) in lexicographic order, a new row after the
    equal old ones (as a stable sort of the old rows followed by the new ones). One binary search on the
    first column, then a comparison within the rows sharing its first value."""
    first = old[:, 0] if len(old) else np.zeros(0, dtype=np.int64)
    lo = np.searchsorted(first, new[:, 0], "left")
    hi = np.searchsorted(first, new[:, 0], "right")
    at = np.empty(len(new), dtype=np.int64)
    for r, (a, b) in enumerate(zip(lo.tolist(), hi.tolist())):
        blk = old[a:b]
        if not len(blk):
            at[r] = a
            continue
        le = np.ones(len(blk), dtype=bool)  # rows of the block <= the new row, column by column from the last
        for c in range(old.shape[1] - 1, 0, -1):
            v = new[r, c]
            le = (blk[:, c] < v) | ((blk[:, c] == v) & le)
        at[r] = a + int(le.sum())
    return at


def _world_connectors(build) -> dict:
    """World connector arrays of a build (``owner, pos, axis, length, code, cidx, start``), from scratch."""
    wa = world_arrays(build)
    inst = np.arange(len(wa.placements), dtype=np.int64)
    return _finish(_transform_rows(wa, inst, inst, embedded_aliases(build)), inst, len(inst))


def _distances(a: np.ndarray, b: np.ndarray, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """(m,) float: the distances (LDU) from points ``a[i]`` to ``b[j]`` (``a``, ``b`` (n, 3) LDU; ``i``,
    ``j`` (m,) int), bit for bit ``np.sqrt(((a[i] - b[j]) ** 2).sum(axis=1))``: the same squares added
    in the same order (x, then y, then z), one axis column at a time, so no (m, 3) temporaries are
    gathered (millions of candidate pairs at 100k parts; about 5x faster)."""
    acc = None
    for ax in range(3):
        x = a[:, ax][i] - b[:, ax][j]
        x *= x
        acc = x if acc is None else np.add(acc, x, out=acc)
    return np.sqrt(acc, out=acc)


def _cell_keys(cell: np.ndarray, mul: np.ndarray) -> np.ndarray:
    """(n,) int64 key of grid cells ``cell`` ((n, 3) int64, each at least -1): ``(cell + 1) @ mul``
    (``mul`` (3,) int64 the place values) by three multiply-adds on columns; exact integers, so the same
    keys, without numpy's integer matrix product (no BLAS for integers: several times slower)."""
    return (cell[:, 0] + 1) * mul[0] + (cell[:, 1] + 1) * mul[1] + (cell[:, 2] + 1) * mul[2]


def _grid_pairs(tree_pts: np.ndarray, query_pts: np.ndarray, r, strict: bool) -> tuple:
    """All (i into tree_pts, j into query_pts, distance) with distance < r (``strict``) or <= r.

    ``r``: a scalar or one radius per query point (LDU). A uniform grid of cells as
    large as the largest radius, sorted cell keys and the 27 neighbouring cells of
    each query: numpy only (scipy's k-d tree costs 0.5-0.8 s of import per process,
    a third of a Falcon validation). The pairs come in no particular order.
    """
    r = np.broadcast_to(np.asarray(r, dtype=np.float64), (len(query_pts),))
    empty = np.zeros(0, dtype=np.int64)
    if not len(tree_pts) or not len(query_pts):
        return empty, empty, np.zeros(0)
    level = np.ceil(np.log2(np.maximum(r, 1e-6)))
    if level.min() != level.max():  # radii differ (slides of long axles): one grid per power of two
        out = [], [], []
        for lv in np.unique(level):
            sel = np.flatnonzero(level == lv)
            i, j, d = _grid_pairs(tree_pts, query_pts[sel], r[sel], strict)
            out[0].append(i), out[1].append(sel[j]), out[2].append(d)
        return tuple(np.concatenate(x) for x in out)
    h = max(float(r.max()), 1e-6)
    lo = np.minimum(tree_pts.min(axis=0), query_pts.min(axis=0))
    ct = np.floor((tree_pts - lo) / h).astype(np.int64)
    cq = np.floor((query_pts - lo) / h).astype(np.int64)
    span = np.maximum(ct.max(axis=0), cq.max(axis=0)) + 3
    if float(np.prod(span.astype(np.float64))) >= 2.0 ** 62:
        # too many cells to number in 64 bits (a tiny radius over a huge build): one grid per occupied slab
        return _grid_pairs_slabs(tree_pts, query_pts, r, strict, ct, cq)
    mul = np.array([span[1] * span[2], span[2], 1], dtype=np.int64)
    kt = _cell_keys(ct, mul)
    order = np.argsort(kt, kind="stable")
    ks = kt[order]
    # queries in cell order, so each binary search starts near the last one (numpy's searchsorted
    # takes sorted needles far faster: a third of the time on 50,000 connectors); the three cells
    # (x, y, z - 1 .. z + 1) have consecutive keys, so nine ranges cover the 27 neighbours
    kq = _cell_keys(cq, mul)
    qo = np.argsort(kq, kind="stable")
    kq = kq[qo]
    ii, jj = [], []
    for dx in (-1, 0, 1):
        for dy in (-1, 0, 1):
            base = kq + (dx * mul[0] + dy * mul[1])
            a = np.searchsorted(ks, base - 1, "left")
            n = np.searchsorted(ks, base + 1, "right") - a
            tot = int(n.sum())
            if not tot:
                continue
            j = np.repeat(qo, n)
            start = np.repeat(a - (np.cumsum(n) - n), n)
            ii.append(order[start + np.arange(tot)])
            jj.append(j)
    if not ii:
        return empty, empty, np.zeros(0)
    i, j = np.concatenate(ii), np.concatenate(jj)
    d = _distances(tree_pts, query_pts, i, j)
    keep = d < r[j] if strict else d <= r[j]
    return i[keep], j[keep], d[keep]


def _grid_pairs_slabs(tree_pts, query_pts, r, strict, ct, cq) -> tuple:
    """:func:`_grid_pairs` for builds whose grid cells cannot be numbered in 64 bits: the points are
    split into slabs of occupied x cells (a query looks into its own slab and the two beside it)."""
    empty = np.zeros(0, dtype=np.int64)
    out = [], [], []
    for x in np.unique(cq[:, 0]).tolist():
        q = np.flatnonzero(cq[:, 0] == x)
        t = np.flatnonzero(np.abs(ct[:, 0] - x) <= 1)
        if not len(t):
            continue
        ext = np.maximum(tree_pts[t].max(axis=0), query_pts[q].max(axis=0)) - np.minimum(
            tree_pts[t].min(axis=0), query_pts[q].min(axis=0))
        if float(np.prod(ext / max(float(np.max(r[q])), 1e-6) + 4)) >= 2.0 ** 60:
            # still too wide across (points spread over y and z too): distances to each slab point
            for k in q.tolist():
                d = np.sqrt(((tree_pts[t] - query_pts[k]) ** 2).sum(axis=1))
                near = d < r[k] if strict else d <= r[k]
                out[0].append(t[near]), out[1].append(np.full(int(near.sum()), k)), out[2].append(d[near])
            continue
        i, j, d = _grid_pairs(tree_pts[t], query_pts[q], r[q], strict)
        out[0].append(t[i]), out[1].append(q[j]), out[2].append(d)
    if not out[0]:
        return empty, empty, np.zeros(0)
    return tuple(np.concatenate(x) for x in out)


def _pairs_within(tree_pts: np.ndarray, query_pts: np.ndarray, r: float) -> tuple[np.ndarray, np.ndarray]:
    """(i into tree_pts, j into query_pts) of up to ``_K_NEAREST`` neighbours within ``r`` (inclusive)."""
    if not len(tree_pts) or not len(query_pts):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    k = min(_K_NEAREST, len(tree_pts))
    if len(query_pts) <= _BRUTE_QUERIES:
        # a few queries (an incremental edit): distances to every point beat building a tree
        ii, jj = [], []
        for j, q in enumerate(query_pts):
            d = np.sqrt(((tree_pts - q) ** 2).sum(axis=1))
            near = np.flatnonzero(d <= r)  # within the tolerance, inclusive (TOL docs: "within 0.5 LDU")
            if len(near) > k:
                near = near[np.argsort(d[near], kind="stable")[:k]]
            ii.append(near)
            jj.append(np.full(len(near), j, dtype=np.int64))
        return np.concatenate(ii).astype(np.int64), np.concatenate(jj)
    if len(query_pts) > len(tree_pts):
        # the pairs within ``r`` and their distances are the same searched from either side (a squared
        # difference does not depend on its sign); the grid search costs binary searches per query
        # point, so the smaller set queries (1 M anti-studs against 0.5 M studs at 100k parts, or the
        # few loose minifigure-head studs against every anti-stud)
        j, i, d = _grid_pairs(query_pts, tree_pts, r, strict=False)
    else:
        i, j, d = _grid_pairs(tree_pts, query_pts, r, strict=False)
    # the k nearest of each query (ties by tree index), as a k-d tree query with an upper bound would
    o = np.lexsort((i, d, j))
    i, j = i[o], j[o]
    first = np.searchsorted(j, j, "left")
    keep = (np.arange(len(j)) - first) < k
    return i[keep].astype(np.int64), j[keep].astype(np.int64)


def _point_candidates(pos, males: np.ndarray, females: np.ndarray, r: float, query) -> list:
    """(male, female) row pairs within ``r``; with ``query``, only pairs with a queried row."""
    out = []
    if query is None:
        i, j = _pairs_within(pos[males], pos[females], r)
        out.append(np.column_stack([males[i], females[j]]))
    else:
        fq, mq = females[query[females]], males[query[males]]
        if len(fq) + len(mq) <= _BRUTE_QUERIES:
            # a few queried rows (an appended part): only rows in the box of the queries grown by ``r``
            # can pair; the subsets keep the row order, so the pairs and their order are the same
            qp = pos[np.concatenate([fq, mq])]
            if len(qp):
                lo, hi = qp.min(axis=0) - r, qp.max(axis=0) + r
                near = np.all((pos >= lo) & (pos <= hi), axis=1)
                males, females = males[near[males]], females[near[females]]
        i, j = _pairs_within(pos[males], pos[fq], r)
        out.append(np.column_stack([males[i], fq[j]]))
        i, j = _pairs_within(pos[females], pos[mq], r)
        out.append(np.column_stack([mq[j], females[i]]))
    return out


def _slide_candidates(pos, length, sm: np.ndarray, sf: np.ndarray, query) -> list:
    out = []
    if not len(sm) or not len(sf):
        return out
    line = TOL.connector_line + TOL_EPS

    def radius(rows):
        half = np.maximum(length[rows], _AXLE_MIN_HALF)
        return np.maximum(2 * half - _AXLE_MIN_OVERLAP, 0) + line + SLIDE_END_EPS

    for q, other in ((sm, sf), (sf, sm)):
        if query is not None:
            q = q[query[q]]
            if not len(q):
                continue
            # the partner may be the longer member: search as far as the longest of the other side
            r = np.maximum(radius(q), radius(other).max())
        else:
            r = radius(q)
        if len(q) <= _BRUTE_QUERIES:  # a few queries: distances to every point beat building a tree
            po = pos[other]
            lists = [np.flatnonzero(((po - pos[a]) ** 2).sum(axis=1) <= rr * rr)
                     for a, rr in zip(q.tolist(), np.broadcast_to(r, len(q)).tolist())]
        else:
            i, j, _ = _grid_pairs(pos[other], pos[q], r, strict=False)
            if len(i):
                pairs = np.column_stack([q[j], other[i]])
                out.append(pairs if other is sf else pairs[:, ::-1])
            continue
        lens = np.fromiter((len(x) for x in lists), dtype=np.int64, count=len(lists))
        if lens.sum():
            found = other[np.concatenate([np.asarray(x, dtype=np.int64) for x in lists if len(x)])]
            pairs = np.column_stack([np.repeat(q, lens), found])
            out.append(pairs if other is sf else pairs[:, ::-1])
    return out


def _coincident_hash(w: dict, start: int = 0) -> np.ndarray:
    """(N - start,) uint64 key of rows ``start`` and later: connector type, 0.5 LDU origin cell
    (``TOL.connector_position``) and axis rounded to quarters (splitmix-style mixing)."""
    code = w["code"][start:]
    cell = np.floor(w["pos"][start:] / TOL.connector_position).astype(np.int64)
    ax = np.round(w["axis"][start:] * 4).astype(np.int64)
    cols = [code.astype(np.int64), cell[:, 0], cell[:, 1], cell[:, 2], ax[:, 0], ax[:, 1], ax[:, 2]]
    k, s29 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(29)
    with np.errstate(over="ignore"):
        h = np.full(len(code), 0x9E3779B97F4A7C15, dtype=np.uint64)
        for c in cols:  # in place: no temporaries of 1.8 M rows per step at 100k parts
            h ^= c.astype(np.uint64)
            h *= k
            h ^= h >> s29
    return h


def _coincident_ranks(w: dict, prev: tuple | None = None) -> tuple[np.ndarray, np.ndarray | None]:
    """(rank (N,) int of :func:`_coincident_rank`, the N row keys sorted) of ``w``.

    ``prev``: the same pair for the first ``len(prev[0])`` rows, when the rows after them belong to
    parts appended after every part of those rows (:meth:`_ConnectionIndex.append`): ranks go by
    owning part, so the old rows keep theirs and a new row's rank is the number of old rows with
    its key plus its place among the new rows with that key (in row order, which is part order).
    Costs the new rows plus one merge of the sorted keys, not a sort of all rows. The sorted keys
    are None when there are too few rows to rank (all ranks 0)."""
    n = len(w["code"])
    if n <= COINCIDENT_CONNECTORS:
        return np.zeros(n, dtype=np.int64), None
    if prev is not None and prev[1] is not None and len(prev[0]) <= n:
        n0 = len(prev[0])
        h = _coincident_hash(w, n0)
        hs0 = prev[1]
        before = np.searchsorted(hs0, h, "right") - np.searchsorted(hs0, h, "left")
        o = np.argsort(h, kind="stable")
        hn = h[o]
        start = np.flatnonzero(np.r_[True, hn[1:] != hn[:-1]]) if len(hn) else np.zeros(0, np.int64)
        within = np.empty(len(h), dtype=np.int64)
        within[o] = np.arange(len(h)) - np.repeat(start, np.diff(np.r_[start, len(h)]))
        rank = np.concatenate([prev[0], before + within])
        return rank, np.insert(hs0, np.searchsorted(hs0, hn), hn)
    h = _coincident_hash(w)
    owner = w["owner"]
    if bool((owner[1:] >= owner[:-1]).all()):
        # rows in part order (as _all_rows_sorted and _finish make them): a row's rank is the number of
        # earlier rows with its key. Nearly every key is unique (19 Falcons: 4,066 repeats in 1.8 M rows),
        # so the keys are sorted by value (no index sort) and only the rows of repeated keys are ranked
        hs = np.sort(h)
        rep = hs[1:][hs[1:] == hs[:-1]]
        rank = np.zeros(n, dtype=np.int64)
        if len(rep):
            rep = sorted_unique(rep)
            at = np.minimum(np.searchsorted(rep, h), len(rep) - 1)
            rows = np.flatnonzero(rep[at] == h)
            o = rows[np.argsort(h[rows], kind="stable")]  # by key, then row
            hr = h[o]
            start = np.flatnonzero(np.r_[True, hr[1:] != hr[:-1]])
            rank[o] = np.arange(len(o)) - np.repeat(start, np.diff(np.r_[start, len(o)]))
        return rank, hs
    o = np.lexsort((np.arange(n), owner, h))
    hs = h[o]
    start = np.flatnonzero(np.r_[True, hs[1:] != hs[:-1]])
    size = np.diff(np.r_[start, n])
    rank = room_buffer(n, dtype=np.int64)[:n]  # room for the ranks of appended rows (_appended_ranks)
    rank[o] = np.arange(n) - np.repeat(start, size)
    return rank, hs


def _coincident_rank(w: dict) -> np.ndarray:
    """(N,) int: rank of each connector row among the rows of its type, pointing the same way, with origins
    in the same 0.5 LDU cell (``TOL.connector_position``), by owning part (then row).

    Rows of rank :data:`~bricklayer.constants.COINCIDENT_CONNECTORS` or more are left out of matching
    (:func:`_mated`): a stud holds one anti-stud, so further connectors of the same type at the same
    place belong to parts drawn inside each other (overlaps, reported as collisions), not joints; and
    matching each of N coincident connectors with the N others costs N squared.
    """
    return _coincident_ranks(w)[0]


def _mated(w: dict, query=None, unseated: list | None = None, rank: np.ndarray | None = None,
           type_count: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Mated pairs ``(part_i, conn_i, part_j, conn_j)`` and their JointKind indices (module rules).

    ``rank``: :func:`_coincident_rank` of ``w`` when already known (computed here otherwise).
    ``type_count``: (types,) int rows per type code of the whole build when ``w`` holds only some of its
    rows (:func:`_near_rows`; a type mates only when a type it mates with is present in the build).

    With ``query`` ((N,) bool over rows), only pairs with at least one queried row are returned.
    Stud-family mates of part pairs that are not seated (:func:`_unseated_rows`) are dropped; with
    ``unseated`` (a list), their ``(part_i, part_j, reason, value)`` rows are appended to it.
    """
    pos, axis, code, owner, length = w["pos"], w["axis"], w["code"], w["owner"], w["length"]
    empty = np.zeros((0, 4), dtype=np.int64), np.zeros(0, dtype=np.int64)
    if len(pos) < 2 or (query is not None and not query.any()):
        return empty
    sliding_t, directional_t, ball_t, _, side_t, joint_t = _type_tables()
    mm = mate_matrix()
    # only connectors of a type that mates with something present can pair
    # sorted type codes present (np.unique); ``type_count`` counts them over all rows when ``w`` is a subset
    present = np.flatnonzero(np.bincount(code, minlength=len(mm)) if type_count is None else type_count)
    useful = present[(mm[np.ix_(present, present)] >= 0).any(axis=1)]
    usable = np.isin(code, useful) & ((_coincident_rank(w) if rank is None else rank) < COINCIDENT_CONNECTORS)
    is_slide = sliding_t[code]
    side = side_t[code]
    joint = joint_t[code]
    loose = w.get("loose")
    loose = np.zeros(len(code), dtype=bool) if loose is None else loose
    cands = []
    point = usable & ~is_slide
    # stud-family connectors are searched as far as STUD_SEAT_REACH: a stud that misses its anti-stud by
    # less than that between two parts mated elsewhere unseats them (_unseated_rows)
    for sel, r in ((point & ~joint, max(TOL.connector_position, STUD_SEAT_REACH) + TOL_EPS),
                   (point & joint, TOL.joint_position + TOL_EPS)):
        cands += _point_candidates(pos, np.flatnonzero(sel & side), np.flatnonzero(sel & ~side), r, query)
    if (point & loose).any():  # the stud of a minifigure head and the headgear on it
        cands += _point_candidates(pos, np.flatnonzero(point & loose & side), np.flatnonzero(point & ~joint & ~side),
                                   TOL.joint_position + TOL_EPS, query)
    cands += _slide_candidates(pos, length, np.flatnonzero(usable & is_slide & side),
                               np.flatnonzero(usable & is_slide & ~side), query)
    cands = [c for c in cands if len(c)]
    if not cands:
        return empty
    cand = np.vstack(cands).astype(np.int64)
    u = sorted_unique(cand[:, 0] * len(pos) + cand[:, 1])  # the rows of np.unique(axis=0), in their order
    cand = np.column_stack([u // len(pos), u % len(pos)])
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
    tol = np.where(loose[a] | loose[b], TOL.joint_position,
                   np.where(joint[a] | joint[b], _joint_tolerances()[code[a], code[b]], TOL.connector_position))
    stud_family = ~slide & ~(joint[a] | joint[b]) & ~ball & ~(loose[a] | loose[b])
    axis_ok &= ~stud_family | (dots >= TOL.stud_axis_cos)
    point_ok = ~slide & (dist <= tol + TOL_EPS) & axis_ok
    proj = np.einsum("ij,ij->i", d, axis[a])
    perp = np.sqrt(np.maximum(dist ** 2 - proj ** 2, 0))
    overlap = np.maximum(length[a], _AXLE_MIN_HALF) + np.maximum(length[b], _AXLE_MIN_HALF) - np.abs(proj)
    slide_ok = slide & (np.abs(dots) >= _AXLE_AXIS_COS) & (perp <= TOL.connector_line + TOL_EPS) & (
        overlap >= _AXLE_MIN_OVERLAP - SLIDE_END_EPS)
    good = point_ok | slide_ok
    if stud_family.any():
        turns = w.get("turns")
        turns = np.zeros(len(code), dtype=bool) if turns is None else turns
        bad = _unseated_rows(owner[a], owner[b], stud_family, point_ok, dist, dots, proj, perp, unseated,
                             turns[a] | turns[b])
        good &= ~(stud_family & bad)
    a, b, jk = a[good], b[good], jk[good]
    pairs = np.column_stack([owner[a], w["cidx"][a], owner[b], w["cidx"][b]]).astype(np.int64)
    return pairs, jk.astype(np.int64)


#: A stud of one part that misses an anti-stud of another part mated with it through other studs by
#: more than ``TOL.connector_position`` and at most this much (LDU), in the same plane and with parallel
#: axes, shows the part turned or shifted off its studs: the pair is not seated (:func:`_unseated_rows`).
#: A 2 x 4 brick turned 1.5 degrees about the vertical moves its corner studs 0.83 LDU, a 1 x 8 plate's
#: 1.8 LDU. 3 LDU is half a stud's radius (6 LDU), below the nearest official misses between stud-mated
#: parts (4.0 LDU: side studs of bracket 3956 beside the plates on its top, 12 pairs in 4 of the 67
#: official models) and far below the half-stud offset of a jumper plate (10 LDU) or the distance of a
#: 2 x 2 brick's tube from its four studs (14.1 LDU).
STUD_SEAT_REACH = 3.0


def _unseated_rows(pa, pb, stud, mated, dist, dots, proj, perp, out: list | None, turns=None) -> np.ndarray:
    """(m,) bool over candidate rows: stud-family rows of part pairs that are not seated.

    A part pair mated through stud-family connectors (studs, anti-studs, tubes) is not seated when
    one of its stud-family candidate rows (compatible types, different parts)

    - lies within ``TOL.connector_position`` but with axes tilted beyond ``TOL.stud_axis_cos``
      (reason 0, value: the angle in degrees): a brick tilted across two towers of different
      heights (issue 16 item 6), or
    - has parallel axes, lies in the same plane (``|proj| <= TOL.connector_position``) and misses by
      more than ``TOL.connector_position`` and at most :data:`STUD_SEAT_REACH` (reason 1, value: the
      miss in LDU): a brick turned a little about its stud axis or shifted off its grid.

    Only pairs with at least one stud-family mate (``mated & stud``) or a tilted row are judged, so
    parts that merely lie near each other are not; misses of pairs with a round part (``turns``,
    trait "round": its studs and anti-studs are rims and a centre tube, so it turns on studs) are
    not judged. Their stud mates are dropped by the caller.
    Measured on the 67 official models (``TOL.stud_axis_cos``): no official pair is tilted.
    """
    m = len(pa)
    bad = np.zeros(m, dtype=bool)
    tol = TOL.connector_position + TOL_EPS
    tilted = stud & (dist <= tol) & (dots < TOL.stud_axis_cos) & (dots >= TOL.connector_axis_cos)
    miss = stud & (dots >= TOL.stud_axis_cos) & (np.abs(proj) <= tol) & (perp > tol) & (
        dist <= STUD_SEAT_REACH + TOL_EPS)
    if turns is not None:
        miss &= ~turns
    ok = stud & mated
    if not (tilted.any() or (miss.any() and ok.any())):
        return bad
    n = int(max(pa.max(), pb.max())) + 1
    key = np.minimum(pa, pb).astype(np.int64) * n + np.maximum(pa, pb)
    mated_keys = sorted_unique(key[ok])
    judged = tilted | (miss & np.isin(key, mated_keys))
    if not judged.any():
        return bad
    bad_keys = sorted_unique(key[judged])
    bad = stud & np.isin(key, bad_keys)
    if out is not None:
        rows = np.flatnonzero(judged)
        reason = np.where(tilted[rows], 0.0, 1.0)
        value = np.where(tilted[rows], np.degrees(np.arccos(np.clip(dots[rows], -1, 1))), perp[rows])
        rec = np.column_stack([pa[rows], pb[rows], reason, value]).astype(np.float64)
        lo = np.minimum(rec[:, 0], rec[:, 1])
        rec[:, 1] = np.maximum(rec[:, 0], rec[:, 1])
        rec[:, 0] = lo
        # one row per part pair and reason: the largest value
        o = np.lexsort((-rec[:, 3], rec[:, 2], rec[:, 1], rec[:, 0]))
        rec = rec[o]
        first = np.r_[True, np.any(rec[1:, :3] != rec[:-1, :3], axis=1)]
        out.append(rec[first])
    return bad


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
        ``(part_i, connector_i, part_j, connector_j)``; ``i`` holds the male
        side (stud, axle, pin, bar, polarity ``in``).
    kinds : list of JointKind, length m
    """
    pairs, jk = _mated(w)
    return pairs, [_KINDS[k] for k in jk.tolist()]


def connection_graph(build) -> ConnectionGraph:
    """The (cached) connection graph of a build, updated incrementally after edits.

    Parameters
    ----------
    build : LegoBuild

    Returns
    -------
    ConnectionGraph
        Rebuilt only when the build changed; then only new or moved
        placements are matched (see module notes).
    """
    def make(old=None):
        idx = build._cache.get("validate.connindex")
        if idx is None:
            idx = build._cache["validate.connindex"] = _ConnectionIndex()
        got = idx.append(build, old._n) if old is not None else None
        w, pairs, kinds = got if got is not None else idx.refresh(build)
        wa = world_arrays(build)
        edges = roots = None
        if got is None:
            held = held_in_frame_edges(wa)
            glued = glued_sticker_edges(wa)
        else:  # the held pairs of the old parts stay; those with a new part are added
            held_new = held_in_frame_edges(wa, since=old._n)  # sorted unique, each with a new part
            held_at = _merge_sorted_rows(old.held, held_new) if len(held_new) else np.zeros(0, np.int64)
            held = np.insert(old.held, held_at, held_new, axis=0) if len(held_new) else old.held
            glued_new = glued_sticker_edges(wa, since=old._n)
            glued = np.unique(np.vstack([old.glued, glued_new]), axis=0) if len(glued_new) else old.glued
        if got is not None:
            # append-only: the old graph's part pairs stay; the new mated pairs and held panes add edges
            # touching the new parts, merged into the sorted edges, and join components (no pass over all)
            new = idx.new_pairs
            add = np.column_stack([np.minimum(new[:, 0], new[:, 2]), np.maximum(new[:, 0], new[:, 2])])
            add = np.vstack([add.astype(np.int64), held[held.max(axis=1) >= old._n] if len(held) else held,
                             glued_new])
            edges = old._edges
            if len(add):
                add = np.unique(add, axis=0)
                at = _merge_sorted_rows(edges, add)
                dup = (at > 0) & np.all(edges[np.maximum(at - 1, 0)] == add, axis=1) if len(edges) else \
                    np.zeros(len(add), dtype=bool)
                edges = np.insert(edges, at[~dup], add[~dup], axis=0)
            roots = old._extended_roots(len(wa.placements), add)
        g = ConnectionGraph(wa.placements, pairs, kinds, w, flexible_mask(build), held=held, edges=edges,
                            glued=glued)
        if roots is not None:
            g._roots = roots
            # how this graph's rows extend the old graph's (for the support analysis' append path):
            # (old row count, insertion indices into the old rows, the rows inserted) of pairs and held
            g.appended = {"parts": old._n, "pairs": idx.inserted, "held": (len(old.held), held_at, held_new)}
        g.unseated = idx.unseated()
        if got is not None:
            groups = old.__dict__.get("_groups")
            if groups is not None:  # the old components, joined and grown by the edit (_component_groups)
                g._groups_base = (*groups, old._n)
            # the old rows stay rows of this graph (new parts' rows come after them) and its pairs only grow:
            # the near-miss search keeps its box rows (_box_rows) and the taken rows extend (_taken_rows)
            g._near_miss_rows = old.__dict__.get("_near_miss_rows", {})
            taken = old.__dict__.get("_taken_rows_memo")
            if taken is not None:
                g._taken_rows_base = (taken[2], idx.new_pairs)
        return g

    return build._cached("connections", make, lambda old, k: make(old))


def part_rows(w: dict, part: int) -> np.ndarray:
    """(k,) int: the rows of world connector arrays ``w`` (:attr:`ConnectionGraph.world_connectors`) that
    belong to flattened placement ``part`` (its block from ``w["start"][part]``, owner checked)."""
    start, owner = w["start"], w["owner"]
    end = start[part + 1] if part + 1 < len(start) else len(owner)
    rows = np.arange(start[part], end)
    return rows[owner[rows] == part]


def near_mate_rows(w: dict, ri: np.ndarray, rj: np.ndarray, reach: float, axial_gap: float) -> tuple:
    """Connector pairs of two sets of world connector rows that would mate if drawn a little closer.

    A pair counts when the two types mate (:func:`ldraw_data.connectors.mate_matrix`, the table the
    connection stage uses), their axes are parallel or anti-parallel (``|cos| >= TOL.connector_axis_cos``),
    their origins are less than ``reach`` LDU apart and at most ``axial_gap`` LDU apart along the axis of
    the ``ri`` connector.

    Parameters
    ----------
    w : dict
        World connector arrays (:attr:`ConnectionGraph.world_connectors`: ``pos``, ``axis``, ``code``).
    ri, rj : (a,) and (b,) int
        Rows of ``w`` (e.g. :func:`part_rows` of two parts).
    reach, axial_gap : float
        LDU.

    Returns
    -------
    (m,) int, (m,) int, (m, 3) float
        Positions into ``ri`` and ``rj`` of each pair, and the offset ``pos[rj] - pos[ri]`` (LDU, world frame).
    """
    from ldraw_data.connectors import mate_matrix

    ri, rj = np.asarray(ri, dtype=np.int64), np.asarray(rj, dtype=np.int64)
    if not len(ri) or not len(rj):
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros((0, 3))
    ok = mate_matrix()[w["code"][ri][:, None], w["code"][rj][None, :]] >= 0
    d = w["pos"][rj][None, :, :] - w["pos"][ri][:, None, :]
    dist = np.linalg.norm(d, axis=2)
    along = np.abs(np.einsum("ijk,ik->ij", d, w["axis"][ri]))
    par = np.abs(w["axis"][ri] @ w["axis"][rj].T) >= TOL.connector_axis_cos
    a, b = np.nonzero(ok & par & (dist < reach) & (along <= axial_gap))
    return a, b, d[a, b]


#: Largest miss across the joint axis (LDU) for which a floating part's connector is named as having just
#: missed a free connector of a supported part (:func:`near_miss`): a fifth of a stud pitch (20 LDU), so the
#: connector it names is plainly the one meant (a neighbouring stud lies at least 16 LDU farther off) and
#: the round plate's tube between four studs (14.1 LDU) is not read as a miss. The audit's cases: the
#: binoculars of 21103 drawn 1 LDU off their clip (round 5, F29).
NEAR_MISS_ACROSS_LDU = 4.0
#: Largest miss along the joint axis (LDU) for such a near miss: one plate's height (8 LDU), twice a stud's
#: (4 LDU). The audit's case: the dish of 10179 drawn one stud height above its cone's stud (round 5, F9).
NEAR_MISS_ALONG_LDU = 8.0


@dataclass(frozen=True)
class NearMiss:
    """A connector of a floating part drawn a little off a free connector of a supported part (:func:`near_miss`).

    Attributes
    ----------
    part, other : int
        Flattened placement indices: the floating part and the supported part.
    connector, other_connector : int
        Connector indices on each part (``Connector.index``).
    type, other_type : str
        Their connector types (:func:`ldraw_data.connectors.connector_types`).
    move : tuple of float
        (3,) LDU, world frame (z up): the shift of ``part`` that mates the two (point joints: onto the
        other's origin; sliding joints: onto its axis line, and along it as far as the minimum overlap needs).
    """

    part: int
    connector: int
    other: int
    other_connector: int
    type: str
    other_type: str
    move: tuple

    @property
    def distance(self) -> float:
        """Length of :attr:`move`, LDU."""
        return float(np.linalg.norm(self.move))


def _taken_by(w: dict, pairs: np.ndarray) -> np.ndarray:
    """Rows of world connector arrays ``w`` mated by ``pairs`` ((m, 4) int ``(part_i, connector_i, part_j,
    connector_j)``) in a type that takes one partner only (long axles and bars, the multi-mate types of
    :func:`_type_tables`, take more and are left out)."""
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 4)
    ra, rb = w["start"][pairs[:, 0]] + pairs[:, 1], w["start"][pairs[:, 2]] + pairs[:, 3]
    multi = _type_tables()[3]
    return np.concatenate([ra[~multi[w["code"][ra]]], rb[~multi[w["code"][rb]]]])


def _taken_rows(cg: ConnectionGraph, w: dict) -> np.ndarray:
    """(rows,) bool over the world connector rows ``w`` of ``cg``: the rows already mated by a pair of
    ``cg.pairs`` whose type takes one partner only (long axles and bars, the multi-mate types of
    :func:`_type_tables`, stay free). Made once per state of the graph (its ``pairs`` and ``w``'s
    ``pos`` arrays, which are never changed in place once handed out) and kept on ``cg``: a report asks
    :func:`near_miss` once per floating part listed. A graph of the append path of :func:`connection_graph`
    extends the mask of the graph before the edit by the rows its new pairs take (appended parts add rows
    at the end and pairs, never remove either), so a re-validation does not pass over all pairs."""
    memo = getattr(cg, "_taken_rows_memo", None)
    if memo is not None and memo[0] is cg.pairs and memo[1] is w["pos"]:
        return memo[2]
    base = cg.__dict__.pop("_taken_rows_base", None)  # (mask of the graph before the edit, its new pairs)
    mask = np.zeros(len(w["pos"]), dtype=bool)
    if base is not None and len(base[0]) <= len(mask):
        mask[:len(base[0])] = base[0]
        mask[_taken_by(w, base[1])] = True
    elif len(cg.pairs):
        mask[_taken_by(w, cg.pairs)] = True
    cg._taken_rows_memo = (cg.pairs, w["pos"], mask)
    return mask


def _box_rows(cg: ConnectionGraph, part: int, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Ascending rows of ``cg``'s world connectors whose origin lies in the box ``lo``..``hi`` ((3,) LDU,
    bounds included), for :func:`near_miss` of ``part``. The rows found for a part are kept with the
    row count searched (``cg._near_miss_rows``, handed on by the append path of :func:`connection_graph`,
    whose world rows keep the old rows and add the new parts' rows after them), so a re-validation after
    an append-only edit tests only the rows added since (issue 20: its cost follows the edit)."""
    pos = cg.world_connectors["pos"]
    n = len(pos)
    memo = cg.__dict__.setdefault("_near_miss_rows", {})
    key = (int(part), *map(float, lo), *map(float, hi))
    got = memo.get(key)
    start, kept = (got[0], got[1]) if got is not None and got[0] <= n else (0, np.zeros(0, np.int64))
    p = pos[start:]
    # box test column by column (one boolean pass per axis, no (n, 3) temporaries)
    inside = (p[:, 0] >= lo[0]) & (p[:, 0] <= hi[0])
    for ax in (1, 2):
        inside &= (p[:, ax] >= lo[ax]) & (p[:, ax] <= hi[ax])
    rows = np.concatenate([kept, start + np.flatnonzero(inside)]) if start else np.flatnonzero(inside)
    memo[key] = (n, rows)
    return rows


def near_miss(cg: ConnectionGraph, part: int, partners: np.ndarray, across: float = NEAR_MISS_ACROSS_LDU,
              along: float = NEAR_MISS_ALONG_LDU) -> NearMiss | None:
    """The nearest connector pair by which floating ``part`` just misses a free connector of a partner.

    Candidates are the connection stage's own world connector rows (:attr:`ConnectionGraph.world_connectors`)
    and its compatible-type table (:func:`near_mate_rows`); the partner's connector must be free (not in
    :attr:`ConnectionGraph.occupied`: long axles and bars stay free), axes as a mate needs them (stud-family,
    hole and fixed kinds the same way, the rest either way, ``TOL.connector_axis_cos``), and the two not already
    within the mating tolerance (``TOL.connector_position`` / ``TOL.connector_line``). Point joints miss by
    at most ``across`` LDU across the axis and ``along`` LDU along it; sliding joints (both sliding types)
    by at most ``across`` across the axis, and their extents overlap short of ``AXLE_MIN_OVERLAP`` by at most
    ``along``. Cost: one pass over the build's connector rows (a box test), then the pairs of the few rows
    near ``part``; meant for the few floating parts a report lists. After append-only edits the box test
    covers only the rows added since the part was last asked about (:func:`_box_rows`); the partners and
    the rows taken are tested anew on the rows in the box, so the answer is the one of a fresh search.

    Parameters
    ----------
    cg : ConnectionGraph
    part : int
        Flattened placement index of the floating part.
    partners : (n,) bool
        Parts that may take it (the supported ones).
    across, along : float
        LDU (:data:`NEAR_MISS_ACROSS_LDU`, :data:`NEAR_MISS_ALONG_LDU`).

    Returns
    -------
    NearMiss or None
        The pair with the shortest move, or None when no compatible free connector is that near.
    """
    w = cg.world_connectors
    if w is None or not len(w.get("owner", ())):
        return None
    ri = part_rows(w, part)
    if not len(ri):
        return None
    pos, owner = w["pos"], w["owner"]
    room = across + along + 2 * float(w["length"][ri].max()) + 2 * AXLE_MIN_HALF
    lo, hi = pos[ri].min(0) - room, pos[ri].max(0) + room
    partners = np.asarray(partners, dtype=bool)
    rj = _box_rows(cg, part, lo, hi)
    rj = rj[(owner[rj] != part) & partners[owner[rj]]]
    if not len(rj):
        return None
    if len(cg.pairs):  # the partners' connectors already mated (long axles and bars stay free)
        rj = rj[~_taken_rows(cg, w)[rj]]
    a, b, d = near_mate_rows(w, ri, rj, across + along + room, room)
    if not len(a):
        return None
    ra, rb = ri[a], rj[b]
    sliding_t, directional_t = _type_tables()[:2]
    code, axis, length = w["code"], w["axis"], w["length"]
    dots = np.einsum("ij,ij->i", axis[ra], axis[rb])
    directional = directional_t[code[ra]] | directional_t[code[rb]]
    axis_ok = np.where(directional, dots, np.abs(dots)) >= TOL.connector_axis_cos
    proj = np.einsum("ij,ij->i", d, axis[ra])
    perp = d - proj[:, None] * axis[ra]
    miss_across = np.linalg.norm(perp, axis=1)
    slide = sliding_t[code[ra]] & sliding_t[code[rb]]
    overlap = np.maximum(length[ra], AXLE_MIN_HALF) + np.maximum(length[rb], AXLE_MIN_HALF) - np.abs(proj)
    short = np.maximum(AXLE_MIN_OVERLAP - overlap, 0.0)
    move = np.where(slide[:, None], perp + (np.sign(proj) * short)[:, None] * axis[ra], d)
    near = np.where(slide, short <= along, np.abs(proj) <= along) & (miss_across <= across)
    apart = np.where(slide, (miss_across > TOL.connector_line) | (short > 0),
                     np.linalg.norm(d, axis=1) > TOL.connector_position)
    keep = np.flatnonzero(axis_ok & near & apart)
    if not len(keep):
        return None
    k = int(keep[np.argmin(np.linalg.norm(move[keep], axis=1))])
    names = _type_names()
    return NearMiss(part=int(part), connector=int(w["cidx"][ra[k]]), other=int(owner[rb[k]]),
                    other_connector=int(w["cidx"][rb[k]]), type=names[int(code[ra[k]])],
                    other_type=names[int(code[rb[k]])], move=tuple(float(v) for v in move[k]))
