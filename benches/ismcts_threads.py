"""ISMCTS thread scaling, 1 -> 2 threads (BENCHMARKS.md; benches/HISTORY.md §15, §16, §29): `ismcts(g,
iterations, seed=i, threads=1|2, trees=2)` on the mid-hand positions of `compare_search_openspiel.py`
(`tractor_position(3000 + i, 0.5)`), each position timed `--repeats` times per thread count,
alternating; the two results must be equal (a search's result never depends on its threads).
``--search pimc`` times `pimc(g, seed=i, threads=1|2)` (32 worlds × 8 rollouts) the same way.
Prints the summed times and their ratio; ``--json PATH`` also writes them.

The machine may be shared: the time this process's threads spent waiting for a CPU while timed
(`/proc/self/task/*/schedstat`, Linux) is printed too, and the speed-up over the pairs in which
neither call waited more than 1 ms in all ("pairs without load"): a wait means another job held
a core, and a 2-thread call then cannot scale.

    python benches/ismcts_threads.py [--positions 6 --repeats 5 --iterations 3000] [--search pimc] [--json PATH]
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from compare_search_openspiel import tractor_position  # noqa: E402

WAITED = 0.001
"""A call whose threads waited this long for a CPU in all (seconds) ran beside another job."""


def waited() -> float:
    """The seconds this process's threads have waited on a run queue so far (0 off Linux)."""
    total = 0
    for f in glob.glob("/proc/self/task/*/schedstat"):
        try:
            with open(f) as fh:
                total += int(fh.read().split()[1])
        except (OSError, IndexError, ValueError):
            pass
    return total / 1e9


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--positions", type=int, default=6)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--iterations", type=int, default=3000)
    ap.add_argument("--search", choices=("ismcts", "pimc"), default="ismcts")
    ap.add_argument("--json", help="also write the results to this file")
    a = ap.parse_args()
    from tractor.search import ismcts, pimc

    def search(g, i, threads):
        if a.search == "pimc":
            return pimc(g, seed=i, threads=threads)
        return ismcts(g, iterations=a.iterations, seed=i, threads=threads, trees=2)

    games = [g for g in (tractor_position(3000 + i, 0.5) for i in range(a.positions)) if g is not None]
    pairs = []  # (1-thread s, 2-thread s, 1-thread wait s, 2-thread wait s)
    for _ in range(a.repeats):
        for i, g in enumerate(games):
            timed = []
            for threads in (1, 2):
                w, t = waited(), time.perf_counter()
                r = search(g, i, threads)
                timed.append((time.perf_counter() - t, waited() - w, r))
            assert timed[0][2] == timed[1][2], "the result depends on the thread count"
            pairs.append((timed[0][0], timed[1][0], timed[0][1], timed[1][1]))
    one, two = sum(p[0] for p in pairs), sum(p[1] for p in pairs)
    wait1, wait2 = sum(p[2] for p in pairs), sum(p[3] for p in pairs)
    quiet = [p for p in pairs if p[2] < WAITED and p[3] < WAITED]
    q1, q2 = sum(p[0] for p in quiet), sum(p[1] for p in quiet)
    qs = q1 / q2 if quiet else None
    what = f"{a.iterations} iterations, trees=2" if a.search == "ismcts" else "32 worlds x 8 rollouts"
    print(f"{a.search}: load {open('/proc/loadavg').read().split()[:3]}; {len(games)} positions x {a.repeats}, "
          f"{what}: 1 thread {one:.2f} s, 2 threads {two:.2f} s, speed-up {one / two:.2f}x; "
          f"waited for a CPU {wait1:.2f} s / {wait2:.2f} s; pairs without load {len(quiet)} of {len(pairs)}"
          + (f", speed-up {qs:.2f}x" if quiet else ""))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"search": a.search, "positions": len(games), "repeats": a.repeats, "iterations": a.iterations,
                       "one_thread_s": one, "two_threads_s": two, "speedup": one / two,
                       "waited_s": [wait1, wait2], "quiet_pairs": len(quiet), "quiet_speedup": qs}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
