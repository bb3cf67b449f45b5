"""A Python policy at the table: a batched callable that chooses action ids.

Wherever a policy name is accepted for a seat (``simulate(policies=...)``, ``VecEnv(opponents=...)``,
``TractorEnv(opponents=...)``, ``arena.play``), a callable may stand instead::

    def policy(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        # obs: (k, dim) observations of the seats to act (as the caller writes them:
        #      float32, or uint8 for a VecEnv with obs_dtype="uint8"; real suits unless the
        #      VecEnv renames them; observation version 1, 636 entries, unless the VecEnv or
        #      adapter was given obs_version); mask: (k, 72) bool, the ids allowed to each.
        return ids  # (k,) integers, each allowed by its row of the mask

It is asked once per round for every game where one of its seats is to act (k rows at once),
so a network's forward pass runs batched. Its ids are real action ids (:mod:`tractor.actions`):
a policy that reads ``canonical_suits`` observations maps its choice back with
:data:`tractor.actions.FROM_CANONICAL`. The same callable object in several seats is asked once
for all of them. Cost: a Python call and a copy of the rows per round, so a callable plays far
slower than a native policy (``greedy``, ``net:PATH``); BENCHMARKS.md measures it.
"""

from __future__ import annotations

from typing import Any, Callable, List, Optional, Sequence, Tuple

import numpy as np

from .errors import InvalidArgument

PolicyFn = Callable[[np.ndarray, np.ndarray], Any]

__all__ = ["PolicyFn", "ask"]

#: A callable at the table, the seats it plays (int array) and how errors name it.
Seated = Tuple[PolicyFn, np.ndarray, str]


def _seats_of(policies: Sequence[Any], name: Callable[[int], str]) -> List[Seated]:
    """The distinct callables among ``policies`` (one per seat), in the order of their first
    seat, each with every seat it plays and ``name(first seat)``."""
    out: List[Seated] = []
    for s, p in enumerate(policies):
        if callable(p) and not any(f is p for f, _, _ in out):
            out.append((p, np.array([j for j, q in enumerate(policies) if q is p], np.int64), name(s)))
    return out


def _ask_round(fns: List[Seated], to_act: np.ndarray, rows: Callable[[np.ndarray], Tuple[np.ndarray, np.ndarray]],
              label: str, first: int = 0,
              failed: Optional[Callable[[str], None]] = None) -> Optional[Tuple[np.ndarray, np.ndarray]]:
    """One round at the table: each callable asked once, for every row whose seat to act
    (``to_act``) is one of its seats, with ``rows(r) -> (obs, mask)`` of those rows. Returns the
    rows and their checked ids, or None when no row waits for a callable. Errors name the row
    as ``label`` ``first + row``; ``failed(who)`` is told which callable raised, before it is
    re-raised."""
    took, ids = [], []
    for fn, mine, who in fns:
        r = np.flatnonzero(np.isin(to_act, mine))
        if len(r):
            obs, mask = rows(r)
            try:
                ids.append(ask(fn, obs, mask, who, r + first, label))
            except BaseException:
                if failed is not None:
                    failed(who)
                raise
            took.append(r)
    if not took:
        return None
    return np.concatenate(took), np.concatenate(ids)


def ask(fn: PolicyFn, obs: np.ndarray, mask: np.ndarray, who: str, rows: Any = None, label: str = "row") -> np.ndarray:
    """``fn``'s ids for ``obs`` and ``mask`` (k rows), as int64, checked: k integers, each
    allowed by its row of the mask. ``who`` names the policy in errors (e.g. ``"opponents[2]"``),
    ``rows`` (optional) the caller's index of each row and ``label`` what they index
    (``"environment"``, ``"game"``)."""
    ids = np.asarray(fn(obs, mask))
    k = mask.shape[0]
    if ids.shape not in ((k,), (k, 1)):
        raise InvalidArgument(f"{who}: a callable policy returned action ids of shape {ids.shape} for {k} observations, not ({k},)")
    ids = ids.reshape(-1)
    if k and not np.issubdtype(ids.dtype, np.integer):
        raise InvalidArgument(f"{who}: a callable policy returned action ids of dtype {ids.dtype}, not integers")
    ok = (ids >= 0) & (ids < mask.shape[1])  # in the callable's own dtype: uint64 2**63 stays 2**63
    ok[ok] = mask[np.flatnonzero(ok), ids[ok].astype(np.int64)]
    if not ok.all():
        j = int(np.flatnonzero(~ok)[0])
        where = f" for {label} {j if rows is None else int(rows[j])}"
        raise InvalidArgument(f"{who}: a callable policy chose action id {int(ids[j])}{where}, which the mask forbids")
    return ids.astype(np.int64, copy=False)
