#!/usr/bin/env bash
# canopy graph --write-graph round trip: the graph canopy builds (Kronecker, with its duplicate arcs
# removed and its edges stored both ways) is written as Matrix Market, read back by --input, and BFS
# from the same source gives the same level for every vertex; the file's header counts match the run's.
# --write-only writes and stops. A directory that does not exist is a clear error (exit 1), not a crash.
set -euo pipefail
canopy=$1
dir=$(mktemp -d "${TMPDIR:-/tmp}/canopy-write-graph.XXXXXX")
trap 'rm -rf "$dir"' EXIT
"$canopy" graph bfs --kronecker 9 --source max-degree --write-graph "$dir/k9.mtx" --output "$dir/built.txt" >"$dir/run1"
"$canopy" graph bfs --input "$dir/k9.mtx" --source max-degree --output "$dir/read.txt" >"$dir/run2"
[ "$(sed -n 1p "$dir/k9.mtx")" = "%%MatrixMarket matrix coordinate pattern general" ] ||
  { echo "FAIL: not a Matrix Market pattern header"; exit 1; }
arcs=$(awk '!/^%/ { print $3; exit }' "$dir/k9.mtx")
lines=$(grep -vc '^%' "$dir/k9.mtx")
[ "$lines" -eq $((arcs + 1)) ] || { echo "FAIL: header says $arcs arcs, the file has $((lines - 1))"; exit 1; }
reached=$(awk '$2 != -1' "$dir/built.txt" | wc -l)
[ "$reached" -gt 100 ] || { echo "FAIL: BFS from the max-degree vertex reached only $reached vertices"; exit 1; }
cmp -s "$dir/built.txt" "$dir/read.txt" || { echo "FAIL: BFS levels differ between the built and the re-read graph"; diff "$dir/built.txt" "$dir/read.txt" | head; exit 1; }
"$canopy" graph bfs --grid 3x5 --write-graph "$dir/g.mtx" --write-only >"$dir/run3"
grep -q "wrote $dir/g.mtx: 15 vertices, 44 arcs" "$dir/run3" || { echo "FAIL: --write-only said:"; cat "$dir/run3"; exit 1; }
grep -q "validated\|levels" "$dir/run3" && { echo "FAIL: --write-only ran the algorithm"; exit 1; }
set +e
"$canopy" graph bfs --grid 4x4 --write-graph "$dir/no/such/dir/g.mtx" >"$dir/out3" 2>&1
rc=$?
set -e
[ "$rc" -eq 1 ] || { echo "FAIL: an unwritable --write-graph path exited $rc, not 1"; cat "$dir/out3"; exit 1; }
grep -q "cannot write" "$dir/out3" || { echo "FAIL: no 'cannot write' message"; cat "$dir/out3"; exit 1; }
echo "write-graph round trip: $arcs arcs, same BFS levels ($reached vertices reached); an unwritable path exits 1"
