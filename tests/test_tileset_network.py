"""Adapting a tile set's network (models.adapt_set through vision.tilesets.learn): the later stages are fine-tuned
with generic examples replayed, exported as int8 ONNX per set, stored with the set and read with ``--tileset``."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision import tilesets as T
from vision.heads import head_fingerprint, shipped_head
from vision.inference import CLASSIFIER_PATH, KINDS, TileRecognizer


@pytest.fixture(autouse=True)
def tileset_root(tmp_path, monkeypatch):
    monkeypatch.setenv("MAHJONG_ASSISTANT_TILESETS", str(tmp_path / "sets"))
    return tmp_path / "sets"


def design(kind: int, n: int, seed: int) -> np.ndarray:
    """Faces of a design no art pack has: red strokes (kind 0) or blue rings (kind 1) on an ivory tile."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        c = np.full((96, 72, 3), 235, np.uint8)
        cv2.rectangle(c, (4, 4), (67, 91), (60, 60, 60), 2)
        if kind == 0:
            for y in range(14, 84, 10):
                cv2.line(c, (12, y), (60, y + int(rng.integers(-3, 4))), (30, 30, 200), 3)
        else:
            for r in range(8, 34, 8):
                cv2.circle(c, (36 + int(rng.integers(-2, 3)), 48 + int(rng.integers(-2, 3))), r, (200, 80, 20), 2)
        out.append(np.clip(c.astype(int) + rng.integers(-12, 13, c.shape), 0, 255).astype(np.uint8))
    return np.stack(out)


def read(rec: TileRecognizer, crops: np.ndarray) -> list[str]:
    probs, _ = rec.classify(crops, "hong-kong")
    return [KINDS[i] for i in probs.argmax(1)]


def test_a_set_adapts_the_network_to_a_new_design_and_reads_it_with_the_set():
    pytest.importorskip("torch")
    pytest.importorskip("onnx")
    rec = TileRecognizer(threads=1, head=None)
    lesson = np.concatenate([design(0, 12, 1), design(1, 12, 2)])
    unseen = np.concatenate([design(0, 8, 11), design(1, 8, 12)])
    truth = ["1f"] * 8 + ["2f"] * 8
    assert sum(a == b for a, b in zip(read(rec, unseen), truth, strict=True)) == 0   # the shipped model: no flower
    ts = T.TileSet(name="stripes", variant="hong-kong")
    rep = T.learn(ts, lesson, ["1f"] * 12 + ["2f"] * 12, rec)
    assert rep["adapts"] == "network" and rep["held_back"] == 6
    assert rep["shipped_before"] == 0.0 and rep["accuracy_after"] == 1.0 and rep["kept"]
    assert rep["generic_after"] >= rep["generic_before"] - T.GENERIC_SLACK
    # stored with the set (int8 ONNX, adapted from this classifier), read back, and read with the set
    loaded = T.TileSet.load("stripes")
    assert loaded.head is None and loaded.network is not None and len(loaded.network) < 2_000_000
    assert loaded.network_base == head_fingerprint(shipped_head(CLASSIFIER_PATH.parent))
    assert loaded.summary()["adapted"] and loaded.summary()["network"]
    import onnx
    from onnx import numpy_helper

    weights = [numpy_helper.to_array(i) for i in onnx.load_from_string(loaded.network).graph.initializer
               if i.data_type == onnx.TensorProto.INT8]
    assert weights and max(int(np.abs(w.astype(int)).max()) for w in weights) <= 64   # 7 bits: no saturation
    with_set = TileRecognizer(threads=1, head=None, tileset=loaded)
    assert read(with_set, unseen) == truth
    with_set.use_tileset(None)   # and back to the shipped model
    assert read(with_set, unseen) == read(rec, unseen)


def test_without_pytorch_the_last_layer_adapts_and_says_why(monkeypatch):
    from models import adapt_set

    monkeypatch.setattr(adapt_set, "available", lambda: False)
    rec = TileRecognizer(threads=1, head=None)
    ts = T.TileSet(name="plain", variant="hong-kong")
    rep = T.learn(ts, np.concatenate([design(0, 6, 1), design(1, 6, 2)]), ["1f"] * 6 + ["2f"] * 6, rec)
    assert rep["adapts"] == "last layer" and rep["note"] == adapt_set.MISSING
    with pytest.raises(T.TileSetError, match="PyTorch is not installed"):
        T.learn(T.TileSet(name="other", variant="hong-kong"), design(0, 6, 3), ["1f"] * 6, rec, network=True)


def test_a_network_adapted_from_another_classifier_is_not_used():
    rec = TileRecognizer(threads=1, head=None)
    ts = T.TileSet(name="old", variant="hong-kong", network=CLASSIFIER_PATH.read_bytes(), network_base="0" * 16)
    ts.save()
    rec.use_tileset(T.TileSet.load("old"))
    assert rec.cls is rec._base_cls
    ts.network_base = head_fingerprint(shipped_head(CLASSIFIER_PATH.parent))
    ts.save()
    rec.use_tileset(T.TileSet.load("old"))
    assert rec.cls is not rec._base_cls and rec.head is None


def test_a_damaged_network_file_is_refused_with_its_reason():
    ts = T.TileSet(name="bad", variant="hong-kong", network=b"garbage", network_base="0" * 16)
    ts.save()
    with pytest.raises(T.TileSetError, match=r"^tile set 'bad' cannot be read \(classifier-[0-9a-f]{8}\.onnx: not an "
                                             r"ONNX model \(.*INVALID_PROTOBUF.*\)\); `mahjong-assistant tileset "
                                             r"remove bad` deletes it$"):
        T.TileSet.load("bad")
