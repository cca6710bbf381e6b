"""Sanma match keeping: a full hanchan worked out by hand, double ron, honba, tsumo loss, noten
payments (sanma.md §13 E7), standings (E9), match end (bust, agariyame, extension), chombo, and wins
scored from hands (E1, E2, E5) when the sanma scorer is there."""

from __future__ import annotations

import pytest

from assistant.match.events import MatchCreated, MatchError, event_from_json
from assistant.match.rules import match_options
from assistant.match.standings import standings
from assistant.match.state import MatchLog, MatchState


def ev(event_type: str, /, **payload):
    return event_from_json({"type": event_type, "payload": payload})


def pay(frm: str, to: str, amount: int) -> dict:
    return {"from": frm, "to": to, "amount": amount}


def ron(winner: str, discarder: str, amount: int):
    return ev("win", discarder=discarder, winners=[{"player": winner, "payments": [pay(discarder, winner, amount)]}])


def tsumo(winner: str, **payers: int):
    return ev("win", discarder=None,
              winners=[{"player": winner, "payments": [pay(p, winner, a) for p, a in payers.items()]}])


def draw(*tenpai: str, nagashi: tuple[str, ...] = ()):
    return ev("draw", tenpai=list(tenpai), nagashi=list(nagashi))


def match(*events, options=None) -> MatchLog:
    log = MatchLog()
    log.append(MatchCreated("sanma", ("A", "B", "C"), tuple(sorted((options or {}).items()))))
    for e in events:
        log.append(e)
    return log


def scorer_or_skip(module: str):
    mod = pytest.importorskip(module)
    if not callable(getattr(mod, "score", None)):
        pytest.skip(f"{module} has no score() yet")
    return mod


# --- a whole hanchan ------------------------------------------------------------------------------


def test_full_hanchan_worked_by_hand():
    log = match()
    # Hand 1, East 1 (A deals): B riichi (B 34,000, 1 stick). A (dealer) rons C for 5,800 and takes the stick.
    log.append(ev("riichi", player="B"))
    log.append(ron("A", "C", 5800))
    s = log.state
    assert s.points == (41800, 34000, 29200)  # A 35,000 + 5,800 + 1,000; C 35,000 − 5,800
    assert (s.label, s.sticks) == ("East 1, 1 honba", 0)  # dealer win: renchan, honba 1
    # Hand 2, East 1, 1 honba: draw, A and B tenpai, C noten pays 1,000 to each. Dealer tenpai keeps.
    log.append(draw("A", "B"))
    assert log.state.points == (42800, 35000, 27200)
    assert log.state.label == "East 1, 2 honba"
    # Hand 3: B tsumo 1 han 30 fu = 500 (dealer A) / 300 (C), tsumo loss; 2 honba = +1,000 from each payer.
    log.append(tsumo("B", A=500, C=300))
    assert log.state.points == (41300, 37800, 25900)  # A −1,500, B +2,800, C −1,300
    assert log.state.label == "East 2"  # non-dealer win: deal passes, honba back to 0
    # Hand 4, East 2 (B deals): draw, nobody tenpai: no payments; dealer noten → deal passes, honba +1.
    log.append(draw())
    assert log.state.points == (41300, 37800, 25900)
    assert log.state.label == "East 3, 1 honba"
    # Hand 5, East 3, 1 honba (C deals): A and B riichi (A 40,300, B 36,800, 2 sticks); C's discard is
    # ronned by both (double ron). Nearest after C is A: A gets 3,900 + 1,000 honba + 2,000 sticks;
    # B gets 2,000 only. C pays 3,900 + 1,000 + 2,000 = 6,900.
    log.append(ev("riichi", player="A"))
    log.append(ev("riichi", player="B"))
    log.append(ev("win", discarder="C", winners=[
        {"player": "B", "payments": [pay("C", "B", 2000)]},
        {"player": "A", "payments": [pay("C", "A", 3900)]},
    ]))
    s = log.state
    assert s.points == (47200, 38800, 19000)  # 40,300 + 6,900; 36,800 + 2,000; 25,900 − 6,900
    assert s.history[-1].deltas == (5900, 1000, -6900)  # the riichi sticks are part of the hand's row
    assert (s.label, s.round_wind, s.sticks) == ("South 1", "South", 0)  # the deal came back to A
    # Hand 6, South 1 (A deals): C rons A for a mangan, 8,000.
    log.append(ron("C", "A", 8000))
    assert log.state.points == (39200, 38800, 27000)
    # Hand 7, South 2 (B deals): B tsumo, dealer 2 han 30 fu = 1,000 each.
    log.append(tsumo("B", A=1000, C=1000))
    assert log.state.points == (38200, 40800, 26000)
    assert log.state.label == "South 2, 1 honba"
    # Hand 8: abortive draw (nine terminals): nothing paid, dealer keeps, honba +1.
    log.append(ev("abortive_draw", reason="nine_terminals"))
    assert log.state.label == "South 2, 2 honba"
    # Hand 9: C chombo: reversed mangan, non-dealer: 4,000 to the dealer B and 2,000 to A; replayed.
    log.append(ev("false_win", player="C"))
    assert log.state.points == (40200, 44800, 20000)
    assert log.state.label == "South 2, 2 honba"
    # Hand 10 (the replay): A rons B for 2,000 + 2 honba × 1,000 = 4,000.
    log.append(ron("A", "B", 2000))
    assert log.state.points == (44200, 40800, 20000)
    assert log.state.label == "South 3"  # all last
    # Hand 11, South 3 (C deals): C rons A for a dealer mangan, 12,000. Dealer win: renchan (C is not first).
    log.append(ron("C", "A", 12000))
    assert log.state.points == (32200, 40800, 32000)
    assert (log.state.label, log.state.finished) == ("South 3, 1 honba", False)
    # Hand 12: B riichi (39,800, 1 stick); draw with only B tenpai: A and C pay 1,000 each to B.
    log.append(ev("riichi", player="B"))
    log.append(draw("B"))
    s = log.state
    # Dealer C noten: the deal passes after all last and B has 41,800 ≥ 40,000: the match ends.
    assert s.points == (31200, 41800, 31000)
    assert s.finished and s.end_reason == "last hand played"
    assert s.sticks == 1
    assert len(s.history) == 12
    assert sum(s.points) + 1000 * s.sticks == 105000
    # Standings: the leftover stick goes to first place B: 42,800.
    # B (42,800 − 40,000)/1,000 = 2.8 + 15 oka + 15 uma = 32.8; A −8.8 + 0; C −9.0 − 15 = −24.0 (sum 0).
    table = [(x.rank, x.player, x.points, x.score) for x in standings(s)]
    assert table == [(1, "B", 42800, 32.8), (2, "A", 31200, -8.8), (3, "C", 31000, -24.0)]
    with pytest.raises(MatchError, match="the match is over"):
        log.append(draw())


# --- §9.3 double ron, honba, sticks ---------------------------------------------------------------


def test_double_ron_honba_and_sticks_to_the_nearest_winner_only():
    # East 1 dealer A; one draw with everyone tenpai → 1 honba, no payments.
    log = match(draw("A", "B", "C"), ev("riichi", player="C"))
    # A discards; B and C ron. Nearest after A is B: B gets honba 1,000 and the stick.
    log.append(ev("win", discarder="A", winners=[
        {"player": "C", "payments": [pay("A", "C", 8000)]},
        {"player": "B", "payments": [pay("A", "B", 1000)]},
    ]))
    s = log.state
    # A: −8,000 − 1,000 − 1,000 = −10,000; B: +1,000 + 1,000 + 1,000 stick; C: −1,000 stick + 8,000
    assert s.points == (25000, 38000, 42000)
    assert s.history[-1].summary == "B (+3,000) and C (+8,000) win on A's discard"
    assert s.label == "East 2"  # the dealer did not win: deal passes, honba 0


def test_double_ron_with_honba_to_each_winner_option():
    log = match(draw("A", "B", "C"), options={"honba_to_each_winner": True})
    log.append(ev("win", discarder="A", winners=[
        {"player": "C", "payments": [pay("A", "C", 8000)]},
        {"player": "B", "payments": [pay("A", "B", 1000)]},
    ]))
    # each winner gets the 1 honba (1,000): A pays 8,000 + 1,000 + 1,000 + 1,000
    assert log.state.points == (24000, 37000, 44000)


def test_head_bump_rejects_the_second_winner_and_leaves_the_state():
    log = match(options={"multi_ron": "head_bump"})
    before = log.state
    with pytest.raises(MatchError, match=r"only the claimant nearest .* \(B\)"):
        log.append(ev("win", discarder="A", winners=[
            {"player": "C", "payments": [pay("A", "C", 8000)]},
            {"player": "B", "payments": [pay("A", "B", 1000)]},
        ]))
    assert log.state is before and len(log.records) == 1


def test_dealer_among_double_ron_winners_keeps_the_deal():
    log = match()
    log.append(ev("win", discarder="B", winners=[
        {"player": "A", "payments": [pay("B", "A", 2900)]},
        {"player": "C", "payments": [pay("B", "C", 2000)]},
    ]))
    assert log.state.label == "East 1, 1 honba"


def test_honba_piles_up_over_dealer_repeats():
    # A (dealer) wins three times in a row; honba 1, 2, 3; the honba bonus is paid each time.
    log = match(ron("A", "B", 2900))  # 0 honba: B pays 2,900
    assert log.state.label == "East 1, 1 honba"
    log.append(tsumo("A", B=1000, C=1000))  # + 1 honba × 500 from each payer: B 1,500, C 1,500
    assert log.state.label == "East 1, 2 honba"
    log.append(draw("A"))  # A alone tenpai: B and C pay 1,000 each; dealer keeps, honba 3
    assert log.state.label == "East 1, 3 honba"
    log.append(ron("A", "C", 1500))  # + 3 honba × 1,000 = 4,500 from C
    s = log.state
    # A: 35,000 + 2,900 + 3,000 + 2,000 + 4,500 = 47,400
    # B: 35,000 − 2,900 − 1,500 − 1,000 = 29,600;  C: 35,000 − 1,500 − 1,000 − 4,500 = 28,000
    assert s.points == (47400, 29600, 28000)
    assert s.label == "East 1, 4 honba"
    assert [h.label for h in s.history] == ["East 1", "East 1, 1 honba", "East 1, 2 honba", "East 1, 3 honba"]


def test_tsumo_loss_is_what_the_two_payers_pay():
    # South (B) tsumo 1 han 30 fu (sanma E1): dealer 500, West 300; the North share is paid by nobody.
    log = match(tsumo("B", A=500, C=300))
    assert log.state.points == (34500, 35800, 34700)
    assert sum(log.state.points) == 105000


def test_noten_payments_e7():
    # Draw with everyone tenpai first → 1 honba, no payments. Then E7: East (A) and South (B) tenpai,
    # West (C) noten: C pays 1,000 to A and 1,000 to B; A keeps the deal with 2 honba.
    log = match(draw("A", "B", "C"))
    assert (log.state.points, log.state.label) == ((35000, 35000, 35000), "East 1, 1 honba")
    log.append(draw("A", "B"))
    s = log.state
    assert s.points == (36000, 36000, 33000)
    assert s.label == "East 1, 2 honba"
    assert [(t.payer, t.receiver, t.amount) for t in s.history[-1].transfers] == [(2, 0, 1000), (2, 1, 1000)]


def test_noten_payment_one_tenpai_and_dealer_noten_passes():
    log = match(draw("C"))  # A and B noten pay 1,000 each to C; A noten: deal passes, honba 1
    assert log.state.points == (34000, 34000, 37000)
    assert log.state.label == "East 2, 1 honba"


def test_nagashi_mangan_paid_as_mangan_tsumo_with_tsumo_loss():
    log = match(ev("riichi", player="A"), draw("A", nagashi=("C",)))
    # C (West, non-dealer) nagashi: dealer A pays 4,000, B pays 2,000; no noten payments; the stick stays.
    s = log.state
    assert s.points == (30000, 33000, 41000)
    assert s.sticks == 1
    assert s.label == "East 1, 1 honba"  # A tenpai: keeps
    with pytest.raises(MatchError, match="nagashi mangan is not played"):
        match(draw(nagashi=("C",)), options={"nagashi": False})


def test_riichi_player_must_be_tenpai_at_a_draw():
    log = match(ev("riichi", player="B"))
    with pytest.raises(MatchError, match="B declared riichi this hand and must be tenpai"):
        log.append(draw("A"))


def test_riichi_needs_1000_points_and_once_per_hand():
    log = match(ron("A", "C", 34500))  # C has 500 left
    with pytest.raises(MatchError, match="C has 500 points; riichi needs at least 1,000"):
        log.append(ev("riichi", player="C"))
    log.append(ev("riichi", player="B"))
    with pytest.raises(MatchError, match="B has already declared riichi this hand"):
        log.append(ev("riichi", player="B"))


# --- chombo -------------------------------------------------------------------------------------


def test_dealer_chombo_pays_4000_each_and_riichi_sticks_go_back():
    log = match(ev("riichi", player="B"), ev("false_win", player="A"))
    s = log.state
    # A (dealer) pays 4,000 to B and C; B's stick of the void hand comes back.
    assert s.points == (27000, 39000, 39000)
    assert (s.sticks, s.label) == (0, "East 1")
    assert s.history[-1].summary == "chombo by A"


def test_fixed_chombo_option_takes_20000_from_the_offender_only():
    log = match(ev("false_win", player="B"), options={"chombo": "fixed"})
    assert log.state.points == (35000, 15000, 35000)


# --- match end ------------------------------------------------------------------------------------


def test_final_standings_e9():
    s = MatchState("sanma", ("A", "B", "C"), match_options("sanma"), (52000, 38000, 15000), finished=True)
    # A: +12 + 15 (oka) + 15 (uma) = +42.0; B: −2 + 0 = −2.0; C: −25 − 15 = −40.0
    assert [(x.player, x.score, x.uma, x.oka) for x in standings(s)] == [
        ("A", 42.0, 15, 15.0), ("B", -2.0, 0, 0), ("C", -40.0, -15, 0)]


def test_standings_ties_by_initial_seat_and_integer_rounding():
    opts = match_options("sanma", {"final_rounding": "integer", "uma": 20})
    s = MatchState("sanma", ("A", "B", "C"), opts, (32500, 40000, 32500), finished=True)
    # B first: 0 + 15 + 20 = 35; A (initial East) ranks before C on the tie:
    # A: −7.5 → −8 (half away from zero) + 0 = −8; C: −7.5 → −8 − 20 = −28; B takes the rest: 36.
    assert [(x.rank, x.player, x.score) for x in standings(s)] == [(1, "B", 36), (2, "A", -8), (3, "C", -28)]


def test_bust_ends_the_match_at_once():
    log = match(ron("A", "C", 36000))
    s = log.state
    assert s.points == (71000, 35000, -1000)
    assert s.finished and s.end_reason == "bust"


def test_bust_at_zero_option():
    assert not match(ron("A", "C", 35000)).state.finished  # C at exactly 0 is not below 0
    assert match(ron("A", "C", 35000), options={"bust": "at_or_below_zero"}).state.end_reason == "bust"
    assert not match(ron("A", "C", 36000), options={"bust": "off"}).state.finished


def test_agariyame_dealer_in_sole_first_ends_all_last():
    # East-only: B rons A (East 1 → East 2), C rons A (East 2 → East 3, all last).
    log = match(ron("B", "A", 3900), ron("C", "A", 8000), options={"length": "east"})
    assert log.state.label == "East 3"
    log.append(tsumo("C", A=2000, B=2000))
    s = log.state  # C: 35,000 + 8,000 + 4,000 = 47,000, sole first, dealer won: match over
    assert s.points == (21100, 36900, 47000)
    assert s.finished and s.end_reason == "all-last stop (agariyame)"


def test_without_agariyame_the_dealer_plays_on():
    log = match(ron("B", "A", 3900), ron("C", "A", 8000), tsumo("C", A=2000, B=2000),
                options={"length": "east", "agariyame": False})
    assert not log.state.finished and log.state.label == "East 3, 1 honba"


def test_extension_when_nobody_reaches_the_return_points():
    # East-only; three hands pass the deal with nobody at 40,000 → extension into South.
    log = match(ron("B", "A", 1000), ron("C", "B", 1000), ron("A", "C", 1000), options={"length": "east"})
    s = log.state
    assert s.points == (35000, 35000, 35000)
    assert not s.finished and s.label == "South 1"
    # The first hand in which someone reaches 40,000 ends the extension, even on a renchan.
    log.append(ron("A", "B", 5800))
    assert log.state.finished and log.state.end_reason == "extension: someone reached 40,000"


def test_extension_ends_after_its_third_hand_at_the_latest():
    log = match(*[ron(w, d, 1000) for w, d in (("B", "A"), ("C", "B"), ("A", "C"))] * 2,
                options={"length": "east"})
    s = log.state
    assert s.finished and s.end_reason == "end of the extension round"
    assert [h.label for h in s.history][-3:] == ["South 1", "South 2", "South 3"]


# --- scored from hands (needs the sanma scorer) ---------------------------------------------------


def test_scored_tsumo_loss_e1():
    scorer_or_skip("assistant.scoring.sanma")
    log = match(ev("win", discarder=None, winners=[{"player": "B", "hand": {"hand": "111m234p678p34s99s5s*"}}]))
    # South (B): menzen tsumo 1 han 30 fu → dealer A pays 500, West C pays 300.
    assert log.state.points == (34500, 35800, 34700)


def test_scored_dealer_tsumo_with_honba_and_own_stick_e2():
    scorer_or_skip("assistant.scoring.sanma")
    log = match(draw("A", "B", "C"), ev("riichi", player="A"))
    log.append(ev("win", discarder=None, winners=[{"player": "A", "hand": {"hand": "234p567p99p234s67s8s*"}}]))
    # riichi, tsumo, pinfu 3 han 20 fu: 1,300 each + 500 honba each; A takes its stick back.
    # A: 35,000 − 1,000 + 3,600 + 1,000 = 38,600; B and C: 35,000 − 1,800 = 33,200
    assert log.state.points == (38600, 33200, 33200)
    assert log.state.label == "East 1, 2 honba"


def test_scored_ron_with_honba_and_two_sticks_e5():
    scorer_or_skip("assistant.scoring.sanma")
    # Hand 1: A riichi, draw with A alone tenpai (B and C pay 1,000 each) → 1 honba, the stick stays.
    # Hand 2: draw, all tenpai → 2 honba. Hand 3: C (West) riichi and rons B's 3s.
    log = match(ev("riichi", player="A"), draw("A"), draw("A", "B", "C"), ev("riichi", player="C"))
    log.append(ev("win", discarder="B", winners=[{"player": "C", "hand": {
        "hand": "234p555p678s24s88s3s*", "dora_indicators": "1s"}}]))
    # riichi + tanyao + dora 1 = 3 han 40 fu = 5,200 + 2 × 1,000 honba = 7,200 from B; C takes 2 sticks.
    # A: 35,000 − 1,000 + 2,000 = 36,000; B: 35,000 − 1,000 − 7,200 = 26,800; C: 35,000 − 1,000 − 1,000 + 9,200
    assert log.state.points == (36000, 26800, 42200)
    assert log.state.sticks == 0


def test_scored_hand_must_agree_with_the_recorded_riichi():
    scorer_or_skip("assistant.scoring.sanma")
    log = match()
    with pytest.raises(MatchError, match="B has no riichi recorded this hand"):
        log.append(ev("win", discarder=None, winners=[
            {"player": "B", "hand": {"hand": "111m234p678p34s99s5s*", "riichi": True}}]))


def test_scored_illegal_win_is_rejected_with_the_verdict():
    scorer_or_skip("assistant.scoring.sanma")
    log = match()
    before = log.state
    # E3 without riichi, by ron: nukidora is not a yaku → not a legal win
    with pytest.raises(MatchError, match="A's hand cannot win"):
        log.append(ev("win", discarder="C", winners=[
            {"player": "A", "hand": {"hand": "111m234p567p23s55s4s*", "kita": 2}}]))
    assert log.state is before
