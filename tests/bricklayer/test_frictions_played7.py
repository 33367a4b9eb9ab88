"""Frictions two fresh players met (played7: /work/notes/played7/kiosk.md, rover.md), on the real LDraw library.

Numbers used below, read from the library: the ice-cream cone 33120 has one ``bar`` connector whose axis, clipped
into the open-stud round plate 85861 (its ``clip`` axis points -Z in the build, down into the plate), runs
vertically; at ``target_position=0`` the bar's lower end reaches 3 LDU into a plate under the 85861 (validate:
"interfering about 3.0 LDU deep", the shortest move 3.3 LDU up).
"""

from __future__ import annotations

import warnings

import pytest

from bricklayer import Color, ConnectCollisionWarning, Element, LegoBuild, plate
from bricklayer.validate.findings import report_of


def _cone_in_round_plate(**kw):
    """The kiosk's counter: a 2 x 8 plate, an open-stud round plate 85861 stacked on it, a cone 33120's bar in
    the round plate's clip (``connect`` with ``kw``). Returns (build, warnings caught)."""
    b = LegoBuild()
    counter = b.add(plate(2, 8, Color.BRIGHT_PINK), (0, 0, 0), name="counter")
    holder = b.stack(Element("85861", Color.WHITE), on=counter, offset=(2, 0, 0), name="holder")
    cone = Element("33120", Color.TAN)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        b.connect(cone, cone.find_connector("bar"), b.find_connector("clip", on=holder), name="cone", **kw)
    return b, [w for w in caught if issubclass(w.category, ConnectCollisionWarning)]


def test_connect_warning_names_the_slide_that_clears_a_bar_pushed_through_its_clip():
    """played7 kiosk F3: the warning offered "no collision with the target part at: target_rotation=0/90/..."
    while the bar hit the plate under the clip (another part), where turning about the vertical bar cannot help.
    It now names the slide, with its sign, and no rotation."""
    b, caught = _cone_in_round_plate()
    assert len(caught) == 1
    text = str(caught[0].message)
    assert "collides with counter: 3034" in text
    assert "target_position=-0.15 (studs) lifts it clear (moves it 3 LDU up)" in text
    assert "target_rotation" not in text and "no quarter turn or mounting of this joint clears them" in text
    # the advice is right and the smallest in 1 LDU steps: -0.15 clears, -0.1 (2 LDU) does not, +0.15 (down) not
    assert not _cone_in_round_plate(target_position=-0.15)[0].colliding_placements
    assert not _cone_in_round_plate(target_position=-0.15)[1]
    assert _cone_in_round_plate(target_position=-0.1)[0].colliding_placements
    assert _cone_in_round_plate(target_position=0.15)[0].colliding_placements


def test_validate_hint_for_a_connect_placement_on_a_sliding_joint_names_the_slide():
    """validate's hint for the same collision: the slide with its sign, not "another target_rotation"."""
    b, _ = _cone_in_round_plate()
    line = next(ln for ln in report_of(b).problems if ln.startswith("COLLISION"))
    assert "counter: 3034" in line and "cone: 33120" in line
    assert line.endswith("try: placed with connect() on a sliding joint: target_position=-0.15 (studs) lifts it "
                         "clear (moves it 3 LDU up)")


def test_connect_warning_names_a_sideways_slide_by_its_build_axis():
    """An axle 3705 (4 studs, 80 LDU) centred in the hole of a technic brick 3700 (hole axis +y) reaches 30 LDU
    into the 1 x 2 brick right behind it (the brick's front face 10 LDU behind the hole's centre, the axle's
    end 40 LDU past it): sliding it 1.5 studs toward -y clears the brick; the warning says so, and connected
    with that value nothing collides and the axle stays joined."""
    from bricklayer import brick

    def axle_in_hole(**kw):
        b = LegoBuild()
        b.add(plate(4, 6, Color.TAN), (0, 0, 0))
        holder = b.add(Element("3700", Color.BLACK), (0, 1, 1), name="technic")
        b.add(brick(1, 2, Color.RED), (0, 2, 1), name="wall")
        axle = Element("3705", Color.BLACK)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            b.connect(axle, axle.connectors[0], b.find_connector("pin_hole", on=holder), **kw)
        return b, [str(w.message) for w in caught if issubclass(w.category, ConnectCollisionWarning)]

    b, said = axle_in_hole()
    assert len(said) == 1 and "collides with wall: 3004" in said[0]
    assert "target_position=-1.5 (studs) slides it clear (moves it 30 LDU toward -y)" in said[0]
    b, said = axle_in_hole(target_position=-1.5)
    assert not said and not b.colliding_placements and b.is_connected()
    assert axle_in_hole(target_position=-1.45)[0].colliding_placements  # 29 LDU: still 1 LDU in


def test_connect_warning_on_a_stud_joint_still_names_the_turns_that_clear_the_part_it_hits():
    """A stud joint has no slide: the warning names the quarter turns that clear the parts it collides with (a
    second seat 4079 on the first seat's front studs hits its backrest at 0 and clears it turned 180 degrees)."""
    b = LegoBuild()
    b.add(plate(2, 4, Color.RED), (0, 0, 0))
    seat = Element("4079", Color.RED)
    b.connect(seat, seat.find_connector("antistud", toward=(-10, -10, 0)), b.find_connector("stud", toward=(0, 0, 100)))
    second = Element("4079", Color.RED)
    with pytest.warns(ConnectCollisionWarning) as rec:
        b.connect(second, second.find_connector("antistud", toward=(-10, -10, 0)),
                  b.find_connector("stud", toward=(0, 0, 100)))
    text = str(rec[0].message)
    assert "target_position" not in text and "no collision with those parts at: " in text
    assert "target_rotation=180" in text


def test_search_shows_a_stickers_size_in_ldu_as_stick_lays_it():
    """played7 kiosk F4: search gave 4603014f as "2.3 x 1.9" (its title, studs, longer side first). Its back in
    the file is x -19..19, z -23..23 LDU; stick() at rotation 0 lays x along the viewer's right, so it lands 38
    wide and 46 high on the face of a 1 x 2 x 2 brick (40 x 48), and 46 wide, 38 high at rotation 90."""
    from bricklayer import Rotation, brick, search_parts, stick
    from brickwright.parts_text import search_text

    hit = next(p for p in search_parts("sticker ice cream cone popsicle", limit=5) if p.part_id == "4603014f")
    assert hit.dims == (2.3, 1.9) and hit.sticker_size_ldu == (38.0, 46.0)
    assert "sticker_size_ldu=(38.0, 46.0)" in repr(hit)
    assert search_parts("brick 2 x 4", limit=1)[0].sticker_size_ldu is None
    assert "sticker_size_ldu" not in repr(search_parts("brick 2 x 4", limit=1)[0])
    line = next(ln for ln in search_text("sticker ice cream cone popsicle", limit=5).splitlines()
                if ln.startswith("4603014f"))
    assert line.endswith("sticker 38 x 46 LDU (width x height as stick() lays it, rotation=0)")
    for rotation, (wide, high) in ((0, (38, 46)), (90, (46, 38))):
        b = LegoBuild()
        wall = b.add(brick(1, 2, 2, Color.BRIGHT_PINK) if rotation == 0 else brick(1, 4, 3, Color.WHITE),
                     (0, 0, 0), rotation=Rotation.DEG_0)
        box = stick(b, "4603014f", onto=wall, side="front", rotation=rotation).bounding_box
        assert box.max.x - box.min.x == pytest.approx(wide, abs=1e-6)
        assert box.max.z - box.min.z == pytest.approx(high, abs=1e-6)
        assert box.max.y - box.min.y == pytest.approx(0.25, abs=1e-6)  # flat on the front face


def _stack_on_2x2_brick(part_id: str, under: str | None = None):
    """A 2 x 2 brick at grid (-3, 5, 6) (the rover's box), optionally a part ``under`` stacked on it, then
    ``part_id`` stacked on top. Returns (build, StackCollisionWarnings caught)."""
    from bricklayer import StackCollisionWarning, brick

    b = LegoBuild()
    top = b.add(brick(2, 2, Color.WHITE), (-3, 5, 6), name="box")
    if under is not None:
        top = b.stack(Element(under, Color.WHITE), on=top, name="under")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        b.stack(Element(part_id, Color.LIGHT_BLUISH_GREY), on=top, name="dish")
    return b, [w for w in caught if issubclass(w.category, StackCollisionWarning)]


def test_stack_warns_when_a_part_wider_than_its_stud_footprint_collides_and_says_what_to_do():
    """played7 rover F1: the dish 4740 (a 2 x 2 body, one centre anti-stud: stud footprint 1 x 1) stacked on a
    2 x 2 brick lands on the brick's front-right stud, its corner at grid (-3.5, 4.5), half a stud off the grid,
    and its bowl lies on the other three studs. stack() says so at once; the advice (a 1 x 1 round brick under
    it) gives a valid, connected build."""
    dish = Element("4740")
    assert (dish.alignment_box.max.x - dish.alignment_box.min.x, dish.stud_footprint.max.x - dish.stud_footprint.min.x) \
        == (40, 20)
    b, caught = _stack_on_2x2_brick("4740")
    assert b.colliding_placements  # the warning is true
    assert len(caught) == 1
    text = str(caught[0].message)
    assert text.startswith("stack(): 4740 attaches by a 1 x 1 stud footprint (its studs and anti-studs) smaller "
                           "than its 2 x 2 body; stacked by that footprint it sits half a stud off the grid at "
                           "x=-3.5, y=4.5 and its body collides with the part it stands on. Stand it on a part no "
                           "bigger than that footprint (a 1 x 1 round brick or plate)")
    fixed, caught = _stack_on_2x2_brick("4740", under="3062b")
    assert not caught and fixed.is_valid() and fixed.is_connected()
    # a part whose footprint is smaller than its body but which collides with nothing gives no warning
    leafy, caught = _stack_on_2x2_brick("32607")
    assert not caught and not leafy.colliding_placements


def test_validate_hint_for_a_part_seated_half_a_stud_off_the_grid_says_so():
    """The same dish: validate's hint named a clip/bar/handle feature; it now names the half-stud offset."""
    b, _ = _stack_on_2x2_brick("4740")
    line = next(ln for ln in report_of(b).problems if ln.startswith("COLLISION"))
    assert "dish: 4740" in line and "at grid (-3.5, 4.5, 9)" in line
    assert ("try: 4740 sits half a stud off the grid at x=-3.5, y=4.5: it is seated on its connector, but its "
            "2 x 2 body is wider than the 1 x 1 stud footprint it attaches by") in line
    assert "clip, bar, handle" not in line


def test_stack_warning_for_a_body_reaching_past_its_footprint_on_one_side_says_turn_it():
    """The clip plate 61252 (1 x 1 stud footprint, its clip half a stud past it on -y) stacked on the back row
    of a 2 x 4 plate: the clip reaches over a stud of the plate below. Turning helps there (180 degrees puts
    the clip past the plate's back edge), so the warning says turn it, and turned it gives none."""
    from bricklayer import Rotation, StackCollisionWarning

    def clip_plate(rotation):
        b = LegoBuild()
        table = b.add(Element("3020", Color.TAN), (0, 0, 0))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            b.stack(Element("61252", Color.LIGHT_GREY), on=table, offset=(3, 1, 0), rotation=Rotation(rotation))
        return b, [str(w.message) for w in caught if issubclass(w.category, StackCollisionWarning)]

    b, said = clip_plate(0)
    assert b.colliding_placements and len(said) == 1
    assert "its body collides with the part it stands on. Stand it turned (rotation=)" in said[0]
    assert "half a stud off the grid" not in said[0]
    b, said = clip_plate(180)
    assert not said and not b.colliding_placements


@pytest.mark.parametrize("helmet", ["3842b", "2446"])
def test_the_helmets_minifigure_names_fit_its_head(helmet):
    """played7 rover F3: minifigure()'s docstring now names the classic space helmet 3842b and the modern
    helmet 2446 (search ranks 3842b 13th for "space helmet"); each sits on the head stud, valid and joined."""
    from bricklayer import minifigure
    from bricklayer.construction.figures import minifigure as documented

    assert f'``"{helmet}"``' in documented.__doc__
    fig = minifigure(headgear=helmet, headgear_color=Color.WHITE)
    assert fig.named("headgear").content.ldraw_id == helmet
    assert fig.is_valid() and fig.is_connected()
