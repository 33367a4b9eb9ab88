"""Progress of long operations, reported to whoever listens (the ``brickwright`` command line).

Library code calls :func:`report` at each step of work that can take more than a few seconds
(unpacking the LDraw library, meshing a model's parts, planning an assembly order, rendering step
pictures); nothing listens by default, so a report costs one context-variable lookup. A listener is
installed with :func:`reporting` (a context manager) or :func:`set_reporter`; the command line
installs one that draws progress bars on a terminal (:mod:`brickwright.progress`), none when its
output is not a terminal or with ``--quiet``.
"""

from __future__ import annotations

__all__ = ["report", "reporting", "set_reporter", "Reporter", "one_task"]

from contextlib import contextmanager
from contextvars import ContextVar
from typing import Callable, Iterator, Optional

#: A listener: called as ``reporter(task, done, total)``: ``task`` a short name of the work ("unpacking
#: the LDraw library"), ``done`` the units finished so far, ``total`` the units in all (None when not known).
Reporter = Callable[[str, int, Optional[int]], None]

_REPORTER: ContextVar[Reporter | None] = ContextVar("ldraw_data_progress_reporter", default=None)


def report(task: str, done: int, total: int | None = None) -> None:
    """Tell the listener, if any, that ``done`` of ``total`` units of ``task`` are finished.

    Call it with ``done=0`` when the work starts and ``done=total`` when it ends. A listener's
    exception is not caught: listeners must not raise.
    """
    r = _REPORTER.get()
    if r is not None:
        r(task, done, total)


def set_reporter(reporter: Reporter | None):
    """Install ``reporter`` (None: nobody listens) in the current context; returns the token to
    restore the one before (``contextvars.ContextVar.reset``)."""
    return _REPORTER.set(reporter)


@contextmanager
def reporting(reporter: Reporter | None) -> Iterator[None]:
    """Within the ``with`` block, :func:`report` calls go to ``reporter``."""
    token = _REPORTER.set(reporter)
    try:
        yield
    finally:
        _REPORTER.reset(token)


@contextmanager
def one_task(task: str) -> Iterator[None]:
    """Report ``task`` as one piece of work of unknown length: :func:`report` ``(task, 0, None)`` when the
    ``with`` block starts (a spinner on a terminal, :mod:`brickwright.progress`) and ``(task, 1, 1)`` when
    it ends, also on an error. For one-time builds of a cache that take seconds and have no natural unit
    count (the LDCad snap table, the hose segment joints)."""
    report(task, 0, None)
    try:
        yield
    finally:
        report(task, 1, 1)
