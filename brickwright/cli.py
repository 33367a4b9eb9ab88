"""The ``brickwright`` command line (typer). Thin: each command calls one library function and prints."""

from __future__ import annotations

import functools
import json
import logging
from pathlib import Path
from typing import Optional

import typer

_HELP = {"help_option_names": ["-h", "--help"]}
app = typer.Typer(no_args_is_help=True, add_completion=True, rich_markup_mode=None, context_settings=_HELP,
                  help="BrickWright: build LEGO models that can really be built.\n\nExit codes: 0 success; 1 the "
                       "model or run failed its checks (not valid, parts not placed, run not passed) or the work "
                       "failed (a build.py raised, no OpenGL); 2 usage error or unreadable input (bad option, "
                       "missing or unreadable file, an output that exists without --force): nothing was done.")
library_app = typer.Typer(no_args_is_help=True, rich_markup_mode=None, context_settings=_HELP,
                          help="Install and inspect the LDraw parts library.")
popularity_app = typer.Typer(no_args_is_help=True, rich_markup_mode=None, context_settings=_HELP,
                             help="Part popularity counts used by search.")
app.add_typer(library_app, name="library")
app.add_typer(popularity_app, name="popularity")


NO_SANDBOX_HELP = ("Run a build.py without the OS sandbox (process limits only): only for code you trust; "
                   "docs/agent.md, Threat model.")


#: Exit codes of every command (documented in ``brickwright --help``).
EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def _fail(msg: str, code: int = EXIT_USAGE):
    """Print ``error: msg`` on stderr and exit; ``code`` 2 (usage error, unreadable input: nothing was done) by
    default, 1 for a model or run that failed its checks."""
    typer.echo(f"error: {msg}", err=True)
    raise typer.Exit(code)


def friendly(fn):
    """Turn expected errors into one clear line and a non-zero exit code."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        from bricklayer.render import RenderBackendError
        from ldraw_data.errors import LDrawError

        from .agent.errors import BrickWrightError

        from .agent.errors import ProviderError
        from .inspect_model import BuildScriptError

        try:
            return fn(*args, **kwargs)
        except typer.Exit:
            raise
        except (BuildScriptError, ProviderError, RenderBackendError) as exc:
            _fail(str(exc), EXIT_FAILED)  # the build.py failed, the provider failed mid-run, no OpenGL
        except (LDrawError, BrickWrightError, FileNotFoundError, FileExistsError, ValueError, KeyError,
                PermissionError, IsADirectoryError, NotADirectoryError) as exc:
            msg = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
            _fail(str(msg), EXIT_USAGE)

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
def _main(verbose: bool = typer.Option(False, "--verbose", "-v", help="Log what the library does (INFO)."),
          version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                       help="Print the version and exit.")):
    """BrickWright: build, validate, render and sequence LEGO models that can really be built."""
    _setup_logging(verbose)
    if not verbose:  # with -v the library's own log line says it
        _check_ldrawdir()


# ----------------------------------------------------------------------------- library
@library_app.command("install")
@friendly
def library_install(source: str = typer.Argument(..., help="Path or URL of complete.zip (or an unpacked LDraw folder)."),
                    shadow: bool = typer.Option(False, "--shadow", help="Install the LDCad shadow library instead."),
                    dest: Optional[Path] = typer.Option(None, help="Install here instead of the per-user data folder.")):
    """Install the LDraw parts library (or the LDCad shadow library) for this user."""
    from ldraw_data.library import install_library

    typer.echo(f"installing {'LDCad shadow library' if shadow else 'LDraw library'} from {source} ...")
    root = install_library(source, shadow=shadow, dest=dest)
    typer.echo(f"installed at {root}")
    if not shadow:
        from ldraw_data.library import LDrawLibrary

        lib = LDrawLibrary(root)
        typer.echo(f"{len(lib.part_files())} parts")


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
    typer.echo(f"connectors:  {covered} of {total} parts have BrickNet connector labels ({100 * covered / max(total, 1):.1f}%)")
    sh = find_shadow_library()
    typer.echo(f"LDCad shadow library: {sh if sh else 'not installed (optional)'}")


# ----------------------------------------------------------------------------- search / info
@app.command("search")
@friendly
def search(query: str = typer.Argument(..., help='Free text, e.g. "brick 2 x 4" or "2x4 brick".'),
           category: Optional[str] = typer.Option(None, help="Exact category, e.g. Brick, Plate, Slope."),
           limit: int = typer.Option(10, min=1, help="Number of results."),
           as_json: bool = typer.Option(False, "--json", help="Print a JSON list of {part_id, name, category, "
                                                               "popularity}.")):
    """Search the part catalog (BM25 x popularity)."""
    from ldraw_data.search import search_parts

    if not query.strip():
        _fail('the query is empty; try e.g. "brick 2 x 4" or "slope 45"')
    res = search_parts(query, category=category, limit=limit)
    if not res:
        _fail(f"no part matches {query!r}" + (f" in category {category!r}" if category else ""), EXIT_FAILED)
    if as_json:
        typer.echo(json.dumps([{"part_id": s.part_id, "name": s.name, "category": s.category,
                                "popularity": s.popularity} for s in res], indent=2))
        return
    for s in res:
        typer.echo(f"{s.part_id:<12} {s.name:<50} {s.category:<14} used {s.popularity}x")


@app.command("info")
@friendly
def info(model: Path = typer.Argument(..., help=".ldr or .mpd file"),
         as_json: bool = typer.Option(False, "--json", help="Print JSON.")):
    """Submodels, parts, bill of materials, size and unknown parts of a model."""
    from .inspect_model import model_info

    if not model.exists():
        _fail(f"{model}: no such file")
    if model.suffix.lower() == ".py":
        _fail(f"{model}: info reads LDraw models (.ldr/.mpd); for a build.py use `brickwright validate` "
              "or export it with write_ldraw()")
    mi = model_info(model)
    if as_json:
        typer.echo(json.dumps(mi.to_dict(), indent=2))
        return
    w, d, h = mi.size_studs
    mw, md, mh = mi.size_mm
    typer.echo(f"{model.name}: {mi.parts} parts, {len(mi.bom)} distinct part/colour pairs, {len(mi.submodels)} submodels")
    typer.echo(f"size: {w:.1f} x {d:.1f} studs x {h:.1f} bricks high ({mw:.0f} x {md:.0f} x {mh:.0f} mm)")
    if mi.submodels:
        typer.echo("submodels: " + ", ".join(mi.submodels[:30]) + (" ..." if len(mi.submodels) > 30 else ""))
    if mi.embedded_parts:
        typer.echo("embedded parts: " + ", ".join(mi.embedded_parts))
    if mi.unknown_parts:
        typer.echo("unknown parts (not in the library): " + ", ".join(mi.unknown_parts))
    typer.echo("bill of materials:")
    for pid, c, n, name, cname in mi.bom:
        typer.echo(f"  {n:>5} x {pid:<14} {name[:44]:<44} {cname} ({c})")
    for wmsg in mi.warnings:
        typer.echo(f"warning: {wmsg}", err=True)


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


def _load_model_or_script(model: Path):
    """(build, None) for an LDraw file; (None, None) for a build.py (run by the caller); fails clearly on
    a missing file, a folder, or a model with no parts. Import warnings go to stderr."""
    if not model.exists():
        _fail(f"{model}: no such file")
    if model.is_dir():
        _fail(f"{model} is a folder; give an .ldr, .mpd or build.py file")
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
@app.command("validate")
@friendly
def validate(model: Path = typer.Argument(..., help=".ldr, .mpd or build.py"),
             as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
             stability: bool = typer.Option(False, "--stability", help="Also check stability (when available)."),
             no_sandbox: bool = typer.Option(False, "--no-sandbox", help=NO_SANDBOX_HELP)):
    """Check collisions, floating parts and connectivity; exit 1 when the build is not valid.

    A build.py runs in the sandbox; the verdict is computed in another process, on the LDraw text of the
    build it returns (its own run_tests() results are printed beside it and can only fail it). An .ldr/.mpd
    file runs no code at all."""
    from .inspect_model import run_build_script
    from .validation import validation_report

    build, tests = _load_model_or_script(model)
    if model.suffix.lower() == ".py":
        res = run_build_script(model, sandbox=not no_sandbox)
        build, tests = res["build"], res.get("tests")
        rep = res["report"] or validation_report(build, source=str(model))
        rep["source"] = str(model)
    else:
        rep = validation_report(build, source=str(model))
    ok = rep["valid"]
    if tests is not None:
        rep["tests"] = tests
        ok = ok and bool(tests.get("passed"))
        rep["text"] += "\nrun_tests: " + ", ".join(
            f"{c['name']} {'ok' if c['passed'] else 'FAILED'}" + (f" ({c['detail']})" if c.get("detail") and not c["passed"] else "")
            for c in tests.get("checks", []))
    if stability:
        from bricklayer.stability import stability_report

        st = stability_report(build)
        rep["stability"] = st.to_dict()
        ok = ok and st.stable
    if as_json:
        typer.echo(json.dumps(rep, indent=2, default=str))
    else:
        typer.echo(rep["text"])
        if stability:
            typer.echo(st.text())
    raise typer.Exit(0 if ok else 1)


@app.command("instructions")
@friendly
def instructions(model: Path = typer.Argument(..., help=".ldr, .mpd or build.py"),
                 out: Path = typer.Option(..., help="Folder for steps.mpd, plan.json and step images."),
                 images: bool = typer.Option(True, help="Render step-NNNN.png pictures: the model so far after "
                                                        "each group of at most --max-parts-per-step parts, "
                                                        "in assembly order."),
                 max_images: int = typer.Option(200, min=0, help="Render at most this many pictures."),
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
    plan.json lists every failure and unreadable line, with the same counts. Parts drawn inside each
    other are not held against the order: a warning says how many pairs collide (fix them with
    `brickwright validate`)."""
    from bricklayer.assembly import write_instructions

    if not 0.0 <= budget < float("inf"):  # also refuses nan
        _fail(f"--budget {budget}: give a finite number of CPU seconds >= 0, e.g. 60", code=2)

    from .inspect_model import load_build

    if out.exists() and not out.is_dir():
        _fail(f"{out} is a file; --out takes a folder")
    build, _ = _load_model_or_script(model)
    if build is None:
        build = load_build(model, sandbox=not no_sandbox)
    try:
        res = write_instructions(build, out, images=images, max_images=max_images,
                                 max_parts_per_step=max_parts_per_step, time_budget=budget,
                                 separate_objects=separate_objects, overwrite=force)
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
    if s.get("colliding_pairs"):
        typer.echo(f"warning: {s['colliding_pairs']} pairs of parts collide in the model as drawn; no order makes "
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
           out: Optional[Path] = typer.Option(None, help="PNG to write (default: MODEL name + .png)."),
           size: Optional[str] = typer.Option(None, help="WxH in pixels, e.g. 1200x800."),
           edges: bool = typer.Option(True, help="Draw LDraw edge lines."),
           force: bool = typer.Option(False, "--force", help="Replace an existing output file."),
           no_sandbox: bool = typer.Option(False, "--no-sandbox", help=NO_SANDBOX_HELP),
           as_json: bool = typer.Option(False, "--json", help='Print {"png": path, "view": ..., "parts": n}.')):
    """Render a model to PNG offscreen (software OpenGL, no display needed)."""
    from bricklayer.render import save_render

    from .inspect_model import load_build

    from bricklayer.render import VIEWS
    from bricklayer.render.render import _parse_size

    # options first: a bad --view or --size is reported as such, even when the PNG exists
    if view.strip().lower() not in (*VIEWS, "sheet"):
        _fail(f"unknown view {view!r}; use one of {', '.join(VIEWS)} or sheet")
    if size is not None:
        _parse_size(size)  # "WxH" within 8..8192 pixels, else ValueError
    target = out or model.with_suffix(".png")
    if target.suffix.lower() != ".png":
        _fail(f"{target}: the output is a PNG image; give a file name ending in .png")
    if target.exists() and not force:
        _fail(f"{target} exists; pass --force to replace it")
    build, _ = _load_model_or_script(model)
    if build is None:
        build = load_build(model, sandbox=not no_sandbox)
    path = save_render(build, target, view=view, size=size, highlight_problems=highlight_problems,
                       edges=edges)
    if as_json:
        typer.echo(json.dumps({"png": str(path), "view": view, "parts": build.brick_count}))
    else:
        typer.echo(str(path))


# ----------------------------------------------------------------------------- agent
def _progress(ev) -> None:
    typer.echo("\r" + ev.line()[:150].ljust(150), nl=bool(getattr(ev, "done", False)), err=True)


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
             as_json: bool = typer.Option(False, "--json", help="Print result.json instead of the summary.")):
    """Let an LLM agent write build.py, validate and repair it, and export LDraw.

    The model's code runs in the OS sandbox (refused when none can be set up, unless --no-sandbox); whether
    the result is valid is decided outside it, on the exported model.ldr."""
    from .agent import generate as _generate

    res = _generate(prompt, image=image, from_path=from_path, model=model, base_url=base_url, api_key=api_key,
                    out_dir=out, max_calls=max_calls, max_validate=max_validate, budget_usd=budget,
                    time_limit=time_limit, progress=None if as_json else _progress, sandbox=not no_sandbox,
                    force=force)
    if as_json:
        typer.echo(json.dumps(res.to_dict(), indent=2, default=str))
        raise typer.Exit(EXIT_OK if res.passed else EXIT_FAILED)
    typer.echo(res.message)
    typer.echo(f"run folder: {res.run_dir}")
    typer.echo(f"model: {res.ldr_path}" if res.ldr_path else "model: none (no build came back to export)")
    if res.price_note:
        typer.echo(res.price_note)
    raise typer.Exit(EXIT_OK if res.passed else EXIT_FAILED)


@app.command("eval")
@friendly
def eval_(prompts: Path = typer.Argument(..., help="Text file, one prompt a line."),
          model: Optional[str] = typer.Option(None), base_url: Optional[str] = typer.Option(None),
          api_key: Optional[str] = typer.Option(None), out: Optional[Path] = typer.Option(None),
          max_calls: int = typer.Option(60), max_validate: int = typer.Option(20),
          budget: Optional[float] = typer.Option(None, help="Maximum cost in USD per run."),
          force: bool = typer.Option(False, "--force", help="Replace runs and metrics already in --out."),
          no_sandbox: bool = typer.Option(False, "--no-sandbox", help=NO_SANDBOX_HELP)):
    """Run many prompts and write the BrickWright metrics per run and overall (JSON and CSV)."""
    from .agent import evaluate

    res = evaluate(prompts, model=model, base_url=base_url, api_key=api_key, out_dir=out, max_calls=max_calls,
                   max_validate=max_validate, budget_usd=budget, sandbox=not no_sandbox, force=force,
                   progress=lambda i, ev: _progress(ev))
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


def main():  # pragma: no cover - console entry
    """Entry point of the ``brickwright`` console script (pyproject ``[project.scripts]``)."""
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
