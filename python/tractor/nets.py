"""Integer networks over a seat's observation (the core's ``agent::net``, after Stockfish's
NNUE): a float network is quantized to integers on export and evaluated with integer
arithmetic in Rust, so its decisions are the same on every CPU.

The float network this module quantizes reads the observation tensor ``x`` (of an observation
version, 1 unless ``quantize(..., obs_version=V)``: ``Game.observation_tensor(...,
obs_version=V)``, ``dim`` entries, ``tractor.actions.OBS_ENCODINGS[V]["dim"]``; the weights
file records the version, and the engine refuses a file whose version it does not know) and
is::

    h1  = clip(W1 @ x + b1, 0, 1)        W1: (h1, dim)
    h2  = clip(W2 @ h1 + b2, 0, 1)       W2: (h2, h1)
    out = W3 @ h2 + b3                   W3: (72, h2): one logit per action id

:func:`quantize` turns its six arrays into a :class:`Net` (a weights file, format version 1
or 2, documented in ``docs/learning.md``); :func:`from_torch` does the same from a PyTorch
module of that shape; :func:`forward_float` is the float reference and
:func:`quantization_bound` the bound, per position and logit, on how far the integer logits
(over ``64 * 127``) may lie from it. torch is not needed: the arrays may come from any trainer.

A network may also carry a **value head** (format version 3), ``v = wv @ h2 + bv``: the
defenders' final score (R7.3) in hundreds of points, predicted from the second hidden layer.
``quantize(..., value=(wv, bv))`` adds it; :meth:`Net.value` is the integer prediction in
points, :func:`value_float` the float reference, :func:`value_bound` the bound between them.
The searches use it in place of rollouts: ``ismcts:...,value=net:PATH`` (and ``pimc``).
"""

from __future__ import annotations

import math
import numbers
import os
from typing import Any, Optional, Sequence, Tuple

import numpy as np

from . import _core
from ._args import _bool, _int, _obs_version, _seat, _show, _text
from ._outputs import replacing
from .errors import InvalidArgument, TractorError

__all__ = ["Net", "quantize", "from_torch", "forward_float", "quantization_bound", "value_float", "value_bound",
           "FORMAT_VERSION", "BASES", "OBS_SCALE", "ONE", "OUT_SCALE"]

#: The weights file's format version.
FORMAT_VERSION: int = _core.NET_FORMAT_VERSION
#: The agents a network may correct (weights format 2): ``"none"`` (the network alone) or
#: ``"greedy"``.
BASES: Tuple[str, ...] = ("none", "greedy")
#: Each entry's denominator in observation version 1: the entry is a whole number over it
#: (the core's ``SCALE``; version V's: ``tractor.actions.OBS_ENCODINGS[V]["scale"]``).
OBS_SCALE = np.asarray(_obs_version(1)["scale"], dtype=np.int64)
#: The ceiling of the integer ClippedReLU (activations 0..127).
ONE = 127
#: The integer logits are the float ones times this (64 × 127); so is the value head's output
#: (per hundred points).
OUT_SCALE = 64 * ONE

Layers = Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]


class Net:
    """A network read from a weights file (bytes or a path); InvalidPolicy if it is not one.
    ``logits(game, seat)`` gives the 72 integer logits of a seat's observation."""

    def __init__(self, data: Any) -> None:
        if isinstance(data, (str, os.PathLike)):
            # the core reads it: a regular file only (a FIFO would block, /dev/zero never end),
            # no further than its header declares
            self._n = _core.Net.read(os.fspath(data))
        elif isinstance(data, (bytes, bytearray, memoryview)):
            self._n = _core.Net(bytes(data))
        else:
            raise InvalidArgument(f"Net takes the bytes or the path of a weights file, got {_show(data)}")
        self.arrays: Optional[Tuple[np.ndarray, ...]] = None
        """The integer arrays (W1 input-major, b1, W2, b2, W3, b3) when made by :func:`quantize`."""
        self.value_arrays: Optional[Tuple[np.ndarray, int]] = None
        """The value head's integer arrays (Wv, bv) when made by :func:`quantize` with one."""

    @property
    def shape(self) -> Tuple[int, int, int, int]:
        """(h1, h2, shift1, shift2)."""
        return self._n.shape

    @property
    def meta(self) -> str:
        return self._n.meta

    @property
    def base(self) -> Tuple[str, int]:
        """The agent it corrects (``"none"`` or ``"greedy"``) and the integer prior that agent's
        next id gets (logit units: :data:`OUT_SCALE` per unit of the float network's logit)."""
        return self._n.base

    @property
    def canonical(self) -> bool:
        """Does it read the observation with the suits renamed trump-first?"""
        return self._n.canonical

    @property
    def obs_version(self) -> int:
        """The observation version it reads (its weights file names it)."""
        return self._n.obs_version

    @property
    def has_value(self) -> bool:
        """Does it carry a value head (weights format 3)?"""
        return self._n.has_value

    def to_bytes(self) -> bytes:
        return self._n.to_bytes()

    def save(self, path: str) -> None:
        """Writes the weights file."""
        with replacing(os.fspath(path)) as tmp, open(tmp, "wb") as f:
            f.write(self.to_bytes())

    def logits(self, game: Any, seat: int) -> np.ndarray:
        """The int32 logits of the 72 (real) action ids for ``seat`` of ``game`` (a
        :class:`~tractor.Game`), from what the seat knows. A ``net:PATH`` policy takes the
        allowed id with the highest, the lowest id among equals."""
        g = getattr(game, "_g", None)
        if g is None:
            raise InvalidArgument(f"game must be a tractor.Game, got {_show(game)}")
        return np.asarray(self._n.logits(g, _seat(seat)), dtype=np.int32)

    def value(self, game: Any, seat: int) -> Optional[int]:
        """The defenders' final score (R7.3, in points) the value head predicts from what
        ``seat`` of ``game`` knows (the observation :meth:`logits` reads), as the searches'
        ``value=net:PATH`` reads it at a leaf; None without a value head."""
        g = getattr(game, "_g", None)
        if g is None:
            raise InvalidArgument(f"game must be a tractor.Game, got {_show(game)}")
        out = self._n.value(g, _seat(seat))
        return None if out is None else int(out[1])


def _scale(version: int) -> np.ndarray:
    """Each entry's denominator in observation version ``version``."""
    return np.asarray(_obs_version(version)["scale"], dtype=np.int64)


def _check_layers(layers: Sequence[Any], dim: Optional[int] = None) -> Layers:
    """The six arrays as float64, checked; W1 has ``dim`` inputs (when None, as many as it
    has: the float functions take the network's input width as the observation's)."""
    try:
        w1, b1, w2, b2, w3, b3 = (np.asarray(a, dtype=np.float64) for a in layers)
    except (TypeError, ValueError):
        raise InvalidArgument("layers must be six arrays: W1, b1, W2, b2, W3, b3") from None
    h1, h2 = len(b1), len(b2)
    if dim is None:
        dim = w1.shape[1] if w1.ndim == 2 else -1
    want = {"W1": (h1, dim), "b1": (h1,), "W2": (h2, h1), "b2": (h2,), "W3": (_core.NUM_ACTIONS, h2),
            "b3": (_core.NUM_ACTIONS,)}
    for (name, shape), a in zip(want.items(), (w1, b1, w2, b2, w3, b3)):
        if a.shape != shape:
            raise InvalidArgument(f"layers: {name} has shape {a.shape}, expected {shape}")
        if not np.isfinite(a).all():
            raise InvalidArgument(f"layers: {name} holds a value that is not finite")
    return w1, b1, w2, b2, w3, b3


def _check_obs(obs: Any, dim: int) -> np.ndarray:
    """Observations as a float64 (n, dim) array; InvalidArgument naming ``obs`` else."""
    try:
        x = np.atleast_2d(np.asarray(obs, dtype=np.float64))
    except (TypeError, ValueError):
        raise InvalidArgument(f"obs must be observation rows of {dim} numbers, got {_show(obs)}") from None
    if x.ndim != 2 or x.shape[1] != dim:
        raise InvalidArgument(f"obs has shape {x.shape}, expected (n, {dim})")
    if not np.isfinite(x).all():
        raise InvalidArgument("obs holds a value that is not finite")
    return x


def _round(a: np.ndarray, lo: int, hi: int, dtype: Any, name: str) -> np.ndarray:
    q = np.rint(a)
    if q.min(initial=0) < lo or q.max(initial=0) > hi:
        raise TractorError(f"quantize: {name} does not fit {np.dtype(dtype).name} ({q.min():.0f}..{q.max():.0f}): "
                           "train with smaller weights, or a smaller shift1 for W1")
    return q.astype(dtype)


def _check_value(value: Any, h2: int) -> Tuple[np.ndarray, float]:
    try:
        wv, bv = value
        wv, bv = np.asarray(wv, dtype=np.float64), np.asarray(bv, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidArgument(f"value must be a pair (wv, bv) of an array of {h2} and a number, got {_show(value)}") from None
    if wv.shape != (h2,) or bv.shape not in ((), (1,)):
        raise InvalidArgument(f"value: wv has shape {wv.shape} and bv {bv.shape}, expected ({h2},) and ()")
    if not (np.isfinite(wv).all() and np.isfinite(bv).all()):
        raise InvalidArgument("value: wv or bv holds a value that is not finite")
    return wv, float(bv.reshape(()))


def quantize(layers: Sequence[Any], *, shift1: int = 6, canonical: bool = False, meta: str = "{}",
             base: str = "none", prior: float = 0.0, value: Any = None, obs_version: int = 1) -> Net:
    """The integer network of a float one (see the module's doc): W1 to int16 at
    ``127 · 2**shift1`` per unit of input (over each entry's denominator), W2 and W3 to int8
    at 64, biases to int32. ``canonical=True``: the float network was trained on
    ``observation_tensor(seat, canonical_suits=True)`` and its outputs are ids in those renamed
    suits (``tractor.actions.TO_CANONICAL``); the integer one reads and maps alike.
    ``base="greedy"`` makes a network that corrects greedy: at each id, the id greedy's action
    takes next gets ``prior`` (in the float network's logit units) added, so the policy departs
    from greedy only where the network rates another id higher by more than that (weights
    format 2). ``value=(wv, bv)`` adds a value head (format 3): the defenders' final score in
    hundreds of points is ``wv @ h2 + bv``; wv to int16 at 64, bv to int32 at ``OUT_SCALE``.
    ``obs_version``: the observation version the float network reads (W1 has its ``dim``
    inputs; the weights file records it). Raises TractorError when a weight does not fit its
    type, InvalidArgument for a bad base, prior, value or an unknown obs_version."""
    enc = _obs_version(obs_version)
    w1, b1, w2, b2, w3, b3 = _check_layers(layers, enc["dim"])
    shift1 = _int(shift1, "shift1", 0, 20)
    canonical = _bool(canonical, "canonical")
    s1 = ONE * 2**shift1
    scale = np.asarray(enc["scale"], dtype=np.int64)
    q1 = _round(s1 * w1.T / scale[:, None], -32768, 32767, np.int16, "W1")  # input-major
    qb1 = _round(s1 * b1, -(2**31), 2**31 - 1, np.int32, "b1")
    q2 = _round(64 * w2, -128, 127, np.int8, "W2")
    qb2 = _round(OUT_SCALE * b2, -(2**31), 2**31 - 1, np.int32, "b2")
    q3 = _round(64 * w3, -128, 127, np.int8, "W3")
    qb3 = _round(OUT_SCALE * b3, -(2**31), 2**31 - 1, np.int32, "b3")
    if not isinstance(base, str) or base.strip().lower() not in BASES:
        raise InvalidArgument(f"base must be one of {list(BASES)}, got {_show(base)}")
    if isinstance(prior, bool) or not isinstance(prior, numbers.Real) or not math.isfinite(prior):
        raise InvalidArgument(f"prior must be a finite number, got {_show(prior)}")
    qprior = int(_round(np.array([OUT_SCALE * float(prior)]), -(2**31), 2**31 - 1, np.int32, "prior")[0])
    qvalue = None
    if value is not None:
        wv, bv = _check_value(value, len(b2))
        qvalue = (_round(64 * wv, -32768, 32767, np.int16, "wv"),
                  int(_round(np.array([OUT_SCALE * bv]), -(2**31), 2**31 - 1, np.int32, "bv")[0]))
    core = _core.Net.from_parts(len(b1), len(b2), shift1, canonical, q1.ravel().tolist(), qb1.tolist(),
                                q2.ravel().tolist(), qb2.tolist(), q3.ravel().tolist(), qb3.tolist(),
                                _text(meta, "meta", InvalidArgument), _text(base, "base", InvalidArgument), qprior,
                                None if qvalue is None else (qvalue[0].tolist(), qvalue[1]), enc["version"])
    net = Net(core.to_bytes())  # the core writes the weights file
    net.arrays = (q1, qb1, q2, qb2, q3, qb3)
    net.value_arrays = qvalue
    return net


def from_torch(module: Any, **kwargs: Any) -> Net:
    """The integer network of a PyTorch module (``pip install "tractor-engine[train]"``) made of
    three ``Linear`` layers, dim -> h1 -> h2 -> 72 (``dim`` the observation's size), with a ClippedReLU (``Hardtanh(0, 1)``)
    after each of the first two, in that order: the module's ``Linear`` layers are read in the
    order ``module.modules()`` gives them. ``kwargs`` go to :func:`quantize` (``canonical``,
    ``meta``, ``base``, ``prior``, ``shift1``, ``obs_version``). This module never imports torch: any object
    whose layers have ``weight`` and ``bias`` tensors (``.detach().cpu().numpy()``) will do.
    Raises InvalidArgument when the module is not of that shape."""
    mods = getattr(module, "modules", None)
    if not callable(mods):
        raise InvalidArgument(f"from_torch takes a torch.nn.Module, got {_show(module)}")
    linear = [m for m in mods() if type(m).__name__ == "Linear"]
    if len(linear) != 3:
        raise InvalidArgument(f"from_torch: the module needs three Linear layers (dim -> h1 -> h2 -> 72), "
                              f"it has {len(linear)}")
    layers = []
    for k, m in enumerate(linear):
        if getattr(m, "bias", None) is None:
            raise InvalidArgument("from_torch: every Linear layer needs a bias")
        try:
            layers += [m.weight.detach().cpu().numpy(), m.bias.detach().cpu().numpy()]
        except (AttributeError, TypeError, RuntimeError) as e:
            raise InvalidArgument(f"from_torch: Linear layer {k}'s weight and bias are not tensors ({e})") from None
    return quantize(layers, **kwargs)


def forward_float(layers: Sequence[Any], obs: Any) -> np.ndarray:
    """The float network's logits for observations ``obs`` (n, dim; ``dim`` W1's inputs):
    (n, 72)."""
    w1, b1, w2, b2, w3, b3 = _check_layers(layers)
    x = _check_obs(obs, w1.shape[1])
    h1 = np.clip(x @ w1.T + b1, 0, 1)
    h2 = np.clip(h1 @ w2.T + b2, 0, 1)
    return h2 @ w3.T + b3


def value_float(layers: Sequence[Any], value: Any, obs: Any) -> np.ndarray:
    """The float value head's defenders' final score, in points, for observations ``obs``
    (n, dim; ``dim`` W1's inputs): ``max(0, 100 * (wv @ h2 + bv))``, (n,)."""
    w1, b1, w2, b2, _, _ = _check_layers(layers)
    wv, bv = _check_value(value, len(b2))
    x = _check_obs(obs, w1.shape[1])
    h2 = np.clip(np.clip(x @ w1.T + b1, 0, 1) @ w2.T + b2, 0, 1)
    return np.maximum(0.0, 100 * (h2 @ wv + bv))


def value_bound(layers: Sequence[Any], value: Any, net: Net, obs: Any) -> np.ndarray:
    """Per observation, a bound in points on ``|net.value - value_float|`` from the weights'
    actual rounding (as :func:`quantization_bound`), plus one point for the score's floor: (n,)."""
    if net.arrays is None or net.value_arrays is None:
        raise InvalidArgument("value_bound needs a Net made by quantize with a value head (its integer arrays)")
    checked = _check_layers(layers, _obs_version(net.obs_version)["dim"])
    wv, bv = _check_value(value, len(checked[3]))
    qv, qbv = net.value_arrays
    a2, e2 = _hidden(checked, net, obs)
    hundreds = (a2 / ONE) @ np.abs(qv / 64 - wv) + e2 @ np.abs(wv) + abs(qbv / OUT_SCALE - bv)
    return 100 * hundreds + 1


def quantization_bound(layers: Sequence[Any], net: Net, obs: Any) -> np.ndarray:
    """Per observation and logit, a bound on ``|net's logit / OUT_SCALE - float logit|``,
    from the weights' actual rounding, carried layer by layer (ClippedReLU is 1-Lipschitz; each
    shift's floor adds at most one unit of 1/127): (n, 72)."""
    if net.arrays is None:
        raise InvalidArgument("quantization_bound needs a Net made by quantize (its integer arrays)")
    checked = _check_layers(layers, _obs_version(net.obs_version)["dim"])
    _, _, _, _, w3, b3 = checked
    _, _, _, _, q3, qb3 = net.arrays
    a2, e2 = _hidden(checked, net, obs)
    r3 = np.abs(q3 / 64 - w3)
    return (a2 / ONE) @ r3.T + e2 @ np.abs(w3).T + np.abs(qb3 / OUT_SCALE - b3)


def _hidden(layers: Layers, net: Net, obs: Any) -> Tuple[np.ndarray, np.ndarray]:
    """The integer second hidden layer (n, h2) for observations ``obs`` and a bound on
    ``|a2 / 127 - float h2|`` per unit (``layers`` checked, ``net`` made by :func:`quantize`)."""
    if net.arrays is None:
        raise InvalidArgument("the bounds need a Net made by quantize (its integer arrays)")
    w1, b1, w2, b2, _, _ = layers
    q1, qb1, q2, qb2, _, _ = net.arrays
    _, _, shift1, shift2 = net.shape
    s1 = ONE * 2**shift1
    scale = _scale(net.obs_version)
    x = _check_obs(obs, len(scale))
    n = np.rint(x * scale)  # whole numbers
    # layer 1: |acc/s1 - (W1 x + b1)| from the rounding of W1 and b1
    r1 = np.abs(q1 / s1 - w1.T / scale[:, None])  # (dim, h1)
    e_acc = np.abs(n) @ r1 + np.abs(qb1 / s1 - b1)
    acc = n.astype(np.int64) @ q1.astype(np.int64) + qb1
    a1 = np.clip(acc >> shift1, 0, ONE)
    e1 = _activation_error(acc / s1, e_acc, a1)
    # layer 2: the rounding of W2 and b2 at the integer activations, and layer 1's error
    r2 = np.abs(q2 / 64 - w2)
    e_z2 = (a1 / ONE) @ r2.T + e1 @ np.abs(w2).T + np.abs(qb2 / OUT_SCALE - b2)
    z2 = a1 @ q2.T.astype(np.int64) + qb2
    a2 = np.clip(z2 >> shift2, 0, ONE)
    return a2, _activation_error(z2 / OUT_SCALE, e_z2, a2)


def _activation_error(z: np.ndarray, e: np.ndarray, a: np.ndarray) -> np.ndarray:
    """The error of a ClippedReLU's output, ``|a / 127 - clip(z_float, 0, 1)|``, where the
    integer pre-activation over its scale is ``z``, within ``e`` of the float one, and ``a``
    the integer output: none where both sides are surely clamped alike, else ``e`` plus the
    shift's floor (at most 1/127)."""
    low = (z + e <= 0) & (a == 0)
    high = (z - e >= 1) & (a == ONE)
    return np.where(low | high, 0.0, e + 1 / ONE)
