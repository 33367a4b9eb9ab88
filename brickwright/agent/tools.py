"""The tools the model uses: their JSON-schema definitions and :class:`ToolBox`, which runs them.

Every tool returns text for the model (``render`` may also return an image path). Edits act on the run
folder's ``build.py``; ``validate``, ``explore`` and ``render`` run it in the sandboxed :class:`~.worker.Worker`.
``finalize`` is accepted only when the last ``validate`` passed and ``build.py`` has not changed since.
"""

from __future__ import annotations

__all__ = ["TOOL_DEFINITIONS", "TOOL_NAMES", "ToolBox", "ToolOutcome", "format_validation"]

import hashlib
import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .worker import Worker

logger = logging.getLogger(__name__)


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
        {"view": {"type": "string", "description": "sheet (default), iso, front, back, left, right, top."},
         "highlight_problems": {"type": "boolean", "description": "Mark colliding/floating parts."}}),
    _fn("explore", "Run a Python snippet with every bricklayer name imported and `build` = create_build() "
                   "(plus build.py's own names); prints and the value of a last expression are returned as "
                   "text. Use it to search parts, inspect connectors or try an idea.",
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


def _write_atomic(path: Path, text: str) -> None:
    from ldraw_data.fileio import atomic_write

    atomic_write(path, text)


_JSON_TYPES = {"string": str, "integer": int, "boolean": bool, "number": (int, float), "object": dict}


def _argument_problem(name: str, args: dict) -> str | None:
    """What is wrong with a tool call's arguments against its JSON schema (None when they fit)."""
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
            return f"{name}: {k} must be a {props[k]['type']}, got {type(v).__name__} {v!r:.40}."
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

    Attributes
    ----------
    tool_calls, validate_calls : int
        Calls executed so far.
    last_validate : dict or None
        The worker record of the last validate.
    """

    run_dir: Path
    worker: Worker
    tool_calls: int = 0
    validate_calls: int = 0
    renders: int = 0
    last_validate: dict | None = None
    _validated_sha: str | None = field(default=None, repr=False)
    summary: str = ""

    def __post_init__(self) -> None:
        self.run_dir = Path(self.run_dir).resolve()
        (self.run_dir / "work").mkdir(parents=True, exist_ok=True)
        if not self.build_path.exists():
            _write_atomic(self.build_path, "")

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

    def _write(self, text: str) -> None:
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
            except json.JSONDecodeError as exc:
                return ToolOutcome(f"Error: arguments of {name} are not valid JSON ({exc}); send a JSON object.", False)
        else:
            args = dict(arguments or {})
        if not isinstance(args, dict):
            return ToolOutcome(f"Error: arguments of {name} must be a JSON object.", False)
        fn = getattr(self, f"tool_{name}", None) if name in TOOL_NAMES else None
        if fn is None:
            return ToolOutcome(f"Error: unknown tool {name!r}; the tools are {', '.join(TOOL_NAMES)}.", False)
        problem = _argument_problem(name, args)
        if problem:
            return ToolOutcome(f"Error: {problem}", False)
        try:
            return fn(**args)
        except TypeError as exc:
            return ToolOutcome(f"Error: bad arguments for {name}: {exc}", False)

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
        self._write(content)
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
        self._write(src.replace(old_text, new_text, 1))
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
        self._write("".join(lines))
        return ToolOutcome(f"Inserted {len(text.splitlines())} line(s) before line {line}. Call validate to check it.")

    def _worker_args(self) -> dict[str, Any]:
        return {"source": self.source, "build_path": str(self.build_path), "cwd": str(self.run_dir / "work")}

    def validate(self, *, export: bool = False) -> tuple[dict, str]:
        """Run validation in the worker without counting it as a tool call.

        Parameters
        ----------
        export : bool
            Also write ``model.ldr`` when create_build() succeeds.

        Returns
        -------
        (dict, str)
            The worker record (``passed`` false when the build is empty) and the report text.
        """
        src = self.source
        args = self._worker_args()
        if export:
            args["export"] = str(self.ldr_path)
        res = self.worker.call("validate", **args)
        data = dict(res.data)
        fixed = data.get("fixed")
        if fixed and fixed.get("parts") == 0:
            data["passed"] = False
        note = None
        if res.limit == "memory" and res.ok:
            note = "(the worker was restarted after running out of memory)"
        data["sha"] = _sha(src)
        return data, format_validation(data, limit_note=note)

    def tool_validate(self) -> ToolOutcome:
        """validate: run build.py in the worker (fixed checks and run_tests); the compact report."""
        self.validate_calls += 1
        data, text = self.validate()
        self.last_validate = data
        self._validated_sha = data["sha"] if data.get("passed") else None
        return ToolOutcome(text, bool(data.get("passed")), report=data)

    def tool_render(self, view: str = "sheet", highlight_problems: bool = False) -> ToolOutcome:
        """render: a PNG of the build (default the six-view sheet), returned as an image."""
        self.renders += 1
        out = self.run_dir / "renders" / f"render_{self.renders:03d}_{view}.png"
        out.parent.mkdir(exist_ok=True)
        res = self.worker.call("render", **self._worker_args(), out=str(out), view=view,
                               highlight_problems=highlight_problems)
        text = res.data.get("text") or (res.data.get("error") or {}).get("text", "render failed")
        image = res.data.get("image") if res.data.get("passed") else None
        return ToolOutcome(text, bool(image), image=image)

    def tool_explore(self, code: str) -> ToolOutcome:
        """explore: run a snippet with bricklayer and ``build`` in scope; its printed output."""
        res = self.worker.call("explore", **self._worker_args(), code=code)
        if not res.ok or res.data.get("error"):
            return ToolOutcome(res.data["error"]["text"], False)
        out = res.data.get("output") or "(no output; print something or end with an expression)"
        return ToolOutcome(out.rstrip(), bool(res.data.get("passed")))

    def tool_finalize(self, summary: str = "") -> ToolOutcome:
        """finalize: accepted only when the last validate passed and build.py is unchanged since."""
        if self.last_validate is None:
            return ToolOutcome("Refused: call validate first; finalize is accepted only after a passing validate.",
                               False)
        if not self.last_validate.get("passed"):
            return ToolOutcome("Refused: the last validate failed; fix the reported problems and validate again.",
                               False)
        if self._validated_sha != _sha(self.source):
            return ToolOutcome("Refused: build.py changed since the last passing validate; validate again.", False)
        self.summary = summary
        return ToolOutcome("Accepted: the build is final.", True, finalized=True)
