"""Speeds of issue 40's goals for a play network (weights format 4): its CPU cost per decision on
one thread (all four seats, the engine's work included, against tuned-greedy-v1 measured alternately
in the same run), and self-play with it on all four seats writing samples on 1 and 2 threads,
in hands per second of wall time and per CPU-second (the second is what a core gives on a shared
machine): ``rollout`` samples (2 % of decisions labelled, 4 candidates each valued by one
true-state rollout of tuned-greedy-v1) and ``mc`` samples (Deep Monte-Carlo, ``rollouts=0``: 10 %
of decisions labelled, the candidate played valued by the hand's outcome). Usage: ``python
benches/selfplay_speed.py net:PATH [repeats]``; prints one JSON line of medians."""

from __future__ import annotations

import json
import statistics
import sys
import time

import tractor
from tractor import train as T


def per_decision_us(policy: str, hands: int) -> float:
    t = time.process_time()  # CPU time: what a core gives on a shared machine
    r = tractor.simulate(hands=hands, policies=(policy,) * 4, seed=11, threads=1)
    dt = time.process_time() - t
    return 1e6 * dt / float(r.arrays["decisions"].sum())


def self_play_hands_per_s(policy: str, hands: int, threads: int, mc: bool) -> tuple:
    if mc:
        sp = T.SelfPlay(seats=[policy] * 4, base="tuned-greedy-v1", label_rate=0.1, rollouts=0, obs_version=2)
    else:
        sp = T.SelfPlay(seats=[policy] * 4, base="tuned-greedy-v1", rollout="tuned-greedy-v1", label_rate=0.02,
                        per_decision=4, rollouts=1, obs_version=2)
    t, c = time.perf_counter(), time.process_time()
    s = T.samples(12, 0, hands, sp, threads=threads)
    assert len(s["seat"]) > 0
    return hands / (time.perf_counter() - t), hands / (time.process_time() - c)


def main() -> None:
    net = sys.argv[1]
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    rows: dict = {k: [] for k in ("net_us", "tuned_us")}
    for _ in range(repeats):
        rows["net_us"].append(per_decision_us(net, 300))
        rows["tuned_us"].append(per_decision_us("tuned-greedy-v1", 3000))
        for kind in ("rollout", "mc"):
            for threads, hands in ((1, 300), (2, 600)):
                wall, cpu = self_play_hands_per_s(net, hands, threads, kind == "mc")
                rows.setdefault(f"{kind}_{threads}", []).append(wall)
                rows.setdefault(f"{kind}_{threads}_per_cpu_s", []).append(cpu)
    print(json.dumps({k: round(statistics.median(v), 2) for k, v in rows.items()}))


if __name__ == "__main__":
    main()
