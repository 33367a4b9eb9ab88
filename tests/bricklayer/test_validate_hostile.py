"""Hostile inputs that draw many parts at one place (issue 15): the validator stays bounded and says NOT VALID.

Expected values worked out by hand from the generated files (the generators are those of
``benchmarks/hostile.py``). Brick 3001 is 80 x 24 x 40 LDU (LDraw x, y, z); two copies shifted by
``d`` LDU along x overlap by ``80 - d`` LDU, which collides whenever that exceeds the 0.5 LDU the
0.25 LDU insets leave, so bricks 1 LDU apart collide with the 79 nearest on each side, and in an
8 x 8 x 8 grid at 1 LDU spacing every one of the C(512, 2) = 130,816 pairs collides. With at most
``CROWDED_PARTNERS`` (32) colliding partners per part, at most 512 * 32 / 2 = 8,192 pairs are reported.
Timings are in ``benchmarks/hostile.py``, not here.
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bricklayer.constants import COINCIDENT_CONNECTORS, CROWDED_PARTNERS
from brickwright.cli import app

REPO = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("_hostile", REPO / "benchmarks" / "hostile.py")
hostile = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(hostile)
runner = CliRunner()


@pytest.fixture(autouse=True)
def _no_pair_cache(monkeypatch):
    # hostile pairs are not worth keeping in the shared on-disk pair cache
    monkeypatch.setenv("BRICKLAYER_NO_PAIR_CACHE", "1")


def _validate(tmp_path: Path, name: str, text: str, as_json: bool = False):
    f = tmp_path / name
    f.write_text(text)
    r = runner.invoke(app, ["validate", str(f)] + (["--json"] if as_json else []))
    return r


def test_constants():
    assert (CROWDED_PARTNERS, COINCIDENT_CONNECTORS) == (32, 4)


def test_fan_of_4096_coincident_bricks(tmp_path):
    r = _validate(tmp_path, "fan.mpd", hostile.fan(12))
    assert r.exit_code == 1, r.output
    head = r.output.splitlines()[0]
    assert "4096 parts" in head and head.endswith("NOT VALID")
    assert "Traceback" not in r.output
    # 4,095 placements repeat the first one's pose: 8 listed, the rest counted
    assert r.output.count("\nDUPLICATE ") == 8 and "... and 4087 more duplicates" in r.output
    m = re.search(r"\.\.\. and at least (\d+) more pairs of nearby parts not tested: parts drawn inside many others "
                  r"\((\d+) parts collide with 32 or more others", r.output)
    assert m and int(m.group(1)) > 0 and int(m.group(2)) > 0


def test_512_bricks_1_ldu_apart(tmp_path):
    r = _validate(tmp_path, "spread.ldr", hostile.spread(512, 1.0), as_json=True)
    assert r.exit_code == 1
    rep = json.loads(r.output)
    assert rep["valid"] is False and rep["parts"] == 512 and not rep["duplicates"]
    cols = rep["collisions"]
    assert 512 // 2 <= len(cols) <= 512 * CROWDED_PARTNERS // 2
    assert rep["unexamined_pairs"] > 0
    # each reported pair is two bricks at most 79 LDU apart (x is the grid column: 20 LDU)
    gaps = {round((c["b"]["grid"][0] - c["a"]["grid"][0]) * 20) for c in cols}
    assert min(gaps) >= 1 and max(gaps) <= 79
    text = rep["text"]
    assert "COLLISION spread.ldr:1: 3001" in text and "NOT VALID" in text.splitlines()[0]


def test_grid_of_512_bricks_at_1_ldu(tmp_path):
    r = _validate(tmp_path, "grid.ldr", hostile.grid(8, 1.0), as_json=True)
    assert r.exit_code == 1
    rep = json.loads(r.output)
    n_cols, skipped = len(rep["collisions"]), rep["unexamined_pairs"]
    assert 0 < n_cols <= 512 * CROWDED_PARTNERS // 2
    assert skipped > 0 and n_cols + skipped <= 512 * 511 // 2
    assert rep["text"].splitlines()[1].startswith("COLLISION ")


def test_plates_stacked_on_one_stud(tmp_path):
    # a brick and 64 plates 1 x 1 on one stud: at most COINCIDENT_CONNECTORS plates can be joined to it
    r = _validate(tmp_path, "stud.ldr", hostile.stud_stack(64), as_json=True)
    assert r.exit_code == 1
    rep = json.loads(r.output)
    assert rep["parts"] == 65 and len(rep["duplicates"]) == 63
    assert max(rep["component_sizes"]) == 1 + COINCIDENT_CONNECTORS
