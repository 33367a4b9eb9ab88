"""Collision shapes (ldraw_data.collision) on real library parts: merging of near-duplicate vertices,
sideways inset of open borders."""

import numpy as np
import pytest
from scipy.spatial import cKDTree

from ldraw_data.collision import _directions, _open_edge_lateral, _thickness_caps, shape_from_mesh
from ldraw_data.mesh import part_mesh


def _shape(name):
    return shape_from_mesh(part_mesh(name))


@pytest.mark.parametrize("name", ["22385", "6558"])
def test_near_duplicate_vertices_are_merged(name):
    # LDraw rounds to 4 decimals: corners meant to coincide land up to ~1e-3 LDU apart (module step 1).
    s = _shape(name)
    d, _ = cKDTree(s.vertices).query(s.vertices, k=2)
    assert d[:, 1].min() >= 2e-3


def test_angled_tile_corner_moves_by_the_full_inset():
    # Tile 3 x 2 with angled end 22385: the corner of the 45-degree end at (-14.2426, 4, -15.7574)
    # (x + z = -30 on the angled face) was two copies 0.0004 LDU apart, each capped at 0.
    s = _shape("22385")
    k = np.argmin(np.linalg.norm(s.vertices - [-14.2426, 4.0, -15.7574], axis=1))
    assert np.linalg.norm(s.vertices[k] - [-14.2426, 4.0, -15.7574]) < 2e-3
    assert s.caps[k] >= 0.25
    moved = np.linalg.norm(s.inset_vertices(0.25)[k] - s.vertices[k])
    assert moved >= 0.25  # |x| >= 1: each face plane through it moves in by 0.25 LDU


def test_friction_pin_has_no_immovable_vertices():
    # Technic pin with friction 6558: 6 vertices never moved (cap 0) before the merge.
    s = _shape("6558")
    movable = s.caps * np.linalg.norm(s.directions, axis=1)
    assert (movable >= 0.2).all()


def test_brick_corners_unchanged():
    # Brick 2 x 4 3001: bottom corner (4 studs x 20 / 2, height 24, 2 studs x 20 / 2) keeps the
    # box-corner direction (+-1, +-1, +-1) of module step 4.
    s = _shape("3001")
    k = np.argmin(np.linalg.norm(s.vertices - [40.0, 24.0, 20.0], axis=1))
    assert np.allclose(s.vertices[k], [40.0, 24.0, 20.0])
    assert np.allclose(np.abs(s.directions[k]), 1.0, atol=1e-6)


def _lateral(v, f):
    d = _directions(v, f)
    return _open_edge_lateral(v, f, d, _thickness_caps(v, f, d))


# a 10 x 10 LDU open sheet in y = 0 (two triangles, outward normal +y), module notes step 6
_SHEET_V = np.array([[0, 0, 0], [10, 0, 0], [10, 0, 10], [0, 0, 10]], dtype=float)
_SHEET_F = np.array([[0, 2, 1], [0, 3, 2]])


def test_open_sheet_borders_move_in_along_the_sheet():
    # every corner is on two open borders: t solves w . t = 1 for both inward edge normals, e.g. (1, 0, 1)
    # at (0, 0, 0); with the normal inset (0, 1, 0) the sheet shrinks to [0.25, 9.75]^2 and drops 0.25.
    # Cap: corner (10, 0, 0) lies in one triangle whose extent along t / |t| = (-1, 0, 1) / sqrt(2) is
    # 10 / sqrt(2); L = half = 3.536, L / |t| = 2.5. Corner (0, 0, 0): two triangles, extent 10 sqrt(2),
    # L / |t| = 5.
    d, caps = _lateral(_SHEET_V, _SHEET_F)
    assert np.allclose(d, [[-1, 1, -1], [1, 1, -1], [1, 1, 1], [-1, 1, 1]])
    assert np.allclose(caps, [5.0, 2.5, 5.0, 2.5])
    inset = _SHEET_V - np.minimum(0.25, caps)[:, None] * d
    assert np.allclose(inset, [[0.25, -0.25, 0.25], [9.75, -0.25, 0.25], [9.75, -0.25, 9.75], [0.25, -0.25, 9.75]])


def test_double_sided_sheet_shrinks_in_its_plane():
    # the same sheet drawn once per winding: its normals cancel (x = 0, step 4), its borders are used by
    # two triangles on the same side, so they count as open and the sheet shrinks to [0.25, 9.75]^2 in y = 0
    f2 = np.vstack([_SHEET_F, _SHEET_F[:, ::-1]])
    d, caps = _lateral(_SHEET_V, f2)
    inset = _SHEET_V - np.minimum(0.25, caps)[:, None] * d
    assert np.allclose(inset, [[0.25, 0, 0.25], [9.75, 0, 0.25], [9.75, 0, 9.75], [0.25, 0, 9.75]])


def test_narrow_strip_borders_do_not_cross():
    # a 10 x 0.2 LDU open strip: its long borders may each move at most half the 0.2 LDU width sideways
    v = np.array([[0, 0, 0], [10, 0, 0], [10, 0, 0.2], [0, 0, 0.2]], dtype=float)
    d, caps = _lateral(v, _SHEET_F)
    inset = v - np.minimum(0.25, caps)[:, None] * d
    assert (inset[[0, 1], 2] <= 0.1 + 1e-9).all() and (inset[[2, 3], 2] >= 0.1 - 1e-9).all()
    assert (inset[[0, 1], 2] > 0).all()  # but they do move in
    assert np.allclose(inset[:, 1], -0.25)  # the normal inset stays whole


def test_stud_base_moves_up_the_stud():
    # Brick 2 x 4 3001: the stud cylinders (radius 6, 4 LDU high) stand open on the top face (y = 0);
    # their bottom circle moves up the stud by the inset (y = -0.25) and in by the normal inset;
    # cap: half the 4 LDU wall height (L = 2)
    s = _shape("3001")
    r = np.hypot(s.vertices[:, 0] - 10, s.vertices[:, 2] - 10)
    base = np.isclose(r, 6, atol=1e-3) & np.isclose(s.vertices[:, 1], 0)
    assert base.sum() == 16
    v = s.inset_vertices(0.25)
    assert np.allclose(v[base, 1], -0.25)
    assert np.allclose(s.caps[base], 2.0)


@pytest.mark.parametrize("shift,hit", [(0, False), (1, True)])
def test_dishes_side_by_side(shift, hit):
    # Dish 2 x 2 2654 (2654a): rim radius 20, so two dishes 40 LDU apart touch rim to rim; pushed
    # 1 LDU into each other they overlap by 1 LDU, more than the 0.5 LDU the insets leave
    from bricklayer import from_ldraw

    b = from_ldraw(f"1 1 0 0 0 1 0 0 0 1 0 0 0 1 2654.dat\n1 2 {40 - shift} 0 0 1 0 0 0 1 0 0 0 1 2654.dat\n")
    assert (len(b.colliding_placements) == 1) is hit


def test_sliver_triangles_are_slivers():
    # module notes step 3b: height = |cross| / longest edge. The sliver of Panel 1 x 4 x 3 4215a's end stud
    # (corners (30, -4, 0), (34.868, -4, 3.308), (34.763, -4, 3.237), one ray from the stud centre):
    # |cross| = 4.868 * 3.237 - 3.308 * 4.763 = 0.001712, longest edge 5.886, height 0.00029 LDU < 0.002.
    # A 1 x 1 LDU right triangle has height 0.707 LDU.
    from ldraw_data.collision import _slivers

    v = np.array([[30, -4, 0], [34.868, -4, 3.308], [34.763, -4, 3.237], [0, 0, 0], [1, 0, 0], [0, 0, 1]], float)
    assert _slivers(v, np.array([[0, 1, 2], [3, 5, 4]])).tolist() == [True, False]


def test_stud_top_with_a_sliver_moves_by_the_full_inset():
    # 4215a's end stud top (centre (30, -4, 0), normal -y) holds that sliver with its normal pointing
    # into the stud (+y): its centre took a cap of 0 (exit through its own face at distance 0) and
    # x = (0, -0.913, 0) (21 of 23 normals up). Slivers are left out of normals and caps: the centre
    # moves down into the stud by the inset, (30, -3.75, 0).
    s = _shape("4215a")
    k = np.argmin(np.linalg.norm(s.vertices - [30.0, -4.0, 0.0], axis=1))
    assert np.allclose(s.vertices[k], [30.0, -4.0, 0.0])
    assert s.caps[k] >= 0.25
    assert np.allclose(s.inset_vertices(0.25)[k], [30.0, -3.75, 0.0], atol=1e-6)


def test_tile_on_panel_end_stud_does_not_collide():
    # 6957 Solar Snooper: Tile 1 x 2 Grille 2412b on the end stud of Panel 4215a (the tile's underside, 4 LDU
    # above its bottom, on the stud top at y = -4); reported colliding (0.56 LDU shift depth) while the
    # stud's centre did not move
    from bricklayer import from_ldraw

    b = from_ldraw("1 1 0 0 0 1 0 0 0 1 0 0 0 1 4215a.dat\n1 2 30 -8 10 0 0 -1 0 1 0 1 0 0 2412b.dat\n")
    assert b.colliding_placements == []


def test_axle_end_rim_on_the_collar_disc_is_not_capped():
    # Technic axle pin 43093: axle.dat from x = 20 to x = 0, closed by its own end disc (outward -x) at x = 0,
    # where the collar's 4-4disc.dat (radius 8, outward +x) lies: an internal wall (module notes, step 5).
    # The rim's ray runs into the axle (direction (1, 1.0196, 0) at the arm tip (0, -6, 0)); leaving
    # through the collar disc at distance 0 capped it at 0. Along the arm the material is 12 LDU deep
    # (to the opposite tip), beyond the ray's reach of 2 * 1.25 * 1.428 = 3.57 LDU: no cap.
    s = _shape("43093")
    r = np.hypot(s.vertices[:, 1], s.vertices[:, 2])
    tips = np.isclose(s.vertices[:, 0], 0, atol=1e-3) & np.isclose(r, 6, atol=1e-3)
    assert tips.sum() == 4
    assert np.isinf(s.caps[tips]).all()
    assert np.allclose(np.abs(s.directions[tips, 0]), 1.0, atol=1e-3)  # still inset from the end disc


def test_rib_end_outside_a_wall_moves_with_the_wall():
    # Wing 3 x 12 Left 47397 (47398s01.dat mirrored in x): a rib's 3-16cyli.dat ends at (-5.383, 8, -92.489),
    # 0.032 LDU outside the angled outer wall (outward normal (0.986, 0, -0.164), through (-5.415, 8, -92.488)).
    # The border is closed by the wall (module notes, step 6b): the corner moves by the full inset across the
    # wall, across its own facet (normal (0.707, 0, 0.707)) and up from the bottom face (y = 8, normal +y).
    s = _shape("47397")
    k = int(np.argmin(np.linalg.norm(s.vertices - [-5.383, 8.0, -92.489], axis=1)))
    assert np.linalg.norm(s.vertices[k] - [-5.383, 8.0, -92.489]) < 1e-3
    x = s.directions[k]
    wall = np.array([0.986, 0.0, -0.164]) / np.linalg.norm([0.986, 0.0, -0.164])
    assert x @ wall == pytest.approx(1.0, abs=0.01)
    assert x @ (np.array([1.0, 0.0, 1.0]) / np.sqrt(2)) == pytest.approx(1.0, abs=0.01)
    assert x[1] == pytest.approx(1.0, abs=0.01)
    assert s.caps[k] >= 0.5


def test_opposite_faces_meeting_side_by_side_are_no_internal_wall():
    # Brick 1 x 1 with Headlight 4070: the headlight recess's floor (y = 20, z from -10 to -6, outward -y)
    # and the bottom hollow's ceiling (y = 20, z from -6 to -2, outward +y) lie in one plane and meet in
    # the line z = -6, where the material between the recess and the hollow is 0 thick. The hollow's
    # corner (6, 20, -6) must keep its cap 0: the two faces touch, they do not lie on each other.
    s = _shape("4070")
    k = int(np.argmin(np.linalg.norm(s.vertices - [6.0, 20.0, -6.0], axis=1)))
    assert np.allclose(s.vertices[k], [6.0, 20.0, -6.0])
    assert s.caps[k] == 0.0
