"""The protocol every deadlock strategy follows, and what it is handed.

When the search is stuck (every unit left is blocked, holds others up, or lost its neighbours), it asks the
strategies of ``PlannerOptions.strategies``, in that order, for a way on; the first that finds one changes
the search's state (removes units, marks snap fits, replaces units) and the search goes on. When none does,
the search gives up on one unit (:meth:`bricklayer.assembly.search._Search._give_up`).

To add a strategy: write a module here with a class that has a ``name`` and an ``apply`` method as in
:class:`DeadlockStrategy`, add an instance to :data:`bricklayer.assembly.strategies.STRATEGIES`, and put its
name in ``PlannerOptions.strategies`` where it should be tried (``options.DEFAULT_STRATEGIES``).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

__all__ = ["DeadlockStrategy", "snap_fits_found"]


@runtime_checkable
class DeadlockStrategy(Protocol):
    """One way out of a deadlock of the search.

    ``name``: the key of the strategy in ``PlannerOptions.strategies``.

    ``apply(search, left, why, removed, failed)`` is called when the search is stuck:

    - ``search``: the :class:`~bricklayer.assembly.search._Search` (its geometry ``search.g``, planner
      ``search.pl`` with the options ``search.pl.opt``, units, parts and bookkeeping methods);
    - ``left``: indices of the units still in the model;
    - ``why``: unit index -> why it could not leave: ``("blocked", {direction name: blocking part})``,
      ``("holds", part it holds up)`` or ``("lost", None)``;
    - ``removed``: the search's removals so far (:class:`~bricklayer.assembly.plan.Move`, removal order);
      a strategy that takes units out appends their moves;
    - ``failed``: flat index -> reason, for parts given up.

    Returns None when the strategy does not apply (the next one is asked), else the indices of units it
    added to the search (often ``[]``); the search then starts a new round.
    """

    name: str

    def apply(self, search, left: list, why: dict, removed: list, failed: dict) -> list | None:
        ...



def snap_fits_found(search, why: dict, found: int) -> list | None:
    """End of a strategy that takes part pairs as snap fits: None when it found none (``found`` 0); else the
    pairs are counted in ``AssemblyPlan.snap_fits``, ``why`` (unit -> reason it is stuck) is cleared, as the
    pairs no longer block each other, and ``[]`` is returned (no new units)."""
    if not found:
        return None
    search.pl.snap_fits += found
    why.clear()
    return []
