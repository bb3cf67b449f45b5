# Type stubs of the Rust extension module tractor._core (count arrays are 54-byte bytes).
#
# Errors: every function raises only classes of tractor.errors (all TractorError, a ValueError),
# mapped from the core's error variants in one place, rust/py/src/errors.rs; each function's
# docstring names them. A Rust panic surfaces as TractorError ("internal error"). Arguments
# are converted by PyO3 before the call: an int out of range or a value of the wrong type
# raises OverflowError or TypeError here, which is why the public API (tractor.*) checks every
# argument before it calls this module. Functions without a docstring raise nothing else.
from typing import Any, Dict, List, Optional, Tuple, final

__version__: str
DEAL_TAG: int
OBS_SCALE: List[int]
OBS_SCALE_U8: List[int]
VEC_ENV_INFO: List[Tuple[str, str]]
TEACHER_TAG: int
NET_FORMAT_VERSION: int
PLAY_DIM: int
GREEDY_WEIGHTS: List[Tuple[str, int, int, int]]
DEAL_SUITES: List[Tuple[str, int, int, int]]
RECORD_FORMAT: str
RECORD_VERSION: int
MATCH_HAND_TAG: int
BATCH_HAND_TAG: int
POLICY_TAG: int
SEARCH_TAG: int
VEC_ENV_TAG: int
MATCH_TAG: int
# the facts defined once in the core (Python, the CLI and the adapters read them)
PROFILES: List[str]
SUITS: str
AGENTS: List[str]
SEARCHES: List[str]
SOLVE_PARTITION_FROM: int
POLICIES: List[str]
PRESETS: List[Tuple[str, str]]
TUNED: List[Tuple[str, str]]
KINDS: int
NUM_ACTIONS: int
END_LEAD: int
PASS: int
SHOW: int
OBS_VERSION: int
INFO_DIM: int
INFO_VERSION: int
INFO_LAYOUT: List[Tuple[str, List[int], str]]
INFO_LAYOUT_COMPACT: List[Tuple[str, List[int], str]]
INFO_DIM_COMPACT: int
INFO_VERSION_COMPACT: int

def max_steps(profile: str) -> int:
    """Raises InvalidContext."""
def max_levels(profile: str) -> int:
    """Raises InvalidContext."""

def profile_rules(name: str) -> Dict[str, Any]:
    """Raises InvalidContext."""

@final
class Context:
    def __new__(cls, level: int, trump: int, profile: str) -> "Context":
        """Raises InvalidContext."""
    @property
    def level(self) -> int: ...
    @property
    def trump(self) -> int: ...
    @property
    def profile(self) -> str: ...
    def classes(self) -> bytes: ...
    def strengths(self) -> bytes: ...
    def links(self) -> bytes: ...
    def classify(self, cards: bytes) -> Optional[Tuple[str, int, int, bool, int]]:
        """Raises CardParseError, TooManyCopies, InvalidCards."""
    def classify_batch(self, data: bytes) -> Tuple[bytes, bytes, bytes, bytes]:
        """Raises InvalidArgument, TooManyCopies (naming the row)."""
    def legal_leads(self, hand: bytes) -> List[bytes]:
        """Raises CardParseError, TooManyCopies, InvalidCards."""
    def trick_winner(self, plays: List[bytes]) -> int:
        """Raises InvalidPlays, NotACombination, CardParseError, TooManyCopies, InvalidCards."""
    def follow_check(self, hand: bytes, lead: bytes, play: bytes) -> None:
        """Raises IllegalFollow, WrongCardCount, CardsNotInHand, NotACombination, InvalidPlays, CardParseError, TooManyCopies, InvalidCards."""
    def is_legal_follow(self, hand: bytes, lead: bytes, play: bytes) -> bool:
        """Raises WrongCardCount, CardsNotInHand, NotACombination, InvalidPlays, CardParseError, TooManyCopies, InvalidCards."""
    def is_legal_follow_batch(self, hands: bytes, leads: bytes, plays: bytes) -> bytes:
        """Raises InvalidArgument; naming the row: TooManyCopies, NotACombination, InvalidPlays."""
    def legal_follows(self, hand: bytes, lead: bytes, limit: int) -> List[bytes]:
        """Raises TooManyFollows, NotACombination, InvalidPlays, CardParseError, TooManyCopies, InvalidCards."""
    def count_legal_follows(self, hand: bytes, lead: bytes) -> int:
        """Raises NotACombination, InvalidPlays, CardParseError, TooManyCopies, InvalidCards."""
    def nth_legal_follow(self, hand: bytes, lead: bytes, index: int) -> bytes:
        """Raises InvalidArgument, NotACombination, InvalidPlays, CardParseError, TooManyCopies, InvalidCards."""
    def random_follow(self, hand: bytes, lead: bytes, seed: int) -> bytes:
        """Raises NotACombination, InvalidPlays, CardParseError, TooManyCopies, InvalidCards."""
    def follow_completions(self, hand: bytes, lead: bytes, partial: bytes) -> bytes:
        """Raises NotACombination, InvalidPlays, CardParseError, TooManyCopies, InvalidCards."""
    def follow_requirement(self, hand: bytes, lead: bytes) -> Tuple[str, int, int]:
        """Raises NotACombination, InvalidPlays, CardParseError, TooManyCopies, InvalidCards."""

@final
class Game:
    @staticmethod
    def deal(
        hand_seed: int,
        profile_name: str,
        levels: Tuple[int, int],
        banker: Optional[int] = None,
        deck: Optional[List[int]] = None,
        first_seat: int = 0,
        redeal_decks: Optional[List[Tuple[List[int], int]]] = None,
        hand_index: int = 0,
        every_receiver: bool = False,
    ) -> "Game":
        """Raises InvalidContext, InvalidSeat, InvalidDeal, CardParseError."""
    @staticmethod
    def from_hands(hands: List[bytes], level: int, trump: int, banker: int, profile_name: str) -> "Game":
        """Raises InvalidDeal, InvalidSeat, InvalidContext, TooManyCopies, InvalidCards."""
    def clone(self) -> "Game": ...
    def action_count(self) -> int: ...
    @property
    def phase(self) -> str: ...
    @property
    def stopped(self) -> bool: ...
    @property
    def current_player(self) -> Optional[int]: ...
    @property
    def level(self) -> int: ...
    @property
    def trump(self) -> Optional[int]: ...
    @property
    def banker(self) -> Optional[int]: ...
    @property
    def declarer(self) -> Optional[int]: ...
    @property
    def declaration(self) -> Optional[Tuple[int, int, int]]: ...
    @property
    def profile(self) -> str: ...
    @property
    def levels(self) -> Tuple[int, int]: ...
    @property
    def defender_points(self) -> int: ...
    @property
    def dealt(self) -> int: ...
    @property
    def redeals(self) -> int: ...
    @property
    def first_seat(self) -> int: ...
    @property
    def tricks_done(self) -> int: ...
    @property
    def result(self) -> Optional[Tuple[int, int, int, int, bool, int]]: ...
    def hand(self, seat: int) -> bytes:
        """Raises InvalidSeat."""
    def showings(self) -> List[Tuple[int, int]]: ...
    def is_leading(self) -> bool: ...
    @property
    def returns(self) -> Optional[Tuple[int, int, int, int]]: ...
    @property
    def hand_index(self) -> int: ...
    def legal_count(self) -> int: ...
    def play_range(self, start: int, stop: int) -> List[bytes]: ...
    def play_sample(self, seed: int) -> Optional[bytes]: ...
    def playout(self, policy: str, seed: int) -> Tuple[int, int, int, int]:
        """Raises InvalidPolicy."""
    def playout_score(self, policy: str, seed: int) -> Optional[int]:
        """Raises InvalidPolicy."""
    def step_policy(self, policy: str, seed: int) -> bool:
        """Raises InvalidPolicy, ResourceError, IllegalAction."""
    def policy_ids(self, policy: str, seed: int) -> Optional[List[int]]:
        """Raises InvalidPolicy, ResourceError."""
    def is_legal_play(self, cards: bytes) -> bool:
        """Raises CardParseError, TooManyCopies, InvalidCards."""
    def apply_pass(self) -> None:
        """Raises IllegalAction."""
    def apply_declare(self, suit: int, count: int) -> None:
        """Raises IllegalAction."""
    def apply_play(self, cards: bytes) -> None:
        """Raises IllegalAction (IllegalFollow, CardsNotInHand, WrongCardCount), InvalidArgument, CardParseError, TooManyCopies."""
    def step_random(self, seed: int) -> bool: ...
    def play_random(self, seed: int) -> None: ...
    def tricks(self) -> List[Tuple[int, List[Tuple[int, bytes]], int, int]]: ...
    def defender_points_by_trick(self) -> List[int]: ...
    def current_trick(self) -> List[Tuple[int, bytes]]: ...
    def showing_log(self) -> List[Tuple[int, int, int, int, int]]: ...
    def to_json(self) -> str: ...
    @staticmethod
    def from_json(text: str) -> Game: ...
    def deck(self) -> List[int]: ...
    def action_mask(self) -> bytes: ...
    def step(self, id: int) -> bool: ...
    def clear_pending(self) -> None: ...
    @property
    def pending(self) -> bytes: ...
    def observation_tensor(self, seat: int, out: Any, canonical: bool, obs_version: int = 1) -> None: ...
    def information_state_tensor(self, seat: int, out: Any, compact: bool = False) -> None: ...
    def known_trump(self, seat: int) -> Optional[int]: ...
    @property
    def every_receiver(self) -> bool: ...

@final
class VecEnv:
    def __new__(
        cls,
        num_envs: int,
        seed: int,
        profile: str,
        seats: List[Optional[str]],
        every_receiver: bool,
        canonical: bool,
        threads: int,
        auto_forced: bool = False,
        first_hand_only: bool = False,
        teacher: Optional[str] = None,
        obs_dtype: str = "float32",
        outside: List[int] = ...,
        obs_version: int = 1,
    ) -> "VecEnv":
        """Raises InvalidArgument, InvalidPolicy, InvalidContext, ResourceError."""
    def __len__(self) -> int: ...
    def reset(self, seed: Optional[int] = None, rows: Optional[List[int]] = None) -> Tuple[Any, Any, Any, Any, Any]:
        """Raises InvalidArgument, ResourceError."""
    def step(self, actions: Any, rows: Optional[List[int]] = None) -> Tuple[Any, Any, Any, Any, Any]:
        """Raises InvalidArgument, IllegalAction, ResourceError."""
    def info(self) -> Any: ...
    def game(self, i: int) -> Game: ...
    def pending(self, i: int) -> bytes: ...
    def known_trumps(self) -> Any: ...

# every observation version: {version: {"version", "dim", "layout", "scale", "scale_u8"}}
OBS_ENCODINGS: Dict[int, Dict[str, Any]]
OBS_DEFAULT_VERSION: int
# version 1's, under their names from before the versions
OBS_DIM: int
OBS_LAYOUT: List[Tuple[str, int, int, str]]

def obs_encoding(version: int) -> Dict[str, Any]:
    """Raises InvalidArgument for an unknown version."""

def canonical_ids(trump: int) -> bytes: ...
def encode_action(kind: str, suit: int, count: int, cards: Optional[bytes], lead: bool) -> List[int]: ...
def decode_action(ids: List[int]) -> Tuple[str, int, int, Optional[bytes]]: ...

@final
class Match:
    @staticmethod
    def create(seed: int, profile_name: str) -> Tuple["Match", Game]:
        """Raises InvalidContext."""
    def next_hand(self, game: Game) -> Game:
        """Raises ForeignHand, IllegalAction."""
    def check_own(self, game: Game) -> None:
        """Raises ForeignHand."""
    def state(self) -> Tuple[Any, ...]: ...
    @staticmethod
    def from_state(state: Tuple[Any, ...]) -> "Match":
        """Raises InvalidContext."""
    @property
    def levels(self) -> Tuple[int, int]: ...
    @property
    def index(self) -> int: ...
    @property
    def banker(self) -> Optional[int]: ...
    @property
    def winner(self) -> Optional[Tuple[int, int]]: ...
    @property
    def over(self) -> bool: ...
    def history(
        self,
    ) -> List[Tuple[int, Optional[int], int, Optional[int], Optional[int], Tuple[int, int], Optional[int]]]: ...

def parse(text: str) -> List[int]:
    """Raises CardParseError."""
def format(ids: List[int]) -> str:
    """Raises CardParseError."""
def counts_of_ids(ids: List[int], what: str) -> bytes:
    """Raises CardParseError, TooManyCopies."""
def counts_of_text(text: str, what: str) -> bytes:
    """Raises CardParseError, TooManyCopies."""
def ids_of_counts(counts: bytes) -> List[int]: ...
def parse_level(text: str) -> int:
    """Raises InvalidContext."""
def parse_suit(text: str) -> int:
    """Raises InvalidContext."""
def outcome(score: int, profile: str) -> Tuple[int, int, int, bool]:
    """Raises InvalidContext, InvalidArgument."""
def profile_name(name: str) -> str:
    """Raises InvalidContext."""
def uniform_below(seed: int, n: int) -> int:
    """Raises InvalidArgument."""
def derive_seed(seed: int, tag: int, index: int) -> int: ...
def info(game: Game, seat: int) -> Dict[str, Any]:
    """Raises InvalidSeat."""
def determinize(game: Game, seat: int, seeds: List[int], exact: bool) -> List[Game]:
    """World i from seeds[i]; each holds the play being built when ``seat`` is to move.
    Raises InvalidSeat, NoConsistentWorld."""
def search_seeds(seed: int, n: int) -> List[int]: ...
def rollouts(game: Game, n: int, policy: str, seed: int, threads: int, points: bool = ...) -> bytes:
    """Raises InvalidPolicy, ResourceError."""
def run_search(game: Game, policy: str, seed: int, threads: int) -> Tuple[bytes, List[Tuple[bytes, int, int, int]], List[List[int]]]:
    """Raises InvalidPolicy, InvalidArgument, NoConsistentWorld, ResourceError."""
def solve(
    game: Game, budget: int, partition: Optional[bool] = ..., threads: int = ...
) -> Tuple[List[Tuple[bytes, int, int]], bytes, int, int, List[Tuple[int, bytes]], int, bool]:
    """Raises InvalidArgument (not the play phase), ObjectBusy, ResourceError."""
@final
class Player:
    def __new__(cls, policy: str, seed: int) -> "Player": ...
    @property
    def policy(self) -> str: ...
    def step(self, game: Game) -> bool:
        """Raises IllegalAction, ObjectBusy, ResourceError."""

@final
class IsmctsSearcher:
    def __new__(cls, policy: str) -> "IsmctsSearcher": ...
    def search(
        self, game: Game, seed: int, threads: int
    ) -> Tuple[Tuple[bytes, List[Tuple[bytes, int, int, int]], List[List[int]]], int]:
        """Raises InvalidPolicy, InvalidArgument, NoConsistentWorld, ResourceError."""

def policy_name(name: str) -> str:
    """Raises InvalidPolicy."""
def simulate_hands(
    seed: int,
    start: int,
    count: int,
    policy_names: List[str],
    profile_name: str,
    threads: int,
    records: bool = False,
) -> Tuple[Dict[str, bytes], bytes]:
    """Raises InvalidPolicy, InvalidContext, InvalidArgument, ResourceError."""
def simulate_matches(
    seed: int, start: int, count: int, policy_names: List[str], profile_name: str, threads: int, max_hands: int
) -> Dict[str, bytes]:
    """Raises InvalidPolicy, InvalidContext, InvalidArgument, ResourceError."""
def replay_record(data: bytes, legacy: bool = False) -> Tuple[Game, int]:
    """Raises RecordsError, InvalidRecord, IllegalAction."""
def result_schema(kind: str) -> List[Tuple[str, str]]:
    """Raises InvalidArgument."""
def self_play(
    seed: int,
    start: int,
    count: int,
    seats: List[str],
    learners: List[bool],
    base: str,
    rollout: str,
    label_rate: int,
    per_decision: int,
    rollouts: int,
    explore: int,
    profile: str,
    obs_version: int,
    canonical: bool,
    threads: int,
    worlds: int = 0,
    teacher: Optional[str] = None,
    drawn_levels: bool = False,
    value_visited: int = 0,
    play_features: int = 1,
    solve: int = 0,
) -> Dict[str, Any]:
    """Raises InvalidPolicy, InvalidContext, InvalidArgument, ResourceError."""
def play_features(version: int = 1) -> List[Tuple[str, int, int, int, str]]:
    """Raises InvalidArgument."""
def play_feature_versions() -> List[int]: ...
def base_weights_text(name: str) -> str:
    """Raises InvalidPolicy, InvalidArgument."""
def check_play_net(data: bytes) -> None:
    """Raises InvalidPolicy."""
def play_candidates(game: Game, base: str, seed: int, play_features: int = 1) -> Tuple[List[List[int]], Any, bool]:
    """Raises InvalidPolicy, InvalidArgument."""

@final
class Table:
    def __new__(
        cls, seed: int, start: int, count: int, seats: List[Optional[str]], profile: str, records: bool, threads: int,
        obs_version: int = 1, canonical: List[bool] = ..., teachers: List[Optional[str]] = ...,
    ) -> "Table":
        """Raises InvalidArgument, InvalidPolicy, InvalidContext, ResourceError."""
    def waiting(self) -> Any: ...
    def write(self, rows: List[int]) -> Tuple[Any, Any]:
        """Raises InvalidArgument."""
    def teacher_ids(self, rows: List[int]) -> Any:
        """Raises InvalidArgument."""
    def step(self, rows: List[int], ids: List[int]) -> None:
        """Raises InvalidArgument, IllegalAction, ResourceError."""
    def results(self) -> Tuple[Dict[str, bytes], bytes]:
        """Raises InvalidArgument."""

@final
class RecordReader:
    def __new__(cls, path: str, partial: bool = False) -> "RecordReader":
        """Raises RecordsError."""
    @property
    def version(self) -> int: ...
    @property
    def meta(self) -> str: ...
    @property
    def first(self) -> int: ...
    @property
    def end(self) -> Optional[Tuple[bool, bool]]: ...
    def read(self, n: int) -> List[Tuple[int, int, int, int, str, int, int, int, int, bytes]]:
        """Raises RecordsError."""
    def games(self, n: int) -> List[Game]:
        """Raises RecordsError, InvalidRecord."""


@final
class RecordsWriter:
    def __new__(cls, path: str, first: int, meta: str) -> "RecordsWriter":
        """Raises OSError."""
    def write(self, frames: bytes) -> int:
        """Raises InvalidArgument, OSError."""
    def finish(self, stopped: bool) -> int:
        """Raises InvalidArgument, OSError."""
    def close(self) -> None: ...
    @property
    def frames(self) -> int: ...
    @property
    def next_index(self) -> Optional[int]: ...


@final
class Net:
    def __new__(cls, data: bytes) -> Net: ...
    @staticmethod
    def read(path: str) -> Net: ...
    @staticmethod
    def from_parts(h1: int, h2: int, shift1: int, canonical: bool, w1: List[int], b1: List[int], w2: List[int],
                   b2: List[int], w3: List[int], b3: List[int], meta: str, base: str = "none", prior: int = 0,
                   value: Optional[Tuple[List[int], int]] = None, obs_version: int = 1) -> Net: ...
    def to_bytes(self) -> bytes: ...
    @property
    def shape(self) -> Tuple[int, int, int, int]: ...
    @property
    def meta(self) -> str: ...
    @property
    def canonical(self) -> bool: ...
    @property
    def obs_version(self) -> int: ...
    @property
    def base(self) -> Tuple[str, int]: ...
    @property
    def has_value(self) -> bool: ...
    def logits(self, game: Game, seat: int) -> List[int]: ...
    def value(self, game: Game, seat: int) -> Optional[Tuple[int, int]]: ...
