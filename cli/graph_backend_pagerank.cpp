// canopy graph: PageRank on the device (graph_backend_parts.hpp).
#include "graph_backend_parts.hpp"

#include "canopy/workloads/graph/pagerank.hpp"

namespace canopy::cli::graph_parts {

namespace graph = workloads::graph;

graph_device_outcome pagerank(const graph::csr_view& g, const graph_run_settings& s,
                              const graph::run_options& o) {
    graph::pagerank_options p;
    p.damping = s.damping;
    p.iterations = s.iterations;
    p.tolerance = s.tolerance;
    graph_device_outcome out;
    auto r = graph::run_pagerank(g, p, o);
    copy_counts(out, r);
    out.ranks = std::move(r.labels);
    return out;
}

} // namespace canopy::cli::graph_parts
