"""A tower of nested sub-builds: a ``ring`` (one course of bricks round a 4 x 4 footprint) is used
twice in a ``storey`` (two courses, the second turned for a running bond, and a floor plate), and
the storey is stacked four times on a base. Editing ``ring`` or ``storey`` changes every copy.
Run: ``python examples/tower.py --out out/`` -> ``out/tower.mpd`` (an MPD with one submodel each)."""

from bricklayer import Color, Element, LegoBuild, Rotation, write_ldraw


def ring(color) -> LegoBuild:
    r = LegoBuild(name="ring")
    r.add(Element("3010", color), (0, 0, 0), name="front")                  # 1 x 4 along x at y = 0
    r.add(Element("3010", color), (0, 3, 0), name="back")
    r.add(Element("3004", color), (0, 1, 0), Rotation.DEG_90, name="left")  # 1 x 2 along y
    r.add(Element("3004", color), (3, 1, 0), Rotation.DEG_90, name="right")
    return r


def storey(color) -> LegoBuild:
    course = ring(color)
    s = LegoBuild(name="storey")
    s.add(course, (0, 0, 0), name="course1")
    s.add(course, (0, 0, 3), Rotation.DEG_90, name="course2")   # the same ring, turned: joints overlap
    s.add(Element("3031", Color.DARK_BLUISH_GREY), (0, 0, 6), name="floor")
    return s


def create_build() -> LegoBuild:
    tower = LegoBuild(name="tower")
    tower.add(Element("3031", Color.GREEN), (0, 0, 0), name="base")
    level = storey(Color.TAN)
    for i in range(4):
        tower.add(level, (0, 0, 1 + 7 * i), name=f"storey{i + 1}")
    tower.add(Element("3062b", Color.TRANS_CLEAR), (1, 1, 29), name="lamp")
    return tower


if __name__ == "__main__":
    from _common import out_path

    b = create_build()
    print(f"{b.brick_count} parts, {b.num_connected_components} component(s)")
    print(write_ldraw(b, out_path("tower.mpd"), overwrite=True))
