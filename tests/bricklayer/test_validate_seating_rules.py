"""Connector rules from the fourth audit round (issue 16, ``benchmarks/validator_audit.md``, round 4).

Complete LDraw snippets (LDraw frame, -Y up, LDU), cut from the official models where the audit found
parts joined by studs reported floating:

- a long stud seats by its base: the ringed end of lightsaber hilt 577b is an open stud drawn 1.25 times
  as long (``stud2a.dat`` scaled -1.25 at y = 31, so its base is at y = 31 and its tip at y = 36, read
  from 577b.dat); 10224 Town Hall (lamp posts, sub-model "10224 - L0 S45.ldr", lines 1380-1381) puts a
  1 x 1 brick (bottom face at its y = 24) on that end with the brick's bottom on the stud's base;
- a printed MPD-embedded copy takes its unprinted base part's connectors: 70816 embeds
  ``70816 - 4490pb02.dat``, a printed 4490 (Brick Arch 1 x 3; anti-studs under its legs at x = +-20,
  y = 24), and hangs a 1 x 1 plate 3024 under a leg (line 2122).
"""

from __future__ import annotations

from bricklayer import from_ldraw


def _components(text: str) -> int:
    return from_ldraw(text).num_connected_components


# hilt upside down (its ringed end up, stud base at y = -31), the brick's bottom face at -55 + 24 = -31
_HILT = "1 0 0 0 0 -1 0 0 0 -1 0 0 0 1 577b.dat\n"


def test_long_stud_seats_by_its_base_in_a_brick():
    assert _components(_HILT + "1 47 0 -55 0 1 0 0 0 1 0 0 0 1 3005.dat\n") == 1


def test_long_stud_seats_in_a_brick_turned_45_degrees_about_it():
    # one stud: any turn about its axis keeps it seated (10224 draws the brick turned 45 degrees)
    assert _components(_HILT + "1 47 0 -55 0 0.707107 0 0.707107 0 1 0 -0.707107 0 0.707107 3005.dat\n") == 1


def test_brick_lifted_1_ldu_off_the_long_stud_is_not_seated():
    assert _components(_HILT + "1 47 0 -56 0 1 0 0 0 1 0 0 0 1 3005.dat\n") == 2


def _printed_copy(name: str, body: str) -> str:
    return (f"0 FILE main.ldr\n"
            f"1 1 0 0 0 1 0 0 0 1 0 0 0 1 {name}\n"
            f"1 4 -20 24 0 1 0 0 0 1 0 0 0 1 3024.dat\n"
            f"0 FILE {name}\n0 {name[:-4]}\n0 Name: {name}\n0 !LDRAW_ORG Unofficial_Part\n"
            f"0 BFC CERTIFY CCW\n{body}\n")


def test_printed_embedded_copy_takes_its_base_parts_connectors():
    # the 1 x 1 plate's stud in the anti-stud under the copy's left leg (4490: x = -20, y = 24)
    assert _components(_printed_copy("9999 - 4490pb02.dat", "1 16 0 0 0 1 0 0 0 1 0 0 0 1 4490.dat")) == 1


def test_printed_embedded_copy_of_another_shape_takes_no_connectors():
    # named as a print of 4490 but drawn as a 1 x 2 brick (3004): the bounding boxes differ, no connectors
    assert _components(_printed_copy("9999 - 4490pb03.dat", "1 16 0 0 0 1 0 0 0 1 0 0 0 1 3004.dat")) == 2
