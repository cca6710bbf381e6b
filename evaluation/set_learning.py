"""``mahjong-assistant eval-learning``: does learning a physical set from a few corrected photos make its other
photos read better? Measured on the real-tiles photos grouped by physical set.

**The grouping** (:func:`set_groups`): the phone photos named ``IMG_YYYYMMDD_HHMMSS`` are grouped by their day (one
evening's game: one table, one set, one camera), and the numbered series ``IMG_NNNN`` (one red table) is one group.
The other photos (Messenger-CDN names, ``hand_NNN``, descriptive names) carry no session in their names and are
left out. Per group, the first ``--learn`` photos of its ``train`` split (by name) are the corrected photos a
player would teach; its ``valid`` (or ``--read test``) photos are read before and after.

**Teaching**, as a player does with ``tileset learn PHOTO TILES.json``: the photo is read (``detect``), each tile
whose box fits a label (IoU >= 0.5) gets the label's code, a box with its centre on a labelled tile that fits none
is marked ``none`` (a split or doubled box), a label no box fits is added with its own box, and boxes away from
every label are left out (the labels are not exhaustive). Then :func:`vision.tilesets.learn_from_json`.

**Reading**: the whole path (``TileRecognizer.recognize``) with the rule system's kinds, without and with the set,
scored as eval-models' rows (i) (:mod:`evaluation.real_tiles`).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from datasets.real_tiles import DEFAULT_ROOT, LabelledPhoto, photos
from evaluation.real_tiles import read_photos
from vision import geometry as G

_DAY = re.compile(r"^IMG_(\d{8})_\d{6}")
_SERIES = re.compile(r"^IMG_\d{4}\.jpg$")


def group_of(name: str) -> str | None:
    """The physical set a photo's name puts it in, or None.

    >>> group_of("IMG_20231217_203101.jpg"), group_of("IMG_2748.jpg"), group_of("hand_001__test.jpg")
    ('IMG_20231217', 'IMG_27xx', None)
    """
    m = _DAY.match(name)
    if m:
        return f"IMG_{m.group(1)}"
    if _SERIES.match(name):
        return f"IMG_{name[4:6]}xx"
    return None


def set_groups(root: Path, read: str = "valid", learn: int = 3) -> dict[str, dict[str, list[str]]]:
    """{group: {"learn": the first ``learn`` train photos, "read": the ``read`` split's photos}} for every group
    with ``learn`` train photos and at least one photo to read."""
    names: dict[str, dict[str, list[str]]] = {}
    for split in ("train", read):
        for p in sorted((Path(root) / split / "images").glob("*.jpg")):
            g = group_of(p.name)
            if g is not None:
                names.setdefault(g, {"train": [], read: []})[split].append(p.name)
    return {g: {"learn": v["train"][:learn], "read": v[read]} for g, v in sorted(names.items())
            if len(v["train"]) >= learn and v[read]}


def corrected_tiles(tiles, ph: LabelledPhoto) -> list[dict]:
    """The ``detect --json`` tiles of a photo as a player corrects them (see the module's docstring)."""
    pb = G.aabb(np.array([t.corners for t in tiles]).reshape(-1, 4, 2))
    pairs = dict(G.greedy_match(G.box_iou(pb, ph.boxes), 0.5)) if len(pb) and len(ph.boxes) else {}
    out = []
    for i, t in enumerate(tiles):
        if i in pairs:
            out.append({"code": ph.codes[pairs[i]], "corners": np.asarray(t.corners).tolist()})
            continue
        c = pb[i, :2] / 2 + pb[i, 2:] / 2
        b = ph.boxes
        if ((c[0] >= b[:, 0]) & (c[0] <= b[:, 2]) & (c[1] >= b[:, 1]) & (c[1] <= b[:, 3])).any():
            out.append({"code": "none", "corners": np.asarray(t.corners).tolist()})
    matched = set(pairs.values())
    for g, (x0, y0, x1, y1) in enumerate(ph.boxes):
        if g not in matched:
            out.append({"code": ph.codes[g], "corners": [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]})
    return out


def _read(rec, pics: list[LabelledPhoto], variant: str | None) -> dict:
    r = read_photos(rec, pics, variant)
    return {"photos": r["photos"], "labels": r["labels"], "f1": r["f1_per_photo"], "read_right": r["read_right"],
            "recall": r["recall"]}


def eval_learning(rec_factory, root: Path = DEFAULT_ROOT, read: str = "valid", learn: int = 3,
                  variant: str | None = "hong-kong", progress=print, network: bool | None = None) -> dict:
    """Per set: F1 (per photo, over the labelled regions), read right and recall of its ``read`` photos before and
    after learning its first ``learn`` train photos; whether the set's head was kept; seconds per photo learnt."""
    from vision import tilesets as T

    groups = set_groups(root, read, learn)
    by_name = {}
    for split in ("train", read):
        wanted = {n for g in groups.values() for n in g["learn" if split == "train" else "read"]}
        by_name.update({ph.name: ph for ph in photos(split, root) if ph.name in wanted})
    out: dict = {}
    old = os.environ.get("MAHJONG_ASSISTANT_TILESETS")
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["MAHJONG_ASSISTANT_TILESETS"] = tmp
        try:
            for g, v in groups.items():
                rec = rec_factory()
                pics = [by_name[n] for n in v["read"]]
                before = _read(rec, pics, variant)
                name = "eval-" + g.lower().replace("_", "-")
                t0 = time.perf_counter()
                reports = []
                for n in v["learn"]:
                    ph = by_name[n]
                    tiles = corrected_tiles(rec.recognize(ph.image, variant=variant).tiles, ph)
                    reports.append(T.learn_from_json(name, ph.image, {"tiles": tiles}, rec, variant, network=network))
                seconds = (time.perf_counter() - t0) / max(1, len(v["learn"]))
                ts = T.TileSet.load(name)
                rec.use_tileset(ts)
                after = _read(rec, pics, variant)
                out[g] = {"learnt": v["learn"], "read": v["read"], "before": before, "after": after,
                          "kept": [bool(r.get("kept")) for r in reports], "seconds_per_photo": seconds,
                          "adapts": sorted({r.get("adapts", "") for r in reports} - {""})}
                if progress:
                    progress(f"{g}: F1 {before['f1']:.3f} -> {after['f1']:.3f} ({len(pics)} photos)")
        finally:
            if old is None:
                os.environ.pop("MAHJONG_ASSISTANT_TILESETS", None)
            else:
                os.environ["MAHJONG_ASSISTANT_TILESETS"] = old
    return out


def format_learning(r: dict, read: str) -> str:
    lines = [f"{'set':<14}{'photos':>7}{'tiles':>7}  {'F1 before':>9} {'after':>7}  {'read right':>10} {'after':>7}"
             f"  kept        s/photo"]
    worse = 0
    for g, v in r.items():
        b, a = v["before"], v["after"]
        worse += a["f1"] < b["f1"]
        lines.append(f"{g:<14}{b['photos']:>7}{b['labels']:>7}  {b['f1']:>9.3f} {a['f1']:>7.3f}  "
                     f"{100 * b['read_right']:>9.1f}% {100 * a['read_right']:>6.1f}%  "
                     f"{sum(v['kept'])}/{len(v['kept']):<9}{v['seconds_per_photo']:>6.1f}")
    if r:
        mb = np.mean([v["before"]["f1"] for v in r.values()])
        ma = np.mean([v["after"]["f1"] for v in r.values()])
        lines.append(f"mean over {len(r)} sets: F1 {mb:.3f} -> {ma:.3f}; {worse} set(s) read worse after learning "
                     f"(targets: >= 0.97 after, never worse); read: the {read} photos of each set")
    return "\n".join(lines)


def cmd_eval_learning(args: argparse.Namespace) -> int:
    from vision.inference import TileRecognizer
    from vision.tilesets import TileSetError

    root = Path(args.data)
    if not (root / "classes.txt").is_file():
        print(f"error: {root}: the real-tiles data set is not there (--data)", file=sys.stderr)
        return 2
    paths = {k: v for k, v in (("detector", args.detector), ("classifier", args.classifier)) if v}
    for p in paths.values():
        if not Path(p).is_file():
            print(f"error: {p} not found", file=sys.stderr)
            return 2
    network = {"auto": None, "network": True, "head": False}[args.adapt]
    def reader():
        return TileRecognizer(threads=args.threads, head=None, **paths)

    try:
        r = {} if args.rendered_only else eval_learning(reader, root, args.read, args.learn, args.variant or None,
                                                        progress=None if args.json else print, network=network)
    except TileSetError as exc:   # --adapt network where it cannot run here
        print(f"error: {exc}", file=sys.stderr)
        return 2
    rendered = None
    if args.rendered or args.rendered_only:
        from evaluation.sets import eval_enrollment

        rendered = eval_enrollment(reader, network=network)
    if args.json:
        print(json.dumps({"sets": r, "rendered": rendered} if rendered is not None else r))
        return 0
    if r:
        print(format_learning(r, args.read))
    if rendered is not None:
        print(format_rendered(rendered))
    return 0


def format_rendered(r: dict) -> str:
    """The held-out rendered styles (eval-models row (h)): per rule system, read right before/after enrolling."""
    lines = [f"held-out rendered styles, one layout photo enrolled: {'rule system':<12}{'tiles':>6}  {'before':>7} "
             f"{'after':>7}  kept  adapts   s/photo"]
    for v, x in r.items():
        if v == "all":
            lines.append(f"{'':<52}{'all':<12}{x['tiles']:>6}  {100 * x['before']:>6.1f}% {100 * x['after']:>6.1f}%")
            continue
        if "before" not in x:
            lines.append(f"{'':<52}{v:<12} error: {x.get('error')}")
            continue
        lines.append(f"{'':<52}{v:<12}{x['tiles']:>6}  {100 * x['before']:>6.1f}% {100 * x['after']:>6.1f}%  "
                     f"{'yes' if x.get('kept') else 'no':<5} {x.get('adapts') or '-':<8}{x['enroll_seconds']:>6.1f}")
    return "\n".join(lines)


def register(sub) -> None:
    p = sub.add_parser("eval-learning", help="learning a set from corrected photos: its other photos before/after")
    p.add_argument("--data", default=str(DEFAULT_ROOT), help="the real-tiles folder")
    p.add_argument("--read", choices=("valid", "test"), default="valid", help="the split whose photos are read")
    p.add_argument("--learn", type=int, default=3, help="corrected photos taught per set (from its train split)")
    p.add_argument("--variant", default="hong-kong", help="the rule system read ('' = every kind)")
    p.add_argument("--detector", help="detector ONNX (default: the shipped one)")
    p.add_argument("--classifier", help="classifier ONNX (default: the shipped one)")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--adapt", choices=("auto", "network", "head"), default="auto",
                   help="what learning adapts: the network's later stages (needs PyTorch), the last layer only, "
                        "or the first where it can run (default)")
    p.add_argument("--rendered", action="store_true",
                   help="also the held-out rendered styles: per rule system a set enrolled from one layout photo "
                        "(eval-models row (h)), read before and after")
    p.add_argument("--rendered-only", action="store_true", help="only the held-out rendered styles")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_eval_learning)
