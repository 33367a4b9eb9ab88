"""Support fault injection: lifted parts and deleted holders must float (issue #4).

On small official models (real built sets: before any fault nothing floats
that is not explained in ``official_report.md``), generates two kinds of
faults and checks the validator:

- ``lift``: one part (not grounded, not flexible) is moved 8 LDU (one plate)
  along its own up axis (local +Z, so a minifigure arm hinged sideways moves
  sideways, off its shoulder). Caught when the part is reported floating and
  has no mated connector left. When the lifted part runs into another part the
  fault is a collision instead (``lift-into``), caught when that collision
  is reported.
  When the up axis is the axis of one of the part's sliding connectors that
  is mated in the intact model (a bar in a clip, a round brick on an axle),
  and the slide is still mated after the lift (the two connectors still
  overlap by ``connections._AXLE_MIN_OVERLAP``), the part slides and stays held:
  ``lift-along-slide``, right when it is *not* reported floating. Slid out of
  its mate (a revolver 30132 whose 6 LDU grip keeps 2.2 LDU in the hand's
  clip), it is a plain ``lift``.
- ``delete``: one part that holds others is deleted; the parts whose every
  support path (in the support graph of the intact model) ran through it must
  all be reported floating.

Prints the detection rate per kind and every miss; ``--json`` writes the rows.
Usage: ``python benchmarks/fault_injection_support.py [--per-model N] [--seed S] [--all-holders]``;
``--all-holders`` deletes every holder of the models, not a sample of ``N`` (254 faults, under a minute).
"""

from __future__ import annotations

import argparse
import json
import logging
import random
from pathlib import Path

import numpy as np

from _faults import index_of, official_texts, owner_of, replace_world

MODELS = ["6232_1_Skeleton_Crew", "1788_Treasure_Chest", "6831_1_Message_Decoder", "6905_Biwing_Blaster",
          "10156_1_LEGO_Truck", "6957_1_Solar_Snooper", "6712_1_Sheriff_s_Showdown", "1180_1_Space_Port_Moon_Buggy",
          "6861_1_X1_Patrol_Craft"]
HERE = Path(__file__).resolve().parent
DEFAULT_MODELS = HERE.parent.parent / "shared" / "models" / "official"
LIFT = 8.0  # LDU: one plate
#: Sliding connectors along which a part moved one plate can stay held (a bar in a clip, a round brick
#: on an axle). Pins (10 LDU deep) and clips are left out: a torso lifted along its neck pin runs into
#: the head, a saddle along its clips comes off.
_LONG_SLIDES = ("bar", "axle", "axle_hole", "axle_bore")


def _slides(fp, i: int, direction: np.ndarray, mated: set) -> bool:
    """True when ``direction`` (world) is parallel (cos >= 0.9) to one of the part's long sliding
    connectors (:data:`_LONG_SLIDES`: bars, axles and axle holes) that is mated in the intact model (``mated``: (part,
    connector index) pairs): the part slides along what holds it and stays held."""
    r = fp.pose.matrix[:3, :3]
    for c in fp.content.connectors:
        if (c.type in _LONG_SLIDES and (i, c.index) in mated
                and abs(float((r @ c.frame.matrix[:3, 2]) @ direction)) >= 0.9):
            return True
    return False


def _dependants(n: int, edges: np.ndarray, grounded: np.ndarray, holder: int) -> np.ndarray:
    """Parts reachable from the ground only through ``holder`` (support edges of the intact model)."""
    from bricklayer.validate.support import _reach

    full = _reach(n, edges, np.flatnonzero(grounded))
    keep = (edges[:, 0] != holder) & (edges[:, 1] != holder)
    g = grounded.copy()
    g[holder] = False
    without = _reach(n, edges[keep], np.flatnonzero(g))
    dep = full & ~without
    dep[holder] = False
    return np.flatnonzero(dep)


def run(models_dir: Path, per_model: int, seed: int, all_holders: bool = False) -> list[dict]:
    """Fault rows (dicts: ``model``, ``kind``, ``part``, ``caught`` ...) of ``per_model`` lifted parts and
    deleted holders per model (every holder with ``all_holders``), drawn with ``random.Random(seed)``."""
    import bricklayer
    from bricklayer.validate._world import flexible_mask
    from bricklayer.validate.collisions import collision_engine
    from bricklayer.validate.connections import connection_graph
    from bricklayer.validate.support import support_graph

    rng = random.Random(seed)
    rows = []
    for name, text in official_texts(models_dir, MODELS):
        base = bricklayer.from_ldraw(text)
        sup = support_graph(base)
        eng = collision_engine(base)
        flex = flexible_mask(base)
        n = len(base.flattened_placements)
        cg0 = connection_graph(base)
        mated = {(a, ca) for a, ca, _, _ in cg0.pairs.tolist()} | {(b2, cb) for _, _, b2, cb in cg0.pairs.tolist()}
        ok = eng.has_shape & ~flex & sup.supported
        lift_c = [i for i in np.flatnonzero(ok & ~sup.grounded).tolist()]
        rng.shuffle(lift_c)
        for i in lift_c[:per_model]:
            b = bricklayer.from_ldraw(text)
            fp = b.flattened_placements[i]
            prefix = tuple(id(x) for x in fp.path[:-1])
            m = fp.pose.matrix.copy()
            m[:3, 3] += m[:3, 2] * LIFT
            leaf = replace_world(b, i, m)
            k = index_of(b, leaf, prefix)
            moved = b.flattened_placements[k]
            coll = [pr for pr in b.colliding_placements if moved in pr]
            label = f"{name} #{i} {fp.content.ldraw_id} ({fp.content.spec.name})"
            if _slides(fp, i, m[:3, 2], mated) and connection_graph(b).graph.degree(k) > 0:
                # moved along the axis of its own bar / axle / pin: it slides in its clip, hand or hole and
                # is still held, so the right answer is "not floating"
                rows.append(dict(model=name, kind="lift-along-slide", part=label,
                                 caught=moved not in b.floating_placements))
                continue
            if coll:
                rows.append(dict(model=name, kind="lift-into", part=label, caught=True))
                continue
            floats = moved in b.floating_placements
            cg = connection_graph(b)
            free = cg.graph.degree(k) == 0
            rows.append(dict(model=name, kind="lift", part=label, caught=bool(floats and free),
                             floats=bool(floats), disconnected=bool(free)))
        holders = []
        for h in np.flatnonzero(ok & ~sup.grounded).tolist():  # a grounded holder: the rest falls to the ground
            dep = _dependants(n, sup.edges, sup.grounded, h)
            dep = dep[eng.has_shape[dep] & ~flex[dep]]
            if len(dep):
                holders.append((h, dep))
        rng.shuffle(holders)
        for h, dep in (holders if all_holders else holders[:per_model]):
            b = bricklayer.from_ldraw(text)
            flat = b.flattened_placements
            fp = flat[h]
            want = [flat[d] for d in dep.tolist()]
            want_ids = [(d.leaf, tuple(id(x) for x in d.path[:-1])) for d in want]
            owner_of(b, fp).remove(fp.leaf)
            now = b.flattened_placements
            floating = {id(p.leaf) for p in b.floating_placements}
            got = [any(p.leaf is lf and tuple(id(x) for x in p.path[:-1]) == pre and id(lf) in floating
                       for p in now) for lf, pre in want_ids]
            label = f"{name} #{h} {fp.content.ldraw_id} ({fp.content.spec.name}) holding {len(want)}"
            rows.append(dict(model=name, kind="delete", part=label, caught=all(got),
                             missed=[f"{w.content.ldraw_id} ({w.content.spec.name})"
                                     for w, g in zip(want, got) if not g]))
    return rows


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", type=Path, default=DEFAULT_MODELS)
    ap.add_argument("--per-model", type=int, default=8)
    ap.add_argument("--seed", type=int, default=4)
    ap.add_argument("--all-holders", action="store_true", help="delete every holder, not --per-model of them")
    ap.add_argument("--json", type=Path)
    a = ap.parse_args()
    logging.basicConfig(level=logging.ERROR)
    rows = run(a.models, a.per_model, a.seed, a.all_holders)
    for k in sorted({r["kind"] for r in rows}):
        sel = [r for r in rows if r["kind"] == k]
        print(f"{k:10s} {sum(r['caught'] for r in sel):4d}/{len(sel):4d}")
    print(f"total      {sum(r['caught'] for r in rows):4d}/{len(rows):4d} "
          f"({100 * sum(r['caught'] for r in rows) / max(len(rows), 1):.1f}%) over "
          f"{len({r['model'] for r in rows})} models")
    for r in rows:
        if not r["caught"]:
            print("missed", r)
    if a.json:
        a.json.write_text(json.dumps(rows, indent=1))
