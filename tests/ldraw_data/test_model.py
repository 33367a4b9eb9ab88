"""Tests of :mod:`ldraw_data.io.model`: reading files and flattening models.

Small models are written for each rule (expected parts, colours and
transforms worked out by hand); the 67 official models are checked against
part counts computed without this package (``tests/data/official_counts.json``,
see its ``_method`` key).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pytest

from ldraw_data import LDrawParseError, load_model, read_document
from ldraw_data.io.model import (
    ORTHONORMAL_TOLERANCE,
    flatten,
    orthonormalize,
    rotation_deviation,
)
from ldraw_data.io.parse import parse_document

COUNTS = json.loads((Path(__file__).resolve().parents[1] / "data" / "official_counts.json").read_text())

I3 = "1 0 0 0 1 0 0 0 1"


def ref(color, name, pos=(0, 0, 0), rot=I3):
    x, y, z = pos
    return f"1 {color} {x} {y} {z} {rot} {name}"


def flat(text, library, source="m.mpd"):
    return flatten(parse_document(text, source), library)


# -- reading files ------------------------------------------------------------------


def test_read_document_crlf_bom_latin1(tmp_path):
    crlf = tmp_path / "crlf.ldr"
    crlf.write_bytes(b"0 Title\r\n0 Author: A\r\n1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat\r\n")
    doc = read_document(crlf)
    assert doc.source == "crlf.ldr"
    assert doc.main.title == "Title" and doc.main.refs[0].name == "3001.dat"

    bom = tmp_path / "bom.mpd"
    bom.write_bytes(b"\xef\xbb\xbf0 FILE a.ldr\r\n0 Author: J\xc3\xb6rg\r\n1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat\r\n")
    doc = read_document(bom)
    assert doc.is_mpd and doc.main.name == "a.ldr"  # the BOM does not hide the 0 FILE line
    assert doc.main.author == "Jörg"

    latin = tmp_path / "latin.ldr"
    latin.write_bytes("0 Modèle\n0 Author: Jörg Müller\n".encode("latin-1")
                      + b"1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n")
    doc = read_document(latin)
    assert doc.main.title == "Modèle" and doc.main.author == "Jörg Müller"
    assert len(doc.main.refs) == 1


def test_read_document_missing_file(tmp_path):
    with pytest.raises(LDrawParseError) as err:
        read_document(tmp_path / "nope.ldr")
    assert "nope.ldr" in str(err.value) and "cannot read" in str(err.value)
    with pytest.raises(LDrawParseError):
        read_document(tmp_path)  # a folder


# -- flattening rules ----------------------------------------------------------------


def test_colour_16_inherits_and_24_is_kept(tiny_library):
    text = "\n".join([
        "0 FILE main.ldr",
        ref(4, "sub.ldr"),
        ref(16, "3001.dat"),                 # main model: 16 stays 16
        ref("0x2FF8000", "sub.ldr"),
        "0 FILE sub.ldr",
        ref(16, "3001.dat"),                 # takes the referencing colour
        ref(24, "3003.dat"),                 # edge colour: kept as written
        ref(1, "3003.dat"),                  # own colour wins
        ref(16, "inner.ldr"),
        "0 FILE inner.ldr",
        ref(16, "3001.dat"),                 # two levels of 16
        "",
    ])
    m = flat(text, tiny_library)
    assert [(p.part_id, p.color) for p in m.parts] == [
        ("3001", 4), ("3003", 24), ("3003", 1), ("3001", 4),
        ("3001", 16),
        ("3001", 0x2FF8000), ("3003", 24), ("3003", 1), ("3001", 0x2FF8000),
    ]
    assert m.parts[3].submodel_path == ("main.ldr", "sub.ldr", "inner.ldr")
    assert m.parts[3].file == "inner.ldr"
    assert m.warnings == []


def test_transforms_compose_parent_times_child(tiny_library):
    # sub placed at (100, -24, 0) turned 90 degrees about -Y; part at (20, 0, 0) in sub
    text = "\n".join([
        "0 FILE main.ldr",
        ref(16, "sub.ldr", (100, -24, 0), "0 0 1 0 1 0 -1 0 0"),
        "0 FILE sub.ldr",
        ref(16, "3001.dat", (20, 0, 0)),
        "",
    ])
    (p,) = flat(text, tiny_library).parts
    # [[0 0 1],[0 1 0],[-1 0 0]] @ (20,0,0) = (0, 0, -20); + (100, -24, 0)
    np.testing.assert_allclose(p.transform[:3, 3], [100, -24, -20])
    np.testing.assert_allclose(p.transform[:3, :3], [[0, 0, 1], [0, 1, 0], [-1, 0, 0]])
    np.testing.assert_array_equal(p.transform[3], [0, 0, 0, 1])


def test_parts_are_references_that_are_not_submodels(tiny_library):
    text = "\n".join([
        "0 FILE Main.ldr",
        ref(16, "Wheel Assy.ldr", (0, 0, 0)),
        ref(16, "wheel assy.LDR", (50, 0, 0)),  # same block, other spelling
        ref(16, "sub\\axle.ldr"),
        ref(16, "3001.dat"),
        "0 FILE WHEEL ASSY.ldr",
        ref(16, "3003.dat"), ref(16, "3003.dat"),
        "0 FILE sub/Axle.ldr",
        ref(16, "3001.dat"),
        "0 FILE unused.ldr",
        ref(16, "3001.dat"),
        "",
    ])
    m = flat(text, tiny_library)
    assert len(m.parts) == 2 + 2 + 1 + 1
    assert [p.part_id for p in m.parts] == ["3003", "3003", "3003", "3003", "3001", "3001"]
    assert m.parts[2].transform[0, 3] == 50
    assert m.submodels == ["Main.ldr", "WHEEL ASSY.ldr", "sub/Axle.ldr", "unused.ldr"]
    assert m.embedded_parts == []
    assert {p.source for p in m.parts} == {"library"}


def test_embedded_part_block_is_one_part(tiny_library):
    text = "\n".join([
        "0 FILE model.ldr",
        ref(2, "custom.dat", (0, -8, 0)),
        ref(16, "sticker.dat"),
        ref(16, "3001.dat"),
        "0 FILE custom.dat",
        "0 Custom Part",
        "0 !LDRAW_ORG Unofficial_Part",
        ref(16, "s\\custom s01.dat"), ref(16, "3001.dat"), ref(16, "3003.dat"),
        "0 FILE s\\custom s01.dat",
        "0 ~Custom subpart",
        "0 !LDRAW_ORG Unofficial_Subpart",
        "3 16 0 0 0 1 0 0 0 0 1",
        "0 FILE sticker.dat",           # no !LDRAW_ORG, .dat name: a part (MPD convention)
        "0 Sticker 1 x 2",
        "4 16 0 0 0 1 0 0 1 0 1 0 0 1",
        "",
    ])
    m = flat(text, tiny_library)
    assert [(p.part_id, p.source, p.color) for p in m.parts] == [
        ("custom", "embedded", 2), ("sticker", "embedded", 16), ("3001", "library", 16)]
    assert m.parts[0].name == "custom.dat"
    np.testing.assert_array_equal(m.parts[0].transform[:3, 3], [0, -8, 0])
    assert m.submodels == ["model.ldr"]
    assert m.embedded_parts == ["custom.dat", "s\\custom s01.dat", "sticker.dat"]


def test_first_block_named_dat_is_the_main_model(tiny_library):
    # official 6907 calls its main block "6907 Sonic Stinger.dat" with no !LDRAW_ORG
    text = "\n".join([
        "0 FILE 6907 Sonic Stinger.dat",
        ref(1, "3001.dat"), ref(1, "3003.dat"), ref(16, "fig.ldr"),
        "0 FILE fig.ldr",
        "0 Name: fig.ldr",
        ref(4, "3001.dat"),
        "",
    ])
    m = flat(text, tiny_library)
    assert [p.part_id for p in m.parts] == ["3001", "3003", "3001"]
    assert m.submodels == ["6907 Sonic Stinger.dat", "fig.ldr"]
    assert m.embedded_parts == []


def test_primitives_and_lsynth_segments_are_placements(tiny_library):
    text = "\n".join([
        "0 FILE hose.ldr",
        ref(0, "4-4cyli.dat", (0, 0, 0), "4 0 0 0 10 0 0 0 4"),   # scaled primitive: no warning
        ref(0, "48\\1-4cyli.dat"),
        ref(0, "LS51.dat", (0, -1, 0), "1 0 0 0 -0.9062 0 0 0 1"),  # LSynth segment, scaled by design
        ref(0, "LS51.dat", (0, -2, 0), "1 0 0 0 -0.9683 0 0 0 1"),
        "0 FILE LS51.dat",
        "0 LSynth Synthesis Part - \"Hose middle piece\"",
        "0 !LDRAW_ORG Unofficial_Part",
        "4 16 0 0 0 1 0 0 1 1 0 0 1 0",
        "",
    ])
    m = flat(text, tiny_library)
    assert [(p.part_id, p.primitive, p.source) for p in m.parts] == [
        ("4-4cyli", True, "library"), ("48/1-4cyli", True, "library"),
        ("ls51", False, "embedded"), ("ls51", False, "embedded")]
    assert m.parts[2].transform[1, 1] == -0.9062
    assert m.warnings == []


def test_unknown_parts_warn_with_file_and_line(tiny_library):
    text = "\n".join([
        "0 FILE main.ldr",                 # line 1
        ref(16, "sub.ldr"),                # 2
        ref(4, "9999.dat"),                # 3
        ref(4, "9999.DAT"),                # 4: same part, warned once
        "1 16 0 0 0 1 0 0 0 1 0 0 0",      # 5: malformed
        ref(4, "3001.dat"),                # 6
        "0 FILE sub.ldr",                  # 7
        ref(1, "Mystery Part.dat"),        # 8
        "",
    ])
    m = flat(text, tiny_library, "model.mpd")
    assert [p.name for p in m.parts] == ["Mystery Part.dat", "9999.dat", "9999.DAT", "3001.dat"]
    assert [p.source for p in m.parts] == ["unknown", "unknown", "unknown", "library"]
    assert m.unknown_parts == ["9999.DAT", "9999.dat", "Mystery Part.dat"]
    unknown = [w for w in m.warnings if "unknown part" in w.message]
    assert [(w.path, w.line) for w in unknown] == [("model.mpd", 8), ("model.mpd", 3)]
    assert "'Mystery Part.dat'" in unknown[0].message and "'sub.ldr'" in unknown[0].message
    malformed = [w for w in m.warnings if w.line == 5]
    assert len(malformed) == 1 and "needs 15" in malformed[0].message
    assert len(m.warnings) == 3


def test_no_library_marks_every_part_unknown():
    m = flat("\n".join(["0 FILE a.ldr", ref(4, "3001.dat"), ""]), None)
    assert [(p.part_id, p.source) for p in m.parts] == [("3001", "unknown")]


def test_singular_and_mirrored_matrices_kept(tiny_library):
    text = "\n".join([
        "0 FILE m.ldr",
        ref(4, "3001.dat", (0, 0, 0), "1 0 0 0 0 0 0 0 1"),     # line 2: singular
        ref(4, "3001.dat", (0, 0, 0), "-1 0 0 0 1 0 0 0 1"),    # line 3: mirror
        "",
    ])
    m = flat(text, tiny_library)
    sing, mirror = m.parts
    np.testing.assert_array_equal(sing.transform[:3, :3], np.diag([1.0, 0.0, 1.0]))
    assert np.linalg.det(mirror.transform[:3, :3]) == pytest.approx(-1)
    assert [(w.line, "singular" in w.message) for w in m.warnings] == [(2, True)]


def test_rounded_rotations_kept_and_warned_past_tolerance(tiny_library):
    c, s = np.cos(np.radians(30)), np.sin(np.radians(30))
    rounded = f"{c:.3f} 0 {s:.3f} 0 1 0 {-s:.3f} 0 {c:.3f}"     # 3 decimals: deviation ~1e-3
    skewed = "1.1 0 0 0 1 0 0 0 1"                              # deviation 0.21
    text = "\n".join(["0 FILE m.ldr",
                      ref(4, "3001.dat", (0, 0, 0), rounded),
                      ref(4, "3001.dat", (0, 0, 0), skewed), ""])
    m = flat(text, tiny_library)
    assert m.parts[0].transform[0, 0] == round(c, 3)    # kept as written
    assert m.parts[1].transform[0, 0] == 1.1
    assert rotation_deviation(m.parts[0].transform[:3, :3]) < ORTHONORMAL_TOLERANCE
    assert rotation_deviation(m.parts[1].transform[:3, :3]) == pytest.approx(1.1**2 - 1)
    assert len(m.warnings) == 1
    w = m.warnings[0]
    assert w.line == 3 and "non-orthonormal" in w.message and "0.21" in w.message


def test_submodel_cycle_is_warned_not_infinite(tiny_library):
    text = "\n".join([
        "0 FILE a.ldr",            # 1
        ref(16, "b.ldr"),          # 2
        ref(16, "3001.dat"),       # 3
        "0 FILE b.ldr",            # 4
        ref(16, "3003.dat"),       # 5
        ref(16, "A.LDR"),          # 6: back to a
        ref(16, "b.ldr"),          # 7: itself
        "",
    ])
    m = flat(text, tiny_library)
    assert [p.part_id for p in m.parts] == ["3003", "3001"]
    cyc = [w for w in m.warnings if "cycle" in w.message]
    assert [w.line for w in cyc] == [6, 7]


def test_external_submodel_in_model_folder(tmp_path, tiny_library):
    (tmp_path / "Wheel.ldr").write_text("\n".join([ref(16, "3003.dat", (0, 8, 0)), ""]))
    main = tmp_path / "main.ldr"
    main.write_text("\n".join([ref(4, "wheel.ldr", (10, 0, 0)), ref(1, "3001.dat"), ""]))
    m = load_model(main, tiny_library)
    assert [(p.part_id, p.color) for p in m.parts] == [("3003", 4), ("3001", 1)]
    np.testing.assert_array_equal(m.parts[0].transform[:3, 3], [10, 8, 0])


# -- orthonormalize ---------------------------------------------------------------


def test_orthonormalize_keeps_determinant_sign():
    rng = np.random.default_rng(7)
    q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    rot = q * np.sign(np.linalg.det(q))            # det +1
    mirror = rot @ np.diag([-1.0, 1, 1])           # det -1
    noisy = np.stack([rot, mirror]) + rng.normal(scale=1e-3, size=(2, 3, 3))
    out = orthonormalize(noisy)
    assert out.shape == (2, 3, 3)
    np.testing.assert_allclose(np.linalg.det(out), [1, -1], atol=1e-12)
    assert rotation_deviation(out).max() < 1e-12
    np.testing.assert_allclose(out, np.stack([rot, mirror]), atol=5e-3)
    np.testing.assert_allclose(orthonormalize(np.diag([-1.0, 1, 1])), np.diag([-1.0, 1, 1]))


def test_rotation_deviation_values():
    assert rotation_deviation(np.eye(3)) == 0
    assert rotation_deviation(np.diag([-1.0, 1, 1])) == 0
    assert rotation_deviation(np.diag([2.0, 1, 1])) == pytest.approx(3.0)


# -- real library and models -------------------------------------------------------


def test_library_part_placements(library, official_dir):
    m = load_model(official_dir / "1180_1_Space_Port_Moon_Buggy.mpd", library)
    # the minifig block is placed at (0, -21, -12) with colour 15; its head 3626bp69 sits at (0, -56, 0)
    head = next(p for p in m.parts if p.part_id == "3626bp69")
    np.testing.assert_array_equal(head.transform[:3, 3], [0, -77, -12])
    assert head.color == 14
    assert head.submodel_path == ("1180 - Moon Buggy.ldr", "1180 - Minifig.ldr")


def test_treasure_chest_reports_unknown_parts(library, official_dir):
    m = load_model(official_dir / "1788_Treasure_Chest.mpd", library)
    assert m.unknown_parts == ["3334H.DAT", "6029B.DAT"]
    assert len(m.parts) == COUNTS["1788_Treasure_Chest.mpd"]
    msgs = [str(w) for w in m.warnings if "unknown part" in w.message]
    assert len(msgs) == 2
    assert all(s.startswith("1788_Treasure_Chest.mpd:") for s in msgs)


def test_embedded_parts_in_official_models(library, official_dir):
    m = load_model(official_dir / "10252_Volkswagen_Beetle.mpd", library)
    assert "10252 - 24599.dat" in m.embedded_parts
    assert "10252 - 10252_towel.dat" in m.embedded_parts
    used = {p.name.lower() for p in m.parts if p.source == "embedded"}
    assert "10252 - 24599.dat" in used
    assert not any(p.name.lower().startswith("s\\10252") for p in m.parts)  # subparts stay inside


def test_official_counts_file_covers_required_models():
    for name in ("6907_Sonic_Stinger.mpd", "1180_1_Space_Port_Moon_Buggy.mpd", "6232_1_Skeleton_Crew.mpd",
                 "10179_1_Millennium_Falcon_UCS.mpd"):
        assert name in COUNTS
    assert COUNTS["1180_1_Space_Port_Moon_Buggy.mpd"] == 29      # 30 type-1 lines, 1 names the minifig
    assert COUNTS["6232_1_Skeleton_Crew.mpd"] == 37              # 40 type-1 lines, 3 name submodels
    assert COUNTS["6907_Sonic_Stinger.mpd"] == 203               # 192 in the main block + 11 in fig.ldr
    assert COUNTS["10179_1_Millennium_Falcon_UCS.mpd"] == 5247


def test_all_official_models_load_with_independent_counts(library, official_dir):
    files = sorted(official_dir.glob("*.mpd"))
    assert len(files) == 67
    t0 = time.perf_counter()
    got = {}
    for f in files:
        m = load_model(f, library)
        assert m.parts, f.name
        assert all(p.transform.shape == (4, 4) for p in m.parts)
        got[f.name] = len(m.parts)
    elapsed = time.perf_counter() - t0
    expected = {k: v for k, v in COUNTS.items() if not k.startswith("_")}
    assert {k: got[k] for k in expected} == expected
    assert elapsed < 60, f"loading the 67 official models took {elapsed:.1f} s"
