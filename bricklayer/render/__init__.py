"""Pictures of builds: offscreen rendering with pyrender (EGL or OSMesa, no display or GPU needed).

``render_build`` draws one view, ``render_sheet`` a labelled multi-view sheet,
``render_steps`` the instruction pages of a build with steps,
``save_render``/``render_file`` write PNGs; ``problem_highlight`` colours the
validator's colliding (red) and floating (orange) parts and fades the rest.
pyrender and Pillow are imported on first use; a missing one raises
:class:`RenderBackendError` saying what to install.
"""

# pictures
from .render import (BACKGROUND, SHEET_VIEWS, problem_highlight, render_build, render_file, render_sheet,
                     render_views, save_render)

# cameras and geometry
from .camera import VIEWS, Camera, fit_camera, view_axes
from .geometry import InstancedGeometry, RenderGeometry, build_geometry, instanced_geometry

# instructions
from .steps import StepPage, render_steps, step_pages

# backend
from ._gl import RenderBackendError, backend_info

__all__ = [
    # pictures
    "render_build", "render_sheet", "render_views", "save_render", "render_file", "problem_highlight",
    "BACKGROUND", "SHEET_VIEWS",
    # cameras and geometry
    "Camera", "VIEWS", "fit_camera", "view_axes", "RenderGeometry", "build_geometry", "InstancedGeometry",
    "instanced_geometry",
    # instructions
    "StepPage", "step_pages", "render_steps",
    # backend
    "RenderBackendError", "backend_info",
]
