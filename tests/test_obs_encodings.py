"""Observation encodings are values looked up by version (issue 39): the core's table
(``encode::observe::ENCODINGS``) is the one place that defines each version's size, layout and
scales; the binding exports it (``_core.OBS_ENCODINGS``) and Python sizes every observation from
the entry of the version in use (``obs_version=``, default 1). An unknown version is refused,
naming the known ones; ``OBS_DIM`` and its kin remain only as version 1's public names."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import tractor
from tractor import _args, _core, nets
from tractor.actions import OBS_DIM, OBS_ENCODINGS, OBS_LAYOUT, OBS_SCALE_U8
from tractor.errors import InvalidArgument, InvalidPolicy

ROOT = Path(__file__).resolve().parent.parent
UNKNOWN = f"observation version 99 is unknown (this engine writes {', '.join(map(str, sorted(_core.OBS_ENCODINGS)))})"

#: Where the name OBS_DIM may still appear in product code: the core's definition of version
#: 1's size, the binding's export of it and its stub, and the public Python name.
OBS_DIM_ALLOWED = {
    "rust/core/src/encode/observe/mod.rs",
    "rust/py/src/lib.rs",
    "python/tractor/_core.pyi",
    "python/tractor/actions.py",
}


def test_the_table_is_the_cores_and_version_1_keeps_its_names():
    assert set(OBS_ENCODINGS) == set(_core.OBS_ENCODINGS) and 1 in OBS_ENCODINGS
    v1 = OBS_ENCODINGS[1]
    assert v1["version"] == 1 and v1["dim"] == 636 == OBS_DIM == _core.OBS_DIM
    assert tuple(tuple(b) for b in v1["layout"]) == OBS_LAYOUT
    assert np.array_equal(np.asarray(v1["scale_u8"], np.float32), OBS_SCALE_U8)
    assert np.array_equal(np.asarray(v1["scale"]), nets.OBS_SCALE)
    for v, e in OBS_ENCODINGS.items():
        assert e == _core.obs_encoding(v)
    with pytest.raises(InvalidArgument, match=re.escape(UNKNOWN)):
        _core.obs_encoding(99)
        assert sum(n for _, _, n, _ in e["layout"]) == e["dim"] == len(e["scale"]) == len(e["scale_u8"])


@pytest.mark.parametrize("make", [
    lambda v: tractor.VecEnv(2, obs_version=v),
    lambda v: tractor.Game.deal(1).observation_tensor(0, obs_version=v),
    lambda v: nets.quantize([np.zeros((4, 636)), np.zeros(4), np.zeros((3, 4)), np.zeros(3), np.zeros((72, 3)),
                             np.zeros(72)], obs_version=v),
], ids=["VecEnv", "observation_tensor", "quantize"])
def test_an_unknown_version_is_refused_naming_the_known(make):
    make(1)
    with pytest.raises(InvalidArgument, match=re.escape(UNKNOWN)):
        make(99)
    with pytest.raises(InvalidArgument):
        make(True)


def test_the_adapters_refuse_an_unknown_version():
    pytest.importorskip("gymnasium")
    from tractor.envs.gym import TractorEnv
    with pytest.raises(InvalidArgument, match=re.escape(UNKNOWN)):
        TractorEnv(obs_version=99)


def test_obs_version_1_is_the_default():
    a, b = tractor.VecEnv(6, seed=3, opponents=("greedy",) * 3), tractor.VecEnv(6, seed=3, opponents=("greedy",) * 3,
                                                                                   obs_version=1)
    assert a.observation_size == b.observation_size == 636 and b.obs_version == 1
    for x, y in zip(a.reset(), b.reset()):
        assert np.array_equal(x, y)
    g = tractor.Game.deal(5)
    for seat in range(4):
        assert np.array_equal(g.observation_tensor(seat), g.observation_tensor(seat, obs_version=1))


def test_python_takes_sizes_from_the_table(monkeypatch):
    # version 1's entry reporting another size: whatever sizes an observation follows it
    real = _core.obs_encoding

    def patched(v):
        e = real(v)
        e["dim"] = 640
        return e

    monkeypatch.setattr(_args._core, "obs_encoding", patched)
    assert tractor.VecEnv(2).observation_size == 640
    out = tractor.Game.deal(1).observation_tensor(0)
    assert out.shape == (640,)
    with pytest.raises(InvalidArgument, match=r"shape \(640,\)"):
        tractor.Game.deal(1).observation_tensor(0, out=np.zeros(636, np.float32))


def test_a_weights_file_naming_an_unknown_version_is_refused():
    rng = np.random.default_rng(0)
    layers = [rng.normal(0, 0.1, (8, 636)), np.zeros(8), rng.normal(0, 0.1, (4, 8)), np.zeros(4),
              rng.normal(0, 0.1, (72, 4)), np.zeros(72)]
    net = nets.quantize(layers)
    assert net.obs_version == 1
    data = bytearray(net.to_bytes())
    data[10:12] = (99).to_bytes(2, "little")
    import zlib
    data[-4:] = zlib.crc32(bytes(data[:-4])).to_bytes(4, "little")
    with pytest.raises(InvalidPolicy, match="observation version 99 is unknown"):
        nets.Net(bytes(data))


def obs_dim_uses(root: Path) -> list:
    """The product files under ``root`` that name OBS_DIM outside the allowed places."""
    found = []
    for top in ("rust/core/src", "rust/py/src", "python/tractor"):
        for p in sorted((root / top).rglob("*")):
            if p.suffix not in (".rs", ".py", ".pyi") or not p.is_file():
                continue
            rel = p.relative_to(root).as_posix()
            if rel not in OBS_DIM_ALLOWED and re.search(r"\bOBS_DIM\b", p.read_text(encoding="utf-8")):
                found.append(rel)
    return found


def test_no_product_code_sizes_from_the_constant():
    assert obs_dim_uses(ROOT) == []
