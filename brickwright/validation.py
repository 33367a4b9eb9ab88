"""Validation reports for people and agents: what is wrong, where, and what to try.

One formatter over the validator's data (:func:`bricklayer.validate.collision_details`,
``floating_placements``, ``connected_components``), used by ``brickwright validate`` and by
the agent's ``validate`` tool, so both say the same thing the same way.
"""

from __future__ import annotations

__all__ = ["validation_report", "describe_placement", "unknown_placements", "MAX_LISTED"]

from bricklayer.validate.collisions import unknown_placements  # noqa: E402  (re-exported: validate reports them)

#: Problems of one kind listed in full before "... and N more".
MAX_LISTED = 8


def describe_placement(build, fp) -> dict:
    """Facts about one flattened placement for a report.

    Parameters
    ----------
    build : LegoBuild
    fp : FlatPlacement

    Returns
    -------
    dict
        ``part_id``, ``color`` (code), ``name`` (name path or None), ``label``
        (``build.describe``: name or index path, part id, part name, colour),
        ``submodels`` (names of the sub-builds it sits in), ``file`` and ``line``
        (LDraw source line when the build was read from a file, else None),
        ``grid`` (alignment-box minimum corner in the units of ``LegoBuild.add``:
        studs, studs, plates) and ``size`` (studs, studs, plates).
    """
    el = fp.content
    path = getattr(fp, "path", ())
    subs = [p.content.name for p in path[:-1] if getattr(p.content, "name", None)]
    origin = path[-1].origin if path else None
    box = fp.alignment_box
    unit = (20.0, 20.0, 8.0)
    grid = [round(v / u, 2) for v, u in zip(box.min, unit)]
    size = [round((hi - lo) / u, 2) for lo, hi, u in zip(box.min, box.max, unit)]
    return {
        "part_id": el.ldraw_id,
        "color": int(el.color),
        "name": build.name_of(fp),
        "label": build.describe(fp),
        "submodels": subs,
        "file": origin[0] if origin else None,
        "line": origin[1] if origin else None,
        "grid": [int(g) if float(g).is_integer() else g for g in grid],
        "size": [int(s) if float(s).is_integer() else s for s in size],
    }


def _where(d: dict) -> str:
    loc = f" [{d['file']}:{d['line']}]" if d.get("line") else ""
    sub = f" in {' > '.join(d['submodels'])}" if d["submodels"] else ""
    g = ", ".join(str(v) for v in d["grid"])
    return f"{d['label']}{sub} at grid ({g}){loc}"


def _not_catalog_parts(build) -> tuple[list, list, list]:
    """Placements that break "only real catalog parts" (README): (unknown, not parts, scaled).

    Unknown: no geometry, neither in the library nor embedded in the file
    (:func:`bricklayer.validate.collisions.unchecked_placements`). Not parts: files
    of a library sub-folder (``s/``, ``48/``) or of ``p/`` (primitives; LDraw spec:
    parts live in ``parts/``). Scaled: world rotation with ``|R^T R - I| > TOL.scale`` (0.1)
    (rounded matrices of official files stay under 0.06).
    """
    import numpy as np

    from bricklayer.constants import TOL
    from bricklayer.validate.collisions import unchecked_placements
    from ldraw_data.library import normalize_name

    flat = build.flattened_placements
    unknown = unchecked_placements(build)
    lib = None
    try:
        from ldraw_data.library import get_library

        lib = get_library()
    except Exception:  # noqa: BLE001 - no library: nothing can be told about folders
        pass
    not_parts, scaled = [], []
    unknown_ids = {id(p.leaf) for p in unknown}
    for fp in flat:
        if id(fp.leaf) in unknown_ids:
            continue
        pid = fp.content.ldraw_id
        if lib is not None and getattr(fp.content, "_known", True):
            key = normalize_name(pid if pid.lower().endswith(".dat") else pid + ".dat")
            folder = lib.folder_of(key)
            if folder is not None and ("/" in key or folder.lower().endswith("p")):
                not_parts.append(fp)
                continue
        r = fp.pose.matrix[:3, :3]
        if np.abs(r.T @ r - np.eye(3)).max() > TOL.scale:
            scaled.append(fp)
    return unknown, not_parts, scaled


def validation_report(build, *, source: str = "build", expected_components: int | None = None) -> dict:
    """Validate a build and describe every problem with a hint.

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
        ``valid`` (no collisions, nothing floating, only catalog parts - no
        ``unknown_parts``, ``not_parts`` or ``scaled`` placements -, no ``unreadable_lines``
        and the expected component count if given), ``parts``, ``unique_parts`` (distinct part ids),
        ``unique_elements`` (distinct part id and colour), ``collisions`` (list
        of {a, b, overlap_ldu, mated}), ``floating`` (list), ``components``
        (count), ``component_sizes``, ``unreadable_lines`` (list of {file, line, message}:
        part lines of the LDraw file the build was read from that could not be read, so the
        build lacks a part its file places; ``build.unreadable_lines`` of
        :func:`bricklayer.read_ldraw`), ``problems`` (one line each, with hints)
        and ``text`` (summary line plus problems).
    """
    from bricklayer.validate import collision_details

    flat = build.flattened_placements
    cols = [{"a": describe_placement(build, r.a), "b": describe_placement(build, r.b),
             "overlap_ldu": round(float(r.depth), 2) if r.depth is not None else None,
             "mated": bool(r.mated)} for r in collision_details(build)]
    floating = [describe_placement(build, p) for p in build.floating_placements]
    comps = build.connected_components
    sizes = [len(c) for c in comps]
    unknown, not_parts, scaled = _not_catalog_parts(build)
    unknown = [describe_placement(build, p) for p in unknown]
    not_parts = [describe_placement(build, p) for p in not_parts]
    scaled = [describe_placement(build, p) for p in scaled]
    unreadable = [{"file": w.path, "line": w.line, "message": w.message}
                  for w in getattr(build, "unreadable_lines", None) or ()]
    ok = not cols and not floating and not unknown and not not_parts and not scaled and not unreadable
    if expected_components is not None and len(comps) != expected_components:
        ok = False
    problems = []

    def section(lines: list, more: str, hint: str):
        """At most MAX_LISTED problem lines, a count of the rest ("... and N more<more>"), then the hint."""
        problems.extend(lines[:MAX_LISTED])
        if len(lines) > MAX_LISTED:
            problems.append(f"... and {len(lines) - MAX_LISTED} more{more}")
        if lines:
            problems.append(f"  {hint}")

    section([f"COLLISION {_where(c['a'])} <-> {_where(c['b'])}"
             + (f", overlap about {c['overlap_ldu']:g} LDU" if c["overlap_ldu"] else "")
             + (" (mated, but deeper than a press fit allows)" if c["mated"] else "") for c in cols],
            " colliding pairs", "try: move one of the two parts by whole studs/plates (check its rotation and "
            "anchor), or place it with stack()/connect() so it sits on studs instead of inside a neighbour")
    section([f"FLOATING {_where(f)}" for f in floating], " floating parts",
            "try: rest it on studs of a supported part (stack(..., on=...)), connect() it to one, "
            "or add a part below it that reaches the ground")
    for kind, rows, hint in (
            ("UNKNOWN PART", unknown, "not in the LDraw library nor embedded in the file, so it cannot be "
             "checked: use a real part id (`brickwright search`)"),
            ("NOT A PART", not_parts, "a sub-part (s/) or primitive (p/) of the LDraw library placed as if "
             "it were a part: use the catalog part it belongs to"),
            ("SCALED", scaled, "its rotation matrix scales or squashes it (|R^T R - I| > 0.1): real parts "
             "cannot be scaled; use an orthonormal rotation")):
        section([f"{kind} {_where(d)}" for d in rows], "", hint)
    section([f"UNREADABLE PART LINE {u['file']}:{u['line']}: {u['message']}" for u in unreadable], "",
            "the build lacks the part each of these lines places: write it as "
            "`1 <colour> x y z a b c d e f g h i <part>.dat` (15 fields, finite numbers; LDraw spec "
            "line type 1) or delete the line")
    if expected_components is not None and len(comps) != expected_components or (
            expected_components is None and len(comps) > 1):
        problems.append(f"COMPONENTS {len(comps)} separate pieces (sizes {sizes[:10]}"
                        f"{' ...' if len(sizes) > 10 else ''}); parts only touching side by side are not joined: "
                        "bridge them with a plate or brick across the joint")
    unread = f", {len(unreadable)} unreadable part line(s)" if unreadable else ""
    head = (f"{source}: {len(flat)} parts{unread}, {len(cols)} colliding pairs, {len(floating)} floating, "
            f"{len(comps)} connected component(s) -> {'VALID' if ok else 'NOT VALID'}")
    return {"source": source, "valid": ok, "parts": len(flat),
            "unique_parts": len({p.content.ldraw_id for p in flat}),
            "unique_elements": len({p.content for p in flat}),
            "collisions": cols, "floating": floating, "components": len(comps), "component_sizes": sizes,
            "unknown_parts": unknown, "not_parts": not_parts, "scaled": scaled, "unreadable_lines": unreadable,
            "problems": problems, "text": "\n".join([head] + problems)}
