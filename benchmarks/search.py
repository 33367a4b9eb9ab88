"""Time the part catalog and search: cold build, warm load, index build, queries.

Run: ``python benchmarks/search.py`` (uses a temporary cache folder for the
cold build, so the user's cache is not touched).
"""

from __future__ import annotations

__all__ = ["main"]

import os
import subprocess
import sys
import tempfile
import time

QUERIES = ["brick 2 x 4", "2x4 brick", "plate 1 x 2", "slope 45 2 x 2", "technic beam 5", "minifig torso pattern"]

_CHILD = """
import time
t = time.perf_counter()
from ldraw_data.catalog import get_catalog
cat = get_catalog()
print(f"{time.perf_counter() - t:.3f} {len(cat)}")
"""


def _run_child(env: dict) -> str:
    out = subprocess.run([sys.executable, "-c", _CHILD], env=env, capture_output=True, text=True, check=True)
    return out.stdout.strip()


def main() -> None:
    """Print timings in seconds."""
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, BRICKWRIGHT_CACHE_DIR=tmp)
        cold = _run_child(env)
        warm = _run_child(env)
    print(f"catalog cold build (incl. imports): {cold.split()[0]} s, {cold.split()[1]} parts")
    print(f"catalog warm load from disk cache (incl. imports): {warm.split()[0]} s")
    from ldraw_data.catalog import get_catalog
    from ldraw_data.search import search_parts

    cat = get_catalog()
    t = time.perf_counter()
    search_parts("brick", catalog=cat)
    print(f"search index build + first query: {time.perf_counter() - t:.3f} s")
    for q in QUERIES:
        t = time.perf_counter()
        res = search_parts(q, limit=5, catalog=cat)
        dt = time.perf_counter() - t
        print(f"{dt * 1000:6.1f} ms  {q!r:28} -> {[p.part_id for p in res]}")


if __name__ == "__main__":
    main()
