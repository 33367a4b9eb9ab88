"""The ``brickwright`` command line: exit codes and messages a user acts on (real library, real parts)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from brickwright import generate
from brickwright.cli import app

from scripted_chat import tool_turn

runner = CliRunner()

BRICK = "1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n"  # a red 2x4 brick on the ground


def run(*args: str, env: dict | None = None):
    return runner.invoke(app, list(args), env=env)


def _stderr(r) -> str:
    try:
        return r.stderr
    except (ValueError, AttributeError):  # stderr mixed into output
        return r.output


# -- validate: unreadable part lines ----------------------------------------------------------


def test_validate_reports_unreadable_part_lines(tmp_path):
    # LDraw spec, line type 1: 15 fields (type, colour, x y z, a..i, file), numbers finite
    cases = {
        "shortline.ldr": ("1 4 0 -24 0 1 0 0 0 1 0 0 0\n", "type-1 line has 13 fields, needs 15; line skipped"),
        "word.ldr": ("1 4 0 -24 zero 1 0 0 0 1 0 0 0 1 3001.dat\n", "type-1 line has a non-numeric field; line skipped"),
        "nan.ldr": ("1 4 0 nan 0 1 0 0 0 1 0 0 0 1 3001.dat\n", "type-1 line has a non-finite number (nan); line skipped"),
    }
    for name, (bad, message) in cases.items():
        model = tmp_path / name
        model.write_text(BRICK + bad)
        r = run("validate", str(model))
        assert r.exit_code == 1, r.output
        assert f"UNREADABLE PART LINE {name}:2: {message}" in r.output
        assert "NOT VALID" in r.output and "or delete the line" in r.output
        r = run("validate", str(model), "--json")
        assert r.exit_code == 1
        rep = json.loads(r.stdout)
        assert not rep["valid"] and rep["parts"] == 1
        assert rep["unreadable_lines"] == [{"file": name, "line": 2, "message": message}]
    # the good line alone is valid
    good = tmp_path / "good.ldr"
    good.write_text(BRICK)
    assert run("validate", str(good)).exit_code == 0


# -- instructions: unknown parts are not placed -------------------------------------------------


def test_instructions_count_unknown_parts_as_not_placed(tmp_path):
    only = tmp_path / "unknown.ldr"
    only.write_text("1 4 0 0 0 1 0 0 0 1 0 0 0 1 nosuchpart.dat\n")
    r = run("instructions", str(only), "--out", str(tmp_path / "ins"), "--no-images")
    assert r.exit_code == 1, r.output
    assert "0 of 1 parts placed (0.0%)" in r.output and "1 could not be placed" in r.output
    assert "NOT PLACED" in r.output and "unknown part 'nosuchpart'" in r.output and "NOT PLACED unknown.ldr:1: nosuchpart" in r.output
    # a real brick on the ground and the unknown part on it: the brick is placed, the unknown part is not
    mixed = tmp_path / "mixed.ldr"
    mixed.write_text(BRICK + "1 4 0 -24 0 1 0 0 0 1 0 0 0 1 nosuchpart.dat\n")
    r = run("instructions", str(mixed), "--out", str(tmp_path / "ins2"), "--no-images")
    assert r.exit_code == 1, r.output
    assert "1 of 2 parts placed (50.0%), 0 added in a last step, 1 could not be placed" in r.output
    assert "NOT PLACED mixed.ldr:2: nosuchpart" in r.output
    # plan.json has the same counts and lists the unknown part among the failures
    plan = json.loads((tmp_path / "ins2" / "plan.json").read_text())
    assert (plan["parts"], plan["placed"], plan["skipped"], plan["failed"], plan["placed_share"]) == (2, 1, 0, 1, 0.5)
    assert plan["failure_causes"] == {"unknown part": 1}
    assert "unknown part 'nosuchpart'" in plan["failures"][0]["reason"] and plan["failures"][0]["part"].startswith("mixed.ldr:2: ")
    # a model of known parts only still exits 0
    good = tmp_path / "good.ldr"
    good.write_text(BRICK)
    r = run("instructions", str(good), "--out", str(tmp_path / "ins3"), "--no-images")
    assert r.exit_code == 0 and "1 of 1 parts placed (100.0%)" in r.output


def test_instructions_count_unreadable_part_lines_as_not_placed(tmp_path):
    # a brick, then two part lines the reader skips (a nan, a non-number): their parts are in no step
    bad = tmp_path / "garbage.ldr"
    bad.write_text(BRICK + "1 4 0 -24 0 1 0 0 0 1 0 0 nan 1 3001.dat\n1 4 0 x 0 1 0 0 0 1 0 0 0 1 3001.dat\n")
    r = run("instructions", str(bad), "--out", str(tmp_path / "ins"), "--no-images")
    assert r.exit_code == 1, r.output
    assert "1 of 3 parts placed (33.3%), 0 added in a last step, 2 could not be placed" in r.output
    assert "NOT PLACED garbage.ldr:2: unreadable part line" in r.output and "garbage.ldr:3" in r.output
    plan = json.loads((tmp_path / "ins" / "plan.json").read_text())
    assert [u["line"] for u in plan["unreadable_lines"]] == [2, 3]
    assert (plan["parts"], plan["placed"], plan["failed"], plan["placed_share"]) == (3, 1, 2, 0.3333)
    assert [f["part"] for f in plan["failures"]] == ["garbage.ldr:2", "garbage.ldr:3"]


def test_instructions_plan_json_lists_every_failure(tmp_path, official_dir):
    # no time at all: none of the Moon Buggy's 29 parts is placed; the terminal lists a few, plan.json all
    r = run("instructions", str(official_dir / "1180_1_Space_Port_Moon_Buggy.mpd"), "--out", str(tmp_path / "b"),
            "--no-images", "--budget", "0")
    assert r.exit_code == 1
    plan = json.loads((tmp_path / "b" / "plan.json").read_text())
    assert plan["failed"] == 29 and len(plan["failures"]) == 29
    assert "more (plan.json)" in r.output
    assert plan["options"] == {"max_parts_per_step": 6, "time_budget": 0.0, "separate_objects": False}
    # --force replaces the instructions, not a user's file that merely starts with "step-"
    (tmp_path / "b" / "step-9.png").write_bytes(b"mine")
    r = run("instructions", str(official_dir / "1180_1_Space_Port_Moon_Buggy.mpd"), "--out", str(tmp_path / "b"),
            "--no-images", "--budget", "0", "--force")
    assert (tmp_path / "b" / "step-9.png").read_bytes() == b"mine"


# -- library: a bad LDRAWDIR is said without -v --------------------------------------------------


def test_bad_ldrawdir_warns_on_stderr(tmp_path, library):
    missing = tmp_path / "nothere"
    r = run("library", "info", env={"LDRAWDIR": str(missing)})
    assert r.exit_code == 0, r.output
    err = _stderr(r)
    assert f"warning: LDRAWDIR={missing} holds no LDraw library" in err and "unset it" in err
    assert f"library:     {library.root}" in r.output  # the installed copy is used
    # a good LDRAWDIR: no warning
    r = run("library", "info", env={"LDRAWDIR": str(library.root)})
    assert r.exit_code == 0 and "warning" not in _stderr(r)


# -- render: options are checked before the output file ------------------------------------------


def test_render_checks_options_before_the_output_file(tmp_path):
    model = tmp_path / "m.ldr"
    model.write_text(BRICK)
    png = tmp_path / "m.png"
    png.write_bytes(b"old")
    r = run("render", str(model), "--out", str(png), "--view", "foo")
    assert r.exit_code == 2 and "unknown view 'foo'" in r.output and "iso_back or sheet" in r.output
    assert "exists" not in r.output
    r = run("render", str(model), "--out", str(png), "--size", "10x")
    assert r.exit_code == 2 and "size must look like '800x600', got '10x'" in r.output
    r = run("render", str(model), "--out", str(png), "--size", "4x4")
    assert r.exit_code == 2 and "between 8x8 and 8192x8192" in r.output
    # good options: now the existing file is the problem
    r = run("render", str(model), "--out", str(png), "--view", "sheet", "--size", "800x600")
    assert r.exit_code == 2 and "--force" in r.output and png.read_bytes() == b"old"


# -- replay: a replayed build that does not pass exits 1 ----------------------------------------

FLOATING = '''from bricklayer import *


def create_build():
    build = LegoBuild()
    build.add(Element("3001", Color.RED), (0, 0, 0), name="base")
    build.add(Element("3001", Color.BLUE), (0, 0, 6), name="top")
    return build
'''


def test_replay_exits_1_when_the_build_does_not_pass(chat_server, tmp_path, worker, needs_validator):
    # the top brick 6 plates up leaves a one-brick gap: it floats, so the run never passes
    server = chat_server([tool_turn(("write_build", {"content": FLOATING})), tool_turn(("validate", {}))])
    res = generate("two bricks", model="gpt-4o", base_url=server.base_url, api_key="test-key",
                   out_dir=tmp_path / "run", max_calls=2, worker=worker)
    assert not res.passed
    r = run("replay", str(res.transcript_path), str(tmp_path / "replayed"))
    assert "same final build: True; passed: False" in r.output
    assert r.exit_code == 1


def test_help_names_every_option_whole_at_80_columns():
    # the rich help panels cut long option names to "--max-parts-per-…" in an 80-column terminal
    r = runner.invoke(app, ["instructions", "--help"], env={"COLUMNS": "80"})
    assert r.exit_code == 0
    for name in ("--max-parts-per-step", "--separate-objects", "--max-images", "--budget", "--force"):
        assert name in r.output, name
    assert "…" not in r.output
    assert max(len(line) for line in r.output.splitlines()) <= 80


def test_a_binary_file_is_one_clear_error(tmp_path):
    path = tmp_path / "photo.mpd"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4)
    r = run("validate", str(path))
    assert r.exit_code == 2
    err = _stderr(r)
    assert "photo.mpd:3: binary data (a NUL byte at offset 8)" in err
    assert "unknown line type" not in err and len(err.splitlines()) == 1


def test_errors_in_a_build_script_name_that_script(tmp_path):
    # a build script need not be called build.py: the error, its code line and its trace name the file given
    path = tmp_path / "tower.py"
    path.write_text("def create_build():\n    return 1 / 0\n")
    r = run("validate", str(path))
    assert r.exit_code == 1
    err = _stderr(r)
    # the README's `error: FILE[:LINE]: ...` form (break-it s26 F10), the details on the lines after
    assert err.startswith(f"error: {path}:2: ZeroDivisionError in create_build(): division by zero\n")
    assert "     2 | return 1 / 0" in err
    assert "Trace: tower.py:2 in create_build" in err and "build.py" not in err
    path.write_text("x = 1\n")
    r = run("validate", str(path))
    assert r.exit_code == 1 and "tower.py defines no create_build()" in _stderr(r)


def test_instructions_warn_of_drawn_collisions_and_check_out_first(tmp_path):
    # two 2x4 bricks drawn at the same place: the order places both, but the model cannot be built
    twice = tmp_path / "twice.ldr"
    twice.write_text(BRICK + BRICK.replace("1 4 ", "1 1 "))
    r = run("instructions", str(twice), "--out", str(tmp_path / "ins"), "--no-images")
    assert "warning: 1 pair of parts collides in the model as drawn" in _stderr(r)
    plan = json.loads((tmp_path / "ins" / "plan.json").read_text())
    assert plan["colliding_pairs"] == 1
    # steps: what a viewer pages through in steps.mpd; both bricks go straight down in one step
    text = (tmp_path / "ins" / "steps.mpd").read_text()
    assert plan["ldraw_steps"] == max(1, sum(ln.startswith("0 STEP") for ln in text.splitlines())) == 1
    assert f"{plan['ldraw_steps']} step(s) in steps.mpd" in r.output
    # an --out under a file fails before any planning, with a one-line error
    (tmp_path / "notes.txt").write_text("mine")
    r = run("instructions", str(twice), "--out", str(tmp_path / "notes.txt" / "x"), "--no-images")
    assert r.exit_code == 2 and "cannot create the folder" in _stderr(r) and "Traceback" not in r.output
    assert (tmp_path / "notes.txt").read_text() == "mine"
    r = run("instructions", str(twice), "--out", str(tmp_path / "n"), "--budget", "nan")
    assert r.exit_code == 2 and "--budget nan: give a finite number" in _stderr(r)
    r = run("instructions", str(twice), "--out", str(tmp_path / "n"), "--budget", "-1")
    assert r.exit_code == 2 and ">= 0" in _stderr(r)


def test_popularity_rebuild_never_writes_the_shipped_table(tmp_path):
    from ldraw_data import catalog

    shipped = Path(catalog.__file__).parent / "data" / "popularity.csv"
    before = shipped.read_bytes()
    models = tmp_path / "models"
    models.mkdir()
    (models / "a.ldr").write_text(BRICK + BRICK.replace(" 0 0 0 1", " 0 -24 0 1", 1))
    from ldraw_data.library import get_library

    # a data folder of its own (where the user's table goes); the installed library found through LDRAWDIR
    env = {"BRICKWRIGHT_DATA_DIR": str(tmp_path / "data"), "LDRAWDIR": str(get_library().root)}
    try:
        r = run("popularity", "rebuild", str(models), env=env)
        assert r.exit_code == 0, r.output
        assert "1 parts, 2 uses" in r.output
        user = tmp_path / "data" / "popularity.csv"
        assert user.read_text() == "part_id,count\n3001,2\n"
        assert shipped.read_bytes() == before
        # a second run does not replace the user's table without --force
        r = run("popularity", "rebuild", str(models), env=env)
        assert r.exit_code == 2 and "--force" in _stderr(r)
        assert run("popularity", "rebuild", str(models), "--force", env=env).exit_code == 0
        # nor the shipped table named as --out, even with --force
        r = run("popularity", "rebuild", str(models), "--out", str(shipped), "--force", env=env)
        assert r.exit_code == 2 and "shipped with the package" in _stderr(r)
        assert shipped.read_bytes() == before
    finally:
        catalog._POPULARITY = None  # the next reader loads the shipped table again


def test_replay_never_writes_outside_its_folder(tmp_path):
    # a transcript's run_start names the files of its run folder; a path out of it is refused, nothing written
    t = tmp_path / "t.jsonl"
    t.write_text(json.dumps({"type": "run_start", "files": {"../escape.txt": "x"}, "settings": {}}) + "\n")
    r = run("replay", str(t), str(tmp_path / "out"))
    assert r.exit_code == 2 and "refusing to write outside" in _stderr(r)
    assert not (tmp_path / "escape.txt").exists()
