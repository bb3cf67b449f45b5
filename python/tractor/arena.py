"""The arena: rates any set of policies against each other, in duplicate, on frozen deal suites.

Every pairing (A, B) plays each deal of a suite twice: once with A's team in seats 0/2, once
with the teams swapped, so the cards' luck cancels. A pairing of built-in policies is exactly
``simulate(hands, (A, B, A, B), seed=suite.seed, start, duplicate=True)``: same deals, same
numbers, on all cores or on Ray, whatever the thread count. From the pairings come one rating
per policy (Bradley–Terry over the deals, with bootstrap intervals, anchored so that
``random`` and ``greedy`` sit at stated values) and each policy's cost per decision.

See ``docs/arena.md`` for the suites, the statistics and the file formats.
"""

from __future__ import annotations

import json
import math
import os
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from . import _core
from ._weights import named
from ._args import _bool, _int, _is_bool, _path, _policy, _profile, _regular_file, _show, _split_policies, _text, _threads
from ._outputs import replacing
from .errors import IncompleteRun, InvalidArgument, ResultsFileError, TractorError
from .rules import PROFILES
from .sim.local import _Interrupt
from .sim.ranges import Ranges, _gaps, _index_ranges, _show_ranges, _union
from .sim.run import simulate
from .sim.stats import _ci

__all__ = ["Suite", "SUITES", "DEFAULT_SUITE", "seed_suite", "play", "ArenaResults", "Pairing", "load", "merge", "FORMAT", "VERSION", "ANCHORS", "CHUNK"]

#: The arena results file's format and version.
FORMAT = "tractor-engine/arena"
VERSION = 1
#: Deals per step of a pairing (Ctrl-C and progress act between steps; with Ray, per task).
CHUNK = 200
#: Where ``random`` and ``greedy`` sit on the rating scale by default.
ANCHORS: Dict[str, float] = {"random": 0.0, "greedy": 1000.0}


@dataclass(frozen=True)
class Suite:
    """A deal suite: deal ``i`` is hand ``i`` of the bulk run with ``seed`` (the first hand
    of a fresh match), under whichever profile is played; match ``j`` is match ``j`` of the
    bulk match run with ``seed``. The frozen suites are :data:`SUITES`; a user's own suite is
    any other name with its seed and counts (``play(suite=Suite("mine", 7, 500, 0))``)."""

    name: str
    seed: int
    deals: int
    matches: int

    def __post_init__(self) -> None:
        if not _text(self.name, "Suite: name"):
            raise InvalidArgument("Suite: name must not be empty")
        _int(self.seed, "Suite: seed", 0, 2**64 - 1)
        _int(self.deals, "Suite: deals", 1, 2**63 - 1)
        _int(self.matches, "Suite: matches", 0, 2**63 - 1)


#: Every frozen suite, by name (the core defines them: ``run::suite``).
SUITES: Dict[str, Suite] = {n: Suite(n, s, d, m) for n, s, d, m in _core.DEAL_SUITES}
#: The suite ``play`` plays by default; a ``seed=`` suite has its counts.
DEFAULT_SUITE = "eval-v1"


def seed_suite(seed: int) -> Suite:
    """The ad-hoc suite of ``seed``: named ``seed-SEED``, with the default suite's counts."""
    seed = _int(seed, "seed", 0, 2**64 - 1)
    d = SUITES[DEFAULT_SUITE]
    return Suite(f"seed-{seed}", seed, d.deals, d.matches)


def _suite(x: Any, what: str = "suite", error: Any = InvalidArgument) -> Suite:
    """A suite by name (a frozen one, or ``seed-SEED``) or a :class:`Suite`; a Suite under a
    frozen suite's name (or ``seed-SEED``'s) must be that suite."""
    if isinstance(x, str):
        if x in SUITES:
            return SUITES[x]
        if x.startswith("seed-") and x[5:].isdigit() and str(int(x[5:])) == x[5:] and int(x[5:]) < 2**64:
            return seed_suite(int(x[5:]))
        raise error(f"{what}: unknown suite {_show(x)}: expected one of {', '.join(SUITES)}, seed-SEED or a Suite")
    if not isinstance(x, Suite):
        raise error(f"{what} must be a suite's name or a Suite(name, seed, deals, matches), got {_show(x)}")
    try:
        known = _suite(x.name)
    except InvalidArgument:
        return x
    if known != x:
        raise error(f"{what}: {x.name!r} is the name of {known}; a suite of your own needs a name of its own")
    return x


# -- the entrants ------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Entrant:
    label: str
    policy: Any  # a canonical policy name, or a callable


def _entrants(policies: Any) -> List[_Entrant]:
    """Policies as ``[name or callable, ...]`` or ``{label: name or callable}``."""
    if isinstance(policies, str):  # "a,b,pimc:worlds=8,rollouts=2": a key=value continues its search
        policies = _split_policies(policies)
    items = list(policies.items()) if isinstance(policies, dict) else [(None, p) for p in policies] if isinstance(
        policies, (list, tuple)) else None
    if items is None:
        raise InvalidArgument(f"policies must be a list of policies or a dict label -> policy, got {_show(policies)}")
    out: List[_Entrant] = []
    for i, (label, p) in enumerate(items):
        what = f"policies[{i}]" if label is None else f"policies[{label!r}]"
        if callable(p):
            name = label if label is not None else getattr(p, "__name__", f"callable{i}")
            out.append(_Entrant(_text(name, f"{what} label"), p))
        else:
            canon = _policy(p, what)
            if label is None:  # a shipped agent keeps its name; any other policy its canonical name
                label = p.strip().lower() if named(p) else canon
            out.append(_Entrant(_text(label, f"{what} label"), canon))
    labels = [e.label for e in out]
    if len(out) < 2:
        raise InvalidArgument(f"policies: the arena needs at least two, got {len(out)}")
    if len(set(labels)) != len(labels):
        raise InvalidArgument(f"policies: each needs its own label, got {labels} (pass a dict label -> policy)")
    return out


# -- playing a pairing -------------------------------------------------------------------------


@dataclass
class Pairing:
    """One pairing's deals: A's team's return (levels gained minus lost, R7.4) when it sits
    in seats 0/2 (``a_first``) and in seats 1/3 (``a_second``), per deal index."""

    a: str
    b: str
    index: np.ndarray
    a_first: np.ndarray
    a_second: np.ndarray
    match_index: np.ndarray = field(default_factory=lambda: np.zeros(0, np.uint64))
    #: A's match wins (0, 1 or 2 of the two seatings) per match index.
    match_wins: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int8))
    #: B's match wins likewise (a match may end with no winner within its cap).
    match_losses: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int8))

    def advantage(self) -> np.ndarray:
        """Per deal: A's levels per deal over B, the mean of the two seatings."""
        return (self.a_first.astype(np.float64) + self.a_second) / 2

    def summary(self) -> Dict[str, Any]:
        adv = self.advantage()
        m, lo, hi = _ci(len(adv), float(adv.sum()), float((adv**2).sum()))
        both = np.concatenate([self.a_first, self.a_second])
        out: Dict[str, Any] = {
            "a": self.a, "b": self.b, "deals": len(adv),
            "levels_per_deal": m, "ci95": (lo, hi),
            "a_gains_share": float((both > 0).mean()) if len(both) else math.nan,
            "b_gains_share": float((both < 0).mean()) if len(both) else math.nan,
        }
        if len(self.match_index):
            score = (self.match_wins - self.match_losses).astype(np.float64) / 2  # per match pair, -1..1
            wm, wlo, whi = _ci(len(score), float(score.sum()), float((score**2).sum()))
            n = 2 * len(self.match_index)
            out["matches"] = len(self.match_index)
            out["match_win_rate"] = float(self.match_wins.sum()) / n
            out["match_loss_rate"] = float(self.match_losses.sum()) / n
            out["match_margin"] = wm  # win rate minus loss rate, with its paired interval
            out["match_margin_ci95"] = (wlo, whi)
        return out


# -- ratings -----------------------------------------------------------------------------------


def _bradley_terry(n: int, games: Sequence[Tuple[int, int, np.ndarray]], iters: int = 2000) -> np.ndarray:
    """Bradley–Terry log-strengths (natural log) of ``n`` players from per-deal outcomes:
    ``games`` holds (i, j, advantage of i per deal); a deal i gained levels on is a win, a
    lost one a loss, an even one half of each. Each pair also gets one even deal (a prior
    that keeps a side that won everything finite). Minorisation–maximisation (Hunter 2004)."""
    wins = np.zeros((n, n))
    for i, j, adv in games:
        w = float((adv > 0).sum()) + 0.5 * float((adv == 0).sum()) + 0.5
        l_ = float((adv < 0).sum()) + 0.5 * float((adv == 0).sum()) + 0.5
        wins[i, j] += w
        wins[j, i] += l_
    played = wins + wins.T
    p = np.ones(n)
    for _ in range(iters):
        denom = (played / (p[:, None] + p[None, :])).sum(axis=1)
        new = wins.sum(axis=1) / np.where(denom > 0, denom, 1)
        new = np.where(new > 0, new, 1e-12)
        new /= math.exp(float(np.log(new).mean()))
        if np.max(np.abs(np.log(new) - np.log(p))) < 1e-10:
            p = new
            break
        p = new
    return np.log(p)


def _anchored(logp: np.ndarray, labels: List[str], anchors: Dict[str, float]) -> np.ndarray:
    """Elo-scale ratings (400·log10 of the strength). With two anchors present the scale is
    set by them (each sits at its stated value); with one, the ratings are shifted to put it
    there; with none, they average 0."""
    elo = 400 * logp / math.log(10)
    present = [(labels.index(k), v) for k, v in anchors.items() if k in labels]
    if len(present) >= 2:
        (i, vi), (j, vj) = present[:2]
        if abs(elo[j] - elo[i]) > 1e-9:
            return vi + (elo - elo[i]) * (vj - vi) / (elo[j] - elo[i])
    if present:
        i, vi = present[0]
        return elo - elo[i] + vi
    return elo - elo.mean()


# -- results -----------------------------------------------------------------------------------


@dataclass
class ArenaResults:
    """The pairings' deals and, derived from them, the ratings and the summary."""

    labels: List[str]
    policies: List[str]
    """Each entrant's canonical policy name (``callable:LABEL`` for a callable)."""
    suite: str
    profile: str
    pairings: List[Pairing]
    cost_us: Dict[str, float] = field(default_factory=dict)
    """Microseconds per decision of each policy, playing all four seats, one thread."""
    anchors: Dict[str, float] = field(default_factory=lambda: dict(ANCHORS))
    bootstrap: int = 200
    interrupted: bool = False
    elapsed: float = 0.0
    engine: str = _core.__version__
    planned: Dict[str, Ranges] = field(default_factory=dict)
    """The index ranges this result was asked to play: ``{"deals": [...], "matches": [...]}``
    (absent: the ones it holds)."""
    run: Optional[Dict[str, Tuple[int, int]]] = None
    """The whole run's ranges when this is one shard of it (``tractor arena --shard``):
    ``{"deals": (start, end), "matches": (start, end)}``; a merge then finds absent shards."""
    suite_def: Optional[Suite] = None
    """The suite played (its name is ``suite``; its seed and counts); None: the suite named
    ``suite`` (a frozen one, or ``seed-SEED``)."""

    @property
    def suite_seed(self) -> int:
        """The seed of the suite played."""
        return (self.suite_def or _suite(self.suite)).seed

    def _games(self, resample: Optional[np.random.Generator] = None) -> List[Tuple[int, int, np.ndarray]]:
        out = []
        for p in self.pairings:
            adv = p.advantage()
            if resample is not None and len(adv):
                adv = adv[resample.integers(0, len(adv), len(adv))]
            out.append((self.labels.index(p.a), self.labels.index(p.b), adv))
        return out

    def ratings(self) -> Dict[str, Tuple[float, float, float]]:
        """Per label: (rating, 2.5th, 97.5th percentile over ``bootstrap`` resamples of the
        deals within each pairing). The resampling draws from a fixed seed."""
        n = len(self.labels)
        point = _anchored(_bradley_terry(n, self._games()), self.labels, self.anchors)
        if self.bootstrap > 0:
            rng = np.random.Generator(np.random.PCG64(20261202))
            boots = np.array([_anchored(_bradley_terry(n, self._games(rng), iters=500), self.labels, self.anchors)
                              for _ in range(self.bootstrap)])
            lo, hi = np.percentile(boots, 2.5, axis=0), np.percentile(boots, 97.5, axis=0)
        else:
            lo = hi = np.full(n, math.nan)
        return {lab: (float(point[k]), float(lo[k]), float(hi[k])) for k, lab in enumerate(self.labels)}

    def summary(self) -> Dict[str, Any]:
        return {
            "suite": self.suite, "suite_seed": self.suite_seed, "profile": self.profile, "engine": self.engine,
            "ratings": self.ratings(), "cost_us": dict(self.cost_us),
            "pairings": [p.summary() for p in self.pairings],
            "interrupted": self.interrupted, "elapsed_s": self.elapsed,
        }

    def table(self) -> str:
        """The ratings and the pairings as a text table."""
        r = self.ratings()
        own = "" if self.suite in SUITES else f" (seed {self.suite_seed})"
        lines = [f"arena: suite {self.suite}{own}, profile {self.profile}" + (" (interrupted)" if self.interrupted else "")]
        w = max(len(x) for x in self.labels)
        lines.append(f"{'policy':<{w}}  {'rating':>7}  {'95% interval':>17}  {'µs/decision':>11}")
        for lab in sorted(self.labels, key=lambda x: -r[x][0]):
            v, lo, hi = r[lab]
            cost = self.cost_us.get(lab)
            lines.append(f"{lab:<{w}}  {v:7.0f}  {f'[{lo:.0f}, {hi:.0f}]':>17}  "
                         f"{'' if cost is None else f'{cost:11.2f}'}")
        lines.append("")
        lines.append("pairing: A's levels per deal over B (95% interval), deals A's / B's team gains levels on")
        for p in self.pairings:
            s = p.summary()
            lo, hi = s["ci95"]
            line = (f"{p.a} vs {p.b}: {s['levels_per_deal']:+.3f} [{lo:+.3f}, {hi:+.3f}] over {s['deals']} deals; "
                    f"gains {s['a_gains_share']:.1%} / {s['b_gains_share']:.1%}")
            if "matches" in s:
                line += (f"; matches won {s['match_win_rate']:.1%} / {s['match_loss_rate']:.1%} of "
                         f"{2 * s['matches']}")
            lines.append(line)
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()

    # -- files ---------------------------------------------------------------------------------
    def to_dict(self) -> Dict[str, Any]:
        return {
            "format": FORMAT, "format_version": VERSION, "engine": self.engine,
            "suite": self.suite, "profile": self.profile,
            "labels": self.labels, "policies": self.policies, "anchors": self.anchors,
            "bootstrap": self.bootstrap, "interrupted": self.interrupted, "elapsed_s": self.elapsed,
            "cost_us": self.cost_us,
            "pairings": [{
                "a": p.a, "b": p.b, "index": p.index.tolist(),
                "a_first": p.a_first.tolist(), "a_second": p.a_second.tolist(),
                "match_index": p.match_index.tolist(), "match_wins": p.match_wins.tolist(),
                "match_losses": p.match_losses.tolist(),
            } for p in self.pairings],
            "planned": {k: [list(r) for r in v] for k, v in self.planned.items()},
            "run": None if self.run is None else {k: list(v) for k, v in self.run.items()},
            "summary": _finite(self.summary()),
            # a suite of one's own (a frozen suite is known by its name)
            **({} if self.suite in SUITES else {"suite_def": {k: getattr(self.suite_def or _suite(self.suite), k)
                                                               for k in ("seed", "deals", "matches")}}),
        }

    def to_json(self, path: str) -> None:
        """Writes the results (every deal of every pairing, and the summary) as JSON (a value
        that is not a number, as an interval without resamples, is null)."""
        d = self.to_dict()
        with replacing(os.fspath(path)) as tmp, open(tmp, "w", encoding="utf-8") as f:
            json.dump(d, f, allow_nan=False)

    def to_parquet(self, path: str) -> None:
        """One row per (pairing, deal): a, b, deal, a_first, a_second (needs pyarrow)."""
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError:
            raise TractorError('to_parquet needs pyarrow: pip install "tractor-engine[parquet]"') from None
        cols: Dict[str, list] = {"a": [], "b": [], "deal": [], "a_first": [], "a_second": []}
        for p in self.pairings:
            cols["a"] += [p.a] * len(p.index)
            cols["b"] += [p.b] * len(p.index)
            cols["deal"] += p.index.tolist()
            cols["a_first"] += p.a_first.tolist()
            cols["a_second"] += p.a_second.tolist()
        t = pa.table({"a": pa.array(cols["a"], pa.string()), "b": pa.array(cols["b"], pa.string()),
                      "deal": pa.array(cols["deal"], pa.uint64()), "a_first": pa.array(cols["a_first"], pa.int16()),
                      "a_second": pa.array(cols["a_second"], pa.int16())})
        t = t.replace_schema_metadata({"arena": json.dumps({k: v for k, v in self.to_dict().items() if k != "pairings"}, allow_nan=False)})
        with replacing(os.fspath(path)) as tmp:
            pq.write_table(t, tmp)

    def plot(self, path: str) -> None:
        """The ratings with their intervals, as an image (needs matplotlib)."""
        try:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            raise TractorError('plot needs matplotlib: pip install "tractor-engine[plot]"') from None
        r = self.ratings()
        order = sorted(self.labels, key=lambda x: r[x][0])
        v = np.array([r[x][0] for x in order])
        lo = np.array([r[x][1] for x in order])
        hi = np.array([r[x][2] for x in order])
        fig, ax = plt.subplots(figsize=(7, 0.5 * len(order) + 1.5))
        ax.errorbar(v, range(len(order)), xerr=[np.nan_to_num(v - lo), np.nan_to_num(hi - v)], fmt="o", capsize=4)
        ax.set_yticks(range(len(order)), order)
        ax.set_xlabel("rating, with its 95% bootstrap interval")
        anchors = ", ".join(f"{k} = {x:g}" for k, x in self.anchors.items() if k in self.labels)
        ax.set_title(f"arena: {self.suite}, {self.profile}" + (f" ({anchors})" if anchors else ""))
        ax.grid(axis="x", alpha=0.3)
        fig.tight_layout()
        try:
            with replacing(os.fspath(path)) as tmp:
                fig.savefig(tmp, dpi=120, format=os.path.splitext(os.fspath(path))[1][1:].lower() or None)
        finally:
            plt.close(fig)


def _finite(x: Any) -> Any:
    """``x`` with every float that is not a number (NaN, infinite) as None: JSON has none."""
    if isinstance(x, float):
        return x if math.isfinite(x) else None
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_finite(v) for v in x]
    return x


def _pairs(labels: List[str]) -> List[Tuple[str, str]]:
    """The pairings of ``labels``, in the order ``play`` plays (and files) them."""
    return [(a, b) for i, a in enumerate(labels) for b in labels[i + 1:]]


def _column(x: Any, what: str, lo: int, hi: int, dtype: Any, error: Any) -> np.ndarray:
    """A list of ints (a file's) or a 1-D integer array (a result's), each in lo..hi."""
    if isinstance(x, np.ndarray):
        if x.ndim != 1 or x.dtype.kind not in "iu":
            raise error(f"{what} must be a 1-D array of integers, got {x.ndim}-D {x.dtype}")
        vals = (int(x.min()), int(x.max())) if len(x) else ()
    elif isinstance(x, list):
        if not all(type(v) is int for v in x):
            bad = next(v for v in x if type(v) is not int)
            raise error(f"{what} must hold integers, got {_show(bad)}")
        vals = (min(x), max(x)) if x else ()
    else:
        raise error(f"{what} must be a list of integers, got {_show(x)}")
    if vals and not (lo <= vals[0] and vals[1] <= hi):
        raise error(f"{what} holds {vals[0] if vals[0] < lo else vals[1]}, out of range: each must be in {lo}..{hi}")
    return np.array(x, dtype)


def _range_list(x: Any, what: str, hi: int, error: Any) -> Ranges:
    """Index ranges ``[[start, end], ...]`` in 0..hi, start <= end."""
    if not isinstance(x, (list, tuple)):
        raise error(f"{what} must be a list of index ranges [start, end], got {_show(x)}")
    for r in x:
        if not (isinstance(r, (list, tuple)) and len(r) == 2 and all(type(v) is int for v in r)
                and 0 <= r[0] <= r[1] <= hi):
            raise error(f"{what}: a range must be [start, end] with 0 <= start <= end <= {hi}, got {_show(r)}")
    return [(r[0], r[1]) for r in x]


def _checked(r: Any, what: str, error: Any) -> ArenaResults:
    """``r`` with every field checked (type, range, shape, which pairings in which order) and
    its columns as arrays; else ``error`` naming the field."""
    if not isinstance(r, ArenaResults):
        raise error(f"{what} is a {type(r).__name__}, not ArenaResults")
    for name, kind in (("suite", str), ("profile", str), ("engine", str), ("labels", list), ("policies", list),
                       ("pairings", list), ("anchors", dict), ("cost_us", dict), ("planned", dict), ("interrupted", bool)):
        if not isinstance(getattr(r, name), kind):
            raise error(f"{what}: {name} must be a {kind.__name__}, got {_show(getattr(r, name))}")
    if r.suite_def is None:
        s = _suite(r.suite, f"{what}: suite", error)
    elif not isinstance(r.suite_def, Suite) or r.suite_def.name != r.suite:
        raise error(f"{what}: suite_def must be the Suite named {r.suite!r}, got {_show(r.suite_def)}")
    else:
        s = _suite(r.suite_def, f"{what}: suite_def", error)
    if r.profile not in PROFILES:
        raise error(f"{what}: profile {_show(r.profile)} is not one of {', '.join(PROFILES)}")
    labels = r.labels
    if len(labels) < 2 or not all(isinstance(x, str) and x for x in labels) or len(set(labels)) != len(labels):
        raise error(f"{what}: labels must be two or more distinct names, got {_show(labels)}")
    if len(r.policies) != len(labels) or not all(isinstance(x, str) and x for x in r.policies):
        raise error(f"{what}: policies must be {len(labels)} names, one per label, got {_show(r.policies)}")
    for name, d, only in (("anchors", r.anchors, None), ("cost_us", r.cost_us, labels)):
        for k, v in d.items():
            if not isinstance(k, str) or (only is not None and k not in only):
                raise error(f"{what}: {name} has the key {_show(k)}, not a label")
            if _is_bool(v) or not isinstance(v, (int, float)) or not math.isfinite(v) or (name == "cost_us" and v < 0):
                raise error(f"{what}: {name}[{k!r}] must be a finite number, got {_show(v)}")
    bootstrap = _int(r.bootstrap, f"{what}: bootstrap", 0, 100_000, error)
    if _is_bool(r.elapsed) or not isinstance(r.elapsed, (int, float)) or not (math.isfinite(r.elapsed) and r.elapsed >= 0):
        raise error(f"{what}: elapsed_s must be a finite number of seconds, got {_show(r.elapsed)}")
    extents = {"deals": s.deals, "matches": s.matches}
    if set(r.planned) - set(extents):
        raise error(f"{what}: planned has the keys deals and matches, got {_show(list(r.planned))}")
    planned = {k: _range_list(v, f"{what}: planned {k}", extents[k], error) for k, v in r.planned.items()}
    run = r.run
    if run is not None:
        if not isinstance(run, dict) or set(run) != set(extents):
            raise error(f"{what}: run must be null or {{'deals': [start, end], 'matches': [start, end]}}, got {_show(run)}")
        run = {k: _range_list([v], f"{what}: run {k}", extents[k], error)[0] for k, v in run.items()}
    pairs = _pairs(labels)
    if len(r.pairings) > len(pairs) or (len(r.pairings) < len(pairs) and not r.interrupted):
        raise error(f"{what}: {len(labels)} policies make {len(pairs)} pairings, it holds {len(r.pairings)}"
                    + ("" if len(r.pairings) > len(pairs) else " and is not marked interrupted"))
    out = []
    for k, p in enumerate(r.pairings):
        if not isinstance(p, Pairing):
            raise error(f"{what}: pairings[{k}] is a {type(p).__name__}, not a Pairing")
        if (p.a, p.b) != pairs[k]:
            raise error(f"{what}: pairings[{k}] is {_show(p.a)} vs {_show(p.b)}; the labels' pairing {k} is "
                        f"{pairs[k][0]!r} vs {pairs[k][1]!r} (reordered, or the teams swapped)")
        at = f"{what}: pairing {p.a} vs {p.b}:"
        idx = _column(p.index, f"{at} index", 0, s.deals - 1, np.uint64, error)
        mi = _column(p.match_index, f"{at} match_index", 0, s.matches - 1, np.uint64, error)
        for name, col in (("index", idx), ("match_index", mi)):
            if len(col) > 1 and not (np.diff(col.astype(np.int64)) > 0).all():
                raise error(f"{at} {name} must be strictly increasing (each deal once, in order)")
        cols = [_column(getattr(p, n), f"{at} {n}", *lim, error) for n, lim in (
            ("a_first", (-2**15, 2**15 - 1, np.int16)), ("a_second", (-2**15, 2**15 - 1, np.int16)),
            ("match_wins", (0, 2, np.int8)), ("match_losses", (0, 2, np.int8)))]
        for n, col, of in zip(("a_first", "a_second", "match_wins", "match_losses"), cols, (idx, idx, mi, mi)):
            if len(col) != len(of):
                raise error(f"{at} {n} holds {len(col)} values for {len(of)} indices")
        if (cols[2] + cols[3] > 2).any():
            raise error(f"{at} a match pair has more than 2 wins and losses in all")
        out.append(Pairing(p.a, p.b, idx, *cols[:2], mi, *cols[2:]))
    return ArenaResults(list(labels), list(r.policies), r.suite, r.profile, out, dict(r.cost_us), dict(r.anchors),
                        bootstrap, r.interrupted, float(r.elapsed), r.engine, planned, run, s)


_KEYS = ("format", "format_version", "engine", "suite", "profile", "labels", "policies", "anchors", "bootstrap",
         "interrupted", "elapsed_s", "cost_us", "pairings")
_PAIRING_KEYS = ("a", "b", "index", "a_first", "a_second", "match_index", "match_wins", "match_losses")


def _from_dict(d: Any, what: str = "arena results") -> ArenaResults:
    if not isinstance(d, dict) or d.get("format") != FORMAT:
        raise ResultsFileError(f"not an arena results file: format {_show(d.get('format') if isinstance(d, dict) else d)}")
    if type(d.get("format_version")) is not int or d["format_version"] != VERSION:
        raise ResultsFileError(f"arena results version {_show(d.get('format_version'))} is not {VERSION}")
    missing = [k for k in _KEYS if k not in d]
    unknown = sorted(set(d) - set(_KEYS) - {"planned", "run", "summary", "suite_def"})
    if missing or unknown:
        raise ResultsFileError(f"{what}: " + "; ".join(
            ([f"missing the keys {', '.join(missing)}"] if missing else []) + ([f"unknown keys {unknown}"] if unknown else [])))
    if not isinstance(d["pairings"], list):
        raise ResultsFileError(f"{what}: pairings must be a list, got {_show(d['pairings'])}")
    ps = []
    for k, p in enumerate(d["pairings"]):
        if not isinstance(p, dict) or set(p) != set(_PAIRING_KEYS):
            raise ResultsFileError(f"{what}: pairings[{k}] must be an object with the keys {', '.join(_PAIRING_KEYS)}")
        ps.append(Pairing(*(p[x] for x in _PAIRING_KEYS)))
    if d.get("planned") is not None and not isinstance(d["planned"], dict):
        raise ResultsFileError(f"{what}: planned must be an object, got {_show(d['planned'])}")
    sd = d.get("suite_def")
    if sd is not None:  # written since suites of one's own (absent: a frozen suite)
        if not isinstance(sd, dict) or set(sd) != {"seed", "deals", "matches"} or not isinstance(d["suite"], str):
            raise ResultsFileError(f"{what}: suite_def must be an object with the keys seed, deals and matches, got {_show(sd)}")
        try:
            sd = Suite(d["suite"], sd["seed"], sd["deals"], sd["matches"])
        except InvalidArgument as e:
            raise ResultsFileError(f"{what}: suite_def: {e}") from None
    r = ArenaResults(d["labels"], d["policies"], d["suite"], d["profile"], ps, d["cost_us"], d["anchors"],
                     d["bootstrap"], d["interrupted"], d["elapsed_s"], d["engine"], d.get("planned") or {}, d.get("run"), sd)
    return _checked(r, what, ResultsFileError)


def load(path: str) -> ArenaResults:
    """Reads results written by :meth:`ArenaResults.to_json`, checking every field.

    Raises InvalidArgument (a path of the wrong type) and ResultsFileError naming what is
    wrong: a file that cannot be read, is not a regular file, or not arena results."""
    path = _path(path)
    try:
        _regular_file(path, ResultsFileError)
        with open(path, encoding="utf-8") as f:
            d = json.load(f, parse_constant=lambda c: _not_json(c))
    except OSError as e:
        raise ResultsFileError(f"{path}: cannot read arena results: {e.strerror or e}") from None
    except (ValueError, RecursionError) as e:
        if isinstance(e, TractorError):
            raise
        what = "nested too deeply" if isinstance(e, RecursionError) else str(e)
        raise ResultsFileError(f"{path}: not arena results (JSON): {what}") from None
    return _from_dict(d, path)


def _not_json(c: str) -> Any:
    raise ResultsFileError(f"{c} is not a JSON value (an arena results file holds no {c})")


def merge(*parts: ArenaResults, partial: bool = False) -> ArenaResults:
    """One result from shards of one arena run (other deals of the same pairings): the
    pairings' deals in index order, as one run over all of them would give.

    The parts must be of one run: the same suite, profile, engine, policies (in the same
    order, so the same pairings), anchors and bootstrap; each pairing's deals (and matches)
    held by one part at most, and none missing between the parts, from the ranges they were
    asked to play or, for shards of ``tractor arena --shard``, from the whole run's. Raises
    InvalidArgument (a part that is not well-formed ArenaResults) and IncompleteRun naming
    what differs, is twice or is missing. ``partial=True`` merges what there is (the result
    then says ``interrupted=True``); overlaps are still refused."""
    if not parts:
        raise InvalidArgument("merge needs at least one result")
    partial = _bool(partial, "partial")
    parts = tuple(_checked(p, f"merge: parts[{i}]", InvalidArgument) for i, p in enumerate(parts))
    first = parts[0]
    for i, p in enumerate(parts[1:], 1):
        for name in ("suite", "suite_def", "profile", "engine", "labels", "policies", "anchors", "bootstrap"):
            a, b = getattr(first, name), getattr(p, name)
            if a != b:
                raise IncompleteRun(f"merge: parts[{i}] is of another arena run: its {name} is {_show(b)}, "
                                    f"parts[0]'s is {_show(a)}")
    runs = [p.run for p in parts if p.run is not None]
    if any(r != runs[0] for r in runs):
        raise IncompleteRun(f"merge: the parts are shards of different runs: {_show(runs)}")
    run = runs[0] if runs else None
    gaps: List[str] = []
    missing_all: Ranges = []
    merged = []
    for k, (a, b) in enumerate(_pairs(first.labels)):
        cat = [(i, q.pairings[k]) for i, q in enumerate(parts) if k < len(q.pairings)]
        for kind, key in (("deals", "index"), ("matches", "match_index")):
            held = sorted((lo, hi, i) for i, c in cat for lo, hi in _index_ranges(getattr(c, key)))
            for (a0, a1, i), (b0, b1, j) in zip(held, held[1:]):
                if b0 < a1:
                    raise IncompleteRun(f"merge: pairing {a} vs {b} has {kind} {_show_ranges([(b0, min(a1, b1))])} "
                                        f"in two parts: parts[{i}] and parts[{j}]")
            covered = _union((lo, hi) for lo, hi, _ in held)
            expected = _union([r for q in parts for r in q.planned.get(kind, _held(q, key))]
                              + ([run[kind]] if run is not None else []))
            missing = _gaps(expected[0][0], expected[-1][1], covered) if expected else []
            if missing:
                gaps.append(f"pairing {a} vs {b}: {kind} {_show_ranges(missing)}")
                if kind == "deals":
                    missing_all = _union(missing_all + missing)
        if not cat:
            continue
        idx = np.concatenate([c.index for _, c in cat])
        o = np.argsort(idx, kind="stable")
        midx = np.concatenate([c.match_index for _, c in cat])
        mo = np.argsort(midx, kind="stable")
        merged.append(Pairing(a, b, idx[o], np.concatenate([c.a_first for _, c in cat])[o],
                              np.concatenate([c.a_second for _, c in cat])[o], midx[mo],
                              np.concatenate([c.match_wins for _, c in cat])[mo],
                              np.concatenate([c.match_losses for _, c in cat])[mo]))
    cut = [i for i, q in enumerate(parts) if q.interrupted]
    if (gaps or cut) and not partial:
        why = (f"missing: {'; '.join(gaps[:4])}" + (f" and {len(gaps) - 4} more" if len(gaps) > 4 else "")
               if gaps else f"parts{cut} were interrupted")
        raise IncompleteRun(f"merge: the parts do not form one complete arena run: {why} (interrupted or absent "
                            f"shards); pass partial=True (tractor merge --partial) to merge what there is", missing_all)
    cost = {lab: float(np.median([q.cost_us[lab] for q in parts if lab in q.cost_us]))
            for lab in first.labels if any(lab in q.cost_us for q in parts)}
    planned = {kind: _union([r for q in parts for r in q.planned.get(kind, _held(q, key))])
               for kind, key in (("deals", "index"), ("matches", "match_index"))}
    return ArenaResults(first.labels, first.policies, first.suite, first.profile, merged, cost, first.anchors,
                        first.bootstrap, bool(gaps or cut), sum(q.elapsed for q in parts), first.engine, planned, run,
                        first.suite_def)


def _held(r: ArenaResults, key: str) -> Ranges:
    """The index ranges any pairing of ``r`` holds (``index`` or ``match_index``)."""
    return _union(x for p in r.pairings for x in _index_ranges(getattr(p, key)))


# -- the run -----------------------------------------------------------------------------------


def _pairing(a: _Entrant, b: _Entrant, s: Suite, profile: str, start: int, count: int, matches: int,
             match_start: int, max_hands: int, threads: Any, backend: str, address: Any,
             progress: Optional[Callable[[int, int], None]], base: int, total: int,
             stop: _Interrupt) -> Tuple[Optional[Pairing], bool]:
    """One pairing's deals (and matches), and whether Ctrl-C cut it short (then it holds the
    deals that finished, or is None)."""

    def step(done: int, _total: int) -> None:
        if progress is not None:
            try:
                progress(base + done, total)
            except KeyboardInterrupt:  # a progress callback may stop the run, as Ctrl-C does
                stop.requested = True
                raise

    # a callable plays through the same simulate (at a table where it is asked in batches),
    # on this machine whatever the backend
    if callable(a.policy) or callable(b.policy):
        backend, address = "local", None
    r = simulate(hands=count, policies=(a.policy, b.policy, a.policy, b.policy), seed=s.seed, start=start,
                 threads=threads, profile=profile, duplicate=True, backend=backend, address=address,
                 chunk=CHUNK, progress=step)
    idx = r.arrays["index"]
    if r.duplicate is None or not np.array_equal(idx, r.duplicate.arrays["index"]):
        raise TractorError("internal error: a duplicate run's seatings cover different deals")
    a1 = r.arrays["return0"].astype(np.int16)
    a2 = r.duplicate.arrays["return1"].astype(np.int16)
    if r.interrupted or stop.requested:  # the deals that finished
        return (Pairing(a.label, b.label, np.asarray(idx, np.uint64), a1, a2) if len(idx) else None), True
    p = Pairing(a.label, b.label, np.asarray(idx, np.uint64), a1, a2)
    if matches and not stop.requested:
        runs = [simulate(matches=matches, policies=seats, seed=s.seed, start=match_start, threads=threads,
                         profile=profile, max_hands=max_hands, backend=backend, address=address)
                for seats in ((a.policy, b.policy) * 2, (b.policy, a.policy) * 2)]
        if any(m.interrupted for m in runs):
            return p, True  # the deals finished; the matches did not
        m1, m2 = (m.arrays for m in runs)
        p.match_index = np.asarray(m1["index"], np.uint64)
        p.match_wins = (m1["winner"] == 0).astype(np.int8) + (m2["winner"] == 1)
        p.match_losses = (m1["winner"] == 1).astype(np.int8) + (m2["winner"] == 0)
        step(count + matches, total)
    elif matches:
        return p, True
    return p, stop.requested


def _cost_us(e: _Entrant, suite: Suite, profile: str, budget_s: float) -> float:
    """Microseconds per decision of a policy playing all four seats on the suite's first
    deals, one thread: hands double until ``budget_s`` is spent."""
    hands, spent, decisions = 4, 0.0, 0
    while True:
        t0 = time.perf_counter()
        r = simulate(hands=hands, policies=(e.policy,) * 4, seed=suite.seed, threads=1, profile=profile)
        decisions += int(r.arrays["decisions"].sum())
        spent += time.perf_counter() - t0
        if spent >= budget_s or hands >= 4096:
            return spent / max(decisions, 1) * 1e6
        hands *= 2


def play(
    policies: Any,
    *,
    suite: Any = None,
    seed: Optional[int] = None,
    profile: str = "guigang",
    deals: Optional[int] = None,
    start: int = 0,
    matches: int = 0,
    match_start: int = 0,
    max_hands: int = 1000,
    threads: Optional[int] = None,
    backend: str = "local",
    address: Optional[str] = None,
    cost: bool = True,
    anchors: Optional[Dict[str, float]] = None,
    bootstrap: int = 200,
    progress: Optional[Callable[[int, int], None]] = None,
) -> ArenaResults:
    """Plays every pairing of ``policies`` in duplicate on ``suite``'s deals and rates them.

    - ``suite``: a frozen suite's name (default ``eval-v1``), ``seed-SEED``, or a
      :class:`Suite` of your own; ``seed``: instead of ``suite``, the ad-hoc suite
      :func:`seed_suite` (named ``seed-SEED``, the default suite's counts). The results carry
      the suite's name and seed; :func:`merge` refuses parts of different suites.

    - ``policies``: policy names (``"greedy"``, ``"ismcts:iterations=200"``, ...) or callables,
      as a list (labelled by their names) or a dict ``{label: policy}``. A callable plays
      from Python, batched: ``fn(observations, masks) -> action ids`` (``observation_tensor``
      rows and ``action_mask`` rows of every game that waits on it; on this machine, whatever
      the backend; slower, see :mod:`tractor.policy_fn`). Its deals are ``simulate``'s, so a
      callable that decides as a built-in policy does gets that policy's results.
    - ``deals``: how many of the suite's deals, from ``start`` (default: all of them, from 0);
      shards of one run merge with :func:`merge`.
    - ``matches``: also play that many of the suite's whole matches per pairing, from
      ``match_start`` (each twice, teams swapped; a match ends when a team passes A or after
      ``max_hands`` hands).
    - ``threads``, ``backend``, ``address``: as for :func:`tractor.simulate`; the results do
      not depend on them.
    - ``cost``: measure each policy's microseconds per decision (one thread, about 0.3 s).
    - ``anchors``: rating values of policies that fix the scale (default random 0,
      greedy 1000); ``bootstrap``: resamples for the intervals (0: none).
    - ``progress(done, total)``: deals (and matches) finished over all pairings.

    Ctrl-C stops after the current chunk and returns what finished (``interrupted=True``).
    Raises InvalidArgument (and its subclasses) naming the argument."""
    es = _entrants(policies)
    if seed is not None and suite is not None:
        raise InvalidArgument("suite and seed: pass one (a suite, or the seed of an ad-hoc suite), got both")
    s = seed_suite(seed) if seed is not None else _suite(DEFAULT_SUITE if suite is None else suite)
    profile = _profile(profile)
    start = _int(start, "start", 0, s.deals)
    count = s.deals - start if deals is None else _int(deals, f"deals (the suite has {s.deals})", 1, s.deals - start)
    match_start = _int(match_start, "match_start", 0, s.matches)
    matches = _int(matches, f"matches (the suite has {s.matches} from 0)", 0, s.matches - match_start)
    max_hands = _int(max_hands, "max_hands", 1, 2**32 - 1)
    _threads(threads)
    cost = _bool(cost, "cost")
    bootstrap = _int(bootstrap, "bootstrap", 0, 100_000)
    if anchors is None:
        anchors = dict(ANCHORS)
    if not isinstance(anchors, dict) or not all(isinstance(k, str) and isinstance(v, (int, float)) and math.isfinite(v)
                                                for k, v in anchors.items()):
        raise InvalidArgument(f"anchors must be a dict label -> finite number, got {_show(anchors)}")
    if matches and any(callable(e.policy) for e in es):
        raise InvalidArgument("matches: whole matches are played by built-in policies only; a callable plays deals")
    if progress is not None and not callable(progress):
        raise InvalidArgument(f"progress must be callable(done, total) or None, got {_show(progress)}")
    pairs = [(i, j) for i in range(len(es)) for j in range(i + 1, len(es))]
    total = len(pairs) * (count + matches)
    t0 = time.perf_counter()
    out: List[Pairing] = []
    interrupted = False
    # Ctrl-C: the first stops after the current chunk of the pairing under way (simulate's
    # chunks share this flag), the second at once; the finished pairings are kept.
    with _Interrupt() as stop:
        try:
            for k, (i, j) in enumerate(pairs):
                p, cut = _pairing(es[i], es[j], s, profile, start, count, matches, match_start, max_hands,
                                  threads, backend, address, progress, k * (count + matches), total, stop)
                if p is not None:
                    out.append(p)
                if cut:
                    interrupted = True
                    break
        except KeyboardInterrupt:
            interrupted = True
    elapsed = time.perf_counter() - t0
    costs = {e.label: _cost_us(e, s, profile, 0.3) for e in es} if cost and not interrupted else {}
    names = [f"callable:{e.label}" if callable(e.policy) else e.policy for e in es]
    planned = {"deals": [(start, start + count)], "matches": [(match_start, match_start + matches)] if matches else []}
    return ArenaResults([e.label for e in es], names, s.name, profile, out, costs, dict(anchors), bootstrap,
                        interrupted, elapsed, planned=planned, suite_def=s)
