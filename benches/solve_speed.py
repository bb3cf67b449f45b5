"""The open-card solver by cards left, against a Python alpha-beta in the same run.

    python benches/solve_speed.py [--positions 20] [--python-positions 4] [--cards 2-8] [--json PATH]
                                  [--search auto|plain|partition]

Positions: the start of a trick with k cards in every hand, one per seeded hand played by the
greedy policy (``Game(seed)``, guigang). For each k: ``tractor.search.solve`` (every play's
exact value, one core): the median time per position and the nodes searched per second; then,
for the smaller k, the anchor: a plain alpha-beta written here in Python over ``Game.clone`` /
``apply`` and ``legal_actions`` (the value of the position only), on the first positions.
Each solve is checked against the anchor's value where both ran.

``--cards`` takes card counts or ranges (``2-8``, ``5 6 10``). ``--json PATH`` also writes every
figure (``benches/tables.py`` reads it). ``--search``: ``auto`` (the default, ``solve(g)``: partition
search where a hand holds ``SOLVE_PARTITION_FROM`` cards or more), ``plain`` (``partition=False``)
or ``partition`` (``partition=True``); the same values.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

import tractor
from tractor.search import solve

#: ``--search``: what ``solve``'s ``partition`` is given.
SEARCH = {"auto": None, "plain": False, "partition": True}


def endgame(seed: int, k: int):
    g = tractor.Game(seed=seed)
    i = 0
    while g.current_player is not None:
        if g.phase == "play" and not g.current_trick and len(g.hand(g.current_player)) == k:
            return g
        g.step_policy("greedy", i)
        i += 1
    return None


def alphabeta(g: tractor.Game, alpha: float, beta: float) -> int:
    if g.phase == "over":
        return g.result.raw_score
    maximise = (g.current_player - g.banker) % 2 == 1
    best = -10**9 if maximise else 10**9
    for p in g.legal_actions():
        h = g.clone()
        h.apply(p)
        v = alphabeta(h, alpha, beta)
        if maximise:
            best = max(best, v)
            alpha = max(alpha, v)
        else:
            best = min(best, v)
            beta = min(beta, v)
        if alpha >= beta:
            break
    return best


def counts(words: list[str]) -> list[int]:
    """``["2-4", "8"]`` -> ``[2, 3, 4, 8]``."""
    out = []
    for w in words:
        lo, _, hi = w.partition("-")
        out.extend(range(int(lo), int(hi or lo) + 1))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--positions", type=int, default=20)
    ap.add_argument("--python-positions", type=int, default=4)
    ap.add_argument("--cards", nargs="+", default=["2-8"])
    ap.add_argument("--python-cards", nargs="+", default=["2-5"])
    ap.add_argument("--json", default=None)
    ap.add_argument("--search", choices=sorted(SEARCH), default="auto")
    a = ap.parse_args()
    a.cards, a.python_cards = counts(a.cards), counts(a.python_cards)
    load = [os.getloadavg()[0]]
    rows = []
    for k in a.cards:
        games, seed = [], 0
        while len(games) < a.positions:
            seed += 1
            g = endgame(seed, k)
            if g is not None:
                games.append(g)
        times, nodes = [], 0
        values = []
        for g in games:
            t = time.perf_counter()
            s = solve(g, node_budget=10**12, partition=SEARCH[a.search])
            times.append(time.perf_counter() - t)
            assert s.exact
            nodes += s.nodes
            values.append(s.score)
        row = {
            "cards": k,
            "search": a.search,
            "positions": len(games),
            "solve_ms": statistics.median(times) * 1e3,
            "nodes_per_position": nodes / len(games),
            "nodes_per_s": nodes / sum(times),
        }
        if k in a.python_cards and a.python_positions > 0:
            pt = []
            for g, v in zip(games[: a.python_positions], values):
                t = time.perf_counter()
                want = alphabeta(g, -10**9, 10**9)
                pt.append(time.perf_counter() - t)
                assert want == v, (k, want, v)
            row["python_ms"] = statistics.median(pt) * 1e3
            row["python_positions"] = len(pt)
        rows.append(row)
        print(json.dumps(row))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"rows": rows, "load": load + [os.getloadavg()[0]]}, f, indent=1)


if __name__ == "__main__":
    main()
