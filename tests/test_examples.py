"""The learning examples (examples/): they run end to end with tiny settings, and the parts the
behaviour-cloning example rests on are right (greedy's actions as ids, the gradients, the
paired deals of its evaluation)."""

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tractor
from tractor import actions as A

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
TINY = ["--games", "12", "--epochs", "2", "--hidden", "16", "--deals", "24"]


def _load(name):
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def bc():
    return _load("train_bc")


def _run(script, *args):
    r = subprocess.run([sys.executable, str(EXAMPLES / script), *args], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout


def _untimed(text):
    return re.sub(r"\d+(\.\d+)? s\b", "T s", text)


def test_train_bc_runs_and_prints_its_summary():
    out = _run("train_bc.py", *TINY, "--seed", "3")
    summary = out[out.index("Summary (seed 3)"):].splitlines()
    names = ["trained policy", "uniform over the mask", "random", "greedy, the teacher"]
    for name, row in zip(names, summary[1:5]):
        assert row.strip().startswith(name), row
        m, lo, hi = (float(v) for v in re.findall(r"[+-]\d+\.\d+", row))
        assert -4 <= lo <= m <= hi <= 4, row
    assert re.search(r"the trained policy (beats|does NOT clearly beat) random", summary[5])
    assert "epoch 2/2: loss" in out


def test_train_bc_is_deterministic_per_seed(bc, capsys):
    outs = []
    for seed in (5, 5, 6):
        assert bc.main(TINY + ["--seed", str(seed)]) == 0
        outs.append(_untimed(capsys.readouterr().out))
    assert outs[0] == outs[1]
    assert outs[0] != outs[2]


def test_train_bc_rejects_bad_options(bc):
    for bad in (["--games", "0"], ["--deals", "1"], ["--hidden", "-1"], ["--seed", "-2"]):
        with pytest.raises(SystemExit):
            bc.main(bad)


@pytest.mark.parametrize("hand_seed", [1, 2, 3])
def test_greedy_ids_replay_greedy_exactly(bc, hand_seed):
    """Fed id by id with Game.step, the ids of greedy's action reach the very state greedy's
    own step_policy reaches, at every decision of whole hands (dealing, leads, follows)."""
    g = tractor.Game.deal(hand_seed, every_receiver=True)
    kinds = set()
    decision = 0
    while g.phase != "over":
        seat = g.current_player
        ids = bc.greedy_ids(g, seat, decision, g.observation_tensor(seat))
        want = g.clone()
        want.step_policy("greedy", decision)
        kinds.add("declare" if g.phase == "declare" else ("lead" if not g.current_trick else "follow"))
        for j, i in enumerate(ids):
            assert g.action_mask()[i]
            assert g.step(i) == (j == len(ids) - 1)
        assert g == want
        decision += 1
    assert kinds == {"declare", "lead", "follow"}


def test_gradients_match_finite_differences(bc):
    """The analytic gradients of the masked cross-entropy against central differences, in
    float64, for the linear and the one-hidden-layer policy."""
    rng = np.random.default_rng(0)
    n = 6
    x = rng.random((n, A.OBS_DIM))
    mask = rng.random((n, A.NUM_ACTIONS)) < 0.3
    y = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in mask])
    mask[np.arange(n), y] = True
    for hidden in (0, 5):
        p = {k: v.astype(np.float64) + rng.standard_normal(v.shape) * 0.1 for k, v in bc.init(rng, hidden).items()}
        _, g = bc.gradients(p, x, mask, y)
        for k in p:
            for _ in range(6):
                idx = tuple(rng.integers(0, s) for s in p[k].shape)
                old = p[k][idx]
                p[k][idx] = old + 1e-6
                up, _ = bc.gradients(p, x, mask, y)
                p[k][idx] = old - 1e-6
                down, _ = bc.gradients(p, x, mask, y)
                p[k][idx] = old
                assert abs((up - down) / 2e-6 - g[k][idx]) < 1e-5, (hidden, k, idx)


@pytest.mark.parametrize("canon", [True, False])
def test_training_learns_greedy_better_than_chance(bc, canon):
    """A few epochs on a few hands agree with greedy far more often than a uniform draw over
    the allowed ids or the lowest allowed id (greedy often throws its cheapest card) would."""
    x, mask, y = bc.generate(8, 0)
    assert x.shape == (len(y), A.OBS_DIM) and mask.shape == (len(y), A.NUM_ACTIONS)
    assert mask[np.arange(len(y)), y].all() and (mask.sum(axis=1) > 1).all()
    if canon:
        bc.to_canonical(x, mask, y)
        assert mask[np.arange(len(y)), y].all()
    p = bc.train(x, mask, y, epochs=8, hidden=32, seed=0, lr=3e-3)
    chance = float((1 / mask.sum(axis=1)).mean())
    lowest = float((mask.argmax(axis=1) == y).mean())
    assert bc.accuracy(p, x, mask, y) > max(chance, lowest) + 0.1


def test_evaluation_pairs_the_same_deals(bc):
    """Environment i deals the same first hand whichever seats the learner holds, so the two
    seatings of the evaluation replay one deal; first_hands returns one result per deal."""
    a = tractor.VecEnv(4, seed=9, opponents=(None, "random", None, "random"))
    b = tractor.VecEnv(4, seed=9, opponents=("random", None, "random", None))
    a.reset()
    b.reset()
    starts = [a.game(i).record()["start"] for i in range(4)]
    assert starts == [b.game(i).record()["start"] for i in range(4)]
    assert len({str(s) for s in starts}) == 4
    r = bc.first_hands(bc.uniform_policy(0), 6, 9, learner=1)
    assert r.shape == (6,) and np.isfinite(r).all() and (r == np.round(r)).all()


def test_vecenv_random_runs():
    out = _run("vecenv_random.py", "--envs", "8", "--steps", "300", "--threads", "1")
    assert re.search(r"2400 steps in \d+\.\d+ s: [\d,]+ steps/s", out)
    assert re.search(r"\d+ hands finished", out)


def test_canonical_suits_match_the_engine(bc):
    """The example's numpy renaming of the suits gives exactly the engine's
    ``observation_tensor(canonical_suits=True)``, for every seat at positions from real play
    (dealing, where only the declarer knows its suit, and the tricks); the renamed mask allows
    the renamed ids of the allowed ones, and renamed ids map back."""
    seen = set()
    for hand_seed in (4, 5):
        g = tractor.Game.deal(hand_seed, every_receiver=True)
        step = 0
        while g.phase != "over":
            if step % 7 == 0:
                obs = np.stack([g.observation_tensor(s) for s in range(4)])
                want = np.stack([g.observation_tensor(s, canonical_suits=True) for s in range(4)])
                mask = np.tile(g.action_mask(), (4, 1))
                got, cmask, trump = bc.canonical(obs, mask)
                assert np.array_equal(got, want)
                seen.update(trump.tolist())
                for t, m, cm in zip(trump, mask, cmask):
                    assert np.array_equal(np.flatnonzero(cm), np.sort(bc.TO_CANON[t, np.flatnonzero(m)]))
                    assert np.array_equal(bc.TO_REAL[t, bc.TO_CANON[t]], np.arange(A.NUM_ACTIONS))
            g.step_policy("greedy", step)
            step += 1
    assert 4 in seen and len(seen) >= 3  # unknown and at least two different trumps


def test_samples_store_grows_and_keeps_what_it_holds(bc):
    s = bc.Samples(1)
    rows = [(np.full(A.OBS_DIM, k / 4, np.float32), np.arange(A.NUM_ACTIONS) % (k + 2) == 0, k) for k in range(5)]
    for obs, mask, y in rows:
        s.add(obs, mask, y)
    assert s.n == 5 and len(s.y) >= 5
    for k, (obs, mask, y) in enumerate(rows):
        assert np.array_equal(s.x[k], obs) and np.array_equal(s.mask[k], mask) and s.y[k] == y


def test_train_net_resumes_to_the_same_run(tmp_path):
    tiny = ["--games", "16", "--h1", "16", "--h2", "8", "--eval-deals", "10", "--seed", "4"]
    _run("train_net.py", "--out", str(tmp_path / "a"), "--epochs", "2", *tiny)
    _run("train_net.py", "--out", str(tmp_path / "b"), "--epochs", "1", *tiny)
    out = _run("train_net.py", "--out", str(tmp_path / "b"), "--epochs", "2", "--resume", *tiny)
    assert "resumed after epoch 1 of 2" in out
    for f in ("curve.json", "agent.tnet", "epoch-2.tnet"):
        assert (tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes(), f
    import json

    curve = json.loads((tmp_path / "a" / "curve.json").read_text())
    assert [c["epoch"] for c in curve] == [1, 2] and all(-3000 < c["rating"] < 3000 for c in curve)
    assert tractor.nets.Net(str(tmp_path / "a" / "agent.tnet")).canonical



def test_tune_greedy_learns_whole_number_weights_and_resumes_to_the_same_run(tmp_path):
    tiny = ["--deals", "30", "--every", "2", "--val-deals", "30", "--seed", "3"]
    out = _run("tune_greedy.py", "--out", str(tmp_path / "a"), "--iterations", "4", *tiny)
    assert "iteration 4:" in out and "levels per deal against greedy" in out
    _run("tune_greedy.py", "--out", str(tmp_path / "b"), "--iterations", "3", *tiny)  # stops between curve points
    _run("tune_greedy.py", "--out", str(tmp_path / "b"), "--iterations", "4", "--resume", *tiny)
    for f in ("weights.txt", "curve.json"):
        assert (tmp_path / "a" / f).read_text() == (tmp_path / "b" / f).read_text(), f
    name = (tmp_path / "a" / "weights.txt").read_text().strip()
    assert name.startswith("greedy:"), "four iterations move some weight"
    curve = __import__("json").loads((tmp_path / "a" / "curve.json").read_text())["curve"]
    assert [c["iteration"] for c in curve] == [0, 2, 4] and curve[-1]["policy"] == name
    assert tractor.simulate(hands=2, policies=(name, "greedy") * 2, seed=1).policies[0] == name
    tg = _load("tune_greedy")
    assert tg.policy(tg.GREEDY + 0.4) == "greedy" and tg.policy(tg.GREEDY - 0.4) == "greedy"
    far = tg.policy(tg.GREEDY + 1e9)  # every weight clipped to the top of its range, which the core accepts
    assert far.count("=") == len(tg.NAMES) and tractor.simulate(hands=1, policies=(far,) * 4, seed=2).policies[0] == far
    r = subprocess.run([sys.executable, str(EXAMPLES / "tune_greedy.py"), "--out", str(tmp_path / "c"), "--deals", "0"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "must be positive" in r.stderr
    # effort weights are never learned, only held: --fixed puts them, and a resumed run keeps them
    assert "list_max" not in tg.NAMES and "samples" not in tg.NAMES and len(tg.NAMES) == 21
    _run("tune_greedy.py", "--out", str(tmp_path / "d"), "--iterations", "2", "--fixed", "samples=4", *tiny)
    fast = (tmp_path / "d" / "weights.txt").read_text().strip()
    assert fast.endswith("/samples=4") and tractor.simulate(hands=1, policies=(fast,) * 4, seed=2).policies[0] == fast
    assert tg.policy(tg.GREEDY, {"samples": 16}) == "greedy" and tg.policy(tg.GREEDY, {"list_max": 8}) == "greedy:list_max=8"
    for bad, says in (("feed=3", "only the effort weights"), ("samples=-1", "0..=256"), ("samples=x", "whole number"),
                      ("samples=--4", "whole number")):
        r = subprocess.run([sys.executable, str(EXAMPLES / "tune_greedy.py"), "--out", str(tmp_path / "e"), "--fixed", bad],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 2 and says in r.stderr, (bad, r.stderr)
    r = subprocess.run([sys.executable, str(EXAMPLES / "tune_greedy.py"), "--out", str(tmp_path / "d"), "--iterations", "3",
                        "--resume", "--fixed", "samples=2", *tiny], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "differs from the run's" in r.stderr


def test_train_value_runs_and_its_gradients_are_right(tmp_path):
    """The value example end to end with tiny settings (its file has a value head that the
    searches read), and its mean-squared-error gradients against central differences."""
    out = _run("train_value.py", "--out", str(tmp_path), "--games", "6", "--every", "8", "--epochs", "2",
               "--h1", "16", "--h2", "8", "--eval-deals", "2", "--eval-iterations", "20")
    assert "held-out mean absolute error" in out and "ismcts with value= against greedy rollouts" in out
    net = tractor.nets.Net(str(tmp_path / "value.tnet"))
    assert net.has_value and net.shape[:2] == (16, 8)
    report = __import__("json").loads((tmp_path / "value.json").read_text())
    assert report["ismcts"]["deals"] == 2 and report["positions"]["held_out"] > 0
    tv = _load("train_value")
    rng = np.random.default_rng(1)
    x, y = rng.random((5, A.OBS_DIM)), rng.uniform(0, 300, 5)
    p = {k: v.astype(np.float64) + rng.standard_normal(v.shape) * 0.1 for k, v in tv.init(rng, 6, 4, 80.0).items()}
    _, g = tv.gradients(p, x, y)
    for k in p:
        for _ in range(5):
            idx = tuple(rng.integers(0, s) for s in p[k].shape)
            old = p[k][idx]
            p[k][idx] = old + 1e-6
            up, _ = tv.gradients(p, x, y)
            p[k][idx] = old - 1e-6
            down, _ = tv.gradients(p, x, y)
            p[k][idx] = old
            assert abs((up - down) / 2e-6 - g[k][idx]) < 1e-5, (k, idx)
