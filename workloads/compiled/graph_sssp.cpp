// canopy_graph_runs: SSSP's device runs (canopy/workloads/graph/compiled_runs.hpp says why they are here).
#include "canopy/workloads/graph/compiled_runs.hpp"

namespace canopy::workloads::graph::compiled {

run_result<sssp_problem::label> sssp(const csr_view& g, vertex_id source, const run_options& o) {
    return graph::run<sssp_problem>(g, source, o);
}

} // namespace canopy::workloads::graph::compiled
