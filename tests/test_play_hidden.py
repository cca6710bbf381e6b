"""The play state machine with unknown concealed tiles (``bk``): a game as a camera sees it — the other
players' hands face down, their draws unseen, their discards, calls and kongs as played, and a
``reveal`` of a hand before a win or an exhaustive draw — replays with every event checked and gives
the same public table as the fully known game."""

import json
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from test_play_driver import VARIANTS, play
from test_play_helpers import discards_of, hand_of, points, rejected, run
from test_play_hong_kong import H2
from test_play_log import SANMA
from test_play_sanma import E, go_around
from test_play_sanma import deal as sanma_deal
from test_play_three_kaki import T1

from assistant.hand import parse_hand
from assistant.match import MatchCreated, MatchLog
from assistant.match.inhand import match_events
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
    ExhaustiveDraw,
    IllegalEvent,
    Kita,
    NewDora,
    OpenKong,
    Pass,
    PlayState,
    Pong,
    ReplacementDraw,
    Reveal,
    Ron,
    SinkFei,
    SwapFei,
    Tsumo,
    apply,
    event_from_json,
    replay,
)
from assistant.play.events import describe
from assistant.tiles import format_tiles

BK13 = "bk" * 13
SOUTH = "111m234p678p34s99s"  # sanma E1: South wins on 5s


def hidden_deal(deal: Deal, hidden) -> Deal:
    """The deal as the camera sees it: the hidden seats' concealed tiles face down, bonus tiles shown."""
    hands = list(deal.hands)
    for s in hidden:
        h = parse_hand(hands[s])
        hands[s] = "bk" * len(h.concealed) + (" | " + format_tiles(h.bonus) if h.bonus else "")
    return replace(deal, hands=tuple(hands))


def camera(events, hidden, split_bonus=False):
    """The camera's log of a fully known hand: ``hidden`` seats dealt face down, their draws ``bk``, a
    ``reveal`` of the winners (in three-kaki of every hidden seat) before a win and of every hidden seat
    before an exhaustive draw. ``split_bonus``: a hidden seat's bonus tile is first seen as a face-down
    draw. Returns the camera's events and, for each, whether it stands for an event of the known log."""
    states = replay(events[0].variant, events)
    out: list = []
    hidden = set(hidden)
    for i, ev in enumerate(events):
        before = states[i - 1] if i else None
        if isinstance(ev, Deal):
            out.append((hidden_deal(ev, hidden), True))
            continue
        seat = getattr(ev, "seat", None)
        if isinstance(ev, (Draw, ReplacementDraw)) and seat in hidden:
            out.append((type(ev)(seat, "bk"), True))
            continue
        if split_bonus and isinstance(ev, BonusTile) and seat in hidden:
            out.append(((ReplacementDraw if before.owed else Draw)(seat, "bk"), False))
        show: set[int] = set()
        if isinstance(ev, (Tsumo, Ron)):
            show = set(hidden) if before.variant.has_jokers else set(ev.seats if isinstance(ev, Ron) else (seat,))
        elif isinstance(ev, ExhaustiveDraw):
            show = set(hidden)
        for s in sorted(show & hidden):
            drawn = before.drawn_tile if before.phase == "own_turn" and before.turn == s else None
            out.append((Reveal(s, before.seats[s].hand.concealed, drawn), False))
        out.append((ev, True))
    return [e for e, _ in out], [k for _, k in out]


def public(state: PlayState) -> dict:
    """Everything the table shows: the state's JSON with each hand reduced to its size, melds and bonus
    area, and without the drawn tile and the furiten memory of passed tiles (neither is seen)."""
    data = state.to_json()
    for s, seat in zip(data["seats"], state.seats, strict=True):
        h = seat.hand
        s["hand"] = [len(h.concealed), [m.format() for m in h.melds], format_tiles(h.bonus)]
        del s["passed_since_discard"], s["passed_since_riichi"]
    data["drawn_tile"] = state.drawn_tile is not None
    return data


def same_public_game(events, hidden, split_bonus=False):
    """Replay the camera's log and compare it, event by event, with the known game. Returns both finals."""
    variant = events[0].variant
    known = run(variant, events)
    cam, kept = camera(events, hidden, split_bonus)
    seen = run(variant, cam)
    seen = [s for s, k in zip(seen, kept, strict=True) if k]
    assert len(seen) == len(known)
    for i, (a, b) in enumerate(zip(known, seen, strict=True)):
        assert public(a) == public(b), (i, describe(events[i]))
        for s in range(a.players):
            if s not in hidden or not b.seats[s].hidden:
                assert a.seats[s].hand == b.seats[s].hand, (i, s)
        if b.drawn_tile is not None and b.drawn_tile.code != "bk":
            assert b.drawn_tile == a.drawn_tile
    return known[-1], seen[-1]


# ---------------------------------------------------------------------------------------------
# Deal and draws


def test_deal_with_face_down_hands():
    s = apply(None, sanma_deal(south=BK13, west="1z2z" + "bk" * 11))
    assert [hand_of(s, i) for i in range(3)] == ["1289p1289s12345z", BK13, "12z bkbkbkbkbkbkbkbkbkbkbk"]
    assert (s.live_wall, s.dead_wall, s.tile_count, s.hidden_seats) == (55, 14, 108, (1, 2))
    assert PlayState.from_json(json.loads(json.dumps(s.to_json()))) == s
    with pytest.raises(IllegalEvent, match="expected 13") as err:
        apply(None, sanma_deal(south="bk" * 12))
    assert err.value.code == "BAD_DEAL"
    with pytest.raises(IllegalEvent, match="5 copies of 1z") as err:
        apply(None, sanma_deal(south="1z1z1z" + "bk" * 10))
    assert err.value.code == "BAD_DEAL"


def test_unseen_draws_move_the_walls_like_any_draw():
    s = run("sanma", [sanma_deal(south=BK13, west=BK13), *go_around((0, "7z")), Draw(1, "bk")])[-1]
    assert (s.phase, s.turn, s.drawn_tile.code, s.drawn_from, s.live_wall) == ("own_turn", 1, "bk", "wall", 53)
    assert hand_of(s, 1) == "bk" * 14
    assert PlayState.from_json(json.loads(json.dumps(s.to_json()))) == s
    # a known draw into a face-down hand
    k = run("sanma", [sanma_deal(south=BK13, west=BK13), *go_around((0, "7z")), Draw(1, "5p")])[-1]
    assert (hand_of(k, 1), k.drawn_tile.code, k.live_wall) == ("5p " + BK13, "5p", 53)


def test_discards_use_known_tiles_first_then_face_down_ones():
    base = [sanma_deal(south="5p" + "bk" * 12, west=BK13), *go_around((0, "7z"))]
    s = run("sanma", base + [Draw(1, "bk"), Discard(1, "6z")])[-1]
    assert (hand_of(s, 1), discards_of(s, 1), s.last_tile.code) == ("5p " + "bk" * 12, ["6z"], "6z")
    s = run("sanma", base + [Draw(1, "bk"), Discard(1, "5p")])[-1]
    assert hand_of(s, 1) == BK13  # the known 5p went, every face-down tile stayed
    s = run("sanma", base + [Draw(1, "0p"), Discard(1, "5p")])[-1]
    assert hand_of(s, 1) == "0p " + "bk" * 12  # exact tiles: the known red five stays
    # a seat with no face-down tile must hold the tile
    s = run("sanma", base + [Draw(1, "bk"), Discard(1, "6z")])[-1]
    s = apply(s, Draw(2, "bk"))
    s = apply(apply(s, Discard(2, "5z")), Draw(0, "6z"))
    e = rejected(s, Discard(0, "3p"), "TILES_NOT_IN_HAND")
    assert e.message == "You don't hold 3p, so you can't discard."
    # nor can a face-down tile be a fifth copy
    four = run("sanma", [sanma_deal(south=BK13, west=BK13), *go_around((0, "7z")), Draw(1, "bk"), Discard(1, "7z"),
                         Draw(2, "bk"), Discard(2, "7z"), *go_around((0, "7z")), Draw(1, "bk")])[-1]
    e = rejected(four, Discard(1, "7z"), "TILES_NOT_IN_HAND")
    assert e.message == "You don't hold 7z, so you can't discard."


@pytest.mark.parametrize("event,words", [
    (Discard(1, "bk"), "The tile of a discard must be named"),
    (Pong(2, "bkbk"), "The tiles of a pong must be named"),
    (ClosedKong(1, "bk"), "The tile of a closed_kong must be named"),
    (NewDora("bk"), "The tile of a dora must be named"),
    (BonusTile(1, "bk"), "The tile of a bonus must be named"),
    (Reveal(1, "bk" * 14), "The tiles of a reveal must be named"),
    (Tsumo(1, ura_indicators="bk"), "The ura indicators of a tsumo must be named"),
])
def test_bk_is_refused_where_a_tile_must_be_named(event, words):
    s = run("sanma", [sanma_deal(south=BK13, west=BK13), *go_around((0, "7z")), Draw(1, "bk")])[-1]
    e = rejected(s, event, "FACE_DOWN")
    assert e.message.startswith(words) and e.message.endswith(
        "bk (a tile seen face down) stands only in a dealt hand or for a draw.")


# ---------------------------------------------------------------------------------------------
# Calls, kongs, kita, Fei and bonus tiles of a hidden seat


def test_pong_kong_and_added_kong_of_a_hidden_seat():
    s = run("sanma", [sanma_deal(south=BK13, west=BK13), *go_around((0, "7z")), Pong(2, "7z7z")])[-1]
    assert (s.turn, s.phase, hand_of(s, 2)) == (2, "own_turn", "bk" * 11 + " [777z@2]")
    assert discards_of(s, 0) == [{"tile": "7z", "called_by": 2}]
    s = apply(apply(s, Discard(2, "1z")), Draw(0, "3z"))
    s = apply(apply(s, Discard(0, "3z")), Draw(1, "bk"))
    s = apply(apply(s, Discard(1, "2z")), Draw(2, "bk"))
    s = apply(s, AddedKong(2, "7z"))
    assert (s.phase, s.declaration, s.last_tile.code, hand_of(s, 2)) == (
        "kong_window", "added_kong", "7z", "bk" * 10 + " [7777z@2+]")
    s = apply(s, ReplacementDraw(2, "bk"))
    assert (s.phase, s.drawn_from, s.sets_made_this_turn, hand_of(s, 2)) == (
        "own_turn", "kong_replacement", (0,), "bk" * 11 + " [7777z@2+]")
    ok = run("sanma", [sanma_deal(south=BK13, west=BK13), *go_around((0, "7z")), OpenKong(1, "7z7z7z"),
                       ReplacementDraw(1, "bk")])[-1]
    assert (hand_of(ok, 1), ok.drawn_from, ok.kong_chain) == ("bk" * 11 + " [7777z@1]", "kong_replacement", 1)


def test_a_call_needs_enough_face_down_tiles():
    # West is known to hold 12 tiles, none a 7z, and one face-down tile: too few for a pong of East's 7z
    west = "1p9p1s9s1z2z3z6z3p7p3s7s"
    s = run("sanma", [sanma_deal(south=BK13, west=west + "bk"), *go_around((0, "7z"))])[-1]
    e = rejected(s, Pong(2), "TILES_NOT_IN_HAND")
    assert e.message == "You don't hold the tiles, so you can't pong."
    rejected(s, Pong(2, "7z7z"), "TILES_NOT_IN_HAND")
    s = apply(s, Pong(1))  # South's thirteen face-down tiles can hold two
    assert hand_of(s, 1) == "bk" * 11 + " [777z@1]"


def test_concealed_kong_and_kita_of_a_hidden_seat():
    s = run("sanma", [sanma_deal(south=BK13, west=BK13), *go_around((0, "7z")), Draw(1, "bk")])[-1]
    e = rejected(s, ClosedKong(1, "3z"), "TILES_NOT_IN_HAND")  # East holds a 3z: three are out of sight
    assert e.message == "You don't hold 3z, so you can't declare a concealed kong."
    s = apply(s, ClosedKong(1, "6z"))
    assert (s.phase, s.declaration, hand_of(s, 1)) == ("kong_window", "closed_kong", "bk" * 10 + " (6666z)")
    s = apply(apply(s, ReplacementDraw(1, "bk")), Kita(1))
    assert (s.phase, s.declaration, s.owed, hand_of(s, 1)) == ("kong_window", "kita", "bonus",
                                                               "bk" * 10 + " (6666z) | 4z")
    s = apply(s, ReplacementDraw(1, "bk"))
    assert (s.drawn_from, s.live_wall, s.tile_count) == ("bonus_replacement", 51, 108)


def test_chow_of_a_hidden_seat_and_a_flower_seen_after_its_draw():
    deal = H2[0]
    s = run("hong-kong", [hidden_deal(deal, (1, 3)), Draw(0, "8m"), Discard(0, "9p"), Draw(1, "bk"),
                          Discard(1, "1p"), Draw(2, "7m"), Discard(2, "1s"), Draw(3, "bk"), Discard(3, "6z"),
                          Draw(0, "5p"), Discard(0, "5p")])[-1]
    s = apply(s, Chow(1, "46p", meld="{456p@1}"))
    assert (s.turn, s.phase, hand_of(s, 1)) == (1, "own_turn", "bk" * 11 + " {456p@1}")
    s = apply(apply(s, Discard(1, "9m")), Draw(2, "9s"))
    s = apply(apply(s, Discard(2, "9s")), Draw(3, "bk"))
    live = s.live_wall
    s = apply(s, BonusTile(3, "4f"))  # the tile North drew face down was its flower
    assert (s.phase, s.owed, s.live_wall, hand_of(s, 3)) == ("turn_start", "bonus", live, BK13 + " | 4f")
    s = apply(s, ReplacementDraw(3, "bk"))
    assert (s.phase, s.drawn_from, s.live_wall) == ("own_turn", "bonus_replacement", live - 1)


def test_fei_of_a_hidden_seat():
    deal = Deal("three-kaki", ("7p123p456p11z2z3z4z5z", "7p9p1z2z3z4z5z6z7z2p8p3p3p", "9p1z2z3z4z5z6z7z2p8p4p6p6p"))
    s = run("three-kaki", [hidden_deal(deal, (1,)), Draw(0, "8p"), Discard(0, "8p")])[-1]
    s = apply(s, Pong(1, "8p jk", meld="[88p jk=8p@1]"))  # both from South's face-down tiles
    assert (s.phase, hand_of(s, 1)) == ("own_turn", "bk" * 11 + " [88p jk=8p@1]")
    rejected(s, Discard(1, "8p"), "CALLED_SET_TILE")
    for e in [Discard(1, "9p"), *[Draw(2, "7p"), Discard(2, "7p")], *[Draw(0, "9p"), Discard(0, "9p")], Draw(1, "bk")]:
        s = apply(s, e)
    s = apply(s, SwapFei(1, "8p", owner=1, meld=0))  # the real 8p from a face-down tile, the Fei back in hand
    assert (hand_of(s, 1), s.drawn_tile.code) == ("jk " + "bk" * 10 + " [888p@1]", "bk")
    # the drawn tile may have gone into the set: then the Fei it took back counts as drawn (as when known)
    shown = apply(s, Reveal(1, "jk 1z2z3z4z5z6z7z 2p3p3p", drawn="jk"))
    assert (hand_of(shown, 1), shown.drawn_tile.code) == ("233p1234567z jk [888p@1]", "jk")
    e = rejected(s, Reveal(1, "jk 1z2z3z4z5z6z7z 2p3p3p", drawn="7p"), "BAD_REVEAL")
    assert e.message == "The drawn tile 7p must be one of the tiles that were face down (233p1234567z)."
    s = apply(s, SinkFei(1))  # the Fei it is known to hold
    assert (s.phase, s.owed, hand_of(s, 1)) == ("turn_start", "bonus", "bk" * 10 + " [888p@1] | jk")
    s = apply(s, ReplacementDraw(1, "bk"))
    assert (s.drawn_from, hand_of(s, 1)) == ("bonus_replacement", "bk" * 11 + " [888p@1] | jk")


# ---------------------------------------------------------------------------------------------
# Riichi of a hidden seat


def test_riichi_of_a_hidden_seat_then_reveal_and_tsumo():
    """sanma E2 as the camera sees it with the dealer hidden: the riichi is taken on trust, the
    face-down drawn tile is the one thrown, and the win needs the hand revealed first."""
    east = "234p567p99p234s67s"
    events = [sanma_deal(east=BK13, south=E, dora_indicators="6z", honba=1),
              Draw(0, "bk"), Discard(0, "1m"), *go_around((1, "9m"), (2, "4z")),
              Draw(0, "bk"), Discard(0, "5z", riichi=True), Draw(1, "6z")]
    s = run("sanma", events)[-1]
    assert (s.riichi_sticks, s.sticks_placed, s.seats[0].points) == (1, (0,), 34000)
    for e in [Discard(1, "6z"), *go_around((2, "7z")), Draw(0, "bk")]:
        s = apply(s, e)
    s = apply(s, Discard(0, "1m"))  # after riichi the face-down drawn tile is the tile thrown
    assert s.ippatsu == () and hand_of(s, 0) == BK13
    for e in [*go_around((1, "9m"), (2, "4z")), Draw(0, "bk")]:
        s = apply(s, e)
    e = rejected(s, Tsumo(0), "REVEAL_FIRST")
    assert e.message == "East's hand is not known (14 tiles face down): reveal the hand first, then declare the win."
    e = rejected(s, Reveal(0, east + "8s"), "BAD_REVEAL")
    assert e.message == "East drew a tile face down: say which revealed tile it is (drawn)."
    s = apply(s, Reveal(0, east + "8s", drawn="8s"))
    assert (hand_of(s, 0), s.drawn_tile.code) == ("23456799p234678s", "8s")
    s = apply(s, Tsumo(0))
    win = s.ending.wins[0]
    assert (win.result.total, win.result.fu) == (3, 20)
    assert win.context.riichi and not win.context.ippatsu
    assert s.ending.net(3) == [4600, -1800, -1800]
    assert points(s) == [38600, 33200, 33200] and s.riichi_sticks == 0


# ---------------------------------------------------------------------------------------------
# Reveal


def _south_drew():
    events = [sanma_deal(south="1m" + "bk" * 12, west=BK13), Draw(0, "7z"), Discard(0, "7z"), Draw(1, "bk"),
              Discard(1, "6z"), *go_around((2, "5z"), (0, "9m")), Draw(1, "bk")]
    return run("sanma", events)[-1]


def test_reveal_names_the_face_down_tiles():
    s = _south_drew()
    e = rejected(s, Reveal(1, SOUTH), "BAD_REVEAL")
    assert e.message == "South holds 14 concealed tiles; the reveal 111m234678p3499s names 13."
    e = rejected(s, Reveal(1, "234p678p34s99s5s5s5s5s", drawn="5s"), "BAD_REVEAL")
    assert e.message == ("South's reveal must show every tile already known in the hand; 234678p34555599s lacks 1m.")
    e = rejected(s, Reveal(1, "1m9m234p678p34s99s 5s1z", drawn="7z"), "BAD_REVEAL")
    assert e.message == "The drawn tile 7z must be one of the tiles that were face down (9m234678p34599s1z)."
    e = rejected(s, Reveal(1, "1m 234p678p 3s99s 7z7z7z7z", drawn="7z"), "BAD_REVEAL")
    assert e.message == ("South's reveal 1m234678p399s7777z cannot be: 5 copies of 7z on the table (hands, melds, "
                         "bonus areas, uncalled discards and dora indicators); the sanma set has 4")
    e = rejected(s, Reveal(1, "111m234p678p34s99s5m", drawn="5m"), "BAD_REVEAL")
    assert "5m is not in the sanma tile set" in e.message
    e = rejected(s, Reveal(2, "1p" * 13), "BAD_REVEAL")
    assert e.message == "West's reveal 1111111111111p cannot be: bad tile token '1p' at position 0: fifth copy of 1p"
    e = rejected(s, Reveal(2, "123p456p789p123s9s", drawn="9s"), "BAD_REVEAL")
    assert e.message == "West's reveal names the drawn tile 9s, but it holds no drawn tile now."
    s = apply(s, Reveal(1, SOUTH + "5s", drawn="5s"))
    assert (hand_of(s, 1), s.drawn_tile.code, s.hidden_seats) == ("111m234678p34599s", "5s", (2,))
    again = apply(s, Reveal(1, SOUTH + "5s", drawn="5s"))  # a known hand: nothing changes
    assert again == s
    end = apply(s, Tsumo(1))
    win = end.ending.wins[0]
    assert (win.seat, win.tile.code, win.tsumo, win.result.total, win.result.fu) == (1, "5s", True, 1, 30)
    assert end.ending.net(3) == [-500, 800, -300] and points(end) == [34500, 35800, 34700]


def test_reveal_event_json():
    e = Reveal(1, "111m234p678p34s99s5s", drawn="5s")
    data = e.to_json()
    assert data == {"type": "reveal", "seat": 1, "tiles": "111m234678p34995s", "drawn": "5s"}
    assert event_from_json(json.loads(json.dumps(data))) == e
    assert Reveal(2, "1z" * 3).to_json() == {"type": "reveal", "seat": 2, "tiles": "111z"}
    assert EVENT_TYPES["reveal"] is Reveal
    log = [sanma_deal(south=BK13, west=BK13), *go_around((0, "7z")), Draw(1, "bk"),
           Reveal(1, "1z2z3z4z" * 3 + "5z6z", drawn="6z")]
    states = replay("sanma", [x.to_json() for x in log])
    assert hand_of(states[-1], 1) == "11122233344456z"


# ---------------------------------------------------------------------------------------------
# Wins and draws


def test_ron_needs_the_winners_revealed():
    """sanma double ron as the camera sees it: both winners reveal, the score is the known game's."""
    south = "234p678p234s34s55p"
    west = "678p678s345s22p46s"
    known = [sanma_deal(south=south, west=west, dora_indicators="7z", honba=1, riichi_sticks=1),
             Draw(0, "5s"), Discard(0, "5s")]
    s = run("sanma", [hidden_deal(known[0], (1, 2))] + known[1:])[-1]
    e = rejected(s, Ron((2, 1)), "REVEAL_FIRST")
    assert e.message == "West's hand is not known (13 tiles face down): reveal the hand first, then declare the win."
    s = apply(s, Reveal(2, west))
    rejected(s, Ron((2, 1)), "REVEAL_FIRST")
    s = apply(apply(s, Reveal(1, south)), Ron((2, 1)))
    assert [w.seat for w in s.ending.wins] == [1, 2]
    assert s.ending.net(3) == [-3000 - 2000, 3000 + 1000, 2000]


def test_a_hidden_seat_may_claim_a_win_only_when_the_rules_allow_it():
    s = run("sanma", [sanma_deal(south=BK13, west=BK13), *go_around((0, "7z")), Draw(1, "bk")])[-1]
    rejected(s, Ron((2,)), "NO_CLAIMABLE_TILE")
    rejected(s, Tsumo(2), "NOT_YOUR_TURN")
    s = apply(apply(s, Discard(1, "6z")), Draw(2, "bk"))
    rejected(s, Ron((1,)), "NO_CLAIMABLE_TILE")


def test_three_kaki_win_needs_every_loser_revealed():
    cam, _ = camera(T1, hidden=(1, 2))
    s = run("three-kaki", [e for e in cam if not isinstance(e, Reveal) and not isinstance(e, Tsumo)])[-1]
    e = rejected(s, Tsumo(1), "REVEAL_FIRST")
    assert e.message == "South's hand is not known (14 tiles face down): reveal the hand first, then declare the win."
    s = apply(s, next(x for x in cam if isinstance(x, Reveal) and x.seat == 1))
    e = rejected(s, Tsumo(1), "REVEAL_FIRST")
    assert e.message == ("West's hand is not known (13 tiles face down): reveal the hand first, then score the win "
                         "(in three-kaki every loser shows its Fei and concealed honour pongs).")
    s = apply(apply(s, next(x for x in cam if isinstance(x, Reveal) and x.seat == 2)), Tsumo(1))
    win = s.ending.wins[0]
    assert (win.seat, win.result.total, win.context.others[2].fei) == (1, 5, 1)
    assert s.ending.net(3) == [-11, 18, -7]


def test_exhaustive_draw_with_face_down_hands():
    events = [sanma_deal(south=SOUTH, west=BK13, live_wall=2, dead_wall=67), *go_around((0, "6p"), (1, "6p"))]
    s = run("sanma", events)[-1]
    assert s.live_wall == 0
    e = rejected(s, ExhaustiveDraw(), "REVEAL_FIRST")
    assert e.message == ("West's hand is not known (13 tiles face down): reveal the hand first, then end the hand "
                         "(or list the seats that are ready).")
    listed = apply(s, ExhaustiveDraw((1, 2)))  # a face-down hand listed as ready is taken as shown
    assert (listed.ending.tenpai, listed.ending.net(3)) == ((1, 2), [-2000, 1000, 1000])
    rejected(s, ExhaustiveDraw((0,)), "NOT_TENPAI")
    shown = apply(apply(s, Reveal(2, "1p9p1s9s1z2z3z6z6z3p7p3s7s")), ExhaustiveDraw())
    assert (shown.ending.tenpai, shown.ending.net(3)) == ((1,), [-1000, 2000, -1000])


def test_a_pass_by_a_hidden_seat_leaves_no_furiten_memory():
    s = run("sanma", [sanma_deal(west=BK13), *go_around((0, "5s")), Pass(1), Pass(2)])[-1]
    assert [format_tiles(x.passed_since_discard) for x in s.seats] == ["", "5s", ""]  # South could have won
    s = run("sanma", [sanma_deal(west=BK13), *go_around((0, "5s")), Draw(1, "1p")])[-1]
    assert [format_tiles(x.passed_since_discard) for x in s.seats] == ["", "5s", ""]


def test_nine_terminals_of_a_hidden_seat():
    s = run("sanma", [sanma_deal(east="1m9m1p" + "bk" * 10, south=BK13, west=BK13), Draw(0, "bk")])[-1]
    end = apply(s, AbortiveDraw("nine_terminals", 0))
    assert (end.ending.kind, end.ending.reason, end.ending.seat) == ("abortive_draw", "nine_terminals", 0)


# ---------------------------------------------------------------------------------------------
# The camera's view of whole games


@pytest.mark.parametrize("log,players", [(SANMA, ("A", "B", "C")), (T1, ("A", "B", "C"))])
def test_a_camera_log_records_the_same_match_events(log, players):
    match = MatchLog()
    match.append(MatchCreated(log[0].variant, players))
    seen, _ = camera(log, hidden=range(len(players)))
    assert match_events(seen, match.state) == match_events(log, match.state)


def test_scripted_games_seen_by_a_camera():
    known, seen = same_public_game(H2, hidden=(0, 1, 2, 3))
    assert seen.ending.wins[0].result.total == 7 and seen.ending.net(4) == [0, 0, 96, -96]
    known, seen = same_public_game(T1, hidden=(0, 1, 2), split_bonus=True)
    assert seen.ending.net(3) == [-11, 18, -7]


# seeds that reach, for the hidden seats: a riichi and a ron (sanma 2), a riichi and a tsumo (sanma 19), two
# riichi and an exhaustive draw (sanma 80), a ron (korean-3p 76), a tsumo (korean-3p 17, hong-kong 18), sunk
# and swapped Fei (three-kaki 12, 25), a tsumo with a sunk Fei (three-kaki 29)
GAMES = [("sanma", 2, "win", [(1, False)]), ("sanma", 19, "win", [(1, True)]),
         ("sanma", 80, "exhaustive_draw", []), ("korean-3p", 76, "win", [(2, False)]),
         ("korean-3p", 17, "win", [(2, True)]), ("hong-kong", 18, "win", [(3, True)]),
         ("three-kaki", 12, "win", [(2, False)]), ("three-kaki", 25, "exhaustive_draw", []),
         ("three-kaki", 29, "win", [(1, True)])]


@pytest.mark.parametrize("variant,seed,kind,wins", GAMES)
def test_random_games_seen_by_a_camera(variant, seed, kind, wins):
    events, final = play(variant, seed)
    known, seen = same_public_game(events, hidden=range(1, final.players), split_bonus=seed % 2 == 1)
    assert (seen.ending.kind, [(w.seat, w.tsumo) for w in seen.ending.wins]) == (kind, wins)
    assert seen.ending.to_json() == known.ending.to_json() == final.ending.to_json()
    assert points(seen) == points(known)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(VARIANTS), seed=st.integers(0, 2**32 - 1), short=st.booleans(),
       split=st.booleans())
def test_any_legal_game_replays_as_a_camera_sees_it(variant, seed, short, split):
    try:
        events, final = play(variant, seed, short_wall=8 if short else None)
    except IndexError:  # the random player found no legal move (three-kaki: a chow can leave no allowed discard)
        assume(False)
    known, seen = same_public_game(events, hidden=range(1, final.players), split_bonus=split)
    assert (seen.ending is None) == (known.ending is None)
    if seen.ending is not None:
        assert seen.ending.to_json() == known.ending.to_json()
