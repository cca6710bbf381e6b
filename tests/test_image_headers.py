"""Photo headers (issue 32): a JPEG's size is read the way its decoder reads it (fill bytes, stray bytes, markers
without a length), so an image bomb is refused before decoding on every path (413 on every upload route); a photo
stored turned with an EXIF orientation is read upright on every path (CLI and web)."""

from __future__ import annotations

import io
import json

import cv2
import numpy as np
import pytest

from vision import inference as I

needs_models = pytest.mark.skipif(not I.CLASSIFIER_PATH.is_file(), reason="no shipped models")


def _jpeg(w=24, h=16) -> bytes:
    img = np.random.default_rng(0).integers(0, 255, (h, w, 3)).astype(np.uint8)
    return cv2.imencode(".jpg", img)[1].tobytes()


def _before_sof(data: bytes, extra: bytes) -> bytes:
    at = data.index(b"\xff\xc0")
    return data[:at] + extra + data[at:]


def _declaring(data: bytes, w: int, h: int) -> bytes:
    """``data`` whose frame header declares w x h (the scan data stays the tiny image's)."""
    at = data.index(b"\xff\xc0") + 5
    return data[:at] + h.to_bytes(2, "big") + w.to_bytes(2, "big") + data[at + 4:]


@pytest.mark.parametrize("extra", [b"", b"\xff", b"\xff" * 7, b"junk", b"\x00\x00", b"\xff\x00", b"\xff\xd0",
                                   b"\xff\x01", b"\xff\xe5\x00\x00", b"\xff\xe5\x00\x01", b"\xff\xfe\x00\x02"])
def test_a_jpegs_size_is_read_as_its_decoder_reads_it(extra):
    # before: one 0xFF fill byte (or any stray byte) before the frame header hid the size (None)
    data = _before_sof(_jpeg(), extra)
    decoded = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_UNCHANGED)
    assert decoded.shape == (16, 24, 3)                  # the decoder takes these files...
    assert I.declared_size(data) == (24, 16)            # ...and the header is read to the same frame


def test_a_jpeg_bomb_behind_fill_bytes_is_refused_before_decoding(monkeypatch):
    bomb = _declaring(_before_sof(_jpeg(), b"\xff"), 14000, 14000)   # 196 MP declared
    assert I.declared_size(bomb) == (14000, 14000)

    def never(*a, **k):
        raise AssertionError("decoded")

    monkeypatch.setattr(cv2, "imdecode", never)
    with pytest.raises(I.ImageTooLarge, match=r"^bomb.jpg: image too large \(14000x14000, limit 80 MP\)$"):
        I.decode_image(bomb, "bomb.jpg")


@pytest.fixture
def client(tmp_path, monkeypatch):
    from webui import create_app
    from webui.feed import ScriptedDemoFeed

    monkeypatch.setenv("MAHJONG_ASSISTANT_TILESETS", str(tmp_path / "sets"))
    app = create_app({"FEED": ScriptedDemoFeed(auto=False), "DATA_DIR": str(tmp_path),
                      "MATCH_DB": str(tmp_path / "m.db"), "TESTING": True})
    return app.test_client()


def test_every_upload_route_answers_413_to_a_bomb_behind_fill_bytes(client, monkeypatch):
    # before: /api/photo decoded it (1.7 GB) and answered 415; enroll decoded it too
    bomb = _declaring(_before_sof(_jpeg(), b"\xff"), 14000, 14000)

    def never(*a, **k):
        raise AssertionError("decoded")

    monkeypatch.setattr(cv2, "imdecode", never)
    want = "the photo: image too large (14000x14000, limit 80 MP)"
    r = client.post("/api/photo", data={"image": (io.BytesIO(bomb), "b.jpg")}, content_type="multipart/form-data")
    assert (r.status_code, r.get_json()["error"], r.get_json()["field"]) == (413, want, "image")
    r = client.post("/api/photo", data=bomb, content_type="image/jpeg")
    assert (r.status_code, r.get_json()["error"]) == (413, want)
    r = client.post("/api/tilesets/enroll", content_type="multipart/form-data",
                    data={"name": "x", "variant": "sanma", "image": (io.BytesIO(bomb), "b.jpg")})
    assert (r.status_code, r.get_json()["error"]) == (413, want)


# --------------------------------------------------------------------------- EXIF orientation


def _scene() -> np.ndarray:
    img = np.full((30, 50, 3), 128, np.uint8)
    img[:10, :20] = (0, 0, 255)
    img[20:, 40:] = (255, 0, 0)
    return img


def _turned(orientation: int, fmt: str = "JPEG") -> bytes:
    from PIL import Image

    exif = Image.Exif()
    exif[0x0112] = orientation
    buf = io.BytesIO()
    Image.fromarray(_scene()[..., ::-1]).save(buf, fmt, exif=exif.tobytes(), **({} if fmt == "PNG" else
                                                                                {"quality": 100}))
    return buf.getvalue()


@pytest.mark.parametrize("fmt", ["JPEG", "PNG", "WEBP"])
@pytest.mark.parametrize("orientation", range(1, 9))
def test_a_photo_is_read_upright_as_its_exif_orientation_says(tmp_path, fmt, orientation):
    from PIL import Image, ImageOps

    data = _turned(orientation, fmt)
    upright = np.asarray(ImageOps.exif_transpose(Image.open(io.BytesIO(data))).convert("RGB"))[..., ::-1]
    path = tmp_path / f"photo.{fmt.lower()}"
    path.write_bytes(data)
    got = I.load_image(path)
    assert I.exif_orientation(data) == orientation
    assert got.shape == upright.shape == ((50, 30, 3) if orientation >= 5 else (30, 50, 3))
    assert int(np.abs(got.astype(int) - upright).max()) < 40


def test_web_uploads_are_read_upright(client, monkeypatch):
    from vision import tilesets as T
    from vision.inference import Result

    seen = []

    class Reader:
        def recognize(self, image, variant=None, keep_none=False):
            seen.append(image.shape)
            return Result(tiles=[], width=image.shape[1], height=image.shape[0])

    monkeypatch.setattr(I, "default_recognizer", lambda: Reader())
    photo = _turned(6)   # stored 50 wide, 30 high; shown 30 wide, 50 high
    r = client.post("/api/photo", data={"image": (io.BytesIO(photo), "p.jpg")}, content_type="multipart/form-data")
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["snapshot"]["size"] == [30, 50] and r.get_json()["size"] == [30, 50]
    assert seen == [(50, 30, 3)]
    monkeypatch.setattr(I, "TileRecognizer", lambda **k: Reader())

    def enroll(name, image, rec, variant):
        seen.append(image.shape)
        raise T.TileSetError("no tile found in the photo")

    monkeypatch.setattr(T, "enroll", enroll)
    r = client.post("/api/tilesets/enroll", content_type="multipart/form-data",
                    data={"name": "x", "variant": "sanma", "image": (io.BytesIO(photo), "p.jpg")})
    assert r.status_code == 422 and seen[-1] == (50, 30, 3)


@needs_models
def test_cli_photos_are_read_upright(tmp_path, capsys):
    from assistant.cli import main

    path = tmp_path / "turned.jpg"
    path.write_bytes(_turned(8))
    assert main(["detect", str(path), "--json", "--tileset", "none"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert (d["width"], d["height"]) == (30, 50)
