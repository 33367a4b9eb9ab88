"""Cameras that frame a whole build from a named direction, an (azimuth, elevation) pair or a pose.

Directions are in the BrickLayer world frame (+X right, +Y back, +Z up): the
``front`` camera stands at -Y looking toward +Y, ``right`` at +X, ``top`` above
(with the build's back at the top of the picture), ``iso`` at front-right-above
at the isometric elevation ``atan(1/sqrt(2))`` = 35.264 degrees (the camera
looks along -(1, -1, 1), as in LEGO instructions).

Framing is conservative: the 8 corners of the build's axis-aligned bounding
box are projected and the camera is fitted so that all of them lie inside the
picture with a margin, so no part can be cut off. Camera poses follow the
OpenGL / pyrender convention: camera-to-world, the camera looks down its -Z
axis with +Y up.
"""

from __future__ import annotations

__all__ = ["Camera", "VIEWS", "view_axes", "fit_camera", "box_corners"]

import math
from dataclasses import dataclass

import numpy as np
from ..errors import BrickLayerValueError

_ISO_EL = math.degrees(math.atan(1 / math.sqrt(2)))  # 35.264 deg

#: Named views: (azimuth, elevation) in degrees. Azimuth 0 = camera in front (-Y), 90 = on the right (+X).
VIEWS = {
    "front": (0.0, 0.0),
    "back": (180.0, 0.0),
    "right": (90.0, 0.0),
    "left": (-90.0, 0.0),
    "top": (0.0, 90.0),
    "bottom": (0.0, -90.0),
    "iso": (45.0, _ISO_EL),
    "iso_back": (225.0, _ISO_EL),
}


def box_corners(bounds) -> np.ndarray:
    """(8, 3) corners of an axis-aligned box ``bounds`` (2, 3) ``[min, max]``."""
    b = np.asarray(bounds, dtype=np.float64)
    sel = np.array([[(i >> a) & 1 for a in range(3)] for i in range(8)])
    return np.where(sel == 1, b[1], b[0])


def view_axes(view) -> tuple[np.ndarray, np.ndarray]:
    """Viewing direction and up vector of a view.

    Parameters
    ----------
    view : str, (azimuth, elevation) degrees, or (4, 4) camera pose
        A name from :data:`VIEWS`; a pair of angles (azimuth 0 = front, 90 =
        right; elevation 90 = from above); or a camera-to-world pose whose
        orientation is used (the camera looks down its -Z).

    Returns
    -------
    direction : (3,) float
        Unit vector from the camera toward the build.
    up : (3,) float
        Unit up vector of the picture, orthogonal to ``direction``.

    Raises
    ------
    ValueError
        For an unknown view name (the message lists the names) or a bad shape.
    """
    if isinstance(view, str):
        key = view.strip().lower()
        if key not in VIEWS:
            raise BrickLayerValueError(f"unknown view {view!r}; use one of {', '.join(VIEWS)}, "
                             "an (azimuth, elevation) pair in degrees or a (4, 4) camera pose")
        az, el = VIEWS[key]
    else:
        a = np.asarray(view, dtype=np.float64)
        if a.shape == (4, 4):
            d = -a[:3, 2] / np.linalg.norm(a[:3, 2])
            up = a[:3, 1] - d * (a[:3, 1] @ d)
            return d, up / np.linalg.norm(up)
        if a.shape != (2,):
            raise BrickLayerValueError(f"a view is a name, an (azimuth, elevation) pair or a (4, 4) pose, got shape {a.shape}")
        az, el = float(a[0]), float(a[1])
    az, el = math.radians(az), math.radians(el)
    eye = np.array([math.sin(az) * math.cos(el), -math.cos(az) * math.cos(el), math.sin(el)])
    d = -eye
    if abs(math.cos(el)) < 1e-6:  # straight down or up: the build's back (+Y) at the top of the picture
        ref = np.array([math.sin(az), math.cos(az), 0.0])
    else:
        ref = np.array([0.0, 0.0, 1.0])
    up = ref - d * (ref @ d)
    return d, up / np.linalg.norm(up)


@dataclass(frozen=True)
class Camera:
    """A fitted camera.

    Attributes
    ----------
    pose : (4, 4) float
        Camera-to-world transform (BL world, LDU); the camera looks down its -Z.
    width, height : int
        Picture size in pixels.
    projection : {"ortho", "perspective"}
    xmag, ymag : float, LDU
        Half-width and half-height of the orthographic view volume.
    yfov : float, radians
        Vertical field of view (perspective).
    znear, zfar : float, LDU
    """

    pose: np.ndarray
    width: int
    height: int
    projection: str
    xmag: float
    ymag: float
    yfov: float
    znear: float
    zfar: float

    @property
    def direction(self) -> np.ndarray:
        """(3,) unit viewing direction."""
        return -self.pose[:3, 2]

    def projection_matrix(self) -> np.ndarray:
        """(4, 4) OpenGL projection matrix (eye to clip coordinates), as pyrender builds it."""
        n, f = self.znear, self.zfar
        P = np.zeros((4, 4))
        if self.projection == "ortho":
            P[0, 0], P[1, 1] = 1.0 / self.xmag, 1.0 / self.ymag
            P[2, 2], P[2, 3] = 2.0 / (n - f), (f + n) / (n - f)
            P[3, 3] = 1.0
        else:
            a = self.width / self.height
            t = math.tan(self.yfov / 2.0)
            P[0, 0], P[1, 1] = 1.0 / (a * t), 1.0 / t
            P[2, 2], P[2, 3] = (f + n) / (n - f), 2 * f * n / (n - f)
            P[3, 2] = -1.0
        return P

    def project(self, points) -> np.ndarray:
        """Pixel coordinates of world points.

        Parameters
        ----------
        points : (n, 3) float, LDU, BL world

        Returns
        -------
        (n, 3) float
            ``(column, row, depth)``: column 0 at the left edge, row 0 at the top
            edge of the picture (pixel centres at +0.5); depth is the distance in
            front of the camera along its axis (LDU).
        """
        p = np.asarray(points, dtype=np.float64).reshape(-1, 3)
        eye = (np.linalg.inv(self.pose) @ np.c_[p, np.ones(len(p))].T).T
        clip = (self.projection_matrix() @ eye.T).T
        ndc = clip[:, :3] / clip[:, 3:4]
        col = (ndc[:, 0] + 1) / 2 * self.width
        row = (1 - ndc[:, 1]) / 2 * self.height
        return np.c_[col, row, -eye[:, 2]]

    def to_pyrender(self, pyrender):
        """The matching ``pyrender`` camera object."""
        if self.projection == "ortho":
            return pyrender.OrthographicCamera(self.xmag, self.ymag, znear=self.znear, zfar=self.zfar)
        return pyrender.PerspectiveCamera(self.yfov, aspectRatio=self.width / self.height,
                                          znear=self.znear, zfar=self.zfar)


def fit_camera(bounds, view="iso", size=(800, 600), *, projection: str = "ortho", margin: float = 0.05,
               yfov_deg: float = 30.0) -> Camera:
    """A camera that frames a box from a view.

    Parameters
    ----------
    bounds : (2, 3) float, LDU, BL world
        ``[min, max]`` of what must be seen.
    view : str, (azimuth, elevation) or (4, 4) pose
        See :func:`view_axes`. A pose gives the orientation; the camera is
        then moved to frame the box.
    size : (width, height) int, pixels
    projection : {"ortho", "perspective"}
    margin : float
        Free border on each side, as a fraction of the picture's half-size.
    yfov_deg : float, degrees
        Vertical field of view of the perspective camera.

    Returns
    -------
    Camera
        All 8 box corners project inside ``[margin, 1 - margin]`` of the picture.

    Raises
    ------
    ValueError
        For a bad view, projection or size.
    """
    w, h = int(size[0]), int(size[1])
    if w < 8 or h < 8:
        raise BrickLayerValueError(f"size must be at least 8x8 pixels, got {w}x{h}")
    if projection not in ("ortho", "perspective"):
        raise BrickLayerValueError(f"projection must be 'ortho' or 'perspective', not {projection!r}")
    d, up = view_axes(view)
    right = np.cross(d, up)
    corners = box_corners(bounds)
    center = corners.mean(axis=0)
    rel = corners - center
    radius = max(float(np.linalg.norm(rel, axis=1).max()), 1.0)
    x, y, z = rel @ right, rel @ up, rel @ d
    aspect = w / h
    keep = 1.0 - margin
    pose = np.eye(4)
    pose[:3, 0], pose[:3, 1], pose[:3, 2] = right, up, -d
    if projection == "ortho":
        ymag = max(float(np.abs(y).max()), float(np.abs(x).max()) / aspect, 1.0) / keep
        xmag = ymag * aspect
        dist = 2.0 * radius + 10.0
        pose[:3, 3] = center - d * dist
        return Camera(pose, w, h, "ortho", xmag, ymag, 0.0, max(dist - radius - 5.0, 1.0), dist + radius + 5.0)
    ty = math.tan(math.radians(yfov_deg) / 2.0) * keep
    tx = ty * aspect
    dist = float(np.max(np.maximum(np.abs(x) / tx, np.abs(y) / ty) - z))
    dist = max(dist, radius * 1.05 + 1.0)
    pose[:3, 3] = center - d * dist
    znear = max(dist - radius - 5.0, 1.0)
    return Camera(pose, w, h, "perspective", 0.0, 0.0, math.radians(yfov_deg), znear, dist + radius + 5.0)
