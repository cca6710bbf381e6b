"""Live view: the page, the MJPEG stream, the latest frame, Server-Sent Events and tile corrections."""

from __future__ import annotations

import json
import time
from dataclasses import replace

from flask import Blueprint, Response, current_app, jsonify, render_template, request

from .engine import tile_set
from .errors import ApiError, get_str, json_body
from .hub import check_tile_code

bp = Blueprint("live", __name__)

NO_CACHE = {"Cache-Control": "no-cache, no-store, must-revalidate", "X-Accel-Buffering": "no"}


def _hub():
    return current_app.extensions["hub"].start()


@bp.get("/")
def page():
    return render_template("live.html")


@bp.get("/api/live")
def current():
    """The page data as the SSE stream sends it (snapshot, status, state, view, settings, palette)."""
    _, payload, text = _hub().current()
    if payload is None:
        raise ApiError("the feed has not produced a frame yet", 503)
    return Response(text, mimetype="application/json", headers=NO_CACHE)


@bp.get("/api/live/status")
def status():
    return jsonify(_hub().status())


@bp.get("/frame.jpg")
def frame():
    feed = _hub().feed
    item = feed.latest_jpeg() or feed.wait_frame(0, timeout=3.0)
    if item is None:
        raise ApiError("no frame yet: the camera has not delivered one", 503)
    number, data, _ = item
    return Response(data, mimetype="image/jpeg", headers={**NO_CACHE, "X-Frame": str(number)})


@bp.get("/stream.mjpg")
def stream():
    """MJPEG: every viewer reads the one shared loop's latest JPEG (no per-client capture or encoding).
    An unchanged frame is re-sent at most once a second, a new one at most ``STREAM_FPS`` times a second."""
    feed = _hub().feed
    gap = 1.0 / float(current_app.config.get("STREAM_FPS") or 10.0)

    def frames():
        last_no, last_bytes, last_sent = 0, None, 0.0
        while True:
            item = feed.wait_frame(last_no, timeout=2.0)
            if item is None:
                if not feed.running:
                    return
                continue
            number, data, _ = item
            last_no = number
            now = time.monotonic()
            if data is last_bytes and now - last_sent < 1.0:
                continue
            last_bytes, last_sent = data, now
            yield (b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: " + str(len(data)).encode()
                   + b"\r\nX-Frame: " + str(number).encode() + b"\r\n\r\n" + data + b"\r\n")
            wait = gap - (time.monotonic() - now)
            if wait > 0:
                time.sleep(wait)

    return Response(frames(), mimetype="multipart/x-mixed-replace; boundary=frame",
                    headers=NO_CACHE, direct_passthrough=True)


@bp.get("/events")
def events():
    """Server-Sent Events: ``snapshot`` (the page data, whenever it changes) and ``status`` (each second)."""
    hub = _hub()

    def gen():
        version, payload, text = hub.current()
        yield f"retry: 2000\nid: {version}\nevent: snapshot\ndata: {text}\n\n"
        last_status = time.monotonic()
        while True:
            v, text = hub.wait(version, timeout=1.0)
            if v > version:
                version = v
                yield f"id: {v}\nevent: snapshot\ndata: {text}\n\n"
            now = time.monotonic()
            if now - last_status >= 1.0:
                last_status = now
                if not hub.feed.running:
                    return
                yield f"event: status\ndata: {json.dumps(hub.status())}\n\n"

    return Response(gen(), mimetype="text/event-stream", headers=NO_CACHE)


def _followed() -> list:
    logs = _hub().feed.hand_logs()
    if not logs:
        raise ApiError("no hand followed yet: the camera has not seen a deal (the scripted demo follows none)", 404)
    return logs


@bp.get("/api/live/hand.json")
def hand_json():
    """The hand the camera follows, event by event: the engine's hand log JSON ``{"variant", "events"}``
    (``?all=1``: every hand followed, ``{"hands": [...]}``)."""
    logs = _followed()
    if request.args.get("all"):
        body = json.dumps({"hands": [h.to_json() for h in logs]}, indent=1)
    else:
        body = json.dumps(logs[-1].to_json(), indent=1)
    return Response(body + "\n", mimetype="application/json",
                    headers={**NO_CACHE, "Content-Disposition": 'attachment; filename="hand.json"'})


@bp.get("/api/live/game.mjai")
def game_mjai():
    """Every hand followed as mjai JSON lines (``assistant.match.mjai``; sanma)."""
    from assistant.match.events import MatchError
    from assistant.match.mjai import mjai_lines, to_mjai

    logs = _followed()
    try:
        text = mjai_lines(to_mjai(logs))
    except MatchError as e:
        raise ApiError(str(e), 409) from None
    return Response(text, mimetype="application/jsonl",
                    headers={**NO_CACHE, "Content-Disposition": 'attachment; filename="game.mjai.jsonl"'})


@bp.post("/api/live/correct")
def correct():
    """``{"tile_id": "t14", "code": "7z"}``: the tile is that one. Applied at once, kept over frames, and
    stored with its crop for finetuning."""
    hub = _hub()
    data = json_body()
    tile_id = get_str(data, "tile_id", required=True, max_len=64)
    code = check_tile_code(data.get("code"))
    variant = (hub.settings.get()["variant"])
    _, payload, _ = hub.current()
    if payload and payload.get("view", {}).get("variant"):
        variant = payload["view"]["variant"]
    allowed = set(tile_set(variant)) | {"bk"}
    if code not in allowed:
        raise ApiError(f"{code} is not in the {variant} tile set", field="code")
    feed = hub.feed
    crop = feed.tile_crop(tile_id)
    snap = feed.snapshot()
    again = feed.corrections().get(tile_id) == code   # made already: not taught twice
    try:
        was = feed.correct(tile_id, code)
    except KeyError:
        raise ApiError(f"no tile {tile_id!r} in the current frame (it may have left the table)", 404,
                       "tile_id") from None
    except ValueError as e:
        raise ApiError(str(e), field="code") from None
    tile = {**replace(was, code=code, corrected=True).to_json(), "was": was.code}
    shown = snap.tile(tile_id)
    record = {"tile_id": tile_id, "code": code, "was": was.code, "confidence": shown.confidence if shown else None,
              "camera": snap.camera, "frame": snap.frame, "step": snap.step, "corners": tile["corners"],
              "zone": tile.get("zone"), "seat": tile.get("seat")}
    stored = current_app.extensions["corrections"].add(record, crop)
    from .tilesets import teach_correction

    others = [[list(p) for p in t.corners] for t in snap.tiles if t.id != tile_id and t.corners]
    teaching = False if again else teach_correction(feed, feed.frame_image(), tile["corners"], code, others)
    return jsonify({"ok": True, "tile": tile, "stored": stored, "version": feed.version, "teaching": teaching})
