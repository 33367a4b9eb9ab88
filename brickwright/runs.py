"""Run records: the agent runs kept in a folder, listed and shown (``brickwright runs``).

Every command that writes a run record is listed, each record with its kind (:data:`RUN_KINDS`):

- ``generate``: a run folder (``generate --out``, or ``brickwright_runs/<time>-<slug>``) holding
  ``result.json`` (the :class:`~brickwright.agent.run.RunResult`), ``transcript.jsonl`` (its first record,
  ``run_start``, has the prompt) and ``snapshots/validate-NNN/`` (each validate's ``build.py``, ``report.txt``,
  ``problems.ldr`` and ``components.mpd``).
- ``eval``: an evaluation folder (``eval --out``, default ``brickwright_eval``) holding ``metrics.json``
  (:func:`~brickwright.agent.evaluate.evaluate`), and ``eval run``: each of its ``run_NNN-<slug>`` run
  folders, written as a ``generate`` run is (locally or on Ray).
- ``tool``: a run folder of ``brickwright tool`` / ``brickwright mcp`` (``tool init``, MCP ``init_run``)
  holding ``build.py`` and ``work/``, from its first call ``.brickwright/state.json``
  (:mod:`brickwright.agent.runfolder`) and the same ``snapshots/``.

Library code: returns data, prints nothing.
"""

from __future__ import annotations

__all__ = ["RunRecord", "RUN_KINDS", "DEFAULT_RUN_ROOTS", "list_runs", "find_run"]

import json
from dataclasses import dataclass, field
from pathlib import Path
from ldraw_data.errors import InputNotFoundError

#: Kinds of run record, as :attr:`RunRecord.kind` names them (see the module docstring).
RUN_KINDS = ("generate", "eval", "eval run", "tool")
#: Folders ``brickwright runs`` reads when no ``--root`` is given: where ``generate`` and ``eval`` write by
#: default (relative to the current folder).
DEFAULT_RUN_ROOTS = ("brickwright_runs", "brickwright_eval")


@dataclass
class RunRecord:
    """One run folder's summary.

    Attributes
    ----------
    id : str
        The folder's name; for a run of an evaluation inside the folder listed, ``<eval folder>/<run folder>``.
    path : Path
    kind : str
        One of :data:`RUN_KINDS`: ``generate``, ``eval`` (a whole evaluation), ``eval run`` (one of its runs),
        ``tool`` (a ``brickwright tool`` / ``mcp`` run folder).
    prompt, model, status : str
        ``status``: ``valid`` / ``not valid`` (the judge's verdict on model.ldr) and the stop reason; for an
        ``eval``, the number of runs and the valid rate; for a ``tool`` run, ``finalized``, or the last
        validate's verdict. ``prompt`` of an ``eval``: its prompts, `` | `` between them.
    parts : int or None
        Parts of the final build (an ``eval``: the mean over its runs; a ``tool`` run: None).
    cost_usd : float
        USD (an ``eval``: the total over its runs).
    validate_calls : int
        (an ``eval``: the total over its runs)
    snapshots : list of (str, str)
        (snapshot name, first line of its report), in order.
    """

    id: str
    path: Path
    kind: str = "generate"
    prompt: str = ""
    model: str = ""
    status: str = ""
    parts: int | None = None
    cost_usd: float = 0.0
    validate_calls: int = 0
    snapshots: list = field(default_factory=list)

    def to_dict(self) -> dict:
        """JSON-ready dict."""
        return {"id": self.id, "path": str(self.path), "kind": self.kind, "prompt": self.prompt, "model": self.model,
                "status": self.status, "parts": self.parts, "cost_usd": self.cost_usd,
                "validate_calls": self.validate_calls, "snapshots": [list(s) for s in self.snapshots]}


def _snapshots(path: Path) -> list:
    """(name, first report line) of each ``snapshots/validate-NNN`` of a run folder, in order."""
    snaps = []
    for s in sorted((path / "snapshots").glob("validate-*")):
        try:
            head = (s / "report.txt").read_text(encoding="utf-8").splitlines()[0]
        except (OSError, IndexError, UnicodeDecodeError):
            head = ""
        snaps.append((s.name, head))
    return snaps


def _json(path: Path):
    """The JSON in ``path``, or None when it cannot be read as JSON."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _read(path: Path, kind: str = "generate", run_id: str | None = None) -> RunRecord | None:
    """The record of a ``generate`` (or ``eval run``) folder, None when it holds no ``result.json``."""
    res = path / "result.json"
    if not res.is_file():
        return None
    run_id = run_id or path.name
    r = _json(res)
    if not isinstance(r, dict):
        return RunRecord(run_id, path, kind, status="unreadable result.json")
    prompt = ""
    try:
        with open(path / "transcript.jsonl", encoding="utf-8") as f:
            first = json.loads(f.readline() or "{}")
        prompt = str(first.get("prompt") or "")
    except (OSError, ValueError, AttributeError):
        pass
    return RunRecord(run_id, path, kind, prompt=prompt, model=str(r.get("model") or ""),
                     status=f"{'valid' if r.get('valid') else 'not valid'}, {r.get('stop_reason', '?')}",
                     parts=r.get("parts"), cost_usd=float(r.get("cost_usd") or 0.0),
                     validate_calls=int(r.get("validate_calls") or 0), snapshots=_snapshots(path))


def _read_eval(path: Path) -> RunRecord:
    """The record of an evaluation folder (its ``metrics.json``: ``overall`` and one row per run)."""
    m = _json(path / "metrics.json")
    if not isinstance(m, dict) or not isinstance(m.get("overall"), dict):
        return RunRecord(path.name, path, "eval", status="unreadable metrics.json")
    o, rows = m["overall"], [r for r in m.get("runs") or () if isinstance(r, dict)]
    n = int(o.get("runs") or len(rows))
    return RunRecord(path.name, path, "eval", prompt=" | ".join(str(r.get("prompt") or "") for r in rows),
                     status=f"{n} run{'' if n == 1 else 's'}, {float(o.get('valid_rate') or 0):.0%} valid",
                     parts=None if o.get("mean_parts") is None else round(float(o["mean_parts"]), 1),
                     cost_usd=float(o.get("total_cost_usd") or 0.0),
                     validate_calls=sum(int(r.get("validate_calls") or 0) for r in rows))


def _read_tool(path: Path) -> RunRecord:
    """The record of a ``brickwright tool`` / ``mcp`` run folder (its ``.brickwright/state.json``)."""
    from .agent.runfolder import STATE_DIR

    st = _json(path / STATE_DIR / "state.json")
    if not isinstance(st, dict):
        st = {}
    last = st.get("last_validate") if isinstance(st.get("last_validate"), dict) else None
    status = ("finalized" if st.get("finalized") else "no validate yet" if last is None
              else f"last validate {'passed' if last.get('passed') else 'failed'}")
    return RunRecord(path.name, path, "tool", status=status, validate_calls=int(st.get("validate_calls") or 0),
                     snapshots=_snapshots(path))


def _records(folder: Path, prefix: str = "") -> list[RunRecord]:
    """Records of ``folder``, a folder listed: an evaluation (``eval``, then its runs), a ``generate`` run or a
    ``tool`` run folder; none for any other folder."""
    from .agent.runfolder import STATE_DIR

    if (folder / "metrics.json").is_file():
        rec = _read_eval(folder)
        rec.id = prefix + rec.id
        return [rec] + _eval_runs(folder, prefix + folder.name + "/")
    if (folder / "result.json").is_file():
        return [_read(folder, run_id=prefix + folder.name)]
    if (folder / "build.py").is_file() and ((folder / STATE_DIR).is_dir() or (folder / "work").is_dir()):
        # a tool run folder: `tool init` writes build.py and work/ (the sandbox's folder), the first call the state
        rec = _read_tool(folder)
        rec.id = prefix + rec.id
        return [rec]
    return []


def _eval_runs(folder: Path, prefix: str = "") -> list[RunRecord]:
    """The ``eval run`` records of an evaluation folder's ``run_NNN-<slug>`` folders, in prompt order."""
    out = []
    for p in sorted(folder.glob("run_*")):
        rec = _read(p, "eval run", prefix + p.name) if p.is_dir() else None
        if rec is not None:
            out.append(rec)
    return out


def _newest_first(folders: list[Path]) -> list[Path]:
    """Folders by the time their record was last written, newest first (then by name, newest first)."""
    def when(p: Path) -> float:
        times = [f.stat().st_mtime for f in (p / "metrics.json", p / "result.json", p / ".brickwright" / "state.json",
                                              p / "build.py") if f.is_file()]
        return max(times, default=0.0)

    return sorted(folders, key=lambda p: (when(p), p.name), reverse=True)


def list_runs(root: str | Path | None = None) -> list[RunRecord]:
    """Every run record under ``root``, of every kind (:data:`RUN_KINDS`), newest first.

    Parameters
    ----------
    root : path, optional
        The folder holding run folders (each listed: an evaluation, then its runs in prompt order), or an
        evaluation folder itself (its ``eval`` record, then its runs). Default: the folders of
        :data:`DEFAULT_RUN_ROOTS` that exist (``brickwright_runs`` then ``brickwright_eval``; ids of the
        second's records start with ``brickwright_eval``).

    Returns
    -------
    list of RunRecord
        Sorted by the time each record was last written (``result.json``, ``metrics.json``,
        ``.brickwright/state.json``), newest first.

    Raises
    ------
    InputNotFoundError
        When ``root`` is not a folder, or, with no ``root``, when none of :data:`DEFAULT_RUN_ROOTS` is (also a
        ``FileNotFoundError``).
    """
    if root is None:
        roots = [Path(r) for r in DEFAULT_RUN_ROOTS if Path(r).is_dir()]
        if not roots:
            raise InputNotFoundError(f"no {' or '.join(d + '/' for d in DEFAULT_RUN_ROOTS)} folder here (where "
                                     "generate and eval write); give --root, e.g. the folder of generate --out")
    else:
        roots = [Path(root)]
        if not roots[0].is_dir():
            raise InputNotFoundError(f"{roots[0]}: no such folder of runs (give --root, e.g. the folder of "
                                     "generate --out)")
    out: list[RunRecord] = []
    for r in roots:
        if (r / "metrics.json").is_file():  # an evaluation folder itself
            out += _records(r)
            continue
        for p in _newest_first([p for p in r.iterdir() if p.is_dir()]):
            out += _records(p)
    return out


def find_run(run_id: str, root: str | Path | None = None) -> RunRecord:
    """The run named ``run_id`` under ``root`` (a unique prefix of its folder name is enough), or the run folder
    ``run_id`` itself when it is a path.

    Raises
    ------
    FileNotFoundError
        No such run, or the prefix names several (the message lists them).
    """
    p = Path(run_id)
    if p.is_dir() and (recs := _records(p)):
        return recs[0]
    runs = list_runs(root)
    exact = [r for r in runs if r.id == run_id]
    runs = exact or [r for r in runs if r.id.startswith(run_id)]
    if len(runs) != 1:
        names = ", ".join(r.id for r in runs[:5])
        raise InputNotFoundError(f"{run_id}: " + (f"matches several runs ({names})" if runs else
                                                 f"no run of that name under "
                                                 f"{root or ' or '.join(DEFAULT_RUN_ROOTS)}"))
    return runs[0]
