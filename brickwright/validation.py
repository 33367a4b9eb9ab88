"""Validation reports for people and agents: what is wrong, where, and what to try.

Builds on the validator's three forms (``colliding_placements``,
``floating_placements``, ``connected_components``) and turns them into one
structured report with a readable text.
"""

from __future__ import annotations

__all__ = ["validation_report", "describe_placement"]


def describe_placement(build, fp) -> dict:
    """Facts about one flattened placement for a report.

    Returns
    -------
    dict
        ``part_id``, ``color``, ``name`` (name path or None), ``label``
        (human text), ``submodels`` (names of the sub-builds it sits in),
        ``file`` and ``line`` (LDraw source line when read from a file),
        ``position_ldu`` (world origin of the part, BrickLayer frame).
    """
    el = fp.content
    path = getattr(fp, "path", ())
    subs = [p.content.name for p in path[:-1] if getattr(p.content, "name", None)]
    origin = path[-1].origin if path else None
    pos = fp.pose.translation
    return {
        "part_id": el.ldraw_id,
        "color": int(el.color),
        "name": build.name_of(fp),
        "label": build.describe(fp),
        "submodels": subs,
        "file": origin[0] if origin else None,
        "line": origin[1] if origin else None,
        "position_ldu": [round(pos.x, 3), round(pos.y, 3), round(pos.z, 3)],
    }


def _where(d: dict) -> str:
    loc = f" [{d['file']}:{d['line']}]" if d.get("line") else ""
    sub = f" in {' > '.join(d['submodels'])}" if d["submodels"] else ""
    return f"{d['label']}{sub}{loc}"


def validation_report(build, *, source: str = "build", expected_components: int | None = None) -> dict:
    """Validate a build and describe every problem.

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
        ``valid`` (no collisions, nothing floating, and the expected component
        count if given), ``parts``, ``collisions`` (list of {a, b, overlap_ldu}),
        ``floating`` (list), ``components`` (count), ``component_sizes``,
        ``text`` (readable summary with hints).
    """
    try:
        from bricklayer.validate import collision_details as _cd

        details = _cd(build)
    except ImportError:
        details = None
    cols = []
    if details is not None:
        for d in details:
            cols.append({"a": describe_placement(build, d.a), "b": describe_placement(build, d.b),
                         "overlap_ldu": getattr(d, "depth_ldu", None)})
    else:
        for a, b in build.colliding_placements:
            cols.append({"a": describe_placement(build, a), "b": describe_placement(build, b), "overlap_ldu": None})
    floating = [describe_placement(build, p) for p in build.floating_placements]
    comps = build.connected_components
    sizes = [len(c) for c in comps]
    ok = not cols and not floating
    if expected_components is not None and len(comps) != expected_components:
        ok = False
    lines = [f"{source}: {build.brick_count} parts, {len(cols)} colliding pairs, {len(floating)} floating, "
             f"{len(comps)} connected component(s) -> {'VALID' if ok else 'NOT VALID'}"]
    for c in cols:
        ov = f" (overlap ~{c['overlap_ldu']:.2f} LDU)" if c["overlap_ldu"] else ""
        lines.append(f"  collision: {_where(c['a'])}  <->  {_where(c['b'])}{ov}")
    if cols:
        lines.append("    try: move one of the two parts by whole studs/plates, or mate them with connect()")
    for f in floating:
        lines.append(f"  floating: {_where(f)} at {f['position_ldu']} LDU")
    if floating:
        lines.append("    try: rest it on studs (stack/connect) or give it a part below that reaches the ground")
    if len(comps) > 1:
        lines.append(f"  components: {len(comps)} (sizes {sizes[:10]}{' ...' if len(sizes) > 10 else ''}); "
                     "parts only touching side by side are not connected: add a plate or brick across them")
    return {"source": source, "valid": ok, "parts": build.brick_count, "collisions": cols, "floating": floating,
            "components": len(comps), "component_sizes": sizes, "text": "\n".join(lines)}
