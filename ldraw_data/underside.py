"""Anti-studs of a plate-thick open underside, derived from the part's drawing.

Situation: a part whose underside is an open cavity as tall as a stud (a plate's underside: the
ceiling 4 LDU above the bottom face, closed all round by a rim or walls) takes a stud at every
point of its stud grid where the stud fits, whether or not a tube or an inner wall grips it there.
The connector sources describe such undersides by the grid points they list, and some lists stop
short of the rim: ``part_connectors('6177')`` (Plate 8 x 8 Round) lists anti-studs out to radius
58.3 LDU (LDCad's grids of ``s/6177s01.dat``: 4 x 6 and 2 x 4 points inside the cross-shaped inner
wall), while the part's underside, closed by the round rim at radius 76 (``48\\4-4cyli.dat`` scaled
76 in ``s/6177s01.dat``), also takes studs between the inner wall and the rim, at (70, 10),
(50, 50) and so on. 10019 Rebel Blockade Runner seats a corner panel 30562's studs there (audit
round 6, entry C1, ``benchmarks/validator_audit.md``).

Rule ("a stud seated in a plate-thick underside fits inside its rim"): for every group of
anti-stud rows of a part (``antistud`` connectors on one seat plane, with one axis; at least
:data:`MIN_GRID_ROWS`, all on one grid), each point of their 20 LDU grid (the stud pitch; the grid
of the group's first row, along its frame's x and z columns) that no row of the part already occupies (within :data:`OCCUPIED_LDU`) becomes an
``antistud`` when the part's drawing (its mesh, :func:`ldraw_data.mesh.part_mesh`; nothing is read
from the part's name) shows a stud there would be seated:

- **ceiling**: rays from the seat plane along the mating axis, at the stud's axis and at
  :data:`CEILING_PROBES` points on a circle of radius :data:`CEILING_PROBE_RADIUS_LDU`, first meet
  the part at the stud's height (:data:`STUD_HEIGHT_LDU`, within :data:`CEILING_TOLERANCE_LDU`):
  the stud's tip stops on the underside's ceiling. A taller cavity (a brick's) holds a stud only
  where a tube or wall grips it, which the sources list; a point inside solid material or outside
  the part has no ceiling at that height.
- **enclosed and free**: rays across the axis, in :data:`SIDE_DIRECTIONS` directions at
  :data:`SIDE_HEIGHTS_LDU` above the seat plane, meet the part nowhere nearer than the stud's radius
  (:data:`STUD_RADIUS_LDU`) less :data:`FIT_TOLERANCE_LDU` (the stud's wall overlaps the drawing by at
  most that much), and at the middle height all meet it somewhere (the rim closes the cavity all
  round: a point beyond the part's edge is open on one side).
- **located**: the nearest of those hits lies within :data:`TOUCH_LDU` of the stud's wall (it leans
  on the rim, a wall or a tube); a point loose in a wide cavity is left out.
- **open below**: rays across the axis at :data:`OPEN_BELOW_HEIGHTS_LDU` below the seat plane meet
  nothing nearer than :data:`OPEN_BELOW_LDU` (the cell of the part the stud stands on).

Only seat planes with at least :data:`MIN_GRID_ROWS` listed rows, all on one grid, are gridded.
Cost: one mesh (disk-cached) per part with anti-stud rows, and rays only where grid points are free:
median 1 ms a part, 6177 0.12-0.27 s, boat base 2560 1 s (1,103 parts of the official models, warm caches);
the rows are then kept on disk (:class:`_DiskCache`), so a later process reads them back.

:data:`FIT_TOLERANCE_LDU` is the stud press-fit allowance of the validator
(``bricklayer.validate.press_fit.PRESS_FIT_ALLOWANCE["stud"]``, 1 LDU): LDraw draws a round plate's
rim as a 48-sided polygon 4 LDU thick where the real wall is about 3 LDU (1.2 mm), so a stud the
real part takes at 70.7 LDU from the centre (its wall at 76.7) is drawn 0.7-0.85 LDU into the
polygon at radius 76; the anti-stud derived here mates it, and the allowance then excuses that
overlap. A stud that would be pressed deeper (the grid point (70, 30) of 6177: wall at 82.2, beyond
the rim) gets no anti-stud.
"""

from __future__ import annotations

__all__ = ["underside_antistuds", "STUD_RADIUS_LDU", "STUD_HEIGHT_LDU", "GRID_LDU", "FIT_TOLERANCE_LDU",
           "CEILING_TOLERANCE_LDU", "OCCUPIED_LDU"]

import atexit
import hashlib
import json
import logging
import threading

import numpy as np

from .rays import first_ray_hits

log = logging.getLogger(__name__)

#: Radius of a stud (LDU): ``stud.dat`` draws its wall as ``4-4cyli.dat`` scaled 6 (LEGO's 4.8 mm stud).
STUD_RADIUS_LDU = 6.0
#: Height of a stud above its shoulder (LDU): ``stud.dat``'s cylinder is 4 LDU tall (1.6 mm).
STUD_HEIGHT_LDU = 4.0
#: Stud pitch (LDU): 8 mm, the grid of studs and anti-studs.
GRID_LDU = 20.0
#: How far (LDU) a stud's wall may be drawn into the part and still fit: the validator's stud press-fit
#: allowance (module notes).
FIT_TOLERANCE_LDU = 1.0
#: How far (LDU) the ceiling may lie from the stud's tip (a plate's ceiling is drawn 4 LDU above its bottom
#: face; a brick's 20 LDU, a tile's 4 LDU).
CEILING_TOLERANCE_LDU = 0.5
#: A grid point within this distance (LDU) of a connector row of the part is occupied (the same place as the
#: merge of the sources, ``ldraw_data.connectors._MERGE_POS``).
OCCUPIED_LDU = 2.0
#: Rays up to the ceiling: at the axis and on a circle of this radius (LDU), this many.
CEILING_PROBE_RADIUS_LDU = 3.0
CEILING_PROBES = 6
#: Rays across the axis: directions per height, and heights above the seat plane (LDU).
SIDE_DIRECTIONS = 32
SIDE_HEIGHTS_LDU = (0.5, 2.0, 3.5)
#: Located: the stud's wall comes within this distance (LDU) of the drawing somewhere (the rim, an inner wall
#: or a tube it leans on); a grid point loose in a wide cavity, touching nothing, is left out.
TOUCH_LDU = 0.5
#: Open below: rays across the axis at these heights below the seat plane (LDU, negative: away from the part)
#: meet nothing nearer than :data:`OPEN_BELOW_LDU` (half the pitch: the cell of the mating stud, which the
#: part it stands on fills up to the seat plane).
OPEN_BELOW_HEIGHTS_LDU = (-0.5, -2.0, -4.0)
OPEN_BELOW_LDU = GRID_LDU / 2 - 0.5
#: Anti-stud rows on one seat plane: their offsets along the axis agree within this (LDU), axes within
#: cosine 0.999.
_PLANE_LDU = 0.05
_AXIS_COS = 0.999
#: A seat plane is gridded only when the sources list at least this many anti-studs on it, all on one grid: a
#: single row may sit half a pitch off the stud grid (44569's one anti-stud at x = 0 under a tile whose studs
#: would stand at x = +-10, +-30), and a grid taken from it would mate studs half a pitch off.
MIN_GRID_ROWS = 2
#: Rows of one plane lie on one grid when their offsets along the grid's axes are whole pitches within
#: this (LDU).
_ON_GRID_LDU = 0.1


def _first_hits(origins: np.ndarray, dirs: np.ndarray, tris: np.ndarray) -> np.ndarray:
    """Distance (LDU) along each ray to the first triangle it meets, ``inf`` where none
    (:func:`ldraw_data.rays.first_ray_hits`)."""
    return first_ray_hits(origins, dirs, tris)[0]


def _fits(c: np.ndarray, axis: np.ndarray, u: np.ndarray, v: np.ndarray, band: np.ndarray, band_uv: np.ndarray,
          below: np.ndarray, tris: np.ndarray, tri_uv: np.ndarray) -> bool:
    """A stud with its shoulder at ``c`` (part frame, LDU), entering along ``axis`` (unit), would sit in the
    underside (module notes: ceiling, enclosed and free, located, open below). ``band``: the triangles that reach
    the stud's height band above the seat plane (``band_uv`` their in-plane boxes); ``below``: those that
    reach below it; ``tri_uv``: (n, 2, 2) in-plane [min, max] box of every triangle."""
    # ceiling: rays from just below the seat plane (so the stud's own bottom face is not met) along the axis
    ang = np.arange(CEILING_PROBES) * (2 * np.pi / CEILING_PROBES)
    ring = CEILING_PROBE_RADIUS_LDU * (np.cos(ang)[:, None] * u + np.sin(ang)[:, None] * v)
    starts = c - 0.5 * axis + np.vstack([np.zeros(3), ring])
    cu, cv = float(c @ u), float(c @ v)
    r = CEILING_PROBE_RADIUS_LDU + 0.1
    near = ((tri_uv[:, 0, 0] <= cu + r) & (tri_uv[:, 1, 0] >= cu - r)
            & (tri_uv[:, 0, 1] <= cv + r) & (tri_uv[:, 1, 1] >= cv - r))
    d = _first_hits(starts, np.broadcast_to(axis, starts.shape).copy(), tris[near]) - 0.5
    if not np.all(np.abs(d - STUD_HEIGHT_LDU) <= CEILING_TOLERANCE_LDU):
        return False
    # free and located: rays across the axis at a few heights, against the triangles within reach of the
    # stud's wall; enclosed: the same rays at mid-height meet the part somewhere (the rim closes the cavity)
    ang = np.arange(SIDE_DIRECTIONS) * (2 * np.pi / SIDE_DIRECTIONS)
    dirs = np.cos(ang)[:, None] * u + np.sin(ang)[:, None] * v
    reach = STUD_RADIUS_LDU + TOUCH_LDU + 0.1
    bu, bv = band_uv[:, :, 0], band_uv[:, :, 1]
    close = band[(bu[:, 0] <= cu + reach) & (bu[:, 1] >= cu - reach) & (bv[:, 0] <= cv + reach) & (bv[:, 1] >= cv - reach)]
    touch = np.inf
    for h in SIDE_HEIGHTS_LDU:
        o = np.broadcast_to(c + h * axis, dirs.shape).copy()
        d = _first_hits(o, dirs, close)
        if d.min() < STUD_RADIUS_LDU - FIT_TOLERANCE_LDU:
            return False
        touch = min(touch, float(d.min()))
    if touch > STUD_RADIUS_LDU + TOUCH_LDU:  # loose in the cavity: nothing locates the stud
        return False
    mid = SIDE_HEIGHTS_LDU[len(SIDE_HEIGHTS_LDU) // 2]
    if not np.all(np.isfinite(_first_hits(np.broadcast_to(c + mid * axis, dirs.shape).copy(), dirs, band))):
        return False
    # open below: the mating part's cell under the seat plane is free of the part's drawing
    for h in OPEN_BELOW_HEIGHTS_LDU:
        o = np.broadcast_to(c + h * axis, dirs.shape).copy()
        if _first_hits(o, dirs, below).min() < OPEN_BELOW_LDU:
            return False
    return True


#: Bump when the rule changes in a way its numbers do not show: older cache files are then ignored.
_CACHE_VERSION = 1
#: New results kept in memory before the cache file is rewritten (the rest at exit).
_SAVE_BATCH = 64


class _DiskCache:
    """Derived rows kept on disk, ``cache_dir()/connectors/underside-v<N>-<library fingerprint>.json``: a
    part's rows cost a mesh and some rays (1 ms to 1 s), its look-up a dictionary access. Keyed on the part,
    its rows from the other sources and the rule's numbers, so a change of either is worked out again.
    Written atomically, merged with what other processes wrote meanwhile."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.rows: dict[str, list] | None = None
        self.new = 0
        self.path = None

    def _load(self) -> dict:
        if self.rows is None:
            self.rows = {}
            try:
                from .library import cache_dir, get_library

                lib = get_library()
                self.path = cache_dir() / "connectors" / f"underside-v{_CACHE_VERSION}-{lib.fingerprint[:16]}.json"
                self.rows = self._read()
            except Exception as exc:  # no library or no cache folder: work without the disk
                log.debug("underside cache unavailable: %s", exc)
                self.path = None
        return self.rows

    def _read(self) -> dict:
        if self.path is None or not self.path.is_file():
            return {}
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            return data if isinstance(data, dict) else {}
        except (OSError, ValueError) as exc:
            from .fileio import discard_cache_file

            discard_cache_file(self.path, "underside anti-stud", exc)
            return {}

    def get(self, key: str):
        with self.lock:
            return self._load().get(key)

    def put(self, key: str, rows: list) -> None:
        with self.lock:
            self._load()[key] = rows
            self.new += 1
            if self.new >= _SAVE_BATCH:
                self._save()

    def _save(self) -> None:
        if self.path is None or not self.new:
            return
        from .fileio import atomic_write

        try:
            merged = {**self._read(), **self.rows}
            atomic_write(self.path, json.dumps(merged, separators=(",", ":")))
            self.new = 0
        except OSError as exc:
            log.warning("could not write %s: %s", self.path, exc)

    def save(self) -> None:
        with self.lock:
            self._save()


_CACHE = _DiskCache()
atexit.register(_CACHE.save)


def _cache_key(part_id: str, frames: np.ndarray, kinds: list) -> str:
    """Part id, a digest of its rows from the other sources and of the rule's numbers."""
    rule = (STUD_RADIUS_LDU, STUD_HEIGHT_LDU, GRID_LDU, FIT_TOLERANCE_LDU, CEILING_TOLERANCE_LDU, OCCUPIED_LDU,
            CEILING_PROBE_RADIUS_LDU, CEILING_PROBES, SIDE_DIRECTIONS, tuple(SIDE_HEIGHTS_LDU), TOUCH_LDU,
            tuple(OPEN_BELOW_HEIGHTS_LDU), OPEN_BELOW_LDU, MIN_GRID_ROWS)
    h = hashlib.sha1(np.round(frames, 3).astype(np.float64).tobytes())
    h.update(("|".join(kinds) + repr(rule)).encode())
    return f"{part_id.lower().removesuffix('.dat')}|{h.hexdigest()[:16]}"


def underside_antistuds(part_id: str, frames: np.ndarray, kinds: list) -> np.ndarray:
    """Anti-stud frames a part's plate-thick open underside takes beyond its listed ones (module notes).

    Parameters
    ----------
    part_id : str
        LDraw part id (``"6177"``, ``"6177.dat"``); its drawing is read with
        :func:`ldraw_data.mesh.part_mesh`.
    frames : (k, 4, 4) float
        The part's connector frames from the other sources (part frame, LDU; the -Y column is the
        mating axis, ``ldraw_data.connectors`` module notes).
    kinds : list of str, length k
        Each row's connector type name (``"antistud"``, ``"tube"``, ``"stud"``...). Only ``antistud``
        rows start a grid; every row occupies its place.

    Returns
    -------
    (m, 4, 4) float
        Frames of the derived anti-studs (each a copy of its group's first row's frame, moved to the
        grid point), in grid order; (0, 4, 4) when the part has no anti-stud rows, no drawing, or no
        free grid point.
    """
    frames = np.asarray(frames, dtype=np.float64)
    if "antistud" not in kinds:
        return np.zeros((0, 4, 4))
    key = _cache_key(part_id, frames, list(kinds))
    hit = _CACHE.get(key)
    if hit is not None:
        return np.asarray(hit, dtype=np.float64).reshape(-1, 4, 4)
    out = _derive(part_id, frames, list(kinds))
    _CACHE.put(key, np.round(out, 6).tolist())
    return out


def _derive(part_id: str, frames: np.ndarray, kinds: list) -> np.ndarray:
    """:func:`underside_antistuds` without the disk cache."""
    out = np.zeros((0, 4, 4))
    rows = [i for i, k in enumerate(kinds) if k == "antistud"]
    from .errors import LDrawError
    from .mesh import part_mesh

    try:
        mesh = part_mesh(part_id)
    except (LDrawError, OSError) as exc:  # no drawing: nothing to derive from
        log.debug("underside anti-studs of %s: no mesh (%s)", part_id, exc)
        return out
    if mesh.is_empty:
        return out
    tris = mesh.triangles.astype(np.float64)
    verts = tris.reshape(-1, 3)
    taken = frames[:, :3, 3]
    found: list[np.ndarray] = []
    done: list[tuple[np.ndarray, float]] = []  # (axis, offset) of the seat planes already gridded
    for i in rows:
        f = frames[i]
        axis = -f[:3, 1] / np.linalg.norm(f[:3, 1])
        p0 = f[:3, 3]
        off = float(p0 @ axis)
        if any(float(a @ axis) >= _AXIS_COS and abs(o - off) <= _PLANE_LDU for a, o in done):
            continue
        done.append((axis, off))
        u = f[:3, 0] / np.linalg.norm(f[:3, 0])
        v = np.cross(u, axis)
        # the plane's anti-stud rows must all lie on one grid: rows half a pitch apart (a jumper's centre
        # hole beside a plate's grid) leave the plane alone
        same = [k for k in rows if float(-frames[k, :3, 1] @ axis) / np.linalg.norm(frames[k, :3, 1]) >= _AXIS_COS
                and abs(float(frames[k, :3, 3] @ axis) - off) <= _PLANE_LDU]
        g = (frames[same, :3, 3] - p0) @ np.stack([u, v], axis=1) / GRID_LDU
        if len(same) < MIN_GRID_ROWS or np.abs(g - np.round(g)).max() * GRID_LDU > _ON_GRID_LDU:
            continue
        # grid points whose stud footprint lies within the drawing's extent on the seat plane
        pu, pv = (verts - p0) @ u, (verts - p0) @ v
        lo_i = int(np.ceil((pu.min() + STUD_RADIUS_LDU) / GRID_LDU))
        hi_i = int(np.floor((pu.max() - STUD_RADIUS_LDU) / GRID_LDU))
        lo_j = int(np.ceil((pv.min() + STUD_RADIUS_LDU) / GRID_LDU))
        hi_j = int(np.floor((pv.max() - STUD_RADIUS_LDU) / GRID_LDU))
        if hi_i < lo_i or hi_j < lo_j:
            continue
        ii, jj = np.meshgrid(np.arange(lo_i, hi_i + 1), np.arange(lo_j, hi_j + 1), indexing="ij")
        pts = p0 + GRID_LDU * (ii.ravel()[:, None] * u + jj.ravel()[:, None] * v)
        gone = np.linalg.norm(pts[:, None, :] - taken[None, :, :], axis=2).min(axis=1) <= OCCUPIED_LDU
        pts = pts[~gone]
        if not len(pts):
            continue
        h = (tris - p0) @ axis  # (n, 3) height of every vertex above the seat plane
        in_band = (h.max(axis=1) >= min(SIDE_HEIGHTS_LDU) - 1e-6) & (h.min(axis=1) <= max(SIDE_HEIGHTS_LDU) + 1e-6)
        below = tris[h.min(axis=1) <= max(OPEN_BELOW_HEIGHTS_LDU, default=0.0) + 1e-6]
        tu, tv = tris @ u, tris @ v
        tri_uv = np.stack([np.stack([tu.min(axis=1), tv.min(axis=1)], axis=1),
                           np.stack([tu.max(axis=1), tv.max(axis=1)], axis=1)], axis=1)
        band, band_uv = tris[in_band], tri_uv[in_band]
        for c in pts:
            if _fits(c, axis, u, v, band, band_uv, below, tris, tri_uv):
                g = f.copy()
                g[:3, 3] = c
                found.append(g)
    return np.stack(found) if found else out
