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
hand (a SNOT core of two bracket-and-clip halves with their
1 x 6 tiles goes down between four corner blocks, each half's plate, bracket
and clip plates put together apart and slid on); a group in pieces takes back, as its pins, up to :data:`MAX_BRIDGE`
single parts already taken out that join its pieces, when they get in with
it and stop none of the units placed in between: the half pins between a
trap door and its angle connectors); else turn in a hinged lid with what is built on it as one
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
straddling a liftarm 50923 with the axle 4519 through both,
a bush and a beam threaded on an axle. The held units come in first, one by
one, each along a free straight line; then the pin goes in along its joint
axis, and only then must they hold (rule 1 is checked for the step as a
whole: every part reaches the ground or the assembly through parts of the
step). At most :data:`MAX_HELD` parts per step; ``AssemblyPlan.insertions``
marks the held moves (``held``), ``AssemblyPlan.held_steps`` counts the steps.

Held pairs. As a last resort before giving up on a stuck part, it and a
part it touches that blocks it, where each holds on its own once placed,
may be set down together as one move when nothing stops the pair
(a chest and a panel side by side on a plate, each reaching over the other);
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
pressed onto (clips 61252 drawn 0.56 LDU off handles 60478).
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
everywhere else (:mod:`.strategies.pinned_snap`: the clip flexes over its edge).
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
rule 1 still holds for them (a 540 LDU net over a ship's hull crosses it
along any line).

Peels. At a top-level deadlock, before stuck sub-builds are dissolved, a few
parts (at most :data:`MAX_PEEL`) of a placed sub-build that alone stop a stuck
unit in one direction come off it, with what they alone hold there, when they
can leave at once and the rest of the sub-build is still built in hand
(re-planned): a builder builds the core without its connector block, sets
the wing into its slot, then pushes the block's pins through both beams.
A peeled unit still stuck later is taken apart before any
part is given up.

Pressed moves. At a deadlock, after subassemblies and before held pairs, a
stuck single part may slide in along a direction across its stud axis at
:data:`PRESS_LIFTS` LDU (one stud, then two) above its place and then be
pressed that far straight down onto its studs, as a builder pushes a part
under an overhang or through an opening and presses it on (the upside-down curved brick 6091 of a window sill reaches in through an
arched window 90195 onto the round end of a plate 3176 lying in the panel's
hollow back, and the panel's top cap is over it). Both legs are sampled like
a hinge turn; ``AssemblyPlan.insertions`` records ``press`` (direction,
distance).

Flexed fits. Last, before giving up on a stuck single part: it goes in
along one of its directions when every part blocking it there touches it (as
snap fits; at most 4) and lets it by with the press-fit allowance
(:data:`_PRESS_INSETS`, 1 LDU more inset): its thin edge, or theirs, flexes
that little as it goes by (a helmet bubble half 61287 of a lamp
globe, its lip passing under the shoulder of the round brick 3062b inside).
The pairs count as snap fits.

Left out, added in a last step: stickers and parts without geometry (no
placement to test), MPD-embedded parts (bent hoses), mirrored placements
(official files draw bent flexible parts as mirrored segments), scaled placements
(primitives stretched into rigging lines), and flexible
parts by name (hose, string, cable, chain, rubber band, cloth, cape, flex):
their drawn shape is the bent final one, which cannot travel along a line.

Where things are (a package; every name below is importable from ``bricklayer.assembly``):

- :mod:`.options` -- :class:`PlannerOptions`, the planner's settings with the source of each number;
- :mod:`.plan` -- :class:`AssemblyPlan` (public result), :class:`Move`, :class:`PlannedAssembly`;
- :mod:`.geometry` -- which part stops which along a direction (adapter over the validator), left-out parts;
- :mod:`.columns` -- the exact column test of straight paths along world axes;
- :mod:`.motions` -- hinge turns, pressed moves, the sampled straight path they end with;
- :mod:`.search` -- the disassembly search (the loop) and the planner over a build and its sub-builds;
- :mod:`.strategies` -- one module per deadlock strategy, behind one protocol
  (:class:`~bricklayer.assembly.strategies.base.DeadlockStrategy`); to add one, see that module;
- :mod:`.sequence` -- :func:`assembly_sequence`: the search's result made into steps, insertions, LDraw;
- :mod:`.instructions` -- :func:`write_instructions`.
"""

from __future__ import annotations

from . import columns  # noqa: F401 - ``bricklayer._columns`` is this module
from .geometry import (  # noqa: F401 - private names kept importable from their old place
    _FLEX, _MINIFIG_JOINT, _PATH_MEMO, _SINGLE, _SLIDING, _TIMED_OUT, _Geometry, _name,
    connected_pieces, _sliding_parts, skip_reason)
from .instructions import _STEP_IMAGES, _count_unplaceable, _flat_parts, _ldraw_step_count, write_instructions  # noqa: F401
from .motions import _turned  # noqa: F401
from .options import (  # noqa: F401
    _DIR_NAMES, DIRECTIONS, _GROUP_SEEDS, _JOINT_COS, _PEEL_SHARE, _PEEL_TRIES, _PRESS_INSETS, _SEARCH_SHARE, _SUB_SHARE, DEFAULT_STRATEGIES,
    MAX_BRIDGE, MAX_GROUP, MAX_HELD, MAX_PEEL, MAX_PEEL_GROUP, MAX_TURN_GROUP, PRESS_LIFTS, SAMPLE_STEP, TIME_BUDGET,
    TURN_ANGLES, PlannerOptions, cpu_clock)
from .plan import AssemblyPlan, Move, PlannedAssembly, _identity, planned_parts, Unit, _vec_name  # noqa: F401
from .search import _Planner, _Search  # noqa: F401
from .sequence import _insertions, _sequence_build, assembly_sequence  # noqa: F401
from .strategies import STRATEGIES, DeadlockStrategy  # noqa: F401

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
    "DEFAULT_STRATEGIES",
    "PlannerOptions",
    "DeadlockStrategy",
    "STRATEGIES",
    "AssemblyPlan",
    "Move",
    "PlannedAssembly",
    "assembly_sequence",
    "write_instructions",
    "skip_reason",
]
