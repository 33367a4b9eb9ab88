"""Support (floating parts) and connectivity on small builds and real sets (issue #4).

Truth values by hand from LDraw geometry (a brick is 24 LDU high plus 4 LDU
studs, a plate 8 LDU, a stud pitch 20 LDU; LDraw y points down) and from the
official models (6232 Skeleton Crew: minifigures holding a pistol and a
cutlass; 1788 Treasure Chest: a chest built on the baseplate 3334H that the
library lacks).
"""

from __future__ import annotations

import time

import numpy as np
import pytest

from bricklayer import Element, LegoBuild, Pose, from_ldraw
from bricklayer.constants import TOL
from bricklayer.validate.connections import _world_connectors, connection_graph, find_mated_pairs
from bricklayer.validate.support import support_graph
from _ldr_helpers import ldr_build


_ldr = ldr_build


# ------------------------------------------------------------------ tolerances
def test_tolerances_are_the_documented_values():
    assert TOL.connector_position == 0.5
    assert TOL.joint_position == 2.1
    assert TOL.ground_band == 4.0
    # the tolerances reject the faults that must be caught: a 1 LDU shift, a plate lift
    assert TOL.connector_position < 1.0 and TOL.joint_position < 8.0


@pytest.mark.parametrize("dx,mated", [(0.0, True), (0.3, True), (0.45, True), (1.0, False)])
def test_stud_fit_tolerance(dx, mated):
    # a 2x4 plate on a 2x4 plate, shifted dx LDU sideways: rounded official matrices put
    # mated studs up to 0.5 LDU off (constants.py); 1 LDU is a fault
    b = _ldr("4 0 0 0 3020.dat", f"1 {dx} -8 0 3020.dat")
    assert (b.num_connected_components == 1) is mated
    assert b.floating_placements == []  # shifted 1 LDU it still rests on the lower plate


# ------------------------------------------------------------------ guard rails
def test_lifting_a_part_one_plate_disconnects_it_and_it_floats():
    b = _ldr("4 0 0 0 3001.dat", "1 0 -24 0 3001.dat")
    assert b.num_connected_components == 1 and b.floating_placements == []
    b = _ldr("4 0 0 0 3001.dat", "1 0 -32 0 3001.dat")  # 8 LDU higher
    assert b.num_connected_components == 2
    assert [p.content.ldraw_id for p in b.floating_placements] == ["3001"]
    assert b.floating_placements[0].leaf is b.placements[1]


def test_deleting_the_holder_of_an_overhang_makes_it_float():
    # 1x2 brick on the ground, 1x4 brick on it overhanging by two studs, a 1x2 plate under the
    # overhang held by the 1x4's anti-studs (it touches the 1x2 brick's side)
    b = _ldr("4 0 0 0 3004.dat", "1 20 -24 0 3010.dat", "2 40 0 0 3023.dat")
    assert b.floating_placements == []
    assert b.num_connected_components == 1
    b.remove(b.placements[1])
    assert [p.leaf for p in b.floating_placements] == [b.placements[1]]
    assert b.num_connected_components == 2


def test_bricks_side_by_side_touching_are_two_components():
    b = _ldr("4 0 0 0 3001.dat", "1 80 0 0 3001.dat")
    assert b.num_connected_components == 2
    assert b.floating_placements == []


def test_brick_pushed_one_ldu_into_its_neighbour_is_one_collision_not_floating():
    b = _ldr("4 0 0 0 3036.dat", "1 -20 -24 0 3001.dat", "2 59 -24 0 3001.dat")
    assert len(b.colliding_placements) == 1
    assert b.floating_placements == []


# ------------------------------------------------------------------ separate objects, unknown bases
def test_separate_object_stands_on_its_own_ground_only_when_asked():
    # a stand-alone stack 100 LDU above the lowest point, far from everything: physically it floats
    # (the default), but official files draw stands and loose parts apart like this (the ISD hull and
    # its stand in 10030), and with separate_objects=True it stands on its own ground
    b = _ldr("4 0 0 0 3001.dat", "1 400 -100 0 3001.dat", "2 400 -124 0 3001.dat")
    assert len(b.floating_placements) == 2
    res = support_graph(b, separate_objects=True)
    assert len(res.floating) == 0
    assert list(res.own_ground.values()) == [100.0]
    # the same stack with a brick under its footprint (but 76 LDU lower) floats
    b = _ldr("4 0 0 0 3001.dat", "1 0 -100 0 3001.dat", "2 0 -124 0 3001.dat")
    assert len(b.floating_placements) == 2


def test_parts_on_an_unknown_baseplate_are_grounded():
    # 3334H is not in the library (1788 Treasure Chest); the brick stands on its origin,
    # a minifigure-like part lies 32 LDU lower beside it
    text = ("1 2 0 0 0 1 0 0 0 1 0 0 0 1 3334H.DAT\n"
            "1 4 0 -24 0 1 0 0 0 1 0 0 0 1 3001.dat\n"
            "1 4 300 8 0 1 0 0 0 1 0 0 0 1 3001.dat\n")
    b = from_ldraw(text)
    assert b.floating_placements == []


# ------------------------------------------------------------------ official sets
def test_minifigure_accessories_held_in_hands_do_not_float(official_dir):
    b = from_ldraw((official_dir / "6232_1_Skeleton_Crew.mpd").read_text())
    assert b.floating_placements == []


def test_treasure_chest_on_unknown_baseplate_does_not_float(official_dir):
    b = from_ldraw((official_dir / "1788_Treasure_Chest.mpd").read_text())
    assert len(b.flattened_placements) == 186
    # the chest stands on the unknown baseplate; only the crocodile (6026/6027/6028, lines 142-146),
    # drawn lying tilted in the water apart from everything, floats as drawn
    assert sorted(p.content.ldraw_id for p in b.floating_placements) == ["6026", "6027", "6028"]
    assert len(support_graph(b, separate_objects=True).floating) == 0


def test_incremental_connection_graph_equals_a_full_rebuild(official_dir):
    b = from_ldraw((official_dir / "6232_1_Skeleton_Crew.mpd").read_text())
    before = {tuple(r) for r in connection_graph(b).pairs.tolist()}
    stud = next(c for c in connection_graph(b).free_connectors
                if c.type == "stud" and c.frame.matrix[2, 2] > 0.999)
    b.add_raw(Element("3005"), Pose.from_matrix(stud.frame.matrix))
    inc = connection_graph(b)
    full, _ = find_mated_pairs(_world_connectors(b))
    assert {tuple(r) for r in inc.pairs.tolist()} == {tuple(r) for r in full.tolist()}
    new = len(b.flattened_placements) - 1
    assert new in inc.graph and inc.graph.degree(new) >= 1  # the new brick is on its stud
    b.remove(b.placements[-1])
    assert {tuple(r) for r in connection_graph(b).pairs.tolist()} == before


def test_unknown_part_has_no_connectors_without_a_library_search():
    el = Element.unchecked("no_such_part_x9")
    t = time.perf_counter()
    assert el.connectors == ()
    assert time.perf_counter() - t < 0.05
    assert np.allclose(el.bounding_box.size.z, 8)  # empty geometry: one plate high grid box


# ------------------------------------------------------------------ round 3: settling, flexible, headgear, aliases
def _stack(y0: float, count: int, x: float = 0.0) -> list:
    """``count`` 2x4 plates stacked upward from LDraw height ``y0`` (each 8 LDU above the last)."""
    return [f"1 {x} {y0 - 8 * k} 0 3020.dat" for k in range(count)]


def test_assembly_drawn_3_ldu_high_settles_onto_what_is_below():
    # a 2x4 brick on the ground; a stack of SETTLE_MIN_PARTS plates drawn 3 LDU above its studs
    # (its lowest plate at y = -11 instead of -8): lowered 4 LDU it rests on the brick
    from bricklayer.validate.support import SETTLE_MIN_PARTS

    b = _ldr("4 0 0 0 3001.dat", *_stack(-11, SETTLE_MIN_PARTS))
    assert b.floating_placements == []
    assert b.num_connected_components == 2  # resting is support, not a connection
    # a small piece drawn 3 LDU high does not settle: it floats
    b = _ldr("4 0 0 0 3001.dat", *_stack(-11, 3))
    assert len(b.floating_placements) == 3
    # the big assembly lifted a full plate (8 LDU) off the studs floats
    b = _ldr("4 0 0 0 3001.dat", *_stack(-16, SETTLE_MIN_PARTS))
    assert len(b.floating_placements) == SETTLE_MIN_PARTS


def test_part_hanging_near_others_is_not_a_separate_object():
    # a column of three 1x1 bricks; a 1x1 plate 5 LDU beside its top (nothing below it): it floats;
    # 200 LDU away it is a separate object lying on its own ground (SEPARATE_GAP = 12 LDU)
    col = ["4 0 0 0 3005.dat", "4 0 -24 0 3005.dat", "4 0 -48 0 3005.dat"]
    b = _ldr(*col, "1 25 -48 0 3024.dat")
    assert [p.content.ldraw_id for p in b.floating_placements] == ["3024"]
    b = _ldr(*col, "1 200 -48 0 3024.dat")
    assert [p.content.ldraw_id for p in b.floating_placements] == ["3024"]
    assert len(support_graph(b, separate_objects=True).floating) == 0


def test_primitive_used_as_string_is_exempt_from_floating_and_components():
    # 6285 Black Seas Barracuda draws rigging with scaled 4-4cyli primitives
    b = _ldr("4 0 0 0 3001.dat", "0 0 -200 0 4-4cyli.dat")
    assert b.floating_placements == []
    assert b.num_connected_components == 1
    from bricklayer.validate._world import flexible_mask

    assert flexible_mask(b).tolist() == [False, True]


def test_helmet_label_off_centre_still_mates_on_the_head(official_dir):
    # 2446's tube label lies 1.26 LDU from the head's stud (all 32 on the official models)
    b = from_ldraw((official_dir / "6831_1_Message_Decoder.mpd").read_text())
    flat = b.flattened_placements
    helmet = next(i for i, p in enumerate(flat) if p.content.ldraw_id == "2446")
    head = next(i for i, p in enumerate(flat) if p.content.ldraw_id.startswith("3626"))
    assert connection_graph(b).graph.has_edge(helmet, head)
    assert b.floating_placements == []
    # lifted a plate, the helmet no longer mates
    m = flat[helmet].pose.matrix.copy()
    assert np.linalg.norm(m[:3, 3] + m[:3, 2] * 8 - flat[head].pose.matrix[:3, 3]) > TOL.joint_position


def test_embedded_copy_of_a_library_part_gets_its_connectors():
    from ldraw_data.library import get_library

    body = get_library().read("3001.dat")
    text = ("0 FILE main.ldr\n"
            "1 4 0 0 0 1 0 0 0 1 0 0 0 1 x - 3001.dat\n"
            "1 1 0 -24 0 1 0 0 0 1 0 0 0 1 3001.dat\n"
            "0 NOFILE\n0 FILE x - 3001.dat\n" + body + "\n0 NOFILE\n")
    b = from_ldraw(text)
    assert b.num_connected_components == 1  # the brick is mated on the embedded copy's studs
    assert b.floating_placements == []


def test_plate_hovering_in_mid_air_floats():
    """A fresh review found this: a 2x2 plate 30 plates above nothing but air was not reported."""
    from bricklayer import Color, Element, LegoBuild

    b = LegoBuild()
    b.add(Element("3031", Color.GREEN), (0, 0, 0))
    hover = b.add(Element("3022", Color.RED), (8, 8, 30))
    assert [p.leaf for p in b.floating_placements] == [hover]
    assert not b.is_valid()


def test_components_equal_networkx_components_of_the_graph(official_dir):
    """Components come from the part graph: scipy over its edges equals networkx on the graph itself."""
    import networkx as nx

    b = from_ldraw((official_dir / "6232_1_Skeleton_Crew.mpd").read_text())
    cg = connection_graph(b)
    ours = sorted(sorted(b.flattened_placements.index(p) for p in c) for c in cg.components)
    ex = cg.exempt
    theirs = sorted(sorted(c) for c in nx.connected_components(cg.graph) if not (len(c) == 1 and ex[next(iter(c))]))
    assert ours == theirs and len(ours) == b.num_connected_components


def test_window_glass_captured_in_its_frame_is_held():
    """Glass 60602 has no connector labels; in its frame 60593 (as 10224 Town Hall draws it: same
    pose, 10 LDU in front of the frame's origin) it meets the frame after 0.75-1.5 LDU in every axis
    direction, so it cannot fall (``bricklayer.validate._capture``). Without the frame it floats."""
    from bricklayer import Color

    def build(frame: bool) -> LegoBuild:
        b = LegoBuild()
        b.add_raw(Element("3020", Color.RED), Pose(translation=(0, 0, 0)))
        if frame:
            b.add_raw(Element("60593", Color.WHITE), Pose(translation=(0, 10, 8)))
        b.add_raw(Element("60602", Color.TRANS_CLEAR), Pose(translation=(0, 0, 8)))
        return b

    b = build(True)
    assert b.colliding_placements == [] and b.floating_placements == []
    assert [p.content.ldraw_id for p in build(False).floating_placements] == ["60602"]


def test_star_destroyer_superstructure_settles_onto_its_hull(official_dir):
    """10030: the 1,246-part superstructure is drawn above the hull and first meets it when lowered
    5 LDU (inset meshes; ``TOL.settle_drop`` 6 LDU); the hull with it stands on its own ground,
    72.35 LDU above the stand drawn apart. Before the drop was raised, all 2,927 parts floated."""
    b = from_ldraw((official_dir / "10030_1_Imperial_Star_Destroyer_UCS.mpd").read_text())
    s = support_graph(b, separate_objects=True)
    assert len(s.floating) < 30
    assert list(s.own_ground.values()) == [72.351]


def test_grid_index_finds_exactly_the_pairs_within_the_radius():
    """The connector spatial index (uniform grid, one per power of two of the radius) against all
    pairs by brute force, strict and inclusive, scalar and per-query radii."""
    from bricklayer.validate.connections import _grid_pairs

    rng = np.random.default_rng(7)
    tree = np.round(rng.uniform(-100, 100, (400, 3)) / 2) * 2  # on a 2 LDU lattice: exact ties at r
    query = np.round(rng.uniform(-100, 100, (300, 3)) / 2) * 2
    d = np.sqrt(((tree[:, None, :] - query[None, :, :]) ** 2).sum(axis=2))
    for r, strict in ((2.0, True), (2.0, False), (rng.choice([1.0, 6.0, 40.0], 300), False)):
        i, j, dist = _grid_pairs(tree, query, r, strict)
        rr = np.broadcast_to(r, (300,))
        want = np.argwhere(d < rr[None, :]) if strict else np.argwhere(d <= rr[None, :])
        assert sorted(zip(i.tolist(), j.tolist())) == sorted(map(tuple, want.tolist()))
        assert np.array_equal(dist, d[i, j])  # bit for bit: the squares added in the same order


def test_box_overlap_pairs_are_the_brute_force_pairs_sorted():
    """Query boxes against boxes (closed intervals) by the grid, against every pair tested: boxes in one
    cell, boxes over many cells and a few huge ones (tested directly), touching faces counted."""
    from bricklayer.validate.spatial import box_overlap_pairs

    rng = np.random.default_rng(11)
    lo = np.round(rng.uniform(0, 400, (900, 3)))
    hi = lo + np.round(rng.choice([0.0, 4.0, 30.0, 120.0], (900, 3)))
    hi[:3] = lo[:3] + 5000.0  # more than _GRID_MAX_CELLS cells
    q_lo = np.round(rng.uniform(0, 400, (300, 3)))
    q_hi = q_lo + np.round(rng.choice([0.0, 8.0, 60.0], (300, 3)))
    want = np.argwhere(np.all(q_lo[:, None, :] <= hi[None], axis=2) & np.all(lo[None] <= q_hi[:, None, :], axis=2))
    got = box_overlap_pairs(lo, hi, q_lo, q_hi)
    assert got.dtype == np.int64 and len(got) > 500
    assert np.array_equal(got, want)  # each pair once, sorted by (query, box)
