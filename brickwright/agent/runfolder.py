"""The harness tools on a run folder, one call at a time: what ``brickwright tool`` and ``brickwright mcp`` run.

A coding agent (Claude Code, Codex, Cursor) calls the same tools the harness gives a model, through a shell
(``brickwright tool validate RUN``) or MCP (``brickwright mcp``). Each call is a :class:`~.tools.ToolBox` call,
so its text is exactly what the harness model reads; what the harness keeps in memory between calls (the last
validate and the sha of the build.py it passed, call counts, the render number) is kept in the run folder
instead, in ``.brickwright/state.json`` (written atomically), so finalize works across separate processes.

Files of ``RUN/.brickwright/`` (the sandbox cannot read or write them; it sees only ``RUN/work/``):

- ``state.json``: the state (:data:`STATE_FORMAT`); a convenience, never a verdict: the verdict on a build
  is the judge's (``brickwright validate RUN/model.ldr`` re-judges it).
- ``validated.ldr``: the LDraw text the judge passed in the last passing validate; an accepted ``finalize``
  copies it to ``RUN/model.ldr``, as the harness exports the final build.
- ``calls.jsonl``: one JSON object per call (time, tool, arguments, ok, result text).
- ``lock``: taken for the whole of a call, so two calls on one folder (a shell and an MCP server, or two
  parallel shell calls) run one after the other.
"""

from __future__ import annotations

__all__ = ["STATE_DIR", "STATE_FORMAT", "RunFolderError", "LazyJudge", "FolderToolBox", "init_run_folder",
           "check_run_folder",
           "open_run_folder", "run_tool", "harness_system_prompt", "run_status"]

import contextlib
import json
import os
import shutil
import time
from pathlib import Path
from typing import Any, Iterator

from .errors import BrickWrightError, BrickWrightValueError, RunFolderExistsError
from .prompt import start_files
from .tools import TOOL_NAMES, ToolBox, ToolOutcome, _write_atomic

#: Folder inside a run folder holding the state of ``brickwright tool`` / ``brickwright mcp`` calls.
STATE_DIR = ".brickwright"
#: Version of ``state.json``; a file of another version is refused with a message saying to delete it.
STATE_FORMAT = 1
#: Files whose presence marks a folder as holding a run (``init`` refuses them without ``force``).
_RUN_MARKERS = ("build.py", "transcript.jsonl", "result.json", "model.ldr", STATE_DIR)


class RunFolderError(BrickWrightError):
    """A run folder cannot be used as asked (missing, no build.py, unreadable state); the message says what
    to do. The CLI exits 2 on it (a usage error, not a tool's answer)."""


class LazyJudge:
    """A :class:`~.judge.Judge` started on the first verdict, so calls that judge nothing start no process.

    Parameters
    ----------
    **kwargs
        Passed to :class:`~.judge.Judge`.
    """

    def __init__(self, **kwargs: Any):
        self._kwargs = kwargs
        self._judge = None

    def judge(self, text: str, *, source: str = "build.py", **kwargs: Any) -> dict[str, Any]:
        """The verdict on LDraw ``text`` (:meth:`.judge.Judge.judge`, with its keyword arguments)."""
        if self._judge is None:
            from .judge import Judge

            self._judge = Judge(**self._kwargs)
        return self._judge.judge(text, source=source, **kwargs)

    def close(self) -> None:
        """Stop the judge process if one was started."""
        if self._judge is not None:
            self._judge.close()
            self._judge = None


class FolderToolBox(ToolBox):
    """A :class:`~.tools.ToolBox` whose state between calls lives in ``RUN/.brickwright/state.json``.

    Every :meth:`run` loads nothing and changes nothing of the tools' behaviour: the state is read once when
    the box is made and written (atomically) after each call. On top of the harness: a passing validate keeps
    the judged LDraw text in ``.brickwright/validated.ldr``; an accepted finalize writes it to ``model.ldr``.

    Attributes
    ----------
    calls : dict of str to int
        Calls per tool name, over the folder's life.
    first_pass_validate : int or None
        Number of the validate call (1-based) that first passed.
    finalized : bool
        A finalize was accepted (and not followed by an edit).
    """

    def __post_init__(self) -> None:
        super().__post_init__()
        self.state_dir = self.run_dir / STATE_DIR
        self.calls: dict[str, int] = {}
        self.first_pass_validate: int | None = None
        self.finalized = False
        self._load_state()

    @property
    def state_path(self) -> Path:
        """``RUN/.brickwright/state.json``."""
        return self.state_dir / "state.json"

    @property
    def validated_ldr_path(self) -> Path:
        """``RUN/.brickwright/validated.ldr``: the text the last passing validate judged."""
        return self.state_dir / "validated.ldr"

    def _load_state(self) -> None:
        p = self.state_path
        if not p.exists():
            return
        try:
            st = json.loads(p.read_text(encoding="utf-8"))
            if not isinstance(st, dict) or st.get("format") != STATE_FORMAT:
                raise BrickWrightValueError(f"format {st.get('format') if isinstance(st, dict) else '?'}, "
                                 f"expected {STATE_FORMAT}")
            self.tool_calls = int(st["tool_calls"])
            self.validate_calls = int(st["validate_calls"])
            self.renders = int(st["renders"])
            self.last_validate = st["last_validate"]
            self._validated_sha = st["validated_sha"]
            files = st.get("validated_files")
            self._validated_files = ({str(k): str(v) for k, v in files.items()} if isinstance(files, dict)
                                     else None)
            self.summary = str(st.get("summary") or "")
            self.calls = {str(k): int(v) for k, v in dict(st.get("calls") or {}).items()}
            self.first_pass_validate = st.get("first_pass_validate")
            self.finalized = bool(st.get("finalized"))
        except (ValueError, KeyError, TypeError, UnicodeDecodeError) as exc:
            raise RunFolderError(f"{p}: not a state file of `brickwright tool` ({exc}); delete it to start the "
                                 "folder's state over (the next validate writes a new one)") from None

    def state(self) -> dict[str, Any]:
        """The state as written to ``state.json`` (JSON-ready)."""
        return {"format": STATE_FORMAT, "tool_calls": self.tool_calls, "validate_calls": self.validate_calls,
                "renders": self.renders, "calls": self.calls, "first_pass_validate": self.first_pass_validate,
                "last_validate": self.last_validate, "validated_sha": self._validated_sha,
                "validated_files": self._validated_files,
                "finalized": self.finalized, "summary": self.summary}

    def _save_state(self) -> None:
        _write_atomic(self.state_path, json.dumps(self.state(), indent=1, default=str))

    def run(self, name: str, arguments: str | dict) -> ToolOutcome:
        """Execute one tool call as :meth:`.tools.ToolBox.run` does, then record it in the run folder.

        Returns
        -------
        ToolOutcome
            Exactly the harness's outcome.
        """
        out = super().run(name, arguments)
        self.calls[name] = self.calls.get(name, 0) + 1
        if name == "validate" and self.last_validate is not None:
            if out.ok and self.last_ldraw is not None:
                _write_atomic(self.validated_ldr_path, self.last_ldraw)
                if self.first_pass_validate is None:
                    self.first_pass_validate = self.validate_calls
            else:
                self.validated_ldr_path.unlink(missing_ok=True)
        if name in ("write_build", "edit_build", "insert_build") and out.ok:
            self.finalized = False
        if out.finalized:
            self.finalized = True
            if self.validated_ldr_path.is_file():
                _write_atomic(self.ldr_path, self.validated_ldr_path.read_text(encoding="utf-8"))
        self._save_state()
        rec = {"t": time.strftime("%Y-%m-%dT%H:%M:%S"), "tool": name, "arguments": arguments, "ok": out.ok,
               "text": out.text, "image": out.image}
        with open(self.state_dir / "calls.jsonl", "a", encoding="utf-8") as fh:
            fh.write(json.dumps(rec, default=str) + "\n")
        return out


def init_run_folder(run_dir: str | Path, *, from_path: str | Path | None = None, force: bool = False) -> Path:
    """Create a run folder as :func:`~.run.generate` starts one: ``build.py`` holding the harness's template.

    Parameters
    ----------
    run_dir : path
        The folder (created when missing).
    from_path : path, optional
        Start from a ``build.py`` (copied) or an ``.ldr``/``.mpd`` model (copied as ``input.ldr``/``.mpd``, read
        by the starting build.py), as ``generate --from`` does.
    force : bool
        Start over a folder that already holds a run (its build.py, model.ldr, result.json, transcript.jsonl
        and tool state are replaced or removed; nothing else is touched).

    Returns
    -------
    pathlib.Path
        The resolved run folder.

    Raises
    ------
    RunFolderExistsError
        ``run_dir`` is a file, or holds a run and ``force`` is false (nothing is written).
    FileNotFoundError, ValueError
        A missing or unsupported ``from_path``.
    """
    d = Path(run_dir)
    if d.exists() and not d.is_dir():
        raise RunFolderExistsError(f"{d} is a file; give a folder for the run")
    held = [n for n in _RUN_MARKERS if (d / n).exists()]
    if held and not force:
        raise RunFolderExistsError(f"{d} already holds a run ({', '.join(held)}); choose another folder or pass "
                                   "--force to start it over")
    start_src, files = start_files(from_path)
    d.mkdir(parents=True, exist_ok=True)
    if not force:  # claimed: of two inits started at once into one folder, the second refuses (break-it s26 F9)
        try:
            os.close(os.open(d / "build.py", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
        except FileExistsError:
            raise RunFolderExistsError(f"{d} already holds a run (build.py); choose another folder or pass "
                                       "--force to start it over") from None
    for stale in ("model.ldr", "result.json", "transcript.jsonl"):
        (d / stale).unlink(missing_ok=True)
    shutil.rmtree(d / STATE_DIR, ignore_errors=True)
    for name, text in files.items():
        _write_atomic(d / name, text)
    _write_atomic(d / "build.py", start_src)
    (d / "work").mkdir(exist_ok=True)
    return d.resolve()


def open_run_folder(run_dir: str | Path, worker: Any, judge: Any) -> FolderToolBox:
    """The :class:`FolderToolBox` of an existing run folder (its state loaded).

    Parameters
    ----------
    run_dir : path
        A folder holding ``build.py`` (made by :func:`init_run_folder`, ``generate`` or by hand).
    worker : Worker
        Runs build.py (started only by validate, render and explore).
    judge : Judge or LazyJudge
        Computes verdicts.

    Raises
    ------
    RunFolderError
        No such folder, no build.py in it, or an unreadable ``state.json``.
    """
    d = Path(run_dir)
    _check_run_folder(d)
    return FolderToolBox(d, worker, judge=judge)


def check_run_folder(d: str | Path) -> None:
    """Check that ``d`` is a run folder (a folder holding ``build.py``, as ``brickwright tool init`` makes).

    Raises
    ------
    RunFolderError
        No such folder, or no build.py in it; the message names ``brickwright tool init`` with the folder.
    """
    d = Path(d)
    if not d.is_dir():
        raise RunFolderError(f"{d}: no such run folder; create it with `brickwright tool init {d}`")
    if not (d / "build.py").is_file():
        raise RunFolderError(f"{d} holds no build.py; create the run with `brickwright tool init {d}` (it writes "
                             "the harness's starting build.py)")


_check_run_folder = check_run_folder  # the old private name (mcp_server)


@contextlib.contextmanager
def _folder_lock(run_dir: Path) -> Iterator[None]:
    """Hold ``RUN/.brickwright/lock`` (an exclusive ``flock``) for the block; no lock where fcntl is missing."""
    state = run_dir / STATE_DIR
    state.mkdir(exist_ok=True)
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    with open(state / "lock", "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def run_tool(run_dir: str | Path, name: str, arguments: str | dict, *, worker: Any, judge: Any) -> ToolOutcome:
    """Run one harness tool on a run folder, with the folder's state, under the folder's lock.

    Parameters
    ----------
    run_dir : path
        The run folder (see :func:`open_run_folder`).
    name : str
        One of :data:`~.tools.TOOL_NAMES`.
    arguments : str or dict
        The tool's arguments (a JSON object, as the harness model sends them).
    worker, judge
        As for :func:`open_run_folder`; neither is stopped here.

    Returns
    -------
    ToolOutcome
        The harness's outcome: ``text`` is what the harness model reads.

    Raises
    ------
    RunFolderError
        See :func:`open_run_folder`.
    SandboxUnavailableError
        validate, render or explore with a sandboxed worker where no sandbox can be set up.
    """
    d = Path(run_dir)
    if name not in TOOL_NAMES:
        raise RunFolderError(f"unknown tool {name!r}; the tools are {', '.join(TOOL_NAMES)}")
    _check_run_folder(d)  # before the lock makes .brickwright/ in it
    with _folder_lock(d.resolve()):
        box = open_run_folder(d, worker, judge)
        try:
            return box.run(name, arguments)
        finally:
            box.close()


def run_status(run_dir: str | Path) -> dict[str, Any]:
    """The state of a run folder's tool calls, for people and for measuring an agent's run.

    Returns
    -------
    dict
        ``tool_calls``, ``validate_calls``, ``calls`` (per tool), ``first_pass_validate`` (the validate call
        that first passed, or None), ``last_validate_passed`` (None before any validate), ``build_changed``
        (build.py differs from what the last passing validate saw), ``finalized``, ``model_ldr`` (path or None).
    """
    box = open_run_folder(run_dir, worker=None, judge=LazyJudge())
    st = box.state()
    last = st["last_validate"]
    return {"run_dir": str(box.run_dir), "tool_calls": st["tool_calls"], "validate_calls": st["validate_calls"],
            "calls": st["calls"], "first_pass_validate": st["first_pass_validate"],
            "last_validate_passed": None if last is None else bool(last.get("passed")),
            "build_changed": bool(box.changed_since_validate()) if st["validated_sha"] else None,
            "finalized": st["finalized"],
            "model_ldr": str(box.ldr_path) if st["finalized"] and box.ldr_path.is_file() else None}


def harness_system_prompt(worker: Any, cwd: str | Path, *, time_limit: float = 60.0) -> str:
    """The system prompt the harness gives a model, built as :func:`~.run.generate` builds it.

    The API reference is asked from the sandboxed worker (``api_reference``), as the harness does.

    Parameters
    ----------
    worker : Worker
    cwd : path
        The worker's writable folder for the request.
    time_limit : float
        Seconds allowed (the cold import of bricklayer is not charged), s.
    """
    from .prompt import system_prompt

    ref = worker.call("api_reference", cwd=str(cwd), time_limit=time_limit)
    return system_prompt(ref.data.get("text") or "(bricklayer API reference unavailable)")
