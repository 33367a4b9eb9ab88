"""Own LDraw part reader for the audit (round 4): triangles and stud positions of a part, read from the
library files line by line, sharing no code with the project (not ``ldraw_data.mesh``, not the validator).

Sources: LDraw File Format 1.0.2 (line types 1, 3, 4; type 4 quads are planar and convex, split along the
1-3 diagonal), LDraw BFC spec (``0 BFC CERTIFY CCW|CW``, ``0 BFC CW|CCW``, ``0 BFC INVERTNEXT``; a mirror
placement (det < 0) and INVERTNEXT each invert the winding of what they place; "below a file that is not
certified the intended inversion is unknown"), LDraw library layout (``parts/``, ``parts/s/``, ``p/``,
``p/48/``, ``models/``; file names are case-insensitive, ``\\`` separates folders).

Output triangles are in the part frame (LDU, -Y up), wound counter-clockwise seen from outside when the
part's whole reference tree is certified (``certified=True``); otherwise their winding is as written and
the audit's inside test falls back to ray parity (``ldr.inside``).
Male studs: references to a ``p/`` primitive whose title starts with "Stud" and does not name a tube, an
underside, Duplo, Scala or Quatro (``stud.dat``, ``stud2.dat``, ``stud-logo*``, ``stud10/13/15/17`` ...),
reached through any sub-file (``stug-*`` groups): the primitive's origin is the stud's base centre and its
-Y axis points out of the stud (stud 4 LDU high).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

LIB = Path("/root/.local/share/brickwright/ldraw")
_INDEX: dict[str, Path] = {}


def _index() -> dict[str, Path]:
    """Lower-case library-relative name (``s/3001s01.dat``, ``48/4-4cyli.dat``) -> file, ``parts`` and
    ``p`` first as the LDraw search order has it."""
    if _INDEX:
        return _INDEX
    for root in ("models", "p", "parts"):  # later roots win: parts, then p, then models
        base = LIB / root
        for f in base.rglob("*.dat"):
            rel = f.relative_to(base).as_posix().lower()
            _INDEX[rel] = f
    # parts/ must win over p/ for equal names
    for f in (LIB / "parts").rglob("*.dat"):
        _INDEX[f.relative_to(LIB / "parts").as_posix().lower()] = f
    return _INDEX


@dataclass
class Geom:
    """Triangles (n, 3, 3) in the file's frame (LDU), certified flag, male studs (k, 4, 4) frames."""

    tris: np.ndarray
    certified: bool
    studs: np.ndarray


_MEMO: dict[tuple, Geom] = {}
_STUD_PRIM: dict[str, bool] = {}


def _is_stud_primitive(key: str, path: Path) -> bool:
    if key in _STUD_PRIM:
        return _STUD_PRIM[key]
    ok = False
    if path.parent == LIB / "p" and Path(key).name.startswith("stud"):
        head = path.read_text(errors="replace").splitlines()[:1]
        title = head[0][2:].strip() if head else ""
        low = title.lower()
        ok = title.startswith("Stud") and not any(w in low for w in ("tube", "underside", "duplo", "scala",
                                                                    "quatro", "group"))
    _STUD_PRIM[key] = ok
    return ok


def _lines_of(key: str, embedded: dict[str, list[str]]) -> tuple[list[str], Path | None]:
    if key in embedded:
        return embedded[key], None
    p = _index().get(key)
    if p is None:
        return [], None
    return p.read_text(encoding="utf-8", errors="replace").splitlines(), p


def geom(name: str, embedded: dict[str, list[str]] | None = None, depth: int = 0) -> Geom:
    """Geometry of LDraw file ``name`` (library or MPD-embedded block), memoised per (file, embedded set)."""
    embedded = embedded or {}
    key = name.strip().lower().replace("\\", "/")
    mk = (key, id(embedded)) if key in embedded else (key, None)
    if mk in _MEMO:
        return _MEMO[mk]
    lines, path = _lines_of(key, embedded)
    tris: list[np.ndarray] = []
    studs: list[np.ndarray] = []
    certified = False
    seen_meta = False
    ccw = True
    invert_next = False
    all_cert = True
    for raw in lines:
        t = raw.split()
        if not t:
            continue
        if t[0] == "0":
            if len(t) >= 2 and t[1] == "BFC":
                w = [x.upper() for x in t[2:]]
                if "NOCERTIFY" in w:
                    certified = False
                    seen_meta = True
                if "CERTIFY" in w and not seen_meta:
                    certified = True
                    seen_meta = True
                if "CW" in w:
                    ccw = False
                if "CCW" in w:
                    ccw = True
                if "INVERTNEXT" in w:
                    invert_next = True
            continue
        if t[0] == "1" and len(t) >= 15:
            v = list(map(float, t[2:14]))
            m = np.eye(4)
            m[:3, 3] = v[0:3]
            m[:3, :3] = np.array(v[3:12]).reshape(3, 3)
            sub = " ".join(raw.split(None, 14)[14:]).strip().lower().replace("\\", "/")
            inv = invert_next and certified
            invert_next = False
            _, spath = _lines_of(sub, embedded)
            if spath is not None and _is_stud_primitive(sub, spath):
                studs.append(m)
            if depth > 40:
                continue
            g = geom(sub, embedded, depth + 1)
            if len(g.tris) == 0 and len(g.studs) == 0 and sub not in embedded and sub not in _index():
                continue
            if len(g.tris):
                tt = g.tris @ m[:3, :3].T + m[:3, 3]
                if (np.linalg.det(m[:3, :3]) < 0) != inv:
                    tt = tt[:, ::-1]
                tris.append(tt)
            if len(g.studs):
                studs.extend(list(m @ g.studs))
            all_cert = all_cert and g.certified and certified
            continue
        invert_next = False
        if t[0] == "3" and len(t) >= 11:
            p = np.array(list(map(float, t[2:11]))).reshape(1, 3, 3)
        elif t[0] == "4" and len(t) >= 14:
            q = np.array(list(map(float, t[2:14]))).reshape(4, 3)
            p = np.stack([q[[0, 1, 2]], q[[0, 2, 3]]])
        else:
            continue
        if not ccw:
            p = p[:, ::-1]
        tris.append(p)
    g = Geom(np.concatenate(tris) if tris else np.zeros((0, 3, 3)), bool(certified and all_cert),
             np.array(studs) if studs else np.zeros((0, 4, 4)))
    _MEMO[mk] = g
    return g


_EMB: dict[str, dict[str, list[str]]] = {}


def embedded_blocks(model: Path) -> dict[str, list[str]]:
    """MPD ``0 FILE`` blocks of a model (lower-case name -> lines), read once per model."""
    key = str(model)
    if key not in _EMB:
        blocks: dict[str, list[str]] = {}
        cur = None
        for raw in Path(model).read_text(encoding="utf-8", errors="replace").splitlines():
            t = raw.strip().split(None, 2)
            if len(t) >= 3 and t[0] == "0" and t[1].upper() == "FILE":
                cur = t[2].strip().lower().replace("\\", "/")
                blocks[cur] = []
                continue
            if cur is not None:
                blocks[cur].append(raw.strip())
        _EMB[key] = blocks
    return _EMB[key]
