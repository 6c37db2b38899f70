// canopy_graph_runs: BFS's device runs (canopy/workloads/graph/compiled_runs.hpp says why they are here).
#include "canopy/workloads/graph/compiled_runs.hpp"

namespace canopy::workloads::graph::compiled {

run_result<bfs_problem::label> bfs(const csr_view& g, vertex_id source, const run_options& o) {
    return graph::run<bfs_problem>(g, source, o);
}

} // namespace canopy::workloads::graph::compiled
