#!/usr/bin/env bash
# One run of every measurement of BENCHMARKS.md, into $OUT: the raw outputs ($OUT/raw/), one
# Markdown file per section of the page ($OUT/tables/<table>.md, by benches/tables.py), the
# machine, commit and load average before each step ($OUT/machine.txt), and the page itself
# ($OUT/BENCHMARKS.md: copy it over BENCHMARKS.md).
#
#   benches/run_all.sh                          # the full run, every step (about 20 minutes on 2 cores)
#   benches/run_all.sh hearts memory            # only these steps, into the same $OUT
#   QUICK=1 SKIP_MATURIN=1 benches/run_all.sh   # smoke run with small sizes (a few minutes)
#
# Steps, in the order of a full run, and the tables each one writes:
#   rules           rules, rules-competition   ladder_stats: guigang twice on one saved corpus, competition once
#   game            game                       criterion hand/* (benches/rules.rs), pytest-benchmark bench_game.py
#   move            hands, layer-move          throughput, search_speed, determinize_speed of this tree and of
#                                              $BASE_REV, alternately, round after round
#   threads         threads                    throughput on 1 and 2 threads, in adjacent pairs
#   hearts          hearts                     compare_openspiel.py (OpenSpiel hearts in the same process)
#   search          determinization, ismcts    compare_search_openspiel.py, determinize_speed
#   ismcts-threads  ismcts-threads             ismcts_threads.py
#   solve           solve                      solve_speed.py (the open-card solver by cards left)
#   budgets         budgets                    search_budgets.py (ISMCTS at 10 and 100 ms a decision against greedy)
#   vecenv          vecenv                     compare_learning_openspiel.py
#   observation     observation                criterion observe/* (benches/learning.rs)
#   records         records                    records_io.py
#   agents          agents                     agents_speed.py (the arena's round-robin, network costs)
#   learner         learner                    learner_speed.py (auto_forced, uint8 threads, callables)
#   memory          memory                     peak_memory.py (10 M hands: the longest step, last)
#
# Environment:
#   OUT            where everything goes (default /tmp/tractor-bench)
#   QUICK=1        small sizes: a smoke run of the harness, not numbers for the page
#   SKIP_MATURIN=1 time the package already installed in the venv instead of `maturin develop --release`
#   VENV           the virtualenv to activate (default .venv); with none there, an already active one
#                  (or the python on PATH) is used. It needs open_spiel and pytest-benchmark.
#   BASE_REV       the baseline of the "Unchanged by the layer move" table (default aa2650d, the tree
#                  before the move). It is exported with `git archive` into $OUT/base and builds its own
#                  copies of the examples: this tree's copies do not compile there (their `use` paths
#                  name the new modules), and the command lines and outputs of both are the same.
#   BASE_TARGET    the baseline's cargo target directory (default $OUT/base-target; kept between runs,
#                  so a second run does not rebuild it)
#   CARGO_TARGET_DIR  this tree's (default ./target)
#
# Criterion benches run with `--profile release` (the workspace's bench profile has the same
# settings), so they reuse the library the examples were built with; their results go to
# $OUT/raw/criterion (CRITERION_HOME), not target/criterion. Nothing is committed; nothing is
# installed except by `maturin develop --release` into the venv.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=${OUT:-/tmp/tractor-bench}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
RAW=$OUT/raw
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
QUICK=${QUICK:-}
BASE_REV=${BASE_REV:-aa2650d}
BASE_DIR=$OUT/base
BASE_TARGET=${BASE_TARGET:-$OUT/base-target}
ALL=(rules game move threads hearts search ismcts-threads solve budgets vecenv observation records agents learner memory)
declare -A TABLES=(
  [rules]="rules rules-competition" [game]=game [move]="hands layer-move" [threads]=threads
  [hearts]=hearts [search]="determinization ismcts" [ismcts-threads]=ismcts-threads [solve]=solve [budgets]=budgets [vecenv]=vecenv
  [observation]=observation [records]=records [agents]=agents [learner]=learner [memory]=memory
)
STEPS=("$@")
if [[ ${#STEPS[@]} -eq 0 ]]; then STEPS=("${ALL[@]}"); fi
for s in "${STEPS[@]}"; do
  [[ -n ${TABLES[$s]:-} ]] || { echo "unknown step '$s'; the steps: ${ALL[*]}" >&2; exit 2; }
done
mkdir -p "$RAW"

# -- the venv -------------------------------------------------------------------------------------
VENV=${VENV:-.venv}
if [[ -f $VENV/bin/activate ]]; then
  # shellcheck disable=SC1091
  . "$VENV/bin/activate"
elif [[ -n ${VIRTUAL_ENV:-} ]]; then
  echo "no $VENV: using the active virtualenv $VIRTUAL_ENV"
else
  echo "no $VENV and no active virtualenv: using $(command -v python)" >&2
fi
export OPENBLAS_NUM_THREADS=1                    # numpy's idle BLAS threads spin on 2 cores
unset RAYON_NUM_THREADS                          # the thread counts are the benches' own

# -- sizes ----------------------------------------------------------------------------------------
if [[ -n $QUICK ]]; then
  LS_ARGS=(--quick); LS_RUNS=1
  CRIT_ARGS=(--warm-up-time 0.2 --measurement-time 0.5 --sample-size 10 --noplot)
  PYB_ARGS=(--benchmark-max-time=0.05 --benchmark-min-rounds=3)
  MOVE_ROUNDS=2; MOVE_HANDS=(random 4000 greedy 2000); SEARCH_SPEED=(3 300); DET_HANDS=8
  THREAD_ROUNDS=2; THREAD_HANDS=(random 6000 greedy 3000)
  OS_ARGS=(--games 300 --hands 1000 --repeats 3)
  SEARCH_ARGS=(--positions 3 --repeats 1 --iterations 300)
  IT_ARGS=(--positions 2 --repeats 1 --iterations 500)
  VEC_ARGS=(--envs 128 --warmup 100 --steps 200 --repeats 1 --seconds 0.5)
  REC_ARGS=(--hands 10000 --read 10000 100000 --out-hands 10000)
  SOLVE_ARGS=(--positions 4 --python-positions 1 --cards 2 3 4 --python-cards 2 3)
  BUDGET_ARGS=(--budgets 0.01 --deals 4)
  AGENT_ARGS=(--deals 100 --repeats 1 --hands 300)
  LEARN_ARGS=(--envs 64 --steps 300 --repeats 1 --hands 200)
  MEM_ARGS=(--hands 20000 200000 --budget-s 60)
else
  LS_ARGS=(); LS_RUNS=2
  CRIT_ARGS=(--noplot)
  PYB_ARGS=()
  MOVE_ROUNDS=7; MOVE_HANDS=(random 20000 greedy 10000); SEARCH_SPEED=(10 1000); DET_HANDS=40
  THREAD_ROUNDS=5; THREAD_HANDS=(random 40000 greedy 20000)
  OS_ARGS=(--games 6000 --hands 12000 --repeats 7)
  SEARCH_ARGS=(--positions 12 --repeats 3 --iterations 1000)
  IT_ARGS=(--positions 6 --repeats 5 --iterations 3000)
  VEC_ARGS=(--envs 1024 --warmup 600 --steps 1500 --repeats 5 --seconds 2)
  REC_ARGS=(--hands 100000 --read 100000 1000000 --out-hands 300000)
  SOLVE_ARGS=(--positions 20 --python-positions 4)
  BUDGET_ARGS=(--budgets 0.01 0.1 --deals 200 40)
  AGENT_ARGS=(--deals 2000 --repeats 3 --hands 4000)
  LEARN_ARGS=(--envs 256 --steps 3000 --repeats 5 --hands 2000)
  MEM_ARGS=(--hands 100000 1000000 10000000 --budget-s 600)
fi
declare -A HANDS_OF=([${MOVE_HANDS[0]}]=${MOVE_HANDS[1]} [${MOVE_HANDS[2]}]=${MOVE_HANDS[3]})
declare -A THREAD_HANDS_OF=([${THREAD_HANDS[0]}]=${THREAD_HANDS[1]} [${THREAD_HANDS[2]}]=${THREAD_HANDS[3]})

# -- the machine ----------------------------------------------------------------------------------
M=$OUT/machine.txt
START=$(date +%s)
dirty=$(git --no-optional-locks status --porcelain -- rust python benches | wc -l)
head_line=$(git rev-parse --short HEAD)
if [[ $dirty -gt 0 ]]; then head_line+=" with $dirty files changed or untracked under rust/, python/, benches/"; fi
command_line=""
[[ -n $QUICK ]] && command_line+="QUICK=$QUICK "
[[ -n ${SKIP_MATURIN:-} ]] && command_line+="SKIP_MATURIN=$SKIP_MATURIN "
[[ $BASE_REV != aa2650d ]] && command_line+="BASE_REV=$BASE_REV "
[[ $VENV != .venv ]] && command_line+="VENV=$VENV "
command_line+="OUT=$OUT benches/run_all.sh${*:+ $*}"
if [[ $# -eq 0 || ! -f $M ]]; then
  {
    echo "started: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "nproc: $(nproc)"
    echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')$(grep -m1 'cpu MHz' /proc/cpuinfo | awk -F: '{printf " (%.0f MHz)", $2}')"
    echo "memory: $(free -h | awk '/Mem:/ {print $2}')"
    echo "kernel: $(uname -sr)"
    echo "rustc: $(rustc --version)"
    echo "python: $(python --version 2>&1)"
    echo "packages: $(python - <<'EOF'
from importlib.metadata import version, PackageNotFoundError
out = []
for p in ("numpy", "open_spiel", "pytest-benchmark", "tractor-engine"):
    try:
        out.append(f"{p} {version(p)}")
    except PackageNotFoundError:
        out.append(f"{p} missing")
print(", ".join(out))
EOF
)"
    echo "HEAD: $head_line"
    echo "baseline: $(git rev-parse --short "$BASE_REV^{commit}")$([[ $BASE_REV == aa2650d ]] && echo ", the tree before the layer move" || echo " (BASE_REV=$BASE_REV)")"
    echo "command: $command_line"
    echo "quick: ${QUICK:-no}"
  } > "$M"
else
  echo "rerun: $(date -u '+%Y-%m-%d %H:%M UTC'), steps ${STEPS[*]}, HEAD $head_line" >> "$M"
fi
cat "$M"

load() { echo "load before $1: $(cut -d' ' -f1-3 /proc/loadavg); busiest: $(ps -eo pcpu,comm --sort=-pcpu | sed -n 2p | xargs)" >> "$M"; }
CMD=/dev/null
run() { echo "$*" >> "$CMD"; "$@"; }  # runs a command and logs it into the step's .cmd file

# -- builds ---------------------------------------------------------------------------------------
load build
echo "== build: this tree's examples (release)"
cargo build --release -p tractor-core --examples
if [[ -z ${SKIP_MATURIN:-} ]]; then
  command -v maturin > /dev/null || { echo "maturin is not installed in the venv (or set SKIP_MATURIN=1)" >&2; exit 1; }
  echo "== build: maturin develop --release"
  maturin develop --release 2>&1 | tail -2
  echo "package: rebuilt by maturin develop --release" >> "$M"
else
  echo "package: as installed, SKIP_MATURIN" >> "$M"
fi
if ! python -c 'import tractor, pyspiel' > "$RAW/import.txt" 2>&1; then
  echo "warning: python cannot import tractor and pyspiel (the Python steps will fail):" >&2
  tail -3 "$RAW/import.txt" >&2
fi
if [[ " ${STEPS[*]} " == *" move "* ]]; then
  echo "== build: the baseline $BASE_REV"
  want=$(git rev-parse "$BASE_REV^{commit}")
  if [[ ! -f $BASE_DIR/.rev || $(cat "$BASE_DIR/.rev") != "$want" ]]; then
    rm -rf "$BASE_DIR" && mkdir -p "$BASE_DIR"
    git archive "$want" | tar -x -C "$BASE_DIR"
    echo "$want" > "$BASE_DIR/.rev"
  fi
  (cd "$BASE_DIR" && CARGO_TARGET_DIR=$BASE_TARGET cargo build --release -p tractor-core \
    --example throughput --example search_speed --example determinize_speed)
fi
NEW=$TARGET/release/examples
BASE=$BASE_TARGET/release/examples

# -- the steps ------------------------------------------------------------------------------------
step_rules() {
  local ls=$NEW/ladder_stats i
  rm -f "$RAW"/rules_*.tsv
  run "$ls" "${LS_ARGS[@]}" --save "$RAW/corpus.txt" --tsv "$RAW/rules_guigang_1.tsv" > "$RAW/rules_guigang_1.txt"
  for ((i = 2; i <= LS_RUNS; i++)); do
    run "$ls" "${LS_ARGS[@]}" --load "$RAW/corpus.txt" --tsv "$RAW/rules_guigang_$i.tsv" > "$RAW/rules_guigang_$i.txt"
  done
  run "$ls" "${LS_ARGS[@]}" --profile competition --tsv "$RAW/rules_competition.tsv" > "$RAW/rules_competition.txt"
  grep -A6 '^## Goals' "$RAW/rules_guigang_1.txt" || true
}

step_game() {
  rm -rf "$RAW/criterion/hand"
  CRITERION_HOME=$RAW/criterion run cargo bench --profile release -p tractor-core --bench rules -- \
    "${CRIT_ARGS[@]}" '^hand/' > "$RAW/criterion_hand.txt" 2>&1
  run python -m pytest benches/bench_game.py --benchmark-only -q "${PYB_ARGS[@]}" \
    --benchmark-json="$RAW/pytest_game.json" > "$RAW/pytest_game.txt" 2>&1
}

step_move() {
  local i kind tree prof pol order
  rm -rf "$RAW/move" && mkdir -p "$RAW/move"
  for ((i = 1; i <= MOVE_ROUNDS; i++)); do
    order=(base new); ((i % 2 == 0)) && order=(new base)  # alternate which tree goes first
    for kind in random-guigang greedy-guigang random-competition greedy-competition search determinize; do
      for tree in "${order[@]}"; do
        local bin=$NEW; [[ $tree == base ]] && bin=$BASE
        local f=$RAW/move/${tree}_${i}_${kind}.txt
        case $kind in
          search) run "$bin/search_speed" "${SEARCH_SPEED[@]}" > "$f" ;;
          determinize) run "$bin/determinize_speed" "$DET_HANDS" > "$f" ;;
          *) pol=${kind%-*}; prof=${kind#*-}; run "$bin/throughput" "$pol" "${HANDS_OF[$pol]}" 1 "$prof" > "$f" ;;
        esac
      done
    done
  done
  cat "$RAW"/move/*_1_random-guigang.txt
}

step_threads() {
  local i pol t
  rm -rf "$RAW/threads" && mkdir -p "$RAW/threads"
  for ((i = 1; i <= THREAD_ROUNDS; i++)); do
    for pol in random greedy; do
      for t in 1 2; do
        run "$NEW/throughput" "$pol" "${THREAD_HANDS_OF[$pol]}" "$t" > "$RAW/threads/${t}_${i}_${pol}.txt"
      done
    done
  done
}

step_hearts() {
  run python benches/compare_openspiel.py "${OS_ARGS[@]}" --json "$RAW/hearts.json" | tee "$RAW/hearts.txt"
}

step_search() {
  run python benches/compare_search_openspiel.py "${SEARCH_ARGS[@]}" --json "$RAW/search.json" | tee "$RAW/search.txt"
  run "$NEW/determinize_speed" "$DET_HANDS" > "$RAW/determinize.txt"
}

step_ismcts_threads() {
  run python benches/ismcts_threads.py "${IT_ARGS[@]}" --json "$RAW/ismcts_threads.json" | tee "$RAW/ismcts_threads.txt"
  run python benches/ismcts_threads.py "${IT_ARGS[@]}" --search pimc --json "$RAW/pimc_threads.json" | tee "$RAW/pimc_threads.txt"
}

step_vecenv() {
  run python benches/compare_learning_openspiel.py "${VEC_ARGS[@]}" --json "$RAW/vecenv.json" | tee "$RAW/vecenv.txt"
}

step_observation() {
  rm -rf "$RAW/criterion/observe"
  CRITERION_HOME=$RAW/criterion run cargo bench --profile release -p tractor-core --bench learning -- \
    "${CRIT_ARGS[@]}" '^observe/' > "$RAW/criterion_observe.txt" 2>&1
  grep -E '^observe/|time:' "$RAW/criterion_observe.txt" || true
}

step_solve() {
  run python benches/solve_speed.py "${SOLVE_ARGS[@]}" --json "$RAW/solve.json" | tee "$RAW/solve.txt"
}

step_budgets() {
  run python benches/search_budgets.py "${BUDGET_ARGS[@]}" --json "$RAW/budgets.json" | tee "$RAW/budgets.txt"
}

step_records() {
  run python benches/records_io.py "${REC_ARGS[@]}" --json "$RAW/records.json" | tee "$RAW/records.txt"
}

step_agents() {
  run python benches/agents_speed.py "${AGENT_ARGS[@]}" --json "$RAW/agents.json" | tee "$RAW/agents.txt"
}

step_learner() {
  run python benches/learner_speed.py "${LEARN_ARGS[@]}" --json "$RAW/learner.json" | tee "$RAW/learner.txt"
}

step_memory() {
  run python benches/peak_memory.py "${MEM_ARGS[@]}" --json "$RAW/memory.json" | tee "$RAW/memory.txt"
}

failed=()
for s in "${STEPS[@]}"; do
  load "$s"
  echo "== $s"
  CMD=$RAW/$s.cmd
  : > "$CMD"
  for t in ${TABLES[$s]}; do rm -f "$OUT/tables/$t.md"; done  # no stale table if the step fails
  t0=$SECONDS
  set +e
  (set -e; "step_${s//-/_}")
  rc=$?
  set -e
  echo "step $s: $((SECONDS - t0)) s, exit $rc" >> "$M"
  if [[ $rc -ne 0 ]]; then
    echo "step $s failed (exit $rc); its raw outputs are in $RAW" | tee -a "$OUT/errors.txt" >&2
    failed+=("$s")
    continue
  fi
  # shellcheck disable=SC2086
  python benches/tables.py "$OUT" ${TABLES[$s]} || { echo "tables of step $s failed" | tee -a "$OUT/errors.txt" >&2; failed+=("$s"); }
done

end=$(date +%s)
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$M"
if [[ $# -eq 0 ]]; then
  echo "date: $(date -u -d "@$START" '+%Y-%m-%d %H:%M')–$(date -u -d "@$end" '+%H:%M UTC')" >> "$M"
  echo "duration: $(( (end - START + 30) / 60 )) min" >> "$M"
fi
python benches/tables.py "$OUT" --blocks  # the summary and the run's block, over every table file
python benches/tables.py --page "$OUT" > "$OUT/BENCHMARKS.md"
echo "tables in $OUT/tables, the page in $OUT/BENCHMARKS.md ($(( end - START )) s)"
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "failed steps: ${failed[*]} (see $OUT/errors.txt)" >&2
  exit 1
fi
