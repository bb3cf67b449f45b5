"""A text view for players that read text (language models, bots over a protocol):
:func:`describe` writes, as JSON, exactly what one seat knows; :func:`apply_text` plays one
action given as text. Both take the :class:`~tractor.Game` first: ``describe(g, seat)``,
``apply_text(g, seat, text)``.

Everything in the JSON comes from the seat's information set (``Game.info(seat)``) and its own
legal actions: two games the seat cannot tell apart give byte-identical text.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional

from .cards import CARDS, SUITS, parse
from ._args import _int, _seat, _show, _text
from .errors import IllegalAction, InvalidArgument
from .game import Declare, Game, Pass, Play
from .infoset import InfoSet
from .rules import Context

__all__ = ["DESCRIBE_FORMAT", "DESCRIBE_VERSION", "LIST_LIMIT", "describe", "apply_text", "action_text"]

DESCRIBE_FORMAT = "tractor-engine/describe"
DESCRIBE_VERSION = 1
LIST_LIMIT = 200
"""The most legal plays :func:`describe` lists; past it they are summarised (see there)."""

def _cards(counts: Any) -> str:
    return " ".join(str(CARDS[k]) for k in range(54) for _ in range(int(counts[k])))


def action_text(action: Any) -> str:
    """The text :func:`apply_text` reads for a typed action: ``"pass"``, ``"declare h 2"``
    (show two level cards of hearts, R8.1) or the cards, ``"9s 9s As Qs"``."""
    if isinstance(action, Pass):
        return "pass"
    if isinstance(action, Declare):
        return f"declare {action.suit} {action.count}"
    if isinstance(action, Play):
        return str(action)
    raise InvalidArgument(f"action must be a Pass, Declare or Play, got {_show(action)}")


def _arranged(ctx: Optional[Context], counts: Any) -> List[str]:
    """The hand as groups of card strings, in the hand's trump order once the seat knows it."""
    text = _cards(counts)
    if not text:
        return []
    if ctx is None:
        return [text]
    return [" ".join(str(c) for c in g) for cls in ctx.arrange(text) for g in cls]


def _legal(g: Game, seat: int, info: InfoSet, limit: int) -> Dict[str, Any]:
    """The seat's legal actions: all of them as text when there are at most ``limit``, else a
    summary (the count, what the ladder demands, the cards that must be played, examples)."""
    if g.phase == "declare":
        acts = g.legal_actions()
        return {"count": len(acts), "complete": True, "actions": [action_text(a) for a in acts]}
    plays = g.legal_actions()
    n = plays.count()
    out: Dict[str, Any] = {"count": n, "complete": n <= limit}
    leading = not g.current_trick
    out["kind"] = "lead" if leading else "follow"
    if n <= limit:
        out["actions"] = [str(p) for p in plays]
        return out
    out["examples"] = [str(plays[i]) for i in range(min(5, n))]
    if not leading:  # R5.2-R5.3: what every legal follow shares
        ctx = g.context
        lead = g.current_trick[0][1]
        req = ctx.follow_requirement(info.hand, lead)  # type: ignore[union-attr]
        out["ladder"] = req
        cls = [ctx._c.classes()[k] for k in range(54)]  # type: ignore[union-attr]
        led = cls[int(lead[0])]
        held = [k for k in range(54) for _ in range(int(info.hand[k])) if cls[k] == led]
        if len(held) <= len(lead):  # R5.2: all of S, then any other cards
            out["must_play"] = " ".join(str(CARDS[k]) for k in held)
            out["free_cards"] = len(lead) - len(held)
            out["summary"] = (
                f"R5.2: play all {len(held)} card(s) of the led class and any {len(lead) - len(held)} other card(s)"
            )
        else:
            out["summary"] = f"R5.3 {req['tier']}: {len(lead)} cards of the led class, as the ladder demands"
    return out


def describe(g: Game, seat: int, limit: int = LIST_LIMIT) -> str:
    """What ``seat`` knows, as JSON text (keys in a fixed order; see docs/viewer.md):

    - the rules (profile, level, the team levels, banker, the trump suit once the seat knows
      it, R8.2), the hand index;
    - the seat's hand (grouped and in trump order once the trump suit is known) and every
      hand's size;
    - the declaring as the seat sees it (a suit is ``null`` while hidden, R8.2);
    - every finished trick (leader, plays, winner, points), the trick in progress, the
      defenders' points (R7.2) and the result once the hand is over;
    - what the public history proves: each other seat's voids per class (R5.2) and the cards
      it must still hold (a shown level card stays in hand until played, R8.6);
    - whose turn it is and, on the seat's own turn, its legal actions as text that
      :func:`apply_text` reads. Up to ``limit`` plays are listed; past that (a void follower
      may have millions) ``"complete": false`` and a summary: the exact count, five
      examples, the ladder's demand (R5.3) and, for R5.2, the cards every follow must hold.

    Raises InvalidSeat and InvalidArgument (``g`` not a Game, ``limit`` not in 0..100,000)."""
    if not isinstance(g, Game):
        raise InvalidArgument(f"g must be a tractor.Game, got {type(g).__name__}")
    seat = _seat(seat)
    limit = _int(limit, "limit", 0, 100_000)
    info = g.info(seat)
    known = g.known_trump(seat)  # R8.2: public after the deal, the declarer's own before
    ctx = None if known is None else Context(info.level, known, info.profile)
    others = {
        str(p): {"cards": int(info.hand_sizes[p]), "void": info.proven_voids(p), "must_hold": _cards(info.lower[p])}
        for p in range(4)
        if p != seat
    }
    tricks = [
        {"leader": t.leader, "plays": [[s, " ".join(map(str, c))] for s, c in t.plays], "winner": t.winner, "points": t.points}
        for t in g.tricks
    ]
    r = g.result
    d: Dict[str, Any] = {
        "format": DESCRIBE_FORMAT,
        "version": DESCRIBE_VERSION,
        "seat": seat,
        "team": seat % 2,
        "profile": info.profile,
        "phase": info.phase,
        "hand_index": info.hand_index,
        "levels": list(info.levels),
        "level": info.level,
        "banker": info.banker,
        "trump": None if ctx is None else ctx.trump,
        "trump_public": info.trump is not None,
        "declarer": info.declarer,
        "declaring": [
            {"attempt": a, "cards_dealt": t, "seat": s, "count": k, "suit": x} for a, t, s, k, x in info.showings
        ],
        "cards_dealt": info.cards_dealt,
        "hand": _arranged(ctx, info.hand),
        "hand_sizes": list(info.hand_sizes),
        "others": others,
        "tricks": tricks,
        "current_trick": [[s, " ".join(map(str, c))] for s, c in g.current_trick],
        "defender_points": info.defender_points,
        "to_move": info.to_move,
        "your_turn": info.to_move == seat,
        "legal": _legal(g, seat, info, limit) if info.to_move == seat else None,
        "result": None if r is None else {
            "score": r.score, "banker_levels": r.banker_levels, "defender_levels": r.defender_levels,
            "defenders_take_over": r.defenders_take_over, "next_banker": r.next_banker,
        },
        "stopped": g.stopped,
    }
    return json.dumps(d, ensure_ascii=False, separators=(",", ":"))


def apply_text(g: Game, seat: int, text: str) -> Any:
    """Plays one action for ``seat`` given as text: ``"pass"``, ``"declare h 2"`` (R8.1) or
    cards, ``"9s 9s As Qs"`` (what :func:`describe` lists). Returns the typed action applied.
    Raises InvalidSeat, IllegalAction (not the seat's turn, R5.1/R8.1; a showing not offered;
    an illegal follow as IllegalFollow, naming the rule, with a legal example; cards not held),
    CardParseError (text that is no cards) and InvalidArgument (text not a str); a refused
    action changes nothing."""
    if not isinstance(g, Game):
        raise InvalidArgument(f"g must be a tractor.Game, got {type(g).__name__}")
    seat = _seat(seat)
    text = _text(text, "text")
    if g.current_player != seat:
        rule = "R8.1" if g.phase == "declare" else "R5.1"
        who = "the hand is over" if g.current_player is None else f"seat {g.current_player} is to act"
        raise IllegalAction(f"{rule}: it is not seat {seat}'s turn: {who}")
    words = text.split()
    if g.phase == "declare":
        if [w.lower() for w in words] == ["pass"]:
            action: Any = Pass()
        elif len(words) == 3 and words[0].lower() in ("declare", "show") and words[1].lower() in SUITS:
            if not (words[2].isascii() and words[2].isdigit() and 1 <= int(words[2]) <= 4):
                raise IllegalAction(f"R8.1: a showing's count is 1 to 4 level cards, got {words[2]!r}")
            action = Declare(words[1].lower(), int(words[2]))
        else:
            raise IllegalAction(f"R8.1: while dealing the actions are 'pass' and 'declare SUIT COUNT', got {text!r}")
        if action not in g.legal_actions():
            offered = ", ".join(action_text(a) for a in g.legal_actions())
            raise IllegalAction(f"R8.1: {text!r} is not offered now; the choices are {offered}")
        g.apply(action)
        return action
    if g.phase != "play":
        raise IllegalAction("the hand is over")
    action = Play(tuple(parse(text)))
    g.apply(action)
    return action
