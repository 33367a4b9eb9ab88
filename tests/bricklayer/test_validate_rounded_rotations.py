"""Rotation matrices rounded in the file do not make a collision depend on which part is the reference.

Official files round rotation matrices to 3-4 decimals; composed through turned sub-models they are no
longer rotations (singular values up to 1.0004). 10030 Imperial Star Destroyer places a half pin 4274
(line 2391) under plate 4282 (line 3310) in a sub-model turned 5 and 9 degrees; the audit (``benchmarks/validator_audit.md``, round 5) measures the pin 0.98 LDU inside the plate
with its own mesh reader and winding numbers. With the transpose as the inverse of such a matrix, FCL said
"no" from the pin's frame and "yes" from the plate's, so the pair was reported or not by the order of a
hash. ``bricklayer.validate.fcl.inv_rigid`` now takes the exact inverse. The snippet is the two parts'
world matrices as composed from the file (6 significant digits, -Y up, LDU).
"""

from __future__ import annotations

from bricklayer import from_ldraw
from brickwright.validation import validation_report

_PIN = ("1 1 -596.888 -192.257 -215.038 0.013494 -0.996198 0.086661 0.155733 0.087609 0.984072 "
        "-0.988 0 0.156 4274.dat\n")
_PLATE = ("1 8 -735.354 -168.955 -221.375 0.996198 -0.013494 -0.086661 -0.087609 -0.155733 -0.984072 "
          "0 0.988 -0.156 4282.dat\n")


def _pairs(text: str) -> list[tuple[int, int]]:
    return [(c["a"]["line"], c["b"]["line"]) for c in validation_report(from_ldraw(text))["collisions"]]


def test_half_pin_in_a_plate_of_a_turned_submodel_is_a_collision_with_the_pin_first():
    assert _pairs(_PIN + _PLATE) == [(1, 2)]


def test_half_pin_in_a_plate_of_a_turned_submodel_is_a_collision_with_the_plate_first():
    assert _pairs(_PLATE + _PIN) == [(1, 2)]


def test_the_same_pair_moved_to_the_origin_is_a_collision_too():
    # the same relative pose near the origin: the distance is not the cause, the rounded rotation is
    pin = _PIN.replace("-596.888 -192.257 -215.038", "0 0 0")
    plate = _PLATE.replace("-735.354 -168.955 -221.375", "-138.466 23.302 -6.337")
    assert _pairs(pin + plate) == [(1, 2)]


def test_a_flattened_part_beside_another_is_checked_without_error():
    # a singular matrix (y row zero: a part squashed flat, as some official files draw stickers) has no
    # inverse; such a transform keeps the transpose and the catalog checks report the scaling
    rep = validation_report(from_ldraw("1 4 0 0 0 1 0 0 0 0 0 0 0 1 3001.dat\n"
                                       "1 4 0 -24 0 1 0 0 0 1 0 0 0 1 3001.dat\n"))
    assert rep["collisions"] == []
