"""The server side shared by every viewer: the settings, the one analysis loop over the feed, and the
corrections store.

:class:`LiveHub` owns the feed (whose capture loop it starts once) and ONE analysis thread: whenever the
feed's snapshot or the settings change, it computes the page data once (:func:`webui.engine.table_view`)
and publishes it as a JSON text with a version number; every Server-Sent-Events client waits on the same
condition and sends the same text. Nothing is computed per client.
"""

from __future__ import annotations

import json
import threading
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any

import numpy as np

from assistant.variants import get_variant

from .engine import check_options, table_view, tile_set
from .errors import ApiError
from .feed import TILE_CODES, TableFeed
from .snapshot import PageData


class Settings:
    """Rule system, table options, teaching mode, the player's seat and the current match: one set for
    the whole table (every viewer sees the same), optionally kept in a JSON file."""

    FIELDS = ("variant", "options", "teaching", "me", "match")

    def __init__(self, variant: str = "sanma", path: str | Path | None = None) -> None:
        get_variant(variant)
        self._lock = threading.Lock()
        self.path = Path(path) if path else None
        self.version = 1
        self.data: dict[str, Any] = {"variant": variant, "options": {}, "teaching": False, "me": 0, "match": None}
        if self.path and self.path.is_file():
            try:
                stored = json.loads(self.path.read_text())
                self.data.update(self.validate(stored, partial=True))
            except (ValueError, ApiError, OSError):
                pass  # a damaged settings file falls back to the defaults

    def get(self) -> dict[str, Any]:
        with self._lock:
            return json.loads(json.dumps(self.data))

    def validate(self, data: Any, partial: bool = True) -> dict[str, Any]:
        """Checked changes: ApiError 400 naming the field when one is wrong."""
        if not isinstance(data, dict):
            raise ApiError("settings must be a JSON object")
        unknown = sorted(set(data) - set(self.FIELDS))
        if unknown:
            raise ApiError(f"unknown setting '{unknown[0]}' (known: {', '.join(self.FIELDS)})", field=unknown[0])
        out: dict[str, Any] = {}
        variant = data.get("variant", self.data["variant"])
        if not isinstance(variant, str):
            raise ApiError("'variant' must be a rule-system name", field="variant")
        try:
            v = get_variant(variant)
        except ValueError as e:
            raise ApiError(str(e), field="variant") from None
        if "variant" in data:
            out["variant"] = variant
        if "options" in data or "variant" in data:
            opts = data.get("options", {} if variant != self.data["variant"] else self.data["options"])
            out["options"] = check_options(variant, opts)
        if "teaching" in data:
            if not isinstance(data["teaching"], bool):
                raise ApiError("'teaching' must be true or false", field="teaching")
            out["teaching"] = data["teaching"]
        if "me" in data:
            me = data["me"]
            if isinstance(me, bool) or not isinstance(me, int) or not 0 <= me < v.players:
                raise ApiError(f"'me' is your seat: 0-{v.players - 1} at a {v.name} table", field="me")
            out["me"] = me
        if "match" in data:
            if data["match"] is not None and (not isinstance(data["match"], str) or len(data["match"]) > 64):
                raise ApiError("'match' is a match id or null", field="match")
            out["match"] = data["match"]
        return out

    def update(self, data: Any) -> dict[str, Any]:
        changes = self.validate(data)
        with self._lock:
            self.data.update(changes)
            if self.data["me"] >= get_variant(self.data["variant"]).players:
                self.data["me"] = 0
            self.version += 1
            snapshot = json.loads(json.dumps(self.data))
        if self.path:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                tmp = self.path.with_suffix(".tmp")
                tmp.write_text(json.dumps(snapshot, indent=2))
                tmp.replace(self.path)
            except OSError:
                pass
        return snapshot


class LiveHub:
    """The feed, the settings and the one analysis loop every viewer reads."""

    def __init__(self, feed: TableFeed, settings: Settings) -> None:
        self.feed = feed
        self.settings = settings
        self._cond = threading.Condition()
        self._version = 0
        self._payload: dict[str, Any] | None = None
        self._text = ""
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()
        self._stop = threading.Event()
        self._settings_seen = 0
        self.analysis_ms: list[float] = []

    def start(self) -> LiveHub:
        """Start the feed's loop and the analysis loop, once (later calls do nothing)."""
        with self._start_lock:
            if self._thread is None:
                s = self.settings.get()
                self.feed.configure(s["variant"], s["options"], s["me"])
                self.feed.start()
                self._stop.clear()
                self._thread = threading.Thread(target=self._run, name="analysis", daemon=True)
                self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self.feed.stop()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._thread = None
        with self._cond:
            self._cond.notify_all()

    def settings_changed(self) -> None:
        s = self.settings.get()
        self.feed.configure(s["variant"], s["options"], s["me"])

    def _run(self) -> None:
        seen = (-1, -1)
        while not self._stop.is_set():
            fv = self.feed.wait_version(seen[0], timeout=0.25)
            key = (fv, self.settings.version)
            if key == seen:
                continue
            seen = key
            try:
                self._publish(self._compute().to_json())
            except Exception as e:  # keep serving; show the error on the page
                self._publish({"error": f"analysis failed: {type(e).__name__}: {e}"})

    def _compute(self) -> PageData:
        t0 = time.perf_counter()
        snap = self.feed.snapshot()
        s = self.settings.get()
        view = table_view(snap.state, me=s["me"], teaching=s["teaching"],
                          win=None if snap.win is None else snap.win.to_json())
        variant = view.get("variant") or s["variant"]
        self.analysis_ms.append(1000 * (time.perf_counter() - t0))
        del self.analysis_ms[:-50]
        return PageData(snap, {**snap.status, "analysis_ms": round(self.analysis_ms[-1], 1)}, view, s,
                        tuple(tile_set(variant)))

    def status(self) -> dict[str, Any]:
        """The feed's status line plus the median time of one analysis (ms)."""
        times = sorted(self.analysis_ms)
        return {**self.feed.status(), "analysis_ms": round(times[len(times) // 2], 1) if times else None}

    def _publish(self, payload: dict[str, Any]) -> None:
        with self._cond:
            self._version += 1
            payload = {**payload, "version": self._version, "t_ready": time.time()}
            self._payload = payload
            self._text = json.dumps(payload, separators=(",", ":"))
            self._cond.notify_all()

    def current(self, wait: float = 5.0) -> tuple[int, dict[str, Any] | None, str]:
        """The latest page data (waits up to ``wait`` seconds for the first one)."""
        self.start()
        deadline = time.monotonic() + wait
        with self._cond:
            while self._payload is None and time.monotonic() < deadline:
                self._cond.wait(deadline - time.monotonic())
            return self._version, self._payload, self._text

    def wait(self, after: int, timeout: float = 1.0) -> tuple[int, str]:
        """Block until the page data is newer than ``after`` (or ``timeout``)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._version <= after and not self._stop.is_set():
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._cond.wait(left)
            return self._version, self._text


class CorrectionStore:
    """Corrections kept for finetuning: ``corrections.jsonl`` (one JSON object per correction) and the
    tile crop as ``crops/<time>_<tile>.png`` under a directory."""

    MAX = 20000     # corrections kept at most (then the oldest are kept and new ones refused)
    RECENT = 1024   # tiles whose last correction is remembered to tell one made again

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self._lock = threading.Lock()
        self._recent: OrderedDict[tuple, dict[str, Any]] = OrderedDict()
        self._count: int | None = None

    def add(self, record: dict[str, Any], crop: np.ndarray | None) -> dict[str, Any]:
        """Append a correction (and its crop); the same correction of a tile as its last one (in any frame of the
        same camera and step: each correction redraws the frame) is not stored again: that record is returned.
        ValueError when the folder already holds :attr:`MAX`."""
        import cv2

        stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime()) + f"{time.time() % 1:.3f}"[1:]
        key = tuple(json.dumps(record.get(k), default=str) for k in ("tile_id", "camera", "step"))
        with self._lock:
            last = self._recent.get(key)
            if last is not None and last.get("code") == record.get("code"):
                return last
            if self._count is None:
                self._count = self.count()
            if self._count >= self.MAX:
                raise ValueError(f"the corrections folder {self.root} holds {self.MAX} corrections already: "
                                 "run `mahjong-assistant finetune`, then move the folder away")
            (self.root / "crops").mkdir(parents=True, exist_ok=True)
            rec = {"time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), **record, "crop": None}
            if crop is not None:
                name = f"crops/{stamp.replace('.', '_')}_{_safe(record.get('tile_id', 'tile'))}.png"
                if cv2.imwrite(str(self.root / name), crop):
                    rec["crop"] = name
            with open(self.root / "corrections.jsonl", "a", encoding="utf-8") as fh:
                fh.write(json.dumps(rec) + "\n")
                fh.flush()
            self._recent.pop(key, None)
            self._recent[key] = rec
            while len(self._recent) > self.RECENT:
                self._recent.popitem(last=False)
            self._count += 1
        return rec

    def count(self) -> int:
        path = self.root / "corrections.jsonl"
        if not path.is_file():
            return 0
        with open(path, encoding="utf-8") as fh:
            return sum(1 for line in fh if line.strip())


def _safe(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in str(text))[:40]


def check_tile_code(code: Any, field: str = "code") -> str:
    if not isinstance(code, str):
        raise ApiError(f"'{field}' must be a tile code such as 5p, 0s or 7z", field=field)
    if code not in TILE_CODES:
        raise ApiError(f"unknown tile {code!r}: use the notation of shared/rules/README.md (1m-9m, 0m, 1p-9p, "
                       "0p, 1s-9s, 0s, 1z-7z, 1f-4f, 1g-4g, 1a-4a, 1h-4h, jk, bk)", field=field)
    return code


__all__ = ["CorrectionStore", "LiveHub", "Settings", "check_tile_code"]
