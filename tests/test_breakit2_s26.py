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
