"""Inset collision meshes of LDraw parts.

Two LEGO parts collide when their surfaces, each moved inward by 0.1 mm
(0.25 LDU), intersect (issue #4; validator notes: "insetting each surface by
0.25 LDU leaves 0.5 LDU of clearance between touching parts, enough for snap
fits"). This module makes that inset geometry from the LDraw library.

Method
------
LDraw geometry is a triangle soup, often not closed (the bottom of a brick
is open) and not always BFC-certified, so "inside" is not defined by a
volume. We inset *surfaces*, not volumes:

1. Vertices closer than 1e-3 LDU are merged (LDraw files round to 4
   decimals); degenerate triangles are dropped.
2. Face orientation. For a certified part (every file BFC-certified, see
   :class:`ldraw_data.mesh.PartMesh`) the CCW winding gives the outward
   normal. For an uncertified part trimesh makes the winding consistent
   between neighbouring faces and points each closed body outward
   (``trimesh.repair.fix_normals(multibody=True)``); faces it cannot orient
   keep their written winding. An uncertified part may therefore be inset
   the wrong way on some faces (by 0.25 LDU at most): its clearance to a
   neighbour there is 0 instead of 0.25 LDU on its side.
3. Per vertex the offset direction ``x`` solves ``n_i . x = 1`` in the
   least-squares sense over the unit normals ``n_i`` of its faces
   (``x = pinv(sum n n^T) sum n``): every face plane through the vertex moves
   inward by the same distance, so box corners move by ``(1, 1, 1)`` times
   the inset rather than along a diagonal that would inset the faces too
   little. Opposite normals (a double-sided sheet) cancel and leave the
   vertex in place; ``|x|`` is capped at 3 so thin spikes (a stud's edge
   cone) do not fold far through the part.
4. The inset mesh is ``vertices - inset * x``. The directions are stored,
   so any inset (the validator also uses larger ones for press-fit
   allowances) is one multiply-add.

The result (merged vertices, faces, directions) is cached on disk, one
``.npz`` per part under ``cache_dir()/collision-<library fingerprint>-v<N>/``,
written atomically. Embedded parts (MPD blocks) are cached in memory only.
"""

from __future__ import annotations

__all__ = ["CollisionShape", "collision_shape", "shape_from_mesh", "COLLISION_CACHE_VERSION"]

import hashlib
import logging
import os
import tempfile
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .library import LDrawLibrary, cache_dir, get_library, normalize_name
from .mesh import PartMesh, part_mesh

log = logging.getLogger(__name__)

#: Bump when the inset method changes: old cache files are then ignored.
COLLISION_CACHE_VERSION = 2
_MERGE = 1e-3  # LDU
_MAX_STRETCH = 3.0


@dataclass(frozen=True, eq=False)
class CollisionShape:
    """Surface of one part ready to be inset, in the part's LDraw frame.

    Attributes
    ----------
    name : str
        Normalized part reference (``"3001.dat"``).
    vertices : (v, 3) float64, LDU
        Merged vertices (LDraw part frame, -Y up).
    faces : (f, 3) int32
        Triangles, outward CCW where the orientation is known.
    directions : (v, 3) float64
        Inward offset direction per vertex, scaled so each adjacent face
        plane moves by 1 LDU per unit of inset (see module notes).
    certified : bool
        True when the orientation came from BFC, False when trimesh guessed it.
    hull : (h,) int
        Indices of the vertices on the convex hull (all when the hull fails).
    """

    name: str
    vertices: np.ndarray
    faces: np.ndarray
    directions: np.ndarray
    certified: bool
    hull: np.ndarray = None

    def inset_vertices(self, inset: float) -> np.ndarray:
        """Vertices moved inward.

        Parameters
        ----------
        inset : float, LDU
            Distance every face plane moves inward (0.25 for collision tests).

        Returns
        -------
        (v, 3) float64, LDU
        """
        return self.vertices - inset * self.directions

    @property
    def is_empty(self) -> bool:
        """True when the part has no triangles."""
        return len(self.faces) == 0

    @property
    def hull_points(self) -> np.ndarray:
        """(h, 3) float64: vertices of the convex hull (all vertices when the hull fails), LDU."""
        return self.vertices if self.hull is None else self.vertices[self.hull]


def _merge(tris: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    verts = tris.reshape(-1, 3)
    keys = np.round(verts / _MERGE).astype(np.int64)
    uniq, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    faces = inverse.reshape(-1, 3).astype(np.int64)
    ok = (faces[:, 0] != faces[:, 1]) & (faces[:, 1] != faces[:, 2]) & (faces[:, 0] != faces[:, 2])
    return verts[first].astype(np.float64), faces[ok]


def _orient_uncertified(vertices: np.ndarray, faces: np.ndarray) -> np.ndarray:
    try:
        import trimesh

        m = trimesh.Trimesh(vertices=vertices, faces=faces, process=False)
        trimesh.repair.fix_normals(m, multibody=True)
        return np.asarray(m.faces, dtype=np.int64)
    except Exception as exc:  # noqa: BLE001 - keep the written winding
        log.debug("could not orient faces with trimesh: %s", exc)
        return faces


def _directions(vertices: np.ndarray, faces: np.ndarray) -> np.ndarray:
    t = vertices[faces]
    n = np.cross(t[:, 1] - t[:, 0], t[:, 2] - t[:, 0])
    area2 = np.linalg.norm(n, axis=1)
    ok = area2 > 1e-9
    n = n[ok] / area2[ok, None]
    f = faces[ok]
    nv = len(vertices)
    outer = n[:, :, None] * n[:, None, :]  # (f, 3, 3)
    m = np.zeros((nv, 3, 3))
    b = np.zeros((nv, 3))
    for k in range(3):
        np.add.at(m, f[:, k], outer)
        np.add.at(b, f[:, k], n)
    x = np.einsum("vij,vj->vi", np.linalg.pinv(m, rcond=1e-3, hermitian=True), b)
    length = np.linalg.norm(x, axis=1)
    big = length > _MAX_STRETCH
    x[big] *= (_MAX_STRETCH / length[big])[:, None]
    return x


def shape_from_mesh(mesh: PartMesh) -> CollisionShape:
    """The :class:`CollisionShape` of a part mesh (see module notes for the method).

    Parameters
    ----------
    mesh : PartMesh

    Returns
    -------
    CollisionShape
        Empty (no faces) when the mesh has no triangles.
    """
    tris = np.asarray(mesh.triangles, dtype=np.float64)
    if len(tris) == 0:
        z = np.zeros((0, 3))
        return CollisionShape(mesh.name, z, np.zeros((0, 3), np.int32), z, bool(mesh.certified))
    vertices, faces = _merge(tris)
    if not mesh.certified:
        faces = _orient_uncertified(vertices, faces)
    return CollisionShape(mesh.name, vertices, faces.astype(np.int32), _directions(vertices, faces),
                          bool(mesh.certified), _hull(vertices))


def _hull(vertices: np.ndarray) -> np.ndarray:
    if len(vertices) > 16:
        try:
            from scipy.spatial import ConvexHull

            return np.asarray(ConvexHull(vertices).vertices, dtype=np.int32)
        except Exception:  # noqa: BLE001 - flat or degenerate point sets (qhull errors)
            pass
    return np.arange(len(vertices), dtype=np.int32)


def _cache_folder(library: LDrawLibrary) -> Path:
    return cache_dir() / f"collision-{library.fingerprint[:16]}-v{COLLISION_CACHE_VERSION}"


def _file_for(folder: Path, key: str) -> Path:
    h = hashlib.sha1(key.encode()).hexdigest()[:12]
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in key)[:60]
    return folder / f"{safe}-{h}.npz"


def _save(path: Path, shape: CollisionShape) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            np.savez(fh, vertices=shape.vertices.astype(np.float32), faces=shape.faces,
                     directions=shape.directions.astype(np.float32), certified=np.array(shape.certified),
                     hull=shape.hull)
        os.replace(tmp, path)
    except OSError as exc:
        log.warning("could not write collision cache %s: %s", path, exc)
        try:
            os.unlink(tmp)
        except OSError:
            pass


def _load(path: Path, name: str) -> CollisionShape | None:
    try:
        with np.load(path) as z:
            return CollisionShape(name, z["vertices"].astype(np.float64), z["faces"],
                                  z["directions"].astype(np.float64), bool(z["certified"]), z["hull"])
    except (OSError, KeyError, ValueError):
        return None


_MEMO: OrderedDict = OrderedDict()
_MEMO_MAX = 4096


def collision_shape(name: str, library: LDrawLibrary | None = None, *, embedded=None) -> CollisionShape:
    """Collision shape of a part (library or MPD-embedded), cached on disk and in memory.

    Parameters
    ----------
    name : str
        Part reference (``"3001"``, ``"3001.dat"``).
    library : LDrawLibrary, optional
        Default :func:`~ldraw_data.library.get_library`.
    embedded : LDrawDocument or dict of str to LDrawFile, optional
        MPD blocks searched first (see :func:`ldraw_data.mesh.part_mesh`);
        shapes of embedded parts are not written to disk.

    Returns
    -------
    CollisionShape

    Raises
    ------
    PartNotFoundError
        When the part is neither embedded nor in the library.
    """
    key = normalize_name(name if name.lower().endswith(".dat") else name + ".dat")
    memo_key = (key, id(embedded) if embedded is not None else None)
    hit = _MEMO.get(memo_key)
    if hit is not None:
        _MEMO.move_to_end(memo_key)
        return hit
    shape = None
    path = None
    if embedded is None:
        lib = library if library is not None else get_library()
        path = _file_for(_cache_folder(lib), key)
        if path.exists():
            shape = _load(path, key)
    else:
        lib = library
    if shape is None:
        shape = shape_from_mesh(part_mesh(key, lib, embedded=embedded))
        if path is not None:
            _save(path, shape)
    _MEMO[memo_key] = shape
    if len(_MEMO) > _MEMO_MAX:
        _MEMO.popitem(last=False)
    return shape
