"""Scripted hands for RULES §7 (scoring, levels, banker) and §8 (declaring), rule by rule.

Declaring runs on constructed decks (``Game.deal(..., deck=..., first_seat=...)``): card t
goes to seat (first_seat + t) % 4, so we decide who receives which level card when. The
engine asks only a seat that has just received a card and has something to show (D7), so
every decision point below is predictable. Scoring runs on small ``Game.from_deal`` hands.
"""

from __future__ import annotations

import os
import sys

import pytest

import tractor
from tractor import Declare, IllegalAction, Pass

sys.path.insert(0, os.path.dirname(__file__))
from _game_util import build_deck, dealt_when, drive_deal, play_out, script  # noqa: E402

# ---------------------------------------------------------------------------------------------
# §8 Declaring
# ---------------------------------------------------------------------------------------------

#: Every seat receives one 3 of each suit as its first four cards: after any one-card showing
#: nobody else can ever show (an overturn needs two of a suit, the declarer has one of its suit).
ONE_OF_EACH = {s: {0: "3h", 1: "3s", 2: "3d", 3: "3c"} for s in range(4)}


def _deal(level_cards, first_seat=0, levels=(3, 3), banker=None, level=3, profile="guigang", fill_seed=0):
    deck = build_deck(level_cards, level=level, first_seat=first_seat, fill_seed=fill_seed)
    return tractor.Game.deal(1, levels=levels, banker=banker, profile=profile, deck=deck, first_seat=first_seat)


def _asks(log):
    return [(dealt, seat) for dealt, seat, _ in log]


def test_r8_1_first_showing_sets_trump_and_r8_4_declarer_becomes_banker():
    g = _deal(ONE_OF_EACH)
    # Seat 0 received 3h as card 1 and is asked at once.
    assert g.phase == "declare"
    assert (g._g.dealt, g.current_player) == (1, 0)
    assert g.trump is None and g.banker is None and g.declaration is None and g.declarer is None
    assert g.legal_actions() == [Pass(), Declare("h", 1)]
    g.apply(Declare("h", 1))
    # Nobody else can show more than one card: the deal ends without another decision.
    assert g.phase == "play"
    assert g.trump == "h"
    assert g.declaration == (0, "h", 1)
    assert g.declarer == 0
    assert g.banker == 0, "R8.4: in a match's first hand the final declarer becomes banker"
    assert g.level == 3
    assert g.current_player == 0, "R6.3: the banker leads the first trick"
    assert [(s.seat, s.count, s.suit, s.dealt, s.attempt) for s in g.showings()] == [(0, 1, "h", 1, 0)]
    assert [len(g.hand(s)) for s in range(4)] == [54] * 4


def test_r8_1_first_showing_any_seat_any_time():
    # Seat 2 is the first to get a level card, as its 10th card; with first_seat 3 that is card
    # 4*9 + (2-3)%4 + 1 = 40. All other level cards come later and one per suit per seat.
    lc = {s: {20: "3h", 21: "3s", 22: "3d", 23: "3c"} for s in range(4)}
    lc[2] = {9: "3d", 21: "3s", 22: "3h", 23: "3c"}
    g = _deal(lc, first_seat=3)
    log = drive_deal(g, script({(40, 2): Declare("d", 1)}))
    assert _asks(log) == [(40, 2)]
    assert log[0][2] == [Pass(), Declare("d", 1)]
    assert g.trump == "d" and g.banker == 2 and g.declarer == 2
    assert g.showings()[0].dealt == 40


def test_r8_1_reinforce():
    lc = {
        0: {0: "3h", 5: "3h", 1: "3s", 2: "3d", 3: "3c"},
        1: {0: "3h", 1: "3s", 2: "3d", 3: "3c"},
        2: {0: "3h", 1: "3s", 2: "3d", 3: "3c"},
        3: {1: "3s", 2: "3d", 3: "3c"},
    }
    g = _deal(lc)
    second = dealt_when(0, 5)  # 21
    log = drive_deal(g, script({(1, 0): Declare("h", 1), (second, 0): Declare("h", 2)}))
    # The declarer is asked again only when it can reinforce (the second 3h), never for 3s/3d/3c.
    assert _asks(log) == [(1, 0), (second, 0)]
    assert log[1][2] == [Pass(), Declare("h", 2)]
    assert g.declaration == (0, "h", 2)
    assert g.trump == "h" and g.banker == 0
    assert [(s.seat, s.suit, s.count) for s in g.showings()] == [(0, "h", 1), (0, "h", 2)]


# Level cards for the overturn test: seat 1 gets two of `suit` as its 1st and 3rd cards; nobody
# else ever holds two of one suit, and seat 0 shows 3h at once.
OVERTURN = {
    "s": {
        0: {0: "3h", 20: "3d", 21: "3c"},
        1: {0: "3s", 2: "3s", 20: "3h", 21: "3d", 22: "3c"},
        2: {20: "3h", 21: "3s", 22: "3d", 23: "3c"},
        3: {20: "3h", 21: "3s", 22: "3d", 23: "3c"},
    },
    "h": {
        0: {0: "3h", 20: "3s", 21: "3d", 22: "3c"},
        1: {0: "3h", 2: "3h", 20: "3s", 21: "3d", 22: "3c"},
        2: {20: "3s", 21: "3d", 22: "3c", 23: "3h"},
        3: {20: "3s", 21: "3d", 22: "3c"},
    },
}


@pytest.mark.parametrize("suit", ["s", "h"])
def test_r8_1_overturn(suit):
    """Another player shows more cards (of another suit, or of the same suit) and becomes the
    declarer; in the first hand it becomes banker (R8.4)."""
    g = _deal(OVERTURN[suit])
    t = dealt_when(1, 2)  # 10: seat 1's second level card of the suit
    log = drive_deal(g, script({(1, 0): Declare("h", 1), (t, 1): Declare(suit, 2)}))
    # Seat 1 with one card of the suit (card 2) cannot beat h1 and is not asked.
    assert _asks(log) == [(1, 0), (t, 1)]
    assert log[1][2] == [Pass(), Declare(suit, 2)], "an overturn must show more than the current 1 card"
    assert g.declaration == (1, suit, 2)
    assert g.trump == suit
    assert g.banker == 1, "R8.4: the final declarer (the overturner) becomes banker"
    assert g.current_player == 1


def _self_overturn_deck():
    lc = {
        0: {0: "3h", 1: "3s", 2: "3s", 3: "3h", 4: "3d", 5: "3c"},
        1: {10: "3h", 11: "3s", 12: "3d", 13: "3c"},
        2: {10: "3h", 12: "3d", 13: "3c"},
        3: {11: "3s", 12: "3d", 13: "3c"},
    }
    return _deal(lc)


def test_r8_1_no_self_overturn():
    g = _self_overturn_deck()
    g.apply(Declare("h", 1))
    # Seat 0 now holds two 3s but may not show them: it is not asked after cards 5 and 9.
    assert (g._g.dealt, g.current_player) == (dealt_when(0, 3), 0)
    acts = g.legal_actions()
    assert acts == [Pass(), Declare("h", 2)]
    assert not any(isinstance(a, Declare) and a.suit != "h" for a in acts)
    before = g.to_json()
    for bad in (Declare("s", 2), Declare("s", 1)):
        with pytest.raises(IllegalAction) as e:
            g.apply(bad)
        assert str(e.value).startswith("R8.1")
        assert "不能自反" in str(e.value) or "own" in str(e.value)
        assert g.to_json() == before
    g.apply(Pass())
    drive_deal(g)
    assert g.declaration == (0, "h", 1) and g.trump == "h" and g.banker == 0


def test_r8_6_overturn_back_counts_earlier_cards():
    lc = {
        0: {0: "3h", 2: "3h", 3: "3h", 40: "3d", 41: "3c"},
        1: {0: "3s", 1: "3s", 4: "3s", 5: "3s", 40: "3c", 41: "3d"},
        2: {40: "3h", 41: "3d", 42: "3c"},
        3: {40: "3d", 41: "3c"},
    }
    g = _deal(lc)
    t_s2 = dealt_when(1, 1)  # 6
    t_h3 = dealt_when(0, 3)  # 13
    t_s4 = dealt_when(1, 5)  # 22
    log = drive_deal(
        g,
        script({(1, 0): Declare("h", 1), (t_s2, 1): Declare("s", 2), (t_h3, 0): Declare("h", 3), (t_s4, 1): Declare("s", 4)}),
    )
    # Seat 0 with two 3h (card 9) cannot beat s2 and is not asked; with three it is, and its
    # showing counts the 3h shown before (R8.6). Likewise seat 1 with 3 then 4 spades.
    assert _asks(log) == [(1, 0), (t_s2, 1), (t_h3, 0), (t_s4, 1)]
    assert log[2][2] == [Pass(), Declare("h", 3)]
    assert log[3][2] == [Pass(), Declare("s", 4)]
    assert [(s.seat, s.suit, s.count, s.dealt) for s in g.showings()] == [
        (0, "h", 1, 1),
        (1, "s", 2, t_s2),
        (0, "h", 3, t_h3),
        (1, "s", 4, t_s4),
    ]
    assert g.declaration == (1, "s", 4) and g.trump == "s" and g.banker == 1
    # The shown cards stay in the hand.
    assert g.hand(0).count(tractor.Card("3h")) == 3
    assert g.hand(1).count(tractor.Card("3s")) == 4
    assert [len(g.hand(s)) for s in range(4)] == [54] * 4


def test_r8_6_overturned_declarer_may_overturn_back_with_same_suit_total():
    """Seat 0 shows h1, is overturned (s2), and overturns back with h3 counting the first 3h."""
    lc = {
        0: {0: "3h", 2: "3h", 3: "3h", 40: "3d", 41: "3c"},
        1: {0: "3s", 1: "3s", 40: "3c", 41: "3d"},
        2: {40: "3h", 41: "3d", 42: "3c", 43: "3s"},
        3: {40: "3d", 41: "3c", 42: "3s"},
    }
    g = _deal(lc)
    log = drive_deal(g, script({(1, 0): Declare("h", 1), (6, 1): Declare("s", 2), (13, 0): Declare("h", 3)}))
    assert _asks(log) == [(1, 0), (6, 1), (13, 0)]
    assert g.declaration == (0, "h", 3) and g.trump == "h" and g.banker == 0


def test_r8_3_final_round_after_the_last_card():
    first = 1  # last receiver: (1 + 215) % 4 = 0; the final round runs 1, 2, 3, 0
    lc = {
        0: {10: "3s", 11: "3h", 12: "3d", 13: "3c", 53: "3c"},
        1: {10: "3h", 11: "3c", 12: "3d"},
        2: {10: "3h", 11: "3c", 12: "3d", 13: "3s"},
        3: {10: "3s", 11: "3s", 12: "3h", 13: "3d"},
    }
    g = _deal(lc, first_seat=first)
    assert (first + 215) % 4 == 0
    log = drive_deal(g, script({(216, 2): Declare("h", 1), (216, 3): Declare("s", 2)}))
    final = [(d, s) for d, s, _ in log if d == 216]
    # Seat 0 received card 216 (a chance as receiver), then seats 1, 2, 3 have their last
    # chance; seat 0 (two 3c at most) cannot beat s2 and is passed automatically.
    assert final == [(216, 0), (216, 1), (216, 2), (216, 3)]
    acts2 = [a for d, s, a in log if (d, s) == (216, 2)][0]
    assert acts2 == [Pass(), Declare("s", 1), Declare("h", 1), Declare("d", 1), Declare("c", 1)]
    acts3 = [a for d, s, a in log if (d, s) == (216, 3)][0]
    assert acts3 == [Pass(), Declare("s", 2)]
    assert [(s.seat, s.suit, s.count, s.dealt) for s in g.showings()] == [(2, "h", 1, 216), (3, "s", 2, 216)]
    assert g.trump == "s" and g.banker == 3 and g.declarer == 3
    assert g.current_player == 3


def test_r8_3_final_round_order_starts_after_last_receiver():
    for first in range(4):
        g = _deal(ONE_OF_EACH, first_seat=first)
        asked = []
        drive_deal(g, lambda dealt, seat, acts: asked.append((g._g.redeals, dealt, seat)))
        last = (first + 215) % 4
        final = [s for r, d, s in asked if (r, d) == (0, 216)]
        # Every seat holds a 3, so every seat is asked: the last receiver as it receives, then
        # the final round from the seat after it, the last receiver last.
        assert final == [last] + [(last + 1 + i) % 4 for i in range(4)]
        # While dealing, only the seat that has just received a card is asked (D7).
        for r, d, s in asked:
            if r == 0 and d < 216:
                assert s == (first + d - 1) % 4


def test_r8_5_redeal_then_stop():
    g = _deal(ONE_OF_EACH)
    given = list(g._g.deck())
    attempts = []

    def decide(dealt, seat, actions):
        if not attempts or attempts[-1] != g._g.redeals:
            attempts.append(g._g.redeals)
        return Pass()

    drive_deal(g, decide)
    assert attempts == [0, 1, 2], "R8.5: three deals in a row"
    assert g.stopped
    assert g.phase == "over"
    assert g.result is None
    assert g.current_player is None
    assert g.trump is None and g.banker is None and g.declarer is None
    assert g.legal_actions() == []
    assert g._g.redeals == 3
    assert list(g._g.deck()) != given
    before = g.to_json()
    for a in (Pass(), Declare("h", 1), "3h"):
        with pytest.raises(IllegalAction):
            g.apply(a)
    assert g.to_json() == before


def test_r8_5_redeal_is_a_fresh_deal():
    g = _deal(ONE_OF_EACH)
    seen_redeal = []

    def decide(dealt, seat, actions):
        if g._g.redeals == 0:
            return Pass()
        if not seen_redeal:
            seen_redeal.append((dealt, seat))
            # R1.3 in the new attempt: the hands are exactly the first `dealt` cards.
            deck, first = list(g._g.deck()), g._g.first_seat
            want = [sorted(deck[t] for t in range(dealt) if (first + t) % 4 == s) for s in range(4)]
            assert [sorted(int(c) for c in g.hand(s)) for s in range(4)] == want
            return actions[1]
        return Pass()

    drive_deal(g, decide)
    assert seen_redeal
    sh = g.showings()
    assert len(sh) >= 1 and all(s.attempt == 1 for s in sh)
    assert g.phase == "play" and not g.stopped
    deck, first = list(g._g.deck()), g._g.first_seat
    for s in range(4):
        assert sorted(int(c) for c in g.hand(s)) == sorted(deck[t] for t in range(216) if (first + t) % 4 == s)


def _pass_to_the_end(g):
    while g.phase == "declare":
        g.apply(Pass())


def test_r8_5_match_resumes_with_same_levels_and_banker():
    m = tractor.Match(seed=21)
    m.game.play_random(3)
    m.next_hand()
    levels, banker = m.levels, m.banker
    assert banker is not None
    g = m.game
    assert g.banker == banker and g.level == levels[banker % 2]
    _pass_to_the_end(g)
    assert g.stopped and g.result is None
    g2 = m.next_hand()
    assert m.levels == levels
    assert m.banker == banker
    h = m.history[-1]
    assert h.score is None and h.levels_after == levels and h.passed_a is None
    assert g2.banker == banker and g2.level == levels[banker % 2] and g2.levels == levels
    assert g2.phase == "declare"


def test_r8_5_match_first_hand_stops_then_first_hand_rule_continues():
    m = tractor.Match(seed=5)
    _pass_to_the_end(m.game)
    g = m.next_hand()
    assert m.levels == (3, 3) and m.banker is None
    assert m.history[0].score is None
    assert g.banker is None
    g.play_random(1)
    assert g.banker == g.declarer, "R8.4: still the first hand with a result"


def test_r8_4_later_hand_banker_from_r7_6_showing_fixes_suit():
    # A later hand: team 1 (banker 1) at level 7, team 0 at 5. Level cards are 7s (R2.1).
    lc = {
        0: {3: "7s", 4: "7h", 5: "7d", 6: "7c"},
        1: {3: "7s", 4: "7h", 5: "7d", 6: "7c"},
        2: {0: "7d", 4: "7h", 5: "7s", 6: "7c"},
        3: {3: "7s", 4: "7h", 5: "7d", 6: "7c"},
    }
    # First seat 2: seat 2 receives card 1 (7d) and shows it.
    g = _deal(lc, first_seat=2, levels=(5, 7), banker=1, level=7)
    assert g.level == 7 and g.banker == 1
    log = drive_deal(g, script({(1, 2): Declare("d", 1)}))
    assert _asks(log) == [(1, 2)]
    assert g.trump == "d"
    assert g.declarer == 2
    assert g.banker == 1, "R8.4: in a later hand the showing only fixes the suit"
    assert g.current_player == 1, "R6.3: the banker leads"
    assert g.levels == (5, 7)


def test_r2_1_first_hand_with_unequal_levels():
    """R2.1: the hand's level is the banker team's level. A hand whose banker is only known
    after the deal (R8.4) cannot have a level when the teams' levels differ: the engine must
    refuse it, or end with the banker team's level."""
    try:
        g = tractor.Game.deal(1, levels=(5, 7), banker=None)
    except tractor.TractorError:
        return
    # Let a seat of team 1 (level 7) become the banker.
    while g.phase == "declare":
        acts = g.legal_actions()
        g.apply(acts[-1] if g.current_player % 2 == 1 and len(acts) > 1 else Pass())
    assert not g.stopped and g.banker % 2 == 1
    assert g.level == g.levels[g.banker % 2], "R2.1: the hand's level is the banker team's level"


def test_r8_4_level_cards_are_the_banker_teams_level():
    # Banker 0 (team 0 at level 5): 3s are plain cards; nobody is asked for a 3.
    lc = {s: {30: "5h", 31: "5s", 32: "5d", 33: "5c"} for s in range(4)}
    g = _deal(lc, levels=(5, 9), banker=2, level=5)
    assert g.level == 5
    assert g._g.dealt == dealt_when(0, 30), "nobody is asked before the first level card"


def test_r8_4_match_banker_sequence():
    """Over many hands of a match: the first hand's banker is its final declarer, every later
    hand's banker is the previous result's next banker (R7.6), whoever declares."""
    m = tractor.Match(seed=99)
    prev_next = None
    saw_other_declarer = False
    for i in range(40):
        g = m.game
        g.play_random(1000 + i)
        if g.stopped:
            m.next_hand()
            continue
        if prev_next is None:
            assert g.banker == g.declarer
        else:
            assert g.banker == prev_next
            saw_other_declarer |= g.declarer != g.banker
        assert g.trump == g.declaration[1]
        prev_next = g.result.next_banker
        m.next_hand()
        assert m.banker == prev_next
    assert saw_other_declarer


# ---------------------------------------------------------------------------------------------
# §7 Scoring
# ---------------------------------------------------------------------------------------------

# (id, hands, leads, score by profile, defender points before the last trick, last winner)
# Level 10, hearts trump, banker 0; seats 1 and 3 are the defenders.
SCORING = [
    # R7.3 N = 1, defenders win the last trick: 0 + 15×1.
    ("N1_defenders", ["3s", "Ks", "4s", "5s"], [], {"guigang": 15, "nanning": 15}, 0, 1),
    # R7.3 N = 1, banker team wins it after the defenders took 15: 15 − 15×1 = 0 (guigang);
    # nanning: a 1-card last trick is an ordinary trick, the bankers' → 15.
    ("N1_bankers", ["3s 7d", "Ks 6d", "4s Kd", "5s 5d"], ["3s"], {"guigang": 0, "nanning": 15}, 15, 2),
    # N = 2, defenders win: 30 points × 2.
    ("N2_defenders", ["3s 3s", "Ks Ks", "4s 4s", "5s 5s"], ["3s 3s"], {"guigang": 60, "nanning": 60}, 0, 1),
    # N = 2, bankers win: −60 (negative scores stand).
    ("N2_bankers", ["As As", "Ks Ks", "5s 5s", "4s 4s"], ["As As"], {"guigang": -60, "nanning": -60}, 0, 0),
    # N = 4 (a pair tractor), defenders' KKQQ wins: 30 × 4.
    (
        "N4_defenders",
        ["3s 3s 4s 4s", "Ks Ks Qs Qs", "5s 5s 6s 6s", "7s 7s 8s 8s"],
        ["3s 3s 4s 4s"],
        {"guigang": 120, "nanning": 120},
        0,
        1,
    ),
    # N = 4, bankers win with 20 points: −80.
    (
        "N4_bankers_-80",
        ["As As Ks Ks", "3s 3s 4s 4s", "6s 6s 7s 7s", "8s 8s 9s 9s"],
        ["As As Ks Ks"],
        {"guigang": -80, "nanning": -80},
        0,
        0,
    ),
    # N = 4, bankers win with 40 points: −160.
    (
        "N4_bankers_-160",
        ["As As Ks Ks", "3s 3s 4s 4s", "Ks Ks Qs Qs", "8s 8s 9s 9s"],
        ["As As Ks Ks"],
        {"guigang": -160, "nanning": -160},
        0,
        0,
    ),
    # N = 4 (bombs), defenders win 120 points: 480.
    (
        "N4_defenders_480",
        ["5s 5s 5s 5s", "Ks Ks Ks Ks", "5d 5d 5d 5d", "Kd Kd Kd Kd"],
        ["5s 5s 5s 5s"],
        {"guigang": 480, "nanning": 480},
        0,
        1,
    ),
]

# R7.4 (+ the nanning clamp of §9): (banker_levels, defender_levels, take over) by raw score.
LEVELS = {
    "guigang": {15: (2, 0, False), 0: (3, 0, False), 60: (2, 0, False), -60: (3, 0, False), 120: (1, 0, False),
                -80: (4, 0, False), -160: (5, 0, False), 480: (0, 3, True)},
    "nanning": {15: (2, 0, False), 0: (3, 0, False), 60: (2, 0, False), -60: (3, 0, False), 120: (1, 0, False),
                -80: (3, 0, False), -160: (3, 0, False), 480: (0, 3, True)},
}


def _scored(hands, leads, profile, banker=0):
    hs = [hands[(i - banker) % 4] for i in range(4)]  # rotate so that the banker holds hands[0]
    g = tractor.Game.from_deal(hs, level=10, trump="h", banker=banker, profile=profile)
    return play_out(g, leads)


@pytest.mark.parametrize("profile", ["guigang", "nanning"])
@pytest.mark.parametrize("case", SCORING, ids=[c[0] for c in SCORING])
def test_r7_3_last_trick_and_r7_4_result(case, profile):
    name, hands, leads, scores, before_last, last_winner = case
    g = _scored(hands, leads, profile)
    assert g.phase == "over" and g.current_player is None
    r = g.result
    assert r is not None
    assert g.tricks[-1].winner == last_winner
    assert g.defender_points == before_last, "R7.2: the last trick is not in the running points"
    assert r.raw_score == scores[profile], f"R7.3 ({name}, {profile})"
    # §9: the score as the profile reads it (nanning clamps to 0..400)
    assert r.score == (max(0, min(400, r.raw_score)) if profile == "nanning" else r.raw_score)
    want = LEVELS[profile][r.raw_score]
    assert (r.banker_levels, r.defender_levels, r.defenders_take_over) == want, "R7.4 / §9"
    o = tractor.outcome(r.raw_score, profile)
    assert (o.banker_levels, o.defender_levels, o.defenders_take_over) == want


def test_r7_3_negative_score_stands_guigang():
    g = _scored(SCORING[3][1], SCORING[3][2], "guigang")
    assert g.result.score == -60 < 0
    assert g.result.banker_levels == 3


def test_r7_4_minus_80_and_minus_160():
    assert _scored(SCORING[5][1], SCORING[5][2], "guigang").result.banker_levels == 4
    assert _scored(SCORING[6][1], SCORING[6][2], "guigang").result.banker_levels == 5


def test_d6_480_gives_defenders_3():
    r = _scored(SCORING[7][1], SCORING[7][2], "guigang").result
    assert r.score == 480 and r.defenders_take_over and r.defender_levels == 3 and r.banker_levels == 0


def test_s9_nanning_clamp_reads_score_in_0_400():
    # −160 is read as 0 (banker +3, not +5); 480 as 400 (+3).
    assert _scored(SCORING[6][1], SCORING[6][2], "nanning").result.banker_levels == 3
    assert tractor.outcome(-160, "nanning").score == 0
    assert tractor.outcome(480, "nanning").score == 400
    r = _scored(SCORING[7][1], SCORING[7][2], "nanning").result
    assert r.defender_levels == 3 and r.defenders_take_over


def test_s9_nanning_last_trick_needs_n_ge_2():
    """§9 nanning: a 1-card last trick scores as an ordinary trick (no ×N, no subtraction);
    N ≥ 2 is multiplied as in guigang."""
    g = _scored(SCORING[1][1], SCORING[1][2], "nanning")
    assert g.result.raw_score == 15
    assert _scored(SCORING[3][1], SCORING[3][2], "nanning").result.raw_score == -60
    assert _scored(SCORING[3][1], SCORING[3][2], "nanning").result.score == 0, "§9 clamp"
    assert _scored(SCORING[2][1], SCORING[2][2], "nanning").result.score == 60


def test_r7_2_only_defenders_tricks_count_before_the_last():
    hands = ["5s 3d Qc", "Ks 5d Kc", "4s Kd 5c", "6s 10d 3c"]  # banker 0; 10d is a trump (副10)
    g = tractor.Game.from_deal(hands, level=10, trump="h", banker=0)
    g.apply("5s")  # trick 1: 5s Ks 4s 6s → seat 1 (defenders), 15 points
    # trick 2: seat 1 leads 5d; Kd (seat 2, bankers) wins 15; seat 3 discards 3c.
    # trick 3 (last, N = 1): seat 2 leads 5c; seat 3 ruffs with 10d and wins 25.
    play_out(g, ["5d", "3c"])
    t = g.tricks
    assert [x.winner for x in t] == [1, 2, 3]
    assert [x.points for x in t] == [15, 15, 25]
    assert g.defender_points == 15, "R7.2: only the defenders' tricks count (not the last)"
    assert g.result.score == 15 + 25 * 1


@pytest.mark.parametrize("banker", range(4))
def test_r7_6_banker_rotation(banker):
    # Banker team wins (−80): the banker's partner is next.
    g = _scored(SCORING[5][1], SCORING[5][2], "guigang", banker=banker)
    assert g.banker == banker and not g.result.defenders_take_over
    assert g.result.next_banker == (banker + 2) % 4
    # Defenders win (480): the seat after the banker.
    g = _scored(SCORING[7][1], SCORING[7][2], "guigang", banker=banker)
    assert g.result.defenders_take_over
    assert g.result.next_banker == (banker + 1) % 4
    assert g.tricks[-1].winner == (banker + 1) % 4


@pytest.mark.parametrize("case", SCORING, ids=[c[0] for c in SCORING])
@pytest.mark.parametrize("banker", [0, 3])
def test_r7_4_result_returns_zero_sum(case, banker):
    g = _scored(case[1], case[2], "guigang", banker=banker)
    r = g.result
    assert sum(r.returns) == 0
    assert r.returns[0] == r.returns[2] and r.returns[1] == r.returns[3]
    gain = -r.defender_levels if r.defenders_take_over else r.banker_levels
    assert r.returns[banker] == gain and r.returns[(banker + 1) % 4] == -gain


# ---------------------------------------------------------------------------------------------
# R7.4–R7.5 across a match
# ---------------------------------------------------------------------------------------------

CYCLE = [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]


def _advance(level, by):
    i = CYCLE.index(level) + by
    return CYCLE[i % 12], i >= 12


@pytest.mark.parametrize("profile,seed", [("guigang", 1), ("guigang", 2), ("nanning", 3)])
def test_r7_5_levels_wrap_in_a_match(profile, seed):
    m = tractor.Match(seed=seed, profile=profile)
    m.play_random(hands=120, seed=seed)
    hist = m.history
    assert len(hist) == 120
    levels = (3, 3)
    next_banker = None
    wraps = 0
    first_pass = None
    for h in hist:
        if h.score is None:  # R8.5: a stopped hand changes nothing
            assert h.levels_after == levels and h.passed_a is None
            continue
        bteam = h.banker % 2
        if next_banker is not None:
            assert h.banker == next_banker, "R7.6"
        assert h.level == levels[bteam], "R2.1: the hand's level is the banker team's"
        assert h.trump is not None
        o = tractor.outcome(h.score, profile)
        team, by = (1 - bteam, o.defender_levels) if o.defenders_take_over else (bteam, o.banker_levels)
        new, passed = _advance(levels[team], by)
        want = list(levels)
        want[team] = new
        assert h.levels_after == tuple(want), f"hand {h.index}: R7.4/R7.5"
        assert h.passed_a == (team if passed else None)
        if passed:
            wraps += 1
            if first_pass is None:
                first_pass = (team, h.index)
        levels = h.levels_after
        next_banker = (h.banker + 1) % 4 if o.defenders_take_over else (h.banker + 2) % 4
    assert wraps >= 1, "some team passes A within 120 random hands"
    assert m.winner == first_pass
    assert m.levels == levels
    assert all(3 <= lv <= 14 for h in hist for lv in h.levels_after)


def test_r7_3_seed_example_aakk_led_last_with_60_points_scores_240():
    """R7.3: `AAKK` led last with 60 points among the trick's cards → 0 + 60 × 4 = 240."""
    hands = ["3c 3s 4s 6s 7s", "Ac As As Ks Ks", "4c 5s 5s 10s 8s", "6c 9s 9s 10d 10d"]
    g = tractor.Game.from_deal(hands, level="Q", trump="h", banker=0)
    for play in ["3c", "Ac", "4c", "6c"]:  # seat 1 (a defender) wins a pointless trick
        g.apply(play)
    assert g.defender_points == 0 and g.current_player == 1
    for play in ["As As Ks Ks", "5s 5s 10s 8s", "9s 9s 10d 10d", "3s 4s 6s 7s"]:
        g.apply(play)
    assert g.tricks[-1].points == 60 and g.tricks[-1].winner == 1
    assert g.result.score == 240
    assert g.result.defenders_take_over and g.result.defender_levels == 1
