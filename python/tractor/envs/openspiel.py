"""Guigang Tractor as an OpenSpiel Python game (``pip install "tractor-engine[openspiel]"``).

>>> import pyspiel
>>> from tractor.envs import openspiel
>>> openspiel.register()
>>> game = pyspiel.load_game("python_guigang_tractor")   # or "python_guigang_tractor(profile=nanning)"

- Four players, seats 0-3 in play order; sequential; imperfect information; zero-sum; reward
  at the end (``returns()``: levels each seat's team gained minus the other team's, R7.4).
- Chance: the deal is one explicit chance event, the engine's 64-bit deal seed
  (``Game.deal(hand_seed, every_receiver=True)``, the first hand of a match), drawn as its
  eight bytes, one chance node each (256 equally likely outcomes: OpenSpiel lists every outcome
  of a chance node). Redeals (R8.5) follow from the seed inside the engine.
- Actions: the 72 ids of :mod:`tractor.actions`; a play is built card by card, the same player
  acting until it is complete. While dealing, every receiver decides after every card (pass
  being its only action when it cannot show), so the turn order reveals nothing.
- Observation tensor: :meth:`tractor.Game.observation_tensor` in observation version 1
  (``tractor.actions.OBS_ENCODINGS[1]["dim"]`` floats): the information-state tensors, frozen,
  begin with version 1's observation, so this adapter has no ``obs_version``. Information state (string and tensor, perfect recall): the seat's own deal (its
  cards in arrival order per attempt, its decisions), every showing as the seat saw it (R8.2),
  every trick, the trick in progress, and the seat's pending selection; :data:`INFO_LAYOUT`
  lists the tensor's blocks; with the game parameter ``info_state=compact``,
  :data:`INFO_LAYOUT_COMPACT` (the same facts in 2,451 floats instead of 21,351).
  Public-only and private-only observations (``generate_playthrough``'s) split the observation.
  The tensor is the core's (``tractor_core::encode::info_state``), the string is read from
  :meth:`tractor.Game.info` and the public tricks.
- ``resample_from_infostate(player, sampler)``: a world from :meth:`tractor.Game.determinize`
  (seeded by two draws of ``sampler``), which keeps the player's own pending selection.
  The resampled state's ``history()`` is empty: it was not reached through these chance nodes.
  Search with OpenSpiel's Python ISMCTS (``open_spiel.python.algorithms.ismcts.ISMCTSBot``):
  the C++ ``pyspiel.ISMCTSBot`` cannot reach a Python game's resampling and crashes the process
  on any Python game (OpenSpiel's own ``python_kuhn_poker`` too, open_spiel 2.0.2).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, List, Optional, Tuple

import numpy as np

from .. import _core
from .. import actions as _actions
from .._args import _profile
from ..cards import CARDS
from ..game import Game
from . import _require, _returns

pyspiel = _require("pyspiel", "openspiel", "openspiel")

__all__ = ["register", "GAME_NAME", "INFO_LAYOUT", "INFO_LAYOUT_COMPACT", "TractorGame", "TractorState"]

GAME_NAME = "python_guigang_tractor"

_SEED_BYTES = 8

#: The information-state tensor's blocks, (name, shape), as the core lays them out
#: (``tractor_core::encode::info_state``, version ``_core.INFO_VERSION``): the observation,
#: then the deal attempts, showings and tricks the seat saw. Seats are relative to the observer.
INFO_LAYOUT: Tuple[Tuple[str, Tuple[int, ...]], ...] = tuple((name, tuple(shape)) for name, shape, _ in _core.INFO_LAYOUT)
#: The compact information-state tensor (``info_state=compact``, version
#: ``_core.INFO_VERSION_COMPACT``): the same facts, each card's arrival and trick as a number
#: (2,451 floats instead of 21,351).
INFO_LAYOUT_COMPACT: Tuple[Tuple[str, Tuple[int, ...]], ...] = tuple(
    (name, tuple(shape)) for name, shape, _ in _core.INFO_LAYOUT_COMPACT
)


def _utility(profile: str) -> float:
    # the most levels a hand can give a team (R7.4), as the core computes it
    return float(_core.max_levels(profile))


_GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Guigang Tractor (tractor-engine)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=4,
    min_num_players=4,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={"profile": "guigang", "info_state": "full"},
)


def register() -> None:
    """Registers ``python_guigang_tractor`` with pyspiel (again is harmless)."""
    if GAME_NAME not in pyspiel.registered_names():
        pyspiel.register_game(_GAME_TYPE, TractorGame)


class TractorGame(pyspiel.Game):
    """The game; parameters ``profile`` (one of ``tractor.PROFILES``) and ``info_state``:
    ``"full"`` (:data:`INFO_LAYOUT`, version 1, the default) or ``"compact"``
    (:data:`INFO_LAYOUT_COMPACT`, version 2: the same facts in a ninth of the floats, which
    ``rl_environment``'s default information-state observation copies at every step)."""

    def __init__(self, params: Optional[dict] = None) -> None:
        params = dict(params or {})
        profile = _profile(str(params.get("profile", "guigang")))  # InvalidContext, as everywhere
        if str(params.get("info_state", "full")) not in ("full", "compact"):
            raise ValueError(f"info_state must be 'full' or 'compact', got {params.get('info_state')!r}")
        u = _utility(profile)
        info = pyspiel.GameInfo(
            num_distinct_actions=_actions.NUM_ACTIONS,
            max_chance_outcomes=256,
            num_players=4,
            min_utility=-u,
            max_utility=u,
            utility_sum=0.0,
            max_game_length=_core.max_steps(profile),
        )
        super().__init__(_GAME_TYPE, info, params)

    @property
    def profile(self) -> str:
        # from the parameters, not an attribute: pyspiel rebuilds an unpickled game without them
        return str(self.get_parameters().get("profile", "guigang"))

    @property
    def compact(self) -> bool:
        return str(self.get_parameters().get("info_state", "full")) == "compact"

    def new_initial_state(self) -> "TractorState":
        return TractorState(self)

    def max_chance_nodes_in_history(self) -> int:
        return _SEED_BYTES

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> "_Observer":
        """The observation (the default), the information state (``perfect_recall``), and the
        two factors of the observation ``generate_playthrough`` asks for: public only (what
        every seat sees, relative to the player) and private only (the player's hand, its
        selection and the trump suit as it knows it)."""
        if params:
            raise ValueError(f"observation parameters are not supported, got {params!r}")
        if iig_obs_type is None:
            return _Observer("observation")
        single = iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        none = iig_obs_type.private_info == pyspiel.PrivateInfoType.NONE
        if iig_obs_type.perfect_recall:
            if iig_obs_type.public_info and single:
                return _Observer("compact_info_state" if self.compact else "info_state")
        elif iig_obs_type.public_info and single:
            return _Observer("observation")
        elif iig_obs_type.public_info and none:
            return _Observer("public")
        elif not iig_obs_type.public_info and single:
            return _Observer("private")
        raise ValueError(
            "supported observations: the player's own view (public and its private info), with or without "
            f"perfect recall, and without recall its public or its private part alone; got {iig_obs_type}"
        )


class TractorState(pyspiel.State):
    """A state: the deal seed's bytes drawn so far, then the engine's :class:`tractor.Game`
    (a copy: ``state.tractor_game()``)."""

    def __init__(self, game: TractorGame) -> None:
        super().__init__(game)
        self._profile = game.profile
        self._seed_bytes: List[int] = []
        self._game: Optional[Game] = None

    def tractor_game(self) -> Optional[Game]:
        """A copy of the hand being played (None before the deal)."""
        return None if self._game is None else self._game.clone()

    # -- the pyspiel API -----------------------------------------------------------------------
    def current_player(self) -> int:
        g = self._game
        if g is None:
            return pyspiel.PlayerId.CHANCE
        if g.phase == "over":
            return pyspiel.PlayerId.TERMINAL
        return g.current_player

    def _legal_actions(self, player: int) -> List[int]:
        return np.flatnonzero(self._game.action_mask()).tolist()

    def chance_outcomes(self) -> List[Tuple[int, float]]:
        return [(b, 1.0 / 256) for b in range(256)]

    def _apply_action(self, action: int) -> None:
        if self._game is None:
            if not 0 <= action < 256:
                raise ValueError(f"a chance outcome is a byte 0..255, got {action}")
            self._seed_bytes.append(int(action))
            if len(self._seed_bytes) == _SEED_BYTES:
                seed = int.from_bytes(bytes(self._seed_bytes), "little")
                self._game = Game.deal(seed, profile=self._profile, every_receiver=True)
        else:
            self._game.step(action)  # raises IllegalAction, changing nothing, if refused

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal seed byte {len(self._seed_bytes)}: {action}"
        return _actions.describe(action)

    def is_terminal(self) -> bool:
        return self._game is not None and self._game.phase == "over"

    def returns(self) -> List[float]:
        if not self.is_terminal():
            return [0.0] * 4
        return [float(r) for r in _returns(self._game)]

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> "TractorState":
        """A state ``player_id`` cannot tell from this one, drawn with ``probability_sampler``
        (a callable returning floats in [0, 1), such as ``pyspiel.UniformProbabilitySampler``)."""
        state = self.get_game().new_initial_state()
        g = self._game
        if g is None:  # before the deal nobody knows anything: other seed bytes
            for _ in self._seed_bytes:
                state.apply_action(min(255, int(probability_sampler() * 256)))
            return state
        seed = 0
        for _ in range(2):
            seed = (seed << 32) | min(2**32 - 1, int(probability_sampler() * 2**32))
        world = g.determinize(player_id, seed)  # keeps the player's own pending selection
        state._seed_bytes = list(self._seed_bytes)
        state._game = world
        return state

    def __str__(self) -> str:
        g = self._game
        if g is None:
            return f"dealing seed bytes {self._seed_bytes}"
        pending = " ".join(str(c) for c in g.pending)
        return f"{g.to_json()}\npending: {pending}"


# -- observations --------------------------------------------------------------------------------
# Read from the core's raw info set (tractor._core.info, what Game.info presents) and the
# public tricks; card texts come from one table, trick texts from a cache (tricks never change).
_NAMES = [str(c) for c in CARDS]
_SUITS = _core.SUITS


def _ids_text(ids: Any) -> str:
    return " ".join(_NAMES[k] for k in ids) or "-"


def _counts_text(counts: bytes) -> str:
    return " ".join(_NAMES[k] for k, n in enumerate(counts) for _ in range(n)) or "-"


@lru_cache(maxsize=1 << 16)
def _trick_text(leader: int, plays: Tuple[Tuple[int, bytes], ...]) -> str:
    return f"trick {leader}: " + " | ".join(f"{s} {_counts_text(c)}" for s, c in plays)


def _view(state: "TractorState", player: int, history: bool) -> str:
    """The seat's view as text: the state now, and with ``history`` everything it saw."""
    g = state._game
    if g is None:
        return f"seat {player}: before the deal"
    i = _core.info(g._g, player)
    trump = "?" if i["trump"] is None else _SUITS[i["trump"]]
    levels = f"{i['levels'][0]},{i['levels'][1]}"
    out = [f"seat {player} profile {i['profile']} levels {levels} phase {i['phase']}"]
    if history:
        for a, first in enumerate(i["first_seats"]):
            n = sum(1 for d in i["own_decisions"] if d[0] == a)
            out.append(f"deal {a} first {first} decided {n}: {_ids_text(i['arrivals'][a])}")
        for att, dealt, seat, count, suit in i["showings"]:
            shown = "?" if suit is None else _SUITS[suit]  # R8.2: hidden from the others
            out.append(f"show deal {att} card {dealt}: seat {seat} {count}x {shown}")
        for leader, plays, _winner, _points in g._g.tricks():
            out.append(_trick_text(leader, tuple(plays)))
    else:
        out.append(f"declarer {i['declarer']} {i['declared_count']}x dealt {i['dealt']}")
    out.append(f"trump {trump} banker {i['banker']} points {i['defender_points']}")
    out.append("trick now: " + " | ".join(f"{s} {_counts_text(c)}" for s, c in g._g.current_trick()))
    out.append(f"hand: {_counts_text(i['hand'])}")
    if g.current_player == player and g.phase != "over":
        out.append(f"building: {_counts_text(g._g.pending)}")
    return "\n".join(out)


# The observation's blocks that only the observer knows (the rest is public): its hand, its
# selection, and the trump suit as it knows it (R8.2: hidden from the others while dealing).
_OBS = _actions.OBS_ENCODINGS[1]  # the version the information state begins with (see above)
_BLOCKS = {name: (at, n) for name, at, n, _ in _OBS["layout"]}
_PRIVATE = ("hand", "pending", "trump")


def _public_trump(g: Game) -> Optional[str]:
    """The trump suit as every seat knows it: as a seat that did not make the showing does."""
    d = g.declarer
    return g.known_trump(1 if d == 0 else 0)


def _public_text(state: "TractorState", player: int) -> str:
    g = state._game
    if g is None:
        return "before the deal"
    i = _core.info(g._g, player)
    trump = _public_trump(g) or "?"
    return "\n".join([
        f"profile {i['profile']} levels {i['levels'][0]},{i['levels'][1]} phase {i['phase']}",
        f"declarer {i['declarer']} {i['declared_count']}x dealt {i['dealt']}",
        f"trump {trump} banker {i['banker']} points {i['defender_points']}",
        "trick now: " + " | ".join(f"{s} {_counts_text(c)}" for s, c in g._g.current_trick()),
    ])


def _private_text(state: "TractorState", player: int) -> str:
    g = state._game
    if g is None:
        return f"seat {player}: before the deal"
    i = _core.info(g._g, player)
    out = [f"seat {player} hand: {_counts_text(i['hand'])}", f"trump as seat {player} knows it: {g.known_trump(player) or '?'}"]
    if g.current_player == player and g.phase != "over":
        out.append(f"building: {_counts_text(g._g.pending)}")
    return "\n".join(out)


class _Observer:
    """pyspiel's Python observer of one player, as ``tensor`` (with named views in ``dict``)
    and as text: ``kind`` "observation" (:meth:`tractor.Game.observation_tensor`),
    "info_state" (perfect recall, :data:`INFO_LAYOUT`), "compact_info_state"
    (:data:`INFO_LAYOUT_COMPACT`), "public" (the observation with the
    private blocks cleared and trump as every seat knows it) or "private" (the hand, pending
    and trump blocks of the observation)."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        if kind == "info_state":
            shapes = INFO_LAYOUT
        elif kind == "compact_info_state":
            shapes = INFO_LAYOUT_COMPACT
        elif kind == "private":
            shapes = tuple((name, (_BLOCKS[name][1],)) for name in _PRIVATE)
        else:
            shapes = ((INFO_LAYOUT[0][0] if kind == "observation" else "public_observation", INFO_LAYOUT[0][1]),)
        self.tensor = np.zeros(sum(int(np.prod(s)) for _, s in shapes), np.float32)
        self.dict = {}
        at = 0
        for name, shape in shapes:
            n = int(np.prod(shape))
            self.dict[name] = self.tensor[at : at + n].reshape(shape)
            at += n
        self._obs = np.zeros(_OBS["dim"], np.float32)

    def set_from(self, state: "TractorState", player: int) -> None:
        self.tensor.fill(0.0)
        g = state._game
        if g is None:
            return
        if self.kind in ("info_state", "compact_info_state"):
            g._g.information_state_tensor(player, self.tensor, self.kind == "compact_info_state")
        elif self.kind == "observation":
            g.observation_tensor(player, out=self.tensor, obs_version=_OBS["version"])
        else:
            obs = g.observation_tensor(player, out=self._obs, obs_version=_OBS["version"])
            if self.kind == "private":
                for name in _PRIVATE:
                    at, n = _BLOCKS[name]
                    self.dict[name][:] = obs[at : at + n]
            else:
                self.tensor[:] = obs
                for name in _PRIVATE:
                    at, n = _BLOCKS[name]
                    self.tensor[at : at + n] = 0.0
                at, _ = _BLOCKS["trump"]
                t = _public_trump(g)
                self.tensor[at + (4 if t is None else _SUITS.index(t))] = 1.0

    def string_from(self, state: "TractorState", player: int) -> str:
        if self.kind == "public":
            return _public_text(state, player)
        if self.kind == "private":
            return _private_text(state, player)
        return _view(state, player, self.kind != "observation")
