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
