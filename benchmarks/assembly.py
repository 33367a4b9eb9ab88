"""Assembly sequences of the official models: share of parts placed and time per model.

Usage: ``python benchmarks/assembly.py [MODEL ...] [--out report.json] [--check]`` (default: all of
``/work/shared/models/official``). Prints one line per model and the totals. ``--check`` also replays each
plan with the independent checker of ``benchmarks/check_plans.py`` and prints its verdict (holds, deep path
and cover violations; possible snap fits are not failures).
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
import warnings
import os
from pathlib import Path

from bricklayer import read_ldraw
from bricklayer.assembly import assembly_sequence

OFFICIAL = Path(os.environ.get("BRICKWRIGHT_MODELS_DIR", Path(__file__).resolve().parents[1].parent / "shared" / "models" / "official"))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("models", nargs="*", type=Path)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--budget", type=float, default=60.0, help="planning time budget per model, CPU seconds")
    ap.add_argument("--check", action="store_true", help="replay each plan with benchmarks/check_plans.py")
    a = ap.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    warnings.simplefilter("ignore")
    models = a.models or sorted(OFFICIAL.glob("*.mpd"))
    check_plan = None
    if a.check:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from check_plans import check_plan
    rows = []
    for m in models:
        t0 = time.perf_counter()
        b = read_ldraw(m)
        t1 = time.perf_counter()
        b.colliding_placements  # validator caches (collisions, support) are shared with the planner
        t2, c2 = time.perf_counter(), time.process_time()
        plan = assembly_sequence(b, time_budget=a.budget, separate_objects=True)  # official files draw stands apart
        t3, c3 = time.perf_counter(), time.process_time()
        s = plan.summary(b, k=3)
        row = dict(model=m.name, parts=s["parts"], placed=s["placed"], skipped=s["skipped"], failed=s["failed"],
                   share=s["placed_share"], complete=plan.complete, read_s=round(t1 - t0, 2),
                   validate_s=round(t2 - t1, 2), plan_s=round(t3 - t2, 2), plan_cpu_s=round(c3 - c2, 2),
                   skipped_reasons=s["skipped_reasons"],
                   failure_causes=s["failure_causes"], subassemblies=s["subassemblies"],
                   first_failures=s["failures"], snap_fits=s.get("snap_fits", 0),
                   complete_but_drawn_floating=bool(s["failed"]) and set(s["failure_causes"]) == {"floating"},
                   held_steps=s.get("held_steps", 0))
        if check_plan is not None:
            res = check_plan(b, plan)
            c = res.counts()
            deep = sum(not v.shallow for v in res.by_rule("path"))
            row["check"] = dict(holds=c["holds"], path_deep=deep, path_shallow=c["path"] - deep, snap=c["snap"],
                                cover=c["cover"])
        rows.append(row)
        print(f"{m.name:55s} {row['parts']:5d} parts  placed {100 * row['share']:5.1f}%  skipped {row['skipped']:3d}  "
              f"failed {row['failed']:4d}  validate {row['validate_s']:6.2f}s  plan {row['plan_s']:6.2f}s (cpu {row['plan_cpu_s']:6.2f}s)  "
              f"{'complete' if row['complete'] else row['failure_causes']}"
              + (f"  check {row['check']}" if "check" in row else ""), flush=True)
    n = len(rows)
    full = sum(r["complete"] for r in rows)
    times = sorted(r["plan_s"] for r in rows)
    drawn = sum(r["complete_but_drawn_floating"] for r in rows)
    print(f"\n{full}/{n} models fully sequenced (+{drawn} where only parts floating in the file as drawn, "
          f"which no order can place, are left); mean share placed "
          f"{100 * sum(r['share'] for r in rows) / max(n, 1):.1f}%; plan time total "
          f"{sum(times):.1f}s, per model median {times[n // 2] if n else 0:.1f}s, max {max(times, default=0):.1f}s, "
          f"{sum(t < 10 for t in times)} under 10 s")
    causes: dict = {}
    for r in rows:
        for c, v in r["failure_causes"].items():
            causes[c] = causes.get(c, 0) + v
    print("failed parts by cause over all models:", causes)
    checked = [r for r in rows if "check" in r]
    if checked:
        clean = [r for r in checked if not (r["check"]["holds"] or r["check"]["path_deep"] or r["check"]["cover"])]
        good = [r for r in checked if r["complete"] or r["complete_but_drawn_floating"]]
        print(f"replay check: {len(clean)}/{len(checked)} plans without holds, deep path or cover violations; "
              f"{sum(r in clean for r in good)}/{len(good)} of the complete ones (or short only of drawn floaters)")
    if a.out:
        a.out.write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
