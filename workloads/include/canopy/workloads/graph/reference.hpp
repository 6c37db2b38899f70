// canopy/workloads/graph/reference.hpp — sequential oracles: the answers every strategy must match.
// Host-only, deliberately plain (a FIFO BFS, a binary-heap Dijkstra) so that they are easy to trust.
#pragma once

#include <cstdint>
#include <vector>

#include "canopy/workloads/graph/csr.hpp"
#include "canopy/workloads/graph/types.hpp"

namespace canopy::workloads::graph {

struct bfs_result {
    std::vector<std::uint32_t> level; // unreached_level where not reached
    std::vector<vertex_id> parent;    // parent[source] == source; no_vertex where not reached
    std::uint64_t reached = 0;        // vertices with a level
    std::uint32_t depth = 0;          // the largest level
    std::uint64_t traversed_arcs = 0; // out-arcs of reached vertices (for TEPS)
};

/// Breadth-first search along out-arcs from `source` (throws std::out_of_range for a bad source). The
/// parent of a vertex is the first of its discoverers in FIFO order.
bfs_result reference_bfs(const csr_graph& g, vertex_id source);

struct sssp_result {
    std::vector<distance_t> distance; // infinite_distance where not reached
    std::vector<vertex_id> parent;    // parent[source] == source; no_vertex where not reached
    std::uint64_t reached = 0;
    distance_t max_distance = 0; // the largest finite distance
    std::uint64_t traversed_arcs = 0;
};

/// Dijkstra from `source` on g's weights (an unweighted graph has unit weights: apply
/// with_hash_weights() first for the project's SSSP rule). Throws std::out_of_range for a bad source.
sssp_result reference_sssp(const csr_graph& g, vertex_id source);

} // namespace canopy::workloads::graph
