"""What scripts rely on in the command line (issue 18): one JSON layout for `validate`, a time budget, the exit
codes of `info`, long part ids cut in messages, one citation per part. The real CLI on real LDraw files."""

import json
import os
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from brickwright.cli import app

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[1]

# A 4x4 plate (3031) on the ground and a 2x2 brick (3003) seated on it (brick bottom at the plate top, -8 LDU).
GOOD = "1 2 40 -8 40 1 0 0 0 1 0 0 0 1 3031.dat\n1 4 20 -32 20 1 0 0 0 1 0 0 0 1 3003.dat\n"
# The same brick 16 LDU (2 plates) higher: it floats; file line 2.
FLOATING = "1 2 40 -8 40 1 0 0 0 1 0 0 0 1 3031.dat\n1 4 20 -48 20 1 0 0 0 1 0 0 0 1 3003.dat\n"


def _cli(*args, cwd):
    """The real command in its own process, this checkout's packages first on the path."""
    return subprocess.run([sys.executable, "-m", "brickwright", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=600, env=dict(os.environ, PYTHONPATH=str(ROOT)))


def test_validate_json_is_one_object_per_file_the_same_for_one_file_or_many(tmp_path):
    good, bad = tmp_path / "good.ldr", tmp_path / "bad.ldr"
    good.write_text(GOOD)
    bad.write_text(FLOATING)
    one = _cli("validate", "--json", str(bad), cwd=tmp_path)
    assert one.returncode == 1 and len(one.stdout.splitlines()) == 1  # JSON Lines: one line per file
    alone = json.loads(one.stdout)
    many = _cli("validate", "--json", str(good), str(bad), str(tmp_path / "missing.ldr"), cwd=tmp_path)
    rows = [json.loads(line) for line in many.stdout.splitlines()]
    assert many.returncode == 2  # a file cannot be read: 2 before 1
    assert [r["file"] for r in rows] == [str(good), str(bad), str(tmp_path / "missing.ldr")]
    assert rows[1] == alone  # the same object, alone or among others
    assert [(r["status"], r["exit_code"], r["valid"]) for r in rows] == [
        ("valid", 0, True), ("not valid", 1, False), ("unreadable", 2, False)]
    assert alone["parts"] == 2 and [(f["part_id"], f["line"]) for f in alone["floating"]] == [("3003", 2)]
    assert rows[0]["floating"] == [] and rows[0]["components"] == 1
    assert rows[2]["error"] == f"{tmp_path / 'missing.ldr'}: no such file" and "parts" not in rows[2]
    # a single unreadable file prints its object too, and exits 2
    r = runner.invoke(app, ["validate", "--json", str(tmp_path / "missing.ldr")])
    assert r.exit_code == 2 and json.loads(r.stdout) == rows[2]


def test_validate_time_budget(tmp_path, official_dir):
    good = tmp_path / "good.ldr"
    good.write_text(GOOD)
    buggy = official_dir / "1180_1_Space_Port_Moon_Buggy.mpd"
    # reading the library and the 29-part model takes far more than a millisecond: no verdict for either
    r = runner.invoke(app, ["validate", "--json", "--time-budget", "0.001", str(good), str(buggy)])
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    assert r.exit_code == 1
    assert [(x["status"], x["exit_code"], x["valid"]) for x in rows] == [("timed out", 1, False)] * 2
    assert "--time-budget 0.001 s ran out" in rows[0]["error"]
    r = runner.invoke(app, ["validate", "--time-budget", "0.001", str(good)])
    assert r.exit_code == 1 and "--time-budget 0.001 s ran out before it was judged" in r.output
    # a build.py that never returns (its own limit is 30 s): no verdict when the budget runs out; the file
    # given with it keeps its verdict
    loop = tmp_path / "loop.py"
    loop.write_text("def create_build():\n    while True:\n        pass\n")
    r = runner.invoke(app, ["validate", "--json", "--time-budget", "10", str(loop), str(good)])
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    assert r.exit_code == 1 and [x["status"] for x in rows] == ["timed out", "valid"]
    # enough time: the verdict, as without a budget
    r = runner.invoke(app, ["validate", "--json", "--time-budget", "600", str(good)])
    assert r.exit_code == 0 and json.loads(r.stdout)["status"] == "valid"
    for bad in ("0", "-1", "inf", "nan"):
        r = runner.invoke(app, ["validate", "--time-budget", bad, str(good)])
        assert r.exit_code == 2 and "--time-budget" in r.output


def test_info_of_a_file_without_parts_is_unreadable_input(tmp_path):
    empty = tmp_path / "empty.ldr"
    empty.write_text("0 nothing here\n0 STEP\n")
    for extra in ([], ["--json"]):
        r = runner.invoke(app, ["info", str(empty), *extra])
        assert r.exit_code == 2 and r.stdout == ""
        assert f"error: {empty}: no parts found" in r.output
    broken = tmp_path / "broken.ldr"
    broken.write_text("1 4 0 0 0 1 0 0 0 1 0 0 0 3001.dat\n")  # 13 fields: the matrix is one number short
    r = runner.invoke(app, ["info", str(broken)])
    assert r.exit_code == 2 and "1 part line could not be read (first: broken.ldr:1" in r.output


def test_a_5000_character_part_id_is_cut_in_messages_and_its_line_cited(tmp_path):
    pid = "x" * 5000
    model = tmp_path / "long.ldr"
    model.write_text(f"1 2 40 -8 40 1 0 0 0 1 0 0 0 1 3031.dat\n1 4 20 -32 20 1 0 0 0 1 0 0 0 1 {pid}.dat\n")
    for cmd in (["validate"], ["info"], ["parts"]):
        r = runner.invoke(app, [*cmd, str(model)])
        assert pid not in r.output, cmd
        assert max(len(line) for line in r.output.splitlines()) < 400, cmd
    r = runner.invoke(app, ["validate", str(model)])
    assert r.exit_code == 1
    unknown = next(line for line in r.output.splitlines() if line.startswith("UNKNOWN PART"))
    assert unknown.startswith(f"UNKNOWN PART long.ldr:2: {'x' * 60}...(5000 characters) ")
    assert "unknown part '" + "x" * 60 + "...(5004 characters)'" in r.output  # the import warning, long.ldr:2
    assert "long.ldr:2: unknown part" in r.output
    rep = json.loads(runner.invoke(app, ["validate", "--json", str(model)]).stdout)
    assert rep["unknown_parts"][0]["part_id"] == pid  # the data keeps the id whole


def test_real_part_names_are_never_cut():
    from bricklayer import Element, LegoBuild
    from ldraw_data.catalog import get_catalog

    longest = max(get_catalog(), key=lambda p: len(p.name))  # 159 characters in the installed library
    b = LegoBuild()
    pl = b.add(Element(longest.part_id, 4), (0, 0, 0))
    assert b.describe(pl) == f"#0: {longest.part_id} ({longest.name}, Color.RED)"


def test_a_part_has_one_citation_in_text_and_json(tmp_path, official_dir):
    model = tmp_path / "m.ldr"
    model.write_text(FLOATING)
    r = runner.invoke(app, ["validate", str(model)])
    text = r.stdout
    # the floating brick is cited by its line, never by a placement index besides it
    assert "FLOATING m.ldr:2: 3003 (Brick 2 x 2, Color.RED) at grid (0, 0, 3): it hangs 16 LDU" in text
    assert "#0" not in text and "#1" not in text and "[m.ldr:2]" not in text
    assert "above m.ldr:1: 3031 (Plate 4 x 4)" in text  # the part below, by the same scheme
    rep = json.loads(runner.invoke(app, ["validate", "--json", str(model)]).stdout)
    assert rep["floating"][0]["label"] == "m.ldr:2: 3003 (Brick 2 x 2, Color.RED)"
    assert (rep["floating"][0]["file"], rep["floating"][0]["line"]) == ("m.ldr", 2)
    # a part in a submodel: the reference's line, then the part's line in the submodel
    from bricklayer import read_ldraw

    b = read_ldraw(official_dir / "1180_1_Space_Port_Moon_Buggy.mpd")
    cap = next(fp for fp in b.flattened_placements if fp.content.ldraw_id == "4485")
    ref, part = (p.origin for p in cap.path)
    assert b.citation(cap) == f"{ref[0]}:{ref[1]}/:{part[1]}"
    assert b.describe(cap).startswith(b.citation(cap) + ": 4485 (Minifig Cap with Long Flat Peak")
