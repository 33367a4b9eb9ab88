"""LDraw file IO: pure parsing (:mod:`.parse`) and model reading/flattening (:mod:`.model`)."""

from .model import (
    ORTHONORMAL_TOLERANCE,
    FlatModel,
    FlatPart,
    flatten,
    load_model,
    orthonormalize,
    read_document,
    rotation_deviation,
)
from .limits import MAX_FLAT_PARTS, MAX_PART_TRIANGLES, MAX_SUBMODEL_DEPTH, SubmodelTree, measure_submodels
from .parse import (
    DIRECT_COLOR_FLAG,
    Geometry,
    LDrawDocument,
    LDrawFile,
    Meta,
    SubfileRef,
    parse_color,
    parse_document,
    parse_file,
)

__all__ = [
    "DIRECT_COLOR_FLAG", "Geometry", "LDrawDocument", "LDrawFile", "Meta", "SubfileRef",
    "parse_color", "parse_document", "parse_file",
    "ORTHONORMAL_TOLERANCE", "FlatModel", "FlatPart", "flatten", "load_model", "orthonormalize",
    "read_document", "rotation_deviation",
    "MAX_FLAT_PARTS", "MAX_PART_TRIANGLES", "MAX_SUBMODEL_DEPTH", "SubmodelTree", "measure_submodels",
]
