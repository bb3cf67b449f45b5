"""The open-card solver (``tractor.search.solve``) against a brute-force minimax written here
over ``Game.clone``/``apply`` and ``legal_actions`` (no table, no pruning, no merging), on small
endgames of every profile; PIMC's ``solve=N``; bad input.

The Rust twin (``search::solve`` tests) compares it with the core's own plain minimax on
2,100 more endgames, with the principal line replayed and the merged leads checked."""

from __future__ import annotations

import random

import pytest

import tractor
from tractor.errors import InvalidArgument, InvalidPolicy
from tractor.search import SOLVE_PARTITION_FROM, pimc, solve

PROFILES = ["guigang", "nanning", "competition"]


def brute(g: tractor.Game) -> int:
    """The defenders' final score under minimax, by trying every legal play."""
    if g.phase == "over":
        r = g.result
        return r.raw_score
    defenders = (g.current_player - g.banker) % 2 == 1
    vals = []
    for p in g.legal_actions():
        h = g.clone()
        h.apply(p)
        vals.append(brute(h))
    return max(vals) if defenders else min(vals)


def _endgame(rnd: random.Random, profile: str, h: int) -> tractor.Game:
    """``h`` cards a hand from a few kinds (pairs and tractors common), random level, trump, banker."""
    kinds = rnd.sample(range(54), rnd.randint(3, 14))
    deck = [k for k in kinds for _ in range(4)]
    while len(deck) < 4 * h:
        kinds += rnd.sample([k for k in range(54) if k not in kinds], 1)
        deck = [k for k in kinds for _ in range(4)]
    rnd.shuffle(deck)
    hands = [[tractor.CARDS[k] for k in deck[s * h:(s + 1) * h]] for s in range(4)]
    return tractor.Game.from_deal(hands, level=rnd.randint(3, 14), trump=rnd.choice("shdc"),
                                  banker=rnd.randrange(4), profile=profile)


@pytest.mark.parametrize("profile", PROFILES)
def test_solver_against_brute_force(profile):
    rnd = random.Random(f"solve-{profile}")
    n = 0
    for i in range(220):
        g = _endgame(rnd, profile, 1 + i % 2 if i % 11 else 3)
        for _ in range(rnd.randrange(3)):  # sometimes start inside a trick
            if g.phase == "play":
                g.apply(g.legal_actions().sample(rnd.randrange(2**32)))
        if g.phase != "play":
            continue
        s = solve(g)
        assert s.exact and s.lower == s.upper == brute(g)
        listed = {tuple(v.play.cards): v for v in s.plays}
        for p in g.legal_actions():
            h = g.clone()
            h.apply(p)
            want = brute(h)
            v = listed.get(tuple(p.cards))
            if v is None:  # a lone single lead merged behind an interchangeable one
                assert not g.current_trick and len(p.cards) == 1
                assert any(len(w.play.cards) == 1 and w.score == want for w in s.plays)
            else:
                assert v.exact and v.score == want
        # the line replays legally to the value
        h = g.clone()
        for seat, play in s.line:
            assert h.current_player == seat
            h.apply(play)
        assert h.phase == "over" and h.result.raw_score == s.score
        assert s.outcome == tractor.outcome(s.score, profile)
        n += 1
    assert n >= 200


def test_budget_gives_bounds():
    rnd = random.Random(3)
    g = _endgame(rnd, "guigang", 4)
    full = solve(g)
    part = solve(g, node_budget=5)
    assert full.exact and not part.exact and part.score is None and part.outcome is None
    for a, b in zip(part.plays, full.plays):
        assert a.play == b.play and a.lower <= b.lower and b.upper <= a.upper
    assert part.lower <= full.score <= part.upper and part.line == []


def test_solve_refuses_bad_input():
    g = tractor.Game(seed=1)
    with pytest.raises(InvalidArgument, match="play phase"):
        solve(g)  # still dealing
    with pytest.raises(InvalidArgument):
        solve("game")  # type: ignore[arg-type]
    h = tractor.Game.from_deal(["As", "Ks", "Qs", "Js"], level=10, trump="h")
    for bad in (0, -1, True, 1.5, 2**70):
        with pytest.raises(InvalidArgument):
            solve(h, node_budget=bad)
    over = h.clone()
    over.play_random(1)
    with pytest.raises(InvalidArgument, match="play phase"):
        solve(over)
    for bad in (1, "yes", 0.0, [True]):
        with pytest.raises(InvalidArgument, match="partition must be None, True or False"):
            solve(h, partition=bad)  # type: ignore[arg-type]


def test_partition_search_gives_the_same_solution():
    """Partition search (``partition=True``) against the plain search: the same plays, values,
    best play and exactness, on late positions of real hands (greedy play) and random ends of
    every profile, trick starts and tricks in progress; its line replays to the value."""
    rnd = random.Random("partition")
    games = [_late(seed, 6 + seed % 2) for seed in range(6)] + [_late(7, SOLVE_PARTITION_FROM)]
    games += [_endgame(rnd, profile, 3 + i % 2) for profile in PROFILES for i in range(6)]
    n = bigs = 0
    for g in games:
        for _ in range(rnd.randrange(3)):
            if g.phase == "play":
                g.apply(g.legal_actions().sample(rnd.randrange(2**32)))
        if g.phase != "play":
            continue
        plain, part = solve(g, partition=False), solve(g, partition=True)
        assert (part.plays, part.best, part.lower, part.upper, part.exact) == (plain.plays, plain.best, plain.lower, plain.upper, True)
        # the default: partition search from SOLVE_PARTITION_FROM cards in the largest hand
        big = max(len(g.hand(s)) for s in range(4)) >= SOLVE_PARTITION_FROM
        assert solve(g).nodes == (part.nodes if big else plain.nodes)
        bigs += big
        h = g.clone()
        for seat, play in part.line:
            assert h.current_player == seat
            h.apply(play)
        assert h.phase == "over" and h.result.raw_score == part.score
        n += 1
    assert n >= 20 and bigs >= 1


def test_threads_give_the_same_solution():
    """Several threads sharing one table (``threads=2``, ``3``, ``None``: all cores) against
    one: the same plays, values, best play, bounds and outcome on late positions of real
    hands and random ends of every profile; the line of two threads equals three's and
    replays to the value; past a budget the bounds still hold the values."""
    rnd = random.Random("threads")
    games = [_late(seed, 5 + seed % 3) for seed in range(4)]
    # past the nodes searched alone first (2**17): the threads' own search
    games += [_late(3, 9)]
    games += [_endgame(rnd, profile, 4) for profile in PROFILES for _ in range(3)]
    for g in games:
        one = solve(g)
        lines = []
        for threads in (2, 3, None):
            t = solve(g, threads=threads)
            assert (t.plays, t.best, t.lower, t.upper, t.exact, t.outcome) == (one.plays, one.best, one.lower, one.upper, True, one.outcome)
            lines.append(t.line)
        assert lines[0] == lines[1]
        h = g.clone()
        for seat, play in lines[0]:
            assert h.current_player == seat
            h.apply(play)
        assert h.phase == "over" and h.result.raw_score == one.score
        part = solve(g, node_budget=max(1, one.nodes // 4), threads=2)
        assert part.nodes <= one.nodes // 4 + 2 * 1025
        for a, b in zip(part.plays, one.plays):
            assert a.play == b.play and a.lower <= b.lower and b.upper <= a.upper
    h = tractor.Game.from_deal(["As", "Ks", "Qs", "Js"], level=10, trump="h")
    for bad in (0, -1, True, 1.5, 2000, "2"):
        with pytest.raises(InvalidArgument, match="threads"):
            solve(h, threads=bad)  # type: ignore[arg-type]


def _late(seed: int, cards: int) -> tractor.Game:
    g = tractor.Game(seed=seed)
    i = 0
    while g.current_player is not None:
        if g.phase == "play" and len(g.hand(g.current_player)) <= cards:
            return g
        g.step_policy("greedy", i)
        i += 1
    raise AssertionError("the hand ended first")


def test_pimc_solves_late_worlds_exactly():
    g = _late(5, 4)
    r = pimc(g, worlds=6, rollouts=3, solve=4, threads=1)
    assert r == pimc(g, worlds=6, rollouts=3, solve=4, threads=2)  # any thread count
    for s in r.stats:
        # each world's exact value counts once per rollout: totals are multiples of 3
        assert s.visits == 18 and round(s.mean * s.visits) % 3 == 0
    name = "pimc:worlds=6,rollouts=3,rollout=random,solve=4"
    assert g.policy_action(name, 0) in g.legal_actions()  # the policy string plays
    assert tractor._core.policy_name("PIMC:solve=4") == "pimc:worlds=32,rollouts=8,rollout=random,solve=4"
    assert tractor._core.policy_name("pimc") == "pimc:worlds=32,rollouts=8,rollout=random"
    with pytest.raises(InvalidPolicy):
        pimc(g, solve=55)
    with pytest.raises(InvalidPolicy):
        tractor._core.policy_name("pimc:solve=x")


def test_pimc_solve_applies_only_late():
    """Above N cards the search is PIMC with rollouts, bit for bit."""
    g = _late(6, 20)
    assert pimc(g, worlds=4, rollouts=2, solve=3, threads=1) == pimc(g, worlds=4, rollouts=2, threads=1)


def test_ismcts_stats_are_most_visited_first():
    """As documented: ISMCTS's statistics are sorted by visits, most first (issue 22 found them
    in the order found), and the decision is the most visited."""
    from tractor.search import ismcts

    checked = 0
    for seed in range(8):
        g = _late(seed, 25)
        r = ismcts(g, iterations=200, rollout="greedy", seed=seed, threads=1)
        visits = [s.visits for s in r.stats]
        assert visits == sorted(visits, reverse=True)
        assert any(s.play == r.action and s.visits == visits[0] for s in r.stats)  # the most visited
        checked += len(visits) > 1
    assert checked >= 6


def test_rollouts_return_card_points():
    """Issue 22: rollouts give the defenders' final scores natively (value="points"), the same
    playouts as the levels: playout i's score is ``playout_score`` with its stream, and its
    returns are what R7.4 makes of that score."""
    from tractor import _core
    from tractor.search import NO_SCORE, rollouts

    for g in (_late(3, 20), tractor.Game(seed=4)):
        pts = rollouts(g, 50, policy="greedy", seed=9, value="points", threads=2)
        lv = rollouts(g, 50, policy="greedy", seed=9, threads=1)
        assert pts.shape == (50,) and pts.dtype.name == "int32"
        for i in (0, 17, 49):
            want = g.playout_score("greedy", _core.derive_seed(9, _core.SEARCH_TAG, i))
            assert pts[i] == (NO_SCORE if want is None else want)
        for score, ret in zip(pts, lv):
            if score == NO_SCORE:
                assert list(ret) == [0, 0, 0, 0]
                continue
            o = tractor.outcome(int(score), g.profile)
            gain = -o.defender_levels if o.defenders_take_over else o.banker_levels
            banker = g.banker
            if banker is None:  # the first hand: the banker is the final declarer of that playout
                continue
            assert ret[banker] == gain and ret[(banker + 1) % 4] == -gain
    with pytest.raises(InvalidArgument):
        rollouts(g, 3, value="score")
