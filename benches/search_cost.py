"""CPU time a decision of search policies on the same mid-hand positions, for setting searches to
equal time before an arena run (CPU time: what a core gives on a shared machine).

Usage: ``python benches/search_cost.py POLICY [POLICY ...]``: eight positions (deals 100..107,
greedy to 30 + 10 k plays), two alternating rounds; prints the median milliseconds a decision.
``--cards N`` (first): instead, the start of a trick with N cards in every hand of twelve greedy
hands (deals 0..11, as ``benches/solve_speed.py`` finds them): the decisions ``solve=N`` solves;
the largest such N inside 100 ms is PIMC's ``solve`` setting (docs/search.md)."""

from __future__ import annotations

import statistics
import sys
import time

import tractor


def positions(n: int = 8) -> list:
    games = []
    for s in range(n):
        g = tractor.Game(seed=100 + s)
        k = 0
        while g.current_player is not None and not (g.phase == "play" and k >= 30 + 10 * s):
            g.step_policy("greedy", k)
            k += 1 if g.phase == "play" else 0
        games.append(g)
    return games


def main(policies: list) -> None:
    games = positions()
    if policies[:1] == ["--cards"]:
        from solve_speed import endgame  # (benches/ is the script's own directory)

        n, policies = int(policies[1]), policies[2:]
        games = [g for g in (endgame(s, n) for s in range(12)) if g is not None]
    ms: dict = {p: [] for p in policies}
    for r in range(2):
        for p in policies:
            t = time.process_time()
            for i, g in enumerate(games):
                g.policy_action(p, i + r)
            ms[p].append(1000 * (time.process_time() - t) / len(games))
    for p in policies:
        print(f"{statistics.median(ms[p]):8.2f} ms  {p}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
