"""Event JSON, the hand log and replay; random legal play keeps every state valid and every tile counted."""

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_play_driver import VARIANTS, play
from test_play_hong_kong import H2
from test_play_korean_3p import K1
from test_play_sanma import deal as sanma_deal
from test_play_three_kaki import T1

from assistant.play import (
    EVENT_TYPES,
    AbortiveDraw,
    AddedKong,
    BonusTile,
    Chow,
    ClosedKong,
    Deal,
    Discard,
    Draw,
    EventError,
    ExhaustiveDraw,
    FalseWin,
    HandLog,
    IllegalEvent,
    Kita,
    NewDora,
    OpenKong,
    Pass,
    PlayState,
    Pong,
    ReplacementDraw,
    Reveal,
    RiichiStick,
    Ron,
    SinkFei,
    SwapFei,
    Tsumo,
    apply,
    event_from_json,
    replay,
    tile_total,
)
from assistant.table import TableState

SANMA = [sanma_deal(), Draw(0, "7z"), Discard(0, "7z"), Draw(1, "6z"), Discard(1, "6z"), Draw(2, "5z"),
         Discard(2, "5z"), Draw(0, "9m"), Discard(0, "9m"), Draw(1, "5s"), Tsumo(1)]
LOGS = {"sanma": SANMA, "hong-kong": H2, "korean-3p": K1, "three-kaki": T1}

ONE_OF_EACH = [
    Deal("sanma", ("1z", "2z", "3z"), dora_indicators="5z", honba=2, points=(1, 2, 3), names=("A", "B", "C"),
         dealer=1, options={"kuikae": "allowed", "pao": ["daisangen"]}),
    Draw(1, "0p"), ReplacementDraw(0, "5s"), Discard(2, "9s", riichi=True), Chow(1, "46p", "{456p@1}"),
    Pong(2, "55p"), OpenKong(0, "777z", "[7777z@2]"), ClosedKong(0, "1z", "1z1z1z1z"), AddedKong(1, "5p"), Kita(2),
    BonusTile(0, "1f"), SinkFei(1), SwapFei(0, "7p", 1, 2), RiichiStick(0), Pass(2), NewDora("4p"),
    Ron((2, 1), "3z"), Tsumo(1, "1p2p"), ExhaustiveDraw(), ExhaustiveDraw((0, 2)),
    AbortiveDraw("nine_terminals", 0), AbortiveDraw("four_kans"), FalseWin(2),
    Reveal(1, "1z2z3z", drawn="1z"),
]


def test_every_event_type_round_trips_through_json():
    assert {e.type for e in ONE_OF_EACH} == set(EVENT_TYPES)
    for e in ONE_OF_EACH:
        data = json.loads(json.dumps(e.to_json()))
        assert event_from_json(data) == e, data
    assert Discard(1, "9s").to_json() == {"type": "discard", "seat": 1, "tile": "9s"}
    assert Ron((1, 2)).to_json() == {"type": "ron", "seats": [1, 2]}
    assert Pong(2, "55p", "[555p@1]").to_json() == {"type": "pong", "seat": 2, "tiles": "55p", "meld": "[555p@1]"}


@pytest.mark.parametrize("data,words", [
    ({"type": "shout"}, "unknown event type"),
    ({"type": "draw", "seat": 1}, "needs 'tile'"),
    ({"type": "draw", "seat": 1, "tile": "5x"}, "unknown suit"),
    ({"type": "draw", "seat": -1, "tile": "5p"}, "seat number"),
    ({"type": "draw", "seat": 1, "tile": "5p", "from": "wall"}, "unknown field 'from'"),
    ({"type": "ron", "seats": []}, "non-empty"),
    ({"type": "abortive_draw", "reason": "four_winds"}, "four_kans"),
    ("discard 5p", "JSON object"),
])
def test_bad_event_json(data, words):
    with pytest.raises(EventError, match=words):
        event_from_json(data)


@pytest.mark.parametrize("variant", sorted(LOGS))
def test_hand_log_json_round_trip_replays_the_same_states(variant):
    log = HandLog(variant)
    states = [log.append(e) for e in LOGS[variant]]
    text = json.dumps(log.to_json())
    again = HandLog.from_json(json.loads(text))
    assert again.events == log.events
    assert again.states() == states == replay(variant, [e.to_json() for e in LOGS[variant]])
    assert again.state == states[-1] and again.state.ending.kind == "win"
    # each state reads back from its own JSON, the table part through the plain TableState too
    for s in (states[0], states[len(states) // 2], states[-1]):
        assert PlayState.from_json(json.loads(json.dumps(s.to_json()))) == s
        assert TableState.__eq__(TableState.from_json(TableState.to_json(s)), s)


def test_hand_log_refuses_what_cannot_happen():
    log = HandLog("sanma")
    with pytest.raises(IllegalEvent) as e:
        log.append(Draw(0, "1p"))
    assert e.value.code == "NO_HAND"
    log.append(SANMA[0])
    with pytest.raises(IllegalEvent):
        log.append(Draw(1, "1p"))
    with pytest.raises(IllegalEvent) as e:
        log.append(Deal("hong-kong", ("1z",) * 4))
    assert e.value.code == "BAD_DEAL"
    assert len(log.events) == 1
    with pytest.raises(IllegalEvent) as e:
        replay("sanma", SANMA[:2] + [Draw(0, "1p")])
    assert e.value.index == 2 and e.value.code == "WRONG_PHASE" and str(e.value).startswith("event 2:")


def test_bad_deals():
    for deal, words in [
        (Deal("sanma", ("1z", "2z", "3z")), "expected 13"),
        (Deal("sanma", (SANMA[0].hands[0],) * 2), "3 hands"),
        (Deal("sanma", SANMA[0].hands, live_wall=60), "accounts for"),
        (Deal("sanma", SANMA[0].hands, options={"nonsense": 1}), "nonsense"),
        (Deal("sanma", SANMA[0].hands[:2] + ("5m" * 13,)), "5m"),
    ]:
        with pytest.raises(IllegalEvent, match=words) as e:
            apply(None, deal)
        assert e.value.code == "BAD_DEAL"
    with pytest.raises(IllegalEvent) as e:
        apply(apply(None, SANMA[0]), SANMA[0])
    assert e.value.code == "HAND_IN_PROGRESS"


def test_apply_takes_a_plain_table_state():
    s = replay("sanma", SANMA[:3])[-1]
    plain = TableState.from_json(TableState.to_json(s))
    assert type(plain) is TableState
    nxt = apply(plain, Draw(1, "6z"))
    assert nxt == apply(s, Draw(1, "6z")) and nxt.dead_wall == 14


def _checker(variant):
    def check(prev, event, new):
        if prev is not None:
            before = prev.to_json()
        assert isinstance(new, PlayState)
        TableState.from_json(TableState.to_json(new))  # a valid table state
        assert new.tile_count == tile_total(new), (event, new.tile_count)
        assert sum(len(s.hand.concealed) + 3 * len(s.hand.melds) for s in new.seats) in (
            13 * new.players, 13 * new.players + 1)
        if prev is not None:
            assert prev.to_json() == before  # apply never changes its input
    return check


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(VARIANTS), seed=st.integers(0, 2**32 - 1))
def test_random_legal_play_keeps_states_valid_and_tiles_counted(variant, seed):
    events, final = play(variant, seed, check=_checker(variant))
    assert final.ending is not None or len(events) > 300
    assert replay(variant, events)[-1] == final


@settings(max_examples=4, deadline=None)
@given(variant=st.sampled_from(VARIANTS), seed=st.integers(0, 2**32 - 1))
def test_random_play_to_a_short_wall(variant, seed):
    """Short walls reach the last tile, the last discard and the exhaustive draw quickly."""
    events, final = play(variant, seed, short_wall=6, check=_checker(variant))
    assert final.ending is not None
