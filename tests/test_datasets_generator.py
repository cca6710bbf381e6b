"""Tests of the synthetic scene generator (datasets/). Fast: small images, a handful of scenes."""

from __future__ import annotations

import json
import math

import cv2
import numpy as np
import pytest

from datasets.art import ArtLibrary
from datasets.codes import BACK, FACE_CODES, TILE_CODES
from datasets.crops import CROP_SIZE, face_crops, rectify
from datasets.generate import main as generate_main
from datasets.procedural import FACE_SIZE, FaceStyle, random_style, render_face, render_ink
from datasets.scene import SceneConfig, SceneGenerator, quad_rotation

MISSING_ART = "/nonexistent/mahjong-art-root"
W, H = 320, 240


@pytest.fixture(scope="module")
def generator() -> SceneGenerator:
    return SceneGenerator(SceneConfig(width=W, height=H), art=MISSING_ART)


@pytest.fixture(scope="module")
def scenes(generator: SceneGenerator) -> list:
    """Two scenes of each view type."""
    out = []
    for k, weights in enumerate([(1, 0, 0), (0, 1, 0), (0, 0, 1)]):
        gen = SceneGenerator(SceneConfig(width=W, height=H, view_weights=weights), art=generator.art)
        out += [gen.generate(100 + 2 * k), gen.generate(101 + 2 * k)]
    return out


# --------------------------------------------------------------------------- codes and faces


def test_there_are_55_codes() -> None:
    assert len(TILE_CODES) == 55
    assert {"0m", "0p", "0s", "jk", "bk", "4h", "4a", "4g", "4f", "7z"} <= set(TILE_CODES)


@pytest.mark.parametrize("style_seed", [None, 3])
def test_every_code_renders_procedurally(style_seed: int | None) -> None:
    style = FaceStyle() if style_seed is None else random_style(np.random.default_rng(style_seed))
    faces = {}
    for code in TILE_CODES:
        ink = render_ink(code, style)
        assert ink.shape == (FACE_SIZE[1], FACE_SIZE[0], 4) and ink.dtype == np.uint8
        if not (code == "5z" and style.white_dragon == 0):
            assert ink[..., 3].max() > 200, code
        faces[code] = render_face(code, style)
        assert faces[code].shape == (FACE_SIZE[1], FACE_SIZE[0], 3)
    if style.white_dragon != 0:  # every kind looks different from every other one
        flat = {code: img.astype(np.int16) for code, img in faces.items()}
        for i, a in enumerate(TILE_CODES):
            for b in TILE_CODES[i + 1:]:
                assert np.abs(flat[a] - flat[b]).mean() > 1.0, (a, b)


def test_line_glyph_fallback_without_font() -> None:
    style = FaceStyle(font=-1)
    for code in ("1m", "5m", "1z", "6z", "7z", "1f", "4g", "jk"):
        assert render_ink(code, style)[..., 3].max() > 200, code


def test_rendering_is_deterministic() -> None:
    a = random_style(np.random.default_rng(11))
    b = random_style(np.random.default_rng(11))
    assert a == b
    render_ink.cache_clear()
    first = render_ink("2f", a).copy()
    render_ink.cache_clear()
    assert np.array_equal(first, render_ink("2f", b))


def test_missing_art_root_means_no_art() -> None:
    lib = ArtLibrary(MISSING_ART, cache_dir="/nonexistent/cache")
    assert not lib.available
    assert lib.entries("1m") == [] and lib.codes() == []
    assert lib.random_ink("1m", np.random.default_rng(0)) is None


# --------------------------------------------------------------------------- scenes


def test_same_seed_same_scene(generator: SceneGenerator) -> None:
    a = generator.generate(5)
    b = SceneGenerator(SceneConfig(width=W, height=H), art=MISSING_ART).generate(5)
    assert a.image.shape == (H, W, 3) and a.image.dtype == np.uint8
    assert a.image.tobytes() == b.image.tobytes()
    assert [t.to_dict() for t in a.labels] == [t.to_dict() for t in b.labels]
    assert a.meta == b.meta
    c = generator.generate(6)
    assert c.image.tobytes() != a.image.tobytes()


def _signed_area(q: np.ndarray) -> float:
    x, y = q[:, 0], q[:, 1]
    return 0.5 * float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))


def test_label_geometry(scenes: list) -> None:
    total = 0
    for scene in scenes:
        for label in scene.labels:
            total += 1
            q = np.asarray(label.corners, np.float64)
            assert q.shape == (4, 2)
            assert label.code in TILE_CODES
            assert label.face_up == (label.code != BACK)
            assert 0.0 <= label.occluded < 1.0
            assert label.rotation in (0, 90, 180, 270)
            # TL, TR, BR, BL of a face seen from the front run clockwise on screen (y down)
            assert _signed_area(q) > 0, label
            edges = np.roll(q, -1, axis=0) - q
            nxt = np.roll(edges, -1, axis=0)
            crosses = edges[:, 0] * nxt[:, 1] - edges[:, 1] * nxt[:, 0]
            assert all(c > 0 for c in crosses), ("not convex", label)
            # rotation is the direction of the face's up edge (TL,TR) seen from its bottom edge
            up = (q[0] + q[1]) / 2 - (q[2] + q[3]) / 2
            angle = math.degrees(math.atan2(up[0], -up[1])) % 360
            assert abs((angle - label.angle + 180) % 360 - 180) < 0.05
            assert label.rotation == int(round(angle / 90)) % 4 * 90
            if label.occluded == 0.0:
                assert q[:, 0].min() >= -1 and q[:, 0].max() <= W + 1, label
                assert q[:, 1].min() >= -1 and q[:, 1].max() <= H + 1, label
                assert not label.truncated
    assert total > 50
    views = {scene.meta["view"] for scene in scenes}
    assert views == {"overhead", "seat", "oblique"}
    codes = {label.code for scene in scenes for label in scene.labels}
    assert BACK in codes and len(codes) > 15


def test_seat_view_shows_own_hand_upright(scenes: list) -> None:
    seat_scenes = [s for s in scenes if s.meta["view"] == "seat"]
    own = [t for s in seat_scenes for t in s.labels if t.zone == "hand" and t.seat == 0 and t.face_up]
    assert own, "the camera player's hand should be visible from the seat"
    assert sum(t.rotation == 0 for t in own) >= 0.9 * len(own)


def test_quad_rotation() -> None:
    upright = np.array([[10, 10], [40, 10], [40, 50], [10, 50]], np.float64)
    assert quad_rotation(upright)[0] == 0
    # the face's top now points right: rotated 90 degrees clockwise
    assert quad_rotation(np.array([[50, 10], [50, 40], [10, 40], [10, 10]], np.float64))[0] == 90
    assert quad_rotation(upright[[2, 3, 0, 1]])[0] == 180
    assert quad_rotation(np.array([[10, 40], [10, 10], [50, 10], [50, 40]], np.float64))[0] == 270


# --------------------------------------------------------------------------- crops


def test_rectify_undoes_a_rotation() -> None:
    face = render_face("3p", FaceStyle())
    h, w = face.shape[:2]
    image = np.zeros((300, 300, 3), np.uint8)
    # paste the face turned 90 degrees clockwise: its top edge becomes the right edge
    rotated = cv2.rotate(face, cv2.ROTATE_90_CLOCKWISE)
    image[50:50 + w, 60:60 + h] = rotated
    x0, y0, x1, y1 = 60 - 0.5, 50 - 0.5, 60 + h - 0.5, 50 + w - 0.5
    corners = np.array([[x1, y0], [x1, y1], [x0, y1], [x0, y0]])  # TL, TR, BR, BL of the face
    assert quad_rotation(corners)[0] == 90
    crop = rectify(image, corners, (w, h))
    assert np.abs(crop.astype(int) - face.astype(int)).mean() < 4


def test_face_crops_of_a_scene(scenes: list) -> None:
    scene = scenes[2]
    crops = face_crops(scene.image, scene.labels, max_occluded=1.0, min_side_px=0)
    assert len(crops) == len(scene.labels)
    for crop in crops:
        assert crop.image.shape == (CROP_SIZE[1], CROP_SIZE[0], 3)
        assert crop.code == scene.labels[crop.label_index].code
    dict_crops = face_crops(scene.image, [t.to_dict() for t in scene.labels], max_occluded=1.0, min_side_px=0)
    assert [c.code for c in dict_crops] == [c.code for c in crops]
    assert all(c.code in FACE_CODES for c in face_crops(scene.image, scene.labels, include_backs=False))


# --------------------------------------------------------------------------- CLI


def _run(out, count: int) -> None:
    assert generate_main(["--out", str(out), "--count", str(count), "--seed", "3", "--width", "160",
                          "--height", "120", "--art", MISSING_ART, "--quiet"]) == 0


def test_generate_cli_writes_and_resumes(tmp_path) -> None:
    out = tmp_path / "ds"
    _run(out, 3)
    images = sorted((out / "images").glob("*.jpg"))
    lines = (out / "labels.jsonl").read_text().splitlines()
    assert len(images) == 3 and len(lines) == 3
    records = [json.loads(line) for line in lines]
    assert [r["index"] for r in records] == [0, 1, 2]
    img = cv2.imread(str(out / records[0]["image"]))
    assert img.shape == (120, 160, 3)
    assert all({"code", "corners", "face_up", "rotation", "occluded"} <= set(t) for r in records for t in r["tiles"])

    # resume: existing scenes are skipped, a cut-off last line and its scene are redone
    before = {p.name: p.stat().st_mtime_ns for p in images}
    text = (out / "labels.jsonl").read_text()
    (out / "labels.jsonl").write_text(text[: text.rindex("\n", 0, len(text) - 1) + 1] + '{"index": 2, "ima')
    _run(out, 5)
    lines = (out / "labels.jsonl").read_text().splitlines()
    assert [json.loads(line)["index"] for line in lines] == [0, 1, 2, 3, 4]
    assert len(list((out / "images").glob("*.jpg"))) == 5
    after = {p.name: p.stat().st_mtime_ns for p in (out / "images").glob("*.jpg")}
    assert after["000000.jpg"] == before["000000.jpg"] and after["000001.jpg"] == before["000001.jpg"]
    assert json.loads(lines[2]) == records[2]  # the redone scene is identical

    with pytest.raises(SystemExit):  # other parameters into the same folder are refused
        generate_main(["--out", str(out), "--count", "5", "--seed", "4", "--width", "160", "--height", "120",
                       "--art", MISSING_ART, "--quiet"])


def test_random_face_is_deterministic_in_the_generator() -> None:
    from datasets.procedural import random_face

    a = random_face("0p", np.random.default_rng(9))
    assert np.array_equal(a, random_face("0p", np.random.default_rng(9)))
    assert a.shape == (FACE_SIZE[1], FACE_SIZE[0], 3)


def test_a_missing_cjk_font_is_warned_about(monkeypatch, capsys):
    from datasets import fonts

    monkeypatch.setattr(fonts, "cjk_fonts", lambda: ())
    assert fonts.warn_without_cjk() is True
    assert "no CJK font found" in capsys.readouterr().err
    monkeypatch.setattr(fonts, "cjk_fonts", lambda: (fonts.FontRef("some.ttc"),))
    assert fonts.warn_without_cjk() is False
    assert capsys.readouterr().err == ""
