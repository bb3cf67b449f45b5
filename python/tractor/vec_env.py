"""A batched environment in Rust: many hands stepped together by action id.

``VecEnv(num_envs)`` plays ``num_envs`` games at once; ``reset()`` and ``step(actions)``
return numpy arrays that the environment owns and overwrites on the next call (copy what you
keep). The stepping runs in Rust with the GIL released, on ``threads`` threads.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence, Tuple

import numpy as np

from . import _core
from ._args import _bool, _int, _policy, _profile, _seed, _show, _threads
from .errors import InvalidArgument
from .game import Game

__all__ = ["VecEnv"]

#: The most environments one VecEnv holds: each costs about 5 KB (its game and its rows of the
#: buffers), so 65,536 take about 330 MB; a larger request is refused before anything is built.
MAX_ENVS = 65_536

Step = Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]


class VecEnv:
    """``num_envs`` environments of Guigang Tractor, stepped together.

    - ``opponents=None``: self-play, the learner acts for every seat. ``opponents`` three
      policy names (e.g. ``("greedy", "random", "greedy")``, any policy of ``simulate``): the
      learner is seat 0 and they play seats 1–3; or four entries with ``None`` at the
      learner's seats.
    - Each environment plays matches hand after hand; a hand is an episode. ``reward`` is
      ``(n, 4)``: at the end of a hand, per seat, the levels its team gained minus the other
      team's (zero-sum, R7.4); zero otherwise. When ``done[i]``, the observation of
      environment i is already the next hand's (automatic reset).
    - ``fast_deal=False`` (default): every receiver decides after every card it receives,
      pass being its only action when it cannot show, so the turn order tells no one who holds
      level cards. ``fast_deal=True`` skips those decisions: faster, but then whose turn it is
      while dealing reveals who can show (R8.1, D7).
    - ``canonical_suits=True`` renames suits in the observations so that trump is first.
      Action ids and masks always use the real suits.

    ``reset()`` returns ``(obs, mask, seat, reward, done)`` like ``step``; ``obs`` is
    ``(n, OBS_DIM)`` float32, ``mask`` ``(n, 72)`` bool, ``seat`` ``(n,)`` int32 (the seat to
    act), ``reward`` ``(n, 4)`` float32, ``done`` ``(n,)`` bool. Results depend on ``seed``
    only, never on ``threads``.

    Raises InvalidArgument (num_envs outside 1..65,536, seed, threads, the flags, opponents), InvalidContext
    (profile) and InvalidPolicy (an unknown opponent policy).
    """

    def __init__(
        self,
        num_envs: int,
        seed: int = 0,
        profile: str = "guigang",
        opponents: Optional[Sequence[Optional[str]]] = None,
        threads: Optional[int] = None,
        fast_deal: bool = False,
        canonical_suits: bool = False,
    ) -> None:
        n = _int(num_envs, "num_envs", 1, MAX_ENVS)
        s = _seed(seed)
        fast_deal = _bool(fast_deal, "fast_deal")
        canonical_suits = _bool(canonical_suits, "canonical_suits")
        seats = _seats(opponents)
        self._env = _core.VecEnv(n, s, _profile(profile), seats, not fast_deal, canonical_suits, _threads(threads))
        self.num_envs = n
        self.seats = tuple(seats)
        self.learner_seats = tuple(i for i, p in enumerate(seats) if p is None)
        self.observation_size: int = _core.OBS_DIM
        self.num_actions = 72
        self._started = False

    def __len__(self) -> int:
        return self.num_envs

    def reset(self) -> Step:
        """Starts every environment anew from the seed."""
        self._started = True
        return self._env.reset()

    def step(self, actions: Any) -> Step:
        """Steps environment i with ``actions[i]`` (an action id its mask allows). If any is
        refused (IllegalAction), nothing changes and the error names the first such
        environment; actions of the wrong shape or type, or a step before ``reset``, raise
        InvalidArgument."""
        if not self._started:
            raise InvalidArgument("call reset() before step()")
        a = np.asarray(actions)
        if a.shape != (self.num_envs,) or not (np.issubdtype(a.dtype, np.integer) or a.dtype == object and a.size == 0):
            raise InvalidArgument(
                f"actions must be an integer array of shape ({self.num_envs},), got {a.dtype} {a.shape}"
            )
        return self._env.step(np.ascontiguousarray(a, dtype=np.int64))

    def known_trumps(self) -> np.ndarray:
        """Per environment, the trump suit as its seat to act knows it (0–3 for s h d c, 4
        unknown): the row of :data:`tractor.actions.FROM_CANONICAL` that maps a choice made on
        ``canonical_suits`` observations back to a real action id."""
        return self._env.known_trumps()

    def game(self, i: int) -> Game:
        """A copy of environment ``i``'s current game (with its play being built)."""
        return Game._wrap(self._env.game(_int(i, "i", 0, self.num_envs - 1)))


def _seats(opponents: Optional[Sequence[Optional[str]]]) -> list:
    if opponents is None:
        return [None] * 4
    if isinstance(opponents, str) or not hasattr(opponents, "__len__") or getattr(opponents, "ndim", 1) != 1:
        raise InvalidArgument(f"opponents must be None or a sequence of 3 or 4 policy names, got {_show(opponents)}")
    ops = list(opponents)
    if len(ops) == 3:
        ops = [None] + ops
    if len(ops) != 4:
        raise InvalidArgument(f"opponents: 3 names (seats 1-3) or 4 entries (None: the learner), got {len(ops)}")
    out: list = []
    for p in ops:
        if p is None:
            out.append(None)
            continue
        out.append(_policy(p, f"opponents[{len(out)}]"))
    if None not in out:
        raise InvalidArgument("opponents: at least one seat must be the learner's (None)")
    return out
