"""The README's code runs as it stands: the two commands of its first block are the ones CI runs,
and every ```python block runs on its own (a fresh namespace, exactly as written, in a
temporary directory) and computes what its comments say."""

from __future__ import annotations

import re
import time
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"

# The first code block: .ci/run runs line 2 verbatim, .ci/wheel_smoke.py runs line 1's command.
COMMANDS = [
    "pip install . && tractor simulate --hands 100000 --policy greedy,random,greedy,random --seed 7",
    'pip install ".[test]" && python -m pytest && cargo test --workspace',
]
MAX_BYTES = 9 * 1024  # the front door; the reference lives in docs/
SLOW_S = 20  # a block slower than this must say how long it takes ("takes about N minutes")


def _text() -> str:
    return README.read_text(encoding="utf-8")


def python_blocks(text: str):
    """(heading of the section, index within it, code) of every ```python block."""
    out, heading, index = [], "", 0
    for m in re.finditer(r"^(#{1,6} [^\n]*)$|^```(\w*)\n(.*?)^```", text, flags=re.S | re.M):
        if m.group(1):
            heading, index = m.group(1).lstrip("#").strip(), 0
        elif m.group(2) == "python":
            out.append((heading, index, m.group(3)))
            index += 1
    return out


def _run(code: str, where: str, tmp_path, monkeypatch) -> dict:
    monkeypatch.chdir(tmp_path)
    ns: dict = {"__name__": "__readme__"}
    t0 = time.perf_counter()
    exec(compile(code, where, "exec"), ns)  # noqa: S102
    elapsed = time.perf_counter() - t0
    assert elapsed < SLOW_S or re.search(r"takes about \d+ (seconds|minutes)", code), (
        f"{where} took {elapsed:.0f} s: make it faster, or say so in the block (`takes about N minutes`)"
    )
    return ns


# -- what each block computes, by the section it stands in ----------------------------------------


def _rules(ns, tmp_path):
    ctx, hand, lead = ns["ctx"], ns["hand"], ns["lead"]
    c = ctx.classify("9h 9h 10h 10h Jh Jh")
    assert (c.kind, c.multiplicity, c.units) == ("tractor", 2, 3)
    assert ctx.trick_winner(["As As Ks Ks", "5h 5h 6h 6h", "6s 6s 6s 6s", "3s 3s 4s 4s"]) == 2
    assert ctx.is_legal_follow(hand, lead, "9s 9s As Qs")
    assert ctx.follow_error(hand, lead, "As Qs Js 3s") == "R5.3 T3: the play must hold 1 pair(s), it holds 0"
    assert ctx.count_legal_follows(hand, lead) == 10 == len(ctx.legal_follows(hand, lead))


def _game(ns, tmp_path):
    import tractor

    g, replay, m = ns["g"], ns["replay"], ns["m"]
    assert g.phase == "over" and g.result is not None and sum(g.result.returns) == 0
    assert replay.to_json() == g.to_json()
    assert tractor.playthrough(g).count("trick ") >= 1
    assert m.winner is not None and len(m.history) > 1


def _simulation(ns, tmp_path):
    import tractor

    res = ns["res"]
    assert len(res.score) == 10_000 and len(res.banker) == 10_000
    assert res.policies == ("greedy", "random", "greedy", "random")
    assert (tractor.load(tmp_path / "run.npz").score == res.score).all()
    assert "banker_win_rate" in str(res)


def _records(ns, tmp_path):
    games, light = ns["games"], ns["light"]
    assert len(games) == len(light) == 1000
    assert all(g.phase == "over" for g in games[:10])
    assert light[0].replay().to_json() == games[0].to_json()
    assert (tmp_path / "hands.bin").stat().st_size > 0


def _search(ns, tmp_path):
    import tractor

    g, r, p, world = ns["g"], ns["r"], ns["p"], ns["world"]
    assert isinstance(r.action, tractor.Play) and r.stats and sum(s.visits for s in r.stats) == 1000
    assert p.action in [s.play for s in p.stats]
    assert list(g.current_trick[-1][1]) == list(r.action.cards)
    assert world.hand(1) == g.hand(1) and world.observation(1) == g.observation(1)
    assert world.to_json() != g.to_json()  # the unseen cards were drawn afresh


def _arena(ns, tmp_path):
    r = ns["r"]
    (p,) = r.pairings
    assert len(p.index) == 200 and r.labels == ["random", "greedy"]
    assert r.ratings()["greedy"][0] == 1000 and set(r.cost_us) == {"random", "greedy"}


def _learning(ns, tmp_path):
    obs, mask, seat, reward, done = (ns[k] for k in ("obs", "mask", "seat", "reward", "done"))
    assert obs.shape == (256, 636) and obs.dtype == np.float32
    assert mask.shape == (256, 72) and mask.dtype == bool and mask.any(axis=1).all()
    assert seat.shape == (256,) and reward.shape == (256, 4) and done.shape == (256,)
    assert (reward.sum(axis=1) == 0).all()


def _pettingzoo(ns, tmp_path):
    e = ns["e"]
    assert e.agents == [] and e.unwrapped.game.phase == "over"


def _openspiel(ns, tmp_path):
    game = ns["game"]
    assert game.num_players() == 4 and game.new_initial_state().is_chance_node()


def _gym(ns, tmp_path):
    assert ns["obs"].shape == (636,) and not ns["info"]["illegal_action"]
    assert ns["info"]["action_mask"].shape == (72,)


CHECKS = {
    ("The rules API", 0): _rules,
    ("The game", 0): _game,
    ("Bulk simulation", 0): _simulation,
    ("Records", 0): _records,
    ("Search", 0): _search,
    ("The arena", 0): _arena,
    ("Learning", 0): _learning,
    ("Learning: adapters", 0): _pettingzoo,
    ("Learning: adapters", 1): _openspiel,
    ("Learning: adapters", 2): _gym,
}


def test_readme_starts_with_the_two_commands():
    text = _text()
    first = re.search(r"^```\n(.*?)^```", text, flags=re.S | re.M)
    assert first is not None and text.index(first.group(0)) < text.index("```python")
    assert first.group(1).splitlines() == COMMANDS


def test_readme_is_the_front_door():
    size = len(README.read_bytes())
    assert size <= MAX_BYTES, f"README.md is {size:,} bytes: move reference material to docs/"


def test_every_block_has_a_check_and_imports_tractor():
    blocks = python_blocks(_text())
    assert {(h, i) for h, i, _ in blocks} == set(CHECKS), (
        "a README block without a check in CHECKS, or the reverse"
    )
    for heading, index, code in blocks:
        imports = []
        for line in code.splitlines():
            if line.startswith(("import ", "from ")):
                imports.append(line)
            elif line.strip() and not line.startswith("#"):
                break
        assert "import tractor" in imports, (
            f"README {heading!r} block {index} does not start with `import tractor`"
        )


@pytest.mark.parametrize(
    "heading,index,code",
    python_blocks(README.read_text(encoding="utf-8")),
    ids=[f"{h}[{i}]" for h, i, _ in python_blocks(README.read_text(encoding="utf-8"))],
)
def test_readme_block_runs_on_its_own(heading, index, code, tmp_path, monkeypatch):
    ns = _run(code, f"README.md: {heading} [{index}]", tmp_path, monkeypatch)
    CHECKS[(heading, index)](ns, tmp_path)
