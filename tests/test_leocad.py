"""LeoCAD (Debian ``leocad``, headless under Xvfb) opens the files the toolkit writes with every part present,
placed and coloured as written (issue 18). Slow: each LeoCAD run takes a few seconds; skipped when
``leocad`` or ``xvfb-run`` is not installed. The checks live in ``benchmarks/leocad_check.py``."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("leocad_check", ROOT / "benchmarks" / "leocad_check.py")
lc = importlib.util.module_from_spec(_spec)
sys.modules["leocad_check"] = lc  # dataclasses look their module up
_spec.loader.exec_module(lc)

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(lc.leocad_missing() is not None, reason=str(lc.leocad_missing()))]


@pytest.fixture(scope="module")
def lib_root(library) -> Path:
    return Path(library.root)


def test_leocad_draws_an_unknown_part_as_its_placeholder(tmp_path, lib_root):
    # the check can fail: a part id no library has is seen by LeoCAD, drawn as its placeholder box
    f = tmp_path / "unknown.ldr"
    f.write_text("0 unknown part\n0 Name: unknown.ldr\n"
                 "1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n0 STEP\n"
                 "1 1 0 -24 0 1 0 0 0 1 0 0 0 1 99999zz.dat\n0 STEP\n"
                 "1 2 0 -48 0 1 0 0 0 1 0 0 0 1 3003.dat\n0 STEP\n")
    view = lc.run_leocad(f, lib_root, tmp_path / "lc")
    assert sorted(k for k, _c, _m in view.placements) == ["3001_dat", "3003_dat", "99999zz_dat"]
    assert view.unknown == {"99999zz_dat"}
    assert view.main_model_steps == 3
    brick = next(m for k, _c, m in view.placements if k == "3003_dat")
    assert brick[:3, 3].tolist() == [0.0, -48.0, 0.0]        # back in LDraw axes, LDU
    assert {c for _k, c, _m in view.placements} == {"Red", "Blue", "Green"}


def test_instructions_and_written_mpd_of_an_official_model_open_in_leocad(tmp_path, official_dir, lib_root,
                                                                          library):
    from bricklayer import read_ldraw, write_ldraw

    model = official_dir / "1788_Treasure_Chest.mpd"
    # independent count: the file is one model without submodels, one part per type-1 line
    type1 = [ln.split() for ln in model.read_text(errors="replace").splitlines() if ln.split()[:1] == ["1"]]
    src = lc.run_leocad(model, lib_root, tmp_path / "source")
    assert len(src.placements) == len(type1) == 186
    assert src.unknown == {"3334h_dat", "6029b_dat"}    # not in the LDraw library (nor in the file)

    out = tmp_path / "instructions"
    subprocess.run([sys.executable, "-m", "brickwright", "instructions", str(model), "--out", str(out),
                    "--no-images"], cwd=ROOT, capture_output=True, text=True)
    plan = json.loads((out / "plan.json").read_text())
    r = lc.check_file(out / "steps.mpd", lib_root, tmp_path / "steps", src, plan["main_model_steps"], library)
    assert (r["leocad_parts"], r["missing_count"], r["extra_count"], r["new_unknown"]) == (186, 0, 0, [])
    assert r["not_as_read_count"] == [0, 0]
    assert r["leocad_steps"] == plan["main_model_steps"]
    assert r["ok"]

    mpd = write_ldraw(read_ldraw(model, library=library), tmp_path / "chest.mpd")
    r = lc.check_file(mpd, lib_root, tmp_path / "written", src, None, library)
    assert (r["leocad_parts"], r["missing_count"], r["extra_count"], r["new_unknown"]) == (186, 0, 0, [])
    assert r["leocad_steps"] == src.main_model_steps
    assert r["ok"]


def test_tower_example_opens_in_leocad(tmp_path, lib_root, library):
    subprocess.run([sys.executable, str(ROOT / "examples" / "tower.py"), "--out", str(tmp_path)], cwd=ROOT,
                   check=True, capture_output=True)
    r = lc.check_file(tmp_path / "tower.mpd", lib_root, tmp_path / "lc", None, None, library)
    # 4 storeys x (2 rings x 4 bricks + a floor plate) + base plate + lamp = 38 parts
    assert (r["leocad_parts"], r["unknown"], r["not_as_read_count"]) == (38, [], [0, 0])
    assert r["leocad_steps"] == 1
