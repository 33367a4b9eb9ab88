"""A warm, sandboxed worker process that runs model-written ``build.py`` code.

The worker imports bricklayer once, inside the OS sandbox of :mod:`.sandbox` (bubblewrap), and then answers
requests over a pipe (one JSON object per line), so running a small build costs the build, not a Python
start-up. Each request runs in a fresh fork of the warm process, under a wall-clock limit, an address-space
limit and a process cap; when it ends, every process it started is killed. Printed output is truncated.
What comes back is data (LDraw text, test results, PNG bytes): the verdict on a build is computed by
:mod:`.judge`, in a process that runs no model code. When the worker itself dies or stops answering, the
harness kills it, reports the event as the request's result and starts a fresh one; the harness itself never
goes down with it.
"""

from __future__ import annotations

__all__ = ["Worker", "WorkerResult", "DEFAULT_TIME_LIMIT", "DEFAULT_MEMORY_LIMIT", "DEFAULT_OUTPUT_LIMIT"]

import functools
import json
import logging
import os
import secrets
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .sandbox import MAX_FILE_BYTES, MAX_WORK_BYTES, MAX_WORK_ENTRIES
from .errors import WorkerStartError

logger = logging.getLogger(__name__)

#: Seconds a single request (one validate, explore or render) may take.
DEFAULT_TIME_LIMIT = 30.0
#: Bytes of address space for the worker (RLIMIT_AS). 2 GiB holds bricklayer, numpy, trimesh and fcl with room.
DEFAULT_MEMORY_LIMIT = 2 * 1024**3
#: Characters of captured ``print`` output kept per request.
DEFAULT_OUTPUT_LIMIT = 20_000
#: Seconds allowed for a cold start (importing bricklayer); not charged to the request.
STARTUP_TIMEOUT = 180.0
#: Largest reply line accepted from the worker, bytes; a longer one ends the worker (its own cap is 128 MB).
MAX_LINE_BYTES = 256 * 1024**2
#: Seconds the harness waits beyond a request's time limit for the worker's own time-limit reply before it
#: kills the whole sandbox.
GRACE_SECONDS = 15.0


#: Environment variables never handed to model-written code (API keys and other secrets).
_SECRET_WORDS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "CREDENTIAL", "AUTH")


def _child_environment() -> dict[str, str]:
    """The worker's environment: this process's, less anything that looks like a secret.

    API keys (``OPENAI_API_KEY``, ``ANTHROPIC_API_KEY``, ``BRICKWRIGHT_API_KEY``, ...) would otherwise be
    readable by the model's code and could end up in a transcript or be sent to the provider. The data and
    cache folders are passed explicitly so the worker finds the same library and caches.
    """
    from ldraw_data.library import cache_dir, data_dir

    env = {k: v for k, v in os.environ.items() if not any(w in k.upper() for w in _SECRET_WORDS)}
    env["BRICKWRIGHT_DATA_DIR"] = str(data_dir())
    env["BRICKWRIGHT_CACHE_DIR"] = str(cache_dir())
    return env


@dataclass
class WorkerResult:
    """What one request returned.

    Attributes
    ----------
    ok : bool
        False when the worker failed as a process (time limit, crash, memory limit); ``data`` then holds an
        ``error`` entry describing it.
    data : dict
        The child's reply (``passed``, ``error``, ``fixed``, ``tests``, ``output``, ...).
    seconds : float
        Wall-clock time of the request, s.
    limit : str or None
        ``"time"``, ``"memory"`` or ``"crash"`` when a limit ended the request.
    """

    ok: bool
    data: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    limit: str | None = None


class Worker:
    """Run requests in a warm child process with time, memory and output limits.

    Parameters
    ----------
    time_limit : float, default 30
        Seconds per request before the worker is killed and the request reported as timed out.
    memory_limit : int, default 2 GiB
        Bytes of address space (``resource.RLIMIT_AS``) set in the child; 0 for none.
    output_limit : int, default 20000
        Characters of ``print`` output kept per request; the rest is counted and dropped.
    python : str, optional
        Interpreter for the child (default: this one).
    warm_up : bool, optional
        Build and validate a two-brick model at start-up so the first request is as fast as later ones
        (about 1.5 s more start-up); default on unless ``BRICKWRIGHT_WORKER_WARMUP=0``.
    sandbox : bool, default True
        Run inside the bubblewrap sandbox (:mod:`.sandbox`). When no sandbox can be set up, starting raises
        :class:`~.sandbox.SandboxUnavailableError`; ``False`` runs the code with process limits only (the
        CLI's ``--no-sandbox``), with secret-looking variables removed from its environment.
    max_tasks : int, default :data:`~.sandbox.MAX_TASKS`
        Processes and threads the code may have at once (sandbox only).
    module : str, default ``"brickwright.agent._child"``
        The module the child runs (``brickwright.agent._judge`` for the judge).

    Notes
    -----
    The sandbox's one writable folder is a request's ``cwd``; ``read_files`` (a request field) are extra files
    it may read. A request with other folders than the running sandbox's restarts the worker with them.

    Examples
    --------
    >>> with Worker(time_limit=5) as w:                        # doctest: +SKIP
    ...     r = w.call("validate", source=src, build_path="/run/build.py", cwd="/run/work")
    """

    def __init__(self, *, time_limit: float = DEFAULT_TIME_LIMIT, memory_limit: int = DEFAULT_MEMORY_LIMIT,
                 output_limit: int = DEFAULT_OUTPUT_LIMIT, python: str | None = None, warm_up: bool | None = None,
                 sandbox: bool = True, max_tasks: int | None = None, module: str = "brickwright.agent._child"):
        from .sandbox import MAX_TASKS

        self.module = module
        self.sandbox = bool(sandbox)
        self.max_tasks = MAX_TASKS if max_tasks is None else int(max_tasks)
        self._folders: tuple[str, tuple[str, ...]] | None = None
        self._scratch: str | None = None
        self._cgroup = None
        self.time_limit = float(time_limit)
        self.memory_limit = int(memory_limit)
        self.output_limit = int(output_limit)
        self.python = python or sys.executable
        if warm_up is None:
            warm_up = os.environ.get("BRICKWRIGHT_WORKER_WARMUP", "1") != "0"
        self.warm_up = bool(warm_up)
        self._proc: subprocess.Popen | None = None
        self._buf = b""
        self._ready: dict | None = None
        self._next_id = 0
        self.restarts = 0

    # -- process management ------------------------------------------------------------------------------
    def start(self, folders: tuple[str, tuple[str, ...]] | None = None) -> None:
        """Start the child if it is not running (does not wait for it to be ready).

        Parameters
        ----------
        folders : (str, tuple of str), optional
            The sandbox's writable folder and its extra read-only files; default the running sandbox's, or a
            scratch folder of this worker's own.

        Raises
        ------
        SandboxUnavailableError
            ``sandbox=True`` and no sandbox can be set up here (the message says why and what to do).
        """
        if self._proc is not None and self._proc.poll() is None:
            return
        if folders is None and self.sandbox:
            folders = self._folders or (self._scratch_dir(), ())
        self._folders = folders
        worker_env = {"BRICKWRIGHT_WORKER_MEMORY": str(self.memory_limit),
                      "BRICKWRIGHT_WORKER_OUTPUT": str(self.output_limit),
                      "BRICKWRIGHT_WORKER_TASKS": str(self.max_tasks),
                      "BRICKWRIGHT_WORKER_FSIZE": str(MAX_FILE_BYTES),
                      # one BLAS thread: the machine is shared and RLIMIT_AS counts every thread's arena
                      "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
                      "LP_NUM_THREADS": "2", "PYTHONUNBUFFERED": "1",
                      "BRICKWRIGHT_WORKER_WARMUP": "1" if self.warm_up else "0"}
        # the child imports the same brickwright/bricklayer as this process, whatever its cwd
        root = str(Path(__file__).resolve().parents[2])
        argv = [self.python, "-m", self.module]
        preexec = None
        if self.sandbox:
            from ldraw_data.library import cache_dir, data_dir

            from .sandbox import (PidsCgroup, SandboxUnavailableError, sandbox_command, sandbox_environment,
                                  sandbox_problem)

            problem = sandbox_problem()
            if problem:
                raise SandboxUnavailableError(
                    f"no sandbox for model code: {problem}. Pass --no-sandbox (API: sandbox=False) to run it "
                    "with process limits only (docs/agent.md, Threat model).")
            worker_env.update({"BRICKWRIGHT_DATA_DIR": str(data_dir()), "BRICKWRIGHT_CACHE_DIR": str(cache_dir()),
                               "PYTHONPATH": root})
            if os.environ.get("LDRAWDIR"):
                worker_env["LDRAWDIR"] = os.environ["LDRAWDIR"]
            self._cgroup = PidsCgroup(self.max_tasks, memory_bytes=self.memory_limit + 1024**3
                                      if self.memory_limit else None)
            if self._cgroup.path is not None:
                preexec = self._cgroup.enter
            cmd = sandbox_command(argv, work_dir=folders[0], read_files=list(folders[1]), env=worker_env)
            env = sandbox_environment()  # bwrap's own environment too: its /proc/1/environ is visible inside
        else:
            cmd = argv
            from ._child import _die_with  # the request forks use the same death signal

            preexec = functools.partial(_die_with, os.getpid())  # SIGKILL when this process dies
            env = _child_environment()
            env.update(worker_env)
            env["PYTHONPATH"] = os.pathsep.join([root] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep)
                                                          if p])
        self._proc = subprocess.Popen(
            cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
            start_new_session=True, close_fds=True, preexec_fn=preexec)
        self._buf = b""
        self._ready = None
        logger.debug("worker started, pid %s, sandbox %s", self._proc.pid, self.sandbox)

    def _scratch_dir(self) -> str:
        if self._scratch is None:
            self._scratch = tempfile.mkdtemp(prefix="brickwright-worker-")
        return self._scratch

    def _wait_ready(self) -> dict:
        if self._ready is None:
            line = self._read_line(time.monotonic() + STARTUP_TIMEOUT)
            if line is None:
                self.kill()
                raise WorkerStartError("the build worker did not start (import of bricklayer failed or timed out)")
            self._ready = json.loads(line)
        return self._ready

    @property
    def info(self) -> dict:
        """The child's start-up record: ``bricklayer`` (imported?), ``import_error``, ``pid``."""
        self.start()
        return self._wait_ready()

    def kill(self) -> None:
        """Kill the child's process group (it runs in its own session) and reap it."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL does not fail
            logger.warning("worker %s did not exit after SIGKILL", proc.pid)
        for f in (proc.stdin, proc.stdout):
            try:
                f.close()
            except OSError:
                pass
        if self._cgroup is not None:
            self._cgroup.remove()
            self._cgroup = None

    def restart(self) -> None:
        """Kill the child and start a fresh one in the background."""
        self.kill()
        self.restarts += 1
        self.start()

    def close(self) -> None:
        """Stop the child and delete its scratch folder."""
        self.kill()
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None

    def __enter__(self) -> "Worker":
        try:
            self.start()
        except BaseException:  # interrupted while starting (SIGTERM, Ctrl-C): no child or scratch folder left
            self.close()
            raise
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:  # pragma: no cover - best effort
        try:
            self.kill()
        except Exception:  # noqa: BLE001
            pass

    # -- protocol ----------------------------------------------------------------------------------------
    def _read_line(self, deadline: float) -> bytes | None:
        assert self._proc is not None and self._proc.stdout is not None
        fd = self._proc.stdout.fileno()
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while b"\n" not in self._buf:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                if not sel.select(timeout=remaining):
                    continue
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    return b""  # EOF: the child died
                self._buf += chunk
                if len(self._buf) > MAX_LINE_BYTES:
                    self._buf = b""
                    return b""  # reported as a crash; the worker is restarted
        line, _, self._buf = self._buf.partition(b"\n")
        return line

    def call(self, op: str, *, time_limit: float | None = None, **payload: Any) -> WorkerResult:
        """Run one request in the worker.

        Parameters
        ----------
        op : {"validate", "explore", "render", "api_reference", "ping"}
            The request kind (see ``brickwright.agent._child``).
        time_limit : float, optional
            Override of :attr:`time_limit` for this request, s.
        **payload
            Request fields: ``source``, ``build_path``, ``cwd`` (the one writable folder), ``read_files``
            (extra read-only files), ``code``, ``view``.

        Returns
        -------
        WorkerResult
            Never raises for anything the user code does; on a limit or crash ``ok`` is False, ``limit`` says
            which and ``data["error"]["text"]`` says what happened. ``data`` is what the code's process sent:
            data to check, never a verdict.

        Raises
        ------
        SandboxUnavailableError
            When the sandbox cannot be set up (see :class:`Worker`).
        """
        folders = None
        if payload.get("cwd"):
            payload["cwd"] = str(Path(payload["cwd"]).resolve())
            folders = (payload["cwd"], tuple(str(Path(f).resolve()) for f in payload.pop("read_files", ()) or ()))
        else:
            payload.pop("read_files", None)
        if self.sandbox and folders is not None and self._folders is not None and folders != self._folders:
            self.kill()  # another run folder: a sandbox with those folders mounted
        self.start(folders)
        limit = self.time_limit if time_limit is None else float(time_limit)
        try:
            ready = self._wait_ready()
        except RuntimeError as exc:
            return WorkerResult(False, {"passed": False, "error": {"type": "WorkerError", "text": str(exc)}},
                                0.0, "crash")
        self._next_id += 1
        nonce = secrets.token_hex(16)
        req = {"id": self._next_id, "nonce": nonce, "op": op, "time_limit": limit, **payload}
        if self.sandbox and ready.get("sandboxed") is False:  # pragma: no cover - a broken bwrap setup
            self.kill()
            return WorkerResult(False, {"passed": False, "error": {
                "type": "SandboxError", "line": None, "hint": "",
                "text": "The build worker did not start inside its sandbox; refusing to run the code."}}, 0.0,
                "crash")
        from ._child import oom_kill_count

        oom_kills = oom_kill_count()
        t0 = time.monotonic()
        try:
            assert self._proc is not None and self._proc.stdin is not None
            self._proc.stdin.write((json.dumps(req) + "\n").encode())
            self._proc.stdin.flush()
            line = self._read_line(t0 + limit + GRACE_SECONDS)
        except (BrokenPipeError, OSError):
            line = b""
        dt = time.monotonic() - t0
        if line is None:
            self.restart()
            return self._time_limit_result(limit, dt)
        if line == b"":
            code = None
            if self._proc is not None:
                try:  # EOF comes just before the exit; give the exit code a moment to appear
                    code = self._proc.wait(timeout=2)
                except subprocess.TimeoutExpired:
                    code = None
            self.restart()
            if code is not None and code < 0:  # the whole worker was killed (Popen: -N for signal N)
                try:
                    name = signal.Signals(-code).name
                except ValueError:
                    name = f"signal {-code}"
                after = oom_kill_count()
                counted = None not in (oom_kills, after)
                if -code == signal.SIGKILL and counted and after > oom_kills:
                    return self._crash_result("ran out of memory (the kernel's out-of-memory killer stopped it)",
                                              "memory", dt)
                why = ("not for lack of memory (the kernel killed nothing for memory): something sent it that signal"
                       if counted else "something sent it that signal, or the machine ran out of memory")
                return self._crash_result(f"was killed by signal {-code} ({name})", "crash", dt,
                                          f"{why}; remove any os.kill, os.killpg or signal call from the code and "
                                          "try again")
            return self._crash_result(f"crashed (exit code {code})", "crash", dt)
        try:
            data = json.loads(line)
        except (ValueError, RecursionError):
            data = None
        if not isinstance(data, dict) or data.get("nonce") != nonce or data.get("id") != req["id"]:
            self.restart()
            return WorkerResult(False, {"passed": False, "error": {
                "type": "ProtocolError", "line": None, "hint": "",
                "text": "The build worker sent a reply that is not the answer to this request, so the worker "
                        "was restarted. Do not write to raw file descriptors; use print()."}}, dt, "crash")
        data.pop("nonce", None)
        if not isinstance(data.get("output", ""), str):
            data["output"] = ""
        if self.sandbox and self._folders is not None:
            self._cap_work_folder(data)
        output = data.get("output") or ""
        if data.pop("time_limit", False):
            res = self._time_limit_result(limit, dt, stopped=data.pop("stopped", False) is True)
            res.data["output"] = output
            return res
        crash = data.pop("crash", None)
        if crash:
            memory = bool(data.pop("memory_limit", False))
            sig, peak = data.pop("signal", None), data.pop("peak_mb", None)  # peak: resident memory, MB
            counted = data.pop("oom_counted", False)
            at = f" at a peak of {peak:g} MB" if peak is not None else ""
            advice = None
            if memory:  # the kernel counted an out-of-memory kill during the call (_child.killed_reply)
                what = f"ran out of memory{at} (the kernel's out-of-memory killer stopped it)"
            elif sig is not None:
                what = f"was {crash}"
                cap = (f"; over its limit of {self.memory_limit / 2**20:g} MB the code gets a MemoryError"
                       if self.memory_limit else "")
                why = (f"not for lack of memory (the kernel killed nothing for memory{cap}): something sent it "
                       "that signal" if counted else
                       "something sent it that signal, or the machine ran out of memory")
                advice = f"{why}; remove any os.kill, os.killpg or signal call from the code and try again"
            else:
                what = f"crashed ({crash})"
            if data.pop("protocol", False):
                what = "wrote to its private reply channel instead of returning, so its reply was discarded"
            res = self._crash_result(what, "memory" if memory else "crash", dt, advice)
            res.data["output"] = output
            return res
        if data.pop("memory_limit", False):
            return WorkerResult(True, data, dt, "memory")
        return WorkerResult(True, data, dt, None)

    def _cap_work_folder(self, data: dict) -> None:
        """Empty the sandbox's work folder when the call left more than :data:`MAX_WORK_BYTES` in it (it is on
        the user's disk); the reply's ``output`` says so."""
        work = Path(self._folders[0])
        total, entries, unreadable = 0, 0, False

        def fail(_exc):
            nonlocal unreadable
            unreadable = True

        # fwalk walks by directory descriptors: no PATH_MAX limit, so nothing deep is missed; a folder it
        # cannot read counts as over the limit
        for _root, dirs, files, rootfd in os.fwalk(work, onerror=fail, follow_symlinks=False):
            entries += len(dirs) + len(files)
            for name in files:
                try:
                    total += os.stat(name, dir_fd=rootfd, follow_symlinks=False).st_size
                except OSError:
                    unreadable = True
            if entries > MAX_WORK_ENTRIES or total > MAX_WORK_BYTES:
                break
        if total <= MAX_WORK_BYTES and entries <= MAX_WORK_ENTRIES and not unreadable:
            return
        for entry in list(work.iterdir()):
            if entry.is_dir() and not entry.is_symlink():
                # rm walks by descriptors without recursion limits (a tree thousands of levels deep) and
                # never follows links; every process that could still write here was killed with the call
                subprocess.run(["rm", "-rf", "--", str(entry)], stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120, check=False)
            else:
                entry.unlink(missing_ok=True)
        note = (f"[the work folder held at least {total / 1024**2:.0f} MB in {entries} entries after this call, "
                f"over the {MAX_WORK_BYTES / 1024**2:.0f} MB and {MAX_WORK_ENTRIES} entries allowed (or a part "
                "of it could not be read); it was emptied]")
        data["output"] = ((data.get("output") or "") + "\n" + note).strip()

    @staticmethod
    def _time_limit_result(limit: float, dt: float, stopped: bool = False) -> WorkerResult:
        """The reply for a request that outran ``limit`` (s). ``stopped``: at the limit the request process was
        in state T (``/proc/<pid>/stat``: stopped by SIGSTOP or SIGTSTP and never resumed), so the message
        says that instead of pointing at an endless loop (break-it report s25 F15)."""
        if stopped:
            text = (f"Time limit: the code's process was stopped (SIGSTOP or SIGTSTP) and never resumed, so it "
                    f"did not finish within {limit:g} s; remove any os.kill or signal call that stops it.")
        else:
            text = (f"Time limit: the code ran longer than {limit:g} s and was stopped. Look for an endless "
                    "loop (a while loop whose condition never changes) or a far too large build.")
        return WorkerResult(False, {"passed": False, "error": {
            "type": "TimeLimit", "line": None, "hint": "", "text": text}}, dt, "time")

    @staticmethod
    def _crash_result(what: str, kind: str, dt: float, advice: str | None = None) -> WorkerResult:
        advice = advice or "simplify it (fewer parts, no deep recursion, no os._exit) and try again"
        return WorkerResult(False, {"passed": False, "error": {
            "type": "WorkerCrash", "line": None, "hint": "",
            "text": f"The build's process {what} while running this code; {advice}."}}, dt, kind)
