"""The adhesive back of a flat sticker, read from its mesh: the ``sticker_back`` connector.

A sticker attaches by its back face, glued flat on a part's surface (CAD tools such as BrickLink
Studio snap stickers onto faces); no stud, hole or axle is involved. This module finds that face on
the sticker's drawn geometry and describes it as one connector (module :mod:`ldraw_data.connectors`,
source ``"sticker"``, type ``sticker_back``).

The LDraw sticker standard (LDraw.org "Official Library Specification for Sticker Parts", rev. 5.0,
2012, and the "Sticker Box Standard", 2025) draws a sticker as a box 0.25 LDU thin (``box5-12.dat``
scaled 0.25, or a ``stickerback*.dat`` sub-part), parallel to the X-Z plane, its top face at y = -0.25
carrying the printed pattern in fixed colours, the rest in colour 16; so its back is the face at y = 0,
and the part frame's origin lies on it. Nothing here trusts that layout blindly: from the mesh
(:func:`ldraw_data.mesh.part_mesh`, part frame, LDU)

* the sticker is a *flat slab* when the smallest extent of its bounding box is at most
  :data:`SLAB_MAX_THICKNESS` and the other two are larger (formed stickers, drawn bent onto one part,
  "(Formed)" in their titles, are not slabs and get no connector);
* its *front* is the slab face (of the two faces across the thin axis) on which more fixed-colour
  (not 16) triangles lie, the printed pattern; its *back* is the other one. A sticker printed in colour
  16 only (none found in the library) takes the face through the part's origin, the standard's back.

Checked on the library (2,200 files titled "Sticker ..."): 1,957 are slabs 0.25-1 LDU thin, every one
thin along Y with its print on the y = -0.25 face, back at y = 0; 243 are formed. Checked on official
models where stickers are placed: 1180 Space Port Moon Buggy's logo sticker and 10252's rear-window
stickers touch their parts with this back face (the face at y = 0 lies on the part's surface;
``tests/ldraw_data/test_stickers.py``).

Connector frame (convention of :class:`ldraw_data.connectors.ConnectorDef`: the mating axis is the
frame's -Y column): origin at the centre of the back face (the middle of the bounding rectangle of the
triangles lying in the back plane), axis the back face's outward normal, which is the way the sticker
travels onto the surface it is stuck to (as an anti-stud's axis points the way its stud travels); for a
standard sticker the axis is ``(0, 1, 0)`` (LDraw down) and the origin ``(cx, 0, cz)``. The frame's X
column (roll reference) is the first part axis across the thin one (X for a standard sticker).
"""

from __future__ import annotations

__all__ = ["SLAB_MAX_THICKNESS", "StickerBack", "sticker_back", "library_sticker_back", "sticker_back_row",
           "sticker_size_ldu", "build_sticker_table"]

import hashlib
import json
import logging
import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

log = logging.getLogger(__name__)

#: Thickest slab (LDU, smallest bounding-box extent) whose back face is taken as a sticker back. LDraw
#: stickers are 0.25 LDU thin (sticker standard); a few older ones are drawn thicker: 191925c "Sticker
#: 2.2 x 3.8 ... Gew.Lok" is a ``box5-12`` scaled 1 LDU. Formed stickers are 1.5 LDU and more thick.
SLAB_MAX_THICKNESS = 1.0
#: Distance (LDU) within which a triangle vertex lies in the back (or front) plane of the slab.
_PLANE_TOL = 0.01


@dataclass(frozen=True, eq=False)
class StickerBack:
    """The adhesive back face of a flat sticker, in the sticker's part frame (LDraw frame, LDU).

    Attributes
    ----------
    frame : (4, 4) float64 ndarray, read-only
        Connector frame ``[R | p]``: ``p`` the centre of the back face, ``-R[:, 1]`` (the mating axis)
        the back face's outward normal, ``R[:, 0]`` the roll reference (a part axis across the normal).
    thickness : float, LDU
        The slab's thickness (its smallest bounding-box extent).
    footprint : (n, 3, 3) float64 ndarray, read-only
        The triangles drawn in the back plane (LDU, part frame): the glued area. Empty when the sticker
        draws no back face (then its whole outline counts, see :attr:`outline`).
    outline : (2, 2) float64 ndarray
        ``[[u_min, v_min], [u_max, v_max]]`` of the back face in the frame's (X, Z) columns, relative to
        the origin (LDU): the rectangle the back face fills.
    """

    frame: np.ndarray
    thickness: float
    footprint: np.ndarray
    outline: np.ndarray

    @property
    def position(self) -> np.ndarray:
        """(3,) float, LDU: centre of the back face (part frame)."""
        return self.frame[:3, 3]

    @property
    def axis(self) -> np.ndarray:
        """(3,) float, unit: the back face's outward normal (the frame's -Y column)."""
        return -self.frame[:3, 1]


def _ro(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


def sticker_back(mesh) -> StickerBack | None:
    """The back face of a flat sticker drawn by ``mesh``, or None when the mesh is no flat slab.

    Parameters
    ----------
    mesh : ldraw_data.mesh.PartMesh
        The sticker's mesh (part frame, LDU): a library part (:func:`ldraw_data.mesh.part_mesh`) or an
        MPD-embedded block (``part_mesh(name, embedded=doc)``).

    Returns
    -------
    StickerBack or None
        None for an empty mesh, or when its smallest bounding-box extent exceeds
        :data:`SLAB_MAX_THICKNESS` or is not the clear smallest one (a formed sticker, a needle).

    Notes
    -----
    The rule (module notes): thin axis = smallest extent; the front is the slab face with more
    fixed-colour triangles lying in it (the LDraw sticker standard prints the pattern in fixed colours on
    the top face), the back the other one; with no fixed colour on either face, the face nearer the part
    origin (the standard's back at y = 0). Pure function of the mesh; no library access.
    """
    tris = np.asarray(mesh.triangles, dtype=np.float64)
    if not len(tris):
        return None
    lo, hi = tris.reshape(-1, 3).min(axis=0), tris.reshape(-1, 3).max(axis=0)
    ext = hi - lo
    k = int(np.argmin(ext))
    others = [i for i in range(3) if i != k]
    if ext[k] > SLAB_MAX_THICKNESS or min(ext[others]) <= 2.0 * ext[k]:
        return None
    coord = tris[:, :, k]
    on_lo = np.all(np.abs(coord - lo[k]) <= _PLANE_TOL, axis=1)
    on_hi = np.all(np.abs(coord - hi[k]) <= _PLANE_TOL, axis=1)
    fixed = np.asarray(mesh.colors) != 16
    n_lo, n_hi = int((fixed & on_lo).sum()), int((fixed & on_hi).sum())
    if n_lo == n_hi:  # no print found: the face nearer the origin is the back (LDraw sticker standard)
        back_hi = abs(hi[k]) <= abs(lo[k])
    else:
        back_hi = n_lo > n_hi  # printed on the low face: the back is the high one
    sign = 1.0 if back_hi else -1.0
    plane = hi[k] if back_hi else lo[k]
    foot = tris[on_hi if back_hi else on_lo]
    pts = foot.reshape(-1, 3) if len(foot) else tris.reshape(-1, 3)
    a, b = others
    centre = np.zeros(3)
    centre[a] = 0.5 * (pts[:, a].min() + pts[:, a].max())
    centre[b] = 0.5 * (pts[:, b].min() + pts[:, b].max())
    centre[k] = plane
    axis = np.zeros(3)
    axis[k] = sign
    roll = np.zeros(3)
    roll[a] = 1.0
    frame = np.eye(4)
    frame[:3, 0] = roll
    frame[:3, 1] = -axis
    frame[:3, 2] = np.cross(roll, -axis)
    frame[:3, 3] = centre
    # outline in the frame's X and Z columns, relative to the centre
    rel = (pts - centre) @ frame[:3, :3]
    outline = np.array([[rel[:, 0].min(), rel[:, 2].min()], [rel[:, 0].max(), rel[:, 2].max()]])
    return StickerBack(_ro(frame), float(ext[k]), _ro(foot.copy()), _ro(outline))


_TITLE_MARKS = re.compile(r"^0\s*[~=_|]*")


def _is_sticker_file(path) -> bool:
    """True when the part file's title (its first line) carries the ``"sticker"`` trait."""
    from .traits import title_traits

    try:
        with open(path, "rb") as fh:
            first = fh.read(512).split(b"\n", 1)[0].decode("utf-8", "replace").strip()
    except OSError:
        return False
    return "sticker" in title_traits(_TITLE_MARKS.sub("", first))


@lru_cache(maxsize=4096)
def library_sticker_back(stem: str) -> StickerBack | None:
    """The back face of library part ``stem`` when it is a flat sticker, else None (cached per process).

    Parameters
    ----------
    stem : str
        Normalized part id without ``.dat`` (``"003238a"``).

    Returns
    -------
    StickerBack or None
        None when no library is installed, the part is not in it, its title (first line of its file)
        does not carry the ``"sticker"`` trait (:func:`ldraw_data.traits.title_traits`: the title starts
        with "Sticker"), or its mesh is no flat slab (:func:`sticker_back`). The title only picks the
        candidates (one 1 KB read per part asked); the connector comes from the mesh.
    """
    try:
        from .library import get_library

        lib = get_library()
        path = lib.find(stem + ".dat")
    except Exception:  # noqa: BLE001 - no library: no sticker rows
        return None
    if path is None or not _is_sticker_file(path):
        return None
    try:
        from .mesh import part_mesh

        mesh = part_mesh(stem + ".dat", lib)
    except Exception as exc:  # noqa: BLE001 - an unreadable sticker simply has no connector
        log.debug("no sticker back for %s: %s", stem, exc)
        return None
    return sticker_back(mesh)


#: Bump when the rule of :func:`sticker_back` or the table layout changes (2: rows carry the back's outline).
_TABLE_VERSION = 2


def _table_path(lib):
    from .library import cache_dir

    key = hashlib.sha1(f"{_TABLE_VERSION}|{lib.fingerprint}".encode()).hexdigest()[:16]
    return cache_dir() / "connectors" / f"sticker-backs-v{_TABLE_VERSION}-{key}.json"


@lru_cache(maxsize=1)
def _saved_table() -> dict | None:
    """The saved table of every library sticker (:func:`build_sticker_table`), or None when not built."""
    try:
        from .library import get_library

        path = _table_path(get_library())
    except Exception:  # noqa: BLE001 - no library: no table
        return None
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        from .fileio import discard_cache_file

        discard_cache_file(path, "sticker back", exc)
        return None


def sticker_back_row(stem: str) -> tuple[np.ndarray, float] | None:
    """The ``sticker_back`` connector of library part ``stem``: ``((4, 4) frame, thickness LDU)``, or None.

    Parameters
    ----------
    stem : str
        Normalized part id without ``.dat``.

    Returns
    -------
    ((4, 4) float64 ndarray read-only, float) or None
        As :attr:`StickerBack.frame` and :attr:`StickerBack.thickness` of :func:`library_sticker_back`: read
        from the saved table of every library sticker when :func:`build_sticker_table` has saved one for this
        library (a part missing from it is no sticker), else worked out from the part's mesh (cached per
        process).
    """
    table = _saved_table()
    if table is None:
        back = library_sticker_back(stem)
        return None if back is None else (back.frame, back.thickness)
    row = table.get(stem)
    if row is None:
        return None
    frame = np.asarray(row[:16], dtype=np.float64).reshape(4, 4)
    return _ro(frame), float(row[16])


def sticker_size_ldu(stem: str) -> tuple[float, float] | None:
    """A flat sticker's size as :func:`bricklayer.construction.stick` lays it with ``rotation=0``:
    ``(width, height)`` in LDU on the face, or None when ``stem`` is no flat library sticker.

    ``stick`` turns the sticker's roll reference (its part X axis, the frame's X column of
    :class:`StickerBack`) along the viewer's right, so ``width`` is the back's extent along that axis and
    ``height`` its extent along the frame's Z column (the sticker file's Z; its +Z edge lands at the top);
    ``rotation=90`` swaps them. The title's "2.3 x 1.9" is no guide to which way: LDraw sticker titles give
    the size in studs rounded to 0.1, longer side first or not (4603014f "Sticker 2.3 x 1.9" lands 38 LDU
    wide and 46 high, 1.9 x 2.3 studs).

    Parameters
    ----------
    stem : str
        Normalized part id without ``.dat`` (``"4603014f"``).

    Returns
    -------
    (float, float) or None
        LDU, rounded to 0.01, from the saved table of :func:`build_sticker_table` when there is one, else from
        the part's mesh (:func:`library_sticker_back`, cached per process).
    """
    table = _saved_table()
    if table is None:
        back = library_sticker_back(stem)
        if back is None:
            return None
        (u0, v0), (u1, v1) = back.outline.tolist()
    else:
        row = table.get(stem)
        if row is None or len(row) < 21:
            return None
        u0, v0, u1, v1 = row[17:21]
    return round(u1 - u0, 2), round(v1 - v0, 2)


def build_sticker_table() -> int:
    """Work out the back of every sticker of the library and save the table (``cache_dir()/connectors/
    sticker-backs-v<N>-<key>.json``, keyed on the library's fingerprint, written atomically), so that later
    processes read every sticker's row from it (:func:`sticker_back_row`). Meshes each of the 2,263 stickers
    once (seconds with the mesh cache warm). Returns how many are flat (have a back).

    Raises
    ------
    LibraryNotFoundError
        When no LDraw library is installed.
    """
    from .library import get_library

    lib = get_library()
    path = _table_path(lib)
    if _saved_table() is not None:
        return sum(1 for v in _saved_table().values() if v is not None)
    table: dict = {}
    for name, fpath in lib.part_files():
        if not _is_sticker_file(fpath):
            continue
        stem = name.removesuffix(".dat")
        back = library_sticker_back(stem)
        table[stem] = None if back is None else [*back.frame.ravel().tolist(), back.thickness,
                                                 *back.outline.ravel().tolist()]
    try:
        from .fileio import atomic_writer

        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_writer(path, "w", encoding="utf-8") as fh:
            json.dump(table, fh, separators=(",", ":"))
        _saved_table.cache_clear()
    except OSError as exc:
        log.warning("could not write the sticker table %s (%s); continuing without it", path, exc)
    return sum(1 for v in table.values() if v is not None)
