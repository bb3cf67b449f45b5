"""Loading results saved with ``to_npz``: every column and its metadata checked, since the file
is untrusted (:class:`~tractor.errors.ResultsFileError` for whatever is wrong with it)."""

from __future__ import annotations

from typing import Any, Dict

import numpy as np

from .._args import U64, _path, _policies, _profile, _seed, _split_policies
from ..errors import ResultsFileError
from .columns import HAND_COLUMNS, MATCH_COLUMNS
from .files import RESULTS_FORMAT, _WIDENED_IN_3
from .ranges import Ranges
from .results import MatchResults, SimResults


def _parse_ranges(text: str) -> Ranges:
    out: Ranges = []
    for part in text.split(";"):
        if part:
            a, b = part.split("-")
            lo, hi = int(a), int(b)
            if not 0 <= lo <= hi <= U64:
                raise ValueError(f"bad range {part}")
            out.append((lo, hi))
    return out


def load(path: Any) -> Any:
    """Loads results saved with ``to_npz`` (hands or matches). Raises
    :class:`~tractor.errors.ResultsFileError` for a missing, damaged or foreign file."""
    p = _path(path)
    try:
        with np.load(p, allow_pickle=False) as z:
            if not hasattr(z, "files"):
                raise ValueError("a single array, not a results archive")
            if "__meta__" not in z.files:
                raise ValueError("no __meta__ entry: not written by to_npz")
            meta_arr = z["__meta__"]
            if not isinstance(meta_arr, np.ndarray) or meta_arr.ndim != 1 or meta_arr.dtype.kind != "U":
                raise ValueError("__meta__ is not a list of strings")
            meta = dict(str(m).split("=", 1) for m in meta_arr)
            arrays = {k: z[k] for k in z.files if k != "__meta__"}
    except FileNotFoundError:
        raise ResultsFileError(f"load: no such file {p!r}") from None
    except IsADirectoryError:
        raise ResultsFileError(f"load: {p!r} is a directory") from None
    except MemoryError:
        raise ResultsFileError(f"load: {p!r} is too large to load") from None
    except Exception as e:  # BadZipFile, zlib.error, EOFError, ValueError, KeyError, ...
        raise ResultsFileError(f"load: {p!r} is not a results file written by to_npz, or is damaged: "
                               f"{type(e).__name__}: {e}") from None
    try:
        return _from_npz(meta, arrays)
    except Exception as e:  # untrusted content: whatever is wrong with it is the file's fault
        raise ResultsFileError(f"load: {p!r} holds inconsistent results: {type(e).__name__}: {e}") from None


def _check_columns(arrays: Dict[str, Any], spec: Dict[str, str], prefix: str = "", version: int = 3) -> Dict[str, Any]:
    want = spec
    if version == 2:
        spec = {k: _WIDENED_IN_3.get(k, dt) for k, dt in spec.items()}
    out = {}
    n = None
    for k, dt in spec.items():
        if prefix + k not in arrays:
            raise ValueError(f"column {prefix + k!r} is missing")
        a = arrays[prefix + k]
        if not isinstance(a, np.ndarray):
            raise ValueError(f"entry {prefix + k!r} is not an array")
        if a.ndim != 1 or a.dtype != np.dtype(dt):
            raise ValueError(f"column {prefix + k!r} has shape {a.shape} and type {a.dtype}, expected ({dt}, n)")
        if n is not None and len(a) != n:
            raise ValueError(f"column {prefix + k!r} has {len(a)} rows, the others {n}")
        n = len(a)
        out[k] = a.astype(want[k]) if want[k] != dt else a
    idx = out["index"]
    if len(idx) > 1 and not (idx[1:] > idx[:-1]).all():
        raise ValueError(f"column {prefix}index is not strictly increasing")
    return out


def _labels(text: str) -> Any:
    """The four policies a results file names: built-in names (checked) and the labels of
    Python callables (``callable:NAME``, kept as they are)."""
    items = _split_policies(text)
    if len(items) == 4 and any(p.startswith("callable:") for p in items):
        return tuple(p if p.startswith("callable:") else _policies([p] * 4)[0] for p in items)
    return _policies(text)


def _from_npz(meta: Dict[str, str], arrays: Dict[str, Any]) -> Any:
    fmt = meta.get("format")
    if fmt not in ("tractor-results-2", RESULTS_FORMAT):
        raise ValueError(f"format {fmt!r} is not {RESULTS_FORMAT!r} (or the older 'tractor-results-2')")
    version = int(fmt.rsplit("-", 1)[1])
    ps = _labels(meta["policies"])
    seed, profile = _seed(int(meta["seed"])), _profile(meta["profile"])
    kind = meta.get("kind", "hands")
    if kind not in ("hands", "matches"):
        raise ValueError(f"unknown kind {kind!r}")
    extra: Dict[str, Any] = {}
    if "requested" in meta:
        extra["planned"] = _parse_ranges(meta["requested"])
    if "run" in meta:
        (run,) = _parse_ranges(meta["run"])
        extra["run"] = run
    interrupted = meta.get("interrupted", "0") == "1"
    elapsed = float(meta.get("elapsed", "0"))
    if kind == "matches":
        cols = _check_columns(arrays, MATCH_COLUMNS, version=version)
        return MatchResults(cols, seed, ps, profile, interrupted, elapsed, **extra)
    main = _check_columns(arrays, HAND_COLUMNS, version=version)
    dup = None
    if "rotated_index" in arrays:
        rot = (ps[1], ps[2], ps[3], ps[0])
        d = _check_columns(arrays, HAND_COLUMNS, "rotated_", version=version)
        if not np.array_equal(d["index"], main["index"]):
            raise ValueError("the rotated seating's hands are not the same as the main seating's")
        dup = SimResults(d, seed, rot, profile)  # type: ignore[arg-type]
    return SimResults(main, seed, ps, profile, interrupted, elapsed, duplicate=dup,  # type: ignore[arg-type]
                      meta={"duplicate": True} if dup is not None else {}, **extra)
