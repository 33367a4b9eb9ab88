"""Tests of ldraw_data.connectors against BrickNet's real labels and the real LDraw library.

Expected values were read by hand from the part files (LDraw frame, -Y up, LDU) and from
BrickNet's ``labels.json.xz`` rows, as noted next to each test.
"""

import numpy as np

import pytest

from ldraw_data import connectors as C
from ldraw_data.connectors import JointKind, mate_kind

UP = [0.0, -1.0, 0.0]  # LDraw up


def _of(part, type_):
    return [c for c in C.part_connectors(part) if c.type == type_]


def _positions(conns):
    return sorted(tuple(np.round(c.position, 3).tolist()) for c in conns)


# ----------------------------------------------------------------------------------------------
# per part
# ----------------------------------------------------------------------------------------------


def test_brick_2x4_studs_antistuds_tubes():
    # 3001 Brick 2x4: studs on top (y = 0) at x in {-30,-10,10,30}, z in {-10,10};
    # antistuds under the studs at the bottom face (y = 24); 3 tubes between them at z = 0.
    conns = C.part_connectors("3001")
    assert len(conns) == 19
    studs, antistuds, tubes = _of("3001", "stud"), _of("3001", "antistud"), _of("3001", "tube")
    xz = sorted((x, z) for x in (-30.0, -10.0, 10.0, 30.0) for z in (-10.0, 10.0))
    assert _positions(studs) == sorted((x, 0.0, z) for x, z in xz)
    assert _positions(antistuds) == sorted((x, 24.0, z) for x, z in xz)
    assert _positions(tubes) == [(-20.0, 24.0, 0.0), (0.0, 24.0, 0.0), (20.0, 24.0, 0.0)]
    # stud and antistud axes are both LDraw up: mated pairs have parallel axes (BrickNet signed dot)
    for c in studs + antistuds + tubes:
        assert np.allclose(c.axis, UP)
        assert np.allclose(c.roll_axis, [1, 0, 0])
        assert c.joint_kind is JointKind.REVOLUTE and c.length == 0.0 and c.directional
        assert c.kind in ("stud", "hole") and c.polarity is None
    assert sorted(c.index for c in conns) == list(range(19))


def test_part_id_forms_and_unknown_ids():
    ref = C.part_connectors("3001")
    assert C.part_connectors("3001.dat") == ref
    assert C.part_connectors("3001.DAT") == ref
    assert C.part_connectors(" parts\\3001.dat ") == ref
    assert C.part_connectors("no-such-part-xyz") == ()
    # a printed part uses its unprinted base (LDraw "p" pattern suffix)
    assert C.resolve_connector_part("3626bp69")[0] == "3626b"
    assert C.part_connectors("3626bp69") == C.part_connectors("3626b")
    assert C.part_connectors("3626bp69", library_alias_ok=False, sources=("bricknet",)) == ()
    assert not C.has_connectors("no-such-part-xyz")
    with pytest.raises(TypeError, match="part id must be a str"):
        C.part_connectors(3001)


def test_frames_are_read_only():
    c = C.part_connectors("3001")[0]
    assert c.frame.shape == (4, 4) and c.frame.dtype == np.float64
    with pytest.raises(ValueError):
        c.frame[0, 3] = 1.0


def test_plate_1x2_resolves_through_bricknet_alias():
    # 3023 is labelled as 3023b with an identity matrix (part_aliases.json.xz); the installed
    # library has no 3023b, and 3023.dat draws studs at x = +-10, y = 0.
    stem, T = C.resolve_connector_part("3023")
    assert stem == "3023b" and np.array_equal(T, np.eye(4))
    assert _positions(_of("3023", "stud")) == [(-10.0, 0.0, 0.0), (10.0, 0.0, 0.0)]
    assert _positions(_of("3023", "antistud")) == [(-10.0, 8.0, 0.0), (10.0, 8.0, 0.0)]
    assert _positions(_of("3023", "post")) == [(0.0, 8.0, 0.0)]
    assert C.part_connectors("3023", library_alias_ok=False, sources=("bricknet",)) == ()


def test_alias_with_rotation_transforms_frames():
    # 742.dat is "~Moved to 642" via "1 16 0 0 0 0 0 -1 0 1 0 1 0 0 642.dat" (a 90 degree turn
    # about Y), the same matrix as BrickNet's alias row 742 -> 642. 642.dat line 35 places an open
    # stud (stud2a) at (10, 10, -9) with Y column (0, 0, 1), so its axis is (0, 0, -1) there;
    # in 742's frame T @ p = (9, 10, 10) and the axis becomes (1, 0, 0).
    stem, T = C.resolve_connector_part("742")
    assert stem == "642"
    assert np.array_equal(T[:3, :3], [[0, 0, -1], [0, 1, 0], [1, 0, 0]])
    src = [c for c in _of("642", "open_stud") if np.allclose(c.position, [10, 10, -9])]
    assert len(src) == 1 and np.allclose(src[0].axis, [0, 0, -1])
    moved = [c for c in _of("742", "open_stud") if c.index == src[0].index]
    assert np.allclose(moved[0].position, [9, 10, 10]) and np.allclose(moved[0].axis, [1, 0, 0])
    assert len(_of("742", "open_stud")) == 12
    assert all(np.isclose(c.position[0], 9.0) for c in _of("742", "open_stud"))


def test_library_moved_to_stub_is_followed():
    # 75541.dat "=Train Track 9V Point Right Straight" is a Part Alias of 75541-f1 (not in
    # BrickNet's alias table): reached only through the LDraw stub.
    assert C.resolve_connector_part("75541")[0] == "75541-f1"
    assert C.part_connectors("75541", library_alias_ok=False, sources=("bricknet",)) == ()
    bn = ("bricknet",)
    assert len(C.part_connectors("75541", sources=bn)) == len(C.part_connectors("75541-f1", sources=bn)) > 0


def test_technic_brick_pins_and_axles():
    # 3700 Technic Brick 1x2 with hole: one round hole through the brick along Z at (0, 10, 0),
    # 10 LDU long (BrickNet row axle/socket [0, 10, 0, -90, 0, 10]), open studs on top.
    (hole,) = _of("3700", "pin_hole")
    assert np.allclose(hole.position, [0, 10, 0]) and hole.length == 10.0
    assert np.allclose(np.abs(hole.axis), [0, 0, 1])
    assert hole.joint_kind is JointKind.CYLINDRICAL and not hole.directional
    assert _positions(_of("3700", "open_stud")) == [(-10.0, 0.0, 0.0), (10.0, 0.0, 0.0)]
    # 2780 Technic Pin with friction: two pin halves of 9 LDU at x = +-11, axis along X
    pins = _of("2780", "pin")
    assert len(pins) == 2 and [p.length for p in pins] == [9.0, 9.0]
    assert _positions(pins) == [(-11.0, 0.0, 0.0), (11.0, 0.0, 0.0)]
    assert all(np.allclose(np.abs(p.axis), [1, 0, 0]) for p in pins)
    # 3706 Technic Axle 6: one axle connector centred at the origin, half-length 57.5 LDU
    (axle,) = C.part_connectors("3706")
    assert axle.type == "axle" and axle.length == 57.5 and np.allclose(axle.position, 0)
    assert axle.joint_kind is JointKind.PRISMATIC
    # joint kinds per family: towball (ball/1/in) BALL, neck bracket FIXED, shoulder REVOLUTE
    assert {c.joint_kind for c in C.part_connectors("2736") if c.type == "towball"} == {JointKind.BALL}
    assert {c.joint_kind for c in C.part_connectors("973") if c.kind != "axle"} == {
        JointKind.REVOLUTE, JointKind.FIXED,
    }  # fmt: skip


def test_minifigure_and_hinge_names():
    # 973 torso: neck mount on top (y = 0), waist socket at the bottom (y = 32), shoulder pegs at
    # x = +-14.543 (BrickNet rows), neck pin (axle/pin) of 6 LDU above the neck.
    torso = {c.type for c in C.part_connectors("973")}
    assert {"neck_mount", "waist_socket", "shoulder_peg", "pin", "stud", "antistud"} <= torso
    assert _positions(_of("973", "shoulder_peg")) == [(-14.543, 9.051, 0.0), (14.543, 9.051, 0.0)]
    assert {c.position[1] for c in _of("973", "waist_socket")} == {32.0}
    hips = {c.type for c in C.part_connectors("3815", sources=("bricknet",))}  # via alias 3815 -> 3815b
    assert hips == {"waist_peg", "hip_peg"}
    bn = ("bricknet",)
    assert {c.type for c in C.part_connectors("3818", sources=bn)} == {"shoulder_socket", "wrist_socket"}
    assert {c.type for c in C.part_connectors("3820", sources=bn)} == {"clip", "wrist_peg"}
    assert [c.type for c in C.part_connectors("4593", sources=bn)] == ["control_stick"]
    assert "control_stick_base" in {c.type for c in C.part_connectors("4592")}
    assert "turntable_pin" in {c.type for c in C.part_connectors("3680")}
    assert "turntable_socket" in {c.type for c in C.part_connectors("3679")}
    assert "towball" in {c.type for c in C.part_connectors("2736")}
    assert "towball_socket" in {c.type for c in C.part_connectors("3183a")}
    assert "hinge_2_fingers" in {c.type for c in C.part_connectors("4276")}
    assert "hinge_3_fingers" in {c.type for c in C.part_connectors("4275")}
    assert "neck_bracket" in {c.type for c in C.part_connectors("10052")}  # minifig beard
    # a label with no descriptive name keeps its mechanical one (3937/3938 are hinge_brick_*)
    assert "hinge_2_in" in {c.type for c in C.part_connectors("30383")}


def test_frames_agree_with_bricknet():
    # Independent oracle: BrickNet's own frame builder (graph._part_info) on the same labels.
    bg = pytest.importorskip("bricknet.graph")
    from bricknet.data import load_catalog

    stem_to_id = load_catalog().stem_to_id
    for stem in ("3001", "3700", "973", "2780", "3938", "3820", "6536", "14419"):
        info = bg._part_info(stem_to_id[stem])
        ours = C.part_connectors(stem, library_alias_ok=False, sources=("bricknet",))
        assert len(ours) == len(info.conns)
        np.testing.assert_allclose(np.stack([c.frame for c in ours]), info.frames, atol=1e-9)
        assert [c.length for c in ours] == [float(x[4]) for x in info.conns]
        assert [(c.kind, c.subtype, c.polarity) for c in ours] == [x[:3] for x in info.conns]


# ----------------------------------------------------------------------------------------------
# compatibility
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "a, b, kind",
    [
        ("stud", "antistud", JointKind.REVOLUTE),
        ("stud", "tube", JointKind.REVOLUTE),
        ("open_stud", "antistud", JointKind.REVOLUTE),
        ("open_stud", "tube", JointKind.REVOLUTE),
        ("open_stud", "post", JointKind.REVOLUTE),
        ("stud", "post", None),
        ("stud", "stud", None),
        ("antistud", "tube", None),
        ("axle", "axle_hole", JointKind.PRISMATIC),
        ("axle", "pin_hole", JointKind.CYLINDRICAL),
        ("pin", "pin_hole", JointKind.CYLINDRICAL),
        ("bar", "clip", JointKind.CYLINDRICAL),
        ("bar", "axle_hole", JointKind.CYLINDRICAL),
        ("pin", "axle_hole", None),
        ("axle", "axle", None),
        ("axle_bore", "axle", None),
        ("stud", "pin_hole", None),
        ("towball", "towball_socket", JointKind.BALL),
        ("towball", "towball", None),
        ("towball", "constraction_socket", None),
        ("shoulder_peg", "shoulder_socket", JointKind.REVOLUTE),
        ("hip_peg", "hip_socket", JointKind.REVOLUTE),
        ("wrist_peg", "wrist_socket", JointKind.REVOLUTE),
        ("neck_bracket", "neck_mount", JointKind.FIXED),
        ("waist_peg", "waist_socket", JointKind.FIXED),
        ("turntable_pin", "turntable_socket", JointKind.REVOLUTE),
        ("hinge_2_in", "hinge_2_on", JointKind.REVOLUTE),
        ("hinge_2_in", "hinge_3_on", None),
        ("hinge_2_in", "hinge_2_in", None),
        ("fixed_4_in", "fixed_4_on", JointKind.FIXED),
    ],
)
def test_mate_kind_table(a, b, kind):
    assert mate_kind(a, b) is kind
    assert mate_kind(b, a) is kind


def test_mate_kind_rejects_unknown_names():
    with pytest.raises(ValueError, match="Did you mean 'stud'"):
        mate_kind("studd", "antistud")
    with pytest.raises(ValueError, match="Unknown connector type 'ball_0_in'"):
        mate_kind("ball_0_in", "antistud")  # has the descriptive name constraction_ball


def test_compatible_types():
    assert C.compatible_types("stud") == ["antistud", "tube"]
    assert C.compatible_types("open_stud") == ["antistud", "tube", "post"]
    assert C.compatible_types("antistud") == ["stud", "open_stud"]
    assert C.compatible_types("post") == ["open_stud"]
    assert C.compatible_types("axle") == ["axle_hole", "pin_hole"]
    assert C.compatible_types("axle_hole") == ["axle", "bar"]
    assert C.compatible_types("pin_hole") == ["axle", "pin"]
    assert C.compatible_types("bar") == ["axle_hole", "clip"]
    assert C.compatible_types("axle_bore") == []
    assert C.compatible_types("neck_bracket") == ["neck_mount"]
    assert C.compatible_types("hinge_2_in") == ["hinge_2_on"]


def test_type_matches_query_groups():
    assert C.type_matches("stud", "stud") and C.type_matches("stud", "open_stud")
    assert C.type_matches("antistud", "antistud") and C.type_matches("antistud", "tube")
    assert not C.type_matches("open_stud", "stud")
    assert not C.type_matches("tube", "antistud")
    assert not C.type_matches("stud", "antistud")
    assert C.type_matches("pin_hole", "pin_hole") and not C.type_matches("pin", "pin_hole")


def test_type_codes_and_mate_matrix():
    names = C.connector_types()
    assert names[:12] == (
        "stud", "open_stud", "antistud", "tube", "post", "axle", "axle_hole", "axle_bore",
        "pin", "pin_hole", "bar", "clip",
    )  # fmt: skip
    assert len(set(names)) == len(names)
    M = C.mate_matrix()
    assert M.shape == (len(names), len(names)) and np.array_equal(M, M.T)
    assert M[C.type_code("stud"), C.type_code("antistud")] == JointKind.REVOLUTE.code
    assert M[C.type_code("axle"), C.type_code("axle_hole")] == JointKind.PRISMATIC.code
    assert M[C.type_code("stud"), C.type_code("post")] == -1
    # the matrix agrees with mate_kind over every pair of known types
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            k = mate_kind(a, b)
            assert M[i, j] == (-1 if k is None else k.code)
    with pytest.raises(ValueError, match="Unknown connector type"):
        C.type_code("sprocket")


# ----------------------------------------------------------------------------------------------
# bulk, coverage, cache
# ----------------------------------------------------------------------------------------------


def test_world_frames_of_two_stacked_bricks():
    # A 2x4 brick on top of another (LDraw: 24 LDU higher is y - 24): the lower brick's 8 studs
    # sit exactly at the upper brick's 8 antistuds, with equal axes.
    up = np.eye(4)
    up[1, 3] = -24.0
    turn = np.eye(4)
    turn[:3, :3] = [[0, 0, 1], [0, 1, 0], [-1, 0, 0]]  # 90 degrees about Y
    turn[:3, 3] = [100, 0, 0]
    wc = C.world_connector_frames(["3001", "3001.dat", "3023", "nonexistent"], np.stack([np.eye(4), up, turn, up]))
    assert wc.frames.shape == (19 + 19 + 6, 4, 4)
    assert np.array_equal(np.bincount(wc.owner, minlength=4), [19, 19, 6, 0])
    assert np.array_equal(wc.index[:19], np.arange(19)) and np.array_equal(wc.index[19:38], np.arange(19))
    stud, anti = C.type_code("stud"), C.type_code("antistud")
    low_studs = wc.frames[(wc.owner == 0) & (wc.types == stud)]
    top_anti = wc.frames[(wc.owner == 1) & (wc.types == anti)]
    key = lambda f: tuple(np.round(f[:3, 3], 6))  # noqa: E731
    assert sorted(map(key, low_studs)) == sorted(map(key, top_anti))
    assert np.allclose(-top_anti[:, :3, 1], UP)
    # the turned plate 3023: local studs at x = +-10 end up at (100, 0, -+10), still pointing up
    plate_studs = wc.frames[(wc.owner == 2) & (wc.types == stud)]
    assert sorted(map(key, plate_studs)) == [(100.0, 0.0, -10.0), (100.0, 0.0, 10.0)]
    assert np.allclose(wc.lengths[(wc.owner == 2) & (wc.types == C.type_code("bar"))], 2.0)
    with pytest.raises(ValueError, match=r"shape \(2, 4, 4\)"):
        C.world_connector_frames(["3001", "3001"], np.eye(4)[None])
    empty = C.world_connector_frames(["nonexistent"], np.eye(4)[None])
    assert empty.frames.shape == (0, 4, 4) and empty.owner.shape == (0,)


def test_world_frames_find_mates_in_an_official_model(official_dir):
    # 1180 Moon Buggy (29 parts incl. a minifigure): every part has a compatible connector of
    # another part within BrickNet's _POS_THR = 3 LDU; the printed head 3626bp69 is reached
    # through its unprinted base 3626b, and the cap 4485 mates with the head's open stud.
    from scipy.spatial import cKDTree

    from ldraw_data import load_model

    model = load_model(official_dir / "1180_1_Space_Port_Moon_Buggy.mpd")
    ids = [p.part_id for p in model.parts]
    assert len(ids) == 29 and "3626bp69" in ids and "4485" in ids
    wc = C.world_connector_frames(ids, model.transforms)
    pairs = cKDTree(wc.frames[:, :3, 3]).query_pairs(3.0, output_type="ndarray")
    i, j = pairs[:, 0], pairs[:, 1]
    ok = (C.mate_matrix()[wc.types[i], wc.types[j]] >= 0) & (wc.owner[i] != wc.owner[j])
    mated = set(wc.owner[i[ok]].tolist()) | set(wc.owner[j[ok]].tolist())
    assert mated == set(range(29))
    # the cap sits on the head: open_stud (head) to antistud/tube (cap), parallel axes
    head, cap = ids.index("3626bp69"), ids.index("4485")
    sel = ok & (np.minimum(wc.owner[i], wc.owner[j]) == min(head, cap)) & (
        np.maximum(wc.owner[i], wc.owner[j]) == max(head, cap)
    )
    assert sel.any()
    k = np.flatnonzero(sel)[0]
    assert {C.connector_types()[wc.types[i[k]]], C.connector_types()[wc.types[j[k]]]} & {"open_stud"}
    assert np.dot(wc.frames[i[k], :3, 1], wc.frames[j[k], :3, 1]) > 0.95


def test_connector_coverage():
    assert C.connector_coverage(["3001", "3001.dat", "3023", "no-such-part"]) == (2, 3)
    covered, total = C.catalog_connector_coverage()
    assert total > 10000 and 0.5 * total < covered < total


def test_disk_cache_round_trip(tmp_path, monkeypatch):
    monkeypatch.setenv("BRICKWRIGHT_CACHE_DIR", str(tmp_path))
    before = C._bricknet_labels()
    C._bricknet_labels.cache_clear()
    try:
        built = C._bricknet_labels()  # parses the JSON and writes the cache
        files = list((tmp_path / "connectors").glob("bricknet-labels-*.npz"))
        assert len(files) == 1 and not list((tmp_path / "connectors").glob("*.tmp"))
        C._bricknet_labels.cache_clear()
        cached = C._bricknet_labels()  # reads the cache
        assert cached.stems == built.stems == before.stems
        assert np.array_equal(cached.params, built.params) and np.array_equal(cached.types, built.types)
        assert cached.type_table == built.type_table
    finally:
        C._bricknet_labels.cache_clear()
