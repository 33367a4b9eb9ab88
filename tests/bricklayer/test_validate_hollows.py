"""Studs clamped in an unlabelled hollow (``bricklayer/validate/hollows.py``; audit round 4, F47-49).

Complete LDraw snippets (LDraw frame, -Y up, LDU) with the real parts. The windscreen scene is cut from
6969 Celestial Stinger (sub-model veh1.ldr, lines 98 and 103): slope 3298 hangs 80 LDU in front of and
40 LDU below windscreen 6070, both turned alike, so in the windscreen's frame the slope's two studs
stand at x = +-10, z = -80 with their bases at y = 40, the bottom of the windscreen's hollow front.
6070.dat draws that hollow 32 LDU wide (inner side walls at x = +-16) with its front wall at z = -86:
each stud (radius 6) touches one side wall and the front wall; BrickNet labels anti-studs only at the
rear (x = +-10, z = 0), LDCad none. Here the windscreen is held on a column (a 1 x 2 plate in its rear
anti-studs, three 1 x 2 bricks down to y = 88, the ground), so the slope (bottom at y = 64) is 24 LDU
above the ground and can only be held by the windscreen.
"""

from __future__ import annotations

import numpy as np

from bricklayer import from_ldraw
from bricklayer.validate.collisions import collision_engine
from bricklayer.validate.connections import connection_graph
from bricklayer.validate.hollows import STUD_RADIUS, clamped, clamped_in_hollow, stud_contacts, _world_triangles
from bricklayer.validate.support import support_graph

_COLUMN = """1 42 0 0 0 1 0 0 0 1 0 0 0 1 6070.dat
1 4 0 8 0 1 0 0 0 1 0 0 0 1 3023.dat
1 4 0 16 0 1 0 0 0 1 0 0 0 1 3004.dat
1 4 0 40 0 1 0 0 0 1 0 0 0 1 3004.dat
1 4 0 64 0 1 0 0 0 1 0 0 0 1 3004.dat
"""
_HUNG = 5  # index of the part under test (after the 5 column parts)


def _floating(line: str) -> list:
    return support_graph(from_ldraw(_COLUMN + line + "\n")).floating.tolist()


def test_slope_hanging_by_its_studs_in_the_windscreen_hollow_is_held():
    b = from_ldraw(_COLUMN + "1 1 0 40 -80 1 0 0 0 1 0 0 0 1 3298.dat\n")
    res = support_graph(b)
    assert res.floating.tolist() == []
    edges = res.edges.tolist()
    assert [0, _HUNG] in edges and [_HUNG, 0] in edges  # joined both ways, like a mate
    assert not collision_engine(b).hit.any()  # seated, not pushed into the walls


def test_as_drawn_in_6969_turned_and_far_from_the_origin():
    # the two lines of 6969 veh1.ldr as they are (both turned 90 degrees about the vertical); the column
    # is moved and turned with them
    t = np.array([[0, 0, 1, 794.261], [0, 1, 0, -160], [-1, 0, 0, -1005], [0, 0, 0, 1.0]])
    lines = []
    for ln in (_COLUMN + "1 1 0 40 -80 1 0 0 0 1 0 0 0 1 3298.dat").splitlines():
        f = ln.split()
        m = np.eye(4)
        m[:3, 3] = [float(x) for x in f[2:5]]
        w = t @ m
        rot = " ".join(f"{v:g}" for v in w[:3, :3].ravel())
        lines.append(f"1 {f[1]} {w[0, 3]:g} {w[1, 3]:g} {w[2, 3]:g} {rot} {f[-1]}")
    assert lines[-1] == "1 1 714.261 -120 -1005 0 0 1 0 1 0 -1 0 0 3298.dat"  # 6969 line 98
    assert lines[0] == "1 42 794.261 -160 -1005 0 0 1 0 1 0 -1 0 0 6070.dat"  # 6969 line 103
    assert support_graph(from_ldraw("\n".join(lines) + "\n")).floating.tolist() == []


def test_the_studs_touch_a_side_wall_and_the_front_wall_at_the_stud_radius():
    b = from_ldraw(_COLUMN + "1 1 0 40 -80 1 0 0 0 1 0 0 0 1 3298.dat\n")
    eng, w = collision_engine(b), connection_graph(b).world_connectors
    tri = _world_triangles(eng, 0)
    studs = [k for k in np.flatnonzero(w["owner"] == _HUNG).tolist()
             if np.allclose(w["axis"][k], [0, 0, 1]) and abs(w["pos"][k][2] - -40) < 1e-6]
    assert len(studs) == 2  # the slope's two studs, bases at LDraw y = 40 (world z = -40)
    found = []
    for k in studs:
        c = stud_contacts(w["pos"][k], w["axis"][k], tri)
        # the wall straight across (6.0 LDU) and 22.5 degrees either side (6.49 LDU), for two walls
        assert len(c) == 6
        found.append(c)
    # world x is LDraw x: the left stud touches the wall at -x, the right one the wall at +x; both the front
    sides = sorted(float(np.round(c @ [1, 0, 0])[np.abs(c @ [1, 0, 0]) > 0.99][0]) for c in found)
    assert sides == [-1.0, 1.0]
    front = [c[np.abs(c @ [1, 0, 0]) < 1e-6] for c in found]  # the front wall, straight across
    assert len(front[0]) == len(front[1]) == 1 and np.allclose(front[0], front[1])
    assert not clamped(found[0], np.array([0, 0, 1.0]))  # one stud in a corner holds nothing
    assert clamped(np.vstack(found), np.array([0, 0, 1.0]))  # opposite walls clamp the pair
    assert STUD_RADIUS == 6.0


def test_a_1_x_2_plate_anywhere_along_the_hollow_is_clamped_by_the_side_walls():
    assert _floating("1 1 0 40 -80 1 0 0 0 1 0 0 0 1 3023.dat") == []
    assert _floating("1 1 0 40 -74 1 0 0 0 1 0 0 0 1 3023.dat") == []  # 6 LDU back from the front wall


def test_lowered_out_of_the_hollow_it_floats():
    assert _floating("1 1 0 40.5 -80 1 0 0 0 1 0 0 0 1 3298.dat") == []  # within the 0.5 LDU tolerance
    assert _floating("1 1 0 41 -80 1 0 0 0 1 0 0 0 1 3298.dat") == [_HUNG]
    assert _floating("1 1 0 44 -80 1 0 0 0 1 0 0 0 1 3298.dat") == [_HUNG]  # stud tips at the mouth


def test_one_stud_in_a_corner_or_beside_one_wall_floats():
    assert _floating("1 1 -10 40 -80 1 0 0 0 1 0 0 0 1 3024.dat") == [_HUNG]  # corner: side and front
    assert _floating("1 1 -10 40 -70 1 0 0 0 1 0 0 0 1 3024.dat") == [_HUNG]  # side wall only


def test_stud_tips_under_a_flat_underside_do_not_hold():
    # baseplate 3867 (flat underside 4 LDU below its top, no anti-studs) resting on the column's studs;
    # a 1 x 2 plate under its overhang with the stud tips on that underside: no walls, nothing holds it
    text = ("1 4 0 40 0 1 0 0 0 1 0 0 0 1 3004.dat\n1 4 0 64 0 1 0 0 0 1 0 0 0 1 3004.dat\n"
            "1 2 0 32 0 1 0 0 0 1 0 0 0 1 3867.dat\n1 1 60 40 0 1 0 0 0 1 0 0 0 1 3023.dat\n")
    assert support_graph(from_ldraw(text)).floating.tolist() == [3]


def test_a_labelled_anti_stud_is_left_to_the_connector_graph():
    # a 1 x 2 brick on a 1 x 2 plate: the brick's side walls (12 LDU apart) clamp the plate's studs, but
    # BrickNet labels anti-studs there, so the hollow rule leaves the pair to the connector graph
    b = from_ldraw("1 4 0 0 0 1 0 0 0 1 0 0 0 1 3023.dat\n1 1 0 -24 0 1 0 0 0 1 0 0 0 1 3004.dat\n")
    eng, w = collision_engine(b), connection_graph(b).world_connectors
    tri = _world_triangles(eng, 1)
    studs = [k for k in np.flatnonzero(w["owner"] == 0).tolist() if np.allclose(w["axis"][k], [0, 0, 1])
             and abs(w["pos"][k][2] - 0) < 1e-6]
    contacts = np.vstack([stud_contacts(w["pos"][k], w["axis"][k], tri) for k in studs])
    assert clamped(contacts, np.array([0, 0, 1.0]))
    assert not clamped_in_hollow(eng, w, 0, 1)


# Hinge panel 2582 (2 x 4 x 3.333): its top bar (four studs on top) is a 1 x 4 channel underneath with no
# anti-stud label in either source (BrickNet labels only the studs and the hinge; LDCad a finger hinge).
# 1789 Star Hawk II pushes a 1 x 2 plate 3023 and 1 x 1 round plates 6141 up into it (found by scanning
# the official models for unmated studs clamped inside another part): in the panel's frame the plate
# stands at (0, 8, 0), its studs between the channel's walls. The panel's bottom edge (y = 72) is the
# ground, the plate (bottom at y = 16) can only hang from the bar.
_PANEL = "1 4 0 0 0 1 0 0 0 1 0 0 0 1 2582.dat\n"


def test_plates_pushed_up_into_the_hinge_panels_top_bar_are_held():
    for line in ("1 1 0 8 0 1 0 0 0 1 0 0 0 1 3023.dat", "1 1 10 8 0 1 0 0 0 1 0 0 0 1 3024.dat",
                 "1 1 -30 8 0 1 0 0 0 1 0 0 0 1 4073.dat"):
        assert support_graph(from_ldraw(_PANEL + line + "\n")).floating.tolist() == [], line


def test_a_plate_1_ldu_below_the_hinge_panels_bar_floats():
    assert support_graph(from_ldraw(_PANEL + "1 1 0 9 0 1 0 0 0 1 0 0 0 1 3023.dat\n")).floating.tolist() == [1]


def test_copies_of_a_submodel_share_the_answer_of_the_first_and_other_poses_are_computed():
    # the windscreen scene as a sub-model placed three times (at the origin, 3,000.5 LDU away, and turned
    # 90 degrees about the vertical far away) and a fourth sub-model with the slope 1 LDU lower (floats)
    from bricklayer.validate.hollows import _SamePairPose

    held = _COLUMN + "1 1 0 40 -80 1 0 0 0 1 0 0 0 1 3298.dat\n"
    low = _COLUMN + "1 1 0 41 -80 1 0 0 0 1 0 0 0 1 3298.dat\n"
    text = ("0 FILE main.ldr\n"
            "1 16 0 0 0 1 0 0 0 1 0 0 0 1 held.ldr\n"
            "1 16 3000.5 0 0 1 0 0 0 1 0 0 0 1 held.ldr\n"
            "1 16 -2000 0 7000 0 0 1 0 1 0 -1 0 0 held.ldr\n"
            "1 16 0 0 -5000 1 0 0 0 1 0 0 0 1 low.ldr\n"
            "0 FILE held.ldr\n" + held + "0 FILE low.ldr\n" + low)
    b = from_ldraw(text)
    assert support_graph(b).floating.tolist() == [3 * 6 + _HUNG]  # only the lowered slope
    keys = _SamePairPose(collision_engine(b))
    k = [keys.key(c * 6 + _HUNG, c * 6) for c in range(4)]  # (slope, windscreen) of each copy
    assert k[0] == k[1] == k[2] and k[0][:2] == ("3298", "6070")
    assert k[3] != k[0]  # 1 LDU lower: another key, answered by its own test
