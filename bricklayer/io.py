"""LDraw import and export of builds.

Layers (house style 9): :func:`from_ldraw` (text -> build), :func:`read_ldraw`
(path -> build), :func:`to_ldraw` (build -> text), :func:`write_ldraw`
(build -> path, atomically).

Mapping:
- a build with nested builds is written as an MPD: the root is the first
  ``0 FILE`` block, each distinct sub-build one more block (shared sub-builds
  are written once and referenced from every placement);
- placement names are kept in ``0 !BRICKLAYER NAME <name>`` meta lines before
  the line they name (LDraw viewers ignore unknown meta lines, spec 1.0.2);
- build steps are ``0 STEP`` lines;
- reading, each submodel block becomes a nested :class:`LegoBuild` (shared
  when referenced twice), every other type-1 line a part placement: parts
  the library does not know are kept as placements without geometry or
  connectors (and warned), MPD-embedded parts likewise, so nothing is dropped.
  Transforms are kept exactly as written (rounded and mirrored ones too).
"""

from __future__ import annotations

__all__ = ["from_ldraw", "read_ldraw", "to_ldraw", "write_ldraw", "LDrawImportResult", "LDrawMPDSuffixWarning",
           "AUTHOR_ENV"]

import logging
import re
from pathlib import Path

import numpy as np

from ldraw_data.errors import LDrawParseError, LDrawWarning, SubmodelCycleWarning
from ldraw_data.fileio import atomic_write
from ldraw_data.io.limits import measure_submodels
from ldraw_data.io.model import file_beside
from ldraw_data.io.parse import LDrawDocument, LDrawFile, parse_document
from ldraw_data.library import folder_reference_advice, read_model_file
from ldraw_data.text import short_id

from .build import LegoBuild
from .element import Element
from .geometry.ldraw_frame import B2L, L2B
from .geometry.types import Pose
from .errors import BrickLayerTypeError, BrickLayerValueError

log = logging.getLogger(__name__)

_NAME_META = "!BRICKLAYER"

#: Characters that end a line for ``str.splitlines`` (which the LDraw parser uses) or are not text:
#: ASCII controls (CR, LF, VT, FF, FS, GS, RS, ...), DEL, NEL and the Unicode line/paragraph separators.
_LINE_BREAKING = re.compile("[\x00-\x1f\x7f\x85\u2028\u2029]")


def _one_line(text) -> str:
    """``text`` with every control or line-breaking character replaced by a space.

    Every name, title and kept header or note written into an LDraw file goes through this,
    so that a name like ``"x\n1 4 0 0 0 ... 3001.dat"`` cannot add a line (a part, a ``0 FILE``)
    to the file: LDraw is one statement a line (spec 1.0.2).
    """
    return _LINE_BREAKING.sub(" ", str(text))


class LDrawImportResult(list):
    """Warnings of the last import (a list of LDrawWarning), also logged."""


def _is_header_line(text: str) -> bool:
    """A line of a file's header: a type-0 line other than STEP and the BrickLayer name meta."""
    st = text.strip()
    if not st:
        return True
    up = st.upper().split()
    return up[0] == "0" and up[1:2] != ["STEP"] and up[1:2] != [_NAME_META] and up[1:3] != ["BFC", "INVERTNEXT"]


def _bad_colour(code) -> str:
    return (f"colour code {code} is not defined in LDConfig.ldr; use a code it defines (e.g. 4 for red, "
            "16 to inherit the parent's colour) or a direct colour 0x2RRGGBB")


def _element_for(part_id: str, color: int, known: bool, cache: dict) -> Element:
    key = (part_id, color, known)
    e = cache.get(key)
    if e is None:
        e = cache[key] = Element.unchecked(part_id, color, known=known)
    return e


def _doc_to_build(doc: LDrawDocument, library, warnings: list, lines: list[str]) -> LegoBuild:
    blocks = doc.blocks_by_key
    builds: dict[str, LegoBuild] = {}
    cycles: list = []  # references skipped because they close a cycle of submodels
    embedded: dict[str, tuple[str, str]] = {}
    embedded_lines: dict[str, tuple[str, int | None]] = {}  # key -> (source, line of its 0 FILE)
    starts = sorted(f.first_line for f in doc.files)

    def block_lines(f: LDrawFile) -> list[tuple[int, str]]:
        """(physical line number, text) of the block's own lines, without its 0 FILE / 0 NOFILE lines."""
        first = f.first_line + 1 if doc.is_mpd else 1
        nxt = [s for s in starts if s > f.first_line]
        end = (nxt[0] - 1) if (doc.is_mpd and nxt) else len(lines)
        out = []
        for no in range(first, end + 1):
            t = lines[no - 1]
            if t.strip().upper() == "0 NOFILE":
                break
            out.append((no, t))
        return out

    def block_text(f: LDrawFile) -> str:
        """The block's own lines as text (see ``block_lines``), trailing blank lines dropped."""
        body = [t for _no, t in block_lines(f)]
        while body and not body[-1].strip():
            body.pop()
        return "\n".join(body)
    elements: dict = {}
    # is the name in the library? (folder_of: find would build a Path per part reference)
    lib_folder = library.folder_of if library is not None else (lambda _n: None)

    def is_sub(f: LDrawFile) -> bool:
        return doc.is_submodel(f)

    def embed(blk: LDrawFile) -> None:
        """Keep an embedded part block and the embedded blocks it uses."""
        if blk.key in embedded:
            return
        embedded[blk.key] = (blk.name, block_text(blk))
        embedded_lines[blk.key] = (doc.source, blk.first_line if doc.is_mpd else None)
        for r in blk.refs:
            sub = blocks.get(r.key)
            if sub is not None and sub.is_part_like:
                embed(sub)

    def build_of(f: LDrawFile, stack: tuple, trail: tuple = ()) -> LegoBuild:
        """The build of block ``f``; ``stack``: keys of the blocks being built, outermost first; ``trail[i]``:
        the reference (placing name, placed name, file, line) that entered ``stack[i + 1]``."""
        if f.key in builds:
            return builds[f.key]
        b = LegoBuild(name=f.name)
        pending_name = None
        notes: list[str] = []  # raw lines (comments, meta, type 2-5 geometry) kept before the next part
        warned = set()
        refs = {r.line: r for r in f.refs}
        body = block_lines(f)
        header, i = [], 0
        while i < len(body) and _is_header_line(body[i][1]):
            header.append(body[i][1].rstrip())
            i += 1
        b.ldraw_header = header
        parts_in_step = 0  # parts since the last step boundary b.step() made
        for line_no, raw in body[i:]:
            st = raw.strip()
            it = refs.get(line_no)
            if it is None:
                up = st.upper().split()
                if up[:2] == ["0", "STEP"] and len(up) == 2:
                    if parts_in_step:
                        b.step()
                        parts_in_step = 0
                    else:  # a step holding only meta lines (or nothing): kept as written, not merged
                        notes.append(raw.rstrip())
                elif up[:3] == ["0", _NAME_META, "NAME"]:
                    pending_name = st.split(None, 3)[3].strip() if len(st.split(None, 3)) > 3 else None
                elif st:
                    notes.append(raw.rstrip())
                continue
            key = it.key
            blk = blocks.get(key)
            mat = it.transform
            if blk is not None and is_sub(blk):
                step = (f.name, it.name, doc.source, it.line)
                if key in stack:
                    w = SubmodelCycleWarning.of(trail[stack.index(key):] + (step,))
                    warnings.append(w)
                    cycles.append(w)  # a part of the model lost: the build is not valid (unreadable_lines)
                    continue
                sub = build_of(blk, stack + (key,), trail + (step,))
                pose = Pose.from_matrix(L2B @ mat @ B2L)
                content = sub
                sub_color = it.color
            else:
                pid = key[:-4] if key.endswith(".dat") else key
                known = blk is None and lib_folder(key) is not None
                if blk is None and not known and key not in warned:
                    warned.add(key)
                    advice = folder_reference_advice(it.name, library)
                    warnings.append(LDrawWarning(doc.source, it.line,
                        f"unknown part {short_id(it.name)!r} kept as a placement without geometry or connectors"
                        + (f"; {advice}" if advice else "")))
                try:
                    el = _element_for(pid, it.color, known, elements)
                except ValueError:
                    raise LDrawParseError(doc.source, it.line, _bad_colour(it.color)) from None
                if blk is not None:
                    embed(blk)
                pose = Pose.from_matrix(L2B @ mat @ el.local_to_ldraw if known else L2B @ mat @ B2L)
                content = el
                sub_color = None
            name = pending_name
            pending_name = None
            if name is not None and b.has_name(name):
                warnings.append(LDrawWarning(doc.source, it.line, f"duplicate name {name!r}; second one dropped"))
                name = None
            try:
                pl = b.add_raw(content, pose, name=name, color=sub_color)
            except ValueError:
                if sub_color is None:
                    raise
                raise LDrawParseError(doc.source, it.line, _bad_colour(sub_color)) from None
            pl.origin = (doc.source, it.line)
            parts_in_step += 1
            if notes:
                pl.ldraw_notes, notes = tuple(notes), []
        if b.placements and not parts_in_step:
            notes.insert(0, "0 STEP")  # the last 0 STEP opened a step no part came into: the writer would drop it
        b.ldraw_trailer = notes
        b.mark_edited()
        builds[f.key] = b
        return b

    main = doc.main  # MPD spec: the first block is the model shown
    # measured before anything is built: too deep or too many parts raises LDrawLimitError here, and the
    # recursion of build_of / embed below is then at most MAX_SUBMODEL_DEPTH deep
    measure_submodels(main, blocks.get, doc.is_submodel)
    root = build_of(main, (main.key,))
    root.embedded_files.update(embedded)
    root.embedded_file_lines.update(embedded_lines)
    for name, _first, body in doc.data_blocks:  # 0 !DATA blocks (textures): kept to be written back
        root.ldraw_data_files.setdefault(name.lower(), (name, "\n".join(body)))
    root.unreadable_lines = _unreadable_in_use(doc, set(builds) | set(embedded)) + cycles
    return root


def _unreadable_in_use(doc: LDrawDocument, used_keys: set[str]) -> list[LDrawWarning]:
    """The skipped type-1 lines (``doc.skipped_refs``) of the blocks the model uses.

    A block is used when it was walked as a submodel or kept as an embedded part; an MPD
    block nothing references (or a second block of a name already taken, LDraw viewers
    read the first) does not make the model lose a part.
    """
    if not doc.skipped_refs:
        return []
    if not doc.is_mpd:
        return list(doc.skipped_refs)
    blocks = doc.blocks_by_key
    used = {id(blocks[k]) for k in used_keys if k in blocks}
    firsts = sorted((f.first_line, i) for i, f in enumerate(doc.files))
    out = []
    for w in doc.skipped_refs:
        owner = None
        for first, i in firsts:
            if first > w.line:
                break
            owner = doc.files[i]
        if owner is not None and id(owner) in used:
            out.append(w)
    return out


def from_ldraw(text: str, *, source: str = "<text>", library=None) -> LegoBuild:
    """Build from LDraw text (``.ldr`` or ``.mpd``).

    Parameters
    ----------
    text : str
    source : str
        File name used in warnings.
    library : LDrawLibrary, optional
        Default: the installed one (``ldraw_data.get_library()``).

    Returns
    -------
    LegoBuild
        ``build.import_warnings`` lists what was noticed (unknown parts, malformed lines);
        ``build.unreadable_lines`` lists the part lines (type 1) of the model and the
        submodels and embedded parts it uses that could not be read and were skipped, as
        :class:`~ldraw_data.errors.LDrawWarning` (``path``, ``line``, ``message``): each is
        a part the file places but the build lacks, so validation reports the build as
        not valid (``brickwright validate``). Each part placement's ``origin`` is
        ``(source, line)``: the physical line of its type-1 line in ``text`` (in an MPD,
        the line in the whole file, whatever block holds it).

    Raises
    ------
    LDrawParseError
        When a colour code is not defined in LDConfig.ldr.
    LDrawLimitError
        Before anything is built, when submodels nest deeper than ``ldraw_data.MAX_SUBMODEL_DEPTH``
        or the model expands to more than ``ldraw_data.MAX_FLAT_PARTS`` parts.
    """
    if library is None:
        from ldraw_data.library import get_library

        library = get_library()
    return _from_text(text, source, library, None)


def _from_text(text: str, source: str, library, line_map, doc: LDrawDocument | None = None) -> LegoBuild:
    """:func:`from_ldraw`; ``line_map[k - 1]`` = (file, line) of line k of ``text`` when it joins several files;
    ``doc``: ``text`` already parsed (as ``source``)."""

    def where(path: str, line: int | None) -> tuple[str, int | None]:
        if line_map is None or not line or not (0 < line <= len(line_map)):
            return path, line
        return line_map[line - 1]

    def moved(w: LDrawWarning) -> LDrawWarning:
        if isinstance(w, SubmodelCycleWarning):  # each reference of the loop in the file it was read from
            return SubmodelCycleWarning.of((a, b, *where(f, n)) for a, b, f, n in w.cycle)
        path, line = where(w.path, w.line)
        return LDrawWarning(path, line, w.message) if (path, line) != (w.path, w.line) else w

    if doc is None:
        doc = parse_document(text, source)
    warnings = list(doc.warnings)
    try:
        build = _doc_to_build(doc, library, warnings, text.lstrip("\ufeff").splitlines())
    except LDrawParseError as exc:
        if line_map is None:
            raise
        raise type(exc)(*where(exc.path, exc.line), exc.message) from None
    if line_map is not None:
        warnings = [moved(w) for w in warnings]
        build.unreadable_lines = [moved(w) for w in build.unreadable_lines]
        for b in [build, *build.sub_builds()]:
            for pl in b.placements:
                if pl.origin is not None:
                    pl.origin = where(*pl.origin)
            b.embedded_file_lines = {k: where(*v) for k, v in b.embedded_file_lines.items()}
    for w in warnings:
        log.warning("%s", w)
    build.import_warnings = LDrawImportResult(warnings)
    return build


def _read_text(p: Path) -> str:
    return read_model_file(p)


def _first_file_line(text: str) -> int:
    """0-based index of the first ``0 FILE`` line of an MPD text (as :func:`parse_document` finds it)."""
    for i, ln in enumerate(text.lstrip("\ufeff").splitlines()):
        st = ln.strip()
        if st.startswith("0") and st[1:2].isspace() and st[1:].strip()[:4].upper() == "FILE" and (
                len(st[1:].strip()) == 4 or st[1:].strip()[4].isspace()):
            return i
    raise BrickLayerValueError("no 0 FILE line")  # callers pass texts parsed as MPDs


def _local_subfiles(p: Path, text: str, library) -> tuple[str, list | None, LDrawDocument | None]:
    """Join to ``text`` the model files it references that lie beside it (LDraw viewers read them too).

    LDraw spec 1.0.2 ("Sub-files"): a type-1 line's file is looked up in the folder of the
    file that references it, then in the library's ``p``, ``parts`` and ``models``
    folders. A name that is neither an MPD block nor a library file but is a file in the
    model's folder (a sub-model saved as its own ``.ldr``, as LDCad and LeoCAD allow) is
    appended as one more MPD block, and so are the files it references in turn. An ``.mpd`` file
    referenced so is appended whole, its first block (the model it shows) renamed to the name it
    is referenced by; :func:`ldraw_data.io.flatten` resolves the same files the same way.

    Returns
    -------
    (text, line_map, doc)
        The joined MPD text and, per line of it, the (file name, line) it came from, and None; or
        ``(text, None, doc)`` unchanged, with its parse, when nothing is referenced from the folder.
    """
    folder = p.parent
    doc = parse_document(text, p.name)
    known = set(doc.blocks_by_key)
    listings: dict = {}
    added: list[tuple[str, str, str, bool]] = []  # (name as referenced, file name, text, is an MPD)
    todo = [doc]
    while todo:
        d = todo.pop()
        for f in d.files:
            for r in f.refs:
                if r.key in known:
                    continue
                known.add(r.key)
                local = file_beside(folder, r.name, listings)
                if local is None or local == p or library.find(r.name) is not None:
                    continue
                sub_text = _read_text(local)
                file = local.relative_to(folder).as_posix()
                sub = parse_document(sub_text, file)
                added.append((r.name, file, sub_text, sub.is_mpd))
                known.update(sub.blocks_by_key)
                todo.append(sub)
    if not added:
        return text, None, doc
    out: list[str] = []
    line_map: list[tuple[str, int]] = []

    def put(file: str, text_: str, block: str | None) -> None:
        if block is not None:
            out.append(f"0 FILE {block}")
            line_map.append((file, 1))
        for k, ln in enumerate(text_.lstrip("\ufeff").splitlines(), 1):
            out.append(ln)
            line_map.append((file, k))

    put(p.name, text, None if doc.is_mpd else p.name)
    for ref_name, file, sub_text, is_mpd in added:
        if is_mpd:  # the reference names the file: its first block (the model it shows, MPD spec)
            first = _first_file_line(sub_text)
            body = sub_text.lstrip("\ufeff").splitlines()
            body[first] = f"0 FILE {ref_name}"
            sub_text = "\n".join(body)
        put(file, sub_text, None if is_mpd else ref_name)
    return "\n".join(out) + "\n", line_map, None


def read_ldraw(path, *, library=None) -> LegoBuild:
    """Read an ``.ldr``/``.mpd`` file into a build (see :func:`from_ldraw`).

    A reference to a model file beside it (neither an MPD block nor a library part:
    ``sub.ldr`` saved next to ``main.ldr``) is read from that file, as LDraw viewers do
    (LDraw spec 1.0.2: sub-files are looked up in the referencing file's folder first);
    the build then holds it as a sub-build, placement origins and warnings name the file
    and line each came from, and writing the build gives one MPD.

    Parameters
    ----------
    path : str or os.PathLike
    library : LDrawLibrary, optional
        Default: the installed one.

    Raises
    ------
    LDrawParseError
        When the file (or a file beside it that it references) cannot be read, is binary,
        or uses an undefined colour code.
    LDrawLimitError
        When the model nests or expands past the limits (see :func:`from_ldraw`).
    """
    p = Path(path)
    text = _read_text(p)
    if library is None:
        from ldraw_data.library import get_library

        library = get_library()
    text, line_map, doc = _local_subfiles(p, text, library)
    return _from_text(text, p.name, library, line_map, doc)


def _fmt(v: float) -> str:
    """Shortest text of ``v`` rounded to 1e-9 LDU (keeps every digit real files hold)."""
    r = round(float(v), 9)
    if r == 0:
        return "0"
    if r == int(r):
        return str(int(r))
    return repr(r)


def _line1(color: int, m: np.ndarray, name: str) -> str:
    c = f"0x{color:07X}" if color >= 0x2000000 else str(int(color))
    vals = [m[0, 3], m[1, 3], m[2, 3], *m[:3, :3].ravel()]
    return f"1 {c} " + " ".join(_fmt(v) for v in vals) + f" {_one_line(name)}"


def _ref_name(part_id: str) -> str:
    """File reference for a part id: ``s/3001s01`` -> ``s\\3001s01.dat``; ``x.ldr`` stays."""
    name = part_id.replace("/", "\\")
    return name if name.lower().endswith((".ldr", ".mpd", ".l3b")) else name + ".dat"


#: Characters a file name cannot hold on Windows (and ``/`` anywhere): an MPD block name is the name of the
#: file LDraw editors (LeoCAD, LDCad, MLCad) save the submodel to when it is taken out of the MPD.
_NOT_IN_FILE_NAMES = re.compile(r'[\\/:*?"<>|]')


def _file_name(text: str, fallback: str) -> str:
    """``text`` as an LDraw model file name: on one line, without characters file names cannot hold
    (replaced by ``_``), trimmed (a type-1 line's file name cannot end in a space), ending in ``.ldr`` unless
    it ends in ``.ldr``, ``.mpd`` or ``.dat`` already (LDraw spec 1.0.2: models are ``.ldr`` files;
    spaces are allowed, as in the Official Model Repository's names)."""
    name = _NOT_IN_FILE_NAMES.sub("_", _one_line(text)).strip() or fallback
    return _ensure_ext(name)


def _block_names(root: LegoBuild, main_name: str | None = None) -> dict[int, str]:
    """MPD block name of every build in the tree, unique case-insensitively.

    A build read from a file (it has ``ldraw_header``) keeps its block name as written (round trips
    stay exact); any other build is named from its ``name``, else the placement's name (else
    ``submodel-N``), as a file name (:func:`_file_name`: sanitised, ``.ldr`` added). The root: its own
    name, else ``main_name`` (the file written), else ``model.ldr``.
    """
    def as_read(b: LegoBuild) -> bool:
        return bool(b.ldraw_header) and bool(b.name)

    if as_read(root):
        first = _one_line(root.name).strip()
    else:
        first = _file_name(root.name or main_name or "model.ldr", "model.ldr")
    names: dict[int, str] = {id(root): first}
    used = {first.lower()}
    counter = [0]

    def unique(base: str, keep: bool) -> str:
        cand = (_one_line(base).strip() or "submodel.ldr") if keep else _file_name(base, "submodel.ldr")
        stem = cand.rsplit(".", 1)[0] if "." in cand else cand
        k = 2
        while cand.lower() in used:
            cand = _ensure_ext(f"{stem}-{k}")
            k += 1
        used.add(cand.lower())
        return cand

    def visit(b: LegoBuild):
        for p in b.placements:
            c = p.content
            if isinstance(c, LegoBuild) and id(c) not in names:
                counter[0] += 1
                names[id(c)] = unique(c.name or b.name_of(p) or f"submodel-{counter[0]}", keep=as_read(c))
                visit(c)

    visit(root)
    return names


def _ensure_ext(n: str) -> str:
    return n if n.lower().endswith((".ldr", ".mpd", ".dat")) else n + ".ldr"


#: Environment variable giving the ``0 Author:`` of the files :func:`to_ldraw` writes (else ``"BrickLayer"``).
AUTHOR_ENV = "BRICKWRIGHT_AUTHOR"


def _default_author() -> str:
    import os

    return os.environ.get(AUTHOR_ENV, "").strip() or "BrickLayer"


class LDrawMPDSuffixWarning(UserWarning):
    """An MPD (a build with submodels, embedded parts or ``!DATA`` blocks) written to a file whose name
    does not end in ``.mpd``: LDraw viewers read it, but the MPD spec suggests the ``.mpd`` extension."""


def _block_lines(b: LegoBuild, names: dict[int, str]) -> list[str]:
    out = []
    rev_names = {id(p): n for n, p in b.names.items()}
    steps = b.steps
    for si, group in enumerate(steps):
        for p in group:
            out.extend(_one_line(n) for n in p.ldraw_notes)
            if id(p) in rev_names:
                out.append(f"0 {_NAME_META} NAME {_one_line(rev_names[id(p)])}")
            c = p.content
            if isinstance(c, LegoBuild):
                m = B2L @ p.pose.matrix @ L2B
                out.append(_line1(p.color if p.color is not None else 16, m, names[id(c)]))
            else:
                m = B2L @ p.pose.matrix @ c.ldraw_to_local if c.known else B2L @ p.pose.matrix @ L2B
                out.append(_line1(int(c.color), m, _ref_name(c.ldraw_id)))
        if si < len(steps) - 1:
            out.append("0 STEP")
    out.extend(_one_line(n) for n in b.ldraw_trailer)
    return out


def to_ldraw(build: LegoBuild, *, title: str | None = None, name: str | None = None,
             author: str | None = None) -> str:
    """LDraw text of a build: plain LDR when flat, MPD when it nests builds, embeds parts or holds
    ``0 !DATA`` blocks.

    Headers follow the LDraw file format 1.0.2 and the Official Model Repository's conventions: each
    file (each MPD block) starts with its title, ``0 Name: <its file name>``, ``0 Author: ...`` and
    ``0 !LDRAW_ORG Unofficial_Model``; in an MPD, ``0 Name:`` repeats the block's ``0 FILE`` name.
    A header read from a file is kept as written (author, licence, history), its ``0 Name:`` set to
    the name written. Submodel names are file names (``.ldr`` added, characters file names cannot
    hold replaced by ``_``; spaces allowed), except those of builds read from a file, kept as written.
    Steps that hold only meta lines and ``0 !DATA`` blocks (embedded textures, MPD spec revision 2)
    read from a file are written back.

    Parameters
    ----------
    build : LegoBuild
    title : str, optional
        First-line description (default the build's name or ``"BrickLayer model"``).
    name : str, optional
        File name the text is for (``write_ldraw`` passes the path's name): a flat model's
        ``0 Name:``; an MPD's main block is named after it when the build has no name.
    author : str, optional
        ``0 Author:`` of the headers written (not of headers read from a file). Default: the
        ``BRICKWRIGHT_AUTHOR`` environment variable, else ``"BrickLayer"``. LDraw's form is
        ``Real Name [LDraw.org user name]``.

    Returns
    -------
    str
        Lines end with ``\\n``; coordinates in LDU with up to 6 decimals. Names, titles and kept
        header lines are written on one line each: a control or line-breaking character in them
        (``\\n``, ``\\r``, ``\\x0c``, U+2028, ...) is replaced by a space, so a name cannot add a
        part or block to the file.
    """
    file_name = _one_line(Path(str(name)).name).strip() if name else None
    main_block = file_name[:-4] + ".ldr" if file_name and file_name.lower().endswith(".mpd") else file_name
    names = _block_names(build, main_block)  # an MPD's blocks are .ldr files (OMR: "<set> - <name>.ldr")
    embedded: dict[str, tuple[str, str]] = {}
    data_files: dict[str, tuple[str, str]] = {}
    for b in [build, *build.sub_builds()]:
        for k, v in b.embedded_files.items():
            embedded.setdefault(k, v)
        for k, v in b.ldraw_data_files.items():
            data_files.setdefault(k, v)
    nested = len(names) > 1 or bool(embedded) or bool(data_files)
    if not nested and file_name:
        names[id(build)] = file_name  # a plain file's 0 Name: is the file's own name
    who = _one_line(author if author is not None else _default_author()).strip() or "BrickLayer"
    head = _one_line(title or (build.name or "BrickLayer model"))
    lines: list[str] = []
    order = [build]
    seen = {id(build)}
    i = 0
    while i < len(order):
        for p in order[i].placements:
            if isinstance(p.content, LegoBuild) and id(p.content) not in seen:
                seen.add(id(p.content))
                order.append(p.content)
        i += 1
    for b in order:
        nm = names[id(b)]
        if nested:
            lines.append(f"0 FILE {nm}")
        if b.ldraw_header:  # the header read from a file: author, licence, history kept as written
            hdr = [_one_line(ln) for ln in b.ldraw_header if ln.strip()]
            lines.extend(f"0 Name: {nm}" if ln.strip().lower().startswith("0 name:") else ln for ln in hdr)
        else:
            lines.append(f"0 {head if b is build else _one_line(b.name or nm)}")
            lines.append(f"0 Name: {nm}")
            lines.append(f"0 Author: {who}")
            lines.append("0 !LDRAW_ORG Unofficial_Model")
        lines.extend(_block_lines(b, names))
        if nested:
            lines.append("0 NOFILE")
    for _key, (nm, text) in embedded.items():
        lines.append(f"0 FILE {_one_line(nm)}")
        lines.extend(_one_line(t) for t in text.splitlines())
        lines.append("0 NOFILE")
    for _key, (nm, text) in data_files.items():  # MPD spec revision 2: 0 !DATA <name>, then 0 !: lines
        lines.append(f"0 !DATA {_one_line(nm)}")
        lines.extend(_one_line(t) for t in text.splitlines())
        lines.append("0 NOFILE")
    return "\n".join(lines) + "\n"


def write_ldraw(build: LegoBuild, path, *, overwrite: bool = False, title: str | None = None,
                author: str | None = None) -> Path:
    """Write a build to an ``.ldr``/``.mpd`` file atomically (temp file, then rename).

    Parameters
    ----------
    build : LegoBuild
    path : path
        A build with submodels, embedded parts or ``!DATA`` blocks is written as an MPD: name it
        ``.mpd`` (MPD spec); another suffix is written as given, with an :class:`LDrawMPDSuffixWarning`
        (LDraw viewers read MPD text in an ``.ldr`` file).
    overwrite : bool
        Replace an existing file. Default False: an existing file raises
        FileExistsError, so a user's model is never replaced without being asked.
    title : str, optional
    author : str, optional
        As for :func:`to_ldraw` (default ``$BRICKWRIGHT_AUTHOR``, else ``"BrickLayer"``).

    Returns
    -------
    Path
        The file; its ``0 Name:`` (a plain file) or main block's name (an MPD, when the build has no
        name) is the file's name.
    """
    from ldraw_data.fileio import check_output_file

    p = check_output_file(path, overwrite)
    if not isinstance(build, LegoBuild):
        raise BrickLayerTypeError(f"write_ldraw(build, path) needs a LegoBuild, got {type(build).__name__}")
    text = to_ldraw(build, title=title, name=p.name, author=author)
    if p.suffix.lower() != ".mpd" and text.startswith("0 FILE "):
        import warnings

        warnings.warn(f"{p}: the build has submodels, embedded parts or !DATA blocks, so it is written as an MPD; "
                      f"name the file {p.with_suffix('.mpd').name} (the MPD spec's extension)",
                      LDrawMPDSuffixWarning, stacklevel=2)
    return atomic_write(p, text, replace=overwrite)  # a racing writer's file is kept
