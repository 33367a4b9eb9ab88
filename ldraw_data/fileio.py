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

__all__ = ["atomic_writer", "atomic_write", "discard_cache_file", "current_umask"]

import contextlib
import logging
import os
import tempfile
from pathlib import Path
from .errors import OutputIsAFolderError

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
    IsADirectoryError
        When ``path`` is an existing folder (nothing is written).
    """
    target = Path(path)
    if target.is_dir():
        raise OutputIsAFolderError(f"{target} is a folder; give a file name")
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        if "b" in mode:
            fh = os.fdopen(fd, mode)
        else:
            fh = os.fdopen(fd, mode, encoding=encoding or "utf-8", newline=newline)
        with fh:
            yield fh
        os.chmod(tmp, 0o666 & ~current_umask())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


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
