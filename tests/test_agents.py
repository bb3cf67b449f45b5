"""The shipped agents: every name is a policy name wherever one is taken; the learned agents'
weights are in the package and play from them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tractor
from tractor import _weights, agents, nets


def test_every_agent_name_is_a_policy_everywhere():
    assert {"random", "greedy", "pimc-16", "ismcts-1000"} <= set(agents.AGENTS)
    for name, a in agents.AGENTS.items():
        assert a.name == name and a.kind in ("built-in", "search", "learned") and a.about
        if a.kind != "search":  # the searches are slow: one short hand below
            r = tractor.simulate(hands=4, policies=(name, "greedy", name, "greedy"), seed=1)
            assert r.policies[0] == (a.policy if a.kind == "learned" else name)
    g = tractor.Game(seed=2)
    while g.phase == "declare":
        g.step_policy("greedy", 1)
    assert g.step_policy("PIMC-16", 3)  # names are case-blind, as policy names are


def test_the_search_presets_are_the_core_s_and_defined_there_once():
    """The core's Policy::PRESETS (rust/core/src/policy.rs) holds the presets and reads their
    names wherever it takes a policy name; nothing else spells what they stand for."""
    presets = dict(tractor._core.PRESETS)
    assert agents.SEARCH_PRESETS == {**presets, **_weights.GUIDED} and list(presets) == ["pimc-16", "ismcts-1000"]
    for name, text in presets.items():  # the core reads the name itself, named back canonically
        assert tractor._core.policy_name(name) == tractor._core.policy_name(text) != name
        assert agents.AGENTS[name].policy == text and agents.AGENTS[name].kind == "search"
    root = Path(__file__).resolve().parents[1]
    sources = [*root.glob("python/tractor/**/*.py"), *root.glob("rust/**/*.rs"), *root.glob("tests/**/*.py")]
    for text in presets.values():
        spelled = [str(p.relative_to(root)) for p in sources if text in p.read_text(encoding="utf-8")]
        assert spelled == ["rust/core/src/policy.rs"], (text, spelled)


def test_a_search_guided_by_a_shipped_network_is_its_search_spelled_out_by_name():
    """``_weights.GUIDED``: searches with a shipped network as their prior; the name stands for
    that search with the network's file everywhere a policy name is taken."""
    assert list(_weights.GUIDED) == ["ismcts-1000-play-net-v1", "ismcts-500-play-net-v4", "ismcts-2000-play-net-v4-from-27"]
    g = tractor.Game(seed=4)
    while g.phase == "declare":
        g.step_policy("greedy", 1)
    for name, text in _weights.GUIDED.items():
        a = agents.AGENTS[name]
        assert a.kind == "search" and a.policy == text and "prior=net:" in _weights.resolve(name.upper())
        assert _weights.named(name)
        assert g.policy_action(name, 7) == g.policy_action(text, 7) == g.policy_action(_weights.resolve(text), 7)


def test_the_learned_agents_ship_and_play():
    learned = [a for a in agents.AGENTS.values() if a.kind == "learned" and a.policy.startswith("net:")]
    assert learned, "at least one learned network is in the package (tests/test_tuned_greedy.py: tuned weights)"
    for a in learned:
        path = a.policy[len("net:"):]
        assert path.startswith(str(_weights.FOLDER)) and path.endswith(".tnet")
        if _weights.play_meta(path) is not None:  # a network over whole plays (docs/training.md)
            assert "whole plays" in a.about and "tractor train" in a.about, a.about
        else:
            net = nets.Net(path)
            assert net.canonical and "train_net.py" in a.about
            g = tractor.Game(seed=5)
            assert np.asarray(net.logits(g, g.current_player)).shape == (72,)
        res = tractor.arena.play([a.name, "random"], deals=40, cost=False, bootstrap=0)
        assert res.labels == [a.name, "random"] and res.policies[0] == a.policy
        assert res.pairings[0].summary()["levels_per_deal"] > 0.5, "a learned agent beats random"
