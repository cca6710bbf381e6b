"""Events as JSON values, their validation, and properties of folding random logs."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assistant.match.events import (
    EVENT_TYPES,
    AbortiveDraw,
    Draw,
    Edit,
    FalseWin,
    HandSpec,
    MatchCreated,
    MatchEnd,
    MatchError,
    PaymentEntry,
    Payout,
    Riichi,
    ShownSpec,
    Undo,
    Win,
    WinClaim,
    event_from_json,
)
from assistant.match.rules import match_options
from assistant.match.state import MatchLog, fold

EXAMPLES = [
    MatchCreated("sanma", ("A", "B", "C"), (("honba", {"ron": 300, "tsumo_each": 100}), ("uma", 20))),
    Riichi("A"),
    Win((WinClaim("A", payments=(PaymentEntry("B", "A", 8000), PaymentEntry("C", "B", 1, "square up"))),), "B"),
    Win((WinClaim("A", hand=HandSpec("111m234p678p34s99s5s*", dora_indicators="1s", kita=1, ippatsu=True,
                                     riichi=True, liable="C")),), None),
    Win((WinClaim("Q", hand=HandSpec("123p456p789p77z jk 5p5p* | 1a2h4f", others=(
        ("P", ShownSpec(melds=("[111z]",), bonus="1f2g")), ("R", ShownSpec(fei=1, bonus="3h3g"))))),), None),
    Draw(("A", "B"), ("C",)),
    AbortiveDraw("four_kans"),
    Payout("exposed_kong", "Q", "P"),
    Payout("other", "Q", None, (PaymentEntry("P", "Q", 2, "other"),)),
    FalseWin("C"),
    Undo(4),
    Edit(3, Draw(("A",))),
    MatchEnd("closing time"),
]


@pytest.mark.parametrize("event", EXAMPLES, ids=lambda e: e.type)
def test_every_event_round_trips_through_json_text(event):
    text = json.dumps(event.to_json())
    assert event_from_json(json.loads(text)) == event


def test_every_event_type_has_an_example():
    assert {e.type for e in EXAMPLES} == set(EVENT_TYPES)


def test_flattened_payload_is_accepted():
    assert event_from_json({"type": "draw", "tenpai": ["A"]}) == Draw(("A",))


def test_payout_payments_default_to_the_payout_kind_as_reason():
    e = event_from_json({"type": "payout", "kind": "bite_pair", "player": "Q",
                         "payments": [{"from": "P", "to": "Q", "amount": 1}]})
    assert e.payments == (PaymentEntry("P", "Q", 1, "bite_pair"),)


@pytest.mark.parametrize(("raw", "message"), [
    ({"type": "nap"}, 'unknown event type "nap"'),
    ({"type": "riichi", "payload": {"who": "A"}}, "unknown field 'who' in riichi; expected: player"),
    ({"type": "riichi", "payload": {"player": " A"}}, "riichi 'player' must be a player name"),
    ({"type": "win", "payload": {"winners": []}}, "win needs 'winners'"),
    ({"type": "win", "winners": [{"player": "A"}]}, "winner A: give either 'hand'"),
    ({"type": "win", "winners": [{"player": "A", "payments": [{"from": "A", "to": "A", "amount": 1}]}]},
     "a payment from A to A is not a payment"),
    ({"type": "win", "winners": [{"player": "A", "payments": [{"from": "B", "to": "A", "amount": -5}]}]},
     "payment 'amount' must be a positive number, got -5"),
    ({"type": "win", "winners": [{"player": "A", "hand": {"hand": "111m234p678p34s99s5s"}}]},
     "say which tile won"),
    ({"type": "win", "winners": [{"player": "A", "hand": {"hand": "111m234p678p34s99s5s*", "kita": "two"}}]},
     "'kita' must be a whole number"),
    ({"type": "win", "winners": [{"player": "A", "hand": {"hand": "111x*"}}]}, "bad tile token"),
    ({"type": "draw", "tenpai": ["A", "A"]}, "draw 'tenpai' names a player twice"),
    ({"type": "abortive_draw", "reason": "four_winds"}, "must be one of nine_terminals, four_kans"),
    ({"type": "undo", "event": 0}, "undo 'event' must be a whole number >= 1"),
    ({"type": "edit", "event": 2, "replacement": {"type": "undo", "event": 1}}, "cannot replace an event with a undo"),
    ({"type": "match_created", "variant": "sanma"}, "match_created needs 'variant' and 'players'"),
])
def test_malformed_events_are_rejected_with_the_reason(raw, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        event_from_json(raw)


def test_match_created_is_checked_against_the_rule_system():
    log = MatchLog()
    with pytest.raises(MatchError, match="unknown option 'colour' for sanma"):
        log.append(MatchCreated("sanma", ("A", "B", "C"), (("colour", "red"),)))
    with pytest.raises(MatchError, match="hong-kong is played by 4 players, not 3"):
        log.append(MatchCreated("hong-kong", ("A", "B", "C")))
    with pytest.raises(MatchError, match="unknown rule system 'mahjong-solitaire'"):
        log.append(MatchCreated("mahjong-solitaire", ("A", "B", "C")))
    with pytest.raises(MatchError, match="a match log starts with a match_created event"):
        log.append(Riichi("A"))
    assert log.records == []


def test_option_values_are_checked():
    tenhou_style = {"ron": 300, "tsumo_each": 100}
    assert match_options("sanma", {"honba": tenhou_style})["honba"] == tenhou_style
    with pytest.raises(ValueError, match="must be an object with the keys ron, tsumo_each"):
        match_options("sanma", {"honba": {"ron": 300}})
    with pytest.raises(ValueError, match="'agariyame' of sanma must be true or false"):
        match_options("sanma", {"agariyame": "yes"})
    with pytest.raises(ValueError, match="'rounds' of korean-3p must be at least 1"):
        match_options("korean-3p", {"rounds": 0})
    assert match_options("three-kaki", {"hands": 12})["hands"] == 12


# --- properties of random logs ----------------------------------------------------------------------

NAMES = ("A", "B", "C")
player = st.sampled_from(NAMES)
amount = st.integers(1, 40).map(lambda x: x * 100)


@st.composite
def sanma_action(draw_):
    kind = draw_(st.sampled_from(["riichi", "ron", "tsumo", "double", "draw", "abort", "chombo", "undo", "edit"]))
    if kind == "riichi":
        return Riichi(draw_(player))
    if kind == "ron":
        w, d = draw_(st.permutations(NAMES))[:2]
        return Win((WinClaim(w, payments=(PaymentEntry(d, w, draw_(amount)),)),), d)
    if kind == "tsumo":
        w = draw_(player)
        return Win((WinClaim(w, payments=tuple(PaymentEntry(o, w, draw_(amount)) for o in NAMES if o != w)),), None)
    if kind == "double":
        d, w1, w2 = draw_(st.permutations(NAMES))
        return Win((WinClaim(w1, payments=(PaymentEntry(d, w1, draw_(amount)),)),
                    WinClaim(w2, payments=(PaymentEntry(d, w2, draw_(amount)),))), d)
    if kind == "draw":
        return Draw(tuple(n for n in NAMES if draw_(st.booleans())))
    if kind == "abort":
        return AbortiveDraw("nine_terminals")
    if kind == "chombo":
        return FalseWin(draw_(player))
    if kind == "undo":
        return Undo(draw_(st.integers(1, 40)))
    return Edit(draw_(st.integers(1, 40)), Draw(tuple(n for n in NAMES if draw_(st.booleans()))))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(sanma_action(), min_size=1, max_size=30))
def test_random_sanma_logs_fold_consistently_and_keep_every_point(actions):
    log = MatchLog()
    log.append(MatchCreated("sanma", NAMES, (("bust", "off"),)))
    for action in actions:
        before, n = log.state, len(log.records)
        try:
            log.append(action)
        except MatchError:
            assert log.state is before and len(log.records) == n  # rejected: nothing changed
            continue
        s = log.state
        # nothing is lost: every point is with a player or on the table as a riichi stick
        assert sum(s.points) + 1000 * s.sticks == 105000
        # the last row's totals are the points before this hand's payments so far (riichi sticks)
        assert s.history == () or s.history[-1].totals == tuple(
            p + sum(t.amount for t in s.pending if t.payer == i) - sum(t.amount for t in s.pending if t.receiver == i)
            for i, p in enumerate(s.points)
        )
    assert fold(log.records) == log.state  # the incremental state is the rebuilt state
