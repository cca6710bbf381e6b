"""The rows of ``eval-models`` that tell how the models read tiles like real ones (evaluation only).

* real crops placed as on a table: each real-crops test image pasted on a varied surface, turned up to 30
  degrees, cut by a box misfitted to IoU 0.6-0.9, read through the inference crop path;
* close-ups: rows of 2-5 tiles whose faces are 150-500 pixels tall: how many tiles get exactly one box;
* empty backgrounds: 1280x720 frames of cloth, wood, granite, mats, keyboard keys, paper and no tile: false
  boxes per frame;
* held-out face styles: photos of rows of tiles drawn only with art and fonts that training never saw
  (``datasets.crop_synth.HELD_OUT_PACKS/FONTS``): tile recall and reading of the matched tiles;
* enrollment on those styles: per rule system one such set, learnt from one layout photo
  (``vision.tilesets.enroll``, the detector's own boxes), then read in other photos of the same set:
  before and after.

Every figure is deterministic in its seeds (the scenes are rendered here; nothing is read from a test split
but the real-crops test images of the first row).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np

from assistant.variants import variant_names
from vision import geometry as G
from vision.inference import KINDS

PLACED_SEED = 5151
CLOSEUP_SEED = 6161
EMPTY_SEED = 7171
HELD_SEED = 8181
ENROLL_SEED = 9191
ENROLL_VARIANTS = tuple(variant_names())


def _held_bank():
    from datasets.crop_synth import FaceBank

    return FaceBank.cached(held_out=True, per_code=12, bonus_per_code=30)


def eval_placed(rec, crops: np.ndarray, codes: list[str], seed: int = PLACED_SEED) -> dict:
    """Real crops laid on a table and cut by a misfitted, turned box."""
    from datasets.crop_synth import place_face

    if not len(codes):
        return {"n": 0}
    pred = []
    for i, c in enumerate(crops):
        img, box = place_face(c, np.random.default_rng([seed, i]), return_box=True)
        probs, _ = rec.read_boxes(img, box[None])
        pred.append(KINDS[int(probs[0].argmax())])
    return {"n": len(codes), "top1": float(np.mean([p == c for p, c in zip(pred, codes, strict=True)]))}


def _match(pred_quads: np.ndarray, truth: np.ndarray, thr: float = 0.5):
    if not len(pred_quads) or not len(truth):
        return [], np.zeros((len(truth), len(pred_quads)))
    iou = G.iou_matrix(truth, pred_quads)
    return G.greedy_match(iou, thr), iou


def _faces(bank, kinds: list[int], rng, body):
    from datasets.crop_synth import _face_texture

    return [_face_texture(bank.pick(k, rng), body, rng) for k in kinds]


def _inside(q: np.ndarray, size: tuple[int, int]) -> bool:
    return bool((q[:, 0] >= 0).all() and (q[:, 1] >= 0).all() and (q[:, 0] < size[0]).all() and
                (q[:, 1] < size[1]).all())


def eval_closeups(rec, n: int = 24, seed: int = CLOSEUP_SEED, overlay_dir: Path | None = None) -> dict:
    """Rows of 2-5 big tiles (faces 150-500 px): the share of tiles with exactly one box (a box matching it at
    IoU >= 0.5 and no other box whose centre lies on it) and the share read right."""
    from datasets.codes import TILE_CODES
    from datasets.crop_synth import BODIES, FaceBank, render_layout

    bank: FaceBank = _held_bank()
    one = total = right = boxes_total = 0
    kinds = [k for k in range(len(TILE_CODES)) if TILE_CODES[k] != "bk"]
    for i in range(n):
        rng = np.random.default_rng([seed, i])
        body = np.array(BODIES[int(rng.integers(len(BODIES)))], np.float64)
        cols = int(rng.integers(2, 6))
        row_kinds = [int(k) for k in rng.choice(kinds, cols)]
        img, quads = render_layout([_faces(bank, row_kinds, rng, body)], rng, size=(1280, 720),
                                   face_px=float(np.exp(rng.uniform(np.log(150), np.log(500)))), turn=20)
        tiles = rec.recognize(img).tiles
        pq = np.array([t.corners for t in tiles]).reshape(-1, 4, 2)
        boxes_total += len(tiles)
        centres = pq.mean(1) if len(pq) else np.zeros((0, 2))
        for q, k in zip(quads[0], row_kinds, strict=True):
            if not _inside(q, (1280, 720)):
                continue
            total += 1
            on = [j for j in range(len(pq)) if _point_in(centres[j], q)]
            matched = [j for j in on if G.quad_iou(pq[j], q) >= 0.5]
            if len(on) == 1 and matched:
                one += 1
                right += tiles[matched[0]].code == TILE_CODES[k]
        if overlay_dir is not None and i < 4:
            import cv2

            from vision.inference import draw_overlay

            cv2.imwrite(str(overlay_dir / f"closeup-{i:02d}.jpg"), draw_overlay(img, tiles))
    return {"scenes": n, "tiles": total, "one_box": one / max(1, total), "read_right": right / max(1, total),
            "boxes_per_tile": boxes_total / max(1, total)}


def _point_in(p: np.ndarray, quad: np.ndarray) -> bool:
    import cv2

    return cv2.pointPolygonTest(quad.astype(np.float32).reshape(-1, 1, 2), (float(p[0]), float(p[1])), False) >= 0


def eval_empty(rec, n: int = 30, seed: int = EMPTY_SEED, base=None) -> dict:
    """Frames of surfaces with no tile: boxes reported per frame (ours; the baseline's boxes too)."""
    import cv2

    from datasets.crop_synth import _camera, surface

    ours = theirs = 0
    for i in range(n):
        rng = np.random.default_rng([seed, i])
        img = _camera(cv2.resize(surface(rng, 360, 640), (1280, 720), interpolation=cv2.INTER_LINEAR), rng)
        ours += len(rec.recognize(img).tiles)
        if base is not None and base.available:
            theirs += len(base.boxes(img))
    out = {"frames": n, "boxes_per_frame": ours / n}
    if base is not None and base.available:
        out["baseline_boxes_per_frame"] = theirs / n
    return out


def _scene(bank, rng, kinds_pool: list[int], body=None, size=(1280, 960)):
    """A photo of 3-5 rows of 5-11 random tiles of ``kinds_pool`` (faces from ``bank``, one body colour)."""
    from datasets.crop_synth import BODIES, render_layout

    if body is None:
        body = np.array(BODIES[int(rng.integers(len(BODIES)))], np.float64)
    n_rows = int(rng.integers(3, 6))
    rows_k = [[int(k) for k in rng.choice(kinds_pool, int(rng.integers(5, 12)))] for _ in range(n_rows)]
    rows = [_faces(bank, r, rng, body) for r in rows_k]
    img, quads = render_layout(rows, rng, size=size, fill=float(rng.uniform(0.55, 0.95)), turn=25, tilt=0.3)
    return img, [q for r in quads for q in r], [k for r in rows_k for k in r]


def _read_scene(rec, img, quads, kinds, variant=None) -> tuple[int, int, int]:
    """(tiles, found, read right) of one scene."""
    from datasets.codes import TILE_CODES

    tiles = rec.recognize(img, variant=variant).tiles
    pq = np.array([t.corners for t in tiles]).reshape(-1, 4, 2)
    pairs, _ = _match(pq, np.array(quads))
    right = sum(1 for t, p in pairs if tiles[p].code == TILE_CODES[kinds[t]])
    return len(quads), len(pairs), right


def eval_held_out(rec, n: int = 12, seed: int = HELD_SEED) -> dict:
    """Photos of tiles in styles never trained on: recall @0.5 and the matched tiles read right."""
    from datasets.codes import TILE_CODES

    bank = _held_bank()
    kinds = [k for k in range(len(TILE_CODES)) if TILE_CODES[k] != "bk"]
    tot = found = right = 0
    for i in range(n):
        img, quads, ks = _scene(bank, np.random.default_rng([seed, i]), kinds)
        a, b, c = _read_scene(rec, img, quads, ks)
        tot, found, right = tot + a, found + b, right + c
    return {"scenes": n, "tiles": tot, "recall": found / max(1, tot), "read_right": right / max(1, found)}


class _OneSet:
    """A physical set: one face per kind, drawn from the held-out bank."""

    def __init__(self, bank, rng):
        self.inks = {k: bank.pick(k, rng) for k in range(len(bank.by_kind)) if len(bank.by_kind[k])}

    def pick(self, kind, rng):
        return self.inks[kind]


def eval_enrollment(rec_factory, variants=ENROLL_VARIANTS, scenes_per_set: int = 3, seed: int = ENROLL_SEED,
                    network: bool | None = None) -> dict:
    """Per rule system: a held-out-style set enrolled from one layout photo, then read in other photos of the
    same set, before (no set, the rule system's kinds) and after (with the set). ``network``: what enrolling
    adapts (``vision.tilesets.learn``)."""
    from datasets.codes import TILE_CODES
    from datasets.crop_synth import BODIES, render_layout
    from vision import tilesets as T
    from vision.reconstruct import in_set

    bank = _held_bank()
    out = {}
    old = os.environ.get("MAHJONG_ASSISTANT_TILESETS")
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["MAHJONG_ASSISTANT_TILESETS"] = tmp
        try:
            for vi, variant in enumerate(variants):
                from assistant.variants import get_variant

                v = get_variant(variant)
                rng = np.random.default_rng([seed, vi])
                one = _OneSet(bank, rng)
                body = np.array(BODIES[int(rng.integers(len(BODIES)))], np.float64)
                rows = T.layout_rows(variant)
                faces = [_faces(one, [TILE_CODES.index(c) for c in r], rng, body) for r in rows]
                photo, _ = render_layout(faces, rng, size=(1280, 960))
                rec = rec_factory()
                try:
                    rep = T.enroll(f"eval-{variant}", photo, rec, variant, network=network)
                except T.TileSetError as exc:
                    out[variant] = {"error": str(exc)}
                    continue
                kinds = [k for k in range(len(TILE_CODES)) if TILE_CODES[k] != "bk" and in_set(TILE_CODES[k], v)]
                before = [0, 0, 0]
                after = [0, 0, 0]
                with_set = rec_factory()
                with_set.use_tileset(T.TileSet.load(f"eval-{variant}"))
                for j in range(scenes_per_set):
                    img, quads, ks = _scene(one, np.random.default_rng([seed, vi, j]), kinds, body)
                    for acc, r in ((before, rec), (after, with_set)):
                        a, b, c = _read_scene(r, img, quads, ks, variant)
                        acc[0] += a
                        acc[1] += b
                        acc[2] += c
                out[variant] = {"tiles": before[0], "before": before[2] / max(1, before[0]),
                                "after": after[2] / max(1, after[0]), "found": after[1] / max(1, after[0]),
                                "enroll_seconds": rep["seconds"], "kept": bool(rep.get("kept")),
                                "adapts": rep.get("adapts"),
                                "layout_misread": rep["read_wrong_before"]}
        finally:
            if old is None:
                os.environ.pop("MAHJONG_ASSISTANT_TILESETS", None)
            else:
                os.environ["MAHJONG_ASSISTANT_TILESETS"] = old
    ok = [r for r in out.values() if "before" in r]
    if ok:
        n = sum(r["tiles"] for r in ok)
        out["all"] = {"tiles": n, "before": sum(r["before"] * r["tiles"] for r in ok) / n,
                      "after": sum(r["after"] * r["tiles"] for r in ok) / n}
    return out
