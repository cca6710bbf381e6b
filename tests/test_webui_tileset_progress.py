"""The "Your tiles" page shows a lesson while it runs (a network lesson from page corrections takes a minute or
two: before, the page showed only the last lesson's result, and only when reloaded)."""

from __future__ import annotations

import threading
import time

from tileset_stand_ins import tileset_app

from vision import tilesets as T


def test_the_set_list_says_a_lesson_is_running_and_how_many_wait(tmp_path, monkeypatch):
    gate, started = threading.Event(), threading.Event()

    def learn(ts, crops, codes, rec, **kw):
        started.set()
        gate.wait(20)
        return {"set": ts.name, "kept": True, "examples": len(codes)}

    with tileset_app(tmp_path, monkeypatch) as app:
        monkeypatch.setattr(T, "learn", learn)
        client = app.test_client()
        T.TileSet(name="club", variant="sanma").save()
        client.post("/api/tilesets/active", json={"name": "club"})
        assert client.get("/api/tilesets").get_json()["teaching"] == {"busy": False, "set": None, "waiting": 0,
                                                                       "since": None}
        hub = app.extensions["hub"]
        hub.feed.goto(0)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not client.get("/api/live").get_json()["snapshot"]["tiles"]:
            time.sleep(0.05)
        tiles = client.get("/api/live").get_json()["snapshot"]["tiles"]
        assert client.post("/api/live/correct", json={"tile_id": tiles[0]["id"], "code": "7z"}).get_json()["teaching"]
        assert started.wait(10)
        client.post("/api/live/correct", json={"tile_id": tiles[1]["id"], "code": "6z"})
        state = client.get("/api/tilesets").get_json()["teaching"]
        assert state["busy"] is True and state["set"] == "club" and state["waiting"] == 1
        assert 0 <= time.time() - state["since"] < 20
        gate.set()
        assert app.extensions["tileset_teacher"].wait_idle(20)
        data = client.get("/api/tilesets").get_json()
        assert data["teaching"]["busy"] is False and data["teaching"]["waiting"] == 0
        assert data["last_lesson"]["kept"] is True

