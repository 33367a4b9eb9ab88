"""The harness tools for coding agents: ``brickwright tool`` in a subprocess and ``brickwright mcp`` through the
MCP SDK's own stdio client, on the real library and the sandboxed worker.

Builds: two 2 x 4 bricks (3001, 24 LDU = 3 plates high) at grid (0, 0, 0) and (0, 0, 6) leave a 3-plate gap, so
the upper one floats and the build is 2 components; at (0, 0, 3) the upper one sits on the lower one's studs.
"""

from __future__ import annotations

import base64
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from brickwright.agent import ToolBox
from brickwright.agent.prompt import INSTRUCTIONS, NEW_BUILD_TEMPLATE
from brickwright.agent.tools import TOOL_DEFINITIONS, TOOL_NAMES
from brickwright.cli import app

REPO_ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()

FLOATING = '''\
from bricklayer import *
from brickwright import TestContext


def create_build():
    build = LegoBuild()
    build.add(Element("3001", Color.RED), (0, 0, 0))
    build.add(Element("3001", Color.BLUE), (0, 0, 6))
    return build


def run_tests():
    ctx = TestContext(create_build())
    ctx.check_no_floating()
    ctx.check_no_collisions()
    ctx.check_connected(expected_components=1)
    return ctx.report()
'''
GOOD = FLOATING.replace("(0, 0, 6)", "(0, 0, 3)")

PASSED = ("VALIDATE: PASSED - 2 parts (1 distinct part ids), 1 connected component(s); run_tests 3/3 checks passed. "
          "Call finalize if the model is complete.")


def _env() -> dict:
    return dict(os.environ, BRICKWRIGHT_WORKER_WARMUP="0")


def bw(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    """``python -m brickwright ARGS`` from the repository root (so this checkout is the one imported)."""
    return subprocess.run([sys.executable, "-m", "brickwright", *args], cwd=REPO_ROOT, env=_env(), input=stdin,
                          capture_output=True, text=True, timeout=300)


# the calls after `init`, with the exit code `brickwright tool` must give each
CALLS = [
    ("read_build", {}, 0),
    ("write_build", {"content": FLOATING}, 0),
    ("validate", {}, 1),
    ("finalize", {}, 1),
    ("edit_build", {"old_text": "(0, 0, 6)", "new_text": "(0, 0, 3)"}, 0),
    ("validate", {}, 0),
    ("insert_build", {"line": 18, "text": "# done"}, 0),
    ("finalize", {"summary": "two bricks"}, 1),  # build.py changed since the passing validate
    ("edit_build", {"old_text": "# done\n", "new_text": ""}, 0),  # back to the validated text
    ("finalize", {"summary": "two bricks"}, 0),
]


def test_tool_cli_gives_the_harness_text_and_keeps_state_between_processes(tmp_path, worker):
    run = tmp_path / "run"
    r = bw("tool", "init", str(run))
    assert r.returncode == 0, r.stderr
    assert (run / "build.py").read_text() == NEW_BUILD_TEMPLATE
    texts = []
    for i, (name, args, code) in enumerate(CALLS):
        if name == "write_build":  # through a file on standard input, as an agent's shell would
            r = bw("tool", name, str(run), "--content-file", "-", stdin=args["content"])
        elif i % 2:  # the rest alternately as --json-args and as options
            r = bw("tool", name, str(run), "--json-args", json.dumps(args))
        else:
            opts = [x for k, v in args.items() for x in (f"--{k.replace('_', '-')}", str(v))]
            r = bw("tool", name.replace("_", "-"), str(run), *opts)
        assert r.returncode == code, (name, r.stdout, r.stderr)
        texts.append(r.stdout.rstrip("\n"))
    assert texts[2].startswith("VALIDATE: FAILED - 2 parts (1 distinct part ids), 2 connected component(s).")
    assert "- FLOATING build.py:8: 3001 (Brick 2 x 4, Color.BLUE) at grid (0, 0, 6)" in texts[2]
    assert texts[3].startswith("Refused: the last validate failed")
    assert texts[5] == PASSED
    assert texts[7].startswith("Refused: build.py changed since the last passing validate")
    assert texts[9] == "Accepted: the build is final."
    # model.ldr: the text the passing validate judged: both bricks, the upper one 24 LDU (one brick) higher
    parts = [ln.split() for ln in (run / "model.ldr").read_text().splitlines() if ln.startswith("1 ")]
    assert [(p[1], p[-1].lower()) for p in parts] == [("4", "3001.dat"), ("1", "3001.dat")]
    assert float(parts[0][3]) - float(parts[1][3]) == 24.0

    # the same calls through the harness's own ToolBox answer the same text
    box = ToolBox(tmp_path / "harness", worker)
    try:
        box.write_build(NEW_BUILD_TEMPLATE)
        assert [box.run(name, args).text for name, args, _ in CALLS] == texts
    finally:
        box.close()

    r = runner.invoke(app, ["tool", "status", str(run), "--json"])
    assert r.exit_code == 0, r.output
    st = json.loads(r.output)
    assert (st["tool_calls"], st["validate_calls"], st["first_pass_validate"], st["finalized"]) == (10, 2, 2, True)
    assert st["calls"] == {"read_build": 1, "write_build": 1, "validate": 2, "finalize": 3, "edit_build": 2,
                           "insert_build": 1}



def test_tool_cli_usage_errors_exit_2(tmp_path):
    run = tmp_path / "run"
    r = runner.invoke(app, ["tool", "validate", str(run)])
    assert r.exit_code == 2 and f"{run}: no such run folder; create it with `brickwright tool init {run}`" in r.output
    assert runner.invoke(app, ["tool", "init", str(run)]).exit_code == 0
    r = runner.invoke(app, ["tool", "init", str(run)])
    assert r.exit_code == 2 and "already holds a run (build.py)" in r.output
    r = runner.invoke(app, ["tool", "edit_build", str(run), "--json-args", '{"old": "x"}'])
    assert r.exit_code == 2
    assert "edit_build takes old_text (string), new_text (string): missing old_text, new_text; unknown old." in r.output
    r = runner.invoke(app, ["tool", "insert_build", str(run), "--line", "1", "--text", "x", "--json-args", "{}"])
    assert r.exit_code == 2 and "either as --json-args or as options, not both" in r.output
    r = runner.invoke(app, ["tool", "write_build", str(run), "--json-args", "[1]"])
    assert r.exit_code == 2 and "--json-args must be a JSON object" in r.output
    r = runner.invoke(app, ["tool", "insert_build", str(run), "--json-args", '{"line": "2", "text": "x"}'])
    assert r.exit_code == 2 and "insert_build: line must be an integer, got str '2'." in r.output
    assert (run / "build.py").read_text() == NEW_BUILD_TEMPLATE  # nothing ran
    (run / ".brickwright").mkdir()
    (run / ".brickwright" / "state.json").write_text("{not json")
    r = runner.invoke(app, ["tool", "read_build", str(run)])
    assert r.exit_code == 2 and "state.json: not a state file of `brickwright tool`" in r.output


def has_gl() -> bool:
    import bricklayer.render as r

    try:
        r.backend_info()
    except r.RenderBackendError:
        return False
    return True


def test_mcp_server_through_the_sdk_stdio_client(tmp_path):
    pytest.importorskip("mcp")
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    from brickwright.agent.runfolder import init_run_folder

    run = init_run_folder(tmp_path / "run")
    gl = has_gl()
    prompt_cli = bw("tool", "prompt")
    assert prompt_cli.returncode == 0, prompt_cli.stderr

    async def session_calls() -> dict:
        params = StdioServerParameters(command=sys.executable, args=["-m", "brickwright", "mcp", "--run-dir", str(run)],
                                       env=_env(), cwd=str(REPO_ROOT))
        got: dict = {}
        with anyio.fail_after(240):
            async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
                await s.initialize()
                got["tools"] = (await s.list_tools()).tools
                calls = [("write_build", {"content": GOOD}), ("validate", {}),
                         ("search_parts", {"query": "brick 2 x 4", "limit": 3}),
                         ("part_info", {"part_id": "3001"}), ("part_info", {"part_id": "3001x"}),
                         ("system_prompt", {}), ("finalize", {})]
                for name, args in calls + ([("render", {"view": "iso"})] if gl else []):
                    got.setdefault(name, []).append(await s.call_tool(name, args))
        return got

    got = anyio.run(session_calls)
    schemas = {t.name: getattr(t, "input_schema", None) or t.inputSchema for t in got["tools"]}
    assert set(schemas) == {*TOOL_NAMES, "init_run", "system_prompt", "search_parts", "part_info"}
    for t in TOOL_DEFINITIONS:  # each harness tool keeps its arguments, plus run_dir
        f = t["function"]
        assert set(schemas[f["name"]]["properties"]) == {*f["parameters"]["properties"], "run_dir"}
        assert set(schemas[f["name"]].get("required", [])) == set(f["parameters"]["required"])

    def text(res) -> str:
        assert res.content[0].type == "text"
        return res.content[0].text

    assert text(got["write_build"][0]) == "build.py written (17 lines). Call validate to check it."
    assert text(got["validate"][0]) == PASSED
    assert text(got["finalize"][0]) == "Accepted: the build is final."
    assert (run / "model.ldr").read_text().count("3001.dat") == 2
    lines = text(got["search_parts"][0]).splitlines()
    assert len(lines) == 3 and lines[0].split()[:5] == ["3001", "Brick", "2", "x", "4"]
    info = text(got["part_info"][0])
    # 3001: 80 x 40 LDU footprint (4 x 2 studs), 24 LDU body + 4 LDU studs; 8 studs on top, 8 antistuds below
    assert info.startswith("3001  Brick 2 x 4  (category Brick;")
    assert "size: 80 x 28 x 40 LDU" in info and "= 4 x 2 studs, 3.5 plates high" in info
    assert "antistud x8 (index 0-7)" in info and "; stud x8 (" in info
    bad = got["part_info"][1]
    dumped = bad.model_dump()  # mcp 2.x names the field is_error, 1.x isError
    assert dumped.get("is_error", dumped.get("isError")) is True and "did you mean '3001'" in text(bad)
    toc, how_to, cli_prompt = prompt_cli.stdout.split("\n", 2)  # the CLI starts with two table of contents lines
    assert toc.startswith("(this prompt has ") and "Tools" in toc and how_to.startswith("(to read a part: ")
    assert text(got["system_prompt"][0]) == cli_prompt.rstrip("\n")
    assert text(got["system_prompt"][0]).startswith(INSTRUCTIONS)
    if gl:
        res = got["render"][0]
        assert "render_001_iso.png" in text(res) and (run / "renders" / "render_001_iso.png").is_file()
        img = res.content[1]
        assert img.type == "image" and (getattr(img, "mime_type", None) or img.mimeType) == "image/png"
        png = base64.b64decode(img.data)
        assert png == (run / "renders" / "render_001_iso.png").read_bytes()
        from PIL import Image

        assert Image.open(io.BytesIO(png)).size[0] > 100


def test_tool_prompt_table_of_contents_and_sections_point_at_the_right_lines():
    """A coding agent whose shell cuts long output reads the prompt in parts: the table of contents gives the
    line where each section starts (1-based, counted in the printed text), ``--section`` prints one section or
    one API entry, and an unknown name is a usage error (exit 2) that lists what exists."""
    whole = bw("tool", "prompt")
    assert whole.returncode == 0, whole.stderr
    lines = whole.stdout.splitlines()
    toc = re.findall(r"line (\d+): ([^;)]+)", lines[0])
    assert [name for _n, name in toc][:2] == ["Tools", "TestContext"]
    for number, name in toc:
        assert lines[int(number) - 1].lstrip("# ").startswith(name.strip()[:20]), (number, name)
    assert "--section NAME" in lines[1]
    entry = bw("tool", "prompt", "--section", "slope")
    assert entry.returncode == 0, entry.stderr
    got = entry.stdout.splitlines()
    assert got[0].startswith("## slope(") and not any(ln.startswith("## ") for ln in got[1:])
    assert "DEG_90`` makes it fall\n  toward +X" in entry.stdout
    tools = bw("tool", "prompt", "--section", "tools")
    assert tools.stdout.startswith("Tools:") and "- validate()" in tools.stdout and "TestContext" not in tools.stdout
    bad = bw("tool", "prompt", "--section", "no-such-heading")
    assert bad.returncode == 2 and "LegoBuild" in bad.stderr + bad.stdout
    assert bw("tool", "prompt", "--section", "").returncode == 2
    method = bw("tool", "prompt", "--section", "stack").stdout.splitlines()
    assert method[0].startswith("  .stack(self, content, on") and not any(
        ln.startswith(("  .", "## ")) for ln in method[1:])
    assert sum(ln.endswith("API reference") and ln.startswith("# ") for ln in lines) == 1


def test_tool_prompt_takes_the_run_folder_init_made_as_every_tool_does(tmp_path):
    """played7 kiosk F1: init says "next `brickwright tool prompt`", and a model passed RUN_DIR to it as to
    every other tool and got "unexpected extra argument". A run folder is accepted (the prompt is the same for
    every run); a folder that is no run folder is a usage error naming `tool init`; init's hint says so."""
    run = tmp_path / "run"
    init = bw("tool", "init", str(run))
    assert init.returncode == 0, init.stderr
    assert "`brickwright tool prompt` (" in init.stdout and "RUN_DIR is optional there" in init.stdout
    with_run = bw("tool", "prompt", str(run), "--section", "Tools")
    assert with_run.returncode == 0, with_run.stderr
    assert with_run.stdout == bw("tool", "prompt", "--section", "Tools").stdout
    assert with_run.stdout.startswith("Tools:")
    wrong = bw("tool", "prompt", str(tmp_path / "no-run"), "--section", "Tools")
    assert wrong.returncode == 2 and "no such run folder" in wrong.stderr and "tool init" in wrong.stderr
    # a whole name wins over a longer one it starts: `stack` is the method, StackCollisionWarning its own entry
    assert bw("tool", "prompt", "--section", "stack").stdout.startswith("  .stack(self, content, on")
    assert bw("tool", "prompt", "--section", "StackColl").stdout.startswith("## class StackCollisionWarning")


HELPER_BUILD = GOOD.replace("from brickwright import TestContext\n", "from brickwright import TestContext\nimport helper\n"
                            ).replace("(0, 0, 3)", "(0, 0, helper.Z)")


def test_finalize_refuses_after_a_module_the_build_imports_changed(tmp_path, worker):
    """Break-it s25 F2: explore rewrites work/helper.py (imported by build.py) after a passing validate."""
    run = tmp_path / "run"
    assert bw("tool", "init", str(run)).returncode == 0
    assert bw("tool", "write_build", str(run), "--content-file", "-", stdin=HELPER_BUILD).returncode == 0
    r = bw("tool", "explore", str(run), "--code", 'open("helper.py", "w").write("Z = 3\\n")')
    assert r.returncode == 0, (r.stdout, r.stderr)
    assert (run / "work" / "helper.py").read_text() == "Z = 3\n"
    r = bw("tool", "validate", str(run))
    assert r.returncode == 0, (r.stdout, r.stderr)
    bw("tool", "explore", str(run), "--code", 'open("helper.py", "w").write("Z = 1\\n")')  # now the bricks collide
    r = bw("tool", "finalize", str(run))
    assert r.returncode == 1
    assert r.stdout.startswith("Refused: files the build reads changed since the last passing validate: "
                               "work/helper.py (changed); validate again."), r.stdout
    assert not (run / "model.ldr").exists()
    # back to the judged text: accepted
    bw("tool", "explore", str(run), "--code", 'open("helper.py", "w").write("Z = 3\\n")')
    r = bw("tool", "finalize", str(run))
    assert (r.returncode, r.stdout.strip()) == (0, "Accepted: the build is final."), r.stdout


def test_harness_finalize_refuses_after_a_module_beside_build_changed(tmp_path, worker):
    """The harness's own ToolBox: a helper.py beside build.py edited by hand, or a new module in work/."""
    box = ToolBox(tmp_path / "run", worker)
    try:
        (box.run_dir / "helper.py").write_text("Z = 3\n")
        box.write_build(HELPER_BUILD)
        assert box.run("validate", {}).text == PASSED
        (box.run_dir / "helper.py").write_text("Z = 1\n")
        assert box.run("finalize", {}).text == ("Refused: files the build reads changed since the last passing "
                                                "validate: helper.py (changed); validate again.")
        (box.run_dir / "helper.py").write_text("Z = 3\n")
        (box.run_dir / "work" / "extra.py").write_text("")
        assert box.run("finalize", {}).text == ("Refused: files the build reads changed since the last passing "
                                                "validate: work/extra.py (new); validate again.")
        (box.run_dir / "work" / "extra.py").unlink()
        assert box.run("finalize", {}).finalized
    finally:
        box.close()
