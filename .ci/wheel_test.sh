#!/usr/bin/env bash
# CI: the release artifacts as users get them, on a machine with Rust and Python >= 3.9.
#  1. scripts/build_dist.sh (the README's command) builds the sdist and, from it unpacked, the
#     manylinux2014 abi3 wheel with zig, from a fresh build virtualenv (maturin, ziglang from
#     PyPI), and checks their contents (.ci/check_dist.py: no tests, benches or leftovers;
#     metadata). A wheel built from the sdist proves the sdist complete: no second build of it.
#  2. .ci/wheel_smoke.py installs the wheel in a fresh virtualenv whose PATH has no cargo or
#     rustc and runs, from outside the repository, the README's main command with few hands,
#     the version checks and a smoke subset of the tests against the installed package.
# Between runs on one machine, target/wheel-ci/ keeps the build virtualenv (a cache, like
# target/ itself: delete it for a cold run); every virtualenv that installs something is made
# afresh.
set -euo pipefail
cd "$(dirname "$0")/.."

python=${PYTHON:-python3}
cache=$PWD/target/wheel-ci
mkdir -p "$cache"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
t0=$SECONDS

echo "CI wheel: build (scripts/build_dist.sh)"
OUT="$work/dist" BUILD_VENV="$cache/build-venv" PYTHON="$python" scripts/build_dist.sh
t1=$SECONDS
wheels=("$work"/dist/tractor_engine-*-manylinux*.whl)
sdists=("$work"/dist/tractor_engine-*.tar.gz)
if [ "${#wheels[@]}" -ne 1 ] || [ "${#sdists[@]}" -ne 1 ]; then
    echo "CI wheel: expected one manylinux wheel and one sdist, got: ${wheels[*]} ${sdists[*]}" >&2
    exit 1
fi

echo "CI wheel: smoke test of the installed wheel (.ci/wheel_smoke.py)"
"$python" .ci/wheel_smoke.py "${wheels[0]}"
t2=$SECONDS

wheel_bytes=$(wc -c <"${wheels[0]}")
echo "CI wheel: ok: $(basename "${wheels[0]}") ($wheel_bytes bytes); build $((t1 - t0))s, smoke $((t2 - t1))s, total $((t2 - t0))s"
