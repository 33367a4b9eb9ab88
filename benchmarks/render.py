"""Benchmark: render official models offscreen (software OpenGL is fine).

For each model (default: the two ~1,000-part ones, 70814_Emmets_Constructo_Mech
with 943 parts and 6080_Kings_Castle with 911), times:

1. ``read_ldraw`` (parse and build);
2. ``render_build`` of the iso view at the given size (mesh gathering, upload
   and drawing; part meshes come from the disk cache when warm);
3. ``render_sheet`` (six views) at the sheet size.

The first render of a process also starts the OpenGL context (reported
separately as "backend"). Target (issue 6): one view of a 1,000-part model in
under 10 s on the 2-core development machine.

Usage::

    python benchmarks/render.py [--size 800x600] [--sheet-size 1200x800] [--out DIR] [FILES...]

This is a script, so it prints; the library itself only logs.
"""

from __future__ import annotations

__all__ = ["main"]

import argparse
import logging
import sys
import time
import os
from pathlib import Path

OFFICIAL = Path(os.environ.get("BRICKWRIGHT_MODELS_DIR", Path(__file__).resolve().parents[1].parent / "shared" / "models" / "official"))
DEFAULT = ("70814_Emmets_Constructo_Mech.mpd", "6080_Kings_Castle.mpd")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*", help="models (default: two ~1,000-part official models)")
    ap.add_argument("--size", default="800x600", help="single view size WxH")
    ap.add_argument("--sheet-size", default="1200x800", help="sheet size WxH")
    ap.add_argument("--out", default=None, help="folder to save the PNGs in")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.ERROR)

    from bricklayer import read_ldraw
    from bricklayer.render import backend_info, render_build, render_sheet

    t = time.perf_counter()
    info = backend_info()
    print(f"backend: {info['platform']} / {info['renderer']}: {time.perf_counter() - t:.2f}s")
    files = [Path(f) for f in args.files] or [OFFICIAL / f for f in DEFAULT]
    out = Path(args.out) if args.out else None
    if out:
        out.mkdir(parents=True, exist_ok=True)
    worst = 0.0
    for f in files:
        t0 = time.perf_counter()
        build = read_ldraw(f)
        t1 = time.perf_counter()
        img = render_build(build, view="iso", size=args.size)
        t2 = time.perf_counter()
        sheet = render_sheet(build, size=args.sheet_size, title=f.stem)
        t3 = time.perf_counter()
        worst = max(worst, t2 - t1)
        print(f"{f.stem:40s} {build.brick_count:5d} parts  read {t1 - t0:5.2f}s  "
              f"iso {args.size} {t2 - t1:5.2f}s  sheet {args.sheet_size} {t3 - t2:5.2f}s")
        if out:
            img.save(out / f"{f.stem}-iso.png")
            sheet.save(out / f"{f.stem}-sheet.png")
    print(f"slowest single view: {worst:.2f}s (target < 10 s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
