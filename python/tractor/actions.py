"""Frozen action ids for learners, and the tensor observation's layout.

Like the card ids, these never change:

======== =====================================================================
id       meaning
======== =====================================================================
0–53     add one card of that kind (the card id) to the play being built
54       end the lead: play the cards chosen (a legal lead, R3.4)
55       pass (while dealing, R8.1)
56–71    show ``count`` level cards of ``suit``: ``56 + suit × 4 + (count − 1)``
======== =====================================================================

A play is built card by card in ascending kind order, so every legal play is exactly one
sequence of ids: its card ids sorted (repeats adjacent), then 54 if it is a lead. A follow is
played as soon as its N-th card is chosen. ``Game.action_mask()`` allows exactly the ids after
which the selection can still be completed to a legal play, and ``Game.step(id)`` takes one.
"""

from __future__ import annotations

from typing import Any, Dict, List, Sequence, Tuple

import numpy as np

from . import _core
from ._args import _bool, _int, _show
from .cards import CARDS, to_counts
from .errors import InvalidArgument
from .game import Declare, Pass, Play, _action_of
from .rules import _suit

__all__ = [
    "NUM_ACTIONS",
    "END_LEAD",
    "PASS",
    "SHOW",
    "OBS_ENCODINGS",
    "OBS_DIM",
    "OBS_LAYOUT",
    "show_id",
    "encode",
    "decode",
    "describe",
    "TO_CANONICAL",
    "FROM_CANONICAL",
    "OBS_SCALE_U8",
]

NUM_ACTIONS: int = _core.NUM_ACTIONS
END_LEAD: int = _core.END_LEAD
PASS: int = _core.PASS
SHOW: int = _core.SHOW
_SUITS = _core.SUITS

#: Every observation version the core writes, by number (the core's table, defined once in
#: ``encode::observe``): a dict with the ``version``, ``dim`` (the length of an observation),
#: ``layout`` (the blocks: name, offset, length, meaning), ``scale`` and ``scale_u8`` (each
#: entry's denominator as float32 and as uint8). Whatever takes ``obs_version=``
#: (:class:`tractor.VecEnv`, :meth:`tractor.Game.observation_tensor`, the adapters) sizes its
#: arrays from its entry here; version 1 is the default.
OBS_ENCODINGS: Dict[int, Dict[str, Any]] = dict(_core.OBS_ENCODINGS)
#: Length of a version 1 observation (``Game.observation_tensor``, a ``VecEnv`` row, by
#: default): ``OBS_ENCODINGS[1]["dim"]``, kept under this name for version 1.
OBS_DIM: int = OBS_ENCODINGS[1]["dim"]
#: Version 1's blocks: (name, offset, length, meaning); ``OBS_ENCODINGS[1]["layout"]``.
OBS_LAYOUT: Tuple[Tuple[str, int, int, str], ...] = tuple(tuple(b) for b in OBS_ENCODINGS[1]["layout"])  # type: ignore[misc]
#: Per entry of version 1, the denominator of a ``uint8`` observation
#: (``VecEnv(obs_dtype="uint8")``; other versions: ``OBS_ENCODINGS[v]["scale_u8"]``):
#: ``obs_u8 / OBS_SCALE_U8`` is the float32 observation. Entries are whole numbers (copies,
#: cards, one-hot flags), points in steps of 5 (R7.1: points / 5, so 400 points is 80).
OBS_SCALE_U8: np.ndarray = np.asarray(OBS_ENCODINGS[1]["scale_u8"], dtype=np.float32)
OBS_SCALE_U8.setflags(write=False)


#: Row ``t`` (the trump suit 0–3 as the seat knows it, 4 unknown) maps each real action id to
#: its id in renamed suits, as ``canonical_suits=True`` observations rename them (trump first,
#: the other suits in their order; 52–55 unchanged). ``FROM_CANONICAL[t]`` is its inverse:
#: a policy that reads canonical observations chooses id ``j`` and plays
#: ``FROM_CANONICAL[t, j]``; its mask in renamed suits is ``mask[FROM_CANONICAL[t]]``.
#: ``VecEnv.known_trumps()`` and ``Game.known_trump(seat)`` give ``t``.
TO_CANONICAL: np.ndarray = np.array([np.frombuffer(bytes(_core.canonical_ids(t)), dtype=np.uint8) for t in range(5)], dtype=np.int64)
FROM_CANONICAL: np.ndarray = np.argsort(TO_CANONICAL, axis=1)
TO_CANONICAL.setflags(write=False)
FROM_CANONICAL.setflags(write=False)


def show_id(suit: Any, count: int) -> int:
    """The id of showing ``count`` (1–4) level cards of ``suit`` (as a trump suit is given:
    ``"s"``, ``"H"``, ``"♦"`` or 0..3). Raises InvalidArgument (count) and InvalidContext
    (suit)."""
    count = _int(count, "count", 1, 4)
    return SHOW + _suit(suit, "showing") * 4 + count - 1


def encode(action: Any, lead: bool = False) -> List[int]:
    """The ids of ``action`` (``Pass()``, ``Declare(suit, count)``, a ``Play`` or cards in any
    form ``tractor.to_counts`` takes), in order; a play ends with 54 when ``lead`` is true."""
    lead = _bool(lead, "lead")
    if isinstance(action, Pass):
        return [PASS]
    if isinstance(action, Declare):
        return [show_id(action.suit, action.count)]
    cards = action.cards if isinstance(action, Play) else action
    return list(_core.encode_action("play", 0, 0, to_counts(cards, "action"), lead))


def decode(ids: Sequence[Any]) -> Any:
    """The action a complete id sequence stands for: ``Pass()``, ``Declare(...)`` or ``Play``."""
    if isinstance(ids, (str, bytes)) or not hasattr(ids, "__iter__") or getattr(ids, "ndim", 1) != 1:
        raise InvalidArgument(f"ids must be a sequence of action ids, got {_show(ids)}")
    vals = [_int(x, f"ids[{i}]", 0, NUM_ACTIONS - 1) for i, x in enumerate(ids)]
    return _action_of(*_core.decode_action(vals))


def describe(action_id: int) -> str:
    """A short name for one id: ``'add 5h'``, ``'end lead'``, ``'pass'``, ``'show 2h'``."""
    i = _int(action_id, "action_id", 0, NUM_ACTIONS - 1)
    if i < END_LEAD:  # the card ids
        return f"add {CARDS[i]}"
    if i == END_LEAD:
        return "end lead"
    if i == PASS:
        return "pass"
    s, c = divmod(i - SHOW, 4)
    return f"show {c + 1}{_SUITS[s]}"
