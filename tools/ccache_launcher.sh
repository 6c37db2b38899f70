#!/usr/bin/env bash
# tools/ccache_launcher.sh BASE_DIR [--hipcc] — the compiler launcher, as a CMake list, for canopy's own
# build (cmake/canopy_ccache.cmake, BASE_DIR the checkout) and for the builds outside it that share its
# compiler cache (docs/build-cache.md): the install tests' examples (tests/install) and the GPU
# backends' examples (tests/install/build_examples_gpu.sh). Prints
#   /usr/bin/env;CCACHE_CONFIGPATH=<checkout>/cmake/ccache.conf;CCACHE_BASEDIR=BASE_DIR;<ccache>
# or nothing where the build should go without the cache: CANOPY_CCACHE=OFF in the environment, no
# ccache, or a cache directory (cmake/ccache.conf's cache_dir, or CCACHE_DIR) that cannot be written.
#
# BASE_DIR is the directory holding everything of that build whose path changes from run to run (the
# example's copy, its build and the install prefix: a mktemp directory, or one named after the build
# tree): ccache hashes paths under it relative to the compile directory, so the next run hits.
# --hipcc: hipcc's compiler check (its --version): hipcc is a Perl script, whose mtime says nothing of
# the clang and device libraries behind it.
set -euo pipefail
base=${1:?usage: ccache_launcher.sh BASE_DIR [--hipcc]}
case "${CANOPY_CCACHE:-ON}" in OFF | off | 0 | NO | no | FALSE | false) exit 0 ;; esac
ccache=$(command -v ccache 2>/dev/null) || exit 0
conf=$(realpath "$(dirname "$0")/../cmake/ccache.conf")
dir=${CCACHE_DIR:-$(sed -n 's/^cache_dir *= *//p' "$conf")}
mkdir -p "$dir" 2>/dev/null && [[ -w "$dir" ]] || exit 0
[[ $base == /* ]] || base=$PWD/$base
launcher="/usr/bin/env;CCACHE_CONFIGPATH=$conf;CCACHE_BASEDIR=$base"
[[ "${2:-}" == --hipcc ]] && launcher+=";CCACHE_COMPILERCHECK=%compiler% --version"
echo "$launcher;$ccache"
