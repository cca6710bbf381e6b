"""Table reconstruction on hand-built tables: meld sources from the sideways tile, riichi, added and
concealed kongs, Hong Kong's centre pool, Fei in sets, and impossible observations with their messages."""

from __future__ import annotations

import numpy as np
import pytest

from datasets.layout import TileDims
from datasets.table_scene import (
    MeldTruth,
    SeatTruth,
    TableTruth,
    _notation,
    label_tiles,
    layout_table,
    noisy_detections,
    sideways_index,
    table_camera,
)
from vision.calibration import from_camera
from vision.observation import OBSERVATION_SCHEMA, TableObservation
from vision.reconstruct import reconstruct

DIMS = TileDims(26.0, 35.0, 19.0)


def meld(tiles, source=None, kind="pong", added=None, concealed=False, stands=None, players=3, hk=False):
    side = None if concealed else sideways_index(source, len(tiles), players)
    faces = ([True, False, False, True] if hk else [False, True, True, False]) if concealed else [True] * len(tiles)
    m = MeldTruth(kind, list(tiles), list(stands or [t.replace("0", "5") for t in tiles]), faces, side, source,
                  added, concealed)
    m.notation = _notation(m)
    return m


def read(truth: TableTruth, seed: int = 0, view: str = "overhead", noise: float = 0.03, edit=None):
    """Lay out ``truth``, look at it, (optionally edit the detections) and reconstruct."""
    rng = np.random.default_rng(seed)
    placements, geo = layout_table(truth, DIMS, rng)
    pts = np.array([c for p in placements for c in (DIMS.corners() @ p.R.T + p.center)])
    cam = table_camera(view, rng, geo, 1280, 720, points=pts)
    labels = label_tiles(placements, cam, DIMS)
    dets = noisy_detections(labels, rng, sigma=noise)
    if edit is not None:
        edit(dets, labels)
    return reconstruct(dets, from_camera(cam.K, cam.R, cam.t, (1280, 720)), truth.variant), labels


def sanma_table(melds0=(), riichi=None, discards=None, norths=()):
    hand0 = ["1p", "2p", "3p", "4p", "6p", "7p", "8p", "9p", "1s", "2s", "3s", "5z", "5z"][: 13 - 3 * len(melds0)]
    seats = [
        SeatTruth(0, hand0, "face_up", False, list(melds0), discards or ["9m", "1z", "2z", "7s", "8s", "1s", "6z"],
                  riichi, [], list(norths)),
        SeatTruth(1, ["bk"] * 13, "face_down", False, [], ["1m", "3z"]),
        SeatTruth(2, ["bk"] * 13, "face_down", False, [], ["4s"]),
    ]
    return TableTruth("sanma", 3, seats, dora=["3s"], wall_tiles=40)


def test_meld_sources_three_players():
    melds = [meld(["7z", "7z", "7z"], source=1), meld(["6z", "6z", "6z"], source=2)]
    obs, _ = read(sanma_table(melds))
    s0 = obs.seat(0)
    assert [(m.type, m.sideways, m.source) for m in s0.melds] == [("pong", 0, 1), ("pong", 2, 2)]
    assert [m.notation for m in s0.melds] == ["[777z@1]", "[666z@2]"]
    # position 0's previous player in turn order is position 2 (3 players sit at 0, 1, 2), the next one 1
    assert [m.source_position for m in s0.melds] == [2, 1]
    assert obs.dora_indicators == ["3s"]
    assert not obs.problems


def test_meld_sources_four_players_and_chow():
    hand = ["1m", "2m", "3m", "9s"]
    melds = [meld(["5s", "4s", "6s"], source=1, kind="chow", players=4, stands=["5s", "4s", "6s"]),
             meld(["2z", "2z", "2z"], source=2, players=4),
             meld(["3z", "3z", "3z", "3z"], source=3, kind="kong", players=4)]
    seats = [SeatTruth(0, hand, "face_up", False, melds), SeatTruth(1, ["bk"] * 13, "face_down", False),
             SeatTruth(2, ["bk"] * 13, "face_down", False), SeatTruth(3, ["bk"] * 13, "face_down", False)]
    truth = TableTruth("hong-kong", 4, seats, centre_discards=["1p", "9p", "7z", "7z", "2s"], wall_tiles=60)
    obs, _ = read(truth, seed=3, view="oblique")
    s0 = obs.seat(0)
    assert [(m.type, m.sideways, m.source, m.source_position) for m in s0.melds] == [
        ("chow", 0, 1, 3), ("pong", 1, 2, 2), ("kong", 3, 3, 1)]
    assert [m.notation for m in s0.melds] == ["{456s@1}", "[222z@2]", "[3333z@3]"]
    assert obs.centre_discards == ["1p", "9p", "2s", "7z", "7z"]     # unordered pool, canonical order
    assert all(not s.discards for s in obs.seats)
    assert not obs.problems


def test_riichi_tile_and_discard_order():
    discards = ["9m", "1z", "2z", "7s", "8s", "9s", "6z", "1p", "3s"]
    obs, _ = read(sanma_table(riichi=7, discards=discards), seed=5, view="seat")
    s0 = obs.seat(0)
    assert s0.discards == discards           # rows of six, left to right, first row nearest the centre
    assert s0.riichi == 7
    assert not obs.problems


def test_added_and_concealed_kongs():
    melds = [meld(["5p", "0p", "5p"], source=2, kind="kong", added="5p"), meld(["9s"] * 4, concealed=True, kind="kong")]
    obs, _ = read(sanma_table(melds, norths=["4z"]), seed=7)
    s0 = obs.seat(0)
    m0, m1 = s0.melds
    assert (m0.type, m0.added, m0.source, m0.sideways) == ("kong", "5p", 2, 2)
    assert m0.notation == "[0555p@2+]"
    assert (m1.type, m1.concealed, m1.tiles) == ("kong", True, ["bk", "9s", "9s", "bk"])
    assert m1.notation == "(9999s)"
    assert s0.norths == ["4z"]
    assert len(s0.hand) + 3 * len(s0.melds) == 13
    assert not obs.problems


def test_hong_kong_concealed_kong_shows_middle_backs():
    melds = [meld(["8m"] * 4, concealed=True, kind="kong", players=4, hk=True)]
    seats = [SeatTruth(0, ["1p", "1p", "2s", "3s", "4s", "5z", "5z", "6z", "6z", "7z"], "face_up", False, melds,
                       bonus=["1f", "3g"]),
             SeatTruth(1, ["bk"] * 13, "face_down", False), SeatTruth(2, ["bk"] * 13, "face_down", False),
             SeatTruth(3, ["bk"] * 13, "face_down", False)]
    obs, _ = read(TableTruth("hong-kong", 4, seats, centre_discards=["4p"], wall_tiles=70), seed=11)
    m = obs.seat(0).melds[0]
    assert m.tiles == ["8m", "bk", "bk", "8m"] and m.concealed and m.notation == "(8888m)"
    assert obs.seat(0).bonus == ["1f", "3g"]


def test_three_kaki_fei_in_a_chow_stands_for_its_place():
    # claimed 4p sideways, then 5p and a Fei: the Fei sits after 5p, so it is the 6p
    m = meld(["4p", "5p", "jk"], source=1, kind="chow", stands=["4p", "5p", "6p"])
    seats = [SeatTruth(0, ["1p", "1p", "2p", "3p", "9p", "9p", "1z", "2z", "3z", "jk"], "face_up", False, [m],
                       bonus=["jk", "2a"]),
             SeatTruth(1, ["bk"] * 13, "face_down", False), SeatTruth(2, ["bk"] * 13, "face_down", False)]
    obs, _ = read(TableTruth("three-kaki", 3, seats, wall_tiles=30), seed=2)
    got = obs.seat(0).melds[0]
    assert got.stands_for == ["4p", "5p", "6p"] and got.notation == "{45p jk=6p@1}"
    assert obs.seat(0).bonus == ["jk", "2a"]          # a sunk Fei and an animal
    assert not obs.problems


def _set_code(dets, labels, role, code):
    for d, lab in zip(dets, labels, strict=False):
        if lab["role"][: len(role)] == list(role):
            d["code"] = code
            return
    raise AssertionError(f"no tile with role {role}")


def test_fifth_copy_is_flagged():
    truth = sanma_table(discards=["7z", "7z", "7z", "7z", "1s", "2s"])
    obs, _ = read(truth, edit=lambda d, lab: _set_code(d, lab, ("discard", 0, 4), "7z"))
    kinds = [p.kind for p in obs.problems]
    assert "too_many_copies" in kinds
    msg = next(p.message for p in obs.problems if p.kind == "too_many_copies")
    assert "fifth copy of 7z" in msg.lower() and "discards of position 0" in msg


def _misread_as(role, code, top3):
    def edit(dets, labels):
        i = next(i for i, lab in enumerate(labels) if lab["role"][:len(role)] == list(role))
        dets[i].update(code=code, confidence=top3[0][1], top3=[{"code": c, "p": p} for c, p in top3])
    return edit


def test_a_copy_too_many_is_read_as_its_next_best_that_the_table_still_lacks():
    """A 1s read as a fifth 7z (0.4, then 5z 0.35, 6z 0.2): the least sure 7z is the misread one; 5z would be a
    fifth 5z (two in hand, two discarded), so it is read as 6z, and the frame has no problem left."""
    truth = sanma_table(discards=["7z", "7z", "7z", "7z", "1s", "5z", "5z"])
    obs, _ = read(truth, edit=_misread_as(("discard", 0, 4), "7z", [("7z", 0.4), ("5z", 0.35), ("6z", 0.2)]))
    assert obs.seat(0).discards == ["7z", "7z", "7z", "7z", "6z", "5z", "5z"]
    assert obs.problems == []
    assert [(c["read"], c["now"]) for c in obs.meta["copies_reread"]] == [("7z", "6z")]
    fixed = obs.meta["copies_reread"][0]["index"]
    assert [(a["code"], a["part"], a["at"]) for a in obs.assignments if a["index"] == fixed] == [("6z", "discard", 4)]


def test_a_copy_too_many_without_a_fitting_alternative_stays_flagged():
    """Its only alternative is below the 5 % floor (and a bonus tile, which never lies in a discard row)."""
    truth = sanma_table(discards=["7z", "7z", "7z", "7z", "1s", "2s"])
    obs, _ = read(truth, edit=_misread_as(("discard", 0, 4), "7z", [("7z", 0.6), ("1s", 0.04), ("1f", 0.3)]))
    assert obs.seat(0).discards[4] == "7z"
    assert [p.kind for p in obs.problems] == ["too_many_copies"]
    assert "copies_reread" not in obs.meta


def test_tile_the_rule_system_lacks_is_flagged():
    obs, _ = read(sanma_table(), edit=lambda d, lab: _set_code(d, lab, ("discard", 1, 0), "5m"))
    msgs = [p.message for p in obs.problems if p.kind == "not_in_set"]
    assert msgs and "5m is not in the sanma tile set" in msgs[0]
    obs, _ = read(sanma_table(), edit=lambda d, lab: _set_code(d, lab, ("discard", 0, 0), "jk"))
    assert any(p.kind == "not_in_set" and "jk" in p.message for p in obs.problems)


def test_hand_of_the_wrong_size_is_flagged():
    def drop_hand_tile(dets, labels):
        i = next(i for i, lab in enumerate(labels) if lab["role"][:3] == ["hand", 0, 4])
        del dets[i]
        del labels[i]

    obs, _ = read(sanma_table(), edit=drop_hand_tile)
    p = next(p for p in obs.problems if p.kind == "hand_size")
    assert p.position == 0 and "12 tile(s) in hand" in p.message and "13" in p.message


def test_a_hand_seen_from_behind_is_not_counted():
    """Two backs of position 1's face-down hand missed: not a problem (a camera rarely counts a hand seen
    from behind, and the engine follows that seat by its draws and discards); the hand keeps the backs seen."""
    def drop_backs(dets, labels):
        for k in (3, 7):
            i = next(i for i, lab in enumerate(labels) if lab["role"][:3] == ["hand", 1, k])
            del dets[i]
            del labels[i]

    obs, _ = read(sanma_table(), edit=drop_backs)
    assert obs.problems == []
    assert obs.seat(1).hand == ["bk"] * 11


def test_a_code_the_set_lacks_is_read_as_its_best_alternative_that_it_has():
    def misread(dets, labels):
        i = next(i for i, lab in enumerate(labels) if lab["role"][:3] == ["discard", 1, 0])   # a 1m
        dets[i].update(code="jk", confidence=0.6, top3=[{"code": "jk", "p": 0.6}, {"code": "2m", "p": 0.2},
                                                        {"code": "1m", "p": 0.1}])
        j = next(j for j, lab in enumerate(labels) if lab["role"][:3] == ["discard", 2, 0])   # a 4s
        dets[j].update(code="4m", confidence=0.9, top3=[{"code": "4m", "p": 0.9}, {"code": "4s", "p": 0.03}])

    obs, _ = read(sanma_table(), edit=misread)
    # 1m: the first alternative in the sanma set (2m is not); 4s at 0.03 is below the 5 % floor: 4m stays
    assert obs.seat(1).discards[0] == "1m"
    assert obs.seat(2).discards[0] == "4m"
    assert [p.kind for p in obs.problems] == ["not_in_set"]
    assert obs.meta["read_in_set"] == [{"index": obs.meta["read_in_set"][0]["index"], "read": "jk", "now": "1m"}]


def test_a_set_aside_tile_misread_is_read_as_its_likely_bonus_alternative():
    """A North set aside (sanma) read as 7z with 4z second: the bonus area makes it a North. Without a bonus
    alternative in its top 3 it stays a 7z and the check says so."""
    truth = sanma_table(norths=["4z"])

    def misread(alt):
        def edit(dets, labels):
            i = next(i for i, lab in enumerate(labels) if lab["role"][0] == "bonus")
            dets[i].update(code="7z", confidence=0.5, top3=[{"code": "7z", "p": 0.5}, {"code": alt, "p": 0.3}])
        return edit

    obs, _ = read(truth, edit=misread("4z"))
    assert obs.seat(0).norths == ["4z"] and obs.problems == []
    obs, _ = read(truth, edit=misread("6z"))
    assert any("7z in the bonus area of position 0 is not a bonus tile" in p.message for p in obs.problems)


def test_an_unsure_tile_in_a_sanma_bonus_area_is_a_north():
    """Sanma sets aside only Norths (sanma.md): a far North read unsurely as a kind that never lies there
    (2z 0.23, then 6z, 1z: no 4z in its top 3, as generated sanma hand 0 showed) is a North; a sure reading
    (0.9) is a tile misplaced there and stays flagged. Hong Kong has eight bonus kinds: nothing is guessed."""
    from assistant.variants import get_variant
    from vision.reconstruct import SOLE_ASIDE_UNSURE, sole_aside

    assert sole_aside(get_variant("sanma")) == "4z" and SOLE_ASIDE_UNSURE == 0.5
    assert [sole_aside(get_variant(n)) for n in ("korean-3p", "hong-kong", "three-kaki")] == [None] * 3
    truth = sanma_table(norths=["4z"])

    def misread(p):
        def edit(dets, labels):
            i = next(i for i, lab in enumerate(labels) if lab["role"][0] == "bonus")
            dets[i].update(code="2z", confidence=p, top3=[{"code": "2z", "p": p}, {"code": "6z", "p": 0.2},
                                                          {"code": "1z", "p": 0.085}])
        return edit

    obs, _ = read(truth, edit=misread(0.23))
    assert obs.seat(0).norths == ["4z"] and obs.seat(0).bonus == [] and obs.problems == []
    obs, _ = read(truth, edit=misread(0.9))
    assert obs.seat(0).norths == [] and obs.seat(0).bonus == ["2z"]
    assert [p.message for p in obs.problems] == ["2z in the bonus area of position 0 is not a bonus tile."]


def test_observation_json_round_trip_and_schema():
    obs, _ = read(sanma_table([meld(["7z", "7z", "7z"], source=1)]))
    d = obs.to_dict()
    assert TableObservation.from_dict(d).to_dict() == d
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(d, OBSERVATION_SCHEMA)


def _turn_quarter(dets, labels, role):
    """The detection of the tile with ``role`` read a quarter turned: its corners start one later (what a
    blank white dragon boxed the wrong way round gives)."""
    for d, lab in zip(dets, labels, strict=False):
        if lab["role"][: len(role)] == list(role):
            c = list(d["corners"])
            d["corners"] = c[1:] + c[:1]
            return
    raise AssertionError(f"no tile with role {role}")


def test_a_pong_whose_sideways_tile_reads_upright_is_still_a_pong():
    """A pong of white dragons called from position 2 (sideways tile last): that tile's box read upright. The
    meld is found from the tiles' shapes (the sideways one is the clearly widest), with its source."""
    truth = sanma_table([meld(["5z", "5z", "5z"], source=2)])
    obs, _ = read(truth, edit=lambda d, lab: _turn_quarter(d, lab, ("meld", 0, 0, 2)))
    assert [(m.type, m.sideways, m.source, m.notation) for m in obs.seat(0).melds] == [("pong", 2, 2, "[555z@2]")]
    assert not obs.seat(0).bonus and not obs.problems


def _all_upright(spacing: float, side: int = 2, meld: int = 0):
    """An edit: the meld's (the first, or ``meld``) sideways tile (its third, or ``side``: 0 or 2) boxed as an
    upright tile of its neighbour's size and direction, ``spacing`` times as far from its neighbour as the two
    upright tiles lie apart."""
    def edit(dets, labels):
        boxes = {tuple(lb["role"][:4]): np.array(e["corners"], float) for e, lb in zip(dets, labels, strict=False)}
        for d, lab in zip(dets, labels, strict=False):
            if lab["role"][:4] == ["meld", 0, meld, side]:
                ref, first = boxes[("meld", 0, meld, 1)], boxes[("meld", 0, meld, 2 - side)]
                centre = ref.mean(0) + spacing * (ref.mean(0) - first.mean(0))
                d["corners"] = (ref - ref.mean(0) + centre).tolist()
    return edit


def test_three_like_tiles_all_upright_and_alike_are_a_pong_from_someone_unknown():
    """Without a sideways tile, no tile standing out by its shape and the three evenly spaced, three white
    dragons right of the hand are the pong they make, its sideways tile and so its source unknown (the follower
    takes them from the claim): not three tiles in the bonus area (generated three-kaki hand 1 read its pong
    6z 6z 6z so, and the follower stopped at the call)."""
    from vision.reconstruct import UNSEEN_SIDE_COST

    truth = sanma_table([meld(["5z", "5z", "5z"], source=2)])
    obs, _ = read(truth, edit=_all_upright(1.0))
    assert UNSEEN_SIDE_COST == 5.0
    assert [(m.type, m.sideways, m.source, m.notation) for m in obs.seat(0).melds] == [("pong", None, None, "[555z]")]
    assert obs.seat(0).bonus == [] and obs.problems == []


def test_a_chow_with_no_tile_sideways_is_a_chow_from_someone_unknown():
    """A hong-kong chow 3p4p5p called from the left, its sideways 3p boxed upright and evenly spaced (generated
    hong-kong hand 4 read its chow so, and the three went to the bonus area): the chow, source unknown."""
    seats = [SeatTruth(0, ["1m", "2m", "3m", "7m", "8m", "9m", "2s", "3s", "4s", "5z"], "face_up", False,
                       [meld(["3p", "4p", "5p"], source=1, kind="chow", players=4)], ["9m", "1z"]),
             SeatTruth(1, ["bk"] * 13, "face_down", False, [], []),
             SeatTruth(2, ["bk"] * 13, "face_down", False, [], []),
             SeatTruth(3, ["bk"] * 13, "face_down", False, [], [])]
    truth = TableTruth("hong-kong", 4, seats, wall_tiles=40)
    obs, _ = read(truth, edit=_all_upright(1.0, side=0))
    assert [(m.type, m.tiles, m.sideways, m.source) for m in obs.seat(0).melds] == [
        ("chow", ["3p", "4p", "5p"], None, None)]
    assert obs.seat(0).bonus == [] and obs.seat(0).hand == seats[0].hand


def test_a_sideways_tile_boxed_upright_is_found_by_its_spacing():
    """The same pong with the sideways tile boxed upright 1.4 times as far from its neighbour as the upright
    tiles lie apart (generated three-kaki hand 0 showed a pong with a joker so, its sideways tile boxed upside
    down 41 mm from its neighbour, the upright ones 29 apart): that is the sideways tile, and the pong is read
    with its source. At 1.05 times nothing stands out: the pong, its source unknown."""
    truth = sanma_table([meld(["5z", "5z", "5z"], source=2)])
    obs, _ = read(truth, edit=_all_upright(1.05))
    assert [(m.type, m.sideways, m.source) for m in obs.seat(0).melds] == [("pong", None, None)]
    obs, _ = read(truth, edit=_all_upright(1.4))
    assert [(m.type, m.sideways, m.source, m.notation) for m in obs.seat(0).melds] == [("pong", 2, 2, "[555z@2]")]
    assert not obs.problems


def test_a_meld_with_misread_tiles_is_read_as_the_set_its_alternatives_make():
    """A pong of 7z called from position 2, its two upright tiles read 1z and 4z (7z second in their top 3):
    the group is no set as read, and the readings that make it one are taken (meta says which)."""
    truth = sanma_table([meld(["7z", "7z", "7z"], source=2)])

    def misread(dets, labels):
        _misread_as(("meld", 0, 0, 0), "1z", [("1z", 0.5), ("7z", 0.3), ("2z", 0.1)])(dets, labels)
        _misread_as(("meld", 0, 0, 1), "4z", [("4z", 0.45), ("6z", 0.2), ("7z", 0.15)])(dets, labels)

    obs, _ = read(truth, edit=misread)
    assert [(m.type, m.tiles, m.source, m.notation) for m in obs.seat(0).melds] == [
        ("pong", ["7z", "7z", "7z"], 2, "[777z@2]")]
    assert not obs.problems
    assert sorted((c["read"], c["now"]) for c in obs.meta["melds_reread"]) == [("1z", "7z"), ("4z", "7z")]


def test_a_meld_with_no_tile_sideways_and_a_tile_misread_is_read_as_its_set(monkeypatch):
    """The pong of 7z from position 2 with its sideways tile boxed upright and evenly spaced, and its middle tile
    read 1z (7z second in its top 3; three-kaki hand 1 read its chow 9p7p8p so, 8p 7p 8p): the readings that
    make a set are taken, the sideways tile and source unknown; not three tiles in the bonus area. That is off by
    default (it followed fewer rendered korean-3p events): then the three stay in the bonus area, as read."""
    import vision.reconstruct as R

    truth = sanma_table([meld(["7z", "7z", "7z"], source=2)])

    def edit(dets, labels):
        _all_upright(1.0)(dets, labels)
        _misread_as(("meld", 0, 0, 1), "1z", [("1z", 0.5), ("7z", 0.3), ("2z", 0.1)])(dets, labels)

    assert R.REREAD_UNSEEN_SIDE is False
    obs, _ = read(truth, edit=edit)
    assert obs.seat(0).melds == [] and obs.seat(0).bonus == ["7z", "1z", "7z"]
    monkeypatch.setattr(R, "REREAD_UNSEEN_SIDE", True)
    obs, _ = read(truth, edit=edit)
    assert [(m.type, m.tiles, m.sideways, m.source) for m in obs.seat(0).melds] == [
        ("pong", ["7z", "7z", "7z"], None, None)]
    assert obs.seat(0).bonus == [] and not obs.problems
    assert [(c["read"], c["now"]) for c in obs.meta["melds_reread"]] == [("1z", "7z")]


def test_a_meld_no_alternative_makes_a_set_stays_a_bad_meld():
    truth = sanma_table([meld(["7z", "7z", "7z"], source=2)])
    obs, _ = read(truth, edit=_misread_as(("meld", 0, 0, 0), "1z", [("1z", 0.9), ("2z", 0.05), ("7z", 0.01)]))
    assert "melds_reread" not in obs.meta       # 7z below the 2 % floor, 2z makes no set
    assert [(m.type, m.tiles) for m in obs.seat(0).melds] == [("unknown", ["1z", "7z", "7z"])]
    assert [p.message for p in obs.problems] == [
        "The group 1z 7z 7z in the melds of position 0 is no chow, pong or kong of sanma."]


def test_a_bonus_tile_read_among_a_hidden_hands_backs_is_no_problem():
    """A top of position 1's standing hand read as 2f among its backs: a face among backs is a top read as a
    face, not a bonus tile kept in hand."""
    obs, _ = read(sanma_table(), edit=lambda d, lab: _set_code(d, lab, ("hand", 1, 5), "2f"))
    assert "2f" in obs.seat(1).hand
    assert [p.kind for p in obs.problems] == []


def test_a_back_boxed_between_the_wall_and_a_face_up_hand_is_left_out():
    """A false back box (a wall corner's shadow) between the wall and the camera player's face-up hand, its
    box moved 0.9 of its image height towards the discards (about 0.9 tile heights in from the hand's line on
    the table, the wall lying some 1.6 in): left out as unplaced (an advisory problem), the hand keeps its 13
    faces. Before, the hand read 13 faces and a back, and the follower stopped ('not seen face up')."""
    from vision.reconstruct import STRAY_BACK_OFF

    truth = sanma_table()

    def shadow(dets, labels):
        hand = [i for i, lab in enumerate(labels) if lab["role"][:2] == ["hand", 0]]
        row = [i for i, lab in enumerate(labels) if lab["role"][:2] == ["discard", 0]]
        q = np.array(labels[hand[4]]["corners"], float)
        toward = np.mean(labels[row[0]]["corners"], axis=0) - q.mean(0)
        height = np.linalg.norm(q[0] - q[3])
        dets.append({"code": "bk", "confidence": 0.8, "top3": [{"code": "bk", "p": 0.8}],
                     "corners": (q + toward / np.linalg.norm(toward) * 0.9 * height).tolist(), "face_up": False,
                     "rotation": 0, "angle": 0.0, "det_score": 0.3})

    obs, _ = read(truth, edit=shadow)
    assert STRAY_BACK_OFF == 0.7
    assert obs.seat(0).hand == truth.seats[0].hand
    assert [(u["code"], p.kind) for u, p in zip(obs.unplaced, obs.problems, strict=True)] == [("bk", "unplaced")]


def test_a_pong_whose_sideways_tile_is_boxed_upright_and_misread_is_still_that_pong():
    """A pong of 9p called from position 2, its sideways tile (the third) boxed upright beside the others and
    read 3p, 9p not in its top 3 (generated korean-3p hand 0 showed its pong of 9p so, the squeezed crop of the
    sideways tile read 3p or 8p, and the three went to the bonus area as tiles never set aside): the end tile
    that reads otherwise is the sideways tile, read as the others' kind."""
    truth = sanma_table([meld(["9p", "9p", "9p"], source=2)])

    def edit(dets, labels):
        _all_upright(1.0)(dets, labels)
        _misread_as(("meld", 0, 0, 2), "3p", [("3p", 0.8), ("8p", 0.1), ("6p", 0.05)])(dets, labels)

    obs, _ = read(truth, edit=edit)
    assert [(m.type, m.sideways, m.source, m.notation) for m in obs.seat(0).melds] == [("pong", 2, 2, "[999p@2]")]
    assert [(c["read"], c["now"]) for c in obs.meta["melds_reread"]] == [("3p", "9p")]
    assert not obs.seat(0).bonus and not obs.problems


def test_a_middle_tile_read_otherwise_makes_no_pong_at_a_three_player_table():
    """The same pong with its middle tile read 3p instead: no sideways tile lies in the middle where three
    play, so the group stays what it reads, and the page says so."""
    truth = sanma_table([meld(["9p", "9p", "9p"], source=2)])

    def edit(dets, labels):
        _all_upright(1.0)(dets, labels)
        _misread_as(("meld", 0, 0, 1), "3p", [("3p", 0.8), ("8p", 0.1), ("6p", 0.05)])(dets, labels)

    obs, _ = read(truth, edit=edit)
    assert obs.seat(0).melds == [] and obs.seat(0).bonus == ["9p", "3p", "9p"]
    assert obs.problems[-1].message == "9p 3p 9p in the bonus area of position 0 is not a bonus tile."


def test_a_group_that_makes_no_set_leaves_the_meld_beside_it_a_meld(monkeypatch):
    """Hong Kong: two chows called from the left, 1m2m3m and 3s4s5s, each with its sideways tile boxed upright,
    the first read 3m 2m 3m (generated hong-kong hand 4 read its chow so, and its chow 3s4s5s went to the bonus
    area with it). As shipped the group that makes no set goes to the bonus area, the chow beside the hand stays
    a chow; with :data:`vision.reconstruct.UNKNOWN_UNSEEN_SIDE_COST` set (tried at 12: it followed fewer rendered
    hong-kong events, a camera hand's tiles taken for such a meld) the group is a meld of no known shape, as
    read, and the bonus area is empty."""
    import vision.reconstruct as R

    seats = [SeatTruth(0, ["7m", "8m", "9m", "2p", "3p", "4p", "5z"], "face_up", False,
                       [meld(["1m", "2m", "3m"], source=1, kind="chow", players=4),
                        meld(["3s", "4s", "5s"], source=1, kind="chow", players=4)], ["9m", "1z"]),
             SeatTruth(1, ["bk"] * 13, "face_down", False, [], []),
             SeatTruth(2, ["bk"] * 13, "face_down", False, [], []),
             SeatTruth(3, ["bk"] * 13, "face_down", False, [], [])]
    truth = TableTruth("hong-kong", 4, seats, wall_tiles=40)

    def edit(dets, labels):
        _all_upright(1.0, side=0, meld=0)(dets, labels)
        _all_upright(1.0, side=0, meld=1)(dets, labels)
        _misread_as(("meld", 0, 0, 0), "3m", [("3m", 0.9), ("2m", 0.05), ("4m", 0.02)])(dets, labels)

    assert R.UNKNOWN_UNSEEN_SIDE_COST is None
    obs, _ = read(truth, edit=edit)
    assert [(m.type, m.tiles) for m in obs.seat(0).melds] == [("chow", ["3s", "4s", "5s"])]
    assert obs.seat(0).bonus == ["3m", "2m", "3m"]
    monkeypatch.setattr(R, "UNKNOWN_UNSEEN_SIDE_COST", 12.0)
    obs, _ = read(truth, edit=edit)
    assert [(m.type, m.tiles, m.sideways, m.source) for m in obs.seat(0).melds] == [
        ("unknown", ["3m", "2m", "3m"], None, None), ("chow", ["3s", "4s", "5s"], None, None)]
    assert obs.seat(0).bonus == [] and obs.seat(0).hand == seats[0].hand


def test_a_second_red_five_is_read_as_the_plain_five():
    """A hand with 0s and 5s, its 5s read 0s (0.7; red and plain fives differ by their colour only): the
    sanma set has one red 0s, so the less sure of the two is the plain five, and the frame has no problem
    (generated sanma hand 1 was lost so for 54 of its 114 events: its camera hand never matched again)."""
    hand = ["1p", "2p", "3p", "4p", "6p", "7p", "8p", "9p", "4s", "0s", "5s", "5z", "5z"]
    truth = sanma_table()
    truth.seats[0].hand = hand
    obs, _ = read(truth, edit=_misread_as(("hand", 0, 10), "0s", [("0s", 0.7), ("5s", 0.25), ("6s", 0.02)]))
    assert obs.seat(0).hand == hand
    assert obs.problems == []
    assert [(c["read"], c["now"]) for c in obs.meta["copies_reread"]] == [("0s", "5s")]
    # the sure one read plain instead stays so: no red five is made up
    obs, _ = read(truth, edit=_misread_as(("hand", 0, 9), "5s", [("5s", 0.9), ("0s", 0.05), ("6s", 0.02)]))
    assert obs.seat(0).hand == hand[:9] + ["5s", "5s"] + hand[11:]


def test_a_joker_standing_in_a_pong_is_not_taken_for_a_misread_tile():
    """Three-kaki: 5p 5p jk laid upright, the joker read least surely: a joker stands in for the pong's kind, so
    it is no sideways tile misread (it would be recorded as a 5p); a 4p there is."""
    from assistant.variants import get_variant
    from vision.reconstruct import Piece, _odd_tile

    def piece(code, x, conf):
        return Piece(0, code, True, conf, np.zeros(2), np.array([0.0, 35.0]), 26.0, x=x)

    kaki = get_variant("three-kaki")
    assert _odd_tile([piece("5p", 0, 0.9), piece("5p", 27, 0.9), piece("jk", 54, 0.5)], kaki, 3, 26.0) == (None, "")
    assert _odd_tile([piece("5p", 0, 0.9), piece("5p", 27, 0.9), piece("4p", 54, 0.5)], kaki, 3, 26.0) == (2, "5p")
    # closer than 0.8 tile widths: one tile boxed twice, no guess
    assert _odd_tile([piece("5p", 0, 0.9), piece("5p", 15, 0.9), piece("4p", 42, 0.5)], kaki, 3, 26.0) == (None, "")
