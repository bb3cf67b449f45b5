"""Trains a network that corrects ``greedy``: it learns, from greedy self-play, how much each
action gains over greedy's own when the rest of the hand is played by greedy, and plays greedy's
action unless it predicts another one gains more than a margin (the weights file's greedy
prior). Numpy alone, on CPUs; the learning curve is rated in the arena.

1. Data (``OUT/data-K.npz``, one file per worker): ``--games`` greedy self-play hands. At a
   share ``--share`` of the decisions with a choice, every candidate action (all legal actions
   up to 24, else 24 uniform draws and greedy's) is applied to a copy of the true game, which
   greedy then plays to the end with one shared stream: the candidate's gain over greedy's
   action is the difference of the defenders' final scores (``Game.playout_score``), for the
   seat's team, over 80 points (a level, R7.4), clipped to 3. Scores rather than levels:
   levels step every 80 points, so one decision rarely moves them and their differences are
   mostly noise (a run on levels learned nothing: ±0.00 levels per deal against greedy). The values are of the true deal, but the network sees only the seat's
   observation, so it learns their mean over the deals the seat cannot tell apart (what
   perfect-information Monte Carlo estimates with greedy rollouts, here from the deals
   greedy's own play actually leads to). An action of several ids is taught at each of its
   ids: an id's target is the best value among the candidates it leads to.
2. The network (``tractor.nets``: two ClippedReLU layers, ``--h1``, ``--h2``) regresses those
   targets (mean squared error over the ids that have one), suits renamed trump-first,
   minibatch Adam; the weights are kept inside what int16/int8 quantization holds.
3. After every epoch: a checkpoint (``--resume``), the quantized network with the greedy prior
   ``--prior`` (levels: greedy's next id gets this much added to its predicted gain), and its
   rating on ``--eval-deals`` deals of ``eval-v1`` against ``random`` and ``greedy``. The
   margin can be chosen afterwards on other deals (``--tune``, a suite of its own seed), since
   the prior is only a field of the file.

Run: ``python examples/train_greedy_q.py --out runs/q``; ``--help`` for options. Deterministic
per ``--seed`` on one machine (numpy's matrix products may round differently elsewhere),
whatever ``--workers``; a resumed run equals an unbroken one.
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
from tractor import actions as A  # noqa: E402
from tractor import nets  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from train_bc import TO_CANON, adam_step, canonical, greedy_ids  # noqa: E402
from train_net import KEYS, W1_MAX, W_MAX, forward, init, plot  # noqa: E402

Params = Dict[str, np.ndarray]
#: Candidates valued per decision at most (as PIMC weighs).
CANDIDATES = 24


# -- 1. data ---------------------------------------------------------------------------------
def candidates(g: tractor.Game, greedy: Tuple[int, ...], seed: int) -> List[Tuple[int, ...]]:
    """The id sequences of the actions weighed at ``g``'s decision, greedy's first."""
    out = [greedy]
    if g.phase == "declare":
        out += [(int(i),) for i in np.flatnonzero(g.action_mask())]
    else:
        lead = not g.current_trick
        legal = g.legal_actions()
        n = len(legal)
        plays = [legal[i] for i in range(n)] if n <= CANDIDATES else [legal.sample(seed + j) for j in range(CANDIDATES)]
        out += [tuple(A.encode(p, lead=lead)) for p in plays]
    return list(dict.fromkeys(out))


#: Points per level (R7.4: the result steps every 80 points), and the largest gain taught.
POINTS_PER_LEVEL, CLIP = 80, 3.0


def value(g: tractor.Game, ids: Tuple[int, ...], seed: int) -> int:
    """The defenders' final score after the action ``ids`` and greedy's play to the end."""
    h = g.clone()
    for i in ids:
        h.step(i)
    score = h.playout_score("greedy", seed)
    assert score is not None, "a play-phase playout is scored"
    return score


def decision_rows(g: tractor.Game, seat: int, cands: List[Tuple[int, ...]], gains: List[float]):
    """(observation, mask, targets, greedy's next id) at every prefix of the candidates where
    the mask leaves a choice; targets are NaN for ids no candidate takes."""
    greedy = cands[0]
    prefixes = sorted({c[:k] for c in cands for k in range(len(c))}, key=lambda p: (len(p), p))
    rows = []
    for pre in prefixes:
        h = g.clone()
        for i in pre:
            h.step(i)
        mask = h.action_mask()
        if mask.sum() < 2:
            continue
        t = np.full(A.NUM_ACTIONS, np.nan, np.float32)
        for c, v in zip(cands, gains):
            if c[: len(pre)] == pre:
                i = c[len(pre)]
                t[i] = v if np.isnan(t[i]) else max(t[i], v)
        nxt = greedy[len(pre)] if greedy[: len(pre)] == pre else -1
        rows.append((h.observation_tensor(seat), mask, t, nxt))
    return rows


def generate(games: int, seed: int, worker: int, workers: int, path: str, share: float = 0.25) -> int:
    """Hands ``worker``, ``worker + workers``, ... of the run's ``games``; rows saved at ``path``.
    A share ``share`` of the decisions is valued (drawn per decision from its seed): fewer rows
    per deal, more deals for the same time, so that the network cannot learn a deal's hidden
    cards from its many rows. While cards are dealt, the future cards decide the values far
    more than the choice does, so those decisions are taught as no gain anywhere (the network
    keeps greedy's showings)."""
    hand_seeds = np.random.default_rng([seed, 1]).integers(0, 2**63, size=games, dtype=np.uint64)
    xs, ms, ts, gs, hids = [], [], [], [], []
    obs = np.empty(A.OBS_DIM, np.float32)
    for h in range(worker, games, workers):
        hs = int(hand_seeds[h])
        g = tractor.Game.deal(hs, every_receiver=True)
        decision = 0
        while g.phase != "over":
            seat = g.current_player
            mask = g.action_mask()
            if g.phase == "declare" and mask.sum() == 1:
                g.step(A.PASS)
                continue
            g.observation_tensor(seat, out=obs)
            ds = (hs ^ (decision * 0x9E3779B97F4A7C15)) & (2**63 - 1)
            greedy = tuple(greedy_ids(g, seat, ds, obs))
            cands = candidates(g, greedy, ds) if (ds % 1_000_003) < share * 1_000_003 else [greedy]
            if len(cands) > 1:
                if g.phase == "declare":
                    gains = [0.0] * len(cands)
                else:
                    sign = 1 if seat % 2 != g.banker % 2 else -1  # the defenders' score is theirs
                    values = [value(g, c, ds) for c in cands]
                    gains = [float(np.clip(sign * (v - values[0]) / POINTS_PER_LEVEL, -CLIP, CLIP)) for v in values]
                for x, m, t, n in decision_rows(g, seat, cands, gains):
                    xs.append(x.astype(np.float16))
                    ms.append(m)
                    ts.append(t)
                    gs.append(n)
                    hids.append(h)
            for i in greedy:
                g.step(i)
            decision += 1
    np.savez(path, x=np.array(xs, np.float16).reshape(-1, A.OBS_DIM), mask=np.array(ms, bool).reshape(-1, A.NUM_ACTIONS),
             t=np.array(ts, np.float32).reshape(-1, A.NUM_ACTIONS), g=np.array(gs, np.int64),
             hand=np.array(hids, np.int64))
    return len(gs)


def load(out: str, workers: int) -> Tuple[np.ndarray, ...]:
    parts = [np.load(os.path.join(out, f"data-{k}.npz")) for k in range(workers)]
    x, mask, t, g, hand = (np.concatenate([p[n] for p in parts]) for n in ("x", "mask", "t", "g", "hand"))
    # the suits renamed trump-first, targets and greedy's id with them
    for i in range(0, len(g), 1 << 16):
        j = min(i + (1 << 16), len(g))
        x[i:j], mask[i:j], trump = canonical(x[i:j], mask[i:j])
        rows = np.arange(j - i)[:, None]
        renamed = np.full_like(t[i:j], np.nan)
        renamed[rows, TO_CANON[trump]] = t[i:j]
        t[i:j] = renamed
        has = g[i:j] >= 0
        g[i:j][has] = TO_CANON[trump[has], g[i:j][has]]
    return x, mask, t, g, hand


# -- 2. training -----------------------------------------------------------------------------
def gradients(p: Params, x: np.ndarray, t: np.ndarray) -> Tuple[float, Params]:
    x = x.astype(np.float32, copy=False)
    out, (z1, h1, z2, h2) = forward(p, x)
    have = ~np.isnan(t)
    d = np.where(have, out - np.nan_to_num(t), 0.0) / max(1, int(have.sum()))
    loss = float((d * d).sum() * max(1, int(have.sum())))
    g = {"W3": d.T @ h2, "b3": d.sum(axis=0)}
    d2 = (d @ p["W3"]) * ((z2 > 0) & (z2 < 1))
    g["W2"], g["b2"] = d2.T @ h1, d2.sum(axis=0)
    d1 = (d2 @ p["W2"]) * ((z1 > 0) & (z1 < 1))
    g["W1"], g["b1"] = d1.T @ x, d1.sum(axis=0)
    return loss, g


def agreement(p: Params, x, mask, t, g, prior: float) -> Dict[str, float]:
    """On held-out rows: how often the corrected choice is greedy's, and the mean target gain of
    the choice where greedy's id is known (0 = greedy's own)."""
    out, _ = forward(p, x.astype(np.float32))
    has = g >= 0
    rows = np.arange(len(g))
    out[rows[has], g[has]] += prior
    choice = np.where(mask, out, -np.inf).argmax(axis=1)
    gain = t[rows, choice]
    ok = has & ~np.isnan(gain)
    return {"greedy_agreement": float((choice[has] == g[has]).mean()), "held_out_gain": float(gain[ok].mean())}


def rate(path: str, deals: int) -> Dict[str, float]:
    """The network's rating on eval-v1's first ``deals`` deals against random and greedy, and
    its levels per deal against greedy with the interval (reported, never used to choose)."""
    r = tractor.arena.play({"net": f"net:{path}", "random": "random", "greedy": "greedy"}, deals=deals, cost=False,
                           bootstrap=100)
    ratings = r.ratings()
    vs = next(p.summary() for p in r.pairings if (p.a, p.b) == ("net", "greedy"))
    return {"rating": ratings["net"][0], "rating_lo": ratings["net"][1], "rating_hi": ratings["net"][2],
            "vs_greedy": vs["levels_per_deal"], "vs_greedy_lo": vs["ci95"][0], "vs_greedy_hi": vs["ci95"][1]}


def tune(path: str, deals: int, seed: int) -> Tuple[float, float, float]:
    """Levels per deal against greedy, with the interval, on ``deals`` duplicate deals of
    ``simulate``'s seed ``seed`` (deals of their own: what the epoch and the prior are chosen on)."""
    name = f"net:{path}"
    d = tractor.simulate(hands=deals, policies=(name, "greedy", name, "greedy"), duplicate=True, seed=seed).summary()
    return d["duplicate"]["advantage"], d["duplicate"]["ci95"][0], d["duplicate"]["ci95"][1]


def export(p: Params, prior: float, path: str, meta: Dict) -> None:
    nets.quantize([p[k] for k in KEYS], canonical=True, base="greedy", prior=prior,
                  meta=json.dumps(meta)).save(path)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="the run's folder (data, checkpoints, networks, curve)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--games", type=int, default=16000, help="greedy self-play hands to learn from")
    ap.add_argument("--share", type=float, default=0.25, help="the share of their decisions that is valued")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="processes making the data")
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--h1", type=int, default=256)
    ap.add_argument("--h2", type=int, default=32)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--lr", type=float, default=5e-4)
    ap.add_argument("--prior", type=float, default=0.2, help="levels added to greedy's next id while training")
    ap.add_argument("--priors", default="0.02,0.05,0.1,0.2,0.4", help="the priors tried on the tuning deals at the end")
    ap.add_argument("--tune-deals", type=int, default=1000, help="duplicate deals (simulate seed --seed + 1) per choice")
    ap.add_argument("--eval-deals", type=int, default=400, help="eval-v1 deals per rating (each in both seatings)")
    ap.add_argument("--resume", action="store_true", help="go on from OUT/checkpoint.npz")
    a = ap.parse_args(argv)
    if min(a.games, a.epochs, a.h1, a.h2, a.batch, a.workers) < 1 or not 2 <= a.eval_deals <= 2000:
        ap.error("sizes must be positive, --eval-deals in 2..2000")
    if not 0 <= a.seed < 2**63 or a.prior < 0 or not 0 < a.share <= 1:
        ap.error("--seed in 0..2**63-1, --prior at least 0, --share in (0, 1]")
    os.makedirs(a.out, exist_ok=True)
    t0 = time.perf_counter()

    missing = [k for k in range(a.workers) if not os.path.exists(os.path.join(a.out, f"data-{k}.npz"))]
    if missing:
        print(f"1. data: {a.games} greedy self-play hands, every candidate valued by greedy rollouts, "
              f"{a.workers} workers")
        if a.workers == 1:
            generate(a.games, a.seed, 0, 1, os.path.join(a.out, "data-0.npz"), a.share)
        else:
            from concurrent.futures import ProcessPoolExecutor

            with ProcessPoolExecutor(len(missing)) as ex:
                jobs = [ex.submit(generate, a.games, a.seed, k, a.workers, os.path.join(a.out, f"data-{k}.npz"),
                                  a.share) for k in missing]
                for j in jobs:
                    j.result()
        print(f"   done in {time.perf_counter() - t0:.0f} s")
    x, mask, t, g, hand = load(a.out, a.workers)
    print(f"   {len(g)} rows; {np.mean(np.nanmax(np.abs(t), axis=1) > 0):.1%} with an action that changes the score")

    ck_path = os.path.join(a.out, "checkpoint.npz")
    rng = np.random.default_rng([a.seed, 7])
    # rows in the order of their deals (whatever the workers), a tenth of the deals held out whole
    by_hand = np.argsort(hand, kind="stable")
    held_out = hand % 10 == 9
    train_rows, held = by_hand[~held_out[by_hand]], np.flatnonzero(held_out)
    if a.resume and os.path.exists(ck_path):
        ck = np.load(ck_path, allow_pickle=False)
        p = {k: ck[k] for k in KEYS}
        m = {k: ck["m_" + k] for k in KEYS}
        v = {k: ck["v_" + k] for k in KEYS}
        step, start = int(ck["t"]), int(ck["epoch"])
        rng.bit_generator.state = json.loads(str(ck["rng"]))
        curve = json.loads(str(ck["curve"]))
        print(f"2. resumed after epoch {start} of {a.epochs}")
    else:
        p = init(rng, a.h1, a.h2)
        p["W3"] *= 0.1  # start near "no gain anywhere": greedy's own play
        m = {k: np.zeros_like(w) for k, w in p.items()}
        v = {k: np.zeros_like(w) for k, w in p.items()}
        step, start, curve = 0, 0, []
        print(f"2. training {a.h1}/{a.h2} ClippedReLU layers, {a.epochs} epochs")
    for epoch in range(start, a.epochs):
        order = rng.permutation(len(train_rows))
        losses = []
        for i in range(0, len(order), a.batch):
            idx = train_rows[np.sort(order[i : i + a.batch])]  # rows in deal order: the same sums for any workers
            loss, grad = gradients(p, x[idx], t[idx])
            losses.append(loss)
            step += 1
            adam_step(p, grad, m, v, step, a.lr)
            np.clip(p["W1"], -W1_MAX, W1_MAX, out=p["W1"])
            np.clip(p["W2"], -W_MAX, W_MAX, out=p["W2"])
            np.clip(p["W3"], -W_MAX, W_MAX, out=p["W3"])
        meta = {"name": f"greedy-q epoch {epoch + 1}", "recipe": "examples/train_greedy_q.py", "seed": a.seed,
                "games": a.games, "epoch": epoch + 1, "h1": a.h1, "h2": a.h2, "prior": a.prior}
        net_path = os.path.join(a.out, f"epoch-{epoch + 1}.tnet")
        export(p, a.prior, net_path, meta)
        adv, lo, hi = tune(net_path, a.tune_deals, a.seed + 1)
        point = {"epoch": epoch + 1, "hands_trained": (epoch + 1) * a.games, "loss": float(np.mean(losses)),
                 **agreement(p, x[held], mask[held], t[held], g[held], a.prior), "tune": adv, "tune_lo": lo,
                 "tune_hi": hi, **rate(net_path, a.eval_deals)}
        curve.append(point)
        print(f"  epoch {epoch + 1}/{a.epochs}: loss {point['loss']:.4f}, held out: greedy's id {point['greedy_agreement']:.1%}, "
              f"gain {point['held_out_gain']:+.4f}; tuning deals {adv:+.3f} [{lo:+.3f}, {hi:+.3f}]; rating {point['rating']:.0f} "
              f"[{point['rating_lo']:.0f}, {point['rating_hi']:.0f}], against greedy {point['vs_greedy']:+.3f} "
              f"[{point['vs_greedy_lo']:+.3f}, {point['vs_greedy_hi']:+.3f}] ({time.perf_counter() - t0:.0f} s)")
        np.savez(ck_path, **p, **{"m_" + k: m[k] for k in KEYS}, **{"v_" + k: v[k] for k in KEYS}, t=step,
                 epoch=epoch + 1, rng=json.dumps(rng.bit_generator.state), curve=json.dumps(curve))
        with open(os.path.join(a.out, f"epoch-{epoch + 1}.npz"), "wb") as f:
            np.savez(f, **p)

    # 3. the epoch, then the prior, that gain most on the tuning deals (eval-v1 only reports)
    best = max(curve, key=lambda c: c["tune"])
    ep = np.load(os.path.join(a.out, f"epoch-{best['epoch']}.npz"))
    p = {k: ep[k] for k in KEYS}
    tried = []
    for prior in sorted({float(v) for v in a.priors.split(",")} | {a.prior}):
        path = os.path.join(a.out, f"prior-{prior:g}.tnet")
        meta = {"name": "greedy-q", "recipe": "examples/train_greedy_q.py", "seed": a.seed, "games": a.games,
                "share": a.share, "epoch": best["epoch"], "h1": a.h1, "h2": a.h2, "prior": prior,
                "about": f"greedy corrected by a network ({a.h1}/{a.h2} units) that values each action by greedy "
                         f"rollouts, trained by examples/train_greedy_q.py: seed {a.seed}, {a.games} greedy "
                         f"self-play hands, epoch {best['epoch']}, prior {prior:g}"}
        export(p, prior, path, meta)
        tried.append((tune(path, a.tune_deals, a.seed + 1), prior, path))
        print(f"  prior {prior:g}: tuning deals {tried[-1][0][0]:+.3f} [{tried[-1][0][1]:+.3f}, {tried[-1][0][2]:+.3f}]")
    (score, prior, path) = max(tried)
    with open(path, "rb") as f:
        agent = f.read()
    with open(os.path.join(a.out, "agent.tnet"), "wb") as f:
        f.write(agent)
    with open(os.path.join(a.out, "curve.json"), "w", encoding="utf-8") as f:
        json.dump({"curve": curve, "priors": [(pr, s[0], s[1], s[2]) for s, pr, _ in tried],
                   "chosen": {"epoch": best["epoch"], "prior": prior}}, f, indent=1)
    plot(curve, os.path.join(a.out, "curve.png"))
    print(f"4. agent.tnet: epoch {best['epoch']}, prior {prior:g}: {score[0]:+.3f} levels per deal against greedy "
          f"on the tuning deals; total {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
