#!/usr/bin/env bash
# Kernel and host code outside platform/ must not name a vendor API (DESIGN.md §1): everything goes
# through canopy's portability layer. Prints offending lines and exits 1 if there are any.
set -euo pipefail
cd "$(dirname "$0")/.."
pattern='__shfl|__ballot|atomicAdd|__syncthreads|__builtin_amdgcn_|\bhip[A-Z][A-Za-z]*\(|\bcuda[A-Z][A-Za-z]*\(|#include *[<"](hip|cuda|cub|rocprim)/'
dirs=(emulator sync queues runtime workloads cli bench tests)
# The one exception: tests/codegen/rocm7_warpsize.cpp includes HIP's and rocPRIM's headers itself, before
# redefining warpSize, to recreate ROCm 7 (where warpSize is not a constant expression) for platform/.
exempt=(':!tests/codegen/rocm7_warpsize.cpp')
existing=()
for d in "${dirs[@]}"; do [[ -d $d ]] && existing+=("$d"); done
if hits=$(git grep -nE "$pattern" -- "${existing[@]/%//*.cpp}" "${existing[@]/%//*.hpp}" "${exempt[@]}" 2>/dev/null); then
  echo "vendor API names outside platform/ (use canopy's platform/ instead):"
  echo "$hits"
  exit 1
fi
echo "vendor-name check: no vendor API names outside platform/"
