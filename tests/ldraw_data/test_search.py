"""Part search on the real catalog: the results a builder expects.

Expected ids were checked by hand in the library: 3001 "Brick  2 x  4",
3023 "Plate  1 x  2", 3039 "Slope Brick 45  2 x  2", 3003 "Brick  2 x  2",
3001p01 "Brick  2 x  4 with Three Black Rectangles Pattern".
"""

from __future__ import annotations

import pytest

from ldraw_data.catalog import get_catalog
from ldraw_data.search import parse_query, search_parts, tokenize


@pytest.fixture(scope="module")
def catalog(library):
    return get_catalog(library)


def ids(results):
    return [p.part_id for p in results]


# --------------------------------------------------------------------------- tokenizer


@pytest.mark.parametrize("text", ["2x4", "2 x 4", "2 X 4", "2X4", "4 x 2", "2×4"])
def test_tokenize_dims_spellings(text):
    assert tokenize(text) == ["2", "4", "2x4"] or tokenize(text) == ["4", "2", "2x4"]


def test_tokenize_three_dims_and_words():
    assert tokenize("Brick  1 x  2 x  5") == ["brick", "1", "2", "5", "1x2", "1x2x5"]
    assert tokenize("Plate 1 x 2 with Handle") == ["plate", "1", "2", "handle", "1x2"]


def test_parse_query_field():
    assert parse_query("category:Brick 2x4") == ("2x4", "Brick")
    assert parse_query('1 x 1 cat:"Minifig Accessory"') == ("1 x 1", "Minifig Accessory")
    assert parse_query("brick 2x4") == ("brick 2x4", None)


# --------------------------------------------------------------------------- required rankings


@pytest.mark.parametrize("query", ["brick 2 x 4", "2x4 brick", "Brick 2X4", "4 x 2 brick"])
def test_brick_2x4_first(catalog, query):
    r = search_parts(query, catalog=catalog)
    assert r[0].part_id == "3001"
    # size matters: the 2 x 2 brick is not near the top
    assert "3003" not in ids(r[:5])


def test_plate_1x2_first(catalog):
    r = search_parts("plate 1 x 2", catalog=catalog)
    assert r[0].part_id == "3023"
    assert r[0].name == "Plate 1 x 2"


def test_slope_45_2x2(catalog):
    r = search_parts("slope 45 2 x 2", catalog=catalog)
    assert r[0].part_id == "3039"


def test_plain_above_printed(catalog):
    r = search_parts("brick 2 x 4", limit=1000, catalog=catalog)
    got = ids(r)
    assert not any(p.is_printed for p in r[:5])
    # printed 2 x 4 bricks (3001p01 "Brick 2 x 4 with Three Black Rectangles Pattern", ...) come after 3001
    printed = [i for i, p in enumerate(r) if p.is_printed and p.part_id.startswith("3001p")]
    assert printed and "3001p01" in got
    assert min(printed) > got.index("3001")
    # Asking for prints explicitly finds them.
    r = search_parts("brick 2 x 4 pattern", limit=5, catalog=catalog)
    assert any(p.is_printed and p.dims == (2.0, 4.0) for p in r)


@pytest.mark.parametrize("query", ["plate 1 x 2", "slope 2x2", "tile 1x2", "technic beam"])
def test_top5_plain_when_plain_exists(catalog, query):
    r = search_parts(query, limit=5, catalog=catalog)
    assert len(r) == 5
    assert not any(p.is_printed for p in r)


def test_stubs_excluded_by_default(catalog):
    # 3665 is "~Moved to 3665a"; 10201 is an alias "=Bracket 1 x 2 - 1 x 4 with Rounded Corners".
    default = ids(search_parts("bracket 1 x 2 1 x 4 rounded corners", limit=50, catalog=catalog))
    assert "10201" not in default
    assert all(catalog.get(i).is_listed for i in default)
    everything = ids(search_parts("bracket 1 x 2 1 x 4 rounded corners", limit=50, include_obsolete=True, catalog=catalog))
    assert "10201" in everything
    assert "3665" in ids(search_parts("moved 3665a", include_obsolete=True, catalog=catalog))


def test_category_filter(catalog):
    r = search_parts("1 x 2", category="Plate", limit=10, catalog=catalog)
    assert r and all(p.category == "Plate" for p in r)
    assert r[0].part_id == "3023"
    r2 = search_parts("category:plate 1 x 2", limit=10, catalog=catalog)
    assert ids(r2) == ids(r)
    # Category only: most popular parts of it.
    r3 = search_parts("", category="Brick", limit=3, catalog=catalog)
    assert [p.category for p in r3] == ["Brick"] * 3
    assert r3[0].popularity >= r3[1].popularity >= r3[2].popularity


def test_id_and_nonsense(catalog):
    assert search_parts("3039", catalog=catalog)[0].part_id == "3039"
    assert search_parts("qwertyzzz", catalog=catalog) == []
    assert search_parts("", catalog=catalog) == []
    assert len(search_parts("brick", limit=3, catalog=catalog)) == 3


# --------------------------------------------------------------------------- vocabulary (issue 17, item 10)
# Ids checked in the library: 98138p07 "Tile 1 x 1 Round with Eye Pattern", 98138p0b "... with Eye Half Closed
# Pattern", 3673 "Technic Pin", 4519 "Technic Axle 3", 3679 "Turntable 2 x 2 Plate Top".


@pytest.mark.parametrize("word,expected", [("eyes", "eye"), ("wheels", "wheel"), ("axles", "axle"),
                                           ("boxes", "box"), ("accessories", "accessory"), ("glass", "glass"),
                                           ("chassis", "chassis"), ("pin", "pin"), ("bus", "bus")])
def test_singular(word, expected):
    from ldraw_data.search import singular
    assert singular(word) == expected


@pytest.mark.parametrize("query", ["eye tile", "tile eye", "tile with eyes", "round tile eye", "1x1 round tile eye"])
def test_eye_finds_eye_printed_tiles(catalog, query):
    r = search_parts(query, catalog=catalog, limit=5)
    # most top results are tiles printed with an eye (before: plain tiles 3069b, 6636 or Hinge Control Stick Base)
    assert sum(p.category == "Tile" and "eye" in p.name.lower() for p in r) >= 4, ids(r)
    assert "98138p07" in ids(search_parts(query, catalog=catalog, limit=20))


def test_eye_alone_finds_printed_eyes(catalog):
    r = search_parts("eye", catalog=catalog, limit=10)
    # printed parts whose print is an eye are not pushed down by the print penalty
    assert sum(p.is_printed and "eye" in p.name.lower() for p in r) >= 5, ids(r)


@pytest.mark.parametrize("query", ["brick 2 x 4", "2x4 brick", "brick 4 x 2", "4x2 bricks", "brick 4 by 2",
                                   "bricks 2x4", "red brick 2x4"])
def test_word_order_number_and_colour_do_not_matter(catalog, query):
    assert ids(search_parts(query, catalog=catalog, limit=1)) == ["3001"]


def test_colour_word_does_not_select_prints(catalog):
    # "Brick 2 x 4 with 4 Red Axle Bushes" (7049a) must not outrank plain 2 x 4 bricks for "red brick 2x4"
    r = ids(search_parts("red brick 2x4", catalog=catalog, limit=3))
    assert r[0] == "3001" and "7049a" not in r


@pytest.mark.parametrize("query,expected", [("technic pins", "3673"), ("axles 3", "4519"),
                                            ("turntables 2x2 top", "3679")])
def test_plural_queries(catalog, query, expected):
    assert expected in ids(search_parts(query, catalog=catalog, limit=5))
