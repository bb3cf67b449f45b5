"""A deal the engine fails (a panic reported as an internal error, or a search that found no
world) stops a local run as a failed Ray task stops a Ray run: every finished deal is kept,
the failed one is named (``meta["failure"]``, a RuntimeWarning, the CLI's exit status 1), and
a records file holds the hands before it. A bad argument or a callable's error still raises.
The fault is injected where the core is called, so that the test does not depend on a deal
that fails (issue 41's, seed 4242 hand 512 with pimc-16, plays through since the ladder's
caps: tested in the core and below)."""

from __future__ import annotations

import numpy as np
import pytest

import tractor
from tractor import _core
from tractor.errors import InvalidArgument, NoConsistentWorld, TractorError
from tractor.sim import local

FAIL_AT = 13


def _faulty(kind: str, exc: type = TractorError):
    """The core's simulate call, failing whenever the deal FAIL_AT is in the chunk."""
    real = getattr(_core, kind)

    def call(seed, start, n, *rest):
        if start <= FAIL_AT < start + n:
            raise exc("internal error (please report): a search over a recorded game: NoWorld(...)")
        return real(seed, start, n, *rest)

    return call


@pytest.mark.parametrize("exc", [TractorError, NoConsistentWorld])
def test_a_failed_hand_keeps_the_hands_before_it_and_is_named(monkeypatch, tmp_path, exc):
    whole = tractor.simulate(hands=40, seed=5, chunk=8)
    monkeypatch.setattr(local._core, "simulate_hands", _faulty("simulate_hands", exc))
    path = str(tmp_path / "r.trec")
    with pytest.warns(RuntimeWarning, match=f"hand {FAIL_AT} failed"):
        res = tractor.simulate(hands=40, seed=5, chunk=8, records=path)
    assert res.interrupted and len(res) == FAIL_AT
    assert np.array_equal(res.score, whole.score[:FAIL_AT])
    assert f"hand {FAIL_AT} failed" in res.meta["failure"] and "NoWorld" in res.meta["failure"]
    assert res.meta["missing"] == [(FAIL_AT, 40)]
    assert res.meta["records_written"] == FAIL_AT and "up to the first" in res.meta["records_note"]
    assert sum(1 for _ in tractor.read_records(path, partial=True)) == FAIL_AT


def test_a_failed_hand_in_duplicate_and_streaming_runs(monkeypatch):
    whole = tractor.simulate(hands=30, seed=6, chunk=7, duplicate=True)
    monkeypatch.setattr(local._core, "simulate_hands", _faulty("simulate_hands"))
    with pytest.warns(RuntimeWarning, match=f"hand {FAIL_AT} failed"):
        res = tractor.simulate(hands=30, seed=6, chunk=7, duplicate=True)
    assert len(res) == FAIL_AT and len(res.duplicate) == FAIL_AT
    assert np.array_equal(res.duplicate.score, whole.duplicate.score[:FAIL_AT])
    with pytest.warns(RuntimeWarning, match=f"hand {FAIL_AT} failed"):
        streamed = tractor.simulate(hands=30, seed=6, chunk=7, keep_arrays=False)
    assert streamed.tally.hands == FAIL_AT


def test_a_failed_match_keeps_the_matches_before_it(monkeypatch):
    whole = tractor.simulate(matches=20, seed=3, chunk=6)
    monkeypatch.setattr(local._core, "simulate_matches", _faulty("simulate_matches"))
    with pytest.warns(RuntimeWarning, match=f"match {FAIL_AT} failed"):
        res = tractor.simulate(matches=20, seed=3, chunk=6)
    assert res.interrupted and len(res) == FAIL_AT
    assert np.array_equal(res.arrays["winner"], whole.arrays["winner"][:FAIL_AT])
    assert res.meta["missing"] == [(FAIL_AT, 20)]


def test_an_argument_error_still_raises(monkeypatch):
    monkeypatch.setattr(local._core, "simulate_hands", _faulty("simulate_hands", InvalidArgument))
    with pytest.raises(InvalidArgument):
        tractor.simulate(hands=20, seed=5, chunk=8)


def test_the_cli_names_the_failed_hand_and_exits_1(monkeypatch, capsys):
    from tractor.cli import main

    monkeypatch.setattr(local._core, "simulate_hands", _faulty("simulate_hands"))
    assert main(["simulate", "--hands", "30", "--seed", "5", "--chunk", "8", "--quiet"]) == 1
    err = capsys.readouterr().err
    assert f"hand {FAIL_AT} failed" in err and "--backend local" in err


def test_issue_41s_deal_plays_through():
    p = tractor.agents.SEARCH_PRESETS["pimc-16"]
    res = tractor.simulate(hands=1, seed=4242, start=512, policies=(p, "greedy", p, "greedy"))
    assert len(res) == 1 and not res.interrupted and "failure" not in res.meta


def test_a_ray_task_with_a_failed_deal_fails_as_a_task():
    from tractor.ray_backend import _whole

    ok = tractor.simulate(hands=3, seed=1)
    assert _whole(ok) is ok
    ok.meta["failure"] = "hand 2 failed (TractorError: internal error)"
    with pytest.raises(TractorError, match="hand 2 failed"):
        _whole(ok)
