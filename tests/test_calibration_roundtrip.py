"""Calibration: a known homography from four clicked corners, the camera pose behind it, JSON storage per
camera, and the plane estimated from the tiles alone (overhead and steep seat cameras)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from datasets.camera import Camera
from datasets.table_scene import generate_table_scene, noisy_detections
from vision import calibration as C


def _camera(view: str) -> Camera:
    if view == "overhead":
        return Camera.look_at(np.array([30.0, -20, 1100]), np.zeros(3), np.array([0.3, 1, 0]), 60, 1280, 720)
    return Camera.look_at(np.array([20.0, -780, 520]), np.array([0.0, -40, 0]), np.array([0, 0, 1.0]), 75, 1280, 720)


@pytest.mark.parametrize("view", ["overhead", "seat"])
def test_corners_round_trip(view):
    cam = _camera(view)
    half = 420.0
    corners = np.array([[-half, -half, 0], [half, -half, 0], [half, half, 0], [-half, half, 0]])
    uv, _ = cam.project(corners)
    cal = C.from_corners(uv, (1280, 720), 2 * half, camera_id="cam0")
    truth = np.linalg.inv(cam.plane_homography())
    rng = np.random.default_rng(1)
    pts = rng.uniform(-half, half, (50, 2))
    img, _ = cam.project(np.column_stack([pts, np.zeros(50)]))
    assert np.abs(cal.image_to_table(img) - pts).max() < 1e-6 * half + 1e-3
    assert np.allclose(cal.homography / cal.homography[2, 2], truth / truth[2, 2], atol=1e-9, rtol=1e-5)
    # back to the image, and on a raised plane (lying tile faces) through the recovered pose
    assert np.abs(cal.table_to_image(pts) - img).max() < 1e-3
    if view == "seat":     # tilted: focal length and pose are recovered
        pose = cal.pose
        assert pose.focal_known and np.linalg.norm(pose.position - cam.position) < 1e-3
        raised, _ = cam.project(np.column_stack([pts, np.full(50, 19.0)]))
        assert np.abs(cal.image_to_table(raised, z=19.0) - pts).max() < 1e-3


def test_corners_must_be_a_convex_quadrilateral():
    with pytest.raises(ValueError, match="convex"):
        C.from_corners([[0, 0], [100, 100], [100, 0], [0, 100]], (640, 480))
    with pytest.raises(ValueError, match="4 corners"):
        C.from_corners([[0, 0], [100, 0], [100, 100]], (640, 480))


def test_saved_per_camera_as_json(tmp_path, monkeypatch):
    cam = _camera("seat")
    uv, _ = cam.project(np.array([[-400, -400, 0], [400, -400, 0], [400, 400, 0], [-400, 400, 0.0]]))
    cal = C.from_corners(uv, (1280, 720), 800, camera_id="usb cam/1")
    path = C.save(cal, tmp_path)
    assert path.parent == tmp_path and path.name == "usb_cam_1.json"
    data = json.loads(path.read_text())
    assert data["camera_id"] == "usb cam/1" and data["source"] == "corners" and len(data["corners_px"]) == 4
    back = C.load("usb cam/1", tmp_path)
    assert np.allclose(back.homography, cal.homography) and back.table_size_mm == (800.0, 800.0)
    assert C.load("another", tmp_path) is None
    monkeypatch.setenv("MAHJONG_CALIBRATION_DIR", str(tmp_path / "env"))
    assert C.default_dir() == tmp_path / "env"
    C.save(cal)
    assert C.load("usb cam/1") is not None


def test_rotated_renumbers_positions():
    cal = C.Calibration(np.eye(3), (100, 100))
    # the side that was position 1 (+x) becomes position 0 (-y)
    assert np.allclose(cal.rotated(1).image_to_table([[100.0, 0.0]]), [[0.0, -100.0]])
    assert np.allclose(cal.rotated(4).homography, cal.homography)


def _similarity_error(mapped, true):
    """Residuals after the best similarity (rotation, scale, offset) from mapped to true points."""
    ma, mb = mapped.mean(0), true.mean(0)
    a, b = mapped - ma, true - mb
    U, S, Vt = np.linalg.svd(b.T @ a)
    R = U @ Vt
    scale = S.sum() / (a ** 2).sum()
    return np.linalg.norm(scale * a @ R.T + mb - true, axis=1)


@pytest.mark.parametrize("variant,seed,view", [("sanma", 0, "overhead"), ("hong-kong", 4, "seat"),
                                               ("korean-3p", 1, "seat"), ("korean-3p", 3, "overhead")])
def test_estimated_from_tiles(variant, seed, view):
    scene = generate_table_scene(variant, seed, view=view)
    cam = scene.camera
    dets = noisy_detections(scene.labels, np.random.default_rng(seed))
    est = C.estimate_from_tiles(dets, (cam.width, cam.height), tile_width_mm=scene.dims.w)
    lying = [i for i, lab in enumerate(scene.labels) if lab["role"][0] in ("discard", "meld", "bonus", "centre")]
    true = np.array([scene.labels[i]["table_xy"] for i in lying])
    img = np.array([np.mean(scene.labels[i]["corners"], 0) for i in lying])
    mapped = est.image_to_table(img, z=0.72 * scene.dims.w)
    err = _similarity_error(mapped, true) / scene.dims.w
    assert np.median(err) < 0.15 and np.percentile(err, 90) < 0.35
    # position 0 is the side nearest the image bottom: for a seat camera, the camera player's side
    if view == "seat":
        own = [i for i, lab in enumerate(scene.labels) if lab["role"][0] == "discard" and lab["role"][1] == 0]
        xy = est.image_to_table(np.array([np.mean(scene.labels[i]["corners"], 0) for i in own]), z=0.72 * scene.dims.w)
        assert np.all(xy[:, 1] < 0)


def test_too_few_tiles():
    with pytest.raises(ValueError, match="too few tiles"):
        C.estimate_from_tiles([{"code": "1p", "corners": [[0, 0], [10, 0], [10, 14], [0, 14]]}], (100, 100))
