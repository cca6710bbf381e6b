"""Does a tile set learnt on the live page from corrections read the next frames better? Checked in Chromium.

``python -m evaluation.page_learning [--corrections N] [--out DIR]`` (slow: minutes; kept off the test run):

1. A physical set in a held-out rendered face style (:mod:`evaluation.sets`: art and fonts training never saw, one
   face per kind, one body colour) is photographed in several frames. The live page (``webui``) is served with a
   camera that shows those frames; a tile set is made and put in use on it, as a user does on "Your tiles".
2. The set's *other* frames (never corrected) are shown on the page first, and read with the built-in models.
3. Chromium taps tiles on the page and picks their codes in the palette, as a user does: every misread tile of
   the first frame, then of the next ones (at most ``--teach-frames``), until ``--corrections`` are made; where
   fewer are misread, right tiles are confirmed too (tapped and given the code they show, the least sure
   first). Each correction teaches the set in use (``webui.tilesets.Teacher``).
4. Once every lesson is done, the other frames are read again, with the set in use: on the page and directly
   (``TileRecognizer`` with and without the set), and "other frames read right: before X/Y, after X/Y" is printed
   with every lesson's report (its guard's figures: held-back, earlier, generic and the frame's other tiles).

Screenshots in ``--out``: ``corrected.png`` (the live page after the corrections), ``lesson.png`` (the lesson's
result message on "Your tiles"), ``lesson_running.png`` (that panel while the lesson runs), ``your_tiles.png``
(that panel once it is done), ``other_before.png``/``other_after.png`` (an
other frame on the live page before and after). ``report.json`` holds every figure.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

CHROMIUM = os.environ.get("MAHJONG_CHROMIUM", "/usr/bin/chromium")
SET_NAME = "club"
TAUGHT_FRAMES = 3      # frames that may be corrected (scenes 0..2); the other frames come after them
OTHER_FRAMES = 11


def scenes(variant: str, n: int):
    """``n`` photos of one held-out-style set of ``variant``: (image, truth quads, truth kind indices) each.
    The same set and photos as ``eval-models``' enrollment row (:func:`evaluation.sets.eval_enrollment`)."""
    from assistant.variants import get_variant
    from datasets.codes import TILE_CODES
    from evaluation.sets import ENROLL_SEED, ENROLL_VARIANTS, _held_bank, _OneSet, _scene
    from vision.reconstruct import in_set

    vi = ENROLL_VARIANTS.index(variant) if variant in ENROLL_VARIANTS else len(ENROLL_VARIANTS)
    v = get_variant(variant)
    one = _OneSet(_held_bank(), np.random.default_rng([ENROLL_SEED, vi]))
    kinds = [k for k in range(len(TILE_CODES)) if TILE_CODES[k] != "bk" and in_set(TILE_CODES[k], v)]
    body = np.array([235, 240, 245], np.float64)
    return [_scene(one, np.random.default_rng([ENROLL_SEED, vi, j]), kinds, body) for j in range(n)]


def page_readings(tiles: list[dict], quads, kinds) -> tuple[list[tuple[dict, str]], int]:
    """The page's tiles matched to the truth: [(tile, true code)], and how many truth tiles there are."""
    from datasets.codes import TILE_CODES
    from evaluation.sets import _match

    pq = np.array([t["corners"] for t in tiles], np.float64).reshape(-1, 4, 2)
    pairs, _ = _match(pq, np.array(quads))
    return [(tiles[p], TILE_CODES[kinds[t]]) for t, p in pairs], len(quads)


def to_tap(matched: list[tuple[dict, str]], want: int, confirm: bool) -> list[tuple[dict, str]]:
    """Which tiles a user taps, with the code picked: every misread one (not corrected yet); then, when
    ``confirm`` and fewer than ``want`` are misread, right ones confirmed, the least sure first.

    >>> m = [({"id": "a", "code": "1m", "confidence": 0.9}, "1m"), ({"id": "b", "code": "2m", "confidence": 0.5}, "3m"),
    ...      ({"id": "c", "code": "4m", "confidence": 0.6}, "4m"), ({"id": "d", "code": "5m", "confidence": 0.4,
    ...      "corrected": True}, "5m")]
    >>> [(t["id"], c) for t, c in to_tap(m, 2, True)]
    [('b', '3m'), ('c', '4m')]
    >>> [(t["id"], c) for t, c in to_tap(m, 5, False)], [(t["id"], c) for t, c in to_tap(m, 1, True)]
    ([('b', '3m')], [('b', '3m')])
    """
    fresh = [(t, c) for t, c in matched if not t.get("corrected")]
    wrong = [(t, c) for t, c in fresh if t["code"] != c]
    if not confirm or len(wrong) >= want:
        return wrong
    right = sorted(((t, c) for t, c in fresh if t["code"] == c), key=lambda tc: tc[0].get("confidence", 1.0))
    return wrong + right[:want - len(wrong)]


def _load() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:  # pragma: no cover - not Linux
        return str(os.getloadavg()) if hasattr(os, "getloadavg") else "?"


def _uptime() -> str:
    import subprocess

    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, timeout=5).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return _load()


class _Table:
    """One camera on the live page, from a fresh start: a feed showing one frame, its analyser, the web app
    (sharing ``teacher``) on a local port, and a Chromium tab on its live page. Every frame is shown on a fresh
    table: the live analyser follows *one* table over time (its tracks keep their votes and the corrections
    pinned on them), so unrelated photos shown one after another would read each other's tiles."""

    def __init__(self, browser, image, variant: str, rec, teacher, root: Path) -> None:
        from werkzeug.serving import make_server

        from vision.live import LiveAnalyzer
        from vision.sources import ArraySource
        from webui import create_app
        from webui.feed import CameraFeed

        self.src = ArraySource(lambda i: image, name="table", fps=2).start()
        self.analyzer = LiveAnalyzer(variant, camera_id="table", background=True, recognizer=rec)
        feed = CameraFeed(self.src, self.analyzer, fps=2)
        logging.getLogger("werkzeug").setLevel(logging.ERROR)
        self.app = create_app({"FEED": feed, "DATA_DIR": str(root / "web"), "MATCH_DB": str(root / "m.db"),
                               "SETTINGS_FILE": None, "VARIANT": variant})
        self.app.extensions["tileset_teacher"] = teacher
        self.hub = self.app.extensions["hub"].start()
        self.srv = make_server("127.0.0.1", 0, self.app, threaded=True)
        threading.Thread(target=self.srv.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.srv.server_port}"
        self.page = browser.new_page(viewport={"width": 1400, "height": 1000})
        self.page.goto(self.url + "/", wait_until="domcontentloaded")
        self.page.wait_for_selector("#overlay polygon.tile-box", timeout=180_000)

    def tiles(self) -> list[dict]:
        snap = self.page.evaluate("fetch('/api/live').then(r => r.json())")
        return snap.get("snapshot", snap).get("tiles", [])

    def settled(self, quads, kinds, timeout: float = 120.0) -> list[tuple[dict, str]]:
        """The page's tiles matched to the truth, once most are found and two looks agree."""
        t0, last = time.time(), None
        while True:
            time.sleep(1.5)
            matched, n = page_readings(self.tiles(), quads, kinds)
            key = sorted((t["id"], t["code"]) for t, _ in matched)
            if (len(matched) >= 0.8 * n and key == last) or time.time() - t0 > timeout:
                time.sleep(0.5)   # the overlay draws the latest snapshot
                return matched
            last = key

    def tap(self, tile_id: str, code: str) -> bool:
        """Tap the tile on the page and pick ``code`` in the palette; whether the page shows it corrected."""
        poly = self.page.locator(f'#overlay polygon[data-tile="{tile_id}"]')
        if not poly.count():
            return False
        poly.first.click(force=True)
        self.page.wait_for_selector("#palette[open]")
        self.page.locator(f'#palette-tiles button[data-code="{code}"]').click()
        try:
            self.page.wait_for_selector(f'#overlay polygon.corrected[data-tile="{tile_id}"]', timeout=30_000)
        except Exception:  # noqa: BLE001 - playwright's timeout: not made
            return False
        return True

    def close(self) -> None:
        self.page.close()
        self.srv.shutdown()
        self.hub.stop()
        self.src.stop()
        with contextlib.suppress(Exception):
            self.analyzer.close()


def run(corrections: int = 12, out: Path | None = None, variant: str = "hong-kong", teach_frames: int = TAUGHT_FRAMES,
        others: int = OTHER_FRAMES, lesson_timeout: float = 1800.0, page_others: bool = True) -> dict:
    """The check (see the module's doc); returns its figures."""
    out = Path(out or tempfile.mkdtemp(prefix="page-learning-"))
    out.mkdir(parents=True, exist_ok=True)
    root = Path(tempfile.mkdtemp(prefix="page-learning-data-"))
    os.environ["MAHJONG_ASSISTANT_TILESETS"] = str(root / "sets")
    os.environ["MAHJONG_ASSISTANT_WEB_DATA"] = str(root / "web")

    from evaluation.sets import _read_scene
    from vision import tilesets as T
    from vision.inference import TileRecognizer
    from webui.tilesets import Teacher

    def say(*a) -> None:
        print(*a, flush=True)

    frames = scenes(variant, teach_frames + others)
    other_idx = list(range(teach_frames, teach_frames + others))
    T.TileSet(name=SET_NAME, variant=variant).save()
    T.use(SET_NAME)
    base = TileRecognizer(threads=1, head=None)
    before = [_read_scene(base, *frames[j], variant) for j in other_idx]
    say(f"other frames {other_idx}, read by the built-in models (tiles, found, right): {before}")

    class RecordingTeacher(Teacher):   # every lesson's report, not only the last
        def __init__(self) -> None:
            super().__init__()
            self.reports: list[dict] = []

        def _lesson(self, feed, name, items, context=None):
            load = _load()
            rep = super()._lesson(feed, name, items, context)
            self.reports.append({**rep, "load_at_start": load, "load_at_end": _load(), "uptime": _uptime()})
            return rep

    teacher = RecordingTeacher()
    result: dict = {"variant": variant, "out": str(out), "other_frames": other_idx}

    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"])

        def page_count(tag: str) -> list[tuple[int, int]]:
            """The other frames on the page, each on a fresh table reading with the set in use."""
            counts = []
            rec = TileRecognizer(threads=1, tileset=T.TileSet.load(SET_NAME))
            for k, j in enumerate(other_idx):
                table = _Table(browser, frames[j][0], variant, rec, teacher, root)
                try:
                    matched = table.settled(frames[j][1], frames[j][2])
                    counts.append((sum(t["code"] == c for t, c in matched), len(frames[j][1])))
                    if k == 0:
                        table.page.screenshot(path=str(out / f"other_{tag}.png"), full_page=True)
                finally:
                    table.close()
            return counts

        if page_others:
            result["page_before"] = page_count("before")
            say(f"other frames on the page before (right, tiles): {result['page_before']}")
        taps: list[dict] = []
        rec = TileRecognizer(threads=1, tileset=T.TileSet.load(SET_NAME))   # the camera's: lessons update it
        table = None
        for j in range(teach_frames):
            if len(taps) >= corrections:
                break
            if table is not None:
                table.close()
            table = _Table(browser, frames[j][0], variant, rec, teacher, root)
            matched = table.settled(frames[j][1], frames[j][2])
            last_frame = j == teach_frames - 1
            plan = to_tap(matched, corrections - len(taps), confirm=last_frame)
            wrong = sum(t["code"] != c for t, c in matched)
            say(f"frame {j} on the page: {len(matched)} of {len(frames[j][1])} tiles found, {wrong} read wrong; "
                f"tapping {len(plan)}")
            for tile, code in plan:
                if not table.tap(tile["id"], code):
                    say(f"  {tile['id']}: the correction did not show")
                    continue
                taps.append({"frame": j, "tile": tile["id"], "was": tile["code"], "code": code,
                             "confidence": round(float(tile.get("confidence", 1.0)), 3),
                             "kind": "correction" if tile["code"] != code else "confirmation"})
            if last_frame or len(taps) >= corrections:
                table.page.screenshot(path=str(out / "corrected.png"), full_page=True)
        result["taps"] = taps
        say(f"tapped on the page: {sum(t['kind'] == 'correction' for t in taps)} misread tiles corrected, "
            f"{sum(t['kind'] == 'confirmation' for t in taps)} right ones confirmed, over frames "
            f"{sorted({t['frame'] for t in taps})}")

        t0 = time.time()
        page = table.page
        page.goto(table.url + "/your-tiles", wait_until="domcontentloaded")
        page.wait_for_selector("#sets li")
        try:   # the page while a lesson runs (it reads the list again every few seconds)
            page.wait_for_selector("#sets li.teaching", timeout=15_000)
            page.locator("#sets").locator("xpath=..").screenshot(path=str(out / "lesson_running.png"))
            result["lesson_running"] = page.locator("#sets li.teaching").first.inner_text()
            say("while the lesson runs: " + result["lesson_running"])
        except Exception:  # noqa: BLE001 - playwright's timeout: the lessons were done already
            pass
        idle = teacher.wait_idle(lesson_timeout)
        if idle:   # the page finds the result by itself
            with contextlib.suppress(Exception):
                page.wait_for_selector("#sets li.teaching", state="detached", timeout=15_000)
        result["lessons_seconds_wall"] = time.time() - t0
        result["lessons"] = [{k: v for k, v in r.items() if not isinstance(v, np.ndarray)} for r in teacher.reports]
        for i, r in enumerate(teacher.reports):
            say(f"lesson {i + 1}: " + lesson_words(r))
        if not idle:
            say(f"the lessons were not done after {lesson_timeout:.0f} s")
        page.reload(wait_until="domcontentloaded")
        page.wait_for_selector("#sets li")
        time.sleep(1)
        msg = page.locator("#sets li", has_text="Last correction taught")
        if msg.count():
            msg.first.screenshot(path=str(out / "lesson.png"))
            result["lesson_message"] = msg.first.inner_text()
        page.locator("#sets").locator("xpath=..").screenshot(path=str(out / "your_tiles.png"))
        result["your_tiles"] = page.locator("#sets").inner_text()
        say("Your tiles: " + result["your_tiles"].replace("\n", " | "))
        table.close()
        if page_others:
            result["page_after"] = page_count("after")
            say(f"other frames on the page after (right, tiles): {result['page_after']}")
        browser.close()

    after_rec = TileRecognizer(threads=1, head=None, tileset=T.TileSet.load(SET_NAME))
    after = [_read_scene(after_rec, *frames[j], variant) for j in other_idx]
    result["before"], result["after"] = before, after
    tiles = sum(a for a, _, _ in before)
    b, a = sum(r for _, _, r in before), sum(r for _, _, r in after)
    result.update(before_right=b, after_right=a, tiles=tiles)
    say(f"other frames read right: before {b}/{tiles}, after {a}/{tiles}   (per frame: before "
        f"{[r for _, _, r in before]}, after {[r for _, _, r in after]})")
    if page_others:
        pb, pa = sum(r for r, _ in result["page_before"]), sum(r for r, _ in result["page_after"])
        say(f"other frames read right on the page: before {pb}/{tiles}, after {pa}/{tiles}")
    frames_taught = len({t["frame"] for t in taps}) or 1
    secs = sum(float(r.get("seconds") or 0.0) for r in teacher.reports)
    result["lesson_seconds"], result["frames_taught"] = secs, frames_taught
    say(f"lessons took {secs:.0f} s in all ({result['lessons_seconds_wall']:.0f} s wall from the last tap): "
        f"{secs / frames_taught:.0f} s per corrected photo ({frames_taught} photos); load: {_uptime()}")
    (out / "report.json").write_text(json.dumps(result, indent=1, default=str))
    say(f"screenshots and report.json in {out}")
    return result


def lesson_words(r: dict) -> str:
    """One lesson's report in a line: what it did and the guard's figures."""
    def pct(v):
        return "-" if v is None else f"{100 * v:.0f}%"

    if r.get("error"):
        return f"error: {r['error']}"
    parts = [f"+{r.get('added')} -> {r.get('examples')} examples", f"adapts {r.get('adapts')}",
             "kept" if r.get("kept") else "not kept"]
    if r.get("reason"):
        parts.append(r["reason"])
    if r.get("held_back") is not None:
        parts.append(f"held-back ({r['held_back']}): built-in {pct(r.get('shipped_before'))}, in use "
                     f"{pct(r.get('accuracy_before'))}, adapted {pct(r.get('accuracy_after'))}")
    if r.get("earlier_before") is not None or r.get("earlier_after") is not None:
        parts.append(f"earlier: {pct(r.get('earlier_before'))} -> {pct(r.get('earlier_after'))}")
    if r.get("generic_before") is not None:
        parts.append(f"generic: {pct(r.get('generic_before'))} -> {pct(r.get('generic_after'))}")
    if r.get("other_tiles") is not None:
        parts.append(f"context: {r['other_tiles']} tiles read the same {pct(r.get('other_tiles_after'))}")
    parts.append(f"{float(r.get('seconds') or 0):.0f} s; load {r.get('load_at_start')} -> {r.get('load_at_end')}")
    return "; ".join(parts)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evaluation.page_learning", description=__doc__.split("\n")[0])
    ap.add_argument("--corrections", type=int, default=12, help="tiles to tap on the page (default 12)")
    ap.add_argument("--out", type=Path, help="folder for the screenshots and report.json (default: a new temp one)")
    ap.add_argument("--variant", default="hong-kong", help="rule system of the set (default hong-kong)")
    ap.add_argument("--teach-frames", type=int, default=TAUGHT_FRAMES,
                    help=f"frames the corrections may be made on (default {TAUGHT_FRAMES})")
    ap.add_argument("--others", type=int, default=OTHER_FRAMES, help=f"other frames read (default {OTHER_FRAMES})")
    ap.add_argument("--no-page-reads", action="store_true", help="read the other frames directly only, not on the page")
    ap.add_argument("--lesson-timeout", type=float, default=1800.0, help="seconds to wait for the lessons")
    args = ap.parse_args(argv)
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        print(f"Chromium not found at {CHROMIUM} (MAHJONG_CHROMIUM names another)", file=sys.stderr)
        return 2
    res = run(args.corrections, args.out, args.variant, args.teach_frames, args.others, args.lesson_timeout,
              not args.no_page_reads)
    return 0 if res["after_right"] >= res["before_right"] else 1


if __name__ == "__main__":
    sys.exit(main())
