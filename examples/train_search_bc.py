"""Trains a network that corrects ``greedy`` by imitating a search where it leads: ISMCTS (or
any search policy) labels the leads of greedy self-play hands, greedy labels every other
decision, and the network, exported with a greedy prior, plays greedy's action unless it is
confident the search would lead otherwise. Numpy alone, on CPUs.

1. Data (``OUT/data-K.npz``, one file per worker): ``--games`` greedy self-play hands. At each
   lead with a choice, the search (``--teacher``, its stream derived from the hand's seed and
   the decision) chooses a play; its action ids are the labels, each seen with the cards chosen
   before it. Greedy's own decisions at every other choice of ``--greedy-games`` further hands
   (``examples/train_bc.py``'s generator) teach the network to agree with greedy there. The
   game goes on with greedy's action, so the positions are those greedy's play reaches.
2. The network (``tractor.nets``: two ClippedReLU layers, ``--h1``, ``--h2``), suits renamed
   trump-first, a masked softmax, cross-entropy, minibatch Adam; a tenth of the search's hands,
   whole, is held out.
3. After every epoch: a checkpoint (``--resume``), the quantized network with the greedy prior
   ``--prior`` (logit units: greedy's next id gets this much added), its agreement with the
   search on the held-out leads, its margin over greedy on tuning deals of their own
   (``simulate`` seed ``--seed`` + 1), and its rating on ``--eval-deals`` deals of ``eval-v1``
   (reported, never used to choose). At the end the priors ``--priors`` are tried on the tuning
   deals with the best epoch, and ``OUT/agent.tnet`` is the best.

Run: ``python examples/train_search_bc.py --out runs/s``; ``--help`` for options. Deterministic
per ``--seed`` on one machine (numpy's matrix products may round differently elsewhere),
whatever ``--workers``; a resumed run equals an unbroken one.
"""

from __future__ import annotations

import argparse
import json
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
from train_bc import adam_step, generate as greedy_rows, greedy_ids, to_canonical  # noqa: E402
from train_net import KEYS, W1_MAX, W_MAX, forward, gradients, init, plot  # noqa: E402

Params = Dict[str, np.ndarray]
PHASE = next(o for b, o, _, _ in A.OBS_LAYOUT if b == "phase")  # one-hot: declare, lead, follow, over


# -- 1. data ---------------------------------------------------------------------------------
def search_rows(games: int, seed: int, worker: int, workers: int, teacher: str, path: str) -> int:
    """The search's leads in hands ``worker``, ``worker + workers``, ... of ``games``: rows
    (observation, mask, id, hand) saved at ``path``."""
    hand_seeds = np.random.default_rng([seed, 1]).integers(0, 2**63, size=games, dtype=np.uint64)
    kind, _, params = teacher.partition(":")
    settings = dict(kv.split("=", 1) for kv in params.split(",") if kv)
    xs, ms, ys, hs = [], [], [], []
    obs = np.empty(A.OBS_DIM, np.float32)
    for h in range(worker, games, workers):
        hs_ = int(hand_seeds[h])
        g = tractor.Game.deal(hs_, every_receiver=True)
        decision = 0
        while g.phase != "over":
            seat = g.current_player
            mask = g.action_mask()
            if g.phase == "declare" and mask.sum() == 1:
                g.step(A.PASS)
                continue
            g.observation_tensor(seat, out=obs)
            ds = (hs_ ^ (decision * 0x9E3779B97F4A7C15)) & (2**63 - 1)
            greedy = greedy_ids(g, seat, ds, obs)
            if g.phase == "play" and not g.current_trick and len(g.legal_actions()) > 1:
                if kind == "ismcts":
                    r = tractor.search.ismcts(g, iterations=int(settings.get("iterations", 1000)),
                                              rollout=settings.get("rollout", "greedy"), seed=ds, threads=1)
                else:
                    r = tractor.search.pimc(g, worlds=int(settings.get("worlds", 16)),
                                            rollouts=int(settings.get("rollouts", 1)),
                                            policy=settings.get("rollout", "greedy"), seed=ds, threads=1)
                trial = g.clone()
                for i in A.encode(r.action, lead=True):
                    m = trial.action_mask()
                    if m.sum() > 1:
                        xs.append(trial.observation_tensor(seat).astype(np.float16))
                        ms.append(m)
                        ys.append(i)
                        hs.append(h)
                    trial.step(i)
            for i in greedy:
                g.step(i)
            decision += 1
    np.savez(path, x=np.array(xs, np.float16).reshape(-1, A.OBS_DIM),
             mask=np.array(ms, bool).reshape(-1, A.NUM_ACTIONS), y=np.array(ys, np.int64), hand=np.array(hs, np.int64))
    return len(ys)


def load(out: str, workers: int, greedy_games: int, seed: int):
    parts = [np.load(os.path.join(out, f"data-{k}.npz")) for k in range(workers)]
    x, mask, y, hand = (np.concatenate([p[n] for p in parts]) for n in ("x", "mask", "y", "hand"))
    order = np.argsort(hand, kind="stable")  # deal order, whatever the workers
    x, mask, y, hand = x[order], mask[order], y[order], hand[order]
    to_canonical(x, mask, y)
    gpath = os.path.join(out, "greedy.npz")
    if os.path.exists(gpath):
        d = np.load(gpath)
        gx, gm, gy = d["x"], d["mask"], d["y"]
    else:
        gx, gm, gy = greedy_rows(greedy_games, seed + 2)
        keep = gx[:, PHASE + 1] == 0  # greedy teaches every decision but the leads
        gx, gm, gy = gx[keep], gm[keep], gy[keep]
        to_canonical(gx, gm, gy)
        np.savez(gpath, x=gx, mask=gm, y=gy)
    return x, mask, y, hand, gx, gm, gy


# -- 2. training and choosing ------------------------------------------------------------------
def agreement(p: Params, x, mask, y) -> float:
    out, _ = forward(p, x.astype(np.float32))
    return float((np.where(mask, out, -np.inf).argmax(axis=1) == y).mean()) if len(y) else float("nan")


def tune(path: str, deals: int, seed: int) -> Tuple[float, float, float]:
    """Levels per deal against greedy, with the interval, on ``deals`` duplicate deals of
    ``simulate``'s seed ``seed``."""
    name = f"net:{path}"
    d = tractor.simulate(hands=deals, policies=(name, "greedy", name, "greedy"), duplicate=True, seed=seed).summary()
    return d["duplicate"]["advantage"], d["duplicate"]["ci95"][0], d["duplicate"]["ci95"][1]


def rate(path: str, deals: int) -> Dict[str, float]:
    r = tractor.arena.play({"net": f"net:{path}", "random": "random", "greedy": "greedy"}, deals=deals, cost=False,
                           bootstrap=100)
    ratings = r.ratings()
    vs = next(p.summary() for p in r.pairings if (p.a, p.b) == ("net", "greedy"))
    return {"rating": ratings["net"][0], "rating_lo": ratings["net"][1], "rating_hi": ratings["net"][2],
            "vs_greedy": vs["levels_per_deal"], "vs_greedy_lo": vs["ci95"][0], "vs_greedy_hi": vs["ci95"][1]}


def export(p: Params, prior: float, path: str, meta: Dict) -> None:
    nets.quantize([p[k] for k in KEYS], canonical=True, base="greedy", prior=prior, meta=json.dumps(meta)).save(path)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="the run's folder (data, checkpoints, networks, curve)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--games", type=int, default=4000, help="greedy self-play hands whose leads the search labels")
    ap.add_argument("--teacher", default="ismcts:iterations=1000,rollout=greedy",
                    help="ismcts:iterations=I,rollout=R or pimc:worlds=W,rollouts=N,rollout=R")
    ap.add_argument("--greedy-games", type=int, default=3000, help="hands whose other decisions greedy labels")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="processes making the data")
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--h1", type=int, default=128)
    ap.add_argument("--h2", type=int, default=32)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--prior", type=float, default=2.0, help="logits added to greedy's next id while training")
    ap.add_argument("--priors", default="0.5,1,1.5,2,3,5", help="the priors tried on the tuning deals at the end")
    ap.add_argument("--tune-deals", type=int, default=1000, help="duplicate deals (simulate seed --seed + 1)")
    ap.add_argument("--eval-deals", type=int, default=400, help="eval-v1 deals per rating (each in both seatings)")
    ap.add_argument("--resume", action="store_true", help="go on from OUT/checkpoint.npz")
    a = ap.parse_args(argv)
    if min(a.games, a.greedy_games, a.epochs, a.h1, a.h2, a.batch, a.workers) < 1 or not 2 <= a.eval_deals <= 2000:
        ap.error("sizes must be positive, --eval-deals in 2..2000")
    if not 0 <= a.seed < 2**63 or a.prior < 0 or a.teacher.partition(":")[0] not in ("ismcts", "pimc"):
        ap.error("--seed in 0..2**63-1, --prior at least 0, --teacher ismcts:... or pimc:...")
    os.makedirs(a.out, exist_ok=True)
    t0 = time.perf_counter()

    missing = [k for k in range(a.workers) if not os.path.exists(os.path.join(a.out, f"data-{k}.npz"))]
    if missing:
        print(f"1. data: {a.teacher} at the leads of {a.games} greedy self-play hands, {a.workers} workers")
        if a.workers == 1:
            search_rows(a.games, a.seed, 0, 1, a.teacher, os.path.join(a.out, "data-0.npz"))
        else:
            from concurrent.futures import ProcessPoolExecutor

            with ProcessPoolExecutor(len(missing)) as ex:
                jobs = [ex.submit(search_rows, a.games, a.seed, k, a.workers, a.teacher,
                                  os.path.join(a.out, f"data-{k}.npz")) for k in missing]
                for j in jobs:
                    j.result()
        print(f"   done in {time.perf_counter() - t0:.0f} s")
    x, mask, y, hand, gx, gm, gy = load(a.out, a.workers, a.greedy_games, a.seed)
    held = hand % 10 == 9
    X, M, Y = (np.concatenate([u[~held], v]) for u, v in ((x, gx), (mask, gm), (y, gy)))
    print(f"   {len(y)} search rows ({int(held.sum())} held out) and {len(gy)} greedy rows")

    ck_path = os.path.join(a.out, "checkpoint.npz")
    rng = np.random.default_rng([a.seed, 9])
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
        m = {k: np.zeros_like(w) for k, w in p.items()}
        v = {k: np.zeros_like(w) for k, w in p.items()}
        step, start, curve = 0, 0, []
        print(f"2. training {a.h1}/{a.h2} ClippedReLU layers, {a.epochs} epochs")
    meta = {"name": "search-bc", "recipe": "examples/train_search_bc.py", "seed": a.seed, "games": a.games,
            "teacher": a.teacher, "h1": a.h1, "h2": a.h2}
    for epoch in range(start, a.epochs):
        order = rng.permutation(len(Y))
        losses: List[float] = []
        for i in range(0, len(Y), a.batch):
            idx = np.sort(order[i : i + a.batch])
            loss, grad = gradients(p, X[idx], M[idx], Y[idx])
            losses.append(loss)
            step += 1
            adam_step(p, grad, m, v, step, a.lr)
            np.clip(p["W1"], -W1_MAX, W1_MAX, out=p["W1"])
            np.clip(p["W2"], -W_MAX, W_MAX, out=p["W2"])
            np.clip(p["W3"], -W_MAX, W_MAX, out=p["W3"])
        net_path = os.path.join(a.out, f"epoch-{epoch + 1}.tnet")
        export(p, a.prior, net_path, {**meta, "epoch": epoch + 1, "prior": a.prior})
        np.savez(os.path.join(a.out, f"epoch-{epoch + 1}.npz"), **p)
        adv, lo, hi = tune(net_path, a.tune_deals, a.seed + 1)
        point = {"epoch": epoch + 1, "hands_trained": (epoch + 1) * a.games, "loss": float(np.mean(losses)),
                 "held_out_agreement": agreement(p, x[held], mask[held], y[held]), "tune": adv, "tune_lo": lo,
                 "tune_hi": hi, **rate(net_path, a.eval_deals)}
        curve.append(point)
        print(f"  epoch {epoch + 1}/{a.epochs}: loss {point['loss']:.3f}, agrees with the search on "
              f"{point['held_out_agreement']:.1%} of held-out leads; tuning deals {adv:+.3f} [{lo:+.3f}, {hi:+.3f}]; "
              f"rating {point['rating']:.0f} [{point['rating_lo']:.0f}, {point['rating_hi']:.0f}], against greedy "
              f"{point['vs_greedy']:+.3f} [{point['vs_greedy_lo']:+.3f}, {point['vs_greedy_hi']:+.3f}] "
              f"({time.perf_counter() - t0:.0f} s)")
        np.savez(ck_path, **p, **{"m_" + k: m[k] for k in KEYS}, **{"v_" + k: v[k] for k in KEYS}, t=step,
                 epoch=epoch + 1, rng=json.dumps(rng.bit_generator.state), curve=json.dumps(curve))

    # 3. the epoch, then the prior, that gain most on the tuning deals (eval-v1 only reports)
    best = max(curve, key=lambda c: (c["tune"], c["epoch"]))
    ep = np.load(os.path.join(a.out, f"epoch-{best['epoch']}.npz"))
    p = {k: ep[k] for k in KEYS}
    tried = []
    for prior in sorted({float(s) for s in a.priors.split(",")} | {a.prior}):
        path = os.path.join(a.out, f"prior-{prior:g}.tnet")
        about = (f"greedy corrected by a network ({a.h1}/{a.h2} units) that imitates {a.teacher} where it leads, "
                 f"trained by examples/train_search_bc.py: seed {a.seed}, {a.games} hands, epoch {best['epoch']}, "
                 f"prior {prior:g}")
        export(p, prior, path, {**meta, "epoch": best["epoch"], "prior": prior, "about": about})
        tried.append((tune(path, a.tune_deals, a.seed + 1), prior, path))
        print(f"  prior {prior:g}: tuning deals {tried[-1][0][0]:+.3f} [{tried[-1][0][1]:+.3f}, {tried[-1][0][2]:+.3f}]")
    score, prior, path = max(tried)
    with open(path, "rb") as f, open(os.path.join(a.out, "agent.tnet"), "wb") as g:
        g.write(f.read())
    with open(os.path.join(a.out, "curve.json"), "w", encoding="utf-8") as f:
        json.dump({"curve": curve, "priors": [(pr, s[0], s[1], s[2]) for s, pr, _ in tried],
                   "chosen": {"epoch": best["epoch"], "prior": prior}}, f, indent=1)
    plot(curve, os.path.join(a.out, "curve.png"))
    print(f"3. agent.tnet: epoch {best['epoch']}, prior {prior:g}: {score[0]:+.3f} levels per deal against greedy "
          f"on the tuning deals; total {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
