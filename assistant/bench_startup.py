"""How fast the command line answers: ``python -m assistant.bench_startup [--runs N]``.

Times whole processes (``mahjong-assistant --help``, engine commands, a match command) against ``python -c pass``
in the same run, median of ``--runs`` each, and prints each command's time beside the bare interpreter's."""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time

COMMANDS = [
    ["--help"],
    ["waits", "111m 234p 678p 34s 99s", "--variant", "sanma"],
    ["shanten", "19m19p19s1234567z", "--variant", "hong-kong"],
    ["score", "111m 234p 678p 34s 99s", "--win-tile", "5s", "--tsumo", "--seat", "S", "--variant", "sanma"],
    ["variants"],
    ["match", "list"],
]


def _time(argv: list[str], runs: int, env=None) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=False)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m assistant.bench_startup", description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=10)
    args = ap.parse_args(argv)
    import os

    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "MAHJONG_ASSISTANT_DB": f"{tmp}/m.db"}
        base = _time([sys.executable, "-c", "pass"], args.runs, env)
        print(f"python -c pass: {base * 1000:.0f} ms (median of {args.runs})")
        for cmd in COMMANDS:
            t = _time([sys.executable, "-m", "assistant", *cmd], args.runs, env)
            print(f"mahjong-assistant {' '.join(cmd)[:60]:<62} {t * 1000:6.0f} ms  ({t / base:4.1f}x python -c pass, "
                  f"{(t - base) * 1000:+.0f} ms)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
