"""Speeds of issue 40's goals for a play network (weights format 4): its cost per decision on one
thread (all four seats, the engine's work included, against tuned-greedy-v1 measured alternately
in the same run), and self-play with it on all four seats writing samples (true-state values,
one rollout by tuned-greedy-v1 per valued candidate) on 1 and 2 threads, with the hands
per second. Usage: ``python benches/selfplay_speed.py net:PATH [repeats]``; prints one JSON line
of medians."""

from __future__ import annotations

import json
import statistics
import sys
import time

import tractor
from tractor import train as T


def per_decision_us(policy: str, hands: int) -> float:
    t = time.perf_counter()
    r = tractor.simulate(hands=hands, policies=(policy,) * 4, seed=11, threads=1)
    dt = time.perf_counter() - t
    return 1e6 * dt / float(r.arrays["decisions"].sum())


def self_play_hands_per_s(policy: str, hands: int, threads: int) -> float:
    sp = T.SelfPlay(seats=[policy] * 4, base="tuned-greedy-v1", rollout="tuned-greedy-v1", label_rate=0.02,
                    per_decision=4, rollouts=1, obs_version=2)
    t = time.perf_counter()
    s = T.samples(12, 0, hands, sp, threads=threads)
    assert len(s["seat"]) > 0
    return hands / (time.perf_counter() - t)


def main() -> None:
    net = sys.argv[1]
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    rows: dict = {k: [] for k in ("net_us", "tuned_us", "selfplay_1", "selfplay_2")}
    for _ in range(repeats):
        rows["net_us"].append(per_decision_us(net, 300))
        rows["tuned_us"].append(per_decision_us("tuned-greedy-v1", 3000))
        rows["selfplay_1"].append(self_play_hands_per_s(net, 300, 1))
        rows["selfplay_2"].append(self_play_hands_per_s(net, 600, 2))
    print(json.dumps({k: round(statistics.median(v), 2) for k, v in rows.items()}))


if __name__ == "__main__":
    main()
