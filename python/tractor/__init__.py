"""tractor-engine: a fast, exact rule engine for Guigang Tractor (贵港拖拉机).

The rules live in Rust (``tractor._core``); this package presents them.
"""

from . import errors
from ._core import __version__
from .playthrough import playthrough
from .cards import CARDS, Card, format, parse, to_counts
from .errors import IllegalAction, IllegalFollow, TractorError
from .game import Declare, Game, LegalPlays, Match, Observation, Pass, Play, Result, Trick
from .sim import MatchResults, SimResults, load, merge, read_records, simulate
from .rules import PROFILES, Combo, Context, Outcome, outcome
from . import search
from . import actions
from .vec_env import VecEnv
from .infoset import InfoSet

__all__ = [
    "__version__",
    "CARDS",
    "Declare",
    "Game",
    "LegalPlays",
    "Match",
    "Observation",
    "Pass",
    "Play",
    "Result",
    "Trick",
    "Card",
    "Combo",
    "Context",
    "IllegalAction",
    "IllegalFollow",
    "Outcome",
    "PROFILES",
    "TractorError",
    "errors",
    "format",
    "outcome",
    "parse",
    "playthrough",
    "to_counts",
    "simulate",
    "SimResults",
    "MatchResults",
    "merge",
    "load",
    "read_records",
    "search",
    "actions",
    "VecEnv",
    "InfoSet",
]
