"""What agents reached for and tripped on (issue 17, items 3-7, 11, 12), on the real library."""

import copy
import logging

import numpy as np
import pytest

from bricklayer import (Anchor, Color, Element, LegoBuild, MotionRange, Revolute, Rotation, SizeNotAvailableError,
                        available_sizes, brick, door, fill_box, fill_inverted_slope, fill_slope, inverted_slope,
                        minifigure, mirror, plate, slope, tile, window)
from bricklayer.construction import DOOR_VARIANTS, WINDOW_VARIANTS


def _ok(b: LegoBuild) -> None:
    """Valid (no collisions, nothing floating) and one connected component, with what failed."""
    assert not b.colliding_placements, [(b.describe(x), b.describe(y)) for x, y in b.colliding_placements]
    assert not b.floating_placements, [b.describe(p) for p in b.floating_placements]
    assert b.num_connected_components == 1, [[b.describe(p) for p in c] for c in b.connected_components]


# ------------------------------------------------------------------ item 3: helpers pass the checks
@pytest.mark.parametrize("variant", sorted(WINDOW_VARIANTS))
def test_every_window_is_valid_and_connected(variant):
    w = window(variant)
    _ok(w)
    # and on a plate, where a build uses it
    b = LegoBuild()
    base = b.add(Element("3020"), (0, 0, 0))
    b.stack(w, on=base)
    _ok(b)


def test_glass_is_held_only_inside_its_frame():
    """The pane rule (bricklayer/validate/held.py) joins 60601 to 60592 only where the frame's groove holds it."""
    b = LegoBuild()
    b.add(Element("3020"), (0, 0, 0))
    frame = b.add(Element("60592", Color.WHITE), (0, 0, 1))
    glass = Element("60601", Color.TRANS_CLEAR)
    w = window("1x2x2")
    rel = w.named("frame").pose.inverse() @ w.named("pane").pose  # official transform, frame -> glass
    b.add_raw(glass, frame.pose @ rel, name="glass")
    assert b.num_connected_components == 1
    # the same glass standing loose on the base plate beside the frame: not held, a second component
    c = LegoBuild()
    c.add(Element("3020"), (0, 0, 0))
    c.add(Element("60592", Color.WHITE), (0, 0, 1))
    c.add(glass, (2, 0, 1))
    assert c.num_connected_components == 2


@pytest.mark.parametrize("variant", sorted(DOOR_VARIANTS))
@pytest.mark.parametrize("hinge", ["left", "right"])
def test_every_door_is_valid_and_connected(variant, hinge):
    _ok(door(variant, hinge=hinge))
    _ok(door(variant, hinge=hinge, open_deg=60))


@pytest.mark.parametrize("kwargs", [{}, {"headgear": "3901"}, {"arm_angles": (90, 45)},
                                    {"leg_angles": (90, 90)}, {"head_angle": 30}])
def test_every_minifigure_pose_is_valid_and_connected(kwargs):
    _ok(minifigure(**kwargs))


def _size_variants():
    out = []
    for k in available_sizes("brick"):
        out.append(("brick", k, lambda k=k: brick(k[0], k[1], k[2])))
    for k in available_sizes("plate"):
        out.append(("plate", k, lambda k=k: plate(*k)))
    for k in available_sizes("tile"):
        out.append(("tile", k, lambda k=k: tile(*k)))
    for k in available_sizes("slope"):
        out.append(("slope", k, lambda k=k: slope(k[1], k[2], k[0], k[3])))
    for k in available_sizes("inverted_slope"):
        out.append(("inverted_slope", k, lambda k=k: inverted_slope(k[1], k[2], k[0], k[3])))
    return out


@pytest.mark.parametrize("family, size, make", _size_variants(), ids=lambda v: str(v))
def test_every_size_helper_part_mates_with_what_is_under_it(family, size, make):
    """Every size a helper accepts gives a part that sits on studs: on a 16 x 16 plate (91405) for the
    upright families; an inverted slope rests on its anti-studs only, so it gets a 1 x 1 plate (3024)
    under each of them."""
    e = make()
    b = LegoBuild()
    if family == "inverted_slope":
        top = b.add(e, (0, 0, 1))
        for c in top.connectors:
            if c.type in ("antistud", "tube") and c.frame.matrix[2, 2] > 0.99:
                x, y = c.position.x, c.position.y
                b.add(Element("3024"), (round((x - 10) / 20), round((y - 10) / 20), 0))
    else:
        base = b.add(Element("91405"), (0, 0, 0))
        b.stack(e, on=base)
    _ok(b)


def test_size_tables_leave_out_parts_that_cannot_sit_on_studs():
    """A size-table part must have anti-studs or tubes below. 733 Brick 10 x 10 and 6934 Tile 3 x 6 had
    none in BrickNet's labels alone (they were left out); each is in exactly when the merged connector data
    (LDCad's snap metas) gives it some."""
    from ldraw_data.connectors import part_connectors

    for pid, kind, size in (("733", "brick", (10.0, 10.0, 1.0)), ("6934", "tile", (3.0, 6.0))):
        below = {c.type for c in part_connectors(pid)} & {"antistud", "tube"}
        assert (size in available_sizes(kind)) == bool(below), pid


@pytest.mark.parametrize("w, d, h", [(1, 1, 1), (2, 4, 1), (1, 6, 1), (3, 3, 2), (5, 7, 3), (4, 4, 4), (2, 9, 6)])
def test_fill_box_variants_are_valid_and_connected(w, d, h):
    _ok(fill_box(w, d, h))


@pytest.mark.parametrize("w, d", [(1, 2), (3, 3), (5, 4)])
def test_fill_wedges_are_valid_and_connected(w, d):
    _ok(fill_slope(w, d))
    _ok(fill_inverted_slope(w, d))


@pytest.mark.parametrize("make", [lambda: window("1x2x2"), lambda: window("1x4x3"), lambda: door(),
                                  lambda: minifigure(), lambda: fill_box(3, 5, 4), lambda: fill_slope(3, 4)],
                         ids=["window_1x2x2", "window_1x4x3", "door", "minifigure", "fill_box", "fill_slope"])
@pytest.mark.parametrize("axis", ["x", "y"])
def test_mirrored_helper_builds_stay_valid_and_connected(make, axis):
    _ok(mirror(make(), axis))


# ------------------------------------------------------------------ item 4: copies keep their joints
@pytest.mark.parametrize("how", ["copy", "deepcopy", "copy.copy", "copy.deepcopy"])
def test_copies_keep_joints(how):
    b = LegoBuild()
    b.add(Element("3035"), (0, 0, 0), name="base")
    b.add(door(swing=90), (0, 0, 1), name="door")
    c = {"copy": b.copy, "deepcopy": b.deepcopy, "copy.copy": lambda: copy.copy(b),
         "copy.deepcopy": lambda: copy.deepcopy(b)}[how]()
    r = c.check_motion()
    assert r.passed and r.samples == 19 and r.joints == ["door/door"]  # 0 and -5 .. -90 every 5 degrees
    # the copy's joint moves the copy's door, not the original's
    assert c.posed({"door/door": Revolute(-90)}).named("door.door").bounding_box.max.y > 60
    assert c.placements[0] is not b.placements[0]


# ------------------------------------------------------------------ item 5: the ground, the report, render
def _crab_leg(motion):
    """A hinge brick 3937/3938 on the ground, a 2 x 8 plate (3034) on its top reaching 7 studs out along -Y:
    the leg. Positive angles turn it down: its tip (150 LDU out, 10 LDU above the axis at z 14) reaches
    z = 14 + 10 cos a - 150 sin a, -15.2 LDU at 15 degrees."""
    b = LegoBuild(name="crab_leg")
    h = b.add(Element("3937", Color.RED), (0, 0, 0), name="hinge")
    t = Element("3938", Color.RED)
    top = b.connect(t, t.find_connector("hinge_brick_top"),
                    next(c for c in h.connectors if c.type == "hinge_brick_base"), name="leg_hinge", motion=motion)
    b.stack(Element("3034", Color.RED), on=top, rotation=Rotation.DEG_90, anchor=Anchor.BACK_RIGHT,
            target_anchor=Anchor.BACK_RIGHT, name="leg")
    return b


def test_a_leg_posed_through_the_floor_fails_the_motion_check():
    b = _crab_leg(MotionRange(Revolute(0), Revolute(15)))
    assert b.is_valid() and b.is_connected()
    r = b.check_motion()
    assert not r.passed
    bad = {f.positions["leg_hinge"].angle_deg: f.below_ground for f in r.failures}
    # samples 0, 3.75, 7.5, 11.25, 15 degrees: at 7.5 the tip is 4.3 LDU up, at 11.25 5.4 LDU down
    assert sorted(bad) == [11.25, 15.0]
    (name, depth), = bad[15.0]
    assert name.startswith("leg: 3034") and depth == pytest.approx(15.2, abs=0.3)
    assert "through the ground" in str(r)
    # a range that stays above the floor passes and says what it covered
    ok = _crab_leg(MotionRange(Revolute(0), Revolute(5))).check_motion()
    assert ok.passed and str(ok).startswith("motion check passed: 1 joints, 5 poses (the zero pose")  # 0, 1.25, 2.5, 3.75, 5


def test_render_takes_joint_values():
    import bricklayer.render as r

    try:
        r.backend_info()
    except r.RenderBackendError as exc:
        pytest.skip(f"no offscreen OpenGL backend: {exc}")
    b = LegoBuild()
    b.add(Element("3035"), (0, 0, 0), name="base")
    b.add(door(swing=90), (0, 0, 1), name="door")
    closed = np.asarray(r.render_build(b, view="top", size=(160, 120)))
    opened = np.asarray(r.render_build(b, view="top", size=(160, 120), pose={"door/door": Revolute(-90)}))
    assert closed.shape == opened.shape and np.abs(closed.astype(int) - opened.astype(int)).sum() > 0
    assert b.posed().named("door.door").bounding_box == b.named("door").content.named("door").bounding_box.transformed(
        b.named("door").pose)  # the build itself is not changed


# ------------------------------------------------------------------ item 6: one signature
def test_colour_after_the_sizes_in_every_size_helper():
    assert brick(1, 8, Color.RED) == Element("3008", Color.RED)  # was taken as the height: "no 1 x 8 x 4"
    assert brick(1, 2, 2, Color.RED) == Element("3245a", Color.RED)
    assert plate(1, 2, Color.RED) == Element("3023", Color.RED)
    assert tile(1, 2, Color.BLUE) == Element("3069b", Color.BLUE)
    assert slope(2, 2, Color.RED) == Element("3039", Color.RED)
    assert inverted_slope(2, 1, Color.RED) == Element("3665a", Color.RED)
    assert brick(1, 8, color=Color.RED) == brick(1, 8, Color.RED)
    with pytest.raises(SizeNotAvailableError, match=r"w is a size in studs, got the colour Color.RED"):
        brick(Color.RED, 2)
    with pytest.raises(SizeNotAvailableError, match=r"h is a size, got the colour Color.RED"):
        slope(3, 2, 33, Color.RED, Color.BLUE)
    with pytest.raises(SizeNotAvailableError, match=r"if 4 is a colour code, pass color=4"):
        brick(1, 8, 4)


def test_available_sizes_is_importable_from_bricklayer():
    import bricklayer

    assert bricklayer.available_sizes is available_sizes
    assert (45, 2.0, 2.0, 1.0) in available_sizes("slope")
    assert "available_sizes" in bricklayer.api_reference()


# ------------------------------------------------------------------ item 7: what agents write
def test_colour_spellings():
    assert Color.LIGHT_BLUISH_GRAY is Color.LIGHT_BLUISH_GREY and Color.LIGHT_BLUISH_GRAY == 71
    assert Color.DARK_BLUISH_GRAY == 72 and Color.DARK_BLUISH_GREY == 72
    assert Color.LIGHT_GRAY == 7 and Color.MAIN_COLOR == 16
    assert Element("3001", "light bluish gray").color == 71
    # aliases add names, not colours
    assert len(set(int(c) for c in Color)) == len(list(Color))


def test_bounding_box_unpacks():
    lo, hi = Element("3001").bounding_box
    assert (lo.x, lo.y, lo.z, hi.x, hi.y, hi.z) == (-40, -20, 0, 40, 20, 28)  # 4 x 2 studs, 24 + 4 LDU stud


def test_validation_results_contain_the_users_placements():
    b = LegoBuild()
    base = b.add(Element("3001"), (0, 0, 0))
    up = b.add(Element("3001"), (0, 0, 6))  # a brick's height above the base: floats
    hit = b.add(Element("3003"), (0, 0, 5))  # one plate into the floating brick
    assert up in b.floating_placements and base not in b.floating_placements
    assert up in set(b.floating_placements)
    assert hit in b.colliding_placements and up in b.colliding_placements
    assert base not in b.colliding_placements
    # a sub-build placement stands for its parts
    sub = LegoBuild()
    sub.add(Element("3003"), (0, 0, 0))
    s = b.add(sub, (6, 0, 3))
    assert s in b.floating_placements


def test_moved_part_id_resolves_with_a_note(caplog):
    with caplog.at_level(logging.INFO, logger="bricklayer.element"):
        e = Element("60470")
    assert e.ldraw_id == "60470a"
    assert "moved to 60470a" in caplog.text


# ------------------------------------------------------------------ items 11, 12: coaxial joints, empty checks
def _piano(two_joints: bool):
    """A 1 x 6 plate lid on two hinge bricks 3937/3938 four studs apart on one axis line."""
    b = LegoBuild(name="piano")
    b.add(Element("3032", Color.BLACK), (0, 0, 0), name="base")
    tops = []
    for i, x in enumerate((0, 4)):
        h = b.add(Element("3937"), (x, 0, 1), name=f"hinge_{i}")
        t = Element("3938")
        tops.append(b.connect(t, t.find_connector("hinge_brick_top"),
                              next(c for c in h.connectors if c.type == "hinge_brick_base"), name=f"top_{i}",
                              motion=MotionRange(Revolute(0), Revolute(60)) if (two_joints or i == 0) else None))
    b.stack(Element("3666", Color.BLACK), on=tops[0], name="lid")
    return b


@pytest.mark.parametrize("two_joints", [True, False])
def test_a_lid_on_two_hinges_moves_as_one(two_joints):
    b = _piano(two_joints)
    _ok(b)
    r = b.check_motion()
    assert r.passed, str(r)
    assert r.samples == (25 if two_joints else 13)  # zero + 12 per declared range (5 degree steps to 60)
    lid = b.posed({"top_0": Revolute(60)})
    lid0 = b.posed()
    assert lid.named("lid").bounding_box != lid0.named("lid").bounding_box
    # both hinge tops turn with the lid
    t1 = lid.named("top_1").bounding_box
    assert t1 != lid0.named("top_1").bounding_box
    if two_joints:
        same = b.posed({"top_1": Revolute(60)})
        assert same.named("lid").bounding_box == lid.named("lid").bounding_box
        with pytest.raises(ValueError, match="share an axis and move as one"):
            b.posed({"top_0": Revolute(60), "top_1": Revolute(30)})


def test_a_motion_check_with_nothing_to_move_fails():
    b = LegoBuild()
    b.add(Element("3001"), (0, 0, 0))
    r = b.check_motion()
    assert not r.passed and r.joints == [] and "0 joints" in str(r) and "nothing to move" in str(r)


@pytest.mark.slow
def test_town_hall_glass_is_held_in_its_frames():
    """10224 Town Hall: every 60601/60602 glass joins its 60592/60593 frame and nothing else is joined
    by the pane rule (66 pairs, measured when the rule was written)."""
    from pathlib import Path

    from bricklayer import read_ldraw
    from bricklayer.validate._world import world_arrays
    from bricklayer.validate.held import held_in_frame_edges

    path = Path("/work/shared/models/official/10224_Town_Hall.mpd")
    if not path.exists():
        pytest.skip("official models not installed")
    wa = world_arrays(read_ldraw(path))
    pairs = held_in_frame_edges(wa)
    ids = {tuple(sorted((wa.placements[i].content.ldraw_id, wa.placements[j].content.ldraw_id)))
           for i, j in pairs.tolist()}
    assert ids == {("60592", "60601"), ("60593", "60602")}
    glass = sum(1 for fp in wa.placements if fp.content.ldraw_id in ("60601", "60602"))
    assert len(pairs) == glass == 66
