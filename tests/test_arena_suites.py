"""The arena on a user's own suite and on any seed: deals are simulate's with the suite's seed,
results carry the suite's name and seed (in files too), merges refuse parts of other suites,
and the frozen suites stay as they are."""

from __future__ import annotations

import numpy as np
import pytest

import tractor
from tractor import arena
from tractor.arena import Suite
from tractor.errors import IncompleteRun, InvalidArgument, ResultsFileError


def _play(**kw):
    return arena.play(["random", "greedy"], cost=False, bootstrap=0, **kw)


def _is_simulate(r, seed, start, count):
    (p,) = r.pairings
    sim = tractor.simulate(hands=count, policies=("random", "greedy") * 2, seed=seed, start=start, duplicate=True)
    assert np.array_equal(p.index, sim.index)
    assert np.array_equal(p.a_first, sim.return0) and np.array_equal(p.a_second, sim.duplicate.return1)


def test_a_seed_is_an_ad_hoc_suite_named_after_it():
    r = _play(seed=12345, deals=40, start=5)
    assert (r.suite, r.suite_seed) == ("seed-12345", 12345)
    _is_simulate(r, 12345, 5, 40)
    assert r.summary()["suite_seed"] == 12345 and "suite seed-12345 (seed 12345)" in r.table()
    by_name = _play(suite="seed-12345", deals=40, start=5)
    assert np.array_equal(by_name.pairings[0].a_first, r.pairings[0].a_first)
    d = arena.SUITES[arena.DEFAULT_SUITE]
    assert arena.seed_suite(12345) == Suite("seed-12345", 12345, d.deals, d.matches)


def test_a_suite_of_ones_own(tmp_path):
    mine = Suite("mine", 7, 60, 3)
    r = _play(suite=mine, deals=30, start=30, matches=2)
    assert (r.suite, r.suite_seed, r.suite_def) == ("mine", 7, mine)
    _is_simulate(r, 7, 30, 30)
    m = tractor.simulate(matches=2, policies=("random", "greedy") * 2, seed=7)
    assert np.array_equal(r.pairings[0].match_index, m.arrays["index"])
    with pytest.raises(InvalidArgument, match="deals"):
        _play(suite=mine, deals=31, start=30)
    f = tmp_path / "mine.json"
    r.to_json(str(f))
    back = arena.load(str(f))
    assert back.suite_def == mine and back.suite_seed == 7
    assert np.array_equal(back.pairings[0].a_first, r.pairings[0].a_first)


def test_frozen_suites_stay_as_they_are(tmp_path):
    r = _play(deals=10)
    assert (r.suite, r.suite_seed) == ("eval-v1", arena.SUITES["eval-v1"].seed)
    assert r.table().startswith("arena: suite eval-v1, profile")
    f = tmp_path / "eval.json"
    r.to_json(str(f))
    assert "suite_def" not in f.read_text(), "a frozen suite is known by its name"
    assert arena.load(str(f)).suite_def == arena.SUITES["eval-v1"]
    same = _play(suite=arena.SUITES["eval-v1"], deals=10)
    assert np.array_equal(same.pairings[0].a_first, r.pairings[0].a_first)


def test_merges_refuse_parts_of_other_suites():
    a = _play(seed=1, deals=20, start=0)
    b = _play(seed=1, deals=20, start=20)
    whole = arena.merge(a, b)
    assert whole.suite == "seed-1" and len(whole.pairings[0].index) == 40
    other = _play(seed=2, deals=20, start=20)
    with pytest.raises(IncompleteRun, match="another arena run: its suite is 'seed-2'"):
        arena.merge(a, other)
    same_name = _play(suite=Suite("mine", 1, 100, 0), deals=20, start=20)
    other_seed = _play(suite=Suite("mine", 3, 100, 0), deals=20, start=0)
    with pytest.raises(IncompleteRun, match="suite_def"):
        arena.merge(other_seed, same_name)


@pytest.mark.parametrize("kw, match", [
    ({"suite": "eval-v9"}, "unknown suite 'eval-v9'"),
    ({"suite": Suite("eval-v1", 1, 2000, 200)}, "'eval-v1' is the name of"),
    ({"suite": Suite("seed-5", 6, 2000, 200)}, "'seed-5' is the name of"),
    ({"suite": 3}, "must be a suite's name or a Suite"),
    ({"suite": "eval-v1", "seed": 3}, "pass one"),
    ({"seed": -1}, "seed"),
    ({"seed": 2**64}, "seed"),
])
def test_bad_suites_are_named(kw, match):
    with pytest.raises(InvalidArgument, match=match):
        _play(deals=5, **kw)


@pytest.mark.parametrize("args, match", [
    (("", 1, 10, 0), "name must not be empty"),
    (("x", 1.5, 10, 0), "seed"),
    (("x", 1, 0, 0), "deals"),
    (("x", 1, 10, -1), "matches"),
])
def test_bad_suite_fields_are_named(args, match):
    with pytest.raises(InvalidArgument, match=match):
        Suite(*args)


def test_a_file_with_a_bad_suite_def_is_refused(tmp_path):
    import json

    r = _play(suite=Suite("mine", 4, 100, 0), deals=5)
    d = r.to_dict()
    d["suite_def"]["seed"] = "four"
    f = tmp_path / "bad.json"
    f.write_text(json.dumps(d))
    with pytest.raises(ResultsFileError, match="suite_def"):
        arena.load(str(f))
    d["suite_def"] = {"seed": 4, "deals": 3, "matches": 0}  # fewer deals than it holds
    f.write_text(json.dumps(d))
    with pytest.raises(ResultsFileError, match="<= 3"):
        arena.load(str(f))
    d["suite"], d["suite_def"] = "seed-4", {"seed": 5, "deals": 100, "matches": 0}
    f.write_text(json.dumps(d))
    with pytest.raises(ResultsFileError, match="'seed-4' is the name of"):
        arena.load(str(f))


def test_cli_plays_a_seed_suite(tmp_path):
    import subprocess
    import sys

    def run(*args):
        return subprocess.run([sys.executable, "-m", "tractor.cli", *args], cwd=tmp_path, capture_output=True,
                              text=True, timeout=300)

    p = run("arena", "random", "greedy", "--suite", "seed-77", "--deals", "10", "--json", "s.json", "--quiet",
            "--no-cost", "--bootstrap", "0")
    assert p.returncode == 0, p.stderr
    assert "suite seed-77 (seed 77)" in p.stdout
    r = arena.load(str(tmp_path / "s.json"))
    assert (r.suite, r.suite_seed) == ("seed-77", 77)
    _is_simulate(r, 77, 0, 10)
    bad = run("arena", "random", "greedy", "--suite", "eval-v9", "--deals", "10")
    assert bad.returncode != 0 and "unknown suite 'eval-v9'" in bad.stderr
