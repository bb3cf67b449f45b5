"""The names of shipped agents that the core does not know: the learned networks whose weights
ship in the package (``weights/NAME.tnet``), each standing for ``net:PATH`` of its file, and the
searches they guide (``GUIDED``). The
other shipped names, the search presets and greedy's learned weights, are the core's
(``_core.PRESETS``, ``_core.TUNED``: ``rust/core/src/policy.rs``), which reads them wherever it
takes a policy name. Each is a policy name everywhere one is taken (``tractor.agents`` lists
them with the built-in policies)."""

from __future__ import annotations

from pathlib import Path
from typing import Collection, Dict, List, Optional, Tuple

from . import _core

FOLDER = Path(__file__).resolve().parent / "weights"


def play_meta(path: str) -> Optional[str]:
    """The metadata of a play network's weights file (format 4, the core's
    ``agent::play_net``), or None for a file of another format."""
    import struct

    with open(path, "rb") as f:
        head = f.read(8 + 14 + 3 + 4 + 8)
        if len(head) < 37 or head[:8] != b"TRACTNET" or struct.unpack_from("<H", head, 8)[0] != 4:
            return None
        base, meta = struct.unpack_from("<II", head, 29)
        f.seek(37 + base)
        return f.read(meta).decode("utf-8", "replace")


def shipped() -> Dict[str, str]:
    """Name -> path of every weights file in the package, by name."""
    return {p.stem: str(p) for p in sorted(FOLDER.glob("*.tnet"))}


#: Searches that ship guided by a shipped network (its prior); each name stands for its
#: search, whose network is then read as everywhere (docs/arena.md, a network guiding ISMCTS).
#: Each below ``ismcts-1000``'s time a decision: the first with random rollouts (the prior
#: carries the play), the second with half the iterations and ``tuned-greedy-v1-fast``'s
#: rollouts, level with the first head to head at about two thirds of its time; the third
#: searches only once the seat holds at most 27 cards (``from=27``, the network deciding alone
#: before), with four times the second's iterations, ahead of it at less than its time. Frozen.
GUIDED: Dict[str, str] = {
    "ismcts-1000-play-net-v1": "ismcts:iterations=1000,rollout=random,prior=play-net-v1",
    "ismcts-500-play-net-v4": "ismcts:iterations=500,rollout=tuned-greedy-v1-fast,prior=play-net-v4",
    "ismcts-2000-play-net-v4-from-27": "ismcts:iterations=2000,rollout=tuned-greedy-v1-fast,prior=play-net-v4,from=27",
}


def _networks() -> Dict[str, str]:
    """A shipped network's name -> its policy, ``net:PATH``."""
    return {n: f"net:{p}" for n, p in shipped().items()}


#: A search's parameters that name an agent (its rollouts, its guide, its value network, its
#: prior).
_AGENT_KEYS = ("rollout", "first", "value", "prior")


def _rollout(name: str, names: Collection[str]) -> Optional[Tuple[str, List[str], List[int]]]:
    """A search's head, its parameters and the indices of those that name an agent
    (``rollout=``, ``first=``, ``value=``, ``prior=``) of ``names`` (case and spaces ignored), else None."""
    head, colon, rest = name.strip().partition(":")
    if not colon or head.strip().lower() in ("net", "greedy"):
        return None
    params = rest.split(",")
    at = []
    for i, kv in enumerate(params):
        k, eq, v = kv.partition("=")
        if eq and k.strip().lower() in _AGENT_KEYS and v.strip().lower() in names:
            at.append(i)
    return (head, params, at) if at else None


def resolve(name: str) -> Optional[str]:
    """The policy a shipped network's name stands for (``net:PATH`` of its weights; case and
    spaces ignored), a search whose ``rollout=``, ``first=``, ``value=`` or ``prior=`` names a shipped
    network with that network's policy, else None: the core reads every other name itself,
    its shipped ones included."""
    nets = _networks()
    key = name.strip().lower()
    if key in nets:
        return nets[key]
    if key in GUIDED:
        return resolve(GUIDED[key])
    found = _rollout(name, nets)
    if found is None:
        return None
    head, params, at = found
    for i in at:
        k, _, v = params[i].partition("=")
        params[i] = f"{k}={nets[v.strip().lower()]}"
    return f"{head}:{','.join(params)}"


def named(name: str) -> bool:
    """Whether ``name`` is a shipped agent's name (a network here, a preset or tuned weights of
    the core's), or a search whose ``rollout=``, ``first=`` or ``prior=`` names a shipped learned agent: a
    policy the arena labels by its name as written."""
    learned = {**_networks(), **dict(_core.TUNED)}
    key = name.strip().lower()
    return key in learned or key in dict(_core.PRESETS) or key in GUIDED or _rollout(name, learned) is not None
