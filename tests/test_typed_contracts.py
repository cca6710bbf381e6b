"""The typed objects the stages hand each other (vision.boxes, vision.seen, vision.live.FrameResult,
webui.snapshot), on committed demo frames: what they hold, and that their JSON is the page's."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import geometry as G
from vision.boxes import TileBoxes
from vision.inference import CLASSIFIER_PATH, DETECTOR_PATH
from vision.seen import SeenTile, SeenWin, TilePlace, ZoneOutline
from webui.feed import ScriptedDemoFeed, load_demo
from webui.hub import LiveHub, Settings
from webui.snapshot import PAGE_FIELDS

FILM = Path(__file__).resolve().parents[1] / "webui" / "demo" / "film"
needs_models = pytest.mark.skipif(not (DETECTOR_PATH.is_file() and CLASSIFIER_PATH.is_file()),
                                  reason="models not trained/exported yet")


@pytest.fixture(scope="module")
def recognizer():
    from vision.inference import TileRecognizer

    return TileRecognizer()


def _film_frame(k: int) -> np.ndarray:
    return cv2.imread(str(FILM / f"frame_{k:02d}.jpg"), cv2.IMREAD_COLOR)


@needs_models
def test_the_detectors_boxes_of_a_demo_frame(recognizer):
    """The film's first frame (East's 13 tiles, the others' backs, the wall): one row per box, corners made
    from the oriented boxes; selecting, joining and moving keep every row's four arrays together."""
    boxes = recognizer.detect_boxes(_film_frame(0))
    n = len(boxes)
    assert n >= 40
    assert boxes.obb.shape == (n, 5) and boxes.corners.shape == (n, 4, 2)
    assert boxes.score.shape == boxes.face_up.shape == (n,)
    assert np.allclose(boxes.corners, G.obb_to_quad(boxes.obb), atol=1e-6)
    assert ((boxes.score >= 0.3) & (boxes.score <= 1)).all()          # the detector's threshold
    # the old dict of arrays (what the detector's decoding gives) round-trips unchanged
    old = {"obb": boxes.obb, "quad": boxes.corners, "score": boxes.score, "face_up": boxes.face_up}
    again = TileBoxes.from_arrays(old)
    assert all(np.array_equal(getattr(again, f), getattr(boxes, f)) for f in ("obb", "corners", "score", "face_up"))
    sure = boxes.score >= 0.5
    parts = TileBoxes.concat([boxes.take(sure), boxes.take(~sure)])
    assert len(parts) == n and sorted(parts.score.tolist()) == sorted(boxes.score.tolist())
    first = boxes.take([2, 0])
    assert np.array_equal(first.obb, boxes.obb[[2, 0]]) and np.array_equal(first.face_up, boxes.face_up[[2, 0]])
    moved = boxes.shifted(np.array([10.0, -5.0]))
    assert np.allclose(moved.obb[:, :2] - boxes.obb[:, :2], [10.0, -5.0])
    assert np.allclose(moved.corners - boxes.corners, [10.0, -5.0])
    assert np.array_equal(moved.obb[:, 2:], boxes.obb[:, 2:])
    turned = boxes.obb.copy()
    turned[:, 4] = (turned[:, 4] + 90.0) % 360.0
    assert np.allclose(boxes.turned(turned).corners, G.obb_to_quad(turned))
    assert np.allclose(boxes.centres(), boxes.corners.mean(1))


def test_tile_boxes_refuse_rows_of_unequal_length():
    with pytest.raises(ValueError, match="unequal lengths"):
        TileBoxes(np.zeros((3, 5)), np.zeros((3, 4, 2)), np.zeros(2), np.zeros(3))
    empty = TileBoxes.empty()
    assert len(empty) == 0 and empty.centres().shape == (0, 2) and len(TileBoxes.concat([])) == 0


def test_the_demos_tiles_zones_and_win_read_and_written_back():
    """A scripted demo's tiles (less their truth), zones and win, read as typed objects, give the same JSON."""
    doc, _ = load_demo()
    step = doc["steps"][-1]
    for t in step["tiles"]:
        tile = SeenTile.from_json(t)
        assert tile.place == TilePlace(t["zone"], t["seat"]) and tile.stable is None and tile.top3 is None
        assert tile.to_json() == {**{k: v for k, v in t.items() if k != "truth"}, "corrected": False}
    for z in step["zones"]:
        assert json.dumps(ZoneOutline.from_json(z).to_json()) == json.dumps(z)
    assert SeenWin.from_json(step["win"]).to_json() == step["win"] == {"seat": 0, "tile": "6s", "tsumo": False,
                                                                       "discarder": 2}
    fixed = SeenTile.from_json(step["tiles"][0]).corrected_to("7z")
    assert (fixed.code, fixed.corrected, fixed.confidence) == ("7z", True, 1.0)


def test_the_page_data_of_a_scripted_demo_step():
    """What the hub sends every viewer: the snapshot's page fields in order, the engine's state beside them,
    the engine's view of that state with the win scored, the settings and the palette."""
    feed = ScriptedDemoFeed(auto=False)
    feed._step = last = len(feed.steps) - 1                    # the win
    tapped = feed.steps[last]["tiles"][0]
    feed._corrections = {tapped["id"]: tapped["code"]}         # a user confirmed a tile's reading
    feed._rebuild()
    page = LiveHub(feed, Settings("sanma"))._compute().to_json()
    assert list(page) == ["snapshot", "status", "state", "view", "settings", "palette", "t_frame"]
    snap = page["snapshot"]
    assert tuple(snap) == PAGE_FIELDS and (snap["step"], snap["steps"]) == (last, len(feed.steps))
    assert snap["size"] == [960, 720] and snap["camera"] == "demo" and snap["time"] == page["t_frame"]
    assert snap["win"] == {"seat": 0, "tile": "6s", "tsumo": False, "discarder": 2}
    tile = next(t for t in snap["tiles"] if t["id"] == tapped["id"])
    assert (tile["code"], tile["confidence"], tile["corrected"]) == (tapped["code"], 1.0, True)
    assert page["state"]["variant"] == "sanma" and page["view"]["ok"] and page["view"]["win"]["seat"] == 0
    assert page["palette"][0] == "1m" and "analysis_ms" in page["status"]
    json.dumps(page)                                              # all of it is JSON


@needs_models
def test_the_frame_result_of_the_demo_films_first_frames(recognizer):
    """The film's first two frames through the live analyser, as the page reads them: typed tiles with their
    places, the zones, the followed game's state and event, the rebuilt table whole; its JSON is the page's
    (each tile's and zone's own JSON, the observation without its assignments)."""
    from vision.live import LiveAnalyzer
    from webui.demo.film import analyzer_options, calibration_of
    from webui.demo.film import load as load_film

    doc, _ = load_film()
    la = LiveAnalyzer(doc["variant"], camera_id="demo-film", recognizer=recognizer, calibration=calibration_of(doc),
                      positions=doc["positions"], dealer=doc["dealer"], **analyzer_options())
    for k in (0, 1):
        for _ in range(4):
            result = la(_film_frame(k), {})
    assert result.event == "You drew 7z" and result.stable and result.win is None
    assert all(isinstance(t, SeenTile) and t.id.startswith("t") and len(t.corners) == 4 for t in result.tiles)
    placed = [t for t in result.tiles if t.place is not None]
    assert len(placed) >= 40 and {t.place.zone for t in placed} >= {"hand", "wall"}
    assert {(z.name, z.seat) for z in result.zones} >= {("centre", None), ("hand", 0)}
    assert result.observation is not None and result.observation.assignments
    page = result.to_json()
    assert list(page) == ["tiles", "zones", "state", "event", "win", "problems", "observation", "timing", "stable"]
    assert page["tiles"] == [t.to_json() for t in result.tiles]
    assert list(page["tiles"][0])[:8] == ["id", "code", "confidence", "corners", "face_up", "stable", "top3",
                                          "corrected"]
    assert all(SeenTile.from_json(t) == tile for t, tile in zip(page["tiles"], result.tiles, strict=True))
    assert page["zones"] == [z.to_json() for z in result.zones]
    whole = result.observation.to_dict()
    assert "assignments" in whole and page["observation"] == {k: v for k, v in whole.items() if k != "assignments"}
    assert "zones_fitted" not in whole and result.observation.zones_fitted is not None
    assert page["state"]["drawn_tile"] == "7z" and page["event"] == "You drew 7z"
    json.dumps(page)
