"""ISMCTS thread scaling, 1 -> 2 threads (BENCHMARKS.md; benches/HISTORY.md §15, §16): `ismcts(g, iterations,
seed=i, threads=1|2, trees=2)` on the mid-hand positions of `compare_search_openspiel.py`
(`tractor_position(3000 + i, 0.5)`), each position timed `--repeats` times per thread count,
alternating; the two results must be equal (a search's result never depends on its threads).
Prints the summed times and their ratio; ``--json PATH`` also writes them.

    python benches/ismcts_threads.py [--positions 6 --repeats 5 --iterations 3000] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from compare_search_openspiel import tractor_position  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--positions", type=int, default=6)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--iterations", type=int, default=3000)
    ap.add_argument("--json", help="also write the results to this file")
    a = ap.parse_args()
    from tractor.search import ismcts

    games = [g for g in (tractor_position(3000 + i, 0.5) for i in range(a.positions)) if g is not None]
    one = two = 0.0
    for _ in range(a.repeats):
        for i, g in enumerate(games):
            t = time.perf_counter()
            r1 = ismcts(g, iterations=a.iterations, seed=i, threads=1, trees=2)
            one += time.perf_counter() - t
            t = time.perf_counter()
            r2 = ismcts(g, iterations=a.iterations, seed=i, threads=2, trees=2)
            two += time.perf_counter() - t
            assert r1 == r2, "the result depends on the thread count"
    print(f"load {open('/proc/loadavg').read().split()[:3]}; {len(games)} positions x {a.repeats}, "
          f"{a.iterations} iterations, trees=2: 1 thread {one:.2f} s, 2 threads {two:.2f} s, speed-up {one / two:.2f}x")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"positions": len(games), "repeats": a.repeats, "iterations": a.iterations,
                       "one_thread_s": one, "two_threads_s": two, "speedup": one / two}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
