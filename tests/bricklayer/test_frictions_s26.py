"""Frictions found by played agent runs and the s25 break-it tester: the colour a flat placement is drawn in,
the candidates of an ambiguous connector query, and which corner each Anchor names. Real library parts and
real official models."""

import numpy as np
import pytest

from bricklayer import Color, Element, LegoBuild, Pose
from bricklayer.io import read_ldraw


def test_a_flat_placement_gives_the_colour_the_part_is_drawn_in(official_dir):
    # 10156 LEGO Truck: main.ldr line 12 places "10156 - truck.ldr" in colour 14 (yellow); inside it,
    # line 32 places 2436A in colour 16 (main colour: drawn yellow), line 27 places 2465 in colour 0 (black)
    b = read_ldraw(official_dir / "10156_1_LEGO_Truck.mpd")
    truck = next(p for p in b.placements if p.element is None and p.content.name == "10156 - truck.ldr")
    assert truck.color == 14
    by_line = {f.leaf.origin[1]: f for f in b.flattened_placements if f.path[0] is truck}
    assert by_line[32].leaf.content.color == 16  # as written in the sub-build
    assert by_line[32].color == 14 and by_line[32].color == Color.YELLOW
    assert by_line[27].color == 0
    assert len(by_line) == 101  # every part of the truck, nested ones too
    assert sum(1 for f in by_line.values() if f.color == 14) == 49  # its 49 colour-16 lines


def test_a_flat_placement_of_an_element_added_directly_gives_its_colour():
    b = LegoBuild()
    b.add(Element("3001", Color.RED), (0, 0, 0))
    sub = LegoBuild(name="sub")
    sub.add(Element("3003", 16), (0, 0, 0))
    b.add_raw(sub, Pose(np.eye(3), (0, -24, 0)), color=Color.BLUE)  # a sub-build placed in blue
    b.add(sub.copy(), (0, 0, 3))  # no colour above: the main colour stays 16
    red, blue, main = b.flattened_placements
    assert red.color == 4 and blue.color == 1 and main.color == 16
    assert [p.color for p in b.placements[:1]] == [None]  # an element placement carries no colour itself


def test_an_ambiguous_connector_query_lists_the_candidates_and_how_to_pick_one():
    # cone 4589: the "antistud" query group takes its tube (index 3, at the bottom face z = 0, axis +z) and its
    # anti-stud (index 5, 6 LDU up inside the cone, axis -z) -- BrickNet labels of the part
    cone = Element("4589", Color.WHITE)
    with pytest.raises(ValueError) as err:
        cone.find_connector("antistud")
    msg = str(err.value)
    assert msg.startswith("2 connectors match find_connector('antistud')")
    assert "[0] index 3: tube at (0, 0, 0) LDU, axis +z, bottom" in msg
    assert "[1] index 5: antistud at (0, 0, 6) LDU, axis -z, bottom" in msg
    assert "toward=" in msg and "facing=" in msg and "find_connectors(...)[i]" in msg
    # each way the message offers picks one of them
    assert cone.find_connector("antistud", facing=(0, 0, -1)).index == 5
    assert cone.find_connector("antistud", toward=(0, 0, 6)).index == 5
    assert cone.find_connectors("antistud")[0].index == 3


def test_an_ambiguous_query_on_a_build_names_the_part_and_cuts_a_long_list():
    b = LegoBuild()
    b.add(Element("3001", Color.RED), (0, 0, 0))  # brick 2 x 4: 8 studs at z = 24 LDU
    b.add(Element("3001", Color.RED), (0, 2, 0))  # 8 more behind it (y + 40 LDU)
    with pytest.raises(ValueError) as err:
        b.find_connector("stud")
    msg = str(err.value)
    assert msg.startswith("16 connectors match")
    assert "[0] index 11 on 3001: stud at (10, 10, 24) LDU, axis +z, top" in msg
    assert "[8]" not in msg and "... and 8 more" in msg


# Anchor -> LDraw corner of a 3001 added at (0, 0, 0), as written by to_ldraw: the part's LDraw origin is the
# centre of its top face (X 40, Y -24, Z 20), so the box is LDraw X 0..80, Y -24..0 (-Y up), Z 0..40.
_ANCHOR_LDRAW = {"FRONT_RIGHT": (0, 0, 0), "FRONT_LEFT": (80, 0, 0), "BACK_RIGHT": (0, 0, 40),
                 "BACK_LEFT": (80, 0, 40), "FRONT": (40, 0, 0), "BACK": (40, 0, 40), "RIGHT": (0, 0, 20),
                 "LEFT": (80, 0, 20), "CENTER": (40, 0, 20)}


@pytest.mark.parametrize("name", sorted(_ANCHOR_LDRAW))
def test_each_anchor_is_the_ldraw_corner_its_docstring_and_the_api_reference_state(name):
    from bricklayer import Anchor, api_reference
    from bricklayer.io import to_ldraw

    b = LegoBuild()
    b.add(Element("3001", Color.RED), (0, 0, 0))
    line = next(ln for ln in to_ldraw(b).splitlines() if ln.startswith("1 "))
    assert line.split()[2:5] == ["40", "-24", "20"]  # the written brick: LDraw X 0..80, Y -24..0, Z 0..40
    x, y, z = Anchor[name].point(b.placements[0].alignment_box)  # BrickLayer frame
    assert (x, -z, y) == _ANCHOR_LDRAW[name]  # BrickLayer (x, y, z) is LDraw (x, -z, y)
    ref = api_reference()
    table = ref[ref.index("## class Anchor"):ref.index("\n## ", ref.index("## class Anchor") + 1)]
    row = next(r for r in table.splitlines() if r.strip().startswith(name + " "))
    assert row.rstrip().endswith("({}, {}, {})".format(*_ANCHOR_LDRAW[name]))
