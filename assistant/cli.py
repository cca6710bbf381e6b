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
from pathlib import Path

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
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                   help="table option, e.g. special_hands=seven_pairs (see `variants --options`)")
    if with_visible:
        p.add_argument("--visible", default="", help="other tiles seen (discards, others' melds, dora indicators)")
    p.add_argument("--json", action="store_true", help="print JSON")


def _variant(args: argparse.Namespace):
    """The chosen rule system with its --option overrides applied."""
    return get_variant(args.variant).with_options(dict(parse_option(o) for o in getattr(args, "option", [])))


def _load(args: argparse.Namespace) -> tuple[Hand, list[Tile]]:
    hand = parse_hand(args.hand, melds=args.melds)
    visible = parse_tiles(args.visible) if getattr(args, "visible", "") else []
    return hand, visible


def _shanten_word(s: int) -> str:
    return {-1: "complete", 0: "ready (tenpai)"}.get(s, f"{s} from ready")


# --- waits -----------------------------------------------------------------------------------


def waits_result(hand: Hand, variant_name, visible: Sequence[Tile] = ()) -> dict:
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
    res = waits_result(hand, _variant(args), visible)
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


def shanten_result(hand: Hand, variant_name) -> dict:
    variant = get_variant(variant_name)
    return {"variant": variant.name, "hand": hand.format(), **shanten(hand, variant).as_dict()}


def cmd_shanten(args: argparse.Namespace) -> int:
    hand, _ = _load(args)
    res = shanten_result(hand, _variant(args))
    if args.json:
        print(json.dumps(res))
        return 0
    print(f"{res['hand']}  ({res['variant']}): shanten {res['shanten']} — {_shanten_word(res['shanten'])}")
    for form in ("standard", "seven_pairs", "thirteen_orphans"):
        if res[form] is not None:
            print(f"  {form.replace('_', ' ')}: {res[form]}")
    return 0


# --- discard ---------------------------------------------------------------------------------


def discard_result(hand: Hand, variant_name, visible: Sequence[Tile] = ()) -> dict:
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
    res = discard_result(hand, _variant(args), visible)
    if args.json:
        print(json.dumps(res))
        return 0
    print(f"{res['hand']}  ({res['variant']}): {_shanten_word(res['shanten'])}; discards, best first:")
    for o in res["options"]:
        acc = " ".join(f"{a['tile']}x{a['live']}" for a in o["acceptance"])
        print(f"  {o['discard']:>3}  -> shanten {o['shanten']:>2}  accepts {o['kinds']} kinds / "
              f"{o['live_total']} tiles  {acc}")
    return 0


# --- score ---------------------------------------------------------------------------------

SEAT_NAMES = {"e": 0, "east": 0, "s": 1, "south": 1, "w": 2, "west": 2, "n": 3, "north": 3,
              "1z": 0, "2z": 1, "3z": 2, "4z": 3}


def parse_seat(text: str, players: int, what: str = "seat") -> int:
    """A seat as E/S/W/N (or East…, 1z…, or 0-3), relative to the dealer (East = dealer = 0)."""
    key = str(text).strip().lower()
    seat = int(key) if key.isdigit() else SEAT_NAMES.get(key)
    if seat is None or not 0 <= seat < players:
        names = "E S W N"[: 2 * players - 1]
        raise ValueError(f"bad {what} {text!r}: use one of {names} (seats of this {players}-player table)")
    return seat


def _count_arg(text: str) -> int:
    """A small count (honba, riichi sticks): a whole number 0-100."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 0 <= n <= 100:
        raise argparse.ArgumentTypeError(f"{n} is out of range (0-100)")
    return n


def parse_option(text: str) -> tuple[str, object]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise ValueError(f"bad --option {text!r}: write key=value, e.g. tsumo_mode=split or honba='{{...}}'")
    try:
        return key.strip(), json.loads(value)
    except json.JSONDecodeError:
        return key.strip(), value


def score_context(args: argparse.Namespace):
    from .scoring import WinContext

    options = dict(parse_option(o) for o in args.option)
    variant = get_variant(args.variant).with_options(options)
    hand = parse_hand(args.hand, melds=args.melds)
    win = parse_tiles(args.win_tile)
    if len(win) != 1:
        raise TileError(args.win_tile, 0, "--win-tile takes exactly one tile")
    win_tile = win[0]
    concealed = list(hand.concealed)
    if hand.win_tile is None and variant.hand_stage(hand.tile_count) == "waiting":
        concealed.append(win_tile)  # the winning tile is added to a waiting (13-tile) hand
    hand = type(hand)(tuple(concealed), hand.melds, hand.bonus, win_tile, ())
    validate_hand(hand, variant, sizes=(variant.full_hand_size,))
    if args.tsumo == (args.ron_from is not None):
        raise ValueError("say how the hand was won: --tsumo or --ron-from SEAT")
    seat = parse_seat(args.seat, variant.players)
    discarder = parse_seat(args.ron_from, variant.players, "--ron-from seat") if args.ron_from else None
    if discarder == seat:
        raise ValueError("--ron-from names the winner's own seat")
    round_wind = 27 + parse_seat(args.round_wind, 4, "round wind")
    return WinContext(
        variant=variant, hand=hand, win_tile=win_tile, tsumo=args.tsumo, seat=seat, discarder=discarder,
        round_wind=round_wind, dora_indicators=tuple(parse_tiles(args.dora)),
        ura_indicators=tuple(parse_tiles(args.ura)), kita=args.kita, riichi=args.riichi or args.double_riichi,
        double_riichi=args.double_riichi, ippatsu=args.ippatsu, rinshan=args.rinshan,
        after_two_kongs=args.after_two_kongs, chankan=args.chankan, haitei=args.haitei, houtei=args.houtei,
        tenhou=args.tenhou, chiihou=args.chiihou, honba=args.honba, riichi_sticks=args.sticks,
        fei_sunk=args.fei_sunk, options=options,
    )


SEAT_LABELS = ("East", "South", "West", "North")


def cmd_score(args: argparse.Namespace) -> int:
    from .scoring import score

    ctx = score_context(args)
    res = score(ctx)
    if args.json:
        print(json.dumps({"variant": ctx.variant.name, "hand": ctx.hand.format(), **res.as_dict()}))
        return 0 if res.legal else 1
    print(f"{ctx.hand.format()}  ({ctx.variant.name}), {SEAT_LABELS[ctx.seat]} "
          f"{'self-draws' if ctx.tsumo else 'wins on ' + SEAT_LABELS[ctx.discarder] + chr(39) + 's discard'} "
          f"{ctx.win_tile.code}")
    print(("LEGAL WIN: " if res.legal else "NOT A LEGAL WIN: ") + res.verdict)
    if res.reading:
        print(f"  reading: {res.reading}")
    for item in res.items:
        note = f"  ({item.note})" if item.note else ""
        print(f"  {item.name:28s} {item.value:>4} {item.unit}{note}")
    if res.fu is not None:
        parts = ", ".join(f"{i.name} {i.value}" for i in res.fu_breakdown)
        print(f"  fu {res.fu}: {parts}")
    limit = f" ({res.limit})" if res.limit else ""
    print(f"  total {res.total} {res.unit}{limit}")
    for p in res.payments:
        payer = "the table" if p.payer is None else SEAT_LABELS[p.payer]
        print(f"  {payer} pays {SEAT_LABELS[p.receiver]} {p.amount}  ({p.reason})")
    if res.explanation:
        print(res.explanation)
    return 0 if res.legal else 1


# --- calls ---------------------------------------------------------------------------------


def _read_json_arg(text: str) -> object:
    """A JSON value given inline, as a file path, or as '-' for stdin."""
    if text == "-":
        raw = sys.stdin.read()
    elif text.lstrip().startswith("{"):
        raw = text
    else:
        try:
            with open(text, encoding="utf-8") as fh:
                raw = fh.read()
        except OSError as e:
            raise ValueError(f"cannot read state file {text!r}: {e.strerror}") from None
    try:
        return json.loads(raw)
    except json.JSONDecodeError as e:
        raise ValueError(f"the state is not valid JSON: {e.msg} at line {e.lineno} column {e.colno}") from None


def calls_result(state_json: object, seats: Sequence[int] | None = None) -> dict:
    from .calls import legal_actions
    from .furiten import wait_labels
    from .table import TableState

    if not isinstance(state_json, dict):
        raise ValueError("the state must be a JSON object (see README: 'Table state JSON')")
    state = TableState.from_json(state_json)
    wanted = range(len(state.seats)) if seats is None else seats
    out = []
    for seat in wanted:
        if not 0 <= seat < len(state.seats):
            raise ValueError(f"bad seat {seat}: this table has seats 0-{len(state.seats) - 1}")
        hand = state.seats[seat].hand
        labels = wait_labels(state, seat) if state.variant.hand_stage(hand.tile_count) == "waiting" else []
        out.append({
            "seat": seat,
            "name": state.seat_name(seat),
            "actions": [a.as_dict() for a in legal_actions(state, seat)],
            "waits": [{"tile": w.tile.code, "live": w.live, "label": w.label, "reason": w.reason} for w in labels],
        })
    return {"variant": state.variant.name, "phase": state.phase, "seats": out}


def cmd_calls(args: argparse.Namespace) -> int:
    data = _read_json_arg(args.state)
    seats = None
    if args.seat is not None:
        players = len(data.get("seats", [])) if isinstance(data, dict) else 4
        seats = [parse_seat(args.seat, max(players, 1))]
    res = calls_result(data, seats)
    if args.json:
        print(json.dumps(res))
        return 0
    print(f"{res['variant']}, {res['phase'].replace('_', ' ')}")
    for seat in res["seats"]:
        print(f"{seat['name']}:")
        if not seat["actions"]:
            print("  nothing to do")
        for a in seat["actions"]:
            what = a["kind"] + (f" {a['tile']}" if a["tile"] else "") + (f" -> {a['meld']}" if a["meld"] else "")
            line = f"  {'yes' if a['legal'] else 'NO '} {what}"
            if not a["legal"]:
                line += f" — {a['message']} [{a['code']}]"
            print(line)
            for w in a["warnings"]:
                print(f"      note: {w.get('message', w)}")
        for w in seat["waits"]:
            print(f"  wait {w['tile']} ({w['live']} live): {w['label']}" + (f" — {w['reason']}" if w["reason"] else ""))
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
    if args.file != "-":
        p = Path(args.file)
        if not p.exists():
            raise ValueError(f"{args.file}: no such file")
        if not p.is_file():
            raise ValueError(f"{args.file}: not a file (give a text file with one hand per line, or - for stdin)")
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


def _bench(args: argparse.Namespace) -> int:
    if args.scoring:
        from .scoring.bench_sanma import main as bench_scoring

        seed = args.seed if args.seed is not None else 7
        return bench_scoring(["--hands", str(args.hands or 2000), "--seed", str(seed)])
    from .bench import bench

    return bench(args.hands or 10_000, args.seed if args.seed is not None else 1)


def cmd_variants(args: argparse.Namespace) -> int:
    for name in variant_names():
        v = get_variant(name)
        print(v.describe())
        if args.options:
            for key, value in v.options.items():
                print(f"    {key} = {json.dumps(value)}")
    return 0


# --- parser ----------------------------------------------------------------------------------


def _command_word(argv: Sequence[str] | None) -> str | None:
    """The subcommand ``argv`` names (its first word that is not an option), or None."""
    for a in (sys.argv[1:] if argv is None else argv):
        if not a.startswith("-"):
            return a
    return None


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The command line. Providers that list their commands (``COMMANDS``: name -> help) are only loaded in full
    when ``argv`` runs one of them; otherwise their commands are listed by name (a quick ``--help`` and engine
    commands that load neither OpenCV nor Flask)."""
    word = _command_word(argv)
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

    p = sub.add_parser("score", help="full scoring of a win: items, fu, total, who pays whom")
    p.add_argument("hand", help="the winning hand (13 tiles + --win-tile, or 14 with the winning tile marked *)")
    p.add_argument("--variant", "-v", default="sanma", choices=variant_names())
    p.add_argument("--win-tile", required=True, help="the winning tile, e.g. 5s")
    how = p.add_mutually_exclusive_group()
    how.add_argument("--tsumo", action="store_true", help="won by self-draw")
    how.add_argument("--ron-from", metavar="SEAT", help="won on the discard of SEAT (E/S/W/N)")
    p.add_argument("--seat", default="E", help="winner's seat E/S/W/N (East = dealer); default E")
    p.add_argument("--round-wind", default="E", help="round wind E/S/W/N (default E)")
    p.add_argument("--melds", nargs="*", default=[], help="melds in call order, e.g. '[777z@1]' '(5555p)'")
    p.add_argument("--dora", default="", help="dora indicators, e.g. 3z1s")
    p.add_argument("--ura", default="", help="ura dora indicators (riichi only)")
    p.add_argument("--kita", type=int, default=0, help="Norths set aside (sanma)")
    p.add_argument("--riichi", action="store_true")
    for flag in ("double-riichi", "ippatsu", "rinshan", "after-two-kongs", "chankan", "haitei", "houtei",
                 "tenhou", "chiihou"):
        p.add_argument(f"--{flag}", action="store_true")
    p.add_argument("--honba", type=_count_arg, default=0, help="honba counters (0-100)")
    p.add_argument("--sticks", type=_count_arg, default=0,
                   help="riichi sticks on the table, the winner's own included (0-100)")
    p.add_argument("--fei-sunk", type=int, default=0, help="Fei the winner has sunk (three-kaki)")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                   help="table option, e.g. tsumo_mode=split, ladder=full (see `variants --options`)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_score)

    p = sub.add_parser("calls", help="legal actions (and why not) and wait labels for a table state given as JSON")
    p.add_argument("state", help="table state JSON: a file, '-' for stdin, or inline '{...}' (schema in README)")
    p.add_argument("--seat", help="only this seat (E/S/W/N or 0-3); default every seat")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_calls)

    p = sub.add_parser("batch", help="one hand per line (or a JSON object per line) -> one JSON object per line")
    p.add_argument("file", nargs="?", default="-", help="input file (default: stdin)")
    p.add_argument("--variant", "-v", default="sanma", choices=variant_names())
    p.add_argument("--op", default="waits", choices=["shanten", "waits", "discard"])
    p.set_defaults(func=cmd_batch)

    p = sub.add_parser("demo", help="show the engine on a sample hand of each rule system")
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("bench", help="benchmark against the `mahjong` package (shanten and waits, or --scoring)")
    p.add_argument("--hands", type=int, default=None, help="hands per tile set (default 10,000; 2,000 with --scoring)")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--scoring", action="store_true", help="benchmark sanma scoring instead")
    p.set_defaults(func=_bench)

    p = sub.add_parser("variants", help="list the rule systems")
    p.add_argument("--options", action="store_true", help="also list each table option with its default")
    p.set_defaults(func=cmd_variants)

    if word == "match":
        from .match_cli import register as register_match

        register_match(sub)
    else:
        sub.add_parser("match", help="keep the score of a whole match (events, standings, export)")
    if word in ("db", "club"):
        from .club_cli import register as register_club

        register_club(sub)
    else:
        sub.add_parser("db", help="create or migrate the match ledger (SQLite or PostgreSQL)")
        sub.add_parser("club", help="a club's tables, standings across matches, checks and audit trail")

    if word in sub.choices:
        return parser     # an engine or match command: the providers' commands are not needed to run it
    for ep in _command_providers():
        try:
            summary = _summary(ep)
            if summary is not None and word not in summary:
                for name, text in summary.items():
                    sub.add_parser(name, help=text)
                continue
            ep.load()(sub)
        except Exception as e:  # a broken optional provider must not break the engine commands
            print(f"warning: command provider {ep.name} failed to load: {e}", file=sys.stderr)
    return parser


def _summary(ep: metadata.EntryPoint) -> dict[str, str] | None:
    """The provider module's ``COMMANDS`` (name -> help), or None when it has none."""
    import importlib

    module = importlib.import_module(ep.value.split(":")[0])
    commands = getattr(module, "COMMANDS", None)
    return dict(commands) if isinstance(commands, dict) else None


def _command_providers() -> list[metadata.EntryPoint]:
    try:
        return list(metadata.entry_points(group="mahjong_assistant.commands"))
    except Exception:
        return []


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        return int(args.func(args) or 0)
    except ValueError as e:  # TileError, StateError, MatchError are ValueErrors: a clear message, exit 2
        print(f"error: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except RecursionError:   # e.g. JSON nested thousands deep
        print("error: the input is nested too deeply to read (JSON arrays or objects thousands of levels deep)",
              file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        return 0


__all__ = ["main", "build_parser", "run_batch", "format_tiles"]
