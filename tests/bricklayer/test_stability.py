"""Stability: masses, tipping of a 1x1 tower, equilibrium of a plate cantilever (values worked by hand)."""

import math

import pytest

from bricklayer import Element, LegoBuild
from bricklayer.stability import (ABS_DENSITY, CAPACITIES, FILL_FACTOR, LDU3_CM3, part_mass_properties,
                                  stability_check, stability_report, tipping)


def box_mass(x, y, z):
    """Mass (g) of an open part from its bounding box (LDU) and the fill factor."""
    return x * y * z * FILL_FACTOR * LDU3_CM3 * ABS_DENSITY


def test_one_by_one_brick_mass_from_its_box():
    # 3005 is open underneath: box 20 x 28 (24 + 4 stud) x 20 LDU -> 11200 LDU^3 x 0.47 x 6.4e-5 cm^3 x 1.05
    mp = part_mass_properties("3005")
    assert not mp.closed
    assert mp.mass == pytest.approx(0.35374, abs=1e-4)
    assert mp.center[1] == pytest.approx(10)  # LDraw frame: y from -4 (stud top) to 24 (bottom)


def test_closed_round_tile_uses_its_mesh_volume():
    # 4073 (round plate 1x1) is a closed certified mesh: its volume is well below its 20 x 8 x 20 box
    mp = part_mass_properties("4073")
    assert mp.closed and 1700 < mp.volume < 1900


def tower(n):
    b = LegoBuild()
    for k in range(n):
        b.add(Element("3005"), (0, 0, 3 * k))
    return b


def test_tower_of_four_tilt_angle_by_hand():
    # centre of mass: each brick's box centre is 14 LDU above its bottom; bricks every 24 LDU
    # -> h_c = 14 + 12 * 3 = 50 LDU; footprint 20 x 20 centred -> d = 10; theta = atan(10 / 50) = 11.3099 deg
    t = tipping(tower(4))
    assert t.height == pytest.approx(50)
    assert t.margin == pytest.approx(10)
    assert t.inside
    assert t.tilt_deg == pytest.approx(math.degrees(math.atan(10 / 50)), abs=1e-3)
    assert t.mass == pytest.approx(4 * box_mass(20, 28, 20), rel=1e-6)
    ok, detail = stability_check(tower(4), min_tilt_deg=11.0)
    assert ok, detail
    ok, detail = stability_check(tower(4), min_tilt_deg=12.0)
    assert not ok and "critical tilt 11.3 deg" in detail


def cantilever(long: bool) -> LegoBuild:
    """A 1x2 brick with a two-layer beam of 1x8 plates each way, held by one stud each side."""
    b = LegoBuild()
    b.add(Element("3004"), (0, 0, 0))
    lower = [1, 9, 17] if long else [1, 9]
    upper = [5, 13] if long else [5]
    for x in lower:
        b.add(Element("3460"), (x, 0, 3))
        b.add(Element("3460"), (-6 - x, 0, 3))
    for x in upper:
        b.add(Element("3460"), (x, 0, 4))
        b.add(Element("3460"), (-6 - x, 0, 4))
    return b


def root_load(arms_ldu):
    """Load fraction of the root stud (hand): moment about the stud over r = 4 mm, minus the weight, over T.

    The stud may move its compression to the edge of its 20 x 20 LDU cell while the clutch pulls at the
    stud: |M| <= r (N + lam T) with N the weight carried (compression) and r = 10 LDU = 4 mm.
    """
    w = box_mass(160, 12, 20) * 1e-3 * 9.81  # one 1x8 plate (3460), N
    moment = w * sum(arms_ldu) * 0.4  # N mm
    return (moment / 4.0 - w * len(arms_ldu)) / CAPACITIES.clutch


def test_short_cantilever_holds_long_one_breaks():
    # right arm, root stud at x = 30 LDU; plate centres (LDU): lower 100, 260 (, 420); upper 180 (, 340)
    short = stability_report(cantilever(False))
    assert short.equilibrium.feasible
    assert short.equilibrium.load == pytest.approx(root_load([70, 230, 150]), rel=1e-3)  # 0.510
    long = stability_report(cantilever(True))
    assert long.tipping.inside  # it does not tip: it breaks at the root studs
    assert not long.equilibrium.feasible
    assert long.equilibrium.load == pytest.approx(root_load([70, 230, 390, 150, 310]), rel=1e-3)  # 1.336
    top = long.to_dict()["equilibrium"]["most_loaded"]
    assert any("3004" in c["a"] for c in top)
    assert "FAILS" in long.text()


def test_build_method_returns_the_report():
    rep = tower(2).stability()
    assert rep.stable and rep.to_dict()["equilibrium"]["holds"]
