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
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

from . import _core
from .errors import TractorError

__all__ = ["simulate", "SimResults", "MatchResults", "merge", "load", "read_records", "POLICIES"]

POLICIES = ("random", "greedy", "pimc", "ismcts")
"""Built-in policy names; the searches take parameters: ``"pimc:worlds=16,rollouts=4"``,
``"ismcts:iterations=500,c=0.7"`` (see :mod:`tractor.search`)."""

HAND_COLUMNS: Dict[str, str] = {
    "index": "<u8",
    "seed": "<u8",
    "banker": "u1",
    "declarer": "u1",
    "trump": "u1",
    "level": "u1",
    "tricks": "u1",
    "score": "<i4",
    "last_trick_cards": "u1",
    "banker_levels": "u1",
    "defender_levels": "u1",
    "defenders_take_over": "?",
    "redeals": "u1",
    "stopped": "?",
    "decisions": "<u2",
}
MATCH_COLUMNS: Dict[str, str] = {
    "index": "<u8",
    "winner": "u1",
    "hands": "<u4",
    "level0": "u1",
    "level1": "u1",
    "stops": "<u4",
}
NONE = 255
"""Banker/declarer/trump value of a hand that stopped without a showing (R8.5)."""


def _np():
    import numpy

    return numpy


def _split_policies(text: str) -> list:
    """``"greedy,pimc:worlds=16,rollouts=4,random,random"``: a comma starts a new policy
    unless what follows is a ``key=value`` parameter of the search before it."""
    out: list = []
    for part in text.split(","):
        if out and "=" in part and ":" not in part and ":" in out[-1]:
            out[-1] += "," + part
        else:
            out.append(part)
    return out


def _policies(policies: Any) -> Tuple[str, str, str, str]:
    if isinstance(policies, str):
        policies = _split_policies(policies)
    if not isinstance(policies, (list, tuple)):
        raise TractorError(f"policies must be four names or one comma-separated string, got {policies!r}")
    if len(policies) != 4:
        raise TractorError(f"four policies are needed, one per seat, got {len(policies)}: {tuple(policies)!r}")
    # canonical names (parameters spelled out), checked by the engine
    ps = tuple(_core.policy_name(p) if isinstance(p, str) else _bad_policy(p) for p in policies)
    return ps  # type: ignore[return-value]


def _bad_policy(p: Any) -> str:
    raise TractorError(f"a policy is a name such as 'greedy' or 'ismcts:iterations=500', got {p!r}")


def _threads(threads: Optional[int]) -> int:
    if threads is None:
        return 0
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise TractorError(f"threads must be a positive int or None (all cores), got {threads!r}")
    return threads


def _count(n: Any, what: str) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise TractorError(f"{what} must be a non-negative int, got {n!r}")
    return n


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
    """(n, 4) per-seat returns of hand columns: the seat's team's levels minus the other's."""
    np = _np()
    n = len(a["index"])
    out = np.zeros((n, 4), dtype=np.int16)
    ok = ~a["stopped"]
    bteam = a["banker"].astype(np.int16) % 2
    gain_team = np.where(a["defenders_take_over"], 1 - bteam, bteam)
    amount = np.where(a["defenders_take_over"], a["defender_levels"], a["banker_levels"]).astype(np.int16)
    for seat in range(4):
        sign = np.where(gain_team == seat % 2, 1, -1)
        out[:, seat] = np.where(ok, sign * amount, 0)
    return out


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


@dataclass
class _Run:
    """What every result object holds: its columns and the run they came from, with column
    access ``r.score``, ``r["score"]`` and ``len(r)``."""

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
        return self.arrays[name]

    def __len__(self) -> int:
        return len(self.arrays["index"])


@dataclass
class SimResults(_Run):
    """Per-hand numpy arrays (``results.score``, ``results["banker"]``, ...) and a summary."""

    duplicate: Optional["SimResults"] = None
    """In duplicate mode: the same deals played with the policies rotated by one seat."""
    meta: Dict[str, Any] = field(default_factory=dict)

    tally: Optional["Tally"] = None
    """Streaming runs (``keep_arrays=False``) keep only this running summary."""

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

    def __str__(self) -> str:
        return format_summary(self.summary())

    # -- output ---------------------------------------------------------------------------
    def _need_arrays(self) -> None:
        if self.tally is not None:
            raise TractorError("this run kept no per-hand arrays (keep_arrays=False): only its summary")

    def to_npz(self, path: str) -> None:
        self._need_arrays()
        np = _np()
        extra = {}
        if self.duplicate is not None:
            extra = {f"rotated_{k}": v for k, v in self.duplicate.arrays.items()}
        meta = np.array(
            [f"seed={self.run_seed}", "policies=" + ",".join(self.policies), f"profile={self.profile}", "kind=hands"]
        )
        np.savez_compressed(path, __meta__=meta, **self.arrays, **extra)

    def to_parquet(self, path: str) -> None:
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
        pq.write_table(table, path)


@dataclass
class MatchResults(_Run):
    """Per-match numpy arrays: ``winner`` (team that first passed A, 255 none), ``hands``."""

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
        np = _np()
        meta = np.array(
            [f"seed={self.run_seed}", "policies=" + ",".join(self.policies), f"profile={self.profile}", "kind=matches"]
        )
        np.savez_compressed(path, __meta__=meta, **self.arrays)


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


def simulate(
    hands: Optional[int] = None,
    policies: Any = ("greedy", "random", "greedy", "random"),
    seed: int = 0,
    threads: Optional[int] = None,
    profile: str = "guigang",
    *,
    matches: Optional[int] = None,
    max_hands: int = 1000,
    duplicate: bool = False,
    start: int = 0,
    records: Optional[str] = None,
    chunk: int = 20_000,
    keep_arrays: bool = True,
    progress: Optional[Callable[[int, int], None]] = None,
    backend: str = "local",
    address: Optional[str] = None,
) -> Any:
    """Simulates ``hands`` hands (or ``matches`` matches) and returns :class:`SimResults`
    (or :class:`MatchResults`).

    - ``policies``: four names, one per seat (``"greedy,random,greedy,random"`` works too).
    - ``threads``: worker threads (None: all cores); results are identical for any value.
    - ``start``: the global index of the first hand (for shards of one big run).
    - ``duplicate``: also play every deal with the policies rotated by one seat; the summary
      then reports ``policies[0]``'s advantage with a 95% interval.
    - ``keep_arrays=False``: keep no per-hand arrays, only a running summary (counts, sums
      and a score histogram): memory stays flat however many hands run.
    - ``records``: a path; the compact record of every hand is streamed there
      (:func:`read_records` reads them back as :class:`~tractor.Game`).
    - ``progress(done, total)`` is called after each chunk; Ctrl-C stops after the current
      chunk and returns what finished, with ``interrupted=True``.
    - ``backend="ray"`` spreads index-range shards over a Ray cluster (``address`` of a
      running one, else a local instance); same seed, same numbers.
    """
    ps = _policies(policies)
    nthreads = _threads(threads)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise TractorError(f"seed must be an int in 0..2**64-1, got {seed!r}")
    if not isinstance(profile, str) or profile.lower() not in ("guigang", "nanning"):
        raise TractorError(f"unknown profile {profile!r}: expected 'guigang' or 'nanning'")
    start = _count(start, "start")
    chunk = max(1, _count(chunk, "chunk"))
    if (hands is None) == (matches is None):
        raise TractorError("give exactly one of hands=N or matches=N")
    if backend not in ("local", "ray"):
        raise TractorError(f"unknown backend {backend!r}: expected 'local' or 'ray'")
    if backend == "ray":
        from .ray_backend import simulate_ray

        return simulate_ray(
            hands=hands, matches=matches, policies=ps, seed=seed, profile=profile, start=start,
            duplicate=duplicate, max_hands=max_hands, address=address,
        )
    t0 = time.perf_counter()
    if matches is not None:
        total = _count(matches, "matches")
        parts: List[Dict[str, Any]] = []
        interrupted = False
        done = 0
        try:
            for i, n in _chunks(start, total, max(1, chunk // 50)):
                raw = _core.simulate_matches(seed, i, n, list(ps), profile, nthreads, _count(max_hands, "max_hands"))
                parts.append(_columns(raw, MATCH_COLUMNS))
                done += n
                if progress:
                    progress(done, total)
        except KeyboardInterrupt:
            interrupted = True
        return MatchResults(_concat(parts, MATCH_COLUMNS), seed, ps, profile, interrupted, time.perf_counter() - t0)

    total = _count(hands, "hands")
    rotated = (ps[1], ps[2], ps[3], ps[0])
    np = _np()
    # Arrays are preallocated and filled chunk by chunk (no concatenation at the end); with
    # keep_arrays=False only the running tally is kept and memory stays flat.
    keep = bool(keep_arrays)
    cols = {k: np.empty(total if keep else 0, dtype=np.dtype(v)) for k, v in HAND_COLUMNS.items()}
    rcols = {k: np.empty(total if keep and duplicate else 0, dtype=np.dtype(v)) for k, v in HAND_COLUMNS.items()}
    tally = None if keep else Tally()
    interrupted = False
    done = 0
    out = open(records, "wb") if records else None
    try:
        for i, n in _chunks(start, total, chunk):
            raw, blob = _core.simulate_hands(seed, i, n, list(ps), profile, nthreads, out is not None)
            part = _columns(raw, HAND_COLUMNS)
            rpart = None
            if duplicate:
                rraw, _ = _core.simulate_hands(seed, i, n, list(rotated), profile, nthreads, False)
                rpart = _columns(rraw, HAND_COLUMNS)
            if out is not None:
                out.write(blob)
            if keep:
                for k in HAND_COLUMNS:
                    cols[k][done : done + n] = part[k]
                    if rpart is not None:
                        rcols[k][done : done + n] = rpart[k]
            else:
                tally.add(part, rpart)  # type: ignore[union-attr]
            done += n
            if progress:
                progress(done, total)
    except KeyboardInterrupt:
        interrupted = True  # a chunk is kept only once all of it (both seatings) finished
    finally:
        if out is not None:
            out.close()
    elapsed = time.perf_counter() - t0
    arrays = {k: v[:done] for k, v in cols.items()} if keep else cols
    dup = None
    if duplicate and keep:
        dup = SimResults({k: v[:done] for k, v in rcols.items()}, seed, rotated, profile, interrupted, elapsed)
    return SimResults(arrays, seed, ps, profile, interrupted, elapsed, dup, tally=tally)


def read_records(path: str) -> Iterator[Any]:
    """Reads a records file written by ``simulate(records=...)``: yields each hand as a full
    :class:`~tractor.Game` (replayed and checked)."""
    from .game import Game

    with open(path, "rb") as f:
        data = f.read()
    at = 0
    while at < len(data):
        g, used = _core.replay_record(data[at:])
        at += used
        yield Game._wrap(g)


def load(path: str) -> Any:
    """Loads results saved with ``to_npz`` (hands or matches)."""
    np = _np()
    with np.load(path, allow_pickle=False) as z:
        meta = dict(str(m).split("=", 1) for m in z["__meta__"])
        arrays = {k: z[k] for k in z.files if k != "__meta__"}
    ps = tuple(meta["policies"].split(","))
    seed, profile = int(meta["seed"]), meta["profile"]
    if meta.get("kind") == "matches":
        return MatchResults({k: arrays[k] for k in MATCH_COLUMNS}, seed, ps, profile)  # type: ignore[arg-type]
    main = {k: arrays[k] for k in HAND_COLUMNS}
    dup = None
    if "rotated_index" in arrays:
        rot = (ps[1], ps[2], ps[3], ps[0])
        dup = SimResults({k: arrays["rotated_" + k] for k in HAND_COLUMNS}, seed, rot, profile)
    return SimResults(main, seed, ps, profile, duplicate=dup)  # type: ignore[arg-type]


def merge(parts: Sequence[Any]) -> Any:
    """Merges shards of one run (same seed, policies, profile) into one, in index order;
    refuses overlapping indices or mixed runs."""
    np = _np()
    if not parts:
        raise TractorError("nothing to merge")
    first = parts[0]
    for p in parts[1:]:
        if (type(p), p.run_seed, p.policies, p.profile) != (type(first), first.run_seed, first.policies, first.profile):
            raise TractorError("cannot merge results of different runs (seed, policies, profile or kind differ)")
    spec = MATCH_COLUMNS if isinstance(first, MatchResults) else HAND_COLUMNS
    arrays = _concat([p.arrays for p in parts], spec)
    order = np.argsort(arrays["index"], kind="stable")
    arrays = {k: v[order] for k, v in arrays.items()}
    if len(arrays["index"]) > 1 and (np.diff(arrays["index"].astype(np.int64)) == 0).any():
        raise TractorError("the shards overlap: some hand indices appear twice")
    if isinstance(first, MatchResults):
        return MatchResults(arrays, first.run_seed, first.policies, first.profile)
    dup = None
    if all(p.duplicate is not None for p in parts):
        d = _concat([p.duplicate.arrays for p in parts], spec)
        o = np.argsort(d["index"], kind="stable")
        dup = SimResults({k: v[o] for k, v in d.items()}, first.run_seed, first.duplicate.policies, first.profile)
    return SimResults(arrays, first.run_seed, first.policies, first.profile, duplicate=dup)


def format_summary(s: Dict[str, Any]) -> str:
    """The summary as an aligned text table."""
    rows: List[Tuple[str, str]] = []

    def fmt(v: Any) -> str:
        if isinstance(v, float):
            return f"{v:.4g}"
        if isinstance(v, tuple) and len(v) == 2 and all(isinstance(x, float) for x in v):
            return f"[{v[0]:.4g}, {v[1]:.4g}]"
        if isinstance(v, dict):
            return ", ".join(f"{k}: {fmt(x)}" for k, x in v.items())
        if isinstance(v, tuple):
            return ",".join(str(x) for x in v)
        return str(v)

    for k, v in s.items():
        if k == "teams":
            for team, r in v.items():
                rows.append((team, f"mean return {fmt(r['mean_return'])} levels/hand, 95% CI {fmt(r['ci95'])}"))
        elif k == "duplicate":
            rows.append(
                (f"duplicate: {v['policy']} advantage", f"{fmt(v['advantage'])} levels/deal, 95% CI {fmt(v['ci95'])}")
            )
        else:
            rows.append((k, fmt(v)))
    w = max(len(r[0]) for r in rows)
    return "\n".join(f"{a.ljust(w)}  {b}" for a, b in rows)
