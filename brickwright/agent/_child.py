"""The worker process that runs model-written ``build.py`` code (started by :class:`~.worker.Worker`).

Protocol: one JSON object per line. The child writes ``{"ready": true, ...}`` once bricklayer is imported, then
answers each request line ``{"id": n, "op": ..., ...}`` with one line ``{"id": n, "ok": bool, ...}``. File
descriptor 1 is pointed at ``/dev/null`` after start-up so that nothing user code writes, even from C, can
corrupt the protocol; Python-level ``print`` output is captured per request and truncated.

Limits set here: address space (``RLIMIT_AS``, from ``BRICKWRIGHT_WORKER_MEMORY`` bytes). The wall-clock limit is
the parent's: it kills this process group when a request takes too long.
"""

from __future__ import annotations

__all__ = ["main", "run_request", "serve_forked"]

import ast
import builtins
import difflib
import io
import json
import linecache
import os
import re
import sys
import traceback
from pathlib import Path
from typing import Any

#: Fallback connector type names (bricklayer-api.md, "Connector type names") when bricklayer offers no list.
CONTRACT_CONNECTOR_TYPES = (
    "stud", "open_stud", "antistud", "tube", "post", "axle", "axle_hole", "axle_bore", "pin", "pin_hole",
    "bar", "clip", "towball", "towball_socket", "neck_bracket", "shoulder_peg", "wrist_peg",
    "turntable_pin", "turntable_socket",
)


class CappedWriter(io.TextIOBase):
    """A text sink that keeps the first ``limit`` characters and counts the rest."""

    def __init__(self, limit: int):
        self.limit = int(limit)
        self.parts: list[str] = []
        self.size = 0
        self.dropped = 0

    def writable(self) -> bool:
        return True

    def write(self, s: str) -> int:
        n = len(s)
        room = self.limit - self.size
        if room > 0:
            self.parts.append(s[:room])
            self.size += min(n, room)
        self.dropped += max(0, n - max(room, 0))
        return n

    def text(self) -> str:
        out = "".join(self.parts)
        if self.dropped:
            out += f"\n[... output truncated: {self.dropped} more characters not shown]"
        return out


#: Largest reply a request may send back, bytes (the judge reads at most 100 MB of LDraw text).
MAX_REPLY_BYTES = 128 * 1024**2


class _State:
    bricklayer: Any = None
    import_error: str | None = None
    output_limit: int = 20_000
    max_tasks: int = 0
    max_file_bytes: int = 0
    protocol_fds: tuple = ()


# ------------------------------------------------------------------------------------------- did you mean
def _bricklayer_names() -> list[str]:
    bl = _State.bricklayer
    if bl is None:
        return []
    names = getattr(bl, "__all__", None) or [n for n in dir(bl) if not n.startswith("_")]
    return [n for n in names if not isinstance(getattr(bl, n, None), type(sys))]  # no submodules


def _connector_type_names() -> list[str]:
    bl = _State.bricklayer
    for attr in ("CONNECTOR_TYPES", "connector_type_names", "ConnectorType"):
        obj = getattr(bl, attr, None) if bl is not None else None
        if obj is None:
            continue
        try:
            if callable(obj) and not isinstance(obj, type):
                obj = obj()
            names = [getattr(m, "value", m) for m in obj]
            names = [n for n in names if isinstance(n, str)]
            if names:
                return names
        except Exception:  # noqa: BLE001 - fall back to the contract list
            continue
    return list(CONTRACT_CONNECTOR_TYPES)


def _close(name: str, candidates: list[str], n: int = 3) -> list[str]:
    lower = {c.lower(): c for c in candidates}
    hits = difflib.get_close_matches(name.lower(), list(lower), n=n, cutoff=0.6)
    return [lower[h] for h in hits]


def did_you_mean(exc: BaseException, ns: dict[str, Any] | None) -> str:
    """A hint for an exception raised by user code: close names, or where a name lives.

    Parameters
    ----------
    exc : BaseException
        The exception.
    ns : dict or None
        The namespace ``build.py`` ran in (its names are candidates for NameError).

    Returns
    -------
    str
        ``"did you mean 'brick'?"`` style text, or ``""`` when there is no likely answer.
    """
    bl_names = _bricklayer_names()
    if isinstance(exc, NameError) and getattr(exc, "name", None):
        name = exc.name
        if name in bl_names:
            return f"{name!r} is in bricklayer: add `from bricklayer import {name}`"
        pool = list((ns or {}).keys()) + dir(builtins) + bl_names
        hits = _close(name, pool)
        if hits:
            extra = [h for h in hits if h in bl_names and h not in (ns or {})]
            hint = "did you mean " + " or ".join(repr(h) for h in hits) + "?"
            if extra:
                hint += f" ({', '.join(extra)} must be imported from bricklayer)"
            return hint
        return ""
    if isinstance(exc, AttributeError) and getattr(exc, "name", None):
        obj = getattr(exc, "obj", None)
        pool = [n for n in dir(obj) if not n.startswith("_")] if obj is not None else []
        hits = _close(exc.name, pool)
        if hits:
            return "did you mean " + " or ".join(repr(h) for h in hits) + "?"
        if pool and len(pool) <= 60:
            return f"available: {', '.join(pool)}"
        return ""
    if isinstance(exc, ImportError):
        m = re.search(r"cannot import name '([^']+)' from '([^']+)'", str(exc))
        if m:
            name, mod = m.groups()
            pool = [n for n in dir(sys.modules.get(mod)) if not n.startswith("_")] if mod in sys.modules else []
            hits = _close(name, pool)
            if hits:
                return "did you mean " + " or ".join(repr(h) for h in hits) + "?"
        return ""
    msg = str(exc)
    if "did you mean" in msg.lower():
        return ""  # the library already suggests (e.g. PartNotFoundError)
    if "connector" in msg.lower():
        quoted = re.findall(r"'([A-Za-z_][\w/]*)'", msg)
        names = _connector_type_names()
        for q in quoted:
            if q in names:
                continue
            hits = _close(q, names)
            if hits:
                return "did you mean connector type " + " or ".join(repr(h) for h in hits) + "?"
        return ""
    return ""


def format_exception(exc: BaseException, build_path: str, ns: dict[str, Any] | None, where: str) -> dict:
    """Describe an exception from user code for the model.

    Returns
    -------
    dict
        ``type``, ``message``, ``line`` (1-based line in build.py or None), ``code`` (that line), ``hint``,
        ``text`` (the compact report: location, code line, message, hint, short trace).
    """
    fname = os.path.basename(build_path) if build_path else "build.py"
    etype = type(exc).__name__
    message = str(exc)
    if isinstance(exc, SyntaxError):
        line, col = exc.lineno, exc.offset
        code = (exc.text or "").rstrip("\n")
        text = f"SyntaxError in {fname} line {line}" + (f", column {col}" if col else "") + f": {exc.msg}"
        if code:
            text += f"\n  {line:>4} | {code}"
            if col:
                text += "\n       | " + " " * (col - 1) + "^"
        return {"type": etype, "message": exc.msg, "line": line, "code": code, "hint": "", "text": text}
    frames = traceback.extract_tb(exc.__traceback__)
    user = [f for f in frames if f.filename == build_path]
    line = user[-1].lineno if user else None
    code = (user[-1].line or "").strip() if user else ""
    hint = did_you_mean(exc, ns)
    head = f"{etype} in {where}" + (f" at {fname} line {line}" if line else "") + ":"
    parts = [head]
    if code:
        parts.append(f"  {line:>4} | {code}")
    parts.append(f"{etype}: {message}" if message else etype)
    if hint:
        parts.append(f"Hint: {hint}")
    # a short trace: the user's frames plus the library frame that raised
    shown = [f for f in frames if f.filename == build_path or f is frames[-1]]
    trace = " -> ".join(
        (f"{fname}:{f.lineno} in {f.name}" if f.filename == build_path
         else f"{_short_path(f.filename)}:{f.lineno} in {f.name}") for f in shown)
    if trace:
        parts.append(f"Trace: {trace}")
    return {"type": etype, "message": message, "line": line, "code": code, "hint": hint, "text": "\n".join(parts)}


def _short_path(path: str) -> str:
    p = Path(path)
    for anchor in ("bricklayer", "brickwright", "ldraw_data"):
        if anchor in p.parts:
            return "/".join(p.parts[p.parts.index(anchor):])
    return p.name


# ------------------------------------------------------------------------------------------- running code
def load_build(source: str, build_path: str) -> dict[str, Any]:
    """Compile and execute ``build.py`` source in a fresh namespace (``__name__ == "build"``)."""
    code = compile(source, build_path, "exec")
    folder = os.path.dirname(build_path)
    if folder and folder not in sys.path:  # modules beside build.py import (read-only in the sandbox)
        sys.path.insert(0, folder)
    linecache.cache[build_path] = (len(source), None, source.splitlines(True), build_path)
    ns: dict[str, Any] = {"__name__": "build", "__file__": build_path, "__builtins__": builtins}
    exec(code, ns)  # noqa: S102 - running the model's code is the point; it is sandboxed by process limits
    return ns


def _call_run_tests(ns: dict[str, Any], build: Any) -> Any:
    import inspect

    fn = ns["run_tests"]
    try:
        params = [p for p in inspect.signature(fn).parameters.values()
                  if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    return fn(build) if params else fn()


#: Most placements whose build.py line :func:`placement_lines` reports (a bigger build cites the rest by index).
MAX_CITED_LINES = 200_000


def _track_build_lines(build_path: str) -> dict[int, int]:
    """From now on in this (throw-away request) process, record for each new placement the line of
    ``build_path`` whose code made it: the innermost frame of that file on the stack when the
    :class:`bricklayer.build.Placement` was created, also as its ``origin`` (``("build.py", line)``, which
    :meth:`bricklayer.LegoBuild.citation` cites, so run_tests' messages name lines too; ``to_ldraw`` does not
    write it). Returns the record, ``id(placement) -> line``; it grows
    as placements are made (they are kept alive by the build, and the record is read before the build is
    dropped)."""
    from bricklayer.build import Placement

    lines: dict[int, int] = {}
    keep: list = []  # ids stay unique only while the placements live
    init = Placement.__init__

    def tracked(self, *args, **kwargs):
        init(self, *args, **kwargs)
        f = sys._getframe(1)
        while f is not None and f.f_code.co_filename != build_path:
            f = f.f_back
        if f is not None and len(lines) < MAX_CITED_LINES:
            lines[id(self)] = f.f_lineno
            keep.append(self)
            if self.origin is None:  # run_tests' own messages cite it as the judge's do (LegoBuild.citation)
                self.origin = (fname, f.f_lineno)

    fname = os.path.basename(build_path) or "build.py"
    Placement.__init__ = tracked
    return lines


def placement_lines(build: Any, lines: dict[int, int]) -> dict[str, int]:
    """The build.py line of each placement of ``build`` that :func:`_track_build_lines` recorded, keyed by its
    index path (``"3"``: the 4th top-level placement; ``"1/0"``: the first placement of the sub-build placed
    second), each sub-build walked once (where it is first placed), as :func:`bricklayer.to_ldraw` writes it
    once as a submodel. The judge puts these lines on the placements it reads back from the LDraw text, so
    problems cite ``build.py:12`` instead of ``#3`` (break-it report s25 F12)."""
    from bricklayer import LegoBuild

    out: dict[str, int] = {}
    seen: set[int] = set()
    stack = [(build, "")]
    while stack and len(out) < MAX_CITED_LINES:
        b, prefix = stack.pop()
        if id(b) in seen:
            continue
        seen.add(id(b))
        for i, p in enumerate(b.placements):
            key = f"{prefix}{i}"
            if id(p) in lines:
                out[key] = lines[id(p)]
            if isinstance(p.content, LegoBuild):
                stack.append((p.content, key + "/"))
    return out


def op_validate(req: dict) -> dict:
    from brickwright.testing import TestReport

    build_path = req["build_path"]
    fname = os.path.basename(build_path) or "build.py"
    out: dict[str, Any] = {"stage": "compile", "passed": False}
    ns = None
    try:
        lines = _track_build_lines(build_path)
        ns = load_build(req["source"], build_path)
        out["stage"] = "create_build"
        if "create_build" not in ns:
            out["error"] = {"type": "ContractError", "line": None, "hint": "",
                            "text": f"{fname} defines no create_build(); define `def create_build() -> LegoBuild`."}
            return out
        build = ns["create_build"]()
        if not hasattr(type(build), "floating_placements"):
            out["error"] = {"type": "ContractError", "line": None, "hint": "",
                            "text": f"create_build() returned {type(build).__name__}, not a LegoBuild; "
                                    "end it with `return build`."}
            return out
        out["lines"] = placement_lines(build, lines)
        # The build leaves this process as data: LDraw text, judged by the harness in a process that runs no
        # model code (brickwright.agent.judge). Written before run_tests, so a failing run_tests still
        # leaves the model.
        out["stage"] = "export"
        out["ldraw"] = _State.bricklayer.to_ldraw(build)
        out["stage"] = "run_tests"
        if "run_tests" in ns:
            report = TestReport.from_any(_call_run_tests(ns, build))
            out["tests"] = report.to_dict()
        else:
            out["tests"] = None
        out["stage"] = "done"
    except MemoryError:
        out["error"] = {"type": "MemoryError", "line": None, "hint": "",
                        "text": f"MemoryError: {fname} used more memory than the worker limit; "
                                "look for huge lists or loops that never stop adding parts."}
        out["memory_limit"] = True
    except BaseException as exc:  # noqa: BLE001 - everything the user code raises is reported
        if isinstance(exc, (KeyboardInterrupt,)):
            raise
        where = {"compile": fname, "create_build": "create_build()", "run_tests": "run_tests()",
                 "checks": "the validator", "export": "to_ldraw()"}.get(out["stage"], out["stage"])
        out["error"] = format_exception(exc, build_path, ns, where)
        out["error"]["stage"] = out["stage"]
        if isinstance(exc, SystemExit):
            out["error"]["text"] = f"{fname} called exit(); remove it (" + out["error"]["text"] + ")"
    return out


def op_explore(req: dict) -> dict:
    build_path = req["build_path"]
    ns: dict[str, Any] = {}
    notes = []
    saved = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = CappedWriter(0)  # build.py's own prints would crowd out the snippet's output
    try:
        ns = load_build(req["source"], build_path)
        if "create_build" in ns:
            build = ns["create_build"]()
            if build is None:
                notes.append("(create_build() returned None)")
        else:
            build = None
            notes.append("(build.py defines no create_build(); `build` is None)")
    except MemoryError:
        raise
    except BaseException as exc:  # noqa: BLE001
        build = None
        notes.append("(build.py failed, `build` is None: " + format_exception(exc, build_path, ns, "build.py")["text"]
                     + ")")
    finally:
        sys.stdout, sys.stderr = saved
    scope: dict[str, Any] = {"__name__": "__explore__", "__builtins__": builtins}
    bl = _State.bricklayer
    if bl is not None:
        scope["bricklayer"] = bl
        for name in getattr(bl, "__all__", None) or [n for n in dir(bl) if not n.startswith("_")]:
            if hasattr(bl, name):
                scope[name] = getattr(bl, name)
    scope.update({k: v for k, v in ns.items() if not k.startswith("__")})
    scope["build"] = build
    code = req["code"]
    for n in notes:
        print(n)
    try:
        tree = ast.parse(code, "<explore>", "exec")
        last = tree.body[-1] if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        if last is not None:
            tree.body = tree.body[:-1]
        exec(compile(tree, "<explore>", "exec"), scope)  # noqa: S102
        if last is not None:
            value = eval(compile(ast.Expression(last.value), "<explore>", "eval"), scope)  # noqa: S307
            if value is not None:
                print(repr(value) if not isinstance(value, str) else value)
        return {"passed": True}
    except MemoryError:
        raise
    except BaseException as exc:  # noqa: BLE001
        frames = traceback.extract_tb(exc.__traceback__)
        line = next((f.lineno for f in reversed(frames) if f.filename == "<explore>"), None)
        if isinstance(exc, SyntaxError):
            line = exc.lineno
        hint = did_you_mean(exc, scope)
        if build is None and notes and "NoneType" in str(exc):
            # the snippet used `build`, which build.py did not give: point at the note above, not at the snippet
            hint = ("`build` is None in this snippet: " + re.split(r"[,;:]", notes[0].strip("()"))[0]
                    + " (see above); fix build.py, or explore without `build`")
        print(f"{type(exc).__name__}" + (f" at snippet line {line}" if line else "") + f": {exc}"
              + (f"\nHint: {hint}" if hint else ""))
        return {"passed": False}


def op_render(req: dict) -> dict:
    """Render the current build from ``req["view"]`` (default: the six-view sheet).

    The PNG goes back as data (``png_base64``); the harness checks it and writes it into the run folder, which
    this process cannot write.
    """
    import base64
    import tempfile

    ns: dict[str, Any] = {}
    try:
        from bricklayer.render import RenderBackendError, save_render
    except ImportError as exc:
        return {"passed": False, "text": f"rendering not available ({exc}); use validate and explore instead"}
    try:
        ns = load_build(req["source"], req["build_path"])
        if "create_build" not in ns:
            return {"passed": False, "text": "build.py defines no create_build(); nothing to render"}
        build = ns["create_build"]()
        view = req.get("view") or "sheet"
        with tempfile.TemporaryDirectory(prefix="render-") as tmp:
            path = save_render(build, Path(tmp) / "render.png", view=view,
                               size=(1200, 800) if view == "sheet" else (800, 600),
                               highlight_problems=bool(req.get("highlight_problems")), pose=req.get("pose") or None)
            data = Path(path).read_bytes()
        return {"passed": True, "png_base64": base64.b64encode(data).decode("ascii"), "text": f"rendered {view} view"}
    except RenderBackendError as exc:
        return {"passed": False, "text": f"rendering not available: {exc}"}
    except MemoryError:
        raise
    except BaseException as exc:  # noqa: BLE001
        return {"passed": False, "text": format_exception(exc, req["build_path"], ns, "render")["text"]}


def op_api_reference(req: dict) -> dict:
    bl = _State.bricklayer
    if bl is None:
        return {"passed": False, "text": f"bricklayer not importable: {_State.import_error}"}
    fn = getattr(bl, "api_reference", None)
    if fn is None:
        names = ", ".join(_bricklayer_names())
        return {"passed": False, "text": f"(bricklayer.api_reference() not available; public names: {names})"}
    return {"passed": True, "text": fn()}


OPS = {"validate": op_validate, "explore": op_explore, "render": op_render, "api_reference": op_api_reference,
       "ping": lambda req: {"passed": True}}


def warm_up() -> None:
    """Load the part library, a mesh and the validator once, so the first validate is as fast as the rest.

    Done before the ready line, so it is charged to start-up, not to the first request's time limit.
    """
    bl = _State.bricklayer
    try:
        b = bl.LegoBuild()
        b.add(bl.Element("3001", bl.Color.RED), (0, 0, 0))
        b.add(bl.Element("3001", bl.Color.RED), (0, 0, 3))
        list(b.colliding_placements), list(b.floating_placements), b.num_connected_components
        bl.to_ldraw(b)
    except Exception:  # noqa: BLE001 - warm-up is an optimisation; validate reports real problems
        pass


def process_state(pid: int) -> str | None:
    """The one-letter state of process ``pid`` from ``/proc/<pid>/stat`` (field 3, after the name in
    parentheses, which may itself hold ``)``; proc(5)): ``R`` running, ``S`` sleeping, ``T`` stopped by a
    signal (SIGSTOP, SIGTSTP), ``t`` stopped by a tracer, ``Z`` zombie; None when it cannot be read."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
        return stat[stat.rindex(b")") + 2:][:1].decode("ascii") or None
    except (OSError, ValueError, UnicodeDecodeError):
        return None


def run_request(req: dict) -> dict:
    """Run one request in this process: the op's reply plus ``output`` (captured, truncated ``print`` text)."""
    cap = CappedWriter(_State.output_limit)
    sys.stdout = sys.stderr = cap
    resp: dict[str, Any]
    try:
        if req.get("cwd"):
            os.makedirs(req["cwd"], exist_ok=True)
            os.chdir(req["cwd"])
        resp = OPS[req["op"]](req)
    except MemoryError:
        resp = {"passed": False, "memory_limit": True,
                "error": {"type": "MemoryError", "line": None, "hint": "",
                          "text": "MemoryError: the code used more memory than the worker limit"}}
    except BaseException as exc:  # noqa: BLE001 - the protocol must always answer
        resp = {"passed": False, "error": {"type": type(exc).__name__, "line": None, "hint": "",
                                           "text": f"worker error: {type(exc).__name__}: {exc}"}}
    finally:
        sys.stdout = sys.stderr = CappedWriter(0)
    resp["output"] = cap.text()
    return resp


def _kill_strays(child: int, sandboxed: bool) -> None:
    """Kill every process the request started, however it detached (double fork, setsid).

    In the sandbox this process is PID 1 of a private PID namespace (bubblewrap ``--as-pid-1``), so
    ``kill(-1, SIGKILL)`` reaches exactly the processes model code started, orphans included: they are
    re-parented to this process, which reaps them (kill(2), pid_namespaces(7)). Outside a sandbox only
    the request's process group can be killed; a process that left it with ``setsid`` survives
    (docs/agent.md, "Threat model").
    """
    import signal

    if not sandboxed:
        try:
            os.killpg(child, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        return
    me = os.getpid()
    for _ in range(1000):
        try:
            os.kill(-1, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            while os.waitpid(-1, os.WNOHANG)[0] > 0:
                pass
        except ChildProcessError:
            pass
        others = [int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) != me]
        if not others:
            return


def _die_with(parent: int) -> None:
    """In a new process (a forked request, or the unsandboxed worker child before exec): be SIGKILLed when
    process ``parent`` dies (``prctl(PR_SET_PDEATHSIG)``, what bubblewrap's ``--die-with-parent`` does), so
    model code that never returns cannot outlive a worker killed from outside (without the sandbox there is
    no PID namespace to end it); exit at once if the parent is already gone. No-op where ``prctl`` is missing."""
    import ctypes
    import signal

    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG = 1
    except (OSError, AttributeError):  # not Linux
        return
    if os.getppid() != parent:
        os._exit(70)


def serve_forked(req: dict, sandboxed: bool) -> dict:
    """Run one request in a fork of this warm process, under its time limit; kill what it started after.

    The fork starts from the warm state (bricklayer imported, meshes loaded) and is thrown away, so nothing
    model code changes (a patched module, a stray thread) reaches the next request. Its reply comes back
    through a private pipe; the protocol pipes to the harness are closed in the fork.

    Returns
    -------
    dict
        The op's reply; on a time limit ``time_limit: true``, on a crash ``crash`` (exit status text).
    """
    import resource
    import select
    import time

    limit = float(req.get("time_limit") or 0) or None
    oom_kills = oom_kill_count()
    r, w = os.pipe()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:  # the request process
        try:
            _die_with(parent)
            os.close(r)
            for fd in _State.protocol_fds:
                os.close(fd)
            os.setpgid(0, 0)
            if sandboxed and _State.max_tasks:
                resource.setrlimit(resource.RLIMIT_NPROC, (_State.max_tasks, _State.max_tasks))
            if _State.max_file_bytes:
                resource.setrlimit(resource.RLIMIT_FSIZE, (_State.max_file_bytes, _State.max_file_bytes))
            resp = run_request(req)
            data = json.dumps(resp, default=str).encode()
            view = memoryview(data)
            while view:
                view = view[os.write(w, view):]
            os._exit(0)
        finally:
            os._exit(70)
    os.close(w)
    chunks: list[bytes] = []
    size = 0
    too_big = False
    deadline = None if limit is None else time.monotonic() + limit
    pidfd = os.pidfd_open(pid)
    status = None
    usage = None
    timed_out = False
    stopped = False
    try:
        open_fds = [r, pidfd]
        while status is None:
            timeout = None if deadline is None else deadline - time.monotonic()
            if timeout is not None and timeout <= 0:
                timed_out = True
                stopped = process_state(pid) in ("T", "t")  # read before the kill: a SIGSTOP, never resumed
                break
            ready, _, _ = select.select(open_fds, [], [], timeout)
            if r in ready:
                chunk = os.read(r, 1 << 20)
                if chunk:
                    chunks.append(chunk)
                    size += len(chunk)
                    if size > MAX_REPLY_BYTES:
                        too_big = True
                        break
                else:
                    open_fds = [pidfd]
            if pidfd in ready:
                _pid, status, usage = os.wait4(pid, 0)
        if status is not None and not too_big:  # the reply was written before the exit: take what is in the pipe
            os.set_blocking(r, False)
            try:
                while size <= MAX_REPLY_BYTES and (chunk := os.read(r, 1 << 20)):
                    chunks.append(chunk)
                    size += len(chunk)
            except BlockingIOError:
                pass
            too_big = size > MAX_REPLY_BYTES
    finally:
        _kill_strays(pid, sandboxed)
        if status is None:
            try:
                _pid, status, usage = os.wait4(pid, 0)
            except ChildProcessError:
                status = 0
        os.close(r)
        os.close(pidfd)
    if timed_out:
        return {"passed": False, "time_limit": True, "stopped": stopped, "output": ""}
    if too_big:
        chunks.clear()
        return {"passed": False, "crash": f"sent a reply over {MAX_REPLY_BYTES // 1024**2} MB (too many parts?)",
                "output": ""}
    try:
        resp = json.loads(b"".join(chunks))
        if isinstance(resp, dict):
            return resp
    except ValueError:
        pass
    if os.WIFSIGNALED(status):
        return killed_reply(os.WTERMSIG(status), oom_kills, usage)
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
    if chunks and code == 0:
        return {"passed": False, "crash": "wrote an unreadable reply", "protocol": True, "output": ""}
    return {"passed": False, "crash": f"exit code {code}", "output": ""}


def oom_kill_count() -> int | None:
    """Processes the kernel's out-of-memory killer has killed since boot (``oom_kill`` of ``/proc/vmstat``,
    Linux 4.13+; it counts kills for a memory cgroup's limit too), or None when it cannot be read.

    ``/proc/vmstat`` is the machine's, also inside the sandbox (its own PID namespace mounts its own ``/proc``,
    which still shows the machine's counters)."""
    try:
        with open("/proc/vmstat", encoding="ascii") as f:
            for ln in f:
                if ln.startswith("oom_kill "):
                    return int(ln.split()[1])
    except (OSError, ValueError):
        pass
    return None


def killed_reply(sig: int, oom_kills_before: int | None, usage=None) -> dict:
    """The reply for a request process killed by signal ``sig``: what happened, and whether memory did it.

    A process over the worker's address-space limit (``RLIMIT_AS``) gets a ``MemoryError``, not a signal; a
    SIGKILL is the out-of-memory killer's only when the kernel counted a kill (:func:`oom_kill_count` grew
    since ``oom_kills_before``: the machine or the memory cgroup ran out). Any other SIGKILL or signal was sent
    by the code itself (``os.kill``, ``os.killpg``) or another process, and is reported as that signal.

    Returns
    -------
    dict
        ``crash`` (``"killed by signal 9 (SIGKILL)"``), ``signal``, ``memory_limit`` (the evidence above),
        ``oom_counted`` (the kernel's count could be read, so a false ``memory_limit`` rules memory out),
        ``peak_mb`` (the process's peak resident memory, MB, from ``wait4`` when given) and ``passed: False``.
    """
    import signal

    try:
        name = signal.Signals(sig).name
    except ValueError:
        name = f"signal {sig}"
    after = oom_kill_count()
    memory = sig == signal.SIGKILL and None not in (oom_kills_before, after) and after > oom_kills_before
    out = {"passed": False, "crash": f"killed by signal {sig} ({name})", "signal": sig, "memory_limit": memory,
           "oom_counted": None not in (oom_kills_before, after), "output": ""}
    if usage is not None:
        out["peak_mb"] = round(usage.ru_maxrss / 1024, 1)  # ru_maxrss: KiB on Linux (getrusage(2))
    return out


class _StderrHandler:
    """Log records to whatever ``sys.stderr`` is at the time (the request's captured output), without the
    cache-write failures the sandbox causes on purpose (its cache folder is read-only)."""

    @staticmethod
    def install() -> None:
        import logging

        class Handler(logging.Handler):
            def emit(self, record: logging.LogRecord) -> None:
                try:
                    msg = record.getMessage()
                    if msg.startswith("could not write") and "cache" in msg:
                        return  # expected in the sandbox: the cache is read-only there (docs/agent.md)
                    sys.stderr.write(f"{record.levelname.lower()}: {msg}\n")
                except Exception:  # noqa: BLE001 - logging never breaks a request
                    pass

        root = logging.getLogger()
        root.handlers[:] = [Handler(logging.WARNING)]
        root.setLevel(logging.WARNING)


def main() -> None:
    _StderrHandler.install()
    limit = int(os.environ.get("BRICKWRIGHT_WORKER_MEMORY", "0") or 0)
    if limit > 0:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    try:  # no ptrace or /proc/<pid>/mem of this warm process by the requests it forks (prctl(2))
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE = 4
    except Exception:  # noqa: BLE001 - not Linux
        pass
    _State.output_limit = int(os.environ.get("BRICKWRIGHT_WORKER_OUTPUT", "20000"))
    _State.max_tasks = int(os.environ.get("BRICKWRIGHT_WORKER_TASKS", "0") or 0)
    _State.max_file_bytes = int(os.environ.get("BRICKWRIGHT_WORKER_FSIZE", "0") or 0)
    import signal

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past RLIMIT_FSIZE fails with EFBIG instead
    sandboxed = os.environ.get("BRICKWRIGHT_SANDBOX") == "1" and os.getpid() == 1
    fork = os.environ.get("BRICKWRIGHT_WORKER_FORK", "1") != "0"
    in_fd, out_fd = os.dup(0), os.dup(1)
    _State.protocol_fds = (in_fd, out_fd)
    proto_in = os.fdopen(in_fd, "r", encoding="utf-8")
    proto_out = os.fdopen(out_fd, "w", encoding="utf-8")
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115
    sys.stdout = CappedWriter(0)
    try:
        import bricklayer  # noqa: F401 - warm import, the point of the worker

        _State.bricklayer = bricklayer
    except Exception as exc:  # noqa: BLE001 - reported in the ready line and in validate errors
        _State.import_error = f"{type(exc).__name__}: {exc}"
    try:
        import brickwright.testing  # noqa: F401
    except Exception:  # noqa: BLE001
        pass
    if _State.bricklayer is not None and os.environ.get("BRICKWRIGHT_WORKER_WARMUP", "1") != "0":
        warm_up()

    def send(obj: dict) -> None:
        proto_out.write(json.dumps(obj, default=str) + "\n")
        proto_out.flush()

    send({"ready": True, "bricklayer": _State.bricklayer is not None, "import_error": _State.import_error,
          "pid": os.getpid(), "sandboxed": sandboxed})
    for line in proto_in:
        if not line.strip():
            continue
        req = json.loads(line)
        resp = serve_forked(req, sandboxed) if fork else run_request(req)
        resp["id"] = req.get("id")
        resp["nonce"] = req.get("nonce")
        resp["ok"] = True
        try:
            send(resp)
        except MemoryError:
            send({"id": req.get("id"), "nonce": req.get("nonce"), "ok": True, "passed": False,
                  "memory_limit": True, "output": "",
                  "error": {"type": "MemoryError", "line": None, "hint": "", "text": "MemoryError"}})


if __name__ == "__main__":
    main()
