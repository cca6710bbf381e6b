"""Pre/post-processing of the tile models on hand-made inputs (no model needed)."""

import math

import numpy as np
import pytest

from vision import geometry as G


def test_obb_quad_round_trip_and_corner_order():
    obb = np.array([[100, 50, 30, 40, 0], [10, 20, 30, 40, 90], [0, 0, 20, 10, 217.5]], float)
    q = G.obb_to_quad(obb)
    # upright: TL is up-left, TR up-right, BR down-right, BL down-left (y grows downwards)
    assert np.allclose(q[0], [[85, 30], [115, 30], [115, 70], [85, 70]])
    # top pointing right: TL is at the top-right of the image box, TR bottom-right
    assert np.allclose(q[1], [[30, 5], [30, 35], [-10, 35], [-10, 5]])
    back = G.quad_to_obb(q)
    assert np.allclose(back, obb, atol=1e-9)


def test_rotation_quantisation():
    assert list(G.rotation_of([0, 44, 46, 134, 181, 269, 316, 359])) == [0, 0, 90, 90, 180, 270, 0, 0]


def test_quad_iou_and_matrix():
    a = G.obb_to_quad(np.array([[0, 0, 10, 10, 0]]))[0]
    assert G.quad_iou(a, a) == pytest.approx(1.0)
    b = G.obb_to_quad(np.array([[5, 0, 10, 10, 0]]))[0]
    assert G.quad_iou(a, b) == pytest.approx(50 / 150)
    c = G.obb_to_quad(np.array([[0, 0, 10, 10, 45]]))[0]  # square rotated 45 degrees
    inter = 100 * 4 * (math.sqrt(2) - 1) / 2  # regular octagon of a unit square and its 45-degree turn
    assert G.quad_iou(a, c) == pytest.approx(inter / (200 - inter), rel=1e-6)
    m = G.iou_matrix(np.stack([a, b]), np.stack([a, G.obb_to_quad(np.array([[100, 100, 5, 5, 0]]))[0]]))
    assert m.shape == (2, 2) and m[0, 0] == pytest.approx(1) and m[:, 1].max() == 0


def test_rotated_nms_keeps_best_of_overlaps():
    obb = np.array([[0, 0, 10, 14, 0], [1, 0, 10, 14, 3], [30, 0, 10, 14, 90], [0, 0, 10, 14, 90]], float)
    scores = np.array([0.6, 0.9, 0.5, 0.4])
    keep = G.rotated_nms(G.obb_to_quad(obb), scores, 0.6)
    assert list(keep) == [1, 2, 3]  # box 3 crosses box 1: IoU 100/180 < 0.6
    assert len(G.rotated_nms(np.zeros((0, 4, 2)), np.zeros(0))) == 0


def _quads(rng, n, spread=200.0):
    obb = np.stack([rng.uniform(0, spread, n), rng.uniform(0, spread, n), rng.uniform(5, 60, n),
                    rng.uniform(5, 60, n), rng.uniform(0, 360, n)], 1)
    return G.obb_to_quad(obb)


def test_batched_intersections_match_the_pairwise_clipper():
    rng = np.random.default_rng(3)
    a, b = _quads(rng, 400, 60.0), _quads(rng, 400, 60.0)
    a[:20] = b[:20]                       # identical
    a[20:40] = b[20:40][:, ::-1]          # same quad, other winding
    a[40:60] = (b[40:60] - b[40:60].mean(1, keepdims=True)) * 0.5 + b[40:60].mean(1, keepdims=True)  # nested
    want = np.array([G.convex_intersection(x, y) for x, y in zip(a, b, strict=True)])
    got = G.intersection_areas(a, b)
    assert np.allclose(got, want, atol=1e-9)
    assert np.allclose(got[:40], G.polygon_areas(b[:40])) and np.allclose(got[40:60], G.polygon_areas(a[40:60]))
    assert (got[60:] == 0).sum() > 50 and (got[60:] > 0).sum() > 50        # both cases were exercised
    assert G.intersection_areas(np.zeros((0, 4, 2)), np.zeros((0, 4, 2))).shape == (0,)


def _greedy_nms(quads, scores, thr):
    keep = []
    for i in np.argsort(-scores, kind="stable"):
        if all(G.quad_iou(quads[i], quads[j]) <= thr for j in keep):
            keep.append(int(i))
    return keep


def _contained(quads, scores, cover=0.6, ratio=0.5, min_score=0.4):
    areas = [G.polygon_area(q) for q in quads]
    return [i for i in range(len(quads)) if not any(
        j != i and scores[j] >= min_score and areas[i] <= ratio * areas[j]
        and G.convex_intersection(quads[i], quads[j]) >= cover * areas[i] for j in range(len(quads)))]


@pytest.mark.parametrize("seed", range(6))
def test_vectorised_nms_and_containment_equal_the_plain_definitions(seed):
    rng = np.random.default_rng(seed)
    q = _quads(rng, int(rng.integers(2, 120)))
    s = rng.random(len(q))
    assert list(G.rotated_nms(q, s, 0.3)) == _greedy_nms(q, s, 0.3)
    assert list(G.suppress_contained(q, s)) == _contained(q, s)
    m = G.iou_matrix(q, q[:10])
    assert np.allclose(m, [[G.quad_iou(x, y) for y in q[:10]] for x in q])


def test_box_iou_and_greedy_match():
    a = np.array([[0, 0, 10, 10], [20, 20, 30, 30]], float)
    b = np.array([[0, 0, 10, 10], [21, 20, 31, 30], [100, 100, 101, 101]], float)
    iou = G.box_iou(a, b)
    assert iou[0, 0] == 1 and iou[1, 1] == pytest.approx(90 / 110)
    assert G.greedy_match(iou, 0.5) == [(0, 0), (1, 1)]
    assert G.greedy_match(np.zeros((0, 3)), 0.5) == []


def test_letterbox_shapes_and_scale():
    img = np.zeros((720, 1280, 3), np.uint8)
    out, s = G.letterbox(img, 640)
    assert out.shape == (384, 640, 3) and s == 0.5
    out, s = G.letterbox(np.zeros((1, 1, 3), np.uint8), 640)
    assert out.shape == (640, 640, 3)
    t = G.to_input(out)
    assert t.shape == (1, 3, 640, 640) and t.dtype == np.float32


def _noise_image(h, w, seed):
    import cv2
    rng = np.random.default_rng(seed)
    return cv2.GaussianBlur(rng.integers(0, 256, (h, w, 3), dtype=np.uint8), (3, 3), 0)


@pytest.mark.parametrize("src,size", [((1280, 720), (1184, 666)), ((1920, 1080), (1184, 666)),
                                      ((1280, 720), (933, 525)), ((1184, 666), (592, 333)), ((640, 480), (1280, 960))])
def test_resize_window_gives_the_whole_resize_pixels(src, size):
    import cv2
    img = _noise_image(src[1], src[0], 7)
    rng = np.random.default_rng(3)
    for interp in (cv2.INTER_AREA, cv2.INTER_LINEAR):
        whole = cv2.resize(img, size, interpolation=interp)
        for _ in range(25):
            x0, y0 = int(rng.integers(0, size[0] - 1)), int(rng.integers(0, size[1] - 1))
            x1, y1 = int(rng.integers(x0 + 1, size[0] + 1)), int(rng.integers(y0 + 1, size[1] + 1))
            part = G.resize_window(img, size, (x0, y0, x1, y1), interp)
            assert part.shape == (y1 - y0, x1 - x0, 3)
            assert np.array_equal(part, whole[y0:y1, x0:x1]), (interp, (x0, y0, x1, y1))


def test_resize_plan_spans_whole_periods():
    # 1280 -> 1184 is 40 source pixels to 37: the window 100..200 lies in periods 2..5 (source 80..240, 4 x 37
    # output pixels, the window 26 pixels in); rows 0..37: period 0
    plan = G.resize_plan((1280, 720), (1184, 666), (100, 0, 200, 37))
    assert plan == ((80, 0, 240, 40), (148, 37), (26, 0))
    assert G.resize_plan((1279, 720), (1184, 666), (0, 0, 10, 10)) is None   # 1279 / 1184: no short period


def test_windows_of_a_lazily_letterboxed_frame_are_the_whole_letterbox_pixels():
    from vision.inference import _letterbox, _Letterboxed
    img = _noise_image(720, 1280, 11)
    finer = boxed = None
    chained = []
    for long_side in (1184, 592, 296):
        whole, scale, finer = _letterbox(img, long_side, finer)
        boxed = _Letterboxed(img, long_side, boxed)
        assert boxed.shape == whole.shape[:2] and boxed.scale == scale
        h, w = whole.shape[:2]
        for x0, y0, x1, y1 in [(0, 0, 64, 64), (96, 32, min(w, 416), min(h, 352)), (0, 0, w, h),
                               (w - 64, h - 64, w, h)]:
            assert np.array_equal(boxed.window(x0, y0, x1, y1), whole[y0:y1, x0:x1]), (long_side, x0, y0)
        chained.append(boxed.finer is not None)
    # 592x333 is half of 1184x666 (resized from it, as the whole-frame pass does); 296x166 is no whole part of
    # 592x333: resized from the frame
    assert chained == [False, True, False]


def test_seat_frames_are_the_rotations():
    from vision.zones import from_seat, seat_rotation, to_seat
    pts = np.array([[120.0, -35.5], [-3.25, 410.0], [0.0, 0.0]])
    for k in range(4):
        p = pts @ seat_rotation(k)
        assert np.array_equal(to_seat(pts, k), np.column_stack([p[:, 0], -p[:, 1]]))
        xd = to_seat(pts, k)
        assert np.array_equal(from_seat(xd, k), np.column_stack([xd[:, 0], -xd[:, 1]]) @ seat_rotation(k).T)
        assert np.allclose(from_seat(xd, k), pts)
    assert np.allclose(to_seat(np.array([[0.0, -100.0]]), 0), [[0.0, 100.0]])   # the near player: d = -y


def _maps_with_tiles(tiles, hw=(24, 40)):
    """Detector-like output maps with a peak per (cx, cy, w, h, theta, face_up) in input pixels."""
    m = np.zeros((8,) + hw, np.float32)
    m[0] = -8
    for cx, cy, w, h, th, up in tiles:
        gx, gy = (cx - 1.5) / 4, (cy - 1.5) / 4
        ix, iy = int(round(gx)), int(round(gy))
        m[0, iy, ix] = 4
        m[1, iy, ix], m[2, iy, ix] = gx - ix, gy - iy
        m[3, iy, ix], m[4, iy, ix] = math.log(w), math.log(h)
        m[5, iy, ix], m[6, iy, ix] = math.cos(math.radians(2 * th)), math.sin(math.radians(2 * th))
        m[7, iy, ix] = 5 if up else -5
    return m


def test_decode_maps_recovers_boxes_in_image_pixels():
    tiles = [(41.5, 33.5, 20, 28, 0, True), (101.5, 61.5, 20, 28, 90, False), (121.5, 21.5, 20, 28, 150, True)]
    out = G.decode_maps(_maps_with_tiles(tiles)[None], scale=0.5, threshold=0.5)
    assert len(out["score"]) == 3
    order = np.argsort(out["obb"][:, 0])
    obb = out["obb"][order]
    # input -> image pixels: (x + 0.5) / 0.5 - 0.5
    assert np.allclose(obb[:, 0], [83.5, 203.5, 243.5], atol=1e-3)
    assert np.allclose(obb[:, 2:4], [[40, 56]] * 3, atol=1e-3)
    assert np.allclose(obb[:, 4], [0, 90, 150], atol=1e-3)
    assert list(out["face_up"][order] > 0.5) == [True, False, True]
    empty = G.decode_maps(np.full((8, 10, 10), -9, np.float32), 1.0, 0.3)
    assert empty["quad"].shape == (0, 4, 2)


def test_find_peaks_local_maxima_only():
    h = np.zeros((5, 5))
    h[1, 1], h[1, 2], h[3, 3] = 0.9, 0.8, 0.7
    ys, xs = G.find_peaks(h, 0.5)
    assert list(zip(ys, xs, strict=False)) == [(1, 1), (3, 3)]


def test_warp_crops_is_upright_for_any_rotation():
    img = np.zeros((200, 200, 3), np.uint8)
    img[60:140, 70:130] = 255           # a 60x80 white face ...
    img[60:80, 70:130] = (0, 0, 255)    # ... with a red top band
    up = G.warp_crops(img, np.array([[99.5, 99.5, 60, 80, 0]]))[0]
    assert up.shape == (96, 72, 3)
    assert up[5, 36, 2] > 200 and up[5, 36, 1] < 50       # red at the top
    assert up[90, 36].min() > 200                          # white at the bottom
    rot = np.ascontiguousarray(np.rot90(img, -1))          # turned clockwise: the top now points right
    c = G.warp_crops(rot, np.array([[99.5, 99.5, 60, 80, 90]]))[0]
    assert np.abs(c.astype(int) - up.astype(int)).mean() < 3


def test_softmax_topk():
    p = G.softmax(np.array([[0.0, 1.0, 2.0, 3.0]]))
    assert p.sum() == pytest.approx(1)
    idx, val = G.topk(p, 3)
    assert list(idx[0]) == [3, 2, 1] and val[0, 0] == pytest.approx(p[0, 3])


def test_angle_ok_tolerates_quantisation_boundary():
    from evaluation.recognition import angle_ok

    assert angle_ok(47, 44) and angle_ok(359, 2) and not angle_ok(100, 40)
    assert angle_ok(181, 0, back=True) and not angle_ok(181, 0)
