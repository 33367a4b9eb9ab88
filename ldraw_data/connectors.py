"""Typed connectors of LDraw parts, from BrickNet's connector labels, the LDCad shadow library, hose
drawings and composite parts.

Source data: the data files shipped by the ``bricknet`` package
(``bricknet/_data/v1``), located with :func:`importlib.util.find_spec` (which
does not import the package) and read with :mod:`lzma` and :mod:`json`;
nothing of BrickNet's Python API is used:

``labels.json.xz``
    ``{"<stem>.dat": {kind: {subtype: rows | {polarity: rows}}}}`` with kinds
    ``stud``, ``hole``, ``axle``, ``hinge``, ``fixed``, ``ball``. A row is
    ``[x, y, z, pitch_deg, roll_deg, col5]`` in part-local LDU (LDraw frame,
    -Y up); ``col5`` is the length (LDU) of ``axle``-kind connectors and the
    yaw (degrees) of ``fixed`` ones; ball rows hold only ``x, y, z``.
``part_aliases.json.xz``
    ``{"rows": [{src, dst, final_matrix_3x4}]}``: obsolete or duplicate ids
    labelled under another id; the part is replaced via ``T_new = T_part @ T``
    (BrickNet ``graph.parse_ldr``), so a frame ``F`` of ``dst`` is ``T @ F`` in
    ``src``'s frame.

Frame convention (BrickNet ``data._load_all_connectors``): ``R = Ry(yaw) @
Rx(pitch) @ Rz(roll)``, frame ``= [R | p]``. The mating axis is the frame's -Y
column (BrickNet ``graph._find_pairs``: ``axes = -col1``). Stud-family
connectors mate with *parallel* axes (signed dot >= ``_AXIS_THR`` = 0.95), so
a stud's axis points out of its tip (up on a brick) and an antistud's axis
points *into* its part (up as well, the way the mating stud travels); axle-kind
and hinge connectors mate parallel or anti-parallel (``abs(dot)``), so the
sign of their axis carries no meaning.

Mating rules (BrickNet ``core._STUD_MATES``, ``core._AXLE_MATES`` and
``graph._find_pairs``): kind ``stud`` with kind ``hole`` for the subtype pairs
(hole, open), (hole, stud), (open, post), (open, tube), (stud, tube); kind
``axle`` with kind ``axle`` for (axle, cross), (axle, socket), (bar, clip),
(bar, cross), (pin, socket); ``hinge``, ``ball`` and ``fixed`` pair the same
subtype with opposite polarity ``in``/``on``. Positions must agree within
``_POS_THR`` = 3 LDU (axles: along a line with overlap). The joint each pair
makes is this module's reading of those families (see :func:`mate_kind`).

Second source: the LDCad shadow library (:mod:`ldraw_data.ldcad`, when installed:
``brickwright library install`` installs it with ``complete.zip`` when ``ldcad-shadow.zip``
lies beside it, or ``--shadow``). Its snap metas, inherited through each part's LDraw
references, are mapped onto the same connector types (the table in :mod:`ldraw_data.ldcad`:
LDCad gender M is the male side, a stud-radius cylinder is a stud or anti-stud unless it
slides or is open at both ends, then a pin or pin hole; a bar-radius one a bar, post or clip;
axle-shaped sections axles and axle holes; ``caps`` picks the open end; ``grid`` gives one
connector per point; other shapes become ``ldcad_<shape>_<in|on>`` types that mate like with
like). Merge, per part: BrickNet's connectors first (same indices as without LDCad), then each
LDCad connector unless BrickNet has one of the same class (stud / anti-stud or tube / post /
axle or pin / bar / clip / pin or axle hole, else the type) within ``_MERGE_POS`` (2 LDU) with
axes within ``_MERGE_COS`` (0.9) (``_MERGE_POS_JOINT``, 4 LDU, for hinge, fixed and ball labels),
for sliding ones on the same line with overlapping extents.
Third source: hose segment joints (:mod:`ldraw_data.segments`): a segment part of a flexible
hose (754, 756, 30527k02...) gets a ``hose_ball`` at each hemisphere of its drawing that the next
segment of a library hose holds, and that next segment a ``hose_socket`` where the ball sits;
appended after the other two (no other source describes segments), following ``~Moved to`` stubs
(758 -> 30527k02).
Fourth source: composite pieces (:mod:`ldraw_data.subparts`): a part that no other source covers and
that a composite part draws as one of its pieces (92549, the bottom of spinner 92547) gets the
composite's connectors that its own drawing forms (a stud's wall on its triangles, an anti-stud's or
pin hole's wall on it and on no other piece, an axle nearest to it), moved into its frame; used only
for parts that have no connector from the other three, following ``~Moved to`` stubs. A piece's rows
are worked out when first asked, from only the composites that draw it (a part no composite draws
costs a look-up in a disk-cached index); :func:`build_piece_table` (``brickwright library install``,
:func:`catalog_connector_coverage`) saves them all at once.
Fifth source: anti-studs of a plate-thick open underside (:mod:`ldraw_data.underside`): the grid
points of a part's anti-stud rows that no row occupies, where the part's drawing shows a stud would
be seated (its tip on a ceiling 4 LDU up, its wall within the rim up to the stud press-fit allowance,
touching it, nothing below the seat): the round plate 6177's studs between its inner wall and its
rim. Appended last, only to parts that have anti-stud rows (so coverage does not change).
Sixth source: sticker backs (:mod:`ldraw_data.stickers`): a flat sticker (title "Sticker ...", a slab at
most 1 LDU thin) that no other source covers gets one ``sticker_back`` connector at the centre of its
back face, read from its mesh; it mates with no connector (``bricklayer.construction.stick`` glues
stickers onto faces). Its type code comes after every other.
BrickNet covers 13,057 of the 19,370 library parts, LDCad 14,498, hose segments 10, composite pieces
67, the first four 15,396 (79.5%; underside anti-studs add rows to covered parts only), sticker
backs 2,022, all six 17,418 (89.9%) (``benchmarks/connector_coverage.py``, docs/connectors.md). The merged table is kept under
``cache_dir()/connectors``, keyed on both libraries' fingerprints.
"""

from __future__ import annotations

__all__ = [
    # types
    "JointKind",
    "ConnectorDef",
    "WorldConnectors",
    # type names and compatibility
    "connector_types",
    "type_code",
    "type_label",
    "type_matches",
    "is_sliding_type",
    "mate_kind",
    "compatible_types",
    "mate_matrix",
    # per part
    "part_connectors",
    "resolve_connector_part",
    "has_connectors",
    "connector_coverage",
    "catalog_connector_coverage",
    "build_piece_table",
    "SOURCES",
    # bulk
    "world_connector_frames",
]

import difflib
import hashlib
import importlib.util
import json
import logging
import lzma
import re
import threading
from dataclasses import dataclass, field, replace
from enum import Enum
from functools import lru_cache
from pathlib import Path
from typing import Iterable, NamedTuple

import numpy as np

from .library import cache_dir, normalize_name
from .errors import LDrawTypeError, LDrawValueError, MissingDependencyError

log = logging.getLogger(__name__)

#: Bump when the on-disk cache layout changes.
_CACHE_VERSION = 1
#: BrickNet catalog folder holding the label files.
_BRICKNET_CATALOG = "v1"
#: Longest chain of aliases followed (BrickNet aliases and LDraw ``~Moved to``/alias stubs).
_MAX_ALIAS_HOPS = 6


# ----------------------------------------------------------------------------------------------
# joint kinds and type names
# ----------------------------------------------------------------------------------------------


class JointKind(Enum):
    """Kind of joint two mated connectors make.

    ``FIXED``: no relative motion. ``REVOLUTE``: rotation about the shared axis.
    ``PRISMATIC``: sliding along it. ``CYLINDRICAL``: rotation about and sliding
    along it. ``BALL``: free rotation about the shared centre. ``GEAR``: two
    meshing gears, whose rotations are tied by their tooth ratio
    (:mod:`bricklayer.validate.gears`; no connector pair makes it).

    :attr:`code` is the integer used in the arrays of :func:`mate_matrix`.
    """

    FIXED = "fixed"
    REVOLUTE = "revolute"
    PRISMATIC = "prismatic"
    CYLINDRICAL = "cylindrical"
    BALL = "ball"
    GEAR = "gear"

    @property
    def code(self) -> int:
        """Integer code of this kind (0 FIXED ... 4 BALL, 5 GEAR), as in :func:`mate_matrix`."""
        return _JOINT_CODES[self]

    def __str__(self) -> str:
        return self.value


_JOINT_CODES = {k: i for i, k in enumerate(JointKind)}

#: Contract names of the stud and axle families: (kind, subtype) -> name
#: (docs/bricklayer-api.md, "Connector type names").
_FAMILY_NAMES: dict[tuple[str, str], str] = {
    ("stud", "stud"): "stud",
    ("stud", "open"): "open_stud",
    ("hole", "hole"): "antistud",
    ("hole", "tube"): "tube",
    ("hole", "post"): "post",
    ("axle", "axle"): "axle",
    ("axle", "cross"): "axle_hole",
    ("axle", "hole"): "axle_bore",
    ("axle", "pin"): "pin",
    ("axle", "socket"): "pin_hole",
    ("axle", "bar"): "bar",
    ("axle", "clip"): "clip",
}

#: Descriptive names of polarized labels identified from the parts that carry them
#: (part names from BrickNet's ``part_names.json``): (kind, subtype, polarity) -> name.
_POLAR_NAMES: dict[tuple[str, str, str], str] = {
    # 2736 technic axle towball, 3731 plate 2x2 with towball: in; 3183a plate 1x4 with towball socket: on
    ("ball", "1", "in"): "towball",
    ("ball", "1", "on"): "towball_socket",
    # 17114 brick 2x2 with two ball joints, constraction limbs: in; constraction sockets: on
    ("ball", "0", "in"): "constraction_ball",
    ("ball", "0", "on"): "constraction_socket",
    # flexible hose segments (754, 30527k02): ball of one segment in the cup of the next (ldraw_data.segments)
    ("ball", "hose", "in"): "hose_ball",
    ("ball", "hose", "on"): "hose_socket",
    # 973 minifig torso (and 781 bodies): on, at the shoulders; 3818/3819 arms: in
    ("hinge", "0", "on"): "shoulder_peg",
    ("hinge", "0", "in"): "shoulder_socket",
    # 3815b minifig hips: in (the leg pegs); legs: on
    ("hinge", "1", "in"): "hip_peg",
    ("hinge", "1", "on"): "hip_socket",
    # 3820 minifig hand: in (its wrist peg); 3818/3819 arms: on
    ("hinge", "4", "in"): "wrist_peg",
    ("hinge", "4", "on"): "wrist_socket",
    # 30124b minifig helmet: in (visor pivots); 2447b visor: on
    ("hinge", "5", "in"): "visor_mount",
    ("hinge", "5", "on"): "visor_hinge",
    # 3815b hips top: in; 973 torso bottom (y = 32): on
    ("fixed", "0", "in"): "waist_peg",
    ("fixed", "0", "on"): "waist_socket",
    # 973 torso top (y = 0): in; neck accessories (beards, wings, shoulder pads): on
    ("fixed", "1", "in"): "neck_mount",
    ("fixed", "1", "on"): "neck_bracket",
    # 3680 turntable 2x2 plate base (centre pin): on; 3679 turntable 2x2 plate top: in
    ("hinge", "37", "on"): "turntable_pin",
    ("hinge", "37", "in"): "turntable_socket",
    # 4593 hinge control stick: in; 4592 hinge control stick base: on
    ("hinge", "38", "in"): "control_stick",
    ("hinge", "38", "on"): "control_stick_base",
    # 4276b hinge plate 1x2 with 2 fingers: in; 4275b / 2452 ... with 3 fingers: on
    ("hinge", "7", "in"): "hinge_2_fingers",
    ("hinge", "7", "on"): "hinge_3_fingers",
    # 3938 hinge 1x2 top: in; 3937 hinge 1x2 base: on
    ("hinge", "12", "in"): "hinge_brick_top",
    ("hinge", "12", "on"): "hinge_brick_base",
}

#: Connectors of the fifth source (:mod:`ldraw_data.stickers`): a flat sticker's adhesive back face.
#: It mates with no connector: a sticker is glued onto a surface (``bricklayer.construction.stick``).
_SURFACE_NAMES: dict[tuple[str, str], str] = {("sticker", "back"): "sticker_back"}

_NAME_TO_LABEL: dict[str, tuple[str, str, str | None]] = {
    **{v: (k[0], k[1], None) for k, v in _FAMILY_NAMES.items()},
    **{v: (k[0], k[1], None) for k, v in _SURFACE_NAMES.items()},
    **{v: k for k, v in _POLAR_NAMES.items()},
}
_MECHANICAL = re.compile(r"^(hinge|fixed|ball)_(\d+)_(in|on)$")
#: Generic LDCad hot spots (module :mod:`ldraw_data.ldcad`): ``ldcad_<shape>_<in|on>``, M = in, F = on.
_LDCAD_NAME = re.compile(r"^ldcad_(.+)_(in|on)$")

#: Stud family mates (BrickNet ``core._STUD_MATES``, sorted subtype pairs, kind stud x kind hole).
_STUD_MATES = frozenset({("hole", "open"), ("hole", "stud"), ("open", "post"), ("open", "tube"), ("stud", "tube")})
#: Axle family mates (BrickNet ``core._AXLE_MATES``) and the joint each makes.
_AXLE_JOINTS: dict[tuple[str, str], JointKind] = {
    ("axle", "cross"): JointKind.PRISMATIC,  # cross axle in cross hole: slides, cannot turn
    ("axle", "socket"): JointKind.CYLINDRICAL,  # cross axle in round pin hole: turns and slides
    ("bar", "clip"): JointKind.CYLINDRICAL,  # clips turn about and slide along bars
    ("bar", "cross"): JointKind.CYLINDRICAL,  # round bar in cross hole: turns and slides
    ("pin", "socket"): JointKind.CYLINDRICAL,  # friction-less pin in pin hole
}
#: Joint of each polarized family (same subtype, opposite polarity; BrickNet ``graph._find_pairs``).
_POLAR_JOINTS = {"hinge": JointKind.REVOLUTE, "ball": JointKind.BALL, "fixed": JointKind.FIXED}
#: The joint an axle-kind connector makes with its usual mate (axle/hole, ``axle_bore``, has
#: no mate in BrickNet's table); every stud-family connector makes a revolute joint.
_AXLE_SUB_JOINT = {
    "axle": JointKind.PRISMATIC, "cross": JointKind.PRISMATIC,
    "pin": JointKind.CYLINDRICAL, "socket": JointKind.CYLINDRICAL,
    "bar": JointKind.CYLINDRICAL, "clip": JointKind.CYLINDRICAL,
}  # fmt: skip

#: Query groups: a query name also matches these types (docs/bricklayer-api.md).
_QUERY_GROUPS = {"stud": ("stud", "open_stud"), "antistud": ("antistud", "tube")}

_KIND_ORDER = ("stud", "hole", "axle", "hinge", "fixed", "ball", "ldcad", "sticker")


def _label_name(kind: str, sub: str, pol: str | None) -> str:
    """Type name of a BrickNet label (kind, subtype, polarity)."""
    if pol is None:
        name = _FAMILY_NAMES.get((kind, sub)) or _SURFACE_NAMES.get((kind, sub))
        return name if name is not None else f"{kind}_{sub}"
    if kind == "ldcad":
        return f"ldcad_{sub}_{pol}"
    return _POLAR_NAMES.get((kind, sub, pol)) or f"{kind}_{sub}_{pol}"


def _parse_type(name: str) -> tuple[str, str, str | None]:
    """(kind, subtype, polarity) of a type name; ValueError (with close names) when unknown."""
    if not isinstance(name, str):
        raise LDrawTypeError(f"connector type must be a str, got {type(name).__name__}")
    lab = _NAME_TO_LABEL.get(name)
    if lab is not None:
        return lab
    m = _MECHANICAL.match(name)
    if m is not None and (m.group(1), m.group(2), m.group(3)) not in _POLAR_NAMES:
        return m.group(1), m.group(2), m.group(3)
    m = _LDCAD_NAME.match(name)
    if m is not None:
        return "ldcad", m.group(1), m.group(2)
    known = sorted(_NAME_TO_LABEL)
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
    hint = f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
    raise LDrawValueError(
        f"Unknown connector type {name!r}. Known types: {', '.join(known)}, and mechanical names "
        f"'<hinge|fixed|ball>_<subtype>_<in|on>' (e.g. 'hinge_2_in').{hint}"
    )


def _pair_joint(a: tuple[str, str, str | None], b: tuple[str, str, str | None]) -> JointKind | None:
    (ka, sa, pa), (kb, sb, pb) = a, b
    if {ka, kb} == {"stud", "hole"}:
        return JointKind.REVOLUTE if tuple(sorted((sa, sb))) in _STUD_MATES else None
    if ka == kb == "axle":
        return _AXLE_JOINTS.get(tuple(sorted((sa, sb))))
    if ka == kb and ka in _POLAR_JOINTS:
        return _POLAR_JOINTS[ka] if sa == sb and {pa, pb} == {"in", "on"} else None
    if ka == kb == "ldcad":
        return _ldcad_joint(sa) if sa == sb and {pa, pb} == {"in", "on"} else None
    return None


def _ldcad_joint(sub: str) -> JointKind:
    """Joint of two like generic LDCad hot spots (module :mod:`ldraw_data.ldcad`): cylinders and
    fingers turn (REVOLUTE), clips turn and slide (CYLINDRICAL), spheres are BALL joints, other
    generic shapes (boxes, points) FIXED."""
    if sub.startswith(("cyl-", "fgr-")):
        return JointKind.REVOLUTE
    if sub.startswith("clp-"):
        return JointKind.CYLINDRICAL
    if sub.startswith("gen-sph"):
        return JointKind.BALL
    return JointKind.FIXED


def mate_kind(type_a: str, type_b: str) -> JointKind | None:
    """Joint made by mating a connector of ``type_a`` with one of ``type_b``.

    Parameters
    ----------
    type_a, type_b : str
        Connector type names (``"stud"``, ``"pin_hole"``, ``"hinge_2_in"``, ...).

    Returns
    -------
    JointKind or None
        None when the two types do not mate. Symmetric in its arguments.

    Raises
    ------
    ValueError
        When a name is not a connector type (the message lists the known names
        and suggests close ones).

    Notes
    -----
    Which pairs mate is BrickNet's table (``core._STUD_MATES``,
    ``core._AXLE_MATES``, same-subtype opposite-polarity hinge/ball/fixed
    pairs in ``graph._find_pairs``). The joint each pair makes is ours:
    stud/open_stud in antistud/tube (and open_stud on post): REVOLUTE about the
    stud axis; axle in axle_hole: PRISMATIC; axle or pin in pin_hole, bar in
    clip, bar in axle_hole: CYLINDRICAL; hinge pairs: REVOLUTE; ball pairs:
    BALL; fixed pairs: FIXED (BrickNet checks the full frame only for fixed
    subtypes 0-3; the wheel/tyre subtypes 4+ are matched on position alone).
    ``axle_bore`` (axle/hole) mates with nothing in BrickNet's table.

    Examples
    --------
    >>> mate_kind("stud", "antistud")
    <JointKind.REVOLUTE: 'revolute'>
    >>> mate_kind("axle_hole", "axle").value
    'prismatic'
    >>> mate_kind("stud", "post") is None
    True
    """
    return _pair_joint(_parse_type(type_a), _parse_type(type_b))


def _partner_candidates(kind: str, sub: str, pol: str | None) -> list[tuple[str, str, str | None]]:
    if kind in ("stud", "hole"):
        other = "hole" if kind == "stud" else "stud"
        return [(other, s, None) for (k, s) in _FAMILY_NAMES if k == other]
    if kind == "axle":
        return [("axle", s, None) for (k, s) in _FAMILY_NAMES if k == "axle"]
    return [(kind, sub, "on" if pol == "in" else "in")]


def compatible_types(connector_type: str) -> list[str]:
    """Connector types that mate with ``connector_type``.

    Parameters
    ----------
    connector_type : str
        A connector type name.

    Returns
    -------
    list of str
        Names in a fixed order (the contract order of the stud and axle
        families), for messages such as "a stud mates with antistud, tube".

    Raises
    ------
    ValueError
        When the name is not a connector type.

    Examples
    --------
    >>> compatible_types("stud")
    ['antistud', 'tube']
    >>> compatible_types("towball")
    ['towball_socket']
    """
    lab = _parse_type(connector_type)
    return [_label_name(*c) for c in _partner_candidates(*lab) if _pair_joint(lab, c) is not None]


#: BrickNet's sliding connector types (axle, pin, bar and clip families): mated by the line test.
_SLIDING_NAMES = frozenset({"axle", "axle_hole", "axle_bore", "pin", "pin_hole", "bar", "clip"})


def is_sliding_type(connector_type: str) -> bool:
    """True when connectors of this type slide along their axis (mated by a line test, with a half-length).

    Parameters
    ----------
    connector_type : str
        A connector type name.

    Returns
    -------
    bool
        True for BrickNet's axle, pin, bar and clip families (``axle``, ``axle_hole``, ``axle_bore``,
        ``pin``, ``pin_hole``, ``bar``, ``clip``) and for LDCad's generic clips and the round shafts
        they hold (``ldcad_clp-r<radius>_on`` / ``_in``, module :mod:`ldraw_data.ldcad`): a clip holds
        a male round cylinder of its own radius anywhere along it (LDCad's ``SNAP_CLP`` snaps onto
        ``SNAP_CYL`` male round sections of the same radius; the shadow library's wheel clips,
        grab jaws and handcuffs).

    Examples
    --------
    >>> is_sliding_type("bar"), is_sliding_type("stud"), is_sliding_type("ldcad_clp-r3_on")
    (True, False, True)
    """
    return connector_type in _SLIDING_NAMES or connector_type.startswith("ldcad_clp-")


def type_matches(query: str, connector_type: str) -> bool:
    """True when a connector of ``connector_type`` answers a query for ``query``.

    Parameters
    ----------
    query : str
        The name asked for.
    connector_type : str
        A connector's :attr:`ConnectorDef.type`.

    Returns
    -------
    bool
        Equal names match; besides, ``"stud"`` also matches ``"open_stud"`` and
        ``"antistud"`` also matches ``"tube"`` (query groups of the API contract,
        docs/bricklayer-api.md). Unknown names simply do not match; check a
        user's query with :func:`compatible_types` or :func:`connector_types`
        to report a typo.

    Examples
    --------
    >>> type_matches("stud", "open_stud"), type_matches("open_stud", "stud")
    (True, False)
    """
    return connector_type in _QUERY_GROUPS.get(query, (query,))


# ----------------------------------------------------------------------------------------------
# connector definitions
# ----------------------------------------------------------------------------------------------


def _readonly(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


@dataclass(frozen=True, eq=False)
class ConnectorDef:
    """One connector of a part, in the part's local LDraw frame.

    Attributes
    ----------
    type : str
        Contract type name (``"stud"``, ``"antistud"``, ``"pin_hole"``,
        ``"towball"``, ``"hinge_2_in"``, ...; see module notes).
    kind : str
        BrickNet label kind: ``stud``, ``hole``, ``axle``, ``hinge``, ``fixed`` or ``ball``; ``ldcad`` for
        LDCad's generic hot spots, ``sticker`` for a sticker's back (:mod:`ldraw_data.stickers`).
    subtype : str
        BrickNet subtype (``"stud"``, ``"open"``, ``"tube"``, ``"socket"``, ``"38"``, ...).
    polarity : str or None
        ``"in"`` / ``"on"`` for hinge, fixed and ball labels, else None.
    frame : (4, 4) float64 ndarray, LDU, read-only
        ``[R | p]`` in the part's LDraw frame (-Y up); ``R = Ry(yaw) Rx(pitch) Rz(roll)``.
    length : float, LDU
        Engaged length of axle-kind connectors (axles, pins, bars, holes, clips); 0 otherwise.
    index : int
        Position in the part's connector list (BrickNet's canonical flat order:
        kinds, subtypes, polarities sorted, then row order).
    """

    type: str
    kind: str
    subtype: str
    polarity: str | None
    frame: np.ndarray = field(repr=False)
    length: float = 0.0
    index: int = 0

    @property
    def position(self) -> np.ndarray:
        """(3,) float, LDU: the connector's origin in the part frame."""
        return self.frame[:3, 3]

    @property
    def axis(self) -> np.ndarray:
        """(3,) float, unit: mating axis, the frame's -Y column (BrickNet ``graph._find_pairs``).

        A stud's axis points out of its tip; an antistud's points into its part,
        the way the mating stud travels (for the studs and antistuds of an
        upright brick both are ``(0, -1, 0)``, LDraw up). Mated stud-family
        connectors have parallel axes; for axle-kind and hinge connectors the
        sign is arbitrary (they also mate anti-parallel).
        """
        return -self.frame[:3, 1]

    @property
    def roll_axis(self) -> np.ndarray:
        """(3,) float, unit: the frame's X column, the reference direction across the axis.

        BrickNet measures the rotation of a stud or hinge joint about the axis
        between the X columns of the two frames (``graph.parse_ldr`` yaws).
        """
        return self.frame[:3, 0]

    @property
    def joint_kind(self) -> JointKind | None:
        """Joint this connector makes with its usual mate (see :func:`mate_kind`).

        Axles make PRISMATIC joints in axle holes but CYLINDRICAL ones in pin
        holes: use :func:`mate_kind` for an exact pair. None for ``axle_bore``,
        which nothing mates with in BrickNet's table.
        """
        if self.kind in ("stud", "hole"):
            return JointKind.REVOLUTE
        if self.kind == "axle":
            return _AXLE_SUB_JOINT.get(self.subtype)
        if self.kind == "ldcad":
            return _ldcad_joint(self.subtype)
        if self.kind == "sticker":  # glued flat on a surface: no relative motion
            return JointKind.FIXED
        return _POLAR_JOINTS.get(self.kind)

    @property
    def directional(self) -> bool:
        """True when mating needs parallel axes, not just collinear ones.

        Stud-family connectors mate only with signed axis dot >= 0.95 and the
        oriented fixed subtypes need equal frames; axles, hinges and balls also
        mate flipped (BrickNet ``graph._find_pairs``).
        """
        return self.kind in ("stud", "hole", "fixed")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ConnectorDef):
            return NotImplemented
        return (
            (self.type, self.kind, self.subtype, self.polarity, self.length, self.index)
            == (other.type, other.kind, other.subtype, other.polarity, other.length, other.index)
            and np.array_equal(self.frame, other.frame)
        )

    def __hash__(self) -> int:
        return hash((self.type, self.index, self.frame.tobytes()))


# ----------------------------------------------------------------------------------------------
# loading the labels
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Labels:
    stems: dict[str, tuple[int, int]]  # stem -> (start, stop) rows
    params: np.ndarray  # (N, 6) x y z pitch roll col5
    types: np.ndarray  # (N,) int16 index into type_table
    type_table: tuple[tuple[str, str, str, str | None], ...]  # (name, kind, sub, pol) by code
    aliases: dict[str, tuple[str, np.ndarray]]  # src stem -> (dst stem, (4,4) T)
    # LDCad shadow library rows (module notes, "Second source"): stem -> (start, stop) into the arrays
    ld_stems: dict = field(default_factory=dict)
    ld_frames: np.ndarray = field(default_factory=lambda: np.zeros((0, 3, 4), np.float32))  # (M,3,4) LDU
    ld_types: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int16))  # (M,) into type_table
    ld_lengths: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float32))  # (M,) half-length LDU
    # hose segment joints (ldraw_data.segments): stem -> ((k,4,4) frames LDU, (k,) int16 type codes)
    sg_rows: dict = field(default_factory=dict)


_lock = threading.RLock()


def _data_dir() -> Path:
    """Folder of BrickNet's data files, found without importing the package.

    ``importlib.resources.files("bricknet")`` would execute ``bricknet/__init__``,
    which imports scipy and takes ~0.9 s; only the data files are needed.
    """
    spec = importlib.util.find_spec("bricknet")
    if spec is None or not spec.submodule_search_locations:
        raise MissingDependencyError(
            "the 'bricknet' package (connector labels) is not installed; install it with "
            "`pip install bricknet` (it is a dependency of this project)"
        )
    return Path(next(iter(spec.submodule_search_locations))) / "_data" / _BRICKNET_CATALOG


def _type_sort_key(entry: tuple[str, str, str | None]) -> tuple:
    kind, sub, pol = entry
    named = list(_FAMILY_NAMES).index((kind, sub)) if (kind, sub) in _FAMILY_NAMES and pol is None else 99
    return (named, _KIND_ORDER.index(kind), int(sub) if sub.isdigit() else -1, sub, pol or "")


def _parse_labels(raw: bytes) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray, list]:
    """Flatten labels.json into stems, row starts, params (N,6) and type indices (N,)."""
    labels = json.loads(lzma.decompress(raw))
    entries: dict[tuple[str, str, str | None], int] = {}
    stems, starts, rows, tidx = [], [], [], []
    for stem_dat in sorted(labels):
        stems.append(normalize_name(stem_dat).removesuffix(".dat"))
        starts.append(len(rows))
        kinds = labels[stem_dat]
        for kind in sorted(kinds):  # BrickNet data._load_all_connectors order
            for sub in sorted(kinds[kind]):
                val = kinds[kind][sub]
                groups = [(p, val[p]) for p in sorted(val)] if isinstance(val, dict) else [(None, val)]
                for pol, group in groups:
                    t = entries.setdefault((kind, sub, pol), len(entries))
                    for r in group:
                        r = list(r) + [0.0] * (6 - len(r))
                        rows.append(r[:6])
                        tidx.append(t)
    starts.append(len(rows))
    # renumber types: contract names first, then kind / numeric subtype / polarity order
    order = sorted(entries, key=_type_sort_key)
    remap = np.empty(len(entries), dtype=np.int16)
    for new, key in enumerate(order):
        remap[entries[key]] = new
    return (
        stems,
        np.asarray(starts, dtype=np.int64),
        np.asarray(rows, dtype=np.float64).reshape(-1, 6),
        remap[np.asarray(tidx, dtype=np.int64)],
        order,
    )


def _load_aliases() -> dict[str, tuple[str, np.ndarray]]:
    raw = json.loads(lzma.decompress((_data_dir() / "part_aliases.json.xz").read_bytes()))
    out = {}
    for r in raw["rows"]:
        v = r["final_matrix_3x4"]  # LDraw type-1 order: x y z a b c d e f g h i
        m = np.eye(4)
        m[:3, 3] = v[0:3]
        m[:3, :3] = np.asarray(v[3:12], dtype=np.float64).reshape(3, 3)
        src, dst = (normalize_name(r[k]).removesuffix(".dat") for k in ("src", "dst"))
        out[src] = (dst, _readonly(m))
    return out


def _atomic_save_npz(path, arrays: dict) -> None:
    from .fileio import atomic_writer

    with atomic_writer(path, "wb") as fh:
        np.savez(fh, **arrays)


@lru_cache(maxsize=1)
def _labels() -> _Labels:
    """BrickNet's labels, the LDCad shadow library's (when installed) and the hose segment joints
    (:mod:`ldraw_data.segments`), once per process; the sticker source's type code comes last."""
    return _with_surface_types(_segment_labels(_ldcad_labels()))


def _segment_labels(lab: _Labels) -> _Labels:
    """``lab`` with the hose segment joints (:mod:`ldraw_data.segments`) added."""
    from .segments import segment_rows

    rows = segment_rows()
    if not rows:
        return lab
    table = list(lab.type_table)
    code = {(k, s, p): i for i, (_, k, s, p) in enumerate(table)}
    for key in sorted({label for r in rows.values() for label, _ in r}, key=_type_sort_key):
        if key not in code:  # appended: the codes of BrickNet's and LDCad's types do not change
            code[key] = len(table)
            table.append((_label_name(*key), *key))
    sg = {}
    for stem, r in rows.items():
        frames = np.zeros((len(r), 4, 4))
        frames[:, :3] = [f for _, f in r]
        frames[:, 3, 3] = 1.0
        sg[stem] = (_readonly(frames), _readonly(np.array([code[label] for label, _ in r], np.int16)))
    return replace(lab, type_table=tuple(table), sg_rows=sg)


def _with_surface_types(lab: _Labels) -> _Labels:
    """``lab`` with the sticker source's type (:data:`_SURFACE_NAMES`) appended to its type table (the
    codes of the other types do not change)."""
    have = {t[1:] for t in lab.type_table}
    extra = [(name, k, s, None) for (k, s), name in _SURFACE_NAMES.items() if (k, s, None) not in have]
    return replace(lab, type_table=lab.type_table + tuple(extra)) if extra else lab


def _ldcad_labels() -> _Labels:
    """BrickNet's labels merged with the LDCad shadow library's (when installed)."""
    return _merge_ldcad_labels(_bricknet_labels(), _ldcad_rows())


def _merge_ldcad_labels(bn: _Labels, ld) -> _Labels:
    """``bn`` (BrickNet's labels) with ``ld`` (:func:`_ldcad_rows`' tuple, or None: ``bn`` as it is) merged in;
    LDCad's types new to ``bn`` are appended to its type table in :func:`_type_sort_key` order."""
    if ld is None:
        return bn
    stems, starts, frames, (label_table, label_idx), lengths = ld
    table = list(bn.type_table)
    code = {(k, s, p): i for i, (_, k, s, p) in enumerate(table)}
    for lab in sorted(set(label_table), key=_type_sort_key):
        if lab not in code:
            code[lab] = len(table)
            table.append((_label_name(*lab), *lab))
    remap = np.array([code[lab] for lab in label_table], dtype=np.int16)
    lab_codes = remap[label_idx] if len(label_idx) else np.zeros(0, np.int16)
    ranges = {s: (int(a), int(b)) for s, a, b in zip(stems, starts[:-1], starts[1:])}
    return _Labels(bn.stems, bn.params, bn.types, tuple(table), bn.aliases, ranges,
                   _readonly(frames), _readonly(lab_codes), _readonly(lengths))


#: Bump when the LDCad mapping (:mod:`ldraw_data.ldcad`) or its cache layout changes.
_LDCAD_VERSION = 4


def _ldcad_rows():
    """LDCad rows of every library part: ``(stems, starts (P+1,), frames (M,3,4) float32, (label
    table: list of (kind, sub, pol), label index (M,) int16), half-lengths (M,) float32)``, or None
    without a shadow library.

    Built once from the library and the shadow library (about 10 s: every part file's references
    are read) and kept under ``cache_dir()/connectors``, keyed on both libraries' fingerprints."""
    where = _ldcad_cache_files()
    if where is None:
        return None
    lib, root, path, fpath = where
    from .ldcad import build_ldcad_table

    if path.is_file() and fpath.is_file():
        try:
            with np.load(path, allow_pickle=False) as z:
                table = [(k, s, None if p == "" else p) for k, s, p in json.loads(str(z["label_table"]))]
                frames = np.load(fpath, mmap_mode="r", allow_pickle=False)
                return z["stems"].tolist(), z["starts"], frames, (table, z["label_idx"]), z["lengths"]
        except Exception as exc:  # noqa: BLE001 - a corrupt cache is rebuilt
            log.warning("ignoring unreadable connector cache %s (%s); rebuilding it", path, exc)
    log.info("reading the LDCad shadow library's snap information (about 10 s, once)")
    from .progress import one_task

    with one_task("reading the LDCad snap information (once)"):
        table = build_ldcad_table(lib, root)
    out = _pack_ldcad_table(table)
    stems, label_table, label_idx = out[0], out[3][0], out[3][1]
    try:
        from .fileio import atomic_writer

        with atomic_writer(fpath, "wb") as fh:
            np.save(fh, out[2])
        _atomic_save_npz(path, dict(stems=np.asarray(stems), starts=out[1], lengths=out[4], label_idx=label_idx,
                                    label_table=np.asarray(json.dumps([[k, s, p or ""] for k, s, p in label_table]))))
    except OSError as exc:
        log.warning("could not write the connector cache %s (%s); continuing without it", path, exc)
    return out


def _ldcad_cache_files():
    """``(library, shadow library folder, table .npz path, frames .npy path)`` of the LDCad table's disk cache
    (under ``cache_dir()/connectors``, keyed on both libraries' fingerprints), or None without a shadow library
    or an LDraw library."""
    from .library import find_shadow_library, get_library

    root = find_shadow_library()
    if root is None:
        return None
    try:
        lib = get_library()
    except Exception:  # noqa: BLE001 - no parts library: BrickNet labels only
        return None
    from .ldcad import shadow_fingerprint

    key = hashlib.sha1(f"{_LDCAD_VERSION}|{lib.fingerprint}|{shadow_fingerprint(root)}".encode()).hexdigest()[:16]
    path = cache_dir() / "connectors" / f"ldcad-v{_LDCAD_VERSION}-{key}.npz"
    return lib, root, path, path.with_name(path.stem + "-frames.npy")  # memory-mapped: only the parts used are read


def _pack_ldcad_table(table: dict):
    """:func:`ldraw_data.ldcad.build_ldcad_table`'s dict as :func:`_ldcad_rows`' tuple (stems sorted)."""
    stems, starts, frames, labels, lengths = [], [0], [], [], []
    for stem in sorted(table):
        rows = table[stem]
        stems.append(stem)
        for lab, fr, ln in rows:
            labels.append(lab)
            frames.append(fr[:3])
            lengths.append(ln)
        starts.append(len(labels))
    label_table = sorted(set(labels), key=_type_sort_key)
    index = {lab: i for i, lab in enumerate(label_table)}
    label_idx = np.array([index[lab] for lab in labels], dtype=np.int16)
    return (stems, np.asarray(starts, np.int64), np.asarray(frames, np.float32).reshape(-1, 3, 4),
            (label_table, label_idx), np.asarray(lengths, np.float32))


@lru_cache(maxsize=1)
def _bricknet_labels() -> _Labels:
    """Load (once per process) the flattened BrickNet labels, from the disk cache when it is current."""
    raw = (_data_dir() / "labels.json.xz").read_bytes()
    key = hashlib.sha1(raw).hexdigest()[:16]
    path = cache_dir() / "connectors" / f"bricknet-labels-v{_CACHE_VERSION}-{key}.npz"
    loaded = None
    if path.is_file():
        try:
            with np.load(path, allow_pickle=False) as z:
                stems = z["stems"].tolist()
                starts, params, types = z["starts"], z["params"], z["types"]
                order = [tuple(None if p == "" else p for p in row) for row in json.loads(str(z["type_table"]))]
            loaded = (stems, starts, params, types, order)
        except Exception as exc:  # noqa: BLE001 - a corrupt cache is rebuilt
            from .fileio import discard_cache_file

            discard_cache_file(path, "connector label", exc)
    if loaded is None:
        log.info("building the connector cache from BrickNet labels (about 1 s, once)")
        loaded = _parse_labels(raw)
        stems, starts, params, types, order = loaded
        try:
            _atomic_save_npz(
                path,
                dict(
                    stems=np.asarray(stems),
                    starts=starts,
                    params=params,
                    types=types,
                    type_table=np.asarray(json.dumps([[k, s, p or ""] for k, s, p in order])),
                ),
            )
        except OSError as exc:
            log.warning("could not write the connector cache %s (%s); continuing without it", path, exc)
    stems, starts, params, types, order = loaded
    starts = np.asarray(starts)
    stem_ranges = {s: (int(a), int(b)) for s, a, b in zip(stems, starts[:-1], starts[1:])}
    table = tuple((_label_name(k, s, p), k, s, p) for k, s, p in order)
    return _Labels(stem_ranges, _readonly(np.asarray(params)), _readonly(np.asarray(types)), table, _load_aliases())


def connector_types() -> tuple[str, ...]:
    """Every connector type name in BrickNet's labels, in type-code order.

    Returns
    -------
    tuple of str
        ``connector_types()[code]`` is the name of integer type ``code`` used by
        :func:`world_connector_frames` and :func:`mate_matrix`. The stud and
        axle families come first in contract order (``stud``, ``open_stud``,
        ``antistud``, ``tube``, ``post``, ``axle``, ...), then hinge, fixed and
        ball labels by subtype number.
    """
    return tuple(t[0] for t in _labels().type_table)


def type_label(connector_type: str) -> tuple[str, str, str | None]:
    """BrickNet label ``(kind, subtype, polarity)`` of a connector type name.

    Parameters
    ----------
    connector_type : str
        A type name (``"stud"``, ``"pin_hole"``, ``"hinge_2_in"``, ...).

    Returns
    -------
    kind : str
        ``stud``, ``hole``, ``axle``, ``hinge``, ``fixed`` or ``ball``.
    subtype : str
    polarity : str or None
        ``"in"`` / ``"on"`` for hinge, fixed and ball labels, else None.

    Raises
    ------
    ValueError
        When the name is not a connector type (the message suggests close names).

    Examples
    --------
    >>> type_label("antistud")
    ('hole', 'hole', None)
    >>> type_label("hip_peg")
    ('hinge', '1', 'in')
    """
    return _parse_type(connector_type)


def type_code(connector_type: str) -> int:
    """Integer code of a type name (its index in :func:`connector_types`).

    Raises
    ------
    ValueError
        When no part carries a connector of that type.
    """
    names = connector_types()
    try:
        return names.index(connector_type)
    except ValueError:
        _parse_type(connector_type)  # raises with suggestions for a misspelt name
        raise LDrawValueError(f"no part in BrickNet's labels has a {connector_type!r} connector") from None


@lru_cache(maxsize=1)
def _mate_matrix() -> np.ndarray:
    table = _labels().type_table
    n = len(table)
    out = np.full((n, n), -1, dtype=np.int8)
    # only types of one family can mate (_pair_joint): stud with hole kinds, axle with axle, and a
    # polarized kind with the same kind and subtype; pairing within those groups keeps this linear
    # in the ~500 types instead of testing all pairs
    groups: dict = {}
    for i, (_, k, s, _p) in enumerate(table):
        key = ("stud",) if k in ("stud", "hole") else ("axle",) if k == "axle" else (k, s)
        groups.setdefault(key, []).append(i)
    for idx in groups.values():
        for i in idx:
            for j in idx:
                j_kind = _pair_joint(table[i][1:], table[j][1:])
                if j_kind is not None:
                    out[i, j] = j_kind.code
    return _readonly(out)


def mate_matrix() -> np.ndarray:
    """Joint table over type codes, for vectorized mating checks.

    Returns
    -------
    (T, T) int8 ndarray, read-only
        ``mate_matrix()[a, b]`` is the :attr:`JointKind.code` of the joint that
        types ``a`` and ``b`` (codes of :func:`connector_types`) make, or -1
        when they do not mate. Symmetric; same rules as :func:`mate_kind`.
    """
    return _mate_matrix()


# ----------------------------------------------------------------------------------------------
# per part
# ----------------------------------------------------------------------------------------------


def _stem(part_id: str) -> str:
    if not isinstance(part_id, str):
        raise LDrawTypeError(f"part id must be a str such as '3001' or '3001.dat', got {type(part_id).__name__}")
    key = normalize_name(part_id)
    if key.startswith("parts/"):
        key = key[len("parts/") :]
    return key.removesuffix(".dat")


def _library_stub_target(stem: str) -> tuple[str, np.ndarray] | None:
    """Target of an LDraw ``~Moved to`` or ``Part Alias`` stub file: (stem, (4,4) T), else None."""
    try:
        from .library import get_library

        lib = get_library()
    except Exception:  # no library installed: BrickNet data only
        return None
    path = lib.find(stem + ".dat")
    if path is None:
        return None
    try:  # cheap pre-check on the header: most files are not stubs and need no parse
        with open(path, "rb") as fh:
            head = fh.read(1024).lower()
    except OSError:
        return None
    if not (head.lstrip(b"\xef\xbb\xbf0 \t").startswith(b"~moved") or re.search(rb"!ldraw_org[^\n]*alias", head)):
        return None
    from .io.parse import parse_document

    try:
        doc = parse_document(lib.read(stem + ".dat"), str(path))
    except Exception as exc:
        log.debug("cannot parse %s for alias lookup: %s", path, exc)
        return None
    f = doc.main
    if not (f.moved_to or f.is_alias):
        return None
    refs = [r for r in f.refs if r.key.endswith(".dat") and not lib.is_primitive(r.key)]
    if len(refs) != 1 or len(f.refs) != 1:
        return None
    return _stem(refs[0].key), np.asarray(refs[0].transform, dtype=np.float64)


_PATTERN_SUFFIX = re.compile(r"p[0-9a-z]{2,4}$")


def _pattern_base(stem: str, lab: _Labels) -> tuple[str, np.ndarray] | None:
    """Unprinted base of a patterned id (``3626bp69`` -> ``3626b``), when the base is labelled.

    LDraw numbers printed parts as the base id plus ``p`` and a 2-4 character
    pattern code (LDraw library file-naming convention); the print does not
    change the shape, so the base part's connectors apply unchanged.
    """
    m = _PATTERN_SUFFIX.search(stem)
    if m is None or m.start() == 0:
        return None
    base = stem[: m.start()]
    if base in lab.stems or base in lab.aliases:
        return base, np.eye(4)
    return None


_resolve_cache: dict[tuple[str, bool], tuple[str, np.ndarray] | None] = {}


def resolve_connector_part(part_id: str, library_alias_ok: bool = True) -> tuple[str, np.ndarray] | None:
    """Which labelled part supplies ``part_id``'s connectors, and where it sits.

    Parameters
    ----------
    part_id : str
        ``"3001"``, ``"3001.dat"``, ``"parts/3001.DAT"`` (case-insensitive).
    library_alias_ok : bool
        Follow aliases: BrickNet's ``part_aliases`` table (obsolete or duplicate
        ids, e.g. 3023 -> 3023b) and the LDraw library's own ``~Moved to`` and
        ``Part Alias`` stub files (a single type-1 reference), and, last, the
        unprinted base of a patterned id (``3626bp69`` -> ``3626b``). When False
        only the part's own labels count.

    Returns
    -------
    (str, (4, 4) float64 ndarray) or None
        The labelled stem and the transform ``T`` placing it in ``part_id``'s
        frame (a frame ``F`` of the labelled part is ``T @ F`` for ``part_id``;
        BrickNet ``graph.parse_ldr`` substitutes ``T_part @ T``). None when no
        labels reach the part.
    """
    stem = _stem(part_id)
    ck = (stem, bool(library_alias_ok))
    if ck in _resolve_cache:
        return _resolve_cache[ck]
    lab = _bricknet_labels()  # its stems and aliases are those of _labels(), without the LDCad table
    T = np.eye(4)
    cur = stem
    result = None
    seen = set()
    for _ in range(_MAX_ALIAS_HOPS + 1):
        if cur in lab.stems:
            result = (cur, _readonly(T))
            break
        if not library_alias_ok or cur in seen:
            break
        seen.add(cur)
        nxt = lab.aliases.get(cur) or _library_stub_target(cur) or _pattern_base(cur, lab)
        if nxt is None:
            break
        cur, T = nxt[0], T @ nxt[1]
    with _lock:
        _resolve_cache[ck] = result
    return result


def _frames_from_params(params: np.ndarray, kinds: np.ndarray) -> np.ndarray:
    """(k, 4, 4) frames from (k, 6) rows: R = Ry(yaw) Rx(pitch) Rz(roll) (BrickNet data.py)."""
    k = len(params)
    yaw = np.where(kinds == "fixed", params[:, 5], 0.0)
    pitch, roll = np.radians(params[:, 3]), np.radians(params[:, 4])
    yaw = np.radians(yaw)
    cx, sx, cz, sz, cy, sy = np.cos(pitch), np.sin(pitch), np.cos(roll), np.sin(roll), np.cos(yaw), np.sin(yaw)
    f = np.zeros((k, 4, 4))
    f[:, 0, 0] = cy * cz + sy * sx * sz
    f[:, 0, 1] = -cy * sz + sy * sx * cz
    f[:, 0, 2] = sy * cx
    f[:, 1, 0] = cx * sz
    f[:, 1, 1] = cx * cz
    f[:, 1, 2] = -sx
    f[:, 2, 0] = -sy * cz + cy * sx * sz
    f[:, 2, 1] = sy * sz + cy * sx * cz
    f[:, 2, 2] = cy * cx
    f[:, :3, 3] = params[:, :3]
    f[:, 3, 3] = 1.0
    return f


@dataclass(frozen=True)
class _PartArrays:
    frames: np.ndarray  # (k, 4, 4) in the asked part's frame
    types: np.ndarray  # (k,) int16
    lengths: np.ndarray  # (k,) float


_part_cache: dict[tuple, _PartArrays] = {}
#: The connector sources, in merge order (module notes, "Second source" to "Sixth source").
SOURCES = ("bricknet", "ldcad", "segment", "subpart", "underside", "sticker")
#: The sources a composite's connectors come from when its pieces get theirs (:mod:`ldraw_data.subparts`).
_PIECE_SOURCES = ("bricknet", "ldcad", "segment")


def _check_sources(sources) -> tuple:
    src = tuple(sources)
    bad = [x for x in src if x not in SOURCES]
    if bad:
        raise LDrawValueError(f"unknown connector source(s) {bad}; use some of {SOURCES}")
    return src


def _part_arrays(part_id: str, library_alias_ok: bool = True, sources: tuple = SOURCES) -> _PartArrays:
    ck = (_stem(part_id), bool(library_alias_ok), sources)
    hit = _part_cache.get(ck)
    if hit is not None:
        return hit
    out = _arrays_with(_labels(), part_id, library_alias_ok, sources)
    with _lock:
        _part_cache[ck] = out
    return out


def _arrays_with(lab: _Labels, part_id: str, library_alias_ok: bool, sources: tuple) -> _PartArrays:
    """:func:`_part_arrays` (not memoised) with the labels ``lab``; the type codes index ``lab.type_table``."""
    ck = (_stem(part_id), bool(library_alias_ok), sources)
    res = resolve_connector_part(part_id, library_alias_ok) if "bricknet" in sources else None
    if res is None:
        frames, types, lengths = np.zeros((0, 4, 4)), np.zeros(0, np.int16), np.zeros(0)
    else:
        stem, T = res
        a, b = lab.stems[stem]
        params, types = lab.params[a:b], lab.types[a:b]
        kinds = np.array([lab.type_table[t][1] for t in types.tolist()], dtype=object)
        frames = _frames_from_params(params, kinds)
        if not np.array_equal(T, np.eye(4)):
            frames = T @ frames
        lengths = np.where(kinds == "axle", params[:, 5], 0.0).astype(np.float64)
    ld = lab.ld_stems.get(ck[0]) if "ldcad" in sources else None
    if ld is not None and ld[1] > ld[0]:
        borrowed = res is not None and res[0] != ck[0]  # BrickNet rows of another part (an alias)
        frames, types, lengths = _merge_ldcad(frames, types, lengths, lab, *ld, borrowed=borrowed)
    sg = _segment_joints(ck[0], lab) if "segment" in sources else None
    if sg is not None:
        sf, st = sg
        frames = np.concatenate([frames, sf])
        types = np.concatenate([np.asarray(types, np.int16), st])
        lengths = np.concatenate([np.asarray(lengths, np.float64), np.zeros(len(st))])
    pc = _piece_rows(ck[0]) if "subpart" in sources and not len(types) else None
    if pc is not None:  # a piece of a composite part, which no other source describes
        frames, types, lengths = pc
    if "underside" in sources and len(types):
        frames, types, lengths = _with_underside(ck[0], frames, types, lengths, lab)
    st = _sticker_rows(ck[0]) if "sticker" in sources and not len(types) else None
    if st is not None:  # a flat sticker's back face (ldraw_data.stickers), which no other source describes
        frames, types, lengths = st
    return _PartArrays(_readonly(frames), _readonly(np.asarray(types, np.int16)), _readonly(lengths))


def _with_underside(stem: str, frames, types, lengths, lab: _Labels):
    """The rows followed by the anti-studs :func:`ldraw_data.underside.underside_antistuds` derives from
    ``stem``'s drawing for the grid points of its plate-thick open underside that no row occupies
    (module notes, "Fifth source")."""
    from .underside import underside_antistuds

    table = lab.type_table
    names = [table[t][0] for t in np.asarray(types).tolist()]
    extra = underside_antistuds(stem, frames, names)
    if not len(extra):
        return frames, types, lengths
    code = next(i for i, t in enumerate(table) if t[0] == "antistud")
    return (np.concatenate([frames, extra]),
            np.concatenate([np.asarray(types, np.int16), np.full(len(extra), code, np.int16)]),
            np.concatenate([np.asarray(lengths, np.float64), np.zeros(len(extra))]))


def _sticker_rows(stem: str):
    """The ``sticker_back`` row of flat sticker ``stem`` (:func:`ldraw_data.stickers.sticker_back_row`:
    (1,4,4) frame, (1,) type code, (1,) zero length), else None."""
    from .stickers import sticker_back_row

    row = sticker_back_row(stem)
    if row is None:
        return None
    code = [t[0] for t in _labels().type_table].index("sticker_back")
    return row[0][None].copy(), np.array([code], np.int16), np.zeros(1)


def _segment_joints(stem: str, lab: _Labels) -> tuple[np.ndarray, np.ndarray] | None:
    """Hose segment joints of ``stem`` ((k,4,4) frames in its frame, (k,) type codes), following
    LDraw ``~Moved to`` / alias stubs (758 -> 30527k02), else None."""
    if not lab.sg_rows:
        return None
    T, cur = np.eye(4), stem
    for _ in range(_MAX_ALIAS_HOPS + 1):
        hit = lab.sg_rows.get(cur)
        if hit is not None:
            frames, types = hit
            return (frames if cur == stem else T @ frames), types
        nxt = _library_stub_target(cur)
        if nxt is None:
            return None
        cur, T = nxt[0], T @ nxt[1]
    return None


def _piece_source_args() -> tuple:
    """(connectors_of, has_own, mates, key) of the composite-pieces source (:mod:`ldraw_data.subparts`):
    the other three sources merged, and their fingerprint (the disk caches are keyed on it)."""
    from .library import find_shadow_library
    from .ldcad import shadow_fingerprint

    lab = _labels()
    table = lab.type_table

    def connectors_of(stem: str) -> list:
        arr = _part_arrays(stem, True, _PIECE_SOURCES)
        return [(table[t][1:], f, float(ln)) for t, f, ln in zip(arr.types.tolist(), arr.frames, arr.lengths)]

    def has_own(stem: str) -> bool:
        return has_connectors(stem, True, _PIECE_SOURCES)

    def mates(a: tuple, b: tuple) -> bool:
        return _pair_joint(a, b) is not None

    root = find_shadow_library()
    bn = hashlib.sha1((_data_dir() / "labels.json.xz").read_bytes()).hexdigest()[:16]
    key = f"{bn}|{shadow_fingerprint(root) if root else '-'}|{_LDCAD_VERSION}|{len(lab.sg_rows)}"
    return connectors_of, has_own, mates, key


@lru_cache(maxsize=1)
def _subpart_source():
    """(piece stem -> its composite-piece rows, or None without a library; label -> type code): the rows
    from :func:`ldraw_data.subparts.subpart_source` (the saved full table, else on demand)."""
    from .subparts import subpart_source

    code = {(k, s, p): i for i, (_, k, s, p) in enumerate(_labels().type_table)}
    return subpart_source(*_piece_source_args()), code


def build_piece_table() -> int:
    """Build and save the composite-pieces table of the whole library (:func:`ldraw_data.subparts.subpart_rows`,
    one to two minutes; ``brickwright library install`` runs it), so that later processes read every
    piece's connectors from it. Returns how many pieces have rows. Without it, a piece's rows are worked
    out when first asked (:class:`ldraw_data.subparts.PieceConnectors`)."""
    from .subparts import subpart_rows

    table = subpart_rows(*_piece_source_args())
    _subpart_source.cache_clear()  # later pieces are read from the table (the rows already worked out agree)
    return sum(1 for rows in table.values() if rows)


_piece_cache: dict[str, tuple | None] = {}


def _piece_arrays(stem: str):
    """(frames, type codes, half-lengths) of piece ``stem``'s composite-piece rows, or None (none)."""
    if stem in _piece_cache:
        return _piece_cache[stem]
    src, code = _subpart_source()
    rows = src(stem) if src is not None else []
    rows = [r for r in rows if r[0] in code]  # labels come from the composites: all in the table
    out = None
    if rows:
        out = (_readonly(np.stack([f for _, f, _ in rows])),
               _readonly(np.array([code[r[0]] for r in rows], np.int16)),
               _readonly(np.array([r[2] for r in rows], np.float64)))
    with _lock:
        _piece_cache[stem] = out
    return out


def _piece_rows(stem: str):
    """Sub-part connectors of ``stem`` (frames, type codes, half-lengths in its frame), following LDraw
    ``~Moved to`` / alias stubs to the piece, else None."""
    T, cur = np.eye(4), stem
    for _ in range(_MAX_ALIAS_HOPS + 1):
        hit = _piece_arrays(cur)
        if hit is not None:
            frames, types, lengths = hit
            return (frames if cur == stem else T @ frames), types, lengths
        nxt = _library_stub_target(cur)
        if nxt is None:
            return None
        cur, T = nxt[0], T @ nxt[1]
    return None


#: Connector classes for the merge of the two sources: an LDCad row is dropped when BrickNet has a
#: connector of the same class at the same place (module notes, "Second source").
_MERGE_CLASS = {"stud": "stud", "open_stud": "stud", "antistud": "antistud", "tube": "antistud",
                "post": "post", "axle": "shaft", "pin": "shaft", "bar": "bar", "clip": "clip",
                "pin_hole": "bore", "axle_hole": "bore", "axle_bore": "bore"}
#: Same place (LDU): origins this close (point connectors), or axis lines this close with overlapping
#: extents (sliding ones); axes within about 25 degrees (cosine 0.9, BrickNet's axle axis threshold).
_MERGE_POS = 2.0
#: The same for hinge, fixed and ball labels, whose origins BrickNet places up to 3 LDU off the
#: drawn centre (towball socket of 3183c: BrickNet z = -18, LDCad's sphere centre z = -21).
_MERGE_POS_JOINT = 4.0
_MERGE_COS = 0.9


#: A BrickNet stud label this far (LDU) along its axis towards the stud's tip from the base of the one stud
#: primitive LDCad reads at its place is moved onto that base (:func:`_seat_stud_on_primitive`): the extra
#: length of a stud drawn longer than 4 LDU (577b's ringed end: 1.25 x 4 LDU). Other offsets (a stud drawn
#: sunk 2 LDU in a recess, whose shoulder is the surface around it, 4287) keep BrickNet's label.
_STUD_EXTRA_LENGTH = (0.75, 1.25)


def _seat_stud_on_primitive(frames: np.ndarray, row: int, base: np.ndarray, axis: np.ndarray) -> None:
    """Move BrickNet stud row ``row`` of ``frames`` (k, 4, 4; LDraw part frame, LDU; in place) along its axis
    onto ``base``, the origin of the stud primitive the part draws there (LDCad shadow ``SNAP_CYL`` of
    ``stud*.dat``, inherited from the primitive's placement; ``axis`` unit, out of the stud), when the label
    lies on the stud's axis line (within 0.5 LDU) and :data:`_STUD_EXTRA_LENGTH` towards the tip.

    A stud seats by its base: the shoulder stops on the anti-stud's face, however long the stud is drawn.
    BrickNet places a stud label 4 LDU below the tip; for a longer stud that is inside the stud: the ringed
    end of lightsaber hilt 577b (aliased to 64567a) is an open stud drawn 1.25 times as long, base at y = 31,
    label at y = 32, so a 1 x 1 brick drawn on that end (10224 Town Hall, the lamp posts) did not mate and
    was reported floating (audit round 4). Only the position along the axis changes: the type (open or solid
    stud) and the axis stay BrickNet's.
    """
    d = frames[row, :3, 3] - base
    along = float(d @ axis)
    perp = float(np.linalg.norm(d - along * axis))
    if perp <= 0.5 and _STUD_EXTRA_LENGTH[0] <= along <= _STUD_EXTRA_LENGTH[1]:
        frames[row, :3, 3] = frames[row, :3, 3] - along * axis


#: A BrickNet anti-stud or tube label borrowed from another part (an alias: :func:`resolve_connector_part`)
#: this far (LDU) deeper into the part, along its axis, than the one anti-stud the part's own drawing gives
#: at its place (its LDCad row) is moved out onto that row (:func:`_seat_antistud_at_drawn_mouth`).
_BORROWED_MOUTH_DEPTH = (0.75, 2.0)


def _seat_antistud_at_drawn_mouth(frames: np.ndarray, row: int, mouth: np.ndarray, axis: np.ndarray) -> None:
    """Move borrowed BrickNet anti-stud / tube row ``row`` of ``frames`` (k, 4, 4; LDraw part frame, LDU; in
    place) along its axis onto ``mouth``, the part's own LDCad anti-stud origin at its place (``axis`` unit,
    into the part), when the label lies on that axis line (within 0.5 LDU) and :data:`_BORROWED_MOUTH_DEPTH`
    deeper into the part.

    Rule "a stud seats at the mouth the part draws": a stud stops with its base on the anti-stud's mouth.
    BrickNet labels some parts through an alias to a part drawn differently: 6190 (Bar 1 x 3, end tubes
    ``stud4a.dat`` scaled 2: 8 LDU deep, mouths at y = 8) takes 6190a's labels (Bar 1 x 3 with Stud
    Connectors, tubes 6 LDU deep, labels at y = 6), so the handles 10179 Millennium Falcon clips on the side
    studs of two bricks 52107 (lines 2924 and 2966, stud bases at the mouths) were "2 LDU off" and floating
    (audit round 7, F12-F13). The part's own LDCad rows come from its own drawing. Library-wide the rule moves
    41 rows of 20 aliased parts (6190 / 167, obsolete robot leg 30362 -> 30362a: 2 LDU; 17 printed legs
    21019p* -> 21019bp*: 1 LDU); smaller offsets (0.1-0.7 LDU, minifigure legs) are left to BrickNet. Only
    the position changes: the type and the axis stay BrickNet's.
    """
    d = frames[row, :3, 3] - mouth
    along = float(d @ axis)
    perp = float(np.linalg.norm(d - along * axis))
    if perp <= 0.5 and _BORROWED_MOUTH_DEPTH[0] <= along <= _BORROWED_MOUTH_DEPTH[1] + 1e-9:
        frames[row, :3, 3] = mouth


def _merge_ldcad(frames, types, lengths, lab: _Labels, a: int, b: int, borrowed: bool = False):
    """BrickNet rows followed by the LDCad rows ``a:b`` that no BrickNet row already describes.

    ``borrowed``: the BrickNet rows are another part's (an alias); then an anti-stud row described by exactly
    one LDCad row is seated at the mouth the part draws (:func:`_seat_antistud_at_drawn_mouth`).
    All LDCad rows (k) are tested against all BrickNet rows (m) at once, as (k, m) arrays."""
    table = lab.type_table
    lf = np.zeros((b - a, 4, 4))
    lf[:, :3] = lab.ld_frames[a:b]
    lf[:, 3, 3] = 1.0
    lt = lab.ld_types[a:b].astype(np.int16)
    ll = lab.ld_lengths[a:b].astype(np.float64)
    if len(types):
        merge_class = _merge_classes(table)
        cls_b = merge_class[np.asarray(types, np.int64)]
        cls_l = merge_class[lt.astype(np.int64)]
        same = cls_l[:, None] == cls_b[None, :]  # (k, m)
        if same.any():
            pb, ab = frames[:, :3, 3], -frames[:, :3, 1]
            pl, al = lf[:, :3, 3], -lf[:, :3, 1]
            d = pb[None, :, :] - pl[:, None, :]  # (k, m, 3)
            cos = np.abs(np.einsum("mj,kj->km", ab, al))
            dot = np.einsum("kmj,kj->km", d, al)
            along = np.abs(dot)
            perp = np.linalg.norm(d - dot[:, :, None] * al[:, None, :], axis=2)
            blen = np.asarray(lengths, np.float64)
            # sliding: the LDCad row slides, or some BrickNet row of its class does
            sliding = (ll > 0) | (same & (blen[None, :] > 0)).any(axis=1)
            hit_line = (perp <= _MERGE_POS) & (along <= np.maximum(ll[:, None], blen[None, :]) + _MERGE_POS)
            joint = _joint_kind_mask(table)[lt.astype(np.int64)]
            near = np.where(joint, _MERGE_POS_JOINT, _MERGE_POS)
            hit_point = np.linalg.norm(d, axis=2) <= near[:, None]
            hit = np.where(sliding[:, None], hit_line, hit_point)
            match = hit & (cos >= _MERGE_COS) & same  # (k, m): LDCad row k describes BrickNet row m
            keep = ~match.any(axis=1)
            # a BrickNet stud with exactly one LDCad stud drawn at its place is seated on that stud's
            # primitive (two rows: a stud drawn in two pieces, left alone)
            stud_class = _stud_merge_class(table)
            if stud_class >= 0:
                is_stud = cls_b == stud_class
                counts = match.sum(axis=0)
                rows_of = {}
                for r in np.flatnonzero(is_stud & (counts == 1)).tolist():
                    rows_of[r] = int(np.flatnonzero(match[:, r])[0])
                if rows_of:
                    frames = frames.copy()
                    for r, i in rows_of.items():
                        _seat_stud_on_primitive(frames, r, lf[i, :3, 3], -lf[i, :3, 1])
            if borrowed:
                anti_class = _antistud_merge_class(table)
                counts = match.sum(axis=0)
                rows = np.flatnonzero((cls_b == anti_class) & (counts == 1)).tolist() if anti_class >= 0 else []
                if rows:
                    frames = frames.copy()
                    for r in rows:
                        i = int(np.flatnonzero(match[:, r])[0])
                        _seat_antistud_at_drawn_mouth(frames, r, lf[i, :3, 3], -lf[i, :3, 1])
            lf, lt, ll = lf[keep], lt[keep], ll[keep]
    return (np.concatenate([frames, lf]), np.concatenate([np.asarray(types, np.int16), lt]),
            np.concatenate([np.asarray(lengths, np.float64), ll]))


@lru_cache(maxsize=4)
def _merge_classes(table: tuple) -> np.ndarray:
    """(T,) merge class code of every type code of ``table`` (:data:`_MERGE_CLASS`, else the type name)."""
    names = [_MERGE_CLASS.get(t[0], t[0]) for t in table]
    index = {c: i for i, c in enumerate(dict.fromkeys(names))}
    return np.array([index[c] for c in names], dtype=np.int64)


@lru_cache(maxsize=4)
def _joint_kind_mask(table: tuple) -> np.ndarray:
    """(T,) bool: type code ``t`` of ``table`` is a joint (kind hinge, fixed or ball), which merges with a
    BrickNet row within :data:`_MERGE_POS_JOINT` instead of :data:`_MERGE_POS`."""
    return np.array([t[1] in ("hinge", "fixed", "ball") for t in table], dtype=bool)


@lru_cache(maxsize=4)
def _antistud_merge_class(table: tuple) -> int:
    """The merge class code (:func:`_merge_classes`) of anti-studs and tubes in ``table``, -1 when it has none."""
    for i, t in enumerate(table):
        if _MERGE_CLASS.get(t[0], t[0]) == "antistud":
            return int(_merge_classes(table)[i])
    return -1


@lru_cache(maxsize=4)
def _stud_merge_class(table: tuple) -> int:
    """The merge class code (:func:`_merge_classes`) of studs in ``table``, -1 when it has no stud type."""
    for i, t in enumerate(table):
        if _MERGE_CLASS.get(t[0], t[0]) == "stud":
            return int(_merge_classes(table)[i])
    return -1


_defs_cache: dict[tuple, tuple[ConnectorDef, ...]] = {}


def part_connectors(part_id: str, library_alias_ok: bool = True,
                    sources: tuple = SOURCES) -> tuple[ConnectorDef, ...]:
    """Connectors of a part, in its local LDraw frame.

    Parameters
    ----------
    part_id : str
        LDraw id, e.g. ``"3001"`` or ``"3001.dat"`` (case-insensitive).
    library_alias_ok : bool
        Follow BrickNet aliases and LDraw ``~Moved to``/alias stubs (see
        :func:`resolve_connector_part`); frames are always in ``part_id``'s own frame.
        The LDCad rows are the part's own (inherited through its LDraw references,
        which already reach the targets of stubs), so this flag does not change them.
    sources : tuple of str
        Which sources to merge, of :data:`SOURCES` (``"bricknet"``, ``"ldcad"``, ``"segment"``,
        ``"subpart"``, ``"underside"``, ``"sticker"``); ``("bricknet",)`` gives BrickNet's labels alone. ``"subpart"``
        (the connectors a composite part's drawing gives this part as one of its pieces,
        :mod:`ldraw_data.subparts`) adds rows only when the other sources give none; so does
        ``"sticker"`` (a flat sticker's ``sticker_back``, :mod:`ldraw_data.stickers`); ``"underside"``
        (anti-studs of a plate-thick open underside, :mod:`ldraw_data.underside`) adds rows only to parts that
        have anti-stud rows, at the grid points they leave free.

    Returns
    -------
    tuple of ConnectorDef
        BrickNet's connectors in its canonical order (:attr:`ConnectorDef.index`),
        then the LDCad shadow library's that BrickNet does not already describe
        (module notes, "Second source"). Empty for a part neither source covers
        (unknown ids included: use the catalog to tell an unknown id from an
        unlabelled one).

    Raises
    ------
    ValueError
        When ``sources`` names something else.

    Notes
    -----
    Loading all labels takes about 1 s the first time (JSON parsing), then
    ~0.1 s from the on-disk cache under ``cache_dir()/connectors``; results are
    cached per process.

    Examples
    --------
    >>> studs = [c for c in part_connectors("3001") if c.type == "stud"]
    >>> len(studs), studs[0].position.tolist(), studs[0].axis.tolist()
    (8, [-30.0, 0.0, -10.0], [-0.0, -1.0, -0.0])
    """
    sources = _check_sources(sources)
    ck = (_stem(part_id), bool(library_alias_ok), sources)
    hit = _defs_cache.get(ck)
    if hit is not None:
        return hit
    arr = _part_arrays(part_id, library_alias_ok, sources)
    table = _labels().type_table
    defs = []
    for i, (t, L) in enumerate(zip(arr.types.tolist(), arr.lengths.tolist())):
        name, kind, sub, pol = table[t]
        defs.append(ConnectorDef(name, kind, sub, pol, _readonly(arr.frames[i].copy()), float(L), i))
    out = tuple(defs)
    with _lock:
        _defs_cache[ck] = out
    return out


#: The sources :func:`grid_connectors` reads one part of at a time when the LDCad table is not cached yet.
_GRID_SOURCES = ("bricknet", "ldcad", "underside")
#: How many times this process built LDCad rows for single parts (:func:`grid_connectors`); tests read it.
one_part_ldcad_reads = 0


_one_part_readers: dict = {}


def _one_part_reader(library, shadow_root):
    """The :class:`ldraw_data.ldcad.PartRowReader` :func:`grid_connectors` reads single parts' LDCad rows with,
    one per (LDraw library folder and fingerprint, shadow library folder) in this process: it memoises the
    files it has read, so the parts of a model share their primitives' work."""
    from .ldcad import PartRowReader

    key = (str(library.root), library.fingerprint, str(shadow_root))
    reader = _one_part_readers.get(key)
    if reader is None:
        reader = _one_part_readers[key] = PartRowReader(library, shadow_root)
    return reader


def grid_connectors(part_id: str) -> tuple[ConnectorDef, ...]:
    """The connectors a part's alignment box is made from (its upward studs and anti-studs: module
    ``bricklayer.element``), without making the whole connector library on an empty cache folder.

    When the LDCad shadow library's table (:func:`_ldcad_rows`) is already loaded in this process or cached on
    disk, or no shadow library is installed, this is :func:`part_connectors` of ``part_id``. Otherwise (the
    first run on an empty cache folder: building that table reads every part file, 10 s to a minute, break-it
    s26 F6) the part's own LDCad rows are read from its reference tree alone (:class:`ldraw_data.ldcad.PartRowReader`,
    the same rows the table holds) and merged with BrickNet's rows and the
    derived underside anti-studs exactly as :func:`part_connectors` merges them. Left out are the hose segment
    joints (balls and sockets, never studs or anti-studs). A library part file with no BrickNet or LDCad rows
    falls back to :func:`part_connectors` (its other sources, sub-part pieces and sticker backs, are gated on
    that: a hose such as 756, the pieces of a composite such as rigging 70501a); any other id with none (a
    primitive placed as a part, a model's embedded part) gets none: those sources read part files only, and a
    sticker back is no stud.

    Parameters
    ----------
    part_id : str
        LDraw part id (``"3001"`` or ``"3001.dat"``).

    Returns
    -------
    tuple of ConnectorDef
        In the part's LDraw frame (LDU); their ``index`` values are positions in this tuple, which may differ
        from :func:`part_connectors`' by the segment joints: use them for positions and types only.

    Raises
    ------
    LDrawTypeError
        ``part_id`` is not a str.
    MissingDependencyError
        The ``bricknet`` package (connector labels) is not installed.
    """
    global one_part_ldcad_reads
    stem = _stem(part_id)
    if _labels.cache_info().currsize:
        return part_connectors(part_id)
    where = _ldcad_cache_files()
    if where is None or (where[2].is_file() and where[3].is_file()):
        return part_connectors(part_id)
    reader = _one_part_reader(where[0], where[1])
    with _lock:
        try:
            rows = reader.rows(stem)
            table = {stem: rows} if rows else {}
        except Exception as exc:  # noqa: BLE001 - the whole table decides, as for any other part
            log.debug("one-part LDCad read of %s failed (%s); using the whole table", stem, exc)
            return part_connectors(part_id)
        one_part_ldcad_reads += 1
    lab = _with_surface_types(_merge_ldcad_labels(_bricknet_labels(), _pack_ldcad_table(table)))
    arr = _arrays_with(lab, part_id, True, _GRID_SOURCES)
    if not len(arr.types):
        # not a top-level part file (a primitive placed as a part, a model's embedded part): the segment and
        # composite-piece sources read part files only, and a sticker back is no stud: nothing for the grid
        return () if not reader.has_part(stem) else part_connectors(part_id)
    table_ = lab.type_table
    return tuple(ConnectorDef(*table_[t], _readonly(arr.frames[i].copy()), float(L), i)
                 for i, (t, L) in enumerate(zip(arr.types.tolist(), arr.lengths.tolist())))


def has_connectors(part_id: str, library_alias_ok: bool = True, sources: tuple = SOURCES) -> bool:
    """True when :func:`part_connectors` (same arguments) would return at least one connector."""
    sources = _check_sources(sources)
    lab = _labels()
    ld = lab.ld_stems.get(_stem(part_id)) if "ldcad" in sources else None
    if ld is not None and ld[1] > ld[0]:
        return True
    if "segment" in sources and _segment_joints(_stem(part_id), lab) is not None:
        return True
    if "bricknet" in sources:
        res = resolve_connector_part(part_id, library_alias_ok)
        if res is not None:
            a, b = lab.stems[res[0]]
            if b > a:
                return True
    if "subpart" in sources and _piece_rows(_stem(part_id)) is not None:
        return True
    return "sticker" in sources and _sticker_rows(_stem(part_id)) is not None


def connector_coverage(part_ids: Iterable[str], library_alias_ok: bool = True) -> tuple[int, int]:
    """How many of ``part_ids`` have connector data.

    Parameters
    ----------
    part_ids : iterable of str
    library_alias_ok : bool
        As in :func:`part_connectors`.

    Returns
    -------
    (covered, total) : (int, int)
        Counts over the distinct normalized ids.
    """
    ids = {_stem(p) for p in part_ids}
    covered = sum(1 for p in ids if has_connectors(p, library_alias_ok))
    return covered, len(ids)


def catalog_connector_coverage(library=None, library_alias_ok: bool = True) -> tuple[int, int]:
    """Connector coverage of every part file in the LDraw library's ``parts/`` folder.

    Parameters
    ----------
    library : LDrawLibrary, optional
        Defaults to :func:`ldraw_data.get_library`.
    library_alias_ok : bool
        As in :func:`part_connectors`.

    Returns
    -------
    (covered, total) : (int, int)
        Parts with at least one connector, and all part files
        (:meth:`LDrawLibrary.part_files`).

    Raises
    ------
    LibraryNotFoundError
        When no LDraw library is installed.

    Notes
    -----
    Every part is asked, so the whole composite-pieces table is built and saved first
    (:func:`build_piece_table`; read back when already saved), and the table of every sticker's back
    (:func:`ldraw_data.stickers.build_sticker_table`).
    """
    if library is None:
        from .library import get_library

        library = get_library()
    build_piece_table()
    from .stickers import build_sticker_table

    build_sticker_table()
    return connector_coverage((name for name, _ in library.part_files()), library_alias_ok)


# ----------------------------------------------------------------------------------------------
# bulk
# ----------------------------------------------------------------------------------------------


class WorldConnectors(NamedTuple):
    """Connectors of many placed parts, concatenated (see :func:`world_connector_frames`).

    Attributes
    ----------
    frames : (N, 4, 4) float64, LDU
        World frames (LDraw frame).
    owner : (N,) int64
        Index of the owning part in the input list.
    types : (N,) int16
        Type codes (:func:`connector_types`).
    index : (N,) int64
        :attr:`ConnectorDef.index` within the owner.
    lengths : (N,) float64, LDU
        :attr:`ConnectorDef.length`.
    """

    frames: np.ndarray
    owner: np.ndarray
    types: np.ndarray
    index: np.ndarray
    lengths: np.ndarray


def world_connector_frames(
    part_ids: list[str], transforms: np.ndarray, library_alias_ok: bool = True
) -> WorldConnectors:
    """World frames of the connectors of many placed parts.

    Parameters
    ----------
    part_ids : list of str, length n
        Part ids (as :func:`part_connectors`).
    transforms : (n, 4, 4) float, LDU
        Each part's placement in the LDraw world frame.
    library_alias_ok : bool
        As in :func:`part_connectors`.

    Returns
    -------
    WorldConnectors
        ``(frames (N,4,4), owner (N,), types (N,), index (N,), lengths (N,))``;
        ``frames[i] = transforms[owner[i]] @ local_frame``. Parts without
        connectors contribute nothing.

    Raises
    ------
    ValueError
        When ``transforms`` is not ``(len(part_ids), 4, 4)``.
    """
    T = np.asarray(transforms, dtype=np.float64)
    n = len(part_ids)
    if T.shape != (n, 4, 4):
        raise LDrawValueError(f"transforms must have shape ({n}, 4, 4) to match part_ids, got {T.shape}")
    arrs = [_part_arrays(p, library_alias_ok) for p in part_ids]
    counts = np.fromiter((len(a.types) for a in arrs), dtype=np.int64, count=n)
    total = int(counts.sum())
    if total == 0:
        return WorldConnectors(
            np.zeros((0, 4, 4)), np.zeros(0, np.int64), np.zeros(0, np.int16), np.zeros(0, np.int64), np.zeros(0)
        )
    local = np.concatenate([a.frames for a in arrs if len(a.types)])
    owner = np.repeat(np.arange(n, dtype=np.int64), counts)
    ends = np.cumsum(counts)
    index = np.arange(total, dtype=np.int64) - np.repeat(ends - counts, counts)
    return WorldConnectors(
        np.matmul(T[owner], local),
        owner,
        np.concatenate([a.types for a in arrs if len(a.types)]).astype(np.int16),
        index,
        np.concatenate([a.lengths for a in arrs if len(a.types)]),
    )
