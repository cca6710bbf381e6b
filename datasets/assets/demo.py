"""Regenerate the bundled demo: ``python -m datasets.assets.demo`` (about 10 s on one core).

Renders one overhead camera frame per step of :func:`datasets.assets.demo_script.demo_steps` with the synthetic
scene renderer of :mod:`datasets` (3D tile boxes, table cloth, light and shadows; procedural faces only,
so no artwork of ``shared/art`` ends up in the repository) and writes

* ``webui/demo/frames/step_NN.jpg`` — the frames (960 x 720, JPEG quality 82);
* ``webui/demo/demo.json`` — per step: the table state (truth), the tile id of every place in it, what
  happened, the win, and every tile the demo "detector" reports: id, read code (with the scripted
  misreads), confidence, face corners in the frame (TL, TR, BR, BL of the face as it reads), zone, seat;
  plus the zone outlines.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from datasets import effects
from datasets.assets.demo_script import MISREADS, Step, confidence, demo_steps
from datasets.camera import Camera, rot_z
from datasets.layout import TileDims
from datasets.procedural import FaceStyle
from datasets.render import BOX_NORMALS, BoxObject, Canvas, Texture, render_boxes, shadow_polygons
from datasets.scene import TileSet, _stick_texture
from webui.feed import DEMO_DIR

WIDTH, HEIGHT = 960, 720
DIMS = TileDims(26.0, 35.0, 19.0)
GAP = 1.0
STRIDE = DIMS.w + GAP
HAND_Y = -262.0          # seat frame: hand row centre
MELD_RIGHT = 250.0       # right end of the melds
DISCARD_START = 3 * STRIDE + 14.0
TABLE_HALF = 330.0
SEED = 20261130


def _jitter(tile_id: str, scale: float) -> tuple[float, float, float]:
    rng = np.random.default_rng(int(hashlib.sha1(tile_id.encode()).hexdigest()[:8], 16))
    return float(rng.normal(0, 0.35 * scale)), float(rng.normal(0, 0.35 * scale)), float(rng.normal(0, 1.0 * scale))


def _lying(seat: int, x: float, y: float, yaw: float, face_up: bool = True, layer: int = 0,
           tile_id: str = "") -> tuple[np.ndarray, np.ndarray]:
    """Rotation and centre of a tile lying in seat ``seat``'s frame (yaw 0: reads from that seat)."""
    jx, jy, jyaw = _jitter(tile_id, 1.0) if tile_id else (0.0, 0.0, 0.0)
    world = rot_z(90.0 * seat)
    flip = np.diag([1.0, -1.0, -1.0]) if not face_up else np.eye(3)
    R = world @ rot_z(yaw + jyaw) @ flip
    centre = world @ np.array([x + jx, y + jy, 0.0])
    lowest = float((DIMS.corners() @ R.T)[:, 2].min())
    centre[2] = layer * DIMS.t - lowest
    return R, centre


def plan_step(step: Step) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """World placements of the step's tiles (and scenery: dead wall, riichi sticks); zone rectangles
    in seat frames."""
    placed: list[dict[str, Any]] = []
    zones: dict[tuple[str, int | None], list[float]] = {}

    def grow(zone: str, seat: int | None, x: float, y: float, w: float, d: float) -> None:
        box = zones.setdefault((zone, seat), [math.inf, math.inf, -math.inf, -math.inf])
        box[0], box[1] = min(box[0], x - w / 2), min(box[1], y - d / 2)
        box[2], box[3] = max(box[2], x + w / 2), max(box[3], y + d / 2)

    by_seat: dict[int, dict[str, list[dict[str, Any]]]] = {}
    for t in step.tiles:
        if t["seat"] is not None:
            by_seat.setdefault(t["seat"], {}).setdefault(t["zone"], []).append(t)
    for seat, parts in by_seat.items():
        # melds from the right edge leftwards
        x = MELD_RIGHT
        melds: dict[int, list[dict[str, Any]]] = {}
        for t in parts.get("meld", []):
            melds.setdefault(t["meld"], []).append(t)
        for m in sorted(melds):
            for t in sorted(melds[m], key=lambda t: -t["index"]):
                side = t.get("sideways", False)
                w, d = (DIMS.h, DIMS.w) if side else (DIMS.w, DIMS.h)
                x -= w / 2 + GAP
                y = HAND_Y - DIMS.h / 2 + d / 2
                placed.append({"tile": t, "seat": seat, "x": x, "y": y, "yaw": 90.0 if side else 0.0})
                grow("meld", seat, x, y, w, d)
                x -= w / 2
            x -= 8
        hand = sorted(parts.get("hand", []), key=lambda t: t["index"])
        n = len(hand)
        length = n * STRIDE + (0.6 * DIMS.w if any(t.get("drawn") for t in hand) else 0.0)
        x0 = min(-length / 2 - 30, x - 20 - length)
        for k, t in enumerate(hand):
            hx = x0 + (k + 0.5) * STRIDE + (0.6 * DIMS.w if t.get("drawn") else 0.0)
            placed.append({"tile": t, "seat": seat, "x": hx, "y": HAND_Y, "yaw": 0.0})
            grow("hand", seat, hx, HAND_Y, DIMS.w, DIMS.h)
        for t in parts.get("win", []):
            hx = x0 + n * STRIDE + 14 + DIMS.h / 2
            y = HAND_Y - DIMS.h / 2 + DIMS.w / 2
            placed.append({"tile": t, "seat": seat, "x": hx, "y": y, "yaw": 90.0})
            grow("hand", seat, hx, y, DIMS.h, DIMS.w)
        xl = -3 * STRIDE
        xx = xl
        for k, t in enumerate(sorted(parts.get("discard", []), key=lambda t: t["index"])):
            row = min(k // 6, 2)
            if k % 6 == 0 and k < 18:
                xx = xl
            side = t.get("sideways", False)
            w, d = (DIMS.h, DIMS.w) if side else (DIMS.w, DIMS.h)
            y_far = -(DISCARD_START + row * (DIMS.h + GAP))
            placed.append({"tile": t, "seat": seat, "x": xx + w / 2, "y": y_far - d / 2, "yaw": 90.0 if side else 0.0})
            grow("discards", seat, xx + w / 2, y_far - d / 2, w, d)
            xx += w + GAP
    # the dead wall on the empty fourth side, the dora indicator face up on top
    dora = [t for t in step.tiles if t["zone"] == "dora"]
    for k in range(7):
        x = -3.5 * STRIDE + (k + 0.5) * STRIDE
        y = -215.0
        placed.append({"tile": None, "seat": 3, "x": x, "y": y, "yaw": 0.0, "face_up": False, "layer": 0})
        top = dora[0] if (k == 4 and dora) else None
        placed.append({"tile": top, "seat": 3, "x": x, "y": y, "yaw": 0.0, "face_up": top is not None, "layer": 1})
        grow("dead wall", None, x, y, DIMS.w, DIMS.h)
    return placed, [{"name": z, "seat": s, "rect": r} for (z, s), r in zones.items()]


def camera() -> Camera:
    eye = np.array([0.0, -10.0, 1050.0])
    return Camera.look_at(eye, np.array([0.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0]), 44.0, WIDTH, HEIGHT)


def _project_rect(cam: Camera, seat: int | None, rect: list[float], margin: float = 4.0) -> list[list[float]]:
    x0, y0, x1, y1 = rect[0] - margin, rect[1] - margin, rect[2] + margin, rect[3] + margin
    world = rot_z(90.0 * (3 if seat is None else seat))
    pts = np.array([world @ np.array([x, y, 0.0]) for x, y in ((x0, y1), (x1, y1), (x1, y0), (x0, y0))])
    uv, _ = cam.project(pts)
    return [[round(float(u), 1), round(float(v), 1)] for u, v in uv]


def render_step(step: Step, tiles: TileSet, cam: Camera) -> tuple[np.ndarray, dict[str, list[list[float]]],
                                                                   list[dict[str, Any]]]:
    placed, zones = plan_step(step)
    objects: list[BoxObject] = []
    ids: dict[int, str] = {}
    side = tiles.side()
    for k, p in enumerate(placed):
        t = p["tile"]
        face_up = p.get("face_up", True)
        R, centre = _lying(p["seat"], p["x"], p["y"], p["yaw"], face_up, p.get("layer", 0), t["id"] if t else "")
        corners = DIMS.corners() @ R.T + centre
        code = t["code"] if t else "1z"
        obj = BoxObject(corners, BOX_NORMALS @ R.T, [tiles.face(code), tiles.back(), side, side, side, side],
                        label_face=0 if t else -1, label_id=k + 1 if t else 0, gloss=0.08)
        if t:
            ids[k + 1] = t["id"]
        objects.append(obj)
    # riichi sticks in front of the seats that declared riichi
    rng = np.random.default_rng(SEED)
    stick_tex = _stick_texture(rng)
    for seat, s in enumerate(step.state["seats"]):
        if any(isinstance(d, dict) and d.get("riichi") for d in s["discards"]):
            R = rot_z(90.0 * seat) @ rot_z(90.0)
            centre = rot_z(90.0 * seat) @ np.array([0.0, -62.0, 1.5])
            stick = TileDims(8.0, 100.0, 3.0)
            objects.append(BoxObject(stick.corners() @ R.T + centre, BOX_NORMALS @ R.T,
                                     [Texture(cv2.rotate(stick_tex.levels[0], cv2.ROTATE_90_CLOCKWISE))] * 2
                                     + [Texture(np.full((8, 8, 3), 220, np.uint8))] * 4, gloss=0.1))
    rng = np.random.default_rng(SEED)
    canvas = Canvas(effects.render_table(cam, rng, TABLE_HALF))
    light = np.array([0.35, -0.45, 0.82])
    light /= np.linalg.norm(light)
    effects.apply_shadows(canvas.image, shadow_polygons(cam, objects, light), np.random.default_rng(SEED))
    quads = render_boxes(canvas, cam, objects, light, 0.55)
    image = np.clip(canvas.image + 0.5, 0, 255).astype(np.uint8)
    image = cv2.GaussianBlur(image, (0, 0), 0.6)
    corners = {ids[k]: [[round(float(x), 1), round(float(y), 1)] for x, y in q] for k, q in quads.items() if k in ids}
    zone_polys = [{"name": z["name"], "seat": z["seat"], "polygon": _project_rect(cam, z["seat"], z["rect"])}
                  for z in zones]
    return image, corners, zone_polys


def build(out: Path = DEMO_DIR, quality: int = 82, verbose: bool = True) -> dict[str, Any]:
    t0 = time.monotonic()
    steps = demo_steps()
    tiles = TileSet(DIMS, np.array([226.0, 238, 243]), np.array([60.0, 140, 40]), 0.62, 0.08, FaceStyle(), None,
                    None, SEED)
    cam = camera()
    (out / "frames").mkdir(parents=True, exist_ok=True)
    records = []
    for i, step in enumerate(steps):
        image, corners, zones = render_step(step, tiles, cam)
        name = f"frames/step_{i:02d}.jpg"
        cv2.imwrite(str(out / name), image, [cv2.IMWRITE_JPEG_QUALITY, quality])
        seen = []
        for t in step.tiles:
            if t["id"] not in corners:
                continue
            read, conf = MISREADS.get(t["id"], (t["code"], confidence(t["id"])))
            seen.append({"id": t["id"], "code": read, "truth": t["code"], "confidence": conf,
                         "corners": corners[t["id"]], "face_up": True, "zone": t["zone"], "seat": t["seat"]})
        records.append({"frame": name, "event": step.event, "state": step.state, "ids": step.ids,
                        "win": step.win, "tiles": seen, "zones": zones})
        if verbose:
            print(f"step {i:2d}: {len(seen):2d} tiles  {step.event}")
    doc = {"format": "mahjong-assistant/demo", "version": 1, "size": [WIDTH, HEIGHT], "camera": "demo",
           "steps": records}
    (out / "demo.json").write_text(json.dumps(doc, separators=(",", ":")) + "\n")
    if verbose:
        total = sum(f.stat().st_size for f in (out / "frames").glob("*.jpg")) + (out / "demo.json").stat().st_size
        print(f"{len(records)} steps, {total / 1e6:.2f} MB, {time.monotonic() - t0:.1f} s")
    return doc


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m datasets.assets.demo", description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=DEMO_DIR, help="folder to write (default: the package's demo)")
    ap.add_argument("--quality", type=int, default=82)
    args = ap.parse_args(argv)
    build(args.out, args.quality)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
