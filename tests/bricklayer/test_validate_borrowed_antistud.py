"""A stud seats at the mouth the part draws, also when its labels are borrowed (audit round 7, F12-F13).

10179 Millennium Falcon, sub-model "10179 - subModel-84.ldr" (lines 2923-2924, and the mirror copy at 2966-2967):
handles 6190 ("Bar 1 x 3") clipped on the side studs of two bricks 52107 ("Brick 1 x 2 with Studs on Sides",
lines 2904 and 2912). 6190.dat draws each end as a tube ``stud4a.dat`` scaled 2 in y: 8 LDU deep, mouth at
y = 8 (its LDCad row is there). BrickNet has no labels of its own for 6190 and lends 6190a's ("Bar 1 x 3 with
Stud Connectors", tubes scaled 1.5: mouth and label at y = 6), so the side studs, whose bases the set puts at
the mouths, were "2 LDU off" and the handles were reported floating. Read with the audit's own LDraw reader:
in the handle's frame the studs' bases are at (-20, 8, 0) and (20, 8, 0), axis into the tubes.
"""

from __future__ import annotations

from bricklayer import from_ldraw, read_ldraw
from brickwright.validation import validation_report
from ldraw_data.connectors import part_connectors

_MODEL = "10179_1_Millennium_Falcon_UCS.mpd"
#: the two bricks and the handle of lines 2904, 2912 and 2924, as the sub-model draws them
_BRICK_A = "1 0 0 -24 -10 0 0 -1 0 1 0 1 0 0 52107.dat"
_BRICK_B = "1 0 0 -64 -10 0 0 -1 0 1 0 1 0 0 52107.dat"
_HANDLE = "1 72 18 -34 0 0 -1 0 -1 0 0 0 0 -1 6190.dat"
_LINES = {2904: _BRICK_A, 2912: _BRICK_B, 2924: _HANDLE}


def _tube_positions(part: str, sources=None) -> list[list[float]]:
    conns = part_connectors(part) if sources is None else part_connectors(part, sources=sources)
    return sorted(c.position.round(3).tolist() for c in conns if c.type == "tube")


def test_borrowed_tube_label_moves_to_the_mouth_the_part_draws():
    assert _tube_positions("6190") == [[-20.0, 8.0, 0.0], [20.0, 8.0, 0.0]]
    # BrickNet's own rows are unchanged (6190a's, at 6190a's mouths), and so is 6190a, whose labels they are
    assert _tube_positions("6190", ("bricknet",)) == [[-20.0, 6.0, 0.0], [20.0, 6.0, 0.0]]
    assert _tube_positions("6190a") == [[-20.0, 6.0, 0.0], [20.0, 6.0, 0.0]]


def test_label_two_ldu_inside_an_obsolete_leg_moves_to_its_foot():
    # obsolete robot leg 30362 borrows 30362a's labels; its own foot is drawn 2 LDU lower (y = 48, not 46)
    feet = sorted(c.position.round(3).tolist() for c in part_connectors("30362") if c.type == "antistud")
    assert feet == [[-10.0, 48.0, 10.0], [10.0, 48.0, 10.0]]


def test_handle_on_the_side_studs_of_two_bricks_is_one_component():
    assert from_ldraw("\n".join([_BRICK_A, _BRICK_B, _HANDLE]) + "\n").num_connected_components == 1


def test_handle_pulled_2_ldu_off_the_side_studs_is_not_joined():
    # the tubes open towards the bricks (the handle's +y is the model's -x): +2 LDU in x pulls them off
    pulled = _HANDLE.replace(" 18 -34 0 ", " 20 -34 0 ")
    assert from_ldraw("\n".join([_BRICK_A, _BRICK_B, pulled]) + "\n").num_connected_components == 3


def test_millennium_falcon_handles_are_not_floating(official_dir):
    lines = (official_dir / _MODEL).read_text(encoding="utf-8").splitlines()
    for no, text in _LINES.items():
        assert lines[no - 1].strip() == text  # the culprit lines, as the audit cites them
    rep = validation_report(read_ldraw(official_dir / _MODEL))
    floating = {(d["part_id"], d["line"]) for d in rep["floating"]}
    assert not floating & {("6190", 2923), ("6190", 2924), ("6190", 2966), ("6190", 2967)}
    # what stays floating is the rest of round 7's list (cones, pins, taps and dishes drawn off their seats)
    assert {pid for pid, _ in floating} == {"4589", "2780", "4274", "75535", "4599a", "4740", "4285a"}
