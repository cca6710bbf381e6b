"""``mahjong-assistant analyze IMAGE``: tiles found in a photo, the table rebuilt from them, and the
waits and discard advice of the player's own hand when it can be read.

The player's own hand is the hand at table position 0 (the near side: the camera's player for a seat
camera, the bottom edge for an overhead photo). A photo of a hand alone (one row of tiles, no table
around it) is read as that hand, left to right.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import numpy as np

from assistant.errors import TileError
from assistant.hand import parse_hand
from assistant.tiles import parse_tiles
from assistant.variants import get_variant, variant_names


def own_hand_analysis(hand_codes: list[str], melds: list[str], visible: list[str], variant: str) -> dict[str, Any]:
    """Waits (a waiting hand: 13 tiles) or discard advice (a hand that must discard: 14 tiles) of a readable
    hand, as the rule system tells them apart; otherwise why not."""
    from assistant.cli import discard_result, waits_result

    codes = [c for c in hand_codes if c not in ("bk",)]
    if len(codes) != len(hand_codes) or not codes:
        return {"readable": False, "reason": "the hand is not face up to the camera"}
    try:
        hand = parse_hand(" ".join(codes), melds=melds)
        seen = parse_tiles(" ".join(visible))
        v = get_variant(variant)
        stage = v.hand_stage(hand.tile_count)
        if stage == "waiting":
            return {"readable": True, **waits_result(hand, variant, seen)}
        if stage == "discarding":
            return {"readable": True, **discard_result(hand, variant, seen)}
        return {"readable": False, "hand": hand.format(),
                "reason": f"{hand.tile_count} tiles read (concealed + 3 per meld); a hand has {v.hand_size}, or "
                          f"{v.full_hand_size} with the draw"}
    except (TileError, ValueError) as e:
        return {"readable": False, "reason": str(e)}


def _hand_row(tiles) -> list[str]:
    """Codes of face-up tiles in one row, left to right (a photo of a hand alone)."""
    faces = [t for t in tiles if t.face_up]
    faces.sort(key=lambda t: float(np.mean([p[0] for p in t.corners])))
    return [t.code for t in faces]


def analyze_image(image: np.ndarray, variant: str, camera_id: str = "default", calibration_dir: str | None = None,
                  tile_mm: float = 26.0, recognizer=None) -> dict[str, Any]:
    """Detect, rebuild the table and analyse the own hand. Returns a JSON-able dict."""
    from . import calibration as C
    from .inference import TileRecognizer
    from .reconstruct import reconstruct

    v = get_variant(variant)
    recognizer = recognizer or TileRecognizer()
    result = recognizer.recognize(image, variant=v.name)
    tiles = result.tiles
    size = (image.shape[1], image.shape[0])
    out: dict[str, Any] = {"variant": v.name, "width": size[0], "height": size[1],
                           "tiles": [t.to_dict() for t in tiles]}
    if not tiles:
        out.update(table=None, own_hand={"readable": False, "reason": "no tile found in the picture"})
        return out
    table = None
    try:
        cal = C.load(camera_id, calibration_dir) or C.estimate_from_tiles(tiles, size, tile_mm, camera_id)
        obs = reconstruct(tiles, cal, v.name)
        table = json.loads(obs.to_json())
    except (ValueError, KeyError) as e:
        out["table_error"] = str(e)
    out["table"] = table
    hand_codes: list[str] = []
    melds: list[str] = []
    visible: list[str] = []
    if table is not None:
        for seat in table.get("seats", []):
            if seat.get("position") == 0:
                hand_codes = list(seat.get("hand", []))
                melds = [m["notation"] for m in seat.get("melds", []) if m.get("notation")]
            else:
                for m in seat.get("melds", []):
                    visible.extend(c for c in m.get("tiles", []) if c != "bk")
            visible.extend(seat.get("discards", []))
            visible.extend(seat.get("bonus", []) + seat.get("norths", []))
        visible.extend(table.get("dora_indicators", []) + table.get("centre_discards", []))
    if len(hand_codes) < v.hand_size and len(tiles) <= 18:
        # a photo of a hand alone: read its one row left to right
        hand_codes, melds, visible = _hand_row(tiles), [], []
    out["own_hand"] = own_hand_analysis(hand_codes, melds, [c for c in visible if c != "bk"], v.name)
    return out


def cmd_analyze(args: argparse.Namespace) -> int:
    from .detect import overlay_problem
    from .inference import ImageError, TileRecognizer, draw_overlay, load_image

    problem = overlay_problem(args.overlay)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    try:
        image = load_image(args.image)
        from .tileset_cli import chosen_tileset

        recognizer = TileRecognizer(tileset=chosen_tileset(args.tileset))
        res = analyze_image(image, args.variant, args.camera_id, args.dir, args.tile_mm, recognizer)
    except (ImageError, OSError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.overlay:
        import cv2

        tiles = recognizer.recognize(image, variant=args.variant).tiles
        if not cv2.imwrite(args.overlay, draw_overlay(image, tiles)):
            print(f"error: cannot write overlay {args.overlay}", file=sys.stderr)
            return 2
    if args.json:
        print(json.dumps(res))
        return 0
    print(f"{len(res['tiles'])} tiles found ({res['width']}x{res['height']}, {res['variant']})")
    table = res.get("table")
    if table:
        for seat in table.get("seats", []):
            print(f"  position {seat['position']}: {seat.get('notation', '')}")
        if table.get("dora_indicators"):
            print(f"  dora indicators: {' '.join(table['dora_indicators'])}")
        for p in table.get("problems", []):
            print(f"  ! {p['message']}")
    elif res.get("table_error"):
        print(f"  table not rebuilt: {res['table_error']}")
    own = res["own_hand"]
    if not own["readable"]:
        print(f"own hand: not readable — {own['reason']}")
    elif "waits" in own:
        waits = ", ".join(f"{w['tile']} ({w['live']} live)" for w in own["waits"]) or "none"
        print(f"own hand {own['hand']}: shanten {own['shanten']}; waits: {waits}")
    else:
        best = own["options"][0] if own.get("options") else None
        line = f"own hand {own['hand']}: shanten {own['shanten']}"
        if best:
            line += f"; best discard {best['discard']} (accepts {best['kinds']} kinds, {best['live_total']} tiles)"
        print(line)
    return 0


def register(sub) -> None:
    p = sub.add_parser("analyze", help="tiles in a photo, the rebuilt table, and the own hand's waits and advice")
    p.add_argument("image")
    p.add_argument("--variant", "-v", default="sanma", choices=variant_names())
    p.add_argument("--camera-id", default="default", help="use this camera's saved calibration if there is one")
    p.add_argument("--dir", help="calibration folder")
    p.add_argument("--tile-mm", type=float, default=26.0)
    p.add_argument("--overlay", metavar="OUT.png", help="write the detections drawn over the photo")
    p.add_argument("--tileset", metavar="NAME", help="read with this enrolled tile set (default: the one chosen "
                   "with `tileset use`; 'none' for none)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_analyze)
