"""A batched environment in Rust: many hands stepped together by action id.

``VecEnv(num_envs)`` plays ``num_envs`` games at once; ``reset()`` and ``step(actions)``
return numpy arrays that the environment owns and overwrites on the next call (copy what you
keep). The stepping runs in Rust with the GIL released, on ``threads`` threads.
"""

from __future__ import annotations

import threading
from typing import Any, Dict, Optional, Sequence, Tuple

import numpy as np

from . import _core
from ._args import _array, _bool, _int, _obs_version, _policy, _profile, _seed, _show, _threads
from .errors import InvalidArgument
from .game import Game
from .policy_fn import _ask_round, _asks, _seats_of

__all__ = ["VecEnv", "INFO_FIELDS", "OBS_DTYPES"]

#: The most environments one VecEnv holds: each costs about 5 KB (its game and its rows of the
#: buffers), so 65,536 take about 330 MB; a larger request is refused before anything is built.
MAX_ENVS = 65_536

#: The per-environment columns of :attr:`VecEnv.info`: (name, meaning).
INFO_FIELDS: Tuple[Tuple[str, str], ...] = tuple(tuple(f) for f in _core.VEC_ENV_INFO)  # type: ignore[misc]
#: How observations can be returned: ``float32`` (the tensor) or ``uint8`` (its whole numbers;
#: divide by :data:`tractor.actions.OBS_SCALE_U8` for the float32 values).
OBS_DTYPES = ("float32", "uint8")

Step = Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]


class VecEnv:
    """``num_envs`` environments of Guigang Tractor, stepped together.

    - ``opponents=None``: self-play, the learner acts for every seat. ``opponents`` three
      policies (e.g. ``("greedy", "random", "greedy")``, any policy of ``simulate``, or a
      Python callable, see :mod:`tractor.policy_fn`): the learner is seat 0 and they play
      seats 1–3; or four entries with ``None`` at the learner's seats.
    - Each environment plays matches hand after hand; a hand is an episode. ``reward`` is
      ``(n, 4)``: at the end of a hand, per seat, the levels its team gained minus the other
      team's (zero-sum, R7.4); zero otherwise. When ``done[i]``, the observation of
      environment i is already the next hand's (automatic reset). ``first_hand_only=True``:
      every hand is the first of a fresh match (both teams at level 3), as the Gym,
      PettingZoo and OpenSpiel adapters' episodes are.
    - ``fast_deal=False`` (default): every receiver decides after every card it receives,
      pass being its only action when it cannot show, so the turn order tells no one who holds
      level cards. ``fast_deal=True`` skips those decisions: faster, but then whose turn it is
      while dealing reveals who can show (R8.1, D7).
    - ``auto_forced=True``: a learner seat whose decision allows exactly one id takes it
      without being asked, so every step returned is a real choice (most forced steps are
      passes while dealing and the last cards of a follow). It reveals nothing: the same ids
      are taken in the same order as by a learner that takes every forced id, so the game,
      its record, the other seats' decisions and the turn order are unchanged (``fast_deal``
      is the option that leaks); the learner only does not see the observations in between,
      which the next one sums up. Returns of a hand that ends on the way are in the step's
      ``reward``; ``info["forced"]`` counts the ids taken.
    - ``teacher``: a built-in policy (``"greedy"``, a search, ``"net:PATH"``) that names, at
      every learner decision, the id it would take: ``info["teacher"]`` (−1 once the play
      built has left the teacher's), drawn from its own stream (docs/learning.md gives the
      seed derivation), never changing the game. For behaviour cloning and distillation in
      the same call as the step.
    - ``canonical_suits=True`` renames suits in the observations so that trump is first.
      Action ids and masks always use the real suits.
    - ``obs_dtype="uint8"``: observations as their whole numbers (a quarter of the memory of
      float32; ``obs / tractor.actions.OBS_SCALE_U8`` is the float32 observation).
    - ``obs_version``: the observation version written (default 1; the versions are
      :data:`tractor.actions.OBS_ENCODINGS`, whose ``dim`` is :attr:`observation_size`).

    ``reset()`` returns ``(obs, mask, seat, reward, done)`` like ``step``; ``obs`` is
    ``(n, observation_size)`` float32 (or uint8), ``mask`` ``(n, 72)`` bool, ``seat`` ``(n,)`` int32
    (the seat to act), ``reward`` ``(n, 4)`` float32, ``done`` ``(n,)`` bool; :attr:`info`
    the columns of :data:`INFO_FIELDS` of the same call. Results depend on ``seed`` only,
    never on ``threads``.

    A VecEnv cannot be pickled (its games live in Rust): build one from the same arguments
    in the other process. ``close()`` frees it; any later call raises InvalidArgument.

    Raises InvalidArgument (num_envs outside 1..65,536, seed, threads, the flags, opponents,
    obs_dtype, an unknown obs_version), InvalidContext (profile) and InvalidPolicy (an unknown opponent or teacher).
    """

    def __init__(
        self,
        num_envs: int,
        seed: int = 0,
        profile: str = "guigang",
        opponents: Optional[Sequence[Any]] = None,
        threads: Optional[int] = None,
        fast_deal: bool = False,
        canonical_suits: bool = False,
        *,
        auto_forced: bool = False,
        first_hand_only: bool = False,
        teacher: Optional[str] = None,
        obs_dtype: str = "float32",
        obs_version: int = 1,
    ) -> None:
        n = _int(num_envs, "num_envs", 1, MAX_ENVS)
        s = _seed(seed)
        fast_deal = _bool(fast_deal, "fast_deal")
        canonical_suits = _bool(canonical_suits, "canonical_suits")
        auto_forced = _bool(auto_forced, "auto_forced")
        first_hand_only = _bool(first_hand_only, "first_hand_only")
        teach = None if teacher is None else _policy(teacher, "teacher")
        if not isinstance(obs_dtype, str) or obs_dtype not in OBS_DTYPES:
            raise InvalidArgument(f"obs_dtype must be 'float32' or 'uint8', got {_show(obs_dtype)}")
        enc = _obs_version(obs_version)
        seats = _seats(opponents, callables=True)
        for i, p in enumerate(seats):
            if _asks(p) != (False, None):
                raise InvalidArgument(f"opponents[{_user_index(opponents, i)}]: an AtTable asking for canonical or a "
                                      "teacher plays at simulate's or arena.play's table; a VecEnv's callables read "
                                      "its own observations (canonical_suits) and its teacher teaches the learner")
        core_seats = [None if callable(p) else p for p in seats]
        self._env: Any = _core.VecEnv(n, s, _profile(profile), core_seats, not fast_deal, canonical_suits,
                                      _threads(threads), auto_forced, first_hand_only, teach, obs_dtype,
                                      [i for i, p in enumerate(seats) if callable(p)], enc["version"])
        self.num_envs = n
        self.seats = tuple(seats)
        self.learner_seats = tuple(i for i, p in enumerate(seats) if p is None)
        self.teacher = teach
        self.obs_version: int = enc["version"]
        self.observation_size: int = enc["dim"]
        self.num_actions = 72
        self.obs_dtype = obs_dtype
        self._fns = _seats_of(seats, lambda s: f"opponents[{_user_index(opponents, s)}]")
        self._started = False
        self._broken: Optional[str] = None
        # calls from many threads take effect one after another: each waits for the one
        # under way (re-entrant: a callable opponent may read this VecEnv)
        self._lock = threading.RLock()

    def __len__(self) -> int:
        return self.num_envs

    def __reduce__(self) -> Any:
        raise TypeError("a VecEnv cannot be pickled (its games live in Rust): build one from the same arguments "
                        "in the other process")

    def close(self) -> None:
        """Frees the environments; any later call raises InvalidArgument. Closing twice is fine."""
        with self._lock:
            self._env = None

    @property
    def closed(self) -> bool:
        return self._env is None

    def _live(self) -> Any:
        if self._env is None:
            raise InvalidArgument("this VecEnv is closed")
        return self._env

    def reset(self, seed: Optional[int] = None, indices: Optional[Sequence[int]] = None) -> Step:
        """Starts every environment (or those in ``indices``) anew: environment i from
        ``derive(seed, VEC_ENV, i)``, as at its creation. ``seed`` replaces the seed for this
        and later resets. Only the rows reset are written (reward zero, not done)."""
        with self._lock:
            return self._reset(seed, indices)

    def _reset(self, seed: Optional[int], indices: Optional[Sequence[int]]) -> Step:
        env = self._live()
        s = None if seed is None else _seed(seed)
        rows = None
        if indices is not None:
            if isinstance(indices, (str, bytes)) or not hasattr(indices, "__iter__"):
                raise InvalidArgument(f"indices must be a sequence of environment indices, got {_show(indices)}")
            rows = [_int(i, "indices[]", 0, self.num_envs - 1) for i in indices]
            if len(set(rows)) != len(rows):
                raise InvalidArgument("indices: an environment is named twice")
            if not self._started:
                raise InvalidArgument("call reset() for every environment before resetting some of them")
        out = env.reset(s, rows)
        self._started = True
        self._broken = None
        out = self._after(out)
        reward, done = out[3], out[4]
        reward[rows if rows is not None else slice(None)] = 0  # a reset row starts a hand: nothing ended yet
        done[rows if rows is not None else slice(None)] = False
        return out

    def step(self, actions: Any) -> Step:
        """Steps environment i with ``actions[i]`` (an action id its mask allows). If any is
        refused (IllegalAction), nothing changes and the error names the first such
        environment; actions of the wrong shape or type, or a step before ``reset``, raise
        InvalidArgument. Callable opponents are then asked until every environment waits for
        a learner seat; if one fails, its error is raised and the VecEnv needs ``reset()``."""
        with self._lock:
            return self._step(actions)

    def _step(self, actions: Any) -> Step:
        env = self._live()
        if not self._started:
            raise InvalidArgument("call reset() before step()")
        if self._broken is not None:
            raise InvalidArgument(f"{self._broken} in an earlier call: call reset()")
        a = _array(actions, f"actions must be an integer array of shape ({self.num_envs},)")
        if a.shape != (self.num_envs,) or not (np.issubdtype(a.dtype, np.integer) or a.dtype == object and a.size == 0):
            raise InvalidArgument(
                f"actions must be an integer array of shape ({self.num_envs},), got {a.dtype} {a.shape}"
            )
        return self._after(env.step(np.ascontiguousarray(a, dtype=np.int64)))

    def _after(self, out: Step) -> Step:
        """Lets the callable opponents act (batched, each asked once per round) until every
        environment waits for a learner seat."""
        if not self._fns:
            return out
        env = self._env
        while True:
            obs, mask, seat, _, _ = out
            took = _ask_round(self._fns, seat, lambda r: (obs[r], mask[r]), "environment", failed=self._failed)
            if took is None:
                return out
            out = env.step(np.ascontiguousarray(took[1], dtype=np.int64), took[0].tolist())

    def _failed(self, who: str) -> None:
        self._broken = f"{who} failed"

    @property
    def info(self) -> Dict[str, np.ndarray]:
        """The info columns of the last ``reset``/``step`` (views the next call overwrites):
        ``end`` (0 no hand ended, 1 played out, 2 a deal stopped without a showing, R8.5),
        ``score`` (that hand's defenders' final score, R7.3), ``take_over`` (1 when the
        defenders took over), ``teacher`` (the teacher's next id, −1 none) and ``forced``
        (ids taken by ``auto_forced``); see :data:`INFO_FIELDS`."""
        with self._lock:
            table = self._live().info()
        return {name: table[:, k] for k, (name, _) in enumerate(INFO_FIELDS)}

    def known_trumps(self) -> np.ndarray:
        """Per environment, the trump suit as its seat to act knows it (0–3 for s h d c, 4
        unknown): the row of :data:`tractor.actions.FROM_CANONICAL` that maps a choice made on
        ``canonical_suits`` observations back to a real action id."""
        with self._lock:
            return self._live().known_trumps()

    def game(self, i: int) -> Game:
        """A copy of environment ``i``'s current game (with its play being built)."""
        i = _int(i, "i", 0, self.num_envs - 1)
        with self._lock:
            return Game._wrap(self._live().game(i))


def _user_index(opponents: Any, seat: int) -> int:
    """The index in the user's ``opponents`` of the policy of ``seat`` (three names start at
    seat 1)."""
    return seat - 1 if len(list(opponents)) == 3 else seat


def _seats(opponents: Optional[Sequence[Any]], callables: bool = False) -> list:
    if opponents is None:
        return [None] * 4
    if isinstance(opponents, str) or not hasattr(opponents, "__len__") or getattr(opponents, "ndim", 1) != 1:
        raise InvalidArgument(f"opponents must be None or a sequence of 3 or 4 policy names, got {_show(opponents)}")
    ops = list(opponents)
    three = len(ops) == 3
    if three:
        ops = [None] + ops
    if len(ops) != 4:
        raise InvalidArgument(f"opponents: 3 names (seats 1-3) or 4 entries (None: the learner), got {len(ops)}")
    out: list = []
    for p in ops:
        if p is None or callables and callable(p):
            out.append(p)
            continue
        out.append(_policy(p, f"opponents[{len(out) - 1 if three else len(out)}]"))
    if None not in out:
        raise InvalidArgument("opponents: at least one seat must be the learner's (None)")
    return out
