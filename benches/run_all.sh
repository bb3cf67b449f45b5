#!/usr/bin/env bash
# Runs every measurement of BENCHMARKS.md and leaves the raw results in $OUT.
#
#   benches/run_all.sh                 # full run (about 20-30 minutes on 2 cores)
#   QUICK=1 SKIP_MATURIN=1 benches/run_all.sh   # smoke run, small sizes, no rebuild of the package
#
# The baseline is commit $BASE_REV (default 5f9534f, the last commit before the optimisation
# work): it is exported with `git archive` to $OUT/base, the bench files of this tree are copied
# into it, and both builds are timed on one saved corpus, interleaved (new, base, new, base). Nothing is committed or installed except
# `maturin develop --release` (the editable package in .venv).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=${OUT:-/tmp/tractor-bench}
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
BASE_TARGET=$OUT/base-target
QUICK=${QUICK:-}
BASE_REV=${BASE_REV:-5f9534f}
mkdir -p "$OUT"
. .venv/bin/activate

{
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "nproc: $(nproc)"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
  echo "memory: $(free -h | awk '/Mem:/ {print $2}')"
  echo "rustc: $(rustc --version)"
  echo "python: $(python --version 2>&1)"
  echo "HEAD: $(git rev-parse --short HEAD); uncommitted files under rust/core/src: $(git status --short rust/core/src | wc -l); baseline: $BASE_REV"
  echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$OUT/machine.txt"

if [[ -n $QUICK ]]; then
  LS_ARGS=(--quick); CRIT_ARGS=(--test); PYB_ARGS=(--benchmark-max-time=0.05 --benchmark-min-rounds=3)
  OS_ARGS=(--games 300 --hands 600 --repeats 3); MEM_ARGS=(--hands 2000 20000 --budget-s 60)
else
  LS_ARGS=(); CRIT_ARGS=(); PYB_ARGS=()
  OS_ARGS=(); MEM_ARGS=(--hands 100000 1000000 10000000 --budget-s 600)
fi

echo "== build: this tree and the baseline ($BASE_REV)"
cargo build --release -p tractor-core --example ladder_stats
rm -rf "$OUT/base" && mkdir -p "$OUT/base"
git archive "$BASE_REV" | tar -x -C "$OUT/base"
mkdir -p "$OUT/base/rust/core/examples"
cp rust/core/benches/*.rs "$OUT/base/rust/core/benches/"
cp rust/core/examples/ladder_stats.rs "$OUT/base/rust/core/examples/"
(cd "$OUT/base" && CARGO_TARGET_DIR=$BASE_TARGET cargo build --release -p tractor-core --example ladder_stats)

load() { echo "load average before $1: $(cut -d' ' -f1-3 /proc/loadavg); busiest: $(ps -eo pcpu,comm --sort=-pcpu | sed -n 2p)" >> "$OUT/machine.txt"; }
load ladder_stats
echo "== ladder_stats: new, base, new, base on one corpus"
NEW_LS=$TARGET/release/examples/ladder_stats
BASE_LS=$BASE_TARGET/release/examples/ladder_stats
"$NEW_LS" "${LS_ARGS[@]}" --save "$OUT/corpus.txt" --tsv "$OUT/new1.tsv" > "$OUT/ladder_new1.md" \
  || echo "ladder_stats new1 exited $?" | tee -a "$OUT/errors.txt"
"$BASE_LS" "${LS_ARGS[@]}" --load "$OUT/corpus.txt" --tsv "$OUT/base1.tsv" > "$OUT/ladder_base1.md" \
  || echo "ladder_stats base1 exited $?" | tee -a "$OUT/errors.txt"
"$NEW_LS" "${LS_ARGS[@]}" --load "$OUT/corpus.txt" --tsv "$OUT/new2.tsv" > "$OUT/ladder_new2.md" \
  || echo "ladder_stats new2 exited $?" | tee -a "$OUT/errors.txt"
"$BASE_LS" "${LS_ARGS[@]}" --load "$OUT/corpus.txt" --tsv "$OUT/base2.tsv" > "$OUT/ladder_base2.md" \
  || echo "ladder_stats base2 exited $?" | tee -a "$OUT/errors.txt"
python benches/compare_stats.py "$OUT/base1.tsv,$OUT/base2.tsv" "$OUT/new1.tsv,$OUT/new2.tsv" > "$OUT/ladder_compare.md"
tail -n 22 "$OUT/ladder_new2.md"

load criterion
echo "== criterion: this tree, then the baseline"
export TRACTOR_CORPUS=$OUT/corpus.txt  # both builds bench the same positions
cargo bench -p tractor-core --bench rules -- "${CRIT_ARGS[@]}" 2>&1 | tee "$OUT/criterion_new.txt" | grep -E "time:" | head -100 || true
(cd "$OUT/base" && CARGO_TARGET_DIR=$BASE_TARGET cargo bench -p tractor-core --bench rules -- "${CRIT_ARGS[@]}") > "$OUT/criterion_base.txt" 2>&1
if [[ -z $QUICK ]]; then
  python benches/criterion_table.py "$TARGET" > "$OUT/criterion_new.md"
  python benches/criterion_table.py "$BASE_TARGET" > "$OUT/criterion_base.md"
  python benches/criterion_table.py "$TARGET" "$BASE_TARGET" > "$OUT/criterion_compare.md"
fi

load pytest
echo "== python: maturin develop --release, pytest-benchmark"
if [[ -z ${SKIP_MATURIN:-} ]]; then maturin develop --release 2>&1 | tail -2; fi
python -m pytest benches --benchmark-only -q "${PYB_ARGS[@]}" --benchmark-json="$OUT/pytest.json" \
  --benchmark-columns=median,iqr,rounds > "$OUT/pytest.txt" 2>&1 || { tail -40 "$OUT/pytest.txt"; exit 1; }
python benches/pytest_table.py "$OUT/pytest.json" > "$OUT/pytest.md"

load openspiel
echo "== OpenSpiel hearts vs tractor-engine"
python benches/compare_openspiel.py "${OS_ARGS[@]}" | tee "$OUT/openspiel.md"

load memory
echo "== peak memory"
python benches/peak_memory.py "${MEM_ARGS[@]}" | tee "$OUT/memory.md"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/machine.txt"
echo "results in $OUT"
