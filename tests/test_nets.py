"""Integer networks: the Rust kernel equals an exact integer emulation, the quantized logits lie
within the stated bound of the float network, weights files round-trip and damage is refused,
and a network sees only what its seat knows."""

from __future__ import annotations

import numpy as np
import pytest

import tractor
from tractor import _core, nets
from tractor.errors import InvalidArgument, InvalidPolicy, TractorError
import os


def _layers(seed, h1=48, h2=24, scale=1.0):
    rng = np.random.default_rng(seed)
    d = _core.OBS_DIM
    return (rng.normal(0, 0.15 * scale, (h1, d)), rng.normal(0.2, 0.2, h1), rng.normal(0, 0.3 * scale, (h2, h1)),
            rng.normal(0, 0.2, h2), rng.normal(0, 0.5 * scale, (72, h2)), rng.normal(0, 0.3, 72))


def _positions(n_games=24):
    """(game copy, seat to move, its observation) at many decisions of random hands, all profiles."""
    out = []
    for k in range(n_games):
        g = tractor.Game(seed=k, profile=tractor.PROFILES[k % 3])
        step = 0
        while g.current_player is not None:
            if step % 5 == 0:
                s = g.current_player
                out.append((g.clone(), s, g.observation_tensor(s)))
            g.step_random(step)
            step += 1
    return out


def _int_logits(net, obs):
    q1, qb1, q2, qb2, q3, qb3 = (a.astype(np.int64) for a in net.arrays)
    h1, h2, s1, s2 = net.shape
    n = np.rint(np.asarray(obs, np.float64) * nets.OBS_SCALE).astype(np.int64)
    a1 = np.clip((n @ q1 + qb1) >> s1, 0, nets.ONE)
    a2 = np.clip((a1 @ q2.T + qb2) >> s2, 0, nets.ONE)
    return a2 @ q3.T + qb3


def test_the_kernel_and_the_float_reference():
    layers = _layers(1)
    net = nets.quantize(layers, meta='{"name": "test"}')
    pos = _positions()
    assert len(pos) > 500
    obs = np.stack([o for _, _, o in pos])
    got = np.stack([net.logits(g, s) for g, s, _ in pos]).astype(np.int64)
    assert np.array_equal(got, _int_logits(net, obs)), "the Rust kernel is the integer network, exactly"
    err = np.abs(got / nets.OUT_SCALE - nets.forward_float(layers, obs))
    bound = nets.quantization_bound(layers, net, obs)
    assert (err <= bound + 1e-9).all(), float((err - bound).max())
    # the bound is worst-case over every rounding (here its median is about 0.6 logit); the
    # error itself is far smaller (median about 0.02, the logits spreading over about 1.2)
    assert np.median(bound) < 1 and np.median(err) < 0.05
    # the quantized network mostly picks the float network's id among the legal ones
    agree = 0
    for (g, s, o), li in zip(pos, got):
        mask = g.action_mask()
        f = nets.forward_float(layers, o)[0]
        agree += int(np.argmax(np.where(mask, li, np.iinfo(np.int64).min)) == np.argmax(np.where(mask, f, -np.inf)))
    assert agree / len(pos) > 0.9


def test_weights_files_round_trip_and_damage_is_refused(tmp_path):
    net = nets.quantize(_layers(2, 16, 8), meta='{"name": "small"}')
    path = tmp_path / "small.tnet"
    net.save(str(path))
    back = nets.Net(str(path))
    assert back.to_bytes() == net.to_bytes() and back.shape == (16, 8, 6, 6) and back.meta == '{"name": "small"}'
    data = bytearray(path.read_bytes())
    data[100] ^= 1
    with pytest.raises(InvalidPolicy, match="CRC"):
        nets.Net(bytes(data))
    with pytest.raises(InvalidPolicy, match="not a weights file"):
        nets.Net(b"not a net")
    with pytest.raises(InvalidArgument, match="cannot read"):
        nets.Net(str(tmp_path / "missing.tnet"))
    with pytest.raises(InvalidArgument, match="bytes or the path"):
        nets.Net(5)


def test_quantize_refuses_what_does_not_fit():
    with pytest.raises(TractorError, match="W1 does not fit int16"):
        nets.quantize(_layers(3, 8, 4, scale=10.0))
    big = list(_layers(3, 8, 4))
    big[2] = big[2] * 20
    with pytest.raises(TractorError, match="W2 does not fit int8"):
        nets.quantize(big)
    bad = list(_layers(3, 8, 4))
    bad[0] = bad[0][:, :10]
    with pytest.raises(InvalidArgument, match="W1 has shape"):
        nets.quantize(bad)
    bad = list(_layers(3, 8, 4))
    bad[5] = bad[5] * np.nan
    with pytest.raises(InvalidArgument, match="not finite"):
        nets.quantize(bad)


def _mid_hand(seed, steps):
    """A hand after ``steps`` random decisions, or None if it ended before."""
    g = tractor.Game(seed=seed)
    for k in range(steps):
        if g.current_player is None:
            return None
        g.step_random(k)
    return g if g.current_player is not None else None


def test_a_network_sees_only_what_its_seat_knows():
    net = nets.quantize(_layers(4))
    for seed in range(6):
        g = _mid_hand(seed, 40 + 13 * seed)
        if g is None:
            continue
        seat = g.current_player
        for w in g.determinize_many(seat, 3, seed):
            assert np.array_equal(net.logits(w, seat), net.logits(g, seat))
        other = (seat + 1) % 4
        w = g.determinize(other, 5)
        assert np.array_equal(net.logits(w, other), net.logits(g, other))


# -- a network as a policy: net:PATH -------------------------------------------------------------


@pytest.fixture(scope="module")
def net_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("nets") / "random.tnet"
    nets.quantize(_layers(5), meta='{"name": "random-layers"}').save(str(path))
    return str(path)


def test_a_network_policy_takes_its_highest_allowed_logit_id_after_id(net_path):
    net = nets.Net(net_path)
    name = f"net:{net_path}"
    for seed in range(4):
        g = tractor.Game(seed=seed, profile=tractor.PROFILES[seed % 3])
        mine = tractor.Game(seed=seed, profile=tractor.PROFILES[seed % 3])
        k = 0
        while g.current_player is not None:
            seat = g.current_player
            if seat % 2 == 0:  # the network's seats: by name, and by hand from its logits
                assert g.step_policy(name, seed=k)
                while True:
                    mask = mine.action_mask()
                    ids = np.where(mask, net.logits(mine, seat).astype(np.int64), np.iinfo(np.int64).min)
                    if mine.step(int(np.argmax(ids))):
                        break
            else:
                g.step_policy("greedy", seed=k)
                mine.step_policy("greedy", seed=k)
            assert mine == g
            k += 1


def test_a_network_policy_everywhere_a_policy_name_works(net_path, tmp_path):
    name = f"net:{net_path}"
    one = tractor.simulate(hands=30, policies=(name, "greedy", name, "greedy"), seed=3, threads=1)
    two = tractor.simulate(hands=30, policies=(name, "greedy", name, "greedy"), seed=3, threads=2)
    assert np.array_equal(one.score, two.score) and one.policies[0] == name
    r = tractor.arena.play([name, "random"], deals=20, cost=False, bootstrap=0)
    assert r.labels == [name, "random"] and len(r.pairings[0].index) == 20
    env = tractor.VecEnv(4, seed=1, opponents=(name, "greedy", name))
    obs, mask, seat, reward, done = env.reset()
    for _ in range(50):
        obs, mask, seat, reward, done = env.step(mask.argmax(axis=1))
    import subprocess
    import sys

    p = subprocess.run([sys.executable, "-m", "tractor.cli", "simulate", "--hands", "20", "--quiet", "--policy",
                        f"{name},greedy,{name},greedy"], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert p.returncode == 0 and "hands" in p.stdout, p.stderr


def test_a_network_policy_decides_from_what_its_seat_knows(net_path):
    name = f"net:{net_path}"
    for seed in range(5):
        g = _mid_hand(seed, 50 + 11 * seed)
        if g is None:
            continue
        seat = g.current_player
        want = g.clone()
        want.step_policy(name, seed=0)
        for w in g.determinize_many(seat, 3, seed):
            w.step_policy(name, seed=0)
            assert w.record()["actions"][-1] == want.record()["actions"][-1]


def test_a_network_plays_the_searches_rollouts(net_path):
    """rollout=net:PATH (or a shipped learned agent's name) in every search entry point: legal,
    the same for 1 and 2 threads, and the shipped name is its weights file."""
    name = f"net:{net_path}"
    g = _mid_hand(2, 40)
    for call in (lambda t: tractor.search.pimc(g, worlds=3, rollouts=1, policy=name, seed=4, threads=t),
                 lambda t: tractor.search.ismcts(g, iterations=40, rollout=name, trees=2, seed=4, threads=t)):
        one, two = call(1), call(2)
        assert one.action == two.action and one.stats == two.stats
        g.clone().apply(one.action)  # legal
    r = tractor.search.rollouts(g, 6, policy=name, seed=1, threads=2)
    assert np.array_equal(r, tractor.search.rollouts(g, 6, policy=name, seed=1, threads=1))
    # a network draws nothing: every playout of the true state is the same, and zero-sum
    assert (r == r[0]).all() and r[0].sum() == 0 and tuple(r[0]) == g.playout(name, seed=9)
    shipped = "bc-greedy-v1"
    path = tractor.agents.AGENTS[shipped].policy
    by_name = tractor.search.ismcts(g, iterations=30, rollout=shipped, seed=2)
    assert by_name == tractor.search.ismcts(g, iterations=30, rollout=path, seed=2)
    policy = f"ismcts:iterations=30,rollout={shipped}"
    a, b = g.clone(), g.clone()
    a.step_policy(policy, seed=5)
    b.step_policy(f"ismcts:iterations=30,rollout={path}", seed=5)
    assert a.record()["actions"] == b.record()["actions"]
    s = tractor.simulate(hands=2, policies=(f"pimc:worlds=2,rollouts=1,rollout={shipped}", "greedy") * 2, seed=1)
    assert s.policies[0] == f"pimc:worlds=2,rollouts=1,rollout={path}"
    with pytest.raises(InvalidPolicy, match="rollout policy"):
        tractor.search.ismcts(g, iterations=5, rollout="ismcts-1000")
    with pytest.raises(InvalidPolicy, match="comma"):
        tractor.search.ismcts(g, iterations=5, rollout="net:/a,b.tnet")


@pytest.mark.parametrize("bad, match", [("net:", "needs the path"), ("net:/no/such.tnet", "cannot read"),
                                        ("net:/", "cannot read")])
def test_bad_network_names_are_invalid_policies(bad, match, tmp_path):
    with pytest.raises(InvalidPolicy, match=match):
        tractor.simulate(hands=1, policies=(bad, "greedy", "greedy", "greedy"))
    junk = tmp_path / "junk.tnet"
    junk.write_bytes(b"TRACTNET" + b"\0" * 40)
    with pytest.raises(InvalidPolicy, match="CRC"):
        tractor.Game(seed=1).step_policy(f"net:{junk}", seed=0)
    with pytest.raises(InvalidPolicy):
        tractor.search.ismcts(tractor.Game(seed=1), iterations=10, rollout=f"net:{junk}")


def test_a_network_that_corrects_greedy(tmp_path):
    """Weights format 2: base "greedy" and a prior. A prior larger than any logit gap plays
    greedy's games exactly; without a prior the network alone decides; bad values are refused."""
    layers = _layers(9)
    plain = nets.quantize(layers)
    assert plain.base == ("none", 0) and plain.to_bytes()[8:10] == (1).to_bytes(2, "little")
    big = nets.quantize(layers, base="greedy", prior=1e4)
    assert big.base == ("greedy", round(1e4 * nets.OUT_SCALE)) and big.to_bytes()[8:10] == (2).to_bytes(2, "little")
    assert nets.Net(big.to_bytes()).base == big.base and big.to_bytes()[8:10] == (2).to_bytes(2, "little")
    assert np.array_equal(big.logits(tractor.Game(seed=1), 0), plain.logits(tractor.Game(seed=1), 0))
    big.save(tmp_path / "big.tnet")
    nets.quantize(layers, base="greedy", prior=0.0).save(tmp_path / "zero.tnet")
    plain.save(tmp_path / "plain.tnet")
    run = lambda p: tractor.simulate(hands=24, policies=(p, "greedy", p, "random"), seed=5, profile="nanning").score
    assert np.array_equal(run(f"net:{tmp_path / 'big.tnet'}"), run("greedy"))
    assert not np.array_equal(run(f"net:{tmp_path / 'zero.tnet'}"), run("greedy"))
    for bad in [dict(base="ismcts"), dict(base=3), dict(prior=float("nan")), dict(prior="1"), dict(prior=True)]:
        with pytest.raises(InvalidArgument):
            nets.quantize(layers, **bad)
    with pytest.raises(InvalidPolicy, match="needs a base"):
        nets.quantize(layers, prior=1.0)
    for huge in (1e9, 2**63, -(2**70)):
        with pytest.raises(TractorError, match="prior"):
            nets.quantize(layers, base="greedy", prior=huge)
    assert nets.quantize(layers, base="greedy", prior=np.float32(0.5)).base == ("greedy", round(0.5 * nets.OUT_SCALE))
    assert nets.quantize(layers, base="greedy", prior=np.int64(2)).base == ("greedy", 2 * nets.OUT_SCALE)


class _Tensor:
    """What from_torch reads of a torch tensor (torch itself is an optional extra)."""

    def __init__(self, a):
        self.a = np.asarray(a, np.float32)

    def detach(self):
        return self

    def cpu(self):
        return self

    def numpy(self):
        return self.a


class Linear:
    def __init__(self, w, b):
        self.weight, self.bias = _Tensor(w), None if b is None else _Tensor(b)


class Hardtanh:
    pass


class _Module:
    def __init__(self, *layers):
        self.layers = layers

    def modules(self):
        return iter((self,) + self.layers)


def test_from_torch_reads_a_modules_three_linear_layers():
    w1, b1, w2, b2, w3, b3 = _layers(12)
    m = _Module(Linear(w1, b1), Hardtanh(), Linear(w2, b2), Hardtanh(), Linear(w3, b3))
    got = nets.from_torch(m, canonical=True, base="greedy", prior=0.5)
    want = nets.quantize([np.float32(a) for a in (w1, b1, w2, b2, w3, b3)], canonical=True, base="greedy", prior=0.5)
    assert got.to_bytes() == want.to_bytes() and got.canonical and got.base[0] == "greedy"
    with pytest.raises(InvalidArgument, match="it has 2"):
        nets.from_torch(_Module(Linear(w1, b1), Linear(w2, b2)))
    with pytest.raises(InvalidArgument, match="bias"):
        nets.from_torch(_Module(Linear(w1, b1), Linear(w2, None), Linear(w3, b3)))
    with pytest.raises(InvalidArgument, match="torch.nn.Module"):
        nets.from_torch([w1, b1])
    bare = Linear(w2, b2)
    bare.weight = w2  # an array, not a tensor
    with pytest.raises(InvalidArgument, match="layer 1's weight and bias are not tensors"):
        nets.from_torch(_Module(Linear(w1, b1), bare, Linear(w3, b3)))
    with pytest.raises(InvalidArgument, match="W2 has shape"):
        nets.from_torch(_Module(Linear(w1, b1), Linear(w3, b3), Linear(w2, b2)))


def test_a_canonical_network_reads_renamed_suits_and_answers_real_ids():
    layers = _layers(6)
    net = nets.quantize(layers, canonical=True)
    assert net.canonical and not nets.quantize(layers).canonical
    pos = _positions(8)
    for g, s, _ in pos:
        t = {"s": 0, "h": 1, "d": 2, "c": 3}.get(g.known_trump(s), 4)
        obs_c = g.observation_tensor(s, canonical_suits=True)
        f = nets.forward_float(layers, obs_c)[0]  # logits of the renamed ids
        got = net.logits(g, s)  # of the real ids
        err = np.abs(got / nets.OUT_SCALE - f[tractor.actions.TO_CANONICAL[t]])
        assert (err <= nets.quantization_bound(layers, net, obs_c)[0][tractor.actions.TO_CANONICAL[t]] + 1e-9).all()


def _value(seed, h2=24):
    rng = np.random.default_rng(seed + 100)
    return rng.normal(0, 1.0, h2), 1.5


def test_a_value_head_lies_within_its_bound_of_the_float_head_and_reads_back(tmp_path):
    layers, value = _layers(3), _value(3)
    net = nets.quantize(layers, value=value)
    assert net.has_value and not nets.quantize(layers).has_value
    assert nets.FORMAT_VERSION == 3 and net.to_bytes()[8:10] == (3).to_bytes(2, "little")
    pos = _positions(12)
    obs = np.stack([o for _, _, o in pos])
    got = np.array([net.value(g, s) for g, s, _ in pos], dtype=np.float64)
    # the integer prediction from the integer network, exactly
    q1, qb1, q2, qb2, _, _ = (a.astype(np.int64) for a in net.arrays)
    _, _, s1, s2 = net.shape
    n = np.rint(obs * nets.OBS_SCALE).astype(np.int64)
    a2 = np.clip((np.clip((n @ q1 + qb1) >> s1, 0, nets.ONE) @ q2.T + qb2) >> s2, 0, nets.ONE)
    qv, qbv = net.value_arrays
    assert np.array_equal(got, np.maximum(0, ((a2 @ qv.astype(np.int64) + qbv) * 100) // nets.OUT_SCALE))
    err = np.abs(got - nets.value_float(layers, value, obs))
    bound = nets.value_bound(layers, value, net, obs)
    assert (err <= bound + 1e-9).all(), float((err - bound).max())
    assert (got > 0).mean() > 0.3 and len(set(got.tolist())) > 20, "the positions spread over many scores"
    path = tmp_path / "valued.tnet"
    net.save(str(path))
    back = nets.Net(str(path))
    assert back.has_value and back.to_bytes() == net.to_bytes()
    g, s, _ = pos[7]
    assert back.value(g, s) == net.value(g, s) and nets.quantize(layers).value(g, s) is None
    # the logits are the same with or without a value head
    assert np.array_equal(back.logits(g, s), nets.quantize(layers).logits(g, s))


def test_a_value_head_plays_in_the_searches_and_bad_values_are_refused(tmp_path):
    layers = _layers(4, 16, 8)
    valued, plain = tmp_path / "valued.tnet", tmp_path / "plain.tnet"
    nets.quantize(layers, value=_value(4, 8)).save(str(valued))
    nets.quantize(layers).save(str(plain))
    for search in ("pimc:worlds=4,rollouts=2", "ismcts:iterations=80,trees=2"):
        name = f"{search},rollout=greedy,value=net:{valued}"
        one, two = (tractor.simulate(hands=2, policies=(name, "greedy", "greedy", "greedy"), seed=5, threads=t)
                    for t in (1, 2))
        assert np.array_equal(one.score, two.score) and one.policies[0].endswith(f",value=net:{valued}")
        with pytest.raises(InvalidPolicy, match="no value head"):
            tractor.simulate(hands=1, policies=(f"{search},value=net:{plain}", "greedy", "greedy", "greedy"), seed=1)
        with pytest.raises(InvalidPolicy, match="expected net:PATH"):
            tractor.simulate(hands=1, policies=(f"{search},value=greedy", "greedy", "greedy", "greedy"), seed=1)
    for bad, match in [((np.zeros(7), 0.0), "shape"), ((np.zeros(8), np.nan), "not finite"), ("x", "pair"),
                       ((np.full(8, 1e6), 0.0), "does not fit")]:
        with pytest.raises((InvalidArgument, TractorError), match=match):
            nets.quantize(layers, value=bad)
    g = _mid_hand(2, 40)
    for call in (lambda t: tractor.search.pimc(g, worlds=3, rollouts=2, policy="greedy", value=f"net:{valued}", seed=4,
                                               threads=t),
                 lambda t: tractor.search.ismcts(g, iterations=60, rollout="greedy", trees=2, value=f"net:{valued}", seed=4,
                                                 threads=t)):
        one, two = call(1), call(2)
        assert one.action == two.action and one.stats == two.stats
        g.clone().apply(one.action)  # legal
    searcher = tractor.search.Searcher(iterations=30, rollout="greedy", value=f"net:{valued}")
    assert searcher.policy.endswith(f",value=net:{valued}")
    g.clone().apply(searcher.search(g, seed=1).action)
    for bad in (3, "greedy", "net:", f"net:{valued},x", b"net:x"):
        with pytest.raises(InvalidPolicy, match="value"):
            tractor.search.ismcts(g, iterations=10, value=bad)
    with pytest.raises(InvalidPolicy, match="no value head"):
        tractor.search.pimc(g, worlds=2, rollouts=1, value=f"net:{plain}")
    with pytest.raises(InvalidArgument, match="value head"):
        nets.value_bound(layers, _value(4, 8), nets.quantize(layers), np.zeros((1, _core.OBS_DIM)))


@pytest.mark.parametrize("obs", [2**63, float("inf"), float("nan"), np.int64(3), "x", None, np.zeros((2, 5)),
                                 np.full(_core.OBS_DIM, np.inf)])
def test_the_float_references_and_bounds_refuse_bad_observations(obs):
    layers, value = _layers(5, 16, 8), _value(5, 8)
    net = nets.quantize(layers, value=value)
    for call in (lambda: nets.forward_float(layers, obs), lambda: nets.value_float(layers, value, obs),
                 lambda: nets.quantization_bound(layers, net, obs), lambda: nets.value_bound(layers, value, net, obs)):
        with pytest.raises(InvalidArgument, match="obs"):
            call()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_weights_are_read_from_regular_files_only(tmp_path):
    """Issue 41: ``net:/dev/zero`` read a gigabyte before a bare MemoryError and a FIFO blocked
    forever, as a policy or a Net (and so from a crafted saved match at the table): each is
    refused at once, naming what is wrong; so is a file longer than its header declares."""
    import time

    fifo = str(tmp_path / "w.tnet")
    os.mkfifo(fifo)
    for path in ("/dev/zero", fifo):
        t = time.perf_counter()
        with pytest.raises(tractor.errors.InvalidPolicy, match="not a regular file"):
            nets.Net(path)
        with pytest.raises(tractor.errors.InvalidPolicy, match="not a regular file"):
            tractor.simulate(hands=1, policies=(f"net:{path}", "greedy", "greedy", "greedy"))
        assert time.perf_counter() - t < 5
    shipped = tractor.agents.AGENTS["bc-greedy-v1"].policy[len("net:"):]
    data = nets.Net(shipped).to_bytes()
    longer = tmp_path / "long.tnet"
    longer.write_bytes(data + b"\0" * 64)
    with pytest.raises(tractor.errors.InvalidPolicy, match="declares"):
        nets.Net(str(longer))
