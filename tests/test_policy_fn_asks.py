"""A callable at the table asks for more than (obs, mask): its seats (keyword ``seats``), a
teacher's ids (keyword ``teacher``, with ``AtTable(fn, teacher=...)``) and observations in renamed
suits (``AtTable(fn, canonical=True)``); callables that take (obs, mask) are asked as before."""

from __future__ import annotations

import numpy as np
import pytest

import tractor
from tractor.errors import InvalidArgument, InvalidPolicy
from tractor.policy_fn import AtTable

TEACHER = "bc-greedy-v1"  # a network: it decides without drawing from its stream


def first(obs, mask):
    return mask.argmax(axis=1)


def test_seats_are_given_to_a_callable_that_declares_them():
    seen = []

    def fn(obs, mask, seats):
        seen.append(seats.copy())
        assert seats.dtype == np.int64 and seats.shape == (len(obs),)
        return mask.argmax(axis=1)

    a = tractor.simulate(hands=20, policies=(fn, "greedy", fn, "greedy"), seed=3)
    b = tractor.simulate(hands=20, policies=(first, "greedy", first, "greedy"), seed=3)
    assert all(np.array_equal(a.arrays[k], b.arrays[k]) for k in a.arrays), "the keyword changes no decision"
    s = np.concatenate(seen)
    assert set(s.tolist()) == {0, 2}
    # at a VecEnv too: its opponents' seats
    got = []
    env = tractor.VecEnv(4, seed=1, opponents=(lambda o, m, seats: got.append(seats) or m.argmax(1), "greedy", "greedy"))
    _, mask, _, _, _ = env.reset()
    for _ in range(50):
        _, mask, _, _, _ = env.step(mask.argmax(1))
    assert set(np.concatenate(got).tolist()) == {1}


def test_following_the_teacher_plays_the_teacher():
    """A callable that takes its teacher's every id plays as the teacher at that seat: the
    results of simulate with the teacher itself there (the teacher decides without drawing)."""
    calls = []

    def follow(obs, mask, *, teacher):
        calls.append(len(obs))
        assert (teacher >= 0).all() and mask[np.arange(len(mask)), teacher].all(), "the teacher's ids are allowed"
        return teacher

    fn = AtTable(follow, teacher=TEACHER)
    a = tractor.simulate(hands=30, policies=(fn, "greedy", fn, "greedy"), seed=8)
    b = tractor.simulate(hands=30, policies=(TEACHER, "greedy", TEACHER, "greedy"), seed=8)
    for k in a.arrays:
        assert np.array_equal(a.arrays[k], b.arrays[k]), k
    assert sum(calls) > 500


def test_leaving_the_teacher_gives_minus_one_until_the_decision_is_taken():
    rng = np.random.default_rng(2)
    stats = {"left": 0, "after": 0}

    def wander(obs, mask, teacher):
        stats["after"] += int((teacher == -1).sum())
        pick = (rng.random(mask.shape) * mask).argmax(axis=1)
        stats["left"] += int((pick != teacher).sum())
        return pick

    tractor.simulate(hands=10, policies=(AtTable(wander, teacher="greedy"), "random") * 2, seed=1)
    assert stats["left"] > 100 and stats["after"] > 10, stats


def test_canonical_observations_rename_the_suits():
    """Renamed suits permute each observation's entries: the same values per row, other
    places in some rows; masks stay real ids, so the same choices make the same hands."""
    plain, canon = [], []

    def keep(store):
        def fn(obs, mask):
            store.append(obs.copy())
            return mask.argmax(axis=1)
        return fn

    a = tractor.simulate(hands=12, policies=(keep(plain), "greedy") * 2, seed=5)
    b = tractor.simulate(hands=12, policies=(AtTable(keep(canon), canonical=True), "greedy") * 2, seed=5)
    assert all(np.array_equal(a.arrays[k], b.arrays[k]) for k in a.arrays)
    p, c = np.concatenate(plain), np.concatenate(canon)
    assert p.shape == c.shape
    assert np.array_equal(np.sort(p, axis=1), np.sort(c, axis=1))
    assert (p != c).any(axis=1).mean() > 0.3


def test_arena_plays_an_asking_callable():
    fn = AtTable(lambda obs, mask, teacher: teacher, teacher=TEACHER)
    r = tractor.arena.play({"follower": fn, "greedy": "greedy"}, deals=20, cost=False, bootstrap=0)
    t = tractor.arena.play([TEACHER, "greedy"], deals=20, cost=False, bootstrap=0)
    assert np.array_equal(r.pairings[0].a_first, t.pairings[0].a_first)
    assert r.policies[0] == "callable:follower"


def test_bad_asks_are_named():
    with pytest.raises(InvalidArgument, match="names no teacher"):
        tractor.simulate(hands=2, policies=(lambda o, m, teacher: m.argmax(1), "greedy") * 2)
    with pytest.raises(InvalidArgument, match="no keyword parameter teacher"):
        AtTable(first, teacher="greedy")
    with pytest.raises(InvalidPolicy):
        AtTable(lambda o, m, teacher: teacher, teacher="no-such-policy")
    with pytest.raises(InvalidArgument, match="canonical"):
        AtTable(first, canonical="yes")
    with pytest.raises(InvalidArgument, match="fn must be a callable"):
        AtTable(3)
    with pytest.raises(InvalidArgument, match=r"opponents\[0\].*AtTable"):
        tractor.VecEnv(2, seed=1, opponents=(AtTable(first, canonical=True), "greedy", "greedy"))
    # a teacher keyword with a default and no teacher: asked without it
    r = tractor.simulate(hands=3, policies=(lambda o, m, teacher=None: m.argmax(1), "greedy") * 2, seed=2)
    assert len(r.arrays["index"]) == 3
