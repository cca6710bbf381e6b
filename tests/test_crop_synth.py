"""datasets.crop_synth: classifier crops shaped like real detector boxes, and the anti-aliased crop path."""

from __future__ import annotations

import numpy as np
import pytest

from datasets.art import ArtLibrary
from datasets.codes import TILE_CODES
from datasets.crop_synth import (
    BACK,
    HELD_OUT_PACKS,
    KINDS,
    NONE,
    CropSynth,
    FaceBank,
    _cut,
    jitter_box,
    place_face,
    surface,
)
from vision.geometry import CROP_SIZE, obb_to_quad, quad_iou, warp_crops


@pytest.fixture(scope="module")
def bank(tmp_path_factory):
    # procedural faces only (an art root that does not exist): fast and independent of ../shared
    art = ArtLibrary(root=tmp_path_factory.mktemp("noart"), cache_dir=tmp_path_factory.mktemp("artcache"))
    return FaceBank.build(per_code=1, bonus_per_code=2, seed=3, art=art)


def test_bank_has_every_tile_kind(bank):
    assert sorted(set(bank.kinds.tolist())) == list(range(len(TILE_CODES)))
    assert len(bank) == len(TILE_CODES) + 8 * 1   # flowers and seasons twice
    assert bank.inks[0].shape == (160, 120, 4)


def test_batches_are_deterministic_and_labelled(bank):
    synth = CropSynth(bank)
    a = synth.batch(24, np.random.default_rng([5, 1]))
    b = CropSynth(bank).batch(24, np.random.default_rng([5, 1]))
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x, y)
    crops, kinds, flips, known = a
    assert crops.shape == (24, CROP_SIZE[1], CROP_SIZE[0], 3) and crops.dtype == np.uint8
    assert kinds.min() >= 0 and kinds.max() <= NONE
    # "not a tile" and backs never teach the flip head
    assert not known[(kinds == NONE) | (kinds == BACK)].any()


def test_none_share_is_respected(bank):
    _, kinds, _, _ = CropSynth(bank, none_share=1.0).batch(12, np.random.default_rng(0))
    assert (kinds == NONE).all()
    _, kinds, _, _ = CropSynth(bank, none_share=0.0, back_share=0.0).batch(12, np.random.default_rng(0))
    assert not ((kinds == NONE) | (kinds == BACK)).any()


def test_cut_folds_the_up_direction_like_the_detector():
    rng = np.random.default_rng(0)
    img = np.zeros((200, 200, 3), np.uint8)
    img[40:100, 70:130] = 255        # the upper part of the box is white
    obb = np.array([100.0, 100.0, 60.0, 120.0, 0.0])
    up, flipped_up = _cut(img, obb, np.random.default_rng(1))
    down_obb = obb.copy()
    down_obb[4] = 180.0              # the face's up points down: the detector's box says 0, the crop is upside down
    down, flipped_down = _cut(img, down_obb, np.random.default_rng(1))
    assert not flipped_up and flipped_down
    assert up[:40].mean() > 200 and up[-40:].mean() < 30
    assert down[:40].mean() > 200        # same box (folded to 0 degrees): same pixels, but labelled flipped
    del rng


def test_jittered_boxes_mostly_fit():
    rng = np.random.default_rng(7)
    true = np.array([50.0, 50.0, 30.0, 40.0, 10.0])
    q = obb_to_quad(true[None])[0]
    ious = [quad_iou(obb_to_quad(jitter_box(true, rng)[None])[0], q) for _ in range(300)]
    assert np.median(ious) > 0.75
    assert np.mean(np.array(ious) >= 0.5) > 0.85


def test_place_face_turns_and_misfits_within_bounds():
    pic = np.full((96, 72, 3), 230, np.uint8)
    pic[30:66, 20:52] = (0, 0, 200)   # a red block in the middle
    crops = [place_face(pic, np.random.default_rng(i)) for i in range(10)]
    for c in crops:
        assert c.shape == (CROP_SIZE[1], CROP_SIZE[0], 3)
        # the red block is still inside the crop: the box overlaps the face by IoU >= 0.6
        red = (c[..., 2] > 150) & (c[..., 0] < 80)
        assert red.mean() > 0.05


def test_surfaces_are_images():
    rng = np.random.default_rng(11)
    for _ in range(12):
        s = surface(rng, 50, 70)
        assert s.shape == (50, 70, 3) and s.dtype == np.uint8


def test_held_out_bank_uses_only_held_out_art(tmp_path):
    art = ArtLibrary()
    if not art.available:
        pytest.skip("no art root")
    used = []

    class Spy(ArtLibrary):
        def ink(self, entry, size=(150, 200), colour=(0, 0, 0)):
            used.append(entry.pack)
            return super().ink(entry, size, colour)

    spy = Spy(cache_dir=tmp_path)
    FaceBank.build(per_code=1, bonus_per_code=1, seed=0, held_out=True, art=spy)
    assert used and set(used) <= set(HELD_OUT_PACKS)
    used.clear()
    FaceBank.build(per_code=1, bonus_per_code=1, seed=0, held_out=False, art=spy)
    assert used and not set(used) & set(HELD_OUT_PACKS)


def test_big_boxes_are_area_averaged():
    # a 1-pixel checkerboard in a box 5x the crop: bilinear sampling alone aliases it into stripes
    img = ((np.indices((600, 600)).sum(0) % 2) * 255).astype(np.uint8)
    img = np.repeat(img[..., None], 3, 2)
    crop = warp_crops(img, np.array([[300.0, 300.0, 360.0, 480.0, 0.0]]), CROP_SIZE)[0]
    assert abs(crop.mean() - 127.5) < 8
    assert crop.std() < 20


def test_kinds_list():
    assert KINDS[-1] == "none" and KINDS[:-1] == TILE_CODES


def test_the_visible_side_is_where_the_camera_is_not_where_the_tile_points():
    """The side strip of a lying tile shows towards the camera (mostly down the image) whichever way the tile
    lies: it must not turn with the tile (it would tell which way is up)."""
    from datasets.crop_synth import lay_tiles

    face = np.full((160, 120, 3), 230, np.uint8)
    downs, ups = [], []
    for i in range(120):
        patch = lay_tiles([face], np.random.default_rng(i))
        if patch.side is None:
            continue
        offset = patch.side.mean(0) - patch.quad.mean(0)      # image direction of the side
        tile_up = (patch.quad[0] + patch.quad[1]) / 2 - (patch.quad[3] + patch.quad[2]) / 2
        downs.append(offset[1] > 0)
        ups.append(float(np.dot(offset, tile_up)) > 0)       # the side on the tile's top edge
    assert np.mean(downs) > 0.7                  # towards the camera (down the image) most of the time
    assert 0.2 < np.mean(ups) < 0.8              # on either edge of the tile, not always its bottom
