"""Fresh-process speed of read + validate: the time and memory a CLI call or an agent pays per model.

Each run starts a new Python process (disk caches warm: run once before measuring) that imports
``bricklayer``, reads the model with :func:`bricklayer.read_ldraw` and validates it with
:func:`brickwright.validation.validation_report`, then reports the read time (imports included),
the validate time, the total wall time, the CPU time and the peak resident memory
(``ru_maxrss``, MiB). Prints the median of ``--runs`` runs per checkout; with several
``--repo`` checkouts the runs alternate between them, so that a before/after comparison shares
the same machine load (the machine is shared: compare only runs made together).

``--dump DIR`` writes each model's validation report as JSON (``DIR/<model stem>.json``, the
first run's), to check that a speed change leaves the results identical.

``--bytecode`` lets the child processes keep compiled bytecode (under a temporary
``PYTHONPYCACHEPREFIX``, warmed by one untimed run per checkout), as an installed package does;
by default the environment's setting holds (``PYTHONDONTWRITEBYTECODE=1`` in the sandbox: every
process compiles the project's modules again). Results: ``benchmarks/startup.md``.

Usage::

    python benchmarks/startup.py [MODEL ...] [--runs 5] [--repo PATH ...] [--dump DIR]

The default model is the Millennium Falcon 10179 of ``shared/models/official`` (issue 16 target:
1.6 s median, 225 MiB).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_MODEL = HERE.parent.parent / "shared" / "models" / "official" / "10179_1_Millennium_Falcon_UCS.mpd"

#: The measured process: imports, read, validate; prints one JSON line (times in s, memory in MiB).
_CHILD = r"""
import json, resource, sys, time
t0 = time.perf_counter()
sys.path.insert(0, sys.argv[1])
from bricklayer import read_ldraw
from brickwright.validation import validation_report
b = read_ldraw(sys.argv[2])
t1 = time.perf_counter()
r = validation_report(b)
t2 = time.perf_counter()
if len(sys.argv) > 3:
    with open(sys.argv[3], "w") as fh:
        json.dump(r, fh, indent=1, sort_keys=True, default=str)
print(json.dumps({"parts": r.get("parts"), "read_s": t1 - t0, "validate_s": t2 - t1, "total_s": t2 - t0,
                  "cpu_s": time.process_time(),
                  "maxrss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def run_once(repo: Path, model: Path, dump: Path | None = None, pycache: Path | None = None) -> dict:
    """One fresh process reading and validating ``model`` with the packages of checkout ``repo``.

    Returns
    -------
    dict
        ``parts``, ``read_s``, ``validate_s``, ``total_s``, ``cpu_s`` (seconds) and ``maxrss_mib``.
        With ``pycache``, bytecode is written and read there (``PYTHONPYCACHEPREFIX``).

    Raises
    ------
    RuntimeError
        When the process fails (its stderr is in the message).
    """
    args = [sys.executable, "-c", _CHILD, str(repo), str(model)] + ([str(dump)] if dump else [])
    env = dict(os.environ, PYTHONPATH=str(repo))
    if pycache is not None:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(pycache)
    p = subprocess.run(args, capture_output=True, text=True, cwd=str(repo), env=env)
    if p.returncode != 0:
        raise RuntimeError(f"{model.name} with {repo}: exit {p.returncode}\n{p.stderr[-3000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("models", nargs="*", type=Path, default=[DEFAULT_MODEL])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--repo", type=Path, action="append", help="checkout(s) to measure (default: this one)")
    ap.add_argument("--dump", type=Path, help="write each model's report JSON here (first run)")
    ap.add_argument("--bytecode", action="store_true", help="keep compiled bytecode between runs")
    args = ap.parse_args(argv)
    repos = [r.resolve() for r in (args.repo or [HERE.parent])]
    tmp = None
    pycache: dict[Path, Path | None] = {r: None for r in repos}
    if args.bytecode:
        import tempfile

        tmp = tempfile.TemporaryDirectory(prefix="startup-pycache-")
        for k, r in enumerate(repos):
            pycache[r] = Path(tmp.name) / str(k)
            run_once(r, args.models[0], None, pycache[r])  # warm-up: compiles and stores the bytecode
    for model in args.models:
        runs: dict[Path, list[dict]] = {r: [] for r in repos}
        for k in range(args.runs):
            for r in repos:
                dump = None
                if args.dump and k == 0:
                    folder = args.dump / (r.name if len(repos) > 1 else "")
                    folder.mkdir(parents=True, exist_ok=True)
                    dump = folder / f"{model.stem}.json"
                runs[r].append(run_once(r, model, dump, pycache[r]))
        for r, rs in runs.items():
            med = {k: statistics.median(x[k] for x in rs) for k in ("read_s", "validate_s", "total_s", "cpu_s",
                                                                    "maxrss_mib")}
            print(f"{model.stem} ({rs[0]['parts']} parts) {r}: median of {len(rs)} fresh runs: "
                  f"read {med['read_s']:.2f} s, validate {med['validate_s']:.2f} s, total {med['total_s']:.2f} s, "
                  f"cpu {med['cpu_s']:.2f} s, max RSS {med['maxrss_mib']:.0f} MiB "
                  f"(totals {', '.join(format(x['total_s'], '.2f') for x in rs)})")
    if tmp is not None:
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
