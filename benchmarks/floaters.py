"""Every floating part of the official models, grouped and explained by its measured cause.

For each official model the validator's floaters (``support_graph(build, separate_objects=True)``:
objects the file draws apart, such as stands and loose accessories, stand on their own ground) are
grouped into *clusters*: floaters joined to each other by mated connectors or resting contacts. A
cluster floats as one piece, so it has one cause, found by measurement:

- ``no connector labels``: none of its parts has a BrickNet connector label, and it rests on
  nothing (window glass held in a groove, unlabelled accessories, MPD-embedded parts without a
  library twin). The validator has nothing to mate.
- ``drawn off its connector by D LDU``: a connector of the cluster and a compatible free
  connector of a held part (same BrickNet mate table) lie D LDU apart, beyond the connection
  tolerance (``TOL.joint_position``): the file draws the part slightly off its mate (tilted
  axles, arms posed off their clips). D is reported per cluster.
- ``touches only a holder without connector labels``: it touches (collision broad phase,
  1.25 LDU) a held part that has no labels, such as an MPD-embedded hull ("6245 - 2551"): the
  holder's holes and clips are unknown to the validator.
- ``no connector labels``: as above, the cluster's own parts have none.
- ``hangs on a flexible part``: it touches a chain, string or hose (exempt from support).
- ``side contact only``: it touches a held part but neither mates nor rests on it.
- ``in the air``: no held part within 1.25 LDU and no compatible connector within 8 LDU; the
  gap to the nearest held part's box is reported.

Usage::

    python benchmarks/floaters.py [--only SUBSTRING] [--out benchmarks/floaters_report.json]

Prints one line per model and per cluster, then the totals by cause.
"""

from __future__ import annotations

import argparse
import json
import re
import logging
import sys
import warnings
from collections import Counter
from pathlib import Path


sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's packages, not another editable install

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components
from scipy.spatial import cKDTree

HERE = Path(__file__).resolve().parent
DEFAULT_MODELS = HERE.parent.parent / "shared" / "models" / "official"
#: Search radius (LDU) for a compatible connector of a held part.
NEAR = 8.0


_FLEX = re.compile(r"chain|string|hose|rope|cable|flex|segment|lsynth", re.I)


def _name(fp) -> str:
    try:
        return fp.content.spec.name or ""
    except Exception:  # noqa: BLE001 - unknown part: no catalog name
        return ""


def _world_connectors(flat, idx):
    """(positions (k, 3) LDU, type codes (k,), part index (k,)) of the connectors of parts ``idx``."""
    from ldraw_data.connectors import type_code

    pos, code, part = [], [], []
    for i in idx:
        fp = flat[i]
        for c in fp.content.connectors:
            m = (fp.pose @ c.frame).matrix
            pos.append(m[:3, 3])
            code.append(type_code(c.type))
            part.append(i)
    if not pos:
        return np.zeros((0, 3)), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return np.array(pos), np.array(code, dtype=np.int64), np.array(part, dtype=np.int64)


def classify(build) -> list[dict]:
    """Clusters of floating parts of one build with their cause.

    Parameters
    ----------
    build : LegoBuild

    Returns
    -------
    list of dict
        One per cluster: ``parts`` (descriptions), ``size``, ``cause`` (see module notes),
        ``distance`` (LDU to the nearest compatible connector of a held part, or None).
    """
    from ldraw_data.connectors import mate_matrix

    from bricklayer.validate.collisions import collision_engine
    from bricklayer.validate.connections import connection_graph
    from bricklayer.validate.support import support_graph

    sup = support_graph(build, separate_objects=True)
    fl = np.asarray(sup.floating, dtype=np.int64)
    if not len(fl):
        return []
    flat = build.flattened_placements
    n = len(flat)
    cg = connection_graph(build)
    eng = collision_engine(build)
    e = [np.asarray(sup.edges, dtype=np.int64).reshape(-1, 2)]
    if len(cg.pairs):
        e.append(cg.pairs[:, [0, 2]])
    e = np.concatenate(e)
    isf = np.zeros(n, dtype=bool)
    isf[fl] = True
    e = e[isf[e[:, 0]] & isf[e[:, 1]]]
    g = coo_matrix((np.ones(len(e)), (e[:, 0], e[:, 1])), shape=(n, n))
    _, lab = connected_components(g, directed=False)
    held = ~isf & np.asarray(sup.supported, dtype=bool)
    contact = [set() for _ in range(n)]
    for a, b in np.asarray(eng.pairs).reshape(-1, 2).tolist():
        contact[a].add(b)
        contact[b].add(a)
    mm = mate_matrix()
    out = []
    lo, hi = eng.box_lo, eng.box_hi
    for c in np.unique(lab[fl]).tolist():
        members = fl[lab[fl] == c]
        pos, code, _ = _world_connectors(flat, members)
        touching = sorted({j for i in members.tolist() for j in contact[i] if held[j]})
        touches = bool(touching)
        bare = [j for j in touching if not len(flat[j].content.connectors)]
        if len(members):
            gap = np.maximum(0.0, np.maximum(lo[held] - hi[members].max(axis=0), lo[members].min(axis=0) - hi[held]))
            gap = float(np.linalg.norm(gap, axis=1).min()) if held.any() else float("inf")
        flexible_near = any(_FLEX.search(_name(flat[j])) for i in members.tolist() for j in contact[i])
        dist = None
        if len(pos):
            clo, chi = lo[members].min(axis=0) - NEAR, hi[members].max(axis=0) + NEAR
            near = np.flatnonzero(held & np.all(lo <= chi, axis=1) & np.all(hi >= clo, axis=1))
            hpos, hcode, _ = _world_connectors(flat, near)
            if len(hpos):
                tree = cKDTree(hpos)
                for k, nb in enumerate(tree.query_ball_point(pos, NEAR)):
                    for j in nb:
                        if mm[code[k], hcode[j]] >= 0:
                            d = float(np.linalg.norm(pos[k] - hpos[j]))
                            dist = d if dist is None else min(dist, d)
        if dist is not None:
            cause = "drawn off its connector"
        elif bare:
            cause = "touches only a holder without connector labels"
        elif not len(pos):
            cause = "no connector labels" + (" (side contact only)" if touches else "")
        elif flexible_near:
            cause = "hangs on a flexible part (chain, string, hose)"
        elif touches:
            cause = "side contact only"
        else:
            cause = "in the air"
        out.append(dict(size=int(len(members)), cause=cause,
                        distance=None if dist is None else round(dist, 2),
                        gap=None if not np.isfinite(gap) else round(gap, 2),
                        holders_without_labels=[build.describe(flat[j]) for j in bare[:2]],
                        parts=[build.describe(flat[i]) for i in members.tolist()[:4]]))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--models", type=Path, default=DEFAULT_MODELS)
    ap.add_argument("--only")
    ap.add_argument("--out", type=Path)
    a = ap.parse_args(argv)
    logging.basicConfig(level=logging.ERROR)
    warnings.simplefilter("ignore")
    import bricklayer

    rows, tot_parts, tot_clusters = [], Counter(), Counter()
    for path in sorted(a.models.glob("*.mpd")):
        if a.only and a.only not in path.name:
            continue
        b = bricklayer.read_ldraw(path)
        cl = classify(b)
        rows.append(dict(model=path.stem, floating=sum(c["size"] for c in cl), clusters=cl))
        print(f"{path.stem}: {rows[-1]['floating']} floating in {len(cl)} clusters", flush=True)
        for c in cl:
            d = "" if c["distance"] is None else f" {c['distance']} LDU"
            if c["cause"] == "in the air":
                d = f" (gap to the nearest held part {c['gap']} LDU)"
            if c["holders_without_labels"]:
                d = f" ({c['holders_without_labels'][0]})"
            print(f"    {c['size']:4d}  {c['cause']}{d}: {'; '.join(c['parts'][:2])}")
            tot_parts[c["cause"]] += c["size"]
            tot_clusters[c["cause"]] += 1
    print("\nfloating parts by cause:", dict(tot_parts.most_common()))
    print("clusters by cause:", dict(tot_clusters.most_common()))
    if a.out:
        a.out.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
