"""Hands of ``simulate`` with Python callables at some seats (:mod:`tractor.policy_fn`): the
core plays the built-in seats of a batch of hands until a callable's seat is to act, then each
callable is asked once for all its waiting hands, and so on until every hand is over. Hand i
is the same deal, with the same streams for the built-in seats, as in a run of built-in
policies only, so a callable that makes the same decisions as a built-in policy gives the
same results and records, bit for bit."""

from __future__ import annotations

from typing import Any, Dict, List, Sequence, Tuple

import numpy as np

from .. import _core
from ..policy_fn import ask

#: Hands dealt into one table at most: the callables see batches of up to this many rows,
#: and the table's games (with their records) stay within a few tens of MB.
TABLE_HANDS = 2048


def label(p: Any) -> str:
    """A seat's policy as results and records name it: its name, or ``callable:NAME``."""
    return p if isinstance(p, str) else f"callable:{getattr(p, '__name__', type(p).__name__)}"


def table_hands(seed: int, start: int, count: int, policies: Sequence[Any], profile: str, threads: int,
                records: bool) -> Tuple[Dict[str, bytes], bytes]:
    """Hands ``start .. start + count`` as ``_core.simulate_hands`` returns them: (columns
    as bytes, the hands' records)."""
    parts: List[Tuple[Dict[str, bytes], bytes]] = []
    i, end = start, start + count
    while i < end:
        n = min(TABLE_HANDS, end - i)
        parts.append(_table(seed, i, n, policies, profile, threads, records))
        i += n
    if len(parts) == 1:
        return parts[0]
    raw = {k: b"".join(p[0][k] for p in parts) for k in parts[0][0]}
    return raw, b"".join(p[1] for p in parts)


def _table(seed: int, start: int, count: int, policies: Sequence[Any], profile: str, threads: int,
           records: bool) -> Tuple[Dict[str, bytes], bytes]:
    t = _core.Table(seed, start, count, [None if callable(p) else p for p in policies], profile, records, threads)
    fns: List[Tuple[Any, np.ndarray, str]] = []
    for s, p in enumerate(policies):
        if callable(p) and not any(f is p for f, _, _ in fns):
            mine = np.array([j for j, q in enumerate(policies) if q is p], dtype=np.uint8)
            fns.append((p, mine, f"policies[{s}]"))
    while True:
        waiting = t.waiting()
        rows, ids = [], []
        for fn, mine, who in fns:
            r = np.flatnonzero(np.isin(waiting, mine))
            if len(r):
                obs, mask = t.write(r.tolist())
                ids.append(ask(fn, obs, mask, who, r + start, "hand"))
                rows.append(r)
        if not rows:
            return t.results()
        t.step(np.concatenate(rows).tolist(), np.concatenate(ids).tolist())
