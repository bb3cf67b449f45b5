"""Fixtures shared by test modules."""

from __future__ import annotations

import signal

import pytest


@pytest.fixture
def sigint_default():
    """SIGINT at Python's default handler for one test that presses Ctrl-C in its own process: a
    pytest started where SIGINT is ignored (a shell's background job) or a library that replaced
    the handler would otherwise leave the run to go on (for a trillion hands)."""
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


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
