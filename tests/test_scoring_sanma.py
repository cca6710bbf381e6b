"""Sanma scoring (shared/rules/sanma.md §2, §5–§9): the worked examples E1–E6 and E10, every yaku and
yakuman, the limits, fu, tsumo loss and its split option, honba options, riichi sticks, pao and kiriage.

Every expected number is worked out by hand in the comment next to it. Seats: 0 = East (dealer),
1 = South, 2 = West. ``base`` = fu × 2^(han+2); ron = 4 × base (dealer 6 ×), tsumo = dealer 2 × base and
non-dealer 1 × base (dealer winner: 2 × base each), each payment rounded up to 100.
"""

from __future__ import annotations

import pytest

from assistant.analysis import Decomposition, SetPart
from assistant.errors import TileError
from assistant.hand import parse_hand
from assistant.scoring import score
from assistant.scoring.base import Payment, ScoreResult, WinContext
from assistant.scoring.sanma import nagashi_mangan
from assistant.scoring.sanma import score as sanma_score
from assistant.scoring.sanma.points import hand_value, tsumo_shares
from assistant.scoring.sanma.yaku import Reading, SanshokuDoujun
from assistant.tiles import Tile, parse_tiles
from assistant.variants import SANMA

TENHOU_HONBA = {"ron": 200, "tsumo_each": 100}
FOUR_PLAYER_HONBA = {"ron": 300, "tsumo_each": 100}


def ctx(text: str, *, tsumo: bool = False, seat: int = 1, discarder: int | None = None, dora: str = "",
        ura: str = "", **kw) -> WinContext:
    """A win from hand notation with the winning tile marked ``*``; a ron comes from the previous
    player (``seat - 1``) unless ``discarder`` is given."""
    hand = parse_hand(text)
    assert hand.win_tile is not None, "mark the winning tile with *"
    if not tsumo and discarder is None:
        discarder = (seat - 1) % 3
    return WinContext(SANMA, hand, hand.win_tile, tsumo, seat=seat, discarder=discarder,
                      dora_indicators=tuple(parse_tiles(dora)), ura_indicators=tuple(parse_tiles(ura)), **kw)


def win(text: str, **kw) -> ScoreResult:
    """Score through the shared dispatcher (which applies table options to the rule system)."""
    return score(ctx(text, **kw))


def win_direct(text: str, **kw) -> ScoreResult:
    """Score with the sanma scorer itself. Used for the ``honba`` option: the dispatcher's
    ``RuleSystem.with_options`` tests ``value in structural_options[...]``, which raises TypeError for
    a dict value such as ``{"ron": 200, "tsumo_each": 100}`` (reported to the lead)."""
    return sanma_score(ctx(text, **kw))


def pays(r: ScoreResult) -> list[tuple[int | None, int]]:
    return [(p.payer, p.amount) for p in r.payments]


def yaku(r: ScoreResult) -> dict[str, int]:
    return {i.name: i.value for i in r.items}


def fu_items(r: ScoreResult) -> dict[str, int]:
    return {i.name: i.value for i in r.fu_breakdown if i.value}


# ---------------------------------------------------------------------------------------------
# Worked examples of sanma.md §13

E1 = "111m 234p 678p 34s 99s 5s*"
E2 = "234p 567p 99p 234s 67s 8s*"
E3 = "111m 234p 567p 23s 55s 4s* | 4z4z"
E5 = "234p 555p 678s 24s 88s 3s*"
E6 = "[777z@1] 123p 406p 78p 55p 9p*"


def test_e1_tsumo_loss_basic():
    r = win(E1, tsumo=True, seat=1)
    # menzen tsumo 1 han; fu 20 + 8 (closed 111m) + 2 (tsumo) = 30; base 30 × 2^3 = 240
    assert r.legal and yaku(r) == {"Menzen tsumo": 1}
    assert (r.total, r.unit, r.fu, r.limit, r.extra["base"]) == (1, "han", 30, None, 240)
    assert fu_items(r) == {"base": 20, "closed pon of terminals/honours 1m": 8, "tsumo": 2}
    assert sum(i.value for i in r.fu_breakdown) == 30
    # dealer 2 × 240 = 480 -> 500, West 240 -> 300; the North share (300) is lost
    assert r.payments == [Payment(0, 1, 500, "win"), Payment(2, 1, 300, "win")]
    assert r.net(3) == [-500, 800, -300]
    assert "Tsumo loss" in r.explanation and "South" in r.explanation


def test_e2_dealer_tsumo_with_honba_and_own_stick():
    r = win(E2, tsumo=True, seat=0, riichi=True, honba=1, riichi_sticks=1)
    # riichi 1 + menzen tsumo 1 + pinfu 1 = 3 han, pinfu tsumo 20 fu; base 20 × 2^5 = 640 -> 1,300 each
    assert yaku(r) == {"Riichi": 1, "Menzen tsumo": 1, "Pinfu": 1}
    assert (r.total, r.fu) == (3, 20)
    assert r.payments == [
        Payment(1, 0, 1300, "win"), Payment(2, 0, 1300, "win"),
        Payment(1, 0, 500, "honba"), Payment(2, 0, 500, "honba"),
        Payment(None, 0, 1000, "riichi sticks"),
    ]
    # South and West pay 1,300 + 500 = 1,800 each; East +3,600 and its own stick back: +4,600
    assert r.net(3) == [4600, -1800, -1800]


@pytest.mark.parametrize("honba", [TENHOU_HONBA, FOUR_PLAYER_HONBA])
def test_e2_tsumo_honba_options_100_each(honba):
    r = win_direct(E2, tsumo=True, seat=0, riichi=True, honba=1, options={"honba": honba})
    # 1,300 + 1 × 100 = 1,400 from each (2,800) under both the Tenhou-style and the four-player habit
    assert r.net(3) == [2800, -1400, -1400]


def test_e3_nukidora_tsumo_and_no_yaku_on_ron():
    r = win(E3, tsumo=True, seat=1, riichi=True)
    # riichi 1 + menzen tsumo 1 + nukidora 2 = 4 han; fu 20 + 8 + 2 = 30; base 30 × 2^6 = 1,920
    assert yaku(r) == {"Riichi": 1, "Menzen tsumo": 1, "Nukidora": 2}
    assert (r.total, r.fu) == (4, 30)
    assert pays(r) == [(0, 3900), (2, 2000)]  # 3,840 -> 3,900 and 1,920 -> 2,000; South +5,900
    r = win(E3, seat=1, discarder=0)
    assert not r.legal and r.verdict.startswith("no yaku")
    assert "nukidora 2" in r.verdict and r.payments == []


def test_e4_north_is_dora():
    r = win(E3, tsumo=True, seat=1, riichi=True, dora="3z")
    # West indicator -> North is dora: each set-aside North 2 han -> dora 2 + nukidora 2; 2 + 4 = 6 han
    assert yaku(r) == {"Riichi": 1, "Menzen tsumo": 1, "Dora": 2, "Nukidora": 2}
    assert (r.total, r.limit) == (6, "haneman")
    assert pays(r) == [(0, 6000), (2, 3000)]


def test_e5_ron_with_honba_and_sticks():
    r = win(E5, seat=2, discarder=1, riichi=True, dora="1s", honba=2, riichi_sticks=2)
    # riichi 1 + tanyao 1 + dora (2s) 1 = 3 han; fu 20 + 10 + 4 (closed 555p) + 2 (kanchan) = 36 -> 40
    assert yaku(r) == {"Riichi": 1, "Tanyao": 1, "Dora": 1}
    assert (r.total, r.fu) == (3, 40)
    assert fu_items(r) == {"base": 20, "closed ron": 10, "closed pon of simples 5p": 4, "wait: kanchan": 2,
                           "rounded up": 4}
    # 40 × 2^5 = 1,280 × 4 = 5,120 -> 5,200; + 2 × 1,000 honba; West also takes the 2 sticks
    assert r.payments == [Payment(1, 2, 5200, "win"), Payment(1, 2, 2000, "honba"),
                          Payment(None, 2, 2000, "riichi sticks")]
    assert r.net(3) == [0, -7200, 9200]


@pytest.mark.parametrize("honba,south_pays", [(TENHOU_HONBA, 5600), (FOUR_PLAYER_HONBA, 5800)])
def test_e5_ron_honba_options(honba, south_pays):
    r = win_direct(E5, seat=2, discarder=1, riichi=True, dora="1s", honba=2, options={"honba": honba})
    # 5,200 + 2 × 200 = 5,600 (Tenhou-style); 5,200 + 2 × 300 = 5,800 (four-player habit)
    assert r.net(3)[1] == -south_pays


def test_e6_dealer_mangan_ron():
    r = win(E6, seat=0, discarder=2)
    # yakuhai red 1 + ittsu (open) 1 + honitsu (open) 2 + red five 1 = 5 han -> mangan, dealer ron 12,000
    assert yaku(r) == {"Yakuhai: Red": 1, "Ittsu": 1, "Honitsu": 2, "Red five": 1}
    assert (r.total, r.limit, r.extra["base"]) == (5, "mangan", 2000)
    assert r.payments == [Payment(2, 0, 12000, "win")]


E10 = "223344p 66778s 8s* 11s"


def test_e10_kiriage_option():
    r = win(E10, seat=1, discarder=0)
    # ryanpeikou 3 + pinfu 1 = 4 han, pinfu ron 30 fu (beats chiitoitsu 2 han 25 fu);
    # 30 × 2^6 = 1,920 × 4 = 7,680 -> 7,700
    assert yaku(r) == {"Pinfu": 1, "Ryanpeikou": 3}
    assert (r.total, r.fu, r.limit) == (4, 30, None)
    assert pays(r) == [(0, 7700)]
    r = win(E10, seat=1, discarder=0, options={"kiriage": True})
    assert (r.limit, pays(r)) == ("mangan", [(0, 8000)])


def test_kiriage_three_han_sixty_fu():
    hand = "111m 999p 111s 23p 4p* 55s"
    r = win(hand, seat=1, riichi=True)
    # riichi 1 + san ankou 2 = 3 han; fu 20 + 10 + 3 × 8 (closed terminal pons) = 54 -> 60;
    # 60 × 2^5 = 1,920 × 4 = 7,680 -> 7,700; with kiriage a mangan 8,000
    assert (r.total, r.fu, pays(r)) == (3, 60, [(0, 7700)])
    assert pays(win(hand, seat=1, riichi=True, options={"kiriage": True})) == [(0, 8000)]


# ---------------------------------------------------------------------------------------------
# Tsumo loss and the split option


def test_split_option_non_dealer_tsumo():
    r = win(E1, tsumo=True, seat=1, options={"tsumo_mode": "split"})
    # North's share 240 -> 300, half 150 -> 200 added to each payer: 500 + 200, 300 + 200
    assert pays(r) == [(0, 700), (2, 500)]
    assert "split" in r.explanation


def test_split_option_dealer_tsumo():
    r = win(E2, tsumo=True, seat=0, riichi=True, options={"tsumo_mode": "split"})
    # each pays 1,300; North's 1,300 halved = 650 -> 700 more each: 2,000 each
    assert pays(r) == [(1, 2000), (2, 2000)]
    assert tsumo_shares(0, 640, "loss") == {1: 1300, 2: 1300}


# ---------------------------------------------------------------------------------------------
# Yaku, one by one


def test_double_riichi():
    r = win(E2, seat=1, double_riichi=True)
    # double riichi 2 + pinfu 1 = 3 han 30 fu: 960 × 4 = 3,840 -> 3,900
    assert yaku(r) == {"Double riichi": 2, "Pinfu": 1}
    assert pays(r) == [(0, 3900)]


def test_ippatsu_tsumo():
    r = win(E2, tsumo=True, seat=1, riichi=True, ippatsu=True)
    # riichi + ippatsu + tsumo + pinfu = 4 han 20 fu: base 1,280; dealer 2,560 -> 2,600, West 1,300
    assert yaku(r) == {"Riichi": 1, "Ippatsu": 1, "Menzen tsumo": 1, "Pinfu": 1}
    assert pays(r) == [(0, 2600), (2, 1300)]


@pytest.mark.parametrize("hand", [E2, "234p 567p 234s 67s 44z 8s*"])
def test_pinfu_ron_30_fu_including_north_pair(hand):
    r = win(hand, seat=1)
    # pinfu 1 han, fu 20 + 10 (closed ron) = 30 -> 1,000; a North pair is a non-value pair
    assert yaku(r) == {"Pinfu": 1}
    assert (r.fu, pays(r)) == (30, [(0, 1000)])


def test_iipeikou():
    r = win("22334p 4p* 567s 789s 99p", seat=1)
    # iipeikou 1 + pinfu 1 (4p completes 23p, two-sided) = 2 han 30 fu: 480 × 4 = 1,920 -> 2,000
    assert yaku(r) == {"Pinfu": 1, "Iipeikou": 1}
    assert pays(r) == [(0, 2000)]


def test_open_tanyao_needs_kuitan():
    hand = "[555p@1] 234p 678s 33s 44s 4s*"
    r = win(hand, seat=1)
    # tanyao 1; fu 20 + 2 (open 555p) + 2 (444s completed by ron = open) = 24 -> 30: 240 × 4 = 960 -> 1,000
    assert yaku(r) == {"Tanyao": 1}
    assert (r.fu, pays(r)) == (30, [(0, 1000)])
    assert fu_items(r)["open pon of simples 4s"] == 2
    r = win(hand, seat=1, options={"kuitan": False})
    assert not r.legal and r.verdict.startswith("no yaku")


def test_yakuhai_white_and_green():
    r = win("[555z@1] [666z@2] 234p 567p 9s 9s*", seat=1)
    # White 1 + Green 1 = 2 han; fu 20 + 4 + 4 (open honour pons) + 2 (tanki) = 30: 480 × 4 -> 2,000
    assert yaku(r) == {"Yakuhai: White": 1, "Yakuhai: Green": 1}
    assert (r.fu, pays(r)) == (30, [(0, 2000)])


def test_yakuhai_seat_and_round_wind():
    r = win("[222z@1] 234p 567p 789s 1p 1p*", seat=1, round_wind=28)
    # South seat in the South round: 2 han; fu 20 + 4 + 2 (tanki) = 26 -> 30: 2,000
    assert yaku(r) == {"Yakuhai: seat wind": 1, "Yakuhai: round wind": 1}
    assert pays(r) == [(0, 2000)]


def test_haitei():
    r = win(E1, tsumo=True, seat=1, haitei=True)
    # tsumo 1 + haitei 1 = 2 han 30 fu: base 480; 960 -> 1,000 and 500
    assert yaku(r) == {"Menzen tsumo": 1, "Haitei": 1}
    assert pays(r) == [(0, 1000), (2, 500)]


@pytest.mark.parametrize("flag,name", [("houtei", "Houtei"), ("chankan", "Chankan")])
def test_houtei_and_chankan(flag, name):
    r = win(E1, seat=1, **{flag: True})
    # 1 han; fu 20 + 10 + 8 = 38 -> 40: 320 × 4 = 1,280 -> 1,300
    assert yaku(r) == {name: 1}
    assert (r.fu, pays(r)) == (40, [(0, 1300)])


def test_rinshan_after_a_kan_open_hand():
    r = win("[1111m@1] 234p 678p 34s 99s 5s*", tsumo=True, seat=1, rinshan=True)
    # rinshan 1 (open: no menzen tsumo); fu 20 + 16 (open terminal kan) + 2 = 38 -> 40; base 320:
    # dealer 640 -> 700, West 320 -> 400
    assert yaku(r) == {"Rinshan kaihou": 1}
    assert fu_items(r)["open kan of terminals/honours 1m"] == 16
    assert pays(r) == [(0, 700), (2, 400)]


def test_rinshan_after_kita():
    r = win(E1 + " | 4z", tsumo=True, seat=1, rinshan=True)
    # tsumo 1 + rinshan 1 + nukidora 1 = 3 han 30 fu: base 960 -> 2,000 and 1,000
    assert yaku(r) == {"Menzen tsumo": 1, "Rinshan kaihou": 1, "Nukidora": 1}
    assert pays(r) == [(0, 2000), (2, 1000)]


def test_chiitoitsu_25_fu():
    r = win("11p 33p 55p 77s 99s 22z 6z 6z*", seat=1)
    # 2 han 25 fu: 25 × 2^4 = 400 × 4 = 1,600
    assert yaku(r) == {"Chiitoitsu": 2}
    assert (r.fu, fu_items(r), pays(r)) == (25, {"chiitoitsu (fixed)": 25}, [(0, 1600)])


def test_chiitoitsu_honitsu_tsumo_haneman():
    r = win("11p 33p 55p 77p 99p 22z 6z 6z*", tsumo=True, seat=1)
    # tsumo 1 + chiitoitsu 2 + honitsu 3 = 6 han -> haneman 6,000 / 3,000
    assert yaku(r) == {"Menzen tsumo": 1, "Chiitoitsu": 2, "Honitsu": 3}
    assert (r.limit, pays(r)) == ("haneman", [(0, 6000), (2, 3000)])


def test_sanshoku_doujun_needs_man_chows():
    """Sanshoku doujun cannot occur in sanma (no 2m–8m); the predicate itself works on man chows."""
    dec = Decomposition("standard", (SetPart("chow", (0, 1, 2)), SetPart("chow", (9, 10, 11)),
                                     SetPart("chow", (18, 19, 20)), SetPart("pong", (31, 31, 31))), (27,))
    c = ctx(E2, seat=1)
    assert SanshokuDoujun().applies(Reading(c, dec, 0, "ryanmen", True))
    other = Decomposition("standard", dec.sets[1:] + (SetPart("chow", (9, 10, 11)),), (27,))
    assert not SanshokuDoujun().applies(Reading(c, other, 0, "ryanmen", True))


def test_closed_ittsu():
    r = win("12345678s 9s* 234p 55p", seat=1)
    # ittsu 2 + pinfu 1 (78s waits 6s/9s) = 3 han 30 fu: 960 × 4 -> 3,900
    assert yaku(r) == {"Pinfu": 1, "Ittsu": 2}
    assert pays(r) == [(0, 3900)]


def test_chanta_with_penchan():
    r = win("12p 3p* 789p 789s 333z 11s", seat=1)
    # chanta 2; fu 20 + 10 + 8 (closed West pon) + 2 (penchan 12p) = 40: 640 × 4 = 2,560 -> 2,600
    assert yaku(r) == {"Chanta": 2}
    assert fu_items(r) == {"base": 20, "closed ron": 10, "closed pon of terminals/honours 3z": 8,
                           "wait: penchan": 2}
    assert pays(r) == [(0, 2600)]


def test_junchan():
    r = win("123p 789p 12s 3s* 999s 11p", seat=1)
    # junchan 3; fu 20 + 10 + 8 (999s) + 2 (penchan) = 40: 1,280 × 4 = 5,120 -> 5,200
    assert yaku(r) == {"Junchan": 3}
    assert pays(r) == [(0, 5200)]


def test_toitoi_open_with_ron_pon():
    r = win("[222p@1] [999s@2] 444s 11p 77z 1p*", seat=1)
    # toitoi 2; fu 20 + 2 (open 222p) + 4 (open 999s) + 4 (closed 444s) + 4 (111p by ron: open terminal)
    # + 2 (Red pair) = 36 -> 40: 640 × 4 -> 2,600
    assert yaku(r) == {"Toitoi": 2}
    assert fu_items(r) == {"base": 20, "open pon of simples 2p": 2, "open pon of terminals/honours 9s": 4,
                           "closed pon of simples 4s": 4, "open pon of terminals/honours 1p": 4,
                           "pair of dragons 7z": 2, "rounded up": 4}
    assert pays(r) == [(0, 2600)]


def test_san_ankou_tsumo():
    r = win("111p 333s 555s 78p 9p* 44z", tsumo=True, seat=1)
    # tsumo 1 + san ankou 2 = 3 han; fu 20 + 8 + 4 + 4 + 2 = 38 -> 40; base 1,280: 2,600 / 1,300
    assert yaku(r) == {"Menzen tsumo": 1, "San ankou": 2}
    assert pays(r) == [(0, 2600), (2, 1300)]


def test_sanshoku_doukou():
    r = win("[111m@1] 111p 111s 23s 4s* 99s", seat=1)
    # sanshoku doukou 2; fu 20 + 4 (open 111m) + 8 + 8 = 40: 640 × 4 -> 2,600
    assert yaku(r) == {"Sanshoku doukou": 2}
    assert pays(r) == [(0, 2600)]


def test_san_kantsu_mangan_by_fu():
    r = win("[1111m@1] [9999p@2] (0555s) 234p 7s 7s*", seat=1)
    # san kantsu 2 + red five 1 = 3 han; fu 20 + 16 + 16 (open terminal kans) + 16 (closed simple kan)
    # + 2 (tanki) = 70; 70 × 2^5 = 2,240 > 2,000 -> mangan 8,000
    assert yaku(r) == {"San kantsu": 2, "Red five": 1}
    assert fu_items(r)["closed kan of simples 5s"] == 16
    assert (r.fu, r.limit, pays(r)) == (70, "mangan", [(0, 8000)])


def test_honroutou_toitoi():
    r = win("[111m@1] 999p 111s 99s 77z 7z*", seat=1)
    # toitoi 2 + honroutou 2 + Red 1 = 5 han -> mangan 8,000
    assert yaku(r) == {"Yakuhai: Red": 1, "Toitoi": 2, "Honroutou": 2}
    assert pays(r) == [(0, 8000)]


def test_shousangen():
    r = win("[555z@1] 666z 77z 23s 4s* 567p", tsumo=True, seat=1)
    # White 1 + Green 1 + shousangen 2 = 4 han; fu 20 + 4 + 8 + 2 (Red pair) + 2 = 36 -> 40;
    # 40 × 2^6 = 2,560 > 2,000 -> mangan tsumo 4,000 / 2,000
    assert yaku(r) == {"Yakuhai: White": 1, "Yakuhai: Green": 1, "Shousangen": 2}
    assert (r.limit, pays(r)) == ("mangan", [(0, 4000), (2, 2000)])


def test_chinitsu_haneman():
    r = win("234p 456p 678p 888p 9p 9p*", seat=1)
    # chinitsu 6 (closed) -> haneman 12,000
    assert yaku(r) == {"Chinitsu": 6}
    assert (r.limit, pays(r)) == ("haneman", [(0, 12000)])


def test_reading_that_pays_most_is_chosen():
    r = win("111p 222p 33p 3p* 789s 55s", tsumo=True, seat=1)
    # 111p 222p 333p: tsumo 1 + san ankou 2 = 3 han 40 fu (20 + 8 + 4 + 4 + 2) -> 2,600 / 1,300
    # beats 123p ×3: tsumo 1 + iipeikou 1 = 2 han 30 fu (penchan) -> 1,000 / 500
    assert r.reading.startswith("111p 222p 333p")
    assert yaku(r) == {"Menzen tsumo": 1, "San ankou": 2}
    assert pays(r) == [(0, 2600), (2, 1300)]


# ---------------------------------------------------------------------------------------------
# Fu


def test_closed_kan_of_terminals_32_fu():
    r = win("(1111m) 234p 678p 34s 99s 5s*", tsumo=True, seat=1)
    # an ankan keeps the hand closed: menzen tsumo 1; fu 20 + 32 + 2 = 54 -> 60; base 480: 1,000 / 500
    assert yaku(r) == {"Menzen tsumo": 1}
    assert (r.fu, pays(r)) == (60, [(0, 1000), (2, 500)])


def test_open_kan_of_simples_8_fu():
    r = win("[4444p@1] 567p 789s 55z 11s 5z*", seat=1)
    # White 1; fu 20 + 8 (open simple kan) + 4 (555z by ron: open honour pon) = 32 -> 40: 1,300
    assert fu_items(r)["open kan of simples 4p"] == 8
    assert (r.fu, pays(r)) == (40, [(0, 1300)])


@pytest.mark.parametrize("option,fu,amount", [(4, 50, 2400), (2, 40, 2000)])
def test_double_wind_pair(option, fu, amount):
    r = win("111p 567p 234s 67s 8s* 11z", seat=0, riichi=True, options={"double_wind_pair_fu": option})
    # dealer East in the East round, East pair: 20 + 10 + 8 (closed 111p) + 4 = 42 -> 50 -> 400 × 6 = 2,400;
    # with the 2-fu option 40 -> 320 × 6 = 1,920 -> 2,000
    assert (r.fu, pays(r)) == (fu, [(2, amount)])


# ---------------------------------------------------------------------------------------------
# Dora


def test_dora_1m_indicator_points_to_9m():
    r = win("999m 234p 678p 34s 99s 5s*", tsumo=True, seat=1, riichi=True, dora="1m")
    # riichi 1 + tsumo 1 + dora 3 (three 9m) = 5 han -> mangan 4,000 / 2,000
    assert yaku(r)["Dora"] == 3
    assert pays(r) == [(0, 4000), (2, 2000)]


def test_dora_9m_indicator_points_to_1m_and_ura_needs_riichi():
    r = win(E1, tsumo=True, seat=1, dora="9m", ura="9m")
    # tsumo 1 + dora 3 (111m); no riichi so no ura: 4 han 30 fu -> 3,900 / 2,000
    assert yaku(r) == {"Menzen tsumo": 1, "Dora": 3}
    assert pays(r) == [(0, 3900), (2, 2000)]


def test_ura_dora_on_north_counts_set_aside_norths():
    r = win(E3, tsumo=True, seat=1, riichi=True, ura="3z")
    # riichi 1 + tsumo 1 + nukidora 2 + ura 2 (each set-aside North again) = 6 han -> haneman
    assert yaku(r) == {"Riichi": 1, "Menzen tsumo": 1, "Ura dora": 2, "Nukidora": 2}
    assert pays(r) == [(0, 6000), (2, 3000)]


def test_red_five_in_a_meld_and_honour_wrap():
    r = win("[055p@1] 234s 678s 22s 33p 3p*", seat=1, dora="4z")
    # tanyao 1 + red five 1 (in the pon) = 2 han; 4z indicator -> East, none held;
    # fu 20 + 2 + 2 (333p by ron) = 24 -> 30: 480 × 4 = 1,920 -> 2,000
    assert yaku(r) == {"Tanyao": 1, "Red five": 1}
    assert pays(r) == [(0, 2000)]
    r = win("[111z@1] 234p 567p 789s 1p 1p*", seat=1, dora="4z")
    # 4z indicator wraps to East: 3 dora; seat 1 round East: round wind 1 -> 4 han; fu 20 + 4 + 2 = 26 -> 30
    assert yaku(r) == {"Yakuhai: round wind": 1, "Dora": 3}
    assert pays(r) == [(0, 7700)]  # 30 × 2^6 = 1,920 × 4 = 7,680 -> 7,700


def test_red_fives_option_off():
    # with red fives off the set has no 0p: the dispatcher applies that to the tile set
    with pytest.raises(TileError, match="no red five"):
        win(E6, seat=0, discarder=2, options={"red_fives": False})
    r = sanma_score(ctx(E6, seat=0, discarder=2, options={"red_fives": False}))
    # scored directly, a red tile then counts as a plain 5p: 4 han 30 fu, 1,920 × 6 = 11,520 -> 11,600
    assert "Red five" not in yaku(r)
    assert pays(r) == [(2, 11600)]


# ---------------------------------------------------------------------------------------------
# Limits


BAIMAN = "234p 456p 678p 888p 9p 9p*"


def test_baiman_sanbaiman_and_kazoe():
    r = win(BAIMAN, tsumo=True, seat=1, riichi=True)
    # riichi 1 + tsumo 1 + chinitsu 6 = 8 han -> baiman 8,000 / 4,000
    assert (r.total, r.limit, pays(r)) == (8, "baiman", [(0, 8000), (2, 4000)])
    r = win(BAIMAN, tsumo=True, seat=0, riichi=True, dora="7p")
    # + 4 dora (four 8p) = 12 han -> dealer sanbaiman 12,000 each
    assert (r.total, r.limit, pays(r)) == (12, "sanbaiman", [(1, 12000), (2, 12000)])
    r = win(BAIMAN, tsumo=True, seat=1, riichi=True, dora="7p", ura="7p")
    # + 4 dora + 4 ura = 16 han -> kazoe yakuman 16,000 / 8,000
    assert (r.total, r.unit, r.limit, r.extra["kazoe"]) == (16, "han", "yakuman", True)
    assert pays(r) == [(0, 16000), (2, 8000)]
    r = win(BAIMAN, tsumo=True, seat=1, riichi=True, dora="7p", ura="7p", options={"kazoe": "sanbaiman"})
    assert (r.limit, pays(r)) == ("sanbaiman", [(0, 12000), (2, 6000)])


def test_limit_table_values():
    # han 5 / 6-7 / 8-10 / 11-12 / 13+ -> base 2,000 / 3,000 / 4,000 / 6,000 / 8,000
    assert [hand_value(h, 30, 0).base for h in (5, 7, 10, 11, 12, 13)] == [2000, 3000, 4000, 6000, 6000, 8000]
    assert hand_value(3, 70, 0).limit == "mangan"  # 70 × 32 = 2,240
    assert hand_value(0, 30, 2).limit == "double yakuman" and hand_value(0, 30, 2).base == 16000


# ---------------------------------------------------------------------------------------------
# Yakuman


KOKUSHI = "119m19p19s123456z 7z*"


def test_kokushi_and_13_sided_double():
    r = win(KOKUSHI, tsumo=True, seat=1)
    # yakuman non-dealer tsumo 16,000 / 8,000; no fu for thirteen orphans
    assert (yaku(r), r.total, r.unit, r.fu) == ({"Kokushi musou": 1}, 1, "yakuman", None)
    assert pays(r) == [(0, 16000), (2, 8000)]
    r = win("19m19p19s1234567z 1m*", tsumo=True, seat=1)
    # 13-sided wait: double yakuman 32,000 / 16,000; 1x with double_yakuman off
    assert (yaku(r), r.limit, pays(r)) == ({"Kokushi musou (13-sided wait)": 2}, "double yakuman",
                                           [(0, 32000), (2, 16000)])
    r = win("19m19p19s1234567z 1m*", tsumo=True, seat=1, options={"double_yakuman": False})
    assert (r.limit, pays(r)) == ("yakuman", [(0, 16000), (2, 8000)])


def test_kokushi_robbing_an_ankan_adds_no_chankan():
    r = win(KOKUSHI, seat=1, chankan=True)
    assert yaku(r) == {"Kokushi musou": 1} and pays(r) == [(0, 32000)]


def test_suu_ankou_tsumo_tanki_and_shanpon_ron():
    r = win("111p 333p 555s 77s 7s* 99s", tsumo=True, seat=0)
    # dealer yakuman tsumo: 16,000 from each
    assert yaku(r) == {"Suu ankou": 1} and pays(r) == [(1, 16000), (2, 16000)]
    r = win("111p 333p 555s 777s 9s 9s*", seat=1)
    # single wait: double yakuman ron 64,000
    assert yaku(r) == {"Suu ankou (single wait)": 2} and pays(r) == [(0, 64000)]
    r = win("111p 333p 555s 77s 7s* 99s", seat=1)
    # ron on the shanpon: 777s counts open -> toitoi 2 + san ankou 2 = 4 han;
    # fu 20 + 10 + 8 + 4 + 4 + 2 = 48 -> 50: 50 × 2^6 = 3,200 > 2,000 -> mangan 8,000
    assert yaku(r) == {"Toitoi": 2, "San ankou": 2}
    assert (r.fu, pays(r)) == (50, [(0, 8000)])


@pytest.mark.parametrize("hand,name", [
    ("555z 666z 777z 234p 9p 9p*", "Daisangen"),
    ("[111z@1] 222z 333z 44z 23p 4p*", "Shousuushii"),
    ("[111z@1] 222z 555z 66z 77z 7z*", "Tsuuiisou"),
    ("22334s 4s* 666s 888s 66z", "Ryuuiisou"),
    ("[111m@1] 999m 111p 999p 1s 1s*", "Chinroutou"),
    ("1112345567899p 9p*", "Chuuren poutou"),
])
def test_single_yakuman_ron_32000(hand, name):
    r = win(hand, seat=1)
    # one yakuman, non-dealer ron: 4 × 8,000 = 32,000; ordinary yaku and dora are ignored
    assert yaku(r) == {name: 1}
    assert (r.limit, pays(r)) == ("yakuman", [(0, 32000)])


def test_chuuren_nine_sided_double():
    r = win("1112345678999p 5p*", seat=1)
    # 1112345678999p waited on all nine: double yakuman 64,000
    assert yaku(r) == {"Chuuren poutou (9-sided wait)": 2} and pays(r) == [(0, 64000)]


def test_suu_kantsu_and_its_pao_option():
    hand = "[1111m@1] [9999m@2] (2222p) [3333s@1] 5p 5p*"
    r = win(hand, tsumo=True, seat=1)
    # yakuman tsumo 16,000 / 8,000 (suukantsu is not under pao by default)
    assert yaku(r) == {"Suu kantsu": 1} and pays(r) == [(0, 16000), (2, 8000)]
    pao = {"pao": ("daisangen", "daisuushii", "suukantsu")}
    r = win(hand, tsumo=True, seat=1, options=pao)
    # the 4th kan [3333s@1] came from seat 1 - 1 = 0: East pays as for a ron, 32,000
    assert r.payments == [Payment(0, 1, 32000, "win (pao: liable pays all)")]
    # an added 4th kan: its 4th tile was drawn, so nobody is liable
    r = win("[1111m@1] [9999m@2] (2222p) [3333s@1+] 5p 5p*", tsumo=True, seat=1, options=pao)
    assert pays(r) == [(0, 16000), (2, 8000)]


def test_tenhou_chiihou():
    r = win(E2, tsumo=True, seat=0, tenhou=True)
    assert yaku(r) == {"Tenhou": 1} and pays(r) == [(1, 16000), (2, 16000)]
    r = win(E2, tsumo=True, seat=2, chiihou=True)
    assert yaku(r) == {"Chiihou": 1} and pays(r) == [(0, 16000), (1, 8000)]


@pytest.mark.parametrize("renhou,items,amount", [
    ("off", {"Pinfu": 1}, 1000),  # the first-turn ron scores as usual: 1 han 30 fu
    ("mangan", {"Pinfu": 1, "Renhou": 5}, 12000),  # 6 han -> haneman
    ("yakuman", {"Renhou": 1}, 32000),
])
def test_renhou_option(renhou, items, amount):
    r = win(E2, seat=1, chiihou=True, options={"renhou": renhou})
    assert yaku(r) == items and pays(r) == [(0, amount)]


def test_yakuman_stack():
    r = win("555z 666z 777z 111z 2z 2z*", tsumo=True, seat=1)
    # suu ankou single wait 2 + daisangen 1 + tsuuiisou 1 = 4x: base 32,000 -> 64,000 / 32,000
    assert yaku(r) == {"Suu ankou (single wait)": 2, "Daisangen": 1, "Tsuuiisou": 1}
    assert (r.total, r.limit, pays(r)) == (4, "quadruple yakuman", [(0, 64000), (2, 32000)])


# ---------------------------------------------------------------------------------------------
# Pao


DAISANGEN_OPEN = "[555z@1] [666z@2] [777z@1] 234p 9p 9p*"


def test_pao_daisangen_tsumo_liable_pays_all():
    r = win(DAISANGEN_OPEN, tsumo=True, seat=1, honba=1)
    # the 3rd dragon pon [777z@1] came from seat 1 - 1 = 0 (East): East pays a ron, 32,000,
    # and the honba at the ron rate, 1,000
    assert r.extra["liable"] == 0
    assert r.payments == [Payment(0, 1, 32000, "win (pao: liable pays all)"), Payment(0, 1, 1000, "honba")]
    assert "liable" in r.explanation


def test_pao_daisangen_ron_from_another_player_splits():
    r = win(DAISANGEN_OPEN, seat=1, discarder=2, honba=1)
    # West (discarder) and East (liable) pay 32,000 / 2 = 16,000 each; the discarder pays the honba
    assert r.payments == [Payment(2, 1, 16000, "win (pao: discarder's half)"),
                          Payment(0, 1, 16000, "win (pao: liable's half)"), Payment(2, 1, 1000, "honba")]


def test_pao_ron_from_the_liable_player_is_a_plain_ron():
    r = win(DAISANGEN_OPEN, seat=1, discarder=0)
    assert r.payments == [Payment(0, 1, 32000, "win")]


def test_pao_daisuushii_double_and_pao_off():
    hand = "[111z@1] [222z@2] [333z@1] [444z@2] 9p 9p*"
    r = win(hand, tsumo=True, seat=1)
    # 4th wind [444z@2] from seat 1 - 2 = 2 (West): West pays a non-dealer double yakuman ron, 64,000
    assert yaku(r) == {"Daisuushii": 2}
    assert r.payments == [Payment(2, 1, 64000, "win (pao: liable pays all)")]
    r = win(hand, tsumo=True, seat=1, options={"pao": "none"})
    assert pays(r) == [(0, 32000), (2, 16000)]


def test_pao_needs_a_claimed_third_set_or_an_explicit_liable():
    # third dragon set concealed in hand: nobody fed it -> plain tsumo with tsumo loss
    r = win("[555z@1] [666z@2] 777z 234p 9p 9p*", tsumo=True, seat=1)
    assert r.extra["liable"] is None and pays(r) == [(0, 16000), (2, 8000)]
    # an added kan without @k hides who fed the pon; the table names the liable player
    r = win("[555z@1] [666z@2] [7777z+] 234p 9p 9p*", tsumo=True, seat=1, liable=2)
    assert r.payments == [Payment(2, 1, 32000, "win (pao: liable pays all)")]
    # with @k the added kan's pon names the feeder: seat 1 - 2 = 2 (West)
    r = win("[555z@1] [666z@2] [7777z@2+] 234p 9p 9p*", tsumo=True, seat=1)
    assert r.extra["liable"] == 2 and pays(r) == [(2, 32000)]


# ---------------------------------------------------------------------------------------------
# Nagashi mangan, bad input, illegal wins


def test_nagashi_mangan_payments():
    assert [(p.payer, p.amount) for p in nagashi_mangan(1)] == [(0, 4000), (2, 2000)]
    assert [(p.payer, p.amount) for p in nagashi_mangan(0)] == [(1, 4000), (2, 4000)]


def test_not_a_complete_hand():
    r = win("111m 234p 678p 34s 99s 7s*", tsumo=True, seat=1)
    assert not r.legal and r.verdict.startswith("not a complete hand") and r.payments == []


@pytest.mark.parametrize("text,kw,error,match", [
    ("{345p@1} 234p 567p 99p 67s 8s*", {}, ValueError, "no chi"),
    ("[777z@1] 123p 406p 78p 55p 9p*", {"riichi": True}, ValueError, "closed hand"),
    (E2, {"ippatsu": True}, ValueError, "ippatsu needs riichi"),
    (E2, {"rinshan": True, "tsumo": True}, ValueError, "kan or a kita"),
    (E2, {"round_wind": 30}, ValueError, "round wind"),
    (E2, {"tenhou": True, "tsumo": True, "seat": 1}, ValueError, "tenhou"),
    ("234p 567p 99p 234s 7s*", {}, TileError, "expected 14"),
    ("234p 567p 99p 234s 5m6m 7m*", {}, TileError, "not in the sanma tile set"),
    ("444z 234p 567p 23s 4s* 99p", {"kita": 2, "tsumo": True}, ValueError, "Norths"),
    (E3, {"kita": 3, "tsumo": True}, ValueError, "kita=3"),
    ("4444z 234p 567p 23s 4s* 9p | 4z", {"tsumo": True}, TileError, "fifth copy"),
    (E2, {"options": {"kazoe": "unlimited"}}, ValueError, "kazoe"),
])
def test_bad_input_raises(text, kw, error, match):
    with pytest.raises(error, match=match):
        win(text, **kw)


def test_ron_needs_a_discarder_and_tsumo_has_none():
    hand = parse_hand(E2)
    with pytest.raises(ValueError, match="discarder"):
        score(WinContext(SANMA, hand, Tile.from_code("8s"), tsumo=False, seat=1, discarder=None))
    with pytest.raises(ValueError, match="discarder"):
        score(WinContext(SANMA, hand, Tile.from_code("8s"), tsumo=False, seat=1, discarder=1))
    with pytest.raises(ValueError, match="no discarder"):
        score(WinContext(SANMA, hand, Tile.from_code("8s"), tsumo=True, seat=1, discarder=0))


def test_four_plain_fives_only_without_red_fives():
    hand = "345p 555p 234s 678s 8s 8s*"
    with pytest.raises(TileError, match="red 0p"):
        win(hand, seat=1)  # one of the four 5p is the red 0p when red fives are in play
    r = win(hand, seat=1, options={"red_fives": False})
    # tanyao 1; fu 20 + 10 + 4 (closed 555p) + 2 (tanki) = 36 -> 40: 320 × 4 = 1,280 -> 1,300
    assert yaku(r) == {"Tanyao": 1} and pays(r) == [(0, 1300)]


def test_winning_tile_must_be_in_the_hand():
    with pytest.raises(ValueError, match="winning tile 1p"):
        score(WinContext(SANMA, parse_hand(E2), Tile.from_code("1p"), tsumo=True, seat=1))
