"""A small house: a green base plate, running-bond brick walls with a door opening, a plate roof
with a slope ridge. Run: ``python examples/small_house.py --out out/`` -> ``out/small_house.ldr``."""

from bricklayer import Color, Element, LegoBuild, Rotation, write_ldraw


def create_build() -> LegoBuild:
    house = LegoBuild(name="small_house")
    base = house.add(Element("3036", Color.GREEN), (0, 0, 0), name="base")  # plate 6 x 8
    wall = Color.WHITE
    # two courses of bricks around a 6 x 8 footprint; the second course is offset (running bond)
    # so every joint of the first course is bridged. The door opening is in the front wall.
    course1 = [
        ("3010", (0, 0), Rotation.DEG_0), ("3004", (4, 0), Rotation.DEG_0),          # front: 1x4, door gap x=6..7
        ("3010", (0, 5), Rotation.DEG_0), ("3010", (4, 5), Rotation.DEG_0),          # back (x 0..7)
        ("3010", (0, 1), Rotation.DEG_90), ("3010", (7, 1), Rotation.DEG_90),        # sides (y 1..4)
    ]
    course2 = [
        ("3004", (0, 0), Rotation.DEG_0), ("3004", (2, 0), Rotation.DEG_0), ("3004", (4, 0), Rotation.DEG_0),
        ("3004", (0, 5), Rotation.DEG_0), ("3010", (2, 5), Rotation.DEG_0), ("3004", (6, 5), Rotation.DEG_0),
        ("3004", (0, 1), Rotation.DEG_90), ("3004", (0, 3), Rotation.DEG_90),
        ("3004", (7, 1), Rotation.DEG_90), ("3004", (7, 3), Rotation.DEG_90),
    ]
    for z, course in ((1, course1), (4, course2)):
        for part, (x, y), rot in course:
            house.add(Element(part, wall), (x, y, z), rot)
    # door lintel over the opening: a 1 x 4 brick on the third course spanning x = 4..7
    house.add(Element("3010", Color.RED), (4, 0, 7))
    house.add(Element("3010", wall), (0, 0, 7))
    house.add(Element("3010", wall), (0, 5, 7))
    house.add(Element("3010", wall), (4, 5, 7))
    house.add(Element("3004", wall), (0, 1, 7), Rotation.DEG_90)
    house.add(Element("3004", wall), (0, 3, 7), Rotation.DEG_90)
    house.add(Element("3004", wall), (7, 1, 7), Rotation.DEG_90)
    house.add(Element("3004", wall), (7, 3, 7), Rotation.DEG_90)
    roof = house.add(Element("3036", Color.DARK_BLUISH_GREY), (0, 0, 10), name="roof")  # plate 6 x 8
    for x in range(0, 8, 2):
        # 3039 unturned slopes down toward -Y (front) with its studs at the back: a ridge in the middle
        house.add(Element("3039", Color.RED), (x, 1, 11))                    # front row slopes to the front
        house.add(Element("3039", Color.RED), (x, 3, 11), Rotation.DEG_180)  # back row slopes to the back
    assert base is house.named("base") and roof is house.named("roof")
    return house


if __name__ == "__main__":
    from _common import out_path

    b = create_build()
    print(f"{b.brick_count} parts, {b.num_connected_components} component(s)")
    print(write_ldraw(b, out_path("small_house.ldr"), overwrite=True))
