"""The classifier's readings reach the followed game through the live pipeline itself: a generated hand's frames
painted from labels (:mod:`painted`), some tiles misread with the classifier's top 3, read by
:class:`vision.live.LiveAnalyzer` as a camera is. The two repairs that need those readings (a misread discard
taken as the alternative the game allows, an unreadable meld taken from the discard it took) must work there
as they do when the inferrer is fed observations directly (tests/test_vision_events.py)."""

from __future__ import annotations

import json

from painted import PaintedLabels
from test_hand_video import video as generated

from evaluation.logs import compare_logs
from vision.follow import SEAT_WINDS
from vision.live import LiveAnalyzer
from vision.observation import TableObservation

READS = 4     # each frame read as often as eval-video --live reads it


def _followed(video, misread):
    """The hand's frames through a LiveAnalyzer that knows the camera and the seating, each label for which
    ``misread(frame index, label)`` gives a top 3 read so; (the analyser's inferrer, finished, and every
    problem the page showed on the way, in order)."""
    rec = PaintedLabels()
    la = LiveAnalyzer(video.variant, camera_id=f"readings-{video.seed}", recognizer=rec,
                      calibration=video.calibration(), positions=video.positions, dealer=video.dealer,
                      full_pass_s=None, full_pass_frames=8)
    size = (video.camera_model.width, video.camera_model.height)
    said: list[str] = []
    for i, f in enumerate(video.frames):
        labels = [{**lab, "top3": top} if (top := misread(i, lab)) else lab for lab in f.labels]
        image = rec.paint(labels, size)
        for _ in range(READS):
            result = la.process(image)
            said += [p for p in result.problems if p not in said]
    assert la._game is not None
    inf = la._game.inferrer
    inf.finish()
    return inf, said


def _role(lab) -> tuple:
    return tuple(lab["role"][:3])


def _frame_of(video, kind: str, seat: int | None = None) -> int:
    return next(i for i, f in enumerate(video.frames) if video.events[f.event_index].type == kind
                and (seat is None or getattr(video.events[f.event_index], "seat", None) == seat))


def test_the_painted_hands_are_followed_whole_when_every_tile_reads_right():
    for key, n in ((("sanma", 55, None), 48), (("sanma", 0, 12), 28)):
        video = generated(*key)
        inf, _ = _followed(video, lambda i, lab: None)
        expected = video.camera_log()
        assert len(expected) == n
        assert inf.events == expected, compare_logs(inf.events, expected)[1]
        assert inf.readings == []


def test_a_camera_discard_misread_on_the_live_path_takes_the_alternative_its_hand_holds():
    """Sanma 55: the camera player's first discard reads as a tile its hand does not hold (0.5), the true tile
    second (0.3), from the frame it is thrown on. The follower takes the alternative the engine allows, and
    the log is the script's, all 48 events (46 when the live path dropped the readings: the hand's history
    was rewritten instead)."""
    video = generated("sanma", 55, None)
    expected = video.camera_log()
    cam = video.order[video.camera_seat]
    k = _frame_of(video, "discard", video.camera_seat)
    tile = video.events[video.frames[k].event_index].tile.code
    at = sum(1 for lab in video.frames[k].labels if _role(lab)[:2] == ("discard", cam)) - 1
    held = {lab["code"] for lab in video.frames[k - 1].labels if _role(lab)[:2] == ("hand", cam)}
    wrong = next(c for c in ("9s", "8s", "7s", "1s", "2s", "9p", "1p") if c not in held and c != tile)
    assert (k, tile, at, wrong) == (4, "7s", 0, "9s")
    top3 = [(wrong, 0.5), (tile, 0.3), ("1z", 0.1)]

    inf, said = _followed(video, lambda i, lab: top3 if i >= k and _role(lab) == ("discard", cam, at) else None)
    assert compare_logs(inf.events, expected) == (48, "") and len(inf.events) == 48
    assert [r[1:] for r in inf.readings] == [(video.camera_seat, "discard", wrong, tile)]
    assert inf.rereads == [] and inf.corrected == []
    assert (f"{SEAT_WINDS[video.camera_seat]}'s discard read as {wrong} is taken as {tile}, its next best "
            "reading: only that one fits the game.") in said


def test_a_call_whose_meld_cannot_be_read_on_the_live_path_is_taken_from_the_discard_it_took():
    """Sanma 0 on a short wall: a hidden seat pongs East's 7z, and from then on its meld reads 1z 7z 4z, no
    other reading of its tiles a meld (so the table's rebuild cannot mend it). The follower takes the pong the
    vanished discard allows, and the log is the script's, all 28 events (20 when the live path dropped the
    readings: the pong was never followed)."""
    video = generated("sanma", 0, 12)
    expected = video.camera_log()
    c = _frame_of(video, "pong")
    ev = video.events[video.frames[c].event_index]
    pos = video.order[ev.seat]
    assert (c, ev.seat, ev.meld) == (17, 2, "[777z@2]") and ev.seat != video.camera_seat
    reads = {0: [("1z", 0.6), ("2z", 0.2), ("3z", 0.1)], 1: [("7z", 0.6), ("6z", 0.2), ("5z", 0.1)],
             2: [("4z", 0.6), ("3z", 0.2), ("2z", 0.1)]}

    def misread(i, lab):
        return reads[lab["role"][3]] if i >= c and _role(lab) == ("meld", pos, 0) else None

    inf, said = _followed(video, misread)
    assert compare_logs(inf.events, expected) == (28, "") and len(inf.events) == 28
    assert [r[1:] for r in inf.readings] == [(ev.seat, "call", "4z 7z 1z", "7z 7z 7z")]
    assert (f"{SEAT_WINDS[ev.seat]}'s new meld reads 4z 7z 1z, which is no meld: it is taken as 7z 7z 7z, made "
            "with the discard it took.") in said


def test_a_camera_hand_tile_the_camera_misses_is_followed_on_the_live_path_and_said_so():
    """The camera player's 1s is not painted in frames 5-29 (the detector missed it) while the hand draws,
    discards and calls a pong: the live path follows every event of the hand, and the page says which tile it
    holds unseen instead of only that the hand counts too few."""
    video = generated("sanma", 55, None)
    rec = PaintedLabels()
    la = LiveAnalyzer(video.variant, camera_id="missed", recognizer=rec, calibration=video.calibration(),
                      positions=video.positions, dealer=video.dealer, full_pass_s=None, full_pass_frames=8)
    size = (video.camera_model.width, video.camera_model.height)
    said: list[str] = []
    for i, f in enumerate(video.frames):
        labels = list(f.labels)
        if 5 <= i < 30:
            at = next(k for k, lab in enumerate(labels)
                      if lab["code"] == "1s" and lab.get("zone") == "hand" and lab.get("seat") == 0)
            del labels[at]
        for _ in range(READS):
            said += [p for p in la.process(rec.paint(labels, size)).problems if p not in said]
    assert la._game is not None
    inf = la._game.inferrer
    inf.finish()
    expected = video.camera_log()
    assert inf.events == expected, compare_logs(inf.events, expected)[1]
    assert "Your 1s is not seen in this frame (the camera missed it): your hand is followed as it was." in said
    assert not any("not seen in this frame" in p and "1s" not in p for p in said)


def test_an_observation_through_json_keeps_its_readings():
    """Where an observation crosses as JSON, its assignments keep their confidence and top 3."""
    from vision.reconstruct import reconstruct

    video = generated("sanma", 0, 12)
    f = video.frames[3]
    records = [{**lab, "confidence": 0.5, "top3": [{"code": lab["code"], "p": 0.5}, {"code": "1z", "p": 0.25}]}
               for lab in f.labels]
    obs = reconstruct(records, video.calibration(), video.variant, positions=video.positions)
    back = TableObservation.from_dict(json.loads(obs.to_json()))
    assert back.assignments == obs.assignments and len(back.assignments) == len(f.labels)
    hand = next(a for a in back.assignments if a["part"] == "hand")
    assert hand["confidence"] == 0.5 and hand["top3"] == [[hand["code"], 0.5], ["1z", 0.25]]
