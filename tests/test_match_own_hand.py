"""A Match scores only its own current hand (R7.4-R7.6). Another match's hand,
a from_deal game, a hand dealt from a given deck, a determinized world, a Game(seed) or the
same finished hand twice are refused with ForeignHand (an IllegalAction), and the match is
left exactly as it was."""

from __future__ import annotations

import pytest

import tractor
from tractor import Game, Match
from tractor.errors import ForeignHand, IllegalAction, TractorError


def finished(g: Game, seed: int = 1) -> Game:
    g.play_random(seed)
    return g


def state(m: Match):
    return (m._m.state(), m.levels, m.banker, m.winner, m.history, m.game.to_json())


def refused(m: Match, other: Game) -> ForeignHand:
    before = state(m)
    m.game = other
    with pytest.raises(ForeignHand) as e:
        m.next_hand()
    assert isinstance(e.value, IllegalAction) and isinstance(e.value, TractorError)
    assert "R7.4" in str(e.value) and "current hand" in str(e.value)
    assert m.game is other  # next_hand did not replace it
    assert state(m)[:5] == before[:5]
    return e.value


def test_own_hand_is_accepted():
    m = Match(seed=5)
    m.play_random(hands=3, seed=2)
    assert len(m.history) == 3 and m._m.index == 3


def test_from_deal_game_is_refused():
    m = Match(seed=5)
    fd = Game.from_deal(["As", "Ks", "Qs", "Js"], level=14, trump="s", banker=0)
    finished(fd)
    refused(m, fd)


def test_another_matchs_hand_is_refused():
    m, other = Match(seed=5), Match(seed=6)
    refused(m, finished(other.game))


def test_same_finished_hand_twice_is_refused():
    m = Match(seed=5)
    g = finished(m.game)
    m.next_hand()
    refused(m, g)


def test_a_hand_of_the_same_seed_at_another_index_is_refused():
    m = Match(seed=5)
    m.play_random(hands=1, seed=3)
    first = Match(seed=5).game  # hand 0 of an identical match
    refused(m, finished(first))


def test_given_deck_and_determinized_world_are_refused():
    m = Match(seed=5)
    g = m.game
    world = g.determinize(0, seed=9)
    refused(m, finished(world))
    rec = g.record()["start"]
    deck = [tractor.Card(i) for i in g._g.deck()]
    dealt = Game.deal(rec["hand_seed"], tuple(rec["levels"]), rec["banker"], deck=deck, first_seat=g._g.first_seat)
    refused(m, finished(dealt))


def test_game_of_the_matchs_seed_is_not_the_match_hand():
    # Game(seed) is hand 0 of a new match with that seed: the same deal as Match(seed).game,
    # so it is that match's hand; a Game with another seed is not.
    m = Match(seed=5)
    refused(m, finished(Game(seed=6)))
    m.game = finished(Game(seed=5))
    m.next_hand()
    assert len(m.history) == 1


def test_other_profile_is_refused():
    m = Match(seed=5)
    refused(m, finished(Match(seed=5, profile="nanning").game))


def test_unfinished_hand_is_refused_unchanged():
    m = Match(seed=5)
    before = state(m)
    with pytest.raises(IllegalAction, match="not finished"):
        m.next_hand()
    assert state(m) == before


def test_pickled_match_keeps_accepting_its_hand():
    import pickle

    m = Match(seed=5)
    m.play_random(hands=2, seed=1)
    m2 = pickle.loads(pickle.dumps(m))
    m2.play_random(hands=1, seed=1)
    m.play_random(hands=1, seed=1)
    assert m.history == m2.history
