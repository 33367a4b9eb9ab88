"""A fabric sheet hung through its holes on supported parts is held (audit round 6, F47; issue 16 item 1).

6716 Covered Wagon, line 79: the wagon cover 71396p01c01 ("Sheet Fabric Wagon Cover ... (Formed)") hangs
through the 6 holes along its lower edges on the arms of the 6 plates 4623 ("Plate 1 x 2 with Vertical Bar
on Long Side and Long Arm", lines 61-66) along both sides of the wagon. The audit's own reader measures it
drawn 0.21 LDU clear of the arms; lowered 3 / 4 / 6 LDU it meets them 0.17 / 0.55 / 2.51 LDU deep: the
holes are wider than the arms, so the cover cannot fall off but has more play than the hanging test's
2 LDU (``bricklayer.validate.support.HANG_DROP``). Sheets get longer falls
(``SHEET_HANG_STEPS``, up to ``SHEET_HANG_DROP`` = 6 LDU) and are weighed on all their holders together
(``_hangs_from_all``); the cover's centre of mass lies between the arms of both sides.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bricklayer import read_ldraw
from bricklayer.validate import support
from bricklayer.validate.collisions import collision_engine
from bricklayer.validate.support import support_graph

_MODEL = "6716_1_Covered_Wagon.mpd"
_COVER_LINE = 79
_COVER = "1 15 0 -178 100 1 0 0 0 1 0 0 0 1 71396p01c01.dat"


def _floating_ids(path: Path) -> list[str]:
    b = read_ldraw(path)
    keys = collision_engine(b).wa.keys
    return [keys[i] for i in support_graph(b).floating.tolist()]


def _with_cover(official_dir: Path, tmp_path: Path, line: str) -> Path:
    lines = (official_dir / _MODEL).read_text(encoding="utf-8").splitlines()
    assert lines[_COVER_LINE - 1].strip() == _COVER  # the culprit line, as the audit cites it
    lines[_COVER_LINE - 1] = line
    out = tmp_path / _MODEL
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


def test_wagon_cover_hung_through_its_holes_on_the_arms_is_held(official_dir):
    b = read_ldraw(official_dir / _MODEL)
    eng = collision_engine(b)
    cover = eng.wa.keys.index("71396p01c01")
    res = support_graph(b)
    assert cover not in res.floating.tolist()
    holders = sorted(int(a) for a, p in res.edges.tolist() if p == cover)
    assert [eng.wa.keys[h] for h in holders] == ["4623"] * 6  # the six arms, both sides


def test_without_the_sheet_falls_the_cover_floats(official_dir, monkeypatch):
    # the 2 LDU hanging test alone does not reach the arms: the rule above is what holds it
    monkeypatch.setattr(support, "SHEET_HANG_STEPS", ())
    assert _floating_ids(official_dir / _MODEL) == ["71396p01c01"]


@pytest.mark.parametrize("lift", [24, 40])
def test_cover_lifted_off_the_bars_floats(official_dir, tmp_path, lift):
    # lifted 4-16 LDU the holes still ride on the arms' vertical bars (held by the 2 LDU hanging test
    # alone); 24 LDU and more lifts them clear of the bars' tops: nothing holds the cover
    lifted = _COVER.replace(" -178 ", f" {-178 - lift} ")
    assert _floating_ids(_with_cover(official_dir, tmp_path, lifted)) == ["71396p01c01"]
