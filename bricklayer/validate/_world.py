"""World arrays (validator stage 0) of a build's flattened placements, shared by the validator modules.

One pass over :attr:`LegoBuild.flattened_placements` stacks every pose into a
``(n, 4, 4)`` array and groups the placements by part, so that the
connection, collision and support modules work in bulk (numpy, one batch per
distinct part) and never loop over placements in Python more than once.
"""

from __future__ import annotations

__all__ = ["WorldArrays", "world_arrays", "part_key", "flexible_mask", "FLEXIBLE_WORDS", "FLEXIBLE_TRAITS",
           "part_title", "drawn_not_part"]

import weakref
from dataclasses import dataclass

import numpy as np

from ldraw_data.traits import TRAITS, UNSUPPORTED_OK, title_traits

from ..geometry.ldraw_frame import L2B


#: Buffers made with unused rows after their data (:func:`room_buffer`), by id, and how many of their rows are
#: in use: :func:`appended_rows` writes after those rows only, so an array handed out earlier never changes.
_ROOM: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
_ROOM_USED: dict = {}


def room_buffer(rows: int, tail: tuple = (), dtype=np.float64, room: int | None = None) -> np.ndarray:
    """An empty array of ``rows`` rows (shape ``(rows, *tail)``) followed by ``room`` unused rows (default: a
    quarter more, at least 4,096), for arrays that grow by appended parts (issue 20: re-validation after an
    append-only edit costs the edit, not a copy of every row). Use ``buf[:rows]``; :func:`appended_rows`
    then extends it in place."""
    room = max(4096, rows // 4) if room is None else room
    buf = np.empty((rows + room,) + tuple(tail), dtype=dtype)
    _ROOM[id(buf)] = buf
    _ROOM_USED[id(buf)] = rows
    weakref.finalize(buf, _ROOM_USED.pop, id(buf), None)
    return buf


def with_room(arr: np.ndarray) -> np.ndarray:
    """``arr`` copied into a :func:`room_buffer` (a view of its first ``len(arr)`` rows), so that later
    :func:`appended_rows` calls write after it instead of copying it."""
    buf = room_buffer(len(arr), arr.shape[1:], arr.dtype)
    buf[:len(arr)] = arr
    return buf[:len(arr)]


def appended_rows(old: np.ndarray, new: np.ndarray) -> np.ndarray:
    """``np.concatenate([old, new])`` (arrays of the same row shape), without copying ``old`` when it is the
    used start of a :func:`room_buffer` with room for ``new``: then ``new`` is written after it and a view
    is returned. Otherwise the rows are copied into a new :func:`room_buffer`. Only the rows after the
    buffer's last used row are written, so earlier views (arrays of an earlier build state) stay as they
    were; a second append to the same ``old`` copies."""
    new = np.asarray(new)
    n0, k = len(old), len(new)
    base = old.base
    dtype = np.result_type(old, new)
    if (base is not None and _ROOM.get(id(base)) is base and _ROOM_USED.get(id(base)) == n0
            and len(base) >= n0 + k and base.dtype == dtype and base.shape[1:] == old.shape[1:]
            and old.__array_interface__["data"][0] == base.__array_interface__["data"][0]
            and old.flags.c_contiguous):
        buf = base
    else:
        buf = room_buffer(n0 + k, old.shape[1:], dtype)
        buf[:n0] = old
    buf[n0:n0 + k] = new
    _ROOM_USED[id(buf)] = n0 + k
    return buf[:n0 + k]


def part_key(element) -> str:
    """Geometry key of an element: its part id (colour does not change geometry).

    Unknown parts (``Element.unchecked`` with ``_known`` False, e.g. MPD-embedded
    stickers) get the prefix ``"?"`` so they never share a key with a library part.
    """
    return element.ldraw_id if element._known else "?" + element.ldraw_id


@dataclass(frozen=True, eq=False)
class WorldArrays:
    """Stacked world data of a build's flattened placements.

    Attributes
    ----------
    placements : list of FlatPlacement, length n
    poses : (n, 4, 4) float64, LDU
        Element-local (BrickLayer) -> world (BrickLayer frame, +Z up).
    mesh_transforms : (n, 4, 4) float64, LDU
        LDraw part coordinates -> world (BrickLayer frame): ``pose @
        element.ldraw_to_local`` for library parts, ``pose @ L2B`` for unknown
        or embedded parts (the importer places those with the LDraw frame
        rotated into the BrickLayer one, ``bricklayer.io``).
    keys : list of str, length n
        :func:`part_key` of each placement.
    groups : dict of str to (k,) int ndarray
        Placement indices per part key.
    path_ids : list of tuple of int, length n
        ``tuple(map(id, fp.path))`` of each placement: the identity of a part instance (the
        placements on its path), for the instance ids of the collision engine and the connection
        index (made once here: 100,000 tuples at 100k parts, issue 20).
    """

    placements: list
    poses: np.ndarray
    mesh_transforms: np.ndarray
    keys: list
    groups: dict
    path_ids: list


#: Part id -> placed from a library sub-part or primitive folder (:func:`drawn_not_part`), per process.
_NOT_PART: dict = {}


def not_part_kind(part_id: str) -> str | None:
    """``"primitive"`` or ``"sub-part"`` when a part id placed in a model is a library file that is not a part
    (the rule of :func:`drawn_not_part`: in ``p/`` is a primitive, in a folder of ``parts/`` such as ``s/`` a
    sub-part; LDraw File Format spec 1.0.0), else None (a part, an MPD-embedded ``"?"`` id, an id not in the
    library, or no library installed).

    Parameters
    ----------
    part_id : str
        LDraw file name as placed, with or without ``.dat`` (``"4-4cyli"``, ``"s/3001s01.dat"``).
    """
    if part_id.startswith("?"):
        return None
    try:
        from ldraw_data.library import get_library, normalize_name

        key = normalize_name(part_id if part_id.lower().endswith(".dat") else part_id + ".dat")
        folder = get_library().folder_of(key)
    except Exception:  # noqa: BLE001 - no library: nothing can be told about folders
        return None
    if folder is None:
        return None
    if folder.lower().endswith("p"):
        return "primitive"
    return "sub-part" if "/" in key else None


def drawn_not_part(part_id: str) -> bool:
    """True when a part id placed in a model is a library sub-part (``s/``, ``48/``) or primitive (``p/``).

    LDraw spec (File Format 1.0.0, "parts live in ``parts/``"): sub-parts and primitives are pieces
    of the drawing of a part (``4-4cyli.dat`` is an open cylinder surface of radius 1 and height 1),
    not catalog parts. Placed directly in a model (70814 Emmet's Constructo-Mech draws a hose as 122
    scaled ``4-4cyli.dat``) they are drawn, not built: the validator reports each once as NOT A PART
    and tests no collision of them (an open surface has no material to collide with;
    ``docs/architecture.md``, stage 4; ``benchmarks/validator_audit.md``, after round 5). MPD-embedded
    files (ids starting with ``"?"`` as :func:`part_key` makes them) and ids not in the library are
    False. One library look-up per id and process.

    Parameters
    ----------
    part_id : str
        LDraw file name as placed (``"4-4cyli"``, ``"s/47398s01.dat"``), or a :func:`part_key`.
    """
    hit = _NOT_PART.get(part_id)
    if hit is not None:
        return hit
    bad = not_part_kind(part_id) is not None
    _NOT_PART[part_id] = bad
    return bad


def world_arrays(build) -> WorldArrays:
    """The (cached) :class:`WorldArrays` of a build; recomputed after any edit.

    Parameters
    ----------
    build : LegoBuild

    Returns
    -------
    WorldArrays
    """

    def make(flat=None, start: int = 0, old: WorldArrays | None = None) -> WorldArrays:
        flat = build.flattened_placements if flat is None else flat
        new = flat[start:]
        n = len(new)
        if old is None:  # rows with room after them for appended placements (appended_rows)
            poses = room_buffer(n, (4, 4))[:n]
            if n:
                np.stack([fp.pose._m for fp in new], out=poses)
        else:
            poses = np.array([fp.pose._m for fp in new], dtype=np.float64).reshape(n, 4, 4)
        keys = [part_key(fp.content) for fp in new]
        path_ids = [tuple(map(id, fp.path)) for fp in new]
        groups: dict[str, list[int]] = {}
        for i, k in enumerate(keys):
            groups.setdefault(k, []).append(i + start)
        g = {k: np.asarray(v, dtype=np.intp) for k, v in groups.items()}
        mt = room_buffer(n, (4, 4))[:n] if old is None else np.empty_like(poses)
        for k, idx in g.items():
            el = flat[idx[0]].content
            to_local = el.ldraw_to_local if el._known else L2B
            mt[idx - start] = poses[idx - start] @ to_local
        if old is None:
            return WorldArrays(flat, poses, mt, keys, g, path_ids)
        merged = dict(old.groups)
        for k, idx in g.items():
            merged[k] = np.concatenate([merged[k], idx]) if k in merged else idx
        return WorldArrays(flat, appended_rows(old.poses, poses), appended_rows(old.mesh_transforms, mt),
                           old.keys + keys, merged, old.path_ids + path_ids)

    def extend(old: WorldArrays, k: int) -> WorldArrays:
        # append-only edits (LegoBuild._appended_since): the old placements come first, unchanged
        flat = build.flattened_placements
        return make(flat, len(old.placements), old)

    return build._cached("validate.world", make, extend)


#: Traits (:data:`ldraw_data.traits.TRAITS`, matched on whole words) of parts never reported floating:
#: hose segments ("Hose Flexible Segment ..." 754-756, "Technic Flex-System Hose End" u9053; rigid hoses
#: "Hose Rigid ..." are not matched), LSynth output ("LSynth Synthesis Part", "LSynth ... String Segment",
#: MPD-embedded as "<set> - LS51.dat"), strings, ropes and chains ("Minifig Chain Link ..." 30104k02,
#: alias 209). "Propeller" carries no "rope" (whole words).
FLEXIBLE_TRAITS = UNSUPPORTED_OK
#: The words of :data:`FLEXIBLE_TRAITS` (kept for readers of the old list).
FLEXIBLE_WORDS = tuple(w for t in sorted(UNSUPPORTED_OK) for w in TRAITS[t])


def _embedded_title(key: str, embedded) -> str:
    """First-line title of the MPD-embedded file of world-array key ``?name`` (``""`` when absent)."""
    if embedded is None:
        return ""
    want = key[1:].lower()
    for f in embedded.files:
        if f.key.lower() in (want, want + ".dat"):
            return f.title or ""
    return ""


def embedded_is_subpart(key: str, embedded) -> bool:
    """True when the MPD-embedded file of world-array key ``?name`` says it is a sub-part
    (``0 !LDRAW_ORG Subpart`` or ``Unofficial_Subpart``, LDraw file format spec): a piece of a part, so a
    model that places it directly draws that part in pieces (a belt or tread cut into segments)."""
    if embedded is None or not key.startswith("?"):
        return False
    want = key[1:].lower()
    for f in embedded.files:
        if f.key.lower() in (want, want + ".dat"):
            return "subpart" in (f.ldraw_org or "").lower()
    return False


def part_title(key: str, element, embedded) -> str:
    """Title of a part by its world-array key (see :func:`_part_title`)."""
    return _part_title(key, element, embedded)


def _part_title(key: str, element, embedded) -> str:
    """Title of a part: catalog name for library parts (following ``~Moved to`` stubs,
    :meth:`ldraw_data.catalog.Catalog.resolve_moved`), the first line of the file for MPD-embedded
    ones, ``""`` when unknown."""
    from ldraw_data.catalog import get_catalog
    from ldraw_data.errors import LDrawError

    cat = get_catalog()
    if not key.startswith("?"):
        if key not in cat:
            return ""
        try:
            return cat.resolve_moved(key).name
        except LDrawError:  # a stub whose target is missing: its own title
            return cat.get(key).name
    title = _embedded_title(key, embedded)
    if title.lower().startswith("~moved to "):
        target = title.split()[2] if len(title.split()) > 2 else ""
        if target in cat:
            title = cat.get(target).name
    return title


def flexible_mask(build) -> np.ndarray:
    """(n,) bool over :attr:`LegoBuild.flattened_placements`: flexible or primitive placements.

    A placement is flexible when its part title carries one of :data:`FLEXIBLE_TRAITS` (hoses,
    strings, LSynth output, chain links) or when it is an LDraw primitive (``p/`` folder, e.g.
    ``4-4cyli`` scaled into rigging string in 6285 Black Seas Barracuda, ``stud3a`` in 21019
    Eiffel Tower): a model that references a primitive draws with it a piece of string or a detail,
    not a part one can buy. Such placements are never reported floating and are left out of the
    component count (:mod:`bricklayer.validate.support`, :class:`.connections.ConnectionGraph`).

    Parameters
    ----------
    build : LegoBuild

    Returns
    -------
    (n,) bool ndarray
    """

    def make(old: np.ndarray | None = None) -> np.ndarray:
        from ldraw_data.library import get_library

        wa = world_arrays(build)
        lib = get_library()
        memo = build._cache.setdefault("validate.flexible.memo", {})  # part key -> bool, kept across edits
        emb = None
        out = np.zeros(len(wa.placements), dtype=bool)
        if old is not None:
            out[:len(old)] = old
            groups: dict = {}
            for i in range(len(old), len(wa.placements)):
                groups.setdefault(wa.keys[i], []).append(i)
        else:
            groups = wa.groups
        for key, idx in groups.items():
            flex = memo.get(key)
            if flex is None:
                if key.startswith("?") and emb is None:
                    emb = _embedded_doc(build)
                title = _part_title(key, wa.placements[idx[0]].content, emb)
                flex = bool(title_traits(title) & FLEXIBLE_TRAITS)
                if not flex and not key.startswith("?"):
                    # primitives live in p/, p/48/, p/8/: only such paths need the library's folder index
                    # (building it walks every library path, about 1 s)
                    path = lib.find(key + ".dat")
                    flex = (path is not None and path.parent.name.lower() in ("p", "48", "8")
                            and lib.is_primitive(key + ".dat"))
                memo[key] = flex
            out[idx] = flex
        return out

    return build._cached("validate.flexible", make, lambda old, k: make(old))


def _embedded_doc(build):
    """The build's MPD-embedded part files (``build.embedded_files``) as one parsed document, or None;
    cached in the build until the embedded files change."""
    files = getattr(build, "embedded_files", None) or {}
    if not files:
        return None
    key = tuple(sorted(files))
    hit = build._cache.get("validate.embedded")
    if hit is not None and hit[0] == key:
        return hit[1]
    from ldraw_data.io.parse import parse_document

    text = "\n".join(f"0 FILE {name}\n{body}\n0 NOFILE" for name, body in files.values())
    doc = parse_document(text, f"<embedded parts of {build.name or 'build'}>")
    build._cache["validate.embedded"] = (key, doc)
    return doc
