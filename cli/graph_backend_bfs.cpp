// canopy graph: BFS on the device (graph_backend_parts.hpp).
#include "graph_backend_parts.hpp"

#include "canopy/workloads/graph/strategies.hpp"

namespace canopy::cli::graph_parts {

namespace graph = workloads::graph;

graph_device_outcome bfs(const graph::csr_view& g, std::uint32_t source, const graph::run_options& o) {
    graph_device_outcome out;
    auto r = graph::run<graph::bfs_problem>(g, source, o);
    copy_counts(out, r);
    out.levels = std::move(r.labels);
    return out;
}

} // namespace canopy::cli::graph_parts
