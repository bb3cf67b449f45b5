"""The rules API through Python: classify, legal_leads, legality, count and sampling of follows.

Inputs are 54-byte count arrays (the cheapest input form), on positions from real hands
(``conftest.find_position``). Every benchmark asserts the answer it times.
"""

from __future__ import annotations

import numpy as np
import pytest

import tractor
from tractor.cards import to_counts

from conftest import FollowPos, find_position, illegal_play, legal_list


def test_classify(benchmark, follow_pos: FollowPos):
    benchmark.group = "classify"
    combo = benchmark(follow_pos.ctx.classify, follow_pos.lead)
    assert combo is not None and combo.size == follow_pos.n


def test_classify_string(benchmark):
    """The same through card notation (parsing included)."""
    benchmark.group = "classify"
    ctx = tractor.Context(level=10, trump="h")
    combo = benchmark(ctx.classify, "9h 9h 10h 10h Jh Jh")
    assert combo.kind == "tractor" and combo.size == 6


@pytest.mark.parametrize("which", ["follower_hand"])
def test_legal_leads(benchmark, follow_pos: FollowPos, which):
    benchmark.group = "legal_leads"
    leads = benchmark(follow_pos.ctx.legal_leads, follow_pos.hand)
    # every unit at every multiplicity is a lead: at least as many leads as cards
    assert len(leads) >= sum(follow_pos.hand)
    assert all(follow_pos.ctx.classify(x) is not None for x in leads)


def test_is_legal_follow(benchmark, follow_pos: FollowPos):
    benchmark.group = "is_legal_follow (legal play)"
    play = to_counts(follow_pos.ctx.random_follow(follow_pos.hand, follow_pos.lead, 7))
    assert benchmark(follow_pos.ctx.is_legal_follow, follow_pos.hand, follow_pos.lead, play) is True


def test_is_illegal_follow(benchmark, follow_pos: FollowPos):
    benchmark.group = "is_legal_follow (illegal play)"
    play = illegal_play(follow_pos)
    if play is None:
        pytest.skip("every N-card play of this hand is legal")
    assert benchmark(follow_pos.ctx.is_legal_follow, follow_pos.hand, follow_pos.lead, play) is False


def test_count_legal_follows(benchmark, follow_pos: FollowPos):
    benchmark.group = "count_legal_follows"
    n = benchmark(follow_pos.ctx.count_legal_follows, follow_pos.hand, follow_pos.lead)
    assert n == follow_pos.count
    if n <= 200_000:
        assert n == len(legal_list(follow_pos))


def test_random_follow(benchmark, follow_pos: FollowPos):
    benchmark.group = "random_follow"
    seeds = iter(range(10**9))
    p = follow_pos
    play = benchmark(lambda: p.ctx.random_follow(p.hand, p.lead, next(seeds)))
    assert p.ctx.is_legal_follow(p.hand, p.lead, play)


def test_is_legal_follow_batch(benchmark):
    """1,000 legality checks in one call (the ladder position, legal and illegal plays)."""
    benchmark.group = "is_legal_follow_batch (1000 rows)"
    p = find_position("ladder")
    legal = legal_list(p, limit=10**6)[:500]
    bad = illegal_play(p)
    assert bad is not None
    plays = np.array([list(x) for x in legal] + [list(bad)] * (1000 - len(legal)), dtype=np.uint8)
    ok = benchmark(p.ctx.is_legal_follow_batch, np.frombuffer(p.hand, dtype=np.uint8), np.frombuffer(p.lead, dtype=np.uint8), plays)
    assert ok.sum() == len(legal) and not ok[len(legal):].any()
    benchmark.extra_info["checks_per_call"] = 1000


def test_is_legal_follow_binding_only(benchmark, follow_pos: FollowPos):
    """The PyO3 binding without the Python layer's input conversion (``Context._c``), to
    separate the wrapper's cost from the engine's."""
    benchmark.group = "is_legal_follow (legal play), binding only"
    p = follow_pos
    play = to_counts(p.ctx.random_follow(p.hand, p.lead, 7))
    assert benchmark(p.ctx._c.is_legal_follow, p.hand, p.lead, play) is True


def test_count_legal_follows_binding_only(benchmark, follow_pos: FollowPos):
    benchmark.group = "count_legal_follows, binding only"
    p = follow_pos
    assert benchmark(p.ctx._c.count_legal_follows, p.hand, p.lead) == p.count
