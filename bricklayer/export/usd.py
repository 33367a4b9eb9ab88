"""USD export (``.usda`` text, ``.usd``/``.usdc`` binary) through Pixar's ``usd-core`` (optional extra ``[usd]``).

Stage layout:

* stage metadata ``upAxis = "Y"``, ``metersPerUnit = 0.0004`` (UsdGeom: the
  points stay in LDU, 1 LDU = 0.4 mm, and every USD tool scales them);
* ``/Looks/<code>_<name>``: one ``UsdPreviewSurface`` material per LDraw
  colour drawn (``diffuseColor`` linear, as glTF; ``opacity`` from ALPHA;
  ``metallic``/``roughness`` from the finish, see
  :data:`~bricklayer.export._scene.FINISH_PBR`);
* ``/Parts/<part>`` (a ``class`` prim, not drawn): the geometry of each
  distinct part once, one ``Mesh`` child per colour group of the part file;
* ``/Parts/<part>_c<colour>`` (``class``): references the part's geometry and
  binds each colour group's material for that placement colour;
* ``/Model/P<n>_<part>``: one ``instanceable`` Xform per placement, with the
  LDraw placement matrix, referencing its ``<part>_c<colour>`` class: USD
  shares one prototype between all instances of a (part, colour);
* ``/Model`` turns LDraw's -Y up into +Y up (rotation of 180 degrees about X).

Uncertified (two-sided) triangles are written twice, as in the glTF export.
"""

from __future__ import annotations

__all__ = ["write_usd", "usd_available", "USD_INSTALL_HINT"]

import os
import re
import tempfile
from pathlib import Path

import numpy as np

from ._scene import METRES_PER_LDU, ExportResult, build_scene, check_target
from ..errors import MissingDependencyError, OutputWriteError

#: What to install for USD export (the message of the error ``write_usd`` raises without it).
USD_INSTALL_HINT = "USD export needs Pixar's usd-core: pip install 'brickwright-toolkit[usd]' (or pip install usd-core)"


def usd_available() -> bool:
    """True when ``pxr`` (package ``usd-core``) can be imported."""
    try:
        import pxr.Usd  # noqa: F401
    except ImportError:
        return False
    return True


def _ident(s: str) -> str:
    """A valid USD prim name: letters, digits, underscores, not starting with a digit."""
    out = re.sub(r"[^A-Za-z0-9_]", "_", s)
    return out if out and not out[0].isdigit() else "_" + out


def write_usd(build, path, *, overwrite: bool = False, library=None) -> ExportResult:
    """Write a build as a USD stage (``.usda``, ``.usd`` or ``.usdc``), atomically.

    Parameters
    ----------
    build : LegoBuild
    path : path
        Output file; ``.usda`` is text, ``.usd``/``.usdc`` binary (crate).
    overwrite : bool
        Replace an existing file (default False: FileExistsError).
    library : LDrawLibrary, optional

    Returns
    -------
    ExportResult
        ``triangles`` counts the triangles stored (once per distinct part).

    Raises
    ------
    ImportError
        When ``usd-core`` is not installed (the message says what to install).
    FileExistsError, ValueError
        As :func:`~bricklayer.export.write_gltf`.

    Notes
    -----
    Units and frame: points in LDU with ``metersPerUnit = 0.0004``, ``upAxis = "Y"``; see the module docstring.
    """
    p = check_target(path, (".usda", ".usd", ".usdc"), overwrite)
    try:
        from pxr import Gf, Sdf, Usd, UsdGeom, UsdShade, Vt
    except ImportError as exc:
        raise MissingDependencyError(USD_INSTALL_HINT) from exc
    scene = build_scene(build, library)
    stage = Usd.Stage.CreateInMemory()
    UsdGeom.SetStageUpAxis(stage, UsdGeom.Tokens.y)
    UsdGeom.SetStageMetersPerUnit(stage, METRES_PER_LDU)

    looks = {}

    def material(code: int):
        m = looks.get(code)
        if m is None:
            spec = scene.material(code)
            path_ = Sdf.Path(f"/Looks/{_ident(spec.label)}")
            mat = UsdShade.Material.Define(stage, path_)
            sh = UsdShade.Shader.Define(stage, path_.AppendChild("Surface"))
            sh.CreateIdAttr("UsdPreviewSurface")
            r, g, b, a = spec.base_color_linear
            sh.CreateInput("diffuseColor", Sdf.ValueTypeNames.Color3f).Set(Gf.Vec3f(r, g, b))
            sh.CreateInput("opacity", Sdf.ValueTypeNames.Float).Set(float(a))
            sh.CreateInput("metallic", Sdf.ValueTypeNames.Float).Set(float(spec.metallic))
            sh.CreateInput("roughness", Sdf.ValueTypeNames.Float).Set(float(spec.roughness))
            mat.CreateSurfaceOutput().ConnectToSource(sh.ConnectableAPI(), "surface")
            mat.GetPrim().SetCustomDataByKey("ldraw_code", int(code) if code < 0x2000000 else -1)
            mat.GetPrim().SetCustomDataByKey("ldraw_name", spec.name)
            m = looks[code] = mat
        return m

    # distinct part geometry, once each, in class prims (not drawn themselves)
    part_names: dict[str, str] = {}
    n_tris = 0
    parts_root = stage.CreateClassPrim("/Parts")
    for key, pg in scene.parts.items():
        base = _ident(pg.ldraw_id)
        name, k = base, 1
        while name in part_names.values():
            k += 1
            name = f"{base}_{k}"
        part_names[key] = name
        prim = stage.CreateClassPrim(parts_root.GetPath().AppendChild(name))
        pts = Vt.Vec3fArray.FromNumpy(np.ascontiguousarray(pg.vertices, dtype=np.float32))
        for code, faces in pg.groups.items():
            mesh = UsdGeom.Mesh.Define(stage, prim.GetPath().AppendChild(f"g{code}"))
            mesh.CreatePointsAttr(pts)
            mesh.CreateFaceVertexCountsAttr(Vt.IntArray.FromNumpy(np.full(len(faces), 3, dtype=np.int32)))
            mesh.CreateFaceVertexIndicesAttr(Vt.IntArray.FromNumpy(faces.astype(np.int32).reshape(-1)))
            mesh.CreateSubdivisionSchemeAttr(UsdGeom.Tokens.none)
            mesh.CreateOrientationAttr(UsdGeom.Tokens.rightHanded)
            mesh.CreateExtentAttr(UsdGeom.Boundable.ComputeExtentFromPlugins(mesh, Usd.TimeCode.Default()))
            n_tris += len(faces)

    # one class per (part, placement colour): references the geometry, binds the colours
    protos: dict[tuple[str, int], Sdf.Path] = {}

    def proto(key: str, color: int) -> Sdf.Path:
        pp = protos.get((key, color))
        if pp is None:
            pp = parts_root.GetPath().AppendChild(f"{part_names[key]}_c{color}")
            prim = stage.CreateClassPrim(pp)
            prim.GetReferences().AddInternalReference(parts_root.GetPath().AppendChild(part_names[key]))
            for code in scene.parts[key].groups:
                child = stage.OverridePrim(pp.AppendChild(f"g{code}"))
                UsdShade.MaterialBindingAPI.Apply(child).Bind(material(scene.resolve(code, color)))
            protos[(key, color)] = pp
        return pp

    model = UsdGeom.Xform.Define(stage, "/Model")
    model.AddTransformOp().Set(Gf.Matrix4d(1, 0, 0, 0, 0, -1, 0, 0, 0, 0, -1, 0, 0, 0, 0, 1))
    stage.SetDefaultPrim(model.GetPrim())
    for key, color in dict.fromkeys((i.part, i.color) for i in scene.instances):
        proto(key, color)
    # placements authored on the layer directly, in one change block (one recomposition, not one per prim)
    layer = stage.GetRootLayer()
    with Sdf.ChangeBlock():
        for n, inst in enumerate(scene.instances, 1):
            spec = Sdf.CreatePrimInLayer(layer, f"/Model/P{n}_{_ident(inst.ldraw_id)}")
            spec.specifier = Sdf.SpecifierDef
            spec.typeName = "Xform"
            spec.instanceable = True
            spec.referenceList.Prepend(Sdf.Reference(primPath=protos[(inst.part, inst.color)]))
            spec.customData = {"ldraw_id": inst.ldraw_id, "ldraw_color": int(inst.color)}
            # Gf matrices act on row vectors: the transpose of our column-vector matrix
            attr = Sdf.AttributeSpec(spec, "xformOp:transform", Sdf.ValueTypeNames.Matrix4d)
            attr.default = Gf.Matrix4d(*[float(v) for v in np.asarray(inst.matrix).T.reshape(-1)])
            order = Sdf.AttributeSpec(spec, "xformOpOrder", Sdf.ValueTypeNames.TokenArray,
                                      variability=Sdf.VariabilityUniform)
            order.default = Vt.TokenArray(["xformOp:transform"])

    # atomic: export beside the target with the same suffix (it picks the file format), then rename
    p.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=f".{p.stem}.", suffix=p.suffix)
    os.close(fd)
    try:
        args = {"format": "usda"} if p.suffix.lower() == ".usda" else {}
        if not stage.GetRootLayer().Export(tmp, args=args):
            raise OutputWriteError(f"{p}: USD could not write the file")
        from ldraw_data.fileio import current_umask

        os.chmod(tmp, 0o666 & ~current_umask())
        os.replace(tmp, p)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return ExportResult(p, len(scene.instances), len(scene.parts), len(looks), n_tris, tuple(scene.skipped))
