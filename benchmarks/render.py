"""Benchmark: render time and peak memory of official models, offscreen (software OpenGL is fine).

Cases (each run in a fresh child process, so its peak resident memory and CPU time
are its own, read with ``os.wait4``; the machine is shared, so the CPU time of the
whole child, reading included, is the steadier number):

``view FILE``
    ``read_ldraw`` then ``render_build`` of the iso view at ``--size``.
``sheet FILE``
    ``read_ldraw`` then ``render_sheet`` (six views) at ``--sheet-size``.
``instructions FILE``
    ``read_ldraw`` then ``write_instructions`` (planning, ``steps.mpd``,
    ``plan.json`` and every step picture) into a temporary folder; the planning
    time is reported apart from the pictures.

Default: the 5,247-part Millennium Falcon (10179) view and sheet, and
``instructions`` on WALL-E (21303, 778 parts). Issue 18 targets: Falcon sheet
under 5 s and under 1 GB. Measured (docs/rendering.md, "Speed"): sheet
51 s wall / 48 s CPU / 1,087 MB before, 15-19 s wall / 12.5 s CPU / 480-530 MB
after the per-vertex lighting, low-resolution primitives, indexed drawing and
sub-pixel edges; the iso view 45 s -> 5.5 s. Round 2 (hidden placements left
out of each view, vertices shared across normals, uniforms set once; before and
after run alternately in the same minutes, load 5-6 on the 2 cores, medians of
3): sheet 13.95 s -> 10.15 s CPU, 24.4 s -> 19.2 s wall (loaded; 6.3 s quiet
before), 504 -> 480 MB; iso view 6.5 -> 5.5-6.6 s CPU; WALL-E
``instructions`` 55.5 -> 54.8 s CPU (its scenes are mostly below the culling
threshold). Round 3 (a lean forward pass instead of pyrender's per-draw
Python, culled instance buffers rewritten only on change, colour-only read
back; session-start checkout 6e9fca3 and the round's last commit run
alternately 20:42-21:02, load 5-8.5, medians of 3): sheet 11.57 -> 10.39 s
CPU (18.7 s wall loaded), 476 MB; iso view 6.07 -> 6.04 s CPU; WALL-E
``instructions`` 65.3 -> 53.0 s CPU, pictures 161 -> 96 s wall (loaded),
550 MB; the sheet's pixels identical. Round 4 (upload arrays of each
instance batch kept in the cache folder, occluders as one world mesh,
the views drawn together so that llvmpipe rasterizes one while the next
is binned; session-start checkout 722fd8c and this round's commits
alternately, 21:33-21:51, load 1.8-3.3, five sets of 3 pairs, medians):
sheet CPU 12.01 -> 11.15, 11.28 -> 10.76, 9.27 -> 8.77, 9.41 -> 8.57,
8.20 -> 7.91 s; main thread 6.76 -> 6.19, 6.62 -> 5.90, 5.28 -> 4.79,
5.24 -> 4.64, 4.71 -> 4.34 s; read+render wall 7.03 -> 6.96 and
7.35 -> 6.58 s in the last two sets (load 2-3: other jobs decide it);
476-549 -> 498-574 MB; pixels identical. WALL-E ``instructions`` CPU
42.98 -> 42.15 s (medians, load falling during the runs). Round 5 (pyrender
imported without trimesh/scipy, freetype and pyglet, which offscreen drawing
never uses; main dc3969d and this round alternately, 23:37-23:39, load 6,
medians of 3): sheet CPU 10.58 -> 9.59 s, main thread 6.18 -> 5.42 s,
read+render wall 21.21 -> 17.99 s (loaded), 526 -> 464 MB; the sheet's PNG
byte-identical. A tighter hidden-part test (each box drawn against the
occluder depth on the GPU) drew 11-22 % fewer placements but saved no CPU and
changed 10 pixels: dropped (docs/rendering.md, round 5). Round 6 (an
element's frame numbers kept on disk per part so that reading no longer looks
up connectors, which are made on first use; embedded parts' meshes cached by
content; the level-of-detail triangle count from the mesh packs' headers; main
8d6b85e and this round alternately, 00:13-00:15, load 8-9,
medians of 3): sheet CPU 9.86 -> 9.64 s, main thread 5.55 -> 5.24 s, read
2.73 -> 0.82 s wall, read+render wall 27.00 -> 23.54 s (loaded), 465 -> 431
MB; a second set with the last code (00:22-00:24, load 6.4-7): CPU 8.75 ->
8.18 s, main thread 4.92 -> 4.51 s, read 1.62 -> 0.66 s wall; the sheet's
PNG byte-identical. Round 7 (coarse level of detail where a pixel is 3.5 LDU or
more: tubes, pins and holes with 4-segment faces, outer studs and most edge
lines keep 8; edge lines lit once per view on the CPU; the hidden-part test
against one depth a pixel; main c9b4c2c and this round alternately, 02:51-02:54,
load 3.9-5.5, medians of 4): sheet CPU 8.45 -> 6.80 s (-20 %), main thread
4.42 -> 3.53 s, read+render wall 12.68 -> 9.44 s (loaded), 412 -> 402-424 MB;
iso view (not coarse at 3.3 LDU a pixel) CPU 4.15 -> 3.70 s; two more sheet
sets: CPU 9.32 -> 7.38 s (-21 %) and 9.51 -> 8.12 s (-15 %). From this round
pictures need only be visually the same: ``--out DIR --compare MAIN_DIR``
prints the share of pixels differing by more than 24 of 255 in some channel
from another checkout's pictures and exits 1 above 0.5 % (the Falcon sheet:
0.236 %). Each line prints ``read+render`` (wall, the
issue's measure), ``cpu``, the child's user + system time (all threads),
and ``main thread``, the CPU of the child's main thread (the serial part). The first render of a process also starts the
OpenGL context (included in the render time). Part meshes come from the disk
cache when warm; run once to warm it.

Usage::

    python benchmarks/render.py                      # the default cases
    python benchmarks/render.py --case sheet FILE    # one case on other models
    python benchmarks/render.py --out DIR            # also keep the pictures
    python benchmarks/render.py --case sheet FILE --out DIR --compare MAIN_DIR   # pixels against main's

This is a script, so it prints; the library itself only logs.
"""

from __future__ import annotations

__all__ = ["main"]

import argparse
import json
import logging
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OFFICIAL = Path(os.environ.get("BRICKWRIGHT_MODELS_DIR", ROOT.parent / "shared" / "models" / "official"))
FALCON = OFFICIAL / "10179_1_Millennium_Falcon_UCS.mpd"
WALLE = OFFICIAL / "21303_WALLE.mpd"
DEFAULT_CASES = (("view", FALCON), ("sheet", FALCON), ("instructions", WALLE))
sys.path.insert(0, str(ROOT))


def _child(case: str, path: Path, size: str, sheet_size: str, out: str | None) -> dict:
    """Run one case in this process; returns its timings (seconds)."""
    logging.basicConfig(level=logging.ERROR)
    from bricklayer import read_ldraw

    t0 = time.perf_counter()
    build = read_ldraw(path)
    t1 = time.perf_counter()
    res = {"case": case, "model": path.stem, "parts": build.brick_count, "read_s": t1 - t0}
    if case == "view":
        from bricklayer.render import render_build

        img = render_build(build, view="iso", size=size)
        res["render_s"] = time.perf_counter() - t1
        if out:
            img.save(Path(out) / f"{path.stem}-iso.png")
    elif case == "sheet":
        from bricklayer.render import render_sheet

        img = render_sheet(build, size=sheet_size, title=path.stem)
        res["render_s"] = time.perf_counter() - t1
        if out:
            img.save(Path(out) / f"{path.stem}-sheet.png")
    elif case == "instructions":
        from bricklayer.assembly import write_instructions

        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(out) / f"{path.stem}-instructions" if out else Path(tmp)
            r = write_instructions(build, folder, size=tuple(int(v) for v in size.split("x")), overwrite=True)
        total = time.perf_counter() - t1
        plan_s = float(r["summary"].get("seconds", 0.0))
        res.update(render_s=total - plan_s, plan_s=plan_s, total_s=total, pictures=len(r["images"]),
                   ldraw_steps=r["summary"].get("ldraw_steps"), image_error=r["image_error"])
    else:
        raise SystemExit(f"unknown case {case!r}: use view, sheet or instructions")
    res["main_cpu_s"] = time.thread_time()  # the main thread since it started (imports included)
    return res


def _run(case: str, path: Path, args) -> dict:
    cmd = [sys.executable, __file__, "--child", case, str(path), "--size", args.size, "--sheet-size", args.sheet_size]
    if args.out:
        cmd += ["--out", args.out]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    out = proc.stdout.read()
    _pid, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise SystemExit(f"{case} {path.name} failed (exit {proc.returncode})")
    res = json.loads(out.strip().splitlines()[-1])
    res["peak_mb"] = usage.ru_maxrss / 1024.0  # Linux: KiB
    res["cpu_s"] = usage.ru_utime + usage.ru_stime  # the whole child, all threads (llvmpipe's too)
    return res


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--case", nargs=2, action="append", metavar=("CASE", "FILE"),
                    help="view|sheet|instructions and a model (repeatable; default: Falcon view and sheet, "
                         "WALL-E instructions)")
    ap.add_argument("--size", default="800x600", help="single view / step picture size WxH")
    ap.add_argument("--sheet-size", default="1200x800", help="sheet size WxH")
    ap.add_argument("--out", default=None, help="folder to keep the pictures in")
    ap.add_argument("--json", default=None, help="also write the results to this JSON file")
    ap.add_argument("--compare", default=None, metavar="FOLDER",
                    help="with --out: compare each picture kept with the one of the same name in FOLDER (e.g. "
                         "another checkout's --out): pixels differing by more than 24 of 255; exit 1 above 0.5 %%")
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(_child(args.child[0], Path(args.child[1]), args.size, args.sheet_size, args.out)))
        return 0
    if args.out:
        Path(args.out).mkdir(parents=True, exist_ok=True)
    cases = [(c, Path(f)) for c, f in args.case] if args.case else list(DEFAULT_CASES)
    results = []
    for case, path in cases:
        r = _run(case, path, args)
        results.append(r)
        extra = ""
        if case == "instructions":
            extra = (f"  (planning {r['plan_s']:.1f}s, pictures {r['render_s']:.1f}s, {r['pictures']} pictures, "
                     f"{r['ldraw_steps']} LDraw steps{'; ' + r['image_error'] if r['image_error'] else ''})")
        size = {"view": args.size, "sheet": args.sheet_size}.get(case, args.size)
        print(f"{r['model']:40s} {r['parts']:5d} parts  {case:12s} {size:9s} read {r['read_s']:5.2f}s  "
              f"render {r['render_s']:6.2f}s  read+render {r['read_s'] + r['render_s']:6.2f}s  cpu {r['cpu_s']:6.2f}s  "
              f"main thread {r['main_cpu_s']:5.2f}s  peak {r['peak_mb']:7.0f} MB{extra}", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    if args.compare:
        if not args.out:
            raise SystemExit("--compare needs --out (the pictures to compare are those kept there)")
        return _compare_folders(Path(args.out), Path(args.compare))
    return 0


#: Largest share of a picture's pixels that may differ from the reference by more than
#: :data:`DIFFERENT_ABOVE` of 255 in some channel for the two to count as visually the same (issue 18,
#: round 7: a level of detail or culling rule may change pixels, not what the picture shows).
SAME_PICTURE_MAX_SHARE = 0.005
DIFFERENT_ABOVE = 24


def picture_difference(ours, reference) -> dict:
    """How two pictures of the same size differ.

    Parameters
    ----------
    ours, reference : (h, w, 3) uint8 arrays or paths of PNG files
        RGB pixels.

    Returns
    -------
    dict
        ``share_above`` the fraction of pixels differing by more than :data:`DIFFERENT_ABOVE` of 255 in
        some channel, ``share_above_8`` the same above 8, ``max`` the largest difference (0-255),
        ``mean`` the mean absolute difference over all channels.

    Raises
    ------
    ValueError
        Pictures of different sizes.
    """
    import numpy as np  # noqa: PLC0415
    from PIL import Image  # noqa: PLC0415

    a, b = (np.asarray(Image.open(x).convert("RGB")) if isinstance(x, (str, Path)) else np.asarray(x)
            for x in (ours, reference))
    if a.shape != b.shape:
        raise ValueError(f"pictures of different sizes: {a.shape} and {b.shape}")
    d = np.abs(a.astype(np.int16) - b.astype(np.int16))
    worst = d.max(axis=2)
    return {"share_above": float((worst > DIFFERENT_ABOVE).mean()), "share_above_8": float((worst > 8).mean()),
            "max": int(worst.max()), "mean": float(d.mean())}


def _compare_folders(ours: Path, reference: Path) -> int:
    """Print :func:`picture_difference` of every PNG in ``ours`` against ``reference``; 1 when one differs
    by more than :data:`SAME_PICTURE_MAX_SHARE`, or has no reference."""
    status = 0
    for png in sorted(ours.glob("*.png")):
        ref = reference / png.name
        if not ref.is_file():
            print(f"{png.name}: no reference {ref}")
            status = 1
            continue
        d = picture_difference(png, ref)
        ok = d["share_above"] <= SAME_PICTURE_MAX_SHARE
        status = status or (0 if ok else 1)
        print(f"{png.name}: {100 * d['share_above']:.3f} % of pixels differ by more than {DIFFERENT_ABOVE} "
              f"(limit {100 * SAME_PICTURE_MAX_SHARE:.1f} %), {100 * d['share_above_8']:.3f} % by more than 8, "
              f"largest {d['max']}, mean {d['mean']:.3f}: {'same' if ok else 'DIFFERENT'}")
    return status


if __name__ == "__main__":
    raise SystemExit(main())
