"""Building instructions: the plan written as an MPD with ``0 STEP`` groups, ``plan.json`` and a picture
per step (:func:`write_instructions`).

A writer of builds, above :mod:`bricklayer.io` (the layering rule in :mod:`bricklayer.build`'s docstring):
unlike the planner's own modules (``sequence``, ``search``, ``strategies``, which
``LegoBuild.assembly_sequence`` calls and so never import the build module), it may import ``io``."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

from ldraw_data.fileio import atomic_write, atomic_writer
from ldraw_data.progress import report

from ..errors import OutputExistsError, OutputNotAFolderError
from ..io import write_ldraw
from .options import TIME_BUDGET, PlannerOptions
from .plan import is_sub_build
from .sequence import assembly_sequence

__all__ = ["write_instructions"]

log = logging.getLogger("bricklayer.assembly")

#: The files :func:`write_instructions` writes into its folder besides the step pictures (``brickwright
#: instructions`` refuses an input model that is one of them: --force would replace it).
INSTRUCTION_FILES = ("steps.mpd", "plan.json")
_STEP_IMAGES = "step-[0-9][0-9][0-9][0-9].png"  # the names write_instructions gives its pictures, and no other


def _ldraw_step_count(text: str, parts=()) -> int:
    """Steps an LDraw viewer pages through in ``text``, over all its model ``0 FILE`` blocks: each ``0 STEP``
    line ends one (LDraw spec, STEP meta), and part lines after a block's last ``0 STEP`` make one more.
    Blocks named in ``parts`` (embedded part files: stickers, bent parts; names compared case-blind) are
    parts, not models, and have no steps."""
    skip = {str(n).strip().lower() for n in parts}
    steps, pending, in_part = 0, False, False
    for ln in text.splitlines():
        tok = ln.split()
        if tok[:2] in (["0", "FILE"], ["0", "NOFILE"]):
            steps, pending = steps + pending, False
            in_part = tok[:2] == ["0", "FILE"] and " ".join(tok[2:]).lower() in skip
        elif in_part:
            continue
        elif tok[:2] == ["0", "STEP"]:
            steps, pending = steps + 1, False
        elif tok[:1] == ["1"]:
            pending = True
    return steps + pending


def _count_unplaceable(build, summary: dict) -> None:
    """Count in ``summary`` (of :meth:`AssemblyPlan.summary`) the parts no order can place as not placed.

    A part the LDraw library does not know (nor the file embeds) has no geometry: the planner leaves it
    to a last step ("no geometry"), but it cannot really be placed; a part line the reader skipped (bad
    numbers, a cyclic submodel reference) places a part that is in no step. Both move to ``failed``
    (``failure_causes`` "unknown part" and "unreadable part line", each listed in ``failures``), and
    ``placed_share`` becomes placed / (parts planned + those), as ``brickwright instructions`` prints.
    ``summary["unreadable_lines"]`` lists the skipped lines (file, line, message)."""
    from ..validate.catalog_checks import unknown_placements  # on use: the validator loads FCL

    unknown = unknown_placements(build)
    unreadable = list(getattr(build, "unreadable_lines", None) or ())
    summary["unreadable_lines"] = [{"file": str(w.path), "line": w.line, "message": w.message} for w in unreadable]
    if not unknown and not unreadable:
        return
    failures = list(summary.get("failures") or [])
    from ldraw_data.text import short_id

    for fp in unknown:  # named as every report names a part (LegoBuild.citation: the file line when read)
        failures.append({"part": build.describe(fp),
                         "reason": f"unknown part {short_id(fp.content.ldraw_id)!r}: not in the LDraw library nor embedded in "
                                   "the file; use a real part id (`brickwright search`)"})
    for w in unreadable:
        failures.append({"part": f"{w.path}:{w.line}", "reason": w.message if getattr(w, "cycle", None)  # names the loop
                         else f"unreadable part line ({w.message}); fix the line"})
    reasons = dict(summary.get("skipped_reasons") or {})
    if unknown and reasons.get("no geometry"):
        reasons["no geometry"] -= min(len(unknown), reasons["no geometry"])
    causes = dict(summary.get("failure_causes") or {})
    if unknown:
        causes["unknown part"] = len(unknown)
    if unreadable:
        causes["unreadable part line"] = len(unreadable)
    summary["skipped"] = summary["skipped"] - len(unknown)
    summary["skipped_reasons"] = {k: v for k, v in reasons.items() if v}
    summary["failed"] = summary["failed"] + len(unknown) + len(unreadable)
    summary["failure_causes"] = causes
    summary["failures"] = failures
    summary["parts"] = summary["parts"] + len(unreadable)
    planned = summary["parts"] - summary["skipped"]
    summary["placed_share"] = round(1.0 if planned <= 0 else summary["placed"] / planned, 4)


def _flat_parts(placements) -> list:
    """Element placements under some top-level placements (a placed sub-build brings all its parts)."""
    out = []
    for p in placements:
        out.extend(_flat_parts(p.content.placements) if is_sub_build(p.content) else [p])
    return out


def write_instructions(build, out_dir, *, images: bool = True, max_images: int | None = None, size=(800, 600),
                       max_parts_per_step: int = 6, time_budget: float | None = TIME_BUDGET,
                       separate_objects: bool = False, overwrite: bool = False,
                       options: PlannerOptions | None = None, source: str | None = None) -> dict:
    """Write the assembly sequence as an MPD with ``0 STEP`` groups and, with the renderer, an image per step.

    What ``brickwright instructions MODEL --out DIR`` calls. Unlike a picture (``brickwright render``), this needs
    every part's connectors: the verdict (:func:`~bricklayer.validate.validation_report`) and the planner work on
    the connection graph, so the first run on an empty cache folder reads the whole connector library once.
    Without ``overwrite`` the folder is claimed before planning (its ``plan.json`` created exclusively): of two
    runs started at once into one folder, the second raises :class:`OutputExistsError`.

    Parameters
    ----------
    build : LegoBuild
    out_dir : str or Path
        Created when missing. Gets ``steps.mpd``, ``plan.json`` and
        ``step-0001.png`` ... : one picture per LDraw step of every ``0 FILE``
        block of ``steps.mpd`` (a submodel's steps before the parent step that
        places it), so the pictures, the step count of ``plan.json`` and what
        LDraw viewers page through agree (:func:`bricklayer.render.step_pages`).
        Each picture shows every part placed so far in its (sub)model, the last
        step (stickers, flexible parts, failed parts) included; the step's new
        parts in colour, the earlier ones dimmed; one fixed camera per
        (sub)model, fitted to the finished (sub)model
        (:func:`bricklayer.render.render_steps`). Pictures are written when
        :mod:`bricklayer.render` imports and works.
    images : bool
    max_images : int or None
        Render at most this many pictures (the last ones are dropped and
        counted in ``pictures_dropped``); None (default): all.
    size : (width, height), pixels
    max_parts_per_step, time_budget, separate_objects, options
        As for :func:`assembly_sequence`.
    overwrite : bool
        Replace the files of an earlier run in ``out_dir`` (and remove its step
        images). Without it, a folder that already holds ``steps.mpd``,
        ``plan.json`` or step images is left alone and FileExistsError raised,
        unless it is unfinished: its plan.json is still the placeholder
        (``{"status": "unfinished: ...``) of a run that was stopped (Ctrl-C,
        killed) before the end; that folder is written anew. plan.json is
        written last, so a folder with a real plan.json is complete. A folder a
        live run is writing (its placeholder locked) is refused either way.
    source : str or None
        Name shown in the verdict line (``validation``); None: ``build.name``, else ``"build"``.

    Returns
    -------
    dict
        ``{"mpd": Path, "plan": Path, "images": [Path, ...], "cameras": [Camera, ...], "summary": dict,
        "image_error": str or None, "report": ValidationReport}`` (``cameras[k]`` drew ``images[k]``;
        ``report``: :func:`bricklayer.validate.validation_report` of ``build``, the verdict
        ``brickwright validate`` prints, computed before planning).
        ``summary`` is what ``plan.json`` holds: :meth:`AssemblyPlan.summary` with unknown parts and
        unreadable part lines counted as failed (``_count_unplaceable``), ``unreadable_lines``,
        ``steps`` and ``ldraw_steps`` (both the steps a viewer pages through over all blocks of
        ``steps.mpd``, one picture each), ``main_model_steps`` (those of the main model alone, what
        LeoCAD pages before entering a submodel), ``planned_steps`` (the planner's top-level steps,
        :attr:`AssemblyPlan.steps`), ``pictures`` (per picture: ``image`` file name, ``model``
        (sub)model name, ``step`` and ``of`` within it, ``new_parts``), ``pictures_dropped``,
        ``colliding_pairs`` (pairs of parts drawn inside each other: the report's ``collisions`` and
        ``duplicates``, a part drawn twice at one pose),
        ``valid`` (:attr:`~bricklayer.validate.report.ValidationReport.valid`, the one definition of a
        valid build: an order is no cure for a model that cannot be built as drawn), ``validation`` (the
        report's summary line with its verdict, ``... -> VALID`` or ``-> NOT VALID``, as
        ``brickwright validate`` prints it) and ``options``.

    Raises
    ------
    FileExistsError
        Output files exist and ``overwrite`` is False.
    NotADirectoryError
        ``out_dir`` is a file or cannot be created (checked before planning).
    """
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise OutputNotAFolderError(f"{out} is a file; give a folder for the instructions")
    state = _claim_state(out) if out.is_dir() else None
    if state == "busy":
        raise _busy(out)
    unfinished = state == "unfinished"
    old = ([p for p in (out / n for n in INSTRUCTION_FILES) if p.exists()] + sorted(out.glob(_STEP_IMAGES))
           if out.is_dir() else [])
    if old and not overwrite and not unfinished:
        raise OutputExistsError(f"{out} already holds instructions ({old[0].name}"
                              f"{f' and {len(old) - 1} more files' if len(old) > 1 else ''}); "
                              "pass overwrite=True (CLI: --force) to replace them")
    try:  # before planning, which may take minutes: an --out that cannot be a folder fails now
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputNotAFolderError(f"cannot create the folder {out}: {exc.strerror or exc}") from None
    claim = _claim_folder(out, replace=overwrite or unfinished)
    try:
        result = _write_instructions(build, out, images=images, max_images=max_images, size=size,
                                     max_parts_per_step=max_parts_per_step, time_budget=time_budget,
                                     separate_objects=separate_objects, options=options, source=source)
    except BaseException:
        # a run that wrote nothing leaves nothing; one stopped after writing steps.mpd or pictures keeps its
        # placeholder plan.json, which marks the folder unfinished (a later run proceeds into it)
        if not _outputs_written(out):
            _drop_claim(claim)
        else:
            _release_claim(claim)
        raise
    _release_claim(claim)
    return result


#: How plan.json starts while a run is writing the folder (:func:`_claim_folder`); it stays so when the run is
#: stopped (Ctrl-C, killed) after writing part of its output, and then marks the folder unfinished.
_CLAIM = b'{"status": "unfinished: being written by a brickwright instructions run'
_CLAIM_TEXT = _CLAIM + (b'; if no run is writing it, it was stopped before the end: run the same command again '
                        b'to write the folder anew"}\n')


def _outputs_written(out: Path) -> bool:
    """True when ``out`` holds a ``steps.mpd`` or step picture (what a run writes before its plan.json)."""
    return (out / "steps.mpd").exists() or any(True for _ in out.glob(_STEP_IMAGES))


def _claim_state(out: Path) -> str | None:
    """``"unfinished"`` when ``out/plan.json`` is the placeholder of a run that is no longer writing (stopped by
    Ctrl-C or killed): it starts with :data:`_CLAIM` and no process holds its lock (``fcntl.flock``, released by
    the kernel when the holder ends); such a folder is of our own making (break-it s26 F10). ``"busy"`` when a
    live run holds that lock; None otherwise (no plan.json, or a finished one)."""
    path = out / "plan.json"
    try:
        with open(path, "rb") as fh:
            if not fh.read(len(_CLAIM)) == _CLAIM:
                return None
            return "busy" if _locked_elsewhere(fh.fileno()) else "unfinished"
    except OSError:
        return None


def _busy(out: Path) -> OutputExistsError:
    """The error for a folder a live run is writing."""
    return OutputExistsError(f"{out} is being written by another brickwright instructions run (its plan.json "
                             "is locked); wait for it to end or give another --out folder")


def _locked_elsewhere(fd: int) -> bool:
    """True when another process holds the lock of the open file ``fd`` (probe: take and drop it at once)."""
    try:
        import fcntl
    except ImportError:  # no flock (Windows): no way to tell, a placeholder counts as left by a stopped run
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    fcntl.flock(fd, fcntl.LOCK_UN)
    return False


def _claim_folder(out: Path, *, replace: bool = False) -> tuple:
    """Claim the instructions folder ``out`` for this run: make its ``plan.json`` the placeholder
    :data:`_CLAIM_TEXT` and hold an exclusive lock on it (``fcntl.flock``) while the run writes. Without
    ``replace`` the placeholder is created exclusively (``O_EXCL``), so that of two runs started at once the
    second refuses (break-it s26 F9); with ``replace`` (overwrite, or a folder left unfinished by a stopped run)
    it replaces plan.json, unless a live run holds that plan.json's lock. The real plan.json replaces the
    placeholder (atomically) after everything else is written, so a stopped run is recognisable (F10).

    Returns
    -------
    (Path, int)
        The placeholder's path and the open descriptor that holds the lock.

    Raises
    ------
    OutputExistsError
        ``out/plan.json`` exists already (without ``replace``), or a live run is writing the folder.
    OutputNotAFolderError
        The placeholder cannot be created (no permission).
    """
    path = out / "plan.json"
    busy = _busy(out)
    if replace:
        try:
            fd0 = os.open(path, os.O_RDONLY)
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise OutputNotAFolderError(f"cannot read {path}: {exc.strerror or exc}") from None
        else:
            try:
                if _locked_elsewhere(fd0):
                    raise busy
            finally:
                os.close(fd0)
        tmp = out / f".plan.json.{os.getpid()}.tmp"
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
    else:
        tmp, flags = path, os.O_WRONLY | os.O_CREAT | os.O_EXCL
    try:
        fd = os.open(tmp, flags, 0o666)
    except FileExistsError:
        raise OutputExistsError(f"{out} already holds instructions (plan.json); pass overwrite=True "
                                "(CLI: --force) to replace them") from None
    except OSError as exc:
        raise OutputNotAFolderError(f"cannot write in the folder {out}: {exc.strerror or exc}") from None
    try:  # held until the run ends (the kernel drops it when the process dies, also on SIGKILL)
        import fcntl
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except ImportError:  # no flock (Windows)
        pass
    except OSError:  # another run opened our fresh placeholder and locked it first
        os.close(fd)
        raise busy from None
    os.write(fd, _CLAIM_TEXT)
    if tmp != path:
        os.replace(tmp, path)
    return path, fd


def _release_claim(claim: tuple) -> None:
    """Drop the lock of :func:`_claim_folder` (close its descriptor); the file stays."""
    try:
        os.close(claim[1])
    except OSError:
        pass


def _drop_claim(claim: tuple) -> None:
    """Remove the placeholder plan.json of :func:`_claim_folder` if it is still the placeholder, and unlock."""
    path, fd = claim
    try:
        if path.read_bytes().startswith(_CLAIM) and os.fstat(fd).st_ino == path.stat().st_ino:
            path.unlink()
    except OSError:
        pass
    _release_claim(claim)


def _write_instructions(build, out: Path, *, images, max_images, size, max_parts_per_step, time_budget,
                        separate_objects, options, source) -> dict:
    """:func:`write_instructions` after its checks: validate, plan, write ``out``'s files."""
    from ..validate import validation_report  # on use: the validator loads FCL

    # the verdict before planning (a build the validator cannot read fails now, not after minutes of planning)
    report("checking the build", 0, None)
    verdict = validation_report(build, source=source if source is not None else (build.name or "build"))
    report("checking the build", 1, 1)
    report("planning the assembly order", 0, None)
    plan = assembly_sequence(build, max_parts_per_step=max_parts_per_step, time_budget=time_budget,
                             separate_objects=separate_objects, options=options)
    report("planning the assembly order", 1, 1)
    for p in out.glob(_STEP_IMAGES):  # images of an earlier run would mix with this one's
        p.unlink()
    mpd = write_ldraw(plan.sequence, out / "steps.mpd", overwrite=True, title=f"{build.name or 'model'} - assembly sequence")
    summary = plan.summary(build, k=None)
    summary["options"] = {"max_parts_per_step": max_parts_per_step, "time_budget": time_budget,
                          "separate_objects": separate_objects}
    _count_unplaceable(build, summary)
    text = Path(mpd).read_text(encoding="utf-8")
    embedded = {n for b in [plan.sequence, *plan.sequence.sub_builds()] for n, _body in b.embedded_files.values()}
    summary["ldraw_steps"] = _ldraw_step_count(text, embedded)
    from ..render.steps import step_pages

    pages = step_pages(plan.sequence)
    shown = pages if max_images is None else pages[:max(0, int(max_images))]
    # one step count everywhere: the pages (one per step of every FILE block of steps.mpd) are the steps
    summary["planned_steps"] = summary["steps"]
    summary["steps"] = len(pages)
    summary["main_model_steps"] = len(plan.sequence.steps)
    summary["pictures"] = [{"image": f"step-{k + 1:04d}.png", "model": pg.model.name or "model", "step": pg.step,
                            "of": pg.steps, "new_parts": len(_flat_parts(pg.new))}
                           for k, pg in enumerate(shown)] if images else []
    summary["pictures_dropped"] = len(pages) - len(shown) if images else len(pages)
    # the order is no cure for parts drawn inside each other (the path test does not hold those pairs
    # against each other) nor for a model that is not valid: reported, with the one verdict, so a user does
    # not take the plan for proof the model can be built
    summary["colliding_pairs"] = len(verdict.collisions) + len(verdict.duplicates)
    summary["valid"] = verdict.valid
    summary["validation"] = verdict.text.split("\n", 1)[0]
    pj = out / "plan.json"
    paths, cams, err = [], [], None
    if images and shown:
        try:
            from ..render import render_steps
        except ImportError as exc:
            err = f"no renderer: {exc}"
        else:
            try:
                n_shots = len(shown) if shown is not None else None
                for k, (_page, cam, img) in enumerate(render_steps(plan.sequence, size=size, pages=shown)):
                    report("step pictures", k, n_shots or k + 1)
                    path = out / f"step-{k + 1:04d}.png"
                    with atomic_writer(path, "wb") as fh:
                        img.save(fh, format="PNG")
                    paths.append(path)
                    cams.append(cam)
                report("step pictures", len(paths), len(paths))
            except Exception as exc:  # noqa: BLE001 - renderer backend missing: keep the MPD
                err = f"rendering failed: {exc}"
                log.warning("step images not written: %s", exc)
    # last: until now plan.json is the claim's placeholder, so a run stopped while rendering leaves a folder
    # that says it is unfinished (break-it s26 F10)
    atomic_write(pj, json.dumps(summary, indent=2))
    return {"mpd": mpd, "plan": pj, "images": paths, "cameras": cams, "summary": summary, "image_error": err,
            "report": verdict}
