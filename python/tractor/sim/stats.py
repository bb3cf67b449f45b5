"""The statistics of a run: Wilson and normal 95% intervals, percentiles of a histogram, the
per-seat returns, and the :class:`Tally`, a run's summary in constant memory."""

from __future__ import annotations

import math
from typing import Any, Dict, Optional, Tuple

import numpy as np


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
    return np.stack([a[f"return{s}"] for s in range(4)], axis=1).astype(np.int16)


def _percentile(values, counts, q: float) -> float:
    """numpy's default (linear) percentile of the multiset {values[i] × counts[i]}."""
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
            # the team of seats 0 and 2 (both its policies: a greedy+pimc team is not "greedy")
            out["duplicate"] = {"policy": "+".join(sorted({policies[0], policies[2]})), "advantage": m, "ci95": (lo, hi)}
        return out
