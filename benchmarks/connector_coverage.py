"""Connector coverage: library parts and official-model part uses with connectors, per source.

Counts, for every top-level part file of the installed LDraw library and for every part use
(placement of a library part) in the official models, whether it has connectors from BrickNet's
labels, from the LDCad shadow library's snap metas, from the hose segment joints read from the
library's hose drawings (:mod:`ldraw_data.segments`), from the composite parts that draw a part as
one of their pieces (:mod:`ldraw_data.subparts`), from a flat sticker's adhesive back face
(:mod:`ldraw_data.stickers`, type ``sticker_back``), or from any (the merge
:func:`ldraw_data.connectors.part_connectors` serves); "merged, no sticker backs" is the merge of the
stud/hole/axle-type sources alone. Stickers (catalog names starting "Sticker", with or without
LDraw's ``~``/``=`` prefix) are counted separately as well: formed ones (drawn bent to one part) have
no connector but also attach by their back face, which the validator checks by its "sticker on a
surface" rule (``bricklayer.validate.support._sticker_surface_edges``, docs/connectors.md), so the
line "connectors or sticker" counts every sticker as attached. Also prints the time of the first connector load in this
process (disk caches warm).

Usage::

    python benchmarks/connector_coverage.py [--models DIR] [--misses N]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_MODELS = HERE.parent.parent / "shared" / "models" / "official"
sys.path.insert(0, str(HERE.parent))  # this checkout's packages, not another editable install


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", type=Path, default=DEFAULT_MODELS, help="folder of official .mpd/.ldr models")
    ap.add_argument("--misses", type=int, default=15, help="list this many most-used parts without connectors")
    args = ap.parse_args(argv)

    t0 = time.perf_counter()
    from ldraw_data import connectors as C
    from ldraw_data.catalog import get_catalog
    from ldraw_data.io.model import load_model
    from ldraw_data.library import find_shadow_library, get_library

    lab = C._labels()
    t_load = time.perf_counter() - t0
    lib = get_library()
    cat = get_catalog()
    print(f"LDCad shadow library: {find_shadow_library() or 'not installed'}")
    print(f"connector tables loaded in {t_load:.2f} s")

    def bricknet(stem: str) -> bool:
        res = C.resolve_connector_part(stem)
        if res is None:
            return False
        a, b = lab.stems[res[0]]
        return b > a

    def ldcad(stem: str) -> bool:
        r = lab.ld_stems.get(stem)
        return r is not None and r[1] > r[0]

    def segment(stem: str) -> bool:
        return C.has_connectors(stem, sources=("segment",))

    def subpart(stem: str) -> bool:
        return C.has_connectors(stem, sources=("subpart",))

    def sticker_back(stem: str) -> bool:
        return C.has_connectors(stem, sources=("sticker",))

    def sticker(stem: str) -> bool:
        return stem in cat and cat.get(stem).name.lstrip("~=_ ").lower().startswith("sticker")

    stems = [n.removesuffix(".dat") for n, _ in lib.part_files()]
    n = len(stems)
    bn = sum(map(bricknet, stems))
    ld = sum(map(ldcad, stems))
    sg = sum(map(segment, stems))
    t1 = time.perf_counter()
    sp = sum(map(subpart, stems))
    t_sp = time.perf_counter() - t1
    sb = sum(map(sticker_back, stems))
    both = sum(1 for s in stems if C.has_connectors(s))
    no_sb = sum(1 for s in stems if C.has_connectors(s, sources=tuple(x for x in C.SOURCES if x != "sticker")))
    stick = [s for s in stems if sticker(s)]
    both_ns = sum(1 for s in stems if not sticker(s) and C.has_connectors(s))
    print(f"\nlibrary parts ({n}):")
    print(f"  BrickNet        {bn:6d}  {100 * bn / n:5.1f} %")
    print(f"  LDCad           {ld:6d}  {100 * ld / n:5.1f} %")
    print(f"  hose segments   {sg:6d}  {100 * sg / n:5.1f} %")
    print(f"  composite pieces{sp:6d}  {100 * sp / n:5.1f} %   (table loaded or built in {t_sp:.1f} s)")
    print(f"  sticker backs   {sb:6d}  {100 * sb / n:5.1f} %")
    print(f"  merged, no sticker backs {no_sb:6d}  {100 * no_sb / n:5.1f} %")
    print(f"  merged          {both:6d}  {100 * both / n:5.1f} %")
    print(f"  merged, stickers left out ({len(stick)}): {both_ns} of {n - len(stick)}  "
          f"{100 * both_ns / (n - len(stick)):5.1f} %")
    attached = both_ns + len(stick)
    print(f"  connectors or sticker (back face, 'sticker on a surface' rule): {attached}  "
          f"{100 * attached / n:5.1f} %")

    models = sorted(p for p in args.models.glob("*") if p.suffix.lower() in (".mpd", ".ldr"))
    uses = Counter()
    for m in models:
        fm = load_model(m, lib)
        for p in fm.parts:
            if not p.primitive and lib.find(p.part_id + ".dat") is not None:
                uses[p.part_id.lower()] += 1
    total = sum(uses.values())
    cov = {k: (bricknet(k), ldcad(k), C.has_connectors(k), segment(k), subpart(k), sticker_back(k)) for k in uses}
    u_bn = sum(v for k, v in uses.items() if cov[k][0])
    u_ld = sum(v for k, v in uses.items() if cov[k][1])
    u_all = sum(v for k, v in uses.items() if cov[k][2])
    u_sg = sum(v for k, v in uses.items() if cov[k][3])
    u_sp = sum(v for k, v in uses.items() if cov[k][4])
    u_sb = sum(v for k, v in uses.items() if cov[k][5])
    print(f"\npart uses in {len(models)} official models ({total} uses of {len(uses)} library parts):")
    print(f"  BrickNet        {u_bn:6d}  {100 * u_bn / total:5.2f} %")
    print(f"  LDCad           {u_ld:6d}  {100 * u_ld / total:5.2f} %")
    print(f"  hose segments   {u_sg:6d}  {100 * u_sg / total:5.2f} %")
    print(f"  composite pieces{u_sp:6d}  {100 * u_sp / total:5.2f} %")
    print(f"  sticker backs   {u_sb:6d}  {100 * u_sb / total:5.2f} %")
    print(f"  merged          {u_all:6d}  {100 * u_all / total:5.2f} %")
    from bricklayer.validate._world import FLEXIBLE_WORDS

    def flexible(stem: str) -> bool:
        name = cat.get(stem).name.lower() if stem in cat else ""
        if name.startswith("~moved to "):
            tgt = name.split()[-1]
            name = cat.get(tgt).name.lower() if tgt in cat else name
        return any(w in name for w in FLEXIBLE_WORDS)

    rigid = {k: v for k, v in uses.items() if not flexible(k)}
    r_tot, r_all = sum(rigid.values()), sum(v for k, v in rigid.items() if cov[k][2])
    print(f"  merged, rigid parts only ({r_tot} uses; hose, chain and string segments the validator "
          f"exempts left out): {r_all}  {100 * r_all / r_tot:5.2f} %")
    miss = sorted(((v, k) for k, v in uses.items() if not cov[k][2]), reverse=True)[: args.misses]
    if miss:
        print("  most-used parts without connectors:")
        for v, k in miss:
            print(f"    {v:5d}  {k:12s} {cat.get(k).name if k in cat else '?'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
