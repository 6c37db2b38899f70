#!/usr/bin/env bash
# tools/gpu-check.sh — what canopy can check on a real GPU, in one command (docs/gpu-check.md).
#
# On a machine with an NVIDIA or AMD GPU and canopy's build dependencies (tools/deps.sh), it builds the
# matching preset for the GPU it finds, then runs, each under a time limit so that a hang costs seconds:
#   the GPU test binary (canopy_gpu_tests: every test that can run on a GPU), the relay and donation
#   demos, occupancy discovery (recall = discovered / occupancy) under each protocol, UTS T1, T2, T3 and
#   T4 against the published counts (T1 under every policy and both runtime cores), BFS, SSSP, PageRank
#   and colouring on 4elt and Kronecker 16 under each strategy, validated against the oracles,
# and prints a table of device time, nodes/s, GTEPS and discovery time; --hrf adds the HRF experiment's
# trees x policies beside the timed model, --peers DIR Atos beside canopy. Every result's JSON and
# stderr land in --out.
#
# The lent GPU machines of canopy's workplace have the CUDA toolkit but not Debian's libraries (fmt,
# CLI11, GoogleTest): there, build here with --dry-run (it builds and checks the binaries exist, and
# runs nothing) and run the device side with --no-build --build DIR, carrying DIR and the graphs.
set -uo pipefail
usage() {
  cat <<'EOF'
usage: tools/gpu-check.sh [options]
  --backend cuda|hip   the GPU vendor (default: nvidia-smi or rocminfo decides)
  --arch ARCH          CANOPY_GPU_TARGETS (default: read off the GPU: 90 for an H100, gfx90a, ...)
  --build DIR          the build folder (default build/gpu-check-BACKEND)
  --no-build           use the binaries already in --build (built elsewhere: see above)
  --dry-run            build, check that every binary the checks run exists, run nothing on a GPU
  --graphs DIR         METIS graphs (default /usr/share/doc/libmetis-dev/examples/graphs: 4elt.graph)
  --out DIR            where each check's JSON and stderr go (default gpu-check-out)
  --timeout S          seconds each check may take before it counts as a hang (default 60)
  --quick              UTS T1 and the 4elt graphs only
  --max-hangs N        stop after N checks hang (default 3): a GPU that hangs once will hang again
  --peers DIR          after the checks, Atos (a copy of github.com/owensgroup/ATOS at e11b724 in DIR)
                       beside canopy on this GPU: bench/peers/atos_side_by_side.py, its table and
                       results.json in --out/peers (bench/peers/README.md)
  --peers-args "..."   more arguments for that script (e.g. "--inputs kron18,mdual --prepare")
  --hrf                after the checks, the HRF experiment on this GPU: UTS T1, T2, T3, T4, T5 and T1L
                       under hrf-direct, hrf-indirect and steal-emulated on the ring core, T1 and T3 on
                       the locked core; device ms, donations and steals, each policy's speedup over
                       hrf-direct beside the timed model's (bench/hrf_model_speedups.tsv); --out/hrf.tsv
  --joins              after the checks, fork-join beside GTaP's published figures: canopy_bench_join
                       (fib(32) spawn-only, by joins and by summing joins, 16-queens, UTS T1 by joins and
                       by atomics; kernel ms per policy), its table in --out/joins.txt
  -h, --help           this text
exit status: 0 every check passed, 1 some check failed or hung, 2 usage error
EOF
}
root=$(cd "$(dirname "$0")/.." && pwd)
backend="" arch="" build="" no_build=0 dry=0 quick=0 tmo=60 max_hangs=3 peers="" peers_args="" hrf=0 joins=0
graphs=/usr/share/doc/libmetis-dev/examples/graphs out=gpu-check-out
while (($#)); do
  case $1 in
    --backend) backend=${2:?--backend needs cuda or hip}; shift 2 ;;
    --arch) arch=${2:?--arch needs a target}; shift 2 ;;
    --build) build=${2:?--build needs a folder}; shift 2 ;;
    --no-build) no_build=1; shift ;;
    --dry-run) dry=1; shift ;;
    --graphs) graphs=${2:?--graphs needs a folder}; shift 2 ;;
    --out) out=${2:?--out needs a folder}; shift 2 ;;
    --timeout) tmo=${2:?--timeout needs seconds}; shift 2 ;;
    --quick) quick=1; shift ;;
    --max-hangs) max_hangs=${2:?--max-hangs needs a count}; shift 2 ;;
    --peers) peers=${2:?--peers needs the folder of a fetched Atos}; shift 2 ;;
    --peers-args) peers_args=${2?--peers-args needs a string}; shift 2 ;;
    --hrf) hrf=1; shift ;;
    --joins) joins=1; shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "gpu-check: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ $tmo =~ ^[0-9]+$ && $tmo -gt 0 ]] || { echo "gpu-check: --timeout wants whole seconds > 0" >&2; exit 2; }

# --- the GPU and its backend ---------------------------------------------------------------------
if [[ -z $backend ]]; then
  if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then backend=cuda
  elif command -v rocminfo >/dev/null && rocminfo 2>/dev/null | grep -q 'gfx[0-9]'; then backend=hip
  elif ((dry)); then backend=cuda
  else echo "gpu-check: no GPU found (nvidia-smi and rocminfo see none); --dry-run --backend cuda|hip builds only" >&2; exit 2
  fi
fi
case $backend in cuda | hip) ;; *) echo "gpu-check: --backend must be cuda or hip" >&2; exit 2 ;; esac
if [[ -z $arch ]]; then
  if [[ $backend == cuda ]] && command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
    arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d ' .')
  elif [[ $backend == hip ]] && command -v rocminfo >/dev/null; then
    arch=$(rocminfo | grep -o 'gfx[0-9a-f]*' | head -1)
  else
    arch=$([[ $backend == cuda ]] && echo 90 || echo gfx90a)
  fi
fi
build=${build:-$root/build/gpu-check-$backend}
canopy=$build/cli/canopy
gtests=$build/tests/gpu/canopy_gpu_tests
bench_join=$build/bench/canopy_bench_join

# --- build ---------------------------------------------------------------------------------------
t0=$(date +%s)
if ((!no_build)); then
  echo "gpu-check: building the $backend preset for $arch in $build"
  [[ $backend == cuda ]] && export PATH="/usr/local/cuda/bin:$PATH"
  cmake --preset "$backend" -B "$build" -DCANOPY_GPU_TARGETS="$arch" -DCANOPY_GPU_TESTS=ON -DCANOPY_BUILD_BENCH=ON >"$build.configure.log" 2>&1 ||
    { cat "$build.configure.log"; echo "gpu-check: configure failed (tools/deps.sh installs what is missing)" >&2; exit 1; }
  cmake --build "$build" --target canopy canopy_gpu_tests canopy_bench_join >"$build.build.log" 2>&1 ||
    { tail -50 "$build.build.log"; echo "gpu-check: build failed (log: $build.build.log)" >&2; exit 1; }
  echo "gpu-check: built in $(( $(date +%s) - t0 )) s"
fi
[[ -x $canopy ]] || { echo "gpu-check: $canopy is missing (build without --no-build, or name --build)" >&2; exit 1; }
model=$root/bench/hrf_model_speedups.tsv
if ((hrf)) && [[ ! -f $model ]]; then
  echo "gpu-check: --hrf needs $model (the timed model's table; a checkout of canopy has it)" >&2
  exit 2
fi
if ((dry)); then
  "$canopy" --help | head -1
  "$gtests" --gtest_list_tests | grep -c '^  ' | xargs echo "gpu-check: dry run: GPU tests listed:"
  if ((joins)); then
    [[ -x $bench_join ]] || { echo "gpu-check: --joins needs $bench_join (build it: --target canopy_bench_join)" >&2; exit 1; }
    echo "gpu-check: dry run: $bench_join is built"
  fi
  echo "gpu-check: dry run OK (nothing was run on a GPU)"
  exit 0
fi
[[ -f $graphs/4elt.graph ]] || { echo "gpu-check: $graphs/4elt.graph not found (--graphs DIR; Debian: libmetis-doc)" >&2; exit 2; }

# table: the summary, one row per check, with what it measured.
table() {
python3 - "$out" "$summary" <<'EOF'
import json, sys, os
out, summary = sys.argv[1], sys.argv[2]
rows = [l.rstrip("\n").split("\t") for l in open(summary)]
print(f"\n{'check':40} {'result':6} {'wall s':>7}  measure (device ms: the kernels alone, GPU events)")
for name, kind, status, rc, secs in rows:
    m = ""
    try:
        j = json.load(open(os.path.join(out, name + ".json")))
    except Exception:
        j = None
    if j and status == "PASS":
        # device ms: the kernels alone (GPU events; platform/kernel_timer.hpp); wall: the host's view
        # (UTS: the launch; graphs: the first allocation to the labels read back).
        dev = j.get('device_ms')
        dms = f"{dev:.3f}" if isinstance(dev, (int, float)) else "-"
        if kind in ("uts", "hrf"):
            m = f"device {dms} ms  {j.get('nodes_per_device_second', 0)/1e6:.1f} M nodes/s  {j['nodes']:,} nodes  (wall {j['seconds']*1e3:.2f} ms)"
        elif kind == "graph":
            gt = j.get('gteps')
            gts = f"{gt:.3f} GTEPS  " if isinstance(gt, (int, float)) else ""
            m = f"device {dms} ms (kernels {j.get('kernels_ms') or 0:.3f} ms, {j.get('kernels')} launches)  {gts}wall {j.get('seconds', 0)*1e3:.2f} ms  validated {j.get('validated')}"
        elif kind == "discover":
            m = f"recall {j['discovered']}/{j['occupancy']} = {j['discovered']/max(1,j['occupancy']):.2f}  {j['seconds']*1e6:.0f} us"
        elif kind == "demo":
            m = f"ok {j.get('ok')}  {j.get('seconds', 0)*1e3:.2f} ms  work-groups {j.get('work_groups', '')}"
    print(f"{name:40} {status:6} {float(secs):7.2f}  {m}")
EOF
}

# --- checks --------------------------------------------------------------------------------------
mkdir -p "$out"
summary=$out/summary.tsv
: >"$summary"
failed=0 hangs=0
# check NAME KIND -- COMMAND...: runs it under the time limit; the JSON goes to $out/NAME.json.
check() {
  local name=$1 kind=$2; shift 3
  local s e rc status secs
  s=$(date +%s.%N)
  timeout -k 5 "$tmo" "$@" >"$out/$name.json" 2>"$out/$name.err"
  rc=$?
  e=$(date +%s.%N)
  case $rc in
    0) status=PASS ;;
    124 | 137) status=HANG ;;
    *) status=FAIL ;;
  esac
  [[ $status == PASS ]] || failed=$((failed + 1))
  secs=$(awk -v s="$s" -v e="$e" 'BEGIN { printf "%.2f", e - s }')
  printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$kind" "$status" "$rc" "$secs" >>"$summary"
  printf 'gpu-check: %-40s %-4s (%s s)\n' "$name" "$status" "$secs"
  [[ $status == PASS ]] || sed 's/^/    | /' "$out/$name.err" | tail -5
  if [[ $status == HANG ]]; then
    hangs=$((hangs + 1))
    ((hangs < max_hangs)) || { echo "gpu-check: $hangs hangs: the rest is skipped (--max-hangs)" >&2; table; exit 1; }
  fi
}

check info info -- "$canopy" info
if [[ -x $gtests ]]; then check gtests gtest -- "$gtests" --gtest_brief=1; else echo "gpu-check: no $gtests: GPU tests skipped"; fi
check demo-relay demo -- "$canopy" demo --json --laps 100
check demo-donation-by-copy demo -- "$canopy" demo --kernel donation-by-copy --json
for p in counter ticket spin; do
  for b in 64 256 1024; do check "discover-$p-$b" discover -- "$canopy" discover --protocol $p --block-size $b --json; done
done
trees=(T1 T2 T3 T4)
((quick)) && trees=(T1)
for t in "${trees[@]}"; do check "uts-$t" uts -- "$canopy" uts --tree "$t" --json; done
for q in ring locked; do
  for p in hrf-direct hrf-indirect steal-emulated; do
    check "uts-T1-$q-$p" uts -- "$canopy" uts --tree T1 --queues $q --policy $p --json
  done
done
check uts-T1-block256 uts -- "$canopy" uts --tree T1 --block-size 256 --json
inputs=("4elt:--input $graphs/4elt.graph")
# Kronecker graphs have isolated vertices (Graph500 searches from non-isolated roots): the largest degree.
((quick)) || inputs+=("kron16:--kronecker 16 --source max-degree")
for in in "${inputs[@]}"; do
  g=${in%%:*} flags=${in#*:}
  for a in bfs sssp pagerank color; do
    for s in multi-kernel persistent tasks; do
      # shellcheck disable=SC2086 # flags holds several words on purpose
      check "graph-$a-$g-$s" graph -- "$canopy" graph $a $flags --strategy $s --validate --json
    done
  done
done

table

# The HRF experiment on real scopes (docs/hrf-experiment.md): device time per tree x policy x core,
# each policy's speedup over hrf-direct on this GPU beside the timed model's for the same tree shape.
hrf_table() {
  python3 "$root/tools/hrf_gpu_table.py" "$out" "$model"
}
if ((hrf)); then
  echo
  echo "gpu-check: the HRF experiment on this GPU (device times beside $model)"
  for t in T1 T2 T3 T4 T5 T1L; do
    for p in hrf-direct hrf-indirect steal-emulated; do
      check "hrf-ring-$t-$p" hrf -- "$canopy" uts --tree "$t" --queues ring --policy "$p" --json
    done
  done
  for t in T1 T3; do
    for p in hrf-direct hrf-indirect steal-emulated; do
      check "hrf-locked-$t-$p" hrf -- "$canopy" uts --tree "$t" --queues locked --policy "$p" --json
    done
  done
  hrf_table
fi
if ((joins)); then
  # Fork-join beside GTaP's published figures: one bench run, its own table, every result checked.
  echo
  echo "gpu-check: fork-join on this GPU (canopy_bench_join; GTaP's published GH200 figures in its header line)"
  if timeout -k 5 $((tmo * 10)) "$bench_join" >"$out/joins.txt" 2>"$out/joins.err"; then
    cat "$out/joins.txt"
  else
    cat "$out/joins.txt" "$out/joins.err"
    echo "gpu-check: canopy_bench_join failed or hung (its output above; results in $out/joins.txt)"
    failed=$((failed + 1))
  fi
fi
if [[ -n $peers ]]; then
  # One implementation of the side-by-side run: the bench script (it builds Atos, writes the inputs
  # through canopy's --write-graph, checks both answers and prints its own table).
  echo
  echo "gpu-check: Atos beside canopy (bench/peers/atos_side_by_side.py --atos $peers)"
  # shellcheck disable=SC2086 # peers_args holds several words on purpose
  if ! python3 "$root/bench/peers/atos_side_by_side.py" --atos "$peers" --canopy "$canopy" --work "$out/peers" \
    $peers_args; then
    echo "gpu-check: the peers run failed (its messages above; results in $out/peers)"
    failed=$((failed + 1))
  fi
fi
echo
echo "gpu-check: $failed failed or hung, $(wc -l <"$summary") checks, $(( $(date +%s) - t0 )) s (results in $out)"
((failed == 0))
