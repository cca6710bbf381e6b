"""eval-models' real-scenes rows: a tile labelled twice is one tile (evaluation/recognition.py)."""

from __future__ import annotations

from types import SimpleNamespace

import cv2
import numpy as np

from evaluation.recognition import distinct_labels, eval_real_scenes


def test_a_label_repeating_another_is_left_out_and_neighbours_are_kept():
    boxes = np.array([[0, 0, 10, 10], [1, 0, 11, 10],      # IoU 9/11 = 0.82 with the first: the same tile
                      [10, 0, 20, 10],                       # the next tile along: touching, IoU 0
                      [5, 0, 15, 10],                        # IoU 1/3 with both neighbours: a tile of its own
                      [10, 0, 20, 10]], np.float64)          # the third again, exactly
    assert distinct_labels(boxes).tolist() == [[0, 0, 10, 10], [10, 0, 20, 10], [5, 0, 15, 10]]


class Reader:
    """A stand-in recogniser that finds exactly the boxes it is given."""

    def __init__(self, boxes):
        self.boxes = boxes

    def recognize(self, image):
        return SimpleNamespace(tiles=[SimpleNamespace(corners=[(x1, y1), (x2, y1), (x2, y2), (x1, y2)])
                                      for x1, y1, x2, y2 in self.boxes])


def test_real_scenes_recall_counts_each_labelled_tile_once(tmp_path):
    (tmp_path / "valid" / "images").mkdir(parents=True)
    (tmp_path / "valid" / "labels-tile").mkdir()
    cv2.imwrite(str(tmp_path / "valid" / "images" / "a.jpg"), np.zeros((100, 200, 3), np.uint8))
    # three tiles, the first labelled three times over (YOLO: class cx cy w h, normalised)
    lines = ["0 0.1 0.5 0.1 0.2", "0 0.1 0.5 0.1 0.2", "0 0.105 0.5 0.1 0.2", "0 0.2 0.5 0.1 0.2",
             "0 0.3 0.5 0.1 0.2"]
    (tmp_path / "valid" / "labels-tile" / "a.txt").write_text("\n".join(lines) + "\n")
    found_two = Reader([(10, 40, 30, 60), (30, 40, 50, 60)])          # the first two tiles
    r = eval_real_scenes(found_two, tmp_path, "valid", None, None, 0)
    assert (r["boxes"], r["duplicate_labels"], r["recall"]) == (3, 2, 2 / 3)


def test_labels_written_down_as_on_no_tile_are_left_out(tmp_path, monkeypatch):
    import evaluation.recognition as R

    (tmp_path / "valid" / "images").mkdir(parents=True)
    (tmp_path / "valid" / "labels-tile").mkdir()
    name = "shot_png_jpg.rf.0123abcd"
    cv2.imwrite(str(tmp_path / "valid" / "images" / f"{name}.jpg"), np.zeros((100, 200, 3), np.uint8))
    (tmp_path / "valid" / "labels-tile" / f"{name}.txt").write_text(
        "0 0.1 0.5 0.1 0.2\n0 0.5 0.5 0.05 0.1\n0 0.3 0.5 0.1 0.2\n")     # a tile, a score-panel digit, a tile
    listed = tmp_path / "not_tiles.csv"
    listed.write_text("split,photo,label,what\nvalid,shot,1,a counter digit\ntest,shot,0,another split\n")
    monkeypatch.setattr(R, "NOT_TILES_FILE", listed)
    assert R.labels_on_no_tile("valid") == {"shot": {1}}
    r = eval_real_scenes(Reader([(10, 40, 30, 60), (50, 40, 70, 60)]), tmp_path, "valid", None, None, 0)
    assert (r["boxes"], r["labels_on_no_tile"], r["recall"]) == (2, 1, 1.0)
    assert R._left_out(r) == ", 1 label on no tile left out"
