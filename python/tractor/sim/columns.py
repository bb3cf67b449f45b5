"""The columns of a run's results and their numpy dtypes, as the Rust binding defines them
(once), and the binding's raw columns of a chunk as numpy arrays."""

from __future__ import annotations

from typing import Any, Dict, List

import numpy as np

from .. import _core

HAND_COLUMNS: Dict[str, str] = dict(_core.result_schema("hands"))
"""The per-hand columns and their numpy dtypes, as the Rust binding defines them (once)."""
MATCH_COLUMNS: Dict[str, str] = dict(_core.result_schema("matches"))
NONE = 255
"""Banker/declarer/trump value of a hand that stopped without a showing (R8.5)."""


def _columns(raw: Dict[str, bytes], spec: Dict[str, str]) -> Dict[str, Any]:
    return {k: np.frombuffer(raw[k], dtype=np.dtype(spec[k])).copy() for k in spec}


def _concat(parts: List[Dict[str, Any]], spec: Dict[str, str]) -> Dict[str, Any]:
    if not parts:
        return {k: np.zeros(0, dtype=np.dtype(v)) for k, v in spec.items()}
    return {k: np.concatenate([p[k] for p in parts]) for k in spec}
