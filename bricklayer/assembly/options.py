"""The planner's settings: :class:`PlannerOptions` and the defaults it takes (module constants, read-only).

Each number says where it comes from: a measurement on the official models or a design choice."""

from __future__ import annotations
from ..errors import BrickLayerValueError

import time
from dataclasses import dataclass

import numpy as np

__all__ = ["DIRECTIONS", "SAMPLE_STEP", "TIME_BUDGET", "TURN_ANGLES", "PRESS_LIFTS", "MAX_GROUP", "MAX_HELD", "MAX_BRIDGE",
           "MAX_TURN_GROUP", "MAX_PEEL", "MAX_PEEL_GROUP", "DEFAULT_STRATEGIES", "PlannerOptions"]

#: Insertion directions (direction of motion, BrickLayer frame), in the order tried.
DIRECTIONS = np.array([[0, 0, -1], [1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1]], dtype=np.float64)
_DIR_NAMES = ("down", "+x", "-x", "+y", "-y", "up")
#: Largest gap (LDU) between two samples of an insertion path.
SAMPLE_STEP = 1.0
_PRESS_INSETS = (0.5, 1.0)  # extra inset (LDU) tried for pairs touching at the final pose: stud, then others
#: Default planning time budget per model (seconds), see :func:`assembly_sequence`.
TIME_BUDGET = 60.0
#: Opening angles (degrees about the hinge axis) tried by :meth:`_Geometry.turn_in`, in order: 30 degree
#: steps both ways up to 120 (a design choice: click hinges and canopies open at least that far; the turned
#: turned parts of a cockpit come in opened 30 degrees).
TURN_ANGLES = (30, -30, 60, -60, 90, -90, 120, -120)
#: Heights (LDU) above its place at which a stuck part may slide in before it is pressed straight down onto its
#: studs (:meth:`_Geometry.press_in`): one stud, then two.
PRESS_LIFTS = (4.0, 8.0)
#: Share of the time budget the disassembly search may use; the rest is for the forward check of the
#: parts it did not reach (:meth:`_Search._forward_check`).
_SEARCH_SHARE = 0.75
#: The planner's clock for its time budget: CPU seconds of this process, not wall time, so that a plan
#: does not depend on how busy the machine is (two runs of the same build on a loaded and an idle machine
#: stop at the same point of the search, up to the speed of the CPU).
cpu_clock = time.process_time
#: Share of the search time by which sub-builds (planned first, each in hand) must be planned; a sub-build
#: not done by then is dissolved into its parts, which the top level plans (measured: the sub-builds
#: of a 3,000-part model took 80 s of a 60 s budget, and the top level got none).
_SUB_SHARE = 0.85
#: Largest group turned in on a hinge as one (:func:`~bricklayer.assembly.strategies.turned_group._turned_group`: a lid with what is built on
#: it; a design choice: the one found in the official models is 2 parts).
MAX_TURN_GROUP = 12
#: Most parts a subassembly takes back to join its pieces (:func:`~bricklayer.assembly.strategies.subassembly._bridges`; a design choice: the
#: half pins of a trap door are 2).
MAX_BRIDGE = 4
#: Largest subassembly (parts) the planner forms when single parts deadlock.
MAX_GROUP = 40
#: Most parts of a held step (:func:`~bricklayer.assembly.strategies.held_step._held_step`): a unit that pins others and the ones it pins, which
#: the builder holds in place by hand while it goes in (a design choice: two hands, a few parts).
MAX_HELD = 4
#: A peel (:func:`~bricklayer.assembly.strategies.peel._peel`) takes off at most this many parts that block a stuck unit in one direction
#: (the pins of a core through a wing's beams), and at most :data:`MAX_PEEL_GROUP` parts with what
#: they alone hold in their unit; at most :data:`_PEEL_TRIES` candidate peels are re-planned per deadlock.
MAX_PEEL = 4
MAX_PEEL_GROUP = 12
_PEEL_TRIES = 12
#: Share of the search time peels may take in all (each re-plans what is left of a sub-build in hand).
_PEEL_SHARE = 0.1
#: Units tried as seeds of a subassembly per deadlock, highest first (12 before: 60 leaves a
#: 1,250-part model with 16 blocked parts instead of 60, a 1,170-part one 8 instead of 13, at similar time).
_GROUP_SEEDS = 60
#: A mated pin / axle / clip / hinge pair is not a block for motion within this cosine of its joint axis.
_JOINT_COS = 0.95
#: The deadlock strategies of the search in the order it tries them (names of
#: :data:`bricklayer.assembly.strategies.STRATEGIES`; the order the planner was tuned with on the official models:
#: cheap checks that change nothing but a pair's blocking first, whole sub-builds kept as long as possible, a
#: part flexing or pressed last).
DEFAULT_STRATEGIES = ("snap_fits", "held_step", "peel", "dissolve", "subassembly", "turned_group", "pressed_part",
                      "held_pair", "pinned_snap", "flexed_part", "take_apart_peeled")


@dataclass(frozen=True)
class PlannerOptions:
    """Settings of the assembly planner (:func:`assembly_sequence`, :func:`write_instructions`).

    Every field defaults to today's value (the module constant of the same meaning, kept as a read-only
    default). Pass ``options=PlannerOptions(max_held=0)`` to change one; :meth:`dataclasses.replace` makes a
    variant of another. Values are checked by :meth:`__post_init__` (``ValueError`` naming the field).

    Attributes
    ----------
    search_share : float, fraction of the time budget (0..1]
        Share the disassembly search may use; the rest goes to the bottom-up check of the units it did not
        reach. Default 0.75 (:data:`_SEARCH_SHARE`; a design choice: the check is cheap per unit).
    sub_share : float, fraction of the search time (0..1]
        Sub-builds, planned first and each in hand, must be done by this share of the search time; one not
        done by then is dissolved into its parts for the top level. Default 0.85 (:data:`_SUB_SHARE`; measured:
        without it the sub-builds of the largest official models took the whole budget and the top level none).
    peel_share : float, fraction of the search time (0..1]
        Share of the search time peels may take in all (each re-plans what is left of a sub-build in hand).
        Default 0.1 (:data:`_PEEL_SHARE`; measured: uncapped, peels took half the budget of a 1,400-part model).
    sample_step : float, LDU
        Largest gap between two samples of an insertion path, of a hinge turn and of a press. Default 1.0
        (:data:`SAMPLE_STEP`): below the collision inset margins (``TOL.collision_inset``), so no wall is skipped.
    press_insets : tuple of float, LDU
        Extra insets tried, in order, for a pair touching at its final pose (a press fit): stud fits, then
        others. Default (0.5, 1.0) (the validator's press-fit allowances).
    joint_cos : float, cosine
        A mated pin / axle / clip / hinge pair does not block motion within this cosine of its joint axis
        (0.95 is about 18 degrees; :data:`_JOINT_COS`, a design choice).
    turn_angles : tuple of int, degrees
        Opening angles about a click hinge's axis tried, in order, for a part or group turned in on its
        hinge. Default 30-degree steps both ways up to 120 (:data:`TURN_ANGLES`; a design choice: click
        hinges and canopies open at least that far).
    press_lifts : tuple of float, LDU
        Heights above its place at which a stuck part may slide in before being pressed straight down onto
        its studs: one stud (4 LDU), then two. Default :data:`PRESS_LIFTS`; () turns pressed moves off.
    max_group : int, parts
        Largest subassembly formed when single parts deadlock (:data:`MAX_GROUP`, a design choice).
    max_held : int, parts
        Most parts of a held step: a pin and the units it alone holds up, held by hand while it goes in
        (:data:`MAX_HELD`, a design choice: two hands, a few parts); 0 turns held steps off.
    max_bridge : int, parts
        Most parts already taken out that a subassembly in pieces takes back to join them (its pins;
        :data:`MAX_BRIDGE`, a design choice); 0 turns bridges off.
    max_turn_group : int, parts
        Largest group turned in on a hinge as one (a lid with what is built on it; :data:`MAX_TURN_GROUP`,
        a design choice).
    max_peel : int, parts
        A peel takes off at most this many parts that block a stuck unit in one direction (:data:`MAX_PEEL`,
        a design choice: the pins of a block through two beams).
    max_peel_group : int, parts
        ... and at most this many parts with what they alone hold in their unit (:data:`MAX_PEEL_GROUP`).
    peel_tries : int
        Candidate peels re-planned per deadlock at most (:data:`_PEEL_TRIES`, a design choice).
    group_seeds : int
        Stuck units tried, highest first, as seeds of a subassembly, a peel or a pressed / flexed move per
        deadlock. Default 60 (:data:`_GROUP_SEEDS`; measured: 12 left 60 parts blocked in a 1,250-part model
        where 60 leaves 16, at similar time).
    strategies : tuple of str
        The deadlock strategies tried, in order (:data:`DEFAULT_STRATEGIES`; names of
        :data:`bricklayer.assembly.strategies.STRATEGIES`). Leave one out to turn it off; an unknown name
        raises ValueError when planning starts.
    """

    search_share: float = _SEARCH_SHARE
    sub_share: float = _SUB_SHARE
    peel_share: float = _PEEL_SHARE
    sample_step: float = SAMPLE_STEP
    press_insets: tuple = _PRESS_INSETS
    joint_cos: float = _JOINT_COS
    turn_angles: tuple = TURN_ANGLES
    press_lifts: tuple = PRESS_LIFTS
    max_group: int = MAX_GROUP
    max_held: int = MAX_HELD
    max_bridge: int = MAX_BRIDGE
    max_turn_group: int = MAX_TURN_GROUP
    max_peel: int = MAX_PEEL
    max_peel_group: int = MAX_PEEL_GROUP
    peel_tries: int = _PEEL_TRIES
    group_seeds: int = _GROUP_SEEDS
    strategies: tuple = DEFAULT_STRATEGIES

    def __post_init__(self):
        for name in ("search_share", "sub_share", "peel_share"):
            v = getattr(self, name)
            if not 0.0 < v <= 1.0:
                raise BrickLayerValueError(f"PlannerOptions.{name} must be a share in (0, 1], not {v!r}")
        if not self.sample_step > 0:
            raise BrickLayerValueError(f"PlannerOptions.sample_step must be a positive length in LDU, not {self.sample_step!r}")
        if not self.press_insets:
            raise BrickLayerValueError("PlannerOptions.press_insets needs at least one inset (LDU), e.g. (0.5, 1.0)")
        if not 0.0 < self.joint_cos <= 1.0:
            raise BrickLayerValueError(f"PlannerOptions.joint_cos must be a cosine in (0, 1], not {self.joint_cos!r}")
        for name in ("max_group", "max_held", "max_bridge", "max_turn_group", "max_peel", "max_peel_group",
                     "peel_tries", "group_seeds"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise BrickLayerValueError(f"PlannerOptions.{name} must be a whole number >= 0, not {v!r}")
        object.__setattr__(self, "press_insets", tuple(float(x) for x in self.press_insets))
        object.__setattr__(self, "turn_angles", tuple(self.turn_angles))
        object.__setattr__(self, "press_lifts", tuple(float(x) for x in self.press_lifts))
        object.__setattr__(self, "strategies", tuple(self.strategies))
