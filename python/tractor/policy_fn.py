"""A Python policy at the table: a batched callable that chooses action ids.

Wherever a policy name is accepted for a seat (``simulate(policies=...)``, ``VecEnv(opponents=...)``,
``TractorEnv(opponents=...)``, ``arena.play``), a callable may stand instead::

    def policy(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        # obs: (k, OBS_DIM) observations of the seats to act (as the caller writes them:
        #      float32, or uint8 for a VecEnv with obs_dtype="uint8"; real suits unless the
        #      VecEnv renames them); mask: (k, 72) bool, the ids allowed to each.
        return ids  # (k,) integers, each allowed by its row of the mask

It is asked once per round for every game where one of its seats is to act (k rows at once),
so a network's forward pass runs batched. Its ids are real action ids (:mod:`tractor.actions`):
a policy that reads ``canonical_suits`` observations maps its choice back with
:data:`tractor.actions.FROM_CANONICAL`. The same callable object in several seats is asked once
for all of them. Cost: a Python call and a copy of the rows per round, so a callable plays far
slower than a native policy (``greedy``, ``net:PATH``); BENCHMARKS.md measures it.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .errors import InvalidArgument

PolicyFn = Callable[[np.ndarray, np.ndarray], Any]

__all__ = ["PolicyFn", "ask"]


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
    ids = ids.astype(np.int64, copy=False)
    ok = (ids >= 0) & (ids < mask.shape[1])
    ok[ok] = mask[np.flatnonzero(ok), ids[ok]]
    if not ok.all():
        j = int(np.flatnonzero(~ok)[0])
        where = f" for {label} {j if rows is None else int(rows[j])}"
        raise InvalidArgument(f"{who}: a callable policy chose action id {int(ids[j])}{where}, which the mask forbids")
    return ids
