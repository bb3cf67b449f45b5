"""Learns greedy's weights by self-play: SPSA (simultaneous perturbation stochastic
approximation) on duplicate deals, then rates the result on ``eval-v1``.

greedy scores its choices with whole-number weights (``tractor._core.GREEDY_WEIGHTS``; the
policy ``greedy:NAME=V/...`` plays any other set, docs/arena.md). The 21 that say what it
prefers are learned; the two that say how hard it looks (``list_max``, ``samples``) stay at
greedy's values, or at those ``--fixed`` names. Each iteration k:

1. draws a sign for every weight (``numpy.random.default_rng([seed, k])``) and plays the
   weights moved one step up that way against the weights moved one step down, in duplicate
   (``tractor.simulate(duplicate=True)``: each deal once per seating), on ``--deals`` deals of
   their own (``simulate`` seed: ``default_rng([seed, k, 1]).integers(2**63)``); a step is a tenth of the weight's
   greedy value, at least 1;
2. moves every weight, in steps, by ``lr_k × sign × r / rms``: r is the up set's levels per
   deal over the down set's, rms the running root mean square of r (so the step does not
   depend on r's scale), lr_k = ``--lr`` / (1 + k / 200) ** 0.602.

Every ``--every`` iterations the rounded weights play greedy on ``--val-deals`` duplicate
deals of a seed of their own (``default_rng([seed, 2**32]).integers(2**63)``: the learning curve; these deals never move the weights), and the
state is saved (``OUT/state.json``; ``--resume`` goes on from it, and a resumed run equals an
unbroken one). At the end: ``OUT/weights.txt`` (the policy name of the last weights),
``OUT/curve.json`` and ``curve.png``, and, with ``--eval-deals N``, the last weights against
greedy on eval-v1's first N deals with the interval (the arena's number; never used to choose).

Run: ``python examples/tune_greedy.py --out runs/tuned``; ``--help`` for options.
Deterministic per ``--seed`` whatever ``--threads`` (every game is).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time
from typing import Dict, List, Optional

import numpy as np

import tractor
from tractor import _core
from tractor.errors import TractorError

#: How hard greedy looks, not what it prefers: never learned (strength alone would always ask
#: for more of it), held where ``--fixed`` puts them.
EFFORT = ("list_max", "samples")
LEARNED = [w for w in _core.GREEDY_WEIGHTS if w[0] not in EFFORT]
NAMES = [w[0] for w in LEARNED]
GREEDY = np.array([w[1] for w in LEARNED], float)
LO = np.array([w[2] for w in LEARNED], float)
HI = np.array([w[3] for w in LEARNED], float)
#: One step of each weight: a tenth of greedy's value, at least 1.
STEP = np.maximum(1.0, np.abs(GREEDY) / 10)


def policy(theta: np.ndarray, fixed: Optional[Dict[str, int]] = None) -> str:
    """The policy name of the weights ``theta`` (rounded to whole numbers, inside their ranges)
    with the effort weights ``fixed`` (the others at greedy's values)."""
    w = dict(zip(NAMES, np.clip(np.rint(theta), LO, HI).astype(int)), **(fixed or {}))
    return _core.policy_name("greedy:" + "/".join(f"{n}={v}" for n, v in w.items()))


def parse_fixed(text: str) -> Dict[str, int]:
    """``--fixed``: ``NAME=V/...`` of effort weights (ValueError naming what is wrong; the core
    checks the values)."""
    out: Dict[str, int] = {}
    for part in filter(None, (p.strip() for p in text.split("/"))):
        n, _, v = part.partition("=")
        if n.strip() not in EFFORT:
            raise ValueError(f"--fixed {part!r}: only the effort weights {', '.join(EFFORT)} are fixed")
        try:
            _core.policy_name(f"greedy:{part}")
        except TractorError as e:
            raise ValueError(f"--fixed {part!r}: {e}") from None
        out[n.strip()] = int(v)
    return out


def duel(a: str, b: str, deals: int, seed: int, threads: int) -> Dict[str, float]:
    """``a``'s levels per deal over ``b``'s with the 95% interval, in duplicate on ``deals``
    deals of ``seed`` (nothing is played when they are one policy)."""
    if a == b:
        return {"levels": 0.0, "lo": 0.0, "hi": 0.0}
    d = tractor.simulate(hands=deals, policies=(a, b, a, b), duplicate=True, seed=seed,
                         threads=threads).summary()["duplicate"]
    return {"levels": float(d["advantage"]), "lo": d["ci95"][0], "hi": d["ci95"][1]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="the run's folder (state, weights, curve)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--iterations", type=int, default=1500)
    ap.add_argument("--deals", type=int, default=500, help="duplicate deals per iteration")
    ap.add_argument("--lr", type=float, default=0.3, help="the first step, in steps of each weight")
    ap.add_argument("--every", type=int, default=100, help="iterations between curve points")
    ap.add_argument("--val-deals", type=int, default=2000, help="duplicate deals per curve point")
    ap.add_argument("--eval-deals", type=int, default=0, help="eval-v1 deals for the final rating (0: none)")
    ap.add_argument("--threads", type=int, default=0, help="0: all cores")
    ap.add_argument("--resume", action="store_true", help="go on from OUT/state.json")
    ap.add_argument("--fixed", default="", help=f"effort weights held at other values, NAME=V/... ({', '.join(EFFORT)})")
    a = ap.parse_args(argv)
    try:
        fixed = parse_fixed(a.fixed)
    except ValueError as e:
        ap.error(str(e))
    if min(a.iterations, a.deals, a.every, a.val_deals) < 1 or a.lr <= 0 or not 0 <= a.eval_deals <= 2000:
        ap.error("sizes and --lr must be positive, --eval-deals in 0..2000")
    if not 0 <= a.seed < 2**63:
        ap.error("--seed in 0..2**63-1")
    threads = a.threads or None
    os.makedirs(a.out, exist_ok=True)
    state_path = os.path.join(a.out, "state.json")
    val_seed = int(np.random.default_rng([a.seed, 2**32]).integers(2**63))
    if a.resume and os.path.exists(state_path):
        with open(state_path) as f:
            st = json.load(f)
        k, theta, ms, curve = st["k"], np.array(st["theta"], float), st["ms"], st["curve"]
        if a.fixed and fixed != st.get("fixed", {}):
            ap.error(f"--fixed {a.fixed!r} differs from the run's {st.get('fixed', {})}")
        fixed = st.get("fixed", {})
    else:
        k, theta, ms = 0, GREEDY.copy(), 0.0
        curve: List[Dict] = [{"iteration": 0, "policy": "greedy", "levels": 0.0, "lo": 0.0, "hi": 0.0}]
    t0 = time.perf_counter()
    while k < a.iterations:
        sign = np.random.default_rng([a.seed, k]).choice([-1.0, 1.0], size=len(NAMES))
        up, down = policy(theta + STEP * sign, fixed), policy(theta - STEP * sign, fixed)
        r = duel(up, down, a.deals, int(np.random.default_rng([a.seed, k, 1]).integers(2**63)), threads)["levels"]
        ms = 0.95 * ms + 0.05 * r * r if k else r * r
        lr = a.lr / (1 + k / 200) ** 0.602
        if ms > 0:
            theta = np.clip(theta + STEP * lr * sign * r / math.sqrt(ms), LO, HI)
        k += 1
        if k % a.every == 0:
            name = policy(theta, fixed)
            curve.append({"iteration": k, "policy": name, **duel(name, "greedy", a.val_deals, val_seed, threads)})
            c = curve[-1]
            print(f"iteration {k}: {c['levels']:+.4f} [{c['lo']:+.4f}, {c['hi']:+.4f}] levels per deal against "
                  f"greedy, {name} ({time.perf_counter() - t0:.0f} s)", flush=True)
        if k % a.every == 0 or k == a.iterations:  # a curve point, or the end: what --resume reads
            with open(state_path + ".tmp", "w") as f:
                json.dump({"k": k, "theta": theta.tolist(), "ms": ms, "curve": curve, "fixed": fixed}, f)
            os.replace(state_path + ".tmp", state_path)
    name = policy(theta, fixed)
    with open(os.path.join(a.out, "weights.txt"), "w") as f:
        f.write(name + "\n")
    summary = {"policy": name, "seed": a.seed, "iterations": a.iterations, "deals": a.deals, "fixed": fixed,
               "curve": curve}
    if a.eval_deals:
        r = tractor.arena.play({"tuned": name, "greedy": "greedy"}, deals=a.eval_deals, cost=False)
        vs = r.pairings[0].summary()
        sign = 1 if r.pairings[0].a == "tuned" else -1
        lo, hi = (sign * x for x in vs["ci95"])
        summary["eval_v1"] = {"deals": a.eval_deals, "levels": sign * vs["levels_per_deal"], "ci95": sorted((lo, hi))}
        print(f"eval-v1, {a.eval_deals} deals: {summary['eval_v1']}")
    with open(os.path.join(a.out, "curve.json"), "w") as f:
        json.dump(summary, f, indent=1)
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        xs = [c["iteration"] for c in curve]
        fig, ax = plt.subplots(figsize=(6, 3.5))
        ax.errorbar(xs, [c["levels"] for c in curve], yerr=[[c["levels"] - c["lo"] for c in curve],
                    [c["hi"] - c["levels"] for c in curve]], fmt="o-", capsize=3)
        ax.axhline(0, color="grey", lw=0.8)
        ax.set_xlabel("SPSA iterations")
        ax.set_ylabel("levels per deal against greedy")
        fig.tight_layout()
        fig.savefig(os.path.join(a.out, "curve.png"), dpi=110)
    except ImportError:
        pass
    print(f"{name}: {a.out}/weights.txt")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
