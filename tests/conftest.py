"""Fixtures shared by test modules."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def ray_local():
    """A local two-CPU Ray runtime for one test module (skipped where Ray is not installed)."""
    ray = pytest.importorskip("ray", reason="Ray is not installed (pip install ray): the Ray backend is optional")
    if ray.is_initialized():
        ray.shutdown()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield ray
    finally:
        ray.shutdown()
