"""Bulk simulation in Rust through ``tractor.simulate``: random and greedy hands per second on
one thread, and the 1 → 2 thread scaling. Results must not depend on the thread count."""

from __future__ import annotations

import os

import numpy as np
import pytest

import tractor

HANDS = 5_000
_medians = {}
_reference = {}


def _ref(policy: str):
    if policy not in _reference:
        _reference[policy] = tractor.simulate(hands=HANDS, policies=(policy,) * 4, seed=1, threads=1)
    return _reference[policy]


@pytest.mark.parametrize("policy", ["random", "greedy"])
@pytest.mark.parametrize("threads", [1, 2])
def test_simulate(benchmark, policy, threads):
    benchmark.group = f"simulate {HANDS} hands, {policy}"
    if threads > (os.cpu_count() or 1):
        pytest.skip(f"{threads} threads on {os.cpu_count()} cores")
    ref = _ref(policy)
    res = benchmark.pedantic(
        lambda: tractor.simulate(hands=HANDS, policies=(policy,) * 4, seed=1, threads=threads),
        rounds=5,
        iterations=1,
        warmup_rounds=1,
    )
    assert len(res) == HANDS
    assert np.array_equal(res["score"], ref["score"]) and np.array_equal(res["decisions"], ref["decisions"])
    med = benchmark.stats.stats.median
    _medians[(policy, threads)] = med
    played = int((~res["stopped"]).sum())
    benchmark.extra_info.update(
        hands_per_s=HANDS / med,
        cards_per_s=216 * played / med,
        decisions_per_s=int(res["decisions"].sum()) / med,
    )
    if threads == 2 and (policy, 1) in _medians:
        benchmark.extra_info["speedup_vs_1_thread"] = _medians[(policy, 1)] / med
