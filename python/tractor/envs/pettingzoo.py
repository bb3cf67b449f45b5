"""A PettingZoo AEC environment of one hand of Guigang Tractor (``pip install
"tractor-engine[pettingzoo]"``).

>>> from tractor.envs.pettingzoo import env
>>> e = env()
>>> e.reset(seed=0)
>>> for agent in e.agent_iter():
...     obs, reward, terminated, truncated, info = e.last()
...     e.step(None if terminated else e.action_space(agent).sample(obs["action_mask"]))

- Agents ``"player_0"`` .. ``"player_3"`` are seats 0-3 (play order).
- Observations: ``{"observation": float32 (636,), "action_mask": int8 (72,)}``: the seat's
  :meth:`tractor.Game.observation_tensor` (layout :data:`tractor.actions.OBS_LAYOUT`; 636 is
  version 1's size, ``obs_version=V`` gives ``tractor.actions.OBS_ENCODINGS[V]["dim"]``) and,
  for the agent to act, :meth:`tractor.Game.action_mask` (zeros for the others).
- Actions: ``Discrete(72)``, the ids of :mod:`tractor.actions`. A play is built card by card:
  while a seat builds one, it stays the selected agent. An id the mask forbids raises
  :class:`tractor.IllegalAction` and changes nothing.
- Rewards: zero until the hand ends, then each seat's return (levels its team gained minus
  the other team's, zero-sum; zero for a deal stopped after three redeals, R8.5); every agent
  terminates then.
- ``fast_deal=False`` (default): every receiver decides after every card it is dealt (pass
  being its only action when it cannot show), so whose turn it is tells no one anything.
  ``fast_deal=True`` deals the engine's default way, skipping seats that cannot show: faster,
  but then the turn order while dealing tells every agent who could show (who holds level
  cards, R8.1-R8.2).
- ``auto_forced=True``: an agent's forced ids (exactly one allowed: a pass while dealing
  without a level card, the last cards of a forced follow) are taken for it, so every agent
  selected has a choice; ``infos[agent]["forced"]`` counts the ids taken for it since its last
  turn. The game and what each agent sees are those of agents taking every forced id
  themselves (see :class:`tractor.VecEnv`).
"""

from __future__ import annotations

from typing import Any, Dict, Optional

import numpy as np

from .. import _core
from .. import actions as _actions
from .._args import _bool, _obs_version, _show
from ..errors import InvalidArgument
from . import _deal, _Hands, _require, _returns

_require("pettingzoo", "pettingzoo", "pettingzoo")
_require("gymnasium", "pettingzoo", "pettingzoo")

from gymnasium import spaces  # noqa: E402
from pettingzoo import AECEnv  # noqa: E402
from pettingzoo.utils import wrappers  # noqa: E402

__all__ = ["env", "raw_env", "STATE_LAYOUT", "STATE_DIM", "table_state"]

_AGENTS = [f"player_{s}" for s in range(4)]


def env(**kwargs: Any) -> AECEnv:
    """The environment wrapped as PettingZoo's classic games are (order enforcing, action in
    bounds); ``kwargs`` go to :class:`raw_env`."""
    e: AECEnv = raw_env(**kwargs)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return wrappers.OrderEnforcingWrapper(e)


class raw_env(AECEnv):
    """One hand per episode (see the module's documentation). ``profile`` is a rules profile
    (``tractor.PROFILES``); ``render_mode`` None, ``"ansi"`` (``render()`` returns a text of
    the table, every hand shown: a debugging view) or ``"human"`` (``render()`` prints that
    text). ``game`` is the live :class:`tractor.Game` of the hand (read it; step it only through
    :meth:`step`). ``state()`` is the whole table for a centralised critic (every hand: see
    :data:`STATE_LAYOUT`), ``state_space`` its space."""

    metadata = {"name": "guigang_tractor_v0", "render_modes": ["ansi", "human"], "is_parallelizable": False}

    def __init__(
        self, profile: str = "guigang", fast_deal: bool = False, render_mode: Optional[str] = None,
        auto_forced: bool = False, obs_version: int = 1,
    ) -> None:
        super().__init__()
        self.auto_forced = _bool(auto_forced, "auto_forced")
        enc = _obs_version(obs_version)
        self.obs_version: int = enc["version"]
        if render_mode not in (None, "ansi", "human"):
            raise InvalidArgument(f"render_mode must be None, 'ansi' or 'human', got {_show(render_mode)}")
        self.profile = profile
        self.fast_deal = fast_deal
        self.render_mode = render_mode
        self.possible_agents = list(_AGENTS)
        self.agents = []
        obs = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, (enc["dim"],), np.float32),
                "action_mask": spaces.Box(0, 1, (_actions.NUM_ACTIONS,), np.int8),
            }
        )
        # one object per agent, kept: seeding a space must stick (PettingZoo's API test)
        self.observation_spaces = {a: obs if i == 0 else _copy_space(obs) for i, a in enumerate(_AGENTS)}
        self.action_spaces = {a: spaces.Discrete(_actions.NUM_ACTIONS) for a in _AGENTS}
        self.state_space = spaces.Box(0.0, 1.0, (STATE_DIM,), np.float32)
        self._hands = _Hands()
        self.game = _deal(0, profile, fast_deal)  # checks the arguments now; replaced by reset()

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None) -> None:
        """A new hand: hand 0 of the stream ``seed`` when given, else the stream's next hand
        (the first reset without a seed draws the stream from the OS)."""
        self.game = _deal(self._hands.next(seed), self.profile, self.fast_deal)
        forced = self._take_forced()
        while self.game.phase == "over":  # no decision at all (a stopped deal, R8.5): next hand
            self.game = _deal(self._hands.next(), self.profile, self.fast_deal)
            forced = self._take_forced()
        self.agents = list(_AGENTS)
        self.rewards = {a: 0 for a in self.agents}
        self._cumulative_rewards = {a: 0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: ({"forced": forced[s]} if self.auto_forced else {}) for s, a in enumerate(self.agents)}
        self.agent_selection = _AGENTS[self.game.current_player]

    def _take_forced(self) -> list:
        """With ``auto_forced``, takes the forced ids of whoever is to act until someone has a
        choice or the hand is over; per seat, the ids taken."""
        taken = [0, 0, 0, 0]
        g = self.game
        while self.auto_forced and g.phase != "over":
            mask = g.action_mask()
            if mask.sum() != 1:
                break
            taken[g.current_player] += 1
            g.step(int(np.flatnonzero(mask)[0]))
        return taken

    def observe(self, agent: str) -> Dict[str, np.ndarray]:
        seat = _AGENTS.index(agent)
        mask = np.zeros(_actions.NUM_ACTIONS, dtype=np.int8)
        if self.game.current_player == seat:
            mask[:] = self.game.action_mask()
        return {"observation": self.game.observation_tensor(seat, obs_version=self.obs_version), "action_mask": mask}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self.game.step(action)  # raises IllegalAction, changing nothing, if refused
        if self.auto_forced:  # counted since each agent's last turn
            taken = self._take_forced()
            for s, a in enumerate(_AGENTS):
                before = 0 if a == agent else self.infos[a].get("forced", 0)
                self.infos[a] = {"forced": before + taken[s]}
        self._cumulative_rewards[agent] = 0
        self.rewards = {a: 0 for a in self.agents}
        if self.game.phase == "over":
            for a, r in zip(_AGENTS, _returns(self.game)):
                self.rewards[a] = r
            self.terminations = {a: True for a in self.agents}
        else:
            self.agent_selection = _AGENTS[self.game.current_player]
        self._accumulate_rewards()

    def state(self) -> np.ndarray:
        """The whole table (:data:`STATE_LAYOUT`): seat 0's observation, the other three
        hands, and the trump suit as the declarer knows it. For a centralised critic in
        training: no seat may act on it."""
        return table_state(self.game)

    def render(self) -> Optional[str]:
        if self.render_mode is None:
            return None
        if self.render_mode == "human":
            print(self._text())
            return None
        return self._text()

    def _text(self) -> str:
        g = self.game
        lines = [repr(g)]
        for s in range(4):
            lines.append(f"player_{s}: " + " ".join(str(c) for c in g.hand(s)))
        lines.append("trick: " + "; ".join(f"{s}: {' '.join(map(str, cs))}" for s, cs in g.current_trick))
        if g.pending:
            lines.append("building: " + " ".join(str(c) for c in g.pending))
        return "\n".join(lines)

    def close(self) -> None:
        pass


#: The observation version the state holds: the state's layout is frozen on version 1's
#: observation, whatever ``obs_version`` the agents observe.
_STATE_OBS = _actions.OBS_ENCODINGS[1]

#: The blocks of :meth:`raw_env.state`: (name, length, meaning).
STATE_LAYOUT = (
    ("observation", _STATE_OBS["dim"], "seat 0's observation tensor, version 1 (its hand, the public state)"),
    ("hand1", 54, "seat 1's hand: copies of each kind / 4"),
    ("hand2", 54, "seat 2's hand"),
    ("hand3", 54, "seat 3's hand"),
    ("trump", 5, "the trump suit as the declarer knows it: s h d c, or none yet (one-hot)"),
)
STATE_DIM = sum(n for _, n, _ in STATE_LAYOUT)


def table_state(g: Any) -> np.ndarray:
    """The state of :data:`STATE_LAYOUT` for a :class:`tractor.Game`."""
    out = np.zeros(STATE_DIM, np.float32)
    at = _STATE_OBS["dim"]
    g.observation_tensor(0, out=out[:at], obs_version=_STATE_OBS["version"])
    for s in (1, 2, 3):
        out[at : at + 54] = np.frombuffer(g._g.hand(s), np.uint8) / 4
        at += 54
    d = g.declarer
    t = None if d is None else g.known_trump(d)
    out[at + (4 if t is None else _core.SUITS.index(t))] = 1.0
    return out


def _copy_space(space: spaces.Dict) -> spaces.Dict:
    return spaces.Dict({k: spaces.Box(v.low, v.high, v.shape, v.dtype) for k, v in space.spaces.items()})
