"""A club's view over many matches: standings across tables and evenings, the tables playing now, the checks a
tournament relies on, and the audit trail of corrections.

Everything here is computed from the ledger's logs (the same fold as every match), so the standings are right the
moment a hand is recorded at any table and equal a replay of the log by construction.

Standings add up, per player and per rule system (points of different rule systems do not add): matches played
and finished, the final score (sanma: ``(points - return) / 1000 + uma + oka``, as a match's own standings;
others: the points), uma and oka where the rule system has them, placements, hands won and deal-ins (a win on the
player's discard). A match still being played counts with its standing so far (``provisional``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal

from .events import Edit, MatchError, Undo, Win
from .rules import RIICHI_STICK
from .standings import standings
from .state import MatchState, Record, effective_events
from .store import MatchInfo, Store


@dataclass
class PlayerTotal:
    """One player's line of the club standings within one rule system."""

    player: str
    variant: str
    matches: int = 0
    finished: int = 0
    score: Decimal = Decimal(0)
    points: int = 0
    uma: int = 0
    oka: Decimal = Decimal(0)
    places: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    hands_won: int = 0
    deal_ins: int = 0

    @property
    def average_place(self) -> float:
        n = sum(self.places)
        return round(sum((i + 1) * c for i, c in enumerate(self.places)) / n, 2) if n else 0.0

    def to_json(self) -> dict[str, object]:
        return {
            "player": self.player, "variant": self.variant, "matches": self.matches, "finished": self.finished,
            "score": float(self.score), "points": self.points, "uma": self.uma, "oka": float(self.oka),
            "places": list(self.places), "average_place": self.average_place, "hands_won": self.hands_won,
            "deal_ins": self.deal_ins,
        }


@dataclass(frozen=True)
class Table:
    """A match as the club sees it: where it is played, how it stands, its log."""

    info: MatchInfo
    state: MatchState
    records: tuple[Record, ...] = ()

    @property
    def name(self) -> str:
        return self.info.table or self.info.id

    def to_json(self) -> dict[str, object]:
        s = self.state
        return {
            "match": self.info.id, "table": self.info.table, "session": self.info.session,
            "league": self.info.league, "tournament": self.info.tournament, "variant": s.variant,
            "players": list(s.players), "points": list(s.points), "finished": s.finished,
            "status": f"finished ({s.end_reason})" if s.finished else f"playing {s.label}",
            "hands": len(s.history), "last_time": self.info.last_time,
        }


def _hand_counts(records: Sequence[Record]) -> tuple[dict[str, int], dict[str, int]]:
    won: dict[str, int] = {}
    dealt_in: dict[str, int] = {}
    for _, event in effective_events(records):
        if isinstance(event, Win):
            for w in event.winners:
                won[w.player] = won.get(w.player, 0) + 1
            if event.discarder is not None:
                dealt_in[event.discarder] = dealt_in.get(event.discarder, 0) + 1
    return won, dealt_in


def tables(store: Store, *, league: str | None = None, tournament: str | None = None,
           since: str | None = None) -> list[Table]:
    """Every selected match with its state, most recently active first (a match whose log cannot be read
    raises: the club must hear of it, not lose it from the standings silently)."""
    infos = store.matches(league=league, tournament=tournament, since=since)
    loaded = store.load_all(infos)
    return [Table(m, loaded[m.id][1], tuple(loaded[m.id][0])) for m in infos]


def club_standings(store: Store, *, league: str | None = None, tournament: str | None = None,
                   since: str | None = None, finished_only: bool = False) -> list[PlayerTotal]:
    """Per player and rule system totals over the selected matches; best score first within each rule system
    (rule systems in name order)."""
    return standings_of(tables(store, league=league, tournament=tournament, since=since), finished_only)


def standings_of(rows: Iterable[Table], finished_only: bool = False) -> list[PlayerTotal]:
    """:func:`club_standings` of tables already read."""
    totals: dict[tuple[str, str], PlayerTotal] = {}
    for row in rows:
        records, state = row.records, row.state
        if finished_only and not state.finished:
            continue
        won, dealt_in = _hand_counts(records)
        for st in standings(state):
            t = totals.setdefault((state.variant, st.player), PlayerTotal(st.player, state.variant))
            t.matches += 1
            t.finished += int(state.finished)
            t.score += Decimal(str(st.score))
            t.points += st.points
            t.uma += st.uma
            t.oka += Decimal(str(st.oka))
            t.places[min(st.rank, 4) - 1] += 1
            t.hands_won += won.get(st.player, 0)
            t.deal_ins += dealt_in.get(st.player, 0)
    out = list(totals.values())
    for t in out:
        t.score = t.score.quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)
    out.sort(key=lambda t: (t.variant, -t.score, t.average_place, t.player))
    return out


# --- the checks a tournament relies on -----------------------------------------------------------------


def match_problems(state: MatchState) -> list[str]:
    """What does not add up in one match: the points (with riichi sticks still on the table) must sum to the
    players' starting total."""
    start = int(state.options.get("start_points", 0) or 0)
    expected = start * state.n
    held = sum(state.points) + (state.sticks * RIICHI_STICK if state.rules.riichi else 0)
    if held != expected:
        return [f"points add up to {held:,}, not {state.n} x {start:,} = {expected:,}"]
    return []


@dataclass(frozen=True)
class Problem:
    match: str
    table: str | None
    session: str | None
    text: str

    def __str__(self) -> str:
        where = f"table {self.table}" if self.table else f"match {self.match}"
        if self.session:
            where += f", session {self.session}"
        return f"{where}: {self.text}"


def check(store: Store, *, league: str | None = None, tournament: str | None = None,
          since: str | None = None) -> list[Problem]:
    """Every problem found: a match whose totals do not add up; in a tournament, a match still open and a player
    seated at two tables in one session (a round is played at all tables at once; a club evening's session is
    not, and a player may move from table to table in it)."""
    return problems_of(tables(store, league=league, tournament=tournament, since=since), tournament is not None)


def problems_of(rows: Iterable[Table], tournament: bool = False) -> list[Problem]:
    """:func:`check` of tables already read (``tournament``: every match should be finished)."""
    out: list[Problem] = []
    seated: dict[tuple[str, str, str], str] = {}
    for t in rows:
        m = t.info
        for text in match_problems(t.state):
            out.append(Problem(m.id, m.table, m.session, text))
        if tournament and not t.state.finished:
            out.append(Problem(m.id, m.table, m.session, f"not finished (at {t.state.label})"))
        if m.session and m.tournament:
            for p in t.state.players:
                other = seated.setdefault((m.tournament, m.session, p), t.name)
                if other != t.name:
                    out.append(Problem(m.id, m.table, m.session, f"{p} also plays at table {other}"))
    return out


# --- audit trail -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Correction:
    match: str
    table: str | None
    seq: int
    time: str
    by: str
    text: str

    def to_json(self) -> dict[str, object]:
        return {"match": self.match, "table": self.table, "event": self.seq, "time": self.time, "by": self.by,
                "what": self.text}


def corrections(records: Iterable[Record]) -> list[tuple[Record, str]]:
    """The undo and edit events of one log, each with what it corrected in words."""
    records = list(records)
    by_seq = {r.seq: r for r in records}
    out = []
    for r in records:
        if isinstance(r.event, Undo):
            target = by_seq.get(r.event.event)
            what = target.event.type if target else "?"
            who = f" (recorded by {target.by})" if target and target.by else ""
            out.append((r, f"voided event {r.event.event} ({what}){who}"))
        elif isinstance(r.event, Edit):
            target = by_seq.get(r.event.event)
            what = target.event.type if target else "?"
            out.append((r, f"replaced event {r.event.event} ({what}) by a {r.event.replacement.type}"))
    return out


def audit(store: Store, *, match: str | None = None, league: str | None = None,
          tournament: str | None = None, since: str | None = None) -> list[Correction]:
    """Who corrected what, oldest first."""
    infos = store.matches(league=league, tournament=tournament, since=since)
    if match is not None:
        mid = store.resolve(match)
        infos = [i for i in infos if i.id == mid]
        if not infos:
            raise MatchError(f"no match {match!r} in {store.path}")
    out = [Correction(m.id, m.table, r.seq, r.time, r.by or "?", text)
           for m in infos for r, text in corrections(store.records(m.id))]
    out.sort(key=lambda c: (c.time, c.match, c.seq))
    return out


__all__ = ["Correction", "PlayerTotal", "Problem", "Table", "audit", "check", "club_standings", "corrections",
           "match_problems", "problems_of", "standings_of", "tables"]
