"""A single-agent Gymnasium environment: one seat of a hand of Guigang Tractor, the other
three played by built-in policies (``pip install "tractor-engine[gym]"``).

>>> from tractor.envs.gym import TractorEnv
>>> env = TractorEnv(seat=0, opponents=("greedy",) * 3)
>>> obs, info = env.reset(seed=0)
>>> obs, reward, terminated, truncated, info = env.step(env.action_space.sample(info["action_mask"]))

``gymnasium.make("tractor/GuigangTractor-v0", ...)`` makes one too (registered on import).

- Observation: ``Box(0, 1, (636,), float32)``, the learner seat's
  :meth:`tractor.Game.observation_tensor` (layout :data:`tractor.actions.OBS_LAYOUT`), 636
  being version 1's size (``obs_version=V``: ``tractor.actions.OBS_ENCODINGS[V]["dim"]``, the
  Python opponents being given the same version); with
  ``dict_obs=True`` a ``Dict`` of that ``"observation"`` and the ``"action_mask"``.
- Action: ``Discrete(72)``, the ids of :mod:`tractor.actions`; a play is built card by card
  (``step`` returns with the same seat to act until the play is complete).
- ``info["action_mask"]``: int8 (72,), the ids allowed now (``action_space.sample(mask)``
  draws among them); ``env.action_masks()`` gives it as bools (sb3-contrib's convention).
- Reward: zero until the hand ends, then the learner seat's return (levels its team gained
  minus the other team's; zero for a deal stopped after three redeals, R8.5). The episode
  terminates at the hand's end; it is never truncated.
- ``opponents``: three policies for the other seats in play order after ``seat`` (any
  policy of :func:`tractor.simulate`: ``"greedy"``, ``"random"``, ``"ismcts:..."``,
  ``"net:PATH"``, or a Python callable asked with one row at a time, see
  :mod:`tractor.policy_fn`).
- ``auto_forced=True``: the learner's forced ids (exactly one allowed: passes while dealing
  without a level card, the last cards of a follow) are taken for it, so every step is a
  real choice; ``info["forced"]`` counts them. The game and what every seat sees are as if
  the learner had taken them itself (see :class:`tractor.VecEnv`).
- ``fast_deal``: as :mod:`tractor.envs.pettingzoo` (False: the learner decides after every
  card it is dealt, pass being its only action when it cannot show).

Illegal actions: with ``strict=True`` an id the mask forbids raises
:class:`tractor.IllegalAction` (the game unchanged). With ``strict=False`` (the default) it is
refused the way masked-action Gymnasium environments treat invalid moves: nothing changes, the
reward is 0, the episode goes on and ``info["illegal_action"]`` is True, so that code that
samples unmasked actions (``gymnasium.utils.env_checker.check_env``, a plain policy) runs. Use
the mask: a refused action carries no penalty, it only wastes the step.
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Sequence, Tuple

import numpy as np

from .. import actions as _actions
from .._args import _bool, _int, _obs_version, _seat, _seed, _show
from ..errors import IllegalAction, InvalidArgument
from ..policy_fn import ask
from ..vec_env import _seats
from . import _deal, _Hands, _policy_seed, _require, _returns

gymnasium = _require("gymnasium", "gym", "gym")
from gymnasium import spaces  # noqa: E402

__all__ = ["TractorEnv", "ENV_ID"]

#: ``gymnasium.make(ENV_ID, seat=..., opponents=...)`` makes a :class:`TractorEnv`.
ENV_ID = "tractor/GuigangTractor-v0"


class TractorEnv(gymnasium.Env):
    """One hand per episode for the learner at ``seat`` (see the module's documentation).
    ``game`` is the live :class:`tractor.Game` of the hand (read it; step it only through
    :meth:`step`); ``policies`` the policy of each seat (None: the learner's)."""

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 4}

    def __init__(
        self,
        seat: int = 0,
        opponents: Sequence[str] = ("greedy",) * 3,
        profile: str = "guigang",
        fast_deal: bool = False,
        seed: Optional[int] = None,
        strict: bool = False,
        dict_obs: bool = False,
        render_mode: Optional[str] = None,
        auto_forced: bool = False,
        obs_version: int = 1,
    ) -> None:
        self.seat = _seat(seat)
        enc = _obs_version(obs_version)
        self.obs_version: int = enc["version"]
        if isinstance(opponents, str) or not hasattr(opponents, "__len__") or len(opponents) != 3:
            raise InvalidArgument(
                f"opponents must be 3 policies (the seats after the learner's), got {_show(opponents)}"
            )
        names = _seats(list(opponents), callables=True)[1:]  # checks the names with the core
        self.policies: Tuple[Any, ...] = tuple(
            None if s == self.seat else names[(s - self.seat - 1) % 4] for s in range(4)
        )
        strict, dict_obs = _bool(strict, "strict"), _bool(dict_obs, "dict_obs")
        self.auto_forced = _bool(auto_forced, "auto_forced")
        if render_mode not in (None, "ansi", "human"):
            raise InvalidArgument(f"render_mode must be None, 'ansi' or 'human', got {_show(render_mode)}")
        self.profile = profile
        self.fast_deal = fast_deal
        self.strict = strict
        self.dict_obs = dict_obs
        self.render_mode = render_mode
        box = spaces.Box(0.0, 1.0, (enc["dim"],), np.float32)
        mask = spaces.Box(0, 1, (_actions.NUM_ACTIONS,), np.int8)
        self.observation_space = spaces.Dict({"observation": box, "action_mask": mask}) if dict_obs else box
        self.action_space = spaces.Discrete(_actions.NUM_ACTIONS)
        self._hands = _Hands()
        self._seed = None if seed is None else _seed(seed)
        self.game = _deal(0, profile, fast_deal)  # checks the arguments now; replaced by reset()
        self._hand_seed = 0
        self._decisions = [0, 0, 0, 0]
        self._forced = 0

    # -- the Gymnasium API ---------------------------------------------------------------------
    def reset(
        self, *, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None
    ) -> Tuple[Any, Dict[str, Any]]:
        """A new hand: hand 0 of the stream ``seed`` (or the constructor's ``seed`` at the
        first reset), else the stream's next hand. A hand that ends before the learner has a
        decision (a deal stopped after three redeals without it, R8.5, possible only with
        ``fast_deal``) is skipped for the stream's next one."""
        if seed is None:
            seed = self._seed
        self._seed = None  # the constructor's seed serves the first reset only
        super().reset(seed=seed)
        if seed is None and self._hands.base is None:
            seed = int(self.np_random.integers(0, 2**63))
        while True:
            self._hand_seed = self._hands.next(seed)
            seed = None
            self.game = _deal(self._hand_seed, self.profile, self.fast_deal)
            self._decisions = [0, 0, 0, 0]
            self._forced = 0
            self._advance()
            if self.game.phase != "over":
                return self._obs(), self._info(False)

    def step(self, action: Any) -> Tuple[Any, float, bool, bool, Dict[str, Any]]:
        if self.game.phase == "over":
            raise IllegalAction("the hand is over: call reset()")
        a = _int(action, "action", 0, _actions.NUM_ACTIONS - 1)
        try:
            self.game.step(a)
        except IllegalAction:
            if self.strict:
                raise
            return self._obs(), 0.0, False, False, self._info(True)
        self._advance()
        over = self.game.phase == "over"
        reward = float(_returns(self.game)[self.seat]) if over else 0.0
        return self._obs(), reward, over, False, self._info(False)

    def action_masks(self) -> np.ndarray:
        """The ids allowed now, as bools (all False once the hand is over)."""
        if self.game.phase == "over":
            return np.zeros(_actions.NUM_ACTIONS, dtype=bool)
        return self.game.action_mask()

    def render(self) -> Optional[str]:
        if self.render_mode is None:
            return None
        g = self.game
        lines = [repr(g), f"seat {self.seat}: " + " ".join(str(c) for c in g.hand(self.seat))]
        lines.append("trick: " + "; ".join(f"{s}: {' '.join(map(str, cs))}" for s, cs in g.current_trick))
        if g.pending:
            lines.append("building: " + " ".join(str(c) for c in g.pending))
        if self.render_mode == "human":
            print("\n".join(lines))
            return None
        return "\n".join(lines)

    # -- translation ---------------------------------------------------------------------------
    def _advance(self) -> None:
        """Lets the other seats act (and, with ``auto_forced``, the learner's forced ids be
        taken) until the learner has a choice or the hand is over."""
        g = self.game
        while g.phase != "over":
            s = g.current_player
            p = self.policies[s]
            if s == self.seat:
                if not self.auto_forced:
                    return
                mask = g.action_mask()
                if mask.sum() != 1:
                    return
                g.step(int(np.flatnonzero(mask)[0]))
                self._forced += 1
            elif callable(p):
                ids = ask(p, g.observation_tensor(s, obs_version=self.obs_version)[None], g.action_mask()[None], f"opponents[{(s - self.seat - 1) % 4}]")
                g.step(int(ids[0]))
            else:
                g.step_policy(p, _policy_seed(self._hand_seed, s, self._decisions[s]))
                self._decisions[s] += 1

    def _obs(self) -> Any:
        obs = self.game.observation_tensor(self.seat, obs_version=self.obs_version)
        if self.dict_obs:
            return {"observation": obs, "action_mask": self.action_masks().astype(np.int8)}
        return obs

    def _info(self, illegal: bool) -> Dict[str, Any]:
        info = {"action_mask": self.action_masks().astype(np.int8), "illegal_action": illegal}
        if self.auto_forced:
            info["forced"], self._forced = self._forced, 0
        return info


if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point="tractor.envs.gym:TractorEnv")
