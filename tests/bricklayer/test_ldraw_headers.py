"""LDraw headers and names as the LDraw file format 1.0.2 and the MPD spec (revision 2) say (issue 18, item 7).

Checked against the spec, independently of the writer: every file or MPD block starts with
``0 <title>``, ``0 Name: <its file name>`` (in an MPD the ``0 FILE`` name, as the Official Model
Repository requires), ``0 Author: ...``; ``0 !DATA <name>`` blocks hold ``0 !:`` lines of base64.
"""

from __future__ import annotations

import base64
import struct
import warnings

import pytest

from bricklayer import Color, Element, LegoBuild, from_ldraw, read_ldraw, to_ldraw, write_ldraw
from bricklayer.io import AUTHOR_ENV, LDrawMPDSuffixWarning
from ldraw_data.io import parse_document

#: A 1 x 1 pixel PNG (red), base64 in two 0 !: lines as the MPD spec's !DATA block holds it.
PNG_LINES = ["0 !: iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="]

MPD = "\n".join([
    "0 FILE main.ldr", "0 Main", "0 Name: main.ldr", "0 Author: Some One [someone]",
    "1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat",
    "0 STEP",
    "0 ROTSTEP 10 20 0 ABS",        # a step holding only a meta line
    "0 STEP",
    "1 1 0 -24 0 1 0 0 0 1 0 0 0 1 3001.dat",
    "0 STEP",
    "0 // a comment in a last step with no part",
    "0 STEP",
    "0 NOFILE",
    "0 !DATA tex.png", *PNG_LINES,
    "0 NOFILE", ""])


def _flat_build(name=None) -> LegoBuild:
    b = LegoBuild(name=name)
    b.add(Element("3001", Color.RED), (0, 0, 0))
    return b


def _header(text: str) -> list[str]:
    return text.splitlines()[:4]


def test_plain_file_name_line_is_the_file_written(tmp_path, monkeypatch):
    monkeypatch.delenv(AUTHOR_ENV, raising=False)
    path = write_ldraw(_flat_build(name="fire truck"), tmp_path / "truck.ldr")
    assert _header(path.read_text()) == ["0 fire truck", "0 Name: truck.ldr", "0 Author: BrickLayer",
                                         "0 !LDRAW_ORG Unofficial_Model"]
    # a header read from a file keeps its author; its Name: follows the new file
    again = write_ldraw(read_ldraw(path), tmp_path / "copy of truck.ldr", author="Not Used")
    assert _header(again.read_text())[:3] == ["0 fire truck", "0 Name: copy of truck.ldr", "0 Author: BrickLayer"]


def test_author_is_configurable(tmp_path, monkeypatch):
    monkeypatch.setenv(AUTHOR_ENV, "Jane Doe [jdoe]")
    assert "0 Author: Jane Doe [jdoe]" in to_ldraw(_flat_build()).splitlines()
    text = write_ldraw(_flat_build(), tmp_path / "a.ldr", author="Ann Other\n1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat").read_text()
    assert "0 Author: Ann Other 1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat" in text.splitlines()  # one line, no part added
    assert sum(ln.startswith("1 ") for ln in text.splitlines()) == 1


def test_submodel_names_are_sanitised_ldr_file_names(tmp_path):
    wheel = LegoBuild(name='left/wheel: "big"')
    wheel.add(Element("3001", Color.BLACK), (0, 0, 0))
    car = LegoBuild()
    car.add(Element("3036", Color.RED), (0, 0, 0))
    car.add(wheel, (0, 0, 1), name="front")
    anon = LegoBuild()
    anon.add(Element("3001", Color.BLUE), (0, 0, 0))
    car.add(anon, (0, 4, 1), name="rear axle")
    path = write_ldraw(car, tmp_path / "car.mpd")
    doc = parse_document(path.read_text(), path.name)
    names = [f.name for f in doc.files]
    assert names == ["car.ldr", "left_wheel_ _big_.ldr", "rear axle.ldr"]  # spaces allowed (OMR names have them)
    for f in doc.files:
        assert f.header_name == f.name  # 0 Name: repeats 0 FILE in every block (OMR)
    assert read_ldraw(path).brick_count == 3


def test_mpd_written_to_ldr_warns(tmp_path):
    sub = _flat_build()
    top = LegoBuild()
    top.add(sub, (0, 0, 0))
    with pytest.warns(LDrawMPDSuffixWarning, match=r"name the file m\.mpd"):
        write_ldraw(top, tmp_path / "m.ldr")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        write_ldraw(top, tmp_path / "m.mpd")
        write_ldraw(_flat_build(), tmp_path / "flat.ldr")  # a plain model in an .ldr: no warning


def test_data_blocks_and_meta_only_steps_round_trip():
    b = from_ldraw(MPD, source="t.mpd")
    assert not b.import_warnings
    assert b.ldraw_data_files == {"tex.png": ("tex.png", PNG_LINES[0])}
    out = to_ldraw(b)
    # everything written back in place; the last block gains the 0 NOFILE ending the writer puts on every block
    assert out == MPD.replace("0 !DATA tex.png\n" + PNG_LINES[0] + "\n0 NOFILE\n",
                              "0 !DATA tex.png\n" + PNG_LINES[0] + "\n0 NOFILE\n")
    # the payload decodes to the 1 x 1 PNG (IHDR width, height)
    doc = parse_document(out, "t.mpd")
    (name, _line, lines), = doc.data_blocks
    data = base64.b64decode("".join(ln.split("!:", 1)[1].strip() for ln in lines))
    assert name == "tex.png" and data[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", data[16:24]) == (1, 1)
    assert [f.name for f in doc.files] == ["main.ldr"]  # a !DATA block is no model block
    assert from_ldraw(out, source="t.mpd").brick_count == 2


def test_official_model_step_lines_kept(official_dir):
    path = official_dir / "10156_1_LEGO_Truck.mpd"
    src = path.read_text(encoding="utf-8", errors="replace")
    out = to_ldraw(read_ldraw(path))
    steps = lambda t: sum(ln.strip().upper() == "0 STEP" for ln in t.splitlines())  # noqa: E731
    assert steps(out) == steps(src) == 17
