"""evaluate(): many prompts against the scripted server, metrics per run and overall, JSON and CSV."""

from __future__ import annotations

import csv
import json

import pytest

from brickwright import evaluate
from brickwright.agent import read_prompts

from scripted_chat import tool_turn

BROKEN = "def create_build(:\n    pass\n"


def test_evaluate_two_prompts(chat_server, tmp_path):
    prompts = tmp_path / "prompts.txt"
    prompts.write_text("# bench\na red wall\n\na blue tower\n")
    assert read_prompts(prompts) == ["a red wall", "a blue tower"]
    turns = [tool_turn(("write_build", {"content": BROKEN})), tool_turn(("validate", {}))] * 2
    server = chat_server(turns)
    ev = evaluate(prompts, model="gpt-4o", base_url=server.base_url, out_dir=tmp_path / "eval", max_calls=2,
                  time_limit=10)
    assert [r["prompt"] for r in ev.runs] == ["a red wall", "a blue tower"]
    assert all(r["stop_reason"] == "max_calls" and r["tool_calls"] == 2 and r["validate_calls"] == 1
               for r in ev.runs)
    o = ev.overall
    assert (o["runs"], o["valid_rate"], o["collision_free_rate"], o["floater_free_rate"]) == (2, 0.0, 0.0, 0.0)
    assert (o["mean_validate_calls"], o["mean_tool_calls"]) == (1.0, 2.0)
    # 2 runs x 2 responses x (1000 + 100) tokens; gpt-4o: 1000 x 2.5e-6 + 100 x 1e-5 = 0.0035 USD a response
    assert o["total_tokens"] == 4400
    assert o["total_cost_usd"] == pytest.approx(4 * 0.0035)
    saved = json.loads(ev.json_path.read_text())
    assert saved["overall"] == o and len(saved["runs"]) == 2
    rows = list(csv.DictReader(ev.csv_path.open()))
    assert [r["index"] for r in rows] == ["1", "2", "OVERALL"]
    assert (tmp_path / "eval" / "run_001-a-red-wall" / "transcript.jsonl").is_file()


def test_empty_prompts_file(tmp_path):
    p = tmp_path / "p.txt"
    p.write_text("# nothing\n\n")
    with pytest.raises(ValueError, match="no prompts"):
        read_prompts(p)
