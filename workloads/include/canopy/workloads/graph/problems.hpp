// canopy/workloads/graph/problems.hpp — the graph problems the strategies (strategies.hpp) solve, as
// small policy structs: a label type, its "unreached" value, the source's label and the relaxation of
// one arc.
//
// BFS and SSSP are both *monotone min-label* problems: label[v] = min over arcs u->v of
// relax(label[u], u->v), label[source] = 0. Any order of relaxations that keeps going while some arc
// can still lower a label reaches the same fixpoint, which is why the same three strategies (level-
// synchronous kernels, a persistent kernel with a barrier, asynchronous tasks) compute both. A problem
// adds nothing but its label arithmetic; PageRank and colouring (the next graph issue) will add
// problems with their own per-phase operator on the same frontier skeleton.
//
// Label widths: BFS levels are 32-bit (a level is below the vertex count, itself below 2^32 - 1, so
// level + 1 never wraps). SSSP distances are 64-bit sums of 32-bit weights (types.hpp): a path of
// fewer than 2^32 arcs cannot overflow, so no overflow handling is needed; infinite_distance
// (2^64 - 1) is never a sum and is never relaxed from (only reached vertices relax their arcs).
#pragma once

#include <cstdint>

#include "canopy/platform/config.hpp"
#include "canopy/workloads/graph/csr_view.hpp"
#include "canopy/workloads/graph/types.hpp"

namespace canopy::workloads::graph {

/// Breadth-first levels: every arc weighs one hop.
struct bfs_problem {
    using label = std::uint32_t;
    static constexpr const char* name = "bfs";
    static constexpr label unreached = unreached_level;
    /// In a level-synchronous phase every write is the same value (level + 1), so a vertex improves at
    /// most once per phase: the strategies need no per-phase de-duplication stamp.
    static constexpr bool improves_once_per_phase = true;
    CANOPY_HOST_DEVICE static label relax(label from, const csr_view&, edge_id) { return from + 1; }
};

/// Single-source shortest-path distances over the graph's weights (unit weights when it has none).
struct sssp_problem {
    using label = distance_t;
    static constexpr const char* name = "sssp";
    static constexpr label unreached = infinite_distance;
    /// Label-correcting: a vertex may be lowered several times in one phase, and must enter the next
    /// frontier once.
    static constexpr bool improves_once_per_phase = false;
    CANOPY_HOST_DEVICE static label relax(label from, const csr_view& g, edge_id e) {
        return from + static_cast<label>(g.weight(e));
    }
};

} // namespace canopy::workloads::graph
