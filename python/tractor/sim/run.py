"""``simulate``: its arguments checked (every one before the first hand, no file created for a
refused call), then the run on this machine (:mod:`tractor.sim.local`) or on a Ray cluster
(:mod:`tractor.ray_backend`)."""

from __future__ import annotations

import os
from typing import Any, Callable, Optional, Tuple

import numpy as np

from .. import _core
from .._args import U64, _bool, _int, _policies, _profile, _seed, _show, _threads
from ..errors import InvalidArgument, ResourceError
from ..ray_backend import simulate_ray
from .columns import HAND_COLUMNS, MATCH_COLUMNS
from .files import NpzStream, _records_path
from .local import HAND_CHUNK, MATCH_CHUNK, run_local

POLICIES: Tuple[str, ...] = tuple(_core.AGENTS) + tuple(_core.SEARCHES)
"""Built-in policy names; the searches take parameters: ``"pimc:worlds=16,rollouts=4"``,
``"ismcts:iterations=500,c=0.7"`` (see :mod:`tractor.search`)."""

MAX_CHUNK = 1_000_000


def _check_run(hands: Any, matches: Any, start: Any) -> Tuple[str, int, int]:
    if (hands is None) == (matches is None):
        raise InvalidArgument("give exactly one of hands=N or matches=N")
    what = "hands" if matches is None else "matches"
    total = _int(hands if matches is None else matches, what)
    first = _int(start, "start")
    if first + total > U64:
        raise InvalidArgument(
            f"start + {what} = {first} + {total} runs past the last index 2**64 - 1: "
            f"at most {U64 - first} {what} from start={first}"
        )
    return what, total, first


def simulate(
    hands: Optional[int] = None,
    policies: Any = ("greedy", "random", "greedy", "random"),
    seed: int = 0,
    threads: Optional[int] = None,
    profile: str = "guigang",
    *,
    matches: Optional[int] = None,
    max_hands: Optional[int] = None,
    duplicate: bool = False,
    start: int = 0,
    records: Optional[str] = None,
    chunk: Optional[int] = None,
    keep_arrays: bool = True,
    progress: Optional[Callable[[int, int], None]] = None,
    backend: str = "local",
    address: Optional[str] = None,
    _sink: Optional[NpzStream] = None,
) -> Any:
    """Simulates ``hands`` hands (or ``matches`` matches) and returns :class:`SimResults`
    (or :class:`MatchResults`).

    - ``policies``: four names, one per seat (``"greedy,random,greedy,random"`` works too),
      or Python callables at some seats (:mod:`tractor.policy_fn`: batched, asked with the
      observations and masks of every hand waiting for one of their seats; hands only, on
      this machine). A callable that makes the same decisions as a built-in policy gives the
      same results and records; results name it ``callable:NAME``.
    - ``threads``: worker threads (None: all cores); results are identical for any value.
    - ``start``: the global index of the first hand (for shards of one big run); ``start +
      hands`` may not pass 2**64.
    - ``duplicate``: also play every deal with the policies rotated by one seat; the summary
      then reports ``policies[0]``'s advantage with a 95% interval.
    - ``keep_arrays=False``: keep no per-hand arrays, only a running summary (counts, sums
      and a score histogram): memory stays flat however many hands run. With arrays, memory
      grows with the hands that finished, never allocated up front; a run whose arrays could
      not fit in this machine's memory is refused before it starts (ResourceError, which
      names the streaming options).
    - ``records``: a path; the compact record of every hand is streamed there, after a header
      (:func:`read_records` reads them back).
    - ``chunk``: hands (or matches) per step (default 20,000 hands, 400 matches; at most
      1,000,000): progress and Ctrl-C act between chunks. With ``backend="ray"``, per task.
    - ``progress(done, total)`` is called after each chunk; Ctrl-C stops after the current
      chunk and returns what finished, with ``interrupted=True`` (a second Ctrl-C stops at
      once, losing only the chunk under way).
    - ``max_hands`` (matches only, default 1000): the cap on a match's hands.
    - ``backend="ray"`` spreads index-range shards over a Ray cluster (``address`` of a
      running one, else ``RAY_ADDRESS`` or a local instance); same seed, same numbers.

    Integers may be Python or numpy integers. Raises :class:`~tractor.errors.InvalidArgument`
    (a TractorError) naming the argument for any bad one, before the first hand and without
    creating any file: for a policy its subclass InvalidPolicy, for the profile InvalidContext.
    """
    ps = _policies(policies, callables=True)
    nthreads = _threads(threads)
    seed = _seed(seed)
    profile = _profile(profile)
    what, total, start = _check_run(hands, matches, start)
    duplicate = _bool(duplicate, "duplicate")
    keep = _bool(keep_arrays, "keep_arrays")
    chunk_n = HAND_CHUNK if chunk is None else _int(chunk, "chunk", 1, MAX_CHUNK)
    if what == "matches":
        cap = 1000 if max_hands is None else _int(max_hands, "max_hands", 1, 2**32 - 1)
        for name, bad in (("duplicate", duplicate), ("records", records is not None), ("keep_arrays", not keep)):
            if bad:
                raise InvalidArgument(f"{name} applies to hands, not to matches=")
    elif max_hands is not None:
        raise InvalidArgument("max_hands applies to matches=, not to hands=")
    rpath = None if records is None else _records_path(records)
    if progress is not None and not callable(progress):
        raise InvalidArgument(f"progress must be callable(done, total) or None, got {_show(progress)}")
    if not isinstance(backend, str) or backend not in ("local", "ray"):
        raise InvalidArgument(f"backend: unknown backend {_show(backend)}: expected 'local' or 'ray'")
    if address is not None and (backend != "ray" or not isinstance(address, str)):
        raise InvalidArgument(f"address (a str) is for backend='ray' only, got {_show(address)} with backend={backend!r}")
    if any(callable(p) for p in ps):
        if what == "matches":
            raise InvalidArgument("policies: a Python callable plays hands=, not matches= (whole matches are played "
                                  "by built-in policies: a network as net:PATH)")
        if backend != "local":
            raise InvalidArgument("policies: a Python callable plays on this machine only (backend='local')")
    if _sink is not None and (backend != "local" or keep or what != "hands"):
        raise InvalidArgument("_sink streams the arrays of a local run of hands with keep_arrays=False")
    if keep:
        _arrays_fit(what, total, duplicate)
    if backend == "ray":
        return simulate_ray(
            what=what, total=total, policies=ps, seed=seed, profile=profile, start=start,
            duplicate=duplicate, max_hands=cap if what == "matches" else 1000, address=address,
            threads=nthreads, chunk=None if chunk is None else chunk_n, keep_arrays=keep, records=rpath,
            progress=progress,
        )
    if what == "matches":
        return run_local(what, total, ps, seed, nthreads, profile, start, max_hands=cap,
                         chunk=MATCH_CHUNK if chunk is None else chunk_n, progress=progress)
    return run_local(what, total, ps, seed, nthreads, profile, start, duplicate=duplicate, records=rpath,
                     chunk=chunk_n, keep=keep, progress=progress, sink=_sink)


def _memory() -> Optional[int]:
    """This machine's physical memory in bytes (None where the platform does not say)."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        pass
    try:  # Windows
        import ctypes

        class _Status(ctypes.Structure):
            _fields_ = [("dwLength", ctypes.c_ulong), ("dwMemoryLoad", ctypes.c_ulong),
                        ("ullTotalPhys", ctypes.c_ulonglong), ("ullAvailPhys", ctypes.c_ulonglong),
                        ("ullTotalPageFile", ctypes.c_ulonglong), ("ullAvailPageFile", ctypes.c_ulonglong),
                        ("ullTotalVirtual", ctypes.c_ulonglong), ("ullAvailVirtual", ctypes.c_ulonglong),
                        ("ullAvailExtendedVirtual", ctypes.c_ulonglong)]

        st = _Status()
        st.dwLength = ctypes.sizeof(_Status)
        if ctypes.windll.kernel32.GlobalMemoryStatusEx(ctypes.byref(st)):  # type: ignore[attr-defined]
            return int(st.ullTotalPhys)
    except (AttributeError, OSError, ImportError):
        pass
    return None


def arrays_bytes(what: str, total: int, duplicate: bool) -> int:
    """The most memory a run's per-hand (or per-match) arrays hold: the rows times their
    bytes (twice with ``duplicate``), times 1.5 while they grow (the old arrays and the new,
    doubled ones are both alive while the finished rows are copied)."""
    spec = MATCH_COLUMNS if what == "matches" else HAND_COLUMNS
    row = sum(np.dtype(t).itemsize for t in spec.values()) * (2 if duplicate else 1)
    return total * row * 3 // 2


def _arrays_fit(what: str, total: int, duplicate: bool) -> None:
    """Refuses, before it starts, a run whose arrays cannot fit in this machine's memory (the
    decision depends on the machine's size only, never on what is free at the moment)."""
    need = arrays_bytes(what, total, duplicate)
    have = _memory()
    if have is None or need <= have:
        return
    stream = ("keep_arrays=False (a running summary, flat memory at any size) and records=PATH (every hand "
              "on disk); the CLI's --out streams the arrays to disk" if what == "hands" else
              "fewer matches at a time, with start= and merge()")
    raise ResourceError(f"{what}={total:,}: the arrays would need about {need / 2**30:,.1f} GiB and this machine has "
                        f"{have / 2**30:,.1f} GiB: run it with {stream}")
