"""Round 4 of the validator audit (``benchmarks/validator_audit.md``): fresh seeded sample, judged with the
audit's own LDraw reader (``ownmesh.py``: triangles and stud positions; ``ldr.py``: flattener, winding
number / ray parity, exact point-triangle distances). Nothing here imports the validator.

Usage (from the worktree root; reports saved by ``benchmarks/validate.py --no-write --reports DIR/reports``)::

    AUDIT_DIR=/tmp/audit5 python benchmarks/audit/judge4.py sample 41 55
    AUDIT_DIR=/tmp/audit7 python benchmarks/audit/judge4.py sample 71 80 4   # cap: floaters per model (3)
    AUDIT_DIR=/tmp/audit5 python benchmarks/audit/judge4.py collisions   # -> DIR/collisions.jsonl
    AUDIT_DIR=/tmp/audit5 python benchmarks/audit/judge4.py floaters     # -> DIR/floaters.jsonl

Collisions: as ``judge.py`` (depth of one part's surface points inside the other's material, both ways,
800 points, 20,000 when at or under 0.8 LDU; true when deeper than 0.6 LDU), on the own meshes.
Floaters: the floating group and drop test of ``judge.judge_clusters`` on the own meshes, plus stud
engagement: a male stud of one part is engaged in another when its mid-height point (2 LDU out of the
stud base along the stud axis; studs are 4 LDU high) lies inside the other part's convex hull (the stud
is in its anti-stud, tube or hole) and not inside its material (that would be a collision). A floating
report is wrong when a part of the group is blocked from falling by, or stud-engaged with, a part the
validator does not report floating, or when the group stands at the model's lowest level (ground gap
<= 2 LDU); each such case and every borderline one is looked at in a close-up render.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np
from scipy.spatial import Delaunay

sys.path.insert(0, str(Path(__file__).resolve().parent))
import judge  # noqa: E402
import ldr  # noqa: E402

OUT = Path(os.environ.get("AUDIT_DIR", "/tmp/audit5"))
judge.OUT = OUT
judge.REPORTS = OUT / "reports"


def studs_world(lf: ldr.Leaf, model: Path) -> np.ndarray:
    """Stud sample points (k, 9, 3) of a leaf's male studs in the model frame (LDU): the mid-height point
    on the stud axis (2 LDU out of the base), then 8 points around it at the stud's radius (6 LDU)."""
    s = ldr.part_studs(lf.name, model)
    if len(s) == 0:
        return np.zeros((0, 9, 3))
    w = lf.world @ s
    ang = np.linspace(0, 2 * np.pi, 8, endpoint=False)
    local = np.vstack([[0, -2.0, 0], np.c_[6 * np.cos(ang), np.full(8, -2.0), 6 * np.sin(ang)]])
    return np.einsum("kij,pj->kpi", w[:, :3, :3], local) + w[:, None, :3, 3]


def engaged(studs: np.ndarray, tris: np.ndarray, cert: bool) -> int:
    """How many studs (``studs_world`` points) are held in ``tris``: the stud's mid point lies in the part's
    convex hull and not in its material (a stud in its anti-stud, tube or hole), and the part's surface
    comes within 1 LDU of the stud's side (the anti-stud grips it: a part lying on the stud tips or
    hovering over them is not closer than 2 LDU there)."""
    if len(studs) == 0 or len(tris) == 0:
        return 0
    v = np.unique(tris.reshape(-1, 3).round(3), axis=0)
    lo, hi = v.min(0) - 1, v.max(0) + 1
    studs = studs[((studs[:, 0] >= lo) & (studs[:, 0] <= hi)).all(1)]
    if len(studs) == 0:
        return 0
    points = studs[:, 0]
    try:
        hull = Delaunay(v)
    except Exception:  # noqa: BLE001 - flat part: no hull
        return 0
    keep = hull.find_simplex(points) >= 0
    keep[keep] = ~ldr.inside(points[keep], tris, cert)
    if not keep.any():
        return 0
    side = ldr.surface_distance(studs[keep, 1:].reshape(-1, 3), tris, reach=4.0).reshape(-1, 8)
    return int((side.min(1) <= 1.0).sum())


def judge_floaters(max_pairs: int = 40) -> None:
    """Per sampled floater: group, drop test (``judge.judge_clusters``) and stud engagement with parts
    outside the group. -> DIR/floaters.jsonl"""
    s = json.loads((OUT / "sample.json").read_text())
    out = OUT / "floaters.jsonl"
    done = set()
    if out.exists():
        done = {(j["model"], j["k"]) for j in map(json.loads, out.read_text().splitlines())}
    clusters = {}
    cp = OUT / "clusters.jsonl"
    if cp.exists():
        clusters = {(j["model"], j["k"]): j for j in map(json.loads, cp.read_text().splitlines())}
    for model, k in s["floating"]:
        if (model, k) in done:
            continue
        if (model, k) not in clusters:
            judge.judge_clusters(max_pairs)  # judges all missing entries, appends to clusters.jsonl
            clusters = {(j["model"], j["k"]): j for j in map(json.loads, cp.read_text().splitlines())}
        c = clusters[(model, k)]
        rec = dict(c)
        rec["studs_engaged"] = _stud_check(model, k)
        held = bool(c["held"]) or bool(rec["studs_engaged"])
        rec["auto_verdict"] = (not held) and c["ground_gap"] > 2
        with out.open("a") as fh:
            fh.write(json.dumps(rec) + "\n")
        print(model, c["part"], c["line"], "group", c["cluster"], "held", c["held"], "studs",
              rec["studs_engaged"][:3], "gap", c["ground_gap"], "->", rec["auto_verdict"], flush=True)


_GROUPS: dict = {}


def _stud_check(model: str, k: int) -> list:
    """Stud engagements between the sampled floater's group and parts not reported (group rebuilt as in
    ``judge.judge_clusters``): ``[group part, line, other part, line, studs, direction]``."""
    rep = judge._rep(model)
    path = judge.MODELS / f"{model}.mpd"
    leaves = ldr.flatten(path)
    F = judge._leaf(leaves, rep["floating"][k])
    rl = {ldr.label_key(d["label"]) for d in rep["floating"]}
    sl = {ldr.label_key(d["label"]) for d in rep.get("scaled", [])}
    flo = {i for i, lf in enumerate(leaves)
           if ldr.leaf_named(lf, rl) or judge._never_reported(lf.name, path) or ldr.leaf_named(lf, sl, prefix=True)}
    if model not in _GROUPS:  # world triangles of every leaf, once per model
        _GROUPS.clear()
        tris, cert, box = {}, {}, np.full((len(leaves), 2, 3), np.nan)
        for i, lf in enumerate(leaves):
            t, c = ldr.world_triangles(lf, path)
            if len(t):
                tris[i], cert[i] = t, c
                box[i] = t.reshape(-1, 3).min(0), t.reshape(-1, 3).max(0)
        _GROUPS[model] = tris, cert, box
    tris, cert, box = _GROUPS[model]
    fl = np.array(sorted(flo))

    def touch(i, js):
        return ~((box[js, 0] > box[i, 1] + 1) | (box[js, 1] < box[i, 0] - 1)).any(axis=1)

    seed_i = leaves.index(F)
    clus, todo = {seed_i}, [seed_i]
    while todo:
        i = todo.pop()
        if np.isnan(box[i]).any():
            continue
        for j in fl[touch(i, fl)]:
            if int(j) not in clus:
                clus.add(int(j))
                todo.append(int(j))
    others = np.array([i for i in tris if i not in flo])
    found = []
    for i in sorted(clus):
        if i not in tris or len(others) == 0:
            continue
        si = studs_world(leaves[i], path)
        for j in others[touch(i, others)]:
            j = int(j)
            n1 = engaged(si, tris[j], cert[j])
            n2 = engaged(studs_world(leaves[j], path), tris[i], cert[i])
            if n1 or n2:
                found.append([leaves[i].name, leaves[i].line, leaves[j].name, leaves[j].line, n1 + n2,
                              "group stud in other" if n1 else "other's stud in group"])
    return found


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "sample":
        cap = int(sys.argv[4]) if len(sys.argv) > 4 else judge.CAP  # floaters per model at most
        print(json.dumps(judge.sample(int(sys.argv[2]), int(sys.argv[3]), cap)["population"]))
    elif cmd == "collisions":
        judge.judge_collisions()
    elif cmd == "floaters":
        judge_floaters()
