"""Write the sample tables of ``benchmarks/validator_audit.md`` from the judged sample.

Rounds 5 on (``judge4.py`` method)::

    AUDIT_DIR=/tmp/audit6 python benchmarks/audit/report.py --round 6 [--after reports_after]

reads ``sample.json``, ``collisions.jsonl`` and ``floaters.jsonl`` from ``AUDIT_DIR``, applies the verdicts set by
hand (``verdicts.MANUAL[N]``), checks which sampled reports are still printed in the reports of ``--after`` (a
sub-folder of ``AUDIT_DIR``: reports after the round's fixes; default ``reports``, i.e. as drawn), writes
``round{N}.json`` beside this file and prints the markdown tables with Wilson 95% intervals.

Rounds 1-3 (no ``--round``): reads {sample.json,collisions.jsonl,clusters.jsonl} (``judge.py``) from ``AUDIT_DIR``
(default /tmp/audit) and the manual verdicts below (close-ups looked at, ``closeup.py``); prints markdown.
"""

from __future__ import annotations

import json
import math
import os
import sys
from collections import Counter
from pathlib import Path

OUT = Path(os.environ.get("AUDIT_DIR", "/tmp/audit"))
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

#: Verdicts set by looking at close-ups, (model, k) -> (true report?, cause of a wrong report, note).
MANUAL_COLLISIONS = {
    ("10179_1_Millennium_Falcon_UCS", None): None,
}


def _cause_col(r: dict) -> str:
    if r["verdict"]:
        return ""
    names = r["a"][0] + r["b"][0]
    if "70814 - 43903" in names:
        return "segments of one rubber belt (MPD-embedded subparts 43903a/b) meeting edge to edge"
    if r["depth"] > 0.5:
        return "overlap 0.5-0.6 LDU: past the validator's 0.5 LDU clearance, under the audit's 0.6"
    return "tolerance: touching faces reported (depth <= 0.5 LDU)"


def main() -> None:
    s = json.loads((OUT / "sample.json").read_text())
    cols = [json.loads(x) for x in (OUT / "collisions.jsonl").read_text().splitlines()]
    flo_file = OUT / "clusters.jsonl"  # a collisions-only sample has none
    flos = [json.loads(x) for x in flo_file.read_text().splitlines()] if flo_file.exists() else []
    print(f"Seed {s['seed']}; population: {s['population']['collisions']} colliding pairs, "
          f"{s['population']['floating']} floating parts.\n")
    print("### Collisions\n")
    print("| # | model | part A (file line) | part B (file line) | reported interference | mated | depth A in B | "
          "depth B in A | verdict | cause if wrong |")
    print("|---:|---|---|---|---:|---|---:|---:|---|---|")
    for n, r in enumerate(cols):
        ri = "through" if r["through"] else r["reported_interference"]
        print(f"| {n} | {r['model']} | {r['a'][0]} ({r['a'][1]}) | {r['b'][0]} ({r['b'][1]}) | {ri} | "
              f"{'yes' if r['mated'] else ''} | {r['depth_a_in_b']} | {r['depth_b_in_a']} | "
              f"{'true' if r['verdict'] else '**false**'} | {_cause_col(r)} |")
    t = sum(r["verdict"] for r in cols)
    print(f"\nCollision precision: {t}/{len(cols)} = {t / len(cols):.3f}\n")
    if not flos:
        return
    print("### Floating parts\n")
    print("| # | model | part (file line) | floating group (parts) | non-floating parts near the group | "
          "held by (drop test: part, line, neighbour, line, depth as drawn, depth 2 LDU lower) | "
          "group bottom above the model's lowest point (LDU) | verdict | cause if wrong |")
    print("|---:|---|---|---:|---:|---|---:|---|---|")
    causes = Counter()
    for n, r in enumerate(flos):
        v, cause = r["auto_verdict"], ""
        if r["held"]:
            h = r["held"][0]
            cause = "held by a part the validator does not join it to (joint kind unknown / missing connector)"
        elif r["ground_gap"] <= 2:
            cause = "ground choice: the group stands on the model's lowest level"
        if not v:
            causes[cause] += 1
        held = "; ".join(f"{h[0]} {h[1]} on {h[2]} {h[3]} ({h[4]} -> {h[5]})" for h in r["held"])
        print(f"| {n} | {r['model']} | {r['part']} ({r['line']}) | {r['cluster']} | {r['candidates']} | {held} | "
              f"{r['ground_gap']} | {'true' if v else '**false**'} | {cause} |")
    t = sum(r["auto_verdict"] for r in flos)
    print(f"\nFloating precision: {t}/{len(flos)} = {t / len(flos):.3f}\n")
    for c, k in causes.most_common():
        print(f"- {c}: {k}")


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval (95% for ``z`` = 1.96) of a proportion ``k / n``: ``(low, high)``."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    c = (p + z * z / (2 * n)) / (1 + z * z / n)
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return c - h, c + h


def _key(label: str):
    import ldr

    return ldr.label_key(label)


def _precision(rows: list[dict]) -> str:
    t = sum(r["verdict"] for r in rows)
    kept = [r for r in rows if r["reported_after_fixes"]]
    tk = sum(r["verdict"] for r in kept)
    lo, hi = wilson(t, len(rows))
    lo2, hi2 = wilson(tk, len(kept))
    return (f"as sampled {t}/{len(rows)} = {t / len(rows):.3f} (Wilson 95%: {lo:.3f}-{hi:.3f}); "
            f"still reported after the fixes {tk}/{len(kept)} = {tk / max(1, len(kept)):.3f} "
            f"(Wilson 95%: {lo2:.3f}-{hi2:.3f})")


def main_round(rnd: int, after_dir: str) -> None:
    """Round ``rnd`` (5 on): ``round{rnd}.json`` and the markdown tables (see the module docstring)."""
    from verdicts import MANUAL

    manual = MANUAL.get(rnd, {})
    s = json.loads((OUT / "sample.json").read_text())
    cols = [json.loads(x) for x in (OUT / "collisions.jsonl").read_text().splitlines()]
    flos = [json.loads(x) for x in (OUT / "floaters.jsonl").read_text().splitlines()]
    after = OUT / after_dir
    rows_c, rows_f = [], []
    for n, r in enumerate(cols):
        v, note = manual.get(("collision", n), (bool(r["verdict"]), ""))
        rep = json.loads((after / f"{r['model']}.json").read_text())
        keys = {(_key(c["a"]["label"]), _key(c["b"]["label"])) for c in rep["collisions"]}
        ka, kb = _key(r["a_label"]), _key(r["b_label"])
        still = (ka, kb) in keys or (kb, ka) in keys
        rows_c.append(dict(n=n, model=r["model"], a=r["a"][:2], b=r["b"][:2], reported=r["reported_interference"],
                           through=r["through"], mated=r["mated"], depth_a_in_b=r["depth_a_in_b"],
                           depth_b_in_a=r["depth_b_in_a"], certified=r["certified"], verdict=v, note=note,
                           reported_after_fixes=still))
    for n, r in enumerate(flos):
        v, note = manual.get(("floating", n), (bool(r["auto_verdict"]), ""))
        rep = json.loads((after / f"{r['model']}.json").read_text())
        still = any(_key(d["label"]) == _key(r["label"]) for d in rep["floating"])
        rows_f.append(dict(n=n, model=r["model"], part=r["part"], line=r["line"], group=r["cluster"],
                           drop_held=r["held"], studs_engaged=r["studs_engaged"][:3], ground_gap=r["ground_gap"],
                           verdict=v, note=note, reported_after_fixes=still))
    (HERE / f"round{rnd}.json").write_text(json.dumps(dict(seed=s["seed"], population=s["population"],
                                                           collisions=rows_c, floating=rows_f), indent=1) + "\n")
    p = print
    p("| # | model | part A (line) | part B (line) | reported | depth A in B | depth B in A | verdict | still reported | note |")
    p("|---:|---|---|---|---:|---:|---:|---|---|---|")
    for r in rows_c:
        rep = "through" if r["through"] else r["reported"]
        p(f"| {r['n']} | {r['model']} | {r['a'][0]} ({r['a'][1]}) | {r['b'][0]} ({r['b'][1]}) | {rep} | "
          f"{r['depth_a_in_b']} | {r['depth_b_in_a']} | {'true' if r['verdict'] else '**false**'} | "
          f"{'yes' if r['reported_after_fixes'] else 'no'} | {r['note']} |")
    p(f"\nCollision precision: {_precision(rows_c)}\n")
    p("| # | model | part (line) | group | drop test: held by | studs seated in a part outside the group | "
      "group bottom above the lowest point (LDU) | verdict | still reported | note |")
    p("|---:|---|---|---:|---|---|---:|---|---|---|")
    for r in rows_f:
        held = "; ".join(f"{h[0]} {h[1]} in {h[2]} {h[3]} ({h[4]} -> {h[5]})" for h in r["drop_held"])
        studs = "; ".join(f"{x[0]} {x[1]} / {x[2]} {x[3]}: {x[4]}" for x in r["studs_engaged"])
        p(f"| {r['n']} | {r['model']} | {r['part']} ({r['line']}) | {r['group']} | {held} | {studs} | "
          f"{r['ground_gap']} | {'true' if r['verdict'] else '**false**'} | "
          f"{'yes' if r['reported_after_fixes'] else 'no'} | {r['note']} |")
    p(f"\nFloating precision: {_precision(rows_f)}")


if __name__ == "__main__":
    if "--round" in sys.argv:
        a = sys.argv[1:]
        main_round(int(a[a.index("--round") + 1]), a[a.index("--after") + 1] if "--after" in a else "reports")
    else:
        main()
