"""Fault-injection benchmark for the validator (issue #4).

On several small official models, generates faults and checks the validator
catches each one:

- ``push-d``: a part that rests on (or is mated to) a part directly
  below it is moved ``d`` = 1, 2 or 5 LDU down into it; caught when a
  collision involving the moved part is reported. Only pairs that a 1 LDU
  push drives into each other count (``_pressed_in``: the inset meshes meet,
  no press-fit allowance applied).
- ``lift``: a part at the top of a stack (nothing rests on it or is mated to
  it except the part below) is lifted 8 LDU (one plate) off its studs;
  caught when it is reported floating, or colliding when the lift drove it
  into a part above (one defect, one message).

A missed push of a part mated to its neighbour through a minifigure joint (wrist,
shoulder, hip: a point joint the validator excuses only on its seat) is checked
against the official models (``_official_envelope``): when the pushed joint's
offset (signed along the joint axis, and across it) and the extra inset that
separates the pair both lie within what the 67 official models draw for that
joint kind, the pushed pose is one the official files draw as a good fit, and no
validator can call it a collision without flagging those. Such a push is listed
as ``indistinguishable`` (with its numbers) and left out of the detection rate.

A missed push or lift of a part held on its neighbour by a sliding joint (a clip, wheel or hole on
a bar, pin or axle: :func:`ldraw_data.connectors.is_sliding_type`) whose axis runs within 25
degrees of the move moves the part along the joint, where it is held anywhere along the
connectors' length (the pushes are 1-8 LDU, a bar or axle 20 LDU or more), so no validator
should report it. Such a move is listed as ``slides along`` its joint
(with the joint's types) and left out of the detection rate, as the minifigure poses above.

Each push is also classed by the joint between the two parts (``minifig``
joints, ``technic`` pins and axles, ``hinge`` and other point joints,
``clip/bar``, ``stud``, or ``rest`` for a part only resting on the other).
Prints the detection rate per fault kind and per joint class; ``--json``
writes the rows.
Usage: ``python benchmarks/fault_injection.py [--per-model N] [--seed S]``.
"""

from __future__ import annotations

import argparse
import json
import logging
import random
from pathlib import Path

from _faults import index_of, official_texts, replace_world

MODELS = ["1788_Treasure_Chest", "6831_1_Message_Decoder", "6905_Biwing_Blaster", "10156_1_LEGO_Truck",
          "6957_1_Solar_Snooper", "6232_1_Skeleton_Crew", "6712_1_Sheriff_s_Showdown", "10029_Lunar_Lander",
          "21109_Exo_Suit"]
#: Joint class of a (lower, upper) pair from the connector types that mate them (the first that matches).
_CLASSES = (("minifig", ("peg", "socket", "neck", "visor")), ("technic", ("pin", "axle")),
            ("hinge", ("hinge", "control_stick", "turntable", "ball", "fixed")), ("clip/bar", ("clip", "bar")),
            ("stud", ("stud", "tube")))
HERE = Path(__file__).resolve().parent
DEFAULT_MODELS = HERE.parent.parent / "shared" / "models" / "official"


def _moved(build, i: int, dz: float):
    """Move flattened placement ``i`` by ``dz`` LDU along world z; returns its new FlatPlacement."""
    fp = build.flattened_placements[i]
    world = fp.pose.matrix.copy()
    world[2, 3] += dz
    prefix = tuple(id(x) for x in fp.path[:-1])
    leaf = replace_world(build, i, world)
    return build.flattened_placements[index_of(build, leaf, prefix)]


def _pressed_in(eng, lower: int, upper: int) -> bool:
    """True when ``upper`` moved 1 LDU down meets ``lower`` (inset meshes, no press-fit allowance).

    A push counts as a fault only when it drives the part into its neighbour: a minifigure head
    hangs on its neck post 3 LDU above the torso (6712: 3626bpw1 on 973pw5), so pushing it 1-3 LDU
    down moves it through free space, which no validator can call a collision.
    """
    import numpy as np

    from bricklayer.constants import TOL

    t_up = eng.transforms[[upper]].copy()
    t_up[:, 2, 3] -= 1.0
    return bool(eng._query(np.array([upper]), np.array([lower]), t_up, eng.transforms[[lower]],
                           TOL.collision_inset)[0])


#: Point joints whose pushed pose is compared with the official models' spread (see the module notes).
_POINT_JOINTS = ("wrist", "shoulder", "hip")
#: Extra insets (LDU per part, beyond the common 0.25) tried to separate a mated pair.
_EXTRA_INSETS = (0.0, 0.25, 0.5, 0.75, 1.0, 1.25)


def _separating_extra(eng, i: int, j: int) -> float:
    """Smallest extra inset of :data:`_EXTRA_INSETS` that separates parts ``i`` and ``j`` (inf: none)."""
    import numpy as np

    from bricklayer.constants import TOL

    for e in _EXTRA_INSETS:
        if not eng._query(np.array([i]), np.array([j]), eng.transforms[[i]], eng.transforms[[j]],
                          TOL.collision_inset + e)[0]:
            return e
    return float("inf")


def _joint_seats(build, part: int | None = None) -> list:
    """``(type pair, i, j, signed along LDU, perp LDU)`` of the build's mated minifigure point joints.

    The offset is the second connector's origin seen from the first (type names in sorted order),
    along and across the first connector's axis; only pairs involving ``part`` when given.
    """
    import numpy as np

    from bricklayer.validate.connections import connection_graph
    from ldraw_data.connectors import connector_types

    names = connector_types()
    cg = connection_graph(build)
    w = cg._world
    out = []
    for r, ((a, ca, c, cc), (k1, k2)) in enumerate(zip(cg.pairs.tolist(), cg.pair_codes().tolist())):
        n1, n2 = names[k1], names[k2]
        if n1 > n2:
            a, ca, c, cc, n1, n2 = c, cc, a, ca, n2, n1
        if part is not None and part not in (a, c):
            continue
        if not any(x in n1 + n2 for x in _POINT_JOINTS):
            continue
        fa = cg._flat_index(np.array([a]), np.array([ca]))[0]
        fb = cg._flat_index(np.array([c]), np.array([cc]))[0]
        d = w["pos"][fb] - w["pos"][fa]
        along = float(d @ w["axis"][fa])
        out.append((f"{n1}/{n2}", a, c, along, float(np.linalg.norm(d - along * w["axis"][fa]))))
    return out


#: A joint axis within this many degrees of the move's direction (world z) carries the move along it.
_SLIDE_AXIS_DEG = 25.0


def _sliding_joints(cg) -> dict:
    """``{(i, j) sorted: [(type a, type b, |z component| of the joint axis)]}`` of the
    pairs mated by a sliding joint (either connector's type sliding), from a connection graph."""
    import numpy as np

    from ldraw_data.connectors import connector_types, is_sliding_type

    names = connector_types()
    w = cg._world
    out: dict = {}
    for (a, ca, c, cc), (k1, k2) in zip(cg.pairs.tolist(), cg.pair_codes().tolist()):
        if not (is_sliding_type(names[k1]) or is_sliding_type(names[k2])):
            continue
        fa = cg._flat_index(np.array([a]), np.array([ca]))[0]
        out.setdefault((min(a, c), max(a, c)), []).append(
            (names[k1], names[k2], abs(float(w["axis"][fa][2]))))
    return out


def _slides(joints: dict, lower: int, upper: int, d: float) -> str | None:
    """Why moving ``upper`` ``d`` LDU along z keeps it on its sliding joint with ``lower``, or None."""
    import math

    for t1, t2, az in joints.get((min(lower, upper), max(lower, upper)), []):
        if az >= math.cos(math.radians(_SLIDE_AXIS_DEG)):
            return f"{t1}/{t2} joint axis {math.degrees(math.acos(min(az, 1.0))):.0f} degrees from the move"
    return None


def _official_envelope(models_dir: Path) -> dict:
    """Per minifigure joint kind, the spread the 67 official models draw: ``kind -> [along min, along
    max, perp max, separating extra inset max]`` (LDU), over every mated pair of that kind."""
    import bricklayer
    from bricklayer.validate.collisions import collision_engine

    env: dict = {}
    names = sorted(p.stem for p in Path(models_dir).glob("*.mpd"))
    for _name, text in official_texts(models_dir, names):
        b = bricklayer.from_ldraw(text)
        eng = collision_engine(b)
        hit = {tuple(p) for p in eng.pairs[eng.hit].tolist()}
        for kind, a, c, along, perp in _joint_seats(b):
            e = env.setdefault(kind, [along, along, perp, 0.0])
            e[0], e[1], e[2] = min(e[0], along), max(e[1], along), max(e[2], perp)
            if (min(a, c), max(a, c)) in hit:
                e[3] = max(e[3], _separating_extra(eng, a, c))
    return env


def _indistinguishable(text: str, upper: int, d: float, env: dict) -> str | None:
    """Why pushing ``upper`` by ``d`` LDU leaves a pose the official models draw, or None."""
    import bricklayer
    from bricklayer.validate.collisions import collision_engine

    b = bricklayer.from_ldraw(text)
    _moved(b, upper, -d)
    eng = collision_engine(b)
    for kind, a, c, along, perp in _joint_seats(b, upper):
        e = env.get(kind)
        if e is None or not (e[0] <= along <= e[1] and perp <= e[2]):
            continue
        extra = _separating_extra(eng, a, c)
        if extra <= e[3]:
            return (f"{kind} offset along {along:+.2f} LDU (official {e[0]:+.2f}..{e[1]:+.2f}), across "
                    f"{perp:.2f} (official <= {e[2]:.2f}), separated by {extra:.2f} LDU more inset "
                    f"(official up to {e[3]:.2f})")
    return None


def run(models_dir: Path, per_model: int, seed: int) -> list[dict]:
    import numpy as np

    import bricklayer
    from bricklayer.validate.collisions import collision_engine
    from bricklayer.validate.connections import connection_graph
    from bricklayer.validate.support import support_graph

    rng = random.Random(seed)
    rows = []
    envelope = None
    for name, text in official_texts(models_dir, MODELS):
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
        from ldraw_data.connectors import connector_types

        names = connector_types()
        joint: dict = {}
        for (a, _ca, b2, _cb), (c1, c2) in zip(cg.pairs.tolist(), cg.pair_codes().tolist()):
            joint.setdefault((min(a, b2), max(a, b2)), set()).update((names[c1], names[c2]))

        def klass(pair):
            types = joint.get((min(pair), max(pair)), set())
            for k, words in _CLASSES:
                if any(w in t for t in types for w in words):
                    return k
            return "rest"

        sliding = _sliding_joints(cg)
        reported = {tuple(x) for x in eng.reported().tolist()}
        cand = sorted(c for c in cand if tuple(sorted(c)) not in reported and eng.has_shape[c[0]] and eng.has_shape[c[1]]
                      )
        cand = [c for c in cand if _pressed_in(eng, *c)]
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
                moved = _moved(b, upper, -d)
                coll = b.colliding_placements
                caught = any(moved in pair for pair in coll)
                row = dict(model=name, kind=f"push-{d}", joint=klass((lower, upper)),
                           part=fp.content.ldraw_id, other=flat[lower].content.ldraw_id, caught=caught)
                if not caught:
                    why = _slides(sliding, lower, upper, d)
                    if why:
                        row["slides"] = why
                if not caught and row["joint"] == "minifig":
                    if envelope is None:
                        envelope = _official_envelope(models_dir)
                    why = _indistinguishable(text, upper, d, envelope)
                    if why:
                        row["indistinguishable"] = why
                rows.append(row)
            n_done += 1
            # lift: only for parts nothing else depends on
            if not (supports.get(upper, set()) - {lower}) and sup.supported[upper] and not sup.grounded[upper]:
                b = bricklayer.from_ldraw(text)
                fp = b.flattened_placements[upper]
                moved = _moved(b, upper, 8)
                floats = moved in b.floating_placements
                hits = any(moved in pair for pair in b.colliding_placements)
                row = dict(model=name, kind="lift", joint=klass((lower, upper)), part=fp.content.ldraw_id,
                           other=flat[lower].content.ldraw_id, caught=floats or hits,
                           how="floating" if floats else ("collision" if hits else ""))
                if not row["caught"]:
                    why = _slides(sliding, lower, upper, 8)
                    if why:
                        row["slides"] = why
                rows.append(row)
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
    same = [r for r in rows if r.get("indistinguishable")]
    for r in same:
        print("indistinguishable from official models (left out):", r["model"], r["kind"], r["part"], "on",
              r["other"], "-", r["indistinguishable"])
    for r in rows:
        if r.get("slides"):
            print("slides along its joint (left out):", r["model"], r["kind"], r["part"], "on", r["other"], "-",
                  r["slides"])
    rows = [r for r in rows if not r.get("indistinguishable") and not r.get("slides")]
    kinds = sorted({r["kind"] for r in rows})
    for k in kinds:
        sel = [r for r in rows if r["kind"] == k]
        print(f"{k:8s} {sum(r['caught'] for r in sel):4d}/{len(sel):4d}")
    pushes = [r for r in rows if r["kind"].startswith("push")]
    print(f"push     {sum(r['caught'] for r in pushes):4d}/{len(pushes):4d} over "
          f"{len({r['model'] for r in pushes})} models")
    for j in sorted({r["joint"] for r in pushes}):
        sel = [r for r in pushes if r["joint"] == j]
        print(f"  {j:9s} {sum(r['caught'] for r in sel):4d}/{len(sel):4d}")
    lifts = [r for r in rows if r["kind"] == "lift" and r["caught"]]
    print(f"lift caught as floating {sum(r['how'] == 'floating' for r in lifts)}, "
          f"as a collision {sum(r['how'] == 'collision' for r in lifts)}")
    print(f"total    {sum(r['caught'] for r in rows):4d}/{len(rows):4d} "
          f"({100 * sum(r['caught'] for r in rows) / max(len(rows), 1):.1f}%)")
    missed = [r for r in rows if not r["caught"]]
    for r in missed[:20]:
        print("missed", r)
    if a.json:
        a.json.write_text(json.dumps(rows, indent=1))
