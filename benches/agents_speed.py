"""The arena's and the shipped networks' speed (issue 20), in one process.

    python benches/agents_speed.py [--deals 2000] [--repeats 3] [--hands 4000] [--json PATH]

1. A duplicate round-robin of four cheap policies (``random``, ``greedy``, the shipped learned
   agent ``bc-greedy-v1`` and an untrained network of 128/32 units that corrects greedy,
   written here) on ``--deals`` deals of ``eval-v1``, on 2 threads (``tractor.arena.play``, no
   bootstrap, no cost probe): seconds, median of ``--repeats``.
2. Each policy's cost per decision as the arena measures it (``cost_us``: one thread, the
   decisions of a few hands).
3. ``simulate`` on one thread, ``--hands`` hands: hands/s with a network's team against greedy's,
   and with greedy on every seat (the anchor, measured alternately with it), medians of
   ``--repeats``.

``--json PATH`` also writes every figure (``benches/tables.py`` reads it).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import tempfile
import time

import numpy as np

import tractor
from tractor import nets


def untrained(path: str) -> str:
    """A network of 128/32 random units that corrects greedy (weights format 2), at ``path``."""
    rng = np.random.default_rng(0)
    d = tractor.actions.OBS_DIM
    layers = (rng.normal(0, 0.05, (128, d)), np.full(128, 0.1), rng.normal(0, 0.2, (32, 128)), np.zeros(32),
              rng.normal(0, 0.2, (72, 32)), np.zeros(72))
    nets.quantize(layers, canonical=True, base="greedy", prior=0.5).save(path)
    return f"net:{path}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=2000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--hands", type=int, default=4000)
    ap.add_argument("--json", help="also write the figures here")
    a = ap.parse_args(argv)
    tmp = tempfile.mkdtemp()
    policies = {"random": "random", "greedy": "greedy", "bc-greedy-v1": "bc-greedy-v1",
                "untrained-128": untrained(os.path.join(tmp, "untrained-128.tnet"))}
    learned = list(policies)
    out = {"deals": a.deals, "hands": a.hands, "repeats": a.repeats, "policies": learned,
           "machine": platform.processor() or platform.machine()}

    seconds = []
    for _ in range(a.repeats):
        t = time.perf_counter()
        r = tractor.arena.play(policies, deals=a.deals, threads=2, cost=False, bootstrap=0)
        seconds.append(time.perf_counter() - t)
    out["round_robin_s"] = seconds
    print(f"round-robin of {len(learned)} policies, {a.deals} deals, 2 threads: "
          f"{statistics.median(seconds):.1f} s (median of {a.repeats})")

    r = tractor.arena.play(policies, deals=20, threads=1, cost=True, bootstrap=0)
    out["cost_us"] = dict(r.cost_us)
    for name, us in r.cost_us.items():
        print(f"  {name}: {us:.2f} us per decision")

    def rate(policies):
        t = time.perf_counter()
        tractor.simulate(hands=a.hands, policies=policies, threads=1, seed=1)
        return a.hands / (time.perf_counter() - t)

    out["hands_per_s"] = {}
    for name in learned[2:]:
        net, anchor = [], []
        for _ in range(a.repeats):
            net.append(rate((policies[name], "greedy", policies[name], "greedy")))
            anchor.append(rate(("greedy",) * 4))
        out["hands_per_s"][name] = {"net_vs_greedy": net, "greedy": anchor}
        print(f"  {name}'s team against greedy: {statistics.median(net):,.0f} hands/s; greedy on every seat "
              f"{statistics.median(anchor):,.0f} hands/s (one thread)")
    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
