"""glTF 2.0 binary (``.glb``) export, written with pygltflib.

Layout (glTF 2.0 specification, Khronos):

* one ``POSITION`` accessor per distinct part and one index accessor per colour
  group of that part (:class:`~bricklayer.export._scene.PartGeometry`): the
  geometry of a part is stored once, however many placements and colours use it;
* one glTF mesh per (part, placement colour): its primitives point at the
  part's shared accessors, each with the material of its colour group resolved
  for that placement colour (glTF binds materials to primitives, not nodes, so
  a red and a blue 3001 are two meshes over the same buffer data);
* one node per placement (``name`` ``"<n> <part id>"``, ``extras`` ``ldraw_id``
  and ``color``) holding the LDraw placement matrix (LDU) under a root node
  ``"model"`` whose matrix :data:`~bricklayer.export._scene.LDRAW_TO_GLTF`
  turns LDraw (-Y up, LDU) into glTF (+Y up, metres);
* one material per LDraw colour drawn (:class:`MaterialSpec`): base colour is
  LDConfig's VALUE decoded from sRGB to linear (spec 3.9.2: ``baseColorFactor``
  is linear), alpha from LDConfig's ALPHA with ``alphaMode`` BLEND for
  transparent colours, metallic and roughness from the finish (CHROME, METAL,
  PEARLESCENT, RUBBER ...).

No normals are written: spec 3.7.2.1 "When normals are not specified, client
implementations MUST calculate flat normals", which is what LDraw geometry is;
this lets vertices be shared between triangles. A placement with a mirroring
matrix needs no special care: spec 3.7.4 makes the winding follow the sign of
the node's determinant. Edge lines (type 2) are not exported.
"""

from __future__ import annotations

__all__ = ["write_gltf", "gltf_bytes"]

from pathlib import Path

import numpy as np

from ._scene import LDRAW_TO_GLTF, ExportResult, ExportScene, build_scene, check_target
from ..errors import MissingDependencyError

_ARRAY_BUFFER = 34962
_ELEMENT_ARRAY_BUFFER = 34963
_FLOAT = 5126
_UNSIGNED_SHORT = 5123
_UNSIGNED_INT = 5125
_TRIANGLES = 4


def _import_pygltflib():
    try:
        import pygltflib
    except ImportError as exc:  # pragma: no cover - pygltflib is a dependency
        raise MissingDependencyError("glTF export needs pygltflib: pip install pygltflib") from exc
    return pygltflib


def _column_major(m: np.ndarray) -> list[float]:
    """A (4, 4) column-vector matrix as glTF's 16 floats, column-major (spec 3.5.3)."""
    return [float(v) for v in np.asarray(m, dtype=np.float64).T.reshape(-1)]


def gltf_bytes(scene: ExportScene, *, title: str = "model") -> tuple[bytes, dict]:
    """The ``.glb`` file of an :class:`ExportScene` as bytes.

    Parameters
    ----------
    scene : ExportScene
        From :func:`~bricklayer.export._scene.build_scene`.
    title : str
        Name of the root node.

    Returns
    -------
    (bytes, dict)
        The GLB file and counts (``meshes``, ``materials``, ``triangles`` stored).
    """
    g = _import_pygltflib()
    blob = bytearray()
    views: list = []
    accessors: list = []

    def add_view(data: bytes, target: int) -> int:
        while len(blob) % 4:
            blob.append(0)
        views.append(g.BufferView(buffer=0, byteOffset=len(blob), byteLength=len(data), target=target))
        blob.extend(data)
        return len(views) - 1

    # geometry: one POSITION accessor per part, one index accessor per colour group
    part_pos: dict[str, int] = {}
    part_groups: dict[str, dict[int, int]] = {}
    n_tris = 0
    for key, pg in scene.parts.items():
        v = np.ascontiguousarray(pg.vertices, dtype=np.float32)
        bv = add_view(v.tobytes(), _ARRAY_BUFFER)
        accessors.append(g.Accessor(bufferView=bv, componentType=_FLOAT, count=len(v), type="VEC3",
                                    min=[float(x) for x in v.min(axis=0)], max=[float(x) for x in v.max(axis=0)]))
        part_pos[key] = len(accessors) - 1
        part_groups[key] = {}
        small = len(v) < 65536
        for code, faces in pg.groups.items():
            idx = faces.astype(np.uint16 if small else np.uint32).reshape(-1)
            bv = add_view(idx.tobytes(), _ELEMENT_ARRAY_BUFFER)
            accessors.append(g.Accessor(bufferView=bv, componentType=_UNSIGNED_SHORT if small else _UNSIGNED_INT,
                                        count=len(idx), type="SCALAR",
                                        min=[int(idx.min())], max=[int(idx.max())]))
            part_groups[key][code] = len(accessors) - 1
            n_tris += len(faces)

    materials: list = []
    mat_index: dict[int, int] = {}

    def material(code: int) -> int:
        i = mat_index.get(code)
        if i is None:
            m = scene.material(code)
            materials.append(g.Material(
                name=m.label,
                pbrMetallicRoughness=g.PbrMetallicRoughness(baseColorFactor=m.base_color_linear,
                                                            metallicFactor=m.metallic, roughnessFactor=m.roughness),
                alphaMode="BLEND" if m.is_transparent else "OPAQUE",
                doubleSided=False,
                extras={"ldraw_code": m.code if m.code < 0x2000000 else None, "ldraw_name": m.name,
                        "finish": m.finish or None},
            ))
            i = mat_index[code] = len(materials) - 1
        return i

    meshes: list = []
    mesh_index: dict[tuple[str, int], int] = {}
    nodes: list = [g.Node(name=title, matrix=_column_major(LDRAW_TO_GLTF), children=[],
                          extras={"frame": "LDraw LDU below this node; this node turns -Y up LDU into +Y up "
                                           "metres (1 LDU = 0.4 mm)"})]
    for n, inst in enumerate(scene.instances, 1):
        mk = (inst.part, inst.color)
        mi = mesh_index.get(mk)
        if mi is None:
            prims = [g.Primitive(attributes=g.Attributes(POSITION=part_pos[inst.part]), indices=acc,
                                 material=material(scene.resolve(code, inst.color)), mode=_TRIANGLES)
                     for code, acc in part_groups[inst.part].items()]
            meshes.append(g.Mesh(name=f"{inst.ldraw_id} c{inst.color}", primitives=prims))
            mi = mesh_index[mk] = len(meshes) - 1
        nodes.append(g.Node(name=f"{n} {inst.ldraw_id}", mesh=mi, matrix=_column_major(inst.matrix),
                            extras={"ldraw_id": inst.ldraw_id, "color": inst.color}))
        nodes[0].children.append(len(nodes) - 1)

    gltf = g.GLTF2(
        asset=g.Asset(version="2.0", generator="brickwright-toolkit (bricklayer.export)"),
        scene=0, scenes=[g.Scene(nodes=[0])], nodes=nodes, meshes=meshes, materials=materials,
        accessors=accessors, bufferViews=views, buffers=[g.Buffer(byteLength=len(blob))],
    )
    gltf.set_binary_blob(bytes(blob))
    data = b"".join(gltf.save_to_bytes())
    return data, {"meshes": len(meshes), "materials": len(materials), "triangles": n_tris}


def write_gltf(build, path, *, overwrite: bool = False, library=None) -> ExportResult:
    """Write a build as a glTF 2.0 binary file (``.glb``), atomically.

    Parameters
    ----------
    build : LegoBuild
        Any build (read from LDraw or made with the SDK); nested builds are flattened.
    path : path
        Output file; must end in ``.glb``.
    overwrite : bool
        Replace an existing file (default False: FileExistsError).
    library : LDrawLibrary, optional

    Returns
    -------
    ExportResult
        ``triangles`` counts the triangles stored (once per distinct part).

    Raises
    ------
    FileExistsError
        ``path`` exists and ``overwrite`` is False.
    ValueError
        Wrong suffix, or no part of the build has geometry.

    Notes
    -----
    Frame and units: +Y up, metres (glTF 2.0 spec 3.4); see the module docstring for the layout.
    """
    p = check_target(path, (".glb",), overwrite)
    scene = build_scene(build, library)
    data, counts = gltf_bytes(scene, title=getattr(build, "name", None) or Path(p).stem)
    from ldraw_data.fileio import atomic_write

    atomic_write(p, data, replace=overwrite)  # a racing writer's file is kept
    return ExportResult(p, len(scene.instances), len(scene.parts), counts["materials"], counts["triangles"],
                        tuple(scene.skipped))
