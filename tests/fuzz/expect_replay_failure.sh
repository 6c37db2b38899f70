#!/usr/bin/env bash
# tests/fuzz/expect_replay_failure.sh — ctest's proof that a replay can fail:
#   expect_replay_failure.sh KIND MESSAGE REPLAY DIR
# runs REPLAY on DIR with CANOPY_FUZZ_PLANTED_BUG=KIND and passes only when the replay exits non-zero,
# printed MESSAGE (an extended regex), and named an input of DIR as the one it was replaying.
set -uo pipefail
kind=$1 message=$2 replay=$3 dir=$4
out=$(CANOPY_FUZZ_PLANTED_BUG="$kind" "$replay" "$dir" 2>&1)
rc=$?
echo "$out" | tail -3
if [[ $rc -eq 0 ]]; then
  echo "FAIL: the replay passed with CANOPY_FUZZ_PLANTED_BUG=$kind"
  exit 1
fi
grep -qE "$message" <<<"$out" || { echo "FAIL: the replay failed (exit $rc) without '$message'"; exit 1; }
grep -qE "^replay: $dir/" <<<"$out" || { echo "FAIL: the replay did not name the input"; exit 1; }
echo "OK: the replay failed (exit $rc) as it must"
