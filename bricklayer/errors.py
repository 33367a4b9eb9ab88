"""Exception root of :mod:`bricklayer`.

:class:`BrickLayerError` is the base of every error bricklayer raises of its own
(:class:`~bricklayer.connector.ConnectorMismatchError`,
:class:`~bricklayer.construction.parts.SizeNotAvailableError`,
:class:`~bricklayer.render.RenderBackendError`). It derives from
:class:`ldraw_data.errors.LDrawError`, the root of the errors bricklayer passes on from
the LDraw layer (a file that cannot be read: :class:`~ldraw_data.errors.LDrawParseError`,
a missing file: :class:`~ldraw_data.errors.LDrawFileNotFoundError`, also an ``OSError``;
an unknown part: :class:`~ldraw_data.errors.PartNotFoundError`, also a ``KeyError``), so
``except LDrawError`` catches every error the library layers raise on purpose and
``except BrickLayerError`` the ones about builds. Each subclass also derives from the
built-in exception it was before (``ValueError``, ``RuntimeError``), so existing
``except`` clauses keep working.
"""

from __future__ import annotations

__all__ = ["BrickLayerError", "LDrawError", "LDrawParseError", "LDrawFileNotFoundError", "PartNotFoundError"]

from ldraw_data.errors import LDrawError, LDrawFileNotFoundError, LDrawParseError, PartNotFoundError


class BrickLayerError(LDrawError):
    """Base class of the errors :mod:`bricklayer` raises of its own (see the module docstring)."""
