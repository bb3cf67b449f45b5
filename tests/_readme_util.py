"""The README's adapter snippets (section "## Learning: adapters"), for the tests that run them."""

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
