"""Vision subcommands for ``mahjong-assistant`` (registered through the ``mahjong_assistant.commands``
entry point, so the engine's CLI never imports this package)."""

from __future__ import annotations

import argparse
import json

#: the commands :func:`register` adds (name -> help): ``mahjong-assistant`` lists them without loading them
COMMANDS = {
    "cameras": "list attached cameras",
    "detect": "recognise the tiles in one image",
    "calibrate": "save or show a camera's table calibration",
    "reconstruct": "rebuild the table from a photo or from `detect --json` output",
    "analyze": "tiles in a photo, the rebuilt table, and the own hand's waits and advice",
    "finetune": "retrain the classifier's last layer on your tile corrections",
    "tileset": "teach the assistant your own tile set (enroll from one photo, learn from corrected photos)",
}


def cmd_cameras(args: argparse.Namespace) -> int:
    from .sources import list_cameras

    cams = list_cameras(args.max_index)
    if args.json:
        print(json.dumps(cams))
        return 0
    if not cams:
        print("No camera found. Use --source with a video file, an image folder or a stream URL instead.")
        return 0
    for c in cams:
        state = "reads frames" if c["reads"] else "opens but gives no frame"
        print(f"camera {c['index']}: {c['width']}x{c['height']} ({c['device'] or 'no device path'}), {state}")
    return 0


def register(sub) -> None:
    p = sub.add_parser("cameras", help="list attached cameras")
    p.add_argument("--max-index", type=int, default=8)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_cameras)
    register_models(sub)
    register_reconstruction(sub)
    from .analyze import register as register_analyze
    from .finetune import register as register_finetune
    from .tileset_cli import register as register_tileset

    register_analyze(sub)
    register_finetune(sub)
    register_tileset(sub)


def register_models(sub) -> None:
    """``detect`` (tile recognition models; their evaluation is the ``evaluation`` package's)."""
    from . import detect

    detect.register(sub)


def register_reconstruction(sub) -> None:
    """``calibrate`` and ``reconstruct`` (table reconstruction)."""
    from assistant.variants import variant_names

    p = sub.add_parser("calibrate", help="save or show a camera's table calibration")
    p.add_argument("--camera-id", default="default")
    p.add_argument("--corners", help='table corners in pixels, near-left near-right far-right far-left as seen '
                                     'from the near player: "x,y x,y x,y x,y"')
    p.add_argument("--image-size", help="WIDTHxHEIGHT of the camera frames (with --corners)")
    p.add_argument("--table-mm", type=float, default=850.0, help="side of the playing surface (default 850)")
    p.add_argument("--from-image", metavar="IMAGE", help="estimate from the tiles seen in this photo (recogniser)")
    p.add_argument("--tile-mm", type=float, default=26.0, help="tile width for --from-image (default 26)")
    p.add_argument("--dir", help="calibration folder (default $MAHJONG_CALIBRATION_DIR or "
                                 "~/.config/mahjong-assistant/calibration)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_calibrate)

    p = sub.add_parser("reconstruct", help="rebuild the table from a photo or from `detect --json` output")
    p.add_argument("input", help="an image, or a JSON file written by `mahjong-assistant detect --json`")
    p.add_argument("--variant", required=True, choices=variant_names())
    p.add_argument("--camera-id", default="default", help="use this camera's saved calibration")
    p.add_argument("--dir", help="calibration folder")
    p.add_argument("--tile-mm", type=float, default=26.0, help="tile width when estimating from the tiles")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_reconstruct)


def _parse_size(text: str) -> tuple[int, int]:
    w, h = text.lower().replace(",", "x").split("x")
    return int(w), int(h)


def cmd_calibrate(args: argparse.Namespace) -> int:
    import sys

    from . import calibration as C

    try:
        if args.corners:
            if not args.image_size:
                print("error: --corners needs --image-size WIDTHxHEIGHT", file=sys.stderr)
                return 2
            pts = [tuple(float(v) for v in c.split(",")) for c in args.corners.replace(";", " ").split()]
            cal = C.from_corners(pts, _parse_size(args.image_size), args.table_mm, args.camera_id)
        elif args.from_image:
            from .inference import TileRecognizer, load_image

            image = load_image(args.from_image)
            tiles = TileRecognizer().recognize(image).tiles
            cal = C.estimate_from_tiles(tiles, (image.shape[1], image.shape[0]), args.tile_mm, args.camera_id)
        else:
            saved = C.load(args.camera_id, args.dir)
            if saved is None:
                print(f"no calibration saved for camera {args.camera_id!r}", file=sys.stderr)
                return 1
            print(json.dumps(saved.to_dict(), indent=None if args.json else 2))
            return 0
    except (ValueError, FileNotFoundError, ImportError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    path = C.save(cal, args.dir)
    if args.json:
        print(json.dumps({"path": str(path), **cal.to_dict()}))
    else:
        print(f"calibration of camera {cal.camera_id!r} ({cal.source}) saved to {path}")
    return 0


def cmd_reconstruct(args: argparse.Namespace) -> int:
    import sys

    from . import calibration as C
    from .reconstruct import reconstruct

    try:
        if args.input.lower().endswith(".json"):
            with open(args.input) as fh:
                data = json.load(fh)
            tiles = data["tiles"] if isinstance(data, dict) else data
            size = (int(data.get("width", 0)), int(data.get("height", 0))) if isinstance(data, dict) else (0, 0)
        else:
            from .inference import TileRecognizer, load_image

            image = load_image(args.input)
            tiles = TileRecognizer().recognize(image).tiles
            size = (image.shape[1], image.shape[0])
        cal = C.load(args.camera_id, args.dir)
        if cal is None:
            if not size[0]:
                print("error: no saved calibration and no image size to estimate one", file=sys.stderr)
                return 2
            cal = C.estimate_from_tiles(tiles, size, args.tile_mm, args.camera_id)
        obs = reconstruct(tiles, cal, args.variant)
    except (ValueError, KeyError, OSError, ImportError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(obs.to_json() if args.json else obs.summary())
    return 0
