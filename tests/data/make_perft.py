#!/usr/bin/env python3
"""Generates ``tests/data/perft.txt``: the move-generation regression file (perft-style).

Every line is one position: a hand (and a lead). The file records the number of distinct legal
leads of the hand (R3.4: every sub-multiset that is one combination) and the number of distinct
legal follows of the hand against the lead (R5.2-R5.4), with the tier the ladder demands.
``rust/core/tests/perft.rs`` and ``tests/test_perft.py`` assert the engine reproduces them.

Usage (from the repository root, in the venv)::

    python tests/data/make_perft.py            # regenerate tests/data/perft.txt
    python tests/data/make_perft.py --verify   # re-check the file with the oracle only

The counts are generated with the engine (``tractor``) and written only after an independent
check by the code in the ORACLE section below, which is written from ``docs/rules.md`` alone
and never imports ``tractor``:

- legal leads: a brute-force enumeration of the sub-multisets of the hand that are one
  combination (R3.1-R3.4, D1) under its own link predicate (R3.3, D2). A multiset of one
  multiplicity m >= 2 over k >= 2 kinds is one combination exactly when its kinds are connected
  by links, so a connected kind set lies in one component of the link graph restricted to the
  kinds held >= m times: the enumeration walks every subset of every such component. Where each
  suit class of the hand has at most 300,000 sub-multisets it also checks every sub-multiset of
  every class literally (links never cross classes, so a combination lies in one).
- legal follows: R5.2 (|S| <= N: all of S plus any N - |S| other cards) by checking every
  N-card sub-multiset of the hand when there are at most 300,000 of them, else by listing S plus
  every (N - |S|)-card sub-multiset of the other cards when there are at most 300,000 of those,
  else (the astronomically large counts of void and short followers) by a bounded-multiset
  generating-function DP (which also checks the two listings); R5.3/R5.4 by scoring every N-card sub-multiset of S (T1: one
  combination of N cards, under nanning of the lead's shape; else the lexicographic maximum over
  tractors T in X of (|T|, pairs of X - T)). Every R5.3 position is brute-forced.

A disagreement between the engine and the oracle is printed and the ORACLE's count is written
(the test then fails and shows the engine bug). The random positions come from real deals of
the engine (``tractor.Game.deal``) with fixed seeds, played on with choices drawn from sorted
option lists (never from the engine's listing order), so a rerun writes the same file as long
as the deals and the rules stay the same.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from itertools import combinations, product
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Sequence, Tuple

HERE = Path(__file__).resolve().parent
OUT = HERE / "perft.txt"

# =============================================================================================
# ORACLE — independent of the engine: written from docs/rules.md, imports nothing of tractor.
# =============================================================================================

SJ, BJ = 52, 53
TRUMP = 4
SUITS = "shdc"
RANKS = {"J": 11, "Q": 12, "K": 13, "A": 14}
RANK_NAME = {11: "J", 12: "Q", 13: "K", 14: "A"}
Counts = Dict[int, int]  # kind id -> copies (kind = suit * 13 + rank - 2; SJ 52, BJ 53)


def kind(rank: int, suit: int) -> int:
    return suit * 13 + rank - 2


def suit_rank(k: int) -> Optional[Tuple[int, int]]:
    return None if k >= 52 else (k // 13, k % 13 + 2)


def name(k: int) -> str:
    if k == SJ:
        return "SJ"
    if k == BJ:
        return "BJ"
    s, r = suit_rank(k)  # type: ignore[misc]
    return f"{RANK_NAME.get(r, str(r))}{SUITS[s]}"


def parse(text: str) -> Counts:
    """Cards as ``As 10h SJ`` (rank then suit; 10 for ten), copies <= 4 (R1.2)."""
    out: Counts = {}
    for tok in text.split():
        t = tok.upper()
        if t in ("SJ", "BJ"):
            k = SJ if t == "SJ" else BJ
        else:
            r, s = t[:-1], t[-1].lower()
            rank = RANKS[r] if r in RANKS else int(r)
            assert 2 <= rank <= 14 and s in SUITS, tok
            k = kind(rank, SUITS.index(s))
        out[k] = out.get(k, 0) + 1
        assert out[k] <= 4, f"R1.2: more than 4 copies of {tok}"
    return out


def fmt(c: Counts) -> str:
    return " ".join(name(k) for k in sorted(c) for _ in range(c[k]))


def size(c: Counts) -> int:
    return sum(c.values())


def level_name(level: int) -> str:
    return RANK_NAME.get(level, str(level))


def parse_level(text: str) -> int:
    return RANKS[text] if text in RANKS else int(text)


def suit_class(k: int, level: int, trump: int) -> int:
    """R2.2 / R2.5: jokers, every L, every 2 and the trump suit are the class "trump"."""
    sr = suit_rank(k)
    if sr is None:
        return TRUMP
    s, r = sr
    return TRUMP if (r == level or r == 2 or s == trump) else s


def linked(a: int, b: int, level: int, trump: int, wrap: bool = True) -> bool:
    """R3.3 / D2: BJ-SJ; trump-suit kinds with naturally consecutive ranks in the cycle
    2-3-...-K-A-2; two kinds of one non-trump suit, neither L nor 2, consecutive, no wrap.
    ``wrap=False`` (competition, C1/D8): the trump suit's A and 2 do not link."""
    if a == b:
        return False
    if {a, b} == {SJ, BJ}:
        return True
    if a >= 52 or b >= 52:
        return False
    (sa, ra), (sb, rb) = suit_rank(a), suit_rank(b)  # type: ignore[misc]
    if sa != sb:
        return False
    if sa == trump:
        if not wrap and {ra, rb} == {14, 2}:
            return False
        nxt = lambda r: 2 if r == 14 else r + 1  # noqa: E731
        return nxt(ra) == rb or nxt(rb) == ra
    plain = lambda r: r != level and r != 2  # noqa: E731
    return plain(ra) and plain(rb) and abs(ra - rb) == 1


def connected(kinds: Sequence[int], level: int, trump: int, wrap: bool = True) -> bool:
    kinds = list(kinds)
    if not kinds:
        return False
    seen = {kinds[0]}
    todo = [kinds[0]]
    while todo:
        a = todo.pop()
        for b in kinds:
            if b not in seen and linked(a, b, level, trump, wrap):
                seen.add(b)
                todo.append(b)
    return len(seen) == len(kinds)


def combination(x: Counts, level: int, trump: int, wrap: bool = True) -> Optional[Tuple[int, int]]:
    """R3.1-R3.4, D1: the shape (m, k) if ``x`` is one unit or one tractor, else None."""
    ks = [k for k, v in x.items() if v > 0]
    if not ks:
        return None
    m = x[ks[0]]
    if any(x[k] != m for k in ks):
        return None  # D1: one multiplicity
    if len(ks) == 1:
        return (m, 1)
    if m < 2 or not connected(ks, level, trump, wrap):
        return None
    return (m, len(ks))


def components(kinds: Sequence[int], level: int, trump: int, wrap: bool = True) -> List[List[int]]:
    """Connected components of the link graph restricted to ``kinds``."""
    left = set(kinds)
    out = []
    while left:
        a = min(left)
        comp, todo = {a}, [a]
        while todo:
            u = todo.pop()
            for v in list(left):
                if v not in comp and linked(u, v, level, trump, wrap):
                    comp.add(v)
                    todo.append(v)
        left -= comp
        out.append(sorted(comp))
    return out


def oracle_leads(hand: Counts, level: int, trump: int, wrap: bool = True) -> set:
    """Every distinct sub-multiset of ``hand`` that is one combination (R3.4), as frozensets of
    (kind, copies)."""
    out = set()
    for k, c in hand.items():
        for m in range(1, c + 1):
            out.add(frozenset({(k, m)}))
    for m in (2, 3, 4):
        held = [k for k, c in hand.items() if c >= m]
        for comp in components(held, level, trump, wrap):
            n = len(comp)
            for mask in range(1, 1 << n):
                if bin(mask).count("1") < 2:
                    continue
                sub = [comp[i] for i in range(n) if mask >> i & 1]
                if connected(sub, level, trump, wrap):
                    assert combination({k: m for k in sub}, level, trump, wrap) == (m, len(sub))
                    out.add(frozenset((k, m) for k in sub))
    return out


def literal_leads(hand: Counts, level: int, trump: int, limit: int = 300_000, wrap: bool = True) -> Optional[int]:
    """Every non-empty sub-multiset of the hand, each checked with :func:`combination`; or None
    when there are too many. Links never cross suit classes (asserted), so a combination lies in
    one class: the sub-multisets are walked class by class."""
    for a in range(54):
        for b in range(54):
            if linked(a, b, level, trump):
                assert suit_class(a, level, trump) == suit_class(b, level, trump)
    classes: Dict[int, List[int]] = {}
    for k in sorted(hand):
        classes.setdefault(suit_class(k, level, trump), []).append(k)
    if any(n_product({k: hand[k] for k in ks}) > limit for ks in classes.values()):
        return None
    n = 0
    for ks in classes.values():
        for xs in product(*[range(hand[k] + 1) for k in ks]):
            x = {k: v for k, v in zip(ks, xs) if v}
            if x and combination(x, level, trump, wrap) is not None:
                n += 1
    return n


def n_sub_multisets(bounds: Sequence[int], n: int) -> int:
    """Number of multisets of n cards with at most bounds[i] copies of kind i: the coefficient
    of x^n in prod_i (1 + x + ... + x^bounds[i]) (the R5.2 count for the free cards)."""
    poly = [1] + [0] * n
    for b in bounds:
        nxt = [0] * (n + 1)
        for i, v in enumerate(poly):
            if v:
                for j in range(min(b, n - i) + 1):
                    nxt[i + j] += v
        poly = nxt
    return poly[n]


def sub_multisets(bounds: Sequence[int], n: int) -> Iterator[Tuple[int, ...]]:
    """Every vector 0 <= x_i <= bounds[i] with sum n."""
    m = len(bounds)
    suffix = [0] * (m + 1)
    for i in range(m - 1, -1, -1):
        suffix[i] = suffix[i + 1] + bounds[i]
    cur = [0] * m

    def rec(i: int, left: int):
        if i == m:
            if left == 0:
                yield tuple(cur)
            return
        if suffix[i] < left:
            return
        for v in range(min(bounds[i], left) + 1):
            cur[i] = v
            yield from rec(i + 1, left - v)
        cur[i] = 0

    yield from rec(0, n)


class Local:
    """The kinds of one class held in a hand, with links as bitmasks (fast brute force)."""

    def __init__(self, kinds: Sequence[int], level: int, trump: int, wrap: bool = True) -> None:
        self.kinds = list(kinds)
        self.adj = [
            sum(1 << j for j, b in enumerate(self.kinds) if linked(a, b, level, trump, wrap)) for a in self.kinds
        ]
        self._conn: Dict[int, bool] = {}

    def connected(self, mask: int) -> bool:
        r = self._conn.get(mask)
        if r is not None:
            return r
        reach = mask & -mask
        while True:
            nxt = reach
            r2 = reach
            while r2:
                low = r2 & -r2
                nxt |= self.adj[low.bit_length() - 1] & mask
                r2 ^= low
            if nxt == reach:
                break
            reach = nxt
        self._conn[mask] = res = reach == mask
        return res

    def combination(self, x: Tuple[int, ...]) -> Optional[Tuple[int, int]]:
        m, mask = 0, 0
        for i, v in enumerate(x):
            if v:
                if m == 0:
                    m = v
                elif v != m:
                    return None
                mask |= 1 << i
        k = bin(mask).count("1")
        if k == 0:
            return None
        if k == 1:
            return (m, 1)
        return (m, k) if m >= 2 and self.connected(mask) else None

    def score(self, x: Tuple[int, ...]) -> Tuple[int, int]:
        """R5.4: max over tractors T in x (and T empty) of (|T|, sum floor((x - t) / 2))."""
        base = sum(v // 2 for v in x)
        best = (0, base)
        for m in (2, 3, 4):
            cand = 0
            for i, v in enumerate(x):
                if v >= m:
                    cand |= 1 << i
            if bin(cand).count("1") < 2:
                continue
            sub = cand
            while sub:
                pc = bin(sub).count("1")
                if pc >= 2 and self.connected(sub):
                    loss = 0
                    s2 = sub
                    while s2:
                        low = s2 & -s2
                        v = x[low.bit_length() - 1]
                        loss += v // 2 - (v - m) // 2
                        s2 ^= low
                    sc = (m * pc, base - loss)
                    if sc > best:
                        best = sc
                sub = (sub - 1) & cand
        return best


BRUTE_SHORT = 300_000
BRUTE_LADDER = 1_500_000


def oracle_follows(hand: Counts, lead: Counts, level: int, trump: int, profile: str) -> Tuple[int, str, str]:
    """(count, tier, how) for a follower holding ``hand`` against ``lead`` (R5.2-R5.4).
    ``how`` is ``bf:<candidates>`` (brute force) or ``dp`` (R5.2 count by the DP)."""
    shape = combination(lead, level, trump, profile != "competition")
    assert shape is not None, f"lead {fmt(lead)} is not one combination"
    n = shape[0] * shape[1]
    assert size(hand) >= n, "R5.1: the hand holds fewer cards than the lead"
    cls = suit_class(next(iter(lead)), level, trump)
    s = {k: c for k, c in hand.items() if suit_class(k, level, trump) == cls}
    rest = {k: c for k, c in hand.items() if k not in s}
    if size(s) <= n:
        # R5.2: all of S and any N - |S| others (no duty to ruff).
        need = n - size(s)
        dp = n_sub_multisets(list(rest.values()), need)
        whole = n_sub_multisets(list(hand.values()), n)
        if whole <= BRUTE_SHORT:
            ks = sorted(hand)
            sk = [i for i, k in enumerate(ks) if k in s]
            cnt = 0
            for x in sub_multisets([hand[k] for k in ks], n):
                if all(x[i] == hand[ks[i]] for i in sk):
                    cnt += 1
            assert cnt == dp, f"oracle self-check: brute force {cnt} vs DP {dp}"
            return cnt, "R5.2", f"bf:{whole}"
        if dp <= BRUTE_SHORT:
            # list them: S plus each (N - |S|)-card sub-multiset of the other cards, checked
            ks = sorted(rest)
            seen = set()
            for y in sub_multisets([rest[k] for k in ks], need):
                x = dict(s)
                for k, v in zip(ks, y):
                    if v:
                        x[k] = v
                assert size(x) == n and all(x[k] <= hand[k] for k in x)
                seen.add(tuple(sorted(x.items())))
            assert len(seen) == dp, f"oracle self-check: listed {len(seen)} vs DP {dp}"
            return dp, "R5.2", f"bf:{dp}"
        return dp, "R5.2", "dp"
    # R5.3: N cards of S; the highest tier any selection meets is mandatory.
    ks = sorted(s)
    bounds = [s[k] for k in ks]
    cands = n_sub_multisets(bounds, n)
    if cands > BRUTE_LADDER:
        raise TooBig(cands)
    if profile == "competition":
        return competition_follows(ks, bounds, n, shape, level, trump) + (f"bf:{cands}",)
    loc = Local(ks, level, trump)
    t1 = 0
    scores: Dict[Tuple[int, int], int] = {}
    for x in sub_multisets(bounds, n):
        c = loc.combination(x)
        if c is not None and (profile == "guigang" or c == shape):
            t1 += 1
        sc = loc.score(x)
        scores[sc] = scores.get(sc, 0) + 1
    if t1:
        return t1, "T1", f"bf:{cands}"
    best = max(scores)
    tier = "T2" if best[0] > 0 else ("T3" if best[1] > 0 else "T4")
    return scores[best], tier, f"bf:{cands}"


class TooBig(Exception):
    pass


# ---- the competition profile (RULES §10, C1-C5) ---------------------------------------------

C4_NAMES = {
    2: ["C4 any two cards", "C4 a pair"],
    3: ["C4 any three cards", "C4 a pair and a card", "C4 a triple"],
    4: ["C4 any four cards", "C4 a pair and two cards", "C4 two pairs", "C4 a triple and a card",
        "C4 a 2-pair tractor", "C4 a bomb"],
}


def c4_tier(x: Tuple[int, ...], n: int, loc: "Local") -> int:
    """C4: a selection's place in a unit lead's list (greater is better)."""
    counts = sorted((v for v in x if v), reverse=True)
    if n == 2:
        return int(counts == [2])
    if n == 3:
        return 2 if counts == [3] else 1 if counts == [2, 1] else 0
    if counts == [4]:
        return 5
    if counts == [2, 2]:
        return 4 if loc.combination(x) == (2, 2) else 2
    return {(3, 1): 3, (2, 1, 1): 1}.get(tuple(counts), 0)


def c5_best(x: Tuple[int, ...], loc: "Local", m3: bool, memo: Dict[Tuple[int, ...], Tuple]) -> Tuple:
    """C5: the greatest (L, p, t) over every partition of ``x`` into tractors (C2: a bomb is a
    4-card tractor) and other cards; L sorted largest first (a tuple: Python's order is C5's)."""
    got = memo.get(x)
    if got is not None:
        return got
    p = sum(1 if v in (2, 3) else 2 if v == 4 else 0 for v in x)
    t = sum(1 for v in x if v == 3) if m3 else 0
    best: Tuple = ((), p, t)
    parts = [tuple(4 if j == i else 0 for j in range(len(x))) for i, v in enumerate(x) if v == 4]
    for m in (2, 3, 4):
        cand = [i for i, v in enumerate(x) if v >= m]
        for r in range(2, len(cand) + 1):
            for sub in combinations(cand, r):
                mask = sum(1 << i for i in sub)
                if loc.connected(mask):
                    parts.append(tuple(m if i in sub else 0 for i in range(len(x))))
    for tr in parts:
        rest = tuple(a - b for a, b in zip(x, tr))
        l, pp, tt = c5_best(rest, loc, m3, memo)
        cand_key = (tuple(sorted(l + (sum(tr),), reverse=True)), pp, tt)
        if cand_key > best:
            best = cand_key
    memo[x] = best
    return best


def competition_follows(ks: List[int], bounds: List[int], n: int, shape: Tuple[int, int], level: int,
                        trump: int) -> Tuple[int, str]:
    """C3-C5 by brute force: (the number of N-card selections of S with the greatest score, the
    tier the engine names)."""
    loc = Local(ks, level, trump, wrap=False)
    if n == 1:
        return sum(1 for b in bounds if b), "C4 any card"
    scores: Dict[Tuple, int] = {}
    memo: Dict[Tuple[int, ...], Tuple] = {}
    for x in sub_multisets(bounds, n):
        if shape[1] == 1:
            key: Tuple = (c4_tier(x, n, loc),)
        else:
            c = loc.combination(x)
            e = c == shape or (shape == (2, 2) and c == (4, 1))
            key = (int(e),) + c5_best(x, loc, shape[0] >= 3, memo)
        scores[key] = scores.get(key, 0) + 1
    best = max(scores)
    if shape[1] == 1:
        tier = C4_NAMES[n][best[0]]
    elif best[0]:
        tier = "C5 E"
    else:
        tier = "C5 L" if best[1] else "C5 p" if best[2] else "C5 t" if best[3] else "C5 any"
    return scores[best], tier


def ladder_candidates(hand: Counts, lead: Counts, level: int, trump: int) -> int:
    """How many N-card selections the brute force would score (0 for R5.2 positions)."""
    shape = combination(lead, level, trump)
    n = shape[0] * shape[1]  # type: ignore[index]
    cls = suit_class(next(iter(lead)), level, trump)
    s = [c for k, c in hand.items() if suit_class(k, level, trump) == cls]
    if sum(s) <= n:
        return 0
    return n_sub_multisets(s, n)


def oracle_lead_count(hand: Counts, level: int, trump: int, wrap: bool = True) -> int:
    leads = oracle_leads(hand, level, trump, wrap)
    lit = literal_leads(hand, level, trump, wrap=wrap)
    if lit is not None:
        assert lit == len(leads), f"oracle self-check: literal {lit} vs components {len(leads)}"
    LITERAL.append(lit is not None)
    return len(leads)


LITERAL: List[bool] = []


def n_product(hand: Counts) -> int:
    p = 1
    for c in hand.values():
        p *= c + 1
    return p


# =============================================================================================
# POSITIONS
# =============================================================================================


class Pos:
    def __init__(self, profile: str, level: int, trump: str, hand: str, lead: str, note: str) -> None:
        self.profile, self.level, self.trump, self.note = profile, level, trump, note
        self.hand, self.lead = parse(hand), parse(lead)
        self.leads = self.follows = None  # type: Optional[int]
        self.tier = self.how = ""

    @property
    def t(self) -> int:
        return SUITS.index(self.trump)


def all_of(ranks: Sequence[int], suit: str, copies: int) -> str:
    return " ".join(f"{level_name(r) if r > 10 else r}{suit}" for r in ranks for _ in range(copies))


def hand_picked() -> List[Pos]:
    G, N = "guigang", "nanning"
    P: List[Pos] = []

    def add(profile, level, trump, hand, lead, note):
        P.append(Pos(profile, level, trump, hand, lead, note))

    # ---- docs/rules.md examples (level 10, hearts trump, as the seeds) ------------------------
    add(G, 10, "h", "3s 3s 3s 4s 5s 9s", "6s 6s 6s", "R5.3 T1: ♠666 led, ♠333 held -> ♠333")
    add(G, 10, "h", "4s 4s 4s 5s 5s 5s 6s 6s Kd", "9s 9s 9s 8s 8s 8s", "R5.3 T1: ♠999888 -> ♠444555 or ♠445566")
    add(N, 10, "h", "4s 4s 4s 5s 5s 5s 6s 6s Kd", "9s 9s 9s 8s 8s 8s", "§9 nanning T1: ♠999888 -> ♠444555 only")
    add(G, 10, "h", "7h 7h 7h 7h 8h 8h 9h 9h 3h 4s", "Kh Kh Kh Kh", "R5.3 T1: ♥KKKK -> ♥7777 or ♥8899 (or ♥7788)")
    add(N, 10, "h", "7h 7h 7h 7h 8h 8h 9h 9h 3h 4s", "Kh Kh Kh Kh", "§9 nanning T1: ♥KKKK -> ♥7777")
    add(G, 10, "h", "7s 7s 7s 7s 8s 8s 9s 9s 3s", "Ks Ks Ks Ks", "R5.3 T1: ♠KKKK plain suit")
    add(G, 10, "h", "7s 7s 7s 7s 9s 9s Js Js 3s", "Ks Ks Ks Ks", "R5.3 T1 + R3.3/D2: 9s-Js not linked at level 10")
    add(N, 10, "h", "7s 7s 7s 7s 9s 3s", "4s 4s 5s 5s", "§9 nanning: no 2-pair tractor, ladder T3 (bomb = 2 pairs)")
    add(G, 10, "h", "3s 3s 4s 4s 9s 9s Js Qs Ks", "5s 5s 6s 6s 7s 7s 8s 8s", "R5.3 T2 (rule 4(5)): the longest tractor")
    add(G, 10, "h", "5s 5s 5s 8s 8s 8s 3d", "Ks Ks Ks Ks", "R5.3 T3: ♠555 ♠888 vs ♠KKKK -> ♠5588")
    add(G, 10, "h", "As Qs Js 9s 9s 5s 3s", "4s 4s 5s 5s", "R5.3 T3: ♠AQJ9953 vs ♠4455 -> ♠99 + any two")
    add(G, 10, "h", "As Js 9s 5s 3s Kd", "4s 4s 5s 5s", "R5.3 T4: ♠AJ953 vs ♠4455 -> any four spades")
    add(G, 10, "h", "3s 3s 8s 8s 9s 9s 9s Js", "As As As As", "R5.4: ♠33 88 999 J vs ♠AAAA -> ♠8899 (T1)")
    add(N, 10, "h", "3s 3s 8s 8s 9s 9s 9s Js", "As As As As", "R5.4 nanning: no bomb, ladder T2 -> ♠8899")
    add(G, 10, "h", "3s 3s 4s 4s 6s 6s 7s 7s 8s 8s Js Js Js Qs Qs Qs As As 5d",
        "3s 3s 4s 4s 5s 5s 6s 6s 7s 7s 8s 8s", "D4: one 6-card tractor (T2) + three pairs (T3)")
    add(N, 10, "h", "3s 3s 4s 4s 6s 6s 7s 7s 8s 8s Js Js Js Qs Qs Qs As As 5d",
        "3s 3s 4s 4s 5s 5s 6s 6s 7s 7s 8s 8s", "D4 nanning: no 6-pair tractor held, the same ladder")
    add(G, 10, "h", "As Kd Qc 3d", "5s 5s", "R5.2: short, all of S + any other")
    add(G, 10, "h", "As 3h 4d", "5s 5s", "R5.2: no duty to ruff")
    add(G, 10, "h", "Kd 3h", "5s", "R5.2: void, any card")
    add(G, 10, "h", "As Ks 3h", "5s 5s", "R5.2: |S| = N")
    add(G, 10, "h", "As Ks Qs 3h", "5s 5s", "R5.2: |S| > N, all N from the class (T4)")
    add(G, 10, "h", "As Ks 3h 4d", "10s", "R2.5: a lead of 副10 is a trump lead")
    add(G, 10, "h", "As 4d", "10s", "R2.5: void in trump")
    add(G, 10, "h", "2s Ks 4d", "3h", "R2.5: 2s is trump")
    add(G, 10, "h", "BJ BJ SJ SJ 2h 2h 3h 3h 4h 4h 5c", "Ah Ah Kh Kh Qh Qh", "R3.3: BJBJSJSJ, 2h2h3h3h4h4h are tractors")
    add(G, 10, "h", "Ah Ah 2h 2h 3h 3h Kh Kh Qh Qh 9s", "9h 9h 10h 10h Jh Jh", "R3.3: AhAh2h2h3h3h, AhAhKhKhQhQh link")
    add(G, 10, "h", "9h 9h 10h 10h Jh Jh 10s 10s 2s 2s SJ SJ", "5h 5h 6h 6h 7h 7h",
        "R3.3/D2: 9h-10h-Jh link; SJ-正L, 正L-副L, 副L-2 do not")
    add(G, 10, "h", "Js Js 9s 9s 8s 8s Qs Qs 4d", "5s 5s 6s 6s", "R3.3/D2: Js-9s not linked (L removed)")
    add(G, 3, "h", "2s 2s 3s 3s 2h 2h 3h 3h 4h", "5h 5h", "R3.3: 2s2s3s3s at level 3 is two pairs; 2h2h3h3h a tractor")
    add(G, 3, "s", "2s 2s 3s 3s 4s 4s Ah Ah Kh Kh 5d", "SJ SJ BJ BJ", "R4.2 level 3: the 2233 tractor (正2-正L)")
    add(G, 14, "s", "Ks Ks As As 2s 2s 3s 3s Kh Kh Qh Qh Ah Ah", "Qs Qs Js Js 10s 10s",
        "R3.3 level A: KsAs2s3s through 正L=A and 正2; 副A never links")
    add(G, 10, "h", "As As Ks Ks 6s 6s 6s 6s 5s 5s 5s 6d", "3s 3s 3s 3s", "R4.1: a bomb lead, bomb held (T1)")
    add(G, 10, "h", "5s 5s 5s 6s 6s 6s As As Ks Ks Qs Qs", "7s 7s 7s 8s 8s 8s", "R4.1/R5.3 T1: 2-triple and 3-pair tractors")
    add(N, 10, "h", "5s 5s 5s 6s 6s 6s As As Ks Ks Qs Qs", "7s 7s 7s 8s 8s 8s", "§9 nanning: only the 2-triple tractor")
    add(N, 10, "h", "5s 5s As As Ks Ks Qs Qs 4c", "7s 7s 7s 8s 8s 8s", "§9 nanning: no 2-triple tractor; ladder T2 3-pair")

    # ---- structure: pair / triple / bomb tractors, A-2, 正L, the whole cycle -----------------
    add(G, 10, "h", "Kh Kh Ah Ah 2h 2h 3h 5h 6h 8h 9h Jh Qh 4s", "SJ SJ SJ SJ BJ BJ BJ BJ",
        "R5.3 T2: tractor through A-2 (KKAA22) + free cards")
    add(N, 10, "h", "Kh Kh Ah Ah 2h 2h 3h 5h 6h 8h 9h Jh Qh 4s", "SJ SJ SJ SJ BJ BJ BJ BJ", "nanning: the same ladder")
    add(G, 10, "h", all_of(range(2, 15), "h", 2), "SJ SJ SJ",
        "whole trump cycle held in pairs vs a triple: T3, one pair + one other card")
    add(G, 10, "h", all_of(range(2, 15), "h", 2) + " SJ BJ 10s", all_of(range(2, 15), "h", 2),
        "R3.3: the whole cycle (26 cards) led, the whole cycle held: T1")
    add(G, 10, "h", all_of(range(2, 15), "h", 2) + " 10s 10s 2c", "SJ SJ BJ BJ",
        "whole cycle in pairs (and 10s10s 2c): T1, the 13 2-pair windows of the cycle")
    add(G, 7, "d", all_of(range(2, 15), "d", 3), "SJ SJ SJ BJ BJ BJ",
        "whole cycle in triples, level 7: 2-triple windows and 3-pair windows (T1)")
    add(N, 7, "d", all_of(range(2, 15), "d", 3), "SJ SJ SJ BJ BJ BJ", "nanning: only the 2-triple windows")
    add(G, 7, "d", all_of(range(2, 15), "d", 2) + " 7s 7s 2c", "SJ SJ SJ SJ BJ BJ BJ BJ",
        "whole cycle in pairs vs a bomb tractor lead: 4-pair windows (T1)")
    add(N, 7, "d", all_of(range(2, 15), "d", 2) + " 7s 7s 2c", "SJ SJ SJ SJ BJ BJ BJ BJ",
        "nanning: no bomb tractor, ladder T2 over the unbroken cycle")
    add(N, 7, "d", all_of(range(2, 15), "d", 3), "SJ SJ SJ SJ BJ BJ BJ BJ",
        "nanning: whole cycle in triples vs a bomb tractor: T2, a 4-pair window through the unbroken cycle")
    add(G, 5, "c", "Kc Kc Kc Ac Ac Ac 2c 2c 2c 3c 3c 3c 5c 5c 5d 5d 9c", "SJ SJ SJ BJ BJ BJ",
        "R3.3: triple tractors through A-2 (KKKAAA, AAA222, 222333) and pair tractors KKAA22, AA2233")
    add(G, 10, "h", "8h 8h 9h 9h 10h 10h Jh Jh Qh Qh Kh 10s", "3h 3h 4h 4h 5h 5h 6h 6h 7h 7h",
        "R3.3: a 5-pair tractor 8-9-10-J-Q through 正L (T1)")
    add(G, 10, "h", "10h 10h 10h 9h 9h 9h Jh Jh Jh 8h 8h Qh 10s 10s SJ", "3h 3h 3h 4h 4h 4h 5h 5h 5h",
        "R3.3: triple tractor through 正L (9-10-J at level 10)")
    add(G, 10, "h", "10h 10h 9h 9h Jh Jh 10s 10s 10d 10d 2c 2c 2h 2h", "Ah Ah Kh Kh",
        "T1: the 2-pair tractors 9h10h and 10hJh through 正L; 副L/副2 pairs link with nothing")
    add(G, 10, "h", "10s 10s 10c 10c 2d 2d 2s 5h 4c", "Jh Jh Qh Qh", "副L/副2 never link: T3 two pairs of three")
    add(G, 3, "h", "2s 2s 3s 3s 2d 2d 3c 3c 4s", "4h 4h 5h 5h", "level 3: 副2/副L pairs, no tractor (T3)")
    add(G, 3, "h", "2s 2s 2s 3s 3s 3s 2h 2h 2h 3h 3h 3h 4h 4h", "5h 5h 5h 6h 6h 6h",
        "level 3: 222333 of hearts is a triple tractor; 副 triples are not")
    add(G, 3, "s", "Qd Qd Kd Kd Ad Ad 4d 4d 5d 5d 3d 2d 2d", "6d 6d 7d 7d 8d 8d",
        "level 3: plain chain 4..A (3 is L, 2 is trump): QQKKAA, T1")
    add(G, 14, "c", "Kc Kc Kc Ac Ac Ac 2c 2c 2c 3c Qc Qc Qc Ad Ad Ad", "4c 4c 4c 5c 5c 5c 6c 6c 6c",
        "level A: QQQKKKAAA222 through 正L=A and 正2 (T1 3-triple windows)")
    add(G, 14, "h", "Kd Kd Qd Qd Jd Jd Ad Ad 3d 3d 4d", "5d 5d 6d 6d 7d 7d",
        "level A: plain diamonds 3..K; Ad is 副L, in the trump class")
    add(G, 14, "h", "Kd Kd Qd Qd Jd Jd 3d 3d 4d Ad", "Ah Ah", "level A: trump pair lead; Ad the only trump (R5.2)")
    add(G, 11, "s", "10h 10h Qh Qh Kh Kh 9h 9h 8h", "3h 3h 4h 4h 5h 5h", "level J: 10h-Qh not linked (Jh is L): two 2-pair tractors, T2 + one pair")
    add(G, 10, "h", "3d 3d 3d 3d 4d 4d 4d 4d 5d 5d 5d 6d 6d 6d 7d 7d Kd", "8d 8d 8d 8d 9d 9d 9d 9d",
        "bomb tractor led: 3333-4444 held (T1)")
    add(N, 10, "h", "3d 3d 3d 4d 4d 4d 5d 5d 5d 6d 6d 7d 7d Kd Kd Kd Kd", "8d 8d 8d 8d 9d 9d 9d 9d",
        "nanning: bomb tractor led, none held: T2, a 4-pair tractor (3456 or 4567)")
    add(G, 9, "c", "3c 3c 3c 3c 4c 4c 4c 5c 5c 6c 6c 6c 6c Jc Jc Qc Qc Ac", "Kd Kd Kd Kd Ad Ad Ad Ad",
        "void in diamonds, 18 clubs (trump): R5.2, any 8 (no duty to ruff)")
    return P


def full_hands() -> List[Pos]:
    """54-card hands: void and short followers with huge counts, and full-hand ladders."""
    G, N = "guigang", "nanning"
    P: List[Pos] = []

    def add(profile, level, trump, hand, lead, note):
        p = Pos(profile, level, trump, hand, lead, note)
        assert size(p.hand) == 54, (note, size(p.hand))
        P.append(p)

    hearts2 = all_of(range(2, 15), "h", 2)
    diam2 = all_of(range(2, 15), "d", 2)
    clubs2 = all_of(range(2, 15), "c", 2)
    add(G, 10, "h", hearts2 + " " + diam2 + " SJ BJ", "3s 3s 3s 3s 4s 4s 4s 4s 5s 5s 5s 5s 6s 6s 6s 6s",
        "54 cards void in spades vs a 16-card bomb tractor: R5.2, any 16")
    add(G, 10, "h", hearts2 + " " + diam2 + " SJ BJ", "3c 3c 3c 4c 4c 4c 5c 5c 5c 6c 6c 6c 7c 7c 7c 8c 8c 8c 9c 9c 9c",
        "54 cards void in clubs vs a 21-card triple tractor")
    add(G, 10, "h", hearts2 + " " + diam2 + " SJ BJ", "Ks", "54 cards void in spades vs a single")
    add(G, 10, "h", diam2 + " " + clubs2 + " 3s 3s", "Ah Ah Kh Kh Qh Qh Jh Jh", "54 cards whose only trumps are 副2/副L 2d 2c 10d 10c (8 cards) vs an 8-card trump tractor: R5.2, |S| = N")
    add(G, 3, "s", all_of(range(4, 15), "h", 2) + " " + all_of(range(4, 15), "d", 2) + " " + all_of(range(4, 9), "c", 1)
        + " 3c 2c 3h 2d 2h", "SJ SJ SJ SJ BJ BJ BJ BJ",
        "level 3: 5 trumps (副L 3c 3h, 副2 2c 2d 2h) vs an 8-card joker bomb tractor: R5.2, 5 + any 3")
    add(G, 14, "d", all_of(range(3, 14), "s", 2) + " " + all_of(range(3, 14), "h", 2) + " 5c 6c 7c 8c 9c 10c Jc 3c 2s Ad",
        "Kd Kd Kd Kd Qd Qd Qd Qd Jd Jd Jd Jd", "level A: 2 trumps (2s Ad) vs a 12-card bomb tractor: 2 + any 10")
    add(N, 14, "d", all_of(range(3, 14), "s", 2) + " " + all_of(range(3, 14), "h", 2) + " 5c 6c 7c 8c 9c 10c Jc 3c 2s Ad",
        "Kd Kd Kd Kd Qd Qd Qd Qd Jd Jd Jd Jd", "nanning: the same R5.2 count")
    add(G, 7, "c", all_of(range(3, 15), "s", 2) + " " + all_of(range(3, 15), "h", 1) + " " + all_of(range(3, 11), "h", 1)
        + " 3d 4d 5d 6d Ad Kd Qd Jd 2c 2c",
        "9d 9d 9d 9d 10d 10d 10d 10d",
        "level 7, 8 diamonds held vs an 8-card diamond bomb tractor: |S| = N, exactly 1")
    add(G, 10, "h", all_of([3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 14], "s", 4) + " " + all_of([3, 4, 5, 6, 7, 8, 9, 11, 12, 13], "d", 1),
        hearts2, "54 cards without a trump vs the whole trump cycle led (26 cards): any 26")
    add(G, 3, "s", "SJ BJ 2h 3d " + all_of(range(4, 15), "h", 4) + " " + all_of(range(4, 10), "d", 1),
        "4s 4s 4s 4s 5s 5s 5s 5s 6s 6s 6s 6s 7s 7s 7s 7s",
        "level 3: 4 trumps vs a 16-card bomb tractor of the trump suit: 4 + any 12 (R5.2)")
    add(N, 14, "c", all_of(range(3, 14), "s", 4) + " " + all_of(range(3, 13), "d", 1),
        "10h 10h 10h Jh Jh Jh Qh Qh Qh Kh Kh Kh", "nanning, level A: void in hearts vs a 12-card triple tractor")
    # full-hand ladders that are still brute-forceable
    add(G, 10, "h", "3h 3h 4h 4h 4h 5h 5h 6h 7h 7h 8h Jh Jh 2s 2s 10s SJ BJ " + all_of(range(3, 10), "s", 2) + " "
        + all_of([3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 14], "d", 1) + " 3c 4c 5c 6c 7c 8c 9c Jc Qc Kc Ac",
        "Qh Qh Kh Kh Ah Ah", "54 cards, 18 trumps vs a 3-pair trump tractor: T1, 3h3h4h4h5h5h")
    add(G, 10, "h", "3h 3h 4h 4h 4h 5h 5h 6h 7h 7h 8h Jh Jh 2s 2s 10s SJ BJ " + all_of(range(3, 10), "s", 2) + " "
        + all_of([3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 14], "d", 1) + " 3c 4c 5c 6c 7c 8c 9c Jc Qc Kc Ac",
        "Qh Qh Kh Kh Ah Ah 2h 2h", "54 cards vs a 4-pair tractor through A-2: T2 334455 + one more pair (T3)")
    add(G, 10, "h", "3h 3h 4h 4h 4h 5h 5h 6h 7h 7h 8h Jh Jh 2s 2s 10s SJ BJ " + all_of(range(3, 10), "s", 2) + " "
        + all_of([3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 14], "d", 1) + " 3c 4c 5c 6c 7c 8c 9c Jc Qc Kc Ac",
        "Qh", "54 cards vs a trump single: T1, any trump kind")
    add(G, 10, "h", "3h 3h 4h 4h 4h 5h 5h 6h 7h 7h 8h Jh Jh 2s 2s 10s SJ BJ " + all_of(range(3, 10), "s", 2) + " "
        + all_of([3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 14], "d", 1) + " 3c 4c 5c 6c 7c 8c 9c Jc Qc Kc Ac",
        "Qs Qs Ks Ks", "54 cards, 14 spades in pairs vs a spade pair tractor (T1)")
    add(G, 10, "h", "3h 3h 4h 4h 4h 5h 5h 6h 7h 7h 8h Jh Jh 2s 2s 10s SJ BJ " + all_of(range(3, 10), "s", 2) + " "
        + all_of([3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 14], "d", 1) + " 3c 4c 5c 6c 7c 8c 9c Jc Qc Kc Ac",
        "Qd Qd Qd", "54 cards, 11 single diamonds vs a triple (T4: any three)")
    add(N, 10, "h", "3h 3h 4h 4h 4h 5h 5h 6h 7h 7h 8h Jh Jh 2s 2s 10s SJ BJ " + all_of(range(3, 10), "s", 2) + " "
        + all_of([3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 14], "d", 1) + " 3c 4c 5c 6c 7c 8c 9c Jc Qc Kc Ac",
        "Js Js Js Qs Qs Qs", "nanning: 2-triple lead vs spade pairs (ladder T2 3-pair)")
    return P


def competition_picked() -> List[Pos]:
    """The competition profile (RULES §10): the examples of C1-C5 and positions around them."""
    C = "competition"
    P: List[Pos] = []

    def add(level, trump, hand, lead, note):
        P.append(Pos(C, level, trump, hand, lead, note))

    add(10, "h", "Ah Ah 2h 2h 6h 6h 9h 4s", "5h 5h 6h 6h", "C1/C5: ♥5566 vs ♥AA 22 66 9 -> any two pairs (no A-2 link)")
    add(10, "h", "Kh Kh Ah Ah 2h 2h 3h 3h 9h 5d", "SJ SJ BJ BJ", "C1: KKAA22 is no tractor; 2233 and KKAA are")
    add(4, "h", "3s 3s 5s 5s 6s 6s 9s 3d", "Js Js Qs Qs", "C1: 打4时 3s-5s not linked; 5566 is E")
    add(10, "h", "5s 5s 5s 8s 8s 8s 3d", "Ks Ks Ks Ks", "C4: ♠555 888 vs ♠KKKK -> ♠5558 or ♠8885")
    add(10, "h", "4s 4s 5s 5s 7s 7s 7s 9s", "Ks Ks Ks Ks", "C4: bomb lead, a 2-pair tractor first")
    add(10, "h", "5s 5s 8s 8s Js As 4d", "Ks Ks Ks Ks", "C4: bomb lead, two pairs")
    add(10, "h", "5s 5s 8s Js As", "Ks Ks Ks Ks", "C4: bomb lead, a pair and two cards")
    add(10, "h", "5s 5s 8s Js 3c", "Ks Ks Ks", "C4: triple lead, a pair and a card")
    add(10, "h", "5s 8s Js Qs 3c", "Ks Ks", "C4: pair lead, none held: any two")
    add(10, "h", "6s 6s 6s 7s 7s 7s Js Js Qs Qs Ks Ks", "3s 3s 4s 4s 5s 5s", "C5 E: ♠334455 vs ♠666777 JJQQKK -> ♠JJQQKK")
    add(10, "h", "Js Js Qs Qs 6s 6s 8s 8s As", "3s 3s 4s 4s 5s 5s", "C5 L: -> ♠JJQQ66 or ♠JJQQ88")
    add(10, "h", "Js Js Qs Qs 8s 8s 8s 8s 3s 3s As Ks", "4s 4s 5s 5s 6s 6s 7s 7s", "C2/C5: -> ♠JJQQ8888 only")
    add(10, "h", "7s 7s 7s 9s 9s 9s Qs Qs Ks", "3s 3s 3s 4s 4s 4s", "C5 p: ♠333444 vs ♠777 999 QQ K -> ♠7799QQ")
    add(10, "h", "7s 7s 7s 9s 9s 9s Ks As", "3s 3s 3s 4s 4s 4s", "C5 t: ♠333444 vs ♠777 999 K A -> ♠777999")
    add(10, "h", "7s 7s 7s 8s 8s 8s Js Js Qs Qs As As", "3s 3s 4s 4s 5s 5s 6s 6s", "C5: 4-pair lead, a 2-triple tractor and a pair")
    add(10, "h", "7s 7s 7s 7s Js Js Qs Qs As Ks 9s", "3s 3s 4s 4s 5s 5s 6s 6s", "C5: 4-pair lead, a 2-pair tractor and a bomb")
    add(10, "h", "7s 7s 7s 7s 8s 8s 8s 8s Js Js Js Qs Qs Qs", "3s 3s 4s 4s 5s 5s 6s 6s", "C5: 4-pair lead, a bomb tractor is L (8)")
    add(10, "h", "7s 7s 8s 8s Js Js As Ks", "3s 3s 3s 4s 4s 4s", "C5: 2-triple lead, a 4-card tractor and a pair")
    add(10, "h", "7s 7s 8s 8s Js Js Qs Qs As", "3s 3s 4s 4s 5s 5s", "C5: 3-pair lead, two 4-card tractors, (4) + a pair")
    add(3, "d", all_of(range(2, 15), "d", 2) + " SJ 5s", "SJ SJ SJ BJ BJ BJ", "C1: the whole trump suit in pairs is a path 2-A: a 3-pair window (L 6), never through A-2")
    add(14, "c", "Kc Kc Kc Ac Ac Ac 2c 2c 2c 3c 3c 3c 4c", "SJ SJ SJ BJ BJ BJ", "C1 at level A: KKKAAA and 222333 are E, AAA222 is not")
    add(7, "s", all_of([3, 4, 5, 6], "s", 3) + " " + all_of([8, 9, 10], "s", 2) + " 2s 2s 7h 7h", "Qs Qs Qs Ks Ks Ks As As As",
        "C5: 3-triple lead held as a 4-triple run: E")
    add(7, "s", all_of([3, 4], "s", 4) + " " + all_of([8, 9, 10, 11], "s", 2) + " 2s 7h 7h", "Qs Qs Qs Ks Ks Ks As As As",
        "C5: 3-triple lead: a bomb tractor (8) + a card")
    return P


# ---- random positions from real deals ------------------------------------------------------


def _cards(cs) -> Counts:
    out: Counts = {}
    for c in cs:
        out[int(c)] = out.get(int(c), 0) + 1
    return out


def _walk(g, rng: random.Random, tricks: int) -> None:
    """Plays the deal on to the start of trick ``tricks`` with choices drawn by ``rng`` from
    canonically sorted option lists, so the positions depend on the deal and the rules only,
    never on the order in which the engine lists actions. Leads are units (R3.1): a kind of the
    hand and a multiplicity; follows are uniform over the legal set (built directly for R5.2)."""
    from tractor import Pass

    while g.phase == "declare":
        acts = sorted(g.legal_actions(), key=lambda a: (-1, 0) if isinstance(a, Pass) else (SUITS.index(a.suit), a.count))
        g.apply(rng.choice(acts))
    while g.phase == "play" and not (len(g.tricks) >= tricks and not g.current_trick):
        seat = g.current_player
        hand = _cards(g.hand(seat))
        if not g.current_trick:
            k = rng.choice(sorted(hand))
            g.apply(fmt({k: rng.randint(1, hand[k])}))
            continue
        lead = _cards(g.current_trick[0][1])
        n = size(lead)
        cls = suit_class(next(iter(lead)), g.level, SUITS.index(g.trump))
        s = {k: c for k, c in hand.items() if suit_class(k, g.level, SUITS.index(g.trump)) == cls}
        if size(s) <= n:  # R5.2: all of S, then any others
            rest = [k for k in sorted(hand) if k not in s for _ in range(hand[k])]
            play = dict(s)
            for k in rng.sample(rest, n - size(s)):
                play[k] = play.get(k, 0) + 1
        else:
            plays = sorted(tuple(sorted(int(c) for c in p)) for p in g.context.legal_follows(fmt(hand), fmt(lead), limit=10**6))
            play = _cards(rng.choice(plays))
        g.apply(fmt(play))


def random_positions(count: int, seed: int, profiles: Sequence[str] = ("guigang", "guigang", "nanning")) -> List[Pos]:
    """Positions from real deals of the engine: a seeded deal (``tractor.Game.deal``) at a random
    level, declared and played on for a random number of tricks by :func:`_walk`; then a lead
    drawn from the leader's hand (from the oracle's own list of combinations) and one of the
    three others as the follower."""
    import tractor  # the engine deals and keeps the game

    rng = random.Random(seed)
    out: List[Pos] = []
    hand_seed = seed * 1000
    while len(out) < count:
        hand_seed += 1
        level = rng.choice([3, 3, 14, 14] + list(range(3, 15)))
        profile = rng.choice(list(profiles))
        g = tractor.Game.deal(hand_seed, levels=(level, level), profile=profile)
        _walk(g, rng, 0)
        if g.phase != "play":
            continue  # R8.5: stopped
        _walk(g, rng, rng.choice([0, rng.randrange(1, 40)]))
        if g.phase != "play":
            continue
        leader = g.current_player
        trump = g.trump
        t = SUITS.index(trump)
        lhand = _cards(g.hand(leader))
        leads = sorted(sorted(f) for f in oracle_leads(lhand, level, t, profile != "competition"))
        big = [f for f in leads if sum(v for _, v in f) >= 4]
        tractors = [f for f in big if len(f) >= 2]
        for _ in range(12):
            u = rng.random()
            pool = tractors if tractors and u < 0.4 else big if big and u < 0.7 else leads
            lead = dict(rng.choice(pool))
            cls = suit_class(min(lead), level, t)
            others = [(leader + d) % 4 for d in (1, 2, 3)]
            if rng.random() < 0.3:  # the follower with the most cards of the led class
                follower = max(others, key=lambda s: sum(1 for c in g.hand(s) if suit_class(int(c), level, t) == cls))
            else:
                follower = rng.choice(others)
            fhand = _cards(g.hand(follower))
            n = sum(lead.values())
            if size(fhand) < n:
                continue
            if ladder_candidates(fhand, lead, level, t) > 400_000:
                continue
            p = Pos(profile, level, trump, fmt(fhand), fmt(lead),
                    f"random: deal {hand_seed}, level {level_name(level)}, after {len(g.tricks)} tricks, "
                    f"seat {follower} follows seat {leader}")
            out.append(p)
            break
    return out


# =============================================================================================
# driver
# =============================================================================================

HEADER = """\
# perft.txt — move-generation regression positions for tractor-engine (Guigang Tractor).
#
# One position per line, fields separated by ' | ':
#   profile | level | trump | hand | lead | leads | follows | tier | verified | note
# profile   guigang, nanning or competition (RULES §9, §10)
# level     the hand's level L: 3..10, J, Q, K, A (R2.1)
# trump     trump suit: s, h, d or c
# hand      the cards of one hand, engine notation (rank then suit: As 10h 2c; jokers SJ BJ)
# lead      one combination (R3.4) led by another player
# leads     the number of distinct legal leads of `hand`: the distinct sub-multisets that are
#           one combination (R3.4) = tractor_core::combo::legal_leads(..).len() = count_leads
# follows   the number of distinct legal follows of `hand` to `lead` (multisets; R5.2-R5.4, C3-C5)
#           = Follow::new(..).legal_set(&[0; 54]).count() = Context.count_legal_follows
# tier      what the ladder demands: R5.2 (|S| <= N), T1, T2, T3 or T4 (R5.3); under competition
#           the entry of C4's list ("C4 a triple and a card") or the part of C5's key ("C5 E", "C5 L", …)
# verified  how `follows` was checked independently of the engine: bf:<n> = brute force over
#           n candidate selections; dp = the R5.2 count of a bounded-multiset DP (astronomically
#           large counts of void and short followers, over 300,000). `leads` is always
#           brute-forced.
# note      what the position is about (rule ids), or where a random one comes from
#
# Generated by tests/data/make_perft.py (rerun it to regenerate; --verify re-checks this file
# with the oracle alone). Read by rust/core/tests/perft.rs and tests/test_perft.py.
"""


def line_of(p: Pos) -> str:
    return " | ".join([p.profile, level_name(p.level), p.trump, fmt(p.hand), fmt(p.lead), str(p.leads),
                       str(p.follows), p.tier, p.how, p.note])


def read_file(path: Path) -> List[Tuple[Pos, int, int, str]]:
    out = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        if not raw.strip() or raw.startswith("#"):
            continue
        f = [x.strip() for x in raw.split(" | ")]
        assert len(f) == 10, raw
        p = Pos(f[0], parse_level(f[1]), f[2], f[3], f[4], f[9])
        out.append((p, int(f[5]), int(f[6]), f[7]))
    return out


def verify_file(path: Path) -> int:
    bad = 0
    t0 = time.time()
    rows = read_file(path)
    for i, (p, leads, follows, tier) in enumerate(rows):
        ol = oracle_lead_count(p.hand, p.level, p.t, p.profile != "competition")
        of, ot, _ = oracle_follows(p.hand, p.lead, p.level, p.t, p.profile)
        if (ol, of, ot) != (leads, follows, tier):
            bad += 1
            print(f"line {i}: file ({leads}, {follows}, {tier}) oracle ({ol}, {of}, {ot}): {line_of(p)}")
    print(f"verified {len(rows)} positions in {time.time() - t0:.1f}s: {bad} disagreement(s)")
    return 1 if bad else 0


def engine_counts(p: Pos) -> Tuple[int, int, str]:
    import tractor

    ctx = tractor.Context(p.level, p.trump, p.profile)
    hand, lead = fmt(p.hand), fmt(p.lead)
    return (
        len(ctx.legal_leads(hand)),
        ctx.count_legal_follows(hand, lead),
        ctx.follow_requirement(hand, lead)["tier"],
    )


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--verify", action="store_true", help="re-check perft.txt with the oracle only")
    ap.add_argument("--out", default=str(OUT))
    a = ap.parse_args(argv)
    if a.verify:
        return verify_file(Path(a.out))

    t0 = time.time()
    positions = (hand_picked() + full_hands() + random_positions(80, seed=20261129)
                 + competition_picked() + random_positions(40, seed=20261201, profiles=("competition",)))
    mismatches = []
    for i, p in enumerate(positions):
        combo = combination(p.lead, p.level, p.t, p.profile != "competition")
        if combo is None:
            raise SystemExit(f"position {i} ({p.note}): the lead {fmt(p.lead)} is not one combination")
        for k, v in p.lead.items():
            assert p.hand.get(k, 0) + v <= 4, f"position {i} ({p.note}): more than 4 copies of {name(k)}"
        el, ef, et = engine_counts(p)
        ol = oracle_lead_count(p.hand, p.level, p.t, p.profile != "competition")
        of, ot, how = oracle_follows(p.hand, p.lead, p.level, p.t, p.profile)
        p.leads, p.follows, p.tier, p.how = ol, of, ot, how
        if (el, ef, et) != (ol, of, ot):
            mismatches.append((p, (el, ef, et)))
            print(f"MISMATCH engine {(el, ef, et)} oracle {(ol, of, ot)}: {line_of(p)}", file=sys.stderr)
    with open(a.out, "w", encoding="utf-8") as f:
        f.write(HEADER)
        for p in positions:
            f.write(line_of(p) + "\n")
    tiers: Dict[str, int] = {}
    for p in positions:
        tiers[p.tier] = tiers.get(p.tier, 0) + 1
    literal = sum(LITERAL)
    dp = sum(p.how == "dp" for p in positions)
    print(f"wrote {len(positions)} positions to {a.out} in {time.time() - t0:.1f}s; tiers {tiers}; "
          f"largest follow count {max(p.follows for p in positions):,}; follows brute-forced "
          f"{len(positions) - dp}, by the R5.2 DP {dp}; leads also checked sub-multiset by sub-multiset "
          f"{literal}; {len(mismatches)} engine mismatch(es)")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
