"""World-space render geometry of a build: every part's triangles and edges, coloured, in bulk.

Each distinct part is transformed once for all its placements with one numpy
product, then everything is concatenated per material kind (plastic, metallic,
pearlescent, rubber; opaque or transparent), so that a 1,000-part model is
drawn with a handful of draw calls.

Colours follow LDraw spec 1.0.2: a triangle in colour 16 takes the
placement's colour, 24 the edge colour of the placement's colour (from
``LDConfig.ldr``); other codes are fixed. Alpha < 255 in ``LDConfig.ldr``
means transparent; the ``CHROME``/``METAL``/``PEARLESCENT``/``RUBBER`` finishes
pick the material.

Winding follows :mod:`ldraw_data.mesh`: certified triangles are CCW seen from
outside, so the renderer culls back faces; triangles of uncertified files
(winding unknown) are emitted twice, once each way. A placement with a
mirroring transform (negative determinant) gets its vertex order reversed to
stay CCW.
"""

from __future__ import annotations

__all__ = ["RenderGeometry", "build_geometry", "normalize_highlight", "FINISH_KINDS", "WARNING_COLORS",
           "InstanceBatch", "InstancedGeometry", "instanced_geometry", "LOOKS", "LOW_RES_ABOVE_TRIANGLES",
           "render_meshes", "embedded_document", "COARSE_ABOVE_LDU_PER_PIXEL"]

import logging
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ..geometry.ldraw_frame import L2B
from ..errors import BrickLayerValueError

log = logging.getLogger(__name__)

#: Material kind per index of :attr:`RenderGeometry.finish`.
FINISH_KINDS = ("plastic", "metal", "pearl", "rubber")
_FINISH_OF = {"": 0, "CHROME": 1, "METAL": 1, "PEARLESCENT": 2, "RUBBER": 3}

#: Default warning colours of highlight mode, (r, g, b) 0-255: colliding parts red, floating parts orange.
WARNING_COLORS = {"colliding": (230, 30, 30), "floating": (255, 140, 0), "default": (230, 30, 30)}


@dataclass(frozen=True)
class RenderGeometry:
    """Triangles and edges of a whole build in the BrickLayer world frame.

    Attributes
    ----------
    triangles : (n, 3, 3) float32, LDU, BL world (+Z up)
        CCW seen from the visible side.
    rgba : (n, 4) uint8
        Colour per triangle (alpha 255 opaque).
    finish : (n,) uint8
        Index into :data:`FINISH_KINDS`.
    edges : (m, 2, 3) float32, LDU
        Type-2 edge lines.
    edge_rgb : (m, 3) uint8
        Colour per edge.
    bounds : (2, 3) float64, LDU
        ``[min, max]`` of all triangle vertices.
    n_parts : int
        Placements drawn (with at least one triangle).
    """

    triangles: np.ndarray
    rgba: np.ndarray
    finish: np.ndarray
    edges: np.ndarray
    edge_rgb: np.ndarray
    bounds: np.ndarray
    n_parts: int

    @property
    def normals(self) -> np.ndarray:
        """(n, 3) float32 unit face normals ``(b - a) x (c - a)`` (zero for degenerate triangles)."""
        t = self.triangles
        n = np.cross(t[:, 1] - t[:, 0], t[:, 2] - t[:, 0])
        ln = np.linalg.norm(n, axis=1, keepdims=True)
        return np.divide(n, ln, out=np.zeros_like(n), where=ln > 0).astype(np.float32)


def embedded_document(build):
    """The part files a build's LDraw source defines itself, as one parsed MPD document.

    Parameters
    ----------
    build : LegoBuild
        Its ``embedded_files`` and those of its sub-builds (each block read from an MPD ``0 FILE`` section
        that holds a part, not a submodel) are gathered; the first block of a name wins.

    Returns
    -------
    ldraw_data.io.parse.LDrawDocument or None
        What :func:`ldraw_data.mesh.load_meshes` takes as ``embedded`` so such parts get their geometry;
        None when the build embeds no part file.
    """
    from ldraw_data.io.parse import parse_document

    blocks: dict[str, tuple[str, str]] = {}
    seen = set()

    def walk(b):
        if id(b) in seen:
            return
        seen.add(id(b))
        for k, v in getattr(b, "embedded_files", {}).items():
            blocks.setdefault(k, v)
        for p in b.placements:
            if hasattr(p.content, "placements"):
                walk(p.content)

    walk(build)
    if not blocks:
        return None
    text = "\n".join(f"0 FILE {name}\n{body}\n0 NOFILE" for name, body in blocks.values())
    return parse_document(text, "<embedded parts>")


def _faded(rgb: np.ndarray) -> np.ndarray:
    """Desaturate 70 % toward luminance and lighten 30 % toward white ((k, 3) float 0-255)."""
    lum = rgb @ np.array([0.299, 0.587, 0.114])
    grey = rgb * 0.3 + lum[:, None] * 0.7
    return grey * 0.7 + 255 * 0.3


def _placement_key(p) -> tuple:
    """A FlatPlacement is keyed by its path, any other placement by itself."""
    path = getattr(p, "path", None)
    return tuple(path) if path else (p,)


def _lookup(hl: dict, p):
    """Highlight colour of a flat placement: its own, or that of any placement on its path (a sub-build)."""
    key = _placement_key(p)
    c = hl.get(key)
    if c is None:
        for q in key:
            c = hl.get((q,))
            if c is not None:
                break
    return c


def normalize_highlight(highlight) -> dict:
    """``{placement key: (r, g, b)}`` from placements, pairs of placements, or a mapping to colours.

    Parameters
    ----------
    highlight : iterable or dict or None
        FlatPlacements or Placements (a placed sub-build highlights all its
        parts), tuples of them (colliding pairs), or a dict placement ->
        (r, g, b) 0-255 (None for the default warning colour).

    Returns
    -------
    dict of tuple -> (3,) tuple of int
    """
    out: dict = {}
    if highlight is None:
        return out
    if isinstance(highlight, Mapping):
        for p, c in highlight.items():
            out[_placement_key(p)] = tuple(int(v) for v in (c if c is not None else WARNING_COLORS["default"]))[:3]
        return out
    for item in highlight:
        items = item if isinstance(item, (tuple, list)) else (item,)
        for p in items:
            out[_placement_key(p)] = WARNING_COLORS["default"]
    return out



def _colour_definitions(table):
    """A memoized lookup ``code -> ((r, g, b, a) 0-255, finish code, edge (r, g, b))`` over colour table
    ``table`` (LDConfig); an unknown code is drawn grey (128) with a dark grey edge and logged once."""
    cache: dict[int, tuple] = {}

    def cdef(code: int):
        r = cache.get(code)
        if r is None:
            c = table.get(code)
            if c is None:
                log.warning("unknown colour %d drawn grey", code)
                r = ((128, 128, 128, 255), 0, (51, 51, 51))
            else:
                r = ((*c.rgb, c.alpha), _FINISH_OF.get(c.finish.upper(), 0), tuple(c.edge))
            cache[code] = r
        return r

    return cdef

def build_geometry(build, *, highlight=None, edges: bool = True, fade_alpha: int = 90,
                   library=None) -> RenderGeometry:
    """Gather a build's part meshes into world-space, coloured triangles and edges.

    Parameters
    ----------
    build : LegoBuild
        Any build (read from LDraw or made with the SDK); nested builds are flattened.
    highlight : iterable of FlatPlacement or of tuples of them, or dict FlatPlacement -> (r, g, b), optional
        Placements drawn opaque in a warning colour (red by default, or the
        colour given per placement); all others are faded (desaturated,
        lightened, alpha ``fade_alpha``) and lose their edges. Placements are
        matched by their path in the build (``FlatPlacement.path``).
    edges : bool
        Include type-2 edge lines.
    fade_alpha : int, 0-255
        Alpha of the faded parts in highlight mode.
    library : LDrawLibrary, optional

    Returns
    -------
    RenderGeometry

    Raises
    ------
    ValueError
        When the build has no part with geometry (nothing to draw).
    """
    from ldraw_data.colors import get_color_table
    from ldraw_data.mesh import load_meshes

    table = get_color_table(library)
    flat = build.flattened_placements
    hl = normalize_highlight(highlight)
    hl_mode = bool(hl)
    names = [p.content.ldraw_id + ".dat" for p in flat]
    meshes = load_meshes(names, library, embedded=embedded_document(build), on_missing="warn")

    cdef = _colour_definitions(table)

    groups: dict[str, list[int]] = {}
    for i, n in enumerate(names):
        groups.setdefault(n, []).append(i)

    tri_out, rgba_out, fin_out, edge_out, ergb_out = [], [], [], [], []
    n_parts = 0
    for name, idx in groups.items():
        m = meshes.get(name)
        if m is None or m.is_empty:
            continue
        T = np.empty((len(idx), 4, 4))
        pcs = np.empty(len(idx), dtype=np.int64)
        hcol = [None] * len(idx)
        for j, i in enumerate(idx):
            p = flat[i]
            el = p.content
            to_local = el.ldraw_to_local if getattr(el, "_known", True) else L2B
            T[j] = p.pose.matrix @ to_local
            pcs[j] = int(el.color)
            hcol[j] = _lookup(hl, p) if hl_mode else None
        n_parts += len(idx)
        R, t = T[:, :3, :3], T[:, :3, 3]
        # colours: per distinct code of the part x per placement
        codes, inv = np.unique(m.colors, return_inverse=True)
        k = len(idx)
        rgba = np.empty((k, len(codes), 4), dtype=np.float64)
        fin = np.empty((k, len(codes)), dtype=np.uint8)
        for j in range(k):
            prgba, pfin, pedge = cdef(int(pcs[j]))
            for u, code in enumerate(codes):
                if code == 16:
                    rgba[j, u], fin[j, u] = prgba, pfin
                elif code == 24:
                    rgba[j, u], fin[j, u] = (*pedge, 255), 0
                else:
                    c_rgba, c_fin, _ = cdef(int(code))
                    rgba[j, u], fin[j, u] = c_rgba, c_fin
            if hl_mode:
                if hcol[j] is not None:
                    rgba[j, :, :3], rgba[j, :, 3], fin[j] = hcol[j], 255, 0
                else:
                    rgba[j, :, :3] = _faded(rgba[j, :, :3])
                    rgba[j, :, 3] = np.minimum(rgba[j, :, 3], fade_alpha)
                    fin[j] = 0
        tris = m.triangles.astype(np.float64)  # (n, 3, 3)
        world = np.einsum("kij,nvj->knvi", R, tris) + t[:, None, None, :]  # (k, n, 3, 3)
        mirror = np.linalg.det(R) < 0
        if mirror.any():
            world[mirror] = world[mirror][:, :, [0, 2, 1]]
        per_rgba = rgba[:, inv]  # (k, n, 4)
        per_fin = fin[:, inv]
        two_sided = ~np.asarray(m.oriented, dtype=bool)
        tri_out.append(world.reshape(-1, 3, 3))
        rgba_out.append(per_rgba.reshape(-1, 4))
        fin_out.append(per_fin.reshape(-1))
        if two_sided.any():
            back = world[:, two_sided][:, :, [0, 2, 1]]
            tri_out.append(back.reshape(-1, 3, 3))
            rgba_out.append(per_rgba[:, two_sided].reshape(-1, 4))
            fin_out.append(per_fin[:, two_sided].reshape(-1))
        if edges and len(m.edges):
            keep = np.ones(k, dtype=bool)
            if hl_mode:
                keep = np.array([h is not None for h in hcol])
            if keep.any():
                e = np.einsum("kij,nvj->knvi", R[keep], m.edges.astype(np.float64)) + t[keep][:, None, None, :]
                ecodes, einv = np.unique(m.edge_colors, return_inverse=True)
                ergb = np.empty((int(keep.sum()), len(ecodes), 3))
                for jj, j in enumerate(np.flatnonzero(keep)):
                    prgba, _, pedge = cdef(int(pcs[j]))
                    for u, code in enumerate(ecodes):
                        if code == 24:
                            ergb[jj, u] = pedge
                        elif code == 16:
                            ergb[jj, u] = prgba[:3]
                        else:
                            ergb[jj, u] = cdef(int(code))[0][:3]
                    if hl_mode:
                        ergb[jj] = np.asarray(hcol[j]) * 0.4
                edge_out.append(e.reshape(-1, 2, 3))
                ergb_out.append(ergb[:, einv].reshape(-1, 3))
    if not tri_out:
        raise BrickLayerValueError(f"nothing to render: the build has {len(flat)} placements and none has triangles "
                         "(unknown parts?); check build.import_warnings")
    tris = np.concatenate(tri_out).astype(np.float32)
    flat_v = tris.reshape(-1, 3)
    bounds = np.stack([flat_v.min(axis=0), flat_v.max(axis=0)]).astype(np.float64)
    return RenderGeometry(
        triangles=tris,
        rgba=np.clip(np.concatenate(rgba_out), 0, 255).astype(np.uint8),
        finish=np.concatenate(fin_out).astype(np.uint8),
        edges=(np.concatenate(edge_out).astype(np.float32) if edge_out else np.zeros((0, 2, 3), np.float32)),
        edge_rgb=(np.clip(np.concatenate(ergb_out), 0, 255).astype(np.uint8) if ergb_out
                  else np.zeros((0, 3), np.uint8)),
        bounds=bounds,
        n_parts=n_parts,
    )



# ---------------------------------------------------------------- instanced geometry (what the renderer draws)

#: Looks of a placement in :func:`instanced_geometry`: ``"plain"`` (its LDraw colours), ``"faded"``
#: (highlight mode: desaturated, lightened, see-through, no edges), ``"dimmed"`` (instructions: the parts
#: of earlier steps, desaturated and lightened but opaque, edges too) or an (r, g, b) highlight colour.
LOOKS = ("plain", "faded", "dimmed")


@dataclass(frozen=True)
class InstanceBatch:
    """One distinct part in one colour and one look, drawn at many poses (instancing).

    Attributes
    ----------
    part : str
        Part file name (``"3001.dat"``).
    triangles : (n, 3, 3) float32, LDU, the part's LDraw frame
        Opaque triangles, CCW seen from the visible side after the pose (vertex
        order reversed when ``mirrored``).
    normals : (n, 3) float32
        Unit normals in the part's frame (the renderer maps them by the inverse
        transpose of the pose, so mirrored poses keep them outward).
    rgba : (n, 4) uint8
    finish : (n,) uint8
        Index into :data:`FINISH_KINDS`.
    edges : (m, 2, 3) float32, LDU, part frame
    edge_rgb : (m, 3) uint8
    poses : (k, 4, 4) float64
        Part frame -> BL world (LDU) of each placement drawn.
    mirrored : bool
        The poses have a negative determinant.
    """

    part: str
    triangles: np.ndarray
    normals: np.ndarray
    rgba: np.ndarray
    finish: np.ndarray
    edges: np.ndarray
    edge_rgb: np.ndarray
    poses: np.ndarray
    mirrored: bool


@dataclass(frozen=True)
class InstancedGeometry:
    """A build as instanced part meshes plus its see-through triangles in world space.

    Attributes
    ----------
    batches : list of InstanceBatch
        One per distinct (part, colour, look, handedness): memory and upload
        grow with the number of distinct parts, not with placements.
    transparent : RenderGeometry or None
        Triangles with alpha < 255 in the BL world frame (sorted back to front
        per view by the renderer); its ``edges`` are empty.
    bounds : (2, 3) float64, LDU, BL world
        ``[min, max]`` of all triangle vertices (the same as :func:`build_geometry`).
    n_parts : int
        Placements drawn (with at least one triangle).
    """

    batches: list
    transparent: RenderGeometry | None
    bounds: np.ndarray
    n_parts: int


def _face_normals(t: np.ndarray) -> np.ndarray:
    n = np.cross(t[:, 1] - t[:, 0], t[:, 2] - t[:, 0])
    ln = np.linalg.norm(n, axis=1, keepdims=True)
    return np.divide(n, ln, out=np.zeros_like(n), where=ln > 0).astype(np.float32)


#: Above this many triangles (standard-resolution meshes, all placements) :func:`instanced_geometry` with
#: ``resolution="auto"`` uses the low-resolution primitives: the biggest models (the 5,247-part Millennium
#: Falcon has 5.2 million) then draw about 40 % fewer triangles and edges, while models up to about
#: 2,000 parts keep every detail.
LOW_RES_ABOVE_TRIANGLES = 1_500_000

#: With ``resolution="auto"``, a model drawn at low resolution whose pictures have at least this many LDU
#: a pixel (the finest view) is drawn coarse (``ldraw_data.mesh.load_meshes(resolution="coarse")``): the
#: faces of tubes, pins and holes (circles of radius up to ``ldraw_data.mesh.COARSE_MAX_SCALE`` = 8 LDU
#: across their axis) with 4 segments instead of 8, the edge lines of tubes and pins too; outer studs keep
#: 8. A stud (12 LDU across) is then 3.4 pixels or less, and a square lies at most 0.29 r = 2.3 LDU, under
#: 0.7 pixel, inside the octagon. The 5,247-part Millennium Falcon's sheet at 1200x800 (3.9 LDU a pixel):
#: 24 % fewer triangles (3.16 -> 2.39 million) and 10 % fewer edge lines, 0.24 % of its pixels changed by
#: more than 24 of 255. Its iso view at 800x600 (3.3 LDU a pixel) would change 0.55 % of its pixels, above
#: the 0.5 % that counts as the same picture (docs/rendering.md, round 7), so it stays at low resolution.
COARSE_ABOVE_LDU_PER_PIXEL = 3.5
_RESOLUTIONS = ("standard", "low", "coarse", "auto")


def render_meshes(names, *, embedded=None, library=None, resolution: str = "auto",
                  ldu_per_pixel: float | None = None) -> dict:
    """Part meshes to draw ``names`` (one entry per placement, repeats counted) with.

    Parameters
    ----------
    names : sequence of str
        Part file names, one per placement (``"3001.dat"``).
    embedded : parsed MPD document, optional
    library : LDrawLibrary, optional
    resolution : {"standard", "low", "coarse", "auto"}
        ``"auto"``: ``"low"`` (``ldraw_data.mesh.load_meshes``, 8-segment
        primitives for studs, tubes and holes) when the placements together
        have more than :data:`LOW_RES_ABOVE_TRIANGLES` triangles at standard
        resolution, else ``"standard"``; then ``"coarse"`` instead of ``"low"``
        when ``ldu_per_pixel`` is at least :data:`COARSE_ABOVE_LDU_PER_PIXEL`.
    ldu_per_pixel : float, optional
        LDU a pixel of the finest picture to be drawn (or a lower bound of it), for ``"auto"``.

    Returns
    -------
    dict of str -> PartMesh

    Raises
    ------
    ValueError
        For an unknown ``resolution``.
    """
    from ldraw_data.mesh import load_meshes, triangle_counts

    if resolution not in _RESOLUTIONS:
        raise BrickLayerValueError(f"resolution must be 'standard', 'low', 'coarse' or 'auto', not {resolution!r}")
    distinct = sorted(set(names))
    if resolution == "auto":  # counted from the mesh cache's headers: the standard meshes are not loaded
        per_part = triangle_counts(distinct, library, embedded=embedded)
        counts: dict[str, int] = {}
        for n in names:
            counts[n] = counts.get(n, 0) + 1
        n_tris = sum(per_part[n] * k for n, k in counts.items() if n in per_part)
        resolution = "standard"
        if n_tris > LOW_RES_ABOVE_TRIANGLES:
            log.info("%d triangles at standard resolution: drawing with low-resolution primitives", n_tris)
            resolution = "low"
            if ldu_per_pixel is not None and ldu_per_pixel >= COARSE_ABOVE_LDU_PER_PIXEL:
                log.info("%.1f LDU a pixel: drawing studs, tubes and holes with 4-segment circles", ldu_per_pixel)
                resolution = "coarse"
    return load_meshes(distinct, library, embedded=embedded, on_missing="warn", resolution=resolution)


def instanced_geometry(placements, *, looks=None, edges: bool = True, fade_alpha: int = 90, embedded=None,
                       library=None, meshes=None, resolution: str = "standard",
                       ldu_per_pixel: float | None = None) -> InstancedGeometry:
    """Group placed parts into instanced meshes: one per distinct part, colour and look.

    Parameters
    ----------
    placements : LegoBuild or sequence of FlatPlacement
        What to draw; a build is flattened (its embedded parts are used).
    looks : sequence of str or (r, g, b), optional
        One per placement (see :data:`LOOKS`); default ``"plain"`` for all.
    edges : bool
        Include type-2 edge lines (never for ``"faded"`` parts).
    fade_alpha : int, 0-255
        Alpha of ``"faded"`` parts.
    embedded : parsed MPD document, optional
        Parts embedded in the model file (default: those of the build given).
    library : LDrawLibrary, optional
    meshes : dict of str -> PartMesh, optional
        Part meshes already loaded (``ldraw_data.mesh.load_meshes``), by file
        name; parts missing from it are loaded.
    resolution : {"standard", "low", "coarse", "auto"}
        Mesh detail (``ldraw_data.mesh.load_meshes``): ``"low"`` draws studs,
        tubes and holes with the library's 8-segment primitives, ``"coarse"``
        with 4 segments; ``"auto"`` is ``"low"`` when all placements together
        have more than :data:`LOW_RES_ABOVE_TRIANGLES` triangles at standard
        resolution, and then ``"coarse"`` when ``ldu_per_pixel`` is at least
        :data:`COARSE_ABOVE_LDU_PER_PIXEL` (see :func:`render_meshes`).
        Ignored for parts given in ``meshes``.
    ldu_per_pixel : float, optional
        LDU a pixel of the finest picture to be drawn, for ``"auto"``.

    Returns
    -------
    InstancedGeometry

    Raises
    ------
    ValueError
        When no placement has geometry (nothing to draw).

    Notes
    -----
    Colours and winding as :func:`build_geometry` (LDraw spec 1.0.2 colours 16
    and 24; mirrored placements get their vertex order reversed), which stays
    the reference: a picture drawn from either is the same.
    """
    from ldraw_data.colors import get_color_table

    if hasattr(placements, "flattened_placements"):
        if embedded is None:
            embedded = embedded_document(placements)
        flat = placements.flattened_placements
    else:
        flat = list(placements)
    looks = ["plain"] * len(flat) if looks is None else list(looks)
    table = get_color_table(library)
    names = [p.content.ldraw_id + ".dat" for p in flat]
    known = meshes or {}
    missing = [n for n in names if n not in known]
    meshes = dict(known)
    if missing:
        meshes.update(render_meshes(missing, embedded=embedded, library=library, resolution=resolution,
                                    ldu_per_pixel=ldu_per_pixel))
    elif resolution not in _RESOLUTIONS:
        raise BrickLayerValueError(f"resolution must be 'standard', 'low', 'coarse' or 'auto', not {resolution!r}")

    cdef = _colour_definitions(table)

    Ts = []
    for p in flat:
        el = p.content
        Ts.append(p.pose.matrix @ (el.ldraw_to_local if getattr(el, "_known", True) else L2B))
    mirrored_at = (np.linalg.det(np.asarray(Ts).reshape(-1, 4, 4)[:, :3, :3]) < 0).tolist()  # one call for all
    groups: dict[tuple, list] = {}
    for i, p in enumerate(flat):
        look = looks[i]
        look = look if isinstance(look, str) else tuple(int(v) for v in look)[:3]
        key = (names[i], int(p.content.color), look, mirrored_at[i])
        groups.setdefault(key, []).append(Ts[i])

    batches, t_tris, t_rgba, t_fin = [], [], [], []
    lo, hi = np.full(3, np.inf), np.full(3, -np.inf)
    n_parts = 0
    vert_cache: dict[str, np.ndarray] = {}
    for (name, pcode, look, mirrored), Ts in groups.items():
        m = meshes.get(name)
        if m is None or m.is_empty:
            continue
        T = np.asarray(Ts, dtype=np.float64)
        n_parts += len(T)
        prgba, pfin, pedge = cdef(pcode)
        codes, inv = np.unique(m.colors, return_inverse=True)
        inv = inv.reshape(-1)
        crgba = np.empty((len(codes), 4), dtype=np.float64)
        cfin = np.empty(len(codes), dtype=np.uint8)
        for u, code in enumerate(codes):
            if code == 16:
                crgba[u], cfin[u] = prgba, pfin
            elif code == 24:
                crgba[u], cfin[u] = (*pedge, 255), 0
            else:
                c_rgba, c_fin, _ = cdef(int(code))
                crgba[u], cfin[u] = c_rgba, c_fin
        if look == "faded":
            crgba[:, :3] = _faded(crgba[:, :3])
            crgba[:, 3] = np.minimum(crgba[:, 3], fade_alpha)
            cfin[:] = 0
        elif look == "dimmed":
            crgba[:, :3] = _faded(crgba[:, :3])
            cfin[:] = 0
        elif not isinstance(look, str):
            crgba[:, :3], crgba[:, 3], cfin[:] = look, 255, 0
        rgba = np.clip(crgba[inv], 0, 255).astype(np.uint8)
        fin = cfin[inv]
        tris = m.triangles.astype(np.float32)
        two_sided = ~np.asarray(m.oriented, dtype=bool)
        if two_sided.any():
            tris = np.concatenate([tris, tris[two_sided][:, [0, 2, 1]]])
            rgba = np.concatenate([rgba, rgba[two_sided]])
            fin = np.concatenate([fin, fin[two_sided]])
        normals = _face_normals(tris)  # outward in the part frame
        if mirrored:
            tris = tris[:, [0, 2, 1]]
        # exact bounds: every vertex under each distinct rotation of the part (a few per part), then shifted
        R, t = T[:, :3, :3], T[:, :3, 3]
        verts = vert_cache.get(name)
        if verts is None:
            verts = vert_cache[name] = m.triangles.reshape(-1, 3).astype(np.float64)
        rots, rinv = np.unique(R.reshape(-1, 9), axis=0, return_inverse=True)
        rot_lo = np.empty((len(rots), 3))
        rot_hi = np.empty((len(rots), 3))
        step = max(1, 2_000_000 // (3 * max(len(verts), 1)))
        for c in range(0, len(rots), step):  # one matrix product for many rotations: (v, 3) @ (3, 3u)
            rr = rots[c:c + step].reshape(-1, 3, 3)
            w = verts @ rr.transpose(2, 0, 1).reshape(3, -1)  # column 3u+i: world axis i of rotation u
            rot_lo[c:c + step] = w.min(axis=0).reshape(-1, 3)
            rot_hi[c:c + step] = w.max(axis=0).reshape(-1, 3)
        rinv = rinv.reshape(-1)
        lo = np.minimum(lo, (rot_lo[rinv] + t).min(axis=0))
        hi = np.maximum(hi, (rot_hi[rinv] + t).max(axis=0))
        see_through = rgba[:, 3] < 255
        if see_through.any():  # world space, sorted per view by the renderer
            st = tris[see_through].astype(np.float64)
            world = np.einsum("kij,nvj->knvi", R, st) + t[:, None, None, :]
            t_tris.append(world.reshape(-1, 3, 3).astype(np.float32))
            t_rgba.append(np.tile(rgba[see_through], (len(T), 1)))
            t_fin.append(np.tile(fin[see_through], len(T)))
        keep = ~see_through
        e = np.zeros((0, 2, 3), np.float32)
        ergb = np.zeros((0, 3), np.uint8)
        if edges and look != "faded" and len(m.edges):
            e = m.edges.astype(np.float32)
            ecodes, einv = np.unique(m.edge_colors, return_inverse=True)
            ec = np.empty((len(ecodes), 3))
            for u, code in enumerate(ecodes):
                ec[u] = pedge if code == 24 else (prgba[:3] if code == 16 else cdef(int(code))[0][:3])
            if look == "dimmed":
                ec = _faded(ec)
            elif not isinstance(look, str):
                ec[:] = np.asarray(look, dtype=np.float64) * 0.4
            ergb = np.clip(ec[einv.reshape(-1)], 0, 255).astype(np.uint8)
        batches.append(InstanceBatch(name, tris[keep], normals[keep], rgba[keep], fin[keep], e, ergb, T,
                                     mirrored))
    if not n_parts:
        raise BrickLayerValueError(f"nothing to render: the build has {len(flat)} placements and none has triangles "
                         "(unknown parts?); check build.import_warnings")
    transparent = None
    if t_tris:
        tt = np.concatenate(t_tris)
        transparent = RenderGeometry(tt, np.concatenate(t_rgba), np.concatenate(t_fin).astype(np.uint8),
                                     np.zeros((0, 2, 3), np.float32), np.zeros((0, 3), np.uint8),
                                     np.stack([tt.reshape(-1, 3).min(0), tt.reshape(-1, 3).max(0)]), 0)
    return InstancedGeometry(batches, transparent, np.stack([lo, hi]), n_parts)
