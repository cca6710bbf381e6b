"""The "Your tiles" API hardened (issue 32): corrections are taught by one worker from a bounded, coalescing queue;
the same correction is stored and taught once; the set list holds no NaN, survives a damaged set (reported with
its reason) and reads no example (each set's summary only)."""

from __future__ import annotations

import json
import threading
import time

import numpy as np
import pytest
from tileset_stand_ins import StandInRecognizer, tileset_app

from vision import tilesets as T
from webui.tilesets import Teacher


@pytest.fixture
def app(tmp_path, monkeypatch):
    with tileset_app(tmp_path, monkeypatch) as a:
        yield a


@pytest.fixture
def client(app):
    return app.test_client()


def _tiles(app):
    feed = app.extensions["hub"].feed
    feed.goto(0)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not feed.snapshot().tiles:
        time.sleep(0.05)
    return [t.to_json() for t in feed.snapshot().tiles]


def _teacher(app) -> Teacher:
    return app.extensions["tileset_teacher"]


def _strict(text):
    def no_nan(name):
        raise AssertionError(f"{name} in JSON")

    return json.loads(text, parse_constant=no_nan)


# --------------------------------------------------------------------------- case 4


def test_a_flood_of_corrections_is_taught_by_one_worker(app, client, monkeypatch):
    # before: one thread per correction (1,000 posts made 1,012 threads)
    T.TileSet(name="club", variant="sanma").save()
    client.post("/api/tilesets/active", json={"name": "club"})
    tiles = _tiles(app)
    real = T.learn
    lessons = []

    def slow_learn(ts, crops, codes, rec, **kw):
        lessons.append(len(codes))
        time.sleep(0.2)
        return real(ts, crops, codes, rec, **kw)

    monkeypatch.setattr(T, "learn", slow_learn)
    before = threading.active_count()
    earlier = set(threading.enumerate())     # other tests' apps may still have their own teacher
    most = 0
    rng = np.random.default_rng(5)
    for _ in range(60):
        t = tiles[int(rng.integers(len(tiles)))]
        code = ["1z", "2z", "3z", "7z", "1p", "9p"][int(rng.integers(6))]
        r = client.post("/api/live/correct", json={"tile_id": t["id"], "code": code})
        assert r.status_code == 200
        most = max(most, threading.active_count() - before)
    assert most <= 2                                     # the one worker (before: 59 threads)
    assert [t.name for t in threading.enumerate() if t not in earlier].count("tileset-teacher") == 1
    assert _teacher(app).wait_idle(60)
    assert sum(lessons) <= 60 and len(lessons) < 60      # coalesced: several corrections per lesson


def test_the_queue_is_bounded_and_the_same_crop_taught_once(tmp_path, monkeypatch):
    monkeypatch.setenv("MAHJONG_ASSISTANT_TILESETS", str(tmp_path / "sets"))
    T.TileSet(name="club").save()
    T.use("club")
    gate, lessons = threading.Event(), []

    def learn(ts, crops, codes, rec, **kw):
        lessons.append(list(codes))
        gate.wait(10)
        return {"set": ts.name, "kept": False}

    monkeypatch.setattr(T, "learn", learn)

    class Feed:
        rec = StandInRecognizer()

        def recognizer(self):
            return self.rec

    teacher, feed = Teacher(), Feed()
    image = np.random.default_rng(0).integers(0, 255, (400, 400, 3)).astype(np.uint8)

    def box(i):
        x, y = 10 + (i % 30) * 12, 10 + (i // 30) * 50
        return [[x, y], [x + 30, y], [x + 30, y + 40], [x, y + 40]]

    assert teacher.teach(feed, image, box(0), "1z")
    deadline = time.monotonic() + 10
    while not lessons and time.monotonic() < deadline:
        time.sleep(0.01)
    for i in range(1, 100):                              # while the first lesson runs: 99 more, 64 kept waiting
        teacher.teach(feed, image, box(i), "2z")
    for code in ("3z", "4z", "5z"):                      # the last crop again: once, with its last code
        teacher.teach(feed, image, box(99), code)
    assert teacher.pending() == Teacher.MAX_PENDING == 64
    gate.set()
    assert teacher.wait_idle(30)
    assert [len(c) for c in lessons] == [1, 64]
    assert lessons[1] == ["2z"] * 63 + ["5z"]


def test_the_same_correction_is_stored_and_taught_once(app, client, tmp_path):
    # before: 10 posts of one correction stored 5-10 records (each post redraws the frame)
    T.TileSet(name="club", variant="sanma").save()
    client.post("/api/tilesets/active", json={"name": "club"})
    tile = _tiles(app)[0]
    answers = [client.post("/api/live/correct", json={"tile_id": tile["id"], "code": "7z"}).get_json()
               for _ in range(10)]
    assert [a["teaching"] for a in answers] == [True] + [False] * 9
    assert len({a["stored"]["time"] + a["stored"]["crop"] for a in answers}) == 1
    lines = (tmp_path / "corrections" / "corrections.jsonl").read_text().splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["code"] == "7z"
    assert _teacher(app).wait_idle(30)
    assert T.TileSet.load("club").codes == ["7z"]
    # another code for it is a new correction, and so is going back to the first
    for code in ("6z", "7z"):
        r = client.post("/api/live/correct", json={"tile_id": tile["id"], "code": code}).get_json()
        assert r["teaching"] is True
    lines = (tmp_path / "corrections" / "corrections.jsonl").read_text().splitlines()
    assert [json.loads(line)["code"] for line in lines] == ["7z", "6z", "7z"]


# --------------------------------------------------------------------------- case 6


def test_the_set_list_holds_no_nan_after_a_lesson(app, client):
    # before: a lesson with nothing held back left NaN in last_lesson: the page's JSON.parse failed
    T.TileSet(name="club", variant="sanma").save()
    client.post("/api/tilesets/active", json={"name": "club"})
    tiles = _tiles(app)
    for n, (t, code) in enumerate(((tiles[0], "7z"), (tiles[1], "6z")), 1):
        client.post("/api/live/correct", json={"tile_id": t["id"], "code": code})
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and (client.get("/api/tilesets").get_json()["last_lesson"] or {}).get(
                "examples") != n:
            time.sleep(0.05)
    r = client.get("/api/tilesets")
    data = _strict(r.get_data(as_text=True))
    assert data["last_lesson"]["set"] == "club" and data["last_lesson"]["accuracy_before"] is None
    assert data["last_lesson"]["earlier_before"] is not None


# --------------------------------------------------------------------------- cases 7 and 10


def _full(name, n, variant="sanma"):
    ts = T.TileSet(name=name, variant=variant)
    ts.crops = np.random.default_rng(len(name)).integers(0, 255, (n, 96, 72, 3)).astype(np.uint8)
    ts.codes, ts.added = (["1z", "2z", "none"] * n)[:n], [0.0] * n
    ts.history = [{"time": 1, "source": "layout photo", "added": n, "kept": True, "held_back": 0,
                   "accuracy_before": None, "accuracy_after": None}]
    ts.save()


def test_the_set_list_reads_no_example(client, monkeypatch):
    # before: every example of every set was read to list them (4-5 s with two full sets)
    _full("big", 30)
    _full("other", 4, "hong-kong")

    def never(*a, **k):
        raise AssertionError("examples read")

    monkeypatch.setattr(np, "load", never)
    monkeypatch.setattr(T.TileSet, "load", never)
    r = client.get("/api/tilesets")
    assert r.status_code == 200
    history = [{"time": 1, "source": "layout photo", "added": 30, "kept": True, "held_back": 0,
                "accuracy_before": None, "accuracy_after": None}]
    assert r.get_json()["sets"] == [
        {"name": "big", "variant": "sanma", "examples": 30, "kinds": 2, "adapted": False, "network": False,
         "history": history},
        {"name": "other", "variant": "hong-kong", "examples": 4, "kinds": 2, "adapted": False, "network": False,
         "history": [{**history[0], "added": 4}]}]
    assert r.get_json()["damaged"] == []


def test_a_damaged_set_is_reported_and_the_others_listed(client):
    # before: one damaged set made the list answer 500 for every set
    _full("good", 3)
    _full("bad", 3)
    (T.root_dir() / "bad" / "set.json").write_text("[1, 2")
    r = client.get("/api/tilesets")
    assert r.status_code == 200
    data = r.get_json()
    assert [s["name"] for s in data["sets"]] == ["good"]
    assert data["damaged"] == [{"name": "bad", "reason": "tile set 'bad' cannot be read (set.json is not JSON "
                                "(Expecting ',' delimiter: line 1 column 6 (char 5))); `mahjong-assistant tileset "
                                "remove bad` deletes it"}]
    r = client.post("/api/tilesets/active", json={"name": "bad"})
    assert r.status_code == 400 and r.get_json()["error"] == data["damaged"][0]["reason"]
