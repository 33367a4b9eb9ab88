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

__all__ = ["atomic_writer", "atomic_write", "check_output_file", "read_input_text", "output_write_error", "discard_cache_file",
           "current_umask"]

import contextlib
import errno
import logging
import os
import tempfile
from pathlib import Path
from .errors import InputNotFoundError, InputReadError, OutputExistsError, OutputIsAFolderError, OutputWriteError

log = logging.getLogger(__name__)


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
def atomic_writer(path, mode: str = "wb", *, encoding: str | None = None, newline: str | None = None):
    """Open a temporary file beside ``path``; rename it over ``path`` when the block ends without error.

    Parameters
    ----------
    path : path
        Target file; its folder is created when missing.
    mode : str
        ``"wb"`` or ``"w"``.
    encoding, newline : str, optional
        For text mode (default UTF-8).

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
        os.replace(tmp, target)
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
        When it is a folder, cannot be read, holds a NUL byte (a binary file) or is not UTF-8; the message
        names ``path`` with the line of the first bad byte and what to do (also an ``OSError``).
    """
    p = Path(path)
    if not p.exists():
        raise InputNotFoundError(f"{p}: no such file; give {give}")
    if p.is_dir():
        raise InputReadError(f"{p} is a folder; give {give}")
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise InputReadError(f"{p}: cannot read file: {(exc.strerror or str(exc)).lower()}; give {give}") from exc
    line_of = lambda offset: data.count(b"\n", 0, offset) + 1  # noqa: E731 - 1-based line of a byte offset
    nul = data.find(b"\x00")
    if nul >= 0:
        raise InputReadError(f"{p}:{line_of(nul)}: binary data (a NUL byte), not text; give {give}")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputReadError(f"{p}:{line_of(exc.start)}: not UTF-8 text (byte {exc.start}); save it as UTF-8") from None


def atomic_write(path, data: bytes | str) -> Path:
    """Write bytes or text (UTF-8, ``\\n`` line ends) to ``path`` atomically; returns the path."""
    if isinstance(data, str):
        with atomic_writer(path, "w", newline="\n") as fh:
            fh.write(data)
    else:
        with atomic_writer(path, "wb") as fh:
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
