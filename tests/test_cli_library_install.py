"""`brickwright library install` refuses a zip that would break every model (breakit report s24, finding 5):
no LDConfig.ldr, an LDConfig.ldr with no colour, or far fewer parts than the installed library (unless --force).

Run through the real command line with ``--dest`` (the user's installed library is never touched); the colour
table is the real LDConfig.ldr of the installed LDraw library.
"""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PART = "0 Brick  2 x  4\n0 Name: {id}.dat\n0 !LDRAW_ORG Part UPDATE 2004-03\n"


def install(zip_path: Path, dest: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "brickwright", "library", "install", str(zip_path), "--dest",
                           str(dest), *extra], cwd=REPO, capture_output=True, text=True, timeout=120)


def make_zip(path: Path, files: dict[str, str]) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for rel, text in files.items():
            zf.writestr("ldraw/" + rel, text)
    return path


@pytest.fixture
def ldconfig(library) -> str:
    return (library.root / "LDConfig.ldr").read_text(encoding="utf-8")


def parts(*ids: str) -> dict[str, str]:
    return {f"parts/{i}.dat": PART.format(id=i) for i in ids}


def test_zip_without_colours_or_ldconfig_is_refused(tmp_path, ldconfig):
    dest = tmp_path / "lib"
    no_colours = make_zip(tmp_path / "slip.zip", {"LDConfig.ldr": "0 LDraw.org Configuration File\n", **parts("3001")})
    p = install(no_colours, dest)
    assert p.returncode == 2
    assert p.stderr.splitlines()[-1] == (
        f"error: {no_colours}: its LDConfig.ldr defines no colour (no valid 0 !COLOUR line); every model would "
        "fail. Give the LDraw complete.zip. Nothing was installed.")
    assert not dest.exists()

    no_ldconfig = make_zip(tmp_path / "parts-only.zip", parts("3001"))
    p = install(no_ldconfig, dest)
    assert p.returncode == 2
    assert "parts-only.zip: no LDConfig.ldr (the colour table) beside parts/" in p.stderr
    assert not dest.exists()


def test_far_fewer_parts_needs_force(tmp_path, ldconfig):
    dest = tmp_path / "lib"
    full = make_zip(tmp_path / "full.zip", {"LDConfig.ldr": ldconfig, **parts("3001", "3002", "3003", "3004")})
    p = install(full, dest)
    assert p.returncode == 0, p.stderr
    assert "4 parts" in p.stdout

    tiny = make_zip(tmp_path / "tiny.zip", {"LDConfig.ldr": ldconfig, **parts("3001")})
    p = install(tiny, dest)
    assert p.returncode == 2
    assert p.stderr.splitlines()[-1] == (
        f"error: {tiny} has 1 part, far fewer than the 4 of the library installed at {dest}; models using the "
        "others would fail. Pass --force (force=True) to replace it anyway. The previous installation is kept.")
    assert sorted(f.name for f in (dest / "parts").iterdir()) == ["3001.dat", "3002.dat", "3003.dat", "3004.dat"]

    # half or more of the parts is a normal update; --force replaces with fewer
    assert install(make_zip(tmp_path / "two.zip", {"LDConfig.ldr": ldconfig, **parts("3001", "3002")}),
                   dest).returncode == 0
    p = install(tiny, dest, "--force")
    assert p.returncode == 0, p.stderr
    assert "1 part\n" in p.stdout and "1 parts" not in p.stdout  # singular (breakit s25)
    assert sorted(f.name for f in (dest / "parts").iterdir()) == ["3001.dat"]
