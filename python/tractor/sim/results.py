"""The results of a run: :class:`SimResults` (per hand) and :class:`MatchResults` (per match),
numpy columns with their run's seed, policies and profile, summaries and outputs."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import Any, Dict, Optional, Tuple

import numpy as np

from .._args import _show
from .._outputs import replacing
from ..errors import OutputError, TractorError, UnknownColumn
from .columns import NONE
from .files import _meta_lines, _savez
from .ranges import Ranges, _index_ranges
from .stats import Tally, _ci, _returns, _wilson
from .summary import format_summary


@dataclass
class _Run:
    """What every result object holds: its columns and the run they came from, with column
    access ``r.score``, ``r["score"]`` (:class:`~tractor.errors.UnknownColumn`, also a
    KeyError, for a name that is not a column) and ``len(r)``."""

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
        try:
            return self.arrays[name]
        except (KeyError, TypeError):
            raise UnknownColumn(f"no column {_show(name)}: the columns are {', '.join(self.arrays)}") from None

    def __len__(self) -> int:
        return len(self.arrays["index"])

    # -- the index ranges a result covers, was asked for, and belongs to -------------------
    @property
    def ranges(self) -> Ranges:
        """The index ranges whose hands (or matches) these results hold."""
        covered = self.__dict__.get("covered")
        if covered is not None:
            return list(covered)
        return _index_ranges(self.arrays["index"])

    @property
    def requested(self) -> Ranges:
        """The index ranges the run(s) behind these results were asked for (more than
        ``ranges`` when interrupted)."""
        planned = self.__dict__.get("planned")
        return list(planned) if planned is not None else self.ranges


@dataclass
class SimResults(_Run):
    """Per-hand numpy arrays (``results.score``, ``results["banker"]``, ...) and a summary."""

    duplicate: Optional["SimResults"] = None
    """In duplicate mode: the same deals played with the policies rotated by one seat."""
    meta: Dict[str, Any] = field(default_factory=dict)

    tally: Optional["Tally"] = None
    """Streaming runs (``keep_arrays=False``) keep only this running summary."""
    planned: Optional[Ranges] = None
    covered: Optional[Ranges] = None
    """Set for results without arrays; else the index column tells."""
    run: Optional[Tuple[int, int]] = None
    """The whole run's index range when known (the CLI's ``--shard``): ``merge`` then checks
    that every shard is there."""

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

    @property
    def is_duplicate(self) -> bool:
        return self.duplicate is not None or (self.tally is not None and self.tally.dup_n > 0) or bool(
            self.meta.get("duplicate")
        )

    def __str__(self) -> str:
        return format_summary(self.summary())

    # -- output ---------------------------------------------------------------------------
    def _need_arrays(self) -> None:
        if self.tally is not None:
            raise TractorError("this run kept no per-hand arrays (keep_arrays=False): only its summary")

    def to_npz(self, path: str) -> None:
        """Saves the arrays and what ``merge`` needs (seed, policies, profile, index ranges).
        Raises :class:`~tractor.errors.OutputError` if the file cannot be written, and
        TractorError for a run that kept no arrays."""
        self._need_arrays()
        extra = {}
        if self.duplicate is not None:
            extra = {f"rotated_{k}": v for k, v in self.duplicate.arrays.items()}
        _savez(path, np.array(_meta_lines(self, "hands")), {**self.arrays, **extra})

    def to_parquet(self, path: str) -> None:
        """The arrays as a Parquet table (needs pyarrow). Raises TractorError without pyarrow
        or arrays, :class:`~tractor.errors.OutputError` if the file cannot be written."""
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
        try:
            with replacing(os.fspath(path)) as tmp:
                pq.write_table(table, tmp)
        except (OSError, pa.ArrowException) as e:
            raise OutputError(f"to_parquet: cannot write {path!r}: {e}") from None


@dataclass
class MatchResults(_Run):
    """Per-match numpy arrays: ``winner`` (team that first passed A, 255 none), ``hands``."""

    planned: Optional[Ranges] = None
    covered: Optional[Ranges] = None
    run: Optional[Tuple[int, int]] = None
    meta: Dict[str, Any] = field(default_factory=dict)
    """What the run noted besides its rows (a Ray run that failed: ``failure``, ``missing``)."""

    def summary(self) -> Dict[str, Any]:
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
        """Saves the arrays; raises :class:`~tractor.errors.OutputError` if it cannot."""
        _savez(path, np.array(_meta_lines(self, "matches")), self.arrays)
