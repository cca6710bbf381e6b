"""Precomputed per-group distance tables: the table-driven core of shanten and waits.

A *group* is a set of tile kinds that interact when forming sets: a full suit 1–9 (chows and pongs),
or a bag of kinds that only form pongs (honours, and the 1/9 left of a cut-down suit such as sanma's
characters). A group's tiles are encoded as a base-5 key (digit ``i`` = copies of its ``i``-th kind).

For every key ``h`` and every target ``(m, p)`` — ``m`` sets (0–4) and ``p`` pairs (0–1) inside the
group — the table holds ``D(h, m, p)``: the fewest tiles that must be added to ``h`` so that it contains
``m`` sets and ``p`` pairs, never using more than 4 copies of a kind. Tiles of ``h`` outside the target
are simply discarded. A hand's standard-form shanten is then
``min over distributions of sum_g D(h_g, m_g, p_g) - 1`` with ``sum m_g = sets still needed`` and exactly
one pair: the exact number of tile exchanges, with the four-copy limit respected.

The tables are built with numpy in a few seconds on first use and cached on disk (see
:func:`cache_dir`).
"""

from __future__ import annotations

import hashlib
import os
from functools import cache
from pathlib import Path

import numpy as np

INF = 99  # "impossible" (more than any real distance)
_VERSION = 1


def cache_dir() -> Path:
    """Where built tables are kept: ``$MAHJONG_ASSISTANT_CACHE`` or ``~/.cache/mahjong-assistant``."""
    root = os.environ.get("MAHJONG_ASSISTANT_CACHE")
    return Path(root) if root else Path.home() / ".cache" / "mahjong-assistant"


def _digits(n_ranks: int) -> np.ndarray:
    size = 5**n_ranks
    keys = np.arange(size, dtype=np.int64)
    out = np.empty((size, n_ranks), dtype=np.int8)
    for i in range(n_ranks):
        out[:, i] = (keys // 5**i) % 5
    return out


def _set_shapes(n_ranks: int, chows: bool) -> list[np.ndarray]:
    shapes = []
    for i in range(n_ranks):
        v = np.zeros(n_ranks, dtype=np.int8)
        v[i] = 3
        shapes.append(v)
    if chows:
        for i in range(n_ranks - 2):
            v = np.zeros(n_ranks, dtype=np.int8)
            v[i : i + 3] = 1
            shapes.append(v)
    return shapes


def _build(n_ranks: int, chows: bool) -> np.ndarray:
    """Return ``D`` as an array of shape (5**n_ranks, 5, 2), dtype uint8."""
    digits = _digits(n_ranks)
    size = digits.shape[0]
    pow5 = 5 ** np.arange(n_ranks, dtype=np.int64)
    keys = np.arange(size, dtype=np.int64)

    # contains[m][p]: h holds m sets and p pairs (disjointly)
    contains = np.zeros((5, 2, size), dtype=bool)
    contains[0, 0] = True
    shapes = [(s, int(s.astype(np.int64) @ pow5)) for s in _set_shapes(n_ranks, chows)]
    for m in range(1, 5):
        acc = np.zeros(size, dtype=bool)
        for shape, skey in shapes:
            ok = np.all(digits >= shape, axis=1)
            acc[ok] |= contains[m - 1, 0, keys[ok] - skey]
        contains[m, 0] = acc
    for m in range(5):
        acc = np.zeros(size, dtype=bool)
        for i in range(n_ranks):
            ok = digits[:, i] >= 2
            acc[ok] |= contains[m, 0, keys[ok] - 2 * pow5[i]]
        contains[m, 1] = acc

    # D by decreasing tile total: D(h) = 0 if h contains the target, else 1 + min over additions.
    totals = digits.sum(axis=1)
    dist = np.full((size, 5, 2), INF, dtype=np.int16)
    for total in range(4 * n_ranks, -1, -1):
        idx = keys[totals == total]
        best = np.full((idx.size, 5, 2), INF, dtype=np.int16)
        for i in range(n_ranks):
            ok = digits[idx, i] < 4
            nb = dist[idx[ok] + pow5[i]]
            best[ok] = np.minimum(best[ok], nb + 1)
        cont = contains[:, :, idx].transpose(2, 0, 1)
        dist[idx] = np.where(cont, 0, np.minimum(best, INF))
    return dist.astype(np.uint8)


@cache
def distance_table(n_ranks: int, chows: bool) -> np.ndarray:
    """The ``D`` table for a group of ``n_ranks`` kinds (chows between neighbours if ``chows``).

    Shape ``(5**n_ranks, 5, 2)``; entries of :data:`INF` mean impossible.
    """
    tag = hashlib.sha1(f"v{_VERSION}-{n_ranks}-{chows}".encode()).hexdigest()[:10]
    path = cache_dir() / f"dist-{n_ranks}{'c' if chows else 'p'}-{tag}.npy"
    if path.exists():
        try:
            table = np.load(path)
            if table.shape == (5**n_ranks, 5, 2):
                return table
        except (OSError, ValueError):
            pass
    table = _build(n_ranks, chows)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp.npy")
        np.save(tmp, table)
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only home is fine: the table is rebuilt next time
    return table
