"""The whole game: :class:`Game` (one hand, 盘) and :class:`Match` (局).

All game flow runs in Rust (``tractor._core``); this module presents it with typed actions,
records and observations. Decisions where the player to move has exactly one option while
cards are dealt (nothing to show: pass) are taken automatically: ``current_player`` is always a
seat with a real choice to make while dealing, or the seat to play.
"""

from __future__ import annotations

import json
import operator
from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, List, Optional, Tuple, Union

import numpy as np

from . import _core
from .cards import CARDS, Card, cards_from_counts, to_counts
from ._args import _bool, _count, _int, _is_bool, _obs_version, _opt_seat, _pair, _profile, _rollout_name, _seat, _seed, _show, _text
from .errors import (
    IllegalAction,
    IndexOutOfRange,
    InvalidArgument,
    InvalidCards,
    InvalidDeal,
    InvalidPolicy,
    InvalidRecord,
    NoConsistentWorld,
    TractorError,
)
from ._weights import resolve
from .infoset import InfoSet
from .rules import Context, _level, _suit

__all__ = [
    "Pass",
    "Declare",
    "Play",
    "Action",
    "LegalPlays",
    "Trick",
    "Result",
    "Showing",
    "Observation",
    "Game",
    "Match",
    "Player",
    "RECORD_FORMAT",
    "RECORD_VERSION",
]

RECORD_FORMAT: str = _core.RECORD_FORMAT  # the JSON hand record's format and version (the core's)
RECORD_VERSION: int = _core.RECORD_VERSION
_SUITS = _core.SUITS


@dataclass(frozen=True)
class Pass:
    """Do not show now (while the cards are dealt)."""


@dataclass(frozen=True)
class Declare:
    """Show ``count`` cards of rank L of ``suit`` (R8.1); counts all shown so far (R8.6)."""

    suit: str
    count: int


@dataclass(frozen=True)
class Play:
    """Play these cards: a lead or a follow."""

    cards: Tuple[Card, ...]

    def __str__(self) -> str:
        return " ".join(str(c) for c in self.cards)


Action = Union[Pass, Declare, Play]


def _action_of(kind: str, suit: int, count: int, cards: bytes) -> Action:
    """The action the core's ``decode_action`` describes."""
    if kind == "pass":
        return Pass()
    if kind == "declare":
        return Declare(_SUITS[suit], count)
    return Play(tuple(cards_from_counts(cards)))


def _play(counts: bytes) -> Play:
    return Play(tuple(cards_from_counts(counts)))


@dataclass(frozen=True)
class Trick:
    leader: int
    plays: List[Tuple[int, List[Card]]]
    winner: int
    points: int


@dataclass(frozen=True)
class Result:
    """The result of a finished hand (R7.3-R7.6)."""

    score: int
    """The defenders' final score as the profile reads it (nanning: clamped to 0..400)."""
    banker_levels: int
    defender_levels: int
    defenders_take_over: bool
    next_banker: int
    returns: Tuple[int, int, int, int]
    """Per seat: levels gained by the seat's team minus the other team's (zero-sum)."""
    raw_score: int
    """The score after the last trick (R7.3), before any clamp."""


@dataclass(frozen=True)
class Showing:
    """A showing as an observer sees it: ``suit`` is None while hidden (R8.2)."""

    seat: int
    count: int
    suit: Optional[str]
    dealt: int
    attempt: int


@dataclass(frozen=True)
class Observation:
    """Everything one seat may know, and nothing more."""

    seat: int
    phase: str
    hand: List[Card]
    hand_sizes: Tuple[int, int, int, int]
    level: int
    trump: Optional[str]
    banker: Optional[int]
    declarer: Optional[int]
    showings: List[Showing]
    current_player: Optional[int]
    current_trick: List[Tuple[int, List[Card]]]
    tricks: List[Trick]
    defender_points: int
    result: Optional[Result]
    first_seat: Optional[int] = None
    """Who received the first card of the current deal attempt (None: given hands)."""
    cards_dealt: int = 0
    arrivals: List[Card] = field(default_factory=list)
    """The seat's own cards in the order they arrived in the current attempt."""
    own_decisions: List[Tuple[int, int, str]] = field(default_factory=list)
    """The seat's own decisions while dealing: (attempt, cards dealt, "pass" or "declare")."""
    levels: Tuple[int, int] = (3, 3)
    hand_index: int = 0
    voids: Tuple[Tuple[bool, ...], ...] = ()
    """Per seat, per class (s, h, d, c, trump): proven void (R5.2); empty while dealing."""
    profile: str = "guigang"
    """The rule set the hand is played under (docs/rules.md §9): public."""


class LegalPlays:
    """The plays allowed now, over the engine's one legal-action set. ``len()`` is exact;
    iteration is lazy (a void follower may have millions of distinct follows); ``in`` checks
    legality (never raises for bad input: it is simply not a legal play); ``sample(seed)``
    draws uniformly over the distinct plays. Every method raises IllegalAction once the game
    has moved on (a stale snapshot)."""

    def __init__(self, game: "_core.Game") -> None:
        self._g = game
        self._at = game.action_count()

    def _check(self) -> None:
        if self._g.action_count() != self._at:
            raise IllegalAction("these legal plays are stale: the game has moved on; call legal_actions() again")

    def count(self) -> int:
        """The exact number of distinct plays (an int, however large)."""
        self._check()
        return self._g.legal_count()

    def __len__(self) -> int:
        return self.count()

    def __getitem__(self, index: int) -> Play:
        """The play at ``index`` (negative from the end). Raises InvalidArgument (not an int),
        IndexOutOfRange (also an IndexError) and IllegalAction (stale)."""
        index = _int(index, "index", -(2**128), 2**128)
        n = self.count()
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexOutOfRange(f"index: play index {index} out of range ({n} plays)")
        return _play(self._g.play_range(index, index + 1)[0])

    def __iter__(self) -> Iterator[Play]:
        self._check()
        n, i, chunk = self._g.legal_count(), 0, 256
        while i < n:
            self._check()
            for c in self._g.play_range(i, min(n, i + chunk)):
                yield _play(c)
            i += chunk

    def __contains__(self, play: Any) -> bool:
        self._check()
        try:
            counts = to_counts(play.cards if isinstance(play, Play) else play, "play")
        except TractorError:
            return False
        return self._g.is_legal_play(counts)

    def sample(self, seed: int) -> Play:
        """One play, uniform over the distinct plays, from xoshiro256** seeded with ``seed``.
        Raises InvalidArgument (a bad seed) and IllegalAction (stale)."""
        seed = _seed(seed)
        self._check()
        return _play(self._g.play_sample(seed))

    def __repr__(self) -> str:
        kind = "leads" if self._g.is_leading() else "follows"
        return f"<LegalPlays {kind}: {self.count()}>"


class Game:
    """One hand of Guigang Tractor, from the deal to the score.

    ``Game(seed=7)`` is the first hand of a new match (both teams at level 3; the final
    declarer becomes banker, R8.4). ``Game.from_deal(hands, level, trump, banker)`` starts at
    the play phase.
    """

    __slots__ = ("_g",)

    def __init__(self, seed: int = 0, profile: str = "guigang") -> None:
        """Raises InvalidArgument (a seed not in 0..2**64-1) and InvalidContext (a profile)."""
        _m, g = _core.Match.create(_seed(seed), _profile(profile))
        self._g = g

    @classmethod
    def _wrap(cls, g: "_core.Game") -> "Game":
        obj = cls.__new__(cls)
        obj._g = g
        return obj

    @classmethod
    def deal(
        cls,
        hand_seed: int,
        levels: Tuple[int, int] = (3, 3),
        banker: Optional[int] = None,
        profile: str = "guigang",
        deck: Optional[List[Any]] = None,
        first_seat: Optional[int] = None,
        redeal_decks: Optional[List[Tuple[List[Any], int]]] = None,
        hand_index: int = 0,
        every_receiver: bool = False,
    ) -> "Game":
        """A hand dealt from ``hand_seed`` (or from ``deck``: 216 cards in dealing order, the
        first to ``first_seat``; ``redeal_decks`` the same for the attempts after a redeal,
        R8.5), with the teams' ``levels`` and ``banker`` (None: the final declarer becomes
        banker); ``hand_index`` is the hand's index in its match (public).

        ``every_receiver=True`` gives every receiver a decision after every card it receives
        (and every seat one in the final round, R8.3), pass being its only action when it
        cannot show; by default the deal skips such seats, which tells everyone who could show.

        Raises InvalidArgument (a seed or hand_index out of range, every_receiver not a bool),
        InvalidContext (levels that are not a pair of levels 3..14, a profile), InvalidSeat (a
        banker or first seat outside 0..3: only None means no banker), InvalidDeal (a deck that
        is not 216 cards with each kind 4 times, first_seat without a deck, no banker with
        unequal levels) and CardParseError (a deck entry that is no card)."""
        every_receiver = _bool(every_receiver, "every_receiver")
        hand_seed = _seed(hand_seed, "hand_seed")
        lv = _pair(levels, "levels")
        lv = (_level(lv[0], "levels[0]"), _level(lv[1], "levels[1]"))
        banker = _opt_seat(banker, "banker")
        profile = _profile(profile)
        if deck is None and first_seat is not None:
            raise InvalidDeal("first_seat goes with a deck; a seeded deal draws its own first seat (R1.3)")
        d = None if deck is None else _deck(deck, "deck")
        first_seat = 0 if first_seat is None else _seat(first_seat, "first_seat")
        more = None
        if redeal_decks is not None:
            if isinstance(redeal_decks, (str, bytes)) or not isinstance(redeal_decks, (list, tuple)):
                raise InvalidDeal(f"redeal_decks must be a list of (deck, first_seat) pairs, got {_show(redeal_decks)}")
            if redeal_decks and d is None:
                raise InvalidDeal("redeal_decks go with a first deck")
            more = []
            for i, pair in enumerate(redeal_decks):
                if isinstance(pair, (str, bytes)) or not isinstance(pair, (list, tuple)) or len(pair) != 2:
                    raise InvalidDeal(f"redeal_decks[{i}] must be a (deck, first_seat) pair, got {_show(pair)}")
                more.append((_deck(pair[0], f"redeal_decks[{i}]"), _seat(pair[1], f"redeal_decks[{i}] first seat")))
        hand_index = _int(hand_index, "hand_index", 0, 2**32 - 1)
        return cls._wrap(
            _core.Game.deal(hand_seed, profile, lv, banker, d, first_seat, more or None, hand_index, every_receiver)
        )

    @classmethod
    def from_deal(
        cls, hands: List[Any], level: Any = 10, trump: Any = "h", banker: int = 0, profile: str = "guigang"
    ) -> "Game":
        """A hand at the play phase from four given hands (equal sizes); the banker leads.

        Raises InvalidCards (not four hands of cards), CardParseError, TooManyCopies (more than
        4 copies of a kind over the four hands, R1.2), InvalidDeal (hands of unequal sizes or
        empty, R1.3), InvalidContext (level, trump, profile) and InvalidSeat (banker)."""
        if isinstance(hands, (str, bytes)) or not isinstance(hands, (list, tuple)) or len(hands) != 4:
            raise InvalidCards(f"hands: from_deal needs a list of four hands, got {_show(hands)}")
        hs = [to_counts(h, f"hands[{i}]") for i, h in enumerate(hands)]
        lv, tr, b, p = _level(level), _suit(trump), _seat(banker, "banker"), _profile(profile)
        return cls._wrap(_core.Game.from_hands(hs, lv, tr, b, p))

    # -- state -------------------------------------------------------------------------------
    @property
    def phase(self) -> str:
        """"declare" while dealing, "play" during the tricks, "over" at the end."""
        return self._g.phase

    @property
    def stopped(self) -> bool:
        """True when three deals in a row had no showing: no result (R8.5)."""
        return self._g.stopped

    @property
    def current_player(self) -> Optional[int]:
        return self._g.current_player

    @property
    def profile(self) -> str:
        return self._g.profile

    @property
    def level(self) -> int:
        return self._g.level

    @property
    def trump(self) -> Optional[str]:
        t = self._g.trump
        return None if t is None else _SUITS[t]

    @property
    def banker(self) -> Optional[int]:
        return self._g.banker

    @property
    def declarer(self) -> Optional[int]:
        return self._g.declarer

    @property
    def declaration(self) -> Optional[Tuple[int, str, int]]:
        """(declarer, suit, count) of the current showing (the whole truth, not an observation)."""
        d = self._g.declaration
        return None if d is None else (d[0], _SUITS[d[1]], d[2])

    @property
    def levels(self) -> Tuple[int, int]:
        return self._g.levels

    @property
    def defender_points(self) -> int:
        """The defenders' points so far, before the last-trick bonus (R7.2)."""
        return self._g.defender_points

    @property
    def context(self) -> Optional[Context]:
        """The rules context once the trump suit is fixed."""
        t = self.trump
        return None if t is None else Context(self.level, t, self.profile)

    def hand(self, seat: int) -> List[Card]:
        """The cards ``seat`` holds (the whole truth). Raises InvalidSeat."""
        return cards_from_counts(self._g.hand(_seat(seat)))

    @property
    def current_trick(self) -> List[Tuple[int, List[Card]]]:
        return [(s, cards_from_counts(c)) for s, c in self._g.current_trick()]

    @property
    def tricks(self) -> List[Trick]:
        return [
            Trick(leader, [(s, cards_from_counts(c)) for s, c in plays], winner, points)
            for leader, plays, winner, points in self._g.tricks()
        ]

    @property
    def result(self) -> Optional[Result]:
        r = self._g.result
        if r is None:
            return None
        raw, score, bl, dl, over, nxt = r
        return Result(score, bl, dl, over, nxt, self._g.returns, raw)  # type: ignore[arg-type]

    # -- actions -----------------------------------------------------------------------------
    def legal_actions(self) -> Union[List[Action], LegalPlays]:
        """While dealing: ``[Pass(), Declare(...), ...]``. While playing: a :class:`LegalPlays`.
        Over: ``[]``."""
        if self._g.phase == "declare":
            return [Pass()] + [Declare(_SUITS[s], k) for s, k in self._g.showings()]
        if self._g.phase == "play":
            return LegalPlays(self._g)
        return []

    def apply(self, action: Any) -> None:
        """Applies a typed action, or a play given as cards, a string or a count array.
        Raises :class:`~tractor.IllegalAction` (an illegal follow: its subclass
        :class:`~tractor.IllegalFollow`; cards not held: CardsNotInHand; a wrong size:
        WrongCardCount), InvalidContext (a Declare's suit), CardParseError, TooManyCopies and
        InvalidCards (cards that are malformed), and changes nothing if it is not allowed."""
        if isinstance(action, Pass) or (isinstance(action, str) and action.strip().lower() == "pass"):
            self._g.apply_pass()
        elif isinstance(action, Declare):
            count = _int(action.count, "R8.1: Declare.count (a showing has 1 to 4 cards)", 1, 4, IllegalAction)
            self._g.apply_declare(_suit(action.suit, "Declare.suit"), count)
        else:
            cards = action.cards if isinstance(action, Play) else action
            self._g.apply_play(to_counts(cards, "play"))

    def step_random(self, seed: int) -> bool:
        """Applies one action of the ``random`` policy (uniform over the distinct legal
        actions) drawn with ``seed``; False when the hand is over. Raises InvalidArgument."""
        return self._g.step_random(_seed(seed))

    def play_random(self, seed: int) -> None:
        """Plays the hand to its end with the ``random`` policy, one xoshiro256** stream
        seeded with ``seed``. Raises InvalidArgument."""
        self._g.play_random(_seed(seed))

    # -- action ids (tractor.actions) ---------------------------------------------------------
    @property
    def every_receiver(self) -> bool:
        """Does every receiver decide after every card (see :meth:`deal`)?"""
        return self._g.every_receiver

    def action_mask(self) -> np.ndarray:
        """The action ids allowed now, as a bool array of 72 (see :mod:`tractor.actions`):
        the cards after which the play being built can still be completed to a legal play in
        ascending kind order, 54 when it is a legal lead, pass and showings while dealing."""
        return np.frombuffer(self._g.action_mask(), dtype=np.uint8).astype(bool)

    def step(self, action_id: Any) -> bool:
        """Takes one action id (see :mod:`tractor.actions`). A card id adds that card to the
        play being built (:attr:`pending`); a follow is played with its N-th card, a lead with
        54. Returns True when an action was applied, False when a card was added (the same
        seat decides again). A refused id raises :class:`~tractor.IllegalAction` naming the
        rule and changes nothing; an id that is not an int in 0..71 raises InvalidArgument."""
        return self._g.step(_int(action_id, "action_id", 0, 71))

    @property
    def pending(self) -> List[Card]:
        """The cards chosen so far for the play being built with :meth:`step`."""
        return cards_from_counts(self._g.pending)

    def clear_pending(self) -> None:
        """Drops the play being built with :meth:`step`. While one is being built, whole
        actions (:meth:`apply`, :meth:`step_policy`, :meth:`step_random`, :meth:`play_random`)
        are refused with IllegalAction rather than dropping it silently."""
        self._g.clear_pending()

    def known_trump(self, seat: int) -> Optional[str]:
        """The trump suit as ``seat`` knows it (R8.2: during the deal only the current
        declarer knows the suit shown), or None. Raises InvalidSeat."""
        t = self._g.known_trump(_seat(seat))
        return None if t is None else _SUITS[t]

    def observation_tensor(self, seat: int, out: Optional[np.ndarray] = None, canonical_suits: bool = False,
                           obs_version: int = 1) -> np.ndarray:
        """What ``seat`` knows, as a float32 vector in observation version ``obs_version``
        (:data:`tractor.actions.OBS_ENCODINGS`, which gives its ``dim``; version 1: 636
        entries, layout :data:`tractor.actions.OBS_LAYOUT`, tabled in docs/learning.md),
        written into ``out`` when given (a contiguous float32 array of that length). It costs
        the same at any point of the hand. ``canonical_suits`` renames the suits so that
        trump, once the seat knows it, is the first suit. Raises InvalidSeat and
        InvalidArgument (``out``, ``canonical_suits`` or an unknown ``obs_version``)."""
        seat = _seat(seat)
        canonical_suits = _bool(canonical_suits, "canonical_suits")
        enc = _obs_version(obs_version)
        dim = enc["dim"]
        if out is None:
            out = np.empty(dim, dtype=np.float32)
        elif not (
            isinstance(out, np.ndarray) and out.dtype == np.float32 and out.shape == (dim,)
            and out.flags.c_contiguous and out.flags.writeable
        ):
            raise InvalidArgument(
                f"out must be a writeable contiguous float32 array of shape ({dim},), got "
                + (f"{out.dtype} {out.shape}" if isinstance(out, np.ndarray) else type(out).__name__)
            )
        self._g.observation_tensor(seat, out, canonical_suits, enc["version"])
        return out

    def clone(self) -> "Game":
        return Game._wrap(self._g.clone())

    def __copy__(self) -> "Game":
        return self.clone()

    def __deepcopy__(self, memo: Any) -> "Game":
        return self.clone()

    def __reduce__(self) -> Any:
        # a game is its record (replayed exactly on unpickling) and the play being built
        return (_restore, (self.to_json(), _pending_ids(self._g.pending)))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and self._g == other._g

    def __repr__(self) -> str:
        return (
            f"<Game {self.phase} level={self.level} trump={self.trump} banker={self.banker} "
            f"to_move={self.current_player} tricks={len(self._g.tricks())}>"
        )

    # -- observation -------------------------------------------------------------------------
    def showings(self) -> List[Showing]:
        """Every showing, with its suit (the whole truth)."""
        return [Showing(seat, k, _SUITS[s], dealt, att) for att, dealt, seat, s, k in self._g.showing_log()]

    def observation(self, seat: int) -> Observation:
        """What ``seat`` may know: its own hand and arrival order, the public plays, and the
        declaring as far as R8.2 reveals it (who showed and how many; a suit only for the
        seat's own showings and, after the deal, for the final declarer's last run).
        Raises InvalidSeat."""
        seat = _seat(seat)
        i = _core.info(self._g, seat)
        shows = [
            Showing(s, k, None if suit is None else _SUITS[suit], dealt, att)
            for att, dealt, s, k, suit in i["showings"]
        ]
        voids = () if i["trump"] is None else tuple(
            tuple(bool(v) for v in i["voids"][5 * p : 5 * p + 5]) for p in range(4)
        )
        return Observation(
            seat=seat,
            phase=self.phase,
            hand=self.hand(seat),
            hand_sizes=i["hand_sizes"],
            level=self.level,
            trump=None if i["trump"] is None else _SUITS[i["trump"]],
            banker=self.banker,
            declarer=i["declarer"],
            showings=shows,
            # while dealing, whose decision it is would tell who can show (R8.2)
            current_player=i["to_move"],
            current_trick=self.current_trick,
            tricks=self.tricks,
            defender_points=self.defender_points,
            result=self.result,
            first_seat=i["first_seats"][-1] if i["first_seats"] else None,
            cards_dealt=i["dealt"],
            arrivals=[CARDS[k] for k in i["arrivals"][-1]] if i["arrivals"] else [],
            own_decisions=[(a, t, kind) for a, t, kind, _ in i["own_decisions"]],
            levels=i["levels"],
            hand_index=i["hand_index"],
            voids=voids,
            profile=self.profile,
        )

    def info(self, seat: int) -> InfoSet:
        """What ``seat`` knows and what the public history proves about the other hands
        (see :class:`tractor.InfoSet`). Raises InvalidSeat."""
        return InfoSet._from_core(_core.info(self._g, _seat(seat)))

    def determinize(self, seat: int, seed: int, exact_turns: bool = True) -> "Game":
        """A complete world that ``seat`` cannot tell from this game: its hand and everything
        it knows unchanged, who was asked to decide while the cards were dealt included
        (:attr:`InfoSet.asked`), the cards it cannot see drawn afresh (see the determinization
        contract, docs/search.md). The world depends only on what the seat knows and ``seed``.
        When ``seat`` is building a play (:attr:`pending`), the world holds the same selection.
        The game keeps its last determinizer: later calls on the same state skip building it
        (a cache only; the worlds are the same).

        ``exact_turns=False`` ignores who was asked (the sampler of ``every_receiver=True``
        games, where it proves nothing): in the default deal mode such a world may ask other
        seats while dealing than this game did, a bias, for cheaper worlds (mid-hand the next
        11.6 µs against 19.9 µs, the first 0.11 ms against 0.71 ms, BENCHMARKS.md). Raises InvalidSeat,
        InvalidArgument (seed, exact_turns) and NoConsistentWorld."""
        return self._worlds(seat, [_seed(seed)], _bool(exact_turns, "exact_turns"))[0]

    def _worlds(self, seat: int, seeds: List[int], exact: bool) -> List["Game"]:
        # (the core gives each world the play being built, when the seat is to move)
        return [Game._wrap(g) for g in _core.determinize(self._g, _seat(seat), seeds, exact)]

    def determinize_many(self, seat: int, n: int, seed: int, exact_turns: bool = True) -> List["Game"]:
        """``n`` worlds (at most 100,000: each is a whole Game); world i equals
        ``determinize(seat, derive(seed, SEARCH, i))`` (``exact_turns``: as there). Raises
        InvalidSeat, InvalidArgument (n, seed, exact_turns) and NoConsistentWorld."""
        seat = _seat(seat)
        n = _count(n, "n (at most 100,000 worlds: each is a whole Game)", 100_000)
        exact = _bool(exact_turns, "exact_turns")
        return self._worlds(seat, _core.search_seeds(_seed(seed), n), exact)

    def playout(self, policy: str = "random", seed: int = 0) -> Tuple[int, int, int, int]:
        """Plays this hand's true state to the end (on a copy) with ``policy`` ("random" or
        "greedy") for every seat; per-seat returns (levels, zero-sum). Raises InvalidPolicy
        and InvalidArgument (seed)."""
        return self._g.playout(_rollout_name(policy), _seed(seed))

    def playout_score(self, policy: str = "random", seed: int = 0) -> Optional[int]:
        """The defenders' final score (R7.3: the last trick's multiple included) of the same
        playout as :meth:`playout` with the same ``policy`` and ``seed``; None if the deal
        stops (R8.5). A finer signal than the returns, which step every 80 points (R7.4).
        Raises InvalidPolicy and InvalidArgument (seed)."""
        return self._g.playout_score(_rollout_name(policy), _seed(seed))

    def step_policy(self, policy: str, seed: int) -> bool:
        """Applies one action of a built-in policy (``"greedy"``, ``"ismcts:iterations=300"``,
        ...) for the player to move, drawn with ``seed``; False when the hand is over.
        Raises InvalidPolicy, InvalidArgument (seed) and ResourceError (a search's threads)."""
        return self._by_policy(self._g.step_policy, policy, seed)

    def policy_ids(self, policy: str, seed: int = 0) -> Optional[List[int]]:
        """The action ids (:mod:`tractor.actions`) of the action a built-in policy would take
        for the player to move: what :meth:`step_policy` with the same ``policy`` and
        ``seed`` applies, here without applying anything (a teacher's answer for behaviour
        cloning). The play being built with :meth:`step` is not part of the decision: the
        teacher's next id is ``ids[len(built)]`` while the ids taken are a prefix of
        ``ids``. None when the hand is over. Raises InvalidPolicy, InvalidArgument (seed) and
        ResourceError (a search's threads)."""
        ids = self._by_policy(self._g.policy_ids, policy, seed)
        return None if ids is None else list(ids)

    def policy_action(self, policy: str, seed: int = 0) -> Optional[Action]:
        """The action of :meth:`policy_ids` as a ``Pass``, ``Declare`` or ``Play``; None when
        the hand is over."""
        ids = self.policy_ids(policy, seed)
        return None if ids is None else _action_of(*_core.decode_action(ids))

    @staticmethod
    def _by_policy(call: Any, policy: str, seed: int) -> Any:
        name, seed = _text(policy, "policy", InvalidPolicy), _seed(seed)
        name = resolve(name) or name  # a shipped network is its weights file; the core reads the other names
        try:  # the core parses the name: checking it before would add a fifth to a random step
            return call(name, seed)
        except InvalidPolicy as e:  # named as _args._policy names a bad policy
            raise InvalidPolicy(f"policy: {e}") from None

    # -- records -----------------------------------------------------------------------------
    def record(self) -> Dict[str, Any]:
        """The hand's record: how it started and every decision, with format and versions
        (the JSON of :meth:`to_json`, as a dict)."""
        return json.loads(self._g.to_json())

    def to_json(self) -> str:
        """The hand's record as compact JSON; the core writes it (``docs/game.md``, records)."""
        return self._g.to_json()

    @classmethod
    def from_record(cls, rec: Dict[str, Any]) -> "Game":
        """Replays a record (a dict as :meth:`record` makes it).

        Raises InvalidRecord (an IllegalAction) if it is malformed, names an unknown format,
        breaks a rule on replay, or states a result its replay does not reach; an illegal
        follow in it raises IllegalFollow. The message says where (``actions[3]: ...``)."""
        if not isinstance(rec, dict):
            raise InvalidRecord(f"a record is a dict (a JSON object), got {type(rec).__name__}")
        try:
            text = json.dumps(rec, default=_json_scalar, allow_nan=False)
        except RecursionError:
            raise InvalidRecord("not a record: it is nested too deeply") from None
        except (TypeError, ValueError) as e:
            raise InvalidRecord(f"malformed record: {_show(e)}") from None
        return cls._wrap(_core.Game.from_json(text))

    @classmethod
    def from_json(cls, text: str) -> "Game":
        """Replays a record from its JSON text (``to_json``). Raises InvalidRecord (not JSON,
        nested too deep, malformed, or not replaying; see :meth:`from_record`). The core reads
        and replays it, as it does the binary records of :mod:`tractor.records`."""
        if isinstance(text, (bytes, bytearray)):
            try:
                text = bytes(text).decode("utf-8")
            except UnicodeDecodeError as e:
                raise InvalidRecord(f"not JSON: {e}") from None
        text = _text(text, "from_json takes the JSON text of a record; text", InvalidRecord)
        return cls._wrap(_core.Game.from_json(text))


def _json_scalar(x: Any) -> Any:
    """numpy integers and bools in a record dict, as JSON numbers and booleans."""
    if _is_bool(x):
        return bool(x)
    try:
        return operator.index(x)
    except TypeError:
        raise TypeError(f"a record holds JSON values, not {type(x).__name__}") from None


def _pending_ids(pending: bytes) -> List[int]:
    """The card ids of a pending selection in build order."""
    if pending.count(0) == len(pending):  # the common case, without a Python loop over 54 kinds
        return []
    return [k for k, n in enumerate(pending) for _ in range(n)]


def _restore(text: str, pending: List[int]) -> "Game":
    """Unpickles a Game: its record replayed, then the play being built. A crafted state
    raises a TractorError, never another exception."""
    g = Game.from_json(text)
    if not isinstance(pending, (list, tuple)):
        raise InvalidArgument(f"a pickled Game's pending play must be a list of card ids, got {_show(pending)}")
    for k in pending:
        g.step(k)
    return g


@dataclass(frozen=True)
class HandSummary:
    index: int
    banker: Optional[int]
    level: int
    trump: Optional[str]
    score: Optional[int]
    """None when the hand stopped after three deals without a showing (R8.5)."""
    levels_after: Tuple[int, int]
    passed_a: Optional[int]


class Match:
    """A match (局): both teams from level 3, hand after hand (R7.4-R7.6, R8.4-R8.5).

    ``m.game`` is the current hand; play it to the end, then ``m.next_hand()``.
    """

    #: The most hands one ``play_random`` call plays (bulk runs: :func:`tractor.simulate`).
    MAX_HANDS = 1_000_000

    def __init__(self, seed: int = 0, profile: str = "guigang") -> None:
        """Raises InvalidArgument (a seed not in 0..2**64-1) and InvalidContext (a profile)."""
        seed = _seed(seed)
        self.seed = seed
        self._m, g = _core.Match.create(seed, _profile(profile))
        self._game = Game._wrap(g)
        self.profile = self._m.state()[1]

    @property
    def game(self) -> Game:
        """The current hand. It may be replaced by another :class:`Game`, but
        :meth:`next_hand` scores only the match's own current hand."""
        return self._game

    @game.setter
    def game(self, g: Game) -> None:
        if not isinstance(g, Game):
            raise InvalidArgument(f"game must be a tractor.Game, got {type(g).__name__}")
        self._game = g

    def __reduce__(self) -> Any:
        return (_match_from_state, (self.seed, self._m.state(), self.game.to_json()))

    def __copy__(self) -> "Match":
        return _match_from_state(self.seed, self._m.state(), self.game.to_json())

    def __deepcopy__(self, memo: Any) -> "Match":
        return self.__copy__()

    def next_hand(self) -> Game:
        """Scores the finished current hand and deals the next (same levels and banker after
        a stopped hand). Raises ForeignHand (``game`` is not this match's own current hand:
        another match's, a ``from_deal`` game, a world, a hand already scored) and
        IllegalAction (the hand is not finished); a refusal changes nothing."""
        self._game = Game._wrap(self._m.next_hand(self._game._g))
        return self._game

    @property
    def levels(self) -> Tuple[int, int]:
        """Levels of team 0 (seats 0, 2) and team 1 (seats 1, 3)."""
        return self._m.levels

    @property
    def banker(self) -> Optional[int]:
        return self._m.banker

    @property
    def winner(self) -> Optional[Tuple[int, int]]:
        """(team, hand index) of the first team to pass A, if any. Under ``competition`` (C8)
        a team passes A by winning a hand as the banker team at level A, and the match ends."""
        return self._m.winner

    @property
    def over(self) -> bool:
        """C8: the match has ended (in a profile whose levels stop at A, ``competition``: a team
        has passed A); ``next_hand`` then raises :class:`IllegalAction`. The core decides
        (``Match::over``)."""
        return self._m.over

    @property
    def history(self) -> List[HandSummary]:
        return [
            HandSummary(i, b, lv, None if t is None else _SUITS[t], s, la, pa)
            for i, b, lv, t, s, la, pa in self._m.history()
        ]

    def play_random(self, hands: Optional[int] = None, until_passed_a: bool = False, seed: int = 0) -> None:
        """Plays hands with the ``random`` policy (hand i with the stream
        ``derive(seed, POLICY, i)``): ``hands`` of them, or until a team passes A, whichever
        comes first (at least one of the two must be given; ``hands`` at most
        ``Match.MAX_HANDS``). Raises InvalidArgument (hands, until_passed_a, seed),
        and ForeignHand (the current game is not the match's own hand)."""
        seed = _seed(seed)
        until_passed_a = _bool(until_passed_a, "until_passed_a")
        if hands is not None:
            hands = _count(hands, f"hands (at most {self.MAX_HANDS:,} per call; bulk runs: tractor.simulate)", self.MAX_HANDS)
        if hands is None and not until_passed_a:
            raise InvalidArgument("hands: give hands=N, until_passed_a=True, or both")
        self._m.check_own(self._game._g)  # before any play: a refusal changes nothing
        k = 0
        while (hands is None or k < hands) and not (until_passed_a and self.winner is not None) and not self.over:
            self.game.play_random(_core.derive_seed(seed, _core.POLICY_TAG, self._m.index))
            self.next_hand()
            k += 1


class Player:
    """A policy deciding from its own stream, as a seat of :func:`tractor.simulate` does:
    ``Player(policy, seed)``; :meth:`step` decides for the player to move and applies it, each
    decision drawing on from where the last one left the stream. Seat p of bulk hand i is
    ``Player(policy, derive(hand_seed, "policy", p))`` with ``hand_seed = derive(seed,
    "batch_hand", i)`` (:func:`tractor.derive`), so a hand-written loop reproduces the run's
    hands exactly (docs/determinism.md)."""

    __slots__ = ("_p",)

    def __init__(self, policy: str, seed: int) -> None:
        """Raises InvalidPolicy and InvalidArgument (a seed not in 0..2**64-1)."""
        from ._args import _policy

        self._p = _core.Player(_policy(policy), _seed(seed))

    @property
    def policy(self) -> str:
        """The policy's canonical name."""
        return self._p.policy

    def step(self, game: Game) -> bool:
        """Decides for ``game``'s player to move and applies the action; False when the hand is
        over. Raises InvalidArgument (not a Game), IllegalAction (a play being built with
        action ids), ObjectBusy and ResourceError (a search's threads)."""
        if not isinstance(game, Game):
            raise InvalidArgument(f"game must be a tractor.Game, got {type(game).__name__}")
        return self._p.step(game._g)

    def __repr__(self) -> str:
        return f"Player({self.policy!r})"


def _match_from_state(seed: int, state: Any, game_json: str) -> Match:
    """Unpickles a Match. A crafted state raises a TractorError, never another exception."""
    m = Match.__new__(Match)
    m.seed = _seed(seed, "a pickled Match's seed")
    try:
        m._m = _core.Match.from_state(state)
    except TractorError:
        raise
    except (TypeError, OverflowError, ValueError) as e:  # PyO3's conversions of a crafted tuple
        raise InvalidArgument(f"a pickled Match's state is not one: {e}") from None
    m.game = Game.from_json(game_json)
    m.profile = m._m.state()[1]
    return m


def _deck(deck: Any, what: str) -> List[int]:
    """216 card ids in dealing order (R1.2), from a list, a tuple or a numpy array of cards."""
    if type(deck).__module__ == "numpy" and getattr(deck, "ndim", None) == 1:
        deck = deck.tolist()
    if isinstance(deck, (str, bytes)) or not isinstance(deck, (list, tuple)):
        raise InvalidDeal(f"{what} must be a list of 216 cards, got {_show(deck)}")
    if len(deck) != 216:
        raise InvalidDeal(f"R1.2: {what} must hold 216 cards, got {len(deck)}")
    return [int(Card(c)) for c in deck]
