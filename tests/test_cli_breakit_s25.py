"""Findings of the s25 break-it round (a README-only user tried to break the command line), each run as that
user would: ``python -m brickwright ...`` in a real process from the repository root, on the real LDraw library.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def brickwright(*args: str, timeout: float = 120, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "brickwright", *args], cwd=REPO, capture_output=True, text=True,
                          timeout=timeout, **kw)


# ----------------------------------------------------------------------------- F1: 0 FILE parts/3001.dat
#: Two 2 x 4 bricks 10 LDU apart (drawn through each other in the catalog's shape), referenced as {ref}, and
#: from line 5 a block 0 FILE {name} that replaces the brick's shape with one triangle.
SHADOW_PATH_MPD = ("0 FILE main.ldr\n1 4 0 0 0 1 0 0 0 1 0 0 0 1 {ref}\n1 1 10 0 0 1 0 0 0 1 0 0 0 1 {ref}\n"
                   "0 NOFILE\n0 FILE {name}\n3 16 0 0 0 1 0 0 0 0 1\n0 NOFILE\n")


@pytest.mark.parametrize("name", ["parts/3001.dat", "parts\\3001.dat", "PARTS\\3001.DAT", "Parts/3001.dat"])
def test_a_block_named_with_its_library_folder_is_a_shadowed_library_file(tmp_path, library, name):
    """F1: ``0 FILE parts/3001.dat`` is the library's 2 x 4 brick for LDraw tools that search the library root,
    and for this toolkit's part id (the bricks are "Brick 2 x 4"): it was VALID (exit 0) with the two bricks
    10 LDU apart. It must be SHADOWED LIBRARY FILE at line 5, NOT VALID, exit 1, like ``0 FILE 3001.dat``."""
    model = tmp_path / "sh.mpd"
    model.write_text(SHADOW_PATH_MPD.format(ref=name, name=name))
    p = brickwright("validate", str(model), "--json")
    rec = json.loads(p.stdout)
    assert (p.returncode, rec["valid"]) == (1, False), p.stdout
    assert rec["shadowed_files"] == [{"name": name, "file": "sh.mpd", "line": 5,
                                      "library_file": "parts/3001.dat", "folder": "parts"}]
    p = brickwright("export", str(model), str(tmp_path / "s.stl"))
    assert p.returncode == 0, p.stderr
    assert p.stderr.splitlines() == [
        f"warning: sh.mpd:5: 0 FILE {name} redefines parts/3001.dat of the LDraw library; exported with the "
        "file's own block, as LDraw viewers do (MPD spec), not the catalog part: `brickwright validate` reports "
        "the model NOT VALID"]


def test_library_key_takes_a_written_out_search_folder(library):
    """``parts/``, ``parts/s/`` and ``p/`` written before a library name resolve to that folder's file; a folder
    that does not hold the file, or a name not in the library, is not a library file."""
    lib = library
    assert lib.library_key("3001.dat") == ("parts", "3001.dat")
    assert lib.library_key("PARTS\\3001.DAT") == ("parts", "3001.dat")
    assert lib.library_key("parts/s/3001s01.dat") == ("parts", "s/3001s01.dat")
    assert lib.library_key("p\\4-4cyli.dat") == ("p", "4-4cyli.dat")
    assert lib.library_key("p/48/4-4cyli.dat") == ("p", "48/4-4cyli.dat")
    assert lib.library_key("p/3001.dat") is None  # 3001.dat is in parts/, not p/
    assert lib.library_key("parts/my-sticker.dat") is None


# ----------------------------------------------------------------------------- F6: info on cycles and shadowing
def test_info_warns_about_a_shadowed_library_file_and_names_the_part_as_validate_and_parts_do(tmp_path, library):
    """F6: info printed no warning for a block redefining 3001 and named it "Brick 2 x 4" while parts used the
    block's file name. Both now use the catalog name (what validate cites), and info prints the one warning line
    (the size it gives, 0 x 0 x 0 mm, is the one-triangle block's)."""
    model = tmp_path / "sh.mpd"
    model.write_text(SHADOW_PATH_MPD.format(ref="parts/3001.dat", name="parts/3001.dat"))
    p = brickwright("info", str(model))
    assert p.returncode == 0, p.stderr
    assert "(0 x 0 x 0 mm)" in p.stdout
    assert p.stderr.splitlines() == [
        "warning: sh.mpd:5: 0 FILE parts/3001.dat redefines parts/3001.dat of the LDraw library; measured with the "
        "file's own block, as LDraw viewers do (MPD spec), not the catalog part: `brickwright validate` reports "
        "the model NOT VALID"]
    assert [ln.split(None, 3)[3][:11] for ln in p.stdout.splitlines() if " x parts/3001 " in ln] == ["Brick 2 x 4"] * 2
    rows = json.loads(brickwright("parts", str(model), "--json").stdout)["rows"]
    assert sorted((r["name"], r["kind"], r["color"]) for r in rows) == [("Brick 2 x 4", "embedded", 1),
                                                                        ("Brick 2 x 4", "embedded", 4)]
    rec = json.loads(brickwright("info", str(model), "--json").stdout)
    assert [(d["line"], d["library_file"]) for d in rec["shadowed_files"]] == [(5, "parts/3001.dat")]


def test_info_warns_about_a_submodel_cycle(tmp_path, library):
    """F6: a submodel placing itself (line 3) gets validate's one-line SUBMODEL CYCLE warning from info too."""
    model = tmp_path / "self.mpd"
    model.write_text("0 FILE main.ldr\n1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n1 4 0 -24 0 1 0 0 0 1 0 0 0 1 main.ldr\n")
    p = brickwright("info", str(model))
    assert p.returncode == 0 and "1 part," in p.stdout
    assert p.stderr.splitlines() == [
        "warning: self.mpd:3: submodel cycle: main.ldr places itself (self.mpd:3): a submodel cannot contain itself, "
        "so this reference is skipped; break the cycle: delete this reference or make it place another submodel "
        "or a part"]


# ----------------------------------------------------------------------------- F7: primitives and sub-parts
#: 3001 then, on lines 3-7, a primitive, a primitive, a sub-part, a 48/ primitive (all in the library, not parts)
#: and p/stud.dat, which no search folder holds under that name (unknown).
PRIM_LDR = "".join(f"1 4 0 -24 0 1 0 0 0 1 0 0 0 1 {n}\n" for n in
                   ("4-4cyli.dat", "stud.dat", "s/3001s01.dat", "48/4-4cyli.dat", "p/stud.dat"))


def test_info_and_parts_call_primitives_and_sub_parts_what_validate_calls_them(tmp_path, library):
    """F7: info and parts called library primitives (p/) and sub-parts (parts/s/) placed as parts "unknown"; they are
    primitives / sub-parts, as validate's NOT A PART says; p/stud.dat stays unknown."""
    model = tmp_path / "prim.ldr"
    model.write_text("0 prim\n1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n" + PRIM_LDR)
    v = brickwright("validate", str(model))
    assert [ln.split()[4] for ln in v.stdout.splitlines() if ln.startswith("NOT A PART")] == [
        "4-4cyli", "stud", "s/3001s01", "48/4-4cyli"]
    rows = json.loads(brickwright("parts", str(model), "--json").stdout)["rows"]
    assert {r["part_id"]: r["kind"] for r in rows} == {
        "3001": "part", "4-4cyli": "primitive", "stud": "primitive", "s/3001s01": "sub-part",
        "48/4-4cyli": "primitive", "p/stud": "unknown"}
    out = brickwright("info", str(model)).stdout
    assert ("not parts (library primitives or sub-parts placed as parts; validate: NOT A PART): 4-4cyli (primitive), "
            "stud (primitive), s/3001s01 (sub-part), 48/4-4cyli (primitive)") in out.splitlines()
    assert "unknown parts (not in the library): p/stud.dat" in out.splitlines()
    rec = json.loads(brickwright("info", str(model), "--json").stdout)
    assert {b["part_id"]: b["name"] for b in rec["bom"]}["s/3001s01"] == "(sub-part)"


# ----------------------------------------------------------------------------- F11: a part name holding ")"
def test_a_part_name_with_a_parenthesis_is_cited_whole(library, official_dir):
    """F11: 6835 Saucer Scout's floating legs were cited as ``3816 (~Minifig Leg Right (Obsolete: ...``, the name's
    ")", the colour and the closing ")" cut off by a strip of "()" around the citation. The leg is the lowest part
    of its component (line 95 of the file, placed through line 10), black (LDraw colour 0)."""
    model = official_dir / "6835_1_Saucer_Scout.mpd"
    p = brickwright("validate", str(model))
    hits = [ln for ln in p.stdout.splitlines() if "under its lowest part" in ln and "3816" in ln]
    assert hits, p.stdout
    assert ("under its lowest part, 6835_1_Saucer_Scout.mpd:10/:95: 3816 (~Minifig Leg Right (Obsolete), "
            "Color.BLACK): it stands on the ground by itself") in hits[0]  # the minifigure beside the ship


# ----------------------------------------------------------------------------- F13: a colour map with no row
@pytest.mark.parametrize("text, says", [
    ("a,b,c\n", "line 1: the colour table has no row: 'a,b,c' was taken as its header (its first column is not an "
                "LDraw colour code) and no row follows; give one 'ldraw,marketplace id' row per colour"),
    ("# comments only\n\n", "line 1: the colour table has no row (empty, or only comments); give one "
                            "'ldraw,marketplace id' row per colour"),
])
def test_a_colour_map_without_rows_is_named_with_its_line(tmp_path, library, text, says):
    """F13: a --color-map file holding only ``a,b,c`` (read as a header) gave the "needs --color-map" error as if
    no map were given; it must name the file and line and say what is wrong (exit 2)."""
    model = tmp_path / "b.ldr"
    model.write_text("1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n")
    cmap = tmp_path / "cmapbad.csv"
    cmap.write_text(text)
    p = brickwright("parts", str(model), "--format", "rebrickable-csv", "--color-map", str(cmap))
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.startswith(f"error: {cmap} {says}"), p.stderr


# ----------------------------------------------------------------------------- F5: Ctrl-C keeps the verdicts made
def test_ctrl_c_in_a_several_file_validate_keeps_the_verdicts_already_made(tmp_path, library):
    """F5: Ctrl-C during ``validate a b c --json`` printed no line at all, throwing away verdicts already
    computed. Now every file gets one line in the order given: the judged ones their verdict, the endless
    build.py (its own limit is 30 s) status "interrupted" with exit_code 130; the command exits 130. SIGINT is
    sent once the first file's line is out (as ``timeout -s INT`` does, to the command's process only)."""
    import signal

    two = "1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n1 1 0 -24 0 1 0 0 0 1 0 0 0 1 3001.dat\n"
    (tmp_path / "q1.ldr").write_text(two)
    (tmp_path / "q2.ldr").write_text(two)
    (tmp_path / "forever.py").write_text("while True:\n    pass\n")
    files = [str(tmp_path / n) for n in ("q1.ldr", "forever.py", "q2.ldr")]
    for as_json in (True, False):
        proc = subprocess.Popen([sys.executable, "-m", "brickwright", "validate", *files,
                                 *(["--json"] if as_json else [])], cwd=REPO, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        first = proc.stdout.readline()  # q1.ldr is judged in seconds; forever.py runs until its 30 s limit
        proc.send_signal(signal.SIGINT)
        rest, err = proc.communicate(timeout=60)
        lines = [first, *rest.splitlines()]
        assert proc.returncode == 130, err
        assert err.splitlines()[-1] == "interrupted"
        if as_json:
            recs = [json.loads(ln) for ln in lines]
            assert [r["file"] for r in recs] == files
            assert (recs[0]["status"], recs[0]["exit_code"]) == ("valid", 0)
            assert (recs[1]["status"], recs[1]["exit_code"], recs[1]["valid"]) == ("interrupted", 130, False)
            assert recs[2]["status"] in ("valid", "interrupted")  # judged or not when Ctrl-C came
        else:
            assert lines[0].strip() == f"{files[0]}: 2 parts, 0 colliding pairs, 0 floating, 1 connected " \
                                       "component(s) -> VALID"
            assert lines[1] == (f"{files[1]}: interrupted: no verdict: interrupted (Ctrl-C) before it was judged; "
                                "validate it again")
            assert lines[2].startswith(f"{files[2]}: ") and len(lines) == 3
