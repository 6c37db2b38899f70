// BFS over a 1-D block partition of the vertices (canopy/workloads/graph/partitioned_bfs.hpp), compiled
// once in canopy_graph_runs behind a plain interface: host-only callers (the canopy command's MPI
// driver, which includes nothing from platform/) hold a part through it, and every part in one process
// runs through bfs_partitioned (canopy graph bfs --devices D, the tests).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "canopy/workloads/graph/csr.hpp"
#include "canopy/workloads/graph/partition.hpp"
#include "canopy/workloads/graph/types.hpp"

namespace canopy::workloads::graph {
class bfs_part;
}

namespace canopy::workloads::graph::compiled {

/// graph::bfs_part: one part's device state and its two steps (expand, receive).
class partitioned_bfs_part {
  public:
    /// Part `me` of `parts` (block_partition over g's vertices); kernels of `block` work-items.
    partitioned_bfs_part(const csr_graph& g, unsigned parts, unsigned me, unsigned block);
    ~partitioned_bfs_part();
    partitioned_bfs_part(const partitioned_bfs_part&) = delete;
    partitioned_bfs_part& operator=(const partitioned_bfs_part&) = delete;

    void seed(vertex_id source);
    /// The remote vertices the level reached, by owning part, each once over the search.
    std::vector<std::vector<vertex_id>> expand();
    /// Claims what the other parts sent; ends the level; returns the next frontier's size.
    std::uint64_t receive(const std::vector<vertex_id>& in);
    /// The part's vertices' levels (unreached_level where not reached), in vertex order.
    std::vector<std::uint32_t> levels() const;
    std::uint64_t launches() const;
    std::uint64_t remote_arcs() const;
    std::uint64_t sent() const;

  private:
    std::unique_ptr<bfs_part> p_;
};

struct partitioned_bfs_result {
    std::vector<std::uint32_t> levels; // the whole graph's, in vertex order
    std::uint64_t iterations = 0;      // BFS levels run (the last finds nothing)
    std::uint64_t launches = 0;        // kernels, over every part
    std::uint64_t remote_arcs = 0;     // arcs whose target another part owns, expanded
    std::uint64_t sent = 0;            // vertices exchanged (remote_arcs less the duplicates)
    std::vector<std::uint64_t> reached_per_part;
    double seconds = 0; // from the first launch to the levels read back
};

/// Every part of the partition in this process, one after the other in each step; the exchange is a
/// copy. Exact for any `parts` >= 1 (throws canopy::error for 0 or a source out of range).
partitioned_bfs_result bfs_partitioned(const csr_graph& g, vertex_id source, unsigned parts, unsigned block);

} // namespace canopy::workloads::graph::compiled
