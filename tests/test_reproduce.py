"""Issue 22: the documented seed derivation is public (``tractor.derive``), and a loop written
by hand with :class:`tractor.Player` reproduces ``simulate``'s hands exactly."""

from __future__ import annotations

import pytest

import tractor
from tractor import Player, derive
from tractor.errors import InvalidArgument, InvalidPolicy


@pytest.mark.parametrize("policies", [
    ["greedy"] * 4,
    ["greedy", "random", "greedy", "random"],
    ["random", "greedy", "bc-greedy-v1", "greedy"],
])
def test_a_hand_written_loop_reproduces_simulate(policies):
    seed, n = 11, 40
    run = tractor.simulate(n, policies, seed=seed, threads=2)
    a = run.arrays
    for i in range(n):
        hs = derive(seed, "batch_hand", i)
        assert a["seed"][i] == hs
        g = tractor.Game.deal(hs)
        players = [Player(policies[p], derive(hs, "policy", p)) for p in range(4)]
        while g.current_player is not None:
            players[g.current_player].step(g)
        if g.stopped:
            assert a["stopped"][i]
            continue
        assert (a["score"][i], a["banker"][i], a["trump"][i]) == (g.result.score, g.banker, "shdc".index(g.trump))
        assert tuple(int(a[f"return{p}"][i]) for p in range(4)) == g.result.returns
        assert a["decisions"][i] == len(g.record()["actions"])


def test_derive_and_player_refuse_bad_input():
    assert derive(7, "batch_hand", 0) == tractor._core.derive_seed(7, tractor._core.BATCH_HAND_TAG, 0)
    assert derive(7, 3, 0) == derive(7, "BATCH_HAND", 0)
    for bad in (("x", "policy", 0), (-1, "policy", 0), (1, "nope", 0), (1, True, 0), (1, "policy", 2**64)):
        with pytest.raises(InvalidArgument):
            derive(*bad)
    with pytest.raises(InvalidPolicy):
        Player("nonsense", 1)
    with pytest.raises(InvalidArgument):
        Player("greedy", -1)
    with pytest.raises(InvalidArgument):
        Player("greedy", 1).step("game")  # type: ignore[arg-type]
    p = Player("GREEDY", 3)
    assert p.policy == "greedy" and "greedy" in repr(p)
    g = tractor.Game(seed=1)
    g.play_random(1)
    assert p.step(g) is False  # over
