"""Overlaps within the clearance plus rounding are not collisions (audit round 5, issue 16).

``shared/docs/validator-notes.md``: the 0.25 LDU inset leaves 0.5 LDU of clearance between touching
parts, "a shift of 0.6 LDU into a neighbour is then the smallest that shows". Official files write
rotated coordinates with 3-4 decimals, so parts meant to touch are drawn up to about 0.1 LDU deeper
than the clearance. A pair without a press-fit allowance is reported only when it overlaps by more than
0.6 LDU (``bricklayer.validate.press_fit.ROUNDING_MARGIN``). Complete LDraw snippets (-Y up, LDU), cut
from the official models where the audit (``benchmarks/validator_audit.md``, round 5) measured the
overlap with its own mesh reader and winding numbers:

- 10029 Lunar Lander, lines 100 and 313: thick beam 32523 and half beam 2825, face to face with the
  half beam turned 5 degrees (matrix entries 0.0872 / 0.9962 / 0.9968); drawn 0.503 LDU into each other;
- 10182 Cafe Corner, lines 2232 and 2636: round brick 3062b (radius 10) beside plate 3020 drawn at
  x = 0.563, z = -100.416 (off the 10 LDU grid): the round side 0.563 LDU into the plate's edge.

Moved 0.5 LDU further into each other, both pairs are collisions again, with the line of each part.
"""

from __future__ import annotations

from bricklayer import from_ldraw
from brickwright.validation import validation_report

# 10029 lines 100 / 313, both moved by (-972, 78, -201)
_BEAM = "1 7 0 0 0 0 0 -1 -1 0 0 0 1 0 32523.dat\n"
_HALF_BEAM = "1 7 19.6709 -0.3323 {z} 0.0872 0 0.9968 -0.9962 0 0.0872 0 -1 0 2825.dat\n"
# 10182 lines 2232 / 2636, both moved by (-30, 440, 130)
_ROUND = "1 1 0 0 0 0 0 -1 0 1 0 1 0 0 3062b.dat\n"
_PLATE = "1 1 {x} 0 29.584 0 0 -1 0 1 0 1 0 0 3020.dat\n"


def _collisions(text: str) -> list[tuple[int, int, float]]:
    rep = validation_report(from_ldraw(text))
    return [(c["a"]["line"], c["b"]["line"], c["interference_ldu"]) for c in rep["collisions"]]


def test_beams_drawn_half_a_ldu_into_each_other_by_rounding_are_not_a_collision():
    assert _collisions(_BEAM + _HALF_BEAM.format(z=19.4973)) == []


def test_beams_pushed_half_a_ldu_further_collide():
    got = _collisions(_BEAM + _HALF_BEAM.format(z=18.9973))  # overlap 1.003 LDU
    assert [(a, b) for a, b, _ in got] == [(1, 2)]
    assert got[0][2] >= 0.6


def test_round_brick_0_56_ldu_into_a_plate_edge_at_off_grid_coordinates_is_not_a_collision():
    assert _collisions(_ROUND + _PLATE.format(x=-29.437)) == []


def test_round_brick_1_06_ldu_into_a_plate_edge_collides():
    got = _collisions(_ROUND + _PLATE.format(x=-28.937))
    assert [(a, b) for a, b, _ in got] == [(1, 2)]


def test_bricks_side_by_side_half_a_ldu_into_each_other_are_not_a_collision():
    # two 1 x 2 bricks (40 x 24 x 20 LDU) 39.5 LDU apart along x: 0.5 LDU overlap, the clearance exactly
    assert _collisions("1 4 0 0 0 1 0 0 0 1 0 0 0 1 3004.dat\n1 4 39.5 0 0 1 0 0 0 1 0 0 0 1 3004.dat\n") == []


def test_bricks_side_by_side_one_ldu_into_each_other_collide():
    got = _collisions("1 4 0 0 0 1 0 0 0 1 0 0 0 1 3004.dat\n1 4 39 0 0 1 0 0 0 1 0 0 0 1 3004.dat\n")
    assert got == [(1, 2, 1.0)]
