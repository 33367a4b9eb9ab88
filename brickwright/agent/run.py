"""One agent run: :func:`generate` drives the plan-execute-validate loop; :func:`replay` re-runs a transcript.

A run folder holds ``build.py``, ``model.ldr`` (exported from the final build), ``renders/``, ``work/`` (the
worker's working folder), ``transcript.jsonl`` (every request, response, tool call and tool result, one JSON
object a line) and ``result.json`` (the :class:`RunResult`).
"""

from __future__ import annotations

__all__ = ["RunResult", "Progress", "generate", "replay", "ReplayResult", "validate_file", "DEFAULT_MAX_CALLS",
           "DEFAULT_MAX_VALIDATE"]

import base64
import json
import logging
import mimetypes
import os
import re
import tempfile
import time
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Callable

from .errors import BrickWrightError, ProviderError, RunFolderExistsError, TranscriptError
from .pricing import Usage, price_for
from .prompt import start_files
from .providers import Provider, resolve_provider
from .runfolder import harness_system_prompt
from .tools import TOOL_DEFINITIONS, ToolBox, format_validation
from .worker import DEFAULT_MEMORY_LIMIT, DEFAULT_TIME_LIMIT, Worker
from ldraw_data.errors import InputNotFoundError

logger = logging.getLogger(__name__)

#: Tool calls per run before the harness stops.
DEFAULT_MAX_CALLS = 60
#: validate calls per run before the harness stops.
DEFAULT_MAX_VALIDATE = 20
#: Text-only replies (no tool call) in a row before the harness gives up on the model.
MAX_IDLE_TURNS = 2

STOP_MESSAGES = {
    "finalized": "finalized after a passing validate",
    "max_calls": "stopped: reached the maximum of {max_calls} tool calls",
    "max_validate": "stopped: reached the maximum of {max_validate} validate calls",
    "budget": "stopped: reached the cost budget of ${budget_usd:.4f}",
    "model_stopped": "stopped: the model answered without tool calls and did not finalize",
    "provider_error": "stopped: the model provider failed ({error})",
}


@dataclass
class Progress:
    """A progress event passed to the ``progress`` callback after each model response and tool call.

    Attributes
    ----------
    turn : int
        Model responses so far.
    tool : str or None
        The tool just run (None after a model response).
    tool_calls, validate_calls : int
    checks_passed, checks_total : int or None
        From the last validate (fixed checks + run_tests), None before the first.
    cost_usd : float
    message : str
        Short free text (the tool's first result line, or the stop message).
    done : bool
        True for the last event of a run (after the final validation).
    """

    turn: int
    tool: str | None
    tool_calls: int
    validate_calls: int
    checks_passed: int | None
    checks_total: int | None
    cost_usd: float
    message: str = ""
    done: bool = False

    def line(self) -> str:
        """One status line for a live display, e.g. ``turn 3 | validate | checks 4/5 | calls 7 | $0.0123``."""
        checks = f"checks {self.checks_passed}/{self.checks_total}" if self.checks_total is not None else "checks -"
        return (f"turn {self.turn} | {self.tool or ('done' if self.done else 'thinking')} | {checks} | calls {self.tool_calls} "
                f"(validate {self.validate_calls}) | ${self.cost_usd:.4f} | {self.message}")[:200]


@dataclass
class RunResult:
    """Outcome of :func:`generate`.

    Attributes
    ----------
    run_dir, build_path, transcript_path : pathlib.Path
    ldr_path : pathlib.Path or None
        ``model.ldr`` when the final build could be exported (even when it is not valid; see ``passed``).
    finalized : bool
        The model finalized after a passing validate.
    passed : bool
        The final build passes validate (fixed checks and run_tests).
    valid, collision_free, floater_free : bool
        From the final build's fixed checks (False when create_build() failed).
    components, parts, unique_parts : int or None
    stop_reason : str
        ``finalized``, ``max_calls``, ``max_validate``, ``budget``, ``model_stopped`` or ``provider_error``.
    message : str
        Human-readable summary; says when the latest build was kept after a budget stop.
    turns, tool_calls, validate_calls : int
    prompt_tokens, completion_tokens : int
    cost_usd : float
    price_note : str
        Set when the model has no price (cost counted as 0).
    seconds : float
        Wall-clock time of the run, s.
    final_report : str
        The final validation report text.
    """

    run_dir: Path
    build_path: Path
    transcript_path: Path
    ldr_path: Path | None
    finalized: bool
    passed: bool
    valid: bool
    collision_free: bool
    floater_free: bool
    components: int | None
    parts: int | None
    unique_parts: int | None
    stop_reason: str
    message: str
    turns: int
    tool_calls: int
    validate_calls: int
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float
    price_note: str
    seconds: float
    final_report: str
    model: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (paths as strings)."""
        return {k: (str(v) if isinstance(v, Path) else v) for k, v in asdict(self).items()}


class _Transcript:
    """Append-only JSONL log; each record gets ``type`` and ``t`` (seconds since the run started)."""

    def __init__(self, path: Path):
        self.path = path
        self.t0 = time.monotonic()
        self._f = open(path, "a", encoding="utf-8")  # noqa: SIM115 - closed in close()

    def write(self, type_: str, **data: Any) -> None:
        rec = {"type": type_, "t": round(time.monotonic() - self.t0, 3), **data}
        self._f.write(json.dumps(rec, default=str) + "\n")
        self._f.flush()

    def close(self) -> None:
        self._f.close()


def _slug(text: str, n: int = 32) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:n] or "run"


#: Files whose presence marks a folder as holding a run (never replaced without ``force``).
RUN_FILES = ("build.py", "transcript.jsonl", "result.json", "model.ldr")


def _new_run_dir(prompt: str, out_dir: str | Path | None, force: bool = False) -> Path:
    """The run folder: ``out_dir`` (refused when it holds a run, unless ``force``) or a new timestamped one
    under ``brickwright_runs/``, made here. Without ``force`` the run claims ``out_dir`` by creating its
    ``transcript.jsonl`` exclusively, and a timestamped folder is made with ``mkdir`` (atomic): of two runs
    started at once, the second refuses (``out_dir``) or takes the next name (``-2``).

    Raises
    ------
    RunFolderExistsError
        ``out_dir`` holds a run (one of :data:`RUN_FILES`) and ``force`` is false.
    """
    if out_dir is not None:
        d = Path(out_dir)
        if d.exists() and not d.is_dir():
            raise RunFolderExistsError(f"--out {d} is a file; give a folder for the run")

        def refuse(held):
            raise RunFolderExistsError(f"--out {d} already holds a run ({', '.join(held)}); choose another folder "
                                       "or pass --force to replace it")

        held = [n for n in RUN_FILES if (d / n).exists()]
        if held and not force:
            refuse(held)
        d.mkdir(parents=True, exist_ok=True)
        if not force:  # claimed: of two runs started at once into one folder, the second refuses (break-it s26 F9)
            try:
                os.close(os.open(d / "transcript.jsonl", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
            except FileExistsError:
                refuse(["transcript.jsonl"])
        return d.resolve()
    base = Path("brickwright_runs") / f"{datetime.now():%Y%m%d-%H%M%S}-{_slug(prompt)}"
    base.parent.mkdir(parents=True, exist_ok=True)
    d, n = base, 1
    while True:  # two runs started in the same second: the second makes the next name (mkdir is atomic)
        try:
            d.mkdir()
            return d.resolve()
        except FileExistsError:
            n += 1
            d = base.with_name(f"{base.name}-{n}")


#: The harness-only tool that hands a self-contained sub-build to a model session of its own (issue 20).
DELEGATE_TOOL = {"type": "function", "function": {
    "name": "delegate",
    "description": ("Hand self-contained sub-builds (e.g. a wheel assembly, one storey) to separate model "
                    "sessions that run at the same time, each with its own run folder, budget and validation. "
                    "Each finished sub-build comes back as a module NAME.py beside build.py: `from NAME import "
                    "create_build as NAME_build`, then place it with build.add_raw(NAME_build(), Pose(...)). Call "
                    "it once with every sub-build of a turn to run them together."),
    "parameters": {"type": "object", "additionalProperties": False, "required": ["name", "request"], "properties": {
        "name": {"type": "string", "description": "Module name of the sub-build (a Python identifier)."},
        "request": {"type": "string", "description": "What the sub-build is: parts, size in studs, colours, where "
                                                     "it connects."},
        "max_calls": {"type": "integer", "description": "Tool calls for the sub-session (default 30)."}}}}}
#: Tool calls a sub-session gets unless the delegate call says otherwise.
DELEGATE_MAX_CALLS = 30


def _delegate_all(calls: list[dict], *, run_dir: Path, provider: Provider, usage: Usage, tr: "_Transcript",
                  settings: dict) -> dict[str, str]:
    """Run delegate calls concurrently (one sub-session each); call id -> the text the model reads.

    A finished sub-build's build.py is copied to ``run_dir/NAME.py``. Each sub-session's tokens are added to
    ``usage`` (so the run's cost and budget include them); its run folder is ``run_dir/subbuilds/NAME``.
    """
    import re
    import shutil
    import threading
    from concurrent.futures import ThreadPoolExecutor

    lock = threading.Lock()

    def one(call: dict) -> str:
        try:
            args = json.loads(call["arguments"] or "{}") if isinstance(call["arguments"], str) else call["arguments"]
            name, request = str(args["name"]), str(args["request"])
            max_calls = int(args.get("max_calls") or DELEGATE_MAX_CALLS)
        except (ValueError, KeyError, TypeError, RecursionError):
            return "Error: delegate takes name (string), request (string) and optional max_calls (integer)."
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,40}", name) or name in ("build", "bricklayer", "brickwright"):
            return f"Error: name {name[:40]!r} must be a Python identifier other than build/bricklayer/brickwright."
        sub_dir = run_dir / "subbuilds" / name
        try:
            res = generate(request, provider=provider, out_dir=sub_dir, max_calls=min(max_calls, 60),
                           max_validate=settings["max_validate"], budget_usd=settings.get("budget_usd"),
                           time_limit=settings["time_limit"], sandbox=settings["sandbox"], force=True,
                           memory_limit=settings["memory_limit"], _delegate=False)
        except BrickWrightError as exc:
            return f"Error: the sub-session for {name} could not run: {exc}"
        with lock:  # sub-sessions finish on their own threads
            usage.prompt_tokens += res.prompt_tokens
            usage.completion_tokens += res.completion_tokens
            usage.cost_usd += res.cost_usd
        tr.write("delegate_result", id=call["id"], name=name, run_dir=str(sub_dir), finalized=res.finalized,
                 passed=res.passed, parts=res.parts, cost_usd=res.cost_usd)
        if not res.passed:
            return (f"Sub-build {name} did not pass validate ({res.message}); its build.py is in {sub_dir}. "
                    "Build that part yourself or delegate it again with a clearer request.")
        shutil.copyfile(res.build_path, run_dir / f"{name}.py")
        return (f"Sub-build {name}: {res.parts} parts, passes validate, cost ${res.cost_usd:.4f}. It is now "
                f"{name}.py beside build.py: `from {name} import create_build as {name}_build`, then "
                f"build.add_raw({name}_build(), Pose(...)) where it belongs.")

    with ThreadPoolExecutor(max_workers=max(1, len(calls))) as pool:
        return dict(zip([c["id"] for c in calls], pool.map(one, calls)))


#: What the critic is asked (issue 20: image prompts with a visual critique loop).
CRITIC_PROMPT = ("You compare a LEGO model with a reference picture. You get the reference image, then renders "
                 "of the model (iso and front views). List the concrete differences that matter, most important "
                 "first, as short lines: shape and proportions, colours, missing or extra features, where they "
                 "are. Suggest the change for each. If the model already matches well, answer NO DIFFERENCES.")


def _critique(box: ToolBox, critic: Provider, image: str | Path, usage: Usage, tr: "_Transcript",
              round_: int) -> str | None:
    """One critique round: render the build, ask the critic, record both; the critic's text or None."""
    renders = []
    for view in ("iso", "front"):
        out = box.tool_render(view=view)
        if out.image:
            renders.append(out.image)
    if not renders:
        tr.write("critique", round=round_, renders=[], text=None, note="no renders (no offscreen OpenGL?)")
        return None
    content = ([{"type": "text", "text": "Reference image:"}, _image_part(image),
                {"type": "text", "text": "Renders of the model:"}] + [_image_part(r) for r in renders])
    messages = [{"role": "system", "content": CRITIC_PROMPT}, {"role": "user", "content": content}]
    try:
        turn = critic.complete(messages, [])
    except ProviderError as exc:
        tr.write("critique", round=round_, renders=renders, text=None, error=str(exc))
        return None
    usage.add(critic.model, turn.prompt_tokens, turn.completion_tokens)
    text = (turn.content or "").strip() or "NO DIFFERENCES"
    tr.write("critique", round=round_, renders=renders, text=text, model=critic.model,
             usage={"prompt_tokens": turn.prompt_tokens, "completion_tokens": turn.completion_tokens})
    return text


def _image_part(path: str | Path) -> dict:
    p = Path(path)
    if not p.is_file():
        raise InputNotFoundError(f"image {p} not found; pass an existing PNG or JPEG file")
    mime = mimetypes.guess_type(p.name)[0] or "image/png"
    data = base64.b64encode(p.read_bytes()).decode()
    return {"type": "image_url", "image_url": {"url": f"data:{mime};base64,{data}"}}


def _checks_count(report: dict | None) -> tuple[int | None, int | None]:
    if not report:
        return None, None
    fixed, tests = report.get("fixed"), report.get("tests")
    if fixed is None:
        return 0, 2 + (len(tests["checks"]) if tests else 0)
    ok = int(fixed.get("collisions", 1) == 0) + int(fixed.get("floating", 1) == 0)
    total = 2
    if tests:
        ok += sum(c["passed"] for c in tests["checks"])
        total += len(tests["checks"])
    return ok, total


def _finish(box: ToolBox, tr: _Transcript) -> tuple[dict, str]:
    """Validate the latest build once more (not counted) and export model.ldr if it builds."""
    if box.ldr_path.exists():
        box.ldr_path.unlink()
    data, text = box.validate(export=True)
    tr.write("final_validate", passed=bool(data.get("passed")), report=text, fixed=data.get("fixed"),
             tests=data.get("tests"), build=box.source, exported=box.ldr_path.exists())
    return data, text


def generate(prompt: str, *, image: str | Path | None = None, from_path: str | Path | None = None,
             model: str | None = None, base_url: str | None = None, api_key: str | None = None,
             out_dir: str | Path | None = None, max_calls: int = DEFAULT_MAX_CALLS,
             max_validate: int = DEFAULT_MAX_VALIDATE, budget_usd: float | None = None,
             progress: Callable[[Progress], None] | None = None, time_limit: float = DEFAULT_TIME_LIMIT,
             memory_limit: int = DEFAULT_MEMORY_LIMIT, provider: Provider | None = None,
             worker: Worker | None = None, sandbox: bool = True, force: bool = False,
             inventory: str | Path | None = None, critic_model: str | None = None,
             critique_rounds: int = 0, _delegate: bool = True) -> RunResult:
    """Run the agent on one request and return where its build is and how it went.

    Parameters
    ----------
    prompt : str
        What to build (or, with ``from_path``, what to change).
    image : path, optional
        A reference picture (PNG/JPEG) sent with the request.
    from_path : path, optional
        Start from an existing ``build.py`` (copied) or an LDraw ``.ldr``/``.mpd`` model (copied as
        ``input.ldr``; the starting build.py reads it with ``read_ldraw``).
    model, base_url, api_key : str, optional
        Provider settings; default from the environment (see :func:`~.providers.resolve_provider`).
    out_dir : path, optional
        The run folder (created); default ``./brickwright_runs/<timestamp>-<slug>``.
    max_calls : int, default 60
        Tool calls before stopping.
    max_validate : int, default 20
        validate calls before stopping.
    budget_usd : float, optional
        Stop once the run's cost reaches this many US dollars (priced by :mod:`~.pricing`).
    progress : callable, optional
        Called with a :class:`Progress` after each response and each tool call.
    time_limit : float, default 30
        Seconds per build.py execution in the worker.
    memory_limit : int, default 2 GiB
        Worker address-space limit, bytes.
    provider : Provider, optional
        A ready provider (overrides model/base_url/api_key).
    worker : Worker, optional
        A warm worker to reuse (e.g. across :func:`~.evaluate.evaluate` runs); otherwise one is started and
        stopped here.
    sandbox : bool, default True
        Run the model's code in the OS sandbox (:mod:`~.sandbox`); False runs it with process limits only.
    force : bool, default False
        Replace a run already in ``out_dir``.
    inventory : path, optional
        A parts list (CSV: part id, LDraw colour code, quantity; :func:`bricklayer.read_inventory`): the model is
        told what it may use, and validate fails a build that uses more.
    critic_model : str, optional
        Model for the visual critique (default: the agent's own model, on the same server).
    critique_rounds : int, default 0
        With ``image``: when the model finalizes, a critic call compares renders of the build (iso and front
        views) with the reference image and lists concrete differences; the model gets them and revises, this
        many times. A critic that finds no differences ends the loop early. Every critique and render is in the
        transcript (``critique`` records) and the critic's tokens count in the cost.

    Returns
    -------
    RunResult
        Also written to ``result.json`` in the run folder. ``valid`` and ``passed`` are the judge's verdict on
        the exported ``model.ldr`` (:mod:`~.judge`), never anything the model's code reported.

    Raises
    ------
    ProviderNotConfiguredError
        When no provider is configured (before anything is written).
    FileNotFoundError, ValueError
        For a missing or unsupported ``image`` / ``from_path``.
    RunFolderExistsError
        ``out_dir`` holds a run and ``force`` is false (nothing is written).
    SandboxUnavailableError
        No sandbox can be set up and ``sandbox`` is true (nothing is written).
    """
    provider = provider or resolve_provider(model, base_url, api_key)
    critic = None
    if image is not None and critique_rounds > 0:
        critic = resolve_provider(critic_model, base_url, api_key) if critic_model else provider
    inv = None
    if inventory is not None:
        from bricklayer.inventory import read_inventory

        inv = read_inventory(inventory)
    if worker is None and sandbox:
        from .sandbox import SandboxUnavailableError, sandbox_problem

        problem = sandbox_problem()
        if problem:
            raise SandboxUnavailableError(f"refusing to run model code without a sandbox: {problem}; pass "
                                          "--no-sandbox to run it with process limits only")
    start_src, files = start_files(from_path)
    user_content: Any = prompt
    if image is not None:
        user_content = [{"type": "text", "text": prompt}, _image_part(image)]
    run_dir = _new_run_dir(prompt, out_dir, force)
    for stale in ("model.ldr", "result.json"):  # a replaced run leaves nothing of its own behind
        (run_dir / stale).unlink(missing_ok=True)
    for name, text in files.items():
        (run_dir / name).write_text(text, encoding="utf-8")
    own_worker = worker is None
    worker = worker or Worker(time_limit=time_limit, memory_limit=memory_limit, sandbox=sandbox)
    t0 = time.monotonic()
    tr_path = run_dir / "transcript.jsonl"
    if tr_path.exists():
        tr_path.unlink()
    tr = _Transcript(tr_path)
    box = ToolBox(run_dir, worker, inventory=inv)
    box.write_build(start_src)
    usage = Usage()
    price_note = "" if price_for(provider.model) else \
        f"no price known for model {provider.model!r}; cost counted as 0"
    try:
        sys_prompt = harness_system_prompt(worker, run_dir / "work", time_limit=max(time_limit, 60.0))
        messages: list[dict] = [{"role": "system", "content": sys_prompt}]
        start_note = ("\n\nbuild.py currently holds the model to edit; read_build shows it." if from_path
                      else "\n\nbuild.py holds a starting template; read_build shows it.")
        if inv is not None:
            start_note += ("\n\nUse only these parts (part id, LDraw colour code, quantity); validate fails a "
                           f"build that uses more ({inv.source}):\n" + inv.describe())
        if isinstance(user_content, str):
            messages.append({"role": "user", "content": user_content + start_note})
        else:
            user_content[0]["text"] += start_note
            messages.append({"role": "user", "content": user_content})
        tr.write("run_start", prompt=prompt, image=str(image) if image else None,
                 from_path=str(from_path) if from_path else None, start_build=start_src, files=files,
                 settings={"max_calls": max_calls, "max_validate": max_validate, "budget_usd": budget_usd,
                           "time_limit": time_limit, "memory_limit": memory_limit},
                 provider=provider.describe(), tools=TOOL_DEFINITIONS)
        logged = 0
        turns = idle = 0
        stop: str | None = None
        error = ""

        def emit(tool: str | None, message: str) -> None:
            if progress is not None:
                ok, total = _checks_count(box.last_validate)
                progress(Progress(turns, tool, box.tool_calls, box.validate_calls, ok, total, usage.cost_usd, message))

        critiques = 0
        tools = TOOL_DEFINITIONS + ([DELEGATE_TOOL] if _delegate else [])
        while stop is None:
            if budget_usd is not None and usage.cost_usd >= budget_usd:
                stop = "budget"
                break
            tr.write("request", turn=turns + 1, messages=messages[logged:])
            logged = len(messages)
            try:
                turn = provider.complete(messages, tools)
            except ProviderError as exc:
                stop, error = "provider_error", str(exc)
                tr.write("provider_error", error=error)
                break
            turns += 1
            usage.add(provider.model, turn.prompt_tokens, turn.completion_tokens)
            tr.write("response", turn=turns, message=turn.message, finish_reason=turn.finish_reason,
                     usage={"prompt_tokens": turn.prompt_tokens, "completion_tokens": turn.completion_tokens},
                     cost_usd=usage.cost_usd)
            messages.append(turn.message)
            logged = len(messages)
            emit(None, (turn.content or "").strip().split("\n")[0][:80])
            if not turn.tool_calls:
                idle += 1
                if idle > MAX_IDLE_TURNS:
                    stop = "model_stopped"
                    break
                nudge = {"role": "user", "content": "Use the tools: validate, fix what it reports, then call finalize."}
                messages.append(nudge)
                continue
            idle = 0
            images: list[str] = []
            delegated: dict[str, str] = {}
            wanted = [c for c in turn.tool_calls if c["name"] == "delegate"]
            if wanted and _delegate and stop is None:
                for c in wanted:
                    tr.write("tool_call", turn=turns, id=c["id"], name="delegate", arguments=c["arguments"])
                emit("delegate", f"{len(wanted)} sub-build(s) at once")
                delegated = _delegate_all(wanted, run_dir=run_dir, provider=provider, usage=usage, tr=tr,
                                          settings={"max_validate": max_validate,
                                          # the sub-sessions share what is left of the budget
                                          "budget_usd": None if budget_usd is None else
                                          max(0.0, budget_usd - usage.cost_usd) / len(wanted),
                                                    "time_limit": time_limit, "sandbox": sandbox,
                                                    "memory_limit": memory_limit})
            for call in turn.tool_calls:
                if call["id"] in delegated:
                    box.tool_calls += 1
                    content = delegated[call["id"]]
                    tr.write("tool_result", turn=turns, id=call["id"], name="delegate",
                             ok=" passes validate" in content, content=content)
                    messages.append({"role": "tool", "tool_call_id": call["id"], "content": content})
                    continue
                if stop is not None:
                    content = f"Not run: the run stopped ({stop})."
                elif box.tool_calls >= max_calls:
                    stop = "max_calls"
                    content = "Not run: the tool-call budget is used up."
                elif call["name"] == "validate" and box.validate_calls >= max_validate:
                    stop = "max_validate"
                    content = "Not run: the validate budget is used up."
                else:
                    tr.write("tool_call", turn=turns, id=call["id"], name=call["name"], arguments=call["arguments"])
                    outcome = box.run(call["name"], call["arguments"])
                    tr.write("tool_result", turn=turns, id=call["id"], name=call["name"], ok=outcome.ok,
                             content=outcome.text, image=outcome.image, finalized=outcome.finalized)
                    content = outcome.text
                    if outcome.image:
                        images.append(outcome.image)
                    emit(call["name"], outcome.text.split("\n")[0][:80])
                    if outcome.finalized and critic is not None and critiques < critique_rounds:
                        critiques += 1
                        text = _critique(box, critic, image, usage, tr, critiques)
                        if text is not None and "NO DIFFERENCES" not in text.upper():
                            outcome.finalized = False
                            content = ("Not final yet: a critic compared renders of your build with the reference "
                                       f"image (round {critiques} of {critique_rounds}):\n{text}\nRevise "
                                       "build.py, validate, then call finalize again.")
                            emit("critique", text.split("\n")[0][:80])
                    if outcome.finalized:
                        stop = "finalized"
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": content})
            if images and stop is None:
                messages.append({"role": "user", "content": [{"type": "text", "text": "Rendered image(s):"}]
                                 + [_image_part(p) for p in images]})
            if stop is None and box.tool_calls >= max_calls:
                stop = "max_calls"
        tr.write("request_log_tail", messages=messages[logged:])
        data, report_text = _finish(box, tr)
        fixed = data.get("fixed") or {}
        has_build = bool(fixed) and (fixed.get("parts") or 0) > 0  # an empty build is not a valid model
        message = STOP_MESSAGES[stop].format(max_calls=max_calls, max_validate=max_validate,
                                             budget_usd=budget_usd or 0.0, error=error)
        if stop != "finalized":
            state = "passes validate" if data.get("passed") else "does not pass validate"
            message += f"; kept the latest build ({state}) in {box.build_path}"
        result = RunResult(
            run_dir=run_dir, build_path=box.build_path, transcript_path=tr_path,
            ldr_path=box.ldr_path if box.ldr_path.exists() else None,
            finalized=stop == "finalized", passed=bool(data.get("passed")),
            valid=bool(has_build and fixed.get("passed")),
            collision_free=bool(has_build and fixed.get("collisions") == 0),
            floater_free=bool(has_build and fixed.get("floating") == 0),
            components=fixed.get("components"), parts=fixed.get("parts"), unique_parts=fixed.get("unique_parts"),
            stop_reason=stop, message=message, turns=turns, tool_calls=box.tool_calls,
            validate_calls=box.validate_calls, prompt_tokens=usage.prompt_tokens,
            completion_tokens=usage.completion_tokens, cost_usd=round(usage.cost_usd, 6), price_note=price_note,
            seconds=round(time.monotonic() - t0, 3), final_report=report_text, model=provider.model)
        tr.write("run_end", result=result.to_dict(), final_build=box.source)
        (run_dir / "result.json").write_text(json.dumps(result.to_dict(), indent=2), encoding="utf-8")
        if progress is not None:
            ok, total = _checks_count(data)
            progress(Progress(turns, None, box.tool_calls, box.validate_calls, ok, total, usage.cost_usd, message,
                              done=True))
        logger.info("run %s: %s", run_dir, message)
        return result
    finally:
        tr.close()
        box.close()
        if own_worker:
            worker.close()


@dataclass
class ReplayResult:
    """Outcome of :func:`replay`.

    Attributes
    ----------
    run_dir, build_path : pathlib.Path
    ldr_path : pathlib.Path or None
    same_build : bool
        The replayed final build.py equals the recorded one.
    passed : bool
        The replayed final build passes validate.
    tool_calls : int
        Tool calls re-executed.
    mismatches : list of str
        Ids of tool calls whose result text differs from the recorded one.
    """

    run_dir: Path
    build_path: Path
    ldr_path: Path | None
    same_build: bool
    passed: bool
    tool_calls: int
    mismatches: list[str] = field(default_factory=list)


def replay(transcript_path: str | Path, out_dir: str | Path, *, time_limit: float | None = None,
           worker: Worker | None = None, sandbox: bool = True) -> ReplayResult:
    """Re-execute a transcript's tool calls in a fresh run folder, without any model.

    Parameters
    ----------
    transcript_path : path
        A ``transcript.jsonl`` written by :func:`generate`.
    out_dir : path
        Folder for the replayed run: created, or an existing empty one (TranscriptError otherwise).
    time_limit : float, optional
        Worker time limit, s (default: the recorded one).
    worker : Worker, optional
        A warm worker to reuse.
    sandbox : bool, default True
        Run the recorded code in the OS sandbox (False: process limits only).

    Returns
    -------
    ReplayResult

    Raises
    ------
    TranscriptError
        When the file is missing, not JSONL, or has no ``run_start`` record.
    """
    path = Path(transcript_path)
    if not path.is_file():
        raise TranscriptError(f"transcript {path} not found")
    records = []
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise TranscriptError(f"{path}: not UTF-8 text (byte {exc.start}); is this a transcript.jsonl?") from None
    for i, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise TranscriptError(f"{path}:{i}: not a JSON line ({exc}); is this a transcript.jsonl?") from exc
    start = next((r for r in records if r.get("type") == "run_start"), None)
    if start is None:
        raise TranscriptError(f"{path}: no run_start record; it is not a BrickWright transcript")
    run_dir = Path(out_dir)
    if run_dir.exists() and (not run_dir.is_dir() or any(run_dir.iterdir())):
        # the replay writes build.py and more there: never over a user's files
        raise TranscriptError(f"{run_dir} is not an empty folder; replay into a new or empty one "
                              "(nothing in it was changed)")
    run_dir.mkdir(parents=True, exist_ok=True)
    run_dir = run_dir.resolve()
    for name, text in (start.get("files") or {}).items():
        dest = (run_dir / name).resolve()
        if dest.parent != run_dir or not isinstance(text, str):
            # a transcript names files of its run folder only (build.py): never a path leading out of OUT
            raise TranscriptError(f"{path}: run_start names the file {name!r}, which is not a plain file name "
                                  f"in the run folder; refusing to write outside {run_dir}")
        dest.write_text(text, encoding="utf-8")
    settings = start.get("settings") or {}
    own_worker = worker is None
    worker = worker or Worker(time_limit=time_limit or settings.get("time_limit", DEFAULT_TIME_LIMIT),
                              memory_limit=settings.get("memory_limit", DEFAULT_MEMORY_LIMIT), sandbox=sandbox)
    box = None
    recorded = {r["id"]: r["content"] for r in records if r.get("type") == "tool_result"}
    end = next((r for r in records if r.get("type") == "run_end"), None)
    try:
        box = ToolBox(run_dir, worker)
        box.write_build(start["start_build"])
        mismatches = []
        for r in records:
            if r.get("type") != "tool_call":
                continue
            out = box.run(r["name"], r["arguments"])
            if recorded.get(r["id"]) != out.text:
                mismatches.append(r["id"])
        tr = _Transcript(run_dir / "replay.jsonl")
        try:
            data, _ = _finish(box, tr)
        finally:
            tr.close()
        same = end is not None and end.get("final_build") == box.source
        return ReplayResult(run_dir, box.build_path, box.ldr_path if box.ldr_path.exists() else None, same,
                            bool(data.get("passed")), sum(1 for r in records if r.get("type") == "tool_call"),
                            mismatches)
    finally:
        if box is not None:
            box.close()
        if own_worker:
            worker.close()


def validate_file(path: str | Path, *, time_limit: float = DEFAULT_TIME_LIMIT,
                  memory_limit: int = DEFAULT_MEMORY_LIMIT, export: str | Path | None = None,
                  sandbox: bool = True) -> dict[str, Any]:
    """Validate a ``build.py`` exactly as the agent's ``validate`` tool does: run in the sandbox, judged apart.

    The script runs in the sandboxed worker with a private scratch folder as its only writable folder; it may
    read the ``*.py`` modules beside it (so ``import helpers`` works) and nothing else of the user's. The
    verdict is the judge's on the LDraw text the script's build exports (:func:`~.tools.run_and_judge`).

    Parameters
    ----------
    path : path
        The build.py file.
    time_limit : float, default 30
        Seconds allowed, s.
    memory_limit : int, default 2 GiB
        Worker address-space limit, bytes.
    export : path, optional
        Also write the judged LDraw text to this file (atomically) when create_build() succeeds.
    sandbox : bool, default True
        False runs the script with process limits only (the CLI's ``--no-sandbox``).

    Returns
    -------
    dict
        ``passed`` (bool: the verdict and every run_tests() check), ``valid`` (the verdict alone), ``text``
        (the report the agent reads), ``fixed`` (collisions, floating, components, parts, unique_parts,
        problems; absent when create_build() failed), ``tests`` (run_tests report or None), ``error`` (when
        build.py failed: type, line, text), ``output`` (printed text) and ``ldraw`` (the judged text or None).

    Raises
    ------
    FileNotFoundError
        When ``path`` does not exist.
    SandboxUnavailableError
        When ``sandbox`` is true and no sandbox can be set up.
    """
    from .judge import Judge
    from .tools import run_and_judge

    p = Path(path).resolve()
    if not p.is_file():
        raise InputNotFoundError(f"{p}: no such build.py")
    modules = [q for q in sorted(p.parent.glob("*.py")) if q != p and q.is_file() and not q.is_symlink()]
    with Worker(time_limit=time_limit, memory_limit=memory_limit, warm_up=False, sandbox=sandbox) as worker, \
            Judge() as judge, tempfile.TemporaryDirectory(prefix="brickwright-validate-") as work:
        data, ldraw = run_and_judge(worker, judge, source=p.read_text(encoding="utf-8"), build_path=p, cwd=work,
                                    read_files=modules, time_limit=time_limit)
    if export is not None and ldraw is not None:
        from ldraw_data.fileio import atomic_write

        atomic_write(Path(export), ldraw)
    data["ldraw"] = ldraw
    data["text"] = format_validation(data)
    data.pop("limit", None)
    return data
