"""The Ray backend implements every option of ``simulate`` (or refuses it): records, progress,
keep_arrays=False, threads, chunk; real elapsed time; Ctrl-C keeps and summarises what
finished, as a local run does; an ``address`` that would be ignored is refused."""

from __future__ import annotations

import math
import os
import re

import numpy as np
import pytest

import tractor
from _cli_util import hands_summarised, interrupt_cli
from tractor.errors import InvalidArgument

ray = pytest.importorskip("ray", reason="Ray is not installed (pip install ray): the Ray backend is optional")

POLICIES = "greedy,random,greedy,random"


def same(a, b) -> None:
    assert set(a.arrays) == set(b.arrays)
    for k in a.arrays:
        assert np.array_equal(a.arrays[k], b.arrays[k]), k


def timeless(s):
    return {k: v for k, v in s.items() if k not in ("elapsed_s", "hands_per_s")}


def test_records_progress_chunk_threads_and_time(ray_local, tmp_path):
    local = tmp_path / "local.rec"
    remote = tmp_path / "ray.rec"
    want = tractor.simulate(hands=120, seed=4, start=9, threads=1, records=str(local))
    calls = []
    got = tractor.simulate(hands=120, seed=4, start=9, backend="ray", records=str(remote), chunk=25,
                           threads=2, progress=lambda d, t: calls.append((d, t)))
    same(got, want)
    assert remote.read_bytes() == local.read_bytes(), "the same file, header and hands, in index order"
    assert [t for _, t in calls] == [120] * 5 and sorted(d for d, _ in calls) == [25, 50, 75, 100, 120]
    s = got.summary()
    assert s["elapsed_s"] > 0 and math.isfinite(s["hands_per_s"]) and s["hands_per_s"] > 0
    assert got.meta["records_written"] == 120


def test_streaming_and_duplicate_runs(ray_local):
    want = tractor.simulate(hands=90, seed=2, threads=2, duplicate=True)
    got = tractor.simulate(hands=90, seed=2, backend="ray", duplicate=True, keep_arrays=False, chunk=40)
    assert got.tally is not None and len(got) == 0
    assert timeless(got.summary()) == timeless(want.summary())
    m = tractor.simulate(matches=3, seed=2, backend="ray", chunk=1, max_hands=4)
    same(m, tractor.simulate(matches=3, seed=2, threads=1, max_hands=4))


def test_refusals(ray_local):
    with pytest.raises(InvalidArgument, match="threads=3: each Ray task reserves"):
        tractor.simulate(hands=10, backend="ray", threads=3)
    with pytest.raises(InvalidArgument, match="already connected to Ray"):
        tractor.simulate(hands=10, backend="ray", address="ray://elsewhere:10001")
    r = tractor.simulate(hands=10, backend="ray", address="auto")  # the cluster this process is on
    assert len(r) == 10
    with pytest.raises(InvalidArgument, match="address"):
        tractor.simulate(hands=10, backend="ray", address=5)


def test_an_interrupt_keeps_what_finished(ray_local, tmp_path):
    """Ctrl-C arrives (here from the progress callback) after the first task: the finished
    tasks are merged, the rest cancelled, and the records hold the finished prefix."""
    path = tmp_path / "r.rec"

    def ctrl_c(done, total):
        raise KeyboardInterrupt

    r = tractor.simulate(hands=400, seed=6, backend="ray", chunk=20, progress=ctrl_c, records=str(path))
    assert r.interrupted and 20 <= len(r) < 400 and len(r) % 20 == 0
    s = r.summary()
    assert s["interrupted"] and s["hands"] == len(r) and s["elapsed_s"] > 0
    local = tractor.simulate(hands=400, seed=6, threads=2)
    idx = r.index.astype(np.int64)
    assert np.array_equal(r.score, local.score[idx]), "what finished is the run's own hands"
    n = len(list(tractor.read_records(path, replay=False)))
    assert n == r.meta["records_written"] and n % 20 == 0


def test_cli_ctrl_c_with_ray_stops_cleanly_with_a_summary(ray_local, tmp_path):
    # The CLI joins this module's Ray runtime (RAY_ADDRESS, as a user on a cluster would)
    # rather than starting a second one beside it on the same two cores.
    env = {**os.environ, "RAY_DISABLE_DOCKER_CPU_WARNING": "1", "RAY_ADDRESS": ray_local.get_runtime_context().gcs_address}
    rc, out, err = interrupt_cli(["simulate", "--hands", "100000000", "--backend", "ray", "--chunk", "200"],
                                 tmp_path, wait_s=180, env=env)
    assert rc == 130, (rc, out, err[-3000:])
    assert re.search(r"^interrupted\s+True\b", out, re.M), out
    n = hands_summarised(out)
    assert n % 200 == 0 and n > 0, out
    assert b"Traceback" not in err and b"interrupted: summarising the" in err
    assert not re.search(r"^elapsed_s\s+0$", out, re.M)


def test_the_arena_on_ray_equals_a_local_run(ray_local):
    ps = ["random", "greedy"]
    local = tractor.arena.play(ps, deals=40, matches=2, threads=2, cost=False, bootstrap=10)
    remote = tractor.arena.play(ps, deals=40, matches=2, backend="ray", cost=False, bootstrap=10)
    for p, q in zip(local.pairings, remote.pairings):
        assert np.array_equal(p.a_first, q.a_first) and np.array_equal(p.a_second, q.a_second)
        assert np.array_equal(p.match_wins, q.match_wins)
    assert local.ratings() == remote.ratings()


def test_self_play_samples_on_ray_equal_a_local_run(ray_local):
    from tractor import train as T

    sp = T.SelfPlay(seats=["greedy"] * 4, base="greedy", rollout="greedy", label_rate=0.1, per_decision=3)
    local = T.samples(4, 3, 30, sp, threads=2)
    remote = T.samples(4, 3, 30, sp, backend="ray", chunk=7)
    assert set(local) == set(remote)
    for k in local:
        assert np.array_equal(local[k], remote[k]), k
    # the hands' levels and the play-features version travel to the tasks
    drawn = T.SelfPlay(**{**sp.__dict__, "levels": "drawn", "play_features": 2})
    local, remote = T.samples(4, 3, 12, drawn, threads=2), T.samples(4, 3, 12, drawn, backend="ray", chunk=5)
    assert all(np.array_equal(local[k], remote[k]) for k in local) and remote["features"].shape[1] == 83
    assert not np.array_equal(local["returns"], T.samples(4, 3, 12, sp, threads=1)["returns"])
