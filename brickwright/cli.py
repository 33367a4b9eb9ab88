"""The ``brickwright`` command line (typer). Thin: each command calls one library function and prints."""

from __future__ import annotations

import functools
import json
import logging
from pathlib import Path
from typing import Optional

import typer

app = typer.Typer(no_args_is_help=True, add_completion=False, rich_markup_mode=None,
                  help="BrickWright: build LEGO models that can really be built.")
library_app = typer.Typer(no_args_is_help=True, rich_markup_mode=None,
                          help="Install and inspect the LDraw parts library.")
popularity_app = typer.Typer(no_args_is_help=True, rich_markup_mode=None, help="Part popularity counts used by search.")
app.add_typer(library_app, name="library")
app.add_typer(popularity_app, name="popularity")


def _fail(msg: str, code: int = 1):
    typer.echo(f"error: {msg}", err=True)
    raise typer.Exit(code)


def friendly(fn):
    """Turn expected errors into one clear line and a non-zero exit code."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        from bricklayer.render import RenderBackendError
        from ldraw_data.errors import LDrawError

        from .agent.errors import BrickWrightError

        try:
            return fn(*args, **kwargs)
        except typer.Exit:
            raise
        except (LDrawError, BrickWrightError, RenderBackendError, FileNotFoundError, FileExistsError, ValueError,
                KeyError, PermissionError, IsADirectoryError) as exc:
            msg = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
            _fail(str(msg))

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


@app.callback()
def _main(verbose: bool = typer.Option(False, "--verbose", "-v", help="Log what the library does (INFO).")):
    """BrickWright: build, validate, render and sequence LEGO models that can really be built."""
    _setup_logging(verbose)
    if not verbose:  # with -v the library's own log line says it
        _check_ldrawdir()


# ----------------------------------------------------------------------------- library
@library_app.command("install")
@friendly
def library_install(source: str = typer.Argument(..., help="Path or URL of complete.zip (or an unpacked LDraw folder)."),
                    shadow: bool = typer.Option(False, "--shadow", help="Install the LDCad shadow library instead (installing complete.zip also installs an ldcad-shadow.zip found beside it)."),
                    dest: Optional[Path] = typer.Option(None, help="Install here instead of the per-user data folder.")):
    """Install the LDraw parts library (or the LDCad shadow library) for this user."""
    from ldraw_data.library import install_library

    typer.echo(f"installing {'LDCad shadow library' if shadow else 'LDraw library'} from {source} ...")
    root = install_library(source, shadow=shadow, dest=dest)
    typer.echo(f"installed at {root}")
    if not shadow:
        from ldraw_data.library import LDrawLibrary, shadow_zip_beside

        lib = LDrawLibrary(root)
        typer.echo(f"{len(lib.part_files())} parts")
        beside = shadow_zip_beside(source) if dest is None else None
        if beside is not None:
            typer.echo(f"installing LDCad shadow library from {beside} (found beside it) ...")
            typer.echo(f"installed at {install_library(beside, shadow=True)}")
    if dest is None:
        from ldraw_data.connectors import catalog_connector_coverage
        from ldraw_data.library import find_shadow_library

        if find_shadow_library() is not None:
            typer.echo("reading the connectors of every part (BrickNet labels and LDCad snap information; once) ...")
            try:
                covered, total = catalog_connector_coverage()
                typer.echo(f"{covered} of {total} parts have connectors")
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
    typer.echo(f"connectors:  {covered} of {total} parts have connectors, BrickNet labels and LDCad snap "
               f"information ({100 * covered / max(total, 1):.1f}%)")
    sh = find_shadow_library()
    typer.echo(f"LDCad shadow library: {sh if sh else 'not installed (optional)'}")


# ----------------------------------------------------------------------------- search / info
@app.command("search")
@friendly
def search(query: str = typer.Argument(..., help='Free text, e.g. "brick 2 x 4" or "2x4 brick".'),
           category: Optional[str] = typer.Option(None, help="Exact category, e.g. Brick, Plate, Slope."),
           limit: int = typer.Option(10, min=1, help="Number of results.")):
    """Search the part catalog (BM25 x popularity)."""
    from ldraw_data.search import search_parts

    if not query.strip():
        _fail('the query is empty; try e.g. "brick 2 x 4" or "slope 45"')
    res = search_parts(query, category=category, limit=limit)
    if not res:
        _fail(f"no part matches {query!r}" + (f" in category {category!r}" if category else ""))
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
             stability: bool = typer.Option(False, "--stability", help="Also check stability (when available).")):
    """Check collisions, floating parts and connectivity; exit 1 when the build is not valid."""
    from .inspect_model import run_build_script
    from .validation import validation_report

    build, tests = _load_model_or_script(model)
    if model.suffix.lower() == ".py":
        res = run_build_script(model)
        build, tests = res["build"], res.get("tests")
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
                 force: bool = typer.Option(False, "--force", help="Replace instructions already in OUT.")):
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
        build = load_build(model)
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
        raise typer.Exit(1)


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
           force: bool = typer.Option(False, "--force", help="Replace an existing output file.")):
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
        build = load_build(model)
    path = save_render(build, target, view=view, size=size, highlight_problems=highlight_problems,
                       edges=edges)
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
             out: Optional[Path] = typer.Option(None, help="Run folder (default: runs/<time>-<slug>)."),
             max_calls: int = typer.Option(60, help="Maximum tool calls."),
             max_validate: int = typer.Option(20, help="Maximum validate calls."),
             budget: Optional[float] = typer.Option(None, help="Maximum cost in USD."),
             time_limit: float = typer.Option(30.0, help="Seconds allowed per build.py run.")):
    """Let an LLM agent write build.py, validate and repair it, and export LDraw."""
    from .agent import generate as _generate

    res = _generate(prompt, image=image, from_path=from_path, model=model, base_url=base_url, api_key=api_key,
                    out_dir=out, max_calls=max_calls, max_validate=max_validate, budget_usd=budget,
                    time_limit=time_limit, progress=_progress)
    typer.echo(res.message)
    if res.price_note:
        typer.echo(res.price_note)
    raise typer.Exit(0 if res.passed else 2)


@app.command("eval")
@friendly
def eval_(prompts: Path = typer.Argument(..., help="Text file, one prompt a line."),
          model: Optional[str] = typer.Option(None), base_url: Optional[str] = typer.Option(None),
          api_key: Optional[str] = typer.Option(None), out: Optional[Path] = typer.Option(None),
          max_calls: int = typer.Option(60), max_validate: int = typer.Option(20),
          budget: Optional[float] = typer.Option(None, help="Maximum cost in USD per run.")):
    """Run many prompts and write the BrickWright metrics per run and overall (JSON and CSV)."""
    from .agent import evaluate

    res = evaluate(prompts, model=model, base_url=base_url, api_key=api_key, out_dir=out, max_calls=max_calls,
                   max_validate=max_validate, budget_usd=budget,
                   progress=lambda i, ev: _progress(ev))
    typer.echo(json.dumps(res.overall, indent=2))
    typer.echo(f"per run: {res.json_path}  {res.csv_path}")


@app.command("replay")
@friendly
def replay(transcript: Path = typer.Argument(..., help="transcript.jsonl of a run."),
           out: Path = typer.Argument(..., help="Folder to replay into.")):
    """Re-execute a run's recorded tool calls and check it reaches the same final build.

    Exits 1 when the replayed final build differs from the recorded one or does not pass validate."""
    from .agent import replay as _replay

    res = _replay(transcript, out)
    typer.echo(f"same final build: {res.same_build}; passed: {res.passed}; ldr: {res.ldr_path}")
    raise typer.Exit(0 if res.same_build and res.passed else 1)


def main():  # pragma: no cover - console entry
    """Entry point of the ``brickwright`` console script (pyproject ``[project.scripts]``)."""
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
