"""The validator: connections, collisions and support (floating parts).

:mod:`.connections` builds the connector graph, :mod:`.collisions` finds
intersecting parts (FCL, inset meshes), :mod:`.support` finds floating parts.
Three forms per question (house style 6): witnesses
(:func:`colliding_placements`, :func:`floating_placements`), counts, and one
structured report for feedback (:func:`validation_report`).
"""

from __future__ import annotations

__all__ = [
    "ConnectionGraph",
    "connection_graph",
    "colliding_placements",
    "floating_placements",
    "collision_details",
    "CollisionRecord",
    "unchecked_placements",
    "validation_report",
    "ValidationReport",
    "gear_meshes",
    "GearMesh",
]

from dataclasses import dataclass, field

from .connections import ConnectionGraph, connection_graph


def colliding_placements(build):
    """Pairs of colliding parts of a build (see :mod:`bricklayer.validate.collisions`)."""
    from .collisions import colliding_placements as _cp

    return _cp(build)


def floating_placements(build):
    """Floating parts of a build (see :mod:`bricklayer.validate.support`)."""
    from .support import floating_placements as _fp

    return _fp(build)


def collision_details(build, max_depth_estimates: int = 200):
    """Reported collisions as :class:`CollisionRecord` (see :func:`.collisions.collision_details`)."""
    from .collisions import collision_details as _cd

    return _cd(build, max_depth_estimates)


def unchecked_placements(build):
    """Parts without geometry, which the validator cannot check (see :mod:`.collisions`)."""
    from .collisions import unchecked_placements as _u

    return _u(build)


def gear_meshes(build):
    """Meshing gear pairs of a build, connections of kind ``gear`` with their tooth ratio
    (:func:`.gears.gear_meshes`); they are not reported as collisions."""
    from .gears import gear_meshes as _gm

    return _gm(build)


def __getattr__(name):
    if name == "CollisionRecord":
        from .collisions import CollisionRecord

        return CollisionRecord
    if name == "GearMesh":
        from .gears import GearMesh

        return GearMesh
    raise AttributeError(name)


@dataclass
class ValidationReport:
    """Everything the validator found, for users and agents.

    Attributes
    ----------
    valid : bool
        No collision and no floating part.
    collisions : list of CollisionRecord
    floating : list of dict
        ``{"part_id", "description", "submodel", "min_z"}`` per floating part
        (``min_z`` in LDU above the ground).
    components : int
        Number of connected components.
    unchecked : list of str
        Descriptions of parts without geometry.
    parts : int
    """

    valid: bool
    collisions: list
    floating: list
    components: int
    unchecked: list
    parts: int
    extra: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        """JSON-ready form (placements as descriptions)."""
        return {
            "valid": self.valid, "parts": self.parts, "components": self.components,
            "collisions": [{"a": r.descriptions[0], "b": r.descriptions[1], "part_ids": list(r.part_ids),
                            "submodels": list(r.submodels), "depth_ldu": round(r.depth, 2),
                            "interference_ldu": (None if r.interference != r.interference
                                                 or r.interference == float("inf") else round(r.interference, 2)),
                            "direction": list(r.direction), "mated": r.mated, "message": r.message()}
                           for r in self.collisions],
            "floating": self.floating, "unchecked": self.unchecked,
        }


def validation_report(build, max_depth_estimates: int = 200) -> ValidationReport:
    """Collisions (with overlap estimates), floating parts, components and unchecked parts.

    Parameters
    ----------
    build : LegoBuild
    max_depth_estimates : int
        Overlap depth is estimated for at most this many collisions.

    Returns
    -------
    ValidationReport
    """
    from .collisions import _submodel, collision_engine
    from .support import support_graph

    cols = collision_details(build, max_depth_estimates)
    sup = support_graph(build)
    eng = collision_engine(build)
    flat = eng.wa.placements
    floating = [{"part_id": flat[i].content.ldraw_id, "description": build.describe(flat[i]),
                 "submodel": _submodel(flat[i]), "min_z": round(float(eng.min_z[i] - sup.ground), 2)}
                for i in sup.floating.tolist()]
    unchecked = [build.describe(p) for p in unchecked_placements(build)]
    return ValidationReport(not cols and not floating, cols, floating,
                            len(connection_graph(build).components), unchecked, len(flat))
