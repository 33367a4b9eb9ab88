"""Shared command line of the articulation examples: ``--out DIR`` (default: the current directory)."""

import argparse
from pathlib import Path


def out_path(filename: str) -> Path:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=".", help="folder for the .ldr file")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    return out / filename
