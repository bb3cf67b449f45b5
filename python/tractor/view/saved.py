"""A saved match: the file the table writes after every hand, from which a game at the table
resumes and which ``tractor view`` opens (hand K of it). JSON:

``{"format": "tractor-engine/match", "format_version": 1, "engine": ..., "profile": ...,
"seed": ..., "state": [the match's state], "game": {the current hand's record},
"hands": [{record}, ...], "decisions": [{action index: statistics}, ...], "table": {...}}``

``hands`` holds every finished hand's record (``Game.to_json``), ``decisions`` the statistics
of the searches that chose the bots' actions in them, ``table`` who sat where.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, Tuple

from .._core import __version__
from ..errors import InvalidRecord
from ..game import Game, Match, _match_from_state

MATCH_FORMAT = "tractor-engine/match"
MATCH_VERSION = 1


def _tuples(x: Any) -> Any:
    return tuple(_tuples(v) for v in x) if isinstance(x, list) else x


def _lists(x: Any) -> Any:
    return [_lists(v) for v in x] if isinstance(x, (list, tuple)) else x


def dump(match: Match, hands: List[str], decisions: List[Dict[int, Any]], table: Dict[str, Any]) -> str:
    """The saved match as JSON text."""
    return json.dumps({
        "format": MATCH_FORMAT,
        "format_version": MATCH_VERSION,
        "engine": __version__,
        "profile": match.profile,
        "seed": match.seed,
        "state": _lists(match._m.state()),
        "game": json.loads(match.game.to_json()),
        "hands": [json.loads(h) for h in hands],
        "decisions": [{str(k): v for k, v in d.items()} for d in decisions],
        "table": table,
    }, separators=(",", ":"))


def is_saved_match(doc: Any) -> bool:
    return isinstance(doc, dict) and doc.get("format") == MATCH_FORMAT


def load(doc: Dict[str, Any]) -> Tuple[Match, List[Game], List[Dict[int, Any]], Dict[str, Any]]:
    """(the match with its current hand, the finished hands replayed, their decisions, the
    table). Raises InvalidRecord naming what is wrong."""
    if doc.get("format_version") != MATCH_VERSION:
        raise InvalidRecord(f"a saved match of format version {doc.get('format_version')!r}; this engine reads {MATCH_VERSION}")
    for key, kind in (("state", list), ("game", dict), ("hands", list), ("decisions", list), ("table", dict)):
        if not isinstance(doc.get(key), kind):
            raise InvalidRecord(f"a saved match's {key!r} must be a JSON {'array' if kind is list else 'object'}")
    if len(doc["decisions"]) != len(doc["hands"]):
        raise InvalidRecord("a saved match has one decisions entry per finished hand")
    m = _match_from_state(doc.get("seed"), _tuples(doc["state"]), json.dumps(doc["game"]))
    hands = []
    for i, rec in enumerate(doc["hands"]):
        try:
            hands.append(Game.from_record(rec))
        except InvalidRecord as e:
            raise InvalidRecord(f"hands[{i}]: {e}") from None
    decisions = []
    for i, d in enumerate(doc["decisions"]):
        if not isinstance(d, dict) or not all(isinstance(k, str) and k.isdigit() for k in d):
            raise InvalidRecord(f"decisions[{i}] maps action indices to statistics")
        decisions.append({int(k): v for k, v in d.items()})
    return m, hands, decisions, doc["table"]


def hand_of(doc: Dict[str, Any], hand: Optional[int]) -> Tuple[Game, Dict[int, Any], str]:
    """Hand ``hand`` of a saved match (None: the current hand), its decisions and a title."""
    m, hands, decisions, _table = load(doc)
    if hand is None or hand == len(hands):
        return m.game, {}, f"saved match: hand {len(hands)} (current)"
    if not 0 <= hand < len(hands):
        raise InvalidRecord(f"hand {hand}: the saved match holds hands 0..{len(hands)}")
    return hands[hand], decisions[hand], f"saved match: hand {hand}"
