"""Building-instruction pictures: one per LDraw step of every (sub)model, with its new parts standing out.

The pages follow the MPD a build is written as (:func:`bricklayer.io.write_ldraw`):
every distinct build (the main model and each submodel, written once as a
``0 FILE`` block however often it is used) has its steps (``LegoBuild.steps``,
one ``0 STEP`` group each, the last group closed by the end of the block), and
a submodel's steps come right before the step of its parent that first places
it, as LPub3D and printed LEGO instructions lay them out. So the number of
pages is the number of steps an LDraw viewer pages through over all the blocks
of the file (LeoCAD pages the main model's steps and each submodel's when it
is opened).

Each picture shows every part placed so far in its (sub)model, the last step
included (parts left to the end: stickers, flexible parts): the parts of the
step in their own colours with their edges, the earlier ones dimmed
(desaturated 70 % and lightened 30 %, as the faded parts of problem pictures,
but opaque). One camera per (sub)model: fitted once to the finished (sub)model
from the ``view`` direction and kept for all its pictures, so nothing jumps
between pages. The scene is kept between the pictures of one (sub)model: each
step's parts are uploaded once in colour and once dimmed (instanced meshes,
:func:`.geometry.instanced_geometry`), so the cost grows with the parts, not
with parts x steps.
"""

from __future__ import annotations

__all__ = ["StepPage", "step_pages", "render_steps"]

import logging
from dataclasses import dataclass

import numpy as np

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class StepPage:
    """One page of the instructions.

    Attributes
    ----------
    model : LegoBuild
        The (sub)model being built (the main model is the build given).
    step : int
        1-based step of ``model`` (its ``0 STEP`` group).
    steps : int
        Number of steps of ``model``.
    new : list of Placement
        The top-level placements of ``model`` added in this step (a placed
        submodel brings all its parts).
    """

    model: object
    step: int
    steps: int
    new: list


def step_pages(build) -> list[StepPage]:
    """The instruction pages of a build with steps, in building order.

    Parameters
    ----------
    build : LegoBuild
        E.g. ``AssemblyPlan.sequence``; nested builds are submodels.

    Returns
    -------
    list of StepPage
        For each distinct build (by identity), one page per ``build.steps``
        group; a submodel's pages come before the page of the parent step that
        first places it. Its length equals the number of steps LDraw viewers
        page through over all ``0 FILE`` blocks of ``write_ldraw(build)``.
    """
    pages: list[StepPage] = []
    seen: set = set()

    def walk(b):
        seen.add(id(b))
        steps = b.steps
        for k, group in enumerate(steps):
            for p in group:
                if hasattr(p.content, "steps") and id(p.content) not in seen:  # a submodel (LegoBuild)
                    walk(p.content)
            pages.append(StepPage(b, k + 1, len(steps), list(group)))

    walk(build)
    return pages


def _flat_of(placements, model) -> list:
    """FlatPlacements (poses in the owning build's frame) of some top-level placements of ``model``."""
    tmp = type(model)(name="step")
    for p in placements:
        tmp.add_raw(p.content, p.pose, color=p.color)
    return tmp.flattened_placements


def render_steps(build, *, size=(800, 600), view="iso", projection: str = "ortho", edges: bool = True,
                 pages=None, label: bool = True):
    """Draw the instruction pages of a build with steps, one at a time.

    Parameters
    ----------
    build : LegoBuild
        The build with steps (``AssemblyPlan.sequence``).
    size : (width, height) int or "WxH", pixels
    view : str, (azimuth, elevation) or (4, 4) pose
        Direction of every camera (see :func:`bricklayer.render.camera.view_axes`).
    projection : {"ortho", "perspective"}
    edges : bool
    pages : list of StepPage, optional
        Default :func:`step_pages(build) <step_pages>`; a prefix of it draws fewer.
    label : bool
        Write ``"<model>: step k of n"`` in the top-left corner.

    Yields
    ------
    (StepPage, Camera, PIL.Image.Image)
        In page order; the camera is the same object for all pages of one (sub)model. The same pixels in
        every run, with a cold or a warm render cache: where a step's new parts and earlier ones draw a
        pixel at the same depth (a shared edge line), the new parts keep it (``_gl.set_draw_rank``).

    Raises
    ------
    RenderBackendError
        When no offscreen OpenGL works.
    """
    from ._gl import import_pyrender
    from .camera import fit_camera
    from .geometry import embedded_document, instanced_geometry, render_meshes
    from .draw import _Scene, _font, parse_size, _pil

    Image, ImageDraw, ImageFont = _pil()
    pyrender = import_pyrender()
    size = parse_size(size)
    pages = step_pages(build) if pages is None else list(pages)
    embedded = embedded_document(build)
    flat_all = build.flattened_placements
    meshes = render_meshes([p.content.ldraw_id + ".dat" for p in flat_all], embedded=embedded)
    font = _font(ImageFont, max(11, size[1] // 40))

    def geo_of(flat, look):
        if not flat:
            return None
        try:
            return instanced_geometry(flat, looks=[look] * len(flat), edges=edges, embedded=embedded, meshes=meshes)
        except ValueError:  # no part of the step has geometry (unknown parts): nothing to draw
            return None

    states: dict = {}  # model id -> [scene, camera, flats by step, plain geometry by step, steps shown]
    for page in pages:
        st = states.get(id(page.model))
        if st is None:
            flats = [_flat_of(g, page.model) for g in page.model.steps]
            plain = [geo_of(f, "plain") for f in flats]
            boxes = [g.bounds for g in plain if g is not None]
            if boxes:
                bounds = np.stack([np.min([b[0] for b in boxes], axis=0), np.max([b[1] for b in boxes], axis=0)])
            else:  # nothing drawable: frame the placements' origins
                pts = np.array([p.pose.matrix[:3, 3] for f in flats for p in f] or [[0.0, 0.0, 0.0]])
                bounds = np.stack([pts.min(axis=0) - 20, pts.max(axis=0) + 20])
            cam = fit_camera(bounds, view, size, projection=projection)
            st = states[id(page.model)] = [_Scene(pyrender), cam, flats, plain, 0]
        scene, cam, flats, plain, shown = st
        k = page.step - 1
        while shown <= k:  # earlier steps dimmed, this one in colour
            if shown > 0:
                scene.remove("new")
                old = geo_of(flats[shown - 1], "dimmed")
                if old is not None:
                    scene.add(("old", shown - 1), old)
            if plain[shown] is not None:
                scene.add("new", plain[shown])
            shown += 1
        st[4] = shown
        img = Image.fromarray(scene.render(cam), "RGB")
        if label:
            name = page.model.name or "model"
            ImageDraw.Draw(img).text((6, 4), f"{name}: step {page.step} of {page.steps}", fill=(40, 40, 60),
                                     font=font)
        if page.step >= page.steps:  # the (sub)model is done: free its scene
            states.pop(id(page.model), None)
        yield page, cam, img
