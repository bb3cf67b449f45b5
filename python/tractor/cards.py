"""Cards: 54 kinds with frozen ids, notation, and conversion of user input to count arrays.

Kind id = suit × 13 + (rank − 2), suits in the order s, h, d, c; SJ = 52, BJ = 53.
"""

from __future__ import annotations

import operator
from typing import Any, Iterable, List, Optional, Sequence

from . import _core
from ._args import _show, _text
from .errors import CardParseError, IllegalFollow, InvalidCards, TooManyCopies

KINDS: int = _core.KINDS
SUITS: str = _core.SUITS


class Card(int):
    """One card kind, an ``int`` 0..53 with notation: ``Card("As")``, ``Card(12)``."""

    __slots__ = ()

    def __new__(cls, value: Any) -> "Card":
        """A card from its notation or its id 0..53 (an int or a numpy integer). Raises
        CardParseError for anything else (bools, floats, other types, other ids)."""
        if isinstance(value, Card):
            return value
        if isinstance(value, str):
            ids = _core.parse(_text(value, "card", CardParseError))
            if len(ids) != 1:
                raise CardParseError(f"expected one card, got {_show(value)}")
            return CARDS[ids[0]]
        if isinstance(value, bool) or type(value).__name__ in ("bool_", "bool"):
            raise CardParseError(f"not a card: {value!r}")
        try:
            v = operator.index(value)
        except Exception:
            raise CardParseError(f"not a card: {_show(value)} (give a card id 0..53 or its notation)") from None
        if not 0 <= v < KINDS:
            raise CardParseError(f"bad card id {_show(v)}: ids are 0..53")
        return CARDS[v]

    @property
    def id(self) -> int:
        return int(self)

    @property
    def is_joker(self) -> bool:
        return self >= 52

    @property
    def suit(self) -> Optional[str]:
        """'s', 'h', 'd' or 'c'; None for a joker."""
        return None if self.is_joker else SUITS[self // 13]

    @property
    def rank(self) -> Optional[int]:
        """2..14 (A = 14); None for a joker."""
        return None if self.is_joker else self % 13 + 2

    def __str__(self) -> str:
        return _NAMES[self]

    def __repr__(self) -> str:
        return f"Card({str(self)!r})"


#: Each kind's canonical text, as the core writes it (``tractor_core::rules::card``).
_NAMES = tuple(_core.format([k]) for k in range(KINDS))
CARDS = tuple(int.__new__(Card, i) for i in range(KINDS))


def parse(text: str) -> List[Card]:
    """Cards of a text: rank then suit (``As 10h Th 5c``), ``SJ``/``BJ``; ♠♥♦♣ accepted;
    case-insensitive; spaces or commas between cards. Order is kept. Raises CardParseError
    (a token that is no card, a lone surrogate) and InvalidCards (not a string)."""
    if not isinstance(text, str):
        raise InvalidCards(f"parse() takes a string, got {type(text).__name__}")
    return [CARDS[i] for i in _core.parse(_text(text, "cards", CardParseError))]


def format(cards: Any) -> str:
    """The canonical text of cards (``"As As 10h SJ"``), read back by :func:`parse`.
    Order is kept; no check of copies (formatting is not a rule). Raises CardParseError and
    InvalidCards (input that is not cards)."""
    return _core.format([int(c) for c in to_cards(cards)])


def cards_from_counts(counts: Iterable[int]) -> List[Card]:
    """The cards of a 54-entry count array, in kind order (no checks: see :func:`to_counts`)."""
    if isinstance(counts, bytes):
        return [CARDS[i] for i in _core.ids_of_counts(counts)]
    out: List[Card] = []
    for i, n in enumerate(counts):
        out.extend([CARDS[i]] * int(n))
    return out


# The errors sit below the cards (cards raise them): an IllegalFollow's example comes from the
# binding as a count array and becomes cards here.
IllegalFollow.cards_of_counts = cards_from_counts


def _counts_of_ids(ids: Sequence[int], what: str) -> bytes:
    return _core.counts_of_ids(list(ids), what)


def _counts_of_array(values: Sequence[Any], what: str) -> bytes:
    c = bytearray(KINDS)
    for i, v in enumerate(values):
        try:
            n = int(v)
        except (TypeError, ValueError):
            raise InvalidCards(f"{what}: count array entry {i} is not an integer: {v!r}") from None
        if n != v or n < 0:
            raise InvalidCards(f"{what}: count array entry {i} must be a non-negative integer, got {v!r}")
        if n > 4:
            raise TooManyCopies(f"R1.2: {what} holds {n} copies of {CARDS[i]}, but four decks hold only 4")
        c[i] = n
    return bytes(c)


def _is_count_array(x: Sequence[Any]) -> bool:
    """Is a list of 54 plain ints a count array rather than 54 card ids? It is unless the
    values are a valid hand of ids (0..53, at most 4 of each) that is not also a valid count
    array (54 ids cannot all be below 5: five kinds hold only 20 cards)."""
    if len(x) != KINDS or not all(type(c) is int for c in x):  # plain ints: not bool, not Card
        return False
    if min(x) >= 0 and max(x) <= 4:
        return True
    ids_ok = all(0 <= c < KINDS for c in x) and max(x.count(c) for c in set(x)) <= 4
    return not ids_ok


def to_counts(x: Any, what: str = "cards") -> bytes:
    """Converts user input to a 54-byte count array.

    Accepted: a string in notation; a list or tuple of :class:`Card` (or card strings); a
    length-54 count array (numpy or a list of plain ints). A list of plain ints of any other
    length is read as card ids, and so is a list of 54 plain ints that is a valid hand of ids
    but not a valid count array (see ``_is_count_array``).

    Raises CardParseError (a token or id that is no card), TooManyCopies (more than 4 of a
    kind, R1.2) and InvalidCards (anything else); ``what`` names the argument in messages.
    """
    if isinstance(x, str):
        return _core.counts_of_text(_text(x, what, CardParseError), what)
    if isinstance(x, (bytes, bytearray)):
        if len(x) != KINDS:
            raise InvalidCards(f"{what}: a count array needs 54 entries, got {len(x)}")
        return _counts_of_array(list(x), what)
    if type(x).__module__ == "numpy":
        if getattr(x, "ndim", None) != 1 or len(x) != KINDS:
            raise InvalidCards(f"{what}: a numpy count array must have shape (54,), got {getattr(x, 'shape', '?')}")
        if x.dtype.kind not in "iub":
            raise InvalidCards(f"{what}: a numpy count array must hold integers, not {x.dtype}")
        values = x.tolist()
        try:
            b = bytes(values)  # 0..255 integers; the common case, no Python loop
        except (ValueError, TypeError):
            return _counts_of_array(values, what)  # says which entry is wrong
        if max(b) > 4:
            return _counts_of_array(values, what)
        return b
    if isinstance(x, (list, tuple)):
        if len(x) == KINDS and type(x[0]) is int:
            try:
                b = bytes(x)  # C speed: plain ints 0..255
            except (TypeError, ValueError):
                b = None
            if b is not None and max(b) <= 4 and set(map(type, x)) == {int}:
                return b  # a count array (see _is_count_array)
        if x and isinstance(x[0], Card):
            try:
                return _core.counts_of_ids(x, what)  # the common case: a list of Card
            except (TypeError, OverflowError):
                pass  # something else in the list (or an int past 64 bits): the checks below say what
        if all(isinstance(c, Card) for c in x):
            return _counts_of_ids([int(c) for c in x], what)
        if all(isinstance(c, str) for c in x):
            return _counts_of_ids([int(Card(c)) for c in x], what)
        if _is_count_array(x):
            return _counts_of_array(x, what) if max(x) > 4 or min(x) < 0 else bytes(x)
        ids = []
        for c in x:
            if isinstance(c, bool) or not isinstance(c, int):
                raise InvalidCards(f"{what}: not a card: {c!r}")
            ids.append(int(Card(c)))
        return _counts_of_ids(ids, what)
    raise InvalidCards(
        f"{what}: expected a string, a list of cards or a 54-entry count array, got {type(x).__name__}"
    )


def to_cards(x: Any, what: str = "cards") -> List[Card]:
    """Like :func:`to_counts` but keeps the given order for strings and lists; raises as
    :func:`to_counts` does."""
    if isinstance(x, str):
        return parse(x)
    if isinstance(x, (list, tuple)) and not _is_count_array(x):
        return [Card(c) for c in x]
    return cards_from_counts(to_counts(x, what))
