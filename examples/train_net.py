"""Trains an integer network policy (``net:PATH``) by behaviour cloning of ``greedy``, in numpy
alone, resumable, with its learning curve rated in the arena.

1. Data: ``--games`` greedy self-play hands, greedy's decisions as action ids, the suits
   renamed trump-first (``examples/train_bc.py`` makes them; kept in ``OUT/data.npz``).
2. The network ``tractor.nets`` quantizes: two ClippedReLU layers (``--h1``, ``--h2``) and a
   masked softmax over the 72 ids, cross-entropy on greedy's ids, minibatch Adam; the weights
   are kept inside what int16/int8 quantization holds.
3. After every epoch: a checkpoint (``OUT/checkpoint.npz``: the weights, Adam's state, the
   shuffling generator and the curve so far; ``--resume`` goes on from it), the quantized
   network (``OUT/epoch-K.tnet``), and its rating in the arena on ``--eval-deals`` deals of
   ``eval-v1`` against ``random`` (0) and ``greedy`` (1000). At the end ``OUT/agent.tnet`` is
   the best epoch's network, and ``OUT/curve.json`` and ``OUT/curve.png`` the learning curve.

Run: ``python examples/train_net.py --out runs/bc`` (the defaults take about 20 minutes of a
2-core machine; no GPU); ``--help`` for options. Deterministic per ``--seed`` on one machine
(numpy's matrix products may round differently elsewhere); a resumed run equals an unbroken one.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from typing import Dict, List, Tuple

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

import tractor  # noqa: E402
from tractor import nets  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from train_bc import adam_step, generate, log_softmax, to_canonical  # noqa: E402

Params = Dict[str, np.ndarray]
#: The largest |weight| int16 (W1, at shift1 = 6) and int8 (W2, W3, at 64) quantization holds.
W1_MAX = 32767 / (nets.ONE * 2**6)
W_MAX = 127 / 64
KEYS = ("W1", "b1", "W2", "b2", "W3", "b3")


def init(rng: np.random.Generator, h1: int, h2: int) -> Params:
    d, a = tractor.actions.OBS_DIM, tractor.actions.NUM_ACTIONS
    return {
        "W1": (rng.standard_normal((h1, d)) * math.sqrt(1 / d)).astype(np.float32),
        "b1": np.full(h1, 0.1, np.float32),
        "W2": (rng.standard_normal((h2, h1)) * math.sqrt(1 / h1)).astype(np.float32),
        "b2": np.full(h2, 0.1, np.float32),
        "W3": (rng.standard_normal((a, h2)) * math.sqrt(1 / h2)).astype(np.float32),
        "b3": np.zeros(a, np.float32),
    }


def forward(p: Params, x: np.ndarray):
    z1 = x @ p["W1"].T + p["b1"]
    h1 = np.clip(z1, 0, 1)
    z2 = h1 @ p["W2"].T + p["b2"]
    h2 = np.clip(z2, 0, 1)
    return h2 @ p["W3"].T + p["b3"], (z1, h1, z2, h2)


def gradients(p: Params, x: np.ndarray, mask: np.ndarray, y: np.ndarray) -> Tuple[float, Params]:
    x = x.astype(np.float32, copy=False)
    logits, (z1, h1, z2, h2) = forward(p, x)
    logp = log_softmax(logits, mask)
    n, rows = len(y), np.arange(len(y))
    d = np.exp(logp)
    d[rows, y] -= 1
    d /= n
    g = {"W3": d.T @ h2, "b3": d.sum(axis=0)}
    d2 = (d @ p["W3"]) * ((z2 > 0) & (z2 < 1))
    g["W2"], g["b2"] = d2.T @ h1, d2.sum(axis=0)
    d1 = (d2 @ p["W2"]) * ((z1 > 0) & (z1 < 1))
    g["W1"], g["b1"] = d1.T @ x, d1.sum(axis=0)
    return float(-logp[rows, y].mean()), g


def accuracy(p: Params, x, mask, y, batch: int = 8192) -> float:
    hits = 0
    for i in range(0, len(y), batch):
        logits, _ = forward(p, x[i : i + batch].astype(np.float32))
        hits += int((np.where(mask[i : i + batch], logits, -np.inf).argmax(axis=1) == y[i : i + batch]).sum())
    return hits / max(1, len(y))


def rate(path: str, deals: int) -> Dict[str, float]:
    """The network's rating on eval-v1's first ``deals`` deals against random and greedy, and
    its levels per deal against greedy with the interval."""
    r = tractor.arena.play({"net": f"net:{path}", "random": "random", "greedy": "greedy"}, deals=deals, cost=False,
                           bootstrap=100)
    ratings = r.ratings()
    vs = next(p.summary() for p in r.pairings if {p.a, p.b} == {"net", "greedy"})
    return {"rating": ratings["net"][0], "rating_lo": ratings["net"][1], "rating_hi": ratings["net"][2],
            "vs_greedy": vs["levels_per_deal"], "vs_greedy_lo": vs["ci95"][0], "vs_greedy_hi": vs["ci95"][1]}


def plot(curve: List[Dict[str, float]], path: str) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("  (matplotlib is not installed: no plot)")
        return
    hands = [c["hands_trained"] for c in curve]
    v = np.array([c["rating"] for c in curve])
    lo, hi = np.array([c["rating_lo"] for c in curve]), np.array([c["rating_hi"] for c in curve])
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.errorbar(hands, v, yerr=[v - lo, hi - v], fmt="o-", capsize=3, label="network (net:PATH)")
    ax.axhline(1000, color="gray", ls="--", label="greedy (1000)")
    ax.axhline(0, color="gray", ls=":", label="random (0)")
    ax.set_xlabel("hands trained on (greedy self-play hands × epochs)")
    ax.set_ylabel("rating on eval-v1, 95% interval")
    ax.set_title("behaviour cloning of greedy: the learning curve")
    ax.legend(loc="lower right")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="the run's folder (checkpoints, networks, curve)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--games", type=int, default=8000, help="greedy self-play hands to learn from")
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--h1", type=int, default=128)
    ap.add_argument("--h2", type=int, default=32)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--eval-deals", type=int, default=400, help="eval-v1 deals per rating (each in both seatings)")
    ap.add_argument("--resume", action="store_true", help="go on from OUT/checkpoint.npz")
    a = ap.parse_args(argv)
    if min(a.games, a.epochs, a.h1, a.h2, a.batch) < 1 or not 2 <= a.eval_deals <= 2000 or not 0 <= a.seed < 2**63:
        ap.error("sizes must be positive, --eval-deals in 2..2000, --seed in 0..2**63-1")
    os.makedirs(a.out, exist_ok=True)
    t0 = time.perf_counter()

    data_path = os.path.join(a.out, "data.npz")
    if os.path.exists(data_path):
        d = np.load(data_path)
        x, mask, y = d["x"], d["mask"], d["y"]
        print(f"1. data: {len(y)} samples from {data_path}")
    else:
        print(f"1. data: greedy self-play, {a.games} hands, suits renamed trump-first")
        x, mask, y = generate(a.games, a.seed)
        to_canonical(x, mask, y)
        np.savez(data_path, x=x, mask=mask, y=y)
        print(f"   {len(y)} samples in {time.perf_counter() - t0:.0f} s")

    ck_path = os.path.join(a.out, "checkpoint.npz")
    rng = np.random.default_rng([a.seed, 5])
    if a.resume and os.path.exists(ck_path):
        ck = np.load(ck_path, allow_pickle=False)
        p = {k: ck[k] for k in KEYS}
        m = {k: ck["m_" + k] for k in KEYS}
        v = {k: ck["v_" + k] for k in KEYS}
        t, start = int(ck["t"]), int(ck["epoch"])
        rng.bit_generator.state = json.loads(str(ck["rng"]))
        curve = json.loads(str(ck["curve"]))
        print(f"2. resumed after epoch {start} of {a.epochs}")
    else:
        p = init(rng, a.h1, a.h2)
        m = {k: np.zeros_like(w) for k, w in p.items()}
        v = {k: np.zeros_like(w) for k, w in p.items()}
        t, start, curve = 0, 0, []
        print(f"2. training {a.h1}/{a.h2} ClippedReLU layers, {a.epochs} epochs")
    cut = len(y) - len(y) // 10  # the last tenth is held out
    for epoch in range(start, a.epochs):
        order = rng.permutation(cut)
        losses = []
        for i in range(0, cut, a.batch):
            idx = np.sort(order[i : i + a.batch])
            loss, g = gradients(p, x[idx], mask[idx], y[idx])
            losses.append(loss)
            t += 1
            adam_step(p, g, m, v, t, a.lr)
            np.clip(p["W1"], -W1_MAX, W1_MAX, out=p["W1"])
            np.clip(p["W2"], -W_MAX, W_MAX, out=p["W2"])
            np.clip(p["W3"], -W_MAX, W_MAX, out=p["W3"])
        meta = {"name": f"bc-greedy epoch {epoch + 1}", "recipe": "examples/train_net.py", "seed": a.seed,
                "games": a.games, "epoch": epoch + 1, "h1": a.h1, "h2": a.h2}
        net_path = os.path.join(a.out, f"epoch-{epoch + 1}.tnet")
        nets.quantize([p[k] for k in KEYS], canonical=True, meta=json.dumps(meta)).save(net_path)
        point = {"epoch": epoch + 1, "hands_trained": (epoch + 1) * a.games, "loss": float(np.mean(losses)),
                 "held_out_agreement": accuracy(p, x[cut:], mask[cut:], y[cut:]), **rate(net_path, a.eval_deals)}
        curve.append(point)
        print(f"  epoch {epoch + 1}/{a.epochs}: loss {point['loss']:.3f}, agrees with greedy on "
              f"{point['held_out_agreement']:.1%} held out; rating {point['rating']:.0f} "
              f"[{point['rating_lo']:.0f}, {point['rating_hi']:.0f}], against greedy {point['vs_greedy']:+.3f} "
              f"[{point['vs_greedy_lo']:+.3f}, {point['vs_greedy_hi']:+.3f}] levels per deal "
              f"({time.perf_counter() - t0:.0f} s)")
        np.savez(ck_path, **p, **{"m_" + k: m[k] for k in KEYS}, **{"v_" + k: v[k] for k in KEYS}, t=t,
                 epoch=epoch + 1, rng=json.dumps(rng.bit_generator.state), curve=json.dumps(curve))

    best = max(curve, key=lambda c: c["rating"])
    with open(os.path.join(a.out, f"epoch-{best['epoch']}.tnet"), "rb") as f:
        agent = f.read()
    with open(os.path.join(a.out, "agent.tnet"), "wb") as f:
        f.write(agent)
    with open(os.path.join(a.out, "curve.json"), "w", encoding="utf-8") as f:
        json.dump(curve, f, indent=1)
    plot(curve, os.path.join(a.out, "curve.png"))
    print(f"3. agent.tnet: epoch {best['epoch']}, rating {best['rating']:.0f}; "
          f"total {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
