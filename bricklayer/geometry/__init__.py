"""Geometry value types and the LDraw frame conversion."""

from .ldraw_frame import B2L, L2B, bl_to_ldraw, ldraw_to_bl, points_ldraw_to_bl
from .types import (
    Anchor, Box, Direction, Mat3, Pose, Position, Rotation, Vec3, as_position, as_vec3, rotation_about,
)

__all__ = [
    "Anchor", "Box", "Direction", "Mat3", "Pose", "Position", "Rotation", "Vec3", "as_position", "as_vec3",
    "rotation_about", "B2L", "L2B", "bl_to_ldraw", "ldraw_to_bl", "points_ldraw_to_bl",
]
