"""Any policy at the table: a Python callable that makes a native network's decisions gives the
native network's results everywhere a policy sits (simulate, duplicate included, with its
records; VecEnv opponents; TractorEnv opponents), a hand-written loop agrees with simulate, and
a callable that misbehaves is named in a clear error."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import tractor
from tractor import _core, nets
from tractor.errors import InvalidArgument


def _layers(seed, h1=32, h2=16):
    rng = np.random.default_rng(seed)
    return (rng.normal(0, 0.15, (h1, _core.OBS_DIM)), rng.normal(0.2, 0.2, h1), rng.normal(0, 0.3, (h2, h1)),
            rng.normal(0, 0.2, h2), rng.normal(0, 0.5, (72, h2)), rng.normal(0, 0.3, 72))


@pytest.fixture(scope="module")
def net(tmp_path_factory):
    """A network in a file (``net:PATH``) and the same network as a numpy callable: integer
    arithmetic as the core's kernel does it, the allowed id with the highest logit, the lowest
    among equals."""
    n = nets.quantize(_layers(5), meta='{"name": "callable-twin"}')
    path = str(tmp_path_factory.mktemp("net") / "twin.tnet")
    n.save(path)
    q1, qb1, q2, qb2, q3, qb3 = (a.astype(np.int64) for a in n.arrays)
    _, _, s1, s2 = n.shape
    calls = []

    def twin(obs, mask):
        calls.append(len(obs))
        scale = nets.OBS_SCALE if obs.dtype == np.float32 else nets.OBS_SCALE // tractor.actions.OBS_SCALE_U8.astype(np.int64)
        x = np.rint(np.asarray(obs, np.float64) * scale).astype(np.int64)
        a1 = np.clip((x @ q1 + qb1) >> s1, 0, nets.ONE)
        a2 = np.clip((a1 @ q2.T + qb2) >> s2, 0, nets.ONE)
        logits = a2 @ q3.T + qb3
        return np.argmax(np.where(mask, logits, np.iinfo(np.int64).min), axis=1)

    return f"net:{path}", twin, calls


@pytest.mark.parametrize("profile", tractor.PROFILES)
def test_simulate_with_a_callable_is_simulate_with_the_native_network(net, profile, tmp_path):
    name, twin, calls = net
    calls.clear()
    native = tractor.simulate(hands=40, policies=(name, "greedy", name, "random"), seed=11, start=5, profile=profile,
                              duplicate=True, records=str(tmp_path / "a.bin"))
    python = tractor.simulate(hands=40, policies=(twin, "greedy", twin, "random"), seed=11, start=5, profile=profile,
                              duplicate=True, records=str(tmp_path / "b.bin"), chunk=15)
    for k, v in native.arrays.items():
        assert np.array_equal(v, python.arrays[k]), k
    for k, v in native.duplicate.arrays.items():
        assert np.array_equal(v, python.duplicate.arrays[k]), k
    assert python.policies == ("callable:twin", "greedy", "callable:twin", "random")
    assert python.summary()["duplicate"]["policy"] == "callable:twin"
    a = [g.record()["actions"] for g in tractor.read_records(str(tmp_path / "a.bin"))]
    b = [g.record()["actions"] for g in tractor.read_records(str(tmp_path / "b.bin"))]
    assert a == b and len(a) == 40
    # batched: the callable was asked for many hands at once, far fewer times than it decided
    assert max(calls) >= 10 and len(calls) < int(python.arrays["decisions"].sum()) / 4
    # the results file names the callable and loads back
    python.to_npz(str(tmp_path / "r.npz"))
    assert tractor.load(str(tmp_path / "r.npz")).policies == python.policies


def test_a_hand_written_loop_is_simulate(net):
    """Every seat a callable: hand i of a run is the deal derive(seed, BATCH_HAND, i) played
    by asking the callable at every decision."""
    _, twin, _ = net
    r = tractor.simulate(hands=12, policies=(twin,) * 4, seed=4, profile="nanning")
    for i in range(12):
        g = tractor.Game.deal(_core.derive_seed(4, _core.BATCH_HAND_TAG, i), profile="nanning")
        while g.current_player is not None:
            s = g.current_player
            g.step(int(twin(g.observation_tensor(s)[None], g.action_mask()[None])[0]))
        assert g._g.returns == tuple(int(r.arrays[f"return{s}"][i]) for s in range(4))
        assert g.result is not None and g.result.score == r.arrays["score"][i]


@pytest.mark.parametrize("obs_dtype", ["float32", "uint8"])
def test_vec_env_callable_opponents_are_the_native_network(net, obs_dtype):
    name, twin, _ = net
    kw = dict(seed=3, profile="competition", obs_dtype=obs_dtype, auto_forced=obs_dtype == "uint8")
    a = tractor.VecEnv(6, opponents=(name, "greedy", name), **kw)
    b = tractor.VecEnv(6, opponents=(twin, "greedy", twin), **kw)
    assert b.seats[1] is twin and b.learner_seats == (0,)
    ra, rb = a.reset(), b.reset()
    rng = np.random.default_rng(0)
    ends = 0
    for _ in range(700):
        for x, y in zip(ra, rb):
            assert np.array_equal(x, y)
        assert all(np.array_equal(a.info[k], b.info[k]) for k in a.info)
        assert (ra[2] == 0).all(), "only the learner is asked"
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in ra[1]])
        ra, rb = a.step(acts), b.step(acts)
        ends += int(ra[4].sum())
    assert ends >= 4
    for i in range(6):
        assert a.game(i).record() == b.game(i).record()


def test_tractor_env_callable_opponents_are_the_native_network(net):
    pytest.importorskip("gymnasium")
    from tractor.envs.gym import TractorEnv

    name, twin, _ = net
    a = TractorEnv(seat=2, opponents=(name, twin, "greedy"))
    b = TractorEnv(seat=2, opponents=(twin, name, "greedy"))
    rng = np.random.default_rng(1)
    for ep in range(3):
        (oa, ia), (ob, ib) = a.reset(seed=ep), b.reset(seed=ep)
        done = False
        while not done:
            assert np.array_equal(oa, ob) and np.array_equal(ia["action_mask"], ib["action_mask"])
            act = int(rng.choice(np.flatnonzero(ia["action_mask"])))
            oa, ra, done, _, ia = a.step(act)
            ob, rb, done_b, _, ib = b.step(act)
            assert (ra, done) == (rb, done_b)
        assert a.game.record() == b.game.record()


def test_one_callable_at_several_seats_is_asked_once_per_round():
    seen = []

    def first(obs, mask):
        seen.append(len(obs))
        return np.argmax(mask, axis=1)

    env = tractor.VecEnv(16, opponents=(first, None, first))  # seats 1 and 3, the learner 0 and 2
    assert env.learner_seats == (0, 2)
    _, mask, seat, _, _ = env.reset()
    for _ in range(200):
        assert set(seat.tolist()) <= {0, 2}
        _, mask, seat, _, _ = env.step(np.argmax(mask, axis=1))
    assert max(seen) > 1, "rows of both seats asked together"


def _bad(kind):
    def fn(obs, mask):
        if kind == "raise":
            raise RuntimeError("model crashed")
        if kind == "shape":
            return np.zeros(len(obs) + 1, np.int64)
        if kind == "float":
            return np.argmax(mask, axis=1).astype(np.float32)
        if kind == "bytes":
            return ["", b"\x80"] * len(obs)  # numpy cannot read these as one array
        return np.argmin(mask, axis=1)  # a forbidden id (where some id is forbidden)
    return fn


@pytest.mark.parametrize("kind,error", [("raise", RuntimeError), ("shape", InvalidArgument),
                                        ("float", InvalidArgument), ("bytes", InvalidArgument),
                                        ("forbidden", InvalidArgument)])
def test_a_misbehaving_callable_is_named(kind, error):
    with pytest.raises(error) as e:
        tractor.simulate(hands=3, policies=("greedy", _bad(kind), "greedy", "greedy"))
    if error is InvalidArgument:
        assert str(e.value).startswith("policies[1]: a callable policy")
    env = tractor.VecEnv(2, opponents=("greedy", "greedy", _bad(kind)), fast_deal=True)
    with pytest.raises(error) as e:
        _, mask, *_ = env.reset()
        for _ in range(300):
            _, mask, *_ = env.step(np.argmax(mask, axis=1))
    if error is InvalidArgument:
        assert str(e.value).startswith("opponents[2]: a callable policy")
    with pytest.raises(InvalidArgument, match="opponents\\[2\\].*call reset"):
        env.step(np.zeros(2, np.int64))


def test_an_id_out_of_range_is_named_as_returned():
    huge = lambda o, m: np.full(len(o), 2**63, dtype=np.uint64)  # noqa: E731
    with pytest.raises(InvalidArgument, match="chose action id 9223372036854775808 for hand 0"):
        tractor.simulate(hands=1, policies=(huge, "greedy", "greedy", "greedy"))
    with pytest.raises(InvalidArgument, match="chose action id -1 for environment 0"):
        env = tractor.VecEnv(1, opponents=(lambda o, m: np.full(len(o), -1), "greedy", "greedy"))
        _, mask, *_ = env.reset()
        for _ in range(300):
            _, mask, *_ = env.step(np.argmax(mask, axis=1))


def test_callables_are_refused_where_they_cannot_play():
    fn = _bad("forbidden")
    with pytest.raises(InvalidArgument, match="hands=, not matches="):
        tractor.simulate(matches=1, policies=(fn, "greedy", "greedy", "greedy"))
    with pytest.raises(InvalidArgument, match="backend='local'"):
        tractor.simulate(hands=1, policies=(fn, "greedy", "greedy", "greedy"), backend="ray")
    with pytest.raises(tractor.errors.InvalidPolicy):
        tractor.VecEnv(1, teacher=fn)  # a teacher names its ids natively


def test_vec_env_close_and_pickle():
    env = tractor.VecEnv(2)
    env.reset()
    with pytest.raises(TypeError, match="cannot be pickled"):
        pickle.dumps(env)
    env.close()
    env.close()
    assert env.closed
    for call in (env.reset, lambda: env.step(np.zeros(2, np.int64)), lambda: env.info, env.known_trumps,
                 lambda: env.game(0)):
        with pytest.raises(InvalidArgument, match="closed"):
            call()
