"""Run many prompts and compute the BrickWright paper's metrics per run and overall.

Metrics per run: valid (no collisions, nothing floating), collision-free, floater-free, connected components,
parts, unique part ids, validate calls, tool calls, time, tokens and cost, finalized, stop reason. Overall: the
three rates (fraction of runs) and the means of the rest. Written to ``metrics.json`` and ``metrics.csv``
(one row per run plus an ``OVERALL`` row).
"""

from __future__ import annotations

__all__ = ["EvalResult", "evaluate", "read_prompts", "run_row", "failed_row", "RUN_FIELDS"]

import csv
import json
import logging
from dataclasses import dataclass
from pathlib import Path
from statistics import fmean
from typing import Any, Callable

from .errors import BrickWrightValueError, RunFolderExistsError
from .providers import Provider, resolve_provider
from .rows import RUN_FIELDS, failed_row, run_row
from .run import DEFAULT_MAX_CALLS, DEFAULT_MAX_VALIDATE, Progress, _slug
from .worker import DEFAULT_MEMORY_LIMIT, DEFAULT_TIME_LIMIT, Worker

logger = logging.getLogger(__name__)

@dataclass
class EvalResult:
    """Metrics of an evaluation.

    Attributes
    ----------
    runs : list of dict
        One dict per prompt with the keys of :data:`RUN_FIELDS`.
    overall : dict
        ``runs``, ``valid_rate``, ``collision_free_rate``, ``floater_free_rate``, ``finalized_rate`` (fractions
        in [0, 1]) and ``mean_components``, ``mean_parts``, ``mean_unique_parts``, ``mean_validate_calls``,
        ``mean_tool_calls``, ``mean_seconds``, ``mean_tokens``, ``total_tokens``, ``total_cost_usd``,
        ``mean_cost_usd``.
    json_path, csv_path : pathlib.Path
    """

    runs: list[dict[str, Any]]
    overall: dict[str, Any]
    json_path: Path
    csv_path: Path


def read_prompts(path: str | Path) -> list[str]:
    """Prompts from a text file: one per line; blank lines and lines starting with ``#`` are skipped.

    Raises
    ------
    FileNotFoundError
        When the file does not exist.
    ValueError
        When it holds no prompt.
    """
    p = Path(path)
    prompts = [ln.strip() for ln in p.read_text(encoding="utf-8").splitlines()
               if ln.strip() and not ln.lstrip().startswith("#")]
    if not prompts:
        raise BrickWrightValueError(f"{p}: no prompts (one per line; '#' starts a comment)")
    return prompts


def _mean(values: list[Any]) -> float | None:
    vals = [float(v) for v in values if v is not None and v != ""]
    return round(fmean(vals), 4) if vals else None


def summarize(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Overall metrics of per-run dicts (see :class:`EvalResult`)."""
    n = len(runs)
    rate = lambda key: round(sum(bool(r[key]) for r in runs) / n, 4) if n else None  # noqa: E731
    tokens = [(r["prompt_tokens"] or 0) + (r["completion_tokens"] or 0) for r in runs]
    return {
        "runs": n, "valid_rate": rate("valid"), "collision_free_rate": rate("collision_free"),
        "floater_free_rate": rate("floater_free"), "finalized_rate": rate("finalized"),
        "mean_components": _mean([r["components"] for r in runs]), "mean_parts": _mean([r["parts"] for r in runs]),
        "mean_unique_parts": _mean([r["unique_parts"] for r in runs]),
        "mean_validate_calls": _mean([r["validate_calls"] for r in runs]),
        "mean_tool_calls": _mean([r["tool_calls"] for r in runs]), "mean_seconds": _mean([r["seconds"] for r in runs]),
        "mean_tokens": _mean(tokens), "total_tokens": sum(tokens),
        "total_cost_usd": round(sum(r["cost_usd"] or 0 for r in runs), 6),
        "mean_cost_usd": _mean([r["cost_usd"] for r in runs]),
    }


def evaluate(prompts_file: str | Path, *, model: str | None = None, base_url: str | None = None,
             api_key: str | None = None, out_dir: str | Path | None = None, max_calls: int = DEFAULT_MAX_CALLS,
             max_validate: int = DEFAULT_MAX_VALIDATE, budget_usd: float | None = None,
             progress: Callable[[int, Progress], None] | None = None, time_limit: float = DEFAULT_TIME_LIMIT,
             memory_limit: int = DEFAULT_MEMORY_LIMIT, provider: Provider | None = None, sandbox: bool = True,
             force: bool = False, workers: int = 1, ray_address: str | None = None) -> EvalResult:
    """Run :func:`~.run.generate` on every prompt of a file and write the metrics.

    Parameters
    ----------
    prompts_file : path
        One prompt per line (see :func:`read_prompts`).
    model, base_url, api_key, max_calls, max_validate, time_limit, memory_limit, provider
        As for :func:`~.run.generate`, applied to each run.
    budget_usd : float, optional
        Cost budget per run, USD.
    out_dir : path, optional
        Folder for the run folders (``run_001-<slug>``...) and the metrics; default ``./brickwright_eval``.
    progress : callable, optional
        Called as ``progress(run_index, Progress)``.
    sandbox : bool, default True
        Run the model's code in the OS sandbox (False: process limits only).
    force : bool, default False
        Replace runs and metrics already in ``out_dir``.
    workers : int, default 1
        Runs at once. Each run has its own sandboxed worker and run folder, so its result does not depend on
        the others; rows are written in prompt order either way. The model calls wait on the network, so a
        few workers per core pay off; each worker costs a Python process (about 300 MB).
    ray_address : str, optional
        Run on a Ray cluster instead (the ``ray`` extra): ``HOST:PORT`` of its head node, ``ray://HOST:PORT``
        (Ray Client), ``auto`` (the cluster started on this machine with ``ray start``) or ``local`` (a Ray
        instance started for this evaluation). Each run is one Ray task of one CPU doing what a local worker
        does; the task sends the run folder back and this process writes it under ``out_dir``, so the nodes
        need no shared disk (see :mod:`~.cluster`). ``workers`` is then not used.

    Returns
    -------
    EvalResult
        The metrics are the judge's verdicts (:mod:`~.judge`), never what the model's code reported.

    Raises
    ------
    ProviderNotConfiguredError
        Before any run, when no provider is configured.
    RunFolderExistsError
        ``out_dir`` already holds runs or metrics and ``force`` is false (nothing is written).
    SandboxUnavailableError
        No sandbox can be set up and ``sandbox`` is true.
    RayClusterError
        ``ray_address`` is given and Ray is not installed, the address is malformed or unreachable, or the
        cluster's nodes cannot import the toolkit.
    """
    prompts = read_prompts(prompts_file)
    if ray_address is not None:  # before anything is written: Ray installed, the address well-formed and open
        from .cluster import check_address, import_ray

        import_ray()
        check_address(ray_address)
    provider = provider or resolve_provider(model, base_url, api_key)
    root = Path(out_dir or "brickwright_eval").resolve()
    held = sorted([p.name for p in root.glob("run_*")] + [p.name for p in root.glob("metrics.*")]) \
        if root.is_dir() else []
    if held and not force:
        raise RunFolderExistsError(f"--out {root} already holds an evaluation ({', '.join(held[:3])}"
                                   f"{' ...' if len(held) > 3 else ''}); choose another folder or pass --force "
                                   "to replace it")
    if sandbox and ray_address is None:  # on Ray, each node checks its own sandbox
        from .sandbox import SandboxUnavailableError, sandbox_problem

        problem = sandbox_problem()
        if problem:
            raise SandboxUnavailableError(f"refusing to run model code without a sandbox: {problem}; pass "
                                          "--no-sandbox to run it with process limits only")
    settings = dict(max_calls=max_calls, max_validate=max_validate, budget_usd=budget_usd, time_limit=time_limit,
                    memory_limit=memory_limit, sandbox=sandbox, force=force)
    jobs = [(i, prompt, root / f"run_{i:03d}-{_slug(prompt, 24)}") for i, prompt in enumerate(prompts, 1)]

    def one(i: int, prompt: str, run_dir: Path, worker: Worker | None) -> dict[str, Any]:
        cb = (lambda ev, i=i: progress(i, ev)) if progress else None
        return run_row(i, prompt, run_dir, settings, provider, worker=worker, progress=cb)

    if ray_address is not None:  # nothing is written before the cluster has passed its start-up check
        from .cluster import run_on_ray

        runs = run_on_ray(ray_address, jobs, settings, provider, progress=progress)
    elif workers <= 1:
        root.mkdir(parents=True, exist_ok=True)
        with Worker(time_limit=time_limit, memory_limit=memory_limit, sandbox=sandbox) as worker:
            runs = [one(i, prompt, run_dir, worker) for i, prompt, run_dir in jobs]
    else:
        from concurrent.futures import ThreadPoolExecutor

        root.mkdir(parents=True, exist_ok=True)
        with ThreadPoolExecutor(max_workers=int(workers)) as pool:  # each run starts its own worker
            runs = list(pool.map(lambda job: one(*job, None), jobs))
    root.mkdir(parents=True, exist_ok=True)
    overall = summarize(runs)
    json_path, csv_path = root / "metrics.json", root / "metrics.csv"
    json_path.write_text(json.dumps({"overall": overall, "runs": runs}, indent=2), encoding="utf-8")
    with open(csv_path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=RUN_FIELDS)
        w.writeheader()
        w.writerows(runs)
        w.writerow({"index": "OVERALL", "prompt": "", "valid": overall["valid_rate"],
                    "collision_free": overall["collision_free_rate"], "floater_free": overall["floater_free_rate"],
                    "finalized": overall["finalized_rate"], "components": overall["mean_components"],
                    "parts": overall["mean_parts"], "unique_parts": overall["mean_unique_parts"],
                    "validate_calls": overall["mean_validate_calls"], "tool_calls": overall["mean_tool_calls"],
                    "seconds": overall["mean_seconds"], "cost_usd": overall["total_cost_usd"]})
    return EvalResult(runs, overall, json_path, csv_path)
