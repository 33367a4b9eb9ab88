"""Tests of :mod:`ldraw_data.library`: locating, installing and reading the library.

Lookup rules are checked on a tiny LDraw folder built in ``tmp_path`` (see
``tests/conftest.py``) and on the real installed library; resolution order and
installation use ``monkeypatch`` on ``LDRAWDIR`` and ``BRICKWRIGHT_DATA_DIR``.
"""

from __future__ import annotations

import time
import zipfile
from pathlib import Path

import pytest

from ldraw_data import LDrawError, LDrawLibrary, LibraryNotFoundError
from ldraw_data.library import (
    cache_dir,
    data_dir,
    find_library,
    get_library,
    install_library,
    normalize_name,
    read_ldraw_text,
)

# -- names and text ----------------------------------------------------------------


def test_normalize_name():
    assert normalize_name("S\\3001s01.DAT") == "s/3001s01.dat"
    assert normalize_name("  48/1-4Cyli.dat \t") == "48/1-4cyli.dat"
    assert normalize_name("My Sub Model.LDR") == "my sub model.ldr"


def test_read_ldraw_text_encodings():
    assert read_ldraw_text(b"\xef\xbb\xbf0 Title\r\n") == "0 Title\r\n"        # BOM dropped, CRLF kept
    assert read_ldraw_text("0 Jörg".encode("utf-8")) == "0 Jörg"
    assert read_ldraw_text("0 Jörg".encode("latin-1")) == "0 Jörg"              # not UTF-8: Latin-1
    assert read_ldraw_text(b"\xef\xbb\xbf0 J\xf6rg") == "0 Jörg"                # BOM then Latin-1 bytes


# -- lookups in a tiny library -----------------------------------------------------


def test_tiny_library_resolution(tiny_library, tiny_library_root):
    root = tiny_library_root.resolve()
    assert tiny_library.root == root
    assert tiny_library.find("3001.dat") == root / "parts" / "3001.dat"
    assert tiny_library.find("3001.DAT") == root / "parts" / "3001.dat"
    assert tiny_library.find("s\\3001s01.dat") == root / "parts" / "s" / "3001s01.dat"
    assert tiny_library.find("S/3001S01.dat") == root / "parts" / "s" / "3001s01.dat"
    assert tiny_library.find("4-4cyli.dat") == root / "p" / "4-4cyli.dat"
    assert tiny_library.find("48\\1-4cyli.dat") == root / "p" / "48" / "1-4cyli.dat"
    assert tiny_library.find("8\\1-4cyli.dat") == root / "p" / "8" / "1-4cyli.dat"
    assert tiny_library.find("dup.dat") == root / "parts" / "dup.dat"   # parts/ before p/
    assert tiny_library.find("9999.dat") is None
    assert tiny_library.find("1-4cyli.dat") is None   # only 48\ and 8\ versions exist


def test_tiny_library_folders_and_primitives(tiny_library):
    assert tiny_library.folder_of("3001.dat") == "parts"
    assert tiny_library.folder_of("s\\3001s01.dat") == "parts"
    assert tiny_library.folder_of("48\\1-4cyli.dat") == "p"
    assert tiny_library.folder_of("nothing.dat") is None
    assert tiny_library.is_primitive("48\\1-4cyli.dat")
    assert tiny_library.is_primitive("4-4cyli.dat")
    assert not tiny_library.is_primitive("s\\3001s01.dat")
    assert not tiny_library.is_primitive("dup.dat")
    assert not tiny_library.is_primitive("nothing.dat")


def test_tiny_library_read_and_listing(tiny_library, tiny_library_root, tiny_library_files):
    assert tiny_library.read("S\\3001S01.DAT") == tiny_library_files["parts/s/3001s01.dat"]
    with pytest.raises(FileNotFoundError) as err:
        tiny_library.read("9999.dat")
    assert "9999.dat" in str(err.value) and str(tiny_library.root) in str(err.value)
    names = [n for n, _ in tiny_library.part_files()]
    assert names == ["3001.dat", "3003.dat", "dup.dat"]   # no subparts, no primitives
    assert tiny_library.ldconfig_path == tiny_library_root.resolve() / "LDConfig.ldr"


def test_fingerprint_changes_when_files_change(tiny_library_root):
    before = LDrawLibrary(tiny_library_root).fingerprint
    assert before == LDrawLibrary(tiny_library_root).fingerprint
    (tiny_library_root / "parts" / "3002.dat").write_text("0 Brick  2 x  3\n")
    assert LDrawLibrary(tiny_library_root).fingerprint != before


def test_upper_case_folders(clean_env, tmp_path):
    root = tmp_path / "OLDLIB"
    for rel in ("PARTS/3001.dat", "PARTS/S/3001s01.dat", "P/48/1-4cyli.dat", "P/stud.dat"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("0 x\n")
    lib = find_library(root)
    assert lib.find("s\\3001s01.dat") == root.resolve() / "PARTS" / "S" / "3001s01.dat"
    assert lib.find("48\\1-4cyli.dat") == root.resolve() / "P" / "48" / "1-4cyli.dat"
    assert lib.is_primitive("stud.dat") and lib.folder_of("3001.dat") == "parts"
    assert [n for n, _ in lib.part_files()] == ["3001.dat"]


def test_library_without_parts_folder(tmp_path):
    with pytest.raises(LibraryNotFoundError) as err:
        LDrawLibrary(tmp_path)
    assert "no parts/ folder" in str(err.value)


# -- the real library ---------------------------------------------------------------


def test_real_library_lookups(library):
    root = library.root
    assert library.find("s\\3001s01.dat") == root / "parts" / "s" / "3001s01.dat"
    assert library.find("48\\1-4cyli.dat") == root / "p" / "48" / "1-4cyli.dat"
    assert library.find("8\\1-4cyli.dat") == root / "p" / "8" / "1-4cyli.dat"
    assert library.find("3001.dat") == root / "parts" / "3001.dat"
    assert library.find("STUD.DAT") == root / "p" / "stud.dat"
    assert library.is_primitive("48\\1-4cyli.dat") and not library.is_primitive("3001.dat")
    assert library.find("3334H.DAT") is None
    names = dict(library.part_files())
    assert "3001.dat" in names and "s/3001s01.dat" not in names
    assert library.ldconfig_path is not None and library.ldconfig_path.name.lower() == "ldconfig.ldr"


# -- find_library / get_library ------------------------------------------------------


@pytest.fixture
def clean_env(monkeypatch, tmp_path):
    """No LDRAWDIR, and an empty data dir (no installed copy)."""
    monkeypatch.delenv("LDRAWDIR", raising=False)
    monkeypatch.setenv("BRICKWRIGHT_DATA_DIR", str(tmp_path / "data"))
    return monkeypatch


def test_find_library_order(clean_env, tmp_path, make_tiny_library):
    arg = make_tiny_library(tmp_path / "arg")
    env = make_tiny_library(tmp_path / "env")
    installed = make_tiny_library(tmp_path / "data" / "ldraw")

    assert find_library().root == installed.resolve()            # installed copy
    clean_env.setenv("LDRAWDIR", str(env))
    assert find_library().root == env.resolve()                  # LDRAWDIR before it
    assert find_library(arg).root == arg.resolve()               # argument before both
    clean_env.setenv("LDRAWDIR", str(tmp_path / "nowhere"))
    assert find_library().root == installed.resolve()            # a wrong LDRAWDIR falls through


def test_find_library_accepts_folder_holding_ldraw(clean_env, tmp_path, make_tiny_library):
    make_tiny_library(tmp_path / "unzipped" / "ldraw")
    assert find_library(tmp_path / "unzipped").root == (tmp_path / "unzipped" / "ldraw").resolve()


def test_find_library_wrong_argument_is_not_replaced(clean_env, tmp_path, make_tiny_library):
    make_tiny_library(tmp_path / "data" / "ldraw")
    with pytest.raises(LibraryNotFoundError) as err:
        find_library(tmp_path / "typo")
    assert err.value.tried == [("argument", str(tmp_path / "typo"))]


def test_library_not_found_message(clean_env, tmp_path):
    clean_env.setenv("LDRAWDIR", str(tmp_path / "env-lib"))
    with pytest.raises(LibraryNotFoundError) as err:
        find_library()
    msg = str(err.value)
    assert err.value.tried == [("LDRAWDIR", str(tmp_path / "env-lib")),
                               ("installed copy", str(tmp_path / "data" / "ldraw"))]
    assert str(tmp_path / "env-lib") in msg and str(tmp_path / "data" / "ldraw") in msg
    assert "brickwright library install" in msg and "LDRAWDIR" in msg
    assert isinstance(err.value, LDrawError)


def test_get_library_caches_and_follows_env(clean_env, tmp_path, make_tiny_library):
    a = make_tiny_library(tmp_path / "a")
    b = make_tiny_library(tmp_path / "b")
    clean_env.setenv("LDRAWDIR", str(a))
    first = get_library()
    assert get_library() is first and first.root == a.resolve()
    clean_env.setenv("LDRAWDIR", str(b))
    assert get_library().root == b.resolve()


def test_data_and_cache_dir_overrides(monkeypatch, tmp_path):
    monkeypatch.setenv("BRICKWRIGHT_DATA_DIR", str(tmp_path / "d"))
    monkeypatch.setenv("BRICKWRIGHT_CACHE_DIR", str(tmp_path / "c"))
    assert data_dir() == tmp_path / "d"
    assert cache_dir() == tmp_path / "c"


# -- install_library -----------------------------------------------------------------


def make_zip(path: Path, files: dict[str, str], prefix: str = "ldraw/") -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for rel, text in files.items():
            zf.writestr(prefix + rel, text)
    return path


def test_install_from_zip(tmp_path, tiny_library_files):
    z = make_zip(tmp_path / "complete.zip", tiny_library_files)
    dest = tmp_path / "inst" / "ldraw"
    out = install_library(z, dest=dest)
    assert out == dest
    assert (dest / "parts" / "s" / "3001s01.dat").read_text() == tiny_library_files["parts/s/3001s01.dat"]
    assert (dest / "LDConfig.ldr").is_file() and (dest / "p" / "48" / "1-4cyli.dat").is_file()
    lib = LDrawLibrary(dest)
    assert lib.find("48\\1-4cyli.dat") == dest.resolve() / "p" / "48" / "1-4cyli.dat"
    # nothing left behind beside the target
    assert sorted(p.name for p in dest.parent.iterdir()) == ["ldraw"]

    # a second install replaces the first
    files2 = dict(tiny_library_files, **{"parts/3002.dat": "0 Brick  2 x  3\n"})
    install_library(make_zip(tmp_path / "complete2.zip", files2, prefix=""), dest=dest)
    assert (dest / "parts" / "3002.dat").is_file()
    assert sorted(p.name for p in dest.parent.iterdir()) == ["ldraw"]


def test_install_default_destination(monkeypatch, tmp_path, tiny_library_files):
    monkeypatch.delenv("LDRAWDIR", raising=False)
    monkeypatch.setenv("BRICKWRIGHT_DATA_DIR", str(tmp_path / "data"))
    out = install_library(make_zip(tmp_path / "complete.zip", tiny_library_files))
    assert out == tmp_path / "data" / "ldraw"
    assert find_library().root == out.resolve()


def test_install_from_folder(tmp_path, make_tiny_library):
    src = make_tiny_library(tmp_path / "src" / "ldraw")
    dest = tmp_path / "dest"
    install_library(src.parent, dest=dest)
    assert (dest / "parts" / "3001.dat").is_file()
    assert (src / "parts" / "3001.dat").is_file()  # copied, not moved


def test_reinstalling_the_same_zip_keeps_the_fingerprint(tmp_path, library):
    # a few real library files, stamped 2023-01-30 00:00 as complete.zip stamps its entries
    rels = ["LDConfig.ldr", "parts/3001.dat", "parts/s/3001s01.dat", "p/stud.dat", "p/48/1-4cyli.dat",
            "p/8/4-4edge.dat"]
    stamp = (2023, 1, 30, 0, 0, 0)
    z = tmp_path / "complete.zip"
    with zipfile.ZipFile(z, "w") as zf:
        for rel in rels:
            zf.writestr(zipfile.ZipInfo("ldraw/" + rel, date_time=stamp),
                        (library.root / rel).read_bytes())
    dest = tmp_path / "inst" / "ldraw"
    install_library(z, dest=dest)
    first = LDrawLibrary(dest).fingerprint
    # files and folders carry the zip's time (local time, as unzip reads it), not the install time
    t = time.mktime(stamp + (0, 0, -1))
    assert (dest / "LDConfig.ldr").stat().st_mtime == t and (dest / "p" / "48").stat().st_mtime == t
    install_library(z, dest=dest)
    assert LDrawLibrary(dest).fingerprint == first
    # a file added later still changes it
    (dest / "parts" / "3003.dat").write_bytes((library.root / "parts" / "3003.dat").read_bytes())
    assert LDrawLibrary(dest).fingerprint != first


@pytest.mark.slow
def test_reinstalling_the_real_zip_keeps_the_fingerprint(tmp_path):
    # the real complete.zip (29,559 entries, 7-15 s per install): same zip, same caches
    z = Path(__file__).resolve().parents[3] / "shared" / "ldraw" / "complete.zip"
    if not z.is_file():
        pytest.skip(f"{z} not found")
    dest = tmp_path / "ldraw"
    install_library(z, dest=dest)
    first = LDrawLibrary(dest).fingerprint
    install_library(z, dest=dest)
    assert LDrawLibrary(dest).fingerprint == first


@pytest.fixture
def installed(tmp_path, tiny_library_files):
    dest = tmp_path / "inst" / "ldraw"
    install_library(make_zip(tmp_path / "good.zip", tiny_library_files), dest=dest)
    return dest


def _unchanged(dest: Path) -> bool:
    return (dest / "parts" / "3001.dat").read_text().startswith("0 Brick  2 x  4\n") and \
        sorted(p.name for p in dest.parent.iterdir()) == ["ldraw"]


def test_install_missing_path_keeps_previous(installed, tmp_path):
    with pytest.raises(LDrawError) as err:
        install_library(tmp_path / "nope.zip", dest=installed)
    assert "nope.zip" in str(err.value) and "no such file" in str(err.value)
    assert _unchanged(installed)


def test_install_not_a_zip_keeps_previous(installed, tmp_path):
    bad = tmp_path / "bad.zip"
    bad.write_bytes(b"this is not a zip file at all")
    with pytest.raises(LDrawError) as err:
        install_library(bad, dest=installed)
    assert "bad.zip" in str(err.value) and "not a zip" in str(err.value)
    assert _unchanged(installed)


def test_install_damaged_zip_keeps_previous(installed, tmp_path):
    good = make_zip(tmp_path / "x.zip", {"parts/3001.dat": "0 Brick " * 200})
    data = bytearray(good.read_bytes())
    i = data.index(b"0 Brick ") + 10
    data[i:i + 20] = b"X" * 20  # corrupt the stored data: CRC check fails
    damaged = tmp_path / "damaged.zip"
    damaged.write_bytes(bytes(data))
    assert zipfile.is_zipfile(damaged)
    with pytest.raises(LDrawError) as err:
        install_library(damaged, dest=installed)
    assert "damaged.zip" in str(err.value) and "damaged" in str(err.value)
    assert _unchanged(installed)


def test_install_zip_without_library_keeps_previous(installed, tmp_path):
    z = make_zip(tmp_path / "other.zip", {"readme.txt": "hello", "docs/a.txt": "x"})
    with pytest.raises(LDrawError) as err:
        install_library(z, dest=installed)
    assert "other.zip" in str(err.value) and "no parts/ folder" in str(err.value)
    assert _unchanged(installed)


def test_install_refuses_to_replace_user_files(tmp_path):
    """--dest pointing at a user's folder or file is refused; nothing is deleted."""
    import zipfile

    from ldraw_data.errors import LDrawError
    from ldraw_data.library import install_library

    z = tmp_path / "mini.zip"
    with zipfile.ZipFile(z, "w") as zf:
        zf.writestr("ldraw/LDConfig.ldr", "0 !COLOUR Black CODE 0 VALUE #1B2A34 EDGE #808080\n")
        zf.writestr("ldraw/parts/9999.dat", "0 Test\n")
    user = tmp_path / "thesis"
    user.mkdir()
    (user / "thesis.txt").write_text("years of work")
    with pytest.raises(LDrawError, match="not empty and holds no LDraw library"):
        install_library(z, dest=user)
    assert (user / "thesis.txt").read_text() == "years of work"
    model = tmp_path / "first.ldr"
    model.write_text("1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n")
    with pytest.raises(LDrawError, match="is a file"):
        install_library(z, dest=model)
    assert model.read_text().startswith("1 4")
    # an earlier installation may be replaced
    lib = tmp_path / "lib"
    install_library(z, dest=lib)
    install_library(z, dest=lib)
    assert (lib / "parts" / "9999.dat").exists()
