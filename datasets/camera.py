"""Pinhole camera and rigid-pose helpers for the synthetic table scenes.

World frame: millimetres, origin at the table centre, ``z`` up, the table top is ``z = 0``;
``-y`` points to the camera player's seat (seat 0). Camera frame: ``x`` right, ``y`` down,
``z`` forward, so projected points are OpenCV image coordinates.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


def rot_x(deg: float) -> np.ndarray:
    """Rotation about the x axis by ``deg`` degrees (right-handed)."""
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]], np.float64)


def rot_y(deg: float) -> np.ndarray:
    """Rotation about the y axis by ``deg`` degrees (right-handed)."""
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]], np.float64)


def rot_z(deg: float) -> np.ndarray:
    """Rotation about the z axis by ``deg`` degrees (counter-clockwise seen from above)."""
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]], np.float64)


@dataclass(frozen=True)
class Camera:
    """A pinhole camera: ``x_cam = R @ x_world + t``, pixels ``= K @ x_cam`` (dehomogenised)."""

    K: np.ndarray
    R: np.ndarray
    t: np.ndarray
    width: int
    height: int

    @property
    def position(self) -> np.ndarray:
        """Camera centre in world coordinates."""
        return -self.R.T @ self.t

    def to_camera(self, pts: np.ndarray) -> np.ndarray:
        """World points (N x 3) -> camera-frame points (N x 3)."""
        return pts @ self.R.T + self.t

    def project(self, pts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """World points (N x 3) -> (pixels N x 2, depths N). Depth <= 0 means behind the camera."""
        cam = self.to_camera(np.asarray(pts, np.float64))
        depth = cam[:, 2]
        safe = np.where(np.abs(depth) < 1e-9, 1e-9, depth)
        uv = (cam[:, :2] / safe[:, None]) * np.array([self.K[0, 0], self.K[1, 1]]) + self.K[:2, 2]
        return uv, depth

    def plane_homography(self) -> np.ndarray:
        """3x3 homography from table-plane points ``(x, y, 1)`` (mm, z = 0) to pixels."""
        return self.K @ np.column_stack([self.R[:, 0], self.R[:, 1], self.t])

    def ray_z(self) -> np.ndarray:
        """Per-pixel z component of the (unnormalised) viewing ray, H x W float32.

        Pixels whose ray has ``z < 0`` look down and hit the table plane (the camera is above it).
        """
        kinv = np.linalg.inv(self.K)
        row = (self.R.T @ kinv)[2]  # d_z = row . (u, v, 1)
        u = np.arange(self.width, dtype=np.float32)
        v = np.arange(self.height, dtype=np.float32)
        return (row[0] * u[None, :] + row[1] * v[:, None] + row[2]).astype(np.float32)

    @staticmethod
    def look_at(eye: np.ndarray, target: np.ndarray, up_hint: np.ndarray, hfov_deg: float,
                width: int, height: int, roll_deg: float = 0.0) -> Camera:
        """Camera at ``eye`` looking at ``target``; ``up_hint`` is the world direction that should
        point up in the image (used when looking straight down); ``hfov_deg`` the horizontal
        field of view."""
        eye = np.asarray(eye, np.float64)
        fwd = np.asarray(target, np.float64) - eye
        fwd /= np.linalg.norm(fwd)
        up = np.asarray(up_hint, np.float64)
        right = np.cross(fwd, up)
        if np.linalg.norm(right) < 1e-6:  # up_hint parallel to the view: pick any perpendicular
            right = np.cross(fwd, np.array([0.0, 1.0, 0.0]) if abs(fwd[1]) < 0.9 else np.array([1.0, 0, 0]))
        right /= np.linalg.norm(right)
        down = np.cross(fwd, right)
        c, s = math.cos(math.radians(roll_deg)), math.sin(math.radians(roll_deg))
        right, down = c * right + s * down, -s * right + c * down
        R = np.stack([right, down, fwd])
        f = (width / 2) / math.tan(math.radians(hfov_deg) / 2)
        K = np.array([[f, 0, width / 2], [0, f, height / 2], [0, 0, 1]], np.float64)
        return Camera(K=K, R=R, t=-R @ eye, width=width, height=height)
