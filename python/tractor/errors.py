"""Exceptions of tractor-engine: one base class, one subclass per kind of error.

Every error is a ``TractorError``, itself a ``ValueError``. Messages name what was wrong and,
for a rule, its id in RULES.md (``R5.3 T2: ...``).
"""

from __future__ import annotations

from typing import Any, Optional

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
    "UnknownColumn",
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


class InvalidContext(TractorError):
    """A bad level, trump suit or profile name."""


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
        if isinstance(example, (bytes, bytearray)):
            from .cards import cards_from_counts

            example = cards_from_counts(example)
        self.example = example


class InvalidArgument(TractorError):
    """An argument of a simulation, merge, load or CLI call that is of the wrong kind or out of
    range; the message names the argument. A rejected call changed nothing."""


class UnknownColumn(InvalidArgument, KeyError):
    """A results column that does not exist (``results["nope"]``); also a ``KeyError``."""

    def __str__(self) -> str:  # a KeyError would show the repr of its message
        return str(self.args[0]) if self.args else ""


class RecordsError(TractorError):
    """A records file that cannot be read: missing, foreign, truncated or damaged.

    Attributes: ``path``; ``index``, the record at fault (None: the file header); ``offset``,
    the byte where its frame starts; ``truncated``, whether the file ends inside it. The records
    before the fault were read whole and checked.
    """

    def __init__(
        self, message: str, path: str = "", index: Optional[int] = None, offset: int = 0, truncated: bool = False
    ) -> None:
        super().__init__(message)
        self.path = path
        self.index = index
        self.offset = offset
        self.truncated = truncated


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
