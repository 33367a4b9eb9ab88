"""Units and tolerances of BrickLayer, in one place.

All lengths are in LDraw units (LDU): 1 LDU = 0.4 mm (LDraw spec, "LDraw
units"). The BrickLayer frame is +X right, +Y back, +Z up; grid positions
are whole studs in X/Y and whole plates in Z.
"""

from __future__ import annotations

__all__ = ["LDU", "MM", "STUD", "PLATE", "BRICK", "Tolerances", "TOL"]

from dataclasses import dataclass

#: One LDraw unit, the unit of every length in BrickLayer.
LDU = 1.0
#: Millimetres in LDU (1 LDU = 0.4 mm, LDraw spec).
MM = 2.5
#: Stud pitch: 20 LDU = 8 mm.
STUD = 20
#: Plate height: 8 LDU = 3.2 mm (one third of a brick).
PLATE = 8
#: Brick height without stud: 24 LDU = 9.6 mm.
BRICK = 24


@dataclass(frozen=True)
class Tolerances:
    """Every tolerance BrickLayer uses, each with its reason.

    Attributes
    ----------
    grid : float, LDU
        Distance from the stud grid still accepted as "on grid" (rounding of
        LDraw files written with 2-6 decimals).
    connector_position : float, LDU
        Two connector origins closer than this can mate. BrickNet labels are
        accurate to about this (validator notes: "matching within 0.2 LDU").
    connector_axis_cos : float
        Minimum cosine between mating axes (0.95 ~ 18 degrees, BrickNet
        ``_AXIS_THR``); real sets hold tilted parts drawn with rounded matrices.
    collision_inset : float, LDU
        Inset of every surface before collision tests: 0.1 mm = 0.25 LDU
        (issue #4, validator notes), leaving 0.5 LDU clearance for snap fits.
    ground_band : float, LDU
        Parts whose lowest point is within this band above the lowest point of
        the build count as standing on the ground (a minifigure's feet sit
        2 LDU below a vehicle's tyres in official sets; 4 LDU = half a plate).
    """

    grid: float = 0.05
    connector_position: float = 0.2
    connector_axis_cos: float = 0.95
    collision_inset: float = 0.25
    ground_band: float = 4.0


#: The tolerances in force.
TOL = Tolerances()
