"""Argument checks shared by every public function: a bad value becomes a TractorError
subclass that names the argument, before anything is changed or computed.

- integers (seeds, counts, indices, seats, levels) accept ``int`` and numpy integers of every
  dtype, never ``bool`` (nor ``numpy.bool_``), floats or strings of digits, and are range
  checked here, so that no ``OverflowError`` comes from the binding;
- texts must be ``str`` that can cross into Rust (no lone surrogates);
- profile names are normalised (``" NANNING "`` is ``"nanning"``) by the core's parser;
- policy names are the core's too (``"pimc"`` is ``"pimc:worlds=32,rollouts=8,rollout=random"``).

One kind of bad value, one class and one message shape, whatever the entry point: seeds,
counts, indices, flags, threads and paths raise InvalidArgument; seats InvalidSeat; profiles
(and levels, trump suits: :mod:`tractor.rules`) InvalidContext; policies InvalidPolicy.
"""

from __future__ import annotations

import operator
import os
import stat
from typing import Any, List, Optional, Tuple, Type

from . import _core
from ._weights import resolve, shipped
from .errors import InvalidArgument, InvalidContext, InvalidPolicy, InvalidSeat, TractorError

U64 = 2**64
MAX_THREADS = 1024


def _show(x: Any) -> str:
    """A short repr of any value (a repr that fails or is huge never hides the real error)."""
    try:
        r = repr(x)
    except Exception:
        return f"a {type(x).__name__}"
    return r if len(r) <= 60 else r[:57] + "..."


def _is_bool(x: Any) -> bool:
    return isinstance(x, bool) or (type(x).__module__ == "numpy" and type(x).__name__ in ("bool_", "bool"))


def _int(x: Any, what: str, lo: int = 0, hi: int = U64 - 1, error: Type[TractorError] = InvalidArgument) -> int:
    """An int (numpy integers too, not bools) in lo..hi, or ``error`` naming `what`."""
    if type(x) is int and lo <= x <= hi:  # the common case, checked first (bool is not int here)
        return x
    if _is_bool(x):
        raise error(f"{what} must be an int, got {_show(x)}")
    try:
        v = operator.index(x)
    except Exception:
        raise error(f"{what} must be an int, got {type(x).__name__} {_show(x)}") from None
    if not lo <= v <= hi:
        raise error(f"{what} {v} is out of range: it must be in {lo}..{hi}")
    return v


def _seed(x: Any, what: str = "seed") -> int:
    """A 64-bit seed: an int in 0..2**64-1."""
    return _int(x, what, 0, U64 - 1)


def _count(x: Any, what: str, hi: int = 2**63 - 1, error: Type[TractorError] = InvalidArgument) -> int:
    """A count or an index: an int in 0..hi."""
    return _int(x, what, 0, hi, error)


def _seat(x: Any, what: str = "seat") -> int:
    """A seat 0..3 (R1.1)."""
    return _int(x, what, 0, 3, InvalidSeat)


def _opt_seat(x: Any, what: str) -> Optional[int]:
    """None, or a seat 0..3: None is the only "nobody"."""
    return None if x is None else _seat(x, what)


def _bool(x: Any, what: str, error: Type[TractorError] = InvalidArgument) -> bool:
    """True or False (numpy bools too), or ``error`` naming `what`."""
    if not _is_bool(x):
        raise error(f"{what} must be True or False, got {_show(x)}")
    return bool(x)


def _text(x: Any, what: str, error: Type[TractorError] = InvalidArgument) -> str:
    """A ``str`` that can cross into Rust (no lone surrogates)."""
    if not isinstance(x, str):
        raise error(f"{what} must be a string, got {type(x).__name__} {_show(x)}")
    try:
        x.encode("utf-8")
    except UnicodeEncodeError:
        raise error(f"{what}: {_show(x)} is not valid text (lone surrogate)") from None
    return x


def _profile(x: Any, what: str = "profile") -> str:
    """The canonical name of a profile (``"NANNING"`` -> ``"nanning"``), or InvalidContext."""
    return _core.profile_name(_text(x, what, InvalidContext))


def _policy(x: Any, what: str = "policy") -> str:
    """The canonical name of a built-in policy, its parameters spelled out (``" GREEDY "`` ->
    ``"greedy"``, ``"pimc"`` -> ``"pimc:worlds=32,rollouts=8,rollout=random"``; a shipped
    agent's name -> ``net:PATH`` of its weights), or InvalidPolicy naming `what` and the core's
    reason."""
    name = _text(x, what, InvalidPolicy)
    name = resolve(name) or name  # a shipped network is its weights file; the core reads the other names
    try:
        return _core.policy_name(name.strip())
    except TractorError as e:
        raise InvalidPolicy(f"{what}: {e}") from None


def _split_policies(text: str) -> list:
    """``"greedy,pimc:worlds=16,rollouts=4,random,random"``: a comma starts a new policy
    unless what follows is a ``key=value`` parameter of the search before it (its value may
    hold a colon: ``rollout=net:PATH``)."""
    out: list = []
    for part in text.split(","):
        key, eq, _ = part.partition("=")
        if out and eq and ":" not in key and ":" in out[-1]:
            out[-1] += "," + part
        else:
            out.append(part)
    return out


def _policies(policies: Any, callables: bool = False) -> Tuple[Any, Any, Any, Any]:
    """Four policies, one per seat (a list or tuple of names, or one text ``"a,b,c,d"``), each
    canonical (see :func:`_policy`), or with ``callables`` a Python callable kept as it is;
    InvalidArgument for another shape, InvalidPolicy for a bad policy."""
    a, b, c, d = _policy_list(policies, 4, "policies", "one per seat", callables)
    return a, b, c, d


def _policy_list(policies: Any, n: int, what: str, per: str, callables: bool = False) -> List[Any]:
    """``n`` policies (a list or tuple, or one text ``"a,b,..."``), each canonical or, with
    ``callables``, a callable kept as it is; ``what`` names the argument in the errors."""
    count = {3: "three", 4: "four"}.get(n, str(n))
    if isinstance(policies, str):
        items: List[Any] = _split_policies(policies)
    elif isinstance(policies, (list, tuple)):
        items = list(policies)
    else:
        example = ",".join("abcdefgh"[:n])
        raise InvalidArgument(f"{what} must be {count} names (a list, or a str '{example}'), got {_show(policies)}")
    if len(items) != n:
        raise InvalidArgument(f"{what}: {count} policies are needed, {per}, got {len(items)}: {_show(items)}")
    return [p if callables and callable(p) else _policy(p, f"{what}[{i}]") for i, p in enumerate(items)]


def _either(names: Any) -> str:
    """``'a', 'b' or 'c'``."""
    q = [repr(n) for n in names]
    return q[0] if len(q) == 1 else ", ".join(q[:-1]) + " or " + q[-1]


def _rollout_name(policy: Any, what: str = "policy") -> str:
    """The name of an agent (a policy without search): one of the core's ``AGENTS``,
    ``greedy:NAME=V/...``, ``net:PATH`` or a shipped learned agent (a network's ``net:PATH``;
    tuned weights by their name, which the core reads): what plays rollouts. The core reads a
    network's file when the search starts."""
    name = policy.strip() if isinstance(policy, str) else None
    if name is not None and name[:4].lower() == "net:":
        if "," in name:  # a search's parameters are split at commas
            raise InvalidPolicy(f"{what}: a rollout network's path cannot hold a comma, got {_show(policy)}")
        return name
    if name is not None and name.lower() in _core.AGENTS:
        return name.lower()
    if name is not None and name[:7].lower() == "greedy:":
        if "," in name:  # a search's parameters are split at commas; weights at slashes
            raise InvalidPolicy(f"{what}: greedy's weights are split by '/', got {_show(policy)}")
        return _policy(name, what)
    tuned = sorted(n for n, _ in _core.TUNED)
    if name is not None and name.lower() in tuned:
        return name.lower()
    learned = sorted(shipped()) + tuned
    if name is None or name.lower() not in learned:
        names = list(_core.AGENTS) + learned + ["greedy:NAME=V/...", "net:PATH"]
        raise InvalidPolicy(f"{what}: a rollout policy is {_either(names)}, got {_show(policy)}")
    return resolve(name) or name  # a shipped network is its weights file


def _value_name(value: Any) -> str:
    """A search's ``,value=net:PATH`` (a network with a value head; the core reads its file
    when the search starts), or nothing for None."""
    if value is None:
        return ""
    name = value.strip() if isinstance(value, str) else None
    if name is None or name[:4].lower() != "net:" or not name[4:].strip():
        raise InvalidPolicy(f"value: a network with a value head, net:PATH, got {_show(value)}")
    if "," in name:  # a search's parameters are split at commas
        raise InvalidPolicy(f"value: a network's path cannot hold a comma, got {_show(value)}")
    return f",value={name}"


def _obs_version(x: Any, what: str = "obs_version") -> dict:
    """The core's observation encoding of version ``x``: a dict with its ``version``,
    ``dim``, ``layout``, ``scale`` and ``scale_u8`` (``_core.OBS_ENCODINGS``'s entry), or
    InvalidArgument naming `what` and the versions the core knows."""
    v = _int(x, what, 0, 2**32 - 1)
    try:
        return _core.obs_encoding(v)
    except TractorError as e:
        raise InvalidArgument(str(e)) from None  # the core's message names obs_version


def _path(path: Any) -> str:
    if isinstance(path, bytes) or not isinstance(path, (str, os.PathLike)):
        raise InvalidArgument(f"path must be a str or os.PathLike, got {type(path).__name__}")
    p = os.fspath(path)
    if not isinstance(p, str) or "\0" in p:
        raise InvalidArgument(f"path must be a str without NUL characters, got {p!r}")
    return _text(p, "path")


def _regular_file(path: str, error: Type[TractorError]) -> None:
    """Refuses, with ``error``, a path that is not a regular file: a FIFO would block a read
    forever and a device such as ``/dev/zero`` never end. OSError if it cannot be looked at."""
    if not stat.S_ISREG(os.stat(path).st_mode):
        raise error(f"{path}: not a regular file")


def _pair(x: Any, what: str) -> Tuple[Any, Any]:
    """Two values (a tuple, a list or a 1-D numpy array of exactly two): the teams' levels."""
    if type(x).__module__ == "numpy" and getattr(x, "ndim", None) == 1:
        x = x.tolist()
    if isinstance(x, (str, bytes)) or not isinstance(x, (tuple, list)) or len(x) != 2:
        raise InvalidContext(f"{what} must be a pair (team 0, team 1), got {_show(x)}")
    return x[0], x[1]


def _array(x: Any, what: str, error: Type[TractorError] = InvalidArgument) -> Any:
    """``numpy.asarray(x)``; what numpy cannot read as one array (ragged rows, bytes it cannot
    decode as text) raises ``error`` prefixed with ``what``. Numpy is imported here, not with
    this module."""
    import numpy

    try:
        return numpy.asarray(x)
    except (ValueError, TypeError) as e:
        raise error(f"{what}: {e}") from None


def _threads(threads: Any) -> int:
    """Threads for a native call: None means all cores (0 to the core)."""
    if threads is None:
        return 0
    return _int(threads, "threads (None: all cores)", 1, MAX_THREADS)
