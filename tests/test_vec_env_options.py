"""VecEnv's options for learners: auto_forced (only real choices, nothing revealed, nothing
lost), a teacher's ids (Game.policy_ids, batched in info), the info columns, first_hand_only,
reset(seed=, indices=) and uint8 observations."""

from __future__ import annotations

import numpy as np
import pytest

import tractor
from tractor import _core
from tractor.errors import InvalidArgument, InvalidPolicy

OPPONENTS = {"guigang": ("greedy", None, "random"), "nanning": ("greedy", "greedy", "greedy"), "competition": None}


@pytest.mark.parametrize("profile", tractor.PROFILES)
def test_auto_forced_takes_the_learners_forced_ids_and_changes_nothing_else(profile):
    """A learner that takes its forced ids itself and draws every real choice from one stream
    per environment, without and with auto_forced: the same games, returns and hand ends; every
    step returned with auto_forced is a real choice; info counts the ids taken; and the other
    seats' worlds (determinize) are the same."""
    n, ops = 4, OPPONENTS[profile]
    plain = tractor.VecEnv(n, seed=9, profile=profile, opponents=ops)
    auto = tractor.VecEnv(n, seed=9, profile=profile, opponents=ops, auto_forced=True)
    pa, pb = plain.reset(), auto.reset()
    forced_a = np.zeros(n, np.int64)
    forced_b = auto.info["forced"].astype(np.int64).copy()
    ret_a, ret_b = np.zeros((n, 4)), np.zeros((n, 4))
    ends_a, ends_b = np.zeros(n, np.int64), np.zeros(n, np.int64)
    streams_a = [np.random.default_rng(i) for i in range(n)]
    streams_b = [np.random.default_rng(i) for i in range(n)]
    learner_steps = 0
    for _ in range(400):
        # auto: one real choice per environment
        acts_b = []
        for i in range(n):
            ids = np.flatnonzero(pb[1][i])
            assert len(ids) >= 2, "a step returned with auto_forced has a choice"
            acts_b.append(streams_b[i].choice(ids))
        pb = auto.step(np.array(acts_b))
        ret_b += pb[3]
        ends_b += pb[4]
        forced_b += auto.info["forced"]
        # plain: each environment steps through its forced ids to the same choice
        for i in range(n):
            while True:
                ids = np.flatnonzero(pa[1][i])
                forced = len(ids) == 1
                a = ids[0] if forced else streams_a[i].choice(ids)
                pa = plain._env.step(np.array([a], np.int64), [i])  # environment i alone (it adds up)
                ret_a[i] += pa[3][i]
                pa[3][i] = 0
                ends_a[i] += pa[4][i]
                pa[4][i] = False
                learner_steps += 1
                if forced:
                    forced_a[i] += 1
                else:
                    break
    for i in range(n):  # plain may stand on forced ids auto has already taken
        while pa[1][i].sum() == 1:
            pa = plain._env.step(np.array([np.flatnonzero(pa[1][i])[0]], np.int64), [i])
            ret_a[i] += pa[3][i]
            pa[3][i] = 0
            ends_a[i] += pa[4][i]
            pa[4][i] = False
            forced_a[i] += 1
    assert np.array_equal(forced_a, forced_b) and np.array_equal(ret_a, ret_b) and np.array_equal(ends_a, ends_b)
    assert ends_b.sum() >= 2
    assert forced_b.sum() > 0.4 * learner_steps, "most of a learner's steps are forced (dealing passes)"
    for i in range(n):
        ga, gb = plain.game(i), auto.game(i)
        assert ga.record() == gb.record()
        for s in range(4):
            if ga.current_player is not None:
                assert ga.determinize(s, 5).record() == gb.determinize(s, 5).record()


def test_the_teacher_names_the_ids_game_policy_ids_gives():
    """info['teacher'] is Game.policy_ids' next id, drawn from derive(derive(env_seed, TEACHER,
    hand), TEACHER, actions so far); a learner that leaves the teacher's play gets -1."""
    n = 3
    env = tractor.VecEnv(n, seed=2, opponents=("greedy", None, "greedy"), teacher="greedy", auto_forced=True)
    plain = tractor.VecEnv(n, seed=2, opponents=("greedy", None, "greedy"), auto_forced=True)
    out, pout = env.reset(), plain.reset()
    rng = np.random.default_rng(3)
    checked = left = 0
    while True:
        acts = []
        for i in range(n):
            g = env.game(i)
            built = tractor.actions.encode(g.pending) if g.pending else []
            k = len(g.record()["actions"])
            es = _core.derive_seed(2, _core.VEC_ENV_TAG, i)
            ids = g.policy_ids("greedy", _core.derive_seed(_core.derive_seed(es, _core.TEACHER_TAG, 0), _core.TEACHER_TAG, k))
            want = ids[len(built)] if ids[:len(built)] == built else -1
            assert env.info["teacher"][i] == want
            checked += 1
            left += want == -1
            t = env.info["teacher"][i]
            acts.append(t if t >= 0 and rng.random() < 0.7 else rng.choice(np.flatnonzero(out[1][i])))
        out, pout = env.step(np.array(acts)), plain.step(np.array(acts))
        for a, b in zip(out, pout):
            assert np.array_equal(a, b), "a teacher never changes the game"
        if out[4].any():  # the first hand of an environment ended: its next hand has another stream
            break
    assert checked > 100 and left > 5
    assert (plain.info["teacher"] == -1).all()


def test_game_policy_ids_is_what_step_policy_applies():
    for k in range(6):
        g = tractor.Game(seed=k, profile=tractor.PROFILES[k % 3])
        step = 0
        while g.current_player is not None:
            policy = ("greedy", "random", "ismcts:iterations=20")[step % 3] if g.phase == "play" else "greedy"
            before = g.clone()
            ids = g.policy_ids(policy, step)
            act = g.policy_action(policy, step)
            assert tractor.actions.encode(act, lead=g.phase == "play" and not g.current_trick) == ids
            assert g == before, "asking changes nothing"
            g.step_policy(policy, step)
            for i in ids:
                before.step(i)
            assert before.record() == g.record()
            step += 1
    assert g.policy_ids("greedy", 0) is None and g.policy_action("greedy") is None
    with pytest.raises(InvalidPolicy, match="^policy: "):
        tractor.Game(1).policy_ids("nope", 0)
    with pytest.raises(InvalidArgument):
        tractor.Game(1).policy_ids("greedy", -1)


def test_info_reports_how_each_hand_ended():
    env = tractor.VecEnv(32, seed=1, opponents=("greedy", "greedy", "greedy"), auto_forced=True, fast_deal=True)
    _, mask, _, _, _ = env.reset()
    assert not env.info["end"].any()
    ends = {1: 0, 2: 0}
    rng = np.random.default_rng(0)
    for _ in range(400):
        _, mask, _, reward, done = env.step(np.array([rng.choice(np.flatnonzero(m)) for m in mask]))
        info = env.info
        assert np.array_equal(done, info["end"] > 0)
        for i in np.flatnonzero(done):
            ends[int(info["end"][i])] += 1
            if info["end"][i] == 1:
                o = tractor.outcome(int(info["score"][i]))
                assert bool(info["take_over"][i]) == o.defenders_take_over
                assert abs(reward[i, 0]) == (o.defender_levels if o.defenders_take_over else o.banker_levels)
            else:
                assert info["score"][i] == 0 and not reward[i].any()
        assert not info["end"][~done].any() and not info["score"][~done].any()
    assert ends[1] >= 20


def test_first_hand_only_and_resets():
    env = tractor.VecEnv(4, seed=5, opponents=("greedy", "random", "greedy"), first_hand_only=True, auto_forced=True)
    fresh = tractor.VecEnv(4, seed=5, opponents=("greedy", "random", "greedy"), first_hand_only=True, auto_forced=True)
    start = [x.copy() for x in env.reset()]
    rng = np.random.default_rng(1)
    mask = start[1]
    hands = 0
    for _ in range(300):
        _, mask, _, _, done = env.step(np.array([rng.choice(np.flatnonzero(m)) for m in mask]))
        hands += int(done.sum())
        assert all(env.game(i).levels == (3, 3) for i in range(4))
    assert hands >= 2
    kept = env.game(1).record()
    obs, *_ = env.reset(indices=[0, 3])
    assert np.array_equal(obs[0], start[0][0]) and np.array_equal(obs[3], start[0][3])
    fresh.reset()
    assert env.game(1).record() == kept
    assert env.game(0).record() == fresh.game(0).record() and env.game(3).record() == fresh.game(3).record()
    other = tractor.VecEnv(4, seed=77, opponents=("greedy", "random", "greedy"), first_hand_only=True, auto_forced=True)
    assert np.array_equal(env.reset(seed=77)[0], other.reset()[0])
    assert np.array_equal(env.reset()[0], other.reset()[0]), "the new seed stays"
    for bad in ([4], [0, 0], "0", 1.5):
        with pytest.raises(InvalidArgument):
            env.reset(indices=bad)
    with pytest.raises(InvalidArgument):
        tractor.VecEnv(2).reset(indices=[0])  # a partial reset before the first one


def test_uint8_observations_are_the_float_ones():
    a = tractor.VecEnv(8, seed=4, opponents=("greedy", None, "random"), profile="nanning")
    b = tractor.VecEnv(8, seed=4, opponents=("greedy", None, "random"), profile="nanning", obs_dtype="uint8")
    ra, rb = a.reset(), b.reset()
    rng = np.random.default_rng(2)
    scale = tractor.actions.OBS_SCALE_U8
    for _ in range(500):
        assert rb[0].dtype == np.uint8 and rb[0].shape == ra[0].shape
        assert np.array_equal(rb[0] / scale, ra[0])
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in ra[1]])
        ra, rb = a.step(acts), b.step(acts)
    with pytest.raises(InvalidArgument, match="obs_dtype"):
        tractor.VecEnv(1, obs_dtype="float16")
