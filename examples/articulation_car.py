"""A car whose four wheels turn: each axle turns in the round holes of the two Technic bricks and
carries its two wheels; check_motion passes for both axles all the way round.

The wheel-turning mechanism is the real one: the axle (3706) is connected to a round hole
(``pin_hole``, cylindrical) with ``motion=MotionRange(Revolute(-180), Revolute(180))``; the wheels
(4288) sit on the axle by their cross holes (axle in axle hole: they cannot turn on it), so the
connection graph keeps them rigid on the axle and they turn with it. The axle also passes through
the second frame brick's hole on the same axis line; that mate turns with the joint
(:func:`bricklayer.articulation.posed` cuts coaxial mates that allow the motion).

``create_build(blocked=True)`` adds a crank (liftarm 6632, 3 long) on the front axle between the
frame bricks, hanging down: it clears everything while the axle turns a quarter either way, and
hits the 4 x 8 floor plate when it points up (at +-180 degrees), which check_motion reports.
Run: ``python examples/articulation_car.py --out out/``.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bricklayer import Color, Element, LegoBuild, MotionRange, Mounting, Revolute, Rotation, write_ldraw  # noqa: E402

#: Full turn either way: the range check_motion samples (-180, -90, 0, 90, 180 at samples=5).
WHEEL_TURN = MotionRange(Revolute(-180), Revolute(180))


def _slide_to(axle_conn, target_y: float) -> float:
    """Slide (studs) along an axle connector that puts its origin at world y = target_y (LDU)."""
    return (target_y - axle_conn.position.y) / axle_conn.axis.y / 20.0


def create_build(blocked: bool = False) -> LegoBuild:
    """The car; ``blocked`` adds the crank that stops the front axle at +-180 degrees.

    Parameters
    ----------
    blocked : bool

    Returns
    -------
    LegoBuild
        Named placements: ``frame_left``, ``frame_right``, ``floor``, ``axle_front``/``axle_rear``
        (the movable joints), ``wheel_<front|rear>_<left|right>``, cab and lights, and ``crank``
        when blocked.
    """
    car = LegoBuild(name="articulated_car")
    left = car.add(Element("3702", Color.BLACK), (0, 0, 0), name="frame_left")     # y 0..20 LDU
    car.add(Element("3702", Color.BLACK), (0, 3, 0), name="frame_right")            # y 60..80 LDU
    car.stack(Element("3035", Color.RED), on=left, name="floor")                     # plate 4 x 8 over both
    wheel = Element("4288", Color.BLACK)
    hub = wheel.find_connector("axle_hole")
    for tag, x in (("front", 140), ("rear", 20)):
        hole = car.find_connector("pin_hole", toward=(x, 0, 14))
        axle_el = Element("3706", Color.LIGHT_BLUISH_GREY)                           # axle 6 (120 LDU)
        car.connect(axle_el, axle_el.find_connector("axle"), hole, target_position=_slide_to(hole, 40),
                    motion=WHEEL_TURN, name=f"axle_{tag}")                         # centred at y = 40
        axle = next(c for c in car.connectors if c.type == "axle" and abs(c.position.x - x) < 1e-6)
        # hub centres 9.5 LDU outside the brick faces; the left wheel turned over (tyre outward)
        car.connect(wheel, hub, axle, mounting=Mounting.FLIPPED, target_position=_slide_to(axle, -9.5),
                    name=f"wheel_{tag}_left")
        car.connect(wheel, hub, axle, target_position=_slide_to(axle, 89.5), name=f"wheel_{tag}_right")
    if blocked:
        axle = next(c for c in car.connectors if c.type == "axle" and abs(c.position.x - 140) < 1e-6)
        arm = Element("6632", Color.RED)                                             # liftarm 1 x 3, axle holes at ends
        # hangs 40 LDU below the axle (hole to hole); the floor plate is 10 LDU above the axle
        car.connect(arm, arm.find_connector("axle_hole", toward=(0, -20, 8)), axle,
                    target_position=_slide_to(axle, 40), target_rotation=180,  # arm z -35..23 LDU
                    name="crank")
    cab = car.add(Element("3001", Color.WHITE), (2, 0, 4), Rotation.DEG_90, name="cab_rear")
    car.add(Element("3001", Color.WHITE), (4, 0, 4), Rotation.DEG_90, name="cab_front")
    car.stack(Element("3031", Color.WHITE), on=cab, name="roof")                       # 4 x 4 roof
    car.add(Element("3024", Color.YELLOW), (7, 0, 4), name="light_left")
    car.add(Element("3024", Color.YELLOW), (7, 3, 4), name="light_right")
    return car


if __name__ == "__main__":
    from _common import out_path

    build = create_build()
    print(build.check_motion())
    write_ldraw(build.posed({"axle_front": Revolute(45), "axle_rear": Revolute(45)}),
                out_path("articulation_car.ldr"), overwrite=True)
