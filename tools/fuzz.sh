#!/usr/bin/env bash
# tools/fuzz.sh — runs canopy's libFuzzer targets (docs/fuzzing.md): configures and builds a clang
# ASan+UBSan fuzz build where there is none, runs every target for N seconds from the seed corpus and
# the regressions, prints each target's executions, exec/s, coverage and corpus size, and exits 1 on any
# finding, naming the input and the command that replays it.
#
#   tools/fuzz.sh [--seconds-per-target N] [--jobs J] [--build DIR] [targets...]
#
#   --seconds-per-target N  libFuzzer's -max_total_time per target (60; CI). A long run: 1200 x 3 = 1 CPU-hour.
#   --jobs J                targets run J at a time, one process each (1)
#   --build DIR             the fuzz build (build/fuzz); configured here when it has no build.ninja
#   --timeout S             seconds one input may take (10); libFuzzer's clock is wall time, so a long
#                           run nice'd beside other work needs more (a timeout is also re-checked by replay)
#   targets                 litmus uts_flags graph (all)
#
# The working corpus is DIR/fuzz-work/<target>/corpus: libFuzzer writes new inputs there only (the repo's
# tests/fuzz/corpus and regressions are read, never written), and it is kept between runs, so that
# successive runs build on each other (delete it to start over). Findings go to DIR/fuzz-findings/<target>/.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
seconds=60
jobs=1
per_input_timeout=10 # seconds one input may take (libFuzzer -timeout)
build=build/fuzz
targets=()
all_targets=(litmus uts_flags graph)
while [[ $# -gt 0 ]]; do
  case "$1" in
    --seconds-per-target) seconds=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --timeout) per_input_timeout=$2; shift 2 ;;
    -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
[[ ${#targets[@]} -eq 0 ]] && targets=("${all_targets[@]}")
for t in "${targets[@]}"; do
  [[ " ${all_targets[*]} " == *" $t "* ]] || { echo "fuzz.sh: unknown target $t (targets: ${all_targets[*]})" >&2; exit 2; }
done
[[ "$seconds" =~ ^[0-9]+$ && "$jobs" =~ ^[1-9][0-9]*$ ]] || { echo "fuzz.sh: N and J are positive integers" >&2; exit 2; }
[[ "$build" = /* ]] || build="$root/$build"

if [[ ! -f "$build/build.ninja" ]]; then
  echo "fuzz.sh: configuring the fuzz build in $build (clang 14, ASan+UBSan, CANOPY_FUZZ=ON)"
  nice -n 19 cmake -S "$root" -B "$build" -G Ninja -DCANOPY_BACKEND=cpu -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" \
    -DCANOPY_SANITIZE="address;undefined" -DCANOPY_FUZZ=ON -DCANOPY_WERROR=ON -DCANOPY_BUILD_BENCH=OFF >/dev/null
fi
build_targets=()
for t in "${targets[@]}"; do build_targets+=("canopy_fuzz_$t" "canopy_fuzz_replay_$t"); done
nice -n 19 cmake --build "$build" --target "${build_targets[@]}"

# Per target: the longest input worth trying, the seed directories beyond tests/fuzz/{corpus,regressions}/T.
max_len() { case "$1" in uts_flags) echo 256 ;; *) echo 4096 ;; esac; }
extra_seeds() { case "$1" in litmus) echo "$root/tests/litmus/cases" ;; esac; }

run_one() {
  local t=$1
  local work="$build/fuzz-work/$t" findings="$build/fuzz-findings/$t"
  mkdir -p "$work/corpus" "$findings"
  local seeds=("$root/tests/fuzz/corpus/$t" "$root/tests/fuzz/regressions/$t")
  local extra; extra=$(extra_seeds "$t")
  [[ -n "$extra" && -d "$extra" ]] && seeds+=("$extra")
  local dict=()
  [[ -f "$root/tests/fuzz/$t.dict" ]] && dict=("-dict=$root/tests/fuzz/$t.dict")
  local log="$work/last-run.log" rc=0
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1} \
    nice -n 19 "$build/tests/fuzz/canopy_fuzz_$t" "$work/corpus" "${seeds[@]}" "${dict[@]}" \
    -max_total_time="$seconds" -print_final_stats=1 -rss_limit_mb=2048 -malloc_limit_mb=2048 \
    -max_len="$(max_len "$t")" -timeout="$per_input_timeout" -artifact_prefix="$findings/" >"$log" 2>&1 || rc=$?
  local done_line; done_line=$(grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE|INITED)' "$log" | tail -1 || true)
  local execs rate cov ft
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$done_line")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$done_line")
  printf '%-10s %5ss  execs %-10s exec/s %-7s cov %-6s ft %-6s corpus %s files\n' "$t" "$seconds" \
    "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "$(find "$work/corpus" -type f | wc -l)"
  local found; found=$(grep -oE "Test unit written to [^ ]+" "$log" | sed 's/Test unit written to //' || true)
  if [[ -n "$found" ]] && grep -q 'SUMMARY: libFuzzer: timeout' "$log"; then
    # libFuzzer's -timeout is wall time: on a busy machine (a nice'd long run beside a build) a starved
    # process trips it on any input. A timeout counts only when the input is slow on its own: replay it.
    local slow=0 f
    for f in $found; do
      timeout "$per_input_timeout" "$build/tests/fuzz/canopy_fuzz_replay_$t" "$f" >/dev/null 2>&1 || slow=1
    done
    if [[ $slow -eq 0 ]]; then
      echo "$t: libFuzzer stopped at a timeout that its replay does not reproduce (the machine was busy;" \
        "not a finding; the run ended early): $found"
      return 0
    fi
  fi
  if [[ $rc -ne 0 || -n "$found" ]]; then
    echo "FINDING in $t (libFuzzer exit $rc); log: $log"
    grep -E '^(==[0-9]+==ERROR|SUMMARY|canopy fuzz check failed|.*runtime error:|terminate called)' "$log" | head -5 || true
    for f in $found; do
      echo "  input:  $f"
      echo "  replay: $build/tests/fuzz/canopy_fuzz_replay_$t $f"
      echo "  (minimize: $build/tests/fuzz/canopy_fuzz_$t -minimize_crash=1 -runs=10000 $f; then copy it to tests/fuzz/regressions/$t/)"
    done
    return 1
  fi
  return 0
}

status=0
pids=()
for t in "${targets[@]}"; do
  run_one "$t" &
  pids+=($!)
  if [[ ${#pids[@]} -ge $jobs ]]; then
    wait "${pids[0]}" || status=1
    pids=("${pids[@]:1}")
  fi
done
for p in "${pids[@]}"; do wait "$p" || status=1; done
[[ $status -eq 0 ]] && echo "fuzz.sh: no findings (${#targets[@]} targets x ${seconds}s)" || echo "fuzz.sh: FINDINGS above"
exit $status
