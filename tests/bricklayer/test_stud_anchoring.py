"""Parts whose alignment box is larger than their studs land with their studs on the cells named
(issue 17 played runs: leafy plate 32607 in the giraffe, crane hook plate 3127a in the tugboat)."""

from __future__ import annotations

import numpy as np
import pytest

from bricklayer import Color, Element, LegoBuild, Rotation


def _stud_xy(placement) -> list[tuple[float, float]]:
    return sorted((round(c.position.x, 3), round(c.position.y, 3)) for c in placement.connectors
                  if c.type in ("stud", "open_stud"))


def test_stud_footprint_of_parts_that_overhang_their_studs():
    # 3127a: two studs 20 LDU apart (a 1 x 2 plate), the hook and a tongue reach past them: box 90 LDU long
    hook = Element("3127a")
    assert hook.alignment_box.width == pytest.approx(90)
    fp = hook.stud_footprint
    assert (fp.width, fp.depth, fp.height) == pytest.approx((40, 20, 8))
    # 32607: one stud, leaves over a 2 x 2 box
    leaf = Element("32607")
    assert (leaf.alignment_box.width, leaf.alignment_box.depth) == pytest.approx((40, 40))
    assert (leaf.stud_footprint.width, leaf.stud_footprint.depth) == pytest.approx((20, 20))
    # an ordinary brick: the same box
    assert Element("3001").stud_footprint == Element("3001").alignment_box


@pytest.mark.parametrize("rotation", [Rotation.DEG_0, Rotation.DEG_180])
def test_crane_hook_plate_stacked_on_a_1x2_plate_sits_on_both_studs(rotation):
    b = LegoBuild()
    base = b.add(Element("3023", Color.YELLOW), (0, 0, 0))  # plate 1 x 2 along x: studs at x 10, 30
    hook = b.stack(Element("3127a", Color.BLACK), on=base, rotation=rotation)
    assert _stud_xy(hook) == [(10, 10), (30, 10)]
    assert hook.alignment_box.min.z == pytest.approx(8)
    assert b.is_valid() and b.num_connected_components == 1


@pytest.mark.parametrize("rotation", [Rotation.DEG_0, Rotation.DEG_90, Rotation.DEG_180, Rotation.DEG_270])
def test_leafy_plate_stacked_on_a_plate_puts_its_stud_on_the_cell_named(rotation):
    b = LegoBuild()
    base = b.add(Element("3020", Color.GREEN), (0, 0, 0))  # plate 2 x 4: x 0..80, y 0..40 LDU
    leaf = b.stack(Element("32607", Color.BRIGHT_GREEN), on=base, offset=(1, 0, 0), rotation=rotation)
    assert _stud_xy(leaf) == [(30, 10)]  # cell (1, 0): centre 30, 10 LDU
    assert b.is_valid() and b.num_connected_components == 1


def test_add_moves_a_half_stud_overhang_onto_stud_cells():
    # turned 180 degrees, 3127a's box reaches 1.5 studs past its studs on the minimum side: placed by its
    # box corner, the studs were at x 60 and 80 LDU, on cell edges; now on the cells toward the anchor
    b = LegoBuild()
    b.add(Element("3020", Color.RED), (0, 0, 0))
    hook = b.add(Element("3127a", Color.BLACK), (1, 0, 1), rotation=Rotation.DEG_180)
    xs = [x for x, _ in _stud_xy(hook)]
    assert xs == [50, 70]
    assert np.allclose(np.mod(xs, 20), 10)
    assert b.num_connected_components == 1


def test_add_keeps_placing_by_the_alignment_box():
    # the box corner of 32607 goes to the position; its stud is on the cell behind it (documented in add())
    b = LegoBuild()
    b.add(Element("3020", Color.GREEN), (0, 0, 0))
    leaf = b.add(Element("32607", Color.BRIGHT_GREEN), (0, 0, 1))
    assert leaf.alignment_box.min.x == pytest.approx(0) and leaf.alignment_box.min.y == pytest.approx(0)
    assert _stud_xy(leaf) == [(10, 30)]


def test_element_color_compares_with_color_members_and_codes():
    # issue 17 played runs (firetruck, giraffe): how Element.color compares with Color members
    from bricklayer.color import as_color

    c = Element("3001", Color.RED).color
    assert c == Color.RED and c == 4 and Color.RED == 4
    assert c.code == 4 and c.value == 4 and Color.RED.code == 4 and Color.RED.value == 4
    assert c.name == "RED" and {Color.RED: "x"}[c] == "x"
    assert c != "red" and c == as_color("red")
    assert Element("3001", 4).color == Element("3001", "red").color == Color.RED
