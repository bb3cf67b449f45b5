"""Training networks that score whole plays, on samples the core writes by self-play.

The recipe (``docs/training.md``): the core plays hands with a behaviour policy (``tuned-greedy-v1``
unless told otherwise) and, at labelled decisions, values several of the seat's whole-play
candidates (the base's action always among them) by rolling each out to the end of the hand
with common random numbers (``tractor._core.self_play``, the core's ``learn::self_play``). A
network reads the seat's observation and a candidate's features and is regressed on the
candidate's **advantage** over the base's action at the same decision: levels (R7.4) plus a
small weight on points (R7.3), both means over the rollouts. That is one step of policy
iteration over the base: the network learns which departures from its choices pay, from what
the seat can see. Playing, it takes the best-scored candidate (the base's among equals).

The float network (clamps to 0..1 as the integer network's ClippedReLU)::

    h1 = clip(Wx @ (x / dx) + Wp @ (p / dp) + b1, 0, 1)
    h2 = clip(W2 @ h1 + b2, 0, 1)
    q  = w3 @ h2 + b3

is exported as a weights file of format version 4 (the core's ``agent::play_net``), played
anywhere as ``net:PATH``. torch is needed to train (the ``[train]`` extra), not to play.
"""

from __future__ import annotations

import json
import os
import struct
import time
import zlib
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Callable, Dict, List, Optional

import numpy as np

from . import _core
from ._args import MAX_THREADS, _count, _int, _is_bool, _obs_version, _path, _policy, _profile, _seed, _show, _text
from ._outputs import replacing
from .sim import simulate
from .errors import InvalidArgument

__all__ = ["SelfPlay", "samples", "concat", "advantages", "export", "forward_int_reference", "forward_float",
           "quantization_bound", "TrainConfig", "train", "plot_curve", "duplicate", "play_features", "PLAY_DIM",
           "PLAY_FEATURES"]


def play_features(version: Any = 1) -> Dict[str, Any]:
    """Play-features version ``version`` (the core's ``agent::play_features``): ``{"version",
    "dim", "layout" ((name, offset, length, denominator, meaning) rows), "scale" (each
    feature's denominator, float32)}``; an unknown version is refused, naming the known ones.
    Every version begins with the one before it, unchanged."""
    known = _core.play_feature_versions()
    if _is_bool(version) or not isinstance(version, (int, np.integer)) or not 0 <= int(version) < 2**16:
        raise InvalidArgument(f"play_features: a version number ({', '.join(map(str, known))}), got {_show(version)}")
    layout = _core.play_features(int(version))  # an unknown version is named by the core
    dim = sum(n for _, _, n, _, _ in layout)
    scale = np.ones(dim, np.float32)
    for _name, at, n, d, _ in layout:
        scale[at:at + n] = d
    return {"version": int(version), "dim": dim, "layout": layout, "scale": scale}


#: Version 1's features per candidate and layout (name, offset, length, denominator, meaning),
#: frozen under these names; other versions: :func:`play_features`.
PLAY_DIM: int = _core.PLAY_DIM
PLAY_FEATURES = _core.play_features(1)
#: Each version-1 feature's denominator.
PLAY_SCALE = play_features(1)["scale"]

#: The first layer's shift: its weights are the float ones times ``127 * 2**SHIFT1``.
SHIFT1 = 5
#: The ceiling of the integer ClippedReLU (activations 0..127).
ONE = 127
# the play features' pass and show columns (a declaring decision's candidates)
_PASS = [at for name, at, *_ in PLAY_FEATURES if name == "pass"][0]
_SHOW = [at for name, at, *_ in PLAY_FEATURES if name == "show"][0]


@dataclass
class SelfPlay:
    """How self-play plays and labels (see the core's ``learn::self_play``)."""

    seats: List[str] = field(default_factory=lambda: ["tuned-greedy-v1"] * 4)
    learners: List[bool] = field(default_factory=lambda: [True] * 4)
    base: str = "tuned-greedy-v1"
    rollout: str = "tuned-greedy-v1"
    label_rate: float = 0.1
    per_decision: int = 8
    #: Rollouts per valued candidate; 0: Monte-Carlo samples (the candidate played only, valued by
    #: the hand's own outcome; ``worlds`` 0, and :func:`advantages` does not apply).
    rollouts: int = 1
    explore: float = 0.0
    #: Worlds per labelled play decision (0: the true state is rolled out).
    worlds: int = 0
    #: A policy (a search, say) whose action at each labelled decision is recorded (``taught``);
    #: a search's root visits are kept too (``visits`` per candidate, ``searched`` per decision).
    teacher: Optional[str] = None
    #: With a search teacher: every play its root visited at least this share of the time is
    #: valued too (0: its action only), so that its preferences among its likely plays are targets.
    value_visited: float = 0.0
    profile: str = "guigang"
    obs_version: int = 1
    canonical: bool = True
    #: "fresh": every hand is the first of a fresh match (both teams at level 3, no banker:
    #: ``simulate``'s hands); "drawn": the same cards dealt as a match reaches them, each
    #: team's level drawn from 3..A and the banker from the four seats (the core's
    #: ``learn::self_play::hand_levels``).
    levels: str = "fresh"
    #: The candidates' features written (:func:`play_features`): they change no decision or value.
    play_features: int = 1
    #: N > 0: a labelled play decision where the seat holds at most N cards is valued by the
    #: open-card solver instead of rollouts (in the true state: a privileged critic's exact
    #: values; in each world with ``worlds``); 0: rollouts only. Needs ``rollouts`` ≥ 1.
    solve: int = 0


def samples(seed: int, start: int, count: int, sp: Optional[SelfPlay] = None, threads: int = 0,
            backend: str = "local", address: Optional[str] = None, chunk: Optional[int] = None) -> Dict[str, np.ndarray]:
    """Self-play of hands ``start .. start + count`` of the run with ``seed``: the core's
    samples as numpy arrays (decisions, valued candidates, per-hand returns). The same
    arguments give the same arrays on any thread count, and on Ray (``backend="ray"``,
    ``address`` as :func:`tractor.simulate` takes it: index ranges of ``chunk`` hands as tasks,
    joined in index order by :func:`concat`) as locally."""
    sp = sp or SelfPlay()
    seed, start, count = _seed(seed), _count(start, "start"), _count(count, "count")
    threads = _int(threads, "threads (0: all cores)", 0, MAX_THREADS)
    if not isinstance(sp.seats, (list, tuple)) or len(sp.seats) != 4:
        raise InvalidArgument(f"seats: four policies, one per seat, got {_show(sp.seats)}")
    if not isinstance(sp.learners, (list, tuple)) or len(sp.learners) != 4 or not all(_is_bool(x) for x in sp.learners):
        raise InvalidArgument(f"learners: four bools, one per seat, got {_show(sp.learners)}")
    seats = [_policy(p, f"seats[{i}]") for i, p in enumerate(sp.seats)]  # a shipped name is its net:PATH
    teacher = None if sp.teacher is None else _policy(sp.teacher, "teacher")
    args = (seats, [bool(x) for x in sp.learners], _text(sp.base, "base"), _policy(sp.rollout, "rollout"),
            _rate(sp.label_rate, "label_rate"), _int(sp.per_decision, "per_decision", 2, 2**32 - 1),
            _int(sp.rollouts, "rollouts", 0, 2**32 - 1), _rate(sp.explore, "explore"), _profile(sp.profile),
            _obs_version(sp.obs_version)["version"], _bool_arg(sp.canonical, "canonical"))
    worlds = _int(sp.worlds, "worlds", 0, 2**32 - 1)
    if sp.levels not in ("fresh", "drawn"):
        raise InvalidArgument(f"levels: 'fresh' (a fresh match's first hands) or 'drawn' (levels and banker drawn), got {_show(sp.levels)}")
    drawn = sp.levels == "drawn"
    visited = _rate(sp.value_visited, "value_visited")  # with a search teacher only: the core says so
    pv = play_features(sp.play_features)["version"]
    solve = _int(sp.solve, "solve (cards a hand, 0: none)", 0, 255)
    if start + count > 2**64:
        raise InvalidArgument(f"start: the index range {start} + {count} runs past the last index 2**64 - 1")
    if backend == "local":
        return _core.self_play(seed, start, count, *args, threads, worlds, teacher, drawn, visited, pv, solve)
    if backend != "ray":
        raise InvalidArgument(f"backend: 'local' or 'ray', got {backend!r}")
    try:
        import ray
    except ImportError as e:
        raise InvalidArgument("backend='ray' needs Ray: pip install 'tractor-engine[ray]'") from e
    from .ray_backend import _connect

    _connect(ray, address)
    per = _int(chunk, "chunk", 1) if chunk is not None else max(1, -(-count // max(1, 4 * int(ray.cluster_resources().get("CPU", 1)))))
    task = ray.remote(num_cpus=1)(_ray_part)
    w = (worlds, teacher, drawn, visited, pv, solve)
    _core.self_play(seed, start, 0, *args, 1, *w)  # the arguments checked here, before any task
    refs = [task.remote(seed, start + i, min(per, count - i), args, w) for i in range(0, count, per)]
    return concat(ray.get(refs)) if refs else _core.self_play(seed, start, 0, *args, 1, *w)


def _rate(x: Any, what: str) -> int:
    """A probability in 0..1 as the core's 65536ths."""
    if _is_bool(x) or not isinstance(x, (int, float, np.integer, np.floating)) or not 0 <= float(x) <= 1:
        raise InvalidArgument(f"{what}: a probability in 0..1, got {_show(x)}")
    return int(round(float(x) * 65536))


def _bool_arg(x: Any, what: str) -> bool:
    if not _is_bool(x):
        raise InvalidArgument(f"{what} must be a bool, got {_show(x)}")
    return bool(x)


def _ray_part(seed: int, start: int, n: int, args: tuple, extra: tuple) -> Dict[str, np.ndarray]:
    """One Ray task: hands ``start .. start + n`` on one thread."""
    from tractor import _core as core

    return core.self_play(seed, start, n, *args, 1, *extra)  # extra: worlds, teacher, drawn levels, value_visited, play features, solve


def concat(parts: List[Dict[str, np.ndarray]]) -> Dict[str, np.ndarray]:
    """Samples of consecutive hand ranges joined in order: what one run over all of them
    gives (each part's candidates' ``decision`` indices shifted past the decisions before)."""
    out: Dict[str, List[np.ndarray]] = {}
    off = 0
    for p in parts:
        for k, v in p.items():
            out.setdefault(k, []).append(v + off if k == "decision" else v)
        off += len(p["seat"])
    return {k: np.concatenate(v) for k, v in out.items()}


def advantages(s: Dict[str, np.ndarray], points_weight: float = 0.005) -> np.ndarray:
    """Per valued candidate: its value over the base's at the same decision, in levels plus
    ``points_weight`` per point."""
    missing = {"levels", "points", "seat", "is_base", "decision"} - set(s)
    if missing:
        raise InvalidArgument(f"samples: missing {sorted(missing)} (what tractor.train.samples returns)")
    if _is_bool(points_weight) or not isinstance(points_weight, (int, float, np.number)) or not np.isfinite(points_weight):
        raise InvalidArgument(f"points_weight: a finite number, got {_show(points_weight)}")
    v = s["levels"].astype(np.float64) + points_weight * s["points"]
    base = np.zeros(len(s["seat"]))
    b = s["is_base"]
    if len(np.unique(s["decision"][b])) != len(np.unique(s["decision"])):
        raise InvalidArgument("samples: a decision without its base's value (Monte-Carlo samples, rollouts=0, value the "
                              "candidate played only): regress on levels and points themselves")
    base[s["decision"][b]] = v[b]
    return (v - base[s["decision"]]).astype(np.float32)


# -- export --------------------------------------------------------------------------------------


def _quantized(a: np.ndarray, lo: int, hi: int, what: str) -> np.ndarray:
    r = np.rint(a)
    if r.min(initial=0) < lo or r.max(initial=0) > hi:
        raise InvalidArgument(f"{what}: a weight quantizes outside {lo}..{hi}; train with smaller weights")
    return r.astype(np.int64)


def export(layers: Dict[str, np.ndarray], path: Optional[str], base: str = "tuned-greedy-v1", obs_version: int = 1,
           canonical: bool = True, meta: Optional[Dict[str, Any]] = None, margin: float = 0.0,
           phases: str = "both", play_features: int = 1) -> bytes:
    """The weights file (format 4) of the float network ``layers`` (``wx`` (h1, dim), ``wp``
    (h1, the play-features version's dim), ``b1``, ``w2`` (h2, h1), ``b2``, ``w3`` (h2,), ``b3``), written to
    ``path`` when given. ``base`` names the candidates' base weights (greedy or a tuned set);
    ``margin`` (in the network's output units, levels) is added to the base's action's score:
    the network departs from the base only where it rates another candidate higher by more.
    ``phases``: where the network decides, ``"both"``, ``"play"`` (the base declares) or
    ``"declare"`` (the base plays)."""
    flags = {"both": 0, "play": 2, "declare": 4}.get(phases) if isinstance(phases, str) else None
    if _is_bool(margin) or not isinstance(margin, (int, float, np.number)) or not 0 <= float(margin) < 2**24 / (64 * ONE):
        raise InvalidArgument(f"margin: a number of levels in 0..{2**24 / (64 * ONE):g}, got {_show(margin)}")
    if flags is None:
        raise InvalidArgument(f"phases: 'both', 'play' or 'declare', got {phases!r}")
    enc = _core.obs_encoding(int(obs_version))
    dx = np.asarray(enc["scale"], np.float64)  # each entry's denominator (the i16 input's)
    pf = _play_features_arg(play_features)
    s1 = ONE * 2 ** SHIFT1
    if not isinstance(layers, dict):
        raise InvalidArgument(f"layers: a dict of arrays (wx, wp, b1, w2, b2, w3, b3), got {type(layers).__name__}")
    missing = {"wx", "wp", "b1", "w2", "b2", "w3", "b3"} - set(layers)
    if missing:
        raise InvalidArgument(f"layers: missing {sorted(missing)}")
    wx = np.asarray(layers["wx"], np.float64)
    wp = np.asarray(layers["wp"], np.float64)
    if wx.ndim != 2 or wx.shape[1] != enc["dim"]:
        raise InvalidArgument(f"layers['wx']: shape (h1, {enc['dim']}) for observation version {obs_version}, got {wx.shape}")
    h1, dim = wx.shape
    w2_shape = np.shape(layers["w2"])
    shapes = {"wp": (np.shape(wp), (h1, pf["dim"])), "b1": (np.shape(layers["b1"]), (h1,)),
              "b2": (np.shape(layers["b2"]), (w2_shape[0] if w2_shape else -1,)),
              "w2": (w2_shape, (w2_shape[0] if w2_shape else -1, h1)),
              "w3": (np.shape(np.asarray(layers["w3"]).reshape(-1)), (w2_shape[0] if w2_shape else -1,))}
    for name, (got, want) in shapes.items():
        if tuple(got) != tuple(want):
            raise InvalidArgument(f"layers[{name!r}]: shape {want}, got {tuple(got)}")
    if np.asarray(layers["b3"]).size != 1:
        raise InvalidArgument(f"layers['b3']: one value, got {np.asarray(layers['b3']).size}")
    if not all(np.isfinite(np.asarray(v, np.float64)).all() for v in layers.values()):
        raise InvalidArgument("layers: a weight is not finite")
    w1i = _quantized(s1 * wx / dx[None, :], -32768, 32767, "W1")
    wpi = _quantized(s1 * wp / pf["scale"][None, :], -32768, 32767, "Wp")
    b1i = _quantized(s1 * np.asarray(layers["b1"], np.float64), -2**31, 2**31 - 1, "b1")
    w2i = _quantized(64 * np.asarray(layers["w2"], np.float64), -127, 127, "W2")
    h2 = w2i.shape[0]
    b2i = _quantized(64 * ONE * np.asarray(layers["b2"], np.float64), -2**31, 2**31 - 1, "b2")
    w3i = _quantized(64 * np.asarray(layers["w3"], np.float64).reshape(-1), -127, 127, "w3")
    b3i = _quantized(64 * ONE * np.asarray(layers["b3"], np.float64).reshape(-1), -2**31, 2**31 - 1, "b3")
    weights = _core.base_weights_text(base)
    try:
        m = json.dumps(meta or {}, sort_keys=True, allow_nan=False).encode()
    except (TypeError, ValueError) as e:
        raise InvalidArgument(f"meta: JSON without NaN or infinity, got {_show(meta)} ({e})") from None
    wb = weights.encode()
    out = bytearray(b"TRACTNET")
    out += struct.pack("<7H", 4, int(obs_version), dim, pf["version"], pf["dim"], h1, h2)
    out += struct.pack("<3B", SHIFT1, 6, (1 if canonical else 0) | flags)
    out += struct.pack("<i", int(_quantized(np.asarray([64 * ONE * margin]), 0, 1 << 24, "margin")[0]))
    out += struct.pack("<II", len(wb), len(m)) + wb + m
    out += w1i.T.astype("<i2").tobytes() + wpi.T.astype("<i2").tobytes()  # input-major
    out += b1i.astype("<i4").tobytes() + w2i.astype(np.int8).tobytes() + b2i.astype("<i4").tobytes()
    out += w3i.astype(np.int8).tobytes() + b3i.astype("<i4").tobytes()
    out += struct.pack("<I", zlib.crc32(bytes(out)) & 0xFFFFFFFF)
    data = bytes(out)
    _core.check_play_net(data)  # the core reads it back (sizes, overflow) or says what is wrong
    if path is not None:
        with replacing(_path(path)) as tmp, open(tmp, "wb") as f:
            f.write(data)
    return data


def _parse(data: Any) -> Dict[str, Any]:
    """A format-4 weights file's header fields, base weights text, metadata and integer arrays
    (``w1`` (dim, h1), ``wp`` (pdim, h1), ``b1``, ``w2`` (h2, h1), ``b2``, ``w3``, ``b3``),
    the layout ``export`` writes; bytes only, checked by the core first (what is wrong named)."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise InvalidArgument(f"data: the bytes of a weights file (format 4), got {type(data).__name__} {_show(data)}")
    data = bytes(data)
    _core.check_play_net(data)  # a whole, well-formed format-4 file, or what is wrong with it
    _, obs_version, dim, pv, pdim, h1, h2, sh1, sh2, flags, prior, bl, ml = struct.unpack_from("<7H3BiII", data, 8)
    at = 8 + 14 + 3 + 4 + 8
    out: Dict[str, Any] = {"obs_version": obs_version, "dim": dim, "play_features": pv, "pdim": pdim, "h1": h1, "h2": h2, "shift1": sh1,
                           "shift2": sh2, "flags": flags, "prior": prior, "base": data[at:at + bl].decode(),
                           "meta": data[at + bl:at + bl + ml]}
    at += bl + ml
    for name, n, dt, shape in (("w1", dim * h1, "<i2", (dim, h1)), ("wp", pdim * h1, "<i2", (pdim, h1)), ("b1", h1, "<i4", (h1,)),
                               ("w2", h2 * h1, "i1", (h2, h1)), ("b2", h2, "<i4", (h2,)), ("w3", h2, "i1", (h2,)), ("b3", 1, "<i4", (1,))):
        out[name] = np.frombuffer(data, dt, n, at).astype(np.int64).reshape(shape)
        at += n * np.dtype(dt).itemsize
    return out


def read_layers(data: bytes) -> Dict[str, Any]:
    """A format-4 weights file (bytes) back as float layers, the inverse of :func:`export`:
    ``{"layers": {wx, wp, b1, w2, b2, w3, b3}, "base", "obs_version", "canonical", "margin",
    "phases", "meta", "play_features"}``; ``export(**that)`` writes the same bytes again. A damaged file is
    refused as the core refuses it. What ``TrainConfig.init`` warm-starts from."""
    f = _parse(data)
    enc = _core.obs_encoding(int(f["obs_version"]))
    pf = play_features(int(f["play_features"]))
    if f["shift1"] != SHIFT1 or f["pdim"] != pf["dim"] or f["dim"] != enc["dim"]:
        raise InvalidArgument(f"data: a network with shift {f['shift1']} over {f['dim']} + {f['pdim']} inputs; this version "
                              f"reads shift {SHIFT1} over {enc['dim']} + {pf['dim']}")
    s1 = ONE * 2 ** SHIFT1
    dx = np.asarray(enc["scale"], np.float64)
    layers = {"wx": f["w1"].T * dx[None, :] / s1, "wp": f["wp"].T * pf["scale"][None, :].astype(np.float64) / s1,
              "b1": f["b1"] / s1, "w2": f["w2"] / 64, "b2": f["b2"] / (64 * ONE), "w3": f["w3"] / 64,
              "b3": f["b3"] / (64 * ONE)}
    phases = {0: "both", 2: "play", 4: "declare"}[f["flags"] & 6]
    return {"layers": layers, "base": f"greedy:{f['base']}" if f["base"] else "greedy", "obs_version": int(f["obs_version"]),
            "canonical": bool(f["flags"] & 1), "margin": f["prior"] / (64 * ONE), "phases": phases,
            "meta": json.loads(f["meta"] or b"{}"), "play_features": pf["version"]}


def _play_features_arg(version: Any) -> Dict[str, Any]:
    """:func:`play_features` of a ``play_features`` argument."""
    try:
        return play_features(version)
    except InvalidArgument as e:
        raise InvalidArgument(f"play_features: {e}".replace("play_features: play_features: ", "play_features: ")) from None


def _width_version(pdim: int) -> Dict[str, Any]:
    """The play-features version with ``pdim`` features (each version's dim is its own)."""
    for v in _core.play_feature_versions():
        pf = play_features(v)
        if pf["dim"] == pdim:
            return pf
    raise InvalidArgument(f"layers['wp']: {pdim} play features is no version's width "
                          f"({', '.join(str(play_features(v)['dim']) for v in _core.play_feature_versions())})")


def _inputs(x: Any, feats: Any, dim: int, pdim: int) -> None:
    """Refuses an observation that is not ``dim`` finite numbers or features that are not
    (k, pdim) finite numbers."""
    for name, a, shape in (("observation", x, (dim,)), ("feats", feats, (None, pdim))):
        a = np.asarray(a)
        if a.ndim != len(shape) or any(w is not None and g != w for g, w in zip(a.shape, shape)) \
                or a.dtype.kind not in "iuf" or not np.isfinite(a).all():
            raise InvalidArgument(f"{name}: finite numbers of shape {shape}, got {a.dtype} {a.shape}")


def forward_float(layers: Dict[str, np.ndarray], x: np.ndarray, feats: np.ndarray) -> np.ndarray:
    """The float network's scores of candidates ``feats`` (k, pdim whole numbers, the play
    features of the version as wide as ``layers["wp"]``) at observation ``x`` (float, entries
    over their denominators), in levels: the reference the integer network (over ``64 * 127``)
    approximates within :func:`quantization_bound`."""
    pf = _width_version(np.shape(layers["wp"])[1])
    _inputs(x, feats, np.shape(layers["wx"])[1], pf["dim"])
    p = feats.astype(np.float64) / pf["scale"]
    z1 = np.asarray(layers["wx"]) @ x.astype(np.float64) + p @ np.asarray(layers["wp"]).T + layers["b1"]
    h1 = np.clip(z1, 0, 1)
    h2 = np.clip(h1 @ np.asarray(layers["w2"]).T + layers["b2"], 0, 1)
    return h2 @ np.asarray(layers["w3"]).reshape(-1) + float(np.asarray(layers["b3"]).reshape(-1)[0])


def quantization_bound(layers: Dict[str, np.ndarray], n: np.ndarray, feats: np.ndarray) -> np.ndarray:
    """Per candidate, a bound on |integer score / (64 * 127) - float score| (margin aside):
    each first-layer weight and bias rounds by at most 1/2 over ``s1``, each later weight by at
    most 1/2 over 64 and bias over 64 * 127, each shift floors by less than one step (1/127),
    and an error in a clamped unit passes through the next layer's weights at most as they
    weigh it. ``n``: the observation's whole numbers (the core's ``i16`` observation)."""
    _inputs(n, feats, np.shape(layers["wx"])[1], np.shape(layers["wp"])[1])
    s1 = ONE * 2 ** SHIFT1
    w2 = np.abs(np.asarray(layers["w2"]))
    w3 = np.abs(np.asarray(layers["w3"]).reshape(-1))
    h1n, h2n = w2.shape[1], w2.shape[0]
    e1 = (0.5 * np.abs(n).sum() + 0.5 * np.abs(feats.astype(np.float64)).sum(axis=1) + 0.5) / s1 + 1 / ONE
    e2 = e1[:, None] * (w2.sum(axis=1) + h1n * 0.5 / 64)[None, :] + h1n * 0.5 / 64 + 0.5 / (64 * ONE) + 1 / ONE
    return e2 @ (w3 + 0.5 / 64) + h2n * 0.5 / 64 + 0.5 / (64 * ONE)


def forward_int_reference(data: bytes, obs: np.ndarray, feats: np.ndarray) -> np.ndarray:
    """The integer scores of candidates with features ``feats`` (k, pdim) at observation
    ``obs`` (whole numbers, the core's ``i16`` observation), computed from the file in numpy:
    the core's arithmetic written again, for tests."""
    f = _parse(data)
    _inputs(obs, feats, f["dim"], f["pdim"])
    w1, wp, b1, w2, b2, w3, b3 = (f[k] for k in ("w1", "wp", "b1", "w2", "b2", "w3", "b3"))
    sh1, sh2 = f["shift1"], f["shift2"]
    acc = b1 + obs.astype(np.int64) @ w1
    z = acc[None, :] + feats.astype(np.int64) @ wp
    a1 = np.clip(z >> sh1, 0, ONE)
    a2 = np.clip((b2[None, :] + a1 @ w2.T) >> sh2, 0, ONE)
    q = b3[0] + a2 @ w3
    q[0] += f["prior"]  # the base's action is the first candidate
    return q


# -- training ------------------------------------------------------------------------------------


@dataclass
class TrainConfig:
    """What ``train`` does: rounds of self-play samples, each followed by an epoch over the
    samples of the last ``window`` rounds."""

    out: str = "runs/play-net"
    seed: int = 1
    rounds: int = 12
    hands_per_round: int = 5000
    #: Rounds whose samples each round trains on (the newest included).
    window: int = 4
    epochs: int = 1
    h1: int = 128
    h2: int = 32
    lr: float = 1e-3
    batch: int = 512
    points_weight: float = 0.005
    eval_deals: int = 1000
    eval_seed: int = 0x7472_6169_6E00  # "train": not an arena suite's seed
    opponent: str = "tuned-greedy-v1"
    threads: int = 0
    time_limit_s: float = 0.0
    #: Margins (levels) added to the base's action's score, each exported and rated after every
    #: round: the first is the round's file, the others ``round-K-mM.tnet``.
    margins: List[float] = field(default_factory=lambda: [0.0, 0.03])
    #: Where the exported networks decide: "both", "play" (the base declares) or "declare";
    #: with "play" only play decisions are trained on (and "declare" likewise).
    phases: str = "play"
    selfplay: SelfPlay = field(default_factory=lambda: SelfPlay(obs_version=2, worlds=16))
    #: A play network (``net:PATH``, a path or a shipped name) the model starts from instead of
    #: random weights (its observation version and widths must be the run's): a warm start,
    #: say from the released network with ``selfplay`` playing and rolling out with it.
    init: Optional[str] = None
    #: Weight of the imitation term (0: none): at every decision with a ``selfplay.teacher``
    #: action, each other valued candidate's score is pushed below the teacher's by a logistic
    #: loss on their difference over ``imitate_temperature`` levels (expert iteration: a search
    #: as the teacher), beside the regression on the advantages.
    imitate: float = 0.0
    imitate_temperature: float = 0.05
    #: With a search teacher: each other candidate's target in the imitation term is the share
    #: of the pair's root visits the search gave it, ``v / (v + v_teacher)`` (0 where it did not
    #: try it), instead of 0: where the search was unsure the pair is pushed apart less (the
    #: search's choice among plays it rated alike is largely chance).
    imitate_visits: bool = False


def _torch() -> Any:
    try:
        import torch
    except ImportError as e:  # pragma: no cover - the [train] extra
        raise InvalidArgument("training needs PyTorch: pip install 'tractor-engine[train]'") from e
    return torch


def _model(torch: Any, dim: int, pdim: int, h1: int, h2: int) -> Any:
    nn = torch.nn

    class PlayModel(nn.Module):  # type: ignore[name-defined]
        def __init__(self) -> None:
            super().__init__()
            self.l1 = nn.Linear(dim + pdim, h1)
            self.l2 = nn.Linear(h1, h2)
            self.l3 = nn.Linear(h2, 1)
            with torch.no_grad():
                self.l3.weight.mul_(0.1)
                self.l3.bias.zero_()

        def forward(self, x: Any, p: Any) -> Any:
            h = torch.clamp(self.l1(torch.cat([x, p], 1)), 0, 1)
            h = torch.clamp(self.l2(h), 0, 1)
            return self.l3(h).squeeze(1)

        def clip_(self) -> None:
            with torch.no_grad():
                self.l1.weight.clamp_(-7.9, 7.9)
                self.l2.weight.clamp_(-1.98, 1.98)
                self.l3.weight.clamp_(-1.98, 1.98)

    return PlayModel()


def _init_layers(cfg: "TrainConfig") -> Dict[str, np.ndarray]:
    """The float layers of ``cfg.init``, checked against the run's encoding and widths. A network
    reading an earlier play-features version starts the run's: every version begins with the one
    before it, so the added features get weights 0 and the network scores as before."""
    from ._weights import resolve

    name = _text(cfg.init, "init")
    path = resolve(name) or name
    path = path[4:] if path.startswith("net:") else path
    try:
        with open(path, "rb") as f:
            got = read_layers(f.read())
    except OSError as e:
        raise InvalidArgument(f"init: cannot read {name!r} ({e.strerror})") from None
    h1, h2 = got["layers"]["w2"].shape[1], got["layers"]["w2"].shape[0]
    if got["obs_version"] != cfg.selfplay.obs_version or (h1, h2) != (cfg.h1, cfg.h2):
        raise InvalidArgument(f"init: {name!r} reads observation version {got['obs_version']} with widths {h1},{h2}; "
                              f"the run's are version {cfg.selfplay.obs_version} with {cfg.h1},{cfg.h2}")
    run, have = play_features(cfg.selfplay.play_features), play_features(got["play_features"])
    if have["version"] > run["version"] or run["layout"][:len(have["layout"])] != have["layout"]:
        raise InvalidArgument(f"init: {name!r} reads play-features version {have['version']}; the run writes version "
                              f"{run['version']}, which does not extend it")
    layers = dict(got["layers"])
    layers["wp"] = np.concatenate([layers["wp"], np.zeros((h1, run["dim"] - have["dim"]))], 1)
    return layers


def _set_layers(torch: Any, model: Any, layers: Dict[str, np.ndarray]) -> None:
    """Puts float ``layers`` (as :func:`read_layers` gives them) into the model."""
    with torch.no_grad():
        model.l1.weight.copy_(torch.from_numpy(np.concatenate([layers["wx"], layers["wp"]], 1)))
        model.l1.bias.copy_(torch.from_numpy(np.asarray(layers["b1"])))
        model.l2.weight.copy_(torch.from_numpy(np.asarray(layers["w2"])))
        model.l2.bias.copy_(torch.from_numpy(np.asarray(layers["b2"])))
        model.l3.weight.copy_(torch.from_numpy(np.asarray(layers["w3"]).reshape(1, -1)))
        model.l3.bias.copy_(torch.from_numpy(np.asarray(layers["b3"]).reshape(-1)))


def _layers(model: Any, dim: int) -> Dict[str, np.ndarray]:
    w1 = model.l1.weight.detach().cpu().numpy().astype(np.float64)
    return {"wx": w1[:, :dim], "wp": w1[:, dim:], "b1": model.l1.bias.detach().cpu().numpy(),
            "w2": model.l2.weight.detach().cpu().numpy(), "b2": model.l2.bias.detach().cpu().numpy(),
            "w3": model.l3.weight.detach().cpu().numpy().reshape(-1), "b3": model.l3.bias.detach().cpu().numpy()}


def duplicate(a: str, b: str, deals: int, seed: int, profile: str = "guigang", threads: Optional[int] = None) -> Dict[str, float]:
    """A's levels per deal over B in duplicate on ``deals`` deals of the run with ``seed``,
    with a 95% interval (what ``tractor.arena`` reports for a pairing)."""
    deals = _int(deals, "deals", 2, 2**40)  # an interval needs two
    r = simulate(hands=deals, policies=(a, b, a, b), seed=seed, duplicate=True, profile=profile, threads=threads)
    adv = (r.arrays["return0"].astype(np.float64) + r.duplicate.arrays["return1"]) / 2
    m = float(adv.mean())
    half = 1.96 * float(adv.std(ddof=1)) / np.sqrt(len(adv))
    return {"levels_per_deal": m, "lo": m - half, "hi": m + half, "deals": len(adv)}


def plot_curve(curve: List[Dict[str, Any]], path: str, opponent: str = "tuned-greedy-v1") -> bool:
    """The learning curve (levels per deal against ``opponent`` per round, one line per margin,
    with the 95% intervals) as an image; False, writing nothing, without matplotlib (the
    ``[plot]`` extra)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    try:
        margins = sorted({r["margin"] for c in curve for r in c["rated"]})
    except (KeyError, TypeError):
        raise InvalidArgument("curve: train()'s curve (rounds, each with its 'rated' networks and their margins)") from None
    fig, ax = plt.subplots(figsize=(7, 4))
    for m in margins:
        pts = [(c["hands"], r) for c in curve for r in c["rated"] if r["margin"] == m and "levels_per_deal" in r]
        if not pts:
            continue
        x = [h for h, _ in pts]
        y = [r["levels_per_deal"] for _, r in pts]
        ax.errorbar(x, y, yerr=[[r["levels_per_deal"] - r["lo"] for _, r in pts], [r["hi"] - r["levels_per_deal"] for _, r in pts]],
                    marker="o", ms=3, capsize=2, label=f"margin {m:g}")
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xlabel("self-play hands")
    ax.set_ylabel(f"levels per deal against {opponent}")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def train(cfg: TrainConfig, progress: Optional[Callable[[str], None]] = None) -> Dict[str, Any]:
    """Rounds of self-play and SGD; after each round the network is exported
    (``OUT/round-K.tnet``) and played in duplicate against ``cfg.opponent`` on deals of
    ``cfg.eval_seed`` (never an arena suite). Resumes from ``OUT/state.pt`` when it exists.
    Returns the curve."""
    for name in ("rounds", "hands_per_round", "window", "epochs", "h1", "h2", "batch"):
        v = getattr(cfg, name)
        if not isinstance(v, int) or isinstance(v, bool) or v < 1:
            raise InvalidArgument(f"{name}: a whole number at least 1, got {v!r}")
    if cfg.phases not in ("both", "play", "declare"):
        raise InvalidArgument(f"phases: 'both', 'play' or 'declare', got {cfg.phases!r}")
    if not cfg.margins or any(not 0 <= m <= 100 for m in cfg.margins):
        raise InvalidArgument(f"margins: one or more numbers in 0..100 (levels), got {cfg.margins!r}")
    if not (cfg.lr > 0 and np.isfinite(cfg.lr)):
        raise InvalidArgument(f"lr: a positive number, got {cfg.lr!r}")
    if not (isinstance(cfg.imitate, (int, float)) and not _is_bool(cfg.imitate) and 0 <= cfg.imitate < float("inf")):
        raise InvalidArgument(f"imitate: a weight at least 0, got {_show(cfg.imitate)}")
    if cfg.imitate and cfg.selfplay.teacher is None:
        raise InvalidArgument("imitate: needs selfplay.teacher (the policy whose actions are imitated)")
    if not (isinstance(cfg.imitate_temperature, (int, float)) and not _is_bool(cfg.imitate_temperature)
            and 0 < cfg.imitate_temperature < float("inf")):
        raise InvalidArgument(f"imitate_temperature: a positive number of levels, got {_show(cfg.imitate_temperature)}")
    if not _is_bool(cfg.imitate_visits):
        raise InvalidArgument(f"imitate_visits must be a bool, got {_show(cfg.imitate_visits)}")
    if cfg.imitate_visits and not cfg.imitate:
        raise InvalidArgument("imitate_visits: needs imitate > 0 (it sets the imitation term's targets)")
    cfg = replace(cfg, imitate_visits=bool(cfg.imitate_visits))  # a numpy bool, as the recipe's JSON keeps it
    pf = play_features(cfg.selfplay.play_features)  # a known version, named before any work
    init = _init_layers(cfg) if cfg.init is not None else None  # checked even when resuming
    torch = _torch()
    say = progress or (lambda m: None)
    os.makedirs(cfg.out, exist_ok=True)
    torch.manual_seed(cfg.seed)
    enc = _core.obs_encoding(cfg.selfplay.obs_version)
    dim = enc["dim"]
    dx = torch.tensor(1.0 / np.asarray(enc["scale_u8"], np.float32))  # the samples hold u8 entries
    dp = torch.tensor(1.0 / pf["scale"])
    model = _model(torch, dim, pf["dim"], cfg.h1, cfg.h2)
    if init is not None:
        _set_layers(torch, model, init)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    state_path = os.path.join(cfg.out, "state.pt")
    curve: List[Dict[str, Any]] = []
    first = 0
    if os.path.exists(state_path):
        st = torch.load(state_path, weights_only=False)
        model.load_state_dict(st["model"])
        opt.load_state_dict(st["opt"])
        torch.set_rng_state(st["rng"])
        curve, first = st["curve"], st["round"]
        say(f"resumed after round {first}")
    t0 = time.time()
    window: List[Dict[str, Any]] = []

    def round_samples(k: int) -> Dict[str, Any]:
        s = samples(cfg.seed, k * cfg.hands_per_round, cfg.hands_per_round, cfg.selfplay, cfg.threads)
        f = s["features"]
        dealing = (f[:, _PASS] > 0) | (f[:, _SHOW] > 0)
        keep = {"both": np.ones(len(f), bool), "play": ~dealing, "declare": dealing}[cfg.phases]
        adv = advantages(s, cfg.points_weight)
        # per kept row, the kept row of its decision's teacher action (-1: none, or the row itself)
        rows = np.flatnonzero(keep)
        taught_of = np.full(len(s["seat"]), -1, np.int64)
        t = s["taught"][keep]
        taught_of[s["decision"][rows[t]]] = np.flatnonzero(t)
        pair = taught_of[s["decision"][rows]]
        pair[t] = -1
        # the imitation target of each row against its teacher row: 0, or its share of the pair's visits
        visits = s["visits"][keep].astype(np.float64)
        both = visits + np.where(pair >= 0, visits[np.maximum(pair, 0)], 0)
        share = np.where(both > 0, visits / np.maximum(both, 1), 0.0) if cfg.imitate_visits else np.zeros(len(rows))
        return {"obs": torch.from_numpy(s["obs"]), "feats": torch.from_numpy(f[keep].astype(np.float32)) * dp,
                "dec": torch.from_numpy(s["decision"][keep].astype(np.int64)), "y": torch.from_numpy(adv[keep]),
                "pair": torch.from_numpy(pair), "share": torch.from_numpy(share.astype(np.float32)),
                "decisions": len(s["seat"])}

    for k in range(max(0, first - cfg.window + 1), first):  # a resumed run's window, drawn again
        window.append(round_samples(k))
    for k in range(first, cfg.rounds):
        ts = time.time()
        window = (window + [round_samples(k)])[-cfg.window:]
        say(f"round {k + 1}: {cfg.hands_per_round} hands, {window[-1]['decisions']} decisions, "
            f"{len(window[-1]['y'])} candidates in {time.time() - ts:.0f} s")
        sizes = [len(w["y"]) for w in window]
        n = sum(sizes)
        rng = np.random.default_rng([cfg.seed, k])  # the round's own: a resumed run draws the same
        for e in range(cfg.epochs):
            order = rng.permutation(n)
            total = 0.0
            starts = np.cumsum([0] + sizes)
            for i in range(0, n, cfg.batch):
                j = order[i:i + cfg.batch]
                xs, ps, ys, tps, tw, ts = [], [], [], [], [], []
                for w, part in enumerate(window):  # the rows of each round in the batch
                    m = j[(j >= starts[w]) & (j < starts[w + 1])] - starts[w]
                    if len(m):
                        mt = torch.from_numpy(m)
                        xs.append(part["obs"][part["dec"][mt]].float() * dx)
                        ps.append(part["feats"][mt])
                        ys.append(part["y"][mt])
                        if cfg.imitate:  # each row's teacher row, at the same decision (itself where none: no loss)
                            pr = part["pair"][mt]
                            tps.append(part["feats"][torch.where(pr >= 0, pr, mt)])
                            tw.append((pr >= 0).float())
                            ts.append(part["share"][mt])
                x, p_, y = torch.cat(xs), torch.cat(ps), torch.cat(ys)
                q = model(x, p_)
                loss = torch.mean((q - y) ** 2)
                if cfg.imitate:
                    # the teacher's candidate above every other valued one: logistic loss on q - q_taught,
                    # towards the row's share of the pair's visits (0 unless imitate_visits)
                    qt = model(x, torch.cat(tps))
                    z = (q - qt) / cfg.imitate_temperature
                    gap = (torch.nn.functional.softplus(z) - torch.cat(ts) * z) * cfg.imitate_temperature
                    loss = loss + cfg.imitate * torch.sum(gap * torch.cat(tw)) / len(y)
                opt.zero_grad()
                loss.backward()
                opt.step()
                model.clip_()
                total += float(loss.detach()) * len(y)
            var = float(torch.cat([w["y"] for w in window]).var())
            say(f"round {k + 1} epoch {e + 1}: loss {total / max(n, 1):.4f} (advantage variance {var:.4f}, {n} rows)")
        recipe = {k2: v for k2, v in asdict(cfg).items() if k2 not in ("out", "threads", "time_limit_s")}
        meta = {"recipe": "tractor.train", "round": k + 1, "config": recipe, "engine": _core.__version__}
        rated = []
        for i, margin in enumerate(cfg.margins):
            path = os.path.join(cfg.out, f"round-{k + 1}.tnet" if i == 0 else f"round-{k + 1}-m{margin:g}.tnet")
            export(_layers(model, dim), path, cfg.selfplay.base, cfg.selfplay.obs_version, cfg.selfplay.canonical,
                   {**meta, "margin": margin}, margin, cfg.phases, pf["version"])
            ev = duplicate(f"net:{path}", cfg.opponent, cfg.eval_deals, cfg.eval_seed, cfg.selfplay.profile, cfg.threads or None) if cfg.eval_deals else {}
            rated.append({"margin": margin, "path": path, **ev})
            say(f"round {k + 1}: {path} against {cfg.opponent}: {ev.get('levels_per_deal', float('nan')):+.3f} "
                f"[{ev.get('lo', float('nan')):+.3f}, {ev.get('hi', float('nan')):+.3f}]")
        curve.append({"round": k + 1, "hands": (k + 1) * cfg.hands_per_round, "seconds": time.time() - t0,
                      "rated": rated})
        with replacing(state_path) as tmp:
            torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "rng": torch.get_rng_state(),
                        "curve": curve, "round": k + 1}, tmp)
        with replacing(os.path.join(cfg.out, "curve.json")) as tmp, open(tmp, "w") as f:
            json.dump(curve, f, indent=1)
        plot_curve(curve, os.path.join(cfg.out, "curve.png"), cfg.opponent)
        if cfg.time_limit_s and time.time() - t0 > cfg.time_limit_s:
            say("time limit reached")
            break
    return {"curve": curve, "out": cfg.out}
