"""The CLI on inputs a README-only tester built to break it (s24 break-it report): each test runs the real
CLI on real files and the real LDraw library."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from brickwright.cli import app

runner = CliRunner()

#: Two red/blue 2 x 4 bricks 10 LDU apart (a 3001 is 80 LDU wide: drawn through each other), and an MPD
#: block that replaces 3001's shape with one degenerate triangle (lines 1-3 models, the 0 FILE on line 4).
SHADOW = ("0 FILE main.ldr\n"
          "1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n"
          "1 1 10 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n"
          "0 FILE {name}\n"
          "0 Brick  2 x  4\n"
          "0 Name: {name}\n"
          "0 !LDRAW_ORG Unofficial_Part\n"
          "3 16 0 0 0 1 0 0 0 0 1\n")


@pytest.mark.parametrize("name", ["3001.dat", "3001.DAT"])
def test_an_mpd_block_named_like_a_library_part_is_not_valid(tmp_path, library, name):
    """Finding 1: the block would replace the catalog 3001; validate must not call the model VALID and must
    cite the 0 FILE line (line 4) and the library file it shadows, in text and JSON."""
    model = tmp_path / "shadow.mpd"
    model.write_text(SHADOW.format(name=name))
    r = runner.invoke(app, ["validate", str(model)])
    assert r.exit_code == 1, r.output
    assert "-> NOT VALID" in r.output
    assert f"SHADOWED LIBRARY FILE shadow.mpd:4: 0 FILE {name} redefines parts/3001.dat of the LDraw library" \
        in r.output
    r = runner.invoke(app, ["validate", str(model), "--json"])
    rec = json.loads(r.stdout)
    assert (rec["valid"], rec["exit_code"]) == (False, 1)
    assert rec["shadowed_files"] == [{"name": name, "file": "shadow.mpd", "line": 4,
                                      "library_file": "parts/3001.dat", "folder": "parts"}]


def test_an_mpd_block_named_like_a_primitive_is_not_valid_and_own_names_are_fine(tmp_path, library):
    """A block named stud.dat would replace the primitive inside every library part (LDraw spec: p/);
    a block with a name of its own (a sticker) is an ordinary embedded part and shadows nothing."""
    model = tmp_path / "prim.mpd"
    model.write_text(SHADOW.format(name="stud.dat").replace("3001.dat\n0 FILE", "3001.dat\n"
                                                            "1 4 0 -24 0 1 0 0 0 1 0 0 0 1 stud.dat\n0 FILE"))
    rep = json.loads(runner.invoke(app, ["validate", str(model), "--json"]).stdout)
    assert [(d["line"], d["library_file"]) for d in rep["shadowed_files"]] == [(5, "p/stud.dat")]
    own = tmp_path / "own.mpd"
    own.write_text("0 FILE main.ldr\n1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n"
                   "1 4 0 -24 0 1 0 0 0 1 0 0 0 1 my-sticker.dat\n"
                   "0 FILE my-sticker.dat\n0 Sticker\n3 16 0 0 0 1 0 0 0 0 1\n")
    rep = json.loads(runner.invoke(app, ["validate", str(own), "--json"]).stdout)
    assert rep["shadowed_files"] == [] and "SHADOWED" not in rep["text"]


@pytest.mark.slow
def test_no_official_model_embeds_a_block_named_like_a_library_file(library, official_dir):
    """The 257 embedded part blocks (stickers, bent hoses) of the official models all have names of their own,
    so the SHADOWED LIBRARY FILE rule changes no official model's verdict."""
    from bricklayer import read_ldraw
    from bricklayer.validate.findings import shadowed_library_files

    models = sorted(p for p in Path(official_dir).iterdir() if p.suffix.lower() in (".ldr", ".mpd"))
    assert len(models) >= 60
    embedded = 0
    for m in models:
        b = read_ldraw(m)
        embedded += len(b.embedded_files)
        assert shadowed_library_files(b) == [], m
    assert embedded > 200


TWO_BRICKS = "0 two bricks\n1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n1 1 0 -24 0 1 0 0 0 1 0 0 0 1 3001.dat\n"


@pytest.mark.parametrize("name", ["steps.mpd", "plan.json"])
@pytest.mark.parametrize("force", [False, True])
def test_instructions_never_replace_their_input(tmp_path, library, monkeypatch, name, force):
    """Finding 3: an input named like an instruction file, in the --out folder, is refused (exit 2) as render,
    export and parts refuse to write onto their input: with --force too, and not called earlier output."""
    model = tmp_path / name
    model.write_text(TWO_BRICKS)
    monkeypatch.chdir(tmp_path)
    r = runner.invoke(app, ["instructions", name, "--out", ".", "--no-images"] + (["--force"] if force else []))
    assert r.exit_code == 2, r.output
    assert f"{name} is the input model {name}; give another --out folder (--force never replaces the input)" \
        in r.output
    assert "already holds instructions" not in r.output
    assert model.read_text() == TWO_BRICKS
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]


DUP_PY = '''from bricklayer import *
def create_build():
    b = LegoBuild()
    b.add(Element("3001", Color.RED), (0, 0, 0))
    b.add(Element("3001", Color.RED), (0, 0, 0))
    b.add(Element("3001", Color.RED), (0, 0, 0), name="third")
    return b
'''


def test_duplicates_of_a_python_build_cite_the_first_part_by_its_citation(tmp_path, library):
    """Finding 4: the first of two parts at one pose is cited as LegoBuild.citation names it, never
    [None:None]: by the script line that placed it (line 4; the second on line 5; break-it s25 F12), and by
    its name when it has one (then with its line, 6, as a named part read from LDraw is)."""
    script = tmp_path / "dup2.py"
    script.write_text(DUP_PY)
    r = runner.invoke(app, ["validate", str(script), "--no-sandbox"])
    assert r.exit_code == 1, r.output
    lines = [ln for ln in r.output.splitlines() if ln.startswith("DUPLICATE")]
    assert lines == ["DUPLICATE dup2.py:5: 3001 (Brick 2 x 4, Color.RED) at grid (0, 0, 0) is placed again at the "
                     "same pose as [dup2.py:4]",
                     "DUPLICATE third: 3001 (Brick 2 x 4, Color.RED) at grid (0, 0, 0) [dup2.py:6] is placed again "
                     "at the same pose as [dup2.py:4]"]
    assert "None" not in r.output


@pytest.mark.parametrize("option", ["--color-map", "--part-map"])
def test_parts_with_a_map_that_is_not_utf8_is_one_line_exit_2(tmp_path, library, option):
    """Finding 6: a cp1252 map (0xE9, 'é', on line 3) gives one line naming the file, the line and what to do,
    exit 2, as --inventory does; never a traceback."""
    model = tmp_path / "m.ldr"
    model.write_text(TWO_BRICKS)
    good = tmp_path / "colours.csv"
    good.write_text("ldraw,bricklink\n4,5\n1,7\n")
    bad = tmp_path / "latin1.csv"
    bad.write_bytes(b"ldraw,bricklink\n4,5\n3001,caf\xe9\n")
    args = ["parts", str(model), "--format", "bricklink-xml"]
    args += ["--color-map", str(bad)] if option == "--color-map" else ["--color-map", str(good), "--part-map", str(bad)]
    r = runner.invoke(app, args)
    what = "colour" if option == "--color-map" else "part"
    assert r.exit_code == 2, r.output
    assert r.output.strip() == (f"error: {bad} line 3: the {what} table is not UTF-8 text (byte 0xE9 at offset 28); "
                                "save it as UTF-8 (CSV UTF-8 in a spreadsheet)")


def test_time_budget_leaves_no_temporary_folders(tmp_path, library):
    """Finding 9: a build.py that never returns, cut off by --time-budget, leaves none of its temporary
    folders (brickwright-validate-*, brickwright-worker-*) in TMPDIR; the other file keeps its verdict.
    The real CLI in its own process (the pool's processes get SIGTERM)."""
    import os
    import subprocess
    import sys

    forever = tmp_path / "forever.py"
    forever.write_text("from bricklayer import *\ndef create_build():\n    while True:\n        pass\n")
    model = tmp_path / "m.ldr"
    model.write_text(TWO_BRICKS)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    r = subprocess.run([sys.executable, "-m", "brickwright", "validate", str(forever), str(model), "--no-sandbox",
                        "--time-budget", "3"], capture_output=True, text=True, env={**os.environ, "TMPDIR": str(tmp)},
                       cwd=Path(__file__).resolve().parents[1], timeout=120)
    assert r.returncode == 1, r.stderr
    assert f"{forever}: timed out" in r.stdout and f"{model}: 2 parts" in r.stdout
    assert "Traceback" not in r.stderr
    assert sorted(p.name for p in tmp.iterdir()) == []
    # and no process is left running the endless build.py (a no-sandbox child once outlived its killed
    # pool process, orphaned, at full CPU): look for any process whose environment has this TMPDIR
    import time

    def left() -> list[int]:
        pids = []
        for d in Path("/proc").iterdir():
            if d.name.isdigit():
                try:
                    if f"TMPDIR={tmp}".encode() in (d / "environ").read_bytes().split(b"\0"):
                        pids.append(int(d.name))
                except OSError:
                    pass
        return pids

    deadline = time.monotonic() + 10
    while left() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert left() == []
