"""Shared command-line handling of the example scripts: where to write the .ldr."""

import argparse
from pathlib import Path


def out_path(default_name: str) -> Path:
    """Output path from ``--out DIR`` (default: the current folder)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=".", help="folder for the exported .ldr/.mpd")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    return out / default_name
