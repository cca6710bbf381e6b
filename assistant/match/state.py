"""The match state, rebuilt by folding the event log.

:class:`MatchState` is the one state type everything reads (score sheet, standings, export, the
CLI). It is immutable: :func:`apply` returns a new state for one event and raises
:class:`~assistant.match.events.MatchError` — leaving the old state as it was — when the event is
illegal now. :func:`fold` rebuilds a state from a whole log, resolving the corrections (``undo``,
``edit``) first; :func:`next_state` is the check every new event passes before it is written.

>>> from assistant.match.events import MatchCreated, Riichi, Win, WinClaim, PaymentEntry
>>> log = MatchLog()
>>> _ = log.append(MatchCreated("sanma", ("A", "B", "C")))
>>> _ = log.append(Riichi("B"))
>>> _ = log.append(Win((WinClaim("B", payments=(PaymentEntry("C", "B", 3900),)),), discarder="C"))
>>> s = log.state
>>> s.points, s.sticks, s.label, s.history[0].summary
((35000, 38900, 31100), 0, 'East 2', "B wins on C's discard (+4,900)")
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from types import MappingProxyType
from typing import Any

from ..hand import parse_hand, parse_meld
from ..scoring.base import PlayerShown, WinContext
from ..tiles import parse_tiles
from ..variants import get_variant
from .events import (
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
    amount_value,
    options_dict,
)
from .rules import (
    RIICHI_STICK,
    WIND_NAMES,
    MatchRules,
    Outcome,
    Position,
    advance,
    end_reason,
    false_win_payments,
    hand_label,
    honba_payments,
    mangan_tsumo,
    match_options,
    nearest_first,
    noten_payments,
    player_at,
    round_wind_kind,
    rules_for,
    seat_of,
    several_winners_allowed,
)


@dataclass(frozen=True)
class Transfer:
    """``payer`` pays ``amount`` to ``receiver`` (player numbers). None is the table's stick pool (a
    riichi deposit, sticks collected by a winner) or, for a fixed chombo, nobody."""

    payer: int | None
    receiver: int | None
    amount: int | float  # a decimal only where a rule pays half units (Hong Kong ``half`` model)
    reason: str = "win"


@dataclass(frozen=True)
class HandRecord:
    """One row of the score sheet: a finished hand (or the unfinished last one at a ``match_end``).

    ``kind``: ``win``, ``draw``, ``abortive_draw``, ``false_win`` or ``unfinished``. ``seats`` gives
    each player's seat in that hand; ``events`` the sequence numbers of the events that made it
    (in-hand riichi and payouts included); ``deltas`` each player's change, ``totals`` the running
    totals after it, ``sticks`` the riichi sticks left on the table.
    """

    number: int
    label: str
    dealer: int
    round_index: int
    honba: int
    seats: tuple[int, ...]
    kind: str
    summary: str
    events: tuple[int, ...]
    transfers: tuple[Transfer, ...]
    deltas: tuple[int | float, ...]
    totals: tuple[int | float, ...]
    sticks: int
    details: tuple[str, ...] = ()


@dataclass(frozen=True)
class MatchState:
    """Everything known about a match after its events: players (fixed names, in initial seat order),
    points, where the deal stands (:class:`~assistant.match.rules.Position`), riichi sticks on the
    table, who declared riichi / has a dead hand in the current hand, payments made inside the current
    hand, the hand-by-hand history and whether the match is finished."""

    variant: str
    players: tuple[str, ...]
    options: Mapping[str, Any]
    points: tuple[int | float, ...]
    position: Position = Position()
    sticks: int = 0
    riichi: tuple[int, ...] = ()
    dead: tuple[int, ...] = ()
    pending: tuple[Transfer, ...] = ()
    pending_events: tuple[int, ...] = ()
    history: tuple[HandRecord, ...] = ()
    finished: bool = False
    end_reason: str = ""
    last_seq: int = 0
    overrides: Mapping[str, Any] = field(default_factory=dict)

    # --- queries (none of them changes the state) --------------------------------------------------
    @property
    def rules(self) -> MatchRules:
        return rules_for(self.variant)

    @property
    def n(self) -> int:
        return len(self.players)

    @property
    def dealer(self) -> int:
        return self.position.dealer

    @property
    def honba(self) -> int:
        return self.position.honba

    @property
    def round_wind(self) -> str:
        """The round wind's name (East for korean-3p and 3 Kaki, which do not advance it)."""
        return WIND_NAMES[self.position.round_index % 4] if self.rules.rounds == "winds" else "East"

    @property
    def label(self) -> str:
        """The current hand's name, e.g. ``South 1, 2 honba``."""
        return hand_label(self.rules, self.position)

    @property
    def hand_number(self) -> int:
        """1-based number of the current hand (rows of the score sheet so far + 1)."""
        return len(self.history) + 1

    @property
    def seats(self) -> tuple[int, ...]:
        """Each player's seat in the current hand (0 = East/dealer)."""
        return tuple(seat_of(p, self.dealer, self.n) for p in range(self.n))

    def index(self, name: str) -> int:
        """The player number of ``name`` (ValueError naming the players when unknown)."""
        try:
            return self.players.index(name)
        except ValueError:
            raise MatchError(f"unknown player {name!r}; the players are {', '.join(self.players)}") from None

    def seat_of(self, name: str) -> int:
        return seat_of(self.index(name), self.dealer, self.n)

    def seat_wind(self, name: str) -> str:
        """``East``/``South``/``West``/``North``: the player's seat wind this hand."""
        return WIND_NAMES[self.seat_of(name)]

    def player_at(self, seat: int) -> str:
        return self.players[player_at(seat, self.dealer, self.n)]

    def variant_options(self) -> dict[str, Any]:
        """The table options this match changed that the rule system's scorer reads (the match-only
        ones left out); the scorer takes the rest from the rule system's defaults."""
        known = get_variant(self.variant).options
        return {k: v for k, v in self.overrides.items() if k in known}


# --- helpers ----------------------------------------------------------------------------------------


def _net(transfers: Iterable[Transfer], n: int) -> tuple[int | float, ...]:
    out = [0] * n
    for t in transfers:
        if t.payer is not None:
            out[t.payer] -= t.amount
        if t.receiver is not None:
            out[t.receiver] += t.amount
    return tuple(out)


def _add(points: Sequence[int | float], transfers: Iterable[Transfer]) -> tuple[int | float, ...]:
    return tuple(p + d for p, d in zip(points, _net(transfers, len(points)), strict=True))


def _fmt(amount: int | float) -> str:
    return f"{amount:+,}"


def _entries(state: MatchState, entries: Iterable[PaymentEntry]) -> list[Transfer]:
    return [Transfer(state.index(e.payer), state.index(e.receiver), e.amount, e.reason) for e in entries]


def _open(state: MatchState) -> None:
    if state.finished:
        raise MatchError(
            f"the match is over ({state.end_reason}); undo or edit an earlier event to reopen it"
        )


def _close_hand(state: MatchState, seq: int, kind: str, summary: str, transfers: Sequence[Transfer],
                outcome: Outcome | None, sticks: int, details: Sequence[str] = ()) -> MatchState:
    """Finish the current hand: book its payments, write its row, move the deal, check the end."""
    pos = state.position
    points = _add(state.points, transfers)
    booked = state.pending + tuple(transfers)
    record = HandRecord(
        number=len(state.history) + 1,
        label=state.label,
        dealer=pos.dealer,
        round_index=pos.round_index,
        honba=pos.honba,
        seats=state.seats,
        kind=kind,
        summary=summary,
        events=state.pending_events + (seq,),
        transfers=booked,
        deltas=_net(booked, state.n),
        totals=points,
        sticks=sticks,
        details=tuple(details),
    )
    if outcome is None:  # the match ends with a hand in progress
        new_pos, reason = pos, None
    else:
        new_pos = advance(state.rules, state.options, pos, outcome)
        reason = end_reason(state.rules, state.options, pos, new_pos, outcome, points)
    return replace(
        state, points=points, position=new_pos, sticks=sticks, riichi=(), dead=(), pending=(),
        pending_events=(), history=state.history + (record,), finished=reason is not None,
        end_reason=reason or "", last_seq=seq,
    )


def _in_hand(state: MatchState, seq: int, transfers: Sequence[Transfer], **changes: Any) -> MatchState:
    """Book payments made inside the current hand (riichi sticks, instant payouts, dead-hand penalties)."""
    return replace(
        state, points=_add(state.points, transfers), pending=state.pending + tuple(transfers),
        pending_events=state.pending_events + (seq,), last_seq=seq, **changes,
    )


# --- one event --------------------------------------------------------------------------------------


def start(event: MatchCreated, seq: int = 1) -> MatchState:
    """The state right after ``match_created``."""
    try:
        variant = get_variant(event.variant)
        overrides = options_dict(event)
        options = match_options(variant.name, overrides)
    except MatchError:
        raise
    except ValueError as e:
        raise MatchError(str(e)) from None
    if len(event.players) != variant.players:
        raise MatchError(
            f"{variant.name} is played by {variant.players} players, not {len(event.players)} "
            f"({', '.join(event.players)})"
        )
    return MatchState(
        variant=variant.name,
        players=tuple(event.players),
        options=MappingProxyType(options),
        points=(options["start_points"],) * variant.players,
        last_seq=seq,
        overrides=MappingProxyType(overrides),
    )


def apply(state: MatchState | None, event: Event, seq: int) -> MatchState:
    """The state after one (non-correction) event; MatchError, and no change, when it is illegal now."""
    if isinstance(event, MatchCreated):
        if state is not None:
            raise MatchError("the match has already been created; match_created can only be the first event")
        return start(event, seq)
    if state is None:
        raise MatchError("a match log starts with a match_created event")
    if event.is_correction:
        raise MatchError(f"{event.type} is a correction; it is resolved before folding")
    _open(state)
    try:
        if isinstance(event, Riichi):
            return _riichi(state, event, seq)
        if isinstance(event, Win):
            return _win(state, event, seq)
        if isinstance(event, Draw):
            return _draw(state, event, seq)
        if isinstance(event, AbortiveDraw):
            return _abortive(state, event, seq)
        if isinstance(event, Payout):
            return _payout(state, event, seq)
        if isinstance(event, FalseWin):
            return _false_win(state, event, seq)
        if isinstance(event, MatchEnd):
            return _match_end(state, event, seq)
    except MatchError:
        raise
    except ValueError as e:  # TileError and the scorers' checks
        raise MatchError(str(e)) from None
    raise MatchError(f"unknown event {event!r}")


def _riichi(state: MatchState, ev: Riichi, seq: int) -> MatchState:
    if not state.rules.riichi:
        raise MatchError(f"{state.variant} has no riichi")
    p = state.index(ev.player)
    if p in state.riichi:
        raise MatchError(f"{ev.player} has already declared riichi this hand")
    need = state.options["riichi_min_points"]
    if need and state.points[p] < need:
        raise MatchError(f"{ev.player} has {state.points[p]:,} points; riichi needs at least {need:,}")
    stick = Transfer(p, None, RIICHI_STICK, "riichi stick")
    return _in_hand(state, seq, [stick], sticks=state.sticks + 1, riichi=state.riichi + (p,))


def _win(state: MatchState, ev: Win, seq: int) -> MatchState:
    rules, n = state.rules, state.n
    claims = {state.index(c.player): c for c in ev.winners}
    disc = None if ev.discarder is None else state.index(ev.discarder)
    if disc is not None and disc in claims:
        raise MatchError(f"{ev.discarder} cannot win on their own discard")
    if len(claims) > 1:
        if disc is None:
            raise MatchError("a self-draw has one winner; several winners need a discarder")
        if len(claims) >= n:
            raise MatchError(f"at most {n - 1} players can win on one discard")
        if not several_winners_allowed(rules, state.options):
            nearest = state.players[nearest_first(disc, claims, n)[0]]
            raise MatchError(
                f"{state.variant}: only the claimant nearest in turn order after the discarder wins "
                f"({nearest})" + (f"; set option {rules.multi_win[0]}={rules.multi_win[1]} to allow more"
                                  if rules.multi_win else "")
            )
    for w in claims:
        if w in state.dead:
            raise MatchError(f"{state.players[w]}'s hand is dead after a false win this hand; it cannot win")
    order = nearest_first(disc, claims, n) if disc is not None else list(claims)
    transfers: list[Transfer] = []
    details: list[str] = []
    parts: list[str] = []
    for i, w in enumerate(order):
        claim: WinClaim = claims[w]
        to_each = bool(state.options.get("honba_to_each_winner"))
        honba = state.honba if rules.riichi and (i == 0 or to_each) else 0
        sticks = state.sticks if i == 0 else 0
        if claim.hand is not None:
            tr, detail = _score_claim(state, claim.hand, w, disc, honba, sticks)
        else:
            assert claim.payments is not None
            tr = _entries(state, claim.payments)
            if rules.riichi:
                dealer = state.dealer
                for payer, receiver, amount in honba_payments(
                    state.options, honba, seat_of(w, dealer, n), None if disc is None else seat_of(disc, dealer, n), n
                ):
                    tr.append(Transfer(player_at(payer, dealer, n), player_at(receiver, dealer, n), amount, "honba"))
                if sticks:
                    tr.append(Transfer(None, w, sticks * RIICHI_STICK, "riichi sticks"))
            detail = "payments entered by hand"
        transfers.extend(tr)
        details.append(f"{state.players[w]}: {detail}")
        parts.append(f"{state.players[w]} ({_fmt(_net(tr, n)[w])})")
    how = "by self-draw" if disc is None else f"on {state.players[disc]}'s discard"
    if len(parts) == 1:
        summary = f"{state.players[order[0]]} wins {how} ({_fmt(_net(transfers, n)[order[0]])})"
    else:
        summary = f"{' and '.join(parts)} win {how}"
    outcome = Outcome("win", winners=tuple(order))
    return _close_hand(state, seq, "win", summary, transfers, outcome, sticks=0, details=details)


def _score_claim(state: MatchState, spec: HandSpec, winner: int, disc: int | None, honba: int,
                 sticks: int) -> tuple[list[Transfer], str]:
    """Score a stated hand with the rule system's scorer at the match's seat, wind, honba and sticks."""
    rules, n, dealer = state.rules, state.n, state.dealer
    name = state.players[winner]
    variant = get_variant(state.variant)
    hand = parse_hand(spec.hand)
    win_tile = parse_tiles(spec.win_tile)[0] if spec.win_tile.strip() else hand.win_tile
    assert win_tile is not None  # HandSpec.from_json insists on one
    declared = winner in state.riichi
    if rules.riichi:
        if (spec.riichi or spec.double_riichi) and not declared:
            raise MatchError(f"{name} has no riichi recorded this hand; record the riichi (its stick) first")
        if spec.riichi is False and declared:
            raise MatchError(f"{name} declared riichi this hand; the hand is scored with it")
        riichi = declared
    else:
        if spec.riichi or spec.double_riichi:
            raise MatchError(f"{state.variant} has no riichi")
        riichi = False
    others: dict[int, PlayerShown] = {}
    for other, shown in spec.others:
        o = state.index(other)
        if o == winner:
            raise MatchError(f"'others' describes what the losers show; {other} is the winner")
        others[seat_of(o, dealer, n)] = PlayerShown(
            melds=tuple(parse_meld(m) for m in shown.melds),
            bonus=tuple(parse_tiles(shown.bonus)),
            fei=shown.fei,
            sunk_fei=shown.sunk_fei,
            hidden_honour_pongs=tuple(t.kind for t in parse_tiles(shown.hidden_honour_pongs)),
        )
    liable = None if spec.liable is None else seat_of(state.index(spec.liable), dealer, n)
    ctx = WinContext(
        variant=variant,
        hand=hand,
        win_tile=win_tile,
        tsumo=disc is None,
        seat=seat_of(winner, dealer, n),
        discarder=None if disc is None else seat_of(disc, dealer, n),
        round_wind=round_wind_kind(rules, state.position.round_index),
        dora_indicators=tuple(parse_tiles(spec.dora_indicators)),
        ura_indicators=tuple(parse_tiles(spec.ura_indicators)),
        kita=spec.kita,
        riichi=riichi,
        double_riichi=spec.double_riichi,
        ippatsu=spec.ippatsu,
        rinshan=spec.rinshan,
        after_two_kongs=spec.after_two_kongs,
        chankan=spec.chankan,
        haitei=spec.haitei,
        houtei=spec.houtei,
        tenhou=spec.tenhou,
        chiihou=spec.chiihou,
        honba=honba,
        riichi_sticks=sticks,
        fei_sunk=spec.fei_sunk,
        others=others,
        liable=liable,
        options=state.variant_options(),
    )
    if not callable(getattr(_scorer_module(variant.name), "score", None)):
        raise MatchError(f"the {variant.name} scorer is not available; enter the payments by hand instead of a hand")
    from ..scoring import score

    result = score(ctx)
    if not result.legal:
        raise MatchError(f"{name}'s hand cannot win: {result.verdict}")
    transfers = [
        Transfer(
            None if p.payer is None else player_at(p.payer, dealer, n),
            player_at(p.receiver, dealer, n),
            amount_value(p.amount, "a scored payment"),
            p.reason,
        )
        for p in result.payments
        if p.amount
    ]
    from_table = sum(t.amount for t in transfers if t.payer is None)
    if from_table != sticks * RIICHI_STICK:
        raise MatchError(
            f"the scorer paid {from_table:,} from the table but {sticks} riichi stick(s) "
            f"({sticks * RIICHI_STICK:,}) lie there"
        )
    detail = f"{result.total} {result.unit}".strip()
    if result.fu:
        detail += f" {result.fu} fu"
    if result.limit:
        detail += f" ({result.limit})"
    return transfers, detail


def _draw(state: MatchState, ev: Draw, seq: int) -> MatchState:
    rules, n, dealer = state.rules, state.n, state.dealer
    tenpai = tuple(state.index(p) for p in ev.tenpai)
    nagashi = tuple(state.index(p) for p in ev.nagashi)
    if nagashi and not (rules.riichi and state.options.get("nagashi")):
        raise MatchError(f"nagashi mangan is not played in this match ({state.variant})")
    missing = [state.players[p] for p in state.riichi if p not in tenpai]
    if missing:
        raise MatchError(
            f"{', '.join(missing)} declared riichi this hand and must be tenpai at the draw "
            "(a noten riichi is a false win)"
        )
    transfers: list[Transfer] = []
    if nagashi:
        for p in nagashi:
            for payer, receiver, amount in mangan_tsumo(seat_of(p, dealer, n), n):
                transfers.append(Transfer(player_at(payer, dealer, n), player_at(receiver, dealer, n), amount,
                                          "nagashi mangan"))
    elif rules.noten_payments:
        seats = frozenset(seat_of(p, dealer, n) for p in tenpai)
        for payer, receiver, amount in noten_payments(seats, n):
            transfers.append(Transfer(player_at(payer, dealer, n), player_at(receiver, dealer, n), amount,
                                      "noten payment"))
    who = ", ".join(state.players[p] for p in sorted(tenpai)) or "nobody"
    summary = f"exhaustive draw, tenpai: {who}" if rules.noten_payments else "drawn hand"
    if nagashi:
        summary += f"; nagashi mangan: {', '.join(state.players[p] for p in nagashi)}"
    outcome = Outcome("draw", tenpai=tenpai)
    return _close_hand(state, seq, "draw", summary, transfers, outcome, sticks=state.sticks)


def _abortive(state: MatchState, ev: AbortiveDraw, seq: int) -> MatchState:
    if ev.reason not in state.rules.abortive_reasons:
        allowed = ", ".join(state.rules.abortive_reasons) or "none"
        raise MatchError(f"{state.variant} has no abortive draw {ev.reason!r} (abortive draws: {allowed})")
    summary = f"abortive draw: {ev.reason.replace('_', ' ')}"
    return _close_hand(state, seq, "abortive_draw", summary, [], Outcome("abortive"), sticks=state.sticks)


def _payout(state: MatchState, ev: Payout, seq: int) -> MatchState:
    rules, n, dealer = state.rules, state.n, state.dealer
    if not rules.instant_payouts:
        raise MatchError(f"{state.variant} has no instant payouts")
    p = state.index(ev.player)
    disc = None if ev.discarder is None else state.index(ev.discarder)
    if disc == p:
        raise MatchError(f"{ev.player} cannot be the discarder of their own kong")
    if ev.payments is not None:
        transfers = _entries(state, ev.payments)
    else:
        instant = _instant_payout_function(state.variant)
        if instant is None:
            raise MatchError(f"the {state.variant} scorer has no instant_payout; give the payments")
        pays = instant(
            ev.kind, seat_of(p, dealer, n), n, state.variant_options(),
            discarder=None if disc is None else seat_of(disc, dealer, n),
        )
        transfers = [
            Transfer(None if x.payer is None else player_at(x.payer, dealer, n), player_at(x.receiver, dealer, n),
                     amount_value(x.amount, "an instant payment"), x.reason)
            for x in pays
            if x.amount
        ]
    return _in_hand(state, seq, transfers)


def _scorer_module(variant: str) -> Any:
    """The rule system's scorer module, or None while it does not exist."""
    module = get_variant(variant).scoring
    if not module:
        return None
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as e:
        if e.name and module.startswith(e.name):
            return None
        raise


def _instant_payout_function(variant: str) -> Any:
    return getattr(_scorer_module(variant), "instant_payout", None)


def _false_win(state: MatchState, ev: FalseWin, seq: int) -> MatchState:
    rules, n, dealer = state.rules, state.n, state.dealer
    p = state.index(ev.player)
    transfers = [
        Transfer(player_at(payer, dealer, n), None if receiver is None else player_at(receiver, dealer, n), amount,
                 "false win" if not rules.riichi else "chombo")
        for payer, receiver, amount in false_win_payments(rules, state.options, seat_of(p, dealer, n))
    ]
    if rules.false_win == "dead_hand":
        if p in state.dead:
            raise MatchError(f"{ev.player}'s hand is already dead after a false win")
        return _in_hand(state, seq, transfers, dead=state.dead + (p,))
    sticks = state.sticks
    if rules.riichi:  # the hand is void: this hand's riichi deposits go back to their owners
        for r in state.riichi:
            transfers.append(Transfer(None, r, RIICHI_STICK, "riichi stick returned"))
        sticks -= len(state.riichi)
    word = "chombo" if rules.riichi else "false win"
    return _close_hand(state, seq, "false_win", f"{word} by {ev.player}", transfers, Outcome("false_win"),
                       sticks=sticks)


def _match_end(state: MatchState, ev: MatchEnd, seq: int) -> MatchState:
    reason = ev.reason or "ended by the table"
    if state.pending:
        state = _close_hand(state, seq, "unfinished", "hand in progress when the match ended", [], None,
                            sticks=state.sticks)
    return replace(state, finished=True, end_reason=reason, last_seq=seq)


# --- logs and corrections ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Record:
    """One stored event: its sequence number in the match (1 = match_created), the event, the time, and who
    recorded it (``by``: a name, a device or ``web``; empty when not known) for the audit trail."""

    seq: int
    event: Event
    time: str = ""
    by: str = ""


def now() -> str:
    """The current time as stored with each event (UTC, ISO 8601)."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def active_seqs(records: Sequence[Record]) -> set[int]:
    """Sequence numbers of the records still in force (not voided by an undo that is itself in force)."""
    voided: set[int] = set()
    for r in reversed(records):
        if r.seq in voided:
            continue
        if isinstance(r.event, Undo):
            voided.add(r.event.event)
    return {r.seq for r in records} - voided


def effective_events(records: Sequence[Record]) -> list[tuple[int, Event]]:
    """The log as it reads after its corrections: undone events left out, edited events replaced
    (the latest edit in force wins), corrections themselves dropped."""
    active = active_seqs(records)
    replaced: dict[int, Event] = {}
    for r in reversed(records):
        if r.seq in active and isinstance(r.event, Edit):
            replaced.setdefault(r.event.event, r.event.replacement)
    return [
        (r.seq, replaced.get(r.seq, r.event))
        for r in records
        if r.seq in active and not r.event.is_correction
    ]


def fold(records: Sequence[Record]) -> MatchState:
    """Rebuild the state from a whole log (corrections resolved). MatchError names the failing event."""
    state: MatchState | None = None
    for seq, event in effective_events(records):
        try:
            state = apply(state, event, seq)
        except MatchError as e:
            raise MatchError(f"event {seq} ({event.type}): {e}") from None
    if state is None:
        raise MatchError("the log is empty: a match starts with match_created")
    last = records[-1].seq
    return state if state.last_seq == last else replace(state, last_seq=last)


def next_state(records: Sequence[Record], state: MatchState | None, event: Event) -> MatchState:
    """Validate ``event`` as the next entry of ``records`` (whose folded state is ``state``) and return
    the state after it. MatchError with the reason when it must not be written."""
    seq = records[-1].seq + 1 if records else 1
    if not event.is_correction:
        if records and state is None:
            state = fold(records)
        new = apply(state, event, seq)
        return replace(new, last_seq=seq)
    if not records:
        raise MatchError("nothing to correct: the match has no events")
    by_seq = {r.seq: r for r in records}
    target = event.event  # type: ignore[attr-defined]
    verb = "undo" if isinstance(event, Undo) else "edit"
    if target not in by_seq:
        raise MatchError(f"cannot {verb} event {target}: there is no such event")
    if isinstance(by_seq[target].event, MatchCreated):
        raise MatchError(f"cannot {verb} event {target} (match_created); start a new match instead")
    active = active_seqs(records)
    if target not in active:
        raise MatchError(f"cannot {verb} event {target}: it is already undone")
    if isinstance(event, Edit) and by_seq[target].event.is_correction:
        raise MatchError(f"cannot edit event {target} ({by_seq[target].event.type}); edit the event it corrects")
    try:
        return fold(list(records) + [Record(seq, event)])
    except MatchError as e:
        raise MatchError(f"{verb} of event {target} rejected: {e}") from None


def last_undoable(records: Sequence[Record]) -> int:
    """The sequence number of the latest event in force that an undo without a target voids."""
    for seq, event in reversed(effective_events(records)):
        if not isinstance(event, MatchCreated):
            return seq
    raise MatchError("nothing to undo: the match has no events after match_created")


class MatchLog:
    """A match in memory: the records and their folded state. Every append is validated first; a
    rejected event is not added and the state is unchanged. (The SQLite store does the same on disk.)"""

    def __init__(self, records: Iterable[Record] = ()) -> None:
        self.records: list[Record] = list(records)
        self.state: MatchState | None = fold(self.records) if self.records else None

    def append(self, event: Event, time: str | None = None) -> Record:
        new = next_state(self.records, self.state, event)
        record = Record(self.records[-1].seq + 1 if self.records else 1, event, time or now())
        self.records.append(record)
        self.state = new
        return record


__all__ = [
    "HandRecord", "MatchLog", "MatchState", "Record", "Transfer", "active_seqs", "apply", "effective_events", "fold",
    "last_undoable", "next_state", "now", "start",
]
