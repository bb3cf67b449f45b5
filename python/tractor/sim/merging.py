"""Merging the shards of one run (``start=``, the CLI's ``--shard``) back into one, refusing
parts that do not form one complete run."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .._args import _bool
from ..errors import IncompleteRun, InvalidArgument
from .columns import HAND_COLUMNS, MATCH_COLUMNS, _concat
from .ranges import Ranges, _gaps, _show_ranges, _union
from .results import MatchResults, SimResults
from .stats import Tally


def merge(parts: Sequence[Any], *, partial: bool = False) -> Any:
    """Merges shards of one run (same kind, seed, policies, profile and mode) into one, in
    index order, arrays or (``keep_arrays=False``) running summaries alike.

    Refuses, with :class:`~tractor.errors.IncompleteRun` saying what is missing or twice,
    parts that do not form one complete run: overlapping hands, gaps between the parts,
    interrupted parts, and shards missing from a run whose extent is known (the CLI's
    ``--shard``). ``partial=True`` merges what there is (overlaps are still refused).
    Raises :class:`~tractor.errors.InvalidArgument` if ``parts`` is not a list of results."""
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
    missing: Ranges = _gaps(expected[0][0], expected[-1][1], covered) if expected else []
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
