"""3D exports and parts lists of builds: glTF 2.0 binary, OBJ (+ MTL), STL and USD.

``write_gltf`` (``.glb``), ``write_obj`` (``.obj`` with a ``.mtl`` beside
it), ``write_stl`` (one merged mesh in mm for printing) and ``write_usd``
(``.usd``/``.usda``/``.usdc``, needs the optional ``usd-core`` package) each
write one file atomically and refuse to replace an existing one unless
``overwrite=True``. ``parts_list``/``write_parts_list`` count parts by id
and colour (CSV, and marketplace import files where a colour table is given). Frames, units and colour rules: docs/export.md and
:mod:`bricklayer.export._scene`.
"""

from ._scene import LDRAW_TO_GLTF, METRES_PER_LDU, MM_PER_LDU, ExportResult, MaterialSpec, build_scene, material_of
from .gltf import write_gltf
from .meshfiles import write_obj, write_stl
from .usd import write_usd
from .parts_list import PartsListFile, PartsListRow, parts_list, parts_list_text, read_id_map, write_parts_list

__all__ = [
    "write_gltf", "write_obj", "write_stl", "write_usd",
    "ExportResult", "MaterialSpec", "build_scene", "material_of",
    "LDRAW_TO_GLTF", "METRES_PER_LDU", "MM_PER_LDU",
    "parts_list", "parts_list_text", "write_parts_list", "read_id_map", "PartsListRow", "PartsListFile",
]
