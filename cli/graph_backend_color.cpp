// canopy graph: colouring on the device (graph_backend_parts.hpp).
#include "graph_backend_parts.hpp"

#include "canopy/workloads/graph/coloring.hpp"

namespace canopy::cli::graph_parts {

namespace graph = workloads::graph;

graph_device_outcome color(const graph::csr_view& g, const graph::run_options& o) {
    graph_device_outcome out;
    auto r = graph::run_color(g, o);
    copy_counts(out, r);
    out.colors = std::move(r.labels);
    return out;
}

} // namespace canopy::cli::graph_parts
