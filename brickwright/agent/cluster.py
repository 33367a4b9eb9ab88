"""Evaluation runs as Ray tasks: ``brickwright eval --ray ADDRESS`` (the optional ``ray`` extra).

Each run is one Ray task of one CPU that does what a local pool worker does: :func:`~.rows.run_row` with
its own sandboxed :class:`~.worker.Worker` on the node that executes the task, into a temporary run folder on
that node. The task returns the folder's files (bytes by relative path) with the run's metrics row and
deletes its temporary folder; the driver (the process running ``eval``) writes the files to
``out_dir/run_NNN-<slug>`` through a hidden folder renamed into place, so the nodes need no shared disk and a
half-received run never looks like a run folder. The node's run-folder path in text files (``result.json``,
the transcript's last record) and in the row is replaced by the driver's, so the run folder and the row read
as a serial run's do.

What the nodes need: the toolkit (the driver's version) and the LDraw library installed, a working sandbox
(unless ``--no-sandbox``), and a route to the model server (``127.0.0.1`` in a base URL is each node's own
loopback). Runs are never retried (a retry would pay for the model calls again); a task lost with its node
becomes a failed row. Progress events come back through a :class:`ray.util.queue.Queue`; the driver calls
``progress(i, event)`` for them as the local pool does.
"""

from __future__ import annotations

__all__ = ["RAY_EXTRA_HINT", "CONNECT_TIMEOUT_S", "import_ray", "check_address", "run_on_ray", "run_on_node",
           "node_problem", "pack_run_folder", "write_run_folder"]

import json
import logging
import os
import shutil
import socket
import tempfile
from pathlib import Path, PurePosixPath
from typing import Any, Callable

from .errors import BrickWrightError, RayClusterError
from .rows import failed_row, run_row
from .providers import AnthropicProvider, OpenAIProvider, Provider

logger = logging.getLogger(__name__)

#: What to install for ``--ray`` (the distribution name in pyproject.toml).
RAY_EXTRA_HINT = "pip install 'brickwright-toolkit[ray]'"
#: Seconds to wait for a TCP connection to the head node before calling the address unreachable (Ray itself
#: retries for minutes).
CONNECT_TIMEOUT_S = 5.0
#: Seconds the start-up check task may wait for a node.
NODE_CHECK_TIMEOUT_S = 120.0


def import_ray():
    """The ``ray`` module.

    Raises
    ------
    RayClusterError
        Ray is not installed; the message names the extra to install.
    """
    try:
        import ray
    except ImportError as exc:
        raise RayClusterError(f"--ray needs Ray, which is not installed: {RAY_EXTRA_HINT}") from exc
    return ray


def check_address(address: str) -> None:
    """Check a ``--ray`` address before Ray tries it (Ray waits minutes on an unreachable head node).

    Parameters
    ----------
    address : str
        ``HOST:PORT`` of the head node's GCS (``ray start --head --port=PORT``, default 6379),
        ``ray://HOST:PORT`` (Ray Client, port 10001 by default; needs ``pip install 'ray[client]'``),
        ``auto`` (the cluster started on this machine, or ``RAY_ADDRESS``) or ``local`` (a Ray instance
        started for this evaluation, in this process).

    Raises
    ------
    RayClusterError
        The address has none of these shapes, or no TCP connection to ``HOST:PORT`` opens within
        :data:`CONNECT_TIMEOUT_S` seconds.
    """
    if address in ("auto", "local"):
        return
    hostport = address[len("ray://"):] if address.startswith("ray://") else address
    host, sep, port = hostport.rpartition(":")
    host = host.strip("[]")  # [IPv6]:port
    if not sep or not host or not port.isdigit() or "/" in hostport:
        raise RayClusterError(f"--ray {address!r}: expected HOST:PORT of the head node (e.g. 10.0.0.5:6379), "
                              "ray://HOST:PORT, auto or local")
    try:
        with socket.create_connection((host, int(port)), timeout=CONNECT_TIMEOUT_S):
            pass
    except OSError as exc:
        why = exc.strerror or str(exc) or type(exc).__name__
        raise RayClusterError(f"--ray {address}: no Ray cluster reachable there ({why}); start one with "
                              f"`ray start --head --port={port}` or check the address") from exc


def _connect(address: str):
    """``(ray, owned)``: Ray connected to ``address`` (``owned``: this call connected, so shut it down after)."""
    ray = import_ray()
    check_address(address)
    if ray.is_initialized():  # a caller inside a Ray program: use its connection
        return ray, False
    kwargs: dict[str, Any] = {"log_to_driver": False, "logging_level": logging.ERROR}
    if address == "local":
        kwargs["include_dashboard"] = False
    try:
        ray.init(address=address, **kwargs)
    except Exception as exc:  # noqa: BLE001 - Ray raises ConnectionError, RuntimeError, ValueError...
        raise RayClusterError(f"--ray {address}: cannot connect to the Ray cluster ({_last_line(exc)}); a cluster "
                              "with token authentication needs RAY_AUTH_MODE=token and its token (RAY_AUTH_TOKEN, "
                              "RAY_AUTH_TOKEN_PATH or ~/.ray/auth_token) here") from exc
    return ray, True


def _last_line(exc: BaseException) -> str:
    """The last non-empty line of an error's text (a Ray task error ends with the remote exception)."""
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    return lines[-1] if lines else type(exc).__name__


def _provider_spec(provider: Provider) -> tuple:
    """What rebuilds ``provider`` on a node: its class and settings (its HTTP client does not pickle)."""
    if type(provider) in (OpenAIProvider, AnthropicProvider):
        return ("settings", type(provider).__name__, provider.model, provider.base_url, provider.api_key)
    return ("object", provider)  # another Provider: sent as is (it must pickle)


def _provider_from_spec(spec: tuple) -> Provider:
    if spec[0] == "object":
        return spec[1]
    _, cls_name, model, base_url, api_key = spec
    cls = {"OpenAIProvider": OpenAIProvider, "AnthropicProvider": AnthropicProvider}[cls_name]
    return cls(model, base_url, api_key)


def node_problem(sandbox: bool) -> str | None:
    """Run on a node: None when it can run evaluation runs, else why not (one line naming the node).

    Checks that the LDraw library is found and, when ``sandbox``, that the sandbox can be set up (the same
    checks a local ``eval`` makes before its first run).
    """
    from ldraw_data.errors import LDrawError
    from ldraw_data.library import get_library

    host = socket.gethostname()
    try:
        get_library()
    except LDrawError as exc:
        return f"node {host}: {exc}"
    if sandbox:
        from .sandbox import sandbox_problem

        problem = sandbox_problem()
        if problem:
            return f"node {host}: no sandbox ({problem}); pass --no-sandbox to run with process limits only"
    return None


def pack_run_folder(run_dir: Path, node_path: str, driver_path: str) -> tuple[dict[str, bytes], list[str]]:
    """The files and folders of a run folder, for sending to the driver.

    Parameters
    ----------
    run_dir : pathlib.Path
        The run folder on this node.
    node_path, driver_path : str
        The run folder's absolute path here and on the driver; every occurrence of ``node_path`` in a text
        file becomes ``driver_path`` (JSON-escaped in ``.json`` and ``.jsonl`` files).

    Returns
    -------
    (files, folders)
        ``files``: POSIX relative path -> bytes; ``folders``: every sub-folder's relative path (empty ones
        too). Symbolic links are left out (code run in the sandbox may have made them; they would read the
        node's files).
    """
    files: dict[str, bytes] = {}
    folders: list[str] = []
    swaps = {"json": (json.dumps(node_path)[1:-1].encode(), json.dumps(driver_path)[1:-1].encode()),
             "text": (node_path.encode(), driver_path.encode())}
    for dirpath, dirnames, filenames in os.walk(run_dir):
        here = Path(dirpath)
        for d in list(dirnames):
            if (here / d).is_symlink():
                dirnames.remove(d)
                continue
            folders.append((here / d).relative_to(run_dir).as_posix())
        for name in filenames:
            p = here / name
            if p.is_symlink() or not p.is_file():
                logger.warning("not sent to the driver (not a regular file): %s", p)
                continue
            data = p.read_bytes()
            old, new = swaps["json" if p.suffix in (".json", ".jsonl") else "text"]
            if old in data:
                try:
                    data.decode("utf-8")
                    data = data.replace(old, new)
                except UnicodeDecodeError:  # a binary file: left as it is
                    pass
            files[p.relative_to(run_dir).as_posix()] = data
    return files, folders


def write_run_folder(dest: Path, files: dict[str, bytes], folders: list[str]) -> None:
    """Write a run folder received from a node to ``dest``, atomically.

    The files go to a hidden sibling folder that is renamed to ``dest`` when complete; a ``dest`` already there
    (``--force``) is moved aside first and deleted after.

    Raises
    ------
    RayClusterError
        A received path is absolute or climbs out of the run folder (``..``).
    """
    def inside(rel: str) -> Path:
        pp = PurePosixPath(rel)
        if pp.is_absolute() or ".." in pp.parts or not pp.parts:
            raise RayClusterError(f"a Ray node sent the path {rel!r} for {dest}; refusing to write outside it")
        return tmp.joinpath(*pp.parts)

    tmp = dest.parent / f".{dest.name}.incoming"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    try:
        for rel in folders:
            inside(rel).mkdir(parents=True, exist_ok=True)
        for rel, data in files.items():
            target = inside(rel)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if dest.exists():
        old = dest.parent / f".{dest.name}.replaced"
        shutil.rmtree(old, ignore_errors=True)
        dest.rename(old)
        tmp.rename(dest)
        shutil.rmtree(old, ignore_errors=True)
    else:
        tmp.rename(dest)


def run_on_node(i: int, prompt: str, driver_run_dir: str, settings: dict[str, Any], provider_spec: tuple,
                queue: Any = None) -> dict[str, Any]:
    """The Ray task of one run (executed on a node): :func:`~.rows.run_row` into a temporary folder.

    Parameters
    ----------
    i, prompt, settings
        As for :func:`~.rows.run_row`.
    driver_run_dir : str
        The run folder's absolute path on the driver (its name is used here too).
    provider_spec : tuple
        From ``_provider_spec``: the provider is rebuilt on the node.
    queue : ray.util.queue.Queue, optional
        Receives ``(i, Progress)`` for every progress event.

    Returns
    -------
    dict
        ``row`` (the metrics row, paths naming the driver's folder), ``files`` and ``folders`` (see
        :func:`pack_run_folder`), ``node`` (the node's host name).
    """
    tmp = Path(tempfile.mkdtemp(prefix="brickwright-ray-"))
    node_dir = tmp / Path(driver_run_dir).name
    try:
        try:
            provider = _provider_from_spec(provider_spec)
        except BrickWrightError as exc:  # e.g. the provider's client is not installed on this node
            row = failed_row(i, prompt, node_dir, str(exc))
        else:
            cb: Callable | None = (lambda ev: queue.put((i, ev))) if queue is not None else None
            row = run_row(i, prompt, node_dir, settings, provider, progress=cb)
        files, folders = pack_run_folder(node_dir, str(node_dir), driver_run_dir) if node_dir.is_dir() else ({}, [])
        row = {k: v.replace(str(node_dir), driver_run_dir) if isinstance(v, str) else v for k, v in row.items()}
        row["run_dir"] = driver_run_dir
        return {"row": row, "files": files, "folders": folders, "node": socket.gethostname()}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _drain(queue: Any, progress: Callable | None) -> None:
    """Pass the progress events waiting in ``queue`` to ``progress(i, event)``."""
    if queue is None or progress is None:
        return
    n = queue.qsize()
    if n:
        for i, ev in queue.get_nowait_batch(n):
            progress(i, ev)


def run_on_ray(address: str, jobs: list[tuple[int, str, Path]], settings: dict[str, Any], provider: Provider,
               progress: Callable[[int, Any], None] | None = None) -> list[dict[str, Any]]:
    """Run every job as a Ray task and write its run folder on this machine; the rows in job order.

    Parameters
    ----------
    address : str
        See :func:`check_address`.
    jobs : list of (index, prompt, run_dir)
        ``run_dir``: where the run folder goes on this machine (absolute).
    settings : dict
        Keyword arguments of :func:`~.run.generate` (see :func:`~.rows.run_row`).
    provider : Provider
        Rebuilt on each node from its class and settings (OpenAI-compatible or Anthropic); another Provider
        object is sent as it is and must pickle.
    progress : callable, optional
        Called here as ``progress(index, Progress)`` while the runs go.

    Returns
    -------
    list of dict
        The metrics rows (:data:`~.evaluate.RUN_FIELDS`), in job order. A task Ray could not finish (its
        node died, its worker crashed) gives a failed row with the Ray error.

    Raises
    ------
    RayClusterError
        Ray is not installed, the address is malformed or unreachable, or a node cannot run the toolkit (it is
        not installed there, no LDraw library, no sandbox); checked before any run starts.
    """
    ray, owned = _connect(address)
    try:
        check = ray.remote(num_cpus=0, max_retries=0)(node_problem)
        try:
            problem = ray.get(check.remote(bool(settings.get("sandbox", True))), timeout=NODE_CHECK_TIMEOUT_S)
        except ray.exceptions.GetTimeoutError as exc:
            raise RayClusterError(f"--ray {address}: no node ran the start-up check within "
                                  f"{NODE_CHECK_TIMEOUT_S:.0f} s; check the cluster with `ray status`") from exc
        except ray.exceptions.RayError as exc:
            raise RayClusterError(f"--ray {address}: a node cannot run the toolkit ({_last_line(exc)}); install "
                                  "brickwright-toolkit, the driver's version, on every node") from exc
        if problem:
            raise RayClusterError(f"--ray {address}: {problem}")
        from ray.util.queue import Queue

        queue = Queue(actor_options={"num_cpus": 0}) if progress else None
        task = ray.remote(num_cpus=1, max_retries=0)(run_on_node)
        spec = _provider_spec(provider)
        pending = {task.remote(i, prompt, str(run_dir), settings, spec, queue): (i, prompt, run_dir)
                   for i, prompt, run_dir in jobs}
        rows: dict[int, dict[str, Any]] = {}
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1, timeout=0.25)
            _drain(queue, progress)
            for ref in ready:
                i, prompt, run_dir = pending.pop(ref)
                try:
                    out = ray.get(ref)
                except ray.exceptions.RayError as exc:
                    logger.warning("run %d failed on the Ray cluster: %s", i, exc)
                    rows[i] = failed_row(i, prompt, run_dir, f"the Ray task failed: {_last_line(exc)}")
                    continue
                write_run_folder(run_dir, out["files"], out["folders"])
                rows[i] = out["row"]
        _drain(queue, progress)
        if queue is not None:
            queue.shutdown()
        return [rows[i] for i, _p, _d in jobs]
    finally:
        if owned:
            ray.shutdown()
