"""Offscreen OpenGL for pyrender: pick a headless platform and import pyrender lazily.

PyOpenGL chooses its platform once, from the ``PYOPENGL_PLATFORM`` environment
variable, when ``OpenGL`` is first imported. This module sets it before the
first import: EGL first (Mesa's EGL runs on the llvmpipe software rasterizer
when there is no GPU and no display), OSMesa second (pure software). When a
platform fails, the ``OpenGL`` and ``pyrender`` modules are dropped from
``sys.modules`` and the next one is tried. A ``PYOPENGL_PLATFORM`` set by the
user is respected and is then the only one tried.

Notes
-----
System packages (Debian 12): ``libegl1 libegl-mesa0 libgl1-mesa-dri libgbm1``
for EGL, ``libosmesa6`` for OSMesa. pyrender 0.1.45 pins ``PyOpenGL==3.1.0``,
whose OSMesa binding lacks ``OSMesaCreateContextAttribs``; the OSMesa fallback
needs ``PyOpenGL>=3.1.7`` (EGL works with both).
"""

from __future__ import annotations

__all__ = ["RenderBackendError", "import_pyrender", "offscreen_renderer", "face_lit_active", "backend_info",
           "INSTALL_HINT", "use_framebuffer", "deferred_colour", "read_colour", "set_draw_rank"]

import importlib
import importlib.util
import logging
import os
import sys
import types
import weakref
from ..errors import BrickLayerError

log = logging.getLogger(__name__)

#: What to install when rendering cannot start (shown in :class:`RenderBackendError`).
INSTALL_HINT = (
    "install the Python packages with `pip install 'brickwright-toolkit[render]'` "
    "(or `pip install pyrender pillow` then `pip install 'PyOpenGL>=3.1.7'`), and a software OpenGL: "
    "`apt-get install libegl1 libegl-mesa0 libgl1-mesa-dri libgbm1 libosmesa6` on Debian/Ubuntu"
)

_PLATFORMS = ("egl", "osmesa")
_state: dict = {"pyrender": None, "platform": None, "renderer": None, "gl": None}


class RenderBackendError(BrickLayerError, RuntimeError):
    """No offscreen OpenGL could be started (pyrender missing, or neither EGL nor OSMesa works).

    The message lists each platform tried with its error, and what to install.
    """


def _purge_gl_modules() -> None:
    for name in list(sys.modules):
        if name == "OpenGL" or name.startswith(("OpenGL.", "pyrender")):
            del sys.modules[name]


def import_pyrender():
    """Import pyrender on a working headless OpenGL platform (once per process).

    Returns
    -------
    module
        The ``pyrender`` module, with an offscreen context known to work.

    Raises
    ------
    RenderBackendError
        When pyrender is not installed or no platform works; the message says
        what to install.
    """
    if _state["pyrender"] is not None:
        return _state["pyrender"]
    requested = os.environ.get("PYOPENGL_PLATFORM")
    if requested:
        candidates = (requested,)
    elif "OpenGL" in sys.modules:  # someone imported PyOpenGL already: its platform is fixed
        candidates = (None,)
    else:
        candidates = _PLATFORMS
    errors = []
    for plat in candidates:
        if plat is not None:
            os.environ["PYOPENGL_PLATFORM"] = plat
        try:
            with _unused_imports_deferred():
                import pyrender  # noqa: PLC0415 - lazy on purpose (house style 11)
        except ModuleNotFoundError as exc:
            if exc.name and exc.name.split(".")[0] in ("pyrender", "OpenGL", "PIL", "trimesh"):
                if not requested and plat is not None:
                    os.environ.pop("PYOPENGL_PLATFORM", None)
                raise RenderBackendError(f"rendering needs pyrender ({exc}); {INSTALL_HINT}") from exc
            errors.append((plat, exc))
            _purge_gl_modules()
            continue
        except Exception as exc:  # PyOpenGL raises ImportError/AttributeError/OSError for a missing library
            errors.append((plat, exc))
            _purge_gl_modules()
            continue
        try:
            r = pyrender.OffscreenRenderer(16, 16)
            from OpenGL import GL  # noqa: PLC0415

            r._platform.make_current()
            gl = (GL.glGetString(GL.GL_RENDERER) or b"?").decode(errors="replace")
            r._platform.make_uncurrent()
        except Exception as exc:
            errors.append((plat, exc))
            _purge_gl_modules()
            continue
        _install_draw_order(getattr(r, "_renderer", None))
        _state.update(pyrender=pyrender, platform=os.environ.get("PYOPENGL_PLATFORM"), renderer=r, gl=gl)
        log.info("offscreen OpenGL: platform %s, renderer %s", _state["platform"], gl)
        return pyrender
    if not requested:
        os.environ.pop("PYOPENGL_PLATFORM", None)
    tried = "; ".join(f"{p or 'preloaded'}: {type(e).__name__}: {e}" for p, e in errors)
    raise RenderBackendError(f"no offscreen OpenGL platform works (tried {tried}); {INSTALL_HINT}")


#: Packages pyrender 0.1.45 imports at start-up that offscreen drawing does not use, with the submodules it
#: does use (imported under the stand-in): see :class:`_unused_imports_deferred`.
_DEFERRED_PACKAGES = (("trimesh", ("trimesh.transformations",)), ("freetype", ()))


class _DeferredPackage(types.ModuleType):
    """Stands in for a package that pyrender imports but bricklayer's drawing never uses (see
    :func:`_unused_imports_deferred`): the first attribute it lacks imports the real package and is
    read from there, so pyrender's own uses (``Mesh.from_trimesh``, ``Scene.bounds``) still work."""

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):  # probes (inspect, copy): no import for them
            raise AttributeError(name)
        if sys.modules.get(self.__name__) is self:
            del sys.modules[self.__name__]
        real = importlib.import_module(self.__name__)
        return getattr(real, name)


class _unused_imports_deferred:
    """Context manager around ``import pyrender``: the packages pyrender 0.1.45 imports at start-up for
    features bricklayer never uses are imported when first used instead.

    ``pyrender/__init__`` imports its on-screen viewer (``pyglet``), its text renderer ``freetype``, and
    its mesh, node and scene modules ``trimesh``, whose package imports scipy (``scipy.spatial``,
    ``scipy.optimize``, ``scipy.sparse``) and much of networkx: :func:`import_pyrender` (the import and a
    first 16 x 16 context) took 1.28-1.35 s of the main thread's CPU on the loaded 2-core machine, 0.64-0.67 s
    without them (docs/rendering.md, round 5), all of it before the first picture and serial. Drawing offscreen needs only ``trimesh.transformations`` (numpy; ``pyrender.node``).
    So, while pyrender is imported:

    - ``trimesh`` and ``freetype`` are :class:`_DeferredPackage` stand-ins (listed in
      :data:`_DEFERRED_PACKAGES`); under ``trimesh`` the real ``trimesh.transformations`` is imported on
      its own, with the few trimesh modules it needs;
    - ``pyrender.viewer`` is a module whose ``Viewer`` imports the real viewer when one is made.

    Afterwards the stand-ins and the trimesh modules imported for them leave ``sys.modules`` (pyrender's
    modules keep their references), so a later ``import trimesh`` or ``import pyrender.viewer``
    elsewhere (``bricklayer.export.meshfiles``) imports the real, whole packages as usual. A package
    imported before, or not installed, is left alone.
    """

    def __enter__(self):
        self.added = []
        if "pyrender" in sys.modules:
            return self
        for package, needed in _DEFERRED_PACKAGES:
            try:
                spec = None if package in sys.modules else importlib.util.find_spec(package)
            except (ImportError, ValueError):
                spec = None
            if spec is None or not spec.submodule_search_locations:
                continue
            stand_in = _DeferredPackage(package)
            stand_in.__path__ = list(spec.submodule_search_locations)
            sys.modules[package] = stand_in
            self.added.append((package, stand_in))
            try:
                for sub in needed:
                    importlib.import_module(sub)
            except Exception as exc:  # noqa: BLE001 - another layout: pyrender imports the package whole
                log.debug("%s alone failed (%s); importing %s whole", needed, exc, package)
                self._drop(package, stand_in)
                self.added.pop()
        if "pyrender.viewer" not in sys.modules and "pyglet" not in sys.modules:
            viewer = types.ModuleType("pyrender.viewer")
            viewer.Viewer = _deferred_viewer_class()
            sys.modules["pyrender.viewer"] = viewer
            self.added.append(("pyrender.viewer", viewer))
        return self

    def __exit__(self, *exc):
        for name, module in self.added:
            self._drop(name, module)
        return False

    @staticmethod
    def _drop(name: str, module) -> None:
        """Take stand-in ``module`` for ``name`` out of ``sys.modules`` with the submodules imported under
        it (unless the real package was imported meanwhile), so that a later import gets the real one."""
        if sys.modules.get(name) is module:
            del sys.modules[name]
            for sub in [m for m in sys.modules if m.startswith(name + ".")]:
                del sys.modules[sub]


def _deferred_viewer_class():
    """``pyrender.Viewer`` until the real one is needed: making one imports ``pyrender.viewer`` (and
    pyglet) and returns the real viewer."""

    class Viewer:
        """pyrender's on-screen viewer, imported when the first one is made (see
        :class:`_unused_imports_deferred`)."""

        def __new__(cls, *args, **kwargs):
            real = importlib.import_module("pyrender.viewer").Viewer
            return real(*args, **kwargs)

    return Viewer


#: Draw rank of mesh nodes (:func:`set_draw_rank`), by node; nodes without one rank 0.
_draw_rank: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def set_draw_rank(node, rank: int) -> None:
    """Give a pyrender mesh node its place among nodes pyrender would draw at the same time.

    pyrender draws the opaque mesh nodes, then the see-through ones, each group
    farthest node origin first (``Renderer._sorted_mesh_nodes``), but nodes at
    the same distance (every layer at the identity pose) come in the iteration
    order of ``Scene.mesh_nodes``, a ``set`` hashed by object address: it changes
    from run to run. With pyrender's ``glDepthFunc(GL_LESS)`` the node drawn first
    keeps a pixel two nodes draw at equal depth (an edge line shared by two
    parts, coplanar faces), so the pictures changed from run to run (Moon Buggy
    1180 instructions: 200-860 pixels of 12 of 16 steps). Among nodes at the same
    distance, the higher ``rank`` is drawn first and so wins equal depths; equal
    ranks keep pyrender's order.

    Parameters
    ----------
    node : pyrender.Node
    rank : int
        E.g. a counter of the nodes added to a scene, so the last added wins.
    """
    _draw_rank[node] = int(rank)


def _install_draw_order(renderer) -> None:
    """Replace ``renderer._sorted_mesh_nodes`` (pyrender's draw order, used by each of its passes and by
    :func:`_lean_forward_pass`) by the same order with ties broken by :func:`set_draw_rank`; nothing when
    the renderer has no such method (other pyrender internals)."""
    if renderer is None or not callable(getattr(type(renderer), "_sorted_mesh_nodes", None)):
        return
    import numpy as np  # noqa: PLC0415

    def sorted_mesh_nodes(scene):
        cam_loc = scene.get_pose(scene.main_camera_node)[:3, 3]
        solid, trans = [], []
        for node in scene.mesh_nodes:
            (trans if node.mesh.is_transparent else solid).append(node)

        def key(n):  # pyrender's key (farthest origin first), then the higher rank first
            return -np.linalg.norm(scene.get_pose(n)[:3, 3] - cam_loc), -_draw_rank.get(n, 0)

        solid.sort(key=key)
        trans.sort(key=key)
        return solid + trans

    renderer._sorted_mesh_nodes = sorted_mesh_nodes


_SHADER_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "shaders")


def _face_lit_program_cache(pyrender):
    """A pyrender shader cache drawing meshes with :file:`shaders/face_lit.vert` and ``.frag``.

    The same lighting as pyrender's ``mesh.vert``/``mesh.frag`` (metallic-roughness
    PBR, directional lights, ambient, emissive) computed per vertex: faces are
    flat, lights directional and the camera orthographic, so the colour is
    constant over each triangle. On llvmpipe this makes a 5,000-part picture
    about 4x cheaper (fragment shading of millions of tiny triangles was most
    of the time). Other programs (depth, text) are pyrender's own.
    """
    from pyrender.shader_program import ShaderProgramCache  # noqa: PLC0415

    class FaceLitCache(ShaderProgramCache):
        def get_program(self, vertex_shader, fragment_shader, geometry_shader=None, defines=None):
            if vertex_shader == "mesh.vert" and fragment_shader == "mesh.frag" and geometry_shader is None:
                vertex_shader = os.path.join(_SHADER_DIR, "face_lit.vert")
                fragment_shader = os.path.join(_SHADER_DIR, "face_lit.frag")
            program = super().get_program(vertex_shader, fragment_shader, geometry_shader, defines)
            if "set_uniform" not in vars(program):
                program.set_uniform = _skip_unchanged(program.set_uniform)
            return program

    return FaceLitCache()


def _skip_unchanged(set_uniform):
    """``set_uniform`` of one shader program, skipping a value the program holds already.

    pyrender sets the camera, the lights and the material before every draw
    call (about 25 uniforms, each a ``glGetUniformLocation`` and a
    ``glUniform`` through PyOpenGL), although a uniform keeps its value in the
    program object until set again; a 300-part-mesh picture spent about 0.2 s
    of CPU on this alone. Only values differing from the last one set by this
    function reach OpenGL.
    """
    import numpy as np  # noqa: PLC0415

    last: dict = {}

    def set_cached(name, value, unsigned=False):
        if isinstance(value, np.ndarray):
            key = (value.dtype.str, value.shape, value.tobytes())
        else:
            key = (type(value), value)
        if last.get((name, unsigned)) == key:
            return
        last[(name, unsigned)] = key
        set_uniform(name, value, unsigned)

    return set_cached


def offscreen_renderer(width: int, height: int):
    """The process's shared ``pyrender.OffscreenRenderer``, resized to ``width`` x ``height`` pixels.

    Raises
    ------
    RenderBackendError
        As :func:`import_pyrender`.
    """
    face_lit_active()
    r = _state["renderer"]
    r.viewport_width, r.viewport_height = int(width), int(height)
    return r


def face_lit_active() -> bool:
    """Whether meshes are drawn with :file:`shaders/face_lit.vert` (installing it on first use).

    With it, a triangle's colour is that of its provoking (last) vertex, so
    vertices may be shared by triangles of different normals as long as each
    triangle's last vertex carries its own (see ``render._flat_shared_vertices``).
    False when pyrender's internals differ from 0.1.45 (its own shaders then
    interpolate the normals, and every vertex must carry its triangle's).

    Raises
    ------
    RenderBackendError
        As :func:`import_pyrender`.
    """
    import_pyrender()
    r = _state["renderer"]
    inner = getattr(r, "_renderer", None)  # pyrender 0.1.45 internals; left alone when they change
    if inner is not None and hasattr(inner, "_program_cache") and not _state.get("face_lit"):
        inner._program_cache = _face_lit_program_cache(_state["pyrender"])
        if hasattr(inner, "_forward_pass"):
            inner._forward_pass = _lean_forward_pass(inner, inner._forward_pass)
        _state["face_lit"] = True
    return bool(_state.get("face_lit"))


def _lean_forward_pass(renderer, pyrender_pass):
    """``renderer._forward_pass`` drawing the same primitives in the same order with the same OpenGL state,
    with the per-draw Python work of pyrender 0.1.45 done once per pass.

    pyrender's forward pass, for each of a scene's primitives (about 440 in a 5,000-part
    picture), looks the shader program up (building its ``#define`` set, a
    ``glGetIntegerv`` for the light count), binds it, sets the camera, all the
    lights and the material, and sets blending, culling and polygon mode again:
    about 0.15 s of CPU a picture on the Millennium Falcon. Here the program of
    each kind of primitive is looked up once a pass, the camera and lights are
    set once per program and pass, the model matrix once per node and program,
    the material when it changes, the state when it changes. A uniform keeps its
    value in its program object until set again, so the draws see the same
    values. Passes with flags or primitives this does not cover (segmentation,
    flat shading, shadows, normals, textures, points, more lights than the
    shader holds) are pyrender's own.
    A colour pass reads back the colour picture only: its depth picture (which
    pyrender resolves, reads and converts to distances, about 10 ms at 800x600)
    is returned as None, since pictures never use it.

    Parameters
    ----------
    renderer : pyrender.renderer.Renderer
    pyrender_pass : callable
        The renderer's own ``_forward_pass`` (bound), used for the passes not covered.

    Returns
    -------
    callable
        ``(scene, flags, seg_node_map=None) -> what pyrender's pass returns``.
    """
    import ctypes  # noqa: PLC0415

    from OpenGL import GL  # noqa: PLC0415
    from pyrender.constants import ProgramFlags, RenderFlags  # noqa: PLC0415
    from pyrender.material import MetallicRoughnessMaterial  # noqa: PLC0415

    covered = RenderFlags.OFFSCREEN | RenderFlags.DEPTH_ONLY | RenderFlags.RGBA | RenderFlags.SKIP_CULL_FACES
    null = ctypes.c_void_p(0)

    def forward_pass(scene, flags, seg_node_map=None):
        nodes = [n for n in renderer._sorted_mesh_nodes(scene) if n.mesh.is_visible]
        max_lights = renderer._compute_max_n_lights(flags)
        too_many_lights = (len(scene.directional_light_nodes) > max_lights[0]  # pyrender then picks per node
                           or len(scene.spot_light_nodes) > max_lights[1]
                           or len(scene.point_light_nodes) > max_lights[2])
        if flags & ~covered or too_many_lights or any(
                p.mode == 0 or p.material.tex_flags or p.material.wireframe
                or not isinstance(p.material, MetallicRoughnessMaterial) for n in nodes for p in n.mesh.primitives):
            return pyrender_pass(scene, flags, seg_node_map)
        depth_only = bool(flags & RenderFlags.DEPTH_ONLY)
        renderer._configure_forward_pass_viewport(flags)
        GL.glClearColor(*scene.bg_color)
        GL.glClear(GL.GL_COLOR_BUFFER_BIT | GL.GL_DEPTH_BUFFER_BIT)
        GL.glEnable(GL.GL_MULTISAMPLE)
        GL.glDisable(GL.GL_PROGRAM_POINT_SIZE)
        if depth_only:
            GL.glEnable(GL.GL_CULL_FACE)
            GL.glEnable(GL.GL_BLEND)
            GL.glCullFace(GL.GL_BACK)
            GL.glBlendFunc(GL.GL_ONE, GL.GL_ZERO)
            GL.glPolygonMode(GL.GL_FRONT_AND_BACK, GL.GL_FILL)
        V, P = renderer._get_camera_matrices(scene)
        cam_pos = scene.get_pose(scene.main_camera_node)[:3, 3]
        programs: dict = {}  # primitive kind -> program
        ready: dict = {}  # program -> [node whose M is set, material set]
        program = state = None
        for node in nodes:
            pose = scene.get_pose(node)
            for prim in node.mesh.primitives:
                mat = prim.material
                kind = (prim.buf_flags, type(mat))
                prog = programs.get(kind)
                if prog is None:
                    prog = programs[kind] = renderer._get_primitive_program(prim, flags, ProgramFlags.USE_MATERIAL)
                if prog is not program:
                    prog._bind()
                    program = prog
                done = ready.get(prog)
                if done is None:
                    done = ready[prog] = [None, None]
                    prog.set_uniform("V", V)
                    prog.set_uniform("P", P)
                    prog.set_uniform("cam_pos", cam_pos)
                    if not depth_only:
                        renderer._bind_lighting(scene, prog, node, flags)
                if done[0] is not node:
                    prog.set_uniform("M", pose)
                    done[0] = node
                if not depth_only:
                    if done[1] is not mat:
                        prog.set_uniform("material.emissive_factor", mat.emissiveFactor)
                        prog.set_uniform("material.base_color_factor", mat.baseColorFactor)
                        prog.set_uniform("material.metallic_factor", mat.metallicFactor)
                        prog.set_uniform("material.roughness_factor", mat.roughnessFactor)
                        done[1] = mat
                    want = (mat.alphaMode == "BLEND", bool(mat.doubleSided or flags & RenderFlags.SKIP_CULL_FACES))
                    if want != state:
                        GL.glEnable(GL.GL_BLEND)
                        if want[0]:
                            GL.glBlendFunc(GL.GL_SRC_ALPHA, GL.GL_ONE_MINUS_SRC_ALPHA)
                        else:
                            GL.glBlendFunc(GL.GL_ONE, GL.GL_ZERO)
                        if state is None:
                            GL.glPolygonMode(GL.GL_FRONT_AND_BACK, GL.GL_FILL)
                        if want[1]:
                            GL.glDisable(GL.GL_CULL_FACE)
                        else:
                            GL.glEnable(GL.GL_CULL_FACE)
                            GL.glCullFace(GL.GL_BACK)
                        state = want
                poses = prim.poses
                n_inst = 1 if poses is None else len(poses)
                GL.glBindVertexArray(prim._vaid)
                if prim.indices is not None:
                    GL.glDrawElementsInstanced(prim.mode, prim.indices.size, GL.GL_UNSIGNED_INT, null, n_inst)
                else:
                    GL.glDrawArraysInstanced(prim.mode, 0, len(prim.positions), n_inst)
        GL.glBindVertexArray(0)
        if program is not None:
            program._unbind()
        GL.glFlush()
        if flags & RenderFlags.OFFSCREEN:
            if depth_only or sys.platform == "darwin":
                return renderer._read_main_framebuffer(scene, flags)
            if _state.get("defer_colour"):  # read later with read_colour (see deferred_colour)
                return None, None
            return _read_colour(renderer, flags), None
        return None

    forward_pass.pyrender_pass = pyrender_pass
    return forward_pass


_FRAMEBUFFER_ATTRS = ("_main_fb", "_main_cb", "_main_db", "_main_fb_ms", "_main_cb_ms", "_main_db_ms",
                      "_main_fb_dims")


def use_framebuffer(offscreen, slot: int) -> None:
    """Make framebuffer set ``slot`` (0, 1, ...) the one ``offscreen`` (the shared
    ``pyrender.OffscreenRenderer``) draws into and reads from.

    pyrender 0.1.45 keeps one main framebuffer set (multisampled colour and depth, and the resolved copy) in
    seven attributes of its renderer; the sets of the other slots are kept aside and swapped in, a new slot
    starting empty so that pyrender creates its set on the next picture (at the viewport size; a set of
    another size is recreated by pyrender as usual). Slot 0 is the set pyrender made first. With other
    pyrender internals nothing is swapped (every slot is then the one framebuffer).
    """
    inner = getattr(offscreen, "_renderer", None)
    if inner is None or not all(hasattr(inner, a) for a in _FRAMEBUFFER_ATTRS):
        return
    current = inner.__dict__.get("_bricklayer_fb_slot", 0)
    if current == slot:
        return
    kept = inner.__dict__.setdefault("_bricklayer_fb_slots", {})
    kept[current] = tuple(getattr(inner, a) for a in _FRAMEBUFFER_ATTRS)
    values = kept.pop(slot, (None,) * 6 + ((None, None),))
    for a, v in zip(_FRAMEBUFFER_ATTRS, values):
        setattr(inner, a, v)
    inner._bricklayer_fb_slot = slot


class deferred_colour:
    """Context manager: colour pictures drawn inside it are flushed but not read back (``render`` returns
    ``(None, None)``); :func:`read_colour` reads them later. llvmpipe then rasterizes a picture on its own
    threads while the calling thread goes on with the next one (a read-back waits for every queued
    picture)."""

    def __enter__(self):
        _state["defer_colour"] = True
        return self

    def __exit__(self, *exc):
        _state["defer_colour"] = False
        return False


def read_colour(offscreen):
    """(h, w, 3) uint8 colour picture in the current framebuffer set of ``offscreen`` (see
    :func:`use_framebuffer`), top row first."""
    from pyrender.constants import RenderFlags  # noqa: PLC0415

    offscreen._platform.make_current()
    return _read_colour(offscreen._renderer, RenderFlags.OFFSCREEN)


def _read_colour(renderer, flags):
    """(h, w, 3|4) uint8 colour picture of pyrender 0.1.45's multisampled main framebuffer, top row first:
    its ``_read_main_framebuffer`` without the depth picture."""
    import numpy as np  # noqa: PLC0415
    from OpenGL import GL  # noqa: PLC0415
    from pyrender.constants import RenderFlags  # noqa: PLC0415

    width, height = renderer._main_fb_dims
    GL.glBindFramebuffer(GL.GL_READ_FRAMEBUFFER, renderer._main_fb_ms)
    GL.glBindFramebuffer(GL.GL_DRAW_FRAMEBUFFER, renderer._main_fb)
    GL.glBlitFramebuffer(0, 0, width, height, 0, 0, width, height, GL.GL_COLOR_BUFFER_BIT, GL.GL_LINEAR)
    GL.glBindFramebuffer(GL.GL_READ_FRAMEBUFFER, renderer._main_fb)
    channels = 4 if flags & RenderFlags.RGBA else 3
    buf = GL.glReadPixels(0, 0, width, height, GL.GL_RGBA if channels == 4 else GL.GL_RGB, GL.GL_UNSIGNED_BYTE)
    return np.flip(np.frombuffer(buf, dtype=np.uint8).reshape(height, width, channels), axis=0)


def backend_info() -> dict:
    """``{"platform": "egl"|"osmesa"|..., "renderer": GL renderer string}`` of the started backend.

    Raises
    ------
    RenderBackendError
        As :func:`import_pyrender`.
    """
    import_pyrender()
    return {"platform": _state["platform"], "renderer": _state["gl"]}
