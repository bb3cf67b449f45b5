"""Arena shards prove they belong together (issue 41 item 5): a merge refuses parts of other
runs, reordered or swapped pairings, misshapen arrays, overlaps and missing shards; loading a
results file checks every field; the files hold no NaN."""

from __future__ import annotations

import copy
import json
import subprocess
import sys

import numpy as np
import pytest

from tractor import arena
from tractor.errors import IncompleteRun, InvalidArgument, ResultsFileError

PS = ["random", "greedy", "pimc:worlds=1,rollouts=1"]


def _play(start, deals, **kw):
    return arena.play(PS, deals=deals, start=start, cost=False, bootstrap=0, **kw)


@pytest.fixture(scope="module")
def shards():
    return [_play(s, 10) for s in (0, 10, 20, 30)]


def _dict(r):
    return json.loads(json.dumps(r.to_dict()))


def test_whole_shards_merge_and_round_trip(shards, tmp_path):
    m = arena.merge(*shards)
    assert not m.interrupted and m.planned["deals"] == [(0, 40)]
    assert all(p.index.tolist() == list(range(40)) for p in m.pairings)
    m.to_json(str(tmp_path / "m.json"))
    back = arena.load(str(tmp_path / "m.json"))
    assert back.to_dict() == m.to_dict() and back.planned == m.planned


def test_a_missing_shard_is_named(shards):
    with pytest.raises(IncompleteRun, match=r"deals 20\.\.29 \(10 in all\)") as e:
        arena.merge(shards[0], shards[1], shards[3])
    assert e.value.missing == [(20, 30)]
    m = arena.merge(shards[0], shards[1], shards[3], partial=True)
    assert m.interrupted and len(m.pairings[0].index) == 30


def test_an_absent_last_shard_is_found_from_the_run(shards):
    parts = [copy.deepcopy(s) for s in shards[:2]]
    for p in parts:
        p.run = {"deals": (0, 30), "matches": (0, 0)}
    with pytest.raises(IncompleteRun, match=r"deals 20\.\.29"):
        arena.merge(*parts)


def test_an_interrupted_part_is_refused_unless_partial(shards):
    cut = copy.deepcopy(shards[1])
    cut.pairings = cut.pairings[:1]
    cut.interrupted = True
    with pytest.raises(IncompleteRun, match=r"pairing random vs pimc.*deals 10\.\.19"):
        arena.merge(shards[0], cut)
    assert arena.merge(shards[0], cut, partial=True).interrupted


@pytest.mark.parametrize("change, match", [
    (lambda r: setattr(r, "engine", "0.0.1"), "its engine is '0.0.1'"),
    (lambda r: setattr(r, "profile", "nanning"), "its profile"),
    (lambda r: setattr(r, "anchors", {}), "its anchors"),
])
def test_parts_of_another_run_are_refused(shards, change, match):
    other = copy.deepcopy(shards[1])
    change(other)
    with pytest.raises(IncompleteRun, match=match):
        arena.merge(shards[0], other)


def test_reordered_or_swapped_pairings_are_refused(shards):
    re = copy.deepcopy(shards[1])
    re.pairings = re.pairings[::-1]
    with pytest.raises(InvalidArgument, match=r"parts\[1\]: pairings\[0\] is 'greedy' vs 'pimc.*reordered"):
        arena.merge(shards[0], re)
    sw = copy.deepcopy(shards[1])
    p = sw.pairings[0]
    p.a, p.b = p.b, p.a
    with pytest.raises(InvalidArgument, match="teams swapped"):
        arena.merge(shards[0], sw)
    swapped_labels = copy.deepcopy(shards[1])
    swapped_labels.labels = swapped_labels.labels[::-1]
    with pytest.raises(InvalidArgument, match="pairings\\[0\\]"):
        arena.merge(shards[0], swapped_labels)


def test_misshapen_arrays_are_refused(shards):
    long = copy.deepcopy(shards[1])
    long.pairings[0].a_first = np.concatenate([long.pairings[0].a_first, [3]]).astype(np.int16)
    with pytest.raises(InvalidArgument, match="a_first holds 11 values for 10 indices"):
        arena.merge(shards[0], long)
    with pytest.raises(InvalidArgument, match=r"parts\[1\] is a dict"):
        arena.merge(shards[0], shards[1].to_dict())


def _bad(d, path):
    *keys, last = path
    for k in keys:
        d = d[k]
    return d, last


@pytest.mark.parametrize("path, value, match", [
    (("pairings", 0, "a_first", 0), 40000, "a_first holds 40000, out of range"),
    (("pairings", 0, "index", 0), -1, "index holds -1, out of range"),
    (("pairings", 0, "index", 0), 5000, "index holds 5000"),
    (("pairings", 0, "index", 1), 0, "strictly increasing"),
    (("pairings", 0, "a_second", 0), 1.5, "a_second must hold integers"),
    (("pairings", 0, "match_wins"), {}, "match_wins must be a list"),
    (("pairings", 1), [], r"pairings\[1\] must be an object"),
    (("cost_us",), [], "cost_us must be a dict"),
    (("anchors",), {"random": "x"}, "anchors"),
    (("bootstrap",), -1, "bootstrap"),
    (("bootstrap",), True, "bootstrap"),
    (("elapsed_s",), "soon", "elapsed_s"),
    (("interrupted",), 0, "interrupted must be a bool"),
    (("labels",), "random", "labels must be a list"),
    (("suite",), "eval-v9", "suite 'eval-v9'"),
    (("run",), [0, 10], "run must be null"),
    (("planned", "deals"), [[5, 1]], "planned deals"),
])
def test_loading_checks_every_field(shards, tmp_path, path, value, match):
    d = _dict(shards[0])
    at, last = _bad(d, path)
    at[last] = value
    f = tmp_path / "bad.json"
    f.write_text(json.dumps(d))
    with pytest.raises(ResultsFileError, match=match):
        arena.load(str(f))


def test_loading_refuses_missing_pairings_and_long_arrays(shards, tmp_path):
    f = tmp_path / "bad.json"
    d = _dict(shards[0])
    d["pairings"] = d["pairings"][:2]
    f.write_text(json.dumps(d))
    with pytest.raises(ResultsFileError, match="make 3 pairings, it holds 2 and is not marked interrupted"):
        arena.load(str(f))
    d = _dict(shards[0])
    d["pairings"][0]["a_second"].append(1)
    f.write_text(json.dumps(d))
    with pytest.raises(ResultsFileError, match="a_second holds 11 values for 10 indices"):
        arena.load(str(f))
    d = _dict(shards[0])
    d["pairings"][0], d["pairings"][1] = d["pairings"][1], d["pairings"][0]
    f.write_text(json.dumps(d))
    with pytest.raises(ResultsFileError, match="reordered"):
        arena.load(str(f))
    f.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ResultsFileError, match="nested too deeply"):
        arena.load(str(f))


def test_files_hold_no_nan_and_older_files_still_load(shards, tmp_path):
    f = tmp_path / "a.json"
    shards[0].to_json(str(f))  # bootstrap=0: the intervals are not numbers
    text = f.read_text()
    assert "NaN" not in text and "Infinity" not in text
    d = json.loads(text)
    assert d["summary"]["ratings"]["random"][1] is None
    del d["planned"], d["run"]  # written before the merge checked the ranges
    f.write_text(json.dumps(d))
    assert arena.load(str(f)).planned == {}
    d["summary"] = float("nan")
    f.write_text(json.dumps(d))
    with pytest.raises(ResultsFileError, match="NaN is not a JSON value"):
        arena.load(str(f))


def _cli(tmp_path, *args):
    return subprocess.run([sys.executable, "-m", "tractor.cli", *args], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300)


def test_cli_merge_finds_an_absent_shard_and_crafted_files(tmp_path):
    for i in (0, 2):
        p = _cli(tmp_path, "arena", "random", "greedy", "--deals", "9", "--shard", f"{i}/3", "--json", f"s{i}.json",
                 "--quiet", "--no-cost", "--bootstrap", "0")
        assert p.returncode == 0, p.stderr
    p = _cli(tmp_path, "merge", "s0.json", "s2.json", "-o", "m.json")
    assert p.returncode == 2 and "tractor: error: merge: " in p.stderr and "deals 3..5 (3 in all)" in p.stderr
    assert not (tmp_path / "m.json").exists()
    p = _cli(tmp_path, "merge", "s0.json", "s2.json", "-o", "m.json", "--partial")
    assert p.returncode == 0, p.stderr
    assert arena.load(str(tmp_path / "m.json")).interrupted
    d = json.loads((tmp_path / "s2.json").read_text())
    d["pairings"][0]["a_first"][0] = 10**30
    (tmp_path / "s2.json").write_text(json.dumps(d))
    p = _cli(tmp_path, "merge", "s0.json", "s2.json", "-o", "m2.json")
    assert p.returncode == 2 and "tractor: error: s2.json: pairing random vs greedy: a_first holds" in p.stderr
    assert "Traceback" not in p.stderr
