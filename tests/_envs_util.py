"""Helpers of the adapter tests: the README's snippets, a deal stopped without a showing."""

import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def adapter_snippet(module: str) -> str:
    """The one Python block of the adapters section that imports ``module``."""
    text = README.read_text(encoding="utf-8")
    section = text.split("## Learning: adapters", 1)[1].split("\n## ", 1)[0]
    blocks = [b for b in re.findall(r"```python\n(.*?)```", section, flags=re.S) if module in b]
    assert len(blocks) == 1, f"expected one README snippet using {module}, found {len(blocks)}"
    return blocks[0]


def stopped_deal():
    """A fast (default-way) deal where seat 1 holds every level card (3s) in all three deal
    attempts and passes each time: the hand stops with no result (R8.5) and seats 0, 2 and 3
    never had a decision."""
    import tractor

    level = [k for k in range(54) if k < 52 and k % 13 == 1]  # rank 3 of each suit
    rest = [k for k in range(54) for _ in range(4) if k not in level]
    threes = [k for k in level for _ in range(4)]
    deck = [threes.pop() if t % 4 == 1 and threes else rest.pop() for t in range(216)]
    g = tractor.Game.deal(0, deck=deck, first_seat=0, redeal_decks=[(deck, 0), (deck, 0)])
    while g.phase == "declare":
        assert g.current_player == 1
        g.step(tractor.actions.PASS)
    assert g.stopped and g.result is None
    return g
