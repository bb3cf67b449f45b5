"""Stable-Baselines3's ``VecEnv`` over :class:`tractor.VecEnv`: one learner seat against built-in
or Python opponents, every environment stepped in Rust (``pip install "tractor-engine[sb3]"``:
stable-baselines3 and sb3-contrib, which bring torch).

>>> from sb3_contrib import MaskablePPO
>>> from tractor.envs.sb3 import TractorVecEnv
>>> env = TractorVecEnv(64, opponents=("greedy",) * 3, auto_forced=True)
>>> MaskablePPO("MlpPolicy", env, n_steps=128).learn(10_000)  # doctest: +SKIP

- Observations: ``Box(0, 1, (636,), float32)`` (``obs_dtype="uint8"``: ``Box(0, 255, (636,),
  uint8)``, see :data:`tractor.actions.OBS_SCALE_U8`), 636 being version 1's size
  (``obs_version=V``: ``tractor.actions.OBS_ENCODINGS[V]["dim"]``); actions ``Discrete(72)``, the ids of
  :mod:`tractor.actions`.
- Masks through sb3-contrib's convention: ``env_method("action_masks")`` gives one bool row per
  environment (``MaskablePPO`` asks it before every step).
- Reward: the learner seat's return when a hand ends (levels its team gained minus the other
  team's), zero otherwise; a hand is an episode, reset automatically (by default every hand is
  the first of a match, as the other adapters' episodes; ``first_hand_only=False`` carries the
  levels over). ``infos[i]`` holds ``"end"``, ``"score"`` and ``"take_over"`` of the hand that
  ended and ``"forced"`` (``auto_forced``); there is no ``"terminal_observation"``: an episode
  is never truncated, so nothing bootstraps from it.
- Seeds: ``seed(s)`` then ``reset()`` restarts every environment from ``s`` (environment i from
  ``derive(s, VEC_ENV, i)``, not ``s + i``); without it ``reset()`` starts from the
  constructor's ``seed``.
- The other arguments are :class:`tractor.VecEnv`'s (``opponents`` three policies, or four with
  ``None`` at the learner's one seat; callables included).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

import numpy as np

from .. import actions as _actions
from ..errors import InvalidArgument
from ..vec_env import VecEnv
from . import _require

_require("stable_baselines3", "sb3", "sb3")
from gymnasium import spaces  # noqa: E402
from stable_baselines3.common.vec_env.base_vec_env import VecEnv as _SB3VecEnv  # noqa: E402

__all__ = ["TractorVecEnv"]


class TractorVecEnv(_SB3VecEnv):
    """``num_envs`` hands at once for one learner seat, as Stable-Baselines3 expects a
    vectorized environment (see the module's documentation)."""

    render_mode: Optional[str] = None

    def __init__(
        self,
        num_envs: int,
        opponents: Sequence[Any] = ("greedy",) * 3,
        seed: int = 0,
        profile: str = "guigang",
        threads: Optional[int] = None,
        fast_deal: bool = False,
        canonical_suits: bool = False,
        auto_forced: bool = True,
        first_hand_only: bool = True,
        obs_dtype: str = "float32",
        obs_version: int = 1,
    ) -> None:
        if opponents is None:
            raise InvalidArgument("opponents: Stable-Baselines3 trains one seat; give 3 policies (or 4 with one None)")
        self.venv = VecEnv(num_envs, seed=seed, profile=profile, opponents=opponents, threads=threads,
                           fast_deal=fast_deal, canonical_suits=canonical_suits, auto_forced=auto_forced,
                           first_hand_only=first_hand_only, obs_dtype=obs_dtype, obs_version=obs_version)
        if len(self.venv.learner_seats) != 1:
            raise InvalidArgument(f"opponents: Stable-Baselines3 trains one seat, got learner seats {self.venv.learner_seats}")
        self.learner_seat = self.venv.learner_seats[0]
        if obs_dtype == "uint8":
            box = spaces.Box(0, 255, (self.venv.observation_size,), np.uint8)
        else:
            box = spaces.Box(0.0, 1.0, (self.venv.observation_size,), np.float32)
        self._mask = np.zeros((num_envs, _actions.NUM_ACTIONS), dtype=bool)
        self._actions: Optional[np.ndarray] = None
        self._seed = seed
        super().__init__(num_envs, box, spaces.Discrete(_actions.NUM_ACTIONS))

    # -- the VecEnv API ------------------------------------------------------------------------
    def reset(self) -> np.ndarray:
        seeds = [s for s in self._seeds if s is not None]
        seed = int(seeds[0]) if seeds else self._seed
        obs, mask, _, _, _ = self.venv.reset(seed=seed)
        self._reset_seeds()
        self._reset_options()
        self._mask = mask.copy()
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return obs.copy()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs)

    def step_wait(self) -> Any:
        if self._actions is None:
            raise InvalidArgument("step_wait() without step_async()")
        a, self._actions = self._actions, None
        obs, mask, _, reward, done = self.venv.step(a.astype(np.int64, copy=False))
        self._mask = mask.copy()
        info = self.venv.info
        infos: List[Dict[str, Any]] = [{"forced": int(f)} for f in info["forced"]]
        for i in np.flatnonzero(done):
            infos[i].update(end=int(info["end"][i]), score=int(info["score"][i]), take_over=bool(info["take_over"][i]))
        return obs.copy(), reward[:, self.learner_seat].astype(np.float32), done.copy(), infos

    def close(self) -> None:
        self.venv.close()

    def action_masks(self) -> np.ndarray:
        """The allowed ids of every environment, ``(num_envs, 72)`` bool."""
        return self._mask.copy()

    def _indices(self, indices: Any) -> List[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, (int, np.integer)):
            return [int(indices)]
        return [int(i) for i in indices]

    def get_attr(self, attr_name: str, indices: Any = None) -> List[Any]:
        if attr_name == "action_masks":
            return [self.action_masks] * len(self._indices(indices))
        if attr_name == "render_mode":
            return [None] * len(self._indices(indices))
        raise AttributeError(f"TractorVecEnv's environments have no attribute {attr_name!r}")

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        raise AttributeError(f"TractorVecEnv's environments live in Rust: {attr_name!r} cannot be set")

    def env_method(self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any) -> List[Any]:
        rows = self._indices(indices)
        if method_name == "action_masks":
            return [self._mask[i].copy() for i in rows]
        raise AttributeError(f"TractorVecEnv's environments have no method {method_name!r}")

    def env_is_wrapped(self, wrapper_class: Any, indices: Any = None) -> List[bool]:
        return [False] * len(self._indices(indices))

    def get_images(self) -> Sequence[Optional[np.ndarray]]:
        return [None] * self.num_envs
