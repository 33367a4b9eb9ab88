"""Incremental validation after edits equals a validation from scratch (issue #4, speed).

After an append-only edit the validator extends its arrays (world arrays,
connection index, collision engine, capture test) instead of rebuilding them
(``LegoBuild._appended_since``); other edits rebuild. Truth: the same build
validated from scratch (``LegoBuild.copy()`` has empty caches and shares the
sub-builds, so its flattened placements are in the same order), plus facts of
each edit worked out by hand (a 1 x 1 brick put on a free stud mates with the
stud's part; a brick 2 LDU off an existing brick collides with it; a brick
200 LDU above everything floats).
"""

from __future__ import annotations

import numpy as np
import pytest

from bricklayer import Element, LegoBuild, Pose, from_ldraw
from bricklayer.validate.collisions import CollisionEngine, collision_engine
from bricklayer.validate.connections import _ConnectionIndex, connection_graph


def _summary(b: LegoBuild) -> dict:
    """Validation results in flattened indices (comparable between a build and its copy)."""
    flat = b.flattened_placements
    ix = {id(p): i for i, p in enumerate(flat)}
    eng = collision_engine(b)
    return dict(
        colliding=sorted((ix[id(a)], ix[id(c)]) for a, c in b.colliding_placements),
        floating=sorted(ix[id(f)] for f in b.floating_placements),
        components=sorted(sorted(ix[id(p)] for p in c) for c in b.connected_components),
        mated=connection_graph(b).pairs.tolist(),
        candidates=sorted((tuple(p), h, tuple(r)) for p, h, r in
                          zip(eng.pairs.tolist(), eng.hit.tolist(), eng.rests.tolist())),
    )


def _assert_same_as_fresh(b: LegoBuild) -> dict:
    inc = _summary(b)
    fresh = _summary(b.copy())
    for k in inc:
        assert inc[k] == fresh[k], k
    return inc


@pytest.fixture
def spy(monkeypatch):
    """Records which incremental paths run (wraps the real methods; no data is faked)."""
    calls = {"prepare": [], "append": []}
    prep, app = CollisionEngine._prepare, _ConnectionIndex.append

    def prepare(self, start=0):
        calls["prepare"].append(start)
        return prep(self, start)

    def append(self, build, n_old):
        out = app(self, build, n_old)
        calls["append"].append(out is not None)
        return out

    monkeypatch.setattr(CollisionEngine, "_prepare", prepare)
    monkeypatch.setattr(_ConnectionIndex, "append", append)
    return calls


def test_adding_and_removing_parts_on_an_official_model_matches_a_fresh_validation(official_dir, spy):
    b = from_ldraw((official_dir / "1788_Treasure_Chest.mpd").read_text())
    base = _summary(b)
    n = len(b.flattened_placements)
    assert n == 186

    # 1. a 1 x 1 brick on a free upward stud: it mates with the stud's part, one component with it
    stud = b.find_connectors("stud", facing=(0, 0, 1))[0]
    el = Element("3005")
    spy["prepare"].clear()
    new = b.connect(el, el.find_connectors("antistud")[0], stud)
    s1 = _assert_same_as_fresh(b)
    assert spy["prepare"][0] == n and spy["append"][0]  # the append path ran (then the fresh copy's full one)
    owner = next(i for i, fp in enumerate(b.flattened_placements) if fp.path == stud.path)
    assert any(owner in c and n in c for c in s1["components"])
    assert n not in s1["floating"]

    # 2. a copy of an element 2 LDU beside itself: the two overlap
    ref = next(fp for fp in b.flattened_placements[:n] if fp.content.ldraw_id == "3005"
               or fp.content.ldraw_id.startswith("300"))
    b.add_raw(ref.content, ref.pose @ Pose(translation=(2, 0, 0)))
    s2 = _assert_same_as_fresh(b)
    j = b.flattened_placements.index(ref)
    assert (j, n + 1) in s2["colliding"]

    # 3. a brick 200 LDU above the highest part floats
    top = max(b.bounding_box.max.z, 0)
    b.add_raw(Element("3005"), Pose(translation=(0, 0, top + 200)))
    s3 = _assert_same_as_fresh(b)
    assert n + 2 in s3["floating"]
    assert spy["append"] == [True, True, True]

    # 4. removing a placement rebuilds (not an append) and still matches
    spy["prepare"].clear()
    b.remove(new)
    s4 = _assert_same_as_fresh(b)
    assert spy["prepare"][0] == 0
    assert len(b.flattened_placements) == n + 2 and len(s4["floating"]) >= len(base["floating"])

    # 5. an append after the removal takes the append path again
    spy["prepare"].clear()
    b.add_raw(Element("3005"), Pose(translation=(0, 0, top + 300)))
    s5 = _assert_same_as_fresh(b)
    assert spy["prepare"][0] == n + 2 and n + 2 in s5["floating"] and n + 1 in s5["floating"]


def test_edit_of_a_nested_build_rebuilds_and_matches(official_dir, spy):
    # 6232 Skeleton Crew: its minifigures are submodels; adding a part inside one is not an append at the top
    b = from_ldraw((official_dir / "6232_1_Skeleton_Crew.mpd").read_text())
    _summary(b)
    sub = next(p.content for p in b.placements if isinstance(p.content, LegoBuild))
    uses = sum(1 for p in b.placements if p.content is sub)
    n = len(b.flattened_placements)
    spy["prepare"].clear()
    sub.add_raw(Element("3005"), Pose(translation=(0, 0, 500)))
    _assert_same_as_fresh(b)
    assert spy["prepare"][0] == 0  # full rebuild
    assert len(b.flattened_placements) == n + uses


def test_appended_since_counts_top_level_placements():
    b = LegoBuild()
    b.add_raw(Element("3001"))
    s0 = b._state_key()
    b.add_raw(Element("3001"), Pose(translation=(0, 0, 24)))
    b.step()  # steps do not change the placements
    b.add_raw(Element("3001"), Pose(translation=(0, 0, 48)))
    assert b._appended_since(s0) == 1
    s1 = b._state_key()
    b.add_raw(Element("3005"), index=0)
    assert b._appended_since(s1) is None and b._appended_since(s0) is None
    # cached flattened placements extended in place of a rebuild: same objects for the old part
    flat = b.flattened_placements
    b.add_raw(Element("3005"), Pose(translation=(0, 0, 72)))
    assert b.flattened_placements[:4] == flat and b.flattened_placements[0] is flat[0]
    assert np.allclose(b.flattened_placements[4].pose.translation, (0, 0, 72))


def test_report_after_appends_equals_the_report_from_empty_caches(official_dir):
    """The agent-facing report (``brickwright.validation.validation_report``) keeps collision records,
    pair depth estimates and part descriptions across append-only edits (issue 20): after each edit it
    must equal the report of the same build validated with every cache emptied."""
    import json

    from brickwright.validation import validation_report

    def fresh(b):
        b._cache.clear()
        return validation_report(b)

    def same(r1, r2):
        return json.dumps(r1, sort_keys=True, default=str) == json.dumps(r2, sort_keys=True, default=str)

    b = from_ldraw((official_dir / "1788_Treasure_Chest.mpd").read_text())
    r0 = validation_report(b)
    n = r0["parts"]
    assert n == 186
    # 1. a copy of a brick 2 LDU beside itself collides with it: one more colliding pair, named by both
    ref = next(fp for fp in b.flattened_placements if fp.content.ldraw_id.startswith("300"))
    b.add_raw(ref.content, ref.pose @ Pose(translation=(2, 0, 0)))
    r1 = validation_report(b)
    new = b.describe(b.flattened_placements[n])
    added = [c for c in r1["collisions"] if c not in r0["collisions"]]
    assert len(r1["collisions"]) > len(r0["collisions"]) and all(new in (c["a"]["label"], c["b"]["label"])
                                                                 for c in added)
    assert any({c["a"]["label"], c["b"]["label"]} == {new, b.describe(ref)} for c in added)
    assert same(r1, fresh(b))
    # 2. a brick 200 LDU above the highest part floats: one more floating part
    r1 = validation_report(b)
    top = max(b.bounding_box.max.z, 0)
    b.add_raw(Element("3005"), Pose(translation=(0, 0, top + 200)))
    r2 = validation_report(b)
    assert len(r2["floating"]) == len(r1["floating"]) + 1 and r2["parts"] == n + 2
    assert same(r2, fresh(b))
