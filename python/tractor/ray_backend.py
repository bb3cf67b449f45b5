"""Run :func:`tractor.simulate` on a Ray cluster: index-range shards spread over the workers,
merged in index order. Same seed, same numbers as a local run (hand seeds depend only on the
run seed and the global hand index). ``pip install "tractor-engine[ray]"``."""

from __future__ import annotations

from typing import Any, Optional, Tuple

from .errors import TractorError


def _shard(kind: str, start: int, n: int, policies, seed: int, profile: str, duplicate: bool, max_hands: int):
    from .sim import simulate

    if kind == "matches":
        return simulate(matches=n, start=start, policies=policies, seed=seed, profile=profile, threads=1,
                        max_hands=max_hands)
    return simulate(hands=n, start=start, policies=policies, seed=seed, profile=profile, threads=1,
                    duplicate=duplicate)


def simulate_ray(
    hands: Optional[int],
    matches: Optional[int],
    policies: Tuple[str, str, str, str],
    seed: int,
    profile: str,
    start: int,
    duplicate: bool,
    max_hands: int,
    address: Optional[str] = None,
    shards_per_cpu: int = 4,
) -> Any:
    try:
        import ray
    except ImportError:
        raise TractorError('backend="ray" needs Ray: pip install "tractor-engine[ray]"') from None
    from .sim import merge

    if not ray.is_initialized():
        if address:
            ray.init(address=address)
        else:
            ray.init()
    kind, total = ("matches", matches) if matches is not None else ("hands", hands)
    assert total is not None
    cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
    n_shards = max(1, min(total, cpus * shards_per_cpu))
    remote = ray.remote(num_cpus=1)(_shard)
    refs = []
    for s in range(n_shards):
        a = start + total * s // n_shards
        b = start + total * (s + 1) // n_shards
        if b > a:
            refs.append(remote.remote(kind, a, b - a, policies, seed, profile, duplicate, max_hands))
    parts = ray.get(refs)
    return merge(parts)
