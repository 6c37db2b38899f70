#!/usr/bin/env bash
# hrf_gpu_table.sh CANOPY ROOT: tools/gpu-check.sh --hrf's table, fed by real `canopy uts --json` runs on
# the emulator (the default tree, named as gpu-check names its T1 runs): every run is a row, each
# policy's speedup over hrf-direct is computed from device_ms, the model's column comes from
# bench/hrf_model_speedups.tsv, and a malformed model file is refused with the line it failed on.
set -euo pipefail
canopy=$1 root=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for p in hrf-direct hrf-indirect steal-emulated; do
  "$canopy" uts --tree default --policy "$p" --json >"$work/hrf-ring-T1-$p.json"
done
out=$(python3 "$root/tools/hrf_gpu_table.py" "$work" "$root/bench/hrf_model_speedups.tsv")
echo "$out"
model=$(awk -F'\t' '$1 == "ring" && $2 == "T1" && $3 == "hrf-indirect" { print $5 }' "$root/bench/hrf_model_speedups.tsv")
grep -Eq "^ring +T1 +hrf-indirect +[0-9.]+ +[0-9.]+ +$model " <<<"$out" || { echo "FAIL: no ring T1 hrf-indirect row with the model's $model"; exit 1; }
grep -Eq "^ring +T1 +hrf-direct +[0-9.]+ +1\.000 " <<<"$out" || { echo "FAIL: hrf-direct's own speedup is not 1.000"; exit 1; }
[[ $(wc -l <"$work/hrf.tsv") -eq 4 ]] || { echo "FAIL: hrf.tsv wants a header and 3 rows"; cat "$work/hrf.tsv"; exit 1; }
# The speedups in hrf.tsv are hrf-direct's device_ms over each run's, recomputed here from the JSON.
python3 - "$work" <<'PY'
import json, sys
w = sys.argv[1]
ms = {p: json.load(open(f"{w}/hrf-ring-T1-{p}.json"))["device_ms"] for p in ("hrf-direct", "hrf-indirect", "steal-emulated")}
for line in open(f"{w}/hrf.tsv").read().splitlines()[1:]:
    c = line.split("\t")
    want = ms["hrf-direct"] / ms[c[2]]
    assert abs(float(c[4]) - want) < 1e-9 * want, (c, want)
PY
printf 'ring\tT1\thrf-direct\t1\n' >"$work/bad.tsv"
if python3 "$root/tools/hrf_gpu_table.py" "$work" "$work/bad.tsv" 2>"$work/err"; then
  echo "FAIL: a model row of 4 columns was accepted"; exit 1
fi
grep -q "bad.tsv:1: wants 5 tab-separated columns, has 4" "$work/err" || { echo "FAIL: message"; cat "$work/err"; exit 1; }
echo "ok"
