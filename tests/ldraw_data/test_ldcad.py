"""The LDCad shadow library as a connector source (ldraw_data.ldcad) and its merge with BrickNet's labels."""

import numpy as np
import pytest

from ldraw_data import connectors as C
from ldraw_data.ldcad import _grid_offsets, connector_rows, parse_snap_meta
from ldraw_data.library import find_shadow_library

needs_shadow = pytest.mark.skipif(find_shadow_library() is None, reason="LDCad shadow library not installed")


def test_parse_cylinder_with_grid():
    # parts/3020.dat of the shadow library (plate 2x4): the anti-studs under the plate, y = 8
    kind, rec, frames = parse_snap_meta(
        "0 !LDCAD SNAP_CYL [gender=F] [caps=one] [secs=R 6 4] [pos=0 8 0] [grid=C 4 C 2 20 20]")
    assert kind == "snap" and rec.gender == "F" and rec.secs == (("R", 6.0, 4.0),) and rec.caps == "one"
    pts = sorted(map(tuple, frames[:, :3, 3].tolist()))
    assert pts == [(x, 8.0, z) for x in (-30.0, -10.0, 10.0, 30.0) for z in (-10.0, 10.0)]
    rows = connector_rows([rec] * len(frames), frames, [("", 1.0, 1.0)] * len(frames))
    assert {r[0] for r in rows} == {("hole", "hole", None)}  # anti-studs, axis up into the plate
    assert all(np.allclose(-f[:3, 1], (0, -1, 0)) for _, f, _ in rows)


def test_grid_forms():
    assert _grid_offsets("C 2 1 20 0") == [(-10.0, 0.0, 0.0), (10.0, 0.0, 0.0)]
    # the 3-D form (parts/11299.dat): 1 x, 2 y, 2 z centred, steps 0 80 60
    assert sorted(_grid_offsets("1 C 2 C 2 0 80 60")) == [(0.0, y, z) for y in (-40.0, 40.0) for z in (-30.0, 30.0)]
    with pytest.raises(ValueError, match="grid needs 4 or 6 numbers"):
        _grid_offsets("C 2 20")


def test_clear_and_include_lines():
    assert parse_snap_meta("0 !LDCAD SNAP_CLEAR [id=axleHole]") == ("clear", "axlehole")
    kind, ref, frames, ident = parse_snap_meta(
        "0 !LDCAD SNAP_INCL [ref=connhole.dat] [pos=0 10 0] [ori=1 0 0 0 0 1 0 -1 0]")
    assert (kind, ref, ident) == ("incl", "connhole.dat", "") and np.allclose(frames[0][:3, 3], (0, 10, 0))
    assert parse_snap_meta("0 !LDCAD MIRROR_INFO [baseFlip=x]") is None


def test_stud_with_a_bore_is_an_open_stud():
    # p/stud2.dat: a male stud cylinder and a female radius-4 bore opening at its tip, turned down
    lines = ["0 !LDCAD SNAP_CYL [ID=studO] [gender=M] [caps=one] [secs=R 6 4]",
             "0 !LDCAD SNAP_CYL [ID=studO] [gender=F] [caps=one] [secs=R 4 4] [pos=0 -4 0] [ori=1 0 0 0 -1 0 0 0 -1]"]
    recs, frames = [], []
    for ln in lines:
        _, rec, fr = parse_snap_meta(ln)
        recs.append(rec)
        frames.append(fr[0])
    rows = connector_rows(recs, np.stack(frames), [("", 1.0, 1.0)] * 2)
    assert [r[0] for r in rows] == [("stud", "open", None)] and np.allclose(rows[0][1][:3, 3], 0)


@needs_shadow
def test_inherited_through_references():
    ld = ("ldcad",)
    # 3023 plate 1x2: studs from stud.dat at x = +-10, y = 0; its post from stud3.dat, drawn mirrored
    # ("1 16 0 4 0 1 0 0 0 -1 0 0 0 1 stud3.dat"): tip at y = 8, axis up into the plate
    got = {(c.type, tuple(np.round(c.position, 3))) for c in C.part_connectors("3023", sources=ld)}
    assert got == {("stud", (-10.0, 0.0, 0.0)), ("stud", (10.0, 0.0, 0.0)), ("post", (0.0, 8.0, 0.0))}
    (post,) = [c for c in C.part_connectors("3023", sources=ld) if c.type == "post"]
    assert np.allclose(post.axis, (0, -1, 0))
    # 72504 ribbed hose 2L: one round hole along X, 36 LDU (its own SNAP_CYL, centred)
    (hole,) = C.part_connectors("72504", sources=ld)
    assert hole.type == "pin_hole" and hole.length == 18.0 and np.allclose(np.abs(hole.axis), (1, 0, 0))


@needs_shadow
def test_merge_keeps_bricknet_first_and_adds_what_it_lacks():
    both, bn = C.part_connectors("3001"), C.part_connectors("3001", sources=("bricknet",))
    assert both == bn  # LDCad's 8 studs and 8 anti-studs are all BrickNet's already
    assert C.part_connectors("72504", sources=("bricknet",)) == () and C.has_connectors("72504")
    # 42446: BrickNet labels the stud hole a neck bracket; LDCad's anti-studs at its two faces are added
    types = [c.type for c in C.part_connectors("42446")]
    assert types[:4] == [c.type for c in C.part_connectors("42446", sources=("bricknet",))]
    assert types.count("antistud") == 2 and "neck_bracket" in types
    with pytest.raises(ValueError, match="unknown connector source"):
        C.part_connectors("3001", sources=("ldraw",))


@needs_shadow
def test_coverage_of_the_library():
    covered, total = C.catalog_connector_coverage()
    # benchmarks/connector_coverage.py: 15,329 from BrickNet, LDCad and hose segments, 67 more composite pieces
    # (15,396 with stud/hole/axle-type connectors), 2,022 more flat stickers' backs (ldraw_data.stickers)
    assert total == 19370 and covered == 17418
