"""The classifier's training data and warm start (models.classifier_data, models.train_classifier)."""

import numpy as np
import pytest

from datasets.codes import TILE_CODES
from models.classifier_data import NONE, scene_crops, table_frames


def _crops(seed):
    return scene_crops(table_frames(2, 123456), np.random.default_rng(seed), per_scene=12, back_keep=1.0)


def test_whole_table_crops_are_labelled_faces_and_none_crops_and_deterministic():
    xs, ys = _crops(0)
    assert all(x.shape == (96, 72, 3) and x.dtype == np.uint8 for x in xs)
    ys = np.array(ys)
    faces = ys[ys != NONE]
    assert len(faces) == 24                                  # 12 faces of each of the two tables
    assert set(faces) <= set(range(len(TILE_CODES)))
    assert 0 < (ys == NONE).sum() <= 10                       # up to 3 shifted and 2 table crops per table
    xs2, ys2 = _crops(0)
    assert list(ys2) == list(ys) and all(np.array_equal(a, b) for a, b in zip(xs, xs2, strict=True))
    xs3, ys3 = _crops(1)
    assert not all(np.array_equal(a, b) for a, b in zip(xs, xs3, strict=False))


def test_the_two_tables_are_of_different_rule_systems_and_labelled_by_projection():
    frames = list(table_frames(2, 123456))
    assert len(frames) == 2
    codes = [{t["code"] for t in labels} for _, labels in frames]
    # table 0 is sanma (no 2m-8m), table 1 korean-3p: both three-player sets without bonus tiles
    assert not codes[0] & {f"{r}m" for r in range(2, 9)}
    for img, labels in frames:
        assert img.shape == (720, 1280, 3)
        c = np.array([t["corners"] for t in labels])
        assert (c >= -1).all() and (c[..., 0] <= 1280).all() and (c[..., 1] <= 720).all()


def test_warm_start_from_the_shipped_onnx_reads_as_onnxruntime_does():
    torch = pytest.importorskip("torch")
    from models.classifier_onnx import load_onnx_weights
    from models.nets import TileClassifier
    from models.train_classifier import freeze_norms, to_tensor
    from vision.inference import TileRecognizer

    xs, ys = _crops(3)
    x = np.stack(xs)
    model = TileClassifier(len(TILE_CODES) + 1)
    load_onnx_weights(model, "models/classifier.onnx")
    freeze_norms(model)
    model.train()                      # batch norms stay frozen whatever the mode of the rest
    freeze_norms(model)
    with torch.no_grad():
        k, f = model(to_tensor(x))
    probs, flip = TileRecognizer().classify(x)
    # int8 vs float: a few borderline crops (2 of these 34 with the classifier of 2026-12-03)
    assert (k.argmax(1).numpy() == probs.argmax(1)).mean() >= 0.9
    assert all(not p.requires_grad for m in model.modules() if isinstance(m, torch.nn.BatchNorm2d)
               for p in m.parameters())


def test_rebalanced_bank_drops_the_share_of_backs_asked_and_adds_cloth_as_none(tmp_path):
    from models.rebalance_bank import cloth_patches, main

    bk = TILE_CODES.index("bk")
    y = np.array([bk] * 4 + [0] * 2 + [bk] * 6, np.int16)            # backs before index 4 are kept
    x = np.arange(len(y), dtype=np.uint8)[:, None, None, None] * np.ones((1, 96, 72, 3), np.uint8)
    np.savez(tmp_path / "in.npz", x=x, y=y, kinds=np.array(TILE_CODES + ("none",)))
    assert main(["--bank", str(tmp_path / "in.npz"), "--out", str(tmp_path / "out.npz"), "--from-index", "4",
                 "--drop-backs", "0.5", "--cloth-tables", "1", "--cloth-seed", "123456"]) == 0
    out = np.load(tmp_path / "out.npz")
    kept = out["x"][:, 0, 0, 0]
    assert list(kept[:6]) == [0, 1, 2, 3, 4, 5]                      # the first four backs and the faces
    assert sum(6 <= k <= 11 for k in kept) == 3                       # half of the six later backs
    assert (out["y"][len(y) - 3:] == NONE).all() and len(out["y"]) == len(y) - 3 + 6

    (image, labels), = table_frames(1, 123456)
    patches = cloth_patches(image, labels, np.random.default_rng(0), count=6)
    assert len(patches) == 6 and all(p.shape == (96, 72, 3) for p in patches)
