"""Model summaries for ``brickwright info``: submodels, parts, bill of materials, size.

Library code: returns data, prints nothing (the CLI prints).
"""

from __future__ import annotations

__all__ = ["ModelInfo", "model_info", "load_build"]

import os
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ldraw_data.catalog import get_catalog
from ldraw_data.colors import get_color_table
from ldraw_data.errors import LDrawError
from ldraw_data.io import load_model
from ldraw_data.mesh import load_meshes, world_bounds


@dataclass
class ModelInfo:
    """Summary of an LDraw model.

    Attributes
    ----------
    path : str
    submodels : list of str
        Submodel names, main model first.
    embedded_parts : list of str
        MPD-embedded part blocks (stickers, bent parts).
    parts : int
        Parts after flattening.
    bom : list of (part_id, colour code, count, part name, colour name)
        Bill of materials, most used first.
    unknown_parts : list of str
    size_ldu : (3,) float
        Bounding box size (x, y, z) in the LDraw frame, LDU (y vertical).
    warnings : list of str
    unreadable_lines : list of str
        The part lines (type 1) that could not be read, ``file:line: message``: those parts are missing from
        ``parts`` and ``bom`` (``LDrawDocument.skipped_refs``).
    shadowed_files : list of dict
        MPD blocks that redefine a file of the LDraw library, the rows of
        :func:`bricklayer.validate.findings.shadowing_blocks` (``validate`` calls such a model NOT VALID).
    """

    path: str
    submodels: list
    embedded_parts: list
    parts: int
    bom: list
    unknown_parts: list
    size_ldu: np.ndarray
    warnings: list = field(default_factory=list)
    unreadable_lines: list = field(default_factory=list)
    shadowed_files: list = field(default_factory=list)

    @property
    def size_studs(self) -> tuple[float, float, float]:
        """(width studs, depth studs, height bricks): 20 LDU a stud, 24 LDU a brick."""
        x, y, z = self.size_ldu
        return (x / 20.0, z / 20.0, y / 24.0)

    @property
    def size_mm(self) -> tuple[float, float, float]:
        """(width, depth, height) in mm (1 LDU = 0.4 mm)."""
        x, y, z = self.size_ldu
        return (x * 0.4, z * 0.4, y * 0.4)

    def to_dict(self) -> dict:
        """JSON-ready dict."""
        return {
            "path": self.path, "submodels": self.submodels, "embedded_parts": self.embedded_parts,
            "parts": self.parts, "unknown_parts": self.unknown_parts,
            "bom": [dict(part_id=a, color=b, count=c, name=d, color_name=e) for a, b, c, d, e in self.bom],
            "size_ldu": [float(v) for v in self.size_ldu], "size_studs_bricks": list(self.size_studs),
            "size_mm": list(self.size_mm), "warnings": self.warnings, "unreadable_lines": self.unreadable_lines,
            "shadowed_files": self.shadowed_files,
        }


def model_info(path) -> ModelInfo:
    """Summarize an ``.ldr``/``.mpd`` file.

    Raises
    ------
    LDrawParseError
        File unreadable.
    LibraryNotFoundError
        No LDraw library installed.
    """
    from bricklayer.validate._world import not_part_kind

    m = load_model(path)
    cat = get_catalog()
    colors = get_color_table()
    counts = Counter((p.part_id, p.color) for p in m.parts)
    bom = []
    for (pid, c), n in counts.most_common():
        if pid in cat:  # also a block redefining a catalog part: validate names it so
            name = cat.get(pid).name
        elif any(q.part_id == pid and q.source == "embedded" for q in m.parts):
            name = "(embedded)"
        else:
            name = f"({not_part_kind(pid) or 'unknown'})"
        bom.append((pid, c, n, name, colors.name(c)))
    known = [p for p in m.parts if p.source == "library"]
    size = np.zeros(3)
    if known:
        meshes = load_meshes({p.name for p in known}, on_missing="skip")
        names = [p.name for p in known if p.name in meshes]
        tr = np.stack([p.transform for p in known if p.name in meshes])
        wb = world_bounds(meshes, names, tr)
        ok = np.all(np.isfinite(wb), axis=(1, 2))
        if ok.any():
            lo, hi = wb[ok, 0].min(axis=0), wb[ok, 1].max(axis=0)
            size = hi - lo
    from bricklayer.validate.findings import shadowing_blocks
    from ldraw_data.library import normalize_name

    blocks = [(n, b.source, b.first_line) if b is not None else (n, None, None)
              for n in m.embedded_parts for b in [m.document.blocks_by_key.get(normalize_name(n))]]
    return ModelInfo(str(path), m.submodels, m.embedded_parts, len(m.parts), bom, m.unknown_parts, size,
                     [str(w) for w in m.warnings], [str(w) for w in m.document.skipped_refs],
                     shadowing_blocks(blocks))


class BuildScriptError(LDrawError):
    """A ``build.py`` failed (syntax error, exception, time or memory limit); the message says where."""


_HEAD = re.compile(r"(?P<type>\w+) in (?P<where>.+?)(?: at \S+ line \d+)?:")
_SYNTAX_HEAD = re.compile(r"SyntaxError in \S+ line \d+(?:, column (?P<col>\d+))?: (?P<msg>.*)")


def script_error_message(path, error: dict, text: str | None = None) -> str:
    """The message of a failed build script in the command line's ``FILE[:LINE]: ...`` form (README, "exit
    codes"; break-it s26 F10): the first line names the script as given and the line of its code that failed,
    then the error; the worker's other lines follow (the code line, the hint, the short trace).

    Parameters
    ----------
    path : path
        The script, as the user gave it (``s2/build.py``).
    error : dict
        The worker's error record (:func:`brickwright.agent._child.format_exception`: ``type``, ``message``,
        ``line`` (1-based, or None: a time limit, a crash), ``text``).
    text : str, optional
        The record's own ``text`` when ``error`` has none.

    Returns
    -------
    str
        E.g. ``"s2/build.py:7: BrickLayerValueError in create_build(): at must be ...\n     7 | ...\nTrace: ..."``;
        an error without a line whose text starts with the script's name names it once
        (``"s2/build.py defines no create_build(); ..."``, break-it s26 F11).
    """
    body = (error.get("text") or text or "create_build() failed").strip()
    lines = body.splitlines() or ["create_build() failed"]
    first, rest = lines[0], lines[1:]
    line, etype, message = error.get("line"), error.get("type"), error.get("message")
    m_syntax = _SYNTAX_HEAD.fullmatch(first)
    m_head = _HEAD.fullmatch(first)
    if m_syntax:
        col = f" (column {m_syntax['col']})" if m_syntax["col"] else ""
        first = f"SyntaxError{col}: {m_syntax['msg']}"
    elif m_head and message is not None:
        said = str(message).splitlines() or [""]
        first = f"{m_head['type']} in {m_head['where']}: {said[0]}".rstrip(": ")
        own = f"{etype}: {said[0]}" if said[0] else str(etype)
        rest = [x for i, x in enumerate(rest) if not (x == own and own not in rest[:i])]
    name = os.path.basename(str(path))
    if not line and name and first.startswith(name + " "):  # "X.py defines no create_build()": name it once
        return "\n".join([f"{path}{first[len(name):]}", *rest])
    where = f"{path}:{line}" if line else f"{path}"
    return "\n".join([f"{where}: {first}", *rest])


def run_build_script(path, *, time_limit: float = 30.0, sandbox: bool = True) -> dict:
    """Run a ``build.py`` in the sandboxed worker and judge the build it returns.

    Parameters
    ----------
    path : path
        The script.
    time_limit : float, default 30
        Seconds allowed, s.
    sandbox : bool, default True
        False runs it with process limits only (``--no-sandbox``).

    Returns
    -------
    dict
        The record of :func:`brickwright.agent.validate_file` (``passed``, ``valid``, ``report``, ``tests``,
        ``ldraw``, ...) plus ``build``: the LegoBuild read back, in this process, from the LDraw text the
        script's build exported (so nothing the script does in its own process reaches this one).

    Raises
    ------
    BuildScriptError
        When the script fails; the message is the report the agent would read (file, line, hint).
    SandboxUnavailableError
        When ``sandbox`` is true and no sandbox can be set up here.
    """
    from bricklayer import from_ldraw

    from .agent import validate_file

    p = Path(path)
    res = validate_file(p, time_limit=time_limit, sandbox=sandbox)
    if res.get("ldraw") is None:
        raise BuildScriptError(script_error_message(path, res.get("error") or {}, res.get("text")))
    build = from_ldraw(res["ldraw"], source=p.name)
    for b in [build, *build.sub_builds()]:  # line numbers of the exported text mean nothing to the user
        for pl in b.placements:
            pl.origin = None
    res["build"] = build
    return res


def load_build(path, *, sandbox: bool = True):
    """A LegoBuild from an ``.ldr``/``.mpd`` file or a ``build.py`` (its ``create_build()``).

    A ``build.py`` runs in the sandboxed worker, as the agent's code does (30 s
    and 2 GiB limits, its own folder): an endless loop or a crash is reported,
    never hangs or kills the command.

    Raises
    ------
    BuildScriptError
        When a build.py fails.
    LDrawParseError
        When an LDraw file cannot be read.
    """
    from bricklayer import read_ldraw

    p = Path(path)
    if p.suffix.lower() == ".py":
        return run_build_script(p, sandbox=sandbox)["build"]
    return read_ldraw(p)
