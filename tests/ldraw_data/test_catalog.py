"""Catalog records checked against the real part files, and the popularity table.

Expected values were read by hand from the files of the installed library
(``parts/3001.dat``, ``3023.dat``, ``3039.dat``, ``10.dat``, ``100.dat``,
``3665.dat``, ``10201.dat``, ``10039.dat``, ``6023.dat``) and, for the usage
counts, from an independent script that splits each official ``.mpd`` on
``0 FILE`` lines and counts type-1 references with submodel multiplicity.
"""

from __future__ import annotations

import collections
import csv
import gzip
import json
import shutil

import pytest

from ldraw_data import LDrawLibrary, PartNotFoundError
from ldraw_data.catalog import (
    Catalog,
    PartSpec,
    build_popularity,
    get_catalog,
    normalize_part_id,
    parse_dims,
    parse_header,
    popularity,
    write_popularity,
)


@pytest.fixture(scope="module")
def catalog(library):
    return get_catalog(library)


# --------------------------------------------------------------------------- pure parsing


@pytest.mark.parametrize(
    "title, dims",
    [
        ("Brick  2 x  4", (2.0, 4.0)),
        ("Plate  1 x  2 with Handle", (1.0, 2.0)),
        ("Brick  1 x  2 x  5", (1.0, 2.0, 5.0)),
        ("Slope Brick 45  2 x  2", (2.0, 2.0)),  # the angle 45 is not joined by x
        ("Electric 9V Battery Box  4 x  8 x  2 1/3 Lid", (4.0, 8.0, 2.3333)),
        ("Motor Pull Back  4 x  8 x  0.667 with White Axle", (4.0, 8.0, 0.667)),
        ("Technic Beam  5", ()),
        ("Minifig Torso", ()),
    ],
)
def test_parse_dims(title, dims):
    assert parse_dims(title) == dims


@pytest.mark.parametrize("name", ["3001", "3001.dat", "3001.DAT", "parts\\3001.dat", " 3001.Dat "])
def test_normalize_part_id(name):
    assert normalize_part_id(name) == "3001"


def test_parse_header_keywords_and_flags():
    text = (
        "0 ~Moved to 3665a\n0 Name: 3665.dat\n0 !LDRAW_ORG Part UPDATE 2015-01\n"
        "0 !KEYWORDS a, b\n0 !KEYWORDS c\n1 16 0 0 0 1 0 0 0 1 0 0 0 1 3665a.dat\n0 !CATEGORY Never\n"
    )
    spec = parse_header("3665", text)
    assert spec.moved_to == "3665a"
    assert spec.keywords == ("a", "b", "c")
    assert spec.category == "Moved"  # header stops at the first drawing line
    assert not spec.is_obsolete and not spec.is_listed


# --------------------------------------------------------------------------- real library


def test_3001(catalog):
    s = catalog.get("3001")
    assert s.title == "Brick  2 x  4"
    assert s.name == "Brick 2 x 4"
    assert s.category == "Brick"  # no !CATEGORY: first word of the title
    assert s.dims == (2.0, 4.0)
    assert s.ldraw_org == "Part"
    assert not (s.moved_to or s.is_alias or s.is_obsolete or s.is_printed or s.is_shortcut)
    assert s.filename == "3001.dat"


def test_3023_is_the_real_plate(catalog):
    s = catalog.get("3023")
    assert s.title == "Plate  1 x  2"
    assert s.category == "Plate" and s.dims == (1.0, 2.0)
    assert s.moved_to is None and s.is_listed


def test_3039(catalog):
    s = catalog.get("3039")
    assert s.name == "Slope Brick 45 2 x 2"
    assert s.category == "Slope"
    assert s.dims == (2.0, 2.0)


def test_category_keywords_shortcut(catalog):
    s = catalog.get("10039")  # "0 !CATEGORY Vehicle", "0 !KEYWORDS Shell Promo, Ferrari"
    assert s.category == "Vehicle"
    assert s.keywords == ("Shell Promo", "Ferrari")
    assert s.is_shortcut and s.dims == (4.0, 8.0, 0.667)


def test_category_after_long_help_block(catalog):
    # 6023.dat has 16 !HELP lines; its !CATEGORY is on line 26.
    assert catalog.get("6023").category == "Minifig Neckwear"


def test_printed_variant(catalog):
    s = catalog.get("3001p01")
    assert s.name == "Brick 2 x 4 with Three Black Rectangles Pattern"
    assert s.is_printed and s.is_patterned and s.dims == (2.0, 4.0)


def test_moved_and_chain(catalog):
    s = catalog.get("10")
    assert s.title == "~Moved to 10a" and s.moved_to == "10a"
    assert not s.is_obsolete and not s.is_listed
    assert catalog.resolve_moved("10").part_id == "10a"
    assert catalog.resolve_moved("10a").name == "Baseplate 24 x 32 with Rounded Corners"
    # 100 -> 3665 -> 3665a
    assert catalog.get("100").moved_to == "3665"
    assert catalog.resolve_moved("100.dat").part_id == "3665a"


def test_moved_to_missing_target(catalog):
    # 2421a.dat: "~Moved to s\2421a" (a subpart, not a catalog part)
    assert catalog.get("2421a").moved_to == "s/2421a"
    with pytest.raises(PartNotFoundError):
        catalog.resolve_moved("2421a")


def test_alias(catalog):
    s = catalog.get("10201")  # "0 =Bracket  1 x  2 -  1 x  4 with Rounded Corners", Part Alias
    assert s.is_alias and s.ldraw_org == "Part Alias"
    assert s.category == "Bracket"
    assert not s.is_listed


def test_obsolete_and_physical_colour(catalog):
    # "~_Ball 52mm Diameter Dark Grey (Obsolete)", Part Physical_Colour, "0 !CATEGORY Sphere"
    s = catalog.get("23065")
    assert s.is_obsolete and s.is_physical_colour
    assert s.category == "Sphere"
    assert catalog.get("10040").is_obsolete  # "~Motor Pull Back ... - Top": hidden from part lists


def test_get_spellings_and_container(catalog, library):
    assert catalog.get("3001.DAT") is catalog.get("3001") is catalog["3001.dat"]
    assert "3001.dat" in catalog and "3001X" not in catalog and 3001 not in catalog
    # Every top-level part file is in the catalog, nothing else.
    assert len(catalog) == len(library.part_files())
    ids = [s.part_id for s in catalog]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    assert all("/" not in i for i in ids)


def test_typo_suggestions(catalog):
    with pytest.raises(PartNotFoundError) as info:
        catalog.get("3001x")
    assert info.value.suggestions[0] == "3001"
    assert "did you mean '3001'" in str(info.value)
    assert catalog.suggest("3O23")[0] == "3023"


def test_popularity_on_records(catalog):
    assert catalog.get("3023").popularity == 1888
    assert catalog.get("3001").popularity == 273
    assert catalog.get("3001p01").popularity == 0


# --------------------------------------------------------------------------- disk cache


def test_disk_cache_roundtrip_and_invalidation(tiny_library_root, tmp_path, monkeypatch):
    monkeypatch.setenv("BRICKWRIGHT_CACHE_DIR", str(tmp_path / "cache"))
    lib = LDrawLibrary(tiny_library_root)
    cat = get_catalog(lib)
    assert sorted(s.part_id for s in cat) == ["3001", "3003", "dup"]
    path = tmp_path / "cache" / f"catalog-{lib.fingerprint}.json.gz"
    assert path.is_file()
    with gzip.open(path, "rt") as fh:
        data = json.load(fh)
    loaded = Catalog.from_json(data)
    assert [s.name for s in loaded] == ["Brick 2 x 4", "Brick 2 x 2", "Dup in parts"]
    # A new part changes the fingerprint, so a new catalog is built.
    (tiny_library_root / "parts" / "3004.dat").write_text("0 Brick  1 x  2\n0 Name: 3004.dat\n")
    lib2 = LDrawLibrary(tiny_library_root)
    assert lib2.fingerprint != lib.fingerprint
    cat2 = get_catalog(lib2)
    assert cat2.get("3004").dims == (1.0, 2.0)
    assert (tmp_path / "cache" / f"catalog-{lib2.fingerprint}.json.gz").is_file()


def test_partspec_is_frozen():
    s = PartSpec("1", "t", "t", "c")
    with pytest.raises(AttributeError):
        s.part_id = "2"  # type: ignore[misc]


# --------------------------------------------------------------------------- popularity


def test_shipped_popularity_table():
    pop = popularity()
    # Independent counts (MPD split on "0 FILE", references multiplied by submodel use):
    assert pop["3023"] == 1888
    assert pop["3004"] == 1127
    assert pop["3710"] == 1025
    assert pop["3001"] == 273
    assert pop["3039"] == 197
    assert max(pop, key=pop.get) == "3023"
    assert "4-4cyli" not in pop  # primitives placed directly (hoses) are not parts
    assert all("/" not in k for k in pop)


def test_popularity_csv_sorted():
    from importlib import resources

    text = resources.files("ldraw_data").joinpath("data/popularity.csv").read_text()
    rows = list(csv.reader(text.splitlines()))
    assert rows[0] == ["part_id", "count"]
    counts = [int(r[1]) for r in rows[1:]]
    assert counts == sorted(counts, reverse=True)


def test_build_and_write_popularity(official_dir, library, tmp_path):
    # 1180 Space Port Moon Buggy: 29 part lines (one submodel, the minifig, used once), counted by hand.
    folder = tmp_path / "models"
    folder.mkdir()
    shutil.copy(official_dir / "1180_1_Space_Port_Moon_Buggy.mpd", folder)
    counts = build_popularity(folder, library)
    assert sum(counts.values()) == 29
    assert len(counts) == 19
    assert counts["30028"] == 4 and counts["30027a"] == 4 and counts["3820"] == 2 and counts["3829c01"] == 1
    out = write_popularity(counts, tmp_path / "pop.csv")
    rows = list(csv.reader(out.read_text().splitlines()))
    assert rows[0] == ["part_id", "count"]
    assert rows[1] == ["30027a", "4"] and rows[2] == ["30028", "4"]  # ties by id
    assert collections.Counter({r[0]: int(r[1]) for r in rows[1:]}) == counts


def test_build_popularity_bad_folder(tmp_path):
    from ldraw_data import LDrawError

    with pytest.raises(LDrawError, match="not a folder"):
        build_popularity(tmp_path / "nope")
    with pytest.raises(LDrawError, match="no model files"):
        build_popularity(tmp_path)
