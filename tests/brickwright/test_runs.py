"""`brickwright runs` lists every kind of run record, each with its kind (break-it round: it listed `generate`
runs only). Real runs against the scripted chat server, listed through the real command line."""

from __future__ import annotations

import json
import os

from scripted_chat import brickwright_cli, tool_turn

WALL = ("from bricklayer import *\ndef create_build():\n    b = LegoBuild()\n"
        "    b.add(Element('3001', Color.RED), (0, 0, 0))\n    return b\n")


def test_runs_lists_generate_eval_and_tool_runs_with_their_kind(chat_server, tmp_path):
    """Written where each command writes by default (the current folder): generate into brickwright_runs/,
    eval into brickwright_eval/ (2 prompts, 2 runs), a `tool init` folder inside brickwright_runs/. Each run
    writes build.py once (max_calls=1, no validate call); the judge's verdict on it at the end: one brick on
    the ground is valid."""
    from brickwright import evaluate, generate

    server = chat_server([tool_turn(("write_build", {"content": WALL}))] * 3)
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        generate("a red brick", model="gpt-4o", base_url=server.base_url, api_key="k",
                 out_dir="brickwright_runs/g1", max_calls=1)
        prompts = tmp_path / "prompts.txt"
        prompts.write_text("a wall\na tower\n")
        evaluate(prompts, model="gpt-4o", base_url=server.base_url, max_calls=1, time_limit=30)
    finally:
        os.chdir(cwd)
    p = brickwright_cli("tool", "init", "brickwright_runs/t1", cwd=tmp_path)
    assert p.returncode == 0, p.stderr

    p = brickwright_cli("runs", "--json", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    runs = {r["id"]: r for r in json.loads(p.stdout)}
    assert {i: r["kind"] for i, r in runs.items()} == {
        "g1": "generate", "t1": "tool", "brickwright_eval": "eval",
        "brickwright_eval/run_001-a-wall": "eval run", "brickwright_eval/run_002-a-tower": "eval run"}
    assert runs["g1"]["prompt"] == "a red brick" and runs["g1"]["status"] == "valid, max_calls"
    assert runs["brickwright_eval/run_002-a-tower"]["prompt"] == "a tower"
    ev = runs["brickwright_eval"]
    assert (ev["status"], ev["prompt"], ev["validate_calls"]) == ("2 runs, 100% valid", "a wall | a tower", 0)
    # gpt-4o: 1000 prompt tokens x 2.5e-6 + 100 completion tokens x 1e-5 = 0.0035 USD a response, one a run
    assert round(ev["cost_usd"], 6) == 0.007
    assert runs["t1"]["status"] == "no validate yet"

    p = brickwright_cli("runs", cwd=tmp_path)  # the table names each kind
    kinds = {ln.split()[0]: ln.split()[1] for ln in p.stdout.splitlines()}
    assert kinds["t1"] == "tool" and kinds["brickwright_eval"] == "eval" and kinds["g1"] == "generate"
    p = brickwright_cli("runs", "show", "brickwright_eval", cwd=tmp_path)  # exact id, though a prefix of 3
    assert p.returncode == 0 and p.stdout.startswith("brickwright_eval (eval): 2 runs, 100% valid;"), p.stdout
    p = brickwright_cli("runs", "--root", "brickwright_eval", "--json", cwd=tmp_path)  # an eval folder itself
    assert [r["kind"] for r in json.loads(p.stdout)] == ["eval", "eval run", "eval run"]
