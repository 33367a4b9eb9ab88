"""Progress on the terminal for the command line: bars for the library's long work, status lines for agent runs.

The library reports progress through :func:`ldraw_data.progress.report` (unpacking the LDraw library,
meshing parts on a cold cache, planning an assembly order, step pictures). :func:`install` makes those
reports draw `rich <https://rich.readthedocs.io>`_ progress bars on standard error when it is a terminal;
when it is not (a pipe, a CI log) or with ``--quiet`` nothing is drawn, so logs get no ``\\r`` redraws.
:func:`event_line` prints an agent run's status: redrawn in place on a terminal, one plain line per event
otherwise.
"""

from __future__ import annotations

__all__ = ["install", "stderr_is_terminal", "event_line"]

import sys
from typing import Optional

_state = {"quiet": False, "progress": None, "tasks": {}}


def stderr_is_terminal() -> bool:
    """True when standard error is a terminal (a tty), where redrawn progress lines belong."""
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):  # closed or replaced stream
        return False


def _reporter(task: str, done: int, total: Optional[int]) -> None:
    """An :data:`ldraw_data.progress.Reporter` drawing one rich bar per task (a spinner when ``total`` is None)."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    prog = _state["progress"]
    if prog is None:
        prog = Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                        TimeElapsedColumn(), console=Console(stderr=True), transient=True)
        prog.start()
        _state["progress"] = prog
    tasks = _state["tasks"]
    tid = tasks.get(task)
    if tid is None:
        tid = tasks[task] = prog.add_task(task, total=total)
    prog.update(tid, completed=done, total=total)
    if total is not None and done >= total:  # finished: its bar goes; the next run of the task gets a new one
        prog.remove_task(tid)
        del tasks[task]
        if not tasks:
            stop()


def stop() -> None:
    """Stop drawing (the bars are transient: they vanish from the terminal)."""
    prog = _state["progress"]
    _state["progress"], _state["tasks"] = None, {}
    if prog is not None:
        prog.stop()


def install(quiet: bool = False) -> bool:
    """Draw the library's progress reports on standard error for the rest of the command.

    Parameters
    ----------
    quiet : bool
        ``--quiet``: draw nothing, and :func:`event_line` prints nothing.

    Returns
    -------
    bool
        True when bars will be drawn (standard error is a terminal and not quiet).
    """
    from ldraw_data.progress import set_reporter

    _state["quiet"] = quiet
    on = not quiet and stderr_is_terminal()
    set_reporter(_reporter if on else None)
    return on


def event_line(text: str, *, last: bool = False) -> None:
    """Print an agent run's status line on standard error.

    On a terminal the line is redrawn in place (``\\r``, padded to 150 characters) and ended by the
    ``last`` event; elsewhere each event is one plain line, with no ``\\r`` or padding; with ``--quiet``
    nothing is printed.
    """
    if _state["quiet"]:
        return
    text = text[:150]
    if stderr_is_terminal():
        sys.stderr.write("\r" + text.ljust(150) + ("\n" if last else ""))
    else:
        sys.stderr.write(text + "\n")
    sys.stderr.flush()
