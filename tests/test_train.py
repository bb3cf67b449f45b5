"""Self-play samples, whole-play candidates and play networks from Python (what needs no torch:
the trainer's own loop is tested in tests/test_torch.py)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import tractor
from tractor import _core, train as T
from tractor.errors import InvalidArgument, TractorError


def _random_layers(seed: int, h1: int = 16, h2: int = 8, dim: int = 636) -> dict:
    rng = np.random.default_rng(seed)
    return {"wx": rng.normal(0, 0.05, (h1, dim)), "wp": rng.normal(0, 0.3, (h1, T.PLAY_DIM)),
            "b1": rng.normal(0, 0.1, h1), "w2": rng.normal(0, 0.5, (h2, h1)), "b2": rng.normal(0, 0.1, h2),
            "w3": rng.normal(0, 0.5, h2), "b3": np.zeros(1)}


def test_samples_are_the_same_on_any_thread_count_and_hold_what_they_say():
    sp = T.SelfPlay(seats=["greedy", "random", "greedy", "random"], learners=[True, False, True, False],
                    base="greedy", rollout="greedy", label_rate=0.2, per_decision=4, rollouts=2)
    a = T.samples(3, 5, 20, sp, threads=1)
    b = T.samples(3, 5, 20, sp, threads=2)
    assert a.keys() == b.keys()
    for k in a:
        assert np.array_equal(a[k], b[k]), k
    d, c = len(a["seat"]), len(a["decision"])
    assert d > 50 and a["obs"].shape == (d, 636) and a["obs"].dtype == np.uint8
    assert a["features"].shape == (c, T.PLAY_DIM) and a["features"].dtype == np.int16
    assert set(np.unique(a["seat"])) <= {0, 2}
    assert np.all(np.diff(a["decision"]) >= 0) and a["decision"].max() == d - 1
    # each decision's first valued candidate is the base's, marked by its feature
    first = np.r_[True, np.diff(a["decision"]) > 0]
    assert np.array_equal(first, a["is_base"])
    base_col = [at for name, at, *_ in T.PLAY_FEATURES if name == "base"][0]
    assert np.array_equal(a["features"][:, base_col] == 1, a["is_base"])
    adv = T.advantages(a)
    assert np.all(adv[a["is_base"]] == 0)
    # without exploration the hands are simulate's
    r = tractor.simulate(hands=20, policies=("greedy", "random", "greedy", "random"), seed=3, start=5)
    assert np.array_equal(a["returns"][:, 0], r.arrays["return0"])


def test_monte_carlo_samples_are_the_move_played_valued_by_the_hand():
    # rollouts=0: Deep Monte-Carlo's samples, each labelled decision's played candidate valued by
    # the seat's return at the end of its own hand
    sp = T.SelfPlay(seats=["tuned-greedy-v1", "greedy", "random", "greedy"], base="greedy", label_rate=0.3, rollouts=0,
                    obs_version=2)
    a = T.samples(4, 10, 16, sp, threads=1)
    b = T.samples(4, 10, 16, sp, threads=2)
    for k in a:
        assert np.array_equal(a[k], b[k]), k
    d = len(a["seat"])
    assert d > 100 and np.array_equal(a["decision"], np.arange(d)) and a["played"].all()
    hand = a["hand"] - 10
    assert np.array_equal(a["levels"], a["returns"][hand, a["seat"]].astype(np.float32))
    # a team's two seats share the margin, the other team's is its negation
    for h in np.unique(hand):
        m = {int(t): set(a["points"][(hand == h) & (a["seat"] % 2 == t)].tolist()) for t in (0, 1)}
        assert all(len(v) <= 1 for v in m.values()), m
        if m[0] and m[1]:
            assert m[0] == {-x for x in m[1]}, m
    # without exploration the hands are simulate's
    r = tractor.simulate(hands=16, policies=tuple(sp.seats), seed=4, start=10)
    assert np.array_equal(a["returns"][:, 0], r.arrays["return0"])
    with pytest.raises(TractorError, match="rollouts"):
        T.samples(1, 0, 1, T.SelfPlay(rollouts=0, worlds=4))
    with pytest.raises(InvalidArgument, match="base"):
        T.advantages(a)  # no base valued beside the move played


def test_bad_self_play_arguments_are_named():
    with pytest.raises(InvalidArgument, match="label_rate"):
        T.samples(1, 0, 1, T.SelfPlay(label_rate=2.0))
    with pytest.raises(TractorError, match="per_decision"):
        T.samples(1, 0, 1, T.SelfPlay(per_decision=1))
    with pytest.raises(TractorError, match="base"):
        T.samples(1, 0, 1, T.SelfPlay(base="random"))
    with pytest.raises(InvalidArgument, match="four"):
        T.samples(1, 0, 1, T.SelfPlay(seats=["greedy"] * 3))
    for kw in ({"per_decision": 2.5}, {"rollouts": -1}, {"worlds": True}):
        with pytest.raises(InvalidArgument, match=next(iter(kw))):
            T.samples(1, 0, 1, T.SelfPlay(**kw))
    with pytest.raises(InvalidArgument, match="count"):
        T.samples(1, 0, -3)
    for sp in (T.SelfPlay(value_visited=0.2), T.SelfPlay(value_visited=0.2, teacher="greedy"), T.SelfPlay(value_visited=1.5)):
        with pytest.raises(InvalidArgument, match="value_visited"):  # a search teacher's visits, a share 0..1
            T.samples(1, 0, 1, sp)


def test_solve_values_the_small_hands_exactly_and_names_bad_settings():
    """``solve=N`` values the labelled play decisions where the seat holds at most N cards by the
    open-card solver (the core's test replays each hand and compares with the solver itself):
    the same hands and candidates as rollouts give, thread-blind, and only the small hands'
    values change; a bad N, or ``solve`` with Monte-Carlo samples, is named."""
    sp = T.SelfPlay(seats=["greedy"] * 4, base="greedy", rollout="greedy", label_rate=1.0, per_decision=3)
    solved = dataclasses.replace(sp, solve=4)
    a, b = T.samples(8, 0, 2, solved, threads=1), T.samples(8, 0, 2, sp, threads=1)
    two = T.samples(8, 0, 2, solved, threads=2)
    assert a.keys() == two.keys() and all(np.array_equal(a[k], two[k]) for k in a)
    assert np.array_equal(a["features"], b["features"]) and np.array_equal(a["returns"], b["returns"])
    changed = (a["levels"] != b["levels"]) | (a["points"] != b["points"])
    assert 0 < changed.sum() < len(changed) // 4
    assert np.all(a["points"][changed] % 5 == 0)  # exact final scores: whole points (R7.1)
    for bad in (-1, 256, 2.5, True):
        with pytest.raises(InvalidArgument, match="solve"):
            T.samples(1, 0, 1, dataclasses.replace(sp, solve=bad))
    with pytest.raises(InvalidArgument, match="solve"):
        T.samples(1, 0, 1, dataclasses.replace(sp, solve=4, rollouts=0))


def test_a_search_teacher_gives_its_root_visits():
    """A search as the teacher: each play decision's root visits (``searched``: the iterations)
    and each valued candidate's, the teacher's action the most visited; dealing decisions and
    an agent teacher give none. ``value_visited`` adds the plays the root visited that often and
    changes nothing else: the same decisions, every candidate of the run without it kept."""
    sp = T.SelfPlay(label_rate=0.15, per_decision=3, rollouts=1, teacher="ismcts:iterations=60", obs_version=2)
    plain = T.samples(3, 0, 3, sp, threads=2)
    wide = T.samples(3, 0, 3, T.SelfPlay(**{**sp.__dict__, "value_visited": 0.2}), threads=2)
    f = plain["features"]
    dealing = (f[:, T._PASS] > 0) | (f[:, T._SHOW] > 0)
    assert set(plain["searched"][plain["decision"][dealing]]) <= {0} and set(plain["searched"][plain["decision"][~dealing]]) == {60}
    for s in (plain, wide):
        d, v = s["decision"], s["visits"].astype(np.int64)
        assert s["taught"].sum() == len(s["seat"]) and np.all(v[s["taught"]] == np.where(s["searched"] > 0, v[s["taught"]], 0))
        for i in np.flatnonzero(s["searched"]):
            rows = np.flatnonzero(d == i)
            assert v[rows].sum() <= s["searched"][i] and v[rows[s["taught"][rows]]][0] == v[rows].max() > 0
    for k in ("obs", "hand", "seat", "step", "candidates", "complete", "searched", "returns"):
        assert np.array_equal(plain[k], wide[k]), k
    extra = 0
    for i in range(len(plain["seat"])):
        a = {r.tobytes(): vv for r, vv in zip(plain["features"][plain["decision"] == i], plain["visits"][plain["decision"] == i])}
        b = {r.tobytes(): vv for r, vv in zip(wide["features"][wide["decision"] == i], wide["visits"][wide["decision"] == i])}
        assert a.items() <= b.items(), i
        for r in b.keys() - a.keys():  # what value_visited added: plays visited at least a fifth of the time
            assert 5 * b[r] >= plain["searched"][i] > 0
            extra += 1
    assert extra > 0
    greedy = T.samples(3, 0, 2, T.SelfPlay(label_rate=0.15, per_decision=3, rollouts=1, teacher="greedy", obs_version=2))
    assert not greedy["searched"].any() and not greedy["visits"].any() and greedy["taught"].any()


def test_candidates_from_python_are_legal_and_complete_where_said():
    g = tractor.Game(seed=8)
    seen = 0
    while g.current_player is not None:
        ids, feats, complete = _core.play_candidates(g._g, "tuned-greedy-v1", seen)
        ids = [tuple(x) for x in ids]
        assert feats.shape == (len(ids), T.PLAY_DIM) and len(ids) >= 1
        assert len(ids) == len(set(ids))
        if complete and g.phase == "play":
            assert len(ids) == g.legal_actions().count() if hasattr(g.legal_actions(), "count") else len(g.legal_actions())
        g.step_policy("greedy", seen)
        seen += 1
    assert seen > 100


def test_an_exported_network_is_read_by_the_core_and_plays_as_its_integer_reference(tmp_path):
    path = str(tmp_path / "p.tnet")
    data = T.export(_random_layers(1), path, base="tuned-greedy-v1", meta={"name": "t"}, margin=0.1)
    assert open(path, "rb").read() == data
    r = tractor.simulate(hands=6, policies=(f"net:{path}", "greedy", f"net:{path}", "greedy"), seed=4)
    assert r.summary()["played"] + r.summary()["stopped"] == 6
    # the numpy reference of the integer network chooses what the core's policy chooses
    scale = np.asarray(_core.obs_encoding(1)["scale"], np.float64)
    g = tractor.Game(seed=2)
    decided = 0
    while g.current_player is not None:
        seat = g.current_player
        ids, feats, _ = _core.play_candidates(g._g, "tuned-greedy-v1", decided)
        x = np.rint(g.observation_tensor(seat, canonical_suits=True).astype(np.float64) * scale).astype(np.int64)
        q = T.forward_int_reference(data, x, feats)
        assert g.policy_ids(f"net:{path}", decided) == list(ids[int(np.argmax(q))])
        g.step_policy(f"net:{path}", decided)
        decided += 1
    assert decided > 100
    # damage is named by the core
    bad = bytearray(data)
    bad[-1] ^= 1
    with pytest.raises(TractorError, match="CRC"):
        _core.check_play_net(bytes(bad))
    with pytest.raises(InvalidArgument, match="W2"):
        T.export({**_random_layers(1), "w2": np.full((8, 16), 5.0)}, None)


def test_a_weights_file_reads_back_as_the_layers_it_was_exported_from(tmp_path):
    """read_layers inverts export: the shipped network and a random one come back as float
    layers and header fields that export writes to the same bytes; damage is named."""
    from tractor._weights import resolve

    shipped = open(resolve("play-net-v1")[4:], "rb").read()
    mine = T.export(_random_layers(4), None, base="greedy", obs_version=1, canonical=False, meta={"n": 1},
                    margin=0.25, phases="declare")
    for data in (shipped, mine):
        r = T.read_layers(data)
        assert T.export(r["layers"], None, r["base"], r["obs_version"], r["canonical"], r["meta"], r["margin"], r["phases"]) == data
    r = T.read_layers(mine)
    assert (r["obs_version"], r["canonical"], r["phases"], r["meta"]) == (1, False, "declare", {"n": 1})
    assert abs(r["margin"] - 0.25) < 1e-3 and r["base"] == "greedy"
    s1 = T.ONE * 2**T.SHIFT1  # each weight within half its quantum of the float it was exported from
    dx = np.asarray(_core.obs_encoding(1)["scale"], np.float64)
    quantum = {"wx": dx[None, :] / s1, "wp": T.PLAY_SCALE[None, :] / s1, "b1": 1 / s1, "w2": 1 / 64, "w3": 1 / 64,
               "b2": 1 / (64 * T.ONE), "b3": 1 / (64 * T.ONE)}
    for k, v in _random_layers(4).items():
        assert np.all(np.abs(r["layers"][k].reshape(np.shape(v)) - v) <= quantum[k] / 2 + 1e-12), k
    with pytest.raises(TractorError, match="CRC"):
        T.read_layers(mine[:-1] + bytes([mine[-1] ^ 1]))
    for bad in (2**63, float("nan"), np.int64(3), "TRACTNET", None):  # not bytes: named, never bytes(3)
        with pytest.raises(InvalidArgument, match="data: the bytes of a weights file"):
            T.read_layers(bad)
    assert T.read_layers(memoryview(mine))["meta"] == {"n": 1}


def test_a_warm_start_names_what_does_not_fit(tmp_path):
    """TrainConfig.init: a file that cannot be read, or a network of another observation
    version or widths than the run's, is refused before any work (torch or not)."""
    path = str(tmp_path / "v1.tnet")
    T.export(_random_layers(5), path, obs_version=1)
    for init, says in [(str(tmp_path / "missing.tnet"), "cannot read"), (path, "observation version 1 with widths 16,8"),
                       ("play-net-v1", "widths 128,32; the run's are version 2 with 64,32")]:
        with pytest.raises(InvalidArgument, match=says):
            T.train(T.TrainConfig(out="/nonexistent/never-written", init=init, h1=64))


def test_a_play_network_is_a_rollout_policy_and_refused_as_a_value_network(tmp_path):
    path = str(tmp_path / "p.tnet")
    T.export(_random_layers(2), path)
    r = tractor.simulate(hands=1, policies=(f"pimc:worlds=2,rollout=net:{path}", "greedy", "greedy", "greedy"), seed=1)
    assert r.summary()["hands"] == 1
    with pytest.raises(TractorError, match="no value head"):
        tractor.simulate(hands=1, policies=(f"pimc:worlds=2,value=net:{path}", "greedy", "greedy", "greedy"), seed=1)


def test_samples_joined_over_ranges_equal_one_run():
    sp = T.SelfPlay(seats=["greedy"] * 4, base="greedy", rollout="greedy", label_rate=0.1, per_decision=3)
    whole = T.samples(9, 0, 12, sp, threads=1)
    parts = T.concat([T.samples(9, 0, 5, sp, threads=1), T.samples(9, 5, 7, sp, threads=2)])
    for k in whole:
        assert np.array_equal(whole[k], parts[k]), k


def test_a_play_network_decides_from_what_the_seat_knows():
    """Two games the seat cannot tell apart (the true one and a world drawn from its
    information set) get the same decision from a play network, at every decision of a hand."""
    import tempfile, os
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "p.tnet")
        T.export(_random_layers(4), path)
        g = tractor.Game(seed=12)
        k = 0
        while g.current_player is not None:
            seat = g.current_player
            if k % 7 == 0 and g.phase == "play":
                w = g.determinize(seat, k)
                assert w.hand(seat) == g.hand(seat)
                assert w.policy_ids(f"net:{path}", k) == g.policy_ids(f"net:{path}", k)
            g.step_policy("greedy", k)
            k += 1
        assert k > 100


def test_the_integer_network_is_its_float_network_within_the_stated_bound():
    """At every decision of a hand, every candidate's integer score (over 64 * 127, the margin
    taken off the base's) is the float network's within `quantization_bound`; and the bound is
    not vacuous (smaller than the scores' own spread)."""
    layers = _random_layers(7, h1=32, h2=16, dim=703)
    data = T.export(layers, None, obs_version=2, margin=0.05)
    scale = np.asarray(_core.obs_encoding(2)["scale"], np.float64)
    g = tractor.Game(seed=5)
    worst, spread, k = 0.0, 0.0, 0
    while g.current_player is not None:
        ids, feats, _ = _core.play_candidates(g._g, "tuned-greedy-v1", k)
        x = g.observation_tensor(g.current_player, canonical_suits=True, obs_version=2).astype(np.float64)
        n = np.rint(x * scale)
        q = T.forward_int_reference(data, n.astype(np.int64), feats).astype(np.float64)
        q[0] -= round(64 * 127 * 0.05)
        f = T.forward_float(layers, x, feats)
        err = np.abs(q / (64 * 127) - f)
        assert (err <= T.quantization_bound(layers, n, feats)).all(), k
        worst, spread = max(worst, err.max()), max(spread, f.max() - f.min())
        g.step_policy("greedy", k)
        k += 1
    assert k > 100 and worst < spread


def test_a_play_network_decides_the_same_on_any_thread_count(tmp_path):
    path = str(tmp_path / "p.tnet")
    T.export(_random_layers(9, dim=703), path, obs_version=2)
    pol = (f"net:{path}", "greedy", f"net:{path}", "tuned-greedy-v1")
    a = tractor.simulate(hands=40, policies=pol, seed=8, threads=1, records=str(tmp_path / "a.rec"))
    b = tractor.simulate(hands=40, policies=pol, seed=8, threads=2, records=str(tmp_path / "b.rec"))
    assert np.array_equal(a.arrays["score"], b.arrays["score"])
    assert open(tmp_path / "a.rec", "rb").read() == open(tmp_path / "b.rec", "rb").read()


def test_the_curve_plots(tmp_path):
    curve = [{"round": k, "hands": 100 * k, "seconds": k,
              "rated": [{"margin": m, "path": "x", "levels_per_deal": 0.01 * k - m, "lo": 0.01 * k - m - 0.02,
                         "hi": 0.01 * k - m + 0.02, "deals": 10} for m in (0.0, 0.03)]} for k in (1, 2, 3)]
    path = tmp_path / "c.png"
    assert T.plot_curve(curve, str(path))
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_network_plays_and_rolls_out_self_play_in_worlds():
    """Policy iteration's samples: the network on every seat and rolling the candidates out
    in worlds (its rollouts read their observations there); thread-blind; other values than
    greedy rollouts give; a search as the rollout in worlds is refused by name."""
    sp = T.SelfPlay(seats=["play-net-v1"] * 4, rollout="play-net-v1", label_rate=0.05, per_decision=3, obs_version=2, worlds=2)
    a = T.samples(4, 0, 3, sp, threads=1)
    assert len(a["seat"]) > 5
    b = T.samples(4, 0, 3, sp, threads=2)
    assert all(np.array_equal(a[k], b[k]) for k in a)
    g = T.samples(4, 0, 3, T.SelfPlay(**{**sp.__dict__, "rollout": "greedy"}), threads=1)
    assert np.array_equal(a["features"], g["features"]) and not np.array_equal(a["points"], g["points"])
    with pytest.raises(TractorError, match="rollout"):
        T.samples(4, 0, 1, T.SelfPlay(**{**sp.__dict__, "rollout": "pimc:worlds=2,rollouts=1"}), threads=1)


def test_drawn_levels_deal_the_same_cards_as_a_match_reaches_them():
    """SelfPlay(levels="drawn"): the hands are the fresh run's cards dealt at drawn levels and
    banker: other outcomes, the same on any thread count and on joined ranges; a bad value is
    named."""
    sp = T.SelfPlay(seats=["greedy"] * 4, base="greedy", rollout="greedy", label_rate=0.1, per_decision=3, levels="drawn")
    a = T.samples(6, 0, 12, sp, threads=1)
    b = T.concat([T.samples(6, 0, 5, sp, threads=2), T.samples(6, 5, 7, sp, threads=1)])
    assert all(np.array_equal(a[k], b[k]) for k in a)
    fresh = T.samples(6, 0, 12, T.SelfPlay(**{**sp.__dict__, "levels": "fresh"}), threads=1)
    assert not np.array_equal(a["returns"], fresh["returns"])
    with pytest.raises(InvalidArgument, match="levels"):
        T.samples(6, 0, 1, T.SelfPlay(**{**sp.__dict__, "levels": "match"}))


def test_shipped_network_names_play_in_self_play():
    sp = T.SelfPlay(seats=["play-net-v1", "greedy", "play-net-v1", "greedy"], learners=[True, False, True, False],
                    rollout="greedy", label_rate=0.05, per_decision=3, obs_version=2)
    s = T.samples(2, 0, 3, sp, threads=1)
    assert len(s["seat"]) > 0
    r = tractor.simulate(hands=3, policies=("play-net-v1", "greedy", "play-net-v1", "greedy"), seed=2)
    assert np.array_equal(s["returns"][:, 0], r.arrays["return0"]), "self-play's hands are simulate's"


def test_bad_layers_and_training_settings_are_named():
    good = _random_layers(3)
    for bad, says in [({k: v for k, v in good.items() if k != "b2"}, "missing"),
                      ({**good, "wx": good["wx"][:, :100]}, "wx"),
                      ({**good, "wp": good["wp"][:, :10]}, "wp"),
                      ({**good, "w2": good["w2"][:, :3]}, "w2"),
                      ({**good, "b3": np.zeros(2)}, "b3"),
                      ({**good, "b1": good["b1"] * np.nan}, "finite")]:
        with pytest.raises(InvalidArgument, match=says):
            T.export(bad, None)
    with pytest.raises(InvalidArgument, match="phases"):
        T.export(good, None, phases="dealing")
    for kw, says in [({"window": 0}, "window"), ({"phases": "x"}, "phases"), ({"margins": []}, "margins"),
                     ({"lr": -1.0}, "lr"), ({"batch": 2.5}, "batch"), ({"imitate": -1.0}, "imitate"),
                     ({"imitate": float("nan")}, "imitate"), ({"imitate": True}, "imitate"),
                     ({"imitate": 1.0}, "needs selfplay.teacher"), ({"imitate_temperature": 0.0}, "imitate_temperature"),
                     ({"imitate_visits": 1}, "imitate_visits"), ({"imitate_visits": True}, "imitate_visits: needs imitate"),
                     ({"imitate_visits": np.bool_(True)}, "imitate_visits: needs imitate")]:
        with pytest.raises(InvalidArgument, match=says):
            T.train(T.TrainConfig(out="/nonexistent/never-written", **kw))


def test_a_play_network_read_as_a_network_over_action_ids_is_named():
    from tractor import nets

    path = tractor.agents.AGENTS["play-net-v1"].policy[len("net:"):]
    with pytest.raises(TractorError, match="whole plays"):
        nets.Net(path)


@pytest.mark.parametrize("call,says", [
    (lambda: T.samples(2**64, 0, 1), "seed"),
    (lambda: T.samples(1, 0, float("inf")), "count"),
    (lambda: T.samples(1, 0, 1, threads=2**40), "threads"),
    (lambda: T.samples(1, 0, 1, T.SelfPlay(explore="x")), "explore"),
    (lambda: T.samples(1, 0, 1, T.SelfPlay(per_decision=2**70)), "per_decision"),
    (lambda: T.samples(1, 0, 1, T.SelfPlay(worlds=2**40)), "worlds"),
    (lambda: T.samples(1, 0, 1, T.SelfPlay(seats=[1, 2, 3, 4])), "seats"),
    (lambda: T.samples(1, 0, 1, T.SelfPlay(learners=[1, 0, 1, 0])), "learners"),
    (lambda: T.samples(1, 0, 1, T.SelfPlay(canonical="yes")), "canonical"),
    (lambda: T.advantages({}), "samples"),
    (lambda: T.export(_random_layers(1), None, margin=float("nan")), "margin"),
    (lambda: T.export(_random_layers(1), None, meta={"x": float("nan")}), "meta"),
    (lambda: T.export(_random_layers(1), 5), "path"),
    (lambda: T.forward_float(_random_layers(1), np.zeros(3), np.zeros((1, T.PLAY_DIM))), "observation"),
    (lambda: T.forward_int_reference(T.export(_random_layers(1), None)[:40], np.zeros(636), np.zeros((1, T.PLAY_DIM))), "CRC"),
    (lambda: T.quantization_bound(_random_layers(1), np.zeros(636), np.zeros((1, 7))), "feats"),
    (lambda: T.duplicate("greedy", "random", 0, 1), "deals"),
    (lambda: T.plot_curve([{"x": 1}], "unused.png"), "curve"),
])
def test_hostile_arguments_are_named(call, says):
    with pytest.raises(TractorError, match=says):
        call()


def test_play_features_version_2_extends_version_1_from_python(tmp_path):
    """Self-play writing play features version 2 plays and values as with version 1, each row
    beginning with version 1's; a version-2 network is read by the core and plays as its integer
    reference, and its integer scores are its float network's within the stated bound; a
    version-1 network warm-starts a version-2 run scoring exactly as before (the added
    features weigh 0), and the other way round is refused."""
    v1, v2 = T.play_features(1), T.play_features(2)
    assert v2["layout"][:len(v1["layout"])] == v1["layout"] and v2["dim"] == 83 and v1["dim"] == T.PLAY_DIM
    assert [r[0] for r in v2["layout"][len(v1["layout"]):]] == ["beaters", "ruffers", "team_best", "trick_points", "points_ours",
                                                                "points_theirs", "safe", "empties", "class_unseen"]
    sp = T.SelfPlay(seats=["greedy"] * 4, base="greedy", rollout="greedy", label_rate=0.2, per_decision=3, obs_version=2)
    a = T.samples(6, 0, 8, sp, threads=1)
    b = T.samples(6, 0, 8, dataclasses.replace(sp, play_features=2), threads=2)
    for k in a:
        if k != "features":
            assert np.array_equal(a[k], b[k]), k
    assert b["features"].shape == (len(a["features"]), 83) and np.array_equal(b["features"][:, :T.PLAY_DIM], a["features"])
    layers = _random_layers(3, h1=24, h2=8, dim=703)
    layers["wp"] = np.random.default_rng(3).normal(0, 0.3, (24, 83))
    path = str(tmp_path / "v2.tnet")
    data = T.export(layers, path, obs_version=2, play_features=2, margin=0.05)
    assert T.read_layers(data)["play_features"] == 2
    scale = np.asarray(_core.obs_encoding(2)["scale"], np.float64)
    g = tractor.Game(seed=8)
    k, worst, spread = 0, 0.0, 0.0
    while g.current_player is not None:
        ids, feats, _ = _core.play_candidates(g._g, "tuned-greedy-v1", k, 2)
        ids1, feats1, _ = _core.play_candidates(g._g, "tuned-greedy-v1", k)
        assert ids == ids1 and np.array_equal(feats[:, :T.PLAY_DIM], feats1)
        x = g.observation_tensor(g.current_player, canonical_suits=True, obs_version=2).astype(np.float64)
        n = np.rint(x * scale)
        q = T.forward_int_reference(data, n.astype(np.int64), feats)
        assert g.policy_ids(f"net:{path}", k) == list(ids[int(np.argmax(q))])
        q = q.astype(np.float64)
        q[0] -= round(64 * 127 * 0.05)
        f = T.forward_float(layers, x, feats)
        err = np.abs(q / (64 * 127) - f)
        assert (err <= T.quantization_bound(layers, n, feats)).all(), k
        worst, spread = max(worst, err.max()), max(spread, f.max() - f.min())
        g.step_policy(f"net:{path}", k)
        k += 1
    assert k > 100 and worst < spread
    # warm start: version 1's network in a version-2 run
    old = str(tmp_path / "v1.tnet")
    T.export(_random_layers(5, h1=24, h2=8, dim=703), old, obs_version=2)
    grown = T._init_layers(T.TrainConfig(init=old, h1=24, h2=8, selfplay=T.SelfPlay(obs_version=2, play_features=2)))
    assert grown["wp"].shape == (24, 83) and not grown["wp"][:, T.PLAY_DIM:].any()
    g = tractor.Game(seed=9)
    ids, feats, _ = _core.play_candidates(g._g, "tuned-greedy-v1", 1, 2)
    x = g.observation_tensor(g.current_player, canonical_suits=True, obs_version=2).astype(np.float64)
    before = T.forward_float(T.read_layers(open(old, "rb").read())["layers"], x, feats[:, :T.PLAY_DIM])
    assert np.allclose(T.forward_float(grown, x, feats), before)
    with pytest.raises(InvalidArgument, match="play-features version 2; the run writes version 1"):
        T._init_layers(T.TrainConfig(init=path, h1=24, h2=8, selfplay=T.SelfPlay(obs_version=2)))


@pytest.mark.parametrize("bad", [3, 0, "2", True, 2.0, None, -1, 2**40])
def test_an_unknown_play_features_version_is_named(bad):
    with pytest.raises(InvalidArgument, match="play_features: "):
        T.samples(1, 0, 1, T.SelfPlay(play_features=bad))
    with pytest.raises(InvalidArgument, match="play_features"):
        T.export(_random_layers(1), None, play_features=bad)
    with pytest.raises(InvalidArgument, match="play_features"):
        T.train(T.TrainConfig(out="/nonexistent/never-written", selfplay=T.SelfPlay(play_features=bad)))
    if isinstance(bad, int) and not isinstance(bad, bool) and 0 <= bad < 2**32:
        with pytest.raises(InvalidArgument, match="unknown .this engine writes 1, 2"):
            _core.play_features(bad)
