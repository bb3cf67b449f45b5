"""Cards (RULES §1): frozen kind ids, notation, format round trip, and every input form."""

from __future__ import annotations

import random

import numpy as np
import pytest

import tractor
from tractor import errors

RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
ALL_NAMES = [f"{r}{s}" for s in "shdc" for r in RANKS] + ["SJ", "BJ"]


# ----------------------------------------------------------------------------------------------
# R1.2: 54 kinds with frozen ids


@pytest.mark.parametrize(
    "name,kind",
    [("2s", 0), ("3s", 1), ("10s", 8), ("As", 12), ("2h", 13), ("Ah", 25), ("10d", 34), ("Kc", 50), ("Ac", 51),
     ("SJ", 52), ("BJ", 53)],
)
def test_R1_2_kind_ids_are_frozen(name, kind):
    assert int(tractor.Card(name)) == kind
    assert tractor.parse(name) == [kind]
    assert str(tractor.Card(kind)) == name


def test_R1_2_id_formula_for_every_kind():
    assert len(tractor.CARDS) == 54
    for kind, name in enumerate(ALL_NAMES):
        card = tractor.Card(kind)
        assert str(card) == name and card.id == kind and tractor.CARDS[kind] == card
        if kind < 52:
            suit, r = divmod(kind, 13)
            assert kind == suit * 13 + (card.rank - 2)
            assert card.suit == "shdc"[suit] and card.rank == r + 2 and not card.is_joker
        else:
            assert card.suit is None and card.rank is None and card.is_joker
        assert repr(card) == f"Card({name!r})"
        assert tractor.Card(card) is card


# ----------------------------------------------------------------------------------------------
# notation


@pytest.mark.parametrize(
    "text,expect",
    [
        ("10h", ["10h"]), ("Th", ["10h"]), ("th", ["10h"]), ("10H", ["10h"]), ("T♥", ["10h"]), ("10♡", ["10h"]),
        ("A♠", ["As"]), ("K♥", ["Kh"]), ("Q♦", ["Qd"]), ("J♣", ["Jc"]), ("2♤", ["2s"]), ("9♢", ["9d"]), ("3♧", ["3c"]),
        ("as", ["As"]), ("AS", ["As"]), ("kD", ["Kd"]), ("sj", ["SJ"]), ("Bj", ["BJ"]), ("bJ", ["BJ"]),
        ("As,Ks", ["As", "Ks"]), ("As, Ks", ["As", "Ks"]), ("As  Ks", ["As", "Ks"]), ("As\tKs\nQs", ["As", "Ks", "Qs"]),
        (" As ,, Ks , ", ["As", "Ks"]), ("", []), ("   ", []), (",", []),
        ("4s4s5s5s", ["4s", "4s", "5s", "5s"]), ("4s4s10hSJ", ["4s", "4s", "10h", "SJ"]),
        ("AsKsQs", ["As", "Ks", "Qs"]), ("10h10hJhJh", ["10h", "10h", "Jh", "Jh"]), ("ThTh", ["10h", "10h"]),
        ("A♠A♠", ["As", "As"]), ("10♠10♠", ["10s", "10s"]), ("SJBJ", ["SJ", "BJ"]), ("sjbjSJ", ["SJ", "BJ", "SJ"]),
        ("4s4s 5s,5s", ["4s", "4s", "5s", "5s"]), ("大王 小王", ["BJ", "SJ"]),
    ],
)
def test_notation_variants(text, expect):
    assert [str(c) for c in tractor.parse(text)] == expect
    assert tractor.parse(text) == [tractor.Card(e) for e in expect]


def test_parse_keeps_order_and_returns_cards():
    cards = tractor.parse("BJ 3s As 3s")
    assert [str(c) for c in cards] == ["BJ", "3s", "As", "3s"]
    assert all(type(c) is tractor.Card for c in cards)


@pytest.mark.parametrize("text,token", [("As Xs", "Xs"), ("1s", "1s"), ("4s4x", "4x"), ("AsKx", "Kx"), ("10", "10"),
                                        ("Jokers", "Jo"), ("11h", "11h"), ("♠", "♠"), ("As As Qx Ks", "Qx")])
def test_bad_token_raises_card_parse_error_naming_it(text, token):
    with pytest.raises(errors.CardParseError) as ei:
        tractor.parse(text)
    assert f'"{token}"' in str(ei.value)
    assert isinstance(ei.value, tractor.TractorError) and isinstance(ei.value, ValueError)


@pytest.mark.parametrize("value", [None, 12, ["As"], b"As"], ids=repr)
def test_parse_takes_a_string(value):
    with pytest.raises(errors.InvalidCards):
        tractor.parse(value)


# ----------------------------------------------------------------------------------------------
# format


def test_format_round_trip_over_all_54_kinds():
    every = [tractor.Card(k) for k in range(54)]
    text = tractor.format(every)
    assert text == " ".join(ALL_NAMES)
    assert tractor.parse(text) == every
    for name in ALL_NAMES:
        assert tractor.format(tractor.parse(name)) == name


def test_format_round_trip_random_lists():
    rng = random.Random(5)
    for _ in range(300):
        kinds = [k for k in range(54) for _ in range(4)]
        cards = [tractor.Card(k) for k in rng.sample(kinds, rng.randint(0, 30))]
        text = tractor.format(cards)
        assert tractor.parse(text) == cards  # order kept
        assert tractor.format(tractor.parse(text)) == text
        assert tractor.format(text) == text


def test_format_canonical_spelling():
    assert tractor.format("Th t♥ as sj bj") == "10h 10h As SJ BJ"
    assert tractor.format(["BJ", "As"]) == "BJ As"
    assert tractor.format(tractor.to_counts("BJ As 2s")) == "2s As BJ"  # a count array: kind order
    assert tractor.format([]) == ""


# ----------------------------------------------------------------------------------------------
# R1.2: four copies of each kind


@pytest.mark.parametrize(
    "cards",
    [
        "As As As As As",
        "AsAsAsAsAs",
        [tractor.Card("As")] * 5,
        ["As"] * 5,
        [12] * 5,
        [0] * 12 + [5] + [0] * 41,
        np.array([0] * 12 + [5] + [0] * 41, dtype=np.uint8),
        np.array([0] * 12 + [200] + [0] * 41, dtype=np.int64),
    ],
    ids=["str", "run", "cards", "strs", "ids", "list54", "np-uint8", "np-int64"],
)
def test_R1_2_more_than_four_copies_raise(cards):
    with pytest.raises(errors.TooManyCopies, match="As"):
        tractor.to_counts(cards)
    with pytest.raises(errors.TooManyCopies, match="R1.2"):
        tractor.Context(level=10, trump="h").classify(cards)


def test_R1_2_four_copies_are_fine():
    ctx = tractor.Context(level=10, trump="h")
    assert ctx.classify("As As As As").kind == "bomb"
    full = [4] * 54
    assert sum(tractor.to_counts(full)) == 216
    assert len(ctx.legal_leads(full)) > 0


# ----------------------------------------------------------------------------------------------
# input forms: string, list of Card, list of str, numpy uint8 / int64 count arrays, plain-int 54-list


def _forms(text):
    cards = tractor.parse(text)
    counts = list(tractor.to_counts(text))
    return {
        "str": text,
        "cards": cards,
        "strs": [str(c) for c in cards],
        "tuple": tuple(cards),
        "np-uint8": np.array(counts, dtype=np.uint8),
        "np-int64": np.array(counts, dtype=np.int64),
        "np-int32": np.array(counts, dtype=np.int32),
        "list54": counts,
        "bytes": bytes(counts),
    }


FORMS = list(_forms("As").keys())

POSITIONS = [
    # (context, hand, lead, play)
    (dict(level=10, trump="h"), "3s3s3s 4s 7s 5d Kh", "6s6s6s", "3s3s3s"),
    (dict(level=10, trump="h"), "As Qs Js 9s 9s 5s 3s 4d", "4s4s5s5s", "9s 9s As Qs"),
    (dict(level=3, trump="s", profile="nanning"), "2s2s3s3s 4s4s SJ BJ 3h 5d 5d", "AsAsKsKs", "2s2s3s3s"),
    (dict(level="A", trump="c"), "3s 5h 6d 8c 8c 9c Jd", "Qs Qs Ks Ks", "3s 5h 6d 9c"),
]


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("pos", range(len(POSITIONS)))
def test_input_forms_give_the_same_answers(form, pos):
    ctx_args, hand, lead, play = POSITIONS[pos]
    ctx = tractor.Context(**ctx_args)
    h, ld, p = _forms(hand)[form], _forms(lead)[form], _forms(play)[form]

    def canon(xs):
        return sorted(tuple(sorted(map(int, x))) for x in xs)

    assert tractor.to_counts(h) == tractor.to_counts(hand)
    assert ctx.classify(ld) == ctx.classify(lead)
    assert ctx.classify(p) == ctx.classify(play)
    assert canon(ctx.legal_leads(h)) == canon(ctx.legal_leads(hand))
    assert canon(ctx.legal_follows(h, ld)) == canon(ctx.legal_follows(hand, lead))
    assert ctx.count_legal_follows(h, ld) == ctx.count_legal_follows(hand, lead)
    assert ctx.is_legal_follow(h, ld, p) == ctx.is_legal_follow(hand, lead, play)
    assert ctx.follow_error(h, ld, p) == ctx.follow_error(hand, lead, play)
    assert ctx.follow_requirement(h, ld) == ctx.follow_requirement(hand, lead)
    for seed in (0, 1, 99):
        assert ctx.random_follow(h, ld, seed) == ctx.random_follow(hand, lead, seed)
    assert ctx.nth_legal_follow(h, ld, 0) == ctx.nth_legal_follow(hand, lead, 0)
    empty = _forms("")[form]
    assert ctx.follow_completions(h, ld, empty) == ctx.follow_completions(hand, lead)
    partial = _forms(play.split()[0])[form]
    assert ctx.follow_completions(h, ld, partial) == ctx.follow_completions(hand, lead, play.split()[0])
    assert ctx.trick_winner([ld, p]) == ctx.trick_winner([lead, play])
    if form in ("str", "cards", "strs", "tuple"):
        assert tractor.format(h) == tractor.format(hand)  # order kept
    else:
        assert tractor.format(h) == tractor.format(sorted(tractor.parse(hand)))  # kind order


def test_list_of_plain_ints_other_than_54_is_card_ids():
    assert tractor.to_counts([12, 12, 53]) == tractor.to_counts("As As BJ")
    assert tractor.to_counts((12, 12, 53)) == tractor.to_counts("As As BJ")


def test_mixed_list_of_cards_and_ids():
    assert tractor.to_counts([tractor.Card("As"), 12]) == tractor.to_counts("As As")
