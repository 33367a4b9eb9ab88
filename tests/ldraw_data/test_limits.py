"""Hostile model files: deep submodel chains and exponential fan-out stop with one clear error.

Expected values worked out by hand from the generated files:
- ``chain(n)``: submodel ``s{i}`` places a 3001 brick and ``s{i+1}``; the last one places one brick.
  The main model ``s0`` nests n levels and places n + 1 bricks.
- ``fan(n)``: submodel ``f{i}`` places ``f{i+1}`` twice; the last one places one brick: 2**n parts.
"""

from __future__ import annotations

import numpy as np
import pytest

from ldraw_data import (
    MAX_FLAT_PARTS,
    MAX_PART_TRIANGLES,
    MAX_SUBMODEL_DEPTH,
    LDrawLimitError,
    LDrawParseError,
    flatten,
    load_model,
    parse_document,
    part_mesh,
)
from ldraw_data.io.limits import measure_submodels

BRICK = "1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat"


def chain(n: int) -> str:
    """MPD text of a chain of n nested submodels (each places a brick and the next), n + 1 bricks."""
    lines = []
    for i in range(n):
        lines += [f"0 FILE s{i}.ldr", f"1 16 0 -24 0 1 0 0 0 1 0 0 0 1 s{i + 1}.ldr", BRICK]
    lines += [f"0 FILE s{n}.ldr", BRICK]
    return "\n".join(lines) + "\n"


def fan(n: int, leaf: str = BRICK, ext: str = "ldr") -> str:
    """MPD text whose block i places block i + 1 twice, n levels: 2**n copies of ``leaf``."""
    lines = []
    for i in range(n):
        lines += [f"0 FILE f{i}.{ext}", f"1 16 0 0 0 1 0 0 0 1 0 0 0 1 f{i + 1}.{ext}",
                  f"1 16 0 -24 0 1 0 0 0 1 0 0 0 1 f{i + 1}.{ext}"]
    lines += [f"0 FILE f{n}.{ext}", leaf]
    return "\n".join(lines) + "\n"


def measure(text, library):
    doc = parse_document(text, "m.mpd")
    blocks = doc.blocks_by_key
    return measure_submodels(doc.main, blocks.get, doc.is_submodel)


def test_limits_are_the_documented_values():
    assert (MAX_SUBMODEL_DEPTH, MAX_FLAT_PARTS, MAX_PART_TRIANGLES) == (100, 1_000_000, 2_000_000)
    assert issubclass(LDrawLimitError, LDrawParseError)  # every reader's caller already reports these


def test_measure_counts_without_expanding(library):
    t = measure(chain(7), library)
    assert (t.depth, t.parts, t.back_edges) == (7, 8, frozenset())
    t = measure(fan(19), library)  # 524,288 parts, measured in 20 block visits
    assert (t.depth, t.parts) == (19, 2**19)


def test_measure_finds_cycles_in_file_order(library):
    text = ("0 FILE a.ldr\n1 16 0 0 0 1 0 0 0 1 0 0 0 1 b.ldr\n" + BRICK + "\n"
            "0 FILE b.ldr\n" + BRICK + "\n1 16 0 0 0 1 0 0 0 1 0 0 0 1 a.ldr\n1 16 0 0 0 1 0 0 0 1 0 0 0 1 b.ldr\n")
    t = measure(text, library)
    assert t.back_edges == {("b.ldr", 6), ("b.ldr", 7)}
    assert (t.depth, t.parts) == (1, 2)


def test_nesting_at_the_limit_is_read(library):
    m = flatten(parse_document(chain(MAX_SUBMODEL_DEPTH), "deep.mpd"), library)
    assert len(m.parts) == MAX_SUBMODEL_DEPTH + 1
    assert len(m.submodels) == MAX_SUBMODEL_DEPTH + 1
    # the last brick is 100 submodel levels down, each 24 LDU up (-y in LDraw)
    deepest = max(m.parts, key=lambda p: len(p.submodel_path))
    assert len(deepest.submodel_path) == MAX_SUBMODEL_DEPTH + 1
    assert deepest.transform[1, 3] == -24 * MAX_SUBMODEL_DEPTH


@pytest.mark.parametrize("depth", [MAX_SUBMODEL_DEPTH + 1, 1_000, 10_000])
def test_deeper_nesting_is_one_clear_error(tmp_path, library, depth):
    path = tmp_path / "deep.mpd"
    path.write_text(chain(depth))
    with pytest.raises(LDrawLimitError) as err:
        load_model(path, library)
    msg = str(err.value)
    # the reference that goes one level too deep: s100.ldr's line placing s101.ldr (3 lines a block)
    assert msg.startswith(f"deep.mpd:{3 * MAX_SUBMODEL_DEPTH + 2}: submodels are nested more than 100 levels")
    assert "MAX_SUBMODEL_DEPTH = 100" in msg and "Merge the deepest submodels" in msg
    assert "'s101.ldr'" in msg and "RecursionError" not in msg


def test_exponential_fan_out_stops_before_expanding(tmp_path, library):
    path = tmp_path / "fan.mpd"
    path.write_text(fan(40))  # 2**40 parts described in under 4 KB
    assert path.stat().st_size < 4096
    with pytest.raises(LDrawLimitError) as err:
        load_model(path, library)
    msg = str(err.value)
    # 2**20 = 1,048,576 is the first count past the limit: block f20 (its 0 FILE on line 61) places
    # f21 (2**19 parts) the second time on line 63
    assert msg.startswith("fan.mpd:63: the model places more than 1,000,000 parts")
    assert "'f20.ldr'" in msg and "MAX_FLAT_PARTS = 1,000,000" in msg


def test_fan_out_through_external_files_is_counted(tmp_path, library):
    """Model files beside the model are measured like MPD blocks (each level its own .ldr file)."""
    for i in range(40):
        (tmp_path / f"f{i}.ldr").write_text(f"1 16 0 0 0 1 0 0 0 1 0 0 0 1 f{i + 1}.ldr\n"
                                            f"1 16 0 -24 0 1 0 0 0 1 0 0 0 1 f{i + 1}.ldr\n")
    (tmp_path / "f40.ldr").write_text(BRICK + "\n")
    with pytest.raises(LDrawLimitError, match="MAX_FLAT_PARTS"):
        load_model(tmp_path / "f0.ldr", library)


def test_embedded_part_fan_out_stops_at_the_triangle_limit(library):
    """An MPD-embedded part whose subfiles place each other twice, 40 levels: 2**40 triangles."""
    text = "0 FILE main.ldr\n1 4 0 0 0 1 0 0 0 1 0 0 0 1 f0.dat\n" + fan(
        40, leaf="3 16 0 0 0 1 0 0 0 0 1", ext="dat")
    doc = parse_document(text, "emb.mpd")
    m = flatten(doc, library)
    assert [p.part_id for p in m.parts] == ["f0"]  # one embedded part placed
    with pytest.raises(LDrawLimitError) as err:
        part_mesh("f0.dat", library, embedded=doc)
    # 2**21 = 2,097,152 triangles is the first count past 2,000,000: block f19 (its 0 FILE on line 60)
    # places f20 (2**20 triangles) the second time on line 62
    assert str(err.value).startswith("emb.mpd:62: 'f19.dat' is drawn with more than 2,000,000 triangles")


def test_deep_embedded_part_chain_is_refused_when_read(tmp_path, library):
    lines = ["0 FILE main.ldr", "1 4 0 0 0 1 0 0 0 1 0 0 0 1 e0.dat"]
    for i in range(1_000):
        lines += [f"0 FILE e{i}.dat", "0 !LDRAW_ORG Unofficial_Part", f"1 16 0 0 0 1 0 0 0 1 0 0 0 1 e{i + 1}.dat"]
    lines += ["0 FILE e1000.dat", "3 16 0 0 0 1 0 0 0 0 1"]
    path = tmp_path / "emb.mpd"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(LDrawLimitError, match="nested more than 100 levels"):
        load_model(path, library)
    doc = parse_document(path.read_text(), "emb.mpd")
    with pytest.raises(LDrawLimitError, match="part files are nested more than 100 levels"):
        part_mesh("e0.dat", library, embedded=doc)
    assert np.isfinite(part_mesh("e950.dat", library, embedded=doc).bbox).all()  # 50 levels: fine
