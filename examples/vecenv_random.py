"""A minimal ``tractor.VecEnv`` loop: every seat is the learner's, and its actions are drawn
uniformly from the legal-action masks in numpy. Prints steps per second and the hands played.

Run: ``python examples/vecenv_random.py [--envs 256] [--steps 2000] [--threads 2] [--seed 0]``
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import tractor


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--envs", type=int, default=256, help="environments stepped together")
    ap.add_argument("--steps", type=int, default=2000, help="calls to step()")
    ap.add_argument("--threads", type=int, default=None, help="VecEnv threads (default: all cores)")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)

    env = tractor.VecEnv(a.envs, seed=a.seed, threads=a.threads)  # self-play: the learner plays every seat
    rng = np.random.default_rng(a.seed)
    obs, mask, seat, reward, done = env.reset()
    hands, team0, in_env = 0, 0.0, 0.0
    t = time.perf_counter()
    for _ in range(a.steps):
        # one uniform draw per environment among the ids its mask allows
        actions = np.where(mask, rng.random(mask.shape), -1.0).argmax(axis=1)
        t_env = time.perf_counter()
        obs, mask, seat, reward, done = env.step(actions)
        in_env += time.perf_counter() - t_env
        hands += int(done.sum())
        team0 += float(reward[:, 0].sum())  # seat 0's team: levels gained minus lost, at hand ends
    dt = time.perf_counter() - t
    steps = a.envs * a.steps
    print(f"{steps} steps in {dt:.2f} s: {steps / dt:,.0f} steps/s with the numpy draws "
          f"({steps / in_env:,.0f} steps/s inside env.step; {a.envs} envs, threads={a.threads or 'all'})")
    print(f"{hands} hands finished; team 0 (seats 0 and 2) gained {team0 / max(hands, 1):+.3f} levels per hand")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
