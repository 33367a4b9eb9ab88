"""Break-it s26 findings 6, 9 and 10: pictures on an empty cache folder, output folders two runs create at
once, and the ``error: FILE[:LINE]: ...`` form of every error line."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[1]
MODEL = "1180_1_Space_Port_Moon_Buggy.mpd"  # 13 distinct parts: cold meshes take seconds, not minutes


def _cli(args, env=None, timeout=300):
    return subprocess.run([sys.executable, "-m", "brickwright", *args], cwd=REPO, capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **(env or {})})


def test_render_on_an_empty_cache_folder_does_not_build_the_connector_tables(official_dir, tmp_path):
    """F6: the first render on an empty cache folder read the whole LDCad snap table (46 s on a loaded
    machine) and the hose segment joints (5 s) because reading a model works out each part's alignment box
    from its studs and anti-studs. Now those come from the part's own files (``grid_connectors``): the cache
    folder gets no LDCad table and no segment table, and the picture is byte for byte the warm-cache one."""
    from ldraw_data.connectors import part_connectors

    part_connectors("3001")  # the developer's cache holds the whole tables (built here if not): the warm run
    cold, warm = tmp_path / "cold.png", tmp_path / "warm.png"
    cache = tmp_path / "cache"
    r = _cli(["render", str(official_dir / MODEL), "--out", str(cold)], env={"BRICKWRIGHT_CACHE_DIR": str(cache)})
    assert r.returncode == 0, r.stderr
    made = sorted(p.name for p in (cache / "connectors").iterdir())
    assert not [n for n in made if n.startswith(("ldcad-", "segments-"))], made
    assert any(n.startswith("bricknet-labels-") for n in made)  # BrickNet's labels (1 s) are still read
    r = _cli(["render", str(official_dir / MODEL), "--out", str(warm)])  # the developer's (warm) cache
    assert r.returncode == 0, r.stderr
    assert cold.read_bytes() == warm.read_bytes()


_GRID = ("import json, sys; from ldraw_data.connectors import grid_connectors; import ldraw_data.connectors as C; "
         "out = {p: sorted([d.type, *map(float, d.position)] for d in grid_connectors(p) "
         "if d.type in ('stud', 'open_stud', 'antistud', 'tube', 'post')) for p in sys.argv[1:]}; "
         "print(json.dumps([out, C.one_part_ldcad_reads, C._labels.cache_info().currsize]))")
#: A brick, a slope, a round plate (its studs are LDCad's), a jumper plate, a Technic brick and a tile.
_PARTS = ["3001", "3039", "6177", "3794b", "3700", "3068b"]


def test_grid_connectors_of_single_parts_match_the_whole_tables(tmp_path):
    """F6: on an empty cache folder each part's studs and anti-studs are read from its own files (one LDCad
    read a part, the whole table never loaded) and are the ones ``part_connectors`` gives with the whole
    tables (this process, the developer's cache)."""
    from ldraw_data.connectors import part_connectors

    r = subprocess.run([sys.executable, "-c", _GRID, *_PARTS], cwd=REPO, capture_output=True, text=True,
                       timeout=300, env={**os.environ, "BRICKWRIGHT_CACHE_DIR": str(tmp_path)})
    assert r.returncode == 0, r.stderr
    got, reads, loaded = json.loads(r.stdout)
    assert reads == len(_PARTS) and loaded == 0
    for p in _PARTS:
        full = sorted([d.type, *map(float, d.position)] for d in part_connectors(p)
                      if d.type in ("stud", "open_stud", "antistud", "tube", "post"))
        assert got[p] == full, p
    assert len(got["3001"]) == 8 + 8 + 3  # 8 studs; 8 anti-studs and 3 tubes underneath


def test_two_instructions_runs_into_one_new_folder_one_refuses(official_dir, tmp_path):
    """F9: two ``instructions --out DIR`` runs started at once both passed the "already holds instructions"
    check and wrote into one folder. The folder is now claimed (plan.json created exclusively) before
    planning: exactly one run writes, the other exits 2 with the message a later run gets."""
    out = tmp_path / "steps"
    cmd = [sys.executable, "-m", "brickwright", "instructions", str(official_dir / MODEL), "--out", str(out),
           "--no-images"]
    procs = [subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]
    results = [(p.wait(timeout=300), p.stderr.read()) for p in procs]
    for p in procs:
        p.stdout.close()
        p.stderr.close()
    codes = sorted(c for c, _ in results)
    assert codes == [0, 2], results
    err = next(e for c, e in results if c == 2)
    # while the first writes: its locked placeholder (s26 breakit2 F10); after it: its finished plan.json
    assert (f"error: {out} is being written by another brickwright instructions run" in err
            or f"error: {out} already holds instructions (plan.json" in err and "pass --force" in err), err
    summary = json.loads((out / "plan.json").read_text())  # the winner's real plan, not the placeholder
    assert summary["steps"] > 0


def test_a_failed_instructions_run_leaves_no_claim(official_dir, tmp_path):
    """F9: the plan.json placeholder of a run that fails after claiming the folder is removed, so the next
    run needs no --force."""
    from bricklayer import read_ldraw
    from bricklayer.assembly import write_instructions
    from bricklayer.errors import BrickLayerValueError

    build = read_ldraw(official_dir / MODEL)
    out = tmp_path / "steps"
    with pytest.raises(BrickLayerValueError, match="time_budget"):
        write_instructions(build, out, images=False, time_budget=-1.0)  # refused by the planner, after the claim
    assert out.is_dir() and list(out.iterdir()) == []


def test_two_tool_inits_into_one_folder_one_refuses(tmp_path):
    """F9 (the same race elsewhere): two ``tool init RUN`` started at once; exactly one makes the run folder,
    the other exits 2 saying it already holds a run."""
    run = tmp_path / "run"
    cmd = [sys.executable, "-m", "brickwright", "tool", "init", str(run)]
    procs = [subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]
    results = [(p.wait(timeout=120), p.stdout.read() + p.stderr.read()) for p in procs]
    for p in procs:
        p.stdout.close()
        p.stderr.close()
    assert sorted(c for c, _ in results) == [0, 2], results
    assert "already holds a run (build.py)" in next(o for c, o in results if c == 2)
    assert "def create_build" in (run / "build.py").read_text()  # the winner's template, not the placeholder


def test_generate_run_folders_made_in_one_second_get_distinct_names(tmp_path, monkeypatch):
    """F9: the timestamped run folder is made with mkdir (atomic): a second run in the same second takes the
    ``-2`` name instead of sharing the first's folder; ``--out`` into a folder a run claimed refuses."""
    from brickwright.agent.run import _new_run_dir
    from brickwright.errors import RunFolderExistsError

    monkeypatch.chdir(tmp_path)
    a, b = _new_run_dir("a red car", None), _new_run_dir("a red car", None)
    assert a != b and a.is_dir() and b.is_dir()
    if a.name[:15] == b.name[:15]:  # the same second (YYYYmmdd-HHMMSS): the next name
        assert b.name == a.name + "-2"
    out = _new_run_dir("x", tmp_path / "mine")
    assert (out / "transcript.jsonl").is_file()  # the claim
    with pytest.raises(RunFolderExistsError, match="already holds a run"):
        _new_run_dir("x", tmp_path / "mine")


def test_build_script_errors_start_with_file_and_line(tmp_path):
    """F10: a failing build.py printed ``error: BrickLayerValueError in create_build() at build.py line 7:``
    over several lines; now the first line is the README's ``error: FILE:LINE: ...`` with the script as given,
    the code line and the trace after; validating several files gives one ``FILE: build.py failed: FILE:LINE:
    ...`` line each (as an unreadable LDraw file's ``FILE: cannot be read: FILE:LINE: ...``)."""
    script = tmp_path / "build.py"
    script.write_text("from bricklayer import *\n\n\ndef create_build():\n    b = LegoBuild()\n"
                      "    b.add(Element('3001'), color='no such colour')\n    return b\n")
    syntax = tmp_path / "syn.py"
    syntax.write_text("def create_build(:\n    pass\n")
    r = _cli(["validate", str(script)])
    assert r.returncode == 1
    first, *rest = r.stderr.splitlines()
    assert first.startswith(f"error: {script}:6: ") and "in create_build(): " in first, r.stderr
    assert "     6 | b.add(Element('3001'), color='no such colour')" in rest
    r = _cli(["validate", str(script), str(syntax)])
    lines = r.stdout.splitlines()
    # the several-files form of unreadable LDraw files too: FILE: what: FILE:LINE: detail
    assert lines[0].startswith(f"{script}: build.py failed: {script}:6: ") and "in create_build(): " in lines[0]
    assert lines[1] == f"{syntax}: build.py failed: {syntax}:1: SyntaxError (column 18): invalid syntax"


def test_connect_docstring_example_runs_as_written():
    """F11: the connect() docstring's example, run as written (doctest), seats a 2 x 4 brick squarely on
    another and the build is valid; ``toward=(0, 0, 0)`` picked the centre tube (half a stud off)."""
    import doctest

    from bricklayer import LegoBuild
    from bricklayer.element import Element

    tests = doctest.DocTestFinder().find(LegoBuild.connect, "connect", globs={"LegoBuild": LegoBuild,
                                                                              "Element": Element})
    assert len(tests) == 1 and len(tests[0].examples) == 5
    runner = doctest.DocTestRunner()
    runner.run(tests[0])
    assert runner.summarize(verbose=False) == doctest.TestResults(failed=0, attempted=5)
    assert Element("3001").find_connector("antistud", toward=(0, 0, 0)).type == "tube"  # why the example changed


def test_atomic_write_without_replace_keeps_a_file_written_meanwhile(tmp_path):
    """F9 for single files: ``replace=False`` puts the finished file in place with a hard link, which fails on
    an existing name, so a file another writer made after the caller's check is kept; no temporary file stays."""
    from ldraw_data.errors import OutputExistsError
    from ldraw_data.fileio import atomic_write

    target = tmp_path / "out.txt"
    atomic_write(target, "first\n", replace=False)
    with pytest.raises(OutputExistsError, match=r"out.txt exists; pass --force to replace it"):
        atomic_write(target, "second\n", replace=False, replace_hint="pass --force")
    assert target.read_text() == "first\n" and [p.name for p in tmp_path.iterdir()] == ["out.txt"]
    atomic_write(target, "third\n")  # replace=True (the default) replaces
    assert target.read_text() == "third\n"


def test_two_renders_to_one_new_png_one_refuses(official_dir, tmp_path):
    """F9 for render: two runs without --force to one new PNG; exactly one writes it, the other exits 2
    (refused at the start, or when its picture is finished and the PNG is there)."""
    png = tmp_path / "m.png"
    cmd = [sys.executable, "-m", "brickwright", "render", str(official_dir / MODEL), "--out", str(png)]
    procs = [subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]
    results = [(p.wait(timeout=300), p.stderr.read()) for p in procs]
    for p in procs:
        p.stdout.close()
        p.stderr.close()
    assert sorted(c for c, _ in results) == [0, 2], results
    assert f"error: {png} exists; pass --force to replace it" in next(e for c, e in results if c == 2)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and [p.name for p in tmp_path.iterdir()] == ["m.png"]


_FRAMES = ("import json, sys; from bricklayer import read_ldraw; from bricklayer.element import _frame_numbers; "
           "import ldraw_data.connectors as C; "
           "ids = sorted({pl.element.ldraw_id for f in sys.argv[1:] for pl in read_ldraw(f).flattened_placements}); "
           "print(json.dumps([{p: _frame_numbers(p) for p in ids}, C._labels.cache_info().currsize]))")


@pytest.mark.slow
def test_alignment_boxes_on_an_empty_cache_match_the_whole_tables(official_dir, tmp_path):
    """F6: the alignment-box numbers of every distinct part of five official models (Falcon, Blockade Runner,
    Beetle, King's Castle, Eiffel Tower: about 500 parts, primitives placed as parts among them), worked out on an empty cache folder without the LDCad table, equal those
    worked out with the whole tables (this process, the developer's cache)."""
    from bricklayer.element import _frame_numbers
    from ldraw_data.connectors import part_connectors

    part_connectors("3001")  # the whole tables loaded in this process: _frame_numbers below uses them
    files = [str(official_dir / f"{m}.mpd") for m in
             ("10179_1_Millennium_Falcon_UCS", "10019_Rebel_Blockade_Runner_UCS", "10252_Volkswagen_Beetle",
              "6080_Kings_Castle", "21019_1_Eiffel_Tower")]  # the last two place primitives as parts
    r = subprocess.run([sys.executable, "-c", _FRAMES, *files], cwd=REPO, capture_output=True, text=True,
                       timeout=900, env={**os.environ, "BRICKWRIGHT_CACHE_DIR": str(tmp_path)})
    assert r.returncode == 0, r.stderr
    cold, loaded = json.loads(r.stdout)
    assert len(cold) > 300 and loaded == 0 and {"stud3a", "4-4cyli"} <= set(cold)
    assert {p: _frame_numbers(p) for p in cold} == cold
