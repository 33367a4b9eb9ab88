"""Write the sample tables of ``benchmarks/validator_audit.md`` from the judged sample.

Reads {sample.json,collisions.jsonl,clusters.jsonl} (``judge.py``) from ``AUDIT_DIR`` (default /tmp/audit) and the manual verdicts below (close-ups
looked at, ``closeup.py``); prints markdown to stdout.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

OUT = Path(os.environ.get("AUDIT_DIR", "/tmp/audit"))

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


if __name__ == "__main__":
    main()
