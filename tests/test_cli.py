"""The brickwright command line: real library, real models, clear one-line errors."""

import json
import subprocess
import sys
import zipfile

import pytest
from typer.testing import CliRunner

from brickwright.cli import app

runner = CliRunner()


def run(*args, env=None):
    return runner.invoke(app, list(args), env=env)


def test_search_ranks_3001_first():
    for q in ("brick 2 x 4", "2x4 brick"):
        r = run("search", q, "--limit", "3")
        assert r.exit_code == 0, r.output
        assert r.output.split()[0] == "3001"
    r = run("search", "plate 1 x 2", "--limit", "1")
    assert r.output.split()[0] == "3023"


def test_search_with_category_and_no_result():
    r = run("search", "slope 45 2 x 2", "--category", "Slope", "--limit", "5")
    assert r.exit_code == 0 and "3039" in r.output
    r = run("search", "zzqqxx nothing", "--limit", "3")
    assert r.exit_code == 1 and "no part matches" in r.output


def test_info_on_a_real_model(official_dir):
    r = run("info", str(official_dir / "1180_1_Space_Port_Moon_Buggy.mpd"))
    assert r.exit_code == 0, r.output
    assert "29 parts" in r.output and "1180 - Moon Buggy.ldr" in r.output
    assert "4 x 30028" in r.output  # four tyres in the bill of materials
    r = run("info", str(official_dir / "1788_Treasure_Chest.mpd"), "--json")
    data = json.loads(r.output)
    assert data["parts"] == 186 and data["unknown_parts"] == ["3334H.DAT", "6029B.DAT"]


def test_missing_file_is_one_clear_line(tmp_path):
    r = run("info", str(tmp_path / "nope.ldr"))
    assert r.exit_code == 2
    assert r.output.strip() == f"error: {tmp_path / 'nope.ldr'}: no such file"


def test_validate_exit_codes(tmp_path):
    good = tmp_path / "good.ldr"
    good.write_text("1 2 40 -8 40 1 0 0 0 1 0 0 0 1 3031.dat\n1 4 20 -32 20 1 0 0 0 1 0 0 0 1 3003.dat\n")
    r = run("validate", str(good))
    assert r.exit_code == 0, r.output
    assert "VALID" in r.output
    bad = tmp_path / "bad.ldr"  # the brick 2 plates above the plate's studs: floating
    bad.write_text("1 2 40 -8 40 1 0 0 0 1 0 0 0 1 3031.dat\n1 4 20 -48 20 1 0 0 0 1 0 0 0 1 3003.dat\n")
    r = run("validate", str(bad), "--json")
    assert r.exit_code == 1
    rep = json.loads(r.output)
    assert rep["valid"] is False and len(rep["floating"]) == 1
    assert rep["floating"][0]["part_id"] == "3003" and rep["floating"][0]["line"] == 2


def test_library_install_and_missing_library(tmp_path):
    env = {"BRICKWRIGHT_DATA_DIR": str(tmp_path / "data"), "LDRAWDIR": ""}
    r = run("library", "info", env=env)
    assert r.exit_code == 2
    assert "No LDraw parts library found" in r.output and "brickwright library install" in r.output
    assert "Traceback" not in r.output
    z = tmp_path / "mini.zip"
    with zipfile.ZipFile(z, "w") as zf:
        zf.writestr("ldraw/LDConfig.ldr", "0 !COLOUR Black CODE 0 VALUE #1B2A34 EDGE #808080\n")
        zf.writestr("ldraw/parts/9999.dat", "0 Brick Test\n0 Name: 9999.dat\n3 16 0 0 0 1 0 0 0 0 1\n")
        zf.writestr("ldraw/p/stud.dat", "0 Stud\n")
    r = run("library", "install", str(z), env=env)
    assert r.exit_code == 0, r.output
    assert (tmp_path / "data" / "ldraw" / "parts" / "9999.dat").exists()
    r = run("library", "install", str(tmp_path / "missing.zip"), env=env)
    assert r.exit_code == 2 and "no such file" in r.output
    assert (tmp_path / "data" / "ldraw" / "parts" / "9999.dat").exists()  # previous install kept


def test_console_script_entry_point():
    r = subprocess.run([sys.executable, "-m", "brickwright", "--help"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "search" in r.stdout and "validate" in r.stdout


def test_build_script_errors_are_reported_not_raised(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("from bricklayer import *\ndef create_build():\n    b = LegoBuild()\n    x = undefined_name\n    return b\n")
    r = run("validate", str(bad))
    assert r.exit_code == 1
    assert f"error: {bad}:4: NameError in create_build(): name 'undefined_name' is not defined" in r.output
    assert "Traceback (most recent call last)" not in r.output
    loop = tmp_path / "loop.py"
    loop.write_text("def create_build():\n    while True:\n        pass\n")
    from brickwright.inspect_model import BuildScriptError, run_build_script

    with pytest.raises(BuildScriptError) as got:
        run_build_script(loop, time_limit=2)
    assert str(got.value).startswith(f"{loop}: Time limit: the code ran longer than 2 s")  # names the file (s26 F10)


def test_render_never_replaces_files_silently(tmp_path, official_dir):
    model = official_dir / "6907_Sonic_Stinger.mpd"
    other = tmp_path / "notes.txt"
    other.write_text("keep me")
    r = run("render", str(model), "--out", str(other))
    assert r.exit_code == 2 and "ending in .png" in r.output
    png = tmp_path / "x.png"
    png.write_bytes(b"old")
    r = run("render", str(model), "--out", str(png))
    assert r.exit_code == 2 and "--force" in r.output and png.read_bytes() == b"old"


def test_empty_model_is_an_error(tmp_path):
    empty = tmp_path / "empty.ldr"
    empty.write_text("0 nothing here\n")
    r = run("validate", str(empty))
    assert r.exit_code == 2 and "no parts found" in r.output


def test_instructions_refuse_to_overwrite_and_fail_on_unplaced_parts(tmp_path):
    # a brick on the ground and one hanging 500 LDU up and away: the second cannot be placed
    model = tmp_path / "float.ldr"
    model.write_text("1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n1 4 300 -502 -300 1 0 0 0 1 0 0 0 1 3001.dat\n")
    out = tmp_path / "steps"
    r = runner.invoke(app, ["instructions", str(model), "--out", str(out), "--no-images"])
    assert r.exit_code == 1 and "1 of 2 parts placed" in r.output and "NOT PLACED" in r.output
    before = (out / "steps.mpd").read_text()
    r = runner.invoke(app, ["instructions", str(model), "--out", str(out), "--no-images"])
    assert r.exit_code == 2 and "--force" in r.output
    assert (out / "steps.mpd").read_text() == before
    # drawn apart on purpose (as official files draw stands): both placed
    r = runner.invoke(app, ["instructions", str(model), "--out", str(out), "--no-images", "--force",
                            "--separate-objects"])
    assert r.exit_code == 0 and "2 of 2 parts placed" in r.output


def test_instructions_give_the_verdict_validate_gives(tmp_path):
    """``instructions`` says VALID / NOT VALID from the one ValidationReport: the line ``validate`` prints."""
    # a red 2x4 brick and a blue one drawn 10 LDU (half a stud) along x from it: one colliding pair, so not
    # valid; both still get their steps
    twice = tmp_path / "twice.ldr"
    twice.write_text("1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n1 1 10 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n")
    # a 2x4 brick on another, seated 24 LDU (one brick height) up: valid
    stack = tmp_path / "stack.ldr"
    stack.write_text("1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n1 1 0 -24 0 1 0 0 0 1 0 0 0 1 3001.dat\n")
    for model, verdict in ((twice, "NOT VALID"), (stack, "VALID")):
        v = runner.invoke(app, ["validate", str(model)])
        head = v.output.splitlines()[0]
        assert head.endswith(f"-> {verdict}") and head.startswith(f"{model}: 2 parts, "), v.output
        out = tmp_path / f"steps-{model.stem}"
        r = runner.invoke(app, ["instructions", str(model), "--out", str(out), "--no-images"])
        assert r.exit_code == 0, r.output  # both parts are placed: the verdict does not fail the order
        assert head in r.output.splitlines()
        plan = json.loads((out / "plan.json").read_text())
        assert plan["validation"] == head and plan["valid"] is (verdict == "VALID")
        assert ("1 colliding pair," in head) is (model is twice) and plan["colliding_pairs"] == (model is twice)
        # the SDK says the same (LegoBuild.is_valid is the report's verdict)
        from bricklayer import read_ldraw

        assert read_ldraw(model).is_valid() is (verdict == "VALID")


def test_unknown_colour_code_names_file_and_line(tmp_path):
    model = tmp_path / "c.ldr"
    model.write_text("1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n1 999 0 -24 0 1 0 0 0 1 0 0 0 1 3001.dat\n")
    r = runner.invoke(app, ["validate", str(model)])
    assert r.exit_code == 2 and "c.ldr:2: colour code 999" in r.output and "Traceback" not in r.output


def test_version_help_and_json_everywhere(tmp_path):
    """Exit codes 0/1/2 as `brickwright --help` documents them; --version, -h; --json on search."""
    from importlib.metadata import version

    r = runner.invoke(app, ["--version"])
    assert r.exit_code == 0 and r.output.strip() == f"brickwright {version('brickwright-toolkit')}"
    r = runner.invoke(app, ["-h"])
    assert r.exit_code == 0 and "Exit codes: 0 success; 1" in r.output and "2 usage error" in r.output
    r = runner.invoke(app, ["validate", "-h"])
    assert r.exit_code == 0 and "--json" in r.output
    r = runner.invoke(app, ["search", "brick 2 x 4", "--json", "--limit", "3"])
    rows = json.loads(r.output)
    assert r.exit_code == 0 and rows[0]["part_id"] == "3001" and len(rows) == 3
    r = runner.invoke(app, ["search", "zzqqxx nothing", "--json"])
    assert r.exit_code == 1  # a search that finds nothing ran fine but found nothing
    r = runner.invoke(app, ["validate", "--no-such-option", "x.ldr"])
    assert r.exit_code == 2


def test_search_json_gives_the_sticker_size_and_long_names_keep_their_column(library):
    # 191485q "Sticker 1.9 x 1.1 Black": 1.9 x 1.1 studs of 20 LDU = 38 x 22 LDU, as the text output says
    r = runner.invoke(app, ["search", "sticker 1.9 x 1.1 black", "--json", "--limit", "1"])
    row = json.loads(r.output)[0]
    assert r.exit_code == 0 and row["part_id"] == "191485q" and row["sticker_size_ldu"] == [38.0, 22.0]
    r = runner.invoke(app, ["search", "brick 2 x 4", "--json", "--limit", "1"])
    assert json.loads(r.output)[0]["sticker_size_ldu"] is None
    # 6155286d's name is 89 characters: every row's category starts in the same column, after a space
    r = runner.invoke(app, ["search", "sticker signs left", "--limit", "4"])
    lines = r.output.splitlines()
    cols = {ln.index(" Sticker ") for ln in lines}
    assert r.exit_code == 0 and len(lines) == 4 and len(cols) == 1
