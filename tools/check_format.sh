#!/usr/bin/env bash
# Every tracked C++ file is clang-formatted (.clang-format; Debian 12's clang-format 14).
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files '*.cpp' '*.hpp')
if ! clang-format --dry-run --Werror "${files[@]}" 2>/tmp/canopy-format.log; then
  grep -E "error:" /tmp/canopy-format.log | sed 's/: error:.*//' | sort -u | head -20
  echo "clang-format: the files above are not formatted (run: clang-format -i \$(git ls-files '*.cpp' '*.hpp'))"
  exit 1
fi
echo "clang-format: ${#files[@]} files formatted"
