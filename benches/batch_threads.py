"""The batch calls of the rules API (``classify_batch``, ``is_legal_follow_batch``) run in
parallel in the core (rayon, the GIL released). This times them on 200,000 rows with one
worker thread and with all of them: ``RAYON_NUM_THREADS=1 python benches/batch_threads.py``
then ``python benches/batch_threads.py``; medians of 5 calls. benches/HISTORY.md §11 has results."""

from __future__ import annotations

import os
import statistics
import time

import numpy as np

import tractor

N = 200_000


def rows():
    rng = np.random.default_rng(1)
    hands = np.zeros((N, 54), np.uint8)
    for k in rng.choice(54, (12, N)):
        hands[np.arange(N), k] += 1
    hands = np.minimum(hands, 4)
    hands[:, 13] = np.maximum(hands[:, 13], 2)  # every hand holds a pair of 2h
    leads = np.zeros((N, 54), np.uint8)
    leads[:, 0] = 2  # a pair of 2s: trump at level 10, hearts
    plays = np.zeros((N, 54), np.uint8)
    plays[:, 13] = 2
    return hands, leads, plays


def median(f) -> float:
    ts = []
    for _ in range(5):
        t = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t)
    return statistics.median(ts)


if __name__ == "__main__":
    ctx = tractor.Context(10, "h")
    hands, leads, plays = rows()
    assert ctx.is_legal_follow_batch(hands, leads, plays).all()
    c = median(lambda: ctx.classify_batch(hands))
    f = median(lambda: ctx.is_legal_follow_batch(hands, leads, plays))
    print(f"threads={os.environ.get('RAYON_NUM_THREADS', 'all')} rows={N}: classify_batch {c * 1e3:.1f} ms "
          f"({N / c / 1e6:.2f} M rows/s), is_legal_follow_batch {f * 1e3:.1f} ms ({N / f / 1e6:.2f} M rows/s)")
