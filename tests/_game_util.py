"""Shared helpers for the game tests (not a test module).

- :func:`build_deck` makes a 216-card deck in dealing order from the positions at which each
  seat receives its level cards (R1.3: card t goes to seat (first_seat + t) % 4, so seat s
  receives its j-th card as card t = 4j + (s - first_seat) % 4, i.e. when ``dealt`` = t + 1).
- :func:`drive_deal` runs the dealing phase with a decision callback and logs every decision.
- :func:`play_out` plays a from_deal hand, taking forced plays automatically.
- :func:`points` counts R7.1 points of a list of cards or a count array.
"""

from __future__ import annotations

import random
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import tractor
from tractor import Card, Pass

SUITS = "shdc"


def is_level_card(kind: int, level: int) -> bool:
    return kind < 52 and kind % 13 + 2 == level


def dealt_when(seat: int, j: int, first_seat: int = 0) -> int:
    """The value of ``dealt`` right after ``seat`` receives its j-th card (0-based)."""
    return 4 * j + (seat - first_seat) % 4 + 1


def build_deck(
    level_cards: Dict[int, Dict[int, str]],
    level: int = 3,
    first_seat: int = 0,
    fill_seed: int = 0,
    fixed: Optional[Dict[int, Dict[int, str]]] = None,
) -> List[Card]:
    """A deck in dealing order. ``level_cards[seat][j]`` is the card ``seat`` receives as its
    j-th card; all 16 level cards must be placed. ``fixed`` places other cards the same way.
    The rest is filled with the remaining non-level cards, shuffled with ``fill_seed``."""
    seqs: List[List[Optional[Card]]] = [[None] * 54 for _ in range(4)]
    pool = [k for k in range(54) for _ in range(4)]
    for placement in (level_cards, fixed or {}):
        for seat, d in placement.items():
            for j, c in d.items():
                assert seqs[seat][j] is None, (seat, j)
                seqs[seat][j] = Card(c)
                pool.remove(int(Card(c)))
    left_level = [k for k in pool if is_level_card(k, level)]
    assert not left_level, f"place every level card: {left_level} left"
    random.Random(fill_seed).shuffle(pool)
    it = iter(pool)
    for seat in range(4):
        for j in range(54):
            if seqs[seat][j] is None:
                seqs[seat][j] = Card(next(it))
    deck = [seqs[(first_seat + t) % 4][t // 4] for t in range(216)]
    assert all(c is not None for c in deck)
    return deck  # type: ignore[return-value]


Decision = Tuple[int, int, list]
"""(dealt, seat, legal_actions) of one decision while dealing."""


def drive_deal(
    g: tractor.Game,
    decide: Optional[Callable[[int, int, list], object]] = None,
    max_steps: int = 100_000,
) -> List[Decision]:
    """Runs the deal: at each decision calls ``decide(dealt, seat, actions)`` (None → Pass)
    and applies its answer. Returns the log of decisions."""
    log: List[Decision] = []
    for _ in range(max_steps):
        if g.phase != "declare":
            return log
        dealt, seat = g._g.dealt, g.current_player
        actions = g.legal_actions()
        log.append((dealt, seat, actions))
        a = decide(dealt, seat, actions) if decide else None
        g.apply(Pass() if a is None else a)
    raise AssertionError("the deal did not end")


def script(moves: Dict[Tuple[int, int], object]) -> Callable[[int, int, list], object]:
    """A decision callback from {(dealt, seat): action}; Pass elsewhere."""

    def decide(dealt: int, seat: int, actions: list) -> object:
        return moves.get((dealt, seat))

    return decide


def play_out(g: tractor.Game, plays: Sequence[object] = ()) -> tractor.Game:
    """Plays to the end: a forced play (one legal play) automatically, otherwise the next of
    ``plays``."""
    todo = list(plays)
    while g.phase == "play":
        lp = g.legal_actions()
        if len(lp) == 1:
            g.apply(lp[0])
        else:
            assert todo, f"seat {g.current_player} has a choice: {list(lp)}"
            g.apply(todo.pop(0))
    assert not todo, f"unused plays {todo}"
    return g


_POINTS = [0] * 54
for _s in range(4):
    _POINTS[_s * 13 + 3] = 5  # 5
    _POINTS[_s * 13 + 8] = 10  # 10
    _POINTS[_s * 13 + 11] = 10  # K


def points(cards) -> int:
    """R7.1 points of a list of cards (ids)."""
    return sum(_POINTS[int(c)] for c in cards)


def points_of_counts(counts) -> int:
    return sum(_POINTS[k] * n for k, n in enumerate(counts))
