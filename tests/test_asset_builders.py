"""The builders of the page's assets (``datasets/assets/``): they write what the run-time side reads."""

from __future__ import annotations

import json

import cv2
import numpy as np

from datasets.assets import demo, tiles
from datasets.assets.film import describe, no_artwork
from datasets.codes import TILE_CODES
from webui.feed import DEMO_DIR, load_demo
from webui.tiles import TILES_DIR


def test_the_tile_builder_writes_every_tile_where_the_page_reads_it(tmp_path):
    assert tiles.main(["--art", str(tmp_path / "no-art"), "--out", str(tmp_path)]) == 0
    assert sorted(p.stem for p in tmp_path.glob("*.png")) == sorted(TILE_CODES)
    image = cv2.imdecode(np.frombuffer((tmp_path / "7p.png").read_bytes(), np.uint8), cv2.IMREAD_COLOR)
    assert (image.shape[1], image.shape[0]) == tiles.SIZE
    assert sorted(p.name for p in TILES_DIR.glob("*.png")) == sorted(p.name for p in tmp_path.glob("*.png"))


def test_the_demo_builder_writes_the_bundled_demo(tmp_path):
    """The scripted demo built again is the one the page plays (its steps, tiles, corners and zones)."""
    doc = demo.build(tmp_path, verbose=False)
    assert json.loads((tmp_path / "demo.json").read_text()) == json.loads((DEMO_DIR / "demo.json").read_text())
    built, frames = load_demo(tmp_path)
    assert built == doc and len(frames) == len(doc["steps"])


def test_the_film_builder_says_what_happens_and_draws_no_artwork():
    assert describe({"type": "discard", "seat": 0, "tile": "7z", "riichi": True}) == "East declares riichi with 7z"
    assert describe({"type": "pong", "seat": 1}) == "South pongs"
    assert not no_artwork().available
