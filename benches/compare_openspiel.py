"""Random-play throughput: OpenSpiel's ``hearts`` vs tractor-engine, one core, one run.

Installs nothing: ``pip install open_spiel`` first. Usage::

    python benches/compare_openspiel.py [--games 3000] [--hands 6000] [--repeats 5] [--json PATH]

- OpenSpiel: ``pyspiel.evaluate_bots`` on ``hearts`` with four ``make_uniform_random_bot``;
  a game deals 52 cards (cards/s = 52 × games/s). Decisions per game (passing + playing, the
  non-chance nodes) are counted in a separate, untimed run of the same random bots.
- tractor-engine: ``tractor.simulate(hands=N, policies=("random",)*4, threads=1)``: 216 cards per
  played hand (hands stopped without a showing, R8.5, play none); decisions from the
  ``decisions`` column (dealing decisions included: pass/show after each received card).

Each side is timed ``--repeats`` times, interleaved; the medians are compared. ``--json PATH``
also writes the medians and the per-repeat times (``benches/tables.py`` reads it).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time


def hearts_decisions_per_game(game, pyspiel, games: int = 300, seed: int = 0) -> float:
    import random

    r = random.Random(seed)
    total = 0
    for _ in range(games):
        s = game.new_initial_state()
        while not s.is_terminal():
            if s.is_chance_node():
                outcomes = s.chance_outcomes()
                s.apply_action(r.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0])
            else:
                s.apply_action(r.choice(s.legal_actions()))
                total += 1
    return total / games


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=3000, help="hearts games per repeat")
    ap.add_argument("--hands", type=int, default=6000, help="tractor hands per repeat")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--json", help="also write the results to this file")
    a = ap.parse_args()
    try:
        import pyspiel
    except ImportError:
        print("open_spiel is not installed: pip install open_spiel", file=sys.stderr)
        return 2
    import tractor

    hearts = pyspiel.load_game("hearts")
    bots = [pyspiel.make_uniform_random_bot(p, 1000 + p) for p in range(4)]
    dec_hearts = hearts_decisions_per_game(hearts, pyspiel)

    def run_hearts(rep: int) -> float:
        t = time.perf_counter()
        for i in range(a.games):
            returns = pyspiel.evaluate_bots(hearts.new_initial_state(), bots, rep * a.games + i)
            assert len(returns) == 4
        return time.perf_counter() - t

    tr_info = {}

    def run_tractor(rep: int) -> float:
        t = time.perf_counter()
        res = tractor.simulate(hands=a.hands, policies=("random",) * 4, seed=rep, threads=1)
        e = time.perf_counter() - t
        assert len(res) == a.hands
        played = int((~res["stopped"]).sum())
        tr_info[rep] = (played, int(res["decisions"].sum()))
        return e

    run_hearts(-1), run_tractor(99)  # warm-up
    th, tt = [], []
    for rep in range(a.repeats):
        th.append(run_hearts(rep))
        tt.append(run_tractor(rep))
    mh, mt = statistics.median(th), statistics.median(tt)
    played = statistics.median(p for p, _ in tr_info.values())
    decs = statistics.median(d for _, d in tr_info.values())

    g_s = a.games / mh
    h_s = a.hands / mt
    hearts_row = (g_s, 52 * g_s, dec_hearts * g_s)
    tractor_row = (h_s, 216 * played / mt, decs / mt)
    from importlib.metadata import version

    print(f"python {platform.python_version()}, open_spiel {version('open_spiel')}, "
          f"tractor-engine {tractor.__version__}, {os.cpu_count()} cpus; one thread each")
    print(f"hearts: {a.games} games x {a.repeats} repeats, {dec_hearts:.1f} decisions/game; "
          f"tractor: {a.hands} hands x {a.repeats} repeats, {played / a.hands:.4f} played, "
          f"{decs / a.hands:.1f} decisions/hand")
    print(f"per-repeat seconds: hearts {[round(x, 3) for x in th]}, tractor {[round(x, 3) for x in tt]}")
    print()
    print("| engine | games or hands/s | cards/s | decisions/s |")
    print("|---|---:|---:|---:|")
    print(f"| OpenSpiel hearts (evaluate_bots, random) | {hearts_row[0]:,.0f} | {hearts_row[1]:,.0f} | {hearts_row[2]:,.0f} |")
    print(f"| tractor-engine (simulate, random, 1 thread) | {tractor_row[0]:,.0f} | {tractor_row[1]:,.0f} | {tractor_row[2]:,.0f} |")
    print(f"| ratio tractor / hearts | {tractor_row[0] / hearts_row[0]:.2f}x | {tractor_row[1] / hearts_row[1]:.2f}x | "
          f"{tractor_row[2] / hearts_row[2]:.2f}x |")
    ratio = tractor_row[1] / hearts_row[1]
    print()
    print(f"goal: cards/s >= 3x OpenSpiel hearts: {ratio:.2f}x -> {'MET' if ratio >= 3 else 'NOT MET'}")
    if a.json:
        keys = ("per_s", "cards_per_s", "decisions_per_s")
        with open(a.json, "w") as f:
            json.dump({"open_spiel": version("open_spiel"), "games": a.games, "hands": a.hands, "repeats": a.repeats,
                       "hearts_decisions_per_game": dec_hearts, "tractor_played_share": played / a.hands,
                       "tractor_decisions_per_hand": decs / a.hands,
                       "hearts": dict(zip(keys, hearts_row)), "tractor": dict(zip(keys, tractor_row)),
                       "hearts_seconds": th, "tractor_seconds": tt}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
