"""Bad arguments of the public API: each is refused with a TractorError subclass (a ValueError)
whose message names the argument, before anything changes. One class and one message shape per
kind of bad value (a profile, a policy, a seed, a count, a flag, threads, a seat), whatever the
entry point: the rules API, Game and Match, VecEnv, the searches, ``simulate`` and the envs."""

from __future__ import annotations

import numpy as np
import pytest

import tractor
from tractor import Card, Context, Game, Match
from tractor import errors as E

G = Context(10, "h")
HUGE = [2**63, 2**64, -1, float("inf"), float("nan"), True, np.float64(2.0)]


@pytest.mark.parametrize("v", HUGE, ids=repr)
def test_huge_and_odd_numbers_as_cards_seats_seeds_counts(v):
    calls = [
        (lambda: Card(v), E.CardParseError, "card"),
        (lambda: tractor.format([v]), E.CardParseError, "card"),
        (lambda: G.is_trump(v), E.CardParseError, "card"),
        (lambda: G.classify([v]), E.TractorError, ""),
        (lambda: G.random_follow("As Ks", "3s", v), E.InvalidArgument, "seed"),
        (lambda: G.nth_legal_follow("As Ks", "3s", v), E.TractorError, "index"),  # too big: past the last
        (lambda: Game(v), E.InvalidArgument, "seed"),
        (lambda: Game.deal(v), E.InvalidArgument, "hand_seed"),
        (lambda: Game.deal(1, banker=v), E.InvalidSeat, "banker"),
        (lambda: Game.deal(1, hand_index=v), E.InvalidArgument, "hand_index"),
        (lambda: Game(1).hand(v), E.InvalidSeat, "seat"),
        (lambda: Match(1).play_random(hands=v), E.InvalidArgument, "hands"),
    ]
    seeds = {"seed", "hand_seed"}
    for f, cls, word in calls:
        if v == 2**63 and word in seeds:
            f()  # 2**63 is a valid 64-bit seed: it must work
            continue
        with pytest.raises(cls) as e:
            f()
        assert isinstance(e.value, ValueError) and word in str(e.value)
        assert cls is E.TractorError or type(e.value) is cls, (word, e.value)


@pytest.mark.parametrize("levels", [(3,), (3, 3, 3), [], "33", {}, None, (3, "X"), (3, 2)], ids=repr)
def test_bad_levels(levels):
    with pytest.raises(E.InvalidContext, match="level"):
        Game.deal(1, levels=levels)


def test_banker_255_is_not_no_banker():
    with pytest.raises(E.InvalidSeat, match="banker 255"):
        Game.deal(1, banker=255)
    assert Game.deal(1, banker=None).banker is None


def test_banker_7_is_a_bad_seat_not_invalid_plays():
    with pytest.raises(E.InvalidSeat) as e:
        Game.deal(1, banker=7)
    assert not isinstance(e.value, E.InvalidPlays)


def test_deeply_nested_json():
    for text in ["[" * 100_000, "{\"a\":" * 100_000]:
        with pytest.raises(E.InvalidRecord):
            Game.from_json(text)


@pytest.mark.parametrize("name", ["\ud800", "nan\udcffning"], ids=repr)
def test_lone_surrogates(name):
    for f in (lambda: Game(0, name), lambda: Match(0, name), lambda: Context(10, "h", name),
              lambda: tractor.parse(name), lambda: Card(name)):
        with pytest.raises(E.TractorError):
            f()
    with pytest.raises(E.InvalidPolicy):
        Game(0).playout(name)


def test_context_names_the_bad_level_text():
    with pytest.raises(E.InvalidContext, match='"X"'):
        Context("X", "h")


def test_record_seat_as_a_string():
    g = Game(3)
    g.play_random(1)
    rec = g.record()
    rec["actions"][0][0] = str(rec["actions"][0][0])
    with pytest.raises(E.InvalidRecord, match=r"actions\[0\] seat must be an int, got str"):
        Game.from_record(rec)


@pytest.mark.parametrize("t", [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64])
def test_numpy_integers_everywhere(t):
    g = Game(t(5))
    assert g == Game(5)
    assert G.random_follow("As Ks 3s", "4s", t(7)) == G.random_follow("As Ks 3s", "4s", 7)
    assert len(G.legal_follows("As Ks 3s", "4s", t(10))) == 3
    m = Match(t(2))
    m.play_random(hands=t(1), seed=t(3))
    assert len(m.history) == 1
    assert Game.deal(t(9), levels=(t(3), t(3))) == Game.deal(9)


@pytest.mark.parametrize("name", ["NANNING", " Nanning ", "nanning"])
def test_profile_names_are_normalised(name):
    assert Game(1, name).profile == Match(1, name).profile == Context(10, "h", name).profile == "nanning"
    assert tractor.simulate(hands=2, profile=name, threads=1).profile == "nanning"


def test_match_play_random_checks_its_count_first():
    m = Match(1)
    before = m._m.state()
    with pytest.raises(E.InvalidArgument, match="hands"):
        m.play_random(hands=2**64 - 1)
    assert m._m.state() == before and m.game.phase == "declare"
