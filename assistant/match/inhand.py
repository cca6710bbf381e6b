"""From a played hand to the match log: the match-level events a finished in-hand event log stands for.

:func:`match_events` replays a hand's events (:mod:`assistant.play`) and returns what the score keeper
records, in order: a ``riichi`` event for each riichi stick that stayed on the table, the 3 Kaki
instant ``payout`` events (kongs, completed families, biting animals, a robbed promoted kong's refund),
a ``false_win`` where a korean-3p hand went dead, then the end of the hand — a ``win`` with each
winner's hand description (scored again by the match at fold time, so both must agree), an exhaustive
``draw`` with the tenpai (and nagashi) players, an ``abortive_draw`` or a ``false_win``. Seats become
player names through the match's seating (seat 0 = the current dealer). :func:`record_hand` appends
them to a :class:`~assistant.match.state.MatchLog`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..play import (
    AddedKong,
    BonusTile,
    ClosedKong,
    Deal,
    HandLog,
    OpenKong,
    PlayState,
    Ron,
    WinRecord,
    hand_notation,
    replay,
)
from ..play import (
    Event as PlayEvent,
)
from ..play import (
    FalseWin as PlayFalseWin,
)
from ..tiles import Tile, kind_code, parse_tiles
from ..variants import get_variant
from .events import (
    AbortiveDraw,
    Draw,
    Event,
    FalseWin,
    HandSpec,
    MatchError,
    Payout,
    Riichi,
    ShownSpec,
    Win,
    WinClaim,
)
from .rules import round_wind_kind
from .state import MatchLog, MatchState


def match_events(hand: HandLog | Sequence[PlayEvent], match: MatchState) -> list[Event]:
    """The match events of a finished hand (see the module docstring). MatchError when the hand has not
    ended or does not fit the match (rule system, seating, honba, sticks, round wind)."""
    events = list(hand.events if isinstance(hand, HandLog) else hand)
    if not events or not isinstance(events[0], Deal):
        raise MatchError("a hand log starts with its deal")
    deal: Deal = events[0]
    if get_variant(deal.variant).name != match.variant:
        raise MatchError(f"a {deal.variant} hand cannot be recorded in a {match.variant} match")
    try:
        states = replay(match.variant, events)
    except ValueError as e:
        raise MatchError(f"the hand log does not replay: {e}") from None
    final = states[-1]
    if final.ending is None:
        raise MatchError("the hand has not ended yet (no win, draw or false win in its log)")
    _check_fit(deal, final, match)
    name = match.player_at
    kept = set(final.sticks_placed)
    if final.ending.kind == "false_win":
        kept = set(states[-2].sticks_placed) if len(states) > 1 else set()
    out: list[Event] = []
    out += _dealt_families(deal, final, match)
    for i in range(1, len(events)):
        before, event, after = states[i - 1], events[i], states[i]
        for seat in after.sticks_placed:
            if seat not in before.sticks_placed and seat in kept:
                out.append(Riichi(name(seat)))
        out += _payouts(before, event, after, match)
        if isinstance(event, PlayFalseWin) and after.ending is None:  # korean-3p: the hand goes on, dead
            out.append(FalseWin(name(event.seat)))
    end = final.ending
    if end.kind == "win":
        discarder = None if end.discarder is None else name(end.discarder)
        out.append(Win(tuple(WinClaim(name(w.seat), hand=_spec(w, match)) for w in end.wins), discarder))
    elif end.kind == "exhaustive_draw":
        out.append(Draw(tuple(name(s) for s in end.tenpai), tuple(name(s) for s in end.nagashi)))
    elif end.kind == "abortive_draw":
        out.append(AbortiveDraw(end.reason))
    else:
        assert end.seat is not None
        out.append(FalseWin(name(end.seat)))
    return out


def record_hand(log: MatchLog, hand: HandLog | Sequence[PlayEvent]) -> MatchState:
    """Append a finished hand's match events to ``log`` (each checked as usual); the new match state.
    Nothing is appended when any of them is rejected."""
    if log.state is None:
        raise MatchError("the match log is empty: create the match first")
    events = match_events(hand, log.state)
    trial = MatchLog(list(log.records))
    for e in events:
        trial.append(e)
    for e in events:
        log.append(e)
    assert log.state is not None
    return log.state


# ---------------------------------------------------------------------------------------------


def _check_fit(deal: Deal, state: PlayState, match: MatchState) -> None:
    n = match.n
    if deal.names is not None:
        expected = tuple(match.player_at(s) for s in range(n))
        if tuple(deal.names) != expected:
            raise MatchError(f"the deal seats {', '.join(deal.names)} (East first); the match seats "
                             f"{', '.join(expected)}")
    if deal.dealer is not None and deal.dealer != match.dealer:
        raise MatchError(f"the deal names player {deal.dealer} as dealer; in the match it is "
                         f"{match.players[match.dealer]} (player {match.dealer})")
    if match.rules.riichi:
        if deal.honba != match.honba:
            raise MatchError(f"the deal is at {deal.honba} honba; the match is at {match.honba}")
        if deal.riichi_sticks != match.sticks:
            raise MatchError(f"the deal has {deal.riichi_sticks} riichi stick(s) on the table; the match has "
                             f"{match.sticks}")
    wind = round_wind_kind(match.rules, match.position.round_index)
    if state.round_wind != wind:
        raise MatchError(f"the deal's round wind is {kind_code(state.round_wind)}; the match is in "
                         f"{kind_code(wind)}")


def _spec(w: WinRecord, match: MatchState) -> HandSpec:
    ctx = w.context
    in_hand = any(t == w.tile for t in ctx.hand.concealed)
    others = tuple(
        (match.player_at(seat), ShownSpec(
            melds=tuple(m.format() for m in o.melds), bonus="".join(t.code for t in o.bonus), fei=o.fei,
            sunk_fei=o.sunk_fei, hidden_honour_pongs="".join(kind_code(k) for k in o.hidden_honour_pongs)))
        for seat, o in sorted(ctx.others.items()))
    kw: dict[str, Any] = {flag: getattr(ctx, flag) for flag in (
        "double_riichi", "ippatsu", "rinshan", "after_two_kongs", "chankan", "haitei", "houtei", "tenhou", "chiihou")}
    return HandSpec(
        hand=hand_notation(ctx.hand, w.tile if in_hand else None),
        win_tile="" if in_hand else w.tile.code,
        dora_indicators="".join(t.code for t in ctx.dora_indicators),
        ura_indicators="".join(t.code for t in ctx.ura_indicators),
        kita=ctx.kita, riichi=None, fei_sunk=ctx.fei_sunk,
        liable=None if ctx.liable is None else match.player_at(ctx.liable), others=others, **kw,
    )


def _instant_kinds(state: PlayState) -> bool:
    return state.variant.can_sink_fei   # the Fei rule system pays kongs, families and bites at once


def _payout(kind: str, seat: int, match: MatchState, state: PlayState, discarder: int | None = None) -> list[Event]:
    from ..scoring.three_kaki import instant_payout

    if not [p for p in instant_payout(kind, seat, state.players, dict(state.options), discarder=discarder)
            if p.amount]:
        return []
    return [Payout(kind, match.player_at(seat), None if discarder is None else match.player_at(discarder))]


def _payouts(before: PlayState, event: PlayEvent, after: PlayState, match: MatchState) -> list[Event]:
    if not _instant_kinds(after):
        return []
    if isinstance(event, OpenKong):
        return _payout("exposed_kong", event.seat, match, after, before.turn)
    if isinstance(event, ClosedKong):
        return _payout("concealed_kong", event.seat, match, after)
    if isinstance(event, AddedKong):
        return _payout("promoted_kong", event.seat, match, after)
    if isinstance(event, BonusTile):
        from ..scoring.three_kaki import bonus_events

        bonus = [t for t in before.seats[event.seat].hand.bonus if t.is_bonus]
        return [p for kind in bonus_events(bonus, event.tile) for p in _payout(kind, event.seat, match, after)]
    if isinstance(event, Ron) and before.phase == "kong_window" and before.declaration == "added_kong":
        return _payout("promoted_kong_robbed", before.turn, match, after)
    return []


def _dealt_families(deal: Deal, state: PlayState, match: MatchState) -> list[Event]:
    """Families completed (and animals biting) by the bonus tiles cleared during the deal."""
    if not _instant_kinds(state):
        return []
    from ..scoring.three_kaki import bonus_events

    out: list[Event] = []
    for seat, text in enumerate(deal.hands):
        laid: list[Tile] = []
        for t in sorted(t for t in parse_tiles(text.partition("|")[2]) if t.is_bonus):
            for kind in bonus_events(laid, t):
                out += _payout(kind, seat, match, state)
            laid.append(t)
    return out


__all__ = ["match_events", "record_hand"]
