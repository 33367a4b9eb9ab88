"""Exception root of the toolkit, as bricklayer documents it.

:class:`ToolkitError` (defined in :mod:`ldraw_data.errors`, so that the LDraw layer, which imports
nothing of ours, can derive from it) is the one root of every error ``ldraw_data``, ``bricklayer`` and
``brickwright`` raise on purpose; ``except ToolkitError`` catches them all and anything else is a bug.
Below it:

- :class:`~ldraw_data.errors.LDrawError`, the errors of the LDraw layer (a file that cannot be read:
  :class:`~ldraw_data.errors.LDrawParseError`; a missing file:
  :class:`~ldraw_data.errors.LDrawFileNotFoundError`, also an ``OSError``; an unknown part:
  :class:`~ldraw_data.errors.PartNotFoundError`, also a ``KeyError``);
- :class:`BrickLayerError` (a kind of ``LDrawError``, so ``except LDrawError`` keeps catching both
  library layers), the errors about builds: :class:`BrickLayerValueError`, :class:`BrickLayerKeyError`,
  :class:`BrickLayerTypeError`, :class:`BrickLayerIndexError`,
  :class:`~bricklayer.connector.ConnectorMismatchError`,
  :class:`~bricklayer.construction.parts.SizeNotAvailableError`,
  :class:`~bricklayer.render.RenderBackendError`;
- the file and dependency errors every layer raises: :class:`~ldraw_data.errors.InputNotFoundError`,
  :class:`~ldraw_data.errors.OutputExistsError`, :class:`~ldraw_data.errors.OutputIsAFolderError`,
  :class:`~ldraw_data.errors.OutputWriteError`, :class:`~ldraw_data.errors.MissingDependencyError`;
- :class:`brickwright.agent.errors.BrickWrightError`, the harness's errors.

Each subclass also derives from the built-in exception it replaced (``ValueError``, ``KeyError``,
``TypeError``, ``IndexError``, ``RuntimeError``, an ``OSError`` kind), so ``except ValueError`` code
written before the root existed keeps working.
"""

from __future__ import annotations

__all__ = ["ToolkitError", "BrickLayerError", "BrickLayerValueError", "BrickLayerKeyError", "BrickLayerTypeError",
           "BrickLayerIndexError", "LDrawError", "LDrawParseError", "LDrawFileNotFoundError", "PartNotFoundError",
           "InputNotFoundError", "OutputExistsError", "OutputIsAFolderError", "OutputNotAFolderError",
           "OutputWriteError", "MissingDependencyError"]

from ldraw_data.errors import (InputNotFoundError, LDrawError, LDrawFileNotFoundError, LDrawParseError,
                               MissingDependencyError, OutputExistsError, OutputIsAFolderError, OutputNotAFolderError,
                               OutputWriteError,
                               PartNotFoundError, ToolkitError)


class BrickLayerError(LDrawError):
    """Base class of the errors :mod:`bricklayer` raises of its own (see the module docstring)."""


class BrickLayerValueError(BrickLayerError, ValueError):
    """A value given to bricklayer is not valid (a position off the grid, an unknown colour name, a rotation
    that is not a quarter turn, a name already used in the build); also a ``ValueError``. The message names
    the value and what to give instead."""


class BrickLayerKeyError(BrickLayerError, KeyError):
    """A name or object looked up in a build is not there (a placement name, a joint, a variant); also a
    ``KeyError``, whose ``str()`` is the message itself."""

    def __str__(self) -> str:  # KeyError would otherwise print the message quoted
        return str(self.args[0]) if self.args else ""


class BrickLayerTypeError(BrickLayerError, TypeError):
    """An argument to bricklayer has the wrong type (e.g. ``write_ldraw`` given something that is not a
    :class:`~bricklayer.build.LegoBuild`); also a ``TypeError``."""


class BrickLayerIndexError(BrickLayerError, IndexError):
    """A placement index outside the build (``LegoBuild.insert``); also an ``IndexError``."""
