"""Every example script runs and writes an LDraw file that reads back (and, in-process, is valid)."""

import runpy
import subprocess
import sys
from pathlib import Path

import pytest

from bricklayer import read_ldraw

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
SDK_EXAMPLES = {"small_house.py": "small_house.ldr", "car.py": "car.ldr", "tower.py": "tower.mpd"}


@pytest.mark.parametrize("script,output", sorted(SDK_EXAMPLES.items()))
def test_example_runs_and_exports(tmp_path, script, output):
    res = subprocess.run([sys.executable, str(EXAMPLES / script), "--out", str(tmp_path)],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    out = tmp_path / output
    assert out.exists()
    back = read_ldraw(out)
    b = runpy.run_path(str(EXAMPLES / script))["create_build"]()
    assert back.brick_count == b.brick_count > 10
    assert b.is_connected()
    assert b.is_valid(), (b.colliding_placements, b.floating_placements)
