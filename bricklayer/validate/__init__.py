"""The validator: connections, collisions and support (floating parts).

Its stages, one module each (0 world arrays, 1 catalog checks, 2 broad phase, 3 narrow phase, 4 press fits,
5 connections, 6 support, 7 findings into the one report), and how to add a rule: ``docs/architecture.md``.

:mod:`.connections` builds the connector graph, :mod:`.collisions` finds
intersecting parts (FCL, inset meshes), :mod:`.support` finds floating parts.
Three forms per question (house style 6): witnesses
(:func:`colliding_placements`, :func:`floating_placements`), counts, and one
structured report for feedback (:func:`validation_report`, the one
:class:`~.report.ValidationReport`).
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

from .connections import ConnectionGraph, connection_graph
from .report import ValidationReport  # the one report (the name of the older class here before it)


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


def validation_report(build, max_depth_estimates: int = 200, *, source: str = "build",
                      expected_components: int | None = None) -> ValidationReport:
    """Validate a build: the one :class:`~.report.ValidationReport` (the verdict ``valid`` and every finding).

    The same report ``brickwright validate`` prints (its ``--json`` is :meth:`ValidationReport.to_dict`) and
    the agent's judge returns: collisions (with the overlap and the move that clears it), floating and
    below-ground parts, unseated stud pairs, catalog checks, connected components, one problem line with a
    hint per finding (:func:`.findings.report_of`).

    Parameters
    ----------
    build : LegoBuild
    max_depth_estimates : int
        Overlap depth is estimated for at most this many collisions.
    source : str
        Name shown in the summary line.
    expected_components : int, optional
        When given, another number of connected components makes the build not valid.

    Returns
    -------
    ValidationReport
        ``valid`` is :attr:`.report.ValidationReport.valid`, the one definition.
    """
    from .findings import report_of

    return report_of(build, source=source, expected_components=expected_components,
                     max_depth_estimates=max_depth_estimates)
