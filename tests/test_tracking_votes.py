"""Tile tracking: a code is believed only after N agreeing frames, flickers change nothing, a user
correction pins the code, and unmoved tiles are not sent to the classifier again."""

from __future__ import annotations

import numpy as np

from vision.tracking import TileTracker

A = np.array([[0.0, 0.0]])


def feed(tr, codes, xy=A, face_up=(True,), conf=0.9):
    out = None
    for c in codes:
        out = tr.update(xy, face_up, [c], [conf])
    return out


def test_code_believed_after_n_agreeing_frames():
    tr = TileTracker(stable_frames=3)
    t = feed(tr, ["3p"])[0]
    assert t.believed is None and not t.stable
    feed(tr, ["3p"])
    assert t.believed is None
    feed(tr, ["3p"])
    assert t.believed == "3p" and t.stable and len(tr.tracks) == 1


def test_flicker_does_not_change_the_code_but_a_lasting_change_does():
    tr = TileTracker(stable_frames=3, window=5)
    t = feed(tr, ["3p"] * 4)[0]
    feed(tr, ["8p", "3p", "8p"])          # a misread now and then: 3p keeps winning the vote
    assert t.believed == "3p"
    feed(tr, ["8p"] * 2)
    assert t.believed == "3p"             # 8p has just taken the vote: not yet believed
    feed(tr, ["8p"] * 3)
    assert t.believed == "8p"


def test_user_correction_overrides_the_model():
    tr = TileTracker(stable_frames=2)
    t = feed(tr, ["6s"] * 3)[0]
    tr.correct(t.track_id, "9s")
    feed(tr, ["6s"] * 5)
    assert t.believed == "9s" and t.code == "6s" and t.corrected == "9s"
    plan = tr.plan(A, [True])
    assert plan.track_ids == [t.track_id] and plan.classify == [False]


def test_unmoved_tiles_need_no_classification():
    tr = TileTracker(tile_mm=26.0, stable_frames=2)
    xy = np.array([[0.0, 0.0], [60.0, 0.0]])
    for _ in range(2):
        tr.update(xy, [True, True], ["1m", "2m"], [0.9, 0.9])
    # a small jitter: same tracks, no classifier needed; the classifier is skipped (code None) and the
    # codes stay
    jitter = xy + [[1.5, -1.0], [-1.0, 2.0]]
    plan = tr.plan(jitter, [True, True])
    assert plan.classify == [False, False]
    tracks = tr.update(jitter, [True, True], [None, None])
    assert [t.believed for t in tracks] == ["1m", "2m"]
    assert tr.needs_classification() == []
    # a new tile and a moved tile need the classifier; a tile turned over too
    moved = np.array([[0.0, 0.0], [70.0, 0.0], [200.0, 0.0]])
    plan = tr.plan(moved, [False, True, True])
    assert plan.track_ids[2] is None
    assert plan.classify == [True, True, True]


def test_tracks_follow_positions_and_expire():
    tr = TileTracker(tile_mm=26.0, stable_frames=1, max_missing=2)
    tr.update(np.array([[0.0, 0.0], [100.0, 0.0]]), codes=["1z", "2z"])
    ids = sorted(tr.tracks)
    tracks = tr.update(np.array([[101.0, 1.0], [1.0, -1.0]]), codes=["2z", "1z"])
    assert [t.track_id for t in tracks] == [ids[1], ids[0]]
    for _ in range(3):
        tr.update(np.array([[1.0, -1.0]]), codes=["1z"])
    assert sorted(tr.tracks) == [ids[0]]
    assert tr.track_at([2.0, 0.0]).believed == "1z"


def test_believed_detections_feed_the_reconstruction():
    from vision.tracking import believed_detections

    tr = TileTracker(stable_frames=2)
    dets = [{"code": "5p", "corners": [[0, 0], [10, 0], [10, 14], [0, 14]], "face_up": True},
            {"code": "7z", "corners": [[40, 0], [50, 0], [50, 14], [40, 14]], "face_up": True}]
    xy = np.array([[0.0, 0.0], [60.0, 0.0]])
    tracks = tr.update(xy, [True, True], ["5p", "7z"])
    assert believed_detections(dets, tracks) == []          # nothing stable yet
    tracks = tr.update(xy, [True, True], ["5p", "6z"])       # a misread of the second tile
    tr.correct(tracks[0].track_id, "0p")
    out = believed_detections(dets, tracks)
    # the first tile as corrected; the second keeps 7z (the one-frame 6z does not win the vote)
    assert [d["code"] for d in out] == ["0p", "7z"] and out[0]["corners"] == dets[0]["corners"]


def test_a_fresh_reading_of_another_tile_where_one_lay_makes_the_track_unsure():
    """A row slid: a neighbour now lies (almost) where the 3p lay. Read where the picture changed, it is a 4p:
    the track is not stable (its 3p is no longer trusted) until 4p has won stable_frames frames."""
    tr = TileTracker(stable_frames=3, window=7)
    t = feed(tr, ["3p"] * 5)[0]
    assert t.believed == "3p" and t.stable
    tr.update(A + 1.0, [True], ["4p"], [0.9], fresh=[True])
    assert t.believed == "3p" and not t.stable          # the old votes are gone: 4p leads, not yet believed
    tr.update(A + 1.0, [True], ["4p"], [0.9], fresh=[True])
    assert not t.stable
    tr.update(A + 1.0, [True], ["4p"], [0.9], fresh=[True])
    assert t.believed == "4p" and t.stable
    # without ``fresh`` (the picture did not change there) a single other reading is only a flicker
    tr.update(A + 1.0, [True], ["5p"], [0.9])
    assert t.believed == "4p" and t.stable


def test_a_moved_tile_votes_again():
    """Five 3p votes, then the tile moves a tile width's share and reads 4p three times: 4p is believed at
    once after stable_frames (the 3p votes from before the move do not outvote it)."""
    tr = TileTracker(tile_mm=26.0, stable_frames=3, window=7, match_radius=0.45, move_tolerance=0.2)
    t = feed(tr, ["3p"] * 5)[0]
    moved = A + np.array([[8.0, 0.0]])                   # 8 mm: more than 0.2 x 26 mm, within the match radius
    for _ in range(3):
        tr.update(moved, [True], ["4p"], [0.9])
    assert t.believed == "4p" and t.stable


def test_a_tile_put_where_a_vanished_one_lay_is_read_again():
    """A 5z is claimed (gone for a few frames), then a 2z is discarded onto the very same spot: the old track
    comes back, so it is classified again (plan) and its 5z is not trusted until 2z has won the vote."""
    tr = TileTracker(stable_frames=3, window=7, max_missing=15)
    t = feed(tr, ["5z"] * 4)[0]
    for _ in range(3):                                   # nothing there for three frames
        tr.update(np.zeros((0, 2)), [], [], [])
    assert tr.plan(A, [True]).classify == [True]          # back where it was: read it again
    tr.update(A, [True], ["2z"], [0.95])
    assert not t.stable
    feed(tr, ["2z"] * 2)
    assert t.believed == "2z" and t.stable
