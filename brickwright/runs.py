"""Run records: the agent runs kept in a folder, listed and shown (``brickwright runs``).

A run folder (``generate --out``, or ``brickwright_runs/<time>-<slug>``) holds ``result.json`` (the
:class:`~brickwright.agent.run.RunResult`), ``transcript.jsonl`` (its first record, ``run_start``, has the
prompt) and ``snapshots/validate-NNN/`` (each validate's ``build.py``, ``report.txt``, ``problems.ldr`` and
``components.mpd``). Library code: returns data, prints nothing.
"""

from __future__ import annotations

__all__ = ["RunRecord", "list_runs", "find_run"]

import json
from dataclasses import dataclass, field
from pathlib import Path
from ldraw_data.errors import InputNotFoundError


@dataclass
class RunRecord:
    """One run folder's summary.

    Attributes
    ----------
    id : str
        The folder's name.
    path : Path
    prompt, model, status : str
        ``status``: ``valid`` / ``not valid`` (the judge's verdict on model.ldr) and the stop reason.
    parts : int or None
    cost_usd : float
    validate_calls : int
    snapshots : list of (str, str)
        (snapshot name, first line of its report), in order.
    """

    id: str
    path: Path
    prompt: str = ""
    model: str = ""
    status: str = ""
    parts: int | None = None
    cost_usd: float = 0.0
    validate_calls: int = 0
    snapshots: list = field(default_factory=list)

    def to_dict(self) -> dict:
        """JSON-ready dict."""
        return {"id": self.id, "path": str(self.path), "prompt": self.prompt, "model": self.model,
                "status": self.status, "parts": self.parts, "cost_usd": self.cost_usd,
                "validate_calls": self.validate_calls, "snapshots": [list(s) for s in self.snapshots]}


def _read(path: Path) -> RunRecord | None:
    res = path / "result.json"
    if not res.is_file():
        return None
    try:
        r = json.loads(res.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return RunRecord(path.name, path, status="unreadable result.json")
    prompt = ""
    try:
        with open(path / "transcript.jsonl", encoding="utf-8") as f:
            first = json.loads(f.readline() or "{}")
        prompt = str(first.get("prompt") or "")
    except (OSError, ValueError):
        pass
    snaps = []
    for s in sorted((path / "snapshots").glob("validate-*")):
        try:
            head = (s / "report.txt").read_text(encoding="utf-8").splitlines()[0]
        except (OSError, IndexError):
            head = ""
        snaps.append((s.name, head))
    return RunRecord(path.name, path, prompt=prompt, model=str(r.get("model") or ""),
                     status=f"{'valid' if r.get('valid') else 'not valid'}, {r.get('stop_reason', '?')}",
                     parts=r.get("parts"), cost_usd=float(r.get("cost_usd") or 0.0),
                     validate_calls=int(r.get("validate_calls") or 0), snapshots=snaps)


def list_runs(root: str | Path = "brickwright_runs") -> list[RunRecord]:
    """Every run folder directly under ``root`` (those holding a ``result.json``), newest name first.

    Raises
    ------
    FileNotFoundError
        When ``root`` is not a folder.
    """
    r = Path(root)
    if not r.is_dir():
        raise InputNotFoundError(f"{r}: no such folder of runs (give --root, e.g. the folder of generate --out)")
    return [rec for p in sorted(r.iterdir(), reverse=True) if p.is_dir() and (rec := _read(p)) is not None]


def find_run(run_id: str, root: str | Path = "brickwright_runs") -> RunRecord:
    """The run named ``run_id`` under ``root`` (a unique prefix of its folder name is enough), or the run folder
    ``run_id`` itself when it is a path.

    Raises
    ------
    FileNotFoundError
        No such run, or the prefix names several (the message lists them).
    """
    p = Path(run_id)
    if (p / "result.json").is_file():
        return _read(p)
    runs = [r for r in list_runs(root) if r.id.startswith(run_id)]
    if len(runs) != 1:
        names = ", ".join(r.id for r in runs[:5])
        raise InputNotFoundError(f"{run_id}: " + (f"matches several runs ({names})" if runs else
                                                 f"no run of that name under {root}"))
    return runs[0]
