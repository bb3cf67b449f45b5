"""Learning loops side by side, one run: tractor-engine's VecEnv and single-game id loop
against OpenSpiel hearts' Python loop, per decision.

Installs nothing: ``pip install open_spiel`` first. Usage::

    python benches/compare_learning_openspiel.py [--envs 1024] [--warmup 600] [--steps 1500]
        [--repeats 5] [--draw index|argmax] [--json PATH]

- OpenSpiel hearts, Python loop: per decision ``information_state_tensor()``,
  ``legal_actions_mask()``, a uniform legal action drawn in numpy, ``apply_action``; chance
  nodes sampled and not counted.
- tractor ``VecEnv`` (self-play, every receiver deciding while dealing): per step, actions drawn
  from the masks in numpy, then ``env.step``, which writes observations and masks for every
  environment; 1 and 2 threads. Steps/s counts every environment's decision; reported for the
  whole loop and for the time inside ``env.step`` alone.

  Steady state: a hand is about 470 steps with every receiver deciding (216 dealing
  decisions, which are cheap, then about 216 card choices and the leads' 54s), so each
  repeat first runs ``--warmup`` untimed steps (default 600: more than a whole hand, so the
  environments are spread over their hands) and then times ``--steps`` steps (default 1500,
  about three hands). Timing a few hundred steps from ``reset`` would measure mostly the
  first hand's dealing.

  The draw (``--draw``), both uniform among the legal ids of each row and computed in
  numpy: ``index`` (default) draws one integer below each row's number of legal ids
  (``rng.integers(counts)``) and takes that legal id from ``np.flatnonzero(mask)`` (about
  0.1 µs per environment);
  ``argmax`` fills a reused float32 buffer with uniform numbers, multiplies by the mask and
  takes the argmax per row (72 random numbers per environment instead of one: ties aside,
  the same distribution at several times the cost: about 0.3–0.5 µs per environment).
- tractor single game from Python: ``Game.observation_tensor(seat, out=buf)``,
  ``action_mask()``, a uniform legal id, ``step(id)``.
- ``observation_tensor`` alone, per call into a buffer, from Python (the Rust-side cost is
  criterion's ``observe`` bench).

Each measurement is repeated ``--repeats`` times, interleaved; medians are reported (and
written to ``--json PATH``, with every repeat's value).
"""

from __future__ import annotations

import argparse
import json
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


def index_draw(rng, mask):
    """A uniform legal id per row: an integer below the row's number of legal ids, used as
    an index into the row's legal ids (np.flatnonzero lists them row by row, ascending)."""
    legal = np.flatnonzero(mask)
    rows = np.arange(0, mask.size, mask.shape[1])
    first = np.searchsorted(legal, rows)  # where each row's legal ids start in `legal`
    counts = np.diff(first, append=legal.size)
    return legal[first + rng.integers(counts)] - rows


def argmax_draw(rng, mask, u):
    """A uniform legal id per row: uniform float32 numbers in the reused buffer `u`, times
    the mask, argmax per row."""
    rng.random(dtype=np.float32, out=u)
    u *= mask
    return u.argmax(axis=1)


def vec_env_loop(tractor, envs: int, warmup: int, steps: int, threads: int, seed: int, draw: str):
    """(steps/s of the whole loop, steps/s inside env.step) over `steps` steps after `warmup`
    untimed ones; actions drawn from the masks in numpy by `draw`."""
    env = tractor.VecEnv(envs, seed=seed, threads=threads)
    rng = np.random.default_rng(seed)
    obs, mask, seat, reward, done = env.reset()
    u = np.empty(mask.shape, dtype=np.float32)

    def act(mask):
        return index_draw(rng, mask) if draw == "index" else argmax_draw(rng, mask, u)

    for _ in range(warmup):
        obs, mask, seat, reward, done = env.step(act(mask))
    inside = 0.0
    t0 = time.perf_counter()
    for _ in range(steps):
        actions = act(mask)
        t1 = time.perf_counter()
        obs, mask, seat, reward, done = env.step(actions)
        inside += time.perf_counter() - t1
    dt = time.perf_counter() - t0
    assert mask.any(axis=1).all()
    return envs * steps / dt, envs * steps / inside


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
    ap.add_argument("--warmup", type=int, default=600, help="untimed VecEnv steps first (more than a hand)")
    ap.add_argument("--steps", type=int, default=1500, help="timed VecEnv steps (about three hands)")
    ap.add_argument("--draw", choices=("index", "argmax"), default="index", help="how actions are drawn in numpy")
    ap.add_argument("--seconds", type=float, default=3.0, help="per Python-loop measurement")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--vec-only", action="store_true", help="measure the VecEnv loops only")
    ap.add_argument("--json", help="also write the results to this file")
    a = ap.parse_args()
    try:
        import pyspiel
    except ImportError:
        print("open_spiel is not installed: pip install open_spiel", file=sys.stderr)
        return 2
    import tractor

    hearts = pyspiel.load_game("hearts")
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"load {os.getloadavg()[0]:.2f}; tractor {tractor.__version__}; envs {a.envs} x steps {a.steps} "
          f"after {a.warmup} warm-up steps; draw {a.draw}")
    res = {k: [] for k in ("hearts", "vec1", "vec2", "in1", "in2", "game", "obs")}
    for r in range(a.repeats):
        for t in (1, 2):
            whole, inside = vec_env_loop(tractor, a.envs, a.warmup, a.steps, t, r, a.draw)
            res[f"vec{t}"].append(whole)
            res[f"in{t}"].append(inside)
        if a.vec_only:
            print(f"repeat {r}: " + ", ".join(f"{k} {v[-1]:.4g}" for k, v in res.items() if v), flush=True)
            continue
        res["hearts"].append(hearts_loop(hearts, a.seconds, r))
        res["game"].append(game_loop(tractor, a.seconds, r))
        res["obs"].append(obs_calls(tractor, 200_000, r))
        print(f"repeat {r}: " + ", ".join(f"{k} {v[-1]:.4g}" for k, v in res.items()), flush=True)
    med = {k: statistics.median(v) for k, v in res.items() if v}
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"envs": a.envs, "warmup": a.warmup, "steps": a.steps, "draw": a.draw, "repeats": a.repeats,
                       "seconds": a.seconds, "median": med, "runs": res}, f, indent=1)
    print()
    if a.vec_only:
        for k in ("vec1", "vec2", "in1", "in2"):
            print(f"{k}: {med[k]:,.0f} steps/s (median of {a.repeats})")
        return 0
    print(f"| loop | decisions/s (median of {a.repeats}) | vs hearts' Python loop |")
    print("|---|---|---|")
    print(f"| OpenSpiel hearts, Python (infostate tensor, mask, apply) | {med['hearts']:,.0f} | 1.00x |")
    for k, name in (("vec1", "tractor VecEnv, 1 thread"), ("vec2", "tractor VecEnv, 2 threads"),
                    ("game", "tractor Game from Python (obs, mask, step)")):
        print(f"| {name} | {med[k]:,.0f} | {med[k] / med['hearts']:.1f}x |")
    print(f"| tractor VecEnv.step alone, 1 thread | {med['in1']:,.0f} | {med['in1'] / med['hearts']:.1f}x |")
    print(f"| tractor VecEnv.step alone, 2 threads | {med['in2']:,.0f} | {med['in2'] / med['hearts']:.1f}x |")
    print(f"\nVecEnv 1 -> 2 threads: {med['vec2'] / med['vec1']:.2f}x (whole loop), "
          f"{med['in2'] / med['in1']:.2f}x (env.step alone)")
    print(f"observation_tensor from Python, into a buffer: {med['obs'] * 1e6:.2f} us per call (median)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
