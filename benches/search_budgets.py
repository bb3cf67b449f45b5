"""Searches at fixed time budgets against greedy, in duplicate on the frozen suite.

    python benches/search_budgets.py [--budgets 0.01 0.1] [--deals 200 40] [--json PATH]

For each budget B (seconds per decision): ``ismcts:iterations=10000000,rollout=greedy,time=B``
(the time decides, not the count) against ``greedy`` with ``tractor.arena.play`` on the first
deals of ``eval-v1`` (each deal twice, teams swapped), on every core: levels per deal with
the paired 95% interval, and the iterations a decision reached (measured on mid-hand positions
of the suite's first deals, one thread). The machine's load changes what a budget buys: run it
on an otherwise idle machine.

``--json PATH`` also writes every figure (``benches/tables.py`` reads it).
"""

from __future__ import annotations

import argparse
import json
import statistics

import tractor
from tractor.search import ismcts


def mid_hands(n: int):
    out = []
    for seed in range(n):
        g = tractor.Game(seed=seed)
        i = 0
        while g.current_player is not None and (g.phase != "play" or len(g.hand(g.current_player)) > 30):
            g.step_policy("greedy", i)
            i += 1
        if g.current_player is not None:
            out.append(g)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--budgets", type=float, nargs="+", default=[0.01, 0.1])
    ap.add_argument("--deals", type=int, nargs="+", default=[200, 40])
    ap.add_argument("--json", default=None)
    a = ap.parse_args()
    rows = []
    games = mid_hands(8)
    for budget, deals in zip(a.budgets, a.deals):
        name = f"ismcts:iterations=10000000,rollout=greedy,time={budget}"
        iters = [ismcts(g, iterations=10_000_000, rollout="greedy", time_limit=budget, threads=1).iterations for g in games]
        r = tractor.arena.play([name, "greedy"], deals=deals, cost=False, bootstrap=0)
        p = r.pairings[0].summary()
        row = {
            "budget_s": budget,
            "policy": name,
            "deals": p["deals"],
            "levels_per_deal": p["levels_per_deal"],
            "ci95": list(p["ci95"]),
            "iterations_median": statistics.median(iters),
            "elapsed_s": r.elapsed,
        }
        rows.append(row)
        print(json.dumps(row))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
