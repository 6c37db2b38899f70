#!/usr/bin/env bash
# mpi_uts.sh MPIEXEC RANKS CANOPY TREE [canopy uts flags...]: runs `mpiexec -n RANKS CANOPY uts --tree
# TREE --json` and passes when it exits 0 and prints exactly one JSON object (rank 0 reports, the others
# stay silent) saying ok, the tree's published counts and "ranks": RANKS, with every rank having run
# part of the tree. Prints the output on failure.
set -u
mpiexec=$1 ranks=$2 canopy=$3 tree=$4
shift 4
# As root (CI's containers) Open MPI needs both variables; more ranks than cores needs oversubscription
# (Open MPI 4's spelling, and 5's).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export PRTE_MCA_rmaps_default_mapping_policy=:oversubscribe
out=$("$mpiexec" -n "$ranks" "$canopy" uts --tree "$tree" --json "$@" 2>/tmp/mpi_uts_err.$$); got=$?
err=$(cat /tmp/mpi_uts_err.$$); rm -f /tmp/mpi_uts_err.$$
if [[ $got -ne 0 ]]; then
  printf 'exit code %s from %s -n %s %s uts --tree %s --json %s\nstdout:\n%s\nstderr:\n%s\n' "$got" "$mpiexec" \
    "$ranks" "$canopy" "$tree" "$*" "$out" "$err"
  exit 1
fi
python3 - "$ranks" <<PY || { printf 'stderr:\n%s\n' "$err"; exit 1; }
import json, sys
ranks = int(sys.argv[1])
text = """$out"""
dec = json.JSONDecoder()
objs, i = [], 0
while i < len(text):
    while i < len(text) and text[i].isspace():
        i += 1
    if i == len(text):
        break
    o, i = dec.raw_decode(text, i)
    objs.append(o)
if len(objs) != 1:
    sys.exit(f"{len(objs)} JSON objects on stdout, wanted exactly one (rank 0's):\n{text}")
j = objs[0]
problems = []
if j.get("ok") is not True:
    problems.append("ok is not true")
if j.get("ranks") != ranks:
    problems.append(f"ranks {j.get('ranks')}, wanted {ranks}")
per = j.get("scale_out", {}).get("nodes_per_rank", [])
if len(per) != ranks or sum(per) != j.get("nodes"):
    problems.append(f"nodes per rank {per} do not add up to {j.get('nodes')}")
if ranks > 1 and j.get("nodes", 0) > 1000 and min(per or [0]) == 0:
    problems.append(f"a rank ran nothing: {per}")
if problems:
    sys.exit("; ".join(problems) + ":\n" + text)
print(f"ok: {ranks} ranks, {j['nodes']} nodes (published), per rank {per}, "
      f"{j['scale_out']['rounds']} rounds, {j['scale_out']['nodes_moved']} nodes moved, {j['seconds']:.2f} s")
PY
