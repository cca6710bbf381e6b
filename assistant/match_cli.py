"""``mahjong-assistant match …``: keep the score of a whole match from the command line.

:func:`register` adds the ``match`` command group to an argparse sub-parsers object (the way every
command provider of :mod:`assistant.cli` plugs in). :func:`main` runs the group on its own
(``python -m assistant.match_cli match show``).

Every action opens the match database (``--db PATH``, else ``$MAHJONG_ASSISTANT_DB``, else
``~/.local/share/mahjong-assistant/matches.db``); ``--match ID`` (an id or a unique prefix) picks the
match, by default the one most recently written to. Players are named by name; a seat wind (``E``,
``South``…) that is not a player's name means the player in that seat in the current hand.

Examples::

    match new --variant sanma --players Ann Bob Cid --option uma=20
    match record riichi Bob
    match record win Bob --from Cid --pay 3900              # payments entered by hand
    match record win Ann --tsumo --hand "111m234p678p34s99s5s*"   # scored from the hand
    match record draw --tenpai Ann Bob
    match record event '{"type": "win", "discarder": "Cid", "winners": [...]}'
    match undo                  # voids the latest event
    match edit --event 5 '{"type": "draw", "tenpai": ["Ann"]}'
    match show                  # the score sheet and standings
    match export --format csv --out sheet.csv
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .match.db import check_target, db_error_text, default_target, is_url
from .match.events import (
    HAND_FLAGS,
    AbortiveDraw,
    Draw,
    Edit,
    Event,
    FalseWin,
    HandSpec,
    MatchCreated,
    MatchEnd,
    MatchError,
    PaymentEntry,
    Payout,
    Riichi,
    Undo,
    Win,
    WinClaim,
    event_from_json,
)
from .match.export import log_to_json, printable, records_from_json, score_sheet, state_json, to_csv
from .match.rules import RULES, WIND_NAMES
from .match.state import MatchState, effective_events, last_undoable
from .match.store import Store

EXIT_BAD_INPUT = 2


# --- argument helpers ------------------------------------------------------------------------------


def _option(text: str) -> tuple[str, Any]:
    """``key=value``; the value is read as JSON when it parses (numbers, true/false, objects), else a word."""
    key, sep, raw = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"an option is key=value, got {text!r}")
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        value = raw
    return key.strip(), value


def _json_arg(text: str) -> Any:
    """A JSON argument, or ``@FILE`` to read it from a file (``@-`` = stdin)."""
    if text.startswith("@"):
        text = sys.stdin.read() if text == "@-" else Path(text[1:]).read_text()
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise MatchError(f"not valid JSON ({e.msg} at character {e.pos}): {text[:60]!r}") from None


def _player(state: MatchState, text: str) -> str:
    """A player's name, or the player sitting at a seat wind named ``text`` in the current hand."""
    if text in state.players:
        return text
    words = {w.lower(): i for i, w in enumerate(WIND_NAMES[: state.n])}
    words.update({w[0].lower(): i for i, w in enumerate(WIND_NAMES[: state.n])})
    seat = words.get(text.lower())
    if seat is not None:
        return state.player_at(seat)
    raise MatchError(f"unknown player {text!r}; the players are {', '.join(state.players)}")


def _payments(state: MatchState, specs: Sequence[str], default_to: str | None, reason: str,
              default_from: str | None = None) -> list[PaymentEntry]:
    """``FROM:TO:AMOUNT``, ``FROM:AMOUNT`` (to ``default_to``) or ``AMOUNT`` (``default_from`` to ``default_to``)."""
    out = []
    for spec in specs:
        parts = spec.split(":")
        if len(parts) == 1 and default_to is not None and default_from is not None:
            payer, receiver, amount = default_from, default_to, parts[0]
        elif len(parts) == 2 and default_to is not None:
            payer, receiver, amount = parts[0], default_to, parts[1]
        elif len(parts) == 3:
            payer, receiver, amount = parts
        else:
            raise MatchError(
                f"a payment is FROM:TO:AMOUNT, FROM:AMOUNT (to the winner) or AMOUNT (from the discarder "
                f"to the one winner), got {spec!r}"
            )
        try:
            value = int(amount.replace(",", "").replace("_", ""))
        except ValueError:
            raise MatchError(f"payment amount {amount!r} is not a whole number") from None
        out.append(PaymentEntry.from_json(
            {"from": _player(state, payer), "to": _player(state, receiver), "amount": value, "reason": reason}
        ))
    return out


# --- actions -----------------------------------------------------------------------------------------


def _store(args: argparse.Namespace, readonly: bool = False) -> Store:
    return Store(args.db, readonly=readonly)


def _author(args: argparse.Namespace) -> str:
    """Who records: ``--by``, else ``$MAHJONG_ASSISTANT_USER``, else the login name (kept with each event for
    the audit trail)."""
    import getpass
    import os

    by = getattr(args, "by", None) or os.environ.get("MAHJONG_ASSISTANT_USER")
    if not by:
        try:
            by = getpass.getuser()
        except (KeyError, OSError):
            by = ""
    return str(by)[:64]


def cmd_new(args: argparse.Namespace) -> int:
    options = dict(args.option or [])
    with _store(args) as st:
        match_id = st.create_match(args.variant, args.players, options, match_id=args.id, by=_author(args),
                                   table=args.table, session=args.session, league=args.league,
                                   tournament=args.tournament)
    print(match_id)
    return 0


def _report(st: Store, match_id: str, seq: int, event: Event, what: str = "") -> None:
    state = st.state(match_id)
    line = f"event {seq}: {what or event.type}"
    if state.history and seq in state.history[-1].events and state.history[-1].events[-1] == seq:
        line += f" — {state.history[-1].label}: {state.history[-1].summary}"
    print(line)
    totals = " · ".join(f"{p} {v:,}" for p, v in zip(state.players, state.points, strict=True))
    if state.finished:
        print(f"match finished ({state.end_reason}): {totals}")
    else:
        sticks = f", {state.sticks} stick(s) on the table" if state.rules.riichi and state.sticks else ""
        print(f"next: {state.label}, dealer {state.players[state.dealer]}{sticks} — {totals}")


def _record(args: argparse.Namespace, build: Any) -> int:
    with _store(args) as st:
        match_id = st.resolve(args.match)
        event = build(st.state(match_id), args)
        rec = st.append_all(match_id, [event], by=_author(args), at_hand=getattr(args, "at_hand", None))[0]
        _report(st, match_id, rec.seq, event)
    return 0


def _build_win(state: MatchState, args: argparse.Namespace) -> Event:
    winners = [_player(state, w) for w in args.winners]
    if args.tsumo == (args.discarder is not None):
        raise MatchError("say how the hand was won: --tsumo (self-draw) or --from DISCARDER")
    discarder = None if args.tsumo else _player(state, args.discarder)
    if bool(args.hand) == bool(args.pay):
        raise MatchError("give either --hand (the winning hand, scored) or --pay (payments entered by hand)")
    claims: list[WinClaim] = []
    if args.hand:
        if len(args.hand) != len(winners):
            raise MatchError(f"give one --hand per winner ({len(winners)} winners, {len(args.hand)} hands)")
        for name, notation in zip(winners, args.hand, strict=True):
            raw: dict[str, Any] = {"hand": notation}
            if args.dora:
                raw["dora_indicators"] = args.dora
            if args.ura:
                raw["ura_indicators"] = args.ura
            if args.kita:
                raw["kita"] = args.kita
            if args.fei_sunk:
                raw["fei_sunk"] = args.fei_sunk
            for flag in args.flag or []:
                raw[flag] = True
            if args.liable:
                raw["liable"] = _player(state, args.liable)
            if args.others:
                others = _json_arg(args.others)
                if not isinstance(others, dict):
                    raise MatchError("--others is a JSON object: player -> what they show")
                raw["others"] = {_player(state, k): v for k, v in others.items()}
            claims.append(WinClaim(name, hand=HandSpec.from_json(raw)))
    else:
        single = winners[0] if len(winners) == 1 else None
        pays = _payments(state, args.pay, single, "win", discarder)
        for i, name in enumerate(winners):
            mine = [p for p in pays if p.receiver == name or (i == 0 and p.receiver not in winners)]
            if not mine:
                raise MatchError(f"no payment to {name}; with several winners write FROM:TO:AMOUNT")
            claims.append(WinClaim(name, payments=tuple(mine)))
    return Win(tuple(claims), discarder)


def _build_draw(state: MatchState, args: argparse.Namespace) -> Event:
    if args.abortive:
        if args.tenpai or args.nagashi:
            raise MatchError("an abortive draw has no tenpai players or nagashi")
        return AbortiveDraw(args.abortive)
    return Draw(tuple(_player(state, p) for p in args.tenpai or []),
                tuple(_player(state, p) for p in args.nagashi or []))


def _build_riichi(state: MatchState, args: argparse.Namespace) -> Event:
    return Riichi(_player(state, args.player))


def _build_chombo(state: MatchState, args: argparse.Namespace) -> Event:
    return FalseWin(_player(state, args.player))


def _build_payout(state: MatchState, args: argparse.Namespace) -> Event:
    player = _player(state, args.player)
    payments = tuple(_payments(state, args.pay, player, args.kind)) if args.pay else None
    discarder = None if args.discarder is None else _player(state, args.discarder)
    return Payout(args.kind, player, discarder, payments)


def _build_end(state: MatchState, args: argparse.Namespace) -> Event:
    return MatchEnd(args.reason or "")


def _build_event(state: MatchState, args: argparse.Namespace) -> Event:
    event = event_from_json(_json_arg(args.json))
    if isinstance(event, MatchCreated):
        raise MatchError("match_created starts a new match: use 'match new'")
    return event


def cmd_undo(args: argparse.Namespace) -> int:
    with _store(args) as st:
        match_id = st.resolve(args.match)
        records = st.records(match_id)
        target = args.event if args.event is not None else last_undoable(records)
        kind = next((r.event.type for r in records if r.seq == target), "?")
        rec = st.append(match_id, Undo(target), by=_author(args))
        _report(st, match_id, rec.seq, rec.event, f"undo of event {target} ({kind})")
    return 0


def cmd_edit(args: argparse.Namespace) -> int:
    with _store(args) as st:
        match_id = st.resolve(args.match)
        records = st.records(match_id)
        raw = _json_arg(args.replacement)
        if isinstance(raw, dict) and "type" not in raw:
            current = dict(effective_events(records)).get(args.event)
            if current is None:
                raise MatchError(f"cannot edit event {args.event}: it is not an event in force")
            raw = {"type": current.type, **raw}
        replacement = event_from_json(raw)
        rec = st.append(match_id, Edit.from_payload({"event": args.event, "replacement": replacement.to_json()}),
                        by=_author(args))
        _report(st, match_id, rec.seq, rec.event, f"edit of event {args.event} (now {replacement.type})")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    with _store(args, readonly=True) as st:
        match_id = st.resolve(args.match)
        state = st.state(match_id)
    if args.json:
        print(json.dumps(state_json(state, match_id), indent=2))
    else:
        print("\n".join(printable(line) for line in score_sheet(state, match_id).split("\n")))
    return 0


def _hand_logs(args: argparse.Namespace) -> list[Any]:
    """The hand logs of ``--hands`` (each file one hand log, or ``{"hands": [...]}``), replayed by the engine."""
    from .play import EventError, HandLog, IllegalEvent

    logs = []
    for path in args.hands:
        data = _json_arg("@" + path)
        items = data.get("hands") if isinstance(data, dict) and "hands" in data else [data]
        if not isinstance(items, list):
            raise MatchError(f"{path}: 'hands' must be a list of hand logs")
        for item in items:
            try:
                logs.append(HandLog.from_json(item))
            except (EventError, IllegalEvent) as e:
                raise MatchError(f"{path}: not a hand log the engine can replay: {e}") from None
    return logs


def _mjai(args: argparse.Namespace) -> str:
    """The followed hands (``--hands`` files: hand logs as the live page's "this hand's events" gives them) as
    mjai JSON lines, named after the match's players when a match is there."""
    from .match.mjai import mjai_lines, to_mjai

    if not args.hands:
        raise MatchError("mjai needs the followed hands: --hands FILE ... (hand logs: the live page's "
                         "/api/live/hand.json, or eval-video's)")
    logs = _hand_logs(args)
    names = None
    if args.match is not None or args.db is not None:
        with _store(args, readonly=True) as st:
            names = list(st.state(st.resolve(args.match)).players)
    return mjai_lines(to_mjai(logs, names))


def cmd_export(args: argparse.Namespace) -> int:
    text = _mjai(args) if args.format == "mjai" else _export_match(args)
    if args.out:
        Path(args.out).write_text(text)
        print(f"wrote {args.out}")
    else:
        sys.stdout.write(text)
    if args.format == "mjai" and not text.endswith('{"type":"end_game"}\n'):
        print("note: the last hand is still being played: it stops at its latest event (no end_kyoku, no "
              "end_game)", file=sys.stderr)
    return 0


def _export_match(args: argparse.Namespace) -> str:
    with _store(args, readonly=True) as st:
        match_id = st.resolve(args.match)
        if args.format == "csv":
            text = to_csv(st.state(match_id))
        elif args.format == "tenhou6":
            from .match.tenhou import to_tenhou6

            hands = _hand_logs(args) if args.hands else []
            text = json.dumps(to_tenhou6(st.state(match_id), st.records(match_id), match_id, hands),
                              ensure_ascii=False) + "\n"
        else:
            text = json.dumps(log_to_json(match_id, st.records(match_id), st.info(match_id).club()), indent=2) + "\n"
    return text


def _club_of(data: Any) -> dict[str, Any]:
    from .match.export import club_from_json

    return dict(club_from_json(data))


def cmd_import(args: argparse.Namespace) -> int:
    data = _json_arg("@" + args.file)
    match_id, records = records_from_json(data)
    with _store(args) as st:
        new_id = st.write_log(None if args.new_id else match_id, records, **_club_of(data))
        state = st.state(new_id)
    print(new_id)
    print(printable(f"imported {len(records)} events: {state.variant}, {', '.join(state.players)}"
                    + (f", finished ({state.end_reason})" if state.finished else f", next hand {state.label}")))
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    target = args.db or default_target()
    check_target(target)
    if not is_url(target) and not Path(target).expanduser().exists():
        print(f"no matches in {Path(target).expanduser()}")
        return 0
    with _store(args, readonly=True) as st:
        infos = st.matches(league=args.league, tournament=args.tournament)
        if not infos:
            print(f"no matches in {st.path}")
            return 0
        for m in infos:
            try:
                state = st.state(m.id)
                status = f"finished ({state.end_reason})" if state.finished else f"next {state.label}"
            except MatchError as e:
                status = f"unreadable: {e}"
            where = "  ".join(x for x in (m.table and f"table {m.table}", m.session and f"session {m.session}",
                                          m.league and f"league {m.league}",
                                          m.tournament and f"tournament {m.tournament}") if x)
            print(printable(f"{m.id}  {m.variant:<10}  {', '.join(m.players):<24}  {m.events:>4} events  "
                            f"{m.last_time}  {status}" + (f"  [{where}]" if where else "")))
    return 0


# --- the parser -------------------------------------------------------------------------------------


def _guard(func: Any) -> Any:
    """Database and file errors become MatchError (a ValueError), so the CLI reports them as bad input; a message
    that quotes a name with control characters or terminal escapes in it shows them escaped, on one line."""

    @functools.wraps(func)
    def run(args: argparse.Namespace) -> int:
        try:
            return int(func(args) or 0)
        except Exception as e:
            text = db_error_text(e)
            if text is None:
                if isinstance(e, ValueError) and not str(e).isprintable():
                    raise MatchError(printable(str(e))) from None
                raise
            raise MatchError(printable(text)) from None

    return run


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add the ``match`` command group to ``subparsers``; each action sets ``func`` (returns the exit code)."""
    db = argparse.ArgumentParser(add_help=False)
    db.add_argument("--db", default=None, help="match ledger: a SQLite file or a postgresql://USER@HOST/DB URL "
                    "(default $MAHJONG_ASSISTANT_DB or ~/.local/share/mahjong-assistant/matches.db)")
    by = argparse.ArgumentParser(add_help=False)
    by.add_argument("--by", default=None, help="who records (kept for the audit trail; default "
                    "$MAHJONG_ASSISTANT_USER or the login name)")
    which = argparse.ArgumentParser(add_help=False, parents=[db, by])
    which.add_argument("--match", default=None, help="match id or unique prefix (default: the latest written to)")
    result = argparse.ArgumentParser(add_help=False)
    result.add_argument("--for", dest="at_hand", metavar="HAND", default=None,
                        help="the hand this is the result of, as 'match show' names it (e.g. 'East 2, 1 honba'): "
                        "recorded once however many devices send it, and never applied to a later hand")

    group = subparsers.add_parser("match", help="keep the score of a whole match (events, standings, export)",
                                  description=__doc__.split("\n\n")[0])
    sub = group.add_subparsers(dest="match_command", metavar="ACTION")
    group.set_defaults(func=lambda a: (group.print_help(), 0)[1])

    p = sub.add_parser("new", parents=[db, by], help="start a match; prints its id")
    p.add_argument("--variant", "-v", required=True, choices=sorted(RULES), help="rule system")
    p.add_argument("--players", nargs="+", required=True, help="player names in initial seat order (first deals)")
    p.add_argument("--option", action="append", type=_option, metavar="KEY=VALUE",
                   help="table option, e.g. uma=20, length=east, hands=12, honba='{\"ron\":300,\"tsumo_each\":100}'")
    p.add_argument("--id", default=None, help="choose the match id (default: random)")
    p.add_argument("--table", default=None, help="the club table it is played at, e.g. 'Table 3'")
    p.add_argument("--session", default=None, help="the evening or tournament round, e.g. 2026-12-04 or 'Round 2'")
    p.add_argument("--league", default=None, help="the league it counts for")
    p.add_argument("--tournament", default=None, help="the tournament it counts for (one match per table and "
                   "session)")
    p.set_defaults(func=_guard(cmd_new))

    rec = sub.add_parser("record", help="record an event: win, draw, riichi, chombo, payout, end or a raw event")
    rsub = rec.add_subparsers(dest="record_command", metavar="EVENT")
    rec.set_defaults(func=lambda a: (rec.print_help(), 0)[1])

    p = rsub.add_parser("win", parents=[which, result],
                        help="a won hand (scored from --hand, or --pay entered by hand)")
    p.add_argument("winners", nargs="+", help="the winner (two for a double ron)")
    how = p.add_mutually_exclusive_group()
    how.add_argument("--tsumo", action="store_true", help="won by self-draw")
    how.add_argument("--from", dest="discarder", help="won on this player's discard")
    p.add_argument("--hand", action="append", help="winning hand in notation with the winning tile marked *, "
                   "one per winner")
    p.add_argument("--pay", action="append", metavar="[FROM:[TO:]]AMOUNT",
                   help="a payment for the hand's value (honba and riichi sticks are added by the match); "
                   "AMOUNT alone = from the discarder to the winner")
    p.add_argument("--dora", default="", help="dora indicators, e.g. 1s3z")
    p.add_argument("--ura", default="", help="ura-dora indicators")
    p.add_argument("--kita", type=int, default=0, help="Norths set aside by the winner (sanma)")
    p.add_argument("--fei-sunk", type=int, default=0, help="Fei the winner sank (3 Kaki)")
    p.add_argument("--flag", action="append", choices=HAND_FLAGS, help="a win condition, e.g. ippatsu, rinshan")
    p.add_argument("--liable", default=None, help="the liable player (pao/bao)")
    p.add_argument("--others", default=None, help="3 Kaki: JSON of what the losers show (or @FILE)")
    p.set_defaults(func=_guard(lambda a: _record(a, _build_win)))

    p = rsub.add_parser("draw", parents=[which, result], help="an exhaustive (or --abortive) draw")
    p.add_argument("--tenpai", nargs="*", default=[], help="players who were tenpai (sanma noten payments)")
    p.add_argument("--nagashi", nargs="*", default=[], help="players with nagashi mangan (sanma)")
    p.add_argument("--abortive", choices=["nine_terminals", "four_kans"], help="an abortive draw instead")
    p.set_defaults(func=_guard(lambda a: _record(a, _build_draw)))

    p = rsub.add_parser("riichi", parents=[which], help="a riichi stick placed (sanma)")
    p.add_argument("player")
    p.set_defaults(func=_guard(lambda a: _record(a, _build_riichi)))

    p = rsub.add_parser("chombo", aliases=["false-win"], parents=[which, result], help="a false win / chombo")
    p.add_argument("player")
    p.set_defaults(func=_guard(lambda a: _record(a, _build_chombo)))

    p = rsub.add_parser("payout", parents=[which], help="an instant payout (3 Kaki kongs, families)")
    p.add_argument("kind", help="concealed_kong, exposed_kong, promoted_kong, promoted_kong_robbed, "
                   "complete_family, bite_pair (or any word with --pay)")
    p.add_argument("player", help="who is paid")
    p.add_argument("--from", dest="discarder", default=None, help="the discarder of an exposed kong")
    p.add_argument("--pay", action="append", metavar="FROM[:TO]:AMOUNT", help="payments instead of the computed ones")
    p.set_defaults(func=_guard(lambda a: _record(a, _build_payout)))

    p = rsub.add_parser("end", parents=[which], help="end the match (open-ended matches)")
    p.add_argument("--reason", default="", help="why, e.g. 'closing time'")
    p.set_defaults(func=_guard(lambda a: _record(a, _build_end)))

    p = rsub.add_parser("event", parents=[which, result], help="a raw JSON event {\"type\": ..., \"payload\": {...}}")
    p.add_argument("json", help="the event as JSON, or @FILE (@- for stdin)")
    p.set_defaults(func=_guard(lambda a: _record(a, _build_event)))

    p = sub.add_parser("undo", parents=[which], help="void an event (default: the latest in force)")
    p.add_argument("--event", type=int, default=None, help="the event number to void")
    p.set_defaults(func=_guard(cmd_undo))

    p = sub.add_parser("edit", parents=[which], help="replace a past event; everything after is recomputed")
    p.add_argument("--event", type=int, required=True, help="the event number to replace")
    p.add_argument("replacement", help="the new event as JSON (type may be left out to keep it), or @FILE")
    p.set_defaults(func=_guard(cmd_edit))

    p = sub.add_parser("show", parents=[which], help="the score sheet and standings")
    p.add_argument("--json", action="store_true", help="the whole state as JSON")
    p.set_defaults(func=_guard(cmd_show))

    p = sub.add_parser("export", parents=[which], help="export the score sheet (csv) or the event log (json)")
    p.add_argument("--format", choices=["csv", "json", "tenhou6", "mjai"], default="csv",
                   help="csv: the score sheet; json: the event log (import reads it back); tenhou6: a tenhou.net/6 "
                        "JSON log for riichi review tools (sanma); mjai: the followed hands (--hands) as mjai "
                        "JSON lines (sanma)")
    p.add_argument("--hands", nargs="+", metavar="FILE", help="mjai, tenhou6: hand logs of the followed game (the "
                   "live page's /api/live/hand.json); tenhou6 fills each matching hand's draw and discard stream")
    p.add_argument("--out", default=None, help="output file (default: stdout)")
    p.set_defaults(func=_guard(cmd_export))

    p = sub.add_parser("import", parents=[db], help="import a JSON export as a match; prints its id")
    p.add_argument("file")
    p.add_argument("--new-id", action="store_true", help="give the match a new id instead of the exported one")
    p.set_defaults(func=_guard(cmd_import))

    p = sub.add_parser("list", parents=[db], help="list the matches in the database")
    p.add_argument("--league", default=None, help="only this league's matches")
    p.add_argument("--tournament", default=None, help="only this tournament's matches")
    p.set_defaults(func=_guard(cmd_list))
    return group
