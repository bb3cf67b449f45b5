"""What a seat knows, determinization, rollouts, PIMC and ISMCTS from Python."""

from __future__ import annotations

import copy
import itertools
import math
import pickle
import random
from collections import Counter

import numpy as np
import pytest

import tractor
from tractor import Game, Match, TractorError
from tractor.search import ismcts, pimc, rollouts

SEARCH_TAG = tractor._core.SEARCH_TAG


def _played_game(seed: int, plays: int, profile: str = "guigang") -> Game:
    """A dealt hand, greedy throughout, stopped after ``plays`` decisions of the play phase
    (or while dealing, for plays < 0: after -plays dealing decisions)."""
    g = Game(seed=seed, profile=profile)
    k = 0
    while g.phase == "declare" and (plays >= 0 or k < -plays):
        g.step_policy("greedy", seed * 1000 + k)
        k += 1
    k = 0
    while g.phase == "play" and k < plays:
        g.step_policy("greedy" if k % 3 else "random", seed * 7 + k)
        k += 1
    return g


def _positions(n: int):
    rng = random.Random(11)
    for i in range(n):
        plays = rng.choice([-rng.randint(1, 12), 0, 1, rng.randint(2, 200), rng.randint(150, 240)])
        yield _played_game(i, plays, "nanning" if i % 3 == 2 else "guigang")


def test_info_is_what_the_seat_knows_and_the_truth_meets_its_bounds():
    for g in _positions(60):
        if g.stopped:
            continue
        for seat in range(4):
            info = g.info(seat)
            assert info.seat == seat and info.profile == g.profile
            hand = tractor.to_counts(g.hand(seat))
            assert np.array_equal(info.hand, np.frombuffer(hand, dtype=np.uint8))
            assert info.hand_sizes == tuple(len(g.hand(s)) for s in range(4))
            assert info.voids.shape == (4, 5) and info.upper.shape == (4, 54) and info.lower.shape == (4, 54)
            if g.phase != "declare":
                for s in range(4):
                    truth = np.frombuffer(tractor.to_counts(g.hand(s)), dtype=np.uint8)
                    assert (info.lower[s] <= truth).all() and (truth <= info.upper[s]).all(), (seat, s)
                    for cls in range(5):
                        if info.voids[s, cls]:
                            assert truth[_class_kinds(g, cls)].sum() == 0
            else:
                assert info.trump is None or info.declarer == seat or info.phase != "declare"
            # never the other hands: two games the seat cannot tell apart share the info set
            w = g.determinize(seat, 3)
            assert w.observation(seat) == g.observation(seat)
            assert _info_eq(w.info(seat), info)


def _class_kinds(g: Game, cls: int):
    classes = np.frombuffer(g.context._c.classes(), dtype=np.uint8)
    return np.nonzero(classes == cls)[0]


def _info_eq(a, b) -> bool:
    for f in a.__dataclass_fields__:
        x, y = getattr(a, f), getattr(b, f)
        if isinstance(x, np.ndarray):
            if not np.array_equal(x, y):
                return False
        elif x != y:
            return False
    return True


def test_observation_carries_the_deal_order_levels_and_voids():
    g = _played_game(4, 120)
    o = g.observation(2)
    assert o.first_seat in range(4) and o.cards_dealt == 216 and o.levels == (3, 3) and o.hand_index == 0
    assert len(o.arrivals) == 54 and sorted(o.arrivals) == sorted(o.hand + [c for t in o.tricks for s, cs in t.plays if s == 2 for c in cs] + [c for s, cs in o.current_trick if s == 2 for c in cs])
    assert len(o.voids) == 4 and all(len(v) == 5 for v in o.voids)
    m = Match(5)
    m.game.play_random(1)
    nxt = m.next_hand()
    assert nxt.observation(0).hand_index == 1


@pytest.mark.parametrize("chunk", range(4))
def test_worlds_are_consistent_replayable_and_seeded(chunk):
    checked = 0
    for i, g in enumerate(_positions(200)):
        if i % 4 != chunk:
            continue
        for seat in range(4):
            w = g.determinize(seat, i * 4 + seat)
            assert w.observation(seat) == g.observation(seat)
            assert w.hand(seat) == g.hand(seat)
            assert Game.from_json(w.to_json()) == w  # its history replays, checked
            assert g.determinize(seat, i * 4 + seat) == w
            assert w.determinize(seat, 99) == g.determinize(seat, 99)  # indistinguishable sources
            checked += 1
    assert checked == 200


def test_determinize_many_is_determinize_with_derived_seeds():
    g = _played_game(2, 60)
    many = g.determinize_many(1, 5, 42)
    assert len(many) == 5
    for i, w in enumerate(many):
        assert w == g.determinize(1, tractor._core.derive_seed(42, SEARCH_TAG, i))
    assert len({w.to_json() for w in many}) == 5


def test_a_kept_determinizer_changes_no_world():
    # a game keeps its last determinizer for the next call on the same info set: the worlds
    # are those of a fresh one (a copy starts without it), before and after the game moves on,
    # for another seat in between, and from threads sharing the game
    import threading

    g = _played_game(5, 90)
    seeds = [3, 4, 5]
    first = [g.determinize(2, s) for s in seeds]
    assert [g.determinize(2, s) for s in seeds] == first
    assert [copy.copy(g).determinize(2, s) for s in seeds] == first
    g.determinize(1, 3)
    assert g.determinize_many(2, 3, 8) == copy.deepcopy(g).determinize_many(2, 3, 8)
    g.step_policy("greedy", 1)
    after = g.determinize(2, 3)
    assert after.observation(2) == g.observation(2)
    assert after == pickle.loads(pickle.dumps(g)).determinize(2, 3)
    assert after != first[0]
    out = [None] * 4

    def work(i):
        out[i] = g.determinize_many(2, 16, 7)

    ts = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert all(o == copy.copy(g).determinize_many(2, 16, 7) for o in out)


def test_worlds_hold_the_play_being_built():
    # the seat to move building a play with action ids: each of its worlds holds the same
    # selection (and can finish it), the same world as without it; another seat's hold none
    rng = random.Random(11)
    built = 0
    for i in range(40):
        g = _played_game(i, rng.randrange(20, 180))
        if g.phase != "play":
            continue
        seat = g.current_player
        ids = [k for k in range(54) if g.action_mask()[k]]
        if not ids:
            continue
        plain = g.determinize(seat, i)
        g.step(ids[0])
        if not g.pending:
            continue
        built += 1
        for w in [g.determinize(seat, i)] + g.determinize_many(seat, 3, i):
            assert w.pending == g.pending
            assert w.observation(seat) == g.observation(seat)
            assert w.action_mask().tolist() == g.action_mask().tolist()
        w = g.determinize(seat, i)
        w.clear_pending()
        assert w == plain
        other = (seat + 1) % 4
        assert not g.determinize(other, i).pending
    assert built >= 10


def _exact_worlds(g: Game, seat: int):
    """Brute force: every split of the unseen cards over the other hands, weighted by
    physical deals, kept when the whole history replays legally."""
    info = g.info(seat)
    others = [s for s in range(4) if s != seat]
    pool = [k for k in range(54) for _ in range(int(info.unseen[k]))]
    sizes = [info.hand_sizes[s] for s in others]
    rec = g.record()
    out = Counter()
    seen = set()
    for perm in itertools.permutations(range(len(pool))):
        hands, at = [], 0
        for n in sizes:
            hands.append(tuple(sorted(pool[j] for j in perm[at : at + n])))
            at += n
        key = tuple(hands)
        out[key] += 1  # each physical arrangement counts once
        seen.add(key)
    consistent = Counter()
    for key, w in out.items():
        start = [None] * 4
        start[seat] = [tractor.CARDS[k] for k in np.repeat(np.arange(54), info.hand)] + _played(info, seat)
        for s, h in zip(others, key):
            start[s] = [tractor.CARDS[k] for k in h] + _played(info, s)
        try:
            r = dict(rec)
            r["start"] = dict(rec["start"], hands=[" ".join(str(c) for c in sorted(h)) for h in start])
            Game.from_record(r)
        except TractorError:
            continue
        consistent[key] = w
    return consistent


def _played(info, s):
    return [tractor.CARDS[k] for k in np.repeat(np.arange(54), info.played[s])]


def test_world_distribution_is_exact_on_a_small_endgame():
    hands = ["3s 3s 5s 9s", "4s 4s 6s 9h", "8s 8s Kh Qs", "Js Qs 5h Ks"]
    g = Game.from_deal(hands, level=10, trump="d", banker=0)
    for t in ["3s 3s", "4s 4s", "8s 8s", "Js Qs"]:
        g.apply(t)
    exact = _exact_worlds(g, 0)
    total = sum(exact.values())
    draws = 6000
    seen = Counter()
    for w in g.determinize_many(0, draws, 5):
        seen[tuple(tuple(sorted(int(c) for c in w.hand(s))) for s in (1, 2, 3))] += 1
    assert set(seen) <= set(exact), "an inconsistent world was drawn"
    chi = sum((seen[k] - draws * w / total) ** 2 / (draws * w / total) for k, w in exact.items())
    dof = len(exact) - 1
    assert dof >= 3
    assert chi < dof + 5 * math.sqrt(2 * dof) + 10, (chi, dof)


def test_rollouts_are_numpy_zero_sum_seeded_and_thread_independent():
    g = _played_game(6, 30)
    a = rollouts(g, 20, policy="greedy", seed=3, threads=1)
    assert a.shape == (20, 4) and a.dtype == np.int32
    assert (a.sum(axis=1) == 0).all()
    assert np.array_equal(a, rollouts(g, 20, policy="greedy", seed=3, threads=2))
    b = rollouts(g, 20, policy="random", seed=4)
    assert b.shape == (20, 4)
    # playout i of rollouts is Game.playout with the stream derive(seed, SEARCH, i)
    assert g.playout("random", tractor._core.derive_seed(4, SEARCH_TAG, 0)) == tuple(b[0])
    d = Game(seed=12)
    assert rollouts(d, 3, seed=1).shape == (3, 4)  # from the deal: declaring included


def test_pimc_and_ismcts_decide_legally_deterministically_and_from_the_info_set():
    for seed, plays in [(1, 0), (2, 9), (3, 77), (8, 150)]:
        g = _played_game(seed, plays)
        if g.phase != "play":
            continue
        p1 = pimc(g, worlds=4, rollouts=2, seed=5, threads=1)
        assert p1 == pimc(g, worlds=4, rollouts=2, seed=5, threads=2)
        assert p1.action in g.legal_actions()
        i1 = ismcts(g, iterations=150, seed=5, threads=1, trees=2)
        assert i1 == ismcts(g, iterations=150, seed=5, threads=2, trees=2)
        assert i1.action in g.legal_actions()
        assert sum(s.visits for s in i1.stats) <= 150
        w = g.determinize(g.current_player, 17)
        assert pimc(w, worlds=4, rollouts=2, seed=5) == p1
        assert ismcts(w, iterations=150, seed=5, trees=2) == i1


def _guided_from_the_info_set(**guide) -> int:
    """ISMCTS with ``guide`` (first= or prior=) on three mid-hand positions: thread-blind,
    legal, from the info set only, and its policy name plays; how many it decides otherwise
    than the plain search."""
    changed = 0
    for seed, plays in [(2, 9), (3, 77), (8, 150)]:
        g = _played_game(seed, plays)
        if g.phase != "play":
            continue
        i1 = ismcts(g, iterations=60, seed=5, threads=1, trees=2, rollout="greedy", **guide)
        assert i1 == ismcts(g, iterations=60, seed=5, threads=2, trees=2, rollout="greedy", **guide)
        assert i1.action in g.legal_actions()
        w = g.determinize(g.current_player, 17)
        assert ismcts(w, iterations=60, seed=5, trees=2, rollout="greedy", **guide) == i1
        changed += ismcts(g, iterations=60, seed=5, trees=2, rollout="greedy") != i1
        (key, value), = guide.items()
        assert g.policy_action(f"ismcts:iterations=60,trees=2,rollout=greedy,{key}={value}", 5) is not None
    return changed


def test_a_play_network_guides_ismcts_by_name_from_the_info_set():
    from tractor.errors import InvalidPolicy
    from tractor.search import Searcher
    assert _guided_from_the_info_set(first="play-net-v1") > 0
    # greedy as the guide is the default search
    g = _played_game(2, 9)
    plain = ismcts(g, iterations=60, seed=5, trees=2, rollout="greedy")
    assert ismcts(g, iterations=60, seed=5, trees=2, rollout="greedy", first="greedy") == plain
    assert "first=net:" in Searcher(iterations=10, first="play-net-v1").policy
    with pytest.raises(InvalidPolicy, match="first"):
        ismcts(_played_game(2, 9), iterations=5, first="pimc")


def test_a_play_network_as_ismcts_prior_by_name_from_the_info_set():
    from tractor.errors import InvalidPolicy
    from tractor.search import Searcher
    assert _guided_from_the_info_set(prior="play-net-v1") > 0
    # the defaults spelled out are the same search; another weight is another search
    g = _played_game(3, 77)
    i1 = ismcts(g, iterations=60, seed=5, trees=2, prior="play-net-v1", rollout="greedy")
    assert ismcts(g, iterations=60, seed=5, trees=2, prior="play-net-v1", rollout="greedy", bias=1, temp=0.1) == i1
    assert g.policy_action("ismcts:iterations=60,trees=2,rollout=greedy,prior=play-net-v1,bias=2", 5) is not None
    policy = Searcher(iterations=10, prior="play-net-v1", bias=0.5).policy
    assert "prior=net:" in policy and policy.endswith(",bias=0.500")
    g = _played_game(2, 9)
    for bad, word in [(dict(prior="greedy"), "prior"), (dict(prior="pimc"), "prior"), (dict(bias=1.0), "prior"),
                      (dict(prior="play-net-v1", bias=-1), "bias"), (dict(prior="play-net-v1", bias=float("nan")), "bias"),
                      (dict(prior="play-net-v1", temp=0), "temp"), (dict(prior="play-net-v1", temp="0.1"), "temp"),
                      (dict(prior="play-net-v1", first="greedy"), "first")]:
        with pytest.raises(InvalidPolicy, match=word):
            ismcts(g, iterations=5, **bad)


def test_ismcts_search_from_leaves_the_early_decisions_to_its_guide():
    from tractor.errors import InvalidPolicy
    from tractor.search import Searcher
    early, late = _played_game(3, 9), _played_game(3, 80)
    assert len(early.hand(early.current_player)) > 19 >= len(late.hand(late.current_player))
    for guide in [dict(prior="play-net-v4"), dict(first="play-net-v4")]:
        r = ismcts(early, iterations=50, seed=4, search_from=19, **guide)
        assert r.action == early.policy_action("play-net-v4") and len(r.stats) == 1 and r.stats[0].visits == 0
        assert ismcts(late, iterations=50, seed=4, search_from=19, **guide) == ismcts(late, iterations=50, seed=4, **guide)
        name = Searcher(iterations=50, search_from=19, **guide).policy
        assert name.endswith(",from=19")
        assert early.policy_action(name, 4) == r.action
    # while dealing the guide declares (a search without from= shows as greedy does, R8.1)
    dealing, unlike_greedy = Game(seed=7), 0
    for k in range(29):
        assert dealing.phase == "declare"
        a = dealing.policy_action("ismcts:prior=play-net-v4,from=10", k)
        assert a == dealing.policy_action("play-net-v4", k)
        unlike_greedy += a != dealing.policy_action("ismcts:prior=play-net-v4", k)
        dealing.step_policy("greedy", k)
    assert unlike_greedy > 0
    for bad, word in [(dict(search_from=19), "guide"), (dict(prior="play-net-v4", search_from=55), "search_from"),
                      (dict(first="greedy", search_from=-1), "search_from"), (dict(first="greedy", search_from="9"), "search_from")]:
        with pytest.raises(InvalidPolicy, match=word):
            ismcts(early, iterations=5, **bad)
    with pytest.raises(InvalidPolicy, match="from"):
        early.policy_action("ismcts:from=19", 1)


def test_searches_with_exact_turns_are_deterministic_and_see_only_the_info_set():
    # exact_turns: worlds that keep who was asked while dealing (the default deal mode's evidence)
    differ = 0
    for seed, plays in [(1, 0), (2, 9), (3, 77)]:
        g = _played_game(seed, plays)
        p1 = pimc(g, worlds=4, rollouts=1, policy="greedy", seed=5, threads=1, exact_turns=True)
        p2 = pimc(g, worlds=4, rollouts=1, policy="greedy", seed=5, threads=2, exact_turns=True)
        assert p1 == p2 and np.array_equal(p1.world_values, p2.world_values)
        differ += not np.array_equal(p1.world_values, pimc(g, worlds=4, rollouts=1, policy="greedy", seed=5).world_values)
        i1 = ismcts(g, iterations=60, seed=5, threads=1, trees=2, exact_turns=True)
        assert i1 == ismcts(g, iterations=60, seed=5, threads=2, trees=2, exact_turns=True)
        w = g.determinize(g.current_player, 17)
        assert pimc(w, worlds=4, rollouts=1, policy="greedy", seed=5, exact_turns=True) == p1
        assert ismcts(w, iterations=60, seed=5, trees=2, exact_turns=True) == i1
        assert tractor.search.Searcher(iterations=60, trees=2, exact_turns=True).search(g, seed=5) == i1
    assert differ >= 1
    r = tractor.simulate(hands=1, policies=("pimc:worlds=2,rollouts=1,turns=1", "greedy", "greedy", "greedy"), seed=3, threads=1)
    assert r.policies[0] == "pimc:worlds=2,rollouts=1,rollout=random,turns=1"
    for bad in (1, "yes", None, 0.0):
        with pytest.raises(tractor.errors.InvalidPolicy, match="exact_turns"):
            pimc(g, worlds=2, exact_turns=bad)
        with pytest.raises(tractor.errors.InvalidPolicy, match="exact_turns"):
            ismcts(g, iterations=2, exact_turns=bad)


def test_search_refuses_bad_input():
    g = Game(seed=3)
    with pytest.raises(TractorError, match="play phase"):
        ismcts(g, iterations=10)
    p = _played_game(3, 5)
    for bad in [dict(iterations=-1), dict(c=float("nan")), dict(c=-1), dict(rollout="smart"), dict(threads=0), dict(seed=2**64)]:
        with pytest.raises(TractorError):
            ismcts(p, **{"iterations": 10, **bad})
    with pytest.raises(TractorError):
        pimc(p, worlds=2**70)
    with pytest.raises(TractorError):
        ismcts(p, iterations=10**9)  # a tree of 10^9 nodes would not fit
    with pytest.raises(TractorError):
        rollouts(p, 2**62)
    with pytest.raises(TractorError):
        p.determinize_many(0, 10**9, 1)
    with pytest.raises(TractorError):
        rollouts("not a game", 3)
    with pytest.raises(TractorError):
        p.determinize(4, 1)
    with pytest.raises(TractorError):
        p.determinize_many(0, -1, 1)
    with pytest.raises(TractorError):
        p.playout("smart", 1)
    before = p.to_json()
    with pytest.raises(TractorError):
        p.step_policy("ismcts:iterations=zero", 1)
    assert p.to_json() == before


def test_search_policies_in_simulate_are_named_and_deterministic():
    pols = ("ismcts:iterations=20", "greedy", "pimc:worlds=2,rollouts=1", "random")
    a = tractor.simulate(hands=2, policies=pols, seed=9, threads=1)
    b = tractor.simulate(hands=2, policies=",".join(pols), seed=9, threads=2)
    assert a.policies[0] == "ismcts:iterations=20,c=0.700,rollout=random,trees=1"
    assert a.policies == b.policies
    assert np.array_equal(a.returns(), b.returns())
    with pytest.raises(TractorError):
        tractor.simulate(hands=1, policies=("ismcts:depth=3", "greedy", "greedy", "greedy"))


@pytest.mark.parametrize("plays", [-3, 0, 50, 240])
def test_games_and_matches_pickle_and_copy(plays):
    g = _played_game(21, plays)
    for h in (pickle.loads(pickle.dumps(g)), copy.copy(g), copy.deepcopy(g)):
        assert h == g and h.to_json() == g.to_json()
    w = g.determinize(1, 8)
    assert pickle.loads(pickle.dumps(w)) == w
    m = Match(4)
    m.game.play_random(2)
    m.next_hand()
    for n in (pickle.loads(pickle.dumps(m)), copy.copy(m), copy.deepcopy(m)):
        assert n.levels == m.levels and n.history == m.history and n.game == m.game and n.banker == m.banker
    n = copy.deepcopy(m)
    n.game.play_random(3)
    n.next_hand()
    assert n.history != m.history  # independent copies


def test_redealt_worlds_keep_every_attempt():
    # a hand whose first attempts nobody declared in: all pass, then greedy
    for seed in range(40):
        g = Game(seed=seed)
        passes = 0
        while g.phase == "declare" and passes < 400:
            g.apply(tractor.Pass())
            passes += 1
            if g.info(0).first_seats and len(g.info(0).first_seats) > 1:
                break
        if g.stopped or len(g.info(0).first_seats) < 2:
            continue
        while g.phase == "declare":
            g.step_policy("greedy", 1)
        w = g.determinize(2, 4)
        assert w.observation(2) == g.observation(2)
        assert "redeal_decks" in w.record()["start"]
        assert Game.from_json(w.to_json()) == w
        return
    pytest.skip("no redeal in the seeds tried")


def test_cli_plays_search_policies_with_parameters(tmp_path):
    import subprocess
    import sys

    p = subprocess.run(
        [sys.executable, "-m", "tractor.cli", "simulate", "--hands", "1", "--threads", "1", "--quiet",
         "--policy", "ismcts:iterations=15,c=0.5,greedy,pimc:worlds=2,rollouts=1,random"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )
    assert p.returncode == 0, p.stderr
    assert "ismcts:iterations=15,c=0.500,rollout=random,trees=1" in p.stdout
    assert "pimc:worlds=2,rollouts=1,rollout=random" in p.stdout


def test_a_policy_list_keeps_a_rollout_networks_path_with_its_search():
    from tractor._args import _split_policies

    path = tractor.agents.AGENTS["bc-greedy-v1"].policy  # net:PATH
    text = f"greedy,ismcts:iterations=5,rollout={path},trees=1,{path},pimc:rollout=greedy"
    assert _split_policies(text) == ["greedy", f"ismcts:iterations=5,rollout={path},trees=1", path,
                                     "pimc:rollout=greedy"]
    s = tractor.simulate(hands=1, policies=f"ismcts:iterations=5,rollout=bc-greedy-v1,greedy,{path},random")
    assert s.policies == (f"ismcts:iterations=5,c=0.700,rollout={path},trees=1", "greedy", path, "random")


def test_playout_score_is_the_score_of_the_same_playout():
    """R7.4 read back: the defenders' team gains iff they reach 240, the banker's iff they stay
    below 160, nobody between; the same seed gives the same playout as Game.playout."""
    seen = set()
    for seed in range(40):
        g = _played_game(seed % 7, 20 + seed)
        if g.phase != "play":
            continue
        for policy in ("greedy", "random"):
            score, r = g.playout_score(policy, seed), g.playout(policy, seed)
            assert isinstance(score, int) and score == g.playout_score(policy, seed)
            defenders = r[(g.banker + 1) % 4]
            assert (defenders > 0) == (score >= 240) and (defenders < 0) == (score < 160), (score, r)
            seen.add((score >= 240) - (score < 160))
    assert seen == {-1, 0, 1}
