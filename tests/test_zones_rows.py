"""Zone fitting seen from a low camera: rows that map together on the plane of lying faces are told apart,
a face-up row is no wall where the rule system has no dora indicators, and the far end of a row beyond a
neighbour's wall line is in the outer band."""

from __future__ import annotations

import numpy as np

from vision.zones import TableZones, _split_overlapping, from_seat


def _row(xs, d):
    return np.column_stack([np.asarray(xs, float), np.full(len(xs), float(d))])


def test_overlapping_rows_are_split():
    u = 27.0
    wall = _row(np.arange(-6, 7) * 28.0, 300.0)                       # 13 wall-top tiles
    hand = _row(np.arange(-3, 4) * 28.0 + 13.0, 311.0)                 # 7 standing tiles, a stride apart, between
    melds = _row([150.0, 178.0, 206.0], 325.0)
    seat_xy = np.concatenate([wall, hand, melds])
    seat_xy[:, 1] += np.random.default_rng(0).normal(0, 0.8, len(seat_xy))
    rows = _split_overlapping([(305.0, np.arange(len(seat_xy)))], seat_xy, u)
    assert [len(m) for _, m in rows] == [13, 7, 3]
    assert [round(c) for c, _ in rows] == [300, 311, 325]
    # one row (no two tiles overlap) stays whole, and so do the rows of a table seen from above
    assert [len(m) for _, m in _split_overlapping([(300.0, np.arange(13))], wall, u)] == [13]


def _table(codes_by_row, u=26.0, h=35.0):
    xy, codes = [], []
    for k, (d, codes_row) in codes_by_row.items():
        xs = (np.arange(len(codes_row)) - len(codes_row) / 2) * (u + 1)
        xy.append(from_seat(_row(xs, d), k))
        codes += codes_row
    return np.concatenate(xy), codes


def test_a_row_with_faces_is_no_wall_without_dora_indicators():
    u, h = 26.0, 35.0
    W = 3.45 * u + 3 * (h + 1) + 14 + h           # wall's outer edge (as the generator lays it out)
    rows = {k: (W - h / 2, ["bk"] * 12) for k in (0, 1, 3)}
    rows[2] = (W - h / 2, ["5p", "bk", "bk", "5p"])          # a concealed kong where the wall would be
    xy, codes = _table(rows, u, h)
    z = TableZones.fit(xy, codes, u, h, 4, discard_rows=False)
    assert z.wall_sides == (0, 1, 2, 3)
    z = TableZones.fit(xy, codes, u, h, 4, discard_rows=False, faces_on_wall=False)
    assert z.wall_sides == (0, 1, 3)


def test_far_end_of_a_row_beyond_the_neighbours_wall_is_outer():
    z = TableZones.default(27.0)
    z.wall_centres = {k: z.wall_outer - z.tile_h / 2 for k in range(4)}
    z.outer_limits = {2: z.wall_outer + 70.0}       # the far side's band pushed out (its wall seen at a low angle)
    corner = from_seat(np.array([[z.wall_outer + 100.0, z.wall_outer + 40.0]]), 2)   # bonus tiles of position 2
    pos, zones = z.locate(corner)
    assert (int(pos[0]), zones[0]) == (2, "outer")


def test_a_lone_back_inside_the_ring_does_not_set_the_wall():
    """A stray box of one back inside side 1's ring (the dice, a box astride two tiles) with the real walls
    of sides 0, 2 and 3 seen: the ring is the long rows', and side 1's lone back is no wall row."""
    u, h = 26.0, 35.0
    W = 3.45 * u + 3 * (h + 1) + 14 + h
    rows = {k: (W - h / 2, ["bk"] * 10) for k in (0, 2, 3)}
    rows[1] = (W - h / 2 - 1.6 * h, ["bk"])
    xy, codes = _table(rows, u, h)
    z = TableZones.fit(xy, codes, u, h, 4, discard_rows=False)
    assert z.wall_sides == (0, 2, 3)
    assert abs(z.wall_outer - W) < 1.0
    # the same side with a row of three stacks left at a hand's end is part of the ring, and a ring of short
    # rows only still fits (nothing longer to prefer)
    rows[1] = (W - h / 2, ["bk"] * 3)
    z = TableZones.fit(*_table(rows, u, h), u, h, 4, discard_rows=False)
    assert z.wall_sides == (0, 1, 2, 3)
    z = TableZones.fit(*_table({1: (W - h / 2, ["bk"] * 2)}, u, h), u, h, 4, discard_rows=False)
    assert z.wall_sides == (1,) and abs(z.wall_outer - W) < 1.0


def test_the_last_stacks_of_a_wall_beside_a_face_down_hand_set_the_ring():
    """Hong Kong near a hand's end (eval-video seed 9 on labels before the fix: the ring fitted to a hidden
    seat's face-down hand, the left seat's melds read into the camera player's hand, 6 events lost): two stacks
    left on side 2, a face-down hand of four on side 1 a tile height and more beyond the ring. The two stacks
    set the ring; a face-down hand alone far out does not become the wall while a short row lies on the ring."""
    u, h = 26.0, 35.0
    W = 3.45 * u + 3 * (h + 1) + 14 + h
    rows = {2: (W - h / 2, ["bk"] * 2), 1: (W + 1.4 * h, ["bk"] * 4)}
    z = TableZones.fit(*_table(rows, u, h), u, h, 4, discard_rows=False)
    assert z.wall_sides == (2,) and abs(z.wall_outer - W) < 1.0
    # a lone back inside the ring beside long wall rows still sets nothing (the test above): the long rows lie on
    # the ring, so nothing short is looked for
    rows = {k: (W - h / 2, ["bk"] * 10) for k in (0, 2, 3)}
    rows[1] = (W - h / 2 - 0.5 * h, ["bk"])
    z = TableZones.fit(*_table(rows, u, h), u, h, 4, discard_rows=False)
    assert z.wall_sides == (0, 2, 3) and abs(z.wall_outer - W) < 1.0
