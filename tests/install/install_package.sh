#!/usr/bin/env bash
# install_package.sh BUILD_DIR SOURCE_DIR PREFIX — `cmake --install` canopy's build into a fresh PREFIX,
# then check the installation: the package files, the headers, the canopy command, and that no
# installed file names the source or the build tree (a package must work after both are gone).
set -euo pipefail
build=$1 src=$2 prefix=$3
fail() { echo "install_package: FAIL: $*" >&2; exit 1; }
rm -rf "$prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null
for f in lib/cmake/canopy/canopyConfig.cmake lib/cmake/canopy/canopyConfigVersion.cmake \
         lib/cmake/canopy/canopyTargets.cmake lib/cmake/canopy/canopyKernelSources.cmake \
         include/canopy/version.hpp include/canopy/runtime/runtime.hpp include/canopy/platform/platform.hpp \
         include/canopy/sync/xf_barrier.hpp include/canopy/emulator/options.hpp bin/canopy; do
  [[ -e "$prefix/$f" ]] || fail "$prefix/$f was not installed"
done
for t in platform emulator sync queues runtime workloads graph litmus backend; do
  grep -q "add_library(canopy::$t " "$prefix/lib/cmake/canopy/canopyTargets.cmake" ||
    fail "the package exports no canopy::$t"
done
# Text files only (the libraries and the command legitimately carry debug paths).
leaks=$(grep -rlF -e "$(realpath "$src")" -e "$(realpath "$build")" "$prefix/include" "$prefix/lib/cmake" || true)
[[ -z "$leaks" ]] || fail "installed files name the source or build tree: $leaks"
"$prefix/bin/canopy" --version | grep -q "canopy [0-9]" || fail "the installed canopy --version"
echo "install_package: OK: $(find "$prefix" -type f | wc -l) files under $prefix; no source/build paths"
