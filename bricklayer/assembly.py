"""A buildable assembly sequence: which part goes on when, and from which side.

Rules (issue #8)
----------------
A part (or a kept sub-build, see below) may be added when

1. **it holds**: one of its parts stands on the ground (within
   ``TOL.ground_band``, as :mod:`bricklayer.validate.support` decides) or
   touches a part already placed through a mated connection or a resting
   contact (the support graph's edges, both ways); and
2. **it can get in**: moved in a straight line along one of the six axis
   directions - straight down onto studs first, then +X, -X, +Y, -Y, and up -
   from far away to its place, its collision mesh (each surface inset by
   ``TOL.collision_inset`` = 0.25 LDU, :mod:`ldraw_data.collision`) meets no
   placed part. Along a world axis, for two parts at axis-aligned rotations, the
   column test of :mod:`bricklayer._columns` decides (both meshes rasterised
   into 0.5 LDU columns along the axis, min and max surface height per
   column: u meets j iff in a shared column j's surface
   lies ahead of u's; exact up to the grid, blind to features thinner than
   0.5 LDU across the motion). Along other directions (joint axes, tilted
   parts' axes) and for tilted parts, the path is sampled in steps of at most 1 LDU over the stretch
   where the two parts' bounding boxes overlap (a part's walls are 1.5 LDU or
   more thick, and the insets leave another 0.5 LDU). A pair that already
   touches at the final pose (a stud's press fit) is tested with the
   press-fit allowance of the validator (:data:`~bricklayer.validate.collisions.
   PRESS_FIT_ALLOWANCE`) added to the inset and the sampled test; a pair that collides even so
   is a collision the validator reports, and is not held against the path.

Order: assembly by disassembly over a directional blocking relation
(docs/stability.md, "Assembly sequence"). Part j blocks part i in direction
d when i, leaving its place along -d, meets j (test above). Candidates are
the parts whose boxes the swept box meets, nearest first; each (part,
direction) keeps a watched blocker, so a pair is tested at most once and a
direction is re-examined only when its blocker has gone. A pair mated through
a pin, axle, bar, clip, hinge, minifigure or ball joint (connection graph, or
the validator's loose match of hands holding tools) does not block motion
within 18 degrees of its joint axis, and joint axes are candidate
directions. The highest free unit is removed when every remaining neighbour
still reaches the ground (connection graph + support contacts); the reversed
removal order is the sequence. Stage one tries straight down only, stage two
every direction, and a part mated through a click hinge (BrickNet
``hinge_*`` labels: a canopy on its hinge plate) that no straight line frees
is also tried clicked on open: turned by one of :data:`TURN_ANGLES` about the
hinge axis through the connector, it must come in straight and then turn shut
without meeting any placed part but its hinge mate (both motions sampled so
that nothing moves more than 1 LDU between samples; ``AssemblyPlan.insertions``
records the turn). When stuck: take a held step (below); else (top level) peel a few parts off a
placed sub-build (below); else dissolve a stuck sub-build; else remove a
subassembly (a stuck unit with its blockers in one direction and the units
that only it holds up, grown until the group can leave and leaves nothing
hanging, connected, at most :data:`MAX_GROUP` parts, sequenced in hand on its
own: a plate gripping a smaller plate under it leaves with the dishes hanging
from it; built in hand, it may take one level of subassemblies of its own, as
a builder makes a small block first and puts it into a bigger one held in the
hand (21309 Saturn V: a SNOT core of two bracket-and-clip halves with their
1 x 6 tiles goes down between four corner blocks, each half's plate, bracket
and clip plates put together apart and slid on); a group in pieces takes back, as its pins, up to :data:`MAX_BRIDGE`
single parts already taken out that join its pieces, when they get in with
it and stop none of the units placed in between: the half pins between a
trap door and its angle connectors, 70816); else turn in a hinged lid with what is built on it as one
subassembly (a unit on a part mated through a click hinge to a placed part:
opened, brought in straight, turned shut, all parts moving together; at most
:data:`MAX_TURN_GROUP` parts); else a pressed move, a held pair, a clip over
a part on a pin, a flexed fit (each below); else give up on the highest
blocked unit and go on.

Held steps. A pin or an axle (one part) that alone holds up a few units,
all joined to it through non-stud joints, may go in last while the builder
holds those units in place by hand (a held part is joined to the pin when
mated to it, or when the pin passes through it as drawn: an axle in a hole
drawn a little off, :meth:`_Geometry.threaded_axes`): the clevis of a Technic brick 85943
straddling a liftarm 50923 with the axle 4519 through both (21109 Exo Suit),
a bush and a beam threaded on an axle. The held units come in first, one by
one, each along a free straight line; then the pin goes in along its joint
axis, and only then must they hold (rule 1 is checked for the step as a
whole: every part reaches the ground or the assembly through parts of the
step). At most :data:`MAX_HELD` parts per step; ``AssemblyPlan.insertions``
marks the held moves (``held``), ``AssemblyPlan.held_steps`` counts the steps.

Held pairs. As a last resort before giving up on a stuck part, it and a
part it touches that blocks it, where each holds on its own once placed,
may be set down together as one move when nothing stops the pair (1788:
a chest and a panel side by side on a plate, each reaching over the other);
counted in ``AssemblyPlan.held_steps``.

Built in hand. Sub-builds and subassemblies are built in the hand, not on
the ground: their first part needs no support, each later part must touch one
placed before it, so a removal must leave the rest in one piece (the
neighbours of the removed unit still reach each other). A sub-build that falls
apart into pieces, or that has a part it cannot place, is dissolved at once
(its search stops at the first such part).

Time budget (CPU seconds of the planning process, :func:`time.process_time`,
so that a busy machine gets the same plan as an idle one): the search may
use :data:`_SEARCH_SHARE` (3/4) of it. The units
it has not reached by then are placed first, lowest first, each checked by the
two rules against the ones placed before it; those that pass are placed (the
parts the search removed follow in its order), the others are reported failed
with the reason ("floating when placed bottom-up ..." or "blocked in every
direction"), and those not checked when the whole budget is spent as "time
budget exceeded".

Cost: a pair's answer is memoized per (part, part, direction) in the build and
per (shapes, relative pose, direction) across builds; whether a pair meets at
its final pose is read from the validator's narrow phase (no FCL call).

Near mates. Two parts in contact (boxes within the broad phase's 1.25 LDU)
whose sliding connectors (clip, bar, pin, axle and their holes) mate within
the validator's looser ``LOOSE_MATE`` tolerances (0.7 LDU off the axis line,
|cos| 0.9) slide along that axis without blocking each other, as a mated pair
does: official files draw a clip up to about half an LDU off the bar it is
pressed onto (21019 Eiffel Tower: clips 61252 0.56 LDU off the handles 60478).
They are joined for rule 1 only when they also touch at the final pose.

Snap fits. Parts mated through a minifigure joint (hip, waist, shoulder,
wrist, neck) or a snap socket (turntable, tow ball, ball joint: BrickNet
``*_peg`` / ``*_socket`` labels) are pressed together with flex and turned
into pose, so the pair never blocks each other. When the search is stuck, a
stuck part and a touching part blocking it that each block the other in every
direction (:meth:`_Geometry.snap_fit`) are taken as a snap fit too: two rigid
parts so interlocked cannot meet along any line, yet the official model is
built, so one of them flexes (a turntable top 3404 clicked onto its base
3403 without a label, a slotted pin's lip 3673 through a wheel hub 6118).
So is a stuck part that one touching part alone blocks in every direction
(a clip 61252 on a handle 60478, a canopy 2466 turned down on its hinge
plate, a magnet 2959c01 in its holder 2607). Last of all, so is a stuck part
hanging on a pin whose mates stop it across the pin while one touching part
with a clip, pressed against it as drawn, stops it along the pin and
everywhere else (:meth:`_Search._pinned_snap`: the clip flexes over its edge,
10252 Beetle).
Every other part still blocks them; the plan counts such pairs
(``AssemblyPlan.snap_fits``).

Sub-builds (LDraw submodels) stay together: a sub-build is first sequenced on
its own, in its own frame and in hand (above), and then inserted whole (all
its parts move together along one direction) as one step of its parent. A
sub-build that cannot be sequenced on its own (say it is loose pieces held by
the parent) or that cannot be inserted whole is dissolved: its placements
are planned one by one in the parent.

Soft nets. Boat rigging nets (parts named "rigging") are soft plastic sheets
the builder drapes over the ship and hooks into clips: nothing blocks their
own move, though a placed net still blocks the parts that come after it, and
rule 1 still holds for them (6285 Black Seas Barracuda: a 540 LDU net crosses
the hull along any line).

Peels. At a top-level deadlock, before stuck sub-builds are dissolved, a few
parts (at most :data:`MAX_PEEL`) of a placed sub-build that alone stop a stuck
unit in one direction come off it, with what they alone hold there, when they
can leave at once and the rest of the sub-build is still built in hand
(re-planned): a builder builds the core without its connector block, sets
the wing into its slot, then pushes the block's pins through both beams
(10240 X-wing). A peeled unit still stuck later is taken apart before any
part is given up.

Pressed moves. At a deadlock, after subassemblies and before held pairs, a
stuck single part may slide in along a direction across its stud axis at
:data:`PRESS_LIFTS` LDU (one stud, then two) above its place and then be
pressed that far straight down onto its studs, as a builder pushes a part
under an overhang or through an opening and presses it on (10224 Town Hall:
the upside-down curved brick 6091 of a window sill reaches in through an
arched window 90195 onto the round end of a plate 3176 lying in the panel's
hollow back, and the panel's top cap is over it). Both legs are sampled like
a hinge turn; ``AssemblyPlan.insertions`` records ``press`` (direction,
distance).

Flexed fits. Last, before giving up on a stuck single part: it goes in
along one of its directions when every part blocking it there touches it (as
snap fits; at most 4) and lets it by with the press-fit allowance
(:data:`_PRESS_INSETS`, 1 LDU more inset): its thin edge, or theirs, flexes
that little as it goes by (10224: a helmet bubble half 61287 of a lamp
globe, its lip passing under the shoulder of the round brick 3062b inside).
The pairs count as snap fits.

Left out, added in a last step: stickers and parts without geometry (no
placement to test), MPD-embedded parts (bent hoses), mirrored placements
(official files draw bent flexible parts as mirrored segments), scaled placements
(primitives stretched into rigging lines), and flexible
parts by name (hose, string, cable, chain, rubber band, cloth, cape, flex):
their drawn shape is the bent final one, which cannot travel along a line.
"""

from __future__ import annotations

__all__ = [
    "DIRECTIONS",
    "SAMPLE_STEP",
    "TIME_BUDGET",
    "MAX_GROUP",
    "MAX_HELD",
    "MAX_BRIDGE",
    "MAX_TURN_GROUP",
    "MAX_PEEL",
    "MAX_PEEL_GROUP",
    "TURN_ANGLES",
    "PRESS_LIFTS",
    "PlannerOptions",
    "AssemblyPlan",
    "assembly_sequence",
    "write_instructions",
    "skip_reason",
]

import copy
import heapq
import logging
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ldraw_data.traits import DRAWN_BENT, title_traits

from . import _columns
from .constants import TOL

log = logging.getLogger(__name__)

#: Insertion directions (direction of motion, BrickLayer frame), in the order tried.
DIRECTIONS = np.array([[0, 0, -1], [1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1]], dtype=np.float64)
_DIR_NAMES = ("down", "+x", "-x", "+y", "-y", "up")
#: Largest gap (LDU) between two samples of an insertion path.
SAMPLE_STEP = 1.0
#: Part traits (one table with the validator, :mod:`ldraw_data.traits`, whole words): drawn bent or
#: stickers (:data:`ldraw_data.traits.DRAWN_BENT`: sticker, hose, string, cable, chain, rubber band,
#: cloth, cape, flex...) are added last; "elastic" (tyre, tire, rubber) stretch over their mates;
#: "soft" sheets (boat rigging nets 2541, 6057, 47996) are draped and hooked into clips, never moved
#: along a line: nothing blocks their own move, but a placed net blocks the parts that come after it.
_FLEX = DRAWN_BENT
_PRESS_INSETS = (0.5, 1.0)  # extra inset (LDU) tried for pairs touching at the final pose: stud, then others
#: Default planning time budget per model (seconds), see :func:`assembly_sequence`.
TIME_BUDGET = 60.0


def _name(el) -> str:
    try:
        return el.spec.name or ""
    except Exception:  # noqa: BLE001 - a part without catalogue entry has no name
        return ""


def skip_reason(placement, has_shape: bool = True, mirrored: bool = False, scaled: bool = False) -> str | None:
    """Why a part is left out of the sequence (added in a last step), or None.

    Parameters
    ----------
    placement : FlatPlacement
    has_shape : bool
        The validator found collision geometry for it.
    mirrored : bool
        Its world transform mirrors (determinant < 0).
    scaled : bool
        Its world transform is not a rotation (``|R^T R - I|`` above ``TOL.scale``, 0.1; rounded rotation
        matrices of official files reach 0.06, 10030's tilted sub-builds): a primitive stretched into a
        rope or rigging line (6285 Black Seas Barracuda draws 2,098 scaled ``4-4cyli``), which is a
        string, not a rigid part (benchmarks/official_report.md).

    Returns
    -------
    str or None
    """
    el = placement.content
    if not has_shape:
        return "no geometry (unknown part or sticker)"
    if not el._known:
        return "MPD-embedded part (sticker or bent flexible part)"
    if mirrored:
        return "mirrored placement (bent flexible segment)"
    if scaled:
        return "scaled placement (primitive stretched into a string or rope)"
    try:
        name = el.spec.name
    except Exception:  # noqa: BLE001 - a part without catalogue entry is kept
        name = ""
    if (name or "").startswith("~Moved to "):  # a renamed part is the part it moved to (209 -> 30104k02)
        from ldraw_data.catalog import get_catalog
        from ldraw_data.errors import LDrawError

        try:
            name = f"{name}: {get_catalog().resolve_moved(el.ldraw_id).name}"
        except LDrawError:  # the target is missing: judged by its own title
            pass
    if title_traits(name or "") & _FLEX:
        return f"flexible part or sticker ({name})"
    return None


# --------------------------------------------------------------------------------------------
# geometry adapter over the validator (every private attribute of bricklayer.validate is read here)


class _Geometry:
    """Inset collision geometry, joints and support of one build (adapter over the validator).

    Public validator API used: ``collision_engine`` (``n``, ``transforms``,
    ``mirrored``, ``has_shape``, ``box_lo``, ``box_hi``, ``min_z``, ``keys``,
    ``shapes``), ``connection_graph`` (``pairs``, ``pair_codes()``),
    ``support_graph`` (``grounded``, ``edges``). Private ones, all here:
    ``CollisionEngine.wa.placements`` (the flattened placements in engine
    order), ``collisions._STORE.model`` (the inset FCL BVH of a shape),
    ``collisions._collide`` (one FCL test at a relative pose),
    ``ConnectionGraph._world["axis"]`` and ``ConnectionGraph._flat_index``
    (world axes of mated connectors), ``CollisionEngine._loose_allowances`` (joint axis of loosely
    mated touching pairs), ``ldraw_data.connectors._parse_type``
    (connector family of a type name).
    """

    def __init__(self, build, separate_objects: bool = False, options: PlannerOptions | None = None):
        from ldraw_data.connectors import _parse_type, connector_types

        #: the planner's settings (sampling step, press-fit insets, joint cone, turn angles, press lifts)
        self.opt = options if options is not None else PlannerOptions()

        from .validate.collisions import _STORE, _collide
        from .validate.collisions import collision_engine
        from .validate.connections import connection_graph
        from .validate.support import support_graph

        self._store, self._collide_fn = _STORE, _collide
        eng = collision_engine(build)
        self.eng = eng
        self.n = eng.n
        self.t = eng.transforms
        # rigid inverse (scaled primitives of official files may be singular; they are skipped anyway)
        self.inv = np.zeros_like(self.t)
        if self.n:
            rt = np.transpose(self.t[:, :3, :3], (0, 2, 1))
            self.inv[:, :3, :3] = rt
            self.inv[:, :3, 3] = -np.einsum("nij,nj->ni", rt, self.t[:, :3, 3])
            self.inv[:, 3, 3] = 1.0
        self.mirrored = eng.mirrored
        self.has = eng.has_shape
        ins = TOL.collision_inset
        self.lo = eng.box_lo + ins
        self.hi = eng.box_hi - ins
        self.min_z = eng.min_z
        self.flat = eng.wa.placements
        # separate objects (stands, loose parts drawn apart) stand on their own level, as official files draw them
        sup = support_graph(build, separate_objects=separate_objects)
        self.grounded = np.asarray(sup.grounded, dtype=bool)
        self.supported = np.asarray(sup.supported, dtype=bool)
        nb = [set() for _ in range(self.n)]
        if len(sup.edges):
            for a, b in np.unique(np.sort(sup.edges, axis=1), axis=0).tolist():
                if a != b:
                    nb[a].add(b)
                    nb[b].add(a)
        cg = connection_graph(build)
        # joints: (i, j) -> world axes (unit) of the non-stud joints mating them (pins, axles, bars, clips,
        # hinges, minifigure joints, balls): the pair separates along them, and its own overlap is no block
        self.joint_axes: dict = {}
        #: pairs mated through a minifigure joint (hip, waist, shoulder, wrist, neck: BrickNet ``*_peg`` /
        #: ``*_socket`` labels): snapped together with flex and turned into pose, they never block each other
        self.snap_joints: set = set()
        #: (i, j) -> [(world axis, world pivot)] of click-hinge joints (BrickNet ``hinge_*`` labels, not
        #: minifigure joints) mating them: i may be turned about them into place (:meth:`turn_in`)
        self.hinges: dict = {}
        if len(cg.pairs):
            for a, b in cg.pairs[:, [0, 2]].tolist():
                if a != b:
                    nb[a].add(b)
                    nb[b].add(a)
            names = connector_types()
            codes = cg.pair_codes()
            fam = {}
            for c in np.unique(codes).tolist():
                fam[c] = _parse_type(names[c])[0] not in ("stud", "hole")
            fi = cg._flat_index(cg.pairs[:, 0], cg.pairs[:, 1])
            axes = cg._world["axis"][fi]
            pivots = cg._world["pos"][fi]
            minifig = {c: bool(_MINIFIG_JOINT.search(names[c])) for c in fam}
            hinge = {c: _parse_type(names[c])[0] == "hinge" for c in fam}
            for (a, _, b, _), (c1, c2), ax, pv in zip(cg.pairs.tolist(), codes.tolist(), axes, pivots):
                if a != b and (minifig[c1] or minifig[c2]):
                    self.snap_joints.update(((a, b), (b, a)))
                elif a != b and (hinge[c1] or hinge[c2]) and float(np.linalg.norm(ax)) > 1e-9:
                    for key in ((a, b), (b, a)):
                        self.hinges.setdefault(key, []).append((ax / np.linalg.norm(ax), np.asarray(pv, float)))
                if a == b or not (fam[c1] or fam[c2]):
                    continue
                nrm = float(np.linalg.norm(ax))
                if nrm < 1e-9:
                    continue
                ax = ax / nrm
                for key in ((a, b), (b, a)):
                    lst = self.joint_axes.setdefault(key, [])
                    if not any(abs(float(ax @ v)) > 0.999 for v in lst):
                        lst.append(ax)
        # pairs the graph leaves unmated but whose sliding connectors mate loosely (the validator's loose
        # match, ``LOOSE_MATE``): touching ones (hand-posed minifigure hands holding tools) are joined and
        # slide along their joint axis; near ones (boxes within the broad phase's 1.25 LDU: a clip drawn
        # 0.56 LDU off its handle bar, 21019) only slide, as a clip pressed onto its bar does
        if len(eng.pairs):
            mated = set(map(tuple, np.sort(cg.pairs[:, [0, 2]], axis=1).tolist())) if len(cg.pairs) else set()
            sliding = _sliding_parts(eng)
            rest = [(a, b) for a, b in eng.pairs.tolist()
                    if a != b and (a, b) not in mated and sliding[a] and sliding[b]]
            hit = set(map(tuple, eng.pairs[eng.hit].tolist())) if eng.hit.any() else set()
            if rest:
                for (a, b), (_, ax, *_) in eng._loose_allowances(rest).items():
                    if ax is None:
                        continue
                    ax = np.asarray(ax, dtype=np.float64)
                    for key in ((a, b), (b, a)):
                        self.joint_axes.setdefault(key, []).append(ax)
                    if (a, b) in hit:
                        nb[a].add(b)
                        nb[b].add(a)
        self.neighbors = nb
        self.hinged = {a for a, _ in self.hinges}
        self.skip = {}
        self.elastic = np.zeros(self.n, dtype=bool)
        #: soft sheets (boat rigging nets): draped into place, nothing blocks their own move; placed, they block
        self.soft = np.zeros(self.n, dtype=bool)
        if self.n:
            rr = self.t[:, :3, :3]
            scaled = np.abs(np.einsum("nji,njk->nik", rr, rr) - np.eye(3)).max(axis=(1, 2)) > TOL.scale
        for i, fp in enumerate(self.flat):
            r = skip_reason(fp, bool(self.has[i]), bool(self.mirrored[i]), bool(scaled[i]))
            if r:
                self.skip[i] = r
            elif fp.content._known and "elastic" in title_traits(_name(fp.content)):
                self.elastic[i] = True
            elif fp.content._known and "soft" in title_traits(_name(fp.content)):
                self.soft[i] = True
        self._dirs: dict = {}
        self._cands: dict = {}
        self.usable = self.has.copy()
        if self.skip:
            self.usable[list(self.skip)] = False
        # pairs whose inset meshes meet at the final pose (the validator's narrow phase, same inset)
        self.hit_pairs = set()
        #: memos of the deadlock fallbacks, kept per build across the searches that share this geometry:
        #: part -> parts that stopped its last pressed try (:meth:`press_in`) / every direction of its last
        #: flexed try (:meth:`_Search._flexed_part`); (u, j, direction) -> still meets with the allowance
        self._press_fail: dict = {}
        self._flex_fail: dict = {}
        self._flex_deep: dict = {}
        if len(eng.pairs):
            for a, b in eng.pairs[eng.hit].tolist():
                self.hit_pairs.add((a, b))
                self.hit_pairs.add((b, a))
        # broad-phase neighbours (boxes within 1.25 LDU): the pairs that can be snap fits
        self.contact = set()
        if len(eng.pairs):
            for a, b in eng.pairs.tolist():
                self.contact.add((a, b))
                self.contact.add((b, a))
        #: snap fits: minifigure joints and pairs found by :meth:`snap_fit` (both orders)
        self.snap: set = set(self.snap_joints)
        self._memo: dict = {}
        self._rasters: dict = {}

    # -- narrow phase
    def model(self, i: int, inset: float):
        return self._store.model(self.eng.shapes[self.eng.keys[i]], bool(self.mirrored[i]), inset)

    def collide(self, ma, mb, rel) -> bool:
        return self._collide_fn(ma, mb, rel)

    # -- directions
    def directions(self, i: int) -> list:
        """Candidate insertion directions of part i: ``(name, unit vector)``, in the order tried.

        A tilted part's own six axes first (down onto its studs first: the
        first stage of the search tries only the first direction, and the
        column test decides moves along a part's own axes past its aligned
        neighbours); then the six world axes (down first); then the axes of
        its pin, axle, bar, clip and hinge joints (both ways) when not along
        one of those.
        """
        hit = self._dirs.get(i)
        if hit is not None:
            return hit
        out: list = []

        def add(name, v):
            v = v / np.linalg.norm(v)
            if not any(float(v @ d) > 0.999 for _, d in out):
                out.append((name, v))

        r = self.t[i][:3, :3]
        if not np.allclose(np.abs(r), np.round(np.abs(r)), atol=1e-3):
            # a tilted part goes on along its own axes first: down onto its studs (LDraw +Y, as -Y is up)
            for k, n in enumerate(("part-y", "part+x", "part-x", "part+z", "part-z", "part+y")):
                axis = np.array([[0, 1, 0], [1, 0, 0], [-1, 0, 0], [0, 0, 1], [0, 0, -1], [0, -1, 0]][k], float)
                add(n, r @ axis)
        for n, d in zip(_DIR_NAMES, DIRECTIONS):
            add(n, d)
        for j in self.neighbors[i]:
            for ax in self.joint_axes.get((i, j), ()):
                add("joint" + _vec_name(ax), ax)
                add("joint" + _vec_name(-ax), -ax)
        self._dirs[i] = out
        return out

    def candidates(self, i: int, dv: np.ndarray) -> np.ndarray:
        """Parts whose inset boxes meet the box part i sweeps when it leaves along ``-dv``, nearest first."""
        key = (i, dv.tobytes())  # directions come from fixed arrays: equal vectors, equal bytes
        hit = self._cands.get(key)
        if hit is not None:
            return hit
        lo, hi = self.lo[i].copy(), self.hi[i].copy()
        lo[dv > 1e-9] = -np.inf
        hi[dv < -1e-9] = np.inf
        ok = self.usable & np.all(self.lo < hi, axis=1) & np.all(self.hi > lo, axis=1)
        ok[i] = False
        c = np.flatnonzero(ok)
        if len(c):
            # entry distance of the box along the removal direction -dv
            r = -dv
            ent = np.zeros(len(c))
            for a in range(3):
                if abs(r[a]) > 1e-9:
                    e = (self.lo[c, a] - self.hi[i, a]) / r[a] if r[a] > 0 else (self.hi[c, a] - self.lo[i, a]) / r[a]
                    ent = np.maximum(ent, e)
            c = c[np.argsort(ent, kind="stable")]
        self._cands[key] = c
        return c

    def blocks(self, u: int, j: int, dv: np.ndarray) -> bool:
        """Does part j stop part u from coming in along unit vector dv (equally: from leaving along -dv)?"""
        if (u, j) in self.snap:
            return False
        mk = (u, j, dv.tobytes())
        hit = self._memo.get(mk)
        if hit is None:
            hit = self._memo[mk] = self._blocks(u, j, dv)
        return hit

    def _blocks(self, u: int, j: int, dv: np.ndarray) -> bool:
        if self.elastic[u] or self.elastic[j] or self.soft[u]:
            return False
        for ax in self.joint_axes.get((u, j), ()):
            if abs(float(ax @ dv)) > self.opt.joint_cos:
                return False  # a pin, clip or hinge goes in along its joint axis: the mate's overlap is the fit
        s_lo, s_hi = self._interval(u, j, dv)
        if s_hi <= s_lo:
            return False
        rel = self.inv[u] @ self.t[j]
        dloc = self.inv[u][:3, :3] @ dv
        key = (self.eng.keys[u], bool(self.mirrored[u]), self.eng.keys[j], bool(self.mirrored[j]),
               np.round(rel[:3], 2).tobytes(), np.round(dloc, 3).tobytes(), self.opt.sample_step,
               self.opt.press_insets)
        hit = _PATH_MEMO.get(key)
        if hit is not None:
            return hit
        if (u, j) not in self.hit_pairs:
            a = self._world_axis(dv)
            blocked = self.columns_block(u, j, dv) if a is not None else None
            if blocked is not None and _COLUMN_LOG is not None:
                _COLUMN_LOG.append((u, j, a, float(dv[a]), blocked))
            if blocked is None:
                blocked = self.frame_columns_block(u, j, rel, dloc)
            if blocked is not None:
                _PATH_MEMO[key] = blocked
                return blocked
        # the two parts at their final poses: choose the inset (press fits), or ignore a real collision
        inset = self._final_inset(u, j)
        if inset is None:
            _PATH_MEMO[key] = False
            return False
        ma, mb = self.model(u, inset), self.model(j, inset)
        blocked = self._sweep(ma, mb, rel, dloc, s_lo, s_hi)
        _PATH_MEMO[key] = blocked
        return blocked

    @staticmethod
    def _world_axis(dv: np.ndarray):
        """Index of the world axis dv lies along (unit, within 1e-9), else None."""
        ad = np.abs(dv)
        a = int(ad.argmax())
        if abs(ad[a] - 1.0) > 1e-9 or ad.sum() - ad[a] > 1e-9:
            return None
        return a

    def world_raster(self, i: int, a: int):
        """Column raster of part i along world axis a (:func:`bricklayer._columns.world_raster`), kept per build;
        None when the part is not at an axis-aligned rotation."""
        k = (i, a)
        if k in self._rasters:
            return self._rasters[k]
        key = self.eng.keys[i]
        r = _columns.world_raster(self.eng.shapes[key], key, bool(self.mirrored[i]), TOL.collision_inset,
                                  self.t[i], a)
        self._rasters[k] = r
        return r

    def columns_block(self, u: int, j: int, dv: np.ndarray):
        """Column test (module :mod:`bricklayer._columns`): does u, leaving along -dv (a world axis), meet j?

        Exact up to the 0.5 LDU column grid (misses features thinner than a column across the
        motion). None when dv is no world axis or a part is tilted: use the sampled test.
        """
        a = self._world_axis(dv)
        if a is None:
            return None
        ru = self.world_raster(u, a)
        if ru is None:
            return None
        rj = self.world_raster(j, a)
        if rj is None:
            return None
        return _columns.meets(ru, rj, forward=bool(dv[a] < 0))

    def frame_columns_block(self, u: int, j: int, rel: np.ndarray, dloc: np.ndarray):
        """The column test in part u's own frame: for tilted parts moving along one of their own axes past
        a part turned by a signed permutation relative to them (parts of one tilted sub-build).

        ``rel``: j's pose in u's part frame (4, 4); ``dloc``: the insertion direction there. None when
        dloc is no axis of u or j is tilted relative to u (use the sampled test).
        """
        a = self._world_axis(dloc)
        if a is None or _columns.axis_map(rel[:3, :3]) is None:
            return None
        k = (u, "own", a)
        ru = self._rasters.get(k)
        if ru is None:
            key = self.eng.keys[u]
            ru = self._rasters[k] = _columns.world_raster(self.eng.shapes[key], key, bool(self.mirrored[u]),
                                                          TOL.collision_inset, np.eye(4), a)
        key = self.eng.keys[j]
        rj = _columns.world_raster(self.eng.shapes[key], key, bool(self.mirrored[j]), TOL.collision_inset, rel, a)
        if ru is None or rj is None:
            return None
        return _columns.meets(ru, rj, forward=bool(dloc[a] < 0))

    def _sweep(self, ma, mb, rel, dloc, s_lo, s_hi) -> bool:
        """Sampled path test: j at ``rel`` moved by ``s * dloc`` (u's frame), s over [s_lo, s_hi] every <= 1 LDU.

        One FCL test per sample; the first :data:`_SINGLE` at ``s_lo + k`` LDU (a blocker is
        usually met at once; a path shorter than that is sampled up to the first point past ``s_hi``).
        """
        n = max(1, int(np.ceil((s_hi - s_lo) / self.opt.sample_step)))
        r = rel.copy()
        first = min(n + 1, _SINGLE)
        for k in range(first):
            r[:3, 3] = rel[:3, 3] + dloc * (s_lo + k * self.opt.sample_step)
            if self.collide(ma, mb, r):
                return True
        s = s_lo + first * self.opt.sample_step
        if s > s_hi:
            return False
        while s <= s_hi + 1e-9:
            r[:3, 3] = rel[:3, 3] + dloc * s
            if self.collide(ma, mb, r):
                return True
            s += self.opt.sample_step
        return False

    def threaded_axes(self, pin: int, i: int) -> list:
        """Axes (unit, world, among the pin's own six directions) along which part ``pin`` passes through
        part ``i`` as drawn: ``i`` stops ``pin`` neither way along the axis and both ways along each of
        the two axes across it (the straight-line test). An axle through a hole drawn a little off the hole's
        axis, beyond the connection graph's tolerance (10213: liftarms 6632 whose rounded rotation rows put
        their far hole 0.87 LDU off the axle 2 through it), is still through the hole."""
        axes: list = []
        for _, d in self.directions(pin)[:6]:
            a = np.asarray(d, dtype=np.float64)
            if not any(abs(float(a @ b)) > 0.99 for b in axes):
                axes.append(a)
        out = []
        for a in axes:
            if self.blocks(pin, i, a) or self.blocks(pin, i, -a):
                continue
            across = [b for b in axes if abs(float(a @ b)) < 0.05]
            if len(across) == 2 and all(self.blocks(pin, i, b) and self.blocks(pin, i, -b) for b in across):
                out.append(a)
        return out

    def has_clip(self, j: int) -> bool:
        """Part ``j`` has a clip connector (BrickNet ``clip`` labels): a part made to flex open and grip."""
        try:
            return any(c.type == "clip" for c in self.flat[j].content.connectors)
        except Exception:  # noqa: BLE001 - a part without a catalogue entry has no connectors
            return False

    def snap_fit(self, u: int, j: int, one_sided: bool = False) -> bool:
        """Are touching parts u and j a snap fit (module notes)? Marks the pair when so.

        True when they touch (collision broad phase) and j blocks u in every
        candidate direction of u, and u blocks j in every direction of j: two
        rigid parts so interlocked cannot be put together along any line, yet
        the official model is built, so one of them flexes (a turntable top
        3404 clicked onto its base 3403, a slotted pin's lip 3673 through a
        wheel hub 6118, a clip over a bar) or turns into place. The pair then
        no longer blocks each other; every other part still does.
        ``one_sided``: the caller found j to be the only part blocking u, in every
        direction, and that is enough: a clip 61252 on a handle 60478, a canopy 2466
        on its hinge plate 4276b, a magnet 2959c01 in its holder 2607).
        """
        if (u, j) in self.snap:
            return True
        if (u, j) not in self.contact:
            return False
        for a, b in (() if one_sided else ((u, j), (j, u))):
            if not all(self.blocks(a, b, dv) for _, dv in self.directions(a)):
                return False
        self.snap.add((u, j))
        self.snap.add((j, u))
        return True

    def _final_inset(self, u: int, j: int):
        """Inset (LDU) at which parts u and j are tested on a path ending at their final poses: the common
        one, or for a pair touching there the first press-fit inset that separates them; None when even
        that does not (a collision the validator reports, not held against the path)."""
        if (u, j) not in self.hit_pairs:
            return TOL.collision_inset
        rel = self.inv[u] @ self.t[j]
        for extra in self.opt.press_insets:
            ins = TOL.collision_inset + extra
            if not self.collide(self.model(u, ins), self.model(j, ins), rel):
                return ins
        return None

    def _meets(self, u: int, pose: np.ndarray, others) -> int:
        """The first of parts ``others`` that part u at world ``pose`` meets (insets as :meth:`_final_inset`),
        or -1."""
        inv = np.linalg.inv(pose)
        for j in others:
            ins = self._final_inset(u, j)
            if ins is None:
                continue
            if self.collide(self.model(u, ins), self.model(j, ins), inv @ self.t[j]):
                return j
        return -1

    def _corners(self, u: int) -> np.ndarray:
        """(8, 3) corners of part u's inset box at its final pose (world, LDU)."""
        lo, hi = self.lo[u], self.hi[u]
        return np.array([[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])])

    def _box_at(self, u: int, pose: np.ndarray):
        """World box (lo, hi) of part u's inset box moved from its final pose to ``pose``."""
        corners = self._corners(u)
        d = pose @ self.inv[u]
        c = corners @ d[:3, :3].T + d[:3, 3]
        return c.min(axis=0), c.max(axis=0)

    def _near(self, lo, hi, alive: np.ndarray, u: int) -> np.ndarray:
        ok = alive & self.usable & np.all(self.lo < hi, axis=1) & np.all(self.hi > lo, axis=1)
        ok[u] = False
        return np.flatnonzero(ok)

    def turn_in(self, u: int, alive: np.ndarray, met: set | None = None):
        """Put part u in by turning it on its hinge: ``(name, straight direction, turn)`` or None.

        A part mated through a click hinge (a canopy on its hinge plate) is
        clicked on with the hinge open and then turned shut. For each hinge
        mate j and each opening angle (:data:`TURN_ANGLES`, both ways about
        the hinge axis): the part, turned by that angle about the hinge axis
        through the connector's origin, must come in straight along one of
        its candidate directions (sampled every <= 1 LDU over the stretch where
        its box meets the others') and then turn shut (sampled so that no
        corner of its box moves more than 1 LDU between samples) without
        meeting any live part other than j (the hinge's fingers click over
        j's, a snap fit). ``turn`` is ``(axis, pivot, degrees)`` (world).
        ``met`` collects the parts that stopped a try (to know when to try again).
        """
        met = set() if met is None else met
        box = self._corners(u)
        for (a, j), joints in self.hinges.items():
            if a != u or not alive[j]:
                continue
            for axis, pivot in joints:
                radius = float(np.linalg.norm(np.cross(box - pivot, axis), axis=1).max())
                for deg in self.opt.turn_angles:
                    n = max(2, int(np.ceil(np.radians(abs(deg)) * max(radius, 1.0) / self.opt.sample_step)) + 1)
                    poses = [_turned(self.t[u], axis, pivot, deg * (1 - k / (n - 1))) for k in range(n - 1)]
                    lo, hi = self._box_at(u, poses[0])
                    for q in poses[1:]:
                        b0, b1 = self._box_at(u, q)
                        lo, hi = np.minimum(lo, b0), np.maximum(hi, b1)
                    others = [x for x in self._near(lo, hi, alive, u).tolist() if x != j and (u, x) not in self.snap]
                    hit = next((x for q in poses for x in [self._meets(u, q, others)] if x >= 0), -1)
                    if hit >= 0:
                        met.add(hit)
                        continue
                    for name, dv in self.directions(u):
                        hit = self._straight_clear(u, poses[0], dv, alive, j)
                        if hit < 0:
                            return (f"{name} turned {deg:+d} deg on its hinge", dv,
                                    (tuple(float(x) for x in axis), tuple(float(x) for x in pivot), float(deg)))
                        met.add(hit)
        return None

    def turn_group_in(self, parts: list, h: int, m: int, alive: np.ndarray):
        """Turn a group of parts in on the click hinge of its part h with live part m (outside the group).

        As :meth:`turn_in` for the whole group moving rigidly: opened by one of :data:`TURN_ANGLES` about
        the hinge axis, it comes in straight along one of h's candidate directions or a world axis and
        turns shut, no part of it meeting a live part outside it (the hinge pair h-m excepted); both
        motions sampled as in :meth:`turn_in`. Returns ``((name, direction, turn), -1)`` on success, else
        ``(None, blocker)``: the first outside part met (-1 when none in particular).
        """
        rest = alive.copy()
        rest[list(parts)] = False
        blocker = -1
        corners = np.vstack([self._corners(p) for p in parts])
        for axis, pivot in self.hinges.get((h, m), ()):
            radius = float(np.linalg.norm(np.cross(corners - pivot, axis), axis=1).max())
            for deg in self.opt.turn_angles:
                n = max(2, int(np.ceil(np.radians(abs(deg)) * max(radius, 1.0) / self.opt.sample_step)) + 1)
                opened, hit = {}, -1
                for p in parts:
                    poses = [_turned(self.t[p], axis, pivot, deg * (1 - k / (n - 1))) for k in range(n - 1)]
                    opened[p] = poses[0]
                    lo, hi = self._box_at(p, poses[0])
                    for q in poses[1:]:
                        b0, b1 = self._box_at(p, q)
                        lo, hi = np.minimum(lo, b0), np.maximum(hi, b1)
                    others = [x for x in self._near(lo, hi, rest, p).tolist()
                              if not (p == h and x == m) and (p, x) not in self.snap]
                    if others:
                        hit = next((x for q in poses for x in [self._meets(p, q, others)] if x >= 0), -1)
                        if hit >= 0:
                            break
                if hit >= 0:
                    blocker = hit if blocker < 0 else blocker
                    continue
                tried: list = []
                for name, dv in list(self.directions(h)) + list(zip(_DIR_NAMES, DIRECTIONS)):
                    if any(float(dv @ d) > 0.999 for d in tried):
                        continue
                    tried.append(dv)
                    hit = next((x for p in parts
                                for x in [self._straight_clear(p, opened[p], dv, rest, m if p == h else -1)]
                                if x >= 0), -1)
                    if hit < 0:
                        return (f"{name} turned {deg:+d} deg on its hinge", dv,
                                (tuple(float(x) for x in axis), tuple(float(x) for x in pivot), float(deg))), -1
                    blocker = hit if blocker < 0 else blocker
        return None, blocker

    def press_in(self, u, alive, met=None):
        """Put part u in by sliding it in lifted and pressing it down onto its studs: ``(name, slide
        direction, (press direction, lift))`` or None. ``met`` collects the parts that stopped a try."""
        met = set() if met is None else met
        # a try stopped only by parts still in place fails again (more live parts only stop more): kept per
        # build, across the searches that share this geometry (sub-builds, subassemblies tried in hand)
        memo = self._press_fail
        old = memo.get(u)
        if old is not None and all(alive[x] and (u, x) not in self.snap for x in old):
            met |= old
            return None
        got = self._press_in(u, alive, met)
        if got is None:
            memo[u] = set(met)
        return got

    def _press_in(self, u, alive, met):
        dirs = self.directions(u)
        n2, d2 = dirs[0]
        for s in self.opt.press_lifts:
            # the press: from s LDU above straight along d2 into place (sampled every <= ``sample_step``)
            hit = -1
            n = int(np.ceil(s / self.opt.sample_step))
            for k in range(n + 1):
                q = self.t[u].copy()
                q[:3, 3] -= d2 * (s * k / n)
                b0, b1 = self._box_at(u, q)
                near = [x for x in self._near(b0, b1, alive, u).tolist() if (u, x) not in self.snap]
                if near:
                    hit = self._meets(u, q, near)
                    if hit >= 0:
                        break
            if hit >= 0:
                met.add(hit)
                break  # a higher lift passes the same poses
            lifted = self.t[u].copy()
            lifted[:3, 3] -= d2 * s
            for name, dv in dirs[1:]:
                if abs(float(dv @ d2)) > 1e-6:
                    continue
                hit = self._straight_clear(u, lifted, dv, alive, -1)
                if hit < 0:
                    return (f"{name} then pressed {n2} {s:g} LDU", dv, (tuple(float(x) for x in d2), float(s)))
                met.add(hit)
        return None

    def _straight_clear(self, u: int, pose: np.ndarray, dv: np.ndarray, alive: np.ndarray, mate: int) -> int:
        """The first live part (not ``mate``) part u meets coming in along unit vector dv to world ``pose``,
        or -1 when the way is clear (sampled every :data:`SAMPLE_STEP` LDU while the boxes can meet)."""
        lo, hi = self._box_at(u, pose)
        slo, shi = lo.copy(), hi.copy()
        slo[dv > 1e-9] = -np.inf
        shi[dv < -1e-9] = np.inf
        others = [x for x in self._near(slo, shi, alive, u).tolist() if x != mate and (u, x) not in self.snap]
        far = 0.0
        for x in others:
            s_hi = np.inf
            for ax in range(3):
                if abs(dv[ax]) < 1e-9:
                    continue
                e1, e2 = (lo[ax] - self.hi[x, ax]) / dv[ax], (hi[ax] - self.lo[x, ax]) / dv[ax]
                s_hi = min(s_hi, max(e1, e2))
            far = max(far, s_hi if np.isfinite(s_hi) else 0.0)
        q = pose.copy()
        for k in range(int(np.ceil(far / self.opt.sample_step)) + 1):
            q[:3, 3] = pose[:3, 3] - dv * (k * self.opt.sample_step)
            b0, b1 = self._box_at(u, q)
            near = [x for x in others if np.all(self.lo[x] < b1) and np.all(self.hi[x] > b0)]
            if near:
                hit = self._meets(u, q, near)
                if hit >= 0:
                    return hit
        return -1

    def _interval(self, u: int, j: int, dv: np.ndarray) -> tuple[float, float]:
        """Range of s >= 0 over which u's box, moved by -s * dv, overlaps j's box."""
        s_lo, s_hi = 0.0, np.inf
        for a in range(3):
            lo_u, hi_u, lo_j, hi_j = self.lo[u, a], self.hi[u, a], self.lo[j, a], self.hi[j, a]
            da = dv[a]
            if abs(da) < 1e-9:
                if lo_u >= hi_j or lo_j >= hi_u:
                    return 0.0, 0.0
                continue
            a1, a2 = (lo_u - hi_j) / da, (hi_u - lo_j) / da
            s_lo, s_hi = max(s_lo, min(a1, a2)), min(s_hi, max(a1, a2))
        return s_lo, s_hi


_PATH_MEMO: dict = {}
_STEP_IMAGES = "step-[0-9][0-9][0-9][0-9].png"  # the names write_instructions gives its pictures, and no other
_TIMED_OUT = -2  # first_blocker: the deadline passed before the answer


def _sliding_parts(eng) -> np.ndarray:
    """(n,) bool: placements of the collision engine whose part has a sliding connector (clip, bar, pin,
    axle or their holes: ``bricklayer.validate.connections.is_sliding_type``), by part id, memoized."""
    from ldraw_data.connectors import connector_types

    from .validate.connections import is_sliding_type, part_connector_arrays

    names = connector_types()
    flags = np.array([is_sliding_type(n) for n in names], dtype=bool)
    out = np.zeros(eng.n, dtype=bool)
    for i, fp in enumerate(eng.wa.placements):
        key = fp.content.ldraw_id if hasattr(fp.content, "ldraw_id") else None
        hit = _SLIDING.get(key)
        if hit is None:
            try:
                arr = part_connector_arrays(fp.content)
                hit = bool(len(arr.code) and flags[arr.code].any())
            except Exception:  # noqa: BLE001 - a part without connectors has no sliding one
                hit = False
            if key is not None:
                _SLIDING[key] = hit
        out[i] = hit
    return out


_SLIDING: dict = {}
#: Opening angles (degrees about the hinge axis) tried by :meth:`_Geometry.turn_in`, in order: 30 degree
#: steps both ways up to 120 (a design choice: click hinges and canopies open at least that far; the turned
#: parts of 6887 Allied Avenger's cockpit come in opened 30 degrees).
TURN_ANGLES = (30, -30, 60, -60, 90, -90, 120, -120)
#: Heights (LDU) above its place at which a stuck part may slide in before it is pressed straight down onto its
#: studs (:meth:`_Geometry.press_in`): one stud, then two.
PRESS_LIFTS = (4.0, 8.0)


def _pieces(nodes: set, neighbors) -> list:
    """Connected pieces (sets) of ``nodes`` in the graph ``neighbors[x]`` (iterables of node ids)."""
    todo, out = set(nodes), []
    while todo:
        x = todo.pop()
        piece, stack = {x}, [x]
        while stack:
            for y in neighbors[stack.pop()]:
                if y in todo:
                    todo.discard(y)
                    piece.add(y)
                    stack.append(y)
        out.append(piece)
    return out


def _turned(t: np.ndarray, axis: np.ndarray, pivot: np.ndarray, deg: float) -> np.ndarray:
    """World pose ``t`` turned by ``deg`` degrees about the line through ``pivot`` along unit ``axis``."""
    a = np.radians(deg)
    x, y, z = axis
    k = np.array([[0, -z, y], [z, 0, -x], [-y, x, 0]])
    r = np.eye(3) + np.sin(a) * k + (1 - np.cos(a)) * (k @ k)
    out = np.eye(4)
    out[:3, :3] = r
    out[:3, 3] = pivot - r @ pivot
    return out @ t
#: When a list, every pair the column test decides is appended as (u, j, world axis, dv[axis], blocked).
_COLUMN_LOG = None
#: Path samples taken at ``s_lo + k`` LDU first (see ``_Geometry._sweep``).
_SINGLE = 4


def _vec_name(v: np.ndarray) -> str:
    return "(" + ",".join(f"{x:.2f}".rstrip("0").rstrip(".").replace("-0", "-0") for x in v) + ")"


# --------------------------------------------------------------------------------------------
# units and planning


@dataclass
class _Unit:
    idx: np.ndarray          # flat indices (planning level) of the parts it carries
    content: object          # Element, LegoBuild, or None for a subassembly found by the planner
    pose: object             # Pose in the planning frame
    color: int | None        # sub-build colour
    label: str
    sub: PlannedAssembly | None = None  # subassembly: its own plan (order, directions, units)
    dv: np.ndarray | None = None  # insertion direction (unit vector, planning frame) once placed
    turn: tuple | None = None     # turned shut on its hinge after coming in: (axis, pivot, degrees), planning frame
    held: bool = False            # held in place by hand until the next move of a held step pins it
    press: tuple | None = None    # slid in lifted, then pressed in: (unit vector, planning frame; distance LDU)
    peeled: bool = False          # what is left of a unit after a peel (:meth:`_Search._peel`), or its peeled piece


@dataclass(frozen=True)
class Move:
    """One move of the search: a unit and the name of the direction it goes in along (``"down"``, ``"+x"``,
    ``"joint(x,y,z)"``, ``"... turned +30 deg on its hinge"``...; :attr:`AssemblyPlan.directions`). The
    unit carries the rest (direction vector, turn, press, held). Unpacks as ``unit, name``."""

    unit: _Unit
    name: str

    def __iter__(self):
        return iter((self.unit, self.name))


@dataclass
class PlannedAssembly:
    """The plan of one assembly built on the ground or in hand (a build, a sub-build, a subassembly).

    ``order``: flat indices (of the planning build) in building order; ``directions``: flat index ->
    direction name; ``units``: the :class:`Move` s in building order. A build's plan also has ``failed``
    (flat index -> reason), ``skip`` (left out of the planning: flat index -> reason), ``flat`` (the
    build's flattened placements) and ``placed`` ((n,) bool, planned and placed).
    """

    order: list
    directions: dict
    units: list
    failed: dict = field(default_factory=dict)
    skip: dict = field(default_factory=dict)
    flat: list | None = None
    placed: np.ndarray | None = None


@dataclass
class AssemblyPlan:
    """An assembly sequence of a build.

    Attributes
    ----------
    order : list of int
        Indices into ``build.flattened_placements`` in the order they are added
        (parts of a kept sub-build or subassembly in its own order).
    steps : list of list of int
        The order grouped into building steps (LDraw ``0 STEP`` groups of the
        top level; a kept sub-build or subassembly is one step).
    directions : dict of int to str
        Insertion direction of each placed part (``"down"``, ``"+x"``, ...,
        ``"joint(x,y,z)"`` along a joint axis, ``"part+x"`` along a tilted
        part's axis; a part of a kept sub-build or subassembly: its direction
        within it).
    failed : dict of int to str
        Parts that could not be placed, and why.
    skipped : dict of int to str
        Parts left out of the planning (stickers, flexible parts), added last.
    subbuilds : int
        Number of sub-builds kept together.
    dissolved : int
        Number of sub-builds planned part by part.
    sequence : LegoBuild
        The build re-ordered into steps (parts placed, then a step of skipped
        parts, then a step of failed ones), ready for ``write_ldraw``.
    seconds : float
        Time taken.
    n_parts : int
        Number of flattened placements.
    subassemblies : list of (list of int, str)
        Rigid groups the planner found that must be built apart and inserted
        whole (parts, insertion direction), at the top level.
    snap_fits : int
        Touching part pairs interlocked in every direction, taken as snap fits
        (one part flexes into place; module notes).
    insertions : list of dict
        Every move of the plan, in building order, for replaying and checking
        it: ``parts`` (flat indices moving together: one part, or a whole kept
        sub-build or subassembly once its own moves are done), ``direction``
        ((3,) world unit vector of the motion into place, BrickLayer frame),
        ``name`` (the direction's name as in ``directions``) and ``level``
        (the assembly it goes into: 0 is the model on the ground, every other
        number a sub-build or subassembly built in hand; the parts already in
        it are those of the earlier insertions of the same level). A part
        clicked on with its hinge open has ``turn``: ``axis`` and ``pivot``
        (world, LDU) of the hinge and ``degrees``: it comes in along
        ``direction`` turned by that angle about the hinge, then turns shut.
        A held move (a held step) has ``held`` True: the builder holds it until
        the next move of its level pins it. A pressed move has ``press``:
        ``direction`` ((3,) world unit vector) and ``distance`` (LDU): it comes
        in along ``direction`` to its place moved back ``distance`` along the
        press direction, then is pressed that far onto its studs.
    """

    order: list
    steps: list
    directions: dict
    failed: dict
    skipped: dict
    subbuilds: int
    dissolved: int
    sequence: object
    seconds: float = 0.0
    n_parts: int = 0
    subassemblies: list = field(default_factory=list)
    snap_fits: int = 0
    insertions: list = field(default_factory=list)
    held_steps: int = 0

    @property
    def placed_share(self) -> float:
        """Share of the planned parts (all but skipped) that were placed, 0..1."""
        planned = self.n_parts - len(self.skipped)
        return 1.0 if planned <= 0 else len(self.order) / planned

    @property
    def complete(self) -> bool:
        """Every planned part was placed."""
        return not self.failed

    def summary(self, build=None, k: int = 10) -> dict:
        """JSON-ready summary; with the build, failed parts are described by name.

        ``failure_causes`` counts failed parts by cause (the reason up to its
        first colon).
        """
        flat = build.flattened_placements if build is not None else None

        def desc(i):
            return build.describe(flat[i]) if flat is not None else str(i)

        reasons: dict = {}
        for r in self.skipped.values():
            key = r.split(" (")[0]
            reasons[key] = reasons.get(key, 0) + 1
        causes: dict = {}
        for r in self.failed.values():
            key = r.split(":")[0]
            causes[key] = causes.get(key, 0) + 1
        return {
            "parts": self.n_parts, "placed": len(self.order), "skipped": len(self.skipped),
            "failed": len(self.failed), "placed_share": round(self.placed_share, 4),
            "steps": len(self.steps), "subbuilds_kept": self.subbuilds, "subbuilds_dissolved": self.dissolved,
            "subassemblies": len(self.subassemblies), "snap_fits": self.snap_fits, "held_steps": self.held_steps,
            "skipped_reasons": reasons, "failure_causes": causes,
            "failures": [{"part": desc(i), "reason": r} for i, r in list(self.failed.items())[:k]],
            "seconds": round(self.seconds, 2),
        }


class _Planner:
    def __init__(self, max_parts_per_step: int, deadline: float, check_deadline: float,
                 separate_objects: bool = False, start: float | None = None, options: PlannerOptions | None = None):
        self.opt = opt = options if options is not None else PlannerOptions()
        self.max_step = max_parts_per_step
        self.separate_objects = separate_objects
        self.deadline = deadline              # the disassembly search stops here
        self.check_deadline = check_deadline  # the forward check of the parts it did not reach stops here
        # sub-builds (planned first, in hand) must be done by here, so the top level keeps time of its own
        self.sub_deadline = start + opt.sub_share * (deadline - start) if start is not None else deadline
        #: CPU seconds peels may still take (:meth:`_Search._peel` re-plans whole sub-builds: 10129 spent 29 s)
        self.peel_left = opt.peel_share * (deadline - start) if start is not None else float("inf")
        self.depth = 0
        self.sub_plans: dict = {}   # id(sub-build) -> its PlannedAssembly, or None when it cannot be kept
        self.kept = 0
        self.dissolved = 0
        self.snap_fits = 0          # part pairs found to be snap fits (``_Geometry.snap_fit``)
        self.held_steps = 0         # held steps (``_Search._held_step``)
        self.groups: list = []      # (flat indices at top level or None, direction) of subassemblies

    # -- units of a planning build
    @staticmethod
    def _units_of(flat, placements, base: int, pose, color, prefix: str) -> list:
        from .build import LegoBuild

        out = []
        k = base
        for i, p in enumerate(placements):
            if isinstance(p.content, LegoBuild):
                m = p.content.brick_count
                if m == 0:
                    continue
                c = p.color if p.color is not None else color
                out.append(_Unit(np.arange(k, k + m), p.content, pose @ p.pose, c,
                                 f"{prefix}{p.content.name or 'sub-build'}"))
                k += m
            else:
                out.append(_Unit(np.array([k]), flat[k].content, flat[k].pose, None, f"{prefix}#{i}"))
                k += 1
        return out

    def _children(self, unit: _Unit, flat) -> list:
        return self._units_of(flat, unit.content._placements, int(unit.idx[0]), unit.pose, unit.color,
                              unit.label + "/")

    def _expand(self, units: list, flat) -> list:
        """Replace sub-build units that cannot be sequenced on their own by their placements."""
        from .build import LegoBuild

        out = []
        for u in units:
            if isinstance(u.content, LegoBuild):
                key = id(u.content)
                if key not in self.sub_plans:
                    res = self.plan(u.content)
                    ok = not res.failed and len(res.order) > 0
                    self.sub_plans[key] = res if ok else None
                if self.sub_plans[key] is not None:
                    self.kept += 1
                    out.append(u)
                else:
                    self.dissolved += 1
                    out.extend(self._expand(self._children(u, flat), flat))
            else:
                out.append(u)
        return out

    def plan(self, build) -> dict:
        """Sequence a build in its own frame by disassembly (see module notes)."""
        g = _Geometry(build, self.separate_objects, self.opt)
        flat = g.flat
        self.depth += 1
        try:
            units = self._expand(self._units_of(flat, build._placements, 0, _identity(), None, ""), flat)
        finally:
            self.depth -= 1
        top = self.depth == 0
        s = _Search(self, g, units, g.grounded.copy(), allow_groups=True, top=top, in_hand=not top,
                    deadline=self.deadline if top else self.sub_deadline)
        removed, failed = s.run()
        return self._result(g, removed, failed)

    def _result(self, g, removed: list, failed: dict) -> dict:
        from .build import LegoBuild

        seq_units = removed[::-1]
        order: list[int] = []
        directions: dict = {}
        placed = np.zeros(g.n, dtype=bool)
        for u, name in seq_units:
            if isinstance(u.content, LegoBuild):
                sub = self.sub_plans[id(u.content)]
                off = int(u.idx[0])
                order.extend(off + i for i in sub.order)
                for i, dn in sub.directions.items():
                    directions[off + i] = dn
            elif u.sub is not None:
                order.extend(u.sub.order)
                directions.update(u.sub.directions)
            else:
                p = _planned(g, u)
                order.extend(p.tolist())
                for i in p.tolist():
                    directions[i] = name
            placed[_planned(g, u)] = True
        return PlannedAssembly(order, directions, seq_units, failed=failed, skip=dict(g.skip), flat=g.flat,
                               placed=placed)


def _planned(g, u) -> np.ndarray:
    return np.array([i for i in u.idx.tolist() if i not in g.skip and g.has[i]], dtype=np.int64)


#: Share of the time budget the disassembly search may use; the rest is for the forward check of the
#: parts it did not reach (:meth:`_Search._forward_check`).
_SEARCH_SHARE = 0.75

#: The planner's clock for its time budget: CPU seconds of this process, not wall time, so that a plan
#: does not depend on how busy the machine is (two runs of the same build on a loaded and an idle machine
#: stop at the same point of the search, up to the speed of the CPU).
_clock = time.process_time
#: Share of the search time by which sub-builds (planned first, each in hand) must be planned; a sub-build
#: not done by then is dissolved into its parts, which the top level plans (10030: planning its sub-builds
#: took 80 s of a 60 s budget, and the top level got none).
_SUB_SHARE = 0.85
#: Largest group turned in on a hinge as one (:meth:`_Search._turned_group`: a lid with what is built on
#: it; a design choice, 6969's is 2 parts).
MAX_TURN_GROUP = 12
#: Most parts a subassembly takes back to join its pieces (:meth:`_Search._bridges`; a design choice: the
#: half pins of 70816's trap doors are 2).
MAX_BRIDGE = 4
#: Largest subassembly (parts) the planner forms when single parts deadlock.
MAX_GROUP = 40
#: Most parts of a held step (:meth:`_Search._held_step`): a unit that pins others and the ones it pins, which
#: the builder holds in place by hand while it goes in (a design choice: two hands, a few parts).
MAX_HELD = 4
#: A peel (:meth:`_Search._peel`) takes off at most this many parts that block a stuck unit in one direction
#: (the pins of a core through a wing's beams, 10240), and at most :data:`MAX_PEEL_GROUP` parts with what
#: they alone hold in their unit; at most :data:`_PEEL_TRIES` candidate peels are re-planned per deadlock.
MAX_PEEL = 4
MAX_PEEL_GROUP = 12
_PEEL_TRIES = 12
#: Share of the search time peels may take in all (each re-plans what is left of a sub-build in hand).
_PEEL_SHARE = 0.1
#: Units tried as seeds of a subassembly per deadlock, highest first (12 before: 60 leaves 10213 Shuttle
#: Adventure with 16 blocked parts instead of 60, 10252 Beetle 8 instead of 13, at similar time).
_GROUP_SEEDS = 60
#: A mated pin / axle / clip / hinge pair is not a block for motion within this cosine of its joint axis.
_JOINT_COS = 0.95
_MINIFIG_JOINT = re.compile(r"_(peg|socket)$|^neck")


@dataclass(frozen=True)
class PlannerOptions:
    """Settings of the assembly planner (:func:`assembly_sequence`, :func:`write_instructions`).

    Every field defaults to today's value (the module constant of the same meaning, kept as a read-only
    default). Pass ``options=PlannerOptions(max_held=0)`` to change one; :meth:`dataclasses.replace` makes a
    variant of another. Values are checked by :meth:`__post_init__` (``ValueError`` naming the field).

    Attributes
    ----------
    search_share : float, fraction of the time budget (0..1]
        Share the disassembly search may use; the rest goes to the bottom-up check of the units it did not
        reach. Default 0.75 (:data:`_SEARCH_SHARE`; a design choice: the check is cheap per unit).
    sub_share : float, fraction of the search time (0..1]
        Sub-builds, planned first and each in hand, must be done by this share of the search time; one not
        done by then is dissolved into its parts for the top level. Default 0.85 (:data:`_SUB_SHARE`; measured:
        without it the sub-builds of the largest official models took the whole budget and the top level none).
    peel_share : float, fraction of the search time (0..1]
        Share of the search time peels may take in all (each re-plans what is left of a sub-build in hand).
        Default 0.1 (:data:`_PEEL_SHARE`; measured: uncapped, peels took half the budget of a 1,400-part model).
    sample_step : float, LDU
        Largest gap between two samples of an insertion path, of a hinge turn and of a press. Default 1.0
        (:data:`SAMPLE_STEP`): below the collision inset margins (``TOL.collision_inset``), so no wall is skipped.
    press_insets : tuple of float, LDU
        Extra insets tried, in order, for a pair touching at its final pose (a press fit): stud fits, then
        others. Default (0.5, 1.0) (the validator's press-fit allowances).
    joint_cos : float, cosine
        A mated pin / axle / clip / hinge pair does not block motion within this cosine of its joint axis
        (0.95 is about 18 degrees; :data:`_JOINT_COS`, a design choice).
    turn_angles : tuple of int, degrees
        Opening angles about a click hinge's axis tried, in order, for a part or group turned in on its
        hinge. Default 30-degree steps both ways up to 120 (:data:`TURN_ANGLES`; a design choice: click
        hinges and canopies open at least that far).
    press_lifts : tuple of float, LDU
        Heights above its place at which a stuck part may slide in before being pressed straight down onto
        its studs: one stud (4 LDU), then two. Default :data:`PRESS_LIFTS`; () turns pressed moves off.
    max_group : int, parts
        Largest subassembly formed when single parts deadlock (:data:`MAX_GROUP`, a design choice).
    max_held : int, parts
        Most parts of a held step: a pin and the units it alone holds up, held by hand while it goes in
        (:data:`MAX_HELD`, a design choice: two hands, a few parts); 0 turns held steps off.
    max_bridge : int, parts
        Most parts already taken out that a subassembly in pieces takes back to join them (its pins;
        :data:`MAX_BRIDGE`, a design choice); 0 turns bridges off.
    max_turn_group : int, parts
        Largest group turned in on a hinge as one (a lid with what is built on it; :data:`MAX_TURN_GROUP`,
        a design choice).
    max_peel : int, parts
        A peel takes off at most this many parts that block a stuck unit in one direction (:data:`MAX_PEEL`,
        a design choice: the pins of a block through two beams).
    max_peel_group : int, parts
        ... and at most this many parts with what they alone hold in their unit (:data:`MAX_PEEL_GROUP`).
    peel_tries : int
        Candidate peels re-planned per deadlock at most (:data:`_PEEL_TRIES`, a design choice).
    group_seeds : int
        Stuck units tried, highest first, as seeds of a subassembly, a peel or a pressed / flexed move per
        deadlock. Default 60 (:data:`_GROUP_SEEDS`; measured: 12 left 60 parts blocked in a 1,250-part model
        where 60 leaves 16, at similar time).
    """

    search_share: float = _SEARCH_SHARE
    sub_share: float = _SUB_SHARE
    peel_share: float = _PEEL_SHARE
    sample_step: float = SAMPLE_STEP
    press_insets: tuple = _PRESS_INSETS
    joint_cos: float = _JOINT_COS
    turn_angles: tuple = TURN_ANGLES
    press_lifts: tuple = PRESS_LIFTS
    max_group: int = MAX_GROUP
    max_held: int = MAX_HELD
    max_bridge: int = MAX_BRIDGE
    max_turn_group: int = MAX_TURN_GROUP
    max_peel: int = MAX_PEEL
    max_peel_group: int = MAX_PEEL_GROUP
    peel_tries: int = _PEEL_TRIES
    group_seeds: int = _GROUP_SEEDS

    def __post_init__(self):
        for name in ("search_share", "sub_share", "peel_share"):
            v = getattr(self, name)
            if not 0.0 < v <= 1.0:
                raise ValueError(f"PlannerOptions.{name} must be a share in (0, 1], not {v!r}")
        if not self.sample_step > 0:
            raise ValueError(f"PlannerOptions.sample_step must be a positive length in LDU, not {self.sample_step!r}")
        if not self.press_insets:
            raise ValueError("PlannerOptions.press_insets needs at least one inset (LDU), e.g. (0.5, 1.0)")
        if not 0.0 < self.joint_cos <= 1.0:
            raise ValueError(f"PlannerOptions.joint_cos must be a cosine in (0, 1], not {self.joint_cos!r}")
        for name in ("max_group", "max_held", "max_bridge", "max_turn_group", "max_peel", "max_peel_group",
                     "peel_tries", "group_seeds"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise ValueError(f"PlannerOptions.{name} must be a whole number >= 0, not {v!r}")
        object.__setattr__(self, "press_insets", tuple(float(x) for x in self.press_insets))
        object.__setattr__(self, "turn_angles", tuple(self.turn_angles))
        object.__setattr__(self, "press_lifts", tuple(float(x) for x in self.press_lifts))


class _Search:
    """Assembly by disassembly of a set of units over one geometry (module notes)."""

    def __init__(self, planner: _Planner, g: _Geometry, units: list, roots: np.ndarray, allow_groups: bool,
                 top: bool = False, in_hand: bool = False, deadline: float | None = None):
        self.pl, self.g = planner, g
        #: the search stops here (:func:`_clock` seconds): the planner's, or the earlier one of sub-builds
        self.deadline = planner.deadline if deadline is None else deadline
        self.allow_groups = allow_groups
        self.top_level = top
        #: built in hand (a sub-build or a subassembly): no ground; every part joins the ones placed
        #: before it, so a removal must leave the rest in one piece (``roots`` unused)
        self.in_hand = in_hand
        self.n_left = 0
        #: a unit that holds waits for every neighbour, not only the ones it cuts off (set for subassemblies)
        self.wake_all = False
        self._press_met: dict = {}   # unit -> parts that stopped its last pressed try (:meth:`_pressed_part`)
        self._bad_peels: set = set()  # peels that failed (:meth:`_peel`)
        #: the search of a subassembly built in hand: its own subassemblies take none (one level of nesting)
        self.nested = False
        self._turn_met: dict = {}
        n = g.n
        self.units: list = []
        self.parts: list = []
        self.gr: list = []
        self.owner = np.full(n, -1)
        self.alive = np.zeros(n, dtype=bool)
        self.gone: list = []
        self.roots = roots
        self.nbr: list = []
        self.ptr: dict = {}
        self._own_sets: dict = {}
        self._bad_groups: set = set()
        for u in units:
            self._add(u)

    # -- unit bookkeeping
    def _add(self, u: _Unit) -> int:
        k = len(self.units)
        p = _planned(self.g, u)
        self.units.append(u)
        self.parts.append(p)
        self.gr.append(bool(self.roots[p].any()) if len(p) else False)
        self.gone.append(len(p) == 0)
        self.nbr.append(set())
        if len(p):
            self.n_left += 1
            self.owner[p] = k
            self.alive[p] = True
            for i in p.tolist():
                for j in self.g.neighbors[i]:
                    o = int(self.owner[j])
                    if o >= 0 and o != k and self.alive[j]:
                        self.nbr[k].add(o)
                        self.nbr[o].add(k)
        return k

    def _drop(self, k: int, removed: bool = True):
        """Take unit k out (removed, failed or merged into another unit)."""
        if not self.gone[k]:
            self.n_left -= 1
        self.gone[k] = True
        self.alive[self.parts[k]] = False
        for v in self.nbr[k]:
            self.nbr[v].discard(k)

    def _replace(self, ks: list, new_units: list) -> list:
        # a root taken apart (a dissolved sub-build that stood on the ground or on a left-out part) hands its
        # footing on: the pieces it leaves reaching no root are rooted again by :meth:`_float_roots`
        lost = not self.in_hand and any(self.gr[k] and not self.gone[k] for k in ks)
        for k in ks:
            self._drop(k)
        new = [self._add(u) for u in new_units]
        if lost:
            seen: set = set()
            for _ in self._walk([v for v in range(len(self.units)) if not self.gone[v] and self.gr[v]], seen):
                pass
            for k0 in new:
                if not self.gone[k0] and k0 not in seen:
                    for v in self._float_roots(list(self._walk([k0], seen))):
                        self.gr[v] = True
        return new

    def grounded(self, k: int) -> bool:
        return self.gr[k]

    def top(self, k: int) -> float:
        return float(self.g.hi[self.parts[k], 2].max())

    # -- tests
    def _dirs(self, k: int) -> list:
        from .build import LegoBuild

        u = self.units[k]
        p = self.parts[k]
        if len(p) == 1:
            return self.g.directions(int(p[0]))
        out = [(n, d) for n, d in zip(_DIR_NAMES, DIRECTIONS)]
        if isinstance(u.content, LegoBuild):
            r = np.asarray(u.pose.matrix)[:3, :3]
            if not np.allclose(np.abs(r), np.round(np.abs(r)), atol=1e-3):
                # a tilted sub-build goes in along its own axes first, down (its -z) first
                own = []
                for c, n in ((2, "sub-z"), (0, "sub+x"), (0, "sub-x"), (1, "sub+y"), (1, "sub-y"), (2, "sub+z")):
                    own.append((n, -r[:, c] if n.endswith(("-z", "-x", "-y")) else r[:, c]))
                out = own + out
        return out

    def first_blocker(self, k: int, di: int, dv: np.ndarray) -> int:
        """A live part (not of unit k) that stops unit k along direction ``dv``, or -1; ``_TIMED_OUT``
        when the search's deadline passes first (a sub-build of thousands of parts tests long).

        Watched blocker: the scan over (own part, candidate) resumes where it
        stopped; candidates passed are dead, own, or do not block, which stays
        so while the search goes on.
        """
        g, alive, own = self.g, self.alive, self.parts[k]
        key = (k, di)
        pi, p = self.ptr.get(key, (0, 0))
        mine = None
        n = 0
        while pi < len(own):
            i = int(own[pi])
            c = g.candidates(i, dv)
            while p < len(c):
                j = int(c[p])
                n += 1
                if n % 64 == 0 and _clock() > self.deadline:
                    self.ptr[key] = (pi, p)
                    return _TIMED_OUT
                if alive[j]:
                    if len(own) > 1:
                        if mine is None:
                            mine = self._mine(k)
                        if j in mine:
                            p += 1
                            continue
                    if g.blocks(i, j, dv):
                        self.ptr[key] = (pi, p)
                        return j
                p += 1
            pi, p = pi + 1, 0
        self.ptr[key] = (pi, 0)
        return -1

    def _mine(self, k: int) -> set:
        m = self._own_sets.get(k)
        if m is None:
            m = self._own_sets[k] = set(self.parts[k].tolist())
        return m

    def all_blockers(self, parts: set, dv: np.ndarray) -> set:
        g, alive = self.g, self.alive
        out = set()
        for i in parts:
            for j in g.candidates(i, dv).tolist():
                if alive[j] and j not in parts and j not in out and g.blocks(i, j, dv):
                    out.add(j)
        return out

    def cut_off(self, ks: set, cap: int = 400) -> list:
        """Remaining neighbours of units ``ks`` that would no longer reach a root without them.

        Best-first search from each neighbour towards low units (the ground is
        usually a few steps down); a search that visits more than ``cap``
        units counts as cut off (the unit waits rather than risk stranding
        parts).
        """
        good: set = set()
        out = []
        nb = set()
        for k in ks:
            nb |= self.nbr[k]
        nb -= ks
        if self.in_hand:
            return self._splits(ks, nb)
        for v in nb:
            if self.gone[v] or v in good or self.grounded(v):
                continue
            seen = set(ks) | {v}
            heap = [(self.zkey[v], v)]
            found = False
            while heap and len(seen) < cap:
                _, x = heapq.heappop(heap)
                if x in good or self.grounded(x):
                    found = True
                    break
                for y in self.nbr[x]:
                    if y not in seen and not self.gone[y]:
                        seen.add(y)
                        heapq.heappush(heap, (self.zkey[y], y))
            if found:
                good.update(seen - ks)
            else:
                out.append(v)
        return out

    def _splits(self, ks: set, nb: set) -> list:
        """In hand: the neighbours of units ``ks`` that the rest no longer joins to the others without them.

        The rest was one piece, so it stays one piece when the neighbours of ``ks`` still reach each other
        (a breadth-first walk from one of them, stopping once all are found)."""
        nb = {v for v in nb if not self.gone[v]}
        if len(nb) <= 1:
            return []
        start = next(iter(nb))
        want = set(nb) - {start}
        for x in self._walk([start], set(ks)):
            want.discard(x)
            if not want:
                break
        return sorted(want)

    def _walk(self, start: list, seen: set):
        """Live units joined to units ``start`` through neighbours, each yielded once (depth first, the
        start units first); units in ``seen`` are passed over, and every unit reached is added to it."""
        stack = [k for k in start if k not in seen]
        seen.update(stack)
        while stack:
            k = stack.pop()
            yield k
            for v in self.nbr[k]:
                if v not in seen and not self.gone[v]:
                    seen.add(v)
                    stack.append(v)

    def _fail_disconnected(self, failed: dict):
        """In hand: pieces not joined to the largest one are loose (the parent holds them); fail them."""
        seen: set = set()
        comps = [list(self._walk([k0], seen)) for k0 in range(len(self.units)) if not self.gone[k0] and k0 not in seen]
        comps.sort(key=lambda c: -sum(len(self.parts[k]) for k in c))
        for comp in comps[1:]:
            for k in comp:
                for i in self.parts[k].tolist():
                    failed[i] = "not joined to the rest of its sub-build (a loose piece its parent holds)"
                self._drop(k)

    def free_direction(self, k: int, full: bool = True):
        """(name, None) for the first free direction of unit k, else (None, {name: blocker part}).

        ``full`` False: straight down only (the first stage of the search)."""
        blockers = {}
        dirs = self._dirs(k)
        for di, (dname, dv) in enumerate(dirs if full else dirs[:1]):
            j = self.first_blocker(k, di, dv)
            if j == _TIMED_OUT:
                return None, blockers  # the search is out of time: it stops at the next unit
            if j < 0:
                self.units[k].dv = dv
                return dname, None
            blockers[dname] = j
        p = self.parts[k]
        if full and len(p) == 1 and int(p[0]) in self.g.hinged:
            met = self._turn_met.get(k)
            if met is None or not all(self.alive[x] for x in met):
                met = set()
                got = self.g.turn_in(int(p[0]), self.alive, met)
                if got is not None:
                    name, dv, turn = got
                    self.units[k].dv, self.units[k].turn = dv, turn
                    return name, None
                self._turn_met[k] = met
        return None, blockers

    # -- the search
    def run(self) -> tuple[list, dict]:
        g = self.g
        removed: list = []
        failed: dict = {}
        self.zkey: dict = {}
        for k in range(len(self.units)):
            if not self.gone[k]:
                self.zkey[k] = float(g.min_z[self.parts[k]].min())
        # parts reaching no root at all: floating in the model as drawn (in hand: pieces apart)
        if self.in_hand:
            self._fail_disconnected(failed)
            if failed:
                return removed, failed  # loose pieces: the sub-build is dissolved anyway
        else:
            self._fail_floating(failed)
        why: dict = {}
        heap = [(-self.top(k), k) for k in range(len(self.units)) if not self.gone[k]]
        heapq.heapify(heap)
        waiters: dict = {}
        full = False
        while True:
            while heap:
                if _clock() > self.deadline:
                    break
                _, k = heapq.heappop(heap)
                if self.gone[k]:
                    continue
                if not self.nbr[k] and not (self.in_hand and self.n_left == 1) and not self.grounded(k):
                    why[k] = ("lost", None)
                    continue
                dep = self.cut_off({k})
                if dep:
                    why[k] = ("holds", int(self.parts[dep[0]][0]))
                    # in a subassembly built in hand, k splits the rest while two of its neighbours join
                    # only through it: any neighbour leaving can change that, not only the ones cut off
                    for v in (self.nbr[k] if self.wake_all else dep):
                        waiters.setdefault(v, []).append(k)
                    continue
                dname, blockers = self.free_direction(k, full)
                if dname is None:
                    why[k] = ("blocked", blockers)
                    for v in set(int(self.owner[b]) for b in blockers.values()):
                        waiters.setdefault(v, []).append(k)
                    continue
                self._drop(k)
                removed.append(Move(self.units[k], dname))
                for w in waiters.pop(k, ()):
                    if not self.gone[w]:
                        heapq.heappush(heap, (-self.top(w), w))
            left = [k for k in range(len(self.units)) if not self.gone[k]]
            if not left:
                break
            if not full and _clock() <= self.deadline:
                # stage two: the units stuck going straight down try every direction
                full = True
                waiters = {}
                heap = [(-self.top(k), k) for k in left]
                heapq.heapify(heap)
                continue
            if _clock() > self.deadline:
                if self.top_level:
                    removed.extend(self._forward_check(left, failed))
                else:
                    for k in left:
                        for i in self.parts[k].tolist():
                            failed[i] = "time budget exceeded: not reached"
                break
            new = self._unstick(left, why, removed, failed)
            full = False
            waiters = {}
            heap = [(-self.top(k), k) for k in range(len(self.units)) if not self.gone[k]]
            heapq.heapify(heap)
            for k in new:
                if not self.gone[k]:
                    self.zkey[k] = float(g.min_z[self.parts[k]].min())
        return removed, failed

    def _forward_check(self, left: list, failed: dict) -> list:
        """Units the search did not reach, placed bottom-up and each checked against the ones before it.

        The disassembly ran out of time with ``left`` still in the model: they come first in the
        assembly order, lowest first among those standing on the ground or touching a unit already
        ordered (a breadth-first walk of the support and connection graph). Each is checked by the two rules against the units of ``left``
        placed before it (support: it stands on the ground or touches one of them; path: a free
        direction). Returns ``(unit, direction)`` in removal order (the reverse of placing) for the
        ones that pass; the others are reported failed with the reason, and so is everything left
        when :attr:`_Planner.check_deadline` passes.
        """
        g = self.g
        # lowest first among the units that stand on the ground or touch one already in the order
        # (support and connection neighbours), so each comes after something that holds it
        key = {k: (self.zkey[k], self.top(k), k) for k in left}
        heap = [key[k] for k in left if self.grounded(k)]
        heapq.heapify(heap)
        seen = {h[2] for h in heap}
        order = []
        while heap:
            k = heapq.heappop(heap)[2]
            order.append(k)
            for i in self.parts[k].tolist():
                for j in g.neighbors[i]:
                    v = int(self.owner[j])
                    if v in key and v not in seen:
                        seen.add(v)
                        heapq.heappush(heap, key[v])
        order += sorted((k for k in left if k not in seen), key=lambda k: key[k])
        present = np.zeros(g.n, dtype=bool)
        passed = []
        for n_done, k in enumerate(order):
            parts = self.parts[k]
            if _clock() > self.pl.check_deadline:
                for v in order[n_done:]:
                    for i in self.parts[v].tolist():
                        failed[i] = "time budget exceeded: not reached"
                break
            mine = set(parts.tolist())
            holds = self.grounded(k) or any(present[j] for i in mine for j in g.neighbors[i])
            dname, blockers = None, {}
            for dn, dv in self._dirs(k):
                b = next((j for i in mine for j in g.candidates(i, dv).tolist()
                          if present[j] and j not in mine and g.blocks(i, j, dv)), -1)
                if b < 0:
                    dname = dn
                    self.units[k].dv = dv
                    break
                blockers[dn] = b
            present[parts] = True
            if holds and dname is not None:
                passed.append(Move(self.units[k], dname))
                continue
            text = ("floating when placed bottom-up after the time budget ran out: touches no part placed "
                    "before it" if not holds else self._why_text(("blocked", blockers)))
            for i in parts.tolist():
                failed[i] = text
        for k in left:
            self._drop(k)
        return passed[::-1]

    def _fail_floating(self, failed: dict):
        """Components reaching no root stand on every unit that touches a part left out of the
        planning that the validator finds supported (a vault on its MPD-embedded tyres, 7326; WALL-E's
        wheels in their treads, 21303), or else on their own lowest unit when a left-out part lies
        under it (a vehicle on its flexible treads): those units are the component's roots
        (:meth:`_float_roots`). Any other component is floating (reported). Objects drawn apart are
        roots already when ``separate_objects`` is on (the support graph's rule: a gap of
        ``SEPARATE_GAP`` to every other object)."""
        seen: set = set()
        for _ in self._walk([k for k in range(len(self.units)) if not self.gone[k] and self.grounded(k)], seen):
            pass
        for k0 in range(len(self.units)):
            if self.gone[k0] or k0 in seen:
                continue
            comp = list(self._walk([k0], seen))
            roots = self._float_roots(comp)
            parts = self.parts[min(comp, key=lambda x: (self.zkey[x], x))]
            if roots:
                for k in roots:
                    self.gr[k] = True
                log.info("assembly: %d units stand on %d of their own, lowest %s", len(comp), len(set(roots)),
                         self._desc(int(parts[0])))
                continue
            for k in comp:
                for i in self.parts[k].tolist():
                    failed[i] = ("floating: not on the ground and not connected to or resting on any part "
                                 "that is (the model as drawn)")
                self._drop(k)

    def _float_roots(self, comp: list) -> list:
        """Roots of a component reaching no root: its units touching a left-out part that the validator
        finds supported (that part is added in the last step), else its lowest unit when a left-out part
        lies under it, its top within ``TOL.ground_band`` below the unit's bottom (a vehicle on its
        flexible treads; before, any depth counted: 6285 rooted a flag 700 LDU above a hull part that the
        validator finds floating); [] when it floats."""
        g = self.g
        low = min(comp, key=lambda x: (float(g.min_z[self.parts[x]].min()), x))
        parts = self.parts[low]
        # what lies under it: a left-out part (treads, hoses) or nothing at all
        lo, hi = g.lo[parts].min(axis=0), g.hi[parts].max(axis=0)
        under = np.flatnonzero(np.all(g.lo[:, :2] < hi[:2], axis=1) & np.all(g.hi[:, :2] > lo[:2], axis=1)
                               & (g.hi[:, 2] <= lo[2] + 1.0) & (g.hi[:, 2] >= lo[2] - TOL.ground_band))
        under = [j for j in under.tolist() if self.owner[j] < 0 or j in g.skip]
        roots = [k for k in comp if any((self.owner[j] < 0 or j in g.skip) and g.supported[j]
                                        for i in self.parts[k].tolist() for j in g.neighbors[i])]
        if under and not roots:
            roots.append(low)
        return roots

    def _unstick(self, left: list, why: dict, removed: list, failed: dict) -> list:
        """Deadlock: dissolve a stuck sub-build, else remove a subassembly, else give up on one unit."""
        from .build import LegoBuild

        # snap fits between a stuck part and the part blocking it everywhere (one pass over the stuck)
        found = 0
        for k in left:
            w = why.get(k)
            if not w or w[0] != "blocked" or not w[1]:
                continue
            only = set(w[1].values())
            for j in only:
                for i in self.parts[k].tolist():
                    one = len(only) == 1
                    if (i, j) in self.g.contact and (i, j) not in self.g.snap and self.g.snap_fit(i, j, one):
                        found += 1
            if _clock() > self.deadline:
                break
        if found:
            self.pl.snap_fits += found
            why.clear()
            return []
        step = self._held_step(left, why)
        if step:
            self.pl.held_steps += 1
            for k, dname in step:
                self._drop(k)
                removed.append(Move(self.units[k], dname))
            return []
        if self.top_level:
            new = self._peel(left, why)
            if new is not None:
                return new
        subs = [k for k in left if isinstance(self.units[k].content, LegoBuild) and len(self.parts[k]) > 1]
        if subs:
            new_units = []
            for k in subs:
                self.pl.dissolved += 1
                self.pl.kept -= 1
                new_units.extend(self.pl._expand(self.pl._children(self.units[k], self.g.flat), self.g.flat))
            return self._replace(subs, new_units)
        if self.allow_groups:
            grp = self._find_group(left, removed) or self._turned_group(left)
            if grp is not None:
                ks, dname, sub, dv, *turn = grp
                u = _Unit(np.array(sorted(sub.order)), None, None, None, "subassembly", sub=sub, dv=dv,
                          turn=turn[0] if turn else None)
                new = self._replace(list(ks), [u])
                self._drop(new[0])
                removed.append(Move(u, dname))
                return []
        got = self._pressed_part(left, why)
        if got is not None:
            k, dname = got
            self._drop(k)
            removed.append(Move(self.units[k], dname))
            return []
        pair = self._held_pair(left, why)
        if pair is not None:
            u, dname = pair
            removed.append(Move(u, dname))
            return []
        found = self._pinned_snap(left, why) or self._flexed_part(left, why)
        if found:
            self.pl.snap_fits += found
            why.clear()
            return []
        # a unit left by a peel that is still stuck is taken apart before any part is given up
        peeled = [k for k in left if self.units[k].peeled and self.units[k].sub is not None]
        if peeled:
            return self._replace(peeled, [v for k in peeled for v in self._unit_parts_units(self.units[k])])
        # give up on the highest unit that is blocked (freeing what it blocks), else the highest
        blocked = [k for k in left if why.get(k, ("",))[0] == "blocked"]
        k = max(blocked or left, key=lambda x: (self.top(x), x))
        text = self._why_text(why.get(k))
        if why.get(k, ("",))[0] == "lost" and not any(self.g.neighbors[i] for i in self.parts[k].tolist()):
            # a part of a dissolved sub-build that touches nothing at all: floating as drawn
            text = ("floating: not on the ground and not connected to or resting on any part that is "
                    "(the model as drawn)")
        if not self.top_level:
            # a sub-build or subassembly with a part it cannot place is dissolved (or not formed) whatever
            # else happens: stop here
            for v in left:
                for i in self.parts[v].tolist():
                    failed[i] = text if v == k else "not reached: its sub-build stopped at a part it cannot place"
                self._drop(v)
            return []
        for i in self.parts[k].tolist():
            failed[i] = text
        self._drop(k)
        return []

    def _peel(self, left: list, why: dict):
        """Deadlock (top level, before stuck sub-builds are dissolved): peel a few parts off a placed unit.

        A stuck kept sub-build k that, along one of its directions, only a few parts (at most
        :data:`MAX_PEEL`) of other multi-part units stop (10240 X-wing: each wing is set into a slot of the Technic core and
        held there by two long pins of a connector block, a nested sub-build of the core, that go through
        the core's beam and the wing's). Those parts come off their units, with what they alone hold
        there (the pieces cut off from the unit's largest piece; at most :data:`MAX_PEEL_GROUP` parts in
        all, two at least stay), when each peeled piece can leave along a straight line at once (no
        cascade) and what is left of its unit is still built in hand (re-planned, its kept nested
        sub-builds as units). Built forwards: the unit without them goes in, then the wing into its slot,
        then the peeled piece (the connector block, pushed along its pins through both beams), each an
        ordinary move checked by the rules. Smallest peel first, one per deadlock; returns the new units
        (see :meth:`_replace`) or None. Failed peels are not tried again, and peels take at most
        :data:`_PEEL_SHARE` of the search time in all."""
        if self.pl.peel_left <= 0:
            return None
        t0 = _clock()
        try:
            return self._peel_now(left, why)
        finally:
            self.pl.peel_left -= _clock() - t0

    def _peel_now(self, left: list, why: dict):
        t0 = _clock()
        g = self.g
        bad = self._bad_peels
        cands = []
        from .build import LegoBuild

        for k in sorted(left, key=lambda x: -self.top(x))[:self.pl.opt.group_seeds]:
            w = why.get(k)
            # a stuck kept sub-build (the wing): a single part has the other fallbacks (held steps, presses)
            if not w or w[0] != "blocked" or not isinstance(self.units[k].content, LegoBuild):
                continue
            own = self._mine(k)
            for dname, dv in self._dirs(k):
                if _clock() > self.deadline:
                    break
                b: set = set()
                ok = True
                for i in own:
                    for j in g.candidates(i, dv).tolist():
                        if self.alive[j] and j not in own and j not in b and g.blocks(i, j, dv):
                            b.add(j)
                            if len(b) > self.pl.opt.max_peel:
                                ok = False
                                break
                    if not ok:
                        break
                if not ok or not b:
                    continue
                by: dict = {}
                for j in b:
                    o = int(self.owner[j])
                    if o == k or self.gone[o] or len(self.parts[o]) <= 1:
                        ok = False
                        break
                    by.setdefault(o, set()).add(j)
                if not ok:
                    continue
                size = 0
                for o in list(by):
                    by[o] = by[o] | self._cut_loose(o, by[o])
                    size += len(by[o])
                    ok = ok and len(self.parts[o]) - len(by[o]) >= 2
                if not ok or size > self.pl.opt.max_peel_group:
                    continue
                key = frozenset((o, frozenset(p)) for o, p in by.items())
                if key in bad:
                    continue
                if not all(self._piece_free(p) for p in by.values()):
                    bad.add(key)
                    continue
                cands.append((size, -self.top(k), k, by, key))
        cands.sort(key=lambda c: c[:3])
        seen: set = set()
        tries = 0
        for _size, _top, _k, by, key in cands:
            if key in seen:
                continue
            seen.add(key)
            if tries >= self.pl.opt.peel_tries or _clock() > self.deadline or self.pl.peel_left <= _clock() - t0:
                break
            tries += 1
            new_units: list = []
            for o, peel in by.items():
                rest = self._replan_without(o, peel)
                if rest is None:
                    break
                new_units.extend(self._peeled_piece(o, peel))
                u = self.units[o]
                new_units.append(_Unit(np.array(sorted(rest.order)), None, None, None, f"{u.label} (peeled)",
                                       sub=rest, peeled=True))
            else:
                return self._replace(list(by), new_units)
            bad.add(key)
        return None

    def _cut_loose(self, o: int, drop: set) -> set:
        """Parts of unit o that, with parts ``drop`` gone, are cut off from its largest piece."""
        pieces = sorted(_pieces(set(self.parts[o].tolist()) - drop, self.g.neighbors), key=len, reverse=True)
        return set().union(*pieces[1:]) if len(pieces) > 1 else set()

    def _piece_free(self, s: set) -> bool:
        """Parts ``s`` can leave together along a straight line now (an axis or one of their directions)."""
        g = self.g
        dirs = list(DIRECTIONS)
        for i in s:
            dirs += [d for _, d in g.directions(i)]
        return any(not any(self.alive[j] and j not in s and g.blocks(i, j, dv)
                           for i in s for j in g.candidates(i, dv).tolist()) for dv in dirs)

    def _child_units(self, u: _Unit) -> list:
        """The units one level down of a multi-part unit: a kept sub-build's placements, a subassembly's
        (or peeled unit's) own units, else its single parts."""
        from .build import LegoBuild

        g = self.g
        if isinstance(u.content, LegoBuild):
            return self.pl._expand(self.pl._children(u, g.flat), g.flat)
        if u.sub is not None:
            return [copy.copy(v) for v, _ in u.sub.units]
        return [_Unit(np.array([i]), g.flat[i].content, g.flat[i].pose, None, f"#{i}") for i in u.idx.tolist()]

    def _units_without(self, u: _Unit, drop: set) -> list:
        """The units of multi-part unit u without parts ``drop``: those holding none kept whole, the others
        opened further."""
        out = []
        for v in self._child_units(u):
            ids = set(v.idx.tolist())
            if not ids & drop:
                out.append(copy.copy(v))
            elif len(ids) > 1:
                out.extend(self._units_without(v, drop))
        return out

    def _unit_parts_units(self, u: _Unit) -> list:
        """A peeled unit taken apart: its units, subassemblies among them opened down to single parts or
        kept sub-builds."""
        out = []
        for v in self._child_units(u):
            out.extend(self._unit_parts_units(v) if v.sub is not None and v.content is None else [v])
        return out

    def _replan_without(self, o: int, drop: set):
        """Plan (``order``, ``directions``, ``units``) of unit o without parts ``drop``, built in hand, or None."""
        units = self._units_without(self.units[o], drop)
        if not units:
            return None
        s = _Search(self.pl, self.g, units, np.zeros(self.g.n, dtype=bool), allow_groups=True, in_hand=True,
                    deadline=self.deadline)
        s.nested = self.nested
        rem, fail = s.run()
        if fail or not rem:
            return None
        res = self.pl._result(self.g, rem, {})
        return PlannedAssembly(res.order, res.directions, res.units)

    def _peeled_piece(self, o: int, peel: set) -> list:
        """Units of the parts ``peel`` taken off unit o: a kept nested sub-build that is exactly them, else
        one subassembly built in hand, else single parts."""
        from .build import LegoBuild

        g = self.g

        def kept(u):
            for v in self._child_units(u) if (isinstance(u.content, LegoBuild) or u.sub is not None) else ():
                ids = set(_planned(g, v).tolist())
                if ids == peel and isinstance(v.content, LegoBuild):
                    return copy.copy(v)
                if peel <= ids and len(ids) > len(peel):
                    return kept(v)
            return None

        got = kept(self.units[o])
        if got is not None:
            return [got]
        singles = [_Unit(np.array([i]), g.flat[i].content, g.flat[i].pose, None, f"#{i} peeled") for i in sorted(peel)]
        if len(peel) > 1:
            s = _Search(self.pl, g, singles, np.zeros(g.n, dtype=bool), allow_groups=False, in_hand=True,
                        deadline=self.deadline)
            rem, fail = s.run()
            if not fail and rem:
                res = self.pl._result(g, rem, {})
                return [_Unit(np.array(sorted(res.order)), None, None, None, "peeled piece",
                              sub=PlannedAssembly(res.order, res.directions, res.units),
                              peeled=True)]
        return singles

    def _pinned_snap(self, left: list, why: dict) -> int:
        """Deadlock, last resort: snap fits of a part on a pin gripped by a clip; returns how many were found.

        A stuck single part u mated through non-stud joints to live parts (the pin it hangs on) can leave
        only along a joint axis: its mates stop it across. When one touching part j with a clip connector
        (BrickNet ``clip`` labels: the part made to flex open and grip), which u meets at its final pose as
        drawn (their inset meshes overlap: pressed together), stops it both ways along the axis, and every
        other direction is stopped by j or a mate, j's clip flexes over u (10252 Beetle: the clip plate
        60897 gripping the edge of the plate 18677 that hangs on the pin of brick 2458, 0.8 LDU deep as
        drawn). It is the one-sided snap fit of :meth:`_Geometry.snap_fit` with the mates' stops across
        their own axis, which every part on a pin has, not held against it. Tried after held pairs: a
        clip is required, else a brick beside a corner brick would pass (10213)."""
        g = self.g
        found = 0
        for k in left:
            w = why.get(k)
            if not w or w[0] != "blocked" or not w[1] or len(self.parts[k]) != 1:
                continue
            u = int(self.parts[k][0])
            mates = [m for m in g.neighbors[u] if self.alive[m] and (u, m) in g.joint_axes]
            if not mates:
                continue
            axes = [a for m in mates for a in g.joint_axes[(u, m)]]
            for j in sorted(set(w[1].values()) - set(mates)):
                if (u, j) not in g.hit_pairs or (u, j) in g.snap or not g.has_clip(j):
                    continue
                ok, along_any = True, False
                for _, dv in g.directions(u):
                    if any(abs(float(a @ dv)) > self.pl.opt.joint_cos for a in axes):
                        along_any = True
                        if not g.blocks(u, j, dv):
                            ok = False
                            break
                    elif not (g.blocks(u, j, dv) or any(g.blocks(u, m, dv) for m in mates)):
                        ok = False
                        break
                if ok and along_any:
                    g.snap.update(((u, j), (j, u)))
                    found += 1
                    break
            if _clock() > self.deadline:
                break
        return found

    def _free_without(self, k: int, out: set, along: list | None = None):
        """(name, unit vector) of the first direction along which unit k gets in when the parts ``out`` are
        gone too, else None (the straight-line test of :meth:`free_direction`, without hinge turns).
        ``along``: only directions within the joint cosine of one of these unit axes."""
        g, own = self.g, self._mine(k)
        for dname, dv in self._dirs(k):
            if along is not None and not any(abs(float(dv @ ax)) > self.pl.opt.joint_cos for ax in along):
                continue
            if not any(self.alive[j] and j not in own and j not in out and g.blocks(i, j, dv)
                       for i in own for j in g.candidates(i, dv).tolist()):
                return dname, dv
        return None

    def _stuck_parts(self, left: list, why: dict, kind: str) -> list:
        """Units of ``left`` that are single parts stuck for reason ``kind`` (``"holds"``, ``"blocked"``),
        highest first, at most :data:`_GROUP_SEEDS`."""
        out = sorted((k for k in left if why.get(k, ("",))[0] == kind and len(self.parts[k]) == 1),
                     key=lambda x: -self.top(x))
        return out[:self.pl.opt.group_seeds]

    def _held_step(self, left: list, why: dict):
        """Deadlock: a held step, or None (module notes).

        A pin or axle (a single part) that alone holds up some units, all
        joined to it through non-stud joints (a clevis straddling a liftarm
        on the axle through both, a wheel on its axle; or through one another:
        an angle connector on an axle pin with a half pin in it), leaves first along
        the axis of such a joint, and the units it held leave right after
        it, one by one, each along a free straight line: built forwards, the
        builder holds those in place by hand and the pin goes in last,
        through them. At most :data:`MAX_HELD` parts in all, and the rest
        stays one piece without them. Returns ``[(unit, direction name),
        ...]`` in removal order, the held units marked ``held``.
        """
        g = self.g
        for k in self._stuck_parts(left, why, "holds"):
            if _clock() > self.deadline:
                return None
            pin = int(self.parts[k][0])
            hang = self._stranded({k})
            if not hang or sum(len(self.parts[v]) for v in hang) + 1 > self.pl.opt.max_held:
                continue
            hp = {i for v in hang for i in self.parts[v].tolist()}
            # threaded on the pin: mated through a non-stud joint, or passed through by the pin as drawn
            # (:meth:`_Geometry.threaded_axes`: an axle in a liftarm hole drawn 0.87 LDU off, 10213)
            thr = {i: list(g.joint_axes.get((pin, i), ())) for i in hp}
            for i in hp:
                if not thr[i] and i in g.neighbors[pin]:
                    thr[i] = g.threaded_axes(pin, i)
            axes = [a for i in hp for a in thr[i]]
            # every held part is threaded on the pin (directly or through held parts joined by non-stud joints)
            reach, todo = {pin}, [pin]
            while todo:
                x = todo.pop()
                for y in g.neighbors[x]:
                    if y in hp and y not in reach and ((x, y) in g.joint_axes or (x == pin and thr[y])):
                        reach.add(y)
                        todo.append(y)
            if axes and len(reach) == len(hp) + 1:
                got = self._free_without(k, set(), axes)
                if got is None or self.cut_off({k} | hang):
                    continue
                out = {pin}
                steps = [(k, got)]
                rest = sorted(hang, key=lambda x: -self.top(x))
                while rest:
                    for v in rest:
                        fv = self._free_without(v, out)
                        if fv is not None:
                            break
                    else:
                        break
                    rest.remove(v)
                    out |= self._mine(v)
                    steps.append((v, fv))
                if rest:
                    continue
                res = []
                for n, (v, (dname, dv)) in enumerate(steps):
                    self.units[v].dv = dv
                    self.units[v].held = n > 0
                    res.append((v, dname))
                return res
        return None

    def _find_group(self, left: list, removed: list = ()):
        """A smallest rigid group of stuck units that can leave together (see module notes), or None.

        ``removed``: the search's removals so far; a group in pieces may take back single parts from it
        that join its pieces (:meth:`_bridges`), which are then deleted from it."""
        seeds = sorted((k for k in left), key=lambda x: -self.top(x))[:self.pl.opt.group_seeds]
        best = None
        for k in seeds:
            if _clock() > self.deadline:
                break
            for dname, dv in self._dirs(k):
                ks = {k}
                parts = set(self.parts[k].tolist())
                ok = False
                while len(parts) <= self.pl.opt.max_group:
                    b = self.all_blockers(parts, dv)
                    more = {int(self.owner[j]) for j in b}
                    if not more:
                        # what the group alone holds up goes with it (a plate with the dishes hanging under it)
                        more = self._stranded(ks)
                        if more is None:
                            break
                    if not more:
                        ok = True
                        break
                    ks |= more
                    for v in more:
                        parts |= set(self.parts[v].tolist())
                if not ok or len(ks) < 2 or (best is not None and len(parts) >= best[0]):
                    continue
                if self.cut_off(ks):
                    continue
                bridge: list = []
                if not self._connected(ks):
                    bridge = self._bridges(ks, dv, removed)
                    if not bridge:
                        continue
                extra = [int(removed[pos].unit.idx[0]) for pos in bridge]
                if len(parts) + len(extra) > self.pl.opt.max_group:
                    continue
                fk = (frozenset(ks), tuple(sorted(extra)))
                if fk in self._bad_groups:
                    continue
                sub = self._sequence_group(ks, extra)
                if sub is None:
                    self._bad_groups.add(fk)  # its parts do not change: it cannot be built in hand later either
                    continue
                best = (len(parts) + len(extra), ks, dname, sub, dv, bridge)
                if len(parts) <= 3:
                    break
            if best is not None:
                break
        if best is None:
            return None
        _, ks, dname, sub, dv, bridge = best
        for pos in sorted(bridge, reverse=True):
            del removed[pos]  # taken back: it goes in with the subassembly now
        return ks, dname, sub, dv

    def _bridges(self, ks: set, dv: np.ndarray, removed: list):
        """Single parts already taken out that join the pieces of group ``ks`` into one: positions in
        ``removed`` (at most :data:`MAX_BRIDGE`), or None.

        The half pins 4274 between a trap door 92099 and its angle connectors 32013 (70816) are free along
        their axes and leave before the door, which leaves the door's group in three pieces. A builder
        making that group in hand puts its pins in. A candidate is a single part (not a sub-build,
        subassembly, held or turned move, nor the pin of a held step) with neighbours in two pieces of the
        group. Taken back, it is placed with the group, earlier than before, so it must get in with the
        group along ``dv`` (no live part outside the group blocks it) and must not stop any unit placed
        between (those removed after it) along that unit's direction.
        """
        from .build import LegoBuild

        if not removed:
            return None
        g = self.g
        pieces = _pieces(set(ks), self.nbr)
        if len(pieces) < 2:
            return []
        where = {i: n for n, piece in enumerate(pieces) for k in piece for i in self.parts[k].tolist()}
        merged = list(range(len(pieces)))

        def root(n):
            while merged[n] != n:
                n = merged[n]
            return n

        picked = []
        for pos in range(len(removed) - 1, -1, -1):  # most recent first (nearest in the assembly order)
            u = removed[pos].unit
            if u.sub is not None or u.turn is not None or u.held or len(u.idx) != 1 or isinstance(u.content, LegoBuild):
                continue
            if pos + 1 < len(removed) and removed[pos + 1].unit.held:
                continue  # the pin of a held step: its held units rely on it going in after them
            p = int(u.idx[0])
            if p in g.skip or not g.has[p]:
                continue
            touched = {root(where[j]) for j in g.neighbors[p] if j in where}
            if len(touched) < 2:
                continue
            if any(self.alive[j] and j not in where and g.blocks(p, j, dv) for j in g.candidates(p, dv).tolist()):
                continue
            ok = True
            for v, _ in removed[pos + 1:]:
                vparts = _planned(g, v) if v.sub is None else np.asarray(v.sub.order, dtype=np.int64)
                if v.dv is None or v.press is not None or (v.turn is not None and any((int(i), p) in g.contact for i in vparts.tolist())):
                    ok = False  # no direction known, or a turned move near it (not re-tested here)
                    break
                dvv = np.asarray(v.dv, dtype=np.float64)
                if any(g.blocks(int(i), p, dvv) for i in vparts.tolist()):
                    ok = False
                    break
            if not ok:
                continue
            picked.append(pos)
            first = touched.pop()
            for n in touched:
                merged[root(n)] = root(first)
            if len({root(n) for n in range(len(pieces))}) == 1:
                return picked
            if len(picked) >= self.pl.opt.max_bridge:
                return None
        return None

    def _held_pair(self, left: list, why: dict):
        """Deadlock, last resort: two single parts interlocked with each other, set down together.

        A stuck part k and a part j it touches (collision broad phase) that blocks it, where each part
        holds on its own once placed (stands on the ground or touches a placed part other than the
        other) and the two, moving rigidly together along one of k's directions, meet nothing: the
        builder holds the two together in the fingers and sets them down as one (1788 Treasure Chest:
        a chest 4738a and a panel 6268a side by side on a plate 3035, each reaching over the other).
        Unlike a subassembly they need not be joined to each other. Returns ``(unit, direction
        name)`` with both parts dropped from the search, or None.
        """
        g = self.g
        for k in self._stuck_parts(left, why, "blocked"):
            if _clock() > self.deadline:
                return None
            a = int(self.parts[k][0])
            for b in sorted(set(why[k][1].values())):
                v = int(self.owner[b])
                if v < 0 or v == k or self.gone[v] or len(self.parts[v]) != 1 or (a, b) not in g.contact:
                    continue
                if not all(self.grounded(x) or (self.nbr[x] - {k, v}) for x in (k, v)):
                    continue
                if self.cut_off({k, v}):
                    continue
                for dname, dv in self._dirs(k):
                    if self.all_blockers({a, b}, dv):
                        continue
                    u = _Unit(np.array(sorted((a, b))), None, None, None, "held pair", dv=dv)
                    self._drop(k)
                    self._drop(v)
                    self.pl.held_steps += 1
                    return u, dname
        return None

    def _pressed_part(self, left, why):
        """Deadlock: a stuck single part that slides in lifted and is pressed down (:meth:`_Geometry.press_in`),
        highest first (at most ``PlannerOptions.group_seeds``); ``(unit, direction name)`` or None. A part whose last try was
        stopped only by parts still in place is not tried again."""
        cache = self._press_met
        for k in self._stuck_parts(left, why, "blocked"):
            if _clock() > self.deadline:
                return None
            met = cache.get(k)
            if met is not None and all(self.alive[x] for x in met):
                continue
            met = set()
            got = self.g.press_in(int(self.parts[k][0]), self.alive, met)
            if got is None:
                cache[k] = met
                continue
            name, dv, press = got
            self.units[k].dv, self.units[k].press = dv, press
            return k, name
        return None

    def _flexed_part(self, left, why):
        """Deadlock, last resort: a stuck single part that gets in along one of its directions when the parts
        blocking it there (all touching it, at most 4) let it by with the press-fit allowance; marks those pairs
        snap fits and returns their number, else None."""
        g = self.g
        extra = TOL.collision_inset + max(self.pl.opt.press_insets)
        memo = g._flex_fail
        deep = g._flex_deep
        for k in self._stuck_parts(left, why, "blocked"):
            if _clock() > self.deadline:
                return None
            u = int(self.parts[k][0])
            old = memo.get(u)
            if old is not None and all(self.alive[x] and (u, x) not in g.snap for x in old):
                continue
            stop = set()
            for _, dv in self._dirs(k):
                bl = self.all_blockers({u}, dv)
                if not bl:
                    continue
                if len(bl) > 4:
                    stop |= bl
                    continue
                far = [j for j in bl if (u, j) not in g.contact]
                if far:
                    stop.add(far[0])
                    continue
                dloc = g.inv[u][:3, :3] @ dv
                ok = True
                for j in bl:
                    key = (u, j, dv.tobytes())
                    hit = deep.get(key)
                    if hit is None:
                        base = g._final_inset(u, j)
                        if base is None:
                            hit = False
                        else:
                            ins = max(base, extra)
                            s_lo, s_hi = g._interval(u, j, dv)
                            hit = g._sweep(g.model(u, ins), g.model(j, ins), g.inv[u] @ g.t[j], dloc, s_lo, s_hi)
                        deep[key] = hit
                    if hit:
                        stop.add(j)
                        ok = False
                        break
                if ok:
                    for j in bl:
                        g.snap.update(((u, j), (j, u)))
                    return len(bl)
            memo[u] = stop
        return None

    def _turned_group(self, left: list):
        """Deadlock: a hinged lid with what is built on it, turned in as one subassembly, or None.

        A stuck unit that is, or touches, a part h mated through a click hinge to a live part m outside it
        (6969 Celestial Stinger: the cylinder 6259 on the studs of the hinge plate 4315 that closes over
        the roof 4213) leaves with h and the units only they hold up; a part that stops the group's turn or
        path and is joined to it joins it, up to :data:`MAX_TURN_GROUP` parts. The group must turn in on
        the hinge as one (:meth:`_Geometry.turn_group_in`), be connected, leave the rest supported and be
        built in hand. Returns ``(units, direction name, plan, direction, turn)``.
        """
        g = self.g
        mates: dict = {}
        for a, b in g.hinges:
            mates.setdefault(a, []).append(b)
        for k in sorted(left, key=lambda x: -self.top(x))[:self.pl.opt.group_seeds]:
            if _clock() > self.deadline:
                return None
            hs = []
            for i in self.parts[k].tolist():
                for h in [i] + sorted(g.neighbors[i]):
                    if self.alive[h] and h in mates and h not in hs:
                        hs.append(h)
            for h in hs:
                for m in mates[h]:
                    if not self.alive[m] or int(self.owner[m]) in (int(self.owner[h]), k):
                        continue
                    ks = {k, int(self.owner[h])}
                    got = None
                    while True:
                        more = self._stranded(ks)
                        if more is None:
                            break
                        ks |= more
                        if int(self.owner[m]) in ks:
                            break
                        parts = sorted({i for v in ks for i in self.parts[v].tolist()})
                        if len(parts) > self.pl.opt.max_turn_group:
                            break
                        got, x = g.turn_group_in(parts, h, m, self.alive)
                        if got is not None:
                            break
                        v = int(self.owner[x]) if x >= 0 else -1
                        if v < 0 or v in ks or not any(v in self.nbr[w] for w in ks):
                            break
                        ks.add(v)
                    if got is None or not self._connected(ks) or self.cut_off(ks):
                        continue
                    fk = (frozenset(ks), h, m)
                    if fk in self._bad_groups:
                        continue
                    sub = self._sequence_group(ks)
                    if sub is None:
                        self._bad_groups.add(fk)
                        continue
                    name, dv, turn = got
                    return ks, name, sub, dv, turn
        return None

    def _stranded(self, ks: set):
        """Units that taking units ``ks`` out would leave hanging, or None when that is more than
        :data:`MAX_GROUP` parts: the pieces cut off from the roots (in hand: every piece but the largest)."""
        cut = self.cut_off(ks)
        if not cut:
            return set()
        if self.in_hand:
            # every piece the rest falls into, the walk's own start piece too (``cut_off`` leaves it out)
            cut = sorted({v for k in ks for v in self.nbr[k] if v not in ks and not self.gone[v]})
        pieces = []
        seen = set(ks)
        for v in cut:
            if v in seen:
                continue
            piece, size = set(), 0
            for x in self._walk([v], seen):
                piece.add(x)
                size += len(self.parts[x])
                if size > self.pl.opt.max_group and not self.in_hand:
                    return None
            pieces.append((size, piece))
        if self.in_hand:
            pieces.sort(key=lambda t: -t[0])
            pieces = pieces[1:] if len(pieces) > 1 else []
            if sum(t[0] for t in pieces) > self.pl.opt.max_group:
                return None
        out = set()
        for _, piece in pieces:
            out |= piece
        return out

    def _connected(self, ks: set) -> bool:
        start = next(iter(ks))
        seen, stack = {start}, [start]
        while stack:
            x = stack.pop()
            for y in self.nbr[x]:
                if y in ks and y not in seen:
                    seen.add(y)
                    stack.append(y)
        return len(seen) == len(ks)

    def _sequence_group(self, ks: set, extra=()):
        """Order of a subassembly built in hand (every part joins the ones placed), or None. ``extra``:
        parts taken back to join it (:meth:`_bridges`).

        A subassembly formed by the top level or a sub-build may itself take subassemblies of its own
        (one level deep, :data:`MAX_GROUP` each): a SNOT core built in hand from a plate-and-bracket
        block made first (21309: the two halves of '158-' with their 1 x 6 tiles, each half's own
        plate, bracket and clip plates put together apart and slid on). When the whole group turns out
        to be one such subassembly, it is that subassembly."""
        g = self.g
        parts = sorted(set().union(*(set(self.parts[k].tolist()) for k in ks)) | set(extra))
        units = [_Unit(np.array([i]), g.flat[i].content, g.flat[i].pose, None, f"#{i}") for i in parts]
        s = _Search(self.pl, g, units, np.zeros(g.n, dtype=bool), allow_groups=not self.nested, in_hand=True,
                    deadline=self.deadline)
        s.wake_all = True
        s.nested = True
        rem, fail = s.run()
        if fail:
            return None
        rem = rem[::-1]
        if len(rem) == 1 and rem[0].unit.sub is not None:
            return rem[0].unit.sub
        order: list = []
        directions: dict = {}
        for u, d in rem:
            if u.sub is not None:  # a nested subassembly: its parts in its own order
                order.extend(int(i) for i in u.sub.order)
                directions.update(u.sub.directions)
            else:  # one part, or a held pair
                order.extend(int(i) for i in u.idx.tolist())
                directions.update({int(i): d for i in u.idx.tolist()})
        return PlannedAssembly(order, directions, rem)

    def _why_text(self, w) -> str:
        if w is None:
            return "could not be placed"
        if w[0] == "holds":
            return "holds up: " + self._desc(w[1]) + " (which cannot leave first)"
        if w[0] == "lost":
            return "lost every neighbour"
        return "blocked in every direction: " + ", ".join(
            f"{dn} by {self._desc(v)}" for dn, v in list(w[1].items())[:6])

    def _desc(self, i: int) -> str:
        fp = self.g.flat[i]
        try:
            name = fp.content.spec.name
        except Exception:  # noqa: BLE001 - a part without catalogue entry has no name
            name = ""
        label = "/".join(str(p.content.name or "?") for p in fp.path[:-1])
        return f"#{i} {fp.content.ldraw_id} ({name})" + (f" in {label}" if label else "")


def _identity():
    from .geometry.types import Pose

    return Pose()


def _insertions(pl: _Planner, res: dict, pose: np.ndarray, off: int, level: int, out: list,
                placed: np.ndarray | None = None) -> list:
    """Append the moves of one planned assembly to ``out`` (see ``AssemblyPlan.insertions``); returns its
    parts (flat indices of the top build). ``pose``: the assembly's world pose (4, 4); ``off``: the flat
    index of its first part in the top build."""
    from .build import LegoBuild

    placed = res.placed if placed is None else placed
    rot = np.asarray(pose)[:3, :3]
    mine: list = []
    for u, dname in res.units:
        if isinstance(u.content, LegoBuild):
            pl.n_levels += 1
            parts = _insertions(pl, pl.sub_plans[id(u.content)], np.asarray(pose) @ u.pose.matrix,
                                off + int(u.idx[0]), pl.n_levels, out)
        elif u.sub is not None:
            pl.n_levels += 1
            parts = _insertions(pl, u.sub, pose, off, pl.n_levels, out, placed)
        else:
            parts = [off + i for i in u.idx.tolist() if placed[i]]
        dv = u.dv if u.dv is not None else DIRECTIONS[0]
        d = rot @ np.asarray(dv, dtype=np.float64)
        move = dict(parts=parts, direction=tuple(float(x) for x in d / np.linalg.norm(d)), name=dname, level=level)
        if u.turn is not None:
            ax, pv, deg = u.turn
            pw = np.asarray(pose) @ np.append(np.asarray(pv, dtype=np.float64), 1.0)
            move["turn"] = dict(axis=tuple(float(x) for x in rot @ np.asarray(ax)), pivot=tuple(float(x) for x in pw[:3]),
                                degrees=float(deg))
        if u.held:
            move["held"] = True
        if u.press is not None:
            pd, ps = u.press
            move["press"] = dict(direction=tuple(float(x) for x in rot @ np.asarray(pd, dtype=np.float64)),
                                 distance=float(ps))
        out.append(move)
        mine.extend(parts)
    return mine


def _sequence_build(planner: _Planner, build, res: dict, memo: dict):
    """The build re-created with placements in plan order and steps."""
    from .build import LegoBuild

    if id(build) in memo:
        return memo[id(build)]
    seq = LegoBuild(name=build.name)
    seq.embedded_files = dict(build.embedded_files)
    seq.ldraw_data_files = dict(build.ldraw_data_files)
    flat = res.flat
    n_in_step, last_dir, first = 0, None, True
    inside: set = set()  # parts of kept sub-builds: their own sequences add their skipped parts
    for u, dname in res.units:
        is_sub = isinstance(u.content, LegoBuild)
        if is_sub:
            inside.update(u.idx.tolist())
        if not first and (is_sub or u.sub is not None or dname != last_dir or n_in_step >= planner.max_step):
            seq.step()
            n_in_step = 0
        first = False
        if is_sub:
            sub = _sequence_build(planner, u.content, planner.sub_plans[id(u.content)], memo)
            seq.add_raw(sub, u.pose, color=u.color)
            n_in_step = planner.max_step  # a sub-build is a step of its own
        elif u.sub is not None:
            # a subassembly: an MPD submodel of its own with its own steps, inserted whole
            planner.n_groups += 1
            grp = LegoBuild(name=f"{build.name or 'model'}-subassembly-{planner.n_groups}")
            last = None
            for (v, dn) in u.sub.units:
                if last is not None and dn != last:
                    grp.step()
                for i in v.idx.tolist():  # one part, or a held pair
                    grp.add_raw(flat[i].content, flat[i].pose)
                last = dn
            seq.add_raw(grp, _identity())
            n_in_step = planner.max_step
        else:
            for i in [i for i in u.idx.tolist() if i not in res.skip]:
                seq.add_raw(flat[i].content, flat[i].pose)
                n_in_step += 1
        last_dir = dname
    placed = res.placed
    extra = [sorted(res.skip), sorted(res.failed)]
    for group in extra:
        group = [i for i in group if not placed[i] and i not in inside]
        if group:
            if len(seq):
                seq.step()
            for i in group:
                seq.add_raw(flat[i].content, flat[i].pose)
    memo[id(build)] = seq
    return seq


def assembly_sequence(build, *, max_parts_per_step: int = 6, time_budget: float | None = TIME_BUDGET,
                      separate_objects: bool = False, options: PlannerOptions | None = None) -> AssemblyPlan:
    """Find a buildable order of a build's parts (see module rules).

    Parameters
    ----------
    build : LegoBuild
    max_parts_per_step : int
        Consecutive parts inserted in the same direction are grouped into
        steps of at most this many.
    time_budget : float or None, CPU seconds
        Planning stops after this much CPU time of the calling process
        (``time.process_time``, so the same build gets the same plan however
        busy the machine is; on an idle machine it is about the wall time);
        parts not reached by then are reported failed ("time budget
        exceeded"). None: no limit. Three quarters go to the search, the rest
        to checking the parts it did not reach bottom-up.
    separate_objects : bool
        Let objects drawn apart (touching nothing, nothing below them) stand on
        their own ground, as official files draw stands and loose parts
        (:func:`bricklayer.validate.support.support_graph`). Off by default, as
        in the validator: a part hanging in the air cannot be placed.
    options : PlannerOptions or None
        The planner's settings (time shares, sampling step, group sizes, turn angles, press lifts...);
        None: :class:`PlannerOptions` defaults.

    Returns
    -------
    AssemblyPlan
        Indices refer to ``build.flattened_placements``.

    Raises
    ------
    ValueError
        ``max_parts_per_step`` below 1 or a negative ``time_budget``.
    """
    if int(max_parts_per_step) < 1:
        raise ValueError(f"max_parts_per_step must be 1 or more, not {max_parts_per_step}")
    if time_budget is not None and not time_budget >= 0:
        raise ValueError(f"time_budget must be a number of seconds >= 0 or None, not {time_budget}")
    from .build import LegoBuild

    t0, wall0 = _clock(), time.perf_counter()
    budget = time_budget if time_budget is not None else 1e18
    opt = options if options is not None else PlannerOptions()
    if not isinstance(opt, PlannerOptions):
        raise TypeError(f"options must be a PlannerOptions, not {type(opt).__name__}")
    pl = _Planner(max_parts_per_step, t0 + opt.search_share * budget, t0 + budget, separate_objects, t0, opt)
    res = pl.plan(build)
    pl.n_groups = 0
    seq = _sequence_build(pl, build, res, {})
    # steps of the top level in flat indices
    steps, cur, n_in, last = [], [], 0, None
    groups = []
    for u, dname in res.units:
        if isinstance(u.content, LegoBuild) or u.sub is not None:
            if cur:
                steps.append(cur)
            if u.sub is not None:
                ids = list(u.sub.order)
                groups.append((ids, dname))
            else:
                off = int(u.idx[0])
                ids = [off + i for i in pl.sub_plans[id(u.content)].order]
            steps.append(ids)
            cur, n_in, last = [], 0, None
            continue
        ids = [i for i in u.idx.tolist() if i not in res.skip]
        if cur and (dname != last or n_in >= max_parts_per_step):
            steps.append(cur)
            cur, n_in = [], 0
        cur.extend(ids)
        n_in += len(ids)
        last = dname
    if cur:
        steps.append(cur)
    skipped = dict(res.skip)
    pl.n_levels = 0
    moves: list = []
    _insertions(pl, res, np.eye(4), 0, 0, moves)
    plan = AssemblyPlan(res.order, steps, res.directions, res.failed, skipped, pl.kept, pl.dissolved,
                        seq, time.perf_counter() - wall0, len(res.flat), groups, pl.snap_fits, moves, pl.held_steps)
    log.info("assembly sequence: %d of %d planned parts placed (%d skipped) in %.2f s", len(plan.order),
             plan.n_parts - len(skipped), len(skipped), plan.seconds)
    return plan


def _ldraw_step_count(text: str, parts=()) -> int:
    """Steps an LDraw viewer pages through in ``text``, over all its model ``0 FILE`` blocks: each ``0 STEP``
    line ends one (LDraw spec, STEP meta), and part lines after a block's last ``0 STEP`` make one more.
    Blocks named in ``parts`` (embedded part files: stickers, bent parts; names compared case-blind) are
    parts, not models, and have no steps."""
    skip = {str(n).strip().lower() for n in parts}
    steps, pending, in_part = 0, False, False
    for ln in text.splitlines():
        tok = ln.split()
        if tok[:2] in (["0", "FILE"], ["0", "NOFILE"]):
            steps, pending = steps + pending, False
            in_part = tok[:2] == ["0", "FILE"] and " ".join(tok[2:]).lower() in skip
        elif in_part:
            continue
        elif tok[:2] == ["0", "STEP"]:
            steps, pending = steps + 1, False
        elif tok[:1] == ["1"]:
            pending = True
    return steps + pending


def _count_unplaceable(build, summary: dict) -> None:
    """Count in ``summary`` (of :meth:`AssemblyPlan.summary`) the parts no order can place as not placed.

    A part the LDraw library does not know (nor the file embeds) has no geometry: the planner leaves it
    to a last step ("no geometry"), but it cannot really be placed; a part line the reader skipped (bad
    numbers, a cyclic submodel reference) places a part that is in no step. Both move to ``failed``
    (``failure_causes`` "unknown part" and "unreadable part line", each listed in ``failures``), and
    ``placed_share`` becomes placed / (parts planned + those), as ``brickwright instructions`` prints.
    ``summary["unreadable_lines"]`` lists the skipped lines (file, line, message)."""
    from .validate.collisions import unknown_placements

    unknown = unknown_placements(build)
    unreadable = list(getattr(build, "unreadable_lines", None) or ())
    summary["unreadable_lines"] = [{"file": str(w.path), "line": w.line, "message": w.message} for w in unreadable]
    if not unknown and not unreadable:
        return
    failures = list(summary.get("failures") or [])
    for fp in unknown:
        origin = fp.path[-1].origin if getattr(fp, "path", None) else None
        loc = f" [{origin[0]}:{origin[1]}]" if origin else ""
        failures.append({"part": f"{build.describe(fp)}{loc}",
                         "reason": f"unknown part {fp.content.ldraw_id!r}: not in the LDraw library nor embedded in "
                                   "the file; use a real part id (`brickwright search`)"})
    for w in unreadable:
        failures.append({"part": f"{w.path}:{w.line}", "reason": f"unreadable part line ({w.message}); fix the line"})
    reasons = dict(summary.get("skipped_reasons") or {})
    if unknown and reasons.get("no geometry"):
        reasons["no geometry"] -= min(len(unknown), reasons["no geometry"])
    causes = dict(summary.get("failure_causes") or {})
    if unknown:
        causes["unknown part"] = len(unknown)
    if unreadable:
        causes["unreadable part line"] = len(unreadable)
    summary["skipped"] = summary["skipped"] - len(unknown)
    summary["skipped_reasons"] = {k: v for k, v in reasons.items() if v}
    summary["failed"] = summary["failed"] + len(unknown) + len(unreadable)
    summary["failure_causes"] = causes
    summary["failures"] = failures
    summary["parts"] = summary["parts"] + len(unreadable)
    planned = summary["parts"] - summary["skipped"]
    summary["placed_share"] = round(1.0 if planned <= 0 else summary["placed"] / planned, 4)


def _flat_parts(placements) -> list:
    """Element placements under some top-level placements (a placed sub-build brings all its parts)."""
    from .build import LegoBuild

    out = []
    for p in placements:
        out.extend(_flat_parts(p.content.placements) if isinstance(p.content, LegoBuild) else [p])
    return out


def write_instructions(build, out_dir, *, images: bool = True, max_images: int | None = None, size=(800, 600),
                       max_parts_per_step: int = 6, time_budget: float | None = TIME_BUDGET,
                       separate_objects: bool = False, overwrite: bool = False,
                       options: PlannerOptions | None = None) -> dict:
    """Write the assembly sequence as an MPD with ``0 STEP`` groups and, with the renderer, an image per step.

    What ``brickwright instructions MODEL --out DIR`` calls.

    Parameters
    ----------
    build : LegoBuild
    out_dir : str or Path
        Created when missing. Gets ``steps.mpd``, ``plan.json`` and
        ``step-0001.png`` ... : one picture per LDraw step of every ``0 FILE``
        block of ``steps.mpd`` (a submodel's steps before the parent step that
        places it), so the pictures, the step count of ``plan.json`` and what
        LDraw viewers page through agree (:func:`bricklayer.render.step_pages`).
        Each picture shows every part placed so far in its (sub)model, the last
        step (stickers, flexible parts, failed parts) included; the step's new
        parts in colour, the earlier ones dimmed; one fixed camera per
        (sub)model, fitted to the finished (sub)model
        (:func:`bricklayer.render.render_steps`). Pictures are written when
        :mod:`bricklayer.render` imports and works.
    images : bool
    max_images : int or None
        Render at most this many pictures (the last ones are dropped and
        counted in ``pictures_dropped``); None (default): all.
    size : (width, height), pixels
    max_parts_per_step, time_budget, separate_objects, options
        As for :func:`assembly_sequence`.
    overwrite : bool
        Replace the files of an earlier run in ``out_dir`` (and remove its step
        images). Without it, a folder that already holds ``steps.mpd``,
        ``plan.json`` or step images is left alone and FileExistsError raised.

    Returns
    -------
    dict
        ``{"mpd": Path, "plan": Path, "images": [Path, ...], "cameras": [Camera, ...], "summary": dict,
        "image_error": str or None}`` (``cameras[k]`` drew ``images[k]``).
        ``summary`` is what ``plan.json`` holds: :meth:`AssemblyPlan.summary` with unknown parts and
        unreadable part lines counted as failed (``_count_unplaceable``), ``unreadable_lines``,
        ``steps`` and ``ldraw_steps`` (both the steps a viewer pages through over all blocks of
        ``steps.mpd``, one picture each), ``main_model_steps`` (those of the main model alone, what
        LeoCAD pages before entering a submodel), ``planned_steps`` (the planner's top-level steps,
        :attr:`AssemblyPlan.steps`), ``pictures`` (per picture: ``image`` file name, ``model``
        (sub)model name, ``step`` and ``of`` within it, ``new_parts``), ``pictures_dropped``,
        ``colliding_pairs`` (pairs of parts drawn inside each other, ``build.colliding_placements``)
        and ``options``.

    Raises
    ------
    FileExistsError
        Output files exist and ``overwrite`` is False.
    NotADirectoryError
        ``out_dir`` is a file or cannot be created (checked before planning).
    """
    import json

    from ldraw_data.fileio import atomic_write, atomic_writer

    from .io import write_ldraw

    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise NotADirectoryError(f"{out} is a file; give a folder for the instructions")
    old = ([p for p in (out / "steps.mpd", out / "plan.json") if p.exists()] + sorted(out.glob(_STEP_IMAGES))
           if out.is_dir() else [])
    if old and not overwrite:
        raise FileExistsError(f"{out} already holds instructions ({old[0].name}"
                              f"{f' and {len(old) - 1} more files' if len(old) > 1 else ''}); "
                              "pass overwrite=True (CLI: --force) to replace them")
    try:  # before planning, which may take minutes: an --out that cannot be a folder fails now
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise NotADirectoryError(f"cannot create the folder {out}: {exc.strerror or exc}") from None
    from ldraw_data.progress import report

    report("planning the assembly order", 0, None)
    plan = assembly_sequence(build, max_parts_per_step=max_parts_per_step, time_budget=time_budget,
                             separate_objects=separate_objects, options=options)
    report("planning the assembly order", 1, 1)
    for p in out.glob(_STEP_IMAGES):  # images of an earlier run would mix with this one's
        p.unlink()
    mpd = write_ldraw(plan.sequence, out / "steps.mpd", overwrite=True, title=f"{build.name or 'model'} - assembly sequence")
    summary = plan.summary(build, k=None)
    summary["options"] = {"max_parts_per_step": max_parts_per_step, "time_budget": time_budget,
                          "separate_objects": separate_objects}
    _count_unplaceable(build, summary)
    text = Path(mpd).read_text(encoding="utf-8")
    embedded = {n for b in [plan.sequence, *plan.sequence._all_builds()] for n, _body in b.embedded_files.values()}
    summary["ldraw_steps"] = _ldraw_step_count(text, embedded)
    from .render.steps import step_pages

    pages = step_pages(plan.sequence)
    shown = pages if max_images is None else pages[:max(0, int(max_images))]
    # one step count everywhere: the pages (one per step of every FILE block of steps.mpd) are the steps
    summary["planned_steps"] = summary["steps"]
    summary["steps"] = len(pages)
    summary["main_model_steps"] = len(plan.sequence.steps)
    summary["pictures"] = [{"image": f"step-{k + 1:04d}.png", "model": pg.model.name or "model", "step": pg.step,
                            "of": pg.steps, "new_parts": len(_flat_parts(pg.new))}
                           for k, pg in enumerate(shown)] if images else []
    summary["pictures_dropped"] = len(pages) - len(shown) if images else len(pages)
    # the order is no cure for parts drawn inside each other (the path test does not hold those pairs
    # against each other): reported so a user does not take the plan for proof the model can be built
    summary["colliding_pairs"] = len(build.colliding_placements)
    pj = out / "plan.json"
    atomic_write(pj, json.dumps(summary, indent=2))
    paths, cams, err = [], [], None
    if images and shown:
        try:
            from .render import render_steps
        except ImportError as exc:
            err = f"no renderer: {exc}"
        else:
            try:
                n_shots = len(shown) if shown is not None else None
                for k, (_page, cam, img) in enumerate(render_steps(plan.sequence, size=size, pages=shown)):
                    report("step pictures", k, n_shots or k + 1)
                    path = out / f"step-{k + 1:04d}.png"
                    with atomic_writer(path, "wb") as fh:
                        img.save(fh, format="PNG")
                    paths.append(path)
                    cams.append(cam)
                report("step pictures", len(paths), len(paths))
            except Exception as exc:  # noqa: BLE001 - renderer backend missing: keep the MPD
                err = f"rendering failed: {exc}"
                log.warning("step images not written: %s", exc)
    return {"mpd": mpd, "plan": pj, "images": paths, "cameras": cams, "summary": summary, "image_error": err}
