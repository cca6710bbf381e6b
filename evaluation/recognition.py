"""``mahjong-assistant eval-models [--data DIR] [--json] [--out DIR]``: the shipped models, measured in one run.

(a) synthetic held-out scenes (``datasets.generate --seed 9001``; training used master seed 1): detection
precision/recall at IoU 0.5, classification and orientation accuracy; (b) real-crops test split: top-1
overall and per kind; (c) real-scenes test and valid splits: class-agnostic tile recall (IoU 0.5 of the
axis-aligned box; the 17 suspect stretched images are left out); (d) median latency of the whole
detect+classify path over 50 1280x720 frames. The baseline (PyPI ``mahjong-detector``, YOLO11n ONNX) is
measured in the same run on (a) recall, (c) and (d) when its package can be found (``--baseline DIR``: a
folder holding the unpacked ``mahjong_detector`` package, default: installed package or /tmp/mdet).
Writes ``confusion-real-crops-test.png`` and detection overlays on real photos to ``--out``.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

import cv2
import numpy as np

from vision import geometry as G
from vision.inference import KINDS, TileRecognizer, draw_overlay

SYNTH_EVAL_SEED = 9001
DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
CACHE = Path.home() / ".cache" / "mahjong-assistant"


# --------------------------------------------------------------------------- data


def synth_eval_dir(count: int, seed: int = SYNTH_EVAL_SEED) -> Path:
    """A held-out synthetic set (generated once, cached)."""
    out = CACHE / f"eval-synth-seed{seed}"
    labels = out / "labels.jsonl"
    n = sum(1 for _ in open(labels)) if labels.is_file() else 0
    if n < count:
        subprocess.run([sys.executable, "-m", "datasets.generate", "--out", str(out), "--count", str(count),
                        "--seed", str(seed), "--quiet"], check=True, cwd=Path(__file__).resolve().parents[1])
    return out


def read_synth(folder: Path, count: int) -> list[tuple[np.ndarray, list[dict]]]:
    out = []
    for line in open(folder / "labels.jsonl"):
        rec = json.loads(line)
        out.append((cv2.imread(str(folder / rec["image"])), rec["tiles"]))
        if len(out) >= count:
            break
    return out


DUPLICATE_LABEL_IOU = 0.5   # two labels of one photo overlapping this much box the same tile twice


def distinct_labels(boxes: np.ndarray) -> np.ndarray:
    """``boxes`` (N x 4, x1 y1 x2 y2) without the labels that box a tile an earlier label already boxes (IoU >
    :data:`DUPLICATE_LABEL_IOU`): real-scenes has photos labelled two or three times over (one of its valid
    photos holds 42 labels for 14 tiles), and a tile boxed three times can be found only once."""
    if len(boxes) < 2:
        return boxes
    iou = G.box_iou(boxes, boxes)
    keep: list[int] = []
    for j in range(len(boxes)):
        if all(iou[j, k] <= DUPLICATE_LABEL_IOU for k in keep):
            keep.append(j)
    return boxes[keep]


NOT_TILES_FILE = Path(__file__).with_name("real_scenes_not_tiles.csv")


def labels_on_no_tile(split: str) -> dict[str, set[int]]:
    """Photo name (before its ``_png``/``_jpg`` suffix) -> line numbers of its labels that box no tile, as looked at by
    eye and written down in ``real_scenes_not_tiles.csv`` (the score panel of three game screenshots in valid:
    riichi sticks, round names and counters labelled as tiles)."""
    out: dict[str, set[int]] = {}
    if NOT_TILES_FILE.is_file():
        with open(NOT_TILES_FILE, newline="", encoding="utf-8") as fh:
            for row in csv.DictReader(fh):
                if row["split"] == split:
                    out.setdefault(row["photo"], set()).add(int(row["label"]))
    return out


def _photo_key(name: str) -> str:
    for cut in ("_png_jpg.rf.", "_jpg.rf.", ".rf."):
        if cut in name:
            return name.split(cut)[0]
    return Path(name).stem


def read_real_scenes(root: Path, split: str, distinct: bool = True) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """(name, image, label boxes) of a real-scenes split, the suspect stretched photos and the labels
    :func:`labels_on_no_tile` lists left out; with ``distinct`` each tile's label once (:func:`distinct_labels`)."""
    suspect = set()
    not_tiles = labels_on_no_tile(split)
    sfile = root / "suspect-stretched-images.txt"
    if sfile.is_file():
        suspect = {ln.strip() for ln in sfile.read_text().splitlines() if ln.strip()}
    out = []
    d = root / split / "images"
    if not d.is_dir():
        return out
    for p in sorted(d.iterdir()):
        if f"{split}/images/{p.name}" in suspect:
            continue
        img = cv2.imread(str(p))
        lab = root / split / "labels-tile" / (p.stem + ".txt")
        if img is None or not lab.is_file():
            continue
        h, w = img.shape[:2]
        drop = not_tiles.get(_photo_key(p.name), set())
        b = np.array([list(map(float, ln.split()[1:5])) for ln in lab.read_text().splitlines() if ln.strip()],
                     np.float64).reshape(-1, 4)
        b = b[[i for i in range(len(b)) if i not in drop]].reshape(-1, 4)
        boxes = np.stack([(b[:, 0] - b[:, 2] / 2) * w, (b[:, 1] - b[:, 3] / 2) * h,
                          (b[:, 0] + b[:, 2] / 2) * w, (b[:, 1] + b[:, 3] / 2) * h], 1)
        out.append((p.name, img, distinct_labels(boxes) if distinct else boxes))
    return out


def read_real_crops(root: Path, splits: tuple[str, ...]) -> tuple[np.ndarray, list[str]]:
    xs, codes = [], []
    with open(root / "labels.csv", newline="") as fh:
        for row in csv.DictReader(fh):
            if row["split"] in splits:
                img = cv2.imread(str(root / row["file"]))
                if img is not None:
                    xs.append(cv2.resize(img, G.CROP_SIZE, interpolation=cv2.INTER_AREA))
                    codes.append(row["tile_code"])
    return (np.stack(xs) if xs else np.zeros((0, 96, 72, 3), np.uint8)), codes


# --------------------------------------------------------------------------- baseline


class Baseline:
    """PyPI mahjong-detector (YOLO11n, 34 classes) through its own pre/post-processing code."""

    def __init__(self, folder: str | None):
        cands = [folder] if folder else [None, "/tmp/mdet"]
        self.mod = None
        for c in cands:
            try:
                if c is not None:
                    if not (Path(c) / "mahjong_detector" / "model.onnx").is_file():
                        continue
                    sys.path.insert(0, str(c))
                import importlib

                pred = importlib.import_module("mahjong_detector.predict")  # the package shadows it with a function
                pre = importlib.import_module("mahjong_detector.preprocess")

                self.mod = (pre, pred)
                break
            except ImportError:
                continue
        self.note = "" if self.mod else "mahjong-detector not found (pip download --no-deps mahjong-detector)"

    @property
    def available(self) -> bool:
        return self.mod is not None

    def boxes(self, bgr: np.ndarray) -> np.ndarray:
        from PIL import Image

        pre, pred = self.mod
        img = Image.fromarray(cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB))
        padded, info = pre.preprocess_image(img)
        dets = pred.predict(padded, info)
        return np.array([[d.x1, d.y1, d.x2, d.y2] for d in dets], np.float64).reshape(-1, 4)


# --------------------------------------------------------------------------- metrics


def angle_ok(pred: float, truth: float, back: bool = False) -> bool:
    """The face's up direction is right: within 45 degrees of the label's exact angle (modulo 180 for a
    back). Comparing the quantised 0/90/180/270 values instead would count tiles lying near 45 degrees as
    wrong for a one-degree difference."""
    period = 180.0 if back else 360.0
    d = abs((pred - truth + period / 2) % period - period / 2)
    return d < 45.0


def eval_synth(rec: TileRecognizer, scenes, base: Baseline | None, overlay_dir: Path | None) -> dict:
    tp = fp = req = 0
    cls_ok = ori_ok = fu_ok = n_match = 0
    b_tp = b_req = 0
    gt_cls_ok = gt_flip_ok = gt_n = gt_flip_n = 0
    for si, (img, labels) in enumerate(scenes):
        res = rec.recognize(img)
        gq = np.array([t["corners"] for t in labels]).reshape(-1, 4, 2)
        required = np.array([t["occluded"] <= 0.5 for t in labels], bool)
        pq = np.array([t.corners for t in res.tiles]).reshape(-1, 4, 2)
        iou = G.iou_matrix(pq, gq)
        pairs = G.greedy_match(iou, 0.5)
        matched_p = {p for p, _ in pairs}
        for p, g in pairs:
            if not required[g]:
                continue
            tp += 1
            t, lab = res.tiles[p], labels[g]
            n_match += 1
            cls_ok += t.code == lab["code"]
            fu_ok += t.face_up == lab["face_up"]
            ori_ok += angle_ok(t.angle, lab["angle"], lab["code"] == "bk")
        fp += len(res.tiles) - len(matched_p)
        req += int(required.sum())
        # classifier alone on the ground-truth boxes (the detector's job removed)
        obb = G.quad_to_obb(gq[required])
        if len(obb):
            crops = G.warp_crops(img, obb)
            probs, flip = rec.classify(crops)
            codes = [lab["code"] for lab, r in zip(labels, required, strict=False) if r]
            pk = [KINDS[k] for k in probs.argmax(1)]
            gt_cls_ok += sum(a == b for a, b in zip(pk, codes, strict=False))
            gt_n += len(codes)
            # flip head: a crop turned 180 degrees must be called flipped, the upright one not
            _, flip180 = rec.classify(np.ascontiguousarray(crops[:, ::-1, ::-1]))
            face = np.array([c != "bk" for c in codes])
            gt_flip_ok += int(((flip < 0.5) & face).sum() + ((flip180 > 0.5) & face).sum())
            gt_flip_n += 2 * int(face.sum())
        if base is not None and base.available:
            bb = base.boxes(img)
            gb = G.aabb(gq[required])
            b_tp += len(G.greedy_match(G.box_iou(bb, gb), 0.5))
            b_req += int(required.sum())
        if overlay_dir is not None and si < 3:
            cv2.imwrite(str(overlay_dir / f"synthetic-{si:02d}.jpg"), draw_overlay(img, res.tiles))
    out = {"scenes": len(scenes), "gt_tiles": req,
           "precision": tp / max(1, tp + fp), "recall": tp / max(1, req),
           "cls_acc": cls_ok / max(1, n_match), "orient_acc": ori_ok / max(1, n_match),
           "face_up_acc": fu_ok / max(1, n_match),
           "cls_acc_gt_boxes": gt_cls_ok / max(1, gt_n), "flip_acc_gt_boxes": gt_flip_ok / max(1, gt_flip_n)}
    if base is not None and base.available:
        out["baseline_recall"] = b_tp / max(1, b_req)
    return out


def eval_real_crops(rec: TileRecognizer, root: Path, splits: tuple[str, ...], out_png: Path | None) -> dict:
    x, codes = read_real_crops(root, splits)
    if not codes:
        return {"n": 0}
    probs, _ = rec.classify(x)
    pred = [KINDS[k] for k in probs.argmax(1)]
    per = defaultdict(lambda: [0, 0])
    for p, c in zip(pred, codes, strict=False):
        per[c][0] += p == c
        per[c][1] += 1
    conf = np.zeros((len(KINDS), len(KINDS)), int)
    for p, c in zip(pred, codes, strict=False):
        conf[KINDS.index(c), KINDS.index(p)] += 1
    if out_png is not None:
        cv2.imwrite(str(out_png), confusion_image(conf, f"real crops {'+'.join(splits)}: rows true, cols predicted"))
    errors = [f"{c}->{p}" for p, c in zip(pred, codes, strict=False) if p != c]
    return {"n": len(codes), "top1": float(np.mean([p == c for p, c in zip(pred, codes, strict=False)])),
            "per_kind": {k: v[0] / v[1] for k, v in sorted(per.items(), key=lambda kv: KINDS.index(kv[0]))},
            "errors": errors}


def confusion_image(conf: np.ndarray, title: str) -> np.ndarray:
    used = np.nonzero(conf.sum(0) + conf.sum(1))[0]
    m = conf[np.ix_(used, used)]
    cell, left, top = 18, 40, 60
    n = len(used)
    img = np.full((top + n * cell + 10, left + n * cell + 10, 3), 255, np.uint8)
    rows = m.sum(1, keepdims=True).clip(min=1)
    for i in range(n):
        for j in range(n):
            v = m[i, j] / rows[i, 0]
            if m[i, j]:
                col = (int(255 * (1 - v)), int(255 * (1 - v)), 255) if i != j else \
                    (int(255 * (1 - v)), 255, int(255 * (1 - v)))
                x0, y0 = left + j * cell, top + i * cell
                cv2.rectangle(img, (x0, y0), (x0 + cell - 1, y0 + cell - 1), col, -1)
                cv2.putText(img, str(m[i, j]), (left + j * cell + 3, top + i * cell + 13), cv2.FONT_HERSHEY_PLAIN,
                            0.8, (0, 0, 0), 1)
        cv2.putText(img, KINDS[used[i]], (2, top + i * cell + 13), cv2.FONT_HERSHEY_PLAIN, 0.9, (0, 0, 0), 1)
        lab = np.full((cell, 30, 3), 255, np.uint8)
        cv2.putText(lab, KINDS[used[i]], (1, 13), cv2.FONT_HERSHEY_PLAIN, 0.9, (0, 0, 0), 1)
        lab = cv2.rotate(lab, cv2.ROTATE_90_COUNTERCLOCKWISE)
        img[top - 30:top, left + i * cell:left + (i + 1) * cell] = lab
    for k in range(n + 1):
        cv2.line(img, (left, top + k * cell), (left + n * cell, top + k * cell), (220, 220, 220), 1)
        cv2.line(img, (left + k * cell, top), (left + k * cell, top + n * cell), (220, 220, 220), 1)
    cv2.putText(img, title, (4, 14), cv2.FONT_HERSHEY_PLAIN, 1.0, (0, 0, 0), 1)
    return img


def _left_out(v: dict) -> str:
    """', N repeated labels and M labels on no tile left out' for a real-scenes row, or ''."""
    parts = [f"{v[k]} {what}" if v[k] != 1 else f"1 {one}"
             for k, what, one in (("duplicate_labels", "repeated labels", "repeated label"),
                                  ("labels_on_no_tile", "labels on no tile", "label on no tile")) if v.get(k)]
    return f", {' and '.join(parts)} left out" if parts else ""


def eval_real_scenes(rec: TileRecognizer, root: Path, split: str, base: Baseline | None,
                     overlay_dir: Path | None, n_overlays: int) -> dict:
    data = read_real_scenes(root, split, distinct=False)
    hit = tot = b_hit = duplicates = 0
    for i, (_name, img, labels) in enumerate(data):
        gt = distinct_labels(labels)
        duplicates += len(labels) - len(gt)
        res = rec.recognize(img)
        pb = G.aabb(np.array([t.corners for t in res.tiles]).reshape(-1, 4, 2))
        hit += len(G.greedy_match(G.box_iou(pb, gt), 0.5))
        tot += len(gt)
        if base is not None and base.available:
            b_hit += len(G.greedy_match(G.box_iou(base.boxes(img), gt), 0.5))
        if overlay_dir is not None and i < n_overlays:
            vis = draw_overlay(img, res.tiles)
            for b in gt:
                cv2.rectangle(vis, (int(b[0]), int(b[1])), (int(b[2]), int(b[3])), (255, 0, 255), 1)
            cv2.imwrite(str(overlay_dir / f"real-{split}-{i:02d}.jpg"), vis)
    names = {_photo_key(name) for name, _, _ in data}
    on_no_tile = sum(len(v) for k, v in labels_on_no_tile(split).items() if k in names)
    out = {"images": len(data), "boxes": tot, "recall": hit / max(1, tot), "duplicate_labels": duplicates,
           "labels_on_no_tile": on_no_tile}
    if base is not None and base.available:
        out["baseline_recall"] = b_hit / max(1, tot)
    return out


def eval_latency(rec: TileRecognizer, frames: list[np.ndarray], base: Baseline | None, n: int = 50) -> dict:
    frames = [cv2.resize(f, (1280, 720)) if f.shape[:2] != (720, 1280) else f for f in frames]
    rec.recognize(frames[0])  # warm-up
    times, counts = [], []
    for i in range(n):
        f = frames[i % len(frames)]
        t0 = time.perf_counter()
        r = rec.recognize(f)
        times.append((time.perf_counter() - t0) * 1e3)
        counts.append(len(r.tiles))
    out = {"frames": n, "median_ms": float(np.median(times)), "p90_ms": float(np.percentile(times, 90)),
           "mean_tiles": float(np.mean(counts)), "load_average": os.getloadavg()[0], "cpus": os.cpu_count()}
    if base is not None and base.available:
        base.boxes(frames[0])
        bt = []
        for i in range(n):
            t0 = time.perf_counter()
            base.boxes(frames[i % len(frames)])
            bt.append((time.perf_counter() - t0) * 1e3)
        out["baseline_median_ms"] = float(np.median(bt))
    return out


# --------------------------------------------------------------------------- report


def format_table(r: dict) -> str:
    def pct(v):
        return "-" if v is None else f"{100 * v:.1f}%"

    prev = r.get("previous")

    def rows_of(x: dict) -> list[tuple[str, str, str | None, str]]:
        s, rc, sc, lat = x["synthetic"], x["real_crops_test"], x["real_scenes"], x["latency"]
        has_b = "baseline_recall" in s
        out = [
            ("(a) synthetic held-out", f"{s['scenes']} scenes, {s['gt_tiles']} tiles", None, ""),
            ("    detection precision @0.5", pct(s["precision"]), "-", ""),
            ("    detection recall @0.5", pct(s["recall"]), pct(s.get("baseline_recall")) if has_b else "n/a", ""),
            ("    classification (matched)", pct(s["cls_acc"]), "-", ">= 99.5%"),
            ("    orientation (up within 45 deg)", pct(s["orient_acc"]), "-", ">= 99.5%"),
            ("    face-up / face-down", pct(s["face_up_acc"]), "-", ""),
            ("    classifier on GT boxes", pct(s["cls_acc_gt_boxes"]), "-", ""),
            ("    flip head on GT boxes", pct(s["flip_acc_gt_boxes"]), "-", ""),
            ("(b) real crops test top-1", f"{pct(rc.get('top1'))} ({rc.get('n', 0)})", "n/a", ">= 97%"),
            ("    worst kind", rc.get("worst", "-") if "worst" in rc else _worst(rc), "-", ">= 90% each"),
        ]
        if "real_crops_placed" in x:
            pl = x["real_crops_placed"]
            out.append(("(b) real crops test placed on a table", f"{pct(pl.get('top1'))} ({pl.get('n', 0)})", "n/a",
                        ">= 95%"))
        for split in ("test", "valid"):
            v = sc[split]
            out.append((f"(c) real scenes {split} recall",
                        f"{pct(v['recall'])} ({v['boxes']} boxes/{v['images']} img"
                        + _left_out(v) + ")",
                        pct(v.get("baseline_recall")) if "baseline_recall" in v else "n/a", ">= 95%"))
        if "closeups" in x:
            c = x["closeups"]
            out.append(("(e) close-ups: tiles with one box", f"{pct(c['one_box'])} ({c['tiles']} tiles)", "-",
                        ">= 99%"))
            out.append(("    close-ups: read right", pct(c["read_right"]), "-", ""))
            e = x["empty"]
            out.append(("(f) empty backgrounds: boxes/frame", f"{e['boxes_per_frame']:.2f} ({e['frames']} frames)",
                        f"{e['baseline_boxes_per_frame']:.2f}" if "baseline_boxes_per_frame" in e else "n/a",
                        "<= 0.1"))
            h = x["held_out"]
            out.append(("(g) held-out face styles: recall", f"{pct(h['recall'])} ({h['tiles']} tiles)", "-", ""))
            out.append(("    held-out styles: read right", pct(h["read_right"]), "-", ">= 97%"))
            en = x["enrollment"].get("all")
            if en:
                out.append(("(h) enrollment (held-out styles): before", f"{pct(en['before'])} ({en['tiles']} tiles)",
                            "-", ""))
                out.append(("    after one layout photo", pct(en["after"]), "-", ">= 99.5%"))
        out.append(("(d) latency 1280x720 median", f"{lat['median_ms']:.1f} ms ({lat['mean_tiles']:.0f} tiles)",
                    f"{lat['baseline_median_ms']:.1f} ms" if "baseline_median_ms" in lat else "n/a",
                    "<= baseline"))
        return out

    rows = rows_of(r)
    prows = {a: b for a, b, *_ in rows_of(prev)} if prev else {}
    w0 = max(len(a) for a, *_ in rows) + 2
    w1 = max(len(str(b)) for _, b, *_ in rows) + 2
    wp = max([len(str(v)) for v in prows.values()] + [8]) + 2 if prev else 0
    head = f"{'metric':<{w0}}{'ours':<{w1}}" + (f"{'previous':<{wp}}" if prev else "") + f"{'baseline':<12}target"
    lines = [head, "-" * (w0 + w1 + wp + 22)]
    for a, b, c, d in rows:
        pv = f"{prows.get(a, ''):<{wp}}" if prev else ""
        lines.append(f"{a:<{w0}}{str(b):<{w1}}{pv}{'' if c is None else c:<12}{d or ''}")
    rc = r["real_crops_test"]
    if rc.get("per_kind"):
        items = [f"{k} {100 * v:.0f}" for k, v in rc["per_kind"].items()]
        lines.append("real crops test per kind (%): " + ", ".join(items))
    if r.get("real_crops_trainval"):
        lines.append(f"real crops train+val (validation only) top-1: {pct(r['real_crops_trainval']['top1'])}"
                     f" ({r['real_crops_trainval']['n']})")
    if "enrollment" in r:
        per = [f"{v} {pct(e['before'])} -> {pct(e['after'])} ({e['enroll_seconds']:.1f} s)"
               for v, e in r["enrollment"].items() if v != "all" and "before" in e]
        per += [f"{v}: {e['error']}" for v, e in r["enrollment"].items() if "error" in e]
        lines.append("enrollment per rule system: " + "; ".join(per))
    lines += format_real_tiles(r)
    lat = r["latency"]
    lines.append(f"latency measured with load average {lat['load_average']:.1f} on {lat['cpus']} CPUs "
                 f"(p90 {lat['p90_ms']:.0f} ms)")
    if prev:
        lines.append(f"previous: the models in {r.get('previous_dir')}")
    lines.append(f"baseline: {r['baseline']}")
    return "\n".join(lines)


def _worst(rc: dict) -> str:
    if not rc.get("per_kind"):
        return "-"
    k, v = min(rc["per_kind"].items(), key=lambda kv: kv[1])
    return f"{k} {100 * v:.0f}%"


def run(args: argparse.Namespace) -> dict:
    data = Path(args.data)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    paths = {k: v for k, v in (("detector", getattr(args, "detector", None)),
                                ("classifier", getattr(args, "classifier", None))) if v}
    # the models themselves, no user head
    if getattr(args, "scales", None):
        paths["scales"] = tuple(int(s) for s in args.scales.split(","))
    rec = TileRecognizer(threads=args.threads, head=None, auto_scale=getattr(args, "auto_scale", False),
                         fill_rows=not getattr(args, "no_fill_rows", False), **paths)
    if getattr(args, "real_only", False):
        return run_real_tiles(args, rec, data, out)
    base = None if args.no_baseline else Baseline(args.baseline)
    synth_dir = Path(args.synth) if args.synth else synth_eval_dir(args.synth_count)
    scenes = read_synth(synth_dir, args.synth_count)
    r = {"synthetic": eval_synth(rec, scenes, base, out)}
    rc = eval_real_crops(rec, data / "real-crops", ("test",), out / "confusion-real-crops-test.png")
    if rc.get("per_kind"):
        k, v = min(rc["per_kind"].items(), key=lambda kv: kv[1])
        rc["worst"] = f"{k} {100 * v:.0f}%"
    r["real_crops_test"] = rc
    r["real_crops_trainval"] = {k: v for k, v in eval_real_crops(rec, data / "real-crops", ("train", "val"),
                                                                   None).items() if k in ("n", "top1")}
    r["real_scenes"] = {s: eval_real_scenes(rec, data / "real-scenes", s, base, out, 10 if s == "test" else 6)
                        for s in ("test", "valid")}
    r["latency"] = eval_latency(rec, [img for img, _ in scenes[:50]], base, 50)
    r.update(real_rows(rec, data, base, out, lambda: TileRecognizer(threads=args.threads, head=None, **paths)))
    r["real_tiles"] = real_tiles_rows(rec, data, out)
    r["scales"] = list(rec.scales)
    prev = getattr(args, "previous", None)
    if prev:
        pdir = Path(prev)
        ppaths = _previous_paths(pdir)
        prec = TileRecognizer(threads=args.threads, head=None, **ppaths)
        rp = {"synthetic": eval_synth(prec, scenes, None, None),
              "real_crops_test": eval_real_crops(prec, data / "real-crops", ("test",), None),
              "real_scenes": {s: eval_real_scenes(prec, data / "real-scenes", s, None, None, 0)
                              for s in ("test", "valid")},
              "latency": eval_latency(prec, [img for img, _ in scenes[:50]], None, 50)}
        rp.update(real_rows(prec, data, None, None, lambda: TileRecognizer(threads=args.threads, head=None, **ppaths)))
        rp["real_tiles"] = real_tiles_rows(prec, data, None)
        r["previous"] = rp
        r["previous_dir"] = str(pdir)
    if base is None:
        r["baseline"] = "skipped (--no-baseline)"
    elif base.available:
        r["baseline"] = ("mahjong-detector 0.0.6 (YOLO11n ONNX, 640x640 grey input) via its own pre/post-processing, "
                         "conf 0.5, NMS 0.5; boxes compared class-agnostically")
    else:
        r["baseline"] = base.note
    return r


def _previous_paths(pdir: Path) -> dict[str, Path]:
    ppaths = {"detector": pdir / "detector.onnx", "classifier": pdir / "classifier.onnx"}
    missing = [str(v) for v in ppaths.values() if not v.is_file()]
    if missing:
        raise FileNotFoundError(f"--previous {pdir}: {', '.join(missing)} not found")
    return ppaths


def real_tiles_rows(rec: TileRecognizer, data: Path, out: Path | None) -> dict:
    """Rows (i): real-tiles valid (all photos) and test (without the photos that are also real-scenes photos),
    read through the whole path. Empty when the data set is not there."""
    from evaluation.real_tiles import eval_real_tiles, flip_accuracy, unsure_share, upright_crops

    root = data / "real-tiles"
    if not (root / "classes.txt").is_file():
        return {}
    r = {"valid": eval_real_tiles(rec, root, "valid", skip_real_scenes=False),
         "test": eval_real_tiles(rec, root, "test", skip_real_scenes=True, overlay_dir=out,
                                 n_overlays=8 if out is not None else 0)}
    for split, skip in (("valid", False), ("test", True)):
        r[split]["flip"] = flip_accuracy(rec, upright_crops(root, split, skip))
        r[split]["quarter"] = unsure_share(rec, upright_crops(root, split, skip, quarter=True))
    x, _ = read_real_crops(data / "real-crops", ("test",))
    r["real_crops_flip"] = flip_accuracy(rec, x)
    return r


def run_real_tiles(args: argparse.Namespace, rec: TileRecognizer, data: Path, out: Path) -> dict:
    """``--real-only``: the real photos' rows alone (real-tiles valid and test, real-scenes valid recall, real-crops
    train+val as the trainer selects on them), for the models and ``--previous``: what chooses a model."""
    def rows(m: TileRecognizer, o: Path | None) -> dict:
        return {"real_tiles": real_tiles_rows(m, data, o),
                "real_scenes_valid": eval_real_scenes(m, data / "real-scenes", "valid", None, None, 0),
                "real_crops_trainval": {k: v for k, v in eval_real_crops(m, data / "real-crops", ("train", "val"),
                                                                           None).items() if k in ("n", "top1")}}

    r = {**rows(rec, out), "real_only": True}
    if not r["real_tiles"]:
        raise FileNotFoundError(f"{data / 'real-tiles'}: the real-tiles data set is not there (--data)")
    if getattr(args, "previous", None):
        ppaths = _previous_paths(Path(args.previous))
        r["previous"] = rows(TileRecognizer(threads=args.threads, head=None, **ppaths), None)
        r["previous_dir"] = str(args.previous)
    return r


def format_real_tiles(r: dict) -> list[str]:
    from evaluation.real_tiles import format_rows, per_kind_line

    rt = r.get("real_tiles") or {}
    prt = (r.get("previous") or {}).get("real_tiles") or {}
    rows = []
    for split in ("valid", "test"):
        if split in rt:
            targets = (">= 98%", ">= 97%", ">= 0.95", "", ">= 90% each") if split == "test" else ()
            rows += [(a, b, c, targets[i] if i < len(targets) else "")
                     for i, (a, b, c) in enumerate(format_rows(rt[split], prt.get(split)))]
    if "real_crops_flip" in rt:
        pf = prt.get("real_crops_flip")
        rows.append(("(j) flip head, real crops test (and turned)",
                     f"{100 * rt['real_crops_flip']['accuracy']:.1f}% ({rt['real_crops_flip']['n']} crops)",
                     f"{100 * pf['accuracy']:.1f}% ({pf['n']} crops)" if pf else "", ""))
    lines = [f"{a:<46}{b:<30}{c:<30}{d}" for a, b, c, d in rows]
    for split in ("valid", "test"):
        if split in rt:
            lines.append(per_kind_line(rt[split]))
            if split in prt:
                lines.append("previous: " + per_kind_line(prt[split]))
    if "test" in rt:
        lines.append("real tiles test leaves out the photos that are also real-scenes photos (the path was tuned "
                     "on real-scenes valid); precision counts only tiles reported on labelled regions")
    return lines


def real_rows(rec: TileRecognizer, data: Path, base, out: Path | None, factory) -> dict:
    """The rows of :mod:`evaluation.sets`: real crops placed as on a table, close-ups, empty backgrounds,
    held-out face styles, enrollment on them."""
    from evaluation import sets as E

    x, codes = read_real_crops(data / "real-crops", ("test",))
    return {"real_crops_placed": E.eval_placed(rec, x, codes),
            "closeups": E.eval_closeups(rec, overlay_dir=out),
            "empty": E.eval_empty(rec, base=base),
            "held_out": E.eval_held_out(rec),
            "enrollment": E.eval_enrollment(factory)}


def cmd_eval(args: argparse.Namespace) -> int:
    from datasets.fonts import warn_without_cjk

    warn_without_cjk()   # the synthetic held-out scenes are rendered here
    try:
        r = run(args)
    except FileNotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(r))
    elif r.get("real_only"):
        head = f"{'metric':<46}{'ours':<30}{'previous':<30}target"
        prev = r.get("previous") or {}
        extra = []
        for name, key, field in (("(c) real scenes valid recall", "real_scenes_valid", "recall"),
                                 ("    real crops train+val (validation) top-1", "real_crops_trainval", "top1")):
            p = prev.get(key, {}).get(field)
            ours = f"{100 * r[key][field]:.1f}%"
            if key == "real_scenes_valid":
                ours += f" ({r[key]['boxes']} boxes)"
            extra.append(f"{name:<46}{ours:<30}{'' if p is None else f'{100 * p:.1f}%'}")
        print("\n".join([head, "-" * len(head)] + extra + format_real_tiles(r)))
        if _left_out(r["real_scenes_valid"]):
            print(f"real scenes valid: each labelled tile counted once{_left_out(r['real_scenes_valid'])} "
                  "(evaluation/real_scenes_not_tiles.csv)")
        if r.get("previous_dir"):
            print(f"previous: the models in {r['previous_dir']}")
    else:
        print(format_table(r))
        print(f"images written to {args.out}")
    return 0


def register(sub) -> None:
    p = sub.add_parser("eval-models", help="evaluate the tile models (synthetic, real crops, real scenes, latency)")
    p.add_argument("--data", default=str(DEFAULT_DATA), help="shared data root with real-crops/ and real-scenes/")
    p.add_argument("--synth", help="a datasets.generate folder to use as synthetic held-out set "
                                   f"(default: generated with --seed {SYNTH_EVAL_SEED}, cached)")
    p.add_argument("--synth-count", type=int, default=60)
    p.add_argument("--out", default="/tmp/mahjong-eval", help="confusion matrix and overlays")
    p.add_argument("--baseline", help="folder holding the unpacked mahjong_detector package")
    p.add_argument("--no-baseline", action="store_true")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--detector", help="detector ONNX file to evaluate (default: the shipped models/detector.onnx)")
    p.add_argument("--classifier", help="classifier ONNX file to evaluate (default: the shipped one)")
    p.add_argument("--auto-scale", action="store_true",
                   help="run the detector again at a finer scale when an image's tiles are small (as the live "
                        "pipeline does for a camera's frames)")
    p.add_argument("--no-fill-rows", action="store_true",
                   help="leave out the row completion (vision.rows: tiles missed in rows, boxes astride two tiles, "
                        "sideways tiles boxed upright read again turned): the detector and classifier alone")
    p.add_argument("--scales", metavar="640,320", help="the detector's long sides (default: the shipped "
                   "choice, vision.inference.DETECT_SCALES)")
    p.add_argument("--previous", metavar="DIR", help="a folder with the previous shipped models (detector.onnx, "
                   "classifier.onnx, classifier_head.npz): every row is measured for them too, in the same run")
    p.add_argument("--real-only", action="store_true",
                   help="only the real photos' rows: real-tiles valid and test read through the whole path, "
                        "real-scenes valid recall, real-crops train+val (a minute or two)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_eval)
