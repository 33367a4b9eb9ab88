"""Validator benchmark and official-set report.

Runs the full validation (connections, collisions, floating parts) on every
official model in ``shared/models/official`` and writes
``benchmarks/official_report.json`` and ``benchmarks/official_report.md``:
per model the parts, colliding pairs, press fits excused, floating parts,
connected components, unchecked parts and the time. Each reported collision
is tagged with a likely cause (see ``_cause``).

Usage::

    python benchmarks/validate.py [--models DIR] [--only SUBSTRING] [--incremental]
"""

from __future__ import annotations

import argparse
import json
import logging
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_MODELS = HERE.parent.parent / "shared" / "models" / "official"

#: Part-name words that mark parts drawn bent, flexible or organic (their LDraw geometry is
#: drawn in one pose and overlaps its neighbours in the model as built). Segments of one flexible
#: part under one parent are already excused by the validator (``CollisionEngine.same_flexible``).
_FLEX = ("plant", "hose", "string", "chain", "flex", "rope", "cloth", "flag", "sail", "leaf", "leaves",
         "tree", "ribbed", "whip", "tread", "grass", "bush", "vine", "feather", "segment", "belt", "track",
         "rubber", "43903", "ls60")
_FIG = ("minifig", "torso", "hips", "legs", "leg ", "arm ", "hand", "head", "hair", "helmet", "cape")
_WHEEL = ("wheel", "tyre", "tire", "rim")
_TECHNIC = ("technic pin", "technic axle", "axle", "pin ")


def _cause(rec) -> str:
    """Likely cause of one reported collision, from part names, mating and overlap depth."""
    names = [d.lower() for d in rec.descriptions]
    if any(any(w in n for w in _FLEX) for n in names):
        return "flexible/organic part drawn overlapping"
    if any("sticker" in n for n in names) or any(n.split(":")[-1].strip().startswith("?") for n in names):
        return "sticker or MPD-embedded part"
    if any(any(w in n for w in _FIG) for n in names):
        return "minifigure or accessory (posed)"
    if rec.mated:
        return "mated pair overlapping beyond the press-fit allowance"
    if any(any(w in n for w in _WHEEL) for n in names):
        return "wheel, tyre or rim"
    if any(any(w in n for w in _TECHNIC) for n in names):
        return "Technic pin or axle not mated (pose off the connector)"
    if rec.depth <= 1.0:
        return "touching parts drawn overlapping by <= 1 LDU"
    if rec.depth != rec.depth:
        return "other (depth not estimated)"
    return "part drawn inside another by more than 1 LDU"


#: Hand-checked findings on the collision reports (kept with the generated tables).
_FINDINGS = """## Collision findings (checked by hand)

Colliding pairs on the 67 official models: 7,156 before the first round, 3,396 after round 2, 3,498 after
round 3 (press fits made local to the joint: about 100 official press fits are no longer excused, see
below). Fixed in the validator:

- **T-junctions in LDraw meshes** (ldraw_data/collision.py step 2): Tile 1 x 2 Grille (2412b, 30244) was
  reported on every plate it sits on (717 + 311 pairs): its slot walls are one triangle whose corners are the
  slot-floor corners, so their inset edge sank 0.25 LDU into the open underside onto the stud tops.
- **Thin material** (step 5): vertices are inset by at most half the material thickness along their direction
  (zero-thickness slots of Technic pins 6558, chain links 57518, grilles).
- **Flexible parts**: segments of one hose / string / belt / LSynth output under one parent are one physical
  part (754/755/756 hose sections, 30527k02 via its alias 758, "LSynth ... String Segment" of 6279): about
  2,300 pairs.
- **Minifigure hands holding accessories**: the hand's clip is up to 0.62 LDU off the accessory's bar axis
  (1180: radio 3962b), beyond the connection graph's 0.5 LDU line tolerance; loose sliding mates (0.7 LDU)
  now get the clip / bar allowance. Proposed to the connections owner: ``_AXLE_LINE_TOL`` 0.5 -> 0.7 LDU for
  clip / bar so the graph mates them too.

### Round 3: press fits local to the joint (fault detection)

A mated minifigure arm / hand / hips or hinge pushed 1 LDU into its mate stayed mated (joint labels are
matched within 2.1 LDU) and the 2 LDU allowance, applied to the whole mesh in every direction, hid it
(fault injection 94.7%). Measured on the official models, the drawn overlap of mated minifigure joints is at
most 0.5 LDU in 90% of the pairs (wrist p90 0.84, hip 0.54 LDU: inset clearance 0.5 LDU), pushed 1 LDU
1.0-1.9 LDU. Two rules now (``bricklayer/validate/collisions.py`` ``SEAT``, ``AXIAL_EXTRA``):

- point joints (hinge, fixed, ball labels) keep their allowance only on their seat: the offset of the two
  connector origins within 0.6 LDU of its nominal value (the median over all mated pairs of that type on the
  67 models: 0 for most, 2.0 LDU for control sticks 4592/4593, 1.0 for hinge_31/49; locking hinges
  30364/30365 and 30386 (hinge_2) spread 0-2 LDU with the joint angle and keep 2.1 LDU);
- sliding joints (pin, axle, bar, clip) and studs press radially: the extra inset is applied across the
  joint axis and only 0.2 LDU along it, so a pin, axle or hat pushed along its joint into a stop is caught.

Fault injection (`benchmarks/fault_injection.py`, 9 models incl. minifigure sets 1788 / 6232 / 6712 / 6831
and Technic-heavy 10029 / 21109): push faults 404/405 (seed 4, 15 per model) and 674/675 (seed 7, 25 per
model): minifigure joints 53/54 and 95/96, Technic pins / axles 36/36 and 42/42, hinges, clips, studs and
resting parts all caught. The miss: 6831 hand 3820 pushed 1 LDU down in arm 3818 moves mostly along the
wrist axis (offset 0.44 / 0.20 LDU drawn -> 0.29 / 0.51 pushed, overlap 0.80 -> 0.91 LDU): within the
0.6 LDU seat tolerance that official wrists need (drawn along-offsets reach 0.68 LDU). Lifts (support
engineer's rule) 21/22.

Cost on the official models: +102 reported pairs (pins / axles / clips pressed along their axis by
0.5-2 LDU as drawn: 6558 in thin beams 32140 (10179) need 0.5 LDU axial allowance per part, clips 4274 on
tiles 6636 (10213) 1 LDU; shoulders 3818/3819 posed 0.9 LDU off their seat (5934, 10156); visors 2447 1.3
LDU off their hinge (10029)). With ``AXIAL_EXTRA`` = 0.5 the official count is 3,453 and push detection
402/405 (a hat 4485 pushed 1 LDU onto a head and an axle pushed into an angle connector 32034 are missed).

### Reports by class (sampled; `clear` = smallest common inset that separates the pair, overlap = 2 x clear)

Census over all 3,498 pairs (overlap of the raw meshes; "stuck" = no common inset up to 1.5 LDU separates
the pair, i.e. thin material or vertices that cannot move):

| class | pairs | <= 0.5 | 0.5-1 | 1-2 | > 2 | stuck |
|---|---:|---:|---:|---:|---:|---:|
| part drawn inside another by more than 1 LDU | 1,469 | 4 | 241 | 402 | 137 | 713 |
| minifigure or accessory (posed) | 531 | 38 | 152 | 149 | 50 | 142 |
| flexible / organic | 414 | 20 | 104 | 130 | 18 | 142 |
| touching, <= 1 LDU | 389 | 60 | 303 | 19 | 2 | 12 |
| Technic pin or axle not mated | 361 | 15 | 49 | 90 | 22 | 185 |
| mated beyond allowance | 187 | 5 | 25 | 23 | 13 | 121 |
| wheel, tyre or rim | 74 | 0 | 18 | 33 | 0 | 23 |
| sticker or MPD-embedded | 38 | 0 | 1 | 4 | 1 | 32 |

- **Touching <= 1 LDU**: 303 of 389 overlap 0.5-1.0 LDU as drawn, i.e. the parts are drawn into each other,
  the insets work. Examples: 10179 #262/#1 Plate 1 x 2 3023 and #315/#1 Plate 1 x 6 3666 at 27 degrees to each
  other, corners clipping by 0.64 LDU; #254/#58 Tile 1 x 4 2431 on Bar 1 x 8 with curved ends 30359a
  (rendered: the tile lies on the curved top of the end brick, 0.68 LDU); #303/#67/#3 brick 47905 with a side
  tile 6636 drawn 29 LDU from the brick centre where the side stud puts it at 28 (0.98 LDU); 70816 cone 4589
  1.0 LDU into plate 4623. Validator faults found in this class: (a) open boundaries are not inset
  sideways: Dish 2 x 2 2654 placed side by side 39.994 LDU apart (10179 #300/#20-#21) touch at rim vertices
  whose faces all face up, so the inset moves them only down (direction (0, -1, 0)), and rims 0.006 LDU apart
  collide (clear inset > 1.5); (b) near-duplicate vertices left unmerged (Tile 3 x 2 with angled end 22385,
  8 vertices with cap 0 in its angled end) never move. 72 pairs (<= 0.5 and stuck) are of these kinds.
- **Part inside another by more than 1 LDU**: 713 of 1,469 cannot be separated by insetting, most of them
  deep, real overlaps: 10179 Technic Brick 4 x 6 open centre 32531 (now 32531a in the library, "~Moved to")
  crossing plates 2476b, Technic bricks 3703 / 32018 and round bricks 3941 by 4-48 LDU (rendered: the plates
  pass through the frame's bottom row; the model was drawn for an older shape of that part). The Falcon tile
  2 x 2 3068b standing on edge through Plate 2 x 4 3020 (5 LDU, round 2) is of this class.
- **Minifigure / accessory**: 6279 legs 3816 / 3817 1.0 LDU into the plates 3033 / 3027 they stand on (the
  figure is drawn 1 LDU low), peg leg 2532 2 LDU and hook hand 2531 3.3 LDU into plates; 10213 tiles with
  handle 2432 2 LDU into plates 3958 / tiles 3068b under them. Real as drawn.
- **Technic pin or axle not mated / mated beyond allowance**: 75060 pin 32138 / joiner 62462 3.9-4.3 LDU into
  wedge 43713; 10179 axle 4519 16 LDU along a 32531 frame (mated, but drawn through its wall); control sticks
  4593 turned 92 degrees in their bases 4592 (round 2). Real as drawn.
- **Wheels**: 10252 steering wheel 2819 4.5 LDU into bar 6190. Real as drawn.

Not yet resolved (open): the "stuck" pairs (1,370 over all classes) are not all checked pair by pair; inset
of open boundaries (a) and merging of near-duplicate vertices (b) are the next validator fixes. A first try
at (a) (every vertex of an edge used by one triangle also moved into its triangle, in plane) removed 66
"touching" pairs but added 229 elsewhere (mated beyond allowance 187 -> 376: borders left by mismatched
tessellation seams inside closed parts, whose directions and thickness caps it changed), so it is not in.
"""


#: Hand-checked findings on the floating parts and component counts (kept with the generated tables).
_SUPPORT_FINDINGS = """## Floating parts and components (checked by hand)

Floating parts on the 67 official models: 8,834 before this round, 682 after; components 6,911 -> 1,831.
By cause (floaters removed):

- **Flexible parts and primitives** (`_world.flexible_mask`): placements whose title holds "segment",
  "lsynth", "string", "hose flexible", "flex-system", "flex cable", "chain link", "rope", and LDraw primitives
  placed from a model (`p/` folder) are exempt from floating and, when unmated, from the component count:
  6285 Black Seas Barracuda 2,098 `4-4cyli` scaled into rigging + 41 hose 754; 10182 Cafe Corner 271 embedded
  "LSynth Synthesis Part" LS50/LS51; 6279 Skull Island 248 "LSynth ... String Segment" LS60; 6080 Kings Castle
  168 and 70814 Emmet's Mech 97 `4-4cyli`; 6799 / 7410 31 chain links 209 (alias of 30104k02); 21019 Eiffel
  Tower 8 `stud3a`; 21043 4 u9053. About 3,000 floaters; components drop most where hoses are drawn as
  hundreds of 754 segments (21103 DeLorean 601 -> 67).
- **Assemblies set down by their weight** (`support._settle_edges`, `TOL.settle_drop` 4 LDU, objects of at
  least 20 parts): 10030 Imperial Star Destroyer: the 1,246-part superstructure (#0/#0.., frame of Technic
  bricks) sits on the 1,677-part hull (#0/#197); they share no connector within 12 LDU. Rendered
  (`render_build(..., highlight=hull)`): the 2 x 2 post of four 6541 bricks, two 2780 pins and two 3048b
  slopes (#0/#197/#106/#133/#19-#22) stands in the open centre of the 4 x 4 Technic brick 32324 (#0/#31/#0):
  a locating post, the superstructure held by its weight. It is drawn 2.5-5.5 LDU above the hull (first
  contact when lowered 3 LDU: 32324 on the pins; the frame bricks 32018 meet the hull wings 30355/30356,
  which are tilted 14 degrees, at 6 LDU). The whole hull then stands on its own ground, 72 LDU above the
  stand drawn apart. 10283 Space Shuttle (1,739 parts) rests on its stand 2 LDU lower (plates 3030 on the
  stand's arches 2339, studs 1.8 LDU off): 2,927 + 1,739 floaters.
- **MPD-embedded copies of library parts** (`connections.embedded_aliases`): "10283 - 61332.dat" is Philo's
  Technic Pin with Friction Type 2 (library 61332); it carried no labels, so the shuttle stand's column was
  cut from its base (48 floaters). Such copies now take the library part's connectors when their meshes'
  bounding boxes agree within 1 LDU.
- **Helmet labels off centre** (`connections`, headgear on a "Minifig Head" stud within `TOL.joint_position`):
  all 32 helmets 2446 (and prints) sit 1.19-1.26 LDU from the head stud (label at (0, -0.9, 0.8)); caps 4485
  1.08, helmets 30168a 2.0 LDU: 2 floaters (helmet + visor) in each of 10 space sets.
- **Separate objects** need a 12 LDU gap to every other object (`support.SEPARATE_GAP`; measured: real ones are
  15.9 LDU or more apart) so that a part left hanging near its former neighbours still floats.

Remaining (682), examined by set (largest first; not all checked part by part):
10224 Town Hall 75 (52 + 14 window glass 60601 / 60602: no BrickNet labels, held in the frame's groove by
side contact only, which support does not count); 21321 ISS 73 (solar-panel assemblies on tilted Technic
axles 3941 / 4032a and embedded 30350cp01 tiles with no matching library part); 6969 Celestial Stinger 62
(insect wings 30231 and arms on clips drawn off their bars); 10240 X-wing 50 (wing mechanism: pins 4274 and
62462 in tilted beams, unmated); 6285 Barracuda 46 (coins 70501, round bricks 3062b on masts); 70814 Emmet 35;
6278 Enchanted Island 34 (palm trunks 2536 stacked at angles); 10213 34; 21325 27; 10179 Falcon 26; 10212 22;
10030 22 (minifigures and crates 2489 inside the hull, no support under them in the file); 10252 21;
5542 18 (embedded stickers without library twin); 1180 Moon Buggy 2 (dish 3960 fixed to a tilted 3700: no
label covers it). Component counts left: loose minifigures and accessories, window glass and other unlabeled
parts (each its own component), parts resting without connectors (10030 keeps 71 components: superstructure and hull are joined by weight, not by a connector).

Fault injection (`benchmarks/fault_injection_support.py --per-model 12`, 9 small official models): 211
faults, 100% caught: lift one plate along the part's own up axis 15/15 (floats and has no mated connector),
lift into another part 87/87 (reported as a collision), lift along a mated bar or axle 6/6 (stays held),
delete the only holder 103/103 (every dependant floats).
"""


def run(models: Path, only: str | None, incremental: bool) -> list[dict]:
    import bricklayer
    from bricklayer.validate import collision_details
    from bricklayer.validate.collisions import collision_engine, unchecked_placements
    from bricklayer.validate.support import support_graph

    rows = []
    for path in sorted(models.glob("*.mpd")):
        if only and only not in path.name:
            continue
        t0 = time.perf_counter()
        b = bricklayer.read_ldraw(path)
        t1 = time.perf_counter()
        eng = collision_engine(b)
        coll = b.colliding_placements
        flo = b.floating_placements
        comps = b.num_connected_components
        t2 = time.perf_counter()
        details = collision_details(b, max_depth_estimates=400)
        causes = Counter(_cause(r) for r in details)
        sup = support_graph(b, separate_objects=True)  # to tell objects drawn apart from other floaters
        flat = b.flattened_placements
        row = dict(model=path.stem, parts=len(flat), read_s=round(t1 - t0, 3), validate_s=round(t2 - t1, 3),
                   parts_per_s=round(len(flat) / max(t2 - t1, 1e-9)), candidates=int(len(eng.pairs)),
                   colliding=len(coll), press_fits=int(len(eng.press_fits())), floating=len(flo),
                   components=comps, unchecked=len(unchecked_placements(b)),
                   collision_causes=dict(causes),
                   floating_drawn_apart=len(flo) - len(sup.floating),
                   own_ground_objects={str(k): v for k, v in sup.own_ground.items()},
                   collisions=[r.message() for r in details[:40]],
                   floating_parts=[b.describe(flat[i]) for i in sup.floating.tolist()[:40]])
        if incremental:
            from bricklayer import Element
            top = max(flat, key=lambda p: p.bounding_box.max.z)
            b.add_raw(Element("3005"), top.pose @ bricklayer.geometry.types.Pose(translation=(0, 0, 200)))
            from bricklayer.validate.connections import connection_graph

            t3 = time.perf_counter()
            connection_graph(b)
            t4 = time.perf_counter()
            _ = b.colliding_placements, b.floating_placements, b.num_connected_components
            row["add_one_s"] = round(time.perf_counter() - t3, 3)
            row["add_one_connections_s"] = round(t4 - t3, 3)
            row["add_one_fraction"] = round((time.perf_counter() - t3) / max(t2 - t1, 1e-9), 3)
        rows.append(row)
        logging.getLogger("bench").warning("%s: %d parts, %d colliding, %d floating, %d comps, %.2fs",
                                           path.stem, len(flat), len(coll), len(flo), comps, t2 - t1)
    return rows


def write_report(rows: list[dict]) -> None:
    (HERE / "official_report.json").write_text(json.dumps(rows, indent=1))
    lines = ["# Validator on the official models", "",
             "Generated by `benchmarks/validate.py` (warm mesh and collision caches).", "",
             "| model | parts | colliding | press fits excused | floating | components | unchecked | validate s |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    tot = Counter()
    for r in rows:
        lines.append(f"| {r['model']} | {r['parts']} | {r['colliding']} | {r['press_fits']} | {r['floating']} | "
                     f"{r['components']} | {r['unchecked']} | {r['validate_s']} |")
        tot.update(r["collision_causes"])
    lines += ["", "## Causes of the reported collisions (all models)", ""]
    lines += [f"- {k}: {v}" for k, v in tot.most_common()]
    lines += ["", f"Total floating: {sum(r['floating'] for r in rows)}; components: "
                  f"{sum(r['components'] for r in rows)}.", "", _SUPPORT_FINDINGS, _FINDINGS]
    (HERE / "official_report.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", type=Path, default=DEFAULT_MODELS)
    ap.add_argument("--only")
    ap.add_argument("--incremental", action="store_true")
    ap.add_argument("--no-write", action="store_true")
    a = ap.parse_args()
    logging.basicConfig(level=logging.ERROR)
    logging.getLogger("bench").setLevel(logging.WARNING)
    rows = run(a.models, a.only, a.incremental)
    if not a.no_write:
        write_report(rows)
