"""Learning loops side by side, one run: tractor-engine's VecEnv and single-game id loop
against OpenSpiel hearts' Python loop, per decision.

Installs nothing: ``pip install open_spiel`` first. Usage::

    python benches/compare_learning_openspiel.py [--envs 1024] [--steps 300] [--repeats 5]

- OpenSpiel hearts, Python loop: per decision ``information_state_tensor()``,
  ``legal_actions_mask()``, a uniform legal action drawn in numpy, ``apply_action``; chance
  nodes sampled and not counted.
- tractor ``VecEnv`` (self-play, every receiver deciding while dealing): per step, actions drawn
  from the masks in numpy (``(rng.random(mask.shape) * mask).argmax(1)``), then ``env.step``,
  which writes observations and masks for every environment; 1 and 2 threads. Steps/s counts
  every environment's decision.
- tractor single game from Python: ``Game.observation_tensor(seat, out=buf)``,
  ``action_mask()``, a uniform legal id, ``step(id)``.
- ``observation_tensor`` alone, per call into a buffer, from Python (the Rust-side cost is
  criterion's ``observe`` bench).

Each measurement is repeated ``--repeats`` times, interleaved; medians are reported.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time

import numpy as np


def hearts_loop(game, seconds: float, seed: int) -> float:
    rng = np.random.default_rng(seed)
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        s = game.new_initial_state()
        while not s.is_terminal():
            if s.is_chance_node():
                acts, probs = zip(*s.chance_outcomes())
                s.apply_action(acts[rng.choice(len(acts), p=np.asarray(probs) / sum(probs))])
                continue
            np.asarray(s.information_state_tensor(), dtype=np.float32)
            mask = np.asarray(s.legal_actions_mask(), dtype=bool)
            s.apply_action(int(np.flatnonzero(mask)[rng.integers(mask.sum())]))
            n += 1
    return n / (time.perf_counter() - t0)


def vec_env_loop(tractor, envs: int, steps: int, threads: int, seed: int) -> float:
    env = tractor.VecEnv(envs, seed=seed, threads=threads)
    rng = np.random.default_rng(seed)
    obs, mask, seat, reward, done = env.reset()
    t0 = time.perf_counter()
    for _ in range(steps):
        actions = (rng.random(mask.shape) * mask).argmax(axis=1)
        obs, mask, seat, reward, done = env.step(actions)
    dt = time.perf_counter() - t0
    assert mask.any(axis=1).all()
    return envs * steps / dt


def game_loop(tractor, seconds: float, seed: int) -> float:
    rng = np.random.default_rng(seed)
    buf = np.empty(tractor.actions.OBS_DIM, dtype=np.float32)
    n, t0, h = 0, time.perf_counter(), 0
    while time.perf_counter() - t0 < seconds:
        g = tractor.Game.deal(seed * 100_000 + h, every_receiver=True)
        h += 1
        while g.phase != "over":
            g.observation_tensor(g.current_player, out=buf)
            m = g.action_mask()
            g.step(int(np.flatnonzero(m)[rng.integers(m.sum())]))
            n += 1
    return n / (time.perf_counter() - t0)


def obs_calls(tractor, calls: int, seed: int) -> float:
    """Seconds per observation_tensor call into a buffer, over positions all through hands."""
    games = []
    for h in range(20):
        g = tractor.Game.deal(seed + h, every_receiver=True)
        rng = np.random.default_rng(h)
        k = 0
        while g.phase != "over":
            m = g.action_mask()
            g.step(int(np.flatnonzero(m)[rng.integers(m.sum())]))
            k += 1
            if k % 40 == 0:
                games.append(g.clone())
    buf = np.empty(tractor.actions.OBS_DIM, dtype=np.float32)
    t0 = time.perf_counter()
    i = 0
    for _ in range(calls // len(games) + 1):
        for g in games:
            g.observation_tensor(0, out=buf)
            i += 1
    return (time.perf_counter() - t0) / i


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--envs", type=int, default=1024)
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--seconds", type=float, default=3.0, help="per Python-loop measurement")
    ap.add_argument("--repeats", type=int, default=5)
    a = ap.parse_args()
    try:
        import pyspiel
    except ImportError:
        print("open_spiel is not installed: pip install open_spiel", file=sys.stderr)
        return 2
    import tractor

    hearts = pyspiel.load_game("hearts")
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"load {os.getloadavg()[0]:.2f}; tractor {tractor.__version__}; envs {a.envs} x steps {a.steps}")
    res = {k: [] for k in ("hearts", "vec1", "vec2", "game", "obs")}
    for r in range(a.repeats):
        res["hearts"].append(hearts_loop(hearts, a.seconds, r))
        res["vec1"].append(vec_env_loop(tractor, a.envs, a.steps, 1, r))
        res["vec2"].append(vec_env_loop(tractor, a.envs, a.steps, 2, r))
        res["game"].append(game_loop(tractor, a.seconds, r))
        res["obs"].append(obs_calls(tractor, 200_000, r))
        print(f"repeat {r}: " + ", ".join(f"{k} {v[-1]:.4g}" for k, v in res.items()), flush=True)
    med = {k: statistics.median(v) for k, v in res.items()}
    print()
    print(f"| loop | decisions/s (median of {a.repeats}) | vs hearts' Python loop |")
    print("|---|---|---|")
    print(f"| OpenSpiel hearts, Python (infostate tensor, mask, apply) | {med['hearts']:,.0f} | 1.00x |")
    for k, name in (("vec1", "tractor VecEnv, 1 thread"), ("vec2", "tractor VecEnv, 2 threads"),
                    ("game", "tractor Game from Python (obs, mask, step)")):
        print(f"| {name} | {med[k]:,.0f} | {med[k] / med['hearts']:.1f}x |")
    print(f"\nVecEnv 1 -> 2 threads: {med['vec2'] / med['vec1']:.2f}x")
    print(f"observation_tensor from Python, into a buffer: {med['obs'] * 1e6:.2f} us per call (median)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
