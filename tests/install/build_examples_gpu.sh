#!/usr/bin/env bash
# build_examples_gpu.sh BUILD_DIR hip|cuda — what CI can check of a GPU backend's package without a GPU:
# install the preset's build into a fresh prefix (outside the checkout), then configure and compile the
# portable examples against it, unchanged, with the backend's compiler. Nothing runs: there is no GPU
# here. (scoped-bug is cpu-only by design: its package check must refuse a GPU install, which is checked
# too.)
set -euo pipefail
build=$(realpath "$1") backend=$2
src=$(realpath "$(dirname "$0")/../..")
[[ $backend == hip || $backend == cuda ]] || { echo "usage: build_examples_gpu.sh BUILD_DIR hip|cuda" >&2; exit 2; }
# One fixed directory per backend, held under a lock for the run (another run of this script waits):
# nvcc's include flags have the form -isystem=DIR, which ccache does not rewrite relative to its base
# directory, so the prefix's path is part of each example's cache key and must be the same every run.
work=/tmp/canopy-gpu-examples-$backend
exec 9>"$work.lock"
flock 9
rm -rf "$work"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
fail() { echo "build_examples_gpu ($backend): FAIL: $*" >&2; exit 1; }
# canopy's compiler cache, with the work directory as ccache's base (docs/build-cache.md): the next
# run, from whatever clone, hits.
case $backend in
  hip) compiler=(-DCMAKE_CXX_COMPILER=hipcc
                 -DCMAKE_CXX_COMPILER_LAUNCHER="$("$src/tools/ccache_launcher.sh" "$work" --hipcc)") ;;
  cuda) compiler=(-DCMAKE_CUDA_COMPILER="$(command -v nvcc)"
                  -DCMAKE_CUDA_COMPILER_LAUNCHER="$("$src/tools/ccache_launcher.sh" "$work")"
                  -DCMAKE_CXX_COMPILER_LAUNCHER="$("$src/tools/ccache_launcher.sh" "$work")") ;;
esac
cmake --install "$build" --prefix "$work/prefix" >/dev/null
leaks=$(grep -rlF -e "$src" -e "$build" "$work/prefix/include" "$work/prefix/lib/cmake" || true)
[[ -z "$leaks" ]] || fail "installed files name the source or build tree: $leaks"
# One CMake project holding the portable examples, each unchanged in its own directory (a project() in
# a subdirectory is allowed, and find_package there is scoped to it): the backend's compiler is
# detected once, and the sources compile side by side.
examples=(quickstart two-task-types persistent-barrier fib-join mergesort nqueens)
{
  echo "cmake_minimum_required(VERSION 3.25)"
  echo "project(canopy_gpu_examples LANGUAGES CXX)"
  for ex in "${examples[@]}"; do echo "add_subdirectory($ex)"; done
} >"$work/CMakeLists.txt"
for ex in "${examples[@]}"; do cp -r "$src/examples/$ex" "$work/$ex"; done
cmake -S "$work" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release "${compiler[@]}" \
  -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >"$work/examples.log" 2>&1 ||
  { cat "$work/examples.log"; fail "configure"; }
cmake --build "$work/build" >>"$work/examples.log" 2>&1 || { cat "$work/examples.log"; fail "build"; }
! grep -qF "$src/" "$work/build/compile_commands.json" || fail "the build names the checkout"
for ex in "${examples[@]}"; do
  grep -qF "$work/$ex/main.cpp" "$work/build/compile_commands.json" || fail "$ex: not compiled"
  echo "build_examples_gpu ($backend): $ex compiled against the installed package"
done
cp -r "$src/examples/scoped-bug" "$work/scoped-bug"
if cmake -S "$work/scoped-bug" -B "$work/scoped-bug/build" -G Ninja "${compiler[@]}" \
     -DCMAKE_PREFIX_PATH="$work/prefix" >"$work/scoped-bug.log" 2>&1; then
  fail "scoped-bug (COMPONENTS cpu) configured against a $backend install"
fi
grep -q "was built for the $backend backend" "$work/scoped-bug.log" ||
  { cat "$work/scoped-bug.log"; fail "scoped-bug: no 'built for the $backend backend' message"; }
echo "build_examples_gpu ($backend): OK (scoped-bug refused with the backend message)"
