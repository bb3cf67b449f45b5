"""The run loop on this machine: chunks of hands (or matches) played by the core on a thread
pool, the results gathered as they finish (arrays that grow, or a running summary), records
streamed to their file, and Ctrl-C between chunks. Arguments come checked (:mod:`tractor.sim.run`)."""

from __future__ import annotations

import os
import signal
import threading
import time
from contextlib import contextmanager
from typing import Any, Dict, Iterator, List, Optional, Tuple

import warnings
from collections import deque

import numpy as np

from .. import _core
from ..errors import NoConsistentWorld, TractorError
from .columns import HAND_COLUMNS, MATCH_COLUMNS, _columns, _concat
from .files import NpzStream, RecordsOut
from .ranges import _show_ranges
from .results import MatchResults, SimResults
from .stats import Tally
from .table import label, table_hands

HAND_CHUNK = 20_000
"""Hands per chunk by default: progress and Ctrl-C act between chunks."""
MATCH_CHUNK = 400
"""Matches per chunk by default."""


def run_local(what: str, total: int, policies: Tuple[str, str, str, str], seed: int, threads: int,
              profile: str, start: int, *, duplicate: bool = False, max_hands: int = 1000,
              records: Optional[str] = None, chunk: Optional[int] = None, keep: bool = True,
              progress: Any = None, sink: Optional[NpzStream] = None) -> Any:
    """A run of ``total`` hands (``what="hands"``) or matches from ``start`` on this machine,
    its arguments checked and canonical (``threads`` 0: all cores; ``chunk`` None: the
    default): :class:`SimResults` or :class:`MatchResults`."""
    if what == "matches":
        return _simulate_matches(total, policies, seed, threads, profile, max_hands, start,
                                 MATCH_CHUNK if chunk is None else chunk, progress)
    return _simulate_hands(total, policies, seed, threads, profile, duplicate, start, records,
                           HAND_CHUNK if chunk is None else chunk, keep, progress, sink)


def _chunks(start: int, count: int, chunk: int) -> Iterator[Tuple[int, int]]:
    i = start
    end = start + count
    while i < end:
        n = min(chunk, end - i)
        yield i, n
        i += n


def _engine_fault(e: BaseException) -> bool:
    """A fault of the engine in one deal (a panic reported as an internal error, or a search
    that found no world), not a bad argument or a callable's error, which fail the whole run."""
    return type(e) is TractorError or isinstance(e, NoConsistentWorld)


class _Chunks:
    """The chunks of a run, drawn as they are needed (a run of 10^12 hands has 10^9 of them),
    and the deals of a failed chunk queued again one by one, before the chunks after it."""

    def __init__(self, start: int, count: int, chunk: int) -> None:
        self._chunks = _chunks(start, count, chunk)
        self._again: deque = deque()

    def __iter__(self) -> Iterator[Tuple[int, int]]:
        while True:
            if self._again:
                yield self._again.popleft()
                continue
            nxt = next(self._chunks, None)
            if nxt is None:
                return
            yield nxt

    def one_by_one(self, i: int, n: int) -> None:
        self._again.extend((j, 1) for j in range(i, i + n))


def _on_fault(e: TractorError, what: str, todo: _Chunks, chunk: Tuple[int, int], run: Tuple[int, int, int],
              meta: Dict[str, Any]) -> bool:
    """A chunk ``(i, n)`` raised ``e``: an engine fault in a chunk of several deals queues them
    again one by one (every deal before the failing one is then kept); in one deal it is the
    run's failure, noted in ``meta`` with a RuntimeWarning (the error, the deal, what did not
    finish), and the run stops (True). Anything else is raised again."""
    if not _engine_fault(e):
        raise e
    (i, n), (start, total, done) = chunk, run
    if n > 1:
        todo.one_by_one(i, n)
        return False
    missing = [(i, start + total)]
    one = {"hands": "hand", "matches": "match"}[what]
    meta["failure"] = (f"{one} {i} failed ({type(e).__name__}: {e}); {what} {_show_ranges(missing)} did not finish: "
                       f"the results hold the {done:,} that did")
    meta["missing"] = missing
    warnings.warn(meta["failure"], RuntimeWarning, stacklevel=5)
    return True


class _Interrupt:
    """Ctrl-C during a run: the first asks the run to stop after the current chunk (whose
    results are kept); the second, while the engine works on a chunk (``stop.working()``),
    raises KeyboardInterrupt once that call returns, and the chunk is dropped; any other is
    held, so that what the run keeps and writes stays consistent. Only in the main thread,
    and only when SIGINT has Python's default handler (or is another run's, whose flag is then
    shared); elsewhere KeyboardInterrupt is caught."""

    def __init__(self) -> None:
        self.requested = False
        self.hits = 0
        self._working = False
        self._holding = 0  # 0: not holding; 1: holding, not said yet; 2: holding, said (or quiet)
        self._old: Any = None

    def __enter__(self) -> "_Interrupt":
        if threading.current_thread() is threading.main_thread():
            try:
                outer = getattr(signal.getsignal(signal.SIGINT), "__self__", None)
                if isinstance(outer, _Interrupt):  # a run inside a run (the arena's pairings): one flag
                    return outer
                if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
                    self._old = signal.signal(signal.SIGINT, self._handle)
            except (ValueError, OSError):  # not the main interpreter, or no signals here
                self._old = None
        return self

    def _handle(self, signum: int, frame: Any) -> None:
        self.hits += 1
        self.requested = True
        if self._holding:
            if self._holding == 1:
                self._holding = 2
                # a raw write: a print here could land inside another print's buffer
                os.write(2, b"\ntractor: Ctrl-C: the outputs are written first, then it stops\n")
            return
        if self.hits > 1 and self._working:
            self._working = False
            raise KeyboardInterrupt

    def hold(self, quiet: bool = False) -> None:
        """From now on Ctrl-C is held (noted, said once unless ``quiet``, never raised): the
        CLI's outputs are being written, or the command is over."""
        if quiet:
            self._holding = 2
        elif not self._holding:
            self._holding = 1

    @contextmanager
    def working(self) -> Iterator[None]:
        """A call into the engine that a second Ctrl-C abandons."""
        self._working = True
        try:
            yield
        finally:
            self._working = False

    def __exit__(self, *exc: Any) -> None:
        if self._old is not None:
            signal.signal(signal.SIGINT, self._old)
            self._old = None


def _simulate_matches(total, ps, seed, nthreads, profile, cap, start, chunk, progress) -> "MatchResults":
    t0 = time.perf_counter()
    parts: List[Dict[str, Any]] = []
    meta: Dict[str, Any] = {}
    interrupted = False
    done = 0
    with _Interrupt() as stop:
        try:
            todo = _Chunks(start, total, chunk)
            for i, n in todo:
                try:
                    with stop.working():
                        raw = _core.simulate_matches(seed, i, n, list(ps), profile, nthreads, cap)
                except TractorError as e:
                    if _on_fault(e, "matches", todo, (i, n), (start, total, done), meta):
                        break
                    continue
                parts.append(_columns(raw, MATCH_COLUMNS))
                done += n
                if progress:
                    progress(done, total)
                if stop.requested:
                    break
        except KeyboardInterrupt:
            pass
    interrupted = done < total
    return MatchResults(_concat(parts, MATCH_COLUMNS), seed, ps, profile, interrupted, time.perf_counter() - t0,
                        planned=[(start, start + total)] if total else [], meta=meta)


def _grow(cols: Dict[str, Any], cap: int, done: int) -> Dict[str, Any]:
    out = {}
    for k, v in cols.items():
        a = np.empty(cap, dtype=v.dtype)
        a[:done] = v[:done]
        out[k] = a
    return out


def _flush(tally: "Tally", pending: List[Tuple[Dict[str, Any], Optional[Dict[str, Any]]]]) -> None:
    if len(pending) == 1:
        tally.add(*pending[0])
    else:
        main = _concat([p for p, _ in pending], HAND_COLUMNS)
        rot = None if pending[0][1] is None else _concat([r for _, r in pending], HAND_COLUMNS)
        tally.add(main, rot)
    pending.clear()


def _hands(seed: int, start: int, n: int, ps: Tuple[Any, ...], profile: str, threads: int,
           records: bool) -> Tuple[Dict[str, bytes], bytes]:
    """One chunk of hands: by the core alone, or at a table where callables are asked."""
    if any(callable(p) for p in ps):
        return table_hands(seed, start, n, ps, profile, threads, records)
    return _core.simulate_hands(seed, start, n, list(ps), profile, threads, records)


def _simulate_hands(total, ps, seed, nthreads, profile, duplicate, start, rpath, chunk, keep, progress,
                    sink=None) -> "SimResults":
    t0 = time.perf_counter()
    fns = ps
    ps = tuple(label(p) for p in fns)
    rotated = (ps[1], ps[2], ps[3], ps[0])
    rfns = (fns[1], fns[2], fns[3], fns[0])
    # Arrays grow with the hands that finished (doubling, capped at the total), so a huge
    # `hands` allocates nothing up front; with keep_arrays=False only the tally is kept.
    cap = min(total, chunk) if keep else 0
    cols = {k: np.empty(cap, dtype=np.dtype(v)) for k, v in HAND_COLUMNS.items()}
    rcols = {k: np.empty(cap if duplicate else 0, dtype=np.dtype(v)) for k, v in HAND_COLUMNS.items()}
    tally = None if keep else Tally()
    meta: Dict[str, Any] = {}
    if duplicate:
        meta["duplicate"] = True
    done = 0
    pending: List[Tuple[Dict[str, Any], Optional[Dict[str, Any]]]] = []
    pending_n = 0
    out: Any = None
    if isinstance(rpath, str):
        out = RecordsOut(rpath, {"seed": seed, "policies": list(ps), "profile": profile, "start": start,
                                 "hands": total}, start)
        meta["records"] = rpath
        meta["records_written"] = 0
    elif rpath is not None:  # a sink of frames (a Ray task's)
        out = rpath
    try:
        with _Interrupt() as stop:
            try:
                todo = _Chunks(start, total, chunk)
                for i, n in todo:
                    if keep and done + n > cap:
                        try:
                            new = min(total, max(2 * cap, done + n))
                            cols = _grow(cols, new, done)
                            if duplicate:
                                rcols = _grow(rcols, new, done)
                            cap = new
                        except MemoryError:
                            meta["stopped_by"] = (f"out of memory for the arrays after {done:,} hands: "
                                                  "run with keep_arrays=False, or in shards")
                            break
                    try:
                        with stop.working():
                            raw, blob = _hands(seed, i, n, fns, profile, nthreads, out is not None)
                            rraw = _hands(seed, i, n, rfns, profile, nthreads, False)[0] if duplicate else None
                    except TractorError as e:
                        if _on_fault(e, "hands", todo, (i, n), (start, total, done), meta):
                            break
                        continue
                    part = _columns(raw, HAND_COLUMNS)
                    rpart = None if rraw is None else _columns(rraw, HAND_COLUMNS)
                    if keep:
                        for k in HAND_COLUMNS:
                            cols[k][done : done + n] = part[k]
                            if rpart is not None:
                                rcols[k][done : done + n] = rpart[k]
                    else:
                        # small chunks are summed in batches: the tally's numpy work per call
                        # would otherwise cost more than the hands themselves
                        pending.append((part, rpart))
                        pending_n += n
                        if sink is not None:
                            sink.add(part, rpart)
                        if pending_n >= 4096:
                            _flush(tally, pending)
                            pending_n = 0
                    done += n
                    if out is not None:
                        try:
                            out.write(blob)
                        except OSError as e:
                            meta["records_error"] = (f"cannot write {rpath!r} after {out.hands:,} hands: "
                                                     f"{e.strerror or e}; the file was not kept")
                            out.abort()
                            out = None
                    if progress:
                        progress(done, total)
                    if stop.requested:
                        break
            except KeyboardInterrupt:
                pass  # a second Ctrl-C: the chunk under way is lost, those before are kept
    finally:
        if isinstance(out, RecordsOut):
            try:
                meta["records_written"] = out.finish(stopped=done < total)
            except OSError as e:
                meta["records_error"] = f"cannot write {rpath!r}: {e.strerror or e}; the file was not kept"
    if pending:
        _flush(tally, pending)
    if meta.get("failure") and isinstance(rpath, str):
        meta["records_note"] = "the records file holds the hands up to the first that did not finish"
    elapsed = time.perf_counter() - t0
    interrupted = done < total
    arrays = {k: v[:done] for k, v in cols.items()}
    planned = [(start, start + total)] if total else []
    covered = None if keep else ([(start, start + done)] if done else [])
    dup = None
    if duplicate and keep:
        dup = SimResults({k: v[:done] for k, v in rcols.items()}, seed, rotated, profile, interrupted, elapsed,
                         planned=planned)
    return SimResults(arrays, seed, ps, profile, interrupted, elapsed, dup, meta=meta, tally=tally,
                      planned=planned, covered=covered)
