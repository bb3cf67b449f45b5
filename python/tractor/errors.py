"""Exceptions of tractor-engine: one base class, one subclass per kind of error.

Every error is a ``TractorError``, itself a ``ValueError``. Messages name what was wrong (the
argument) and, for a rule, its id in docs/rules.md (``R5.3 T2: ...``). The classes are defined
here once; the Rust binding maps each core error variant to one of them in one place
(``rust/py/src/errors.rs``). A refused call changes nothing. This module imports nothing of
the package: it is its lowest layer above the binding.

The hierarchy::

    TractorError (ValueError)
    ├── CardParseError          a card token or id that names no card
    ├── TooManyCopies           more than 4 copies of a kind (R1.2)
    ├── InvalidCards            not a string, list of cards or 54-entry count array
    ├── NotACombination         a lead that is no combination (R3.4)
    ├── InvalidPlays            plays of a trick that cannot be compared (R5.1)
    ├── TooManyFollows          more legal follows than the caller's limit
    ├── IllegalAction           an action the game does not allow now
    │   ├── CardsNotInHand, WrongCardCount, IllegalFollow
    │   ├── ForeignHand         a game that is not the match's current hand
    │   └── InvalidRecord       a hand record that is malformed or does not replay
    ├── InvalidArgument         an argument of the wrong kind or out of range
    │   ├── InvalidContext      a bad level, trump suit or profile name
    │   ├── InvalidSeat         a seat, banker or first seat outside 0..3 (R1.1; also an IllegalAction)
    │   ├── InvalidDeal         a deck or hands that cannot start a hand (R1.2-R1.3, R8.4)
    │   ├── InvalidPolicy       an unknown policy or a bad policy parameter
    │   ├── UnknownColumn       a results column that does not exist (also a KeyError)
    │   └── IndexOutOfRange     an index past the end of a sequence (also an IndexError)
    ├── NoConsistentWorld       no world fits what a seat knows (determinization)
    ├── ResourceError           a thread pool that cannot be started
    ├── RecordsError, IncompleteRun, ResultsFileError, OutputError   (data paths)

One class per fault, whatever the entry point (the checks are ``tractor._args``): a bad seed,
count, index, flag, thread count or path is an InvalidArgument; a bad seat an InvalidSeat; a bad
level, trump suit or profile an InvalidContext; an unknown policy or a bad policy parameter an
InvalidPolicy.
"""

from __future__ import annotations

from typing import Any, Callable, List, Optional

__all__ = [
    "TractorError",
    "CardParseError",
    "TooManyCopies",
    "InvalidCards",
    "InvalidContext",
    "NotACombination",
    "InvalidPlays",
    "CardsNotInHand",
    "WrongCardCount",
    "TooManyFollows",
    "IllegalFollow",
    "IllegalAction",
    "InvalidArgument",
    "InvalidSeat",
    "InvalidDeal",
    "InvalidPolicy",
    "ForeignHand",
    "InvalidRecord",
    "NoConsistentWorld",
    "ResourceError",
    "UnknownColumn",
    "IndexOutOfRange",
    "RecordsError",
    "IncompleteRun",
    "ResultsFileError",
    "OutputError",
]


class TractorError(ValueError):
    """Base class of every error the engine raises."""


class CardParseError(TractorError):
    """A card token or id that does not name a card."""


class TooManyCopies(TractorError):
    """More than 4 copies of one kind (R1.2: four decks)."""


class InvalidCards(TractorError):
    """An argument that is not a string, a list of cards, or a 54-entry count array."""


class NotACombination(TractorError):
    """A lead that is not one unit or one tractor (R3.4: no throws)."""


class InvalidPlays(TractorError):
    """Plays of a trick that cannot be compared (wrong number or sizes)."""


class IllegalAction(TractorError):
    """An action the game does not allow now; the game is left unchanged."""


class CardsNotInHand(IllegalAction):
    """A play with cards the player does not hold."""


class WrongCardCount(IllegalAction):
    """A follow of another size than the lead (R5.1)."""


class TooManyFollows(TractorError):
    """More legal follows than the caller's limit."""


class IllegalFollow(IllegalAction):
    """A follow the ladder forbids (R5.2-R5.3).

    Attributes: ``rule`` (e.g. ``"R5.3 T2"``), ``required_tier`` (the tier the ladder demanded:
    ``"R5.2"``, ``"T1"``..``"T4"``), ``met_tier`` (the tier the play met) and ``example`` (one
    legal play, as a list of cards).
    """

    #: Turns the binding's example, a 54-entry count array, into a list of cards. Cards sit
    #: above the errors they raise, so ``tractor.cards`` sets it when it loads (before any
    #: call can raise: importing any ``tractor`` module loads the package, and with it cards).
    cards_of_counts: Optional[Callable[[bytes], List[Any]]] = None

    def __init__(
        self,
        message: str,
        rule: str = "",
        required_tier: str = "",
        met_tier: str = "",
        example: Optional[Any] = None,
    ) -> None:
        super().__init__(message)
        self.rule = rule
        self.required_tier = required_tier
        self.met_tier = met_tier
        decode = IllegalFollow.cards_of_counts
        if isinstance(example, (bytes, bytearray)) and decode is not None:
            example = decode(bytes(example))
        self.example = example


class InvalidArgument(TractorError):
    """An argument of the wrong kind or out of range (a seed, a count, a flag, threads, a path,
    a simulation's or the CLI's options); the message names the argument. A rejected call
    changed nothing."""


class InvalidContext(InvalidArgument):
    """A bad level, trump suit or profile name: the same class from every entry point (the rules
    API, Game, Match, VecEnv, simulate, the envs). Also an InvalidArgument, the class
    ``simulate`` raised for a bad profile before."""


class InvalidSeat(InvalidArgument, IllegalAction):
    """A seat, banker or first seat that is not one of the seats 0..3 (R1.1); ``None`` is the
    only way to say "no banker". Also an IllegalAction, the class the Game API raised for a bad
    seat before this class existed."""


class InvalidDeal(InvalidArgument):
    """A deck or set of hands that cannot start a hand: a deck without each kind 4 times
    (R1.2), hands of unequal or zero size (R1.3), no banker with unequal levels (R8.4)."""


class InvalidPolicy(InvalidArgument):
    """An unknown policy name or a bad policy parameter."""


class ForeignHand(IllegalAction):
    """A game given to ``Match.next_hand`` that is not the match's own current hand (another
    match's, a ``from_deal`` game, a hand already scored); the match is left unchanged."""


class InvalidRecord(IllegalAction):
    """A hand record (``Game.from_record``/``from_json``, a binary record) that is malformed,
    or whose replay breaks a rule or does not match its stated result."""


class NoConsistentWorld(TractorError):
    """No complete world fits what the seat knows (determinization)."""


class ResourceError(TractorError):
    """A resource the engine needs, such as a thread pool, could not be had."""


class UnknownColumn(InvalidArgument, KeyError):
    """A results column that does not exist (``results["nope"]``); also a ``KeyError``."""

    def __str__(self) -> str:  # a KeyError would show the repr of its message
        return str(self.args[0]) if self.args else ""


class IndexOutOfRange(InvalidArgument, IndexError):
    """An index past the end of a sequence (``legal_actions()[i]``); also an ``IndexError``,
    so that the sequence protocol holds."""


class ObjectBusy(TractorError):
    """A call found its object in use by another call in a way the binding does not allow.
    Not raised in normal operation: calls on one object from many threads take effect one
    after another (a ``VecEnv``'s wait for each other; a ``Game``'s long calls work on a
    snapshot), see the threads section of the documentation."""


class RecordsError(TractorError):
    """A records file that cannot be read: missing, foreign, truncated, damaged, out of order
    or incomplete.

    Attributes: ``path``; ``index``, the record at fault (None: the file header; the number
    of records for the footer); ``offset``, the byte where its frame (or the footer) starts;
    ``truncated``, whether the file ends inside it; ``incomplete``, whether the file ends
    before its footer (its run did not finish writing it: ``read_records(path, partial=True)``
    reads the records it proves). The records before the fault were read whole and checked.
    """

    def __init__(
        self, message: str, path: str = "", index: Optional[int] = None, offset: int = 0, truncated: bool = False,
        incomplete: bool = False,
    ) -> None:
        super().__init__(message)
        self.path = path
        self.index = index
        self.offset = offset
        self.truncated = truncated
        self.incomplete = incomplete


class IncompleteRun(TractorError):
    """Results that do not form one complete run (``merge``): hands missing or twice, or parts
    of different runs. ``missing`` lists the absent index ranges ``(start, end)``, end excluded."""

    def __init__(self, message: str, missing: Optional[Any] = None) -> None:
        super().__init__(message)
        self.missing = list(missing or [])


class ResultsFileError(TractorError):
    """A results file (``.npz``) that cannot be loaded: missing, damaged or not written by
    ``to_npz``."""


class OutputError(TractorError):
    """An output step (a file, a plot) that failed; what could be written was written."""
