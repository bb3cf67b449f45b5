"""The names of shipped agents that the core does not know: the learned agents whose weights
ship in the package (``weights/NAME.tnet``, standing for ``net:PATH`` of the file) and the
search presets. Each is a policy name everywhere one is taken (``tractor.agents`` lists them
with the built-in policies)."""

from __future__ import annotations

from pathlib import Path
from typing import Dict, Optional

FOLDER = Path(__file__).resolve().parent / "weights"


def shipped() -> Dict[str, str]:
    """Name -> path of every weights file in the package, by name."""
    return {p.stem: str(p) for p in sorted(FOLDER.glob("*.tnet"))}


#: Names of search settings the ladder rates, each standing for its policy.
PRESETS: Dict[str, str] = {
    "pimc-16": "pimc:worlds=16,rollouts=1,rollout=greedy",
    "ismcts-1000": "ismcts:iterations=1000,rollout=greedy",
}


def resolve(name: str) -> Optional[str]:
    """The policy a shipped agent's name stands for (``net:PATH`` of a learned agent's weights,
    a search preset's settings; case and spaces ignored), a search whose ``rollout=`` names a
    shipped learned agent with that agent's ``net:PATH``, else None."""
    key = name.strip().lower()
    if key in PRESETS:
        return PRESETS[key]
    files = shipped()
    if key in files:
        return f"net:{files[key]}"
    head, colon, rest = name.strip().partition(":")
    if not colon or head.strip().lower() == "net":
        return None
    params = rest.split(",")
    for i, kv in enumerate(params):
        k, eq, v = kv.partition("=")
        if eq and k.strip().lower() == "rollout" and v.strip().lower() in files:
            params[i] = f"{k}=net:{files[v.strip().lower()]}"
            return f"{head}:{','.join(params)}"
    return None

