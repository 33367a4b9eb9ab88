"""Exception tree of the toolkit, rooted here so that :mod:`ldraw_data` imports nothing of ours.

:class:`ToolkitError` is the one root of every error the three packages raise on purpose
(``ldraw_data``, ``bricklayer``, ``brickwright``); :mod:`bricklayer.errors` re-exports it as the
documented root. The tree::

    ToolkitError
    ├── LDrawError                     ldraw_data (and, below it, bricklayer)
    │   ├── LibraryNotFoundError
    │   ├── PartNotFoundError          also KeyError
    │   ├── LDrawParseError
    │   │   ├── LDrawFileNotFoundError also FileNotFoundError
    │   │   └── LDrawLimitError
    │   ├── LDrawValueError            also ValueError
    │   ├── LDrawKeyError              also KeyError
    │   ├── LDrawTypeError             also TypeError
    │   └── bricklayer.errors.BrickLayerError (and its ValueError/KeyError/TypeError/IndexError kinds)
    ├── InputNotFoundError             also FileNotFoundError: a file or folder given as input
    ├── InputReadError                 also OSError: an input file that is a folder, unreadable or not UTF-8
    ├── OutputExistsError              also FileExistsError: an output that exists without overwrite
    ├── OutputIsAFolderError           also IsADirectoryError: a folder given where a file name is needed
    ├── OutputWriteError               also OSError: a writer reported failure without an OS error
    ├── MissingDependencyError         also ModuleNotFoundError: an optional package is not installed
    └── brickwright.agent.errors.BrickWrightError

Each class that stands for a built-in kind also derives from that built-in (``ValueError``,
``KeyError``, ``OSError``...), so ``except ValueError`` code written before the root existed
keeps working, and ``except ToolkitError`` catches every error raised on purpose (anything else
escaping the toolkit is a bug). Every message is written for the person or agent who has to act
on it: it says what went wrong, where (file and line when there is one) and what to do next.
"""

from __future__ import annotations

__all__ = [
    "ToolkitError",
    "InputNotFoundError",
    "InputReadError",
    "OutputExistsError",
    "OutputIsAFolderError",
    "OutputNotAFolderError",
    "OutputWriteError",
    "MissingDependencyError",
    "LDrawError",
    "LDrawValueError",
    "LDrawKeyError",
    "LDrawTypeError",
    "LibraryNotFoundError",
    "PartNotFoundError",
    "LDrawParseError",
    "LDrawFileNotFoundError",
    "LDrawLimitError",
    "LDrawWarning",
    "SubmodelCycleWarning",
]

from dataclasses import dataclass


class ToolkitError(Exception):
    """Root of every error the toolkit (``ldraw_data``, ``bricklayer``, ``brickwright``) raises on purpose.

    Catch it to handle any expected failure (bad input, unknown part, unreadable file, a provider that
    failed); an exception that is not a :class:`ToolkitError` is a bug. The tree is drawn in the module
    docstring.
    """


class _MessageKeyError(KeyError):
    """A ``KeyError`` whose ``str()`` is its message (``KeyError`` would print it quoted)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class InputNotFoundError(ToolkitError, FileNotFoundError):
    """A file or folder given as input does not exist (also a ``FileNotFoundError``).

    Parameters
    ----------
    message : str
        One line: the path, what is missing and what to give instead.
    """


class InputReadError(ToolkitError, OSError):
    """A file given as input exists but cannot be read as what it should be (also an ``OSError``): a folder,
    no permission to read, or bytes that are not UTF-8 text. The message names the file (and line) and what
    to give instead; :func:`ldraw_data.fileio.read_input_text` raises it."""

    def __str__(self) -> str:  # OSError would otherwise print "[Errno ...] ..."
        return str(self.args[0]) if self.args else ""


class OutputExistsError(ToolkitError, FileExistsError):
    """An output file or folder exists and was not to be replaced (also a ``FileExistsError``):
    pass ``overwrite=True`` (``--force`` on the command line) to replace it."""


class OutputIsAFolderError(ToolkitError, IsADirectoryError):
    """A folder was given where an output file name is needed (also an ``IsADirectoryError``)."""


class OutputNotAFolderError(ToolkitError, NotADirectoryError):
    """A file was given, or no folder could be made, where an output folder is needed (also a
    ``NotADirectoryError``)."""


class OutputWriteError(ToolkitError, OSError):
    """An output file could not be written (also an ``OSError``): no permission, a full disk, a file on the
    way where a folder is needed (:func:`ldraw_data.fileio.atomic_writer`), or a writer (e.g. the USD
    library) that reported failure without an OS error of its own. The message names the target path the
    caller gave (never the temporary file) and what to do; ``filename`` is that path and ``errno`` the OS
    error's number when there was one."""

    def __str__(self) -> str:  # OSError would otherwise print "[Errno ...] ..."
        return str(self.args[0]) if self.args else ""


class MissingDependencyError(ToolkitError, ModuleNotFoundError):
    """An optional package a feature needs is not installed (also a ``ModuleNotFoundError``, hence an
    ``ImportError``); the message names the ``pip install`` line."""


class LDrawError(ToolkitError):
    """Base class of every error raised by :mod:`ldraw_data` (and of :class:`bricklayer.errors.BrickLayerError`)."""


class LDrawValueError(LDrawError, ValueError):
    """A value given to :mod:`ldraw_data` is not valid (an unknown option, an array of the wrong shape, a
    malformed cache or catalog file); also a ``ValueError``. The message names the value and the choices."""


class LDrawKeyError(LDrawError, _MessageKeyError):
    """A name looked up in :mod:`ldraw_data` is unknown (a part trait, a mesh not loaded); also a
    ``KeyError``, whose ``str()`` is the message itself."""


class LDrawTypeError(LDrawError, TypeError):
    """An argument to :mod:`ldraw_data` has the wrong type (e.g. a part id that is not a str); also a
    ``TypeError``."""


class LibraryNotFoundError(LDrawError):
    """No LDraw parts library could be found.

    Parameters
    ----------
    tried : list of (str, str)
        ``(source, path)`` pairs that were looked at, in resolution order.
    """

    def __init__(self, tried: list[tuple[str, str]]):
        self.tried = list(tried)
        where = "; ".join(f"{src}: {path}" for src, path in self.tried) or "nothing configured"
        super().__init__(
            "No LDraw parts library found (tried " + where + "). Install one with "
            "`brickwright library install PATH_OR_URL_TO/complete.zip` or set LDRAWDIR to an "
            "unpacked LDraw folder (the one holding LDConfig.ldr, parts/ and p/)."
        )


class PartNotFoundError(LDrawError, KeyError):
    """A part id is not in the library or catalog.

    Parameters
    ----------
    part_id : str
        The id that was asked for.
    suggestions : list of str
        Close catalog ids, best first (may be empty).
    """

    def __init__(self, part_id: str, suggestions: list[str] | None = None):
        self.part_id = part_id
        self.suggestions = list(suggestions or [])
        msg = f"Unknown LDraw part {part_id!r}"
        if self.suggestions:
            msg += "; did you mean " + ", ".join(repr(s) for s in self.suggestions) + "?"
        else:
            msg += "; search the catalog with `brickwright search` or `search_parts()`."
        super().__init__(msg)

    def __str__(self) -> str:  # KeyError would otherwise quote the message
        return self.args[0]


class LDrawParseError(LDrawError):
    """A file could not be read as LDraw at all.

    Parameters
    ----------
    path : str
        File name (or ``"<text>"`` for a string).
    line : int or None
        1-based line number, when the problem is on one line.
    message : str
        What is wrong and what to do.
    """

    def __init__(self, path: str, line: int | None, message: str):
        self.path, self.line, self.message = path, line, message
        where = f"{path}:{line}" if line else path
        super().__init__(f"{where}: {message}")


class LDrawFileNotFoundError(LDrawParseError, FileNotFoundError):
    """A model or part file that does not exist.

    Both an :class:`LDrawParseError` (so ``except LDrawError`` catches it with every other
    unreadable file) and a :class:`FileNotFoundError` (so ``except OSError`` catches it,
    as for ``open()``): ``errno`` is ``ENOENT`` and ``filename`` the path. Same parameters
    as :class:`LDrawParseError`.
    """

    def __init__(self, path: str, line: int | None, message: str):
        import errno
        import os

        super().__init__(path, line, message)
        self.errno, self.strerror, self.filename = errno.ENOENT, os.strerror(errno.ENOENT), path

    def __str__(self) -> str:  # OSError would otherwise print "[Errno 2] ..."
        return self.args[0]

    @classmethod
    def reading(cls, path, exc: OSError) -> LDrawParseError:
        """The error for ``exc``, raised reading ``path``: this class for a missing file, else
        an :class:`LDrawParseError` saying why the file could not be read."""
        if isinstance(exc, FileNotFoundError):
            return cls(str(path), None, "cannot read file: no such file; check the path (a relative path "
                                        "starts in the current folder)")
        return LDrawParseError(str(path), None, f"cannot read file: {exc.strerror or exc}")


class LDrawLimitError(LDrawParseError):
    """A file is readable but too large to expand: submodels nested deeper than
    :data:`~ldraw_data.io.limits.MAX_SUBMODEL_DEPTH`, more part placements than
    :data:`~ldraw_data.io.limits.MAX_FLAT_PARTS` once submodels are expanded, or a part
    drawn with more than :data:`~ldraw_data.io.limits.MAX_PART_TRIANGLES` triangles.

    Raised before anything is expanded, so a hostile file (a 4 KB MPD whose submodels
    each place the next twice, 2^40 parts) stops at once. Same parameters as
    :class:`LDrawParseError`; the message names the limit and what to do.
    """


@dataclass(frozen=True)
class LDrawWarning:
    """A non-fatal problem met while reading LDraw data.

    Attributes
    ----------
    path : str
        File (or MPD submodel) the problem is in.
    line : int
        1-based line number in that file (0 when not tied to a line).
    message : str
        What was found and what was done about it.
    """

    path: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}" if self.line else f"{self.path}: {self.message}"


@dataclass(frozen=True)
class SubmodelCycleWarning(LDrawWarning):
    """A submodel reference skipped because it closes a cycle of submodels.

    A submodel that places itself, directly or through others, would be infinitely large (the MPD
    spec has a model place submodels, never itself), so the reader skips the reference that closes
    the loop. ``path`` and ``line`` are that reference's; the message names every
    reference of the loop and says to break it. Build one with :meth:`of`.

    Attributes
    ----------
    cycle : tuple of (str, str, str, int)
        The references of the loop in order, each ``(placing submodel, placed submodel, file, line)``:
        the first placed submodel is the one the last reference places again.
    """

    cycle: tuple = ()

    @classmethod
    def of(cls, cycle) -> "SubmodelCycleWarning":
        """The warning for the loop ``cycle`` (see :attr:`cycle`), tied to its last reference.

        Parameters
        ----------
        cycle : sequence of (str, str, str, int)
            ``(placing submodel, placed submodel, file, line)`` per reference, at least one.

        Returns
        -------
        SubmodelCycleWarning
            ``message`` e.g. ``"submodel cycle: a.ldr places b.ldr (m.mpd:6), b.ldr places a.ldr
            (m.mpd:9): a submodel cannot contain itself, so this reference is skipped; break the cycle:
            delete one of these references or make it place another submodel or a part"``.
        """
        cycle = tuple((str(a), str(b), str(f), int(n)) for a, b, f, n in cycle)
        steps = ", ".join(f"{a} places {'itself' if a.lower() == b.lower() else b} ({f}:{n})" for a, b, f, n in cycle)
        one = len(cycle) == 1
        message = (f"submodel cycle: {steps}: a submodel cannot contain itself, so this reference is skipped; "
                   f"break the cycle: delete {'this reference' if one else 'one of these references'} or make "
                   "it place another submodel or a part")
        _a, _b, path, line = cycle[-1]
        return cls(path, line, message, cycle)

