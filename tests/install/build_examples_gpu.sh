#!/usr/bin/env bash
# build_examples_gpu.sh BUILD_DIR hip|cuda — what CI can check of a GPU backend's package without a GPU:
# install the preset's build into a fresh prefix (outside the checkout), then configure and compile the
# portable examples against it, unchanged, with the backend's compiler. Nothing runs: there is no GPU
# here. (scoped-bug is cpu-only by design: its package check must refuse a GPU install, which is checked
# too.)
set -euo pipefail
build=$(realpath "$1") backend=$2
src=$(realpath "$(dirname "$0")/../..")
work=$(mktemp -d /tmp/canopy-gpu-examples.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "build_examples_gpu ($backend): FAIL: $*" >&2; exit 1; }
case $backend in
  hip) compiler=(-DCMAKE_CXX_COMPILER=hipcc) ;;
  cuda) compiler=(-DCMAKE_CUDA_COMPILER="$(command -v nvcc)") ;;
  *) echo "usage: build_examples_gpu.sh BUILD_DIR hip|cuda" >&2; exit 2 ;;
esac
cmake --install "$build" --prefix "$work/prefix" >/dev/null
leaks=$(grep -rlF -e "$src" -e "$build" "$work/prefix/include" "$work/prefix/lib/cmake" || true)
[[ -z "$leaks" ]] || fail "installed files name the source or build tree: $leaks"
for ex in quickstart two-task-types persistent-barrier; do
  cp -r "$src/examples/$ex" "$work/$ex"
  cmake -S "$work/$ex" -B "$work/$ex/build" -G Ninja -DCMAKE_BUILD_TYPE=Release "${compiler[@]}" \
    -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >"$work/$ex.log" 2>&1 ||
    { cat "$work/$ex.log"; fail "$ex: configure"; }
  cmake --build "$work/$ex/build" >>"$work/$ex.log" 2>&1 || { cat "$work/$ex.log"; fail "$ex: build"; }
  ! grep -qF "$src/" "$work/$ex/build/compile_commands.json" || fail "$ex: the build names the checkout"
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
