"""The table state machine under sanma rules (sanma.md §1, §3–§5, §10, §12; worked examples E1, E2)."""

import pytest
from test_play_helpers import discards_of, hand_of, points, rejected, run

from assistant.furiten import wait_labels
from assistant.play import (
    AbortiveDraw,
    AddedKong,
    Chow,
    ClosedKong,
    Deal,
    Discard,
    Draw,
    ExhaustiveDraw,
    Kita,
    NewDora,
    Pass,
    Pong,
    ReplacementDraw,
    RiichiStick,
    Ron,
    Tsumo,
    apply,
)

E = "1p9p1s9s1z2z3z4z5z2p8p2s8s"  # fillers: not ready, few tiles the test hands need
W = "1p9p1s9s1z2z3z6z6z3p7p3s7s"


def deal(east=E, south="111m234p678p34s99s", west=W, **kw):
    kw.setdefault("dora_indicators", "5z")
    return Deal("sanma", (east, south, west), **kw)


def go_around(*pairs):
    """Draw-and-discard (tsumogiri) events: ``go_around((0, "7z"), (1, "6z"))``."""
    out = []
    for seat, tile in pairs:
        out += [Draw(seat, tile), Discard(seat, tile)]
    return out


def test_e1_tsumo_loss_scripted():
    events = [deal(), Draw(0, "7z"), Discard(0, "7z"), Draw(1, "6z"), Discard(1, "6z"),
              *go_around((2, "5z"), (0, "9m")), Draw(1, "5s"), Tsumo(1)]
    states = run("sanma", events)
    s0 = states[0]
    assert (s0.phase, s0.turn, s0.live_wall, s0.dead_wall) == ("turn_start", 0, 55, 14)
    assert all(s.first_turn for s in s0.seats)
    s1 = states[1]  # East drew 7z
    assert (s1.phase, s1.turn, s1.drawn_tile.code, s1.drawn_from, s1.live_wall) == ("own_turn", 0, "7z", "wall", 54)
    assert s1.seats[0].hand.tile_count == 14
    s2 = states[2]  # East discarded it
    assert (s2.phase, s2.turn, s2.last_tile.code) == ("claim_window", 0, "7z")
    assert discards_of(s2, 0) == ["7z"] and not s2.seats[0].first_turn and s2.seats[1].first_turn
    s3 = states[3]  # South's draw closed East's window
    assert (s3.phase, s3.turn, s3.last_tile, s3.live_wall) == ("own_turn", 1, None, 53)
    end = states[-1]
    assert end.over and end.ending.kind == "win"
    win = end.ending.wins[0]
    assert (win.seat, win.tile.code, win.tsumo, win.result.total, win.result.fu) == (1, "5s", True, 1, 30)
    assert end.ending.net(3) == [-500, 800, -300]
    assert points(end) == [34500, 35800, 34700]
    assert end.live_wall == 55 - 5
    rejected(end, Draw(2, "9m"), "HAND_OVER")


def test_e2_dealer_riichi_tsumo_with_honba_scripted():
    east = "234p567p99p234s67s"
    events = [deal(east=east, south=E, dora_indicators="6z", honba=1),
              *go_around((0, "1m"), (1, "9m"), (2, "4z")),
              Draw(0, "5z"), Discard(0, "5z", riichi=True)]
    states = run("sanma", events)
    s = states[-1]
    assert s.riichi_pending == 0 and s.ippatsu == (0,) and s.double_riichi == ()
    assert s.riichi_sticks == 0 and s.seats[0].discards[-1].riichi
    rejected(s, Discard(0, "6s"), "NOT_YOUR_TURN")
    s = apply(s, Draw(1, "6z"))  # the declaration passed: the stick goes on the table
    assert (s.riichi_sticks, s.sticks_placed, s.seats[0].points) == (1, (0,), 34000)
    rejected(s, RiichiStick(0), "STICK_PLACED")
    for e in [Discard(1, "6z"), *go_around((2, "7z"))]:
        s = apply(s, e)
    s = apply(s, Draw(0, "1m"))
    rejected(s, Discard(0, "2p"), "RIICHI_FIXED_HAND")
    s = apply(s, Discard(0, "1m"))
    assert s.ippatsu == ()  # the next discard ends ippatsu
    for e in [*go_around((1, "9m"), (2, "4z")), Draw(0, "8s"), Tsumo(0)]:
        s = apply(s, e)
    win = s.ending.wins[0]
    assert (win.result.total, win.result.fu) == (3, 20)
    assert win.context.riichi and not win.context.ippatsu
    assert s.ending.net(3) == [4600, -1800, -1800]
    assert points(s) == [38600, 33200, 33200] and s.riichi_sticks == 0


def test_double_riichi_and_ippatsu_flags():
    east = "234p567p99p234s67s"
    s = run("sanma", [deal(east=east, south=E), Draw(0, "1m"), Discard(0, "1m", riichi=True)])[-1]
    assert s.double_riichi == (0,) and s.ippatsu == (0,)
    for e in go_around((1, "9m"), (2, "4z")):
        s = apply(s, e)
    s = apply(apply(s, Draw(0, "8s")), Tsumo(0))
    ctx = s.ending.wins[0].context
    assert ctx.double_riichi and ctx.ippatsu


def test_double_ron_nearest_takes_honba_and_sticks():
    south = "234p678p234s34s55p"      # tanyao, waits 2s/5s
    west = "678p678s345s22p46s"       # tanyao, kanchan 5s
    events = [deal(south=south, west=west, dora_indicators="7z", honba=1, riichi_sticks=1),
              Draw(0, "5s"), Discard(0, "5s"), Ron((2, 1))]
    end = run("sanma", events)[-1]
    assert [w.seat for w in end.ending.wins] == [1, 2]  # nearest to the discarder first
    south_win, west_win = end.ending.wins
    assert (south_win.result.total, south_win.result.fu) == (2, 30)  # pinfu tanyao: 2,000
    assert (west_win.result.total, west_win.result.fu) == (2, 30)  # 5s read as 34s+5s: pinfu tanyao too
    # South (nearest) also takes the honba (1,000) and the stick on the table; West only its hand's value
    assert end.ending.net(3) == [-3000 - 2000, 3000 + 1000, 2000]
    assert end.riichi_sticks == 0 and end.ending.discarder == 0


def test_head_bump_lets_only_the_nearest_win():
    south, west = "234p678p234s34s55p", "678p678s345s22p46s"
    s = run("sanma", [deal(south=south, west=west, dora_indicators="7z", options={"multi_ron": "head_bump"}),
                      Draw(0, "5s"), Discard(0, "5s")])[-1]
    rejected(s, Ron((1, 2)), "LOST_TO_NEARER")
    assert [w.seat for w in apply(s, Ron((1,))).ending.wins] == [1]


def test_illegal_events_leave_the_state_as_it_was():
    s = run("sanma", [deal(), Draw(0, "3p")])[-1]
    rejected(s, Discard(0, "9m"), "TILES_NOT_IN_HAND")
    rejected(s, Draw(1, "9m"), "NOT_YOUR_DRAW")
    rejected(s, Tsumo(0), "NOT_A_WIN")
    s = apply(s, Discard(0, "3p"))
    rejected(s, Chow(1, "24p"), "NO_CHI")
    rejected(s, Draw(2, "9m"), "NOT_YOUR_DRAW")
    rejected(s, Discard(1, "2p"), "NOT_YOUR_TURN")
    rejected(s, Pong(0, "33p"), "OWN_DISCARD")
    rejected(s, Ron((1,)), "NOT_A_WIN")
    rejected(s, ReplacementDraw(1, "9m"), "NO_REPLACEMENT_OWED")
    rejected(s, ExhaustiveDraw(), "WALL_NOT_EMPTY")
    rejected(s, Draw(1, "1f"), "NOT_IN_SET")
    rejected(s, RiichiStick(1), "NOT_IN_RIICHI")


def test_a_fifth_copy_cannot_be_drawn():
    s = run("sanma", [deal(), Draw(0, "1m"), Discard(0, "1m")])[-1]  # South holds 111m: all four are out
    rejected(s, Draw(1, "1m"), "IMPOSSIBLE")


def test_ron_while_furiten_own_discard():
    south = "234p678p234s34s55p"
    s = run("sanma", [deal(south=south, dora_indicators="7z"), *go_around((0, "7z"), (1, "5s"), (2, "6z")),
                      Draw(0, "2s"), Discard(0, "2s")])[-1]
    e = rejected(s, Ron((1,)), "FURITEN_OWN_DISCARD")
    assert "threw a 5s earlier" in e.message
    assert [w.label for w in wait_labels(s, 1)] == ["tsumo only", "tsumo only"]


def test_temporary_furiten_from_pass_and_its_end():
    south = "234p678p234s34s55p"
    s = run("sanma", [deal(south=south, dora_indicators="7z"), *go_around((0, "7z"), (1, "6z"), (2, "9m")),
                      Draw(0, "5s"), Discard(0, "5s"), Pass(1)])[-1]
    assert [t.code for t in s.seats[1].passed_since_discard] == ["5s"]
    rejected(s, Pass(1), "ALREADY_PASSED")
    s = apply(apply(s, Draw(1, "1m")), Discard(1, "1m"))
    assert s.seats[1].passed_since_discard == ()  # ended by South's discard
    s = apply(apply(s, Draw(2, "2s")), Discard(2, "2s"))
    s = apply(s, Draw(0, "9m"))  # South let West's 2s go without a word: still a pass
    assert [t.code for t in s.seats[1].passed_since_discard] == ["2s"]
    s = apply(s, Discard(0, "9m"))
    rejected(s, Ron((1,)), "NOT_A_WIN")
    s = apply(apply(apply(s, Draw(1, "1m")), Discard(1, "1m")), Draw(2, "2s"))
    s = apply(s, Discard(2, "2s"))
    assert apply(s, Ron((1,))).ending.kind == "win"  # furiten over: a fresh discard of South's


def test_riichi_furiten_lasts_the_hand():
    south = "234p678p234s34s44z"
    s = run("sanma", [deal(south=south, dora_indicators="7z"), *go_around((0, "7z")),
                      Draw(1, "9m"), Discard(1, "9m", riichi=True), *go_around((2, "6z")),
                      Draw(0, "5s"), Discard(0, "5s"), Pass(1)])[-1]
    assert [t.code for t in s.seats[1].passed_since_riichi] == ["5s"]
    for e in [Draw(1, "1m"), Discard(1, "1m"), *go_around((2, "9m")), Draw(0, "2s"), Discard(0, "2s")]:
        s = apply(s, e)
    assert s.seats[1].passed_since_discard == ()
    rejected(s, Ron((1,)), "FURITEN_RIICHI")
    s = apply(apply(s, Draw(1, "2s")), Tsumo(1))  # tsumo still wins
    assert s.ending.wins[0].context.riichi


def test_kuikae_after_pon():
    south = "777z234p678p34s5p9s"
    s = run("sanma", [deal(south=south, dora_indicators="5z"), Draw(0, "7z"), Discard(0, "7z"),
                      Pong(1, "77z", meld="[777z@1]")])[-1]
    assert (s.phase, s.turn, s.drawn_tile, s.sets_made_this_turn) == ("own_turn", 1, None, (0,))
    assert hand_of(s, 1) == "2345678p349s7z [777z@1]"
    assert discards_of(s, 0) == [{"tile": "7z", "called_by": 1}]
    assert not any(x.first_turn for x in s.seats)
    rejected(s, Discard(1, "7z"), "KUIKAE")
    rejected(s, Kita(1), "TILES_NOT_IN_HAND")
    s = apply(s, Discard(1, "9s"))
    assert (s.phase, s.turn, s.last_tile.code) == ("claim_window", 1, "9s")
    s = apply(s, Draw(2, "9m"))  # play goes on from the claimant
    assert s.turn == 2


def test_pon_meld_must_match():
    south = "777z234p678p34s5p9s"
    s = run("sanma", [deal(south=south), Draw(0, "7z"), Discard(0, "7z")])[-1]
    rejected(s, Pong(1, "77z", meld="[777z@2]"), "MELD_MISMATCH")
    rejected(s, Pong(1, "55p"), "TILES_NOT_IN_HAND")


def test_kita_after_riichi_only_of_the_drawn_north():
    south = "234p678p234s34s44z"
    s = run("sanma", [deal(south=south, dora_indicators="7z"), *go_around((0, "7z")),
                      Draw(1, "9m"), Discard(1, "9m", riichi=True), *go_around((2, "6z"), (0, "1m")),
                      Draw(1, "1p")])[-1]
    rejected(s, Kita(1), "KITA_AFTER_RIICHI")
    for e in [Discard(1, "1p"), *go_around((2, "9m"), (0, "1m")), Draw(1, "4z")]:
        s = apply(s, e)
    live = s.live_wall
    s = apply(s, Kita(1))
    assert (s.phase, s.declaration, s.last_tile.code, s.owed) == ("kong_window", "kita", "4z", "bonus")
    assert s.seats[1].hand.bonus[0].code == "4z" and s.ippatsu == ()
    rejected(s, Draw(2, "9m"), "WRONG_PHASE")
    rejected(s, ReplacementDraw(2, "9m"), "NO_REPLACEMENT_OWED")
    s = apply(s, ReplacementDraw(1, "1m"))
    assert (s.phase, s.drawn_from, s.live_wall) == ("own_turn", "bonus_replacement", live - 1)


def test_kita_keeps_ippatsu():
    south = "234p678p234s34s44z"
    s = run("sanma", [deal(south=south, dora_indicators="7z"), *go_around((0, "7z")),
                      Draw(1, "9m"), Discard(1, "9m", riichi=True), *go_around((2, "6z"), (0, "1m")),
                      Draw(1, "4z"), Kita(1), ReplacementDraw(1, "5s"), Tsumo(1)])[-1]
    ctx = s.ending.wins[0].context
    assert ctx.ippatsu and ctx.rinshan and ctx.kita == 1


def test_last_discard_then_exhaustive_draw_with_noten_payments():
    east = "2p2p9p1s9s1z2z3z4z5z1p8p2s"
    events = [deal(east=east, live_wall=3, dead_wall=108 - 39 - 3), *go_around((0, "3s"), (1, "6s"), (2, "2p"))]
    s = run("sanma", events)[-1]
    assert s.live_wall == 0 and s.is_last_discard
    rejected(s, Pong(0, "2p2p"), "LAST_DISCARD")
    rejected(s, Draw(0, "9m"), "WALL_EMPTY")
    rejected(s, ExhaustiveDraw(tenpai=(0, 1)), "NOT_TENPAI")
    end = apply(s, ExhaustiveDraw())
    assert end.ending.kind == "exhaustive_draw" and end.ending.tenpai == (1,) and end.ending.nagashi == ()
    assert end.ending.net(3) == [-1000, 2000, -1000]
    hidden = apply(s, ExhaustiveDraw(tenpai=()))  # a ready hand may stay hidden: no payments
    assert hidden.ending.payments == ()


def test_nagashi_mangan_at_the_draw():
    events = [deal(live_wall=3, dead_wall=108 - 39 - 3), *go_around((0, "3s"), (1, "6s"), (2, "9m")),
              ExhaustiveDraw()]
    end = run("sanma", events)[-1]
    assert end.ending.nagashi == (2,)  # West threw only terminals and honours, none called
    assert end.ending.net(3) == [-4000, -2000, 6000]


def test_nine_terminals():
    east = "1m9m1p9p1s9s1z2z3z2p3p4p5p"
    s = run("sanma", [deal(east=east, south=E, dora_indicators="7z"), Draw(0, "4z")])[-1]
    rejected(s, AbortiveDraw("nine_terminals", 1), "NOT_YOUR_TURN")
    end = apply(s, AbortiveDraw("nine_terminals", 0))
    assert end.ending.kind == "abortive_draw" and end.ending.reason == "nine_terminals"
    rejected(s, AbortiveDraw("four_kans"), "NO_ABORT")


def test_ron_on_a_riichi_declaration_voids_the_stick():
    east = "234p567p99p234s67s"
    south = "234p678p234s34s55p"
    s = run("sanma", [deal(east=east, south=south, dora_indicators="7z"), Draw(0, "5s"),
                      Discard(0, "5s", riichi=True), RiichiStick(0)])[-1]
    assert s.riichi_sticks == 1 and s.seats[0].points == 34000
    end = apply(s, Ron((1,)))
    assert end.riichi_sticks == 0 and end.seats[0].points == 35000 - end.ending.wins[0].result.net(3)[1]


@pytest.mark.parametrize("chombo,net", [("reversed_mangan", [4000, -6000, 2000]),
                                       ("fixed", [0, -20000, 0])])
def test_chombo_ends_the_hand(chombo, net):
    s = run("sanma", [deal(options={"chombo": chombo}), Draw(0, "7z"), Discard(0, "7z")])[-1]
    from assistant.play import FalseWin

    end = apply(s, FalseWin(1))
    assert end.ending.kind == "false_win" and end.ending.seat == 1
    assert [p - 35000 for p in points(end)] == net


def test_robbing_an_added_kan():
    east = "5p1p9p1s9s1z2z3z4z2p8p2s8s"
    south = "55p1p9p1s3z4z5z6z7z2p8p3s"
    west = "46p234s678s11z999s"  # waits on 5p; robbing the kan is its yaku
    events = [deal(east=east, south=south, west=west, dora_indicators="7z"), Draw(0, "7z"), Discard(0, "5p"),
              Pong(1, "55p", meld="[555p@1]"), Discard(1, "7z"), *go_around((2, "6z"), (0, "9m")),
              Draw(1, "0p"), AddedKong(1, "0p")]
    s = run("sanma", events)[-1]
    assert (s.phase, s.declaration, s.last_tile.code, s.owed) == ("kong_window", "added_kong", "0p", "kong")
    assert s.seats[1].hand.melds[0].format() == "[0555p@1+]"
    rejected(s, Pong(2, "46p"), "ROB_WIN_ONLY")
    end = apply(s, Ron((2,)))
    win = end.ending.wins[0]
    assert win.context.chankan and end.ending.discarder == 1
    assert end.ending.net(3)[0] == 0 and end.ending.net(3)[1] < 0
    passed = apply(s, Pass(2))  # letting the kan tile go is a pass too (temporary furiten)
    assert [t.code for t in passed.seats[2].passed_since_discard] == ["5p"]
    s = apply(passed, ReplacementDraw(1, "9m"))
    assert (s.drawn_from, s.sets_made_this_turn) == ("kong_replacement", (0,))
    s = apply(s, NewDora("1s"))
    assert [t.code for t in s.dora_indicators] == ["7z", "1s"]
    rejected(s, NewDora("2s"), "NO_NEW_DORA")


def test_four_kans_by_two_players_abort_the_hand():
    east = "1111p2222p3333p9s"
    south = "4444s1z2z3z5z6z7z1s9s7p"
    events = [deal(east=east, south=south, west="9p1s9s1z2z3z6z6z8p7p3s7s5p", dora_indicators="7z"), Draw(0, "9m"),
              ClosedKong(0, "1p"), ReplacementDraw(0, "9m"), ClosedKong(0, "2p"), ReplacementDraw(0, "1m"),
              ClosedKong(0, "3p"), ReplacementDraw(0, "1m"), Discard(0, "9m"),
              Draw(1, "5s"), ClosedKong(1, "4s"), ReplacementDraw(1, "6s")]
    s = run("sanma", events)[-1]
    assert s.kongs_made == 4 and s.live_wall == 55 - 2 - 4
    rejected(s, ClosedKong(1, "6s"), "TILES_NOT_IN_HAND")
    s = apply(s, Discard(1, "6s"))
    rejected(s, Draw(2, "9m"), "FOUR_KANS")
    end = apply(s, AbortiveDraw("four_kans"))
    assert end.ending.kind == "abortive_draw" and end.ending.reason == "four_kans"
