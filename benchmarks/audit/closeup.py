"""Close-up renders for the audit: the judged part in red (colour 4), its neighbours within ``reach`` LDU
as drawn, written as a small LDraw file and rendered with ``python -m brickwright render``; several
close-ups are pasted into one contact sheet to look at.

Usage (``AUDIT_DIR`` holds the judged ``floaters.jsonl`` / ``collisions.jsonl`` of ``judge4.py``; close-ups
go to ``AUDIT_DIR/closeups``)::

    python benchmarks/audit/closeup.py floaters|collisions [first] [count]
    python benchmarks/audit/closeup.py pick floaters|collisions 3,17,40 [reach LDU] [view]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ldr  # noqa: E402

AUDIT = Path(os.environ.get("AUDIT_DIR", "/tmp/audit"))
OUT = AUDIT / "closeups"
MODELS = Path("/work/shared/models/official")


def _line(lf: ldr.Leaf, colour: int) -> str:
    m = lf.world
    vals = [m[0, 3], m[1, 3], m[2, 3], *m[:3, :3].ravel()]
    return f"1 {colour} " + " ".join(f"{v:.4f}" for v in vals) + f" {lf.name}"


def closeup(model: str, focus: list[str], tag: str, reach: float = 40.0, view: str = "iso") -> Path:
    """Render the parts at index labels ``focus`` (red, then blue) with neighbours whose origin lies within
    ``reach`` LDU of the focus parts' origins; returns the PNG path."""
    path = MODELS / f"{model}.mpd"
    leaves = ldr.flatten(path)
    fl = [ldr.leaf_by_index(leaves, f) for f in focus]
    centre = np.mean([f.world[:3, 3] for f in fl], axis=0)
    lines = [_line(f, c) for f, c in zip(fl, (4, 1))]
    for lf in leaves:
        if lf in fl:
            continue
        if np.linalg.norm(lf.world[:3, 3] - centre) <= reach:
            lines.append(_line(lf, 71 if lf.colour in (4, 1) else lf.colour))
    OUT.mkdir(parents=True, exist_ok=True)
    # MPD-embedded parts are copied in with their blocks so the close-up renders them too
    order, blocks = ldr.read_blocks(path)
    extra = []
    for name in order:  # every embedded .dat block: parts and the sub-parts they refer to
        if name.endswith(".dat"):
            extra.append(f"0 FILE {name}")
            extra += [s for _, s in blocks[name]]
    ldrf = OUT / f"{tag}.mpd"
    ldrf.write_text("\n".join(["0 FILE closeup.ldr", *lines, "", *extra]) + "\n")
    png = OUT / f"{tag}.png"
    subprocess.run([sys.executable, "-m", "brickwright", "render", str(ldrf), "--out", str(png), "--view", view,
                    "--size", "480x400", "--force"], check=False, capture_output=True)
    return png


def sheet(pngs: list[Path], labels: list[str], out: Path, cols: int = 3) -> Path:
    """Paste renders into one labelled grid."""
    from PIL import Image, ImageDraw

    ims = [Image.open(p) if p.exists() else Image.new("RGB", (480, 400), "white") for p in pngs]
    w, h = 480, 400
    rows = (len(ims) + cols - 1) // cols
    S = Image.new("RGB", (cols * w, rows * h), "white")
    d = ImageDraw.Draw(S)
    for k, (im, lab) in enumerate(zip(ims, labels)):
        x, y = (k % cols) * w, (k // cols) * h
        S.paste(im.convert("RGB").resize((w, h)), (x, y))
        d.rectangle([x, y, x + w - 1, y + h - 1], outline="black")
        d.text((x + 4, y + 4), lab, fill="black")
    S.save(out)
    return out


def _label(kind: str, n: int, r: dict) -> str:
    if kind == "floaters":
        held = r.get("held_by_supported") or [f"{h[2]}@{h[3]}" for h in r.get("held", [])]
        return f"{n} {r['model'][:18]} {r['part']}@{r['line']} held:{','.join(held)[:30]}"
    return f"{n} {r['model'][:18]} {r['a'][0]}+{r['b'][0]} d={r.get('depth')}"


def _focus(kind: str, r: dict) -> list[str]:
    return [r["label"]] if kind == "floaters" else [r["a_label"], r["b_label"]]


if __name__ == "__main__":
    if sys.argv[1] == "pick":
        kind, picks = sys.argv[2], [int(x) for x in sys.argv[3].split(",")]
        reach = float(sys.argv[4]) if len(sys.argv) > 4 else 40.0
        view = sys.argv[5] if len(sys.argv) > 5 else "iso"
        recs = [json.loads(x) for x in (AUDIT / f"{kind}.jsonl").read_text().splitlines()]
        pngs, labs = [], []
        for n in picks:
            r = recs[n]
            pngs.append(closeup(r["model"], _focus(kind, r), f"{kind}{n}_{view}_{int(reach)}", reach, view))
            labs.append(_label(kind, n, r) + f" {view} {int(reach)}")
        print(sheet(pngs, labs, OUT / f"pick_{kind}_{picks[0]}_{view}_{int(reach)}.png"))
        sys.exit(0)
    kind = sys.argv[1]
    first = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 6
    recs = [json.loads(x) for x in (AUDIT / f"{kind}.jsonl").read_text().splitlines()]
    pngs, labs = [], []
    for n, r in enumerate(recs[first:first + count], start=first):
        pngs.append(closeup(r["model"], _focus(kind, r), f"{kind}{n}"))
        labs.append(_label(kind, n, r))
    print(sheet(pngs, labs, OUT / f"sheet_{kind}_{first}.png"))
