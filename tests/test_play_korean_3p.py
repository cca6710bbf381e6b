"""The table state machine under korean-3p rules (korean-3p.md §2, §4–§5, §7; worked examples K1, K2)."""

from test_play_helpers import discards_of, hand_of, points, rejected, run

from assistant.play import Chow, Deal, Discard, Draw, FalseWin, Pass, Pong, Ron, Tsumo, apply

K1 = [
    Deal("korean-3p", ("7z123m456p789p11z3z", "77z22z123p456m9s1s9m | 1f", "2z9s123m456p789m55z")),
    Draw(0, "6z"), Discard(0, "7z"), Pong(1, "77z", meld="[777z@1]"), Discard(1, "1s"),
    Draw(2, "5z"), Discard(2, "2z"), Pong(1, "22z", meld="[222z@2]"), Discard(1, "9m"),
    Draw(2, "1z"), Discard(2, "9s"), Ron((1,)),
]


def test_k1_two_pongs_and_a_discard_win():
    states = run("korean-3p", K1)
    s0 = states[0]
    assert (s0.live_wall, s0.dead_wall) == (108 - 39 - 1, 0)  # no dead wall; South's flower was replaced
    s = states[3]
    assert (s.turn, s.phase, s.sets_made_this_turn) == (1, "own_turn", (0,))
    assert discards_of(s, 0) == [{"tile": "7z", "called_by": 1}]
    s = states[7]  # West (seat 2) is two seats back from South
    assert hand_of(s, 1) == "4569m123p9s [777z@1] [222z@2] | 1f"
    end = states[-1]
    win = end.ending.wins[0]
    assert (win.seat, win.result.total) == (1, 6)
    assert end.ending.net(3) == [0, 12, -12] and points(end) == [0, 12, -12]


def test_k2_dealer_self_draw_all_chows():
    events = [Deal("korean-3p", ("123p456p234m789m9s", "1m4m7m1p9p1s1z2z3z5z6z7z3p", "2m5m8m1p9p9s1z2z3z5z6z7z6p")),
              Draw(0, "1z"), Discard(0, "1z"), Draw(1, "2z"), Discard(1, "2z"), Draw(2, "3z"), Discard(2, "3z"),
              Draw(0, "9s"), Tsumo(0)]
    end = run("korean-3p", events)[-1]
    assert end.ending.wins[0].result.total == 5
    assert end.ending.net(3) == [10, -5, -5]


def test_no_chow_on_a_discard_and_sacred_discard():
    s = run("korean-3p", K1[:1] + [Draw(0, "5m"), Discard(0, "5m")])[-1]
    rejected(s, Chow(1, "46m"), "NO_CHOW_ON_DISCARD")
    s = run("korean-3p", K1[:-1] + [Draw(0, "9s"), Discard(0, "9s")])
    s = s[-1]  # South passed West's 9s; passing never matters here, so East's 9s can still be won
    assert s.seats[1].passed_since_discard == ()
    assert apply(s, Ron((1,))).ending.kind == "win"
    s = run("korean-3p", K1[:4] + [Discard(1, "9s")])[-1]  # South throws its own wait
    rejected(s, Pass(1), "OWN_DISCARD")


def test_sacred_discard_blocks_only_that_tile():
    deal = Deal("korean-3p", ("123m456p789p11z3z9m", "555z666z777z1s1s4p5p", "2z9s123m456p789m33z"))
    # South waits on 3p/6p and throws a 6p of its own: no win on anyone's 6p, 3p still fine (K5)
    events = [deal, Draw(0, "1p"), Discard(0, "1p"), Draw(1, "6p"), Discard(1, "6p"), Draw(2, "2z"), Discard(2, "2z"),
              Draw(0, "6p"), Discard(0, "6p")]
    s = run("korean-3p", events)[-1]
    e = rejected(s, Ron((1,)), "SACRED_DISCARD")
    assert "threw a 6p earlier" in e.message
    for ev in [Draw(1, "9m"), Discard(1, "9m"), Draw(2, "3p"), Discard(2, "3p")]:
        s = apply(s, ev)
    end = apply(s, Ron((1,)))
    assert end.ending.kind == "win" and end.ending.discarder == 2


def test_false_win_leaves_a_dead_hand():
    s = run("korean-3p", K1[:3])[-1]  # East threw 7z
    s = apply(s, FalseWin(2))
    assert s.ending is None and s.dead == (2,)
    assert points(s) == [20, 20, -40]
    rejected(s, Pong(2, "7z7z"), "DEAD_HAND")
    rejected(s, FalseWin(2), "DEAD_HAND")
    s = apply(s, Draw(1, "8m"))  # play goes on
    assert s.turn == 1
