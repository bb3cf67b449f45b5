"""The names of shipped agents that the core does not know: the learned agents whose weights
ship in the package (networks in ``weights/NAME.tnet``, standing for ``net:PATH`` of the file;
tuned greedy weights in :data:`TUNED`, standing for ``greedy:NAME=V/...``) and the search
presets. Each is a policy name everywhere one is taken (``tractor.agents`` lists them
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


#: Learned greedy weights by name, each standing for its policy: greedy's weights learned by
#: self-play (``examples/tune_greedy.py``; the command that made each is in docs/arena.md).
TUNED: Dict[str, str] = {
    "tuned-greedy-v1": "greedy:keep_left=11/ace=484/ace_size=79/tractor=-29/tractor_size=49/tractor_trump=19/pair=45/pair_size=28/single=8/unit=78/unit_size=17/lead_points=0/feed=12/feed_risk=7/win=2639/win_points=10/win_empty=24/lose_points=25/show_margin=20",
}
# the same weights sampling 4 follows instead of 16 where there are too many to list: cheaper
# rollouts for the searches (docs/arena.md, learned weights as ISMCTS's rollout policy)
TUNED["tuned-greedy-v1-fast"] = TUNED["tuned-greedy-v1"] + "/samples=4"


def resolve(name: str) -> Optional[str]:
    """The policy a shipped agent's name stands for (``net:PATH`` of a network's weights, tuned
    greedy weights, a search preset's settings; case and spaces ignored), a search whose
    ``rollout=`` names a shipped learned agent with that agent's policy, else None."""
    key = name.strip().lower()
    if key in PRESETS:
        return PRESETS[key]
    agents = {**TUNED, **{n: f"net:{p}" for n, p in shipped().items()}}
    if key in agents:
        return agents[key]
    head, colon, rest = name.strip().partition(":")
    if not colon or head.strip().lower() in ("net", "greedy"):
        return None
    params = rest.split(",")
    for i, kv in enumerate(params):
        k, eq, v = kv.partition("=")
        if eq and k.strip().lower() == "rollout" and v.strip().lower() in agents:
            params[i] = f"{k}={agents[v.strip().lower()]}"
            return f"{head}:{','.join(params)}"
    return None

