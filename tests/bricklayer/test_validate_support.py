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


def _ldr(*lines: str) -> LegoBuild:
    """A build from ``"color x y z part"`` lines (identity rotation, LDraw frame)."""
    out = []
    for ln in lines:
        c, x, y, z, part = ln.split()
        out.append(f"1 {c} {x} {y} {z} 1 0 0 0 1 0 0 0 1 {part}")
    return from_ldraw("\n".join(out) + "\n")


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
def test_separate_object_stands_on_its_own_ground():
    # a stand-alone stack 100 LDU above the lowest point, far from everything (as the
    # ISD hull and its stand are drawn apart in 10030): it stands on its own ground
    b = _ldr("4 0 0 0 3001.dat", "1 400 -100 0 3001.dat", "2 400 -124 0 3001.dat")
    res = support_graph(b)
    assert b.floating_placements == []
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
    assert b.floating_placements == []


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
