"""``mahjong-assistant``: the command line.

Engine subcommands live here; other packages (vision, webui) add theirs through the
``mahjong_assistant.commands`` entry-point group, so this module imports nothing from them.
Each provider is a function ``register(subparsers)`` that adds parsers and sets ``func``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Sequence
from importlib import metadata

import numpy as np

from . import __version__
from .analysis import (
    discard_advice,
    shanten,
    shanten_batch,
    wait_sets_batch,
    waits,
)
from .errors import TileError
from .hand import Hand, parse_hand, validate_hand
from .tiles import JOKER, Tile, counts34, format_tiles, kind_code, parse_tiles
from .variants import get_variant, variant_names

EXIT_BAD_INPUT = 2


def _add_hand_args(p: argparse.ArgumentParser, with_visible: bool = True) -> None:
    p.add_argument("hand", help="hand in notation, e.g. 123m456p77z or '23456789p11z [777z@1]'")
    p.add_argument("--variant", "-v", default="sanma", choices=variant_names(), help="rule system (default sanma)")
    p.add_argument("--melds", nargs="*", default=[], help="extra melds, e.g. '[777z@1]' '(5555p)'")
    if with_visible:
        p.add_argument("--visible", default="", help="other tiles seen (discards, others' melds, dora indicators)")
    p.add_argument("--json", action="store_true", help="print JSON")


def _load(args: argparse.Namespace) -> tuple[Hand, list[Tile]]:
    hand = parse_hand(args.hand, melds=args.melds)
    visible = parse_tiles(args.visible) if getattr(args, "visible", "") else []
    return hand, visible


def _shanten_word(s: int) -> str:
    return {-1: "complete", 0: "ready (tenpai)"}.get(s, f"{s} from ready")


# --- waits -----------------------------------------------------------------------------------


def waits_result(hand: Hand, variant_name: str, visible: Sequence[Tile] = ()) -> dict:
    variant = get_variant(variant_name)
    ws = waits(hand, variant, visible)
    sh = shanten(hand, variant)
    return {
        "variant": variant.name,
        "hand": hand.format(),
        "shanten": sh.minimum,
        "waits": [w.as_dict() for w in ws],
        "live_total": sum(w.live for w in ws),
    }


def cmd_waits(args: argparse.Namespace) -> int:
    hand, visible = _load(args)
    res = waits_result(hand, args.variant, visible)
    if args.json:
        print(json.dumps(res))
        return 0
    print(f"{res['hand']}  ({res['variant']}): {_shanten_word(res['shanten'])}")
    if not res["waits"]:
        print("No waits: the hand is not ready." if res["shanten"] > 0 else "No waits.")
        return 0
    print(f"Waits: {len(res['waits'])} kinds, {res['live_total']} tiles live")
    for w in res["waits"]:
        print(f"  {w['tile']:>3}  live {w['live']}  {'/'.join(w['shapes'])}")
        for d in w["decompositions"]:
            print(f"        {d}")
    return 0


# --- shanten ---------------------------------------------------------------------------------


def shanten_result(hand: Hand, variant_name: str) -> dict:
    variant = get_variant(variant_name)
    return {"variant": variant.name, "hand": hand.format(), **shanten(hand, variant).as_dict()}


def cmd_shanten(args: argparse.Namespace) -> int:
    hand, _ = _load(args)
    res = shanten_result(hand, args.variant)
    if args.json:
        print(json.dumps(res))
        return 0
    print(f"{res['hand']}  ({res['variant']}): shanten {res['shanten']} — {_shanten_word(res['shanten'])}")
    for form in ("standard", "seven_pairs", "thirteen_orphans"):
        if res[form] is not None:
            print(f"  {form.replace('_', ' ')}: {res[form]}")
    return 0


# --- discard ---------------------------------------------------------------------------------


def discard_result(hand: Hand, variant_name: str, visible: Sequence[Tile] = ()) -> dict:
    variant = get_variant(variant_name)
    options = discard_advice(hand, variant, visible)
    return {
        "variant": variant.name,
        "hand": hand.format(),
        "shanten": shanten(hand, variant).minimum,
        "options": [o.as_dict() for o in options],
    }


def cmd_discard(args: argparse.Namespace) -> int:
    hand, visible = _load(args)
    res = discard_result(hand, args.variant, visible)
    if args.json:
        print(json.dumps(res))
        return 0
    print(f"{res['hand']}  ({res['variant']}): {_shanten_word(res['shanten'])}; discards, best first:")
    for o in res["options"]:
        acc = " ".join(f"{a['tile']}x{a['live']}" for a in o["acceptance"])
        print(f"  {o['discard']:>3}  -> shanten {o['shanten']:>2}  accepts {o['kinds']} kinds / "
              f"{o['live_total']} tiles  {acc}")
    return 0


# --- batch -----------------------------------------------------------------------------------


def _read_lines(path: str) -> Iterable[str]:
    if path == "-":
        yield from sys.stdin
    else:
        with open(path, encoding="utf-8") as fh:
            yield from fh


def _batch_item(line: str, default_variant: str, default_op: str) -> tuple[Hand, str, str, list[Tile]]:
    line = line.strip()
    if line.startswith("{"):
        obj = json.loads(line)
        if not isinstance(obj, dict) or "hand" not in obj:
            raise ValueError("a JSON line needs a 'hand' field")
        hand = parse_hand(str(obj["hand"]), melds=obj.get("melds", []))
        visible = parse_tiles(obj.get("visible", ""))
        variant = str(obj.get("variant", default_variant))
        op = str(obj.get("op", default_op))
    else:
        hand, visible, variant, op = parse_hand(line), [], default_variant, default_op
    if op not in ("shanten", "waits", "discard"):
        raise ValueError(f"unknown op {op!r} (shanten, waits or discard)")
    get_variant(variant)
    return hand, variant, op, visible


def _simple(hand: Hand, visible: list[Tile]) -> bool:
    """Closed 13-tile hand without jokers or visible tiles: eligible for the vectorised path."""
    return (not hand.melds and not visible and len(hand.concealed) == 13
            and all(t.kind != JOKER for t in hand.concealed))


def run_batch(lines: Iterable[str], variant: str, op: str, out, chunk: int = 4096) -> tuple[int, int]:
    """Process hands line by line; write one JSON object per input line. Returns (ok, failed)."""
    ok = failed = 0
    pending: list[tuple[int, object]] = []

    def flush() -> None:
        nonlocal ok, failed
        # vectorise the simple shanten / waits items of this chunk, per variant
        fast: dict[tuple[str, str], list[int]] = {}
        for i, (_, item) in enumerate(pending):
            if isinstance(item, tuple) and item[2] in ("shanten", "waits") and _simple(item[0], item[3]):
                fast.setdefault((item[1], item[2]), []).append(i)
        results: dict[int, dict] = {}
        for (vname, kind), idxs in fast.items():
            v = get_variant(vname)
            hands = [pending[i][1][0] for i in idxs]  # type: ignore[index]
            good = []
            for i, h in zip(idxs, hands, strict=True):
                try:
                    validate_hand(h, v, sizes=(13,))
                    good.append((i, h))
                except TileError as e:
                    results[i] = {"error": str(e)}
            if not good:
                continue
            counts = np.array([counts34(h.concealed) for _, h in good], dtype=np.int64)
            sh = shanten_batch(counts, v)
            ws = wait_sets_batch(counts, v) if kind == "waits" else None
            for j, (i, h) in enumerate(good):
                res: dict = {"variant": vname, "hand": h.format(), "shanten": int(sh[j])}
                if ws is not None:
                    own = counts[j]
                    res["waits"] = [{"tile": kind_code(k), "live": int(v.copies[k] - own[k])} for k in sorted(ws[j])]
                results[i] = res
        for i, (lineno, item) in enumerate(pending):
            if i in results:
                res = results[i]
            elif isinstance(item, Exception):
                res = {"error": str(item)}
            else:
                hand, vname, kind, visible = item  # type: ignore[misc]
                try:
                    if kind == "shanten":
                        res = shanten_result(hand, vname)
                    elif kind == "waits":
                        full = waits_result(hand, vname, visible)
                        res = {k: full[k] for k in ("variant", "hand", "shanten")}
                        res["waits"] = [{"tile": w["tile"], "live": w["live"]} for w in full["waits"]]
                    else:
                        res = discard_result(hand, vname, visible)
                except (TileError, ValueError) as e:
                    res = {"error": str(e)}
            res = {"line": lineno, **res}
            if "error" in res:
                failed += 1
            else:
                ok += 1
            out.write(json.dumps(res) + "\n")
        pending.clear()

    for lineno, line in enumerate(lines, 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            pending.append((lineno, _batch_item(line, variant, op)))
        except (TileError, ValueError) as e:
            pending.append((lineno, e))
        if len(pending) >= chunk:
            flush()
    if pending:
        flush()
    return ok, failed


def cmd_batch(args: argparse.Namespace) -> int:
    ok, failed = run_batch(_read_lines(args.file), args.variant, args.op, sys.stdout)
    print(f"batch: {ok} hands done, {failed} with errors", file=sys.stderr)
    return 0 if failed == 0 else 1


# --- demo ------------------------------------------------------------------------------------

DEMO_HANDS = {
    "sanma": "234p567p789s4566s",
    "korean-3p": "123p456p234m78m99s",
    "hong-kong": "123m456m789p345s2p",
    "three-kaki": "123p456p789p77z5p jk",
}


def cmd_demo(args: argparse.Namespace) -> int:
    """Show the engine on one ready hand per rule system."""
    for name in variant_names():
        hand = parse_hand(DEMO_HANDS.get(name, ""))
        res = waits_result(hand, name)
        waits_txt = ", ".join(f"{w['tile']} ({w['live']} live)" for w in res["waits"]) or "none"
        print(f"{get_variant(name).title:32s} {res['hand']:24s} {_shanten_word(res['shanten'])}; waits: {waits_txt}")
    return 0


def _bench(hands: int, seed: int) -> int:
    from .bench import bench

    return bench(hands, seed)


def cmd_variants(args: argparse.Namespace) -> int:
    for name in variant_names():
        print(get_variant(name).describe())
    return 0


# --- parser ----------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mahjong-assistant",
        description="Mahjong table assistant: waits, shanten, discard advice (and more) for "
        "sanma, korean-3p, hong-kong and three-kaki.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("waits", help="waits of a ready hand with live counts")
    _add_hand_args(p)
    p.set_defaults(func=cmd_waits)

    p = sub.add_parser("shanten", help="shanten (standard, seven pairs, thirteen orphans, minimum)")
    _add_hand_args(p, with_visible=False)
    p.set_defaults(func=cmd_shanten)

    p = sub.add_parser("discard", help="discard advice for a hand with one tile too many")
    _add_hand_args(p)
    p.set_defaults(func=cmd_discard)

    p = sub.add_parser("batch", help="one hand per line (or a JSON object per line) -> one JSON object per line")
    p.add_argument("file", nargs="?", default="-", help="input file (default: stdin)")
    p.add_argument("--variant", "-v", default="sanma", choices=variant_names())
    p.add_argument("--op", default="waits", choices=["shanten", "waits", "discard"])
    p.set_defaults(func=cmd_batch)

    p = sub.add_parser("demo", help="show the engine on a sample hand of each rule system")
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("bench", help="benchmark shanten and wait sets against the `mahjong` package")
    p.add_argument("--hands", type=int, default=10_000, help="random 13-tile hands per tile set")
    p.add_argument("--seed", type=int, default=1)
    p.set_defaults(func=lambda a: _bench(a.hands, a.seed))

    p = sub.add_parser("variants", help="list the rule systems")
    p.set_defaults(func=cmd_variants)

    for ep in _command_providers():
        try:
            ep.load()(sub)
        except Exception as e:  # a broken optional provider must not break the engine commands
            print(f"warning: command provider {ep.name} failed to load: {e}", file=sys.stderr)
    return parser


def _command_providers() -> list[metadata.EntryPoint]:
    try:
        return list(metadata.entry_points(group="mahjong_assistant.commands"))
    except Exception:
        return []


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        return int(args.func(args) or 0)
    except TileError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        return 0


__all__ = ["main", "build_parser", "run_batch", "format_tiles"]
