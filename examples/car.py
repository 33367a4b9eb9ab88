"""A car on four wheels: two Technic bricks 1 x 8 with holes carry two axles; solid rubber wheels
with axle holes sit on the axle ends; a 4 x 8 plate, a cab and lights on top.
Axles turn in the round holes (cylindrical joints); wheels are fixed on the axles by their
cross holes (prismatic along the axle). Run: ``python examples/car.py --out out/``."""

from bricklayer import Color, Element, LegoBuild, Mounting, Rotation, write_ldraw


def _slide_to(axle_conn, target_y: float) -> float:
    """Slide (studs) along an axle connector that puts a point at world y = target_y."""
    return (target_y - axle_conn.position.y) / axle_conn.axis.y / 20.0


def create_build() -> LegoBuild:
    car = LegoBuild(name="car")
    left = car.add(Element("3702", Color.BLACK), (0, 0, 0), name="frame_left")     # y 0..20 LDU
    right = car.add(Element("3702", Color.BLACK), (0, 3, 0), name="frame_right")   # y 60..80 LDU
    car.stack(Element("3035", Color.RED), on=left, name="floor")                     # plate 4 x 8 over both
    wheel = Element("4288", Color.BLACK)
    hub = wheel.find_connector("axle_hole")
    for tag, x in (("front", 140), ("rear", 20)):
        hole = car.find_connector("pin_hole", toward=(x, 0, 14))
        axle_el = Element("3706", Color.LIGHT_BLUISH_GREY)                           # axle 6 (120 LDU)
        a = car.connect(axle_el, axle_el.find_connector("axle"), hole,
                        target_position=_slide_to(hole, 40), name=f"axle_{tag}")    # centred at y = 40
        assert car.joint(a).kind.name == "CYLINDRICAL"  # an axle turns in a round hole
        axle = next(c for c in car.connectors if c.type == "axle" and abs(c.position.x - x) < 1e-6)
        # The hub (axle hole, 16.25 LDU long) is on one side of the 33 LDU wide wheel: turn the
        # left wheel over so its tyre points outward; hub centres 9.5 LDU outside the brick faces.
        car.connect(wheel, hub, axle, mounting=Mounting.FLIPPED, target_position=_slide_to(axle, -9.5),
                    name=f"wheel_{tag}_left")
        car.connect(wheel, hub, axle, target_position=_slide_to(axle, 89.5), name=f"wheel_{tag}_right")
    cab = car.add(Element("3001", Color.WHITE), (2, 0, 4), Rotation.DEG_90, name="cab_rear")
    car.add(Element("3001", Color.WHITE), (4, 0, 4), Rotation.DEG_90, name="cab_front")
    car.stack(Element("3031", Color.WHITE), on=cab, name="roof")                       # 4 x 4 roof
    car.add(Element("3024", Color.YELLOW), (7, 0, 4), name="light_left")
    car.add(Element("3024", Color.YELLOW), (7, 3, 4), name="light_right")
    return car


if __name__ == "__main__":
    from _common import out_path

    b = create_build()
    print(f"{b.brick_count} parts, {b.num_connected_components} component(s)")
    print(write_ldraw(b, out_path("car.ldr"), overwrite=True))
