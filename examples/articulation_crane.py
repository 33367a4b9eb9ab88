"""A crane arm on a 2 x 2 turntable: the top (3679) turns on the base (3680) all the way round."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bricklayer import Color, Element, LegoBuild, MotionRange, Revolute, write_ldraw  # noqa: E402
from bricklayer.construction import brick, plate  # noqa: E402


def create_build() -> LegoBuild:
    b = LegoBuild(name="crane_example")
    b.add(plate(6, 6, Color.DARK_BLUISH_GREY), (0, 0, 0), name="ground")
    b.add(brick(2, 2, color=Color.YELLOW), (2, 2, 1), name="tower")
    base = b.stack(Element("3680", Color.DARK_BLUISH_GREY), "tower", name="turntable_base")
    top = Element("3679", Color.LIGHT_BLUISH_GREY)
    b.connect(top, top.find_connector("turntable_socket"), b.find_connector("turntable_pin"), name="turntable_top",
              motion=MotionRange(Revolute(-180), Revolute(180)))
    del base
    # the arm: a 1 x 8 brick on the top's studs, reaching 5 studs beyond the tower, and a counterweight
    b.stack(brick(1, 8, color=Color.YELLOW), "turntable_top", offset=(-1, 0, 0), name="arm")
    b.stack(brick(1, 2, color=Color.BLACK), "arm", offset=(0, 0, 0), name="counterweight")
    return b


if __name__ == "__main__":
    from _common import out_path

    build = create_build()
    print(build.check_motion())
    write_ldraw(build.posed({"turntable_top": Revolute(45)}), out_path("articulation_crane.ldr"), overwrite=True)
