"""Greedy's play is pinned: whole hands played by ``step_policy("greedy", ...)`` give the
records (``Game.to_json``, less the engine version) the engine gave at commit d4dfca5, before
greedy was made faster. The Rust twin (rust/core/tests/greedy_twin.rs) compares
every decision with the plain algorithm; this checks whole records through the binding."""

from __future__ import annotations

import hashlib
import json

import pytest

import tractor

# (profile, seed, decisions, SHA-256 of the record), computed with the d4dfca5 build
PINNED = [
    ("guigang", 1, 135, "6fe94ca216ee09eb9c097a10f621e02fbd86d367230356cee5bfabce3bdcbba5"),
    ("guigang", 2, 159, "e6f30118fe548e22919665b0adcb51d70db3090894b4dc45b08e7625b4cb88f6"),
    ("guigang", 3, 131, "c327b96757454fac2ac885c7caebd15ff8e7f44ca58a945b4090f153d65ebd84"),
    ("guigang", 4, 162, "42dbd47b4110f4eb90554f5d820ae32ad9bc4ef3bad13afd8c583654a89f4121"),
    ("competition", 1, 287, "956f60415898ae5707d9815ed375c3ee49c0b68bbf4c78529af60960bb4d38c9"),
    ("competition", 2, 240, "3f8d47b9065e9c20a8682b3ce4f8060627eb6a732ff267a569eea538dba616dc"),
    ("competition", 3, 173, "ee62aee65454535df249abef8955eb8215e0ce93cc4131c0d5fe5c4947bc2415"),
    ("competition", 4, 207, "6be71e4c06804f3f9c0811effce958a6682acc19d57aeb9e1cec7d6da1a4c53c"),
    ("nanning", 1, 135, "8712088749914c279aebe96a1a3b0b447f66169a47a03e5b513b0dc247bdbe8c"),
    ("nanning", 2, 159, "8b45a1976874467e8cfd582bffd54435d1521287cd0b2721e8b1408417a3ff22"),
    ("nanning", 3, 135, "1780f973ea842b6c635e4e17d55eb865cd6ab264cfc22f2d4a76ec30c883851b"),
    ("nanning", 4, 162, "c9c1b2a846620fa73675d072c4a707c805009e282d9bfed31bec1e1ee88c1b55"),
]


def _digest(g):
    rec = json.loads(g.to_json())
    rec.pop("engine")  # the engine version: not what greedy decides
    return hashlib.sha256(json.dumps(rec, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


@pytest.mark.parametrize("profile,seed,decisions,digest", PINNED)
def test_greedy_hands_match_the_baseline_records(profile, seed, decisions, digest):
    g = tractor.Game(seed=seed, profile=profile)
    steps = 0
    while g.step_policy("greedy", seed * 1000 + steps):
        steps += 1
    assert steps == decisions
    assert _digest(g) == digest
