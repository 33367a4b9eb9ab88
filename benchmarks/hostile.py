"""Validator on hostile inputs: many parts drawn at one place (issue 15, "reading never crashes or hangs").

Generates LDraw files into a temporary folder and runs ``python -m brickwright validate FILE`` on each,
printing the wall time, the peak memory of the process, the exit code and the summary line:

- ``fan4096``: a 1 KB MPD of 12 sub-model levels, each placing the next one twice at the same place:
  4,096 copies of brick 3001 at one pose (exact duplicates);
- ``spread512``: 512 bricks 3001 1 LDU apart along x (no two at the same pose);
- ``spread512_0.01``: the same 0.01 LDU apart;
- ``grid8``: 8 x 8 x 8 bricks 3001 at 1 LDU spacing (every pair collides);
- ``stud1024``: a brick 3001 with 1,024 plates 3024 stacked on one of its studs (coincident connectors).

Before the guards of :data:`bricklayer.constants.CROWDED_PARTNERS` and
:data:`bricklayer.constants.COINCIDENT_CONNECTORS`, 512 coincident bricks took 57 s and 500 MB and 4,096
did not finish in 120 s. The pair cache is disabled (``BRICKLAYER_NO_PAIR_CACHE``) so every narrow-phase
answer is computed, as on a first run.

Usage::

    python benchmarks/hostile.py [--only NAME]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BRICK = "3001.dat"


def fan(levels: int) -> str:
    """MPD text: ``levels`` sub-models, each placing the next twice at the same pose; 2**levels bricks."""
    lines = []
    for k in range(levels):
        lines += [f"0 FILE l{k}.ldr"] + [f"1 16 0 0 0 1 0 0 0 1 0 0 0 1 l{k + 1}.ldr"] * 2 + ["0 NOFILE"]
    lines += [f"0 FILE l{levels}.ldr", f"1 4 0 0 0 1 0 0 0 1 0 0 0 1 {BRICK}", "0 NOFILE"]
    return "\n".join(lines) + "\n"


def spread(n: int, step_ldu: float) -> str:
    """LDR text: ``n`` bricks 3001 ``step_ldu`` apart along x."""
    return "".join(f"1 4 {k * step_ldu:g} 0 0 1 0 0 0 1 0 0 0 1 {BRICK}\n" for k in range(n))


def grid(k: int, step_ldu: float) -> str:
    """LDR text: ``k**3`` bricks 3001 on a cubic grid ``step_ldu`` apart."""
    return "".join(f"1 4 {x * step_ldu:g} {-y * step_ldu:g} {z * step_ldu:g} 1 0 0 0 1 0 0 0 1 {BRICK}\n"
                   for x in range(k) for y in range(k) for z in range(k))


def stud_stack(n: int) -> str:
    """LDR text: a brick 3001 and ``n`` plates 1 x 1 (3024) all seated on its first stud (LDraw -y is up)."""
    lines = [f"1 4 0 0 0 1 0 0 0 1 0 0 0 1 {BRICK}"]
    lines += ["1 1 30 -8 10 1 0 0 0 1 0 0 0 1 3024.dat"] * n
    return "\n".join(lines) + "\n"


CASES = {
    "fan4096": ("fan4096.mpd", lambda: fan(12)),
    "spread512": ("spread512.ldr", lambda: spread(512, 1.0)),
    "spread512_0.01": ("spread512_001.ldr", lambda: spread(512, 0.01)),
    "grid8": ("grid8.ldr", lambda: grid(8, 1.0)),
    "stud1024": ("stud1024.ldr", lambda: stud_stack(1024)),
}


def run(name: str, folder: Path) -> dict:
    """Validate one case in a fresh process; returns seconds, peak MB, exit code and the summary line."""
    file, make = CASES[name]
    path = folder / file
    path.write_text(make())
    env = dict(os.environ, BRICKLAYER_NO_PAIR_CACHE="1")
    out_path = folder / (file + ".txt")
    t = time.perf_counter()
    with open(out_path, "w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "brickwright", "validate", str(path)], stdout=out,
                                stderr=subprocess.DEVNULL, env=env)
        _, status, usage = os.wait4(proc.pid, 0)  # the child's own resource usage (peak memory)
    dt = time.perf_counter() - t
    text = out_path.read_text()
    return {"case": name, "s": round(dt, 2), "peak_mb": round(usage.ru_maxrss / 1024),
            "exit": os.waitstatus_to_exitcode(status), "summary": text.splitlines()[0] if text else ""}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", help="run only the cases whose name contains this")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for name in CASES:
            if args.only and args.only not in name:
                continue
            r = run(name, Path(tmp))
            print(f"{r['case']:>15}: {r['s']:6.2f} s, peak {r['peak_mb']} MB, exit {r['exit']}: "
                  f"{r['summary']}", flush=True)


if __name__ == "__main__":
    main()
