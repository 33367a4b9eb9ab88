"""Pictures of builds: one view, a labelled multi-view sheet, a PNG file of either.

Drawn offscreen with pyrender (EGL, else OSMesa; see :mod:`._gl`) from the
real LDraw part meshes with LDraw colours. Materials approximate the LDConfig
finishes with pyrender's metallic-roughness model: plastic (metallic 0,
roughness 0.55), chrome/metal (metallic 0.6, roughness 0.3),
pearlescent (0.35, 0.4), rubber (0, 0.9); transparent colours are alpha
blended. Lighting: a key light from the camera's upper left, a weaker fill
from the lower right and an ambient term, all following the camera, so every
view is lit alike. Edge lines (type-2) are drawn unlit in their LDraw edge
colour, nudged 0.5 LDU toward the camera so the faces do not hide them.

A consumer of builds (layering rule in :mod:`bricklayer.build`): it takes the build as an argument and
imports neither ``bricklayer.build`` nor the readers of builds, so :meth:`LegoBuild._repr_png_` can draw
with it. Drawing a model *file* (:func:`bricklayer.render.render.render_file`) reads the file first and
lives above :mod:`bricklayer.io`, in :mod:`bricklayer.render.render`, which re-exports this module's names.
"""

from __future__ import annotations

__all__ = [
    "parse_size",
    "render_build",
    "render_sheet",
    "save_render",
    "render_views",
    "problem_highlight",
    "SHEET_VIEWS",
    "BACKGROUND",
]

import logging
import math
import os
import time
from pathlib import Path

import numpy as np

from ._gl import face_lit_active, import_pyrender, offscreen_renderer, set_draw_rank
from .camera import Camera, fit_camera
from .geometry import (FINISH_KINDS, WARNING_COLORS, InstancedGeometry, _face_normals, _lookup, instanced_geometry,
                       normalize_highlight)
from ..errors import BrickLayerValueError

log = logging.getLogger(__name__)

#: Background colour (r, g, b) of pictures: a light blue-grey no LDraw colour uses.
BACKGROUND = (236, 240, 245)
#: Views of :func:`render_sheet`, in reading order (3 columns x 2 rows).
SHEET_VIEWS = ("iso", "front", "right", "back", "left", "top")

_MATERIAL = {  # finish -> (metallic, roughness)
    "plastic": (0.0, 0.55),
    "metal": (0.6, 0.3),
    "pearl": (0.35, 0.4),
    "rubber": (0.0, 0.9),
}
_EDGE_NUDGE = 0.5  # LDU toward the camera

#: Hidden parts are left out of a view (:meth:`_Scene.render`) when the scene's opaque layers hold more than
#: this many triangles (all placements); below it the extra depth pass is not worth its time.
CULL_HIDDEN_ABOVE_TRIANGLES = 400_000
#: Smallest triangle (LDU^2) drawn into the occluder depth pass of :meth:`_Scene.render`: the walls and tops of
#: parts (a 1x1 plate's top is two triangles of 200 LDU^2) but not studs, holes or tubes, about 9 % of the
#: triangles of the 5,247-part Millennium Falcon.
OCCLUDER_MIN_AREA = 20.0
#: A part is hidden only when its box lies at least this far (LDU) behind the occluders: the edge lines are
#: drawn 0.5 LDU toward the camera, plus room for depth-buffer rounding.
_CULL_MARGIN = 1.5


def _pil():
    try:
        from PIL import Image, ImageDraw, ImageFont  # noqa: PLC0415 - optional dependency
    except ModuleNotFoundError as exc:
        from ._gl import INSTALL_HINT, RenderBackendError

        raise RenderBackendError(f"rendering needs Pillow ({exc}); {INSTALL_HINT}") from exc
    return Image, ImageDraw, ImageFont


def parse_size(size) -> tuple[int, int]:
    """An image size in pixels, checked.

    Parameters
    ----------
    size : str or (int, int)
        ``"800x600"`` (width x height) or a ``(width, height)`` pair, pixels.

    Returns
    -------
    (int, int)
        Width and height, pixels.

    Raises
    ------
    BrickLayerValueError
        A string not of the form ``"WxH"``, or a side outside 8..8192 pixels (the sizes the renderer
        accepts; ``brickwright render --size`` checks its option with this before loading the model).
    """
    if isinstance(size, str):
        try:
            w, h = (int(v) for v in size.lower().split("x"))
        except ValueError:
            raise BrickLayerValueError(f"size must look like '800x600', got {size!r}") from None
    else:
        w, h = (int(v) for v in size)
    if w < 8 or h < 8 or w > 8192 or h > 8192:
        raise BrickLayerValueError(f"size must be between 8x8 and 8192x8192 pixels, got {w}x{h}")
    return w, h


def _linear(rgba: np.ndarray) -> np.ndarray:
    """(n, 3|4) uint8 sRGB -> float32 linear colour (alpha kept): pyrender's shader outputs ``color ** (1/2.2)``."""
    f = rgba.astype(np.float32) / 255.0
    f[:, :3] **= 2.2
    return f


def _look_pose(direction: np.ndarray) -> np.ndarray:
    """(4, 4) pose whose -Z axis is ``direction`` (a directional light shining that way)."""
    d = direction / np.linalg.norm(direction)
    ref = np.array([0.0, 0.0, 1.0]) if abs(d[2]) < 0.9 else np.array([0.0, 1.0, 0.0])
    x = np.cross(ref, -d)
    x /= np.linalg.norm(x)
    y = np.cross(-d, x)
    m = np.eye(4)
    m[:3, 0], m[:3, 1], m[:3, 2] = x, y, -d
    return m


def _shared_vertices(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Equal rows (position, normal, colour) merged: ``(unique rows float32, index per input row uint32)``.

    Drawn indexed, each shared vertex is transformed and lit once (a quad's two
    triangles share two corners, a circle's edge segments their ends), which
    is what the vertex-bound software rasterizer spends its time on.
    """
    rows = np.ascontiguousarray(rows, dtype=np.float32)
    key = rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).reshape(-1)
    _u, first, inv = np.unique(key, return_index=True, return_inverse=True)
    return rows[first], inv.reshape(-1).astype(np.uint32)


def _flat_shared_vertices(tris: np.ndarray, attrs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Vertices of flat-shaded triangles shared across normals: ``(rows float32, (n, 3) uint32 indices)``.

    Parameters
    ----------
    tris : (n, 3, 3) float32, LDU
    attrs : (n, k) float32
        What each triangle is shaded with (normal, colour).

    Returns
    -------
    rows : (v, 3 + k) float32
        Position then attributes.
    indices : (n, 3) uint32
        Each triangle's corners, cyclically rotated (the winding is kept) so
        that its last (provoking) vertex carries the triangle's own ``attrs``;
        the other two corners are any vertex at that position.

    Notes
    -----
    The ``face_lit`` shader passes the lit colour ``flat``, which OpenGL takes
    from the provoking vertex (the last one by default, ``glProvokingVertex``),
    so the other corners' attributes are never read. Each triangle picks the
    corner whose (position, attributes) pair the most triangles want (ties:
    the smallest pair), the pairs picked become vertices, and positions no
    triangle picked get one vertex each. The two triangles of a quad pick the
    same corner; a box needs 8 vertices instead of 24. On the 5,247-part
    Millennium Falcon the vertices to transform and light drop from 6.7 to 2.6
    million (all placements), about the number of distinct positions (2.3 million).
    """
    n = len(tris)
    pts = np.ascontiguousarray(tris.reshape(-1, 3), dtype=np.float32)
    pos, pos_idx = np.unique(pts.view(np.dtype((np.void, 12))).reshape(-1), return_index=True,
                             return_inverse=True)[1:]
    positions = pts[pos]
    pos_idx = pos_idx.reshape(n, 3).astype(np.int64)
    attrs = np.ascontiguousarray(attrs, dtype=np.float32)
    first, attr_id = np.unique(attrs.view(np.dtype((np.void, attrs.itemsize * attrs.shape[1]))).reshape(-1),
                               return_index=True, return_inverse=True)[1:]
    table = attrs[first]
    attr_id = attr_id.reshape(-1).astype(np.int64)
    na = len(table)
    pair = pos_idx * na + attr_id[:, None]
    _u, inv, cnt = np.unique(pair.reshape(-1), return_inverse=True, return_counts=True)
    score = cnt[inv.reshape(-1)].reshape(n, 3) * (int(pair.max()) + 1) - pair  # most wanted, then smallest
    j = score.argmax(axis=1)
    rows = np.arange(n)
    chosen, vid = np.unique(pair[rows, j], return_inverse=True)
    rep = np.full(len(positions), -1, dtype=np.int64)
    rep[chosen // na] = np.arange(len(chosen))
    missing = np.flatnonzero(rep < 0)
    rep[missing] = len(chosen) + np.arange(len(missing))
    any_attr = np.empty(len(positions), dtype=np.int64)
    any_attr[pos_idx.reshape(-1)] = np.repeat(attr_id, 3)
    verts = np.concatenate([np.concatenate([positions[chosen // na], table[chosen % na]], axis=1),
                            np.concatenate([positions[missing], table[any_attr[missing]]], axis=1)])
    turn = np.array([[1, 2, 0], [2, 0, 1], [0, 1, 2]])[j]  # chosen corner last, same winding
    idx = rep[pos_idx[rows[:, None], turn]]
    idx[:, 2] = vid.reshape(-1)
    return verts.astype(np.float32), idx.astype(np.uint32)


class _Scene:
    """A pyrender scene drawn from instanced geometry: one node per layer, camera and lights per view.

    Layers (keyed by any hashable) are added and removed between pictures, so
    the instruction pictures of one submodel reuse what is already uploaded:
    each part's mesh is uploaded once per distinct (part, colour, look) and
    drawn at every pose by instancing. See-through triangles of all layers are
    re-sorted back to front (painter's order) for each view.
    """

    def __init__(self, pyrender):
        self.pr = pyrender
        self.flat = face_lit_active()  # triangles may share vertices across normals (_flat_shared_vertices)
        self.scene = pyrender.Scene(bg_color=np.r_[np.array(BACKGROUND) / 255.0, 1.0],
                                    ambient_light=np.full(3, 0.45))
        self.layers: dict = {}  # key -> (face node or None, edge node or None, transparent RenderGeometry or None)
        self.materials = {}
        self.edge_materials: dict = {}
        self.cam_node = None
        self.trans_node = None
        self.edge_shift = np.zeros(3)
        self.hidden = 0  # placements left out of the last picture (see _hide_occluded)
        self.added = 0  # mesh nodes added so far: the draw rank of the next (_add_mesh)
        self.edge_light = None  # (3,) linear light an edge line reflects in the current view (_edge_lit_linear)
        self.lights = [
            self.scene.add(pyrender.DirectionalLight(color=np.ones(3), intensity=3.2)),
            self.scene.add(pyrender.DirectionalLight(color=np.ones(3), intensity=1.3)),
        ]

    def _material(self, kind: str, blend: bool):
        mat = self.materials.get((kind, blend))
        if mat is None:
            metallic, rough = _MATERIAL[kind]
            mat = self.materials[(kind, blend)] = self.pr.MetallicRoughnessMaterial(
                baseColorFactor=(1.0, 1.0, 1.0, 1.0), metallicFactor=metallic, roughnessFactor=rough,
                alphaMode="BLEND" if blend else "OPAQUE", doubleSided=False)
        return mat

    def _edge_material(self, rgb: tuple):
        got = self.edge_materials.get(rgb)
        if got is None:
            emissive = _linear(np.array([rgb], np.uint8))[0].astype(np.float64)
            mat = self.pr.MetallicRoughnessMaterial(baseColorFactor=(0.0, 0.0, 0.0, 1.0), emissiveFactor=emissive,
                                                    metallicFactor=0.0, roughnessFactor=1.0)
            got = self.edge_materials[rgb] = (mat, emissive)
            if self.flat and self.edge_light is not None:  # face_lit.vert takes an edge's lit colour as given
                mat.emissiveFactor = self.edge_light + emissive ** 2
        return got[0]

    def add(self, key, geo: InstancedGeometry) -> None:
        """Upload ``geo`` as layer ``key`` (replacing a layer of that key)."""
        pr = self.pr
        self.remove(key)
        faces, lines = [], []
        cull = {"batches": [], "corners": [], "occluders": [], "n_tris": 0}
        folder = _batch_cache_folder()
        for b in geo.batches:
            arrays = _batch_arrays(b, self.flat, folder)
            poses = b.poses.astype(np.float32)
            prims = []
            for fi, kind in enumerate(FINISH_KINDS):
                verts = arrays.get(f"face{fi}_v")
                if verts is not None:
                    prims.append(pr.Primitive(positions=verts[:, :3], normals=verts[:, 3:6], color_0=verts[:, 6:],
                                              indices=arrays[f"face{fi}_i"],
                                              material=self._material(kind, False), mode=4, poses=poses))
            faces.extend(prims)
            for u, rgb in enumerate(arrays.get("edge_rgb", ())):
                lines.append(pr.Primitive(positions=arrays[f"edge{u}_v"], indices=arrays[f"edge{u}_i"],
                                          material=self._edge_material(tuple(int(v) for v in rgb)), mode=1,
                                          poses=poses))
                prims.append(lines[-1])
            _cull_batch(cull, b, arrays, poses, prims)
        face_node = self._add_mesh(pr.Mesh(faces)) if faces else None
        edge_node = None
        if lines:
            pose = np.eye(4)
            pose[:3, 3] = self.edge_shift
            edge_node = self._add_mesh(pr.Mesh(lines), pose=pose)
        occ = []
        if cull["occluders"]:
            verts, idx = _world_occluders(cull.pop("occluders"))
            occ.append(pr.Primitive(positions=verts, indices=idx, mode=4))
        cull.pop("occluders", None)
        cull["node"] = self._add_mesh(pr.Mesh(occ)) if occ else None
        if cull["node"] is not None:
            cull["node"].mesh.is_visible = False
        cull["corners"] = np.concatenate(cull["corners"]) if cull["corners"] else np.zeros((0, 8, 3))
        self.layers[key] = (face_node, edge_node, geo.transparent, cull)

    def _add_mesh(self, mesh, pose=None):
        """Add ``mesh`` (pyrender.Mesh; ``pose`` (4, 4) LDU, default identity) as a node ranked after every
        node added before (:func:`._gl.set_draw_rank`): where two layers draw a pixel at the same depth (an
        edge shared by a new and an earlier part), the layer added last keeps it, in every run."""
        node = self.scene.add(mesh) if pose is None else self.scene.add(mesh, pose=pose)
        self.added += 1
        set_draw_rank(node, self.added)
        return node

    def remove(self, key) -> None:
        """Drop layer ``key`` (nothing when there is none)."""
        old = self.layers.pop(key, None)
        if old:
            for node in (old[0], old[1], old[3]["node"]):
                if node is not None:
                    self.scene.remove_node(node)

    def _set_camera(self, cam: Camera) -> None:
        """Put ``cam`` in the scene (replacing the previous camera); lights, edges and see-through triangles
        are left as they are (:meth:`set_view` does those)."""
        if self.cam_node is not None:
            self.scene.remove_node(self.cam_node)
        self.cam_node = self.scene.add(cam.to_pyrender(self.pr), pose=cam.pose)

    def set_view(self, cam: Camera) -> None:
        pr = self.pr
        self._set_camera(cam)
        r, u, d = cam.pose[:3, 0], cam.pose[:3, 1], cam.direction
        shine = [d + 0.6 * r - 0.8 * u, d - 0.7 * r + 0.5 * u]  # from upper left, from lower right
        for node, towards in zip(self.lights, shine):
            self.scene.set_pose(node, _look_pose(towards))
        if self.flat:  # face_lit.vert: an edge's colour is its linear colour, worked out here once per view
            self.edge_light = _edge_lit_linear(d, shine, [n.light.intensity for n in self.lights])
            for mat, emissive in self.edge_materials.values():
                mat.emissiveFactor = self.edge_light + emissive ** 2
        self.edge_shift = -d * _EDGE_NUDGE  # edges nudged toward the camera so faces do not hide them
        shift = np.eye(4)
        shift[:3, 3] = self.edge_shift
        for _f, edge_node, _t, _c in self.layers.values():
            if edge_node is not None:
                self.scene.set_pose(edge_node, shift)
        if self.trans_node is not None:
            self.scene.remove_node(self.trans_node)
            self.trans_node = None
        trans = [t for _f, _e, t, _c in self.layers.values() if t is not None]
        if trans:  # painter's order: farthest triangles first (pyrender draws them after the opaque)
            tris = np.concatenate([t.triangles for t in trans])
            rgba = np.concatenate([t.rgba for t in trans])
            fin = np.concatenate([t.finish for t in trans])
            order = np.argsort(-(tris.mean(axis=1) @ d), kind="stable")
            tris, rgba, fin = tris[order], rgba[order], fin[order]
            normals = _face_normals(tris)
            prims = []
            for fi, kind in enumerate(FINISH_KINDS):
                sel = fin == fi
                if sel.any():
                    prims.append(pr.Primitive(positions=tris[sel].reshape(-1, 3),
                                              normals=np.repeat(normals[sel], 3, axis=0),
                                              color_0=np.repeat(_linear(rgba[sel]), 3, axis=0),
                                              material=self._material(kind, True), mode=4))
            self.trans_node = self._add_mesh(pr.Mesh(prims))

    def render(self, cam: Camera) -> np.ndarray:
        """(h, w, 3) uint8 RGB picture of the scene's layers seen by ``cam``."""
        self.set_view(cam)
        r = offscreen_renderer(cam.width, cam.height)
        culled = self._hide_occluded(r, cam)
        self.hidden = sum(int((~mask).sum()) for _p, _q, mask in culled)
        color, _depth = r.render(self.scene)
        return np.ascontiguousarray(color[:, :, :3])

    def render_many(self, cams: list) -> list:
        """(h, w, 3) uint8 RGB pictures of the scene seen by each of ``cams``: the pictures :meth:`render`
        draws one by one, drawn so that llvmpipe's rasterizer threads can fill one picture while the main
        thread prepares the next.

        llvmpipe transforms and bins a picture's triangles on the calling thread and rasterizes them on its
        own threads when the picture is flushed; reading a picture back waits for every queued picture. So
        the hidden placements of every view are found first (each depth pass read back at once), then each
        view is drawn into its own framebuffer (:func:`._gl.use_framebuffer`) and flushed without being
        read, and the pictures are read back at the end. The OpenGL work of each picture is the same as
        with :meth:`render`, so are the pixels. Cameras of different sizes, or one camera, are drawn with
        :meth:`render`.
        """
        from ._gl import deferred_colour, read_colour, use_framebuffer

        if len(cams) < 2 or not self.flat or len({(c.width, c.height) for c in cams}) != 1:
            return [self.render(c) for c in cams]
        r = offscreen_renderer(cams[0].width, cams[0].height)
        if not hasattr(getattr(r._renderer, "_forward_pass", None), "pyrender_pass"):  # not the lean pass
            return [self.render(c) for c in cams]
        visible = []
        for cam in cams:
            self._set_camera(cam)
            visible.append(self._visibility(r, cam))
        pictures = []
        try:
            for i, cam in enumerate(cams):
                self.set_view(cam)
                r._platform.make_current()
                culled = self._apply_visibility(r, visible[i])
                self.hidden = sum(int((~mask).sum()) for _p, _q, mask in culled)
                use_framebuffer(r, i)
                with deferred_colour():
                    r.render(self.scene)
            for i in range(len(cams)):
                use_framebuffer(r, i)
                pictures.append(np.ascontiguousarray(read_colour(r)[:, :, :3]))
        finally:
            use_framebuffer(r, 0)
        return pictures

    def _hide_occluded(self, r, cam: Camera) -> list:
        """Draw only the placements that may show in ``cam``'s picture; returns what to restore afterwards.

        A depth pass draws the occluders (the opaque triangles of at least
        :data:`OCCLUDER_MIN_AREA` LDU^2 of every placement: a subset of what is
        drawn, so never nearer than the picture's own depth). A placement is
        hidden when the box of its opaque triangles and edges (part frame,
        after its pose), widened by one pixel, lies at least
        :data:`_CULL_MARGIN` LDU behind the farthest occluder depth over that
        rectangle (:func:`_ortho_depth`, one depth a pixel). Hidden placements are
        left out of the instance buffers for this picture; a batch's buffer is
        written only when the placements it should hold differ from those it
        holds (after the previous picture), and made whole again before a
        picture drawn without culling. Orthographic
        views of scenes above :data:`CULL_HIDDEN_ABOVE_TRIANGLES` triangles,
        with pyrender 0.1.45's internals (:func:`face_lit_active`); otherwise
        every placement is drawn.

        Returns
        -------
        list of (primitives, full poses (k, 4, 4) float32, visible mask)
            One per batch whose instances are cut for this picture.
        """
        return self._apply_visibility(r, self._visibility(r, cam))

    def _visibility(self, r, cam: Camera):
        """(n,) bool over the placements of all layers (in layer and batch order): which may show in
        ``cam``'s picture (:meth:`_hide_occluded`); None when no placement is left out of this picture.
        Draws and reads back the occluder depth pass, with the scene's current camera (``cam``)."""
        layers = [c for _f, _e, _t, c in self.layers.values()]
        occluders = [c["node"] for c in layers if c["node"] is not None]
        if (cam.projection != "ortho" or not self.flat  # self.flat: pyrender's internals are the known ones
                or sum(c["n_tris"] for c in layers) <= CULL_HIDDEN_ABOVE_TRIANGLES or not occluders):
            return None
        shown = [(n.mesh, n.mesh.is_visible) for n in self.scene.mesh_nodes]
        for mesh, _v in shown:
            mesh.is_visible = False
        for n in occluders:
            n.mesh.is_visible = True
        try:
            depth = r.render(self.scene, flags=self.pr.RenderFlags.DEPTH_ONLY)
        finally:
            for mesh, v in shown:
                mesh.is_visible = v
        far = _ortho_depth(depth, cam)
        corners = np.concatenate([c["corners"] for c in layers])
        visible = _visible_boxes(corners, far, cam)
        log.debug("view %s: %d of %d placements hidden", cam.direction.round(2), int((~visible).sum()), len(visible))
        return visible

    def _apply_visibility(self, r, visible) -> list:
        """Write the instance buffers so that only the placements ``visible`` (from :meth:`_visibility`; None:
        all) are drawn; a batch's buffer is written only when what it holds changes. Returns the batches cut,
        as (primitives, full poses, visible mask)."""
        layers = [c for _f, _e, _t, c in self.layers.values()]
        if visible is None:
            cut = [entry for c in layers for entry in c["batches"] if entry[2] is not None]
            if cut:
                r._platform.make_current()
                for entry in cut:
                    _set_instances(entry[0], entry[1])
                    entry[2] = None
            return []
        out, start = [], 0
        r._platform.make_current()
        for c in layers:
            for entry in c["batches"]:
                prims, poses, now = entry
                mask = visible[start:start + len(poses)]
                start += len(poses)
                if mask.all():
                    if now is not None:
                        _set_instances(prims, poses)
                        entry[2] = None
                    continue
                if now is None or not np.array_equal(now, mask):
                    _set_instances(prims, poses[mask])
                    entry[2] = mask
                out.append((prims, poses, mask))
        return out


def _edge_lit_linear(view_dir, light_dirs, intensities) -> np.ndarray:
    """(3,) linear RGB light an edge line reflects toward an orthographic camera, besides its own colour.

    Parameters
    ----------
    view_dir : (3,) float
        The camera's viewing direction (any length).
    light_dirs : sequence of (3,) float
        Direction each white directional light shines toward (any length).
    intensities : sequence of float
        Each light's intensity.

    Returns
    -------
    (3,) float64
        pyrender's metallic-roughness BRDF (``mesh.frag``, as :file:`shaders/face_lit.vert` evaluates it per
        vertex) for an edge's material (base colour black, metallic 0, roughness 1: specular only, F0 = 0.04)
        with the normal of a line (none: pyrender faces it toward the camera, n = v), summed over the lights.
        The edge's colour is this plus its emissive colour squared, as the shader adds it. With n = v the
        terms depend only on the angles between the camera and the lights, which follow the camera, so the
        value is the same at every vertex of a view; face_lit.vert takes it from here instead of evaluating
        the lights per vertex (about 0.5 s of the Millennium Falcon sheet's CPU, docs/rendering.md round 7).
        pyrender's per-vertex v points at the camera's position rather than along its axis: a difference of
        a few degrees, at most a few of 255 on the darkest edges (the Falcon's 800x600 iso view differs from
        main's by at most 11 of 255, this and round 7's culling together). A perspective camera gets the
        value along its axis too; the specular term of a black, fully rough material is small (about 0.01
        of linear white), so its change over a 30-degree field of view stays a few of 255.
    """
    v = -np.asarray(view_dir, dtype=np.float64)
    v /= np.linalg.norm(v)
    f0, roughness = 0.04, 1.0
    k = (roughness + 1.0) ** 2 / 8.0
    a2 = roughness ** 4
    total = 0.0
    for towards, intensity in zip(light_dirs, intensities):
        l = -np.asarray(towards, dtype=np.float64)
        l /= np.linalg.norm(l)
        h = (l + v) / np.linalg.norm(l + v)
        nl = float(np.clip(v @ l, 0.001, 1.0))
        nv = 1.0
        nh = float(np.clip(v @ h, 0.0, 1.0))
        vh = float(np.clip(v @ h, 0.0, 1.0))
        fresnel = f0 + (1.0 - f0) * (1.0 - vh) ** 5
        g = (nv / (nv * (1.0 - k) + k)) * (nl / (nl * (1.0 - k) + k))
        d = a2 / (np.pi * (nh * nh * (a2 - 1.0) + 1.0) ** 2)
        total += nl * intensity * fresnel * g * d / (4.0 * nl * nv + 0.001)
    return np.full(3, total)


def _cull_batch(cull: dict, b, arrays: dict, poses: np.ndarray, prims: list) -> None:
    """Record batch ``b`` (drawn by ``prims`` at ``poses``; ``arrays`` from :func:`_batch_arrays`) for
    :meth:`_Scene._hide_occluded`."""
    if not prims:
        return
    lo, hi = arrays["box"]
    box = np.array([[x, y, z, 1.0] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])])
    cull["corners"].append(np.einsum("kij,cj->kci", b.poses[:, :3, :], box))  # (k, 8, 3) world
    cull["batches"].append([prims, poses, None])  # the visible mask its instance buffer holds (None: all)
    cull["n_tris"] += len(b.triangles) * len(poses)
    if "occ_v" in arrays:
        cull["occluders"].append((arrays["occ_v"], arrays["occ_i"], poses))


def _world_occluders(occluders: list) -> tuple[np.ndarray, np.ndarray]:
    """All occluder triangles of a layer as one world-space mesh, drawn with one draw call.

    Parameters
    ----------
    occluders : list of (verts (v, 3) float32 LDU part frame, indices (n, 3) uint32, poses (k, 4, 4) float32)
        One entry per batch (``occ_v``, ``occ_i`` of :func:`_batch_arrays` and the batch's poses).

    Returns
    -------
    verts : (sum v k, 3) float32, LDU, BL world
    indices : (sum n k, 3) uint32

    Notes
    -----
    The occluders are drawn into a depth-only picture, whose value at each sample is the nearest depth of
    all triangles covering it whatever their order, so one mesh gives the depth of the 297 instanced ones
    (5,247-part Millennium Falcon: 254,014 vertices, 272,331 triangles) up to float rounding (the
    poses applied in float64 here, in float32 by the shader), far below the :data:`_CULL_MARGIN` of
    1.5 LDU; it saves about 300 primitives' upload and draw calls.
    """
    verts, idx, start = [], [], 0
    for v, i, poses in occluders:
        p = poses.astype(np.float64)
        w = np.einsum("kij,vj->kvi", p[:, :3, :3], v.astype(np.float64)) + p[:, None, :3, 3]
        verts.append(w.reshape(-1, 3))
        idx.append((i[None].astype(np.int64) + (start + np.arange(len(p)) * len(v))[:, None, None]).reshape(-1, 3))
        start += len(p) * len(v)
    return np.concatenate(verts).astype(np.float32), np.concatenate(idx).astype(np.uint32)


#: Version of the files :func:`_batch_arrays` keeps in the cache folder; part of every file's key, so bump it
#: whenever what those arrays hold changes.
BATCH_CACHE_VERSION = 1
_BATCH_MAGIC = b"BWBATCH1"


def _batch_key(b, flat: bool) -> str:
    """Hex digest (BLAKE2b, 20 bytes) of everything :func:`_compute_batch_arrays` reads from batch ``b``."""
    import hashlib  # noqa: PLC0415

    h = hashlib.blake2b(digest_size=20)
    h.update(f"v{BATCH_CACHE_VERSION} flat={flat}".encode())
    for a in (b.triangles, b.normals, b.rgba, b.finish, b.edges, b.edge_rgb):
        a = np.ascontiguousarray(a)
        h.update(f"|{a.dtype.str}{a.shape}".encode())
        h.update(a.data)
    return h.hexdigest()


def _compute_batch_arrays(b, flat: bool) -> dict:
    """What :meth:`_Scene.add` uploads for batch ``b``, computed (see :func:`_batch_arrays`)."""
    out: dict = {}
    if len(b.triangles):
        for fi in range(len(FINISH_KINDS)):
            sel = b.finish == fi
            if sel.any():
                tris, nrm = b.triangles[sel], b.normals[sel]
                if flat:
                    verts, idx = _flat_shared_vertices(tris, np.concatenate([nrm, _linear(b.rgba[sel])], axis=1))
                else:
                    verts = np.concatenate([tris.reshape(-1, 3), np.repeat(nrm, 3, axis=0),
                                            np.repeat(_linear(b.rgba[sel]), 3, axis=0)], axis=1)
                    verts, idx = _shared_vertices(verts)
                idx = idx.reshape(-1, 3)
                out[f"face{fi}_v"] = verts
                out[f"face{fi}_i"] = idx[np.argsort(idx.min(axis=1), kind="stable")]  # sharers close in the stream
    if len(b.edges):
        codes, inv = np.unique(b.edge_rgb, axis=0, return_inverse=True)
        inv = inv.reshape(-1)
        out["edge_rgb"] = codes.astype(np.uint8)
        for u in range(len(codes)):
            verts, idx = _shared_vertices(b.edges[inv == u].reshape(-1, 3))
            idx = idx.reshape(-1, 2)
            out[f"edge{u}_v"] = verts
            out[f"edge{u}_i"] = idx[np.argsort(idx.min(axis=1), kind="stable")]
    pts = [b.triangles.reshape(-1, 3)] + ([b.edges.reshape(-1, 3)] if len(b.edges) else [])
    pts = np.concatenate(pts).astype(np.float64)
    if len(pts):
        out["box"] = np.stack([pts.min(axis=0), pts.max(axis=0)])
    if len(b.triangles):
        t = b.triangles
        area = 0.5 * np.linalg.norm(np.cross(t[:, 1] - t[:, 0], t[:, 2] - t[:, 0]), axis=1)
        big = t[area >= OCCLUDER_MIN_AREA]
        if len(big):
            verts, idx = _shared_vertices(big.reshape(-1, 3))  # positions only: each corner transformed once
            out["occ_v"], out["occ_i"] = verts, idx.reshape(-1, 3)
    return out


def _write_batch_pack(path: Path, arrays: dict) -> None:
    """Write ``arrays`` (name -> ndarray) as one pack file, atomically: 8-byte magic, 4-byte little-endian
    header length, a JSON header (name, dtype, shape of each array), then the raw arrays back to back."""
    import json  # noqa: PLC0415

    from ldraw_data.fileio import atomic_write  # noqa: PLC0415

    arrs = {k: np.ascontiguousarray(v) for k, v in arrays.items()}
    header = json.dumps([[k, a.dtype.str, list(a.shape)] for k, a in arrs.items()]).encode()
    atomic_write(path, b"".join([_BATCH_MAGIC, len(header).to_bytes(4, "little"), header]
                                + [a.tobytes() for a in arrs.values()]))


def _read_batch_pack(path: Path) -> dict | None:
    """The arrays of a pack file of :func:`_write_batch_pack`; None when missing or unreadable (then
    discarded, so that it is rebuilt)."""
    import json  # noqa: PLC0415

    from ldraw_data.fileio import discard_cache_file  # noqa: PLC0415

    try:
        with open(path, "rb") as fh:  # read into a bytearray: writable arrays, like computed ones, one copy
            data = bytearray(os.fstat(fh.fileno()).st_size)
            if fh.readinto(data) != len(data):  # shrank while read: another process rewrites it
                return None
    except OSError:
        return None
    if data[:8] != _BATCH_MAGIC:
        discard_cache_file(path, "render batch", "not a render batch pack (bad magic)")
        return None
    try:
        hlen = int.from_bytes(data[8:12], "little")
        off = 12 + hlen
        out = {}
        for name, dt, shape in json.loads(data[12:off]):
            dtype = np.dtype(dt)
            count = int(np.prod(shape, dtype=np.int64))
            out[name] = np.frombuffer(data, dtype=dtype, count=count, offset=off).reshape(shape)
            off += count * dtype.itemsize
        if off != len(data):
            discard_cache_file(path, "render batch", f"{len(data)} bytes, the header accounts for {off}")
            return None
        return out
    except (ValueError, TypeError, KeyError) as exc:  # JSONDecodeError is a ValueError
        discard_cache_file(path, "render batch", exc)
        return None


def _batch_arrays(b, flat: bool, folder=...) -> dict:
    """The vertex and index arrays :meth:`_Scene.add` uploads for one instance batch, from the disk cache.

    Parameters
    ----------
    b : InstanceBatch
    flat : bool
        Whether triangles may share vertices across normals (:func:`_flat_shared_vertices`, with the
        ``face_lit`` shaders) or every corner keeps its own (:func:`_shared_vertices`).
    folder : Path or None, optional
        The cache folder, default :func:`_batch_cache_folder` (:meth:`_Scene.add` looks it up once for all
        its batches: asking ``platformdirs`` took 0.3 ms a batch); None: the arrays are computed, not kept.

    Returns
    -------
    dict of str -> ndarray
        ``face{i}_v`` (v, 10) float32 (position LDU, normal, linear colour) and ``face{i}_i`` (n, 3) uint32
        per finish index ``i`` of :data:`FINISH_KINDS` present; ``edge_rgb`` (k, 3) uint8 and per edge colour
        ``edge{u}_v`` (v, 3) float32 LDU, ``edge{u}_i`` (m, 2) uint32; ``box`` (2, 3) float64 LDU, the part-frame
        box of the triangles and edges; ``occ_v``/``occ_i`` the occluder triangles (at least
        :data:`OCCLUDER_MIN_AREA` LDU^2) as shared positions and indices. All in the part frame.

    Notes
    -----
    Merging equal vertices (``np.unique`` over millions of rows) was half of the scene building of a
    big model (0.4 s of CPU for the 297 batches of the 5,247-part Millennium Falcon) and gives the same
    result every time for the same batch, so the arrays are kept in the per-user cache folder
    (``ldraw_data.library.cache_dir()``, ``render-batches-v{BATCH_CACHE_VERSION}``), one file per batch,
    named by a BLAKE2b digest of the batch's triangles, normals, colours, finishes, edges and edge colours:
    a file is found again only for exactly the same input, so its arrays are exactly those computed. When
    the folder cannot be used the arrays are computed (and a write failure is logged at debug level).
    """
    if folder is ...:
        folder = _batch_cache_folder()
    path = None if folder is None else folder / f"{_batch_key(b, flat)}.pack"
    if path is not None:
        got = _read_batch_pack(path)
        if got is not None:
            return got
    arrays = _compute_batch_arrays(b, flat)
    if path is not None:
        try:
            _write_batch_pack(path, arrays)
        except OSError as exc:
            log.debug("could not write render batch cache %s: %s", path, exc)
    return arrays


def _batch_cache_folder() -> Path | None:
    """The folder of :func:`_batch_arrays`' files (``render-batches-v{BATCH_CACHE_VERSION}`` in the per-user
    cache folder, ``ldraw_data.library.cache_dir()``); None (logged at debug level) when there is no usable
    cache folder: the arrays are then computed every time."""
    try:
        from ldraw_data.library import cache_dir  # noqa: PLC0415

        return cache_dir() / f"render-batches-v{BATCH_CACHE_VERSION}"
    except Exception as exc:  # noqa: BLE001 - no usable cache folder: compute
        log.debug("render batch cache unavailable: %s", exc)
        return None


def _set_instances(prims: list, poses: np.ndarray) -> None:
    """Draw ``prims`` (uploaded pyrender primitives sharing instances) at ``poses`` only (current GL context).

    The poses go to the front of each primitive's instance buffer (pyrender
    0.1.45 keeps it second in ``_buffers``, as transposed float32 matrices)
    and the instance count follows ``len(poses)``; the buffer is never grown.
    """
    from OpenGL.GL import GL_ARRAY_BUFFER, glBindBuffer, glBufferSubData  # noqa: PLC0415

    data = np.ascontiguousarray(np.transpose(poses, (0, 2, 1)), dtype=np.float32).reshape(-1)
    for prim in prims:
        if data.size:
            glBindBuffer(GL_ARRAY_BUFFER, prim._buffers[1])
            glBufferSubData(GL_ARRAY_BUFFER, 0, data.nbytes, data)
        prim._poses = poses  # not the setter: keeps the bounds of all instances
    glBindBuffer(GL_ARRAY_BUFFER, 0)


def _ortho_depth(depth: np.ndarray, cam: Camera) -> np.ndarray:
    """(h, w) distance (LDU) from an orthographic camera to the nearest surface at each pixel; ``inf`` where
    nothing is drawn. ``depth`` is pyrender's depth picture, which converts the depth buffer as for a
    perspective camera (0 where empty); that conversion is undone here.

    Until round 7 (docs/rendering.md) the map was widened to the farthest of each 3 x 3 pixels, since the
    picture samples 4 points a pixel and one depth value does not bound what the other samples see; the
    box test already widens each rectangle by a pixel, and without the second widening 9 % fewer
    placements are drawn on the Millennium Falcon's sheet (17,129 instead of 18,873 over the six views)
    while 1 of its 960,000 pixels changes by more than 24 of 255 (a part seen through a hairline gap)."""
    n, f = cam.znear, cam.zfar
    d = depth.astype(np.float64)
    empty = d <= 0
    z_ndc = (f + n - 2.0 * n * f / np.where(empty, 1.0, d)) / (f - n)
    dist = np.where(empty, np.inf, n + (z_ndc + 1.0) * 0.5 * (f - n))
    return dist


def _visible_boxes(corners: np.ndarray, far: np.ndarray, cam: Camera) -> np.ndarray:
    """(n,) bool: which boxes (n, 8, 3 world corners, LDU) may show in front of the depth ``far`` (see
    :func:`_ortho_depth`); a box is hidden when it lies :data:`_CULL_MARGIN` LDU behind ``far`` over the
    whole rectangle it covers, widened by one pixel."""
    if not len(corners):
        return np.zeros(0, dtype=bool)
    R, origin = cam.pose[:3, :3], cam.pose[:3, 3]
    eye = (corners - origin) @ R  # x right, y up, z backwards
    col = (eye[..., 0] / cam.xmag + 1.0) * 0.5 * cam.width
    row = (1.0 - eye[..., 1] / cam.ymag) * 0.5 * cam.height
    near = (-eye[..., 2]).min(axis=1) - _CULL_MARGIN
    c0 = np.clip(np.floor(col.min(axis=1)).astype(int) - 1, 0, cam.width)
    c1 = np.clip(np.ceil(col.max(axis=1)).astype(int) + 1, 0, cam.width)
    r0 = np.clip(np.floor(row.min(axis=1)).astype(int) - 1, 0, cam.height)
    r1 = np.clip(np.ceil(row.max(axis=1)).astype(int) + 1, 0, cam.height)
    return _rectangle_max(far, r0, r1, c0, c1) >= near


def _rectangle_max(image: np.ndarray, r0, r1, c0, c1) -> np.ndarray:
    """(n,) the maximum of ``image`` (h, w) over each rectangle ``[r0, r1) x [c0, c1)`` (pixel rows and
    columns, inside the image); ``-inf`` for an empty rectangle.

    Exact (a maximum involves no rounding), and the same as ``image[r0:r1, c0:c1].max()`` per rectangle, but
    without a Python loop over the rectangles: the maximum over a rectangle of ``h x w`` pixels is that of
    the four (overlapping) blocks of ``2^a x 2^b`` pixels in its corners, ``2^a <= h < 2^(a+1)``, the block
    maxima of each size used computed once over the whole image by doubling (a sparse table). On the
    5,247-part Falcon's sheet views (400 x 383 pixels, 5,247 rectangles) this replaces 5,247 numpy slices
    a view.
    """
    r0, r1, c0, c1 = (np.asarray(a, dtype=np.int64) for a in (r0, r1, c0, c1))
    out = np.full(len(r0), -np.inf)
    ok = np.flatnonzero((r1 > r0) & (c1 > c0))
    if not len(ok):
        return out
    ka = np.floor(np.log2(r1[ok] - r0[ok])).astype(np.int64)
    kb = np.floor(np.log2(c1[ok] - c0[ok])).astype(np.int64)
    by_columns = [np.asarray(image, dtype=np.float64)]  # [b]: maximum over 2^b columns starting at each column
    for b in range(1, int(kb.max()) + 1):
        prev, half = by_columns[-1], 1 << (b - 1)
        by_columns.append(np.maximum(prev[:, :-half], prev[:, half:]))
    for b in np.unique(kb):
        sel_b = kb == b
        block = by_columns[b]  # then doubled over rows: maximum over 2^a rows x 2^b columns
        for a in range(0, int(ka[sel_b].max()) + 1):
            if a:
                half = 1 << (a - 1)
                block = np.maximum(block[:-half], block[half:])
            sel = np.flatnonzero(sel_b & (ka == a))
            if not len(sel):
                continue
            i = ok[sel]
            top, left = r0[i], c0[i]
            bottom, right = r1[i] - (1 << a), c1[i] - (1 << int(b))
            out[i] = np.maximum(np.maximum(block[top, left], block[top, right]),
                                np.maximum(block[bottom, left], block[bottom, right]))
    return out


def problem_highlight(build) -> dict:
    """Highlight colours of a build's problems, for ``highlight=``.

    Parameters
    ----------
    build : LegoBuild

    Returns
    -------
    dict of FlatPlacement -> (r, g, b)
        Colliding parts in red (230, 30, 30), floating parts in orange
        (255, 140, 0) (a part both colliding and floating is red). Empty when
        the build is valid. A check the installed validator does not offer yet
        is skipped with a log message.
    """
    out: dict = {}
    try:
        for p in build.floating_placements:
            out[p] = WARNING_COLORS["floating"]
    except (ImportError, NotImplementedError, AttributeError) as exc:
        log.info("floating check unavailable, not highlighted: %s", exc)
    try:
        for pair in build.colliding_placements:
            for p in pair:
                out[p] = WARNING_COLORS["colliding"]
    except (ImportError, NotImplementedError, AttributeError) as exc:
        log.info("collision check unavailable, not highlighted: %s", exc)
    return out


def drop_subpixel_edges(geo: InstancedGeometry, ldu_per_pixel: float) -> InstancedGeometry:
    """``geo`` without the edge lines shorter than one pixel in every view.

    Parameters
    ----------
    geo : InstancedGeometry
    ldu_per_pixel : float, LDU
        Pixel size of the finest view. An orthographic projection never
        lengthens a line, so an edge shorter than this (in LDU, part frame:
        poses are rotations) covers less than a pixel in every view; its
        dot is lost in the antialiased faces around it. On the 5,247-part
        Falcon's sheet (about 4 LDU a pixel) this drops about 30 % of the
        edges; at 800x600 a 2x4 brick keeps all of them.

    Returns
    -------
    InstancedGeometry
    """
    from dataclasses import replace

    batches = []
    for b in geo.batches:
        if len(b.edges):
            keep = np.linalg.norm(b.edges[:, 1] - b.edges[:, 0], axis=1) >= ldu_per_pixel
            if not keep.all():
                b = replace(b, edges=b.edges[keep], edge_rgb=b.edge_rgb[keep])
        batches.append(b)
    return InstancedGeometry(batches, geo.transparent, geo.bounds, geo.n_parts)


def _least_ldu_per_pixel(flat, views, size) -> float | None:
    """A lower bound (LDU) of the pixel size of the finest of orthographic ``views`` (each framing the whole
    build, :func:`.camera.fit_camera`) at ``size`` (width, height pixels), before any mesh is loaded: the
    views framed around the placements' origins (each inside its part, so their box lies inside the build's
    and its views have smaller pixels). None for no placement. Chooses the level of detail
    (:data:`.geometry.COARSE_ABOVE_LDU_PER_PIXEL`)."""
    if not flat:
        return None
    origins = np.array([p.pose.matrix[:3, 3] for p in flat], dtype=np.float64)
    bounds = np.stack([origins.min(axis=0), origins.max(axis=0)])
    return min(2.0 * c.xmag / c.width for c in (fit_camera(bounds, v, size) for v in views))


def _views_images(build, views, size, *, highlight, edges, projection):
    pyrender = import_pyrender()
    t0 = time.perf_counter()
    flat = build.flattened_placements
    looks = None
    hl = normalize_highlight(highlight)
    if hl:
        looks = [c if c is not None else "faded" for c in (_lookup(hl, p) for p in flat)]
    geo = instanced_geometry(build, looks=looks, edges=edges, resolution="auto",
                             ldu_per_pixel=_least_ldu_per_pixel(flat, views, size) if projection == "ortho" else None)
    t1 = time.perf_counter()
    cams = [fit_camera(geo.bounds, v, size, projection=projection) for v in views]
    if projection == "ortho":
        geo = drop_subpixel_edges(geo, min(2.0 * c.xmag / c.width for c in cams))
    sc = _Scene(pyrender)
    sc.add("build", geo)
    out = list(zip(cams, sc.render_many(cams)))
    log.info("rendered %d parts (%d distinct part meshes), %d views: geometry %.2fs, drawing %.2fs",
             geo.n_parts, len(geo.batches), len(views), t1 - t0, time.perf_counter() - t1)
    return geo, out


def render_views(build, views=("iso",), *, size=(800, 600), highlight=None, edges: bool = True,
                 projection: str = "ortho", pose=None):
    """Render several views of one build, sharing the geometry and the GPU upload.

    Parameters
    ----------
    build : LegoBuild
    views : sequence of view
        Each a name (``"front"``, ``"back"``, ``"left"``, ``"right"``, ``"top"``,
        ``"bottom"``, ``"iso"``, ``"iso_back"``), an (azimuth, elevation) pair in
        degrees, or a (4, 4) camera pose (its orientation is used; the camera is
        moved to frame the build). See :mod:`bricklayer.render.camera`.
    size : (width, height) int or "WxH" str, pixels
    highlight, edges, projection, pose
        As :func:`render_build`.

    Returns
    -------
    list of (Camera, (h, w, 3) uint8 ndarray)
        The fitted camera (to project points into the picture) and the RGB pixels.

    Raises
    ------
    RenderBackendError
        When no offscreen OpenGL works (the message says what to install).
    ValueError
        For an empty build, a bad view or size.
    """
    size = parse_size(size)
    build, highlight = _posed_for_render(build, pose, highlight)
    return _views_images(build, list(views), size, highlight=highlight, edges=edges, projection=projection)[1]


def _posed_for_render(build, pose, highlight):
    """The build to draw: ``build.posed(pose)`` when joint coordinates are given (placements
    to highlight are carried over to the snapshot's parts), else the build itself."""
    if not pose:
        return build, highlight
    from ..articulation import posed

    snap = posed(build, pose)
    if highlight is None:
        return snap, None
    # the snapshot has one placement per flattened part, in flattened order
    flat = build.flattened_placements
    new = {id(fp.path[-1]): p for fp, p in zip(flat, snap.placements)}
    by_top = {}
    for fp, p in zip(flat, snap.placements):
        by_top.setdefault(id(fp.path[0]), []).append(p)

    def carry(x):
        if isinstance(x, tuple):
            return tuple(carry(y) for y in x)
        leaf = getattr(x, "path", None)
        if leaf:
            return new.get(id(leaf[-1]), x)
        return new.get(id(x)) or (by_top.get(id(x)) or [x])[0]

    if isinstance(highlight, dict):
        return snap, {carry(k): v for k, v in highlight.items()}
    return snap, [carry(x) for x in highlight]


def render_build(build, *, view="iso", size=(800, 600), highlight=None, edges: bool = True,
                 projection: str = "ortho", pose=None):
    """Picture of a build from one direction; the camera frames the whole build.

    Parameters
    ----------
    build : LegoBuild
        Any build; nested builds are drawn too.
    view : str, (azimuth, elevation) degrees, or (4, 4) camera pose
        ``"iso"`` (front-right-above, default), ``"iso_back"``, ``"front"``
        (from -Y), ``"back"``, ``"left"`` (from -X), ``"right"``, ``"top"``,
        ``"bottom"``; or angles (azimuth 0 = front, 90 = right; elevation
        90 = from above); or a camera-to-world pose (looking down its -Z)
        whose orientation is kept.
    size : (width, height) int or "WxH" str, pixels
    highlight : iterable of placements or of pairs, or dict placement -> (r, g, b), optional
        Draw these parts in a warning colour (red unless given) and fade the
        rest; e.g. ``build.colliding_placements`` or
        :func:`problem_highlight(build) <problem_highlight>`.
    edges : bool
        Draw the LDraw edge lines.
    projection : {"ortho", "perspective"}
    pose : dict, optional
        Joint coordinates to draw the build at, as for
        :func:`bricklayer.articulation.posed` (``{"lid": Revolute(60)}``; keys
        are joints, child placements or child names; joints not given stay at
        zero). The picture shows ``build.posed(pose)``; the build is not changed.

    Returns
    -------
    PIL.Image.Image
        RGB, ``size`` pixels, background :data:`BACKGROUND`.

    Raises
    ------
    RenderBackendError
        When pyrender/Pillow are missing or no offscreen OpenGL works (with install hints).
    ValueError
        For an empty build, an unknown view or a bad size, or a ``pose``
        coordinate that does not fit its joint.
    KeyError
        A ``pose`` key that names no joint.

    Examples
    --------
    >>> from bricklayer import Color, Element, LegoBuild          # doctest: +SKIP
    >>> b = LegoBuild(); b.add(Element("3003", Color.RED))        # doctest: +SKIP
    >>> render_build(b, view="front", size=(400, 300)).size      # doctest: +SKIP
    (400, 300)
    """
    Image, _, _ = _pil()
    (_cam, px), = render_views(build, (view,), size=size, highlight=highlight, edges=edges, projection=projection,
                               pose=pose)
    return Image.fromarray(px, "RGB")


def _font(ImageFont, px: int):
    try:
        return ImageFont.load_default(size=px)
    except TypeError:  # Pillow < 10.1: fixed bitmap font
        return ImageFont.load_default()


def render_sheet(build, *, size=(1200, 800), highlight=None, edges: bool = True, views=SHEET_VIEWS,
                 title: str | None = None, projection: str = "ortho", pose=None):
    """One labelled picture of a build from several sides (default: iso, front, right, back, left, top).

    Parameters
    ----------
    build : LegoBuild
    size : (width, height) int or "WxH" str, pixels
        Size of the whole sheet; views are laid out 3 per row.
    highlight : see :func:`render_build`
    edges : bool
    views : sequence of view
        See :func:`render_build`; names are used as labels.
    title : str, optional
        A line drawn at the top (e.g. the model's name and part count).
    projection : {"ortho", "perspective"}
    pose : dict, optional
        Joint coordinates to draw the build at (see :func:`render_build`).

    Returns
    -------
    PIL.Image.Image
        RGB, exactly ``size``; each cell has its view's name in its top-left corner.

    Raises
    ------
    RenderBackendError, ValueError
        As :func:`render_build`.
    """
    Image, ImageDraw, ImageFont = _pil()
    w, h = parse_size(size)
    views = list(views)
    cols = min(3, len(views))
    rows = math.ceil(len(views) / cols)
    title_h = max(14, h // 30) + 8 if title else 0
    cw, ch = w // cols, (h - title_h) // rows
    build, highlight = _posed_for_render(build, pose, highlight)
    _, shots = _views_images(build, views, (cw, ch), highlight=highlight, edges=edges, projection=projection)
    sheet = Image.new("RGB", (w, h), BACKGROUND)
    draw = ImageDraw.Draw(sheet)
    font = _font(ImageFont, max(11, min(cw, ch) // 16))
    for i, (v, (_cam, px)) in enumerate(zip(views, shots)):
        x0, y0 = (i % cols) * cw, title_h + (i // cols) * ch
        sheet.paste(Image.fromarray(px, "RGB"), (x0, y0))
        label = v if isinstance(v, str) else (f"az {v[0]:g}, el {v[1]:g}" if len(v) == 2 else "pose")
        draw.text((x0 + 6, y0 + 4), label, fill=(40, 40, 60), font=font)
        draw.rectangle([x0, y0, x0 + cw - 1, y0 + ch - 1], outline=(200, 205, 215))
    if title:
        draw.text((6, 4), title, fill=(20, 20, 30), font=_font(ImageFont, title_h - 8))
    return sheet


def save_render(build, out_png, *, view="iso", size=None, highlight_problems: bool = False,
                edges: bool = True, projection: str = "ortho", title: str | None = None, pose=None,
                overwrite: bool = True) -> Path:
    """Render a build (one view or the sheet) and write it as a PNG.

    Parameters
    ----------
    build : LegoBuild
    out_png : str or Path
        Where to write (parent folders are created).
    view : str, (azimuth, elevation) or (4, 4) pose, or "sheet"
        ``"sheet"`` renders :func:`render_sheet`; anything else :func:`render_build`.
    size : (width, height) or "WxH", pixels, optional
        Default 800x600 for a view, 1200x800 for a sheet.
    highlight_problems : bool
        Highlight colliding (red) and floating (orange) parts and fade the
        rest (see :func:`problem_highlight`); with no problem found the
        picture is drawn normally.
    edges : bool
    projection : {"ortho", "perspective"}
    title : str, optional
        Title line of a sheet (ignored for a single view).
    pose : dict, optional
        Joint values (joint name -> degrees or LDU) to render the build posed, as :func:`render_build`.
    overwrite : bool
        Replace an existing ``out_png`` (default). False: a PNG there when the picture is finished, e.g. one
        another run wrote meanwhile, is left as it is (``ldraw_data.fileio.atomic_writer``, ``replace=False``).

    Returns
    -------
    Path
        The PNG written (atomically: temp file then rename).

    Raises
    ------
    RenderBackendError, ValueError
        As :func:`render_build`.
    OutputExistsError
        ``overwrite`` is False and ``out_png`` exists.
    """
    out = Path(out_png)
    is_sheet = isinstance(view, str) and view.strip().lower() == "sheet"
    if size is None:
        size = (1200, 800) if is_sheet else (800, 600)
    highlight = problem_highlight(build) if highlight_problems else None
    if is_sheet:
        img = render_sheet(build, size=size, highlight=highlight or None, edges=edges, title=title,
                           projection=projection, pose=pose)
    else:
        img = render_build(build, view=view, size=size, highlight=highlight or None, edges=edges,
                           projection=projection, pose=pose)
    from ldraw_data.fileio import atomic_writer

    with atomic_writer(out, "wb", replace=overwrite) as fh:
        img.save(fh, format="PNG")
    return out
