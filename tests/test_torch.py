"""What needs torch, tested where it is installed: Stable-Baselines3's VecEnv over tractor.VecEnv
(MaskablePPO trains on it, masks through sb3-contrib's convention) and nets.from_torch on a real
torch module. The README's test command does not install torch (gigabytes): these tests skip
there, and .ci/run's separate step installs the [sb3] extra and runs them with
TRACTOR_TORCH_TESTS=1, which turns a missing package into a failure instead of a skip."""

from __future__ import annotations

import os

import numpy as np
import pytest

import tractor
from tractor import _core, nets
from tractor.errors import InvalidArgument


def _need(module):
    if os.environ.get("TRACTOR_TORCH_TESTS") == "1":
        import importlib

        return importlib.import_module(module)  # required here: an ImportError fails the step
    return pytest.importorskip(module)


def test_maskable_ppo_trains_on_the_sb3_vec_env():
    _need("torch")
    sb3_contrib = _need("sb3_contrib")
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    from stable_baselines3.common.vec_env import VecMonitor

    from tractor.envs.sb3 import TractorVecEnv

    env = TractorVecEnv(8, opponents=("random",) * 3, auto_forced=True, seed=3)
    assert is_masking_supported(env)
    obs = env.reset()
    assert obs.shape == (8, _core.OBS_DIM) and obs.dtype == np.float32
    assert np.array_equal(get_action_masks(env), env.venv.reset(seed=3)[1])
    env.reset()
    monitored = VecMonitor(env)
    model = sb3_contrib.MaskablePPO("MlpPolicy", monitored, n_steps=64, batch_size=128, n_epochs=1, seed=0,
                                    device="cpu")
    model.learn(2048)  # a forbidden id would raise IllegalAction in the step
    assert len(monitored.episode_returns) >= 8, "hands ended and were counted as episodes"


def test_the_sb3_vec_env_is_tractors_vec_env():
    _need("torch")
    _need("stable_baselines3")
    from tractor.envs.sb3 import TractorVecEnv

    env = TractorVecEnv(6, opponents=(None, "greedy", "random", "greedy"), auto_forced=False, first_hand_only=False)
    ref = tractor.VecEnv(6, seed=11, opponents=(None, "greedy", "random", "greedy"))
    env.seed(11)
    obs = env.reset()
    r_obs, mask, _, _, _ = ref.reset()
    assert np.array_equal(obs, r_obs)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(600):
        acts = (rng.random(mask.shape) * mask).argmax(axis=1)
        obs, rew, done, infos = env.step(acts)
        r_obs, mask, _, r_rew, r_done = ref.step(acts)
        assert np.array_equal(obs, r_obs) and np.array_equal(rew, r_rew[:, 0]) and np.array_equal(done, r_done)
        assert np.array_equal(np.stack(env.env_method("action_masks")), mask)
        for i in np.flatnonzero(done):
            assert infos[i]["end"] in (1, 2)
        ended += int(done.sum())
    assert ended >= 3
    assert env.env_is_wrapped(object) == [False] * 6 and env.get_attr("render_mode") == [None] * 6
    with pytest.raises(AttributeError):
        env.get_attr("nothing")
    with pytest.raises(InvalidArgument):
        TractorVecEnv(2, opponents=None)
    with pytest.raises(InvalidArgument, match="one seat"):
        TractorVecEnv(2, opponents=(None, "greedy", None, "greedy"))
    u8 = TractorVecEnv(2, obs_dtype="uint8")
    assert u8.reset().dtype == np.uint8 and u8.observation_space.dtype == np.uint8
    env.close()
    u8.close()


def test_from_torch_quantizes_a_real_module():
    torch = _need("torch")
    torch.manual_seed(0)
    d = _core.OBS_DIM
    m = torch.nn.Sequential(torch.nn.Linear(d, 32), torch.nn.Hardtanh(0, 1), torch.nn.Linear(32, 16),
                            torch.nn.Hardtanh(0, 1), torch.nn.Linear(16, 72))
    got = nets.from_torch(m, meta='{"name": "torch"}')
    arrays = [p.detach().numpy() for p in m.parameters()]
    assert got.to_bytes() == nets.quantize(arrays, meta='{"name": "torch"}').to_bytes()
    # the network it exports plays as its float forward pass ranks the ids, within the bound
    g = tractor.Game(seed=2)
    obs = g.observation_tensor(g.current_player)
    with torch.no_grad():
        f = m(torch.from_numpy(obs[None])).numpy()
    err = np.abs(got.logits(g, g.current_player) / nets.OUT_SCALE - f)
    assert (err <= nets.quantization_bound(arrays, got, obs) + 1e-6).all()


def test_train_runs_a_round_exports_a_network_and_resumes_to_the_same_result(tmp_path):
    """tractor.train: one round of self-play and SGD gives a network the core plays; a run
    stopped after round 1 and resumed equals one run straight through (bit for bit)."""
    _need("torch")
    from tractor import train as T

    sp = T.SelfPlay(label_rate=0.2, per_decision=4, rollouts=1)

    def cfg(out, rounds):
        return T.TrainConfig(out=str(out), seed=3, rounds=rounds, hands_per_round=60, epochs=1, h1=16, h2=8, batch=256,
                             eval_deals=10, threads=1, margins=[0.0, 0.2], selfplay=sp)

    straight = T.train(cfg(tmp_path / "a", 2))
    T.train(cfg(tmp_path / "b", 1))
    resumed = T.train(cfg(tmp_path / "b", 2))
    assert [c["round"] for c in straight["curve"]] == [1, 2]
    assert len(straight["curve"][0]["rated"]) == 2
    for x, y in zip(straight["curve"], resumed["curve"]):
        assert [r["levels_per_deal"] for r in x["rated"]] == [r["levels_per_deal"] for r in y["rated"]]
    a = open(tmp_path / "a" / "round-2.tnet", "rb").read()
    b = open(tmp_path / "b" / "round-2.tnet", "rb").read()
    assert a == b
    r = tractor.simulate(hands=4, policies=(f"net:{tmp_path / 'a' / 'round-2.tnet'}", "greedy") * 2, seed=1)
    assert r.summary()["hands"] == 4


def test_imitation_ranks_the_teachers_plays_first(tmp_path):
    """With a teacher and ``imitate``, the network learns to score the teacher's candidate
    above the others it was valued beside: on decisions it never trained on, its top candidate
    is the teacher's more often than the same run's without the imitation term (the same
    samples, the same seed), and a run stopped and resumed equals one run straight through."""
    _need("torch")
    from tractor import train as T

    sp = T.SelfPlay(label_rate=0.3, per_decision=6, rollouts=1, teacher="greedy", obs_version=2)

    def run(out, imitate, rounds=2):
        return T.train(T.TrainConfig(out=str(out), seed=5, rounds=rounds, hands_per_round=150, epochs=3, h1=32, h2=8,
                                     batch=128, eval_deals=0, threads=0, margins=[0.0], selfplay=sp, imitate=imitate,
                                     imitate_temperature=0.05, lr=3e-3))

    held = T.samples(5, 10_000, 100, sp)
    f = held["features"]
    d, taught = held["decision"], held["taught"] & (f[:, T._PASS] == 0) & (f[:, T._SHOW] == 0)  # play decisions: the net's

    def agreement(out):
        layers = T.read_layers(open(out / "round-2.tnet", "rb").read())["layers"]
        x = held["obs"].reshape(len(held["seat"]), -1).astype(np.float64) / np.asarray(_core.obs_encoding(2)["scale_u8"])
        hits = 0
        for i in np.unique(d[taught]):
            rows = np.flatnonzero(d == i)
            hits += bool(taught[rows[np.argmax(T.forward_float(layers, x[i], f[rows]))]])
        return hits / len(np.unique(d[taught]))

    run(tmp_path / "plain", 0.0)
    run(tmp_path / "imitate", 4.0)
    plain, imitated = agreement(tmp_path / "plain"), agreement(tmp_path / "imitate")
    assert imitated > plain + 0.02, (plain, imitated)  # 0.873 against 0.910 when written, on 1,400-odd decisions
    run(tmp_path / "resumed", 4.0, rounds=1)
    run(tmp_path / "resumed", 4.0)
    assert (tmp_path / "resumed" / "round-2.tnet").read_bytes() == (tmp_path / "imitate" / "round-2.tnet").read_bytes()


def test_imitating_a_search_s_visits_moves_the_targets_only_where_it_searched(tmp_path):
    """``imitate_visits``: each pair's target is the row's share of the pair's root visits. An
    agent teacher has no visits, so the run equals plain imitation byte for byte; a search
    teacher's shares change what is learnt."""
    _need("torch")
    from tractor import train as T

    def run(out, teacher, visits):
        sp = T.SelfPlay(label_rate=0.2, per_decision=3, rollouts=1, teacher=teacher, obs_version=2,
                        value_visited=0.2 if teacher.startswith("ismcts") else 0.0)
        T.train(T.TrainConfig(out=str(out), seed=6, rounds=1, hands_per_round=5, epochs=2, h1=16, h2=4, batch=64,
                              eval_deals=0, threads=0, margins=[0.0], selfplay=sp, imitate=2.0, imitate_visits=visits))
        layers = T.read_layers((out / "round-1.tnet").read_bytes())["layers"]  # the recipe in the metadata differs
        return b"".join(np.asarray(layers[k]).tobytes() for k in sorted(layers))

    assert run(tmp_path / "g0", "greedy", False) == run(tmp_path / "g1", "greedy", True)
    assert run(tmp_path / "s0", "ismcts:iterations=40", False) != run(tmp_path / "s1", "ismcts:iterations=40", True)


def test_the_train_command_runs_a_round_on_all_cores(tmp_path, capsys):
    """`tractor train` with its defaults' thread setting (all cores): one small round, its
    networks written and rated, the curve beside them; bad arguments are named."""
    _need("torch")
    from tractor.cli import main

    out = tmp_path / "run"
    assert main(["train", "--out", str(out), "--rounds", "1", "--hands", "30", "--eval-deals", "6", "--worlds", "2",
                 "--hidden", "8,4", "--quiet"]) == 0
    assert (out / "round-1.tnet").exists() and (out / "round-1-m0.03.tnet").exists() and (out / "curve.json").exists()
    assert "best:" in capsys.readouterr().out
    assert main(["train", "--out", str(out), "--hidden", "8"]) == 2
    assert "--hidden" in capsys.readouterr().err
    # a warm start from that network, another behaviour and rollout: at a vanishing learning
    # rate the first round's network is the one it started from
    warm = tmp_path / "warm"
    assert main(["train", "--out", str(warm), "--rounds", "1", "--hands", "20", "--eval-deals", "4", "--worlds", "2",
                 "--hidden", "8,4", "--init", str(out / "round-1.tnet"), "--behaviour", "greedy", "--rollout", "random",
                 "--lr", "1e-12", "--quiet"]) == 0
    from tractor import train as T

    a, b = (T.read_layers((d / "round-1.tnet").read_bytes())["layers"] for d in (out, warm))
    assert all(np.array_equal(a[k], b[k]) for k in a)
    capsys.readouterr()
    for flag, says in [("--behaviour", "--behaviour"), ("--rollout", "--rollout"), ("--teacher", "--teacher")]:
        assert main(["train", "--out", str(warm), flag, "nosuch-policy"]) == 2
        assert says in capsys.readouterr().err
    assert main(["train", "--out", str(warm), "--imitate", "1"]) == 2  # no teacher to imitate
    assert "teacher" in capsys.readouterr().err
    # imitating a teacher through the command: a round runs and its recipe names both
    assert main(["train", "--out", str(tmp_path / "taught"), "--rounds", "1", "--hands", "20", "--eval-deals", "4",
                 "--worlds", "2", "--hidden", "8,4", "--teacher", "greedy", "--imitate", "2", "--quiet"]) == 0
    meta = T.read_layers((tmp_path / "taught" / "round-1.tnet").read_bytes())["meta"]
    assert meta["config"]["imitate"] == 2 and meta["config"]["selfplay"]["teacher"] == "greedy"
    # a search's visits as the targets, its often visited plays valued: the recipe says so
    assert main(["train", "--out", str(tmp_path / "visits"), "--rounds", "1", "--hands", "6", "--eval-deals", "4",
                 "--worlds", "2", "--hidden", "8,4", "--teacher", "ismcts:iterations=30", "--imitate", "1",
                 "--imitate-visits", "--value-visited", "0.25", "--quiet"]) == 0
    meta = T.read_layers((tmp_path / "visits" / "round-1.tnet").read_bytes())["meta"]
    assert meta["config"]["imitate_visits"] is True and meta["config"]["selfplay"]["value_visited"] == 0.25
    assert main(["train", "--out", str(tmp_path / "bad"), "--teacher", "greedy", "--value-visited", "0.25"]) == 2
    assert "value_visited" in capsys.readouterr().err
