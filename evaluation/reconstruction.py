"""``mahjong-assistant eval-reconstruction``: how often a generated table is rebuilt exactly.

For each rule system, scenes from :mod:`datasets.table_scene` (seed ``--seed`` + i; overhead, seat and
oblique cameras that see the whole table, drawn at random per scene or fixed with ``--view``) are
reconstructed and compared with what a perfect reader would report: the generator's table state as far as
its tiles are visible (a tile the labels leave out - too grazing, too small, covered - is not expected;
a standing hand seen edge-on is not expected at all; backs as ``bk``). A scene counts as exact when every
seat's hand, melds (tiles, sideways index, source, source position, added and concealed kongs), discards
and riichi tile, bonus tiles and Norths, the dora indicators and Hong Kong's centre pool all match and no
problem is reported. The report gives the exact scenes per rule system, overall and per camera view.

* ``--from-labels`` (default, fast): the per-tile labels become detector-like records: oriented boxes
  (centre, width, height, up angle) with ``--noise`` x tile size of noise, backs turned 180 degrees at
  random, codes kept (classification is the recogniser's job, measured by ``eval-models``).
* ``--from-images``: scenes are rendered and read by the tile recogniser (``vision.inference``); needs the
  ONNX models.

``--calibration``: ``camera`` (the generator's camera, default), ``corners`` (the four table corners with
2 px of click noise) or ``tiles`` (estimated from the detections; positions are matched up to a quarter
turn, since nothing on the table says which side is the near one from overhead).

``--seating known`` passes the occupied sides to the reconstruction (a three-player match knows where
nobody sits); by default they are guessed from the tiles. When a player shows no tile at all, one frame
cannot tell their side from the empty one: a meld's source position that depends on it is then expected,
and reported, as unknown (None), not guessed.
``--draw DIR`` renders the first scenes and writes reconstruction overlays.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter

import numpy as np

from assistant.variants import variant_names
from vision.calibration import Calibration, estimate_from_tiles, from_camera, from_corners
from vision.observation import MeldObservation, SeatObservation, TableObservation
from vision.reconstruct import reconstruct

RULE_SYSTEMS = tuple(variant_names())


def expected_observation(scene, labels=None, seating: str = "known") -> TableObservation:
    """What an exact reconstruction of ``scene`` reports from the tiles the camera sees (``labels``, default
    the scene's projected labels): hands as far as their tiles are labelled, and discards, bonus tiles,
    dora indicators and Hong Kong's pool without the tiles that are not labelled (too grazing, too small or
    covered). A meld's ``source_position`` needs to know where the players sit: with ``seating="known"``
    (the reconstruction is given the occupied sides) it is the generator's; with ``seating="guess"`` (the
    occupied sides are guessed from the tiles) a three-player table where a player shows no tile at all is
    ambiguous, and a source position that differs between the possible seatings is expected to be left open
    (None), as :func:`vision.reconstruct.reconstruct` reports it."""
    from vision.reconstruct import _canon, possible_seatings, source_position

    truth = scene.truth
    labels = scene.labels if labels is None else labels
    order = [s.position for s in truth.seats]
    hand_labels: dict[int, list[tuple[int, str]]] = {}
    seen: set[tuple] = set()
    shown: set[int] = set()
    for lab in labels:
        role = lab.get("role")
        if not role:
            continue
        seen.add(tuple(role[:3]))
        if role[0] in ("hand", "meld", "discard", "bonus"):
            shown.add(role[1])
        if role[0] == "hand":
            hand_labels.setdefault(role[1], []).append((role[2], lab["code"]))
    seatings = [order] if seating == "known" else possible_seatings(shown & set(order), truth.players)

    def visible(part, position, i):
        return (part, position, i) in seen

    seats = []
    for s in truth.seats:
        hand = [c for _, c in sorted(hand_labels.get(s.position, []))]
        melds = []
        for m in s.melds:
            tiles = [c if up else "bk" for c, up in zip(m.tiles, m.face_up, strict=False)]
            src_pos = source_position(s.position, m.source, seatings) if m.source else None
            melds.append(MeldObservation(m.type, tiles, m.sideways, m.source, src_pos, m.added, m.concealed,
                                         list(m.stands_for), m.notation))
        keep = [k for k in range(len(s.discards)) if visible("discard", s.position, k)]
        riichi = keep.index(s.riichi) if s.riichi in keep else None
        # bonus tiles and Norths lie in one row, bonus tiles first (one index for both)
        bonus = [c for k, c in enumerate(s.bonus) if visible("bonus", s.position, k)]
        norths = [c for k, c in enumerate(s.norths) if visible("bonus", s.position, len(s.bonus) + k)]
        seats.append(SeatObservation(s.position, hand, "", melds, [s.discards[k] for k in keep], riichi, bonus,
                                     norths))
    dora_seen = {r[2] for r in seen if r[0] == "dora"}
    dora = [c for k, c in enumerate(truth.dora) if k in dora_seen]
    centre = [c for k, c in enumerate(truth.centre_discards) if visible("centre", -1, k)]
    return TableObservation(truth.variant, truth.players, seats, dora, sorted(centre, key=_canon))


def compare(obs: TableObservation, exp: TableObservation, rotate: int = 0) -> list[str]:
    """Differences (empty when exact). ``rotate``: obs position = (expected position - rotate) mod 4."""
    diffs = []
    for e in exp.seats:
        pos = (e.position - rotate) % 4
        o = obs.seat(pos)
        if o is None:
            if e.hand or e.melds or e.discards or e.bonus or e.norths:   # a seat showing nothing is not missed
                diffs.append(f"position {e.position}: missing")
            continue
        where = f"position {e.position}"
        if o.hand != e.hand:
            diffs.append(f"{where} hand: {' '.join(o.hand)} != {' '.join(e.hand)}")
        om = [(m.type, m.tiles, m.sideways, m.source, m.added, m.concealed) for m in o.melds]
        em = [(m.type, m.tiles, m.sideways, m.source, m.added, m.concealed) for m in e.melds]
        if om != em:
            diffs.append(f"{where} melds: {[m.notation for m in o.melds]} != {[m.notation for m in e.melds]}")
        else:
            for mo, me in zip(o.melds, e.melds, strict=False):
                if me.source is None:
                    continue
                # None: the frame cannot tell where the player it came from sits (see expected_observation)
                want = None if me.source_position is None else (me.source_position - rotate) % 4
                if mo.source_position != want:
                    diffs.append(f"{where} meld {me.notation}: source position {mo.source_position} != {want}")
        if o.discards != e.discards or o.riichi != e.riichi:
            diffs.append(f"{where} discards: {' '.join(o.discards)} (riichi {o.riichi}) != {' '.join(e.discards)} "
                         f"(riichi {e.riichi})")
        if o.bonus != e.bonus:
            diffs.append(f"{where} bonus: {o.bonus} != {e.bonus}")
        if o.norths != e.norths:
            diffs.append(f"{where} norths: {o.norths} != {e.norths}")
    if obs.dora_indicators != exp.dora_indicators:
        diffs.append(f"dora: {obs.dora_indicators} != {exp.dora_indicators}")
    if obs.centre_discards != exp.centre_discards:
        diffs.append(f"centre: {len(obs.centre_discards)} tiles != {len(exp.centre_discards)}")
    for p in obs.problems:
        diffs.append(f"problem {p.kind}: {p.message}")
    return diffs


def scene_calibration(scene, mode: str, rng: np.random.Generator, detections=None, corner_noise: float = 2.0,
                      tile_width_mm: float | None = None) -> Calibration:
    cam = scene.camera
    size = (cam.width, cam.height)
    if mode == "camera":
        return from_camera(cam.K, cam.R, cam.t, size)
    if mode == "corners":
        half = scene.geometry.table_half
        corners = np.array([[-half, -half, 0], [half, -half, 0], [half, half, 0], [-half, half, 0]], float)
        uv, _ = cam.project(corners)
        uv = uv + rng.normal(0, corner_noise, uv.shape)
        return from_corners(uv, size, 2 * half)
    if mode == "tiles":
        return estimate_from_tiles(detections, size, tile_width_mm=tile_width_mm or 26.0)
    raise ValueError(f"unknown calibration mode {mode!r}")


def evaluate_scene(variant: str, seed: int, *, from_images: bool = False, noise: float = 0.03,
                   calibration: str = "camera", view: str | None = None, recognizer=None,
                   seating: str = "guess") -> dict:
    """Generate, detect (labels + noise, or the recogniser), reconstruct and compare one scene."""
    from datasets.table_scene import generate_table_scene, noisy_detections

    scene = generate_table_scene(variant, seed, view=view, render=from_images)
    rng = np.random.default_rng(seed + 7_000_003)
    if from_images:
        result = recognizer.recognize(scene.image, variant=variant)
        detections = result.tiles
    else:
        detections = noisy_detections(scene.labels, rng, sigma=noise)
    try:
        cal = scene_calibration(scene, calibration, rng, detections)
    except ValueError as exc:
        return {"seed": seed, "view": scene.view, "exact": False, "diffs": [f"calibration failed: {exc}"]}
    positions = [st.position for st in scene.truth.seats] if seating == "known" else None
    obs = reconstruct(detections, cal, variant, positions=positions)
    exp = expected_observation(scene, seating=seating)
    if calibration == "tiles":
        best = None
        for k in range(4):
            d = compare(_renumber(obs, k), exp)
            if best is None or len(d) < len(best):
                best = d
        diffs = best
    else:
        diffs = compare(obs, exp)
    return {"seed": seed, "view": scene.view, "exact": not diffs, "diffs": diffs}


POSITION_COLOURS = [(60, 200, 60), (230, 150, 40), (60, 60, 230), (200, 60, 200)]   # BGR per position


def draw_reconstruction(image: np.ndarray, detections, obs: TableObservation, calibration: Calibration,
                        title: str = "") -> np.ndarray:
    """The image with each detection's quad coloured by position and tagged with its part (H hand, M meld
    tile, + added, D discard, R riichi, B bonus, N North, I dora indicator, C centre, W wall, ? unplaced),
    the zone limits projected onto the table, and the observation in notation."""
    import cv2

    from assistant.variants import get_variant
    from vision.reconstruct import locate_pieces
    from vision.zones import from_seat

    out = image.copy()
    players = obs.players
    v = get_variant(obs.variant)
    _, zones, tw, _ = locate_pieces(detections, calibration, players, discard_rows=v.keeps_discard_rows,
                                    dora=v.has_dora_indicators)
    face_h = 0.72 * tw
    # zone limits: per side, the discard/wall and wall/outer boundaries
    for k in range(4):
        for limit, colour in ((zones.inner_limit_of(k), (200, 200, 200)), (zones.outer_limit_of(k), (255, 255, 255))):
            xs = np.linspace(-limit, limit, 24)
            pts = from_seat(np.column_stack([xs, np.full_like(xs, limit)]), k)
            uv = calibration.table_to_image(pts, z=face_h)
            cv2.polylines(out, [np.round(uv).astype(np.int32)], False, colour, 1, cv2.LINE_AA)
    tags = {"hand": "H", "meld": "M", "discard": "D", "bonus": "B", "north": "N", "dora": "I", "centre": "C",
            "wall": "W", "unplaced": "?", "ignored": "x"}
    for a in obs.assignments:
        det = detections[a["index"]]
        q = np.asarray(det["corners"] if isinstance(det, dict) else det.corners, np.float64)
        pos = a["position"]
        colour = POSITION_COLOURS[pos] if pos is not None and pos >= 0 else (160, 160, 160)
        if a["part"] in ("wall", "ignored"):
            colour = (120, 120, 120)
        cv2.polylines(out, [np.round(q).astype(np.int32)], True, colour, 1, cv2.LINE_AA)
        tag = tags.get(a["part"], "?")
        at = a["at"]
        if a["part"] == "meld" and at is not None:
            tag += f"{at[0]}" + ("+" if at[1] == "added" else "")
        elif a["part"] == "discard" and pos is not None:
            seat = obs.seat(pos)
            tag = ("R" if seat is not None and seat.riichi == at else "D") + str(at)
        elif at is not None and a["part"] not in ("centre",):
            tag += str(at)
        c = q.mean(0)
        for thick, col in ((3, (0, 0, 0)), (1, colour)):
            cv2.putText(out, tag, (int(c[0]) - 7, int(c[1]) + 4), cv2.FONT_HERSHEY_SIMPLEX, 0.33, col, thick,
                        cv2.LINE_AA)
    lines = ([title] if title else []) + obs.summary().splitlines()
    y = 14
    panel = out.copy()
    cv2.rectangle(panel, (0, 0), (min(out.shape[1], 780), 14 * len(lines) + 6), (0, 0, 0), -1)
    out = cv2.addWeighted(panel, 0.55, out, 0.45, 0)
    for line in lines:
        cv2.putText(out, line[:125], (4, y), cv2.FONT_HERSHEY_SIMPLEX, 0.38, (255, 255, 255), 1, cv2.LINE_AA)
        y += 14
    return out


def draw_scenes(variant: str, seeds, folder, noise: float = 0.03, view: str | None = None) -> list[str]:
    """Render scenes, read them from their rendered labels (exact occlusion) with detector noise, and
    write the reconstruction overlays as PNG files. Returns the paths."""
    from pathlib import Path

    import cv2

    from datasets.table_scene import generate_table_scene, noisy_detections

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for seed in seeds:
        scene = generate_table_scene(variant, seed, view=view, render=True)
        rng = np.random.default_rng(seed + 7_000_003)
        dets = noisy_detections(scene.rendered_labels, rng, sigma=noise)
        cal = scene_calibration(scene, "camera", rng, dets)
        obs = reconstruct(dets, cal, variant)
        exp = expected_observation(scene, scene.rendered_labels, seating="guess")
        diffs = compare(obs, exp)
        title = f"{variant} seed {seed} ({scene.view}): " + ("matches the table" if not diffs else
                                                             f"{len(diffs)} difference(s): {diffs[0][:80]}")
        path = folder / f"reconstruction-{variant}-{seed:04d}.png"
        cv2.imwrite(str(path), draw_reconstruction(scene.image, dets, obs, cal, title))
        paths.append(str(path))
    return paths


def _renumber(obs: TableObservation, k: int) -> TableObservation:
    """The observation with every position p renamed (p + k) mod 4."""
    d = obs.to_dict()
    for s in d["seats"]:
        s["position"] = (s["position"] + k) % 4
        for m in s["melds"]:
            if m["source_position"] is not None:
                m["source_position"] = (m["source_position"] + k) % 4
    return TableObservation.from_dict(d)


VIEWS = ("overhead", "seat", "oblique")


def run(variants, scenes: int, seed: int = 0, **kw) -> dict:
    """Evaluate ``scenes`` scenes (seeds ``seed`` ...) per rule system. ``by_view``: exact / scenes per camera
    view (overhead, seat, oblique)."""
    out = {}
    for v in variants:
        t0 = time.perf_counter()
        results = [evaluate_scene(v, seed + i, **kw) for i in range(scenes)]
        exact = sum(r["exact"] for r in results)
        by_view = Counter(r["view"] for r in results)
        ok_view = Counter(r["view"] for r in results if r["exact"])
        kinds = Counter(d.split(":")[0].split(" ", 2)[-1] if d.startswith("position") else d.split(":")[0]
                        for r in results for d in r["diffs"])
        out[v] = {"scenes": scenes, "exact": exact, "fraction": exact / max(1, scenes),
                  "by_view": {k: f"{ok_view[k]}/{by_view[k]}" for k in VIEWS if by_view[k]},
                  "failure_kinds": dict(kinds.most_common(8)),
                  "failures": [r for r in results if not r["exact"]][:5],
                  "seconds": round(time.perf_counter() - t0, 1)}
    return out


def _ratio(text: str) -> tuple[int, int]:
    ok, n = text.split("/")
    return int(ok), int(n)


def _pct(ok: int, n: int) -> str:
    return f"{ok:>4}/{n:<4} {100 * ok / max(1, n):5.1f}%"


def format_results(res: dict, header: str, verbose: bool = False) -> str:
    """The text report: per rule system the exact scenes, overall and per camera view, then per view over
    all rule systems."""
    lines = [header]
    views = [k for k in VIEWS if any(k in r["by_view"] for r in res.values())]
    lines.append(f"  {'':<11} {'all views':<16}" + "".join(f" {k:<16}" for k in views))
    totals = Counter()
    for v, r in res.items():
        cells = []
        for k in views:
            ok, n = _ratio(r["by_view"].get(k, "0/0"))
            totals[k, 0] += ok
            totals[k, 1] += n
            cells.append(f" {_pct(ok, n):<16}" if n else f" {'-':<16}")
        totals["all", 0] += r["exact"]
        totals["all", 1] += r["scenes"]
        lines.append(f"  {v:<11} {_pct(r['exact'], r['scenes']):<16}" + "".join(cells) + f"   ({r['seconds']} s)")
        if verbose:
            for f in r["failures"]:
                lines.append(f"      seed {f['seed']} ({f['view']}): " + "; ".join(f["diffs"][:3]))
    if len(res) > 1:
        lines.append(f"  {'together':<11} {_pct(totals['all', 0], totals['all', 1]):<16}"
                     + "".join(f" {_pct(totals[k, 0], totals[k, 1]):<16}" for k in views))
    return "\n".join(line.rstrip() for line in lines)


def cmd_eval_reconstruction(args: argparse.Namespace) -> int:
    variants = RULE_SYSTEMS if args.variant == "all" else (args.variant,)
    recognizer = None
    if args.from_images:
        from datasets.fonts import warn_without_cjk

        warn_without_cjk()
        try:
            from vision.inference import TileRecognizer

            recognizer = TileRecognizer(threads=args.threads)
        except (ImportError, FileNotFoundError) as exc:
            print(f"error: --from-images needs the tile recogniser: {exc}", file=sys.stderr)
            return 2
    res = run(variants, args.scenes, args.seed, from_images=args.from_images, noise=args.noise,
              calibration=args.calibration, view=args.view, recognizer=recognizer, seating=args.seating)
    if args.draw:
        for v in variants:
            for path in draw_scenes(v, range(args.seed, args.seed + args.draw_count), args.draw, args.noise, args.view):
                print(f"overlay: {path}", file=sys.stderr)
    if args.json:
        print(json.dumps(res))
        return 0
    mode = "images + recogniser" if args.from_images else f"labels, box noise {args.noise:g}"
    seeds = f"{args.seed}..{args.seed + args.scenes - 1}"
    views = f"view: {args.view}" if args.view else "views: random per scene"
    print(format_results(res, f"exact reconstructions ({mode}; calibration: {args.calibration}; seating: "
                              f"{args.seating}; {views}; seeds {seeds})", args.verbose))
    return 0


def add_generated_options(p, count: str, count_default: int) -> None:
    """The options of the evaluations on generated tables (``eval-reconstruction``, ``eval-video``): rule
    system, how many (``--scenes`` / ``--hands``), first seed, labels or rendered images, box noise."""
    p.add_argument("--variant", default="all", choices=("all",) + RULE_SYSTEMS)
    p.add_argument(f"--{count}", type=int, default=count_default)
    p.add_argument("--seed", type=int, default=0)
    g = p.add_mutually_exclusive_group()
    g.add_argument("--from-labels", action="store_true", help="labels with detector-like noise (default)")
    g.add_argument("--from-images", action="store_true", help="render every frame and read it with the models")
    p.add_argument("--noise", type=float, default=0.03, help="box noise, fraction of the tile's pixel size")


def add_output_options(p, verbose: str) -> None:
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--json", action="store_true")
    p.add_argument("-v", "--verbose", action="store_true", help=verbose)


def register(sub) -> None:
    p = sub.add_parser("eval-reconstruction", help="how often generated tables are reconstructed exactly")
    add_generated_options(p, "scenes", 100)
    p.add_argument("--calibration", default="camera", choices=("camera", "corners", "tiles"))
    p.add_argument("--view", choices=("overhead", "seat", "oblique"), help="only this camera view")
    p.add_argument("--seating", choices=("guess", "known"), default="guess",
                   help="three players: guess the empty side from the tiles (default) or take it from the match")
    add_output_options(p, "print the first failures")
    p.add_argument("--draw", metavar="DIR", help="also render the first --draw-count scenes per rule system and "
                                                 "write reconstruction overlays there")
    p.add_argument("--draw-count", type=int, default=3)
    p.set_defaults(func=cmd_eval_reconstruction)
