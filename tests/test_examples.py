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


@pytest.mark.render
@pytest.mark.parametrize("script", sorted(SDK_EXAMPLES))
def test_example_renders_with_its_colours_and_fully_framed(script):
    """Each example renders: not empty, its colours appear, no part cut off at the border."""
    import numpy as np

    import bricklayer.render as r
    from ldraw_data.colors import get_color_table

    try:
        r.backend_info()
    except r.RenderBackendError as exc:
        pytest.skip(f"no offscreen OpenGL backend: {exc}")
    b = runpy.run_path(str(EXAMPLES / script))["create_build"]()
    (cam, px), = r.render_views(b, ["iso"], size=(320, 240))
    bg = np.array(r.BACKGROUND)
    assert np.any(px != bg, axis=2).mean() > 0.05
    for edge in (px[0], px[-1], px[:, 0], px[:, -1]):
        assert np.all(edge == bg), "a part touches the picture border"
    table = get_color_table()
    codes = {int(p.content.color) for p in b.flattened_placements}
    rgb = px.reshape(-1, 3).astype(int)
    for code in codes:
        want = np.array(table.rgba(code)[:3])
        # some pixel within shading range of the colour: the same hue, lit or shaded
        seen = np.any(np.abs(rgb - want).sum(axis=1) < 60) or np.any(
            np.abs(rgb / np.maximum(rgb.sum(axis=1, keepdims=True), 1) - want / max(want.sum(), 1)).sum(axis=1) < 0.05)
        assert seen, table.name(code)
