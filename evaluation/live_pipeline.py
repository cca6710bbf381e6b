"""Frames/s and frame-to-state latency of the live pipeline (vision.live.LiveAnalyzer) against the raw recogniser.

    python -m evaluation.live_pipeline [--frames 120] [--scenes 1] [--width 1280 --height 720] [--fps 20]
        [--every 0.5 1.0] [--hand-frames 0] [--noise 2] [--jpeg 85] [--full-every 2] [--legacy] [--no-full-live]

The video (:func:`make_video`): a rendered generated table (``datasets.table_scene``, 60-100 visible tiles)
played like a game: every ``--every`` seconds of video (uniform in the range) a discard appears in a
discard row and a wall tile is drawn (both re-rendered with the same camera, light and table, so only those
tiles change), optionally with a skin-coloured hand reaching to the discard for ``--hand-frames`` frames
before; every frame gets fresh sensor noise and, with ``--jpeg``, its own JPEG compression (a webcam's
MJPEG). ``--scenes`` > 1 cuts to another table (a large change) every frames/scenes frames.

The same run times, on the same frames (each frame through every pipeline in turn, so that the load of a
shared machine weighs on all alike):

* **raw recogniser** (the baseline): ``TileRecognizer.recognize`` on every frame (detector at both scales on
  the whole frame, every crop classified);
* **live, as before** (``--legacy``): ``LiveAnalyzer`` with a full pass on every frame, both detector
  scales and the table rebuilt on every frame (the pipeline before change-driven analysis);
* **live, full pass**: ``LiveAnalyzer(change_driven=False)``: a full pass on every frame, but the coarse
  scale skipped when the calibration allows and the table rebuilt only when a believed tile changed;
* **live**: ``LiveAnalyzer`` as the server runs it (change-driven: no work on a still table, the detector
  only on changed regions, a full pass every ``--full-every`` seconds of video).

For each: frames/s, median / p90 milliseconds per frame and per *changed* frame (a frame whose content
differs from the previous one: the frame-to-state latency, from the frame's arrival to the updated result),
the median per stage, and ratios to the baseline; then how many frames each discard takes to reach the rebuilt
table, each pipeline's tiles against the rendered truth, and the live pipeline's tiles against the full
pass's on every frame.
"""

from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import dataclass, field

import cv2
import numpy as np

SKIN = ((120, 160, 215), (100, 140, 200), (140, 180, 225))


@dataclass
class Video:
    frames: list[np.ndarray]
    changed: list[bool]                 # content differs from the previous frame
    events: list[int] = field(default_factory=list)   # frame index of each discard
    tiles: list[int] = field(default_factory=list)    # visible (labelled) tiles per table at the start
    truth: list[list] = field(default_factory=list)   # per frame: (code, centre) of the tiles on the table
    hand: list[bool] = field(default_factory=list)    # per frame: a hand covers part of the table
    fps: float = 20.0


def play_order(scene, events: int) -> tuple[list[int], list[int]]:
    """(placement indices of the discards to reveal, in play order; wall tiles to draw, in order)."""
    discards = [(p.role[2], p.role[1], i) for i, p in enumerate(scene.placements) if p.role[0] == "discard"]
    walls = [(p.role[1], p.role[2], -p.role[3], i) for i, p in enumerate(scene.placements) if p.role[0] == "wall"]
    reveal = [i for *_, i in sorted(discards)][-events:] if events else []
    draw = [i for *_, i in sorted(walls)][:events]
    return reveal, draw


class SceneRenderer:
    """Renders subsets of one scene's tiles that differ only where the tiles differ: the tile set (each code's
    face drawn once for the whole video), table, light and camera effects come from fixed seeds
    (``datasets.table_scene.render_scene``, with the tile set fixed first)."""

    def __init__(self, scene, seed: int):
        from datasets.art import ArtLibrary
        from datasets.scene import random_tile_set

        self.scene, self.seed = scene, seed
        self.tiles = random_tile_set(np.random.default_rng([seed, 0]), ArtLibrary(None), 0.5)
        self.tiles.dims = scene.dims
        for p in scene.placements:  # draw every code's face now, not when a tile first appears
            self.tiles.face(p.code)

    def __call__(self, keep: list[int]) -> tuple[np.ndarray, int]:
        """(BGR image, [(code, face centre)] of the visible tiles) of the placements ``keep``."""
        from datasets import effects
        from datasets.render import Canvas, render_boxes, shadow_polygons
        from datasets.scene import make_labels, random_light, tile_object

        scene, rng = self.scene, np.random.default_rng([self.seed, 1])
        light, ambient = random_light(rng)
        objects, info = [], {}
        for k, i in enumerate(keep):
            obj, code = tile_object(scene.placements[i], self.tiles, k + 1, scene.camera.position)
            objects.append(obj)
            info[k + 1] = (code, scene.placements[i])
        canvas = Canvas(effects.render_table(scene.camera, rng, scene.geometry.table_half + 60))
        effects.apply_shadows(canvas.image, shadow_polygons(scene.camera, objects, light), rng)
        quads = render_boxes(canvas, scene.camera, objects, light, ambient)
        labels = [(lab.code, np.mean(lab.corners, 0)) for lab in make_labels(canvas, quads, info, 12, 0.1)
                  if lab.occluded <= 0.5]
        return effects.post_process(canvas.image, rng), labels


def _hand(image: np.ndarray, tip: np.ndarray, reach: float, rng: np.random.Generator, colour) -> np.ndarray:
    """A hand-and-arm shape from the nearest image border towards ``tip``, ``reach`` (0-1) of the way."""
    h, w = image.shape[:2]
    x, y = float(tip[0]), float(tip[1])
    d = {(x, h + 40.0): h - y, (x, -40.0): y, (-40.0, y): x, (w + 40.0, y): w - x}
    start = np.array(min(d, key=d.get))
    end = start + (np.asarray(tip, np.float64) - start) * reach
    mask = np.zeros((h, w), np.uint8)
    width = int(0.07 * min(h, w))
    cv2.line(mask, tuple(int(v) for v in start), tuple(int(v) for v in end), 255, width, cv2.LINE_AA)
    cv2.circle(mask, tuple(int(v) for v in end), int(width * 0.75), 255, -1, cv2.LINE_AA)
    a = cv2.GaussianBlur(mask.astype(np.float32) / 255.0, (0, 0), 2.0)[..., None]
    shade = 0.9 + 0.1 * rng.random((h, w, 1), dtype=np.float32)
    return (image * (1 - a) + np.asarray(colour, np.float32) * shade * a).astype(np.float32)


def make_video(n: int, scenes: int = 1, width: int = 1280, height: int = 720, variant: str = "sanma",
               seed: int = 3, fps: float = 20.0, every: tuple[float, float] = (0.5, 1.0), noise: float = 2.0,
               jpeg: int = 85, hand_frames: int = 0, tiles: tuple[int, int] = (60, 100)) -> Video:
    """A video of ``n`` frames of ``scenes`` tables played as described in the module doc."""
    from datasets.table_scene import generate_table_scene

    rng = np.random.default_rng(seed)
    video = Video([], [], fps=fps)
    per = -(-n // scenes)
    table_seed = seed
    for k in range(scenes):
        count = min(per, n - k * per)
        # discard times in this table's frames
        times, t = [], float(rng.uniform(*every)) * fps
        while t < count:
            times.append(int(t))
            t += float(rng.uniform(*every)) * fps
        for _ in range(40):  # a table with enough discards to reveal and 60-100 visible tiles
            scene = generate_table_scene(variant, table_seed, width=width, height=height, render=False)
            table_seed += 1
            reveal, draw = play_order(scene, len(times))
            if len(reveal) < len(times):
                continue
            states = []
            for s in range(len(times) + 1):
                keep = [i for i in range(len(scene.placements)) if i not in reveal[s:] and i not in draw[:s]]
                states.append(keep)
            render = SceneRenderer(scene, table_seed)
            rendered = [render(states[0])]
            if tiles[0] <= len(rendered[0][1]) <= tiles[1] or tiles == (0, 0):
                break
        video.tiles.append(len(rendered[0][1]))
        rendered += [render(keep) for keep in states[1:]]
        renders = [im.astype(np.float32) for im, _ in rendered]
        spots = [scene.camera.project(scene.placements[i].center[None])[0][0] for i in reveal]
        colour = SKIN[int(rng.integers(len(SKIN)))]
        state, prev_key = 0, None
        for f in range(count):
            while state < len(times) and f >= times[state]:
                state += 1
                video.events.append(len(video.frames))
            base, key = renders[state], (k, state)
            upcoming = [e for e in times[state:state + 1] if 0 < e - f <= hand_frames]
            if upcoming:
                reach = 1.0 - (upcoming[0] - f - 1) / max(1, hand_frames)
                base = _hand(base, spots[state], 0.4 + 0.6 * reach, rng, colour)
                key = (k, state, f)
            video.frames.append(camera_frame(base, rng, noise, jpeg))
            video.truth.append(rendered[state][1])
            video.hand.append(bool(upcoming))
            video.changed.append(key != prev_key)
            prev_key = key
    return video


def camera_frame(image: np.ndarray, rng: np.random.Generator, noise: float = 2.0, jpeg: int = 85) -> np.ndarray:
    """A camera's view of a rendered frame: fresh sensor noise and, with ``jpeg``, JPEG compression."""
    frame = np.clip(image + rng.normal(0, noise, image.shape), 0, 255).astype(np.uint8) if noise > 0 else \
        np.clip(np.asarray(image, np.float32) + 0.5, 0, 255).astype(np.uint8)
    if jpeg:
        ok, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, int(jpeg)])
        frame = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return frame


def make_frames(n: int, scenes: int, width: int, height: int, variant: str, seed: int = 3) -> list[np.ndarray]:
    """The frames of :func:`make_video` (kept for callers of the old still-table bench)."""
    return make_video(n, scenes, width, height, variant, seed).frames


def _pct(values, q) -> float:
    return float(np.percentile(values, q)) if len(values) else float("nan")


def _match(a: list[dict], b: list[dict], radius: float) -> tuple[int, int]:
    """(tiles of ``b`` found in ``a`` with the same code within ``radius`` pixels, len(b))."""
    if not a or not b:
        return 0, len(b)
    ca = np.array([np.mean(t["corners"], 0) for t in a])
    used, hit = set(), 0
    for t in b:
        d = np.linalg.norm(ca - np.mean(t["corners"], 0), axis=1)
        for i in np.argsort(d):
            if d[i] > radius:
                break
            if i not in used and a[i]["code"] == t["code"]:
                used.add(i)
                hit += 1
                break
    return hit, len(b)


def run(args) -> dict:
    from vision.inference import TileRecognizer
    from vision.live import LiveAnalyzer

    t0 = time.perf_counter()
    video = make_video(args.frames, args.scenes, args.width, args.height, args.variant, args.seed, args.fps,
                       tuple(args.every), args.noise, args.jpeg, args.hand_frames)
    made = time.perf_counter() - t0
    frames, changed = video.frames, np.array(video.changed)
    rec = TileRecognizer(threads=args.threads)
    rec.recognize(frames[0])  # warm up the sessions

    full_every = max(1, int(round(args.full_every * args.fps))) if args.full_every > 0 else None
    configs = {"live": dict(change_driven=True, full_pass_frames=full_every, full_pass_s=None)}
    if not args.no_full_live:
        configs["full"] = dict(change_driven=False)
    if args.legacy:
        configs["legacy"] = dict(change_driven=False, skip_coarse=False, rebuild_cache=False)
    analyzers = {name: LiveAnalyzer(args.variant, camera_id="bench", recognizer=rec,
                                    calibration_dir="/nonexistent-bench", **kw) for name, kw in configs.items()}
    names = ["raw", *analyzers]
    rows: dict[str, list[dict]] = {k: [] for k in names}
    outputs: dict[str, list[list[dict]]] = {k: [] for k in names}
    discards: dict[str, list] = {k: [] for k in analyzers}
    # every frame goes through every pipeline in turn (rotating the order), so that the load of a shared
    # machine weighs on all of them alike
    for i, f in enumerate(frames):
        for name in names[i % len(names):] + names[:i % len(names)]:
            s = time.perf_counter()
            if name == "raw":
                r = rec.recognize(f)
                took = (time.perf_counter() - s) * 1e3
                rows[name].append({"total_ms": took, "detect_ms": r.timing_ms["detect"],
                                   "classify_ms": r.timing_ms["classify"]})
                outputs[name].append([{"code": t.code, "corners": t.corners} for t in r.tiles])
                continue
            res = analyzers[name].process(f, {})
            took = (time.perf_counter() - s) * 1e3
            rows[name].append({**res.timing, "total_ms": took})
            outputs[name].append([t.to_json() for t in res.tiles])
            discards[name].append(_discards(res.to_json()["observation"]))
    return {"video": video, "made_s": made, "rows": rows, "outputs": outputs, "analyzers": analyzers,
            "changed": changed, "discards": discards}


def _discards(obs: dict | None) -> int | None:
    """Discards in a rebuilt table (None without one)."""
    if not obs:
        return None
    return sum(len(s.get("discards", [])) for s in obs.get("seats", [])) + len(obs.get("centre_discards", []))


def _state_delays(video: Video, discards: list) -> list[int]:
    """Per discard of the video that the pipeline's rebuilt table shows before the next one: the frames from
    the one it appeared in to the first whose table has more discards than just before it."""
    out = []
    events = video.events + [len(video.frames)]
    for e, nxt in zip(events, events[1:], strict=False):
        b = e - 1
        while b > 0 and video.hand[b]:  # the table as it was before the hand came in
            b -= 1
        before = discards[b] if b >= 0 else None
        if before is None:
            continue
        for f in range(e, nxt):
            if discards[f] is not None and discards[f] > before:
                out.append(f - e)
                break
    return out


def _stats(values) -> tuple[float, float]:
    return (statistics.median(values), _pct(values, 90)) if values else (float("nan"), float("nan"))


def report(args, res) -> list[str]:
    video, rows, changed = res["video"], res["rows"], res["changed"]
    n = len(video.frames)
    lines = [f"{n} frames {args.width}x{args.height} at {args.fps:g} fps ({n / args.fps:.1f} s of video), "
             f"{args.scenes} table(s) with {'/'.join(map(str, video.tiles))} visible tiles, variant {args.variant}, "
             f"{len(video.events)} discards (every {args.every[0]:g}-{args.every[1]:g} s), hand frames "
             f"{args.hand_frames}, noise {args.noise:g}, jpeg {args.jpeg or 'off'}; {int(changed[1:].sum())} changed "
             f"frames after the first; video made in {res['made_s']:.1f} s",
             "times: all frames but the first (which also calibrates the table, see 'first'); changed = frames "
             "whose content differs from the previous frame (frame-to-state latency)"]
    names = {"raw": "raw recogniser", "legacy": "live, as before", "full": "live, full pass",
             "live": "live (change-driven)"}
    rest = slice(1, None)
    chg_mask = changed[rest]

    def totals(name, only_changed=False):
        r = rows[name][rest]
        return [x["total_ms"] for x, c in zip(r, chg_mask, strict=True) if c or not only_changed]

    b_all, b_chg = _stats(totals("raw"))[0], _stats(totals("raw", True))[0]
    b_fps = (n - 1) / sum(totals("raw")) * 1e3
    lines.append(f"{'pipeline':21s} {'fps':>6s} {'x':>6s}  {'ms/frame med / p90':>18s} {'x':>6s}  "
                 f"{'changed med / p90':>18s} {'x':>6s}  {'first':>6s}   stage medians ms, all | changed frames")
    for name in ("raw", "legacy", "full", "live"):
        if name not in rows:
            continue
        r = rows[name][rest]
        tot, chg = totals(name), totals(name, True)
        fps = (n - 1) / sum(tot) * 1e3
        stages = [s for s in ("diff_ms", "detect_ms", "classify_ms", "track_ms", "reconstruct_ms") if s in r[0]]
        ch_rows = [x for x, c in zip(r, chg_mask, strict=True) if c]

        def med(rs, s):
            return statistics.median(x.get(s, 0.0) for x in rs) if rs else float("nan")

        st = " ".join(f"{s[:-3]} {med(r, s):.1f}|{med(ch_rows, s):.1f}" for s in stages)
        (m_all, p_all), (m_chg, p_chg) = _stats(tot), _stats(chg)
        lines.append(f"{names[name]:21s} {fps:6.1f} {fps / b_fps:5.2f}x  {m_all:8.1f} / {p_all:7.1f} "
                     f"{b_all / m_all:5.2f}x  {m_chg:8.1f} / {p_chg:7.1f} {b_chg / m_chg:5.2f}x  "
                     f"{rows[name][0]['total_ms']:6.0f}   {st}")
    lines.append("fps: frames / summed processing time; x: ratio to the raw recogniser in this same run (fps "
                 "ratio; baseline ms / pipeline ms)")
    for name in ("legacy", "full", "live"):
        la = res["analyzers"].get(name)
        if la is None:
            continue
        c = la.counts
        passes = ", ".join(f"{p} {c[p]}" for p in ("full", "local", "replay", "none", "dropped") if c[p])
        lines.append(f"{names[name]}: passes {passes}; crops classified {c['classified']} "
                     f"(+{c['replayed']} unchanged readings reused); boxes from the detector {c['detections']}; "
                     f"table rebuilt {c['rebuilt']} times")
    delays = []
    for name in ("legacy", "full", "live"):
        if name in res["discards"]:
            d = _state_delays(video, res["discards"][name])
            delays.append(f"{names[name]} {len(d)} of {len(video.events)}, after "
                          f"{statistics.median(d) if d else float('nan'):g} frames (median, max {max(d, default=0)})")
    lines.append("discards the rebuilt table shows (the tracker believes a code after 3 agreeing frames): "
                 + "; ".join(delays))
    # correctness: against the rendered truth, and the change-driven pipeline against the full pass
    sides = [np.linalg.norm(np.subtract(t["corners"][1], t["corners"][0])) for t in res["outputs"]["raw"][0]]
    radius = float(np.median(sides)) / 2 if sides else 8.0
    parts = []
    for name in ("raw", "legacy", "full", "live"):
        if name not in res["outputs"]:
            continue
        hit = found = truth = 0
        for i, out in enumerate(res["outputs"][name]):
            if i == 0 or video.hand[i]:
                continue
            t_ = [{"code": c, "corners": [xy] * 4} for c, xy in video.truth[i]]
            h_, _ = _match(out, t_, radius)
            hit, found, truth = hit + h_, found + len(out), truth + len(t_)
        parts.append(f"{names[name]} {100 * hit / max(1, truth):.1f}% of the tiles, {100 * hit / max(1, found):.1f}% "
                     f"of its tiles right")
    lines.append(f"vs the rendered truth (same code within half a tile; frames without a hand): {'; '.join(parts)}")
    if "full" in res["outputs"] and "live" in res["outputs"]:
        hit = tot = agree = 0
        for a, b in zip(res["outputs"]["live"][1:], res["outputs"]["full"][1:], strict=True):
            h_, t_ = _match(a, b, radius)
            hit, tot = hit + h_, tot + t_
            agree += int(h_ == t_ and len(a) == len(b))
        self_hit = self_tot = 0
        for a, b in zip(res["outputs"]["full"][1:-1], res["outputs"]["full"][2:], strict=True):
            h_, t_ = _match(a, b, radius)
            self_hit, self_tot = self_hit + h_, self_tot + t_
        lines.append(f"live vs full pass on the same frames: {100 * hit / max(1, tot):.1f}% of the full pass's tiles "
                     f"at the same place with the same code, identical on {agree} of {n - 1} frames (the full "
                     f"pass vs itself one frame later: {100 * self_hit / max(1, self_tot):.1f}%)")
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=120)
    ap.add_argument("--scenes", type=int, default=1, help="tables in the video (a cut to the next is a large change)")
    ap.add_argument("--width", type=int, default=1280)
    ap.add_argument("--height", type=int, default=720)
    ap.add_argument("--variant", default="sanma")
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--fps", type=float, default=20.0, help="frame rate of the video")
    ap.add_argument("--every", type=float, nargs=2, default=(0.5, 1.0), metavar=("MIN_S", "MAX_S"),
                    help="seconds between discards")
    ap.add_argument("--hand-frames", type=int, default=0, help="frames a hand reaches in before each discard")
    ap.add_argument("--noise", type=float, default=2.0, help="sensor noise sigma per frame (grey levels)")
    ap.add_argument("--jpeg", type=int, default=85, help="JPEG quality of every frame (0: no compression)")
    ap.add_argument("--full-every", type=float, default=2.0, help="seconds of video between forced full passes")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--no-full-live", action="store_true", help="skip the full-pass live run (and the comparison)")
    ap.add_argument("--legacy", action="store_true",
                    help="also run the live pipeline as it was before change-driven analysis: a full pass on every "
                         "frame, both detector scales, the table rebuilt on every frame")
    args = ap.parse_args(argv)
    for line in report(args, run(args)):
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
