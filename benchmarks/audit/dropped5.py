"""Round 5 of the validator audit: pairs reported before the fixes (``reports/``) and not after
(``reports_after2/``), and pairs reported only after; a seeded sample (seed 51) of either measured with the
audit's own depth (``judge.py`` method: 800 points, 20,000 at or under 0.8 LDU; true when deeper than 0.6).

Usage: ``python benchmarks/audit/dropped5.py dropped|new COUNT`` (folders under /tmp/audit5w).
"""
import json, glob, os, sys
import numpy as np
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parent))
import ldr
key = lambda c: (c['a']['label'].split(':')[0], c['b']['label'].split(':')[0])
drop, new = [], []
for p in sorted(glob.glob('/tmp/audit5w/reports/*.json')):
    n = os.path.basename(p)[:-5]
    a = json.load(open(p)); b = json.load(open('/tmp/audit5w/reports_after2/' + n + '.json'))
    ka = {key(c) for c in a['collisions']}; kb = {key(c) for c in b['collisions']}
    drop += [(n, c) for c in a['collisions'] if key(c) not in kb]
    new += [(n, c) for c in b['collisions'] if key(c) not in ka]
print('dropped', len(drop), 'new', len(new), flush=True)
which, k = sys.argv[1], int(sys.argv[2])
pop = drop if which == 'dropped' else new
rng = np.random.default_rng(51)
idx = sorted(rng.choice(len(pop), size=min(k, len(pop)), replace=False))
out = open(f'/tmp/audit5w/{which}2.jsonl', 'w')
for i in idx:
    n, c = pop[i]
    path = Path('/work/shared/models/official') / f'{n}.mpd'
    L = ldr.flatten(path)
    A = ldr.leaf_by_index(L, c['a']['label']); B = ldr.leaf_by_index(L, c['b']['label'])
    ta, ca = ldr.world_triangles(A, path); tb, cb = ldr.world_triangles(B, path)
    r = np.random.default_rng(int(i))
    d1 = ldr.depth_into(ta, tb, r, 800, cb)[0]; d2 = ldr.depth_into(tb, ta, r, 800, ca)[0]
    if max(d1, d2) <= 0.8:
        d1 = max(d1, ldr.depth_into(ta, tb, np.random.default_rng(int(i)), 20000, cb)[0])
        d2 = max(d2, ldr.depth_into(tb, ta, np.random.default_rng(int(i) + 1), 20000, ca)[0])
    rec = dict(model=n, a=[A.name, A.line], b=[B.name, B.line], reported=c['interference_ldu'], mated=c['mated'],
               depth_a_in_b=round(float(d1), 3), depth_b_in_a=round(float(d2), 3), true=bool(max(d1, d2) > 0.6))
    out.write(json.dumps(rec) + '\n'); out.flush()
    print(rec, flush=True)
