"""The real-tiles data set's loader, its crop bank and its evaluation rows (on a small made copy of its layout)."""

from pathlib import Path

import cv2
import numpy as np
import pytest

from datasets.real_tiles import parse_labels, photos, read_classes
from evaluation.real_tiles import eval_real_tiles, f1, score_photo
from models.real_tiles_bank import astride_obbs, build, label_obbs, lie_of
from vision import geometry as G
from vision.boxes import TileBoxes
from vision.inference import KINDS, Result, Tile

CLASSES = ["1m", "2m", "3m", "5z"]


def _made_set(root: Path) -> Path:
    """Two train photos and one test photo (200x100), one of them also a real-scenes photo."""
    (root / "classes.txt").write_text("\n".join(CLASSES) + "\n")
    rows = ["file,split,same_photo_in_real_scenes"]
    for split, name, lines, same in (("train", "a", "0 0.1 0.2 0.1 0.2\n1 0.3 0.2 0.1 0.2\n", ""),
                                     ("train", "b", "3 0.5 0.5 0.2 0.2\n", "real-scenes/train/images/b_x.jpg"),
                                     ("test", "c", "2 0.25 0.5 0.1 0.4\n", "")):
        (root / split / "images").mkdir(parents=True, exist_ok=True)
        (root / split / "labels").mkdir(parents=True, exist_ok=True)
        img = np.full((100, 200, 3), 90 + len(name), np.uint8)
        cv2.imwrite(str(root / split / "images" / f"{name}.jpg"), img)
        (root / split / "labels" / f"{name}.txt").write_text(lines)
        rows.append(f"{split}/images/{name}.jpg,{split},{same}")
    (root / "provenance.csv").write_text("\n".join(rows) + "\n")
    return root


def test_labels_are_pixel_boxes_in_the_projects_codes(tmp_path):
    root = _made_set(tmp_path)
    assert read_classes(root) == tuple(CLASSES)
    boxes, codes = parse_labels("2 0.25 0.5 0.1 0.4\n\n", (200, 100), CLASSES)
    assert codes == ["3m"]
    assert boxes.tolist() == [[40.0, 30.0, 60.0, 70.0]]       # cx 50, cy 50, w 20, h 40
    got = list(photos("train", root))
    assert [p.name for p in got] == ["a.jpg", "b.jpg"]
    assert got[0].codes == ["1m", "2m"] and got[1].same_as_real_scenes.endswith("b_x.jpg")
    assert np.allclose(got[0].boxes, [[10, 10, 30, 30], [50, 10, 70, 30]])
    assert [p.name for p in photos("train", root, skip_real_scenes=True)] == ["a.jpg"]
    with pytest.raises(ValueError, match="unknown real-tiles split"):
        list(photos("tset", root))
    with pytest.raises(FileNotFoundError, match="classes.txt"):
        read_classes(tmp_path / "nowhere")


def test_a_photo_is_scored_over_its_labelled_regions_only():
    gt = np.array([[0, 0, 10, 14], [10, 0, 20, 14], [20, 0, 30, 14]], float)
    pred = np.array([[0, 0, 10, 14],        # 1m, right
                     [10, 0, 20, 14],       # read 5z: boxed, wrong
                     [2, 2, 8, 12],         # a second box on the first tile: reported, wrong
                     [100, 0, 110, 14]],    # off every label: not counted
                    float)
    s = score_photo(pred, ["1m", "5z", "1m", "2m"], gt, ["1m", "2m", "3m"])
    assert s == {"labels": 3, "boxed": 2, "right": 1, "reported": 3,
                 "per_kind": {"1m": (1, 1), "2m": (0, 1), "3m": (0, 1)}}
    assert f1(1, 3, 3) == pytest.approx(1 / 3)
    assert f1(0, 0, 0) == 1.0 and f1(0, 4, 2) == 0.0


class _Reader:
    """A stand-in recogniser reporting, for every photo, the given boxes and codes."""

    def __init__(self, tiles):
        self.tiles = tiles

    def recognize(self, image, variant=None):
        out = []
        for (x0, y0, x1, y1), code in self.tiles:
            corners = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], float)
            out.append(Tile(code, 0.9, [(code, 0.9)], corners, True, 0, 0.0, 0.9))
        return Result(out, image.shape[1], image.shape[0])


def test_eval_real_tiles_counts_boxed_read_right_and_f1(tmp_path):
    root = _made_set(tmp_path)
    # train photo a: 1m at (10,10)-(30,30), 2m at (50,10)-(70,30); b: 5z at (80,40)-(120,60)
    reader = _Reader([((10, 10, 30, 30), "1m"), ((50, 10, 70, 30), "3m"), ((150, 80, 160, 95), "bk")])
    r = eval_real_tiles(reader, root, "train", skip_real_scenes=False)
    assert r["photos"] == 2 and r["labels"] == 3
    assert r["boxed"] == pytest.approx(2 / 3) and r["read_right"] == pytest.approx(1 / 2)
    assert r["precision"] == pytest.approx(1 / 2) and r["recall"] == pytest.approx(1 / 3)
    # photo a: right 1 of 2 reported, 2 labels -> F1 0.5; photo b: nothing in its region -> 0
    assert r["f1_per_photo"] == pytest.approx(0.25)
    assert r["per_kind"] == {"1m": 1.0, "2m": 0.0, "5z": 0.0}
    assert eval_real_tiles(reader, root, "train", skip_real_scenes=True)["photos"] == 1


def test_the_lie_of_a_real_crop_is_known_only_where_the_photo_or_the_shipped_head_is_sure():
    flip, known = lie_of(np.array([0.0, 30.0, 170.0, 60.0, 120.0, 90.0, 20.0]),
                         np.array([0.1, 0.5, 0.5, 0.9, 0.1, 0.6, 0.95]))
    assert flip.tolist() == [False, False, True, True, False, True, False]
    assert known.tolist() == [True, True, True, True, True, False, False]


def test_label_boxes_stand_upright_or_lie_sideways_and_astride_boxes_sit_between_neighbours():
    assert label_obbs(np.array([[0, 0, 20, 30]])).tolist() == [[10.0, 15.0, 20.0, 30.0, 0.0]]
    assert label_obbs(np.array([[0, 0, 30, 20]])).tolist() == [[15.0, 10.0, 20.0, 30.0, 90.0]]
    row = np.array([[0, 0, 20, 30], [21, 0, 41, 30], [100, 0, 120, 30]], float)
    a = astride_obbs(row, 5, np.random.default_rng(0))
    assert a.tolist() == [[20.5, 15.0, 20.0, 30.0, 0.0]]     # only the first two touch


class _Cutter:
    """A stand-in detector with one box per label (turned 180 degrees for the second) and a flip head that is
    never sure."""

    def __init__(self, boxes):
        self.boxes = boxes

    def detect_boxes(self, image):
        obb = np.array(self.boxes, float)
        return TileBoxes(obb, G.obb_to_quad(obb), np.ones(len(obb)), np.ones(len(obb)))

    def classify(self, crops):
        return np.zeros((len(crops), len(KINDS))), np.full(len(crops), 0.5)


def test_the_bank_cuts_the_detectors_boxes_and_jittered_label_boxes(tmp_path):
    root = _made_set(tmp_path)
    # photo a's two labels (centres (20, 20) and (60, 20), 20x20), the second box pointing down
    cutter = _Cutter([[20, 20, 20, 20, 0.0], [60, 20, 20, 20, 180.0 - 1e-6]])
    bank = build("train", root, jitter=1, none_per_photo=0, match_iou=0.4, seed=0, limit=1, progress=None,
                 rec=cutter)
    assert bank["source"].tolist() == [0, 0, 1, 1]
    assert [KINDS[i] for i in bank["y"]] == ["1m", "2m", "1m", "2m"]
    assert bank["flip_known"].tolist() == [True, True, True, True]
    assert bank["x"].shape == (4, 96, 72, 3) and bank["photos"].tolist() == ["a.jpg"]
    again = build("train", root, jitter=1, none_per_photo=0, match_iou=0.4, seed=0, limit=1, progress=None,
                  rec=cutter)
    assert np.array_equal(again["x"], bank["x"])


def test_the_detector_starts_from_the_shipped_onnx_as_onnxruntime_reads_it():
    torch = pytest.importorskip("torch")
    pytest.importorskip("onnx")
    import onnxruntime as ort

    from models.nets import TileDetector
    from models.onnx_weights import freeze_norms, load_folded_convs, onnx_values

    path = str(Path(__file__).resolve().parents[1] / "models" / "detector.onnx")
    model = TileDetector()
    g, value = onnx_values(path)
    load_folded_convs(model, g, value, path)
    model.train()
    freeze_norms(model)
    x = np.random.default_rng(0).random((1, 3, 128, 160)).astype(np.float32)
    want = ort.InferenceSession(path, providers=["CPUExecutionProvider"]).run(None, {"image": x})[0]
    with torch.no_grad():
        got = model(torch.from_numpy(x)).numpy()
    assert np.abs(got - want).max() < 1e-4


def test_real_tiles_boxes_teach_heat_only_around_each_label_and_the_axis_of_clear_boxes():
    pytest.importorskip("torch")
    from models.train_detector import label_region, make_targets, same_as_real_tiles

    quads = G.obb_to_quad(np.array([[20.0, 20.0, 16.0, 24.0, 0.0], [60.0, 20.0, 16.0, 16.0, 0.0]]))
    t = make_targets(quads, np.ones(2, bool), np.zeros(2, bool), np.array([True, False]), (16, 32),
                     label_region(quads, (16, 32)))
    assert t[10].sum() == 1.0 and t[9].sum() == 2.0           # the angle is taught on the tall box only
    assert t[1, 5, 5] == 1.0 and t[1, 5, 25] == 0.0 and t[1, 15, 10] == 0.0
    assert not same_as_real_tiles(Path("/nonexistent"), ("train",))


def test_the_flip_head_is_judged_on_upright_tiles_and_the_same_turned(tmp_path):
    from evaluation.real_tiles import flip_accuracy, upright_crops

    root = _made_set(tmp_path)
    crops = upright_crops(root, "test", skip_real_scenes=True)
    assert crops.shape == (1, 96, 72, 3)            # photo c's 3m is 20x40: tall; the train photos' are square
    assert upright_crops(root, "train").shape[0] == 0

    class TopDark:   # "upside down" when the crop's bottom half is brighter than its top half
        def classify(self, c):
            c = np.asarray(c, float)
            down = c[:, :48].mean((1, 2, 3)) < c[:, 48:].mean((1, 2, 3))
            return np.zeros((len(c), len(KINDS))), down.astype(float)

    x = np.zeros((3, 96, 72, 3), np.uint8)
    x[:, :48] = 200                                  # bright tops: upright
    x[2] = x[2, ::-1]                                # one that the head will call upside down though upright
    assert flip_accuracy(TopDark(), x) == {"n": 6, "accuracy": 4 / 6}


def test_sets_are_grouped_by_the_day_of_their_photos_and_taught_as_a_player_corrects(tmp_path):
    from datasets.real_tiles import LabelledPhoto
    from evaluation.set_learning import corrected_tiles, group_of, set_groups

    assert group_of("IMG_20231217_203101.jpg") == "IMG_20231217" and group_of("IMG_2744.jpg") == "IMG_27xx"
    assert group_of("384498307_655768726684557_2573241153980532960_n.jpg") is None
    for split, names in (("train", ["IMG_20231030_100000", "IMG_20231030_200000", "IMG_20231031_100000", "hand_1"]),
                         ("valid", ["IMG_20231030_900000", "IMG_20231030_800000", "IMG_20231031_900000"])):
        (tmp_path / split / "images").mkdir(parents=True, exist_ok=True)
        for n in names:
            (tmp_path / split / "images" / f"{n}.jpg").touch()
    # the 31st has one train photo: too few to learn 2 from
    assert set_groups(tmp_path, "valid", learn=2) == {
        "IMG_20231030": {"learn": ["IMG_20231030_100000.jpg", "IMG_20231030_200000.jpg"],
                         "read": ["IMG_20231030_800000.jpg", "IMG_20231030_900000.jpg"]}}
    ph = LabelledPhoto("x.jpg", np.zeros((100, 200, 3), np.uint8),
                       np.array([[0, 0, 10, 14], [10, 0, 20, 14], [40, 0, 50, 14]], float), ["1m", "2m", "3m"])
    read = _Reader([((0, 0, 10, 14), "9p"), ((11, 1, 15, 12), "1m"), ((100, 50, 110, 64), "bk")])
    tiles = corrected_tiles(read.recognize(ph.image).tiles, ph)
    assert [(t["code"], t["corners"][0]) for t in tiles] == [
        ("1m", [0.0, 0.0]),       # fits the first label: its code
        ("none", [11.0, 1.0]),    # centre on the second tile, fits no label: a split box
        ("2m", [10.0, 0.0]),      # labels no box fits, with their own boxes
        ("3m", [40.0, 0.0])]      # (the box away from every label is left out)


def test_quarter_turned_faces_are_cut_across_the_box_and_counted_when_read_unsure(tmp_path):
    from evaluation.real_tiles import unsure_share, upright_crops

    root = _made_set(tmp_path)
    assert upright_crops(root, "test", quarter=True).shape == (1, 96, 72, 3)

    class Reader:    # sure of the first crop's kind, unsure of the others
        def classify(self, c):
            p = np.full((len(c), len(KINDS)), 0.01)
            p[0, 3] = 0.6
            return p, np.zeros(len(c))

    assert unsure_share(Reader(), np.zeros((4, 96, 72, 3), np.uint8)) == {"n": 4, "share": 0.75}
