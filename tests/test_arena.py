"""The arena: pairings equal duplicate simulation on the suite's deals, ratings recover known
strengths, results do not depend on threads or shards, callables play, files round-trip."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest

import tractor
from tractor import _core, arena
from tractor.errors import IncompleteRun, InvalidArgument, InvalidPolicy, TractorError

SEED = arena.SUITES["eval-v1"].seed


def test_eval_v1_is_frozen():
    s = arena.SUITES["eval-v1"]
    assert (s.seed, s.deals, s.matches) == (0x6576616C2D763100, 2000, 200)
    assert s.seed == int.from_bytes(b"eval-v1\0", "big")
    # deal 0 of the suite is hand 0 of the bulk run with the suite's seed
    g = tractor.Game.deal(_core.derive_seed(s.seed, _core.BATCH_HAND_TAG, 0))
    assert list(g._g.deck()[:8]) == [39, 2, 39, 23, 22, 53, 46, 16]


def test_a_pairing_is_duplicate_simulation_on_the_suite():
    r = arena.play(["random", "greedy"], deals=150, start=20, cost=False, bootstrap=0)
    (p,) = r.pairings
    sim = tractor.simulate(hands=150, policies=("random", "greedy", "random", "greedy"), seed=SEED, start=20,
                           duplicate=True)
    assert np.array_equal(p.index, sim.index)
    assert np.array_equal(p.a_first, sim.return0) and np.array_equal(p.a_second, sim.duplicate.return1)
    m, lo, hi = sim.duplicate_advantage()
    s = p.summary()
    assert s["levels_per_deal"] == pytest.approx(m) and s["ci95"] == pytest.approx((lo, hi))
    assert s["levels_per_deal"] < -1, "greedy beats random by more than a level a deal"
    assert s["b_gains_share"] > s["a_gains_share"]


def test_results_do_not_depend_on_threads_or_shards():
    ps = ["random", "greedy", "pimc:worlds=2,rollouts=1,rollout=random"]
    # one run on one thread against two shards on two threads, merged: both differences at once
    one = arena.play(ps, deals=14, threads=1, matches=2, cost=False, bootstrap=20)
    parts = [arena.play(ps, deals=n, start=s, matches=m, match_start=ms, threads=2, cost=False, bootstrap=20)
             for s, n, ms, m in [(0, 5, 0, 1), (5, 9, 1, 1)]]
    merged = arena.merge(*parts)
    for other in (merged,):
        for p, q in zip(one.pairings, other.pairings):
            for k in ("index", "a_first", "a_second", "match_index", "match_wins", "match_losses"):
                assert np.array_equal(getattr(p, k), getattr(q, k)), k
        assert other.ratings() == one.ratings()
    with pytest.raises(IncompleteRun, match="in two parts"):
        arena.merge(parts[0], parts[0])
    assert len(one.pairings) == 3 and all(len(p.match_index) == 2 for p in one.pairings)


def _synthetic(strengths, deals, seed):
    """Results whose deals are drawn from a Bradley–Terry model with these strengths."""
    rng = np.random.default_rng(seed)
    labels = list(strengths)
    pairings = []
    for i, a in enumerate(labels):
        for b in labels[i + 1:]:
            pa = strengths[a] / (strengths[a] + strengths[b])
            won = rng.random(deals) < pa
            pairings.append(arena.Pairing(a, b, np.arange(deals, dtype=np.uint64), np.where(won, 2, -2).astype(np.int16),
                                          np.where(won, 1, -1).astype(np.int16)))
    return arena.ArenaResults(labels, labels, "eval-v1", "guigang", pairings, anchors={}, bootstrap=100)


def test_ratings_recover_known_strengths():
    strengths = {"w": 1.0, "x": 2.0, "y": 4.0, "z": 10.0}
    r = _synthetic(strengths, 4000, 1).ratings()
    elo = {k: 400 * math.log10(v) for k, v in strengths.items()}
    mean = sum(elo.values()) / 4
    for k in strengths:
        v, lo, hi = r[k]
        assert abs(v - (elo[k] - mean)) < 25, (k, v, elo[k] - mean)
        assert lo < v < hi and hi - lo < 80
    assert sum(v for v, _, _ in r.values()) == pytest.approx(0, abs=1e-6), "no anchor: they average 0"
    # anchors: two fix the scale, one shifts it
    res = _synthetic(strengths, 4000, 1)
    res.anchors = {"w": 0.0, "z": 1000.0}
    a = res.ratings()
    assert a["w"][0] == pytest.approx(0) and a["z"][0] == pytest.approx(1000)
    assert a["w"][0] < a["x"][0] < a["y"][0] < a["z"][0]
    res.anchors = {"x": 100.0}
    b = res.ratings()
    assert b["x"][0] == pytest.approx(100) and b["z"][0] - b["x"][0] == pytest.approx(r["z"][0] - r["x"][0])


def test_a_side_that_wins_every_deal_stays_finite():
    r = _synthetic({"a": 1.0, "b": 1e9}, 200, 2).ratings()
    assert all(math.isfinite(v) for t in r.values() for v in t)


def _first_legal(obs, masks):
    assert obs.shape == (len(masks), _core.OBS_DIM) and masks.shape == (len(obs), _core.NUM_ACTIONS)
    return masks.argmax(axis=1)


def test_a_callable_plays_the_deals_of_simulate():
    """A callable's pairing is simulate's duplicate run with the callable at its seats (which
    tests/test_policy_fn.py checks against a hand-written loop and a native network)."""
    r = arena.play({"first": _first_legal, "greedy": "greedy"}, deals=6, start=3, cost=False, bootstrap=0)
    (p,) = r.pairings
    sim = tractor.simulate(hands=6, start=3, seed=SEED, policies=(_first_legal, "greedy") * 2, duplicate=True)
    assert np.array_equal(p.a_first, sim.arrays["return0"]) and np.array_equal(p.a_second, sim.duplicate.arrays["return1"])
    assert np.array_equal(p.index, np.arange(3, 9))
    s = r.summary()
    assert s["pairings"][0]["a"] == "first" and r.policies == ["callable:first", "greedy"]
    # on a Ray backend too, a callable plays here
    again = arena.play({"first": _first_legal, "greedy": "greedy"}, deals=6, start=3, cost=False, bootstrap=0,
                       backend="ray")
    assert np.array_equal(again.pairings[0].a_first, p.a_first)


def test_a_callable_that_breaks_the_rules_is_refused():
    with pytest.raises(InvalidArgument, match="forbids"):
        arena.play([lambda o, m: np.zeros(len(o), int) + 71, "random"], deals=1, cost=False)
    with pytest.raises(InvalidArgument, match="action ids of shape \\(0,\\)"):
        arena.play([lambda o, m: [], "random"], deals=1, cost=False)
    with pytest.raises(InvalidArgument, match="not integers"):
        arena.play([lambda o, m: m.argmax(axis=1) + 0.5, "random"], deals=1, cost=False)


def test_policies_as_one_text():
    r = arena.play("random,pimc:worlds=2,rollouts=1", deals=2, cost=False, bootstrap=0)
    assert r.labels == ["random", "pimc:worlds=2,rollouts=1,rollout=random"]


def test_files_round_trip(tmp_path):
    r = arena.play(["random", "greedy"], deals=20, matches=2, bootstrap=10)
    assert set(r.cost_us) == {"random", "greedy"} and all(v > 0 for v in r.cost_us.values())
    path = tmp_path / "a.json"
    r.to_json(str(path))
    back = arena.load(str(path))
    assert back.ratings() == r.ratings() and back.cost_us == r.cost_us
    assert back.summary()["pairings"] == r.summary()["pairings"]
    pq = pytest.importorskip("pyarrow.parquet")
    r.to_parquet(str(tmp_path / "a.parquet"))
    t = pq.read_table(str(tmp_path / "a.parquet")).to_pydict()
    assert t["deal"] == list(range(20)) and t["a_first"] == r.pairings[0].a_first.tolist()
    pytest.importorskip("matplotlib")
    r.plot(str(tmp_path / "a.png"))
    assert (tmp_path / "a.png").read_bytes()[:4] == b"\x89PNG"
    (tmp_path / "bad.json").write_text('{"format": "x"}')
    with pytest.raises(TractorError, match="not an arena results file"):
        arena.load(str(tmp_path / "bad.json"))


def test_ctrl_c_keeps_the_pairings_that_finished():
    calls = []

    def progress(done, total):
        calls.append(done)
        if done >= 30:
            raise KeyboardInterrupt

    r = arena.play(["random", "greedy", "pimc:worlds=1,rollouts=1"], deals=30, progress=progress,
                   cost=False, bootstrap=0)
    assert r.interrupted and len(r.pairings) >= 1 and len(r.pairings[0].index) == 30


@pytest.mark.parametrize("kwargs, match", [
    (dict(policies=["random"]), "at least two"),
    (dict(policies=["random", "random"]), "its own label"),
    (dict(policies=["random", "nonsense"]), "policies\\[1\\]"),
    (dict(policies=5), "policies must be"),
    (dict(policies=["random", "greedy"], suite="eval-v0"), "suite"),
    (dict(policies=["random", "greedy"], deals=2001), "deals"),
    (dict(policies=["random", "greedy"], deals=0), "deals"),
    (dict(policies=["random", "greedy"], start=-1), "start"),
    (dict(policies=["random", "greedy"], matches=201), "matches"),
    (dict(policies=["random", "greedy"], anchors={"random": math.nan}), "anchors"),
    (dict(policies=["random", "greedy"], threads=0), "threads"),
    (dict(policies=["random", "greedy"], bootstrap=1.5), "bootstrap"),
    (dict(policies=[_first_legal, "greedy"], matches=1), "matches"),
    (dict(policies=["random", "greedy"], profile="x"), "profile"),
])
def test_bad_arguments_name_themselves(kwargs, match):
    with pytest.raises(InvalidArgument, match=match):
        arena.play(**{"deals": 2, "cost": False, **kwargs})


def test_an_unknown_policy_is_an_invalid_policy():
    with pytest.raises(InvalidPolicy):
        arena.play(["random", "minimax"], deals=1)


def test_cli_arena_and_merge(tmp_path):
    def run(*args):
        p = subprocess.run([sys.executable, "-m", "tractor.cli", *args], cwd=tmp_path, capture_output=True, text=True,
                           timeout=300)
        assert p.returncode == 0, p.stderr
        return p.stdout

    out = run("arena", "random", "greedy", "--deals", "30", "--json", "all.json", "--quiet", "--no-cost")
    assert "random vs greedy" in out and "wrote all.json" in out
    for i in range(2):
        run("arena", "random", "greedy", "--deals", "30", "--shard", f"{i}/2", "--json", f"s{i}.json", "--quiet",
            "--no-cost")
    run("merge", "s0.json", "s1.json", "-o", "merged.json")
    a, b = arena.load(str(tmp_path / "all.json")), arena.load(str(tmp_path / "merged.json"))
    assert np.array_equal(a.pairings[0].a_first, b.pairings[0].a_first) and a.ratings() == b.ratings()
    p = subprocess.run([sys.executable, "-m", "tractor.cli", "arena", "random", "--deals", "3"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and "at least two" in p.stderr


def test_cli_ctrl_c_rates_what_finished(tmp_path):
    from _cli_util import interrupt_cli

    # Ctrl-C at the first progress line: the pairing under way stops after its chunk
    rc, out, err = interrupt_cli(["arena", "random", "greedy", "pimc:worlds=16,rollouts=4", "--deals", "2000",
                                  "--json", "cut.json"], tmp_path, wait_s=120, marker=b"deals/s")
    assert rc == 130, (rc, out, err[-2000:])
    assert b"interrupted: rating the pairings that finished" in err and b"Traceback" not in err
    assert "random vs greedy" in out and "wrote cut.json" in out
    r = arena.load(str(tmp_path / "cut.json"))
    assert r.interrupted and sum(len(p.index) for p in r.pairings) < 3 * 2000
    assert all(0 < len(p.index) and len(p.index) % arena.CHUNK == 0 for p in r.pairings)
