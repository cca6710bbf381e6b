"""Recording played hands into the match log (assistant.match.inhand)."""

import pytest
from test_play_hong_kong import H2
from test_play_korean_3p import K1
from test_play_log import SANMA
from test_play_sanma import E as FILL_E
from test_play_sanma import deal as sanma_deal
from test_play_sanma import go_around
from test_play_three_kaki import T1

from assistant.match import MatchCreated, MatchError, MatchLog
from assistant.match.events import Draw as MatchDraw
from assistant.match.events import Riichi as MatchRiichi
from assistant.match.events import Win as MatchWin
from assistant.match.inhand import match_events, record_hand
from assistant.play import Discard, Draw, ExhaustiveDraw, HandLog, Ron, Tsumo, replay


def new_match(variant, players):
    log = MatchLog()
    log.append(MatchCreated(variant, players))
    return log


def test_sanma_hand_played_through_apply_is_recorded():
    log = new_match("sanma", ("A", "B", "C"))
    hand = HandLog("sanma", SANMA)
    events = match_events(hand, log.state)
    assert [e.type for e in events] == ["win"]
    win = events[0]
    assert win.discarder is None and win.winners[0].player == "B"
    assert win.winners[0].hand.hand == "111m234678p3499s 5s*" and win.winners[0].hand.dora_indicators == "5z"
    state = record_hand(log, hand)
    assert state.points == (34500, 35800, 34700) == tuple(s.points for s in hand.state.seats)
    assert state.history[0].kind == "win" and state.label == "East 2"


def test_draw_then_riichi_win_with_honba():
    log = new_match("sanma", ("A", "B", "C"))
    east = "234p567p99p234s67s"
    drawn = [sanma_deal(east=east, south=FILL_E, live_wall=3, dead_wall=108 - 39 - 3, dora_indicators="6z"),
             *go_around((0, "5p"), (1, "6s"), (2, "2p")), ExhaustiveDraw()]
    events = match_events(drawn, log.state)
    assert events == [MatchDraw(("A",), ())]
    state = record_hand(log, drawn)
    assert state.points == (37000, 34000, 34000) and state.honba == 1 and state.dealer == 0
    won = [sanma_deal(east=east, south=FILL_E, dora_indicators="6z", honba=1, points=state.points),
           *go_around((0, "1m"), (1, "9m"), (2, "4z")), Draw(0, "5z"), Discard(0, "5z", riichi=True),
           *go_around((1, "6z"), (2, "7z"), (0, "1m"), (1, "9m"), (2, "4z")), Draw(0, "8s"), Tsumo(0)]
    final = replay("sanma", won)[-1]
    events = match_events(won, log.state)
    assert [e.type for e in events] == ["riichi", "win"] and events[0] == MatchRiichi("A")
    state = record_hand(log, won)
    assert state.points == (40600, 32200, 32200) == tuple(s.points for s in final.seats)
    assert state.sticks == 0 and state.honba == 2


def test_double_ron_recorded_nearest_first():
    log = new_match("sanma", ("A", "B", "C"))
    hand = [sanma_deal(south="234p678p234s34s55p", west="678p678s345s22p46s", dora_indicators="7z"),
            Draw(0, "5s"), Discard(0, "5s"), Ron((2, 1))]
    (win,) = match_events(hand, log.state)
    assert isinstance(win, MatchWin) and win.discarder == "A" and [w.player for w in win.winners] == ["B", "C"]
    state = record_hand(log, hand)
    final = replay("sanma", hand)[-1]
    assert state.points == tuple(s.points for s in final.seats) == (31000, 37000, 37000)


def test_a_hand_that_does_not_fit_the_match_is_refused():
    log = new_match("sanma", ("A", "B", "C"))
    with pytest.raises(MatchError, match="honba"):
        match_events([sanma_deal(honba=1)] + SANMA[1:], log.state)
    with pytest.raises(MatchError, match="not ended"):
        match_events(SANMA[:-1], log.state)
    with pytest.raises(MatchError, match="seats"):
        match_events([sanma_deal(names=("B", "A", "C"))] + SANMA[1:], log.state)
    with pytest.raises(MatchError, match="hong-kong"):
        match_events(H2, log.state)
    assert len(log.records) == 1


@pytest.mark.parametrize("variant,events,players", [
    ("hong-kong", H2, ("A", "B", "C", "D")),
    ("korean-3p", K1, ("A", "B", "C")),
    ("three-kaki", T1, ("A", "B", "C")),
])
def test_other_rule_systems_record_the_same_payments(variant, events, players):
    log = new_match(variant, players)
    if variant == "hong-kong":  # H2 is played in the South round: four non-dealer wins pass the deal round
        for _ in players:
            log.append(_south_wins(log))
        assert log.state.label == "South 1"
    final = replay(variant, events)[-1]
    before = log.state.points
    state = record_hand(log, events)
    delta = tuple(a - b for a, b in zip(state.points, before, strict=True))
    assert delta == tuple(final.ending.net(len(players)))


def _south_wins(log):
    """A South win entered by hand, so that the deal passes (Hong Kong)."""
    from assistant.match.events import PaymentEntry, WinClaim

    state = log.state
    south, east = state.player_at(1), state.player_at(0)
    return MatchWin((WinClaim(south, payments=(PaymentEntry(east, south, 8),)),), east)
