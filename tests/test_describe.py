"""The text view (``tractor.describe.describe`` / ``apply_text``): exactly what a seat knows, its
legal plays listed completely (or summarised past the limit), round trips, refusals that
change nothing."""

from __future__ import annotations

import json

import pytest

import tractor
from tractor.errors import CardParseError, IllegalAction, IllegalFollow, InvalidArgument, InvalidSeat
from tractor.describe import action_text, apply_text, describe

PROFILES = ["guigang", "nanning", "competition"]


def _play_by_text(g: tractor.Game, seed: int, check_every: int = 1) -> int:
    """Plays ``g`` to its end through describe/apply_text, checking the listed actions."""
    n = 0
    while g.current_player is not None:
        seat = g.current_player
        d = json.loads(describe(g, seat))
        assert d["your_turn"] and d["to_move"] == seat
        legal = d["legal"]
        if n % check_every == 0:
            if g.phase == "declare":
                assert legal["actions"] == [action_text(a) for a in g.legal_actions()]
            else:
                plays = g.legal_actions()
                assert legal["count"] == plays.count()
                if legal["complete"]:
                    # every listed play is legal and every legal play is listed
                    assert sorted(legal["actions"]) == sorted(str(p) for p in plays)
                    assert len(set(legal["actions"])) == len(legal["actions"])
        choices = legal.get("actions") or legal["examples"]
        text = choices[(seed * 7919 + n) % len(choices)]
        action = apply_text(g, seat, text)
        assert action_text(action) == text or sorted(text.split()) == sorted(str(action).split())
        n += 1
    return n


@pytest.mark.parametrize("profile", PROFILES)
def test_whole_hands_round_trip_through_text(profile):
    for seed in range(3):
        g = tractor.Game(seed=seed, profile=profile)
        n = _play_by_text(g, seed)
        assert g.phase == "over" or g.stopped
        assert n > 20
        # the same hand replays from its record: apply_text applied exactly what it said
        assert tractor.Game.from_json(g.to_json()) == g


def test_listed_plays_are_legal_and_complete_from_given_hands():
    g = tractor.Game.from_deal(
        ["As As Ks Ks Qs 3h 4h 5h", "Js Js 10s 9s 9s 8h 8h 2c", "7s 7s 6s 5s 4s 3s 3s 4d", "BJ SJ 10h 10h 6d 6d 7c 8c"],
        level=10, trump="h",
    )
    _play_by_text(g, 1)
    assert g.phase == "over"


def _info_twins(g: tractor.Game, seat: int, n: int = 3):
    """Games ``seat`` cannot tell from ``g``: worlds drawn from what it knows."""
    return g.determinize_many(seat, n, seed=11)


@pytest.mark.parametrize("profile", PROFILES)
def test_nothing_beyond_the_seat(profile):
    """Two games the seat cannot tell apart give byte-identical JSON; the hidden hands differ."""
    checked = 0
    for seed in range(2):
        g = tractor.Game(seed=seed, profile=profile)
        step = 0
        while g.current_player is not None:
            if step % 9 == 0:
                for seat in range(4):
                    text = describe(g, seat)
                    for w in _info_twins(g, seat):
                        assert describe(w, seat) == text
                        checked += 1
            g.step_policy("greedy", step)
            step += 1
    assert checked > 100


def test_the_hidden_suit_stays_hidden_while_dealing():
    """R8.2: while the cards are dealt only the declarer knows the suit it showed."""
    g = tractor.Game(seed=7)
    seen = False
    while g.phase == "declare":
        decl = g.declaration
        if decl is not None:
            seat, suit, _ = decl
            for s in range(4):
                d = json.loads(describe(g, s))
                assert d["trump_public"] is False
                if s == seat:
                    assert d["trump"] == suit
                else:
                    assert d["trump"] is None or g.known_trump(s) == d["trump"]
                    assert all(x["suit"] is None for x in d["declaring"] if x["seat"] != s)
                    seen = True
        g.step_policy("greedy", 1)
    assert seen
    d = json.loads(describe(g, (g.declarer + 1) % 4))
    assert d["trump_public"] and d["trump"] == g.trump
    assert d["declaring"][-1]["suit"] == g.trump  # the reveal (R8.2)


def _void_follower_position() -> tractor.Game:
    """Seat 1 is void in spades and holds 20 cards: a four-card spade lead gives it thousands of
    follows (R5.2: any four)."""
    hands = [
        "As As Ks Ks 3d 4d 5d 6d 7d 8d 9d 10d Jd Qd Kd Ad 3c 4c 5c 6c",
        "3h 4h 5h 6h 7h 8h 9h Jh Qh Kh Ah 3c 4c 5c 6c 7c 8c 9c Jc Qc",
        "Qs Qs Js Js 9s 9s 8s 8s 7s 7s 6s 6s 5s 5s 4s 4s 3s 3s 7c 8c",
        "Qs Js 9s 8s 7s 6s 5s 4s 3s 3d 4d 5d 6d 7d 8d 9d Jd Qd Kd Ad",
    ]
    g = tractor.Game.from_deal(hands, level=10, trump="c", banker=0)
    g.apply("As As Ks Ks")
    return g


def test_a_void_followers_millions_are_summarised():
    g = _void_follower_position()
    d = json.loads(describe(g, 1))
    legal = d["legal"]
    assert legal["kind"] == "follow" and legal["count"] == g.legal_actions().count() > 200
    assert legal["complete"] is False and "actions" not in legal
    assert legal["summary"].startswith("R5.2") and legal["must_play"] == "" and legal["free_cards"] == 4
    for text in legal["examples"]:
        assert tractor.parse(text) in g.legal_actions()
    # with a limit above the count everything is listed
    full = json.loads(describe(g, 1, limit=100_000))["legal"]
    assert full["complete"] and len(full["actions"]) == legal["count"]


def test_a_short_suit_follower_must_play_all_of_it():
    g = _void_follower_position()
    apply_text(g, 1, "3h 4h 5h 6h")
    d = json.loads(describe(g, 2, limit=0))["legal"]
    assert d["complete"] is False and d["summary"].startswith("R5.3")
    apply_text(g, 2, "Qs Qs Js Js")
    d3 = json.loads(describe(g, 3, limit=0))["legal"]
    # seat 3 holds 9 spades, more than 4: the ladder, not R5.2's "all of S"
    assert "must_play" not in d3


def test_refusals_change_nothing():
    g = _void_follower_position()
    before = g.to_json()
    with pytest.raises(IllegalAction, match="R5.1"):
        apply_text(g, 2, "Qs Qs Js Js")  # not seat 2's turn
    with pytest.raises(IllegalAction, match="R5.1"):
        apply_text(g, 1, "3h 4h 5h")  # the wrong size
    with pytest.raises(IllegalAction):
        apply_text(g, 1, "As As Ks Ks")  # not held
    with pytest.raises(CardParseError):
        apply_text(g, 1, "9z 9z 1x 2y")
    with pytest.raises(InvalidArgument):
        apply_text(g, 1, None)  # type: ignore[arg-type]
    with pytest.raises(InvalidSeat):
        apply_text(g, 7, "3h 4h 5h 6h")
    with pytest.raises(InvalidSeat):
        describe(g, -1)
    with pytest.raises(InvalidArgument):
        describe(g, 0, limit=-1)
    assert g.to_json() == before
    g2 = tractor.Game.from_deal(
        ["As As Ks 3s", "Qs Qs 4s 5s", "Js Js 6s 7s", "9s 9s 8s 8s"], level=10, trump="h"
    )
    apply_text(g2, 0, "As As")
    with pytest.raises(IllegalFollow) as e:
        apply_text(g2, 1, "4s 5s")  # R5.3 T1: the pair must be played
    assert e.value.rule.startswith("R5.3") and e.value.example is not None


def test_dealing_actions_as_text():
    g = tractor.Game(seed=7)
    seat = g.current_player
    d = json.loads(describe(g, seat))
    assert d["phase"] == "declare" and d["legal"]["actions"][0] == "pass"
    before = g.to_json()
    for bad in ("declare x 1", "declare s 9", "declare s one", "show", "play 3s"):
        with pytest.raises(IllegalAction, match="R8.1"):
            apply_text(g, seat, bad)
    offered = d["legal"]["actions"]
    missing = next(f"declare {s} {k}" for s in "shdc" for k in (1, 2, 3, 4) if f"declare {s} {k}" not in offered)
    with pytest.raises(IllegalAction, match="not offered"):
        apply_text(g, seat, missing)
    assert g.to_json() == before
    assert action_text(apply_text(g, seat, offered[-1])) == offered[-1]


def test_proven_voids_name_the_classes():
    """InfoSet.proven_voids: the R5.2 voids by class name, the trump suit's plain class left
    out; nothing before the trump suit is public; a bad seat is InvalidSeat."""
    import numpy as np

    g = _void_follower_position()
    apply_text(g, 1, "3h 4h 5h 6h")  # seat 1 follows a spade lead without spades
    info = g.info(0)
    assert info.proven_voids(1) == ["s"] and info.proven_voids(np.int64(2)) == []
    assert "c" not in info.proven_voids(3)  # clubs are trumps: its plain class is empty for all
    assert tractor.Game(seed=1).info(0).proven_voids(2) == []
    for bad in (4, -1, 2**63, 1.5, "1"):
        with pytest.raises(InvalidSeat):
            info.proven_voids(bad)
