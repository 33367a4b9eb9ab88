"""The protocol every deadlock strategy follows, and what it is handed.

When the search is stuck (every unit left is blocked, holds others up, or lost its neighbours), it asks the
strategies of ``PlannerOptions.strategies``, in that order, for a way on; the first that finds one changes
the search's state (removes units, marks snap fits, replaces units) and the search goes on. When none does,
the search gives up on one unit (:meth:`bricklayer.assembly.search._Search._give_up`).

To add a strategy: write a module here with a class that has a ``name`` and an ``apply`` method as in
:class:`DeadlockStrategy`, add an instance to :data:`bricklayer.assembly.strategies.STRATEGIES`, and put its
name in ``PlannerOptions.strategies`` where it should be tried (``options.DEFAULT_STRATEGIES``).

What a strategy may use (nothing else; no private name, ``_x``, of another module or object:
``tests/test_architecture.py::test_strategies_use_only_the_public_interface``). Units are indices into
``search.units``; parts are flat indices of the planning build; directions unit vectors (planning frame).

The search ``search`` (:class:`~bricklayer.assembly.search._Search`):

- ``units``, ``parts``: :class:`~bricklayer.assembly.plan.Unit` and its planned parts (int array) per unit;
  ``owner`` (part -> unit or -1), ``alive`` (part still in the model), ``gone`` (unit taken out),
  ``nbr`` (unit -> neighbouring units), ``g``, ``pl``, ``deadline`` (``cpu_clock`` seconds);
  ``top_level``, ``allow_groups``, ``nested`` (what kind of search it is);
- ``top(k)``: top z (LDU) of unit k; ``grounded(k)``: unit k is a root; ``own_parts(k)``: its parts as a set;
- ``unit_directions(k)``: ``(name, vector)`` directions of unit k in the order tried;
- ``all_blockers(parts, dv)``: live parts stopping ``parts`` along ``dv``;
- ``cut_off(ks)``: neighbours left without a root (in hand: split off) without units ``ks``;
  ``stranded(ks)``: the units that taking ``ks`` out leaves hanging, or None when too many;
  ``units_connected(ks)``: units ``ks`` are one piece;
- ``stuck_parts(left, why, kind)``: single-part units stuck for ``kind``, highest first;
- ``drop_unit(k)``: take unit k out; ``replace_units(ks, new_units)``: swap units, returns the new indices;
- ``sequence_group(ks, extra)``: plan of units ``ks`` (and parts ``extra``) built in hand, or None;
- ``child_units(u)``, ``units_without(u, parts)``, ``units_taken_apart(u)``: the units one level down of a
  multi-part unit, without some parts, or opened down to parts and kept sub-builds;
- ``bad_groups``, ``bad_peels``, ``press_met``: memos of the strategies' failed tries;
- ``type(search)(pl, g, units, roots, allow_groups, in_hand=, deadline=)`` and ``run()``: a new search.

The planner ``search.pl`` (:class:`~bricklayer.assembly.search._Planner`): ``opt``
(:class:`~bricklayer.assembly.options.PlannerOptions`); counters ``kept``, ``dissolved``, ``snap_fits``,
``held_steps``, ``peel_left`` (CPU seconds); ``sub_build_units(unit, flat)``: a sub-build's placements as
units; ``expand_sub_builds(units, flat)``: sub-builds that cannot be kept replaced by their placements;
``planned_assembly(g, removed, failed)``: a search's removals as a
:class:`~bricklayer.assembly.plan.PlannedAssembly`.

The geometry ``search.g`` (:class:`~bricklayer.assembly.geometry._Geometry`): ``n``, ``flat``, ``t``/``inv``
(world poses and their inverses), ``has``, ``skip``, ``neighbors``, ``contact``, ``hit_pairs``,
``joint_axes``, ``hinges``, ``snap`` (pairs taken as snap fits; a strategy adds to it);
``directions(i)``, ``candidates(i, dv)``, ``blocks(u, j, dv)``: the path test of one part;
``snap_fit(u, j)``, ``has_clip(j)``, ``threaded_axes(pin, i)``, ``press_in(...)``, ``turn_group_in(...)``;
``final_inset(u, j)``, ``overlap_interval(u, j, dv)``, ``model(i, inset)``, ``sweep(...)``: the pieces of the
sampled path test, for a test with another inset; ``flex_fail``, ``flex_deep``: memos of flexed tries.

Module functions: :func:`~bricklayer.assembly.options.cpu_clock`,
:func:`~bricklayer.assembly.plan.is_sub_build`, :func:`~bricklayer.assembly.plan.planned_parts`,
:func:`~bricklayer.assembly.geometry.connected_pieces`, :class:`~bricklayer.assembly.plan.Move`,
:func:`snap_fits_found`, :func:`~bricklayer.assembly.strategies.subassembly.take_group`.
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
