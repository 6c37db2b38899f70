#!/usr/bin/env bash
# Installs what canopy needs from Debian 12's packages (only what is missing). With --gpu, also the
# AMD toolchain (hipcc, rocPRIM) that the hip preset builds with; nvcc comes with the CUDA toolkit.
set -euo pipefail
# Graphs: libmetis-doc ships real meshes (/usr/share/doc/libmetis-dev/examples/graphs/*.graph, plain
# text) for tests and benches; libboost-graph-dev is the tests' independent Dijkstra/BFS; zlib1g-dev lets
# the loaders read .gz edge lists (docs/graph.md).
# python3-matplotlib: bench/plot_hrf_experiment.py draws the HRF experiment's plot (and its ctest) with it.
# clang + libclang-rt-14-dev: the cpu-asan preset is clang's ASan+UBSan build, with the libFuzzer targets
# (tools/fuzz.sh, docs/fuzzing.md); libFuzzer and the sanitizer runtimes are only a Recommends of
# clang-14, which --no-install-recommends would skip. clang-tidy: tools/tidy.sh (.clang-tidy).
# libopenmpi-dev + openmpi-bin: canopy uts under mpirun (docs/scale-out.md); without them canopy builds
# the same, without MPI.
pkgs=(cmake ninja-build ccache g++ clang libclang-rt-14-dev clang-tidy clang-format libfmt-dev libgtest-dev libboost-context-dev libcli11-dev
      nlohmann-json3-dev libmetis-doc libboost-graph-dev zlib1g-dev python3-matplotlib libopenmpi-dev openmpi-bin)
if [[ "${1:-}" == "--gpu" ]]; then
  pkgs+=(hipcc libamdhip64-dev librocprim-dev rocm-device-libs)
fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  [[ $(id -u) -ne 0 ]] && sudo="sudo"
  echo "tools/deps.sh: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
