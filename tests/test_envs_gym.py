"""tractor.envs.gym: Gymnasium's own checker, and what the adapter promises (the learner's
return at the end, masks in info, refused actions with strict=False, IllegalAction with
strict=True, the opponents' seats)."""

import subprocess
import sys

import numpy as np
import pytest
from _envs_util import adapter_snippet, stopped_deal

gymnasium = pytest.importorskip("gymnasium")

import tractor  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402
from tractor.envs.gym import ENV_ID, TractorEnv  # noqa: E402


def _play(env, seed, draw_seed=0):
    rng = np.random.default_rng(draw_seed)
    obs, info = env.reset(seed=seed)
    total, steps = 0.0, 0
    while True:
        a = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, reward, terminated, truncated, info = env.step(a)
        assert not truncated and not info["illegal_action"]
        total += reward
        steps += 1
        if terminated:
            return total, steps
        assert reward == 0.0


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"dict_obs": True},
        {"seat": 3, "opponents": ("random", "greedy", "random"), "fast_deal": True},
        {"profile": "nanning"},
    ],
)
def test_check_env(kwargs):
    env = TractorEnv(**kwargs)
    # the default strict=False: check_env's unmasked random actions are refused, not raised
    check_env(env.unwrapped, skip_render_check=True)


def test_check_env_through_make():
    env = gymnasium.make(ENV_ID, render_mode="ansi")
    assert isinstance(env.unwrapped, TractorEnv)
    check_env(env.unwrapped)


def test_human_render_prints_the_ansi_text(capsys):
    env = TractorEnv(render_mode="human")
    env.reset(seed=1)
    assert env.render() is None
    printed = capsys.readouterr().out
    env.render_mode = "ansi"
    assert printed.rstrip("\n") == env.render()
    # Gymnasium's render check, the other render modes included (through the registered spec)
    check_env(gymnasium.make(ENV_ID, render_mode="human").unwrapped)


def test_auto_forced_steps_are_choices_with_the_same_game():
    rng_a, rng_b = np.random.default_rng(0), np.random.default_rng(0)
    a, b = TractorEnv(seat=1), TractorEnv(seat=1, auto_forced=True)
    (_, ia), (_, ib) = a.reset(seed=5), b.reset(seed=5)
    forced = ib["forced"]
    steps_a = steps_b = 0
    done = False
    while not done:
        assert ib["action_mask"].sum() >= 2
        act = int(rng_b.choice(np.flatnonzero(ib["action_mask"])))
        while ia["action_mask"].sum() == 1:  # a takes its forced ids itself
            _, ra, done_a, _, ia = a.step(int(np.flatnonzero(ia["action_mask"])[0]))
            steps_a += 1
        assert int(rng_a.choice(np.flatnonzero(ia["action_mask"]))) == act
        _, ra, done_a, _, ia = a.step(act)
        _, rb, done, _, ib = b.step(act)
        forced += ib["forced"]
        steps_b += 1
        while not done_a and ia["action_mask"].sum() == 1 and done:
            _, ra, done_a, _, ia = a.step(int(np.flatnonzero(ia["action_mask"])[0]))
            steps_a += 1
        assert (ra, done_a) == (rb, done)
    assert a.game.record() == b.game.record() and steps_a == forced and steps_b > 10


def test_reward_is_the_learner_seats_return():
    for seat in (0, 1):
        env = TractorEnv(seat=seat, opponents=("random", "greedy", "random"))
        for seed in range(2):
            total, _ = _play(env, seed)
            assert env.game.phase == "over"
            returns = (0, 0, 0, 0) if env.game.result is None else env.game.result.returns
            assert total == float(returns[seat])


def test_the_learner_acts_only_at_its_seat_and_every_receiver_decides():
    env = TractorEnv(seat=2)
    obs, info = env.reset(seed=1)
    decisions_while_dealing = 0
    while env.game.phase == "declare":
        assert env.game.current_player == 2
        np.testing.assert_array_equal(obs, env.game.observation_tensor(2))
        np.testing.assert_array_equal(info["action_mask"].astype(bool), env.game.action_mask())
        obs, _, _, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        decisions_while_dealing += 1
    # one decision for each of its 54 cards at least (plus the final round, R8.3)
    assert decisions_while_dealing >= 54


def test_fast_deal_skips_decisions():
    def dealing_decisions(env):
        obs, info = env.reset(seed=1)
        n = 0
        while env.game.phase == "declare":
            obs, _, _, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
            n += 1
        return n

    assert dealing_decisions(TractorEnv(fast_deal=True)) < dealing_decisions(TractorEnv())


def test_an_illegal_action_is_refused_or_raises():
    env = TractorEnv()
    obs, info = env.reset(seed=6)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    before = env.game.to_json()
    obs2, reward, terminated, truncated, info2 = env.step(illegal)
    assert info2["illegal_action"] and reward == 0.0 and not terminated and not truncated
    assert env.game.to_json() == before
    np.testing.assert_array_equal(obs, obs2)

    strict = TractorEnv(strict=True)
    strict.reset(seed=6)
    with pytest.raises(tractor.IllegalAction):
        strict.step(illegal)
    assert strict.game.to_json() == before
    with pytest.raises(tractor.TractorError):
        strict.step(72)  # not an action id at all, whatever strict says
    with pytest.raises(tractor.TractorError):
        env.step(-1)


def test_stepping_a_finished_hand_raises():
    env = TractorEnv(opponents=("random",) * 3)
    _play(env, 0)
    with pytest.raises(tractor.IllegalAction):
        env.step(55)
    assert not env.action_masks().any()


def test_seeds():
    a, b = TractorEnv(seed=21), TractorEnv()
    a.reset()
    b.reset(seed=21)
    assert a.game.to_json() == b.game.to_json()
    a.reset()
    b.reset()
    assert a.game.to_json() == b.game.to_json()
    # hand k of stream s is the documented derivation (the deal, before the policies act)
    k1 = tractor._core.derive_seed(21, tractor._core.BATCH_HAND_TAG, 1)
    assert a.game.record()["start"] == tractor.Game.deal(k1, every_receiver=True).record()["start"]
    # the constructor's seed serves the first reset only, and only when it has no seed
    c = TractorEnv(seed=21)
    c.reset(seed=4)
    c.reset()
    d = TractorEnv()
    d.reset(seed=4)
    d.reset()
    assert c.game.to_json() == d.game.to_json()
    assert _play(TractorEnv(), 8, 1) == _play(TractorEnv(), 8, 1)


def test_opponents_play_their_policies():
    # seat 1 learns; seats 2, 3, 0 are greedy, random, greedy in that order
    env = TractorEnv(seat=1, opponents=("greedy", "random", "greedy"))
    assert env.policies == ("greedy", None, "greedy", "random")


def test_bad_arguments():
    E = tractor.errors
    for kwargs, cls in (
        ({"seat": 4}, E.InvalidSeat),
        ({"opponents": ("greedy",) * 2}, E.InvalidArgument),
        ({"opponents": "greedy"}, E.InvalidArgument),
        ({"opponents": ("greedy", "nope", "greedy")}, E.InvalidPolicy),
        ({"fast_deal": "yes"}, E.InvalidArgument),
        ({"strict": 1}, E.InvalidArgument),
        ({"profile": "nope"}, E.InvalidContext),
        ({"render_mode": "rgb_array"}, E.InvalidArgument),
        ({"auto_forced": 1}, E.InvalidArgument),
    ):
        with pytest.raises(tractor.TractorError) as e:
            TractorEnv(**kwargs)
        assert type(e.value) is cls, (kwargs, e.value)


def test_import_error_names_the_extra():
    code = (
        "import sys; sys.modules['gymnasium'] = None\n"
        "try:\n"
        "    import tractor.envs.gym\n"
        "except ImportError as e:\n"
        "    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert 'pip install "tractor-engine[gym]"' in out


def test_readme_snippet_runs():
    ns: dict = {}
    exec(compile(adapter_snippet("tractor.envs.gym"), "README adapters", "exec"), ns)  # noqa: S102
    assert not ns["info"]["illegal_action"] and ns["obs"].shape == (636,)


def test_a_hand_over_before_the_learner_decides_is_skipped(monkeypatch):
    import tractor.envs.gym as adapter

    real, calls = adapter._deal, []

    def deal(hand_seed, profile, fast_deal):
        calls.append(hand_seed)
        return stopped_deal() if len(calls) == 1 else real(hand_seed, profile, fast_deal)

    env = TractorEnv(seat=0, fast_deal=True)
    monkeypatch.setattr(adapter, "_deal", deal)
    obs, info = env.reset(seed=3)
    assert env.game.phase != "over" and env.game.current_player == 0 and info["action_mask"].any()
    assert calls == [tractor._core.derive_seed(3, tractor._core.BATCH_HAND_TAG, k) for k in (0, 1)]
