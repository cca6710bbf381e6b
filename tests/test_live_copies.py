"""The live analyser on a rendered table read by a stand-in recogniser that knows the labels: a bonus tile read as
another seat's flower (one copy of each in the set) is taken for its next best reading, and the page says so."""

from __future__ import annotations

import threading

import numpy as np
from painted import boxes_in

from datasets.codes import TILE_CODES
from vision import geometry as G
from vision.boxes import TileBoxes
from vision.calibration import from_camera
from vision.inference import NONE_INDEX


class LabelRecognizer:
    """Finds exactly the labelled faces and reads each crop of them as its label says (``readings``: code ->
    top-3 probabilities for chosen tiles, by label index); any other crop (a row slot, a gap) reads as "not a
    tile"."""

    scales = (640,)
    nms_iou = 0.3

    def __init__(self, image, labels, readings=None):
        self.lock = threading.Lock()
        self.labels = labels
        quads = np.array([lab["corners"] for lab in labels], np.float64)
        obb = G.quad_to_obb(quads)
        obb[:, 4] %= 180.0
        self.boxes = TileBoxes(obb, quads, np.ones(len(labels)),
                               np.array([1.0 if lab["face_up"] else 0.0 for lab in labels]))
        self.probs = {}
        for i, (crop, lab) in enumerate(zip(G.warp_crops(image, self.boxes.obb), labels, strict=True)):
            p = np.zeros(len(TILE_CODES) + 1)
            for code, q in (readings or {}).get(i, [(lab["code"], 1.0)]):
                p[TILE_CODES.index(code)] = q
            self.probs[crop.tobytes()] = p

    def detect_boxes(self, image, regions=None, **kw):
        return boxes_in(self.boxes, regions)

    def classify(self, crops, variant=None):
        none = np.zeros(len(TILE_CODES) + 1)
        none[NONE_INDEX] = 1.0
        probs = np.array([self.probs.get(c.tobytes(), none) for c in crops]).reshape(-1, len(none))
        return probs, np.zeros(len(crops))


def test_a_bonus_tile_read_as_a_flower_shown_elsewhere_is_read_as_its_next_best():
    from datasets.table_scene import generate_table_scene
    from vision.live import LiveAnalyzer

    scene = generate_table_scene("hong-kong", 10, view="overhead", render=True)
    labels = [lab for lab in scene.rendered_labels if lab["occluded"] <= 0.25]
    bonus = {lab["code"]: i for i, lab in enumerate(labels) if lab.get("role", [""])[0] == "bonus"}
    assert {"2f", "2g", "1f"} <= set(bonus)          # one 2f, one 2g and one 1f set aside (seed 10)
    rec = LabelRecognizer(scene.image, labels, {bonus["1f"]: [("2f", 0.55), ("1f", 0.3), ("3f", 0.1)]})
    cam = scene.camera
    la = LiveAnalyzer("hong-kong", camera_id="copies", recognizer=rec, positions=[0, 1, 2, 3],
                      calibration=from_camera(cam.K, cam.R, cam.t, (cam.width, cam.height)))
    for _ in range(8):                    # the same frame until the votes settle and the table is rebuilt
        result = la.process(scene.image)
        if result.observation is not None:
            break
    obs = result.observation
    shown = sorted(c for s in obs.seats for c in s.bonus)
    assert shown == ["1f", "2f", "2g"]                       # not two 2f
    reread = [t for t in result.tiles if t.read_as]
    assert [(t.read_as, t.code, t.place.zone) for t in reread] == [("2f", "1f", "bonus")]
    note = next(p for p in result.problems if reread[0].id in p)
    assert "more 2f than the set has: taken for 1f" in note
    assert not any("copies of 2f" in p for p in result.problems)
