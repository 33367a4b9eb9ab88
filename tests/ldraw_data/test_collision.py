"""Collision shapes (ldraw_data.collision) on real library parts: merging of near-duplicate vertices."""

import numpy as np
import pytest
from scipy.spatial import cKDTree

from ldraw_data.collision import shape_from_mesh
from ldraw_data.mesh import part_mesh


def _shape(name):
    return shape_from_mesh(part_mesh(name))


@pytest.mark.parametrize("name", ["22385", "6558"])
def test_near_duplicate_vertices_are_merged(name):
    # LDraw rounds to 4 decimals: corners meant to coincide land up to ~1e-3 LDU apart (module step 1).
    s = _shape(name)
    d, _ = cKDTree(s.vertices).query(s.vertices, k=2)
    assert d[:, 1].min() >= 2e-3


def test_angled_tile_corner_moves_by_the_full_inset():
    # Tile 3 x 2 with angled end 22385: the corner of the 45-degree end at (-14.2426, 4, -15.7574)
    # (x + z = -30 on the angled face) was two copies 0.0004 LDU apart, each capped at 0.
    s = _shape("22385")
    k = np.argmin(np.linalg.norm(s.vertices - [-14.2426, 4.0, -15.7574], axis=1))
    assert np.linalg.norm(s.vertices[k] - [-14.2426, 4.0, -15.7574]) < 2e-3
    assert s.caps[k] >= 0.25
    moved = np.linalg.norm(s.inset_vertices(0.25)[k] - s.vertices[k])
    assert moved >= 0.25  # |x| >= 1: each face plane through it moves in by 0.25 LDU


def test_friction_pin_has_no_immovable_vertices():
    # Technic pin with friction 6558: 6 vertices never moved (cap 0) before the merge.
    s = _shape("6558")
    movable = s.caps * np.linalg.norm(s.directions, axis=1)
    assert (movable >= 0.2).all()


def test_brick_corners_unchanged():
    # Brick 2 x 4 3001: bottom corner (4 studs x 20 / 2, height 24, 2 studs x 20 / 2) keeps the
    # box-corner direction (+-1, +-1, +-1) of module step 4.
    s = _shape("3001")
    k = np.argmin(np.linalg.norm(s.vertices - [40.0, 24.0, 20.0], axis=1))
    assert np.allclose(s.vertices[k], [40.0, 24.0, 20.0])
    assert np.allclose(np.abs(s.directions[k]), 1.0, atol=1e-6)
