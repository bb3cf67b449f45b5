"""tractor-engine: a fast, exact rule engine for Guigang Tractor (贵港拖拉机).

The rules live in Rust (``tractor._core``); this package presents them, in one-way layers
(``_LAYERS``, lowest first): a module imports only modules of lower layers, never one of its
own layer or above, so the module graph has no cycle (``tests/test_layers.py`` checks every
import line, lazy ones too).
"""

from . import errors
from ._core import __version__
from .playthrough import playthrough
from .cards import CARDS, Card, format, parse, to_counts
from .errors import IllegalAction, IllegalFollow, TractorError
from .game import Declare, Game, LegalPlays, Match, Observation, Pass, Play, Player, Result, Trick
from .seeds import derive
from .sim import MatchResults, SimResults, load, merge, read_records, simulate
from .rules import PROFILES, Combo, Context, Outcome, outcome
from . import search
from . import actions
from .vec_env import VecEnv
from .infoset import InfoSet
from . import arena
from . import nets
from . import agents
from . import train
from . import describe  # tractor.describe.describe(g, seat), apply_text(g, seat, text)
from . import view  # tractor.view.to_html(g)

#: The layers of the package, lowest first; every module is in one (packages by their folder,
#: ``"__init__"`` this module), and imports only from the layers below its own.
_LAYERS = (
    ("_core",),  # the Rust binding
    ("errors",),
    ("_weights",),  # the shipped networks' weights files
    ("_args",),  # the one argument checker
    ("_outputs",),  # files written whole or not at all, Ctrl-C held while they are renamed
    ("seeds",),  # the documented seed derivation
    ("policy_fn",),  # a Python callable at the table
    ("cards",),
    ("rules",),
    ("infoset",),
    ("game",),
    ("records", "playthrough", "actions", "search", "vec_env", "nets", "describe", "view.model", "view.page", "view.saved"),
    ("view", "view.server"),  # the replay page and the HTTP server of the table in the browser
    ("sim.columns", "sim.stats", "sim.ranges", "sim.summary", "sim.table"),
    ("sim.files",),
    ("sim.results",),
    ("sim.loading", "sim.merging", "sim.local"),
    ("ray_backend",),  # beside sim.local: the run loop on a Ray cluster
    ("sim.run",),  # simulate(): checks, then sim.local or ray_backend
    ("sim",),
    ("arena", "agents", "train"),  # pairings over sim.run, ratings; self-play training
    ("envs",),
    ("envs.gym", "envs.openspiel", "envs.pettingzoo", "envs.sb3"),
    ("cli",),
    ("__init__",),
)

__all__ = [
    "__version__",
    "CARDS",
    "Declare",
    "Game",
    "LegalPlays",
    "Match",
    "Observation",
    "Pass",
    "Player",
    "derive",
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
    "arena",
    "nets",
    "agents",
    "actions",
    "VecEnv",
    "InfoSet",
]
