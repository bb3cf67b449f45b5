"""Learning: frozen action ids, card-by-card play building, tensor observations and VecEnv.
The exhaustive twin of the masks is rust/core/tests/actions.rs."""

from __future__ import annotations

import copy
import pickle
import random

import numpy as np
import pytest

import tractor
from tractor import Game, IllegalAction, TractorError, VecEnv
from tractor import actions
from tractor.actions import END_LEAD, NUM_ACTIONS, OBS_DIM, OBS_LAYOUT, PASS, SHOW


def _random_id(g: Game, rng: random.Random) -> int:
    return rng.choice(np.flatnonzero(g.action_mask()).tolist())


def _positions(n: int, every_receiver: bool = True, seed: int = 3):
    """Games at random points of random id-by-id play (pending selections included)."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        g = Game.deal(rng.randrange(2**32), every_receiver=every_receiver)
        stop = rng.randrange(900)
        k = 0
        while g.phase != "over" and k < stop:
            g.step(_random_id(g, rng))
            k += 1
        if g.phase != "over":
            out.append(g)
    return out


def test_ids_are_frozen():
    assert (NUM_ACTIONS, END_LEAD, PASS, SHOW) == (72, 54, 55, 56)
    assert actions.show_id("s", 1) == 56 and actions.show_id("c", 4) == 71 and actions.show_id(1, 2) == 61
    assert actions.describe(0) == "add 2s" and actions.describe(54) == "end lead"
    assert actions.describe(55) == "pass" and actions.describe(61) == "show 2h"
    assert actions.encode(tractor.Pass()) == [55]
    assert actions.encode(tractor.Declare("d", 3)) == [56 + 2 * 4 + 2]
    assert actions.encode("5h 4h 4h 5h", lead=True) == [15, 15, 16, 16, 54]
    assert actions.encode("BJ SJ") == [52, 53]
    for ids in ([55], [63], [15, 15, 16, 16, 54], [52, 53]):
        assert actions.encode(actions.decode(ids), lead=ids[-1] == 54) == ids
    for bad in ([], [54], [16, 15], [0, 0, 0, 0, 0], [72], [-1], "55", [True]):
        with pytest.raises(TractorError):
            actions.decode(bad)


def test_masked_walks_play_legal_hands_and_record_them():
    rng = random.Random(5)
    for seed in range(6):
        g = Game.deal(seed, every_receiver=True)
        while g.phase != "over":
            seat = g.current_player
            m = g.action_mask()
            assert m.dtype == bool and m.shape == (72,) and m.any()
            if g.phase == "declare":
                assert m[PASS] and not m[:55].any()
            else:
                assert not m[55:].any()
                assert m[END_LEAD] == (g._g.is_leading() and len(g.pending) > 0 and
                                       tractor.Context(g.level, g.trump).classify(g.pending) is not None)
            before = g.to_json()
            applied = g.step(_random_id(g, rng))
            if not applied:
                assert g.current_player == seat and g.to_json() == before and g.pending
        replay = Game.from_json(g.to_json())
        assert replay == g and replay.every_receiver and replay.result == g.result


def test_masks_agree_with_the_legal_plays_on_many_positions():
    # every legal play's ids pass the masks; every masked walk ends in a legal play
    rng = random.Random(9)
    checked = 0
    for g in _positions(250):
        if g.phase != "play" or g.pending:
            continue
        legal = g.legal_actions()
        n = legal.count()
        plays = list(legal) if n <= 200 else [legal.sample(rng.randrange(2**32)) for _ in range(50)]
        lead = g._g.is_leading()
        for p in plays:
            h = g.clone()
            ids = actions.encode(p, lead=lead)
            for i, a in enumerate(ids):
                assert h.action_mask()[a], (p, ids, i)
                assert h.step(a) == (i + 1 == len(ids))
            assert h.record()["actions"][-1][2] == " ".join(str(c) for c in p.cards)
        for _ in range(5):
            h, done = g.clone(), False
            while not done:
                done = h.step(_random_id(h, rng))
            assert h.record()["actions"][-1][2] in legal  # a legal play of the position
        checked += 1
    assert checked >= 60


def test_refused_ids_raise_name_the_rule_and_change_nothing():
    rng = random.Random(2)
    for g in _positions(60):
        m = g.action_mask()
        before, pend = g.to_json(), g.pending
        for a in rng.sample([i for i in range(72) if not m[i]], k=min(8, int((~m).sum()))):
            with pytest.raises(IllegalAction) as e:
                g.step(a)
            assert "R" in e.value.rule if hasattr(e.value, "rule") else "R" in str(e.value)
            assert g.to_json() == before and g.pending == pend and (g.action_mask() == m).all()
    g = Game.deal(1)
    for bad in (72, -1, 2**63, float("nan"), "1", None, True, np.float32(3)):
        with pytest.raises(TractorError):
            g.step(bad)
    assert g.step(np.int64(55)) in (True, False)


def test_pending_survives_pickle_copy_and_json_replays_without_it():
    rng = random.Random(4)
    found = 0
    for g in _positions(80):
        if not g.pending:
            continue
        found += 1
        assert Game.from_json(g.to_json()) != g  # the same record without the selection
        for h in (pickle.loads(pickle.dumps(g)), copy.copy(g), copy.deepcopy(g), g.clone()):
            assert h == g and h.pending == g.pending and (h.action_mask() == g.action_mask()).all()
        a = _random_id(g, rng)
        h = pickle.loads(pickle.dumps(g))
        assert g.step(a) == h.step(a) and g == h
    assert found >= 5


def test_layout_is_contiguous():
    at = 0
    for name, off, length, meaning in OBS_LAYOUT:
        assert off == at and length > 0 and meaning
        at += length
    assert at == OBS_DIM == 636


def test_observation_tensor_hides_what_the_seat_cannot_see():
    # a world from determinize differs only in cards the seat cannot see
    rng = random.Random(8)
    n = 0
    for every in (True, False):
        for g in _positions(40, every_receiver=every, seed=21):
            for seat in range(4):
                w = g.determinize(seat, rng.randrange(2**32))
                if seat == g.current_player:
                    assert w.pending == g.pending  # the seat's own selection goes with it
                for canon in (False, True):
                    a = g.observation_tensor(seat, canonical_suits=canon)
                    b = w.observation_tensor(seat, canonical_suits=canon)
                    assert (a == b).all(), (seat, canon)
                n += 1
    assert n >= 250


def test_observation_tensor_fields():
    g = Game.from_deal(["AhAhKh 3s", "5h5h4s 6s", "2c3c4c5c", "6c7c8c9c"], level=10, trump="h", banker=0)
    off = {name: (o, k) for name, o, k, _ in OBS_LAYOUT}
    o = g.observation_tensor(0)
    hand = o[off["hand"][0]:][:54]
    assert hand[25] == 0.5 and hand[24] == 0.25 and hand[1] == 0.25  # Ah Ah, Kh, 3s
    g.step(25)
    o = g.observation_tensor(0)
    assert o[off["pending"][0] + 25] == 0.25
    assert o[off["pending"][0]:][:54].sum() == 0.25
    assert (g.observation_tensor(1)[off["pending"][0]:][:54] == 0).all()  # not seat 1's
    g.step(25)
    g.step(54)  # AhAh led
    o1 = g.observation_tensor(1)
    # seat 0 is seat 1's relative seat 3
    assert o1[off["trick"][0] + 3 * 54 + 25] == 0.5 and o1[off["trick_leader"][0] + 3] == 1
    assert o1[off["to_move"][0]] == 1 and o1[off["phase"][0] + 2] == 1
    out = np.zeros(OBS_DIM, dtype=np.float32)
    assert g.observation_tensor(2, out=out) is out
    for bad in (np.zeros(OBS_DIM, dtype=np.float64), np.zeros(10, dtype=np.float32), [0.0] * OBS_DIM,
                np.zeros((2, OBS_DIM), dtype=np.float32)[:, 0]):
        with pytest.raises(TractorError):
            g.observation_tensor(0, out=bad)
    for seat in (4, -1, 2**63, "0", None):
        with pytest.raises(TractorError):
            g.observation_tensor(seat)
    # canonical suits: trump (hearts) becomes the first suit
    c = g.observation_tensor(0, canonical_suits=True)
    assert c[off["hand"][0] + 11] == 0.25  # Kh -> K of the first suit
    assert c[off["trump"][0]] == 1


def test_voids_in_the_tensor_are_the_public_r52_voids():
    # a seat is proven void in a class once it followed a lead of it with fewer of its cards
    # (R5.2); every such void is also in each seat's info set
    n = found = 0
    off = [o for name, o, _, _ in OBS_LAYOUT if name == "void"][0]
    for g in _positions(60, seed=13):
        if g.phase != "play":
            continue
        classes = tractor._core.Context(g.level, "shdc".index(g.trump), g.profile).classes()
        want = np.zeros((4, 5), dtype=np.float32)
        plays = [t.plays for t in g.tricks] + [g.current_trick]
        for trick in plays:
            if not trick:
                continue
            lead = trick[0][1]
            cls, size = classes[int(lead[0])], len(lead)
            for seat, cards in trick[1:]:
                if sum(classes[int(c)] == cls for c in cards) < size:
                    want[seat, cls] = 1
        found += int(want.sum())
        for seat in range(4):
            t = g.observation_tensor(seat)[off:off + 20].reshape(4, 5)
            info = g.info(seat).voids
            for r in range(4):
                assert (t[r] == want[(seat + r) % 4]).all()
                assert (info[(seat + r) % 4] >= (t[r] > 0)).all()
        n += 1
    assert n >= 20 and found >= 20


def _run(env: VecEnv, steps: int, seed: int):
    rng = np.random.default_rng(seed)
    obs, mask, seat, reward, done = env.reset()
    trace = [obs.copy(), mask.copy(), seat.copy()]
    total = np.zeros(4)
    ends = 0
    for _ in range(steps):
        u = rng.random(mask.shape) * mask
        a = u.argmax(axis=1)
        obs, mask, seat, reward, done = env.step(a)
        assert mask.any(axis=1).all()
        assert (reward.sum(axis=1) == 0).all()
        assert (reward[~done] == 0).all()
        total += reward.sum(axis=0)
        ends += int(done.sum())
        trace.append(obs.sum(axis=1).copy())
        trace.append(seat.copy())
    return trace, ends, total


def test_vec_env_is_deterministic_and_thread_independent():
    a, ends, _ = _run(VecEnv(6, seed=3, threads=1), 1500, 0)
    b, _, _ = _run(VecEnv(6, seed=3, threads=2), 1500, 0)
    assert ends >= 6
    assert all((x == y).all() for x, y in zip(a, b))
    c, _, _ = _run(VecEnv(6, seed=4, threads=2), 50, 0)
    assert not all((x == y).all() for x, y in zip(a[:3], c[:3]))


def test_vec_env_against_built_in_policies():
    env = VecEnv(4, seed=1, opponents=("greedy", "random", "greedy"), threads=2)
    obs, mask, seat, reward, done = env.reset()
    assert (seat == 0).all() and obs.shape == (4, OBS_DIM) and mask.shape == (4, 72)
    rng = np.random.default_rng(1)
    ends = 0
    for _ in range(3000):
        a = (rng.random(mask.shape) * mask).argmax(axis=1)
        obs, mask, seat, reward, done = env.step(a)
        assert (seat == 0).all()
        ends += int(done.sum())
    assert ends >= 4
    # the env's game is a real game: its obs and mask are the env's
    g = env.game(2)
    assert (g.observation_tensor(0) == obs[2]).all() and (g.action_mask() == mask[2]).all()
    two = VecEnv(2, seed=1, opponents=(None, "random", None, "ismcts:iterations=20"), fast_deal=True)
    o, m, s, r, d = two.reset()
    assert set(s.tolist()) <= {0, 2}


def test_vec_env_refuses_bad_input_and_changes_nothing():
    env = VecEnv(3, seed=2)
    with pytest.raises(TractorError):
        env.step(np.zeros(3, dtype=np.int64))  # before reset
    obs, mask, seat, reward, done = env.reset()
    snap = [x.copy() for x in (obs, mask, seat)]
    bad = np.array([int(np.flatnonzero(~mask[i])[0]) for i in range(3)])
    with pytest.raises(IllegalAction, match="environment 0"):
        env.step(bad)
    for b in (np.zeros(2, dtype=np.int64), np.zeros((3, 1), dtype=np.int64), np.array([0.5, 1, 2]), "abc",
              np.array([72, 0, 0]), np.array([-1, 0, 0])):
        with pytest.raises(TractorError):
            env.step(b)
    assert all((x == y).all() for x, y in zip(snap, (obs, mask, seat)))
    good = np.array([int(np.flatnonzero(mask[i])[0]) for i in range(3)])
    env.step(good)
    E = tractor.errors
    for kw, cls in (({"num_envs": 0}, E.InvalidArgument), ({"num_envs": 2**40}, E.InvalidArgument),
                    ({"num_envs": 65_537}, E.InvalidArgument), ({"num_envs": 1, "seed": -1}, E.InvalidArgument),
                    ({"num_envs": 1, "profile": "x"}, E.InvalidContext),
                    ({"num_envs": 1, "opponents": ("greedy",) * 4}, E.InvalidArgument),
                    ({"num_envs": 1, "opponents": ("nope", "random", "random")}, E.InvalidPolicy),
                    ({"num_envs": 1, "opponents": "greedy"}, E.InvalidArgument),
                    ({"num_envs": 1, "threads": 0}, E.InvalidArgument),
                    ({"num_envs": 1, "fast_deal": 1}, E.InvalidArgument),
                    ({"num_envs": 1, "opponents": (None, 3, None, None)}, E.InvalidPolicy)):
        with pytest.raises(TractorError) as e:
            VecEnv(**kw)
        assert type(e.value) is cls, (kw, e.value)


def test_fast_deal_skips_seats_that_cannot_show_and_every_receiver_does_not():
    slow, fast = Game.deal(7, every_receiver=True), Game.deal(7)
    # the default deal stops only where someone can show: its first stop is after several cards
    assert fast._g.dealt >= slow._g.dealt == 1
    assert slow.current_player == slow._g.first_seat


def test_vec_env_seeds_are_the_documented_derivation():
    from tractor._core import MATCH_HAND_TAG, MATCH_TAG, VEC_ENV_TAG, derive_seed

    env = VecEnv(3, seed=11)
    env.reset()
    for i in range(3):
        match_seed = derive_seed(derive_seed(11, VEC_ENV_TAG, i), MATCH_TAG, 0)
        want = Game.deal(derive_seed(match_seed, MATCH_HAND_TAG, 0), every_receiver=True)
        assert env.game(i) == want


@pytest.mark.parametrize("profile", ["nanning", "competition"])
def test_vec_env_and_masks_under_every_profile(profile):
    env = VecEnv(4, seed=6, profile=profile, opponents=(None, "greedy", None, "greedy"), threads=2)
    a, ends, total = _run(env, 2500, 1)
    assert ends >= 4
    g = Game.deal(5, profile=profile, every_receiver=True)
    rng = random.Random(1)
    while g.phase != "over":
        g.step(_random_id(g, rng))
    assert g.profile == profile and Game.from_json(g.to_json()) == g


def test_whole_actions_are_refused_while_a_play_is_being_built():
    g = Game.deal(1, every_receiver=True)
    while not (g.phase == "play" and g._g.is_leading()):
        g.step_policy("greedy", 0)
    g.step(int(np.flatnonzero(g.action_mask())[0]))
    before, pend = g.to_json(), g.pending
    lead = g.legal_actions()[0]
    for call in (lambda: g.step_policy("greedy", 0), lambda: g.step_random(1), lambda: g.play_random(2),
                 lambda: g.apply(lead)):
        with pytest.raises(IllegalAction, match="being built"):
            call()
        assert g.to_json() == before and g.pending == pend
    g.clear_pending()
    assert g.pending == [] and g.step_policy("greedy", 0)


def test_canonical_ids_map_choices_on_renamed_observations_back():
    from tractor.actions import FROM_CANONICAL, TO_CANONICAL

    for t in range(5):
        assert sorted(TO_CANONICAL[t]) == list(range(72))
        assert (FROM_CANONICAL[t][TO_CANONICAL[t]] == np.arange(72)).all()
    assert (TO_CANONICAL[4] == np.arange(72)).all() and TO_CANONICAL[2][26] == 0  # 2d -> 2 of the first suit
    hand = [o for name, o, _, _ in OBS_LAYOUT if name == "hand"][0]
    rng = random.Random(3)
    n = 0
    for g in _positions(80, seed=5):
        seat = g.current_player
        t = g.known_trump(seat)
        row = 4 if t is None else "shdc".index(t)
        real, canon = g.observation_tensor(seat), g.observation_tensor(seat, canonical_suits=True)
        assert (canon[hand:hand + 54][TO_CANONICAL[row][:54]] == real[hand:hand + 54]).all()
        mask = g.action_mask()
        cmask = mask[FROM_CANONICAL[row]]
        j = rng.choice(np.flatnonzero(cmask).tolist())
        assert mask[FROM_CANONICAL[row, j]]
        n += row < 4
    assert n >= 20
    env = VecEnv(3, seed=1, canonical_suits=True)
    obs, mask, seat, _, _ = env.reset()
    kt = env.known_trumps()
    assert kt.shape == (3,) and set(kt.tolist()) <= set(range(5))
    for i in range(3):
        assert env.game(i).known_trump(int(seat[i])) == (None if kt[i] == 4 else "shdc"[kt[i]])
