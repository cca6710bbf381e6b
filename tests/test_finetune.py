"""finetune: the classifier's kind head retrained on stored corrections, shipped model kept as fallback."""

import json

import cv2
import numpy as np
import pytest

from vision.finetune import finetune, load_head, read_corrections, train_head


def test_train_head_learns_a_separable_relabelling():
    rng = np.random.default_rng(0)
    feats = rng.normal(size=(60, 8)).astype(np.float32)
    labels = (feats[:, 0] > 0).astype(int)  # class 1 where feature 0 is positive
    init = {"weight": np.zeros((3, 8), np.float32), "bias": np.zeros(3, np.float32)}
    head = train_head(feats, labels, init, steps=300)
    pred = (feats @ head["weight"].T + head["bias"]).argmax(1)
    assert np.mean(pred == labels) >= 0.95


@pytest.fixture
def corrections(tmp_path):
    """A tile set whose Fei (jk) is printed with a design the shipped model reads as 5p; the user corrected
    those tiles to jk, and some East winds (read right) too. Crops stored as the web page stores them."""
    from datasets.procedural import random_face

    (tmp_path / "crops").mkdir()
    lines = []
    for i in range(24):
        drawn, code = ("5p", "jk") if i % 2 else ("1z", "1z")
        face = random_face(drawn, np.random.default_rng([7, i]))
        face = cv2.resize(face[..., :3], (72, 96))
        cv2.imwrite(str(tmp_path / f"crops/c{i}.png"), face)
        lines.append(json.dumps({"tile_id": f"t{i}", "code": code, "was": drawn, "crop": f"crops/c{i}.png"}))
    lines.append('{"torn line')  # a crash mid-write leaves a broken last line: skipped
    (tmp_path / "corrections.jsonl").write_text("\n".join(lines) + "\n")
    return tmp_path


def test_finetune_reports_before_and_after_and_saves_only_if_not_worse(corrections, tmp_path):
    pytest.importorskip("onnxruntime")
    assert len(read_corrections(corrections)) == 24
    out = tmp_path / "head.npz"
    res = finetune(corrections, holdout=0.25, steps=300, save_to=out)
    assert (res["corrections"], res["held_back"], res["trained_on"]) == (24, 6, 18)
    # held back: 6 of the 24; the shipped head reads the Fei as 5p, so at most the East winds are right
    assert res["accuracy_before"] <= 4 / 6
    assert res["accuracy_after"] == 1.0  # the retrained head has learnt this set's Fei
    assert res["saved"] == str(out) and load_head(out) is not None


def test_finetune_needs_corrections(tmp_path):
    with pytest.raises(ValueError, match="no corrections"):
        finetune(tmp_path)


def test_a_head_finetuned_from_another_model_is_ignored(tmp_path, capsys):
    """After an update ships a new classifier, a head finetuned on the old one's features must not be used."""
    from vision.finetune import head_fingerprint, shipped_head

    ref = shipped_head()
    good = tmp_path / "good.npz"
    np.savez(good, base=np.array(head_fingerprint(ref)), **ref)
    assert load_head(good) is not None
    stale = tmp_path / "stale.npz"
    other = {"weight": ref["weight"] + 0.01, "bias": ref["bias"]}
    np.savez(stale, base=np.array(head_fingerprint(other)), **ref)
    assert load_head(stale) is None
    legacy = tmp_path / "legacy.npz"  # saved before fingerprints existed: origin unknown
    np.savez(legacy, **ref)
    assert load_head(legacy) is None
    assert "different classifier" in capsys.readouterr().err
