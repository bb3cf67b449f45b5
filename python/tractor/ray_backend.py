"""Run :func:`tractor.simulate` on a Ray cluster: index-range shards spread over the workers,
merged in index order. Same seed, same numbers as a local run (hand seeds depend only on the
run seed and the global hand index). ``pip install "tractor-engine[ray]"``.

Every option of :func:`tractor.simulate` works here:

- ``chunk``: hands (or matches) per Ray task (default: about four tasks per CPU, at most
  100,000 hands or 2,000 matches a task); tasks are submitted a window at a time, so a huge
  run does not flood the cluster.
- ``threads``: threads per task, and the CPUs each task reserves (default 1).
- ``keep_arrays=False``: each task returns its running summary only.
- ``records``: each task returns its hands' records; the driver writes them to the file in
  index order as the tasks finish.
- ``progress(done, total)``: called as tasks finish.
- Ctrl-C: stops submitting, cancels the tasks under way and returns what finished, merged,
  with ``interrupted=True`` (as a local run does). A records file then holds the hands up to
  the first that did not finish.
- A task whose worker dies (a killed process, a lost node) is retried up to
  ``TASK_RETRIES`` times (Ray's ``max_retries``). If one still fails, or raises, the run
  stops as Ctrl-C stops it and returns what finished, with ``interrupted=True`` and
  ``meta["failure"]`` naming the error and the hand ranges that did not finish (a
  RuntimeWarning says so too); the records file holds the finished prefix, its footer marked
  stopped. The CLI prints the failure and exits with status 1.
- ``address``: a running cluster's address (``"ray://head:10001"``, ``"host:6379"``,
  ``"auto"``); without it, ``RAY_ADDRESS`` if set, else a new local instance. A host and port
  that accept no connection within ``CONNECT_TIMEOUT_S`` seconds are refused with
  InvalidArgument (Ray itself would retry for minutes). If this process is already connected
  to Ray, an ``address`` naming another cluster is refused (call ``ray.shutdown()`` first).
"""

from __future__ import annotations

import os
import socket
import time
import warnings
from typing import Any, Dict, List, Optional, Tuple

from .errors import InvalidArgument, TractorError
from .sim.files import RecordsOut
from .sim.local import _Interrupt, run_local
from .sim.merging import merge
from .sim.ranges import _gaps, _show_ranges, _union

TASK_HANDS = 100_000
TASK_MATCHES = 2_000
TASK_RETRIES = 2
"""How many times Ray runs a task again whose worker died (its ``max_retries``)."""
CONNECT_TIMEOUT_S = 10.0
"""How long an ``address``'s host and port may take to accept a connection."""


def _task(kind: str, start: int, n: int, policies, seed: int, profile: str, duplicate: bool, max_hands: int,
          threads: int, keep: bool, records: bool) -> Tuple[Any, bytes]:
    """One shard, on a worker: its results and, with `records`, its records' frames."""
    if kind == "matches":
        return _whole(run_local(kind, n, policies, seed, threads, profile, start, max_hands=max_hands)), b""
    if not records:
        res = run_local(kind, n, policies, seed, threads, profile, start, duplicate=duplicate, keep=keep)
        return _whole(res), b""
    sink = _Frames()
    res = run_local(kind, n, policies, seed, threads, profile, start, duplicate=duplicate, keep=keep, records=sink)
    return _whole(res), b"".join(sink.parts)


def _whole(res: Any) -> Any:
    """A task's results, or its failure raised (a deal the engine failed: the driver then
    stops the run, names the task's error, and keeps the tasks that finished)."""
    failure = res.meta.get("failure")
    if failure:
        raise TractorError(failure)
    return res


class _Frames:
    """Where a task's records go: its frames, kept in memory for the driver's file."""

    def __init__(self) -> None:
        self.parts: List[bytes] = []

    def write(self, frames: bytes) -> None:
        self.parts.append(frames)


def _connect(ray: Any, address: Optional[str]) -> None:
    if ray.is_initialized():
        if address not in (None, "auto"):
            try:
                current = ray.get_runtime_context().gcs_address
            except Exception:
                current = None
            if current is None or address.split("://")[-1] != str(current).split("://")[-1]:
                raise InvalidArgument(
                    f"address={address!r}: this process is already connected to Ray ({current}); "
                    "call ray.shutdown() first, or leave address out"
                )
        return
    target = address or os.environ.get("RAY_ADDRESS") or "a new local instance"
    _reachable(address or os.environ.get("RAY_ADDRESS"), target)
    try:
        if address:
            ray.init(address=address)
        else:
            ray.init()
    except Exception as e:  # ConnectionError, ValueError, RuntimeError, ...
        raise InvalidArgument(f"address: cannot start or reach Ray at {target}: {type(e).__name__}: {e}") from None


def _reachable(address: Optional[str], target: str) -> None:
    """Refuses, within CONNECT_TIMEOUT_S, an address whose host and port accept no connection."""
    if not address or address in ("auto", "local"):
        return
    hostport = address.split("://", 1)[-1].rsplit("/", 1)[0]
    host, sep, port = hostport.rpartition(":")
    if not sep or not port.isdigit():
        return  # no port to try: Ray says what it makes of it
    try:
        socket.create_connection((host.strip("[]") or "127.0.0.1", int(port)), timeout=CONNECT_TIMEOUT_S).close()
    except OSError as e:
        raise InvalidArgument(f"address: cannot reach Ray at {target}: no connection to {hostport} within "
                              f"{CONNECT_TIMEOUT_S:g} s ({e.strerror or e})") from None


def simulate_ray(
    *,
    what: str,
    total: int,
    policies: Tuple[str, str, str, str],
    seed: int,
    profile: str,
    start: int,
    duplicate: bool,
    max_hands: int,
    address: Optional[str] = None,
    threads: int = 0,
    chunk: Optional[int] = None,
    keep_arrays: bool = True,
    records: Optional[str] = None,
    progress: Any = None,
    shards_per_cpu: int = 4,
) -> Any:
    try:
        import ray
    except ImportError:
        raise InvalidArgument('backend="ray" needs Ray: pip install "tractor-engine[ray]"') from None
    _connect(ray, address)
    per_task_threads = threads or 1
    try:
        nodes_cpus = [n.get("Resources", {}).get("CPU", 0) for n in ray.nodes() if n.get("Alive")]
        cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
    except Exception as e:
        raise TractorError(f"cannot read the Ray cluster's resources: {e}") from None
    if nodes_cpus and per_task_threads > max(nodes_cpus):
        raise InvalidArgument(
            f"threads={threads}: each Ray task reserves that many CPUs, and no node has more than "
            f"{int(max(nodes_cpus))}"
        )
    slots = max(1, cpus // per_task_threads)
    if chunk is None:
        cap = TASK_MATCHES if what == "matches" else TASK_HANDS
        size = max(1, min(cap, -(-total // (slots * shards_per_cpu)) if total else 1))
    else:
        size = chunk
    t0 = time.perf_counter()
    out = None
    meta: Dict[str, Any] = {}
    if records is not None:
        out = RecordsOut(records, {"seed": seed, "policies": list(policies), "profile": profile, "start": start,
                                   "hands": total}, start)
        meta.update(records=records, records_written=0)
    remote = ray.remote(num_cpus=per_task_threads, max_retries=TASK_RETRIES)(_task)
    ranges = [(a, min(size, start + total - a)) for a in range(start, start + total, size)]
    window = max(2, slots * 2)
    inflight: Dict[Any, Tuple[int, int]] = {}
    parts: List[Any] = []
    blobs: Dict[int, Tuple[int, bytes]] = {}
    write_at = start
    finished: List[Tuple[int, int]] = []
    done = 0
    nxt = 0
    failure: Optional[BaseException] = None
    try:
        with _Interrupt() as stop:
            try:
                while (nxt < len(ranges) or inflight) and not stop.requested:
                    while nxt < len(ranges) and len(inflight) < window:
                        a, n = ranges[nxt]
                        ref = remote.remote(what, a, n, policies, seed, profile, duplicate, max_hands,
                                            per_task_threads, keep_arrays, out is not None)
                        inflight[ref] = (a, n)
                        nxt += 1
                    ready, _ = ray.wait(list(inflight), num_returns=1, timeout=0.5)
                    for ref in ready:
                        a, n = inflight.pop(ref)
                        try:
                            res, blob = ray.get(ref)
                        except Exception as e:  # retried by Ray and failed still, or raised
                            failure = e
                            raise _Stop() from None
                        parts.append(res)
                        finished.append((a, a + n))
                        done += n
                        if out is not None:
                            blobs[a] = (n, blob)
                            while write_at in blobs:
                                k, b = blobs.pop(write_at)
                                try:
                                    out.write(b)
                                except OSError as e:
                                    meta["records_error"] = (f"cannot write {records!r} after {out.hands:,} hands: "
                                                             f"{e.strerror or e}; the file was not kept")
                                    out.abort()
                                    out = None
                                    blobs.clear()
                                    break
                                write_at += k
                        if progress:
                            progress(done, total)
            except (KeyboardInterrupt, _Stop):
                pass
    finally:
        for ref in inflight:
            try:
                ray.cancel(ref)
            except Exception:
                pass
        if out is not None:
            try:
                meta["records_written"] = out.finish(stopped=write_at < start + total)
            except OSError as e:
                meta["records_error"] = f"cannot write {records!r}: {e.strerror or e}; the file was not kept"
    elapsed = time.perf_counter() - t0
    interrupted = done < total
    if not parts:
        parts = [run_local(what, 0, policies, seed, 1, profile, start, duplicate=duplicate, keep=keep_arrays)]
    res = merge(parts, partial=interrupted)
    res.elapsed = elapsed
    res.interrupted = interrupted
    res.planned = [(start, start + total)] if total else []
    if getattr(res, "duplicate", None) is not None:
        res.duplicate.elapsed = elapsed
    if what == "hands":
        res.meta.update(meta)
        if interrupted and records is not None:
            res.meta["records_note"] = "the records file holds the hands up to the first that did not finish"
    if failure is not None:
        missing = _gaps(start, start + total, _union(finished))
        text = (f"a Ray task failed ({'retried ' + str(TASK_RETRIES) + ' times, ' if TASK_RETRIES else ''}"
                f"{type(failure).__name__}: {str(failure).strip().splitlines()[-1] if str(failure).strip() else ''}); "
                f"{what} {_show_ranges(missing)} did not finish: the results hold the {done:,} that did")
        res.meta["failure"] = text
        res.meta["missing"] = missing
        warnings.warn(text, RuntimeWarning, stacklevel=3)
    return res


class _Stop(Exception):
    pass
