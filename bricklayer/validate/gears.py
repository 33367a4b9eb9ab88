"""Meshing gears of a build: the gear rules of :mod:`.gear_geometry` applied to the collision engine's
candidate pairs (issue 16, item 12).

The rules (pitch radii, centre distances, tolerances, measured on the official models) live in
:mod:`.gear_geometry`, below the press-fit and collision stages that use them; this module sits above the
collision engine and re-exports them, so every name stays importable from here.
"""

from __future__ import annotations

__all__ = ["GearSpec", "GearMesh", "gear_spec", "gear_mesh", "gear_meshes", "DISTANCE_TOL", "PLANE_TOL"]

from .collisions import collision_engine
# every name of the rules stays importable from here (the module constants too)
from .gear_geometry import (BEVEL_OFFSET, DISTANCE_TOL, PLANE_TOL, RADIUS_PER_TOOTH, WORM_HALF,  # noqa: F401
                            WORM_RADIUS, GearMesh, GearSpec, gear_mesh, gear_spec, mesh_pairs)


def gear_meshes(build) -> list[GearMesh]:
    """Every gear mesh of a build: gear pairs close enough to touch (the collision broad phase's
    candidates) that mesh (module rules).

    Parameters
    ----------
    build : LegoBuild

    Returns
    -------
    list of GearMesh
        In placement order; ``ratio`` is the tooth ratio (teeth of ``b`` / teeth of ``a``).
    """
    eng = collision_engine(build)
    return mesh_pairs(build, eng.pairs)
