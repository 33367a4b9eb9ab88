"""Assembly sequences of the official models: share of parts placed and time per model.

Usage: ``python benchmarks/assembly.py [MODEL ...] [--out report.json]`` (default: all of
``/work/shared/models/official``). Prints one line per model and the totals.
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
    ap.add_argument("--budget", type=float, default=60.0, help="planning time budget per model, seconds")
    a = ap.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    warnings.simplefilter("ignore")
    models = a.models or sorted(OFFICIAL.glob("*.mpd"))
    rows = []
    for m in models:
        t0 = time.perf_counter()
        b = read_ldraw(m)
        t1 = time.perf_counter()
        b.colliding_placements  # validator caches (collisions, support) are shared with the planner
        t2 = time.perf_counter()
        plan = assembly_sequence(b, time_budget=a.budget, separate_objects=True)  # official files draw stands apart
        t3 = time.perf_counter()
        s = plan.summary(b, k=3)
        row = dict(model=m.name, parts=s["parts"], placed=s["placed"], skipped=s["skipped"], failed=s["failed"],
                   share=s["placed_share"], complete=plan.complete, read_s=round(t1 - t0, 2),
                   validate_s=round(t2 - t1, 2), plan_s=round(t3 - t2, 2), skipped_reasons=s["skipped_reasons"],
                   failure_causes=s["failure_causes"], subassemblies=s["subassemblies"],
                   first_failures=s["failures"], snap_fits=s.get("snap_fits", 0),
                   complete_but_drawn_floating=bool(s["failed"]) and set(s["failure_causes"]) == {"floating"})
        rows.append(row)
        print(f"{m.name:55s} {row['parts']:5d} parts  placed {100 * row['share']:5.1f}%  skipped {row['skipped']:3d}  "
              f"failed {row['failed']:4d}  validate {row['validate_s']:6.2f}s  plan {row['plan_s']:6.2f}s  "
              f"{'complete' if row['complete'] else row['failure_causes']}", flush=True)
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
    if a.out:
        a.out.write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
