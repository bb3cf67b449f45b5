"""One round of the batch pool's A/B (issue 39 item 2): `VecEnv.step` alone (1,024 self-play
environments, uniform legal ids, 400 timed steps after 100) and `simulate` with a Python callable
team against greedy (4,000 hands, ``mask.argmax``), each on 1 and 2 threads; prints one JSON line
with the rates and a digest of the last observations and results (equal before and after: the
same bytes). Run against another build alternately, e.g. with its package first on PYTHONPATH:
``farm-bench -n 15 --vs "sh -c 'PYTHONPATH=/tmp/before exec python benches/pool_speed.py >>B 2>&1'"
-- sh -c 'exec python benches/pool_speed.py >>A 2>&1'``, then the medians of each column."""

from __future__ import annotations

import hashlib
import json
import time

import numpy as np

import tractor


def draw(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return (rng.random(mask.shape) * mask).argmax(axis=1)


def first(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    return mask.argmax(axis=1)


def main() -> None:
    out = {}
    h = hashlib.sha256()
    for threads in (1, 2):
        env = tractor.VecEnv(1024, seed=2, threads=threads)
        rng = np.random.default_rng(0)
        obs, mask, _, _, _ = env.reset()
        acts = draw(mask, rng)
        for _ in range(100):
            obs, mask, _, _, _ = env.step(acts)
            acts = draw(mask, rng)
        spent = 0.0
        for _ in range(400):
            t = time.perf_counter()
            obs, mask, _, _, _ = env.step(acts)
            spent += time.perf_counter() - t
            acts = draw(mask, rng)
        h.update(obs.tobytes())
        out[f"vecenv_t{threads}"] = 1024 * 400 / spent
    for threads in (1, 2):
        t = time.perf_counter()
        r = tractor.simulate(hands=4000, policies=(first, "greedy") * 2, seed=4, threads=threads)
        out[f"table_t{threads}"] = 4000 / (time.perf_counter() - t)
        for k in sorted(r.arrays):
            h.update(np.ascontiguousarray(r.arrays[k]).tobytes())
    out["digest"] = h.hexdigest()[:16]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
