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
