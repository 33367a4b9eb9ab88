"""Worked connection examples for the system prompt, each a tested function (tests/brickwright/test_prompt_examples.py).

The prompt shows their source (``inspect.getsource``), so the examples cannot drift from working code: every
function returns a valid (no collisions, nothing floating) and connected build on the real LDraw library.
"""

from __future__ import annotations

__all__ = ["EXAMPLES", "examples_source"]

import inspect

from bricklayer import Color, Direction, Element, LegoBuild, MotionRange, Mounting, Revolute, minifigure


def studs_example() -> LegoBuild:
    """Studs: grid placement with ``stack`` (a 2 x 4 plate on a 2 x 4 brick, flush at the front-right)."""
    build = LegoBuild()
    base = build.add(Element("3001", Color.RED), (0, 0, 0))
    build.stack(Element("3020", Color.BLUE), on=base)
    return build


def hinge_example() -> LegoBuild:
    """Hinge brick 1 x 2: the top half (3938) on the base (3937), movable 0..90 degrees.

    The angle turns about the hinge axis (+x here): positive angles swing the top toward the base's front
    (-y), negative ones push it into the base (they collide). To open toward the back, turn the base 180
    degrees (``build.add(..., rotation=Rotation.DEG_180)``) and keep the 0..90 range.
    """
    build = LegoBuild()
    build.add(Element("3937", Color.LIGHT_GREY), (0, 0, 0))
    top = Element("3938", Color.LIGHT_GREY)
    build.connect(top, top.find_connector("hinge_brick_top"), build.find_connector("hinge_brick_base"),
                  away=True, motion=MotionRange(Revolute(0), Revolute(90)))
    return build


def turntable_example() -> LegoBuild:
    """Turntable 2 x 2: the top (3679) turns on the base (3680) about the vertical axis."""
    build = LegoBuild()
    build.add(Element("3680", Color.DARK_GREY), (0, 0, 0))
    top = Element("3679", Color.LIGHT_GREY)
    build.connect(top, top.find_connector("turntable_socket"), build.find_connector("turntable_pin"),
                  motion=MotionRange(Revolute(-180), Revolute(180)))
    return build


def pin_example() -> LegoBuild:
    """Technic pin 2780 in a beam's hole, a second beam turning on its other end (-90..90 degrees).

    ``Mounting.FLIPPED`` turns the pin end for end, so it sticks up out of the hole, not down.
    """
    build = LegoBuild()
    build.add(Element("32524", Color.RED), (0, 0, 0))  # Technic beam 7, along y, holes vertical
    pin = Element("2780", Color.BLACK)
    build.connect(pin, pin.find_connector("pin", toward=(-20, 0, 0)),
                  build.find_connector("pin_hole", toward=Direction.BACK), mounting=Mounting.FLIPPED)
    arm = Element("32524", Color.BLUE)
    build.connect(arm, arm.find_connector("pin_hole", toward=Direction.FRONT), build.find_connector("pin"),
                  motion=MotionRange(Revolute(-90), Revolute(90)))
    return build


def wheel_example() -> LegoBuild:
    """Wheels 4624c01 (rim with tyre) on the wheel pins (bars) of plate 4600; ``away=True`` turns each outward;
    they spin. The bare rim is 4624."""
    build = LegoBuild()
    build.add(Element("4600", Color.BLACK), (0, 0, 0))
    for side in (Direction.LEFT, Direction.RIGHT):
        wheel = Element("4624c01", Color.WHITE)
        build.connect(wheel, wheel.find_connector("clip"), build.find_connector("bar", toward=side), away=True,
                      motion=MotionRange(Revolute(-180), Revolute(180)))
    return build


def clip_example() -> LegoBuild:
    """A clip (plate 4085c) on the bar of handle plate 2540, turned 90 degrees about the bar."""
    build = LegoBuild()
    build.add(Element("2540", Color.BLUE), (0, 0, 0))
    clip = Element("4085c", Color.WHITE)
    build.connect(clip, clip.find_connector("clip"), build.find_connector("bar", toward=Direction.FRONT),
                  target_rotation=90)
    return build


def ball_joint_example() -> LegoBuild:
    """Ball joint: socket plate 14704 on the ball of plate 14417 (a BALL joint)."""
    build = LegoBuild()
    build.add(Element("14417", Color.DARK_BLUISH_GREY), (0, 0, 0))
    socket = Element("14704", Color.DARK_BLUISH_GREY)
    build.connect(socket, socket.find_connector("towball_socket"), build.find_connector("towball"), away=True)
    return build


def seated_minifigure_example() -> LegoBuild:
    """A minifigure with legs at 90 degrees, its seat's anti-studs on the studs of a plate."""
    build = LegoBuild()
    build.add(Element("3020", Color.RED), (0, 0, 0))
    fig = minifigure(leg_angles=(90, 90))
    build.connect(fig, fig.find_connector("antistud", toward=(-10, 2, 18)),
                  build.find_connector("stud", toward=(10, 10, 8)))
    return build


def small_details_example() -> LegoBuild:
    """Food and small details are held by a connector, never just set down: a carrot's bar in the hollow
    stud of round plate 85861 (its ``clip``), a cup's tube on a plate stud, a popsicle's bar in the clip of
    plate 4085c. The clip hangs off one side of its 1 x 1 plate (-y), so that plate sits on the front edge
    with the clip outside; over the plate below it would collide: turn it so the clip faces out.
    ``on=`` asks for the free connectors of one part."""
    build = LegoBuild()
    table = build.add(Element("3020", Color.TAN), (0, 0, 0))  # plate 2 x 4
    holder = build.stack(Element("85861", Color.WHITE), on=table)
    carrot = Element("33172", Color.ORANGE)
    build.connect(carrot, carrot.find_connector("bar"), build.find_connector("clip", on=holder))
    cup = Element("3899", Color.WHITE)
    build.connect(cup, cup.find_connector("tube"), build.find_connector("stud", on=table, toward=(50, 30, 8)))
    clip_plate = build.stack(Element("4085c", Color.LIGHT_GREY), on=table, offset=(3, 0, 0))
    popsicle = Element("30222", Color.YELLOW)
    build.connect(popsicle, popsicle.find_connector("bar"), build.find_connector("clip", on=clip_plate))
    return build


#: The examples, in the order the prompt shows them.
EXAMPLES = (studs_example, hinge_example, turntable_example, pin_example, wheel_example, clip_example,
            ball_joint_example, seated_minifigure_example, small_details_example)


def examples_source() -> str:
    """Source of :data:`EXAMPLES` as one Python text block (for the system prompt)."""
    return "\n\n".join(inspect.getsource(f).rstrip() for f in EXAMPLES)
