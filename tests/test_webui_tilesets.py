"""The "Your tiles" page and API: enroll a set from a photo, choose the set in use, corrections teach it."""

from __future__ import annotations

import io
import time

import cv2
import numpy as np
import pytest
from tileset_stand_ins import tileset_app

from vision import tilesets as T


@pytest.fixture
def app(tmp_path, monkeypatch):
    with tileset_app(tmp_path, monkeypatch) as a:
        yield a


@pytest.fixture
def client(app):
    return app.test_client()


def test_page_and_layout(client):
    r = client.get("/your-tiles")
    assert r.status_code == 200 and b"Teach the assistant your tiles" in r.data
    data = client.get("/api/tilesets?variant=hong-kong").get_json()
    assert data["layout"] == T.layout_rows("hong-kong") and data["sets"] == [] and data["active"] is None
    assert data["reads_tiles"] is True
    r = client.get("/api/tilesets?variant=mahjong-9000")
    assert r.status_code == 400 and r.get_json()["field"] == "variant"


def _photo(tmp_path, variant="sanma"):
    from datasets.art import ArtLibrary
    from datasets.codes import TILE_CODES
    from datasets.crop_synth import FaceBank, _face_texture, render_layout

    art = ArtLibrary(root=tmp_path / "noart", cache_dir=tmp_path / "artcache")
    bank = FaceBank.build(per_code=1, bonus_per_code=1, seed=4, art=art)
    rng = np.random.default_rng(4)
    body = np.array([225.0, 238, 244])
    rows = [[_face_texture(bank.pick(TILE_CODES.index(c), rng), body, rng) for c in r] for r in T.layout_rows(variant)]
    img, _ = render_layout(rows, rng, size=(1280, 960))
    return cv2.imencode(".png", img)[1].tobytes()


@pytest.mark.skipif(not __import__("vision.inference", fromlist=["x"]).CLASSIFIER_PATH.is_file(),
                    reason="no shipped models")
def test_enroll_from_the_page(app, client, tmp_path):
    photo = _photo(tmp_path)
    r = client.post("/api/tilesets/enroll", data={"name": "home", "variant": "sanma",
                                                  "image": (io.BytesIO(photo), "rows.png")})
    assert r.status_code == 200, r.get_json()
    rep = r.get_json()
    assert rep["tiles"] == 29 and rep["active"] == "home" and rep["applied_to_camera"] is True
    assert app.extensions["hub"].feed.rec.tileset.name == "home"
    data = client.get("/api/tilesets").get_json()
    assert data["active"] == "home" and [s["name"] for s in data["sets"]] == ["home"]
    # the same photo read as a Hong Kong layout has other rows: a clear 422, nothing learnt
    r = client.post("/api/tilesets/enroll", data={"name": "other", "variant": "hong-kong",
                                                  "image": (io.BytesIO(photo), "rows.png")})
    assert r.status_code == 422 and "layout" in r.get_json()["error"]
    assert T.list_sets() == ["home"]


def test_enroll_errors(client):
    r = client.post("/api/tilesets/enroll", data={"name": "../x", "variant": "sanma",
                                                  "image": (io.BytesIO(b"x"), "a.png")})
    assert r.status_code == 400 and r.get_json()["field"] == "name"
    r = client.post("/api/tilesets/enroll", data={"name": "ok", "variant": "sanma"})
    assert r.status_code == 400 and r.get_json()["field"] == "image"
    r = client.post("/api/tilesets/enroll", data={"name": "ok", "variant": "sanma",
                                                  "image": (io.BytesIO(b"not a picture"), "a.png")})
    assert r.status_code == 415
    r = client.post("/api/tilesets/active", json={"name": "nosuch"})
    assert r.status_code == 404 and "no tile set named 'nosuch'" in r.get_json()["error"]
    assert T.list_sets() == []


def test_a_correction_teaches_the_set_in_use(app, client):
    T.TileSet(name="club", variant="sanma").save()
    r = client.post("/api/tilesets/active", json={"name": "club"})
    assert r.get_json() == {"active": "club", "applied_to_camera": True}
    hub = app.extensions["hub"]
    hub.feed.goto(0)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not hub.feed.snapshot().tiles:
        time.sleep(0.05)
    tile = hub.feed.snapshot().tiles[0]
    r = client.post("/api/live/correct", json={"tile_id": tile.id, "code": "7z"})
    assert r.status_code == 200 and r.get_json()["teaching"] is True
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and not T.TileSet.load("club").history:
        time.sleep(0.05)
    ts = T.TileSet.load("club")
    assert ts.codes == ["7z"]
    assert ts.history[-1]["source"] == "correction on the page"
    # no set in use: a correction teaches nothing
    client.post("/api/tilesets/active", json={"name": None})
    r = client.post("/api/live/correct", json={"tile_id": tile.id, "code": "6z"})
    assert r.get_json()["teaching"] is False
