"""End to end: a generated hand of each rule system, its frames read by the live pipeline (every tile read
right: :mod:`painted`, so what is checked is the pipeline, the engine and the page), watched in Chromium
frame by frame. At every frame the game followed is the script's so far; the status bar names, in words,
exactly the events the script had since the frame before; the Calls panel offers a claim (pong, chow, kong
or ron on a discard) only while the engine's claim window is open, and then on the tile just discarded; at
the end the page shows how the hand ended, and the next hand is followed.
Screenshots: tests/e2e/artifacts/generated_*.png."""

from __future__ import annotations

import time

import pytest
from conftest import ARGS, CHROMIUM, DESKTOP, _why_skip
from page_words import internal_words
from painted import PaintedLabels, SteppedSource
from test_hand_video import video as generated
from test_webui_e2e import shoot

from assistant.play.words import describe_event

# (variant, seed, live wall): short hands that show the rule system's own moves
HANDS = {
    ("sanma", 10, 12): "riichi, kita, the riichi hand laid down at the exhaustive draw",
    ("korean-3p", 26, 12): "flowers, an open kong, a pong, an exhaustive draw",
    ("hong-kong", 1, 12): "chows and pongs from the centre pool, flowers and seasons, an exhaustive draw",
    ("three-kaki", 22, None): "a hidden seat's tsumo, a concealed kong, Fei in hand",
}
CLAIMS = {"pong", "chow", "open_kong", "ron"}
READS = 8     # each frame read as often as a camera shows it in under a second while the table is still (a new
#             deal where the last hand lay takes about that many reads before the tracker trusts the new tiles)


def _serve(video, tmp_path):
    import logging
    import threading

    from werkzeug.serving import make_server

    from vision.live import LiveAnalyzer
    from webui import create_app
    from webui.feed import CameraFeed

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    rec, source = PaintedLabels(), SteppedSource()
    la = LiveAnalyzer(video.variant, camera_id=f"generated-{video.seed}", recognizer=rec,
                      calibration=video.calibration(), positions=video.positions, dealer=video.dealer,
                      full_pass_s=None, full_pass_frames=8)
    feed = CameraFeed(source, la, fps=50)
    app = create_app({"FEED": feed, "DATA_DIR": str(tmp_path), "MATCH_DB": str(tmp_path / "m.db"),
                      "SETTINGS_FILE": None, "VARIANT": video.variant})
    hub = app.extensions["hub"]
    hub.settings.update({"me": video.camera_seat})
    hub.start()
    srv = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return {"url": f"http://127.0.0.1:{srv.server_port}", "hub": hub, "feed": feed, "source": source,
            "rec": rec, "la": la, "stop": lambda: (srv.shutdown(), hub.stop())}


def _published(server, timeout: float = 20.0) -> dict:
    """The page data of the feed's latest snapshot (waits until the hub has computed it)."""
    feed, hub = server["feed"], server["hub"]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        _, payload, _ = hub.current()
        if payload and payload["snapshot"].get("version") == feed.version:
            return payload
        time.sleep(0.02)
    raise AssertionError("the page data was not computed")


@pytest.mark.parametrize("key", list(HANDS), ids=[k[0] for k in HANDS])
def test_a_generated_hand_watched_on_the_page_shows_only_what_is_so(key, tmp_path):
    reason = _why_skip()
    if reason:
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    video = generated(*key)
    # the hand, then the next one dealt as it was and its first draw: a hand that ends unseen (an exhaustive
    # draw) ends when two frames in a row show a dealt table
    expected = video.camera_log() + video.camera_log()[:2]
    cam = video.camera_seat
    server = _serve(video, tmp_path)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = browser.new_page(viewport=DESKTOP)
            page.goto(server["url"] + "/", wait_until="domcontentloaded")
            followed = 0
            claims_seen = 0
            for f in video.frames + video.frames[:2]:
                size = (video.camera_model.width, video.camera_model.height)
                server["source"].show(server["rec"].paint(f.labels, size), READS)
                server["source"].wait_read()
                payload = _published(server)
                game = server["la"]._game
                events = [] if game is None else game.inferrer.events
                truth = [] if game is None else game.inferrer.states   # the engine's, after those events
                # the game followed is the script's so far
                assert events == expected[:len(events)], f"frame {f.index}: {events[len(events) - 1]}"
                page.wait_for_function(f"Number(document.body.dataset.version || 0) >= {payload['version']}",
                                       timeout=20000)
                # every text on the page is in players' words: no event or phase names, track ids, bare codes
                text = page.inner_text("body")
                said = internal_words(text)
                assert not said, (f"frame {f.index}", said, [text[max(0, text.find(w) - 60):text.find(w) + 20]
                                                             for w in dict.fromkeys(said)])
                if len(events) > followed:
                    # the status bar names the new events, in words, as the script had them (the last three)
                    words = [describe_event(ev, truth[i - 1] if i else None, cam)
                             for i, ev in enumerate(expected[followed:len(events)], start=followed)]
                    assert page.locator("#st-event").inner_text() == "; ".join(words[-3:]), f"frame {f.index}"
                    followed = len(events)
                if not followed:
                    continue
                state = truth[followed - 1]
                offered = page.eval_on_selector_all(
                    "#calls li.yes, #calls li.maybe", "els => els.map(e => [e.dataset.kind, e.textContent])")
                claims = [o for o in offered if o[0] in CLAIMS]
                if state.phase not in ("claim_window", "kong_window"):
                    assert not claims, f"frame {f.index}: {state.phase}, yet the page offers {claims}"
                elif claims:
                    claims_seen += 1
                    tile = state.last_tile.code
                    assert all(tile in text for _, text in claims), (f"frame {f.index}", tile, claims)
                if f is video.frames[-1]:
                    end = expected[-2].type
                    if end in ("ron", "tsumo"):   # the win is scored on the page
                        page.wait_for_selector("#win-card:not([hidden]) .win-head")
                        assert f"by {end}" in page.locator(".win-head").inner_text()
                    shoot(page, f"generated_{video.variant}_end.png", full_page=True)
            # to the end, and the next hand dealt (its first draw shows on the frame after, for some hands only)
            assert followed >= len(expected) - 1
            browser.close()
    finally:
        server["stop"]()
    assert claims_seen or not any(e.type in CLAIMS for e in expected), "no claim window was ever offered"
