"""``mahjong-assistant db …`` and ``club …``: the ledger's schema, and a club's view over many tables.

Examples::

    db init --db postgresql://club@localhost/mahjong     # create the ledger on a server (versioned schema)
    db migrate                                         # bring an older ledger up to this version
    db status
    club tables                                        # the tables playing now, and how each stands
    club standings --league "Winter 2026" --csv
    club standings --tournament "Open 2026" --since 2026-12-01 --json
    club check --tournament "Open 2026"                # every match adds up, nobody at two tables at once
    club audit                                         # who corrected what
"""

from __future__ import annotations

import argparse
import csv
import io
import json
from pathlib import Path

from .match.db import SCHEMA_VERSION, check_target, default_target, is_url, migrate, open_for_admin
from .match.events import MatchError
from .match.export import csv_row, printable
from .match_cli import _guard

EXIT_PROBLEMS = 1


def _date(text: str) -> str:
    """An ISO date (2026-12-01) or date and time; events are kept in UTC ISO 8601, so text order is time order."""
    import datetime as dt

    try:
        (dt.datetime if "T" in text else dt.date).fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--since takes a date like 2026-12-01, got {text!r}") from None
    return text


# --- db ------------------------------------------------------------------------------------------------------


def _migrate(args: argparse.Namespace, create: bool) -> int:
    backend = open_for_admin(args.db)
    try:
        before = backend.version()
        if before == 0 and not create:
            raise MatchError(f"{backend.where} has no match ledger yet: run 'mahjong-assistant db init'")
        steps = migrate(backend)
    finally:
        backend.close()
    if before == 0:
        print(f"created the match ledger at {backend.where} (schema version {SCHEMA_VERSION})")
    elif steps:
        print(f"migrated {backend.where} from schema version {before} to {SCHEMA_VERSION}:")
        for s in steps:
            print(f"  {s}")
    else:
        print(f"{backend.where} is already at schema version {SCHEMA_VERSION}")
    return 0


def cmd_db_init(args: argparse.Namespace) -> int:
    return _migrate(args, create=True)


def cmd_db_migrate(args: argparse.Namespace) -> int:
    return _migrate(args, create=False)


def _missing_file(args: argparse.Namespace) -> Path | None:
    """The SQLite file named (or the default one) when it does not exist yet; None for a URL or an existing file."""
    target = args.db or default_target()
    check_target(target)
    if is_url(target):
        return None
    path = Path(target).expanduser()
    return None if path.exists() else path


def cmd_db_status(args: argparse.Namespace) -> int:
    missing = _missing_file(args)
    if missing is not None:  # a status never creates the file
        print(f"no ledger at {missing} yet (run 'db init', or start a match with 'match new')")
        return 0
    backend = open_for_admin(args.db)
    try:
        version = backend.version()
        counts = (backend.one("SELECT COUNT(*) FROM matches"), backend.one("SELECT COUNT(*) FROM events")) \
            if version else ((0,), (0,))
    finally:
        backend.close()
    state = ("no ledger yet (run 'db init')" if version == 0 else
             "up to date" if version == SCHEMA_VERSION else
             f"behind: run 'db migrate' (this program uses {SCHEMA_VERSION})" if version < SCHEMA_VERSION else
             f"newer than this program ({SCHEMA_VERSION})")
    print(f"{backend.dialect} ledger at {backend.where}: schema version {version}, {state}; "
          f"{counts[0][0] if counts[0] else 0} matches, {counts[1][0] if counts[1] else 0} events")
    return 0


# --- club ----------------------------------------------------------------------------------------------------


def _open(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    from .match.store import Store

    return Store(args.db, readonly=True)


def _no_ledger(args: argparse.Namespace) -> bool:
    """No ledger file yet: say so (as ``match list`` does) and create nothing."""
    missing = _missing_file(args)
    if missing is not None:
        print(f"no matches in {missing}")
        return True
    return False


def _fmt(x: float) -> str:
    return f"{x:+.1f}"


def _players(variant: str) -> int:
    """Seats at a table of ``variant`` (the places a standing counts); three for a rule system not known."""
    from .variants import get_variant

    try:
        return get_variant(variant).players
    except ValueError:
        return 3


def cmd_standings(args: argparse.Namespace) -> int:
    if _no_ledger(args):
        return 0
    from .match.club import club_standings

    with _open(args) as st:
        lines = club_standings(st, league=args.league, tournament=args.tournament, since=args.since,
                               finished_only=args.finished)
    if args.json:
        print(json.dumps({"league": args.league, "tournament": args.tournament, "since": args.since,
                          "standings": [t.to_json() for t in lines]}, indent=2))
        return 0
    if args.csv:
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["variant", "rank", "player", "matches", "finished", "score", "points", "uma", "oka",
                    "first", "second", "third", "fourth", "average_place", "hands_won", "deal_ins"])
        rank = 0
        last = None
        for t in lines:
            rank = rank + 1 if t.variant == last else 1
            last = t.variant
            w.writerow(csv_row([t.variant, rank, t.player, t.matches, t.finished, f"{t.score:.1f}", t.points, t.uma,
                                f"{t.oka:.1f}", *t.places, f"{t.average_place:.2f}", t.hands_won, t.deal_ins]))
        print(buf.getvalue(), end="")
        return 0
    if not lines:
        print(printable("no matches" + (f" in league {args.league}" if args.league else "")
                        + (f" in tournament {args.tournament}" if args.tournament else "")
                        + (f" since {args.since}" if args.since else "")))
        return 0
    last = None
    rank = 0
    for t in lines:
        if t.variant != last:
            if last is not None:
                print()
            last, rank = t.variant, 0
            print(t.variant)
            print(f"  {'#':>2}  {'player':<16} {'matches':>7} {'score':>8} {'places':>11} {'avg':>5} "
                  f"{'won':>4} {'dealt in':>8}")
        rank += 1
        places = "/".join(str(c) for c in t.places[:_players(t.variant)])
        open_ = f" ({t.matches - t.finished} open)" if t.matches > t.finished else ""
        print(f"  {rank:>2}  {printable(t.player):<16} {t.matches:>7} {_fmt(float(t.score)):>8} {places:>11} "
              f"{t.average_place:>5.2f} {t.hands_won:>4} {t.deal_ins:>8}{open_}")
    return 0


def cmd_tables(args: argparse.Namespace) -> int:
    if _no_ledger(args):
        return 0
    from .match.club import tables

    with _open(args) as st:
        rows = tables(st, league=args.league, tournament=args.tournament, since=args.since)
    if not args.all:
        rows = [t for t in rows if not t.state.finished]
    if args.json:
        print(json.dumps([t.to_json() for t in rows], indent=2))
        return 0
    if not rows:
        print("no tables playing" if not args.all else "no matches")
        return 0
    for t in rows:
        s = t.state
        status = f"finished ({s.end_reason})" if s.finished else f"{s.label}"
        points = " · ".join(f"{p} {v:,}" for p, v in zip(s.players, s.points, strict=True))
        session = f" [{t.info.session}]" if t.info.session else ""
        print(printable(f"{t.name:<12}{session}  {s.variant:<10}  {status:<24}  {points}"))
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    if _no_ledger(args):
        return 0
    from .match.club import check, tables

    with _open(args) as st:
        n = len(tables(st, league=args.league, tournament=args.tournament, since=args.since))
        problems = check(st, league=args.league, tournament=args.tournament, since=args.since)
    for p in problems:
        print(printable(p))
    print(f"{n} match{'es' if n != 1 else ''} checked: "
          + ("every one adds up" if not problems else f"{len(problems)} problem(s)"))
    return EXIT_PROBLEMS if problems else 0


def cmd_audit(args: argparse.Namespace) -> int:
    if _no_ledger(args):
        return 0
    from .match.club import audit

    with _open(args) as st:
        rows = audit(st, match=args.match, league=args.league, tournament=args.tournament, since=args.since)
    if args.json:
        print(json.dumps([c.to_json() for c in rows], indent=2))
        return 0
    if not rows:
        print("no corrections")
    for c in rows:
        print(printable(f"{c.time}  {c.table or c.match:<12}  event {c.seq:<4} by {c.by}: {c.text}"))
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``db`` and ``club`` command groups."""
    db = argparse.ArgumentParser(add_help=False)
    db.add_argument("--db", default=None, help="match ledger: a SQLite file or a postgresql://USER@HOST/DB URL "
                    "(default $MAHJONG_ASSISTANT_DB or ~/.local/share/mahjong-assistant/matches.db)")
    sel = argparse.ArgumentParser(add_help=False, parents=[db])
    one = sel.add_mutually_exclusive_group()
    one.add_argument("--league", default=None, help="only this league's matches")
    one.add_argument("--tournament", default=None, help="only this tournament's matches")
    sel.add_argument("--since", type=_date, default=None, help="only matches with events on or after this date")

    g = subparsers.add_parser("db", help="create or migrate the match ledger (SQLite or PostgreSQL)",
                              description=__doc__.split("\n\n")[0])
    sub = g.add_subparsers(dest="db_command", metavar="ACTION")
    g.set_defaults(func=lambda a: (g.print_help(), 0)[1])
    p = sub.add_parser("init", parents=[db], help="create the ledger's tables (or bring them up to date)")
    p.set_defaults(func=_guard(cmd_db_init))
    p = sub.add_parser("migrate", parents=[db], help="migrate an existing ledger to this version's schema")
    p.set_defaults(func=_guard(cmd_db_migrate))
    p = sub.add_parser("status", parents=[db], help="the ledger's schema version and size")
    p.set_defaults(func=_guard(cmd_db_status))

    g = subparsers.add_parser("club", help="a club's tables, standings across matches, checks and audit trail",
                              description=__doc__.split("\n\n")[0])
    sub = g.add_subparsers(dest="club_command", metavar="ACTION")
    g.set_defaults(func=lambda a: (g.print_help(), 0)[1])
    p = sub.add_parser("standings", parents=[sel], help="per player totals across matches and tables")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true")
    fmt.add_argument("--csv", action="store_true")
    p.add_argument("--finished", action="store_true", help="count finished matches only")
    p.set_defaults(func=_guard(cmd_standings))
    p = sub.add_parser("tables", parents=[sel], help="the tables playing now and how each stands")
    p.add_argument("--all", action="store_true", help="finished matches too")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_guard(cmd_tables))
    p = sub.add_parser("check", parents=[sel], help="every match adds up; nobody plays at two tables in a session "
                       "(exit 1 when something does not)")
    p.set_defaults(func=_guard(cmd_check))
    p = sub.add_parser("audit", parents=[sel], help="who corrected what (undo and edit events)")
    p.add_argument("--match", default=None, help="one match (id or unique prefix)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_guard(cmd_audit))


__all__ = ["register"]
