"""Collision geometry and rules (issue #4): inset shapes, thin material, press fits, flexible parts.

Truth values from LDraw geometry read by hand: a plate is 8 LDU high with
4 LDU studs; Tile 1 x 2 Grille (2412b) is 8 LDU high, its grille slots are cut
from the top down to y = 4 LDU and its underside is hollow from y = 4 to 8
(``parts/2412b.dat``), so a plate's studs (4 LDU) reach exactly the slot
bottoms; insetting every surface by 0.25 LDU leaves 0.5 LDU between touching
parts, so a shift of 0.6 LDU into a neighbour is the smallest that must show.
"""

from __future__ import annotations


import numpy as np
import pytest

from bricklayer import from_ldraw, read_ldraw
from bricklayer.validate import collision_details
from bricklayer.validate.collisions import LOOSE_MATE, collision_engine
from ldraw_data.collision import COLLISION_CACHE_VERSION, collision_shape
from _ldr_helpers import ldr_build



_ldr = ldr_build


# ------------------------------------------------------------------ inset shapes
def test_brick_faces_move_inward_by_the_inset():
    s = collision_shape("3001")
    v = s.inset_vertices(0.25)
    # Brick 2 x 4: outer walls at x = +-40, z = +-20, top at y = 0 (studs above, -y)
    outer = np.isclose(np.abs(s.vertices[:, 0]), 40) & np.isclose(np.abs(s.vertices[:, 2]), 20) & np.isclose(
        s.vertices[:, 1], 0)
    assert outer.sum() == 4
    assert np.allclose(np.abs(v[outer]), [39.75, 0.25, 19.75])
    assert np.isinf(s.caps[outer]).all() or (s.caps[outer] >= 0.25).all()


def test_grille_slot_edges_do_not_sink_into_the_hollow():
    # the slot walls of 2412b end at y = 4 over the hollow underside (x in -16..16, z in -6..6):
    # inset, nothing there may move below y = 4, where the studs of the plate underneath end
    s = collision_shape("2412b")
    v = s.inset_vertices(0.25)
    over_hollow = ((np.abs(s.vertices[:, 0]) < 16 - 1e-6) & (np.abs(s.vertices[:, 2]) < 6 - 1e-6)
                   & (s.vertices[:, 1] <= 4 + 1e-6) & (np.abs(s.vertices[:, 2]) > 1 + 1e-6))
    assert over_hollow.any()
    assert v[over_hollow, 1].max() <= 4.0 + 1e-6


def test_thin_material_is_inset_by_at_most_half_its_thickness():
    # a closed 10 x 0.2 x 10 LDU slab (outward CCW faces): a corner moves along (1, 1, 1) per unit
    # of inset, its inward ray leaves through the opposite face after 0.2 * sqrt(3) LDU, so its
    # inset is capped at half of that over |x| = sqrt(3): 0.1 LDU, and the slab closes to zero
    # thickness instead of turning inside out
    import trimesh

    from ldraw_data.collision import _directions, _thickness_caps

    box = trimesh.creation.box(extents=(10, 0.2, 10))
    v, f = np.asarray(box.vertices, float), np.asarray(box.faces, np.int64)
    d = _directions(v, f)
    caps = _thickness_caps(v, f, d)
    assert np.allclose(caps, 0.1, atol=1e-6)
    inset = v - np.minimum(0.25, caps)[:, None] * d
    assert np.allclose(inset[:, 1], 0.0, atol=1e-6)
    assert np.allclose(np.abs(inset[:, 0]), 4.9, atol=1e-6)
    # a thick box is not capped for the insets the validator uses (up to 1.25 LDU)
    cube = trimesh.creation.box(extents=(10, 10, 10))
    vc, fc = np.asarray(cube.vertices, float), np.asarray(cube.faces, np.int64)
    assert (_thickness_caps(vc, fc, _directions(vc, fc)) >= 1.25).all()
    assert COLLISION_CACHE_VERSION >= 3


# ------------------------------------------------------------------ real overlaps still show
@pytest.mark.parametrize("shift,hit", [(0.4, False), (0.6, True), (1, True)])
def test_smallest_sideways_shift_that_shows(shift, hit):
    b = _ldr("1 0 0 0 3001.dat", f"2 {80 - shift} 0 0 3001.dat")
    assert (len(b.colliding_placements) == 1) is hit


def test_grille_tile_on_plate_is_a_tight_fit_and_pressing_it_in_is_not():
    ok = _ldr("15 0 0 0 3795.dat", "0 0 -8 10 2412b.dat")
    assert ok.colliding_placements == []
    bad = _ldr("15 0 0 0 3795.dat", "0 0 -7 10 2412b.dat")
    assert len(bad.colliding_placements) == 1


# ------------------------------------------------------------------ rules on an official set
def test_moon_buggy_grilles_and_minifig_hand(official_dir):
    b = read_ldraw(official_dir / "1180_1_Space_Port_Moon_Buggy.mpd")
    ids = [tuple(sorted((a.content.ldraw_id, c.content.ldraw_id))) for a, c in b.colliding_placements]
    # the grille tiles (2412b) on their plate and Technic brick are tight fits
    assert not any("2412b" in p for p in ids)
    # the hand (3820) holding the radio (3962b) 0.62 LDU off the bar's axis is a clip on a bar
    assert ("3820", "3962b") not in ids
    assert 0.62 <= LOOSE_MATE["line"] < 0.71  # a 1 LDU push at 45 degrees to an axis is 0.71 off it


def test_hose_segments_of_one_hose_are_not_tested_against_each_other():
    # two centre segments of a flexible hose (756) 2 LDU apart overlap as drawn
    text = "\n".join([
        "0 FILE main.ldr", "1 16 0 0 0 1 0 0 0 1 0 0 0 1 hose.ldr", "0 NOFILE",
        "0 FILE hose.ldr", "1 0 0 0 0 1 0 0 0 1 0 0 0 1 756.dat", "1 0 0 -2 0 1 0 0 0 1 0 0 0 1 756.dat", "0 NOFILE",
    ])
    b = from_ldraw(text + "\n")
    eng = collision_engine(b)
    assert eng.segment.all()
    assert len(eng.pairs[eng.hit]) == 1          # the meshes do intersect
    assert b.colliding_placements == []            # but they are one hose
    # a brick pushed into a hose segment is still reported
    text2 = text.replace("0 FILE hose.ldr", "0 FILE hose.ldr\n1 4 0 -4 0 1 0 0 0 1 0 0 0 1 3005.dat")
    b2 = from_ldraw(text2 + "\n")
    assert len(b2.colliding_placements) >= 1
    assert all({a.content.ldraw_id, c.content.ldraw_id} != {"756"} for a, c in b2.colliding_placements)
    assert all(r.depth > 0 for r in collision_details(b2))


# ------------------------------------------------------------------ shape cache and speed paths
def test_shape_cache_keeps_the_title_and_the_inset():
    from ldraw_data.collision import _unique_rows

    s = collision_shape("3001")
    assert s.title == "Brick  2 x  4"          # first line of parts/3001.dat
    # packed and lexsort paths of the row de-duplication agree (a column span past 21 bits forces lexsort)
    keys = np.array([[0, 1, 2], [5, 1, 2], [0, 1, 2], [5, 1, 3]], dtype=np.int64)
    first, inv = _unique_rows(keys)
    assert len(first) == 3 and inv[0] == inv[2] and len({inv[0], inv[1], inv[3]}) == 3
    wide = keys.copy()
    wide[1, 0] = 1 << 40
    first_w, inv_w = _unique_rows(wide)
    assert len(first_w) == 3 and inv_w[0] == inv_w[2]
    assert np.array_equal(wide[first_w][inv_w], wide)


# ------------------------------------------------------------------ press fits are local to the joint
def _push(build, fp, dz):
    """Move placement ``fp`` by ``dz`` LDU along world z (in its owner's frame); returns the new leaf."""
    from bricklayer import Pose

    owner = build
    for p in fp.path[:-1]:
        owner = p.content
    leaf = fp.leaf
    idx = owner.placements.index(leaf)
    m = np.linalg.inv(fp.pose.matrix @ np.linalg.inv(leaf.pose.matrix))
    d = m[:3, :3] @ np.array([0.0, 0.0, dz])
    owner.remove(leaf)
    return owner.add_raw(leaf.content, Pose(translation=tuple(d)) @ leaf.pose, index=idx)


@pytest.mark.parametrize("part", ["3819", "3820", "3815"])
def test_minifig_joint_pushed_one_ldu_is_caught(part, official_dir):
    # Treasure Chest's minifigures: arm 3819 on its torso (shoulder), hand 3820 in its arm (wrist),
    # hips 3815 on the legs. As drawn they overlap their mates by at most 0.5 LDU (hidden by the
    # insets); pushed 1 LDU down the overlap is 1.0-1.9 LDU. The joint stays mated (the graph's
    # 2.1 LDU joint tolerance) but is 1 LDU off its seat (SEAT), so no allowance hides it.
    text = (official_dir / "1788_Treasure_Chest.mpd").read_text(errors="replace")
    b = from_ldraw(text)
    flat = b.flattened_placements
    fp = next(p for p in flat if p.content.ldraw_id == part)
    assert not any(fp in pair for pair in b.colliding_placements)
    leaf = _push(b, fp, -1.0)
    moved = next(p for p in b.flattened_placements if p.leaf is leaf)
    assert any(moved in pair for pair in b.colliding_placements)


def test_stud_press_fit_is_radial_only():
    # the allowance of a stud or sliding joint insets across the joint axis: with 1 LDU extra across
    # the stud axis (LDraw -y), a top corner of Brick 2 x 4 (40, 0, 20), direction (1, 1, 1) per
    # unit inset (thick material, no cap), moves 0.25 + 1 LDU in x and z but only 0.25 + AXIAL_EXTRA
    # in y: a hat or a pin pushed along the axis into its mate is not hidden by the press fit
    from bricklayer.validate.collisions import AXIAL_EXTRA, _STORE

    s = collision_shape("3001")
    _STORE.radial_model(s, False, 0.25, 1.0, np.array([0.0, 1.0, 0.0]))  # builds
    x = s.directions
    top = np.isclose(s.vertices[:, 1], 0) & np.isclose(np.abs(s.vertices[:, 0]), 40) & np.isclose(
        np.abs(s.vertices[:, 2]), 20)
    base = np.minimum(0.25, s.caps)
    more = np.clip(s.caps - base, 0, 1.0)
    xa = np.outer(x @ [0.0, 1.0, 0.0], [0.0, 1.0, 0.0])
    v = s.vertices - base[:, None] * x - more[:, None] * (x - xa) - np.minimum(more, AXIAL_EXTRA)[:, None] * xa
    # corner (40, 0, 20): y moves by 0.25 + AXIAL_EXTRA, x and z by 1.25
    assert np.allclose(np.abs(v[top]), [38.75, 0.25 + AXIAL_EXTRA, 18.75])


def test_reported_pass_is_incremental():
    # two bricks pushed 1 LDU into each other, then a far brick added: the verdict on the old
    # pair is kept (no new decision), the result is the same pair
    b = _ldr("1 0 0 0 3001.dat", "2 79 0 0 3001.dat")
    eng = collision_engine(b)
    first = eng.reported().tolist()
    n = len(eng._verdicts)
    assert len(first) == 1 and n == 1
    from bricklayer import Element, Pose

    b.add_raw(Element("3001"), Pose(translation=(0, 400, 0)))
    eng = collision_engine(b)
    assert eng.reported().tolist() == first and len(eng._verdicts) == n


def test_pin_collar_pushed_into_the_bore_is_a_collision():
    # Technic pin 3673 in a 1 x 2 Technic brick 3700 (hole axis along z): seated at z = -1 its collar
    # (radius 8 LDU) rests in the hole's counterbore (radius 8, 2 LDU deep); pushed 1 LDU further it is
    # still in the counterbore, 2 LDU or more and the collar is in the bore (radius 6): 2 LDU of radial
    # overlap, as much as the pin's press-fit allowance, which applies only within JOINT_RADIUS (7 LDU)
    # of the joint's axis line (the shaft and its ridges), so the collar is caught
    from bricklayer import from_ldraw

    def pair(z):
        return from_ldraw("1 4 20 -24 10 1 0 0 0 1 0 0 0 1 3700.dat\n"
                          f"1 7 20 -14 {z} 0 1 0 0 0 1 1 0 0 3673.dat\n")

    assert not pair(-1).colliding_placements and not pair(0).colliding_placements
    for z in (1, 2, 5, 10):
        assert len(pair(z).colliding_placements) == 1, z


# ------------------------------------------------------------------ hull boxes per distinct rotation
def test_hull_boxes_equal_transforming_every_point_of_every_placement(official_dir):
    # 1180 Moon Buggy: every placement of its most placed part, bit for bit against R p + t per point
    from bricklayer.validate.collisions import _hull_boxes
    from bricklayer.validate.fcl import SHAPE_STORE

    eng = collision_engine(read_ldraw(official_dir / "1180_1_Space_Port_Moon_Buggy.mpd"))
    key, idx = max(eng.wa.groups.items(), key=lambda kv: len(kv[1]))
    idx = idx[~eng.mirrored[idx]]
    hull = SHAPE_STORE.shape(key, eng.embedded).hull_points
    t = eng.transforms[idx]
    rots = {bytes(np.ascontiguousarray(r)) for r in t[:, :3, :3]}
    assert len(idx) >= 4 and len(rots) < len(idx)  # rotations repeat: the shared path is taken
    lo, hi = _hull_boxes(t, hull)
    w = np.stack([hull @ m[:3, :3].T + m[:3, 3] for m in t])  # each point of each placement
    assert np.array_equal(lo, w.min(axis=1)) and np.array_equal(hi, w.max(axis=1))
    assert np.array_equal(lo, eng.box_lo[idx]) and np.array_equal(hi, eng.box_hi[idx])


def test_interference_depths_of_many_pairs_in_one_batch():
    # bricks 2 x 4 pushed into the brick below by 1, 3 and 12 LDU, and plates 2 x 4 by 2 LDU, side by side
    # (200 LDU apart): batched, each pair gets what it gets alone (1.0, 3 LDU is past the inset steps:
    # inf, 12: inf; 2.0)
    from bricklayer import from_ldraw

    text = "".join(f"1 2 {x} 0 0 1 0 0 0 1 0 0 0 1 {p}.dat\n1 4 {x} {y} 0 1 0 0 0 1 0 0 0 1 {p}.dat\n"
                   for x, p, y in ((0, 3001, -23), (200, 3001, -21), (400, 3001, -12), (600, 3020, -6)))
    eng = collision_engine(from_ldraw(text))
    pairs = np.array([[0, 1], [2, 3], [4, 5], [6, 7]])
    batch = eng.interference_depths(pairs)
    assert batch.tolist() == [eng.interference_depth(i, j) for i, j in pairs.tolist()]
    assert batch.tolist() == [1.0, float("inf"), float("inf"), 2.0]
