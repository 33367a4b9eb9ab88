"""stack() on and of parts whose underside or top studs differ from their grid box (break-it s26 findings 3, 4, 13).

Numbers read from the LDraw library (BrickLayer frame, LDU):

- round plate 8 x 8 (6177): alignment box x/y -80..80, z 0..8; its only studs on top are the centre 2 x 2, at
  (+-10, +-10, 8); its anti-studs lie on the grid cells inside its circle, its rim wall 76-80 LDU from its centre;
- brick 2 x 2 (3003) added at the origin fills x/y 0..40, z 0..24; stacking 6177 on it (default anchors) puts
  6177's corner on 3003's corner: 6177 spans x/y 0..160, z 24..32, its centre at (80, 80), its top studs'
  grid box x/y 60..100;
- brick 2 x 4 (3001) at the origin: its studs at x 10..70, y 10, 30; 6177 stacked at its corner has its centre
  at (80, 80), and 3001's stud (50, 10) lies sqrt(30^2 + 70^2) = 76.2 LDU from it, under the rim;
- plate 2654a (round 2 x 2 with rounded bottom) has no anti-stud or tube connector.
"""

from __future__ import annotations

import warnings

import pytest

from bricklayer import Anchor, Element, LegoBuild, StackCollisionWarning


@pytest.fixture(autouse=True)
def _needs_library(library):
    return library


def _stack(top: str, on: str, **kw):
    b = LegoBuild()
    base = b.add(Element(on))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        placed = b.stack(Element(top), on=base, **kw)
    return b, placed, [str(w.message) for w in caught if issubclass(w.category, StackCollisionWarning)]


@pytest.mark.parametrize("top", ["3024", "3003", "4032a", "3960"])
def test_stack_on_a_round_plate_lands_on_its_studs(top):
    b = LegoBuild()
    rp = b.stack(Element("6177"), on=b.add(Element("3003")))
    assert tuple(rp.alignment_box.min) == (0, 0, 24)
    x = b.stack(Element(top), on=rp)
    box = x.content.stud_footprint.transformed(x.pose)
    assert (round(box.min.x, 3), round(box.min.y, 3), box.min.z) == (60, 60, 32)  # the corner of its studs
    assert b.is_valid() and b.is_connected()


def test_stack_on_a_slope_lands_on_its_top_row_of_studs():
    # slope 3039 at the origin: x/y 0..40, its two studs on the back row (y 20..40) at z 24
    b = LegoBuild()
    x = b.stack(Element("3024"), on=b.add(Element("3039")))
    assert tuple(x.alignment_box.min) == (0, 20, 24)
    assert b.is_valid() and b.is_connected()


@pytest.mark.parametrize("under", ["3001", "3031", "3958"])
def test_a_round_plate_on_studs_under_its_rim_warns_and_the_advice_is_valid(under):
    b, _, said = _stack("6177", under)
    assert b.colliding_placements and len(said) == 1
    assert "meet none of its anti-studs" in said[0] and "anchor=Anchor.CENTER" in said[0]
    b, _, said = _stack("6177", under, anchor=Anchor.CENTER, target_anchor=Anchor.CENTER)
    assert said == [] and b.is_valid() and b.is_connected()


def test_the_rim_warning_gives_the_nearest_bare_stud():
    _, _, said = _stack("6177", "3001")
    assert "nearest such stud 76.2 LDU from its centre" in said[0]


def test_a_part_without_anti_studs_stacked_on_studs_warns():
    b, _, said = _stack("2654", "3003")
    assert b.colliding_placements
    assert len(said) == 1 and "has no anti-studs or tubes under it" in said[0]


def test_ordinary_stacks_do_not_warn():
    for top, on in (("3001", "3001"), ("3024", "3003"), ("6177", "3003")):
        b, _, said = _stack(top, on)
        assert said == [] and b.is_valid(), (top, on)


@pytest.mark.parametrize("under", ["3001", "41539"])
def test_validate_hint_for_a_round_plate_rim_on_a_stud_names_the_stud_not_a_clip(under):
    from bricklayer.validate.findings import report_of

    b, _, _ = _stack("6177", under)
    line = next(ln for ln in report_of(b).problems if ln.startswith("COLLISION"))
    assert f"try: a stud of {under} lies under 6177 where it has no anti-stud (76.2 LDU from its centre" in line
    assert "clip, bar, handle" not in line and "centre it on the part below" in line


def test_a_wheel_held_on_its_holders_bar_is_not_told_it_stands_on_the_studs_below(tmp_path):
    """played8 garden: wheels 4624c01 clipped on the bars of 4600, the holder too low, so the tyres dip 3 LDU into
    the base plate 92438. Read back from LDraw (no connect() record, as the harness judges a model), each wheel is
    mated to the holder, not to the base: the rim-on-stud advice ("it stands on the studs of 92438 ... no anti-studs")
    does not fit it. The collision and its move are still reported."""
    from bricklayer import Color, Direction, read_ldraw, write_ldraw
    from bricklayer.validate.findings import report_of

    b = LegoBuild()
    b.add(Element("92438", Color.GREEN), (0, 0, 0), name="base")
    holder = b.add(Element("4600", Color.BLACK), (10, 2, 3), name="axle")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # connect() warns of the collision this test is about
        for side in (Direction.LEFT, Direction.RIGHT):
            w = Element("4624c01", Color.WHITE)
            b.connect(w, w.find_connector("clip"), b.find_connector("bar", toward=side, on=holder), away=True)
    write_ldraw(b, tmp_path / "wheels.ldr")
    lines = [ln for ln in report_of(read_ldraw(tmp_path / "wheels.ldr")).problems
             if ln.startswith("COLLISION") and "4624c01" in ln]
    assert len(lines) == 2
    for ln in lines:
        assert "moving the second part 2.5 LDU along (0, 0, 1) clears it" in ln
        assert "stands on the studs" not in ln and "no anti-studs" not in ln
