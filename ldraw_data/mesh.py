"""Part meshes: LDraw geometry flattened to triangles, with correct BFC winding.

A part file is flattened recursively: type-1 references into subparts and
primitives are composed with their matrices, type-3 triangles are kept,
type-4 quads are split into two triangles, type-2 lines become edges.
Type-5 optional (conditional) lines are skipped: they only matter for
silhouette drawing.

Winding follows the LDraw BFC language extension (ldraw.org article 415,
"Rendering engine guidelines"): in a certified file the local winding is set
by ``0 BFC CERTIFY CCW|CW`` and switched by ``0 BFC CW`` / ``0 BFC CCW``; a
subfile is inverted when the line before its type-1 line is
``0 BFC INVERTNEXT`` or when its matrix has a negative determinant (both
together cancel). Every triangle of a certified file is output
counter-clockwise, i.e. with the right-hand normal ``(b - a) x (c - a)``
pointing out of the part. Triangles of a file that is not certified are kept
as written (their :attr:`PartMesh.oriented` flag is False) and the whole part
is then marked ``certified=False``; so are the triangles of any subfile below
an uncertified file, because "there is no way to know the intended inversion
state of a subfile when the file's superfile isn't BFC-compliant" (BFC spec,
"Compliance"). ``INVERTNEXT`` counts only in certified files. ``BFC
CLIP/NOCLIP`` is ignored: it tells a renderer whether to cull, not which way a
face points. Colour inheritance follows LDraw spec 1.0.2: a subfile placed
with colour ``c`` has its 16 replaced by ``c`` and its 24 by ``c``'s edge
colour (from ``LDConfig.ldr``, as a direct colour ``0x2RRGGBB``; black when the
library has no LDConfig); 16 and 24 left at the part level mean "the
placement's colour" and "its edge colour".

Meshes are cached three ways: flattened subparts and primitives in memory
(``stud.dat`` is flattened once per process and then composed with one
matrix product per use), finished part meshes in a bounded in-memory LRU, and
finished part meshes on disk, one pack file per part under
``cache_dir()/meshes-<library fingerprint>/``.
"""

from __future__ import annotations

__all__ = [
    "PartMesh",
    "part_mesh",
    "load_meshes",
    "mesh_from_document",
    "world_bounds",
    "triangle_counts",
    "mesh_cache_dir",
    "clear_mesh_cache",
    "MESH_CACHE_VERSION",
]

import difflib
import hashlib
import json
import logging
import urllib.parse
import zlib
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .errors import LDrawLimitError, PartNotFoundError
from .fileio import atomic_write, discard_cache_file
from .io import limits
from .io.parse import DIRECT_COLOR_FLAG, Geometry, LDrawDocument, LDrawFile, Meta, SubfileRef, parse_document
from .progress import report
from .library import LDrawLibrary, cache_dir, get_library, normalize_name
from .errors import LDrawKeyError, LDrawValueError

log = logging.getLogger(__name__)

#: Bump when the geometry rules or the pack format change: old cache files are then ignored.
MESH_CACHE_VERSION = 1

#: Colour 16 ("main colour", inherited) and 24 ("edge colour of the main colour"), LDraw spec 1.0.2.
_MAIN, _EDGE = 16, 24

#: Low-resolution meshes take the ``8/`` primitive for a reference drawn within this many LDU of its
#: origin (the box of its triangles after the reference's matrix): a stud (radius 6), a tube (8) or a
#: Technic hole (6-8) drops to 8 segments; a dish rim or a big ring (radius 20-100) keeps its 16 or 48,
#: whose corners would show.
LOW_RES_MAX_SCALE = 12.0

#: Coarse meshes (``resolution="coarse"``) cut the circles of an ``8/`` primitive drawn within this many LDU
#: of its axis to 4 segments, whatever its length: a tube (outer radius 8), a pin, a Technic hole (6-8), an
#: axle. A 4-segment circle of radius r lies at most r (1 - cos 45 deg) = 0.29 r inside the 8-segment one,
#: 2.3 LDU at r = 8.
COARSE_MAX_SCALE = 8.0

#: The resolutions :func:`load_meshes` offers.
RESOLUTIONS = ("standard", "low", "coarse")

#: Largest total size of finished meshes kept in the in-process LRU (bytes).
_MEMO_BYTES = 512 * 2**20

_MAGIC = b"BWMESH\x00\x01"


# ----------------------------------------------------------------------------------------------
# the public mesh object


def _ro(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


@dataclass(frozen=True, eq=False)
class PartMesh:
    """Flattened geometry of one part, in its own frame.

    Attributes
    ----------
    name : str
        Normalized reference (``"3001.dat"``, ``"10179 - 47996_bended.dat"``).
    triangles : (n, 3, 3) float32, LDU, part frame (LDraw frame, -Y up)
        Counter-clockwise triangles: for certified geometry the right-hand
        normal ``(b - a) x (c - a)`` points out of the part (BFC spec).
    colors : (n,) int32
        Colour code per triangle; 16 means "the placement's colour", 24 "its
        edge colour"; other codes are fixed (LDConfig codes or ``0x2RRGGBB``).
    oriented : (n,) bool
        True where the winding is known (the triangle comes from a certified
        file); False where it is as written in an uncertified file.
    edges : (m, 2, 3) float32, LDU
        Type-2 lines (edge lines drawn by renderers).
    edge_colors : (m,) int32
        Colour code per edge (usually 24).
    bbox : (2, 3) float32, LDU
        ``[min, max]`` of the triangle vertices (NaN when there are no triangles).
    certified : bool
        True when every file in the part's reference tree is BFC-certified
        (so every triangle is outward-facing).
    missing : tuple of str
        Subfile references that could not be resolved (their geometry is absent).

    Notes
    -----
    Arrays are read-only: meshes are shared between callers through the caches.
    """

    name: str
    triangles: np.ndarray
    colors: np.ndarray
    oriented: np.ndarray
    edges: np.ndarray
    edge_colors: np.ndarray
    bbox: np.ndarray
    certified: bool
    missing: tuple[str, ...] = ()

    def __repr__(self) -> str:
        return (f"PartMesh({self.name!r}, {len(self.triangles)} triangles, {len(self.edges)} edges, "
                f"certified={self.certified})")

    @property
    def n_triangles(self) -> int:
        """Number of triangles."""
        return int(self.triangles.shape[0])

    @property
    def is_empty(self) -> bool:
        """True when the part has no triangles (unknown part, or edges only)."""
        return self.triangles.shape[0] == 0

    @property
    def nbytes(self) -> int:
        """Memory held by the arrays (bytes)."""
        return sum(a.nbytes for a in (self.triangles, self.colors, self.oriented, self.edges, self.edge_colors))

    def normals(self) -> np.ndarray:
        """Unit face normals.

        Returns
        -------
        (n, 3) float64
            ``(b - a) x (c - a)`` normalized; zero rows for degenerate triangles.
        """
        t = self.triangles.astype(np.float64)
        n = np.cross(t[:, 1] - t[:, 0], t[:, 2] - t[:, 0])
        length = np.linalg.norm(n, axis=1, keepdims=True)
        return np.divide(n, length, out=np.zeros_like(n), where=length > 0)

    def signed_volume(self) -> float:
        """Signed volume enclosed by the triangles (divergence theorem), LDU^3.

        Returns
        -------
        float
            ``sum(a . (b x c)) / 6``; positive for a closed mesh with outward
            normals. Only meaningful for closed meshes (LDraw parts are often
            not closed: the bottom of a brick is open, for instance).
        """
        t = self.triangles.astype(np.float64)
        return float(np.einsum("ij,ij->i", t[:, 0], np.cross(t[:, 1], t[:, 2])).sum() / 6.0)

    def to_trimesh(self, merge_tolerance: float = 1e-4):
        """This mesh as a :class:`trimesh.Trimesh` (vertices merged).

        Parameters
        ----------
        merge_tolerance : float, LDU
            Vertices closer than this are merged (LDraw files round to 4 decimals).

        Returns
        -------
        trimesh.Trimesh
        """
        import trimesh

        verts = self.triangles.reshape(-1, 3).astype(np.float64)
        keys = np.round(verts / merge_tolerance).astype(np.int64)
        uniq, inverse = np.unique(keys, axis=0, return_inverse=True)
        vertices = np.zeros((len(uniq), 3))
        vertices[inverse.ravel()] = verts
        faces = inverse.reshape(-1, 3)
        return trimesh.Trimesh(vertices=vertices, faces=faces, process=False)


def _bbox(tris: np.ndarray) -> np.ndarray:
    if len(tris) == 0:
        return np.full((2, 3), np.nan, dtype=np.float32)
    pts = tris.reshape(-1, 3)
    return np.stack([pts.min(axis=0), pts.max(axis=0)]).astype(np.float32)


def _empty_mesh(name: str, missing: tuple[str, ...] = ()) -> PartMesh:
    return PartMesh(name, _ro(np.zeros((0, 3, 3), np.float32)), _ro(np.zeros(0, np.int32)),
                    _ro(np.zeros(0, bool)), _ro(np.zeros((0, 2, 3), np.float32)), _ro(np.zeros(0, np.int32)),
                    _ro(np.full((2, 3), np.nan, np.float32)), False, missing)


# ----------------------------------------------------------------------------------------------
# flattening


@dataclass
class _Geom:
    """Flattened geometry of one file, float64, in its frame, already CCW where oriented."""

    tris: np.ndarray  # (n, 3, 3) float64
    tri_colors: np.ndarray  # (n,) int32
    oriented: np.ndarray  # (n,) bool
    edges: np.ndarray  # (m, 2, 3) float64
    edge_colors: np.ndarray  # (m,) int32
    certified: bool
    missing: tuple[str, ...] = ()

    @property
    def nbytes(self) -> int:
        return self.tris.nbytes + self.edges.nbytes


_EMPTY_T = np.zeros((0, 3, 3))
_EMPTY_E = np.zeros((0, 2, 3))
_EMPTY_I = np.zeros(0, np.int32)
_EMPTY_B = np.zeros(0, bool)


def _det3(m: np.ndarray) -> float:
    return (m[0, 0] * (m[1, 1] * m[2, 2] - m[1, 2] * m[2, 1])
            - m[0, 1] * (m[1, 0] * m[2, 2] - m[1, 2] * m[2, 0])
            + m[0, 2] * (m[1, 0] * m[2, 1] - m[1, 1] * m[2, 0]))


class _Resolver:
    """Flattens files of one library, with an optional map of MPD-embedded blocks.

    Library files are memoized per library (shared across calls); embedded
    blocks only for the life of this resolver.
    """

    def __init__(self, library: LDrawLibrary, embedded: Mapping[str, LDrawFile] | None = None,
                 resolution: str = "standard"):
        self.library = library
        self.embedded = {normalize_name(k): v for k, v in (embedded or {}).items()}
        self.low = resolution in ("low", "coarse")
        self.coarse = resolution == "coarse"
        self.memo = _library_memo(library, resolution)
        self._lod: dict[str, str] = {}
        self._kinds: dict[str, str] = {}
        self._standard: _Resolver | None = None
        self.local: dict[str, _Geom | None] = {}
        self.stack: list[str] = []
        self._edge_cache: dict[int, int] = {}

    # colour 24 under a fixed colour: that colour's edge colour, as a direct colour code
    def edge_of(self, code: int) -> int:
        got = self._edge_cache.get(code)
        if got is None:
            got = 0
            try:
                from .colors import get_color_table

                c = get_color_table(self.library).get(code)
                if c is not None:
                    r, g, b = c.edge
                    got = DIRECT_COLOR_FLAG | (r << 16) | (g << 8) | b
            except (OSError, ValueError):
                log.debug("no colour table for %s; edge colour of %d taken as black (0)", self.library, code)
            self._edge_cache[code] = got
        return got

    def lookup(self, key: str, *, library_only: bool = False) -> LDrawFile | None:
        """The parsed file for a key: embedded block first (MPD spec), then the library."""
        if not library_only and key in self.embedded:
            return self.embedded[key]
        path = self.library.find(key)
        if path is None:
            return None
        doc = parse_document(self.library.read(key), source=key)
        for w in doc.warnings:
            log.debug("%s", w)
        return doc.main

    def low_res_key(self, key: str) -> str:
        """The low-resolution primitive for ``key`` (``8/`` folder, LDraw library layout), else ``key``.

        ``4-4cyli.dat`` and ``48/4-4cyli.dat`` both become ``8/4-4cyli.dat``
        (8 segments a circle instead of 16 or 48) when the library has it.
        """
        got = self._lod.get(key)
        if got is None:
            base = key[3:] if key.startswith("48/") else key
            got = key
            if "/" not in base and self.library.find("8/" + base) is not None:
                got = "8/" + base
            elif base != key and self.library.find(base) is not None:
                got = base
            self._lod[key] = got
        return got

    @property
    def standard(self) -> "_Resolver":
        """A standard-resolution resolver of the same library and blocks (for the big circles of a low one)."""
        if self._standard is None:
            self._standard = _Resolver(self.library, self.embedded)
        return self._standard

    def _small(self, key: str, rot: np.ndarray, library_only: bool, limit: float = LOW_RES_MAX_SCALE,
               across: bool = False) -> bool:
        """Whether ``key`` placed with the linear part ``rot`` stays within ``limit`` LDU (default
        :data:`LOW_RES_MAX_SCALE`) of its origin (a stud, a tube, a Technic hole), so its low-resolution
        primitive may stand in. ``across``: only the extent across the primitive's axis counts (its box
        with the Y extent set to 0: the radius of its circles, whatever the length of a tube or an axle)."""
        std = self.standard.geom(key, library_only=library_only)
        if std is None or not (len(std.tris) or len(std.edges)):
            return True
        pts = np.concatenate([std.tris.reshape(-1, 3), std.edges.reshape(-1, 3)])
        lo, hi = pts.min(axis=0), pts.max(axis=0)
        if across:
            lo[1] = hi[1] = 0.0
        box = np.array([[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])])
        return bool(np.abs(box @ rot.T).max() <= limit)

    def geom(self, key: str, *, library_only: bool = False, top: bool = False) -> _Geom | None:
        """Flattened geometry of a referenced file, or None when missing or cyclic."""
        embedded = not library_only and key in self.embedded
        store = self.local if embedded else self.memo
        if key in store:
            return store[key]
        if key in self.stack:
            log.warning("LDraw file %r references itself (via %s); reference skipped",
                        key, " > ".join(self.stack))
            return None
        f = self.lookup(key, library_only=library_only)
        if f is None:
            return None
        if len(self.stack) >= limits.MAX_SUBMODEL_DEPTH:  # the walk is recursive: refuse before Python does
            raise LDrawLimitError(f.source or key, None,
                f"part files are nested more than {limits.MAX_SUBMODEL_DEPTH} levels deep "
                f"({' > '.join(self.stack[:3])} > ... > {key}); the limit is ldraw_data.MAX_SUBMODEL_DEPTH = "
                f"{limits.MAX_SUBMODEL_DEPTH}. Merge the deepest embedded part files into their parents.")
        self.stack.append(key)
        try:
            g = self.flatten(f, library_only=library_only or not embedded)
        finally:
            self.stack.pop()
        # finished top-level parts go to the PartMesh LRU instead; subparts/primitives are memoized
        if embedded or not top:
            store[key] = g
        return g

    def flatten(self, f: LDrawFile, *, library_only: bool) -> _Geom:
        certified = f.bfc_certified is True
        ccw = f.bfc_winding != "CW"
        tris: list[np.ndarray] = []  # type-3 points (3, 3)
        tri_cw: list[bool] = []
        tri_col: list[int] = []
        quads: list[np.ndarray] = []  # type-4 points (4, 3), split in bulk below
        quad_cw: list[bool] = []
        quad_col: list[int] = []
        edges: list[np.ndarray] = []
        edge_col: list[int] = []
        pieces: list[_Geom] = []
        missing: list[str] = []
        all_certified = certified
        n_tris = n_edges = 0  # of the placed subfiles so far: checked before each is copied
        for it in f.items:
            if isinstance(it, Geometry):
                k = it.kind
                if k == 3:
                    tris.append(it.coords)
                    tri_cw.append(not ccw)
                    tri_col.append(it.color)
                elif k == 4:
                    quads.append(it.coords)
                    quad_cw.append(not ccw)
                    quad_col.append(it.color)
                elif k == 2:
                    edges.append(it.coords)
                    edge_col.append(it.color)
                # type 5 (optional lines) skipped: silhouette hints only
            elif isinstance(it, SubfileRef):
                key = it.key
                if self.low and (library_only or key not in self.embedded) and self.low_res_key(key) != key:
                    # a big circle keeps its segments all the way down (48/4-4cyli.dat is four 48/1-4cyli.dat)
                    rot = it.transform[:3, :3]
                    low_key = self.low_res_key(key)
                    kind = self._stud_kind(low_key) if self.coarse else ""
                    if (self.coarse and kind != "outer"
                            and self._small(key, rot, library_only, COARSE_MAX_SCALE, across=True)):
                        child = self.geom(low_key, library_only=library_only)
                        if child is not None:
                            child = self._four_segments(low_key, child, edges=kind == "under")
                    elif self._small(key, rot, library_only):
                        child = self.geom(self.low_res_key(key), library_only=library_only)
                    else:
                        child = self.standard.geom(key, library_only=library_only)
                else:
                    child = self.geom(key, library_only=library_only)
                if child is None:
                    missing.append(it.name)
                    _warn_missing(self.library, f, it)
                    all_certified = False
                    continue
                n_tris += len(child.tris)
                n_edges += len(child.edges)
                if max(n_tris, n_edges) > limits.MAX_PART_TRIANGLES:
                    raise LDrawLimitError(f.source or f.name, it.line,
                        f"{f.name!r} is drawn with more than {limits.MAX_PART_TRIANGLES:,} triangles or edge lines "
                        f"once its subfiles are placed (counted up to {it.name!r}); the limit is "
                        f"ldraw_data.MAX_PART_TRIANGLES = {limits.MAX_PART_TRIANGLES:,} (the largest library part, "
                        "baseplate 782, has 120,084). Check for subfiles placed over and over.")
                all_certified = all_certified and child.certified
                missing.extend(child.missing)
                pieces.append(self.place(child, it, certified))
            elif isinstance(it, Meta) and it.command == "BFC":
                opts = it.args.split()
                if "CW" in opts:
                    ccw = False
                elif "CCW" in opts:
                    ccw = True
        tris = [np.array(tris, dtype=np.float64).reshape(-1, 3, 3)] if tris else []
        if quads:
            # LDraw spec: quads are planar and convex, so (0, 1, 2) + (0, 2, 3) keeps their winding
            q = np.array(quads, dtype=np.float64).reshape(-1, 4, 3)
            tris.extend([q[:, [0, 1, 2]], q[:, [0, 2, 3]]])
            tri_cw = tri_cw + quad_cw + quad_cw
            tri_col = tri_col + quad_col + quad_col
        own_t = np.concatenate(tris) if tris else _EMPTY_T
        own_o = np.full(len(own_t), certified, dtype=bool)
        if certified and len(own_t):
            flip = np.array(tri_cw, dtype=bool)
            if flip.any():
                own_t[flip] = own_t[flip][:, [0, 2, 1]]
        own = _Geom(own_t, np.array(tri_col, np.int32) if tri_col else _EMPTY_I, own_o,
                    np.array(edges, dtype=np.float64).reshape(-1, 2, 3) if edges else _EMPTY_E,
                    np.array(edge_col, np.int32) if edge_col else _EMPTY_I, certified)
        if not pieces:
            own.certified = all_certified
            own.missing = tuple(dict.fromkeys(missing))
            return own
        pieces.insert(0, own)
        return _Geom(
            np.concatenate([p.tris for p in pieces]),
            np.concatenate([p.tri_colors for p in pieces]),
            np.concatenate([p.oriented for p in pieces]),
            np.concatenate([p.edges for p in pieces]),
            np.concatenate([p.edge_colors for p in pieces]),
            all_certified,
            tuple(dict.fromkeys(missing)),
        )

    def _stud_kind(self, key: str) -> str:
        """What kind of stud primitive ``key`` is, by the LDraw library's titles of primitives: ``"under"``
        for the tubes and pins under a part (a title starting ``Stud`` with ``Tube`` or ``Underside`` in it:
        ``stud4.dat`` "Stud Tube Open", ``stud3.dat`` "Stud Tube Solid", ``stud12.dat`` "Stud Underside
        Cross"), ``"outer"`` for the other studs, which a part shows on its outside (``stud.dat``,
        ``stud2.dat`` "Stud Open"), ``""`` for any other file.

        Coarse meshes keep the 8 segments of outer studs (faces and edge lines): studs are on every top and
        side of a model, and their 4-segment facets, lit at 45 degrees instead of 22.5, changed 0.6 % of the
        Millennium Falcon's sheet pixels by more than 24 of 255. Under a part only its open bottom shows
        them, so tubes and pins lose their edge lines' segments too (10 % of the sheet's edge lines,
        0.07 % more pixels changed). Measured in docs/rendering.md, round 7."""
        got = self._kinds.get(key)
        if got is None:
            f = self.lookup(key, library_only=True)
            title = (f.title if f is not None else "").strip()
            got = ""
            if title.startswith("Stud"):
                got = "under" if ("Tube" in title or "Underside" in title) else "outer"
            self._kinds[key] = got
        return got

    def _four_segments(self, key: str, child: _Geom, edges: bool = False) -> _Geom:
        """``child`` (the geometry of the ``8/`` primitive ``key``) with its circles cut to 4 segments, its
        edge lines too with ``edges``, memoized (:func:`four_segment_circles`)."""
        memo_key = f"4-segment circles (edges {edges}) of " + key
        got = self.memo.get(memo_key)
        if got is None:
            got = self.memo[memo_key] = four_segment_circles(child, edges=edges)
        return got

    def place(self, child: _Geom, ref: SubfileRef, parent_certified: bool) -> _Geom:
        """``child`` moved by a type-1 line: matrix, winding inversion and colour inheritance."""
        m = ref.transform
        rot = m[:3, :3]
        shift = m[:3, 3]
        tris = child.tris @ rot.T + shift if len(child.tris) else child.tris
        edges = child.edges @ rot.T + shift if len(child.edges) else child.edges
        # BFC spec: a mirror (det < 0) and INVERTNEXT each invert; INVERTNEXT only counts in a certified file
        invert = (_det3(rot) < 0) != (ref.invert and parent_certified)
        if invert and len(tris):
            o = child.oriented
            if o.all():
                tris = tris[:, [0, 2, 1]]
            elif o.any():
                tris[o] = tris[o][:, [0, 2, 1]]
        tc, ec = child.tri_colors, child.edge_colors
        c = ref.color
        if c != _MAIN:
            tc = self.recolor(tc, c)
            ec = self.recolor(ec, c)
        # BFC spec: below a file that is not certified the intended inversion is unknown
        oriented = child.oriented if parent_certified else np.zeros(len(tris), dtype=bool)
        return _Geom(tris, tc, oriented, edges, ec, child.certified)

    def recolor(self, codes: np.ndarray, c: int) -> np.ndarray:
        """LDraw colour inheritance: 16 takes ``c``, 24 takes ``c``'s edge colour."""
        if not len(codes):
            return codes
        main = codes == _MAIN
        edge = codes == _EDGE
        if not (main.any() or edge.any()):
            return codes
        out = codes.copy()
        out[main] = c
        if c != _EDGE:
            out[edge] = self.edge_of(c)
        return out


_warned: set[tuple[str, str, str]] = set()


def four_segment_circles(g: _Geom, edges: bool = False) -> _Geom:
    """The geometry of an 8-segment LDraw primitive (``p/8/``) with every circle about its Y axis cut to
    4 segments.

    Parameters
    ----------
    g : _Geom
        Flattened geometry in the primitive's own frame (LDraw primitives draw their circles about the Y
        axis, vertices at multiples of 45 degrees in the XZ plane: ``8/4-4cyli.dat``, ``8/stud4.dat``).

    Returns
    -------
    _Geom
        The faces: a vertex at an odd multiple of 45 degrees (radius r > 0, height y) moves to the vertex
        before it on its circle (the even multiple below it, same r and y) when the geometry has a vertex
        there; triangles that become degenerate (a side or twice the area under 1e-6 of the primitive's
        size, resp. its square) are left out. An 8-gon becomes the square of its even vertices; a cylinder,
        disc, cone or ring between circles loses every other facet the same way, so pieces sharing a circle
        (a disc and its cylinder, ``4-4ndis`` around a ``4-4disc``) stay closed. Vertices off such circles (a
        centre, the corners of ``4-4ndis``) do not move. The edge lines are kept as they are (8 segments)
        unless ``edges``, then moved alike and left out when shorter than 1e-6 of the primitive's size:
        every small circle's outline drawn as a square changed 0.6 % of the pixels of the Millennium
        Falcon's sheet by more than 24 of 255, the octagon around the square faces 0.17 %
        (docs/rendering.md, round 7). Colours, orientation and certification are kept.

    Notes
    -----
    Vertex clustering (a standard level-of-detail method) restricted to the circles of LDraw's primitives,
    where it is known what the drop loses: the square lies at most r (1 - cos 45 deg) = 0.29 r inside the
    octagon, under 0.7 pixel when a pixel is 3.5 LDU or more and r <= 8 (``COARSE_MAX_SCALE``).
    """
    pts = np.concatenate([g.tris.reshape(-1, 3), g.edges.reshape(-1, 3)])
    if not len(pts):
        return g
    size = float(np.abs(pts).max()) or 1.0
    tol = 1e-3 * size
    r = np.hypot(pts[:, 0], pts[:, 2])
    turns = np.arctan2(pts[:, 2], pts[:, 0]) / (np.pi / 4)
    k = np.round(turns)
    odd = (r > tol) & (np.abs(turns - k) * r < tol) & (k % 2 != 0)
    if not odd.any():
        return g
    ang = (k - 1) * (np.pi / 4)
    target = np.stack([r * np.cos(ang), pts[:, 1], r * np.sin(ang)], axis=1)
    have = {tuple(v): j for j, v in enumerate(np.round(pts / tol).astype(np.int64).tolist())}
    moved = pts.copy()
    for i in np.flatnonzero(odd):
        j = have.get(tuple(np.round(target[i] / tol).astype(np.int64).tolist()))
        if j is not None:
            moved[i] = pts[j]  # that vertex exactly: the sides it shares with i become degenerate
    tris = moved[:len(g.tris) * 3].reshape(-1, 3, 3)
    e = moved[len(g.tris) * 3:].reshape(-1, 2, 3)
    eps = 1e-6 * size
    side = np.linalg.norm(tris - tris[:, [1, 2, 0]], axis=2).min(axis=1) if len(tris) else np.zeros(0)
    area2 = np.linalg.norm(np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0]), axis=1) if len(tris) \
        else np.zeros(0)
    keep_t = (side > eps) & (area2 > eps * size)
    keep_e = np.linalg.norm(e[:, 1] - e[:, 0], axis=1) > eps if edges and len(e) else np.ones(len(e), bool)
    return _Geom(tris[keep_t], g.tri_colors[keep_t], g.oriented[keep_t], e[keep_e] if edges else g.edges,
                 g.edge_colors[keep_e], g.certified, g.missing)


def _warn_missing(library: LDrawLibrary, f: LDrawFile, ref: SubfileRef) -> None:
    k = (str(library.root), f.key, ref.key)
    if k in _warned:
        return
    _warned.add(k)
    log.warning("%s line %d: subfile %r is not in the LDraw library nor embedded; its geometry is left out "
                "(install a newer library or add the file to parts/ or p/)", f.name, ref.line, ref.name)


_MEMOS: dict[tuple[str, str, str], dict[str, _Geom | None]] = {}


def _library_memo(library: LDrawLibrary, resolution: str = "standard") -> dict[str, _Geom | None]:
    key = (str(library.root), library.fingerprint, resolution)
    memo = _MEMOS.get(key)
    if memo is None:
        memo = _MEMOS[key] = {}
    return memo


def _finish(name: str, g: _Geom) -> PartMesh:
    tris = g.tris.astype(np.float32)
    return PartMesh(
        name,
        _ro(tris),
        _ro(np.array(g.tri_colors, dtype=np.int32)),
        _ro(np.array(g.oriented, dtype=bool)),
        _ro(g.edges.astype(np.float32)),
        _ro(np.array(g.edge_colors, dtype=np.int32)),
        _ro(_bbox(tris)),
        bool(g.certified),
        tuple(g.missing),
    )


# ----------------------------------------------------------------------------------------------
# in-memory LRU of finished meshes and the disk cache


class _MeshLRU:
    def __init__(self, max_bytes: int):
        self.max_bytes = max_bytes
        self.items: OrderedDict[tuple[str, str], PartMesh] = OrderedDict()
        self.size = 0

    def get(self, key):
        m = self.items.get(key)
        if m is not None:
            self.items.move_to_end(key)
        return m

    def put(self, key, mesh: PartMesh) -> None:
        old = self.items.pop(key, None)
        if old is not None:
            self.size -= old.nbytes
        self.items[key] = mesh
        self.size += mesh.nbytes
        while self.size > self.max_bytes and len(self.items) > 1:
            _k, m = self.items.popitem(last=False)
            self.size -= m.nbytes

    def clear(self) -> None:
        self.items.clear()
        self.size = 0


_LRU = _MeshLRU(_MEMO_BYTES)


def clear_mesh_cache(*, disk: bool = False, library: LDrawLibrary | None = None) -> None:
    """Forget meshes cached in this process (and optionally on disk).

    Parameters
    ----------
    disk : bool
        Also delete the pack files of ``library`` under :func:`mesh_cache_dir`
        (and those of its low-resolution meshes beside it).
    library : LDrawLibrary, optional
        Library whose disk cache to delete (default :func:`~ldraw_data.library.get_library`).
    """
    _LRU.clear()
    _MEMOS.clear()
    _warned.clear()
    if disk:
        import shutil

        folder = mesh_cache_dir(library or get_library())
        shutil.rmtree(folder, ignore_errors=True)
        for resolution in RESOLUTIONS[1:]:  # load_meshes(resolution="low" / "coarse")
            shutil.rmtree(folder.with_name(f"{folder.name}-{resolution}"), ignore_errors=True)


def mesh_cache_dir(library: LDrawLibrary | None = None) -> Path:
    """Folder of the on-disk mesh cache of a library.

    Returns
    -------
    Path
        ``cache_dir()/meshes-<library.fingerprint>`` (not created here).
    """
    lib = library or get_library()
    return cache_dir() / f"meshes-{lib.fingerprint}"


def _cache_path(folder: Path, key: str) -> Path:
    return folder / (urllib.parse.quote(key, safe="") + ".mesh")


_ARRAYS = (("triangles", np.float32, (-1, 3, 3)), ("colors", np.int32, (-1,)), ("oriented", np.bool_, (-1,)),
           ("edges", np.float32, (-1, 2, 3)), ("edge_colors", np.int32, (-1,)), ("bbox", np.float32, (2, 3)))


def _write_pack(path: Path, mesh: PartMesh) -> None:
    """Write one mesh as a pack file, atomically (temp file then ``os.replace``).

    Layout: 8-byte magic, 4-byte little-endian header length, JSON header
    (version, name, certified, missing, array lengths), then the
    zlib-compressed arrays back to back in :data:`_ARRAYS` order.
    """
    arrays = [np.ascontiguousarray(getattr(mesh, n), dtype=dt) for n, dt, _s in _ARRAYS]
    header = json.dumps({
        "version": MESH_CACHE_VERSION, "name": mesh.name, "certified": mesh.certified,
        "missing": list(mesh.missing), "sizes": [a.size for a in arrays],
    }).encode()
    payload = zlib.compress(b"".join(a.tobytes() for a in arrays), 1)
    atomic_write(path, _MAGIC + len(header).to_bytes(4, "little") + header + payload)


def _read_pack(path: Path) -> PartMesh | None:
    """The mesh of a pack file; None when missing, of another version, or unreadable (then discarded)."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    try:
        if data[:8] != _MAGIC:
            raise LDrawValueError("bad magic")
        hlen = int.from_bytes(data[8:12], "little")
        header = json.loads(data[12:12 + hlen])
        if header.get("version") != MESH_CACHE_VERSION:
            return None
        raw = zlib.decompress(data[12 + hlen:])
        out = {}
        off = 0
        sizes = [int(n) for n in header["sizes"]]
        if len(sizes) != len(_ARRAYS) or min(sizes) < 0:
            raise LDrawValueError(f"array sizes {sizes}")
        for (n, dt, shape), size in zip(_ARRAYS, sizes):
            nbytes = size * np.dtype(dt).itemsize
            out[n] = np.frombuffer(raw, dtype=dt, count=size, offset=off).reshape(shape)
            off += nbytes
        if off != len(raw):
            raise LDrawValueError(f"{len(raw)} bytes of arrays, the header says {off}")
        return PartMesh(str(header["name"]), out["triangles"], out["colors"], out["oriented"], out["edges"],
                        out["edge_colors"], out["bbox"], bool(header["certified"]), tuple(header["missing"]))
    except (ValueError, KeyError, TypeError, AttributeError, zlib.error) as exc:  # JSONDecodeError is a ValueError
        discard_cache_file(path, "mesh", exc)
        return None


# ----------------------------------------------------------------------------------------------
# public loading functions


def _resolve_key(name: str, library: LDrawLibrary, embedded: Mapping[str, LDrawFile]) -> str | None:
    key = normalize_name(name)
    for cand in (key, key + ".dat") if not key.endswith((".dat", ".ldr", ".mpd")) else (key,):
        if cand in embedded or library.find(cand) is not None:
            return cand
    return None


def _not_found(name: str, library: LDrawLibrary) -> PartNotFoundError:
    stem = normalize_name(name).removesuffix(".dat")
    names = [k.removesuffix(".dat") for k, _p in library.part_files()]
    return PartNotFoundError(name, difflib.get_close_matches(stem, names, n=3, cutoff=0.75))


def _embedded_map(embedded) -> dict[str, LDrawFile]:
    if embedded is None:
        return {}
    if isinstance(embedded, LDrawDocument):
        return embedded.blocks_by_key
    return {normalize_name(k): v for k, v in embedded.items()}


def _embedded_content_key(key: str, embedded: Mapping[str, LDrawFile]) -> str:
    """Cache name of the mesh of embedded block ``key``: a hash of everything its mesh is made from
    outside the library, i.e. the block and every embedded block it reaches through its references
    (embedded blocks win over library files, MPD spec), each with its name, BFC statement and lines
    (type, colour, numbers, names) in order. Library files it reaches are covered by the cache folder's
    library fingerprint (:func:`mesh_cache_dir`), the resolution by the folder too.

    Two models that embed the same bent hose or sticker (``0 FILE 10179 - 47996_bended.dat``) share
    its mesh; a block changed in any line (or a block it uses) gets a new name, so a stale mesh is
    never read. Returns ``"embedded-<40 hex>"``.
    """
    h = hashlib.sha1()
    todo, seen = [key], set()
    while todo:
        k = todo.pop()
        if k in seen or k not in embedded:
            continue
        seen.add(k)
        f = embedded[k]
        h.update(f"\0FILE {k}\0{f.bfc_certified}\0{f.bfc_winding}\0".encode())
        for it in f.items:
            if isinstance(it, Geometry):
                h.update(f"{it.kind} {it.color} {it.coords!r}\n".encode())
            elif isinstance(it, SubfileRef):
                h.update(f"1 {it.color} {it.invert} {it.name!r} ".encode())
                h.update(np.ascontiguousarray(it.transform, dtype=np.float64).tobytes())
                h.update(b"\n")
                todo.append(it.key)
            elif isinstance(it, Meta):
                h.update(f"0 {it.command} {it.args}\n".encode())
    return "embedded-" + h.hexdigest()


def _load_one(key: str, library: LDrawLibrary, folder: Path | None, resolver_box: list,
              embedded: dict[str, LDrawFile], use_disk: bool, resolution: str = "standard") -> PartMesh | None:
    """The mesh of ``key``: from the process memo, else the pack in ``folder`` (read with ``use_disk``),
    else flattened (and then written to both). An embedded block's pack is named by its content
    (:func:`_embedded_content_key`), a library part's by its name."""
    is_embedded = key in embedded
    path = None
    if resolution != "standard" and folder is not None:
        folder = folder.with_name(f"{folder.name}-{resolution}")
    cache_key = _embedded_content_key(key, embedded) if is_embedded else key
    memo_key = (folder.name if folder else f"{library.root}-{resolution}", cache_key)
    mesh = _LRU.get(memo_key)
    if mesh is not None:
        return mesh
    if use_disk and folder is not None:
        path = _cache_path(folder, cache_key)
        mesh = _read_pack(path)
        if mesh is not None and mesh.name == key:
            _LRU.put(memo_key, mesh)
            return mesh
    if not resolver_box:
        resolver_box.append(_Resolver(library, embedded, resolution))
    res: _Resolver = resolver_box[0]
    g = res.geom(key, top=True)
    if g is None:
        return None
    mesh = _finish(key, g)
    if path is not None:
        try:
            _write_pack(path, mesh)
        except OSError as exc:
            log.warning("could not write mesh cache %s: %s", path, exc)
    _LRU.put(memo_key, mesh)
    return mesh


def part_mesh(
    name: str,
    library: LDrawLibrary | None = None,
    *,
    embedded: Mapping[str, LDrawFile] | LDrawDocument | None = None,
    use_disk_cache: bool = True,
) -> PartMesh:
    """Flattened, BFC-oriented triangle mesh of one part.

    Parameters
    ----------
    name : str
        Part reference: ``"3001.dat"``, ``"3001"``, ``"S\\3001s01.DAT"``
        (case, separator and a missing ``.dat`` do not matter).
    library : LDrawLibrary, optional
        Defaults to :func:`~ldraw_data.library.get_library`.
    embedded : dict of str to LDrawFile, or LDrawDocument, optional
        MPD blocks searched before the library (MPD spec: embedded files win),
        for stickers and bent parts embedded in a model
        (``0 FILE 10179 - 47996_bended.dat``). Meshes that come from embedded
        blocks are disk-cached under a hash of their content (the block and the
        embedded blocks it uses), so an edited block is meshed again.
    use_disk_cache : bool
        Read and write the pack file under :func:`mesh_cache_dir`.

    Returns
    -------
    PartMesh
        Triangles in the part frame (LDraw frame, -Y up, LDU), CCW.

    Raises
    ------
    PartNotFoundError
        When ``name`` is neither embedded nor in the library (with close ids).
    LibraryNotFoundError
        When no library is given and none is installed.

    Notes
    -----
    Missing subfiles are logged (warning) and left out; the mesh records
    them in :attr:`PartMesh.missing` and is not certified.

    Examples
    --------
    >>> m = part_mesh("3001.dat")                       # doctest: +SKIP
    >>> m.bbox.tolist()                                 # doctest: +SKIP
    [[-40.0, -4.0, -20.0], [40.0, 24.0, 20.0]]
    """
    lib = library if library is not None else get_library()
    emb = _embedded_map(embedded)
    key = _resolve_key(name, lib, emb)
    if key is None:
        raise _not_found(name, lib)
    folder = mesh_cache_dir(lib)
    mesh = _load_one(key, lib, folder, [], emb, use_disk_cache)
    if mesh is None:  # found by find() but cyclic: treated as missing
        raise _not_found(name, lib)
    return mesh


def mesh_from_document(
    block: LDrawFile | str, document: LDrawDocument, library: LDrawLibrary | None = None
) -> PartMesh:
    """Mesh of an MPD-embedded part, resolving its references in the document first.

    Parameters
    ----------
    block : LDrawFile or str
        The embedded block (or its name, e.g. ``"10179 - 47996_bended.dat"``).
    document : LDrawDocument
        The MPD it lives in.
    library : LDrawLibrary, optional

    Returns
    -------
    PartMesh
        Disk-cached under a hash of the block's content and the embedded blocks it uses.

    Raises
    ------
    PartNotFoundError
        When ``block`` is a name that is neither a block of ``document`` nor a library file.
    """
    name = block.name if isinstance(block, LDrawFile) else block
    emb = _embedded_map(document)
    if isinstance(block, LDrawFile):
        emb[block.key] = block
    return part_mesh(name, library, embedded=emb)


def load_meshes(
    names: Iterable[str],
    library: LDrawLibrary | None = None,
    *,
    embedded: Mapping[str, LDrawFile] | LDrawDocument | None = None,
    on_missing: str = "warn",
    use_disk_cache: bool = True,
    resolution: str = "standard",
) -> dict[str, PartMesh]:
    """Meshes of many parts (a whole model), each distinct part loaded once.

    Parameters
    ----------
    names : iterable of str
        Part references, repeats allowed (e.g. ``[p.name for p in model.parts]``).
    library : LDrawLibrary, optional
    embedded : dict of str to LDrawFile, or LDrawDocument, optional
        The model's MPD document (or its blocks): embedded parts are found
        there first (see :func:`part_mesh`).
    on_missing : {"warn", "raise", "skip"}
        For a name found nowhere: ``"warn"`` logs a warning and maps it to an
        empty mesh (no triangles, NaN bbox); ``"raise"`` raises
        :class:`PartNotFoundError`; ``"skip"`` leaves it out of the result.
    use_disk_cache : bool
    resolution : {"standard", "low", "coarse"}
        ``"low"`` builds the meshes from the library's low-resolution
        primitives (``p/8/``: 8 segments a circle) wherever one exists, also
        for references to the standard (16) and high-resolution (``p/48/``)
        ones, for primitives drawn within :data:`LOW_RES_MAX_SCALE` LDU:
        about half the triangles and edges of studs, tubes and holes.
        For pictures of big models where a stud is a few pixels (LDView's
        "low quality studs" does the same for studs); never for geometry
        checks. Cached apart (``mesh_cache_dir()-low``). ``"coarse"`` is ``"low"`` with the faces of
        the primitives whose circles have a radius of at most :data:`COARSE_MAX_SCALE` LDU across their
        axis cut again to 4 segments (:func:`four_segment_circles`), the edge lines too for the tubes and
        pins under a part; outer studs keep 8 (:meth:`_Resolver._stud_kind`). For pictures where a pixel is
        3.5 LDU or more (``bricklayer.render.geometry.COARSE_ABOVE_LDU_PER_PIXEL``); cached in
        ``mesh_cache_dir()-coarse``.

    Returns
    -------
    dict of str to PartMesh
        Keyed by every distinct name as given (``"3001.DAT"`` and
        ``"3001.dat"`` both appear, sharing one mesh).

    Raises
    ------
    PartNotFoundError
        With ``on_missing="raise"``.
    ValueError
        For an unknown ``on_missing`` or ``resolution``.
    """
    if on_missing not in ("warn", "raise", "skip"):
        raise LDrawValueError(f"on_missing must be 'warn', 'raise' or 'skip', not {on_missing!r}")
    if resolution not in RESOLUTIONS:
        raise LDrawValueError(f"resolution must be 'standard', 'low' or 'coarse', not {resolution!r}")
    lib = library if library is not None else get_library()
    emb = _embedded_map(embedded)
    folder = mesh_cache_dir(lib)
    by_key: dict[str, PartMesh | None] = {}
    out: dict[str, PartMesh] = {}
    resolver_box: list = []  # one resolver (and its embedded-block memo) for the whole call
    distinct = list(dict.fromkeys(names))
    for n_done, name in enumerate(distinct):
        if n_done % 16 == 0:  # a cold cache meshes a few parts a second: say how far it is
            report("part meshes", n_done, len(distinct))
        key = _resolve_key(name, lib, emb)
        if key is None:
            if on_missing == "raise":
                raise _not_found(name, lib)
            if on_missing == "warn":
                log.warning("part %r is neither embedded nor in the LDraw library; it gets an empty mesh", name)
                out[name] = _empty_mesh(normalize_name(name), (name,))
            continue
        if key not in by_key:
            by_key[key] = _load_one(key, lib, folder, resolver_box, emb, use_disk_cache, resolution)
        mesh = by_key[key]
        if mesh is None:
            if on_missing == "raise":
                raise _not_found(name, lib)
            if on_missing == "warn":
                out[name] = _empty_mesh(key, (name,))
            continue
        out[name] = mesh
    report("part meshes", len(distinct), len(distinct))
    return out


def _pack_triangle_count(path: Path) -> int | None:
    """The triangle count a pack file's header gives (its first array's length / 9), None when the file
    is missing, of another version or not a pack (:func:`_read_pack` then decides what to do with it)."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(12)
            if len(head) != 12 or head[:8] != _MAGIC:
                return None
            header = json.loads(fh.read(int.from_bytes(head[8:12], "little")))
        if header.get("version") != MESH_CACHE_VERSION:
            return None
        size = int(header["sizes"][0])
        return size // 9 if size >= 0 and size % 9 == 0 else None
    except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError):
        return None


def triangle_counts(
    names: Iterable[str],
    library: LDrawLibrary | None = None,
    *,
    embedded: Mapping[str, LDrawFile] | LDrawDocument | None = None,
    resolution: str = "standard",
) -> dict[str, int]:
    """Triangle count of each part's mesh (:attr:`PartMesh.n_triangles`), without loading the meshes
    that are in the disk cache: the count is read from the pack file's header.

    Parameters
    ----------
    names : iterable of str
        Part references, repeats allowed.
    library, embedded, resolution
        As :func:`load_meshes`.

    Returns
    -------
    dict of str to int
        By every distinct name as given; 0 for a name found nowhere (logged as :func:`load_meshes`
        with ``on_missing="warn"`` does). The same numbers as ``load_meshes(names)[n].n_triangles``:
        a pack's header records its arrays' lengths (``_write_pack``), and a part without a
        pack is loaded (and so cached).

    Raises
    ------
    ValueError
        For an unknown ``resolution``.
    """
    if resolution not in RESOLUTIONS:
        raise LDrawValueError(f"resolution must be 'standard', 'low' or 'coarse', not {resolution!r}")
    lib = library if library is not None else get_library()
    emb = _embedded_map(embedded)
    folder = mesh_cache_dir(lib)
    if resolution != "standard":
        folder = folder.with_name(f"{folder.name}-{resolution}")
    out: dict[str, int] = {}
    rest: list[str] = []
    for name in dict.fromkeys(names):
        key = _resolve_key(name, lib, emb)
        if key is None:
            rest.append(name)
            continue
        cache_key = _embedded_content_key(key, emb) if key in emb else key
        mesh = _LRU.get((folder.name, cache_key))
        n = mesh.n_triangles if mesh is not None else _pack_triangle_count(_cache_path(folder, cache_key))
        if n is None:
            rest.append(name)
        else:
            out[name] = n
    if rest:
        for name, mesh in load_meshes(rest, lib, embedded=emb, on_missing="warn", resolution=resolution).items():
            out[name] = mesh.n_triangles
    return out


def world_bounds(
    meshes: Mapping[str, PartMesh], part_names: Iterable[str], transforms: np.ndarray
) -> np.ndarray:
    """World axis-aligned bounding boxes of many placements, in bulk.

    Parameters
    ----------
    meshes : dict of str to PartMesh
        As returned by :func:`load_meshes`.
    part_names : sequence of str, length n
        Key into ``meshes`` of each placement.
    transforms : (n, 4, 4) float, LDU, LDraw frame
        World transform of each placement.

    Returns
    -------
    (n, 2, 3) float64, LDU
        ``[min, max]`` of the 8 transformed corners of each part's bbox
        (a box that contains the transformed part; exact for axis-aligned
        rotations). NaN rows for parts with an empty mesh.

    Raises
    ------
    KeyError
        When a name has no mesh (load it with :func:`load_meshes` first).
    ValueError
        When ``transforms`` does not have shape (n, 4, 4).
    """
    names = list(part_names)
    t = np.asarray(transforms, dtype=np.float64)
    if t.shape != (len(names), 4, 4):
        raise LDrawValueError(f"transforms must have shape ({len(names)}, 4, 4) for {len(names)} names, got {t.shape}")
    if not names:
        return np.zeros((0, 2, 3))
    uniq: dict[str, int] = {}
    idx = np.fromiter((uniq.setdefault(n, len(uniq)) for n in names), dtype=np.intp, count=len(names))
    boxes = []
    for n in uniq:
        m = meshes.get(n)
        if m is None:
            raise LDrawKeyError(f"no mesh for part {n!r}; load it with load_meshes() first")
        boxes.append(m.bbox)
    boxes = np.asarray(boxes, dtype=np.float64)[idx]  # (n, 2, 3)
    # 8 corners: choose min or max per axis
    sel = np.array([[(i >> a) & 1 for a in range(3)] for i in range(8)])  # (8, 3)
    corners = np.where(sel[None, :, :] == 1, boxes[:, 1:2, :], boxes[:, 0:1, :])  # (n, 8, 3)
    world = np.einsum("nij,nkj->nki", t[:, :3, :3], corners) + t[:, None, :3, 3]
    return np.stack([world.min(axis=1), world.max(axis=1)], axis=1)
