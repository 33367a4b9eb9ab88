"""OBJ (with its MTL) and STL export through trimesh.

Neither format can share geometry between placements, so every placement's
triangles are written out in world coordinates.

* OBJ: one object (``o <n>_<part id>``) per placement and colour group, in the
  glTF frame (+Y up, metres; the OBJ format has no units, and +Y up is what
  Blender's and most tools' OBJ importers assume). The ``.mtl`` beside it has
  one material per LDraw colour: ``Kd`` is LDConfig's VALUE (sRGB, 0-1, as MTL
  files carry it), ``d`` its ALPHA (dissolve; Wavefront MTL spec: 1.0 opaque),
  chrome and metal finishes a higher ``Ks`` and ``Ns``.
* STL: every triangle of the build merged into one mesh, in millimetres with
  +Z up (BrickLayer frame times 0.4 mm/LDU), as slicers expect. Vertices are
  merged, degenerate and duplicate triangles dropped (the second copy of a
  two-sided triangle from an uncertified file included), so the mesh is as
  closed as the parts are; LDraw parts are open shells (the underside of a
  brick has no floor), so a whole model is rarely watertight:
  :attr:`ExportResult.watertight` says.
"""

from __future__ import annotations

__all__ = ["write_obj", "write_stl"]

from pathlib import Path

import numpy as np

from ..geometry.ldraw_frame import L2B
from ._scene import LDRAW_TO_GLTF, MM_PER_LDU, ExportResult, build_scene, check_target


def _transform(v: np.ndarray, m: np.ndarray) -> np.ndarray:
    return v.astype(np.float64) @ m[:3, :3].T + m[:3, 3]


def _mtl_text(materials) -> str:
    lines = ["# LDraw colours from LDConfig.ldr (brickwright-toolkit, bricklayer.export)"]
    for m in materials:
        r, g, b = (c / 255.0 for c in m.rgb)
        shiny = m.metallic > 0.5
        ks = 0.9 if shiny else 0.2
        lines += [
            "", f"newmtl {m.label}",
            f"Ka {r:.6f} {g:.6f} {b:.6f}",
            f"Kd {r:.6f} {g:.6f} {b:.6f}",
            f"Ks {ks:.6f} {ks:.6f} {ks:.6f}",
            f"Ns {max(1.0, (1.0 - m.roughness) * 1000.0):.1f}",
            f"d {m.alpha / 255.0:.6f}",
            "illum 2",
        ]
    return "\n".join(lines) + "\n"


def write_obj(build, path, *, overwrite: bool = False, library=None) -> ExportResult:
    """Write a build as Wavefront OBJ with a material library (``.mtl`` beside it), atomically.

    Parameters
    ----------
    build : LegoBuild
    path : path
        Output ``.obj``; the ``.mtl`` gets the same name with ``.mtl``.
    overwrite : bool
        Replace existing files (default False: FileExistsError when the ``.obj`` or the ``.mtl`` exists).
    library : LDrawLibrary, optional

    Returns
    -------
    ExportResult
        ``triangles`` counts the triangles written (per placement).

    Raises
    ------
    FileExistsError, ValueError
        As :func:`~bricklayer.export.write_gltf`.

    Notes
    -----
    Frame: +Y up, metres (as the glTF export; 1 LDU = 0.0004 m).
    """
    import trimesh
    from trimesh.exchange.obj import export_obj
    from trimesh.visual import TextureVisuals
    from trimesh.visual.material import SimpleMaterial

    from ldraw_data.fileio import atomic_write

    p = check_target(path, (".obj",), overwrite)
    mtl_path = p.with_suffix(".mtl")
    check_target(mtl_path, (".mtl",), overwrite)
    scene = build_scene(build, library)

    # per part and colour group: the vertices it uses and faces re-indexed into them (computed once)
    sub: dict[tuple[str, int], tuple[np.ndarray, np.ndarray]] = {}
    for key, pg in scene.parts.items():
        for code, faces in pg.groups.items():
            used, inv = np.unique(faces.reshape(-1), return_inverse=True)
            sub[(key, code)] = (pg.vertices[used], inv.reshape(-1, 3))

    tm_materials: dict[int, SimpleMaterial] = {}
    out = trimesh.Scene()
    n_tris = 0
    for n, inst in enumerate(scene.instances, 1):
        m = LDRAW_TO_GLTF @ inst.matrix
        mirror = np.linalg.det(m[:3, :3]) < 0
        for code in scene.parts[inst.part].groups:
            verts, faces = sub[(inst.part, code)]
            c = scene.resolve(code, inst.color)
            mat = tm_materials.get(c)
            if mat is None:
                spec = scene.material(c)
                mat = tm_materials[c] = SimpleMaterial(name=spec.label, diffuse=[*spec.rgb, spec.alpha])
            f = faces[:, [0, 2, 1]] if mirror else faces
            mesh = trimesh.Trimesh(_transform(verts, m), f, process=False,
                                   visual=TextureVisuals(material=mat))
            out.add_geometry(mesh, geom_name=f"{n}_{inst.ldraw_id}_{c}")
            n_tris += len(f)
    text, _files = export_obj(out, include_normals=False, include_color=False, include_texture=True,
                              return_texture=True, mtl_name=mtl_path.name)
    # trimesh's own .mtl drops alpha (no "d" line): write ours, same material names
    atomic_write(mtl_path, _mtl_text(scene.material(c) for c in tm_materials), replace=overwrite)
    atomic_write(p, text, replace=overwrite)  # a racing writer's file is kept
    return ExportResult(p, len(scene.instances), len(scene.parts), len(tm_materials), n_tris,
                        tuple(scene.skipped))


def write_stl(build, path, *, overwrite: bool = False, library=None) -> ExportResult:
    """Write a build as one merged binary STL mesh in millimetres (+Z up), for 3D printing; atomically.

    Parameters
    ----------
    build : LegoBuild
    path : path
        Output ``.stl``.
    overwrite : bool
    library : LDrawLibrary, optional

    Returns
    -------
    ExportResult
        ``materials`` is 0 (STL has no colour); ``watertight`` tells whether the merged mesh is closed.

    Raises
    ------
    FileExistsError, ValueError
        As :func:`~bricklayer.export.write_gltf`.

    Notes
    -----
    1 LDU = 0.4 mm; the BrickLayer frame (+X right, +Y back, +Z up). Vertices
    closer than 1e-5 mm are merged; degenerate and duplicate triangles are dropped.
    """
    import trimesh
    from trimesh.exchange.stl import export_stl

    from ldraw_data.fileio import atomic_write

    p = check_target(path, (".stl",), overwrite)
    scene = build_scene(build, library)
    to_mm = np.diag([MM_PER_LDU, MM_PER_LDU, MM_PER_LDU, 1.0]) @ L2B
    verts, faces = [], []
    offset = 0
    for inst in scene.instances:
        pg = scene.parts[inst.part]
        m = to_mm @ inst.matrix
        f = np.concatenate(list(pg.groups.values()))
        if np.linalg.det(m[:3, :3]) < 0:
            f = f[:, [0, 2, 1]]
        verts.append(_transform(pg.vertices, m))
        faces.append(f.astype(np.int64) + offset)
        offset += len(pg.vertices)
    mesh = trimesh.Trimesh(np.concatenate(verts), np.concatenate(faces), process=False)
    mesh.merge_vertices(digits_vertex=5)
    keep = mesh.nondegenerate_faces() & mesh.unique_faces()
    mesh.update_faces(keep)
    mesh.remove_unreferenced_vertices()
    atomic_write(p, export_stl(mesh), replace=overwrite)  # a racing writer's file is kept
    return ExportResult(p, len(scene.instances), len(scene.parts), 0, len(mesh.faces), tuple(scene.skipped),
                        bool(mesh.is_watertight))
