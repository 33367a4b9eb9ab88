"""Validation reports for people and agents: what is wrong, where, and what to try.

The report itself is bricklayer's one :class:`~bricklayer.validate.report.ValidationReport`, filled by
:func:`bricklayer.validate.validation_report` (:mod:`bricklayer.validate.findings`: every finding described,
every problem written as a line with a hint). This module formats it for ``brickwright validate`` and the
agent's ``validate`` tool (:func:`validation_report`: its JSON form), adds the inventory check, and writes the
diagnostic LDraw file, so both say the same thing the same way.
"""

from __future__ import annotations

__all__ = ["diagnostic_ldraw", "add_inventory_check", "validation_report", "report_of", "ValidationReport",
           "describe_placement", "unknown_placements", "MAX_LISTED"]

from bricklayer.validate.catalog_checks import unknown_placements  # noqa: E402  (re-exported: validate reports them)
from bricklayer.validate.findings import (MAX_COORDINATE_LDU, MAX_LISTED, describe_placement,  # noqa: F401
                                         instance_key as _instance_key)
from bricklayer.validate.report import ValidationReport  # noqa: E402  (the one report; this module formats it)

def validation_report(build, *, source: str = "build", expected_components: int | None = None) -> dict:
    """Validate a build and describe every problem with a hint: :func:`report_of` as JSON
    (:meth:`bricklayer.validate.report.ValidationReport.to_dict`).

    Parameters
    ----------
    build : LegoBuild
    source : str
        Name shown in the summary line.
    expected_components : int, optional
        When given, a different number of connected components is a problem.

    Returns
    -------
    dict
        ``valid`` (no collisions, nothing floating or below the ground, no unseated stud pairs,
        only catalog parts - no ``unknown_parts``, ``not_parts``, ``scaled``, ``mirrored`` or
        ``duplicates`` placements -, no ``unreadable_lines`` and the expected component count if
        given), ``parts``, ``unique_parts`` (distinct part ids), ``unique_elements`` (distinct part
        id and colour), ``collisions`` (list of {a, b, interference_ldu: how deep the material
        overlaps (None when drawn through each other: ``through``), move_ldu and direction: the
        shortest shift of b that clears it (``overlap_ldu`` the same, kept for old readers), mated,
        hint}), ``unexamined_pairs`` (candidate pairs not tested because a part already collides with
        :data:`bricklayer.constants.CROWDED_PARTNERS` others: parts drawn inside many others; 0 on real
        models), ``floating`` (list; a part already listed as ``scaled`` is not repeated here),
        ``below_ground`` (stray parts lying below the rest of the
        build, with ``below_ldu``), ``unseated`` ({a, b, reason "tilted" or "turned or shifted",
        value: degrees or LDU}), ``mirrored`` (with ``mirror_part``), ``duplicates`` (the second
        placement, citing the line where its path parts from the first, with ``same_as``),
        ``scaled`` (with ``singular_values``; citing the sub-model line that scales, if any),
        ``components`` (count), ``component_sizes``, ``unreadable_lines`` (list of {file, line, message}:
        part lines of the LDraw file the build was read from that could not be read, so the
        build lacks a part its file places; ``build.unreadable_lines`` of
        :func:`bricklayer.read_ldraw`), ``problems`` (one line each, with hints)
        and ``text`` (summary line plus problems). ``valid`` is
        :attr:`bricklayer.validate.report.ValidationReport.valid`, the one definition (an empty build is
        not valid).
    """
    return report_of(build, source=source, expected_components=expected_components).to_dict()


def report_of(build, *, source: str = "build", expected_components: int | None = None) -> ValidationReport:
    """Validate a build: the one :class:`~bricklayer.validate.report.ValidationReport`, every finding described
    (:func:`describe_placement`) and every problem written as a line with a hint. Parameters as
    :func:`validation_report` (``expected_components``: another count of components makes it not valid).

    Returns
    -------
    ValidationReport
        :func:`bricklayer.validate.validation_report`; its
        :meth:`~bricklayer.validate.report.ValidationReport.to_dict` is :func:`validation_report`.
    """
    from bricklayer.validate import validation_report as _report

    return _report(build, source=source, expected_components=expected_components)


#: LDraw colour codes of the diagnostic file (LDConfig.ldr): colliding parts red, floating parts yellow, the
#: rest light bluish grey.
DIAGNOSTIC_COLOURS = {"colliding": 4, "floating": 14, "other": 71}


def diagnostic_ldraw(build) -> dict[str, str]:
    """LDraw files that show a build's problems in any LDraw viewer.

    Parameters
    ----------
    build : LegoBuild

    Returns
    -------
    dict of str to str
        ``"problems.ldr"``: every part, colliding parts red (4), floating parts yellow (14), the rest light
        bluish grey (71) (:data:`DIAGNOSTIC_COLOURS`); ``"components.mpd"``: one submodel per connected
        component, in their own colours, each shown in its own step of the main model (largest first), so a
        viewer pages through the separate pieces.
    """
    from bricklayer import Element, LegoBuild, to_ldraw

    flat = build.flattened_placements
    index = {_instance_key(fp): i for i, fp in enumerate(flat)}
    colliding = {index.get(_instance_key(p)) for pair in build.colliding_placements for p in pair}
    floating = {index.get(_instance_key(p)) for p in build.floating_placements}
    view = LegoBuild(name="problems.ldr")
    for i, fp in enumerate(flat):
        kind = "colliding" if i in colliding else "floating" if i in floating else "other"
        view.add_raw(Element(fp.content.ldraw_id, DIAGNOSTIC_COLOURS[kind]), fp.pose.matrix)
    comps = LegoBuild(name="components.mpd")
    for k, comp in enumerate(build.connected_components, start=1):
        sub = LegoBuild(name=f"component-{k}.ldr")
        for fp in comp:
            sub.add_raw(fp.content, fp.pose.matrix)
        comps.add_raw(sub, None, name=f"component-{k}")
    text = to_ldraw(comps)
    # a step after each component's line, so a viewer shows them one at a time
    lines = text.splitlines()
    out, in_main = [], True
    for ln in lines:
        if ln.startswith("0 FILE") and out:
            in_main = False
        out.append(ln)
        if in_main and ln.startswith("1 ") and "component-" in ln.lower():
            out.append("0 STEP")
    return {"problems.ldr": to_ldraw(view, title="problems: colliding red, floating yellow"),
            "components.mpd": "\n".join(out) + "\n"}


def add_inventory_check(rep, build, inventory) -> list[dict]:
    """Add to a report what the build uses beyond an inventory (issue 20).

    Parameters
    ----------
    rep : ValidationReport or dict
        A report of ``build`` (:func:`report_of`) or its JSON form (:func:`validation_report`); changed in
        place: ``over_inventory`` (the rows of :func:`bricklayer.inventory_problems`), and when there are any,
        ``OVER INVENTORY`` problem lines (at most :data:`MAX_LISTED`, then a count and a hint) in ``problems``;
        for a dict ``valid`` and ``text`` are recomputed by :class:`ValidationReport` (the one definition).
    build : LegoBuild
    inventory : bricklayer.Inventory

    Returns
    -------
    list of dict
        The rows beyond the inventory (empty when it holds everything the build uses).
    """
    from bricklayer.inventory import inventory_problems

    report = rep if isinstance(rep, ValidationReport) else ValidationReport.from_dict(rep)
    over = inventory_problems(build, inventory)
    report.over_inventory = over
    if over:
        lines = [f"OVER INVENTORY {o['part_id']} colour {o['color']}: uses {o['used']}, the inventory "
                 f"({inventory.source}) has {o['available']}" for o in over[:MAX_LISTED]]
        if len(over) > MAX_LISTED:
            lines.append(f"... and {len(over) - MAX_LISTED} more parts beyond the inventory")
        lines.append("  try: use only parts and colours the inventory holds (listed in the prompt), or fewer")
        report.problems = report.problems + lines
    if not isinstance(rep, ValidationReport):
        rep.update(over_inventory=over, problems=report.problems, valid=report.valid, text=report.text)
    return over
