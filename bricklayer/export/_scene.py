"""What every 3D export shares: one indexed mesh per distinct part, placements, LDraw colours as materials.

A build is reduced to

* one :class:`PartGeometry` per distinct part (``3001.dat`` once, however many
  placements and colours use it): merged vertices in the part's own LDraw
  frame (LDU) and its triangles grouped by the colour code written in the part
  file (16, 24 or a fixed code), from :func:`ldraw_data.mesh.load_meshes`;
* one :class:`Instance` per placement: part key, placement colour code and its
  world transform in the LDraw frame (LDU);
* materials per resolved LDraw colour code (:func:`material_of`).

Colours follow LDraw spec 1.0.2 as the renderer does
(:mod:`bricklayer.render.geometry`): a triangle group in 16 takes the
placement's colour, 24 the edge colour of the placement's colour (a direct
colour ``0x2RRGGBB`` made from ``LDConfig.ldr``'s EDGE value), other codes are
fixed. Winding follows :mod:`ldraw_data.mesh`: certified triangles are
counter-clockwise seen from outside; triangles of uncertified files (winding
unknown) are written twice, once each way, so that viewers that cull back
faces show them from both sides (the renderer does the same).

Frames (documented in docs/export.md):

* LDraw: +X right, -Y up, LDU (LDraw spec 1.0.2); 1 LDU = 0.4 mm.
* glTF, OBJ and USD output: +Y up, right-handed, metres (glTF 2.0 spec 3.4:
  "glTF uses a right-handed coordinate system ... +Y is up ... the units for
  all linear distances are meters"). LDraw -> glTF is the proper rotation of
  180 degrees about X, ``(x, y, z) -> (x, -y, -z)``, times 0.0004 m/LDU:
  :data:`LDRAW_TO_GLTF`.
* STL output: +Z up, millimetres (the BrickLayer frame times 0.4 mm/LDU), as
  slicers expect.
"""

from __future__ import annotations

__all__ = [
    "PartGeometry", "Instance", "ExportScene", "ExportResult", "MaterialSpec", "build_scene", "material_of",
    "LDRAW_TO_GLTF", "METRES_PER_LDU", "MM_PER_LDU", "check_target", "srgb_to_linear",
]

import logging
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..geometry.ldraw_frame import B2L, L2B
from ..errors import BrickLayerTypeError, BrickLayerValueError, OutputExistsError, OutputIsAFolderError

log = logging.getLogger(__name__)

#: 1 LDU = 0.4 mm (LDraw spec 1.0.2 FAQ: a stud is 20 LDU = 8 mm).
MM_PER_LDU = 0.4
#: Metres per LDU.
METRES_PER_LDU = MM_PER_LDU / 1000.0

#: (4, 4) LDraw world (LDU, -Y up) -> glTF world (metres, +Y up): rotate 180 degrees about X, scale 0.0004.
LDRAW_TO_GLTF = np.diag([METRES_PER_LDU, -METRES_PER_LDU, -METRES_PER_LDU, 1.0])
LDRAW_TO_GLTF.flags.writeable = False

_MAIN, _EDGE = 16, 24
_DIRECT = 0x2000000  # ldraw_data.io.parse.DIRECT_COLOR_FLAG (LDraw spec: 0x2RRGGBB)


@dataclass(frozen=True)
class PartGeometry:
    """Indexed triangles of one distinct part, in its own LDraw frame.

    Attributes
    ----------
    key : str
        Mesh key, the normalized file name (``"3001.dat"``).
    ldraw_id : str
        Part id without ``.dat`` (``"3001"``).
    vertices : (v, 3) float32, LDU, LDraw part frame
        Merged vertices (those within 1e-4 LDU are one).
    groups : dict of int to (f, 3) uint32
        Triangles (indices into ``vertices``, counter-clockwise seen from the
        visible side) per colour code written in the part file: 16 (placement
        colour), 24 (its edge colour) or a fixed code.
    """

    key: str
    ldraw_id: str
    vertices: np.ndarray
    groups: dict

    @property
    def n_triangles(self) -> int:
        """Number of triangles over all groups (uncertified ones counted twice)."""
        return int(sum(len(g) for g in self.groups.values()))


@dataclass(frozen=True)
class Instance:
    """One placement of a part.

    Attributes
    ----------
    part : str
        Key into :attr:`ExportScene.parts`.
    ldraw_id : str
    color : int
        The placement's LDraw colour code (what 16 in the part becomes).
    matrix : (4, 4) float64, LDU
        Part frame (LDraw) -> world, LDraw frame (-Y up).
    """

    part: str
    ldraw_id: str
    color: int
    matrix: np.ndarray


@dataclass(frozen=True)
class MaterialSpec:
    """An LDraw colour as a physically based material (glTF metallic-roughness model).

    Attributes
    ----------
    code : int
        LDraw colour code (a direct colour ``0x2RRGGBB`` for edge colours).
    name : str
        LDConfig name (``"Trans_Clear"``), or ``"Direct_RRGGBB"``.
    rgb : (3,) int, 0-255, sRGB
        ``VALUE`` of ``LDConfig.ldr``.
    alpha : int, 0-255
        ``ALPHA`` of ``LDConfig.ldr`` (255 when absent; transparent colours have 128).
    finish : str
        LDConfig finish keyword (``""``, ``"CHROME"``, ``"PEARLESCENT"``, ``"METAL"``, ...).
    metallic, roughness : float, 0-1
        From :data:`FINISH_PBR`.
    """

    code: int
    name: str
    rgb: tuple
    alpha: int
    finish: str
    metallic: float
    roughness: float

    @property
    def base_color_linear(self) -> list[float]:
        """glTF ``baseColorFactor``: linear RGB (sRGB decoded, glTF 2.0 spec 3.9.2) and alpha 0-1."""
        return [*(srgb_to_linear(c / 255.0) for c in self.rgb), self.alpha / 255.0]

    @property
    def is_transparent(self) -> bool:
        """True when alpha < 255."""
        return self.alpha < 255

    @property
    def label(self) -> str:
        """Material name written to files: ``"4_Red"``, ``"47_Trans_Clear"``, ``"direct_333333"``."""
        if self.code >= _DIRECT:
            return f"direct_{self.code & 0xFFFFFF:06X}"
        return f"{self.code}_{self.name}"


#: (metallic, roughness) per LDConfig finish keyword. LDConfig names a finish but gives no optical numbers;
#: these are this project's choices for a plausible look in glTF viewers: ABS plastic is a smooth
#: dielectric, chrome a polished metal, METAL (flat silver, copper) and MATTE_METALLIC a rougher metal,
#: PEARLESCENT half-metallic (glTF has no pearl model), RUBBER a rough dielectric. MATERIAL (glitter,
#: speckle) is drawn as plastic.
FINISH_PBR = {
    "": (0.0, 0.3),
    "CHROME": (1.0, 0.1),
    "METAL": (1.0, 0.35),
    "MATTE_METALLIC": (1.0, 0.55),
    "PEARLESCENT": (0.5, 0.3),
    "RUBBER": (0.0, 0.85),
    "MATERIAL": (0.0, 0.3),
}


def srgb_to_linear(c: float) -> float:
    """sRGB-encoded value 0-1 to linear 0-1 (IEC 61966-2-1 transfer function)."""
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def material_of(code: int, table) -> MaterialSpec:
    """The material of an LDraw colour code.

    Parameters
    ----------
    code : int
        LDConfig code or direct colour ``0x2RRGGBB``.
    table : ldraw_data.colors.ColorTable

    Returns
    -------
    MaterialSpec
        Unknown codes are mid grey (128, 128, 128), opaque, named ``"Unknown_<code>"``
        (logged as a warning), as the renderer draws them.
    """
    c = table.get(int(code))
    if c is None:
        log.warning("unknown LDraw colour %d exported as grey", code)
        return MaterialSpec(int(code), f"Unknown_{code}", (128, 128, 128), 255, "", *FINISH_PBR[""])
    fin = c.finish.upper()
    met, rough = FINISH_PBR.get(fin, FINISH_PBR[""])
    return MaterialSpec(int(code), c.name, tuple(int(v) for v in c.rgb), int(c.alpha), fin, met, rough)


@dataclass
class ExportScene:
    """Distinct part meshes, placements and the colour table of one build.

    Attributes
    ----------
    parts : dict of str to PartGeometry
    instances : list of Instance
        Placements whose part has triangles, in the build's flattened order.
    skipped : list of str
        Part ids of placements left out (no geometry: unknown to the library and not embedded).
    table : ldraw_data.colors.ColorTable
    """

    parts: dict
    instances: list
    skipped: list
    table: object
    _materials: dict = field(default_factory=dict)

    def resolve(self, code: int, placement_color: int) -> int:
        """Colour code drawn for a triangle group ``code`` of a placement in ``placement_color``.

        16 -> the placement colour; 24 -> the placement colour's edge colour as a
        direct colour ``0x2RRGGBB`` (LDraw spec 1.0.2); other codes unchanged.
        """
        if code == _MAIN:
            return int(placement_color)
        if code == _EDGE:
            c = self.table.get(int(placement_color))
            r, g, b = c.edge if c is not None else (0x33, 0x33, 0x33)
            return _DIRECT | (int(r) << 16) | (int(g) << 8) | int(b)
        return int(code)

    def material(self, code: int) -> MaterialSpec:
        """:func:`material_of` ``code``, cached."""
        m = self._materials.get(code)
        if m is None:
            m = self._materials[code] = material_of(code, self.table)
        return m

    def colors_used(self) -> set[int]:
        """Every resolved colour code some exported triangle is drawn in."""
        out = set()
        for inst in self.instances:
            for code in self.parts[inst.part].groups:
                out.add(self.resolve(code, inst.color))
        return out

    def bounds_ldu(self) -> np.ndarray:
        """(2, 3) float64 ``[min, max]`` of every exported vertex, LDraw world frame, LDU."""
        lo = np.full(3, np.inf)
        hi = np.full(3, -np.inf)
        by_part: dict[str, list[np.ndarray]] = {}
        for inst in self.instances:
            by_part.setdefault(inst.part, []).append(inst.matrix)
        for key, mats in by_part.items():
            v = self.parts[key].vertices.astype(np.float64)
            m = np.asarray(mats)
            w = np.einsum("kij,vj->kvi", m[:, :3, :3], v) + m[:, None, :3, 3]
            lo = np.minimum(lo, w.reshape(-1, 3).min(axis=0))
            hi = np.maximum(hi, w.reshape(-1, 3).max(axis=0))
        return np.stack([lo, hi])


@dataclass(frozen=True)
class ExportResult:
    """What an export wrote.

    Attributes
    ----------
    path : Path
    placements : int
        Part placements written.
    distinct_parts : int
        Distinct part meshes (each stored once where the format can share geometry).
    materials : int
        Distinct LDraw colours written as materials.
    triangles : int
        Triangles written (stored once per distinct part for glTF/USD; per placement for OBJ/STL).
    skipped : tuple of str
        Part ids left out for having no geometry.
    watertight : bool or None
        STL only: whether the merged mesh is closed (LDraw parts are open shells, so usually False).
    """

    path: Path
    placements: int
    distinct_parts: int
    materials: int
    triangles: int
    skipped: tuple = ()
    watertight: bool | None = None

    def to_dict(self) -> dict:
        """JSON-ready dict."""
        return {"path": str(self.path), "placements": self.placements, "distinct_parts": self.distinct_parts,
                "materials": self.materials, "triangles": self.triangles, "skipped": list(self.skipped),
                "watertight": self.watertight}


def check_target(path, suffixes: tuple[str, ...], overwrite: bool) -> Path:
    """Validate an output path: the right suffix, not a folder, not an existing file unless ``overwrite``.

    Raises
    ------
    ValueError
        Wrong suffix (names the suffixes accepted).
    IsADirectoryError
        ``path`` is a folder.
    FileExistsError
        ``path`` exists and ``overwrite`` is False.
    """
    p = Path(path)
    if p.suffix.lower() not in suffixes:
        raise BrickLayerValueError(f"{p}: the file name must end in {' or '.join(suffixes)}")
    if p.is_dir():
        raise OutputIsAFolderError(f"{p} is a folder; give a file name")
    if p.exists() and not overwrite:
        raise OutputExistsError(f"{p} exists; pass overwrite=True to replace it")
    return p


def _part_geometry(key: str, ldraw_id: str, mesh, merge_tolerance: float = 1e-4) -> PartGeometry:
    tris = np.asarray(mesh.triangles, dtype=np.float64)
    colors = np.asarray(mesh.colors)
    unoriented = ~np.asarray(mesh.oriented, dtype=bool)
    if unoriented.any():  # winding unknown: both sides (as bricklayer.render.geometry does)
        tris = np.concatenate([tris, tris[unoriented][:, [0, 2, 1]]])
        colors = np.concatenate([colors, colors[unoriented]])
    verts = tris.reshape(-1, 3)
    keys = np.round(verts / merge_tolerance).astype(np.int64)
    uniq, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    faces = inverse.reshape(-1, 3).astype(np.uint32)
    ok = (faces[:, 0] != faces[:, 1]) & (faces[:, 1] != faces[:, 2]) & (faces[:, 0] != faces[:, 2])
    groups = {}
    for code in np.unique(colors[ok]):
        groups[int(code)] = np.ascontiguousarray(faces[ok & (colors == code)])
    return PartGeometry(key, ldraw_id, verts[first].astype(np.float32), groups)


def build_scene(build, library=None) -> ExportScene:
    """Reduce a build to distinct part meshes and placements (see the module docstring).

    Parameters
    ----------
    build : LegoBuild
        Any build; nested builds are flattened (``build.flattened_placements``).
        Parts embedded in the model (bent hoses, custom stickers) are found in
        ``build.embedded_files``.
    library : LDrawLibrary, optional

    Returns
    -------
    ExportScene

    Raises
    ------
    TypeError
        When ``build`` is not a LegoBuild.
    ValueError
        When no placement has geometry (nothing to export).
    """
    from ldraw_data.colors import get_color_table
    from ldraw_data.mesh import load_meshes

    from ..build import LegoBuild
    from ..render.geometry import embedded_document

    if not isinstance(build, LegoBuild):
        raise BrickLayerTypeError(f"export needs a LegoBuild, got {type(build).__name__}")
    table = get_color_table(library)
    flat = build.flattened_placements
    names = [p.content.ldraw_id + ".dat" for p in flat]
    meshes = load_meshes(names, library, embedded=embedded_document(build), on_missing="warn")
    parts: dict[str, PartGeometry] = {}
    instances: list[Instance] = []
    skipped: list[str] = []
    for p, name in zip(flat, names):
        m = meshes.get(name)
        el = p.content
        if m is None or m.is_empty:
            skipped.append(el.ldraw_id)
            continue
        key = m.name
        if key not in parts:
            parts[key] = _part_geometry(key, el.ldraw_id, m)
            if not parts[key].groups:
                skipped.append(el.ldraw_id)
                continue
        elif not parts[key].groups:
            skipped.append(el.ldraw_id)
            continue
        to_local = el.ldraw_to_local if getattr(el, "_known", True) else L2B
        world = B2L @ p.pose.matrix @ to_local  # LDraw part frame -> LDraw world
        instances.append(Instance(key, el.ldraw_id, int(el.color), world))
    parts = {k: v for k, v in parts.items() if v.groups}
    if not instances:
        raise BrickLayerValueError(f"nothing to export: the build has {len(flat)} placements and none has triangles "
                         "(unknown parts?); check build.import_warnings")
    if skipped:
        log.warning("%d placements have no geometry and are left out of the export: %s", len(skipped),
                    ", ".join(sorted(set(skipped))[:10]))
    return ExportScene(parts, instances, skipped, table)
