"""A saved match: the files the table (``tractor play``) writes into its save folder, from which
a game at the table resumes (``--resume``) and which ``tractor view`` opens (hand K of it).

The folder holds, for each finished hand N, ``hand-NNNN.json`` (its record, ``Game.to_json``)
and ``hand-NNNN.decisions.json`` (the statistics of the searches that chose the bots' actions
in it), and ``match.json``::

    {"format": "tractor-engine/match", "format_version": 2, "engine": ..., "profile": ...,
     "seed": ..., "state": [the match's state], "hands": [{"file": "hand-0000.json",
     "sha256": ...}, ...], "game": {the current hand's record}, "decisions": {action index:
     statistics, for the current hand}, "table": {"seat": ..., "opponents": [three policies]}}

``match.json`` stays small over a long match: a finished hand is a file name and the SHA-256 of
the file's text, not its record. Reading it (:func:`load`) checks it as completely as a records
file is checked: every finished hand's file is there and unchanged, replays, is hand i of this
match (its seed and profile, at the levels and banker the hands before it lead to, R7.4) and is
finished; the current hand is the match's own next hand; the state saved is the one the hands
lead to. Version 1 (every finished hand inline) is refused by name.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from typing import Any, Dict, List, Tuple

from .._args import _regular_file
from .._core import __version__
from ..errors import InvalidRecord, TractorError
from ..game import Game, Match

MATCH_FORMAT = "tractor-engine/match"
MATCH_VERSION = 2
_KEYS = ("format", "format_version", "engine", "profile", "seed", "state", "hands", "game", "decisions", "table")
_STATE = ("seed", "profile", "levels", "banker", "hand index", "history", "winner")


def hand_file(index: int) -> str:
    """The name of finished hand ``index``'s record in the save folder."""
    return f"hand-{index:04d}.json"


def digest(text: str) -> str:
    """The SHA-256 (hex) of a hand file's text, as ``match.json`` names it."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _lists(x: Any) -> Any:
    return [_lists(v) for v in x] if isinstance(x, (list, tuple)) else x


def dump(match: Match, game: Game, hands: List[Dict[str, str]], decisions: Dict[int, Any], table: Dict[str, Any]) -> str:
    """``match.json``'s text: ``match`` after its finished hands, ``game`` its current hand,
    ``hands`` the finished hands' entries (file and digest), ``decisions`` the current hand's
    search statistics, ``table`` who sits where."""
    return json.dumps({
        "format": MATCH_FORMAT,
        "format_version": MATCH_VERSION,
        "engine": __version__,
        "profile": match.profile,
        "seed": match.seed,
        "state": _lists(match._m.state()),
        "hands": hands,
        "game": json.loads(game.to_json()),
        "decisions": {str(k): v for k, v in decisions.items()},
        "table": table,
    }, separators=(",", ":"))


def is_saved_match(doc: Any) -> bool:
    return isinstance(doc, dict) and doc.get("format") == MATCH_FORMAT


def _decisions(d: Any, what: str) -> Dict[int, Any]:
    if not isinstance(d, dict) or not all(isinstance(k, str) and k.isdigit() for k in d):
        raise InvalidRecord(f"{what} maps action indices to statistics")
    return {int(k): v for k, v in d.items()}


def _check_shape(doc: Dict[str, Any]) -> None:
    if doc.get("format_version") == 1:
        raise InvalidRecord("a saved match of format version 1 (every finished hand inline) is no longer read; this engine "
                            f"reads version {MATCH_VERSION}. Its finished hands are the hand-NNNN.json files beside it")
    if doc.get("format_version") != MATCH_VERSION:
        raise InvalidRecord(f"a saved match of format version {doc.get('format_version')!r}; this engine reads {MATCH_VERSION}")
    extra = sorted(set(doc) - set(_KEYS))
    missing = [k for k in _KEYS if k not in doc]
    if extra or missing:
        raise InvalidRecord(f"a saved match has the keys {', '.join(_KEYS)}" + (f"; missing {missing}" if missing else "")
                            + (f"; unknown {extra}" if extra else ""))
    for key, kind, name in (("engine", str, "text"), ("profile", str, "text"), ("state", list, "array"), ("hands", list, "array"),
                            ("game", dict, "object"), ("decisions", dict, "object"), ("table", dict, "object")):
        if not isinstance(doc[key], kind):
            raise InvalidRecord(f"a saved match's {key!r} must be a JSON {name}")
    if type(doc["seed"]) is not int:
        raise InvalidRecord(f"a saved match's 'seed' must be an integer, got {doc['seed']!r}")
    t = doc["table"]
    if set(t) != {"seat", "opponents"} or type(t["seat"]) is not int or not 0 <= t["seat"] <= 3 or not (
            isinstance(t["opponents"], list) and len(t["opponents"]) == 3 and all(isinstance(p, str) for p in t["opponents"])):
        raise InvalidRecord(f"a saved match's 'table' is {{'seat': 0..3, 'opponents': [three policies]}}, got {t!r}")


def _replay_hand(m: Match, i: int, entry: Any, folder: str) -> None:
    """Scores finished hand ``i`` (its file, checked against ``entry``) into ``m``."""
    if not (isinstance(entry, dict) and set(entry) == {"file", "sha256"} and entry["file"] == hand_file(i)
            and isinstance(entry["sha256"], str) and re.fullmatch(r"[0-9a-f]{64}", entry["sha256"])):
        raise InvalidRecord(f"hands[{i}] must be {{'file': {hand_file(i)!r}, 'sha256': 64 hex digits}}, got {entry!r}")
    path = os.path.join(folder, entry["file"])
    try:
        text = read_text(path)
    except (OSError, ValueError) as e:
        raise InvalidRecord(f"hands[{i}]: {path} cannot be read: {getattr(e, 'strerror', None) or e}") from None
    if digest(text) != entry["sha256"]:
        raise InvalidRecord(f"hands[{i}]: {path} is not the hand the match saved (its SHA-256 differs): replaced or edited")
    try:
        m.game = Game.from_json(text)
        m.next_hand()  # R7.4: hand i of this match's seed and profile, at its levels and banker, finished
    except TractorError as e:
        raise InvalidRecord(f"hands[{i}] ({path}): {e}") from None


def load(doc: Dict[str, Any], folder: str) -> Tuple[Match, List[Dict[str, str]], Dict[int, Any], Dict[str, Any]]:
    """(the match with its current hand, the finished hands' entries, the current hand's
    decisions, the table) of ``match.json``'s ``doc``, whose hand files are in ``folder``.
    Everything is checked by replaying the match from its seed; raises InvalidRecord naming
    the first thing that is wrong."""
    _check_shape(doc)
    try:
        m = Match(doc["seed"], doc["profile"])
    except TractorError as e:
        raise InvalidRecord(f"a saved match's seed or profile: {e}") from None
    for i, entry in enumerate(doc["hands"]):
        _replay_hand(m, i, entry, folder)
    try:
        g = Game.from_record(doc["game"])
        m._m.check_own(g._g)  # R7.4: the current hand is the match's own next hand
    except TractorError as e:
        raise InvalidRecord(f"a saved match's current hand ('game'): {e}") from None
    m.game = g
    have, state = _lists(m._m.state()), doc["state"]
    if len(state) != len(_STATE):
        raise InvalidRecord(f"a saved match's state has {len(_STATE)} parts ({', '.join(_STATE)}), got {len(state)}")
    for name, s, d in zip(_STATE, state, have):
        if s != d and name == "history":
            raise InvalidRecord("a saved match's state holds a history that is not the one its finished hands make")
        if s != d:
            raise InvalidRecord(f"a saved match's state gives the {name} as {s!r}, but its {len(doc['hands'])} finished hands "
                                f"lead to {d!r}")
    return m, list(doc["hands"]), _decisions(doc["decisions"], "a saved match's 'decisions'"), doc["table"]


def hand_of(doc: Dict[str, Any], folder: str, hand: Any) -> Tuple[Game, Dict[int, Any], str]:
    """Hand ``hand`` of a saved match (None: the current hand), its decisions and a title."""
    m, hands, decisions, _table = load(doc, folder)
    if hand is None or hand == len(hands):
        return m.game, decisions, f"saved match: hand {len(hands)} (current)"
    if not 0 <= hand < len(hands):
        raise InvalidRecord(f"hand {hand}: the saved match holds hands 0..{len(hands)}")
    path = os.path.join(folder, hand_file(hand))
    g = Game.from_json(read_text(path))
    return g, decisions_beside(path), f"saved match: hand {hand}"


def decisions_beside(path: str) -> Dict[int, Any]:
    """The statistics the table saved beside a hand's record (``X.decisions.json``), if any."""
    side = os.path.splitext(path)[0] + ".decisions.json"
    if not os.path.exists(side):
        return {}
    try:
        return _decisions(json.loads(read_text(side)), side)
    except RecursionError:
        raise InvalidRecord(f"{side}: not the decisions of a hand: its JSON is nested too deeply") from None
    except (OSError, ValueError) as e:
        if isinstance(e, InvalidRecord):
            raise
        raise InvalidRecord(f"{side}: not the decisions of a hand: {getattr(e, 'strerror', None) or e}") from None


def read_text(path: str) -> str:
    """The text of ``path``, a regular file (a FIFO or a device would block or never end):
    raises InvalidRecord for any other kind of file, OSError if it cannot be read."""
    _regular_file(path, InvalidRecord)
    with open(path, encoding="utf-8") as f:
        return f.read()
