"""Export and import: the score sheet as CSV (hand by hand), the whole event log as JSON, the state as
JSON (``match show --json``) and the readable score sheet of the CLI.

The JSON export is the match itself: importing it into another database (:func:`records_from_json`
then :meth:`~assistant.match.store.Store.write_log`) rebuilds an identical match.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Mapping, Sequence
from typing import Any

from .events import MatchError, event_from_parts
from .rules import WIND_NAMES
from .standings import standings
from .state import HandRecord, MatchState, Record, Transfer

FORMAT = "mahjong-assistant/match"
VERSION = 1


# --- JSON: the event log ------------------------------------------------------------------------------


CLUB_FIELDS = ("table", "session", "league", "tournament")


def log_to_json(match_id: str, records: Sequence[Record], club: Mapping[str, str | None] | None = None
                ) -> dict[str, Any]:
    """The full event log with its format version; ``club``: where the match was played and what it counts for
    (table, session, league, tournament; those set are written). Each event names who recorded it (``by``)
    when that is known."""
    first = records[0].event
    payload = first.payload()
    match: dict[str, Any] = {
        "id": match_id,
        "variant": payload.get("variant"),
        "players": payload.get("players"),
        "created": records[0].time,
    }
    for k in CLUB_FIELDS:
        if club and club.get(k):
            match[k] = club[k]
    return {
        "format": FORMAT,
        "version": VERSION,
        "match": match,
        "events": [
            {"seq": r.seq, "type": r.event.type, "payload": r.event.payload(), "time": r.time,
             **({"by": r.by} if r.by else {})} for r in records
        ],
    }


def club_from_json(data: Mapping[str, Any]) -> dict[str, str | None]:
    """The table, session, league and tournament an export names (None where it names none)."""
    match = data.get("match") if isinstance(data, Mapping) and isinstance(data.get("match"), Mapping) else {}
    out: dict[str, str | None] = {}
    for k in CLUB_FIELDS:
        v = match.get(k)
        if v is not None and not isinstance(v, str):
            raise MatchError(f"the export's match {k!r} must be a string")
        out[k] = v
    return out


def records_from_json(data: Any) -> tuple[str | None, list[Record]]:
    """Read an exported log back: ``(match id, records)``. MatchError names what is wrong."""
    if not isinstance(data, Mapping):
        raise MatchError("a match export is a JSON object")
    if data.get("format") != FORMAT:
        raise MatchError(f"not a match export: 'format' must be {FORMAT!r}, got {data.get('format')!r}")
    if data.get("version") != VERSION:
        raise MatchError(
            f"match export version {data.get('version')!r} is not supported (this program reads {VERSION})"
        )
    events = data.get("events")
    if not isinstance(events, list) or not events:
        raise MatchError("a match export needs a non-empty 'events' list")
    records = []
    for i, e in enumerate(events, 1):
        if not isinstance(e, Mapping) or not {"seq", "type", "payload"} <= set(e):
            raise MatchError(f"event #{i} of the export needs 'seq', 'type' and 'payload'")
        seq = e["seq"]
        if isinstance(seq, bool) or not isinstance(seq, int) or not 1 <= seq <= 10_000_000:
            raise MatchError(f"event #{i} of the export: 'seq' must be a whole number from 1, got {_shown(seq)}")
        if not isinstance(e["type"], str):
            raise MatchError(f"event {seq} of the export: 'type' must be an event type name, got {_shown(e['type'])}")
        try:
            event = event_from_parts(e["type"], e["payload"])
        except ValueError as err:
            raise MatchError(f"event {seq} of the export: {err}") from None
        by = e.get("by", "")
        if not isinstance(by, str) or len(by) > 64 or not by.isprintable():
            raise MatchError(f"event {seq} of the export: 'by' must be a name of at most 64 printable characters")
        time = e.get("time", "")
        if not isinstance(time, str):
            raise MatchError(f"event {seq} of the export: 'time' must be a date and time like "
                             f"2026-12-04T19:30:00+00:00, got {_shown(time)}")
        records.append(Record(seq, event, time, by))
    match = data.get("match") or {}
    if not isinstance(match, Mapping):
        raise MatchError(f"the export's 'match' must be a JSON object, got {_shown(match)}")
    match_id = match.get("id")
    if match_id is not None and not isinstance(match_id, str):
        raise MatchError(f"the export's match 'id' must be a string, got {_shown(match_id)}")
    return (match_id or None), records


def _shown(value: Any) -> str:
    """A value for a message: JSON, at most 40 characters."""
    import json

    text = json.dumps(value, default=str) if not isinstance(value, int) or abs(value) < 10**30 else "a huge number"
    return text if len(text) <= 40 else text[:39] + "…"


# --- JSON: the state -----------------------------------------------------------------------------------


def _transfer_json(state: MatchState, t: Transfer) -> dict[str, Any]:
    name = lambda p: None if p is None else state.players[p]  # noqa: E731
    return {"from": name(t.payer), "to": name(t.receiver), "amount": t.amount, "reason": t.reason}


def hand_json(state: MatchState, h: HandRecord) -> dict[str, Any]:
    """One score-sheet row as JSON."""
    return {
        "number": h.number,
        "label": h.label,
        "dealer": state.players[h.dealer],
        "seats": {state.players[p]: WIND_NAMES[s] for p, s in enumerate(h.seats)},
        "kind": h.kind,
        "result": h.summary,
        "details": list(h.details),
        "events": list(h.events),
        "payments": [_transfer_json(state, t) for t in h.transfers],
        "changes": dict(zip(state.players, h.deltas, strict=True)),
        "totals": dict(zip(state.players, h.totals, strict=True)),
        "sticks": h.sticks,
    }


def state_json(state: MatchState, match_id: str | None = None) -> dict[str, Any]:
    """The whole state as JSON: where the match stands, the history and the standings."""
    return {
        "match": match_id,
        "variant": state.variant,
        "players": list(state.players),
        "options": dict(state.overrides),
        "points": dict(zip(state.players, state.points, strict=True)),
        "hand": state.label,
        "dealer": state.players[state.dealer],
        "round_wind": state.round_wind,
        "seats": {p: state.seat_wind(p) for p in state.players},
        "honba": state.honba,
        "sticks": state.sticks,
        "riichi": [state.players[p] for p in state.riichi],
        "in_hand_payments": [_transfer_json(state, t) for t in state.pending],
        "finished": state.finished,
        "end_reason": state.end_reason,
        "hands": [hand_json(state, h) for h in state.history],
        "standings": [
            {"rank": s.rank, "player": s.player, "points": s.points, "score": s.score, "uma": s.uma, "oka": s.oka}
            for s in standings(state)
        ],
    }


# --- CSV -----------------------------------------------------------------------------------------------

#: a cell a spreadsheet would read as a formula (or a DDE command) starts with one of these
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?\d+(\.\d+)?")


def csv_cell(value: Any) -> Any:
    """A CSV cell a spreadsheet shows as text: a text beginning with = + - @, a tab or a carriage return gets a
    leading ``'`` (the OWASP advice), so ``=HYPERLINK(...)`` in a player's name stays a name; numbers (and texts
    that are plain numbers, such as ``-12.0``) are written as they are.

    >>> [csv_cell(v) for v in ("=1+1", "@SUM(A1)", "-12.0", -3900, "Ann", "+ 1")]
    ["'=1+1", "'@SUM(A1)", '-12.0', -3900, 'Ann', "'+ 1"]
    """
    if isinstance(value, str) and value.startswith(FORMULA_START) and not _NUMBER.fullmatch(value):
        return "'" + value
    return value


def csv_row(values: Sequence[Any]) -> list[Any]:
    """:func:`csv_cell` of each value of a row."""
    return [csv_cell(v) for v in values]


# --- text for a terminal --------------------------------------------------------------------------------


def printable(text: Any) -> str:
    """``text`` safe to print on a terminal: control characters and other unprintable ones (escape sequences,
    bidirectional overrides) are shown as ``\\x1b``, ``\\u202e``, so a player's or recorder's name cannot move
    the cursor, recolour or retitle the terminal, or hide what follows it.

    >>> printable("Ann\\x1b[2J\\u202eB")
    'Ann\\\\x1b[2J\\\\u202eB'
    """
    text = str(text)
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)


def to_csv(state: MatchState) -> str:
    """The score sheet hand by hand: label, dealer, result, each player's change and running total,
    the sticks left on the table. A first row gives the starting points; a last row, when a hand is in
    progress, the payments made in it so far."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    players = list(state.players)
    w.writerow(csv_row(["hand", "label", "dealer", "result", *[f"{p} change" for p in players],
                        *[f"{p} total" for p in players], "sticks", "details"]))
    start = state.options["start_points"]
    w.writerow([0, "start", "", "", *[0] * state.n, *[start] * state.n, 0, ""])
    for h in state.history:
        w.writerow(csv_row([h.number, h.label, state.players[h.dealer], h.summary, *h.deltas, *h.totals, h.sticks,
                            "; ".join(h.details)]))
    if state.pending:
        deltas = [0] * state.n
        for t in state.pending:
            if t.payer is not None:
                deltas[t.payer] -= t.amount
            if t.receiver is not None:
                deltas[t.receiver] += t.amount
        w.writerow(csv_row(["", state.label, state.players[state.dealer], "in progress", *deltas, *state.points,
                            state.sticks, ""]))
    return out.getvalue()


# --- the readable score sheet -----------------------------------------------------------------------


def score_sheet(state: MatchState, match_id: str | None = None) -> str:
    """The score sheet for people: header, one line per hand (each player's total and change), the
    standings."""
    lines = []
    title = f"Match {match_id}" if match_id else "Match"
    lines.append(f"{title} — {state.variant}: {', '.join(state.players)}")
    if state.overrides:
        lines.append("Options: " + ", ".join(f"{k}={v}" for k, v in sorted(state.overrides.items())))
    if state.finished:
        lines.append(f"Finished: {state.end_reason}")
    else:
        seats = ", ".join(f"{p} {state.seat_wind(p)}" for p in state.players)
        extra = f"; riichi sticks on the table: {state.sticks}" if state.rules.riichi else ""
        lines.append(f"Next hand: {state.label} — dealer {state.players[state.dealer]} ({seats}){extra}")
    cells = {h.number: [f"{t:,} ({d:+,})" for t, d in zip(h.totals, h.deltas, strict=True)] for h in state.history}
    width = max([len(p) + 2 for p in state.players] + [len(c) + 2 for row in cells.values() for c in row] + [10])
    label_w = max([len("start")] + [len(h.label) for h in state.history]) + 2
    result_w = max([len("result")] + [len(h.summary) for h in state.history]) + 2
    head = f"{'#':>3}  {'hand':<{label_w}}{'result':<{result_w}}" + "".join(f"{p:>{width}}" for p in state.players)
    lines.append("")
    lines.append(head)
    start = state.options["start_points"]
    lines.append(f"{0:>3}  {'start':<{label_w}}{'':<{result_w}}" + "".join(f"{start:>{width},}" for _ in state.players))
    for h in state.history:
        row = "".join(f"{c:>{width}}" for c in cells[h.number])
        lines.append(f"{h.number:>3}  {h.label:<{label_w}}{h.summary:<{result_w}}{row}")
    if state.pending:
        lines.append(f"{'':>3}  {state.label:<{label_w}}{'in progress':<{result_w}}"
                     + "".join(f"{t:>{width},}" for t in state.points))
    lines.append("")
    lines.append("Standings" + (" (final)" if state.finished else " (so far)") + ":")
    riichi = state.rules.riichi
    table = standings(state)
    name_w = max(len(p) for p in state.players) + 2
    for s in table:
        score = f"{s.score:+.1f}" if riichi and isinstance(s.score, float) else f"{s.score:+,}"
        lines.append(f"  {s.rank}. {s.player:<{name_w}}{s.points:>10,}" + (f"   {score}" if riichi else ""))
    if riichi and state.finished and state.sticks:
        where = f"to {table[0].player}" if state.options["leftover_sticks"] == "first" else "lost"
        lines.append(f"  (leftover riichi sticks: {state.sticks} × 1,000 {where})")
    return "\n".join(lines)


__all__ = ["FORMAT", "FORMULA_START", "VERSION", "csv_cell", "csv_row", "hand_json", "log_to_json", "printable",
           "records_from_json", "score_sheet", "state_json", "to_csv"]
