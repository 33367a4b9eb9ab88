"""What the sandbox and the judge cost: one agent ``validate`` call, warm, with and without the sandbox.

A ``validate`` call runs build.py in the warm worker (a fork per request; in bubblewrap unless ``--no-sandbox``)
and judges the LDraw text it returns in the judge process (:func:`brickwright.agent.tools.run_and_judge`).
Measured on a 50-part build (bricks on a 6x6 plate, with a ``run_tests()``) and on the 5,247-part UCS
Millennium Falcon (its ``create_build()`` reads the model: ``input.mpd`` in the run folder, as ``--from`` gives).

    python benchmarks/sandbox.py [--repeat 7] [--models DIR]

Prints per case the median and min/max seconds of warm calls (the first call, which starts the judge and
loads meshes, is shown apart), and parts per second.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from brickwright.agent import ToolBox, Worker  # noqa: E402
from brickwright.agent.judge import Judge  # noqa: E402

FIFTY = """from bricklayer import *
from brickwright.testing import TestContext

def create_build():
    b = LegoBuild()
    b.add(Element("3958", Color.GREEN), (0, 0, 0))
    for i in range(49):
        b.add(Element("3005", Color.RED), (i % 6, (i // 6) % 6, 1 + 3 * (i // 36)))
    return b

def run_tests():
    ctx = TestContext(create_build())
    ctx.check_no_floating()
    return ctx.report()
"""

FALCON = """from pathlib import Path
from bricklayer import read_ldraw

def create_build():
    return read_ldraw(Path(__file__).with_name("input.mpd"))
"""


def measure(source: str, sandbox: bool, repeat: int, model: Path | None = None) -> tuple[float, list[float], int]:
    """(first call s, warm call s list, parts) of ``repeat`` validate calls on a fresh worker and judge."""
    with tempfile.TemporaryDirectory(prefix="bench-sandbox-") as tmp:
        run = Path(tmp) / "run"
        run.mkdir()
        if model is not None:
            shutil.copy(model, run / "input.mpd")
        with Worker(sandbox=sandbox, time_limit=300, memory_limit=4 * 1024**3) as w, Judge() as judge:
            w.info  # start-up and warm-up are not a validate call
            box = ToolBox(run, w, judge=judge)
            box._write(source)
            times = []
            for _ in range(repeat):
                t0 = time.perf_counter()
                data, _ = box.validate()
                times.append(time.perf_counter() - t0)
            parts = (data.get("fixed") or {}).get("parts") or 0
            if "error" in data:
                raise SystemExit(f"validate failed: {data['error']['text']}")
    return times[0], times[1:], parts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--models", default=os.environ.get("BRICKWRIGHT_MODELS_DIR")
                    or str(Path(__file__).resolve().parents[2] / "shared" / "models" / "official"))
    args = ap.parse_args()
    falcon = Path(args.models) / "10179_1_Millennium_Falcon_UCS.mpd"
    cases = [("50-part build", FIFTY, None)]
    if falcon.exists():
        cases.append(("Millennium Falcon", FALCON, falcon))
    print(f"{'case':<20} {'sandbox':>7} {'parts':>6} {'first s':>8} {'median s':>9} {'min s':>7} {'max s':>7}"
          f" {'parts/s':>8}")
    for name, src, model in cases:
        for sandbox in (True, False):
            first, warm, parts = measure(src, sandbox, args.repeat if model is None else max(3, args.repeat // 2),
                                         model)
            med = statistics.median(warm)
            print(f"{name:<20} {'yes' if sandbox else 'no':>7} {parts:>6} {first:>8.3f} {med:>9.3f} "
                  f"{min(warm):>7.3f} {max(warm):>7.3f} {parts / med:>8.0f}")


if __name__ == "__main__":
    main()
