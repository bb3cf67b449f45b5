"""``simulate``: its arguments checked (every one before the first hand, no file created for a
refused call), then the run on this machine (:mod:`tractor.sim.local`) or on a Ray cluster
(:mod:`tractor.ray_backend`)."""

from __future__ import annotations

from typing import Any, Callable, Optional, Tuple

from .. import _core
from .._args import U64, _bool, _int, _policies, _profile, _seed, _show, _threads
from ..errors import InvalidArgument
from ..ray_backend import simulate_ray
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
      grows with the hands that finished, never allocated up front.
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
