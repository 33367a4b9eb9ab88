"""The tools the model uses: their JSON-schema definitions and :class:`ToolBox`, which runs them.

Every tool returns text for the model (``render`` may also return an image path). Edits act on the run
folder's ``build.py``; ``validate``, ``explore`` and ``render`` run it in the sandboxed :class:`~.worker.Worker`.
What the code's process returns is data: ``validate``'s verdict comes from :class:`~.judge.Judge`, which reads
the build's LDraw text and runs no model code (:func:`run_and_judge`). ``finalize`` is accepted only when the
last ``validate`` passed and ``build.py`` has not changed since.
"""

from __future__ import annotations

__all__ = ["TOOL_DEFINITIONS", "TOOL_NAMES", "ToolBox", "ToolOutcome", "format_validation", "run_and_judge",
           "clean_tests", "argument_problem"]

import base64
import hashlib
import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .judge import Judge
from .worker import Worker

logger = logging.getLogger(__name__)

#: Largest PNG accepted from the worker's render, bytes.
MAX_RENDER_BYTES = 32 * 1024**2

#: Passing checks whose detail (what they covered, e.g. the motion check's joints and poses) a passing
#: validate prints, one line each; kept short so the verdict stays on the first screen.
PASSED_DETAILS_SHOWN = 5
#: Checks of run_tests() kept in a record, and characters of a check's name or detail.
MAX_CHECKS, MAX_CHECK_TEXT = 200, 500


from .._text import clean_text  # noqa: E402
from ldraw_data.errors import OutputExistsError


def clean_tests(tests: Any) -> dict | None:
    """run_tests() results as sent by the worker, reduced to plain, bounded data.

    The worker's reply is written by a process the model's code controls, so its shape is not trusted:
    anything but ``{"passed": bool, "checks": [{"name", "passed", "detail"}, ...]}`` becomes a failing
    record. Returns None when the build has no run_tests().
    """
    if tests is None:
        return None
    if not isinstance(tests, dict) or not isinstance(tests.get("checks"), list):
        return {"passed": False, "checks": [{"name": "run_tests", "passed": False,
                                             "detail": "run_tests() returned something that is not a report"}]}
    checks = []
    for c in tests["checks"][:MAX_CHECKS]:
        c = c if isinstance(c, dict) else {}
        checks.append({"name": clean_text(c.get("name", "?"), one_line=True, limit=MAX_CHECK_TEXT),
                       "passed": c.get("passed") is True,
                       "detail": clean_text(c.get("detail") or "", one_line=True, limit=MAX_CHECK_TEXT)})
    # a run_tests() that ran no check tested nothing: it does not pass
    return {"passed": tests.get("passed") is True and bool(checks) and all(c["passed"] for c in checks),
            "checks": checks}


def run_and_judge(worker: Worker, judge: Judge, *, source: str, build_path: str | Path, cwd: str | Path,
                  read_files: list | tuple = (), time_limit: float | None = None,
                  inventory=None, diagnostic: bool = False) -> tuple[dict, str | None]:
    """Run a build.py in the sandboxed worker and judge the build it returns.

    Parameters
    ----------
    worker : Worker
        Runs ``create_build()`` and ``run_tests()``; returns the build as LDraw text and the test results.
    judge : Judge
        Computes the verdict on that text, in a process that runs no model code.
    source : str
        The text of build.py.
    build_path : path
        Where build.py lives (named in tracebacks).
    cwd : path
        The sandbox's writable folder.
    read_files : sequence of path
        Modules beside build.py the code may import (read-only).
    time_limit : float, optional
        Seconds for the code (default the worker's).
    inventory : bricklayer.Inventory, optional
        Parts the build may use: a part or colour beyond it fails the verdict (the judge checks it).
    diagnostic : bool
        Also return ``diagnostic`` (file name -> LDraw text, :func:`brickwright.validation.diagnostic_ldraw`).

    Returns
    -------
    (dict, str or None)
        The record: ``fixed`` (the judge's verdict, absent when no build came back), ``tests``
        (:func:`clean_tests`), ``error`` (when build.py failed), ``output``, ``report`` (the judge's whole
        validation report, JSON-ready), ``valid`` (the verdict alone) and
        ``passed`` (valid and every run_tests() check passed, with no error); and the LDraw text that was
        judged (None when create_build() failed). Nothing the code sent can set ``valid`` or ``passed``.
    """
    res = worker.call("validate", source=source, build_path=str(build_path), cwd=str(cwd),
                      read_files=list(read_files), time_limit=time_limit)
    got = dict(res.data)
    data: dict[str, Any] = {"output": clean_text(got.get("output") or "")}
    err = got.get("error")
    if isinstance(err, dict):
        data["error"] = {k: err.get(k) for k in ("type", "line", "hint", "text", "stage", "code", "message")}
        for k in ("type", "hint", "text", "stage", "code", "message"):
            if data["error"][k] is not None:
                data["error"][k] = clean_text(data["error"][k])
        data["error"]["text"] = data["error"]["text"] or ""
        if not isinstance(data["error"]["line"], int) or isinstance(data["error"]["line"], bool):
            data["error"]["line"] = None
    elif err is not None:
        data["error"] = {"type": "Error", "line": None, "hint": "", "text": clean_text(err)}
    data["tests"] = clean_tests(got.get("tests")) if "tests" in got else None
    ldraw = got.get("ldraw")
    if not isinstance(ldraw, str):
        ldraw = None
    if ldraw is not None:
        lines = got.get("lines")  # build.py line of each placement, by index path: only for citations
        lines = ({k: v for k, v in lines.items() if isinstance(k, str) and len(k) < 200 and isinstance(v, int)
                  and not isinstance(v, bool) and v > 0} if isinstance(lines, dict) else None)
        data["fixed"] = judge.judge(ldraw, source=Path(build_path).name,
                                    inventory=inventory.to_json() if inventory is not None else None,
                                    diagnostic=diagnostic, lines=lines or None)
        data["report"] = data["fixed"].pop("report", None)
        diag = data["fixed"].pop("diagnostic", None)
        if isinstance(diag, dict):
            data["diagnostic"] = {str(k): str(v) for k, v in diag.items() if k in ("problems.ldr", "components.mpd")}
        # the judge's lines quote names from the text the code wrote (submodels, parts): clean them too
        data["fixed"]["problems"] = [clean_text(p) for p in data["fixed"].get("problems") or []]
        data["fixed"]["text"] = clean_text(data["fixed"].get("text") or "")
    data["limit"] = res.limit
    data["valid"] = bool(data.get("fixed") and data["fixed"].get("passed"))
    tests_ok = bool(data["tests"] and data["tests"]["passed"])
    data["passed"] = bool(data["valid"] and tests_ok and "error" not in data)
    return data, ldraw


def _fn(name: str, description: str, properties: dict | None = None, required: list[str] | None = None) -> dict:
    return {"type": "function", "function": {
        "name": name, "description": description,
        "parameters": {"type": "object", "properties": properties or {}, "required": required or [],
                       "additionalProperties": False}}}


#: Chat-completions tool definitions (``tools=`` argument), in the order the system prompt names them.
TOOL_DEFINITIONS: list[dict] = [
    _fn("read_build", "Show build.py with line numbers (the numbers are not part of the file)."),
    _fn("write_build", "Replace the whole of build.py.",
        {"content": {"type": "string", "description": "The complete new build.py."}}, ["content"]),
    _fn("edit_build", "Replace one exact occurrence of old_text in build.py by new_text. Fails when old_text "
                      "occurs 0 or more than 1 times; then include more surrounding lines to make it unique.",
        {"old_text": {"type": "string", "description": "Exact text to find (whitespace matters)."},
         "new_text": {"type": "string", "description": "Replacement text."}}, ["old_text", "new_text"]),
    _fn("insert_build", "Insert text before a line of build.py (line = number of lines + 1 appends).",
        {"line": {"type": "integer", "description": "1-based line number to insert before."},
         "text": {"type": "string", "description": "Lines to insert."}}, ["line", "text"]),
    _fn("validate", "Run create_build() and run_tests() and the collision and floating checks; returns what "
                    "fails, where, and what to try."),
    _fn("render", "Render an image of the current build: by default a labelled sheet of six views "
                  "(front, back, left, right, top, iso); colliding parts red and floating parts orange "
                  "with highlight_problems.",
        {"view": {"type": "string", "description": "sheet (default), iso, iso_back, front, back, left, right, "
                                                   "top, bottom."},
         "highlight_problems": {"type": "boolean", "description": "Mark colliding/floating parts."},
         "pose": {"type": "object", "description": "Joint values to show the build posed, e.g. {\"lid\": 60}: "
                                                   "the key is the name of the placement the joint moves (name= of "
                                                   "connect() or add(); nested \"door/door\"), the value degrees "
                                                   "(hinges, turntables) or studs (sliders), as build.posed() takes "
                                                   "them."}}),
    _fn("explore", "Run a Python snippet with every bricklayer name imported, `bricklayer` itself and `build` = "
                   "create_build() (plus build.py's own names); prints and the value of a last expression are "
                   "returned as text. Use it to search parts (search_parts), list a part's connectors "
                   "(describe_connectors), or try an idea. It runs in a sandbox: no files outside its folder, "
                   "no network.",
        {"code": {"type": "string", "description": "Python code."}}, ["code"]),
    _fn("finalize", "Finish: accepted only when the last validate passed and build.py is unchanged since.",
        {"summary": {"type": "string", "description": "One or two sentences describing the model."}}),
]
TOOL_NAMES = [t["function"]["name"] for t in TOOL_DEFINITIONS]


@dataclass
class ToolOutcome:
    """Result of one tool call.

    Attributes
    ----------
    text : str
        What the model reads.
    ok : bool
        False when the call was refused or failed (bad arguments, failed validation, refused finalize).
    image : str or None
        Path of a rendered PNG (``render`` only).
    finalized : bool
        True when ``finalize`` was accepted.
    report : dict or None
        The worker's validation record (``validate`` only).
    """

    text: str
    ok: bool = True
    image: str | None = None
    finalized: bool = False
    report: dict | None = None


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _write_atomic(path: Path, text: str | bytes) -> None:
    from ldraw_data.fileio import atomic_write

    atomic_write(path, text)


_JSON_TYPES = {"string": str, "integer": int, "boolean": bool, "number": (int, float), "object": dict}


def argument_problem(name: str, args: dict) -> str | None:
    """What is wrong with a tool call's arguments against its JSON schema (None when they fit).

    Parameters
    ----------
    name : str
        A tool of :data:`TOOL_NAMES`.
    args : dict
        The call's arguments, as decoded from JSON.

    Returns
    -------
    str or None
        One line naming the arguments the tool takes and what is missing, unknown or of the wrong JSON type
        (the schema of :data:`TOOL_DEFINITIONS`); None when they fit. The harness and ``brickwright tool``
        both answer a bad call with it.
    """
    spec = next(t["function"]["parameters"] for t in TOOL_DEFINITIONS if t["function"]["name"] == name)
    props, required = spec.get("properties", {}), spec.get("required", [])
    wanted = ", ".join(f"{k} ({v.get('type', 'any')})" for k, v in props.items()) or "no arguments"
    missing = [k for k in required if k not in args]
    unknown = [k for k in args if k not in props]
    if missing or unknown:
        what = "; ".join(filter(None, [f"missing {', '.join(missing)}" if missing else "",
                                       f"unknown {', '.join(unknown)}" if unknown else ""]))
        return f"{name} takes {wanted}: {what}."
    for k, v in args.items():
        typ = _JSON_TYPES.get(props[k].get("type"))
        if typ is not None and (not isinstance(v, typ) or (typ is int and isinstance(v, bool))):
            return f"{name}: {k} must be {'an' if props[k]['type'][0] in 'aeiou' else 'a'} {props[k]['type']}, got {type(v).__name__} {v!r:.40}."
    return None


def format_validation(data: dict, *, limit_note: str | None = None) -> str:
    """Render a worker validation record as the compact report the model reads.

    Parameters
    ----------
    data : dict
        The worker's reply to ``validate``: ``passed``, ``error``, ``fixed`` (collisions, floating,
        components, parts, unique_parts, problems), ``tests`` (``{"passed", "checks"}`` or None), ``output``.
    limit_note : str, optional
        Text to add when a process limit ended the call.

    Returns
    -------
    str
        First line ``VALIDATE: PASSED ...`` or ``VALIDATE: FAILED ...``, then one line per problem.
    """
    lines: list[str] = []
    err = data.get("error")
    fixed = data.get("fixed")
    tests = data.get("tests")
    if err:
        if err.get("stage") == "checks":
            lines.append("VALIDATE: FAILED - the validator itself raised an error on this build (report it; "
                         "try a simpler construction meanwhile).")
        else:
            lines.append("VALIDATE: FAILED - build.py did not complete.")
        lines.append(err.get("text", ""))
    else:
        stats = ""
        if fixed:
            comps = fixed.get("components")
            stats = (f"{fixed['parts']} parts ({fixed['unique_parts']} distinct part ids)"
                     + (f", {comps} connected component(s)" if comps is not None else ""))
        n_ok = sum(c["passed"] for c in tests["checks"]) if tests else 0
        n_all = len(tests["checks"]) if tests else 0
        if data.get("passed"):
            lines.append(f"VALIDATE: PASSED - {stats}; run_tests {n_ok}/{n_all} checks passed. "
                         "Call finalize if the model is complete.")
            # what a passing check covered, when it says so (e.g. the motion check's joints and poses)
            said = [c for c in tests["checks"] if c.get("detail")] if tests else []
            for c in said[:PASSED_DETAILS_SHOWN]:
                detail = " ".join(str(c["detail"]).split())
                lines.append(f"- {c['name']}: {detail[:200]}" + ("..." if len(detail) > 200 else ""))
            if len(said) > PASSED_DETAILS_SHOWN:
                lines.append(f"- and {len(said) - PASSED_DETAILS_SHOWN} more checks with details")
        else:
            lines.append(f"VALIDATE: FAILED - {stats}.")
            for p in (fixed or {}).get("problems", []):
                lines.append(f"- {p}")
            if fixed and fixed.get("parts") == 0:
                lines.append("- the build is empty: add parts in create_build()")
            if tests is None:
                lines.append("- build.py has no run_tests(); add one that returns TestContext(create_build()).report()")
            else:
                if n_all == 0:
                    lines.append("- run_tests() ran no checks; call ctx.check_no_floating() etc.")
                fixed_names = {"no_floating", "no_collisions"} if (fixed or {}).get("problems") else set()
                for c in tests["checks"]:
                    if not c["passed"] and c["name"] not in fixed_names:  # said above already
                        lines.append(f"- test {c['name']} failed" + (f": {c['detail']}" if c["detail"] else ""))
                lines.append(f"run_tests: {n_ok}/{n_all} checks passed.")
    if limit_note:
        lines.append(limit_note)
    out = data.get("output") or ""
    if out.strip():
        lines.append("Printed output:\n" + out.rstrip())
    return "\n".join(lines)


@dataclass
class ToolBox:
    """State of one run's build and the tool implementations.

    Parameters
    ----------
    run_dir : pathlib.Path
        The run folder; holds ``build.py``, ``model.ldr``, ``renders/`` and ``work/`` (the worker's cwd).
    worker : Worker
        The sandbox that runs build.py.
    judge : Judge, optional
        Computes verdicts (default: one of its own, stopped by :meth:`close`).
    inventory : bricklayer.Inventory, optional
        Parts the build may use; validate fails a build that uses more (a fixed check of the judge).

    Attributes
    ----------
    tool_calls, validate_calls : int
        Calls executed so far.
    last_validate : dict or None
        The worker record of the last validate.
    last_ldraw : str or None
        The LDraw text the judge checked in the last :meth:`validate` (None when create_build() failed).
    """

    run_dir: Path
    worker: Worker
    judge: Judge | None = None
    inventory: Any = None
    tool_calls: int = 0
    validate_calls: int = 0
    renders: int = 0
    last_validate: dict | None = None
    _validated_sha: str | None = field(default=None, repr=False)
    _validated_files: dict | None = field(default=None, repr=False)
    summary: str = ""
    last_ldraw: str | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.run_dir = Path(self.run_dir).resolve()
        work = self.run_dir / "work"
        if work.is_symlink() or (work.exists() and not work.is_dir()):
            # the sandbox may write its work folder: never a folder elsewhere that a link points to
            raise OutputExistsError(f"{work} is a link or a file, not the run's own folder; remove it")
        work.mkdir(parents=True, exist_ok=True)
        if not self.build_path.exists():
            _write_atomic(self.build_path, "")
        self._own_judge = self.judge is None
        if self.judge is None:
            self.judge = Judge()

    def close(self) -> None:
        """Stop the judge process when this ToolBox started it."""
        if self._own_judge and self.judge is not None:
            self.judge.close()

    # -- files -------------------------------------------------------------------------------------------
    @property
    def build_path(self) -> Path:
        """The run folder's build.py."""
        return self.run_dir / "build.py"

    @property
    def ldr_path(self) -> Path:
        """Where the build is exported: the run folder's model.ldr."""
        return self.run_dir / "model.ldr"

    @property
    def source(self) -> str:
        """Current text of build.py ("" before the first write)."""
        return self.build_path.read_text(encoding="utf-8")

    def write_build(self, text: str) -> None:
        """Replace build.py with ``text`` (atomic: a reader sees the old or the new file, never half)."""
        _write_atomic(self.build_path, text)

    # -- dispatch ----------------------------------------------------------------------------------------
    def run(self, name: str, arguments: str | dict) -> ToolOutcome:
        """Execute one tool call.

        Parameters
        ----------
        name : str
            One of :data:`TOOL_NAMES`.
        arguments : str or dict
            The JSON arguments as the model sent them (a string) or already parsed.

        Returns
        -------
        ToolOutcome
            Never raises for bad input from the model; the outcome text says what was wrong.
        """
        self.tool_calls += 1
        if isinstance(arguments, str):
            try:
                args = json.loads(arguments or "{}")
            except RecursionError:
                return ToolOutcome(f"Error: arguments of {name} nest too deeply; send a flat JSON object.", False)
            except json.JSONDecodeError as exc:
                return ToolOutcome(f"Error: arguments of {name} are not valid JSON ({exc}); send a JSON object.", False)
        else:
            args = dict(arguments or {})
        if not isinstance(args, dict) or not all(isinstance(k, str) for k in args):
            return ToolOutcome(f"Error: arguments of {name} must be a JSON object.", False)
        fn = getattr(self, f"tool_{name}", None) if name in TOOL_NAMES else None
        if fn is None:
            return ToolOutcome(f"Error: unknown tool {name!r}; the tools are {', '.join(TOOL_NAMES)}.", False)
        problem = argument_problem(name, args)
        if problem:
            return ToolOutcome(f"Error: {problem}", False)
        try:
            return fn(**args)
        except TypeError as exc:
            return ToolOutcome(f"Error: bad arguments for {name}: {exc}", False)
        except Exception as exc:  # noqa: BLE001 - a tool call never takes the harness down
            from .sandbox import SandboxUnavailableError

            if isinstance(exc, SandboxUnavailableError):  # the machine's set-up, not the model's input
                raise
            logger.exception("tool %s failed", name)
            return ToolOutcome(f"Error: {name} failed in the harness ({type(exc).__name__}: {exc}); "
                               "try other arguments", False)

    # -- tools -------------------------------------------------------------------------------------------
    def tool_read_build(self) -> ToolOutcome:
        """read_build: build.py with line numbers."""
        src = self.source
        if not src:
            return ToolOutcome("build.py is empty.")
        lines = src.splitlines()
        width = len(str(len(lines)))
        return ToolOutcome("\n".join(f"{i:>{width}}| {line}" for i, line in enumerate(lines, 1)))

    def tool_write_build(self, content: str) -> ToolOutcome:
        """write_build: replace build.py with ``content`` (written atomically)."""
        self.write_build(content)
        return ToolOutcome(f"build.py written ({len(content.splitlines())} lines). Call validate to check it.")

    def tool_edit_build(self, old_text: str, new_text: str) -> ToolOutcome:
        """edit_build: replace the one exact occurrence of ``old_text`` (0 or several matches are refused)."""
        src = self.source
        if not old_text:
            return ToolOutcome("Error: old_text is empty; give the exact text to replace.", False)
        n = src.count(old_text)
        if n == 0:
            return ToolOutcome("Error: old_text not found in build.py (it must match exactly, including "
                               "indentation); call read_build to see the current text.", False)
        if n > 1:
            return ToolOutcome(f"Error: old_text occurs {n} times in build.py; include more surrounding lines so "
                               "it matches exactly once.", False)
        at = src[: src.index(old_text)].count("\n") + 1
        self.write_build(src.replace(old_text, new_text, 1))
        return ToolOutcome(f"Replaced 1 occurrence at line {at}. Call validate to check it.")

    def tool_insert_build(self, line: int, text: str) -> ToolOutcome:
        """insert_build: insert ``text`` before 1-based ``line`` (number of lines + 1 appends)."""
        lines = self.source.splitlines(keepends=True)
        try:
            line = int(line)
        except (TypeError, ValueError):
            return ToolOutcome("Error: line must be an integer.", False)
        if not 1 <= line <= len(lines) + 1:
            return ToolOutcome(f"Error: line {line} is outside 1..{len(lines) + 1} (build.py has {len(lines)} "
                               "lines).", False)
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += "\n"
        if text and not text.endswith("\n"):
            text += "\n"
        lines[line - 1:line - 1] = [text]
        self.write_build("".join(lines))
        return ToolOutcome(f"Inserted {len(text.splitlines())} line(s) before line {line}. Call validate to check it.")

    def worker_args(self) -> dict[str, Any]:
        """What the worker needs to run this folder's build.py: ``source`` (its text), ``build_path``,
        ``cwd`` (the run's ``work`` folder) and ``read_files`` (paths the sandbox lets it read: the modules
        beside build.py and the model the run started from, ``input.*``). The keyword arguments of
        :meth:`brickwright.agent.worker.Worker.call` (and of ``Worker.start``'s read-only paths)."""
        # readable in the sandbox: modules beside build.py and the model a run started from (input.ldr)
        modules = [str(p) for p in sorted([*self.run_dir.glob("*.py"), *self.run_dir.glob("input.*")])
                   if p.name != "build.py" and p.is_file() and not p.is_symlink()]
        return {"source": self.source, "build_path": str(self.build_path), "cwd": str(self.run_dir / "work"),
                "read_files": modules}

    def code_fingerprint(self) -> dict[str, str]:
        """SHA-256 (hex) of every file besides build.py that the sandboxed build can read or import.

        These are the ``read_files`` of :meth:`worker_args` (the ``*.py`` modules beside build.py and the
        ``input.*`` model, mounted read-only) and every ``*.py`` file under the run's ``work`` folder (the
        sandbox's writable working folder, which ``explore`` and the build itself can write and
        ``import`` can load from), except ``__pycache__``. A passing validate records this mapping and
        :meth:`tool_finalize` refuses when it differs, so the verdict binds to the code that produced it
        (break-it report s25 F2).

        Returns
        -------
        dict
            Path relative to the run folder (``/`` separators) -> SHA-256 of the file's bytes. A file that
            cannot be read maps to ``"unreadable"``.
        """
        paths = [Path(p) for p in self.worker_args()["read_files"]]
        work = self.run_dir / "work"
        if work.is_dir() and not work.is_symlink():
            paths += [p for p in work.rglob("*.py") if "__pycache__" not in p.parts]
        out: dict[str, str] = {}
        for p in sorted(set(paths)):
            try:
                digest = hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "unreadable"
            except OSError:
                digest = "unreadable"
            out[p.relative_to(self.run_dir).as_posix()] = digest
        return out

    def validate(self, *, export: bool = False, snapshot: str | None = None) -> tuple[dict, str]:
        """Run build.py in the worker and judge its build, without counting it as a tool call.

        Parameters
        ----------
        export : bool
            Also write ``model.ldr``: exactly the LDraw text that was judged (atomically).
        snapshot : str, optional
            Keep a record of this validate in ``snapshots/<snapshot>/``: ``build.py``, ``report.txt``, and
            ``problems.ldr`` (colliding parts red, floating yellow) and ``components.mpd`` (one submodel per
            connected component) for any LDraw viewer.

        Returns
        -------
        (dict, str)
            The record of :func:`run_and_judge` (``passed`` false when the build is empty) with ``sha`` (of
            build.py) and ``files`` (:meth:`code_fingerprint`, taken before the run), and the report text.
        """
        src = self.source
        files = self.code_fingerprint()
        args = self.worker_args()
        data, ldraw = run_and_judge(self.worker, self.judge, source=args["source"], build_path=args["build_path"],
                                    cwd=args["cwd"], read_files=args["read_files"], inventory=self.inventory,
                                    diagnostic=snapshot is not None)
        data.pop("report", None)  # the compact ``fixed`` is what the model reads and the transcript keeps
        diag = data.pop("diagnostic", None)
        self.last_ldraw = ldraw
        if export and ldraw is not None:
            _write_atomic(self.ldr_path, ldraw)
        note = None
        if data.get("limit") == "memory" and "error" in data:
            note = "(the build's process ran out of memory)"
        data["sha"] = _sha(src)
        data["files"] = files
        text = format_validation(data, limit_note=note)
        if snapshot is not None:
            snap = self.run_dir / "snapshots" / snapshot
            _write_atomic(snap / "build.py", src)
            _write_atomic(snap / "report.txt", text + "\n")
            for name, body in (diag or {}).items():
                _write_atomic(snap / name, body)
        return data, text

    def tool_validate(self) -> ToolOutcome:
        """validate: run build.py in the worker (fixed checks and run_tests); the compact report."""
        self.validate_calls += 1
        data, text = self.validate(snapshot=f"validate-{self.validate_calls:03d}")
        self.last_validate = data
        self._validated_sha = data["sha"] if data.get("passed") else None
        self._validated_files = data.pop("files") if data.get("passed") else None
        return ToolOutcome(text, bool(data.get("passed")), report=data)

    def tool_render(self, view: str = "sheet", highlight_problems: bool = False,
                    pose: dict | None = None) -> ToolOutcome:
        """render: a PNG of the build (default the six-view sheet), returned as an image.

        The worker sends the PNG's bytes; they are checked (PNG signature, at most :data:`MAX_RENDER_BYTES`)
        and written here, into ``renders/`` of the run folder, which the worker cannot write.
        """
        from bricklayer.render.camera import VIEWS

        if not isinstance(view, str) or view not in (*VIEWS, "sheet"):
            return ToolOutcome(f"Error: unknown view {str(view)[:40]!r}; use one of {', '.join(VIEWS)} or sheet.",
                               False)
        if pose is not None and not (isinstance(pose, dict) and all(
                isinstance(k, str) and isinstance(v, (int, float)) and not isinstance(v, bool)
                for k, v in pose.items())):
            return ToolOutcome("Error: pose must map joint names to numbers, e.g. {\"lid\": 60}.", False)
        self.renders += 1
        out = self.run_dir / "renders" / f"render_{self.renders:03d}_{view}.png"
        res = self.worker.call("render", **self.worker_args(), view=view, highlight_problems=highlight_problems,
                               pose=pose)
        err = res.data.get("error")
        text = clean_text(res.data.get("text") or (err.get("text") if isinstance(err, dict) else None)
                          or "render failed")
        png = res.data.get("png_base64") if res.ok and res.data.get("passed") else None
        image = None
        if isinstance(png, str) and len(png) <= MAX_RENDER_BYTES * 4 // 3 + 4:
            try:
                data = base64.b64decode(png, validate=True)
            except ValueError:
                data = b""
            if data.startswith(b"\x89PNG\r\n\x1a\n"):
                out.parent.mkdir(exist_ok=True)
                _write_atomic(out, data)
                image = str(out)
                text = f"{text} to {out.name}"
            else:
                text = "render failed: the worker sent no PNG image"
        return ToolOutcome(text, bool(image), image=image)

    def tool_explore(self, code: str) -> ToolOutcome:
        """explore: run a snippet with bricklayer and ``build`` in scope; its printed output."""
        res = self.worker.call("explore", **self.worker_args(), code=code)
        err = res.data.get("error")
        if not res.ok or err:
            return ToolOutcome(clean_text(err.get("text") if isinstance(err, dict) else err), False)
        out = clean_text(res.data.get("output") or "") or "(no output; print something or end with an expression)"
        return ToolOutcome(out.rstrip(), res.data.get("passed") is True)

    def changed_since_validate(self) -> list[str]:
        """Files the build can read that differ from what the last passing validate saw.

        Returns
        -------
        list of str
            Paths relative to the run folder (``build.py`` first), each with ``(changed)``, ``(new)`` or
            ``(removed)``; empty when nothing changed. ``["build.py (no passing validate recorded)"]`` when
            no fingerprint was recorded.
        """
        if self._validated_sha is None:
            return ["build.py (no passing validate recorded)"]
        out = ["build.py (changed)"] if self._validated_sha != _sha(self.source) else []
        if self._validated_files is None:  # a state written before files were recorded
            return out + ["the modules and work/ files (not recorded by that validate)"]
        now, then = self.code_fingerprint(), self._validated_files
        for name in sorted(set(now) | set(then)):
            if name not in then:
                out.append(f"{name} (new)")
            elif name not in now:
                out.append(f"{name} (removed)")
            elif now[name] != then[name]:
                out.append(f"{name} (changed)")
        return out

    def tool_finalize(self, summary: str = "") -> ToolOutcome:
        """finalize: accepted only when the last validate passed and neither build.py nor any file it can
        read or import (:meth:`code_fingerprint`) changed since (break-it report s25 F2)."""
        if self.last_validate is None:
            return ToolOutcome("Refused: call validate first; finalize is accepted only after a passing validate.",
                               False)
        if not self.last_validate.get("passed"):
            return ToolOutcome("Refused: the last validate failed; fix the reported problems and validate again.",
                               False)
        changed = self.changed_since_validate()
        if "build.py (changed)" in changed:
            return ToolOutcome("Refused: build.py changed since the last passing validate; validate again.", False)
        if changed:
            return ToolOutcome("Refused: files the build reads changed since the last passing validate: "
                               f"{', '.join(changed[:10])}{' ...' if len(changed) > 10 else ''}; validate again.",
                               False)
        self.summary = summary
        return ToolOutcome("Accepted: the build is final.", True, finalized=True)
