"""LDraw import/export of builds: exact round trips on every official model."""

import numpy as np
import pytest

from bricklayer import Color, Element, LegoBuild, from_ldraw, read_ldraw, to_ldraw, write_ldraw
from ldraw_data.io import load_model


def _flat(build):
    return [(p.content.ldraw_id, int(p.content.color), p.pose.matrix) for p in build.flattened_placements]


def _ldraw_flat(build):
    """Flattened (part id, colour, LDraw world transform) of a build, via its written text."""
    from ldraw_data.io import flatten, parse_document
    from ldraw_data.library import get_library

    doc = parse_document(to_ldraw(build), "x.mpd")
    return [(p.part_id, p.color, p.transform) for p in flatten(doc, get_library()).parts]


def test_round_trip_every_official_model(official_dir):
    """read_ldraw -> write_ldraw -> read_ldraw keeps every part id, colour and transform (1e-6 LDU)."""
    models = sorted(official_dir.glob("*.mpd"))
    assert len(models) == 67
    for path in models:
        ref = load_model(path)  # the independent flattener of ldraw_data
        b1 = read_ldraw(path)
        text = to_ldraw(b1)
        b2 = from_ldraw(text, source=path.name)
        f1, f2 = _flat(b1), _flat(b2)
        assert len(f1) == len(f2) == len(ref.parts), path.name
        for (i1, c1, m1), (i2, c2, m2), r in zip(f1, f2, ref.parts):
            assert (i1, c1) == (i2, c2) == (r.part_id, r.color), path.name
            assert np.abs(m1 - m2).max() < 1e-6, path.name
        # submodel names kept (every submodel the main model uses)
        used = {n for r in ref.parts for n in r.submodel_path}
        subs = {sb.name: sb for sb in b2._all_builds()} | {b2.name: b2}
        assert used <= subs.keys(), path.name
        assert all(subs[n].brick_count == 0 for n in subs.keys() - used), path.name  # empty submodels


def test_written_transforms_equal_the_files(official_dir):
    """The LDraw transforms written equal those read (flattened through the LDraw spec's rules)."""
    path = official_dir / "10179_1_Millennium_Falcon_UCS.mpd"
    ref = load_model(path)
    out = _ldraw_flat(read_ldraw(path))
    assert len(out) == len(ref.parts) == 5247
    for (pid, c, m), r in zip(out, ref.parts):
        assert pid == r.part_id and c == r.color
        assert np.abs(m - r.transform).max() < 1e-6


def test_embedded_parts_written_back(official_dir):
    b = read_ldraw(official_dir / "10179_1_Millennium_Falcon_UCS.mpd")
    text = to_ldraw(b)
    assert "0 FILE 10179 - 47996_bended.dat" in text
    assert "0 FILE s\\10179 - 47996s01_bended.dat" in text


def test_unknown_parts_kept_with_warning(official_dir):
    b = read_ldraw(official_dir / "1788_Treasure_Chest.mpd")
    ids = {p.content.ldraw_id for p in b.flattened_placements}
    assert {"3334h", "6029b"} <= ids
    msgs = [str(w) for w in b.import_warnings]
    assert any("6029B.DAT" in m and ":176:" in m for m in msgs)


def test_unreadable_part_lines_listed_on_the_build(tmp_path):
    # line 2 has 13 of the 15 fields of a type-1 line (LDraw spec): the part it places is missing
    path = tmp_path / "shortline.ldr"
    path.write_text("1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n1 4 0 -24 0 1 0 0 0 1 0 0 0\n")
    b = read_ldraw(path)
    assert b.brick_count == 1
    assert [(w.path, w.line, w.message) for w in b.unreadable_lines] == [
        ("shortline.ldr", 2, "type-1 line has 13 fields, needs 15; line skipped")]
    # a good file has none
    assert from_ldraw("1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n").unreadable_lines == []
    # MPD: a bad line in a used submodel (line 6) counts; one in a block nothing references (line 9) does not
    text = ("0 FILE main.ldr\n1 16 0 0 0 1 0 0 0 1 0 0 0 1 sub.ldr\n0 NOFILE\n"
            "0 FILE sub.ldr\n1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n1 4 0 nan 0 1 0 0 0 1 0 0 0 1 3001.dat\n0 NOFILE\n"
            "0 FILE unused.ldr\n1 4 0 0 0 1 0 0\n0 NOFILE\n")
    b = from_ldraw(text, source="m.mpd")
    assert [(w.path, w.line) for w in b.unreadable_lines] == [("m.mpd", 6)]
    assert {w.line for w in b.import_warnings} == {6, 9}


def test_names_and_nesting_round_trip(tmp_path):
    wheel = LegoBuild(name="axle_set")
    wheel.add(Element("3001", Color.BLACK), (0, 0, 0), name="body")
    car = LegoBuild(name="car")
    car.add(Element("3036", Color.RED), (0, 0, 0), name="chassis")
    car.add(wheel, (0, 0, 1), name="front")
    car.add(wheel, (0, 4, 1), name="rear")
    path = write_ldraw(car, tmp_path / "car.mpd")
    back = read_ldraw(path)
    assert back.names.keys() == {"chassis", "front", "rear"}
    assert back.named("front").content is back.named("rear").content  # shared, as written once
    assert back.name_of(back.flattened_placements[1]) == "front/body"
    # a submodel's block name is a file name: "axle_set" + .ldr (LDraw spec 1.0.2; issue 18 item 7)
    assert back.named("front").content.name == "axle_set.ldr"
    assert back.name == "car.ldr"
    with pytest.raises(FileExistsError):
        write_ldraw(car, path, overwrite=False)


def test_submodel_colour_inheritance():
    text = """0 FILE main.ldr
1 4 0 0 0 1 0 0 0 1 0 0 0 1 sub.ldr
0 NOFILE
0 FILE sub.ldr
1 16 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat
1 1 0 -24 0 1 0 0 0 1 0 0 0 1 3001.dat
0 NOFILE
"""
    b = from_ldraw(text)
    assert [int(p.content.color) for p in b.flattened_placements] == [4, 1]
    again = from_ldraw(to_ldraw(b))
    assert [int(p.content.color) for p in again.flattened_placements] == [4, 1]


def test_headers_comments_and_geometry_lines_survive(official_dir):
    """Authors, licences, comments, LDCad meta and loose type 2-5 lines are written back (nothing dropped)."""
    path = official_dir / "10179_1_Millennium_Falcon_UCS.mpd"
    src = path.read_text(encoding="utf-8", errors="replace").splitlines()
    out = to_ldraw(read_ldraw(path)).splitlines()

    def count(lines, pred):
        return sum(1 for ln in lines if pred(ln.strip()))

    geom = lambda ln: ln[:2] in ("2 ", "3 ", "4 ", "5 ")  # noqa: E731
    assert count(out, geom) == count(src, geom) == 2171
    lic = lambda ln: ln.startswith("0 !LICENSE")  # noqa: E731
    # one submodel block of the file is never referenced, so it is not part of the model
    assert count(out, lic) == count(src, lic) - 1
    assert any(ln.startswith("0 Author: Roland Dahl") for ln in out)
    again = to_ldraw(from_ldraw("\n".join(out)))
    assert again.splitlines() == out  # stable on a second round


def test_a_cycle_of_submodels_is_an_unreadable_line():
    # a.ldr places a brick and b.ldr; b.ldr places a.ldr again (line 5): the reference closing the cycle is
    # skipped, and the build lists it so that validation calls the build not valid
    import warnings

    from bricklayer import from_ldraw

    text = ("0 FILE a.ldr\n1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n1 4 0 -24 0 1 0 0 0 1 0 0 0 1 b.ldr\n"
            "0 FILE b.ldr\n1 4 0 -24 0 1 0 0 0 1 0 0 0 1 a.ldr\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        b = from_ldraw(text)
    assert len(b.flattened_placements) == 1
    assert [w.line for w in b.unreadable_lines] == [5]
    assert "cycle" in str(b.unreadable_lines[0])


def test_a_binary_file_is_refused_whole(tmp_path):
    """A file with a NUL byte is not LDraw text (spec 1.0.2): one error naming file, line and byte offset."""
    from ldraw_data import LDrawParseError

    path = tmp_path / "photo.ldr"
    # a PNG signature and header chunk: the NUL of the chunk length is byte 8, on line 3 (line ends \r\n at 4-5, \n at 7)
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    with pytest.raises(LDrawParseError) as err:
        read_ldraw(path)
    assert (err.value.path, err.value.line) == (str(path), 3)
    assert "offset 8" in err.value.message and "not an LDraw text file" in err.value.message
    # a text file with Latin-1 bytes is still read (older files use it)
    path.write_bytes(b"0 Caf\xe9 model\n1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n")
    assert read_ldraw(path).brick_count == 1


def test_a_submodel_saved_beside_the_model_is_read_from_its_file(tmp_path):
    """LDraw spec 1.0.2: a sub-file is looked up in the referencing file's folder first (LDCad, LeoCAD save them so)."""
    (tmp_path / "Wall.ldr").write_text(
        "0 Wall\n"
        "1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n"
        "1 4 0 -24 0 1 0 0 0 1 0 0 0\n"  # 13 fields: unreadable, line 3 of Wall.ldr
        "1 1 0 -24 0 1 0 0 0 1 0 0 0 1 3001.dat\n")
    (tmp_path / "main.ldr").write_text(
        "1 16 0 0 0 1 0 0 0 1 0 0 0 1 wall.ldr\n"  # names match case-insensitively, as on Windows
        "1 16 0 -48 0 1 0 0 0 1 0 0 0 1 wall.ldr\n"
        "1 14 0 -96 0 1 0 0 0 1 0 0 0 1 3001.dat\n")
    b = read_ldraw(tmp_path / "main.ldr")
    assert b.brick_count == 5 and len(b.placements) == 3
    wall = b.placements[0].content
    assert isinstance(wall, LegoBuild) and b.placements[1].content is wall  # one sub-build, placed twice
    # origins and warnings name the file and line each part came from
    assert [fp.path[-1].origin for fp in b.flattened_placements] == [
        ("Wall.ldr", 2), ("Wall.ldr", 4), ("Wall.ldr", 2), ("Wall.ldr", 4), ("main.ldr", 3)]
    assert [(w.path, w.line) for w in b.unreadable_lines] == [("Wall.ldr", 3)]
    # the blue brick of the upper wall sits at y = -48 - 24 = -72 LDU (LDraw frame, -y up)
    _pid, colour, transform = _ldraw_flat(b)[3]
    assert colour == 1 and transform[1, 3] == -72
    # written back as one MPD holding both files
    text = to_ldraw(b)
    assert text.count("0 FILE ") == 2 and "0 FILE main.ldr" in text
    # in a subfolder, named with LDraw's backslash (and another case): read the same, warnings name the path
    (tmp_path / "parts").mkdir()
    (tmp_path / "Wall.ldr").rename(tmp_path / "parts" / "Wall.ldr")
    (tmp_path / "main.ldr").write_text("1 16 0 0 0 1 0 0 0 1 0 0 0 1 PARTS\\wall.ldr\n")
    b = read_ldraw(tmp_path / "main.ldr")
    assert b.brick_count == 2
    assert [(w.path, w.line) for w in b.unreadable_lines] == [("parts/Wall.ldr", 3)]


def test_placement_origin_in_an_mpd_is_the_line_of_the_mpd_file(official_dir):
    # a part in a submodel block: the origin names the .mpd and its physical line, not the block name
    path = official_dir / "6232_1_Skeleton_Crew.mpd"
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    b = read_ldraw(path)
    deep = [fp for fp in b.flattened_placements if len(fp.path) > 1]
    assert deep
    for fp in deep[:20] + [fp for fp in b.flattened_placements if len(fp.path) == 1][:5]:
        file, line = fp.path[-1].origin
        assert file == path.name
        fields = lines[line - 1].split()
        assert fields[0] == "1" and fields[14].lower() == fp.content.ldraw_id.lower() + ".dat"


INJECTED = "\n1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat"


@pytest.mark.parametrize("brk", ["\n", "\r", "\r\n", "\x0c", "\u2028", "\x85"])
def test_a_name_cannot_add_lines_to_the_file(tmp_path, brk):
    """Build, submodel, placement, title, header and note text with a line break and a part line after it:
    written on one line each, so the file read back has the same 2 parts (no injected 3001)."""
    evil = INJECTED.replace("\n", brk)
    sub = LegoBuild(name="wing" + evil)
    sub.add(Element("3003", Color.BLUE), (0, 0, 0), name="tip" + evil)
    b = LegoBuild(name="plane" + evil)
    b.add(Element("3001", Color.RED), (0, 0, 0), name="base" + evil)
    b.add(sub, (0, 0, 1), name="left wing" + evil)
    b.ldraw_trailer = ["0 note" + evil]
    path = write_ldraw(b, tmp_path / "evil.mpd", title="My plane" + evil)
    text = path.read_text(encoding="utf-8")
    flat_name = " " * len(brk) + INJECTED[1:]  # each line-breaking character becomes a space
    part_lines = [ln for ln in text.splitlines() if ln.startswith("1 ")]
    assert [ln.split(None, 14)[14] for ln in part_lines] == ["3001.dat", "wing" + flat_name, "3003.dat"]
    assert text.splitlines()[0] == "0 FILE plane" + flat_name
    back = read_ldraw(path)
    assert back.brick_count == 2
    assert sorted(p.content.ldraw_id for p in back.flattened_placements) == ["3001", "3003"]
    assert not back.import_warnings and not back.unreadable_lines
    assert load_model(path).parts.__len__() == 2  # the independent flattener agrees
    assert back.name_of(back.placements[0]) == "base" + flat_name  # the name is kept, on one line
