"""``mahjong-assistant detect``: JSON schema and bad images (clear error or empty result, never a traceback)."""

import json

import cv2
import numpy as np
import pytest

from vision import inference as I
from vision.detect import cmd_detect, register

needs_models = pytest.mark.skipif(not (I.DETECTOR_PATH.is_file() and I.CLASSIFIER_PATH.is_file()),
                                  reason="models not trained/exported yet")


def run_detect(argv, capsys):
    import argparse

    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers()
    register(sub)
    args = ap.parse_args(["detect", *argv])
    rc = cmd_detect(args)
    out = capsys.readouterr()
    return rc, out.out, out.err


@pytest.fixture(scope="module")
def scene_png(tmp_path_factory):
    from datasets.generate import scene_seed
    from datasets.scene import SceneConfig, SceneGenerator

    scene = SceneGenerator(SceneConfig(width=960, height=540)).generate(scene_seed(9001, 1001))
    path = tmp_path_factory.mktemp("scene") / "scene.png"
    cv2.imwrite(str(path), scene.image)
    return path


@needs_models
def test_detect_json_schema(scene_png, tmp_path, capsys):
    overlay = tmp_path / "ov.png"
    rc, out, err = run_detect([str(scene_png), "--json", "--overlay", str(overlay)], capsys)
    assert rc == 0, err
    d = json.loads(out)
    assert d["width"] == 960 and d["height"] == 540 and d["count"] == len(d["tiles"]) > 5
    for t in d["tiles"]:
        assert set(t) >= {"code", "confidence", "top3", "corners", "face_up", "rotation"}
        assert t["code"] in I.KINDS and t["code"] != "none"
        assert 0 <= t["confidence"] <= 1
        assert len(t["top3"]) == 3 and t["top3"][0]["code"] == t["code"]
        assert all(set(a) == {"code", "p"} for a in t["top3"])
        assert np.array(t["corners"]).shape == (4, 2)
        assert t["rotation"] in (0, 90, 180, 270) and isinstance(t["face_up"], bool)
        assert t["face_up"] == (t["code"] != "bk")
    assert cv2.imread(str(overlay)).shape == (540, 960, 3)


@needs_models
def test_detect_text_output(scene_png, capsys):
    rc, out, _ = run_detect([str(scene_png)], capsys)
    assert rc == 0 and "tiles" in out.splitlines()[0]


def _write(tmp_path, name, data):
    p = tmp_path / name
    if isinstance(data, bytes):
        p.write_bytes(data)
    else:
        cv2.imwrite(str(p), data)
    return p


@pytest.mark.parametrize("name,data,message", [
    ("empty.png", b"", "empty file"),
    ("text.jpg", b"this is not an image at all", "not an image"),
    ("trunc.png", cv2.imencode(".png", np.zeros((50, 50, 3), np.uint8))[1].tobytes()[:40], "not an image"),
])
def test_bad_files_give_clear_error(tmp_path, capsys, name, data, message):
    rc, out, err = run_detect([str(_write(tmp_path, name, data))], capsys)
    assert rc == 2 and err.startswith("error: ") and message in err and "Traceback" not in err


def test_missing_file(tmp_path, capsys):
    rc, _, err = run_detect([str(tmp_path / "nope.jpg")], capsys)
    assert rc == 2 and "no such file" in err


def test_image_normalisation():
    grey = I.normalize_image(np.zeros((20, 30), np.uint8))
    assert grey.shape == (20, 30, 3)
    rgba = np.zeros((20, 30, 4), np.uint8)
    rgba[..., 3] = 0
    assert I.normalize_image(rgba).min() == 255  # transparent -> white
    assert I.normalize_image(np.full((4, 4), 65535, np.uint16)).max() == 255
    with pytest.raises(I.ImageError, match="too large"):
        I.normalize_image(np.lib.stride_tricks.as_strided(np.zeros(1, np.uint8), (20000, 20000, 3), (0, 0, 0)))
    with pytest.raises(I.ImageError):
        I.normalize_image(np.zeros((0, 5, 3), np.uint8))


@needs_models
@pytest.mark.parametrize("kind", ["1x1", "grey", "rgba", "huge"])
def test_odd_images_give_sane_results(tmp_path, capsys, kind):
    if kind == "1x1":
        img = np.full((1, 1, 3), 128, np.uint8)
    elif kind == "grey":
        img = np.full((300, 400), 90, np.uint8)
    elif kind == "rgba":
        img = np.zeros((300, 400, 4), np.uint8)
        img[..., 1], img[..., 3] = 120, 200
    else:
        img = np.full((4000, 7000, 3), 60, np.uint8)  # 28 MP: decoded and letterboxed
    path = _write(tmp_path, f"{kind}.png", img)
    rc, out, err = run_detect([str(path), "--json"], capsys)
    assert rc == 0, err
    d = json.loads(out)
    assert d["count"] == len(d["tiles"]) and d["count"] <= 3


def test_huge_dimensions_refused(tmp_path, capsys):
    # a tiny file that declares a 30000 x 30000 image: refused with a message, not decoded into 2.7 GB
    img = np.zeros((2, 2, 3), np.uint8)
    buf = bytearray(cv2.imencode(".png", img)[1].tobytes())
    import struct
    import zlib

    ihdr = struct.pack(">IIBBBBB", 30000, 30000, 8, 2, 0, 0, 0)
    buf[16:29] = ihdr
    buf[29:33] = struct.pack(">I", zlib.crc32(b"IHDR" + ihdr) & 0xFFFFFFFF)
    rc, _, err = run_detect([str(_write(tmp_path, "bomb.png", bytes(buf)))], capsys)
    assert rc == 2 and err.startswith("error: ") and "too large" in err
