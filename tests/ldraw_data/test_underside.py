"""Anti-studs of a plate-thick open underside, derived from the part's drawing (``ldraw_data.underside``).

Values from the library's files: ``s/6177s01.dat`` (Plate 8 x 8 Round) closes its underside with the rim
``48\\4-4cyli.dat`` scaled 76 (inner radius 76 LDU, bottom face at y = 8, ceiling ``48\\1-4disc.dat`` at
y = 4) and draws a cross-shaped inner wall (faces at |x| or |z| = 36..60); BrickNet and LDCad (``[grid=C 4
C 6 20 20]`` and ``[grid=C 2 C 4 100 20]``) list the 32 grid points inside that wall only. A stud (radius 6,
``stud.dat``) on the grid at distance r from the centre fits inside the rim when r + 6 <= 76 + 1 (the stud
press-fit allowance): r <= 71, i.e. (+-10, +-70), (+-70, +-10) and (+-50, +-50) (r = 70.7), not (70, 30)
(r = 76.2).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from ldraw_data import underside
from ldraw_data.connectors import SOURCES, part_connectors

_OTHERS = tuple(s for s in SOURCES if s != "underside")


@pytest.fixture(autouse=True)
def _needs_library(library):
    return library


def _antistuds(part_id: str, sources=SOURCES) -> set:
    return {(round(float(c.position[0]), 3), round(float(c.position[1]), 3), round(float(c.position[2]), 3))
            for c in part_connectors(part_id, sources=sources) if c.type == "antistud"}


def test_round_plate_8x8_gets_the_grid_points_inside_its_rim():
    odd = range(-70, 71, 20)
    inside_rim = {(float(x), 8.0, float(z)) for x, z in itertools.product(odd, odd)
                  if np.hypot(x, z) + underside.STUD_RADIUS_LDU <= 76 + underside.FIT_TOLERANCE_LDU}
    listed = _antistuds("6177", _OTHERS)
    assert len(listed) == 32 and listed < inside_rim  # the other sources stop at the cross-shaped wall
    derived = _antistuds("6177") - listed
    assert derived == inside_rim - listed
    assert len(derived) == 12
    assert (70.0, 8.0, 10.0) in derived and (50.0, 8.0, 50.0) in derived
    assert (70.0, 8.0, 30.0) not in derived  # its wall would reach radius 82.2, past the rim
    # the derived rows mate like the listed ones: same type, axis up into the plate
    rows = [c for c in part_connectors("6177") if c.type == "antistud" and abs(c.position[0]) == 70]
    assert rows and all(np.allclose(c.axis, [0, -1, 0]) for c in rows)


def test_a_brick_underside_is_left_to_its_tubes():
    # 3001's cavity is 20 LDU tall: a stud there is held only by the tubes and walls the sources list
    assert _antistuds("3001") == _antistuds("3001", _OTHERS)
    assert len(_antistuds("3001")) == 8


def test_a_grid_point_with_the_part_drawn_below_its_seat_gets_nothing(monkeypatch):
    # 4488 (Plate 2 x 2 with 1 Wheel Pin): its wheel holder hangs below the plate at x = 10 (anti-studs at
    # y = 16 there); at (10, 8, +-10) a stud would fit under the plate's ceiling, but a part standing there
    # would run into the holder's walls below the seat plane
    cs = part_connectors("4488", sources=_OTHERS)
    frames, kinds = np.stack([c.frame for c in cs]), [c.type for c in cs]
    assert len(underside.underside_antistuds("4488", frames, kinds)) == 0
    monkeypatch.setattr(underside, "OPEN_BELOW_HEIGHTS_LDU", ())
    got = underside.underside_antistuds("4488", frames, kinds)
    assert sorted(np.round(got[:, :3, 3]).tolist()) == [[10.0, 8.0, -10.0], [10.0, 8.0, 10.0]]


def test_no_antistud_rows_no_derivation():
    assert len(underside.underside_antistuds("3001", np.zeros((0, 4, 4)), [])) == 0


def test_fit_tolerance_is_the_validators_stud_press_fit_allowance():
    # the derived anti-studs are only right while the validator excuses what they let a stud overlap
    from bricklayer.validate.press_fit import PRESS_FIT_ALLOWANCE

    assert underside.FIT_TOLERANCE_LDU == PRESS_FIT_ALLOWANCE["stud"]
