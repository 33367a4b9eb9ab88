"""Round 5 of the validator audit: refined depth of a sampled collision pair, with the audit's own reader only.

``refine(ta, tb, cb, rng)``: the deepest surface point of A inside B's material (LDU, a lower bound of the
interference): 20,000 points, then 2-3 rounds of 40,000 points on A's triangles within 2 LDU of the 20 deepest
points so far (``ldr.sample_surface`` / ``inside`` / ``surface_distance``). Nothing from the validator.

Usage (sample judged by ``judge4.py`` in ``AUDIT_DIR``)::

    AUDIT_DIR=/tmp/audit5w python benchmarks/audit/refine5.py 10029:52 10182:33   # model prefix:report index
    AUDIT_DIR=/tmp/audit6 python benchmarks/audit/refine5.py '#1' '#13'            # sample index (round 6)
"""
import json, os, sys
from pathlib import Path

import numpy as np
sys.path.insert(0, str(Path(__file__).resolve().parent))
import ldr
from pathlib import Path

def deep_pts(ta, tb, cb, rng, n):
    lo = np.maximum(ta.reshape(-1, 3).min(0), tb.reshape(-1, 3).min(0)) - 0.01
    hi = np.minimum(ta.reshape(-1, 3).max(0), tb.reshape(-1, 3).max(0)) + 0.01
    pts = ldr.sample_surface(ta, n, rng, (lo, hi))
    pts = pts[((pts >= lo) & (pts <= hi)).all(axis=1)]
    ins = pts[ldr.inside(pts, tb, cb)]
    if len(ins) == 0:
        return 0.0, ins, np.zeros(0)
    d = ldr.surface_distance(ins, tb)
    return d.max(), ins, d

def refine(ta, tb, cb, rng, rounds=3):
    best, ins, d = deep_pts(ta, tb, cb, rng, 20000)
    for _ in range(rounds):
        if len(ins) == 0:
            break
        top = ins[np.argsort(d)[-20:]]
        lo, hi = top.min(0) - 2, top.max(0) + 2
        keep = (ta.max(axis=1) >= lo).all(axis=1) & (ta.min(axis=1) <= hi).all(axis=1)
        sub = ta[keep]
        b2, ins2, d2 = deep_pts(sub, tb, cb, rng, 40000)
        if b2 > best:
            best = b2
        if len(ins2):
            ins, d = np.vstack([ins, ins2]), np.concatenate([d, d2])
    return best

if __name__ == '__main__':
    recs = [json.loads(l) for l in open(Path(os.environ.get('AUDIT_DIR', '/tmp/audit5w')) / 'collisions.jsonl')]
    for it in sys.argv[1:]:
        if it.startswith('#'):
            r = recs[int(it[1:])]
        else:
            m, k = it.split(':')
            r = [x for x in recs if x['model'].startswith(m) and x['k'] == int(k)][0]
        path = Path('/work/shared/models/official') / f"{r['model']}.mpd"
        leaves = ldr.flatten(path)
        a = ldr.leaf_by_index(leaves, r['a_label']); b = ldr.leaf_by_index(leaves, r['b_label'])
        ta, ca = ldr.world_triangles(a, path); tb, cb = ldr.world_triangles(b, path)
        rng = np.random.default_rng(5)
        print(it, a.name, b.name, 'refined A in B', round(refine(ta, tb, cb, rng), 3), 'B in A', round(refine(tb, ta, ca, rng), 3), flush=True)
