"""Vision subcommands for ``mahjong-assistant`` (registered through the ``mahjong_assistant.commands``
entry point, so the engine's CLI never imports this package)."""

from __future__ import annotations

import argparse
import json


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
