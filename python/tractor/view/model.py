"""The view model of one hand: what the replay page shows at every step, from the hand's
record replayed by the engine (nothing here knows a rule: the frames come from ``Game``,
``Game.info`` and ``Context``; the notes name the rule the engine reports).

A frame is the state after one decision worth showing: the start, every showing (R8.1), the
end of the deal (the reveal, R8.2) and every play. Each frame holds the whole table (every
hand) and, per seat, only what that seat knows (``Game.info``): its hand, the declaring as it
sees it, the other hands' sizes, voids (R5.2) and the cards they must still hold (R8.6).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from ..cards import CARDS
from ..game import Declare, Game, Pass
from ..rules import Context

VIEW_FORMAT = "tractor-engine/view"
VIEW_VERSION = 1
_CLASSES = ("s", "h", "d", "c", "trump")


def _ids(counts: Any) -> List[int]:
    return [k for k in range(54) for _ in range(int(counts[k]))]


def _natural(counts: Any) -> List[List[int]]:
    """A hand before the trump suit is known: jokers, then s, h, c, d, high ranks first,
    identical cards together (which cards are trumps waits for the suit)."""
    groups: List[List[int]] = []
    order = [53, 52] + [s * 13 + r for s in (0, 1, 3, 2) for r in range(12, -1, -1)]
    for k in order:
        if counts[k]:
            groups.append([k] * int(counts[k]))
    return groups


def _arranged(ctx: Optional[Context], counts: Any) -> List[List[int]]:
    if ctx is None:
        return _natural(counts)
    return [[int(c) for c in g] for cls in ctx.arrange(bytes(int(x) for x in counts)) for g in cls]


def _trumps(ctx: Optional[Context]) -> str:
    """Which kinds are trumps under ``ctx`` (R2.2), as 54 characters "0"/"1"; "" if unknown."""
    if ctx is None:
        return ""
    cls = ctx._c.classes()
    return "".join("1" if cls[k] == 4 else "0" for k in range(54))


def _ctx(level: int, suit: Optional[str], profile: str) -> Optional[Context]:
    return None if suit is None else Context(level, suit, profile)


def _note(before: Game, seat: int) -> Optional[Dict[str, Any]]:
    """Why a follow looks as it does: the ladder's tier (R5.2-R5.3, C4-C5) when it bound the
    choice, and the follows left (1: forced)."""
    trick = before.current_trick
    if not trick:
        return None
    ctx = before.context
    assert ctx is not None
    lead = trick[0][1]
    hand = before.hand(seat)
    req = ctx.follow_requirement(hand, lead)
    n = len(lead)
    cls = ctx._c.classes()
    led = cls[int(lead[0])]
    held = sum(1 for c in hand if cls[int(c)] == led)
    count = before.legal_actions().count()
    tier = req["tier"]
    if tier == "R5.2":
        rule, text = "R5.2", f"held {held} card(s) of the led class, at most the {n} led: all of them played"
        if held < n:
            text += f", with {n - held} other card(s)"
    elif tier == "T1":
        rule, text = "R5.3 T1", f"the led class held one combination of {n} cards: one had to be played"
    elif tier == "T2":
        rule, text = "R5.3 T2", f"the play had to include the longest tractor the led class gave ({req['tractor_cards']} cards)"
        if req["pairs"]:
            text += f" and {req['pairs']} pair(s) beside it"
    elif tier == "T3":
        rule, text = "R5.3 T3", f"the play had to hold {req['pairs']} pair(s) of the led class"
    elif tier == "T4":
        rule, text = "R5.2", f"held more than {n} cards of the led class: all {n} from it, any of them"
    else:  # competition (C4, C5): the entry or key part that decided
        rule, text = tier.split(" ")[0], f"the follow had to meet {tier}"
    void = held == 0
    return {
        "rule": rule,
        "text": text,
        "choices": str(count),
        "forced": count == 1,
        "void": _CLASSES[led] if void else None,
    }


def _seat_view(g: Game, seat: int) -> Dict[str, Any]:
    info = g.info(seat)
    known = g.known_trump(seat)  # R8.2: public after the deal, the declarer's own before
    ctx = _ctx(g.level, known, g.profile)
    others = {
        str(p): {"cards": info.hand_sizes[p], "void": info.proven_voids(p), "must": _ids(info.lower[p])}
        for p in range(4)
        if p != seat
    }
    return {
        "hand": _arranged(ctx, info.hand),
        "trump": known,
        "trumps": _trumps(ctx),
        "showings": [list(x) for x in info.showings],
        "others": others,
    }


def _result(g: Game) -> Optional[Dict[str, Any]]:
    r = g.result
    if r is None:
        return None
    return {
        "score": r.score,
        "raw_score": r.raw_score,
        "banker_levels": r.banker_levels,
        "defender_levels": r.defender_levels,
        "defenders_take_over": r.defenders_take_over,
        "next_banker": r.next_banker,
        "returns": list(r.returns),
    }


def _frame(g: Game, label: str, kind: str, seat: Optional[int], action: int) -> Dict[str, Any]:
    suit = g.trump if g.phase != "declare" else (None if g.declaration is None else g.declaration[1])
    ctx = _ctx(g.level, suit, g.profile)
    return {
        "label": label,
        "kind": kind,
        "seat": seat,
        "action": action,
        "phase": g.phase,
        "hands": [_arranged(ctx, g._g.hand(s)) for s in range(4)],
        "trump": suit,
        "trumps": _trumps(ctx),
        "declarer": g.declarer,
        "trick": len(g._g.tricks()),
        "current": [[s, _ids(c)] for s, c in g._g.current_trick()],
        "points": g.defender_points,
        "showings": len(g.showings()),
        "views": [_seat_view(g, s) for s in range(4)],
        "note": None,
    }


def _action(act: List[Any]) -> Any:
    """A record's action as ``Game.apply`` takes it."""
    if act[1] == "pass":
        return Pass()
    if act[1] == "declare":
        return Declare(act[2], act[3])
    return act[2]


def _showings(game: Game) -> List[List[Any]]:
    """Every showing, with whether the deal's end made its suit public (R8.2)."""
    out = []
    for i, s in enumerate(game.showings()):
        seen = game.info((s.seat + 1) % 4).showings
        public = game.phase != "declare" and i < len(seen) and seen[i][4] is not None
        out.append([s.attempt, s.dealt, s.seat, s.count, s.suit, public])
    return out


def _prefix(rec: Dict[str, Any], k: int) -> Game:
    return Game.from_record(dict(rec, actions=rec["actions"][:k], result=None, stopped=False))


def build(game: Game, decisions: Optional[Dict[int, Any]] = None, title: Optional[str] = None) -> Dict[str, Any]:
    """The view model of ``game`` (finished or not). ``decisions`` maps an action's index in
    the record to the statistics of the search or network that chose it (shown on request)."""
    rec = game.record()
    actions = rec["actions"]
    frames: List[Dict[str, Any]] = []
    g = _prefix(rec, 0)
    frames.append(_frame(g, "the deal begins" if g.phase == "declare" else "the hands as given", "start", None, 0))
    for k, act in enumerate(actions):
        seat, kind = act[0], act[1]
        before = g
        note = _note(before, seat) if kind == "play" and before.current_trick else None
        g = before.clone()
        g.apply(_action(act))
        ends_deal = before.phase == "declare" and g.phase != "declare"
        shown = ""
        if kind == "declare":
            sh = g.showings()[-1]
            shown = f"seat {seat} shows {sh.count} level card(s) ({sh.dealt} cards dealt)"
            if not ends_deal:
                frames.append(_frame(g, shown, "show", seat, k + 1))
        elif kind == "play":
            lead = not before.current_trick
            frames.append(_frame(g, f"seat {seat} {'leads' if lead else 'follows'} {act[2]}", "play", seat, k + 1))
            frames[-1]["note"] = note
        if ends_deal:  # one frame: the state after the last decision of the deal is revealed (R8.2)
            label = "three deals without a showing: the hand stops (R8.5)" if g.stopped else (
                f"the deal ends: trump {g.trump}, banker seat {g.banker} (R8.2 reveals the suit)"
            )
            frames.append(_frame(g, f"{shown}; {label}" if shown else label, "reveal", seat if shown else None, k + 1))
        if decisions and k in decisions:
            frames[-1]["decision"] = decisions[k]
    tricks = []
    running = game._g.defender_points_by_trick()
    for i, t in enumerate(game.tricks):
        tricks.append({
            "leader": t.leader,
            "plays": [[s, [int(c) for c in cards]] for s, cards in t.plays],
            "winner": t.winner,
            "points": t.points,
            "defenders": running[i] if i < len(running) else None,
        })
    # the frame at which each trick is complete
    done = [0] * len(tricks)
    for j, f in enumerate(frames):
        if f["kind"] == "play" and f["trick"] >= 1 and not f["current"]:
            done[f["trick"] - 1] = j
    start = rec["start"]
    return {
        "format": VIEW_FORMAT,
        "version": VIEW_VERSION,
        "engine": rec["engine"],
        "record_format": [rec["format"], rec["format_version"]],
        "title": title or f"tractor-engine hand ({rec['profile']})",
        "profile": rec["profile"],
        "hand_index": game.info(0).hand_index,
        "start_levels": list(start["levels"]) if "levels" in start else list(game.levels),
        "start_banker": start.get("banker", game.banker),
        "level": game.level,
        "banker": game.banker,
        "trump": game.trump,
        "declarer": game.declarer,
        "stopped": game.stopped,
        "showings": _showings(game),
        "cards": [str(CARDS[k]) for k in range(54)],
        "frames": frames,
        "tricks": tricks,
        "trick_frames": done,
        "result": _result(game),
    }
