"""Connected components and reachability over edge arrays, in numpy.

The validator's stages label parts by the components of their connector or support edges and
find the parts a support graph reaches from the ground. scipy's ``scipy.sparse.csgraph`` does
both, but importing it costs about 0.3 s (a quarter of a fresh ``brickwright validate`` of a
5,000-part model, issue 16 "Speed"); these numpy versions give the same answers:
:func:`component_labels` numbers the components in the order scipy's
``connected_components(directed=False)`` does (by each component's smallest node), so reports
built on the labels do not change.
"""

from __future__ import annotations

__all__ = ["component_labels", "reachable", "sorted_unique", "MAX_NUMPY_LEVELS"]

import numpy as np


#: Breadth-first levels :func:`reachable` takes in numpy before handing the rest to scipy.
MAX_NUMPY_LEVELS = 2000


def sorted_unique(values: np.ndarray) -> np.ndarray:
    """The distinct values of a 1-D array in ascending order: what ``np.unique(values)`` returns.

    By one sort and one comparison of neighbours. numpy 2.3+ answers ``np.unique`` without
    ``return_*`` options with a hash table and then sorts the distinct values; on the millions of
    connector-pair keys of a 100,000-part build (issue 20, 19 Millennium Falcons) the hash table
    costs 5-15x the sort (5.8 s against 0.4 s for 5 million random int64 keys on the benchmark
    machine), as its accesses miss the cache.

    Parameters
    ----------
    values : array_like
        Any shape; flattened as ``np.unique`` does. Integer keys here; NaNs of a float array are not
        merged as ``np.unique`` merges them (the validator's keys are integers).

    Returns
    -------
    (k,) ndarray
        Sorted distinct values, the dtype of ``values``.
    """
    s = np.sort(np.asarray(values).ravel())
    if len(s) < 2:
        return s
    keep = np.empty(len(s), dtype=bool)
    keep[0] = True
    np.not_equal(s[1:], s[:-1], out=keep[1:])
    return s[keep]


def component_labels(n: int, edges: np.ndarray) -> np.ndarray:
    """(n,) int32 component label of each node of an undirected graph.

    Parameters
    ----------
    n : int
        Number of nodes (0 .. n-1).
    edges : (m, 2) int array
        Node pairs; direction, repeats and self-loops do not matter.

    Returns
    -------
    (n,) int32 ndarray
        Components numbered 0, 1, ... in the order of their smallest node: the labels of
        ``scipy.sparse.csgraph.connected_components(directed=False)``, which starts a new label
        at each node not yet labelled, in node order.

    Notes
    -----
    Min-label propagation along the edges with pointer jumping (Shiloach-Vishkin style):
    every node ends with the smallest node of its component as its root.
    """
    root = np.arange(n, dtype=np.int64)
    e = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    if n and len(e):
        a, b = e[:, 0], e[:, 1]
        while True:
            ra, rb = root[a], root[b]
            lo = np.minimum(ra, rb)
            new = root.copy()
            np.minimum.at(new, ra, lo)  # hook each root onto the smaller root across an edge
            np.minimum.at(new, rb, lo)
            np.minimum.at(new, a, lo)
            np.minimum.at(new, b, lo)
            while True:  # pointer jumping: every node straight to its root
                nxt = new[new]
                if np.array_equal(nxt, new):
                    break
                new = nxt
            if np.array_equal(new, root):
                break
            root = new
    return np.unique(root, return_inverse=True)[1].astype(np.int32).reshape(n)


def reachable(n: int, edges: np.ndarray, roots: np.ndarray) -> np.ndarray:
    """(n,) bool: nodes reachable from ``roots`` along directed edges (roots included).

    Parameters
    ----------
    n : int
        Number of nodes.
    edges : (m, 2) int array
        Directed edges ``(from, to)``.
    roots : (k,) int array
        Start nodes.

    Returns
    -------
    (n,) bool ndarray
        What ``scipy.sparse.csgraph.breadth_first_order`` from a virtual node joined to every
        root visits; breadth-first, one numpy step per level (support graphs of the official
        models are at most a few hundred levels deep). Past :data:`MAX_NUMPY_LEVELS` levels (a
        chain thousands of parts long) the rest is left to scipy, whose import then pays off.
    """
    e = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    out = np.zeros(n, dtype=bool)
    front = sorted_unique(np.asarray(roots, dtype=np.int64))
    out[front] = True
    if not len(e) or not len(front):
        return out
    order = np.argsort(e[:, 0], kind="stable")
    dst = e[order, 1]
    start = np.searchsorted(e[order, 0], np.arange(n + 1))
    for _ in range(MAX_NUMPY_LEVELS):
        if not len(front):
            return out
        lo, hi = start[front], start[front + 1]
        cnt = hi - lo
        if not cnt.sum():
            break
        idx = np.repeat(lo - np.cumsum(cnt) + cnt, cnt) + np.arange(cnt.sum())
        nb = sorted_unique(dst[idx])
        front = nb[~out[nb]]
        out[front] = True
    if not len(front):
        return out
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import breadth_first_order

    src = np.concatenate([e[:, 0], np.full(len(front), n)])
    dst_all = np.concatenate([e[:, 1], front])
    g = coo_matrix((np.ones(len(src), dtype=np.int8), (src, dst_all)), shape=(n + 1, n + 1)).tocsr()
    more = np.zeros(n + 1, dtype=bool)
    more[breadth_first_order(g, n, directed=True, return_predecessors=False)] = True
    return out | more[:n]
