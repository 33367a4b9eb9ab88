"""Joints of flexible hose segments, read from the LDraw drawings of the hoses they make up.

A ribbed flexible hose (``Hose Flexible 8.5L`` 73590, ``~Hose Flexible Tube 7L`` 751,
``~Hose Flexible 12L without Ends`` 30527) is drawn in the LDraw library as a row of short
segment parts (754, 756, 755, 30527k02, 30527k01): each segment is "positioned with the
center on the spherical 'cap', for smoother flexing of hose" (30527k02's ``!HELP``): its ball,
a hemisphere primitive ``4-8sphe.dat``, sits in the cup of the next segment, and the hose
bends at these balls. Official models place the segments one by one along the hose's curve,
so each segment is a part use of its own; neither BrickNet nor the LDCad shadow library gives
segments connectors (LDCad bends hoses from its own templates, not from snap metas).

This module derives them from the library, nothing invented:

- a **segment** is a part file whose title carries the ``segment`` trait
  (:mod:`ldraw_data.traits`: "~Hose Flexible Segment Link Section", "~Hose Flexible 12L
  Segment"); its **balls** are its own references to the hemisphere primitive ``4-8sphe.dat``
  (``48\\4-8sphe.dat``): centre at the reference's origin, dome along the reference's +Y
  column (the primitive spans y 0..1);
- a **hose** is a part file that references at least two segments (751, 30527, 73590...). For
  each ball of a segment placed in a hose, the hose's next segment along the ball's dome (the
  reference with the nearest origin ahead of the ball centre, at most
  :data:`MAX_REACH` LDU ahead and :data:`LINE_TOL` LDU off the dome line) holds that ball: it
  gets a ``hose_socket`` at the ball centre, in its own frame. The ball itself is a
  ``hose_ball``.

So 754 has a ``hose_ball`` at its origin (dome +Y) and a ``hose_socket`` 2.56 LDU below it
(751 places the links 2.56 LDU apart), 756 two balls (its two hemispheres), the end section
755 a socket 5 LDU along +Y (the rim of its cup), 30527k02 a ball and a socket 5.1613 LDU
apart. The pair makes a ball joint (kind ``ball``, subtype ``hose``: ``hose_ball`` is the
``in`` side, ``hose_socket`` the ``on`` side, mated like other ball labels within
``TOL.joint_position``). Chain links (30104k02) have no ball and get nothing from this rule.

The table is built once from the library (about 2 s: every part file is read) and kept under
``cache_dir()/connectors``, keyed on the library's fingerprint.
"""

from __future__ import annotations

__all__ = ["BALL_LABEL", "SOCKET_LABEL", "MAX_REACH", "LINE_TOL", "build_segment_table", "segment_rows"]

import hashlib
import json
import logging
import re
from functools import lru_cache

import numpy as np

from .library import cache_dir, normalize_name
from .traits import has_trait

log = logging.getLogger(__name__)

#: BrickNet-style labels (kind, subtype, polarity) of the two sides of a segment joint.
BALL_LABEL = ("ball", "hose", "in")
SOCKET_LABEL = ("ball", "hose", "on")
#: How far ahead of a ball (LDU) the segment holding it may sit: 30527's first link lies 17.7 LDU
#: from its end segment 30527k01 (the end's long cup); links of one hose lie 2.56-5.2 LDU apart.
MAX_REACH = 24.0
#: How far off a ball's dome line (LDU) the holding segment's origin may lie (hoses are drawn straight).
LINE_TOL = 0.5
#: Bump when the rule or the cache layout changes.
_VERSION = 1

_REF = re.compile(rb"^[ \t]*1[ \t]+\S+((?:[ \t]+[-+0-9.eE]+){12})[ \t]+(.+?)[ \t]*$", re.M)
_HEMISPHERE = ("4-8sphe.dat", "48/4-8sphe.dat")


def _stem(name: str) -> str:
    key = normalize_name(name)
    return key.removeprefix("parts/").removesuffix(".dat")


def _refs(data: bytes) -> list[tuple[str, np.ndarray]]:
    """Type-1 references of a file: (normalized name, (4,4) transform)."""
    out = []
    for m in _REF.finditer(data):
        v = [float(x) for x in m.group(1).split()]
        t = np.eye(4)
        t[:3, 3] = v[0:3]
        t[:3, :3] = np.asarray(v[3:12]).reshape(3, 3)
        out.append((normalize_name(m.group(2).decode("latin-1")), t))
    return out


def _title(data: bytes) -> str:
    first = data[:300].lstrip(b"\xef\xbb\xbf").split(b"\n", 1)[0].decode("latin-1").strip()
    return first[1:].strip() if first.startswith("0") else ""


def _frame(pos: np.ndarray, axis: np.ndarray) -> np.ndarray:
    """(3,4) connector frame at ``pos`` whose mating axis (the frame's -Y column) is ``axis``."""
    a = axis / np.linalg.norm(axis)
    y = -a
    helper = np.array([1.0, 0.0, 0.0]) if abs(y[0]) < 0.9 else np.array([0.0, 0.0, 1.0])
    x = np.cross(y, helper)
    x /= np.linalg.norm(x)
    z = np.cross(x, y)
    return np.column_stack([x, y, z, pos])


def build_segment_table(library) -> dict[str, list[tuple[tuple, np.ndarray]]]:
    """Segment joint rows of every library part that has some (module notes).

    Parameters
    ----------
    library : LDrawLibrary

    Returns
    -------
    dict
        Part stem -> list of ``(label, frame)``: ``label`` :data:`BALL_LABEL` or
        :data:`SOCKET_LABEL`, ``frame`` a (3, 4) float64 array in the part's frame (LDU), its -Y
        column the ball's dome direction (from the ball into the socket).
    """
    files = library.part_files()
    data = {}
    segments: dict[str, list[tuple[np.ndarray, np.ndarray]]] = {}
    for name, path in files:
        try:
            raw = path.read_bytes()
        except OSError:
            continue
        stem = _stem(name)
        data[stem] = raw
        if has_trait(_title(raw), "segment"):
            balls = [(t[:3, 3].copy(), t[:3, 1] / np.linalg.norm(t[:3, 1]))
                     for ref, t in _refs(raw) if ref.removeprefix("p/") in _HEMISPHERE]
            segments[stem] = balls
    if not segments:
        return {}
    # a hose references a segment with a ball; holders may be any segment (755 has no ball)
    needles = [(s.rsplit("/", 1)[-1] + ".dat").encode() for s, balls in segments.items() if balls]
    rows: dict[str, list[tuple[tuple, np.ndarray]]] = {}

    def add(stem: str, label: tuple, frame: np.ndarray) -> None:
        got = rows.setdefault(stem, [])
        for lab, f in got:
            if lab == label and np.allclose(f[:, 3], frame[:, 3], atol=0.05) and f[:, 1] @ frame[:, 1] > 0.99:
                return
        got.append((label, frame))

    for stem, raw in data.items():
        low = raw.lower()
        if not any(n in low for n in needles):  # cheap pre-check; most files reference no segment
            continue
        refs = [(_stem(r), t) for r, t in _refs(raw) if _stem(r) in segments]
        if len(refs) < 2:
            continue
        origins = np.array([t[:3, 3] for _, t in refs])
        for i, (seg, t) in enumerate(refs):
            for centre, dome in segments[seg]:
                c = t[:3, :3] @ centre + t[:3, 3]
                d = t[:3, :3] @ dome
                d = d / np.linalg.norm(d)
                rel = origins - c
                ahead = rel @ d
                off = np.linalg.norm(rel - np.outer(ahead, d), axis=1)
                ok = (ahead > 1e-6) & (ahead <= MAX_REACH) & (off <= LINE_TOL)
                ok[i] = False
                if not ok.any():  # a hemisphere nothing holds (a rivet, a rounded end) is no joint
                    continue
                add(seg, BALL_LABEL, _frame(centre, dome))
                j = int(np.flatnonzero(ok)[np.argmin(ahead[ok])])
                holder, tj = refs[j]
                inv = np.linalg.inv(tj[:3, :3])
                add(holder, SOCKET_LABEL, _frame(inv @ (c - tj[:3, 3]), inv @ d))
    return rows


@lru_cache(maxsize=1)
def segment_rows() -> dict[str, list[tuple[tuple, np.ndarray]]]:
    """:func:`build_segment_table` of the installed library, from the disk cache when current.

    Returns an empty dict when no LDraw library is installed.
    """
    from .library import get_library

    try:
        lib = get_library()
    except Exception:  # noqa: BLE001 - no parts library: no segment joints
        return {}
    key = hashlib.sha1(f"{_VERSION}|{lib.fingerprint}".encode()).hexdigest()[:16]
    path = cache_dir() / "connectors" / f"segments-v{_VERSION}-{key}.json"
    if path.is_file():
        try:
            raw = json.loads(path.read_text())
            return {s: [(tuple(lab), np.asarray(f, dtype=np.float64).reshape(3, 4)) for lab, f in r]
                    for s, r in raw.items()}
        except Exception as exc:  # noqa: BLE001 - a corrupt cache is rebuilt
            log.warning("ignoring unreadable segment joint cache %s (%s); rebuilding it", path, exc)
    log.info("reading hose segment joints from the LDraw library (about 2 s, once)")
    from .progress import one_task

    with one_task("reading hose segment joints (once)"):
        table = build_segment_table(lib)
    try:
        from .fileio import atomic_writer

        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_writer(path, "w") as fh:
            json.dump({s: [[list(lab), np.round(f, 6).ravel().tolist()] for lab, f in r] for s, r in table.items()},
                      fh)
    except OSError as exc:
        log.warning("could not write the segment joint cache %s (%s); continuing without it", path, exc)
    return table
