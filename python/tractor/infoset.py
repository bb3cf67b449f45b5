"""What one seat knows: :class:`InfoSet`, everything public, everything private to the seat,
and what the history proves about the other hands (numpy arrays), as :meth:`tractor.Game.info`
gives it. Search (:mod:`tractor.search`) and determinization start from it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from ._args import _seat
from .cards import CARDS, SUITS, Card

__all__ = ["InfoSet"]

_SUITS = SUITS
_CLASS_NAMES = ("s", "h", "d", "c", "trump")


@dataclass(frozen=True)
class InfoSet:
    """What one seat knows. Arrays are numpy; seats are absolute (0..3)."""

    seat: int
    profile: str
    phase: str
    level: int
    levels: Tuple[int, int]
    banker: Optional[int]
    hand_index: int
    trump: Optional[str]
    """The trump suit once public (after the deal), else None."""
    declarer: Optional[int]
    declared_count: int
    first_seats: Tuple[int, ...]
    """The first receiver of each deal attempt (R1.3, R8.5); empty for given hands."""
    cards_dealt: int
    showings: List[Tuple[int, int, int, int, Optional[str]]]
    """(attempt, cards dealt, seat, count, suit or None where hidden, R8.2)."""
    arrivals: List[List[Card]]
    """The seat's own cards in arrival order, per attempt."""
    own_decisions: List[Tuple[int, int, str]]
    asked: List[Tuple[int, int, int]]
    """Who was asked to decide while dealing, in order: (attempt, cards dealt, seat), the seat
    asked now last while the deal goes on. Public: the default deal mode skips seats with
    nothing to show (D7), so a seat asked could show then and a seat skipped could not."""
    hand: np.ndarray
    """(54,) the seat's hand as counts."""
    hand_sizes: Tuple[int, int, int, int]
    played: np.ndarray
    """(4, 54) cards each seat has played."""
    unseen: np.ndarray
    """(54,) copies the seat cannot see (in other hands or undealt)."""
    voids: np.ndarray
    """(4, 5) bool: seat proven void in class s, h, d, c, trump (R5.2)."""
    lower: np.ndarray
    """(4, 54) what each hand now must hold at least (a shown trump stays until played, R8.6)."""
    upper: np.ndarray
    """(4, 54) what each hand now can hold at most (voids and the ladder, R5.2-R5.3)."""
    checks: int
    """Follows whose legality depends on the rest of the hand (rechecked in every world)."""
    runs: List[Tuple[int, int, Optional[str], List[Tuple[int, int]]]]
    """Showings grouped into runs of one seat and one suit: (seat, attempt, suit or None,
    [(cards dealt, count)]): that seat then held that many level cards of one suit."""
    to_move: Optional[int]
    defender_points: int

    def proven_voids(self, seat: int) -> List[str]:
        """The classes ``seat`` is proven void in (R5.2), by name ("s", "h", "d", "c",
        "trump"), once the trump suit is public; the trump suit's plain class, empty for
        everyone, is left out. Raises InvalidSeat."""
        seat = _seat(seat)
        if self.trump is None:
            return []
        return [name for c, name in enumerate(_CLASS_NAMES) if self.voids[seat][c] and name != self.trump]

    @classmethod
    def _from_core(cls, d: Dict[str, Any]) -> "InfoSet":
        def arr(b: bytes, shape: Tuple[int, ...]) -> np.ndarray:
            return np.frombuffer(b, dtype=np.uint8).reshape(shape).copy()

        suit = lambda s: None if s is None else _SUITS[s]  # noqa: E731
        return cls(
            seat=d["seat"],
            profile=d["profile"],
            phase=d["phase"],
            level=d["level"],
            levels=d["levels"],
            banker=d["banker"],
            hand_index=d["hand_index"],
            trump=suit(d["trump"]),
            declarer=d["declarer"],
            declared_count=d["declared_count"],
            first_seats=tuple(d["first_seats"]),
            cards_dealt=d["dealt"],
            showings=[(a, t, s, k, suit(x)) for a, t, s, k, x in d["showings"]],
            arrivals=[[CARDS[k] for k in a] for a in d["arrivals"]],
            own_decisions=[(a, t, kind) for a, t, kind, _ in d["own_decisions"]],
            asked=[tuple(x) for x in d["asked"]],
            hand=arr(d["hand"], (54,)),
            hand_sizes=d["hand_sizes"],
            played=arr(d["played"], (4, 54)),
            unseen=arr(d["unseen"], (54,)),
            voids=arr(d["voids"], (4, 5)).astype(bool),
            lower=arr(d["lower"], (4, 54)),
            upper=arr(d["upper"], (4, 54)),
            checks=d["checks"],
            runs=[(s, a, suit(x), list(p)) for s, a, x, p in d["runs"]],
            to_move=d["to_move"],
            defender_points=d["defender_points"],
        )
