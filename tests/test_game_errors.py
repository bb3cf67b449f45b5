"""Every rejected action raises a ``tractor.TractorError`` subclass and changes nothing:
``to_json()`` is byte-identical before and after, and the game still equals a clone taken
before. Acting out of turn cannot be expressed (``apply`` acts for ``current_player``)."""

from __future__ import annotations

import copy
import os
import sys

import numpy as np
import pytest

import tractor
from tractor import Declare, IllegalAction, IllegalFollow, Pass, Play, TractorError

sys.path.insert(0, os.path.dirname(__file__))
from _game_util import build_deck, drive_deal  # noqa: E402


def assert_refused(g: tractor.Game, action, exc=TractorError, prefix=None):
    before = g.to_json()
    twin = g.clone()
    with pytest.raises(exc) as info:
        g.apply(action)
    assert isinstance(info.value, TractorError)
    if prefix is not None:
        assert str(info.value).startswith(prefix), str(info.value)
    assert g.to_json() == before, f"{action!r} changed the game"
    assert g == twin
    return info.value


# A small play position (level 10, hearts trump, banker 0 leads).
HANDS = ["As As 6d 7d", "Ks Ks 3s 4d", "5s 8d 9d Jd", "Qd Qd 4s 3d"]


@pytest.fixture
def leading():
    return tractor.Game.from_deal(HANDS, level=10, trump="h", banker=0)


@pytest.fixture
def following(leading):
    leading.apply("As As")
    return leading


@pytest.fixture
def dealing():
    """Seat 0 holds one 3h (card 1) and is asked; seat 1 will hold 3s 3s 3s."""
    lc = {
        0: {0: "3h", 20: "3d", 21: "3c"},
        1: {0: "3s", 1: "3s", 2: "3s", 20: "3h", 21: "3d", 22: "3c"},
        2: {20: "3h", 21: "3d", 22: "3c"},
        3: {20: "3h", 21: "3d", 22: "3c", 23: "3s"},
    }
    g = tractor.Game.deal(1, deck=build_deck(lc), first_seat=0)
    assert (g.current_player, g._g.dealt) == (0, 1)
    return g


@pytest.fixture
def finished():
    g = tractor.Game(seed=3)
    g.play_random(4)
    assert g.result is not None
    return g


@pytest.fixture
def stopped():
    g = tractor.Game(seed=5)
    drive_deal(g)
    assert g.stopped
    return g


# -- play phase ------------------------------------------------------------------------------


def test_illegal_follow_r5_3(following):
    # Seat 1 holds Ks Ks 3s: T1 demands the pair Ks Ks.
    e = assert_refused(following, "Ks 3s", IllegalFollow, "R5.3")
    assert isinstance(e, IllegalAction)
    assert e.rule.startswith("R5.3") and e.required_tier == "T1"
    assert e.example is not None and sorted(e.example) == sorted(tractor.parse("Ks Ks"))
    following.apply("Ks Ks")


def test_illegal_follow_r5_2(following):
    following.apply("Ks Ks")
    # Seat 2 holds one spade (5s): it must be played (R5.2).
    e = assert_refused(following, "8d 9d", IllegalFollow, "R5.2")
    assert e.rule.startswith("R5.2")
    assert Play(tuple(tractor.parse("8d 9d"))) not in following.legal_actions()


def test_follow_of_wrong_size_r5_1(following):
    assert_refused(following, "Ks", IllegalAction, "R5.1")
    assert_refused(following, "Ks Ks 3s", IllegalAction, "R5.1")
    assert_refused(following, Play(()), IllegalAction, "R5.1")


def test_lead_not_a_combination_r3_4(leading):
    assert_refused(leading, "As 6d", IllegalAction, "R3.4")
    assert_refused(leading, "As As 6d", IllegalAction, "R3.4")
    assert_refused(leading, "6d 7d", IllegalAction, "R3.4")
    assert_refused(leading, "", IllegalAction, "R3.4")


@pytest.mark.parametrize("cards", ["BJ", "Ks", "As As As", "Qd Qd"])
def test_cards_not_held(leading, cards):
    assert_refused(leading, cards, IllegalAction)


def test_cards_not_held_when_following(following):
    assert_refused(following, "As As", IllegalAction)
    assert_refused(following, "Qd Qd", IllegalAction)


@pytest.mark.parametrize("action", [Pass(), "pass", Declare("h", 1), Declare("s", 2)])
def test_declare_or_pass_while_playing(leading, action):
    e = assert_refused(leading, action, IllegalAction)
    assert str(e).startswith("R8")


def test_declare_with_bad_arguments_while_playing(leading):
    assert_refused(leading, Declare("x", 1), TractorError)
    assert_refused(leading, Declare("h", 0), IllegalAction, "R8.1")


# -- dealing -----------------------------------------------------------------------------------


@pytest.mark.parametrize("cards", ["3h", "As", Play(()), [tractor.Card("3h")]])
def test_play_while_dealing(dealing, cards):
    e = assert_refused(dealing, cards, IllegalAction)
    assert str(e).startswith("R8.1")


@pytest.mark.parametrize(
    "action",
    [
        Declare("h", 2),  # holds one 3h
        Declare("s", 1),  # holds no 3s
        Declare("d", 1),
        Declare("h", 5),  # a showing has at most 4 cards
        Declare("h", 0),
        Declare("h", -1),
        Declare("h", True),
        Declare("h", 1.0),
        Declare("h", None),
    ],
)
def test_declare_with_cards_not_held(dealing, action):
    assert_refused(dealing, action, IllegalAction, "R8.1")


@pytest.mark.parametrize("action", [Declare("x", 1), Declare(None, 1), Declare("", 1), Declare(7, 1)])
def test_declare_with_bad_suit(dealing, action):
    assert_refused(dealing, action, TractorError)


def test_declare_not_beating_the_current_showing(dealing):
    dealing.apply(Declare("h", 1))
    # Seat 1 receives its second 3s as card 6: it may show s2, not s1 (R8.1: more than 1).
    assert (dealing.current_player, dealing._g.dealt) == (1, 6)
    assert dealing.legal_actions() == [Pass(), Declare("s", 2)]
    e = assert_refused(dealing, Declare("s", 1), IllegalAction, "R8.1")
    assert "more than" in str(e)
    assert_refused(dealing, Declare("h", 1), IllegalAction, "R8.1")
    assert_refused(dealing, Declare("s", 3), IllegalAction, "R8.1")  # holds two
    dealing.apply(Pass())
    # With its third 3s (card 10): s2 or s3.
    assert (dealing.current_player, dealing._g.dealt) == (1, 10)
    assert dealing.legal_actions() == [Pass(), Declare("s", 2), Declare("s", 3)]
    dealing.apply(Declare("s", 3))
    assert dealing.declaration == (1, "s", 3)


# -- after the end -------------------------------------------------------------------------------


@pytest.mark.parametrize("action", [Pass(), Declare("h", 1), "3h", "As", Play(())])
def test_any_action_after_the_end(finished, stopped, action):
    for g in (finished, stopped):
        assert g.legal_actions() == [] and g.current_player is None
        assert_refused(g, action, IllegalAction)


def test_step_random_after_the_end(finished, stopped):
    for g in (finished, stopped):
        before = g.to_json()
        assert g.step_random(1) is False
        g.play_random(2)
        assert g.to_json() == before


# -- garbage ------------------------------------------------------------------------------------

GARBAGE = [
    None,
    42,
    1.5,
    object(),
    "Xz",
    "As Bs",
    "As As As As As",
    b"\x00" * 53,
    bytes([5] + [0] * 53),
    [0] * 53 + [5],
    [-1] * 54,
    [0.5] * 54,
    ["As", 3],
    [None],
    [True, False],
    {"As": 1},
    np.zeros(53, dtype=np.uint8),
    np.zeros((2, 54), dtype=np.uint8),
    np.zeros(54, dtype=np.float64),
    Play(("As", 99)),
]


# ids that are the same in every process (an object's repr holds its address): pytest-xdist's
# workers must collect the same tests
@pytest.mark.parametrize("bad", GARBAGE, ids=[type(x).__name__ if type(x) is object else repr(x)[:30] for x in GARBAGE])
def test_garbage_is_refused(leading, following, dealing, bad):
    for g in (leading, following, dealing):
        assert_refused(g, bad, TractorError)


def test_garbage_in_other_entry_points(leading, dealing):
    for g in (leading, dealing):
        before = g.to_json()
        for bad in (-1, 4, None, "0", True):
            with pytest.raises(TractorError):
                g.hand(bad)
            with pytest.raises(TractorError):
                g.observation(bad)
        for bad in (-1, 2**64, None, 1.5, "1"):
            with pytest.raises(TractorError):
                g.step_random(bad)
            with pytest.raises(TractorError):
                g.play_random(bad)
        assert g.to_json() == before
    lp = leading.legal_actions()
    for bad in (-1, 2**64, None):
        with pytest.raises(TractorError):
            lp.sample(bad)
    for bad in (None, "Xz", 42, [0] * 53, "As As As As As"):
        assert bad not in lp


def test_bad_constructor_arguments():
    with pytest.raises(TractorError):
        tractor.Game.from_deal(HANDS[:3])
    with pytest.raises(TractorError):
        tractor.Game.from_deal(["As", "Ks", "Qs", "Js Js"])  # R1.3: equal sizes
    with pytest.raises(TractorError):
        tractor.Game.from_deal(["As As As", "As As", "Qs", "Js"])
    with pytest.raises(TractorError):
        tractor.Game.from_deal(["", "", "", ""])
    with pytest.raises(TractorError):
        tractor.Game.from_deal(HANDS, level=2)
    with pytest.raises(TractorError):
        tractor.Game.from_deal(HANDS, trump="x")
    with pytest.raises(TractorError):
        tractor.Game.from_deal(HANDS, banker=4)
    with pytest.raises(TractorError):
        tractor.Game.from_deal(HANDS, profile="beijing")
    deck = build_deck({s: {0: "3h", 1: "3s", 2: "3d", 3: "3c"} for s in range(4)})
    with pytest.raises(TractorError):
        tractor.Game.deal(1, deck=deck[:-1])
    with pytest.raises(TractorError):
        tractor.Game.deal(1, deck=deck[:-1] + [deck[0]])  # five of one kind
    with pytest.raises(TractorError):
        tractor.Game.deal(1, deck=deck, first_seat=4)
    with pytest.raises(TractorError):
        tractor.Game.deal(1, levels=(2, 3))
    with pytest.raises(TractorError):
        tractor.Game.deal(1, banker=5)
    with pytest.raises(TractorError):
        tractor.Game.deal(-1)
    with pytest.raises(TractorError):
        tractor.Game(seed=-1)


def test_match_next_hand_before_the_end_is_refused():
    m = tractor.Match(seed=2)
    before = m.game.to_json()
    with pytest.raises(IllegalAction):
        m.next_hand()
    assert m.game.to_json() == before and m.history == [] and m.levels == (3, 3)
    with pytest.raises(TractorError):
        m.play_random()


# -- clone ---------------------------------------------------------------------------------------


def test_clone_is_independent(following, dealing):
    for g in (following, dealing):
        c = g.clone()
        assert c == g and c.to_json() == g.to_json()
        before = g.to_json()
        c.play_random(9)
        assert c.phase == "over"
        assert g.to_json() == before, "playing the clone changed the original"
        assert c != g
        d = copy.copy(g)
        g.play_random(10)
        assert d.to_json() == before, "playing the original changed the copy"
