"""Atomic file writes, the one way every module writes a file; and the handling of bad cache files.

A file is written to a temporary file in the target's folder and renamed
over the target only when complete (``os.replace``), so a crash or an error
never leaves a half-written model, image or cache file. New files get the
usual permissions (``0o666`` less the process umask), not the private
``0o600`` that ``tempfile.mkstemp`` creates.

A cache file that is truncated or corrupt all the same (a full disk, a copy
cut short, a file edited by hand) is discarded with :func:`discard_cache_file`:
one logged warning, the file removed, and the caller rebuilds it.
"""

from __future__ import annotations

__all__ = ["atomic_writer", "atomic_write", "check_output_file", "read_input_text", "read_input_bytes",
           "input_size_limit", "output_write_error", "discard_cache_file", "current_umask",
           "MAX_INPUT_BYTES", "MAX_INPUT_ENV", "FIFO_WRITER_WAIT_S"]

import contextlib
import errno
import logging
import os
import stat
import tempfile
import time
from pathlib import Path
from typing import Callable
from .errors import InputNotFoundError, InputReadError, OutputExistsError, OutputIsAFolderError, OutputWriteError

log = logging.getLogger(__name__)


#: Largest input file read (a model, a prompts file, a CSV map), in bytes: 256 MiB. The largest official
#: LDraw set model in ``shared/models/official`` (10283 NASA Space Shuttle Discovery) is 3.0 MB, so this is
#: about 85 times that; reading it costs about 4 times its size in memory once parsed. The environment
#: variable :data:`MAX_INPUT_ENV` raises (or lowers) it. Without a cap, ``/dev/zero`` or ``/dev/urandom``
#: given as a model filled the RAM of the machine (24 GB in a minute) before anything was parsed.
MAX_INPUT_BYTES = 256 * 2**20

#: Environment variable holding the input size limit in MB (2**20 bytes; a whole number), e.g. ``1024``.
MAX_INPUT_ENV = "BRICKWRIGHT_MAX_INPUT_MB"

#: Seconds :func:`read_input_bytes` waits for a program to start writing into a named pipe (FIFO) that no
#: program writes to yet, before it gives up with an error (``cat`` would wait forever).
FIFO_WRITER_WAIT_S = 10.0

_CHUNK_BYTES = 2**20  # read size: 1 MiB


def input_size_limit() -> int:
    """The input size limit in bytes: ``$BRICKWRIGHT_MAX_INPUT_MB`` MB when set to a whole number > 0, else
    :data:`MAX_INPUT_BYTES`.

    Raises
    ------
    InputReadError
        When the variable is set to something that is not a whole number above 0.
    """
    raw = os.environ.get(MAX_INPUT_ENV, "").strip()
    if not raw:
        return MAX_INPUT_BYTES
    try:
        mb = int(raw)
    except ValueError:
        mb = 0
    if mb <= 0:
        raise InputReadError(f"{MAX_INPUT_ENV}={raw!r} is not a whole number of MB above 0; e.g. {MAX_INPUT_ENV}=1024")
    return mb * 2**20


#: Byte-order marks that open a UTF-16 text file (little- and big-endian; Unicode standard, section 23.8). Such
#: a file holds a NUL byte in every ASCII character, so :func:`read_input_bytes` does not stop at its NULs.
UTF16_LE_BOM = b"\xff\xfe"
UTF16_BE_BOM = b"\xfe\xff"


def read_input_bytes(path, *, limit: int | None = None, fifo_wait_s: float = FIFO_WRITER_WAIT_S,
                     fail: Callable[[str], Exception] | None = None) -> bytes:
    """The bytes of an input file read in 1 MiB chunks, stopping at the first NUL byte, within a size limit.

    A file that starts with a UTF-16 byte-order mark (:data:`UTF16_LE_BOM`, :data:`UTF16_BE_BOM`) is text
    with a NUL in every ASCII character: it is read whole (same size limit) for the caller to decode.

    Regular files, pipes (``/dev/stdin``, ``<(...)``, named FIFOs) and character devices are all read as a
    stream with the same limits, so ``/dev/zero`` stops at its first byte and an endless text stream at the
    limit, in bounded memory.

    Parameters
    ----------
    path : path
        The input file.
    limit : int, optional
        Most bytes accepted; default :func:`input_size_limit` (256 MiB, or ``$BRICKWRIGHT_MAX_INPUT_MB``).
    fifo_wait_s : float
        Seconds to wait for a writer on a named pipe that has none yet (:data:`FIFO_WRITER_WAIT_S`). A pipe
        whose writer already closed without writing a byte looks the same, so it also ends with this error
        after the wait.
    fail : callable, optional
        ``fail(reason)`` builds the exception raised for a file that is too large or a pipe with no writer;
        default an :class:`~ldraw_data.errors.InputReadError` whose message is ``"{path}: {reason}"``.

    Returns
    -------
    bytes
        The whole file, or, when it holds a NUL byte (a binary file) and does not start with a UTF-16
        byte-order mark, the bytes up to and including the first NUL: the caller reports it (e.g. :func:`ldraw_data.library.read_ldraw_text`).

    Raises
    ------
    OSError
        When the file cannot be opened or read (missing, a folder, no permission), as ``open()`` raises it.
    Exception from ``fail``
        When the file is larger than ``limit`` bytes, or a named pipe gets no writer within ``fifo_wait_s``.
    """
    p = Path(path)
    limit = input_size_limit() if limit is None else int(limit)
    fail = fail or (lambda why: InputReadError(f"{p}: {why}"))
    too_large = (f"larger than the input size limit of {limit / 2**20:g} MB (the largest official LDraw set model "
                 f"is 3 MB); give a smaller file, or set {MAX_INPUT_ENV} to a larger number of MB")
    st = os.stat(p)  # a folder opens, then its first read raises IsADirectoryError
    if stat.S_ISREG(st.st_mode) and st.st_size > limit:
        raise fail(too_large)
    fifo = stat.S_ISFIFO(st.st_mode)
    fd = os.open(p, os.O_RDONLY | (os.O_NONBLOCK if fifo else 0))
    try:
        chunks: list[bytes] = []
        size = 0
        if fifo:  # wait (at most fifo_wait_s) for a writer: a non-blocking read gives b"" while there is none
            deadline = time.monotonic() + fifo_wait_s
            while True:
                try:
                    first = os.read(fd, _CHUNK_BYTES)
                except BlockingIOError:  # a writer is there, nothing written yet
                    break
                if first:
                    chunks.append(first)
                    size = len(first)
                    break
                if time.monotonic() >= deadline:
                    raise fail(f"a named pipe that nothing was written to within {fifo_wait_s:g} s; start the "
                               "program that writes into it first, or give a regular file")
                time.sleep(0.05)
            os.set_blocking(fd, True)
        def binary() -> bool:  # a NUL read, in a file that is not UTF-16 text
            return bool(chunks) and b"\x00" in chunks[-1] and not chunks[0].startswith((UTF16_LE_BOM, UTF16_BE_BOM))

        while not binary():
            if size > limit:
                raise fail(too_large)
            chunk = os.read(fd, _CHUNK_BYTES)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit and not binary():
            raise fail(too_large)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if data.startswith((UTF16_LE_BOM, UTF16_BE_BOM)):
        return data
    nul = data.find(b"\x00")
    return data if nul < 0 else data[: nul + 1]


def current_umask() -> int:
    """The process's file mode creation mask (``umask``), read without changing it.

    Returns
    -------
    int
        The mask, e.g. ``0o022``; a file written atomically gets ``0o666 & ~current_umask()``, the mode
        ``open()`` would have given it (POSIX ``umask(2)``; a temporary file starts at ``0o600``).
    """
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_writer(path, mode: str = "wb", *, encoding: str | None = None, newline: str | None = None,
                  replace: bool = True, replace_hint: str = "pass overwrite=True"):
    """Open a temporary file beside ``path``; rename it over ``path`` when the block ends without error.

    Parameters
    ----------
    path : path
        Target file; its folder is created when missing.
    mode : str
        ``"wb"`` or ``"w"``.
    encoding, newline : str, optional
        For text mode (default UTF-8).
    replace : bool
        Replace an existing ``path`` (default). False: the finished file is put in place with a hard link,
        which fails when ``path`` exists by then, so of two writers started at once without overwrite the
        second gets :class:`OutputExistsError` instead of silently replacing the first's file (break-it s26
        F9); on a file system without hard links, an existence check and a rename.
    replace_hint : str
        How the caller replaces a file, for that error's message (``"pass --force"`` on the command line).

    Yields
    ------
    file object

    Raises
    ------
    OutputIsAFolderError
        When ``path`` is an existing folder (nothing is written); also an ``IsADirectoryError``.
    OutputWriteError
        When the folder cannot be made or written to (no permission, a file where a folder is needed, a full
        disk): the message names ``path``, not the temporary file; also an ``OSError``
        (:func:`output_write_error`).
    OutputExistsError
        ``replace`` is False and ``path`` exists when the file is finished (nothing is changed).
    """
    target = Path(path)
    if target.is_dir():
        raise OutputIsAFolderError(f"{target} is a folder; give a file name")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as exc:
        raise output_write_error(target, exc) from exc
    try:
        if "b" in mode:
            fh = os.fdopen(fd, mode)
        else:
            fh = os.fdopen(fd, mode, encoding=encoding or "utf-8", newline=newline)
        with fh:
            yield fh
        os.chmod(tmp, 0o666 & ~current_umask())
        if replace:
            os.replace(tmp, target)
        else:
            _link_new(tmp, target, replace_hint)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError) and not isinstance(exc, OutputWriteError) and (
                exc.filename in (tmp, str(target)) or (exc.filename is None and exc.errno == errno.ENOSPC)):
            raise output_write_error(target, exc) from exc  # the OS error named the temporary file
        raise


def check_output_file(path, overwrite: bool, *, replace_hint: str = "pass overwrite=True") -> Path:
    """The check every writer makes before writing the file ``path``: a folder there is refused first (even
    with ``overwrite``: it is never replaced by a file), then an existing file unless ``overwrite``.

    Parameters
    ----------
    path : path
        The output file.
    overwrite : bool
        Replace an existing file.
    replace_hint : str
        How the caller replaces a file, for the message (``"pass --force"`` on the command line).

    Returns
    -------
    Path
        ``path`` as a Path.

    Raises
    ------
    OutputIsAFolderError
        ``path`` is a folder (also an ``IsADirectoryError``).
    OutputExistsError
        ``path`` exists and ``overwrite`` is false (also a ``FileExistsError``).
    """
    p = Path(path)
    if p.is_dir():
        raise OutputIsAFolderError(f"{p} is a folder; give a file name")
    if p.exists() and not overwrite:
        raise OutputExistsError(f"{p} exists; {replace_hint} to replace it")
    return p


def output_write_error(target, exc: OSError) -> OutputWriteError:
    """The :class:`~ldraw_data.errors.OutputWriteError` for an ``OSError`` met writing ``target``.

    Parameters
    ----------
    target : path
        The file the caller asked for (not a temporary file beside it).
    exc : OSError
        What the OS said (``errno`` chooses the hint).

    Returns
    -------
    OutputWriteError
        Message ``cannot write TARGET: <reason>; <what to do>``; ``errno`` and ``filename`` (= ``target``)
        set, so code reading them as for any ``OSError`` keeps working.
    """
    _errno = errno
    target = Path(target)
    code = exc.errno
    if code in (_errno.EACCES, _errno.EPERM, _errno.EROFS):
        why = "permission denied" if code != _errno.EROFS else "read-only file system"
        hint = "choose a folder you can write to"
    elif code in (_errno.ENOTDIR, _errno.EEXIST):
        above = next((p for p in target.parents if p.exists() and not p.is_dir()), None)
        why = f"{above} is a file, not a folder" if above is not None else "a path above it is not a folder"
        hint = "choose a file name in a folder"
    elif code == _errno.ENOSPC:
        why, hint = "no space left on the device", "free some space or choose another disk"
    else:
        why, hint = (exc.strerror or str(exc)).lower(), "choose another output path"
    err = OutputWriteError(f"cannot write {target}: {why}; {hint}")
    err.errno, err.strerror, err.filename = code, exc.strerror, str(target)
    return err


def read_input_text(path, *, give: str) -> str:
    """The text of a UTF-8 input file (a byte order mark is dropped), or one clear error.

    Parameters
    ----------
    path : path
        The file given as input (a prompts file, a CSV map, a build.py).
    give : str
        What the caller expects, for the hint, e.g. ``"a text file, one prompt a line"``.

    Returns
    -------
    str
        The decoded text.

    Raises
    ------
    InputNotFoundError
        When ``path`` does not exist (also a ``FileNotFoundError``).
    InputReadError
        When it is a folder, cannot be read, holds a NUL byte (a binary file), is not UTF-8 (UTF-16 text
        included: these inputs are read as UTF-8 only, unlike LDraw files) or is larger
        than the input size limit (:func:`read_input_bytes`); the message names ``path`` with the line of
        the first bad byte and what to do (also an ``OSError``).
    """
    p = Path(path)
    if not p.exists():
        raise InputNotFoundError(f"{p}: no such file; give {give}")
    if p.is_dir():
        raise InputReadError(f"{p} is a folder; give {give}")
    try:
        data = read_input_bytes(p)
    except InputReadError:
        raise
    except OSError as exc:
        raise InputReadError(f"{p}: cannot read file: {(exc.strerror or str(exc)).lower()}; give {give}") from exc
    line_of = lambda offset: data.count(b"\n", 0, offset) + 1  # noqa: E731 - 1-based line of a byte offset
    if data.startswith((UTF16_LE_BOM, UTF16_BE_BOM)):
        raise InputReadError(f"{p}:1: UTF-16 text (it starts with a UTF-16 byte-order mark); save it as UTF-8")
    nul = data.find(b"\x00")
    if nul >= 0:
        raise InputReadError(f"{p}:{line_of(nul)}: binary data (a NUL byte), not text; give {give}")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputReadError(f"{p}:{line_of(exc.start)}: not UTF-8 text (byte {exc.start}); save it as UTF-8") from None


def _link_new(tmp: str, target: Path, replace_hint: str) -> None:
    """Put the finished temporary file ``tmp`` at ``target`` only if nothing is there (:func:`atomic_writer`
    with ``replace=False``): ``os.link`` fails atomically on an existing name; ``tmp`` is then removed."""
    try:
        os.link(tmp, target)
    except FileExistsError:
        raise OutputExistsError(f"{target} exists; {replace_hint} to replace it") from None
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK):
            raise
        if os.path.lexists(target):  # no hard links here (some FUSE and network file systems)
            raise OutputExistsError(f"{target} exists; {replace_hint} to replace it") from None
        os.replace(tmp, target)
        return
    os.unlink(tmp)


def atomic_write(path, data: bytes | str, *, replace: bool = True, replace_hint: str = "pass overwrite=True") -> Path:
    """Write bytes or text (UTF-8, ``\\n`` line ends) to ``path`` atomically; returns the path.

    ``replace`` and ``replace_hint`` as for :func:`atomic_writer` (False: an existing ``path`` raises
    :class:`OutputExistsError`, checked atomically when the file is put in place)."""
    if isinstance(data, str):
        with atomic_writer(path, "w", newline="\n", replace=replace, replace_hint=replace_hint) as fh:
            fh.write(data)
    else:
        with atomic_writer(path, "wb", replace=replace, replace_hint=replace_hint) as fh:
            fh.write(data)
    return Path(path)


def discard_cache_file(path, kind: str, reason) -> None:
    """Log that a cache file is unreadable and remove it, so that the caller rebuilds it.

    Parameters
    ----------
    path : path
        The cache file.
    kind : str
        What it caches, for the message (``"mesh"``, ``"collision shape"``, ...).
    reason : Exception or str
        What was wrong with it (a truncated archive, a bad header, sizes that disagree).

    Every reader of the cache folder (``ldraw_data.library.cache_dir()``) calls this on any
    failure to decode a file; a file that is merely missing is not reported. Removing it is
    best effort: when that fails too, the rebuilt file replaces it (atomically) anyway.
    """
    log.warning("%s cache file %s is unreadable (%s); discarded, it is rebuilt", kind, path, reason)
    with contextlib.suppress(OSError):
        os.unlink(path)
