"""The table state machine under 3 Kaki rules (three-kaki.md §2, §4–§5; worked examples T1, T3)."""

from test_play_helpers import discards_of, hand_of, points, rejected, run

from assistant.play import (
    ClosedKong,
    Deal,
    Discard,
    Draw,
    Pong,
    ReplacementDraw,
    SinkFei,
    SwapFei,
    Tsumo,
    apply,
)

T1 = [
    Deal("three-kaki", ("11z234p567p88p55z6z | 1f2g", "123456789p5p77z jk | 1a2h4f", "jk 1z234p66p99p22z44z | 3h3g")),
    Draw(0, "3z"), Discard(0, "3z"), Draw(1, "4z"), Discard(1, "4z"),
    Draw(2, "5z"), Discard(2, "1z"), Pong(0, "11z", meld="[111z@1]"), Discard(0, "6z"),
    Draw(1, "5p"), Tsumo(1),
]


def test_t1_fei_hand_self_draw_with_settlement():
    states = run("three-kaki", T1)
    s0 = states[0]
    assert (s0.live_wall, s0.dead_wall) == (84 - 7 - 39 - 7, 7)  # 7-tile reserve; 7 bonus tiles cleared
    s = states[7]  # East ponged West's 1z (West is the player before East)
    assert (s.turn, s.phase, s.sets_made_this_turn) == (0, "own_turn", (0,))
    assert s.seats[0].hand.melds[0].format() == "[111z@1]"
    assert discards_of(s, 2) == [{"tile": "1z", "called_by": 0}]
    end = states[-1]
    win = end.ending.wins[0]
    assert (win.seat, win.result.total) == (1, 5)
    assert win.context.others[2].fei == 1  # West shows its Fei for the square-up
    assert end.ending.net(3) == [-11, 18, -7]
    assert points(end) == [-11, 18, -7]


def test_t3_no_bonus_tiles_limit():
    events = [
        Deal("three-kaki", ("11z1p2p3p4p5p6p7p8p2z3z4z | 1f", "111p234p567p555z9p", "1z2z3z4z6z7z2p3p4p6p7p8p9p | 3g")),
        Draw(0, "1z"), Discard(0, "2z"), Draw(1, "8p"), Discard(1, "8p"), Draw(2, "2z"), Discard(2, "1z"),
        Pong(0, "11z"), Discard(0, "3z"), Draw(1, "9p"), Tsumo(1),
    ]
    end = run("three-kaki", events)[-1]
    assert end.ending.wins[0].result.limit is not None
    assert end.ending.net(3) == [-22, 48, -26]


def test_sink_and_swap_fei():
    deal = Deal("three-kaki", ("jkjk7p123p456p11z2z3z", "7p9p1z2z3z4z5z6z7z2p8p3p3p", "9p1z2z3z4z5z6z7z2p8p4p6p6p"))
    events = [deal, Draw(0, "8p")]
    s = run("three-kaki", events)[-1]
    rejected(s, Discard(0, "jk"), "FEI_DISCARD")
    live = s.live_wall
    s = apply(s, SinkFei(0))
    assert (s.phase, s.owed, s.live_wall) == ("turn_start", "bonus", live)
    assert hand_of(s, 0) == "12345678p1123z jk | jk"
    s = apply(s, ReplacementDraw(0, "9p"))
    assert (s.drawn_from, s.live_wall) == ("bonus_replacement", live - 1)
    for e in [Discard(0, "9p"), Draw(1, "5p"), Discard(1, "7p")]:
        s = apply(s, e)
    s = apply(s, Pong(0, "7p jk", meld="[77p jk=7p@2]"))
    assert s.seats[0].hand.melds[0].format() == "[77p jk=7p@2]"
    rejected(s, SwapFei(0, "7p", 0, 0), "TILES_NOT_IN_HAND")
    s = apply(s, Discard(0, "8p"))
    for e in [Draw(1, "5p"), Discard(1, "5p"), Draw(2, "5p"), Discard(2, "5p"), Draw(0, "7p")]:
        s = apply(s, e)
    s = apply(s, SwapFei(0, "7p", 0, 0))
    assert s.seats[0].hand.melds[0].format() == "[777p@2]"
    assert sum(1 for t in s.seats[0].hand.concealed if t.code == "jk") == 1
    rejected(s, ClosedKong(0, "1z"), "TILES_NOT_IN_HAND")
    s = apply(s, Discard(0, "3z"))
    assert s.tile_count == 84


def test_no_sinking_without_a_replacement():
    deal = Deal("three-kaki", ("jkjk7p123p456p11z2z3z", "7p9p1z2z3z4z5z6z7z2p8p3p3p", "9p1z2z3z4z5z6z7z2p8p4p6p6p"),
                live_wall=1, dead_wall=84 - 39 - 1)
    s = run("three-kaki", [deal, Draw(0, "8p")])[-1]
    assert s.live_wall == 0
    rejected(s, SinkFei(0), "NO_REPLACEMENT")
    s = apply(s, Discard(0, "8p"))
    rejected(s, Draw(1, "9p"), "WALL_EMPTY")
