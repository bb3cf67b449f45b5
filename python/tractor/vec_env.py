"""A batched environment in Rust: many hands stepped together by action id.

``VecEnv(num_envs)`` plays ``num_envs`` games at once; ``reset()`` and ``step(actions)``
return numpy arrays that the environment owns and overwrites on the next call (copy what you
keep). The stepping runs in Rust with the GIL released, on ``threads`` threads.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence, Tuple

import numpy as np

from . import _core
from ._args import _int, _show, _threads
from .errors import InvalidArgument, TractorError
from .game import Game
from .sim import _profile

__all__ = ["VecEnv"]

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
        n = _int(num_envs, "num_envs", 1, 1 << 20)
        s = _int(seed, "seed")
        for name, v in (("fast_deal", fast_deal), ("canonical_suits", canonical_suits)):
            if not isinstance(v, bool):
                raise InvalidArgument(f"{name} must be a bool, got {_show(v)}")
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
        refused, nothing changes and the error names the first such environment."""
        if not self._started:
            raise InvalidArgument("call reset() before step()")
        a = np.asarray(actions)
        if a.shape != (self.num_envs,) or not (np.issubdtype(a.dtype, np.integer) or a.dtype == object and a.size == 0):
            raise InvalidArgument(
                f"actions must be an integer array of shape ({self.num_envs},), got {a.dtype} {a.shape}"
            )
        return self._env.step(np.ascontiguousarray(a, dtype=np.int64))

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
        if not isinstance(p, str):
            raise InvalidArgument(f"opponents: a policy is a name such as 'greedy', got {_show(p)}")
        try:
            p.encode("utf-8")
            out.append(_core.policy_name(p.strip()))
        except UnicodeEncodeError:
            raise InvalidArgument(f"opponents: unknown policy {_show(p)}") from None
        except TractorError as e:
            raise InvalidArgument(f"opponents: {e}") from None
    if None not in out:
        raise InvalidArgument("opponents: at least one seat must be the learner's (None)")
    return out
