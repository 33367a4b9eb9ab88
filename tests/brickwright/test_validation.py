"""The validation report: only catalog parts are valid (README, issue #4)."""

from __future__ import annotations

from bricklayer import from_ldraw
from brickwright.validation import validation_report


def _report(text: str) -> dict:
    return validation_report(from_ldraw(text), source="t.ldr")


def test_unknown_part_makes_the_build_not_valid_and_grounds_nothing_far_away():
    # a brick hangs 500 LDU up; an unknown part 5,000 LDU away at its height must not hold it
    r = _report("1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n"
                "1 4 5000 -500 5000 1 0 0 0 1 0 0 0 1 nosuchpart.dat\n"
                "1 4 0 -524 0 1 0 0 0 1 0 0 0 1 3001.dat\n")
    assert not r["valid"]
    assert [d["part_id"] for d in r["unknown_parts"]] == ["nosuchpart"]
    assert [d["line"] for d in r["floating"]] == [3]


def test_a_model_of_only_a_missing_part_is_not_valid():
    r = _report("1 4 0 0 0 1 0 0 0 1 0 0 0 1 nosuchpart.dat\n")
    assert not r["valid"] and len(r["unknown_parts"]) == 1


def test_subparts_and_primitives_placed_as_parts_are_not_parts():
    r = _report("1 4 0 0 0 1 0 0 0 1 0 0 0 1 s/3001s01.dat\n1 4 0 -30 0 1 0 0 0 1 0 0 0 1 4-4cyli.dat\n")
    assert not r["valid"]
    assert [d["part_id"] for d in r["not_parts"]] == ["s/3001s01", "4-4cyli"]


def test_a_scaled_brick_is_not_valid_but_a_rounded_rotation_is():
    r = _report("1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n1 4 0 -24 0 2 0 0 0 2 0 0 0 2 3001.dat\n")
    assert not r["valid"] and [d["line"] for d in r["scaled"]] == [2]
    # official files round rotation matrices to 3-4 decimals: 0.7071 is a rotation, not a scale
    r = _report("1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n"
                "1 4 0 -24 0 0.7071 0 0.7071 0 1 0 -0.7071 0 0.7071 3001.dat\n")
    assert r["scaled"] == []


def test_unreadable_part_lines_make_the_build_not_valid():
    # line 2: 13 of 15 fields; line 3: a word for a coordinate; line 4: nan (LDraw spec: 15 fields, numbers)
    text = ("1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n"
            "1 4 0 -24 0 1 0 0 0 1 0 0 0\n"
            "1 4 0 -24 x 1 0 0 0 1 0 0 0 1 3001.dat\n"
            "1 4 0 nan 0 1 0 0 0 1 0 0 0 1 3001.dat\n")
    r = validation_report(from_ldraw(text, source="t.ldr"), source="t.ldr")
    assert not r["valid"] and r["parts"] == 1
    assert [(u["file"], u["line"]) for u in r["unreadable_lines"]] == [("t.ldr", 2), ("t.ldr", 3), ("t.ldr", 4)]
    assert "UNREADABLE PART LINE t.ldr:2: type-1 line has 13 fields, needs 15" in r["text"]
    assert "(15 fields, finite numbers" in r["text"] and "-> NOT VALID" in r["text"]
    # the same brick written out in full is valid
    r = _report("1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n")
    assert r["valid"] and r["unreadable_lines"] == []


def _floating_line(report: dict, name: str) -> str:
    return next(p for p in report["problems"] if p.startswith(f"FLOATING {name}:"))


def test_floating_part_with_nothing_under_it_names_the_nearest_part_below():
    # issue 17 played runs (giraffe, tugboat): plate(6, 10) runs 10 studs along x, so a part put at y 8
    # has nothing under it; the report says so and gives the plate's extent instead of "bridge it"
    from bricklayer import Color, Element, LegoBuild, plate

    b = LegoBuild()
    b.add(plate(6, 10, Color.GREEN), (0, 0, 0), name="base")
    b.add(Element("3005", Color.RED), (0, 8, 1), name="tuft")
    r = validation_report(b)
    line = _floating_line(r, "tuft")
    assert ("nothing lies under its footprint (x 0..1, y 8..9 studs); the nearest part below is base: 3033 "
            "(Plate 6 x 10) spanning x 0..10, y 0..6 studs, top at z 1 plate") in line
    assert r["floating"][0]["below"] in line
    comp = r["problems"][r["problems"].index(next(p for p in r["problems"] if p.startswith("COMPONENT 2"))) + 1]
    assert comp.strip().startswith("it touches nothing of the rest; nothing lies under its footprint")


def test_floating_part_above_a_part_says_how_far_and_how_far_off_its_studs():
    from bricklayer import Color, Element, LegoBuild, Pose

    b = LegoBuild()
    b.add(Element("3020", Color.GREEN), (0, 0, 0), name="base")  # plate 2 x 4, top at z 8 LDU
    # a 1 x 1 brick 16 LDU (2 plates) above the plate, its anti-stud at x 20: half a stud off the studs at 10, 30
    b.add_raw(Element("3005", Color.RED), Pose(None, (20, 10, 24)), name="lifted")
    line = _floating_line(validation_report(b), "lifted")
    assert ("it hangs 16 LDU (2 plates) above base: 3020 (Plate 2 x 4), whose top is at z 1 plate, and its "
            "anti-studs are off that part's studs by (-10, 0) LDU") in line


def test_floating_part_over_a_floating_part_says_the_lower_one_floats_too():
    from bricklayer import Color, Element, LegoBuild

    b = LegoBuild()
    b.add(Element("3020", Color.GREEN), (0, 0, 0), name="base")
    b.add(Element("3020", Color.BLUE), (0, 0, 3), name="mid")   # 2 plates above the base
    b.add(Element("3005", Color.RED), (0, 0, 6), name="top")    # 2 plates above mid
    line = _floating_line(validation_report(b), "top")
    assert "it lies over mid: 3020 (Plate 2 x 4), which is not held up either" in line



def test_collisions_in_both_instances_of_a_submodel_cite_each_instance():
    # sub.ldr (one 2x4 brick, x -40..40, z -20..20 LDU) placed at x = 0 and x = 200 on the ground; a 1x2
    # brick (z -10..10) drawn at z = 28 beside each, 2 LDU into its side (z 18..38 against ..20). Both
    # instances share one part line: each pair must name its own instance by the lines that place it (the
    # reference on line 2 then the part on line 8 at grid x = -2 studs, -40 / 20; line 3 then line 8 at
    # x = 8, 160 / 20), not the description of the other one.
    text = """0 FILE main.ldr
1 4 0 0 0 1 0 0 0 1 0 0 0 1 sub.ldr
1 4 200 0 0 1 0 0 0 1 0 0 0 1 sub.ldr
1 1 -8 0 28 1 0 0 0 1 0 0 0 1 3004.dat
1 1 192 0 28 1 0 0 0 1 0 0 0 1 3004.dat
0 NOFILE
0 FILE sub.ldr
1 16 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat
0 NOFILE
"""
    rep = validation_report(from_ldraw(text))
    got = sorted((d["label"].split(": ")[0], d["grid"][0]) for c in rep["collisions"] for d in (c["a"], c["b"])
                 if d["part_id"] == "3001")
    assert got == [("<text>:2/:8", -2), ("<text>:3/:8", 8)]


def test_a_scaled_part_in_mid_air_is_named_once_as_scaled():
    # a 2x4 brick on the ground and one scaled x2 drawn 200 LDU above it (6969 Celestial Stinger draws its
    # wing 30231 scaled x2, file lines 172 and 210): its drawn shape is not the part's, so it is listed as
    # scaled and not again as floating (one defect, one message); the build stays not valid
    text = ("1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n"
            "1 4 0 -200 0 2 0 0 0 2 0 0 0 2 3001.dat\n")
    rep = validation_report(from_ldraw(text))
    assert [d["line"] for d in rep["scaled"]] == [2]
    assert rep["floating"] == []
    assert not rep["valid"]


# ------------------------------------------------------------------ one report, one definition of valid (issue 19)
_KEYS = ["source", "valid", "parts", "unique_parts", "unique_elements", "collisions", "unexamined_pairs",
         "floating", "components", "component_sizes", "unknown_parts", "not_parts", "scaled", "unreadable_lines",
         "below_ground", "unseated", "mirrored", "duplicates", "out_of_range", "shadowed_files", "problems",
         "text"]


def test_the_cli_report_is_the_one_report_as_json():
    from brickwright.validation import report_of

    # a 2 x 4 brick drawn 10 LDU into another (24 LDU high: 14 LDU apart), and a 2 x 2 brick 200 LDU up
    text = ("1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n1 4 0 -10 0 1 0 0 0 1 0 0 0 1 3001.dat\n"
            "1 14 0 -200 0 1 0 0 0 1 0 0 0 1 3003.dat\n")
    rep = report_of(from_ldraw(text), source="t.ldr")
    d = _report(text)
    assert d == rep.to_dict() and list(d) == _KEYS  # today's keys in today's order
    assert (rep.valid, rep.parts, len(rep.collisions), len(rep.floating)) == (False, 3, 1, 1)
    assert d["text"].splitlines()[0] == ("t.ldr: 3 parts, 1 colliding pair, 1 floating, 3 connected component(s)"
                                         " -> NOT VALID")


def test_valid_has_one_definition_over_the_findings():
    from bricklayer.validate.report import INVALIDATING_FINDINGS, ValidationReport

    ok = ValidationReport(source="t", summary="t: 1 parts", parts=1, components=1)
    assert ok.valid and ok.text == "t: 1 parts -> VALID"
    for name in INVALIDATING_FINDINGS:
        assert not ValidationReport(parts=1, components=1, **{name: [{"part_id": "3001"}]}).valid, name
    assert not ValidationReport(parts=1, unexamined_pairs=3).valid
    assert not ValidationReport(parts=0).valid  # an empty build is not a model
    assert not ValidationReport(parts=2, components=2, expected_components=1).valid
    # unchecked findings (None) are not in the JSON; a verdict read back is recomputed, never copied
    assert "embedded_parts" not in ok.to_dict()
    back = ValidationReport.from_dict({**ok.to_dict(), "valid": False})
    assert back.valid and back.summary == "t: 1 parts"


def test_judge_cli_and_inventory_check_share_the_verdict(tmp_path):
    from bricklayer.inventory import Inventory
    from brickwright.agent.judge import judge_ldraw
    from brickwright.validation import add_inventory_check

    text = "1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n1 4 0 -24 0 1 0 0 0 1 0 0 0 1 3001.dat\n"  # two stacked 2 x 4
    cli = _report(text)
    verdict = judge_ldraw(text, source="t.ldr")
    assert cli["valid"] and verdict["passed"] and verdict["report"]["valid"]
    assert verdict["report"]["text"] == cli["text"]
    inv = Inventory.from_json({"source": "one.csv", "rows": [["3001", 4, 1]]})  # one red 2 x 4 brick
    over = add_inventory_check(cli, from_ldraw(text), inv)
    assert [(o["part_id"], o["used"], o["available"]) for o in over] == [("3001", 2, 1)]
    assert not cli["valid"] and cli["text"].splitlines()[0].endswith("-> NOT VALID")
    assert cli["problems"][-1].startswith("  try: use only parts")
    # an embedded part file: the judge's report is not valid, by the same property
    mpd = ("0 FILE main.ldr\n1 4 0 0 0 1 0 0 0 1 0 0 0 1 mine.dat\n0 FILE mine.dat\n"
           "3 16 0 0 0 10 0 0 0 0 10\n")
    emb = judge_ldraw(mpd, source="t.mpd")
    assert not emb["passed"] and emb["embedded_parts"] == ["mine.dat"]


def test_many_floating_parts_list_eight_lines_and_count_the_rest():
    """The FLOATING section writes the lines of the first MAX_LISTED (8) floating parts only, then "... and N
    more floating parts" and the hint; every floating part is still a row of ``floating``. Ten 1 x 1 bricks
    in a row 5 studs above a 6 x 10 plate (its top at z 1 plate, the bricks at z 6): none touches anything."""
    from bricklayer import Color, Element, LegoBuild, plate

    b = LegoBuild()
    b.add(plate(6, 10, Color.GREEN), (0, 0, 0), name="base")
    for k in range(10):
        b.add(Element("3005", Color.RED), (k, 0, 6), name=f"b{k}")
    r = validation_report(b)
    assert len(r["floating"]) == 10
    lines = [p for p in r["problems"] if p.startswith("FLOATING ")]
    assert [line.split(":")[0] for line in lines] == [f"FLOATING b{k}" for k in range(8)]
    at = r["problems"].index(lines[-1])
    assert r["problems"][at + 1] == "... and 2 more floating parts"
    assert r["problems"][at + 2].startswith("  try: rest it on studs of a supported part")


def test_an_mpd_block_named_like_a_library_part_leaves_the_library_part_its_connectors():
    """A model with ``0 FILE 3001.dat`` (an embedded part of one triangle, no connectors) validated first made
    the library 3001 connector-less for the rest of the process: its connector arrays were cached by Element,
    and an embedded 3001 equals the library one in the same colour. Two stacked 2 x 4 then came out as two
    components ("whose top has no studs"), which failed test_judge_cli_and_inventory_check_share_the_verdict
    after tests/test_cli_hostile_inputs.py."""
    shadow = ("0 FILE main.ldr\n1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n1 1 10 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n"
              "0 FILE 3001.dat\n0 Brick  2 x  4\n3 16 0 0 0 1 0 0 0 0 1\n")
    assert not _report(shadow)["valid"]
    r = _report("1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n1 4 0 -24 0 1 0 0 0 1 0 0 0 1 3001.dat\n")
    assert r["valid"] and r["components"] == 1
    assert r["text"] == "t.ldr: 2 parts, 0 colliding pairs, 0 floating, 1 connected component(s) -> VALID"
