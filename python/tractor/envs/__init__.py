"""Adapters to the learning libraries, each an optional extra:

- :mod:`tractor.envs.pettingzoo`: a PettingZoo AEC environment (``pip install
  "tractor-engine[pettingzoo]"``);
- :mod:`tractor.envs.openspiel`: an OpenSpiel Python game, ``python_guigang_tractor``
  (``[openspiel]``);
- :mod:`tractor.envs.gym`: a single-agent Gymnasium environment against built-in policies
  (``[gym]``);
- :mod:`tractor.envs.sb3`: Stable-Baselines3's vectorized environment over
  :class:`tractor.VecEnv`, masks for sb3-contrib's ``MaskablePPO`` (``[sb3]``, which brings
  torch).

They only translate: action ids are :mod:`tractor.actions`' ids, observations are
:meth:`tractor.Game.observation_tensor`, masks :meth:`tractor.Game.action_mask`, rewards the
per-seat returns of :attr:`tractor.Result.returns`; everything they know about the game they
ask the core. Importing this package imports none of the libraries; each module raises an
``ImportError`` naming its extra when its library is missing.

Episodes: one hand, dealt as the first hand of a match (both teams at level 3, the final
declarer becomes banker, R8.4) from ``Game.deal(hand_seed, every_receiver=True)``. Hand k
after ``reset(seed=s)`` is dealt from ``derive(s, BATCH_HAND, k)`` (the project's seed
derivation). For whole matches (levels carried over), use :class:`tractor.VecEnv`.
"""

from __future__ import annotations

import importlib
from typing import Any, Optional, Tuple

import numpy as np

from .. import _core
from .._args import _bool, _seed
from ..game import Game

__all__: list = []  # the adapters are submodules, each imported on use (its library may be missing)

_SEED_MASK = (1 << 64) - 1


def _require(module: str, extra: str, adapter: str) -> Any:
    """Imports ``module`` or raises an ImportError that names the extra to install."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise ImportError(
            f"tractor.envs.{adapter} needs the {module!r} package: pip install \"tractor-engine[{extra}]\""
        ) from e


def _returns(g: Game) -> Tuple[int, int, int, int]:
    """Per-seat returns of a finished hand; zero for a deal stopped without a result (R8.5)."""
    r = g.result
    return (0, 0, 0, 0) if r is None else r.returns


class _Hands:
    """The hand seeds of an environment: ``reset(seed=s)`` starts the stream ``s`` at hand 0,
    ``reset()`` moves to the next hand (the first reset without a seed draws ``s`` from the
    OS). Hand k of stream s is dealt from ``derive(s, BATCH_HAND, k)``."""

    def __init__(self) -> None:
        self.base: Optional[int] = None
        self.index = 0

    def next(self, seed: Any = None) -> int:
        if seed is not None:
            self.base, self.index = _seed(seed), 0
        elif self.base is None:
            self.base, self.index = int(np.random.SeedSequence().entropy) & _SEED_MASK, 0
        else:
            self.index += 1
        return _core.derive_seed(self.base, _core.BATCH_HAND_TAG, self.index)


def _policy_seed(hand_seed: int, seat: int, decision: int) -> int:
    """The seed of a built-in policy's ``decision``-th decision for ``seat`` in a hand."""
    return _core.derive_seed(_core.derive_seed(hand_seed, _core.POLICY_TAG, seat), _core.POLICY_TAG, decision)


def _deal(hand_seed: int, profile: str, fast_deal: bool) -> Game:
    return Game.deal(hand_seed, profile=profile, every_receiver=not _bool(fast_deal, "fast_deal"))
