"""Sum play networks into one (issue 40, trial 16 of docs/training.md).

Usage: ``python benches/ensemble_nets.py OUT NET NET [NET ...]`` (a shipped name such as
``play-net-v4`` or a ``.tnet`` path). The networks must share their observation version, play
features, base weights and phases. Their first layers are placed side by side, their second
layers block-diagonally, their output weights side by side and their output biases and priors
added: the file scores every candidate with exactly the sum of the networks' scores (checked
here against ``tractor.train.forward_int_reference`` on random inputs before it is written), so
it plays the argmax of the summed scores. Then, for example, ``tractor.train.duplicate("net:OUT",
"play-net-v4", 2000, seed)``."""

from __future__ import annotations

import sys

import numpy as np

import tractor.train as t
from tractor import _weights


def _bytes(name: str) -> bytes:
    path = _weights.shipped().get(name, name)
    with open(path, "rb") as f:
        return f.read()


def main(out: str, names: list) -> None:
    datas = [_bytes(n) for n in names]
    rs = [t.read_layers(d) for d in datas]
    keys = ("base", "obs_version", "canonical", "phases", "play_features")
    if any(tuple(r[k] for k in keys) != tuple(rs[0][k] for k in keys) for r in rs):
        raise SystemExit("the networks differ in base, observation, play features or phases")
    lay = [r["layers"] for r in rs]
    w2 = np.zeros((sum(x["w2"].shape[0] for x in lay), sum(x["w2"].shape[1] for x in lay)))
    i = j = 0
    for x in lay:
        a, b = x["w2"].shape
        w2[i:i + a, j:j + b] = x["w2"]
        i, j = i + a, j + b
    layers = {k: np.concatenate([x[k].reshape(-1) if k == "w3" else x[k] for x in lay]) for k in ("wx", "wp", "b1", "b2", "w3")}
    layers.update(w2=w2, b3=np.asarray([sum(float(np.asarray(x["b3"]).reshape(-1)[0]) for x in lay)]))
    r0 = rs[0]
    data = t.export(layers, None, base=r0["base"], obs_version=r0["obs_version"], canonical=r0["canonical"],
                    margin=sum(r["margin"] for r in rs), phases=r0["phases"], play_features=r0["play_features"],
                    meta={"sum_of": names})
    (h1, dim), pdim = layers["wx"].shape, layers["wp"].shape[1]
    rng = np.random.default_rng(0)
    for _ in range(200):
        obs = rng.integers(0, 3, dim)
        feats = rng.integers(0, 2, (6, pdim))
        want = sum(t.forward_int_reference(d, obs, feats) for d in datas)
        got = t.forward_int_reference(data, obs, feats)
        if not np.array_equal(got, want):
            raise SystemExit("the summed network does not score the sum of the networks")
    with open(out, "wb") as fo:
        fo.write(data)
    print(f"{out}: {h1} x {w2.shape[0]} units, the sum of {', '.join(names)}")


if __name__ == "__main__":
    if len(sys.argv) < 4:
        raise SystemExit(__doc__)
    main(sys.argv[1], sys.argv[2:])
