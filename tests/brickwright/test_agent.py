"""The whole agent loop against a real chat-completions server on 127.0.0.1 playing scripted turns."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from brickwright import ProviderNotConfiguredError, generate, replay
from brickwright.agent import TOOL_NAMES, Worker

from scripted_chat import tool_turn

HEADER = "from bricklayer import *\nfrom brickwright import TestContext\n\n\n"

# Two 2x4 bricks (3001); the top one 6 plates up leaves a one-brick gap: it floats.
FLOATING_BUILD = HEADER + '''def create_build():
    build = LegoBuild()
    build.add(Element("3001", Color.RED), (0, 0, 0), name="base")
    build.add(Element("3001", Color.BLUE), (0, 0, 6), name="top")
    return build


def run_tests():
    ctx = TestContext(create_build())
    ctx.check_no_floating()
    ctx.check_no_collisions()
    ctx.check_connected(expected_components=1)
    return ctx.report()
'''


def run(server, tmp_path: Path, name: str = "run", **kw):
    kw.setdefault("max_calls", 20)
    return generate("a red and blue tower", model="gpt-4o", base_url=server.base_url, api_key="test-key",
                    out_dir=tmp_path / name, **kw)


def tool_results(res) -> list[str]:
    """Every tool result text of a run, in order, from its transcript."""
    records = [json.loads(line) for line in res.transcript_path.read_text().splitlines()]
    return [r["content"] for r in records if r["type"] == "tool_result"]


def ldraw_part_lines(text: str) -> list[list[str]]:
    """Type-1 lines of an LDraw file, split into fields (LDraw spec: 1 colour x y z a..i file)."""
    return [ln.split() for ln in text.splitlines() if ln.strip().startswith("1 ")]


def test_floating_brick_repaired_and_finalized(chat_server, tmp_path, worker, needs_validator):
    server = chat_server([
        tool_turn(("write_build", {"content": FLOATING_BUILD})),
        tool_turn(("validate", {})),
        tool_turn(("edit_build", {"old_text": "(0, 0, 6)", "new_text": "(0, 0, 3)"})),
        tool_turn(("validate", {})),
        tool_turn(("finalize", {"summary": "two stacked bricks"})),
    ])
    events = []
    res = run(server, tmp_path, worker=worker, progress=events.append)
    results = tool_results(res)
    first_validate = results[1]
    assert first_validate.startswith("VALIDATE: FAILED")
    assert "FLOATING top: 3001 (Brick 2 x 4, Color.BLUE) at grid (0, 0, 6)" in first_validate
    assert "at grid (0, 0, 6)" in first_validate  # the floating brick's grid position, as written in build.py
    assert results[3].startswith("VALIDATE: PASSED")
    assert results[4].startswith("Accepted")
    assert res.finalized and res.passed and res.valid and res.stop_reason == "finalized"
    assert (res.parts, res.unique_parts, res.components) == (2, 1, 1)
    assert (res.tool_calls, res.validate_calls, res.turns) == (5, 2, 5)
    # 5 responses x (1000 + 100) tokens at gpt-4o list price (2.50 / 10.00 USD per 1M tokens)
    assert (res.prompt_tokens, res.completion_tokens) == (5000, 500)
    assert res.cost_usd == pytest.approx(5000 * 2.5e-6 + 500 * 10e-6)
    # the exported model: two 3001 bricks, stacked exactly one brick (24 LDU) apart, same x and z
    parts = ldraw_part_lines(res.ldr_path.read_text())
    assert [p[-1].lower() for p in parts] == ["3001.dat", "3001.dat"]
    (x0, y0, z0), (x1, y1, z1) = [tuple(float(v) for v in p[2:5]) for p in parts]
    assert (x0, z0) == (x1, z1) and abs(y1 - y0) == 24.0
    # the server saw the tools and a system prompt holding the generated API reference
    req0 = server.requests[0]
    assert [t["function"]["name"] for t in req0["tools"]] == TOOL_NAMES + ["delegate"]  # delegate: generate only
    assert "LegoBuild" in req0["messages"][0]["content"] and "TestContext.check_no_floating" in req0["messages"][0]["content"]
    # progress: one event per response and per tool, the last one after the final validation
    assert [e.tool for e in events if e.tool] == ["write_build", "validate", "edit_build", "validate", "finalize"]
    assert (events[-1].checks_passed, events[-1].checks_total) == (5, 5)
    # transcript: one JSON object per line with every request, response, tool call and result
    records = [json.loads(line) for line in res.transcript_path.read_text().splitlines()]
    kinds = [r["type"] for r in records]
    assert kinds[0] == "run_start" and kinds[-1] == "run_end"
    assert kinds.count("request") == 5 and kinds.count("response") == 5 and kinds.count("tool_result") == 5

    # replay the transcript without a model: same final build, same tool results, same export
    rep = replay(res.transcript_path, tmp_path / "replayed", worker=worker)
    assert rep.same_build and rep.passed and rep.mismatches == [] and rep.tool_calls == 5
    assert rep.build_path.read_text() == res.build_path.read_text()
    assert rep.ldr_path.read_text() == res.ldr_path.read_text()
    # a second replay into the same folder would write over its build.py: refused, nothing changed
    from brickwright.agent.errors import TranscriptError

    rep.build_path.write_text("# my edits\n")
    with pytest.raises(TranscriptError, match="not an empty folder"):
        replay(res.transcript_path, tmp_path / "replayed", worker=worker)
    assert rep.build_path.read_text() == "# my edits\n"


def test_syntax_error_reported_with_line(chat_server, tmp_path, worker):
    bad = HEADER + "def create_build():\n    build = LegoBuild(\n    return build\n"
    server = chat_server([tool_turn(("write_build", {"content": bad})), tool_turn(("validate", {}))])
    res = run(server, tmp_path, worker=worker, max_calls=2)
    report = tool_results(res)[1]
    # line 6 opens "LegoBuild(" which is never closed (Python reports the opening line)
    assert report.startswith("VALIDATE: FAILED - build.py did not complete.")
    assert "SyntaxError in build.py line 6" in report
    assert "build = LegoBuild(" in report
    assert not res.passed and res.stop_reason == "max_calls"


def test_endless_loop_killed_and_run_continues(chat_server, tmp_path):
    loop = HEADER + "def create_build():\n    n = 0\n    while True:\n        n += 1\n"
    server = chat_server([
        tool_turn(("write_build", {"content": loop})),
        tool_turn(("validate", {})),
        tool_turn(("write_build", {"content": "def create_build():\n    return None\n"})),
        tool_turn(("explore", {"code": "x = 6 * 7\nx"})),
    ])
    res = run(server, tmp_path, time_limit=2.0, max_calls=4)
    results = tool_results(res)
    assert "Time limit: the code ran longer than 2 s" in results[1]
    assert "endless loop" in results[1]
    records = [json.loads(x) for x in res.transcript_path.read_text().splitlines()]
    explore = [r for r in records if r["type"] == "tool_result" and r["name"] == "explore"][0]
    # the worker was restarted and answers the next call
    assert explore["content"].splitlines() == ["(create_build() returned None)", "42"]
    assert res.stop_reason == "max_calls" and not res.passed
    assert "kept the latest build" in res.message


def test_unknown_part_and_name_get_did_you_mean(chat_server, tmp_path, worker):
    wrong_part = FLOATING_BUILD.replace('Element("3001", Color.BLUE)', 'Element("30001", Color.BLUE)')
    wrong_name = FLOATING_BUILD.replace("build = LegoBuild()", "build = LegoBild()")
    server = chat_server([
        tool_turn(("write_build", {"content": wrong_part}), ("validate", {})),
        tool_turn(("write_build", {"content": wrong_name}), ("validate", {})),
    ])
    res = run(server, tmp_path, worker=worker, max_calls=4)
    results = [json.loads(x) for x in res.transcript_path.read_text().splitlines()]
    reports = [r["content"] for r in results if r["type"] == "tool_result" and r["name"] == "validate"]
    part_report, name_report = reports
    assert "build.py line 8" in part_report  # the line adding Element("30001", ...)
    assert "30001" in part_report and "did you mean" in part_report and "'3001'" in part_report
    assert "NameError" in name_report and "build.py line 6" in name_report
    assert "did you mean 'LegoBuild'?" in name_report


def test_finalize_refused_before_passing(chat_server, tmp_path, worker, needs_validator):
    server = chat_server([
        tool_turn(("finalize", {})),
        tool_turn(("write_build", {"content": FLOATING_BUILD}), ("validate", {}), ("finalize", {})),
    ])
    res = run(server, tmp_path, worker=worker, max_calls=4)
    results = tool_results(res)
    assert results[0].startswith("Refused: call validate first")
    assert results[2].startswith("VALIDATE: FAILED")
    assert results[3].startswith("Refused: the last validate failed")
    assert not res.finalized and res.stop_reason == "max_calls"
    assert not res.valid and res.collision_free and not res.floater_free


def test_budget_stop_keeps_latest_build(chat_server, tmp_path, worker):
    edited = FLOATING_BUILD.replace("(0, 0, 6)", "(0, 0, 3)")
    server = chat_server([
        tool_turn(("write_build", {"content": FLOATING_BUILD})),
        tool_turn(("edit_build", {"old_text": "(0, 0, 6)", "new_text": "(0, 0, 3)"})),
        tool_turn(("validate", {})),
        tool_turn(("write_build", {"content": "# never written"})),
    ])
    res = run(server, tmp_path, worker=worker, max_calls=3)
    assert res.stop_reason == "max_calls" and not res.finalized
    assert res.tool_calls == 3 and len(server.requests) == 3  # the 4th turn was never asked for
    assert res.build_path.read_text() == edited
    assert "reached the maximum of 3 tool calls" in res.message and "kept the latest build" in res.message
    assert str(res.build_path) in res.message
    saved = json.loads((res.run_dir / "result.json").read_text())
    assert saved["stop_reason"] == "max_calls" and saved["tool_calls"] == 3


def test_cost_budget_stop(chat_server, tmp_path, worker):
    # one response = 1000 prompt + 100 completion tokens at gpt-4o prices = 0.0035 USD >= 0.003 budget
    server = chat_server([tool_turn(("write_build", {"content": FLOATING_BUILD})),
                          tool_turn(("validate", {}))])
    res = run(server, tmp_path, worker=worker, budget_usd=0.003)
    assert res.stop_reason == "budget" and len(server.requests) == 1 and res.tool_calls == 1
    assert res.cost_usd == pytest.approx(0.0035)
    assert "cost budget" in res.message and "kept the latest build" in res.message
    assert res.build_path.read_text() == FLOATING_BUILD


def test_no_provider_configured(tmp_path):
    with pytest.raises(ProviderNotConfiguredError) as err:
        generate("a house", out_dir=tmp_path / "never")
    msg = str(err.value)
    assert "\n" not in msg
    assert "BRICKWRIGHT_BASE_URL" in msg and "OPENAI_API_KEY" in msg and "ANTHROPIC_API_KEY" in msg
    assert "--base-url" in msg
    assert not (tmp_path / "never").exists()


def test_base_url_without_model_is_not_configured(monkeypatch, tmp_path):
    monkeypatch.setenv("BRICKWRIGHT_BASE_URL", "http://127.0.0.1:9/v1")
    with pytest.raises(ProviderNotConfiguredError, match="no model"):
        generate("a house", out_dir=tmp_path / "never")


def test_from_ldraw_model_starts_from_a_copy(chat_server, tmp_path, worker, needs_validator):
    import bricklayer as bl

    b = bl.LegoBuild()
    b.add(bl.Element("3001", bl.Color.RED), (0, 0, 0))
    b.add(bl.Element("3001", bl.Color.RED), (0, 0, 3))
    src = tmp_path / "tower.ldr"
    bl.write_ldraw(b, src)
    server = chat_server([tool_turn(("validate", {})), tool_turn(("finalize", {}))])
    res = run(server, tmp_path, worker=worker, from_path=src)
    assert res.finalized and res.parts == 2
    assert (res.run_dir / "input.ldr").read_text() == src.read_text()
    assert "read_ldraw(SOURCE)" in res.build_path.read_text()
