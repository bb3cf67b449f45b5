"""The Ray backend when tasks fail, on a local cluster of two nodes started here: a task whose
worker is killed is retried (Ray's ``max_retries``) and the run equals a local one; a node
removed mid-run loses nothing; tasks that keep failing end the run as Ctrl-C does, returning
what finished with the missing hand ranges named (and the records of the finished prefix,
their footer marked stopped); an unreachable ``address`` is refused within a bounded time; self-play
samples on the two nodes equal a local run's."""

from __future__ import annotations

import glob
import os
import signal
import threading
import time
import warnings

import numpy as np
import pytest

import tractor
from tractor import ray_backend
from tractor.errors import InvalidArgument

ray = pytest.importorskip("ray", reason="Ray is not installed (pip install ray): the Ray backend is optional")


@pytest.fixture(scope="module")
def cluster():
    from ray.cluster_utils import Cluster

    if ray.is_initialized():
        ray.shutdown()
    small = {"num_cpus": 1, "object_store_memory": 100 * 1024**2}
    c = Cluster(initialize_head=True, head_node_args={**small, "include_dashboard": False})
    c.add_node(**small)
    ray.init(address=c.address, log_to_driver=False)
    try:
        yield c
    finally:
        ray.shutdown()
        c.shutdown()


def task_pids(raylets):
    """The worker processes running tractor's task now (Ray titles them ray::_task) whose
    parent is one of ``raylets``: this cluster's, not another Ray's on the machine (a test
    run by another pytest-xdist worker)."""
    out = []
    for p in glob.glob("/proc/[0-9]*/cmdline"):
        try:
            with open(p, "rb") as f:
                if not f.read().startswith(b"ray::_task"):
                    continue
            pid = int(p.split("/")[2])
            with open(f"/proc/{pid}/stat") as f:
                parent = int(f.read().rsplit(")", 1)[1].split()[1])
            if parent in raylets:
                out.append(pid)
        except (OSError, ValueError, IndexError):
            pass
    return out


def raylets(cluster):
    return {p.process.pid for node in cluster.list_all_nodes() for p in node.all_processes.get("raylet", [])}


class Killer:
    """Kills the cluster's task workers from a thread: the first one seen (``times=1``), or
    every one seen once ``start`` is set (``times=None``)."""

    def __init__(self, cluster, times=None):
        self.raylets = raylets(cluster)
        assert self.raylets
        self.times, self.killed, self.stop, self.start = times, 0, threading.Event(), threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while not self.stop.is_set():
            if self.start.is_set():
                for pid in task_pids(self.raylets):
                    try:
                        os.kill(pid, signal.SIGKILL)
                        self.killed += 1
                    except OSError:
                        pass
                    if self.times is not None and self.killed >= self.times:
                        return
            time.sleep(0.005)

    def close(self):
        self.stop.set()
        self.thread.join(10)


def test_self_play_samples_on_two_nodes_equal_a_local_run(cluster):
    # issue 40: the network on every seat, Monte-Carlo and rollout-valued samples, tasks over
    # both nodes of the cluster (before a later test removes one)
    from tractor import train as T

    assert sum(n["Alive"] for n in ray.nodes()) == 2
    for sp in (T.SelfPlay(seats=["play-net-v1"] * 4, base="tuned-greedy-v1", label_rate=0.2, rollouts=0, obs_version=2),
               T.SelfPlay(seats=["play-net-v1", "greedy"] * 2, base="tuned-greedy-v1", rollout="greedy", label_rate=0.05,
                          per_decision=3, obs_version=2)):
        local = T.samples(7, 11, 24, sp, threads=1)
        remote = T.samples(7, 11, 24, sp, backend="ray", chunk=3)
        assert set(local) == set(remote) and len(local["seat"]) > 10
        for k in local:
            assert np.array_equal(local[k], remote[k]), k


def test_a_killed_task_is_retried_and_the_run_is_whole(cluster, tmp_path):
    # tasks of 400 greedy hands (tens of ms): the killer, polling every 5 ms, meets one (tasks of
    # 100 random hands, a few ms each, could all finish before it looked)
    greedy = "greedy,greedy,greedy,greedy"
    want = tractor.simulate(hands=2400, seed=8, threads=1, policies=greedy, records=str(tmp_path / "local.rec"))
    k = Killer(cluster, times=1)
    k.start.set()
    try:
        got = tractor.simulate(hands=2400, seed=8, backend="ray", chunk=400, policies=greedy,
                               records=str(tmp_path / "ray.rec"))
    finally:
        k.close()
    assert k.killed == 1
    assert not got.interrupted and "failure" not in got.meta
    for c in want.arrays:
        assert np.array_equal(got.arrays[c], want.arrays[c]), c
    assert (tmp_path / "ray.rec").read_bytes() == (tmp_path / "local.rec").read_bytes()


def test_tasks_that_keep_failing_return_what_finished(cluster, tmp_path):
    # tasks of 400 greedy hands (tens of ms): the killer, polling every 5 ms, meets each one
    want = tractor.simulate(hands=4000, seed=9, threads=1, policies="greedy,greedy,greedy,greedy")
    k = Killer(cluster)

    def progress(done, total):
        k.start.set()  # from the first finished task on, every task's worker is killed

    path = tmp_path / "r.rec"
    try:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            got = tractor.simulate(hands=4000, seed=9, backend="ray", chunk=400, records=str(path), progress=progress,
                                   policies="greedy,greedy,greedy,greedy")
    finally:
        k.close()
    assert got.interrupted and 400 <= len(got) < 4000
    failure = got.meta["failure"]
    assert "a Ray task failed" in failure and "did not finish" in failure, failure
    assert any(issubclass(x.category, RuntimeWarning) and "Ray task failed" in str(x.message) for x in w)
    # what finished is the run's own hands; finished and missing ranges make up the run
    idx = got.index.astype(np.int64)
    assert np.array_equal(got.score, want.score[idx])
    have = sorted(set(idx.tolist()))
    missing = [i for a, b in got.meta["missing"] for i in range(a, b)]
    assert sorted(have + missing) == list(range(4000))
    # the records: the finished prefix, whole, its footer marked stopped
    r = tractor.read_records(path, replay=False)
    recs = list(r)
    assert r.complete and r.stopped and len(recs) == got.meta["records_written"]
    assert [x.hand for x in recs] == list(range(len(recs))) and set(range(len(recs))) <= set(have)


def test_the_cli_reports_a_failed_run_and_exits_1(cluster, tmp_path, capsys):
    from tractor.cli import main

    k = Killer(cluster)
    k.start.set()
    try:
        rc = main(["simulate", "--hands", "4000", "--backend", "ray", "--chunk", "400", "--quiet", "--policy",
                   "greedy,greedy,greedy,greedy",
                   "--records", str(tmp_path / "r.rec")])
    finally:
        k.close()
    out, err = capsys.readouterr()
    assert rc == 1, (out, err)
    assert "tractor: error: --backend ray: a Ray task failed" in err and "did not finish" in err
    assert "wrote" in out and tractor.read_records(tmp_path / "r.rec", replay=False).header["hands"] == 4000


def test_a_node_lost_mid_run_loses_nothing(cluster):
    want = tractor.simulate(hands=2000, seed=10, threads=1)
    node = [n for n in cluster.list_all_nodes() if n is not cluster.head_node][0]
    removed = []

    def progress(done, total):
        if not removed:
            removed.append(True)
            cluster.remove_node(node)  # its tasks under way are run again on the head

    got = tractor.simulate(hands=2000, seed=10, backend="ray", chunk=100, progress=progress)
    assert removed and not got.interrupted and "failure" not in got.meta
    for c in want.arrays:
        assert np.array_equal(got.arrays[c], want.arrays[c]), c


def test_an_unreachable_address_is_refused_within_the_bound(monkeypatch):
    monkeypatch.setattr(ray_backend, "CONNECT_TIMEOUT_S", 1.0)
    for address in ("127.0.0.1:1", "ray://127.0.0.1:1", "192.0.2.1:6379"):
        t = time.perf_counter()
        with pytest.raises(InvalidArgument, match="cannot reach Ray"):
            ray_backend._reachable(address, address)
        assert time.perf_counter() - t < 3, address
