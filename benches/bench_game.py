"""A whole hand driven step by step from Python: ``Game.legal_actions()`` then ``apply()``,
plays drawn with ``LegalPlays.sample``; and ``Game.clone()``.

Reported in ``extra_info``: decisions per second counting every decision, and counting only
decisions with two or more options (the ones a policy really makes).
"""

from __future__ import annotations

import random

import tractor

HANDS_PER_ROUND = 4


def play_hand(seed: int):
    """Plays hand ``seed`` to its end; returns (decisions, decisions with ≥ 2 options, cards)."""
    g = tractor.Game(seed=seed)
    r = random.Random(seed)
    decisions = multi = 0
    while True:
        acts = g.legal_actions()
        if isinstance(acts, list):
            if not acts:
                break  # over (or stopped)
            n = len(acts)
            a = acts[r.randrange(n)]
        else:
            n = acts.count()
            a = acts.sample(r.getrandbits(64))
        decisions += 1
        multi += n >= 2
        g.apply(a)
    res = g.result
    assert g.stopped or (res is not None and len(g.tricks) >= 18)
    return decisions, multi


def test_full_hand_python_loop(benchmark):
    benchmark.group = "game: full hand from Python"
    counter = iter(range(10**9))

    def run():
        tot = [0, 0]
        for _ in range(HANDS_PER_ROUND):
            d, m = play_hand(next(counter))
            tot[0] += d
            tot[1] += m
        return tot

    tot = benchmark.pedantic(run, rounds=8, iterations=1, warmup_rounds=1)
    assert tot[1] > 0 and tot[0] >= tot[1]
    med = benchmark.stats.stats.median
    # the decision mix of one round (each round plays different hands: use the mean mix)
    d_per_hand, m_per_hand = tot[0] / HANDS_PER_ROUND, tot[1] / HANDS_PER_ROUND
    benchmark.extra_info.update(
        hands_per_round=HANDS_PER_ROUND,
        hands_per_s=HANDS_PER_ROUND / med,
        decisions_per_hand=d_per_hand,
        multi_option_decisions_per_hand=m_per_hand,
        decisions_per_s=d_per_hand * HANDS_PER_ROUND / med,
        multi_option_decisions_per_s=m_per_hand * HANDS_PER_ROUND / med,
    )


def _mid_hand() -> tractor.Game:
    g = tractor.Game(seed=3)
    s = 0
    while g.phase != "play" or len(g.tricks) < 10:
        assert g.step_random(s)
        s += 1
    return g


def test_game_clone(benchmark):
    benchmark.group = "game: clone"
    g = _mid_hand()
    c = benchmark(g.clone)
    assert c == g and c is not g


def test_step_random(benchmark):
    """One random decision inside Rust (``Game.step_random``), for comparison with the loop."""
    benchmark.group = "game: one step_random"
    base = _mid_hand()
    games = [base.clone() for _ in range(2000)]
    it = iter(games)

    def step():
        return next(it).step_random(1)

    assert benchmark.pedantic(step, rounds=1000, iterations=1) is True
