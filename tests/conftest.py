"""Fixtures shared by test modules."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def ray_local():
    """A local two-CPU Ray runtime for one test module (skipped where Ray is not installed)."""
    ray = pytest.importorskip("ray", reason="Ray is not installed (pip install ray): the Ray backend is optional")
    if ray.is_initialized():
        ray.shutdown()
    # A small object store: the tests' results are a few MB, and Ray's default (30% of memory
    # in /dev/shm) is far more than CI's machine should lend one test module.
    # address="local": a runtime of its own even while another xdist worker runs one (ray.init()
    # alone would join that one, and refuse num_cpus)
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False, object_store_memory=256 * 1024**2)
    try:
        yield ray
    finally:
        ray.shutdown()
