"""The documented seed derivation (docs/determinism.md), public: ``derive(seed, tag, index)``
gives every stream the engine uses, so a loop written by hand reproduces a bulk run's hands
(with :class:`tractor.Player`, each seat deciding from its own stream)."""

from __future__ import annotations

from typing import Any, Dict

from . import _core
from ._args import _int, _seed, _show
from .errors import InvalidArgument

__all__ = ["TAGS", "derive"]

TAGS: Dict[str, int] = {
    "deal": _core.DEAL_TAG,
    "match_hand": _core.MATCH_HAND_TAG,
    "batch_hand": _core.BATCH_HAND_TAG,
    "policy": _core.POLICY_TAG,
    "search": _core.SEARCH_TAG,
    "vec_env": _core.VEC_ENV_TAG,
    "match": _core.MATCH_TAG,
    "teacher": _core.TEACHER_TAG,
}
"""The streams' tags by name (frozen: docs/determinism.md)."""


def derive(seed: int, tag: Any, index: int) -> int:
    """``mix(mix(seed ^ tag) ^ index)``, SplitMix64's output function ``mix``: the seed of
    stream ``index`` of kind ``tag`` (a name of :data:`TAGS` or its number) under ``seed``.
    ``derive(s, "batch_hand", i)`` is hand i of ``simulate(seed=s)``, and seat p of that hand
    decides from ``derive(hand_seed, "policy", p)``. Raises InvalidArgument (a seed or index
    not in 0..2**64-1, an unknown tag)."""
    if isinstance(tag, str):
        if tag.lower() not in TAGS:
            raise InvalidArgument(f"tag: unknown tag {tag!r}: expected one of {', '.join(TAGS)} or a number")
        t = TAGS[tag.lower()]
    elif isinstance(tag, bool):
        raise InvalidArgument(f"tag must be a name or an int, got {_show(tag)}")
    else:
        t = _int(tag, "tag")
    return _core.derive_seed(_seed(seed), t, _int(index, "index"))
