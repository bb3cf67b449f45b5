"""How often a search picks the same play twice: at play decisions of a network's self-play, the
search run with two seeds, and the network's own play beside them (issue 40: what an imitating
network can hope to agree with).

Usage: ``python benches/teacher_agreement.py [ITERATIONS] [HANDS] [PRIOR]`` (defaults 500, 30,
play-net-v3): hands 1000.. of guigang played by PRIOR on every seat; at one play decision in ten
(drawn from a seeded stream) with more than one legal action, ``ismcts(iterations, prior=PRIOR)``
with seeds 1 and 2. Prints the share of decisions where the two searches agree, where the first
agrees with PRIOR, and the median share of the root's visits its most visited play took."""

from __future__ import annotations

import random
import sys

import numpy as np

import tractor
from tractor import search


def main() -> None:
    iterations = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    hands = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    prior = sys.argv[3] if len(sys.argv) > 3 else "play-net-v3"
    draw = random.Random(1)
    same = with_prior = n = 0
    tops = []
    for h in range(hands):
        g = tractor.Game.deal(1000 + h)
        k = 0
        while g.phase in ("declare", "play"):
            if g.phase == "play" and len(g.legal_actions()) > 1 and draw.random() < 0.1:
                a = search.ismcts(g, iterations=iterations, prior=prior, seed=1)
                b = search.ismcts(g, iterations=iterations, prior=prior, seed=2)
                same += a.action == b.action
                with_prior += a.action == g.policy_action(prior, seed=k)
                n += 1
                visits = np.array([s.visits for s in a.stats])
                tops.append(visits.max() / visits.sum())
            g.step_policy(prior, seed=k)
            k += 1
    print(f"ismcts:iterations={iterations},prior={prior} over {n} play decisions of {hands} hands: "
          f"agrees with itself {same / n:.3f}, with {prior} {with_prior / n:.3f}; "
          f"its most visited play's share of the root's visits, median {np.median(tops):.2f}")


if __name__ == "__main__":
    main()
