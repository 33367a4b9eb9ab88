"""A stud seated between a round plate's inner wall and its rim mates (audit round 6, C1; issue 16).

10019 Rebel Blockade Runner, submodel B4: the 8 x 8 round plate 6177 (line 806) lies flush on the top studs of
the corner panel 30562 (line 804), on its grid (offset (0, -8.02, -0.05), matrix scaled 1.001). The panel's
open stud at (70, 10) in the plate's frame reaches 70.7 + 6 = 76.7 LDU from the plate's centre, 0.7 LDU past
the rim drawn at radius 76 (``48\\4-4cyli.dat`` scaled 76 in ``s/6177s01.dat``). The plate's listed anti-studs
stop at its cross-shaped inner wall (radius 58.3), so the pair was not mated and the 0.7 LDU was reported as a
collision; ``ldraw_data.underside`` now derives the anti-studs between the wall and the rim, the pair mates
and the stud press-fit allowance covers the rim.
"""

from __future__ import annotations

import pytest

from bricklayer import from_ldraw
from bricklayer.validate import validation_report

from _ldr_helpers import ldr_build

_MODEL = "10019_Rebel_Blockade_Runner_UCS.mpd"
_PANEL_LINE, _PLATE_LINE = 804, 806
_PANEL = "1 15 -10 -152 0 0 0 1 0 1 0 -1 0 0 30562.dat"
_PLATE = "1 320 {x} {y} {z} -1.001 0 0 0 1.001 0 0 0 -1 6177.dat"
_POSE = (-10.047, -160.021, 0.0)


def _report(dx=0.0, dy=0.0, dz=0.0):
    x, y, z = _POSE
    return validation_report(from_ldraw(_PANEL + "\n" + _PLATE.format(x=x + dx, y=y + dy, z=z + dz) + "\n"))


def test_the_official_lines_are_the_pair_cited(official_dir):
    lines = (official_dir / _MODEL).read_text(encoding="utf-8").splitlines()
    assert lines[_PANEL_LINE - 1].strip() == _PANEL
    assert lines[_PLATE_LINE - 1].strip() == _PLATE.format(x=-10.047, y=-160.021, z=0)


def test_round_plate_on_the_panel_studs_at_its_official_pose_is_one_clean_component(library):
    r = _report()
    d = r.to_dict()
    assert d["components"] == 1
    assert d["collisions"] == []
    assert r.valid


@pytest.mark.parametrize("push", [(0, 1, 0), (1, 0, 0), (0, 0, 1)], ids=["down", "sideways-x", "sideways-z"])
def test_pushed_one_ldu_it_collides(library, push):
    d = _report(*push).to_dict()
    assert len(d["collisions"]) == 1
    assert {d["collisions"][0]["a"]["part_id"], d["collisions"][0]["b"]["part_id"]} == {"30562", "6177"}


def test_a_1x2_plate_on_the_grid_between_the_wall_and_the_rim_mates(library):
    # 3023 turned a quarter: its studs at (70, +-10), both on derived anti-studs only; drawn 0.7 LDU into
    # the rim, as in 10019 (before: 2 components and a collision)
    d = validation_report(from_ldraw("1 4 0 0 0 1 0 0 0 1 0 0 0 1 6177.dat\n"
                                     "1 1 70 8 0 0 0 1 0 1 0 -1 0 0 3023.dat\n")).to_dict()
    assert d["components"] == 1 and d["collisions"] == []


def test_a_2x2_plate_on_the_grid_under_the_rim_mates(library):
    # 3022's studs at (50, +-10) (listed anti-studs) and (70, +-10) (derived): one clean component
    d = validation_report(ldr_build("4 0 0 0 6177.dat", "1 60 8 0 3022.dat")).to_dict()
    assert d["components"] == 1 and d["collisions"] == []


@pytest.mark.parametrize("x", [65, 70], ids=["quarter-stud", "half-stud"])
def test_a_2x2_plate_off_the_grid_under_the_rim_stays_unconnected(library, x):
    # studs at (x -+ 10, +-10): off the plate's 20 LDU grid, which a real plate cannot take
    d = validation_report(ldr_build("4 0 0 0 6177.dat", f"1 {x} 8 0 3022.dat")).to_dict()
    assert d["components"] == 2
