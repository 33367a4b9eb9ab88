"""Progress display (issue 18, item 4): bars on a terminal, nothing redrawn in logs, --quiet.

Captured output (a pipe, as in CI) must hold no ``\\r`` redraws; on a pseudo-terminal the bars appear.
"""

from __future__ import annotations

import os
import pty
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from bricklayer import Color, Element, LegoBuild, write_ldraw
from ldraw_data.progress import reporting

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def small_model(tmp_path_factory) -> Path:
    b = LegoBuild(name="tower")
    base = b.add(Element("3031", Color.GREEN), (0, 0, 0))
    for _ in range(3):
        base = b.stack(Element("3003", Color.RED), on=base)
    return write_ldraw(b, tmp_path_factory.mktemp("progress") / "tower.ldr")


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "brickwright", *args]


def _run_on_pty(args: list[str]) -> tuple[int, bytes]:
    """Run with standard error on a pseudo-terminal; (exit code, what the terminal received)."""
    master, slave = pty.openpty()
    p = subprocess.Popen(args, cwd=REPO, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    return p.wait(timeout=300), out


def test_captured_output_has_no_redraws(small_model, tmp_path):
    r = subprocess.run(_cli("instructions", str(small_model), "--out", str(tmp_path / "a"), "--no-images"),
                       cwd=REPO, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "\r" not in r.stderr and "\x1b[" not in r.stderr
    assert "4 of 4 parts placed" in r.stdout


def test_progress_drawn_on_a_terminal_and_quiet_draws_nothing(small_model, tmp_path):
    code, out = _run_on_pty(_cli("instructions", str(small_model), "--out", str(tmp_path / "b"), "--no-images"))
    assert code == 0
    assert b"planning the assembly order" in out and b"\r" in out
    code, out = _run_on_pty(_cli("--quiet", "instructions", str(small_model), "--out", str(tmp_path / "c"),
                                 "--no-images"))
    assert code == 0 and out == b""


def test_agent_status_lines_are_plain_when_not_a_terminal(capsys):
    from brickwright.agent.run import Progress
    from brickwright.cli import _progress
    from brickwright.progress import install

    install(quiet=False)  # capsys's stderr is no terminal
    _progress(Progress(1, "validate", 2, 1, 4, 5, 0.01, "ok"))
    _progress(Progress(2, None, 2, 1, 4, 5, 0.02, "finished", done=True), "run 1 of 3 | ")
    err = capsys.readouterr().err
    assert "\r" not in err
    assert err.splitlines() == ["turn 1 | validate | checks 4/5 | calls 2 (validate 1) | $0.0100 | ok",
                                "run 1 of 3 | turn 2 | done | checks 4/5 | calls 2 (validate 1) | $0.0200 | finished"]
    install(quiet=True)
    _progress(Progress(3, None, 2, 1, 4, 5, 0.02, "x"))
    assert capsys.readouterr().err == ""
    install(quiet=False)


def test_library_reports_meshing_and_unpacking(tmp_path):
    from ldraw_data.library import _extract_with_times
    from ldraw_data.mesh import load_meshes

    seen: list = []
    with reporting(lambda task, done, total: seen.append((task, done, total))):
        load_meshes(["3001.dat", "3003.dat", "3001.dat"])  # two distinct parts
    assert seen[0] == ("part meshes", 0, 2) and seen[-1] == ("part meshes", 2, 2)
    zpath = tmp_path / "x.zip"
    with zipfile.ZipFile(zpath, "w") as zf:
        for k in range(3):
            zf.writestr(f"ldraw/parts/p{k}.dat", "0 x\n")
    seen.clear()
    with reporting(lambda *a: seen.append(a)), zipfile.ZipFile(zpath) as zf:
        _extract_with_times(zf, tmp_path / "out")
    assert seen == [("unpacking the LDraw library (files)", 0, 3), ("unpacking the LDraw library (files)", 3, 3)]
    seen.clear()
    load_meshes(["3001.dat"])  # nobody listens outside the block
    assert seen == []


def test_one_time_cache_builds_report_a_task(tmp_path, monkeypatch):
    """The hose segment joints, read once into an empty cache folder, are reported as one task (a spinner
    on a terminal) that starts and ends; read back from the cache, nothing is reported (break-it s25 F9:
    a first validate on a fresh cache was silent for about 30 s)."""
    from ldraw_data.segments import segment_rows

    monkeypatch.setenv("BRICKWRIGHT_CACHE_DIR", str(tmp_path))
    segment_rows.cache_clear()
    seen: list = []
    try:
        with reporting(lambda *a: seen.append(a)):
            rows = segment_rows()
        assert rows  # the library's hoses have joints
        assert seen == [("reading hose segment joints (once)", 0, None), ("reading hose segment joints (once)", 1, 1)]
        seen.clear()
        segment_rows.cache_clear()
        with reporting(lambda *a: seen.append(a)):
            assert segment_rows().keys() == rows.keys()  # from the cache file just written
        assert seen == []
    finally:
        segment_rows.cache_clear()


def test_building_a_collision_shape_on_a_fresh_cache_is_reported(tmp_path, monkeypatch):
    """A part's collision shape made into an empty cache folder is reported as one task naming the part (a
    spinner on a terminal); read back from the file just written, nothing is reported (a first validate on a
    fresh cache was silent while the shapes were built: 17 s for the 220 distinct parts of 10227 B-wing)."""
    from ldraw_data import collision

    monkeypatch.setenv("BRICKWRIGHT_CACHE_DIR", str(tmp_path))
    key = ("3001.dat", None)
    collision._MEMO.pop(key, None)
    seen: list = []
    try:
        with reporting(lambda *a: seen.append(a)):
            shape = collision.collision_shape("3001")
        task = "building collision shapes (once per part): 3001.dat"
        assert seen == [(task, 0, None), (task, 1, 1)]
        assert len(list(tmp_path.glob("collision-*/*"))) == 1  # the shape's file
        seen.clear()
        collision._MEMO.pop(key, None)
        with reporting(lambda *a: seen.append(a)):
            again = collision.collision_shape("3001")
        assert seen == [] and np.array_equal(again.vertices, shape.vertices)
    finally:
        collision._MEMO.pop(key, None)


_BUILD_ONE_SHAPE = ("import sys; from brickwright.progress import install; install(quiet=sys.argv[1] == 'quiet'); "
                    "from ldraw_data.collision import collision_shape; collision_shape('3001')")


def test_collision_shape_progress_on_a_terminal_a_pipe_and_quiet(tmp_path):
    """What the command line draws (``brickwright.progress.install``, as validate installs it) while a shape is
    built into a fresh cache folder: the task on a terminal; nothing on a pipe or with ``--quiet``. (The
    command itself on a fresh cache also reads the LDCad table for a minute: too slow for the default run.)"""
    env = {**os.environ, "BRICKWRIGHT_CACHE_DIR": str(tmp_path / "a")}
    code, out = _run_on_pty(["env", f"BRICKWRIGHT_CACHE_DIR={tmp_path / 'a'}", sys.executable, "-c",
                             _BUILD_ONE_SHAPE, "loud"])
    assert code == 0 and b"building collision shapes (once per part): 3001.dat" in out
    r = subprocess.run([sys.executable, "-c", _BUILD_ONE_SHAPE, "loud"], cwd=REPO, capture_output=True, text=True,
                       timeout=300, env={**env, "BRICKWRIGHT_CACHE_DIR": str(tmp_path / "b")})
    assert r.returncode == 0 and r.stderr == ""
    code, out = _run_on_pty(["env", f"BRICKWRIGHT_CACHE_DIR={tmp_path / 'c'}", sys.executable, "-c",
                             _BUILD_ONE_SHAPE, "quiet"])
    assert code == 0 and b"building collision shapes" not in out
    assert all(len(list((tmp_path / d).glob("collision-*/*"))) == 1 for d in "abc")  # built each time
