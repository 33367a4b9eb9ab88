"""Large builds in the loop (issue 20): how reading and validating grow from 5k to 100k parts.

The builds are copies of the official 10179 Millennium Falcon (5,247 parts) side by side:
one MPD whose main block places the Falcon's main model ``count`` times, five to a row,
3,000 LDU apart along x, rows 3,000 LDU apart along z (the Falcon is about 2,100 LDU
long, so the copies do not touch). 1, 2, 6, 10 and 19 copies give 5,247, 10,494, 31,482,
52,470 and 99,693 parts.

Each size runs in its own fresh Python process (caches on disk warm: the collision pair
cache is filled by the first run of any size, since every copy repeats the same part
pairs). Measured per size, median of ``--repeat`` runs:

* ``read``: :func:`bricklayer.read_ldraw` of the MPD (s);
* ``validate``: :func:`brickwright.validation.validation_report` of the build read (s);
* ``peak MB``: the process's peak resident memory after validating (``ru_maxrss``);
* ``+1 part``: after that full validation a 1 x 1 brick (3005) is put on a free upward
  stud at the top level and the build validated again (append-only edit, incremental
  path); the time of that second validation and its ratio to the full one.

Usage::

    python benchmarks/large_builds.py [--sizes 1,2,6,10,19] [--repeat 3] [--md benchmarks/large_builds.md]
    python benchmarks/large_builds.py --write-mpd 6 /tmp/falcons6.mpd
    python benchmarks/large_builds.py --report-json 6 out.json   # the validation report, for comparisons
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))  # this checkout's packages, not another editable install
FALCON = ROOT.parent / "shared" / "models" / "official" / "10179_1_Millennium_Falcon_UCS.mpd"
if not FALCON.exists():
    FALCON = Path("/work/shared/models/official/10179_1_Millennium_Falcon_UCS.mpd")
#: Spacing of the copies (LDU) and copies per row.
SPACING_LDU = 3000
PER_ROW = 5
#: Number of Falcons per benchmarked size (about 5k, 10k, 31k, 50k and 100k parts).
SIZES = (1, 2, 6, 10, 19)
#: The competing SDK's figures quoted in issue 20 (fresh process): parts -> (seconds, peak MB).
COMPETITOR = {31482: (50.6, 2500), 99693: (134.0, 4000)}
#: This project's figures quoted in issue 20 before this work (read + validate, peak MB).
ISSUE_BEFORE = {5247: (None, 225), 31482: (5.8, 765), 99693: (40.0, 7300)}


def falcons_mpd(count: int, falcon: Path = FALCON) -> str:
    """MPD text placing the Falcon's main model ``count`` times (grid of :data:`PER_ROW` per row,
    :data:`SPACING_LDU` LDU apart along LDraw x and z), followed by the Falcon file's own blocks.

    Raises
    ------
    ValueError
        The Falcon file does not start with its main block (``0 FILE 10179 - main.ldr``).
    """
    text = falcon.read_text(encoding="utf-8", errors="replace")
    first = text.splitlines()[0].strip()
    if not first.startswith("0 FILE "):
        raise ValueError(f"{falcon}: line 1 is {first!r}, expected '0 FILE <main block>'; "
                         "pass the official 10179 MPD")
    main = first[len("0 FILE "):]
    lines = ["0 FILE many.ldr", "0 Name: many.ldr"]
    for k in range(count):
        x, z = (k % PER_ROW) * SPACING_LDU, (k // PER_ROW) * SPACING_LDU
        lines.append(f"1 16 {x} 0 {z} 1 0 0 0 1 0 0 0 1 {main}")
    lines.append("0 NOFILE")
    return "\n".join(lines) + "\n" + text


def _one_run(path: str, add_part: bool) -> dict:
    """Read and validate ``path`` in this process; with ``add_part``, time one incremental re-validation."""
    import resource

    t0 = time.perf_counter()
    from bricklayer import Element, read_ldraw
    from brickwright.validation import validation_report

    t_import = time.perf_counter() - t0
    t0, c0 = time.perf_counter(), time.process_time()
    b = read_ldraw(path)
    t1, c1 = time.perf_counter(), time.process_time()
    r = validation_report(b)
    t2, c2 = time.perf_counter(), time.process_time()
    out = {"parts": r["parts"], "import_s": t_import, "read_s": t1 - t0, "validate_s": t2 - t1,
           "read_cpu_s": c1 - c0, "validate_cpu_s": c2 - c1,
           "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
           "valid": r["valid"], "collisions": len(r["collisions"]), "floating": len(r["floating"]),
           "components": r["components"]}
    if add_part:
        stud = max(b.find_connectors("stud", facing=(0, 0, 1)), key=lambda c: c.position[2])
        el = Element("3005")
        b.connect(el, el.find_connectors("antistud")[0], stud)  # the edit (not timed: the build API's work)
        t3, c3 = time.perf_counter(), time.process_time()
        r2 = validation_report(b)
        t4, c4 = time.perf_counter(), time.process_time()
        assert r2["parts"] == r["parts"] + 1, (r2["parts"], r["parts"])
        out["add_s"] = t4 - t3
        out["add_ratio"] = out["add_s"] / out["validate_s"]
        out["add_cpu_s"] = c4 - c3
    return out


def _child(count: int, add_part: bool) -> dict:
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / f"falcons{count}.mpd"
        p.write_text(falcons_mpd(count))
        cmd = [sys.executable, str(Path(__file__).resolve()), "--run-file", str(p)] + (["--add-part"] if add_part else [])
        res = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if res.returncode:
        raise RuntimeError(f"{count} Falcons: child failed:\n{res.stderr[-3000:]}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def _fmt(v, spec=".2f"):
    return "-" if v is None else format(v, spec)


def table(rows: list[dict]) -> str:
    """Markdown table of the medians per size."""
    head = ("| Falcons | parts | read s | validate s | read+validate s | CPU read+validate s | peak MB "
            "| +1 part s | +1 part CPU s | +1 part / full (CPU) | competing SDK s / MB |\n"
            "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    out = [head]
    for r in rows:
        comp = COMPETITOR.get(r["parts"])
        comp_s = f"{comp[0]:.1f} / {comp[1]:,}" if comp else "-"
        cpu_ratio = (100 * r["add_cpu_s"] / r["validate_cpu_s"]) if r.get("add_cpu_s") is not None else None
        out.append(f"| {r['falcons']} | {r['parts']:,} | {r['read_s']:.2f} | {r['validate_s']:.2f} | "
                   f"{r['read_s'] + r['validate_s']:.2f} | {r['read_cpu_s'] + r['validate_cpu_s']:.2f} | "
                   f"{r['peak_mb']:,.0f} | {_fmt(r.get('add_s'), '.3f')} | {_fmt(r.get('add_cpu_s'), '.3f')} | "
                   f"{_fmt(cpu_ratio, '.1f')}% | {comp_s} |")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)), help="Falcon counts, comma separated")
    ap.add_argument("--repeat", type=int, default=3, help="fresh processes per size (median reported)")
    ap.add_argument("--warmup", action="store_true", help="one untimed run of the smallest size first")
    ap.add_argument("--no-add", action="store_true", help="skip the one-added-part re-validation")
    ap.add_argument("--md", help="write the table (markdown) here")
    ap.add_argument("--write-mpd", nargs=2, metavar=("COUNT", "PATH"), help="only write the MPD of COUNT Falcons")
    ap.add_argument("--report-json", nargs=2, metavar=("COUNT", "PATH"),
                    help="only write the validation report (JSON) of COUNT Falcons")
    ap.add_argument("--run-file", help=argparse.SUPPRESS)
    ap.add_argument("--add-part", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.run_file:
        print(json.dumps(_one_run(a.run_file, a.add_part)))
        return 0
    if a.write_mpd:
        Path(a.write_mpd[1]).write_text(falcons_mpd(int(a.write_mpd[0])))
        return 0
    if a.report_json:
        from bricklayer import from_ldraw
        from brickwright.validation import validation_report

        r = validation_report(from_ldraw(falcons_mpd(int(a.report_json[0]))))
        Path(a.report_json[1]).write_text(json.dumps(r, indent=1, sort_keys=True, default=str))
        return 0
    sizes = [int(s) for s in a.sizes.split(",")]
    if a.warmup:
        _child(min(sizes), False)
    rows = []
    for count in sizes:
        runs = [_child(count, not a.no_add) for _ in range(a.repeat)]
        med = {k: statistics.median(r[k] for r in runs)
               for k in ("read_s", "validate_s", "peak_mb", "read_cpu_s", "validate_cpu_s")}
        if not a.no_add:
            med["add_s"] = statistics.median(r["add_s"] for r in runs)
            med["add_ratio"] = statistics.median(r["add_ratio"] for r in runs)
            med["add_cpu_s"] = statistics.median(r["add_cpu_s"] for r in runs)
        row = {"falcons": count, "parts": runs[0]["parts"], **med,
               "verdict": {k: runs[0][k] for k in ("valid", "collisions", "floating", "components")}}
        rows.append(row)
        print(f"{count:>3} Falcons {row['parts']:>7,} parts: read {row['read_s']:.2f} s, validate "
              f"{row['validate_s']:.2f} s (CPU {row['read_cpu_s']:.2f} + {row['validate_cpu_s']:.2f} s), peak {row['peak_mb']:,.0f} MB"
              + ("" if a.no_add else f", +1 part {row['add_s']:.3f} s, CPU {row['add_cpu_s']:.3f} s "
                                     f"({100 * row['add_cpu_s'] / row['validate_cpu_s']:.1f}% of the full CPU)")
              + f"  {row['verdict']}", flush=True)
    print()
    print(table(rows))
    if a.md:
        Path(a.md).write_text(table(rows) + "\n")
        Path(a.md).with_suffix(".json").write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
