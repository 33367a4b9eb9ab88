"""Benchmark: 3D export of the Millennium Falcon (10179, 5,247 parts, 247 distinct) to glTF binary.

Prints, per step, wall seconds and the peak memory of the process (``ru_maxrss``,
MiB) after it:

1. ``read_ldraw`` (parse and build);
2. ``write_gltf`` (meshes from the disk cache when warm, then the .glb), with the
   file size, placements, distinct parts, materials and triangles stored;
3. optionally (``--all``) ``write_obj``, ``write_stl`` and, when usd-core is
   installed, ``write_usd`` (``.usdc``), which repeat the mesh work per placement.

Run it twice to see the warm mesh cache; the first run of a fresh cache also
flattens every part file.

Usage::

    python benchmarks/export.py [--all] [--out DIR] [FILE]

This is a script, so it prints; the library itself only logs.
"""

from __future__ import annotations

__all__ = ["main"]

import argparse
import logging
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

OFFICIAL = Path(os.environ.get("BRICKWRIGHT_MODELS_DIR",
                               Path(__file__).resolve().parents[1].parent / "shared" / "models" / "official"))
DEFAULT = "10179_1_Millennium_Falcon_UCS.mpd"
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux: KiB


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file", nargs="?", default=str(OFFICIAL / DEFAULT), help="model (default: the Falcon)")
    ap.add_argument("--all", action="store_true", help="also OBJ, STL and USD")
    ap.add_argument("--out", default=None, help="folder to keep the files in (default: a temporary folder)")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.ERROR)

    from bricklayer import read_ldraw
    from bricklayer.export import write_gltf, write_obj, write_stl, write_usd
    from bricklayer.export.usd import usd_available

    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="export-bench-"))
    out.mkdir(parents=True, exist_ok=True)
    stem = Path(args.file).stem
    t = time.perf_counter()
    build = read_ldraw(args.file)
    print(f"read_ldraw   {time.perf_counter() - t:7.2f} s  peak {_peak_mib():7.0f} MiB  "
          f"({build.brick_count} parts)")
    steps = [("write_gltf", write_gltf, ".glb")]
    if args.all:
        steps += [("write_obj", write_obj, ".obj"), ("write_stl", write_stl, ".stl")]
        if usd_available():
            steps.append(("write_usd", write_usd, ".usdc"))
    for name, fn, suffix in steps:
        t = time.perf_counter()
        res = fn(build, out / f"{stem}{suffix}", overwrite=True)
        dt = time.perf_counter() - t
        size = res.path.stat().st_size / 2**20
        print(f"{name:<12} {dt:7.2f} s  peak {_peak_mib():7.0f} MiB  {size:7.1f} MiB file, {res.placements} "
              f"placements, {res.distinct_parts} distinct parts, {res.materials} materials, "
              f"{res.triangles} triangles")
    print(f"files in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
