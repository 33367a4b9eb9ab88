"""Meshing gears (issue 16, item 12): pairs cut from official models, in their world poses (LDraw
frame, LDU), are gear meshes of kind ``gear`` with their tooth ratio, not collisions; the same gears
pushed into each other, or meshed at the wrong distance, stay collisions."""

import numpy as np
import pytest

from bricklayer import from_ldraw
from bricklayer.validate import gear_meshes, validation_report
from bricklayer.validate.gears import gear_spec
from ldraw_data.connectors import JointKind

# (source, kind, teeth a -> b ratio, line a, line b)
MESHES = [
    ("10212 subModel-7 l.762 / subModel-8 l.782", "spur", 40 / 24,
     "1 16 74 -130 280 -0.995 0.105 0 -0.105 -0.995 0 0 0 1 3648b.dat",
     "1 16 -6 -130 280 0.8 0.6 0 0.6 -0.8 0 0 0 -1 3649.dat"),
    ("75144 main l.502 / subModel-016 l.3012", "spur", 1.0,
     "1 16 0 -86 -70 1 0 0 0 1 0 0 0 1 10928.dat",
     "1 16 -20 -86 -70 1 0 0 0 -1 0 0 0 -1 10928.dat"),
    ("10240 subModel-1 l.338 / subModel-25 l.1087", "spur", 20 / 12,
     "1 16 0 -54 370 -1 0 0 0 1 0 0 0 -1 32270.dat",
     "1 16 0 -14 370 1 0 0 0 1 0 0 0 1 32269.dat"),
    ("10212 subModel-4 l.676 / subModel-7 l.757", "bevel", 20 / 12,
     "1 16 104 -130 70 0 0 -1 0 1 0 1 0 0 32270.dat",
     "1 16 74 -130 90 -0.995 0.105 0 -0.105 -0.995 0 0 0 1 32269.dat"),
    ("75144 main l.508 / subModel-027 l.3161", "bevel", 1.0,
     "1 16 0 -86 -37 0 -1 0 1 0 0 0 0 1 6589.dat",
     "1 16 0 -103 -20 -1 0 0 0 0 1 0 1 0 6589.dat"),
    ("75144 subModel-058 l.3713 / subModel-065 l.3825", "bevel", 12 / 20,
     "1 16 -228.58 -94.242 -30 -0.4163 0.1816 -0.891 -0.817 0.3564 0.454 0.4 0.917 0 32198.dat",
     "1 16 -213.433 -101.958 -3 0.891 -0.454 0 -0.454 -0.891 0 0 0 -1 6589.dat"),
    ("10212 subModel-2 l.655 / subModel-5 l.728", "worm", 24.0,
     "1 16 134 -90 70 1 0 0 0 1 0 0 0 1 4716.dat",
     "1 16 134 -130 70 0 0 1 0 1 0 -1 0 0 3648b.dat"),
    ("10240 subModel-8 l.531 / l.540", "worm", 1 / 24,
     "1 16 0 -14 100 0 0 1 0.7071 -0.7071 0 0.7071 0.7071 0 3648b.dat",
     "1 16 0 -54 100 -1 0 0 0 -1 0 0 0 1 4716.dat"),
]


def _moved(line: str, shift) -> str:
    tok = line.split()
    xyz = np.array([float(v) for v in tok[2:5]]) + np.asarray(shift, dtype=float)
    return " ".join(tok[:2] + [f"{v:g}" for v in xyz] + tok[5:])


def _centre(line: str) -> np.ndarray:
    return np.array([float(v) for v in line.split()[2:5]])


@pytest.mark.parametrize("src, kind, ratio, a, b", MESHES, ids=[m[0] for m in MESHES])
def test_meshing_gears_are_a_gear_connection_not_a_collision(src, kind, ratio, a, b):
    build = from_ldraw(f"{a}\n{b}\n")
    r = validation_report(build).to_dict()
    assert not r["collisions"], r["collisions"]
    (mesh,) = gear_meshes(build)
    assert (mesh.a, mesh.b, mesh.form) == (0, 1, kind)
    assert mesh.ratio == pytest.approx(ratio) and mesh.kind is JointKind.GEAR


@pytest.mark.parametrize("src, kind, ratio, a, b", MESHES, ids=[m[0] for m in MESHES])
def test_gears_pushed_together_stay_collisions(src, kind, ratio, a, b):
    towards = _centre(a) - _centre(b)
    towards /= np.linalg.norm(towards)
    build = from_ldraw(f"{a}\n{_moved(b, 2.5 * towards)}\n")  # 2.5 LDU deeper than the mesh
    r = validation_report(build).to_dict()
    assert len(r["collisions"]) == 1 and not gear_meshes(build)


@pytest.mark.parametrize("a, b", [
    ("1 16 0 0 0 1 0 0 0 1 0 0 0 1 3648b.dat", "1 16 50 0 0 1 0 0 0 1 0 0 0 1 3648b.dat"),  # 24+24 at 50, not 60
    ("1 16 0 0 0 1 0 0 0 1 0 0 0 1 3648b.dat", "1 16 36 0 0 1 0 0 0 1 0 0 0 1 3647.dat"),   # 24+8 at 36, not 40
    ("1 16 0 0 0 1 0 0 0 1 0 0 0 1 3648b.dat", "1 16 40 0 6 1 0 0 0 1 0 0 0 1 3647.dat"),   # 24+8, 6 LDU out of plane
])
def test_gears_at_the_wrong_distance_collide(a, b):
    build = from_ldraw(f"{a}\n{b}\n")
    assert len(validation_report(build).to_dict()["collisions"]) == 1 and not gear_meshes(build)


def test_gear_specs_from_catalog_names():
    assert gear_spec("3648b").teeth == 24 and gear_spec("3648b").radius == 30.0  # module 1 mm: 12 mm
    assert gear_spec("32269").form == "double_bevel" and gear_spec("6589").form == "bevel"
    assert gear_spec("4716").form == "worm" and gear_spec("3001") is None
