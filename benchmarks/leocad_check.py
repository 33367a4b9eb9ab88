"""Check the LDraw files the toolkit writes in LeoCAD, an independent LDraw client (issue 18).

LeoCAD (Debian's ``leocad`` 21.06) runs headless under Xvfb (``xvfb-run``) on each file and exports:

* a COLLADA scene (``--export-collada``): one ``<node>`` per part placement LeoCAD sees after
  flattening submodels, naming the part file (``<instance_geometry url="#3001_dat">``), its colour
  (LeoCAD's material name: the LDConfig name, ``Color_RRGGBB`` for a direct colour) and its world
  matrix. A part LeoCAD cannot find in the library is drawn as its placeholder, a 20 x 20 x 28 LDU
  box (``lcMesh::CreateBox`` in LeoCAD's ``common/lc_mesh.cpp``): those are the *unknown* parts.
* an HTML page (``--export-html``) listing one picture per step of the main model: the number of
  steps LeoCAD pages. LeoCAD 21.06 crashes after writing that page, while rendering its pictures
  under Xvfb; the page is complete by then, so only the page is read. A private configuration
  (``XDG_CONFIG_HOME``) makes the page single and for the main model only.

Each placement LeoCAD sees is matched to one placement of ``read_ldraw`` of the same file (part,
colour, position within 0.5 LDU, rotation within 0.01) and to one placement LeoCAD sees in the
source model the file was made from: *missing* = in the source, not in the written file.

Cases (default): for each model, (a) ``steps.mpd`` of ``python -m brickwright instructions MODEL
--no-images``, (b) the MPD ``write_ldraw`` writes of ``read_ldraw(MODEL)``; and (c) ``tower.mpd``
written by ``examples/tower.py``.

Usage::

    python benchmarks/leocad_check.py                       # 6898, 1788 and 21303, and the tower
    python benchmarks/leocad_check.py MODEL.mpd [...]       # other models
    python benchmarks/leocad_check.py --json out.json       # also the full results

Needs ``apt-get install -y leocad xvfb``. Exit status 1 when a written file has a missing part, a
part LeoCAD does not know that the source model did not have, or a placement LeoCAD sees elsewhere
than we wrote it. This is a script, so it prints; the library itself only logs.
"""

from __future__ import annotations

__all__ = ["LeoCADView", "leocad_missing", "run_leocad", "our_placements", "match_placements", "check_file",
           "main"]

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
OFFICIAL = Path(os.environ.get("BRICKWRIGHT_MODELS_DIR", ROOT.parent / "shared" / "models" / "official"))
DEFAULT_MODELS = ("6898_1_Ice_Sat_V", "1788_Treasure_Chest", "21303_WALLE")

#: LeoCAD's axes from LDraw's: LeoCAD is Z-up, x_lc = x, y_lc = z, z_lc = -y (LDraw's -Y is up).
#: Found on LeoCAD's export of a brick at LDraw y = -24: its node sits at z = +24.
LDRAW_TO_LEOCAD = np.array([[1.0, 0, 0], [0, 0, 1.0], [0, -1.0, 0]])

#: Vertices of LeoCAD's placeholder mesh for a part it cannot find (``lcMesh::CreateBox``): 24 vertices
#: on the corners of the box (-10, -10, -24)..(10, 10, 4) LDU, LeoCAD axes.
PLACEHOLDER_CORNERS = {(x, y, z) for x in (-10.0, 10.0) for y in (-10.0, 10.0) for z in (-24.0, 4.0)}

#: ``[HTML] Options`` = LC_HTML_SINGLEPAGE (0x01) | LC_HTML_CURRENT_ONLY (0x80) (LeoCAD ``common/project.h``):
#: one page, for the main model only.
LEOCAD_CONF = "[HTML]\nOptions=129\n"

POSITION_TOLERANCE_LDU = 0.5
ROTATION_TOLERANCE = 0.01


def leocad_missing() -> str | None:
    """Why LeoCAD cannot run headless here (``None`` when ``leocad`` and ``xvfb-run`` are on PATH)."""
    gone = [t for t in ("leocad", "xvfb-run") if shutil.which(t) is None]
    return f"{' and '.join(gone)} not installed (apt-get install -y leocad xvfb)" if gone else None


def _key(file_name: str) -> str:
    """Part key both sides agree on: the referenced file name, lower case, ``/`` for ``\\``, no dots."""
    return file_name.strip().lower().replace("\\", "/").replace(".", "_")


@dataclass
class LeoCADView:
    """What LeoCAD sees in one file.

    Attributes
    ----------
    placements : list of (str, str, ndarray)
        Per part placement: part key (:func:`_key` of the file name), LeoCAD colour name, (4, 4) world
        matrix in LDraw axes and LDU.
    unknown : set of str
        Part keys LeoCAD drew as its placeholder box (not in the library nor the file).
    main_model_steps : int or None
        Steps of the main model (pictures LeoCAD pages); None when its page was not written.
    log : str
        LeoCAD's stdout and stderr (Qt start-up noise included).
    """

    placements: list = field(default_factory=list)
    unknown: set = field(default_factory=set)
    main_model_steps: int | None = None
    log: str = ""


def _parse_collada(path: Path) -> tuple[list, set]:
    ns = {"c": "http://www.collada.org/2005/11/COLLADASchema"}
    root = ET.parse(path).getroot()
    unknown_geometry = set()
    for g in root.iterfind(".//c:library_geometries/c:geometry", ns):
        arr = g.find("c:mesh/c:source/c:float_array", ns)
        vals = np.array(arr.text.split(), dtype=float).reshape(-1, 3) if arr is not None and arr.text else None
        if vals is not None and len(vals) == 24 and {tuple(v) for v in vals} == PLACEHOLDER_CORNERS:
            unknown_geometry.add(g.get("id"))
    t_inv = LDRAW_TO_LEOCAD.T
    placements = []
    for node in root.iterfind(".//c:visual_scene/c:node", ns):
        m = np.array(node.find("c:matrix", ns).text.split(), dtype=float).reshape(4, 4)
        inst = node.find("c:instance_geometry", ns)
        gid = inst.get("url").lstrip("#")
        # the placement's colour binds the mesh's "Main_Colour" sections; a mesh drawn only in fixed
        # colours (a shortcut's sub-parts) has none, and its placement colour cannot be seen: "*"
        mat = next((m for m in inst.iterfind(".//c:instance_material", ns) if m.get("symbol") == "Main_Colour"),
                   None)
        colour = mat.get("target").lstrip("#").removesuffix("-material") if mat is not None else "*"
        ld = np.eye(4)
        ld[:3, :3] = t_inv @ m[:3, :3] @ LDRAW_TO_LEOCAD
        ld[:3, 3] = t_inv @ m[:3, 3]
        # an MPD block drawn as geometry (an embedded part) is "<block name>_<mesh address in hex>"
        name = re.sub(r"(_(?:dat|ldr|mpd))_[0-9a-f]+$", r"\1", gid, flags=re.I)
        placements.append((_key(name), colour, ld))
    unknown = {_key(re.sub(r"(_(?:dat|ldr|mpd))_[0-9a-f]+$", r"\1", g, flags=re.I)) for g in unknown_geometry}
    return placements, unknown


def run_leocad(model: Path, library_root: Path, work: Path, timeout_s: float = 600.0) -> LeoCADView:
    """Run LeoCAD headless on ``model`` and read what it sees.

    Parameters
    ----------
    model : Path
        ``.ldr`` or ``.mpd`` file.
    library_root : Path
        LDraw library folder (``parts/``, ``p/``, ``LDConfig.ldr``), passed as ``--libpath``.
    work : Path
        Folder for the exports and LeoCAD's private configuration.
    timeout_s : float
        Seconds per LeoCAD run.

    Returns
    -------
    LeoCADView

    Raises
    ------
    RuntimeError
        When LeoCAD writes no COLLADA file (its output is in the message).
    """
    work.mkdir(parents=True, exist_ok=True)
    conf = work / "config" / "LeoCAD Software"
    conf.mkdir(parents=True, exist_ok=True)
    (conf / "LeoCAD.conf").write_text(LEOCAD_CONF)
    runtime = work / "runtime"
    runtime.mkdir(mode=0o700, exist_ok=True)
    env = dict(os.environ, XDG_CONFIG_HOME=str(work / "config"), XDG_RUNTIME_DIR=str(runtime))
    base = ["xvfb-run", "-a", "leocad", "--libpath", str(library_root)]
    dae = work / "scene.dae"
    r = subprocess.run([*base, "--export-collada", str(dae), str(model)], env=env, capture_output=True,
                       text=True, timeout=timeout_s)
    log = r.stdout + r.stderr
    if not dae.is_file():
        raise RuntimeError(f"{model}: LeoCAD wrote no COLLADA export (exit {r.returncode}):\n{log}")
    placements, unknown = _parse_collada(dae)
    html = work / "html"
    r = subprocess.run([*base, "--export-html", str(html), str(model)], env=env, capture_output=True, text=True,
                       timeout=timeout_s)
    log += r.stdout + r.stderr
    pages = sorted(html.glob("*.html")) if html.is_dir() else []
    steps = None
    if pages:
        text = pages[0].read_text(errors="replace")
        if "</HTML>" in text:
            steps = len(re.findall(r'ALT="Step \d+"', text))
    return LeoCADView(placements, unknown, steps, log)


def _colour_name(code: int, table) -> str:
    """LeoCAD's material name of an LDraw colour code (``lcGetColorIndex`` in LeoCAD's lc_colors.cpp)."""
    if code == 16:
        return "Main_Color"
    if code == 24:
        return "Edge_Color"
    if code >= 0x2000000:
        return f"Color_{code & 0xFFFFFF:06X}"
    c = table.by_code.get(code)
    return c.name if c else f"Color_{code:03d}"


def our_placements(model: Path, library=None) -> tuple[list, object]:
    """Part placements ``read_ldraw`` finds in ``model``, in LeoCAD's terms.

    Returns
    -------
    (list of (str, str, ndarray), LegoBuild)
        Per flattened placement: part key, LeoCAD colour name, (4, 4) LDraw world matrix (LDU); and the build.
    """
    from bricklayer import read_ldraw
    from bricklayer.geometry.ldraw_frame import B2L, L2B
    from bricklayer.io import _ref_name
    from ldraw_data.colors import get_color_table

    if library is None:
        from ldraw_data.library import get_library

        library = get_library()
    lib = library
    build = read_ldraw(model, library=library)
    table = get_color_table(library)
    embedded: dict[str, str] = {}
    for b in [build, *build._all_builds()]:
        for name, text in b.embedded_files.values():
            embedded.setdefault(_key(name), text)
    out: list = []

    def place(key: str, colour: int, m: np.ndarray, depth: int = 0) -> None:
        # LeoCAD reads every MPD block, embedded parts too, as a model: its type-1 lines are pieces of
        # their own (colour 16 inherits), its triangles and quads one mesh named after the block
        text = embedded.get(key) if depth < 16 else None
        if text is None:
            out.append((key, _colour_name(colour, table), m))
            return
        has_mesh = False
        for line in text.splitlines():
            tok = line.split()
            if tok[:1] == ["1"] and len(tok) >= 15:
                c = int(tok[1], 0)
                sub = np.eye(4)
                sub[:3, 3] = [float(v) for v in tok[2:5]]
                sub[:3, :3] = np.array([float(v) for v in tok[5:14]]).reshape(3, 3)
                name = " ".join(tok[14:])
                if _key(name) not in embedded and lib.is_primitive(name):
                    has_mesh = True  # a primitive (p/) is drawn into the block's mesh, not a piece
                    continue
                place(_key(name), colour if c == 16 else c, m @ sub, depth + 1)
            elif tok[:1] in (["3"], ["4"]):
                has_mesh = True
        if has_mesh:
            out.append((key, _colour_name(colour, table), m))

    for fp in build.flattened_placements:
        e = fp.content
        m = B2L @ fp.pose.matrix @ (e.ldraw_to_local if e._known else L2B)
        place(_key(_ref_name(e.ldraw_id)), int(e.color), m)
    return out, build


def match_placements(a: list, b: list) -> tuple[list, list]:
    """Pair placements of ``a`` and ``b`` (same part key and colour (``"*"``: any), position within
    ``POSITION_TOLERANCE_LDU``, rotation entries within ``ROTATION_TOLERANCE``).

    Returns
    -------
    (list, list)
        Placements of ``a`` without a partner in ``b``, and of ``b`` without one in ``a``.
    """
    groups: dict[str, list] = defaultdict(list)
    for p in b:
        groups[p[0]].append(p)
    only_a = []
    for p in a:
        cands = groups.get(p[0], [])
        hit = None
        for i, q in enumerate(cands):
            if ((p[1] == q[1] or "*" in (p[1], q[1]))
                    and np.abs(p[2][:3, 3] - q[2][:3, 3]).max() <= POSITION_TOLERANCE_LDU
                    and np.abs(p[2][:3, :3] - q[2][:3, :3]).max() <= ROTATION_TOLERANCE):
                hit = i
                break
        if hit is None:
            only_a.append(p)
        else:
            cands.pop(hit)
    return only_a, [q for qs in groups.values() for q in qs]


def _summary(items: list, limit: int = 6) -> str:
    counts: dict[tuple, int] = defaultdict(int)
    for k, c, _m in items:
        counts[(k, c)] += 1
    parts = [f"{n}x {k.replace('_dat', '.dat')} {c}" for (k, c), n in sorted(counts.items(), key=lambda kv: -kv[1])]
    return ", ".join(parts[:limit]) + (f", ... ({len(parts)} kinds)" if len(parts) > limit else "")


def check_file(written: Path, library_root: Path, work: Path, source_view: LeoCADView | None = None,
               our_steps: int | None = None, library=None) -> dict:
    """LeoCAD's view of one written file, compared with ``read_ldraw`` of it and with the source model.

    Parameters
    ----------
    written : Path
        The file the toolkit wrote.
    library_root : Path
        LDraw library folder LeoCAD reads.
    work : Path
        Scratch folder.
    source_view : LeoCADView, optional
        LeoCAD's view of the model ``written`` was made from; without it nothing counts as missing.
    our_steps : int, optional
        Steps the main model should page (default: LeoCAD's count of the source model, else the main
        model's steps as ``read_ldraw`` reads them).

    Returns
    -------
    dict
        ``leocad_parts``, ``our_parts``, ``source_parts`` (LeoCAD, source; None without one), ``missing``
        (source placements LeoCAD does not see in the file), ``extra`` (the reverse), ``unknown`` (part keys
        LeoCAD drew as placeholders) and ``new_unknown`` (those the source did not have), ``not_as_read``
        (LeoCAD placements ``read_ldraw`` has not, and the reverse), ``leocad_steps``, ``our_steps`` (the
        steps it should page), ``embedded_blocks``, ``ok`` (none missing, extra, newly unknown or placed
        otherwise than read, the last only without embedded part blocks; steps equal).
    """
    view = run_leocad(written, library_root, work)
    ours, build = our_placements(written, library)
    lc_only, ours_only = match_placements(view.placements, ours)
    res = {
        "file": str(written), "leocad_parts": len(view.placements), "our_parts": len(ours),
        "unknown": sorted(view.unknown), "not_as_read": [_summary(lc_only), _summary(ours_only)],
        "not_as_read_count": [len(lc_only), len(ours_only)],
        "leocad_steps": view.main_model_steps,
    }
    if our_steps is None:
        our_steps = source_view.main_model_steps if source_view is not None else len(build.steps)
    res["our_steps"] = our_steps
    missing = extra = []
    if source_view is not None:
        missing, extra = match_placements(source_view.placements, view.placements)
        res["source_parts"] = len(source_view.placements)
        res["new_unknown"] = sorted(view.unknown - source_view.unknown)
    else:
        res["source_parts"] = None
        res["new_unknown"] = sorted(view.unknown)
    res["missing"], res["missing_count"] = _summary(missing), len(missing)
    res["extra"], res["extra_count"] = _summary(extra), len(extra)
    # LeoCAD splits embedded part blocks (MPD "0 FILE x.dat") into pieces by its own rules (blocks nested in
    # blocks, subparts): our_placements follows them for one level only, so with such blocks the placements
    # "as read" are informative, and the source comparison (LeoCAD on both sides) decides
    res["embedded_blocks"] = sum(len(b.embedded_files) for b in [build, *build._all_builds()])
    as_read_ok = not lc_only and not ours_only or res["embedded_blocks"] > 0
    res["ok"] = (not missing and not extra and not res["new_unknown"] and as_read_ok
                 and res["leocad_steps"] == our_steps)
    return res


def _instructions(model: Path, out: Path) -> tuple[Path, int | None]:
    r = subprocess.run([sys.executable, "-m", "brickwright", "instructions", str(model), "--out", str(out),
                        "--no-images", "--force"], cwd=ROOT, capture_output=True, text=True)
    steps = out / "steps.mpd"
    if not steps.is_file():
        raise RuntimeError(f"{model}: instructions wrote no steps.mpd (exit {r.returncode}):\n{r.stderr[-2000:]}")
    plan = json.loads((out / "plan.json").read_text())
    return steps, plan.get("main_model_steps")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("models", nargs="*", help="model files, or names of official models (default: 6898, 1788, 21303)")
    ap.add_argument("--json", dest="json_out", default=None, help="write every result to this JSON file")
    ap.add_argument("--keep", default=None, help="folder to keep the written files and exports in")
    ap.add_argument("--no-tower", action="store_true", help="skip examples/tower.py")
    args = ap.parse_args(argv)
    reason = leocad_missing()
    if reason:
        print(f"cannot check: {reason}", file=sys.stderr)
        return 2
    from bricklayer import read_ldraw, write_ldraw
    from ldraw_data.library import get_library

    lib = get_library()
    lib_root = Path(lib.root)
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="leocad-check-"))
    models = [Path(m) if Path(m).is_file() else OFFICIAL / f"{m}.mpd" for m in args.models or DEFAULT_MODELS]
    results = []
    for model in models:
        stem = model.stem
        src = run_leocad(model, lib_root, work / stem / "source")
        steps, plan_steps = _instructions(model, work / stem / "instructions")
        r = check_file(steps, lib_root, work / stem / "leocad-steps", src, plan_steps, lib)
        results.append({"model": stem, "case": "instructions steps.mpd", **r})
        mpd = write_ldraw(read_ldraw(model, library=lib), work / stem / f"{stem}.mpd", overwrite=True)
        r = check_file(mpd, lib_root, work / stem / "leocad-written", src, None, lib)
        results.append({"model": stem, "case": "read_ldraw -> write_ldraw", **r})
    if not args.no_tower:
        out = work / "tower"
        out.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, str(ROOT / "examples" / "tower.py"), "--out", str(out)], cwd=ROOT,
                       check=True, capture_output=True)
        r = check_file(out / "tower.mpd", lib_root, out / "leocad", None, None, lib)
        results.append({"model": "examples/tower.py", "case": "build.py write_ldraw", **r})
    head = f"{'model':28} {'case':24} {'LeoCAD':>6} {'ours':>6} {'source':>6} {'miss':>5} {'extra':>5} " \
           f"{'unknown':>7} {'as read':>7} {'steps LC/expected':>17}"
    print(head)
    print("-" * len(head))
    for r in results:
        src = "" if r["source_parts"] is None else r["source_parts"]
        print(f"{r['model'][:28]:28} {r['case']:24} {r['leocad_parts']:>6} {r['our_parts']:>6} {src!s:>6} "
              f"{r['missing_count']:>5} {r['extra_count']:>5} {len(r['unknown']):>7} "
              f"{'yes' if not any(r['not_as_read_count']) else 'NO':>7} "
              f"{r['leocad_steps']!s:>6}/{r['our_steps']!s:<6}")
    for r in results:
        notes = []
        if r["missing"]:
            notes.append(f"missing: {r['missing']}")
        if r["extra"]:
            notes.append(f"extra: {r['extra']}")
        if r["unknown"]:
            notes.append(f"unknown to LeoCAD: {', '.join(r['unknown'])}"
                         + (f" (new: {', '.join(r['new_unknown'])})" if r["new_unknown"] else " (as in the source)"))
        if any(r["not_as_read_count"]):
            notes.append(f"LeoCAD only: {r['not_as_read'][0]}; read_ldraw only: {r['not_as_read'][1]}")
        if r["leocad_steps"] != r["our_steps"]:
            notes.append(f"LeoCAD pages {r['leocad_steps']} steps, expected {r['our_steps']}")
        if notes:
            print(f"\n{r['model']} / {r['case']}:\n  " + "\n  ".join(notes))
    print(f"\nfiles and exports in {work}")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(results, indent=1))
    return 0 if all(r["ok"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
