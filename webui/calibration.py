"""Calibration: click the four table corners on the current frame; stored as JSON per camera.

File ``CALIBRATION_DIR/<camera>.json``::

    {"camera": "demo", "corners": [[x, y], [x, y], [x, y], [x, y]],   # image pixels, in click order:
     "image_size": [960, 720], "saved": "2026-11-30T15:00:00Z"}      # near-left, near-right, far-right,
                                                                       # far-left as seen from seat 0
(the corner order of :func:`vision.calibration.from_corners`, which turns them into the table homography.)
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

from flask import Blueprint, current_app, jsonify, render_template, request

from .errors import ApiError, get_str, json_body

bp = Blueprint("calibration", __name__)


def _path(camera: str) -> Path:
    if not re.fullmatch(r"[A-Za-z0-9 _.:/\-]{1,80}", camera):
        raise ApiError("'camera' names a camera: letters, digits, spaces and - _ . : / (at most 80)", field="camera")
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", camera).strip(".") or "camera"
    return Path(current_app.config["CALIBRATION_DIR"]) / f"{safe}.json"


def _current_camera() -> str:
    hub = current_app.extensions["hub"].start()
    return hub.feed.snapshot().camera or "default"


@bp.get("/calibration")
def page():
    return render_template("calibration.html")


@bp.get("/api/calibration")
def get():
    camera = request.args.get("camera") or _current_camera()
    path = _path(camera)
    hub = current_app.extensions["hub"].start()
    snap = hub.feed.snapshot()
    stored = None
    if path.is_file():
        try:
            stored = json.loads(path.read_text())
        except (OSError, ValueError):
            stored = None
    return jsonify({"camera": camera, "calibration": stored, "frame_size": list(snap.size)})


def _polygon_area(pts: list[list[float]]) -> float:
    return 0.5 * sum(pts[i][0] * pts[(i + 1) % 4][1] - pts[(i + 1) % 4][0] * pts[i][1] for i in range(4))


def _convex(pts: list[list[float]]) -> bool:
    signs = set()
    for i in range(4):
        a, b, c = pts[i], pts[(i + 1) % 4], pts[(i + 2) % 4]
        cross = (b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0])
        if abs(cross) > 1e-9:
            signs.add(cross > 0)
    return len(signs) == 1


@bp.post("/api/calibration")
def save():
    """``{"camera": "demo", "corners": [[x, y] x 4], "image_size": [w, h]}`` -> stored."""
    data = json_body()
    camera = get_str(data, "camera", None, max_len=80) or _current_camera()
    path = _path(camera)
    corners = data.get("corners")
    if not isinstance(corners, list) or len(corners) != 4:
        raise ApiError("'corners' must list the four table corners as [x, y] pixel pairs", field="corners")
    pts = []
    for i, c in enumerate(corners):
        if (not isinstance(c, list) or len(c) != 2
                or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and abs(v) <= 1e6 for v in c)):
            shown = json.dumps(c)
            raise ApiError(f"corner {i + 1} must be [x, y] in pixels, got "
                           f"{shown if len(shown) <= 60 else shown[:59] + '…'}", field=f"corners[{i}]")
        pts.append([float(c[0]), float(c[1])])
    size = data.get("image_size")
    if (not isinstance(size, list) or len(size) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) and 0 < v <= 20000 for v in size)):
        raise ApiError("'image_size' must be [width, height] of the frame the corners were clicked on",
                       field="image_size")
    for i, (x, y) in enumerate(pts):
        if not (0 <= x <= size[0] and 0 <= y <= size[1]):
            raise ApiError(f"corner {i + 1} ({x:.0f}, {y:.0f}) lies outside the {size[0]}x{size[1]} frame",
                           field=f"corners[{i}]")
    if abs(_polygon_area(pts)) < 0.01 * size[0] * size[1] or not _convex(pts):
        raise ApiError("the four corners must outline the table: click them in order around its edge",
                       field="corners")
    doc = {"camera": camera, "corners": pts, "image_size": size,
           "saved": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(doc, indent=2) + "\n")
    tmp.replace(path)
    return jsonify({"saved": True, "calibration": doc, "file": path.name})
