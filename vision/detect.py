"""``mahjong-assistant detect IMAGE [--json] [--overlay OUT.png]``: every tile of one photo.

Output per tile: code, confidence, top-3 alternatives, the oriented box as four corner points (TL, TR, BR,
BL of the face as it reads upright) in original image pixels, face_up, rotation (0/90/180/270, the face's
up direction clockwise from image-up). Unusable images exit with status 2 and one ``error:`` line.
"""

from __future__ import annotations

import argparse
import json
import sys

import cv2

from assistant.variants import variant_names

OVERLAY_TYPES = (".png", ".jpg", ".jpeg", ".bmp", ".webp")


def overlay_problem(path: str | None) -> str | None:
    """Why an --overlay path cannot be written (None when it can), checked before any work is done."""
    from pathlib import Path

    if not path:
        return None
    p = Path(path)
    if p.suffix.lower() not in OVERLAY_TYPES:
        return f"cannot write overlay {path}: give a picture file name ({', '.join(OVERLAY_TYPES)})"
    if p.is_dir():
        return f"cannot write overlay {path}: it is a folder"
    if not p.parent.is_dir():
        return f"cannot write overlay {path}: no folder {p.parent}"
    return None


def threads_arg(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of threads") from None
    if not 1 <= n <= 64:
        raise argparse.ArgumentTypeError(f"{n} threads: use 1-64")
    return n


def cmd_detect(args: argparse.Namespace) -> int:
    from .inference import DET_THRESHOLD, ImageError, TileRecognizer, draw_overlay, load_image

    problem = overlay_problem(args.overlay)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    try:
        image = load_image(args.image)
    except ImageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    from .tileset_cli import chosen_tileset
    from .tilesets import TileSetError

    try:
        rec = TileRecognizer(threads=args.threads, det_threshold=DET_THRESHOLD if args.threshold is None
                             else args.threshold, tileset=chosen_tileset(args.tileset))
    except (FileNotFoundError, TileSetError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    result = rec.recognize(image, variant=args.variant)
    if args.overlay:
        if not cv2.imwrite(args.overlay, draw_overlay(image, result.tiles)):
            print(f"error: cannot write overlay {args.overlay}", file=sys.stderr)
            return 2
    if args.json:
        out = {"image": args.image, **result.to_dict()}
        print(json.dumps(out))
        return 0
    print(f"{args.image}: {result.width}x{result.height}, {len(result.tiles)} tiles "
          f"({result.timing_ms.get('total', 0):.0f} ms)")
    for t in sorted(result.tiles, key=lambda t: (t.corners[:, 1].mean() // 40, t.corners[:, 0].mean())):
        cx, cy = t.corners.mean(0)
        alts = ", ".join(f"{c} {p:.2f}" for c, p in t.top3[1:])
        side = "up" if t.face_up else "down"
        print(f"  {t.code:>3} {t.confidence:.2f}  at ({cx:.0f},{cy:.0f})  face {side}, rot {t.rotation:3d}"
              f"  [alt: {alts}]")
    if args.overlay:
        print(f"overlay written to {args.overlay}")
    return 0


def register(sub) -> None:
    p = sub.add_parser("detect", help="recognise the tiles in one image")
    p.add_argument("image")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")
    p.add_argument("--overlay", metavar="OUT.png", help="write the image with the detections drawn")
    p.add_argument("--threshold", type=float, default=None,
                   help="detector centre-score threshold (default 0.5: vision.inference.DET_THRESHOLD)")
    p.add_argument("--threads", type=threads_arg, default=2, help="CPU threads for the models (1-64)")
    p.add_argument("--variant", "-v", choices=variant_names(),
                   help="read only the tile kinds of this rule system's set")
    p.add_argument("--tileset", metavar="NAME", help="read with this enrolled tile set (default: the one chosen "
                   "with `tileset use`; 'none' for none)")
    p.set_defaults(func=cmd_detect)
