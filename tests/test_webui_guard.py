"""Requests from other sites, other Host names, the wrong content type, deep JSON and image bombs are refused
with a clear 4xx and change nothing."""

from __future__ import annotations

import io
import struct
import time
import zlib

import pytest

from webui import create_app
from webui.feed import ScriptedDemoFeed

NEW_MATCH = '{"variant": "sanma", "players": ["A", "B", "C"]}'


@pytest.fixture
def app(tmp_path):
    app = create_app({"FEED": ScriptedDemoFeed(auto=False, fps=20), "DATA_DIR": str(tmp_path),
                      "MATCH_DB": str(tmp_path / "m.db"), "TESTING": True})
    yield app
    app.extensions["hub"].stop()


@pytest.fixture
def client(app):
    return app.test_client()


def _matches(client) -> int:
    return len(client.get("/api/matches").get_json()["matches"])


def test_cross_site_post_is_refused_and_changes_nothing(client):
    before = _matches(client)
    r = client.post("/api/matches", data=NEW_MATCH, content_type="application/json",
                    headers={"Origin": "http://evil.example"})
    assert r.status_code == 403 and "cross-site request refused" in r.get_json()["error"]
    r = client.post("/api/matches", data=NEW_MATCH, content_type="application/json",
                    headers={"Sec-Fetch-Site": "cross-site"})
    assert r.status_code == 403
    r = client.put("/api/settings", json={"teaching": True}, headers={"Origin": "null"})
    assert r.status_code == 403
    assert _matches(client) == before
    assert client.get("/api/settings").get_json()["settings"]["teaching"] is False


def test_same_origin_and_plain_programs_are_served(client):
    r = client.post("/api/matches", data=NEW_MATCH, content_type="application/json",
                    headers={"Origin": "http://localhost", "Sec-Fetch-Site": "same-origin"})
    assert r.status_code == 201, r.get_json()
    r = client.post("/api/matches", data=NEW_MATCH, content_type="application/json")   # curl: no Origin
    assert r.status_code == 201


def test_json_only_with_its_content_type(client):
    before = _matches(client)
    r = client.post("/api/matches", data=NEW_MATCH, content_type="text/plain")
    assert r.status_code == 415 and "Content-Type: application/json" in r.get_json()["error"]
    assert _matches(client) == before


def test_other_host_names_are_refused(client):
    r = client.get("/api/settings", headers={"Host": "evil.example:8765"})
    assert r.status_code == 421 and "evil.example" in r.get_json()["error"]
    assert client.get("/api/settings", headers={"Host": "127.0.0.1:8765"}).status_code == 200
    assert client.get("/api/settings", headers={"Host": "[::1]:8765"}).status_code == 200


def test_a_token_server_takes_its_own_host_names(tmp_path):
    app = create_app({"FEED": ScriptedDemoFeed(auto=False), "DATA_DIR": str(tmp_path), "TESTING": True,
                      "MATCH_DB": str(tmp_path / "m.db"), "ACCESS_TOKEN": "t0k"})
    c = app.test_client()
    r = c.get("/api/settings", headers={"Host": "table.local:8765", "X-Access-Token": "t0k"})
    assert r.status_code == 200
    app.extensions["hub"].stop()


def test_deeply_nested_json_is_a_400(client):
    deep = "[" * 100000 + "]" * 100000
    for path in ("/api/matches", "/api/settings", "/api/analysis/state", "/api/live/correct"):
        r = client.post(path, data=deep, content_type="application/json")
        assert r.status_code == 400, (path, r.status_code)
        assert r.get_json()["error"]


def _png_header(w: int, h: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\x00" * 64)) + \
        chunk(b"IEND", b"")


def test_an_image_bomb_is_refused_before_decoding(client):
    bomb = _png_header(20000, 20000)
    t0 = time.perf_counter()
    r = client.post("/api/photo", data={"image": (io.BytesIO(bomb), "bomb.png")}, content_type="multipart/form-data")
    assert r.status_code == 413 and "20000x20000" in r.get_json()["error"]
    r = client.post("/api/tilesets/enroll", content_type="multipart/form-data",
                    data={"name": "x", "variant": "sanma", "image": (io.BytesIO(bomb), "b.png")})
    assert r.status_code == 413 and "too large" in r.get_json()["error"]
    assert time.perf_counter() - t0 < 30    # not decoded (decoding alone takes seconds and gigabytes)


def test_one_live_win_is_recorded_once_however_many_taps(app):
    import threading

    hub = app.extensions["hub"].start()
    c = app.test_client()
    assert c.post("/api/matches", json={"variant": "sanma", "players": ["Ann", "Bob", "Cid"]}).status_code == 201
    hub.feed.goto(22)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        _, payload, _ = hub.current()
        if payload and payload["snapshot"].get("step") == 22 and payload["snapshot"].get("win"):
            break
        time.sleep(0.05)
    codes: list[int] = []
    barrier = threading.Barrier(8)

    def tap():
        client = app.test_client()
        barrier.wait()
        codes.append(client.post("/api/matches/current/win", json={"live": True}).status_code)

    threads = [threading.Thread(target=tap) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(codes) == [200] + [409] * 7
    sheet = c.get("/api/matches/current").get_json()
    assert len(sheet["hands"]) == 1 and sheet["events"] == 3     # created, East's riichi stick, the win
    # two taps on "undo" of the same event undo it once
    target = sheet["undo"]["event"]
    first = c.post("/api/matches/current/undo", json={"event": target})
    second = c.post("/api/matches/current/undo", json={"event": target})
    assert first.status_code == 200 and second.status_code == 409 and "already undone" in second.get_json()["error"]
