"""Trains a value head (weights format 3) for the searches' leaves, ``value=net:PATH``: a network
that predicts a hand's defenders' final score (R7.3) from what the seat to move knows, in numpy
alone, then measures what it gives ISMCTS.

1. Data: ``--games`` greedy self-play hands (the default deal mode, the profile of
   ``--profile``); at every ``--every``-th play decision the observation of the seat to move,
   labelled with the hand's final score (``Result.raw_score``, what the searches' returns are
   computed from). Kept in ``OUT/value-data.npz``; the last tenth of the hands is held out.
2. The network: two ClippedReLU layers (``--h1``, ``--h2``) and the value head
   ``wv @ h2 + bv`` in hundreds of points, mean squared error, minibatch Adam, the weights kept
   inside what int16/int8 quantization holds; the epoch with the least held-out error is kept. Its policy head is zero: the file is made for
   ``value=``, not to play by its logits (as a policy it would take the lowest allowed id).
3. ``OUT/value.tnet`` (the quantized network) and ``OUT/value.json``: the held-out mean
   absolute error of the float network (the integer one lies within ``nets.value_bound`` of
   it; its median is reported) beside a constant predictor's (the training mean) and, with ``--eval-deals N``, ISMCTS valuing its leaves by the network
   against ISMCTS with greedy rollouts at the same iterations, in duplicate on ``eval-v1``,
   with each one's cost per decision.

Run: ``python examples/train_value.py --out runs/value`` (the defaults, 20,000 hands and five
epochs, take about 4 minutes of a 2-core machine; BENCHMARKS.md measures that network in
ISMCTS: it loses to greedy rollouts); ``--help`` for options. Deterministic per ``--seed`` on
one machine.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from typing import Dict, Tuple

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

import tractor  # noqa: E402
from tractor import nets  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from train_bc import adam_step  # noqa: E402
from train_net import W1_MAX, W_MAX, Params  # noqa: E402  (the trunk's quantization limits)

#: The value head's weights are int16 at 64.
WV_MAX = 32767 / 64


def generate(games: int, seed: int, every: int, profile: str) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(observations, scores in points, hand index) at every ``every``-th play decision of
    ``games`` greedy self-play hands."""
    hand_seeds = np.random.default_rng([seed, 2]).integers(0, 2**63, size=games, dtype=np.uint64)
    xs, ys, hs = [], [], []
    for h, hs_seed in enumerate(hand_seeds.tolist()):
        g = tractor.Game(seed=hs_seed, profile=profile)
        seen, decision = [], 0
        while g.current_player is not None:
            if g.phase == "play" and decision % every == 0:
                seen.append(g.observation_tensor(g.current_player))
            decision += g.phase == "play"
            g.step_policy("greedy", hs_seed ^ decision)
        if g.result is None:  # the deal stopped (R8.5): no score
            continue
        xs += seen
        ys += [g.result.raw_score] * len(seen)
        hs += [h] * len(seen)
        if (h + 1) % max(1, games // 4) == 0:
            print(f"  {h + 1}/{games} hands, {len(ys)} positions")
    return np.stack(xs).astype(np.float32), np.asarray(ys, np.float32), np.asarray(hs, np.int64)


def init(rng: np.random.Generator, h1: int, h2: int, mean: float) -> Params:
    d = tractor.actions.OBS_DIM
    return {
        "W1": (rng.standard_normal((h1, d)) * math.sqrt(1 / d)).astype(np.float32),
        "b1": np.full(h1, 0.1, np.float32),
        "W2": (rng.standard_normal((h2, h1)) * math.sqrt(1 / h1)).astype(np.float32),
        "b2": np.full(h2, 0.1, np.float32),
        "wv": (rng.standard_normal(h2) * math.sqrt(1 / h2)).astype(np.float32),
        "bv": np.array([mean / 100], np.float32),
    }


def forward(p: Params, x: np.ndarray):
    z1 = x @ p["W1"].T + p["b1"]
    h1 = np.clip(z1, 0, 1)
    z2 = h1 @ p["W2"].T + p["b2"]
    h2 = np.clip(z2, 0, 1)
    return h2 @ p["wv"] + p["bv"][0], (z1, h1, z2, h2)


def gradients(p: Params, x: np.ndarray, y: np.ndarray) -> Tuple[float, Params]:
    """Mean squared error in hundreds of points, and its gradients."""
    v, (z1, h1, z2, h2) = forward(p, x)
    d = 2 * (v - y / 100) / len(y)
    g = {"wv": h2.T @ d, "bv": np.array([d.sum()], np.float32)}
    d2 = np.outer(d, p["wv"]) * ((z2 > 0) & (z2 < 1))
    g["W2"], g["b2"] = d2.T @ h1, d2.sum(axis=0)
    d1 = (d2 @ p["W2"]) * ((z1 > 0) & (z1 < 1))
    g["W1"], g["b1"] = d1.T @ x, d1.sum(axis=0)
    return float(((v - y / 100) ** 2).mean()), g


def layers(p: Params) -> Tuple[np.ndarray, ...]:
    """The six arrays ``tractor.nets`` reads: the trunk and a zero policy head."""
    a = tractor.actions.NUM_ACTIONS
    return (p["W1"], p["b1"], p["W2"], p["b2"], np.zeros((a, len(p["b2"]))), np.zeros(a))


def evaluate(path: str, deals: int, iterations: int, profile: str) -> Dict[str, object]:
    """ISMCTS with the value head against ISMCTS with greedy rollouts, same iterations: A's
    levels per deal over B in duplicate on eval-v1, and each one's cost per decision."""
    base = f"ismcts:iterations={iterations},rollout=greedy"
    r = tractor.arena.play({"value": f"{base},value=net:{path}", "rollout": base}, deals=deals, profile=profile,
                           bootstrap=0)
    s = r.pairings[0].summary()
    sign = 1 if r.pairings[0].a == "value" else -1
    lo, hi = sorted(sign * c for c in s["ci95"])
    return {"levels_per_deal": sign * s["levels_per_deal"], "ci95": [lo, hi], "deals": deals,
            "cost_us": dict(r.cost_us)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--games", type=int, default=20000)
    ap.add_argument("--every", type=int, default=4, help="keep every Nth play decision")
    ap.add_argument("--profile", default="guigang")
    ap.add_argument("--h1", type=int, default=64)
    ap.add_argument("--h2", type=int, default=32)
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--eval-deals", type=int, default=0)
    ap.add_argument("--eval-iterations", type=int, default=300)
    args = ap.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    data_path = os.path.join(args.out, "value-data.npz")
    t0 = time.perf_counter()
    if os.path.exists(data_path):
        d = np.load(data_path)
        x, y, hand = d["x"], d["y"], d["hand"]
    else:
        x, y, hand = generate(args.games, args.seed, args.every, args.profile)
        np.savez_compressed(data_path, x=x, y=y, hand=hand)
    held = hand >= int(hand.max() * 0.9)
    xt, yt, xv, yv = x[~held], y[~held], x[held], y[held]
    print(f"{len(yt)} training and {len(yv)} held-out positions ({time.perf_counter() - t0:.0f} s)")
    rng = np.random.default_rng([args.seed, 3])
    p = init(rng, args.h1, args.h2, float(yt.mean()))
    m = {k: np.zeros_like(v) for k, v in p.items()}
    v2 = {k: np.zeros_like(v) for k, v in p.items()}
    limits = {"W1": W1_MAX, "W2": W_MAX, "wv": WV_MAX}
    step = 0
    best: Tuple[float, Params] = (math.inf, p)
    for epoch in range(args.epochs):
        order = rng.permutation(len(yt))
        losses = []
        for i in range(0, len(order), args.batch):
            b = order[i : i + args.batch]
            loss, g = gradients(p, xt[b], yt[b])
            step += 1
            adam_step(p, g, m, v2, step, args.lr)
            for k, bound in limits.items():
                np.clip(p[k], -bound, bound, out=p[k])
            losses.append(loss)
        held_mse = float(((forward(p, xv)[0] - yv / 100) ** 2).mean())
        print(f"epoch {epoch + 1}: training mse {np.mean(losses):.4f}, held-out {held_mse:.4f} (hundreds of points²)")
        if held_mse < best[0]:
            best = (held_mse, {k: v.copy() for k, v in p.items()})
    p = best[1]  # the epoch with the least held-out error (positions of one hand are alike)
    meta = json.dumps({"name": "value", "trained": "train_value.py", "games": args.games, "profile": args.profile,
                       "policy_head": "zero (made for value=)"})
    value = (p["wv"], float(p["bv"][0]))
    net = nets.quantize(layers(p), meta=meta, value=value)
    path = os.path.join(args.out, "value.tnet")
    net.save(path)
    # the float network's held-out error; the integer one lies within nets.value_bound of it
    preds = nets.value_float(layers(p), value, xv)
    bound = nets.value_bound(layers(p), value, net, xv)
    report: Dict[str, object] = {
        "positions": {"training": int(len(yt)), "held_out": int(len(yv))},
        "held_out_mae_points": float(np.abs(preds - yv).mean()),
        "constant_mae_points": float(np.abs(yt.mean() - yv).mean()),
        "score_mean": float(yt.mean()), "score_sd": float(yt.std()),
        "quantization_bound_median_points": float(np.median(bound)),
    }
    print(f"held-out mean absolute error {report['held_out_mae_points']:.1f} points "
          f"(a constant {report['constant_mae_points']:.1f}; scores {report['score_mean']:.0f} ± {report['score_sd']:.0f})")
    if args.eval_deals:
        report["ismcts"] = evaluate(path, args.eval_deals, args.eval_iterations, args.profile)
        print(f"ismcts with value= against greedy rollouts: {report['ismcts']}")
    with open(os.path.join(args.out, "value.json"), "w") as f:
        json.dump(report, f, indent=1)
    print(f"wrote {path} ({time.perf_counter() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
