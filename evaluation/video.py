"""``mahjong-assistant eval-video``: how often the events of generated whole hands are inferred exactly.

Each hand is played by the engine and filmed (:mod:`datasets.hand_video`); every frame is read the way
``eval-reconstruction`` reads a scene — its tile labels with detector-like box noise, or the rendered image
through the models (``--from-images``, as the live pipeline reads a camera's frames) — rebuilt into a table
observation, and the observations are fed to :class:`vision.follow.EventInferrer`; the inferred log is
compared with the script as the camera sees it (:func:`compare_logs`).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence

import numpy as np

from assistant.variants import variant_names
from evaluation.logs import compare_logs
from vision.follow import EventInferrer
from vision.observation import TableObservation

RULE_SYSTEMS = tuple(variant_names())


def frame_observations(video, frames=None, noise: float = 0.03, seed: int = 0,
                       recognizer=None, zones_from_labels: bool = False) -> list[TableObservation]:
    """Each frame of a generated hand read the way ``eval-reconstruction`` reads a scene: its labels as
    detector-like boxes with ``noise`` (or the rendered image through ``recognizer``), the camera's own
    calibration, the players' positions known. ``zones_from_labels`` (a diagnosis, with ``recognizer``): the
    read tiles are placed in the zones fitted to the frame's labels instead of those fitted to the tiles read,
    so what a misfitted wall ring costs is measured apart from what misread tiles cost."""
    from datasets.hand_video import frame_detections
    from vision.reconstruct import reconstruct

    cal = video.calibration()
    out = []
    for f in (video.frames if frames is None else frames):
        if recognizer is not None and hasattr(recognizer, "read_frame"):   # a cache of the frames' readings
            dets = recognizer.read_frame(video, f)
        elif recognizer is not None:
            dets = recognizer.recognize(video.render(f), variant=video.variant, sticky=True).tiles
        else:
            dets = frame_detections(video, f, noise, seed)
        zones = None
        if zones_from_labels and recognizer is not None:
            zones = reconstruct(frame_detections(video, f, noise, seed), cal, video.variant,
                                positions=video.positions).zones_fitted
        out.append(reconstruct(dets, cal, video.variant, positions=video.positions, zones=zones))
    return out


def infer(video, observations: Sequence[TableObservation]) -> EventInferrer:
    """An inferrer fed with ``observations`` of ``video`` and finished."""
    inf = EventInferrer(video.variant, camera=video.camera, dealer=video.dealer, positions=video.positions)
    for obs in observations:
        inf.feed(obs)
    inf.finish()
    return inf


LIVE_READS = 4   # times the live pipeline reads each frame (``--live``), as the demo film is read


TAPS_PER_FRAME = 2   # corrections a simulated user makes on one frame's page at most


def wrong_tiles(tiles: Sequence[dict], labels: Sequence[dict]) -> list[tuple[float, str, str]]:
    """(confidence, tile id, true code) of the page's tiles whose code differs from the label lying under them
    (nearest label centre within half a tile), least sure first: what a user would see is wrong."""
    if not tiles or not labels:
        return []
    centres = np.array([np.mean(lab["corners"], axis=0) for lab in labels])
    out = []
    for t in tiles:
        if t.get("corrected"):
            continue
        q = np.asarray(t["corners"], np.float64)
        size = 0.5 * float(np.linalg.norm(q[0] - q[2]))
        d = np.linalg.norm(centres - q.mean(0), axis=1)
        k = int(d.argmin())
        if d[k] <= 0.5 * size and labels[k]["code"] != t["code"]:
            out.append((float(t.get("confidence", 1.0)), t["id"], labels[k]["code"]))
    return sorted(out)


def live_inferrer(video, recognizer, reads: int = LIVE_READS, taps: int = 0):
    """The hand's frames through :class:`vision.live.LiveAnalyzer` (tracking, change-driven passes, row completion,
    its own followed game), each frame ``reads`` times, with the camera's calibration and the seating known;
    returns the analyser's event inferrer (an empty one when it followed nothing).

    ``taps``: a simulated user who, whenever the page shows a problem, corrects up to ``TAPS_PER_FRAME`` of the
    tiles shown wrongly (least sure first; the truth from the frame's labels), ``taps`` in the whole hand. The
    corrections go to the analyser as the page's would, and hold from then on. The inferrer gets ``taps_used``."""
    from vision.live import LiveAnalyzer

    la = LiveAnalyzer(video.variant, camera_id=f"eval-video-{video.seed}", recognizer=recognizer,
                      calibration=video.calibration(), positions=video.positions, dealer=video.dealer,
                      full_pass_s=None, full_pass_frames=8)
    fixes: dict[str, str] = {}
    for f in video.frames:
        image = video.render(f)
        for _ in range(reads):
            res = la.process(image, fixes)
        if len(fixes) < taps and res.problems:
            for _, tile_id, code in wrong_tiles([t.to_json() for t in res.tiles], f.labels)[:min(TAPS_PER_FRAME,
                                                                                   taps - len(fixes))]:
                fixes[tile_id] = code
    if la._game is None:
        inf = EventInferrer(video.variant, camera=video.camera, dealer=video.dealer, positions=video.positions)
    else:
        inf = la._game.inferrer
        inf.finish()   # the film is over: the table is cleared (as the frames-path inferrer is finished)
    inf.taps_used = len(fixes)
    return inf


def evaluate_hand(variant: str, seed: int, *, noise: float = 0.03, recognizer=None, short_wall: int | None = None,
                  view: str | None = None, framing: str = "table", live: bool = False, taps: int = 0,
                  zones_from_labels: bool = False) -> dict:
    from datasets.hand_video import generate_hand_video

    video = generate_hand_video(variant, seed, short_wall=short_wall, view=view, framing=framing)
    if live:
        inf = live_inferrer(video, recognizer, taps=taps)
    else:
        observations = frame_observations(video, noise=noise, seed=seed, recognizer=recognizer,
                                          zones_from_labels=zones_from_labels)
        inf = infer(video, observations)
    expected = video.camera_log()
    matched, first = compare_logs(inf.events, expected)
    return {"seed": seed, "view": video.view, "frames": len(video.frames), "events": len(expected),
            "matched": matched, "exact": inf.events == expected, "problems": len(inf.problems),
            "first_difference": first, "first_problem": inf.problems[0].message if inf.problems else "",
            "taps": getattr(inf, "taps_used", 0)}


def _by_view(results: Sequence[dict]) -> dict[str, dict]:
    """Hands, events in order and hands followed to the end, per camera view."""
    out: dict[str, dict] = {}
    for r in results:
        v = out.setdefault(r["view"], {"hands": 0, "events": 0, "matched": 0, "followed_to_end": 0})
        v["hands"] += 1
        v["events"] += r["events"]
        v["matched"] += r["matched"]
        v["followed_to_end"] += r["matched"] == r["events"]
    return out


def run(variants: Sequence[str], hands: int, seed: int = 0, **kw) -> dict:
    out = {}
    for v in variants:
        t0 = time.perf_counter()
        results = [evaluate_hand(v, seed + i, **kw) for i in range(hands)]
        out[v] = {"hands": hands, "exact": sum(r["exact"] for r in results),
                  "events": sum(r["events"] for r in results), "matched": sum(r["matched"] for r in results),
                  "frames": sum(r["frames"] for r in results), "problems": sum(r["problems"] for r in results),
                  "taps": sum(r["taps"] for r in results),
                  "followed_to_end": sum(r["matched"] == r["events"] for r in results),
                  "views": _by_view(results),
                  "failures": [r for r in results if not r["exact"]][:5],
                  "seconds": round(time.perf_counter() - t0, 1)}
    return out


def cmd_eval_video(args: argparse.Namespace) -> int:
    variants = RULE_SYSTEMS if args.variant == "all" else (args.variant,)
    recognizer = None
    if args.from_images:
        from datasets.fonts import warn_without_cjk

        warn_without_cjk()
        try:
            from vision.inference import TileRecognizer

            recognizer = TileRecognizer(threads=args.threads, auto_scale=True)   # as the live pipeline reads
        except (ImportError, FileNotFoundError) as exc:
            print(f"error: --from-images needs the tile recogniser: {exc}", file=sys.stderr)
            return 2
    if args.live and not args.from_images:
        print("error: --live reads the rendered frames: give --from-images too", file=sys.stderr)
        return 2
    if args.taps and not args.live:
        print("error: --taps corrects tiles on the live page: give --from-images --live too", file=sys.stderr)
        return 2
    if args.cache and (not args.from_images or args.live):
        print("error: --cache keeps the readings of frames read each on its own: give --from-images without --live",
              file=sys.stderr)
        return 2
    if args.cache:
        from evaluation.frame_cache import CachedRecognizer

        try:
            recognizer = CachedRecognizer(recognizer, args.cache)
        except ValueError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    if args.taps < 0:
        print(f"error: --taps must be 0 or more, not {args.taps}", file=sys.stderr)
        return 2
    if args.zones_from_labels and (not args.from_images or args.live):
        print("error: --zones-from-labels places the tiles read on each frame on its own: give --from-images "
              "without --live", file=sys.stderr)
        return 2
    res = run(variants, args.hands, args.seed, noise=args.noise, recognizer=recognizer, short_wall=args.short_wall,
              view=args.view, framing=args.framing, live=args.live, taps=args.taps,
              zones_from_labels=args.zones_from_labels)
    if args.json:
        print(json.dumps(res))
        return 0
    if args.cache:
        print(f"frames read {recognizer.misses}, taken from {args.cache} {recognizer.hits}")
    mode = ("rendered images + recogniser" + (f", live pipeline, each frame read {LIVE_READS} times" if args.live
                                              else ", each frame on its own") if args.from_images
            else f"labels, box noise {args.noise:g}")
    if args.zones_from_labels:
        mode += ", zones fitted to the labels"
    if args.taps:
        mode += f", a user correcting up to {args.taps} wrong tiles per hand ({TAPS_PER_FRAME} per frame shown " \
                "with a problem)"
    print(f"event logs inferred from generated hands ({mode}; view {args.view or 'random'}, framing "
          f"{args.framing}; seeds {args.seed}..{args.seed + args.hands - 1})")
    for v, r in res.items():
        pct = 100 * r["matched"] / max(1, r["events"])
        print(f"  {v:<11} exact hands {r['exact']:>3}/{r['hands']:<3}  events {r['matched']:>5}/{r['events']:<5} "
              f"{pct:5.1f}%  frames {r['frames']:>5}  problems {r['problems']:>4}"
              + (f"  taps {r['taps']:>3}" if args.taps else "") + f"  ({r['seconds']} s)")
        print(f"              followed to the end {r['followed_to_end']}/{r['hands']}; per view: " + ", ".join(
            f"{view} {x['matched']}/{x['events']} events, {x['followed_to_end']}/{x['hands']} to the end"
            for view, x in sorted(r["views"].items())))
        if args.verbose or args.from_images:   # where each lost hand went wrong
            for f in r["failures"]:
                print(f"      seed {f['seed']} ({f['view']}): {f['first_difference']}")
                if f["first_problem"]:
                    print(f"        first problem: {f['first_problem'][:300]}")
    return 0


def register(sub) -> None:
    from evaluation.reconstruction import add_generated_options, add_output_options

    p = sub.add_parser("eval-video", help="how often the events of generated hands are inferred exactly")
    add_generated_options(p, "hands", 10)
    p.add_argument("--short-wall", type=int, help="only this many live tiles (shorter hands)")
    p.add_argument("--view", choices=("seat", "overhead", "top"),
                   help="the camera: at the camera player's seat, overhead on that side, or straight down over the "
                        "table (default: seat or overhead, at random per hand)")
    p.add_argument("--framing", choices=("table", "tiles"), default="table",
                   help="the camera sees the whole table (default) or comes as close as the tiles allow")
    p.add_argument("--live", action="store_true",
                   help="with --from-images: read the frames as a camera is read, through the live pipeline "
                        "(tracking, change-driven passes, row completion), each frame four times")
    p.add_argument("--taps", type=int, default=0,
                   help="with --live: a simulated user corrects up to this many wrong tiles per hand on the page "
                        f"(at most {TAPS_PER_FRAME} per frame that shows a problem; the truth from the labels)")
    p.add_argument("--cache", metavar="DIR",
                   help="with --from-images: keep each frame's reading in DIR and take it from there when the frame, "
                        "the models and the reading code are the same (for changes to rebuilding and following)")
    p.add_argument("--zones-from-labels", action="store_true",
                   help="with --from-images (a diagnosis): place the tiles read in the zones fitted to each frame's "
                        "labels, not to the tiles read, to measure what a misfitted wall ring costs")
    add_output_options(p, "print the first difference of failed hands")
    p.set_defaults(func=cmd_eval_video)


__all__ = ["cmd_eval_video", "compare_logs", "evaluate_hand", "frame_observations", "infer", "live_inferrer",
           "register", "run", "wrong_tiles"]
