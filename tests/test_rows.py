"""vision.rows: boxes proposed where a row of like tiles has a tile missing."""

import numpy as np
import pytest

from vision.rows import accept, row_gaps


def _row(xs, y=100.0, w=24.0, h=32.0, theta=0.0):
    return np.array([[x, y, w, h, theta] for x in xs], np.float64)


def test_one_missing_tile_in_a_touching_row():
    obb = _row([100, 125, 150, 200, 225])          # pitch 25, the tile at 175 missing
    gaps = row_gaps(obb)
    assert gaps.shape == (1, 5)
    assert gaps[0, :2] == pytest.approx([175.0, 100.0])
    assert gaps[0, 2:4] == pytest.approx([24.0, 32.0])


def test_two_missing_tiles_are_both_proposed():
    obb = _row([100, 125, 150, 225, 250])          # 175 and 200 missing
    xs = sorted(row_gaps(obb)[:, 0])
    assert xs == pytest.approx([175.0, 200.0])


def test_axis_known_only_modulo_180():
    # the same row with every other box's angle read upside down (the detector's angle is mod 180)
    obb = _row([100, 125, 150, 200, 225])
    obb[::2, 4] = 180.0
    gaps = row_gaps(obb)
    assert gaps[:, 0] == pytest.approx([175.0])


def test_rotated_row():
    t = np.radians(30.0)
    right = np.array([np.cos(t), np.sin(t)])
    pts = [np.array([300.0, 200.0]) + k * 25.0 * right for k in (0, 1, 2, 4, 5)]
    obb = np.array([[p[0], p[1], 24.0, 32.0, 30.0] for p in pts])
    gaps = row_gaps(obb)
    assert len(gaps) == 1
    assert gaps[0, :2] == pytest.approx(np.array([300.0, 200.0]) + 3 * 25.0 * right, abs=1e-6)


def test_no_proposal_for_complete_rows_or_deliberate_gaps():
    assert len(row_gaps(_row([100, 125, 150, 175]))) == 0
    # a drawn tile set a little apart (0.4 pitch): not a missing tile
    assert len(row_gaps(_row([100, 125, 150, 185]))) == 0
    # a gap of four pitches is a separation (hand | melds), more than MAX_MISSING tiles
    assert len(row_gaps(_row([100, 125, 150, 250, 275]))) == 0


def test_unlike_ends_or_a_box_in_the_gap_stop_a_proposal():
    obb = _row([100, 125, 150, 200, 225])
    bigger = obb.copy()
    bigger[3:, 2:4] *= 1.6                           # the far side are other, bigger tiles
    assert len(row_gaps(bigger)) == 0
    sideways = np.vstack([obb, [[175.0, 100.0, 32.0, 24.0, 90.0]]])   # a sideways tile fills the gap
    assert len(row_gaps(sideways)) == 0
    off_line = obb.copy()
    off_line[3:, 1] += 20.0                          # the right part is another row
    assert len(row_gaps(off_line)) == 0


def test_two_rows_each_get_their_own_gap():
    obb = np.vstack([_row([100, 125, 150, 200]), _row([400, 425, 475], y=300.0)])
    got = sorted(map(tuple, np.round(row_gaps(obb)[:, :2], 6)))
    assert got == [(175.0, 100.0), (450.0, 300.0)]


def test_accept_needs_a_confident_tile_reading():
    none = 3
    probs = np.array([[0.9, 0.05, 0.0, 0.05],    # a tile, sure
                      [0.45, 0.3, 0.0, 0.25],   # unsure and maybe not a tile
                      [0.1, 0.0, 0.0, 0.9],     # not a tile
                      [0.0, 0.6, 0.1, 0.3]])    # a back read with 0.6 but "none" at 0.3
    assert accept(probs, none).tolist() == [True, False, False, False]
    assert accept(np.zeros((0, 4)), none).shape == (0,)


def test_a_row_on_its_lattice_mends_a_box_astride_two_tiles():
    """A dense row of 8 tiles at pitch 25: the detector found tiles 0, 1, 3, 6, 7 surely, one unsure box astride
    tiles 4 and 5, and none at 2. The lattice has a slot at every tile (and two beyond each end); the astride
    box stands between slots."""
    from vision.rows import row_lattices

    xs = [100, 125, 175, 212.5, 250, 275]
    obb = _row(xs)
    conf = np.array([0.95, 0.9, 0.9, 0.3, 0.95, 0.9])
    (lat,) = row_lattices(obb, conf)
    assert lat.pitch == pytest.approx(25.0)
    first = lat.slot_of[0]                       # slot numbers count from the fitted phase
    assert lat.ks == list(range(first - 2, first + 10))
    assert lat.slots[:, 0] == pytest.approx([50.0 + 25.0 * k for k in range(12)])
    assert lat.slots[:, 1] == pytest.approx([100.0] * 12)
    assert [None if k is None else k - first for k in lat.slot_of] == [0, 1, 3, None, 6, 7]


def test_no_lattice_without_enough_sure_boxes():
    from vision.rows import row_lattices

    obb = _row([100, 125, 150, 175, 200])
    assert row_lattices(obb, np.array([0.9, 0.9, 0.9, 0.3, 0.2])) == []


def test_unsure_boxes_read_unsurely_are_not_tiles():
    """vision.inference.drop_weak: a box the detector scored below 0.5 whose best reading is below the weak
    confidence reads as "not a tile" (one read as none unsurely is made sure: the quarter-turn check then leaves it);
    a sure box or a sure reading stay as they are."""
    from vision.inference import NONE_INDEX, WEAK_SCORE, drop_weak

    probs = np.full((4, NONE_INDEX + 1), 0.0)
    probs[0, 3] = 0.4                      # unsure box, unsure reading -> none
    probs[1, 3] = 0.9                      # unsure box, sure reading
    probs[2, 3] = 0.4                      # sure box, unsure reading
    probs[3, NONE_INDEX] = 0.45            # already none, unsurely -> surely
    scores = np.array([0.35, 0.35, WEAK_SCORE, 0.35])
    out = drop_weak(scores, probs, 0.5)
    assert out.argmax(1).tolist() == [NONE_INDEX, 3, 3, NONE_INDEX]
    assert out[0, NONE_INDEX] == 1.0 and out[0].sum() == 1.0 and out[3, NONE_INDEX] == 1.0 and out[3].sum() == 1.0
    assert np.array_equal(out[1:3], probs[1:3]) and probs[0, NONE_INDEX] == 0.0  # the input is not changed
    assert drop_weak(scores, probs, 0.0) is probs
