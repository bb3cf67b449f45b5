"""Do play features version 2 make a candidate's advantage easier to learn than version 1 (issue 40,
trial 14)? The same samples, the same network, the same batches: only the feature columns differ.

Usage: ``python benches/play_features_fit.py DIR [EPOCHS] [LR] [INIT]`` (defaults 6, 3e-4, none).

1. Self-play samples of trial 14 (``tractor train --seed 14 --hands 1500 --worlds 4 --levels drawn
   --label-rate 0.2``, ``play-net-v4`` on every seat and rolling out, the teacher
   ``ismcts:iterations=500,prior=play-net-v4``; play features version 2) for rounds 0, 1 and 2,
   written to ``DIR/samples-K.npz`` unless there already (about 13 minutes a round on 2 cores).
   Version 1's features are the first 74 columns of version 2's (the same candidates and values).
2. For version 1 and then 2: ``tractor.train``'s network (128 x 32; from ``INIT``, a play network
   reading version 1, its added features at weight 0, when given) fitted on rounds 0 and 1's play
   decisions, regressing each valued candidate's advantage over the base (``--imitate 1``'s
   teacher term too with ``INIT``), ``EPOCHS`` epochs of batches of 512 in one seeded order.
   After each epoch, on round 2 (never trained on): the share of the advantage's variance the
   network explains, and how often its top-scored valued candidate is the teacher's.

Needs torch (the ``[train]`` extra)."""

from __future__ import annotations

import os
import sys
import time
from typing import Any, Dict, Optional

import numpy as np

from tractor import _core
from tractor import train as T

SP = T.SelfPlay(seats=["play-net-v4"] * 4, base="tuned-greedy-v1", rollout="play-net-v4", label_rate=0.2, per_decision=8,
                rollouts=1, worlds=4, obs_version=2, levels="drawn", teacher="ismcts:iterations=500,prior=play-net-v4",
                play_features=2)
SEED, HANDS = 14, 1500


def load(d: str, k: int, pv: int, torch: Any) -> Dict[str, Any]:
    path = os.path.join(d, f"samples-{k}.npz")
    if not os.path.exists(path):
        t0 = time.time()
        np.savez(path, **T.samples(SEED, k * HANDS, HANDS, SP, 0))
        print(f"round {k}: samples written in {time.time() - t0:.0f} s", flush=True)
    z = np.load(path)
    s = {n: z[n] for n in z.files}
    f = s["features"]
    rows = np.flatnonzero(~((f[:, 65] > 0) | (f[:, 66] > 0)))  # play decisions (the base declares)
    adv = T.advantages(s)[rows]
    t = s["taught"][rows]
    taught_of = np.full(len(s["seat"]), -1)
    taught_of[s["decision"][rows[t]]] = np.flatnonzero(t)
    pair = taught_of[s["decision"][rows]]
    pair[t] = -1
    pf = T.play_features(pv)
    return {"obs": torch.from_numpy(s["obs"]), "dec": torch.from_numpy(s["decision"][rows].astype(np.int64)),
            "f": torch.from_numpy(f[rows][:, :pf["dim"]].astype(np.float32)) / torch.from_numpy(pf["scale"]),
            "y": torch.from_numpy(adv), "pair": torch.from_numpy(pair), "taught": t, "decision": s["decision"][rows]}


def fit(d: str, pv: int, epochs: int, lr: float, init: Optional[str]) -> None:
    import torch

    torch.manual_seed(1)
    enc = _core.obs_encoding(2)
    dim, pdim = enc["dim"], T.play_features(pv)["dim"]
    dx = torch.tensor(1.0 / np.asarray(enc["scale_u8"], np.float32))
    parts, val = [load(d, k, pv, torch) for k in (0, 1)], load(d, 2, pv, torch)
    model = T._model(torch, dim, pdim, 128, 32)
    if init:
        layers = T.read_layers(open(init, "rb").read())["layers"]
        layers["wp"] = np.concatenate([layers["wp"], np.zeros((128, pdim - layers["wp"].shape[1]))], 1)
        T._set_layers(torch, model, layers)
    opt = torch.optim.Adam(model.parameters(), lr=lr)

    def held_out() -> str:
        with torch.no_grad():
            q = torch.cat([model(val["obs"][val["dec"][i:i + 8192]].float() * dx, val["f"][i:i + 8192])
                           for i in range(0, len(val["y"]), 8192)]).numpy()
        d_ = val["decision"]
        first = np.r_[True, np.diff(d_) > 0]  # each decision's first valued row is the base's
        y = val["y"].numpy()
        explained = 1 - np.mean((q - q[np.flatnonzero(first)][np.cumsum(first) - 1] - y) ** 2) / np.var(y)
        starts = np.r_[np.flatnonzero(first), len(d_)]
        hits = [val["taught"][a + int(np.argmax(q[a:b]))] for a, b in zip(starts[:-1], starts[1:])
                if b - a > 1 and val["taught"][a:b].any()]
        return f"explained {explained:+.4f}, teacher's play on top {np.mean(hits):.3f} of {len(hits)}"

    print(f"play features {pv}: epoch 0: {held_out()}", flush=True)
    sizes = [len(p["y"]) for p in parts]
    starts = np.cumsum([0] + sizes)
    rng = np.random.default_rng(5)
    for e in range(epochs):
        order = rng.permutation(starts[-1])
        for i in range(0, len(order), 512):
            j = order[i:i + 512]
            qs, ys, qts, tw = [], [], [], []
            for w, p in enumerate(parts):
                m = torch.from_numpy(j[(j >= starts[w]) & (j < starts[w + 1])] - starts[w])
                if len(m):
                    x = p["obs"][p["dec"][m]].float() * dx
                    qs.append(model(x, p["f"][m]))
                    ys.append(p["y"][m])
                    pr = p["pair"][m]
                    qts.append(model(x, p["f"][torch.where(pr >= 0, pr, m)]))
                    tw.append((pr >= 0).float())
            q, y = torch.cat(qs), torch.cat(ys)
            loss = torch.mean((q - y) ** 2)
            if init:  # tractor train's --imitate 1 term, temperature 0.05
                z = (q - torch.cat(qts)) / 0.05
                loss = loss + torch.sum(torch.nn.functional.softplus(z) * 0.05 * torch.cat(tw)) / len(y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            model.clip_()
        print(f"play features {pv}: epoch {e + 1}: {held_out()}", flush=True)


def main() -> None:
    d = sys.argv[1]
    epochs = int(sys.argv[2]) if len(sys.argv) > 2 else 6
    lr = float(sys.argv[3]) if len(sys.argv) > 3 else 3e-4
    init = sys.argv[4] if len(sys.argv) > 4 else None
    if init and not os.path.exists(init):
        from tractor._weights import resolve

        init = (resolve(init) or init).removeprefix("net:")
    os.makedirs(d, exist_ok=True)
    for pv in (1, 2):
        fit(d, pv, epochs, lr, init)


if __name__ == "__main__":
    main()
