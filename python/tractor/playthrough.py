"""A whole hand as text a person can read: the deal's showings, the hands, trick by trick
with the winner and the points, and the result. Golden files under ``tests/golden`` are these
texts; any drift in the rules, the PRNG or the deal shows up as a diff."""

from __future__ import annotations

from typing import List

from .cards import cards_from_counts
from .errors import InvalidArgument
from .game import Game


def _cards(cards) -> str:
    return " ".join(str(c) for c in cards) or "-"


def playthrough(game: Game) -> str:
    """Renders a finished (or running) hand. Deterministic: the same hand, the same text.
    Raises InvalidArgument if ``game`` is not a :class:`~tractor.Game`."""
    if not isinstance(game, Game):
        raise InvalidArgument(f"game must be a tractor.Game, got {type(game).__name__}")
    rec = game.record()
    start = rec["start"]
    out: List[str] = [
        "# tractor-engine hand",
        f"profile: {rec['profile']}  record format: {rec['format_version']}",
    ]
    if start["kind"] == "deal":
        banker = "-" if start["banker"] is None else start["banker"]
        out.append(
            f"start: deal from hand seed {start['hand_seed']}, levels {start['levels'][0]}/{start['levels'][1]}, "
            f"banker {banker}"
        )
        for s in game.showings():
            out.append(f"  attempt {s.attempt}, {s.dealt:3d} cards dealt: seat {s.seat} shows {s.count} x {s.suit}")
        if game.stopped:
            out.append("stopped: three deals without a showing (R8.5)")
            return "\n".join(out) + "\n"
    else:
        out.append("start: given hands")
    out.append(f"level {game.level}, trump {game.trump}, banker {game.banker}, declarer {game.declarer}")
    first = [list(h) for h in (_initial_hands(game))]
    for seat in range(4):
        out.append(f"  seat {seat}: {_cards(first[seat])}")
    tricks = game.tricks
    running = game._g.defender_points_by_trick()  # R7.2, from the engine
    for i, t in enumerate(tricks, 1):
        out.append(f"trick {i}, seat {t.leader} leads")
        for seat, cards in t.plays:
            out.append(f"  {seat}: {_cards(cards)}")
        side = "defenders" if (t.winner - (game.banker or 0)) % 2 else "bankers"
        if i < len(tricks) or game.result is None:
            out.append(f"  won by seat {t.winner} ({side}), {t.points} points; defenders {running[i - 1]}")
        else:
            out.append(f"  won by seat {t.winner} ({side}), {t.points} points; last trick")
    for seat, cards in game.current_trick:
        out.append(f"  {seat}: {_cards(cards)} (trick in progress)")
    r = game.result
    if r is not None:
        if r.defenders_take_over:
            what = f"defenders take over, +{r.defender_levels}"
        else:
            what = f"bankers +{r.banker_levels}"
        out.append(f"result: score {r.score}: {what}; next banker {r.next_banker}")
    return "\n".join(out) + "\n"


def _initial_hands(game: Game):
    """The hands as they stood when the tricks began."""
    hands = [list(game.hand(s)) for s in range(4)]
    played = [[] for _ in range(4)]
    for t in game.tricks:
        for seat, cards in t.plays:
            played[seat].extend(cards)
    for seat, cards in game.current_trick:
        played[seat].extend(cards)
    return [sorted(hands[s] + played[s]) for s in range(4)]


__all__ = ["playthrough", "cards_from_counts"]
