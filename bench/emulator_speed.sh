#!/usr/bin/env bash
# bench/emulator_speed.sh — the emulator's speed against UTS's own C code and, when given, an older
# canopy binary, in the same run (docs/emulator.md, "How fast it runs").
#
#   parallel    canopy uts --tree T1 on the parallel scheduler (every core) against mini-uts' sequential
#               depth-first search on one core: wall-clock seconds, both as each program reports them
#   reference   canopy's sequential reference traversal (--reference) against the same mini-uts run
#   uniform     BFS tasks on 4elt, deterministic scheduler, uniform random order (coherent memory)
#   pct         the same in PCT order (--pct-depth 3)
#   timed-ring  BFS tasks on 4elt, scoped-cache model, hrf8, --timed, ring core (the default)
#   timed-lock  the same on the locked core (--queues locked: the HRF paper's design)
# For the emulator rows: seconds, scheduling steps per second (scheduler_steps in the JSON) and the
# simulated cycles of timed runs, so that two binaries are compared at the same simulated work. Every
# time is the median of --reps runs. mini-uts is built here from ../shared/yardsticks/mini-uts with its
# documented build line (never copied into the project).
#
# Usage: bench/emulator_speed.sh [--canopy PATH] [--baseline PATH] [--graph FILE] [--reps N]
#                                [--mini-uts DIR] [--quick]
# Exit: 0 done, 1 a run failed, 2 usage error.
set -euo pipefail
cd "$(dirname "$0")/.."
canopy=build/cpu/cli/canopy baseline="" reps=3 quick=0
graph=/usr/share/doc/libmetis-dev/examples/graphs/4elt.graph
mini=../shared/yardsticks/mini-uts
usage() { sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; }
while (($#)); do
  case $1 in
    --canopy) canopy=$2; shift 2 ;;
    --baseline) baseline=$2; shift 2 ;;
    --graph) graph=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --mini-uts) mini=$2; shift 2 ;;
    --quick) quick=1; reps=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "emulator_speed.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ -x $canopy ]] || { echo "emulator_speed.sh: no canopy binary at $canopy (build the cpu preset first)" >&2; exit 2; }
[[ -z $baseline || -x $baseline ]] || { echo "emulator_speed.sh: no baseline binary at $baseline" >&2; exit 2; }
[[ -f $graph ]] || { echo "emulator_speed.sh: no graph at $graph (tools/deps.sh installs libmetis-doc; or --graph FILE)" >&2; exit 2; }
[[ $reps =~ ^[1-9][0-9]*$ ]] || { echo "emulator_speed.sh: --reps takes a positive integer" >&2; exit 2; }

work=$(mktemp -d /tmp/canopy-emulator-speed.XXXXXX)
trap 'rm -rf "$work"' EXIT
dfs=""
if [[ -f $mini/dfs_main.cpp ]]; then
  (cd "$mini" && g++ -O3 -x c++ dfs_main.cpp rng/brg_sha1.c uts.c -lm -o "$work/dfs") ||
    { echo "emulator_speed.sh: building mini-uts failed" >&2; exit 1; }
  dfs=$work/dfs
else
  echo "emulator_speed.sh: no mini-uts at $mini: its rows are left out" >&2
fi

median() { sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }
# json FIELD: one numeric field of the JSON on stdin, wherever it is nested ("" when absent)
json() { python3 -c 'import json,sys
def find(o, k):
    if isinstance(o, dict):
        if k in o: return o[k]
        for v in o.values():
            r = find(v, k)
            if r is not None: return r
    return None
v = find(json.load(sys.stdin), sys.argv[1]); print("" if v is None else v)' "$1"; }

# run BIN ARGS...: median seconds, then steps and cycles of the last run ("-" when the binary lacks them)
run_canopy() {
  local bin=$1; shift
  local secs=() out steps cycles
  for ((i = 0; i < reps; ++i)); do
    out=$("$bin" "$@" --json) || { echo "emulator_speed.sh: FAILED: $bin $*" >&2; exit 1; }
    secs+=("$(json seconds <<<"$out")")
  done
  steps=$(json scheduler_steps <<<"$out"); cycles=$(json total <<<"$out")
  echo "$(printf '%s\n' "${secs[@]}" | median) ${steps:--} ${cycles:--}"
}
run_dfs() {
  local secs=() t
  for ((i = 0; i < reps; ++i)); do
    t=$("$dfs" -t 1 -a 3 -d 10 -b 4 -r 19 2>&1 | awk '/Wallclock time/ {print $4}')
    secs+=("$t")
  done
  printf '%s\n' "${secs[@]}" | median
}

echo "emulator speed: $canopy${baseline:+ against the baseline $baseline}, $(nproc) cores, median of $reps"
printf '%-11s %9s %12s %11s %10s %9s %8s   %s\n' row seconds steps/s cycles baseline_s speedup vs_mini command
emit() { # name seconds steps cycles baseline_seconds mini_seconds command
  local sps="-" speed="-" vs="-"
  [[ $3 != - ]] && sps=$(awk -v s="$3" -v t="$2" 'BEGIN {printf "%.3g", s / t}')
  [[ $5 != - ]] && speed=$(awk -v b="$5" -v t="$2" 'BEGIN {printf "%.2fx", b / t}')
  [[ $6 != - ]] && vs=$(awk -v m="$6" -v t="$2" 'BEGIN {printf "%.3fx", m / t}')
  printf '%-11s %9.3f %12s %11s %10s %9s %8s   %s\n' "$1" "$2" "$sps" "$4" "$5" "$speed" "$vs" "$7"
}

rows=("parallel|uts --tree T1" "reference|uts --tree T1 --reference")
if ((quick)); then
  rows+=("timed-ring|graph bfs --input $graph --strategy tasks --memory-model scoped --device hrf8 --timed")
else
  rows+=("uniform|graph bfs --input $graph --strategy tasks --scheduler deterministic"
         "pct|graph bfs --input $graph --strategy tasks --scheduler deterministic --pct-depth 3"
         "timed-ring|graph bfs --input $graph --strategy tasks --memory-model scoped --device hrf8 --timed"
         "timed-lock|graph bfs --input $graph --strategy tasks --memory-model scoped --device hrf8 --timed --queues locked")
fi
for r in "${rows[@]}"; do
  name=${r%%|*} args=${r#*|}
  read -r s steps cycles <<<"$(run_canopy "$canopy" $args)"
  b="-"
  [[ -n $baseline ]] && read -r b _ _ <<<"$(run_canopy "$baseline" $args)"
  m="-"
  if [[ -n $dfs && ($name == parallel || $name == reference) ]]; then
    # Paired: mini-uts runs right after, so a machine that slows down slows both (this one varies by
    # a quarter from minute to minute).
    m=$(run_dfs)
    printf '%-11s %9.3f %12s %11s %10s %9s %8s   %s\n' mini-uts "$m" - - - - 1.000x "dfs T1 (one core; paired with the next row)"
  fi
  emit "$name" "$s" "$steps" "$cycles" "$b" "$m" "canopy $args"
done
