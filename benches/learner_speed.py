"""A learner's view of the environment's speed (issue 21), in one process.

    python benches/learner_speed.py [--envs 256] [--steps 3000] [--repeats 5] [--hands 2000] [--json PATH]

1. ``auto_forced``: a learner (ids drawn from the masks in numpy) against three ``greedy``
   opponents, ``--envs`` environments on one thread, without and with ``auto_forced``,
   alternately: learner steps per second and hands per second (hands ended / time), medians
   of ``--repeats``.
2. ``VecEnv`` from 1 to 2 threads with float32 and with uint8 observations: self-play, 1,024
   environments, ``step`` alone (the actions prepared before the timing), in adjacent pairs:
   decisions per second and the 2-thread/1-thread ratio per observation type.
3. A Python callable at the table: ``simulate`` on one thread, ``--hands`` hands, a network's
   team (128/32 units) against greedy's, the network native (``net:PATH``; an exact numpy
   twin is checked to give the same results), the same network in float32 numpy as a callable,
   and a callable without a model (the first allowed id: the table's own cost), alternately:
   hands per second.
4. A teacher's cost: the learner loop of 1 with ``teacher="greedy"`` beside it.

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

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

import tractor  # noqa: E402
from tractor import nets  # noqa: E402


def draw(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniform allowed id per row."""
    return (rng.random(mask.shape) * mask).argmax(axis=1)


def learner(envs: int, steps: int, **kw) -> dict:
    env = tractor.VecEnv(envs, seed=1, opponents=("greedy",) * 3, threads=1, **kw)
    rng = np.random.default_rng(0)
    _, mask, _, _, _ = env.reset()
    for _ in range(steps // 5):  # warm-up: past the first deals
        _, mask, _, _, _ = env.step(draw(mask, rng))
    hands = 0
    t = time.perf_counter()
    for _ in range(steps):
        _, mask, _, _, done = env.step(draw(mask, rng))
        hands += int(done.sum())
    dt = time.perf_counter() - t
    return {"steps_per_s": steps * envs / dt, "hands_per_s": hands / dt}


def threads_pair(dtype: str, steps: int) -> dict:
    out = {}
    for threads in (1, 2):
        env = tractor.VecEnv(1024, seed=2, threads=threads, obs_dtype=dtype)
        rng = np.random.default_rng(0)
        _, mask, _, _, _ = env.reset()
        acts = draw(mask, rng)
        for _ in range(200):
            _, mask, _, _, _ = env.step(acts)
            acts = draw(mask, rng)
        spent = 0.0
        for _ in range(steps // 4):
            t = time.perf_counter()
            _, mask, _, _, _ = env.step(acts)
            spent += time.perf_counter() - t
            acts = draw(mask, rng)  # outside the timing: step alone
        out[threads] = 1024 * (steps // 4) / spent
    return out


def twin_of(net: nets.Net):
    q1, qb1, q2, qb2, q3, qb3 = (a.astype(np.int64) for a in net.arrays)
    _, _, s1, s2 = net.shape

    def twin(obs, mask):
        x = np.rint(obs.astype(np.float64) * nets.OBS_SCALE).astype(np.int64)
        a1 = np.clip((x @ q1 + qb1) >> s1, 0, nets.ONE)
        a2 = np.clip((a1 @ q2.T + qb2) >> s2, 0, nets.ONE)
        return np.argmax(np.where(mask, a2 @ q3.T + qb3, np.iinfo(np.int64).min), axis=1)

    return twin


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--envs", type=int, default=256)
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--hands", type=int, default=2000)
    ap.add_argument("--json", help="also write the figures here")
    a = ap.parse_args(argv)
    out: dict = {"envs": a.envs, "steps": a.steps, "repeats": a.repeats, "hands": a.hands,
                 "machine": platform.processor() or platform.machine(), "cores": os.cpu_count()}

    runs: dict = {"plain": [], "auto_forced": [], "teacher": []}
    for _ in range(a.repeats):
        runs["plain"].append(learner(a.envs, a.steps))
        runs["auto_forced"].append(learner(a.envs, a.steps, auto_forced=True))
        runs["teacher"].append(learner(a.envs, a.steps, teacher="greedy"))
    out["learner"] = runs
    for k, v in runs.items():
        print(f"{k:12s} learner steps/s {statistics.median(r['steps_per_s'] for r in v):>12,.0f}"
              f"   hands/s {statistics.median(r['hands_per_s'] for r in v):>9,.1f}")

    scaling: dict = {"float32": [], "uint8": []}
    for _ in range(a.repeats):
        for dtype in scaling:
            scaling[dtype].append(threads_pair(dtype, a.steps))
    out["threads"] = {k: [{str(t): x for t, x in r.items()} for r in v] for k, v in scaling.items()}
    for dtype, v in scaling.items():
        one = statistics.median(r[1] for r in v)
        two = statistics.median(r[2] for r in v)
        ratio = statistics.median(r[2] / r[1] for r in v)
        print(f"VecEnv.step {dtype:8s} 1 thread {one:>12,.0f}/s  2 threads {two:>12,.0f}/s  ratio {ratio:.2f}x")

    tmp = tempfile.mkdtemp()
    rng = np.random.default_rng(0)
    d = tractor.actions.OBS_DIM
    layers = (rng.normal(0, 0.05, (128, d)), np.full(128, 0.1), rng.normal(0, 0.2, (32, 128)), np.zeros(32),
              rng.normal(0, 0.2, (72, 32)), np.zeros(72))
    net = nets.quantize(layers)
    path = os.path.join(tmp, "bench-128.tnet")
    net.save(path)
    twin = twin_of(net)
    native_p = (f"net:{path}", "greedy") * 2
    r1 = tractor.simulate(hands=50, policies=native_p, seed=3, threads=1)
    r2 = tractor.simulate(hands=50, policies=(twin, "greedy") * 2, seed=3, threads=1)
    assert all(np.array_equal(r1.arrays[k], r2.arrays[k]) for k in r1.arrays), "the twin decides as the network"
    w = [np.asarray(x, np.float32) for x in layers]

    def float_net(obs, mask):  # the same network in float32 (BLAS): a torch-like forward pass
        h = np.clip(obs @ w[0].T + w[1], 0, 1)
        h = np.clip(h @ w[2].T + w[3], 0, 1)
        return np.where(mask, h @ w[4].T + w[5], -np.inf).argmax(axis=1)

    def first(obs, mask):  # no model at all: what the table itself costs
        return mask.argmax(axis=1)

    kinds = {"native": native_p, "float_callable": (float_net, "greedy") * 2, "first_callable": (first, "greedy") * 2}
    table: dict = {k: [] for k in kinds}
    for _ in range(a.repeats):
        for name, ps in kinds.items():
            t = time.perf_counter()
            r = tractor.simulate(hands=a.hands, policies=ps, seed=4, threads=1)
            table[name].append(a.hands / (time.perf_counter() - t))
            assert not r.interrupted
    out["callable"] = table
    n = statistics.median(table["native"])
    for name in kinds:
        c = statistics.median(table[name])
        print(f"simulate, {name:14s} team vs greedy, one thread: {c:>8,.0f} hands/s ({c / n:.2f}x native)")

    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
