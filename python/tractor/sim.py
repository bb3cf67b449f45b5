"""Bulk simulation: many hands (or matches) with built-in policies, in parallel in Rust.

Hand ``i`` of a run with seed ``s`` is the first hand of a fresh match (both teams at level 3,
the final declarer becomes banker), dealt from ``derive(s, BATCH_HAND, i)``; seat ``p``
decides with its own stream ``derive(hand_seed, POLICY, p)``. Results therefore do not depend
on the thread count, the chunking or the machine: any index range (``start=``, the CLI's
``--shard i/n``) can run anywhere and :func:`merge` back into one run.

Policies: ``"random"`` is uniform over the distinct legal actions of each decision (while
dealing: pass or each allowed showing; leading: each distinct combination; following: each
distinct legal follow, a multiset, by the ladder's exact sampler). ``"greedy"`` is a
sensible heuristic player (see the Rust module ``policy::greedy``).
"""

from __future__ import annotations

import math
import os
import signal
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

from . import _core
from ._args import U64, _bool, _int, _path, _policies, _profile, _seed, _show, _threads
from .errors import IncompleteRun, InvalidArgument, OutputError, ResultsFileError, TractorError, UnknownColumn

__all__ = ["simulate", "SimResults", "MatchResults", "merge", "load", "read_records", "POLICIES"]

POLICIES = ("random", "greedy", "pimc", "ismcts")
"""Built-in policy names; the searches take parameters: ``"pimc:worlds=16,rollouts=4"``,
``"ismcts:iterations=500,c=0.7"`` (see :mod:`tractor.search`)."""

HAND_COLUMNS: Dict[str, str] = dict(_core.result_schema("hands"))
"""The per-hand columns and their numpy dtypes, as the Rust binding defines them (once)."""
MATCH_COLUMNS: Dict[str, str] = dict(_core.result_schema("matches"))
NONE = 255
"""Banker/declarer/trump value of a hand that stopped without a showing (R8.5)."""


def _np():
    import numpy

    return numpy


MAX_CHUNK = 1_000_000


def _wilson(k: int, n: int, z: float = 1.96) -> Tuple[float, float]:
    if n == 0:
        return (math.nan, math.nan)
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (c - h, c + h)


def _ci(n: int, total: float, total_sq: float) -> Tuple[float, float, float]:
    """Mean with a 95% normal interval, from a count, a sum and a sum of squares."""
    if n == 0:
        return (math.nan, math.nan, math.nan)
    m = total / n
    if n < 2:
        return (m, math.nan, math.nan)
    var = max(0.0, (total_sq - n * m * m) / (n - 1))
    se = math.sqrt(var / n)
    return (m, m - 1.96 * se, m + 1.96 * se)


def _returns(a: Dict[str, Any]):
    """(n, 4) per-seat returns (the seat's team's levels minus the other's, R7.4), as the
    core computed them (columns return0..return3)."""
    np = _np()
    return np.stack([a[f"return{s}"] for s in range(4)], axis=1).astype(np.int16)


def _percentile(values, counts, q: float) -> float:
    """numpy's default (linear) percentile of the multiset {values[i] × counts[i]}."""
    np = _np()
    n = int(counts.sum())
    pos = (n - 1) * q / 100
    cum = np.cumsum(counts)
    lo, hi = math.floor(pos), math.ceil(pos)
    v_lo = float(values[np.searchsorted(cum, lo, side="right")])
    v_hi = float(values[np.searchsorted(cum, hi, side="right")])
    return v_lo + (v_hi - v_lo) * (pos - lo)


class Tally:
    """The running summary of a run: counts, sums and a histogram of scores, so a run of any
    length summarises in constant memory (scores are integers in a bounded range)."""

    def __init__(self) -> None:
        self.hands = self.played = self.stopped = self.banker_won = 0
        self.score_sum = 0
        self.scores: Dict[int, int] = {}
        self.team = [[0, 0.0, 0.0], [0, 0.0, 0.0]]  # n, sum, sum of squares of team returns
        self.dup_n, self.dup_sum, self.dup_sumsq = 0, 0.0, 0.0

    def add(self, a: Dict[str, Any], rotated: Optional[Dict[str, Any]] = None) -> None:
        np = _np()
        played = ~a["stopped"]
        self.hands += len(a["index"])
        self.played += int(played.sum())
        self.stopped += int(a["stopped"].sum())
        self.banker_won += int((played & ~a["defenders_take_over"]).sum())
        sc = a["score"][played].astype(np.int64)
        self.score_sum += int(sc.sum())
        for v, c in zip(*np.unique(sc, return_counts=True)):
            self.scores[int(v)] = self.scores.get(int(v), 0) + int(c)
        ret = _returns(a).astype(np.float64)
        for t in (0, 1):
            self.team[t][0] += len(ret)
            self.team[t][1] += float(ret[:, t].sum())
            self.team[t][2] += float((ret[:, t] ** 2).sum())
        if rotated is not None:
            # policies[0] sits at seat 0 (team 0), then rotated at seat 1 (team 1)
            adv = (ret[:, 0] + _returns(rotated)[:, 1].astype(np.float64)) / 2
            self.dup_n += len(adv)
            self.dup_sum += float(adv.sum())
            self.dup_sumsq += float((adv**2).sum())

    def merge(self, other: "Tally") -> None:
        """Adds another run's tally (of other hands) to this one."""
        self.hands += other.hands
        self.played += other.played
        self.stopped += other.stopped
        self.banker_won += other.banker_won
        self.score_sum += other.score_sum
        for v, c in other.scores.items():
            self.scores[v] = self.scores.get(v, 0) + c
        for t in (0, 1):
            for j in range(3):
                self.team[t][j] += other.team[t][j]
        self.dup_n += other.dup_n
        self.dup_sum += other.dup_sum
        self.dup_sumsq += other.dup_sumsq

    def summary(self, policies: Tuple[str, str, str, str]) -> Dict[str, Any]:
        np = _np()
        q = [5, 25, 50, 75, 95]
        if self.played:
            values = np.array(sorted(self.scores))
            counts = np.array([self.scores[v] for v in values])
            quant = {p: _percentile(values, counts, p) for p in q}
        else:
            quant = {p: math.nan for p in q}
        teams = {}
        for t in (0, 1):
            name = "+".join(sorted({policies[t], policies[t + 2]}))
            m, lo, hi = _ci(*self.team[t])
            teams[f"team{t} ({name})"] = {"mean_return": m, "ci95": (lo, hi)}
        out: Dict[str, Any] = {
            "hands": self.hands,
            "played": self.played,
            "stopped": self.stopped,
            "banker_win_rate": self.banker_won / self.played if self.played else math.nan,
            "banker_win_ci95": _wilson(self.banker_won, self.played),
            "mean_score": self.score_sum / self.played if self.played else math.nan,
            "score_quantiles": quant,
            "teams": teams,
        }
        if self.dup_n:
            m, lo, hi = _ci(self.dup_n, self.dup_sum, self.dup_sumsq)
            out["duplicate"] = {"policy": policies[0], "advantage": m, "ci95": (lo, hi)}
        return out


Ranges = List[Tuple[int, int]]
"""Index ranges ``(start, end)``, end excluded, in order and disjoint."""


def _union(ranges: Any) -> Ranges:
    out: Ranges = []
    for lo, hi in sorted((int(a), int(b)) for a, b in ranges if b > a):
        if out and lo <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out


def _index_ranges(index: Any) -> Ranges:
    """The ranges of consecutive values of a sorted index column."""
    np = _np()
    n = len(index)
    if n == 0:
        return []
    idx = np.asarray(index, dtype=np.uint64)
    breaks = np.nonzero(np.diff(idx) != 1)[0]
    starts = [0] + (breaks + 1).tolist()
    ends = breaks.tolist() + [n - 1]
    return [(int(idx[a]), int(idx[b]) + 1) for a, b in zip(starts, ends)]


def _show_ranges(rs: Ranges, limit: int = 4) -> str:
    def one(r: Tuple[int, int]) -> str:
        lo, hi = r
        return f"{lo}" if hi == lo + 1 else f"{lo}..{hi - 1}"

    text = ", ".join(one(r) for r in rs[:limit])
    if len(rs) > limit:
        text += f" and {len(rs) - limit} more ranges"
    return f"{text} ({sum(hi - lo for lo, hi in rs):,} in all)"


@dataclass
class _Run:
    """What every result object holds: its columns and the run they came from, with column
    access ``r.score``, ``r["score"]`` (:class:`~tractor.errors.UnknownColumn`, also a
    KeyError, for a name that is not a column) and ``len(r)``."""

    arrays: Dict[str, Any]
    run_seed: int
    """The run's seed (a hand run's column ``seed`` holds each hand's own seed)."""
    policies: Tuple[str, str, str, str]
    profile: str
    interrupted: bool = False
    elapsed: float = 0.0

    def __getattr__(self, name: str) -> Any:
        arrays = self.__dict__.get("arrays", {})
        if name in arrays:
            return arrays[name]
        raise AttributeError(name)

    def __getitem__(self, name: str) -> Any:
        try:
            return self.arrays[name]
        except (KeyError, TypeError):
            raise UnknownColumn(f"no column {_show(name)}: the columns are {', '.join(self.arrays)}") from None

    def __len__(self) -> int:
        return len(self.arrays["index"])

    # -- the index ranges a result covers, was asked for, and belongs to -------------------
    @property
    def ranges(self) -> Ranges:
        """The index ranges whose hands (or matches) these results hold."""
        covered = self.__dict__.get("covered")
        if covered is not None:
            return list(covered)
        return _index_ranges(self.arrays["index"])

    @property
    def requested(self) -> Ranges:
        """The index ranges the run(s) behind these results were asked for (more than
        ``ranges`` when interrupted)."""
        planned = self.__dict__.get("planned")
        return list(planned) if planned is not None else self.ranges


@dataclass
class SimResults(_Run):
    """Per-hand numpy arrays (``results.score``, ``results["banker"]``, ...) and a summary."""

    duplicate: Optional["SimResults"] = None
    """In duplicate mode: the same deals played with the policies rotated by one seat."""
    meta: Dict[str, Any] = field(default_factory=dict)

    tally: Optional["Tally"] = None
    """Streaming runs (``keep_arrays=False``) keep only this running summary."""
    planned: Optional[Ranges] = None
    covered: Optional[Ranges] = None
    """Set for results without arrays; else the index column tells."""
    run: Optional[Tuple[int, int]] = None
    """The whole run's index range when known (the CLI's ``--shard``): ``merge`` then checks
    that every shard is there."""

    # -- derived --------------------------------------------------------------------------
    def returns(self):
        """(n, 4) int array: per seat, levels gained by its team minus the other team's."""
        return _returns(self.arrays)

    def _tally(self) -> "Tally":
        if self.tally is not None:
            return self.tally
        t = Tally()
        t.add(self.arrays, None if self.duplicate is None else self.duplicate.arrays)
        return t

    def summary(self) -> Dict[str, Any]:
        """Banker win rate with a 95% confidence interval, score quantiles, per-team results,
        and in duplicate mode the advantage of ``policies[0]`` with its interval."""
        t = self._tally()
        out = t.summary(self.policies)
        out.update(
            {
                "policies": self.policies,
                "profile": self.profile,
                "seed": self.run_seed,
                "elapsed_s": self.elapsed,
                "hands_per_s": t.hands / self.elapsed if self.elapsed > 0 else math.nan,
                "interrupted": self.interrupted,
            }
        )
        return out

    def duplicate_advantage(self) -> Tuple[float, float, float]:
        """Mean levels per deal gained by ``policies[0]``'s team over the other, averaged over
        the two seatings of each deal, with a 95% interval."""
        t = self._tally()
        if t.dup_n == 0 and self.duplicate is None:
            raise TractorError("not a duplicate run: use simulate(..., duplicate=True)")
        return _ci(t.dup_n, t.dup_sum, t.dup_sumsq)

    @property
    def is_duplicate(self) -> bool:
        return self.duplicate is not None or (self.tally is not None and self.tally.dup_n > 0) or bool(
            self.meta.get("duplicate")
        )

    def __str__(self) -> str:
        return format_summary(self.summary())

    # -- output ---------------------------------------------------------------------------
    def _need_arrays(self) -> None:
        if self.tally is not None:
            raise TractorError("this run kept no per-hand arrays (keep_arrays=False): only its summary")

    def to_npz(self, path: str) -> None:
        """Saves the arrays and what ``merge`` needs (seed, policies, profile, index ranges).
        Raises :class:`~tractor.errors.OutputError` if the file cannot be written, and
        TractorError for a run that kept no arrays."""
        self._need_arrays()
        np = _np()
        extra = {}
        if self.duplicate is not None:
            extra = {f"rotated_{k}": v for k, v in self.duplicate.arrays.items()}
        _savez(path, np.array(_meta_lines(self, "hands")), {**self.arrays, **extra})

    def to_parquet(self, path: str) -> None:
        """The arrays as a Parquet table (needs pyarrow). Raises TractorError without pyarrow
        or arrays, :class:`~tractor.errors.OutputError` if the file cannot be written."""
        self._need_arrays()
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError:
            raise TractorError("to_parquet needs pyarrow: pip install pyarrow") from None
        table = pa.table(dict(self.arrays))
        table = table.replace_schema_metadata(
            {"seed": str(self.run_seed), "policies": ",".join(self.policies), "profile": self.profile}
        )
        try:
            pq.write_table(table, path)
        except (OSError, pa.ArrowException) as e:
            raise OutputError(f"to_parquet: cannot write {path!r}: {e}") from None


@dataclass
class MatchResults(_Run):
    """Per-match numpy arrays: ``winner`` (team that first passed A, 255 none), ``hands``."""

    planned: Optional[Ranges] = None
    covered: Optional[Ranges] = None
    run: Optional[Tuple[int, int]] = None

    def summary(self) -> Dict[str, Any]:
        np = _np()
        w = self.arrays["winner"]
        done = w != NONE
        n = int(done.sum())
        k0 = int((w == 0).sum())
        hands = self.arrays["hands"][done]
        return {
            "matches": len(self),
            "finished": n,
            "team0_win_rate": k0 / n if n else math.nan,
            "team0_win_ci95": _wilson(k0, n),
            "mean_hands": float(hands.mean()) if n else math.nan,
            "hands_quantiles": dict(zip([5, 50, 95], np.percentile(hands, [5, 50, 95]).tolist() if n else [])),
            "policies": self.policies,
            "profile": self.profile,
            "seed": self.run_seed,
            "elapsed_s": self.elapsed,
            "interrupted": self.interrupted,
        }

    def __str__(self) -> str:
        return format_summary(self.summary())

    def to_npz(self, path: str) -> None:
        """Saves the arrays; raises :class:`~tractor.errors.OutputError` if it cannot."""
        np = _np()
        _savez(path, np.array(_meta_lines(self, "matches")), self.arrays)


def _meta_lines(r: Any, kind: str) -> List[str]:
    rs = lambda x: ";".join(f"{a}-{b}" for a, b in x)  # noqa: E731
    lines = [f"format={RESULTS_FORMAT}", f"seed={r.run_seed}", "policies=" + ",".join(r.policies),
             f"profile={r.profile}", f"kind={kind}", f"requested={rs(r.requested)}",
             f"interrupted={int(bool(r.interrupted))}", f"elapsed={r.elapsed!r}"]
    if r.run is not None:
        lines.append(f"run={r.run[0]}-{r.run[1]}")
    return lines


def _savez(path: Any, meta: Any, arrays: Dict[str, Any]) -> None:
    np = _np()
    try:
        np.savez_compressed(path, __meta__=meta, **arrays)
    except OSError as e:
        raise OutputError(f"to_npz: cannot write {_show(path)}: {e}") from None


def _columns(raw: Dict[str, bytes], spec: Dict[str, str]) -> Dict[str, Any]:
    np = _np()
    return {k: np.frombuffer(raw[k], dtype=np.dtype(spec[k])).copy() for k in spec}


def _concat(parts: List[Dict[str, Any]], spec: Dict[str, str]) -> Dict[str, Any]:
    np = _np()
    if not parts:
        return {k: np.zeros(0, dtype=np.dtype(v)) for k, v in spec.items()}
    return {k: np.concatenate([p[k] for p in parts]) for k in spec}


def _chunks(start: int, count: int, chunk: int) -> Iterator[Tuple[int, int]]:
    i = start
    end = start + count
    while i < end:
        n = min(chunk, end - i)
        yield i, n
        i += n


class _Interrupt:
    """Ctrl-C during a run: the first asks the run to stop after the current chunk (whose
    results are kept), the second raises KeyboardInterrupt at once. Only in the main thread,
    and only when SIGINT has Python's default handler; elsewhere KeyboardInterrupt is caught."""

    def __init__(self) -> None:
        self.requested = False
        self._old: Any = None

    def __enter__(self) -> "_Interrupt":
        if threading.current_thread() is threading.main_thread():
            try:
                if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
                    self._old = signal.signal(signal.SIGINT, self._handle)
            except (ValueError, OSError):  # not the main interpreter, or no signals here
                self._old = None
        return self

    def _handle(self, signum: int, frame: Any) -> None:
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True

    def __exit__(self, *exc: Any) -> None:
        if self._old is not None:
            signal.signal(signal.SIGINT, self._old)
            self._old = None


def _check_run(hands: Any, matches: Any, start: Any) -> Tuple[str, int, int]:
    if (hands is None) == (matches is None):
        raise InvalidArgument("give exactly one of hands=N or matches=N")
    what = "hands" if matches is None else "matches"
    total = _int(hands if matches is None else matches, what)
    first = _int(start, "start")
    if first + total > U64:
        raise InvalidArgument(
            f"start + {what} = {first} + {total} runs past the last index 2**64 - 1: "
            f"at most {U64 - first} {what} from start={first}"
        )
    return what, total, first


def simulate(
    hands: Optional[int] = None,
    policies: Any = ("greedy", "random", "greedy", "random"),
    seed: int = 0,
    threads: Optional[int] = None,
    profile: str = "guigang",
    *,
    matches: Optional[int] = None,
    max_hands: Optional[int] = None,
    duplicate: bool = False,
    start: int = 0,
    records: Optional[str] = None,
    chunk: Optional[int] = None,
    keep_arrays: bool = True,
    progress: Optional[Callable[[int, int], None]] = None,
    backend: str = "local",
    address: Optional[str] = None,
    _sink: Optional["NpzStream"] = None,
) -> Any:
    """Simulates ``hands`` hands (or ``matches`` matches) and returns :class:`SimResults`
    (or :class:`MatchResults`).

    - ``policies``: four names, one per seat (``"greedy,random,greedy,random"`` works too).
    - ``threads``: worker threads (None: all cores); results are identical for any value.
    - ``start``: the global index of the first hand (for shards of one big run); ``start +
      hands`` may not pass 2**64.
    - ``duplicate``: also play every deal with the policies rotated by one seat; the summary
      then reports ``policies[0]``'s advantage with a 95% interval.
    - ``keep_arrays=False``: keep no per-hand arrays, only a running summary (counts, sums
      and a score histogram): memory stays flat however many hands run. With arrays, memory
      grows with the hands that finished, never allocated up front.
    - ``records``: a path; the compact record of every hand is streamed there, after a header
      (:func:`read_records` reads them back).
    - ``chunk``: hands (or matches) per step (default 20,000 hands, 400 matches; at most
      1,000,000): progress and Ctrl-C act between chunks. With ``backend="ray"``, per task.
    - ``progress(done, total)`` is called after each chunk; Ctrl-C stops after the current
      chunk and returns what finished, with ``interrupted=True`` (a second Ctrl-C stops at
      once, losing only the chunk under way).
    - ``max_hands`` (matches only, default 1000): the cap on a match's hands.
    - ``backend="ray"`` spreads index-range shards over a Ray cluster (``address`` of a
      running one, else ``RAY_ADDRESS`` or a local instance); same seed, same numbers.

    Integers may be Python or numpy integers. Raises :class:`~tractor.errors.InvalidArgument`
    (a TractorError) naming the argument for any bad one, before the first hand and without
    creating any file: for a policy its subclass InvalidPolicy, for the profile InvalidContext.
    """
    ps = _policies(policies)
    nthreads = _threads(threads)
    seed = _seed(seed)
    profile = _profile(profile)
    what, total, start = _check_run(hands, matches, start)
    duplicate = _bool(duplicate, "duplicate")
    keep = _bool(keep_arrays, "keep_arrays")
    chunk_n = 20_000 if chunk is None else _int(chunk, "chunk", 1, MAX_CHUNK)
    if what == "matches":
        cap = 1000 if max_hands is None else _int(max_hands, "max_hands", 1, 2**32 - 1)
        for name, bad in (("duplicate", duplicate), ("records", records is not None), ("keep_arrays", not keep)):
            if bad:
                raise InvalidArgument(f"{name} applies to hands, not to matches=")
    elif max_hands is not None:
        raise InvalidArgument("max_hands applies to matches=, not to hands=")
    rpath = None if records is None else _records_path(records)
    if progress is not None and not callable(progress):
        raise InvalidArgument(f"progress must be callable(done, total) or None, got {_show(progress)}")
    if not isinstance(backend, str) or backend not in ("local", "ray"):
        raise InvalidArgument(f"backend: unknown backend {_show(backend)}: expected 'local' or 'ray'")
    if address is not None and (backend != "ray" or not isinstance(address, str)):
        raise InvalidArgument(f"address (a str) is for backend='ray' only, got {_show(address)} with backend={backend!r}")
    if _sink is not None and (backend != "local" or keep or what != "hands"):
        raise InvalidArgument("_sink streams the arrays of a local run of hands with keep_arrays=False")
    if backend == "ray":
        from .ray_backend import simulate_ray

        return simulate_ray(
            what=what, total=total, policies=ps, seed=seed, profile=profile, start=start,
            duplicate=duplicate, max_hands=cap if what == "matches" else 1000, address=address,
            threads=nthreads, chunk=None if chunk is None else chunk_n, keep_arrays=keep, records=rpath,
            progress=progress,
        )
    if what == "matches":
        return _simulate_matches(total, ps, seed, nthreads, profile, cap, start, 400 if chunk is None else chunk_n,
                                 progress)
    return _simulate_hands(total, ps, seed, nthreads, profile, duplicate, start, rpath, chunk_n, keep, progress,
                           _sink)


def _records_path(records: Any) -> str:
    try:
        return _path(records)
    except InvalidArgument as e:
        raise InvalidArgument(f"records: {e}") from None


def _open_records(path: str, meta: Dict[str, Any]) -> Any:
    from .records import header_bytes

    try:
        out = open(path, "wb")
    except OSError as e:
        raise InvalidArgument(f"records: cannot write {path!r}: {e.strerror or e}") from None
    try:
        out.write(header_bytes(meta))
    except OSError as e:
        out.close()
        raise InvalidArgument(f"records: cannot write {path!r}: {e.strerror or e}") from None
    return out


def _simulate_matches(total, ps, seed, nthreads, profile, cap, start, chunk, progress) -> "MatchResults":
    t0 = time.perf_counter()
    parts: List[Dict[str, Any]] = []
    interrupted = False
    done = 0
    with _Interrupt() as stop:
        try:
            for i, n in _chunks(start, total, chunk):
                raw = _core.simulate_matches(seed, i, n, list(ps), profile, nthreads, cap)
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
                        planned=[(start, start + total)] if total else [])


def _grow(cols: Dict[str, Any], cap: int, done: int) -> Dict[str, Any]:
    np = _np()
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


def _simulate_hands(total, ps, seed, nthreads, profile, duplicate, start, rpath, chunk, keep, progress,
                    sink=None) -> "SimResults":
    np = _np()
    t0 = time.perf_counter()
    rotated = (ps[1], ps[2], ps[3], ps[0])
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
    out = None
    if rpath is not None:
        out = _open_records(rpath, {"seed": seed, "policies": list(ps), "profile": profile, "start": start,
                                    "hands": total})
        meta["records"] = rpath
        meta["records_written"] = 0
    try:
        with _Interrupt() as stop:
            try:
                for i, n in _chunks(start, total, chunk):
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
                    raw, blob = _core.simulate_hands(seed, i, n, list(ps), profile, nthreads, out is not None)
                    part = _columns(raw, HAND_COLUMNS)
                    rpart = None
                    if duplicate:
                        rraw, _ = _core.simulate_hands(seed, i, n, list(rotated), profile, nthreads, False)
                        rpart = _columns(rraw, HAND_COLUMNS)
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
                            meta["records_written"] += n
                        except OSError as e:
                            meta["records_error"] = f"cannot write {rpath!r} after {meta['records_written']:,} hands: {e}"
                            out.close()
                            out = None
                    if progress:
                        progress(done, total)
                    if stop.requested:
                        break
            except KeyboardInterrupt:
                pass  # a second Ctrl-C: the chunk under way is lost, those before are kept
    finally:
        if out is not None:
            try:
                out.close()
            except OSError as e:
                meta["records_error"] = f"cannot write {rpath!r}: {e}"
    if pending:
        _flush(tally, pending)
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


class NpzStream:
    """Writes per-hand columns to disk chunk by chunk (temporary files beside ``path``), then
    into one ``.npz`` that :func:`load` reads like any ``to_npz`` file: a run's arrays never
    sit in memory (the CLI's ``--out``)."""

    def __init__(self, path: str, duplicate: bool) -> None:
        import tempfile

        self.path = path
        self.dir = tempfile.mkdtemp(prefix=".tractor-out-", dir=os.path.dirname(os.path.abspath(path)))
        names = list(HAND_COLUMNS) + ([f"rotated_{k}" for k in HAND_COLUMNS] if duplicate else [])
        self.files = {k: open(os.path.join(self.dir, k), "wb") for k in names}
        self.rows = 0
        self.error: Optional[str] = None

    def add(self, part: Dict[str, Any], rpart: Optional[Dict[str, Any]]) -> None:
        if self.error is not None:
            return
        try:
            for k in HAND_COLUMNS:
                self.files[k].write(part[k].tobytes())
                if rpart is not None:
                    self.files[f"rotated_{k}"].write(rpart[k].tobytes())
        except OSError as e:  # the run goes on: its summary is kept, the arrays are not
            self.error = f"cannot write the arrays beside {self.path!r} after {self.rows:,} hands: {e}"
            return
        self.rows += len(part["index"])

    def finish(self, res: "SimResults", path: Optional[str] = None) -> None:
        """Writes the .npz (to ``path``, by default the one given at the start), with the
        metadata of ``res``; the temporary files stay until :meth:`close`."""
        import zipfile

        np = _np()
        import numpy.lib.format as fmt

        if self.error is not None:
            raise OutputError(self.error)
        target = path or self.path
        for f in self.files.values():
            f.flush()
        tmp = target + ".partial"
        try:
            with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED, allowZip64=True) as z:
                with z.open("__meta__.npy", "w", force_zip64=True) as f:
                    fmt.write_array(f, np.array(_meta_lines(res, "hands")))
                for k in self.files:
                    dt = np.dtype(HAND_COLUMNS[k.replace("rotated_", "", 1)])
                    with z.open(f"{k}.npy", "w", force_zip64=True) as f, open(os.path.join(self.dir, k), "rb") as src:
                        header = {"descr": fmt.dtype_to_descr(dt), "fortran_order": False, "shape": (self.rows,)}
                        fmt.write_array_header_2_0(f, header)
                        while True:
                            block = src.read(1 << 18)
                            if not block:
                                break
                            f.write(block)
            os.replace(tmp, target)
        except OSError as e:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise OutputError(f"cannot write {target!r}: {e.strerror or e}") from None

    def close(self) -> None:
        import shutil

        for f in self.files.values():
            try:
                f.close()
            except OSError:
                pass
        shutil.rmtree(self.dir, ignore_errors=True)


def read_records(path: Any, *, replay: bool = True, batch: Optional[int] = None) -> Any:
    """Streams a records file written by ``simulate(records=...)``: each hand as a full
    :class:`~tractor.Game` (replayed and checked), or with ``replay=False`` as a
    :class:`tractor.records.Record` (checked, not replayed, far faster). Linear time, constant
    memory. Raises :class:`~tractor.errors.RecordsError` for a missing, foreign, truncated or
    damaged file, naming the record at fault and its byte offset."""
    from .records import read_records as _read

    return _read(path, replay=replay, batch=batch)


RESULTS_FORMAT = "tractor-results-3"
# Version 2 stored banker_levels/defender_levels as u1 and return0..3 as i1; version 3 widens
# them (R7.4 levels below 0 are unbounded: up to 273 in a hand). Version 2 files still load.
_WIDENED_IN_3 = {"banker_levels": "u1", "defender_levels": "u1", "return0": "i1", "return1": "i1", "return2": "i1",
                 "return3": "i1"}


def _parse_ranges(text: str) -> Ranges:
    out: Ranges = []
    for part in text.split(";"):
        if part:
            a, b = part.split("-")
            lo, hi = int(a), int(b)
            if not 0 <= lo <= hi <= U64:
                raise ValueError(f"bad range {part}")
            out.append((lo, hi))
    return out


def load(path: Any) -> Any:
    """Loads results saved with ``to_npz`` (hands or matches). Raises
    :class:`~tractor.errors.ResultsFileError` for a missing, damaged or foreign file."""
    np = _np()
    p = _path(path)
    try:
        with np.load(p, allow_pickle=False) as z:
            if not hasattr(z, "files"):
                raise ValueError("a single array, not a results archive")
            if "__meta__" not in z.files:
                raise ValueError("no __meta__ entry: not written by to_npz")
            meta_arr = z["__meta__"]
            if not isinstance(meta_arr, np.ndarray) or meta_arr.ndim != 1 or meta_arr.dtype.kind != "U":
                raise ValueError("__meta__ is not a list of strings")
            meta = dict(str(m).split("=", 1) for m in meta_arr)
            arrays = {k: z[k] for k in z.files if k != "__meta__"}
    except FileNotFoundError:
        raise ResultsFileError(f"load: no such file {p!r}") from None
    except IsADirectoryError:
        raise ResultsFileError(f"load: {p!r} is a directory") from None
    except MemoryError:
        raise ResultsFileError(f"load: {p!r} is too large to load") from None
    except Exception as e:  # BadZipFile, zlib.error, EOFError, ValueError, KeyError, ...
        raise ResultsFileError(f"load: {p!r} is not a results file written by to_npz, or is damaged: "
                               f"{type(e).__name__}: {e}") from None
    try:
        return _from_npz(meta, arrays)
    except Exception as e:  # untrusted content: whatever is wrong with it is the file's fault
        raise ResultsFileError(f"load: {p!r} holds inconsistent results: {type(e).__name__}: {e}") from None


def _check_columns(arrays: Dict[str, Any], spec: Dict[str, str], prefix: str = "", version: int = 3) -> Dict[str, Any]:
    np = _np()
    want = spec
    if version == 2:
        spec = {k: _WIDENED_IN_3.get(k, dt) for k, dt in spec.items()}
    out = {}
    n = None
    for k, dt in spec.items():
        if prefix + k not in arrays:
            raise ValueError(f"column {prefix + k!r} is missing")
        a = arrays[prefix + k]
        if not isinstance(a, np.ndarray):
            raise ValueError(f"entry {prefix + k!r} is not an array")
        if a.ndim != 1 or a.dtype != np.dtype(dt):
            raise ValueError(f"column {prefix + k!r} has shape {a.shape} and type {a.dtype}, expected ({dt}, n)")
        if n is not None and len(a) != n:
            raise ValueError(f"column {prefix + k!r} has {len(a)} rows, the others {n}")
        n = len(a)
        out[k] = a.astype(want[k]) if want[k] != dt else a
    idx = out["index"]
    if len(idx) > 1 and not (idx[1:] > idx[:-1]).all():
        raise ValueError(f"column {prefix}index is not strictly increasing")
    return out


def _from_npz(meta: Dict[str, str], arrays: Dict[str, Any]) -> Any:
    fmt = meta.get("format")
    if fmt not in ("tractor-results-2", RESULTS_FORMAT):
        raise ValueError(f"format {fmt!r} is not {RESULTS_FORMAT!r} (or the older 'tractor-results-2')")
    version = int(fmt.rsplit("-", 1)[1])
    ps = _policies(meta["policies"])
    seed, profile = _seed(int(meta["seed"])), _profile(meta["profile"])
    kind = meta.get("kind", "hands")
    if kind not in ("hands", "matches"):
        raise ValueError(f"unknown kind {kind!r}")
    extra: Dict[str, Any] = {}
    if "requested" in meta:
        extra["planned"] = _parse_ranges(meta["requested"])
    if "run" in meta:
        (run,) = _parse_ranges(meta["run"])
        extra["run"] = run
    interrupted = meta.get("interrupted", "0") == "1"
    elapsed = float(meta.get("elapsed", "0"))
    if kind == "matches":
        cols = _check_columns(arrays, MATCH_COLUMNS, version=version)
        return MatchResults(cols, seed, ps, profile, interrupted, elapsed, **extra)
    main = _check_columns(arrays, HAND_COLUMNS, version=version)
    dup = None
    if "rotated_index" in arrays:
        rot = (ps[1], ps[2], ps[3], ps[0])
        d = _check_columns(arrays, HAND_COLUMNS, "rotated_", version=version)
        if not _np().array_equal(d["index"], main["index"]):
            raise ValueError("the rotated seating's hands are not the same as the main seating's")
        dup = SimResults(d, seed, rot, profile)  # type: ignore[arg-type]
    return SimResults(main, seed, ps, profile, interrupted, elapsed, duplicate=dup,  # type: ignore[arg-type]
                      meta={"duplicate": True} if dup is not None else {}, **extra)


def merge(parts: Sequence[Any], *, partial: bool = False) -> Any:
    """Merges shards of one run (same kind, seed, policies, profile and mode) into one, in
    index order, arrays or (``keep_arrays=False``) running summaries alike.

    Refuses, with :class:`~tractor.errors.IncompleteRun` saying what is missing or twice,
    parts that do not form one complete run: overlapping hands, gaps between the parts,
    interrupted parts, and shards missing from a run whose extent is known (the CLI's
    ``--shard``). ``partial=True`` merges what there is (overlaps are still refused).
    Raises :class:`~tractor.errors.InvalidArgument` if ``parts`` is not a list of results."""
    np = _np()
    if not isinstance(parts, (list, tuple)):
        raise InvalidArgument(f"merge takes a list of SimResults or MatchResults, got {type(parts).__name__}")
    partial = _bool(partial, "partial")
    if not parts:
        raise InvalidArgument("merge: nothing to merge (an empty list)")
    for i, p in enumerate(parts):
        if not isinstance(p, (SimResults, MatchResults)):
            raise InvalidArgument(f"merge: parts[{i}] is a {type(p).__name__}, not SimResults or MatchResults")
        spec = HAND_COLUMNS if isinstance(p, SimResults) else MATCH_COLUMNS
        arrays = p.arrays if isinstance(p.arrays, dict) else {}
        bad = [k for k in spec if not (k in arrays and getattr(arrays[k], "ndim", None) == 1
                                       and len(arrays[k]) == len(arrays.get("index", ())))]
        if bad:
            raise InvalidArgument(f"merge: parts[{i}] lacks its columns {', '.join(bad)} (or they differ in length)")
    first = parts[0]

    def mode(p: Any) -> str:
        return "duplicate" if isinstance(p, SimResults) and p.is_duplicate else "plain"

    for i, p in enumerate(parts[1:], 1):
        for name, a, b in (
            ("kind", type(first).__name__, type(p).__name__),
            ("seed", first.run_seed, p.run_seed),
            ("policies", ",".join(first.policies), ",".join(p.policies)),
            ("profile", first.profile, p.profile),
            ("mode", mode(first), mode(p)),
            ("run", first.run, p.run),
        ):
            if a != b and not (name == "run" and (a is None or b is None)):
                raise IncompleteRun(f"merge: parts[{i}] is of another run: its {name} is {b!r}, parts[0]'s is {a!r}")
    # which hands each part holds: none twice, none missing
    held = sorted((lo, hi, i) for i, p in enumerate(parts) for lo, hi in p.ranges)
    for (a0, a1, i), (b0, b1, j) in zip(held, held[1:]):
        if b0 < a1:
            what = "hands" if isinstance(first, SimResults) else "matches"
            twice = _show_ranges([(b0, min(a1, b1))])
            raise IncompleteRun(f"merge: parts[{i}] and parts[{j}] overlap: {what} {twice} appear twice")
    for i, p in enumerate(parts):
        idx = p.arrays["index"]
        if len(idx) > 1 and (np.diff(idx.astype(np.uint64)) == 0).any():
            raise IncompleteRun(f"merge: parts[{i}] holds some indices twice")
    covered = _union((lo, hi) for lo, hi, _ in held)
    expected = _union([r for p in parts for r in p.requested] + [p.run for p in parts if p.run is not None])
    run = next((p.run for p in parts if p.run is not None), None)
    missing: Ranges = []
    if expected:
        hull = (expected[0][0], expected[-1][1])
        at = hull[0]
        for lo, hi in covered + [(hull[1], hull[1])]:
            if lo > at:
                missing.append((at, lo))
            at = max(at, hi)
    if missing and not partial:
        what = "hands" if isinstance(first, SimResults) else "matches"
        raise IncompleteRun(
            f"merge: the parts do not form one complete run: {what} {_show_ranges(missing)} are missing "
            f"(interrupted or absent shards); pass partial=True to merge what there is",
            missing,
        )
    interrupted = bool(missing)
    elapsed = float(sum(p.elapsed for p in parts))
    if isinstance(first, MatchResults):
        arrays = _concat([p.arrays for p in parts], MATCH_COLUMNS)
        order = np.argsort(arrays["index"], kind="stable")
        return MatchResults({k: v[order] for k, v in arrays.items()}, first.run_seed, first.policies,
                            first.profile, interrupted, elapsed, planned=expected, run=run)
    meta = {"duplicate": True} if mode(first) == "duplicate" else {}
    if any(p.tally is not None for p in parts):
        t = Tally()
        for p in parts:
            t.merge(p._tally())
        return SimResults(_concat([], HAND_COLUMNS), first.run_seed, first.policies, first.profile, interrupted,
                          elapsed, meta=meta, tally=t, planned=expected, covered=covered, run=run)
    arrays = _concat([p.arrays for p in parts], HAND_COLUMNS)
    order = np.argsort(arrays["index"], kind="stable")
    arrays = {k: v[order] for k, v in arrays.items()}
    dup = None
    if meta:
        d = _concat([p.duplicate.arrays for p in parts], HAND_COLUMNS)
        o = np.argsort(d["index"], kind="stable")
        dup = SimResults({k: v[o] for k, v in d.items()}, first.run_seed, first.duplicate.policies, first.profile,
                         interrupted, elapsed, planned=expected)
    return SimResults(arrays, first.run_seed, first.policies, first.profile, interrupted, elapsed, dup, meta=meta,
                      planned=expected, run=run)


def _human(v: float) -> str:
    """A float for people: 15,810 rather than 1.581e+04; 0.4213; 12.6."""
    if math.isnan(v) or math.isinf(v):
        return str(v)
    if abs(v) >= 1000:
        return f"{v:,.0f}"
    return f"{v:.4g}"


_NOTES = {
    "stopped": "hands with no result: nobody showed a trump in three deals (R8.5)",
    "elapsed_s": "seconds",
    "interrupted": "True: stopped early (Ctrl-C); the rows cover the hands that finished",
}


def format_summary(s: Dict[str, Any]) -> str:
    """The summary as an aligned text table, numbers for people."""
    rows: List[Tuple[str, str]] = []

    def fmt(v: Any) -> str:
        if isinstance(v, bool):
            return str(v)
        if isinstance(v, int):
            return f"{v:,}"
        if isinstance(v, float):
            return _human(v)
        if isinstance(v, tuple) and len(v) == 2 and all(isinstance(x, float) for x in v):
            return f"[{_human(v[0])}, {_human(v[1])}]"
        if isinstance(v, dict):
            return ", ".join(f"{k}: {fmt(x)}" for k, x in v.items())
        if isinstance(v, tuple):
            return ",".join(str(x) for x in v)
        return str(v)

    for k, v in s.items():
        if k == "teams":
            # the two teams' returns mirror each other (zero-sum): one row says it all
            (t0, r0), (t1, _) = list(v.items())[:2]
            m = r0["mean_return"]
            rows.append((t0, f"{'+' if m > 0 else ''}{fmt(m)} levels/hand over {t1}, 95% CI {fmt(r0['ci95'])}"))
        elif k == "duplicate":
            rows.append(
                (f"duplicate: {v['policy']} advantage", f"{fmt(v['advantage'])} levels/deal, 95% CI {fmt(v['ci95'])}")
            )
        elif k == "stopped":
            rows.append((k, f"{fmt(v)}  ({_NOTES[k]})" if v else fmt(v)))
        elif k == "interrupted" and v:
            rows.append((k, f"{fmt(v)}  ({_NOTES[k]})"))
        else:
            rows.append((k, fmt(v)))
    w = max(len(r[0]) for r in rows)
    return "\n".join(f"{a.ljust(w)}  {b}" for a, b in rows)
