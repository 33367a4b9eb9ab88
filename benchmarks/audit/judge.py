"""Draw the seeded audit sample from saved validation reports and judge each entry independently.

Usage (from the worktree root; reports saved by ``benchmarks/validate.py --reports /tmp/audit/reports``)::

    python benchmarks/audit/judge.py sample --seed 16 --n 55
    python benchmarks/audit/judge.py collisions       # -> /tmp/audit/collisions.jsonl
    python benchmarks/audit/judge.py floaters         # -> /tmp/audit/floaters.jsonl

Collisions: the interference is bounded from below by the deepest sampled surface point of one part
inside the other's material (generalized winding number > 0.5; ``ldr.depth_into``), both ways. With each
mesh inset 0.25 LDU (``shared/docs/validator-notes.md``) touching parts may overlap by 0.5 LDU; a report
is called true when the depth exceeds 0.6 LDU (the smallest push that must show, same notes).

Floaters: a part is held when it cannot fall: moved 2 LDU down (+Y, LDraw frame) it would be drawn at
least 1 LDU deeper into a neighbour than as drawn (resting on, hanging from, clipped or pinned in it).
Neighbours reported floating themselves are listed separately (a floating group held only by itself
is still floating). Every entry is then looked at in a close-up render (``render`` subcommand).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ldr  # noqa: E402

import os  # noqa: E402

#: Audit folder (reports in ``reports/``, sample and verdicts beside them); ``AUDIT_DIR`` overrides it.
OUT = Path(os.environ.get("AUDIT_DIR", "/tmp/audit"))
REPORTS = OUT / "reports"
#: Collision depths at or under this (LDU) are measured again with :data:`FINE_POINTS` surface points:
#: 800 points under-sample the deepest corner (10179 3068b/30516: 0.54 with 800, 0.75 with 20,000).
MARGINAL = 0.8
FINE_POINTS = 20000
MODELS = Path("/work/shared/models/official")
TRUE_DEPTH = 0.6
DROP = 2.0
CAP = 3


def sample(seed: int, n: int, cap: int = CAP) -> dict:
    """Seeded uniform sample (without replacement) of colliding pairs and floating parts over all reports;
    at most ``cap`` floaters per model (3 in rounds 1-6; round 7 drew 80 floaters, more than 3 x the 26
    models that have any, so it used 4)."""
    cols, flos = [], []
    for p in sorted(REPORTS.glob("*.json")):
        r = json.loads(p.read_text())
        cols += [(p.stem, k) for k in range(len(r["collisions"]))]
        flos += [(p.stem, k) for k in range(len(r["floating"]))]
    rng = np.random.default_rng(seed)
    sc = [cols[i] for i in sorted(rng.choice(len(cols), size=min(n, len(cols)), replace=False))]
    # floaters: uniform order, at most CAP per model (one model holds 79% of them, all of one cause);
    # precision is then weighted by each model's population (stratified estimate)
    sf, per = [], {}
    for i in rng.permutation(len(flos)):
        m = flos[i][0]
        if per.get(m, 0) < cap:
            per[m] = per.get(m, 0) + 1
            sf.append(flos[i])
        if len(sf) == n:
            break
    sf.sort()
    s = dict(seed=seed, cap=cap, population=dict(collisions=len(cols), floating=len(flos)), collisions=sc,
             floating=sf)
    (OUT / "sample.json").write_text(json.dumps(s, indent=1))
    return s


def _rep(model: str) -> dict:
    return json.loads((REPORTS / f"{model}.json").read_text())


def _leaf(leaves, d):
    lf = ldr.leaf_by_index(leaves, d["label"])
    assert lf.line == d["line"], (lf.line, d["line"], d["label"])  # the cited line is the one we walked to
    return lf


def judge_collisions() -> None:
    s = json.loads((OUT / "sample.json").read_text())
    done = set()
    out = OUT / "collisions.jsonl"
    if out.exists():
        done = {(j["model"], j["k"]) for j in map(json.loads, out.read_text().splitlines())}
    for model, k in s["collisions"]:
        if (model, k) in done:
            continue
        c = _rep(model)["collisions"][k]
        path = MODELS / f"{model}.mpd"
        leaves = ldr.flatten(path)
        a, b = _leaf(leaves, c["a"]), _leaf(leaves, c["b"])
        ta, ca = ldr.world_triangles(a, path)
        tb, cb = ldr.world_triangles(b, path)
        rng = np.random.default_rng(k)
        dab, nab = ldr.depth_into(ta, tb, rng, n=800, certified_b=cb)
        dba, nba = ldr.depth_into(tb, ta, rng, n=800, certified_b=ca)
        depth = max(dab, dba)
        if depth <= MARGINAL:  # marginal: measure again with many more points (a lower bound either way)
            dab = max(dab, ldr.depth_into(ta, tb, np.random.default_rng(k), n=FINE_POINTS, certified_b=cb)[0])
            dba = max(dba, ldr.depth_into(tb, ta, np.random.default_rng(k + 1), n=FINE_POINTS, certified_b=ca)[0])
            depth = max(dab, dba)
        rec = dict(model=model, k=k, a=[a.name, a.line, list(a.via)], b=[b.name, b.line, list(b.via)],
                   a_label=c["a"]["label"], b_label=c["b"]["label"], mated=c["mated"],
                   reported_interference=c["interference_ldu"], through=c["through"], move=c["move_ldu"],
                   depth_a_in_b=round(dab, 2), depth_b_in_a=round(dba, 2), points=[nab, nba],
                   certified=[ca, cb], depth=round(depth, 2), verdict=bool(depth > TRUE_DEPTH))
        with out.open("a") as f:
            f.write(json.dumps(rec) + "\n")
        print(model, a.name, b.name, rec["depth"], rec["verdict"], flush=True)


def judge_floaters() -> None:
    s = json.loads((OUT / "sample.json").read_text())
    out = OUT / "floaters.jsonl"
    done = set()
    if out.exists():
        done = {(j["model"], j["k"]) for j in map(json.loads, out.read_text().splitlines())}
    for model, k in s["floating"]:
        if (model, k) in done:
            continue
        rep = _rep(model)
        f = rep["floating"][k]
        reported = {ldr.label_key(d["label"]) for d in rep["floating"] + rep["below_ground"]}
        path = MODELS / f"{model}.mpd"
        leaves = ldr.flatten(path)
        F = _leaf(leaves, f)
        tf, _ = ldr.world_triangles(F, path)
        lo, hi = tf.reshape(-1, 3).min(0), tf.reshape(-1, 3).max(0)
        rng = np.random.default_rng(k)
        neigh = []
        for lf in leaves:
            if lf is F:
                continue
            p = lf.world[:3, 3]
            if ((p < lo - 200) | (p > hi + 200)).any():
                continue
            try:
                tn, _ = ldr.world_triangles(lf, path)
            except Exception:  # noqa: BLE001 - missing part: noted as such
                continue
            nlo, nhi = tn.reshape(-1, 3).min(0), tn.reshape(-1, 3).max(0)
            if ((nlo > hi + 3) | (nhi < lo - 3)).any():
                continue
            dist = ldr.min_distance(tf, tn, rng, n=400)
            if dist > 1.0:
                continue
            base = max(ldr.depth_into(tf, tn, rng, 600)[0], ldr.depth_into(tn, tf, rng, 600)[0])
            down = tf + np.array([0, DROP, 0])
            moved = max(ldr.depth_into(down, tn, rng, 600)[0], ldr.depth_into(tn, down, rng, 600)[0])
            lab = "#" + "/#".join(map(str, lf.index))
            neigh.append(dict(name=lf.name, line=lf.line, index=lab, dist=round(dist, 2), base=round(base, 2),
                              dropped=round(moved, 2), blocks=bool(moved >= base + 1.0),
                              reported_floating=ldr.leaf_named(lf, reported)))
        held_by = [n for n in neigh if n["blocks"] and not n["reported_floating"]]
        rec = dict(model=model, k=k, part=F.name, line=F.line, via=list(F.via), label=f["label"],
                   neighbours=neigh, held_by_supported=[f"{n['name']}@{n['line']}" for n in held_by],
                   blocked_only_by_floaters=[f"{n['name']}@{n['line']}" for n in neigh
                                             if n["blocks"] and n["reported_floating"]],
                   auto_verdict=not held_by)
        with out.open("a") as fh:
            fh.write(json.dumps(rec) + "\n")
        print(model, F.name, F.line, "touching", len(neigh), "held by", rec["held_by_supported"], flush=True)


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "sample":
        args = dict(zip(sys.argv[2::2], sys.argv[3::2]))
        print(json.dumps(sample(int(args.get("--seed", 16)), int(args.get("--n", 55)))["population"]))
    elif cmd == "collisions":
        judge_collisions()
    elif cmd == "floaters":
        judge_floaters()


_EXEMPT: dict = {}


def _never_reported(name: str, model: Path) -> bool:
    """Parts the validator's documented rules never report floating: titles with the flexible traits of
    ``ldraw_data.traits.UNSUPPORTED_OK`` (hose and string segments, LSynth, chain links, ropes) and LDraw
    primitives (files of the library's ``p/`` folders). Titles: the MPD block's first line or the library
    file's (read here, not through the validator)."""
    key = name.lower()
    if key in _EXEMPT:
        return _EXEMPT[key]
    from ldraw_data.library import get_library
    from ldraw_data.traits import UNSUPPORTED_OK, title_traits

    order, blocks = ldr.read_blocks(model)
    title = ""
    if key in blocks:
        first = [t for _, t in blocks[key] if t.startswith("0 ")]
        title = first[0][2:] if first else ""
        prim = False
    else:
        lib = get_library()
        path = lib.find(name)
        prim = path is not None and path.parent.name.lower() in ("p", "48", "8")
        if path is not None and not prim:
            head = path.read_text(errors="replace").splitlines()[:1]
            title = head[0][2:] if head else ""
    _EXEMPT[key] = prim or bool(title_traits(title) & UNSUPPORTED_OK)
    return _EXEMPT[key]


def judge_clusters(max_pairs: int = 40) -> None:
    """Per sampled floater: its cluster (reported floaters whose boxes touch, transitively, within 1 LDU)
    and whether any member is blocked from falling by a part not reported floating (drop test on the
    nearest candidate pairs, at most ``max_pairs``). -> /tmp/audit/clusters.jsonl"""
    s = json.loads((OUT / "sample.json").read_text())
    out = OUT / "clusters.jsonl"
    done = set()
    if out.exists():
        done = {(j["model"], j["k"]) for j in map(json.loads, out.read_text().splitlines())}
    for model, k in s["floating"]:
        if (model, k) in done:
            continue
        rep = _rep(model)
        path = MODELS / f"{model}.mpd"
        leaves = ldr.flatten(path)
        F = _leaf(leaves, rep["floating"][k])
        rl = {ldr.label_key(d["label"]) for d in rep["floating"]}
        # parts the validator never reports floating (flexible pieces, primitives) are no evidence of
        # support by being left out of the report: they join the group (10283's hoses 76260 inside the
        # Hubble drawn apart, 6285's rigging primitives)
        # parts listed as SCALED are left out of FLOATING (one defect, one message; their entries cite the
        # sub-model line that scales them, so they are matched by index path): no evidence of support either
        # (10030's 16 parts of the scaled sub-builds at lines 166-167, pinned in the hull drawn apart)
        sl = {ldr.label_key(d["label"]) for d in rep.get("scaled", [])}
        flo = [i for i, lf in enumerate(leaves)
               if ldr.leaf_named(lf, rl) or _never_reported(lf.name, path) or ldr.leaf_named(lf, sl, prefix=True)]
        tris, cert, box = {}, {}, np.zeros((len(leaves), 2, 3))
        for i, lf in enumerate(leaves):
            try:
                t, cert[i] = ldr.world_triangles(lf, path)
                if len(t) == 0:
                    raise ValueError(lf.name)
                tris[i] = t
                box[i] = t.reshape(-1, 3).min(0), t.reshape(-1, 3).max(0)
            except Exception:  # noqa: BLE001
                box[i] = np.nan

        def touch(i, js):
            return ~((box[js, 0] > box[i, 1] + 1) | (box[js, 1] < box[i, 0] - 1)).any(axis=1)

        fl = np.array(flo)
        seed_i = leaves.index(F)
        clus, todo = {seed_i}, [seed_i]
        while todo:
            i = todo.pop()
            for j in fl[touch(i, fl)]:
                if j not in clus:
                    clus.add(int(j))
                    todo.append(int(j))
        others = np.array([i for i in range(len(leaves)) if i not in set(flo) and i in tris])
        cand = []
        for i in clus:
            if i not in tris or len(others) == 0:
                continue
            for j in others[touch(i, others)]:
                gap = float(np.maximum(box[i, 0] - box[j, 1], box[j, 0] - box[i, 1]).max())
                cand.append((gap, i, int(j)))
        cand.sort()
        rng = np.random.default_rng(k)
        held, tested = [], []
        for gap, i, j in cand[:max_pairs]:
            ti, tj = tris[i], tris[j]
            ci_, cj_ = cert[i], cert[j]
            base = max(ldr.depth_into(ti, tj, rng, 500, cj_)[0], ldr.depth_into(tj, ti, rng, 500, ci_)[0])
            dn = ti + np.array([0, DROP, 0])
            moved = max(ldr.depth_into(dn, tj, rng, 500, cj_)[0], ldr.depth_into(tj, dn, rng, 500, ci_)[0])
            tested.append([leaves[i].name, leaves[i].line, leaves[j].name, leaves[j].line, round(base, 2),
                           round(moved, 2)])
            if moved >= base + 1.0:
                held.append(tested[-1])
                break
        ci = np.array(sorted(i for i in clus if i in tris))
        oi = others if len(others) else ci
        # LDraw +Y is down: the lowest point is the largest y; ground gap of the cluster's lowest point
        ground_gap = float(np.nanmax(box[:, 1, 1]) - np.nanmax(box[ci, 1, 1]))
        rec = dict(model=model, k=k, part=F.name, line=F.line, label=rep["floating"][k]["label"],
                   ground_gap=round(ground_gap, 2), rest_bottom_gap=round(float(np.nanmax(box[oi, 1, 1])
                                                                                - np.nanmax(box[ci, 1, 1])), 2),
                   cluster=len(clus), cluster_parts=sorted({leaves[i].name for i in clus})[:12],
                   candidates=len(cand), tested=len(tested), held=held, auto_verdict=not held and ground_gap > 2)
        with out.open("a") as fh:
            fh.write(json.dumps(rec) + "\n")
        print(model, F.name, F.line, "cluster", len(clus), "cand", len(cand), "held", held, flush=True)


if __name__ == "__main__" and sys.argv[1] == "clusters":
    judge_clusters()
