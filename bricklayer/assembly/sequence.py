"""From the search's result to the public plan: steps, insertions (the moves to replay) and the build
re-ordered into LDraw steps; :func:`assembly_sequence`, the planner's entry point."""

from __future__ import annotations
from ..errors import BrickLayerTypeError, BrickLayerValueError

import logging
import time

import numpy as np

from .options import DIRECTIONS
from .options import TIME_BUDGET, PlannerOptions, cpu_clock
from .plan import AssemblyPlan, _identity, is_sub_build
from .search import _Planner

__all__ = ["assembly_sequence"]

log = logging.getLogger("bricklayer.assembly")


def _insertions(pl: _Planner, res: dict, pose: np.ndarray, off: int, level: int, out: list,
                placed: np.ndarray | None = None) -> list:
    """Append the moves of one planned assembly to ``out`` (see ``AssemblyPlan.insertions``); returns its
    parts (flat indices of the top build). ``pose``: the assembly's world pose (4, 4); ``off``: the flat
    index of its first part in the top build."""
    placed = res.placed if placed is None else placed
    rot = np.asarray(pose)[:3, :3]
    mine: list = []
    for u, dname in res.units:
        if is_sub_build(u.content):
            pl.n_levels += 1
            parts = _insertions(pl, pl.sub_plans[id(u.content)], np.asarray(pose) @ u.pose.matrix,
                                off + int(u.idx[0]), pl.n_levels, out)
        elif u.sub is not None:
            pl.n_levels += 1
            parts = _insertions(pl, u.sub, pose, off, pl.n_levels, out, placed)
        else:
            parts = [off + i for i in u.idx.tolist() if placed[i]]
        dv = u.dv if u.dv is not None else DIRECTIONS[0]
        d = rot @ np.asarray(dv, dtype=np.float64)
        move = dict(parts=parts, direction=tuple(float(x) for x in d / np.linalg.norm(d)), name=dname, level=level)
        if u.turn is not None:
            ax, pv, deg = u.turn
            pw = np.asarray(pose) @ np.append(np.asarray(pv, dtype=np.float64), 1.0)
            move["turn"] = dict(axis=tuple(float(x) for x in rot @ np.asarray(ax)), pivot=tuple(float(x) for x in pw[:3]),
                                degrees=float(deg))
        if u.held:
            move["held"] = True
        if u.press is not None:
            pd, ps = u.press
            move["press"] = dict(direction=tuple(float(x) for x in rot @ np.asarray(pd, dtype=np.float64)),
                                 distance=float(ps))
        out.append(move)
        mine.extend(parts)
    return mine


def _sequence_build(planner: _Planner, build, res: dict, memo: dict):
    """The build re-created with placements in plan order and steps."""
    if id(build) in memo:
        return memo[id(build)]
    seq = type(build)(name=build.name)  # the build's own class: this module does not import bricklayer.build
    seq.embedded_files = dict(build.embedded_files)
    seq.embedded_file_lines = dict(build.embedded_file_lines)
    seq.ldraw_data_files = dict(build.ldraw_data_files)
    flat = res.flat
    n_in_step, last_dir, first = 0, None, True
    inside: set = set()  # parts of kept sub-builds: their own sequences add their skipped parts
    for u, dname in res.units:
        is_sub = is_sub_build(u.content)
        if is_sub:
            inside.update(u.idx.tolist())
        if not first and (is_sub or u.sub is not None or dname != last_dir or n_in_step >= planner.max_step):
            seq.step()
            n_in_step = 0
        first = False
        if is_sub:
            sub = _sequence_build(planner, u.content, planner.sub_plans[id(u.content)], memo)
            seq.add_raw(sub, u.pose, color=u.color)
            n_in_step = planner.max_step  # a sub-build is a step of its own
        elif u.sub is not None:
            # a subassembly: an MPD submodel of its own with its own steps, inserted whole
            planner.n_groups += 1
            grp = type(build)(name=f"{build.name or 'model'}-subassembly-{planner.n_groups}")
            last = None
            for (v, dn) in u.sub.units:
                if last is not None and dn != last:
                    grp.step()
                for i in v.idx.tolist():  # one part, or a held pair
                    grp.add_raw(flat[i].content, flat[i].pose)
                last = dn
            seq.add_raw(grp, _identity())
            n_in_step = planner.max_step
        else:
            for i in [i for i in u.idx.tolist() if i not in res.skip]:
                seq.add_raw(flat[i].content, flat[i].pose)
                n_in_step += 1
        last_dir = dname
    placed = res.placed
    extra = [sorted(res.skip), sorted(res.failed)]
    for group in extra:
        group = [i for i in group if not placed[i] and i not in inside]
        if group:
            if len(seq):
                seq.step()
            for i in group:
                seq.add_raw(flat[i].content, flat[i].pose)
    memo[id(build)] = seq
    return seq


def assembly_sequence(build, *, max_parts_per_step: int = 6, time_budget: float | None = TIME_BUDGET,
                      separate_objects: bool = False, options: PlannerOptions | None = None) -> AssemblyPlan:
    """Find a buildable order of a build's parts (see module rules).

    Parameters
    ----------
    build : LegoBuild
    max_parts_per_step : int
        Consecutive parts inserted in the same direction are grouped into
        steps of at most this many.
    time_budget : float or None, CPU seconds
        Planning stops after this much CPU time of the calling process
        (``time.process_time``, so the same build gets the same plan however
        busy the machine is; on an idle machine it is about the wall time);
        parts not reached by then are reported failed ("time budget
        exceeded"). None: no limit. Three quarters go to the search, the rest
        to checking the parts it did not reach bottom-up.
    separate_objects : bool
        Let objects drawn apart (touching nothing, nothing below them) stand on
        their own ground, as official files draw stands and loose parts
        (:func:`bricklayer.validate.support.support_graph`). Off by default, as
        in the validator: a part hanging in the air cannot be placed.
    options : PlannerOptions or None
        The planner's settings (time shares, sampling step, group sizes, turn angles, press lifts...);
        None: :class:`PlannerOptions` defaults.

    Returns
    -------
    AssemblyPlan
        Indices refer to ``build.flattened_placements``.

    Raises
    ------
    ValueError
        ``max_parts_per_step`` below 1 or a negative ``time_budget``.
    """
    if int(max_parts_per_step) < 1:
        raise BrickLayerValueError(f"max_parts_per_step must be 1 or more, not {max_parts_per_step}")
    if time_budget is not None and not time_budget >= 0:
        raise BrickLayerValueError(f"time_budget must be a number of seconds >= 0 or None, not {time_budget}")
    t0, wall0 = cpu_clock(), time.perf_counter()
    budget = time_budget if time_budget is not None else 1e18
    opt = options if options is not None else PlannerOptions()
    if not isinstance(opt, PlannerOptions):
        raise BrickLayerTypeError(f"options must be a PlannerOptions, not {type(opt).__name__}")
    pl = _Planner(max_parts_per_step, t0 + opt.search_share * budget, t0 + budget, separate_objects, t0, opt)
    res = pl.plan(build)
    pl.n_groups = 0
    seq = _sequence_build(pl, build, res, {})
    # steps of the top level in flat indices
    steps, cur, n_in, last = [], [], 0, None
    groups = []
    for u, dname in res.units:
        if is_sub_build(u.content) or u.sub is not None:
            if cur:
                steps.append(cur)
            if u.sub is not None:
                ids = list(u.sub.order)
                groups.append((ids, dname))
            else:
                off = int(u.idx[0])
                ids = [off + i for i in pl.sub_plans[id(u.content)].order]
            steps.append(ids)
            cur, n_in, last = [], 0, None
            continue
        ids = [i for i in u.idx.tolist() if i not in res.skip]
        if cur and (dname != last or n_in >= max_parts_per_step):
            steps.append(cur)
            cur, n_in = [], 0
        cur.extend(ids)
        n_in += len(ids)
        last = dname
    if cur:
        steps.append(cur)
    skipped = dict(res.skip)
    pl.n_levels = 0
    moves: list = []
    _insertions(pl, res, np.eye(4), 0, 0, moves)
    plan = AssemblyPlan(res.order, steps, res.directions, res.failed, skipped, pl.kept, pl.dissolved,
                        seq, time.perf_counter() - wall0, len(res.flat), groups, pl.snap_fits, moves, pl.held_steps)
    log.info("assembly sequence: %d of %d planned parts placed (%d skipped) in %.2f s", len(plan.order),
             plan.n_parts - len(skipped), len(skipped), plan.seconds)
    return plan
