"""Exception tree of :mod:`ldraw_data`.

Every message is written for the person or agent who has to act on it: it says
what went wrong, where (file and line when there is one) and what to do next.
"""

from __future__ import annotations

__all__ = [
    "LDrawError",
    "LibraryNotFoundError",
    "PartNotFoundError",
    "LDrawParseError",
    "LDrawFileNotFoundError",
    "LDrawLimitError",
    "LDrawWarning",
]

from dataclasses import dataclass


class LDrawError(Exception):
    """Base class of every error raised by :mod:`ldraw_data`."""


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
