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

A callable may ask for more, at ``simulate`` and ``arena.play`` (the table), by declaring
keyword parameters and by being wrapped in :class:`AtTable`::

    def policy(obs, mask, *, seats, teacher):
        # seats: (k,) int64, the seat to act in each row (0..3)
        # teacher: (k,) int64, the teacher's next id for that seat (-1: none, or the ids
        #          taken in this decision have left the teacher's), see docs/learning.md
        ...

    tractor.simulate(hands=100, policies=(AtTable(policy, canonical=True, teacher="greedy"), "greedy") * 2)

``canonical=True`` gives it observations with the trump suit renamed first (as a VecEnv's
``canonical_suits=True``; masks and ids stay real). ``seats`` is also given at a VecEnv, whose
observations follow its own ``canonical_suits`` (an :class:`AtTable` that asks for renamed
suits or a teacher is refused there). A callable that takes ``(obs, mask)`` only is asked so.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ._args import _array, _bool, _policy, _show
from .errors import InvalidArgument

PolicyFn = Callable[..., Any]

__all__ = ["PolicyFn", "AtTable", "ask"]

#: The keyword parameters a callable may declare, in the order they are passed.
KEYWORDS = ("seats", "teacher")


class AtTable:
    """A callable at the table with what it asks for: ``canonical`` observations (trump suit
    renamed first) and a ``teacher`` (a built-in policy name) whose next id it is given as
    its ``teacher`` keyword. Called, it calls ``fn``; it is named as ``fn`` is."""

    def __init__(self, fn: Callable[..., Any], *, canonical: bool = False, teacher: Optional[str] = None):
        if not callable(fn) or isinstance(fn, AtTable):
            raise InvalidArgument(f"AtTable: fn must be a callable (obs, mask, ...), got {_show(fn)}")
        self.fn = fn
        self.canonical = _bool(canonical, "AtTable: canonical")
        self.teacher = None if teacher is None else _policy(teacher, "AtTable: teacher")
        if self.teacher is not None and "teacher" not in _keywords(fn):
            raise InvalidArgument(f"AtTable: teacher={self.teacher!r} names a teacher, but {_name(fn)} has no "
                                  f"keyword parameter teacher to be given its ids")
        self.__name__ = _name(fn)

    def __call__(self, obs: np.ndarray, mask: np.ndarray, **kw: Any) -> Any:
        return self.fn(obs, mask, **kw)

    def __repr__(self) -> str:
        return f"AtTable({self.__name__}, canonical={self.canonical}, teacher={self.teacher!r})"


def _name(fn: Any) -> str:
    return getattr(fn, "__name__", type(fn).__name__)


def _keywords(fn: Any) -> Tuple[str, ...]:
    """Which of :data:`KEYWORDS` ``fn`` declares as parameters by name (``**kwargs`` alone
    asks for none)."""
    if isinstance(fn, AtTable):
        fn = fn.fn
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):  # a builtin or extension callable without a signature
        return ()
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return tuple(k for k in KEYWORDS if k in params and params[k].kind in kinds)


def _asks(p: Any) -> Tuple[bool, Optional[str]]:
    """(canonical, teacher) a policy at a seat asks for: an :class:`AtTable`'s, else none."""
    return (p.canonical, p.teacher) if isinstance(p, AtTable) else (False, None)


#: A callable at the table, the seats it plays (int array), how errors name it, and the
#: keywords it is given.
Seated = Tuple[PolicyFn, np.ndarray, str, Tuple[str, ...]]


def _seats_of(policies: Sequence[Any], name: Callable[[int], str]) -> List[Seated]:
    """The distinct callables among ``policies`` (one per seat), in the order of their first
    seat, each with every seat it plays, ``name(first seat)`` and the keywords it declares.
    A callable that declares ``teacher`` without a default must be an :class:`AtTable` that
    names its teacher."""
    out: List[Seated] = []
    for s, p in enumerate(policies):
        if callable(p) and not any(f is p for f, _, _, _ in out):
            kws = _keywords(p)
            if "teacher" in kws and _asks(p)[1] is None:
                fn = p.fn if isinstance(p, AtTable) else p
                if inspect.signature(fn).parameters["teacher"].default is inspect.Parameter.empty:
                    raise InvalidArgument(f"{name(s)}: {_name(p)} takes a teacher's ids but names no teacher: "
                                          f"pass AtTable({_name(p)}, teacher='greedy') (any built-in policy)")
                kws = tuple(k for k in kws if k != "teacher")
            out.append((p, np.array([j for j, q in enumerate(policies) if q is p], np.int64), name(s), kws))
    return out


def _ask_round(fns: List[Seated], to_act: np.ndarray, rows: Callable[[np.ndarray], Tuple[np.ndarray, np.ndarray]],
              label: str, first: int = 0,
              failed: Optional[Callable[[str], None]] = None,
              teacher: Optional[Callable[[np.ndarray], np.ndarray]] = None) -> Optional[Tuple[np.ndarray, np.ndarray]]:
    """One round at the table: each callable asked once, for every row whose seat to act
    (``to_act``) is one of its seats, with ``rows(r) -> (obs, mask)`` of those rows (and, as
    it declares them, ``seats=to_act[r]`` and ``teacher=teacher(r)``). Returns the rows and
    their checked ids, or None when no row waits for a callable. Errors name the row as
    ``label`` ``first + row``; ``failed(who)`` is told which callable raised, before it is
    re-raised."""
    took, ids = [], []
    for fn, mine, who, kws in fns:
        r = np.flatnonzero(np.isin(to_act, mine))
        if len(r):
            obs, mask = rows(r)
            kw: Dict[str, np.ndarray] = {}
            if "seats" in kws:
                kw["seats"] = np.asarray(to_act)[r].astype(np.int64)
            if "teacher" in kws:
                if teacher is None:
                    raise InvalidArgument(f"{who}: a teacher's ids are given at the table (simulate, arena.play) only")
                kw["teacher"] = np.asarray(teacher(r), np.int64)
            try:
                ids.append(ask(fn, obs, mask, who, r + first, label, **kw))
            except BaseException:
                if failed is not None:
                    failed(who)
                raise
            took.append(r)
    if not took:
        return None
    return np.concatenate(took), np.concatenate(ids)


def ask(fn: PolicyFn, obs: np.ndarray, mask: np.ndarray, who: str, rows: Any = None, label: str = "row",
        **kw: Any) -> np.ndarray:
    """``fn``'s ids for ``obs`` and ``mask`` (k rows), as int64, checked: k integers, each
    allowed by its row of the mask. ``who`` names the policy in errors (e.g. ``"opponents[2]"``),
    ``rows`` (optional) the caller's index of each row and ``label`` what they index
    (``"environment"``, ``"game"``); ``kw`` (``seats``, ``teacher``) go to ``fn``."""
    ids = _array(fn(obs, mask, **kw), f"{who}: a callable policy returned what is not an array of action ids")
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
