"""Every web endpoint through Flask's test client, good and bad input (the demo feed, no browser)."""

from __future__ import annotations

import io
import json
import time

import cv2
import numpy as np
import pytest

from webui import create_app
from webui.feed import ScriptedDemoFeed


@pytest.fixture(scope="module")
def shared_app(tmp_path_factory):
    """One app (and one feed loop) for the whole module; :func:`app` gives each test clean files."""
    root = tmp_path_factory.mktemp("webui")
    feed = ScriptedDemoFeed(auto=False, fps=20)
    app = create_app({"FEED": feed, "DATA_DIR": str(root), "MATCH_DB": str(root / "m.db"), "TESTING": True,
                      "MAX_CONTENT_LENGTH": 256 * 1024})
    app.extensions["hub"].start()
    yield app
    app.extensions["hub"].stop()


@pytest.fixture
def app(shared_app, tmp_path):
    """The shared app with this test's own database, corrections and calibration folders, default
    settings and no corrections."""
    from webui.feed import default_analyze_image
    from webui.hub import CorrectionStore

    app = shared_app
    hub = app.extensions["hub"]
    app.config.update(MATCH_DB=str(tmp_path / "m.db"), CALIBRATION_DIR=str(tmp_path / "calibration"),
                      ANALYZE_IMAGE=default_analyze_image)
    app.extensions["corrections"] = CorrectionStore(tmp_path / "corrections")
    app.extensions.pop("recorded_wins", None)
    hub.feed._corrections.clear()
    hub.settings.update({"variant": "sanma", "options": {}, "teaching": False, "me": 0, "match": None})
    hub.settings_changed()
    return app


@pytest.fixture
def client(app):
    return app.test_client()


def goto(app, step: int) -> dict:
    """Demo step ``step`` analysed and published; returns the page data."""
    app.extensions["hub"].feed.goto(step)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        _, payload, _ = app.extensions["hub"].current()
        if payload and payload["snapshot"].get("step") == step:
            return payload
        time.sleep(0.02)
    raise AssertionError(f"step {step} not reached")


def err(resp, status: int, *words: str) -> dict:
    assert resp.status_code == status, resp.get_data(as_text=True)
    body = resp.get_json()
    assert body["status"] == status and body["error"]
    for w in words:
        assert w in body["error"], body["error"]
    return body


# --- pages and the live view -----------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/", "/match", "/settings", "/calibration", "/photo"])
def test_pages_render(client, path):
    resp = client.get(path)
    assert resp.status_code == 200 and b"Table assistant" in resp.data


def test_live_data_has_snapshot_view_and_status(app, client):
    payload = goto(app, 11)
    body = client.get("/api/live").get_json()
    assert body["snapshot"]["event"] == "East declares riichi with 7z"
    me = body["view"]["seats"][0]
    assert [(w["tile"], w["live"], w["label"]) for w in me["waits"]] == [("3s", 3, "can ron"), ("6s", 3, "can ron")]
    assert body["status"]["source"] == "demo" and body["palette"][0] == "1m"
    assert {t["id"] for t in body["snapshot"]["tiles"]} >= {"t14"} and "truth" not in body["snapshot"]["tiles"][0]
    assert payload["version"] <= body["version"]
    assert client.get("/api/live/status").get_json()["budget_ms"] == 50.0


def test_frame_and_mjpeg_stream(client):
    resp = client.get("/frame.jpg")
    assert resp.status_code == 200 and resp.mimetype == "image/jpeg"
    assert cv2.imdecode(np.frombuffer(resp.data, np.uint8), cv2.IMREAD_COLOR).shape == (720, 960, 3)
    resp = client.get("/stream.mjpg", buffered=False)
    assert resp.mimetype == "multipart/x-mixed-replace"
    first = next(iter(resp.response))
    assert first.startswith(b"--frame\r\nContent-Type: image/jpeg") and b"\xff\xd8" in first
    resp.close()


def test_sse_sends_the_page_data(app, client):
    resp = client.get("/events", buffered=False)
    assert resp.mimetype == "text/event-stream"
    first = next(iter(resp.response))
    first = first.decode() if isinstance(first, bytes) else first
    assert "event: snapshot" in first
    data = json.loads(first.split("data: ", 1)[1])
    assert data["view"]["ok"] and data["snapshot"]["tiles"]
    resp.close()


def test_one_shared_loop_for_every_viewer(app, client):
    import threading

    streams = [client.get(p, buffered=False) for p in ["/events", "/stream.mjpg"] * 5]
    for s in streams:
        next(iter(s.response))
    names = [t.name for t in threading.enumerate()]
    assert names.count("analysis") == 1 and sum(n.startswith("feed:") for n in names) == 1
    for s in streams:
        s.close()


# --- corrections -------------------------------------------------------------------------------------


def test_correction_applies_persists_and_is_stored(app, client, tmp_path):
    goto(app, 10)
    resp = client.post("/api/live/correct", json={"tile_id": "t14", "code": "7z"})
    assert resp.status_code == 200, resp.get_json()
    body = resp.get_json()
    assert body["tile"]["was"] == "6z" and body["tile"]["code"] == "7z"
    payload = goto(app, 11)  # next step: the tile is the riichi discard now, still 7z
    discards = payload["view"]["seats"][0]["discards"]
    assert discards[-1] == {"tile": "7z", "called_by": None, "riichi": True}
    rec = json.loads((tmp_path / "corrections" / "corrections.jsonl").read_text().splitlines()[-1])
    assert rec["tile_id"] == "t14" and rec["was"] == "6z" and rec["code"] == "7z"
    crop = cv2.imread(str(tmp_path / "corrections" / rec["crop"]))
    assert crop.shape == (96, 72, 3)


@pytest.mark.parametrize("body, status, words", [
    ({"tile_id": "t14", "code": "2x"}, 400, ["unknown tile"]),
    ({"tile_id": "t14", "code": "2m"}, 400, ["not in the sanma tile set"]),
    ({"tile_id": "t14"}, 400, ["tile code"]),
    ({"code": "7z"}, 400, ["'tile_id' is missing"]),
    ({"tile_id": "t99", "code": "7z"}, 404, ["no tile 't99'"]),
    ({"tile_id": 14, "code": "7z"}, 400, ["must be a string"]),
])
def test_bad_corrections_are_refused_and_not_stored(app, client, tmp_path, body, status, words):
    goto(app, 1)
    err(client.post("/api/live/correct", json=body), status, *words)
    assert not (tmp_path / "corrections" / "corrections.jsonl").exists()


def test_bad_json_bodies(client):
    for path in ["/api/live/correct", "/api/analysis/hand", "/api/settings", "/api/matches", "/api/calibration"]:
        err(client.post(path, data="{not json", content_type="application/json"), 400, "not valid JSON")
        err(client.post(path, data="[1, 2]", content_type="application/json"), 400, "must be a JSON object")
        err(client.post(path, data="", content_type="application/json"), 400, "JSON object body")


def test_impossible_correction_keeps_last_consistent_table(app, client):
    goto(app, 11)
    # a fifth 9p: East holds 9p9p, and turning three more tiles into 9p is more than the set has
    for tid in ("t01", "t03", "t05"):
        tiles = {t["id"] for t in client.get("/api/live").get_json()["snapshot"]["tiles"]}
        if tid in tiles:
            client.post("/api/live/correct", json={"tile_id": tid, "code": "9p"})
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        body = client.get("/api/live").get_json()
        if any("impossible" in p for p in body["snapshot"]["problems"]):
            break
        time.sleep(0.05)
    assert any("impossible" in p for p in body["snapshot"]["problems"])
    assert body["view"]["ok"]  # still shows the last consistent table


# --- analysis API ----------------------------------------------------------------------------------------


def test_variants(client):
    names = [v["name"] for v in client.get("/api/variants").get_json()["variants"]]
    assert names == ["sanma", "korean-3p", "hong-kong", "three-kaki"]


def test_analysis_of_a_state(app, client):
    state = goto(app, 21)["state"]
    body = client.post("/api/analysis/state", json={"state": state, "me": 0}).get_json()
    calls = body["seats"][0]["calls"]
    assert any(a["kind"] == "ron" and a["legal"] for a in calls)
    assert any(a["kind"] == "chow" and a["code"] == "NO_CHI" for a in calls)
    teaching = client.post("/api/analysis/state", json={"state": state, "teaching": True}).get_json()
    assert teaching["seats"][1]["hidden"] and teaching["seats"][1]["concealed"] is None
    assert teaching["seats"][1]["calls"] == [] and teaching["seats"][0]["waits"]


def test_analysis_state_errors(app, client):
    state = goto(app, 21)["state"]
    err(client.post("/api/analysis/state", json={}), 400, "'state' must be")
    body = err(client.post("/api/analysis/state", json={"state": {**state, "colour": 1}}), 400, "unknown field")
    assert body["field"] == "state.colour"
    err(client.post("/api/analysis/state", json={"state": {**state, "variant": "mahjong"}}), 400, "unknown rule system")
    err(client.post("/api/analysis/state", json={"state": state, "me": 5}), 400, "between 0 and 2")
    err(client.post("/api/analysis/state", json={"state": state, "win": {"seat": 9, "tile": "6s"}}), 400, "seat")


def test_typed_hand(client):
    body = client.post("/api/analysis/hand", json={"hand": "234p567p99p45s789s", "variant": "sanma"}).get_json()
    assert [w["tile"] for w in body["waits"]] == ["3s", "6s"] and body["shanten"]["shanten"] == 0
    body = client.post("/api/analysis/hand", json={"hand": "234p567p99p45s789s7z"}).get_json()
    assert body["advice"][0]["discard"] == "7z"
    hk = client.post("/api/analysis/hand", json={"hand": "123m456m789p345s2p", "variant": "hong-kong"}).get_json()
    assert hk["waits"][0]["tile"] == "2p"


@pytest.mark.parametrize("body, words", [
    ({"hand": "234p567p99p45s78x"}, ["bad tile token"]),
    ({"hand": "2m3m4m567p99p45s789s", "variant": "sanma"}, ["not in the sanma tile set"]),
    ({"hand": "234p567p99p45s789s", "variant": "riichi-5p"}, ["unknown rule system"]),
    ({"hand": "234p567p"}, ["expected 13 or 14"]),
    ({"hand": "234p567p99p45s789s", "options": {"bogus": 1}}, ["not a table option"]),
    ({"hand": "234p567p99p45s789s", "options": {"kuitan": "yes"}}, ["takes a value like"]),
    ({}, ["'hand' is missing"]),
    ({"hand": 5}, ["must be a string"]),
])
def test_typed_hand_errors(client, body, words):
    err(client.post("/api/analysis/hand", json=body), 400, *words)


def test_typed_score_matches_the_cli(client):
    body = client.post("/api/analysis/score", json={"hand": "234p567p99p45s789s", "win_tile": "6s", "ron_from": "W",
                                                    "riichi": True, "dora": "3s"}).get_json()
    assert body["legal"] and body["total"] == 3 and body["fu"] == 30
    assert body["payments"][0] == {"from": "West", "to": "East", "payer": 2, "receiver": 0, "amount": 5800,
                                   "reason": "win"}


@pytest.mark.parametrize("body, words", [
    ({"hand": "234p567p99p45s789s"}, ["'win_tile' is missing"]),
    ({"hand": "234p567p99p45s789s", "win_tile": "6s"}, ["tsumo"]),
    ({"hand": "234p567p99p45s789s", "win_tile": "6s", "tsumo": True, "ron_from": "W"}, ["not both"]),
    ({"hand": "234p567p99p45s789s", "win_tile": "6s", "tsumo": "yes"}, ["true or false"]),
    ({"hand": "234p567p99p45s789s", "win_tile": "6s", "ron_from": "Q"}, ["seat"]),
    ({"win_tile": "6s"}, ["typed 'hand'"]),
])
def test_typed_score_errors(client, body, words):
    err(client.post("/api/analysis/score", json=body), 400, *words)


def test_score_of_a_table_win(app, client):
    state = goto(app, 21)["state"]
    body = client.post("/api/analysis/score", json={"state": state, "win": {"seat": 0, "tile": "6s"}}).get_json()
    assert body["allowed"] and body["legal"] and body["recordable"] and body["total"] == 3
    bad = client.post("/api/analysis/score", json={"state": state, "win": {"seat": 1, "tile": "6s"}}).get_json()
    assert not bad["recordable"] and bad["why_not"]
    err(client.post("/api/analysis/score", json={"state": state}), 400, "'win' is missing")
    err(client.post("/api/analysis/score", json={"state": state, "win": {"seat": 0, "tile": "2m"}}), 400,
        "not in the sanma tile set")


def test_live_win(app, client):
    goto(app, 3)
    err(client.get("/api/analysis/live-win"), 404, "no win")
    goto(app, 22)
    body = client.get("/api/analysis/live-win").get_json()
    assert body["name"] == "East" and body["verdict"] == "3 han 30 fu ron"


# --- settings ----------------------------------------------------------------------------------------------


def test_settings_change_what_the_page_shows(app, client):
    goto(app, 11)
    body = client.put("/api/settings", json={"teaching": True}).get_json()
    assert body["settings"]["teaching"] is True
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and not client.get("/api/live").get_json()["view"]["teaching"]:
        time.sleep(0.05)
    view = client.get("/api/live").get_json()["view"]
    assert view["seats"][1]["hidden"] and not view["seats"][0]["hidden"]

    client.put("/api/settings", json={"options": {"kuikae": "allowed"}})
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        state = client.get("/api/live").get_json()["state"]
        if state.get("options") == {"kuikae": "allowed"}:
            break
        time.sleep(0.05)
    assert state["options"] == {"kuikae": "allowed"}

    client.put("/api/settings", json={"variant": "hong-kong"})
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        problems = client.get("/api/live").get_json()["snapshot"]["problems"]
        if any("hong-kong" in p for p in problems):
            break
        time.sleep(0.05)
    assert any("plays sanma" in p for p in problems)
    assert client.get("/api/settings").get_json()["settings"]["options"] == {}


@pytest.mark.parametrize("body, words", [
    ({"variant": "mahjong"}, ["unknown rule system"]),
    ({"variant": 3}, ["rule-system name"]),
    ({"options": {"kuikae": 7}}, ["takes a value like"]),
    ({"options": {"nope": True}}, ["not a table option"]),
    ({"options": []}, ["must be a JSON object"]),
    ({"teaching": "on"}, ["true or false"]),
    ({"me": 3}, ["your seat"]),
    ({"colour": "red"}, ["unknown setting"]),
    ({"match": 12}, ["match id"]),
])
def test_settings_errors(client, body, words):
    before = client.get("/api/settings").get_json()["settings"]
    err(client.put("/api/settings", json=body), 400, *words)
    assert client.get("/api/settings").get_json()["settings"] == before


# --- the match / score sheet ---------------------------------------------------------------------------------


def test_match_lifecycle(app, client):
    err(client.get("/api/matches/current"), 404, "no match yet")
    resp = client.post("/api/matches", json={"variant": "sanma", "players": ["Ann", "Bob", "Cid"]})
    assert resp.status_code == 201
    mid = resp.get_json()["match"]
    assert client.get("/api/matches").get_json()["matches"][0]["id"] == mid
    goto(app, 3)
    err(client.post("/api/matches/current/win", json={"live": True}), 409, "no win")
    goto(app, 22)
    body = client.post("/api/matches/current/win", json={"live": True}).get_json()
    assert body["recorded"] == [2, 3]  # East's riichi stick, then the win
    hand = body["match"]["hands"][0]
    assert hand["result"].startswith("Ann wins on Cid's discard") and hand["totals"]["Ann"] == 40800
    err(client.post("/api/matches/current/win", json={"live": True}), 409, "already recorded")
    csv_text = client.get(f"/api/matches/{mid}/export.csv").get_data(as_text=True)
    assert "Ann wins on Cid's discard" in csv_text.splitlines()[2]
    log = json.loads(client.get(f"/api/matches/{mid}/export.json").get_data(as_text=True))
    assert [e["type"] for e in log["events"]] == ["match_created", "riichi", "win"]
    undone = client.post(f"/api/matches/{mid}/undo", json={}).get_json()
    assert undone["undone"] == 3 and undone["match"]["hands"] == []
    again = client.post("/api/matches/current/win", json={"live": True}).get_json()  # may be recorded again
    assert again["recorded"] == [5]
    assert client.get(f"/api/matches/{mid[:4]}").get_json()["match"] == mid


def test_match_errors_write_nothing(app, client):
    err(client.post("/api/matches", json={"variant": "riichi-4p", "players": ["A", "B", "C"]}), 400, "unknown rule")
    err(client.post("/api/matches", json={"players": "Ann"}), 400, "list of names")
    err(client.post("/api/matches", json={"variant": "sanma", "players": ["A", "B"]}), 422)
    err(client.post("/api/matches", json={"variant": "sanma", "players": ["A", "B", "C"], "options": {"kuitan": 3}}),
        400, "takes a value like")
    err(client.get("/api/matches/zzzz"), 404, "no match 'zzzz'")
    err(client.post("/api/matches/zzzz/undo", json={}), 404)
    mid = client.post("/api/matches", json={"variant": "sanma", "players": ["A", "B", "C"]}).get_json()["match"]
    err(client.post(f"/api/matches/{mid}/undo", json={}), 409, "nothing to undo")
    err(client.post(f"/api/matches/{mid}/undo", json={"event": "last"}), 400, "event number")
    state = goto(app, 21)["state"]
    # not a winning tile for South: refused, nothing written
    err(client.post(f"/api/matches/{mid}/win", json={"state": state, "win": {"seat": 1, "tile": "6s"}}), 422,
        "cannot be recorded")
    err(client.post(f"/api/matches/{mid}/win", json={"state": state}), 400, "'win' is missing")
    err(client.post(f"/api/matches/{mid}/win", json={"win": {"seat": 0}}), 400, "'state' is missing")
    hk = client.post("/api/matches", json={"variant": "hong-kong", "players": ["A", "B", "C", "D"]}).get_json()["match"]
    err(client.post(f"/api/matches/{hk}/win", json={"state": state, "win": {"seat": 0, "tile": "6s"}}), 409,
        "plays hong-kong")
    assert client.get(f"/api/matches/{mid}").get_json()["events"] == 1
    assert client.get(f"/api/matches/{hk}").get_json()["events"] == 1


def test_record_a_win_on_a_given_table(app, client):
    mid = client.post("/api/matches", json={"variant": "sanma", "players": ["A", "B", "C"]}).get_json()["match"]
    state = goto(app, 21)["state"]
    body = client.post(f"/api/matches/{mid}/win", json={"state": state, "win": {"seat": 0, "tile": "6s"}}).get_json()
    assert body["match"]["points"]["A"] == 40800


# --- calibration ----------------------------------------------------------------------------------------------


def test_calibration_round_trip(client, tmp_path):
    body = client.get("/api/calibration").get_json()
    assert body["camera"] == "demo" and body["calibration"] is None and body["frame_size"] == [960, 720]
    corners = [[100, 650], [860, 650], [860, 60], [100, 60]]
    saved = client.post("/api/calibration", json={"corners": corners, "image_size": [960, 720]}).get_json()
    assert saved["saved"] and (tmp_path / "calibration" / "demo.json").is_file()
    again = client.get("/api/calibration?camera=demo").get_json()
    assert again["calibration"]["corners"] == [[float(x), float(y)] for x, y in corners]


@pytest.mark.parametrize("body, words", [
    ({"corners": [[1, 1], [2, 2], [3, 3]], "image_size": [960, 720]}, ["four table corners"]),
    ({"corners": [[100, 650], [860, 650], [860, 60], [100, 60]]}, ["image_size"]),
    ({"corners": [[100, 650], [860, 650], [2000, 60], [100, 60]], "image_size": [960, 720]}, ["outside"]),
    ({"corners": [[100, 650], [860, 60], [860, 650], [100, 60]], "image_size": [960, 720]}, ["outline the table"]),
    ({"corners": [[100, 650], [860, 650], ["a", 60], [100, 60]], "image_size": [960, 720]}, ["corner 3"]),
    ({"corners": [[100, 650], [860, 650], [True, 60], [100, 60]], "image_size": [960, 720]}, ["corner 3"]),
    ({"camera": "../etc/passwd!", "corners": [[1, 1]] * 4, "image_size": [960, 720]}, ["names a camera"]),
])
def test_calibration_errors(client, tmp_path, body, words):
    err(client.post("/api/calibration", json=body), 400, *words)
    assert not (tmp_path / "calibration").exists() or not list((tmp_path / "calibration").iterdir())


# --- photo upload -----------------------------------------------------------------------------------------------


def _png() -> bytes:
    ok, buf = cv2.imencode(".png", np.full((40, 60, 3), 200, np.uint8))
    return buf.tobytes()


def test_photo_without_models_says_so(client):
    resp = client.post("/api/photo", data={"image": (io.BytesIO(_png()), "hand.png")},
                       content_type="multipart/form-data")
    err(resp, 503, "recognition models not installed")


def test_photo_errors(client):
    err(client.post("/api/photo", data={"image": (io.BytesIO(b"hello"), "x.png")}, content_type="multipart/form-data"),
        415, "not a picture")
    err(client.post("/api/photo", data={}, content_type="multipart/form-data"), 400, "'image'")
    err(client.post("/api/photo", data={"image": (io.BytesIO(b""), "x.png")}, content_type="multipart/form-data"),
        400, "empty")
    big = b"\x89PNG" + b"0" * (300 * 1024)
    err(client.post("/api/photo", data={"image": (io.BytesIO(big), "big.png")}, content_type="multipart/form-data"),
        413, "too large")


def test_photo_with_an_injected_analyser(app, client):
    state = goto(app, 21)["state"]
    seen = []

    def analyze(data: bytes) -> dict:
        seen.append(len(data))
        return {"tiles": [], "state": state, "win": {"seat": 0, "tile": "6s", "tsumo": False}, "problems": []}

    app.config["ANALYZE_IMAGE"] = analyze
    resp = client.post("/api/photo", data=_png(), content_type="image/png")
    body = resp.get_json()
    assert resp.status_code == 200 and seen and body["view"]["win"]["total"] == 3 and body["size"] == [60, 40]


# --- tile images --------------------------------------------------------------------------------------------------


def test_tile_images_are_cached(client):
    resp = client.get("/tiles/5p.png")
    assert resp.status_code == 200 and resp.mimetype == "image/png" and "max-age" in resp.headers["Cache-Control"]
    assert cv2.imdecode(np.frombuffer(resp.data, np.uint8), cv2.IMREAD_COLOR).shape == (128, 96, 3)
    again = client.get("/tiles/5p.png", headers={"If-None-Match": resp.headers["ETag"]})
    assert again.status_code == 304
    err(client.get("/tiles/5x.png"), 404, "unknown tile")


def test_every_tile_has_its_image_built_and_the_page_renders_none(app, client, tmp_path):
    from vision.inference import KINDS

    for code in KINDS[:-1]:
        assert client.get(f"/tiles/{code}.png").status_code == 200, code
    app.config["TILES_DIR"] = str(tmp_path / "none-here")
    try:
        err(client.get("/tiles/7p.png"), 503, "python -m datasets.assets.tiles")
    finally:
        app.config["TILES_DIR"] = None


def test_run_time_code_does_not_import_the_renderer():
    """Importing the web app and the live pipeline, and serving a page, loads nothing from datasets/."""
    import subprocess
    import sys

    code = ("import sys; from webui import create_app; import vision.live, vision.inference, vision.tilesets; "
            "app = create_app({'TESTING': True}); c = app.test_client(); c.get('/'); c.get('/tiles/5p.png'); "
            "app.extensions['hub'].stop(); "
            "bad = sorted(m for m in sys.modules if m == 'datasets' or m.startswith('datasets.')); "
            "print(','.join(bad))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == ""


def test_furiten_is_a_warning_with_a_label(app, client):
    state = goto(app, 11)["state"]
    state["seats"][0]["discards"].insert(1, "6s")  # East threw a 6s earlier: ron on 3s/6s is off
    body = client.post("/api/analysis/state", json={"state": state}).get_json()
    me = body["seats"][0]
    assert {w["label"] for w in me["waits"]} == {"tsumo only"}
    warning = me["warnings"][0]
    assert warning["label"] == "Furiten" and warning["icon"] == "⚠" and "6s" in warning["text"]


def test_settings_say_when_they_cannot_reach_the_demo_film(tmp_path):
    from webui.feed import FilmDemoFeed

    try:
        feed = FilmDemoFeed(auto=False)
    except Exception as e:  # noqa: BLE001 - no models here
        pytest.skip(f"the demo film cannot be read here ({e})")
    app = create_app({"FEED": feed, "DATA_DIR": str(tmp_path), "MATCH_DB": str(tmp_path / "m.db"), "TESTING": True})
    note = app.test_client().get("/api/settings").get_json()["note"]
    assert note.startswith("The demo film is a sanma hand") and "not to the film" in note
    app.extensions["hub"].stop()


def test_settings_reach_the_scripted_demo(client):
    assert client.get("/api/settings").get_json()["note"] is None


def test_the_photo_is_read_with_the_rule_system_chosen_for_it(app, client):
    seen = []

    def fake(data):
        from flask import g

        seen.append(getattr(g, "photo_variant", None))
        return {"tiles": [], "state": None}

    app.config["ANALYZE_IMAGE"] = fake
    r = client.post("/api/photo", data={"image": (io.BytesIO(_png()), "hand.png"), "variant": "hong-kong"},
                    content_type="multipart/form-data")
    assert r.status_code == 200 and seen == ["hong-kong"]
    err(client.post("/api/photo", data={"image": (io.BytesIO(_png()), "hand.png"), "variant": "mahjong-9"},
                    content_type="multipart/form-data"), 400, "unknown rule system")
