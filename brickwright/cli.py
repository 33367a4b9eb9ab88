"""The ``brickwright`` command line (typer). Thin: each command calls one library function and prints."""

from __future__ import annotations

import functools
import json
import logging
from pathlib import Path
from typing import Optional

import typer

from ldraw_data.errors import ToolkitError
from ldraw_data.text import count_of, short_id

_HELP = {"help_option_names": ["-h", "--help"]}
app = typer.Typer(no_args_is_help=True, add_completion=True, rich_markup_mode=None, context_settings=_HELP,
                  help="BrickWright: build LEGO models that can really be built.\n\nExit codes: 0 success; 1 the "
                       "model or run failed its checks (not valid, parts not placed, run not passed) or the work "
                       "failed (a build.py raised, no OpenGL); 2 usage error or unreadable input (bad option, "
                       "missing or unreadable file, an output that exists without --force): nothing was done; 130 "
                       "interrupted (Ctrl-C); 141 the output pipe was closed (e.g. `| head`), as for any "
                       "program killed by SIGPIPE.")
library_app = typer.Typer(no_args_is_help=True, rich_markup_mode=None, context_settings=_HELP,
                          help="Install and inspect the LDraw parts library.")
popularity_app = typer.Typer(no_args_is_help=True, rich_markup_mode=None, context_settings=_HELP,
                             help="Part popularity counts used by search.")
app.add_typer(library_app, name="library")
app.add_typer(popularity_app, name="popularity")


NO_SANDBOX_HELP = ("Run a build.py without the OS sandbox (process limits only): only for code you trust; "
                   "docs/agent.md, Threat model.")


#: Exit codes of every command (documented in ``brickwright --help``); 130 after Ctrl-C (128 + SIGINT, the shell's
#: convention); 141 when the reader of the output went away (128 + SIGPIPE: ``brickwright parts M | head -1``
#: exits as ``cat`` would, killed by SIGPIPE, and prints nothing about it).
EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED, EXIT_BROKEN_PIPE = 0, 1, 2, 130, 141


def _broken_pipe() -> None:
    """Exit quietly (:data:`EXIT_BROKEN_PIPE`) after a write to a closed pipe: stdout is pointed at
    ``os.devnull`` so that the interpreter's final flush does not fail again (the recipe of the Python docs,
    "Note on SIGPIPE" in the ``signal`` module)."""
    import os
    import sys

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, AttributeError):  # stdout is not a file (a test runner's buffer: io.UnsupportedOperation)
        pass
    raise typer.Exit(EXIT_BROKEN_PIPE)


def _fail(msg: str, code: int = EXIT_USAGE):
    """Print ``error: msg`` on stderr and exit; ``code`` 2 (usage error, unreadable input: nothing was done) by
    default, 1 for a model or run that failed its checks."""
    typer.echo(f"error: {msg}", err=True)
    raise typer.Exit(code)


def friendly(fn):
    """Turn expected errors into one clear line on stderr and a non-zero exit code.

    Catches only :class:`~ldraw_data.errors.ToolkitError` (the root of every error the toolkit raises on
    purpose, :mod:`bricklayer.errors`) and ``OSError`` (a file that cannot be read or written; a closed
    output pipe exits 141 quietly, :func:`_broken_pipe`): exit 1
    (:data:`EXIT_FAILED`) when the work failed (a build.py raised, the provider failed mid-run, no OpenGL),
    else 2 (:data:`EXIT_USAGE`: bad or unreadable input, nothing was done). ``KeyboardInterrupt`` prints
    ``interrupted`` and exits 130 (the shell's code for Ctrl-C). Anything else is a bug and keeps its traceback.
    """

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except typer.Exit:
            raise
        except KeyboardInterrupt:
            typer.echo("interrupted", err=True)
            raise typer.Exit(EXIT_INTERRUPTED) from None
        except BrokenPipeError:  # the reader of stdout went away (`| head`): not an error of the command
            _broken_pipe()
        except (ToolkitError, OSError) as exc:
            # imported only on the error path: bricklayer.render imports all of bricklayer (about 0.8 s)
            from bricklayer.render import RenderBackendError

            from .errors import ProviderError
            from .inspect_model import BuildScriptError

            if isinstance(exc, (BuildScriptError, ProviderError, RenderBackendError)):
                _fail(str(exc), EXIT_FAILED)  # the build.py failed, the provider failed mid-run, no OpenGL
            _fail(str(exc), EXIT_USAGE)  # the toolkit's KeyError kinds print their message unquoted

    return wrapper


def _setup_logging(verbose: bool) -> None:
    logging.basicConfig(level=logging.INFO if verbose else logging.ERROR, format="%(levelname)s: %(message)s")


def _check_ldrawdir() -> None:
    """Warn on stderr when ``LDRAWDIR`` is set but holds no LDraw library.

    :func:`ldraw_data.library.find_library` then falls back to the installed copy and only logs it
    (shown with ``-v``); a user who set ``LDRAWDIR`` should see that it is not used.
    """
    import os

    env = os.environ.get("LDRAWDIR")
    if not env:
        return
    from ldraw_data.errors import LibraryNotFoundError
    from ldraw_data.library import find_library

    try:
        find_library(env)
    except LibraryNotFoundError:
        typer.echo(f"warning: LDRAWDIR={env} holds no LDraw library (no parts/ folder in it); using the "
                   "installed copy instead. Point LDRAWDIR at the folder holding LDConfig.ldr and parts/, "
                   "or unset it.", err=True)


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version

        try:
            v = version("brickwright-toolkit")
        except PackageNotFoundError:  # pragma: no cover - run from a source tree without install
            v = "unknown (not installed)"
        typer.echo(f"brickwright {v}")
        raise typer.Exit(EXIT_OK)


@app.callback()
def _main(ctx: typer.Context,
          verbose: bool = typer.Option(False, "--verbose", "-v", help="Log what the library does (INFO)."),
          quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress display (bars and run status "
                                                                  "lines); they are drawn only on a terminal."),
          version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                       help="Print the version and exit.")):
    """BrickWright: build, validate, render and sequence LEGO models that can really be built."""
    from . import progress

    progress.install(quiet=quiet)
    ctx.call_on_close(progress.stop)
    _setup_logging(verbose)
    if not verbose:  # with -v the library's own log line says it
        _check_ldrawdir()


# ----------------------------------------------------------------------------- library
@library_app.command("install")
@friendly
def library_install(source: str = typer.Argument(..., help="Path or URL of complete.zip (or an unpacked LDraw folder)."),
                    shadow: bool = typer.Option(False, "--shadow", help="Install the LDCad shadow library instead (installing complete.zip also installs an ldcad-shadow.zip found beside it)."),
                    dest: Optional[Path] = typer.Option(None, help="Install here instead of the per-user data folder."),
                    force: bool = typer.Option(False, "--force", help="Replace the installed library even with one that has far fewer parts (less than half).")):
    """Install the LDraw parts library (or the LDCad shadow library) for this user. A zip without LDConfig.ldr
    colours or parts is refused; so is one with far fewer parts than the installed library, unless --force."""
    from ldraw_data.library import install_library

    typer.echo(f"installing {'LDCad shadow library' if shadow else 'LDraw library'} from {source} ...")
    root = install_library(source, shadow=shadow, dest=dest, force=force)
    typer.echo(f"installed at {root}")
    if not shadow:
        from ldraw_data.library import LDrawLibrary, shadow_zip_beside

        lib = LDrawLibrary(root)
        typer.echo(count_of(len(lib.part_files()), "part"))
        beside = shadow_zip_beside(source) if dest is None else None
        if beside is not None:
            typer.echo(f"installing LDCad shadow library from {beside} (found beside it) ...")
            typer.echo(f"installed at {install_library(beside, shadow=True)}")
    if dest is None:
        from ldraw_data.connectors import catalog_connector_coverage
        from ldraw_data.library import find_shadow_library

        if find_shadow_library() is not None:
            typer.echo("reading the connectors of every part (BrickNet labels, LDCad snap information, hose drawings "
                       "and composite parts' pieces; once, 1 to 2 minutes, more on a busy machine) ...")
            try:
                covered, total = catalog_connector_coverage()
                typer.echo(f"{covered} of {count_of(total, 'part')} {'has' if covered == 1 else 'have'} connectors")
            except Exception as exc:  # noqa: BLE001 - a library not installed yet: read on first use instead
                typer.echo(f"connectors will be read on first use ({exc})")


@library_app.command("info")
@friendly
def library_info():
    """Where the library is, how many parts, colours and connector-labelled parts it has."""
    from ldraw_data.catalog import get_catalog
    from ldraw_data.colors import get_color_table
    from ldraw_data.connectors import catalog_connector_coverage
    from ldraw_data.library import find_shadow_library, get_library

    lib = get_library()
    cat = get_catalog(lib)
    covered, total = catalog_connector_coverage(lib)
    typer.echo(f"library:     {lib.root}")
    typer.echo(f"parts:       {len(cat)} in parts/")
    typer.echo(f"colours:     {len(get_color_table(lib))} (LDConfig.ldr)")
    typer.echo(f"connectors:  {covered} of {total} parts have connectors ({100 * covered / max(total, 1):.1f}%: "
               "BrickNet labels, LDCad snap information, hose drawings, composite parts' pieces)")
    sh = find_shadow_library()
    typer.echo(f"LDCad shadow library: {sh if sh else 'not installed (optional)'}")


# ----------------------------------------------------------------------------- search / info
@app.command("search")
@friendly
def search(query: str = typer.Argument(..., help='Free text, e.g. "brick 2 x 4" or "2x4 brick".'),
           category: Optional[str] = typer.Option(None, help="Exact category, e.g. Brick, Plate, Slope."),
           limit: int = typer.Option(10, min=1, help="Number of results."),
           as_json: bool = typer.Option(False, "--json", help="Print a JSON list of {part_id, name, category, "
                                                               "popularity, sticker_size_ldu}; sticker_size_ldu "
                                                               "is [width, height] LDU as stick() lays a flat "
                                                               "sticker, null for other parts.")):
    """Search the part catalog (BM25 x popularity).

    Exit 0 with results, 1 when no part matches (with --json, ``[]`` on stdout and the error on stderr), 2 for
    an empty query."""
    from ldraw_data.search import search_parts

    if not query.strip():
        _fail('the query is empty; try e.g. "brick 2 x 4" or "slope 45"')
    res = search_parts(query, category=category, limit=limit)
    if not res:
        if as_json:  # a script reading stdout gets valid JSON (break-it s26 F11); the exit code still says 1
            typer.echo("[]")
        _fail(f"no part matches {query!r}" + (f" in category {category!r}" if category else ""), EXIT_FAILED)
    if as_json:
        typer.echo(json.dumps([{"part_id": s.part_id, "name": s.name, "category": s.category,
                                "popularity": s.popularity,
                                "sticker_size_ldu": (list(s.sticker_size_ldu) if s.sticker_size_ldu else None)}
                               for s in res], indent=2))
        return
    from .parts_text import search_lines

    for line in search_lines(res):
        typer.echo(line)


@app.command("info")
@friendly
def info(model: Path = typer.Argument(..., help=".ldr or .mpd file"),
         as_json: bool = typer.Option(False, "--json", help="Print JSON.")):
    """Submodels, parts, bill of materials, size and unknown parts of a model.

    Exits 2 (unreadable input) for a file with no part in it (only comments, or every part line unreadable),
    as `validate` and `render` do: there is no model to describe."""
    from .inspect_model import model_info

    _input_file(model, "an .ldr or .mpd file")
    if model.suffix.lower() == ".py":
        _fail(f"{model}: info reads LDraw models (.ldr/.mpd); for a build.py use `brickwright validate` "
              "or export it with write_ldraw()")
    mi = model_info(model)
    if mi.parts == 0:  # the exit-code contract: a file with no part is not a model (exit 2), as validate says
        skipped = mi.unreadable_lines
        why = (f"; {count_of(len(skipped), 'part line')} could not be read (first: {skipped[0]})" if skipped
               else " (is it an LDraw model? every part is a '1 ...' line)")
        _fail(f"{model}: no parts found{why}")
    if as_json:
        typer.echo(json.dumps(mi.to_dict(), indent=2))
        return
    w, d, h = mi.size_studs
    mw, md, mh = mi.size_mm
    subs = mi.submodels[1:]  # the first model of a file is its main model
    typer.echo(f"{model.name}: {count_of(mi.parts, 'part')}, {count_of(len(mi.bom), 'distinct part/colour pair')}, "
               f"{count_of(len(subs), 'submodel') if subs else 'no submodels'}")
    typer.echo(f"size: {_num(w, 1)} x {_num(d, 1)} studs x {_num(h, 1)} bricks high ({_num(mw, 0)} x "
               f"{_num(md, 0)} x {_num(mh, 0)} mm)")
    if subs:
        typer.echo(f"main model: {mi.submodels[0]}; submodels: " + ", ".join(subs[:30])
                   + (" ..." if len(subs) > 30 else ""))
    if mi.embedded_parts:
        typer.echo("embedded parts: " + ", ".join(mi.embedded_parts))
    if mi.unknown_parts:
        typer.echo("unknown parts (not in the library): " + ", ".join(short_id(p) for p in mi.unknown_parts))
    drawn_only = list(dict.fromkeys(f"{short_id(pid)} ({name.strip('()')})" for pid, _c, _n, name, _cn in mi.bom
                                    if name in ("(primitive)", "(sub-part)")))
    if drawn_only:  # validate's NOT A PART rule (bricklayer.validate._world.not_part_kind)
        typer.echo("not parts (library primitives or sub-parts placed as parts; validate: NOT A PART): "
                   + ", ".join(drawn_only))
    typer.echo("bill of materials:")
    for pid, c, n, name, cname in mi.bom:
        typer.echo(f"  {n:>5} x {short_id(pid):<14} {name[:44]:<44} {cname} ({c})")
    for wmsg in mi.warnings:
        typer.echo(f"warning: {wmsg}", err=True)
    _say_shadowed(mi.shadowed_files, model, "measured")
    _say_unreadable(mi.unreadable_lines, "the counts above")


def _num(v: float, digits: int) -> str:
    """``v`` with ``digits`` decimals, or in e-notation (4 significant digits) past 1e9: a part placed absurdly
    far (a coordinate of 1e308) would otherwise print 300 digits."""
    return f"{v:.{digits}f}" if abs(v) < 1e9 else f"{v:.4g}"


@popularity_app.command("rebuild")
@friendly
def popularity_rebuild(folder: Path = typer.Argument(..., help="Folder of .ldr/.mpd models."),
                       out: Optional[Path] = typer.Option(
                           None, help="CSV to write (default: your own table in the data folder, which search "
                                      "then uses instead of the shipped one; delete it to go back)."),
                       force: bool = typer.Option(False, "--force", help="Replace an existing CSV.")):
    """Recount how often each part is used in a folder of models (the shipped table is never changed)."""
    from ldraw_data import catalog

    target = out or catalog.user_popularity_path()
    if target.resolve() == (Path(catalog.__file__).parent / "data" / "popularity.csv").resolve():
        _fail(f"{target} is the table shipped with the package; write your own (the default, or another --out)")
    if target.exists() and not force:
        _fail(f"{target} exists; pass --force to replace it")
    counts = catalog.build_popularity(folder)
    if not counts:
        _fail(f"{folder}: no parts found in its .ldr/.mpd files; {target} left as it was")
    catalog.write_popularity(counts, target)
    typer.echo(f"{len(counts)} parts, {sum(counts.values())} uses -> {target}"
               + ("" if out else " (search uses it from now on; delete it to go back to the shipped table)"))


MODEL_FILE = "an .ldr, .mpd or build.py file"


def _input_file(path: Path, give: str = MODEL_FILE) -> None:
    """The check every command makes on an input file: a missing path or a folder fails with one line
    (exit 2) naming it and, for a folder, ``give`` (what to pass instead). Reading it is the reader's job
    (:func:`ldraw_data.fileio.read_input_text` for plain text, ``read_ldraw`` for models)."""
    if not path.exists():
        _fail(f"{path}: no such file")
    if path.is_dir():
        _fail(f"{path} is a folder; give {give}")


def _output_not_input(out: Path, model: Path, give: str = "give another output file name") -> None:
    """The check every command that writes a file makes on its output: writing it onto the input file itself
    (the same file, by any path or link) fails with one line (exit 2), even with --force, as replacing the
    model being read is never what is meant; ``give`` says what to do instead."""
    import os

    try:
        same = out.exists() and model.exists() and os.path.samefile(out, model)
    except OSError:
        same = False
    if same:
        _fail(f"{out} is the input model {model}; {give} (--force never replaces the input)")


def _say_unreadable(lines: list, left_out_of: str, *, fatal: bool = False) -> None:
    """One stderr line when part lines of the model could not be read (``build.unreadable_lines``, each
    ``file:line: message``): how many parts are missing from ``left_out_of`` and the first line; ``fatal``
    says it as an error (the command then exits 1, as validate fails such a model) rather than a warning."""
    if not lines:
        return
    n = len(lines)
    typer.echo(f"{'error' if fatal else 'warning'}: {n} part line{'s' if n != 1 else ''} could not be read and "
               f"{'are' if n != 1 else 'is'} left out of {left_out_of} (first: {lines[0]}); fix "
               f"{'them' if n != 1 else 'it'} (`brickwright validate` lists every one)", err=True)


def _refuse_out_of_range(build, model: Path) -> None:
    """Fail (exit 2) with one line naming the first placement farther than the validator's OUT OF RANGE limit
    (:data:`~bricklayer.validate.findings.MAX_COORDINATE_LDU`, 1,000,000 LDU) from the origin: the geometry
    render, export and instructions would make of it is meaningless (float overflow)."""
    from bricklayer.validate.findings import MAX_COORDINATE_LDU, out_of_range_placements

    far = out_of_range_placements(build)
    if not far:
        return
    path = getattr(far[0], "path", ())
    origin = path[-1].origin if path else None
    where = f"{origin[0]}:{origin[1]}" if origin else f"{model}"
    n = len(far)
    x, y, z = (float(v) for v in far[0].pose.matrix[:3, 3])
    _fail(f"{where}: part placed at ({x:.4g}, {y:.4g}, {z:.4g}) LDU, farther than {MAX_COORDINATE_LDU:,.0f} LDU "
          f"from the origin ({n} part{'s' if n != 1 else ''} out of range); move "
          f"{'them' if n != 1 else 'it'} nearer (`brickwright validate` lists every one)")


def _warn_shadowed(build, model: Path, drawn: str = "drawn") -> None:
    """One warning line on stderr when an MPD block of the model redefines a file of the LDraw library.

    Render, export and instructions use the file's own block, as LDraw viewers do (MPD spec: a block of the
    file takes the place of a library file of that name for the file's references), and so does
    ``validate``'s geometry, which calls such a model NOT VALID (``SHADOWED LIBRARY FILE``,
    :func:`bricklayer.validate.findings.shadowed_library_files`); the output is made, the user is told.
    ``drawn``: the verb for what the command does with the block (``"drawn"``, ``"exported"``)."""
    from bricklayer.validate.findings import shadowed_library_files

    _say_shadowed(shadowed_library_files(build), model, drawn)


def _say_shadowed(rows: list, model: Path, drawn: str) -> None:
    """The one warning line of :func:`_warn_shadowed` for ``rows`` (those of
    :func:`bricklayer.validate.findings.shadowing_blocks`); nothing when there are none."""
    if not rows:
        return
    d = rows[0]
    where = f"{d['file']}:{d['line']}" if d.get("line") else f"{model}"
    more = f" ({len(rows) - 1} more such block{'s' if len(rows) > 2 else ''})" if len(rows) > 1 else ""
    typer.echo(f"warning: {where}: 0 FILE {short_id(d['name'])} redefines {d['library_file']} of the LDraw library"
               f"{more}; {drawn} with the file's own block, as LDraw viewers do (MPD spec), not the catalog "
               "part: `brickwright validate` reports the model NOT VALID", err=True)


def _check_output(out: Path, model: Path, force: bool) -> None:
    """The checks every command makes on an output file before any work (exit 2, one line): not the input
    model itself (:func:`_output_not_input`), not a folder, not an existing file without --force
    (:func:`ldraw_data.fileio.check_output_file`)."""
    from ldraw_data.fileio import check_output_file

    _output_not_input(out, model)
    check_output_file(out, force, replace_hint="pass --force")
    _output_folder_exists(out.parent, out)


def _output_folder_exists(folder: Path, out: Path, *, doing: str = "cannot write", kind: str = "file") -> None:
    """Fail (exit 2, one line) when ``folder``, where the output ``out`` goes, is missing or not a folder:
    a typo in an output path must not create a tree of folders without a word (render, export and parts
    write into an existing folder; instructions creates its one --out folder, not the folders above it).
    ``doing`` starts the message (``"cannot create the folder"`` for instructions), ``kind`` is what ``out`` is."""
    if folder.is_dir():
        return
    above = next((p for p in (folder, *folder.parents) if p.exists()), None)
    if above is not None and not above.is_dir():  # the wording of ldraw_data.fileio.output_write_error
        _fail(f"{doing} {out}: {above} is a file, not a folder; choose a {kind} name in a folder")
    _fail(f"{doing} {out}: no such folder {folder}; create it first (mkdir -p {folder}) or choose an "
          "existing folder")


def _load_model_or_script(model: Path):
    """(build, None) for an LDraw file; (None, None) for a build.py (run by the caller); fails clearly on
    a missing file, a folder, or a model with no parts. Import warnings go to stderr."""
    _input_file(model)
    if model.suffix.lower() == ".py":
        return None, None
    from bricklayer import read_ldraw

    build = read_ldraw(model)
    for w in getattr(build, "import_warnings", []):
        typer.echo(f"warning: {w}", err=True)
    if build.brick_count == 0:
        _fail(f"{model}: no parts found (is it an LDraw model? every part is a '1 ...' line)")
    return build, None


# ----------------------------------------------------------------------------- validate
#: What ``validate --json`` prints for each file, and what ``status`` and ``exit_code`` mean (docstring of
#: :func:`validate_record`; ``brickwright validate --help``).
VALIDATE_STATUS_EXIT = {"valid": EXIT_OK, "not valid": EXIT_FAILED, "failed": EXIT_FAILED,
                        "timed out": EXIT_FAILED, "unreadable": EXIT_USAGE, "interrupted": 130}


def _interrupted_record(path: str) -> dict:
    """The record of a file Ctrl-C stopped before it was judged: status ``"interrupted"``, exit code 130 (the
    shell's code for SIGINT), no verdict."""
    return _record(path, "interrupted", warnings=[],
                   error=f"{path}: no verdict: interrupted (Ctrl-C) before it was judged; validate it again")


def _record(path: str, status: str, **fields) -> dict:
    """A :func:`validate_record` with ``file``, ``status``, ``exit_code`` and ``valid`` first."""
    return {"file": path, "status": status, "exit_code": VALIDATE_STATUS_EXIT[status],
            "valid": status == "valid", **fields}


def validate_record(path: str, sandbox: bool = True, inventory: str | None = None, stability: bool = False) -> dict:
    """The result of ``brickwright validate`` for one file: the one JSON object ``--json`` prints for it, alone
    or as one line among several files.

    Parameters
    ----------
    path : str
        An .ldr/.mpd file (read, no code runs) or a build.py (run in the sandbox, judged in another process).
    sandbox : bool
        False runs a build.py with process limits only (``--no-sandbox``).
    inventory : str, optional
        CSV of the parts the model may use (:func:`bricklayer.inventory.read_inventory`).
    stability : bool
        Also run :func:`bricklayer.stability.stability_report` (key ``stability``; unstable = not valid).

    Returns
    -------
    dict
        Always ``file`` (the path as given), ``status`` (``"valid"``, ``"not valid"``, ``"failed"``: the build.py
        raised or the judge gave no verdict, ``"timed out"``: ``--time-budget`` ran out first (added by the CLI),
        ``"unreadable"``: missing, not LDraw, no parts, or a build.py that cannot be run here: no sandbox,
        pass ``--no-sandbox`` for trusted code), ``exit_code`` (0, 1, 1, 1, 2: the CLI's contract,
        :data:`VALIDATE_STATUS_EXIT`), ``valid`` (bool; true only for ``"valid"``) and ``warnings`` (import
        warnings, list of str). When the file was judged: every key of the validation report
        (:meth:`bricklayer.validate.report.ValidationReport.to_dict`: ``source``, ``parts``, ``collisions``,
        ``floating``, ..., ``problems``, ``text``), ``tests`` for a build.py with run_tests(), ``stability`` when
        asked; ``valid`` is then the report's verdict and the tests' and stability's. Otherwise ``error``: one
        line saying what went wrong. Never raises for a bad file; the caller prints.
    """
    from .inspect_model import BuildScriptError, run_build_script
    from .validation import validation_report

    p = Path(path)
    warnings: list[str] = []
    try:
        if not p.exists():
            return _record(path, "unreadable", warnings=warnings, error=f"{path}: no such file")
        if p.is_dir():
            return _record(path, "unreadable", warnings=warnings, error=f"{path} is a folder; give {MODEL_FILE}")
        tests = None
        if p.suffix.lower() == ".py":
            res = run_build_script(p, sandbox=sandbox)
            build, rep, tests = res["build"], res.get("report"), res.get("tests")
            if not rep:  # the judge failed (its limits): say so, never judge in this process
                problems = (res.get("fixed") or {}).get("problems") or ["the judge gave no verdict"]
                return _record(path, "failed", warnings=warnings, error=f"{path}: no verdict: {'; '.join(problems)}")
            rep["source"] = path
        else:
            from bricklayer import read_ldraw

            build = read_ldraw(p)
            warnings = [str(w) for w in getattr(build, "import_warnings", [])]
            if build.brick_count == 0:
                skipped = getattr(build, "unreadable_lines", None) or []
                why = (f"; {count_of(len(skipped), 'part line')} could not be read (first: {skipped[0]})"
                       if skipped else " (is it an LDraw model? every part is a '1 ...' line)")
                return _record(path, "unreadable", warnings=warnings, error=f"{path}: no parts found{why}")
            rep = validation_report(build, source=path)
        if inventory:
            from bricklayer.inventory import read_inventory

            from .validation import add_inventory_check

            add_inventory_check(rep, build, read_inventory(inventory))
        ok = bool(rep["valid"])
        if tests is not None:
            rep["tests"] = tests
            ok = ok and bool(tests.get("passed"))
            rep["text"] += "\nrun_tests: " + ", ".join(
                f"{c['name']} {'ok' if c['passed'] else 'FAILED'}"
                + (f" ({c['detail']})" if c.get("detail") and not c["passed"] else "")
                for c in tests.get("checks", []))
        if stability:
            from bricklayer.stability import stability_report

            st = stability_report(build)
            rep["stability"] = st.to_dict()
            rep["text"] += "\n" + st.text()
            ok = ok and st.stable
        return {**_record(path, "valid" if ok else "not valid", warnings=warnings), **rep, "valid": ok}
    except BuildScriptError as exc:
        return _record(path, "failed", warnings=warnings, error=str(exc) or f"{path}: build.py failed")
    except (ToolkitError, OSError) as exc:
        return _record(path, "unreadable", warnings=warnings, error=str(exc))


def _validate_in_pool(models: list[str], args: tuple, workers: int, budget_s: float | None):
    """Yield ``(index, record)``: :func:`validate_record` of each path in the order given, computed in ``workers``
    processes. On Ctrl-C (raised here, or thrown in by the caller while it prints) the workers are stopped,
    the records already computed and an ``"interrupted"`` record for each other file are yielded, and the
    interrupt goes on.

    With ``budget_s`` (wall seconds for the whole command), files not judged when it runs out get a
    ``"timed out"`` record and the worker processes are terminated (SIGTERM; a build.py's sandboxed worker
    ends at its own time limit). A worker that dies (killed for memory, a crash) gives its file a ``"failed"``
    record rather than a hang or a traceback."""
    import time
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures import TimeoutError as FutureTimeout
    from concurrent.futures.process import BrokenProcessPool

    deadline = None if budget_s is None else time.monotonic() + budget_s
    pool = ProcessPoolExecutor(max_workers=max(1, workers), initializer=_pool_worker_init)
    futures, given = [], 0
    try:
        futures = [pool.submit(_validate_record_in_pool, m, *args) for m in models]
        for m, fut in zip(models, futures):
            try:
                rec = fut.result(timeout=None if deadline is None else max(0.0, deadline - time.monotonic()))
                yield given, rec
                given += 1  # counted once the caller has it (a Ctrl-C while it prints is thrown in here)
                continue
            except FutureTimeout:
                rec = _record(m, "timed out", warnings=[],
                              error=f"{m}: no verdict: --time-budget {budget_s:g} s ran out before it was judged; "
                                    "give more time (or validate it alone)")
            except BrokenProcessPool:
                rec = _record(m, "failed", warnings=[],
                              error=f"{m}: no verdict: the worker process judging it died (out of memory or "
                                    "killed); validate it alone to see why")
            yield given, rec
            given += 1
    except KeyboardInterrupt:
        # Ctrl-C: the verdicts already computed are kept (in the order given, behind the file being waited
        # for), every other file gets an "interrupted" record, then the interrupt goes on (exit 130)
        _stop_pool(pool)
        pool = None  # stopped once: a second shutdown can race the executor's own thread on its closed pipe
        for k, m in enumerate(models[given:], start=given):
            fut = futures[k] if k < len(futures) else None
            done = fut is not None and fut.done() and not fut.cancelled() and fut.exception() is None
            yield k, (fut.result() if done else _interrupted_record(m))
        raise
    finally:
        if pool is not None:
            _stop_pool(pool)


def _validate_here(path: str, args: tuple):
    """Yield ``(0, record)``: :func:`validate_record` of one file, computed in this process (the protocol of
    :func:`_validate_in_pool`; on Ctrl-C :func:`validate` gives the file an ``"interrupted"`` record)."""
    yield 0, validate_record(path, *args)


def _drain_after_interrupt(records) -> list:
    """The ``(index, record)`` pairs a record generator (:func:`_validate_in_pool`) still gives once Ctrl-C is
    thrown into it: the verdicts already computed and ``"interrupted"`` records for the other files."""
    out = []
    try:
        out.append(records.throw(KeyboardInterrupt()))
        while True:
            out.append(next(records))
    except (KeyboardInterrupt, StopIteration):
        pass
    return out


class _Terminated(BaseException):
    """Raised in a validate pool worker by SIGTERM (:func:`_stop_pool`), so the ``with`` blocks of the file
    being judged run: the build.py's worker and judge processes are stopped and their temporary folders
    (``brickwright-validate-*``, ``brickwright-worker-*``) deleted before the process exits."""


#: True while a pool process judges a file (:func:`_validate_record_in_pool`): SIGTERM then unwinds it.
_JUDGING = False


def _on_sigterm(_signum, _frame) -> None:
    import os

    import signal

    if not _JUDGING:  # idle (waiting for work): nothing to clean up
        os._exit(143)
    # the executor terminates the other processes again when one exits: the clean-up must not be cut short
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise _Terminated()


def _pool_worker_init() -> None:
    """Initializer of the validate pool's processes: SIGTERM unwinds the file being judged (:class:`_Terminated`)
    instead of ending the process at once, which left its temporary folders behind (s24 break-it finding 9).

    SIGINT does nothing here: Ctrl-C reaches every process of the terminal's process group, and a pool process
    waiting for work printed ``Process ForkProcess-N:`` and a traceback. The main process alone handles it
    (``interrupted``, exit 130) and stops the pool with SIGTERM, which cleans up as above. A handler, not
    ``SIG_IGN``: a program this process starts (bwrap, the build's worker) gets the default action back at
    ``exec`` and still ends on Ctrl-C, as before; an ignored SIGINT would be inherited and could leave one
    running (a bwrap started just as SIGTERM came)."""
    import signal

    signal.signal(signal.SIGINT, _ignore_signal)
    signal.signal(signal.SIGTERM, _on_sigterm)


def _ignore_signal(_signum, _frame) -> None:
    """A signal handler that does nothing (see :func:`_pool_worker_init`)."""


def _validate_record_in_pool(path: str, *args) -> dict:
    """:func:`validate_record` in a pool process; on SIGTERM (``--time-budget`` ran out) the clean-up has run
    when :class:`_Terminated` gets here, and the process exits at once with 143 (128 + SIGTERM)."""
    import os

    global _JUDGING
    _JUDGING = True
    try:
        return validate_record(path, *args)
    except _Terminated:
        os._exit(143)
    finally:
        _JUDGING = False


def _stop_pool(pool) -> None:
    """Shut a ProcessPoolExecutor down without waiting for files still being judged: queued work is cancelled
    and running workers are terminated (``terminate_workers()`` from Python 3.14; before it, each worker
    process of the executor is sent SIGTERM)."""
    stop = getattr(pool, "terminate_workers", None)
    if stop is not None:  # pragma: no cover - Python 3.14+
        stop()
        return
    procs = list((getattr(pool, "_processes", None) or {}).values())  # shutdown() forgets them
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in procs:
        if proc.is_alive():
            proc.terminate()
    for proc in procs:
        proc.join(timeout=5)
    # the executor's manager thread closes its wake-up pipe when it sees the workers gone; joined here, so the
    # interpreter's exit hook (concurrent.futures.process._python_exit) cannot write to that pipe while it is
    # being closed ("Exception ignored ... Bad file descriptor" after "interrupted", seen in CI)
    manager = getattr(pool, "_executor_manager_thread", None)
    if manager is not None and manager.is_alive():
        manager.join(timeout=5)


def _say_record(r: dict, many: bool) -> None:
    """Print one :func:`validate_record` for people: the whole report for one file, one line each for several."""
    for w in r.get("warnings") or ():
        typer.echo(f"warning: {w}", err=True)
    if "error" in r:
        if not many:
            if r["status"] != "interrupted":  # one file: the command's own "interrupted" line says it
                typer.echo(f"error: {r['error']}", err=True)
        else:
            what = {"unreadable": "cannot be read", "failed": "build.py failed",
                    "timed out": "timed out", "interrupted": "interrupted"}[r["status"]]
            first = r["error"].splitlines()[0] if r["error"] else ""
            typer.echo(f"{r['file']}: {what}: {first.removeprefix(r['file'] + ': ')}")
    elif not many:
        typer.echo(r["text"])
    else:
        over = len(r.get("over_inventory") or ())
        extra = f", {over} beyond the inventory" if over else ""
        typer.echo(f"{r['file']}: {r['parts']} parts, {count_of(len(r['collisions']), 'colliding pair')}, "
                   f"{len(r['floating'])} floating, {r['components']} connected component(s){extra} -> "
                   f"{'VALID' if r['valid'] else 'NOT VALID'}")


@app.command("validate")
@friendly
def validate(models: list[Path] = typer.Argument(..., help=".ldr, .mpd or build.py files (several: validated "
                                                          "in parallel, one summary line each)."),
             as_json: bool = typer.Option(False, "--json", help="Print one JSON object per file, one per line "
                                                                "(JSON Lines), in the order given, one file or "
                                                                "many: the full report plus file, status, "
                                                                "exit_code (see above)."),
             stability: bool = typer.Option(False, "--stability", help="Also check stability (when available)."),
             no_sandbox: bool = typer.Option(False, "--no-sandbox", help=NO_SANDBOX_HELP),
             inventory: Optional[Path] = typer.Option(None, help="Parts the model may use (CSV: part id, LDraw "
                                                                 "colour code, quantity); more is not valid."),
             workers: int = typer.Option(0, min=0, help="Parallel processes for several files (0: one per CPU)."),
             time_budget: Optional[float] = typer.Option(
                 None, "--time-budget", help="Wall seconds for the whole command; files not judged by then get "
                                             "status \"timed out\" (no verdict, exit 1), those judged keep "
                                             "theirs.")):
    """Check collisions, floating parts and connectivity; exit 1 when the build is not valid.

    A build.py runs in the sandbox; the verdict is computed in another process, on the LDraw text of the
    build it returns (its own run_tests() results are printed beside it and can only fail it). An .ldr/.mpd
    file runs no code at all.

    --json: each file's result is one JSON object on its own line (JSON Lines), the same object for one
    file or many: "file", "status" ("valid", "not valid", "failed": the build.py raised or got no verdict,
    "timed out", "unreadable"), "exit_code" (that file's own: 0, 1, 1, 1, 2), "valid", "warnings", then
    either the whole report ("parts", "collisions", "floating", ..., "problems", "text") or "error" (one
    line). Pretty-print with `jq .`. Ctrl-C prints the files already judged and a record with status
    "interrupted" (exit_code 130) for each other file, in the order given, then exits 130.

    Exit code: 2 when any file cannot be read (missing, not LDraw, no parts), else 1 when any is not valid,
    failed or timed out, else 0. A file that runs out of --time-budget exits 1 as a build.py that exceeds its
    own time limit does (the work failed; no verdict, never a pass), not 2, which says the command line or
    the input is wrong."""
    if time_budget is not None and not 0.0 < time_budget < float("inf"):
        _fail(f"--time-budget {time_budget}: give a finite number of seconds > 0, e.g. 60")
    if inventory is not None:
        from bricklayer.inventory import read_inventory

        read_inventory(inventory)  # a bad inventory is a usage error before any file is read
    paths = [str(m) for m in models]
    args = (not no_sandbox, str(inventory) if inventory else None, stability)
    if len(paths) == 1 and time_budget is None:
        records = _validate_here(paths[0], args)  # in this process: no pool to start
    else:
        import os

        n = workers or min(len(paths), os.cpu_count() or 1)
        records = _validate_in_pool(paths, args, n, time_budget)
    codes = []

    def say(r: dict) -> None:
        codes.append(r["exit_code"])
        if as_json:
            for w in r.get("warnings") or ():
                typer.echo(f"warning: {w}", err=True)
            typer.echo(json.dumps(r, default=str))
        else:
            _say_record(r, many=len(paths) > 1)

    import signal

    said = 0  # records printed, in the order given
    # a Ctrl-C while a record is printed waits until it is out and counted: never a line twice or half
    printing = {"now": False, "ctrl_c": False}

    def on_sigint(signum, frame):
        if printing["now"]:
            printing["ctrl_c"] = True
        else:
            signal.default_int_handler(signum, frame)

    before = signal.signal(signal.SIGINT, on_sigint)
    try:
        for k, r in records:
            printing["now"] = True
            say(r)
            said = k + 1
            printing["now"] = False
            if printing["ctrl_c"]:
                raise KeyboardInterrupt
    except KeyboardInterrupt:  # one line for every file still: its verdict when computed, else "interrupted"
        printing["now"] = True
        for k, r in _drain_after_interrupt(records):
            if k >= said:
                say(r)
                said = k + 1
        for m in paths[said:]:
            say(_interrupted_record(m))
        raise
    finally:
        signal.signal(signal.SIGINT, before)
    raise typer.Exit(EXIT_USAGE if EXIT_USAGE in codes else max(codes))


@app.command("instructions")
@friendly
def instructions(model: Path = typer.Argument(..., help=".ldr, .mpd or build.py"),
                 out: Path = typer.Option(..., help="Folder for steps.mpd, plan.json and step images (made when "
                                                    "missing; the folder holding it must exist)."),
                 images: bool = typer.Option(True, help="Render step-NNNN.png pictures: the model so far after "
                                                        "each group of at most --max-parts-per-step parts, "
                                                        "in assembly order."),
                 max_images: Optional[int] = typer.Option(None, min=0, help="Render at most this many pictures (default: all, one per LDraw step)."),
                 max_parts_per_step: int = typer.Option(6, min=1, help="Parts per step at most."),
                 budget: float = typer.Option(60.0,
                                              help="Planning time budget, CPU seconds (the same plan on a busy "
                                                   "machine); a finite number."),
                 separate_objects: bool = typer.Option(
                     False, "--separate-objects",
                     help="Objects drawn apart (stands, loose parts) stand on their own ground, as official "
                          "files draw them."),
                 force: bool = typer.Option(False, "--force", help="Replace instructions already in OUT."),
                 no_sandbox: bool = typer.Option(False, "--no-sandbox", help=NO_SANDBOX_HELP),
                 as_json: bool = typer.Option(False, "--json", help="Print plan.json's summary with the paths of "
                                                                     "steps.mpd, plan.json and the pictures.")):
    """Find a buildable assembly order and write it as LDraw steps (and pictures).

    Exits 1 when some parts could not be placed (the reasons are listed); a part the LDraw library
    does not know (nor the file embeds), and a part line that could not be read, count as not placed.
    plan.json lists every failure and unreadable line, with the same counts. The first line is the
    verdict of `brickwright validate` on the model (the one validation report: `-> VALID` or
    `-> NOT VALID`, also `valid` in plan.json); a model that is not valid still gets its steps (objects
    drawn apart, a stand, are not valid as one build), and parts drawn inside each other are not held
    against the order: a warning says how many pairs collide (fix them with `brickwright validate`).

    plan.json is written last: while a run writes OUT (and after one stopped by Ctrl-C or killed), it holds
    `{"status": "unfinished: ..."}`; a later run writes such a folder anew without --force. A folder another
    run is still writing is refused (exit 2)."""
    from bricklayer.assembly import write_instructions

    if not 0.0 <= budget < float("inf"):  # also refuses nan
        _fail(f"--budget {budget}: give a finite number of CPU seconds >= 0, e.g. 60", code=2)

    from .inspect_model import load_build

    if out.exists() and not out.is_dir():
        _fail(f"{out} is a file; --out takes a folder")
    from bricklayer.assembly.instructions import INSTRUCTION_FILES

    for name in INSTRUCTION_FILES:  # the input is never taken for earlier output, nor replaced by --force
        _output_not_input(out / name, model, give="give another --out folder")
    _output_folder_exists(out.parent, out, doing="cannot create the folder", kind="folder")
    build, _ = _load_model_or_script(model)
    if build is None:
        build = load_build(model, sandbox=not no_sandbox)
    _refuse_out_of_range(build, model)
    _warn_shadowed(build, model)
    try:
        res = write_instructions(build, out, images=images, max_images=max_images,
                                 max_parts_per_step=max_parts_per_step, time_budget=budget,
                                 separate_objects=separate_objects, overwrite=force, source=str(model))
    except FileExistsError as exc:
        _fail(str(exc).replace("overwrite=True (CLI: --force)", "--force"))
    except NotADirectoryError as exc:
        _fail(f"--out {out}: {exc}")
    # plan.json's counts: unknown parts and unreadable part lines count as not placed (write_instructions)
    from .validation import MAX_LISTED

    s = res["summary"]
    if as_json:
        typer.echo(json.dumps({"summary": s, "mpd": str(res["mpd"]), "plan": str(res["plan"]),
                               "images": [str(p) for p in res["images"]], "image_error": res.get("image_error")},
                              indent=2, default=str))
        raise typer.Exit(EXIT_FAILED if s["failed"] else EXIT_OK)
    planned = s["parts"] - s["skipped"]
    reasons = s["skipped_reasons"]
    typer.echo(s["validation"])  # the verdict line of `brickwright validate MODEL`, from the same report
    if not s["valid"]:
        typer.echo(f"  (`brickwright validate {model}` lists the problems)")
    if s.get("colliding_pairs"):
        n_pairs = s["colliding_pairs"]
        typer.echo(f"warning: {count_of(n_pairs, 'pair')} of parts collide{'s' if n_pairs == 1 else ''} in the "
                   "model as drawn; no order makes "
                   "it buildable until they are fixed (`brickwright validate`)", err=True)
    typer.echo(f"{model.name}: {s['placed']} of {planned} parts placed "
               f"({100 * s['placed_share']:.1f}%), {s['skipped']} added in a last step"
               f"{' (' + ', '.join(f'{k}: {v}' for k, v in reasons.items()) + ')' if reasons else ''}, "
               f"{s['failed']} could not be placed; {s['ldraw_steps']} step(s) in steps.mpd, "
               f"planned in {s['seconds']} s")
    for f in s["failures"][:MAX_LISTED]:
        typer.echo(f"  NOT PLACED {f['part']}: {f['reason']}")
    if s["failed"] > MAX_LISTED:
        typer.echo(f"  ... and {s['failed'] - MAX_LISTED} more (plan.json)")
    typer.echo(f"steps: {res['mpd']}")
    typer.echo(f"plan: {res['plan']}")
    if res["images"]:
        typer.echo(f"images: {len(res['images'])} in {out}")
    if res.get("image_error"):
        typer.echo(f"images: {res['image_error']}", err=True)
    if s["failed"]:
        raise typer.Exit(EXIT_FAILED)


# ----------------------------------------------------------------------------- render
@app.command("render")
@friendly
def render(model: Path = typer.Argument(..., help=".ldr, .mpd or build.py"),
           view: str = typer.Option("iso", help="iso, iso_back, front, back, left, right, top, bottom, or sheet (six views)."),
           highlight_problems: bool = typer.Option(False, "--highlight-problems",
                                                   help="Colliding parts red, floating parts orange, the rest faded."),
           out: Optional[Path] = typer.Option(None, help="PNG to write (default: beside the model, in MODEL's "
                                                         "folder, with .png for its suffix: dir/m.mpd -> "
                                                         "dir/m.png)."),
           size: Optional[str] = typer.Option(None, help="WxH in pixels, e.g. 1200x800."),
           edges: bool = typer.Option(True, help="Draw LDraw edge lines."),
           force: bool = typer.Option(False, "--force", help="Replace an existing output file."),
           no_sandbox: bool = typer.Option(False, "--no-sandbox", help=NO_SANDBOX_HELP),
           as_json: bool = typer.Option(False, "--json", help='Print {"png": path, "view": ..., "parts": n}.')):
    """Render a model to PNG offscreen (software OpenGL, no display needed)."""
    from bricklayer.render import save_render

    from .inspect_model import load_build

    from bricklayer.render import VIEWS
    from bricklayer.render.render import parse_size

    # options first: a bad --view or --size is reported as such, even when the PNG exists
    if view.strip().lower() not in (*VIEWS, "sheet"):
        _fail(f"unknown view {view!r}; use one of {', '.join(VIEWS)} or sheet")
    if size is not None:
        parse_size(size)  # "WxH" within 8..8192 pixels, else ValueError
    target = out or model.with_suffix(".png")
    if target.suffix.lower() != ".png":
        _fail(f"{target}: the output is a PNG image; give a file name ending in .png")
    _check_output(target, model, force)
    build, _ = _load_model_or_script(model)
    if build is None:
        build = load_build(model, sandbox=not no_sandbox)
    _refuse_out_of_range(build, model)
    _warn_shadowed(build, model)
    try:
        path = save_render(build, target, view=view, size=size, highlight_problems=highlight_problems,
                           edges=edges, overwrite=force)
    except FileExistsError as exc:  # another run wrote it meanwhile (break-it s26 F9)
        _fail(str(exc).replace("pass overwrite=True", "pass --force"))
    if as_json:
        typer.echo(json.dumps({"png": str(path), "view": view, "parts": build.brick_count}))
    else:
        typer.echo(str(path))


# ----------------------------------------------------------------------------- agent
def _progress(ev, prefix: str = "") -> None:
    """A run's status line: redrawn in place on a terminal, one plain line per event otherwise (CI logs),
    nothing with --quiet (:func:`brickwright.progress.event_line`)."""
    from .progress import event_line

    event_line(prefix + ev.line(), last=bool(getattr(ev, "done", False)))


@app.command("generate")
@friendly
def generate(prompt: str = typer.Argument(..., help='What to build, e.g. "a red fire truck".'),
             image: Optional[Path] = typer.Option(None, help="Reference image for multimodal models."),
             from_path: Optional[Path] = typer.Option(None, "--from", help="Start from a build.py or .ldr/.mpd model."),
             model: Optional[str] = typer.Option(None, help="Model name (or BRICKWRIGHT_MODEL)."),
             base_url: Optional[str] = typer.Option(None, help="OpenAI-compatible server URL (or BRICKWRIGHT_BASE_URL)."),
             api_key: Optional[str] = typer.Option(None, help="API key (or OPENAI_API_KEY / BRICKWRIGHT_API_KEY / ANTHROPIC_API_KEY)."),
             out: Optional[Path] = typer.Option(None, help="Run folder (default: brickwright_runs/<time>-<slug>)."),
             max_calls: int = typer.Option(60, help="Maximum tool calls."),
             max_validate: int = typer.Option(20, help="Maximum validate calls."),
             budget: Optional[float] = typer.Option(None, help="Maximum cost in USD."),
             time_limit: float = typer.Option(30.0, help="Seconds allowed per build.py run."),
             force: bool = typer.Option(False, "--force", help="Replace a run already in --out."),
             no_sandbox: bool = typer.Option(False, "--no-sandbox", help=NO_SANDBOX_HELP),
             as_json: bool = typer.Option(False, "--json", help="Print result.json instead of the summary."),
             inventory: Optional[Path] = typer.Option(None, help="Parts the model may use: a CSV of part id, LDraw "
                                                                 "colour code and quantity (as `brickwright parts "
                                                                 "--out` writes); validate fails a build that "
                                                                 "uses more."),
             critic_model: Optional[str] = typer.Option(None, help="Model of the visual critic (default: --model)."),
             critique_rounds: int = typer.Option(0, min=0, help="With --image: critique rounds, each comparing "
                                                                "renders with the image when the model finalizes.")):
    """Let an LLM agent write build.py, validate and repair it, and export LDraw.

    The model's code runs in the OS sandbox (refused when none can be set up, unless --no-sandbox); whether
    the result is valid is decided outside it, on the exported model.ldr."""
    from .agent import generate as _generate

    res = _generate(prompt, image=image, from_path=from_path, model=model, base_url=base_url, api_key=api_key,
                    out_dir=out, max_calls=max_calls, max_validate=max_validate, budget_usd=budget,
                    time_limit=time_limit, progress=None if as_json else _progress, sandbox=not no_sandbox,
                    force=force, inventory=inventory, critic_model=critic_model, critique_rounds=critique_rounds)
    if as_json:
        typer.echo(json.dumps(res.to_dict(), indent=2, default=str))
        raise typer.Exit(EXIT_OK if res.passed else EXIT_FAILED)
    typer.echo(res.message)
    typer.echo(f"run folder: {res.run_dir}")
    typer.echo(f"model: {res.ldr_path}" if res.ldr_path else "model: none (no build came back to export)")
    if res.price_note:
        typer.echo(res.price_note)
    raise typer.Exit(EXIT_OK if res.passed else EXIT_FAILED)


PROMPTS_FILE = "a UTF-8 text file, one prompt a line"


@app.command("eval")
@friendly
def eval_(prompts: Path = typer.Argument(..., help="Text file, one prompt a line."),
          model: Optional[str] = typer.Option(None, help="Model name (or BRICKWRIGHT_MODEL)."),
          base_url: Optional[str] = typer.Option(None, help="OpenAI-compatible server URL (or BRICKWRIGHT_BASE_URL)."),
          api_key: Optional[str] = typer.Option(None, help="API key (or OPENAI_API_KEY / BRICKWRIGHT_API_KEY / "
                                                           "ANTHROPIC_API_KEY)."),
          out: Optional[Path] = typer.Option(None, help="Folder for the run folders and the metrics (JSON and "
                                                        "CSV; default: ./brickwright_eval)."),
          max_calls: int = typer.Option(60, min=1, help="Maximum tool calls per run."),
          max_validate: int = typer.Option(20, min=1, help="Maximum validate calls per run."),
          budget: Optional[float] = typer.Option(None, help="Maximum cost in USD per run."),
          force: bool = typer.Option(False, "--force", help="Replace runs and metrics already in --out."),
          no_sandbox: bool = typer.Option(False, "--no-sandbox", help=NO_SANDBOX_HELP),
          workers: int = typer.Option(1, min=1, help="Runs at once (each in its own sandbox); rows stay in "
                                                     "prompt order."),
          ray: Optional[str] = typer.Option(None, "--ray", metavar="ADDRESS", help=(
              "Run on a Ray cluster (pip install 'brickwright-toolkit[ray]'): HOST:PORT of the head node, "
              "ray://HOST:PORT, auto (the cluster started here with `ray start`) or local (a Ray instance for this "
              "eval). One task of 1 CPU per run; run folders come back to --out here."))):
    """Run many prompts and write the BrickWright metrics per run and overall (JSON and CSV)."""
    from .agent import evaluate
    from .agent.evaluate import read_prompts

    if ray is not None and not ray.strip():
        _fail("--ray needs an address: HOST:PORT of the head node, ray://HOST:PORT, auto or local", EXIT_USAGE)
    if ray is not None and workers > 1:
        _fail("give --workers or --ray, not both: on Ray the cluster's CPUs set how many runs go at once "
              "(one CPU a run)", EXIT_USAGE)
    _input_file(prompts, PROMPTS_FILE)
    n_runs = len(read_prompts(prompts))  # not UTF-8, binary, no prompt: one line naming file:line, exit 2
    res = evaluate(prompts, model=model, base_url=base_url, api_key=api_key, out_dir=out, max_calls=max_calls,
                   max_validate=max_validate, budget_usd=budget, sandbox=not no_sandbox, force=force,
                   workers=workers, ray_address=ray,
                   progress=lambda i, ev: _progress(ev, f"run {i} of {n_runs} | "))
    typer.echo(json.dumps(res.overall, indent=2))
    typer.echo(f"per run: {res.json_path}  {res.csv_path}")


@app.command("replay")
@friendly
def replay(transcript: Path = typer.Argument(..., help="transcript.jsonl of a run."),
           out: Path = typer.Argument(..., help="Folder to replay into."),
           no_sandbox: bool = typer.Option(False, "--no-sandbox", help=NO_SANDBOX_HELP)):
    """Re-execute a run's recorded tool calls and check it reaches the same final build.

    Exits 1 when the replayed final build differs from the recorded one or does not pass validate."""
    from .agent import replay as _replay

    res = _replay(transcript, out, sandbox=not no_sandbox)
    typer.echo(f"same final build: {res.same_build}; passed: {res.passed}; ldr: {res.ldr_path}")
    raise typer.Exit(0 if res.same_build and res.passed else 1)


# ----------------------------------------------------------------------------- tool (coding agents)
tool_app = typer.Typer(no_args_is_help=True, rich_markup_mode=None, help=(
    "The agent harness's tools on a run folder, from a shell, for coding agents (Claude Code, Codex, Cursor). "
    "Each call prints exactly the text the harness model reads; the state between calls (the last validate, "
    "for finalize) is kept in RUN_DIR/.brickwright/. Exit 0 ok, 1 the tool failed or refused (e.g. VALIDATE: "
    "FAILED), 2 usage error. Start with `brickwright tool init RUN_DIR` and `brickwright tool prompt`."))
app.add_typer(tool_app, name="tool")

_RUN_DIR_ARG = typer.Argument(..., help="The run folder (made by `brickwright tool init`).")
_JSON_ARGS = typer.Option(None, "--json-args", help='The tool\'s arguments as one JSON object, as the harness '
                                                      'model sends them, e.g. \'{"line": 3, "text": "x = 1"}\'.')
_TIME_LIMIT = typer.Option(30.0, "--time-limit", help="Seconds allowed for the build.py run.")


def _read_text_option(path: Optional[Path], what: str) -> Optional[str]:
    """Text of a ``--*-file`` option (``-`` reads standard input), or None when not given."""
    if path is None:
        return None
    if str(path) == "-":
        import sys

        return sys.stdin.read()
    from ldraw_data.fileio import read_input_text

    _input_file(path, f"a UTF-8 text file as {what}")
    return read_input_text(path, give=f"a UTF-8 text file as {what}")


def _tool_arguments(name: str, json_args: Optional[str], options: dict) -> dict:
    """The tool's arguments from ``--json-args`` or from its options (not both); a usage error (exit 2) when
    they are not what the tool takes (the harness's own message)."""
    from .agent.tools import argument_problem

    given = {k: v for k, v in options.items() if v is not None}
    if json_args is not None:
        if given:
            _fail(f"give {name}'s arguments either as --json-args or as options, not both", code=2)
        try:
            given = json.loads(json_args)
        except json.JSONDecodeError as exc:
            _fail(f"--json-args is not valid JSON ({exc}); give one JSON object, e.g. '{{\"content\": \"...\"}}'",
                  code=2)
        if not isinstance(given, dict):
            _fail("--json-args must be a JSON object, e.g. '{\"view\": \"iso\"}'", code=2)
    problem = argument_problem(name, given)
    if problem:
        _fail(problem, code=2)
    return given


def _run_tool_command(run_dir: Path, name: str, args: dict, *, sandbox: bool = True,
                      time_limit: float = 30.0) -> None:
    """Run one harness tool on RUN_DIR with a fresh worker (cold start, about 1-2 s, for validate, render and
    explore only), print its text, and exit 0 (ok) or 1 (failed or refused)."""
    from .agent.runfolder import LazyJudge, RunFolderError, run_tool
    from .agent.sandbox import SandboxUnavailableError
    from .agent.worker import Worker

    worker = Worker(time_limit=time_limit, warm_up=False, sandbox=sandbox)  # started only when code runs
    if name == "validate":  # the judge's cold start overlaps the worker's (Judge() starts in the background)
        from .agent.judge import Judge

        judge = Judge()
    else:
        judge = LazyJudge()
    try:
        out = run_tool(run_dir, name, args, worker=worker, judge=judge)
    except (RunFolderError, SandboxUnavailableError) as exc:
        _fail(str(exc), code=2)
    finally:
        worker.close()
        judge.close()
    typer.echo(out.text)
    if out.image:
        typer.echo(out.image)
    if out.finalized and (run_dir / "model.ldr").is_file():
        typer.echo(f"model.ldr: {(run_dir / 'model.ldr').resolve()} (the LDraw text the passing validate judged)",
                   err=True)
    raise typer.Exit(0 if out.ok else 1)


def _tool_command(name: str):
    """Register a ``tool`` subcommand under the harness's name (``write_build``) and, hidden, with dashes."""

    def register(fn):
        tool_app.command(name)(fn)
        if "_" in name:
            tool_app.command(name.replace("_", "-"), hidden=True)(fn)
        return fn

    return register


@tool_app.command("init")
@friendly
def tool_init(run_dir: Path = typer.Argument(..., help="Folder to create (or start over with --force)."),
              from_path: Optional[Path] = typer.Option(None, "--from",
                                                       help="Start from a build.py or an .ldr/.mpd model."),
              force: bool = typer.Option(False, "--force", help="Start over a folder that holds a run.")):
    """Create a run folder holding the harness's starting build.py (as `generate` starts a run)."""
    from .agent.runfolder import init_run_folder

    try:
        d = init_run_folder(run_dir, from_path=from_path, force=force)
    except (ToolkitError, OSError) as exc:  # a run there already, --from missing or of an unknown kind
        _fail(str(exc), code=2)
    typer.echo(f"{d / 'build.py'}: the starting build.py; next `brickwright tool prompt` (what the harness tells "
               f"a model; the same for every run, so RUN_DIR is optional there), then edit build.py and `brickwright tool validate {run_dir}`")


@tool_app.command("prompt")
@friendly
def tool_prompt(run_dir: Optional[Path] = typer.Argument(None, help="Optional run folder, as the other tools take "
                                                                   "it; the prompt is the same for every run, so "
                                                                   "it is only checked to be a run folder."),
                no_sandbox: bool = typer.Option(False, "--no-sandbox", help=NO_SANDBOX_HELP),
                out: Optional[Path] = typer.Option(None, help="Write the prompt to this file instead (it is long: "
                                                              "read it in parts)."),
                section: Optional[str] = typer.Option(None, help="Print only the section whose heading starts with "
                                                                  "this (case-insensitive), e.g. Tools, TestContext, "
                                                                  "Worked, bricklayer; or the API entry or method of "
                                                                  "that name, else those whose name starts with it, "
                                                                  "e.g. LegoBuild, slope, stack.")):
    """Print the system prompt the harness gives a model (loop, build.py contract, TestContext, bricklayer API).

    It starts with a table of contents: the line where each section begins. RUN_DIR may be given, as every other
    `tool` command takes it (the harness prompt does not depend on the run, so it is only checked: a folder
    that is no run folder is a usage error naming `brickwright tool init`)."""
    import tempfile

    from .agent.runfolder import RunFolderError, check_run_folder, harness_system_prompt
    from .agent.sandbox import SandboxUnavailableError
    from .agent.worker import Worker

    if run_dir is not None:
        try:
            check_run_folder(run_dir)
        except RunFolderError as exc:
            _fail(str(exc), code=2)
    try:
        with Worker(warm_up=False, sandbox=not no_sandbox) as worker, \
                tempfile.TemporaryDirectory(prefix="brickwright-prompt-") as work:
            text = harness_system_prompt(worker, work)
    except SandboxUnavailableError as exc:
        _fail(str(exc), code=2)
    lines = text.splitlines()
    heads = [(i, ln) for i, ln in enumerate(lines) if ln.startswith(("# ", "Tools:", "TestContext:"))]
    if section is not None:
        want = section.strip().lower()
        if not want:
            _fail("--section needs a name, e.g. --section Tools, --section LegoBuild, --section stack", code=2)
        hit = next((k for k, (_i, ln) in enumerate(heads) if ln.lstrip("# ").lower().startswith(want)), None)
        if hit is not None:
            start = heads[hit][0]
            end = next((i for i, _ln in heads[hit + 1:] if i > start + 1), len(lines))
            typer.echo("\n".join(lines[start:end]))
            return
        # one API entry ("## class LegoBuild(...)", "## slope(...)"): up to the next entry or section
        entries = [i for i, ln in enumerate(lines) if ln.startswith(("## ", "# "))]
        methods = [i for i, ln in enumerate(lines) if ln.startswith("  .")]

        def name_of(i: int) -> str:
            return lines[i][3:].removeprefix("class ").split("(")[0].strip().lower()

        # a whole name first: `--section stack` is the method stack(), not the entry StackCollisionWarning
        found = [i for i in entries if lines[i].startswith("## ") and name_of(i) == want]
        exact_methods = [] if found else [i for i in methods if name_of(i) == want]
        if not found and not exact_methods:
            found = [i for i in entries if lines[i].startswith("## ")
                     and lines[i][3:].removeprefix("class ").lower().startswith(want)]
        if not found:  # a method of a class entry ("  .stack(self, ...)"): up to the next method or entry
            hits = exact_methods or [i for i in methods if lines[i][3:].lower().startswith(want)]
            for start in hits:
                end = min([i for i in methods + entries if i > start] or [len(lines)])
                typer.echo("\n".join(lines[start:end]))
            if hits:
                return
        if not found:
            _fail(f"no section or API entry starts with {section!r}; the sections are: "
                  + "; ".join(ln.lstrip('# ').rstrip(':').split(' (')[0][:40] for _i, ln in heads)
                  + "; API entries are the '## ' lines (e.g. LegoBuild, Element, slope) and their methods "
                    "(e.g. stack, connect)", code=2)
        for start in found:
            end = next((i for i in entries if i > start), len(lines))
            typer.echo("\n".join(lines[start:end]))
        return
    toc = [f"(this prompt has {len(lines)} lines; sections start at: "
           + "; ".join(f"line {i + 3}: {ln.lstrip('# ').rstrip(':').split(' (')[0][:60]}" for i, ln in heads) + ")",
           "(to read a part: `brickwright tool prompt --section NAME` prints one section or one API entry, "
           "e.g. --section LegoBuild, --section slope; --out FILE writes the whole prompt)"]
    text = "\n".join(toc + lines) if heads else text
    if out is not None:
        from ldraw_data.fileio import atomic_write

        atomic_write(out, text + "\n")
        typer.echo(f"{out}: {len(text.splitlines())} lines")
        return
    typer.echo(text)


@tool_app.command("status")
@friendly
def tool_status(run_dir: Path = _RUN_DIR_ARG, as_json: bool = typer.Option(False, "--json", help="Print JSON.")):
    """Calls so far per tool, the validate call that first passed, the last verdict, finalized or not."""
    from .agent.runfolder import RunFolderError, run_status

    try:
        st = run_status(run_dir)
    except RunFolderError as exc:
        _fail(str(exc), code=2)
    if as_json:
        typer.echo(json.dumps(st, indent=2))
        return
    calls = ", ".join(f"{k} {v}" for k, v in sorted(st["calls"].items())) or "none"
    last = {None: "none yet", True: "PASSED", False: "FAILED"}[st["last_validate_passed"]]
    typer.echo(f"{st['run_dir']}: {st['tool_calls']} tool calls ({calls}); last validate {last}; first pass at "
               f"validate call {st['first_pass_validate'] or '-'}; finalized: {st['finalized']}"
               + (f"; {st['model_ldr']}" if st["model_ldr"] else ""))


@_tool_command("read_build")
@friendly
def tool_read_build(run_dir: Path = _RUN_DIR_ARG, json_args: Optional[str] = _JSON_ARGS):
    """build.py with line numbers (the numbers are not part of the file)."""
    _run_tool_command(run_dir, "read_build", _tool_arguments("read_build", json_args, {}))


@_tool_command("write_build")
@friendly
def tool_write_build(run_dir: Path = _RUN_DIR_ARG,
                     content: Optional[str] = typer.Option(None, help="The complete new build.py."),
                     content_file: Optional[Path] = typer.Option(None, help="Read the new build.py from this file "
                                                                            "(- for standard input)."),
                     json_args: Optional[str] = _JSON_ARGS):
    """Replace the whole of build.py."""
    if content is not None and content_file is not None:
        _fail("give --content or --content-file, not both", code=2)
    text = content if content is not None else _read_text_option(content_file, "--content-file")
    _run_tool_command(run_dir, "write_build", _tool_arguments("write_build", json_args, {"content": text}))


@_tool_command("edit_build")
@friendly
def tool_edit_build(run_dir: Path = _RUN_DIR_ARG,
                    old_text: Optional[str] = typer.Option(None, help="Exact text to find (whitespace matters)."),
                    new_text: Optional[str] = typer.Option(None, help="Replacement text."),
                    json_args: Optional[str] = _JSON_ARGS):
    """Replace the one exact occurrence of --old-text in build.py by --new-text (0 or 2+ matches: refused)."""
    _run_tool_command(run_dir, "edit_build", _tool_arguments("edit_build", json_args,
                                                             {"old_text": old_text, "new_text": new_text}))


@_tool_command("insert_build")
@friendly
def tool_insert_build(run_dir: Path = _RUN_DIR_ARG,
                      line: Optional[int] = typer.Option(None, help="1-based line to insert before "
                                                                    "(number of lines + 1 appends)."),
                      text: Optional[str] = typer.Option(None, help="Lines to insert."),
                      json_args: Optional[str] = _JSON_ARGS):
    """Insert --text before --line of build.py."""
    _run_tool_command(run_dir, "insert_build", _tool_arguments("insert_build", json_args,
                                                               {"line": line, "text": text}))


@_tool_command("validate")
@friendly
def tool_validate(run_dir: Path = _RUN_DIR_ARG, json_args: Optional[str] = _JSON_ARGS,
                  time_limit: float = _TIME_LIMIT,
                  no_sandbox: bool = typer.Option(False, "--no-sandbox", help=NO_SANDBOX_HELP)):
    """Run create_build() and run_tests() in the sandbox and judge the build: the harness's report; exit 1 when
    it FAILED."""
    _run_tool_command(run_dir, "validate", _tool_arguments("validate", json_args, {}), sandbox=not no_sandbox,
                      time_limit=time_limit)


@_tool_command("render")
@friendly
def tool_render(run_dir: Path = _RUN_DIR_ARG,
                view: Optional[str] = typer.Option(None, help="sheet (default), iso, iso_back, front, back, left, "
                                                              "right, top, bottom."),
                highlight_problems: bool = typer.Option(False, "--highlight-problems",
                                                        help="Colliding parts red, floating parts orange."),
                pose: Optional[str] = typer.Option(None, help='Joint values as JSON, e.g. \'{"lid": 60}\': the key is '
                                                              "the name of the placement the joint moves (the "
                                                              "name= given to connect() or add(); nested: "
                                                              "\"door/door\"), the value degrees (hinges, "
                                                              "turntables) or studs (sliders)."),
                json_args: Optional[str] = _JSON_ARGS, time_limit: float = _TIME_LIMIT,
                no_sandbox: bool = typer.Option(False, "--no-sandbox", help=NO_SANDBOX_HELP)):
    """Render the build to RUN_DIR/renders/; prints the harness's line, then the PNG's path."""
    pose_value = None
    if pose is not None:
        try:
            pose_value = json.loads(pose)
        except (json.JSONDecodeError, RecursionError) as exc:
            _fail(f"--pose is not valid JSON ({exc}); give e.g. '{{\"lid\": 60}}'", code=2)
    _run_tool_command(run_dir, "render", _tool_arguments(
        "render", json_args, {"view": view, "highlight_problems": True if highlight_problems else None,
                              "pose": pose_value}),
        sandbox=not no_sandbox, time_limit=time_limit)


@_tool_command("explore")
@friendly
def tool_explore(run_dir: Path = _RUN_DIR_ARG,
                 code: Optional[str] = typer.Option(None, help="Python code; bricklayer's names and `build` = "
                                                               "create_build() are in scope."),
                 code_file: Optional[Path] = typer.Option(None, help="Read the code from this file (- for "
                                                                     "standard input)."),
                 json_args: Optional[str] = _JSON_ARGS, time_limit: float = _TIME_LIMIT,
                 no_sandbox: bool = typer.Option(False, "--no-sandbox", help=NO_SANDBOX_HELP)):
    """Run a snippet in the sandbox with build.py's names in scope; prints its output."""
    if code is not None and code_file is not None:
        _fail("give --code or --code-file, not both", code=2)
    text = code if code is not None else _read_text_option(code_file, "--code-file")
    _run_tool_command(run_dir, "explore", _tool_arguments("explore", json_args, {"code": text}),
                      sandbox=not no_sandbox, time_limit=time_limit)


@_tool_command("finalize")
@friendly
def tool_finalize(run_dir: Path = _RUN_DIR_ARG,
                  summary: Optional[str] = typer.Option(None, help="One or two sentences describing the model."),
                  json_args: Optional[str] = _JSON_ARGS):
    """Finish: accepted only when the last validate passed and build.py is unchanged since; then writes
    RUN_DIR/model.ldr (the judged text)."""
    _run_tool_command(run_dir, "finalize", _tool_arguments("finalize", json_args, {"summary": summary}))


# ----------------------------------------------------------------------------- mcp
@app.command("mcp")
@friendly
def mcp(run_dir: Optional[Path] = typer.Option(None, "--run-dir",
                                               help="Default run folder of the tools (else each call names one "
                                                    "with run_dir)."),
        time_limit: float = typer.Option(30.0, "--time-limit", help="Seconds allowed per build.py run."),
        no_sandbox: bool = typer.Option(False, "--no-sandbox", help=NO_SANDBOX_HELP)):
    """Serve the harness tools, part search and part info over MCP (stdio), for coding agents.

    Keeps one warm sandboxed worker and one judge for the server's life. Needs the `mcp` package
    (pip install 'brickwright-toolkit[mcp]')."""
    try:
        from .agent.mcp_server import serve
    except ImportError as exc:
        _fail(f"the MCP server needs the mcp package ({exc}); pip install 'brickwright-toolkit[mcp]'", code=2)
    from .agent.runfolder import RunFolderError
    from .agent.sandbox import SandboxUnavailableError

    try:
        serve(run_dir=run_dir, sandbox=not no_sandbox, time_limit=time_limit)
    except (RunFolderError, SandboxUnavailableError) as exc:
        _fail(str(exc), code=2)


# ----------------------------------------------------------------------------- export / parts
EXPORT_SUFFIXES = {".glb": "glTF 2.0 binary", ".obj": "Wavefront OBJ (+ .mtl)", ".stl": "STL for printing (mm)",
                   ".usd": "USD (binary)", ".usdc": "USD (binary)", ".usda": "USD (text)"}


def _load_any(model: Path, no_sandbox: bool):
    """A LegoBuild from an .ldr/.mpd (read) or a build.py (run in the sandbox, as `render` does)."""
    from .inspect_model import load_build

    build, _ = _load_model_or_script(model)
    if build is None:
        build = load_build(model, sandbox=not no_sandbox)
    return build


@app.command("export")
@friendly
def export(model: Path = typer.Argument(..., help=".ldr, .mpd or build.py"),
           out: Path = typer.Argument(..., help="File to write: .glb, .obj (+ .mtl beside it), .stl, .usd, "
                                                ".usdc or .usda."),
           force: bool = typer.Option(False, "--force", help="Replace an existing output file."),
           as_json: bool = typer.Option(False, "--json", help="Print what was written as JSON."),
           no_sandbox: bool = typer.Option(False, "--no-sandbox", help=NO_SANDBOX_HELP)):
    """Export a model as a 3D file: glTF binary (web, Blender, game engines), OBJ, STL (printing) or USD.

    Every distinct part's mesh is stored once and shared by its placements where the format can (glTF, USD);
    LDraw colours become materials (transparent, chrome, metallic). glTF, OBJ and USD are +Y up in metres,
    STL +Z up in millimetres (docs/export.md). USD needs the optional usd-core package."""
    from bricklayer.export import write_gltf, write_obj, write_stl, write_usd

    suffix = out.suffix.lower()
    if suffix not in EXPORT_SUFFIXES:
        _fail(f"{out}: unknown export format {out.suffix or '(no suffix)'!r}; end the file name in "
              + ", ".join(EXPORT_SUFFIXES), code=2)
    if suffix in (".usd", ".usdc", ".usda"):
        from bricklayer.export.usd import USD_INSTALL_HINT, usd_available

        if not usd_available():
            _fail(USD_INSTALL_HINT, code=2)
    targets = [out] + ([out.with_suffix(".mtl")] if suffix == ".obj" else [])
    for t in targets:
        _check_output(t, model, force)
    build = _load_any(model, no_sandbox)
    _refuse_out_of_range(build, model)
    _warn_shadowed(build, model, "exported")
    writer = {".glb": write_gltf, ".obj": write_obj, ".stl": write_stl}.get(suffix, write_usd)
    try:
        res = writer(build, out, overwrite=force)
    except FileExistsError as exc:  # another run wrote it meanwhile (break-it s26 F9)
        _fail(str(exc).replace("pass overwrite=True", "pass --force"))
    if as_json:
        typer.echo(json.dumps(res.to_dict(), indent=2))
        return
    extra = f", {res.materials} colours" if res.materials else ""
    if res.watertight is not None:
        extra += ", watertight" if res.watertight else ", not watertight (LDraw parts are open shells)"
    typer.echo(f"{model.name}: {res.placements} parts ({res.distinct_parts} distinct){extra}, "
               f"{res.triangles} triangles -> {res.path}" + (f" (+ {out.with_suffix('.mtl').name})"
                                                             if suffix == ".obj" else ""))
    if res.skipped:
        typer.echo(f"warning: {len(res.skipped)} parts have no geometry and are not in the file: "
                   + ", ".join(short_id(p) for p in sorted(set(res.skipped))[:10]), err=True)


@app.command("parts")
@friendly
def parts(model: Path = typer.Argument(..., help=".ldr, .mpd or build.py"),
          out: Optional[Path] = typer.Option(None, "--out", help="File to write (default: print)."),
          fmt: str = typer.Option("csv", "--format",
                                  help="csv (LDraw ids and colours), rebrickable-csv or bricklink-xml (these two "
                                       "need --color-map)."),
          color_map: Optional[Path] = typer.Option(
              None, "--color-map", help="CSV of 'ldraw_code,marketplace colour id' rows for rebrickable-csv and "
                                        "bricklink-xml (docs/export.md: LDraw codes are neither)."),
          part_map: Optional[Path] = typer.Option(
              None, "--part-map", help="CSV of 'ldraw_id,marketplace part id' rows; other parts keep their LDraw id."),
          as_json: bool = typer.Option(False, "--json", help="Print the rows (and rows left out) as JSON."),
          force: bool = typer.Option(False, "--force", help="Replace an existing --out file."),
          no_sandbox: bool = typer.Option(False, "--no-sandbox", help=NO_SANDBOX_HELP)):
    """Parts list: part id, name, LDraw colour and quantity of every part, submodels expanded.

    Stickers, printed parts, shortcuts (assemblies) and parts embedded in the file are listed with their kind.
    Marketplace files leave out rows that have no honest id (stickers, embedded and unknown parts, colours
    missing from --color-map) and say which on stderr. Exits 1 when part lines of the model could not be
    read (the list is short by those parts; stderr says how many and the first, --json lists them in
    "unreadable_lines"), as `brickwright validate` fails such a model."""
    from bricklayer.export.parts_list import FORMATS, parts_list, parts_list_text, read_id_map

    if fmt not in FORMATS:
        _fail(f"--format {fmt!r}: use one of {', '.join(FORMATS)}", code=2)
    if fmt != "csv" and color_map is None:
        _fail(f"--format {fmt} needs --color-map: LDraw colour codes are not "
              f"{'Rebrickable' if fmt == 'rebrickable-csv' else 'BrickLink'} colour ids and no table ships with "
              "LDraw; see docs/export.md, or use --format csv", code=2)
    if out is not None:
        _check_output(out, model, force)
    cmap = read_id_map(color_map, "colour") if color_map is not None else None
    pmap = read_id_map(part_map, "part") if part_map is not None else None
    build = _load_any(model, no_sandbox)
    _warn_shadowed(build, model, "listed")  # as info, render and export say it (break-it s25 F6)
    unreadable = [str(w) for w in getattr(build, "unreadable_lines", None) or ()]
    rows = parts_list(build)
    res = parts_list_text(rows, fmt, color_map=cmap, part_map=pmap)
    if out is not None:
        from ldraw_data.fileio import atomic_write

        atomic_write(out, res.text, replace=force, replace_hint="pass --force")  # a racing run's file is kept
    for r, why in res.left_out[:MAX_LEFT_OUT]:
        typer.echo(f"left out: {r.quantity} x {short_id(r.part_id)} ({r.name}) in {r.color_name} ({r.color}): {why}", err=True)
    if len(res.left_out) > MAX_LEFT_OUT:
        typer.echo(f"left out: ... and {len(res.left_out) - MAX_LEFT_OUT} more rows (--json lists all)", err=True)
    if as_json:
        typer.echo(json.dumps({"format": fmt, "out": str(out) if out else None, "rows": [r.to_dict() for r in rows],
                               "parts": sum(r.quantity for r in rows), "rows_written": res.rows_written,
                               "left_out": [dict(r.to_dict(), reason=why) for r, why in res.left_out],
                               "unreadable_lines": unreadable, "part_ids_as_ldraw": res.ids_as_ldraw}, indent=2))
    elif out is not None:
        typer.echo(f"{model.name}: {sum(r.quantity for r in rows)} parts in {len(rows)} part/colour rows; "
                   f"{res.rows_written} rows -> {out}")
    elif fmt == "csv":
        for r in rows:
            typer.echo(f"{r.quantity:>5} x {short_id(r.part_id):<14} {r.name[:44]:<44} {r.color_name} ({r.color})"
                       + ("" if r.kind == "part" else f"  [{r.kind}]"))
        typer.echo(f"{sum(r.quantity for r in rows)} parts, {len(rows)} part/colour rows")
    else:
        typer.echo(res.text, nl=False)
    if fmt != "csv" and res.ids_as_ldraw:
        typer.echo(f"note: {res.ids_as_ldraw} rows use the LDraw part id as the marketplace id (most moulds share "
                   "their number; give --part-map to replace some)", err=True)
    if unreadable:  # a parts list that is short is a failed result, as validate fails the model
        _say_unreadable(unreadable, "the parts list", fatal=True)
        raise typer.Exit(EXIT_FAILED)


MAX_LEFT_OUT = 20


# ----------------------------------------------------------------------------- runs
runs_app = typer.Typer(no_args_is_help=False, rich_markup_mode=None, context_settings=_HELP,
                       help="Agent runs kept in a folder: list them, or show one with its validate snapshots.")
app.add_typer(runs_app, name="runs")


@runs_app.callback(invoke_without_command=True)
@friendly
def runs_list(ctx: typer.Context,
              root: Optional[Path] = typer.Option(None, help="Folder holding the run folders, or an eval folder "
                                                  "(default: brickwright_runs and brickwright_eval here)."),
              as_json: bool = typer.Option(False, "--json", help="Print a JSON list.")):
    """List the runs under --root, of every kind (generate, eval and each eval run, tool/mcp run folders): id,
    kind, status, parts, validate calls, cost, model and prompt."""
    if ctx.invoked_subcommand is not None:
        return
    from .runs import DEFAULT_RUN_ROOTS, list_runs

    runs = list_runs(root)
    if as_json:
        typer.echo(json.dumps([r.to_dict() for r in runs], indent=2))
        return
    if not runs:
        typer.echo(f"no runs in {root or ' or '.join(d for d in DEFAULT_RUN_ROOTS if Path(d).is_dir())}")
    for r in runs:
        typer.echo(f"{r.id:<40} {r.kind:<8} {r.status:<28} {'-' if r.parts is None else r.parts:>5} parts  "
                   f"{r.validate_calls:>3} validate  "
                   f"${r.cost_usd:.4f}  {r.model[:20]:<20} {r.prompt[:60]}")


@runs_app.command("show")
@friendly
def runs_show(ctx: typer.Context,
              run_id: str = typer.Argument(..., help="A run's id or folder name (a unique prefix of either is "
                                           "enough, e.g. run_001 of an eval) or path."),
              root: Optional[Path] = typer.Option(None, help="Folder holding the run folders, or an eval folder "
                                                  "(default: the --root given before `show`, else "
                                                  "brickwright_runs and brickwright_eval here)."),
              as_json: bool = typer.Option(False, "--json", help="Print JSON.")):
    """One run: its result and each validate snapshot (build.py, report, problems.ldr, components.mpd)."""
    from .runs import find_run

    if root is None and ctx.parent is not None:  # `runs --root X show ID`: the group's --root
        root = ctx.parent.params.get("root")
    r = find_run(run_id, root)
    if as_json:
        typer.echo(json.dumps(r.to_dict(), indent=2))
        return
    typer.echo(f"{r.id} ({r.kind}): {r.status}; {'-' if r.parts is None else r.parts} parts; "
               f"{r.validate_calls} validate calls; "
               f"${r.cost_usd:.4f}; model {r.model or '-'}")
    typer.echo(f"prompt: {r.prompt}")
    typer.echo(f"folder: {r.path}")
    for name, head in r.snapshots:
        typer.echo(f"  {name}: {head}  ({r.path / 'snapshots' / name})")


def main():  # pragma: no cover - console entry
    """Entry point of the ``brickwright`` console script (pyproject ``[project.scripts]``); a closed output
    pipe met outside a command (help text, the final flush) exits 141 quietly, as in the commands."""
    try:
        app()
    except BrokenPipeError:
        try:
            _broken_pipe()
        except typer.Exit as exc:
            raise SystemExit(exc.exit_code) from None


if __name__ == "__main__":  # pragma: no cover
    main()
