#!/bin/bash
# The issues' speed goals in one interleaved run, as measured for benches/HISTORY.md §14 (kept to
# reproduce that section; benches/run_all.sh now regenerates every table of BENCHMARKS.md), into $OUT:
#   BASE=/path/to/baseline/target/release/examples OUT=/tmp/goals benches/goals.sh
# BASE holds the baseline tree's release examples (`cargo build --release -p tractor-core
# --examples` in a checkout of the baseline); run from this tree's root with its venv active
# (open_spiel installed) and OPENBLAS_NUM_THREADS=1 (numpy's idle threads spin on 2 cores).
set -eu
: "${BASE:?set BASE to the target/release/examples folder of the baseline}"
OUT=${OUT:-/tmp/goals}; mkdir -p "$OUT"
cargo build -q --release -p tractor-core --examples
NEW=target/release/examples
{ echo "start $(date -u +%FT%TZ) $(uptime)"; git log --oneline -1; nproc; grep -m1 'model name' /proc/cpuinfo; } > "$OUT/meta.txt"
for i in 1 2 3 4 5; do   # hands per second, one thread, interleaved with the baseline
  for p in greedy random; do
    echo "base $("$BASE"/throughput $p 6000)" >> "$OUT/throughput.txt"
    echo "new  $("$NEW"/throughput $p 6000)" >> "$OUT/throughput.txt"
  done
  echo "base $("$BASE"/throughput greedy 4000 1 competition)" >> "$OUT/throughput.txt"
  echo "new  $("$NEW"/throughput greedy 4000 1 competition)" >> "$OUT/throughput.txt"
done
echo "after throughput $(uptime)" >> "$OUT/meta.txt"
for i in 1 2; do   # determinization by phase
  { echo "== base"; "$BASE"/determinize_speed 40; echo "== new"; "$NEW"/determinize_speed 40; } >> "$OUT/determinize_speed.txt" 2>&1
done
echo "after determinize $(uptime)" >> "$OUT/meta.txt"
python benches/compare_search_openspiel.py --positions 10 --repeats 3 --iterations 1000 > "$OUT/search.txt" 2>&1
echo "after search $(uptime)" >> "$OUT/meta.txt"
python benches/compare_learning_openspiel.py --repeats 5 --seconds 2 --envs 1024 > "$OUT/learning.txt" 2>&1
python benches/compare_learning_openspiel.py --repeats 3 --seconds 1 --envs 1024 --draw argmax --vec-only > "$OUT/learning_argmax.txt" 2>&1
echo "end $(date -u +%FT%TZ) $(uptime)" >> "$OUT/meta.txt"
