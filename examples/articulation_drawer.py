"""A drawer that slides out 3 studs on an axle: a prismatic joint that check_motion passes.

The mechanism: a Technic axle 6 (3706) is held in the cross hole of a Technic brick 1 x 2 with
axle hole (32064b) at the back of a 6 x 8 base; the drawer hangs on the same axle by the cross
hole of a second 32064b, which slides along it (axle in axle hole: prismatic, BrickNet mate
tables) but cannot turn on it. The drawer brick rests on two 2 x 2 tiles (no studs, so nothing
holds it down but the axle) and carries the drawer box: a 4 x 4 floor plate with 1 x 4 side walls
and a 1 x 2 front. The joint is declared with
``connect(..., motion=MotionRange(Prismatic(0), Prismatic(3)))``: positive slides toward the front
(-Y), 3 studs keep the whole 20 LDU hole on the axle (axle y 40..160 LDU, drawer brick from y
100..120 at rest to 40..60 open).

``create_build(blocked=True)`` puts a wall two bricks high across the front (y 0..20 LDU, up to
56 LDU): the drawer floor (front edge 40 LDU at rest, 40..48 LDU high) reaches it after 1 stud, so
check_motion reports the slides 1.5, 2.25 and 3 and not 0.75. Run:
``python examples/articulation_drawer.py --out out/``.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bricklayer import Color, Element, LegoBuild, MotionRange, Mounting, Prismatic, Rotation, write_ldraw  # noqa: E402
from bricklayer.construction import brick, plate, tile  # noqa: E402

#: 0 (closed) to 3 studs out.
DRAWER_SLIDE = MotionRange(Prismatic(0), Prismatic(3))
#: 3036 (6 x 8) and 3010 (1 x 4) lie long side along X; a quarter turn puts it along Y.
_ALONG_Y = Rotation.DEG_90


def create_build(blocked: bool = False) -> LegoBuild:
    """The drawer unit; ``blocked`` adds a wall in front of the drawer.

    Parameters
    ----------
    blocked : bool

    Returns
    -------
    LegoBuild
        Named placements: ``base``, ``rail_plate``, ``rail_brick`` (fixed), ``rail`` (the axle),
        ``track_front``/``track_back`` (tiles), ``drawer`` (the sliding brick: the movable joint),
        ``drawer_floor``, ``drawer_left``/``drawer_right``/``drawer_front``, and ``blocker_low``/
        ``blocker_high`` when blocked.
    """
    b = LegoBuild(name="drawer_example")
    b.add(plate(6, 8, Color.DARK_BLUISH_GREY), (0, 0, 0), _ALONG_Y, name="base")    # x 0..6, y 0..8 studs
    b.add(plate(2, 1, Color.DARK_BLUISH_GREY), (2, 7, 1), name="rail_plate")         # lifts the back brick
    b.add(Element("32064b", Color.LIGHT_BLUISH_GREY), (2, 7, 2), name="rail_brick")  # cross hole along Y
    b.add(tile(2, 2, Color.LIGHT_BLUISH_GREY), (2, 2, 1), name="track_front")
    b.add(tile(2, 2, Color.LIGHT_BLUISH_GREY), (2, 4, 1), name="track_back")
    hole = b.find_connector("axle_hole")
    axle_el = Element("3706", Color.BLACK)                                            # axle 6, 120 LDU
    # turned over (FLIPPED) the axle's axis points toward -Y, the drawer's way out; centred at
    # y = 100 LDU it spans y 40..160 LDU
    rail = b.connect(axle_el, axle_el.find_connector("axle"), hole, mounting=Mounting.FLIPPED,
                     target_position=_slide_for(hole, 100.0), name="rail")
    axle = next(c for c in b.connectors if c.type == "axle" and any(p is rail for p in c.path))
    slider = Element("32064b", Color.RED)
    # a half turn about the axle stands the brick upright on the tiles (0 hangs it upside down)
    b.connect(slider, slider.find_connector("axle_hole"), axle, target_position=_slide_for(axle, 110.0),
              target_rotation=180, motion=DRAWER_SLIDE, name="drawer")
    b.stack(plate(4, 4, Color.RED), "drawer", offset=(-1, -3, 0), name="drawer_floor")  # x 1..5, y 2..6
    b.stack(brick(1, 4, color=Color.RED), "drawer_floor", offset=(0, 0, 0), rotation=_ALONG_Y,
            name="drawer_left")
    b.stack(brick(1, 4, color=Color.RED), "drawer_floor", offset=(3, 0, 0), rotation=_ALONG_Y,
            name="drawer_right")
    b.stack(brick(2, 1, color=Color.RED), "drawer_floor", offset=(1, 0, 0), name="drawer_front")
    if blocked:
        b.add(brick(4, 1, color=Color.YELLOW), (1, 0, 1), name="blocker_low")
        b.stack(brick(4, 1, color=Color.YELLOW), "blocker_low", name="blocker_high")
    return b


def _slide_for(conn, target_y: float) -> float:
    """Slide (studs) along a connector that puts its origin at world y = target_y (LDU)."""
    return (target_y - conn.position.y) / conn.axis.y / 20.0


if __name__ == "__main__":
    from _common import out_path

    build = create_build()
    print(build.check_motion())
    write_ldraw(build.posed({"drawer": Prismatic(2)}), out_path("articulation_drawer.ldr"), overwrite=True)
