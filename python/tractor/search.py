"""Search on what a seat knows: its information set, determinization, rollouts, and native
PIMC and ISMCTS (all in Rust, the GIL released).

- :meth:`tractor.Game.info` gives an :class:`InfoSet`: everything public, everything private
  to the seat, and what the history proves about the other hands (numpy arrays).
- :meth:`tractor.Game.determinize` / :meth:`~tractor.Game.determinize_many` give complete
  worlds consistent with it.
- :func:`rollouts`, :func:`pimc` and :func:`ismcts` run the searches; ``"pimc:..."`` and
  ``"ismcts:..."`` are also policies of :func:`tractor.simulate` and the CLI.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from . import _core
from ._args import _count, _seed, _show, _threads
from .cards import CARDS, Card, cards_from_counts
from .errors import InvalidArgument, InvalidPolicy
from .game import Game, Play

__all__ = ["InfoSet", "ActionStat", "SearchResult", "rollouts", "pimc", "ismcts"]

_SUITS = "shdc"


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


@dataclass(frozen=True)
class ActionStat:
    play: Play
    visits: int
    mean: float
    """The searching seat's mean return (levels) over the visits; 0 when unvisited."""


@dataclass(frozen=True)
class SearchResult:
    action: Play
    stats: List[ActionStat]
    """Every candidate weighed, most visited first (PIMC: in candidate order)."""


def _game(g: Any) -> Game:
    if not isinstance(g, Game):
        raise InvalidArgument(f"g must be a tractor.Game, got {type(g).__name__}")
    return g


def _rollout_name(policy: Any, what: str = "policy") -> str:
    if not isinstance(policy, str) or policy.strip().lower() not in ("random", "greedy"):
        raise InvalidPolicy(f"{what}: a rollout policy is 'random' or 'greedy', got {_show(policy)}")
    return policy.strip().lower()


def rollouts(g: Game, n: int, policy: str = "random", seed: int = 0, threads: Optional[int] = None) -> np.ndarray:
    """``n`` playouts of ``g``'s true state to the end with ``policy`` ("random" or "greedy")
    for every seat; an ``(n, 4)`` int32 array of per-seat returns (levels, zero-sum).
    Playout i uses the stream ``derive(seed, SEARCH, i)``: the same for any thread count.

    Raises InvalidArgument (g not a Game; n not in 0..10,000,000; seed; threads not in
    1..1024), InvalidPolicy and ResourceError (the threads cannot be started)."""
    g = _game(g)
    n = _count(n, "n (at most 10,000,000 playouts per call: 16 bytes each)", 10_000_000)
    raw = _core.rollouts(g._g, n, _rollout_name(policy), _seed(seed), _threads(threads))
    return np.frombuffer(raw, dtype="<i4").reshape(n, 4).astype(np.int32)


def _search(g: Game, name: str, seed: int, threads: Optional[int]) -> SearchResult:
    g = _game(g)
    play, stats = _core.run_search(g._g, name, _seed(seed), _threads(threads))
    out = [ActionStat(Play(tuple(cards_from_counts(c))), v, (t / v) if v else 0.0) for c, v, t in stats]
    return SearchResult(Play(tuple(cards_from_counts(play))), out)


def _decimal(c: Any) -> str:
    if type(c).__module__ == "numpy" and type(c).__name__.startswith(("float", "int", "uint")):
        c = c.item()
    if isinstance(c, bool) or not isinstance(c, (int, float)) or c != c or not 0 <= c <= 100:
        raise InvalidArgument(f"c must be a number in 0..100, got {_show(c)}")
    text = f"{c:.3f}"
    if abs(float(text) - c) > 1e-9:
        raise InvalidArgument(f"c has at most three decimals, got {_show(c)}")
    return text


def pimc(
    g: Game,
    worlds: int = 32,
    rollouts: int = 8,
    policy: str = "random",
    seed: int = 0,
    threads: Optional[int] = None,
) -> SearchResult:
    """Perfect-information Monte Carlo for the player to move (play phase): ``worlds`` worlds
    from what the seat knows, ``rollouts`` playouts with ``policy`` per candidate per world;
    the play with the best total return. Candidates: every legal play, or 24 uniform draws
    plus greedy's choice where there are more.

    Raises InvalidArgument (g, worlds, rollouts, seed, threads), InvalidPolicy (policy, or a
    game not in the play phase), NoConsistentWorld and ResourceError."""
    name = f"pimc:worlds={_count(worlds, 'worlds')},rollouts={_count(rollouts, 'rollouts')},rollout={_rollout_name(policy)}"
    return _search(g, name, seed, threads)


def ismcts(
    g: Game,
    iterations: int = 1000,
    c: float = 0.7,
    rollout: str = "random",
    seed: int = 0,
    threads: Optional[int] = None,
    trees: int = 1,
) -> SearchResult:
    """Single-observer ISMCTS with availability counts for the player to move (play phase):
    ``iterations`` iterations split over ``trees`` independent trees (run in parallel on
    ``threads``; the result depends on ``trees``, never on ``threads``). Wide nodes (a void
    follower's millions of plays) widen progressively: see docs/search.md.

    Raises InvalidArgument (g, iterations, c, trees, seed, threads), InvalidPolicy (rollout,
    or parameters out of the policy's range), NoConsistentWorld and ResourceError."""
    name = (
        f"ismcts:iterations={_count(iterations, 'iterations')},c={_decimal(c)},"
        f"rollout={_rollout_name(rollout, 'rollout')},trees={_count(trees, 'trees')}"
    )
    return _search(g, name, seed, threads)
