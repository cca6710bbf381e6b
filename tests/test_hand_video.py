"""Generated videos of whole hands (datasets.hand_video): the random legal play, the camera's view of the
script, and frames that are faithful to the physical table."""

from __future__ import annotations

import functools
from collections import Counter

import numpy as np
import pytest

from assistant.play import (
    ClosedKong,
    Deal,
    Discard,
    Draw,
    ExhaustiveDraw,
    Pass,
    Pong,
    Reveal,
    Ron,
    Tsumo,
    apply,
    replay,
)
from datasets.hand_video import camera_log, generate_hand_video, play_hand, seating
from vision.follow import hand_text

VARIANTS = ("sanma", "korean-3p", "hong-kong", "three-kaki")


@functools.cache
def video(variant: str, seed: int, short_wall: int | None = None):
    """A generated hand (cached: test_vision_events reads the same videos)."""
    return generate_hand_video(variant, seed, short_wall=short_wall)


# --------------------------------------------------------------------------- the script as a camera sees it


SCRIPT = [
    Deal("sanma", ("111m234p678p34s99s", "1p9p1s9s1z2z3z4z5z2p8p2s8s", "1p9p1s9s1z2z3z6z7z3p7p3s7s"),
         dora_indicators="5z"),
    Draw(0, "5s"), Discard(0, "5s"), Pass(2), Draw(1, "6s"), Discard(1, "9s"), Pong(0), Discard(0, "1m"),
    Draw(1, "7p"), Discard(1, "7p"),
]


def test_camera_log_of_a_written_script_seen_by_the_dealer():
    assert camera_log(SCRIPT, camera_seat=0) == [
        Deal("sanma", ("111m234678p3499s", "bk" * 13, "bk" * 13), dora_indicators="5z"),
        Draw(0, "5s"), Discard(0, "5s"), Draw(1, "bk"), Discard(1, "9s"), Pong(0, "99s", "[999s@2]"),
        Discard(0, "1m"), Draw(1, "bk"), Discard(1, "7p"),
    ]


def test_camera_log_of_a_written_script_seen_by_south():
    assert camera_log(SCRIPT, camera_seat=1) == [
        Deal("sanma", ("bk" * 13, "1289p1289s12345z", "bk" * 13), dora_indicators="5z"),
        Draw(0, "bk"), Discard(0, "5s"), Draw(1, "6s"), Discard(1, "9s"), Pong(0, "99s", "[999s@2]"),
        Discard(0, "1m"), Draw(1, "7p"), Discard(1, "7p"),
    ]


def test_hand_text_is_canonical():
    assert hand_text(["9s", "1m", "jk", "0p", "5p", "bk"], ["2g", "1f"]) == "1m05p9sjkbk | 1f2g"
    assert hand_text(["bk"] * 3) == "bkbkbk"


def test_a_hidden_winner_is_revealed_before_its_win():
    v = video("three-kaki", 22)          # a hidden seat's tsumo; three-kaki losers show their hands too
    log = v.camera_log()
    before = v.states[-2]
    assert v.events[-1] == Tsumo(2) and v.camera_seat == 1
    assert log[-3:] == [Reveal(2, hand_text([t.code for t in before.seats[2].hand.concealed]), before.drawn_tile),
                        Reveal(0, hand_text([t.code for t in before.seats[0].hand.concealed])), Tsumo(2)]
    assert log[-3:] == [Reveal(2, "88p44466zjk", "jk"), Reveal(0, "1367p115z"), Tsumo(2)]
    hidden = [e for e in log if isinstance(e, Draw) and e.seat != v.camera_seat]
    assert hidden and all(e.tile.code == "bk" for e in hidden)
    closed = [e for e in log if isinstance(e, ClosedKong)]
    assert closed and all(e.tiles == () or e.seat == v.camera_seat for e in closed)


def test_an_exhaustive_draw_shows_the_ready_hands():
    events, states = play_hand("korean-3p", 2, short_wall=20)
    log = camera_log(events, 1, states)
    tenpai = states[-1].ending.tenpai
    assert log[-1] == ExhaustiveDraw(tenpai)
    shown = [e.seat for e in log if isinstance(e, Reveal)]
    assert shown == [s for s in tenpai if s != 1]


def test_a_camera_win_needs_no_reveal():
    events, states = play_hand("sanma", 59)
    positions, dealer, _ = seating(3, 59)
    camera = [*positions[positions.index(dealer):], *positions[:positions.index(dealer)]].index(0)
    log = camera_log(events, camera, states)
    assert events[-1] == Ron((camera,)) and log[-1] == Ron((camera,))
    assert not any(isinstance(e, (Reveal, Pass)) for e in log)      # sanma losers keep their hands hidden
    assert log[-2] == events[-2] and isinstance(log[-2], Discard)


# --------------------------------------------------------------------------- random legal play


@pytest.mark.parametrize("variant", VARIANTS)
def test_play_hand_is_deterministic_legal_and_ends(variant):
    events, states = play_hand(variant, 3, short_wall=12)
    again, _ = play_hand(variant, 3, short_wall=12)
    assert events == again
    assert replay(variant, events)[-1] == states[-1]
    assert states[-1].ending is not None and states[-1].ending.kind in ("win", "exhaustive_draw")
    assert not any(e.type in ("abortive_draw", "false_win") for e in events)


def test_kan_dora_follows_its_kong():
    events, _ = play_hand("sanma", 55)
    kinds = [e.type for e in events]
    assert "closed_kong" in kinds
    for i, k in enumerate(kinds):
        if k == "dora":
            assert kinds[i - 1] in ("closed_kong", "added_kong", "open_kong")


# --------------------------------------------------------------------------- frames


STILL = ("discard", "meld", "bonus", "wall", "dora")


@pytest.mark.parametrize("variant,seed,short_wall", [("sanma", 55, None), ("hong-kong", 1, 12)])
def test_tiles_keep_their_place_between_frames(variant, seed, short_wall):
    v = video(variant, seed, short_wall)
    moved = 0
    for a, b in zip(v.frames, v.frames[1:], strict=False):
        before = {(tuple(p.role), p.code): p for p in a.placements if p.role[0] in STILL}
        for p in b.placements:
            q = before.get((tuple(p.role), p.code))
            if q is not None and not (np.array_equal(p.center, q.center) and np.array_equal(p.R, q.R)):
                moved += 1
        # Hong Kong's pool: every tile stays where it landed; only a called tile leaves
        pool = [Counter((p.code, p.center.tobytes(), p.R.tobytes()) for p in f.placements if p.role[0] == "centre")
                for f in (a, b)]
        moved += sum((pool[0] - pool[1]).values()) > 1
    assert moved == 0
    if variant == "hong-kong":
        assert any(p.role[0] == "centre" for p in v.frames[-1].placements)


def test_frames_show_the_states_they_film():
    v = video("sanma", 55)
    assert [f.index for f in v.frames] == list(range(len(v.frames)))
    assert all(v.events[f.event_index].type not in ("pass", "riichi") for f in v.frames)
    last = v.frames[-1].truth
    winner = last.seat(v.order[v.events[-1].seats[0]])
    assert winner.hand_mode == "face_up"                      # the winner shows the hand
    assert v.frames[0].truth.seat(0).hand_mode == "face_up"    # the camera player's hand
    assert v.frames[0].truth.dora == [v.events[0].dora_indicators[0].code]


@pytest.mark.parametrize("variant,seed,short_wall", [("sanma", 55, None), ("korean-3p", 26, 12),
                                                      ("hong-kong", 1, 12), ("three-kaki", 22, None)])
def test_exact_labels_reconstruct_to_the_frames_truth(variant, seed, short_wall):
    from evaluation.reconstruction import compare, expected_observation
    from vision.reconstruct import reconstruct

    v = video(variant, seed, short_wall)
    cal = v.calibration()
    for f in v.frames[::6] + v.frames[-1:]:
        dets = [{"code": lab["code"], "corners": lab["corners"], "face_up": lab["face_up"]} for lab in f.labels]
        obs = reconstruct(dets, cal, variant, positions=v.positions)
        assert compare(obs, expected_observation(v.scene(f))) == [], f"frame {f.index}"


def test_video_is_deterministic():
    a = generate_hand_video("three-kaki", 5)
    b = video("three-kaki", 5)
    assert a.events == b.events and a.view == b.view and (a.dealer, a.positions) == (b.dealer, b.positions)
    assert a.frames[-1].labels == b.frames[-1].labels


def test_seats_and_positions():
    v = video("hong-kong", 1, 12)
    assert v.positions == [0, 1, 2, 3] and v.dealer == 2
    assert v.order == [2, 3, 0, 1] and v.camera_seat == 2
    state = apply(None, v.events[0])
    assert len(state.seats) == 4


def test_rendered_frames_keep_the_tables_look():
    """Every frame is the same table: cloth, room, light and each tile's artwork do not change between
    frames (a changing look would read as a change everywhere to the live pipeline)."""
    v = generate_hand_video("sanma", 4, view="overhead", short_wall=6)
    first, last = v.render(v.frames[0]), v.render(v.frames[-1])
    # the room (top-left corner, outside the table) is identical; so is a still tile: the first dora indicator
    assert np.array_equal(first[:12, :12], last[:12, :12])
    dora = [lab for lab in v.frames[0].labels if lab["role"][0] == "dora"][0]
    x0, y0 = np.min(dora["corners"], 0).astype(int)
    x1, y1 = np.max(dora["corners"], 0).astype(int)
    assert np.abs(first[y0:y1, x0:x1].astype(int) - last[y0:y1, x0:x1]).mean() < 2.0


def _tile_widths(v) -> float:
    return float(np.median([np.linalg.norm(np.subtract(lab["corners"][1], lab["corners"][0]))
                            for f in v.frames for lab in f.labels]))


@pytest.mark.parametrize("view", ["seat", "overhead", "top"])
def test_tiles_framing_brings_the_camera_closer(view):
    table = generate_hand_video("sanma", 3, view=view, short_wall=6)
    tiles = generate_hand_video("sanma", 3, view=view, short_wall=6, framing="tiles")
    assert _tile_widths(tiles) > 1.05 * _tile_widths(table)
    # every tile of every frame is still in the picture
    w, h = tiles.camera_model.width, tiles.camera_model.height
    for f in tiles.frames:
        assert len(f.labels) == len(table.frames[f.index].labels)
        for lab in f.labels:
            c = np.asarray(lab["corners"])
            assert c.min() >= 0 and c[:, 0].max() < w and c[:, 1].max() < h
    with pytest.raises(ValueError, match="framing"):
        generate_hand_video("sanma", 3, framing="close")


def test_top_view_looks_down_with_the_camera_player_at_the_bottom():
    v = generate_hand_video("sanma", 3, view="top", short_wall=6)
    labels = v.frames[0].labels
    own = [lab for lab in labels if lab["role"][:2] == ["hand", v.camera]]
    others = [lab for lab in labels if lab["role"][0] == "hand" and lab["role"][1] != v.camera]
    assert len(own) == 13 and others
    y_own = np.mean([np.mean(np.asarray(lab["corners"])[:, 1]) for lab in own])
    assert y_own > 0.75 * v.camera_model.height
    assert all(np.mean(np.asarray(lab["corners"])[:, 1]) < y_own for lab in others)
    assert all(lab["rotation"] == 0 for lab in own)       # the own hand reads upright
    # straight down: the optical axis is the table's -z
    assert np.allclose(v.camera_model.R[2], [0.0, 0.0, -1.0], atol=1e-6)


def test_a_written_script_is_filmed():
    """generate_hand_video(events=...) films that script: its events, one frame per visible state (the pass
    changes nothing the camera sees), and the camera's log of it."""
    v = generate_hand_video("sanma", 0, events=SCRIPT, view="top", framing="tiles")
    assert v.events == SCRIPT
    assert [f.event_index for f in v.frames] == [0, 1, 2, 4, 5, 6, 7, 8, 9]
    assert v.camera_log() == camera_log(SCRIPT, camera_seat=v.order.index(v.camera))
    last = v.frames[-1].truth.seat(v.camera)
    assert last.melds and "".join(last.discards) == "5s1m"
