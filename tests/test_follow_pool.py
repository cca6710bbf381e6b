"""Hong Kong's centre pool followed tile by tile: a discard re-read otherwise while it lies where it lay keeps the
reading it was followed as (:mod:`vision.follow.pool`)."""

from __future__ import annotations

from test_follow_deal import _exact
from test_vision_events import hand

from evaluation.logs import compare_logs
from evaluation.video import infer
from vision.follow.pool import PoolPlaces, PoolTile
from vision.observation import TableObservation

HK_53 = ("hong-kong", 53, None)   # its first discard (frame 2) is a 6s; a 3p is discarded at frame 32


def _pool_read_as(obs: TableObservation, code: str, as_code: str) -> TableObservation:
    """``obs`` with the first ``code`` of its centre pool read as ``as_code`` (its assignment too)."""
    d = obs.to_dict()
    a = next(a for a in d["assignments"] if a["part"] == "centre" and a["code"] == code)
    a["code"] = as_code
    pool = d["centre_discards"]
    pool[pool.index(code)] = as_code
    d["problems"] = []
    return TableObservation.from_dict(d)


def test_a_pool_tile_read_otherwise_after_it_was_followed_keeps_its_reading():
    """The first discard, a 6s, is read right when thrown and as 3p from frame 10 to 30 (while 3p, 5s and 9s are
    thrown around it): each of those frames is followed with the 6s where it lies, and the log is the script's.
    Without the places, frame 10 read as "a 6s vanished from the centre discards" and the rest was lost."""
    video, observations, expected = hand(*HK_53)
    assert [o.centre_discards.count("6s") for o in observations[2:4]] == [1, 1]
    stream = [_pool_read_as(o, "6s", "3p") if 10 <= i <= 30 else o for i, o in enumerate(observations)]
    inf = _exact(video, stream)
    assert not [p for p in inf.problems if "vanished" in p.message]


def _placeless(o: TableObservation) -> TableObservation:
    """``o`` with its pool tiles' places taken away (an observation made by hand)."""
    d = o.to_dict()
    for a in d["assignments"]:
        if a["part"] == "centre":
            a.pop("table_xy", None)
    return TableObservation.from_dict(d)


def test_without_places_a_pool_tile_read_otherwise_stops_the_hand():
    """The same frames with the pool tiles' places taken away: the 6s re-read as a tile of another suit is a
    tile gone, as the pool alone can say, and the hand is not followed to its end."""
    video, observations, expected = hand(*HK_53)
    placeless = _placeless
    stream = [placeless(_pool_read_as(o, "6s", "3p") if 10 <= i <= 30 else o) for i, o in enumerate(observations)]
    inf = infer(video, stream)
    matched, first = compare_logs(inf.events, expected)
    assert matched < len(expected)
    assert any("A 6s vanished from the centre discards" in p.message for p in inf.problems)


def test_pool_places_keep_the_followed_reading_of_a_tile_where_it_lies():
    """Worked by hand: tiles of 28 mm; 6s followed at (0, 0) and 2m at (100, 0). A frame reads 5s at (3, -4)
    (5 mm away: the 6s), 2m at (100, 1) and a new 9p at (50, 50): the pool is 2m 9p 6s. A tile 20 mm from a
    place (over half a tile width) is a new tile, and the followed tile no tile is read at is kept (missed),
    unless it is the latest discard."""
    places = PoolPlaces([PoolTile(0.0, 0.0, "6s"), PoolTile(100.0, 0.0, "2m")])

    def frame(tiles):
        return TableObservation("hong-kong", 4, [], centre_discards=[c for c, _ in tiles],
                                assignments=[{"part": "centre", "code": c, "table_xy": list(xy)} for c, xy in tiles],
                                meta={"tile_mm": [28.0, 38.0]})

    obs = frame([("5s", (3.0, -4.0)), ("2m", (100.0, 1.0)), ("9p", (50.0, 50.0))])
    assert places.kept(obs, ["2m", "5s", "9p"]) == ("2m", "9p", "6s")
    far = frame([("5s", (20.0, 0.0)), ("2m", (100.0, 1.0))])   # the 6s missed, a new 5s beside it
    assert places.kept(far, ["2m", "5s"]) == ("2m", "5s", "6s")
    assert places.kept(far, ["2m", "5s"], latest="6s") == ("2m", "5s")   # the latest discard: maybe called
    places.remember(obs, ("2m", "9p", "6s"))
    assert sorted(places.tiles, key=lambda t: t.x) == [PoolTile(3.0, -4.0, "6s"), PoolTile(50.0, 50.0, "9p"),
                                                        PoolTile(100.0, 1.0, "2m")]
    missed = frame([("2m", (100.0, 0.0)), ("9p", (50.0, 49.0)), ("1z", (-60.0, 0.0))])   # the 6s missed, 1z new
    assert places.kept(missed, ["1z", "2m", "9p"]) == ("2m", "9p", "6s", "1z")
    places.remember(missed, ("2m", "9p", "6s", "1z"))
    assert sorted(places.tiles, key=lambda t: t.x) == [PoolTile(-60.0, 0.0, "1z"), PoolTile(3.0, -4.0, "6s"),
                                                        PoolTile(50.0, 49.0, "9p"), PoolTile(100.0, 0.0, "2m")]
    assert places.kept(frame([]), []) == ()          # a pool read empty: a table cleared or dealt anew
    three_gone = frame([("1z", (-60.0, 0.0))])        # more than MISSED_AT_MOST places empty: read as it reads
    assert places.kept(three_gone, ["1z"]) == ("1z",)


def test_without_places_a_pool_tile_reread_in_its_suit_keeps_its_reading():
    """Without places, the 6s read as 5s from frame 10 to 30: the frame's new 5s is taken as the 6s re-read
    (a followed tile gone, a new one of its suit: :func:`vision.follow.repairs.centre_with_followed_readings`),
    and the log is the script's."""
    video, observations, expected = hand(*HK_53)
    stream = [_placeless(_pool_read_as(o, "6s", "5s") if 10 <= i <= 30 else o) for i, o in enumerate(observations)]
    _exact(video, stream)
