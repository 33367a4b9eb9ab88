"""Inventories (issue 20): builds limited to a given set of parts, checked by the judge; and validate of many files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bricklayer import Color, Element, LegoBuild, inventory_problems, read_inventory
from bricklayer.errors import BrickLayerError
from brickwright.testing import TestContext

THREE = "1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n1 4 0 -24 0 1 0 0 0 1 0 0 0 1 3001.dat\n" \
        "1 1 0 -48 0 1 0 0 0 1 0 0 0 1 3003.dat\n"


def _build() -> LegoBuild:
    b = LegoBuild()
    b.add(Element("3001", Color.RED), (0, 0, 0))
    b.add(Element("3001", Color.RED), (0, 0, 3))
    b.add(Element("3003", Color.BLUE), (0, 0, 6))
    return b


from scripted_chat import brickwright_cli as _cli  # noqa: E402


def test_read_inventory_formats_and_errors(tmp_path):
    own = tmp_path / "parts.csv"  # what `brickwright parts --out` writes
    own.write_text("part_id,name,color,color_name,quantity,kind\n3001,Brick 2 x 4,4,Red,2,part\n")
    assert read_inventory(own).counts == {("3001", 4): 2}
    loose = tmp_path / "bin.csv"
    loose.write_text("Part,Colour,Qty\n3001.DAT,,3\n3003,1,1\n")
    assert read_inventory(loose).counts == {("3001", None): 3, ("3003", 1): 1}
    bad = tmp_path / "bad.csv"
    bad.write_text("part,color,quantity\n3001,red,2\n")
    with pytest.raises(BrickLayerError, match=r"bad.csv:2: colour and quantity must be whole numbers"):
        read_inventory(bad)
    (tmp_path / "nopart.csv").write_text("name,quantity\nbrick,1\n")
    with pytest.raises(BrickLayerError, match="no part column"):
        read_inventory(tmp_path / "nopart.csv")


def test_inventory_problems_count_exact_colours_then_any_colour(tmp_path):
    inv = tmp_path / "inv.csv"
    inv.write_text("part_id,color,quantity\n3001,4,1\n3001,,1\n")  # one red, one of any colour
    assert inventory_problems(_build(), read_inventory(inv)) == [
        {"part_id": "3003", "color": 1, "used": 1, "available": 0, "missing": 1}]
    inv.write_text("part_id,color,quantity\n3001,4,1\n3003,1,1\n")
    assert inventory_problems(_build(), read_inventory(inv)) == [
        {"part_id": "3001", "color": 4, "used": 2, "available": 1, "missing": 1}]
    ctx = TestContext(_build())
    r = ctx.check_inventory(inv)
    assert r.passed is False and "3001 colour 4: uses 2, has 1" in r.detail


def test_judge_fails_a_build_beyond_its_inventory(tmp_path):
    from brickwright.agent import ToolBox, Worker
    from brickwright.agent.sandbox import sandbox_problem

    if sandbox_problem():
        pytest.skip(sandbox_problem())
    inv = tmp_path / "inv.csv"
    inv.write_text("part_id,color,quantity\n3001,4,2\n")
    src = ("from bricklayer import *\nfrom brickwright import TestContext\ndef create_build():\n    b = LegoBuild()\n"
           "    b.add(Element('3001', Color.RED), (0, 0, 0))\n    b.add(Element('3001', Color.RED), (0, 0, 3))\n"
           "    b.add(Element('3003', Color.BLUE), (0, 0, 6))\n    return b\n"
           "def run_tests():\n    ctx = TestContext(create_build())\n    ctx.check_no_floating()\n"
           "    return ctx.report()\n")
    with Worker(warm_up=False) as w:
        box = ToolBox(tmp_path / "run", w, inventory=read_inventory(inv))
        try:
            box.write_build(src)
            data, text = box.validate()
            assert data["valid"] is False and "OVER INVENTORY 3003 colour 1: uses 1" in text
            box.inventory = None
            data, _ = box.validate()
            assert data["valid"] is True
        finally:
            box.close()


def test_cli_validate_inventory_and_many_files_in_parallel(tmp_path):
    a = tmp_path / "a.ldr"
    a.write_text(THREE)
    b = tmp_path / "b.ldr"
    b.write_text(THREE.replace("0 -48 0", "0 -96 0"))  # the 2x2 brick floats
    (tmp_path / "inv.csv").write_text("part_id,color,quantity\n3001,4,2\n3003,,1\n")
    r = _cli("validate", str(a), "--inventory", str(tmp_path / "inv.csv"), cwd=tmp_path)
    assert r.returncode == 0 and "-> VALID" in r.stdout
    (tmp_path / "inv.csv").write_text("part_id,color,quantity\n3001,4,1\n")
    r = _cli("validate", str(a), "--inventory", str(tmp_path / "inv.csv"), cwd=tmp_path)
    assert r.returncode == 1 and "OVER INVENTORY 3001 colour 4: uses 2" in r.stdout
    r = _cli("validate", "--json", str(a), str(b), cwd=tmp_path)
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    assert r.returncode == 1 and [x["file"] for x in rows] == [str(a), str(b)]
    assert rows[0]["valid"] is True and rows[1]["valid"] is False and len(rows[1]["floating"]) == 1
    r = _cli("validate", str(a), str(tmp_path / "missing.ldr"), cwd=tmp_path)
    assert r.returncode == 2 and "missing.ldr: cannot be read" in r.stdout


def test_generate_tells_the_model_its_inventory(chat_server, tmp_path):
    from scripted_chat import tool_turn

    from brickwright import generate

    inv = tmp_path / "inv.csv"
    inv.write_text("part_id,color,quantity\n3001,4,2\n")
    server = chat_server([tool_turn(("validate", {}))])
    res = generate("a tower", model="gpt-4o", base_url=server.base_url, api_key="k", out_dir=tmp_path / "run",
                   max_calls=1, inventory=inv)
    start = [json.loads(line) for line in res.transcript_path.read_text().splitlines()]
    sent = json.dumps(start)
    assert "Use only these parts" in sent and "3001 colour 4 x 2" in sent


def test_run_records_snapshots_and_diagnostic_files(chat_server, tmp_path):
    """Each validate keeps build.py, the report and LDraw files showing the problems; `brickwright runs` lists."""
    from scripted_chat import tool_turn

    from bricklayer import read_ldraw
    from brickwright import generate

    floating = ("from bricklayer import *\nfrom brickwright import TestContext\ndef create_build():\n"
                "    b = LegoBuild()\n    b.add(Element('3001', Color.RED), (0, 0, 0))\n"
                "    b.add(Element('3001', Color.RED), (0, 0, 0))\n    b.add(Element('3003', Color.BLUE), (5, 5, 9))\n"
                "    return b\ndef run_tests():\n    ctx = TestContext(create_build())\n    ctx.check('x', True)\n"
                "    return ctx.report()\n")
    server = chat_server([tool_turn(("write_build", {"content": floating})), tool_turn(("validate", {}))])
    root = tmp_path / "runs"
    res = generate("two bricks", model="gpt-4o", base_url=server.base_url, api_key="k", out_dir=root / "r1",
                   max_calls=2)
    snap = res.run_dir / "snapshots" / "validate-001"
    assert (snap / "build.py").read_text() == floating
    assert (snap / "report.txt").read_text().startswith("VALIDATE: FAILED")
    problems = read_ldraw(snap / "problems.ldr")
    colours = sorted(int(p.content.color) for p in problems.flattened_placements)
    assert colours == [4, 4, 14]  # the two coincident bricks red, the floating 2x2 brick yellow
    comps = (snap / "components.mpd").read_text()
    # three pieces: a brick, its duplicate drawn inside it (not joined), the floating brick
    assert comps.count("0 FILE component-") == 3 and comps.count("0 STEP") == 3
    r = _cli("runs", "--root", str(root), "--json", cwd=tmp_path)
    runs = json.loads(r.stdout)
    assert r.returncode == 0 and runs[0]["id"] == "r1" and runs[0]["prompt"] == "two bricks"
    assert runs[0]["snapshots"][0][0] == "validate-001" and "FAILED" in runs[0]["snapshots"][0][1]
    r = _cli("runs", "show", "r", "--root", str(root), cwd=tmp_path)
    assert r.returncode == 0 and "validate-001: VALIDATE: FAILED" in r.stdout
    r = _cli("runs", "show", "zz", "--root", str(root), cwd=tmp_path)
    assert r.returncode == 2 and "no run of that name" in r.stderr


def test_eval_with_workers_gives_the_serial_results(chat_server, tmp_path):
    """Issue 20: runs at once; every per-run result equals the serial run's (the server answers by conversation)."""
    from brickwright.agent import evaluate

    def builds(n_bricks: int) -> str:
        lines = "".join(f"    b.add(Element('3001', Color.RED), (0, 0, {3 * k}))\n" for k in range(n_bricks))
        return ("from bricklayer import *\nfrom brickwright import TestContext\ndef create_build():\n"
                "    b = LegoBuild()\n" + lines + "    return b\ndef run_tests():\n"
                "    ctx = TestContext(create_build())\n    ctx.check_no_floating()\n    return ctx.report()\n")

    def reply(body: dict) -> dict:
        user = next(m["content"] for m in body["messages"] if m["role"] == "user")
        text = user if isinstance(user, str) else user[0]["text"]
        n = int(text.split()[1])  # "tower 3 ..." -> 3 bricks
        done = sum(1 for m in body["messages"] if m["role"] == "tool")
        calls = [("write_build", {"content": builds(n)}), ("validate", {}), ("finalize", {"summary": "t"})]
        if done >= len(calls):
            return {"content": "done", "tool_calls": []}
        name, args = calls[done]
        return {"content": None, "tool_calls": [(name, args)]}

    prompts = tmp_path / "prompts.txt"
    prompts.write_text("tower 1 high\ntower 2 high\ntower 3 high\n")
    rows = {}
    for workers in (1, 3):
        server = chat_server([reply] * 30)
        res = evaluate(prompts, model="gpt-4o", base_url=server.base_url, api_key="k",
                       out_dir=tmp_path / f"eval{workers}", max_calls=5, workers=workers)
        rows[workers] = [{k: r[k] for k in ("index", "prompt", "valid", "finalized", "parts", "validate_calls")}
                         for r in res.runs]
    assert rows[1] == rows[3]
    assert [r["parts"] for r in rows[1]] == [1, 2, 3] and all(r["finalized"] for r in rows[1])


def test_image_prompt_critique_loop(chat_server, tmp_path):
    """Issue 20: with --image, a critic compares renders with the reference; the agent revises; all recorded."""
    from scripted_chat import tool_turn

    from brickwright import generate

    from bricklayer.render import RenderBackendError, backend_info

    try:
        backend_info()
    except RenderBackendError as exc:
        pytest.skip(f"no offscreen OpenGL: {exc}")
    ref = tmp_path / "ref.png"
    ref.write_bytes(__import__("base64").b64decode(
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="))
    red = ("from bricklayer import *\nfrom brickwright import TestContext\ndef create_build():\n"
           "    b = LegoBuild()\n    b.add(Element('3001', Color.RED), (0, 0, 0))\n    return b\n"
           "def run_tests():\n    ctx = TestContext(create_build())\n    ctx.check_no_floating()\n"
           "    return ctx.report()\n")
    critic_seen = []

    def critic(body: dict) -> dict:
        critic_seen.append(body)
        return {"content": "- the brick is red; the reference is blue: use Color.BLUE", "tool_calls": []}

    server = chat_server([tool_turn(("write_build", {"content": red})), tool_turn(("validate", {})),
                          tool_turn(("finalize", {"summary": "a brick"})), critic,
                          tool_turn(("edit_build", {"old_text": "Color.RED", "new_text": "Color.BLUE"})),
                          tool_turn(("validate", {})), tool_turn(("finalize", {"summary": "a blue brick"}))])
    res = generate("a brick like this", image=ref, model="gpt-4o", base_url=server.base_url, api_key="k",
                   out_dir=tmp_path / "run", max_calls=10, critique_rounds=1)
    assert res.finalized and "Color.BLUE" in res.build_path.read_text()
    records = [json.loads(line) for line in res.transcript_path.read_text().splitlines()]
    crit = [r for r in records if r["type"] == "critique"]
    assert len(crit) == 1 and "reference is blue" in crit[0]["text"] and len(crit[0]["renders"]) == 2
    assert all(Path(p).read_bytes().startswith(b"\x89PNG") for p in crit[0]["renders"])
    sent = json.dumps(critic_seen[0])
    assert "tools" not in critic_seen[0] and sent.count("data:image/png;base64,") == 3  # reference + 2 renders
    assert any("Not final yet" in m for m in [json.dumps(r) for r in records if r["type"] == "request"])


def test_delegated_sub_builds_run_at_once_and_come_back_as_modules(chat_server, tmp_path):
    """Issue 20: two sub-builds handed to their own sessions in one turn; the main build imports them; the run's
    tokens are the sum over every session."""
    HEAD = "from bricklayer import *\nfrom brickwright import TestContext\n"
    TESTS = "def run_tests():\n    ctx = TestContext(create_build())\n    ctx.check_no_floating()\n" \
            "    return ctx.report()\n"
    sub = HEAD + "def create_build():\n    b = LegoBuild()\n    b.add(Element('3001', Color.{c}), (0, 0, 0))\n" \
        "    return b\n" + TESTS
    main = (HEAD + "from lower import create_build as lower_build\nfrom upper import create_build as upper_build\n"
            "def create_build():\n    b = LegoBuild()\n    b.add(lower_build(), (0, 0, 0), name='lower')\n"
            "    b.add(upper_build(), (0, 0, 3), name='upper')\n    return b\n" + TESTS)

    def reply(body: dict) -> dict:
        user = next(m["content"] for m in body["messages"] if m["role"] == "user")
        text = user if isinstance(user, str) else user[0]["text"]
        done = sum(1 for m in body["messages"] if m["role"] == "tool")
        if text.startswith("a tower"):  # the main session: both delegates in one turn (2 tool results), then on
            turns = {0: [("delegate", {"name": "lower", "request": "red brick"}),
                         ("delegate", {"name": "upper", "request": "blue brick"})],
                     2: [("write_build", {"content": main})], 3: [("validate", {})],
                     4: [("finalize", {"summary": "tower"})]}
        else:  # a sub-session
            colour = "RED" if text.startswith("red") else "BLUE"
            turns = {0: [("write_build", {"content": sub.replace("{c}", colour)})], 1: [("validate", {})],
                     2: [("finalize", {"summary": text})]}
        calls = turns.get(done)
        return {"content": None, "tool_calls": calls} if calls else {"content": "done", "tool_calls": []}

    server = chat_server([reply] * 40, prompt_tokens=1000, completion_tokens=100)
    from brickwright import generate

    res = generate("a tower of two sub-builds", model="gpt-4o", base_url=server.base_url, api_key="k",
                   out_dir=tmp_path / "run", max_calls=10)
    assert res.finalized and res.passed and res.parts == 2, res.message
    assert (res.run_dir / "lower.py").is_file() and (res.run_dir / "upper.py").is_file()
    assert (res.run_dir / "subbuilds" / "lower" / "result.json").is_file()
    assert res.prompt_tokens == 1000 * len(server.requests) and res.completion_tokens == 100 * len(server.requests)
    records = [json.loads(line) for line in res.transcript_path.read_text().splitlines()]
    assert sum(r["type"] == "delegate_result" for r in records) == 2
