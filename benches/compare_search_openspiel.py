"""Search throughput, side by side with OpenSpiel's hearts in one run, one core unless said.

    python benches/compare_search_openspiel.py [--positions 12] [--repeats 3] [--json PATH]

Positions: tractor-engine, dealt hands played by ``greedy`` to a phase (first trick, mid-hand
after half the plays, last trick) and on to a seat with at least two legal plays; OpenSpiel,
hearts played at random past the pass to the same share of its 52 cards, also at a real choice.

- determinization: tractor ``g.determinize(seat, seed)`` (one exact world on a fresh copy of the
  state: info set and counting programme included), timed apart as the hand's first info set on
  the thread (``cold``: the deal's turn chains built, which every later info set of the hand,
  any seat's, reuses) and as a later one (``one``: repeat r at the seat's (r + 1)-th decision
  after this one, greedy in between: another state and info set of the hand, as the seat's
  search meets them; the chains kept);
  ``determinize_many(seat, 64, seed)`` per world on a fresh copy, and one world per call on a
  state already determinized (a game keeps its last determinizer); the searches' hands-only
  sampler is in ``examples/determinize_speed``; hearts
  ``state.resample_from_infostate(player, sampler)``.
- ISMCTS: tractor ``tractor.search.ismcts(iterations=1000)``; OpenSpiel's C++ ``ISMCTSBot`` with
  ``RandomRolloutEvaluator(1)`` and 1000 simulations. Cards simulated per second = iterations/s
  × cards still in the hands at the root (every iteration plays the hand out).
- rollouts from mid-hand, random and greedy; PIMC decisions at 32 worlds × 8 rollouts.
Medians over positions × repeats; every call's answer is checked. ``--json PATH`` also writes
the medians (``benches/tables.py`` reads it).
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import platform
import random
import statistics
import sys
import time


def tractor_position(seed: int, share: float):
    import tractor

    g = tractor.Game(seed=seed)
    k = 0
    while g.phase == "declare":
        g.step_policy("greedy", seed * 100 + k)
        k += 1
    total = 216
    # to the share of cards played, then on to a real choice (two plays or more)
    while g.phase == "play" and (sum(len(g.hand(s)) for s in range(4)) > total * (1 - share) or len(g.legal_actions()) < 2):
        g.step_policy("greedy", seed * 100 + k)
        k += 1
    return g if g.phase == "play" else None


def med(xs):
    return statistics.median(xs)


def p99(xs):
    xs = sorted(xs)
    return xs[int((len(xs) - 1) * 0.99)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--positions", type=int, default=12)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--iterations", type=int, default=1000)
    ap.add_argument("--determinization-only", action="store_true", help="stop after the determinization table")
    ap.add_argument("--json", help="also write the results to this file")
    a = ap.parse_args()
    import pyspiel

    import tractor
    from tractor.search import ismcts, pimc, rollouts

    rows = []
    print(f"python {platform.python_version()}, tractor-engine {tractor.__version__}, {os.cpu_count()} cpus, "
          f"load {open('/proc/loadavg').read().split()[:3]}")

    # -- determinization -------------------------------------------------------------------
    for phase, share in (("first trick", 0.02), ("mid-hand", 0.5), ("last trick", 0.95)):
        cold, one, many, again = [], [], [], []
        for i in range(a.positions):
            g = tractor_position(1000 + i, share)
            if g is None:
                continue
            seat = g.current_player
            obs = g.observation(seat)
            # the first info set of this hand the thread sees: the deal's turn chains are built
            # (and kept for the hand's later info sets, any seat's, as a search's next decision)
            fresh = copy.copy(g)
            t = time.perf_counter()
            w = fresh.determinize(seat, 999)
            cold.append(time.perf_counter() - t)
            assert w.observation(seat) == obs
            for rep in range(a.repeats):
                # a later info set of the hand: the seat's (rep + 1)-th decision after this one,
                # greedy on every seat in between (another state and info set, as the seat's
                # search meets them), a fresh state (a copy keeps no determinizer): info set,
                # counting programme and the world; the hand's chains kept
                later, k = copy.copy(g), 0
                for _ in range(rep + 1):
                    later.step_policy("greedy", 7 * i + k)
                    k += 1
                    while later.phase == "play" and later.current_player != seat:
                        later.step_policy("greedy", 7 * i + k)
                        k += 1
                if later.phase == "play":
                    obs2 = later.observation(seat)
                    t = time.perf_counter()
                    w = later.determinize(seat, rep)
                    one.append(time.perf_counter() - t)
                    assert w.observation(seat) == obs2
                fresh = copy.copy(g)
                t = time.perf_counter()
                ws = fresh.determinize_many(seat, 64, rep)
                many.append((time.perf_counter() - t) / 64)
                assert len(ws) == 64
                # one world per call on a state already determinized (the game keeps its
                # determinizer): a Python PIMC loop's cost per world
                for k in range(16):
                    t = time.perf_counter()
                    w = fresh.determinize(seat, 1000 + rep * 16 + k)
                    again.append(time.perf_counter() - t)
                assert w.observation(seat) == obs
        hs = []
        for i in range(a.positions):
            s = hearts_sample_state(pyspiel, 2000 + i, min(share, 0.85))
            if s is None:
                continue
            p = s.current_player()
            r = random.Random(i)
            for rep in range(a.repeats):
                t = time.perf_counter()
                for _ in range(20):
                    w = s.resample_from_infostate(p, r.random)
                hs.append((time.perf_counter() - t) / 20)
                assert w.information_state_string(p) == s.information_state_string(p)
        rows.append((f"determinize, {phase}", med(cold) * 1e6, med(one) * 1e6, med(many) * 1e6, p99(many) * 1e6, med(again) * 1e6, med(hs) * 1e6))
    print()
    print("| determinization | tractor one world, fresh state, the hand's first info set µs | the same, a later info set of the hand µs | tractor per world of 64, fresh state µs (median / p99) | tractor one world per call, state seen before µs | OpenSpiel hearts resample µs | hearts / tractor per world of 64 | hearts / tractor one per call |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, c, o, m, m99, ag, h in rows:
        print(f"| {name} | {c:,.1f} | {o:,.1f} | {m:,.1f} / {m99:,.1f} | {ag:,.1f} | {h:,.1f} | {h / m:.2f}x | {h / ag:.2f}x |")
    out = {"positions": a.positions, "repeats": a.repeats, "iterations": a.iterations,
           "determinization": {name.split(", ", 1)[1]: {"first_of_hand_us": c, "one_us": o, "per_world_of_64_us": m,
                                                        "per_world_of_64_p99_us": m99, "one_per_call_seen_us": ag,
                                                        "hearts_resample_us": h}
                               for name, c, o, m, m99, ag, h in rows}}

    def dump():
        if a.json:
            with open(a.json, "w") as f:
                json.dump(out, f, indent=1)

    if a.determinization_only:
        dump()
        return 0

    # -- ISMCTS ----------------------------------------------------------------------------
    ti, tc, hi, hc = [], [], [], []
    for i in range(a.positions):
        g = tractor_position(3000 + i, 0.5)
        if g is None:
            continue
        left = sum(len(g.hand(s)) for s in range(4))
        t = time.perf_counter()
        r = ismcts(g, iterations=a.iterations, seed=i, threads=1)
        e = time.perf_counter() - t
        assert r.action in g.legal_actions()
        ti.append(a.iterations / e)
        tc.append(a.iterations * left / e)
    for i in range(a.positions):
        s = hearts_sample_state(pyspiel, 4000 + i, 0.5)
        if s is None:
            continue
        left = 52 - hearts_cards_played(s)
        ev = pyspiel.RandomRolloutEvaluator(1, i)
        bot = pyspiel.ISMCTSBot(i, ev, 0.7, a.iterations, -1, pyspiel.ISMCTSFinalPolicyType.MAX_VISIT_COUNT, False, False)
        t = time.perf_counter()
        act = bot.step(s)
        e = time.perf_counter() - t
        assert act in s.legal_actions()
        hi.append(a.iterations / e)
        hc.append(a.iterations * left / e)
    t2 = []
    for i in range(min(4, a.positions)):
        g = tractor_position(3000 + i, 0.5)
        if g is None:
            continue
        t = time.perf_counter()
        r1 = ismcts(g, iterations=a.iterations, seed=i, threads=1, trees=2)
        e1 = time.perf_counter() - t
        t = time.perf_counter()
        r2 = ismcts(g, iterations=a.iterations, seed=i, threads=2, trees=2)
        e2 = time.perf_counter() - t
        assert r1 == r2
        t2.append(e1 / e2)
    print()
    print("| ISMCTS, mid-hand, 1 thread | iterations/s | cards simulated/s |")
    print("|---|---:|---:|")
    print(f"| tractor-engine ismcts (random rollouts) | {med(ti):,.0f} | {med(tc):,.0f} |")
    print(f"| OpenSpiel C++ ISMCTSBot on hearts (random rollout evaluator) | {med(hi):,.0f} | {med(hc):,.0f} |")
    print(f"| ratio tractor / OpenSpiel | {med(ti) / med(hi):.2f}x | {med(tc) / med(hc):.2f}x |")
    print(f"tractor ismcts trees=2, 1 → 2 threads: median speed-up {med(t2):.2f}x")
    out["ismcts"] = {"tractor_iterations_per_s": med(ti), "tractor_cards_per_s": med(tc),
                     "hearts_iterations_per_s": med(hi), "hearts_cards_per_s": med(hc), "threads_1_to_2": med(t2)}

    # -- rollouts and PIMC -----------------------------------------------------------------
    rr, rg, pd = [], [], []
    for i in range(a.positions):
        g = tractor_position(5000 + i, 0.5)
        if g is None:
            continue
        t = time.perf_counter()
        x = rollouts(g, 400, "random", seed=i, threads=1)
        rr.append(400 / (time.perf_counter() - t))
        assert (x.sum(axis=1) == 0).all()
        t = time.perf_counter()
        rollouts(g, 400, "greedy", seed=i, threads=1)
        rg.append(400 / (time.perf_counter() - t))
        if i < 4:
            t = time.perf_counter()
            p = pimc(g, worlds=32, rollouts=8, seed=i, threads=1)
            pd.append(1 / (time.perf_counter() - t))
            assert p.action in g.legal_actions()
    print()
    print("| from mid-hand, 1 thread | per second (median) |")
    print("|---|---:|")
    print(f"| random rollouts | {med(rr):,.0f} |")
    print(f"| greedy rollouts | {med(rg):,.0f} |")
    print(f"| PIMC decisions, 32 worlds x 8 random rollouts | {med(pd):,.2f} |")
    out["rollouts"] = {"random_per_s": med(rr), "greedy_per_s": med(rg), "pimc_decisions_per_s": med(pd)}
    dump()
    return 0


def hearts_sample_state(pyspiel, seed: int, share: float):
    """Hearts played at random until ``share`` of the 52 cards are on the table (play phase)."""
    r = random.Random(seed)
    s = pyspiel.load_game("hearts").new_initial_state()
    target = int(52 * share)
    while not s.is_terminal():
        if s.is_chance_node():
            outs = s.chance_outcomes()
            s.apply_action(r.choices([x for x, _ in outs], [p for _, p in outs])[0])
            continue
        if hearts_cards_played(s) >= max(1, target) and len(s.legal_actions()) > 1:
            return s
        s.apply_action(r.choice(s.legal_actions()))
    return None


def hearts_cards_played(s) -> int:
    """Cards played so far: hearts' history is deal (52 chance), passes, then one card a move."""
    hist = s.history()
    # the pass direction (1), the deal (52) and the passes (12, unless "No Pass") come first
    passes = 0 if "No Pass" in str(s).split("\n", 1)[0] else 12
    return max(0, len(hist) - 1 - 52 - passes)


if __name__ == "__main__":
    sys.exit(main())
