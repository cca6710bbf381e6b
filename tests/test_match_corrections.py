"""Undo and edit: appended corrections; a middle hand edited and everything after it recomputed."""

from __future__ import annotations

import pytest

from assistant.match.events import Edit, MatchCreated, MatchError, Undo, event_from_json
from assistant.match.state import MatchLog, effective_events, fold, last_undoable


def ev(event_type: str, /, **payload):
    return event_from_json({"type": event_type, "payload": payload})


def pay(frm: str, to: str, amount: int) -> dict:
    return {"from": frm, "to": to, "amount": amount}


def five_events() -> MatchLog:
    """Sanma A, B, C (A deals East 1):

    2 draw, A tenpai: B and C pay 1,000 to A → A 37,000, B 34,000, C 34,000; A keeps, 1 honba
    3 riichi B → B 33,000, 1 stick
    4 B rons C for 3,900 + 1,000 honba + 1,000 stick → B 38,900, C 29,100; East 2 (B deals), 0 honba
    5 C tsumo: B (dealer) 2,000, A 1,000 → A 36,000, B 36,900, C 32,100; East 3
    """
    log = MatchLog()
    log.append(MatchCreated("sanma", ("A", "B", "C")))
    log.append(ev("draw", tenpai=["A"]))
    log.append(ev("riichi", player="B"))
    log.append(ev("win", discarder="C", winners=[{"player": "B", "payments": [pay("C", "B", 3900)]}]))
    log.append(ev("win", discarder=None,
                  winners=[{"player": "C", "payments": [pay("B", "C", 2000), pay("A", "C", 1000)]}]))
    return log


def test_the_log_before_corrections():
    s = five_events().state
    assert s.points == (36000, 36900, 32100)
    assert s.label == "East 3"


def test_edit_a_middle_hand_recomputes_everything_after_it():
    log = five_events()
    log.append(Edit(2, ev("draw", tenpai=["B"])))
    s = log.state
    # 2' draw, B alone tenpai: A and C pay 1,000 to B → A 34,000, B 37,000, C 34,000; dealer A noten:
    #    the deal passes to B with 1 honba (East 2, 1 honba)
    # 3  riichi B → B 36,000
    # 4  B (now the dealer) rons C: 3,900 + 1,000 honba + 1,000 stick → B 41,900, C 29,100; renchan, 2 honba
    # 5  C tsumo: B 2,000 + 2 × 500 honba, A 1,000 + 2 × 500 → A 32,000, B 38,900, C 34,100; East 3
    assert s.points == (32000, 38900, 34100)
    assert s.label == "East 3"
    assert [h.label for h in s.history] == ["East 1", "East 2, 1 honba", "East 2, 2 honba"]
    assert [h.totals for h in s.history] == [(34000, 37000, 34000), (34000, 41900, 29100), (32000, 38900, 34100)]
    assert s.history[1].events == (3, 4)  # riichi and win of that hand
    assert len(log.records) == 6  # nothing was rewritten: the edit is appended
    assert log.records[1].event == ev("draw", tenpai=["A"])


def test_undo_a_win_then_undo_the_undo():
    log = five_events()
    log.append(Undo(5))
    s = log.state
    assert s.points == (37000, 38900, 29100)
    assert s.label == "East 2"
    log.append(Undo(6))  # undoing the undo brings event 5 back
    assert log.state.points == (36000, 36900, 32100)
    assert log.state.label == "East 3"


def test_undo_of_an_edit_restores_the_original():
    log = five_events()
    log.append(Edit(2, ev("draw", tenpai=["B"])))
    log.append(Undo(6))
    assert log.state.points == (36000, 36900, 32100)


def test_latest_edit_wins_and_effective_events():
    log = five_events()
    log.append(Edit(4, ev("win", discarder="C", winners=[{"player": "B", "payments": [pay("C", "B", 1000)]}])))
    log.append(Edit(4, ev("win", discarder="C", winners=[{"player": "B", "payments": [pay("C", "B", 2000)]}])))
    eff = dict(effective_events(log.records))
    assert eff[4].winners[0].payments[0].amount == 2000
    assert sorted(eff) == [1, 2, 3, 4, 5]
    # with 2,000 instead of 3,900: B 38,900 − 1,900 = 37,000 and C 29,100 + 1,900 = 31,000 before event 5
    assert log.state.points == (36000, 35000, 34000)


def test_undo_default_target_is_the_latest_event_in_force():
    log = five_events()
    assert last_undoable(log.records) == 5
    log.append(Undo(5))
    assert last_undoable(log.records) == 4


def test_rejected_corrections_are_not_written():
    log = five_events()
    before = log.state
    with pytest.raises(MatchError, match="cannot undo event 1 \\(match_created\\)"):
        log.append(Undo(1))
    with pytest.raises(MatchError, match="there is no such event"):
        log.append(Undo(9))
    log.append(Undo(3))
    with pytest.raises(MatchError, match="cannot undo event 3: it is already undone"):
        log.append(Undo(3))
    with pytest.raises(MatchError, match="cannot edit event 6 \\(undo\\)"):
        log.append(Edit(6, ev("draw")))
    assert len(log.records) == 6
    assert before.points == (36000, 36900, 32100)


def test_an_edit_that_breaks_a_later_event_is_rejected_and_names_it():
    log = five_events()
    before = log.state
    # a 40,000 ron by A from C busts C (−5,000): the match would end, and event 3 could not follow
    with pytest.raises(MatchError, match=r"edit of event 2 rejected: event 3 \(riichi\): the match is over \(bust\)"):
        log.append(Edit(2, ev("win", discarder="C", winners=[{"player": "A", "payments": [pay("C", "A", 40000)]}])))
    assert log.state is before and len(log.records) == 5


def test_undo_of_a_riichi_takes_its_stick_out_of_the_later_win():
    log = five_events()
    log.append(Undo(3))
    s = log.state
    # without B's riichi: event 4 pays B 3,900 + 1,000 honba (no stick), totals after it the same as before:
    # B 34,000 + 4,900 = 38,900; the row of that hand shows +4,900 instead of +3,900 (−1,000 + 4,900)
    assert s.history[1].deltas == (0, 4900, -4900)
    assert s.points == (36000, 36900, 32100)
    assert fold(log.records) == s
