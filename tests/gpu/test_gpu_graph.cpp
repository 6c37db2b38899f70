// canopy_gpu_tests: BFS and SSSP against the sequential oracles and Graph500's rules (gpu_cases.hpp says what
// the binary holds and why).
#include <vector>

#include <gtest/gtest.h>

#include "canopy/workloads/graph/compiled_runs.hpp"
#include "canopy/workloads/graph/generate.hpp"
#include "canopy/workloads/graph/reference.hpp"
#include "canopy/workloads/graph/strategies.hpp"
#include "canopy/workloads/graph/validate.hpp"
#include "canopy/workloads/graph/weights.hpp"
#include "gpu_cases.hpp"

namespace {

using namespace canopy_gpu_tests;
namespace g = canopy::workloads::graph;

g::run_options graph_options(g::strategy s) {
    g::run_options o;
    o.how = s;
    return o;
}

TEST(GpuGraph, BfsAndSsspMatchTheOraclesAndGraph500Rules) {
    g::kronecker_params kp;
    kp.scale = emulated ? 8 : 14;
    const g::csr_graph gr = g::make_kronecker(kp).graph;
    const g::csr_graph weighted = g::with_hash_weights(gr);
    const g::vertex_id source = gr.max_degree_vertex();
    const g::device_graph dg(gr), dw(weighted);
    const g::bfs_result bref = g::reference_bfs(gr, source);
    const g::sssp_result sref = g::reference_sssp(weighted, source);
    for (g::strategy s : g::all_strategies) {
        SCOPED_TRACE(g::to_string(s));
        const auto b = g::compiled::bfs(dg.view(), source, graph_options(s));
        EXPECT_TRUE(g::compare_levels(bref.level, b.labels).ok())
            << g::compare_levels(bref.level, b.labels).summary();
        EXPECT_TRUE(g::validate_bfs(gr, source, b.labels).ok())
            << g::validate_bfs(gr, source, b.labels).summary();
        const auto d = g::compiled::sssp(dw.view(), source, graph_options(s));
        EXPECT_TRUE(g::compare_distances(sref.distance, d.labels).ok())
            << g::compare_distances(sref.distance, d.labels).summary();
        EXPECT_TRUE(g::validate_sssp(weighted, source, d.labels).ok())
            << g::validate_sssp(weighted, source, d.labels).summary();
    }
}

} // namespace
