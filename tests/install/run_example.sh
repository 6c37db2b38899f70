#!/usr/bin/env bash
# run_example.sh PREFIX EXAMPLE_DIR WORK_DIR CXX REGEX [ARGS...] — build an example as a user would:
# copy it out of the source tree, configure it against the installed canopy at PREFIX only
# (CMAKE_PREFIX_PATH), build it with warnings as errors, run it with ARGS and check that it exits 0 and
# prints a line matching REGEX (grep -E).
set -euo pipefail
prefix=$1 example=$2 work=$3 cxx=$4 regex=$5
shift 5
name=$(basename "$example")
fail() { echo "run_example $name: FAIL: $*" >&2; exit 1; }
rm -rf "$work"
mkdir -p "$work"
cp -r "$example" "$work/src"
# canopy's compiler cache, with the directory holding this example's copy and the prefix as ccache's
# base: the next run of the suite, in this clone or another, hits (docs/build-cache.md).
launcher=$("$(dirname "$0")/../../tools/ccache_launcher.sh" "$(dirname "$work")")
cmake -S "$work/src" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CXX_FLAGS="-Wall -Wextra -Wpedantic -Werror" \
  -DCMAKE_CXX_COMPILER_LAUNCHER="$launcher" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >"$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; fail "configure against $prefix"; }
cmake --build "$work/build" >"$work/build.log" 2>&1 || { cat "$work/build.log"; fail "build"; }
# The example must have been compiled from the installed headers, not canopy's source tree.
canopy_src=$(realpath "$(dirname "$0")/../..")
if grep -qF "$canopy_src/" "$work/build/compile_commands.json"; then
  fail "the build names canopy's source tree ($canopy_src): $(grep -oF "$canopy_src/[^ \"]*" \
    "$work/build/compile_commands.json" | head -1)"
fi
exe=$(find "$work/build" -maxdepth 1 -type f -perm -u+x | head -1)
[[ -n "$exe" ]] || fail "no executable was built"
echo "+ $exe $*"
set +e
out=$("$exe" "$@" 2>&1)
code=$?
set -e
echo "$out"
[[ $code -eq 0 ]] || fail "exit code $code"
echo "$out" | grep -qE "$regex" || fail "no line matches /$regex/"
echo "run_example $name: OK"
