"""Pair-memo hashes (bricklayer.validate.memo): the fast paths give the splitmix64 fold the caches were written with."""

import numpy as np

from bricklayer.validate.memo import _POS_Q, _ROT_Q, _SCALAR_ROWS, _mix, _pair_hash


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
