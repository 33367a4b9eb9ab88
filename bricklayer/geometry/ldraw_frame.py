"""The one place where the BrickLayer frame meets the LDraw frame.

BrickLayer: +X right, +Y back, +Z up. LDraw: +X right, -Y up, +Z toward the
viewer's back (LDraw spec 1.0.2: "-Y is up"). Both use LDU. A BrickLayer
point ``(x, y, z)`` is the LDraw point ``(x, -z, y)``: the proper rotation
:data:`B2L` (det +1), so no handedness changes.
"""

from __future__ import annotations

__all__ = ["B2L", "L2B", "ldraw_to_bl", "bl_to_ldraw", "points_ldraw_to_bl", "vectors_ldraw_to_bl"]

import numpy as np

#: (4, 4) BrickLayer -> LDraw: (x, y, z) -> (x, -z, y).
B2L = np.array([[1.0, 0, 0, 0], [0, 0, -1.0, 0], [0, 1.0, 0, 0], [0, 0, 0, 1.0]])
B2L.flags.writeable = False
#: (4, 4) LDraw -> BrickLayer, the inverse (transpose) of :data:`B2L`.
L2B = B2L.T.copy()
L2B.flags.writeable = False


def ldraw_to_bl(t: np.ndarray) -> np.ndarray:
    """Re-express an LDraw world transform (..., 4, 4) in the BrickLayer world frame.

    Parameters
    ----------
    t : (..., 4, 4) float
        Maps LDraw part coordinates to LDraw world coordinates.

    Returns
    -------
    (..., 4, 4) float
        Maps the same part coordinates (still LDraw-local) to BrickLayer world
        coordinates: ``L2B @ t``.
    """
    return L2B @ np.asarray(t, dtype=np.float64)


def bl_to_ldraw(t: np.ndarray) -> np.ndarray:
    """Inverse of :func:`ldraw_to_bl`: ``B2L @ t``."""
    return B2L @ np.asarray(t, dtype=np.float64)


def points_ldraw_to_bl(p: np.ndarray) -> np.ndarray:
    """(n, 3) LDraw points (or vectors) to BrickLayer: (x, y, z) -> (x, z, -y)."""
    p = np.asarray(p, dtype=np.float64)
    return np.stack([p[..., 0], p[..., 2], -p[..., 1]], axis=-1)


vectors_ldraw_to_bl = points_ldraw_to_bl
