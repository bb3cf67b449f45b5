"""The rules API: a :class:`Context` (level, trump, profile) answers every rule question.

Every hand, lead and play argument accepts a string (``"As As Ks Ks"``), a list of
:class:`~tractor.Card`, or a 54-entry count array (numpy included).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

from . import _core
from .cards import CARDS, KINDS, Card, cards_from_counts, to_counts
from ._args import _array, _count, _int, _profile, _seed, _show, _text
from .errors import IllegalAction, InvalidCards, InvalidContext

__all__ = ["Context", "Combo", "Outcome", "outcome", "PROFILES"]

PROFILES: Tuple[str, ...] = tuple(_core.PROFILES)
_U128_MAX = 2**128 - 1
_SUITS = _core.SUITS


@dataclass(frozen=True)
class Combo:
    """One combination (R3): a unit or a tractor."""

    kind: str
    """"single", "pair", "triple", "bomb" or "tractor"."""
    multiplicity: int
    units: int
    is_trump: bool
    cards: List[Card]
    key: int
    """R4.1 comparison key: compare only combinations of equal size; higher wins."""

    @property
    def size(self) -> int:
        return self.multiplicity * self.units


@dataclass(frozen=True)
class Outcome:
    """The result of a hand for the defenders' final score (R7.4)."""

    score: int
    banker_levels: int
    defender_levels: int
    defenders_take_over: bool


def outcome(score: int, profile: str = "guigang") -> Outcome:
    """R7.4 (the nanning clamp and the competition table C7 of §9): levels for the defenders'
    final score.

    Raises InvalidContext: a score that is not an int in -1000000..1000000, an unknown
    profile."""
    score = _int(score, "score", -1_000_000, 1_000_000, InvalidContext)
    return Outcome(*_core.outcome(score, _profile(profile)))


def _level(level: Any, what: str = "level") -> int:
    """A level 3..14, or its text ("3".."10", "J", "Q", "K", "A"); else InvalidContext (R2.1)."""
    if isinstance(level, str):
        return _core.parse_level(_text(level, what, InvalidContext))
    try:
        return _int(level, what, 3, 14, InvalidContext)
    except InvalidContext:
        raise InvalidContext(
            f"R2.1: bad {what} {_show(level)}: levels are 3..14 or '3'..'10', 'J', 'Q', 'K', 'A'"
        ) from None


def _suit(trump: Any, what: str = "trump") -> int:
    """A trump suit: 's', 'h', 'd', 'c' (or a symbol), or its index 0..3; else InvalidContext."""
    if isinstance(trump, str):
        return _core.parse_suit(_text(trump, what, InvalidContext))
    try:
        return _int(trump, what, 0, 3, InvalidContext)
    except InvalidContext:
        raise InvalidContext(f"bad {what} suit {_show(trump)}: expected one of 's', 'h', 'd', 'c'") from None


def _np():
    import numpy

    return numpy


def _matrix(x: Any, what: str):
    np = _np()
    a = _array(x, f"{what}: not an (n, 54) count array", InvalidCards)
    if a.ndim == 1 and a.shape[0] == KINDS:
        a = a[None, :]
    if a.ndim != 2 or a.shape[1] != KINDS:
        raise InvalidCards(f"{what}: expected an (n, 54) count array, got shape {a.shape}")
    if a.dtype.kind not in "iub":
        raise InvalidCards(f"{what}: expected integer counts, got {a.dtype}")
    if a.size and (a.min() < 0 or a.max() > 255):
        raise InvalidCards(f"{what}: counts must be 0..4")
    return np.ascontiguousarray(a, dtype=np.uint8)


class Context:
    """The rules of one hand: level L, trump suit and profile.

    >>> ctx = Context(level=10, trump="h")
    >>> ctx.classify("9h 9h 10h 10h Jh Jh").kind
    'tractor'
    """

    __slots__ = ("_c",)

    def __init__(self, level: Any = 10, trump: Any = "h", profile: str = "guigang") -> None:
        """Raises InvalidContext: a level outside 3..14 (R2.1), a trump suit that is not one of
        s, h, d, c, an unknown profile (names are normalised: ``"NANNING"`` is ``"nanning"``)."""
        self._c = _core.Context(_level(level), _suit(trump), _profile(profile))

    @property
    def level(self) -> int:
        return self._c.level

    @property
    def trump(self) -> str:
        return _SUITS[self._c.trump]

    @property
    def profile(self) -> str:
        return self._c.profile

    def __repr__(self) -> str:
        return f"Context(level={self.level}, trump={self.trump!r}, profile={self.profile!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Context) and (self.level, self.trump, self.profile) == (
            other.level,
            other.trump,
            other.profile,
        )

    def __hash__(self) -> int:
        return hash((self.level, self.trump, self.profile))

    def arrange(self, cards: Any) -> List[List[List[Card]]]:
        """The cards as a player sorts them in this hand: trumps first, then the plain suits
        s, h, c, d (black and red alternate); each class strongest first (R2.3, R2.4); inside
        a class, groups of identical cards, and linked groups of two or more copies (R3.3)
        joined into one tractor group. Returns ``[class][group][cards]``, empty classes left
        out. Raises the card errors (CardParseError, TooManyCopies, InvalidCards)."""
        counts = to_counts(cards)
        cls, strength, up = self._c.classes(), self._c.strengths(), self._c.links()
        out: List[List[List[Card]]] = []
        paired = lambda k: k != 255 and counts[k] >= 2  # noqa: E731
        for c in (4, 0, 1, 3, 2):
            kinds = [k for k in range(KINDS) if counts[k] and cls[k] == c]
            groups: List[List[int]] = []
            used = set()
            for k in sorted(kinds, key=lambda k: (-strength[k], k)):
                if k in used:
                    continue
                top = k  # R3.3: a tractor runs along the links; walk up to its top, then down
                while paired(top) and paired(up[top]) and up[top] != k:
                    top = up[top]
                run = [top]
                while paired(run[-1]):
                    below = next((d for d in kinds if up[d] == run[-1] and paired(d) and d not in run), None)
                    if below is None:
                        break
                    run.append(below)
                used.update(run)
                groups.append(run)
            groups.sort(key=lambda run: (-max(strength[x] for x in run), run[0]))
            if groups:
                out.append([[Card(x) for x in run for _ in range(counts[x])] for run in groups])
        return out

    # -- combinations (R3, R4) -------------------------------------------------------------
    def is_trump(self, card: Any) -> bool:
        """Is the card a trump (R2.2)? Raises CardParseError."""
        return self._c.classes()[int(Card(card))] == 4

    def classify(self, cards: Any) -> Optional[Combo]:
        """The combination the cards form (R3), or None. Raises the card
        errors (CardParseError, TooManyCopies, InvalidCards)."""
        counts = to_counts(cards)
        r = self._c.classify(counts)
        if r is None:
            return None
        kind, m, k, trump, key = r
        return Combo(kind, m, k, trump, cards_from_counts(counts), key)

    def classify_batch(self, counts: Any) -> Dict[str, Any]:
        """Classify every row of an ``(n, 54)`` count array in one call.

        Returns numpy arrays: ``kind`` (0 none, 1 single, 2 pair, 3 triple, 4 bomb, 5 tractor),
        ``multiplicity``, ``units`` (uint8) and ``is_trump`` (bool). Raises InvalidCards (not an
        integer (n, 54) array) and, naming the row, TooManyCopies. Runs in parallel, the GIL
        released.
        """
        np = _np()
        a = _matrix(counts, "counts")
        kind, m, k, t = self._c.classify_batch(a.tobytes())
        return {
            "kind": np.frombuffer(kind, dtype=np.uint8),
            "multiplicity": np.frombuffer(m, dtype=np.uint8),
            "units": np.frombuffer(k, dtype=np.uint8),
            "is_trump": np.frombuffer(t, dtype=np.uint8).astype(bool),
        }

    def legal_leads(self, hand: Any) -> List[List[Card]]:
        """Every distinct combination in the hand (R3.4): each unit at each multiplicity, each
        tractor with its sub-tractors and lower multiplicities. Raises the card
        errors (CardParseError, TooManyCopies, InvalidCards)."""
        return [cards_from_counts(c) for c in self._c.legal_leads(to_counts(hand, "hand"))]

    def trick_winner(self, plays: Sequence[Any]) -> int:
        """Index into ``plays`` (the lead first, 2..4 plays of equal size) of the winner (R6).
        Raises InvalidPlays (not 2..4 plays, or sizes unequal, R5.1), NotACombination (the
        lead, R3.4)
        and the card errors (CardParseError, TooManyCopies, InvalidCards)."""
        if isinstance(plays, (str, bytes)) or not isinstance(plays, Sequence):
            raise InvalidCards("trick_winner takes a list of plays, the lead first")
        return self._c.trick_winner([to_counts(p, f"plays[{i}]") for i, p in enumerate(plays)])

    # -- following (R5) --------------------------------------------------------------------
    def is_legal_follow(self, hand: Any, lead: Any, play: Any) -> bool:
        """Is ``play`` a legal follow from ``hand`` to ``lead``? Raises WrongCardCount (R5.1),
        CardsNotInHand, NotACombination (the lead), InvalidPlays (a hand smaller than the
        lead)
        and the card errors (CardParseError, TooManyCopies, InvalidCards)."""
        return self._c.is_legal_follow(to_counts(hand, "hand"), to_counts(lead, "lead"), to_counts(play, "play"))

    def check_follow(self, hand: Any, lead: Any, play: Any) -> None:
        """Raises :class:`~tractor.errors.IllegalFollow` (rule, tiers, an example) if illegal,
        and the errors of :meth:`is_legal_follow` for bad input."""
        self._c.follow_check(to_counts(hand, "hand"), to_counts(lead, "lead"), to_counts(play, "play"))

    def follow_error(self, hand: Any, lead: Any, play: Any) -> Optional[str]:
        """None if the follow is legal, else why, citing the rule (``"R5.3 T1: ..."``): an
        illegal follow, a play of the wrong size (R5.1) or with cards not held. Malformed
        input (bad cards, a lead that is no combination) still raises."""
        try:
            self.check_follow(hand, lead, play)
        except IllegalAction as e:
            return str(e)
        return None

    def follow_requirement(self, hand: Any, lead: Any) -> Dict[str, Any]:
        """What the ladder demands here: ``tier`` ("R5.2", "T1".."T4"), and for T2-T4 the
        longest tractor ``tractor_cards`` and the ``pairs`` beside it. Under ``competition``
        the tier is C4's list entry ("C4 a triple and a card") or the part of C5's key that
        decides ("C5 E", "C5 L", "C5 p", "C5 t", "C5 any"), with the longest tractor of the
        best key and its pairs. Raises NotACombination, InvalidPlays and the card errors
        (CardParseError, TooManyCopies, InvalidCards)."""
        tier, l, p = self._c.follow_requirement(to_counts(hand, "hand"), to_counts(lead, "lead"))
        return {"tier": tier, "tractor_cards": l, "pairs": p}

    def legal_follows(self, hand: Any, lead: Any, limit: int = 100_000) -> List[List[Card]]:
        """Every distinct legal follow (as multisets). Raises TooManyFollows past ``limit``,
        InvalidArgument (a limit that is not a non-negative int), NotACombination, InvalidPlays
        and the card errors (CardParseError, TooManyCopies, InvalidCards)."""
        limit = min(_count(limit, "limit", 2**1000), _U128_MAX)  # no position has more follows than this
        plays = self._c.legal_follows(to_counts(hand, "hand"), to_counts(lead, "lead"), limit)
        return [cards_from_counts(c) for c in plays]

    def count_legal_follows(self, hand: Any, lead: Any) -> int:
        """The exact number of distinct legal follows (an int, however large). Raises
        NotACombination, InvalidPlays
        and the card errors (CardParseError, TooManyCopies, InvalidCards)."""
        return self._c.count_legal_follows(to_counts(hand, "hand"), to_counts(lead, "lead"))

    def nth_legal_follow(self, hand: Any, lead: Any, index: int) -> List[Card]:
        """The ``index``-th legal follow in the engine's fixed order (that of legal_follows).
        Raises InvalidArgument (an index that is not an int in 0..2**128-1, or past the last
        follow), NotACombination, InvalidPlays
        and the card errors (CardParseError, TooManyCopies, InvalidCards)."""
        index = _count(index, "index", _U128_MAX)
        return cards_from_counts(self._c.nth_legal_follow(to_counts(hand, "hand"), to_counts(lead, "lead"), index))

    def random_follow(self, hand: Any, lead: Any, seed: int) -> List[Card]:
        """One legal follow, uniform over the distinct legal follows, drawn from xoshiro256**
        seeded with ``seed`` (0 ≤ seed < 2**64): the same on every platform and version. Raises
        InvalidArgument (a seed not in 0..2**64-1), NotACombination, InvalidPlays
        and the card errors (CardParseError, TooManyCopies, InvalidCards)."""
        seed = _seed(seed)
        return cards_from_counts(self._c.random_follow(to_counts(hand, "hand"), to_counts(lead, "lead"), seed))

    def follow_completions(self, hand: Any, lead: Any, partial: Any = ()) -> List[Card]:
        """The kinds that can be added, one card, to the partial selection ``partial`` so that
        it can still be completed to a legal follow (for card-by-card action spaces). Raises
        NotACombination, InvalidPlays
        and the card errors (CardParseError, TooManyCopies, InvalidCards)."""
        p = to_counts(list(partial) if isinstance(partial, tuple) else partial, "partial")
        ok = self._c.follow_completions(to_counts(hand, "hand"), to_counts(lead, "lead"), p)
        return [CARDS[i] for i in range(KINDS) if ok[i]]

    def is_legal_follow_batch(self, hands: Any, leads: Any, plays: Any):
        """Legality of ``n`` follows in one call: ``(n, 54)`` count arrays (a single ``(54,)``
        lead or hand is broadcast). Returns a numpy bool array; a play of the wrong size or not
        in the hand is illegal. Raises InvalidCards (arrays of another shape or dtype, or rows
        that do not match) and, naming the first bad row, TooManyCopies, NotACombination (a
        lead) and InvalidPlays (a hand smaller than its lead). Runs in parallel, the GIL
        released."""
        np = _np()
        p = _matrix(plays, "plays")
        n = p.shape[0]
        h = _matrix(hands, "hands")
        ld = _matrix(leads, "leads")
        if h.shape[0] == 1 and n != 1:
            h = np.repeat(h, n, axis=0)
        if ld.shape[0] == 1 and n != 1:
            ld = np.repeat(ld, n, axis=0)
        if h.shape[0] != n or ld.shape[0] != n:
            raise InvalidCards(f"hands, leads and plays must have the same number of rows ({h.shape[0]}, {ld.shape[0]}, {n})")
        r = self._c.is_legal_follow_batch(h.tobytes(), ld.tobytes(), p.tobytes())
        return np.frombuffer(r, dtype=np.uint8).astype(bool)
