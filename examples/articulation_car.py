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

from bricklayer import Color, Element, LegoBuild, MotionRange, Revolute, write_ldraw  # noqa: E402
from car import _slide_to  # noqa: E402
from car import create_build as static_car  # noqa: E402

#: Full turn either way: the range check_motion samples (every 5 degrees, both limits and zero).
WHEEL_TURN = MotionRange(Revolute(-180), Revolute(180))


def create_build(blocked: bool = False) -> LegoBuild:
    """The car of ``examples/car.py`` with both axles declared to turn; ``blocked`` adds the crank that
    stops the front axle once it points above horizontal.

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
    car = static_car()
    car.name = "articulated_car"
    for tag in ("front", "rear"):
        car.set_motion(car.joint(f"axle_{tag}"), WHEEL_TURN)
    if blocked:
        axle = next(c for c in car.connectors if c.type == "axle" and abs(c.position.x - 140) < 1e-6)
        arm = Element("6632", Color.RED)                                             # liftarm 1 x 3, axle holes at ends
        # hangs 40 LDU below the axle (hole to hole); the floor plate is 10 LDU above the axle
        car.connect(arm, arm.find_connector("axle_hole", toward=(0, -20, 8)), axle,
                    target_position=_slide_to(axle, 40), target_rotation=180,  # arm z -35..23 LDU
                    name="crank")
    return car


if __name__ == "__main__":
    from _common import out_path

    build = create_build()
    print(build.check_motion())
    write_ldraw(build.posed({"axle_front": Revolute(45), "axle_rear": Revolute(45)}),
                out_path("articulation_car.ldr"), overwrite=True)
