"""Connectors of composite parts' pieces (ldraw_data.subparts), on real parts and real meshes."""

import numpy as np
import pytest

from ldraw_data import connectors as C
from ldraw_data import subparts as S
from ldraw_data.mesh import part_mesh

PIECE = ("subpart",)


def _rows(part_id, sources=PIECE):
    return sorted((c.type, tuple(np.round(c.position, 3)), tuple(np.round(c.axis, 3)), round(c.length, 3))
                  for c in C.part_connectors(part_id, sources=sources))


def test_train_motor_axle_tube_gets_the_pin_hole_its_bore_draws():
    # u9433.dat (~Electric Power Functions Train Motor - Axle) draws its bore as 4-4cyli scaled 6 (radius 6
    # LDU = a pin hole) from z = 40 to z = 40 - 74 = -34 (y column 0 0 -74): centre z = 3, half-length 37.
    # 87574 places it twice, turned (0 0 -1 / 0 -1 0 / -1 0 0) and mirrored (0 0 1 / 0 1 0 / -1 0 0); both
    # copies give the same hole back (the axis sign of a pin hole carries no meaning: kept once)
    assert _rows("u9433") == [("pin_hole", (0.0, 0.0, 3.0), (0.0, 0.0, -1.0), 37.0)]
    assert not C.has_connectors("u9433", sources=("bricknet", "ldcad", "segment"))
    assert C.has_connectors("u9433")


def test_spinner_bottom_gets_its_anti_studs_not_the_composites_studs():
    # 92547 (Spinner Ninjago, composite) draws 92548 (top, labelled) and 92549 (bottom) at the origin; its
    # 2 x 2 anti-studs at x, z = +-10, y = 32 (the underside, axis up) are the bottom's, its 16 studs the top's
    want = [("antistud", (x, 32.0, z), (0.0, -1.0, 0.0), 0.0) for x in (-10.0, 10.0) for z in (-10.0, 10.0)]
    assert _rows("92549") == want
    assert _rows("92548") == []  # the top has its own labels: no piece rows for it


def test_moved_to_stub_of_a_piece_follows_it():
    # 103b is "~Moved to 3752" (identity reference); 3752 (~Winch 2 x 4 x 2 Drum) is a piece of 73037
    assert _rows("3752") and _rows("103b") == _rows("3752")
    assert C.has_connectors("103b")


def test_wall_rule_on_real_meshes_brick_with_plate_on_a_stud():
    # a composite of two real parts: brick 3001 (drawing 0) and plate 3024 (drawing 1) seated on its stud at
    # x = -30, z = -10 (3024 placed at y = -8: its stud's base at y = -8, its anti-stud opening at y = 0)
    brick = np.asarray(part_mesh("3001").triangles, np.float64)
    t = np.eye(4)
    t[:3, 3] = (-30.0, -8.0, -10.0)
    plate = np.asarray(part_mesh("3024").triangles, np.float64) + t[:3, 3]

    def frame(x, y, z):
        f = np.eye(4)
        f[:3, 3] = (x, y, z)
        return f  # -Y column: axis up, out of a stud's tip and into an anti-stud's part

    studs = [(x, 0.0, z) for x in (-30.0, -10.0, 10.0, 30.0) for z in (-10.0, 10.0)]  # 3001.dat's studs
    conns = [(("stud", "stud", None), frame(*p), 0.0) for p in studs]
    conns.append((("stud", "stud", None), frame(-30.0, -8.0, -10.0), 0.0))  # the plate's stud
    conns.append((("hole", "hole", None), frame(-30.0, 0.0, -10.0), 0.0))  # the plate's anti-stud
    internal = S._internal(conns, lambda a, b: C.mate_kind(C._label_name(*a), C._label_name(*b)) is not None)
    owner = S.piece_connectors([brick, plate, np.zeros((0, 3, 3))], conns, internal)
    # the stud under the plate and the plate's anti-stud mate inside the composite: nobody's
    assert internal == [True] + [False] * 7 + [False, True]
    assert owner == [-1] + [0] * 7 + [1, -1]


def test_a_stud_drawn_by_the_composite_stays_the_composites():
    # tile 3070b (the piece: 1 x 1, no stud, top face at y = 0) with stud.dat drawn by the composite itself
    # on that face (stud.dat: radius 6 LDU, y 0 to -4): the stud's origin lies on the tile's face (distance
    # 0), but its wall is the stud primitive's, so the tile does not get the stud
    tile = np.asarray(part_mesh("3070b").triangles, np.float64)
    stud = np.asarray(part_mesh("stud.dat").triangles, np.float64)
    conn = [(("stud", "stud", None), np.eye(4), 0.0)]
    assert S._group_distances(np.zeros((1, 3)), tile, np.zeros(len(tile), int), 1, np.array([1.0]))[0, 0] < 0.01
    assert S.piece_connectors([tile, stud], conn) == [1]
    assert S.piece_connectors([tile], conn) == [-1]  # nothing on the tile forms a stud


def test_clips_tubes_and_mechanical_labels_are_never_given():
    # measured unreliable against labelled pieces (module notes): no drawing is ever chosen for them
    brick = np.asarray(part_mesh("3001").triangles, np.float64)
    f = np.eye(4)
    for label in (("axle", "clip", None), ("hole", "tube", None), ("hinge", "7", "in"), ("fixed", "1", "on")):
        assert S.piece_connectors([brick], [(label, f, 0.0)]) == [-1]


def test_a_labelled_pieces_connector_stays_that_pieces():
    # 60593c01 draws the window frame 60593 (labelled: its LDCad hinge fingers "ldcad_fgr-r2_on" at
    # (0, 2.5, -5)) and the glass 60602 (unlabelled) in those fingers, nearer their origin than the frame:
    # the fingers are the frame's, so the glass gets nothing from this composite
    assert "ldcad_fgr-r2_on" in {c.type for c in C.part_connectors("60593")}
    assert _rows("60602") == []


# --- on demand: a piece's rows from only the composites that draw it -------------------------------------

# pieces of the saved full table drawn by several composites (2795, 30462 and 6052 by five each, 61531 by
# four: their rows are the union, in part-file order), single-composite pieces, a sticker a composite draws
# that gets nothing (003238a), a piece whose composite's connectors are its labelled piece's (60602)
SAMPLE = ("2795", "30462", "6052", "61531", "92549", "u9433", "3752", "003238a", "60602")


@pytest.fixture(scope="module")
def cold_source(tmp_path_factory):
    """The composite-pieces source of a fresh process with an empty cache folder (no full table)."""
    folder = tmp_path_factory.mktemp("cache")
    mp = pytest.MonkeyPatch()
    mp.setenv("BRICKWRIGHT_CACHE_DIR", str(folder))
    try:
        rows = S.subpart_source(*C._piece_source_args())
        yield folder, rows.__self__
    finally:
        mp.undo()


def _same(a, b):
    return len(a) == len(b) and all(la == lb and ln == lb_ln and np.array_equal(fa, fb)
                                    for (la, fa, ln), (lb, fb, lb_ln) in zip(a, b))


def test_on_demand_rows_equal_the_full_tables(cold_source):
    folder, src = cold_source
    assert isinstance(src, S.PieceConnectors)
    # every composite that draws a sample piece, read the way the full build reads all of them: for these
    # pieces the restricted build gives the full table's rows (no other composite draws them)
    comps = {c for p in SAMPLE for c in src.drawn_by(p)}
    assert {"92547"} <= comps and len(src.drawn_by("2795")) == 5  # 92547 draws 92549 (the spinner above)
    args = C._piece_source_args()
    full = S.build_subpart_table(src.library, *args[:3], stems=comps)
    for p in SAMPLE:
        assert _same(src.rows(p), full.get(p, [])), p
    # row counts of the full table built by `brickwright library install` (subparts-v3-*.json)
    assert [len(src.rows(p)) for p in SAMPLE] == [3, 4, 2, 2, 4, 1, 3, 0, 0]


def test_cold_cache_keeps_the_index_and_the_pieces_asked_not_a_full_table(cold_source):
    folder, src = cold_source
    src.rows("92549")
    names = sorted(p.name.split("-v")[0] for p in (folder / "connectors").glob("subparts*.json"))
    assert names == ["subparts-index", "subparts-pieces"]  # no subparts-v3-...: the full table is not built
    # a new process reads both back: the piece's rows without a composite read again
    again = S.PieceConnectors(*C._piece_source_args()[:3], index_path=src._index_path, rows_path=src._rows_path)
    assert again.drawn_by("2795") == src.drawn_by("2795")
    got = again.rows("92549")
    assert not again._composites  # from the file
    assert _same([(la, np.round(f, 6), ln) for la, f, ln in src.rows("92549")], got)


def test_a_part_no_composite_draws_costs_no_composite_read(cold_source):
    # sticker 003238j: no part file references it (a model places it; its sibling 003238b is drawn by
    # 3846d03); 3001 has labels of its own
    _folder, src = cold_source
    assert src.drawn_by("003238j") == [] and src.rows("003238j") == []
    assert src.drawn_by("003238b") == ["3846d03"]
    assert src.rows("3001") == [] and "3001" not in src._composites


@pytest.mark.slow
def test_on_demand_rows_equal_the_full_build_for_every_piece(cold_source):
    # the whole library (one to two minutes): every piece of the full build, and nothing on demand beyond it
    _folder, src = cold_source
    full = S.build_subpart_table(src.library, *C._piece_source_args()[:3])
    assert len(full) > 50
    for p, rows in full.items():
        assert _same(src.rows(p), rows), p
    others = [n.removesuffix(".dat") for n, _ in src.files if n.removesuffix(".dat") not in full]
    assert not [p for p in others[::20] if src.rows(p)]  # a sample of the rest: no rows either


@pytest.mark.parametrize("which", ["index", "pieces"])
def test_a_corrupt_cache_file_is_discarded_and_rebuilt(cold_source, caplog, which):
    _folder, src = cold_source
    want = src.rows("92549")
    path = src._index_path if which == "index" else src._rows_path
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])  # truncated JSON
    again = S.PieceConnectors(*C._piece_source_args()[:3], index_path=src._index_path, rows_path=src._rows_path)
    with caplog.at_level("WARNING"):
        got = again.rows("92549")
        comps = again.drawn_by("2795")
    assert [r.getMessage() for r in caplog.records if str(path) in r.getMessage() and "discarded" in r.getMessage()]
    assert [(la, ln) for la, _f, ln in got] == [(la, ln) for la, _f, ln in want]
    assert all(np.allclose(f, g, atol=1e-6) for (_l, f, _n), (_m, g, _o) in zip(got, want))
    assert not list(path.parent.glob("*.tmp"))
    assert comps == src.drawn_by("2795")
    if which == "index":
        assert S.PieceConnectors(*C._piece_source_args()[:3], index_path=path)._load_index()  # rewritten, readable
    else:
        assert S._read_table(path)["92549"]  # rewritten with the piece's rows
