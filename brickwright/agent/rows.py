"""One run of an evaluation as a metrics row, wherever it runs (the serial loop and the local pool of
:mod:`.evaluate`, a Ray task of :mod:`.cluster`); below both, so neither imports the other for it.
"""

from __future__ import annotations

__all__ = ["RUN_FIELDS", "run_row", "failed_row"]

import logging
from pathlib import Path
from typing import Any, Callable

from .errors import BrickWrightError
from .providers import Provider
from .run import Progress, generate
from .worker import Worker

logger = logging.getLogger(__name__)

#: Columns of metrics.csv, in order.
RUN_FIELDS = ["index", "prompt", "run_dir", "finalized", "stop_reason", "valid", "collision_free", "floater_free",
              "components", "parts", "unique_parts", "validate_calls", "tool_calls", "turns", "seconds",
              "prompt_tokens", "completion_tokens", "cost_usd", "error"]



def run_row(i: int, prompt: str, run_dir: Path, settings: dict[str, Any], provider: Provider, *,
            worker: Worker | None = None, progress: Callable[[Progress], None] | None = None) -> dict[str, Any]:
    """One run of an evaluation as a metrics row: :func:`~.run.generate` into ``run_dir``, errors caught.

    The same function serves the serial loop, the local pool and a Ray task (:mod:`~.cluster`), so a run's
    row does not depend on where it ran.

    Parameters
    ----------
    i : int
        The prompt's 1-based index in the prompts file.
    prompt : str
    run_dir : pathlib.Path
        The run folder to write.
    settings : dict
        ``max_calls``, ``max_validate``, ``budget_usd``, ``time_limit`` (s), ``memory_limit`` (bytes),
        ``sandbox``, ``force``: keyword arguments of :func:`~.run.generate`.
    provider : Provider
    worker : Worker, optional
        A warm worker to reuse; None starts one for this run.
    progress : callable, optional
        Called with each :class:`~.run.Progress` of the run.

    Returns
    -------
    dict
        The keys of :data:`RUN_FIELDS`. A :class:`~.errors.BrickWrightError` of the run (no sandbox, run
        folder taken, provider failure before the first turn) becomes a failed row with ``error`` set.
    """
    try:
        res = generate(prompt, out_dir=run_dir, provider=provider, worker=worker, progress=progress, **settings)
    except BrickWrightError as exc:
        logger.warning("run %d failed: %s", i, exc)
        return failed_row(i, prompt, run_dir, str(exc))
    row: dict[str, Any] = {k: None for k in RUN_FIELDS}
    row.update(index=i, prompt=prompt, run_dir=str(run_dir), error="")
    d = res.to_dict()
    row.update({k: d[k] for k in RUN_FIELDS if k in d})
    return row


def failed_row(i: int, prompt: str, run_dir: Path | str, error: str) -> dict[str, Any]:
    """The metrics row of a run that could not run: nothing valid, no calls, no tokens, no cost, ``error`` set
    (one line saying why). Keys of :data:`RUN_FIELDS`; the rest None."""
    row: dict[str, Any] = {k: None for k in RUN_FIELDS}
    row.update(index=i, prompt=prompt, run_dir=str(run_dir), finalized=False, valid=False, collision_free=False,
               floater_free=False, error=error, validate_calls=0, tool_calls=0, prompt_tokens=0,
               completion_tokens=0, cost_usd=0.0)
    return row
