"""A warm, sandboxed worker process that runs model-written ``build.py`` code.

The worker imports bricklayer once and then answers requests over a pipe (one JSON object per line), so
validating a small build costs the validation, not a Python start-up. Each request has a wall-clock limit;
the worker also has an address-space limit and truncates captured output. When a request times out, the
worker dies or runs out of memory, the harness kills it, reports the event as the request's result, and
starts a fresh worker in the background; the harness itself never goes down with it.
"""

from __future__ import annotations

__all__ = ["Worker", "WorkerResult", "DEFAULT_TIME_LIMIT", "DEFAULT_MEMORY_LIMIT", "DEFAULT_OUTPUT_LIMIT"]

import json
import logging
import os
import secrets
import selectors
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

#: Seconds a single request (one validate, explore or render) may take.
DEFAULT_TIME_LIMIT = 30.0
#: Bytes of address space for the worker (RLIMIT_AS). 2 GiB holds bricklayer, numpy, trimesh and fcl with room.
DEFAULT_MEMORY_LIMIT = 2 * 1024**3
#: Characters of captured ``print`` output kept per request.
DEFAULT_OUTPUT_LIMIT = 20_000
#: Seconds allowed for a cold start (importing bricklayer); not charged to the request.
STARTUP_TIMEOUT = 180.0


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

    Examples
    --------
    >>> with Worker(time_limit=5) as w:                        # doctest: +SKIP
    ...     r = w.call("validate", source=src, build_path="/run/build.py", cwd="/run/work")
    """

    def __init__(self, *, time_limit: float = DEFAULT_TIME_LIMIT, memory_limit: int = DEFAULT_MEMORY_LIMIT,
                 output_limit: int = DEFAULT_OUTPUT_LIMIT, python: str | None = None, warm_up: bool | None = None):
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
    def start(self) -> None:
        """Start the child if it is not running (does not wait for it to be ready)."""
        if self._proc is not None and self._proc.poll() is None:
            return
        env = _child_environment()
        env.update({"BRICKWRIGHT_WORKER_MEMORY": str(self.memory_limit),
                    "BRICKWRIGHT_WORKER_OUTPUT": str(self.output_limit),
                    # one BLAS thread: the machine is shared and RLIMIT_AS counts every thread's arena
                    "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
                    "PYTHONUNBUFFERED": "1", "BRICKWRIGHT_WORKER_WARMUP": "1" if self.warm_up else "0"})
        # the child imports the same brickwright/bricklayer as this process, whatever its cwd
        root = str(Path(__file__).resolve().parents[2])
        env["PYTHONPATH"] = os.pathsep.join([root] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
        self._proc = subprocess.Popen(
            [self.python, "-m", "brickwright.agent._child"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, env=env, start_new_session=True, close_fds=True)
        self._buf = b""
        self._ready = None
        logger.debug("worker started, pid %s", self._proc.pid)

    def _wait_ready(self) -> dict:
        if self._ready is None:
            line = self._read_line(time.monotonic() + STARTUP_TIMEOUT)
            if line is None:
                self.kill()
                raise RuntimeError("the build worker did not start (import of bricklayer failed or timed out)")
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

    def restart(self) -> None:
        """Kill the child and start a fresh one in the background."""
        self.kill()
        self.restarts += 1
        self.start()

    def close(self) -> None:
        """Stop the child."""
        self.kill()

    def __enter__(self) -> "Worker":
        self.start()
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
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    return b""  # EOF: the child died
                self._buf += chunk
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
            Request fields: ``source``, ``build_path``, ``cwd``, ``export``, ``code``, ``out``.

        Returns
        -------
        WorkerResult
            Never raises for anything the user code does; on a limit or crash ``ok`` is False, ``limit`` says
            which, ``data["error"]["text"]`` says what happened, and a fresh worker is already starting.
        """
        self.start()
        limit = self.time_limit if time_limit is None else float(time_limit)
        try:
            ready = self._wait_ready()
        except RuntimeError as exc:
            return WorkerResult(False, {"passed": False, "error": {"type": "WorkerError", "text": str(exc)}},
                                0.0, "crash")
        self._next_id += 1
        # A fresh nonce per request: the reply must echo it. Model code runs in the child and could
        # write to the reply pipe; a line without the nonce (forged, garbage) is never taken as the answer.
        nonce = secrets.token_hex(16)
        req = {"id": self._next_id, "nonce": nonce, "op": op, **payload}
        t0 = time.monotonic()
        try:
            assert self._proc is not None and self._proc.stdin is not None
            self._proc.stdin.write((json.dumps(req) + "\n").encode())
            self._proc.stdin.flush()
            line = self._read_line(t0 + limit)
        except (BrokenPipeError, OSError):
            line = b""
        dt = time.monotonic() - t0
        if line is None:
            self.restart()
            return WorkerResult(False, {"passed": False, "error": {
                "type": "TimeLimit", "line": None, "hint": "",
                "text": f"Time limit: the code ran longer than {limit:g} s and was stopped. Look for an endless "
                        "loop (a while loop whose condition never changes) or a far too large build."}},
                dt, "time")
        if line == b"":
            code = None
            if self._proc is not None:
                try:  # EOF comes just before the exit; give the exit code a moment to appear
                    code = self._proc.wait(timeout=2)
                except subprocess.TimeoutExpired:
                    code = None
            self.restart()
            if code is not None and code < 0 and -code == signal.SIGKILL:
                what, kind = "was killed (most likely out of memory)", "memory"
            else:
                what, kind = f"crashed (exit code {code})", "crash"
            return WorkerResult(False, {"passed": False, "error": {
                "type": "WorkerCrash", "line": None, "hint": "",
                "text": f"The build worker {what} while running this code; simplify it (fewer parts, no "
                        "deep recursion) and try again."}}, dt, kind)
        try:
            data = json.loads(line)
        except ValueError:
            data = None
        if not isinstance(data, dict) or data.get("nonce") != nonce or data.get("id") != req["id"]:
            self.restart()
            return WorkerResult(False, {"passed": False, "error": {
                "type": "ProtocolError", "line": None, "hint": "",
                "text": "The build's code wrote to the worker's private reply channel (a file descriptor it "
                        "does not own), so this result cannot be trusted and the worker was restarted. Do not "
                        "write to raw file descriptors; use print()."}}, dt, "crash")
        data.pop("nonce", None)
        if data.pop("restart", False):
            self.restart()
            return WorkerResult(True, data, dt, "memory")
        return WorkerResult(True, data, dt, None)
