"""Match keeping for Hong Kong (rotation, round wind, false win, four rounds), korean-3p (two passes of
the deal, dead hand after a false win) and 3 Kaki (winner deals, instant payouts, an evening of play
worked out by hand, open-ended and fixed-length matches)."""

from __future__ import annotations

import pytest

from assistant.match.events import MatchCreated, MatchError, event_from_json
from assistant.match.standings import standings
from assistant.match.state import MatchLog


def ev(event_type: str, /, **payload):
    return event_from_json({"type": event_type, "payload": payload})


def pay(frm: str, to: str, amount: int) -> dict:
    return {"from": frm, "to": to, "amount": amount}


def win(winner: str, discarder: str | None, *payments: tuple[str, str, int]):
    return ev("win", discarder=discarder, winners=[{"player": winner, "payments": [pay(*p) for p in payments]}])


def self_draw(winner: str, amount: int, others: tuple[str, ...]):
    return win(winner, None, *[(o, winner, amount) for o in others if o != winner])


def new(variant: str, players: tuple[str, ...], options=None) -> MatchLog:
    log = MatchLog()
    log.append(MatchCreated(variant, players, tuple(sorted((options or {}).items()))))
    return log


def scorer_or_skip(module: str):
    mod = pytest.importorskip(module)
    if not callable(getattr(mod, "score", None)):
        pytest.skip(f"{module} has no score() yet")
    return mod


HK = ("A", "B", "C", "D")


# --- Hong Kong ------------------------------------------------------------------------------------


def test_hong_kong_rotation_and_round_wind():
    log = new("hong-kong", HK)
    s = log.state
    assert (s.label, s.round_wind, s.dealer) == ("East 1", "East", 0)
    assert [s.seat_wind(p) for p in HK] == ["East", "South", "West", "North"]
    log.append(self_draw("A", 16, HK))  # dealer wins: stays
    assert log.state.label == "East 1, repeat 1"
    log.append(ev("draw"))  # drawn hand: dealer stays, nothing paid
    assert log.state.label == "East 1, repeat 2"
    log.append(win("C", "A", ("A", "C", 96)))  # non-dealer wins: deal passes to B, seats move
    s = log.state
    assert (s.label, s.players[s.dealer]) == ("East 2", "B")
    assert [s.seat_wind(p) for p in HK] == ["North", "East", "South", "West"]
    log.append(self_draw("A", 8, HK))  # → C deals
    log.append(self_draw("A", 8, HK))  # → D deals
    assert log.state.label == "East 4"
    log.append(self_draw("A", 8, HK))  # the deal returns to A: the round wind advances
    s = log.state
    assert (s.label, s.round_wind, s.players[s.dealer]) == ("South 1", "South", "A")
    # hand 1: A +48 (B, C, D −16 each); hand 3: C +96 (A −96); hands 4–6: A +24 each (B, C, D −8 each)
    # A 48 − 96 + 72 = 24; B −16 − 24 = −40; C −16 + 96 − 24 = 56; D −16 − 24 = −40
    assert s.points == (24, -40, 56, -40)
    assert sum(s.points) == 0


def test_hong_kong_game_ends_when_north_rounds_last_dealer_loses_the_deal():
    log = new("hong-kong", HK)
    for _ in range(15):  # 15 deals pass: East 1 … North 3
        dealer = log.state.players[log.state.dealer]
        winner = HK[(HK.index(dealer) + 1) % 4]
        log.append(self_draw(winner, 8, HK))
    s = log.state
    assert (s.label, s.round_wind, s.finished) == ("North 4", "North", False)
    log.append(ev("draw"))  # drawn: D stays
    assert log.state.label == "North 4, repeat 1"
    log.append(self_draw("A", 8, HK))
    s = log.state
    assert s.finished and s.end_reason == "4 rounds played"
    # every player won 4 times (+24 each) and paid 12 times (−8 each): all at 0
    assert s.points == (0, 0, 0, 0)
    assert len(s.history) == 17


def test_hong_kong_false_win_pays_three_portions_at_the_cap_and_the_deal_passes():
    log = new("hong-kong", HK)
    log.append(ev("false_win", player="C"))
    s = log.state
    # 3 portions × 384 (13 faan, half-spicy) = 1,152 to each of the three others
    assert s.points == (1152, 1152, -3456, 1152)
    assert (s.label, s.history[-1].summary) == ("East 2", "false win by C")


def test_hong_kong_false_win_options():
    log = new("hong-kong", HK, {"false_win": "1_portion_at_cap", "false_win_dealer": "stays", "ladder": "full"})
    log.append(ev("false_win", player="B"))
    # 1 portion at the cap on the full-spicy ladder: 8,192 to each other player; the dealer stays
    assert log.state.points == (8192, -24576, 8192, 8192)
    assert log.state.label == "East 1"


def test_hong_kong_has_one_winner_and_no_riichi():
    log = new("hong-kong", HK)
    with pytest.raises(MatchError, match=r"only the claimant nearest .* \(C\)"):
        log.append(ev("win", discarder="B", winners=[
            {"player": "C", "payments": [pay("B", "C", 16)]}, {"player": "D", "payments": [pay("B", "D", 16)]}]))
    with pytest.raises(MatchError, match="hong-kong has no riichi"):
        log.append(ev("riichi", player="A"))
    with pytest.raises(MatchError, match="hong-kong has no abortive draw"):
        log.append(ev("abortive_draw", reason="four_kans"))


def test_hong_kong_scored_win_uses_seat_and_round_wind():
    scorer_or_skip("assistant.scoring.hong_kong")
    log = new("hong-kong", HK)
    # H1: South (B) self-draws 123m 456m 789p 345s 2p + 2p* holding own flower 2f: 4 faan → 16 from each.
    log.append(ev("win", discarder=None, winners=[{"player": "B", "hand": {"hand": "123m456m789p345s2p2p* | 2f"}}]))
    assert log.state.points == (-16, 48, -16, -16)


# --- korean-3p --------------------------------------------------------------------------------------

K = ("A", "B", "C")


def test_korean_3p_two_passes_of_the_deal():
    log = new("korean-3p", K)
    assert log.state.label == "Pass 1, deal 1"
    log.append(self_draw("A", 5, K))  # dealer win: stays
    assert log.state.label == "Pass 1, deal 1, repeat 1"
    log.append(ev("draw"))  # draw: dealer stays (k3p.draw_dealer = stays)
    log.append(win("B", "C", ("C", "B", 12)))  # non-dealer: deal passes
    assert log.state.label == "Pass 1, deal 2"
    log.append(win("C", "A", ("A", "C", 10)))
    log.append(win("A", "B", ("B", "A", 8)))
    assert (log.state.label, log.state.round_wind) == ("Pass 2, deal 1", "East")
    log.append(win("B", "A", ("A", "B", 6)))
    log.append(win("C", "A", ("A", "C", 6)))
    assert not log.state.finished and log.state.label == "Pass 2, deal 3"
    log.append(win("A", "C", ("C", "A", 20)))  # the deal leaves the last dealer of pass 2
    s = log.state
    assert s.finished and s.end_reason == "2 passes of the deal played"
    # A: +10 − 10 + 8 − 6 − 6 + 20 = 16; B: −5 + 12 − 8 + 6 = 5; C: −5 − 12 + 10 + 6 − 20 = −21
    assert s.points == (16, 5, -21)
    assert [(x.rank, x.player, x.score) for x in standings(s)] == [(1, "A", 16), (2, "B", 5), (3, "C", -21)]


def test_korean_3p_false_win_pays_20_each_and_the_hand_goes_on_dead():
    log = new("korean-3p", K)
    log.append(ev("false_win", player="B"))
    s = log.state
    assert s.points == (20, -40, 20)
    assert s.label == "Pass 1, deal 1" and s.history == ()  # the hand is not over
    with pytest.raises(MatchError, match="B's hand is dead after a false win this hand"):
        log.append(win("B", "A", ("A", "B", 10)))
    log.append(win("C", "A", ("A", "C", 10)))
    s = log.state
    assert s.points == (10, -40, 30)
    assert s.history[0].deltas == (10, -40, 30)  # the penalty is in that hand's row
    log.append(win("B", "A", ("A", "B", 10)))  # a new hand: B may win again
    assert s.points != log.state.points


def test_korean_3p_both_winners_option():
    log = new("korean-3p", K, {"multi_win": "both"})
    log.append(ev("win", discarder="A", winners=[
        {"player": "B", "payments": [pay("A", "B", 6)]}, {"player": "C", "payments": [pay("A", "C", 8)]}]))
    assert log.state.points == (-14, 6, 8)
    assert log.state.label == "Pass 1, deal 2"


# --- 3 Kaki -----------------------------------------------------------------------------------------

T = ("P", "Q", "R")


def test_three_kaki_evening_worked_by_hand():
    pytest.importorskip("assistant.scoring.three_kaki")
    log = new("three-kaki", T)  # open-ended (kaki hands = 0)
    # Hand 1 (P deals): Q declares a concealed kong: P and R pay 2 each at once (instant payout).
    log.append(ev("payout", kind="concealed_kong", player="Q"))
    assert log.state.points == (-2, 4, -2)
    # Q self-draws, V(6) = 10 from each (entered by hand). Hand: P −12, Q +24, R −12.
    log.append(self_draw("Q", 10, T))
    s = log.state
    assert s.points == (-12, 24, -12)
    assert s.history[-1].deltas == (-12, 24, -12)
    assert (s.label, s.players[s.dealer]) == ("Hand 2", "Q")  # the winner deals
    assert [s.seat_wind(p) for p in T] == ["West", "East", "South"]
    # Hand 2 (Q deals): drawn; the dealer stays.
    log.append(ev("draw"))
    assert (log.state.label, log.state.players[log.state.dealer]) == ("Hand 3", "Q")
    # Hand 3: R wins on P's discard, V(7) = 12: P pays 12, Q 6; square up: P pays Q 1.
    log.append(win("R", "P", ("P", "R", 12), ("Q", "R", 6), ("P", "Q", 1)))
    assert log.state.points == (-25, 19, 6)  # P −13, Q −5, R +18
    # Hand 4 (R deals): P declares a false win: 24 to each opponent; replayed by the same dealer.
    log.append(ev("false_win", player="P"))
    s = log.state
    assert s.points == (-73, 43, 30)
    assert (s.label, s.players[s.dealer]) == ("Hand 4", "R")
    # Hand 4 replayed: P completes a family (Q, R pay 2 each), P kongs Q's discard (exposed: 1 each),
    # then P self-draws a limit hand: 24 from each. P +4 +2 +48 = +54; Q and R −2 −1 −24 = −27.
    log.append(ev("payout", kind="complete_family", player="P"))
    log.append(ev("payout", kind="exposed_kong", player="P", discarder="Q"))
    log.append(self_draw("P", 24, T))
    s = log.state
    assert s.points == (-19, 16, 3)
    assert s.history[-1].deltas == (54, -27, -27)
    assert [h.label for h in s.history] == ["Hand 1", "Hand 2", "Hand 3", "Hand 4", "Hand 4"]
    assert not s.finished
    log.append(ev("match_end", reason="closing time"))
    s = log.state
    assert s.finished and s.end_reason == "closing time"
    assert [(x.rank, x.player, x.score) for x in standings(s)] == [(1, "Q", 16), (2, "R", 3), (3, "P", -19)]


def test_three_kaki_scored_wins_t1_then_t3():
    scorer_or_skip("assistant.scoring.three_kaki")
    log = new("three-kaki", T)
    # T1: South (Q) self-draws the seed's Fei hand; East (P) shows [111z] with 1f 2g; West (R) holds a Fei
    # and 3h 3g. Win 8 + 8, extra Fei P → Q 2, square up P → R 1: Q +18, P −11, R −7.
    log.append(ev("win", discarder=None, winners=[{"player": "Q", "hand": {
        "hand": "123p456p789p77z jk 5p5p* | 1a2h4f",
        "others": {"P": {"melds": ["[111z]"], "bonus": "1f2g"}, "R": {"fei": 1, "bonus": "3h3g"}},
    }}]))
    assert log.state.points == (-11, 18, -7)
    assert log.state.players[log.state.dealer] == "Q"
    # T3 in the next hand: now R sits South. R never drew a bonus tile: limit, 24 from each; square up:
    # East (Q, dealer) shows [111z] (2) and 1f (1) = 3, West (P) 3g = 1 → P pays Q 2.
    # R +48, Q −24 + 2 = −22, P −24 − 2 = −26.
    log.append(ev("win", discarder=None, winners=[{"player": "R", "hand": {
        "hand": "111p234p567p555z9p9p*",
        "others": {"Q": {"melds": ["[111z]"], "bonus": "1f"}, "P": {"bonus": "3g"}},
    }}]))
    assert log.state.points == (-11 - 26, 18 - 22, -7 + 48)


def test_three_kaki_fixed_number_of_hands():
    log = new("three-kaki", T, {"hands": 3})
    log.append(self_draw("Q", 8, T))
    log.append(ev("false_win", player="R"))  # a replayed hand does not count
    log.append(ev("draw"))
    assert not log.state.finished
    log.append(self_draw("P", 8, T))
    s = log.state
    # Q: +16 + 24 − 8 = 32; P: −8 + 24 + 16 = 32; R: −8 − 48 − 8 = −64
    assert s.points == (32, 32, -64)
    assert s.finished and s.end_reason == "3 hands played"


def test_three_kaki_draw_dealer_passes_option_and_nearest_winner_deals():
    log = new("three-kaki", T, {"draw_dealer": "passes", "multi_win": "both"})
    log.append(ev("draw"))
    assert log.state.players[log.state.dealer] == "Q"
    log.append(ev("win", discarder="Q", winners=[
        {"player": "P", "payments": [pay("Q", "P", 8)]}, {"player": "R", "payments": [pay("Q", "R", 8)]}]))
    assert log.state.players[log.state.dealer] == "R"  # after Q comes R: the nearest winner deals


def test_three_kaki_payout_errors_leave_the_state():
    pytest.importorskip("assistant.scoring.three_kaki")
    log = new("three-kaki", T)
    before = log.state
    with pytest.raises(MatchError, match="unknown instant event"):
        log.append(ev("payout", kind="dragon_dance", player="Q"))
    with pytest.raises(MatchError, match="unknown player 'Z'"):
        log.append(ev("payout", kind="other", player="Q", payments=[pay("Z", "Q", 1)]))
    assert log.state is before
    log.append(ev("payout", kind="bite_pair", player="Q", payments=[pay("P", "Q", 1), pay("R", "Q", 1)]))
    assert log.state.points == (-1, 2, -1)
    with pytest.raises(MatchError, match="sanma has no instant payouts"):
        MatchLog([*new("sanma", T).records]).append(ev("payout", kind="concealed_kong", player="Q"))
