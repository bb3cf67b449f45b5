"""The thread curve (issue 42 item 2, issue 40's self-play throughput): one fixed workload each of
ISMCTS, PIMC, self-play samples, bulk simulation and the open-card solver, timed at every thread
count asked (default 1, 2, 4, 8, 16 up to the machine's cores), the results checked equal across
thread counts (a result never depends on its threads; the solver's values, best play and bounds).
Made to run once on a lent many-core machine in a few minutes:

    python benches/thread_curve.py [--threads 1 2 4 8 16] [--repeats 3] [--scale 1.0]
                                   [--only ismcts pimc selfplay simulate solve] [--json PATH]

Each workload is split so that 16 threads have work: ISMCTS grows 16 trees (its result depends on
``trees``, never on ``threads``), PIMC draws 64 worlds, self-play and simulation run enough hands.
``--scale`` multiplies every workload's size (0.1 for a smoke run). Per thread count: the median
wall time over ``--repeats`` (the thread counts alternate within a repeat), the speed-up over 1
thread, the efficiency (speed-up ÷ threads), and the seconds its threads waited for a CPU
(``/proc/self/task/*/schedstat``, Linux: a wait means another job held a core)."""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from compare_search_openspiel import tractor_position  # noqa: E402
from ismcts_threads import waited  # noqa: E402
from solve_speed import endgame  # noqa: E402

WORKLOADS = ("ismcts", "pimc", "selfplay", "simulate", "solve")



def digest(arrays: dict) -> str:
    """A digest of named arrays (their names, dtypes, shapes and bytes), to compare two runs."""
    h = hashlib.sha256()
    for k in sorted(arrays):
        a = np.ascontiguousarray(arrays[k])
        h.update(f"{k}:{a.dtype}:{a.shape}".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def workloads(scale: float):
    """Each workload: (name, what it does in words, a function of the thread count returning a
    value that must not depend on it)."""
    import tractor
    from tractor import train as T
    from tractor.search import ismcts, pimc, solve

    games = [g for g in (tractor_position(3000 + i, 0.5) for i in range(6)) if g is not None]
    iters = max(16, int(16 * 1500 * scale))
    worlds = max(16, int(64 * scale))
    sp_hands = max(64, int(4000 * scale))
    sim_hands = max(160, int(60000 * scale))
    sp = T.SelfPlay(seats=["tuned-greedy-v1"] * 4, base="tuned-greedy-v1", label_rate=0.1, rollouts=0)

    def run_ismcts(t):
        return [ismcts(g, iterations=iters, seed=i, threads=t, trees=16) for i, g in enumerate(games)]

    def run_pimc(t):
        return [pimc(g, worlds=worlds, rollouts=8, seed=i, threads=t) for i, g in enumerate(games)]

    def run_selfplay(t):
        return digest(T.samples(12, 0, sp_hands, sp, threads=t))

    def run_simulate(t):
        r = tractor.simulate(hands=sim_hands, policies=("greedy",) * 4, seed=7, threads=t)
        return digest(r.arrays)

    # four of solve_speed.py's 9-card ends (BENCH 9 positions 3, 4, 6 and 7: 0.3-2 s each on
    # one core; the first two below scale 0.5)
    found = [g for g in (endgame(seed, 9) for seed in range(1, 40)) if g is not None]
    ends = [found[i] for i in ((2, 3, 5, 6) if scale >= 0.5 else (2, 3))]

    def run_solve(t):
        out = [solve(g, node_budget=10**9, threads=t) for g in ends]
        assert all(s.exact for s in out)
        return [(s.plays, s.best, s.lower, s.upper) for s in out]

    return [
        ("ismcts", f"{len(games)} mid-hand positions, {iters} iterations over 16 trees", run_ismcts),
        ("pimc", f"{len(games)} mid-hand positions, {worlds} worlds x 8 random rollouts", run_pimc),
        ("selfplay", f"{sp_hands} hands of Monte-Carlo samples, tuned-greedy-v1 on every seat", run_selfplay),
        ("simulate", f"{sim_hands} greedy hands", run_simulate),
        ("solve", f"{len(ends)} trick starts of 9 cards a hand, every play's exact value", run_solve),
    ]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    cores = os.cpu_count() or 1
    ap.add_argument("--threads", type=int, nargs="+", default=[t for t in (1, 2, 4, 8, 16) if t <= cores])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--only", nargs="+", choices=WORKLOADS, default=list(WORKLOADS))
    ap.add_argument("--json", help="also write the results to this file")
    a = ap.parse_args()
    if 1 not in a.threads or any(t < 1 for t in a.threads) or a.repeats < 1 or a.scale <= 0:
        ap.error("--threads must include 1 and be positive; --repeats and --scale positive")
    threads = sorted(set(a.threads))
    out = {"cores": cores, "load": open("/proc/loadavg").read().split()[:3], "threads": threads,
           "repeats": a.repeats, "scale": a.scale, "workloads": {}}
    print(f"cores {cores}, load {out['load']}, threads {threads}, repeats {a.repeats}, scale {a.scale}")
    for name, what, run in workloads(a.scale):
        if name not in a.only:
            continue
        times = {t: [] for t in threads}
        waits = {t: 0.0 for t in threads}
        reference = None
        for r in range(a.repeats):
            # alternate the order from repeat to repeat, so that a drift of the machine falls on all
            for t in (threads if r % 2 == 0 else threads[::-1]):
                w, t0 = waited(), time.perf_counter()
                result = run(t)
                times[t].append(time.perf_counter() - t0)
                waits[t] += waited() - w
                if reference is None:
                    reference = result
                elif result != reference:
                    raise SystemExit(f"{name}: the result at {t} threads differs from the first run's")
        one = statistics.median(times[1])
        rows = []
        print(f"\n{name}: {what} (results equal at every thread count)")
        print(f"{'threads':>8} {'median s':>9} {'speed-up':>9} {'efficiency':>11} {'waited s':>9}")
        for t in threads:
            m = statistics.median(times[t])
            rows.append({"threads": t, "median_s": m, "speedup": one / m, "efficiency": one / m / t,
                         "waited_s": waits[t], "times_s": times[t]})
            print(f"{t:>8} {m:>9.3f} {one / m:>8.2f}x {one / m / t:>11.2f} {waits[t]:>9.2f}")
        out["workloads"][name] = {"what": what, "rows": rows}
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
