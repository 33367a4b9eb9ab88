"""Tests of :mod:`ldraw_data.io.parse`: LDraw text to records.

Each rule of the LDraw File Format spec 1.0.2, the MPD extension and the BFC
extension 0.2 is checked on a small text written for it; expected values are
read off those texts by hand. A few checks read real library files.
"""

from __future__ import annotations

import numpy as np
import pytest

from ldraw_data.io.parse import (
    DIRECT_COLOR_FLAG,
    Geometry,
    Meta,
    SubfileRef,
    parse_color,
    parse_document,
)

# -- line types 0-5 ---------------------------------------------------------------

ALL_TYPES = """\
0 Test Part
0 Name: test.dat
0 STEP
1 4 10 -24 30 0 0 1 0 1 0 -1 0 0 3001.dat
2 24 0 0 0 20 0 0
3 16 0 0 0 20 0 0 0 0 20
4 16 -40 0 -20 40 0 -20 40 0 20 -40 0 20
5 24 1 2 3 4 5 6 7 8 9 10 11 12
"""


def test_all_line_types():
    doc = parse_document(ALL_TYPES, "test.dat")
    assert doc.warnings == []
    assert not doc.is_mpd
    f = doc.main
    kinds = [type(it).__name__ if not isinstance(it, Geometry) else f"G{it.kind}" for it in f.items]
    assert kinds == ["Meta", "SubfileRef", "G2", "G3", "G4", "G5"]

    step = f.items[0]
    assert isinstance(step, Meta) and step.command == "STEP" and step.line == 3

    ref = f.items[1]
    assert isinstance(ref, SubfileRef)
    assert (ref.line, ref.color, ref.name, ref.invert) == (4, 4, "3001.dat", False)
    # x y z a b c d e f g h i -> [[a b c x] [d e f y] [g h i z] [0 0 0 1]]
    expected = np.array([[0, 0, 1, 10], [0, 1, 0, -24], [-1, 0, 0, 30], [0, 0, 0, 1]], float)
    np.testing.assert_array_equal(ref.transform, expected)

    line, tri, quad, opt = f.items[2:]
    assert line.color == 24 and line.points.shape == (2, 3)
    np.testing.assert_array_equal(line.points, [[0, 0, 0], [20, 0, 0]])
    assert tri.points.shape == (3, 3) and tri.line == 6
    np.testing.assert_array_equal(tri.points[2], [0, 0, 20])
    assert quad.points.shape == (4, 3)
    np.testing.assert_array_equal(quad.points[0], [-40, 0, -20])
    # type 5: two line ends then two control points
    np.testing.assert_array_equal(opt.points, np.arange(1, 13, dtype=float).reshape(4, 3))


def test_subfile_name_with_spaces_and_separators():
    doc = parse_document("1 16 0 0 0 1 0 0 0 1 0 0 0 1 My Sub Model.ldr\n"
                         "1 16 0 0 0 1 0 0 0 1 0 0 0 1 S\\3001S01.DAT  \n")
    a, b = doc.main.refs
    assert a.name == "My Sub Model.ldr"
    assert a.key == "my sub model.ldr"
    assert b.name == "S\\3001S01.DAT"
    assert b.key == "s/3001s01.dat"


def test_tabs_and_leading_blanks():
    doc = parse_document("   1\t16\t1 2 3\t1 0 0 0 1 0 0 0 1\t3001.dat\n")
    (ref,) = doc.main.refs
    np.testing.assert_array_equal(ref.transform[:3, 3], [1, 2, 3])
    assert doc.warnings == []


# -- colours ---------------------------------------------------------------------


def test_parse_color_codes():
    assert parse_color("4") == 4
    assert parse_color("16") == 16
    assert parse_color("24") == 24
    assert parse_color("0x2FF8000") == 0x2FF8000
    assert parse_color("#2FF8000") == 0x2FF8000
    assert parse_color("0x2ff8000") == 0x2FF8000
    with pytest.raises(ValueError):
        parse_color("red")


def test_direct_colour_in_lines():
    doc = parse_document("1 0x2FF8000 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n"
                         "3 0x2123456 0 0 0 1 0 0 0 0 1\n")
    ref = doc.main.refs[0]
    assert ref.color >= DIRECT_COLOR_FLAG
    assert ref.color & 0xFFFFFF == 0xFF8000
    tri = doc.main.items[1]
    assert tri.color & 0xFFFFFF == 0x123456 and tri.color >= DIRECT_COLOR_FLAG


# -- MPD -------------------------------------------------------------------------

MPD = """\
0 FILE Main Model.ldr
0 Main
0 Name: Main Model.ldr
1 4 0 0 0 1 0 0 0 1 0 0 0 1 sub\\wheel assy.ldr
1 16 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat
0 NOFILE
0 FILE Sub/Wheel Assy.LDR
0 Wheel
1 16 0 0 0 1 0 0 0 1 0 0 0 1 3003.dat
0 FILE extra.ldr
0 Extra
0 NOFILE
1 16 0 0 0 1 0 0 0 1 0 0 0 1 3003.dat
"""


def test_mpd_blocks_and_names():
    doc = parse_document(MPD, "/some/dir/model.mpd")
    assert doc.is_mpd
    assert doc.source == "model.mpd"
    assert [f.name for f in doc.files] == ["Main Model.ldr", "Sub/Wheel Assy.LDR", "extra.ldr"]
    assert doc.main.name == "Main Model.ldr"
    assert [f.first_line for f in doc.files] == [1, 7, 10]
    # case-insensitive, both separators, spaces kept
    assert doc.block("SUB\\WHEEL ASSY.ldr") is doc.files[1]
    assert doc.block("sub/wheel assy.ldr") is doc.files[1]
    assert doc.block("main model.LDR") is doc.files[0]
    assert doc.block("missing.ldr") is None
    # the reference names the block in another spelling
    assert doc.main.refs[0].key == doc.files[1].key
    assert [r.name for r in doc.files[1].refs] == ["3003.dat"]
    assert doc.files[1].refs[0].line == 9
    assert doc.files[2].refs == []  # its type-1 line comes after 0 NOFILE
    # text after 0 NOFILE outside a block: warned with its line
    assert [(w.path, w.line) for w in doc.warnings] == [("model.mpd", 12)]
    assert "NOFILE" in doc.warnings[0].message


def test_mpd_text_before_first_file_is_warned():
    doc = parse_document("1 16 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n0 FILE a.ldr\n"
                         "1 16 0 0 0 1 0 0 0 1 0 0 0 1 3003.dat\n", "x.mpd")
    assert [f.name for f in doc.files] == ["a.ldr"]
    assert [r.name for r in doc.main.refs] == ["3003.dat"]
    assert len(doc.warnings) == 1 and doc.warnings[0].line == 1
    assert "before the first 0 FILE" in doc.warnings[0].message


def test_duplicate_block_names_first_wins():
    doc = parse_document("0 FILE a.ldr\n1 16 0 0 0 1 0 0 0 1 0 0 0 1 B.ldr\n"
                         "0 FILE b.ldr\n0 first\n0 FILE B.LDR\n0 second\n")
    assert doc.block("b.ldr").title == "first"


# -- headers ---------------------------------------------------------------------

HEADER = """\
0 Brick  2 x  4 with Stuff
0 Name: 99999.dat
0 Author: Jane Doe [jdoe]
0 !LDRAW_ORG Unofficial_Part
0 !LICENSE Redistributable under CCAL version 2.0 : see CAreadme.txt

0 BFC CERTIFY CW

0 !CATEGORY Brick
0 !KEYWORDS Stuff, Wall
0 !KEYWORDS  Another One
0 !HISTORY 2020-01-01 [jdoe] something

1 16 0 0 0 1 0 0 0 1 0 0 0 1 s\\3001s01.dat
0 // a comment after the body starts
"""


def test_headers():
    f = parse_document(HEADER, "99999.dat").main
    assert f.title == "Brick  2 x  4 with Stuff"
    assert f.header_name == "99999.dat"
    assert f.author == "Jane Doe [jdoe]"
    assert f.ldraw_org == "Unofficial_Part"
    assert f.category == "Brick"
    assert f.keywords == ["Stuff", "Wall", "Another One"]
    assert f.bfc_certified is True and f.bfc_winding == "CW"
    assert f.moved_to is None and not f.is_alias
    assert f.is_part_like


def test_title_is_the_first_line_only():
    f = parse_document("0 Name: model.ldr\n0 Author: A\n0 Unofficial Model\n"
                       "1 16 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n0 later comment\n").main
    assert f.title == "" and f.header_name == "model.ldr" and f.author == "A"
    f = parse_document("\n\n0 Real Title\n0 Name: x.dat\n").main
    assert f.title == "Real Title"
    doc = parse_document("0 FILE a.ldr\n0 Block Title\n0 Name: a.ldr\n0 FILE b.ldr\n0 Name: b.ldr\n0 Not a title\n")
    assert [f.title for f in doc.files] == ["Block Title", ""]


def test_moved_to_and_alias_headers():
    moved = parse_document("0 ~Moved to 10a\n0 Name: 10.dat\n0 !LDRAW_ORG Part UPDATE 2015-01\n"
                           "1 16 0 0 0 1 0 0 0 1 0 0 0 1 10a.dat\n").main
    assert moved.moved_to == "10a"
    alias = parse_document("0 =Sticker\n0 Name: 003437b.dat\n0 !LDRAW_ORG Part Alias UPDATE 2020-01\n").main
    assert alias.is_alias and alias.moved_to is None
    shortcut = parse_document("0 Minifig\n0 !LDRAW_ORG Shortcut Alias\n").main
    assert shortcut.is_alias


def test_bfc_states():
    f = parse_document("0 Part\n0 BFC NOCERTIFY\n").main
    assert f.bfc_certified is False
    f = parse_document("0 Part\n0 BFC CERTIFY CCW\n").main
    assert f.bfc_certified is True and f.bfc_winding == "CCW"
    f = parse_document("0 Part\n").main
    assert f.bfc_certified is None
    f = parse_document("0 Part\n0 BFC CERTIFY\n0 BFC NOCLIP\n0 BFC CLIP\n").main
    assert [(m.command, m.args) for m in f.items] == [("BFC", "CERTIFY"), ("BFC", "NOCLIP"), ("BFC", "CLIP")]


def test_part_like_rule():
    def block(name, org=""):
        text = f"0 FILE {name}\n0 t\n" + (f"0 !LDRAW_ORG {org}\n" if org else "")
        return parse_document(text).main

    assert block("x.ldr").is_part_like is False
    assert block("x.dat").is_part_like is True  # MPD convention without a header
    assert block("x.ldr", "Unofficial_Part").is_part_like is True
    assert block("x.dat", "Model").is_part_like is False
    assert block("x.dat", "Unofficial_Model").is_part_like is False
    assert block("s\\x.dat", "Unofficial_Subpart").is_part_like is True
    assert block("48\\x.dat", "Unofficial_48_Primitive").is_part_like is True


def test_document_is_submodel_first_block_is_main():
    doc = parse_document("0 FILE 6907 Sonic Stinger.dat\n0 FILE fig.ldr\n0 FILE sticker.dat\n"
                         "0 FILE custom.ldr\n0 !LDRAW_ORG Unofficial_Part\n")
    assert [doc.is_submodel(f) for f in doc.files] == [True, True, False, False]
    part = parse_document("0 FILE 123.dat\n0 Part\n0 !LDRAW_ORG Unofficial_Part\n0 FILE s\\123s01.dat\n")
    assert [part.is_submodel(f) for f in part.files] == [False, False]


# -- BFC INVERTNEXT ---------------------------------------------------------------


def test_invertnext_applies_to_next_type1_only():
    text = """\
0 BFC CERTIFY CCW
1 16 0 0 0 1 0 0 0 1 0 0 0 1 a.dat
0 BFC INVERTNEXT
1 16 0 0 0 1 0 0 0 1 0 0 0 1 b.dat
1 16 0 0 0 1 0 0 0 1 0 0 0 1 c.dat
0 BFC INVERTNEXT
0 // a comment does not use it up
1 16 0 0 0 1 0 0 0 1 0 0 0 1 d.dat
0 BFC INVERTNEXT
3 16 0 0 0 1 0 0 0 0 1
1 16 0 0 0 1 0 0 0 1 0 0 0 1 e.dat
"""
    refs = parse_document(text).main.refs
    assert [(r.name, r.invert) for r in refs] == [
        ("a.dat", False), ("b.dat", True), ("c.dat", False), ("d.dat", True), ("e.dat", False)]


# -- STEP ------------------------------------------------------------------------


def test_steps_are_kept_in_order():
    text = "1 16 0 0 0 1 0 0 0 1 0 0 0 1 a.dat\n0 STEP\n1 16 0 0 0 1 0 0 0 1 0 0 0 1 b.dat\n0 step\n"
    items = parse_document(text).main.items
    assert [type(i).__name__ for i in items] == ["SubfileRef", "Meta", "SubfileRef", "Meta"]
    assert [i.line for i in items if isinstance(i, Meta)] == [2, 4]
    assert all(i.command == "STEP" for i in items if isinstance(i, Meta))


# -- line endings, BOM -----------------------------------------------------------


@pytest.mark.parametrize("eol", ["\r\n", "\r", "\n"])
def test_line_endings(eol):
    text = eol.join(["0 FILE a.ldr", "0 Title A", "1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat",
                     "0 FILE b.ldr", "1 4 0 0 0 1 0 0 0 1 0 0 0 1 b c.dat", ""])
    doc = parse_document(text)
    assert [f.name for f in doc.files] == ["a.ldr", "b.ldr"]
    assert doc.main.title == "Title A"
    assert doc.files[1].refs[0].name == "b c.dat"  # no stray \r in the name
    assert doc.files[1].refs[0].line == 5


def test_bom_in_text_is_ignored():
    doc = parse_document("\ufeff0 FILE a.ldr\n1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n")
    assert doc.is_mpd and doc.main.name == "a.ldr" and len(doc.main.refs) == 1


# -- matrices kept as written ----------------------------------------------------


def test_singular_and_mirrored_matrices_kept():
    text = ("1 16 0 0 0 1 0 0 0 0 0 0 0 1 flat.dat\n"      # y row zero: singular
            "1 16 0 0 0 -1 0 0 0 1 0 0 0 1 mirror.dat\n"   # det -1
            "1 16 0 0 0 0.707 -0.707 0 0.707 0.707 0 0 0 1 rounded.dat\n")
    flat, mirror, rounded = parse_document(text).main.refs
    np.testing.assert_array_equal(flat.transform[:3, :3], np.diag([1.0, 0.0, 1.0]))
    assert np.linalg.det(mirror.transform[:3, :3]) == pytest.approx(-1.0)
    np.testing.assert_array_equal(rounded.transform[0, :3], [0.707, -0.707, 0])


# -- malformed lines -------------------------------------------------------------


def test_malformed_lines_warn_and_the_rest_loads():
    text = """\
0 Bad stuff
1 16 0 0 0 1 0 0 0 1 0 0 0 1 good1.dat
1 16 0 0 0 1 0 0 0 1 0 0 0
1 red 0 0 0 1 0 0 0 1 0 0 0 1 badcolour.dat
1 16 0 0 zero 1 0 0 0 1 0 0 0 1 badnumber.dat
1 16 0 0 nan 1 0 0 0 1 0 0 0 1 nan.dat
3 16 0 0 0 1 0 0
7 16 0 0 0
12 16 0 0 0 1 0 0 0 1 0 0 0 1 x.dat
hello world
2 24 0 0 0 1 1 1 99
1 16 0 0 0 1 0 0 0 1 0 0 0 1 good2.dat
"""
    doc = parse_document(text, "bad.ldr")
    assert [r.name for r in doc.main.refs] == ["good1.dat", "good2.dat"]
    by_line = {w.line: w for w in doc.warnings}
    assert sorted(by_line) == [3, 4, 5, 6, 7, 8, 9, 10, 11]
    assert all(w.path == "bad.ldr" for w in doc.warnings)
    assert "needs 15" in by_line[3].message
    assert "non-numeric" in by_line[4].message and "non-numeric" in by_line[5].message
    assert "non-finite" in by_line[6].message
    assert "needs 11" in by_line[7].message
    assert "unknown line type '7'" in by_line[8].message
    assert "unknown line type '12'" in by_line[9].message
    assert "extra field" in by_line[11].message
    # the type-2 line with an extra field is still kept
    assert sum(isinstance(i, Geometry) for i in doc.main.items) == 1
    assert str(by_line[3]).startswith("bad.ldr:3: ")


def test_unreadable_part_lines_are_listed_apart():
    # lines 3-5: a type-1 line with 13 of its 15 fields, one with a word for a number, one with nan;
    # line 6: a type-3 line with 8 of 11 fields (not a part line: a warning, not a skipped reference)
    text = ("0 Model\n"
            "1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n"
            "1 4 0 -24 0 1 0 0 0 1 0 0 0\n"
            "1 4 0 -24 zero 1 0 0 0 1 0 0 0 1 3001.dat\n"
            "1 4 0 nan 0 1 0 0 0 1 0 0 0 1 3001.dat\n"
            "3 16 0 0 0 1 0 0\n")
    doc = parse_document(text, "short.ldr")
    assert [(w.path, w.line) for w in doc.skipped_refs] == [("short.ldr", 3), ("short.ldr", 4), ("short.ldr", 5)]
    assert doc.skipped_refs[0].message == "type-1 line has 13 fields, needs 15; line skipped"
    assert doc.skipped_refs[2].message == "type-1 line has a non-finite number (nan); line skipped"
    assert [w.line for w in doc.warnings] == [3, 4, 5, 6]
    assert all(w in doc.warnings for w in doc.skipped_refs)
    # MPD: physical line numbers, across blocks (line 5 is in the second block)
    doc = parse_document("0 FILE a.ldr\n1 4 0 0 0 1 0 0 0 1 0 0 0 1 b.ldr\n0 NOFILE\n0 FILE b.ldr\n"
                         "1 4 0 0\n", "m.mpd")
    assert [(w.path, w.line) for w in doc.skipped_refs] == [("m.mpd", 5)]


def test_mpd_warning_line_numbers_are_physical():
    text = "0 FILE a.ldr\n0 A\n0 FILE b.ldr\n0 B\n1 16 0 0\n"
    doc = parse_document(text, "m.mpd")
    assert [(w.path, w.line) for w in doc.warnings] == [("m.mpd", 5)]


# -- real library files ------------------------------------------------------------


def test_real_part_header(library):
    f = parse_document(library.read("3001.dat"), "3001.dat").main
    assert f.title == "Brick  2 x  4"
    assert f.header_name == "3001.dat"
    assert f.author == "James Jessiman"
    assert f.ldraw_org == "Part UPDATE 2004-03"
    assert f.bfc_certified is True and f.bfc_winding == "CCW"
    assert [r.name for r in f.refs] == ["s\\3001s01.dat"]


def test_real_moved_and_alias(library):
    moved = parse_document(library.read("10.dat"), "10.dat").main
    assert moved.moved_to == "10a"
    assert [r.name for r in moved.refs] == ["10a.dat"]
    alias = parse_document(library.read("003437b.dat"), "003437b.dat").main
    assert alias.is_alias
    assert alias.keywords == ["Train", "set 181"]
    assert [r.name for r in alias.refs] == ["003440a.dat"]


def test_real_primitive_header(library):
    f = parse_document(library.read("48\\1-4cyli.dat"), "1-4cyli.dat").main
    assert f.header_name == "48\\1-4cyli.dat"
    assert f.ldraw_org.startswith("48_Primitive")
    assert all(isinstance(i, (Geometry, Meta)) for i in f.items)
    assert any(isinstance(i, Geometry) and i.kind == 4 for i in f.items)
