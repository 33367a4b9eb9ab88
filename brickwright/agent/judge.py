"""The verdict on a build, computed where the judged code never runs.

Model-written ``build.py`` runs in the sandboxed worker (:mod:`.worker`); what leaves it is data: the build as
LDraw text and the code's own test results. The fixed checks (collisions, floating parts, connected components,
unknown parts, sub-parts and primitives placed as parts, scaled parts, unreadable lines, parts the text embeds
instead of taking from the library) run here, on that text only, in :class:`Judge`, a separate warm process
that imports no model code and executes none (``brickwright.agent._judge``). Whatever the code patches in its
own process, the verdict is the validator's on exactly the text that is exported as ``model.ldr``.
"""

from __future__ import annotations

__all__ = ["judge_ldraw", "judge_report", "Judge", "JUDGE_TIME_LIMIT", "JUDGE_MEMORY_LIMIT", "MAX_LDRAW_BYTES"]

from typing import Any

from .worker import Worker

#: Seconds one verdict may take (the 5,247-part Millennium Falcon takes about 2 s).
JUDGE_TIME_LIMIT = 300.0
#: Bytes of address space for the judge process.
JUDGE_MEMORY_LIMIT = 8 * 1024**3
#: Largest LDraw text accepted from a build (about 1.3 million part lines); a bigger one is not judged.
MAX_LDRAW_BYTES = 100 * 1024**2


def _cite_source_lines(build, lines: dict, source: str) -> None:
    """Give the placements of ``build`` (read back from the worker's LDraw text) the ``source`` line that made
    them: ``lines`` maps an index path (``"3"``, ``"1/0"``: :func:`brickwright.agent._child.placement_lines`)
    to a 1-based line. :meth:`bricklayer.LegoBuild.citation` then names them ``build.py:12``. A path that does
    not lead to a placement (a text that does not mirror the build) is skipped: lines are only citations, the
    verdict never reads them."""
    from bricklayer import LegoBuild

    for key, line in lines.items():
        if not isinstance(key, str) or not isinstance(line, int) or isinstance(line, bool) or line < 1:
            continue
        b, pl = build, None
        for part in key.split("/"):
            if not isinstance(b, LegoBuild) or not part.isdigit() or int(part) >= len(b._placements):
                pl = None
                break
            pl = b._placements[int(part)]
            b = pl.content
        if pl is not None:
            pl.origin = (source, line)


def judge_report(text: str, *, source: str = "build.py", keep_lines: bool = False,
                 inventory=None, lines: dict | None = None) -> dict[str, Any]:
    """The full validation report on a build given as LDraw text (no code is run).

    Parameters
    ----------
    text : str
        The build as LDR or MPD text (``bricklayer.to_ldraw``), as the worker returned it.
    source : str
        Name shown in the summary line.
    keep_lines : bool
        Keep ``[file:line]`` citations of the text (off: the author wrote Python, not this text).
    inventory : bricklayer.Inventory, optional
        Parts the build may use; each part and colour used beyond it is a problem (``over_inventory``) and the
        build is not valid (issue 20: builds limited to a given set of bricks).
    lines : dict, optional
        Index path (``"3"``, ``"1/0"``) -> line of ``source`` that made that placement, as the worker records
        them (:func:`brickwright.agent._child.placement_lines`): problems cite ``build.py:12`` instead of
        ``#3`` (break-it report s25 F12). Only citations; the verdict does not depend on them.

    Returns
    -------
    dict
        :func:`brickwright.validation.validation_report` of the text, with ``build`` (the LegoBuild read from
        it) and ``embedded_parts`` (part files the text defines itself: not catalog parts, so not valid);
        ``valid`` is :attr:`bricklayer.validate.report.ValidationReport.valid` (false for a build with no parts).

    Raises
    ------
    LDrawError
        When the text cannot be read at all (the reader's limits on nesting and size included).
    """
    from bricklayer import from_ldraw

    from brickwright.validation import add_inventory_check, report_of

    build = from_ldraw(text, source=source)
    embedded = sorted({name for b in [build, *build.sub_builds()] for name, _t in b.embedded_files.values()})
    if not keep_lines:
        for b in [build, *build.sub_builds()]:
            for pl in b.placements:
                pl.origin = None
            b.embedded_file_lines = {}  # lines of the generated text: nothing the author wrote
        if lines:
            _cite_source_lines(build, lines, source)
    report = report_of(build, source=source)
    report.embedded_parts = embedded
    if embedded:
        report.problems += [
            f"EMBEDDED PART FILE {', '.join(embedded[:8])}{' ...' if len(embedded) > 8 else ''}: the build "
            "defines its own part geometry instead of taking it from the LDraw library",
            "  try: use catalog parts only (`brickwright search`); write no 0 FILE blocks of parts"]
    report.over_inventory = []
    if inventory is not None:
        add_inventory_check(report, build, inventory)
    rep = report.to_dict()  # valid: ValidationReport.valid, the one definition (embedded parts, no parts: not valid)
    rep["build"] = build
    return rep


def _failed_verdict(msg: str) -> dict[str, Any]:
    """A failing verdict in :func:`judge_ldraw`'s compact form whose one problem is ``msg``."""
    return {"passed": False, "collisions": 0, "floating": 0, "components": 0, "parts": 0, "unique_parts": 0,
            "unique_elements": 0, "embedded_parts": [], "problems": [msg], "text": msg}


def judge_ldraw(text: str, *, source: str = "build.py", inventory: dict | None = None,
                diagnostic: bool = False, lines: dict | None = None) -> dict[str, Any]:
    """The verdict on a build given as LDraw text, in the compact form the agent's report uses.

    Parameters
    ----------
    text : str
        The build as LDR or MPD text.
    source : str
        Name shown in the summary line.
    inventory : dict, optional
        :meth:`bricklayer.Inventory.to_json` of the parts the build may use.
    diagnostic : bool
        Also return ``diagnostic``: :func:`brickwright.validation.diagnostic_ldraw` files (name -> text).
    lines : dict, optional
        The build.py line of each placement, by index path (:func:`judge_report`'s ``lines``).

    Returns
    -------
    dict
        ``passed`` (the verdict, :func:`judge_report`'s ``valid``), ``collisions`` and ``floating`` (counts),
        ``components``, ``parts``, ``unique_parts``, ``unique_elements``, ``embedded_parts``, ``problems`` (one
        line each, with hints) and ``text`` (summary and problems). A text over :data:`MAX_LDRAW_BYTES` or one
        the reader refuses is not valid, its problem saying why. ``report``: the whole
        :func:`judge_report` (JSON-ready, without the build) for callers that print it all (``validate --json``).
    """
    from ldraw_data.errors import LDrawError

    def refused(msg: str) -> dict[str, Any]:
        out = _failed_verdict(msg)
        out["report"] = {**out, "valid": False, "source": source, "collisions": [], "floating": [],
                         "component_sizes": [], "unknown_parts": [], "not_parts": [], "scaled": [],
                         "unreadable_lines": []}
        return out

    if len(text) > MAX_LDRAW_BYTES:
        return refused(f"the build's LDraw text is {len(text) / 1e6:.0f} MB, over the "
                       f"{MAX_LDRAW_BYTES / 1e6:.0f} MB the judge reads; build fewer parts")
    try:
        inv = None
        if inventory is not None:
            from bricklayer.inventory import Inventory

            inv = Inventory.from_json(inventory)
        rep = judge_report(text, source=source, inventory=inv, lines=lines)
    except (LDrawError, ValueError) as exc:
        return refused(f"the build's LDraw text cannot be read: {exc}")
    build = rep.pop("build", None)
    extra = {}
    if diagnostic and build is not None:
        from brickwright.validation import diagnostic_ldraw

        extra["diagnostic"] = diagnostic_ldraw(build)
    return {**extra, "passed": rep["valid"], "collisions": len(rep["collisions"]), "floating": len(rep["floating"]),
            "components": rep["components"], "parts": rep["parts"], "unique_parts": rep["unique_parts"],
            "unique_elements": rep["unique_elements"], "embedded_parts": rep["embedded_parts"],
            "problems": rep["problems"], "text": rep["text"], "report": rep}


class Judge:
    """A warm process that computes verdicts with :func:`judge_ldraw` and nothing else.

    It runs no model or user code: its only request takes LDraw text. It is a separate process so that a
    hostile text (huge, deeply nested) costs its time and memory limits, never the harness.

    Parameters
    ----------
    time_limit : float, default :data:`JUDGE_TIME_LIMIT`
        Seconds per verdict, s.
    memory_limit : int, default :data:`JUDGE_MEMORY_LIMIT`
        Bytes of address space.
    """

    def __init__(self, *, time_limit: float = JUDGE_TIME_LIMIT, memory_limit: int = JUDGE_MEMORY_LIMIT):
        self._proc = Worker(time_limit=time_limit, memory_limit=memory_limit, sandbox=False, warm_up=False,
                            module="brickwright.agent._judge")
        try:
            self._proc.start()  # starts in the background, while the model writes its first build.py
        except BaseException:  # interrupted while starting: no process or scratch folder left behind
            self._proc.close()
            raise

    def judge(self, text: str, *, source: str = "build.py", inventory: dict | None = None,
              diagnostic: bool = False, lines: dict | None = None) -> dict[str, Any]:
        """The verdict on ``text`` (see :func:`judge_ldraw`; ``inventory`` and ``lines`` as there); on a time,
        memory or crash limit of the judge, a failing verdict whose ``problems`` say which."""
        res = self._proc.call("judge", ldraw=text, source=source, inventory=inventory, diagnostic=diagnostic,
                              lines=lines)
        data = dict(res.data)
        if not res.ok or data.get("error"):
            msg = "JUDGE " + ((data.get("error") or {}).get("text") or "failed").replace(
                "The build's process", "The judge")
            return {**_failed_verdict(msg), "judge_error": True}  # no ``report``: callers say "no verdict"
        return data["fixed"]

    def close(self) -> None:
        """Stop the judge process."""
        self._proc.close()

    def __enter__(self) -> "Judge":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
