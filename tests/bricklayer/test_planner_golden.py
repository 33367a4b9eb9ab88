"""Golden planner outputs: a guard rail for moving the planner's code (architecture.md, step 0; issue 19).

For a fixed subset of small and medium official models, the plan of :func:`bricklayer.assembly.assembly_sequence`
(``separate_objects=True``, as ``benchmarks/assembly.py`` runs it) is reduced to a SHA-256 digest of its order,
steps, insertions (parts, level, direction name, direction vector rounded to 1e-6, turn, held, press) and failed
parts. The time budget (:data:`BUDGET`, CPU seconds) is far beyond what any of these models takes (each plans in
under 5 s), so no deadline cuts the search and the plan is deterministic. A pure move of code must leave every
digest unchanged; a changed digest is a change of behaviour and goes in a commit of its own, with its reason.

The models are chosen so that together they run in well under a minute and exercise the deadlock strategies
that small models reach: a held step (21109), a held pair or a pressed move (1788), a hinged lid turned in
(6969), sub-builds kept and dissolved (6861_2, 6887), plain stud stacking (6716, 10156).

Regenerate after a deliberate change of behaviour: ``python tests/bricklayer/test_planner_golden.py --update``.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "data" / "golden_plans.json"
#: Official models planned (file names in the official models folder).
MODELS = (
    "10156_1_LEGO_Truck.mpd",
    "1788_Treasure_Chest.mpd",
    "21109_Exo_Suit.mpd",
    "6716_1_Covered_Wagon.mpd",
    "6861_2_Super_Model_Building_Instruction.mpd",
    "6887_1_Allied_Avenger.mpd",
    "6969_Celestial_Stinger.mpd",
)
#: Planning time budget (CPU seconds): no model of :data:`MODELS` comes near it, so the plan does not depend
#: on the machine's speed.
BUDGET = 1.0e5


def _r(v) -> list:
    return [round(float(x), 6) + 0.0 for x in v]


def plan_record(plan) -> dict:
    """The parts of an ``AssemblyPlan`` the digest covers, as plain JSON data."""
    moves = []
    for m in plan.insertions:
        d = dict(parts=list(m["parts"]), level=m["level"], name=m["name"], direction=_r(m["direction"]))
        if "turn" in m:
            d["turn"] = dict(axis=_r(m["turn"]["axis"]), pivot=_r(m["turn"]["pivot"]),
                             degrees=round(m["turn"]["degrees"], 6))
        if m.get("held"):
            d["held"] = True
        if "press" in m:
            d["press"] = dict(direction=_r(m["press"]["direction"]), distance=round(m["press"]["distance"], 6))
        moves.append(d)
    return dict(order=list(plan.order), steps=[list(s) for s in plan.steps], insertions=moves,
                failed=sorted(plan.failed))


def digest(plan) -> str:
    """SHA-256 (hex) of :func:`plan_record` as canonical JSON."""
    text = json.dumps(plan_record(plan), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def plan_of(path: Path):
    from bricklayer import read_ldraw
    from bricklayer.assembly import assembly_sequence

    return assembly_sequence(read_ldraw(path), time_budget=BUDGET, separate_objects=True)


@pytest.mark.parametrize("name", MODELS)
def test_plan_matches_golden_digest(official_dir, name):
    golden = json.loads(GOLDEN.read_text())
    plan = plan_of(official_dir / name)
    want = golden[name]
    assert (len(plan.order), len(plan.failed)) == (want["placed"], want["failed"])
    assert digest(plan) == want["sha256"], f"{name}: the plan changed (a behaviour change, not a pure move)"


if __name__ == "__main__":  # pragma: no cover - regenerate after a deliberate change of behaviour
    if "--update" not in sys.argv:
        sys.exit("usage: python tests/bricklayer/test_planner_golden.py --update")
    import os
    import time

    sys.path.insert(0, str(ROOT))
    folder = Path(os.environ.get("BRICKWRIGHT_MODELS_DIR", ROOT.parent / "shared" / "models" / "official"))
    out = {}
    for name in MODELS:
        t0 = time.perf_counter()
        plan = plan_of(folder / name)
        out[name] = dict(sha256=digest(plan), placed=len(plan.order), failed=len(plan.failed))
        print(f"{name:50s} {out[name]['sha256'][:16]}  placed {len(plan.order)}  failed {len(plan.failed)}  "
              f"{time.perf_counter() - t0:.1f} s")
    tmp = GOLDEN.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    tmp.replace(GOLDEN)
