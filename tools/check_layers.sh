#!/usr/bin/env bash
# The house's layers point one way: vocabulary/ <- emulator/ <- platform/ (detail/cpu runs on the
# emulator) <- sync/, queues/, runtime/, workloads/. Nothing below includes what is above it: the
# vocabulary includes only itself and the standard library; the emulator includes the vocabulary and
# itself, never platform/ or a layer above. And kernel code reaches the emulator only through platform/
# (the brief: "kernel code uses platform/ only"): sync/, queues/, runtime/ and workloads/ include no
# canopy/emulator/ (nor the litmus tool). Conditional includes count (`#  include`). Prints offending
# lines and exits 1 if there are any.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
check() { # check <dir> <allowed canopy/ include prefixes...>
  local dir=$1
  shift
  local allowed
  allowed=$(printf '|%s' "$@")
  allowed=${allowed:1}
  local hits
  if hits=$(git grep -nE '# *include *[<"]canopy/' -- "$dir" | grep -vE "# *include *[<\"]canopy/($allowed)/"); then
    echo "$dir includes a layer above it (allowed: $*):"
    echo "$hits"
    status=1
  fi
}
check vocabulary vocabulary
check emulator vocabulary emulator
for dir in sync queues runtime workloads; do
  check $dir vocabulary platform sync queues runtime workloads
done
[[ $status -eq 0 ]] && echo "layer check: vocabulary/ and emulator/ include nothing above them; sync/, queues/, runtime/ and workloads/ reach the emulator only through platform/"
exit $status
