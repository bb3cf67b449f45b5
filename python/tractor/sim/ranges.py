"""Index ranges: which hands (or matches) of a run a result holds, was asked for, or lacks."""

from __future__ import annotations

from typing import Any, List, Tuple

import numpy as np

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


def _gaps(lo: int, hi: int, covered: Ranges) -> Ranges:
    """The parts of ``[lo, hi)`` that ``covered`` (in order and disjoint) leaves out."""
    out: Ranges = []
    at = lo
    for a, b in covered + [(hi, hi)]:
        if a > at:
            out.append((at, a))
        at = max(at, b)
    return out


def _index_ranges(index: Any) -> Ranges:
    """The ranges of consecutive values of a sorted index column."""
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
