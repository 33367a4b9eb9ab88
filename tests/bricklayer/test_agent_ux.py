"""Issue 17 (the agent's experience): connector table and connect() orientation, on the real library.

Connector positions were read from the parts' BrickNet labels as bricklayer exposes them (``Element.connectors``):
3001 "Brick 2 x 4" studs at z = 24 LDU on x = -30..30, y = +-10; 32524 "Technic Beam 7" pin holes at y = -60..60
step 20 with a vertical axis; 3700 "Technic Brick 1 x 2 with Hole" pin hole at (0, 0, 14) along y.
"""

from __future__ import annotations

import pytest

import bricklayer
from bricklayer import Color, Element, describe_connectors
from bricklayer.connector import connector_roles


def _row(table: str, index: int) -> str:
    return next(ln for ln in table.splitlines()[1:] if ln.split()[0] == str(index))


def test_describe_connectors_brick_studs_grid():
    e = Element("3001", Color.RED)
    t = describe_connectors(e)
    assert len(t.splitlines()) == 1 + len(e.connectors) == 20
    # stud 11 is the front-left stud: row 0 (y = -10, front) col 0 (x = -30, left)
    assert _row(t, 11).split()[1:6] == ["stud", "top,", "row", "0", "col"]
    assert "(-30, -10, 24)" in _row(t, 11) and "+z" in _row(t, 11)
    assert "row 1 col 3" in _row(t, 18) and "(30, 10, 24)" in _row(t, 18)
    assert "bottom, row 0 col 0" in _row(t, 0)
    # the three tubes in a line: ends and the middle one
    assert [r.split(", ")[1] for r in connector_roles(e.connectors)[8:11]] == ["end", "middle", "end"]


def test_describe_connectors_beam_and_technic_brick_roles():
    beam = describe_connectors(Element("32524", Color.RED), "pin_hole")
    lines = beam.splitlines()[1:]
    assert len(lines) == 7
    assert "through z, end" in lines[0] and "through z, end" in lines[6]
    assert all("through z, middle" in ln for ln in lines[1:6])
    assert "slides +-10 LDU" in lines[0]
    tb = describe_connectors(Element("3700", Color.RED))
    assert "through y" in _row(tb, 2) and "pin_hole" in _row(tb, 2)
    assert "front" in _row(tb, 3) and "back" in _row(tb, 4)


def test_describe_connectors_of_build_and_filter():
    b = bricklayer.LegoBuild()
    b.add(Element("3023", Color.RED))
    t = describe_connectors(b, "stud")
    assert t.splitlines()[0].startswith("free connectors")
    assert len(t.splitlines()) == 3 and all("on 3023" in ln for ln in t.splitlines()[1:])
    assert "(none of type 'towball')" in describe_connectors(b, "towball")


def test_describe_connectors_in_api_reference():
    assert "## describe_connectors(" in bricklayer.api_reference()


# --------------------------------------------------------------------------- connect() intent and collisions
# 4079 "Minifig Seat 2 x 2": anti-studs at (+-10, +-10, 0), its two studs at the front (y = -10, z = 8) and the
# backrest at +Y. 3020 "Plate 2 x 4" has studs at z = 8.

import numpy as np

from bricklayer import ConnectCollisionWarning, LegoBuild, Rotation


def _seat_on_plate(**kw):
    b = LegoBuild()
    b.add(Element("3020", Color.RED), rotation=Rotation.DEG_90)
    seat = Element("4079", Color.RED)
    p = b.connect(seat, seat.find_connector("antistud", toward=(-10, -10, 0)),
                  b.find_connector("stud", toward=(0, 0, 100)), **kw)
    return b, p


@pytest.mark.parametrize("facing,expected", [("+x", (1, 0, 0)), ("-y", (0, -1, 0)), ("back", (0, 1, 0)),
                                             ("left", (-1, 0, 0))])
def test_connect_facing_is_a_world_direction(facing, expected):
    b, p = _seat_on_plate(facing=facing)
    front = p.pose.rotation.matrix @ np.array([0.0, -1.0, 0.0])  # the seat's front is its -Y
    assert np.allclose(front, expected, atol=1e-9)
    assert b.is_valid() and b.is_connected()


def test_connect_facing_errors():
    with pytest.raises(ValueError, match="no quarter turn"):
        _seat_on_plate(facing="up")
    with pytest.raises(ValueError, match="use one of"):
        _seat_on_plate(facing="north")
    with pytest.raises(ValueError, match="not both|one or the other"):
        _seat_on_plate(facing="+x", target_rotation=90)


def _second_seat(**kw):
    b, _ = _seat_on_plate()
    seat = Element("4079", Color.RED)
    # the highest free stud is on the first seat's front edge; mated at rotation 0 the new seat's body
    # overlaps the first seat's backrest
    return b, b.connect(seat, seat.find_connector("antistud", toward=(-10, -10, 0)),
                        b.find_connector("stud", toward=(0, 0, 100)), **kw)


def test_connect_warns_at_once_on_collision_with_what_to_try():
    with pytest.warns(ConnectCollisionWarning, match=r"collides with .*4079.*target_rotation=180"):
        b, p = _second_seat()
    assert b.colliding_placements  # the warning is true: validation agrees


def test_connect_away_picks_a_pose_that_does_not_collide():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", ConnectCollisionWarning)
        b, p = _second_seat(away=True)
    assert not b.colliding_placements
    assert len(b.joints) == 2 and b.is_connected()
