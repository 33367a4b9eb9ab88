"""Pair memo (validator stage 3, narrow phase): FCL answers kept in memory and on disk.

Consumes 64-bit hashes of (shape code, shape code, relative pose rounded to 1e-3 / 0.01 LDU, level) from
:func:`pair_hash`; produces :class:`PairMemo` lookups (found?, value) and the files
``cache_dir()/collision-pairs-*.npz`` and ``collision-depths-*.npz`` (official sets repeat the same pairs
thousands of times). :data:`PAIR_MEMO` holds intersection answers, :data:`DEPTH_MEMO` overlap depths.
"""

from __future__ import annotations

__all__ = ["PairMemo", "PAIR_MEMO", "DEPTH_MEMO", "pair_hash", "shape_code"]

import logging
import os

import numpy as np

from ldraw_data.fileio import atomic_writer, discard_cache_file
from ldraw_data.library import cache_dir

log = logging.getLogger(__name__)

_ROT_Q = 1e-3
_POS_Q = 1e-2
_PAIR_CACHE_VERSION = 3
#: New narrow-phase answers kept in memory before the pair cache is rewritten (the rest at exit).
_SAVE_BATCH = 256


def _mix(h: np.ndarray) -> np.ndarray:
    """splitmix64 finalizer on uint64 arrays (wrapping arithmetic)."""
    h = h ^ (h >> np.uint64(30))
    h = h * np.uint64(0xBF58476D1CE4E5B9)
    h = h ^ (h >> np.uint64(27))
    h = h * np.uint64(0x94D049BB133111EB)
    return h ^ (h >> np.uint64(31))


def _code(key: str) -> int:
    """Shape code of a part key for :func:`_pair_hash`: its CRC-32 with its length in the upper bits."""
    import zlib

    return zlib.crc32(key.encode()) | (len(key) << 32)


_MASK64 = (1 << 64) - 1
_SEED = 0x9E3779B97F4A7C15
_K1, _K2 = 0xBF58476D1CE4E5B9, 0x94D049BB133111EB
#: Up to this many pairs, :func:`_pair_hash` mixes Python ints: the ~100 numpy calls of the vector
#: path cost more than the arithmetic for a handful of rows (most queries hold a few pairs).
_SCALAR_ROWS = 8


def _pair_hash(ca: np.ndarray, cb: np.ndarray, rel: np.ndarray, level: np.ndarray) -> np.ndarray:
    """(m,) uint64 hash of (shape code a, shape code b, rounded relative pose (m,3,4), level).

    splitmix64 (:func:`_mix`) folded over the 15 columns (codes, level, 9 rotation and 3
    translation entries as rounded int64, wrapped to uint64); the Python-int and numpy paths give
    the same values (the keys of the pair caches on disk)."""
    m = len(rel)
    rq = np.round(rel[:, :3, :3] / _ROT_Q).astype(np.int64).reshape(m, 9)
    tq = np.round(rel[:, :3, 3] / _POS_Q).astype(np.int64)
    cols = np.column_stack([np.asarray(ca).astype(np.int64), np.asarray(cb).astype(np.int64),
                            np.asarray(level).astype(np.int64), rq, tq])
    if m <= _SCALAR_ROWS:
        out = []
        for row in cols.tolist():
            h = _SEED
            for c in row:
                h ^= c & _MASK64
                h ^= h >> 30
                h = (h * _K1) & _MASK64
                h ^= h >> 27
                h = (h * _K2) & _MASK64
                h ^= h >> 31
            out.append(h)
        return np.array(out, dtype=np.uint64).reshape(m)
    u = np.ascontiguousarray(cols).view(np.uint64)
    s30, s27, s31, k1, k2 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(_K1), np.uint64(_K2)
    h = np.full(m, _SEED, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for i in range(u.shape[1]):  # _mix, in place
            h ^= u[:, i]
            h ^= h >> s30
            h *= k1
            h ^= h >> s27
            h *= k2
            h ^= h >> s31
    return h


class _PairMemo:
    """Memo of narrow-phase answers keyed by :func:`_pair_hash`; persisted on disk.

    Loaded entries stay in sorted numpy arrays (vectorized lookup with
    ``searchsorted``); new answers go to a dict until saved.
    """

    def __init__(self, stem: str = "collision-pairs", dtype=bool):
        self.stem, self.dtype = stem, dtype
        self.keys = np.zeros(0, dtype=np.uint64)
        self.hits = np.zeros(0, dtype=dtype)
        self.new: dict = {}
        self.loaded = False
        self._atexit = False
        self._bucket_of = None  # the key array the bucket table of _first_not_less was made for

    def path(self):
        from ldraw_data.collision import COLLISION_CACHE_VERSION
        from ldraw_data.library import get_library

        fp = get_library().fingerprint[:16]
        return cache_dir() / f"{self.stem}-{fp}-v{COLLISION_CACHE_VERSION}.{_PAIR_CACHE_VERSION}.npz"

    def load(self):
        if self.loaded:
            return
        self.loaded = True
        if os.environ.get("BRICKLAYER_NO_PAIR_CACHE"):
            return
        got = self._read(self.path())
        if got is not None:
            self.keys, self.hits = got

    def _read(self, path) -> tuple[np.ndarray, np.ndarray] | None:
        """(keys, answers) of the cache file; None when missing or unreadable (then discarded with a warning).

        Checked: both arrays present, one-dimensional, of the same length, of this memo's dtypes, keys
        strictly increasing (``lookup`` searches them with ``searchsorted``)."""
        try:
            with np.load(path, allow_pickle=False) as z:
                keys, hits = z["keys"], z["hits"]
        except FileNotFoundError:
            return None
        except Exception as exc:  # noqa: BLE001 - a truncated zip raises BadZipFile, EOFError, zlib.error, ...
            discard_cache_file(path, self.stem, exc)
            return None
        if (keys.ndim != 1 or keys.shape != hits.shape or keys.dtype != np.uint64
                or hits.dtype != np.dtype(self.dtype) or (len(keys) > 1 and not (keys[1:] > keys[:-1]).all())):
            discard_cache_file(path, self.stem, f"arrays {keys.dtype}{keys.shape} and {hits.dtype}{hits.shape}, "
                                                "or keys not sorted")
            return None
        return keys, hits

    def _first_not_less(self, h: np.ndarray) -> np.ndarray:
        """(m,) int: ``np.searchsorted(self.keys, h)`` for uint64 hashes ``h`` when ``h`` is in a bucket.

        The keys are uniform 64-bit hashes (:func:`_pair_hash`), so their top bits split them into
        buckets of a few keys each; a table of the buckets' first rows (made once per key array) leaves a
        binary search of a few steps per needle within its bucket, for all needles at once, instead of
        about 20 steps over the whole array (558,022 keys after the official sets: one cache miss
        each). The answer is the first row of the bucket whose key is not less than the needle, or the
        bucket's end: the same as ``searchsorted`` where a key equals the needle (all the caller reads)."""
        keys = self.keys
        if self._bucket_of is not keys:
            bits = int(min(24, max(1, np.ceil(np.log2(max(len(keys), 2) / 4)))))
            edges = np.arange(1 << bits, dtype=np.uint64) << np.uint64(64 - bits)
            starts = np.empty((1 << bits) + 1, dtype=np.int64)
            starts[:-1] = np.searchsorted(keys, edges)
            starts[-1] = len(keys)
            self._bucket_of, self._bucket_shift, self._bucket_starts = keys, np.uint64(64 - bits), starts
            self._bucket_steps = int(np.diff(starts).max()).bit_length() + 1
        b = (h >> self._bucket_shift).astype(np.int64)
        lo, hi = self._bucket_starts[b], self._bucket_starts[b + 1]
        last = len(keys) - 1
        for _ in range(self._bucket_steps):  # binary search within each bucket, vectorised
            mid = (lo + hi) >> 1
            less = (keys[np.minimum(mid, last)] < h) & (lo < hi)
            lo = np.where(less, mid + 1, lo)
            hi = np.where(less, hi, mid)
        return lo

    def lookup(self, h: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(found (m,) bool, value (m,) of the memo's dtype) for hashes ``h``."""
        self.load()
        found = np.zeros(len(h), dtype=bool)
        val = np.zeros(len(h), dtype=self.dtype)
        if len(self.keys):
            pos = np.minimum(self._first_not_less(h), len(self.keys) - 1)
            found = self.keys[pos] == h
            val = np.where(found, self.hits[pos], val).astype(self.dtype)
        if self.new:
            for k in np.flatnonzero(~found).tolist():
                v = self.new.get(int(h[k]))
                if v is not None:
                    found[k], val[k] = True, v
        return found, val

    def save(self, force: bool = False):
        """Write new answers to disk (merged with what other processes wrote).

        Small batches (fewer than ``_SAVE_BATCH`` new answers, e.g. after one
        edit) wait for the next save or for the exit of the process
        (``atexit``), so an incremental validation does not rewrite the file.
        """
        if not self.new or os.environ.get("BRICKLAYER_NO_PAIR_CACHE"):
            return
        if not force and len(self.new) < _SAVE_BATCH:
            if not self._atexit:
                import atexit

                atexit.register(self.save, True)
                self._atexit = True
            return
        path = self.path()
        keys = np.concatenate([self.keys, np.fromiter(self.new.keys(), dtype=np.uint64, count=len(self.new))])
        hits = np.concatenate([self.hits, np.fromiter(self.new.values(), dtype=self.dtype, count=len(self.new))])
        got = self._read(path)  # merge with what other processes wrote meanwhile
        if got is not None:
            keys, hits = np.concatenate([got[0], keys]), np.concatenate([got[1], hits])
        keys, first = np.unique(keys, return_index=True)
        self.keys, self.hits, self.new = keys, hits[first], {}
        try:
            with atomic_writer(path, "wb") as fh:
                np.savez(fh, keys=self.keys, hits=self.hits)
        except OSError as exc:
            log.warning("could not write the collision pair cache %s: %s", path, exc)


_MEMO = _PairMemo()
#: Overlap depths (:meth:`CollisionEngine.overlap_depth`): value ``depth + 100 * k`` (LDU), ``k`` the index of
#: the separating shift in ``_SHIFTS``; keyed by the pair's shapes, relative pose and the first part's
#: world rotation (the shifts are along world axes).
_DEPTH_MEMO = _PairMemo("collision-depths", np.float64)

#: Public names (the memo of narrow-phase answers, the memo of overlap depths, the class, the hashes).
PairMemo = _PairMemo
PAIR_MEMO = _MEMO
DEPTH_MEMO = _DEPTH_MEMO
pair_hash = _pair_hash
shape_code = _code
