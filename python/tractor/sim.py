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

POLICIES = ("random", "greedy")

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


def _policies(policies: Any) -> Tuple[str, str, str, str]:
    if isinstance(policies, str):
        policies = [p.strip() for p in policies.split(",")]
    ps = tuple(str(p).strip().lower() for p in policies)
    if len(ps) != 4:
        raise TractorError(f"four policies are needed, one per seat, got {len(ps)}: {ps!r}")
    for p in ps:
        if p not in POLICIES:
            raise TractorError(f"unknown policy {p!r}: expected one of {', '.join(POLICIES)}")
    return ps  # type: ignore[return-value]


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


def _mean_ci(x) -> Tuple[float, float, float]:
    np = _np()
    n = len(x)
    if n == 0:
        return (math.nan, math.nan, math.nan)
    m = float(np.mean(x))
    if n < 2:
        return (m, math.nan, math.nan)
    se = float(np.std(x, ddof=1)) / math.sqrt(n)
    return (m, m - 1.96 * se, m + 1.96 * se)


class _Columns:
    """Column access for result objects: ``r.score``, ``r["score"]``, ``len(r)``."""

    arrays: Dict[str, Any]

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
class SimResults(_Columns):
    """Per-hand numpy arrays (``results.score``, ``results["banker"]``, ...) and a summary."""

    arrays: Dict[str, Any]
    run_seed: int
    """The run's seed (the per-hand column ``seed`` holds each hand's own seed)."""
    policies: Tuple[str, str, str, str]
    profile: str
    interrupted: bool = False
    elapsed: float = 0.0
    duplicate: Optional["SimResults"] = None
    """In duplicate mode: the same deals played with the policies rotated by one seat."""
    meta: Dict[str, Any] = field(default_factory=dict)

    # -- derived --------------------------------------------------------------------------
    def returns(self):
        """(n, 4) int array: per seat, levels gained by its team minus the other team's."""
        np = _np()
        a = self.arrays
        n = len(self)
        out = np.zeros((n, 4), dtype=np.int16)
        ok = ~a["stopped"]
        bteam = a["banker"].astype(np.int16) % 2
        gain_team = np.where(a["defenders_take_over"], 1 - bteam, bteam)
        amount = np.where(a["defenders_take_over"], a["defender_levels"], a["banker_levels"]).astype(np.int16)
        for seat in range(4):
            sign = np.where(gain_team == seat % 2, 1, -1)
            out[:, seat] = np.where(ok, sign * amount, 0)
        return out

    def summary(self) -> Dict[str, Any]:
        """Banker win rate with a 95% confidence interval, score quantiles, per-team results,
        and in duplicate mode the advantage of ``policies[0]`` with its interval."""
        np = _np()
        a = self.arrays
        played = ~a["stopped"]
        n_played = int(played.sum())
        banker_won = int((played & ~a["defenders_take_over"]).sum())
        scores = a["score"][played]
        q = [5, 25, 50, 75, 95]
        quant = dict(zip(q, (np.percentile(scores, q).tolist() if n_played else [math.nan] * 5)))
        ret = self.returns()
        teams = {}
        for t in (0, 1):
            name = "+".join(sorted({self.policies[t], self.policies[t + 2]}))
            m, lo, hi = _mean_ci(ret[:, t])
            teams[f"team{t} ({name})"] = {"mean_return": m, "ci95": (lo, hi)}
        out: Dict[str, Any] = {
            "hands": len(self),
            "played": n_played,
            "stopped": int(a["stopped"].sum()),
            "banker_win_rate": banker_won / n_played if n_played else math.nan,
            "banker_win_ci95": _wilson(banker_won, n_played),
            "mean_score": float(scores.mean()) if n_played else math.nan,
            "score_quantiles": quant,
            "teams": teams,
            "policies": self.policies,
            "profile": self.profile,
            "seed": self.run_seed,
            "elapsed_s": self.elapsed,
            "hands_per_s": len(self) / self.elapsed if self.elapsed > 0 else math.nan,
            "interrupted": self.interrupted,
        }
        if self.duplicate is not None:
            adv = self.duplicate_advantage()
            out["duplicate"] = {"policy": self.policies[0], "advantage": adv[0], "ci95": (adv[1], adv[2])}
        return out

    def duplicate_advantage(self) -> Tuple[float, float, float]:
        """Mean levels per deal gained by ``policies[0]``'s team over the other, averaged over
        the two seatings of each deal, with a 95% interval."""
        if self.duplicate is None:
            raise TractorError("not a duplicate run: use simulate(..., duplicate=True)")
        r1 = self.returns()[:, 0]  # policies[0] sits at seat 0 (team 0)
        r2 = self.duplicate.returns()[:, 1]  # rotated: policies[0] sits at seat 1 (team 1)
        return _mean_ci((r1.astype(float) + r2.astype(float)) / 2)

    def __str__(self) -> str:
        return format_summary(self.summary())

    # -- output ---------------------------------------------------------------------------
    def to_npz(self, path: str) -> None:
        np = _np()
        extra = {}
        if self.duplicate is not None:
            extra = {f"rotated_{k}": v for k, v in self.duplicate.arrays.items()}
        meta = np.array(
            [f"seed={self.run_seed}", "policies=" + ",".join(self.policies), f"profile={self.profile}", "kind=hands"]
        )
        np.savez_compressed(path, __meta__=meta, **self.arrays, **extra)

    def to_parquet(self, path: str) -> None:
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
class MatchResults(_Columns):
    """Per-match numpy arrays: ``winner`` (team that first passed A, 255 none), ``hands``."""

    arrays: Dict[str, Any]
    run_seed: int
    """The run's seed (the per-hand column ``seed`` holds each hand's own seed)."""
    policies: Tuple[str, str, str, str]
    profile: str
    interrupted: bool = False
    elapsed: float = 0.0

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
    parts, rparts = [], []
    interrupted = False
    done = 0
    out = open(records, "wb") if records else None
    try:
        for i, n in _chunks(start, total, chunk):
            raw, blob = _core.simulate_hands(seed, i, n, list(ps), profile, nthreads, out is not None)
            rraw = None
            if duplicate:
                rraw, _ = _core.simulate_hands(seed, i, n, list(rotated), profile, nthreads, False)
            parts.append(_columns(raw, HAND_COLUMNS))
            if rraw is not None:
                rparts.append(_columns(rraw, HAND_COLUMNS))
            if out is not None:
                out.write(blob)
            done += n
            if progress:
                progress(done, total)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        if out is not None:
            out.close()
    elapsed = time.perf_counter() - t0
    dup = SimResults(_concat(rparts, HAND_COLUMNS), seed, rotated, profile, interrupted, elapsed) if duplicate else None
    if dup is not None and len(dup) != sum(len(p["index"]) for p in parts):
        # an interrupt between the two halves of a chunk: keep only complete pairs
        keep = len(dup)
        arrays = {k: v[:keep] for k, v in _concat(parts, HAND_COLUMNS).items()}
        return SimResults(arrays, seed, ps, profile, interrupted, elapsed, dup)
    return SimResults(_concat(parts, HAND_COLUMNS), seed, ps, profile, interrupted, elapsed, dup)


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
