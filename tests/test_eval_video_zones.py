"""``eval-video --zones-from-labels``: the tiles read are placed in the zones fitted to the frame's labels, so
what a misfitted wall ring costs is measured apart from what misread tiles cost."""

from __future__ import annotations

import pytest

from assistant.cli import main
from datasets.hand_video import frame_detections, generate_hand_video
from evaluation.video import frame_observations


class _NoWall:
    """A reader that misses every wall tile (as the detector misses dark backs seen from overhead) and reads
    every other tile exactly."""

    def read_frame(self, video, frame):
        return [d for d, lab in zip(frame_detections(video, frame, 0, 0), frame.labels, strict=True)
                if lab["role"][0] != "wall"]


def test_the_wall_ring_comes_from_the_labels_when_asked():
    video = generate_hand_video("sanma", 0)
    frame = video.frames[0]
    labels = frame_observations(video, frames=[frame])[0].zones_fitted
    own = frame_observations(video, frames=[frame], recognizer=_NoWall())[0]
    placed = frame_observations(video, frames=[frame], recognizer=_NoWall(), zones_from_labels=True)[0]
    # no wall read: the ring is the nominal one; placed in the labels' zones it is the ring the labels fit
    assert own.zones_fitted.fitted_from == "default" and own.zones_fitted.wall_sides == ()
    assert placed.zones_fitted.fitted_from == "wall" and placed.zones_fitted.wall_sides == (0, 1, 2)
    assert placed.zones_fitted.wall_outer == labels.wall_outer
    assert own.zones_fitted.wall_outer != labels.wall_outer
    # the tiles are still the reader's: the wall it missed is not in the observation
    assert placed.seat(0).hand == own.seat(0).hand


@pytest.mark.parametrize("extra", [[], ["--from-images", "--live"]])
def test_the_flag_needs_frames_read_each_on_its_own(extra, capsys):
    assert main(["eval-video", "--zones-from-labels", "--hands", "1", *extra]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--zones-from-labels" in err and "--from-images without --live" in err
