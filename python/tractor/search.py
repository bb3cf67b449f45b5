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

import math
import time
from dataclasses import dataclass, field
from typing import Any, List, Optional

import numpy as np

from . import _core
from ._args import _bool, _count, _is_bool, _rollout_name, _seed, _show, _threads, _value_name
from .cards import cards_from_counts
from .errors import InvalidArgument, InvalidPolicy
from .game import Game, Play
from .infoset import InfoSet
from .rules import Outcome, outcome

__all__ = ["InfoSet", "ActionStat", "SearchResult", "NO_SCORE", "rollouts", "pimc", "ismcts", "PlayValue", "Solution", "solve", "SOLVE_PARTITION_FROM", "Searcher"]


@dataclass(frozen=True)
class ActionStat:
    play: Play
    visits: int
    mean: float
    """The searching seat's mean return (levels) over the visits; 0 when unvisited."""
    spread: float = 0.0
    """The standard deviation of those returns (0 when unvisited): with ``visits``, what a
    confidence interval of ``mean`` needs."""


@dataclass(frozen=True)
class SearchResult:
    action: Play
    stats: List[ActionStat]
    """Every candidate weighed, most visited first (PIMC: in candidate order)."""
    iterations: int = 0
    """What the search did: ISMCTS the iterations run (all trees), PIMC the worlds weighed
    (fewer than asked when a time budget ran out)."""
    seconds: float = field(default=0.0, compare=False)
    """The search's wall time (reported only, and left out of ``==``: no time decides anything
    without a budget)."""
    reused: int = 0
    """:class:`Searcher`: the visits of the root's plays its kept tree carried into this
    search (0: fresh); ``stats`` include them, ``iterations`` does not."""
    world_values: Optional[np.ndarray] = field(default=None, compare=False)
    """PIMC: an ``(worlds weighed, candidates)`` int64 array, the seat's returns summed over
    each world's rollouts, candidates in ``stats``' order (how the worlds disagree); None for
    ISMCTS."""


def _game(g: Any) -> Game:
    if not isinstance(g, Game):
        raise InvalidArgument(f"g must be a tractor.Game, got {type(g).__name__}")
    return g


#: In ``rollouts(..., value="points")``: a playout whose deal stopped (R8.5) has no score.
NO_SCORE = -(2**31)


def rollouts(
    g: Game, n: int, policy: str = "random", seed: int = 0, threads: Optional[int] = None, value: str = "levels"
) -> np.ndarray:
    """``n`` playouts of ``g``'s true state to the end with ``policy`` (an agent) for every
    seat. ``value="levels"``: an ``(n, 4)`` int32 array of per-seat returns (levels,
    zero-sum); ``value="points"``: an ``(n,)`` int32 array of the defenders' final scores
    (R7.3) of the same playouts, a finer signal (the returns step every 80 points), with
    :data:`NO_SCORE` for a deal that stopped (R8.5, possible only from the deal). Playout i
    uses the stream ``derive(seed, SEARCH, i)``: the same for any thread count.

    Raises InvalidArgument (g not a Game; n not in 0..10,000,000; seed; threads not in
    1..1024; value), InvalidPolicy and ResourceError (the threads cannot be started)."""
    g = _game(g)
    n = _count(n, "n (at most 10,000,000 playouts per call: 16 bytes each)", 10_000_000)
    if value not in ("levels", "points"):
        raise InvalidArgument(f"value must be 'levels' or 'points', got {_show(value)}")
    points = value == "points"
    raw = _core.rollouts(g._g, n, _rollout_name(policy), _seed(seed), _threads(threads), points)
    if points:
        return np.frombuffer(raw, dtype="<i4").astype(np.int32)
    return np.frombuffer(raw, dtype="<i4").reshape(n, 4).astype(np.int32)


def _search(g: Game, name: str, seed: int, threads: Optional[int], per_iteration: int = 0, searcher: Any = None) -> SearchResult:
    """Runs a search policy (or ``searcher``'s kept ISMCTS); ``per_iteration``: PIMC's
    rollouts (visits per world weighed)."""
    g = _game(g)
    seed, threads = _seed(seed), _threads(threads)
    t0 = time.perf_counter()
    reused = 0
    if searcher is None:
        play, stats, worlds = _core.run_search(g._g, name, seed, threads)
    else:
        (play, stats, worlds), reused = searcher.search(g._g, seed, threads)
    dt = time.perf_counter() - t0

    def spread(v: int, t: int, sq: int) -> float:
        # integer sums to the end: the variance of integer returns, then one square root
        return math.sqrt(max(0, v * sq - t * t)) / v if v else 0.0

    out = [ActionStat(Play(tuple(cards_from_counts(c))), v, (t / v) if v else 0.0, spread(v, t, sq)) for c, v, t, sq in stats]
    if per_iteration:
        done = (stats[0][1] // per_iteration) if stats else 0
    else:
        done = sum(v for _, v, _, _ in stats)
    wv = np.array(worlds, dtype=np.int64).reshape(len(worlds), len(stats)) if per_iteration else None
    if reused:
        done -= reused  # the iterations of this search, not those the kept tree carried
    return SearchResult(Play(tuple(cards_from_counts(play))), out, done, dt, reused, wv)


def _time_limit(x: Any) -> str:
    """``,time=S.SSS`` for a time budget in seconds (rounded to milliseconds), "" for None."""
    if x is None:
        return ""
    if type(x).__module__ == "numpy":
        x = x.item()
    if isinstance(x, bool) or not isinstance(x, (int, float)) or x != x or not 0 < x <= 3600:
        raise InvalidPolicy(f"time_limit must be seconds in (0, 3600], got {_show(x)}")
    ms = max(1, round(x * 1000))
    return f",time={ms // 1000}.{ms % 1000:03d}"


def _decimal(c: Any, what: str = "c") -> str:
    if type(c).__module__ == "numpy" and type(c).__name__.startswith(("float", "int", "uint")):
        c = c.item()
    if isinstance(c, bool) or not isinstance(c, (int, float)) or c != c or not 0 <= c <= 100:
        raise InvalidPolicy(f"{what} must be a number in 0..100, got {_show(c)}")
    text = f"{c:.3f}"
    if abs(float(text) - c) > 1e-9:
        raise InvalidPolicy(f"{what} has at most three decimals, got {_show(c)}")
    return text


def pimc(
    g: Game,
    worlds: int = 32,
    rollouts: int = 8,
    policy: str = "random",
    seed: int = 0,
    threads: Optional[int] = None,
    solve: int = 0,
    time_limit: Optional[float] = None,
    value: Optional[str] = None,
    exact_turns: bool = False,
) -> SearchResult:
    """Perfect-information Monte Carlo for the player to move (play phase): ``worlds`` worlds
    from what the seat knows, ``rollouts`` playouts with ``policy`` per candidate per world;
    the play with the best total return. Candidates: every legal play, or 24 uniform draws
    plus greedy's choice where there are more. With ``solve=N`` (policy string
    ``pimc:...,solve=N``), once the seat holds at most N cards every world is solved exactly
    by the open-card solver (:func:`solve`) instead of played out: a candidate's value in a
    world is the return of its minimax score, counted once per rollout. ``time_limit``
    (seconds): the worlds are weighed in rounds of 4 and no round starts once it is spent
    (``iterations`` of the result: the worlds weighed); only without it is the result a
    function of the seed alone. ``value="net:PATH"``: a network with a value head
    (:mod:`tractor.nets`) values each candidate's position in each world instead of its
    rollouts (the return of the defenders' final score it predicts, counted once per rollout).
    ``exact_turns=True`` (policy string ``pimc:...,turns=1``): world w is
    ``g.determinize(seat, derive(seed, SEARCH, w))``'s, exact in the default deal mode, where
    who was asked to decide while dealing is evidence (a world costs several times more);
    by default the worlds' hands come from the play's evidence alone (docs/search.md).

    Raises InvalidArgument (g, seed, threads), InvalidPolicy (worlds, rollouts, policy, solve, time_limit, value, exact_turns:
    the search's parameters, or a game not in the play phase), NoConsistentWorld and
    ResourceError."""
    worlds = _count(worlds, "worlds", error=InvalidPolicy)
    rollouts = _count(rollouts, "rollouts", error=InvalidPolicy)
    solve = _count(solve, "solve (cards a hand, 0..54)", 54, error=InvalidPolicy)
    name = f"pimc:worlds={worlds},rollouts={rollouts},rollout={_rollout_name(policy)}" + (f",solve={solve}" if solve else "")
    name += _time_limit(time_limit) + _value_name(value) + _turns(exact_turns)
    return _search(g, name, seed, threads, per_iteration=rollouts)


def ismcts(
    g: Game,
    iterations: int = 1000,
    c: float = 0.7,
    rollout: str = "random",
    seed: int = 0,
    threads: Optional[int] = None,
    trees: int = 1,
    time_limit: Optional[float] = None,
    solve: int = 0,
    value: Optional[str] = None,
    exact_turns: bool = False,
    first: Optional[str] = None,
    prior: Optional[str] = None,
    bias: Optional[float] = None,
    temp: Optional[float] = None,
    search_from: int = 0,
) -> SearchResult:
    """Single-observer ISMCTS with availability counts for the player to move (play phase):
    ``iterations`` iterations split over ``trees`` independent trees (run in parallel on
    ``threads``; the result depends on ``trees``, never on ``threads``). Wide nodes (a void
    follower's millions of plays) widen progressively: see docs/search.md. ``time_limit``
    (seconds): each tree also stops when it is spent (``iterations`` of the result: the
    iterations run); only without it is the result a function of the seed alone. ``solve=N``:
    a leaf whose hands hold at most N cards each is valued exactly by the open-card solver
    (:func:`solve`) in that iteration's world, in place of a rollout. ``value="net:PATH"``: a
    leaf the solver does not value is valued by that network's value head (:mod:`tractor.nets`:
    the return of the defenders' final score it predicts) in place of a rollout.
    ``exact_turns=True`` (``ismcts:...,turns=1``): each iteration's world is exact in the default
    deal mode, as :func:`pimc`'s. ``first`` (an agent, as ``rollout``; ``ismcts:...,first=AGENT``):
    the policy whose play each new node tries first, greedy's unless given (a play network such
    as ``"play-net-v1"`` guides the tree along its line). ``prior`` (a play network, ``net:PATH``
    of a format-4 file or a shipped one such as ``"play-net-v1"``; ``ismcts:...,prior=NET,bias=B,temp=T``):
    each new node expands the untried candidate the network scores highest, and the selection adds
    ``bias · P · sqrt(availability) / (1 + visits)`` to UCB1, where ``P = 2^(-gap / temp)`` for a
    candidate ``gap`` levels below the network's best (``bias`` in levels, default 1.0; ``temp``
    in levels, default 0.1; both only with ``prior``; not with ``first``). ``search_from=N``
    (``ismcts:...,from=N``, with ``first`` or ``prior``): search only once the seat holds at most
    N cards; before that the guide (``first``'s play, else the prior network's) decides alone,
    declaring included (the result then weighs its one action).

    Raises InvalidArgument (g, seed, threads), InvalidPolicy (iterations, c, rollout, trees, time_limit, solve,
    value, exact_turns, first, prior, bias, temp, search_from: the search's parameters, of the wrong kind or out of the
    policy's range), NoConsistentWorld and ResourceError."""
    return _search(g, _ismcts_name(iterations, c, rollout, trees, time_limit, solve, value, exact_turns, first,
                                   prior, bias, temp, search_from), seed, threads)


def _turns(exact_turns: Any) -> str:
    """``,turns=1`` for worlds that keep who was asked while dealing, "" for the default."""
    return ",turns=1" if _bool(exact_turns, "exact_turns", InvalidPolicy) else ""


def _prior_name(prior: Optional[str], bias: Optional[float], temp: Optional[float]) -> str:
    """``,prior=NET,bias=B,temp=T`` (each given part), or nothing without a prior."""
    if prior is None:
        if bias is not None or temp is not None:
            raise InvalidPolicy("bias and temp weigh a prior: give prior (a play network) too")
        return ""
    name = f",prior={_rollout_name(prior, 'prior')}"
    if bias is not None:
        name += f",bias={_decimal(bias, 'bias')}"
    if temp is not None:
        if _decimal(temp, "temp") == "0.000":
            raise InvalidPolicy(f"temp must be above 0, got {_show(temp)}")
        name += f",temp={_decimal(temp, 'temp')}"
    return name


def _ismcts_name(iterations: int, c: float, rollout: str, trees: int, time_limit: Optional[float], solve: int,
                 value: Optional[str] = None, exact_turns: bool = False, first: Optional[str] = None,
                 prior: Optional[str] = None, bias: Optional[float] = None, temp: Optional[float] = None,
                 search_from: int = 0) -> str:
    name = (
        f"ismcts:iterations={_count(iterations, 'iterations', error=InvalidPolicy)},c={_decimal(c)},"
        f"rollout={_rollout_name(rollout, 'rollout')},trees={_count(trees, 'trees', error=InvalidPolicy)}"
    )
    solve = _count(solve, "solve (cards a hand, 0..54)", 54, error=InvalidPolicy)
    guide = "" if first is None else f",first={_rollout_name(first, 'first')}"
    if first is not None and prior is not None:
        raise InvalidPolicy("first and prior both choose a new node's first play: give one")
    search_from = _count(search_from, "search_from (cards a hand, 0..54)", 54, error=InvalidPolicy)
    if search_from and first is None and prior is None:
        raise InvalidPolicy("search_from leaves the decisions before it to a guide: give first or prior too")
    return (name + (f",solve={solve}" if solve else "") + _time_limit(time_limit) + _value_name(value) + _turns(exact_turns)
            + guide + _prior_name(prior, bias, temp) + (f",from={search_from}" if search_from else ""))


class Searcher:
    """ISMCTS that keeps its trees between one seat's consecutive decisions in a hand: after
    the seat's play and the others', the subtree under the plays actually made starts the next
    search, with the statistics gathered below it so far (``SearchResult.reused`` says how
    many root visits it carried). The parameters are :func:`ismcts`'s. A search of another
    hand, another seat, or after plays the tree never tried starts afresh. Results depend on
    the searches before as well as on the seed (a fresh ``Searcher`` gives :func:`ismcts`'s
    result). Not shared between threads: one searcher per seat."""

    def __init__(
        self,
        iterations: int = 1000,
        c: float = 0.7,
        rollout: str = "random",
        trees: int = 1,
        time_limit: Optional[float] = None,
        solve: int = 0,
        value: Optional[str] = None,
        exact_turns: bool = False,
        first: Optional[str] = None,
        prior: Optional[str] = None,
        bias: Optional[float] = None,
        temp: Optional[float] = None,
        search_from: int = 0,
    ) -> None:
        """Raises InvalidPolicy (a parameter)."""
        self.policy = _ismcts_name(iterations, c, rollout, trees, time_limit, solve, value, exact_turns, first,
                                   prior, bias, temp, search_from)
        self._s = _core.IsmctsSearcher(self.policy)

    def search(self, g: Game, seed: int = 0, threads: Optional[int] = None) -> SearchResult:
        """The decision for the player to move (play phase), growing the kept trees where
        ``g`` continues the hand last searched. Raises as :func:`ismcts`."""
        return _search(g, self.policy, seed, threads, searcher=self._s)

    def __repr__(self) -> str:
        return f"Searcher({self.policy!r})"


@dataclass(frozen=True)
class PlayValue:
    """One play and its value under minimax: the defenders' final score (R7.3), exact when
    ``lower == upper`` (else the bounds a spent node budget left)."""

    play: Play
    lower: int
    upper: int

    @property
    def exact(self) -> bool:
        return self.lower == self.upper

    @property
    def score(self) -> Optional[int]:
        """The exact final score, or None."""
        return self.lower if self.exact else None


@dataclass(frozen=True)
class Solution:
    """What :func:`solve` found. Scores are the defenders' final scores (R7.3, before a
    profile's clamp); ``outcome`` is what R7.4 makes of the position's score."""

    plays: List[PlayValue]
    """Every distinct legal play in the engine's order (lone single leads that are
    interchangeable for the rest of the hand stand behind the first of them)."""
    best: Play
    """The best play for the side to move (ties: the earlier)."""
    lower: int
    upper: int
    line: List[Any]
    """The principal line to the end: (seat, Play) pairs (empty unless exact)."""
    nodes: int
    exact: bool
    outcome: Optional[Outcome]
    """The levels that follow from the exact score (None unless exact)."""

    @property
    def score(self) -> Optional[int]:
        return self.lower if self.exact else None


#: The default node budget of :func:`solve`: about 5 s of search on one core.
SOLVE_BUDGET = 10_000_000

SOLVE_PARTITION_FROM: int = _core.SOLVE_PARTITION_FROM
"""The fewest cards in the largest hand from which :func:`solve` searches by partition search
unless told (measured faster from there: benches/HISTORY.md §49)."""


def solve(g: Game, node_budget: int = SOLVE_BUDGET, *, partition: Optional[bool] = None, threads: Optional[int] = 1) -> Solution:
    """The exact value of every legal play of an open-card position: ``g``'s true hands (a
    world from :meth:`~tractor.Game.determinize`, or a game from
    :meth:`~tractor.Game.from_deal`), the defenders maximising their final score and the
    banker team minimising it, to the end of the hand (R5-R7). Native alpha-beta with a
    transposition table (see docs/search.md); past ``node_budget`` nodes the plays not yet
    solved keep bounds only (``exact`` False). The GIL is released.

    ``partition=True`` searches by partition search: a table entry also serves every position
    that differs from its own only in cards its result did not depend on (the same values and
    best play; fewer nodes, each dearer: faster on the largest ends, slower on small ones, see
    docs/search.md); ``False`` with the table of whole trick starts alone; ``None`` (the
    default) by partition search where a hand holds :data:`SOLVE_PARTITION_FROM` cards or more.

    ``threads`` (None: all cores) search the plays at once, sharing one table: the same
    ``plays``, ``best``, ``lower``, ``upper`` and ``outcome`` for any number of threads; the
    ``nodes`` differ, and with two threads or more the ``line`` is at each step the first play
    in the engine's order that keeps the value (one thread tries first the play its search
    kept: a line of the same value, perhaps another). Past ``node_budget`` (all threads'
    nodes together) which plays got their exact values may differ from run to run. Two
    threads measured about 1.5x faster than one at the median of 9-10 cards a hand on 2
    cores (their table grows in a long search), no faster below about 200 ms
    (docs/search.md); ends within 2**17 nodes are solved by one thread.

    Raises InvalidArgument (g not a Game or not in its play phase, a budget not in
    1..2**63-1, partition neither None nor a bool, threads not None nor in 1..1024) and
    ResourceError (the system starts none of the threads)."""
    g = _game(g)
    budget = _count(node_budget, "node_budget")
    if budget < 1:
        raise InvalidArgument("node_budget must be at least 1")
    if partition is not None and not _is_bool(partition):
        raise InvalidArgument(f"partition must be None, True or False, got {_show(partition)}")
    by_partition = None if partition is None else bool(partition)
    n_threads = _threads(threads)
    plays, best, lo, hi, line, nodes, exact = _core.solve(g._g, budget, by_partition, n_threads)
    vals = [PlayValue(Play(tuple(cards_from_counts(c))), a, b) for c, a, b in plays]
    return Solution(
        plays=vals,
        best=Play(tuple(cards_from_counts(best))),
        lower=lo,
        upper=hi,
        line=[(seat, Play(tuple(cards_from_counts(c)))) for seat, c in line],
        nodes=nodes,
        exact=exact,
        outcome=outcome(lo, g.profile) if exact else None,
    )
