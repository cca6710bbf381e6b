"""A deal is not all-or-nothing (vision.follow.deal): a tile of the deal read unsurely is taken as read and kept
as a doubt with its other readings; later frames, the discards, the copies in the set and the engine's rules
settle it, and when it is settled otherwise the deal is rewritten and the engine replays the hand.

The scenarios misread one tile of a generated hand's deal (its readings given a classifier's top 3) and check
that the followed log is the script's from event 0."""

from __future__ import annotations

from test_vision_events import _frame_after, _said, _seat, _with, hand

from assistant.variants import get_variant
from evaluation.logs import compare_logs
from evaluation.video import infer
from vision.follow.deal import Doubt, doubts_of_deal
from vision.follow.views import GameContext
from vision.observation import TableObservation

SANMA_55 = ("sanma", 55, None)          # camera seat 1 (position 0) dealt 5778p1223677s13z; seat 0 dealt 8s 8s
KOREAN_39 = ("korean-3p", 39, None)     # camera seat 0 (position 0) dealt 2447m34599p9s567z | 4f


def _read(obs: TableObservation, part: str, position: int, code: str, as_code: str,
          top3: list[tuple[str, float]]) -> TableObservation:
    """``obs`` with the first ``code`` of a part (the hand or the bonus area at ``position``, or the dora
    indicator) read as ``as_code`` with the classifier's ``top3`` (unchanged when the part holds no ``code``)."""
    d = obs.to_dict()
    tiles = d["dora_indicators"] if part == "dora" else _seat(d, position)[part]
    if code not in tiles:
        return obs
    at = tiles.index(code)
    tiles[at] = as_code
    a = next(a for a in d["assignments"] if a["part"] == part and a["at"] == at
             and (part == "dora" or a["position"] == position))
    a.update(code=as_code, confidence=top3[0][1], top3=[list(t) for t in top3])
    d["problems"] = []
    return TableObservation.from_dict(d)


def _misread(observations, part: str, position: int, code: str, reading, until: int | None = None, later=None):
    """The frames with the first ``code`` of the part read as ``reading`` = (code, top3) before frame
    ``until`` (every frame: None), and as ``later`` = (code, top3) from then on when given."""
    out = []
    for i, o in enumerate(observations):
        now = reading if until is None or i < until else later
        out.append(o if now is None else _read(o, part, position, code, now[0], now[1]))
    return out


def _exact(video, stream):
    inf = infer(video, stream)
    expected = video.camera_log()
    assert inf.events == expected, compare_logs(inf.events, expected)[1]
    return inf


def test_the_doubtful_tiles_of_a_deal_are_its_unsure_readings():
    video, observations, _ = hand(*SANMA_55)
    cam = video.camera
    stream = _misread(observations, "hand", cam, "1s", ("4s", [("4s", 0.55), ("1s", 0.35), ("9s", 0.05)]))
    game = GameContext(get_variant(video.variant), 3, video.camera_seat, tuple(video.order), False, True, False, True)
    doubts = doubts_of_deal(stream[0], game)
    assert [(d.seat, d.part, d.taken, dict(d.evidence)) for d in doubts] == \
           [(1, "hand", "4s", {"4s": 0.55, "1s": 0.35, "9s": 0.05})]
    assert doubts[0].readings() == ["1s", "9s"] and doubts[0].best() is None
    # a tile read surely is no doubt, nor is one whose alternatives are far less likely
    sure = _misread(observations, "hand", cam, "1s", ("1s", [("1s", 0.9), ("4s", 0.2)]))
    assert doubts_of_deal(sure[0], game) == [] and doubts_of_deal(observations[0], game) == []
    d = Doubt(1, "hand", "4s", evidence=doubts[0].evidence.copy())
    d.weigh({"1s": 0.8})
    assert d.best() == "1s"
    d.ruled_out.add("1s")
    assert d.best() is None and d.readings() == ["9s"]


def test_a_dealt_tile_misread_in_the_first_frames_is_settled_by_the_later_ones():
    """The camera player's 1s is read as 4s (1s second) in the first three frames, then as 1s, still unsurely
    (4s second): each frame adds its readings' probabilities, and once 1s has gathered more the deal is taken
    with it and the engine replays the hand. Before, the later frames' 1s was taken as its alternative 4s,
    which the followed hand held, and the deal stayed wrong for good."""
    video, observations, expected = hand(*SANMA_55)
    stream = _misread(observations, "hand", video.camera, "1s", ("4s", [("4s", 0.55), ("1s", 0.35), ("9s", 0.05)]),
                      until=3, later=("1s", [("1s", 0.6), ("4s", 0.3), ("9s", 0.05)]))
    inf = _exact(video, stream)
    # 4s 1.65 / 1s 1.05 after three frames; +0.3 for 1s a frame: 0.6 ahead (more than 0.5) in the seventh
    assert inf.settled == [(7, 1, "hand", "4s", "1s", "frames")]
    assert inf.rereads == [] and inf.readings == [] and not inf.problems
    game, said = _said(video, stream)
    assert "Your 4s (dealt) reads as 1s in the frames since the deal: the deal is taken with 1s and the hand " \
           "is replayed." in said
    assert "Read unsurely at the deal: your 4s (or 1s, 9s); it is taken as 4s until the table shows which." \
           in said
    assert game.hand == expected[:len(game.hand)]


def test_a_dealt_tile_misread_until_its_discard_is_settled_by_the_discard():
    """The camera player's 3z is read as 4z (3z second) in every frame until it is discarded: its discard reads
    3z, which the followed hand lacks; the deal with its doubtful tile read 3z explains the frame, and the
    engine replays the hand from it."""
    video, observations, expected = hand(*SANMA_55)
    k = _frame_after(video, "discard", seat=video.camera_seat, start=13)
    assert expected[video.frames[k].event_index].tile.code == "3z"
    stream = _misread(observations, "hand", video.camera, "3z", ("4z", [("4z", 0.6), ("3z", 0.3)]))
    inf = _exact(video, stream)
    assert inf.settled == [(k + 1, 1, "hand", "4z", "3z", "discard")]
    assert inf.rereads == [] and inf.readings == []
    _, said = _said(video, stream)
    assert "Your 4z (dealt) was discarded as 3z: it was 3z all along, and the hand is replayed with it." in said


def test_a_dealt_tile_the_copies_rule_out_is_settled_by_the_engine():
    """The camera player's 3s is read as 8s (3s second) in every frame, and it is never discarded. Seat 0 makes a
    closed kong of 8s: with the 8s in the camera player's hand that is a fifth copy, which the engine refuses.
    The deal with the doubtful tile's other reading lets the engine play the kong: the deal is rewritten, the
    hand replayed, and 8s is ruled out (later frames that still read 8s keep the 3s). Before, every frame from
    the kong on went unexplained."""
    video, observations, expected = hand(*SANMA_55)
    k = _frame_after(video, "closed_kong")
    stream = _misread(observations, "hand", video.camera, "3s", ("8s", [("8s", 0.55), ("3s", 0.35)]))
    inf = _exact(video, stream)
    assert inf.settled == [(k + 1, 1, "hand", "8s", "3s", "copies")]
    assert inf.rereads == [] and inf.readings == []
    _, said = _said(video, stream)
    assert "Your 8s (dealt) cannot be: the table shows every 8s of the set elsewhere; it is taken as 3s, its " \
           "next reading, and the hand is replayed." in said


def test_a_bonus_tile_misread_at_the_deal_is_settled_by_the_later_frames():
    """The camera player's bonus tile 4f is read as 1f (4f second) in the first three frames, then as 4f. Before,
    a tile set aside kept its followed reading for good, and the deal stayed wrong."""
    video, observations, expected = hand(*KOREAN_39)
    stream = _misread(observations, "bonus", video.camera, "4f", ("1f", [("1f", 0.5), ("4f", 0.4)]),
                      until=3, later=("4f", [("4f", 0.8), ("1f", 0.15)]))
    inf = _exact(video, stream)
    # 1f 1.5 / 4f 1.2 after three frames; 4f 2.0 / 1f 1.65 in the fourth, 2.8 / 1.8 in the fifth
    assert inf.settled == [(5, 0, "bonus", "1f", "4f", "frames")]
    _, said = _said(video, stream)
    assert "Your bonus tile 1f (dealt) reads as 4f in the frames since the deal: the deal is taken with 4f " \
           "and the hand is replayed." in said


def test_a_bonus_tile_misread_for_good_is_settled_by_the_copies():
    """The camera player's 4f is read as 3f (4f second) in every frame; West sets a 3f aside later, which the set
    has once: the engine refuses it until the deal takes the camera player's tile as 4f."""
    video, observations, expected = hand(*KOREAN_39)
    k = next(i for i, f in enumerate(video.frames) if video.events[f.event_index].type == "bonus"
             and video.events[f.event_index].tile.code == "3f")
    stream = _misread(observations, "bonus", video.camera, "4f", ("3f", [("3f", 0.6), ("4f", 0.3)]))
    inf = _exact(video, stream)
    assert inf.settled == [(k + 1, 0, "bonus", "3f", "4f", "copies")]


def test_a_deal_never_seen_whole_is_taken_from_the_first_frame_the_camera_player_has_not_played_in():
    """The camera player's hand is read two tiles short in the first two frames (no deal can be taken: one tile
    short would be dealt unread), and the
    dealer discards in the third: the deal is taken from the third frame (the camera player has not played
    yet: its hand is the dealt one) and the dealer's draw and discard follow. Before, a table with a discard
    was never dealt: the whole hand was lost."""
    video, observations, expected = hand(*SANMA_55)
    short = [_with(o, lambda d: _seat(d, video.camera)["hand"].__delitem__(slice(0, 2))) for o in observations[:2]]
    inf = _exact(video, short + list(observations[2:]))
    assert [(p.frame, p.kind) for p in inf.problems] == [(1, "observation"), (2, "observation")]


def test_a_dealt_table_without_its_dora_indicator_is_dealt_and_takes_the_first_one_shown():
    """A sanma deal turns a dora indicator: a first frame that misses it is dealt without it (the page says so),
    and the indicator the next frame shows is the deal's: the followed log is the script's, the deal rewritten
    with it (settled "late dora"), no kan dora inferred."""
    video, observations, expected = hand(*SANMA_55)
    stream = [_with(observations[0], lambda d: d["dora_indicators"].clear())] + list(observations[1:])
    inf = _exact(video, stream)
    assert [(p.frame, p.kind) for p in inf.problems] == [(1, "no_dora")]
    dora = expected[0].dora_indicators[0].code
    assert inf.settled == [(2, -1, "dora", "", dora, "late dora")]
    game, said = _said(video, stream)     # the page says both, and follows the hand from the rewritten deal
    assert said[:2] == ["The dealt table shows no dora indicator yet: the deal is taken without it, and the first "
                        "one the table shows is the deal's.",
                        f"The dora indicator, not seen at the deal, reads {dora}: the deal is taken with it and the "
                        "hand is replayed."]
    assert game.hand == expected[:len(game.hand)] and game.hand[0].dora_indicators[0].code == dora


def test_a_table_first_seen_played_without_its_dora_indicator_waits_for_it_then_deals_from_its_first_frame():
    """The camera player's hand read two tiles short in the first two frames and the dora indicator missed in the
    first four: the third frame shows the dealer's discard (a table already played, where a tile by the wall may
    be the indicator read as a discard), so the deal waits for the indicator; when the camera player has played
    (the fifth frame) the deal is taken from the third frame without it, and the indicator the fifth shows is the
    deal's: the log is the script's."""
    from vision.follow.inferrer import LATE_DORA_WAIT

    video, observations, expected = hand(*SANMA_55)
    short = [_with(o, lambda d: _seat(d, video.camera)["hand"].__delitem__(slice(0, 2))) for o in observations[:2]]
    stream = [_with(o, lambda d: d["dora_indicators"].clear()) for o in short + list(observations[2:4])]
    inf = _exact(video, stream + list(observations[4:]))
    assert LATE_DORA_WAIT == 4
    assert [(p.frame, p.kind) for p in inf.problems] == [(1, "observation"), (2, "observation"), (3, "impossible"),
                                                          (4, "impossible"), (5, "no_dora")]
    assert inf.settled == [(5, -1, "dora", "", expected[0].dora_indicators[0].code, "late dora")]


def test_a_dora_indicator_missed_for_frames_of_play_is_the_deals_once_seen():
    """The dora indicator missed by the first six frames (a far, small tile: generated sanma hand 2, a seat
    camera, never read it, and the whole hand was lost waiting for it): the hand is followed from the first
    frame, and the deal takes the indicator when a frame shows it; the log is the script's from event 0."""
    video, observations, expected = hand(*SANMA_55)
    stream = [_with(o, lambda d: d["dora_indicators"].clear()) for o in observations[:6]] + list(observations[6:])
    assert any(len(_seat(o.to_dict(), p)["discards"]) for o in stream[:6] for p in video.positions)
    inf = _exact(video, stream)
    assert [(p.frame, p.kind) for p in inf.problems] == [(1, "no_dora")]
    assert inf.settled == [(7, -1, "dora", "", expected[0].dora_indicators[0].code, "late dora")]


# --------------------------------------------------------------------------- a meld read where tiles are set aside


def _meld_read_aside(obs: TableObservation, position: int, meld: int) -> TableObservation:
    """``obs`` with meld ``meld`` of the seat at ``position`` read in its area set aside: its tiles there but the
    claimed (sideways) one, which is missed (as the recogniser reads a far call laid by the bonus area)."""
    d = obs.to_dict()
    seat = _seat(d, position)
    if len(seat["melds"]) <= meld:
        return obs
    gone = seat["melds"].pop(meld)
    for a in d["assignments"]:
        at = a["at"]
        if a["part"] == "meld" and a["position"] == position and isinstance(at, (list, tuple)) and at[0] == meld:
            if at[1] == gone["sideways"]:
                a.update(part="ignored", at=None)
            else:
                a.update(part="bonus", at=len(seat["bonus"]))
                seat["bonus"].append(a["code"])
    d["problems"] = []
    return TableObservation.from_dict(d)


def test_a_call_laid_where_tiles_are_set_aside_is_followed():
    """The camera player's pong of 7p is read as two 7p in its area set aside (the claimed tile missed) in
    every frame from the call on: its hand then counts a meld short, which the two tiles make up; the call is
    taken from the discard it took, and kept in the later frames. Before, every frame from the call on was
    'a hand 3 tiles short' and nothing more was followed."""
    video, observations, expected = hand(*SANMA_55)
    k = _frame_after(video, "pong")
    stream = [o if i < k else _meld_read_aside(o, video.camera, 0) for i, o in enumerate(observations)]
    inf = _exact(video, stream)
    assert [r[1:] for r in inf.readings] == [(1, "call", "7p 7p", "7p 7p 7p")]
    assert not [p for p in inf.problems if p.kind in ("impossible", "unexplained")]


def test_a_hidden_seats_call_laid_where_tiles_are_set_aside_is_followed():
    """South's pong of 7z read as two 7z in its area set aside for three frames, then as a pong."""
    video, observations, expected = hand("korean-3p", 26, 12)
    k = _frame_after(video, "pong")
    pos = video.order[video.events[video.frames[k].event_index].seat]
    stream = [_meld_read_aside(o, pos, 0) if k <= i < k + 3 else o for i, o in enumerate(observations)]
    inf = _exact(video, stream)
    assert [r[1:] for r in inf.readings] == [(1, "call", "7z 7z", "7z 7z 7z")]


def test_a_tile_set_aside_or_a_dora_indicator_missed_in_a_frame_stays():
    """Tiles set aside and dora indicators stay where they are: a frame that misses one (a far, small tile the
    detector did not box) keeps it, and the rest of the frame is followed. Before, such a frame was 'tiles set
    aside stay there' and nothing in it was followed."""
    video, observations, expected = hand(*KOREAN_39)
    missed = [_with(o, lambda d: _seat(d, video.camera)["bonus"].clear()) if 10 <= i < 13 else o
              for i, o in enumerate(observations)]
    inf = _exact(video, missed)
    assert not [p for p in inf.problems if p.kind in ("impossible", "unexplained")]
    video, observations, expected = hand(*SANMA_55)
    missed = [_with(o, lambda d: d["dora_indicators"].clear()) if 5 <= i < 8 else o for i, o in enumerate(observations)]
    inf = _exact(video, missed)
    assert not [p for p in inf.problems if p.kind in ("impossible", "unexplained")]


def _missed(obs: TableObservation, position: int, code: str) -> TableObservation:
    """``obs`` with the first ``code`` of the hand at ``position`` not seen at all (the detector missed it)."""
    d = obs.to_dict()
    tiles = _seat(d, position)["hand"]
    if code not in tiles:
        return obs
    at = tiles.index(code)
    del tiles[at]
    kept = []
    for a in d["assignments"]:
        mine = a["part"] == "hand" and a["position"] == position
        if mine and a["at"] == at:
            continue
        if mine and a["at"] > at:
            a["at"] -= 1
        kept.append(a)
    d["assignments"] = kept
    d["problems"] = []
    return TableObservation.from_dict(d)


def test_a_camera_hand_read_one_tile_short_is_dealt_with_that_tile_unread():
    """The camera player's 3z is missed in every frame until it is discarded (a hand read 12 tiles): the deal
    is taken with it face down (bk, which the camera's view leaves out), the hand is followed, and its discard
    of 3z (the engine used the unread tile up) rewrites the deal with 3z. Before, no frame was ever dealt."""
    video, observations, expected = hand(*SANMA_55)
    k = _frame_after(video, "discard", seat=video.camera_seat, start=13)
    assert expected[video.frames[k].event_index].tile.code == "3z"
    stream = [_missed(o, video.camera, "3z") if i < k else o for i, o in enumerate(observations)]
    assert len(_seat(stream[0].to_dict(), video.camera)["hand"]) == 12
    inf = _exact(video, stream)
    assert inf.doubted == [(1, 1, "hand", "bk", ())]
    assert inf.settled == [(k + 1, 1, "hand", "bk", "3z", "discard")]
    # every frame is followed: a hand short by its unread tile is no problem (before, each frame that showed it
    # between the camera player's turns was skipped as a hand of 12, and only the frames after its draws counted)
    assert not inf.problems
    game, said = _said(video, stream)
    assert "One tile of your hand was not read at the deal: it is dealt face down until a frame reads it or you " \
           "play it (no waits or advice until then)." in said
    assert "Your tile not read at the deal was played as 3z: the deal is taken with 3z and the hand is " \
           "replayed." in said
    assert not any("bk" in line for line in said)
    assert game.hand == expected[:len(game.hand)]


def test_a_camera_hand_tile_the_detector_keeps_missing_is_followed_unseen():
    """The camera player's 1s is read in the first frames, then missed for 25 frames (frames 5-29) while the
    hand draws, discards and calls a pong: each frame is followed with 1s unseen (a hand one short of a size
    the rule system holds, or one that still lacks the tile the frame before missed), and the log is the
    script's with no problem. Before, the frames that showed 12 tiles were skipped and a draw frame's hand of 13
    took 1s for the drawn 6p (the hand re-read and its deal rewritten), 45 of 48 events."""
    video, observations, expected = hand(*SANMA_55)
    cam = video.camera
    stream = [_missed(o, cam, "1s") if 5 <= i < 30 else o for i, o in enumerate(observations)]
    assert all(_seat(o.to_dict(), cam)["hand"].count("1s") == _seat(p.to_dict(), cam)["hand"].count("1s") - 1
               for o, p in zip(stream[5:30], observations[5:30], strict=True))
    assert any(e.type == "pong" and e.seat == video.camera_seat
               for e in expected[video.frames[5].event_index:video.frames[30].event_index])
    inf = _exact(video, stream)
    assert not inf.problems and inf.rereads == []


def test_a_dealt_tile_unread_in_the_first_frames_is_settled_when_a_frame_reads_it():
    """The camera player's 1s is missed in the first three frames, then read: the frame that reads the hand
    with one tile more than followed settles the unread tile as that tile, and the deal is rewritten."""
    video, observations, expected = hand(*SANMA_55)
    stream = [_missed(o, video.camera, "1s") if i < 3 else o for i, o in enumerate(observations)]
    inf = _exact(video, stream)
    assert inf.doubted == [(1, 1, "hand", "bk", ())]
    assert inf.settled == [(4, 1, "hand", "bk", "1s", "shown")]
    _, said = _said(video, stream)
    assert "Your tile not read at the deal reads as 1s: the deal is taken with 1s and the hand is replayed." in said


def _aside_misread(obs: TableObservation, position: int, code: str, as_code: str,
                   top3: list[tuple[str, float]]) -> TableObservation:
    """``obs`` with the first ``code`` set aside by the seat at ``position`` (a North among its Norths, else a
    bonus tile) read as ``as_code``, a kind that never lies there, with the classifier's ``top3``: it shows
    among the bonus tiles, as the reconstruction lays out a tile read so (unchanged when none is set aside)."""
    d = obs.to_dict()
    seat = _seat(d, position)
    part = "norths" if code in seat["norths"] else "bonus"
    if code not in seat[part]:
        return obs
    at = seat[part].index(code)
    kind = "north" if part == "norths" else "bonus"
    a = next(a for a in d["assignments"] if a["part"] == kind and a["position"] == position and a["at"] == at)
    if part == "norths":
        seat["norths"].pop(at)
        seat["bonus"].append(as_code)
        for b in d["assignments"]:
            if b["part"] == "north" and b["position"] == position and b["at"] > at:
                b["at"] -= 1
        a.update(part="bonus", at=len(seat["bonus"]) - 1)
    else:
        seat["bonus"][at] = as_code
    a.update(code=as_code, confidence=top3[0][1], top3=[list(t) for t in top3])
    d["problems"] = []
    return TableObservation.from_dict(d)


def test_a_north_set_aside_read_as_another_tile_is_taken_as_a_north():
    """West's North set aside (kita) is read as 1s in every frame from it on, its top 3 without 4z (a far, small
    tile): sanma's areas set aside hold only Norths, so the engine is asked whether the kita explains the frame,
    and it does. Before, the area was left as it was: the kita and its replacement draw were never followed."""
    video, observations, expected = hand(*SANMA_55)
    k = _frame_after(video, "kita", seat=2)
    pos = video.order[2]
    top3 = [("1s", 0.6), ("1z", 0.2), ("7z", 0.1)]
    stream = [_aside_misread(o, pos, "4z", "1s", top3) if i >= k else o for i, o in enumerate(observations)]
    assert _seat(stream[k].to_dict(), pos)["bonus"] == ["1s"]
    inf = _exact(video, stream)
    assert [r for r in inf.readings if r[2] == "aside"] == [(k + 1, 2, "aside", "1s", "4z")]
    _, said = _said(video, stream)
    assert "West's tile set aside reads 1s, which is never set aside: it is taken as 4z, the tile the game lets " \
           "lie there." in said


def test_a_bonus_tile_read_as_a_suited_tile_is_taken_as_its_next_best_bonus_reading():
    """West's 3f set aside is read as 7p (3f second) in every frame from it on: taken as 3f, which the engine
    judges a bonus tile West may set aside. A reading without a bonus tile among its top 3 is left as it was
    (Korean sets have four flowers: no kind is the only one)."""
    video, observations, expected = hand(*KOREAN_39)
    k = next(i for i, f in enumerate(video.frames) if video.events[f.event_index].type == "bonus"
             and video.events[f.event_index].tile.code == "3f")
    seat = video.events[video.frames[k].event_index].seat
    pos = video.order[seat]
    stream = [_aside_misread(o, pos, "3f", "7p", [("7p", 0.55), ("3f", 0.3), ("1s", 0.1)]) if i >= k else o
              for i, o in enumerate(observations)]
    inf = _exact(video, stream)
    assert [r for r in inf.readings if r[2] == "aside"] == [(k + 1, seat, "aside", "7p", "3f")]
    stream = [_aside_misread(o, pos, "3f", "7p", [("7p", 0.55), ("8p", 0.3), ("1s", 0.1)]) if i >= k else o
              for i, o in enumerate(observations)]
    inf = infer(video, stream)
    assert not [r for r in inf.readings if r[2] == "aside"]
    assert inf.events != expected


def _aside_unseen(obs: TableObservation, position: int) -> TableObservation:
    """``obs`` with nothing boxed in the area set aside of the seat at ``position`` (far, small tiles missed)."""
    d = obs.to_dict()
    _seat(d, position)["bonus"].clear()
    for a in d["assignments"]:
        if a["part"] == "bonus" and a["position"] == position:
            a.update(part="ignored", at=None)
    d["problems"] = []
    return TableObservation.from_dict(d)


def test_bonus_tiles_first_seen_after_the_deal_were_set_aside_at_the_deal():
    """North's 4f 2g, set aside at the deal, are missed in the first three frames: the deal is taken without
    them; the fourth frame shows them where no move of North's sets tiles aside, and the hand is replayed from a
    deal that sets them aside for North. Before, every frame from then on was unexplained ('North set aside 4f,
    2g')."""
    video, observations, expected = hand("hong-kong", 1, 12)
    assert expected[0].hands[3].endswith("| 4f2g")
    pos = video.order[3]
    stream = [_aside_unseen(o, pos) if i < 3 else o for i, o in enumerate(observations)]
    inf = _exact(video, stream)
    assert [r for r in inf.readings if r[2] == "dealt aside"] == [(4, 3, "dealt aside", "", "4f 2g")]
    game, said = _said(video, stream)
    assert "North's bonus tile(s) 4f 2g, not seen at the deal, were set aside at the deal: the deal is taken " \
           "with them and the hand is replayed." in said
    assert game.hand == expected[:len(game.hand)]


def test_bonus_tiles_missed_at_the_deal_by_a_seat_yet_to_play_are_dealt_to_it():
    """In 3 Kaki, West's 1a 2h 3h are missed in the first two frames: they are dealt to West when they show,
    before West has played. (East's 4f missed so would be East's first move as well: the dealer drawing,
    setting 4f aside and drawing its replacement shows the camera the same table; the engine takes that.)"""
    video, observations, expected = hand("three-kaki", 22, None)
    assert expected[0].hands[2].endswith("| 1a23h")
    stream = [_aside_unseen(o, video.order[2]) if i < 2 else o for i, o in enumerate(observations)]
    inf = _exact(video, stream)
    assert [r for r in inf.readings if r[2] == "dealt aside"] == [(3, 2, "dealt aside", "", "1a 2h 3h")]
