"""Pair-memo hashes (bricklayer.validate.memo): the fast paths give the splitmix64 fold the caches were written with."""

import numpy as np

from bricklayer.validate.memo import _POS_Q, _ROT_Q, _SCALAR_ROWS, _PairMemo, _mix, _pair_hash


def _reference(ca, cb, rel, level):
    # the fold as first written (and as the cache files on disk are keyed): _mix over the 15 columns
    rq = np.round(rel[:, :3, :3] / _ROT_Q).astype(np.int64).reshape(len(rel), 9)
    tq = np.round(rel[:, :3, 3] / _POS_Q).astype(np.int64)
    cols = [ca.astype(np.int64), cb.astype(np.int64), level.astype(np.int64)] + [rq[:, i] for i in range(9)] + [
        tq[:, i] for i in range(3)]
    with np.errstate(over="ignore"):
        h = np.full(len(rel), 0x9E3779B97F4A7C15, dtype=np.uint64)
        for c in cols:
            h = _mix(h ^ c.astype(np.uint64))
    return h


def test_scalar_and_vector_paths_match_the_fold():
    rng = np.random.default_rng(7)
    for m in (0, 1, 2, _SCALAR_ROWS, _SCALAR_ROWS + 1, 100):
        ca, cb = rng.integers(0, 1 << 40, m), rng.integers(0, 1 << 40, m)
        level = np.full(m, -1500)  # negative values wrap like astype(uint64)
        q, _ = np.linalg.qr(rng.normal(size=(max(m, 1), 3, 3)))
        rel = np.zeros((m, 3, 4))
        rel[:, :3, :3] = q[:m]
        rel[:, :3, 3] = rng.normal(0, 200, (m, 3))
        got = _pair_hash(ca, cb, rel, level)
        assert got.dtype == np.uint64 and got.shape == (m,)
        assert np.array_equal(got, _reference(ca, cb, rel, level))


def test_bucketed_search_finds_what_searchsorted_finds():
    """The memo's bucketed binary search against np.searchsorted: on 50,000 keys made by _pair_hash
    (what the cache files hold), every stored key is found at its row and absent needles are not found,
    the smallest and largest uint64 included; the table is remade when the key array is replaced."""
    rng = np.random.default_rng(3)
    m = 50_000
    q, _ = np.linalg.qr(rng.normal(size=(m, 3, 3)))
    rel = np.zeros((m, 3, 4))
    rel[:, :3, :3], rel[:, :3, 3] = q, rng.normal(0, 300, (m, 3))
    keys = np.unique(_pair_hash(rng.integers(0, 1 << 40, m), rng.integers(0, 1 << 40, m), rel, np.zeros(m)))
    memo = _PairMemo()
    memo.loaded = True  # no cache file: only these keys
    for ks in (keys, keys[::7]):
        memo.keys, memo.hits = ks, np.ones(len(ks), dtype=bool)
        needles = np.concatenate([keys, rng.integers(0, 2 ** 64 - 1, 20_000, dtype=np.uint64, endpoint=True),
                                  np.array([0, 2 ** 64 - 1], dtype=np.uint64)])
        at = np.minimum(np.searchsorted(ks, needles), len(ks) - 1)
        want = ks[at] == needles
        found, val = memo.lookup(needles)
        assert np.array_equal(found, want) and np.array_equal(val, want)
        got = memo._first_not_less(needles)
        assert np.array_equal(got[want], at[want])
    assert found.sum() == len(keys[::7])
