"""BrickLayer: write LEGO builds in Python that can really be built.

Frame: +X right, +Y back, +Z up; lengths in LDU (1 stud = 20, 1 plate = 8,
1 brick = 24). Grid positions are (x studs, y studs, z plates). Place
elements with ``add``/``stack`` (grid) or ``connect`` (typed connectors), nest
builds, check them (``colliding_placements``, ``floating_placements``,
``connected_components``) and export to LDraw (``write_ldraw``), glTF, OBJ, STL or
USD (``write_gltf``, ...), or a parts list (``write_parts_list``).

Errors: every error the toolkit raises on purpose derives from ``ToolkitError`` (``except ToolkitError``
catches bad input, unknown parts, unreadable files and unwritable outputs; anything else is a bug); each
kind also derives from the built-in it replaced (``ValueError``, ``KeyError``, ``OSError``...), and
``BrickLayerError``/``LDrawError`` are the library layers' branches (:mod:`bricklayer.errors` draws the tree).
"""

# errors
from .errors import BrickLayerError, LDrawError, ToolkitError

# units
from .constants import BRICK, LDU, MM, PLATE, STUD, TOL

# value types
from .geometry import Anchor, Box, Direction, Mat3, Pose, Position, Rotation, Vec3, rotation_about
from .color import Color, LDrawColor

# elements and builds
from .element import Element, ElementSpec
from .connector import Connector, ConnectorMismatchError, ConnectorType, compatible_types, describe_connectors
from .joints import Ball, Cylindrical, Fixed, Joint, JointKind, MotionRange, Mounting, Prismatic, Revolute
from .build import ConnectCollisionWarning, FlatPlacement, LegoBuild, Placement, StackCollisionWarning

# LDraw IO
from .io import from_ldraw, read_ldraw, to_ldraw, write_ldraw

# Export, inventory, reference, stability, assembly, construction and articulation are imported on first
# use (PEP 562 ``__getattr__`` below): reading and validating a model needs none of them, and their
# import (about 9,000 lines) is a third of a fresh ``brickwright validate``'s start-up.
_LAZY: dict[str, tuple[str, ...]] = {
    ".export": ("parts_list", "write_gltf", "write_obj", "write_parts_list", "write_stl", "write_usd"),
    ".inventory": ("Inventory", "inventory_problems", "read_inventory"),
    ".catalog": ("part_exists", "search_parts", "translate_to_ground"),
    ".reference": ("api_reference",),
    ".stability": ("StabilityReport", "stability_check", "stability_report"),
    ".assembly": ("AssemblyPlan", "assembly_sequence", "write_instructions"),
    ".construction": ("SizeNotAvailableError", "available_sizes", "brick", "door", "fill_box", "fill_inverted_slope",
                      "fill_slope", "inverted_slope", "minifigure", "mirror", "plate", "slope", "stick", "tile", "window"),
    ".articulation": ("MotionReport", "check_motion", "classify_sliding", "posed"),
}
_LAZY_NAME = {name: module for module, names in _LAZY.items() for name in names}


def __getattr__(name: str):
    """Import the submodule serving ``name`` (:data:`_LAZY`) the first time it is asked for."""
    module = _LAZY_NAME.get(name)
    if module is None:
        raise AttributeError(f"module 'bricklayer' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY_NAME))


__all__ = [
    "Inventory", "read_inventory", "inventory_problems",
    # errors
    "ToolkitError", "BrickLayerError", "LDrawError",
    # units
    "LDU", "MM", "STUD", "PLATE", "BRICK", "TOL",
    # value types
    "Vec3", "Position", "Mat3", "Pose", "Rotation", "rotation_about", "Direction", "Anchor", "Box",
    "Color", "LDrawColor",
    # elements and builds
    "Element", "ElementSpec", "Connector", "ConnectorType", "ConnectorMismatchError", "compatible_types",
    "describe_connectors",
    "Joint", "JointKind", "MotionRange", "Mounting", "Revolute", "Prismatic", "Cylindrical", "Ball", "Fixed",
    "LegoBuild", "Placement", "FlatPlacement", "ConnectCollisionWarning", "StackCollisionWarning",
    # LDraw IO
    "read_ldraw", "from_ldraw", "write_ldraw", "to_ldraw",
    # 3D export and parts lists
    "write_gltf", "write_obj", "write_stl", "write_usd", "parts_list", "write_parts_list",
    # catalog
    "search_parts", "part_exists", "translate_to_ground",
    # reference
    "api_reference",
    # construction helpers
    "brick", "plate", "tile", "slope", "inverted_slope", "available_sizes", "SizeNotAvailableError",
    "minifigure", "door", "window", "mirror",
    "fill_box", "fill_slope", "fill_inverted_slope", "stick",
    # articulation
    "posed", "check_motion", "MotionReport", "classify_sliding",
    # stability and assembly
    "stability_report", "stability_check", "StabilityReport", "assembly_sequence", "AssemblyPlan",
    "write_instructions",
]
