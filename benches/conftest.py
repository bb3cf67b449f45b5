"""Shared fixtures of the benchmarks: follow positions taken from real, seeded hands."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Callable, List, Optional

import pytest

import tractor
from tractor.cards import to_counts


@dataclass(frozen=True)
class FollowPos:
    name: str
    ctx: tractor.Context
    hand: bytes
    lead: bytes
    n: int
    tier: str
    count: int


def _lead_and_hand(g: tractor.Game):
    trick = g.current_trick
    if g.phase != "play" or not trick:
        return None
    seat = g.current_player
    lead = to_counts(trick[0][1])
    hand = to_counts(g.hand(seat))
    return lead, hand


@functools.lru_cache(maxsize=None)
def find_position(name: str) -> FollowPos:
    """The first follow decision of the seeded random hands (seeds 0, 1, …) that fits ``name``:
    - ``n1``: a single led, the follower holds more of the class;
    - ``n2``: a pair led, the follower holds more than 2 of the class;
    - ``ladder``: N ≥ 4 led, more than N held, no T1 answer (the ladder T2–T4 decides);
    - ``short``: N ≥ 4 led, at most N held (R5.2: all of the class plus any others)."""
    want: Callable[[int, str], bool] = {
        "n1": lambda n, tier: n == 1 and tier != "R5.2",
        "n2": lambda n, tier: n == 2 and tier != "R5.2",
        "ladder": lambda n, tier: n >= 4 and tier in ("T2", "T3", "T4"),
        "short": lambda n, tier: n >= 4 and tier == "R5.2",
    }[name]
    for seed in range(500):
        g = tractor.Game(seed=seed)
        step = 0
        while g.phase != "over":
            lh = _lead_and_hand(g)
            if lh is not None:
                lead, hand = lh
                ctx = g.context
                n = sum(lead)
                tier = ctx.follow_requirement(hand, lead)["tier"]
                if want(n, tier):
                    count = ctx.count_legal_follows(hand, lead)
                    return FollowPos(name, ctx, hand, lead, n, tier, count)
            g.step_random(seed * 1000 + step)
            step += 1
    raise RuntimeError(f"no position of kind {name} in 500 hands")


def illegal_play(p: FollowPos) -> Optional[bytes]:
    """A play of N cards from the hand that the rules reject (a near miss first)."""
    import random

    r = random.Random(1)
    legal = list(to_counts(p.ctx.random_follow(p.hand, p.lead, 1)))
    hand = list(p.hand)
    for _ in range(500):
        x = list(legal)
        out = r.choice([k for k in range(54) if x[k] > 0])
        cand = [k for k in range(54) if hand[k] > x[k] and k != out]
        if not cand:
            return None
        x[out] -= 1
        x[r.choice(cand)] += 1
        if not p.ctx.is_legal_follow(p.hand, p.lead, bytes(x)):
            return bytes(x)
    return None


@pytest.fixture(params=["n1", "n2", "ladder", "short"])
def follow_pos(request) -> FollowPos:
    return find_position(request.param)


def legal_list(p: FollowPos, limit: int = 200_000) -> List[bytes]:
    return [to_counts(x) for x in p.ctx.legal_follows(p.hand, p.lead, limit=limit)]
