"""eval-video's cache of frame readings (evaluation/frame_cache.py)."""

from __future__ import annotations

import numpy as np
import pytest

from evaluation.frame_cache import NOT_READING, CachedRecognizer, reading_code_digest


class Counting:
    """A stand-in recogniser: a frame's 'reading' is its pixel sum; the second frame of a size turns the scale
    choice finer, as a sticky full-frame pass does."""

    scales = (640, 320)

    def __init__(self):
        self.calls = 0
        self._auto: dict = {}

    def scales_for(self, size):
        return self._auto.get(size, self.scales)

    def recognize(self, image, variant=None, sticky=False):
        self.calls += 1
        if sticky and self.calls == 2:
            self._auto[(image.shape[1], image.shape[0])] = (960, 480)
        return {"sum": int(image.sum()), "variant": variant, "scales": self.scales_for(image.shape[1::-1])}


def _frames():
    return [np.full((4, 6, 3), v, np.uint8) for v in (1, 2, 3)]


def test_a_second_run_reads_no_frame_and_gets_the_same_readings(tmp_path):
    first = CachedRecognizer(Counting(), tmp_path, model_files=())
    got = [first.recognize(f, variant="sanma", sticky=True) for f in _frames()]
    assert got == [{"sum": 72, "variant": "sanma", "scales": (640, 320)},
                   {"sum": 144, "variant": "sanma", "scales": (960, 480)},
                   {"sum": 216, "variant": "sanma", "scales": (960, 480)}]
    assert (first.misses, first.hits, first.calls) == (3, 0, 3)
    again = CachedRecognizer(Counting(), tmp_path, model_files=())
    assert [again.recognize(f, variant="sanma", sticky=True) for f in _frames()] == got
    assert (again.misses, again.hits, again.calls) == (0, 3, 0)
    # the scale choice the second frame made is the recogniser's again, as if it had read the frames
    assert again.scales_for((6, 4)) == (960, 480)


def test_another_rule_system_a_changed_frame_or_a_damaged_entry_is_read_afresh(tmp_path):
    CachedRecognizer(Counting(), tmp_path).recognize(_frames()[0], variant="sanma")
    other = CachedRecognizer(Counting(), tmp_path)
    other.recognize(_frames()[0], variant="hong-kong")
    other.recognize(_frames()[1], variant="sanma")
    assert (other.hits, other.misses) == (0, 2)
    for p in tmp_path.glob("*.pkl"):
        p.write_bytes(b"not a pickle")
    third = CachedRecognizer(Counting(), tmp_path)
    assert third.recognize(_frames()[0], variant="sanma")["sum"] == 72
    assert (third.hits, third.misses) == (0, 1)


def test_the_key_changes_with_the_model_files(tmp_path):
    a, b = tmp_path / "a.onnx", tmp_path / "b.onnx"
    a.write_bytes(b"one model")
    b.write_bytes(b"another")
    f = _frames()[0]
    assert CachedRecognizer(Counting(), tmp_path / "c", (str(a),)).key(f, "sanma") != \
        CachedRecognizer(Counting(), tmp_path / "c", (str(b),)).key(f, "sanma")


def test_the_code_digest_leaves_out_the_follower_only(tmp_path):
    (tmp_path / "follow").mkdir()
    (tmp_path / "inference.py").write_text("x = 1\n")
    (tmp_path / "follow" / "search.py").write_text("y = 1\n")
    before = reading_code_digest(tmp_path)
    (tmp_path / "follow" / "search.py").write_text("y = 2\n")
    assert reading_code_digest(tmp_path) == before
    (tmp_path / "inference.py").write_text("x = 2\n")
    assert reading_code_digest(tmp_path) != before
    assert "follow" in NOT_READING and "inference.py" not in NOT_READING


@pytest.mark.parametrize("argv, words", [
    (["--cache", "X"], "--cache keeps the readings of frames read each on its own: give --from-images without --live"),
])
def test_eval_video_refuses_a_cache_without_images(argv, words, capsys):
    from assistant.cli import main

    assert main(["eval-video", "--variant", "sanma", "--hands", "1", *argv]) == 2
    assert capsys.readouterr().err.strip() == f"error: {words}"


class Frame:
    def __init__(self, i):
        self.index, self.event_index = i, 10 + i


class Read:
    def __init__(self, tiles):
        self.tiles = tiles


class Film:
    """A stand-in generated hand: three frames, each rendered as a flat image of its index."""

    variant, seed, view, look_seed = "sanma", 4, "seat", 7

    def __init__(self):
        self.frames = [Frame(i) for i in range(3)]
        self.renders = 0

    def render(self, frame):
        self.renders += 1
        return np.full((4, 6, 3), frame.index + 1, np.uint8)


class Tiles(Counting):
    def recognize(self, image, variant=None, sticky=False):
        return Read([super().recognize(image, variant, sticky)])


def test_a_films_frames_are_taken_back_without_rendering_them(tmp_path):
    film, rec = Film(), Tiles()
    first = [CachedRecognizer(rec, tmp_path).read_frame(film, f) for f in film.frames]
    assert [t[0]["sum"] for t in first] == [72, 144, 216] and film.renders == 3 and rec.calls == 3
    film2, rec2 = Film(), Tiles()
    cache = CachedRecognizer(rec2, tmp_path)
    assert [cache.read_frame(film2, f) for f in film2.frames] == first
    assert (film2.renders, rec2.calls, cache.hits, cache.misses) == (0, 0, 3, 0)
    assert rec2.scales_for((6, 4)) == (960, 480)      # the second frame's scale choice, as if it had been read
    # another hand is rendered again; a frame of the same pixels read at the same scales is taken back
    other = Film()
    other.seed = 5
    cache.read_frame(other, other.frames[2])
    assert (other.renders, rec2.calls, cache.hits, cache.misses) == (1, 0, 4, 0)
    other.render = lambda frame: np.full((4, 6, 3), 9, np.uint8)
    cache.read_frame(other, other.frames[1])
    assert (rec2.calls, cache.misses) == (1, 1)


def test_a_film_rendered_with_other_fonts_is_rendered_again(tmp_path, monkeypatch):
    import datasets.fonts as fonts

    monkeypatch.setattr(fonts, "cjk_fonts", lambda: (fonts.FontRef("/fonts/a.ttc", 0),))
    film, rec = Film(), Tiles()
    CachedRecognizer(rec, tmp_path).read_frame(film, film.frames[0])
    film2 = Film()
    CachedRecognizer(Tiles(), tmp_path).read_frame(film2, film2.frames[0])
    assert film2.renders == 0                         # the same fonts: taken back
    monkeypatch.setattr(fonts, "cjk_fonts", lambda: (fonts.FontRef("/fonts/b.ttc", 0),))
    film3 = Film()
    cache = CachedRecognizer(Tiles(), tmp_path)
    cache.read_frame(film3, film3.frames[0])
    assert film3.renders == 1                         # faces drawn otherwise: rendered again (the stand-in's
    assert (cache.hits, cache.misses) == (1, 0)       # pixels are the same, so their reading is taken back)
