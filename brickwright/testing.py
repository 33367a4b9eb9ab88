"""Checks that a ``build.py`` runs on its own build: :class:`TestContext`.

The ``build.py`` contract (see ``docs/bricklayer-api.md``, "build.py contract") asks for two functions::

    def create_build() -> LegoBuild: ...

    def run_tests():
        ctx = TestContext(create_build())
        ctx.check_no_floating()
        ctx.check_no_collisions()
        ctx.check_connected(expected_components=1)
        ctx.check("four wheels", len(wheels) == 4)
        return ctx.report()

Every check records its name, whether it passed and a short detail that names the parts involved, so the
agent can act on it. A check never raises for a failing build; it raises only when the build itself cannot
answer (then the error is the report).
"""

from __future__ import annotations

__all__ = ["CheckResult", "TestReport", "TestContext"]

import logging
from dataclasses import asdict, dataclass, field
from typing import Any
from .errors import BrickWrightTypeError

logger = logging.getLogger(__name__)

#: How many offending parts a detail names before it says "and N more".
MAX_LISTED = 6


@dataclass(frozen=True)
class CheckResult:
    """Outcome of one check.

    Parameters
    ----------
    name : str
        Short name of the check, e.g. ``"no_floating"`` or a user-given name.
    passed : bool
        Whether the check passed.
    detail : str
        What failed and which parts are involved (empty when there is nothing to add).
    """

    name: str
    passed: bool
    detail: str = ""


@dataclass
class TestReport:
    """The structured result of :meth:`TestContext.report`.

    Parameters
    ----------
    checks : list of CheckResult
        Every check in the order it was run.

    Attributes
    ----------
    passed : bool
        True when there is at least one check and every check passed.
    """

    __test__ = False  # not a pytest test class

    checks: list[CheckResult] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        """True when every check passed (and at least one was made)."""
        return bool(self.checks) and all(c.passed for c in self.checks)

    @property
    def failed(self) -> list[CheckResult]:
        """The checks that failed, in order."""
        return [c for c in self.checks if not c.passed]

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready form: ``{"passed": bool, "checks": [{"name", "passed", "detail"}, ...]}``."""
        return {"passed": self.passed, "checks": [asdict(c) for c in self.checks]}

    @classmethod
    def from_any(cls, value: Any) -> "TestReport":
        """Coerce what a ``run_tests()`` returned into a report.

        Parameters
        ----------
        value : TestReport, TestContext, dict or bool
            A report, a context (its report is taken), a dict as produced by :meth:`to_dict`, or a bare bool.

        Returns
        -------
        TestReport

        Raises
        ------
        TypeError
            For anything else, naming what ``run_tests()`` should return.
        """
        if isinstance(value, TestReport):
            return value
        if isinstance(value, TestContext):
            return value.report()
        if isinstance(value, dict) and "checks" in value:
            return cls([CheckResult(str(c.get("name", "?")), bool(c.get("passed")), str(c.get("detail", "")))
                        for c in value["checks"]])
        if isinstance(value, bool):
            return cls([CheckResult("run_tests", value, "" if value else "run_tests() returned False")])
        raise BrickWrightTypeError(
            f"run_tests() returned {type(value).__name__}; it must return TestContext(build).report()"
        )

    def summary(self) -> str:
        """One line per failing check plus a count, e.g. ``"3/4 checks passed; FAIL connected: ..."``."""
        n_ok = sum(c.passed for c in self.checks)
        lines = [f"{n_ok}/{len(self.checks)} checks passed"]
        lines += [f"FAIL {c.name}: {c.detail}" if c.detail else f"FAIL {c.name}" for c in self.failed]
        return "\n".join(lines)


def _describe(build: Any, placement: Any) -> str:
    """Short label of a placement: ``LegoBuild.describe`` (name path, part id, part name, colour)."""
    return str(build.describe(placement))


def _list(build: Any, items: list[Any]) -> str:
    shown = ", ".join(_describe(build, p) for p in items[:MAX_LISTED])
    if len(items) > MAX_LISTED:
        shown += f" and {len(items) - MAX_LISTED} more"
    return shown


def _short(label: str) -> str:
    """``"door/door: 60616 (Door 1 x 4 x 6 ..., Color.RED)"`` -> ``"door/door: 60616"``."""
    return str(label).split(" (", 1)[0]


def _coord_text(coord: Any) -> str:
    """A joint coordinate in words: ``-90 deg``, ``1.5 studs``, ``30 deg, 1 studs``, ``ball 0/20/0 deg``."""
    names = list(getattr(coord, "__dataclass_fields__", ()))
    vals = {n: getattr(coord, n) for n in names}
    if set(vals) == {"angle_deg"}:
        return f"{vals['angle_deg']:g} deg"
    if set(vals) == {"slide_studs"}:
        return f"{vals['slide_studs']:g} studs"
    if set(vals) == {"angle_deg", "slide_studs"}:
        return f"{vals['angle_deg']:g} deg, {vals['slide_studs']:g} studs"
    if set(vals) == {"rx_deg", "ry_deg", "rz_deg"}:
        return f"ball {vals['rx_deg']:g}/{vals['ry_deg']:g}/{vals['rz_deg']:g} deg"
    return repr(coord)


def _capped(items: list[str]) -> str:
    shown = "; ".join(items[:MAX_LISTED])
    if len(items) > MAX_LISTED:
        shown += f" and {len(items) - MAX_LISTED} more"
    return shown


def _motion_detail(report: Any) -> str:
    """Compact text of a failed :class:`bricklayer.articulation.MotionReport`: one entry per failing pose."""
    failures = list(getattr(report, "failures", []))
    if not failures:
        return str(report)[:2000]
    poses = []
    for f in failures:
        where = ", ".join(f"{k} at {_coord_text(v)}" for k, v in f.positions.items()) or "zero pose"
        bits = []
        if f.colliding:
            bits.append("collides " + _capped([f"{_short(a)} <-> {_short(b)}" for a, b in f.colliding]))
        if f.floating:
            bits.append("floating " + _capped([_short(a) for a in f.floating]))
        if f.disengaged:
            bits.append("disengaged " + _capped([f"{_short(a)} / {_short(b)}" for a, b in f.disengaged]))
        if getattr(f, "below_ground", None):
            bits.append("through the ground " + _capped([f"{_short(a)} ({d:g} LDU below)" for a, d in f.below_ground]))
        poses.append(f"{where}: " + ", ".join(bits))
    n = getattr(report, "samples", None)
    head = f"{len(failures)} of {n} poses fail" if n else f"{len(failures)} poses fail"
    if getattr(report, "truncated", False):
        head += " (sampling truncated)"
    shown = " | ".join(poses[:MAX_LISTED])
    if len(poses) > MAX_LISTED:
        shown += f" | and {len(poses) - MAX_LISTED} more poses"
    return f"{head}: {shown}"


class TestContext:
    """Collect checks on one build; ``report()`` returns them.

    Parameters
    ----------
    build : bricklayer.LegoBuild
        The build under test (usually ``create_build()``).

    Examples
    --------
    >>> ctx = TestContext(build)            # doctest: +SKIP
    >>> ctx.check_no_floating().passed      # doctest: +SKIP
    True
    """

    __test__ = False  # not a pytest test class

    def __init__(self, build: Any):
        self.build = build
        self._checks: list[CheckResult] = []

    # -- generic -----------------------------------------------------------------------------------------
    def check(self, name: str, ok: Any, detail: str = "") -> CheckResult:
        """Record a check of your own.

        Parameters
        ----------
        name : str
            What is checked, e.g. ``"roof covers the walls"``.
        ok : bool-like
            The outcome; truthiness is used.
        detail : str, optional
            What to report, usually when ``ok`` is false.

        Returns
        -------
        CheckResult
        """
        result = CheckResult(str(name), bool(ok), str(detail))
        self._checks.append(result)
        return result

    # -- fixed checks -------------------------------------------------------------------------------------
    def check_no_floating(self) -> CheckResult:
        """Pass when no part floats (``build.floating_placements`` is empty).

        Notes
        -----
        Floating follows the validator: a part floats when it cannot reach the ground through mated
        connectors or supporting surface contact (bricklayer-api.md, "Validation semantics").
        """
        floating = list(self.build.floating_placements)
        detail = "" if not floating else (
            f"{len(floating)} floating part(s): {_list(self.build, floating)}; "
            "stack them on a supporting part or connect them to one")
        return self.check("no_floating", not floating, detail)

    def check_no_collisions(self) -> CheckResult:
        """Pass when no two parts intersect (``build.colliding_placements`` is empty).

        Notes
        -----
        Meshes are inset by 0.25 LDU before testing, so touching or mated parts do not count
        (bricklayer-api.md, "Validation semantics").
        """
        pairs = list(self.build.colliding_placements)
        if not pairs:
            return self.check("no_collisions", True)
        shown = "; ".join(f"{_describe(self.build, a)} with {_describe(self.build, b)}"
                          for a, b in pairs[:MAX_LISTED])
        if len(pairs) > MAX_LISTED:
            shown += f"; and {len(pairs) - MAX_LISTED} more pairs"
        return self.check("no_collisions", False, f"{len(pairs)} colliding pair(s): {shown}; move one part of each pair")

    def check_inventory(self, inventory) -> CheckResult:
        """Pass when the build uses no part or colour beyond an inventory (a set you own, a bin of bricks).

        Parameters
        ----------
        inventory : str, Path or bricklayer.Inventory
            A CSV of part id, LDraw colour code (empty: any colour) and quantity, as ``brickwright parts
            MODEL --out parts.csv`` writes it (:func:`bricklayer.read_inventory`), or an Inventory.

        Returns
        -------
        CheckResult
            ``detail`` names every part and colour used beyond it (used / available).
        """
        from bricklayer.inventory import Inventory, inventory_problems, read_inventory

        inv = inventory if isinstance(inventory, Inventory) else read_inventory(inventory)
        over = inventory_problems(self.build, inv)
        detail = "" if not over else "beyond the inventory: " + "; ".join(
            f"{o['part_id']} colour {o['color']}: uses {o['used']}, has {o['available']}" for o in over[:12]) + (
            f"; and {len(over) - 12} more" if len(over) > 12 else "")
        return self.check("inventory", not over, detail)

    def check_connected(self, expected_components: int = 1) -> CheckResult:
        """Pass when the build has exactly ``expected_components`` connected components.

        Parameters
        ----------
        expected_components : int, default 1
            How many separate pieces the build should have (1 = one solid model).
        """
        n = int(self.build.num_connected_components)
        detail = "" if n == expected_components else (
            f"{n} connected components, expected {expected_components}")
        if n > expected_components:
            try:
                comps = sorted(self.build.connected_components, key=len)
                small = [p for comp in comps[: n - expected_components] for p in comp]
                detail += f"; the smallest separate pieces hold {_list(self.build, small)}"
            except Exception:  # noqa: BLE001 - detail only
                pass
        return self.check(f"connected({expected_components})", n == expected_components, detail)

    def check_motion(self, samples: int = 5) -> CheckResult:
        """Pass when every joint moves through its range without collision, floating or disengaging.

        Parameters
        ----------
        samples : int, default 5
            Poses sampled per joint range (zero and both limits included), passed to
            ``build.check_motion(samples=...)`` (:func:`bricklayer.articulation.check_motion`).

        Returns
        -------
        CheckResult
            Named ``"motion"``. A pass says what it covered: ``"2 joint(s), 25 poses: lid_left,
            lid_right"``. A build without a movable joint fails with "0 joints checked: nothing to
            move ..." (a motion check that moved nothing proves nothing). A part that a pose pushes
            below the ground is reported as "through the ground". On failure the detail counts the
            failing poses and lists them
            compactly, one per pose: joint, coordinate (degrees / studs) and what collided, floated or
            disengaged, each part as ``name: part id`` (at most :data:`MAX_LISTED` poses and parts
            each, then "and N more"), e.g. ``"1 of 5 poses fail: door/door at -90 deg: collides
            door/door: 60616 <-> blocker: 3005"``.

        Notes
        -----
        When the installed bricklayer has no articulation (no ``LegoBuild.check_motion``) the check is
        recorded as failed with the detail "articulation not available", never as a pass. A build
        whose joints form a closed loop makes ``build.check_motion`` raise ``ValueError``; that is
        recorded as a failed check with the error's message.
        """
        fn = getattr(self.build, "check_motion", None)
        if fn is None:
            return self.check("motion", False, "articulation not available in this bricklayer version "
                                               "(LegoBuild.check_motion missing); remove check_motion()")
        try:
            report = fn(samples=samples)
        except ValueError as e:  # closed kinematic loop, coordinate that does not fit its joint
            return self.check("motion", False, f"cannot pose the build: {e}")
        passed = bool(getattr(report, "passed", report))
        joints = list(getattr(report, "joints", []) or [])
        if not joints:
            from bricklayer.articulation import NOTHING_TO_MOVE

            return self.check("motion", False, f"0 joints checked: {NOTHING_TO_MOVE}")
        covered = f"{len(joints)} joint(s), {getattr(report, 'samples', '?')} poses: {', '.join(joints[:MAX_LISTED])}"
        if len(joints) > MAX_LISTED:
            covered += f" and {len(joints) - MAX_LISTED} more"
        detail = covered if passed else _motion_detail(report)
        return self.check("motion", passed, detail)

    def check_stable(self, min_tilt_deg: float = 0.0) -> CheckResult:
        """Check that the build stands and holds together (:func:`bricklayer.stability.stability_check`).

        Parameters
        ----------
        min_tilt_deg : float, degrees
            Smallest critical tilt angle accepted: the build must not tip over on a slope of this
            angle (``theta = arctan(d / h_c)``, centre of mass to support polygon edge over its height).

        Returns
        -------
        CheckResult
            Named ``"stable"``; fails when the centre of mass lies outside the support polygon, the
            tilt angle is below ``min_tilt_deg``, or the stud-force equilibrium has no solution.
        """
        from bricklayer.stability import stability_check

        ok, detail = stability_check(self.build, min_tilt_deg)
        return self.check("stable", ok, "" if ok else detail)

    # -- result -------------------------------------------------------------------------------------------
    @property
    def checks(self) -> list[CheckResult]:
        """The checks recorded so far (a copy)."""
        return list(self._checks)

    def report(self) -> TestReport:
        """Return the structured report of every check run so far.

        Returns
        -------
        TestReport
            ``.checks`` (name, passed, detail each) and ``.passed`` (all passed, at least one check).
        """
        return TestReport(list(self._checks))
