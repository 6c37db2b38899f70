#!/usr/bin/env bash
# mpi_json.sh MPIEXEC RANKS CANOPY COMMAND [canopy flags...]: runs `mpiexec -n RANKS CANOPY COMMAND ...
# --json` and passes when it exits 0 and prints exactly one JSON object (rank 0 reports, the others stay
# silent) saying ok and "ranks": RANKS, with every rank having done part of the work:
#   uts    the tree's published counts (ok), nodes per rank adding up to the nodes;
#   graph  validated (pass --validate), the vertices reached per part adding up to the reached.
# Prints the output on failure.
set -u
mpiexec=$1 ranks=$2 canopy=$3 command=$4
shift 4
# As root (CI's containers) Open MPI needs both variables; more ranks than cores needs oversubscription
# (Open MPI 4's spelling, and 5's).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export PRTE_MCA_rmaps_default_mapping_policy=:oversubscribe
err_file=$(mktemp)
out=$("$mpiexec" -n "$ranks" "$canopy" "$command" --json "$@" 2>"$err_file"); got=$?
err=$(cat "$err_file"); rm -f "$err_file"
if [[ $got -ne 0 ]]; then
  printf 'exit code %s from %s -n %s %s %s --json %s\nstdout:\n%s\nstderr:\n%s\n' "$got" "$mpiexec" \
    "$ranks" "$canopy" "$command" "$*" "$out" "$err"
  exit 1
fi
python3 - "$ranks" "$command" <<PY || { printf 'stderr:\n%s\n' "$err"; exit 1; }
import json, sys
ranks, command = int(sys.argv[1]), sys.argv[2]
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
so = j.get("scale_out", {})
problems = []
if j.get("ok") is not True:
    problems.append("ok is not true")
if j.get("ranks") != ranks:
    problems.append(f"ranks {j.get('ranks')}, wanted {ranks}")
if command == "uts":
    per, total = so.get("nodes_per_rank", []), j.get("nodes")
else:
    per, total = so.get("reached_per_part", []), j.get("reached")
    if j.get("validated") is not True:
        problems.append("not validated (pass --validate)")
if len(per) != ranks or sum(per) != total:
    problems.append(f"per rank {per} does not add up to {total}")
if ranks > 1 and (total or 0) > 1000 and min(per or [0]) == 0:
    problems.append(f"a rank did nothing: {per}")
if problems:
    sys.exit("; ".join(problems) + ":\n" + text)
if command == "uts":
    print(f"ok: {ranks} ranks, {j['nodes']} nodes (published), per rank {per}, "
          f"{so['rounds']} rounds, {so['nodes_moved']} nodes moved, {j['seconds']:.2f} s")
else:
    print(f"ok: {ranks} ranks, {total} vertices reached (validated), per rank {per}, "
          f"{so['vertices_sent']} vertices sent, {j['seconds']:.2f} s")
PY
