#!/usr/bin/env bash
# The release artifacts, built here: the sdist, then the manylinux2014 abi3 wheel for this
# machine built from that sdist, unpacked (cross-linked with zig, so it runs on any glibc >= 2.17
# Linux of this architecture, CPython >= 3.9), into dist/ (or $OUT), each checked by
# .ci/check_dist.py. Building the wheel from the sdist, as `python -m build` does, proves the
# sdist complete: a file it lacks fails the build or the wheel's check.
#
#   scripts/build_dist.sh            # needs Rust (rustup) and Python >= 3.9; nothing else
#
# maturin and zig come from PyPI (the `maturin` and `ziglang` packages) into a build virtualenv,
# .venv-build/ (or $BUILD_VENV), made on first use. The other platforms' wheels are built by
# .github/workflows/release.yml.
set -euo pipefail
cd "$(dirname "$0")/.."

out=${OUT:-dist}
build_venv=${BUILD_VENV:-.venv-build}
python=${PYTHON:-python3}
# The versions the build was measured with (BENCHMARKS.md); the release workflow pins the same maturin.
tools=(maturin==1.16.0 ziglang==0.17.1)

case $build_venv in /*) ;; *) build_venv=$PWD/$build_venv ;; esac
if [ ! -x "$build_venv/bin/maturin" ] || [ ! -x "$build_venv/bin/python" ] \
        || ! "$build_venv/bin/python" -m ziglang version >/dev/null 2>&1; then
    "$python" -m venv "$build_venv"
    "$build_venv/bin/python" -m pip install --quiet --upgrade pip
fi
"$build_venv/bin/python" -m pip install --quiet "${tools[@]}"

# maturin finds zig through `python -m ziglang` of the python on the PATH: the build venv's.
export PATH="$build_venv/bin:$PATH"
export VIRTUAL_ENV="$build_venv"

mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -f "$out"/tractor_engine-*.whl "$out"/tractor_engine-*.tar.gz
maturin sdist --out "$out"
# The sdist is unpacked under the workspace's target/ (or $CARGO_TARGET_DIR), which keeps the
# compiled crates between builds: an unchanged sdist is not compiled again.
target=${CARGO_TARGET_DIR:-$PWD/target}
unpacked=$target/sdist-src
rm -rf "$unpacked"
mkdir -p "$unpacked"
tar -xzf "$out"/tractor_engine-*.tar.gz -C "$unpacked"
(
    cd "$unpacked"/tractor_engine-*/
    CARGO_TARGET_DIR=$target maturin build --release --zig --compatibility manylinux2014 --out "$out"
)
python .ci/check_dist.py "$out"/tractor_engine-*.whl "$out"/tractor_engine-*.tar.gz
ls -l "$out"/tractor_engine-*
