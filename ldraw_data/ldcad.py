"""Connectors from the LDCad shadow library's part-snapping metas.

Source: the LDCad shadow library (``ldcad-shadow.zip``, github.com/RolandMelkert/LDCadShadowLibrary),
installed by ``brickwright library install`` (found beside ``complete.zip``) or ``--shadow``, located
by :func:`ldraw_data.library.find_shadow_library`. Its files carry ``0 !LDCAD SNAP_...`` meta lines for
the LDraw part or primitive of the same name; the meta syntax is LDCad's ("LDCad metas",
melkert.net/LDCad/tech/meta, and the LDraw wiki's draft "Part Snapping Language Extension"):

``SNAP_CYL``
    a cylindrical hot spot: ``gender`` M/F, ``secs`` sections ``shape radius length`` (shape ``R``
    round, ``A`` axle cross, ``S`` square, ``_L``/``L_`` round with a locking ridge), ``caps``
    ``none``/``one``/``two``/``A``/``B`` (closed ends), ``center`` (sections centred on ``pos``),
    ``slide`` (other parts may slide along it), ``grid``, ``pos``, ``ori``, ``scale``, ``id``, ``group``.
``SNAP_CLP``
    a clip around a bar: ``radius``, ``length``, ``center``, ``slide``, ``pos``, ``ori``.
``SNAP_FGR``
    hinge fingers: ``seq`` finger widths, ``genderOfs`` gender of the first finger, ``radius``,
    ``group``, ``pos``, ``ori``.
``SNAP_GEN``
    a generic hot spot: ``gender``, ``bounding`` (``pnt``, ``box x y z``, ``cube s``, ``cyl r l``,
    ``sph r``), ``group``, ``pos``, ``ori``.
``SNAP_INCL``
    the snap information of ``ref`` placed at ``pos``/``ori`` (optionally repeated on ``grid``).
``SNAP_CLEAR``
    drops the information inherited so far (all of it, or only that carrying ``id``).

Inheritance (LDCad appends a shadow file's lines to the library file of the same name): a file's
snap information is that of every type-1 reference of the library file, transformed by the
reference's matrix, in file order, then its own shadow lines in order (so ``SNAP_CLEAR`` drops what
the references brought). Every hot spot points along its frame's -Y axis at rest
(CONTRIBUTING.md, "Rotation"); the sections run from ``pos`` along that axis (centred on ``pos``
with ``center=true``). ``grid=[C] nx [C] nz dx dz`` repeats a hot spot ``nx`` x ``nz`` times in
its own X/Z plane, centred on ``pos`` where ``C`` is given. A scaled reference moves and stretches
the information; lengths scale only with ``scale=YOnly``/``YandR`` and radii with ``ROnly``/``YandR``.

Mapping onto connector types (:func:`connector_rows`; BrickNet's frame convention, module
:mod:`ldraw_data.connectors`: the mating axis is the frame's -Y column, stud-family axes point out of
the stud tip and into the anti-stud's part). ``r`` is the radius of the longest section, ``L`` the
total section length (LDU):

=========================  ==========================================  ====================================
LDCad hot spot             condition                                   connector type
=========================  ==========================================  ====================================
CYL M, shape A             any                                         ``axle`` (sliding, centre, L/2)
CYL F, shape A             any                                         ``axle_hole`` (sliding)
CYL M, r 6 (stud/pin)      not ``slide``, L <= 6                       ``stud`` at the base (``open_stud``
                                                                       when an F r 4 bore sits in it)
CYL M, r 6                 ``slide`` or L > 6                          ``pin`` (sliding)
CYL F, r 6, R/S shape      ``slide`` or ``caps=none``                  ``pin_hole`` (sliding); a through
                                                                       hole L <= 8 is also an ``antistud``
                                                                       at each open end
CYL F, r 6                 closed (``caps`` one/two/A/B), no slide     ``antistud`` at the open end
CYL M, r 4 (bar/post)      not ``slide``, L <= 6, capped               ``post`` at its tip, axis inward
CYL M, r 4                 otherwise                                   ``bar`` (sliding)
CYL F, r 4                 not inside a stud                           ``clip`` (holds a bar; sliding)
CLP, radius 4              any                                         ``clip`` (sliding)
CLP, radius 6              any                                         ``pin_hole`` (sliding)
CLP, other radius r        any                                         ``ldcad_clp-r<r>_on`` (sliding)
CYL M, round, other r      (besides ``ldcad_cyl-R<r>_in``)             ``ldcad_clp-r<r>_in`` (sliding: the
                                                                       shaft a clip of radius r holds)
GEN M/F, ``sph 8``         any                                         ``towball`` / ``towball_socket``
anything else              gender M / F                                ``ldcad_<what>_in`` / ``_on``
=========================  ==========================================  ====================================

``<what>`` names the shape so that only like hot spots mate: ``cyl-<shape><radius>`` (sections of
other radii: Duplo studs 9-12, turntables), ``clp-r<radius>``, ``fgr-<group or r radius>`` (the
gender is that of the first finger, ``genderOfs``), ``gen-<group or bounding>``. They mate M with F
of the same name (:func:`ldraw_data.connectors.mate_kind`). A clip (``SNAP_CLP``) holds a male round
cylinder of its own radius (LDCad snaps clips onto such cylinders; the bar clips of radius 4 are
BrickNet's ``clip``): a radius-6 clip holds pins as a ``pin_hole`` does, other radii mate the shaft
row ``ldcad_clp-r<r>_in`` every male round generic cylinder also gets (centre of its sections,
half its length), so wheel clips hold small wheels' pins, grab jaws their holders' pins, handcuffs
minifigure wrists. Radius 6 and 4 follow LEGO's stud
(diameter 4.8 mm = 12 LDU) and bar (3.2 mm = 8 LDU) sizes. ``caps`` decides where a hole opens (the
capped end is closed); ``slide`` makes round holes and shafts sliding joints; LDCad's ``grid``
becomes one connector per grid point. The draft's ``secure`` flag does not occur in the shadow
library (0 of 6,653 cylinders), so nothing maps from it.
"""

from __future__ import annotations

__all__ = ["SnapRecord", "parse_snap_meta", "shadow_fingerprint", "build_ldcad_table", "connector_rows"]

import hashlib
import logging
import os
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .library import normalize_name
from .errors import LDrawValueError

log = logging.getLogger(__name__)

_META = re.compile(r"^\s*0\s+!LDCAD\s+(SNAP_CYL|SNAP_CLP|SNAP_FGR|SNAP_GEN|SNAP_INCL|SNAP_CLEAR)\b(.*)$", re.I)
_PARAM = re.compile(r"\[\s*([A-Za-z]+)\s*=([^\]]*)\]")
_REF = re.compile(rb"^[ \t]*1[ \t]+(.+?)[ \t]*$", re.M)
#: Stud radius (LDU): LEGO stud diameter 4.8 mm = 12 LDU.
STUD_RADIUS = 6.0
#: Bar radius (LDU): LEGO bar diameter 3.2 mm = 8 LDU.
BAR_RADIUS = 4.0
_R_TOL = 0.6


@dataclass(frozen=True)
class SnapRecord:
    """One LDCad hot spot (before placement): meta kind and its parameters.

    ``kind``: ``cyl``, ``clp``, ``fgr`` or ``gen``; ``gender`` ``M``/``F``; ``secs`` tuple of
    ``(shape, radius LDU, length LDU)``; ``caps``; ``center``; ``slide``; ``group``; ``ident`` (``id``);
    ``scale`` (``none``, ``yonly``, ``ronly``, ``yandr``); ``size`` the clip/finger/bounding numbers.
    """

    kind: str
    gender: str
    secs: tuple = ()
    caps: str = "one"
    center: bool = False
    slide: bool = False
    group: str = ""
    ident: str = ""
    scale: str = "none"
    size: tuple = ()
    bounding: str = ""


def _floats(text: str, n: int | None = None) -> list[float]:
    vals = [float(v) for v in text.split()]
    if n is not None and len(vals) != n:
        raise LDrawValueError(f"expected {n} numbers, got {text!r}")
    return vals


def _grid_offsets(text: str) -> list[tuple[float, float, float]]:
    """Offsets (x, y, z) in LDU of ``grid=[C] nx [C] nz dx dz`` or ``[C] nx [C] ny [C] nz dx dy dz``
    (in the hot spot's own frame; ``C`` centres that direction on ``pos``)."""
    tok = text.split()
    centred, nums = [], []
    pending = False
    for t in tok:
        if t.upper() == "C":
            pending = True
            continue
        nums.append(float(t))
        centred.append(pending)
        pending = False
    dims = len(nums) // 2
    if dims not in (2, 3) or len(nums) != 2 * dims:
        raise LDrawValueError(f"grid needs 4 or 6 numbers, got {text!r}")
    counts, steps, flags = nums[:dims], nums[dims:], centred[:dims]
    if dims == 2:
        counts, steps, flags = [counts[0], 1, counts[1]], [steps[0], 0.0, steps[1]], [flags[0], False, flags[1]]

    def axis(n, c, step):
        n = max(int(n), 1)
        return [(k - (n - 1) / 2) * step if c else k * step for k in range(n)]

    return [(x, y, z) for x in axis(counts[0], flags[0], steps[0]) for y in axis(counts[1], flags[1], steps[1])
            for z in axis(counts[2], flags[2], steps[2])]


def parse_snap_meta(line: str):
    """Parse one ``0 !LDCAD SNAP_...`` line.

    Returns
    -------
    tuple or None
        ``("clear", ident)``, ``("incl", ref key, (k,4,4) frames, ident)`` or
        ``("snap", SnapRecord, (k,4,4) frames)`` (one frame per grid point, LDU, in the file's frame);
        None for any other line.

    Raises
    ------
    ValueError
        When a parameter's value cannot be read (the caller names the file).
    """
    m = _META.match(line)
    if m is None:
        return None
    what = m.group(1).upper()
    params = {k.lower(): v.strip() for k, v in _PARAM.findall(m.group(2))}
    ident = params.get("id", "")
    if what == "SNAP_CLEAR":
        return ("clear", ident.lower())
    base = np.eye(4)
    if "pos" in params:
        base[:3, 3] = _floats(params["pos"], 3)
    if "ori" in params:
        base[:3, :3] = np.asarray(_floats(params["ori"], 9)).reshape(3, 3)
    offs = np.asarray(_grid_offsets(params["grid"]) if params.get("grid") else [(0.0, 0.0, 0.0)])
    frames = np.repeat(_move(base[None], np.eye(4))[0], len(offs), axis=0)  # orthonormal axes
    frames[:, :3, 3] = base[:3, 3] + offs @ base[:3, :3].T
    if what == "SNAP_INCL":
        return ("incl", normalize_name(params.get("ref", "")), frames, ident.lower())
    truth = {"true", "1", "yes"}
    common = dict(group=params.get("group", "").lower(), ident=ident.lower(),
                  scale=params.get("scale", "none").lower(), center=params.get("center", "").lower() in truth,
                  slide=params.get("slide", "").lower() in truth)
    if what == "SNAP_CYL":
        tok = params.get("secs", "").split()
        secs = tuple((tok[i].upper(), float(tok[i + 1]), float(tok[i + 2])) for i in range(0, len(tok) - 2, 3))
        rec = SnapRecord("cyl", params.get("gender", "M").upper()[:1], secs, params.get("caps", "one").lower(),
                         **common)
    elif what == "SNAP_CLP":
        rec = SnapRecord("clp", "F", (), "none", size=(float(params.get("radius", 4) or 4),
                                                      float(params.get("length", 8) or 8)), **common)
    elif what == "SNAP_FGR":
        seq = tuple(_floats(params.get("seq", "")))
        rec = SnapRecord("fgr", params.get("genderofs", "M").upper()[:1], (), "none",
                         size=(float(params.get("radius", 0) or 0), *seq), **common)
    else:  # SNAP_GEN
        rec = SnapRecord("gen", params.get("gender", "M").upper()[:1], (), "none",
                         bounding=" ".join(params.get("bounding", "pnt").lower().split()), **common)
    return ("snap", rec, frames)


# ----------------------------------------------------------------------------------------------
# inheritance through the LDraw library's references
# ----------------------------------------------------------------------------------------------


def _index_folder(root: Path) -> dict[str, str]:
    """Key (as :class:`LDrawLibrary`: relative to ``parts/`` or ``p/``, lower case) -> path."""
    out: dict[str, str] = {}
    for folder in ("parts", "p"):
        base = root / folder
        if not base.is_dir():
            continue
        bs = str(base)
        for dirpath, _d, files in os.walk(bs):
            rel = dirpath[len(bs):].strip(os.sep).replace(os.sep, "/").lower()
            for fn in files:
                key = (rel + "/" if rel else "") + fn.lower()
                out.setdefault(key, os.path.join(dirpath, fn))
    return out


def shadow_fingerprint(root: Path) -> str:
    """Short hash of a shadow library folder: file count and the folders' modification times."""
    h = hashlib.sha1(str(Path(root).resolve()).encode())
    for rel in ("parts", "parts/s", "p", "p/48", "p/8"):
        p = Path(root) / rel
        if p.is_dir():
            h.update(f"{rel}:{p.stat().st_mtime_ns}:{len(os.listdir(p))}".encode())
    return h.hexdigest()[:16]


class _Resolver:
    """Snap information of LDraw files, inherited through their references (module notes)."""

    def __init__(self, library, shadow_root: Path):
        self.lib = library
        self.shadow = _index_folder(Path(shadow_root))
        self.memo: dict[str, tuple[list, np.ndarray, list]] = {}
        self._busy: set[str] = set()

    def _shadow_lines(self, key: str) -> list:
        path = self.shadow.get(key)
        if path is None:
            return []
        out = []
        with open(path, encoding="utf-8", errors="replace") as fh:
            for no, line in enumerate(fh, 1):
                try:
                    got = parse_snap_meta(line)
                except (ValueError, IndexError) as exc:
                    log.warning("%s line %d: unreadable LDCad meta (%s); skipped", path, no, exc)
                    continue
                if got is not None:
                    out.append(got)
        return out

    def _refs(self, key: str) -> list[tuple[list, str]]:
        """Type-1 references of library file ``key``: (the 12 number tokens, referenced key)."""
        path = self.lib.find(key)
        if path is None:
            return []
        try:
            data = path.read_bytes()
        except OSError:
            return []
        out = []
        for m in _REF.finditer(data):
            tok = m.group(1).split(None, 13)
            if len(tok) == 14:
                out.append((tok[1:13], normalize_name(tok[13].decode("latin-1"))))
        return out

    def resolve(self, key: str):
        """(records list, frames (k,4,4), per-record (ident, yscale, rscale)) of file ``key``."""
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        if key in self._busy:  # a reference loop: contributes nothing
            return [], np.zeros((0, 4, 4)), []
        self._busy.add(key)
        recs: list = []
        frames: list = []
        extra: list = []

        def add(sub, mat, ident=None):
            r, f, e = sub
            if not r:
                return
            moved, ys, rs = _move(f, mat)
            for rec, (i0, y0, r0), y1, r1 in zip(r, e, ys, rs):
                recs.append(rec)
                extra.append((ident if ident else i0, y0 * y1, r0 * r1))
            frames.append(moved)

        for nums, ref in self._refs(key):
            sub = self.resolve(ref)
            if not sub[0]:
                continue
            try:
                v = [float(t) for t in nums]
            except ValueError:
                continue
            mat = np.eye(4)
            mat[:3, 3] = v[0:3]
            mat[:3, :3] = np.asarray(v[3:12]).reshape(3, 3)
            add(sub, mat)
        for item in self._shadow_lines(key):
            if item[0] == "clear":
                ident = item[1]
                keep = [i for i, e in enumerate(extra) if ident and e[0] != ident]
                allf = np.concatenate(frames) if frames else np.zeros((0, 4, 4))
                recs = [recs[i] for i in keep]
                extra = [extra[i] for i in keep]
                frames = [allf[keep]] if keep else []
            elif item[0] == "incl":
                _, ref, fr, ident = item
                sub = self.resolve(ref)
                for f in fr:
                    add(sub, f, ident)
            else:
                _, rec, fr = item
                for f in fr:
                    recs.append(rec)
                    extra.append((rec.ident, 1.0, 1.0))
                    frames.append(f[None])
        out = (recs, np.concatenate(frames) if frames else np.zeros((0, 4, 4)), extra)
        self._busy.discard(key)
        self.memo[key] = out
        return out


def _move(frames: np.ndarray, mat: np.ndarray):
    """Frames placed by a (possibly scaled or mirrored) reference matrix, re-orthonormalized.

    Returns ``(frames (k,4,4), axis stretch (k,), radial stretch (k,))``."""
    lin = mat[:3, :3]
    out = np.empty_like(frames)
    out[:, 3] = (0, 0, 0, 1)
    out[:, :3, 3] = frames[:, :3, 3] @ lin.T + mat[:3, 3]
    y = frames[:, :3, 1] @ lin.T
    x = frames[:, :3, 0] @ lin.T
    ys = np.linalg.norm(y, axis=1)
    y = y / np.maximum(ys, 1e-12)[:, None]
    x = x - (x * y).sum(1)[:, None] * y
    xs = np.linalg.norm(x, axis=1)
    x = x / np.maximum(xs, 1e-12)[:, None]
    out[:, :3, 0] = x
    out[:, :3, 1] = y
    out[:, :3, 2] = np.cross(x, y)
    rs = np.linalg.norm(frames[:, :3, 0] @ lin.T, axis=1)
    return out, ys, rs


# ----------------------------------------------------------------------------------------------
# mapping onto connector types
# ----------------------------------------------------------------------------------------------


def _near(r: float, target: float) -> bool:
    return abs(r - target) <= _R_TOL


def _fmt(v: float) -> str:
    return f"{v:g}"


def connector_rows(recs: list, frames: np.ndarray, extra: list) -> list[tuple[tuple, np.ndarray, float]]:
    """Connector rows of one part from its resolved hot spots (module table).

    Parameters
    ----------
    recs : list of SnapRecord
    frames : (k, 4, 4) float, LDU
        Each hot spot's frame in the part's LDraw frame (axis: -Y column).
    extra : list of (ident, axis stretch, radial stretch)

    Returns
    -------
    list of ((kind, subtype, polarity), (4, 4) frame, length LDU)
        BrickNet-style labels (kind ``stud``/``hole``/``axle``/``ball``/``ldcad``); frames follow
        BrickNet's convention; ``length`` is the half-length of sliding connectors, else 0.
    """
    rows = []
    bores = []  # F r4 cylinders: (opening point, axis) - the bore of an open stud when a stud holds it
    for rec, f, (_ident, ys, rs) in zip(recs, frames, extra):
        a = -f[:3, 1]  # hot-spot direction (-Y at rest)
        p = f[:3, 3]
        yscale = ys if rec.scale in ("yonly", "yandr") else 1.0
        rscale = rs if rec.scale in ("ronly", "yandr") else 1.0
        if rec.kind == "cyl":
            if not rec.secs:
                continue
            secs = [(s, r * rscale, ln * yscale) for s, r, ln in rec.secs]
            total = sum(ln for _, _, ln in secs)
            s0 = p - a * total / 2 if rec.center else p.copy()
            male = rec.gender == "M"
            runs = _runs(secs)
            if not runs:  # no stud, bar or axle section: a like-for-like generic hot spot
                shape, r, _ = max(secs, key=lambda s: s[2])
                sub = f"cyl-{shape.strip('_')}{_fmt(round(r, 1))}"
                rows.append((("ldcad", sub, "in" if male else "on"), _frame(f, p, a), 0.0))
                if male and shape == "R":  # a round shaft: a clip of its radius holds it anywhere along it
                    rows.append((("ldcad", f"clp-r{_fmt(round(r, 1))}", "in"),
                                 _frame(f, s0 + a * total / 2, a), total / 2))
                continue
            for cat, t0, t1 in runs:
                b0, b1 = s0 + a * t0, s0 + a * t1
                mid, half, ln = (b0 + b1) / 2, (t1 - t0) / 2, t1 - t0
                if cat == "A":
                    rows.append((("axle", "axle" if male else "cross", None), _frame(f, mid, a), half))
                elif cat == "6" and male:
                    if ln <= 6.0 and (t1 >= total - 1e-6 or not rec.slide):
                        rows.append((("stud", "stud", None), _frame(f, b0, a), 0.0))
                    else:
                        rows.append((("axle", "pin", None), _frame(f, mid, a), half))
                elif cat == "6":
                    through = rec.caps == "none"
                    if rec.slide or through:
                        rows.append((("axle", "socket", None), _frame(f, mid, a), half))
                        if through and ln <= 8.0:
                            rows.append((("hole", "hole", None), _frame(f, b0, a), 0.0))
                            rows.append((("hole", "hole", None), _frame(f, b1, -a), 0.0))
                    elif rec.caps == "a":  # closed at the start: opens at the far end
                        rows.append((("hole", "hole", None), _frame(f, b1, -a), 0.0))
                    else:
                        rows.append((("hole", "hole", None), _frame(f, b0, a), 0.0))
                elif male:  # radius 4
                    if not rec.slide and ln <= 6.0 and rec.caps != "none":
                        rows.append((("hole", "post", None), _frame(f, b1, -a), 0.0))
                    else:
                        rows.append((("axle", "bar", None), _frame(f, mid, a), half))
                else:
                    bores.append((len(rows), b0, a))
                    rows.append((("axle", "clip", None), _frame(f, mid, a), half))
        elif rec.kind == "clp":
            radius, length = rec.size[0] * rscale, rec.size[1] * yscale
            c = p if rec.center else p + a * length / 2
            if _near(radius, BAR_RADIUS):
                rows.append((("axle", "clip", None), _frame(f, c, a), length / 2))
            elif _near(radius, STUD_RADIUS):  # a clip round a pin-sized shaft holds pins as a pin hole does
                rows.append((("axle", "socket", None), _frame(f, c, a), length / 2))
            else:
                rows.append((("ldcad", f"clp-r{_fmt(round(radius, 1))}", "on"), _frame(f, c, a), length / 2))
        elif rec.kind == "fgr":
            sub = "fgr-" + (rec.group or f"r{_fmt(rec.size[0])}")
            width = sum(rec.size[1:])
            c = p if rec.center else p + a * width / 2
            rows.append((("ldcad", sub, "in" if rec.gender == "M" else "on"), _frame(f, c, a), 0.0))
        else:  # gen
            b = rec.bounding.split()
            male = rec.gender == "M"
            if b and b[0] == "sph" and len(b) > 1 and abs(float(b[1]) - 8.0) < 0.3 and not rec.group:
                rows.append((("ball", "1", "in" if male else "on"), _frame(f, p, a), 0.0))
                continue
            what = rec.group or (b[0] + "".join("-" + x for x in b[1:]))
            rows.append((("ldcad", f"gen-{what}", "in" if male else "on"), _frame(f, p, a), 0.0))
    # an F r4 bore inside a stud is the stud's open bore: the stud becomes an open stud
    drop = set()
    for k, s0, a in bores:
        for i, (lab, fr, _) in enumerate(rows):
            if lab != ("stud", "stud", None):
                continue
            ax = -fr[:3, 1]
            d = s0 - fr[:3, 3]
            along = d @ ax
            if abs(a @ ax) > 0.99 and -0.5 <= along <= 6.5 and np.linalg.norm(d - along * ax) < 0.5:
                rows[i] = (("stud", "open", None), fr, 0.0)
                drop.add(k)
    return _dedupe([r for i, r in enumerate(rows) if i not in drop])


def _runs(secs: list) -> list[tuple[str, float, float]]:
    """Runs of consecutive sections of one kind: ``(cat, start, end)`` LDU along the axis, ``cat``
    ``"A"`` (axle cross), ``"6"`` (stud radius) or ``"4"`` (bar radius); other radii (pin collars,
    counterbores, round bosses) separate runs and map to nothing when a run exists."""
    out = []
    t = 0.0
    for shape, r, ln in secs:
        cat = "A" if shape == "A" else "6" if _near(r, STUD_RADIUS) else "4" if _near(r, BAR_RADIUS) else None
        if cat is not None and out and out[-1][0] == cat and abs(out[-1][2] - t) < 1e-9:
            out[-1] = (cat, out[-1][1], t + ln)
        elif cat is not None:
            out.append((cat, t, t + ln))
        t += ln
    return out


def _dedupe(rows: list) -> list:
    """Drop rows repeating an earlier one (same label and length, position and axis equal to
    0.05 LDU / 0.05 after rounding): a part drawing a primitive and describing the same hot spot itself."""
    out, seen = [], set()
    for row in rows:
        lab, fr, ln = row
        key = (lab, round(ln * 20), *np.round(fr[:3, 3] * 20).astype(int).tolist(),
               *np.round(fr[:3, 1] * 20).astype(int).tolist())
        if key in seen:
            continue
        seen.add(key)
        out.append(row)
    return out


def _frame(f: np.ndarray, pos: np.ndarray, axis: np.ndarray) -> np.ndarray:
    """``f`` (orthonormal) moved to ``pos``; turned half a turn about its X column when ``axis`` is
    its +Y column (connector axis pointing the other way)."""
    out = f.copy()
    out[:3, 3] = pos
    if float(axis @ f[:3, 1]) > 0:
        out[:3, 1:3] *= -1.0
    return out


def build_ldcad_table(library, shadow_root: Path, stems: list[str] | None = None) -> dict:
    """Connector rows of every part (or of ``stems``) from the shadow library.

    Parameters
    ----------
    library : LDrawLibrary
    shadow_root : Path
        The shadow library folder (holds ``parts/`` and ``p/``).
    stems : list of str, optional
        Part stems (``"3001"``); default every top-level part file of the library.

    Returns
    -------
    dict of str to list
        Stem -> :func:`connector_rows` output; parts without snap information are left out.
    """
    res = _Resolver(library, shadow_root)
    if stems is None:
        stems = [name.removesuffix(".dat") for name, _ in library.part_files()]
    out = {}
    for stem in stems:
        recs, frames, extra = res.resolve(stem + ".dat")
        if recs:
            rows = connector_rows(recs, frames, extra)
            if rows:
                out[stem] = rows
    return out


class PartRowReader:
    """Connector rows of single parts from the shadow library, for when the whole table
    (:func:`build_ldcad_table`, every part file read: 10 s to a minute) is not cached yet.

    Parameters
    ----------
    library : LDrawLibrary
    shadow_root : Path
        The shadow library folder (holds ``parts/`` and ``p/``).

    The files read (parts, sub-parts, primitives and their shadow files) are memoised, so the parts of a
    model share their primitives' work. Rows are those :func:`build_ldcad_table` gives for the same part.
    """

    def __init__(self, library, shadow_root: Path):
        self._res = _Resolver(library, shadow_root)
        self._parts = {name.removesuffix(".dat") for name, _ in library.part_files()}

    def has_part(self, stem: str) -> bool:
        """Whether ``stem`` (``"3001"``) is one of the library's top-level part files (``parts/``, not ``s/``
        sub-parts nor primitives): the files the whole table is made of."""
        return stem in self._parts

    def rows(self, stem: str) -> list:
        """:func:`connector_rows` of part ``stem`` (``"3001"``); an empty list when it has no snap information
        or is not one of the library's top-level part files (the table holds only those)."""
        if stem not in self._parts:
            return []
        recs, frames, extra = self._res.resolve(stem + ".dat")
        return connector_rows(recs, frames, extra) if recs else []
