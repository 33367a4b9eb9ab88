"""Truncated or corrupt cache files are discarded with a warning and rebuilt: same answers as before.

Each kind of file the cache folder (``BRICKWRIGHT_CACHE_DIR``) holds is built by the real code on the
real library, then cut to half its length or overwritten with random bytes of the same length; read
again with the in-memory copies forgotten, it must give the same answer, log one warning naming the
file, and leave a readable file behind (rewritten atomically: no ``*.tmp`` left).
"""

from __future__ import annotations

import json
import logging

import numpy as np
import pytest

from ldraw_data import collision as C
from ldraw_data import connectors as K
from ldraw_data import mesh as M
from ldraw_data.catalog import _CATALOGS, get_catalog

CORRUPTIONS = ["truncated", "garbage"]


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """An empty cache folder for this test, and no in-memory copies of what it holds."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("BRICKWRIGHT_CACHE_DIR", str(folder))
    monkeypatch.delenv("BRICKLAYER_NO_PAIR_CACHE", raising=False)
    M.clear_mesh_cache()
    C._MEMO.clear()
    yield folder
    M.clear_mesh_cache()
    C._MEMO.clear()


def corrupt(path, how: str) -> None:
    data = path.read_bytes()
    if how == "truncated":
        path.write_bytes(data[: len(data) // 2])
    else:
        path.write_bytes(np.random.default_rng(3).integers(0, 256, len(data), dtype=np.uint8).tobytes())


def one_file(folder, pattern):
    files = [p for p in folder.rglob(pattern) if not p.name.endswith(".tmp")]
    assert len(files) == 1, files
    assert not list(folder.rglob("*.tmp"))
    return files[0]


def warned(caplog, path) -> list[str]:
    return [r.getMessage() for r in caplog.records
            if r.levelno == logging.WARNING and str(path) in r.getMessage() and "discarded" in r.getMessage()]


@pytest.mark.parametrize("how", CORRUPTIONS)
def test_mesh_pack(cache, library, caplog, how):
    before = M.part_mesh("3001.dat", library)
    path = one_file(cache, "3001.dat.mesh")
    corrupt(path, how)
    M.clear_mesh_cache()
    with caplog.at_level(logging.WARNING):
        again = M.part_mesh("3001.dat", library)
    assert len(warned(caplog, path)) == 1
    np.testing.assert_array_equal(again.triangles, before.triangles)
    np.testing.assert_array_equal(again.bbox, before.bbox)
    M.clear_mesh_cache()
    caplog.clear()
    assert M._read_pack(path) is not None and not warned(caplog, path)  # rebuilt


@pytest.mark.parametrize("how", CORRUPTIONS)
def test_collision_shape(cache, library, caplog, how):
    before = C.collision_shape("3001", library)
    path = one_file(cache, "3001.dat-*.bin")
    corrupt(path, how)
    C._MEMO.clear()
    with caplog.at_level(logging.WARNING):
        again = C.collision_shape("3001", library)
    assert len(warned(caplog, path)) == 1
    np.testing.assert_array_equal(again.vertices, before.vertices)
    np.testing.assert_array_equal(again.faces, before.faces)
    assert again.title == before.title == "Brick  2 x  4"
    assert C._load(path, "3001.dat") is not None  # rebuilt


@pytest.mark.parametrize("how", CORRUPTIONS)
def test_collision_pair_answers(cache, library, caplog, how):
    from bricklayer.validate.collisions import _PairMemo

    memo = _PairMemo()
    memo.load()
    memo.new = {5: True, 3: False, 9: True}
    memo.save(force=True)
    path = memo.path()
    assert path.is_file()
    h = np.array([3, 5, 9, 11], dtype=np.uint64)
    assert _PairMemo().lookup(h)[0].tolist() == [True, True, True, False]
    corrupt(path, how)
    fresh = _PairMemo()
    with caplog.at_level(logging.WARNING):
        found, _val = fresh.lookup(h)
    assert len(warned(caplog, path)) == 1
    assert found.tolist() == [False] * 4  # forgotten: the validator works the answers out again
    assert not path.exists()  # discarded; the next save writes a new file
    fresh.new = {5: True, 3: False, 9: True}
    fresh.save(force=True)
    found, val = _PairMemo().lookup(h)
    assert found.tolist() == [True, True, True, False] and val.tolist() == [False, True, True, False]


@pytest.mark.parametrize("how", CORRUPTIONS)
def test_column_raster(cache, library, caplog, how):
    from bricklayer import _columns

    shape = C.collision_shape("3001", library)
    _columns._MEM.clear()
    before = _columns.local_raster(shape, "3001.dat", False, 0.0, 1, (0.0, 0.0))
    path = one_file(cache, "columns-*/*.npz")
    corrupt(path, how)
    _columns._MEM.clear()
    with caplog.at_level(logging.WARNING):
        again = _columns.local_raster(shape, "3001.dat", False, 0.0, 1, (0.0, 0.0))
    _columns._MEM.clear()
    assert len(warned(caplog, path)) == 1
    np.testing.assert_array_equal(again.lo, before.lo)
    np.testing.assert_array_equal(again.hi, before.hi)
    assert _columns._load(path) is not None  # rebuilt


@pytest.mark.parametrize("how", CORRUPTIONS)
def test_connector_labels(cache, caplog, how):
    """The BrickNet label cache (one source of the merged connector table) is discarded and rebuilt."""
    K._bricknet_labels.cache_clear()
    try:
        before = K._bricknet_labels()
        path = one_file(cache, "bricknet-labels-*.npz")
        corrupt(path, how)
        K._bricknet_labels.cache_clear()
        with caplog.at_level(logging.WARNING):
            again = K._bricknet_labels()
        assert len(warned(caplog, path)) == 1
        assert again.stems == before.stems and np.array_equal(again.params, before.params)
        assert path.is_file()  # rebuilt
    finally:
        K._bricknet_labels.cache_clear()
        K._labels.cache_clear()


def test_part_frame(library, caplog, tmp_path, monkeypatch):
    """The numbers an element's frame is made from (part-frames-*/<id>.json): read back without computing
    the part's connectors, which come only when asked for; a bad file is discarded and rebuilt. Only the
    part-frame folder is a temporary one here: in an empty cache folder the first connector lookup
    builds the LDCad table (a minute on the loaded 2-core machine)."""
    import re

    from bricklayer import element as E
    from ldraw_data.library import cache_dir

    real = E._frame_cache_folder()
    assert real.parent == cache_dir() and re.fullmatch(r"part-frames-[0-9a-f]{16}", real.name)
    folder = tmp_path / real.name
    monkeypatch.setattr(E, "_frame_cache_folder", lambda: folder)

    def forget_connectors():
        K._labels.cache_clear()
        K._defs_cache.clear()
        K._part_cache.clear()

    E._part_geometry.cache_clear()
    try:
        before = E._part_geometry("3001")  # brick 2 x 4: 4 x 2 studs, 3 plates, 8 studs on top
        path = one_file(folder, "3001.json")
        # local frame: bottom-centre of the alignment box; 80 x 40 LDU, 24 high, studs 4 LDU above it
        assert tuple(before.alignment_box.min) == (-40, -20, 0) and tuple(before.alignment_box.max) == (40, 20, 24)
        assert tuple(before.bounding_box.max) == (40, 20, 28)
        studs = [d for d in before.connector_defs if d.type == "stud"]
        assert len(studs) == 8
        E._part_geometry.cache_clear()
        forget_connectors()
        warm = E._part_geometry("3001")
        assert K._labels.cache_info().currsize == 0  # the frame came from the file: no connector looked up
        assert np.array_equal(warm.to_local, before.to_local) and warm.alignment_box == before.alignment_box
        assert np.array_equal(warm.connector_frames, before.connector_frames)  # made now, the same
        assert K._labels.cache_info().currsize == 1
        for how in [*CORRUPTIONS, "wrong layout"]:
            if how == "wrong layout":  # valid JSON with the right keys, a box of one corner
                path.write_text('{"bb": [[0, 0, 0]], "has_mesh": true, "box": [0, 1, 0, 1, 0, 8], "studs_xz": null}')
            else:
                corrupt(path, how)
            E._part_geometry.cache_clear()
            caplog.clear()
            with caplog.at_level(logging.WARNING):
                again = E._part_geometry("3001")
            assert len(warned(caplog, path)) == 1, how
            assert np.array_equal(again.to_local, before.to_local) and again.bounding_box == before.bounding_box
            assert again.stud_box == before.stud_box and again.grid and again.has_mesh
            assert set(json.loads(path.read_text())) == E._FRAME_KEYS  # rebuilt
    finally:
        E._part_geometry.cache_clear()


@pytest.mark.parametrize("how", CORRUPTIONS)
def test_catalog(cache, tiny_library, caplog, how):
    _CATALOGS.clear()
    before = get_catalog(tiny_library)
    path = one_file(cache, "catalog-*.json.gz")
    corrupt(path, how)
    _CATALOGS.clear()
    with caplog.at_level(logging.WARNING):
        again = get_catalog(tiny_library)
    _CATALOGS.clear()
    assert len(warned(caplog, path)) == 1
    assert sorted(again.ids()) == sorted(before.ids()) and "3001" in again
    assert again.get("3001").name == before.get("3001").name == "Brick 2 x 4"  # catalog names squeeze blanks


@pytest.mark.parametrize("how", CORRUPTIONS)
def test_catalog_index(cache, tiny_library, caplog, how):
    _CATALOGS.clear()
    eager = get_catalog(tiny_library)  # builds the .json.gz and the .rows index beside it
    path = one_file(cache, "catalog-*.rows")
    _CATALOGS.clear()
    lazy = get_catalog(tiny_library)  # from the index, records parsed when asked for
    assert type(lazy._specs).__name__ == "_IndexedSpecs"
    assert [s.part_id for s in lazy] == [s.part_id for s in eager]
    assert all(lazy.get(p) == eager.get(p) for p in eager.ids())
    corrupt(path, how)
    _CATALOGS.clear()
    with caplog.at_level(logging.WARNING):
        again = get_catalog(tiny_library)
    _CATALOGS.clear()
    assert len(warned(caplog, path)) == 1
    assert again.get("3001").name == eager.get("3001").name == "Brick 2 x 4"
    caplog.clear()
    assert type(get_catalog(tiny_library)._specs).__name__ == "_IndexedSpecs" and not warned(caplog, path)  # rewritten
    _CATALOGS.clear()


def test_superseded_part_frame_folders_are_removed_when_a_new_one_is_made(tmp_path):
    """A new code or library version writes a new part-frames-<key> folder; the old ones piled up (13 in a
    developer's cache). Removed: folders of that name pattern unused for a day, holding only records. Kept: the
    current one, recently used ones (another checkout may use its own), lookalikes of other names, folders
    holding anything else, symbolic links, and every other file of the cache folder."""
    import os
    import time

    from bricklayer import element as E

    now = time.time()
    day = E._FRAME_FOLDER_KEEP_S

    def folder(name, files=("3001.json",), age=2 * day):
        d = tmp_path / name
        d.mkdir()
        for f in files:
            (d / f).write_text("{}")
        os.utime(d, (now - age, now - age))
        return d

    old = folder("part-frames-0123456789abcdef", ("3001.json", "3003.json", ".3001.json.x1y2.tmp"))
    recent = folder("part-frames-1111111111111111", age=day / 2)
    odd = folder("part-frames-2222222222222222", ("3001.json", "notes.txt"))
    lookalike = folder("part-frames-not-hex-digits")
    other = folder("collision-6ce6e28e4a2fa6c8-v12", ("3001.bin",))
    (tmp_path / "part-frames-3333333333333333").write_text("a file, not a folder")
    link = tmp_path / "part-frames-4444444444444444"
    link.symlink_to(folder("elsewhere"), target_is_directory=True)
    current = tmp_path / "part-frames-ffffffffffffffff"

    removed = E._prune_frame_folders(current, now=now)
    assert removed == [old] and not old.exists()
    assert recent.is_dir() and lookalike.is_dir() and other.is_dir() and link.is_symlink()
    assert sorted(p.name for p in odd.iterdir()) == ["notes.txt"]  # its record went, the folder stays
    assert (tmp_path / "part-frames-3333333333333333").is_file() and (tmp_path / "elsewhere" / "3001.json").is_file()
    assert E._prune_frame_folders(current, now=now) == []  # nothing more to do
    # a day later the recently used one goes too (the current one, made meanwhile, never does)
    current.mkdir()
    os.utime(current, (now - 5 * day, now - 5 * day))
    assert E._prune_frame_folders(current, now=now + day) == [recent] and current.is_dir()


def test_the_first_process_of_a_new_key_prunes_and_a_used_folder_is_kept_fresh(tmp_path, monkeypatch):
    """Through :func:`_frame_cache_folder` on a temporary cache folder: a stale folder of another key is
    removed when this key's folder does not exist yet; this key's folder, once there, gets its time set (in use)."""
    import os
    import time

    from bricklayer import element as E

    monkeypatch.setenv("BRICKWRIGHT_CACHE_DIR", str(tmp_path))
    stale = tmp_path / "part-frames-0123456789abcdef"
    stale.mkdir()
    (stale / "3001.json").write_text("{}")
    t = time.time() - 3 * E._FRAME_FOLDER_KEEP_S
    os.utime(stale, (t, t))
    E._frame_folders.clear()
    try:
        current = E._frame_cache_folder()
        assert current.parent == tmp_path and current != stale and not stale.exists()
        current.mkdir()
        os.utime(current, (t, t))
        E._frame_folders.clear()  # a new process
        assert E._frame_cache_folder() == current and time.time() - current.stat().st_mtime < 600
    finally:
        E._frame_folders.clear()


@pytest.mark.parametrize("how", CORRUPTIONS)
def test_underside_antistuds(cache, library, caplog, monkeypatch, how):
    """The derived anti-studs of 6177's underside (``ldraw_data.underside``) are discarded and worked out again."""
    from ldraw_data import underside as U

    # 6177's 32 listed anti-studs (LDCad grids of s/6177s01.dat: C 4 C 6 and C 2 C 4 at y = 8), identity frames
    # (mating axis -Y: up into the plate); built here so that the test needs no connector table in its cache
    xz = [(x, z) for x in (-30, -10, 10, 30) for z in range(-50, 51, 20)]
    xz += [(x, z) for x in (-50, 50) for z in (-30, -10, 10, 30)]
    frames = np.repeat(np.eye(4)[None], len(xz), axis=0)
    frames[:, [0, 1, 2], 3] = [(x, 8.0, z) for x, z in xz]
    kinds = ["antistud"] * len(xz)
    monkeypatch.setattr(U, "_CACHE", U._DiskCache())
    before = U.underside_antistuds("6177", frames, kinds)
    assert len(before) == 12
    U._CACHE.save()
    path = one_file(cache, "underside-*.json")
    corrupt(path, how)
    monkeypatch.setattr(U, "_CACHE", U._DiskCache())
    with caplog.at_level(logging.WARNING):
        again = U.underside_antistuds("6177", frames, kinds)
    assert len(warned(caplog, path)) == 1
    np.testing.assert_allclose(again, before)
    U._CACHE.save()
    assert len(json.loads(path.read_text(encoding="utf-8"))) == 1  # rewritten, readable
    monkeypatch.setattr(U, "_CACHE", U._DiskCache())
    np.testing.assert_allclose(U.underside_antistuds("6177", frames, kinds), before)  # read back
