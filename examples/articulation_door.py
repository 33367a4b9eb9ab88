"""A door on its hinge that opens 90 degrees toward the back; check_motion passes.

``create_build(blocked=True)`` puts a 1 x 1 brick in the door's swing, which
check_motion reports at the open poses.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bricklayer import PLATE, Color, Element, LegoBuild, Pose, Revolute, write_ldraw  # noqa: E402
from bricklayer.construction import brick, door  # noqa: E402


def create_build(blocked: bool = False) -> LegoBuild:
    b = LegoBuild(name="door_example")
    b.add(Element("3035", Color.DARK_BLUISH_GREY), (0, 0, 0), name="base")  # plate 4 x 8 (8 along X)
    d = door(swing=90)
    # the door leaf's box reaches past the frame, so place the sub-build by its frame (origin = frame corner)
    b.add_raw(d, Pose(None, (0, 0, PLATE)), name="door")
    if blocked:
        # door at 90 degrees spans x 0..1 stud, y 0.5..4 studs: a brick at (0, 3) stands in its swing
        b.add(brick(1, 1, color=Color.RED), (0, 3, 1), name="blocker")
    return b


if __name__ == "__main__":
    from _common import out_path

    build = create_build()
    print(build.check_motion())
    write_ldraw(build.posed({"door/door": Revolute(-60)}), out_path("articulation_door.ldr"), overwrite=True)
