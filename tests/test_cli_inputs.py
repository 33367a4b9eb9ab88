"""Hostile and broken inputs through the command line: one clear error and a non-zero exit, never a traceback.

Expected values worked out by hand from the generated files (see ``tests/ldraw_data/test_limits.py``):
a chain of n submodels places n + 1 bricks; a fan of n levels places 2**n.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from brickwright.cli import app
from ldraw_data import MAX_SUBMODEL_DEPTH

REPO = Path(__file__).resolve().parents[1]
runner = CliRunner()
BRICK = "1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat"


def chain(n: int) -> str:
    lines = []
    for i in range(n):
        lines += [f"0 FILE s{i}.ldr", f"1 16 0 -24 0 1 0 0 0 1 0 0 0 1 s{i + 1}.ldr", BRICK]
    lines += [f"0 FILE s{n}.ldr", BRICK]
    return "\n".join(lines) + "\n"


def fan(n: int) -> str:
    lines = []
    for i in range(n):
        lines += [f"0 FILE f{i}.ldr", f"1 16 0 0 0 1 0 0 0 1 0 0 0 1 f{i + 1}.ldr",
                  f"1 16 0 -24 0 1 0 0 0 1 0 0 0 1 f{i + 1}.ldr"]
    lines += [f"0 FILE f{n}.ldr", BRICK]
    return "\n".join(lines) + "\n"


def commands(model: Path, tmp_path: Path) -> dict[str, list[str]]:
    return {
        "info": ["info", str(model)],
        "validate": ["validate", str(model)],
        "render": ["render", str(model), "--out", str(tmp_path / "x.png"), "--size", "64x48"],
        "instructions": ["instructions", str(model), "--out", str(tmp_path / "steps"), "--no-images"],
    }


def has_gl() -> bool:
    import bricklayer.render as r

    try:
        r.backend_info()
    except r.RenderBackendError:
        return False
    return True


@pytest.mark.parametrize("cmd", ["info", "validate", "render", "instructions"])
@pytest.mark.parametrize("depth", [1_000, 10_000])
def test_deep_nesting_is_one_clear_error(tmp_path, cmd, depth):
    model = tmp_path / "deep.mpd"
    model.write_text(chain(depth))
    r = runner.invoke(app, commands(model, tmp_path)[cmd])
    assert r.exit_code == 2, r.output
    assert r.exception is None or isinstance(r.exception, SystemExit)
    assert "error: deep.mpd:302: submodels are nested more than 100 levels deep" in r.output
    assert "MAX_SUBMODEL_DEPTH = 100" in r.output and "Traceback" not in r.output
    assert not (tmp_path / "x.png").exists() and not (tmp_path / "steps").exists()


@pytest.mark.parametrize("cmd", ["info", "validate", "render", "instructions"])
def test_exponential_fan_out_is_one_clear_error(tmp_path, cmd):
    model = tmp_path / "fan.mpd"
    model.write_text(fan(40))  # 2**40 parts in < 4 KB
    r = runner.invoke(app, commands(model, tmp_path)[cmd])
    assert r.exit_code == 2, r.output
    assert r.exception is None or isinstance(r.exception, SystemExit)
    assert "error: fan.mpd:63: the model places more than 1,000,000 parts" in r.output
    assert "MAX_FLAT_PARTS = 1,000,000" in r.output and "Traceback" not in r.output


@pytest.mark.parametrize("cmd", ["info", "validate", "render", "instructions"])
def test_nesting_at_the_limit_works_everywhere(tmp_path, cmd):
    """100 nested submodels, a brick each plus one: 101 bricks stacked 24 LDU apart, one connected build."""
    if cmd == "render" and not has_gl():
        pytest.skip("no offscreen OpenGL backend (EGL or OSMesa)")
    model = tmp_path / "deep.mpd"
    model.write_text(chain(MAX_SUBMODEL_DEPTH))
    r = runner.invoke(app, commands(model, tmp_path)[cmd])
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
    assert r.exit_code == 0, r.output
    expected = {
        "info": "deep.mpd: 101 parts, 1 distinct part/colour pair, 100 submodels",
        "validate": "101 parts, 0 colliding pairs, 0 floating, 1 connected component(s) -> VALID",
        "render": str(tmp_path / "x.png"),
        "instructions": "deep.mpd: 101 of 101 parts placed (100.0%)",
    }[cmd]
    assert expected in r.output


def write_external_model(folder: Path) -> Path:
    """main.ldr places a brick, ``Other.MPD`` (an MPD beside it whose first block places a submodel of its own and
    the file ``third.ldr``), ``sub\\deep.ldr`` (in a subfolder) and ``plain.dat`` (a part file beside it):
    1 + (1 + 1) + 1 + 1 = 5 parts."""
    (folder / "sub").mkdir()
    main = folder / "main.ldr"
    main.write_text("0 Main\n" + BRICK + "\n"
                    "1 16 0 -24 0 1 0 0 0 1 0 0 0 1 Other.MPD\n"
                    "1 16 0 -72 0 1 0 0 0 1 0 0 0 1 sub\\deep.ldr\n"
                    "1 16 0 -96 0 1 0 0 0 1 0 0 0 1 plain.dat\n")
    (folder / "other.mpd").write_text("0 FILE other-main.ldr\n1 1 0 0 0 1 0 0 0 1 0 0 0 1 layer.ldr\n"
                                      "1 2 0 -24 0 1 0 0 0 1 0 0 0 1 third.ldr\n"
                                      "0 FILE layer.ldr\n1 16 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n")
    (folder / "third.ldr").write_text("1 16 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n")
    (folder / "sub" / "deep.ldr").write_text("1 14 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n")
    (folder / "plain.dat").write_text("0 a part file beside the model\n0 !LDRAW_ORG Unofficial_Part\n"
                                      "1 16 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n")
    return main


@pytest.mark.parametrize("cmd", ["info", "validate", "render", "instructions"])
def test_external_files_are_resolved_alike_by_every_command(tmp_path, cmd):
    if cmd == "render" and not has_gl():
        pytest.skip("no offscreen OpenGL backend (EGL or OSMesa)")
    main = write_external_model(tmp_path)
    r = runner.invoke(app, commands(main, tmp_path)[cmd])
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
    assert "unknown part" not in r.output and "UNKNOWN" not in r.output
    if cmd == "info":
        assert "main.ldr: 5 parts" in r.output
        bom = [ln.split() for ln in r.output.splitlines() if ln.startswith("      1 x ")]
        assert sorted((b[2], b[-1]) for b in bom) == [("3001", "(1)"), ("3001", "(14)"), ("3001", "(2)"),
                                                      ("3001", "(4)"), ("plain", "(16)")]
    elif cmd == "validate":
        assert "main.ldr: 5 parts" in r.output
    elif cmd == "instructions":
        # the embedded part (plain.dat) is added in the last step, as MPD-embedded parts are
        assert "4 of 4 parts placed (100.0%), 1 added in a last step (MPD-embedded part: 1)" in r.output
    else:
        assert r.exit_code == 0 and (tmp_path / "x.png").stat().st_size > 0
    from bricklayer import read_ldraw
    from ldraw_data import load_model

    assert read_ldraw(main).brick_count == len(load_model(main).parts) == 5


@pytest.mark.parametrize("variable", ["BRICKWRIGHT_CACHE_DIR", "BRICKWRIGHT_DATA_DIR"])
@pytest.mark.parametrize("below", [False, True])
def test_cache_or_data_dir_at_a_file_is_one_clear_error(tmp_path, variable, below):
    """A real process (stderr apart from stdout): exit 1, one line naming the variable and path, no traceback."""
    model = tmp_path / "m.ldr"
    model.write_text(BRICK + "\n")
    afile = tmp_path / "not-a-folder"
    afile.write_text("x")
    target = afile / "sub" if below else afile
    env = dict(os.environ, **{variable: str(target)})
    p = subprocess.run([sys.executable, "-m", "brickwright", "info", str(model)], cwd=REPO, env=env,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 2, p.stdout + p.stderr
    assert "Traceback" not in p.stderr and p.stdout == ""
    what = f"{afile} above it is a file" if below else "it is a file"
    assert p.stderr.strip() == (f"error: {variable}={target} cannot be used: {what}, not a folder. "
                                f"Point {variable} at a folder (it is created when missing) or unset it.")


# ----------------------------------------------------------------------------- break-it report fixes
@pytest.mark.parametrize("content, expected", [
    (b"a red tower\nune tour rouge \xe0 Paris\n", "latin1.txt:2: not UTF-8 text (byte 27); save it as UTF-8"),
    (b"a red tower\n\x89PNG\x00\x00", "latin1.txt:2: binary data (a NUL byte), not text"),
])
def test_eval_on_an_unreadable_prompts_file_is_one_line(tmp_path, content, expected):
    """F1: byte 27 = len("a red tower\\n") + len("une tour rouge "), the 0xe0 of Latin-1 'à' on line 2."""
    f = tmp_path / "latin1.txt"
    f.write_bytes(content)
    r = runner.invoke(app, ["eval", str(f), "--out", str(tmp_path / "ev")])
    assert r.exit_code == 2, r.output
    assert r.output.strip().startswith(f"error: {tmp_path}/{expected}"), r.output
    assert len(r.output.strip().splitlines()) == 1 and not (tmp_path / "ev").exists()


def test_eval_on_a_missing_file_or_a_folder_says_what_to_give(tmp_path):
    """F1: the same check (and words) as every other command's input file, no raw [Errno ..] text."""
    r = runner.invoke(app, ["eval", str(tmp_path / "missing.txt")])
    assert r.exit_code == 2 and r.output.strip() == f"error: {tmp_path}/missing.txt: no such file"
    r = runner.invoke(app, ["eval", str(tmp_path)])
    assert r.exit_code == 2
    assert r.output.strip() == f"error: {tmp_path} is a folder; give a UTF-8 text file, one prompt a line"


MALFORMED = ("0 test\n" + BRICK + "\n1 4 0 -24 0 1 0 0 0 1 0 0 0 3001.dat\n"
             "1 banana 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n7 foo bar\n")


def test_parts_fails_when_part_lines_could_not_be_read(tmp_path, library):
    """F4: lines 3 (14 fields) and 4 (colour 'banana') are bricks the list would lack: exit 1, stderr says 2
    and names the first, --json lists both; line 5 (type 7) is not a part line and is not counted."""
    model = tmp_path / "malformed.ldr"
    model.write_text(MALFORMED)
    r = runner.invoke(app, ["parts", str(model), "--json"])
    assert r.exit_code == 1, r.output
    import json

    data = json.loads(r.stdout)
    assert data["parts"] == 1 and [u.split(":")[1] for u in data["unreadable_lines"]] == ["3", "4"]
    assert ("error: 2 part lines could not be read and are left out of the parts list (first: malformed.ldr:3: "
            "type-1 line has 14 fields, needs 15") in r.output
    r = runner.invoke(app, ["info", str(model)])
    assert r.exit_code == 0 and "1 part," in r.output
    assert "warning: 2 part lines could not be read and are left out of the counts above" in r.output
    model.write_text("0 test\n" + BRICK + "\n")
    assert runner.invoke(app, ["parts", str(model)]).exit_code == 0


HUGE = "1 4 1e308 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n1 4 0 -24 0 1 0 0 0 1 0 0 0 1 3003.dat\n"


@pytest.mark.parametrize("cmd", [["render", "{m}", "--out", "{d}/h.png"], ["export", "{m}", "{d}/h.stl"],
                                 ["instructions", "{m}", "--out", "{d}/hs", "--no-images"]])
def test_placements_out_of_range_are_refused_by_geometry_commands(tmp_path, library, cmd):
    """F3: a brick at x = 1e308 LDU (past the validator's 1,000,000 LDU OUT OF RANGE limit) makes meaningless
    geometry: refused naming line 1, nothing written, and no numpy warning (an error here would fail the run)."""
    import warnings

    model = tmp_path / "huge.ldr"
    model.write_text(HUGE)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = runner.invoke(app, [a.format(m=model, d=tmp_path) for a in cmd])
    assert r.exit_code == 2, r.output
    assert r.output.strip() == ("error: huge.ldr:1: part placed at (1e+308, 0, -24) LDU, farther than 1,000,000 LDU "
                                "from the origin (1 part out of range); move it nearer (`brickwright validate` "
                                "lists every one)")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["huge.ldr"]


def test_validate_and_info_of_placements_out_of_range_print_no_warnings_or_300_digits(tmp_path, library):
    """F3: validate says OUT OF RANGE at grid x = 1e308 / 20 LDU = 5e+306 studs; info's size in e-notation."""
    import warnings

    model = tmp_path / "huge.ldr"
    model.write_text(HUGE)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = runner.invoke(app, ["validate", str(model)])
        assert r.exit_code == 1, r.output
        assert "OUT OF RANGE huge.ldr:1: 3001 (Brick 2 x 4, Color.RED) at grid (5e+306, -1, -3): placed more than" in r.output
        r = runner.invoke(app, ["info", str(model)])
    assert r.exit_code == 0, r.output
    assert "size: 5e+306 x 2.0 studs" in r.output and max(len(w) for w in r.output.split()) < 30


@pytest.mark.parametrize("cmd", [["info", "{m}"], ["parts", "{m}"]])
def test_closed_output_pipe_exits_141_quietly(tmp_path, library, cmd):
    """F9: the reader of stdout is gone before the first line (`| head` done): exit 141 (128 + SIGPIPE, as `cat`
    killed by the signal) and nothing on stderr, not `error: [Errno 32] Broken pipe` and exit 2."""
    model = tmp_path / "m.ldr"
    model.write_text("0 test\n" + BRICK + "\n")
    r_fd, w_fd = os.pipe()
    os.close(r_fd)  # no reader: every write to stdout fails with EPIPE
    p = subprocess.run([sys.executable, "-m", "brickwright", *[a.format(m=model) for a in cmd]], cwd=REPO,
                       stdout=w_fd, stderr=subprocess.PIPE, text=True, timeout=120)
    os.close(w_fd)
    assert p.returncode == 141 and p.stderr == "", p.stderr


def test_eval_help_describes_every_option_and_ray_needs_an_address(tmp_path):
    """F15: every option of `eval --help` has a description; `--ray ""` is a usage error (exit 2)."""
    import re

    r = runner.invoke(app, ["eval", "--help"], terminal_width=200)
    assert r.exit_code == 0
    options = re.findall(r"^\s+(--[a-z-]+)(.*)$", r.output, re.M)
    # "--max-calls <int>      [default: 60]": the metavar and the default are not a description
    bare = [name for name, rest in options if not re.sub(r"<[^>]*>|\[[^\]]*\]|^ [A-Z]+", "", rest).strip()]
    assert {"--model", "--base-url", "--api-key", "--out", "--max-calls", "--max-validate"} <= {n for n, _ in options}
    assert bare == [], bare
    prompts = tmp_path / "p.txt"
    prompts.write_text("a red tower\n")
    r = runner.invoke(app, ["eval", str(prompts), "--ray", " ", "--out", str(tmp_path / "ev")])
    assert r.exit_code == 2 and "--ray needs an address" in r.output and not (tmp_path / "ev").exists()


def test_render_help_and_readme_say_where_the_png_goes():
    """F2: by default the PNG is written beside the model (its folder), which --help and the README say."""
    r = runner.invoke(app, ["render", "--help"], terminal_width=200)
    assert "beside the model" in " ".join(r.output.split())
    assert "model.png beside the model" in (REPO / "README.md").read_text()
