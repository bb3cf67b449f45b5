"""Searches with a time budget (issue 22): ``time_limit=`` beside ``iterations=``/``worlds=``,
the policy strings' ``time=S``, and what a result says of its own cost."""

from __future__ import annotations

import pytest

import tractor
from tractor import _core
from tractor.errors import InvalidPolicy
from tractor.search import ismcts, pimc


def _mid(seed: int = 5) -> tractor.Game:
    g = tractor.Game(seed=seed)
    i = 0
    while g.phase != "play" or len(g.hand(g.current_player)) > 30:
        g.step_policy("greedy", i)
        i += 1
    return g


def test_a_time_budget_stops_the_search():
    g = _mid()
    # far more iterations and worlds than 20 ms allow: the budget ends them
    r = ismcts(g, iterations=10_000_000, rollout="greedy", time_limit=0.02, threads=1)
    assert 1 <= r.iterations < 10_000_000 and r.action in g.legal_actions()
    assert sum(s.visits for s in r.stats) == r.iterations
    p = pimc(g, worlds=100_000, rollouts=2, time_limit=0.02, threads=1)
    assert 4 <= p.iterations < 100_000 and p.iterations % 4 == 0  # whole rounds of 4 worlds
    assert all(s.visits == 2 * p.iterations for s in p.stats)
    assert p.action in g.legal_actions()


def test_without_a_budget_the_seed_decides():
    g = _mid(6)
    a = ismcts(g, iterations=300, seed=3, threads=1)
    b = ismcts(g, iterations=300, seed=3, threads=2)
    assert a == b and a.iterations == 300 and a.seconds > 0
    c = pimc(g, worlds=6, rollouts=2, seed=3, threads=1)
    assert c == pimc(g, worlds=6, rollouts=2, seed=3, threads=2) and c.iterations == 6
    # a budget the search never reaches changes nothing
    assert pimc(g, worlds=6, rollouts=2, seed=3, threads=1, time_limit=3600) == c


def test_time_in_policy_strings():
    assert _core.policy_name("ismcts:time=0.25") == "ismcts:iterations=1000,c=0.700,rollout=random,trees=1,time=0.250"
    assert _core.policy_name("pimc:time=1") == "pimc:worlds=32,rollouts=8,rollout=random,time=1.000"
    g = _mid(7)
    assert g.policy_action("ismcts:iterations=100000,time=0.01", 1) in g.legal_actions()
    for bad in (0, -1, 3601, float("nan"), "1", True):
        with pytest.raises(InvalidPolicy):
            ismcts(g, time_limit=bad)
        with pytest.raises(InvalidPolicy):
            pimc(g, time_limit=bad)
    with pytest.raises(InvalidPolicy):
        _core.policy_name("ismcts:time=0.0001")


def _late(seed: int, cards: int) -> tractor.Game:
    g = tractor.Game(seed=seed)
    i = 0
    while g.phase != "play" or len(g.hand(g.current_player)) > cards:
        g.step_policy("greedy", i)
        i += 1
    return g


def test_ismcts_values_small_leaves_with_the_solver():
    """solve=N: leaves with at most N cards a hand are valued by the solver, not played out:
    the same for any thread count, and another search than with rollouts."""
    differ = 0
    for seed in range(6):
        g = _late(8 + seed, 3)
        r = ismcts(g, iterations=120, seed=1, threads=1, solve=3)
        assert r == ismcts(g, iterations=120, seed=1, threads=2, solve=3)
        assert r.action in g.legal_actions() and r.iterations == 120
        plain = ismcts(g, iterations=120, seed=1, threads=1)
        differ += r.stats != plain.stats
    assert differ >= 2
    assert _core.policy_name("ismcts:solve=4") == "ismcts:iterations=1000,c=0.700,rollout=random,trees=1,solve=4"
    with pytest.raises(InvalidPolicy):
        ismcts(g, solve=-1)


def test_per_play_spread_and_pimcs_values_per_world():
    """Issue 22: each play's visits, mean and spread; PIMC's value per world."""
    import numpy as np

    g = _mid(9)
    r = pimc(g, worlds=12, rollouts=1, policy="greedy", seed=4, threads=2)
    wv = r.world_values
    assert wv.shape == (12, len(r.stats)) and wv.dtype == np.int64
    for c, s in enumerate(r.stats):
        assert s.visits == 12
        assert s.mean == pytest.approx(wv[:, c].sum() / 12)
        assert s.spread == pytest.approx(float(np.std(wv[:, c])))  # one rollout a world: its returns
    r4 = pimc(g, worlds=5, rollouts=4, seed=4, threads=1)
    assert r4.world_values.shape == (5, len(r4.stats))
    assert all(s.mean == pytest.approx(r4.world_values[:, c].sum() / 20) for c, s in enumerate(r4.stats))
    i = ismcts(g, iterations=300, rollout="greedy", seed=2, threads=1)
    assert i.world_values is None
    assert all(0 <= s.spread <= 6 for s in i.stats) and any(s.spread > 0 for s in i.stats)


def test_pimc_searches_while_dealing_from_what_the_seat_knows():
    """deal=1: whether and what to show is searched (R8.1), from the seat's info set only: a
    world the seat cannot tell from the game gets the same decision; the hand plays through."""
    name = "pimc:worlds=4,rollouts=2,rollout=greedy,deal=1"
    assert _core.policy_name("pimc:deal=1") == "pimc:worlds=32,rollouts=8,rollout=random,deal=1"
    g = tractor.Game(seed=3)
    differ = checked = 0
    step = 0
    while g.phase == "declare":
        seat = g.current_player
        a = g.policy_action(name, step)
        assert a in g.legal_actions()
        for w in g.determinize_many(seat, 2, seed=step):
            assert w.policy_action(name, step) == a
            checked += 1
        differ += a != g.policy_action("greedy", step)
        g.apply(a)
        step += 1
    assert checked >= 4 and differ >= 1
    while g.current_player is not None:
        g.step_policy(name, step)
        step += 1
    assert g.phase == "over" or g.stopped
    with pytest.raises(InvalidPolicy):
        _core.policy_name("pimc:deal=2")


def _asked(g: tractor.Game) -> list:
    return [tuple(a[:2]) for a in g.record()["actions"] if a[1] != "play"]


def test_who_was_asked_is_kept_in_both_deal_modes():
    """docs/search.md's statement, pinned: with every_receiver=True every world shows the
    source's sequence of who was asked (it proves nothing); in the default mode too, where the
    worlds are conditioned on it, and every one keeps the seat's observation."""
    same_er = total_er = same_d = total_d = 0
    for seed in range(6):
        g = tractor.Game.deal(seed, every_receiver=True)
        i = 0
        while g.phase == "declare":
            g.step_policy("greedy", i)
            i += 1
        for w in g.determinize_many(g.current_player, 3, seed=seed):
            total_er += 1
            same_er += _asked(w) == _asked(g)
        d = tractor.Game(seed=seed)
        i = 0
        while d.phase == "declare":
            d.step_policy("greedy", i)
            i += 1
        seat = d.current_player
        for w in d.determinize_many(seat, 3, seed=seed):
            total_d += 1
            same_d += _asked(w) == _asked(d)
            assert w.observation(seat) == d.observation(seat)
    assert same_er == total_er == 18
    assert same_d == total_d == 18


def test_a_searcher_reuses_the_subtree_of_the_plays_made():
    """Issue 22: ISMCTS's tree kept between one seat's decisions. A fresh searcher decides as
    ismcts() does; late in a hand, where the tree tried the plays the others made, the next
    search starts from their subtree; another hand starts afresh."""
    from tractor.search import Searcher

    g = _late(5, 6)
    seat = g.current_player
    s = Searcher(iterations=1500, rollout="greedy")
    first = s.search(g, seed=1, threads=1)
    assert first.reused == 0 and first == ismcts(g, iterations=1500, rollout="greedy", seed=1, threads=1)
    reused = []
    k = 0
    while g.current_player is not None:
        if g.current_player == seat:
            r = s.search(g, seed=k, threads=1)
            assert sum(x.visits for x in r.stats) == r.iterations + r.reused
            assert r.iterations in (0, 1500)  # 0: a forced play, not searched
            reused.append(r.reused)
            g.apply(r.action)
        else:
            g.step_policy("greedy", 100 + k)
        k += 1
    assert max(reused) > 0
    other = _late(6, 6)
    if other.current_player is not None:
        assert s.search(other, seed=1, threads=1).reused == 0
    with pytest.raises(InvalidPolicy):
        Searcher(iterations=0)


def test_worlds_are_conditioned_on_who_was_asked():
    """Every world shows the source's sequence of who was asked while dealing (InfoSet.asked,
    D7), mid-deal and at the first trick, keeps the seat's observation and info set, and is a
    function of the seed. exact_turns=False ignores the sequence: its worlds keep the seat's
    observation, some ask other seats (the bias it takes), and in an every_receiver game,
    where the sequence proves nothing, they are the same worlds."""
    checked = differ = 0
    for seed in range(5):
        d = tractor.Game(seed=seed)
        i = 0
        while d.phase == "declare" and (i < 6 or seed % 2):  # mid-deal, or the first trick
            d.step_policy("greedy", i)
            i += 1
        seat = d.current_player
        info = d.info(seat)
        now = [d.current_player] if d.phase == "declare" else []
        assert [s for (_, _, s) in info.asked] == [a[0] for a in d.record()["actions"] if a[1] != "play"] + now
        ws = d.determinize_many(seat, 4, seed=seed)
        for w in ws:
            assert _asked(w) == _asked(d) and w.observation(seat) == d.observation(seat)
            assert w.info(seat).asked == info.asked
            checked += 1
        blind = d.determinize_many(seat, 4, seed=seed, exact_turns=False)
        for w in blind:
            assert w.observation(seat) == d.observation(seat)
            differ += _asked(w) != _asked(d)
        again = d.determinize_many(seat, 4, seed=seed, exact_turns=False)
        assert [w.to_json() for w in blind] == [w.to_json() for w in again]
    assert checked == 20 and differ >= 5
    e = tractor.Game.deal(3, every_receiver=True)
    for i in range(300):
        e.step_policy("greedy", i)
    seat = e.current_player
    assert [w.to_json() for w in e.determinize_many(seat, 3, seed=2)] == [
        w.to_json() for w in e.determinize_many(seat, 3, seed=2, exact_turns=False)]
    g = tractor.Game(seed=1)
    g.step_policy("greedy", 0)
    with pytest.raises(tractor.errors.InvalidArgument):
        g.determinize(g.current_player, 5, exact_turns=1)


def test_ismcts_searches_while_dealing_with_deal_1():
    """ismcts:...,deal=1 decides showings by the same flat search (its iterations spent as two
    playouts per action per world), from the seat's info set only."""
    name = "ismcts:iterations=64,rollout=greedy,deal=1"
    g = tractor.Game(seed=3)
    step = differ = 0
    while g.phase == "declare":
        seat = g.current_player
        a = g.policy_action(name, step)
        assert a in g.legal_actions()
        w = g.determinize(seat, step)
        assert w.policy_action(name, step) == a
        differ += a != g.policy_action("greedy", step)
        g.apply(a)
        step += 1
    assert differ >= 1
    assert _core.policy_name("ismcts:deal=1") == "ismcts:iterations=1000,c=0.700,rollout=random,trees=1,deal=1"
