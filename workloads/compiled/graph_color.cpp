// canopy_graph_runs: colouring's device runs (canopy/workloads/graph/compiled_runs.hpp says why they are
// here).
#include "canopy/workloads/graph/coloring.hpp"
#include "canopy/workloads/graph/compiled_runs.hpp"

namespace canopy::workloads::graph::compiled {

run_result<std::uint32_t> color(const csr_view& g, const run_options& o) { return graph::run_color(g, o); }

} // namespace canopy::workloads::graph::compiled
