"""greedy with other weights, ``greedy:NAME=V/...``: a policy wherever one is taken, greedy
itself at greedy's weights, deterministic for any thread count, and bad weights refused with
the weight named. The shipped tuned agent plays from its weights."""

from __future__ import annotations

import numpy as np
import pytest

import tractor
from tractor import _core, agents
from tractor.errors import InvalidPolicy

NAMES = [w[0] for w in _core.GREEDY_WEIGHTS]
#: Far from greedy's weights: it feeds the opponents' points and shows at once.
ODD = "greedy:feed=-20/lose_points=-20/show_margin=-216"


def test_the_weights_are_listed_with_greedys_values_and_ranges():
    assert len(NAMES) == len(set(NAMES)) == 23 and NAMES[-2:] == ["list_max", "samples"]
    for name, default, lo, hi in _core.GREEDY_WEIGHTS:
        assert lo <= default <= hi
    assert dict((w[0], w[1]) for w in _core.GREEDY_WEIGHTS)["feed"] == 8


def test_greedys_own_weights_are_greedy_and_names_are_canonical():
    assert tractor.simulate(hands=2, policies=("greedy:feed=8/win=2000",) * 4, seed=1).policies == ("greedy",) * 4
    r = tractor.simulate(hands=2, policies=(" GREEDY: Win=1500 / feed_risk=3 ", "greedy") * 2, seed=1)
    assert r.policies[0] == "greedy:feed_risk=3/win=1500"


def test_other_weights_play_otherwise_and_the_same_for_any_thread_count():
    one = tractor.simulate(hands=60, policies=(ODD, "greedy", ODD, "greedy"), duplicate=True, seed=4, threads=1)
    two = tractor.simulate(hands=60, policies=(ODD, "greedy", ODD, "greedy"), duplicate=True, seed=4, threads=2)
    assert np.array_equal(one.returns(), two.returns()) and one.summary()["duplicate"] == two.summary()["duplicate"]
    assert one.summary()["duplicate"]["advantage"] < 0, "feeding the opponents loses"
    same = tractor.simulate(hands=60, policies=("greedy:feed=8",) * 4, seed=4, threads=1)
    base = tractor.simulate(hands=60, policies=("greedy",) * 4, seed=4, threads=1)
    assert np.array_equal(same.returns(), base.returns())
    other = tractor.simulate(hands=60, policies=(ODD, "greedy", ODD, "greedy"), seed=4, threads=1)
    assert not np.array_equal(other.returns(), base.returns())


def test_a_tuned_greedy_is_a_policy_everywhere():
    g = tractor.Game(seed=3)
    assert g.step_policy(ODD, 1)
    env = tractor.VecEnv(4, seed=2, opponents=[ODD, "tuned-greedy-v1", ODD])
    obs, mask = env.reset()[:2]
    for _ in range(300):  # the learner's seat steps; the opponents' turns are played by the tuned greedys
        obs, mask = env.step(mask.argmax(axis=1))[:2]
    assert obs.shape[0] == 4 and mask.any(axis=1).all()
    for rollout in (ODD, "tuned-greedy-v1"):
        g = tractor.Game(seed=5)
        while g.phase == "declare":
            g.step_policy("greedy", 1)
        r = tractor.search.ismcts(g, iterations=20, rollout=rollout, seed=0)
        assert r.action is not None
    res = tractor.arena.play([ODD, "greedy"], deals=10, cost=False, bootstrap=0)
    assert res.policies == [ODD, "greedy"]
    assert res.pairings[0].summary()["levels_per_deal"] < 0


@pytest.mark.parametrize("bad, says", [
    ("greedy:feeds=1", "unknown weight \"feeds\""),
    ("greedy:feed=1/feed=2", "given twice"),
    ("greedy:feed=2.5", "feed=\"2.5\": expected a whole number in -1000..=1000"),
    ("greedy:keep_left=-1", "keep_left"),
    ("greedy:feed", "is not NAME=VALUE"),
    ("greedy:feed=1,win=3", "win"),
])
def test_bad_weights_are_refused_naming_the_weight_and_change_nothing(bad, says):
    g = tractor.Game(seed=3)
    before = g.to_json()
    with pytest.raises(InvalidPolicy) as e:
        g.step_policy(bad, 1)
    assert says in str(e.value), str(e.value)
    assert g.to_json() == before
    with pytest.raises(InvalidPolicy):
        tractor.simulate(hands=1, policies=(bad, "greedy", "greedy", "greedy"), seed=1)
    with pytest.raises(InvalidPolicy):
        tractor.search.pimc(g, worlds=2, policy=bad, seed=0)


def test_the_shipped_weights_are_the_core_s_and_defined_there_once():
    """The core's Agent::TUNED (rust/core/src/policy.rs) holds the shipped sets; rust/core/tests/
    tuned.rs pins how they play by their names, and nothing else spells their weights."""
    from pathlib import Path

    tuned = dict(_core.TUNED)
    assert list(tuned) == ["tuned-greedy-v1", "tuned-greedy-v1-fast"]
    assert tuned["tuned-greedy-v1-fast"] == tuned["tuned-greedy-v1"] + "/samples=4"
    for name, text in tuned.items():  # the core reads the name itself: the policy its text is
        assert _core.policy_name(name) == _core.policy_name(text) == text
    root = Path(__file__).resolve().parents[1]
    pinned = (root / "rust" / "core" / "tests" / "tuned.rs").read_text()
    assert 'digest("tuned-greedy-v1")' in pinned and 'digest("tuned-greedy-v1-fast")' in pinned
    weights = tuned["tuned-greedy-v1"][len("greedy:"):]
    sources = [*root.glob("python/tractor/**/*.py"), *root.glob("rust/**/*.rs"), *root.glob("tests/**/*.py")]
    spelled = [str(p.relative_to(root)) for p in sources if weights in p.read_text(encoding="utf-8")]
    assert spelled == ["rust/core/src/policy.rs"], spelled


def test_the_tuned_agent_ships_and_beats_greedy_on_a_few_deals():
    a = agents.AGENTS["tuned-greedy-v1"]
    assert a.kind == "learned" and a.policy == dict(_core.TUNED)["tuned-greedy-v1"] and "tune_greedy.py" in a.about
    assert tractor.simulate(hands=2, policies=(a.name,) * 4, seed=1).policies[0] == a.policy
    d = tractor.simulate(hands=300, policies=(a.name, "greedy") * 2, duplicate=True, seed=11).summary()["duplicate"]
    assert d["advantage"] > 0, d
    fast = agents.AGENTS["tuned-greedy-v1-fast"]
    assert fast.kind == "learned" and fast.policy.endswith("/samples=4") and "equal time" in fast.about
    assert tractor.simulate(hands=2, policies=(fast.name,) * 4, seed=1).policies[0] == fast.policy
    g = tractor.Game(seed=5)
    while g.phase == "declare":
        g.step_policy("greedy", 1)
    assert tractor.search.ismcts(g, iterations=30, rollout=fast.name, seed=0).action is not None
