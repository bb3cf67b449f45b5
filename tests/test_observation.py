"""``Game.observation(seat)``: what one seat may know (R8.2 hidden declaring), nothing more.

- its own hand only, the four hand sizes, the public plays;
- during the deal: who showed and how many, the suit only of the seat's own showings, no trump;
- after the deal: the final declaration's suit;
- no field anywhere holds another seat's hidden cards: observations of two games that differ
  only in the other seats' hidden cards are equal.
"""

from __future__ import annotations

import dataclasses
import os
import sys

import pytest

import tractor
from tractor import Card, Declare, IllegalAction, Observation

sys.path.insert(0, os.path.dirname(__file__))
from _game_util import build_deck, drive_deal, script  # noqa: E402

FIELDS = {
    # what a seat knows: deal order, its own arrivals and decisions, levels,
    # the hand's index and the proven voids; reviewed for leaks below
    "first_seat",
    "cards_dealt",
    "arrivals",
    "own_decisions",
    # the profile's name: public, the same for every seat (added with the competition profile)
    "profile",
    "levels",
    "hand_index",
    "voids",
    # the rule set the hand is played under: public
    "profile",
    "seat",
    "phase",
    "hand",
    "hand_sizes",
    "level",
    "trump",
    "banker",
    "declarer",
    "showings",
    "current_player",
    "current_trick",
    "tricks",
    "defender_points",
    "result",
}

#: Seat 0 shows h1 at card 1, seat 1 overturns with s2 at card 10, seat 2 holds three 3d from
#: its 21st card on and is asked at card 83 (its 21st card): still dealing.
LEVEL_CARDS = {
    0: {0: "3h", 30: "3d", 31: "3c"},
    1: {0: "3s", 2: "3s", 30: "3h", 31: "3c"},
    2: {18: "3d", 19: "3d", 20: "3d", 30: "3h", 31: "3c", 32: "3s"},
    3: {30: "3h", 31: "3c", 32: "3s"},
}


def _deal(fill_seed=0, swap=None):
    deck = build_deck(LEVEL_CARDS, fill_seed=fill_seed)
    if swap is not None:
        i, j = swap
        deck[i], deck[j] = deck[j], deck[i]
    return tractor.Game.deal(1, deck=deck, first_seat=0)


def _advance(g, until):
    """Applies the scripted showings until the decision (dealt, seat) == until."""
    moves = {(1, 0): Declare("h", 1), (10, 1): Declare("s", 2)}
    while (g._g.dealt, g.current_player) != until:
        assert g.phase == "declare"
        g.apply(moves.get((g._g.dealt, g.current_player), tractor.Pass()))


def _cards_in(value):
    """Every Card anywhere inside an observation field."""
    if isinstance(value, Card):
        yield value
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _cards_in(v)
    elif dataclasses.is_dataclass(value):
        for f in dataclasses.fields(value):
            yield from _cards_in(getattr(value, f.name))
    elif isinstance(value, dict):
        for v in value.values():
            yield from _cards_in(v)


def _arrivals(g: tractor.Game, seat: int):
    """The seat's cards of the current attempt in dealing order, from the deck (R1.3)."""
    deck, first = g._g.deck(), g._g.first_seat
    dealt = g._g.dealt if g.phase == "declare" else 216
    return [deck[t] for t in range(dealt) if (first + t) % 4 == seat] if g.record()["start"]["kind"] == "deal" else []


def check_no_hidden_cards(g: tractor.Game, seat: int) -> Observation:
    """The observation's fields: own hand = the seat's hand; sizes; cards only in the own hand
    and the public plays."""
    o = g.observation(seat)
    assert {f.name for f in dataclasses.fields(o)} == FIELDS, "a new field: review it for leaks"
    assert o.seat == seat
    assert sorted(o.hand) == sorted(g.hand(seat))
    assert o.hand_sizes == tuple(len(g.hand(s)) for s in range(4))
    for f in dataclasses.fields(o):
        if f.name in ("hand",):
            continue
        cards = list(_cards_in(getattr(o, f.name)))
        if f.name == "arrivals":
            # the seat's own cards, in arrival order: in its hand or played by it
            own_played = [c for t in g.tricks for s, cs in t.plays if s == seat for c in cs]
            own_played += [c for s, cs in g.current_trick if s == seat for c in cs]
            if g.record()["start"]["kind"] == "deal":
                assert sorted(cards) == sorted(list(g.hand(seat)) + own_played)
            assert [int(c) for c in cards] == _arrivals(g, seat)
        elif f.name in ("tricks", "current_trick"):
            assert sorted(cards) == sorted(
                [c for t in g.tricks for _, cs in t.plays for c in cs]
                if f.name == "tricks"
                else [c for _, cs in g.current_trick for c in cs]
            )
        else:
            assert cards == [], f"field {f.name} holds cards"
    assert o.tricks == g.tricks and o.current_trick == g.current_trick
    assert o.defender_points == g.defender_points and o.result == g.result
    assert o.level == g.level and o.banker == g.banker and o.declarer == g.declarer
    if g.phase == "declare" and g.current_player != seat:
        # whose decision it is while dealing would tell who can show (R8.2): hidden
        assert o.current_player is None
    else:
        assert o.current_player == g.current_player
    assert o.phase == g.phase
    return o


def test_r8_2_during_the_deal_suits_are_hidden():
    g = _deal()
    _advance(g, (83, 2))
    assert g.phase == "declare" and g.declaration == (1, "s", 2)
    for seat in range(4):
        o = check_no_hidden_cards(g, seat)
        assert o.trump is None, "R8.2: no trump while dealing"
        assert [(s.seat, s.count, s.dealt, s.attempt) for s in o.showings] == [(0, 1, 1, 0), (1, 2, 10, 0)], (
            "who showed and how many is public"
        )
        for s in o.showings:
            assert s.suit == ({0: "h", 1: "s"}[s.seat] if s.seat == seat else None)
        assert o.declarer == 1
        assert o.phase == "declare"
        assert o.current_player == (2 if seat == 2 else None)


def test_r8_2_after_the_deal_the_final_suit_is_public():
    g = _deal()
    _advance(g, (83, 2))
    g.apply(tractor.Pass())
    drive_deal(g)
    assert g.phase == "play" and g.trump == "s" and g.declarer == 1
    for seat in range(4):
        o = check_no_hidden_cards(g, seat)
        assert o.trump == "s"
        assert o.declarer == 1 and o.banker == 1
        final = [s for s in o.showings if s.seat == 1]
        assert [s.suit for s in final] == ["s"], "R8.2: the final declaration's suit is public"
        # The overturned showing of seat 0 stays hidden from the others.
        first = o.showings[0]
        assert first.seat == 0 and first.suit == ("h" if seat == 0 else None)


def test_r8_2_reinforced_final_declaration_is_public():
    lc = {
        0: {0: "3h", 5: "3h", 1: "3s", 2: "3d", 3: "3c"},
        1: {0: "3h", 1: "3s", 2: "3d", 3: "3c"},
        2: {0: "3h", 1: "3s", 2: "3d", 3: "3c"},
        3: {1: "3s", 2: "3d", 3: "3c"},
    }
    g = tractor.Game.deal(1, deck=build_deck(lc), first_seat=0)
    g.apply(Declare("h", 1))
    assert g.phase == "declare"
    for seat in (1, 2, 3):
        assert [s.suit for s in g.observation(seat).showings] == [None]
    drive_deal(g, script({(21, 0): Declare("h", 2)}))
    for seat in range(4):
        o = g.observation(seat)
        assert [(s.seat, s.count, s.suit) for s in o.showings] == [(0, 1, "h"), (0, 2, "h")]
        assert o.trump == "h"


def test_observation_equal_when_only_hidden_cards_differ_during_deal():
    """Swap two filler cards between seats 1 and 3 (deck cards 49 and 51: seat 1's and seat 3's
    13th cards, neither a level card): the observations of seats 0 and 2 are unchanged."""
    a = _deal()
    deck = build_deck(LEVEL_CARDS)
    assert deck[49] != deck[51] and all(c.rank != 3 for c in (deck[49], deck[51]))
    b = _deal(swap=(49, 51))
    for g in (a, b):
        _advance(g, (83, 2))
    for seat in (0, 2):
        assert a.observation(seat) == b.observation(seat)
    assert a.observation(1) != b.observation(1)


def test_observation_equal_when_only_hidden_cards_differ_in_play():
    hands_a = ["As As 6d 7d", "Ks Ks 3s 4d", "5s 8d 9d Jd", "Qd Qd 4s 3d"]
    hands_b = ["As As 6d 7d", "Ks Ks 3s 3d", "5s 8d 9d Jd", "Qd Qd 4s 4d"]  # 4d/3d swapped
    a = tractor.Game.from_deal(hands_a, level=10, trump="h", banker=0)
    b = tractor.Game.from_deal(hands_b, level=10, trump="h", banker=0)
    for g in (a, b):
        g.apply("As As")
    for seat in (0, 2):
        assert a.observation(seat) == b.observation(seat)
    for g in (a, b):
        g.apply("Ks Ks")
        g.apply("5s 8d")
    for seat in (0, 2):
        assert a.observation(seat) == b.observation(seat)
        check_no_hidden_cards(a, seat)


def test_observation_through_a_whole_hand():
    g = tractor.Game(seed=31)
    i = 0
    while g.phase != "over":
        if i % 7 == 0:
            for seat in range(4):
                o = check_no_hidden_cards(g, seat)
                if g.phase == "declare":
                    assert o.trump is None
                    assert all(s.suit is None for s in o.showings if s.seat != seat)
                else:
                    assert o.trump == g.trump
        g.step_random(i)
        i += 1
    for seat in range(4):
        o = check_no_hidden_cards(g, seat)
        assert o.result == g.result and o.hand == [] and o.hand_sizes == (0, 0, 0, 0)
        assert o.current_player is None


def test_observation_of_a_stopped_hand():
    g = tractor.Game(seed=5)
    drive_deal(g)
    assert g.stopped
    for seat in range(4):
        o = check_no_hidden_cards(g, seat)
        assert o.trump is None and o.result is None and o.showings == [] and o.phase == "over"


@pytest.mark.parametrize("seat", [-1, 4, None, "1", 1.0, True])
def test_observation_bad_seat(seat):
    g = tractor.Game(seed=1)
    with pytest.raises(IllegalAction):
        g.observation(seat)
