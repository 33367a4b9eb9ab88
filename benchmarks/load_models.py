"""Benchmark: load the official models and their part meshes.

For every model of ``/work/shared/models/official`` (or the files given):

1. ``load_model`` (read, parse and flatten to placements), timed;
2. ``load_meshes`` of all its parts with a cold cache: a fresh empty
   ``BRICKWRIGHT_CACHE_DIR`` and empty in-process caches, so every distinct
   part is parsed and flattened from the library and written to disk;
3. ``load_meshes`` again with a warm disk cache but empty in-process caches
   (what a new process sees);
4. ``world_bounds`` of all placements.

Usage::

    python benchmarks/load_models.py [--no-cold] [--only SUBSTRING] [FILES...]

Prints one line per model and totals (parts per second). This is a script,
so it prints; the library itself only logs.
"""

from __future__ import annotations

__all__ = ["main"]

import argparse
import logging
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

OFFICIAL = Path(os.environ.get("BRICKWRIGHT_MODELS_DIR", Path(__file__).resolve().parents[1].parent / "shared" / "models" / "official"))
# run as a script from anywhere: put the repository first on the path
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*", help="model files (default: every official model)")
    ap.add_argument("--only", default="", help="only models whose file name contains this")
    ap.add_argument("--no-cold", action="store_true", help="skip the cold-cache pass (slow)")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.ERROR)

    tmp = Path(tempfile.mkdtemp(prefix="bw-mesh-bench-"))
    os.environ["BRICKWRIGHT_CACHE_DIR"] = str(tmp / "cache")
    # imported after the cache dir is set (cache_dir() reads the variable on each call anyway)
    from ldraw_data import get_library, load_model
    from ldraw_data.mesh import clear_mesh_cache, load_meshes, world_bounds

    files = [Path(f) for f in args.files] or sorted(OFFICIAL.glob("*.mpd")) + sorted(OFFICIAL.glob("*.ldr"))
    files = [f for f in files if args.only.lower() in f.name.lower()]
    lib = get_library()
    t0 = time.perf_counter()
    lib.fingerprint  # builds the file index once (not part of any model's time)
    t_index = time.perf_counter() - t0
    print(f"library index + fingerprint: {t_index:.2f} s; cache in {tmp}")
    print(f"{'model':45s} {'parts':>6s} {'dist':>5s} {'tris':>9s} {'load':>7s} {'cold':>7s} {'warm':>7s} {'bounds':>7s}")

    tot = dict(parts=0, distinct=0, load=0.0, cold=0.0, warm=0.0, bounds=0.0)
    try:
        for f in files:
            t = time.perf_counter()
            model = load_model(f, lib)
            t_load = time.perf_counter() - t
            names = [p.name for p in model.parts]
            cold = float("nan")
            if not args.no_cold:
                shutil.rmtree(tmp / "cache", ignore_errors=True)
                clear_mesh_cache()
                t = time.perf_counter()
                load_meshes(names, lib, embedded=model.document)
                cold = time.perf_counter() - t
            clear_mesh_cache()  # disk cache stays: this is the warm pass of a new process
            t = time.perf_counter()
            meshes = load_meshes(names, lib, embedded=model.document)
            warm = time.perf_counter() - t
            t = time.perf_counter()
            world_bounds(meshes, names, model.transforms)
            t_bounds = time.perf_counter() - t
            distinct = len({id(m) for m in meshes.values()})
            tris = sum(meshes[n].n_triangles for n in names)
            print(f"{f.stem[:45]:45s} {len(names):6d} {distinct:5d} {tris:9d} {t_load:7.3f} {cold:7.2f} "
                  f"{warm:7.3f} {t_bounds:7.4f}", flush=True)
            tot["parts"] += len(names)
            tot["distinct"] += distinct
            for k, v in (("load", t_load), ("cold", cold), ("warm", warm), ("bounds", t_bounds)):
                tot[k] += v
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    n = tot["parts"]
    print(f"\n{len(files)} models, {n} placements, {tot['distinct']} distinct parts (summed per model)")
    print(f"load_model:          {tot['load']:8.2f} s  {n / tot['load']:10.0f} placements/s")
    if not args.no_cold:
        print(f"meshes, cold cache:  {tot['cold']:8.2f} s  {tot['distinct'] / tot['cold']:10.1f} distinct parts/s")
    print(f"meshes, warm cache:  {tot['warm']:8.2f} s  {tot['distinct'] / tot['warm']:10.0f} distinct parts/s  "
          f"{n / tot['warm']:10.0f} placements/s")
    print(f"world_bounds:        {tot['bounds']:8.3f} s  {n / max(tot['bounds'], 1e-9):10.0f} placements/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
