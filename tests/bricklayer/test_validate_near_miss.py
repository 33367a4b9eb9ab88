"""A floating part drawn just off a free connector of a supported part: its FLOATING line names that connector
and the move that mates them (issue 16 item 13; validator audit round 5, F29 and F9).

The expected moves are worked out here from the LDraw text itself: the model lines (placement matrices) and
the part files' primitives (where a clip's bore, a binocular barrel, a stud lie), composed by hand in LDraw
coordinates (-Y up) and turned into the build frame (z up: LDraw (x, y, z) is (x, z, -y)), not from the
validator's connector tables.
"""

from __future__ import annotations

import numpy as np
import pytest

from bricklayer import from_ldraw, read_ldraw

DELOREAN = "21103_The_DeLorean_time_machine"
FALCON = "10179_1_Millennium_Falcon_UCS"


def _matrix(line: str) -> np.ndarray:
    """(4, 4) LDraw transform of a type-1 line (``1 colour x y z a b c d e f g h i file``)."""
    t = line.split()
    assert t[0] == "1", line
    v = [float(s) for s in t[2:14]]
    m = np.eye(4)
    m[:3, 3] = v[:3]
    m[:3, :3] = np.array(v[3:]).reshape(3, 3)
    return m


def _file_line(official_dir, model: str, n: int) -> str:
    return (official_dir / f"{model}.mpd").read_text(errors="replace").splitlines()[n - 1]


def _part_line(library, part: str, ends_with: str) -> str:
    """The first type-1 line of library file ``part`` that places ``ends_with``."""
    text = open(library.find(part), errors="replace").read().splitlines()
    return next(ln for ln in text if ln.startswith("1 ") and ln.split()[-1].lower() == ends_with)


def _ldraw_to_build(v) -> np.ndarray:
    """An LDraw vector (-Y up) in the build frame (z up): (x, y, z) -> (x, z, -y)."""
    x, y, z = v
    return np.array([x, z, -y])


def _at_line(b, path_lines: list):
    """The flattened placement whose path of file lines is ``path_lines``."""
    return next(i for i, p in enumerate(b.flattened_placements) if [q.origin[1] for q in p.path] == path_lines)


# --------------------------------------------------------------------------------- F29: binoculars off their clip
def test_binoculars_drawn_1_ldu_off_their_clip_are_told_to_go_up_1_ldu_onto_it(official_dir, library):
    """21103, sub-model "21103 PARCHOC AR BTTF I.ldr": binoculars 30162 (file line 893) held by their left
    barrel in the clip of plate 60897 (line 878). From the part files: 60897 places ``clip5.dat`` at
    (0, 4, -20) unrotated, and clip5's bore (``5-8cyli``) runs along its y axis through its origin; 30162's
    barrels are ``3-4cyli`` of radius 4 along its z axis at x = -6 and x = +6. Line 878 turns the plate so the
    bore runs along the sub-model's z at x = 50, y = 18; line 893 puts the left barrel along z at x = 50,
    y = 19: 1 LDU lower (LDraw +y is down), so raising the binoculars 1 LDU mates them."""
    from brickwright.validation import validation_report

    clip_pl = _matrix(_file_line(official_dir, DELOREAN, 878))
    bino_pl = _matrix(_file_line(official_dir, DELOREAN, 893))
    assert _file_line(official_dir, DELOREAN, 878).endswith("60897.dat")
    assert _file_line(official_dir, DELOREAN, 893).endswith("30162.dat")
    clip = _matrix(_part_line(library, "60897.dat", "clip5.dat"))
    bore_point = (clip_pl @ clip @ np.array([0, 0, 0, 1.0]))[:3]
    bore_axis = clip_pl[:3, :3] @ clip[:3, :3] @ np.array([0, 1.0, 0])
    barrels = [_matrix(ln) for ln in open(library.find("30162.dat")).read().splitlines()
               if ln.startswith("1 ") and ln.split()[-1] == "3-4cyli.dat"]
    assert sorted(m[0, 3] for m in barrels) == [-6.0, 6.0] and all(np.allclose(m[:3, 1], [0, 0, 13]) for m in barrels)
    barrel_axis = bino_pl[:3, :3] @ np.array([0, 0, 1.0])
    assert np.allclose(np.abs(bore_axis), [0, 0, 1]) and np.allclose(np.abs(barrel_axis), [0, 0, 1])
    # the barrel nearest the bore, and the shift across the axis that puts it on the bore
    points = [(bino_pl @ m @ np.array([0, 0, 0, 1.0]))[:3] for m in barrels]
    near = min(points, key=lambda p: np.linalg.norm((bore_point - p)[:2]))
    shift = bore_point - near
    shift[2] = 0.0  # along the common axis (z) the barrel slides freely in the clip
    assert np.allclose(shift, [0, -1, 0], atol=1e-4)  # LDraw: 1 LDU up, in the sub-model
    # the sub-models on the path (top-level line 5, line 272) turn only about the vertical: up stays up
    for n in (5, 272):
        assert np.allclose(_matrix(_file_line(official_dir, DELOREAN, n))[:3, 1], [0, 1, 0])
    expected = _ldraw_to_build(shift)
    assert np.allclose(expected, [0, 0, 1], atol=1e-4)

    b = read_ldraw(official_dir / f"{DELOREAN}.mpd")
    rep = validation_report(b, source=DELOREAN)
    row = next(f for f in rep["floating"] if f["line"] == 893)
    assert row["below"] == (
        "its bar misses the free clip of 21103_The_DeLorean_time_machine.mpd:5/:272/:878: 60897 (Plate 1 x 1 "
        "with Clip Vertical (Thick C-Clip)) by 1 LDU: raise it by 1 LDU, a move of (0, 0, 1) LDU in x, y, z "
        "(z up), to mate them")
    assert any(p.startswith("FLOATING 21103_The_DeLorean_time_machine.mpd:5/:272/:893: 30162") and
               p.endswith(row["below"]) for p in rep["problems"])
    assert not any("nothing lies below it" in p for p in rep["problems"])

    # moved by the named move, the binoculars hang in the clip: no longer floating
    from bricklayer.validate.support import support_graph

    text = (official_dir / f"{DELOREAN}.mpd").read_text(errors="replace").splitlines()
    t = text[892].split()
    t[3] = f"{float(t[3]) + shift[1]:g}"
    text[892] = " ".join(t)
    moved = from_ldraw("\n".join(text) + "\n", source=DELOREAN)
    i = _at_line(moved, [5, 272, 893])
    assert i not in support_graph(moved).floating.tolist()


# ------------------------------------------------------------------- F9: a dish a stud's height above its seat
@pytest.fixture(scope="module")
def falcon(official_dir):
    from bricklayer.validate.support import support_graph

    b = read_ldraw(official_dir / f"{FALCON}.mpd")
    return b, support_graph(b)


def test_a_dish_drawn_a_stud_height_above_its_cone_is_told_to_go_down_4_ldu_onto_its_stud(official_dir, library,
                                                                                          falcon):
    """10179, sub-model of top-level line 419: dish 4740 (file line 7773) over cone 4589 (line 7759), turned
    about one common stud axis (the sub-model tilts it about 6 degrees off vertical). From the part files: the cone's top,
    where its stud (``stud2a.dat``, 4 LDU tall) stands, is at y = 0 of 4589; the dish's body (sub-part
    ``s/4740s01.dat``, cylinders and cones) ends at y = 8 of 4740, its bottom face. Line 7773 puts the dish's origin 12 LDU
    above the cone's along their common axis, so its bottom lies 4 LDU (a stud's height) above where it
    seats: the move is 4 LDU down the cone's axis."""
    from bricklayer.validate.connections import connection_graph, near_miss
    from bricklayer.validate.findings import _near_miss_hint

    cone_line, dish_line = _file_line(official_dir, FALCON, 7759), _file_line(official_dir, FALCON, 7773)
    assert cone_line.endswith("4589.dat") and dish_line.endswith("4740.dat")
    cone, dish = _matrix(cone_line), _matrix(dish_line)
    assert np.allclose(cone[:3, 1], dish[:3, 1])  # turned only about their common (stud) axis
    offset = np.linalg.solve(cone[:3, :3], dish[:3, 3] - cone[:3, 3])  # dish origin in the cone's frame
    assert np.allclose(offset, [0, -12, 0], atol=0.01)
    stud = _matrix(_part_line(library, "4589.dat", "stud2a.dat"))
    assert stud[1, 3] == 0.0  # the cone's top (the base of its stud) at y = 0
    # the dish's body is drawn in its sub-part by cylinders and cones (unit height along +y, scaled by the
    # matrix's y entry): its bottom is the lowest of their ends
    body = [_matrix(ln) for ln in open(library.find("s/4740s01.dat")).read().splitlines()
            if ln.startswith("1 ") and ln.split()[-1].startswith(("4-4cyl", "4-4con"))]
    bottom = max(m[1, 3] + max(m[1, 1], 0.0) for m in body)
    assert bottom == pytest.approx(8.0)  # the dish's bottom at y = 8
    gap = (offset[1] + bottom) - stud[1, 3]  # LDraw y, cone frame: dish bottom vs cone top
    assert gap == pytest.approx(-4.0, abs=0.01)  # 4 LDU above (-y is up)
    top = _matrix(_file_line(official_dir, FALCON, 419))
    down = top[:3, :3] @ cone[:3, :3] @ np.array([0, -gap, 0])  # LDraw world vector of the move
    expected = _ldraw_to_build(down)
    assert np.linalg.norm(expected) == pytest.approx(4.0, abs=0.01) and expected[2] < -3.9

    b, sup = falcon
    i = _at_line(b, [419, 7773])
    nm = near_miss(connection_graph(b), i, sup.supported)
    assert nm is not None and nm.other == _at_line(b, [419, 7759])
    assert (nm.type, nm.other_type) == ("tube", "open_stud")
    assert np.allclose(nm.move, expected, atol=0.02)
    dx, dy, dz = (round(v, 2) + 0.0 for v in expected)
    assert _near_miss_hint(b, i, sup) == (
        "its tube misses the free open stud of 10179_1_Millennium_Falcon_UCS.mpd:419/:7759: 4589 (Cone 1 x 1) by "
        f"4 LDU: lower it by 4 LDU, a move of ({dx:g}, {dy:g}, {dz:g}) LDU in x, y, z (z up), to mate them")


def test_a_floating_half_pin_with_no_connector_near_keeps_the_below_hint(falcon):
    """Control, 10179: the half pin 4274 at file line 7799 (sub-model of line 7768 in that of line 419) floats
    with no compatible free connector of a supported part within reach: no near miss, and its hint is the one
    about what lies below it."""
    from bricklayer.validate.connections import connection_graph, near_miss
    from bricklayer.validate.findings import _below_hint, _near_miss_hint
    from bricklayer.validate.collisions import collision_engine

    b, sup = falcon
    i = _at_line(b, [419, 7768, 7799])
    assert b.flattened_placements[i].content.ldraw_id == "4274" and i in sup.floating.tolist()
    assert near_miss(connection_graph(b), i, sup.supported) is None
    assert _near_miss_hint(b, i, sup) == ""
    assert "misses the free" not in _below_hint(b, i, collision_engine(b), sup)


# ---------------------------------------------------------------------------- the reach, on a brick over a plate
_PLATE = "1 4 0 0 0 1 0 0 0 1 0 0 0 1 3020.dat\n"


@pytest.mark.parametrize("lift, hint", [
    # seated, a 2 x 4 brick's origin (its top) is 24 LDU above a plate's (LDraw y = -24); lifted one plate it just
    # misses the plate's studs by 8 LDU along their axis (NEAR_MISS_ALONG_LDU)
    (8.0, "lower it by 8 LDU, a move of (0, 0, -8) LDU in x, y, z (z up), to mate them"),
    # 9 LDU above: beyond the reach; the hint is the one about the part below
    (9.0, "it hangs 9 LDU (1.125 plates) above"),
])
def test_a_brick_lifted_one_plate_off_its_plate_is_a_near_miss_but_not_9_ldu(lift, hint):
    from brickwright.validation import validation_report

    b = from_ldraw(_PLATE + f"1 1 0 {-24 - lift:g} 0 1 0 0 0 1 0 0 0 1 3001.dat\n", source="m.ldr")
    rep = validation_report(b, source="m.ldr")
    (row,) = rep["floating"]
    assert row["line"] == 2 and hint in row["below"]
    if lift == 8.0:
        assert row["below"].startswith("its antistud misses the free stud of m.ldr:1: 3020 (Plate 2 x 4) by 8 LDU")


def test_a_brick_shifted_3_ldu_sideways_and_lifted_is_told_the_whole_move():
    """A 2 x 4 brick 7 LDU above its plate (3 LDU over the stud tips: not resting on them) and 3 LDU off along
    LDraw x: the move is (-3, 0, -7) in the build frame, sqrt(58) = 7.62 LDU, not along one axis."""
    from brickwright.validation import validation_report

    b = from_ldraw(_PLATE + "1 1 3 -31 0 1 0 0 0 1 0 0 0 1 3001.dat\n", source="m.ldr")
    (row,) = validation_report(b, source="m.ldr")["floating"]
    assert row["line"] == 2 and row["below"].endswith(
        "by 7.62 LDU: move it 7.62 LDU, a move of (-3, 0, -7) LDU in x, y, z (z up), to mate them")
