"""Reading LDraw models from disk and flattening them to part placements.

"Flattening" walks the submodel tree of a document and returns one
placement per part: every type-1 reference that does not name an embedded
submodel (issue #2's rule), including MPD-embedded ``.dat`` parts (stickers,
custom and bent parts), primitives and LSynth segments referenced directly
from a model, and references the library does not know (kept, with a
warning naming the part, the file and the line).
"""

from __future__ import annotations

__all__ = [
    "FlatPart",
    "FlatModel",
    "read_document",
    "flatten",
    "load_model",
    "orthonormalize",
    "rotation_deviation",
    "ORTHONORMAL_TOLERANCE",
    "SINGULAR_TOLERANCE",
]

import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import LDrawWarning, SubmodelCycleWarning
from ..library import LDrawLibrary, folder_reference_advice, read_model_file
from .limits import measure_submodels
from .parse import LDrawDocument, LDrawFile, parse_document
from ..text import short_id

#: Largest ``max |R^T R - I|`` of one type-1 line's own matrix accepted
#: silently. Official models round rotation entries to 2-6 decimals: over the
#: 67 official models of ``shared/models`` the local deviations of non-primitive
#: references are below 0.05 except for parts really drawn scaled (u9053,
#: 76279, stud3a, 30231). Past it a warning says so. The matrix is always kept
#: as written; geometry uses :func:`orthonormalize`. Checked per line, not on
#: the composed world matrix, so rounding is not compounded through submodels.
ORTHONORMAL_TOLERANCE = 5e-2

#: ``|det R|`` below this is a singular (flattening) matrix: kept, warned.
SINGULAR_TOLERANCE = 1e-6


def rotation_deviation(rot: np.ndarray) -> np.ndarray:
    """``max |R^T R - I|`` of one (3, 3) or many (n, 3, 3) matrices (0 for a rotation or mirror; ``inf`` for
    entries so large that the product overflows, e.g. 1e300, without a numpy warning)."""
    r = np.asarray(rot, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        rtr = np.swapaxes(r, -1, -2) @ r
    return np.abs(rtr - np.eye(3)).max(axis=(-1, -2))


def orthonormalize(rot: np.ndarray) -> np.ndarray:
    """Nearest orthonormal matrix (polar decomposition via SVD), keeping a mirror.

    Parameters
    ----------
    rot : (3, 3) or (n, 3, 3) float
        Rotation matrices as written in a file (rounded, maybe mirrored).

    Returns
    -------
    ndarray, same shape
        ``U @ Vt``; its determinant is +1 for a rotation and -1 for a
        mirrored placement (flexible hose segments are drawn that way).
        Singular inputs give the nearest orthonormal matrix of their
        non-degenerate part.
    """
    u, _s, vt = np.linalg.svd(np.asarray(rot, dtype=np.float64))
    return u @ vt


@dataclass(frozen=True)
class FlatPart:
    """One part placement after flattening.

    Attributes
    ----------
    part_id : str
        Normalized reference without ``.dat`` (``"3001"``, ``"s/3001s01"``), or
        the embedded block's normalized name for an MPD-embedded part.
    name : str
        The reference exactly as written in the file.
    color : int
        Resolved colour code (16 inside a submodel takes the referencing colour).
    transform : (4, 4) float64, LDU, LDraw frame (-Y up)
        World transform as composed from the file (not orthonormalized).
    submodel_path : tuple of str
        Names of the submodels from the main model down to the one holding this line.
    file : str
        Block (submodel) name the line is in.
    line : int
        1-based physical line number in the source file.
    source : str
        ``"library"``, ``"embedded"`` (MPD-embedded part) or ``"unknown"``.
    primitive : bool
        True when the reference resolves to a primitive in ``p/``.
    """

    part_id: str
    name: str
    color: int
    transform: np.ndarray
    submodel_path: tuple[str, ...]
    file: str
    line: int
    source: str
    primitive: bool = False


@dataclass
class FlatModel:
    """A model flattened to parts.

    Attributes
    ----------
    source : str
        File name.
    document : LDrawDocument
    parts : list of FlatPart
    warnings : list of LDrawWarning
    submodels : list of str
        Names of the submodel blocks in file order (main model first).
    embedded_parts : list of str
        Names of MPD-embedded part blocks.
    """

    source: str
    document: LDrawDocument
    parts: list[FlatPart] = field(default_factory=list)
    warnings: list[LDrawWarning] = field(default_factory=list)
    submodels: list[str] = field(default_factory=list)
    embedded_parts: list[str] = field(default_factory=list)

    @property
    def transforms(self) -> np.ndarray:
        """(n, 4, 4) float64 world transforms, LDU, LDraw frame."""
        if not self.parts:
            return np.zeros((0, 4, 4))
        return np.stack([p.transform for p in self.parts])

    @property
    def unknown_parts(self) -> list[str]:
        """Sorted distinct names of parts neither in the library nor embedded."""
        return sorted({p.name for p in self.parts if p.source == "unknown"})


def read_document(path: str | os.PathLike) -> LDrawDocument:
    """Read and parse a ``.dat``/``.ldr``/``.mpd`` file.

    Raises
    ------
    LDrawParseError
        When the file cannot be read (missing, a folder, unreadable) or holds binary data.
    LDrawLimitError
        When it is larger than the input size limit (256 MiB; :func:`ldraw_data.library.read_model_file`).
    """
    p = Path(path)
    return parse_document(read_model_file(p), p.name)


def file_beside(folder: Path, name: str, listings: dict | None = None) -> Path | None:
    """The file a type-1 reference names in a model's folder, or None.

    Parameters
    ----------
    folder : Path
        The model's folder (LDraw spec 1.0.2, "Sub-files": the referencing file's folder is searched).
    name : str
        The reference as written: ``/`` or ``\\`` separated, any case (LDraw names are
        case-insensitive); ``..`` and absolute paths are refused (None).
    listings : dict, optional
        folder -> {lower-case entry name: path}, filled as folders are listed, so that each folder
        is listed once per read.

    Used by :func:`flatten` and :func:`bricklayer.read_ldraw` alike, so both find the same files.
    """
    listings = {} if listings is None else listings
    cur = folder
    for comp in name.replace("\\", "/").split("/"):
        if comp in ("", ".", ".."):
            return None
        entries = listings.get(cur)
        if entries is None:
            try:
                entries = {c.name.lower(): c for c in cur.iterdir()}
            except OSError:
                entries = {}
            listings[cur] = entries
        cur = entries.get(comp.lower())
        if cur is None:
            return None
    return cur if cur.is_file() else None



def _part_like_as(f: LDrawFile, name: str) -> bool:
    """:attr:`LDrawFile.is_part_like` of ``f`` as if it were called ``name``."""
    org = f.ldraw_org.lower()
    if org:
        return not ("model" in org and "part" not in org)
    return name.strip().replace("\\", "/").lower().endswith(".dat")


def _is_submodel_block(f: LDrawFile, doc: LDrawDocument) -> bool:
    """See :meth:`LDrawDocument.is_submodel` (first block = main model)."""
    return doc.is_submodel(f)


def flatten(
    doc: LDrawDocument,
    library: LDrawLibrary | None,
    *,
    base_dir: str | os.PathLike | None = None,
) -> FlatModel:
    """Flatten a parsed document to part placements.

    Parameters
    ----------
    doc : LDrawDocument
    library : LDrawLibrary or None
        Used to tell parts from unknown references; None treats every
        non-embedded reference as a part of unknown source ("unknown").
    base_dir : path, optional
        Folder of the model file: a reference that is neither embedded nor a
        library file but exists there as ``.ldr``/``.mpd`` is loaded as a
        submodel (LDraw spec: the model's own folder is searched too).

    Returns
    -------
    FlatModel
        Parts in depth-first file order. A submodel reference closing a cycle is skipped
        with a warning (the same lines :func:`bricklayer.read_ldraw` skips).

    Raises
    ------
    LDrawLimitError
        Before anything is expanded, when submodels nest deeper than
        :data:`~ldraw_data.io.limits.MAX_SUBMODEL_DEPTH` or the model expands to more than
        :data:`~ldraw_data.io.limits.MAX_FLAT_PARTS` parts (see
        :func:`~ldraw_data.io.limits.measure_submodels`).
    """
    model = FlatModel(doc.source, doc, warnings=list(doc.warnings))
    blocks = doc.blocks_by_key
    # identities of the blocks walked as submodels (this document's and external files')
    submodel_ids = {id(f) for f in doc.files if _is_submodel_block(f, doc)}
    model.submodels = [f.name for f in doc.files if _is_submodel_block(f, doc)]
    model.embedded_parts = [f.name for f in doc.files if not _is_submodel_block(f, doc)]
    external: dict[str, LDrawFile | None] = {}
    warned_unknown: set[str] = set()
    base = Path(base_dir) if base_dir else None

    listings: dict = {}

    def external_block(key: str) -> LDrawFile | None:
        """A model file beside the model (any name the library lacks, as :func:`bricklayer.read_ldraw` finds
        it): a stand-alone file is one block named as referenced; an MPD's first block is named as referenced
        and its other blocks are added under their own names (first name wins)."""
        if key in external:
            return external[key]
        found = None
        cand = file_beside(base, key, listings) if base is not None and base.is_dir() else None
        if cand is not None:
            sub = read_document(cand)
            model.warnings.extend(sub.warnings)
            found = sub.main
            for f in sub.files[1:]:
                if f.key not in blocks:
                    blocks[f.key] = f
                    if not f.is_part_like:
                        submodel_ids.add(id(f))
            if not _part_like_as(found, key):
                submodel_ids.add(id(found))
        external[key] = found
        return found

    def lookup(key: str) -> LDrawFile | None:
        """The block a reference names (MPD block, else a model file beside the model), None for a part."""
        blk = blocks.get(key)
        if blk is None and (library is None or library.find(key) is None):
            blk = external_block(key)
        return blk

    # measured before anything is expanded: too deep or too many parts raises LDrawLimitError here
    tree = measure_submodels(doc.main, lookup, lambda b: id(b) in submodel_ids)
    cycles_warned: set[tuple[str, int]] = set()
    checked: set[tuple[str, int]] = set()

    def check_matrix(ref, f: LDrawFile, fkey: str, blk: LDrawFile | None) -> None:
        if (fkey, ref.line) in checked:  # a submodel used twice is checked once
            return
        checked.add((fkey, ref.line))
        if blk is None and library is not None and library.is_primitive(ref.key):
            return  # primitives are meant to be scaled (LDraw spec)
        if blk is not None and ("primitive" in blk.ldraw_org.lower() or "lsynth" in blk.title.lower()):
            return  # embedded primitives and LSynth hose/band segments are scaled by design
        rot = ref.transform[:3, :3]
        if abs(float(np.linalg.det(rot))) < SINGULAR_TOLERANCE:
            model.warnings.append(LDrawWarning(doc.source, ref.line,
                f"{ref.name!r} (in {f.name!r}) has a singular matrix; kept as written"))
            return
        dev = float(rotation_deviation(rot))
        if dev > ORTHONORMAL_TOLERANCE:
            model.warnings.append(LDrawWarning(doc.source, ref.line,
                f"{ref.name!r} (in {f.name!r}) has a non-orthonormal matrix (deviation {dev:.3g} > "
                f"{ORTHONORMAL_TOLERANCE}); kept as written, geometry uses the nearest rotation"))

    def walk(f: LDrawFile, fkey: str, world: np.ndarray, color: int, path: tuple[str, ...],
             keys: tuple[str, ...] = (), trail: tuple = ()) -> None:
        # recursive: the depth is at most MAX_SUBMODEL_DEPTH (measure_submodels checked it); keys: the keys of
        # the blocks walked into, outermost first; trail[i]: the reference (placing name, placed name, file,
        # line) that entered keys[i + 1]
        keys = keys or (fkey,)
        for ref in f.refs:
            key = ref.key
            c = color if ref.color == 16 else ref.color
            t = world @ ref.transform
            blk = lookup(key)
            check_matrix(ref, f, fkey, blk)
            if blk is not None and id(blk) in submodel_ids:
                step = (f.name, ref.name, f.source or doc.source, ref.line)
                if (fkey, ref.line) in tree.back_edges:
                    if (fkey, ref.line) not in cycles_warned:
                        cycles_warned.add((fkey, ref.line))
                        loop = trail[keys.index(key):] if key in keys else ()
                        model.warnings.append(SubmodelCycleWarning.of(loop + (step,)))
                    continue
                walk(blk, key, t, c, path + (blk.name,), keys + (key,), trail + (step,))
                continue
            if blk is not None:
                source, prim = "embedded", False
                pid = key[:-4] if key.endswith(".dat") else key
            else:
                found = library.find(key) if library is not None else None
                source = "library" if found is not None else "unknown"
                prim = bool(found is not None and library.is_primitive(key))
                pid = key[:-4] if key.endswith(".dat") else key
                if source == "unknown" and key not in warned_unknown:
                    warned_unknown.add(key)
                    advice = folder_reference_advice(ref.name, library)
                    model.warnings.append(LDrawWarning(doc.source, ref.line,
                        f"unknown part {short_id(ref.name)!r} (in {short_id(f.name)!r}) is not in the LDraw library; "
                        "kept as a placement without geometry or connectors" + (f"; {advice}" if advice else "")))
            model.parts.append(FlatPart(pid, ref.name, c, t, path, f.name, ref.line, source, prim))

    main = doc.main  # MPD spec: the first block is the model shown
    walk(main, main.key, np.eye(4), 16, (main.name,))
    return model


def load_model(path: str | os.PathLike, library: LDrawLibrary | None = None) -> FlatModel:
    """Read a model file and flatten it (see :func:`flatten`).

    Parameters
    ----------
    path : path
        ``.ldr``, ``.mpd`` or ``.dat`` file.
    library : LDrawLibrary, optional
        Defaults to :func:`~ldraw_data.library.get_library`.

    Raises
    ------
    LDrawParseError
        When the file cannot be read.
    LDrawLimitError
        When the model nests or expands past the limits (see :func:`flatten`).
    LibraryNotFoundError
        When no library is given and none is installed.
    """
    from ..library import get_library

    lib = library if library is not None else get_library()
    doc = read_document(path)
    return flatten(doc, lib, base_dir=Path(path).parent)
