"""Fault-injection benchmark for the validator (issue #4).

On several small official models, generates faults and checks the validator
catches each one:

- ``push-d``: a part that rests on (or is stud-mated to) a part directly
  below it is moved ``d`` = 1, 2 or 5 LDU down into it; caught when a
  collision involving the moved part is reported.
- ``lift``: a part at the top of a stack (nothing rests on it or is mated to
  it except the part below) is lifted 8 LDU (one plate) off its studs;
  caught when it is reported floating.

Prints the detection rate per fault kind; ``--json`` writes the rows.
Usage: ``python benchmarks/fault_injection.py [--per-model N] [--seed S]``.
"""

from __future__ import annotations

import argparse
import json
import logging
import random
from pathlib import Path

MODELS = ["1788_Treasure_Chest", "6831_1_Message_Decoder", "6905_Biwing_Blaster", "10156_1_LEGO_Truck",
          "6957_1_Solar_Snooper", "6232_1_Skeleton_Crew"]
HERE = Path(__file__).resolve().parent
DEFAULT_MODELS = HERE.parent.parent / "shared" / "models" / "official"


def _move(build, fp, dz):
    from bricklayer import Pose

    owner = build
    for p in fp.path[:-1]:
        owner = p.content
    leaf = fp.leaf
    idx = owner.placements.index(leaf)
    # translation in the owner's frame that moves the part by dz in the world
    world_to_owner = (fp.pose @ leaf.pose.inverse()).inverse() if hasattr(leaf.pose, "inverse") else None
    import numpy as np

    m = np.linalg.inv((fp.pose.matrix @ np.linalg.inv(leaf.pose.matrix)))
    d = m[:3, :3] @ np.array([0, 0, dz])
    owner.remove(leaf)
    return owner.add_raw(leaf.content, Pose(translation=tuple(d)) @ leaf.pose, index=idx), owner


def run(models_dir: Path, per_model: int, seed: int) -> list[dict]:
    import numpy as np

    import bricklayer
    from bricklayer.validate.collisions import collision_engine
    from bricklayer.validate.connections import connection_graph
    from bricklayer.validate.support import support_graph

    rng = random.Random(seed)
    rows = []
    for name in MODELS:
        path = models_dir / f"{name}.mpd"
        if not path.exists():
            continue
        text = path.read_text(errors="replace")
        base = bricklayer.from_ldraw(text)
        eng = collision_engine(base)
        sup = support_graph(base)
        flat = base.flattened_placements
        cg = connection_graph(base)
        # (lower, upper) pairs where upper rests on lower or is mated to it from above, both unique in the file
        cand = set()
        for (i, j), r in zip(eng.pairs.tolist(), eng.rests.tolist()):
            if r[0]:
                cand.add((j, i))
            if r[1]:
                cand.add((i, j))
        for a, _ca, b2, _cb in cg.pairs.tolist():
            lo, up = (a, b2) if eng.min_z[a] < eng.min_z[b2] else (b2, a)
            if eng.min_z[up] - eng.min_z[lo] > 4:
                cand.add((lo, up))
        reported = {tuple(x) for x in eng.reported().tolist()}
        cand = sorted(c for c in cand if tuple(sorted(c)) not in reported and eng.has_shape[c[0]] and eng.has_shape[c[1]]
                      )
        rng.shuffle(cand)
        supporters = {}
        for s, t in sup.edges.tolist():
            supporters.setdefault(t, set()).add(s)
        supports = {}
        for s, t in sup.edges.tolist():
            supports.setdefault(s, set()).add(t)
        n_done = 0
        for lower, upper in cand:
            if n_done >= per_model:
                break
            for d in (1, 2, 5):
                b = bricklayer.from_ldraw(text)
                fp = b.flattened_placements[upper]
                newp, owner = _move(b, fp, -d)
                coll = b.colliding_placements
                moved = [p for p in b.flattened_placements if p.leaf is newp and p.path[:-1] == fp.path[:-1]][0]
                caught = any(moved in pair for pair in coll)
                rows.append(dict(model=name, kind=f"push-{d}", part=fp.content.ldraw_id, caught=caught))
            n_done += 1
            # lift: only for parts nothing else depends on
            if not (supports.get(upper, set()) - {lower}) and sup.supported[upper] and not sup.grounded[upper]:
                b = bricklayer.from_ldraw(text)
                fp = b.flattened_placements[upper]
                newp, owner = _move(b, fp, 8)
                moved = [p for p in b.flattened_placements if p.leaf is newp and p.path[:-1] == fp.path[:-1]][0]
                caught = moved in b.floating_placements
                rows.append(dict(model=name, kind="lift", part=fp.content.ldraw_id, caught=caught))
    return rows


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", type=Path, default=DEFAULT_MODELS)
    ap.add_argument("--per-model", type=int, default=15)
    ap.add_argument("--seed", type=int, default=4)
    ap.add_argument("--json", type=Path)
    a = ap.parse_args()
    logging.basicConfig(level=logging.ERROR)
    rows = run(a.models, a.per_model, a.seed)
    kinds = sorted({r["kind"] for r in rows})
    for k in kinds:
        sel = [r for r in rows if r["kind"] == k]
        print(f"{k:8s} {sum(r['caught'] for r in sel):4d}/{len(sel):4d}")
    print(f"total    {sum(r['caught'] for r in rows):4d}/{len(rows):4d} "
          f"({100 * sum(r['caught'] for r in rows) / max(len(rows), 1):.1f}%)")
    missed = [r for r in rows if not r["caught"]]
    for r in missed[:20]:
        print("missed", r)
    if a.json:
        a.json.write_text(json.dumps(rows, indent=1))
