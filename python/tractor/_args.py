"""Argument checks shared by the public functions: every bad value becomes an
:class:`~tractor.errors.InvalidArgument` (a TractorError) that names the argument."""

from __future__ import annotations

import operator
from typing import Any

from .errors import InvalidArgument

U64 = 2**64
MAX_THREADS = 1024


def _show(x: Any) -> str:
    """A short repr of any value (a repr that fails or is huge never hides the real error)."""
    try:
        r = repr(x)
    except Exception:
        return f"a {type(x).__name__}"
    return r if len(r) <= 60 else r[:57] + "..."


def _int(x: Any, what: str, lo: int = 0, hi: int = U64 - 1) -> int:
    """An int (numpy integers too, not bools) in lo..hi, or an InvalidArgument naming `what`."""
    if isinstance(x, bool) or type(x).__name__ in ("bool_", "bool") and type(x).__module__ == "numpy":
        raise InvalidArgument(f"{what} must be an int, got {_show(x)}")
    try:
        v = operator.index(x)
    except TypeError:
        raise InvalidArgument(f"{what} must be an int, got {type(x).__name__} {_show(x)}") from None
    if not lo <= v <= hi:
        raise InvalidArgument(f"{what} must be in {lo}..{hi}, got {v}")
    return v


def _threads(threads: Any) -> int:
    """Threads for a native call: None means all cores (0 to the core)."""
    if threads is None:
        return 0
    return _int(threads, "threads (None: all cores)", 1, MAX_THREADS)
