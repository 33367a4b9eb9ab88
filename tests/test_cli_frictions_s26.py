"""Frictions left from the s25 break-it round and played runs (s26), run as a user would: ``python -m brickwright``
in a real process from the repository root, on the real LDraw library."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def brickwright(*args: str, timeout: float = 120, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "brickwright", *args], cwd=REPO, capture_output=True, text=True,
                          timeout=timeout, **kw)


def test_reference_for_strips_a_written_out_search_folder(library):
    """LDraw references are relative to the search folders (File Format spec 1.0.0), so ``p/stud.dat`` names no
    library file as written; ``reference_for`` gives the one it should be."""
    assert library.reference_for("p/stud.dat") == "stud.dat"
    assert library.reference_for("PARTS\\3003.DAT") == "3003.dat"
    assert library.reference_for("parts/s/3001s01.dat") == "s/3001s01.dat"
    assert library.reference_for("p/48/4-4cyli.dat") == "48/4-4cyli.dat"
    assert library.reference_for("stud.dat") is None  # already the reference
    assert library.reference_for("p/3001.dat") is None  # 3001.dat is in parts/, not p/
    assert library.reference_for("p/no-such-primitive.dat") is None


#: A 2 x 4 brick, then a stud primitive written with its folder (line 2) and a 2 x 2 brick written with its folder.
FOLDER_REFS = ("1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n1 4 0 -24 0 1 0 0 0 1 0 0 0 1 p/stud.dat\n"
               "1 4 0 -24 0 1 0 0 0 1 0 0 0 1 parts/3003.dat\n")


def test_a_reference_with_its_library_folder_is_told_the_reference_to_write(tmp_path, library):
    model = tmp_path / "prim.ldr"
    model.write_text(FOLDER_REFS)
    p = brickwright("validate", str(model))
    assert p.returncode == 1
    lines = p.stdout.splitlines()
    stud = next(ln for ln in lines if ln.startswith("UNKNOWN PART prim.ldr:2:"))
    assert stud.endswith(": LDraw references name library files without their folder (p/, parts/): write "
                         "'stud.dat', a primitive (p/), not a part: use the catalog part it belongs to")
    brick = next(ln for ln in lines if ln.startswith("UNKNOWN PART prim.ldr:3:"))
    assert brick.endswith(": LDraw references name library files without their folder (p/, parts/): write "
                          "'3003.dat'")
    assert ("warning: prim.ldr:2: unknown part 'p/stud.dat' kept as a placement without geometry or connectors; "
            "LDraw references name library files without their folder (p/, parts/): write 'stud.dat'") in p.stderr
    # the advice is right: written as told, the brick is checked (no UNKNOWN PART left for line 3)
    model.write_text(FOLDER_REFS.replace("parts/3003.dat", "3003.dat"))
    p = brickwright("validate", str(model))
    assert "UNKNOWN PART prim.ldr:3" not in p.stdout and "UNKNOWN PART prim.ldr:2" in p.stdout


def test_parts_warns_about_a_shadowed_library_file_as_info_does(tmp_path, library):
    """F6: info, validate, render and export named a ``0 FILE 3001.dat`` block; parts listed it silently."""
    model = tmp_path / "shadow.mpd"
    model.write_text("0 FILE main.ldr\n1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n0 NOFILE\n0 FILE 3001.dat\n"
                     "0 a fake brick\n3 16 0 0 0 1 0 0 0 0 1\n0 NOFILE\n")
    p = brickwright("parts", str(model))
    assert p.returncode == 0, p.stderr
    assert p.stderr.splitlines() == [
        "warning: shadow.mpd:4: 0 FILE 3001.dat redefines parts/3001.dat of the LDraw library; listed with the "
        "file's own block, as LDraw viewers do (MPD spec), not the catalog part: `brickwright validate` reports "
        "the model NOT VALID"]
    p = brickwright("info", str(model))
    assert "shadow.mpd:4: 0 FILE 3001.dat redefines parts/3001.dat" in p.stderr
