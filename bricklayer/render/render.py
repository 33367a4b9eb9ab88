"""Pictures of builds and of LDraw model files: the drawing of :mod:`bricklayer.render.draw` and :func:`render_file`.

:func:`render_file` reads an ``.ldr``/``.mpd`` file into a build with :func:`bricklayer.io.read_ldraw`
and draws it, so this module sits above :mod:`bricklayer.io` (a reader of builds), while the drawing
itself (:mod:`bricklayer.render.draw`, re-exported here under its old names) sits below
:mod:`bricklayer.build`, whose notebook picture uses it (layering rule in :mod:`bricklayer.build`).
"""

from __future__ import annotations

__all__ = [
    "parse_size",
    "render_build",
    "render_sheet",
    "render_file",
    "save_render",
    "render_views",
    "problem_highlight",
    "SHEET_VIEWS",
    "BACKGROUND",
]

from pathlib import Path

from ..io import read_ldraw
from .draw import (BACKGROUND, SHEET_VIEWS, parse_size, problem_highlight, render_build, render_sheet, render_views,
                   save_render)

def render_file(path, out_png=None, *, view="iso", size=None, highlight_problems: bool = False,
                edges: bool = True, projection: str = "ortho") -> Path:
    """Render an ``.ldr``/``.mpd`` file to a PNG.

    Parameters
    ----------
    path : str or Path
        LDraw model, read with :func:`bricklayer.read_ldraw`. (A ``.py`` build
        script is loaded by the caller, then passed to :func:`save_render`.)
    out_png : str or Path, optional
        Default: ``path`` with suffix ``.png`` (``-sheet.png`` for a sheet).
    view, size, highlight_problems, edges, projection
        As :func:`save_render`.

    Returns
    -------
    Path
        The PNG written.

    Raises
    ------
    LDrawParseError
        When the model cannot be read.
    RenderBackendError, ValueError
        As :func:`render_build`.
    """
    p = Path(path)
    is_sheet = isinstance(view, str) and view.strip().lower() == "sheet"
    if out_png is None:
        out_png = p.with_name(p.stem + ("-sheet.png" if is_sheet else ".png"))
    build = read_ldraw(p)
    title = f"{p.name}: {build.brick_count} parts"
    return save_render(build, out_png, view=view, size=size, highlight_problems=highlight_problems,
                       edges=edges, projection=projection, title=title)
