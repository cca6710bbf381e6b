"""Crop bank for the tile classifier: upright 72x96 face crops with labels, written to one ``.npz``.

Three sources (all synthetic; no real crop is ever used for training):

* scene crops: faces of ``datasets.generate`` scenes cut out the way inference does it (the oriented box
  fitted to the labelled quad, jittered like an imperfect detection, with a random margin);
* rendered faces: every code from every art pack and the procedural renderer, composited on a tile body,
  "photographed" (perspective, light, blur, noise, JPEG). Flowers and seasons get extra renders where a
  random flower/season drawing carries the numeral and the character of the *right* tile in the top corners
  (the identity lies where it does on real tiles, not in the drawing);
* ``none`` crops: table, distractors, half-and-half crops between neighbouring tiles, tile sides.

    python -m models.classifier_data --scenes /tmp/mj/synth-train --out /tmp/mj/cls-bank.npz

``--table-scenes N`` adds crops of N whole generated tables (``datasets.table_scene``, as the reconstruction
and video evaluations film them, from seeds far from theirs).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from assistant.variants import variant_names
from datasets.art import ArtLibrary
from datasets.codes import TILE_CODES
from datasets.procedural import (
    _FLOWER_CHARS,
    _SEASON_CHARS,
    FACE_SIZE,
    _draw_text,
    _hershey,
    _Ink,
    compose_face,
    random_style,
    render_ink,
)
from vision.geometry import CROP_SIZE, quad_to_obb, warp_crops

KINDS: tuple[str, ...] = TILE_CODES + ("none",)
NONE = len(TILE_CODES)
BODIES = ((222, 236, 242), (236, 240, 241), (212, 232, 244), (230, 236, 240), (240, 240, 240), (198, 222, 238),
          (226, 234, 236), (205, 215, 225), (180, 200, 215))


def _over(top: np.ndarray, bottom: np.ndarray) -> np.ndarray:
    """Premultiplied BGRA ``top`` over ``bottom``."""
    a = top[..., 3:4].astype(np.float32) / 255.0
    out = top.astype(np.float32) + bottom.astype(np.float32) * (1 - a)
    return np.clip(out + 0.5, 0, 255).astype(np.uint8)


_CHINESE_NUMERALS = "一二三四"


def corner_overlay(code: str, rng: np.random.Generator, size=FACE_SIZE) -> np.ndarray:
    """Ink layer with the flower/season numeral and character of ``code`` in the top corners.

    Layouts seen on real sets: numeral in one top corner and the character in the other (either way
    round); numeral and character side by side in one corner ("1春"); a Chinese numeral instead of the
    arabic one; the character left out."""
    style = random_style(rng)
    rank, suit = int(code[0]), code[1]
    ink = _Ink(size, stroke=style.stroke)
    char = (_FLOWER_CHARS if suit == "f" else _SEASON_CHARS)[rank - 1]
    colour = style.red if rng.random() < 0.5 else style.blue
    char_colour = style.ink if rng.random() < 0.5 else style.red
    left, right = (-0.06, -0.04, 0.2, 0.2), (0.8, -0.04, 1.06, 0.2)
    layout = rng.random()
    if layout < 0.25:  # side by side in one corner: numeral first, then the character
        x0 = -0.06 if rng.random() < 0.7 else 0.5
        _hershey(ink, str(rank), (x0, -0.04, x0 + 0.22, 0.2), colour)
        _draw_text(ink, char, (x0 + 0.22, -0.04, x0 + 0.5, 0.22), char_colour, style)
        return ink.result()
    num_box, char_box = (left, right) if rng.random() < 0.6 else (right, left)
    if layout < 0.4:  # Chinese numeral
        _draw_text(ink, _CHINESE_NUMERALS[rank - 1], num_box, colour, style)
    else:
        _hershey(ink, str(rank), num_box, colour)
    if rng.random() < 0.85:
        _draw_text(ink, char, char_box, char_colour, style)
    return ink.result()


def face_ink(code: str, art: ArtLibrary, rng: np.random.Generator) -> np.ndarray:
    """Ink layer of ``code``: art pack, procedural, or (flowers/seasons) a swapped drawing with the right
    corner numeral/character."""
    suit = code[1] if len(code) == 2 else code
    if suit in "fg" and code not in ("jk", "bk") and rng.random() < 0.45:
        donor = f"{int(rng.integers(1, 5))}{'fg'[int(rng.integers(2))]}"
        found = art.random_ink(donor, rng, FACE_SIZE) if rng.random() < 0.6 else None
        base = found[0].copy() if found is not None else render_ink(donor, random_style(rng), FACE_SIZE).copy()
        h, w = base.shape[:2]
        base[: int(0.3 * h), : int(0.4 * w)] = 0
        base[: int(0.3 * h), w - int(0.4 * w):] = 0
        return _over(corner_overlay(code, rng), base)
    if code != "bk" and rng.random() < 0.6:
        found = art.random_ink(code, rng, FACE_SIZE)
        if found is not None:
            return found[0]
    return render_ink(code, random_style(rng), FACE_SIZE)


def photograph(face: np.ndarray, rng: np.random.Generator, size=CROP_SIZE) -> np.ndarray:
    """A face texture seen by a camera: tile rim, background, perspective, light, blur, noise, JPEG."""
    fh, fw = face.shape[:2]
    pad = int(0.25 * fw)
    bg = np.empty((fh + 2 * pad, fw + 2 * pad, 3), np.uint8)
    bg[:] = rng.integers(20, 200, 3)
    rim = np.clip(face[fh // 2, 4].astype(int) * rng.uniform(0.75, 0.95), 0, 255)
    r = int(rng.integers(3, 12))
    cv2.rectangle(bg, (pad - r, pad - r), (pad + fw + r, pad + fh + r), rim.tolist(), -1)
    bg[pad:pad + fh, pad:pad + fw] = face
    w, h = size
    m = rng.uniform(-0.03, 0.09)
    j = 0.035
    src = np.array([[pad, pad], [pad + fw, pad], [pad + fw, pad + fh], [pad, pad + fh]], np.float32)
    span = 1 + 2 * m
    dst = np.array([[m, m], [1 + m, m], [1 + m, 1 + m], [m, 1 + m]]) / span
    dst = (dst + rng.uniform(-j, j, (4, 2))) * [w, h]
    M = cv2.getPerspectiveTransform(src, dst.astype(np.float32))
    big = cv2.warpPerspective(bg, M, (w, h), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)
    return camera_effects(big, rng)


def camera_effects(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    h, w = img.shape[:2]
    f = img.astype(np.float32)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    a = rng.uniform(0, 2 * math.pi)
    grad = 1 + rng.uniform(0, 0.35) * ((xx / w - 0.5) * math.cos(a) + (yy / h - 0.5) * math.sin(a))
    f = f * grad[..., None] * rng.uniform(0.6, 1.25) + rng.uniform(-25, 25)
    f = f * rng.uniform(0.92, 1.08, 3)[None, None]
    if rng.random() < 0.5:
        f = cv2.GaussianBlur(f, (0, 0), float(rng.uniform(0.3, 1.3)))
    if rng.random() < 0.25:  # low resolution source
        s = rng.uniform(0.3, 0.7)
        f = cv2.resize(cv2.resize(f, None, fx=s, fy=s, interpolation=cv2.INTER_AREA), (w, h))
    f = f + rng.normal(0, rng.uniform(0, 7), f.shape)
    out = np.clip(f, 0, 255).astype(np.uint8)
    if rng.random() < 0.6:
        ok, enc = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(35, 95))])
        out = cv2.imdecode(enc, cv2.IMREAD_COLOR)
    return out


def jitter_obb(obb: np.ndarray, rng: np.random.Generator, amount: float = 1.0) -> np.ndarray:
    o = np.array(obb, np.float64)
    s = math.sqrt(o[2] * o[3])
    o[0:2] += rng.normal(0, 0.04 * amount, 2) * s
    o[2] *= math.exp(rng.normal(0, 0.06 * amount))
    o[3] *= math.exp(rng.normal(0, 0.06 * amount))
    o[4] += rng.normal(0, 3 * amount)
    return o


def scene_frames(roots: list[str]):
    """(image, labels) of the ``datasets.generate`` scenes under ``roots``."""
    for root in roots:
        recs = []
        for line in open(Path(root) / "labels.jsonl"):
            try:
                recs.append(json.loads(line))
            except json.JSONDecodeError:
                break  # a line still being written
        for rec in recs:
            img = cv2.imread(str(Path(root) / rec["image"]))
            if img is not None:
                yield img, rec["tiles"]


TABLE_VARIANTS = tuple(variant_names())


def table_frames(count: int, seed: int, art: ArtLibrary | None = None):
    """(image, labels) of ``count`` whole tables (``datasets.table_scene``: every rule system in turn, cameras
    at a seat, overhead and straight down, the whole table in view: walls, standing hands, small far
    faces), scene ``i`` from seed ``seed + i``."""
    from datasets.table_scene import generate_table_scene

    for i in range(count):
        scene = generate_table_scene(TABLE_VARIANTS[i % len(TABLE_VARIANTS)], seed + i, render=True, art=art)
        yield scene.image, scene.rendered_labels


def scene_crops(frames, rng: np.random.Generator, per_scene: int, back_keep: float, progress=None):
    """(crops, labels) of the faces in ``frames`` ((image, labels) pairs), plus ``none`` crops."""
    xs, ys = [], []
    for img, labels in frames:
        if progress is not None:
            progress()
        tiles = [t for t in labels if t["occluded"] <= 0.25]
        if not tiles:
            continue
        quads = np.array([t["corners"] for t in tiles])
        obbs = quad_to_obb(quads)
        keep = [i for i, t in enumerate(tiles) if min(obbs[i, 2], obbs[i, 3]) >= 9
                and (t["code"] != "bk" or rng.random() < back_keep)]
        rng.shuffle(keep)
        sel = keep[:per_scene]
        if sel:
            jit = np.array([jitter_obb(obbs[i], rng) for i in sel])
            margin = float(rng.uniform(-0.02, 0.08))
            crops = warp_crops(img, jit, CROP_SIZE, margin)
            for c, i in zip(crops, sel, strict=False):
                if rng.random() < 0.3:
                    c = camera_effects(c, rng)
                xs.append(c)
                ys.append(TILE_CODES.index(tiles[i]["code"]))
        # none: half-and-half shifts, random table patches
        all_obb = quad_to_obb(np.array([t["corners"] for t in labels]))
        for _ in range(3):
            k = int(rng.integers(len(obbs)))
            o = obbs[k].copy()
            t = math.radians(o[4])
            along = rng.choice([-1, 1]) * rng.uniform(0.45, 0.6)
            if rng.random() < 0.5:
                o[:2] += along * o[2] * np.array([math.cos(t), math.sin(t)])
            else:
                o[:2] += along * o[3] * np.array([math.sin(t), -math.cos(t)])
            if min(o[2], o[3]) >= 9:
                xs.append(warp_crops(img, o[None], CROP_SIZE)[0])
                ys.append(NONE)
        h, w = img.shape[:2]
        for _ in range(2):
            s = float(np.median(all_obb[:, 3])) * rng.uniform(0.6, 2.0)
            o = np.array([rng.uniform(0, w), rng.uniform(0, h), s * 0.75, s, rng.uniform(0, 360)])
            d = np.linalg.norm(all_obb[:, :2] - o[:2], axis=1)
            if d.min() > 0.9 * s:
                xs.append(warp_crops(img, o[None], CROP_SIZE)[0])
                ys.append(NONE)
    return xs, ys


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scenes", nargs="*", default=["/tmp/mj/synth-train"])
    ap.add_argument("--out", default="/tmp/mj/cls-bank.npz")
    ap.add_argument("--renders-per-code", type=int, default=400)
    ap.add_argument("--bonus-extra", type=int, default=400, help="extra renders per flower/season code")
    ap.add_argument("--per-scene", type=int, default=30)
    ap.add_argument("--back-keep", type=float, default=0.1)
    ap.add_argument("--table-scenes", type=int, default=0,
                    help="also crop this many whole generated tables (datasets.table_scene, all rule systems)")
    ap.add_argument("--table-seed", type=int, default=700000,
                    help="seed of the first table (eval-reconstruction reads 50000 on, eval-video hands 0 on)")
    ap.add_argument("--table-back-keep", type=float, default=0.35,
                    help="share of the tables' face-down tiles kept (walls and hands seen from behind)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    t0 = time.time()
    art = ArtLibrary()
    xs, ys = [], []
    for ci, code in enumerate(TILE_CODES):
        n = args.renders_per_code + (args.bonus_extra if code[-1] in "fg" and code != "bk" else 0)
        for _ in range(n):
            ink = face_ink(code, art, rng)
            body = np.array(BODIES[int(rng.integers(len(BODIES)))]) + rng.integers(-12, 12, 3)
            if code == "bk":
                body = rng.integers(20, 230, 3)
            xs.append(photograph(compose_face(ink, body), rng))
            ys.append(ci)
        print(f"rendered {code} ({len(xs)} crops, {time.time() - t0:.0f}s)", flush=True)
    sx, sy = scene_crops(scene_frames(args.scenes), rng, args.per_scene, args.back_keep)
    xs += sx
    ys += sy
    if args.table_scenes:
        done = [0]

        def tick():
            done[0] += 1
            if done[0] % 50 == 0:
                print(f"table scenes {done[0]}/{args.table_scenes} ({time.time() - t0:.0f}s)", flush=True)

        tx, ty = scene_crops(table_frames(args.table_scenes, args.table_seed, art), rng, args.per_scene,
                             args.table_back_keep, tick)
        xs += tx
        ys += ty
        sx += tx
    x = np.stack(xs)
    y = np.array(ys, np.int16)
    np.savez(args.out, x=x, y=y, kinds=np.array(KINDS))
    counts = np.bincount(y, minlength=len(KINDS))
    print(f"wrote {args.out}: {len(y)} crops ({len(sx)} from scenes) in {time.time() - t0:.0f}s; "
          f"min/max per kind {counts.min()}/{counts.max()}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
