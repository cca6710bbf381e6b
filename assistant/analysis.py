"""Hand analysis for every rule system: decompositions, waits with live counts, shanten, discard advice.

Everything here is driven by the :class:`~assistant.variants.RuleSystem` data: which kinds exist (so
which suits can hold chows), which special hands are allowed, and the joker rules. Standard-form
shanten and wait tests use the precomputed group tables of :mod:`assistant.tables`; decompositions are
enumerated exactly (they are only needed for complete hands).

>>> from assistant.variants import get_variant
>>> from assistant.hand import parse_hand
>>> sanma = get_variant("sanma")
>>> [w.tile.code for w in waits(parse_hand("1112345678999p"), sanma)]
['1p', '2p', '3p', '4p', '5p', '6p', '7p', '8p', '9p']
>>> shanten(parse_hand("19m19p19s1234567z"), sanma).minimum
0
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np

from .hand import Hand, Meld, validate_hand
from .tables import INF, distance_table
from .tiles import JOKER, N_PLAYING, Tile, counts34, kind_code
from .variants import RuleSystem

# ---------------------------------------------------------------------------------------------
# Group layout of a rule system


@dataclass(frozen=True)
class Group:
    kinds: tuple[int, ...]
    chows: bool

    @property
    def table(self) -> np.ndarray:
        return distance_table(len(self.kinds), self.chows)


class Layout:
    """How a rule system's playing kinds split into table groups (full suits vs pong-only kinds)."""

    def __init__(self, variant: RuleSystem) -> None:
        self.variant = variant
        kinds = set(variant.playing_kinds)
        groups: list[Group] = []
        for s, base in (("m", 0), ("p", 9), ("s", 18)):
            if s in variant.chow_suits:
                groups.append(Group(tuple(range(base, base + 9)), True))
                kinds -= set(range(base, base + 9))
        loose = tuple(sorted(kinds))
        # pong-only kinds go in groups of at most 9 (one table digit each)
        for i in range(0, len(loose), 9):
            groups.append(Group(loose[i : i + 9], False))
        self.groups = tuple(groups)
        self.group_of = np.full(N_PLAYING, -1, dtype=np.int64)
        self.weight = np.zeros(N_PLAYING, dtype=np.int64)
        for gi, g in enumerate(groups):
            for pos, k in enumerate(g.kinds):
                self.group_of[k] = gi
                self.weight[k] = 5**pos
        self._group_of = self.group_of.tolist()
        self._weight = self.weight.tolist()
        self.tables = [g.table for g in groups]
        # (len(groups) x 34) matrix turning a count vector into group keys
        self.key_matrix = np.zeros((N_PLAYING, len(groups)), dtype=np.int64)
        for k in range(N_PLAYING):
            if self.group_of[k] >= 0:
                self.key_matrix[k, self.group_of[k]] = self.weight[k]
        self.orphans = tuple(variant.thirteen_orphans_kinds)
        self.playing = tuple(variant.playing_kinds)
        self.copies = [variant.copies.get(k, 0) for k in range(N_PLAYING)]
        # the packed wait path (wait_code_table): at most 4 of each playing kind, none of the others
        self.max_count = np.zeros(N_PLAYING, dtype=np.int64)
        self.max_count[list(self.playing)] = 4
        self.packed_waits = all(self.copies[k] <= 4 for k in self.playing) and all(
            len(g.kinds) <= 9 for g in groups)
        self.short_kinds = tuple(k for k in self.playing if self.copies[k] < 4)
        # per group: a mask of the group's positions (bit i = its i-th kind) -> a mask of kinds (bit k = kind k)
        self.group_bits: list[np.ndarray] = []
        for g in groups:
            local = np.arange(1 << len(g.kinds), dtype=np.int64)
            bits = np.zeros(local.size, dtype=np.int64)
            for pos, k in enumerate(g.kinds):
                bits |= ((local >> pos) & 1) << k
            self.group_bits.append(bits)
        self._wait_codes: list[np.ndarray] | None = None

    def wait_codes(self) -> list[np.ndarray]:
        """Each group's :func:`wait_code_table` (built on first use, then kept)."""
        if self._wait_codes is None:
            self._wait_codes = [wait_code_table(len(g.kinds), g.chows) for g in self.groups]
        return self._wait_codes

    def keys(self, counts: Sequence[int]) -> list[int]:
        keys = [0] * len(self.groups)
        g, w = self._group_of, self._weight
        for k, n in enumerate(counts):
            if n:
                keys[g[k]] += n * w[k]
        return keys


@cache
def layout_for(variant: RuleSystem) -> Layout:
    return Layout(variant)


# ---------------------------------------------------------------------------------------------
# Shanten


def _combine(rows: list[list[list[int]]], sets: int) -> int:
    """Min-plus combination of group distance rows: fewest tiles to add for ``sets`` sets + 1 pair."""
    b0 = [0] + [INF] * sets
    b1 = [INF] * (sets + 1)
    for r in rows:
        n0 = [INF] * (sets + 1)
        n1 = [INF] * (sets + 1)
        for m1 in range(sets + 1):
            x0, x1 = b0[m1], b1[m1]
            if x0 >= INF and x1 >= INF:
                continue
            for m2 in range(sets + 1 - m1):
                d0, d1 = r[m2]
                m = m1 + m2
                v = x0 + d0
                if v < n0[m]:
                    n0[m] = v
                v = x0 + d1
                if v < n1[m]:
                    n1[m] = v
                v = x1 + d0
                if v < n1[m]:
                    n1[m] = v
        b0, b1 = n0, n1
    return b1[sets]


def standard_distance(counts: Sequence[int], sets: int, layout: Layout) -> int:
    """Fewest tiles to add to ``counts`` so that it holds ``sets`` sets and a pair (4-copy limit kept)."""
    keys = layout.keys(counts)
    rows = [t[k].tolist() for t, k in zip(layout.tables, keys, strict=True)]
    return _combine(rows, sets)


def seven_pairs_shanten(counts: Sequence[int]) -> int:
    """Seven *different* pairs: four of a kind is one pair, not two."""
    pairs = sum(1 for n in counts if n >= 2)
    kinds = sum(1 for n in counts if n >= 1)
    return 6 - pairs + max(0, 7 - kinds)


def thirteen_orphans_shanten(counts: Sequence[int], orphans: Sequence[int]) -> int:
    have = sum(1 for k in orphans if counts[k])
    pair = any(counts[k] >= 2 for k in orphans)
    return len(orphans) - have - (1 if pair else 0)


@dataclass(frozen=True)
class Shanten:
    """Shanten of each form (None where the form is not allowed or not possible) and the minimum.

    -1 = complete, 0 = ready (tenpai), n = n tiles from ready.
    """

    standard: int
    seven_pairs: int | None
    thirteen_orphans: int | None

    @property
    def minimum(self) -> int:
        return min(v for v in (self.standard, self.seven_pairs, self.thirteen_orphans) if v is not None)

    def as_dict(self) -> dict[str, int | None]:
        return {
            "shanten": self.minimum,
            "standard": self.standard,
            "seven_pairs": self.seven_pairs,
            "thirteen_orphans": self.thirteen_orphans,
        }


def shanten_counts(counts: Sequence[int], n_melds: int, variant: RuleSystem, jokers: int = 0) -> Shanten:
    """Shanten of a concealed part given as 34 counts, with ``n_melds`` fixed melds and ``jokers`` Fei."""
    layout = layout_for(variant)
    sets = 4 - n_melds
    if jokers:
        return _joker_shanten(counts, n_melds, jokers, variant)
    std = standard_distance(counts, sets, layout) - 1
    closed = n_melds == 0 and sum(counts) >= 13
    sp = seven_pairs_shanten(counts) if closed and variant.allows("seven_pairs") else None
    to = (
        thirteen_orphans_shanten(counts, layout.orphans)
        if closed and variant.allows("thirteen_orphans") and len(layout.orphans) == 13
        else None
    )
    return Shanten(std, sp, to)


def shanten(hand: Hand, variant: RuleSystem) -> Shanten:
    """Shanten of a 13- or 14-tile hand (melds count three tiles each)."""
    validate_hand(hand, variant)
    jokers = sum(1 for t in hand.concealed if t.kind == JOKER)
    return shanten_counts(counts34(hand.concealed), len(hand.melds), variant, jokers)


def shanten_batch(counts: np.ndarray, variant: RuleSystem, n_melds: int = 0) -> np.ndarray:
    """Vectorised minimum shanten for many closed hands without jokers.

    ``counts`` has shape (N, 34). The same numbers as :func:`shanten_counts`, computed for all hands
    at once with numpy (the batch CLI and the benchmark use it).
    """
    counts = np.asarray(counts, dtype=np.int64)
    layout = layout_for(variant)
    dist = _batch_standard_distance(counts, 4 - n_melds, layout)
    result = dist - 1
    if n_melds == 0:
        if variant.allows("seven_pairs"):
            pairs = (counts >= 2).sum(axis=1)
            kinds = (counts >= 1).sum(axis=1)
            sp = 6 - pairs + np.maximum(0, 7 - kinds)
            result = np.minimum(result, sp)
        if variant.allows("thirteen_orphans") and len(layout.orphans) == 13:
            oc = counts[:, list(layout.orphans)]
            to = 13 - (oc >= 1).sum(axis=1) - (oc >= 2).any(axis=1)
            result = np.minimum(result, to)
    return result


def _batch_standard_distance(counts: np.ndarray, sets: int, layout: Layout) -> np.ndarray:
    keys = counts @ layout.key_matrix  # (N, G)
    _, b1 = _combine_rows(_batch_rows(keys, layout), sets, counts.shape[0])
    return b1[:, sets].astype(np.int64)


def _batch_rows(keys: np.ndarray, layout: Layout) -> list[np.ndarray]:
    return [table[keys[:, gi]] for gi, table in enumerate(layout.tables)]  # uint8: every value <= INF


def _combine_rows(rows: list[np.ndarray], sets: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised min-plus combination; returns (no pair, one pair) distances for 0..sets sets."""
    # uint8 is safe: every stored value is clamped to INF (99) and a sum of two is at most 198
    b0 = np.full((n, sets + 1), INF, dtype=np.uint8)
    b1 = np.full((n, sets + 1), INF, dtype=np.uint8)
    b0[:, 0] = 0
    for r in rows:
        n0 = np.full_like(b0, INF)
        n1 = np.full_like(b1, INF)
        for m1 in range(sets + 1):
            for m2 in range(sets + 1 - m1):
                m = m1 + m2
                np.minimum(n0[:, m], b0[:, m1] + r[:, m2, 0], out=n0[:, m])
                np.minimum(n1[:, m], b0[:, m1] + r[:, m2, 1], out=n1[:, m])
                np.minimum(n1[:, m], b1[:, m1] + r[:, m2, 0], out=n1[:, m])
        b0, b1 = n0, n1
    return b0, b1


# Wait sets of 13-tile hands: one packed lookup per group
#
# A 14-tile hand is complete in the standard form exactly when every group's tiles split into sets and at
# most one pair with nothing left over (4 sets and a pair are 14 tiles, so no tile can be spare) and exactly
# one group holds the pair. So a 13-tile hand's standard waits need, per group key, only: is the group
# exact as it is, its tile count mod 3, and which of its kinds would make it exact with one copy more.
# :func:`wait_code_table` packs those three into one uint16 per key, read off the distance table.

_EXACT_BIT = 1 << 12  # the group's tiles split exactly into sets (+ one pair when count % 3 == 2)
_MOD_SHIFT = 13  # bits 13-14: the group's tile count mod 3
_WAITS_MASK = (1 << 9) - 1  # bits 0-8: ranks whose one more copy (at most 4) makes the group exact


@cache
def wait_code_table(n_ranks: int, chows: bool) -> np.ndarray:
    """Packed per-key wait codes of a group of ``n_ranks`` kinds (uint16, one per base-5 key).

    Bits 0..n_ranks-1: the group's ranks of which one more copy (at most four) leaves the group
    exact; bit 12: the group is exact as it is; bits 13-14: its tile count mod 3. *Exact* means the
    tiles split into ``count // 3`` sets and, when ``count % 3 == 2``, one pair, nothing left over:
    ``D(h, count // 3, count % 3 == 2) == 0`` in :func:`~assistant.tables.distance_table`.
    """
    size = 5**n_ranks
    dist = distance_table(n_ranks, chows).reshape(size * 10)
    count = np.zeros(1, dtype=np.int32)
    for _ in range(n_ranks):  # key = digit * 5**i + rest: the new digit is the slower axis
        count = (np.arange(5, dtype=np.int32)[:, None] + count[None, :]).reshape(-1)
    mod = count % 3
    sets = count // 3
    col = np.minimum(sets, 4) * 2 + (mod == 2)
    exact = (mod != 1) & (sets <= 4) & (dist[np.arange(size, dtype=np.int64) * 10 + col] == 0)
    code = exact.astype(np.uint16) * np.uint16(_EXACT_BIT) | (mod.astype(np.uint16) << np.uint16(_MOD_SHIFT))
    for i in range(n_ranks):
        # exact(h + 5**i) where digit i of h is below 4: digit i is the middle axis of this view
        view = exact.reshape(5 ** (n_ranks - 1 - i), 5, 5**i)
        after = np.zeros_like(view)
        after[:, :4, :] = view[:, 1:, :]
        code |= after.reshape(size).astype(np.uint16) << np.uint16(i)
    code.flags.writeable = False
    return code


def _simple_rows(counts: np.ndarray, layout: Layout) -> np.ndarray:
    """Rows the packed path answers: 13 tiles, all of the rule system's playing kinds, at most 4 of each."""
    if not layout.packed_waits:
        return np.zeros(counts.shape[0], dtype=bool)
    in_range = (counts.astype(np.uint64) <= layout.max_count).all(axis=1)  # a negative count wraps to huge
    return in_range & (counts.sum(axis=1) == 13)


def _mask_sets(masks: np.ndarray) -> list[frozenset[int]]:
    """Bit masks of kinds (bit k = kind k) as frozensets, each distinct set built once."""
    uniq, inverse = np.unique(masks, return_inverse=True)
    sets = np.empty(uniq.size, dtype=object)
    for i, m in enumerate(uniq.tolist()):
        kinds = []
        while m:
            low = m & -m
            kinds.append(low.bit_length() - 1)
            m ^= low
        sets[i] = frozenset(kinds)
    return sets[inverse.reshape(-1)].tolist()


def _wait_masks_packed(counts: np.ndarray, layout: Layout) -> np.ndarray:
    """Wait sets as bit masks (bit k = kind k) of 13-tile hands of playing kinds, at most 4 of each.

    The same answers as :func:`_wait_sets_by_distance` on such hands (a property test checks it):
    standard waits from one packed lookup per group, then seven pairs and thirteen orphans.
    """
    variant = layout.variant
    n = counts.shape[0]
    keys = counts @ layout.key_matrix  # (n, G)
    codes = [table[keys[:, gi]] for gi, table in enumerate(layout.wait_codes())]
    not_exact = [(c & _EXACT_BIT) == 0 for c in codes]
    mods = [c >> _MOD_SHIFT for c in codes]
    n_not_exact = np.sum(not_exact, axis=0)
    n_pairs = np.sum([m == 2 for m in mods], axis=0)
    masks = np.zeros(n, dtype=np.int64)
    for gi, code in enumerate(codes):
        # the new tile goes to group gi: every other group exact, and exactly one pair in the end
        others_exact = n_not_exact == not_exact[gi]
        pairs = n_pairs - (mods[gi] == 2) + (mods[gi] == 1)
        ok = others_exact & (pairs == 1)
        masks |= np.where(ok, layout.group_bits[gi][code & _WAITS_MASK], 0)
    for k in layout.short_kinds:  # a kind with fewer than 4 copies: none can arrive when all are held
        masks[counts[:, k] >= layout.copies[k]] &= ~(1 << k)
    if variant.allows("seven_pairs"):
        rows = np.nonzero((counts == 2).sum(axis=1) == 6)[0]
        if rows.size:
            singles = counts[rows] == 1
            one = singles.sum(axis=1) == 1
            masks[rows[one]] |= 1 << np.argmax(singles[one], axis=1).astype(np.int64)
    orphans = list(layout.orphans)
    if variant.allows("thirteen_orphans") and len(orphans) == 13:
        rows = np.nonzero(counts[:, orphans].sum(axis=1) == 13)[0]
        if rows.size:
            oc = counts[rows][:, orphans]
            bits = np.int64(1) << np.array(orphans, dtype=np.int64)
            all_once = (oc == 1).all(axis=1)
            one_missing = ((oc == 0).sum(axis=1) == 1) & ((oc == 2).sum(axis=1) == 1)
            cand = all_once[:, None] | ((oc == 0) & one_missing[:, None])
            masks[rows] |= (cand * bits).sum(axis=1)
    return masks


def wait_sets_batch(counts: np.ndarray, variant: RuleSystem) -> list[frozenset[int]]:
    """Winning tile kinds of many closed 13-tile hands without jokers (vectorised).

    A kind counts as a wait when adding one copy completes the hand (standard form or an allowed
    special hand) and the hand does not already hold all copies of it. Hands of 13 playing tiles (at
    most 4 of a kind) take the packed path (:func:`wait_code_table`: one lookup per group); any other
    row takes :func:`_wait_sets_by_distance`, the min-plus search over the distance tables.
    """
    counts = np.asarray(counts, dtype=np.int64)
    layout = layout_for(variant)
    if counts.ndim != 2 or counts.shape[1] != N_PLAYING or counts.shape[0] == 0:
        return _wait_sets_by_distance(counts, variant)
    simple = _simple_rows(counts, layout)
    if simple.all():
        return _mask_sets(_wait_masks_packed(counts, layout))
    if not simple.any():
        return _wait_sets_by_distance(counts, variant)
    result: list[frozenset[int]] = [frozenset()] * counts.shape[0]
    fast_rows = np.nonzero(simple)[0].tolist()
    slow_rows = np.nonzero(~simple)[0].tolist()
    for i, s in zip(fast_rows, _mask_sets(_wait_masks_packed(counts[simple], layout)), strict=True):
        result[i] = s
    for i, s in zip(slow_rows, _wait_sets_by_distance(counts[~simple], variant), strict=True):
        result[i] = s
    return result


def _wait_sets_by_distance(counts: np.ndarray, variant: RuleSystem) -> list[frozenset[int]]:
    """:func:`wait_sets_batch` by min-plus search over the distance tables (any row of 34 counts).

    A kind counts as a wait when adding one copy completes the hand (standard form or an allowed
    special hand) and the hand does not already hold all copies of it. Only the group of the added
    tile changes, so each group's partner combination ("every other group") is computed once and
    each candidate costs one table lookup and a 5-way minimum.
    """
    counts = np.asarray(counts, dtype=np.int64)
    n_all = counts.shape[0]
    out: list[frozenset[int]] = [frozenset()] * n_all
    ready = np.nonzero(shanten_batch(counts, variant) == 0)[0]
    if ready.size == 0:
        return out
    layout = layout_for(variant)
    base = counts[ready]
    n = base.shape[0]
    keys = base @ layout.key_matrix
    rows = _batch_rows(keys, layout)
    sets = 4
    found = np.zeros((n, N_PLAYING), dtype=bool)
    for gi, group in enumerate(layout.groups):
        others = [r for gj, r in enumerate(rows) if gj != gi]
        e0, e1 = _combine_rows(others, sets, n)
        kinds = np.array(group.kinds)
        copies = np.array([variant.copies[k] for k in group.kinds])
        room = base[:, kinds] < copies  # (n, K): a copy can still arrive
        step = 5 ** np.arange(len(kinds))
        new = layout.tables[gi][np.where(room, keys[:, gi, None] + step, keys[:, gi, None])]
        best = np.full(room.shape, INF, dtype=np.uint8)  # (n, K)
        for m1 in range(sets + 1):
            m2 = sets - m1
            np.minimum(best, e0[:, m1, None] + new[:, :, m2, 1], out=best)
            np.minimum(best, e1[:, m1, None] + new[:, :, m2, 0], out=best)
        found[:, kinds] = room & (best == 0)
    if variant.allows("seven_pairs"):
        pairs = (base == 2).sum(axis=1)
        singles = base == 1
        sp = (pairs == 6) & (singles.sum(axis=1) == 1)
        found |= singles & sp[:, None]
    orphans = list(layout.orphans)
    if variant.allows("thirteen_orphans") and len(orphans) == 13:
        oc = base[:, orphans]
        only_orphans = oc.sum(axis=1) == 13
        all_once = only_orphans & (oc == 1).all(axis=1)
        one_missing = only_orphans & ((oc == 0).sum(axis=1) == 1) & ((oc == 2).sum(axis=1) == 1)
        cand = np.zeros_like(found)
        cand[:, orphans] = all_once[:, None] | ((oc == 0) & one_missing[:, None])
        found |= cand
    rows_hit, kinds_hit = np.nonzero(found)  # row-major: each hand's kinds are contiguous
    bounds = np.searchsorted(rows_hit, np.arange(n + 1))
    kinds_list = kinds_hit.tolist()
    for ri, (a, b) in enumerate(zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True)):
        if b > a:
            out[int(ready[ri])] = frozenset(kinds_list[a:b])
    return out


# ---------------------------------------------------------------------------------------------
# Decompositions of complete hands


@dataclass(frozen=True)
class SetPart:
    """One set of a decomposition: ``type`` chow/pong/kong, the kinds it counts as, how many of
    them are jokers (and which kinds those stand for), and whether it is a fixed (called) meld."""

    type: str
    kinds: tuple[int, ...]
    joker_for: tuple[int, ...] = ()
    meld: Meld | None = None

    @property
    def concealed(self) -> bool:
        return self.meld is None or self.meld.concealed

    def format(self) -> str:
        if self.meld is not None:
            return self.meld.format()
        real = list(self.kinds)
        for k in self.joker_for:
            real.remove(k)
        code = _kinds_code(real)
        extra = "".join(f" jk={kind_code(k)}" for k in self.joker_for)
        return f"{code}{extra}"


def _kinds_code(kinds: Sequence[int]) -> str:
    from .tiles import format_tiles

    return format_tiles([Tile(k) for k in kinds])


@dataclass(frozen=True)
class Decomposition:
    """A complete hand read one way. ``form`` is standard / seven_pairs / thirteen_orphans."""

    form: str
    sets: tuple[SetPart, ...]
    pair: tuple[int, ...]  # the pair's kinds (standard); all pairs (seven pairs); the doubled orphan
    pair_joker_for: tuple[int, ...] = ()

    def format(self) -> str:
        if self.form == "seven_pairs":
            return " ".join(_kinds_code([k, k]) for k in self.pair)
        if self.form == "thirteen_orphans":
            return "thirteen orphans (pair " + kind_code(self.pair[0]) + ")"
        parts = [s.format() for s in self.sets]
        real = [self.pair[0]] * (2 - len(self.pair_joker_for))
        pair = _kinds_code(real) if real else ""
        pair += "".join(f" jk={kind_code(k)}" for k in self.pair_joker_for)
        parts.append(pair.strip())
        return " ".join(parts)

    @property
    def jokers_stand_for(self) -> tuple[int, ...]:
        out: list[int] = []
        for s in self.sets:
            if s.meld is None:
                out.extend(s.joker_for)
        out.extend(self.pair_joker_for)
        return tuple(sorted(out))


@cache
def _chow_bases(variant: RuleSystem) -> frozenset[int]:
    out = set()
    for s, base in (("m", 0), ("p", 9), ("s", 18)):
        if s in variant.chow_suits:
            out.update(range(base, base + 7))
    return frozenset(out)


def decompose_standard(
    counts: Sequence[int], sets_needed: int, variant: RuleSystem, jokers: int = 0
) -> list[tuple[tuple[SetPart, ...], tuple[int, ...], tuple[int, ...]]]:
    """Every way to read ``counts`` (+ ``jokers``) as ``sets_needed`` sets and one pair.

    Returns (sets, pair kinds, jokers in the pair stand for). Joker rules follow the variant.
    """
    rules = variant.jokers
    bases = _chow_bases(variant)
    playing = variant.playing_kinds
    c = list(counts)
    results: list[tuple[tuple[SetPart, ...], tuple[int, ...], tuple[int, ...]]] = []
    seen: set[tuple] = set()

    def record(sets: list[SetPart], pair: tuple[int, ...], pjk: tuple[int, ...]) -> None:
        key = (tuple(sorted((s.type, s.kinds, s.joker_for) for s in sets)), pair, pjk)
        if key not in seen:
            seen.add(key)
            results.append((tuple(sorted(sets, key=lambda s: (s.kinds, s.joker_for))), pair, pjk))

    def rec(start: int, sets: list[SetPart], pair: tuple[int, ...] | None, pjk: tuple[int, ...], jk: int) -> None:
        k = start
        while k < N_PLAYING and c[k] == 0:
            k += 1
        if k == N_PLAYING:
            # only jokers are left
            if len(sets) == sets_needed and pair is not None and jk == 0:
                record(sets, pair, pjk)
            elif len(sets) == sets_needed and pair is None and jk == 2 and rules and rules.max_in_pair >= 2:
                for kk in playing:  # an eye of two Fei may stand for any playing tile
                    record(sets, (kk,), (kk, kk))
            return
        # pair
        if pair is None:
            if c[k] >= 2:
                c[k] -= 2
                rec(k, sets, (k,), (), jk)
                c[k] += 2
            if jk >= 1 and rules and rules.max_in_pair >= 1:
                c[k] -= 1
                rec(k, sets, (k,), (k,), jk - 1)
                c[k] += 1
        if len(sets) >= sets_needed:
            return
        # pong, with 0..2 jokers (each set keeps a real tile)
        for use in range(0, 3):
            if use and (not rules or use > rules.max_in_pong or jk < use):
                break
            if c[k] >= 3 - use:
                c[k] -= 3 - use
                sets.append(SetPart("pong", (k, k, k), (k,) * use))
                rec(k, sets, pair, pjk, jk - use)
                sets.pop()
                c[k] += 3 - use
        # chows containing k as their lowest real tile
        max_jk = rules.max_in_chow if rules else 0
        for start_kind, positions in ((k, (k, k + 1, k + 2)), (k - 1, (k - 1, k, k + 1))):
            if start_kind not in bases:
                continue
            missing = [p for p in positions if p != k and (p < k or c[p] == 0)]
            if start_kind < k:
                # k-1 must be a joker (k is the lowest real tile)
                if positions[0] not in missing:
                    missing.insert(0, positions[0])
            if len(missing) > max_jk or len(missing) > jk:
                continue
            real = [p for p in positions if p not in missing]
            for p in real:
                c[p] -= 1
            sets.append(SetPart("chow", positions, tuple(missing)))
            rec(k, sets, pair, pjk, jk - len(missing))
            sets.pop()
            for p in real:
                c[p] += 1

    rec(0, [], None, (), jokers)
    return results


def decompositions(hand: Hand, variant: RuleSystem, tiles_in_hand: Sequence[Tile] | None = None) -> list[Decomposition]:
    """Every reading of a complete hand (concealed tiles + fixed melds) allowed by the rule system."""
    concealed = list(tiles_in_hand) if tiles_in_hand is not None else list(hand.concealed)
    jokers = sum(1 for t in concealed if t.kind == JOKER)
    counts = counts34(concealed)
    sets_needed = 4 - len(hand.melds)
    if len(concealed) != 3 * sets_needed + 2:
        return []
    fixed = tuple(SetPart(m.type, m.kinds, tuple(s.kind for t, s in zip(m.tiles, m.stands_for, strict=True)
                                               if t.kind == JOKER), m) for m in hand.melds)
    out: list[Decomposition] = []
    for sets, pair, pjk in decompose_standard(counts, sets_needed, variant, jokers):
        out.append(Decomposition("standard", fixed + sets, pair, pjk))
    if not hand.melds and jokers == 0:
        if variant.allows("seven_pairs") and sum(1 for n in counts if n == 2) == 7:
            out.append(Decomposition("seven_pairs", (), tuple(k for k, n in enumerate(counts) if n == 2)))
        orphans = layout_for(variant).orphans
        if (variant.allows("thirteen_orphans") and len(orphans) == 13
                and all(counts[k] >= 1 for k in orphans) and sum(counts) == 14
                and sum(counts[k] for k in orphans) == 14):
            dbl = next(k for k in orphans if counts[k] == 2)
            out.append(Decomposition("thirteen_orphans", (), (dbl,)))
    return out


def is_complete(hand: Hand, variant: RuleSystem) -> bool:
    return bool(decompositions(hand, variant))


# ---------------------------------------------------------------------------------------------
# Waits and live counts


@dataclass(frozen=True)
class Wait:
    """A winning tile of a ready hand, the readings it completes and how many copies are still live."""

    tile: Tile
    decompositions: tuple[Decomposition, ...]
    live: int
    shapes: tuple[str, ...]

    def as_dict(self) -> dict:
        return {
            "tile": self.tile.code,
            "live": self.live,
            "shapes": list(self.shapes),
            "decompositions": [d.format() for d in self.decompositions],
        }


def seen_counts(hand: Hand, visible: Iterable[Tile] = ()) -> list[int]:
    """Copies of each playing kind the player can see: own concealed tiles and melds plus ``visible``."""
    seen = [0] * N_PLAYING
    for t in hand.concealed:
        if t.kind < N_PLAYING:
            seen[t.kind] += 1
    for m in hand.melds:
        for t in m.tiles:
            if t.kind < N_PLAYING:
                seen[t.kind] += 1
    for t in visible:
        if t.kind < N_PLAYING:
            seen[t.kind] += 1
    return seen


def live_counts(hand: Hand, variant: RuleSystem, visible: Iterable[Tile] = ()) -> list[int]:
    """Copies of each kind not yet seen (never negative: an over-count raises TileError in validation)."""
    seen = seen_counts(hand, visible)
    return [max(0, variant.copies.get(k, 0) - seen[k]) for k in range(N_PLAYING)]


def _wait_shapes(dec: Decomposition, win_kind: int) -> tuple[str, ...]:
    """Names of the wait shapes the winning tile can take in this reading."""
    if dec.form == "seven_pairs":
        return ("tanki",)
    if dec.form == "thirteen_orphans":
        return ("thirteen-sided",) if dec.pair[0] == win_kind else ("single",)
    shapes: list[str] = []
    if dec.pair[0] == win_kind and len(dec.pair_joker_for) < 2:
        shapes.append("tanki")
    for s in dec.sets:
        if s.meld is not None or win_kind not in s.kinds:
            continue
        if s.type == "pong":
            shapes.append("shanpon")
        elif s.type == "chow":
            lo = s.kinds[0]
            rank = lo % 9
            if win_kind == lo + 1:
                shapes.append("kanchan")
            elif (win_kind == lo and rank == 6) or (win_kind == lo + 2 and rank == 0):
                shapes.append("penchan")
            else:
                shapes.append("ryanmen")
    return tuple(dict.fromkeys(shapes))


def waits(hand: Hand, variant: RuleSystem, visible: Sequence[Tile] = ()) -> list[Wait]:
    """The winning tiles of a ready hand (concealed + 3 per meld = 13), in tile order, each with the
    decompositions it completes, its wait shapes and its live count.

    A kind of which the player already holds every copy is not a wait (no copy can arrive). With a
    Fei in hand (three-kaki) each wait reflects what the jokers can become.
    """
    validate_hand(hand, variant, sizes=(variant.hand_size,), visible=visible)
    live = live_counts(hand, variant, visible)
    own = seen_counts(hand)
    concealed = list(hand.concealed)
    jokers = sum(1 for t in concealed if t.kind == JOKER)
    counts = counts34(concealed)
    layout = layout_for(variant)
    special_possible = not hand.melds and bool(variant.special_hands)
    out: list[Wait] = []
    for k in variant.playing_kinds:
        if own[k] >= variant.copies[k]:
            continue
        if not jokers:
            counts[k] += 1
            std = standard_distance(counts, 4 - len(hand.melds), layout)
            counts[k] -= 1
            if std > 0 and not special_possible:
                continue
        tile = Tile(k)
        decs = decompositions(hand, variant, concealed + [tile])
        if decs:
            shapes = tuple(dict.fromkeys(s for d in decs for s in _wait_shapes(d, k)))
            out.append(Wait(tile, tuple(decs), live[k], shapes))
    return out


# ---------------------------------------------------------------------------------------------
# Jokers in shanten


def _joker_shanten(counts: Sequence[int], n_melds: int, jokers: int, variant: RuleSystem) -> Shanten:
    """Shanten with Fei in hand.

    Lower bound: jokers fill any missing tile (``D(real) - jokers - 1``). Where that bound says ready
    or complete, the exact joker rules decide: complete if a legal reading exists, ready if some tile
    completes it, else one more.
    """
    layout = layout_for(variant)
    sets = 4 - n_melds
    bound = max(-1, standard_distance(counts, sets, layout) - jokers - 1)
    n_tiles = sum(counts) + jokers
    if bound <= 0:
        if n_tiles == 3 * sets + 2:
            if decompose_standard(counts, sets, variant, jokers):
                return Shanten(-1, None, None)
            bound = max(bound, 0)
        if n_tiles == 3 * sets + 1 and bound == 0:
            c = list(counts)
            for k in variant.playing_kinds:
                c[k] += 1
                if decompose_standard(c, sets, variant, jokers):
                    return Shanten(0, None, None)
                c[k] -= 1
            if decompose_standard(c, sets, variant, jokers + 1):
                return Shanten(0, None, None)
            return Shanten(1, None, None)
        if n_tiles == 3 * sets + 2 and bound <= 0:
            # 14 tiles, not complete: ready after the best discard?
            c = list(counts)
            for k in variant.playing_kinds:
                if c[k]:
                    c[k] -= 1
                    if _joker_shanten(c, n_melds, jokers, variant).standard == 0:
                        return Shanten(0, None, None)
                    c[k] += 1
            return Shanten(1, None, None)
    return Shanten(bound, None, None)


# ---------------------------------------------------------------------------------------------
# Discard advice


@dataclass(frozen=True)
class DiscardOption:
    tile: Tile
    shanten: int
    acceptance: tuple[tuple[Tile, int], ...]  # (tile kind, live copies) that lower the shanten

    @property
    def live_total(self) -> int:
        return sum(n for _, n in self.acceptance)

    def as_dict(self) -> dict:
        return {
            "discard": self.tile.code,
            "shanten": self.shanten,
            "acceptance": [{"tile": t.code, "live": n} for t, n in self.acceptance],
            "kinds": len(self.acceptance),
            "live_total": self.live_total,
        }


def acceptance(counts: list[int], n_melds: int, jokers: int, variant: RuleSystem,
               live: Sequence[int], current: int) -> tuple[tuple[Tile, int], ...]:
    """Kinds whose draw lowers the shanten of a 3n+1 hand below ``current``, with live copies."""
    out = []
    for k in variant.playing_kinds:
        if live[k] <= 0:
            continue
        counts[k] += 1
        s = shanten_counts(counts, n_melds, variant, jokers).minimum
        counts[k] -= 1
        if s < current:
            out.append((Tile(k), live[k]))
    return tuple(out)


def discard_advice(hand: Hand, variant: RuleSystem, visible: Sequence[Tile] = ()) -> list[DiscardOption]:
    """For a hand with one tile too many (14 with melds counted as 3): every distinct discard with the
    resulting shanten and its acceptance, best first (lowest shanten, then most live tiles accepted,
    then most kinds accepted, then tile order)."""
    validate_hand(hand, variant, sizes=(variant.full_hand_size,), visible=visible)
    live = live_counts(hand, variant, visible)
    concealed = list(hand.concealed)
    counts = counts34(concealed)
    jokers = sum(1 for t in concealed if t.kind == JOKER)
    n_melds = len(hand.melds)
    options: list[DiscardOption] = []
    for tile in sorted(set(concealed), key=lambda t: (t.kind, t.red)):
        if tile.kind == JOKER:
            s = shanten_counts(counts, n_melds, variant, jokers - 1).minimum
            acc = acceptance(counts, n_melds, jokers - 1, variant, live, s)
        else:
            counts[tile.kind] -= 1
            s = shanten_counts(counts, n_melds, variant, jokers).minimum
            acc = acceptance(counts, n_melds, jokers, variant, live, s)
            counts[tile.kind] += 1
        options.append(DiscardOption(tile, s, acc))
    options.sort(key=lambda o: (o.shanten, -o.live_total, -len(o.acceptance), o.tile.kind, o.tile.red))
    return options
