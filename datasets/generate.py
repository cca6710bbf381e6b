"""Write a synthetic scene dataset: JPEG images plus one JSON Lines label file.

    python -m datasets.generate --out DIR --count N --seed S [--width 1280 --height 720] [--art PATH]

Layout of DIR (see datasets/README.md): ``images/NNNNNN.jpg``, ``labels.jsonl`` (one line per
image) and ``dataset.json`` (the parameters). Scene ``i`` depends only on ``(seed, i)``, so an
interrupted run is resumed by running the same command again: scenes whose image and label line
are both present are skipped.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import TextIO

import cv2
import numpy as np

from . import fonts
from .art import ArtLibrary
from .scene import SceneConfig, SceneGenerator

FORMAT_VERSION = 1


def scene_seed(seed: int, index: int) -> int:
    """The generator seed of scene ``index`` of a dataset with master ``seed`` (53 bits: exact in JSON)."""
    return int(np.random.SeedSequence([seed, index]).generate_state(1, dtype=np.uint64)[0]) >> 11


def image_name(index: int) -> str:
    """Relative path of scene ``index``'s image."""
    return f"images/{index:06d}.jpg"


class Progress:
    """A plain-text progress bar on a stream (redrawn in place on a terminal, else every 10 %)."""

    def __init__(self, total: int, stream: TextIO = sys.stderr, width: int = 30):
        self.total, self.stream, self.width = max(total, 1), stream, width
        self.start = time.monotonic()
        self.last_draw = 0.0
        self.last_decile = -1
        self.tty = hasattr(stream, "isatty") and stream.isatty()

    def update(self, done: int, skipped: int = 0) -> None:
        """Show ``done`` of ``total`` finished (``skipped`` of them were already on disk)."""
        now = time.monotonic()
        decile = 10 * done // self.total
        final = done >= self.total
        if self.tty and not final and now - self.last_draw < 0.2:
            return
        if not self.tty and not final and decile == self.last_decile:
            return
        self.last_draw, self.last_decile = now, decile
        made = done - skipped
        rate = made / max(now - self.start, 1e-6)
        eta = (self.total - done) / rate if rate > 0 else 0.0
        filled = int(self.width * done / self.total)
        bar = "#" * filled + "." * (self.width - filled)
        text = (f"[{bar}] {done}/{self.total} scenes  {rate:.2f}/s  "
                f"ETA {int(eta) // 60}:{int(eta) % 60:02d}")
        self.stream.write(("\r" + text) if self.tty else text + "\n")
        if self.tty and final:
            self.stream.write("\n")
        self.stream.flush()


def _read_done(labels_path: Path, out: Path) -> dict[int, str]:
    """Label lines (by index) of scenes already complete: valid JSON and the image file exists."""
    done: dict[int, str] = {}
    if not labels_path.exists():
        return done
    with open(labels_path, encoding="utf-8") as fh:
        for line in fh:
            try:
                record = json.loads(line)
                index = int(record["index"])
            except (ValueError, KeyError, TypeError):
                continue  # e.g. a line cut short by an interruption
            if (out / record.get("image", image_name(index))).is_file():
                done[index] = line.rstrip("\n")
    return done


def _check_params(out: Path, params: dict) -> None:
    """Write dataset.json, or make sure an existing one has the same parameters."""
    path = out / "dataset.json"
    if path.exists():
        old = json.loads(path.read_text(encoding="utf-8"))
        if old != params:
            raise SystemExit(f"{path} was written with other parameters ({old}); use another --out")
        return
    path.write_text(json.dumps(params, indent=2) + "\n", encoding="utf-8")


def _write_image(path: Path, image: np.ndarray, quality: int) -> None:
    """Write a JPEG atomically (a half-written file never looks complete)."""
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise RuntimeError(f"JPEG encoding failed for {path}")
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(buf.tobytes())
    os.replace(tmp, path)


def build_parser() -> argparse.ArgumentParser:
    """Command-line options."""
    p = argparse.ArgumentParser(prog="python -m datasets.generate", description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True, type=Path, help="output directory")
    p.add_argument("--count", required=True, type=int, help="number of scenes")
    p.add_argument("--seed", required=True, type=int, help="master seed")
    p.add_argument("--width", type=int, default=1280)
    p.add_argument("--height", type=int, default=720)
    p.add_argument("--art", default=None,
                   help="art root (default: $MAHJONG_ART or ../shared/art); a missing root = procedural faces only")
    p.add_argument("--art-cache", default=None, help="raster cache (default ~/.cache/mahjong-assistant/art)")
    p.add_argument("--art-probability", type=float, default=0.5, help="share of scenes using art-pack faces")
    p.add_argument("--quality", type=int, default=92, help="JPEG quality of the written images")
    p.add_argument("--threads", type=int, default=1, help="OpenCV threads (keep it low on shared machines)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the process exit status."""
    args = build_parser().parse_args(argv)
    if args.count < 0:
        raise SystemExit("--count must be >= 0")
    cv2.setNumThreads(max(args.threads, 1))
    fonts.warn_without_cjk()
    out: Path = args.out
    (out / "images").mkdir(parents=True, exist_ok=True)
    art = ArtLibrary(args.art, args.art_cache)
    params = {"format": FORMAT_VERSION, "seed": args.seed, "width": args.width, "height": args.height,
              "art_root": str(art.root.resolve()) if art.available else None,
              "art_probability": args.art_probability}
    _check_params(out, params)

    labels_path = out / "labels.jsonl"
    done = _read_done(labels_path, out)
    with open(labels_path, "w", encoding="utf-8") as fh:  # rewrite: drops broken or dangling lines
        for index in sorted(done):
            fh.write(done[index] + "\n")

    config = SceneConfig(width=args.width, height=args.height, art_probability=args.art_probability)
    generator = SceneGenerator(config, art)
    progress = None if args.quiet else Progress(args.count)
    skipped = sum(1 for i in done if i < args.count)
    finished = skipped
    with open(labels_path, "a", encoding="utf-8") as fh:
        for index in range(args.count):
            if index in done:
                continue
            seed = scene_seed(args.seed, index)
            scene = generator.generate(seed)
            _write_image(out / image_name(index), scene.image, args.quality)
            record = {"index": index, "image": image_name(index), "seed": seed, "width": args.width,
                      "height": args.height, "meta": scene.meta, "tiles": [t.to_dict() for t in scene.labels]}
            fh.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")
            fh.flush()
            finished += 1
            if progress:
                progress.update(finished, skipped)
    if progress and finished == skipped:
        progress.update(finished, skipped)
    return 0


if __name__ == "__main__":
    sys.exit(main())
