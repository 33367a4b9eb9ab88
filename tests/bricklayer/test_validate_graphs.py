"""numpy graph helpers of the validator (bricklayer.validate.graphs) give scipy.sparse.csgraph's answers."""

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import breadth_first_order, connected_components

from bricklayer.validate.graphs import MAX_NUMPY_LEVELS, component_labels, reachable


def test_small_graph_worked_by_hand():
    # 0-3, 3-1 join {0, 1, 3}; 2 alone; 4-5 (given backwards); labels by smallest node: 0, 0, 1, 0, 2, 2
    e = np.array([[0, 3], [3, 1], [5, 4]])
    assert component_labels(6, e).tolist() == [0, 0, 1, 0, 2, 2]
    # directed: from 3 only 1 is reached; from 5, 4
    assert reachable(6, e, np.array([3])).tolist() == [False, True, False, True, False, False]
    assert reachable(6, e, np.array([5, 2])).tolist() == [False, False, True, False, True, True]
    assert component_labels(3, np.zeros((0, 2), int)).tolist() == [0, 1, 2]


def test_same_as_scipy_on_random_graphs():
    rng = np.random.default_rng(16)
    for _ in range(200):
        n = int(rng.integers(1, 300))
        e = rng.integers(0, n, (int(rng.integers(0, 400)), 2))
        ref = connected_components(coo_matrix((np.ones(len(e)), (e[:, 0], e[:, 1])), shape=(n, n)), directed=False)[1]
        assert np.array_equal(component_labels(n, e), ref)
        roots = rng.integers(0, n, int(rng.integers(0, 4)))
        src, dst = np.r_[e[:, 0], np.full(len(roots), n)], np.r_[e[:, 1], roots]
        g = coo_matrix((np.ones(len(src), dtype=np.int8), (src, dst)), shape=(n + 1, n + 1)).tocsr()
        want = np.zeros(n + 1, bool)
        want[breadth_first_order(g, n, directed=True, return_predecessors=False)] = True
        assert np.array_equal(reachable(n, e, roots), want[:n])


def test_long_chain_goes_past_the_numpy_levels():
    n = MAX_NUMPY_LEVELS + 500
    chain = np.c_[np.arange(n - 1), np.arange(1, n)]
    assert reachable(n, chain, np.array([0])).all()
    assert reachable(n, chain, np.array([10])).sum() == n - 10
    assert component_labels(n, chain[::-1]).max() == 0


def test_sorted_unique_values_in_order():
    """sorted_unique gives np.unique's answer (sorted distinct values, same dtype) by a sort."""
    from bricklayer.validate.graphs import sorted_unique

    got = sorted_unique(np.array([7, -3, 7, 0, -3, 12, 0], dtype=np.int64))
    assert got.tolist() == [-3, 0, 7, 12] and got.dtype == np.int64
    assert sorted_unique(np.array([[5, 1], [1, 5]])).tolist() == [1, 5]  # flattened, as np.unique
    assert sorted_unique(np.zeros(0, dtype=np.int64)).tolist() == []
    assert sorted_unique(np.array([4])).tolist() == [4]
    keys = np.random.default_rng(20).integers(0, 1000, 5000).astype(np.uint64)
    assert np.array_equal(sorted_unique(keys), np.unique(keys))
