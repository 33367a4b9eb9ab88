"""Connectors of sub-parts, read back from the composite parts that draw them.

Many library part files are pieces of a composite part: the case and the rotor of a motor
(``~Electric Power Functions Large Motor Case Front``, 10092, drawn by 10089c01), the two halves of
a spinner (92549 by 92547), the rollers of a holonomic wheel (t1041 by t1042c01). The LDraw file
naming conventions mark most with a ``~`` title prefix ("the part is a sub-part of another part",
LDraw File Format 1.0.2 / Official Library Header Specification, "Part description") and draw the
composite as type-1 references to its pieces. BrickNet labels and the LDCad shadow library's snap
metas describe the composite (the part one places), rarely the pieces, so the pieces had no
connectors although their drawings hold the studs, holes and axles of the composite.

Rule ("a composite's connector belongs to the piece whose drawing forms it"): for every part
(the **composite**) that has connectors from the other sources and references, directly, a
top-level part file that has none (the **piece**), each connector of the composite is given to
the piece when the piece's drawing, placed by the reference, forms it:

- a **male round connector** (``stud``, ``open_stud``, ``pin``, ``bar``, ``post``) by its wall:
  of :data:`RING_PROBES` points on the shaft's surface (radius and height of :data:`WALLS`), at
  least 6 lie within :data:`WALL_TOL` LDU of the piece's triangles and nearer to them than to any
  other drawing of the composite (its other references and its own triangles). A stud the
  composite draws itself on a piece therefore stays the composite's: its wall is the stud
  primitive, not the piece, although its origin lies on the piece's face.
- an **anti-stud or pin hole** by the inside of its wall: at least 2 probes on the piece's
  triangles and none on another drawing (a hole two shells of a case close together is neither
  shell's).
- an **axle, axle hole or LDCad generic hot spot** (:data:`ORIGIN_TYPES`) by the drawing nearest
  to its origin: the piece's triangles within :data:`REACH` LDU of it and every other drawing at
  least :data:`MARGIN` LDU farther.
- nothing else: clips, tubes and BrickNet's hinge, fixed and ball labels (see
  :data:`ORIGIN_TYPES` for the measurement).

Never given: a connector that mates another connector of the composite at its place (a joint
inside the composite, whose wall belongs to both pieces), and a connector that a labelled piece of
the composite has itself (the window frame 60593's hinge fingers stay the frame's, though the
glass 60602 in them lies nearer their origin).

The connector is moved into the piece's frame by the inverse of the reference's matrix (frames
re-orthonormalized, so a mirrored reference gives a right-handed frame whose -Y column is still
the mating axis). References with a scaled matrix are skipped (the connector's size would not
scale). A piece drawn several times, or by several composites, gets the union of its connectors,
a connector found twice (position within 0.05 LDU, same type, axis parallel) kept once. Nothing
is given by name: the geometry decides, and a piece whose drawing forms none of the composite's
connectors gets none (most pieces without connectors: the covers, lenses, springs and inner
gears of a composite whose exposed connectors are all on its labelled pieces).

Checked against composites (two samples of 250 ``c01``...) whose pieces are labelled themselves,
the rule run on those pieces as if they had none: 91-94 % of the rows it gave matched a label of
the piece (studs 99.7-99.8 %, open studs and axle holes 100 %, posts 91-96 %, pin holes 91-92 %,
anti-studs 76-87 %, bars 58-70 %; the rest mostly connectors the piece's own labels lack but its
drawing has: train base 270's under-side bars, which 270c01's LDCad file gives, a boat hull's inner
anti-studs).

A piece's rows are worked out on demand (:class:`PieceConnectors`), from only the composites that draw
it: an index of the part files referencing each part (one pass over every part file's type-1 lines,
about 1.5 s warm, 5-7 s cold; kept on disk) gives them, their meshes give the rows, which are kept on
disk too. The whole table (:func:`subpart_rows`, one to two minutes) is built only where every piece
is needed, ``brickwright library install`` counting connector coverage; later processes read all
pieces from it (:func:`subpart_source`). The caches live under ``cache_dir()/connectors``, keyed on
the library, the other sources (BrickNet labels, the shadow library) and :data:`_VERSION`.
"""

from __future__ import annotations

__all__ = ["WALLS", "ORIGIN_TYPES", "RING_PROBES", "subpart_rows", "WALL_TOL", "REACH", "MARGIN",
           "piece_connectors", "build_subpart_table", "PieceConnectors", "subpart_source"]

import logging
import re
import threading
from functools import cached_property
from typing import Callable, Iterable

import numpy as np

from .library import normalize_name

log = logging.getLogger(__name__)

#: The wall of each round connector type (kind, subtype): its radius (LDU), where along the axis it is
#: probed (LDU from the connector's origin along its axis), and how many of the :data:`RING_PROBES`
#: probes must lie on the piece. A stud is 6 LDU in radius and 4 LDU high, origin at its base, axis
#: out of the tip (probed 2 LDU up); a post (the bar under a 1 x N plate) 4 LDU, origin at its tip,
#: axis into the part (2 LDU in); pins (6 LDU) and bars (4 LDU) are labelled at their centres. A male
#: shaft's wall is whole (6 of 8 probes); a hole's wall is the inside of whatever surrounds it (an
#: anti-stud of a brick touches the side walls and the tube at three points), so 2 probes on the piece
#: and none on another drawing suffice: the anti-stud's radius is the stud's (6 LDU, probed 2 LDU in),
#: a pin hole's 6 LDU and a clip's 4 LDU at their centres, a tube's outside 8 LDU (LEGO: tube outer
#: diameter 6.51 mm) 2 LDU in. LEGO stud diameter 4.8 mm = 12 LDU, bar 3.2 mm = 8 LDU.
WALLS = {
    ("stud", "stud"): (6.0, 2.0, 6),
    ("stud", "open"): (6.0, 2.0, 6),
    ("axle", "pin"): (6.0, 0.0, 6),
    ("axle", "bar"): (4.0, 0.0, 6),
    ("hole", "post"): (4.0, 2.0, 6),
    ("hole", "hole"): (6.0, 2.0, 2),
    ("axle", "socket"): (6.0, 0.0, 2),
}
#: Connector types given by the drawing nearest to their origin: axles and axle holes (an axle's
#: cross arms and a cross hole's walls lie 2-4 LDU from the axis) and LDCad's generic hot spots
#: (like-for-like shapes: Duplo studs, turntable rings, the neck ball of a Fabuland head).
#: Not given at all (measured against the pieces that have labels of their own, module notes):
#: clips and tubes (an F radius-4 bore or a tube's outside agreed for under half of them) and
#: BrickNet's hinge, fixed and ball labels (origins up to 4 LDU off the drawn feature; 35-40 %).
ORIGIN_TYPES = (("axle", "axle"), ("axle", "cross"), ("axle", "hole"), ("ldcad", None))
#: Points probed round a wall.
RING_PROBES = 8
#: A wall probe lies on a drawing within this distance (LDU): a radius-6 circle drawn with 16
#: segments is 0.12 LDU inside the true circle between vertices; a stud drawn with 8 (stud-lo)
#: 0.46 LDU.
WALL_TOL = 0.75
#: Farthest a drawing forming a connector may lie from its origin (LDU): the towball's sphere,
#: radius 8 LDU (a socket's origin at the ball's centre), plus half an LDU.
REACH = 8.5
#: How much nearer (LDU) the piece's triangles must be to a connector's origin than any other drawing.
MARGIN = 1.0
#: Triangles at most this far (LDU) from their centroid to a corner are found through a k-d tree.
_SMALL = 4.0
#: Connectors whose origin lies farther (LDU) outside every piece's bounding box are not tested.
_NEAR_PIECE = 12.0
#: A connector mated inside its part: a mate this close (LDU), axes this parallel (|cos|).
_SAME_PLACE = 4.0
_SAME_AXIS = 0.95
#: A composite's connector is a labelled piece's when that piece has one of its type this close (LDU).
_SAME_ORIGIN = 0.5
#: Bump when the rule or the cache layout changes.
_VERSION = 3

_REF = re.compile(rb"^[ \t]*1[ \t]+\S+((?:[ \t]+[-+0-9.eE]+){12})[ \t]+(.+?)[ \t]*$", re.M)
_REF_NAME = re.compile(rb"^[ \t]*1[ \t]+(?:\S+[ \t]+){13}(.+?)[ \t]*$", re.M)
#: :data:`_REF_NAME` with a literal start (the file is searched with a newline put before it).
_REF_LINE = re.compile(rb"\n[ \t]*1[ \t]+(?:\S+[ \t]+){13}([^\n]+?)[ \t]*(?=\n|\Z)")
_TRI = re.compile(rb"^[ \t]*([34])[ \t]+\S+((?:[ \t]+[-+0-9.eE]+){9,12})[ \t]*$", re.M)


def _refs(raw: bytes) -> list[tuple[str, np.ndarray]]:
    """Type-1 references of a file: (normalized name, (4, 4) matrix)."""
    out = []
    for m in _REF.finditer(raw):
        try:
            v = [float(t) for t in m.group(1).split()]
        except ValueError:
            continue
        t = np.eye(4)
        t[:3, 3] = v[0:3]
        t[:3, :3] = np.asarray(v[3:12]).reshape(3, 3)
        out.append((normalize_name(m.group(2).decode("latin-1")), t))
    return out


def _own_triangles(raw: bytes) -> np.ndarray:
    """Type-3 triangles and type-4 quads (as two triangles) of a file's own lines, (n, 3, 3) LDU."""
    out = []
    for m in _TRI.finditer(raw):
        try:
            v = np.asarray([float(t) for t in m.group(2).split()]).reshape(-1, 3)
        except ValueError:
            continue
        if m.group(1) == b"3" and len(v) == 3:
            out.append(v)
        elif m.group(1) == b"4" and len(v) == 4:
            out.extend((v[[0, 1, 2]], v[[0, 2, 3]]))
    return np.asarray(out, dtype=np.float64).reshape(-1, 3, 3)


def _closest_points(tris: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Closest point of triangle ``tris[i]`` to point ``pts[i]`` (Ericson, "Real-Time Collision
    Detection" 5.1.5), vectorized; (n, 3, 3), (n, 3) -> (n, 3)."""
    from trimesh.triangles import closest_point

    return closest_point(tris, pts)


def _group_distances(points: np.ndarray, tris: np.ndarray, groups: np.ndarray, n_groups: int,
                     reach: np.ndarray) -> np.ndarray:
    """(k, G) distance (LDU) from each point to the nearest triangle of each group, ``inf`` when
    no triangle of the group lies within ``reach`` ((k,) LDU, per point).

    Candidate triangles: those whose centroid lies within ``reach`` plus their circumradius of the
    point (a k-d tree over the centroids of the triangles at most :data:`_SMALL` LDU across, every
    larger triangle tested directly)."""
    from scipy.spatial import cKDTree

    out = np.full((len(points), n_groups), np.inf)
    if not len(points) or not len(tris):
        return out
    reach = np.broadcast_to(np.asarray(reach, np.float64), (len(points),))
    lo, hi = points.min(0) - reach.max(), points.max(0) + reach.max()
    sel = np.flatnonzero(np.all((tris.max(axis=1) >= lo) & (tris.min(axis=1) <= hi), axis=1))
    tris, groups = tris[sel], groups[sel]
    cent = tris.mean(axis=1)
    rad = np.linalg.norm(tris - cent[:, None, :], axis=2).max(axis=1)
    small = np.flatnonzero(rad <= _SMALL)
    big = np.flatnonzero(rad > _SMALL)
    pi_list, ti_list = [], []
    if len(small):
        near = cKDTree(cent[small]).query_ball_point(points, reach + _SMALL)
        lens = np.fromiter((len(x) for x in near), np.int64, len(near))
        if lens.sum():
            pi_list.append(np.repeat(np.arange(len(points)), lens))
            ti_list.append(small[np.concatenate([np.asarray(x, np.int64) for x in near])])
    if len(big):
        d = np.linalg.norm(points[:, None, :] - cent[big][None], axis=2) <= reach[:, None] + rad[big][None]
        pi, bi = np.nonzero(d)
        pi_list.append(pi)
        ti_list.append(big[bi])
    if not pi_list:
        return out
    pi, ti = np.concatenate(pi_list), np.concatenate(ti_list)
    if not len(pi):
        return out
    d = np.linalg.norm(_closest_points(tris[ti], points[pi]) - points[pi], axis=1)
    keep = d <= reach[pi]
    np.minimum.at(out, (pi[keep], groups[ti[keep]]), d[keep])
    return out


def _orthonormal(lin: np.ndarray) -> bool:
    """True for a rotation or a mirror (no scaling)."""
    return bool(np.allclose(lin.T @ lin, np.eye(3), atol=1e-3))


def _to_piece(frame: np.ndarray, t: np.ndarray) -> np.ndarray:
    """A composite's connector frame (4, 4) in the frame of the piece placed by ``t`` (orthonormal),
    right-handed, -Y column the same mating axis."""
    inv = np.linalg.inv(t)
    out = np.eye(4)
    out[:3, 3] = inv[:3, :3] @ frame[:3, 3] + inv[:3, 3]
    y = inv[:3, :3] @ frame[:3, 1]
    x = inv[:3, :3] @ frame[:3, 0]
    y /= np.linalg.norm(y)
    x -= (x @ y) * y
    x /= np.linalg.norm(x)
    out[:3, 0], out[:3, 1], out[:3, 2] = x, y, np.cross(x, y)
    return out


def piece_connectors(drawings: list[np.ndarray], connectors: list[tuple[tuple, np.ndarray, float]],
                     internal: list[bool] | None = None) -> list[int]:
    """Which drawing forms each connector (module notes), or -1.

    Parameters
    ----------
    drawings : list of (n_i, 3, 3) float arrays
        The triangles (LDU, composite frame) of each drawing of the composite: its references
        placed, and its own triangles.
    connectors : list of ((kind, subtype, polarity), (4, 4) frame, half-length LDU)
        The composite's connectors in its frame (mating axis: the frame's -Y column).
    internal : list of bool, optional
        True for a connector no piece may get: one that mates another of the composite at its place
        (a joint inside the composite: its wall is the other piece's too), or one a labelled piece of
        the composite has itself; such connectors get -1.

    Returns
    -------
    list of int
        Per connector, the index of the drawing forming it, or -1 when none does clearly.
    """
    sizes = [len(d) for d in drawings]
    if not connectors or not sum(sizes):
        return [-1] * len(connectors)
    g = len(drawings)
    # only drawings that come within reach of some connector matter
    origins = np.array([f[:3, 3] for _l, f, _ln in connectors])
    lo, hi = origins.min(0) - _NEAR_PIECE, origins.max(0) + _NEAR_PIECE
    keep = []
    for i, d in enumerate(drawings):
        d = np.asarray(d, np.float64).reshape(-1, 3, 3)
        if len(d):
            v = d.reshape(-1, 3)
            if np.all(v.max(0) >= lo) and np.all(v.min(0) <= hi):
                keep.append((i, d))
    if not keep:
        return [-1] * len(connectors)
    tris = np.concatenate([d for _, d in keep])
    groups = np.repeat(np.array([i for i, _ in keep]), [len(d) for _, d in keep])
    ang = np.linspace(0.0, 2 * np.pi, RING_PROBES, endpoint=False)
    probes, how = [], []  # probe points per connector; None (origin) or the quorum of a wall
    for label, f, _ln in connectors:
        p, a = f[:3, 3], -f[:3, 1]
        wall = WALLS.get(tuple(label[:2])) if label[2] is None else None
        if wall is None and not ((label[0], label[1]) in ORIGIN_TYPES or (label[0], None) in ORIGIN_TYPES):
            probes.append(p[None])
            how.append(-1)
        elif wall is None:
            probes.append(p[None])
            how.append(None)
        else:
            r, t, quorum = wall
            probes.append(p + t * a + r * (np.cos(ang)[:, None] * f[:3, 0] + np.sin(ang)[:, None] * f[:3, 2]))
            how.append(quorum)
    reach = np.concatenate([np.full(len(pts), REACH + MARGIN if q is None else WALL_TOL)
                            for pts, q in zip(probes, how)])
    dist = _group_distances(np.concatenate(probes), tris, groups, g, reach)
    out, k = [], 0
    for i, (pts, quorum) in enumerate(zip(probes, how)):
        d = dist[k:k + len(pts)]
        k += len(pts)
        if (internal is not None and internal[i]) or quorum == -1:
            out.append(-1)
            continue
        best = d.argmin(axis=1)
        dmin = d[np.arange(len(d)), best]
        if quorum is not None:
            on = d <= WALL_TOL  # (probes, drawings)
            per = on.sum(axis=0)
            j = int(per.argmax())
            if quorum >= RING_PROBES // 2:  # a whole wall: the probes nearest to one drawing
                hits = best[dmin <= WALL_TOL]
                ok = len(hits) and np.count_nonzero(hits == j) >= quorum
            else:  # the inside of a hole: on the piece, on no other drawing
                ok = per[j] >= quorum and per.sum() == per[j]
            out.append(j if ok else -1)
        else:
            j = int(best[0])
            rest = np.delete(d[0], j)
            ok = dmin[0] <= REACH and (not len(rest) or rest.min() >= dmin[0] + MARGIN)
            out.append(j if ok else -1)
    return out


def _ref_stems(raw: bytes) -> list[str]:
    """Normalized stems (no ``.dat``) of a file's type-1 references, in file order: the names
    :data:`_REF_NAME` reads, found through :data:`_REF_LINE` (a search with a literal start, ten times
    faster than a line-anchored one over the library's 260 MB)."""
    out = []
    for m in _REF_LINE.finditer(b"\n" + raw if raw[:1] != b"\n" else raw):
        out.append(normalize_name(m.group(1).decode("latin-1")).removesuffix(".dat"))
    return out


def _composite_rows(library, stem: str, raw: bytes, part_stems, connectors_of: Callable[[str], list],
                    own: Callable[[str], bool], mates: Callable[[tuple, tuple], bool]) -> dict[str, list]:
    """The rows composite ``stem`` (file bytes ``raw``) gives its pieces (module notes): piece stem -> list
    of ``(label, (4, 4) frame in the piece's frame, half-length LDU)``, each list without repeats
    (:func:`_add`); empty when ``stem`` is no composite. ``library``: the LDrawLibrary whose meshes are
    read; ``part_stems``: its top-level part stems;
    ``connectors_of``, ``own``, ``mates`` as in :func:`build_subpart_table` (``own`` is ``has_own``)."""
    from .mesh import part_mesh

    names = set(_ref_stems(raw))
    if not any(n in part_stems and n != stem and not own(n) for n in names):  # no piece: most files
        return {}
    refs = _refs(raw)
    pieces = [i for i, (r, t) in enumerate(refs)
              if r.removesuffix(".dat") in part_stems and r.removesuffix(".dat") != stem
              and not own(r.removesuffix(".dat")) and _orthonormal(t[:3, :3])]
    if not pieces or not own(stem):
        return {}
    conns = connectors_of(stem)
    if not conns:
        return {}
    drawings = []
    for r, t in refs:
        try:
            m = part_mesh(r, library)
        except Exception:  # noqa: BLE001 - a missing sub-file draws nothing
            drawings.append(np.zeros((0, 3, 3)))
            continue
        tri = np.asarray(m.triangles, np.float64)
        drawings.append(tri @ t[:3, :3].T + t[:3, 3])
    drawings.append(_own_triangles(raw))
    # only connectors near some piece can be a piece's (the rest would cost distance queries)
    boxes = [(drawings[i].reshape(-1, 3).min(0) - _NEAR_PIECE, drawings[i].reshape(-1, 3).max(0) + _NEAR_PIECE)
             for i in pieces if len(drawings[i])]
    near = [c for c in conns if any(np.all(c[1][:3, 3] >= lo) and np.all(c[1][:3, 3] <= hi) for lo, hi in boxes)]
    if not near:
        return {}
    # a connector the composite has from a labelled piece is that piece's, whatever lies nearest
    theirs = [(lab, t @ f) for r, t in refs if r.removesuffix(".dat") in part_stems and own(r.removesuffix(".dat"))
              and _orthonormal(t[:3, :3]) for lab, f, _ln in connectors_of(r.removesuffix(".dat"))]
    blocked = [a or _matches(c, theirs) for a, c in zip(_internal(near, mates), near)]
    owner = piece_connectors(drawings, near, blocked)
    rows: dict[str, list] = {}
    for i in pieces:
        piece, t = refs[i][0].removesuffix(".dat"), refs[i][1]
        for (label, f, ln), j in zip(near, owner):
            if j != i:
                continue
            _add(rows.setdefault(piece, []), (tuple(label), _to_piece(f, t), float(ln)))
    return rows


def build_subpart_table(library, connectors_of: Callable[[str], list], has_own: Callable[[str], bool],
                        mates: Callable[[tuple, tuple], bool],
                        stems: Iterable[str] | None = None) -> dict[str, list[tuple[tuple, np.ndarray, float]]]:
    """Connector rows of the pieces of composite parts (module notes), every composite of the library read.

    Parameters
    ----------
    library : LDrawLibrary
    connectors_of : callable
        ``connectors_of(stem)`` -> list of ``(label, (4, 4) frame, half-length LDU)``: a composite's
        connectors from the other sources (label ``(kind, subtype, polarity)``, LDraw part frame).
    has_own : callable
        ``has_own(stem)`` -> True when the part has connectors from the other sources (it is
        then no piece to fill, only possibly a composite).
    mates : callable
        ``mates(label_a, label_b)`` -> True when connectors of these labels mate
        (:func:`ldraw_data.connectors.mate_kind`).
    stems : iterable of str, optional
        Restrict the composites read to these stems (tests); default every part file.

    Returns
    -------
    dict
        Piece stem -> list of ``(label, (4, 4) frame in the piece's frame, half-length LDU)``; the same
        rows :meth:`PieceConnectors.rows` gives one piece.
    """
    src = PieceConnectors(connectors_of, has_own, mates, library=library)
    want = None if stems is None else set(stems)
    rows: dict[str, list] = {}
    for name, _path in src.files:
        stem = name.removesuffix(".dat")
        if want is not None and stem not in want:
            continue
        for piece, got in src.composite(stem).items():
            for row in got:
                _add(rows.setdefault(piece, []), row)
    return rows


def _internal(conns: list, mates: Callable[[tuple, tuple], bool]) -> list[bool]:
    """Per connector: does another connector of the same part mate it at its place (origins within
    :data:`_SAME_PLACE` LDU, axes parallel within :data:`_SAME_AXIS`; ``mates(label_a, label_b)`` the
    mating rule, :func:`ldraw_data.connectors.mate_kind` on labels)?"""
    pos = np.array([f[:3, 3] for _l, f, _ln in conns]).reshape(-1, 3)
    ax = np.array([f[:3, 1] for _l, f, _ln in conns]).reshape(-1, 3)
    close = (np.linalg.norm(pos[:, None] - pos[None], axis=2) <= _SAME_PLACE) & (np.abs(ax @ ax.T) >= _SAME_AXIS)
    out = [False] * len(conns)
    for i, j in zip(*np.nonzero(close)):
        if i < j and mates(tuple(conns[i][0]), tuple(conns[j][0])):
            out[i] = out[j] = True
    return out


def _matches(conn: tuple, others: list) -> bool:
    """Is ``conn`` (label, frame, length) one of ``others`` ((label, frame) pairs): same label, origin within
    :data:`_SAME_ORIGIN` LDU, axis parallel (either sign)?"""
    label, f, _ln = conn
    return any(lab == label and np.linalg.norm(g[:3, 3] - f[:3, 3]) <= _SAME_ORIGIN and abs(g[:3, 1] @ f[:3, 1]) > 0.99
               for lab, g in others)


def _add(got: list, row: tuple) -> None:
    """Append ``row`` unless ``got`` holds the same connector: same label and length, origin within
    0.05 LDU, axis parallel (either sign for axle-kind and hinge labels, whose axis sign carries no
    meaning: module :mod:`ldraw_data.connectors`)."""
    label, f, ln = row
    either = label[0] in ("axle", "hinge")
    for lab, g, l2 in got:
        cos = float(g[:3, 1] @ f[:3, 1])
        if (lab == label and abs(l2 - ln) < 0.05 and np.allclose(g[:3, 3], f[:3, 3], atol=0.05)
                and (abs(cos) if either else cos) > 0.99):
            return
    got.append(row)


class PieceConnectors:
    """The composite-pieces source, on demand: a piece's rows are worked out when first asked, from only
    the composites that draw it (:meth:`drawn_by`), each composite read once per process.

    Parameters
    ----------
    connectors_of, has_own, mates : callable
        As in :func:`build_subpart_table` (the other sources, merged).
    library : LDrawLibrary, optional
        Default the installed one.
    index_path : Path, optional
        Disk cache of :meth:`drawn_by`'s index (JSON, written atomically); default none (kept in memory).
    rows_path : Path, optional
        Disk cache of the pieces' rows worked out so far (JSON, the full table's layout, rewritten
        atomically with each new piece, merged with what other processes wrote); default none.

    Notes
    -----
    :meth:`rows` gives exactly the rows :func:`build_subpart_table` gives the piece: the composites are
    read in the same order (the library's part files sorted by name) and each one's rows folded in
    with the same :func:`_add` (tests/ldraw_data/test_subparts.py compares the two on a sample).
    """

    def __init__(self, connectors_of: Callable[[str], list], has_own: Callable[[str], bool],
                 mates: Callable[[tuple, tuple], bool], library=None, index_path=None, rows_path=None):
        if library is None:
            from .library import get_library

            library = get_library()
        self.library = library
        self._connectors_of, self._has_own, self._mates = connectors_of, has_own, mates
        self._index_path = index_path
        self._index: dict[str, list[str]] | None = None
        self._own: dict[str, bool] = {}
        self._composites: dict[str, dict[str, list]] = {}
        self._rows_path = rows_path
        self._lock = threading.RLock()
        self._rows: dict[str, list] = (_read_table(rows_path) or {}) if rows_path is not None else {}

    @cached_property
    def files(self) -> list:
        """The library's top-level part files, ``(name, Path)`` sorted by name (read when first needed: a
        process that finds a piece's rows in the disk caches never lists the 19,370 files)."""
        return self.library.part_files()

    @cached_property
    def _paths(self) -> dict:
        return {n.removesuffix(".dat"): p for n, p in self.files}

    def own(self, stem: str) -> bool:
        """``has_own(stem)``, memoized."""
        hit = self._own.get(stem)
        if hit is None:
            hit = self._own[stem] = bool(self._has_own(stem))
        return hit

    def composite(self, stem: str) -> dict[str, list]:
        """Piece stem -> rows that composite ``stem`` gives it (:func:`_composite_rows`); empty for a
        part that is no composite or a stem not in the library's ``parts/``."""
        hit = self._composites.get(stem)
        if hit is None:
            path = self._paths.get(stem)
            try:
                raw = path.read_bytes() if path is not None else None
            except OSError:
                raw = None
            hit = {} if raw is None else _composite_rows(self.library, stem, raw, self._paths, self._connectors_of,
                                                         self.own, self._mates)
            self._composites[stem] = hit
        return hit

    def drawn_by(self, stem: str) -> list[str]:
        """Stems of the top-level part files that reference part ``stem`` directly (type-1 lines; a
        file referencing itself left out), in the library's part-file order.

        The index is built on first use by one pass over every part file (the library's 19,370 files,
        260 MB: about 1.5 s with the files in the page cache) and kept at ``index_path`` when given."""
        if self._index is None:
            self._index = self._load_index()
        return self._index.get(stem, [])

    def _load_index(self) -> dict[str, list[str]]:
        import json

        path = self._index_path
        if path is not None and path.is_file():
            try:
                got = json.loads(path.read_text())
                if isinstance(got, dict):
                    return got
            except (OSError, ValueError) as exc:
                log.warning("composite index %s discarded (unreadable: %s); rebuilding it", path, exc)
        from .progress import report

        index: dict[str, list[str]] = {}
        task = "indexing composite parts (once)"
        report(task, 0, len(self.files))
        for k, (name, p) in enumerate(self.files, 1):
            stem = name.removesuffix(".dat")
            if k % 1000 == 0:
                report(task, k, len(self.files))
            try:
                raw = p.read_bytes()
            except OSError:
                continue
            for n in dict.fromkeys(_ref_stems(raw)):
                if n != stem and n in self._paths:
                    index.setdefault(n, []).append(stem)
        report(task, len(self.files), len(self.files))
        if path is not None:
            try:
                from .fileio import atomic_writer

                path.parent.mkdir(parents=True, exist_ok=True)
                with atomic_writer(path, "w") as fh:
                    json.dump(index, fh)
            except OSError as exc:
                log.warning("could not write the composite index %s (%s); continuing without it", path, exc)
        return index

    def rows(self, stem: str) -> list[tuple[tuple, np.ndarray, float]]:
        """Rows of piece ``stem`` (normalized, no ``.dat``): ``(label, (4, 4) frame in its frame,
        half-length LDU)``; empty for a part with connectors of its own or that no composite gives any."""
        hit = self._rows.get(stem)
        if hit is not None:
            return hit
        with self._lock:  # threads asking at once: one works the piece out
            hit = self._rows.get(stem)
            if hit is None:
                hit = []
                comps = self.drawn_by(stem)  # only part stems are drawn
                if comps and not self.own(stem):
                    for comp in comps:
                        for row in self.composite(comp).get(stem, ()):
                            _add(hit, row)
                    if self._rows_path is not None:
                        self._save(stem, hit)
                self._rows[stem] = hit
        return hit

    def _save(self, stem: str, rows: list) -> None:
        """Add piece ``stem``'s rows to the file at ``rows_path`` (re-read first: other processes add
        theirs; a piece lost to a race is worked out again later)."""
        have = _read_table(self._rows_path) or {}
        have[stem] = rows
        _write_table(self._rows_path, have)


def _cache_paths(key: str, library) -> tuple:
    """(full table, composite index, pieces worked out on demand) cache files under ``cache_dir()/connectors``
    for ``library`` and the other sources' fingerprint ``key``; the index depends on the library alone."""
    import hashlib

    from .library import cache_dir

    h = hashlib.sha1(f"{_VERSION}|{library.fingerprint}|{key}".encode()).hexdigest()[:16]
    hi = hashlib.sha1(f"{_VERSION}|{library.fingerprint}".encode()).hexdigest()[:16]
    folder = cache_dir() / "connectors"
    return (folder / f"subparts-v{_VERSION}-{h}.json", folder / f"subparts-index-v{_VERSION}-{hi}.json",
            folder / f"subparts-pieces-v{_VERSION}-{h}.json")


def _read_table(path) -> dict | None:
    """The full table saved by :func:`subpart_rows` at ``path``, or None (missing or unreadable)."""
    import json

    if not path.is_file():
        return None
    try:
        raw = json.loads(path.read_text())
        out = {}
        for s, rows in raw.items():
            got = []
            for lab, f, ln in rows:
                m = np.eye(4)
                m[:3] = np.asarray(f, dtype=np.float64).reshape(3, 4)
                got.append(((lab[0], lab[1], lab[2] or None), m, float(ln)))
            out[s] = got
        return out
    except Exception as exc:  # noqa: BLE001 - a corrupt cache is rebuilt
        log.warning("sub-part connector cache %s discarded (unreadable: %s); working the rows out again", path, exc)
        return None


def _write_table(path, table: dict) -> None:
    """Save ``table`` (piece stem -> rows) at ``path`` atomically (JSON: per row the label, the frame's top
    three rows rounded to 1e-6 LDU, the half-length); a failure is logged, not raised (a cache)."""
    import json

    from .fileio import atomic_writer

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_writer(path, "w") as fh:
            json.dump({s: [[[lab[0], lab[1], lab[2] or ""], np.round(f[:3], 6).ravel().tolist(), round(ln, 6)]
                           for lab, f, ln in r] for s, r in table.items()}, fh)
    except OSError as exc:
        log.warning("could not write the sub-part connector cache %s (%s); continuing without it", path, exc)


def subpart_source(connectors_of: Callable[[str], list], has_own: Callable[[str], bool],
                   mates: Callable[[tuple, tuple], bool], key: str) -> Callable[[str], list] | None:
    """Rows of one piece, the cheapest way: ``stem -> list of (label, (4, 4) frame, half-length LDU)``.

    From the full table on disk when :func:`subpart_rows` has saved it (``brickwright library install``
    does), else :class:`PieceConnectors` on demand (only the composites that draw the piece are read:
    a part no composite draws, a sticker, costs a dictionary look-up once the composite index is built).

    Parameters
    ----------
    connectors_of, has_own, mates, key
        As in :func:`subpart_rows`.

    Returns
    -------
    callable or None
        None without a parts library.
    """
    from .library import get_library

    try:
        lib = get_library()
    except Exception:  # noqa: BLE001 - no parts library: no pieces
        return None
    table_path, index_path, rows_path = _cache_paths(key, lib)
    table = _read_table(table_path)
    if table is not None:
        return lambda stem: table.get(stem, [])
    return PieceConnectors(connectors_of, has_own, mates, library=lib, index_path=index_path, rows_path=rows_path).rows


def subpart_rows(connectors_of: Callable[[str], list], has_own: Callable[[str], bool],
                 mates: Callable[[tuple, tuple], bool], key: str) -> dict[str, list[tuple[tuple, np.ndarray, float]]]:
    """:func:`build_subpart_table` of the installed library, from the disk cache when current, else built
    (one to two minutes) and saved there.

    Parameters
    ----------
    connectors_of, has_own, mates : callable
        As in :func:`build_subpart_table` (the other sources, merged).
    key : str
        Fingerprint of those other sources (BrickNet's labels, the shadow library); the cache is
        keyed on it, on the library's fingerprint and on :data:`_VERSION`.

    Returns
    -------
    dict
        Piece stem -> list of ``(label, (4, 4) frame, half-length LDU)``; empty without a library.
    """
    from .library import get_library

    try:
        lib = get_library()
    except Exception:  # noqa: BLE001 - no parts library: no pieces
        return {}
    path = _cache_paths(key, lib)[0]
    table = _read_table(path)
    if table is not None:
        return table
    log.info("reading the connectors of composite parts' pieces (one to two minutes, once)")
    table = build_subpart_table(lib, connectors_of, has_own, mates)
    _write_table(path, table)
    return table
