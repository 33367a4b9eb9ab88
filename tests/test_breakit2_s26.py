"""Break-it round 2 of session 26 (notes/s26/breakit2-report.md): findings F6, F7, F8, F10, F11."""
from __future__ import annotations

import json

import pytest

MODEL = "1180_1_Space_Port_Moon_Buggy.mpd"  # small: a few seconds of planning and pictures


class _Stop(KeyboardInterrupt):
    """Ctrl-C, raised at a known point (after two step pictures are written)."""


def _ctrl_c_after_two_pictures(task, done, total):
    if task == "step pictures" and done == 2 and total and total > 2:
        raise _Stop()


def test_an_interrupted_instructions_run_is_marked_unfinished_and_a_rerun_proceeds(official_dir, tmp_path):
    """F10: a run stopped while drawing pictures left plan.json + steps.mpd + some pictures, which looked
    finished, and the rerun refused without --force. plan.json is now written last: until then it is the
    placeholder saying the folder is unfinished; a rerun proceeds and a user's own file stays."""
    from ldraw_data.progress import reporting

    from bricklayer import read_ldraw
    from bricklayer.assembly import write_instructions

    build = read_ldraw(official_dir / MODEL)
    out = tmp_path / "steps"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    with reporting(_ctrl_c_after_two_pictures), pytest.raises(KeyboardInterrupt):
        write_instructions(build, out, size=(64, 48))
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt", "plan.json", "step-0001.png", "step-0002.png",
                                                     "steps.mpd"]
    assert (out / "plan.json").read_text().startswith('{"status": "unfinished')
    res = write_instructions(build, out, images=False)  # no overwrite needed: the folder is our unfinished one
    summary = json.loads((out / "plan.json").read_text())
    assert summary["steps"] == res["summary"]["steps"] > 2
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt", "plan.json", "steps.mpd"]
    assert (out / "notes.txt").read_text() == "mine"


def test_a_folder_being_written_by_a_live_run_is_refused_even_with_overwrite(official_dir, tmp_path):
    """F10: the placeholder of a run still writing is locked (flock); only a placeholder nobody holds counts as
    unfinished. A run into a locked folder is refused with a message saying so."""
    import fcntl

    from bricklayer import read_ldraw
    from bricklayer.assembly import write_instructions
    from bricklayer.assembly.instructions import _CLAIM_TEXT
    from bricklayer.errors import OutputExistsError

    build = read_ldraw(official_dir / MODEL)
    out = tmp_path / "steps"
    out.mkdir()
    (out / "plan.json").write_bytes(_CLAIM_TEXT)
    with open(out / "plan.json", "rb") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        for overwrite in (False, True):
            with pytest.raises(OutputExistsError, match="being written by another brickwright instructions run"):
                write_instructions(build, out, images=False, overwrite=overwrite)
    assert (out / "plan.json").read_bytes() == _CLAIM_TEXT


_DISH_HELD = "it is held only by its own connectors, 4 clip and 4 open_stud on its top"


def test_dish_2654_advice_names_its_own_connectors_and_the_advice_works(library):
    """F6: stack(2654, on=brick) said "stand it on a tile", which validate then rejected (resting joins
    nothing), and the tile finding said "put it on studs": a circle. 2654a has no anti-stud or tube; its
    connector table holds 4 open_stud and 4 clip, all at z = 8-10 LDU (its top). The warning and both
    findings now say so, and following the advice (a plate stacked onto its studs) is VALID, 1 component."""
    from bricklayer import Anchor, Color, Element, LegoBuild, StackCollisionWarning
    from bricklayer.validate import validation_report

    dish = Element("2654", Color.WHITE)
    assert sorted(c.type for c in dish.connectors) == ["clip"] * 4 + ["open_stud"] * 4
    b = LegoBuild(name="on_brick")
    base = b.add(Element("3003", Color.RED), (0, 0, 0))
    with pytest.warns(StackCollisionWarning) as rec:
        b.stack(dish, on=base)
    msg = str(rec[0].message)
    assert _DISH_HELD in msg and "stack(..., on=<2654a>)" in msg and "tile" in msg and "joins nothing" in msg
    assert "Stand it on a smooth top" not in msg
    text = validation_report(b, source="on_brick").text
    assert "COLLISION" in text and _DISH_HELD in text

    b = LegoBuild(name="on_tile")
    t = b.stack(Element("3068b", Color.RED), on=b.add(Element("3003", Color.RED), (0, 0, 0)))
    b.stack(dish, on=t)
    text = validation_report(b, source="on_tile").text
    assert "2654a rests on #1 3068b without a connection" in text and _DISH_HELD in text
    assert "a plate instead of the tile" not in text

    b = LegoBuild(name="held")
    d = b.add(dish, (0, 0, 0))
    b.stack(Element("3022", Color.RED), on=d, anchor=Anchor.CENTER, target_anchor=Anchor.CENTER)
    assert validation_report(b, source="held").text.startswith(
        "held: 2 parts, 0 colliding pairs, 0 floating, 1 connected component(s) -> VALID")


def _stack_warnings(build_fn):
    import warnings

    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        b = build_fn()
    from bricklayer import StackCollisionWarning

    return b, [str(w.message) for w in rec if issubclass(w.category, StackCollisionWarning)]


def test_round_plate_centred_on_a_larger_plate_is_not_told_to_centre(library):
    """F7: 6177 (8 x 8 round) centred on 3036 (6 x 8) warned "Centre it" though it was centred. Its anti-studs
    fill a 6 x 6 block (connector table: none at (+-70, +-30)); the 6 x 8 plate's studs at (+-70, +-30) are
    76.2 LDU from the centre, under the rim. The advice now says centring does not help and names 6 x 6; a
    6 x 6 plate (3958) centred between them, as it says, is VALID."""
    from bricklayer import Anchor, Color, Element, LegoBuild
    from bricklayer.validate import validation_report

    C = dict(anchor=Anchor.CENTER, target_anchor=Anchor.CENTER)

    def centred():
        b = LegoBuild(name="centred")
        b.stack(Element("6177", Color.BLUE), on=b.add(Element("3036", Color.RED), (0, 0, 0)), **C)
        return b

    _, said = _stack_warnings(centred)
    assert len(said) == 1 and "Centre it" not in said[0]
    assert "It is centred on 3036 already; centring does not help" in said[0]
    assert "the studs of that 8 x 6 stud top reach past the 6 x 6 block of studs its anti-studs take" in said[0]

    def corner():  # default anchors: off centre, and centring is the advice that works
        b = LegoBuild(name="corner")
        b.stack(Element("6177", Color.BLUE), on=b.add(Element("3036", Color.RED), (0, 0, 0)))
        return b

    _, said = _stack_warnings(corner)
    assert len(said) == 1 and "Centre it on that part (anchor=Anchor.CENTER" in said[0]

    def via_6x6():
        b = LegoBuild(name="via")
        six = b.stack(Element("3958", Color.RED), on=b.add(Element("3036", Color.RED), (0, 0, 0)), **C)
        b.stack(Element("6177", Color.BLUE), on=six, **C)
        return b

    b, said = _stack_warnings(via_6x6)
    assert said == []
    assert validation_report(b, source="via").text.startswith(
        "via: 3 parts, 0 colliding pairs, 0 floating, 1 connected component(s) -> VALID")


def test_stack_with_an_offset_off_every_stud_warns(library):
    """F8: stack(3024, on=6177, offset=(-2, 0, 0)) put the 1 x 1 plate at x 20..40, y 60..80 LDU, where 6177
    has no stud, and said nothing; validate found it loose
    (2 components). Now it warns; with no offset it lands on a stud, joined, and no warning."""
    from bricklayer import Color, Element, LegoBuild
    from bricklayer.validate import validation_report

    def off():
        b = LegoBuild(name="off")
        b.stack(Element("3024", Color.RED), on=b.add(Element("6177", Color.BLUE), (0, 0, 0)), offset=(-2, 0, 0))
        return b

    b, said = _stack_warnings(off)
    assert said == ["stack(): 3024 lands on no stud of 6177: no stud of it lies under its stud footprint "
                    "(x 20..40, y 60..80 LDU), so it rests loose (not joined, or floating). Give an offset "
                    "(whole studs) that keeps its footprint over studs of 6177, or stack it on the part that is "
                    "under it there"]
    assert "2 connected component(s)" in validation_report(b, source="off").text.split("\n")[0]

    def on_stud():
        b = LegoBuild(name="on")
        b.stack(Element("3024", Color.RED), on=b.add(Element("6177", Color.BLUE), (0, 0, 0)))
        return b

    b, said = _stack_warnings(on_stud)
    assert said == []
    assert validation_report(b, source="on").text.startswith(
        "on: 2 parts, 0 colliding pairs, 0 floating, 1 connected component(s) -> VALID")


def _cli(args, cwd):
    import subprocess
    import sys
    from pathlib import Path

    repo = Path(__file__).resolve().parents[1]
    env = dict(__import__("os").environ, PYTHONPATH=str(repo))
    return subprocess.run([sys.executable, "-m", "brickwright", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)


def test_search_json_with_no_match_prints_an_empty_list(library, tmp_path):
    """F11: ``search zzzqqq --json`` printed nothing on stdout; a script reading JSON got empty input. Now
    stdout is ``[]``, the error goes to stderr and the exit code stays 1 (no match, as documented)."""
    r = _cli(["search", "zzzqqq", "--json"], tmp_path)
    assert r.returncode == 1, r.stderr
    assert json.loads(r.stdout) == []
    assert "no part matches 'zzzqqq'" in r.stderr


def test_script_without_create_build_is_named_once(library, tmp_path):
    """F11: "error: nocreate.py: nocreate.py defines no create_build()" named the file twice."""
    (tmp_path / "nocreate.py").write_text("from bricklayer import *\nx = 1\n")
    r = _cli(["validate", "nocreate.py"], tmp_path)
    assert r.returncode == 1, r.stderr
    assert "error: nocreate.py defines no create_build(); define `def create_build() -> LegoBuild`." in r.stderr
    assert "nocreate.py: nocreate.py" not in r.stderr


def test_a_lone_brick_on_the_ground_is_not_over_empty_space(library, tmp_path):
    """F11: a 2 x 4 brick on the ground, apart from the rest (a 2 x 2 brick 3 studs away), was described as
    "nothing lies below it anywhere; its footprint ... is over empty space". Both stand on the ground (z 0)."""
    (tmp_path / "two.ldr").write_text("0 two\n1 4 0 -24 0 1 0 0 0 1 0 0 0 1 3001.dat\n"
                                      "1 1 100 -24 0 1 0 0 0 1 0 0 0 1 3003.dat\n")
    r = _cli(["validate", "two.ldr"], tmp_path)
    assert "2 connected component(s)" in r.stdout, r.stdout + r.stderr
    assert "over empty space" not in r.stdout
    assert "it stands on the ground by itself, its footprint (x 4..6, y -1..1 studs), beside the rest" in r.stdout
