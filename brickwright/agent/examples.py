"""Worked connection examples for the system prompt, each a tested function (tests/brickwright/test_prompt_examples.py).

The prompt shows their source (``inspect.getsource``), so the examples cannot drift from working code: every
function returns a valid (no collisions, nothing floating) and connected build on the real LDraw library.
"""

from __future__ import annotations

__all__ = ["EXAMPLES", "examples_source"]

import inspect

from bricklayer import Color, Element, LegoBuild, Revolute, MotionRange


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


#: The examples, in the order the prompt shows them.
EXAMPLES = (studs_example, hinge_example, turntable_example)


def examples_source() -> str:
    """Source of :data:`EXAMPLES` as one Python text block (for the system prompt)."""
    return "\n\n".join(inspect.getsource(f).rstrip() for f in EXAMPLES)
