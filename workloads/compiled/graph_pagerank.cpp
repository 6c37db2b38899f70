// canopy_graph_runs: PageRank's device runs (canopy/workloads/graph/compiled_runs.hpp says why they are
// here).
#include "canopy/workloads/graph/compiled_runs.hpp"

namespace canopy::workloads::graph::compiled {

run_result<double> pagerank(const csr_view& g, const pagerank_options& p, const run_options& o) {
    return graph::run_pagerank(g, p, o);
}

} // namespace canopy::workloads::graph::compiled
