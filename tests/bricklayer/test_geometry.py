"""Value types and the LDraw frame conversion (worked by hand)."""

import numpy as np
import pytest

from bricklayer import Anchor, Box, Direction, Pose, Position, Rotation, Vec3, rotation_about
from bricklayer.geometry import B2L, L2B, as_position


def test_position_to_ldu():
    assert Position(1, 2, 3).to_ldu() == Vec3(20, 40, 24)


def test_off_grid_position_raises():
    with pytest.raises(ValueError, match="off-grid"):
        as_position((0.5, 0, 0))


def test_quarter_turns_are_exact():
    assert np.array_equal(np.asarray(Rotation.DEG_90.matrix), [[0, -1, 0], [1, 0, 0], [0, 0, 1]])
    assert rotation_about(Direction.UP, 90) @ (1, 0, 0) == Vec3(0, 1, 0)
    assert rotation_about((1, 0, 0), 180) @ (0, 1, 0) == Vec3(0, -1, 0)


def test_pose_compose_and_inverse():
    p = Pose(Rotation.DEG_90, (1, 2, 3))
    assert p @ Vec3(1, 0, 0) == Vec3(1, 3, 3)
    assert np.allclose((p @ p.inverse()).matrix, np.eye(4))


def test_ldraw_frame_is_a_proper_rotation():
    # BrickLayer (x, y, z) is LDraw (x, -z, y): up (+Z) is LDraw -Y
    assert np.allclose(B2L[:3, :3] @ [0, 0, 1], [0, -1, 0])
    assert np.allclose(B2L[:3, :3] @ [0, 1, 0], [0, 0, 1])
    assert np.isclose(np.linalg.det(B2L[:3, :3]), 1.0)
    assert np.allclose(L2B @ B2L, np.eye(4))


def test_anchor_points():
    box = Box(Vec3(0, 0, 0), Vec3(80, 40, 24))
    assert Anchor.FRONT_RIGHT.point(box) == Vec3(0, 0, 0)
    assert Anchor.BACK_LEFT.point(box) == Vec3(80, 40, 0)
    assert Anchor.CENTER.point(box) == Vec3(40, 20, 0)
