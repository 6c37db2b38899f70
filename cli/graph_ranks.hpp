// canopy graph bfs over a 1-D block partition of the vertices (canopy/workloads/graph/partitioned_bfs.hpp,
// docs/scale-out.md): one part per rank under mpirun, or every part in this process with --devices.
// Host-only.
#pragma once

#include <cstdint>

#include "canopy/workloads/graph/csr.hpp"
#include "graph_backend.hpp"
#include "mpi_world.hpp"

namespace canopy::cli {

/// This rank's part of the BFS; the levels of the whole graph come back on rank 0 only (the other
/// ranks' `levels` are empty). Every rank must call it (it is collective).
graph_device_outcome run_bfs_ranks(const workloads::graph::csr_graph& g, std::uint32_t source, unsigned block,
                                   const mpi::session& world);

/// Every part in this process, one after the other (compiled::bfs_partitioned).
graph_device_outcome run_bfs_devices(const workloads::graph::csr_graph& g, std::uint32_t source,
                                     unsigned block, unsigned devices);

} // namespace canopy::cli
