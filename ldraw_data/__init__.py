"""ldraw_data: the LDraw parts library for BrickLayer and BrickWright.

Locating and installing the library, parsing ``.dat/.ldr/.mpd`` files,
colours (LDConfig), the part catalog, part meshes and their cache, and
connector annotations. Knows nothing of :mod:`bricklayer`.
"""

# errors
from .errors import (
    LDrawError,
    LDrawFileNotFoundError,
    LDrawLimitError,
    LDrawParseError,
    LDrawWarning,
    LibraryNotFoundError,
    PartNotFoundError,
)

# library
from .library import (
    LDrawLibrary,
    cache_dir,
    data_dir,
    find_library,
    find_shadow_library,
    get_library,
    install_library,
    normalize_name,
)

# files
from .io import (
    MAX_FLAT_PARTS,
    MAX_PART_TRIANGLES,
    MAX_SUBMODEL_DEPTH,
    FlatModel,
    FlatPart,
    flatten,
    load_model,
    parse_document,
    read_document,
)

# colours
from .colors import ColorDef, ColorTable, get_color_table

# meshes
from .mesh import PartMesh, clear_mesh_cache, load_meshes, mesh_from_document, part_mesh, world_bounds

# connectors
from .connectors import (
    ConnectorDef,
    JointKind,
    compatible_types,
    mate_kind,
    part_connectors,
    type_matches,
    world_connector_frames,
)

# catalog and search
from .catalog import Catalog, PartSpec, build_popularity, get_catalog, popularity, write_popularity
from .search import search_parts

__all__ = [
    "LDrawError", "LDrawFileNotFoundError", "LDrawLimitError", "LDrawParseError", "LDrawWarning", "LibraryNotFoundError", "PartNotFoundError",
    "LDrawLibrary", "cache_dir", "data_dir", "find_library", "find_shadow_library", "get_library",
    "install_library", "normalize_name",
    "MAX_FLAT_PARTS", "MAX_PART_TRIANGLES", "MAX_SUBMODEL_DEPTH",
    "FlatModel", "FlatPart", "flatten", "load_model", "parse_document", "read_document",
    "ColorDef", "ColorTable", "get_color_table",
    "PartMesh", "clear_mesh_cache", "load_meshes", "mesh_from_document", "part_mesh", "world_bounds",
    "ConnectorDef", "JointKind", "compatible_types", "mate_kind", "part_connectors", "type_matches",
    "world_connector_frames",
    "Catalog", "PartSpec", "build_popularity", "get_catalog", "popularity", "write_popularity", "search_parts",
]
