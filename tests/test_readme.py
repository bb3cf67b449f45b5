"""The README's examples run as written (the rules API and the game)."""

import re
from pathlib import Path


README = Path(__file__).resolve().parent.parent / "README.md"


def _blocks():
    text = README.read_text(encoding="utf-8")
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def test_quick_start_has_two_command_lines():
    text = README.read_text(encoding="utf-8")
    first = re.search(r"```\n(.*?)```", text, flags=re.S).group(1).strip().splitlines()
    assert len(first) == 2
    assert "tractor simulate" in first[0] and "pytest" in first[1]


def test_readme_python_blocks_run_in_order():
    ns: dict = {}
    for index in (0, 1):  # the rules tour, then the game (the bulk block is large by design)
        exec(compile(_blocks()[index], f"README block {index}", "exec"), ns)  # noqa: S102
    assert ns["g"].phase == "over" and ns["g"].result is not None
    assert ns["m"].winner is not None


def test_readme_rules_block_answers():
    ns: dict = {}
    exec(compile(_blocks()[0], "README block 0", "exec"), ns)  # noqa: S102
    ctx, hand, lead = ns["ctx"], ns["hand"], ns["lead"]
    assert ctx.trick_winner(["As As Ks Ks", "5h 5h 6h 6h", "6s 6s 6s 6s", "3s 3s 4s 4s"]) == 2
    assert ctx.is_legal_follow(hand, lead, "9s 9s As Qs")
    assert ctx.follow_error(hand, lead, "As Qs Js 3s").startswith("R5.3 T3")


def test_learning_section_runs_and_documents_the_layout():
    import tractor

    blocks = [b for b in _blocks() if "every_receiver=True" in b or "VecEnv(" in b]
    assert len(blocks) == 2
    ns: dict = {}
    exec(compile(blocks[0], "README learning block 0", "exec"), ns)  # noqa: S102
    assert ns["g"].phase == "over" and ns["obs"].shape == (636,)
    exec(compile(blocks[1], "README learning block 1", "exec"), ns)  # noqa: S102
    assert ns["obs"].shape == (1024, 636) and ns["mask"].shape == (1024, 72)
    text = README.read_text(encoding="utf-8")
    for name, off, length, _ in tractor.actions.OBS_LAYOUT:
        assert f"| `{name}` | {off} | {length} |" in text, name
