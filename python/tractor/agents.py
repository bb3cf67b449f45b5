"""The agents that ship with the package: the built-in policies, search presets, and the
learned agents whose weights are in the wheel: networks (``tractor/weights/NAME.tnet``) and
greedy's weights learned by self-play (the core's ``_core.TUNED``). Every name is a policy name
wherever one is taken (``simulate``, ``VecEnv(opponents=...)``, ``Game.step_policy``, the
arena, the command line); a learned agent's name stands for ``net:PATH`` of its weights or for
``greedy:NAME=V/...``.

The ladder (their ratings on ``eval-v1``) is in ``docs/arena.md``, with the command that
measures it again.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Dict

from . import _core, _weights
from .nets import Net

__all__ = ["Agent", "AGENTS", "SEARCH_PRESETS"]


@dataclass(frozen=True)
class Agent:
    name: str
    policy: str
    """What the name stands for as a policy (``net:PATH`` for a learned network,
    ``greedy:NAME=V/...`` for learned greedy weights)."""
    kind: str
    """``"built-in"``, ``"search"`` or ``"learned"``."""
    about: str


#: Search presets: names for settings of the searches that the ladder rates (the core's
#: ``Policy::PRESETS``, read as ``_core.PRESETS``, and the searches a shipped network guides,
#: whose text names the network).
SEARCH_PRESETS: Dict[str, str] = {**dict(_core.PRESETS), **_weights.GUIDED}


def _learned(name: str, path: str) -> Agent:
    play = _weights.play_meta(path)
    if play is not None:  # a network that scores whole plays (docs/training.md)
        try:
            m = json.loads(play)
            c = m["config"]
            text = (f"a network that scores whole plays ({c['h1']}/{c['h2']} units, observation version "
                    f"{c['selfplay']['obs_version']}) trained by tractor train, seed {c['seed']}, round {m['round']}, "
                    f"margin {m['margin']:g} (docs/training.md)")
        except (ValueError, KeyError, TypeError):
            text = "a network that scores whole plays (net:PATH)"
        return Agent(name, f"net:{path}", "learned", text)
    try:
        meta = json.loads(Net(path).meta or "{}")
    except ValueError:
        meta = {}
    if not isinstance(meta, dict):
        meta = {}
    about = "a network ({h1}/{h2} units) trained by {recipe}: behaviour cloning of greedy, seed {seed}, {games} " \
            "self-play hands, epoch {epoch}"
    try:
        text = about.format(**meta)
    except (KeyError, IndexError, ValueError):
        text = "a network (net:PATH)"
    return Agent(name, f"net:{path}", "learned", text)


def _all() -> Dict[str, Agent]:
    out = {a: Agent(a, a, "built-in", "the core's policy of that name (docs/simulation.md, policies)")
           for a in _core.AGENTS}
    out.update({n: Agent(n, p, "search", f"the preset {p}") for n, p in SEARCH_PRESETS.items()})
    out.update({n: _learned(n, p) for n, p in _weights.shipped().items()})
    tuned = {"tuned-greedy-v1-fast": "tuned-greedy-v1 sampling 4 follows instead of 16 (samples=4): the rollout "
                                     "policy that beats greedy's in ISMCTS at equal time (docs/arena.md)"}
    learned = "greedy with its weights learned by self-play (SPSA on duplicate deals, examples/tune_greedy.py)"
    out.update({n: Agent(n, p, "learned", tuned.get(n, learned)) for n, p in _core.TUNED})
    return out


#: Every shipped agent by name.
AGENTS: Dict[str, Agent] = _all()
