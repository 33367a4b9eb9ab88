"""Locating, installing and reading the LDraw parts library.

Resolution order (see :func:`find_library`): an explicit path, then the
``LDRAWDIR`` environment variable, then the copy installed by
``brickwright library install``. A library is a folder laid out like the
official ``complete.zip`` unpacked: ``LDConfig.ldr``, ``parts/``,
``parts/s/``, ``p/``, ``p/48/``, ``p/8/`` (and optionally ``Unofficial/`` and
``models/``).

File references inside LDraw files are resolved as the LDraw File Format spec
1.0.2 ("Line type 1") says: names are case-insensitive, ``\\`` and ``/`` are
both separators, and a name is searched in ``parts/`` then ``p/`` (so
``s\\3001s01.dat`` is found in ``parts/s/`` and ``48\\1-4cyli.dat`` in
``p/48/``), then the unofficial folders, then ``models/``.
"""

from __future__ import annotations

__all__ = [
    "LDrawLibrary",
    "find_library",
    "folder_reference_advice",
    "get_library",
    "install_library",
    "find_shadow_library",
    "shadow_zip_beside",
    "data_dir",
    "cache_dir",
    "normalize_name",
    "read_ldraw_text",
    "read_model_file",
]

import hashlib
import logging
import os
import shutil
import tempfile
import time
import urllib.parse
import zipfile
from functools import cached_property, lru_cache
from pathlib import Path

from .errors import LDrawError, LDrawFileNotFoundError, LDrawParseError, LibraryNotFoundError
from .fileio import UTF16_BE_BOM, UTF16_LE_BOM

log = logging.getLogger(__name__)

#: Folders searched for a reference, in LDraw order (spec 1.0.2, line type 1).
SEARCH_FOLDERS = ("parts", "p", "Unofficial/parts", "Unofficial/p", "models")


def _ci_child(root: Path, rel: str) -> Path | None:
    """``root/rel`` matched case-insensitively per component, or None.

    LDraw names are case-insensitive (spec 1.0.2); on a case-sensitive file
    system an older or hand-made library may spell its folders ``PARTS``, ``P``
    or ``unofficial``. The exact spelling is tried first (one ``stat``).
    """
    exact = root / rel
    if exact.exists():
        return exact
    cur = root
    for part in rel.split("/"):
        try:
            match = next((c for c in cur.iterdir() if c.name.lower() == part.lower()), None)
        except OSError:
            return None
        if match is None:
            return None
        cur = match
    return cur


def _has_dir(root: Path, rel: str) -> bool:
    p = _ci_child(root, rel)
    return p is not None and p.is_dir()


def normalize_name(name: str) -> str:
    """Canonical key of an LDraw file reference.

    Parameters
    ----------
    name : str
        A reference as written in a type-1 line or ``0 FILE`` line, e.g.
        ``"S\\3001s01.DAT"``.

    Returns
    -------
    str
        Lower case, ``/`` as separator, surrounding blanks removed
        (``"s/3001s01.dat"``). LDraw names are case-insensitive and accept both
        separators (LDraw File Format spec 1.0.2).
    """
    return name.strip().replace("\\", "/").lower()


def read_ldraw_text(data: bytes, source: str = "<bytes>") -> str:
    """Decode the bytes of an LDraw file.

    UTF-8 (with or without BOM) is tried first, as the LDraw spec 1.0.2 asks;
    files that are not valid UTF-8 are read as Latin-1, which older files use.
    A file that starts with a UTF-16 byte-order mark (``FF FE`` little-endian or
    ``FE FF`` big-endian; what Windows Notepad writes as "Unicode") is decoded as
    UTF-16: the spec asks for UTF-8, but LPub3D reads models through Qt's
    ``QTextStream``, whose Unicode detection (on by default) switches to UTF-16 on
    its BOM, so such a file opens there and it opens here too. Line endings are left to the parser
    (CRLF, LF and CR all work).

    Parameters
    ----------
    data : bytes
        The file's bytes.
    source : str
        File name for the error message.

    Raises
    ------
    LDrawParseError
        When the bytes hold a NUL byte and no UTF-16 BOM: LDraw files are text
        (spec 1.0.2), so this is a binary file (an image, an archive, a program)
        given by mistake; it is refused whole rather than read as thousands of
        unreadable lines. Also when a file with a UTF-16 BOM is not valid UTF-16
        (cut short, or binary data after the mark): the message says to save it
        as UTF-8.
    """
    if data.startswith((UTF16_LE_BOM, UTF16_BE_BOM)):
        try:
            text = data.decode("utf-16")  # reads the BOM for the byte order and drops it
        except UnicodeDecodeError as exc:
            line = data[:exc.start].decode("utf-16", errors="replace").count("\n") + 1
            raise LDrawParseError(
                source, line,
                f"UTF-16 text (it starts with a UTF-16 byte-order mark) that is not valid UTF-16 at byte "
                f"{exc.start}; save it as UTF-8, the encoding LDraw files use (spec 1.0.2)",
            ) from None
        nul = text.find("\x00")
        if nul < 0:
            return text
        data = text.encode("utf-8")  # report the NUL below on the decoded text's line
    nul = data.find(b"\x00")
    if nul >= 0:
        head = data[:nul].decode("latin-1").splitlines(keepends=True)  # as the parser splits lines
        line = len(head) + (1 if not head or head[-1][-1] in "\r\n" else 0)
        raise LDrawParseError(
            source, line,
            f"binary data (a NUL byte at offset {nul}): this is not an LDraw text file; "
            "give a .ldr, .mpd or .dat file (LDraw files are plain text)",
        )
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def read_model_file(path: str | os.PathLike) -> str:
    """The decoded text of a model file (``.ldr``/``.mpd``/``.dat``), read in bounded memory.

    Read with :func:`ldraw_data.fileio.read_input_bytes`: in 1 MiB chunks, stopping at the first NUL
    byte (unless it starts with a UTF-16 byte-order mark), at most :data:`ldraw_data.fileio.MAX_INPUT_BYTES` (256 MiB, or ``$BRICKWRIGHT_MAX_INPUT_MB``);
    pipes and character devices are read as streams with the same limits. Decoded by
    :func:`read_ldraw_text`.

    Raises
    ------
    LDrawFileNotFoundError
        When the file does not exist (also a ``FileNotFoundError``).
    LDrawParseError
        When it cannot be read (a folder, no permission) or holds a NUL byte (binary data).
    LDrawLimitError
        When it is larger than the limit, or is a named pipe nothing is written to within
        :data:`ldraw_data.fileio.FIFO_WRITER_WAIT_S` seconds.
    """
    from .errors import LDrawLimitError
    from .fileio import read_input_bytes

    p = Path(path)
    try:
        data = read_input_bytes(p, fail=lambda why: LDrawLimitError(str(p), None, why))
    except LDrawError:
        raise
    except OSError as exc:
        raise LDrawFileNotFoundError.reading(p, exc) from exc
    return read_ldraw_text(data, str(p))


_CHECKED_DIRS: set[tuple[str, str]] = set()


def _checked_dir(path: Path, variable: str, from_env: bool) -> Path:
    """``path`` when it is a folder or can be created as one; else a clear error naming ``variable``.

    A regular file at ``path`` (or at a folder above it) would make every write below it fail
    deep inside a cache or an install; this says so once, up front. Checked once per path and
    process.
    """
    key = (variable, str(path))
    if key in _CHECKED_DIRS:
        return path
    cur = path
    while not cur.exists() and cur.parent != cur:
        cur = cur.parent
    if cur.exists() and not cur.is_dir():
        where = f"{variable}={path}" if from_env else f"the default folder {path} (set by {variable} when set)"
        what = "it is a file" if cur == path else f"{cur} above it is a file"
        fix = (f"point {variable} at a folder (it is created when missing) or unset it" if from_env
               else f"move the file {cur} away, or set {variable} to a folder")
        raise LDrawError(f"{where} cannot be used: {what}, not a folder. {fix[0].upper()}{fix[1:]}.")
    _CHECKED_DIRS.add(key)
    return path


def _platform_env() -> tuple:
    """The environment variables ``platformdirs`` reads for the per-user folders (XDG spec on Linux,
    the home folder elsewhere): the key of :func:`_platform_dir`."""
    return tuple(os.environ.get(v) for v in ("XDG_DATA_HOME", "XDG_CACHE_HOME", "HOME", "USERPROFILE",
                                              "LOCALAPPDATA", "APPDATA"))


@lru_cache(maxsize=16)
def _platform_dir(kind: str, *_env) -> Path:
    """``platformdirs``' user ``kind`` ("data" or "cache") folder of brickwright, once per process and
    environment (``_env``: :func:`_platform_env`): it took 0.3 ms a call, and the mesh cache asks for
    it once per part (docs/rendering.md, round 6)."""
    import platformdirs

    get = platformdirs.user_data_dir if kind == "data" else platformdirs.user_cache_dir
    return Path(get("brickwright", appauthor=False))


def data_dir() -> Path:
    """Per-user folder where installed libraries live.

    ``BRICKWRIGHT_DATA_DIR`` overrides it; otherwise the platform's user data
    folder (``~/.local/share/brickwright`` on Linux, via ``platformdirs``).

    Raises
    ------
    LDrawError
        When the folder (or a folder above it) is a regular file; the message names
        ``BRICKWRIGHT_DATA_DIR`` and the path and says what to do.
    """
    env = os.environ.get("BRICKWRIGHT_DATA_DIR")
    if env:
        return _checked_dir(Path(env).expanduser(), "BRICKWRIGHT_DATA_DIR", True)
    return _checked_dir(_platform_dir("data", *_platform_env()), "BRICKWRIGHT_DATA_DIR",
                        False)


def folder_reference_advice(name: str, library: "LDrawLibrary | None") -> str:
    """What to write instead of a reference that names a library file with its search folder, for the
    messages about an unknown part; "" for any other name (or no library).

    Parameters
    ----------
    name : str
        The reference as written in the model (``"p/stud.dat"``, ``"parts/3003.dat"``).
    library : LDrawLibrary or None

    Returns
    -------
    str
        E.g. ``"LDraw references name library files without their folder (p/, parts/): write 'stud.dat',
        a primitive (p/), not a part: use the catalog part it belongs to"`` (:meth:`LDrawLibrary.reference_for`;
        primitive or sub-part as :meth:`LDrawLibrary.folder_of` tells).
    """
    if library is None:
        return ""
    ref = library.reference_for(name if name.lower().endswith(".dat") else name + ".dat")
    if ref is None:
        return ""
    folder = library.folder_of(ref) or ""
    what = (", a primitive (p/), not a part: use the catalog part it belongs to" if folder.lower().endswith("p")
            else ", a sub-part, not a part: use the catalog part it belongs to" if "/" in ref else "")
    return f"LDraw references name library files without their folder (p/, parts/): write {ref!r}{what}"


def cache_dir() -> Path:
    """Per-user folder for derived data (catalog, meshes).

    ``BRICKWRIGHT_CACHE_DIR`` overrides it; otherwise the platform's user cache
    folder (``~/.cache/brickwright`` on Linux). Everything in it can be
    deleted at any time and is rebuilt on demand.

    Raises
    ------
    LDrawError
        When the folder (or a folder above it) is a regular file; the message names
        ``BRICKWRIGHT_CACHE_DIR`` and the path and says what to do.
    """
    env = os.environ.get("BRICKWRIGHT_CACHE_DIR")
    if env:
        return _checked_dir(Path(env).expanduser(), "BRICKWRIGHT_CACHE_DIR", True)
    return _checked_dir(_platform_dir("cache", *_platform_env()), "BRICKWRIGHT_CACHE_DIR",
                        False)


class LDrawLibrary:
    """An unpacked LDraw library folder.

    Parameters
    ----------
    root : path
        The folder holding ``LDConfig.ldr`` and ``parts/``.

    Raises
    ------
    LibraryNotFoundError
        When ``root`` has no ``parts/`` folder.

    Notes
    -----
    The file index is built once (one directory scan, ~30k entries) and kept
    in memory; :attr:`fingerprint` changes whenever files are added or
    replaced, and is what on-disk caches key on.
    """

    def __init__(self, root: str | os.PathLike):
        self.root = Path(root).expanduser().resolve()
        if not _has_dir(self.root, "parts"):
            raise LibraryNotFoundError([("given path", f"{self.root} (no parts/ folder in it)")])

    def __repr__(self) -> str:
        return f"LDrawLibrary({str(self.root)!r})"

    @cached_property
    def _walk(self) -> tuple[dict[str, str], dict[str, str]]:
        """(key -> file path as str, key -> search folder) over the search folders, first wins.

        Plain strings: a Path per file costs about 0.7 s on the 60,000-file library."""
        index: dict[str, str] = {}
        folders: dict[str, str] = {}
        for folder in SEARCH_FOLDERS:
            base = _ci_child(self.root, folder)
            if base is None or not base.is_dir():
                continue
            base_s = str(base)
            for dirpath, _dirnames, filenames in os.walk(base_s):
                rel_dir = dirpath[len(base_s):].strip(os.sep)
                prefix = rel_dir.replace(os.sep, "/").lower() + "/" if rel_dir else ""
                head = dirpath if dirpath.endswith(os.sep) else dirpath + os.sep  # os.path.join, 30,000 times
                for fn in filenames:
                    key = prefix + fn.lower()
                    if key not in index:
                        index[key] = head + fn
                        folders[key] = folder
        return index, folders

    @property
    def _index(self) -> dict[str, str]:
        """Key (lower case, ``/``-separated, relative to its search folder) -> file path (str)."""
        return self._walk[0]

    @property
    def _folder_of(self) -> dict[str, str]:
        """Key -> name of the search folder it came from ('parts', 'p', ...)."""
        return self._walk[1]

    def find(self, name: str) -> Path | None:
        """Path of a referenced file, or None.

        Parameters
        ----------
        name : str
            Reference as written in LDraw (``"3001.dat"``, ``"s\\3001s01.dat"``,
            ``"48\\1-4cyli.dat"``); case and separator do not matter.
        """
        p = self._index.get(normalize_name(name))
        return None if p is None else Path(p)

    def folder_of(self, name: str) -> str | None:
        """Which search folder (``"parts"``, ``"p"``, ...) holds ``name``, or None."""
        return self._folder_of.get(normalize_name(name))

    def library_key(self, name: str) -> tuple[str, str] | None:
        """Where a file name resolves in the library, with or without its search folder written out.

        Parameters
        ----------
        name : str
            A reference or ``0 FILE`` name: ``"3001.dat"``, ``"s\\3001s01.dat"``, and also
            ``"parts/3001.dat"``, ``"PARTS\\s\\3001s01.dat"`` or ``"p/4-4cyli.dat"`` (any case, either
            separator).

        Returns
        -------
        (folder, key) or None
            The search folder holding the file (``"parts"``, ``"p"``, ``"Unofficial/parts"`` ...) and the
            key relative to it (``"3001.dat"``, ``"s/3001s01.dat"``); None when the name is not a library
            file. A leading search folder (``parts/``, ``p/``, ``Unofficial/parts/`` ...) is taken as that
            folder when the rest of the name is a file of it: LDraw tools that also search the library
            root (LDView, LDCad) resolve ``parts/3001.dat`` to the 2 x 4 brick, and so does this toolkit's
            part id (:func:`ldraw_data.catalog.normalize_id`).
        """
        key = normalize_name(name)
        folder = self._folder_of.get(key)
        if folder is not None:
            return folder, key
        for f in SEARCH_FOLDERS:
            prefix = f.lower() + "/"
            if key.startswith(prefix):
                rest = key[len(prefix):]
                if self._folder_of.get(rest) == f:
                    return f, rest
        return None

    def reference_for(self, name: str) -> str | None:
        """The reference LDraw expects for a library file written with its search folder, else None.

        LDraw references name library files relative to the search folders (LDraw File Format spec 1.0.0,
        "library structure": ``parts/``, ``p/`` and their sub-folders), so ``p/stud.dat`` or
        ``parts/3003.dat`` as written is not a library reference: this toolkit reports it UNKNOWN PART.

        Parameters
        ----------
        name : str
            A reference as written (any case, either separator).

        Returns
        -------
        str or None
            ``"stud.dat"`` for ``"p/stud.dat"``, ``"3003.dat"`` for ``"PARTS\\3003.dat"``,
            ``"s/3001s01.dat"`` for ``"parts/s/3001s01.dat"``; None when ``name`` is a library reference
            as it stands or names no library file with its folder stripped.
        """
        if self.folder_of(name) is not None:
            return None
        got = self.library_key(name)
        return None if got is None else got[1]

    def is_primitive(self, name: str) -> bool:
        """True when ``name`` resolves into ``p/`` (a primitive, LDraw spec)."""
        return (self.folder_of(name) or "").endswith("p")

    def read(self, name: str) -> str:
        """Text of a referenced file.

        Raises
        ------
        LDrawFileNotFoundError
            When the name is not in the library (also a ``FileNotFoundError``).
        """
        path = self.find(name)
        if path is None:
            raise LDrawFileNotFoundError(name, None, f"not in the LDraw library at {self.root}")
        return read_ldraw_text(path.read_bytes())

    def part_files(self) -> list[tuple[str, Path]]:
        """Every top-level part file of ``parts/`` (not ``s/`` subparts).

        Returns
        -------
        list of (str, Path)
            ``(file name in lower case, e.g. "3001.dat", path)``, sorted by name.
        """
        out = [
            (key, Path(path))
            for key, path in self._index.items()
            if "/" not in key and key.endswith(".dat") and self._folder_of.get(key) in ("parts", "Unofficial/parts")
        ]
        out.sort()
        return out

    @property
    def ldconfig_path(self) -> Path | None:
        """``LDConfig.ldr`` of this library (any case), or None."""
        for cand in ("LDConfig.ldr", "ldconfig.ldr", "LDCONFIG.LDR"):
            p = self.root / cand
            if p.is_file():
                return p
        return None

    @cached_property
    def fingerprint(self) -> str:
        """Short hash that changes when the library's files change.

        Built from the number of indexed files and the modification times of
        ``LDConfig.ldr`` and the search folders (adding, removing or replacing a
        file changes a folder's mtime). :func:`install_library` gives extracted
        files and folders the zip's times, so installing the same zip again
        (into the same folder) keeps the fingerprint and every cache keyed on it.
        """
        h = hashlib.sha1(str(self.root).encode())
        h.update(str(len(self._index)).encode())
        for rel in ("LDConfig.ldr", *SEARCH_FOLDERS, "parts/s", "p/48", "p/8"):
            p = self.root / rel
            if p.exists():
                h.update(f"{rel}:{p.stat().st_mtime_ns}".encode())
        return h.hexdigest()[:16]


def _installed_path(kind: str = "ldraw") -> Path:
    return data_dir() / kind


def find_library(path: str | os.PathLike | None = None) -> LDrawLibrary:
    """Locate the LDraw library.

    Parameters
    ----------
    path : path, optional
        Explicit library folder; wins over everything else. When given and
        it holds no library, the error is raised at once (a mistyped path is
        not silently replaced by another library).

    Returns
    -------
    LDrawLibrary
        Order: ``path``, then ``$LDRAWDIR``, then ``data_dir()/ldraw`` (the
        copy :func:`install_library` makes). A folder holding the unpacked
        zip's top folder ``ldraw/`` is accepted too.

    Raises
    ------
    LibraryNotFoundError
        Listing every place tried and how to install a library.
    """
    tried: list[tuple[str, str]] = []
    candidates: list[tuple[str, str]] = []
    if path is not None:
        candidates.append(("argument", str(path)))
    else:
        env = os.environ.get("LDRAWDIR")
        if env:
            candidates.append(("LDRAWDIR", env))
        candidates.append(("installed copy", str(_installed_path())))
    for source, cand in candidates:
        root = Path(cand).expanduser()
        if _has_dir(root, "parts"):
            return LDrawLibrary(root)
        if _has_dir(root, "ldraw/parts"):  # a folder holding the unpacked zip's top folder
            return LDrawLibrary(_ci_child(root, "ldraw"))
        if source == "LDRAWDIR":
            log.warning("LDRAWDIR=%s holds no parts/ folder; trying the installed copy", root)
        tried.append((source, str(root)))
    raise LibraryNotFoundError(tried)


_DEFAULT: dict[str, LDrawLibrary] = {}


def get_library(path: str | os.PathLike | None = None) -> LDrawLibrary:
    """Like :func:`find_library`, but the result is cached per process.

    The cache key is the resolved choice, so changing ``LDRAWDIR`` between
    calls picks up the new library.
    """
    key = f"{path}|{os.environ.get('LDRAWDIR', '')}|{os.environ.get('BRICKWRIGHT_DATA_DIR', '')}"
    lib = _DEFAULT.get(key)
    if lib is None:
        lib = _DEFAULT[key] = find_library(path)
    return lib


def find_shadow_library() -> Path | None:
    """Folder of the LDCad shadow library, or None when not installed.

    Order: ``LDCAD_SHADOW_DIR``, then the copy installed by
    ``brickwright library install --shadow``.
    """
    env = os.environ.get("LDCAD_SHADOW_DIR")
    for cand in ([Path(env)] if env else []) + [_installed_path("ldcad-shadow")]:
        if (cand / "parts").is_dir() or (cand / "p").is_dir():
            return cand
    return None


#: File names of the LDCad shadow library looked for beside ``complete.zip`` (its GitHub zip and
#: LDCad's own packing, ``offLibShadow.csl``, a zip too).
SHADOW_NAMES = ("ldcad-shadow.zip", "LDCadShadowLibrary.zip", "LDCadShadowLibrary-master.zip", "offLibShadow.csl")


def shadow_zip_beside(source: str | os.PathLike) -> Path | None:
    """The LDCad shadow library zip lying beside a parts-library source, or None.

    Parameters
    ----------
    source : str or path
        What ``brickwright library install`` was given (``complete.zip`` or a folder); URLs give None.

    Returns
    -------
    Path or None
        The first of :data:`SHADOW_NAMES` (any case) in the source's folder, so that
        ``brickwright library install ../shared/ldraw/complete.zip`` installs both libraries.
    """
    src = str(source)
    if urllib.parse.urlparse(src).scheme in ("http", "https"):
        return None
    folder = Path(src).expanduser().parent
    if not folder.is_dir():
        return None
    names = {p.name.lower(): p for p in folder.iterdir() if p.is_file()}
    for n in SHADOW_NAMES:
        hit = names.get(n.lower())
        if hit is not None:
            return hit
    return None


def _download(url: str, dest_dir: Path) -> Path:
    import urllib.request  # noqa: PLC0415 - only to download: it imports http.client, email and ssl

    name = Path(urllib.parse.urlparse(url).path).name or "library.zip"
    target = dest_dir / name
    log.info("downloading %s", url)
    try:
        with urllib.request.urlopen(url, timeout=60) as resp, open(target, "wb") as fh:
            shutil.copyfileobj(resp, fh)
    except OSError as exc:
        raise LDrawError(f"Could not download {url}: {exc}. Download the zip yourself and pass its path.") from exc
    return target


def _library_root_in(folder: Path, marker: str) -> Path | None:
    """The folder under ``folder`` (itself included) that holds ``marker``."""
    if (folder / marker).exists():
        return folder
    for sub in sorted(folder.iterdir()):
        if sub.is_dir() and (sub / marker).exists():
            return sub
    return None


def _check_replaceable(target: Path, marker: str) -> None:
    """Refuse to replace anything but an empty folder or an earlier installation.

    Raises
    ------
    LDrawError
        When ``target`` is a file, or a non-empty folder that is not an LDraw
        (or shadow) library: installing there would delete the user's files.
    """
    if not target.exists():
        return
    if not target.is_dir():
        raise LDrawError(f"{target} is a file; give a folder for the library (nothing was changed).")
    if any(target.iterdir()) and not (target / marker).is_dir():
        raise LDrawError(
            f"{target} is not empty and holds no LDraw library ({marker}/ missing); installing there would "
            "delete its files. Give an empty or new folder (nothing was changed).")


#: A new parts library with fewer than this share of the installed one's parts replaces it only with
#: ``force``: a complete.zip grows from release to release (19,370 parts in 2025), so a much smaller one is
#: a partial download or the wrong zip, and every model using the missing parts would fail after it.
MIN_REPLACING_PART_SHARE = 0.5


def _count_parts(root: Path) -> int:
    """Number of ``.dat`` files directly in ``root/parts`` (as ``library info`` counts parts), 0 without it."""
    try:
        with os.scandir(root / "parts") as it:
            return sum(1 for e in it if e.name.lower().endswith(".dat") and e.is_file())
    except OSError:
        return 0


def _check_new_library(root: Path, source: str, target: Path, force: bool) -> None:
    """Refuse an unpacked parts library that would break every model, before it replaces anything.

    Raises
    ------
    LDrawError
        When ``root`` has no ``LDConfig.ldr`` or one that defines no colour (every model would fail with
        "colour code 15 is not defined"), no part in ``parts/``, or, unless ``force``, fewer than
        :data:`MIN_REPLACING_PART_SHARE` of the parts of the library installed at ``target``. The message
        names ``source``, the counts and what to do; nothing is changed.
    """
    kept = "The previous installation is kept." if (target / "parts").is_dir() else "Nothing was installed."
    ldconfig = next((c for c in root.iterdir() if c.name.lower() == "ldconfig.ldr" and c.is_file()), None)
    if ldconfig is None:
        raise LDrawError(f"{source}: no LDConfig.ldr (the colour table) beside parts/; this is not a complete "
                         f"LDraw library: give the LDraw complete.zip. {kept}")
    # a colour line names at least CODE and VALUE (LDConfig spec, !COLOUR); ldraw_data.colors parses them in full
    colours = sum(1 for ln in read_ldraw_text(ldconfig.read_bytes(), str(ldconfig)).splitlines()
                  if ln.split()[:2] == ["0", "!COLOUR"] and {"CODE", "VALUE"} <= {t.upper() for t in ln.split()})
    if not colours:
        raise LDrawError(f"{source}: its LDConfig.ldr defines no colour (no valid 0 !COLOUR line); every model "
                         f"would fail. Give the LDraw complete.zip. {kept}")
    new = _count_parts(root)
    if new == 0:
        raise LDrawError(f"{source}: its parts/ folder holds no .dat part file; give the LDraw complete.zip. {kept}")
    old = _count_parts(target)
    if not force and old and new < MIN_REPLACING_PART_SHARE * old:
        raise LDrawError(f"{source} has {new:,} part{'' if new == 1 else 's'}, far fewer than the {old:,} of the "
                         f"library installed at "
                         f"{target}; models using the others would fail. Pass --force (force=True) to replace it "
                         f"anyway. {kept}")


def _zip_mtime(info: zipfile.ZipInfo) -> float:
    """Modification time of a zip entry, s since the epoch (the zip stores local time, as ``unzip`` reads it)."""
    return time.mktime(info.date_time + (0, 0, -1))


def _extract_with_times(zf: zipfile.ZipFile, dest: Path) -> None:
    """Extract every entry of ``zf`` under ``dest`` and give files and folders the zip's times.

    :attr:`LDrawLibrary.fingerprint` hashes folder and ``LDConfig.ldr`` modification times, which
    an extraction would otherwise set to "now": installing the same zip twice would then discard
    every cache keyed on the fingerprint. Each file gets its entry's ``date_time``; each folder
    its own entry's time when the zip lists it, else the newest time found inside it (so the
    result depends on the zip only). Later edits still change a folder's time, hence the
    fingerprint.
    """
    dest = Path(dest)
    dirs: dict[str, float] = {}
    from .progress import report

    infos = zf.infolist()
    for k, info in enumerate(infos):
        if k % 500 == 0:
            report("unpacking the LDraw library (files)", k, len(infos))
        path = zf.extract(info, dest)
        t = _zip_mtime(info)
        if info.is_dir():
            dirs[os.path.normpath(path)] = t
        else:
            os.utime(path, (t, t))
    report("unpacking the LDraw library (files)", len(infos), len(infos))
    for dirpath, dirnames, filenames in os.walk(dest, topdown=False):
        key = os.path.normpath(dirpath)
        t = dirs.get(key)
        if t is None:
            times = [os.stat(os.path.join(dirpath, n)).st_mtime for n in (*dirnames, *filenames)]
            if not times:
                continue
            t = max(times)
        os.utime(dirpath, (t, t))


def install_library(
    source: str | os.PathLike, *, shadow: bool = False, dest: str | os.PathLike | None = None,
    force: bool = False,
) -> Path:
    """Install an LDraw library (or the LDCad shadow library) for this user.

    Parameters
    ----------
    source : str or path
        A ``complete.zip`` (or ``ldcad-shadow.zip``) path, an ``http(s)`` URL of
        one, or an unpacked library folder (copied).
    shadow : bool
        Install the LDCad shadow library instead of the parts library.
    dest : path, optional
        Target folder; default ``data_dir()/ldraw`` (or ``ldcad-shadow``).
    force : bool
        Replace an installed parts library even with one that has far fewer parts (less than
        :data:`MIN_REPLACING_PART_SHARE` of them).

    Returns
    -------
    Path
        The installed library root (holds ``parts/``).

    Raises
    ------
    LDrawError
        When the source does not exist, is not a zip or folder, or holds no
        LDraw library. The previous installation is kept in that case: the
        new copy is unpacked beside it and swapped in only when complete.
        Also when ``dest`` is a file or a non-empty folder that is not an
        earlier installation (its contents would otherwise be replaced).
        For a parts library, also when it has no ``LDConfig.ldr`` or one with no
        colour, no part, or (without ``force``) far fewer parts than the installed
        one; the message says the counts.
    """
    kind = "ldcad-shadow" if shadow else "ldraw"
    target = Path(dest).expanduser() if dest else _installed_path(kind)
    marker = "p" if shadow else "parts"
    _check_replaceable(target, marker)
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=f".{kind}-") as tmp:
        tmp_path = Path(tmp)
        src = str(source)
        if urllib.parse.urlparse(src).scheme in ("http", "https"):
            src_path = _download(src, tmp_path)
        else:
            src_path = Path(src).expanduser()
            if not src_path.exists():
                raise LDrawError(f"{src_path}: no such file or folder. Give the path of complete.zip or its URL.")
        unpack = tmp_path / "unpacked"
        if src_path.is_dir():
            root = _library_root_in(src_path, marker)
            if root is None:
                raise LDrawError(f"{src_path}: no {marker}/ folder found; this is not an LDraw library folder.")
            shutil.copytree(root, unpack)
            root = unpack
        else:
            if not zipfile.is_zipfile(src_path):
                raise LDrawError(f"{src_path}: not a zip file. Give the LDraw complete.zip (or an unpacked folder).")
            try:
                with zipfile.ZipFile(src_path) as zf:
                    _extract_with_times(zf, unpack)
            except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError) as exc:
                raise LDrawError(
                    f"{src_path}: the zip is damaged ({exc}); download complete.zip again. "
                    "The previous installation is kept."
                ) from exc
            root = _library_root_in(unpack, marker)
            if root is None:
                raise LDrawError(f"{src_path}: the zip holds no {marker}/ folder; is it the LDraw complete.zip?")
        if not shadow:
            _check_new_library(root, src, target, force)
        old = None
        if target.exists():
            old = tmp_path / "previous"
            target.rename(old)
        try:
            root.rename(target)
        except OSError as exc:
            if old is not None:
                old.rename(target)  # put the previous installation back
            raise LDrawError(f"could not move the new library to {target}: {exc}") from exc
    _DEFAULT.clear()
    return target
