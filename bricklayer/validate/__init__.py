"""The validator: connections, collisions and support (floating parts).

:mod:`.connections` builds the connector graph. Collision and support checks
live in :mod:`.collisions` and :mod:`.support`.
"""

from .connections import ConnectionGraph, connection_graph


def colliding_placements(build):
    """Pairs of colliding parts of a build (see :mod:`bricklayer.validate.collisions`)."""
    from .collisions import colliding_placements as _cp

    return _cp(build)


def floating_placements(build):
    """Floating parts of a build (see :mod:`bricklayer.validate.support`)."""
    from .support import floating_placements as _fp

    return _fp(build)


__all__ = ["ConnectionGraph", "connection_graph", "colliding_placements", "floating_placements"]
