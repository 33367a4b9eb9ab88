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


def test_support_after_appends_equals_a_full_analysis(official_dir, monkeypatch):
    """The support analysis is extended, not redone, when appended parts are held up by the base
    edges and lie away from every part those do not hold up (``support._extend_support``); otherwise
    it is redone. Either way the report equals the one of the same build with every cache emptied.
    Geometry worked out by hand (z up, LDU): a 2 x 4 brick 3001 spans x -40..40, y -20..20, z 0..24,
    its studs at x = +-10, +-30, y = +-10, z = 24; a 2 x 4 plate 3020 is 8 LDU high; a 1 x 1 brick
    3005 has one stud at z = 24 and its anti-stud at its origin."""
    import json

    from brickwright.validation import validation_report
    from bricklayer.validate import support

    ran = []
    ext = support._extend_support

    def spy(build, old):
        out = ext(build, old)
        ran.append(out is not None)
        return out

    monkeypatch.setattr(support, "_extend_support", spy)

    def check(b):
        r = validation_report(b)
        s = _summary(b)
        fresh = b.copy()
        assert s == _summary(fresh)
        b._cache.clear()  # the report from empty caches (the next edit extends this full analysis)
        assert json.dumps(r, sort_keys=True, default=str) == json.dumps(validation_report(b), sort_keys=True,
                                                                        default=str)
        return r, s

    b = from_ldraw((official_dir / "1788_Treasure_Chest.mpd").read_text())
    r0, s0 = check(b)
    n = r0["parts"]
    g = float(support.support_graph(b).ground)
    ran.clear()
    # 1. two 2 x 4 bricks on the ground 1,000 LDU from the chest, side by side: two more components,
    #    neither floats (each stands on the ground: extended)
    b.add_raw(Element("3001"), Pose(translation=(1000, 0, g)))
    r1, s1 = check(b)
    b.add_raw(Element("3001"), Pose(translation=(1080, 0, g)))
    r2, s2 = check(b)
    assert r2["components"] == r0["components"] + 2 and s2["floating"] == s0["floating"]
    assert [n] in s2["components"] and [n + 1] in s2["components"]
    # 2. a 2 x 4 plate across both (x 1000..1080, on their studs x = 1010, 1030 and 1050, 1070): it
    #    joins the two groups into one component (held up by both: extended, labels merged)
    b.add_raw(Element("3020"), Pose(translation=(1040, 0, g + 24)))
    r3, s3 = check(b)
    assert r3["components"] == r0["components"] + 1 and [n, n + 1, n + 2] in s3["components"]
    assert s3["floating"] == s0["floating"]
    assert ran[-3:] == [True, True, True]
    # 3. a 1 x 1 brick 24 LDU above the plate's stud at (1070, 10): it floats (redone)
    b.add_raw(Element("3005"), Pose(translation=(1070, 10, g + 32 + 24)))
    r4, s4 = check(b)
    assert n + 3 in s4["floating"] and len(s4["floating"]) == len(s0["floating"]) + 1
    assert ran[-1] is False
    # 4. a 1 x 1 brick on that stud, under the floating one: it joins both groups, nothing new floats
    #    (it touches a part the base edges did not hold up: redone)
    b.add_raw(Element("3005"), Pose(translation=(1070, 10, g + 32)))
    r5, s5 = check(b)
    assert s5["floating"] == s0["floating"] and r5["components"] == r0["components"] + 1
    assert [n, n + 1, n + 2, n + 3, n + 4] in s5["components"]
    assert ran[-1] is False
    # 5. the first 2 x 4 brick again at its pose: a duplicate of it (the placement faults are extended)
    b.add_raw(Element("3001"), Pose(translation=(1000, 0, g)))
    r6, _ = check(b)
    assert len(r6["duplicates"]) == len(r0["duplicates"]) + 1
    from bricklayer.validate.catalog_checks import placement_faults

    assert [(f.index, f.other) for f in placement_faults(b) if f.kind == "duplicate"][-1] == (n + 5, n)


def test_report_after_each_kind_of_append_is_byte_for_byte_a_fresh_validation(official_dir, spy):
    """Issue 20: after append-only edits the report is made from kept results (connector rows matched
    within the rows near the new part, sorted pairs and component roots extended, kept collision rows,
    descriptions, out-of-range scan ...). Each report must be byte for byte the report of the same build
    validated from empty caches: a twin read from the same file gets the same edits and is validated
    from scratch after each, while the build itself goes edit after edit without a full validation.
    5934 Dino Explorer: 102 parts, 7 colliding pairs, 1 floating part, 14 components (so collision rows,
    floating rows and the advice of 8 listed components are all in the report). Facts of each edit
    worked out by hand (z up, LDU; a 1 x 1 brick 3005 is 24 LDU high, its stud at z = 24 and its
    anti-stud at its origin)."""
    import json

    from brickwright.validation import validation_report

    text = (official_dir / "5934_Dino_Explorer.mpd").read_text()
    b, twin = from_ldraw(text), from_ldraw(text)
    placed: dict = {}

    def text_of(r) -> str:
        return json.dumps(r, sort_keys=True, default=str)

    def both(edit):
        for x in (b, twin):
            edit(x)

    def check():
        r = validation_report(b)
        twin._cache.clear()
        assert text_of(r) == text_of(validation_report(twin))
        return r

    r0 = check()
    n = r0["parts"]
    # 6 collisions: 30150 / 4006 (lines 95 / 98, 0.50 LDU deep by the audit's measure) is no longer one since
    # internal walls no longer cap the inset (ldraw_data.collision, step 5; benchmarks/validator_audit.md, inset16)
    assert (n, len(r0["collisions"]), len(r0["floating"]), r0["components"]) == (102, 6, 1, 14)
    spy["append"].clear()

    # 1. a 1 x 1 brick on the highest free upward stud of a part that does not float: it mates with the
    #    stud's part (same components, nothing new floats)
    def on_stud(x):
        floating = [fp.path for fp in x.floating_placements]
        stud = max((c for c in x.find_connectors("stud", facing=(0, 0, 1)) if c.path not in floating),
                   key=lambda c: c.position[2])
        el = Element("3005")
        placed[id(x)] = (x.connect(el, el.find_connectors("antistud")[0], stud), stud)

    both(on_stud)
    r1 = check()
    a, stud = placed[id(b)]
    assert r1["parts"] == n + 1 and r1["components"] == r0["components"]
    assert r1["floating"] == r0["floating"] and r1["collisions"] == r0["collisions"]
    owner = next(i for i, fp in enumerate(b.flattened_placements) if fp.path == stud.path)
    assert connection_graph(b).mated(owner, n)

    # 2. a copy of that brick 2 LDU beside it: it collides with that brick, and with the stud's part (the
    #    stud under the shifted anti-stud): two more colliding pairs, each naming the copy (which mates
    #    with nothing: one more component)
    both(lambda x: x.add_raw(Element("3005"), placed[id(x)][0].pose @ Pose(translation=(2, 0, 0))))
    r2 = check()
    assert r2["components"] == r0["components"] + 1
    flat = b.flattened_placements
    added = [{c["a"]["label"], c["b"]["label"]} for c in r2["collisions"] if c not in r0["collisions"]]
    assert sorted(added, key=sorted) == sorted([{b.describe(flat[n]), b.describe(flat[n + 1])},
                                                {b.describe(flat[owner]), b.describe(flat[n + 1])}], key=sorted)

    # 3. a 1 x 1 brick 48 LDU above the first one (24 LDU of air between): it floats, a component of its own
    both(lambda x: x.add_raw(Element("3005"), placed[id(x)][0].pose @ Pose(translation=(0, 0, 48))))
    r3 = check()
    assert len(r3["floating"]) == len(r0["floating"]) + 1 and r3["components"] == r2["components"] + 1

    # 4. a 1 x 1 brick in the gap, on the first brick's stud and under the floating one: it joins the
    #    floating brick's component to the model's; nothing new floats
    both(lambda x: x.add_raw(Element("3005"), placed[id(x)][0].pose @ Pose(translation=(0, 0, 24))))
    r4 = check()
    assert r4["floating"] == r0["floating"] and r4["components"] == r2["components"]
    cg = connection_graph(b)
    assert cg.mated(n, n + 3) and cg.mated(n + 3, n + 2)
    assert spy["append"] == [True] * 4  # every re-validation of the build took the append path (the twin: none)


def test_a_pane_appended_to_its_frame_or_a_frame_to_its_pane_is_held_as_in_a_fresh_validation(official_dir):
    """Held panes (``held_in_frame_edges``) after an append are found only for pairs with a new part
    (``since``) and merged into the old graph's. Truth: the pane and frame of the first held pair of 10224
    Town Hall (glass 60602 in window frame 60593, module notes of :mod:`bricklayer.validate.held`), put
    at the same relative pose in a new build one after the other, in either order: the two are held
    (one component), on the append path, and the report equals the fresh one byte for byte."""
    import json

    from brickwright.validation import validation_report

    town = from_ldraw((official_dir / "10224_Town_Hall.mpd").read_text())
    cg = connection_graph(town)
    flat = town.flattened_placements
    pane, frame = (flat[i] for i in cg.held[0].tolist())
    if pane.content.connectors:
        pane, frame = frame, pane
    assert (pane.content.ldraw_id, frame.content.ldraw_id) == ("60602", "60593")
    rel = np.linalg.inv(frame.pose.matrix) @ pane.pose.matrix
    for first, second in (((frame, np.eye(4)), (pane, rel)), ((pane, rel), (frame, np.eye(4)))):
        b = LegoBuild()
        b.add_raw(Element(first[0].content.ldraw_id, first[0].content.color), Pose.from_matrix(first[1]))
        assert validation_report(b)["components"] == 1
        b.add_raw(Element(second[0].content.ldraw_id, second[0].content.color), Pose.from_matrix(second[1]))
        r = validation_report(b)
        g = connection_graph(b)
        assert g.appended is not None and g.held.tolist() == [[0, 1]] and r["components"] == 1
        assert json.dumps(r, sort_keys=True, default=str) == json.dumps(validation_report(b.copy()), sort_keys=True,
                                                                        default=str)


def test_near_miss_hints_and_shadowed_files_after_appends_are_byte_for_byte_a_fresh_validation(official_dir, spy):
    """Issue 20: the near-miss hints of listed floating parts keep the connector rows found in each part's
    search box and test only the rows appended since (``connections._box_rows``), the rows taken by a mate
    are extended by the new pairs (``connections._taken_rows``) and the shadowed library files are kept
    while only parts are appended (``findings.shadowed_library_files``). After each edit the report must be
    byte for byte that of a twin validated from empty caches. Geometry worked out by hand (z up, LDU, the
    ground of 5934 Dino Explorer at z 0, its parts within x <= 322.76): a 2 x 4 brick 3001 at the origin
    spans x -40..40, y -20..20, z 0..24, studs at x = +-10, +-30, y = +-10, z 24; a 1 x 1 brick 3005 has its
    anti-stud at its origin and is 24 high; a 1 x 1 plate 3024 is 8 high, its stud at z 8."""
    import json

    from brickwright.validation import validation_report
    from bricklayer.validate.connections import _taken_rows

    text = (official_dir / "5934_Dino_Explorer.mpd").read_text()
    b, twin = from_ldraw(text), from_ldraw(text)

    def text_of(r) -> str:
        return json.dumps(r, sort_keys=True, default=str)

    def both(edit):
        for x in (b, twin):
            edit(x)

    def check():
        r = validation_report(b)
        twin._cache.clear()
        assert text_of(r) == text_of(validation_report(twin))
        cg, fresh = connection_graph(b), connection_graph(twin)
        if len(cg.pairs):
            assert np.array_equal(_taken_rows(cg, cg.world_connectors), _taken_rows(fresh, fresh.world_connectors))
        return r

    r0 = check()
    n = r0["parts"]
    assert (n, len(r0["floating"]), r0["components"], r0["shadowed_files"]) == (102, 1, 14, [])
    top = len(b.placements)
    x0 = 522.76  # 200 LDU beyond the model's largest x: nothing of the model is near
    assert float(b.bounding_box.max.x) + 200 == pytest.approx(x0)
    spy["append"].clear()

    # 1. a 2 x 4 brick on the ground there: a component of its own, standing (nothing new floats)
    both(lambda x: x.add_raw(Element("3001"), Pose(translation=(x0, 0, 0))))
    r1 = check()
    assert r1["components"] == 15 and r1["floating"] == r0["floating"]
    # 2. a 1 x 1 brick 16 LDU above its stud at (x0 + 10, 10): it floats; its anti-stud is 16 LDU off the
    #    stud (more than NEAR_MISS_ALONG_LDU, 8), so the hint is about the brick below
    both(lambda x: x.add_raw(Element("3005"), Pose(translation=(x0 + 10, 10, 40))))
    r2 = check()
    hint = r2["floating"][1]["below"]
    assert len(r2["floating"]) == 2 and "misses" not in hint and "hangs 16 LDU" in hint
    # 3. a 1 x 1 plate on that stud (z 24..32, its stud at z 32): the floating brick's anti-stud now misses
    #    the plate's free stud by 8 LDU straight down, a row the plate added after the brick's search
    both(lambda x: x.add_raw(Element("3024"), Pose(translation=(x0 + 10, 10, 24))))
    r3 = check()
    plate = f"#{top + 2}: 3024 (Plate 1 x 1)"  # cited by its top-level index (the third placement appended)
    assert r3["floating"][1]["below"] == (f"its antistud misses the free stud of {plate} by 8 LDU: "
                                          "lower it by 8 LDU, a move of (0, 0, -8) LDU in x, y, z (z up), to mate them")
    # 4. a second plate on the first (z 32..40): the brick's anti-stud meets its stud, nothing new floats
    both(lambda x: x.add_raw(Element("3024"), Pose(translation=(x0 + 10, 10, 32))))
    r4 = check()
    assert r4["floating"] == r0["floating"] and r4["components"] == 15

    # 5. a sub-build whose MPD block 3062b.dat redefines the library's round brick 1 x 1 (it places a 1 x 1
    #    brick on the 2 x 4 brick's stud at (x0 + 30, 10)): one shadowed file, no file line to cite
    def shadowing(x):
        sub = LegoBuild(name="shadow.ldr")
        sub.embedded_files["3062b.dat"] = ("3062b.dat", "0 one triangle\n3 16 0 0 0 10 0 0 0 0 10\n")
        sub.add_raw(Element("3005"))
        x.add_raw(sub, Pose(translation=(x0 + 30, 10, 24)))

    both(shadowing)
    r5 = check()
    assert r5["shadowed_files"] == [{"name": "3062b.dat", "file": None, "line": None,
                                     "library_file": "parts/3062b.dat", "folder": "parts"}]
    assert r5["components"] == 15 and r5["parts"] == n + 5
    # 6. one more part: the shadowed file is still reported (kept, not walked again)
    both(lambda x: x.add_raw(Element("3005"), Pose(translation=(x0 + 30, -10, 24))))
    r6 = check()
    assert r6["shadowed_files"] == r5["shadowed_files"] and r6["parts"] == n + 6

    # 7. a 1 x 1 brick 1,000 LDU below the ground (its stud, 4 LDU over its 24, tops out at z -972): below the
    #    ground, 972 LDU under the rest
    #    (the parts sorted by lowest point are merged with it, support.by_lowest_point, not sorted again)
    both(lambda x: x.add_raw(Element("3005"), Pose(translation=(x0, 0, -1000))))
    r7 = check()
    assert [d["below_ldu"] for d in r7["below_ground"]] == [972] and r7["floating"] == r0["floating"]
    # 8. a 1 x 1 brick on the ground beside the 2 x 4 brick: its lowest point ties with the model's (z 0)
    both(lambda x: x.add_raw(Element("3005"), Pose(translation=(x0 + 100, 0, 0))))
    r8 = check()
    assert r8["below_ground"] == r7["below_ground"] and r8["components"] == r7["components"] + 1
    assert spy["append"] == [True] * 8  # every re-validation of the build took the append path (the twin: none)
