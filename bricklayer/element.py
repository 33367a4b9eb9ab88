"""Elements (a part in a colour) and the geometry queries shared with placements and builds.

An element's local frame (bricklayer-api.md, "Units and frames"): origin at
the bottom-centre of its alignment box, +X right, +Y back, +Z up, LDU. The
alignment box is derived from the element's grid-aligned stud and anti-stud
connectors (BrickNet labels): its footprint covers the studs/anti-studs
(whole studs), its top is the base of the highest upward studs and its bottom
the lowest upward-facing anti-studs (whole plates). A part without studs on
top (a tile) uses its physical top; a part without anti-studs its physical
bottom; a part without either, its physical bounding box snapped outward to
the grid.
"""

from __future__ import annotations

import logging

log = logging.getLogger(__name__)

__all__ = ["Element", "LegoGeometry", "ElementSpec", "studs_without_anti_studs"]

import math
import os
import re
from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np

from ldraw_data.errors import PartNotFoundError

from .color import LDrawColor, as_color
from .connector import Connector, type_matches
from .constants import PLATE, STUD
from .geometry.ldraw_frame import L2B
from .geometry.types import Box, Direction, Pose, Rotation, Vec3, as_vec3
from .errors import BrickLayerTypeError, BrickLayerValueError

_STUD_UP = ("stud", "open_stud")
#: Geometry reaching more than this (LDU) past the stud/anti-stud footprint widens the alignment box.
_OVERHANG = 6.0
_ANTISTUD = ("antistud", "tube", "post")


@dataclass(frozen=True)
class ElementSpec:
    """Catalog identity of a part.

    Attributes
    ----------
    part_id : str
    name : str
        Catalog title, whitespace collapsed (``"Brick 2 x 4"``).
    category : str
    dimensions : tuple of float
        Numbers parsed from the title (``(2.0, 4.0)``), empty when none.
    known : bool
        False for a part the library does not have (kept from an LDraw file).
    """

    part_id: str
    name: str
    category: str
    dimensions: tuple
    known: bool = True


def normalize_id(part_id: str) -> str:
    """``"3001.DAT"`` -> ``"3001"``: lower case, ``/`` separators, no ``.dat``."""
    s = str(part_id).strip().replace("\\", "/").lower()
    return s[:-4] if s.endswith(".dat") else s


@dataclass(frozen=True)
class _PartGeometry:
    """Per-part derived geometry (cached per part id).

    The frame and boxes are made when the part is first used (from its mesh box and its upward studs and
    anti-studs, kept on disk: :func:`_frame_numbers`); its connectors in the local frame only when first
    asked for (:attr:`connector_defs`, :attr:`connector_frames`, :attr:`connectors`): reading a model
    and drawing it never ask, checking it does (docs/rendering.md, round 6)."""

    to_local: np.ndarray          # (4,4) LDraw part coords -> BL element-local
    from_local: np.ndarray        # its inverse
    bounding_box: Box             # local, LDU
    alignment_box: Box            # local, LDU
    has_mesh: bool
    grid: bool = False            # the alignment box comes from upward studs / anti-studs
    stud_box: Box | None = None   # local, LDU: footprint of the upward studs / anti-studs alone (None: none)
    part_id: str = ""             # normalized id (whose connectors :attr:`connector_defs` gives)
    known: bool = False           # in the library (False: no connectors)

    @cached_property
    def _connector_data(self) -> tuple:
        """(ldraw_data ConnectorDefs of the part, (k,4,4) their frames in the local frame), or ((), None)
        when it has none: BrickNet's and LDCad's labels (``ldraw_data.connectors.part_connectors``), each
        frame turned so its +Z is the connector's axis (LDraw's -Y) in the local frame."""
        if not self.known:
            return (), None
        from ldraw_data.connectors import part_connectors

        defs = part_connectors(self.part_id)
        if not defs:
            return (), None
        r = self.to_local[:3, :3]
        t = self.to_local[:3, 3]
        frames = np.stack([np.asarray(d.frame, dtype=np.float64) for d in defs])
        axis = -frames[:, :3, 1] @ r.T
        roll = frames[:, :3, 0] @ r.T
        roll = roll - axis * np.einsum("ij,ij->i", roll, axis)[:, None]
        n = np.linalg.norm(roll, axis=1)
        bad = n < 1e-9
        roll[~bad] /= n[~bad, None]
        roll[bad] = np.where(np.abs(axis[bad, :1]) < 0.9, [1.0, 0, 0], [0, 1.0, 0])
        m = np.zeros((len(defs), 4, 4))
        m[:, :3, 0] = roll
        m[:, :3, 1] = np.cross(axis, roll)
        m[:, :3, 2] = axis
        m[:, :3, 3] = frames[:, :3, 3] @ r.T + t
        m[:, 3, 3] = 1.0
        return tuple(defs), m

    @property
    def connector_defs(self) -> tuple:
        """ldraw_data ConnectorDefs of the part (empty: none), made on first use."""
        return self._connector_data[0]

    @property
    def connector_frames(self) -> np.ndarray | None:
        """(k,4,4) frames of :attr:`connector_defs` in the local frame, LDU (None: no connector)."""
        return self._connector_data[1]

    @cached_property
    def connectors(self) -> tuple:
        """Local :class:`Connector` objects, made on first use (reading and validating a model never asks:
        a 5,000-part model would make 10,000 of them)."""
        if self.connector_frames is None:
            return ()
        return tuple(Connector(d.type, Pose.from_matrix(mi), d.length, d.joint_kind, d.index)
                     for d, mi in zip(self.connector_defs, self.connector_frames))


def _snap(v: float, step: float, up: bool) -> float:
    q = v / step
    r = round(q)
    if abs(q - r) < 1e-3:
        return r * step
    return (math.ceil(q) if up else math.floor(q)) * step


#: Bump when :func:`_frame_numbers` computes something else or its file layout changes.
PART_FRAME_CACHE_VERSION = 1


def _frame_numbers(part_id: str, known: bool = True) -> dict:
    """The numbers a part's local frame and boxes are made from (LDraw part coordinates, LDU).

    Returns
    -------
    dict
        ``bb``: the mesh's box ``[[x, y, z] min, max]`` (zeros without a mesh); ``has_mesh``;
        ``box``: ``[x0, x1, z0, z1, top, bottom]``, the footprint and the top and bottom of the
        alignment box before its height is rounded to whole plates; ``studs_xz``: ``[x0, x1, z0,
        z1]`` of the upward studs and anti-studs alone, or None when the part has none (then the
        box is the mesh box snapped outward to the grid). The rule is the module's (top: the base of
        the highest upward studs, bottom: the lowest upward-facing anti-studs), from the part's
        connectors (``ldraw_data.connectors.grid_connectors``: BrickNet, LDCad) and its mesh
        (``ldraw_data.mesh.part_mesh``). ``known=False`` (a part the library lacks) gives the empty
        part at once, without searching the library.

    Raises
    ------
    MissingDependencyError
        From ``part_connectors`` when the ``bricknet`` package (connector labels) is not installed.
    """
    from ldraw_data.connectors import grid_connectors

    bb, has_mesh, defs = np.zeros((2, 3)), False, ()
    if known:
        try:
            from ldraw_data.mesh import part_mesh

            mesh = part_mesh(part_id + ".dat")
            bb = np.asarray(mesh.bbox, dtype=np.float64)
            has_mesh = bool(np.all(np.isfinite(bb))) and bool(np.all(bb[1] >= bb[0]))
        except (FileNotFoundError, KeyError, PartNotFoundError):
            bb, has_mesh = np.zeros((2, 3)), False
        if not has_mesh:
            bb = np.zeros((2, 3))
        defs = grid_connectors(part_id)  # on an empty cache folder: without the whole LDCad table
    # Grid connectors in LDraw part coords: upward-facing (axis ~ -Y in LDraw) studs / anti-studs.
    up = [(d.position, d.type) for d in defs if d.axis[1] < -0.99]
    studs = np.array([p for p, t in up if t in _STUD_UP]).reshape(-1, 3)
    antis = np.array([p for p, t in up if t in _ANTISTUD]).reshape(-1, 3)
    grid = np.vstack([studs, antis])
    studs_xz = None
    # LDraw: x right, -y up, z depth. Footprint in x/z, vertical in y.
    if len(grid):
        x0, x1 = grid[:, 0].min() - STUD / 2, grid[:, 0].max() + STUD / 2
        z0, z1 = grid[:, 2].min() - STUD / 2, grid[:, 2].max() + STUD / 2
        studs_xz = [float(v) for v in (x0, x1, z0, z1)]
        # Extend to the physical extent when the part is clearly larger than its studs (a jumper plate's
        # single centre stud, a 2x2 slope's one row): by more than _OVERHANG on a side. Small lips and
        # frames a few LDU wider than their studs (window 3853: 88 LDU for 4 studs) keep the stud grid.
        if has_mesh:
            x0 = _snap(bb[0, 0], STUD / 2, False) if bb[0, 0] < x0 - _OVERHANG else x0
            x1 = _snap(bb[1, 0], STUD / 2, True) if bb[1, 0] > x1 + _OVERHANG else x1
            z0 = _snap(bb[0, 2], STUD / 2, False) if bb[0, 2] < z0 - _OVERHANG else z0
            z1 = _snap(bb[1, 2], STUD / 2, True) if bb[1, 2] > z1 + _OVERHANG else z1
    else:
        x0, x1 = _snap(bb[0, 0], STUD, False), _snap(bb[1, 0], STUD, True)
        z0, z1 = _snap(bb[0, 2], STUD, False), _snap(bb[1, 2], STUD, True)
    top = studs[:, 1].min() if len(studs) else _snap(bb[0, 1], PLATE, False)
    bottom = antis[:, 1].max() if len(antis) else _snap(bb[1, 1], PLATE, True)
    return {"bb": bb.tolist(), "has_mesh": has_mesh, "box": [float(v) for v in (x0, x1, z0, z1, top, bottom)],
            "studs_xz": studs_xz}


_FRAME_KEYS = {"bb", "has_mesh", "box", "studs_xz"}


@lru_cache(maxsize=1)
def _frame_inputs_stamp() -> str:
    """Hash of what :func:`_frame_numbers` is computed from besides the LDraw and LDCad libraries: the
    source of the modules that compute it (this one, ``ldraw_data.connectors``, ``.subparts``,
    ``.segments``, ``.ldcad``, ``.mesh``) and the data files of the ``bricknet`` package (its labels and
    aliases: path, size, modification time). Once per process (``lru_cache``)."""
    import hashlib
    import importlib.util
    from pathlib import Path

    import ldraw_data

    h = hashlib.sha1(f"v{PART_FRAME_CACHE_VERSION}".encode())
    src = Path(ldraw_data.__file__).parent
    for f in (Path(__file__), *(src / n for n in ("connectors.py", "subparts.py", "segments.py", "ldcad.py",
                                                  "mesh.py"))):
        h.update(f.name.encode() + (f.read_bytes() if f.is_file() else b"-"))
    spec = importlib.util.find_spec("bricknet")
    for root in (spec.submodule_search_locations or []) if spec is not None else []:
        for f in sorted((Path(root) / "_data").rglob("*")):
            if f.is_file():
                st = f.stat()
                h.update(f"{f}:{st.st_size}:{st.st_mtime_ns}".encode())
    return h.hexdigest()[:16]


_frame_folders: dict = {}


def _frame_cache_folder():
    """Folder of the part-frame cache (``cache_dir()/part-frames-<key>``), the key hashing the LDraw
    library's fingerprint, the LDCad shadow library's (its folder and fingerprint) and
    :func:`_frame_inputs_stamp`: any change of what the numbers come from gives another folder.
    None when no cache folder can be used (the numbers are then computed every time). Once per process:
    when the folder does not exist yet, superseded ones unused for a day are removed
    (:func:`_prune_frame_folders`); when it does, its modification time is set (it is in use)."""
    try:
        from ldraw_data.library import cache_dir, find_shadow_library, get_library

        lib = get_library()
        shadow = find_shadow_library()
        memo_key = (str(cache_dir()), str(lib.root), lib.fingerprint, str(shadow))
        got = _frame_folders.get(memo_key)
        if got is None:
            import hashlib

            from ldraw_data.ldcad import shadow_fingerprint

            h = hashlib.sha1("|".join((*memo_key[1:], shadow_fingerprint(shadow) if shadow else "-",
                                       _frame_inputs_stamp())).encode())
            got = _frame_folders[memo_key] = cache_dir() / f"part-frames-{h.hexdigest()[:16]}"
            if not got.is_dir():
                _prune_frame_folders(got)
            else:
                try:  # in use: a newer code version's first process leaves it (_prune_frame_folders)
                    os.utime(got)
                except OSError:  # a read-only cache (the build sandbox's): used as it is
                    pass
        return got
    except Exception as exc:  # noqa: BLE001 - no usable cache: compute
        log.debug("part frame cache unavailable: %s", exc)
        return None


#: A superseded part-frame folder is removed once unused this long (seconds): several checkouts of different
#: code (each its own key) may share one cache folder and use their folders at the same time.
_FRAME_FOLDER_KEEP_S = 24 * 3600
_FRAME_FOLDER_NAME = re.compile(r"part-frames-[0-9a-f]{16}")
_FRAME_FILE_NAME = re.compile(r"[^/]+\.json|\.[^/]+\.json\.[^/]*\.tmp")  # a record, or atomic_write's temp file


def _prune_frame_folders(current, *, keep_s: float = _FRAME_FOLDER_KEEP_S, now: float | None = None) -> list:
    """Remove part-frame cache folders superseded by ``current`` (a new code or library version gives a new
    ``part-frames-<key>`` folder, and the old ones piled up: 13 in a developer's cache).

    Only folders beside ``current`` named ``part-frames-`` + 16 hex digits, real folders (not symbolic links),
    other than ``current``, and unused for ``keep_s`` seconds (their modification time, which each process
    using a folder sets once, :func:`_frame_cache_folder`): another checkout of other code may be using its
    own folder in the same cache. In each, only part-frame records (``*.json``) and ``atomic_write``'s temporary
    files are deleted, then the folder if it is empty; anything else keeps the folder. Errors (a file gone, no
    permission) are logged at debug level, never raised: the cache is only an optimisation.

    Parameters
    ----------
    current : Path
        The folder in use now (``cache_dir()/part-frames-<key>``); never touched.
    keep_s : float
        Seconds a superseded folder is kept after its last use (default :data:`_FRAME_FOLDER_KEEP_S`, one day).
    now : float, optional
        The time to measure from (seconds since the epoch); default ``time.time()``.

    Returns
    -------
    list of Path
        The folders removed.
    """
    import time

    removed = []
    now = time.time() if now is None else now
    try:
        siblings = list(current.parent.iterdir())
    except OSError as exc:
        log.debug("part frame folders not pruned: %s", exc)
        return removed
    for d in siblings:
        try:
            if (d.name == current.name or not _FRAME_FOLDER_NAME.fullmatch(d.name) or d.is_symlink()
                    or not d.is_dir() or now - d.stat().st_mtime < keep_s):
                continue
            for f in d.iterdir():
                if _FRAME_FILE_NAME.fullmatch(f.name) and not f.is_symlink() and f.is_file():
                    f.unlink()
            d.rmdir()  # fails (kept) when anything else is in it
            removed.append(d)
        except OSError as exc:
            log.debug("part frame folder %s not removed: %s", d, exc)
    if removed:
        log.info("removed %d superseded part frame cache folder(s) in %s", len(removed), current.parent)
    return removed


def _is_frame_record(got) -> bool:
    """Whether ``got`` (a parsed JSON file) has the layout :func:`_frame_numbers` returns: ``bb`` 2 x 3
    numbers, ``has_mesh`` a bool, ``box`` 6 numbers, ``studs_xz`` 4 numbers or None."""
    def numbers(v, n):
        return isinstance(v, list) and len(v) == n and all(isinstance(x, (int, float)) for x in v)

    return (isinstance(got, dict) and set(got) == _FRAME_KEYS and isinstance(got["has_mesh"], bool)
            and isinstance(got["bb"], list) and len(got["bb"]) == 2 and all(numbers(r, 3) for r in got["bb"])
            and numbers(got["box"], 6) and (got["studs_xz"] is None or numbers(got["studs_xz"], 4)))


def _cached_frame_numbers(part_id: str) -> dict:
    """:func:`_frame_numbers` of a library part, from the disk cache (:func:`_frame_cache_folder`, one JSON
    file a part, written atomically) when there; computing them (the part's connectors and mesh) was
    half of reading a big model (0.36 of 0.62 s of CPU for the 244 distinct parts of the 10179
    Millennium Falcon, docs/rendering.md, round 6). An unreadable file is discarded and rebuilt."""
    import json
    import urllib.parse

    from ldraw_data.fileio import atomic_write, discard_cache_file

    folder = _frame_cache_folder()
    if folder is None:
        return _frame_numbers(part_id, True)
    path = folder / (urllib.parse.quote(part_id, safe="") + ".json")
    try:
        got = json.loads(path.read_bytes())
        if _is_frame_record(got):
            return got
        discard_cache_file(path, "part frame", "not a part frame record")
    except FileNotFoundError:
        pass
    except (OSError, ValueError) as exc:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        discard_cache_file(path, "part frame", exc)
    out = _frame_numbers(part_id, True)
    try:
        atomic_write(path, json.dumps(out))
    except OSError as exc:
        log.debug("could not write part frame cache %s: %s", path, exc)
    return out


@lru_cache(maxsize=None)
def _part_geometry(part_id: str, known: bool = True) -> _PartGeometry:
    """Derived geometry of a part; ``known=False`` (a part the library lacks) gives the empty
    geometry at once, without searching the library for its mesh or connectors."""
    n = _cached_frame_numbers(part_id) if known else _frame_numbers(part_id, False)
    bb = np.asarray(n["bb"], dtype=np.float64)
    has_mesh = bool(n["has_mesh"])
    x0, x1, z0, z1, top, bottom = n["box"]
    studs_xz = n["studs_xz"]
    if bottom <= top:  # degenerate: fall back to physical extent
        top, bottom = _snap(bb[0, 1], PLATE, False), _snap(bb[1, 1], PLATE, True)
        if bottom <= top:
            bottom = top + PLATE
    # round height to whole plates, keep the top (stud base) exact
    height = max(1, round((bottom - top) / PLATE)) * PLATE
    bottom = top + height
    c = np.array([(x0 + x1) / 2, bottom, (z0 + z1) / 2])  # bottom-centre, LDraw part coords
    to_local = L2B.copy()
    to_local[:3, 3] = -(L2B[:3, :3] @ c)
    to_local.flags.writeable = False
    r = to_local[:3, :3]
    t = to_local[:3, 3]

    def box_of(lo, hi):
        corners = np.array([[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])])
        return Box.around(corners @ r.T + t)

    align = box_of((x0, top, z0), (x1, bottom, z1))
    stud_box = None
    if studs_xz is not None:
        sx0, sx1, sz0, sz1 = studs_xz
        stud_box = box_of((sx0, top, sz0), (sx1, bottom, sz1))
    bbox = box_of(bb[0], bb[1]) if has_mesh else align
    from_local = np.linalg.inv(to_local)
    from_local.flags.writeable = False
    return _PartGeometry(to_local, from_local, bbox, align, has_mesh, studs_xz is not None, stud_box,
                         part_id, bool(known))


class LegoGeometry:
    """Queries shared by :class:`Element`, ``Placement`` and ``LegoBuild``.

    Subclasses provide ``bounding_box``, ``alignment_box`` and ``connectors``
    (in their own frame).
    """

    @property
    def alignment_width(self) -> int:
        """Alignment-box width in whole studs."""
        return int(round(self.alignment_box.width / STUD))

    @property
    def alignment_depth(self) -> int:
        """Alignment-box depth in whole studs."""
        return int(round(self.alignment_box.depth / STUD))

    @property
    def alignment_height(self) -> int:
        """Alignment-box height in whole plates (a brick is 3)."""
        return int(round(self.alignment_box.height / PLATE))

    @property
    def width(self) -> float:
        """Physical extent along X, LDU."""
        return self.bounding_box.width

    @property
    def depth(self) -> float:
        """Physical extent along Y, LDU."""
        return self.bounding_box.depth

    @property
    def height(self) -> float:
        """Physical extent along Z, LDU."""
        return self.bounding_box.height

    @property
    def center(self) -> Vec3:
        """Centre of the physical bounding box, LDU."""
        return self.bounding_box.center

    def rotated_footprint(self, rotation: Rotation = Rotation.DEG_0) -> tuple[int, int]:
        """(width, depth) in studs of the alignment box after a quarter turn about Z."""
        w, d = self.alignment_width, self.alignment_depth
        return (d, w) if Rotation(rotation).value in (90, 270) else (w, d)

    def find_connectors(self, connector_type=None, toward=None, *, facing=None, count=None, on=None,
                        free_in=None) -> list[Connector]:
        """Connectors filtered by type and direction, optionally ranked.

        Parameters
        ----------
        connector_type : str or sequence of str, optional
            Type name(s); ``"stud"`` also matches ``open_stud`` and
            ``"antistud"`` also matches ``tube`` (contract query groups).
        toward : (3,) LDU point or Direction, optional
            Rank by distance to this point (nearest first), or by how far the
            connector lies along the direction (furthest first).
        facing : Direction or (3,) vector, optional
            Keep connectors whose axis points within 30 degrees of this direction.
        count : int, optional
            Return at most this many.
        on : Placement, FlatPlacement or str, optional
            Builds only: keep the connectors of this placement of the build (a placement, or its name or
            name path ``"sub/part"``; a sub-build placement keeps those of all its parts). They are free ones,
            in the build's frame: what ``connect(..., to=...)`` takes. ``build.find_connector("stud",
            on=plate, toward=...)`` is the way to ask for an open stud of one part.
        free_in : LegoBuild, optional
            Placements only: keep the connectors still free in this build (the build holding the placement
            at its top level), so a stud already covered by a mated part is not returned. Without it a
            placement lists all its content's connectors, occupied or not (it does not know its build).

        Returns
        -------
        list of Connector
            Only unoccupied connectors for builds (the contract, docs bricklayer-api.md) and, with
            ``free_in``, for a placement.

        Raises
        ------
        TypeError
            ``on`` for an element or placement, ``free_in`` for anything but a placement.
        KeyError
            ``on`` names no placement of the build.
        ValueError
            ``on`` is not in the build, or the placement is not a top-level placement of ``free_in``.
        """
        conns = self._connectors_for(on, free_in)
        if connector_type is not None:
            types = [connector_type] if isinstance(connector_type, str) else list(connector_type)
            conns = [c for c in conns if any(type_matches(t, c.type) for t in types)]
        if facing is not None:
            f = np.asarray(facing.vector if isinstance(facing, Direction) else as_vec3(facing).normalized())
            conns = [c for c in conns if float(np.dot(np.asarray(c.axis), f)) >= math.cos(math.radians(30))]
        if toward is not None:
            if isinstance(toward, Direction):
                d = np.asarray(toward.vector)
                conns.sort(key=lambda c: -float(np.dot(np.asarray(c.position), d)))
            else:
                p = np.asarray(as_vec3(toward))
                conns.sort(key=lambda c: float(np.linalg.norm(np.asarray(c.position) - p)))
        if count is not None:
            conns = conns[:count]
        return conns

    def _connectors_for(self, on, free_in) -> list:
        """The connectors :meth:`find_connectors` filters: :attr:`connectors` here; builds and placements
        override it to honour ``on`` and ``free_in``."""
        if on is not None:
            raise BrickLayerTypeError("on= is for a build: build.find_connectors(..., on=placement)")
        if free_in is not None:
            raise BrickLayerTypeError("free_in= is for a placement: placement.find_connectors(..., free_in=build)")
        return list(self.connectors)

    def find_connector(self, connector_type=None, toward=None, *, facing=None, on=None,
                       free_in=None) -> Connector:
        """Exactly one connector (see :meth:`find_connectors`; ``on`` and ``free_in`` as there).

        With ``toward`` the best-ranked one is returned; without it exactly one
        must match.

        Returns
        -------
        Connector
            In the frame of the object asked (element: its own frame; placement or build: the build's), LDU.

        Raises
        ------
        ValueError
            When none matches (listing the types present), or several match
            and ``toward`` was not given. The second message lists the
            candidates (up to 8): their place in ``find_connectors(...)``,
            :attr:`Connector.index`, type, position (LDU, this object's frame),
            mating axis and role (side of the part, :func:`connector_roles`),
            and says how to pick one: ``toward=`` a point or Direction,
            ``facing=``, or ``find_connectors(...)[i]``. E.g. cone 4589
            ``find_connector("antistud")`` matches its tube (index 3) and its
            anti-stud (index 5).
        """
        found = self.find_connectors(connector_type, toward, facing=facing, on=on, free_in=free_in)
        if not found:
            present = sorted({c.type for c in self._connectors_for(on, free_in)})
            raise BrickLayerValueError(
                f"no free connector of type {connector_type!r}"
                + (f" facing {facing}" if facing is not None else "")
                + f"; free types here: {', '.join(present) or 'none'}"
            )
        if len(found) > 1 and toward is None:
            raise BrickLayerValueError(self._ambiguous_message(found, connector_type, facing))
        return found[0]

    #: How many candidates an ambiguous :meth:`find_connector` message lists.
    _AMBIGUOUS_SHOWN = 8

    def _ambiguous_message(self, found: list, connector_type, facing) -> str:
        """The error of :meth:`find_connector` when several connectors match: each candidate (its place
        ``i`` in ``find_connectors(...)``, ``Connector.index``, type, position in LDU, axis, role) and the
        ways to pick one."""
        from .connector import axis_name, connector_roles

        shown = found[: self._AMBIGUOUS_SHOWN]
        box = self.bounding_box
        # roles against the owner's box; against the candidates' own spread when it is flat (an unknown part)
        roles = connector_roles(shown, box if min(box.size) > 0 else None)
        rows = []
        for i, (c, role) in enumerate(zip(shown, roles)):
            p = c.position
            owner = ""
            if c.path:
                el = c.path[-1].content
                owner = f" on {getattr(el, 'ldraw_id', '?')}"
            rows.append(f"  [{i}] index {c.index}{owner}: {c.type} at ({p.x:g}, {p.y:g}, {p.z:g}) LDU, "
                        f"axis {axis_name(c.axis)}, {role}")
        if len(found) > len(shown):
            rows.append(f"  ... and {len(found) - len(shown)} more")
        query = repr(connector_type) + (f", facing={facing}" if facing is not None else "")
        p0 = shown[0].position
        return (f"{len(found)} connectors match find_connector({query}); pick one:\n" + "\n".join(rows)
                + f"\nPass toward= a point (LDU) near the one you mean (toward=({p0.x:g}, {p0.y:g}, {p0.z:g})"
                " picks [0]) or a Direction (toward=Direction.UP: the highest), facing= its axis direction, "
                "or take find_connectors(...)[i] by the [i] above")


class Element(LegoGeometry):
    """A catalog part in a colour. Immutable and hashable.

    Parameters
    ----------
    ldraw_id : str
        LDraw part id (``"3001"``; ``"3001.dat"`` and any case are accepted).
    color : Color, LDrawColor, int or str, optional
        Colour (default 16, "main colour", inherited when placed in LDraw).

    An id that the LDraw library marks ``~Moved to X`` (``"60470"`` ->
    ``"60470a"``) resolves to the part now in use, following the chain; the
    move is logged (INFO, logger ``bricklayer.element``) and ``ldraw_id``
    is the new id. The stub files draw the new part at identity, so the
    geometry is the same.

    Raises
    ------
    PartNotFoundError
        When the id is not in the catalog; the message names the closest ids.

    Examples
    --------
    >>> Element("3001", Color.RED).alignment_box.size
    Vec3(80, 40, 24)
    """

    __slots__ = ("_id", "_color", "_known")

    def __init__(self, ldraw_id: str, color=16):
        pid = normalize_id(ldraw_id)
        from ldraw_data.catalog import get_catalog

        if not isinstance(ldraw_id, str) or not ldraw_id.strip():
            raise BrickLayerTypeError(f"Element(ldraw_id, color) needs a part id string such as '3001', got {ldraw_id!r}")
        cat = get_catalog()
        if pid not in cat:
            err = PartNotFoundError(pid, cat.suggest(pid.rsplit("/", 1)[-1], 5))
            from ldraw_data.library import get_library

            folder = get_library().folder_of(pid + ".dat")
            if folder is not None:  # a primitive or subpart: geometry, not a part you can buy
                kind = "a primitive (p/)" if folder.endswith("p") else "a subpart (parts/s/)"
                err.args = (f"{pid!r} is {kind}, not a catalog part; builds use only real parts. "
                            + err.args[0].split("; ", 1)[-1],)
            raise err
        spec = cat.get(pid)
        if spec.moved_to:  # a "~Moved to X" stub: use the part now in use, as LDraw editors do
            new = cat.resolve_moved(spec.part_id)
            logging.getLogger(__name__).info("part %s was moved to %s in the LDraw library (%r); using %s",
                                             spec.part_id, new.part_id, spec.name, new.part_id)
            spec = new
        pid = spec.part_id  # the catalog's spelling ("parts/3001.DAT" -> "3001")
        object.__setattr__(self, "_id", pid)
        object.__setattr__(self, "_color", as_color(color))
        object.__setattr__(self, "_known", True)

    @classmethod
    def unchecked(cls, ldraw_id: str, color=16, *, known: bool = False) -> "Element":
        """An element for a part the library may not have (LDraw import keeps such parts).

        It has no connectors and an empty geometry when unknown.
        """
        e = object.__new__(cls)
        object.__setattr__(e, "_id", normalize_id(ldraw_id))
        object.__setattr__(e, "_color", as_color(color))
        object.__setattr__(e, "_known", known)
        return e

    def __setattr__(self, k, v):
        raise AttributeError("Element is immutable; make a new one")

    @property
    def known(self) -> bool:
        """Whether the part is a catalog part of the LDraw library: True for every ``Element(...)``; False for
        an :meth:`unchecked` one the library lacks (an unknown id, a part file the model embeds: a
        sticker, a bent flexible part), which has no connectors, an empty geometry and its file's own
        frame (no LDraw -> local frame change; :mod:`bricklayer.io` writes it back as read)."""
        return self._known

    @property
    def ldraw_id(self) -> str:
        """Part id without ``.dat`` (``"3001"``)."""
        return self._id

    @property
    def color(self) -> LDrawColor:
        """The colour, an LDrawColor (an int): ``element.color == Color.RED`` and ``== 4`` both hold; ``.code`` is 4.

        An :class:`LDrawColor` is an ``int`` subclass holding the LDraw colour code; ``Color`` is an
        ``IntEnum``, so the colour compares equal to the member and to the plain code alike, and hashes as
        the code. It prints as ``Color.RED`` but is not the enum member itself (``is Color.RED`` is False;
        compare with ``==``). ``.code`` and ``.value`` give the int (4), ``.name`` the member name ("RED");
        ``Color.RED.code`` is 4 as well. Colour names (``"red"``) are accepted by ``Element(...)`` but do
        not compare equal: convert with ``bricklayer.color.as_color("red")``.
        """
        return self._color

    def __eq__(self, o) -> bool:
        return isinstance(o, Element) and o._id == self._id and int(o._color) == int(self._color)

    def __hash__(self) -> int:
        return hash((self._id, int(self._color)))

    def __repr__(self) -> str:
        return f"Element({self._id!r}, {self._color!r})"

    def with_color(self, color) -> "Element":
        """The same part in another colour."""
        e = Element.unchecked(self._id, color, known=self._known)
        return e

    @property
    def spec(self) -> ElementSpec:
        """Catalog identity (name, category, dimensions)."""
        from ldraw_data.catalog import get_catalog

        cat = get_catalog()
        if self._id in cat:
            s = cat.get(self._id)
            return ElementSpec(self._id, s.name, s.category, tuple(s.dims), True)
        return ElementSpec(self._id, self._id, "Unknown", (), False)

    @property
    def _geom(self) -> _PartGeometry:
        return _part_geometry(self._id, self._known)

    @property
    def bounding_box(self) -> Box:
        """Physical bounding box in the element's local frame, LDU (studs included)."""
        return self._geom.bounding_box

    @property
    def alignment_box(self) -> Box:
        """Grid box in the local frame: whole studs wide/deep, whole plates high; bottom-centre at the origin."""
        return self._geom.alignment_box

    @property
    def stud_footprint(self) -> Box:
        """Grid box of the upward studs and anti-studs alone (local, LDU); stack() anchors by it (32607, 3127a).

        Whole studs wide and deep, as high as :attr:`alignment_box`. It equals ``alignment_box`` for most
        parts; it is smaller for a part whose body reaches more than 6 LDU past its studs (plate 32607 with
        leaves: alignment box 2 x 2 studs, one stud; crane hook plate 3127a: 4.5 x 1 studs, two studs).
        ``LegoBuild.stack`` anchors such parts by it, so their studs land on the stud cells named;
        ``LegoBuild.add`` anchors the alignment box and only moves the part onto whole stud cells.
        A part without upward studs or anti-studs gives its ``alignment_box``.
        """
        sb = self._geom.stud_box
        return self.alignment_box if sb is None else sb

    @property
    def grid_aligned(self) -> bool:
        """True when the alignment box comes from upward studs or anti-studs (False: snapped bounding box)."""
        return self._geom.grid

    @property
    def connectors(self) -> tuple[Connector, ...]:
        """Typed connectors in the local frame (BrickNet labels; empty when the part has none)."""
        return self._geom.connectors

    @property
    def local_to_ldraw(self) -> np.ndarray:
        """(4, 4) inverse of :attr:`ldraw_to_local`."""
        return self._geom.from_local

    @property
    def ldraw_to_local(self) -> np.ndarray:
        """(4, 4) map from LDraw part coordinates to this element's local frame (LDU)."""
        return self._geom.to_local


def unseated_underside_advice(part: Element) -> str:
    """What holds a part that has no ``antistud`` or ``tube`` connector at all (plate 2654a, its rounded bottom),
    in words for a warning or a finding hint (break-it s26 F6: "stand it on a tile" led back to the start, for a
    part resting on a tile joins nothing).

    Nothing seats such a part from below: it collides with studs and only rests on a smooth top. It is held
    by its own connectors alone, listed here by type and count with the face they are on (from the part's
    connector table, :mod:`ldraw_data.connectors`): for 2654a "4 open_stud and 4 clip, on its top". The advice
    is the way official models use it (the 33 upright 2654 in 10029, 10179, 21321, 6898, 10019 and 10252 carry
    plates such as 3023, 3666 and 3031 on their studs, hanging under them):
    put the next part onto its studs (``stack(..., on=<it>)``), i.e. let it hang under the part above, or
    ``connect()`` one of its connectors.

    Parameters
    ----------
    part : Element

    Returns
    -------
    str
        One sentence, without a final full stop.
    """
    from collections import Counter

    box = part.alignment_box
    counts = Counter(c.type for c in part.connectors)
    if not counts:
        return (f"{part.ldraw_id} has no anti-studs or tubes under it and no connectors at all: nothing seats or "
                "holds it, so use another part")
    zs = [float(c.position[2]) for c in part.connectors]
    face = ("on its top" if min(zs) >= box.center.z else "on its bottom" if max(zs) <= box.center.z
            else "on its body")
    have = " and ".join(f"{n} {t}" for t, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
    stud = next((t for t in ("stud", "open_stud") if t in counts), None)
    how = (f"put the next part onto its studs (stack(..., on=<{part.ldraw_id}>): the part above holds it, as "
           "official models hang it under a plate), or connect() " + ("one of its connectors" if stud is None else
                                                                      f"its {stud} to an anti-stud"))
    return (f"{part.ldraw_id} has no anti-studs or tubes under it, so nothing seats it from below (on studs it "
            "collides; on a tile or other smooth top it only rests and joins nothing); it is held only by its "
            f"own connectors, {have} {face}: {how}")


def studs_without_anti_studs(upper: Element, upper_pose: np.ndarray, lower: Element,
                             lower_pose: np.ndarray, reach: float = 1.0) -> tuple[list, list]:
    """Studs of ``lower`` under the stud footprint of ``upper`` and, of those, the ones none of its anti-studs takes.

    ``upper_pose``, ``lower_pose``: (4, 4) poses of the two parts in one frame (LDU). A stud of ``lower`` (a
    ``stud`` or ``open_stud`` connector) is under ``upper`` when its origin lies inside the x/y extent of
    ``upper``'s stud footprint (:attr:`Element.stud_footprint`: a clip reaching past a clip plate's one stud
    is not counted, it is a body past the footprint) and within ``reach`` LDU (default 1) of its bottom; it
    is taken by an anti-stud when an ``antistud`` or ``tube`` connector of ``upper`` lies within 1 LDU of it
    in x/y (connector types: BrickNet / LDCad labels, :mod:`ldraw_data.connectors`). Every stud under a part without such connectors
    (plate 2654a, its rounded bottom) is bare; so is a stud under a round plate's rim (6177: no anti-stud
    outside its circle, its rim wall 76-80 LDU from its centre).

    Parameters
    ----------
    upper, lower : Element
        The part standing on top and the part under it.
    upper_pose, lower_pose : (4, 4) float
        Their poses (element local frame -> a common frame, LDU).
    reach : float, LDU
        Largest distance between a stud's origin (its base) and ``upper``'s bottom.

    Returns
    -------
    (under, bare) : two lists of (3,) float arrays, LDU, in the poses' frame
    """
    box = upper.stud_footprint.transformed(Pose.from_matrix(upper_pose))
    up_pts = _connector_origins(upper, ("antistud", "tube"))
    low_pts = _connector_origins(lower, ("stud", "open_stud"))
    q = low_pts @ np.asarray(lower_pose, float)[:3, :3].T + np.asarray(lower_pose, float)[:3, 3]
    q = q[(np.abs(q[:, 2] - box.min.z) < reach) & (box.min.x < q[:, 0]) & (q[:, 0] < box.max.x)
          & (box.min.y < q[:, 1]) & (q[:, 1] < box.max.y)]
    studs = list(q)
    if not len(up_pts):
        return studs, list(studs)
    mine = (up_pts @ np.asarray(upper_pose, float)[:3, :3].T + np.asarray(upper_pose, float)[:3, 3])[:, :2]
    return studs, [s for s in studs if np.min(np.linalg.norm(mine - s[:2], axis=1)) > 1.0]


_ORIGINS: dict = {}


def _connector_origins(el: Element, types: tuple) -> np.ndarray:
    """(k, 3) origins (element local frame, LDU) of an element's connectors of the given types, kept per part."""
    key = (el.ldraw_id, types)
    got = _ORIGINS.get(key)
    if got is None:
        got = _ORIGINS[key] = np.array([c.frame.matrix[:3, 3] for c in el.connectors if c.type in types],
                                       dtype=np.float64).reshape(-1, 3)
    return got
