"""File-editing tools, finalize rules and the price table (no model, no bricklayer needed)."""

from __future__ import annotations

import pytest

from brickwright.agent import TOOL_DEFINITIONS, ToolBox, cost_usd, price_for
from brickwright.agent.tools import format_validation


@pytest.fixture
def box(tmp_path, worker):
    b = ToolBox(tmp_path / "run", worker)
    b.run("write_build", {"content": "a = 1\nb = 2\na = 1\n"})
    return b


def test_tool_definitions_are_valid_schemas():
    for t in TOOL_DEFINITIONS:
        f = t["function"]
        assert t["type"] == "function" and f["parameters"]["type"] == "object"
        assert set(f["parameters"]["required"]) <= set(f["parameters"]["properties"])


def test_read_build_numbers_lines(box):
    assert box.run("read_build", {}).text == "1| a = 1\n2| b = 2\n3| a = 1"


def test_edit_build_exact_single_match(box):
    r = box.run("edit_build", {"old_text": "a = 1", "new_text": "a = 3"})
    assert not r.ok and "occurs 2 times" in r.text
    r = box.run("edit_build", {"old_text": "c = 1", "new_text": "x"})
    assert not r.ok and "not found" in r.text
    r = box.run("edit_build", {"old_text": "b = 2\na = 1", "new_text": "b = 5"})
    assert r.ok and "line 2" in r.text
    assert box.source == "a = 1\nb = 5\n"


def test_insert_build_at_line(box):
    assert box.run("insert_build", {"line": 2, "text": "z = 0"}).ok
    assert box.source == "a = 1\nz = 0\nb = 2\na = 1\n"
    assert box.run("insert_build", {"line": 5, "text": "end = 1\n"}).ok  # 4 lines: line 5 appends
    assert box.source.endswith("a = 1\nend = 1\n")
    r = box.run("insert_build", {"line": 9, "text": "x"})
    assert not r.ok and "outside 1..6" in r.text


def test_bad_arguments_and_unknown_tool(box):
    assert "not valid JSON" in box.run("write_build", "{oops").text
    assert box.run("write_build", {"text": "x"}).text == "Error: write_build takes content (string): missing content; unknown text."
    assert "unknown tool 'paint'" in box.run("paint", {}).text


def test_finalize_needs_passing_validate_of_unchanged_build(box):
    assert box.run("finalize", {}).text.startswith("Refused: call validate first")
    box.last_validate = {"passed": True}
    box._validated_sha = "stale"
    assert box.run("finalize", {}).text.startswith("Refused: build.py changed")


def test_render_returns_the_sheet_image(box):
    assert "no create_build" in box.run("render", {}).text
    box.run("write_build", {"content": "from bricklayer import *\n\ndef create_build():\n    b = LegoBuild()\n"
                                       "    p = b.add(Element('3031', Color.GREEN), (0, 0, 0))\n"
                                       "    b.stack(Element('3003', Color.RED), on=p)\n    return b\n"})
    r = box.run("render", {})
    if not r.ok and "rendering not available" in r.text:
        pytest.skip(r.text)
    assert r.ok, r.text
    from PIL import Image

    img = Image.open(r.image)
    assert img.size == (1200, 800) and "sheet" in r.text
    import numpy as np

    assert len(np.unique(np.asarray(img.convert("RGB")).reshape(-1, 3), axis=0)) > 10  # not a blank picture


def test_format_validation_lists_problems():
    text = format_validation({"passed": False, "fixed": {
        "parts": 3, "unique_parts": 2, "components": 2, "collisions": 0, "floating": 1,
        "problems": ["FLOATING 1 part(s) ..."], "passed": False},
        "tests": {"passed": False, "checks": [{"name": "connected(1)", "passed": False, "detail": "2 components"}]},
        "output": "hello"})
    assert text.splitlines() == [
        "VALIDATE: FAILED - 3 parts (2 distinct part ids), 2 connected component(s).",
        "- FLOATING 1 part(s) ...", "- test connected(1) failed: 2 components", "run_tests: 0/1 checks passed.",
        "Printed output:", "hello"]


def test_prices():
    # OpenAI list prices per 1M tokens: gpt-4o 2.50 in / 10.00 out; dated snapshots match the family
    assert price_for("gpt-4o-2024-08-06") == (2.50, 10.00)
    assert price_for("gpt-4o-mini") == (0.15, 0.60)
    assert price_for("qwen2.5-coder:7b") is None
    assert cost_usd("gpt-4o", 1_000_000, 100_000) == pytest.approx(3.5)
    assert cost_usd("llama3", 10**6, 10**6) == 0.0


def test_anthropic_message_conversion():
    from brickwright.agent.providers import AnthropicProvider

    msgs = [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": [{"type": "text", "text": "look"},
                                     {"type": "image_url", "image_url": {"url": "data:image/png;base64,QUJD"}}]},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "validate", "arguments": "{}"}},
            {"id": "c2", "type": "function", "function": {"name": "explore", "arguments": '{"code": "1"}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "VALIDATE: PASSED"},
        {"role": "tool", "tool_call_id": "c2", "content": "1"},
    ]
    system, conv = AnthropicProvider._convert(msgs)
    assert system == "sys"
    assert [m["role"] for m in conv] == ["user", "assistant", "user"]
    assert conv[0]["content"][1] == {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                                 "data": "QUJD"}}
    assert conv[1]["content"][1] == {"type": "tool_use", "id": "c2", "name": "explore", "input": {"code": "1"}}
    # both tool results go back in one user message (Anthropic requires alternating roles)
    assert [b["tool_use_id"] for b in conv[2]["content"]] == ["c1", "c2"]


def test_explore_shows_the_snippet_output_even_when_build_py_prints_a_lot(box):
    box.run("write_build", {"content": "from bricklayer import *\n\ndef create_build():\n"
                                       "    print('x' * 50000)\n    return LegoBuild()\n"})
    r = box.run("explore", {"code": "print('alive')"})
    assert "alive" in r.text and "xxxxx" not in r.text


def test_explore_with_a_failing_build_py_says_why_build_is_none(box):
    """A played run: build.py raised, the snippet used ``build`` and got a second, puzzling error; the hint
    names the first cause (build.py failed) instead."""
    box.run("write_build", {"content": "from bricklayer import *\n\ndef create_build():\n"
                                       "    raise ValueError('no such connector')\n"})
    r = box.run("explore", {"code": "len(build.placements)"})
    assert "build.py failed" in r.text and "no such connector" in r.text
    assert "Hint: `build` is None in this snippet: build.py failed (see above)" in r.text
    # a snippet that does not use `build` still runs
    assert "42" in box.run("explore", {"code": "print(6 * 7)"}).text


HINGE_BUILD = '''from bricklayer import *
from brickwright import TestContext


def create_build():
    build = LegoBuild()
    build.add(Element("3937", Color.LIGHT_GREY), (0, 0, 0))
    top = Element("3938", Color.LIGHT_GREY)
    build.connect(top, top.find_connector("hinge_brick_top"), build.find_connector("hinge_brick_base"),
                  away=True, motion=MotionRange(Revolute(0), Revolute(90)), name="lid")
    return build


def run_tests():
    ctx = TestContext(create_build())
    ctx.check_no_floating()
    ctx.check_motion()
    return ctx.report()
'''


def test_passing_validate_says_what_the_motion_check_covered(box):
    """A played run spent a posed render to learn whether check_motion moved its drawbridge: a passing
    validate now prints each passing check's detail (the hinge: one joint named "lid", its sampled poses)."""
    box.run("write_build", {"content": HINGE_BUILD})
    text = box.run("validate", {}).text
    first, *rest = text.splitlines()
    assert first.startswith("VALIDATE: PASSED - 2 parts (2 distinct part ids)")
    assert any(ln.startswith("- motion: 1 joint(s), ") and ln.endswith(" poses: lid") for ln in rest), text


CITED = '''\
from bricklayer import *
from brickwright import TestContext


def wing():
    w = LegoBuild()
    w.add(Element("3023", Color.BLUE), (0, 0, 3))
    w.add(Element("3023", Color.BLUE), (0, 0, 3))
    return w


def create_build():
    b = LegoBuild()
    b.add(Element("3001", Color.RED), (0, 0, 0))
    b.add(Element("3003", Color.RED), (0, 0, 0))
    b.add(Element("3003", Color.RED), (0, 0, 0))
    b.add(wing(), (4, 0, 0))
    return b


def run_tests():
    return TestContext(create_build()).report()
'''


def test_validate_cites_the_build_py_line_that_placed_each_part(box):
    """Break-it s25 F12: problems name build.py lines (14-17 add the parts; 7 and 8 the wing's plates, the wing
    placed on line 17), not the placement indexes #0..#3."""
    box.run("write_build", {"content": CITED})
    text = box.run("validate", {}).text
    assert ("- DUPLICATE build.py:16: 3003 (Brick 2 x 2, Color.RED) at grid (0, 0, 0) is placed again at the same "
            "pose as [build.py:15]") in text
    assert "- DUPLICATE build.py:17/:8: 3023 (Plate 1 x 2, Color.BLUE)" in text and "as [build.py:7]" in text
    assert ("- COLLISION build.py:14: 3001 (Brick 2 x 4, Color.RED) at grid (0, 0, 0) <-> build.py:15: 3003 "
            "(Brick 2 x 2, Color.RED)") in text
    assert "#1" not in text and "#0" not in text
