"""Tile sets: the assistant learns the table's own physical set from one layout photo or a few corrections.

Every physical set looks different (fonts, bamboo birds, flower drawings, colours), so a set the models never
saw is read worse than one like their training data. A *tile set* keeps, per set, example crops of its tiles
(with their codes; ``none`` marks a box that is no tile) and a model adapted to them, trained on several jittered
views of each example (small turns, misfits, light), plus the set's own cloth as "not a tile":

* where PyTorch is installed (the extra ``adapt``), **the network itself**: the classifier's later stages and
  heads fine-tuned from the shipped weights with generic examples of every kind replayed in every batch
  (:mod:`models.adapt_set`), kept in the set's folder as an int8 ONNX classifier that ``--tileset`` reads;
* else **its last layer** (pooled features -> kinds), retrained in numpy from the shipped head.

Reading with a set reads its rule system's kinds, never narrowed to the kinds its examples have shown.

The guard: an adapted model is kept only when it reads the lesson's held-back examples better than the shipped
models and no worse than the set's model before it, the set's earlier examples no worse, and generic examples of
every kind at most :data:`GENERIC_SLACK` worse than the shipped models (both figures are in the report). The
examples of a lesson whose model reads anything worse are not kept either (bad corrections do not stay).

Bounds: a set keeps at most :data:`MAX_EXAMPLES` examples (the oldest go first); one lesson takes at most
:data:`MAX_LESSON` new examples (a tiles file at most :data:`MAX_BOXES` boxes, each inside the photo and of a
tile's size), the same crop once; a head is trained on at most :data:`MAX_TRAIN` examples (the lesson's own
first, then a sample of the earlier ones) and features are computed :data:`FEATURE_BATCH` crops at a time, so
one correction on a full set takes seconds and a few hundred MB, not minutes and GBs.

Stored under ``$MAHJONG_ASSISTANT_TILESETS`` (default ``~/.local/share/mahjong-assistant/tilesets``), one
folder per set: ``set.json`` (name, rule system, history, a summary for listing, and the names of its
``examples-*.npz``, ``head-*.npz`` and ``classifier-*.onnx``), written last and atomically (each file fsynced,
then replaced), so a crash leaves the set as it was before or after; writers of one set take its lock
(``.locks/NAME``) for the whole load-learn-save. A damaged set is refused with the reason (``remove`` still
deletes it). ``active`` names the set in use.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import re
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import numpy as np

from . import geometry as G

NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$")
VIEWS = 12            # jittered views per example when training a head
DECAY = 1e-2          # pull of an adapted head back towards the one it starts from (on validation seeds: 1e-3
                      # read the set's other photos 0.4-1.0 points worse)
MISSED_PER_ROW = 3    # tiles of a layout row the detector may have missed (their place taken from the row)
MIN_AGREE = 0.6       # share of a layout photo's tiles whose top 3 must hold the kind they stand for
GENERIC_SLACK = 0.01  # an adapted head reads the held-back generic examples at most this much worse than shipped
MAX_EXAMPLES = 4000   # a set keeps at most this many examples (the oldest corrections go first)
MAX_LESSON = 500      # new examples one lesson takes at most
MAX_BOXES = 400       # boxes a tiles file (`tileset learn`) may give for one photo (a full table is about 150)
MIN_BOX_SIDE = 4.0    # pixels: a box narrower than this is no tile's
MAX_TRAIN = 512       # examples a head is trained on at most (with VIEWS views each)
MIN_NETWORK_EXAMPLES = 12   # a set's network adapts once it has this many examples (two page corrections
                            # adapted alone read other tiles of the set worse: 7p as 6p, seasons as the flower taught)
MAX_CONTEXT = 200     # the set's other tiles (of the corrected frame or photo) a lesson is checked on
SURE = 0.9            # a reading of the shipped models this sure is taken as right for that check
CONTEXT_SLACK = 0.02  # an adapted model may read at most this share of those other tiles otherwise
MAX_NETWORK_BYTES = 20_000_000   # an adapted classifier file larger than this is no set's (the int8 one: ~0.6 MB)
FEATURE_BATCH = 256   # crops whose features are computed at once
RESERVED = ("active", "active.tmp", "none")   # names of the tile-set folder's own files and of "no set"


class TileSetError(ValueError):
    """A tile-set request that cannot be done (message says why)."""


def root_dir() -> Path:
    env = os.environ.get("MAHJONG_ASSISTANT_TILESETS")
    return Path(env) if env else Path.home() / ".local" / "share" / "mahjong-assistant" / "tilesets"


def check_name(name: str) -> str:
    if not isinstance(name, str) or not NAME_RE.fullmatch(name):
        raise TileSetError(f"bad tile-set name {name!r}: use 1-40 letters, digits, '_', '-' or '.', "
                           "starting with a letter or digit")
    if name.lower() in RESERVED:
        raise TileSetError(f"{name!r} cannot name a tile set (reserved: {', '.join(RESERVED)})")
    return name


_held = threading.local()


@contextlib.contextmanager
def locked(name: str) -> Iterator[None]:
    """Hold the lock of the set ``name`` (a file ``.locks/NAME`` in the tile-set folder, locked with flock):
    one writer of a set at a time, across threads and processes; taken again in the same thread, it is held
    already. Enrolling, learning and removing hold it from loading the set to saving it."""
    check_name(name)
    key = str(root_dir() / name)
    held: set[str] = _held.__dict__.setdefault("keys", set())
    if key in held:
        yield
        return
    d = root_dir() / ".locks"
    d.mkdir(parents=True, exist_ok=True)
    with open(d / name, "a+b") as fh:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX: no lock across processes
            fcntl = None  # type: ignore[assignment]
        if fcntl is not None:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        held.add(key)
        try:
            yield
        finally:
            held.discard(key)   # (closing the file releases the flock)


def _write_synced(path: Path, write) -> None:
    """Write ``path`` with ``write(file)`` and fsync it."""
    with open(path, "wb") as fh:
        write(fh)
        fh.flush()
        os.fsync(fh.fileno())


def _replace_synced(path: Path, data: bytes) -> None:
    """Replace ``path`` by ``data`` atomically: a fsynced temporary file renamed over it, the folder fsynced."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    _write_synced(tmp, lambda fh: fh.write(data))
    os.replace(tmp, path)
    _sync_dir(path.parent)


def _sync_dir(d: Path) -> None:
    try:
        fd = os.open(d, os.O_RDONLY)
    except OSError:  # pragma: no cover - a folder cannot be opened (Windows)
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(fd)


# --------------------------------------------------------------------------- layouts


def layout_rows(variant: str) -> list[list[str]]:
    """The rows a user lays out for enrollment: one tile of each kind of the rule system's set, a suit per
    row (red fives after their fives), honours, then bonus tiles and jokers (rows of at most 10)."""
    from assistant.variants import get_variant

    from .inference import KINDS
    from .reconstruct import in_set

    v = get_variant(variant)
    kinds = [k for k in KINDS if k not in ("none", "bk") and in_set(k, v)]
    groups: dict[str, list[str]] = {}
    for k in kinds:
        suit = k[1] if k[0].isdigit() else "x"
        groups.setdefault(suit, []).append(k)
    for suit in "mps":
        if suit in groups:   # red five right after the plain five
            g = groups[suit]
            if f"0{suit}" in g:
                g.remove(f"0{suit}")
                g.insert(g.index(f"5{suit}") + 1 if f"5{suit}" in g else len(g), f"0{suit}")
    rows: list[list[str]] = []
    for suit in ("m", "p", "s", "z", "f", "g", "a", "h", "x"):
        g = groups.get(suit, [])
        for i in range(0, len(g), 10):
            rows.append(g[i:i + 10])
    # small groups share a row (flowers + seasons, animals + faces + joker)
    merged: list[list[str]] = []
    for r in rows:
        if merged and len(merged[-1]) + len(r) <= 10 and merged[-1][0][-1] in "fgahk" and r[0][-1] in "fgahk":
            merged[-1] = merged[-1] + r
        else:
            merged.append(r)
    return merged


def read_layout_file(path: str | os.PathLike) -> list[list[str]]:
    """Rows of codes from a text file (one row per line, codes separated by spaces; ``#`` comments) or a JSON
    list of lists."""
    from .inference import KINDS

    text = Path(path).read_text(encoding="utf-8")
    try:
        data = json.loads(text)
        rows = [[str(c) for c in r] for r in data]
    except (json.JSONDecodeError, TypeError):
        rows = [line.split("#")[0].split() for line in text.splitlines()]
        rows = [r for r in rows if r]
    for i, r in enumerate(rows):
        for c in r:
            if c not in KINDS or c == "none":
                raise TileSetError(f"{path}: row {i + 1}: {c!r} is not a tile code")
    if not rows:
        raise TileSetError(f"{path}: no rows")
    return rows


def assign_rows(tiles: Sequence, rows: Sequence[Sequence[str]], missed: list | None = None) -> list[tuple[int, str]]:
    """Match the tiles found in a layout photo to the layout's rows: boxes that stand in a row beside a
    neighbour of about their size are grouped into rows across the rows' direction (the tiles' median
    orientation); in each row, left to right, the boxes that best read as the layout row's codes stand for
    them (a stray box — astride two tiles, a mark or a pattern on the cloth — is left out); the block of
    consecutive rows that reads best is taken. Returns (tile index, code) pairs; raises TileSetError saying
    what the photo shows when no block has enough boxes in each row.

    With ``missed`` (a list), a row may also take up to :data:`MISSED_PER_ROW` tiles the detector did not box:
    slots one pitch on from a row's boxes, in a gap or at either end, that the layout's order puts there; their
    corners are appended to ``missed`` and a slot's index in the pairs is ``len(tiles) + its place there``."""
    if not tiles:
        raise TileSetError("no tile found in the photo")
    corners = np.array([np.asarray(t.corners if hasattr(t, "corners") else t["corners"], float) for t in tiles])
    readings = [_readings(t) for t in tiles]
    obb = G.quad_to_obb(corners)
    # how surely each box is one of the layout's tiles (stray boxes on a patterned cloth read as other kinds)
    kinds = {c for r in rows for c in r}
    weight = np.array([max([readings[i].get(c, 0.0) for c in kinds] + [0.0]) + 0.05 for i in range(len(tiles))])
    # the rows' direction: the layout tiles all lie one way; the commonest orientation (modulo 180, in 6-degree
    # bins, weighted by that) is theirs, then refined by the boxes near it
    deg = obb[:, 4] % 180.0
    hist = np.bincount((deg // 6).astype(int) % 30, weights=weight, minlength=30)
    hist = hist + np.roll(hist, 1) + np.roll(hist, -1)
    mode = (int(np.argmax(hist)) + 0.5) * 6.0
    near = np.abs((deg - mode + 90.0) % 180.0 - 90.0) < 15.0
    ang = np.radians(deg[near])
    a = 0.5 * math.atan2(float((weight[near] * np.sin(2 * ang)).sum()), float((weight[near] * np.cos(2 * ang)).sum()))
    right = np.array([math.cos(a), math.sin(a)])
    down = np.array([-math.sin(a), math.cos(a)])
    centres = corners.mean(1)
    along, across = centres @ right, centres @ down
    # a tile's extent along and across the rows (whatever way its own box was turned)
    width = np.maximum(np.ptp(corners @ right, axis=1), 1.0)
    height = np.maximum(np.ptp(corners @ down, axis=1), 1.0)
    # a layout tile has a neighbour of about its size about one tile width away along the row
    d_along = np.abs(along[:, None] - along[None, :])
    d_across = np.abs(across[:, None] - across[None, :])
    # (boxes are often misfitted: a pair's mean size is the yardstick, with generous bounds)
    pair_w = (width[:, None] + width[None, :]) / 2
    pair_h = (height[:, None] + height[None, :]) / 2
    ratio = width[None, :] / width[:, None]
    beside = (d_along > 0.55 * pair_w) & (d_along < 1.9 * pair_w) & (d_across < 0.4 * pair_h) & \
        (ratio > 0.55) & (ratio < 1.8)
    index = np.nonzero(beside.any(1))[0]
    if not len(index):
        raise TileSetError("no row of tiles found in the photo (lay the tiles side by side, a finger's gap "
                           "between rows)")
    h_med = float(np.median(height[index]))
    # rows: where boxes that read as the layout's kinds crowd across the photo (a density of their positions
    # across the rows, each box weighted by how surely it is one of the layout's tiles: a patterned cloth's
    # stray boxes spread thin, the layout's rows stand out)
    lo, hi = float(across[index].min()) - h_med, float(across[index].max()) + h_med
    grid = np.arange(lo, hi, max(h_med / 10, 0.5))
    sigma = 0.2 * h_med
    density = (weight[index][None, :] * np.exp(-0.5 * ((grid[:, None] - across[index][None, :]) / sigma) ** 2)).sum(1)
    peaks = [k for k in range(1, len(grid) - 1) if density[k] >= density[k - 1] and density[k] > density[k + 1]]
    peaks.sort(key=lambda k: -density[k])
    centres_across: list[float] = []
    for k in peaks:   # the strongest peaks at least 0.7 tile heights apart
        if all(abs(grid[k] - c) > 0.7 * h_med for c in centres_across):
            centres_across.append(float(grid[k]))
    centres_across = sorted(centres_across[:max(len(rows), 1) * 3])
    groups = [[int(i) for i in index if abs(across[i] - c) < 0.4 * h_med] for c in centres_across]
    groups = [g for g in groups if g]
    want = [len(r) for r in rows]
    slots: list[np.ndarray] = []
    if missed is not None:
        # slots for tiles the detector missed: one pitch on from a row's boxes, in its gaps and past its ends
        pitch0 = 1.06 * float(np.median(width[index]))
        for g in groups:
            g.sort(key=lambda i: along[i])
            pos = [float(along[i]) for i in g]
            extra: list[tuple[int, float]] = []
            for a, b, ia in zip(pos, pos[1:], g, strict=False):
                n_gap = int(round((b - a) / pitch0)) - 1
                extra += [(ia, a + (b - a) * (j + 1) / (n_gap + 1)) for j in range(min(n_gap, MISSED_PER_ROW))]
            extra += [(g[0], pos[0] - pitch0 * (j + 1)) for j in range(MISSED_PER_ROW)]
            extra += [(g[-1], pos[-1] + pitch0 * (j + 1)) for j in range(MISSED_PER_ROW)]
            for beside, at in extra:
                q = corners[beside] + (at - along[beside]) * right
                slots.append(q)
                g.append(len(corners) + len(slots) - 1)
        if slots:
            corners = np.concatenate([corners, np.array(slots)])
            centres = corners.mean(1)
            along, across = centres @ right, centres @ down
            readings = readings + [{} for _ in slots]
            for g in groups:
                g.sort(key=lambda i: along[i])
    # the layout's rows: one group each, in order across the photo (groups between them are stray), the
    # choice whose boxes read best as the rows' codes
    pitch = 1.06 * float(np.median(width[index]))
    scored = [[_align(sorted(g, key=lambda i: along[i]), list(r), readings, along, pitch,
                      len(tiles) if slots else None) if len(g) >= len(r)
               else None for r in rows] for g in groups]
    G_, R_ = len(groups), len(rows)
    table = np.full((G_ + 1, R_ + 1), -np.inf)
    table[:, 0] = 0.0
    for gi in range(1, G_ + 1):
        for ri in range(1, R_ + 1):
            table[gi, ri] = table[gi - 1, ri]
            cell = scored[gi - 1][ri - 1]
            if cell is not None:
                table[gi, ri] = max(table[gi, ri], table[gi - 1, ri - 1] + cell[1])
    best = None
    if np.isfinite(table[G_, R_]):
        best, gi, ri = [], G_, R_
        while ri > 0:
            cell = scored[gi - 1][ri - 1]
            if cell is not None and table[gi, ri] == table[gi - 1, ri - 1] + cell[1]:
                best.append(cell[0])
                ri -= 1
            gi -= 1
        best.reverse()
    if best is None:
        raise TileSetError(f"the photo shows rows of {[len(g) for g in groups]} tiles; the layout has {len(rows)} "
                           f"rows of {want} (lay one tile of each kind in the rows printed, with a gap between rows)")
    # the rows must be rows: evenly spaced tiles (stray boxes picked to fit a wrong layout are not)
    for k, g in enumerate(best):
        if len(g) >= 3:
            gaps = np.diff(sorted(along[i] for i in g))
            if float(np.std(gaps)) > 0.35 * float(np.mean(gaps)):
                raise TileSetError(f"row {k + 1} of the layout is not found as a row of evenly spaced tiles: lay the "
                                   "tiles side by side in the rows printed for this rule system")
    # the tiles must look like the layout: most are read (in their top 3) as the kind they stand for
    agree = sum(1 for g, r in zip(best, rows, strict=True) for i, c in zip(g, r, strict=True) if c in readings[i])
    if agree < MIN_AGREE * sum(want):
        raise TileSetError(f"only {agree} of the {sum(want)} tiles look like the layout's kinds: lay them in the order "
                           "printed for this rule system (or give --layout with your own order)")
    n_tiles = len(tiles)
    for k, g in enumerate(best):
        if sum(1 for i in g if i >= n_tiles) > MISSED_PER_ROW:
            raise TileSetError(f"row {k + 1} of the layout is not found as a row of evenly spaced tiles: lay the "
                               "tiles side by side in the rows printed for this rule system")
    out = []
    for g, r in zip(best, rows, strict=True):
        for i, c in zip(g, r, strict=True):
            if i >= n_tiles and missed is not None:   # a slot: renumbered in the order the slots are taken
                missed.append(corners[i])
                i = n_tiles + len(missed) - 1
            out.append((int(i), c))
    return out


def _readings(tile) -> dict[str, float]:
    """The kinds a tile was read as, with their probabilities (its top 3, or its code)."""
    top = getattr(tile, "top3", None) if hasattr(tile, "corners") else tile.get("top3")
    out: dict[str, float] = {}
    for item in top or []:
        code, p = (item.get("code"), item.get("p", 0.0)) if isinstance(item, dict) else (item[0], item[1])
        out[str(code)] = float(p)
    if not out:
        code = getattr(tile, "code", None) if hasattr(tile, "corners") else tile.get("code")
        if code:
            out[str(code)] = float(getattr(tile, "confidence", 1.0) if hasattr(tile, "corners")
                                   else tile.get("confidence", 1.0))
    return out


def _align(boxes: list[int], codes: list[str], readings: list[dict[str, float]], along: np.ndarray | None = None,
           pitch: float = 0.0, slots_from: int | None = None) -> tuple[list[int], float]:
    """The boxes of a row (in order along it) that best stand for the layout row ``codes``, in order: a box
    may be left out (a stray box astride two tiles, a mark on the cloth), a layout tile may not. Each box
    scores how surely it reads as the code it would stand for; with ``along`` and ``pitch``, each step from
    one chosen box to the next scores how close it is to one tile's pitch. Boxes from ``slots_from`` on are
    slots where no box was found: each scores below any box, so a box is taken where there is one."""
    n, m = len(boxes), len(codes)
    floor = math.log(0.02)
    gain = np.array([[max(math.log(max(readings[b].get(c, 0.0), 1e-6)), floor) for c in codes] for b in boxes])
    if slots_from is not None:
        gain[np.array(boxes) >= slots_from] = floor - 1.0
    pos = np.array([along[b] for b in boxes]) if along is not None and pitch > 0 else None
    # best[j, k]: the best score with box j standing for code k
    best = np.full((n, m), -np.inf)
    back = np.full((n, m), -1, int)
    best[:, 0] = gain[:, 0]
    for k in range(1, m):
        for j in range(k, n):
            prev = best[:j, k - 1]
            if pos is not None:
                prev = prev - 3.0 * np.abs((pos[j] - pos[:j]) / pitch - 1.0)
            i = int(np.argmax(prev))
            if np.isfinite(prev[i]):
                best[j, k] = prev[i] + gain[j, k]
                back[j, k] = i
    j = int(np.argmax(best[:, m - 1]))
    score = float(best[j, m - 1])
    picked = [boxes[j]]
    for k in range(m - 1, 0, -1):
        j = int(back[j, k])
        picked.append(boxes[j])
    return picked[::-1], score


# --------------------------------------------------------------------------- a tile set


@dataclass
class TileSet:
    name: str
    variant: str | None = None
    crops: np.ndarray = field(default_factory=lambda: np.zeros((0, 96, 72, 3), np.uint8))
    codes: list[str] = field(default_factory=list)
    added: list[float] = field(default_factory=list)     # when each example was added (unix time)
    head: dict[str, np.ndarray] | None = None
    network: bytes | None = None        # the adapted classifier (int8 ONNX, models.adapt_set), when one was kept
    network_base: str | None = None     # the head fingerprint of the classifier it was adapted from
    history: list[dict] = field(default_factory=list)
    stored: bool = field(default=False, repr=False, compare=False)   # read from (or written to) its folder

    @property
    def folder(self) -> Path:
        return root_dir() / self.name

    def kinds(self) -> list[str]:
        """The kinds this set may show: its rule system's (backs and "not a tile" always), whatever kinds its
        examples have shown so far; a set of no rule system may show any kind."""
        from .inference import KINDS

        mask = self.kind_mask()
        return sorted(KINDS if mask is None else (k for k, m in zip(KINDS, mask, strict=True) if m))

    def kind_mask(self) -> np.ndarray | None:
        """[56] bool of the kinds to read: the rule system's, never narrowed to the kinds its examples have
        shown (three photos of ordinary play show a few of them only); None for a set of no rule system."""
        from .inference import kind_mask

        return kind_mask(self.variant).copy() if self.variant else None

    def summary(self) -> dict:
        counts: dict[str, int] = {}
        for c in self.codes:
            counts[c] = counts.get(c, 0) + 1
        return {"name": self.name, "variant": self.variant, "examples": len(self.codes),
                "kinds": len([k for k in counts if k != "none"]), "per_kind": counts,
                "adapted": self.head is not None or self.network is not None,
                "network": self.network is not None, "history": self.history[-10:]}

    # -- storage ------------------------------------------------------------------------------------
    def save(self) -> None:
        """Write the set (see the module's doc) under its lock: the examples and head into new files, then
        ``set.json`` naming them, replacing the one before; then the files it no longer names are deleted.
        A set removed since it was read is not written back (TileSetError)."""
        with locked(self.name):
            d = self.folder
            if self.stored and not (d / "set.json").is_file():
                raise TileSetError(f"tile set {self.name!r} was removed meanwhile: not saved again")
            d.mkdir(parents=True, exist_ok=True)
            gen = os.urandom(4).hex()
            files: dict[str, str | None] = {"examples": f"examples-{gen}.npz", "head": None, "network": None}
            _write_synced(d / f"examples-{gen}.npz", lambda fh: np.savez_compressed(
                fh, crops=self.crops.reshape(-1, 96, 72, 3), codes=np.array(self.codes, dtype="U4"),
                added=np.array(self.added, np.float64)))
            if self.head is not None:
                head = self.head
                files["head"] = f"head-{gen}.npz"
                _write_synced(d / f"head-{gen}.npz", lambda fh: np.savez(fh, **cast(dict[str, Any], head)))
            if self.network is not None:
                net = self.network
                files["network"] = f"classifier-{gen}.onnx"
                _write_synced(d / f"classifier-{gen}.onnx", lambda fh: fh.write(net))
            _sync_dir(d)
            info = self.summary()
            meta = {"name": self.name, "variant": self.variant, "history": self.history[-50:], "files": files,
                    "network_base": self.network_base if self.network is not None else None,
                    "sizes": {f: (d / f).stat().st_size for f in files.values() if f},
                    "summary": {k: info[k] for k in ("examples", "kinds", "per_kind", "adapted", "network")}}
            _replace_synced(d / "set.json", json.dumps(meta, indent=1).encode("utf-8"))
            for p in d.iterdir():   # the files of the save before (and of one a crash cut short)
                if p.name != "set.json" and p.name not in files.values() and (p.suffix in (".npz", ".onnx") or
                                                                             p.name.endswith(".tmp")):
                    p.unlink(missing_ok=True)
            self.stored = True

    @classmethod
    def load(cls, name: str) -> TileSet:
        """The set ``name`` as stored. TileSetError when there is none, or when its files are damaged (saying
        how: ``remove`` still deletes it)."""
        check_name(name)
        d = root_dir() / name
        for attempt in range(3):
            if not (d / "set.json").is_file():
                raise TileSetError(f"no tile set named {name!r} (see `mahjong-assistant tileset list`)")
            try:
                return cls._read(d, name)
            except FileNotFoundError as exc:   # a save replaced the files meanwhile: read them again
                if attempt == 2:
                    raise _damaged(name, exc) from None
            except Exception as exc:  # noqa: BLE001 - whatever the damage, the set is refused with the reason
                raise _damaged(name, exc) from None
        raise AssertionError("unreachable")  # pragma: no cover

    @classmethod
    def _read(cls, d: Path, name: str) -> TileSet:
        from assistant.variants import variant_names

        from .inference import KINDS

        meta = _read_meta(d)
        variant = meta.get("variant")
        if variant is not None and variant not in variant_names():
            raise ValueError(f"set.json: unknown rule system {variant!r}")
        history = meta.get("history", [])
        if not isinstance(history, list):
            raise ValueError("set.json: 'history' is not a list")
        history = [h for h in history if isinstance(h, dict) and {"source", "added", "kept"} <= h.keys()]
        files, legacy = _files(meta)
        ts = cls(name=name, variant=variant, history=history, stored=True)
        ex, hd, net = files.get("examples"), files.get("head"), files.get("network")
        if ex and (not legacy or (d / ex).is_file()):
            with _npz(d / ex) as z:
                crops, codes = z["crops"], [str(c) for c in z["codes"]]
                added = z["added"] if "added" in z.files else np.zeros(len(codes))
            if crops.dtype != np.uint8 or crops.ndim != 4 or crops.shape[1:] != (96, 72, 3):
                raise ValueError(f"{ex}: crops of {crops.dtype} {crops.shape}, not [N, 96, 72, 3] uint8")
            if not len(codes) == len(crops) == len(added):
                raise ValueError(f"{ex}: {len(crops)} crops, {len(codes)} codes, {len(added)} times")
            bad = next((c for c in codes if c not in KINDS), None)
            if bad is not None:
                raise ValueError(f"{ex}: {bad!r} is not a tile code")
            ts.crops, ts.codes, ts.added = crops, codes, [float(t) for t in added]
        if hd and (not legacy or (d / hd).is_file()):
            with _npz(d / hd) as z:
                head = {k: z[k] for k in z.files}
            w, b = head.get("weight"), head.get("bias")
            if w is None or b is None or w.ndim != 2 or w.shape[0] != len(KINDS) or b.shape != (len(KINDS),) or \
                    not (np.isfinite(w).all() and np.isfinite(b).all()):
                raise ValueError(f"{hd}: not a kind head of finite numbers")
            ts.head = head
        if net:
            data = (d / net).read_bytes()
            base = meta.get("network_base")
            if not data or len(data) > MAX_NETWORK_BYTES or not isinstance(base, str):
                raise ValueError(f"{net}: not an adapted classifier ({len(data)} bytes, base {base!r})")
            _check_network(data, net)
            ts.network, ts.network_base = data, base
        return ts

    def head_for(self, shipped: dict[str, np.ndarray]) -> dict[str, np.ndarray] | None:
        """The adapted head if it was trained on top of ``shipped`` (the current classifier), else None."""
        from .heads import head_fingerprint

        if self.head is None or "base" not in self.head:
            return None
        if str(self.head["base"]) != head_fingerprint(shipped) or self.head["weight"].shape != shipped["weight"].shape:
            return None
        return {"weight": self.head["weight"].astype(np.float32), "bias": self.head["bias"].astype(np.float32)}

    def network_for(self, shipped: dict[str, np.ndarray]) -> bytes | None:
        """The adapted classifier (ONNX bytes) if it was adapted from the classifier whose head is ``shipped``."""
        from .heads import head_fingerprint

        if self.network is None or self.network_base != head_fingerprint(shipped):
            return None
        return self.network


FILE_RE = re.compile(r"(examples|head)(-[0-9a-f]{1,32})?\.npz|classifier-[0-9a-f]{1,32}\.onnx")


def _check_network(data: bytes, what: str) -> None:
    """ValueError unless ``data`` is an ONNX classifier with the classifier's outputs."""
    import onnxruntime as ort

    try:
        sess = ort.InferenceSession(data, providers=["CPUExecutionProvider"])
    except Exception as exc:  # noqa: BLE001 - onnxruntime raises its own kinds for a damaged file
        raise ValueError(f"{what}: not an ONNX model ({str(exc)[:120]})") from None
    if not {"kind_logits", "flip_logit"} <= {o.name for o in sess.get_outputs()}:
        raise ValueError(f"{what}: a model without the classifier's outputs")


def _npz(path: Path):
    """``np.load`` of an ``.npz`` archive (ValueError for a file that is none: never read as a pickle)."""
    _check_npz(path)
    return np.load(path, allow_pickle=False)


def _check_npz(path: Path) -> None:
    """ValueError unless ``path`` begins and ends as a zip archive does (one cut short does not)."""
    with open(path, "rb") as fh:
        head = fh.read(4)
        fh.seek(max(0, path.stat().st_size - 1024))
        tail = fh.read()
    if head != b"PK\x03\x04" or b"PK\x05\x06" not in tail:
        raise ValueError(f"{path.name} is damaged (not an .npz archive, or one cut short)")


def _damaged(name: str, exc: BaseException) -> TileSetError:
    why = str(exc) if isinstance(exc, ValueError) and not isinstance(exc, json.JSONDecodeError) else \
        f"{type(exc).__name__}: {exc}"
    return TileSetError(f"tile set {name!r} cannot be read ({why[:300]}); `mahjong-assistant tileset remove {name}` "
                        "deletes it")


def _read_meta(d: Path) -> dict:
    """A set's ``set.json`` (ValueError when it is no JSON object, or names files of other sizes than it says)."""
    text = (d / "set.json").read_text(encoding="utf-8")
    try:
        meta = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"set.json is not JSON ({exc})") from None
    if not isinstance(meta, dict):
        raise ValueError("set.json is not a JSON object")
    sizes = meta.get("sizes", {})
    if not isinstance(sizes, dict):
        raise ValueError("set.json: 'sizes' is not an object")
    files, legacy = _files(meta)
    for f in files.values():
        if f and not legacy and not (d / f).is_file():
            raise FileNotFoundError(f"{f} is missing")
        if f and f in sizes and (d / f).is_file() and (d / f).stat().st_size != sizes[f]:
            raise ValueError(f"{f} is {(d / f).stat().st_size} bytes, set.json says {sizes[f]} (a damaged or partly "
                             "written file)")
        if f and f.endswith(".npz") and (d / f).is_file():
            _check_npz(d / f)
    return meta


def _files(meta: dict) -> tuple[dict[str, str | None], bool]:
    """The example and head files ``set.json`` names, and whether it names none (a set saved before they had
    names of their own: ``examples.npz``, ``head.npz`` when present)."""
    if "files" not in meta:
        return {"examples": "examples.npz", "head": "head.npz"}, True
    files = meta["files"]
    if not isinstance(files, dict):
        raise ValueError("set.json: 'files' is not an object")
    out: dict[str, str | None] = {}
    for k, stem in (("examples", "examples"), ("head", "head"), ("network", "classifier-")):
        f = files.get(k)
        if f is not None and (not isinstance(f, str) or not FILE_RE.fullmatch(f) or not f.startswith(stem)):
            raise ValueError(f"set.json: {f!r} is not a file of a tile set")
        out[k] = f
    return out, False


def list_sets() -> list[str]:
    d = root_dir()
    if not d.is_dir():
        return []
    return sorted(p.name for p in d.iterdir() if _valid_name(p.name) and (p / "set.json").is_file())


def _valid_name(name: str) -> bool:
    try:
        check_name(name)
    except TileSetError:
        return False
    return True


def summaries() -> tuple[list[dict], list[dict]]:
    """What each set holds, from its ``set.json`` alone (no example is read; a set saved before set.json kept a
    summary is read whole, until it is saved again), and the sets that cannot be read, with the reason:
    ([summary], [{"name", "reason"}])."""
    good, damaged = [], []
    for name in list_sets():
        try:
            try:
                meta = _read_meta(root_dir() / name)
            except FileNotFoundError:   # a save replaced the files meanwhile: read again
                meta = _read_meta(root_dir() / name)
            info = meta.get("summary")
            if not isinstance(info, dict) or not isinstance(info.get("examples"), int) or \
                    not isinstance(info.get("kinds"), int) or not isinstance(info.get("per_kind"), dict):
                info = TileSet.load(name).summary()
            history = meta.get("history", [])
            history = [h for h in history if isinstance(h, dict)][-10:] if isinstance(history, list) else []
            variant = meta.get("variant")
            good.append({"name": name, "variant": variant if isinstance(variant, str) else None,
                         "examples": info["examples"], "kinds": info["kinds"], "per_kind": info["per_kind"],
                         "adapted": bool(info.get("adapted")), "network": bool(info.get("network")),
                         "history": history})
        except TileSetError as exc:
            damaged.append({"name": name, "reason": str(exc)})
        except (OSError, ValueError) as exc:
            damaged.append({"name": name, "reason": str(_damaged(name, exc))})
    return good, damaged


def _active_file() -> str | None:
    try:
        return (root_dir() / "active").read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None


def active_name() -> str | None:
    name = _active_file()
    if not name or not _valid_name(name):
        return None
    return name if (root_dir() / name / "set.json").is_file() else None


def use(name: str | None) -> None:
    """Make ``name`` the set in use (None: none)."""
    d = root_dir()
    if name is None:
        try:
            (d / "active").unlink()
        except FileNotFoundError:
            pass
        return
    TileSet.load(name)
    d.mkdir(parents=True, exist_ok=True)
    _replace_synced(d / "active", (name + "\n").encode("utf-8"))


def remove(name: str) -> None:
    """Delete the set ``name`` and its examples, readable or not. Under its lock: a lesson of the set that is
    running ends first, and the set does not come back after it."""
    import shutil

    check_name(name)
    with locked(name):
        d = root_dir() / name
        if not d.is_dir():
            raise TileSetError(f"no tile set named {name!r} (see `mahjong-assistant tileset list`)")
        if _active_file() == name:
            use(None)
        shutil.rmtree(d)


def _load_or_new(name: str, variant: str | None) -> TileSet:
    """The set ``name`` (TileSetError when it is damaged: nothing is written over it), or a new one."""
    if (root_dir() / name / "set.json").is_file():
        return TileSet.load(name)
    return TileSet(name=name, variant=variant)


# --------------------------------------------------------------------------- learning


def views(crops: np.ndarray, rng: np.random.Generator, n: int = VIEWS) -> np.ndarray:
    """``n`` jittered views of each upright crop (the first is the crop itself): turned up to 12 degrees,
    shifted and scaled a little (a misfitted box), lighter or darker, upside down half of the time (the
    detector knows up only modulo 180)."""
    return views_and_lie(crops, rng, n)[0]


def views_and_lie(crops: np.ndarray, rng: np.random.Generator, n: int = VIEWS) -> tuple[np.ndarray, np.ndarray]:
    """:func:`views`, and for each view whether it lies upside down."""
    import cv2

    h, w = crops.shape[1:3]
    out = np.empty((len(crops) * n, h, w, 3), np.uint8)
    flipped = np.zeros(len(crops) * n, bool)
    k = 0
    for c in crops:
        for j in range(n):
            if j == 0:
                out[k] = c
            else:
                a = rng.uniform(-12, 12)
                s = math.exp(rng.normal(0, 0.07))
                M = np.asarray(cv2.getRotationMatrix2D((w / 2 - 0.5, h / 2 - 0.5), a, s), np.float64)
                M[:, 2] = M[:, 2] + rng.normal(0, 0.05, 2) * np.array([w, h], np.float64)
                v = cv2.warpAffine(c, M, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
                v = np.clip(v.astype(np.float32) * rng.uniform(0.75, 1.2) + rng.uniform(-20, 20), 0, 255)
                out[k] = v.astype(np.uint8)
                if rng.random() < 0.5:
                    out[k] = out[k][::-1, ::-1]
                    flipped[k] = True
            k += 1
    return out, flipped


def _fingerprint(crop: np.ndarray) -> str:
    return hashlib.sha1(np.ascontiguousarray(crop).tobytes()).hexdigest()


def _accuracy(head: dict[str, np.ndarray], feats: np.ndarray, labels: np.ndarray, mask: np.ndarray | None) -> float:
    if not len(labels):
        return float("nan")
    logits = feats @ head["weight"].T + head["bias"]
    if mask is not None:
        logits = np.where(mask[None], logits, -1e9)
    return float(np.mean(logits.argmax(1) == labels))


def _features(recognizer, crops: np.ndarray) -> np.ndarray:
    """The recogniser's features of ``crops``, :data:`FEATURE_BATCH` crops at a time (bounded memory)."""
    if len(crops) <= FEATURE_BATCH:
        return recognizer.features(crops)
    return np.concatenate([recognizer.features(crops[i:i + FEATURE_BATCH])
                           for i in range(0, len(crops), FEATURE_BATCH)])


def _capped(idx: np.ndarray, first: int, rng: np.random.Generator) -> np.ndarray:
    """At most :data:`MAX_TRAIN` of the examples ``idx``: those from ``first`` on (the lesson's own) first, then
    a random sample of the earlier ones, in their order."""
    if len(idx) <= MAX_TRAIN:
        return idx
    new, old = idx[idx >= first], idx[idx < first]
    if len(new) >= MAX_TRAIN:
        return np.sort(rng.choice(new, MAX_TRAIN, replace=False))
    return np.sort(np.concatenate([new, rng.choice(old, MAX_TRAIN - len(new), replace=False)]))


def _finite(report: dict) -> dict:
    """``report`` with None for every number that is not finite (JSON has no NaN)."""
    return {k: None if isinstance(v, float) and not math.isfinite(v) else v for k, v in report.items()}


def learn(ts: TileSet, crops: np.ndarray, codes: Sequence[str], recognizer, *, source: str = "photo",
          holdout: float = 0.25, seed: int = 0, steps: int = 200, network: bool | None = None,
          context: np.ndarray | None = None) -> dict:
    """Add examples to ``ts`` and adapt its model (see the module's doc): the network's later stages where
    PyTorch is installed (``network`` None; True insists, False adapts the last layer only), else its last layer.
    Returns a report: examples added, what adapts (``adapts``), held-back accuracy before/after (None when
    nothing was held back), the generic examples' before/after, ``context``: crops of the set's other tiles
    (the rest of the corrected frame or photo, unlabelled: those the shipped models read surely must read the
    same after, :data:`CONTEXT_SLACK` aside), whether the new model was kept, seconds
    taken. Saves the set; the examples of a lesson whose model is not kept are not kept either. Call it holding
    the set's lock (:func:`locked`) from loading ``ts`` on."""
    from .inference import KINDS

    t0 = time.perf_counter()
    crops = np.asarray(crops, np.uint8).reshape(-1, 96, 72, 3)
    codes = list(codes)
    if len(codes) != len(crops):
        raise TileSetError(f"{len(crops)} crops but {len(codes)} codes")
    if len(crops) > MAX_LESSON:
        raise TileSetError(f"{len(crops)} examples at once: one lesson takes at most {MAX_LESSON}")
    for c in codes:
        if c not in KINDS:
            raise TileSetError(f"{c!r} is not a tile code")
    known = {_fingerprint(c) for c in ts.crops}
    new = []
    for i, crop in enumerate(crops):   # each crop once, also within the lesson
        fp = _fingerprint(crop)
        if fp not in known:
            known.add(fp)
            new.append(i)
    crops, codes = crops[new], [codes[i] for i in new]
    kept_examples = (ts.crops, ts.codes, ts.added)   # what the set keeps if the new head is not kept
    old_n = len(ts.codes)
    if len(crops):
        ts.crops = np.concatenate([ts.crops.reshape(-1, 96, 72, 3), crops]) if old_n else crops
        ts.codes = ts.codes + codes
        ts.added = ts.added + [time.time()] * len(codes)
    if len(ts.codes) > MAX_EXAMPLES:
        drop = len(ts.codes) - MAX_EXAMPLES
        ts.crops, ts.codes, ts.added = ts.crops[drop:], ts.codes[drop:], ts.added[drop:]
        old_n = max(0, old_n - drop)
    cls_path = getattr(recognizer, "cls_path", None)
    labels = np.array([KINDS.index(c) for c in ts.codes], np.int64)
    rng = np.random.default_rng(seed)
    report = {"set": ts.name, "source": source, "added": len(codes), "examples": len(ts.codes)}
    waited = sum(int(h.get("added", 0)) for h in _waiting(ts.history))
    if len(ts.codes) < 2:
        ts.history.append({"time": round(time.time()), "source": source, "added": len(codes), "kept": False,
                           "held_back": 0, "accuracy_before": None, "accuracy_after": None, "waiting": True})
        ts.save()
        return {**report, "kept": False, "reason": "too few examples to adapt yet", "seconds": time.perf_counter() - t0}
    learner = _learner(ts, labels, recognizer, cls_path, rng, steps, network)
    # a network waits for MIN_NETWORK_EXAMPLES: the examples kept by the lessons that waited were never judged,
    # they are this lesson's own too (else the lesson reaching them was judged on its last tap alone: a confirmed
    # tile read right already is "nothing to adapt")
    first = max(0, old_n - waited) if learner.what == "network" else old_n
    new_idx = np.arange(first, len(ts.codes))
    learner.old_n = first
    report["adapts"] = learner.what
    if learner.note:
        report["note"] = learner.note
    if learner.what == "network" and len(ts.codes) < MIN_NETWORK_EXAMPLES:
        ts.history.append({"time": round(time.time()), "source": source, "added": len(codes), "kept": False,
                           "held_back": 0, "adapts": learner.what, "accuracy_before": None, "accuracy_after": None,
                           "waiting": True})
        ts.save()
        return {**report, "kept": False, "seconds": time.perf_counter() - t0,
                "reason": f"{len(ts.codes)} examples so far: the network adapts from {MIN_NETWORK_EXAMPLES} on "
                          "(these are kept for the next lesson)"}
    # held back: a share of the new examples (at least one when there are several), of those the shipped models
    # misread and of the others (:func:`_hold_back`); a network adapted from a lesson of a correction or two
    # holds back a share of all the set's examples
    pool = new_idx if len(new_idx) >= 4 or learner.what != "network" else np.arange(len(ts.codes))
    misread = np.zeros(len(ts.codes), bool)
    if len(pool) >= 4:
        misread[pool] = learner.probabilities(learner.shipped, learner.crops_of(pool)).argmax(1) != labels[pool]
    hold = _hold_back(pool, labels, misread, holdout, rng)
    train_idx = np.setdiff1d(np.arange(len(ts.codes)), hold)
    sure_crops, sure_kinds = _sure_context(learner, context, new_idx)
    ok, model, figures = _guarded_fit(learner, train_idx, hold, new_idx, first, (sure_crops, sure_kinds))
    report.update(figures, held_back=int(len(hold)), kept=bool(ok))
    if ok:
        learner.keep(ts, model)
    elif figures["nothing_to_gain"]:   # right examples (the shipped models read them so): kept, the model is not
        report.update(reason="the built-in models already read these tiles right: nothing to adapt")
    elif figures["examples_ok"]:   # right examples: kept for the next lesson, the model is not
        why = ("read the held-back examples no better than the built-in models" if figures["context_ok"] else
               f"read {100 * (1 - figures['other_tiles_after']):.0f} % of the set's other tiles on the photo "
               "otherwise than the built-in models read them surely")
        report.update(reason=f"the adapted model {why}: the examples were kept (the next lesson learns from them "
                      "too), the model was not")
    else:   # nor are its examples: wrong labels (a flood of bad corrections) must not stay in the set
        ts.crops, ts.codes, ts.added = kept_examples
        report.update(examples=len(ts.codes), reason=_refusal(figures))
    before_hold, after_hold = figures["accuracy_before"], figures["accuracy_after"]
    ts.history.append({"time": round(time.time()), "source": source, "added": len(codes), "kept": bool(ok),
                       "held_back": int(len(hold)), "adapts": learner.what,
                       "accuracy_before": None if math.isnan(before_hold) else round(before_hold, 4),
                       "accuracy_after": None if math.isnan(after_hold) else round(after_hold, 4)})
    ts.save()
    report["seconds"] = time.perf_counter() - t0
    return _finite(report)


def _waiting(history: list[dict]) -> list[dict]:
    """The latest lessons that kept their examples without adapting anything yet (too few examples), newest
    last."""
    out: list[dict] = []
    for h in reversed(history):
        if not h.get("waiting"):
            break
        out.insert(0, h)
    return out


def _hold_back(pool: np.ndarray, labels: np.ndarray, misread: np.ndarray, holdout: float,
               rng: np.random.Generator) -> np.ndarray:
    """The examples of ``pool`` a lesson's model is judged on, not trained on: a share ``holdout`` of them (none of
    fewer than 4), taken of those the shipped models ``misread`` (at least one where one can be) and of the others
    apart, so that the held-back examples can show a gain: held-back tiles all read right already (a page lesson
    of a few corrections and many confirmed tiles) can be read no better. A misread example is held back only
    while its kind keeps another example to learn from (a kind shown once cannot be both taught and checked)."""
    pool = np.asarray(pool, np.int64)
    n_hold = int(round(holdout * len(pool))) if len(pool) >= 4 else 0
    if not n_hold:
        return np.zeros(0, np.int64)
    wrong, right = pool[misread[pool]], pool[~misread[pool]]
    left = {int(k): int(n) - 1 for k, n in zip(*np.unique(labels, return_counts=True), strict=True)}
    want = min(n_hold, max(1, int(round(holdout * len(wrong))))) if len(wrong) else 0
    held: list[int] = []
    for i in rng.permutation(wrong):
        if len(held) >= want:
            break
        if left[int(labels[i])] > 0:
            left[int(labels[i])] -= 1
            held.append(int(i))
    held += [int(i) for i in rng.permutation(right)[:n_hold - len(held)]]
    return np.array(sorted(held), np.int64)


def adapting() -> dict:
    """What learning a set adapts on this install: ``{"network": bool, "note": why not}``."""
    try:
        from models import adapt_set
    except ImportError:
        return {"network": False, "note": "only the classifier's last layer adapts on this install"}
    ok = adapt_set.available()
    return {"network": ok, "note": "" if ok else adapt_set.MISSING}


def _refusal(figures: dict) -> str:
    """Why a lesson's model (and its examples) were not kept, in a user's words."""
    if not figures["generic_ok"]:
        why = "read the generic examples of other kinds worse than the built-in models"
    else:
        why = ("did not read the held-back or new examples better than the built-in models, or read earlier ones "
               "worse")
    return f"the adapted model {why}: neither it nor the new examples were kept"


def _sure_context(learner: _Learner, context: np.ndarray | None, new_idx: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray]:
    """The set's other tiles (``context`` crops) the shipped models read surely, with those readings; kinds the
    lesson is about (its codes, and what the shipped models read its examples as) are left out: an adapted
    model is meant to read those otherwise."""
    if context is None or not len(context):
        return np.zeros((0, 96, 72, 3), np.uint8), np.zeros(0, np.int64)
    from .inference import KINDS

    context = np.asarray(context, np.uint8).reshape(-1, 96, 72, 3)[:MAX_CONTEXT]
    probs = learner.probabilities(learner.shipped, context)
    kinds, conf = probs.argmax(1), probs.max(1)
    lesson = set(learner.labels[new_idx].tolist())
    lesson |= set(learner.probabilities(learner.shipped, learner.crops_of(new_idx)).argmax(1).tolist())
    sure = (conf >= SURE) & (kinds != KINDS.index("none")) & ~np.isin(kinds, sorted(lesson))
    return context[sure], kinds[sure]


def _guarded_fit(learner: _Learner, train_idx: np.ndarray, hold: np.ndarray, new_idx: np.ndarray, old_n: int,
                 context: tuple[np.ndarray, np.ndarray]) -> tuple[bool, object, dict]:
    """Fit ``learner``'s model and judge it (the guard). Kept only when it reads the lesson's held-back examples
    better than the shipped models (a lesson too small to hold any back: its examples as a whole) and no worse
    than the model in use, the earlier examples no worse and the generic examples at most :data:`GENERIC_SLACK`
    worse: a model that learned nothing, or reads anything worse, is not kept (``no_worse``: its examples are
    still right ones to keep). Where the shipped models read every new example right there is nothing to adapt: a
    model fitted to a few kinds then reads the set's other kinds worse (real sets read from 0.98 to 0.28 F1 that
    way)."""
    old = np.arange(old_n)
    before_hold, before_old = learner.accuracy(learner.current, hold), learner.accuracy(learner.current, old)
    shipped_hold, shipped_new = learner.accuracy(learner.shipped, hold), learner.accuracy(learner.shipped, new_idx)
    model = learner.fit(train_idx)
    after_hold, after_old = learner.accuracy(model, hold), learner.accuracy(model, old)
    after_new = learner.accuracy(model, new_idx)
    generic_before, generic_after = learner.generic(learner.shipped), learner.generic(model)
    generic_ok = not generic_after < generic_before - GENERIC_SLACK

    def context_read(m) -> float:   # the set's other tiles read as the shipped models read them surely
        return float(np.mean(learner.probabilities(m, context[0]).argmax(1) == context[1])) if len(context[1]) \
            else float("nan")

    context_after = context_read(model)
    context_ok = not context_after < 1.0 - CONTEXT_SLACK
    nothing_to_gain = shipped_new >= 1.0
    earlier_ok = not old_n or after_old >= before_old
    if len(hold):   # better than the shipped models on examples it never saw, no worse than the model in use
        gained = after_hold > shipped_hold and after_hold >= before_hold
    else:           # a lesson too small to hold any back (a correction or two on the page)
        gained = after_new > shipped_new
    # the examples themselves are right ones to keep unless the model they taught read held-back, generic or
    # earlier examples worse (a flood of wrong corrections), or could not learn them at all (labels at odds
    # with earlier examples or the generic ones); the set's other tiles read otherwise says the lesson was too
    # small, not that it was wrong
    examples_ok = generic_ok and earlier_ok and after_new > shipped_new and \
        (not len(hold) or after_hold >= shipped_hold)
    ok = gained and generic_ok and context_ok and not nothing_to_gain and earlier_ok
    if ok and len(hold):
        model = learner.fit(np.arange(len(learner.labels)))   # the check passed: train on everything
        after_all_old = learner.accuracy(model, old)
        generic_after, context_after = learner.generic(model), context_read(model)
        ok = (not old_n or after_all_old >= before_old) and not generic_after < generic_before - GENERIC_SLACK \
            and not context_after < 1.0 - CONTEXT_SLACK
    return ok, model, {"accuracy_before": before_hold, "accuracy_after": after_hold, "earlier_before": before_old,
                       "earlier_after": after_old, "shipped_before": shipped_hold, "generic_before": generic_before,
                       "generic_after": generic_after, "generic_ok": generic_ok, "context_ok": context_ok,
                       "nothing_to_gain": nothing_to_gain, "examples_ok": examples_ok,
                       "other_tiles": int(len(context[1])), "other_tiles_after": context_after}


class _Learner:
    """What adapts a set, and how its models read: ``shipped`` and ``current`` (the set's model in use, else the
    shipped one) are models of its kind; ``fit(idx)`` trains a new one on the set's examples ``idx``;
    ``accuracy(model, idx)`` on the set's examples as they are; ``generic(model)`` on the held-back generic
    examples (NaN without them: then no check fails); ``keep(ts, model)`` stores it in the set."""

    what = ""
    note = ""
    old_n = 0     # the set's examples before this lesson (a fit takes the lesson's own first)
    ts: TileSet
    shipped: Any
    current: Any
    labels: np.ndarray

    def fit(self, idx: np.ndarray) -> Any:
        raise NotImplementedError

    def accuracy(self, model, idx: np.ndarray) -> float:
        raise NotImplementedError

    def probabilities(self, model, crops: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def crops_of(self, idx: np.ndarray) -> np.ndarray:
        return self.ts.crops[idx]

    def generic(self, model) -> float:
        raise NotImplementedError

    def keep(self, ts: TileSet, model) -> None:
        """Store ``model`` in ``ts`` (this base stores nothing)."""


def _learner(ts: TileSet, labels: np.ndarray, recognizer, cls_path: str | None, rng: np.random.Generator,
             steps: int, network: bool | None) -> _Learner:
    """The network's later stages adapted (:class:`_NetworkLearner`) where PyTorch is installed and the classifier
    has its mid-level replay, else its last layer (:class:`_HeadLearner`). ``network`` True or False forces one."""
    from .heads import head_fingerprint, shipped_head

    shipped = shipped_head(Path(cls_path).parent if cls_path else None)
    note = ""
    if network is not False and cls_path:
        here = adapting()
        note = here["note"]
        if here["network"]:
            from models import adapt_set

            replay = adapt_set.load_mid_replay(Path(cls_path).parent, head_fingerprint(shipped))
            if replay is not None:
                return _NetworkLearner(ts, labels, cls_path, shipped, replay, rng)
            note = "the classifier has no mid-level replay (classifier_replay_mid.npz): only its last layer adapts"
        if network:
            raise TileSetError(note)
    out = _HeadLearner(ts, labels, recognizer, cls_path, shipped, rng, steps)
    out.note = note
    return out


class _HeadLearner(_Learner):
    """The classifier's last layer (pooled features -> kinds), retrained in numpy from the head in use."""

    what = "last layer"

    def __init__(self, ts: TileSet, labels: np.ndarray, recognizer, cls_path: str | None,
                 shipped: dict[str, np.ndarray], rng: np.random.Generator, steps: int) -> None:
        from .heads import load_replay

        self.ts, self.labels, self.recognizer, self.rng, self.steps = ts, labels, recognizer, rng, steps
        self.shipped = shipped
        self.current = ts.head_for(shipped) or shipped
        self.mask = ts.kind_mask()
        # generic examples of every kind (the set's rule system's): replayed in every fit, and some held back to
        # check that the head still reads the kinds the set's photos have not shown
        # (they are features of one classifier: a reader that names no classifier file gets none)
        replay = load_replay(Path(cls_path).parent, shipped) if cls_path else None
        if replay is not None and self.mask is not None:
            for part in ("train", "val"):
                keep = self.mask[replay[f"{part}_y"]]
                replay[f"{part}_x"], replay[f"{part}_y"] = replay[f"{part}_x"][keep], replay[f"{part}_y"][keep]
        self.replay = replay
        self.feats = _features(recognizer, ts.crops)

    def fit(self, idx: np.ndarray) -> dict[str, np.ndarray]:
        from .heads import train_head

        idx = _capped(idx, self.old_n, self.rng)
        v = views(self.ts.crops[idx], self.rng)
        f = _features(self.recognizer, v)
        y = np.repeat(self.labels[idx], VIEWS)
        if self.replay is not None and len(self.replay["train_y"]):
            f, y = np.concatenate([f, self.replay["train_x"]]), np.concatenate([y, self.replay["train_y"]])
        return train_head(f, y, self.current, steps=self.steps, decay=DECAY)

    def accuracy(self, model, idx: np.ndarray) -> float:
        return _accuracy(model, self.feats[idx], self.labels[idx], self.mask)

    def probabilities(self, model, crops: np.ndarray) -> np.ndarray:
        logits = (_features(self.recognizer, crops) @ model["weight"].T + model["bias"]).astype(np.float64)
        return _softmax(logits, self.mask)

    def generic(self, model) -> float:
        if self.replay is None:
            return float("nan")
        return _accuracy(model, self.replay["val_x"], self.replay["val_y"], self.mask)

    def keep(self, ts: TileSet, model) -> None:
        from .heads import head_fingerprint

        ts.head = {**model, "base": np.array(head_fingerprint(self.shipped))}
        ts.network = ts.network_base = None   # the newer lesson is the head's


class _NetworkLearner(_Learner):
    """The classifier's later stages and heads fine-tuned (:mod:`models.adapt_set`) on the set's examples in
    jittered views, generic examples replayed; kept as an int8 ONNX classifier."""

    what = "network"

    def __init__(self, ts: TileSet, labels: np.ndarray, cls_path: str, shipped: dict[str, np.ndarray], replay,
                 rng: np.random.Generator) -> None:
        from models.adapt_set import SetAdapter

        from .heads import head_fingerprint

        self.ts, self.labels, self.rng = ts, labels, rng
        self.adapter = SetAdapter(cls_path)
        self.base_fingerprint = head_fingerprint(shipped)
        self.mask = ts.kind_mask()
        self.replay = replay
        if self.mask is not None:   # the set's kinds only, replayed and checked
            keep, keep_val = self.mask[replay.train_y], self.mask[replay.val_y]
            replay.train_x, replay.train_y, replay.train_flip = (replay.train_x[keep], replay.train_y[keep],
                                                                 replay.train_flip[keep])
            replay.val_x, replay.val_y = replay.val_x[keep_val], replay.val_y[keep_val]
        self.mid = self.adapter.early(ts.crops)
        self.val_mid = replay.decode(replay.val_x)
        self.shipped = self.adapter.base
        net = ts.network_for(shipped)
        self.current = _OnnxModel(net) if net is not None else self.adapter.base

    def fit(self, idx: np.ndarray):
        from .inference import KINDS

        idx = _capped(idx, self.old_n, self.rng)
        v, flipped = views_and_lie(self.ts.crops[idx], self.rng)
        y = np.repeat(self.labels[idx], VIEWS)
        no_lie = np.isin(y, [KINDS.index("none"), KINDS.index("bk")])
        lie = np.where(no_lie, -1, flipped.astype(np.int64))
        return self.adapter.fit(self.adapter.early(v), y, lie, self.replay,
                                seed=int(self.rng.integers(1 << 31)))

    def accuracy(self, model, idx: np.ndarray) -> float:
        if isinstance(model, _OnnxModel):
            return model.accuracy(self.ts.crops[idx], self.labels[idx], self.mask)
        return self.adapter.accuracy(model, self.mid[idx], self.labels[idx], self.mask)

    def probabilities(self, model, crops: np.ndarray) -> np.ndarray:
        if isinstance(model, _OnnxModel):
            return _softmax(model.logits(crops), self.mask)
        return self.adapter.probabilities(model, self.adapter.early(crops), self.mask)

    def generic(self, model) -> float:
        if isinstance(model, _OnnxModel):   # the set's model in use: its replay figure was taken when kept
            return float("nan")
        return self.adapter.accuracy(model, self.val_mid, self.replay.val_y, self.mask)

    def keep(self, ts: TileSet, model) -> None:
        calib = views(ts.crops[self.rng.permutation(len(ts.crops))[:128]], self.rng, 4)
        ts.network, ts.network_base = self.adapter.export_int8(model, calib), self.base_fingerprint
        ts.head = None


class _OnnxModel:
    """A set's adapted classifier (ONNX bytes) as the guard reads it."""

    def __init__(self, data: bytes) -> None:
        import onnxruntime as ort

        self.session = ort.InferenceSession(data, providers=["CPUExecutionProvider"])

    def logits(self, crops: np.ndarray) -> np.ndarray:
        return np.concatenate([self.session.run(["kind_logits"], {"crops": G.to_input(crops[i:i + 256])})[0]
                               for i in range(0, len(crops), 256)]).astype(np.float64)

    def accuracy(self, crops: np.ndarray, labels: np.ndarray, mask: np.ndarray | None) -> float:
        if not len(labels):
            return float("nan")
        return float(np.mean(_softmax(self.logits(crops), mask).argmax(1) == labels))


def _softmax(logits: np.ndarray, mask: np.ndarray | None) -> np.ndarray:
    """Probabilities of ``logits`` [N, kinds] over the ``mask``'s kinds (0 elsewhere)."""
    return G.softmax(np.where(mask[None], logits, -1e9) if mask is not None else logits, 1)


def none_boxes(image: np.ndarray, quads: np.ndarray, rng: np.random.Generator, n: int = 24) -> np.ndarray:
    """Boxes of the photo's own surface, away from every tile (the table's cloth as "not a tile")."""
    if not len(quads):
        return np.zeros((0, 5))
    obb = G.quad_to_obb(np.asarray(quads, float))
    size = np.median(obb[:, 2:4], axis=0)
    h, w = image.shape[:2]
    out = []
    for _ in range(n * 20):
        c = rng.uniform([0, 0], [w, h])
        if np.min(np.linalg.norm(obb[:, :2] - c, axis=1)) > 1.2 * float(size.max()):
            out.append([c[0], c[1], size[0], size[1], float(np.median(obb[:, 4]) % 180)])
            if len(out) >= n:
                break
    return np.array(out).reshape(-1, 5)


def enroll(name: str, image: np.ndarray, recognizer, variant: str | None = None,
           rows: Sequence[Sequence[str]] | None = None, seed: int = 0, network: bool | None = None) -> dict:
    """Learn a set from one photo of its tiles laid out in ``rows`` (default :func:`layout_rows`)."""
    check_name(name)
    if rows is None:
        if variant is None:
            raise TileSetError("enrolling needs the rule system (--variant) or a layout (--layout)")
        rows = layout_rows(variant)
    result = recognizer.recognize(image, variant=None, keep_none=False)
    # the boxes read face up; those and the ones read as a back (a blank white dragon often reads as one; a
    # grained cloth's stray boxes do too); all of them and the ones read as no tile (an animal or a face of an
    # unknown set); then each of these again with rows that may take a tile or two the detector did not box
    # at all, where the layout's order puts them (each step admits more stray boxes that a row could be
    # shifted onto, so the surer steps come first)
    face_up = [t for t in result.tiles if t.face_up]
    sets = [face_up]
    if "bk" not in {c for r in rows for c in r}:
        backs = list(result.tiles)
        every = list(recognizer.recognize(image, variant=None, keep_none=True).tiles)
        sets += [backs] if len(backs) > len(face_up) else []
        sets += [every] if len(every) > len(sets[-1]) else []
    attempts: list[tuple[list, bool]] = [(b, False) for b in sets] + [(b, True) for b in sets]
    # every step is tried and the one whose tiles most often read (in their top 3) as the kinds they are taken
    # for wins, the surer step on a tie: a row short of a tile can also be made up from a stray box beside it,
    # every tile then taken for its neighbour, which the readings give away
    best: tuple[int, list, list, list] | None = None
    error: TileSetError | None = None
    for tiles_k, fill in attempts:
        missed_k: list[np.ndarray] = []
        try:
            pairs_k = assign_rows(tiles_k, rows, missed=missed_k if fill else None)
        except TileSetError as e:
            error = error or e
            continue
        agree = sum(1 for i, c in pairs_k if i < len(tiles_k) and c in _readings(tiles_k[i]))
        if best is None or agree > best[0]:
            best = (agree, tiles_k, pairs_k, missed_k)
    if best is None:
        raise error or TileSetError("no tile found in the photo")
    _, tiles, pairs, missed = best
    quads = np.array([tiles[i].corners if i < len(tiles) else missed[i - len(tiles)] for i, _ in pairs])
    obb = G.quad_to_obb(quads)
    obb[:, 4] = obb[:, 4] % 360.0
    crops = G.warp_crops(image, obb, G.CROP_SIZE)
    codes = [c for _, c in pairs]
    cloth = none_boxes(image, quads, np.random.default_rng(seed))
    if len(cloth):
        crops = np.concatenate([crops, G.warp_crops(image, cloth, G.CROP_SIZE)])
        codes += ["none"] * len(cloth)
    read = {i: t.code for i, t in enumerate(tiles)}
    misread = sum(1 for i, c in pairs if read.get(i) != c)
    with locked(name):   # from reading the set to saving it (two enrolls of one name: one after the other)
        ts = _load_or_new(name, variant)
        if variant:
            ts.variant = variant
        report = learn(ts, crops, codes, recognizer, source="layout photo", seed=seed, holdout=0.0, network=network)
    # the tiles no box was found on, taken from their place in the row (worth a look in the photo)
    not_boxed = [c for i, c in pairs if i >= len(tiles)]
    return {**report, "tiles": len(pairs), "read_wrong_before": misread, "not_boxed": not_boxed}


def learn_from_json(name: str, image: np.ndarray, tiles_json: dict | list, recognizer, variant: str | None = None,
                    seed: int = 0, network: bool | None = None) -> dict:
    """Learn from any photo whose tiles are given as ``detect --json`` prints them (codes corrected by the
    user; a tile whose code is ``none`` marks a box that is no tile). At most :data:`MAX_BOXES` boxes, each
    inside the photo and at least :data:`MIN_BOX_SIDE` pixels across; a box given twice is learnt once."""
    from .inference import KINDS

    check_name(name)
    items = tiles_json.get("tiles") if isinstance(tiles_json, dict) else tiles_json
    if not isinstance(items, list) or not items:
        raise TileSetError("the tiles file has no 'tiles' list")
    if len(items) > MAX_BOXES:
        raise TileSetError(f"the tiles file has {len(items)} tiles: one photo teaches at most {MAX_BOXES}")
    h, w = image.shape[:2]
    quads, codes = [], []
    for i, t in enumerate(items):
        if not isinstance(t, dict) or "code" not in t or "corners" not in t:
            raise TileSetError(f"tile {i}: needs 'code' and 'corners' (as `detect --json` prints)")
        code = t["code"]
        if code not in KINDS:
            raise TileSetError(f"tile {i}: {code!r} is not a tile code (or 'none')")
        try:
            q = np.asarray(t["corners"], float).reshape(4, 2)
        except (TypeError, ValueError):
            raise TileSetError(f"tile {i}: corners must be four [x, y] points") from None
        if not np.isfinite(q).all():
            raise TileSetError(f"tile {i}: corners must be numbers")
        lo, hi = q.min(0), q.max(0)   # at least half of the box's extent inside the photo
        if np.abs(q).max() > 1e6:
            raise TileSetError(f"tile {i}: its box lies outside the {w}x{h} photo (corners {q.tolist()})")
        bw, bh = G.quad_to_obb(q[None])[0, 2:4]
        area = 0.5 * abs(float(np.dot(q[:, 0], np.roll(q[:, 1], -1)) - np.dot(q[:, 1], np.roll(q[:, 0], -1))))
        if min(bw, bh) < MIN_BOX_SIDE or area < MIN_BOX_SIDE ** 2:
            raise TileSetError(f"tile {i}: its box is {bw:.1f} x {bh:.1f} pixels with an area of {area:.1f}: "
                               f"no tile's (corners {q.tolist()})")
        inside = max(0.0, min(hi[0], w) - max(lo[0], 0)) * max(0.0, min(hi[1], h) - max(lo[1], 0))
        if inside < 0.5 * float(np.prod(hi - lo)):
            raise TileSetError(f"tile {i}: its box lies outside the {w}x{h} photo (corners {q.tolist()})")
        quads.append(q)
        codes.append(code)
    obb = G.quad_to_obb(np.array(quads))
    crops = G.warp_crops(image, obb, G.CROP_SIZE)
    first: dict[str, int] = {}
    for i, c in enumerate(crops):   # one box given twice with two codes: which is meant?
        j = first.setdefault(_fingerprint(c), i)
        if codes[j] != codes[i]:
            raise TileSetError(f"tiles {j} and {i} are the same box, given as {codes[j]!r} and {codes[i]!r}")
    with locked(name):   # from reading the set to saving it
        ts = _load_or_new(name, variant)
        if variant:
            ts.variant = variant
        return learn(ts, crops, codes, recognizer, source="corrected photo", seed=seed, network=network)
