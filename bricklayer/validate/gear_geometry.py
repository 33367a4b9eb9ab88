"""Meshing gears: teeth drawn interleaved at the distance their pitch radii give are a gear mesh,
a connection of kind ``gear`` (:attr:`ldraw_data.connectors.JointKind.GEAR`) recording the tooth
ratio, not a collision (issue 16, item 12).

Gears are recognised by their catalog names ("Technic Gear 24 Tooth ...", "... Double Bevel",
"... Bevel", "Technic Worm Gear ..."); every LDraw Technic gear is drawn with its axle along the
part's Z axis through its origin (the axle hole's connector, BrickNet and LDCad). LEGO Technic gears
have module 1 mm: the pitch radius of an ``n``-tooth gear is ``n / 2`` mm = ``1.25 n`` LDU, so two
gears on parallel axles mesh at ``1.25 (n1 + n2)`` LDU (8 + 24 teeth at 2 studs, 24 + 24 at 3,
12 + 20 double bevel at 2). Measured on the official models (benchmarks/official_report.md, the
gear pairs the validator reported before this module):

- parallel axles (spur, double bevel): centre distance across the axles ``1.25 (n1 + n2)``
  (8 + 8 teeth 10928 in 75144 Snowspeeder: 20.0 LDU; 12 + 20 double bevel 32270 / 32269 in 10240
  X-Wing: 40.0), the two gears' mid-planes within :data:`PLANE_TOL` of each other;
- crossed, intersecting axles (bevel, double bevel): each gear's origin lies ``r_other + o`` from
  the point where the axles cross, ``o`` = 5 LDU for double bevel gears (12 + 20 double bevel in
  10212 Imperial Shuttle: 30.0 and 20.0 LDU) and 2 LDU for single bevel gears (12 + 12 bevel 6589 in
  75144: 17.0 and 17.0; 20 bevel 32198 + 12 bevel 6589: 17.0 and 27.0);
- a worm (4716) and a gear on crossed, skew axles: axle distance ``r_gear + 10`` LDU (worm pitch
  radius 4 mm; 24 teeth 3648b in 10212 and 10240: 40.0), the gear's mid-plane through the worm's
  axis and the contact within the worm's length.

Distances must hold within :data:`DISTANCE_TOL` (1 LDU): gears pushed into each other, or at the
wrong distance, stay collisions. A gear mesh does not hold a part (each gear is held by its axle),
so it adds no edge to the connection graph's components; :func:`.gears.gear_meshes` lists them.

This module holds the rules, on candidate pairs (:func:`mesh_pairs`, used by the press-fit stage);
:mod:`.gears` takes the candidates of a whole build from the collision engine.
"""

from __future__ import annotations

__all__ = ["GearSpec", "GearMesh", "gear_spec", "gear_mesh", "mesh_pairs", "DISTANCE_TOL", "PLANE_TOL"]

import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

#: Pitch radius per tooth (LDU): module 1 mm, radius n/2 mm, 1 mm = 2.5 LDU.
RADIUS_PER_TOOTH = 1.25
#: Worm gear pitch radius (LDU): 4 mm (module notes).
WORM_RADIUS = 10.0
#: Offset (LDU) of a bevel gear's origin from its pitch circle's plane (module notes, measured).
BEVEL_OFFSET = {"bevel": 2.0, "double_bevel": 5.0}
#: Tolerance (LDU) of the mesh distances.
DISTANCE_TOL = 1.0
#: Largest offset (LDU) between the mid-planes of two spur gears that mesh (teeth 4-8 LDU wide).
PLANE_TOL = 4.0
#: Half-length (LDU) of the worm along which the contact may lie (worm 2L: 40 LDU long).
WORM_HALF = 16.0
_PARALLEL_COS = 0.995
_CROSSED_COS = 0.05

_TEETH = re.compile(r"\bgear (\d+) tooth\b")


@dataclass(frozen=True)
class GearSpec:
    """A gear part: ``teeth`` (1 for a worm), ``form`` (``spur``, ``bevel``, ``double_bevel``,
    ``worm``), ``radius`` pitch radius in LDU."""

    teeth: int
    form: str
    radius: float


@dataclass(frozen=True)
class GearMesh:
    """Two meshing gears: placement indices ``a``, ``b`` (as :attr:`LegoBuild.flattened_placements`),
    ``ratio`` = teeth of ``b`` / teeth of ``a`` (``a`` turns ``ratio`` times per turn of ``b``),
    ``form`` ``spur``, ``bevel`` or ``worm``."""

    a: int
    b: int
    ratio: float
    form: str

    @property
    def kind(self):
        """:attr:`ldraw_data.connectors.JointKind.GEAR`."""
        from ldraw_data.connectors import JointKind

        return JointKind.GEAR


@lru_cache(maxsize=None)
def gear_spec(part_id: str) -> GearSpec | None:
    """The gear a part is, from its catalog name; None for any other part (racks, gearboxes, unknown ids)."""
    from ldraw_data.catalog import get_catalog

    cat = get_catalog()
    if part_id not in cat:
        return None
    name = cat.get(part_id).name.lower()
    if "gearbox" in name or "rack" in name or "crown" in name:
        return None
    if "worm" in name and "gear" in name:
        return GearSpec(1, "worm", WORM_RADIUS)
    m = _TEETH.search(name)
    if m is None:
        return None
    n = int(m.group(1))
    form = "double_bevel" if "double bevel" in name else "bevel" if "bevel" in name else "spur"
    return GearSpec(n, form, RADIUS_PER_TOOTH * n)


def gear_mesh(a: GearSpec, ta: np.ndarray, b: GearSpec, tb: np.ndarray) -> str | None:
    """How two placed gears mesh (module rules): ``"spur"``, ``"bevel"``, ``"worm"``, or None.

    Parameters
    ----------
    a, b : GearSpec
    ta, tb : (4, 4) float
        World transforms of the gears' LDraw part frames (axle along the frame's Z column), LDU.
    """
    ca, cb = ta[:3, 3], tb[:3, 3]
    za, zb = ta[:3, 2] / np.linalg.norm(ta[:3, 2]), tb[:3, 2] / np.linalg.norm(tb[:3, 2])
    d = cb - ca
    cos = abs(float(za @ zb))
    if "worm" in (a.form, b.form):
        if a.form == b.form or cos > _CROSSED_COS:
            return None
        (w, cw, zw), (g, cg, zg) = ((a, ca, za), (b, cb, zb)) if a.form == "worm" else ((b, cb, zb), (a, ca, za))
        n = np.cross(zw, zg)
        n /= np.linalg.norm(n)
        e = cg - cw
        if abs(abs(float(e @ n)) - (g.radius + WORM_RADIUS)) > DISTANCE_TOL:
            return None
        if abs(float(e @ zg)) > DISTANCE_TOL or abs(float(e @ zw)) > WORM_HALF:
            return None
        return "worm"
    if cos >= _PARALLEL_COS:
        along = float(d @ za)
        perp = float(np.linalg.norm(d - along * za))
        if abs(along) <= PLANE_TOL and abs(perp - (a.radius + b.radius)) <= DISTANCE_TOL:
            return "spur"
        return None
    if cos <= _CROSSED_COS and a.form in BEVEL_OFFSET and b.form in BEVEL_OFFSET:
        n = np.cross(za, zb)
        n /= np.linalg.norm(n)
        if abs(float(d @ n)) > DISTANCE_TOL:  # the axles must cross
            return None
        # crossing point p = ca + s za = cb + t zb: solve in the least-squares sense
        st = np.linalg.lstsq(np.column_stack([za, -zb]), d, rcond=None)[0]
        da, db = abs(float(st[0])), abs(float(st[1]))
        if abs(da - (b.radius + BEVEL_OFFSET[a.form])) <= DISTANCE_TOL and \
                abs(db - (a.radius + BEVEL_OFFSET[b.form])) <= DISTANCE_TOL:
            return "bevel"
    return None


def _ldraw_transforms(build, idx: np.ndarray) -> np.ndarray:
    """(k, 4, 4) world transforms of the LDraw part frames of placements ``idx`` (build frame, LDU)."""
    from ._world import world_arrays

    wa = world_arrays(build)
    out = np.empty((len(idx), 4, 4))
    for k, i in enumerate(np.asarray(idx).tolist()):
        el = wa.placements[i].content
        out[k] = wa.poses[i] @ np.linalg.inv(el.local_to_ldraw)
    return out


def mesh_pairs(build, pairs: np.ndarray) -> list[GearMesh]:
    """The gear meshes among candidate placement pairs.

    Parameters
    ----------
    build : LegoBuild
    pairs : (m, 2) int array
        Indices into the build's flattened placements (e.g. the collision broad phase's candidates).

    Returns
    -------
    list of GearMesh
        One per pair of gears (:func:`gear_spec`: catalog gears with a known tooth count) whose axes and
        distance mesh by :func:`gear_mesh` (spur: parallel axes at the sum of the pitch radii; bevel:
        crossing axes), with ``ratio`` = teeth of ``b`` / teeth of ``a``; pairs that are not gears, or do
        not mesh, are left out.
    """
    from ._world import world_arrays

    if not len(pairs):
        return []
    wa = world_arrays(build)
    ids = [getattr(p.content, "ldraw_id", None) for p in wa.placements]
    out = []
    for i, j in np.asarray(pairs).tolist():
        if ids[i] is None or ids[j] is None:
            continue
        a, b = gear_spec(ids[i]), gear_spec(ids[j])
        if a is None or b is None:
            continue
        ta, tb = _ldraw_transforms(build, np.array([i, j]))
        form = gear_mesh(a, ta, b, tb)
        if form is not None:
            out.append(GearMesh(int(i), int(j), b.teeth / a.teeth, form))
    return out
