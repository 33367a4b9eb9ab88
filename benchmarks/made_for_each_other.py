"""Parts made for each other: do they connect? (issue 17 item 13)

Two systematic sources of part pairs that belong together:

(a) **Catalog names** (:func:`ldraw_data.catalog.get_catalog`; printed, patterned, obsolete,
    alias, moved, sub-part and sticker entries left out). Relations read from the names:

    - ``for``: "Tyre ... for Wheel Rim 30.4 x 20", "Glass for Window 1 x 2 x 2 Flat Front": the
      part named after "for" (the catalog names equal to, or starting with, the phrase; if none, the
      phrase cut at its first " with " or comma);
    - ``holder``: "Plate 2 x 2 with Helicopter Tail Rotor Holder": the parts whose name holds the
      word before "Holder" (in a "with ... Holder" phrase) (the 3 most popular when more than 3 do, a generic "Bar Holder" holds
      any bar), and the parts of another category with the same "<word> Holder" phrase (propeller
      3461 "with Rotor Holder" on plate 3462 "with Rotor Holder");
    - ``base/top``: the same name apart from "Base" / "Top" (or "Bottom" / "Top"): hinge bricks,
      turntables;
    - ``ball/socket``: the same name with "Ball" and "Socket" swapped, and towball / ball joint-8
      parts with towball / socket joint-8 parts (3 most popular of each side);
    - ``male/female``: the same name (or the same name before " with " / " - ") apart from "Male" /
      "Female" (minifigure hair left out).

    A catalog pair **mates** when some connector type of one mates some connector type of the
    other other than by the stud family alone (stud, open stud, anti-stud, tube, post: any two
    bricks mate so, which says nothing about the named relation); pairs mating only by studs are
    counted apart. Reasons otherwise: ``no connectors`` (one part has none), ``type mismatch`` (types
    listed).

(b) **Official models** (``/work/shared/models/official``, read with :func:`bricklayer.read_ldraw`):
    part-id pairs whose world bounding boxes (physical boxes, studs included) lie within 1 LDU of each
    other ("drawn touching"). For each part-id pair: how many placements touch, how many of these the
    validator joins directly (an edge of the connection graph, mated connectors or a held pane), and
    how many lie in different connected components (not joined even through other parts: the symptom
    of the issue, "2 components"). A model pair **mates** when some touching instance is joined
    directly. The report ranks pairs with instances in different components; the reason is ``no
    connectors``, ``type mismatch`` (no type of one mates a type of the other), or ``position`` (types
    mate but the drawn connectors are not within the mating tolerances; nearest compatible connectors
    given in LDU).

Catalog pairs whose two parts are drawn touching in the models are judged by the models.

Usage::

    python benchmarks/made_for_each_other.py [--models DIR] [--limit N] [--top N] [--json PATH]

Cost: reads and connects the 67 official models once (a few minutes on one core).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_MODELS = HERE.parent.parent / "shared" / "models" / "official"
sys.path.insert(0, str(HERE.parent))  # this checkout's packages, not another editable install

import numpy as np  # noqa: E402

#: Boxes within this many LDU of each other count as drawn touching (the brief's "within 1 LDU").
TOUCH_LDU = 1.0
#: Boxes overlapping by at least this many LDU on every axis are drawn interlocked (one part reaches
#: into the other, as a pin into its hole or a propeller onto its holder); side-by-side parts overlap
#: by about 0 on one axis.
INTERLOCK_LDU = 2.0
#: Stud-family connector types: mating by these alone says nothing about a named relation.
STUD_FAMILY = frozenset({"stud", "open_stud", "antistud", "tube", "post"})
#: At most this many partners per generic name relation (most popular first).
GENERIC_PARTNERS = 3


# ------------------------------------------------------------------------------------------------
# (a) catalog name relations
# ------------------------------------------------------------------------------------------------


def _usable_specs(cat):
    """Catalog entries that are real, current, unprinted parts (no stickers, aliases, sub-parts)."""
    out = []
    for pid in cat.ids():
        s = cat.get(pid)
        if s.is_alias or s.is_obsolete or s.is_printed or s.is_patterned or s.is_shortcut or s.moved_to:
            continue
        if s.title.startswith(("~", "=", "_")) or s.name.lower().startswith("sticker"):
            continue
        out.append(s)
    return out


def _norm(name: str) -> str:
    return re.sub(r"\s+", " ", name.replace(",", " ").replace(" - ", " ")).strip().lower()


def catalog_pairs(cat) -> dict[tuple[str, str], set[str]]:
    """Part-id pairs (sorted) whose catalog names say they belong together -> relation names."""
    specs = _usable_specs(cat)
    by_norm = defaultdict(list)
    for s in specs:
        by_norm[_norm(s.name)].append(s)
    pop = {s.part_id: s.popularity for s in specs}
    pairs: dict[tuple[str, str], set[str]] = defaultdict(set)

    def add(a, b, rel):
        if a != b:
            pairs[tuple(sorted((a, b)))].add(rel)

    def most_popular(cands, k=GENERIC_PARTNERS):
        return sorted(cands, key=lambda s: (-pop.get(s.part_id, 0), s.part_id))[:k]

    names_sorted = sorted(by_norm)

    def starting_with(prefix):
        import bisect

        i = bisect.bisect_left(names_sorted, prefix)
        out = []
        while i < len(names_sorted) and names_sorted[i].startswith(prefix):
            out.extend(by_norm[names_sorted[i]])
            i += 1
        return out

    # for X
    for s in specs:
        m = re.search(r"\bfor (.+)$", s.name)
        if not m:
            continue
        phrase = _norm(m.group(1))
        cands = [t for t in starting_with(phrase) if t.part_id != s.part_id]
        if not cands:
            cut = re.split(r" with |,", m.group(1))[0]
            cands = [t for t in starting_with(_norm(cut)) if t.part_id != s.part_id]
        for t in most_popular(cands, 2 * GENERIC_PARTNERS):
            add(s.part_id, t.part_id, "for")

    # X Holder
    holder_phrase = defaultdict(list)
    for s in specs:
        for m in re.finditer(r"\bwith (?:[\w-]+ )*?([A-Za-z][\w-]*) Holders?\b", s.name):
            word = m.group(1)
            holder_phrase[word.lower()].append(s)
    word_index = defaultdict(list)
    for s in specs:
        for w in set(re.findall(r"[\w-]+", s.name.lower())):
            word_index[w].append(s)
    for word, holders in holder_phrase.items():
        held = [t for t in word_index.get(word, ()) if not re.search(rf"\b{re.escape(word)} holders?\b", t.name.lower())]
        for h in holders:
            for t in most_popular(held):
                add(h.part_id, t.part_id, "holder")
            for t in holders:  # same phrase, another category: propeller and plate "with Rotor Holder"
                if t.category != h.category:
                    add(h.part_id, t.part_id, "holder")

    # Base / Top (Bottom / Top)
    tops = defaultdict(list)
    bases = defaultdict(list)
    for s in specs:
        n = _norm(s.name)
        for word, bucket in (("top", tops), ("base", bases), ("bottom", bases)):
            if re.search(rf"\b{word}\b", n):
                bucket[re.sub(rf"\s*\b{word}\b", "", n).strip()].append(s)
    for key, ts in tops.items():
        for b in bases.get(key, ()):
            for t in ts:
                add(b.part_id, t.part_id, "base/top")

    # Ball / Socket
    for s in specs:
        n = _norm(s.name)
        if re.search(r"\bsocket\b", n):
            for t in by_norm.get(re.sub(r"\bsocket\b", "ball", n), ()):
                add(s.part_id, t.part_id, "ball/socket")
    balls = defaultdict(list)
    sockets = defaultdict(list)
    for s in specs:
        n = _norm(s.name)
        if "towball socket" in n:
            sockets["towball"].append(s)
        elif "towball" in n:
            balls["towball"].append(s)
        if re.search(r"socket joint-?8", n):
            sockets["joint8"].append(s)
        if re.search(r"ball joint-?8", n):
            balls["joint8"].append(s)
    for key in sockets:
        for s in most_popular(sockets[key], 2 * GENERIC_PARTNERS):
            for t in most_popular(balls.get(key, ())):
                add(s.part_id, t.part_id, "ball/socket")
        for t in most_popular(balls.get(key, ()), 2 * GENERIC_PARTNERS):
            for s in most_popular(sockets[key]):
                add(s.part_id, t.part_id, "ball/socket")

    # Male / Female
    keyed = defaultdict(lambda: ([], []))
    for s in specs:
        n = _norm(s.name)
        if n.startswith("minifig hair"):
            continue
        for i, word in enumerate(("male", "female")):
            if re.search(rf"\b{word}\b", n):
                rest = re.sub(rf"\s*\b{word}\b", "", n).strip()
                keys = {rest, re.split(r" with | - ", rest)[0].strip()}
                for k in keys:
                    keyed[k][i].append(s)
    for males, females in keyed.values():
        for a in males:
            for b in females:
                add(a.part_id, b.part_id, "male/female")
    return dict(pairs)


def type_verdict(a: str, b: str) -> tuple[str, str]:
    """How the connector types of parts ``a`` and ``b`` mate: (verdict, detail).

    Verdicts: ``mates`` (a type pair outside the stud family mates), ``studs only``,
    ``no connectors``, ``type mismatch``.
    """
    from ldraw_data.connectors import mate_kind, part_connectors

    ta = sorted({c.type for c in part_connectors(a)})
    tb = sorted({c.type for c in part_connectors(b)})
    if not ta or not tb:
        return "no connectors", f"{a if not ta else b} has none"
    mates = [(x, y) for x in ta for y in tb if mate_kind(x, y) is not None]
    special = [(x, y) for x, y in mates if not (x in STUD_FAMILY and y in STUD_FAMILY)]
    if special:
        return "mates", ", ".join(f"{x}/{y}" for x, y in special[:3])
    if mates:
        return "studs only", f"{a}: {', '.join(t for t in ta if t not in STUD_FAMILY)}; " \
                             f"{b}: {', '.join(t for t in tb if t not in STUD_FAMILY)}"
    return "type mismatch", f"{a}: {', '.join(ta)}; {b}: {', '.join(tb)}"


# ------------------------------------------------------------------------------------------------
# (b) official models
# ------------------------------------------------------------------------------------------------


def _touching_pairs(lo: np.ndarray, hi: np.ndarray, gap: float) -> np.ndarray:
    """(m, 2) index pairs i < j of boxes within ``gap`` LDU of each other on every axis (sweep on x)."""
    n = len(lo)
    if n < 2:
        return np.zeros((0, 2), dtype=np.int64)
    order = np.argsort(lo[:, 0], kind="stable")
    xs = lo[order, 0]
    ends = np.searchsorted(xs, hi[order, 0] + gap, side="right")
    starts = np.arange(n) + 1
    counts = np.maximum(ends - starts, 0)
    ii = np.repeat(np.arange(n), counts)
    jj = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts) + np.repeat(starts, counts)
    a, b = order[ii], order[jj]
    ok = np.all((lo[a] <= hi[b] + gap) & (lo[b] <= hi[a] + gap), axis=1)
    a, b = a[ok], b[ok]
    return np.column_stack([np.minimum(a, b), np.maximum(a, b)])


def scan_model(path: Path, stats: dict) -> None:
    """Add the touching part-id pairs of one model to ``stats`` (see module notes)."""
    import networkx as nx

    from bricklayer import read_ldraw
    from bricklayer.validate._world import world_arrays
    from bricklayer.validate.connections import connection_graph
    from bricklayer.validate.held import _group_boxes
    from ldraw_data.connectors import mate_matrix

    build = read_ldraw(path)
    wa = world_arrays(build)
    n = len(wa.placements)
    lo = np.zeros((n, 3))
    hi = np.zeros((n, 3))
    for key, idx in wa.groups.items():
        el = wa.placements[int(idx[0])].element
        lo[idx], hi[idx] = _group_boxes(el, wa.poses[idx])
    cg = connection_graph(build)
    g = cg.graph
    comp = np.zeros(n, dtype=np.int64)
    for c, nodes in enumerate(nx.connected_components(g)):
        comp[list(nodes)] = c
    w = cg._world
    mm = mate_matrix()
    rows_of = defaultdict(list)
    for r, o in enumerate(np.asarray(w["owner"]).tolist()):
        rows_of[o].append(r)
    ids = [p.element.ldraw_id for p in wa.placements]
    # flexible segments and primitives (exempt from components), unknown and MPD-embedded parts are
    # not catalog parts that could be made for each other
    skip = np.asarray(cg.exempt, dtype=bool) | np.array([not p.element._known for p in wa.placements], dtype=bool)
    for i, j in _touching_pairs(lo, hi, TOUCH_LDU).tolist():
        if skip[i] or skip[j]:
            continue
        a, b = ids[i], ids[j]
        if a > b:
            a, b, i, j = b, a, j, i
        st = stats.setdefault((a, b), {"touch": 0, "joined": 0, "apart": 0, "interlocked_apart": 0,
                                       "models": set(), "nearest": None, "example": None})
        st["touch"] += 1
        st["models"].add(path.stem)
        if g.has_edge(i, j):
            st["joined"] += 1
            continue
        if comp[i] != comp[j]:
            st["apart"] += 1
            depth = float((np.minimum(hi[i], hi[j]) - np.maximum(lo[i], lo[j])).min())
            if depth >= INTERLOCK_LDU:
                st["interlocked_apart"] += 1
                if st["example"] is None:
                    st["example"] = path.name
        ri, rj = rows_of.get(i, []), rows_of.get(j, [])
        if ri and rj:
            ok = mm[np.ix_(w["code"][ri], w["code"][rj])] >= 0
            if ok.any():
                d = np.linalg.norm(w["pos"][ri][:, None, :] - w["pos"][rj][None, :, :], axis=2)
                dmin = float(d[ok].min())
                if st["nearest"] is None or dmin < st["nearest"]:
                    st["nearest"] = dmin


def model_reason(a: str, b: str, st: dict) -> str:
    """Why a drawn-touching pair is not joined: no connectors, type mismatch, or position."""
    verdict, detail = type_verdict(a, b)
    if verdict == "no connectors":
        return f"no connectors ({detail})"
    if st["nearest"] is None:
        return f"type mismatch ({detail})"
    return f"position (nearest compatible connectors {st['nearest']:.1f} LDU apart)"


# ------------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", type=Path, default=DEFAULT_MODELS, help="folder of official .mpd/.ldr models")
    ap.add_argument("--limit", type=int, default=0, help="read only the first N models (0: all)")
    ap.add_argument("--top", type=int, default=20, help="list this many non-mating pairs")
    ap.add_argument("--json", type=Path, help="write the per-pair results here")
    args = ap.parse_args(argv)

    from ldraw_data.catalog import get_catalog

    cat = get_catalog()

    def name(pid):
        s = cat.get(pid) if pid in cat else None
        return s.name if s is not None else pid

    t0 = time.perf_counter()
    models = sorted(p for p in args.models.iterdir() if p.suffix.lower() in (".mpd", ".ldr"))
    if args.limit:
        models = models[: args.limit]
    stats: dict = {}
    for p in models:
        scan_model(p, stats)
    t_models = time.perf_counter() - t0

    # (b) model pairs
    mated = {k for k, st in stats.items() if st["joined"]}
    apart = {k: st for k, st in stats.items() if not st["joined"] and st["interlocked_apart"]}
    print(f"(b) official models: {len(models)} read in {t_models:.0f} s")
    print(f"  part-id pairs drawn touching (boxes within {TOUCH_LDU:g} LDU): {len(stats)}")
    print(f"  joined in some instance: {len(mated)}")
    print(f"  never joined: {len(stats) - len(mated)}; of these drawn interlocked (boxes overlapping "
          f">= {INTERLOCK_LDU:g} LDU on every axis) in different components somewhere: {len(apart)}")
    print("  top never-joined interlocked pairs by instances in different components:")
    ranked = sorted(apart.items(), key=lambda kv: (-kv[1]["interlocked_apart"], -kv[1]["touch"], kv[0]))
    reasons = Counter()
    for (a, b), st in ranked:
        reasons[model_reason(a, b, st).split(" (")[0]] += 1
    print(f"  reasons: {dict(reasons)}")
    for (a, b), st in ranked[: args.top]:
        print(f"    {a} + {b}: {st['interlocked_apart']} interlocked apart / {st['touch']} touching in "
              f"{len(st['models'])} models (e.g. {st['example']}); {model_reason(a, b, st)}\n"
              f"        {name(a)} | {name(b)}")

    # (a) catalog pairs
    pairs = catalog_pairs(cat)
    rel_counts = Counter(r for rels in pairs.values() for r in rels)
    verdicts = Counter()
    in_models = Counter()
    rows = []
    for (a, b), rels in sorted(pairs.items()):
        st = stats.get((a, b))
        if st is not None:
            v = "mates" if st["joined"] else "not joined as drawn"
            detail = f"{st['joined']}/{st['touch']} touching instances joined"
            if not st["joined"]:
                detail += "; " + model_reason(a, b, st)
            in_models[v] += 1
        else:
            v, detail = type_verdict(a, b)
        verdicts[v] += 1
        rows.append({"pair": [a, b], "names": [name(a), name(b)], "relations": sorted(rels), "verdict": v,
                     "detail": detail, "in_models": st is not None})
    print(f"\n(a) catalog name pairs: {len(pairs)} ({dict(rel_counts)})")
    print(f"  drawn touching in the official models: {sum(in_models.values())} {dict(in_models)}")
    print(f"  verdicts: {dict(verdicts)}")
    bad = [r for r in rows if r["verdict"] not in ("mates",)]
    order = {"not joined as drawn": 0, "type mismatch": 1, "no connectors": 2, "studs only": 3}
    bad.sort(key=lambda r: (order.get(r["verdict"], 9), -max(cat.get(p).popularity for p in r["pair"]), r["pair"]))
    print(f"  top non-mating pairs (most popular first):")
    for r in bad[: args.top]:
        a, b = r["pair"]
        print(f"    {a} + {b} [{'/'.join(r['relations'])}] {r['verdict']}: {r['detail']}\n"
              f"        {r['names'][0]} | {r['names'][1]}")
    if args.json:
        out = {"models": [[a, b, {k: (sorted(v) if isinstance(v, set) else v) for k, v in st.items()}]
                          for (a, b), st in sorted(stats.items())],
               "catalog": rows}
        args.json.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
