"""Units and tolerances of BrickLayer, in one place.

All lengths are in LDraw units (LDU): 1 LDU = 0.4 mm (LDraw spec, "LDraw
units"). The BrickLayer frame is +X right, +Y back, +Z up; grid positions
are whole studs in X/Y and whole plates in Z.
"""

from __future__ import annotations

__all__ = ["LDU", "MM", "STUD", "PLATE", "BRICK", "Tolerances", "TOL", "CROWDED_PARTNERS", "COINCIDENT_CONNECTORS",
           "SETTLE_LDU", "AXLE_MIN_HALF", "AXLE_MIN_OVERLAP", "SLIDE_END_EPS"]

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
        Two stud-family connector origins (stud, open stud, anti-stud, tube,
        post) closer than this can mate. Measured on the 67 official models
        (``benchmarks/validate.py --tolerances``): of 146,615 anti-studs with a
        compatible stud within 3 LDU, 99.6% lie within 0.2 LDU; between 0.2
        and 0.5 LDU lie 353 more, 75% of them between parts of different
        submodels (positions composed through rounded 3-decimal rotation
        matrices: 1e-4 relative error times 2,000 LDU is 0.2-0.4 LDU); beyond
        0.5 the counts rise again with parts drawn 0.7-1 LDU off. 0.5 LDU is
        half the smallest fault that must be caught (a part shifted 1 LDU), so
        a part shifted 1 LDU or lifted a plate (8 LDU) is never mated.
    joint_position : float, LDU
        The same for hinge, fixed and ball labels (click hinges, minifigure
        hips, wrists, necks, hinge control sticks, tow balls). Their BrickNet
        label origins are off the drawn rotation centres: measured on the
        official models, leg on hip sits 0.35 LDU from its socket (250 of 254
        minifigures), a hand in a wrist up to 0.5, legs turned on the hip up to
        2.0, every hinge control stick 4593 on its base 4592 exactly 2.0 LDU
        (158 of 158). 2.1 LDU keeps them; these types mate only with their own
        partner type, and a part lifted a plate (8 LDU) is still rejected.
    connector_line : float, LDU
        Distance of a sliding connector's origin (axle, pin, bar, clip and
        their holes) from its partner's axis line still accepted (rounded
        matrices of tilted Technic beams); below the 1 LDU shift to catch.
    connector_axis_cos : float
        Minimum cosine between mating axes (0.95 ~ 18 degrees, BrickNet
        ``_AXIS_THR``); real sets hold tilted parts drawn with rounded matrices.
    stud_axis_cos : float
        Minimum cosine between the axes of a stud and the anti-stud or tube it sits in (cos 2.5
        degrees). Measured on the 67 official models (143,792 stud-family pairs within 0.5 LDU):
        99.99% lie within 0.02 degrees of parallel, the worst two at 1.99 degrees (6761 Bandit's
        Secret Hide-Out), none beyond; rounded 3-4 decimal matrices tilt axes by 0.01-0.1 degrees.
        A brick tilted across two towers one plate apart over 5 studs (atan(8/100) = 4.6 degrees)
        is not seated (issue 16 item 6). Other point joints keep ``connector_axis_cos``.
    collision_inset : float, LDU
        Inset of every surface before collision tests: 0.1 mm = 0.25 LDU
        (issue #4, validator notes), leaving 0.5 LDU clearance for snap fits.
    ground_band : float, LDU
        Parts whose lowest point is within this band above the lowest point of
        the build (or of a separate object, see :mod:`bricklayer.validate.support`)
        count as standing on the ground (a minifigure's feet sit 2 LDU below a
        vehicle's tyres in official sets; 4 LDU = half a plate).
    settle_drop : float, LDU
        An object (parts joined by connections, resting contacts or overlaps)
        that reaches no grounded part is lowered as one rigid body by this
        much; what it then meets holds it up (:mod:`bricklayer.validate.support`).
        Official files draw assemblies that sit on others by their weight a
        little high: 10030 Imperial Star Destroyer's 1,246-part superstructure
        first meets the hull when lowered 5 LDU (its 4 x 4 open-centre Technic
        brick 32324 on the slopes 3048b of the 2 x 2 locating post, the frame
        bricks 32018 on the hull wings 30356; measured on the inset collision
        meshes), 10283 Space Shuttle rests on its stand 2 LDU lower. Three
        quarters of a plate, so a part lifted a plate (8 LDU) off its studs
        still floats (and only objects of ``SETTLE_MIN_PARTS`` parts or more settle).
    scale : float
        Largest ``max |R^T R - I|`` of a placement's rotation that is still a
        rotation. Official files round their matrices to 3-4 decimals and
        compose them through sub-models: measured up to 0.06 (10030's tilted
        sub-builds). Above it a placement is scaled (a primitive stretched into
        a rope, or a fault): the planner leaves it out, the report calls it not
        a part.
    """

    grid: float = 0.05
    connector_position: float = 0.5
    joint_position: float = 2.1
    connector_line: float = 0.5
    connector_axis_cos: float = 0.95
    stud_axis_cos: float = 0.99905  # cos(2.5 degrees)
    collision_inset: float = 0.25
    ground_band: float = 4.0
    settle_drop: float = 6.0
    scale: float = 0.1


#: The tolerances in force.
TOL = Tolerances()

#: Largest gap (LDU) between a part's surface and a supported part's surface below it across which a
#: group of unsupported parts still settles onto that part (:func:`bricklayer.validate.support._hair_settle_edges`):
#: official files draw parts a hair above what they rest on. Measured on the validator's inset meshes
#: (first downward move at which they meet, less the two 0.25 LDU insets), on the three such groups
#: left in the audit (benchmarks/validator_audit.md, rounds 2-3): 70814 Emmet's Constructo-Mech slope
#: 61409 (file line 160) 0.1 LDU above the plate 3021 (line 149); 7150 TIE Fighter & Y-wing container
#: 4345b (line 599) 0.5 LDU above the tile 3069b (line 375); 6977 Arachnoid Star Base minifigure hips
#: 3815 (line 490) 0.9 LDU above the chair 4598 (line 336). Twice the largest, a quarter of a plate:
#: a part lifted 3 LDU, or a plate (8 LDU, fault injection "lift"), still floats.
SETTLE_LDU = 2.0


#: Colliding partners of one part after which the validator stops narrow-phase testing that part's further
#: broad-phase candidates (:mod:`bricklayer.validate.collisions`, "parts drawn inside many others"). A file
#: can draw thousands of parts at one place (a 1 KB MPD whose sub-models each place the next one twice,
#: 12 levels deep, places 4,096 copies of a brick; or bricks 1 LDU apart): every pair then collides and
#: testing and reporting all of them costs time and memory in the square of the parts (512 coincident
#: bricks took 57 s and 500 MB). Measured on official models (10179, 10224, 21303, 6285, 75060, 21309,
#: 10252, 6080, 10283, 70814, 1788, 21019, 10030): a part's inset mesh meets at most 11 others (10179
#: Millennium Falcon, press fits of mated parts included), so 32 leaves every real model untouched while a
#: part that meets 32 others is already reported; the pairs left untested are counted ("at least N more
#: pairs not examined") and the verdict stays NOT VALID.
CROWDED_PARTNERS = 32
#: Connectors of one type, pointing the same way, whose origins fall in one 0.5 LDU cell
#: (``TOL.connector_position``) that take part in connector matching
#: (:func:`bricklayer.validate.connections._crowded_connectors`); the rest are ignored. A stud holds one
#: anti-stud: several parts drawn at one place, or stacked on one stud, put their connectors at the
#: same place, where they are overlapping parts, not joints (and matching every one of N coincident
#: connectors with every other costs N squared). Real parts never put two connectors of one type at one
#: place unless the parts overlap; measured on the official models listed for ``CROWDED_PARTNERS``: at
#: most 3 in one cell (all 67 official models). 4 keeps every real joint.
COINCIDENT_CONNECTORS = 4

#: Smallest half-length (LDU) a sliding connector (axle, pin, bar, clip and their holes) counts with when
#: the overlap of two mated sliding connectors is measured (:mod:`bricklayer.validate.connections`, and
#: :func:`bricklayer.connector.slide_limit_studs`): BrickNet's ``_AXLE_DEFAULT_RAD`` (4 LDU).
AXLE_MIN_HALF = 4.0
#: Smallest overlap (LDU) along the axis for two sliding connectors to stay engaged: BrickNet's
#: ``_AXLE_MIN_OVERLAP`` (4 LDU).
AXLE_MIN_OVERLAP = 4.0
#: Sliding joints stay engaged when their overlap is at least :data:`AXLE_MIN_OVERLAP` less this much (LDU):
#: a part slid exactly to the end of its slide and then turned about the axis (``check_motion`` of a
#: hub at its slide limit) computes an overlap of 4 - 1e-13 LDU; the boundary is inclusive.
SLIDE_END_EPS = 1e-3
