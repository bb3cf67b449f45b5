"""tractor.envs.pettingzoo: PettingZoo's own API and seed tests, and what the adapter promises
(every receiver decides while dealing, returns at the end, masks, refused actions)."""

import subprocess
import sys
import warnings

import numpy as np
import pytest
from _envs_util import adapter_snippet, stopped_deal

pytest.importorskip("pettingzoo")

import tractor  # noqa: E402
from pettingzoo.test import api_test, render_test, seed_test  # noqa: E402
from tractor.envs.pettingzoo import STATE_DIM, STATE_LAYOUT, env, raw_env  # noqa: E402


def _play(e, seed, draw_seed=0):
    """Plays one hand with actions drawn from the masks; the agents in turn, the last rewards."""
    rng = np.random.default_rng(draw_seed)
    e.reset(seed=seed)
    turns, final = [], {}
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        if terminated or truncated:
            final[agent] = reward
            e.step(None)
            continue
        turns.append(agent)
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return turns, final


@pytest.mark.parametrize("fast_deal,auto_forced", [(False, False), (True, False), (False, True)])
def test_pettingzoo_api_test(fast_deal, auto_forced):
    with warnings.catch_warnings():
        # PettingZoo's advice for non-classic envs: a Dict observation is what its classic
        # card games use, and the masks of the agents not to act are all zeros
        warnings.simplefilter("ignore", UserWarning)
        # 300 cycles of 4 agents: more steps than a hand has, so the test plays to the end
        api_test(env(fast_deal=fast_deal, auto_forced=auto_forced), num_cycles=300, verbose_progress=False)


def test_pettingzoo_seed_test():
    seed_test(env, num_cycles=300)


def test_auto_forced_agents_always_have_a_choice_and_play_the_same_hand():
    rng_a, rng_b = np.random.default_rng(1), np.random.default_rng(1)
    a, b = env(), env(auto_forced=True)
    a.reset(seed=6)
    b.reset(seed=6)
    taken = {f"player_{s}": 0 for s in range(4)}
    forced_a = choices = 0
    for agent in b.agent_iter():
        obs, _, terminated, truncated, info = b.last()
        taken[agent] += info.get("forced", 0)
        if terminated or truncated:
            b.step(None)
            continue
        assert obs["action_mask"].sum() >= 2
        act = int(rng_b.choice(np.flatnonzero(obs["action_mask"])))
        while True:  # a: forced ids by hand, then the same choice
            oa = a.observe(a.agent_selection)
            if oa["action_mask"].sum() != 1:
                break
            a.step(int(np.flatnonzero(oa["action_mask"])[0]))
            forced_a += 1
        assert a.agent_selection == agent
        assert int(rng_a.choice(np.flatnonzero(a.observe(agent)["action_mask"]))) == act
        a.step(act)
        b.step(act)
        choices += 1
    while a.agents and a.unwrapped.game.phase != "over":
        a.step(int(np.flatnonzero(a.observe(a.agent_selection)["action_mask"])[0]))
        forced_a += 1
    assert a.unwrapped.game.record() == b.unwrapped.game.record()
    assert choices > 30 and forced_a > choices, (forced_a, choices)
    assert sum(taken.values()) <= forced_a


def test_pettingzoo_render_test(capsys):
    render_test(env)  # "human" prints the "ansi" text and returns None
    assert "player_0:" in capsys.readouterr().out


def test_state_is_the_whole_table():
    """state(): seat 0's observation, the other hands, trump as the declarer knows it; in the
    state space, and each hand block equal to that seat's own observation of its hand."""
    e = env()
    e.reset(seed=4)
    raw = e.unwrapped
    assert raw.state_space.shape == (STATE_DIM,) and [b[0] for b in STATE_LAYOUT][1:4] == ["hand1", "hand2", "hand3"]
    hand_at = dict((n, (a, k)) for n, a, k, _ in tractor.actions.OBS_LAYOUT)["hand"]
    rng = np.random.default_rng(0)
    declared = 0
    for agent in e.agent_iter():
        obs, _, terminated, truncated, _ = e.last()
        st = raw.state()
        assert raw.state_space.contains(st)
        g = raw.game
        assert np.array_equal(st[:tractor.actions.OBS_DIM], g.observation_tensor(0))
        for s in (1, 2, 3):
            at = tractor.actions.OBS_DIM + 54 * (s - 1)
            assert np.array_equal(st[at:at + 54], g.observation_tensor(s)[hand_at[0]:hand_at[0] + 54])
        trump = st[-5:]
        assert trump.sum() == 1
        if g.declarer is not None:
            assert trump[4] == 0  # the declarer knows its suit, also while the others do not (R8.2)
            declared += 1
        if terminated or truncated:
            e.step(None)
            continue
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert declared > 0


def test_a_hand_to_the_end_returns_the_games_returns():
    e = env()
    for seed in range(3):
        _turns, final = _play(e, seed)
        g = e.unwrapped.game
        assert g.phase == "over"
        returns = (0, 0, 0, 0) if g.result is None else g.result.returns
        assert final == {f"player_{s}": returns[s] for s in range(4)}
        assert sum(final.values()) == 0
        assert e.agents == []


def test_every_receiver_decides_after_every_card():
    e = raw_env()
    e.reset(seed=11)
    g = e.game
    assert g.every_receiver
    # while dealing, the agent to act is the receiver of the card just dealt, in play order
    seen = []
    while g.phase == "declare" and g.info(0).cards_dealt < 216:
        seen.append(int(e.agent_selection[-1]))
        obs = e.observe(e.agent_selection)
        e.step(int(np.flatnonzero(obs["action_mask"])[0]))
    first = g.info(0).first_seats[-1]
    # one decision per card dealt (the 216th card's receiver is still to decide)
    assert seen == [(first + t) % 4 for t in range(215)]


def test_fast_deal_skips_seats_that_cannot_show():
    def decisions_while_dealing(e):
        e.reset(seed=5)
        n = 0
        while e.game.phase == "declare":
            e.step(tractor.actions.PASS)
            n += 1
        return n

    fast = raw_env(fast_deal=True)
    assert decisions_while_dealing(fast) < decisions_while_dealing(raw_env())
    assert not fast.game.every_receiver


def test_observation_and_mask_are_the_games():
    e = raw_env()
    e.reset(seed=2)
    rng = np.random.default_rng(0)
    for _ in range(400):
        if e.game.phase == "over":
            break
        seat = e.game.current_player
        for s in range(4):
            obs = e.observe(f"player_{s}")
            assert obs["observation"].dtype == np.float32 and obs["observation"].shape == (636,)
            assert obs["action_mask"].dtype == np.int8 and obs["action_mask"].shape == (72,)
            np.testing.assert_array_equal(obs["observation"], e.game.observation_tensor(s))
            want = e.game.action_mask() if s == seat else np.zeros(72, bool)
            np.testing.assert_array_equal(obs["action_mask"].astype(bool), want)
            assert e.observation_space(f"player_{s}").contains(obs)
        e.step(int(rng.choice(np.flatnonzero(e.game.action_mask()))))


def test_a_play_is_built_card_by_card_by_the_same_agent():
    e = raw_env()
    e.reset(seed=4)
    while e.game.phase == "declare":
        e.step(int(np.flatnonzero(e.game.action_mask())[-1]))
    # find a lead of two or more cards: the leader stays selected until it ends the lead
    leader = e.agent_selection
    mask = e.game.action_mask()
    first = int(np.flatnonzero(mask[:54])[0])
    e.step(first)
    assert e.agent_selection == leader
    assert [int(c) for c in e.game.pending] == [first]


def test_an_illegal_action_raises_and_changes_nothing():
    e = raw_env()
    e.reset(seed=3)
    before = e.game.to_json()
    agent = e.agent_selection
    illegal = int(np.flatnonzero(~e.game.action_mask())[0])
    with pytest.raises(tractor.IllegalAction):
        e.step(illegal)
    assert e.game.to_json() == before and e.agent_selection == agent
    assert not any(e.terminations.values())


def test_reset_seeds_a_stream_of_hands():
    a, b = raw_env(), raw_env()
    a.reset(seed=9)
    b.reset(seed=9)
    assert a.game.to_json() == b.game.to_json()
    a.reset()
    assert a.game.to_json() != b.game.to_json()  # the next hand of the stream
    b.reset()
    assert a.game.to_json() == b.game.to_json()
    # hand k of stream s is the documented derivation
    g = tractor.Game.deal(tractor._core.derive_seed(9, tractor._core.BATCH_HAND_TAG, 1), every_receiver=True)
    assert g.to_json() == a.game.to_json()


def test_bad_arguments():
    E = tractor.errors
    for kwargs, cls in (({"fast_deal": 1}, E.InvalidArgument), ({"profile": "nope"}, E.InvalidContext),
                        ({"render_mode": "rgb_array"}, E.InvalidArgument)):
        with pytest.raises(tractor.TractorError) as e:
            raw_env(**kwargs)
        assert type(e.value) is cls, (kwargs, e.value)
    e = raw_env(render_mode="ansi")
    e.reset(seed=0)
    assert "player_0:" in e.render()


def test_import_error_names_the_extra():
    code = (
        "import sys; sys.modules['pettingzoo'] = None\n"
        "import tractor.envs\n"
        "try:\n"
        "    import tractor.envs.pettingzoo\n"
        "except ImportError as e:\n"
        "    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert 'pip install "tractor-engine[pettingzoo]"' in out


def test_readme_snippet_runs():
    ns: dict = {}
    exec(compile(adapter_snippet("tractor.envs.pettingzoo"), "README adapters", "exec"), ns)  # noqa: S102
    assert ns["e"].agents == [] and ns["e"].unwrapped.game.phase == "over"


def test_a_hand_without_any_decision_is_skipped(monkeypatch):
    import tractor.envs.pettingzoo as adapter

    real, calls = adapter._deal, []

    def deal(hand_seed, profile, fast_deal):
        calls.append(hand_seed)
        return stopped_deal() if len(calls) == 1 else real(hand_seed, profile, fast_deal)

    e = raw_env(fast_deal=True)
    monkeypatch.setattr(adapter, "_deal", deal)
    e.reset(seed=3)
    assert e.game.phase == "declare" and not any(e.terminations.values())
    assert calls == [tractor._core.derive_seed(3, tractor._core.BATCH_HAND_TAG, k) for k in (0, 1)]
