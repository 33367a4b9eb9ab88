"""What a plan is made of: units, moves, the plan of one assembly, and the public :class:`AssemblyPlan`."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..element import Element

__all__ = ["AssemblyPlan", "Move", "PlannedAssembly"]


def is_sub_build(content) -> bool:
    """Whether a placement's or a unit's ``content`` is a sub-build (a ``LegoBuild``).

    A placement holds an :class:`~bricklayer.element.Element` or a ``LegoBuild`` (``Placement`` refuses
    anything else) and a unit the placement's content, or None for a subassembly the planner found: so
    "not None and not an Element" is a sub-build. Told apart this way so that the planner, a consumer of
    builds, does not import :mod:`bricklayer.build` (the layering rule in that module's docstring).
    """
    return content is not None and not isinstance(content, Element)


def _vec_name(v: np.ndarray) -> str:
    return "(" + ",".join(f"{x:.2f}".rstrip("0").rstrip(".").replace("-0", "-0") for x in v) + ")"


@dataclass
class Unit:
    """One unit of the search: parts that go in as one move (a part, a kept sub-build, a subassembly, a
    held pair, a peeled piece), with what the search found about its move (fields below)."""

    idx: np.ndarray          # flat indices (planning level) of the parts it carries
    content: object          # Element, LegoBuild, or None for a subassembly found by the planner
    pose: object             # Pose in the planning frame
    color: int | None        # sub-build colour
    label: str
    sub: PlannedAssembly | None = None  # subassembly: its own plan (order, directions, units)
    dv: np.ndarray | None = None  # insertion direction (unit vector, planning frame) once placed
    turn: tuple | None = None     # turned shut on its hinge after coming in: (axis, pivot, degrees), planning frame
    held: bool = False            # held in place by hand until the next move of a held step pins it
    press: tuple | None = None    # slid in lifted, then pressed in: (unit vector, planning frame; distance LDU)
    peeled: bool = False          # what is left of a unit after a peel (:func:`~bricklayer.assembly.strategies.peel._peel`), or its peeled piece


@dataclass(frozen=True)
class Move:
    """One move of the search: a unit and the name of the direction it goes in along (``"down"``, ``"+x"``,
    ``"joint(x,y,z)"``, ``"... turned +30 deg on its hinge"``...; :attr:`AssemblyPlan.directions`). The
    unit carries the rest (direction vector, turn, press, held). Unpacks as ``unit, name``."""

    unit: Unit
    name: str

    def __iter__(self):
        return iter((self.unit, self.name))


@dataclass
class PlannedAssembly:
    """The plan of one assembly built on the ground or in hand (a build, a sub-build, a subassembly).

    ``order``: flat indices (of the planning build) in building order; ``directions``: flat index ->
    direction name; ``units``: the :class:`Move` s in building order. A build's plan also has ``failed``
    (flat index -> reason), ``skip`` (left out of the planning: flat index -> reason), ``flat`` (the
    build's flattened placements) and ``placed`` ((n,) bool, planned and placed).
    """

    order: list
    directions: dict
    units: list
    failed: dict = field(default_factory=dict)
    skip: dict = field(default_factory=dict)
    flat: list | None = None
    placed: np.ndarray | None = None


@dataclass
class AssemblyPlan:
    """An assembly sequence of a build.

    Attributes
    ----------
    order : list of int
        Indices into ``build.flattened_placements`` in the order they are added
        (parts of a kept sub-build or subassembly in its own order).
    steps : list of list of int
        The order grouped into building steps (LDraw ``0 STEP`` groups of the
        top level; a kept sub-build or subassembly is one step).
    directions : dict of int to str
        Insertion direction of each placed part (``"down"``, ``"+x"``, ...,
        ``"joint(x,y,z)"`` along a joint axis, ``"part+x"`` along a tilted
        part's axis; a part of a kept sub-build or subassembly: its direction
        within it).
    failed : dict of int to str
        Parts that could not be placed, and why.
    skipped : dict of int to str
        Parts left out of the planning (stickers, flexible parts), added last.
    subbuilds : int
        Number of sub-builds kept together.
    dissolved : int
        Number of sub-builds planned part by part.
    sequence : LegoBuild
        The build re-ordered into steps (parts placed, then a step of skipped
        parts, then a step of failed ones), ready for ``write_ldraw``.
    seconds : float
        Time taken.
    n_parts : int
        Number of flattened placements.
    subassemblies : list of (list of int, str)
        Rigid groups the planner found that must be built apart and inserted
        whole (parts, insertion direction), at the top level.
    snap_fits : int
        Touching part pairs interlocked in every direction, taken as snap fits
        (one part flexes into place; module notes).
    insertions : list of dict
        Every move of the plan, in building order, for replaying and checking
        it: ``parts`` (flat indices moving together: one part, or a whole kept
        sub-build or subassembly once its own moves are done), ``direction``
        ((3,) world unit vector of the motion into place, BrickLayer frame),
        ``name`` (the direction's name as in ``directions``) and ``level``
        (the assembly it goes into: 0 is the model on the ground, every other
        number a sub-build or subassembly built in hand; the parts already in
        it are those of the earlier insertions of the same level). A part
        clicked on with its hinge open has ``turn``: ``axis`` and ``pivot``
        (world, LDU) of the hinge and ``degrees``: it comes in along
        ``direction`` turned by that angle about the hinge, then turns shut.
        A held move (a held step) has ``held`` True: the builder holds it until
        the next move of its level pins it. A pressed move has ``press``:
        ``direction`` ((3,) world unit vector) and ``distance`` (LDU): it comes
        in along ``direction`` to its place moved back ``distance`` along the
        press direction, then is pressed that far onto its studs.
    """

    order: list
    steps: list
    directions: dict
    failed: dict
    skipped: dict
    subbuilds: int
    dissolved: int
    sequence: object
    seconds: float = 0.0
    n_parts: int = 0
    subassemblies: list = field(default_factory=list)
    snap_fits: int = 0
    insertions: list = field(default_factory=list)
    held_steps: int = 0

    @property
    def placed_share(self) -> float:
        """Share of the planned parts (all but skipped) that were placed, 0..1."""
        planned = self.n_parts - len(self.skipped)
        return 1.0 if planned <= 0 else len(self.order) / planned

    @property
    def complete(self) -> bool:
        """Every planned part was placed."""
        return not self.failed

    def summary(self, build=None, k: int = 10) -> dict:
        """JSON-ready summary; with the build, failed parts are described by name.

        ``failure_causes`` counts failed parts by cause (the reason up to its
        first colon).
        """
        flat = build.flattened_placements if build is not None else None

        def desc(i):
            return build.describe(flat[i]) if flat is not None else str(i)

        reasons: dict = {}
        for r in self.skipped.values():
            key = r.split(" (")[0]
            reasons[key] = reasons.get(key, 0) + 1
        causes: dict = {}
        for r in self.failed.values():
            key = r.split(":")[0]
            causes[key] = causes.get(key, 0) + 1
        return {
            "parts": self.n_parts, "placed": len(self.order), "skipped": len(self.skipped),
            "failed": len(self.failed), "placed_share": round(self.placed_share, 4),
            "steps": len(self.steps), "subbuilds_kept": self.subbuilds, "subbuilds_dissolved": self.dissolved,
            "subassemblies": len(self.subassemblies), "snap_fits": self.snap_fits, "held_steps": self.held_steps,
            "skipped_reasons": reasons, "failure_causes": causes,
            "failures": [{"part": desc(i), "reason": r} for i, r in list(self.failed.items())[:k]],
            "seconds": round(self.seconds, 2),
        }


def planned_parts(g, u) -> np.ndarray:
    """Flat indices (int64 array) of unit ``u``'s parts that the planning moves: those geometry ``g`` left
    out (``g.skip``) or has no shape for dropped."""
    return np.array([i for i in u.idx.tolist() if i not in g.skip and g.has[i]], dtype=np.int64)


def _identity():
    from ..geometry.types import Pose

    return Pose()
