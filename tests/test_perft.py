"""Perft: move-generation counts of fixed positions, through the Python API.

``tests/data/perft.txt`` holds about 150 positions (docs/rules.md examples, structure-rich hands,
54-card void and short followers, seeded positions from real deals), each with the exact number
of distinct legal leads of the hand (R3.4) and of distinct legal follows to the lead
(R5.2-R5.4), and the tier the ladder demands. The counts were verified by an independent
oracle when the file was made (``tests/data/make_perft.py``; ``--verify`` re-checks it).
``rust/core/tests/perft.rs`` reads the same file in ``cargo test``.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import List, NamedTuple

import pytest

import tractor

PERFT = Path(__file__).parent / "data" / "perft.txt"


class Line(NamedTuple):
    at: int
    profile: str
    level: str
    trump: str
    hand: str
    lead: str
    leads: int
    follows: int
    tier: str
    verified: str
    note: str


def read_perft() -> List[Line]:
    out = []
    for i, raw in enumerate(PERFT.read_text(encoding="utf-8").splitlines(), start=1):
        if not raw.strip() or raw.startswith("#"):
            continue
        f = [x.strip() for x in raw.split(" | ")]
        assert len(f) == 10, f"perft.txt line {i}: expected 10 fields: {raw}"
        out.append(Line(i, f[0], f[1], f[2], f[3], f[4], int(f[5]), int(f[6]), f[7], f[8], f[9]))
    return out


LINES = read_perft()


def test_perft_file_is_complete():
    assert len(LINES) >= 140
    tiers = Counter(l.tier for l in LINES)
    ladder = {t for t in tiers if not t.startswith("C")}
    assert ladder == {"R5.2", "T1", "T2", "T3", "T4"}, tiers
    # competition (C4/C5): the unit-lead lists and the parts of the key
    assert {"C5 E", "C5 L", "C5 p", "C4 a triple and a card", "C4 a 2-pair tractor"} <= set(tiers), tiers
    assert {l.profile for l in LINES} == {"guigang", "nanning", "competition"}
    assert sum(l.profile == "competition" for l in LINES) >= 50
    assert {"3", "A"} <= {l.level for l in LINES}
    assert max(l.follows for l in LINES) > 10**10, "no astronomically large follow count"
    assert sum(l.note.startswith("random") for l in LINES) >= 50


@pytest.mark.parametrize("line", LINES, ids=[f"line{l.at}" for l in LINES])
def test_perft(line: Line):
    ctx = tractor.Context(line.level, line.trump, line.profile)
    where = f"perft.txt line {line.at} ({line.note})"
    assert len(ctx.legal_leads(line.hand)) == line.leads, where
    assert ctx.count_legal_follows(line.hand, line.lead) == line.follows, where
    assert ctx.follow_requirement(line.hand, line.lead)["tier"] == line.tier, where
    if line.follows <= 2000:
        # the listing agrees with the count: distinct, N cards each, from the hand
        plays = ctx.legal_follows(line.hand, line.lead)
        assert len(plays) == line.follows, where
        keys = {tuple(sorted(int(c) for c in p)) for p in plays}
        assert len(keys) == len(plays), where
        n = len(tractor.parse(line.lead))
        hand = Counter(int(c) for c in tractor.parse(line.hand))
        for p in plays:
            assert len(p) == n and not Counter(int(c) for c in p) - hand, where
