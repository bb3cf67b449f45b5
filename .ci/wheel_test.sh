#!/usr/bin/env bash
# CI: the release artifacts as users get them, on a machine with Rust and Python >= 3.9.
#  1. scripts/build_dist.sh (the README's command) builds the manylinux2014 abi3 wheel with
#     zig and the sdist, from a fresh build virtualenv (maturin, ziglang from PyPI), and
#     checks their contents (.ci/check_dist.py: no tests, benches or leftovers; metadata).
#  2. .ci/wheel_smoke.py installs the wheel in a fresh virtualenv whose PATH has no cargo or
#     rustc and runs, from outside the repository, the README's main command with few hands,
#     the version checks and a smoke subset of the tests against the installed package.
#  3. The sdist builds and installs with pip in another fresh virtualenv (Rust needed). It is
#     built with the dev profile: this checks that the sdist is complete; the release
#     profile is already built in step 1. Its cargo target dir is the workspace's target/:
#     the crates of crates.io that `cargo test` built there are reused, while the sdist's own
#     crates, unpacked elsewhere, are compiled from the sdist's files (12 s saved on 2 cores).
# Between runs on one machine, target/wheel-ci/ keeps the build virtualenv (a cache, like
# target/ itself: delete it for a cold run); every virtualenv that installs something is made
# afresh.
set -euo pipefail
cd "$(dirname "$0")/.."

python=${PYTHON:-python3}
cache=$PWD/target/wheel-ci
target=${CARGO_TARGET_DIR:-$PWD/target}  # the workspace's, where `cargo test` built
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

echo "CI wheel: the sdist builds and installs"
rm -rf "$cache/sdist-venv"
"$python" -m venv "$cache/sdist-venv"
(
    cd "$cache"
    export MATURIN_PEP517_ARGS="--profile dev" CARGO_TARGET_DIR="$target"
    sdist-venv/bin/python -m pip install --quiet --upgrade pip
    sdist-venv/bin/python -m pip install --quiet --no-binary tractor-engine "${sdists[0]}"
    version=$(sdist-venv/bin/tractor --version)
    sdist-venv/bin/python -c "import tractor, sys; assert sys.argv[1] == 'tractor ' + tractor.__version__, sys.argv[1]" "$version"
    sdist-venv/bin/tractor simulate --hands 50 --seed 7 --quiet >/dev/null
    echo "CI wheel: sdist installed: $version"
)
t3=$SECONDS

wheel_bytes=$(wc -c <"${wheels[0]}")
echo "CI wheel: ok: $(basename "${wheels[0]}") ($wheel_bytes bytes); build $((t1 - t0))s, smoke $((t2 - t1))s, sdist $((t3 - t2))s, total $((t3 - t0))s"
