"""Random legal play for the play-state tests: a shuffled wall, a deal, then at each step one event chosen
among what :func:`assistant.calls.legal_actions` allows (or the next draw). Not a test module itself."""

from __future__ import annotations

import random

from assistant.analysis import shanten
from assistant.calls import legal_actions, resolve_claims
from assistant.hand import Hand
from assistant.play import (
    AbortiveDraw,
    ExhaustiveDraw,
    NewDora,
    Pass,
    Ron,
    Tsumo,
    apply,
)
from assistant.play.dealing import action_event, shuffled_deal, wall_event
from assistant.play.machine import _four_kans
from assistant.tiles import Tile

VARIANTS = ("sanma", "korean-3p", "hong-kong", "three-kaki")


def _best_discards(state, discards):
    """The discards that leave the hand fewest tiles from ready (shanten)."""
    hand = state.seats[state.turn].hand
    scored = []
    for a in discards:
        rest = list(hand.concealed)
        rest.remove(a.tile)
        scored.append((shanten(Hand(tuple(rest), hand.melds), state.variant).minimum, a))
    best = min(x for x, _ in scored)
    return [a for x, a in scored if x == best]


def next_event(state, pool: list[Tile], rng: random.Random, greedy: float = 0.0):
    """One random legal event for ``state`` (None when the hand is over)."""
    if state.ending is not None:
        return None
    n = state.players
    if state.phase == "turn_start":
        if state.live_wall == 0:
            return ExhaustiveDraw()
        return wall_event(state.turn, pool, replacement=state.owed is not None)
    if state.phase == "own_turn":
        acts = [a for a in legal_actions(state, state.turn) if a.legal]
        if "riichi" in state.variant.calls and len(state.dora_indicators) < 1 + state.kongs_made and rng.random() < .7:
            i = max(i for i, t in enumerate(pool) if t.is_playing)
            t = pool.pop(i)
            pool.insert(0, t)
            return NewDora(t)
        wins = [a for a in acts if a.kind == "tsumo"]
        if wins and rng.random() < .6:
            return Tsumo(state.turn)
        rare = [a for a in acts if a.kind == "nine_terminals"]
        if rare and rng.random() < .3:
            return action_event(rare[0])
        special = [a for a in acts if a.kind not in ("discard", "tsumo", "nine_terminals")]
        if special and rng.random() < .35:
            return action_event(rng.choice(special))
        discards = [a for a in acts if a.kind == "discard"] or acts
        if greedy and len(discards) > 1 and rng.random() < greedy:
            discards = _best_discards(state, discards)
        return action_event(rng.choice(discards))
    others = [(state.turn + k) % n for k in range(1, n)]
    claims = {seat: [a for a in legal_actions(state, seat) if a.legal and a.kind != "pass"] for seat in others}
    rons = [a for seat in others for a in claims[seat] if a.kind == "ron"]
    if rons and rng.random() < .6:
        res = resolve_claims(state, rons)
        return Ron(tuple(a.seat for a in res.winners))
    if state.phase == "kong_window":
        if rng.random() < .3:
            unpassed = [s for s in others if s not in state.window_passes]
            if unpassed:
                return Pass(rng.choice(unpassed))
        return wall_event(state.turn, pool, replacement=True)
    calls = [a for seat in others for a in claims[seat] if a.kind in ("chow", "pong", "open_kong")]
    if calls and rng.random() < .4:
        return action_event(rng.choice(calls))
    if rng.random() < .2:
        unpassed = [s for s in others if s not in state.window_passes]
        if unpassed:
            return Pass(rng.choice(unpassed))
    if _four_kans(state):
        return AbortiveDraw("four_kans")
    if state.live_wall == 0:
        return ExhaustiveDraw()
    return wall_event(state.next_seat(state.turn), pool)


def play(variant: str, seed: int, max_events: int = 400, short_wall: int | None = None, check=None,
         greedy: float = 0.8):
    """Play one random hand; ``check(prev, event, new)`` is called after every event. Returns the events."""
    rng = random.Random(seed)
    d, pool = shuffled_deal(variant, rng, short_wall)
    state = apply(None, d)
    events = [d]
    if check:
        check(None, d, state)
    for _ in range(max_events):
        ev = next_event(state, pool, rng, greedy)
        if ev is None:
            break
        new = apply(state, ev)
        if check:
            check(state, ev, new)
        events.append(ev)
        state = new
    return events, state
