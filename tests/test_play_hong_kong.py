"""The table state machine under Hong Kong Old Style rules (hong-kong.md §2–§4; worked examples H1, H2)."""

from test_play_helpers import discards_of, hand_of, points, rejected, run

from assistant.play import BonusTile, Chow, ClosedKong, Deal, Discard, Draw, Pong, ReplacementDraw, Ron, Tsumo, apply

H2_DEAL = Deal("hong-kong", (
    "9p45m234678s22z77z",               # East
    "1p123678m234678p",                 # South
    "11p99p66z55p33z159s | 1f",         # West: H2's hand, its flower cleared at the deal
    "6z3m111z444z55z234s",              # North
), round_wind="2z")

H2 = [
    H2_DEAL,
    Draw(0, "8m"), Discard(0, "9p"), Pong(2, "99p", meld="[999p@2]"), Discard(2, "1s"),
    Draw(3, "7m"), Discard(3, "6z"), Pong(2, "66z", meld="[666z@3]"), Discard(2, "5s"),
    Draw(3, "9m"), Discard(3, "3m"), Chow(0, "45m", meld="{345m@1}"), Discard(0, "8m"),
    Draw(1, "7p"), Discard(1, "1p"), Pong(2, "11p", meld="[111p@1]"), Discard(2, "9s"),
    Draw(3, "5p"), Discard(3, "5p"), Ron((2,)),
]


def test_h2_three_pongs_a_chow_and_a_discard_win():
    states = run("hong-kong", H2)
    s0 = states[0]
    assert (s0.live_wall, s0.dead_wall, s0.players) == (144 - 14 - 52 - 1, 14, 4)
    s = states[3]  # West ponged East's 9p: two seats back
    assert (s.phase, s.turn, s.sets_made_this_turn, s.drawn_tile) == ("own_turn", 2, (0,), None)
    assert hand_of(s, 2) == "1155p159s3366z [999p@2] | 1f"
    assert discards_of(s, 0) == [{"tile": "9p", "called_by": 2}]
    assert not any(x.first_turn for x in s.seats)
    s = states[10]  # North threw 3m: only East (next after North) may chow it
    rejected(s, Chow(1, "12m"), "CHOW_NOT_FROM_PREV")
    rejected(s, Chow(0, "46m"), "TILES_NOT_IN_HAND")
    s = states[11]
    assert (s.turn, s.phase) == (0, "own_turn") and s.seats[0].hand.melds[0].format() == "{345m@1}"
    s = states[-2]
    assert (s.phase, s.turn, s.last_tile.code) == ("claim_window", 3, "5p")
    assert [m.format() for m in s.seats[2].hand.melds] == ["[999p@2]", "[666z@3]", "[111p@1]"]
    end = states[-1]
    win = end.ending.wins[0]
    assert (win.seat, win.result.total) == (2, 7)
    assert end.ending.net(4) == [0, 0, 96, -96]
    assert end.live_wall == s0.live_wall - 5


def test_h1_flower_drawn_in_play_then_self_draw():
    events = [
        Deal("hong-kong", ("1m4m7m1p9p1s9s1z2z3z4z5z6z", "123m456m789p345s2p", "2m5m8m1p9p1s9s1z2z3z4z5z7z",
                           "3m6m9m1p9p1s9s1z2z3z4z6z7z")),
        Draw(0, "8s"), Discard(0, "8s"), BonusTile(1, "2f"), ReplacementDraw(1, "2p"), Tsumo(1),
    ]
    states = run("hong-kong", events)
    s = states[3]  # South's wall draw was its own flower: set aside, a replacement owed
    assert (s.phase, s.turn, s.owed, s.live_wall) == ("turn_start", 1, "bonus", 144 - 14 - 52 - 2)
    assert s.seats[1].hand.bonus[0].code == "2f"
    rejected(s, Draw(1, "2p"), "REPLACEMENT_OWED")
    rejected(s, BonusTile(1, "2p"), "NOT_A_BONUS_TILE")
    s = states[4]
    assert (s.phase, s.drawn_tile.code, s.drawn_from) == ("own_turn", "2p", "bonus_replacement")
    end = states[-1]
    assert end.ending.wins[0].result.total == 4
    assert end.ending.net(4) == [-16, 48, -16, -16]


def test_h1_discard_win_is_below_the_minimum():
    events = [
        Deal("hong-kong", ("1m4m7m1p9p1s9s1z2z3z4z5z6z", "123m456m789p345s2p", "2m5m8m1p9p1s9s1z2z3z4z5z7z",
                           "3m6m9m1p9p1s9s1z2z3z4z6z7z")),
        Draw(0, "8s"), Discard(0, "8s"), BonusTile(1, "2f"), ReplacementDraw(1, "8s"), Discard(1, "8s"),
        Draw(2, "2p"), Discard(2, "2p"),
    ]
    s = run("hong-kong", events)[-1]
    e = rejected(s, Ron((1,)), "BELOW_MINIMUM")
    assert "Flowers are added after" in e.message


def test_flower_hand_robs_the_eighth_flower():
    events = [
        Deal("hong-kong", ("1m4m7m1p9p1s9s1z2z3z4z5z6z", "123m456m789p345s2p | 1f2f3f4f1g2g3g",
                           "2m5m8m1p9p1s9s1z2z3z4z5z7z", "3m6m9m1p9p1s9s1z2z3z4z6z7z")),
        BonusTile(0, "4g"),
    ]
    s = run("hong-kong", events)[-1]
    assert (s.phase, s.declaration, s.last_tile.code, s.owed) == ("kong_window", "bonus", "4g", "bonus")
    end = apply(s, Ron((1,)))
    assert end.ending.kind == "win" and end.ending.discarder == 0
    net = end.ending.net(4)
    assert net[1] > 0 and net[0] == -net[1] and net[2] == net[3] == 0
    s = apply(s, ReplacementDraw(0, "8s"))  # or the flower passes and East draws its replacement
    assert (s.phase, s.drawn_from) == ("own_turn", "bonus_replacement")


def test_concealed_kong_and_its_replacement():
    events = [
        Deal("hong-kong", ("2222s7m1p9p1s9s1z2z3z4z", "123m456m789p345s2p", "2m5m8m1p9p1s9s1z2z3z4z5z7z",
                           "3m6m9m1p9p1s9s2z3z4z6z7z5z")),
    ]
    s = run("hong-kong", events)[-1]
    rejected(s, ClosedKong(0, "2s"), "KONG_BEFORE_DRAW")
    s = apply(s, Draw(0, "8s"))
    s = apply(s, ClosedKong(0, "2s"))
    assert (s.phase, s.declaration, s.owed, s.kong_chain) == ("kong_window", "closed_kong", "kong", 1)
    assert s.seats[0].hand.melds[-1].format() == "(2222s)"
    s = apply(s, ReplacementDraw(0, "9m"))
    assert (s.phase, s.drawn_from, s.sets_made_this_turn) == ("own_turn", "kong_replacement", (0,))
    s = apply(s, Discard(0, "9m"))
    assert s.kong_chain == 0 and points(s) == [0, 0, 0, 0]
    rejected(s, Pong(2, "9m9m"), "TILES_NOT_IN_HAND")
