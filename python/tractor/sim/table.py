"""Hands of ``simulate`` with Python callables at some seats (:mod:`tractor.policy_fn`): the
core plays the built-in seats of a batch of hands until a callable's seat is to act, then each
callable is asked once for all its waiting hands, and so on until every hand is over. Hand i
is the same deal, with the same streams for the built-in seats, as in a run of built-in
policies only, so a callable that makes the same decisions as a built-in policy gives the
same results and records, bit for bit."""

from __future__ import annotations

from typing import Any, Dict, List, Sequence, Tuple


from .. import _core
from ..policy_fn import _ask_round, _asks, _seats_of

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
    fns = _seats_of(policies, lambda s: f"policies[{s}]")
    asks = [_asks(p) for p in policies]  # per seat: renamed suits, a teacher (an AtTable's)
    t = _core.Table(seed, start, count, [None if callable(p) else p for p in policies], profile, records, threads,
                    canonical=[c for c, _ in asks], teachers=[x for _, x in asks])
    while True:
        took = _ask_round(fns, t.waiting(), lambda r: t.write(r.tolist()), "hand", start,
                          teacher=lambda r: t.teacher_ids(r.tolist()))
        if took is None:
            return t.results()
        t.step(took[0].tolist(), took[1].tolist())
