"""Every example of docs/rules.md §2–§7.4 (and the profile differences of §9) as table tests.

Unless a row says otherwise the context is the seeds' own: level 10, hearts trump, and the
examples are in spades (a plain suit) or hearts (the trump suit).
"""

from __future__ import annotations

from itertools import product

import pytest

import tractor

G = tractor.Context(level=10, trump="h", profile="guigang")
N = tractor.Context(level=10, trump="h", profile="nanning")
L3 = tractor.Context(level=3, trump="h")
LA = tractor.Context(level="A", trump="h")

def canon(cards):
    """A play as a sorted tuple of kind ids (a multiset)."""
    return tuple(sorted(int(c) for c in (tractor.parse(cards) if isinstance(cards, str) else cards)))


def follows(ctx, hand, lead):
    return {canon(x) for x in ctx.legal_follows(hand, lead)}


def plays(*texts):
    return {canon(t) for t in texts}


def shape(ctx, cards):
    c = ctx.classify(cards)
    return None if c is None else (c.kind, c.multiplicity, c.units, c.size, c.is_trump)


# ==============================================================================================
# §2 Levels, trumps, order


@pytest.mark.parametrize(
    "level,expect",
    [(n, n) for n in range(3, 15)]
    + [(s, v) for s, v in zip(["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"], range(3, 15))],
    ids=lambda x: str(x),
)
def test_R2_1_levels(level, expect):
    assert tractor.Context(level=level, trump="s").level == expect


@pytest.mark.parametrize("level", [2, 15, "2", "1", "B"], ids=lambda x: f"R2.1-bad-{x}")
def test_R2_1_two_is_never_a_level(level):
    with pytest.raises(tractor.errors.InvalidContext):
        tractor.Context(level=level, trump="s")


@pytest.mark.parametrize("level,trump", list(product(range(3, 15), "shdc")))
def test_R2_2_84_trumps_and_44_per_plain_suit(level, trump):
    ctx = tractor.Context(level=level, trump=trump)
    trumps = [k for k in range(54) if ctx.classify([tractor.Card(k)]).is_trump]
    assert 4 * len(trumps) == 84
    names = {str(tractor.Card(k)) for k in trumps}
    assert {"SJ", "BJ"} <= names
    for suit in "shdc":
        assert f"2{suit}" in names
        level_name = {11: "J", 12: "Q", 13: "K", 14: "A"}.get(level, str(level))
        assert f"{level_name}{suit}" in names
        plain = [k for k in range(52) if k // 13 == "shdc".index(suit) and k not in trumps]
        assert 4 * len(plain) == (0 if suit == trump else 44)


# R2.3 (trump strength, high to low) and R2.4 (a plain suit) at level 10, hearts trump.
# Each row is a group of equal strength (R2.6).
R2_3_ORDER = [["BJ"], ["SJ"], ["10h"], ["10s", "10d", "10c"], ["2h"], ["2s", "2d", "2c"]] + [
    [f"{r}h"] for r in ["A", "K", "Q", "J", "9", "8", "7", "6", "5", "4", "3"]
]
R2_4_ORDER = [[f"{r}s"] for r in ["A", "K", "Q", "J", "9", "8", "7", "6", "5", "4", "3"]]


def _order_pairs(order):
    for i, hi_group in enumerate(order):
        for lo_group in order[i + 1:]:
            for hi in hi_group:
                for lo in lo_group:
                    yield hi, lo


@pytest.mark.parametrize("hi,lo", list(_order_pairs(R2_3_ORDER)), ids=lambda x: x)
def test_R2_3_trump_strength(hi, lo):
    assert G.trick_winner([lo, hi]) == 1
    assert G.trick_winner([hi, lo]) == 0
    # the same order for pairs
    assert G.trick_winner([f"{lo} {lo}", f"{hi} {hi}"]) == 1


@pytest.mark.parametrize("hi,lo", list(_order_pairs(R2_4_ORDER)), ids=lambda x: x)
def test_R2_4_plain_suit_order(hi, lo):
    assert G.trick_winner([lo, hi]) == 1
    assert G.trick_winner([hi, lo]) == 0


@pytest.mark.parametrize(
    "ctx,card,trump",
    [
        (G, "10s", True), (G, "10c", True), (G, "2d", True), (G, "2h", True), (G, "SJ", True),
        (G, "3h", True), (G, "As", False), (G, "9c", False), (G, "Jd", False),
        (L3, "3s", True), (L3, "4s", False), (LA, "As", True), (LA, "Ks", False),
    ],
    ids=lambda x: x if isinstance(x, str) else None,
)
def test_R2_5_suit_class(ctx, card, trump):
    assert ctx.classify(card).is_trump is trump


@pytest.mark.parametrize(
    "hand,lead,legal",
    [
        pytest.param("5h 3s 4s", "10s", ["5h"], id="R2.5-10s-lead-is-trump"),
        pytest.param("10s 3d 4d", "As", ["10s", "3d", "4d"], id="R2.5-10s-is-no-spade"),
        pytest.param("10s Ks 3d", "As", ["Ks"], id="R2.5-Ks-is-the-only-spade"),
        pytest.param("2s Qs Qd", "10c", ["2s"], id="R2.5-off-2-follows-trump"),
        pytest.param("2s Qs Qd", "Ks", ["Qs"], id="R2.5-2s-is-no-spade"),
    ],
)
def test_R2_5_following_by_class(hand, lead, legal):
    assert follows(G, hand, lead) == plays(*legal)


@pytest.mark.parametrize(
    "trick,winner",
    [
        pytest.param(["10s", "10c"], 0, id="R2.6-offL-first"),
        pytest.param(["10c", "10s"], 0, id="R2.6-offL-first-reversed"),
        pytest.param(["2s", "2d"], 0, id="R2.6-off2-first"),
        pytest.param(["10s 10s", "10d 10d"], 0, id="R2.6-offL-pairs"),
        pytest.param(["3h", "10s", "10d", "10c"], 1, id="R2.6-three-offL-over-a-trump-lead"),
        pytest.param(["As", "2d", "2c"], 1, id="R2.6-two-equal-ruffs"),
        pytest.param(["4s", "2s", "2h"], 2, id="R2.6-trump-2-above-off-2"),
        pytest.param(["Ks", "Ks"], 0, id="R2.6-identical"),
    ],
)
def test_R2_6_ties(trick, winner):
    assert G.trick_winner(trick) == winner


# ==============================================================================================
# §3 Combinations


@pytest.mark.parametrize(
    "cards,expect",
    [
        pytest.param("As", ("single", 1, 1, 1, False), id="R3.1-single"),
        pytest.param("As As", ("pair", 2, 1, 2, False), id="R3.1-pair"),
        pytest.param("As As As", ("triple", 3, 1, 3, False), id="R3.1-triple"),
        pytest.param("As As As As", ("bomb", 4, 1, 4, False), id="R3.1-bomb"),
        pytest.param("BJ BJ BJ BJ", ("bomb", 4, 1, 4, True), id="R3.1-joker-bomb"),
        pytest.param("10s 10c", None, id="R3.1-10s-10c-is-no-pair"),
        pytest.param("2s 2h", None, id="R3.1-2s-2h-is-no-pair"),
        pytest.param("SJ BJ", None, id="R3.1-SJ-BJ-singles"),
        pytest.param("As Ks", None, id="R3.1-As-Ks-singles"),
        pytest.param("4s4s5s5s", ("tractor", 2, 2, 4, False), id="R3.2-pair-tractor"),
        pytest.param("4s4s4s5s5s5s", ("tractor", 3, 2, 6, False), id="R3.2-triple-tractor"),
        pytest.param("AsAsAsAs KsKsKsKs QsQsQsQs", ("tractor", 4, 3, 12, False), id="R3.2-bomb-tractor"),
        pytest.param("AsAsAsKsKs", None, id="D1-AAAKK-mixed"),
        pytest.param("AsAsKsKsKs", None, id="D1-AAKKK-mixed"),
        pytest.param("4s4s4s4s5s5s", None, id="D1-bomb-and-pair"),
        pytest.param("", None, id="R3.4-empty"),
        pytest.param("4s4s5s5s7s7s", None, id="R3.4-two-units-apart"),
        pytest.param("4s4s5s5s 9d9d", None, id="R3.4-across-suits"),
    ],
)
def test_R3_1_R3_2_units_and_tractors(cards, expect):
    assert shape(G, cards) == expect


@pytest.mark.parametrize(
    "ctx,cards",
    [
        pytest.param(G, "BJ BJ SJ SJ", id="R3.3-jokers"),
        pytest.param(G, "2h2h3h3h4h4h", id="R3.3-2h3h4h"),
        pytest.param(G, "AhAh2h2h3h3h", id="R3.3-A-2-3-wrap"),
        pytest.param(G, "AhAhKhKhQhQh", id="R3.3-AKQ"),
        pytest.param(G, "9h9h10h10hJhJh", id="R3.3-through-trump-L"),
        pytest.param(G, "KhKhAhAh2h2h", id="R3.3-K-A-2"),
        pytest.param(G, "AhAh2h2h", id="R3.3-A-2"),
        pytest.param(G, "QsQsKsKs", id="R3.3-plain-QK"),
        pytest.param(G, "8s8s9s9s", id="R3.3-plain-89"),
        pytest.param(G, "JsJsQsQsKsKsAsAs", id="R3.3-plain-JQKA"),
        pytest.param(L3, "2h2h3h3h", id="R3.3-level3-2h3h"),
        pytest.param(L3, "3h3h4h4h", id="R3.3-level3-3h4h"),
        pytest.param(L3, "4s4s5s5s", id="R3.3-level3-plain-45"),
        pytest.param(LA, "KhKhAhAh2h2h", id="R3.3-levelA-K-A-2"),
        pytest.param(LA, "QsQsKsKs", id="R3.3-levelA-plain-QK"),
        pytest.param(tractor.Context(level=7, trump="c"), "6c6c7c7c8c8c", id="R3.3-clubs-through-L"),
    ],
)
def test_R3_3_links(ctx, cards):
    c = ctx.classify(cards)
    assert c is not None and c.kind == "tractor"
    assert c.units == len(set(tractor.parse(cards)))


@pytest.mark.parametrize(
    "ctx,cards",
    [
        pytest.param(G, "SJ SJ 10h 10h", id="R3.3-D2-SJ-trumpL"),
        pytest.param(G, "10h 10h 10s 10s", id="R3.3-D2-trumpL-offL"),
        pytest.param(G, "10s 10s 2s 2s", id="R3.3-D2-offL-2"),
        pytest.param(G, "10s 10s 2h 2h", id="R3.3-D2-offL-trump2"),
        pytest.param(G, "Js Js 9s 9s", id="R3.3-D2-J-9"),
        pytest.param(G, "10s 10s 10d 10d", id="R3.3-two-offL"),
        pytest.param(G, "2s 2s 2d 2d", id="R3.3-two-off2"),
        pytest.param(G, "2h 2h 2s 2s", id="R3.3-trump2-off2"),
        pytest.param(G, "2s 2s 3s 3s", id="R3.3-off2-never-links"),
        pytest.param(G, "As As 2s 2s", id="R3.3-no-wrap-in-plain-suit"),
        pytest.param(G, "9s 9s 10s 10s", id="R3.3-offL-never-links"),
        pytest.param(G, "SJ SJ Ah Ah", id="R3.3-SJ-A"),
        pytest.param(G, "BJ BJ 2h 2h", id="R3.3-BJ-2"),
        pytest.param(G, "Ks Ks Ah Ah", id="R3.3-across-suits"),
        pytest.param(L3, "2s 2s 3s 3s", id="R3.3-level3-2s3s-two-pairs"),
        pytest.param(L3, "3s 3s 4s 4s", id="R3.3-level3-offL-4s"),
        pytest.param(LA, "Ks Ks As As", id="R3.3-levelA-K-offA"),
        pytest.param(LA, "Ah Ah Kh Kh As As", id="R3.3-levelA-offA"),
    ],
)
def test_R3_3_not_linked(ctx, cards):
    assert ctx.classify(cards) is None


def _cycle(suit="h", m=2):
    return " ".join(f"{r}{suit}" for r in ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"] for _ in range(m))


@pytest.mark.parametrize("m", [2, 3, 4])
def test_R3_3_the_whole_trump_cycle_is_one_tractor(m):
    assert shape(G, _cycle("h", m)) == ("tractor", m, 13, 13 * m, True)


@pytest.mark.parametrize("extra", ["3s 3s", "SJ SJ", "SJ SJ BJ BJ", "5s5s6s6s", "10s 10s"])
def test_R3_4_the_trump_cycle_and_more_is_no_combination(extra):
    # engine bug found by this suite (fixed): classify panicked here
    cards = _cycle("h", 2) + " " + extra
    assert G.classify(cards) is None
    with pytest.raises(tractor.errors.NotACombination):
        G.trick_winner([cards, cards])


def test_R3_4_legal_leads_example():
    leads = {canon(x) for x in G.legal_leads("4s 4s 4s 5s 5s 7s")}
    assert leads == plays("4s", "5s", "7s", "4s 4s", "5s 5s", "4s 4s 4s", "4s 4s 5s 5s")


@pytest.mark.parametrize(
    "ctx,hand",
    [
        pytest.param(G, "4s 4s 4s 5s 5s 5s 6s 6s 7s SJ BJ BJ", id="R3.4-plain"),
        pytest.param(G, "Ah Ah Ah 2h 2h 2h 3h 3h Kh 10s 10d 10d", id="R3.4-trump-wrap"),
        pytest.param(L3, "2h 2h 3h 3h 3h 4h 4h 3s 3s SJ SJ BJ BJ", id="R3.4-level3"),
        pytest.param(LA, "Kh Kh Ah Ah 2h 2h Qs Qs Ks Ks As As", id="R3.4-levelA"),
    ],
)
def test_R3_4_legal_leads_are_exactly_the_combinations_in_the_hand(ctx, hand):
    cards = tractor.parse(hand)
    kinds = sorted(set(int(c) for c in cards))
    caps = [sum(1 for c in cards if int(c) == k) for k in kinds]
    combos = set()
    for x in product(*[range(c + 1) for c in caps]):
        sel = [tractor.Card(k) for k, v in zip(kinds, x) for _ in range(v)]
        if sel and ctx.classify(sel) is not None:
            combos.add(canon(sel))
    leads = [canon(x) for x in ctx.legal_leads(hand)]
    assert len(leads) == len(set(leads)), "legal_leads repeats a lead"
    assert set(leads) == combos


def test_R3_4_a_throw_is_no_lead():
    with pytest.raises(tractor.errors.NotACombination, match="R3.4"):
        G.trick_winner(["As Ks", "3s 4s"])
    with pytest.raises(tractor.errors.NotACombination, match="R3.4"):
        G.legal_follows("3s 4s 5s", "As Ks")


@pytest.mark.parametrize(
    "cards,m,k",
    [("As", 1, 1), ("9s 9s", 2, 1), ("4s4s5s5s6s6s", 2, 3), ("7s7s7s8s8s8s", 3, 2), ("SJSJSJSJBJBJBJBJ", 4, 2)],
    ids=lambda x: x if isinstance(x, str) else None,
)
def test_R3_5_shape_and_size(cards, m, k):
    c = G.classify(cards)
    assert (c.multiplicity, c.units, c.size) == (m, k, m * k)
    assert c.size == len(tractor.parse(cards))


# ==============================================================================================
# §4 Comparing combinations (through trick_winner)


@pytest.mark.parametrize(
    "ctx,trick,winner",
    [
        pytest.param(G, ["AsAsKsKs", "6s6s6s6s"], 1, id="R4.1-bomb-beats-pair-tractor"),
        pytest.param(G, ["6s6s6s6s", "AsAsKsKs"], 0, id="R4.1-bomb-beats-pair-tractor-led"),
        pytest.param(G, ["AsAsKsKsQsQs", "5s5s5s6s6s6s"], 1, id="R4.1-triple-tractor-beats-pair-tractor"),
        pytest.param(G, ["Ks", "3h"], 1, id="R4.1-trump-beats-plain"),
        pytest.param(G, ["AsAsKsKs", "5h5h6h6h"], 1, id="R4.1-trump-tractor-beats-plain"),
        pytest.param(G, ["AsAs", "KsKs"], 0, id="R4.1-higher-top"),
        pytest.param(G, ["KsKs", "AsAs"], 1, id="R4.1-higher-top-second"),
        pytest.param(G, ["3s", "Ad"], 0, id="R4.1-other-suit-never-wins"),
        pytest.param(G, ["3s3s", "AdAd"], 0, id="R4.1-other-suit-pair"),
        pytest.param(G, ["3s3s4s4s", "AdAdAdAd"], 0, id="R4.1-other-suit-bomb"),
        pytest.param(G, ["AsAsKsKs", "5h5h6h6h", "3s3s3s3s"], 2, id="D3-plain-bomb-beats-trump-pair-tractor"),
        pytest.param(G, ["3s3s3s3s", "5h5h6h6h"], 0, id="D3-ruff-of-lower-multiplicity-loses"),
        pytest.param(G, ["AsAsKsKs", "3s3s3s3s", "5h5h5h5h"], 2, id="D3-trump-bomb-beats-plain-bomb"),
        pytest.param(G, ["3s3s3s4s4s4s", "AhAhKhKhQhQh"], 0, id="D3-triple-tractor-vs-trump-pair-tractor"),
        # R4.2: tops of tractors
        pytest.param(G, ["10h10h9h9h", "AhAhKhKh"], 1, id="R4.2-AAKK-beats-10-10-99"),
        pytest.param(G, ["AhAhKhKh", "10h10h9h9h"], 0, id="R4.2-AAKK-beats-10-10-99-led"),
        pytest.param(G, ["KhKhAhAh2h2h", "QhQhKhKhAhAh"], 0, id="R4.2-KA2-top-A-tie"),
        pytest.param(G, ["QhQhKhKhAhAh", "KhKhAhAh2h2h"], 0, id="R4.2-QKA-top-A-tie"),
        pytest.param(G, ["JhJhQhQhKhKh", "KhKhAhAh2h2h"], 1, id="R4.2-KA2-beats-JQK"),
        pytest.param(G, ["2h2h3h3h4h4h", "KhKhAhAh2h2h"], 1, id="R4.2-KA2-beats-234"),
        pytest.param(G, ["QhQhKhKh", "AhAh2h2h"], 1, id="R4.2-A2-top-A-beats-QK"),
        pytest.param(G, ["2h2h3h3h", "4h4h5h5h"], 1, id="R4.2-2233-lowest-at-level-10"),
        pytest.param(G, ["8h8h9h9h10h10h", "9h9h10h10hJhJh"], 1, id="R4.2-natural-rank-of-trump-L"),
        pytest.param(G, ["10h10hJhJh", "JhJhQhQh"], 1, id="R4.2-QQ-top"),
        pytest.param(G, ["AhAhKhKh", "BJBJSJSJ"], 1, id="R4.2-joker-tractor-top"),
        pytest.param(G, ["AsAsKsKs", "JsJsQsQs"], 0, id="R4.2-plain-tops"),
        # the level-3 exception: 2233 of the trump suit just below the joker tractor
        pytest.param(L3, ["AhAhKhKh", "2h2h3h3h"], 1, id="R4.2-level3-2233-beats-AAKK"),
        pytest.param(L3, ["2h2h3h3h", "AhAhKhKh"], 0, id="R4.2-level3-2233-led-beats-AAKK"),
        pytest.param(L3, ["2h2h3h3h", "SJSJBJBJ"], 1, id="R4.2-level3-jokers-beat-2233"),
        pytest.param(L3, ["SJSJBJBJ", "2h2h3h3h"], 0, id="R4.2-level3-jokers-led-beat-2233"),
        pytest.param(L3, ["3h3h4h4h", "2h2h3h3h"], 1, id="R4.2-level3-2233-beats-3344"),
        pytest.param(L3, ["KhKhKhAhAhAh", "2h2h2h3h3h3h"], 1, id="R4.2-level3-222333"),
        pytest.param(L3, ["AhAh2h2h3h3h", "QhQhKhKhAhAh"], 0, id="R4.2-level3-A23-is-no-exception"),
        pytest.param(L3, ["QhQhKhKhAhAh", "AhAh2h2h3h3h"], 0, id="R4.2-level3-A23-top-A-tie"),
        pytest.param(L3, ["AsAsKsKs", "2h2h3h3h", "AhAhKhKh"], 1, id="R4.2-level3-ruff-with-2233"),
        pytest.param(tractor.Context(level=3, trump="s"), ["AsAsKsKs", "2s2s3s3s"], 1, id="R4.2-level3-spades-2233"),
        pytest.param(tractor.Context(level=4, trump="h"), ["2h2h3h3h", "AhAhKhKh"], 1, id="R4.2-level4-no-exception"),
    ],
)
def test_R4_comparisons(ctx, trick, winner):
    assert ctx.trick_winner(trick) == winner


# ==============================================================================================
# §5 Following


@pytest.mark.parametrize(
    "ctx,hand,lead,legal,tier",
    [
        # R5.2: |S| ≤ N
        pytest.param(G, "3s 5h 6d", "AsAs", ["3s 5h", "3s 6d"], "R5.2", id="R5.2-no-duty-to-ruff"),
        pytest.param(G, "3s 4s 5h 5h 6d", "AsAsKsKs", ["3s 4s 5h 5h", "3s 4s 5h 6d"], "R5.2", id="R5.2-two-spades"),
        pytest.param(G, "5h 6d 7c", "As", ["5h", "6d", "7c"], "R5.2", id="R5.2-void"),
        pytest.param(G, "3s 4s 5h", "AsAs", ["3s 4s"], "R5.2", id="R5.2-exactly-N"),
        pytest.param(G, "3s 4d", "SJ", ["3s", "4d"], "R5.2", id="R5.2-void-in-trump"),
        pytest.param(G, "10s 3d 3d", "5h 5h", ["10s 3d"], "R5.2", id="R5.2-offL-is-trump"),
        # R5.3 T1
        pytest.param(G, "3s 4s", "As", ["3s", "4s"], "T1", id="R5.3-T1-single"),
        pytest.param(G, "3s3s3s 4s 7s 5d", "6s6s6s", ["3s3s3s"], "T1", id="R5.3-T1-666-333"),
        pytest.param(G, "4s4s4s5s5s5s6s6s 7d", "9s9s9s8s8s8s", ["4s4s4s5s5s5s", "4s4s5s5s6s6s"], "T1",
                     id="R5.3-T1-999888-444555-or-445566"),
        pytest.param(N, "4s4s4s5s5s5s6s6s 7d", "9s9s9s8s8s8s", ["4s4s4s5s5s5s"], "T1",
                     id="R5.3-T1-nanning-999888-444555"),
        pytest.param(G, "7h7h7h7h 8h8h9h9h 3s", "KhKhKhKh", ["7h7h7h7h", "7h7h8h8h", "8h8h9h9h"], "T1",
                     id="R5.3-T1-KKKK-7777-or-8899"),
        pytest.param(N, "7h7h7h7h 8h8h9h9h 3s", "KhKhKhKh", ["7h7h7h7h"], "T1", id="R5.3-T1-nanning-KKKK-7777"),
        pytest.param(G, "3s3s 8s8s 9s9s9s Js", "AsAsAsAs", ["8s8s9s9s"], "T1", id="R5.4-T1-8899-not-999J"),
        # R5.3 T3, T4
        pytest.param(G, "5s5s5s 8s8s8s", "KsKsKsKs", ["5s5s8s8s"], "T3", id="R5.3-T3-5588-not-5558"),
        pytest.param(G, "As Qs Js 9s 9s 5s 3s", "4s4s5s5s",
                     ["9s 9s " + " ".join(p) for p in
                      [("As", "Qs"), ("As", "Js"), ("As", "5s"), ("As", "3s"), ("Qs", "Js"), ("Qs", "5s"),
                       ("Qs", "3s"), ("Js", "5s"), ("Js", "3s"), ("5s", "3s")]],
                     "T3", id="R5.3-T3-99-and-any-two"),
        pytest.param(G, "As Js 9s 5s 3s 4d", "4s4s5s5s",
                     ["Js 9s 5s 3s", "As 9s 5s 3s", "As Js 5s 3s", "As Js 9s 3s", "As Js 9s 5s"],
                     "T4", id="R5.3-T4-any-four-spades"),
        # §9 nanning: another shape only through T2/T3
        pytest.param(G, "7s7s7s7s 9s9s Js", "5s5s6s6s", ["7s7s7s7s"], "T1", id="R5.3-T1-bomb-answers-pair-tractor"),
        pytest.param(N, "7s7s7s7s 9s9s Js", "5s5s6s6s", ["7s7s7s7s", "7s7s9s9s"], "T3", id="§9-nanning-T3-7777-or-7799"),
        pytest.param(G, "7s7s8s8s 3s 4s", "KsKsKsKs", ["7s7s8s8s"], "T1", id="R5.3-T1-pair-tractor-answers-bomb"),
        pytest.param(N, "7s7s8s8s 3s 4s", "KsKsKsKs", ["7s7s8s8s"], "T2", id="§9-nanning-T2-pair-tractor-answers-bomb"),
        pytest.param(N, "4s4s5s5s6s6s 3s Qs", "9s9s9s8s8s8s", ["4s4s5s5s6s6s"], "T2", id="§9-nanning-T2-445566"),
        pytest.param(N, "3s3s3s 4s4s 8s", "6s6s6s", ["3s3s3s"], "T1", id="§9-nanning-T1-triple"),
    ],
)
def test_R5_follow_tables(ctx, hand, lead, legal, tier):
    assert follows(ctx, hand, lead) == plays(*legal)
    assert ctx.count_legal_follows(hand, lead) == len(legal)
    assert ctx.follow_requirement(hand, lead)["tier"] == tier
    for p in legal:
        assert ctx.is_legal_follow(hand, lead, p)
        assert ctx.follow_error(hand, lead, p) is None


@pytest.mark.parametrize(
    "ctx,hand,lead,play,rule",
    [
        pytest.param(G, "3s 5h 6d", "AsAs", "5h 6d", "R5.2", id="R5.2-must-play-all-of-S"),
        pytest.param(G, "3s 4s 5s 5h", "AsAs", "3s 5h", "R5.2", id="R5.2-all-N-from-S"),
        pytest.param(G, "3s3s3s 4s 7s 5d", "6s6s6s", "3s 4s 7s", "R5.3 T1", id="R5.3-T1-333-required"),
        pytest.param(G, "3s3s 8s8s 9s9s9s Js", "AsAsAsAs", "9s9s9sJs", "R5.3 T1", id="R5.4-999J-illegal"),
        pytest.param(N, "4s4s4s5s5s5s6s6s 7d", "9s9s9s8s8s8s", "4s4s5s5s6s6s", "R5.3 T1", id="§9-nanning-445566-illegal"),
        pytest.param(N, "7h7h7h7h 8h8h9h9h 3s", "KhKhKhKh", "8h8h9h9h", "R5.3 T1", id="§9-nanning-8899-illegal"),
        pytest.param(G, "5s5s5s 8s8s8s", "KsKsKsKs", "5s5s5s8s", "R5.3 T3", id="R5.3-T3-5558-illegal"),
        pytest.param(G, "As Qs Js 9s 9s 5s 3s", "4s4s5s5s", "As Qs Js 9s", "R5.3 T3", id="R5.3-T3-99-required"),
        pytest.param(N, "7s7s7s7s 9s9s Js", "5s5s6s6s", "7s7s7s9s", "R5.3 T3", id="§9-nanning-7779-illegal"),
    ],
)
def test_R5_illegal_follows_name_the_rule(ctx, hand, lead, play, rule):
    assert not ctx.is_legal_follow(hand, lead, play)
    msg = ctx.follow_error(hand, lead, play)
    assert msg is not None and msg.startswith(rule + ":"), msg
    with pytest.raises(tractor.IllegalFollow) as ei:
        ctx.check_follow(hand, lead, play)
    assert ei.value.rule == rule
    assert ctx.is_legal_follow(hand, lead, ei.value.example)


# D4 / R5.3 T2: a 12-card spade lead against a hand whose longest tractor has 6 cards.
D4_HAND = "JsJsJs QsQsQs 7s7s 8s8s 9s9s 3s3s As 5s"
D4_LEAD = "4s4s5s5s6s6s7s7s8s8s9s9s"


@pytest.mark.parametrize(
    "play,rule",
    [
        pytest.param("JsJsJsQsQsQs 7s7s8s8s9s9s", None, id="D4-two-6-card-tractors"),
        pytest.param("7s7s8s8s9s9s JsJs QsQs 3s3s", None, id="D4-pair-tractor-and-three-pairs"),
        pytest.param("JsJsJsQsQsQs 7s7s 9s9s 3s3s", None, id="D4-triple-tractor-and-three-pairs"),
        pytest.param("JsJsJsQsQsQs 8s8s 3s3s 7s 9s", "R5.3 T3", id="D4-R5.3-T3-two-pairs-beside"),
        pytest.param("JsJsQsQs 7s7s8s8s 3s3s As 5s", "R5.3 T2", id="D4-R5.3-T2-no-6-card-tractor"),
    ],
)
def test_D4_R5_3_T2_longest_tractor_then_pairs(play, rule):
    req = G.follow_requirement(D4_HAND, D4_LEAD)
    assert req == {"tier": "T2", "tractor_cards": 6, "pairs": 3}
    assert G.is_legal_follow(D4_HAND, D4_LEAD, play) is (rule is None)
    err = G.follow_error(D4_HAND, D4_LEAD, play)
    assert (err is None) if rule is None else err.startswith(rule + ":"), err


def test_D4_seed_hand_as_written_is_T1():
    """Seed 000's 4(5) hand holds the 12-card tractor 33-44-55-66-77-88, so T1 applies (D4)."""
    hand = "7h7h7h 8h8h8h 9h9h 10h10h JhJh 5h5h 6h6h 3h3h 4h4h AhAh"
    lead = "QhQhKhKhAhAh2h2h3h3h4h4h"
    windows = [["3", "4", "5", "6", "7", "8"], ["4", "5", "6", "7", "8", "9"],
               ["5", "6", "7", "8", "9", "10"], ["6", "7", "8", "9", "10", "J"]]
    assert follows(G, hand, lead) == plays(*(" ".join(f"{r}h {r}h" for r in w) for w in windows))
    assert G.follow_error(hand, lead, "7h7h7h8h8h8h 9h9h10h10hJhJh").startswith("R5.3 T1")


def test_R5_1_every_follow_has_N_cards():
    for hand, lead in [("3s 5h 6d 7c", "AsAs"), (D4_HAND, D4_LEAD), ("As Qs Js 9s 9s 5s 3s", "4s4s5s5s")]:
        n = len(tractor.parse(lead))
        assert all(len(x) == n for x in G.legal_follows(hand, lead))
    with pytest.raises(tractor.errors.WrongCardCount, match="R5.1"):
        G.is_legal_follow("3s 4s 5s", "AsAs", "3s")


# ==============================================================================================
# §6 Winning a trick


@pytest.mark.parametrize(
    "trick,winner",
    [
        pytest.param(["AsAs", "3h 4h"], 0, id="R6.1-two-trumps-are-no-combination"),
        pytest.param(["AsAs", "3h3h"], 1, id="R6.1-ruff-with-a-pair"),
        pytest.param(["3s3s", "KdKd"], 0, id="R6.1-other-plain-suit"),
        pytest.param(["3s", "Kd"], 0, id="R6.1-other-plain-suit-single"),
        pytest.param(["3h", "As"], 0, id="R6.1-plain-never-beats-trump-lead"),
        pytest.param(["3h3h", "AsAs"], 0, id="R6.1-plain-pair-vs-trump-lead"),
        pytest.param(["Ah", "10s"], 1, id="R6.1-offL-in-trump-lead"),
        pytest.param(["10s", "Ah"], 0, id="R6.1-offL-led"),
        pytest.param(["As", "3h", "4h"], 2, id="R6.2-overruff"),
        pytest.param(["As", "4h", "3h"], 1, id="R6.2-underruff"),
        pytest.param(["AsAs", "3h3h", "4h 5h"], 1, id="R6.2-ruff-must-be-a-combination"),
        pytest.param(["3s3s3s3s", "5h5h6h6h"], 0, id="R6.2-ruff-below-lead-multiplicity"),
        pytest.param(["AsAsKsKs", "3h3h3h3h"], 1, id="R6.2-bomb-ruffs-pair-tractor"),
        pytest.param(["AsAsKsKs", "5h5h6h6h"], 1, id="R6.2-equal-multiplicity-ruff"),
        pytest.param(["5s5s5s6s6s6s", "AhAhKhKhQhQh"], 0, id="R6.2-pair-tractor-cannot-ruff-triples"),
        pytest.param(["AsAs", "3h3h", "3h3h"], 1, id="R6.2-tie-earlier"),
        pytest.param(["As", "Ks", "3h", "BJ"], 3, id="R6.2-four-plays"),
        pytest.param(["4s", "As", "Ks", "Qs"], 1, id="R6.2-highest-of-the-suit"),
        pytest.param(["4s", "3h", "BJ", "SJ"], 2, id="R6.2-big-joker"),
    ],
)
def test_R6_trick_winner(trick, winner):
    assert G.trick_winner(trick) == winner


# ==============================================================================================
# §7.4 Result of a hand, D6, and the nanning clamp of §9


@pytest.mark.parametrize(
    "score,banker,defender,over",
    [
        pytest.param(-800, 13, 0, False, id="R7.4--800"),
        pytest.param(-240, 6, 0, False, id="R7.4--240"),
        pytest.param(-160, 5, 0, False, id="R7.4--160"),
        pytest.param(-159, 4, 0, False, id="R7.4--159"),
        pytest.param(-81, 4, 0, False, id="R7.4--81"),
        pytest.param(-80, 4, 0, False, id="R7.4--80"),
        pytest.param(-79, 3, 0, False, id="R7.4--79"),
        pytest.param(-1, 3, 0, False, id="R7.4--1"),
        pytest.param(0, 3, 0, False, id="R7.4-0"),
        pytest.param(4, 3, 0, False, id="R7.4-4"),
        pytest.param(5, 2, 0, False, id="R7.4-5"),
        pytest.param(79, 2, 0, False, id="R7.4-79"),
        pytest.param(80, 1, 0, False, id="R7.4-80"),
        pytest.param(159, 1, 0, False, id="R7.4-159"),
        pytest.param(160, 0, 0, True, id="R7.4-160"),
        pytest.param(239, 0, 0, True, id="R7.4-239"),
        pytest.param(240, 0, 1, True, id="R7.4-240"),
        pytest.param(319, 0, 1, True, id="R7.4-319"),
        pytest.param(320, 0, 2, True, id="R7.4-320"),
        pytest.param(399, 0, 2, True, id="R7.4-399"),
        pytest.param(400, 0, 3, True, id="R7.4-400"),
        pytest.param(480, 0, 3, True, id="D6-480"),
        pytest.param(4000, 0, 3, True, id="D6-4000"),
    ],
)
def test_R7_4_outcome_guigang(score, banker, defender, over):
    for o in (tractor.outcome(score), tractor.outcome(score, profile="guigang")):
        assert (o.banker_levels, o.defender_levels, o.defenders_take_over) == (banker, defender, over)


@pytest.mark.parametrize(
    "score,read,banker,defender,over",
    [
        pytest.param(-160, 0, 3, 0, False, id="§9-nanning-clamp--160"),
        pytest.param(-80, 0, 3, 0, False, id="§9-nanning-clamp--80"),
        pytest.param(-1, 0, 3, 0, False, id="§9-nanning-clamp--1"),
        pytest.param(4, 4, 3, 0, False, id="§9-nanning-4"),
        pytest.param(5, 5, 2, 0, False, id="§9-nanning-5"),
        pytest.param(160, 160, 0, 0, True, id="§9-nanning-160"),
        pytest.param(399, 399, 0, 2, True, id="§9-nanning-399"),
        pytest.param(400, 400, 0, 3, True, id="§9-nanning-400"),
        pytest.param(480, 400, 0, 3, True, id="§9-nanning-clamp-480"),
    ],
)
def test_R7_4_outcome_nanning_clamp(score, read, banker, defender, over):
    o = tractor.outcome(score, profile="nanning")
    assert (o.banker_levels, o.defender_levels, o.defenders_take_over) == (banker, defender, over)
    assert o.score == read


def test_R7_4_every_score_has_exactly_one_result():
    for s in range(-400, 900):
        o = tractor.outcome(s)
        assert (o.banker_levels > 0) != o.defenders_take_over
        assert o.defender_levels == 0 or o.defenders_take_over
        assert o.defender_levels <= 3


def _bomb_tractor_last_trick():
    """Level 3, hearts trump: the banker holds the 48 non-level hearts (a bomb tractor of 12
    kinds), the others the 144 non-level cards of the side suits, so the first trick is the
    last, the bankers win it and its 4 × 48 cards carry all 400 points (R7.3: 0 − 400 × 48)."""
    ranks = "2 3 4 5 6 7 8 9 10 J Q K A".split()
    banker = [f"{r}h" for r in ranks if r != "3" for _ in range(4)]
    rest = [f"{r}{s}" for s in "sdc" for r in ranks if r != "3" for _ in range(4)]
    n = len(banker)
    hands = [banker, rest[:n], rest[n:2 * n], rest[2 * n:]]
    return tractor.Game.from_deal([" ".join(h) for h in hands], level=3, trump="h", banker=0)


def test_R7_3_R7_4_levels_below_zero_are_unbounded():
    g = _bomb_tractor_last_trick()
    lead = max(g.legal_actions(), key=lambda a: len(getattr(a, "cards", ())))
    assert len(lead.cards) == 48
    g.apply(lead)
    while g.phase != "over":
        g.step_policy("greedy", 1)
    r = g.result
    # R7.4: +3, plus 1 for every full 80 below 0: 19,200 / 80 = 240 more
    assert (r.score, r.banker_levels, r.returns) == (-19_200, 243, (243, -243, 243, -243))
    assert tractor.outcome(-19_200).banker_levels == 243
    assert tractor.outcome(-1_000_000).banker_levels == 3 + 12_500
    assert tractor.outcome(-19_200, profile="competition").banker_levels == 3  # C7
