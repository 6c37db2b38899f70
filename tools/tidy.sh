#!/usr/bin/env bash
# tools/tidy.sh [--build DIR] [--jobs N] [FILE...]: clang-tidy (.clang-tidy's checks, every warning an
# error) over FILEs, or over the host-side libraries' sources by default (emulator, litmus, graph
# loaders and oracles: the code that parses others' files and models the GPU). DIR must hold a
# compile_commands.json from a clang-built cpu preset (cpu-asan; every preset exports one). Exits 1 on
# any finding. The whole tree (cli/, tests/, bench/) is `tools/tidy.sh $(git ls-files '*.cpp')`: about
# 30 s a file on 2 cores, so CI runs the default set only.
set -euo pipefail
cd "$(dirname "$0")/.."
build=build/cpu-asan
jobs=2
files=()
while (($#)); do
  case $1 in
    --build) build=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    -h|--help) sed -n '2,7p' "$0"; exit 0 ;;
    *) files+=("$1"); shift ;;
  esac
done
if [[ ! -f $build/compile_commands.json ]]; then
  echo "tools/tidy.sh: $build/compile_commands.json not found: configure first (cmake --preset cpu-asan)" >&2
  exit 2
fi
command -v clang-tidy >/dev/null || { echo "tools/tidy.sh: clang-tidy not found (tools/deps.sh installs it)" >&2; exit 2; }
if ((${#files[@]} == 0)); then
  mapfile -t files < <(git ls-files 'emulator/src/*.cpp' 'litmus/src/*.cpp' 'workloads/src/*.cpp')
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
printf '%s\n' "${files[@]}" | xargs -P "$jobs" -I{} sh -c \
  'clang-tidy -p "$0" --quiet "$1" >>"$2.$$" 2>&1 || echo "FAILED $1" >>"$2.$$"; cat "$2.$$" >>"$2"; rm -f "$2.$$"' \
  "$build" {} "$log"
if grep -qE '(warning|error):|^FAILED ' "$log"; then
  grep -vE '^[0-9]+ warnings? (and [0-9]+ errors? )?generated\.$' "$log"
  echo "tools/tidy.sh: clang-tidy found the above in ${#files[@]} file(s)" >&2
  exit 1
fi
echo "tools/tidy.sh: ${#files[@]} file(s) clean"
