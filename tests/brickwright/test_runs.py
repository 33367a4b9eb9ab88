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

    # break-it s25 F4: an eval run by its folder name or a unique prefix, with or without --root, and the
    # group's --root applies to `show`
    for args in (("run_001",), ("run_002-a-tower",), ("--root", "brickwright_eval", "run_001"),
                 ("brickwright_eval/run_001",)):
        p = brickwright_cli("runs", "show", *args, cwd=tmp_path)
        assert p.returncode == 0, (args, p.stderr)
        assert p.stdout.startswith(f"brickwright_eval/run_00{2 if 'tower' in args[-1] else 1}-"), p.stdout
    p = brickwright_cli("runs", "--root", "brickwright_eval", "show", "run_002", cwd=tmp_path)
    assert p.returncode == 0 and p.stdout.startswith("brickwright_eval/run_002-a-tower (eval run)"), p.stderr
    p = brickwright_cli("runs", "--root", "brickwright_runs", "show", "nosuch", cwd=tmp_path)
    assert p.returncode == 2 and "nosuch: no run of that name under brickwright_runs" in p.stderr, p.stderr
    p = brickwright_cli("runs", "show", "run_00", cwd=tmp_path)
    assert p.returncode == 2 and "matches several runs" in p.stderr, p.stderr

    # F8: a tool run shows the parts its last validate judged (one brick)
    t1 = tmp_path / "brickwright_runs" / "t1"
    (t1 / "build.py").write_text(WALL)
    p = brickwright_cli("tool", "validate", str(t1), cwd=tmp_path)
    assert "1 parts" in p.stdout or "1 part" in p.stdout, p.stdout
    p = brickwright_cli("runs", "show", "t1", cwd=tmp_path)
    assert p.stdout.startswith("t1 (tool): last validate failed; 1 parts;"), p.stdout  # no run_tests: failed
    p = brickwright_cli("runs", "--json", cwd=tmp_path)
    assert {r["id"]: r["parts"] for r in json.loads(p.stdout)}["t1"] == 1

    # F3: a wrongly typed field in one result.json or state.json gives that run an "unreadable" row
    import shutil

    shutil.copytree(tmp_path / "brickwright_runs" / "g1", tmp_path / "brickwright_runs" / "g2")
    res = tmp_path / "brickwright_runs" / "g2" / "result.json"
    res.write_text(json.dumps(dict(json.loads(res.read_text()), cost_usd="x")))
    shutil.copytree(t1, tmp_path / "brickwright_runs" / "t2")
    (tmp_path / "brickwright_runs" / "t2" / ".brickwright" / "state.json").write_text(
        json.dumps({"tool_calls": "x", "validate_calls": "y", "calls": []}))
    p = brickwright_cli("runs", cwd=tmp_path)
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr
    rows = {ln.split()[0]: ln for ln in p.stdout.splitlines()}
    assert "unreadable result.json: cost_usd is 'x', not a number >= 0" in rows["g2"]
    assert "unreadable state.json: validate_calls is 'y', not a whole number >= 0" in rows["t2"]
    assert "valid, max_calls" in rows["g1"]
    p = brickwright_cli("runs", "show", "g1", cwd=tmp_path)
    assert p.returncode == 0 and p.stdout.startswith("g1 (generate): valid, max_calls; 1 parts;"), p.stderr
    p = brickwright_cli("runs", "show", "g2", "--json", cwd=tmp_path)
    assert json.loads(p.stdout)["status"] == "unreadable result.json: cost_usd is 'x', not a number >= 0"
