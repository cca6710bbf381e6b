"""Engine benchmark against the ``mahjong`` package (a command, not a test; kept out of CI).

``mahjong-assistant bench [--hands 10000] [--seed 1]`` draws the same seeded random 13-tile hands for
both engines, computes shanten and the set of winning tiles, and prints hands/s of each, the ratio
(measured in the same run) and whether every answer is identical. Four-player riichi tiles run through
the ``hong-kong`` definition (the same 136 playing tiles, seven pairs and thirteen orphans allowed);
sanma tiles through ``sanma`` against ``mahjong`` with the three-player flag.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

import numpy as np

from .analysis import layout_for, shanten_batch, shanten_counts, wait_sets_batch
from .variants import get_variant


def random_hands(variant_name: str, n: int, seed: int) -> np.ndarray:
    v = get_variant(variant_name)
    wall = [k for k in v.playing_kinds for _ in range(v.copies[k])]
    rng = random.Random(seed)
    out = np.zeros((n, 34), dtype=np.int64)
    for i in range(n):
        for k in rng.sample(wall, 13):
            out[i, k] += 1
    return out


def random_ready_hands(variant_name: str, n: int, seed: int) -> np.ndarray:
    """Ready hands: a random complete hand (four sets and a pair from the set) minus one random tile."""
    v = get_variant(variant_name)
    kinds = list(v.playing_kinds)
    chow_starts = [k for k in kinds if k < 27 and k % 9 <= 6 and k + 1 in v.copies and k + 2 in v.copies]
    rng = random.Random(seed)
    out = np.zeros((n, 34), dtype=np.int64)
    i = 0
    while i < n:
        c = [0] * 34
        for _ in range(4):
            if chow_starts and rng.random() < 0.6:
                k = rng.choice(chow_starts)
                c[k] += 1
                c[k + 1] += 1
                c[k + 2] += 1
            else:
                c[rng.choice(kinds)] += 3
        c[rng.choice(kinds)] += 2
        if any(x > 4 for x in c):
            continue
        tiles = [k for k in range(34) for _ in range(c[k])]
        c[rng.choice(tiles)] -= 1
        out[i] = c
        i += 1
    return out


def _mahjong_waits(hands: list[list[int]], kinds: tuple[int, ...], three: bool) -> list[frozenset[int]]:
    from mahjong.agari import Agari
    from mahjong.shanten import Shanten

    agari = Agari()
    out = []
    for c in hands:
        ws: set[int] = set()
        if Shanten.calculate_shanten(c, is_three_player=three) == 0:
            for k in kinds:
                if c[k] < 4:
                    c[k] += 1
                    if agari.is_agari(c):
                        ws.add(k)
                    c[k] -= 1
        out.append(frozenset(ws))
    return out


def run(variant_name: str, three: bool, n: int, seed: int, out=sys.stdout, ready_only: bool = False) -> dict:
    from mahjong.shanten import Shanten

    v = get_variant(variant_name)
    hands = random_ready_hands(variant_name, n, seed) if ready_only else random_hands(variant_name, n, seed)
    lists = hands.tolist()
    t0 = time.perf_counter()
    layout_for(v).wait_codes()  # the distance tables and the packed wait tables derived from them
    load = time.perf_counter() - t0

    t0 = time.perf_counter()
    theirs_sh = [Shanten.calculate_shanten(c, is_three_player=three) for c in lists]
    t_their_sh = time.perf_counter() - t0
    t0 = time.perf_counter()
    ours_sh = shanten_batch(hands, v)
    t_our_sh = time.perf_counter() - t0
    t0 = time.perf_counter()
    ours_scalar = [shanten_counts(c, 0, v).minimum for c in lists[: max(1, n // 10)]]
    t_our_scalar = (time.perf_counter() - t0) * n / max(1, n // 10)

    t0 = time.perf_counter()
    theirs_w = _mahjong_waits([list(c) for c in lists], v.playing_kinds, three)
    t_their_w = time.perf_counter() - t0
    t0 = time.perf_counter()
    ours_w = wait_sets_batch(hands, v)
    t_our_w = time.perf_counter() - t0

    sh_same = [int(a) for a in ours_sh] == theirs_sh and ours_scalar == theirs_sh[: len(ours_scalar)]
    w_same = list(ours_w) == theirs_w
    ready = sum(1 for s in theirs_sh if s == 0)
    res = {
        "tiles": variant_name, "hands": n, "seed": seed, "ready_hands": ready, "table_load_s": round(load, 3),
        "shanten_hands_per_s": {"ours_batch": n / t_our_sh, "ours_scalar": n / t_our_scalar,
                                "mahjong": n / t_their_sh},
        "shanten_ratio": t_their_sh / t_our_sh,
        "shanten_identical": sh_same,
        "waits_hands_per_s": {"ours_batch": n / t_our_w, "mahjong": n / t_their_w},
        "waits_ratio": t_their_w / t_our_w,
        "waits_identical": w_same,
    }
    label = "four-player riichi tiles (hong-kong set)" if not three else "sanma tiles"
    kind = "random READY 13-tile hands (complete hand minus one tile)" if ready_only else "random 13-tile hands"
    print(f"== {label}: {n} {kind}, seed {seed}, {ready} ready ==", file=out)
    print(f"  tables loaded in {load:.2f} s (built once, then cached)", file=out)
    print(f"  shanten   ours {n / t_our_sh:>10,.0f} hands/s (batch), {n / t_our_scalar:>8,.0f} (one by one) | "
          f"mahjong {n / t_their_sh:>8,.0f} hands/s | ratio {res['shanten_ratio']:.1f}x | "
          f"identical: {'yes' if sh_same else 'NO'}", file=out)
    print(f"  wait set  ours {n / t_our_w:>10,.0f} hands/s (batch) | mahjong {n / t_their_w:>8,.0f} hands/s | "
          f"ratio {res['waits_ratio']:.1f}x | identical: {'yes' if w_same else 'NO'}", file=out)
    if not (sh_same and w_same):
        for i, (a, b) in enumerate(zip(ours_sh.tolist(), theirs_sh, strict=True)):
            if a != b:
                print(f"  shanten differs on hand {i}: ours {a}, mahjong {b}", file=out)
        for i, (a, b) in enumerate(zip(ours_w, theirs_w, strict=True)):
            if a != b:
                print(f"  waits differ on hand {i}: ours {sorted(a)}, mahjong {sorted(b)}", file=out)
    return res


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="mahjong-assistant bench", description=__doc__)
    p.add_argument("--hands", type=int, default=10_000)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    return bench(args.hands, args.seed)


def bench(hands: int, seed: int) -> int:
    try:
        import mahjong  # noqa: F401
    except ImportError:
        print("error: the benchmark needs the `mahjong` package: pip install -e '.[test]'", file=sys.stderr)
        return 2
    a = run("hong-kong", False, hands, seed)
    b = run("sanma", True, hands, seed)
    # random hands are almost never ready, so the wait search is also measured on ready hands
    c = run("hong-kong", False, hands, seed, ready_only=True)
    d = run("sanma", True, hands, seed, ready_only=True)
    print(f"ready hands: wait sets {c['waits_ratio']:.1f}x (four-player tiles), {d['waits_ratio']:.1f}x (sanma)")
    ok = all(r["shanten_identical"] and r["waits_identical"] for r in (a, b, c, d))
    print(f"targets: shanten >= 10x ({a['shanten_ratio']:.1f}x, {b['shanten_ratio']:.1f}x), "
          f"wait sets >= 30x ({a['waits_ratio']:.1f}x, {b['waits_ratio']:.1f}x), "
          f"identical answers: {'yes' if ok else 'NO'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
