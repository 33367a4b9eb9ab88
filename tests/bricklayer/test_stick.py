"""stick(): a flat library sticker glued onto a face of a placed part (bricklayer.construction.stickers).

Geometry worked out by hand (BrickLayer frame: +X right, +Y back, +Z up, LDU):

- brick 2 x 4 (3001) added at the origin fills x 0..80, y 0..40, z 0..24 (studs to z 28); its front face is
  the plane y = 0;
- sticker 004113b is 38 x 22 LDU (its back face, ``box5-12`` scaled 19 x 11, see
  tests/ldraw_data/test_stickers.py) and 0.25 LDU thin: stuck on the middle of the front it covers
  x 21..59, z 1..23, and lies in y -0.25..0 (in front of the face);
- slope 45 2 x 2 (3039) at the origin: its sloped face rises from (y 0, z 4) to (y 20, z 24) (p/3039 drawn
  from LDraw y 20 at z -20 up to y 0 at z 0); a ray from the front through the middle of the alignment
  box (x 20, z 12) hits it at y 8; the sticker lies on that face, turned 45 degrees, centred 0.125 LDU in
  front of it along its normal (0, -0.7071, 0.7071).
"""

import math

import numpy as np
import pytest

from bricklayer import Element, LegoBuild, stick
from bricklayer.connector import ConnectorMismatchError
from bricklayer.errors import BrickLayerValueError


@pytest.fixture(autouse=True)
def _needs_library(library):
    return library


def _box(p):
    b = p.bounding_box
    return np.round([tuple(b.min), tuple(b.max)], 4).tolist()


def _clean(b):
    assert b.colliding_placements == []
    assert b.floating_placements == []
    assert b.num_connected_components == 1
    assert b.is_valid()


def test_stick_on_the_front_of_a_brick():
    b = LegoBuild()
    wall = b.add(Element("3001"))
    s = stick(b, "004113b", onto=wall, side="front")
    assert _box(s) == [[21.0, -0.25, 1.0], [59.0, 0.0, 23.0]]
    _clean(b)


def test_stick_at_an_offset_and_on_the_right_side():
    b = LegoBuild()
    wall = b.add(Element("3001"))
    s = stick(b, Element("004113b"), onto=wall, side="front", at=(-20, 0))
    assert _box(s) == [[1.0, -0.25, 1.0], [39.0, 0.0, 23.0]]
    r = stick(b, "004113b", onto=wall, side="right")  # the 40 x 24 end face, x = 80
    assert _box(r) == [[80.0, 1.0, 1.0], [80.25, 39.0, 23.0]]
    _clean(b)


def test_stick_on_the_sloped_face_of_a_slope():
    b = LegoBuild()
    slope = b.add(Element("3039"))
    s = stick(b, "004113b", onto=slope, side="front")
    back = s.content.connectors[0]
    assert back.type == "sticker_back"
    world = s.pose.matrix @ back.frame.matrix
    # the back centre lies on the sloped face y = z - 4 at x 20, z 12, the axis into the part
    assert np.allclose(world[:3, 3], (20.0, 8.0, 12.0), atol=1e-6)
    assert np.allclose(world[:3, 2], (0.0, math.sqrt(0.5), -math.sqrt(0.5)), atol=1e-6)
    _clean(b)


def test_a_point_off_the_part_raises():
    b = LegoBuild()
    wall = b.add(Element("3001"))
    with pytest.raises(BrickLayerValueError, match="misses part '3001'.*u -40.0 to 40.0"):
        stick(b, "004113b", onto=wall, side="front", at=(60, 0))
    assert len(b.placements) == 1


def test_a_sticker_over_an_edge_or_on_the_studs_raises():
    b = LegoBuild()
    wall = b.add(Element("3001"))
    with pytest.raises(BrickLayerValueError, match="not flat under the whole sticker.*hangs over an edge"):
        stick(b, "004113b", onto=wall, side="front", at=(30, 0))  # x 51..89: 9 LDU past the end
    with pytest.raises(BrickLayerValueError, match="stands 4.0 LDU out of the face"):
        stick(b, "004113b", onto=wall, side="top")  # the studs stand 4 LDU over the top face
    with pytest.raises(BrickLayerValueError, match="hangs over an edge"):
        stick(b, "004113b", onto=wall, side="right", rotation=90)  # 38 tall on a 24 LDU high face
    assert len(b.placements) == 1


def test_the_failing_point_is_given_with_its_height_up_as_at_is():
    # 3001's front face spans z 0..24 (centre 12); the 22 LDU high sticker moved up 5 spans z 6..28 and hangs
    # over the top edge, so its failing points lie above its centre: the top sample row, 11 - 0.25 = 10.75 up.
    # Moved down 5 it spans z -4..18: the first failing point is 7.25 below its centre (z -0.25, under the
    # face's bottom edge z 0).
    b = LegoBuild()
    wall = b.add(Element("3001"))
    with pytest.raises(BrickLayerValueError, match=r"at \(-18.8, \+10.8\) LDU from the sticker's centre"):
        stick(b, "004113b", onto=wall, side="front", at=(0, 5))
    with pytest.raises(BrickLayerValueError, match=r"at \(-18.8, -7.2\) LDU from the sticker's centre"):
        stick(b, "004113b", onto=wall, side="front", at=(0, -5))
    assert len(b.placements) == 1


def test_a_sticker_is_not_stuck_onto_another_sticker():
    b = LegoBuild()
    wall = b.add(Element("3001"))
    stick(b, "004113b", onto=wall, side="front", name="st")
    with pytest.raises(BrickLayerValueError, match="onto is the sticker '004113b' \\(placement 'st'\\).*not on another"):
        stick(b, "004113b", onto="st", side="front")
    assert len(b.placements) == 2


def test_a_huge_or_non_finite_at_raises_without_numpy_warnings():
    import warnings

    b = LegoBuild()
    wall = b.add(Element("3001"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a numpy RuntimeWarning (overflow in the ray cast) fails the test
        with pytest.raises(BrickLayerValueError, match="misses part '3001'.*u -40.0 to 40.0"):
            stick(b, "004113b", onto=wall, side="front", at=(1e308, 0))
        with pytest.raises(BrickLayerValueError, match="must be finite"):
            stick(b, "004113b", onto=wall, side="front", at=(float("nan"), 0))
    assert len(b.placements) == 1


def test_only_flat_stickers_are_stuck():
    b = LegoBuild()
    wall = b.add(Element("3001"))
    with pytest.raises(BrickLayerValueError, match="'3001' has no sticker_back connector"):
        stick(b, "3001", onto=wall)
    with pytest.raises(BrickLayerValueError, match="'003497bc01' has no sticker_back"):
        stick(b, "003497bc01", onto=wall)  # formed: drawn bent to its part


def test_connect_with_a_sticker_back_names_stick():
    b = LegoBuild()
    b.add(Element("3001"))
    sticker = Element("004113b")
    stud = b.find_connector("stud", toward=(0, 0, 100))
    with pytest.raises(ConnectorMismatchError, match=r"mates with no connector.*stick\(build, sticker"):
        b.connect(sticker, sticker.connectors[0], stud)


def test_a_sticker_stuck_after_a_validation_joins_the_component_on_the_append_path():
    from bricklayer.validate.connections import connection_graph

    b = LegoBuild()
    wall = b.add(Element("3001"))
    assert b.num_connected_components == 1
    stick(b, "004113b", onto=wall, side="back")
    g = connection_graph(b)
    assert g.appended is not None  # extended, not rebuilt
    assert g.glued.tolist() == [[0, 1]]
    assert b.num_connected_components == 1


def test_official_library_sticker_is_glued_to_the_part_under_its_back(official_dir):
    # 10156 LEGO Truck: sticker 003432f (LEGO logo) lies on the windscreen canopy 4474 (its back 0.44 LDU off the surface, within
    # held.GLUE_REACH 0.8 LDU); before the sticker rule joined it, it was a component of its own (3 -> 2)
    from bricklayer import from_ldraw
    from bricklayer.validate.connections import connection_graph

    b = from_ldraw((official_dir / "10156_1_LEGO_Truck.mpd").read_text())
    flat = b.flattened_placements
    g = connection_graph(b)
    pairs = {tuple(sorted((flat[i].content.ldraw_id, flat[j].content.ldraw_id))) for i, j in g.glued.tolist()}
    assert pairs == {("003432f", "4474")}
    assert b.num_connected_components == 2


def _sunk(dy):
    """A 3001 at the origin (its front face the plane y = 0, walls 4 LDU thick) and sticker 004113b laid on
    that face by stick(), then moved ``dy`` LDU along +y, into the wall."""
    from bricklayer.geometry.types import Pose

    b = LegoBuild()
    wall = b.add(Element("3001"))
    m = stick(b, "004113b", onto=wall, side="front").pose.matrix.copy()
    m[1, 3] += dy
    out = LegoBuild()
    out.add(Element("3001"))
    out.add_raw(Element("004113b"), Pose.from_matrix(m))
    return out


@pytest.mark.parametrize("dy", [0.3, 1.0, 2.0, 3.5])
def test_a_sticker_sunk_into_a_wall_collides(dy):
    # the slab (0.25 LDU) moved dy into the 4 LDU wall lies wholly in its material: its front face dy - 0.25
    # under the surface, so the move out is dy along -y (the nearer way out), which lays its back on the face
    from bricklayer.validate.collisions import collision_details

    b = _sunk(dy)
    assert len(b.colliding_placements) == 1
    (rec,) = collision_details(b)
    assert rec.extra == {"sunk_sticker": True}
    assert rec.depth == pytest.approx(dy) and rec.direction == (0.0, -1.0, 0.0)
    assert not b.is_valid()


def test_a_sticker_on_or_half_into_a_face_does_not_collide_and_a_loose_one_is_told_to_use_stick():
    from bricklayer.validate import validation_report

    for dy in (0.0, 0.2):  # its front face still outside the wall (10252's stickers lie up to 0.25 in)
        assert _sunk(dy).colliding_placements == []
    text = validation_report(_sunk(1.0)).text
    assert "sticker is sunk into the part" in text and "stick(build, sticker, onto=part" in text
    assert "seat it on studs" not in text


def _moved(onto, side, at, move, below=None):
    """Sticker 004113b laid by stick() on ``side`` of part ``onto`` (a part id; stacked on a 3001 when
    ``below`` is True, else at the origin) at ``at`` (LDU), then moved by ``move`` (3-vector, LDU, build
    frame) with add_raw, as a hand-written or edited file would place it."""
    from bricklayer.geometry.types import Pose

    def walls():
        out = LegoBuild()
        part = out.add(Element(onto)) if not below else out.stack(Element(onto), on=out.add(Element("3001")))
        return out, part

    b, part = walls()
    m = stick(b, "004113b", onto=part, side=side, at=at).pose.matrix.copy()
    m[:3, 3] += np.asarray(move, dtype=float)
    out, _ = walls()
    out.add_raw(Element("004113b"), Pose.from_matrix(m))
    return out


@pytest.mark.parametrize("d", [0.5, 1.0, 2.0])
def test_a_sticker_sunk_into_a_slope_near_its_lower_edge_collides(d):
    # breakit2 F1: 3039 stacked on a 3001, the sticker stuck at (0, 2) on its 45 degree face (its lower edge
    # 1.5 LDU above the face's lower edge, where the slope meets the brick's front lip), moved d LDU into the
    # face along its inward normal (0, 0.7071, -0.7071); once VALID at d = 0.5 and 2 (the nearest face a ray
    # met there was an inner face of the part). The way out is d along the outward normal.
    from bricklayer.validate.collisions import collision_details

    k = d / math.sqrt(2)
    b = _moved("3039", "front", (0, 2), (0, k, -k), below=True)
    (rec,) = collision_details(b)
    assert rec.extra == {"sunk_sticker": True}
    assert rec.depth == pytest.approx(d, abs=1e-3)
    assert np.allclose(rec.direction, (0, -math.sqrt(0.5), math.sqrt(0.5)), atol=1e-6)
    assert not b.is_valid()


@pytest.mark.parametrize("dx", [55, 70])
def test_a_sticker_slid_off_its_face_is_neither_held_nor_joined(dx):
    # breakit2 F2: on a 3001 stacked on a 3001 the sticker laid on the middle of the front covers x 21..59;
    # slid 55 / 70 LDU right it covers x 76..114 / 91..129, past the corner (x 80): its coverage grid (7 x 7,
    # 1 LDU inside its edges: x 77..113) has 6 / 7 of its columns over nothing, over the 0.8 allowed
    # (sunk_stickers.UNCOVERED_MAX). It was VALID, in 2 components.
    from bricklayer.validate import validation_report

    b = _moved("3001", "front", (0, 0), (dx, 0, 0), below=True)
    assert b.colliding_placements == []
    assert [p.content.ldraw_id for p in b.floating_placements] == ["004113b"]
    assert b.num_connected_components == 2
    text = validation_report(b).text
    assert "sticker whose back does not lie wholly on a face" in text and "stack(" not in text


@pytest.mark.parametrize("dx", [21.0, 21.5])
def test_a_sticker_flush_with_or_a_hair_over_its_faces_edge_is_glued(dx):
    # slid 21 LDU its right edge is on the corner (x 42..80); 21.5 LDU hangs 0.5 LDU over, within the allowed
    # sunk_stickers.COVER_INSET (1 LDU)
    _clean(_moved("3001", "front", (0, 0), (dx, 0, 0), below=True))


@pytest.mark.parametrize("lift", [1.0, 5.0])
def test_a_sticker_lifted_off_a_brick_on_the_ground_floats(lift):
    # breakit2 F3: the 3001 stands on the ground (z 0); the sticker laid on its front (z 1..23) moved lift LDU
    # out along -y lies on no face, its lower edge 1 LDU over the ground, within TOL.ground_band (4 LDU): it
    # once stood on the ground on its 0.25 LDU edge. A sticker is glued, never resting.
    b = _moved("3001", "front", (0, 0), (0, -lift, 0))
    assert [p.content.ldraw_id for p in b.floating_placements] == ["004113b"]
    assert not b.is_valid()


def test_stick_refuses_an_undocumented_side_a_non_finite_rotation_and_a_taken_place():
    # breakit2 F9: side="up" was taken as "top"; rotation=nan failed later as "49 of 49 sample points fail";
    # the same sticker stuck twice at one place succeeded (validate then said DUPLICATE)
    b = LegoBuild()
    wall = b.add(Element("3001"))
    with pytest.raises(BrickLayerValueError, match=r"side='up'.*'front', 'back'"):
        stick(b, "004113b", onto=wall, side="up")
    for bad in (math.nan, math.inf, "ninety"):
        with pytest.raises(BrickLayerValueError, match="finite number of degrees"):
            stick(b, "004113b", onto=wall, rotation=bad)
    stick(b, "004113b", onto=wall, side="front")
    with pytest.raises(BrickLayerValueError, match="already on the front face of '3001'.*taken"):
        stick(b, "004113b", onto=wall, side="front")
    stick(b, "004113b", onto=wall, side="back")  # another face is free
    assert len(b.placements) == 3


def test_stick_advises_turning_the_sticker_only_when_it_is_not_turned():
    # the 22 LDU high sticker 004113b on a 3001's 40 x 24 end face (x = 80) fits at rotation 0 (22 wide) but
    # turned 90 degrees it is 38 high, over the 24 LDU face
    b = LegoBuild()
    wall = b.add(Element("3001"))
    with pytest.raises(BrickLayerValueError) as got:
        stick(b, "004113b", onto=wall, side="right", rotation=90)
    assert "hangs over an edge" in str(got.value) and "rotation=90" not in str(got.value)
    with pytest.raises(BrickLayerValueError, match=r"turn the sticker \(rotation=90\)"):
        stick(b, "004113b", onto=wall, side="front", at=(30, 0))


@pytest.mark.parametrize("dy", [4.0, 5.0])
def test_a_sticker_pushed_through_a_wall_is_told_the_move_along_its_normal(dy):
    # breakit2 F5: pushed 4 / 5 LDU into the 3001's 4 LDU front wall the slab lies at y 3.75..4 / 4.75..5, its
    # back on the wall's inner face or in the hollow, its top edge (z 23) in the top wall (z 20..24): not
    # wholly in the material, so a plain collision, whose smallest overlap (0.7 / 1.7 LDU along -y) left it
    # in the wall, and whose advice was connect(). The move along its normal that clears it is dy along -y.
    from bricklayer.validate import validation_report
    from bricklayer.validate.collisions import collision_details

    b = _sunk(dy)
    (rec,) = collision_details(b)
    assert rec.extra == {"sticker": True}
    assert rec.depth == pytest.approx(dy, abs=1e-3) and rec.direction == (0.0, -1.0, 0.0)
    text = validation_report(b).text
    assert "stick(build, sticker, onto=part" in text
    assert "connect()" not in text and "whole studs" not in text and "mated" not in text
