"""The feed interface (demo and camera), the access token and the ``serve`` command."""

from __future__ import annotations

import argparse
import time

import cv2
import numpy as np
import pytest

from assistant.table import TableState
from vision.live import FrameResult
from vision.seen import SeenTile, TilePlace
from webui.feed import CameraFeed, ScriptedDemoFeed, load_demo, rebuild_state


def wait_for(cond, timeout=5.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = cond()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError("timed out")


def test_the_bundled_demo_is_a_real_hand():
    doc, frames = load_demo()
    assert len(doc["steps"]) == len(frames) >= 20 and doc["size"] == [960, 720]
    assert sum(len(f) for f in frames) < 3_000_000
    for step in doc["steps"]:
        TableState.from_json(step["state"])
        truth = {t["id"]: t.get("truth", t["code"]) for t in step["tiles"]}
        assert rebuild_state(step["state"], step["ids"], truth) == step["state"]
        for t in step["tiles"]:
            assert len(t["corners"]) == 4 and 0 < t["confidence"] <= 1
    kinds = [s["event"].split()[1] for s in doc["steps"][1:]]
    assert {"discards", "pons", "declares", "wins"} <= set(kinds)
    assert doc["steps"][-1]["win"] == {"seat": 0, "tile": "6s", "tsumo": False, "discarder": 2}


def test_demo_feed_plays_the_steps_in_one_loop():
    feed = ScriptedDemoFeed(step_seconds=0.05, fps=50, hold_steps=1, loop=True).start()
    try:
        wait_for(lambda: (feed.snapshot().step or 0) >= 3)
        snap = feed.snapshot()
        assert snap.state["variant"] == "sanma" and snap.tiles and snap.zones
        frame = feed.wait_frame(0, timeout=2)
        assert frame is not None and frame[1][:2] == b"\xff\xd8"
        v = feed.version
        assert feed.wait_version(v, timeout=2) > v
        wait_for(lambda: feed.snapshot().step == 0 and feed.status()["frames"] > 10, timeout=10)  # looped
        st = feed.status()
        assert st["state"] == "live" and st["fps"] > 0 and st["loop_ms"] < st["budget_ms"]
    finally:
        feed.stop()
    assert not feed.running


def test_demo_corrections_and_configuration():
    feed = ScriptedDemoFeed(auto=False, fps=50).start()
    try:
        wait_for(lambda: feed.snapshot().step == 0)
        with pytest.raises(KeyError):
            feed.correct("nope", "1m")
        with pytest.raises(ValueError):
            feed.correct("t14", "9x")
        v = feed.version
        was = feed.correct("t14", "7z")
        assert was.code == "6z" and feed.version > v
        snap = feed.snapshot()
        assert "7z" in snap.state["seats"][0]["hand"] and not any("t14" in p for p in snap.problems)
        assert snap.tile("t14").code == "7z" and snap.tile("t14").corrected
        crop = feed.tile_crop("t14")
        assert crop.shape == (96, 72, 3)
        feed.configure("sanma", {"kuikae": "allowed"})
        assert feed.snapshot().state["options"] == {"kuikae": "allowed"}
        feed.configure("hong-kong", {})
        assert any("plays sanma" in p for p in feed.snapshot().problems)
        feed.goto(5)
        wait_for(lambda: feed.snapshot().step == 5)
        with pytest.raises(ValueError):
            feed.goto(99)
    finally:
        feed.stop()


def _image_folder(tmp_path, n=3):
    for i in range(n):
        cv2.imwrite(str(tmp_path / f"f{i}.png"), np.full((48, 64, 3), 40 * i, np.uint8))
    return str(tmp_path)


def test_camera_feed_without_models_shows_the_camera(tmp_path):
    feed = CameraFeed(_image_folder(tmp_path), fps=30).start()
    try:
        wait_for(lambda: feed.latest_jpeg() is not None)
        snap = wait_for(lambda: feed.snapshot() if feed.snapshot().size == (64, 48) else None)
        assert snap.state is None and snap.tiles == ()
        assert "Recognition models not installed" in snap.problems[0]
        assert feed.frame_image().shape == (48, 64, 3)
    finally:
        feed.stop()


def test_camera_feed_runs_an_analyser_and_passes_corrections(tmp_path):
    calls = []
    doc, _ = load_demo()
    step = doc["steps"][11]

    def analyze(image, corrections):
        calls.append(dict(corrections))
        tiles = tuple(SeenTile.from_json({**t, "code": corrections.get(t["id"], t["code"])}) for t in step["tiles"][:3])
        return FrameResult(tiles, state=step["state"], event="seen")

    feed = CameraFeed(_image_folder(tmp_path), analyze, fps=30).start()
    try:
        snap = wait_for(lambda: feed.snapshot() if feed.snapshot().tiles else None)
        assert snap.state == step["state"] and snap.event == "seen"
        tid = snap.tiles[0].id
        feed.correct(tid, "9p")
        wait_for(lambda: any(c.get(tid) == "9p" for c in calls))
        assert feed.snapshot().tile(tid).corrected
    finally:
        feed.stop()


def test_camera_feed_reports_a_missing_source(tmp_path):
    feed = CameraFeed(str(tmp_path / "missing.mp4"), fps=20).start()
    try:
        st = wait_for(lambda: feed.status() if feed.status()["state"] == "error" else None)
        assert "not found" in st["message"]
    finally:
        feed.stop()


# --- access token and the serve command ---------------------------------------------------------------------


def test_access_token_on_every_request(tmp_path):
    from webui import create_app

    feed = ScriptedDemoFeed(auto=False)
    app = create_app({"FEED": feed, "DATA_DIR": str(tmp_path), "MATCH_DB": str(tmp_path / "m.db"),
                      "ACCESS_TOKEN": "s3cret"})
    c = app.test_client()
    try:
        for path in ("/", "/api/settings", "/tiles/5p.png", "/stream.mjpg"):
            resp = c.get(path)
            assert resp.status_code == 401 and "access token required" in resp.get_json()["error"]
        assert c.get("/api/settings?token=wrong").status_code == 401
        resp = c.get("/api/settings?token=s3cret")
        assert resp.status_code == 200 and "mahjong_token=s3cret" in resp.headers["Set-Cookie"]
        assert c.get("/api/variants").status_code == 200  # the cookie now
        other = app.test_client()
        assert other.get("/api/variants", headers={"X-Access-Token": "s3cret"}).status_code == 200
        assert other.get("/api/variants", headers={"Authorization": "Bearer s3cret"}).status_code == 200
        assert other.post("/api/settings", json={"teaching": True}).status_code == 401
    finally:
        app.extensions["hub"].stop()


def test_serve_subcommand_arguments():
    from webui.cli import DEFAULT_PORT, register

    parser = argparse.ArgumentParser(prog="mahjong-assistant")
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["serve"])
    assert (args.source, args.variant, args.host, args.port) == (None, "sanma", "127.0.0.1", DEFAULT_PORT)
    args = parser.parse_args(["serve", "--source", "0", "--variant", "hong-kong", "--host", "0.0.0.0", "--port", "9"])
    assert (args.source, args.variant, args.host, args.port) == ("0", "hong-kong", "0.0.0.0", 9)
    with pytest.raises(SystemExit):
        parser.parse_args(["serve", "--variant", "riichi-5p"])


class _FakeServer:
    server_port = 4321
    app = None

    def __init__(self, host, port, app, threaded, request_handler=None):
        _FakeServer.app, self.host = app, host

    def serve_forever(self):
        raise KeyboardInterrupt

    def server_close(self):
        pass


def test_serve_needs_a_token_beyond_localhost(monkeypatch, capsys, tmp_path):
    import werkzeug.serving

    from webui.cli import serve

    monkeypatch.setattr(werkzeug.serving, "make_server", _FakeServer)
    cfg = {"DATA_DIR": str(tmp_path), "MATCH_DB": str(tmp_path / "m.db")}
    assert serve(host="0.0.0.0", port=0, config=dict(cfg)) == 0
    out = capsys.readouterr().out
    token = _FakeServer.app.config["ACCESS_TOKEN"]
    assert token and f"?token={token}" in out and "access token" in out
    assert not _FakeServer.app.extensions["hub"].feed.running  # stopped on exit
    assert serve(host="127.0.0.1", port=0, config=dict(cfg)) == 0
    assert _FakeServer.app.config["ACCESS_TOKEN"] is None and "token" not in capsys.readouterr().out


# --------------------------------------------------------------------------- the demo film


def test_the_demo_film_is_the_scripted_hand_filmed():
    """film.json: one frame per state the camera sees (the pass shows nothing new), the camera log of the
    script, a calibration for the cropped frames."""
    from assistant.play import apply
    from datasets.assets.film import SCRIPT, script_events
    from datasets.hand_video import camera_log
    from webui.demo.film import calibration_of, load

    doc, frames = load()
    events = script_events()
    state = None
    for ev in events:
        state = apply(state, ev)
    assert state.ending is not None and [w.seat for w in state.ending.wins] == [0]   # East wins by ron
    assert len(frames) == len(doc["steps"]) == len(SCRIPT) - 1 == 24
    assert [s["event_index"] for s in doc["steps"]] == [i for i, e in enumerate(SCRIPT) if e["type"] != "pass"]
    assert doc["log"] == [e.to_json() for e in camera_log(events, 0)]
    assert doc["steps"][12]["event"] == "East declares riichi with 7z"
    img = cv2.imdecode(np.frombuffer(frames[0], np.uint8), cv2.IMREAD_COLOR)
    assert [img.shape[1], img.shape[0]] == doc["size"]
    cal = calibration_of(doc)
    # the table's centre lies inside the cropped frame
    x, y = cal.table_to_image(np.array([[0.0, 0.0]]))[0]
    assert 0 < x < doc["size"][0] and 0 < y < doc["size"][1]


def test_a_missing_film_names_the_command_that_makes_it(tmp_path):
    from webui.demo.film import load

    with pytest.raises(FileNotFoundError, match="python -m datasets.assets.film"):
        load(tmp_path)


def test_demo_film_source_falls_back_to_the_script_without_models(monkeypatch, capsys):
    from webui import cli, feed

    def unavailable(*a, **k):
        raise feed.RecognitionUnavailable("the demo film needs the recognition models: no model file")

    monkeypatch.setattr(feed, "FilmDemoFeed", unavailable)
    f = cli.make_feed("demo-film", quiet=False)
    assert isinstance(f, ScriptedDemoFeed)
    assert "playing the scripted demo instead" in capsys.readouterr().err


def test_the_demo_film_is_read_by_the_models():
    """The first two frames through the models: the deal (East's 13 tiles) and East's draw of 7z."""
    from vision.inference import CLASSIFIER_PATH, DETECTOR_PATH
    from webui.feed import FilmDemoFeed

    if not (DETECTOR_PATH.is_file() and CLASSIFIER_PATH.is_file()):
        pytest.skip("models not trained/exported yet")
    f = FilmDemoFeed(auto=False).start()
    try:
        for step in (0, 1):
            f.goto(step)
            deadline = time.monotonic() + 60
            while f.frames_read() != (step, f.analyses_per_step):   # each frame read four times, off the loop
                assert time.monotonic() < deadline
                time.sleep(0.02)
        deadline = time.monotonic() + 10
        while f.snapshot().event != "seat 0 drew 7z" and time.monotonic() < deadline:
            time.sleep(0.02)
        snap = f.snapshot()
        status = f.status()
    finally:
        f.stop()
    assert status["state"] == "live"
    assert snap.step == 1 and snap.steps == 24 and snap.script == "East draws 7z"
    assert len(snap.tiles) >= 40
    east = snap.state["seats"][0]
    from assistant.tiles import parse_tiles

    assert len(parse_tiles(east["hand"])) == 14 and snap.state["drawn_tile"] == "7z"
    assert snap.event == "You drew 7z"       # the engine's event, in the camera player's words
    # the fitted zones, drawn on the page: the centre, and each player's discards, hand and melds
    zones = {(z.name, z.seat) for z in snap.zones}
    assert zones == {("centre", None)} | {(n, s) for n in ("discards", "hand", "melds") for s in (0, 1, 2)}
    assert all(len(z.polygon) == 4 for z in snap.zones)


def test_follow_the_demo_film_reports_against_its_log(blind_recognizer):
    """``python -m evaluation.demo_film``: the film's frames through the live analyser, the inferred log
    compared with the film's. With a recogniser that reads nothing, no event is inferred."""
    from evaluation import demo_film

    r = demo_film.follow(repeats=1, recognizer=blind_recognizer)
    assert r["matched"] == 0 and r["events"] == 24
    assert r["first_difference"].startswith("at event 0: inferred nothing")


def test_the_default_demo_is_the_film_and_the_script_stays_available():
    from vision.inference import CLASSIFIER_PATH, DETECTOR_PATH
    from webui import cli
    from webui.feed import FilmDemoFeed

    if not (DETECTOR_PATH.is_file() and CLASSIFIER_PATH.is_file()):
        pytest.skip("models not trained/exported yet")
    assert isinstance(cli.make_feed(None), FilmDemoFeed)
    assert isinstance(cli.make_feed("demo"), FilmDemoFeed)
    assert isinstance(cli.make_feed("demo-script"), ScriptedDemoFeed)


def test_the_models_follow_the_demo_film_to_its_win():
    """The whole demo film through the live pipeline and the shipped models: every event of the camera
    player's log is inferred, in order (what ``python -m evaluation.demo_film`` prints)."""
    from evaluation import demo_film
    from vision.inference import CLASSIFIER_PATH, DETECTOR_PATH

    if not (DETECTOR_PATH.is_file() and CLASSIFIER_PATH.is_file()):
        pytest.skip("models not trained/exported yet")
    r = demo_film.follow()
    assert (r["matched"], r["events"], r["first_difference"]) == (24, 24, "")


def test_the_demo_film_keeps_its_own_rule_system_and_seating():
    """The settings' rule system and seat apply to typed hands, photos and cameras: the film is still read as
    the sanma hand it is, with East as the camera player, and the page says so."""
    from vision.inference import CLASSIFIER_PATH, DETECTOR_PATH
    from webui.feed import FilmDemoFeed

    if not (DETECTOR_PATH.is_file() and CLASSIFIER_PATH.is_file()):
        pytest.skip("models not trained/exported yet")
    f = FilmDemoFeed(auto=False)
    f.configure("korean-3p", {}, 2)
    assert f.analyze.variant == "sanma" and f.analyze.me is None
    f.start()
    try:
        deadline = time.monotonic() + 60
        while f.frames_read() != (0, f.analyses_per_step) or f.snapshot().step != 0:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        problems = f.snapshot().problems
    finally:
        f.stop()
    assert any("The demo table plays sanma; the korean-3p setting" in p for p in problems)


def test_unsure_tiles_are_named_in_players_words():
    from page_words import internal_words

    from webui.feed import low_confidence_problems

    def seen(tile_id, code, confidence, **kw):
        return SeenTile(tile_id, code, confidence, ((0.0, 0.0),) * 4, code != "bk", **kw)

    notes = low_confidence_problems([
        seen("t9", "bk", 0.55, place=TilePlace("discard", 0)), seen("t3", "7p", 0.41),
        seen("t4", "6z", 0.3, corrected=True), seen("t5", "1m", 0.9)])
    assert notes == ["The tile in East's discards was read as a face-down tile, only 55 % sure: tap it to check or "
                     "correct it.",
                     "A tile was read as 7 of dots (7p), only 41 % sure: tap it to check or correct it."]
    assert not internal_words(" ".join(notes))
