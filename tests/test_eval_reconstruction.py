"""``eval-reconstruction``'s expectation and report: where the players sit when a three-player seat shows no
tile, tiles the camera does not see, and the per-view figures."""

from __future__ import annotations

import argparse

import numpy as np

from datasets.table_scene import generate_table_scene, noisy_detections
from evaluation.reconstruction import (
    compare,
    evaluate_scene,
    expected_observation,
    format_results,
    register,
    run,
    scene_calibration,
)
from vision.reconstruct import possible_seatings, reconstruct, source_position


def _read(variant, seed, view=None, positions=None, drop=None):
    scene = generate_table_scene(variant, seed, view=view)
    labels = [lab for lab in scene.labels if drop is None or not drop(lab)]
    rng = np.random.default_rng(seed + 7_000_003)
    dets = noisy_detections(labels, rng, sigma=0.03)
    obs = reconstruct(dets, scene_calibration(scene, "camera", rng, dets), variant, positions=positions)
    return scene, labels, obs


def test_possible_seatings_and_source_positions():
    assert possible_seatings([0, 1, 2], 3) == [[0, 1, 2]]
    assert possible_seatings([2, 0], 3) == [[0, 1, 2], [0, 2, 3]]
    assert possible_seatings([], 4) == [[0, 1, 2, 3]]
    both = possible_seatings([0, 1], 3)                   # 2 or 3 is occupied: nobody can tell which
    assert source_position(0, 2, both) == 1                # the next player of 0 sits at 1 either way
    assert source_position(0, 1, both) is None             # the previous one at 2 or 3
    assert source_position(1, 1, both) == 0
    assert source_position(3, 1, [[0, 1, 3]]) == 1


def test_a_seat_showing_nothing_leaves_the_sources_that_depend_on_it_open():
    # three-kaki seed 50060 from overhead: position 3 holds a standing hand (seen edge-on, so not at all)
    # and no meld, discard or bonus tile; positions 1 and 3 both look empty
    scene, _, obs = _read("three-kaki", 50060, view="overhead")
    assert [s.position for s in scene.truth.seats] == [0, 2, 3]
    m = obs.seat(2).melds[0]
    assert (m.source, m.source_position) == (2, None)      # @2 from 2 is 3 (seated 0, 2, 3) or 0 (0, 1, 2)
    assert obs.meta["seatings"] == [[0, 1, 2], [0, 2, 3]]
    assert compare(obs, expected_observation(scene, seating="guess")) == []
    assert expected_observation(scene).seat(2).melds[0].source_position == 3    # the generator's seating
    # a match that knows the seating gets the source
    _, _, known = _read("three-kaki", 50060, view="overhead", positions=[0, 2, 3])
    assert known.seat(2).melds[0].source_position == 3
    assert compare(known, expected_observation(scene, seating="known")) == []
    assert evaluate_scene("three-kaki", 50060, view="overhead")["exact"]
    assert evaluate_scene("three-kaki", 50060, view="overhead", seating="known")["exact"]


def test_tiles_the_camera_does_not_see_are_not_expected():
    # take the riichi tile and a dora indicator out of the camera's sight
    scene = generate_table_scene("sanma", 100, view="overhead")
    seat = next(s for s in scene.truth.seats if s.riichi is not None and s.riichi + 1 < len(s.discards))
    k, r = seat.position, seat.riichi

    def hidden(lab):
        return lab["role"][:3] in (["discard", k, r], ["discard", k, r + 1]) or lab["role"][0] == "dora"

    scene, labels, obs = _read("sanma", 100, view="overhead", drop=hidden)
    exp = expected_observation(scene, labels)
    got = exp.seat(k)
    assert got.discards == seat.discards[:r] + seat.discards[r + 2:] and got.riichi is None
    assert exp.dora_indicators == [] and scene.truth.dora
    assert compare(obs, exp) == []


def test_report_per_view():
    res = run(["korean-3p"], 2, 300, view="seat")
    r = res["korean-3p"]
    assert r["by_view"] == {"seat": "2/2"} and r["exact"] == 2
    text = format_results(res, "exact reconstructions")
    assert "seat" in text.splitlines()[1] and "overhead" not in text
    both = format_results({"sanma": {"scenes": 3, "exact": 2, "seconds": 1.0, "failures": [],
                                     "by_view": {"overhead": "2/2", "seat": "0/1"}},
                           "hong-kong": {"scenes": 2, "exact": 2, "seconds": 1.0, "failures": [],
                                         "by_view": {"oblique": "1/1", "seat": "1/1"}}}, "title")
    lines = both.splitlines()
    assert lines[1].split() == ["all", "views", "overhead", "seat", "oblique"]
    assert lines[2].split()[:6] == ["sanma", "2/3", "66.7%", "2/2", "100.0%", "0/1"]
    assert lines[3].split()[:3] == ["hong-kong", "2/2", "100.0%"] and "-" in lines[3].split()
    assert lines[4].split() == ["together", "4/5", "80.0%", "2/2", "100.0%", "1/2", "50.0%", "1/1", "100.0%"]


def test_cli_takes_a_view(capsys):
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    args = parser.parse_args(["eval-reconstruction", "--variant", "sanma", "--view", "seat", "--scenes", "2",
                              "--seed", "300"])
    assert args.func(args) == 0
    out = capsys.readouterr().out.splitlines()
    assert "view: seat" in out[0] and "seeds 300..301" in out[0]
    assert out[1].split() == ["all", "views", "seat"] and out[2].split()[:5] == ["sanma", "2/2", "100.0%", "2/2",
                                                                                   "100.0%"]
