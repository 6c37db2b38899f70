// canopy_gpu_tests: PageRank within its proved bound, colouring proper and equal to the oracle (gpu_cases.hpp
// says what the binary holds and why).
#include <vector>

#include <gtest/gtest.h>

#include "canopy/workloads/graph/coloring.hpp"
#include "canopy/workloads/graph/coloring_reference.hpp"
#include "canopy/workloads/graph/compiled_runs.hpp"
#include "canopy/workloads/graph/generate.hpp"
#include "canopy/workloads/graph/pagerank.hpp"
#include "canopy/workloads/graph/pagerank_reference.hpp"
#include "canopy/workloads/graph/strategies.hpp"
#include "canopy/workloads/graph/validate.hpp"
#include "gpu_cases.hpp"

namespace {

using namespace canopy_gpu_tests;
namespace g = canopy::workloads::graph;

g::run_options graph_options(g::strategy s) {
    g::run_options o;
    o.how = s;
    return o;
}

TEST(GpuGraph, PageRankWithinItsBoundAndColouringProper) {
    g::kronecker_params kp;
    kp.scale = emulated ? 7 : 14;
    const g::csr_graph gr = g::make_kronecker(kp).graph;
    const g::device_graph dg(gr);
    g::pagerank_options p;
    const std::vector<double> exact = g::reference_pagerank(gr, p.damping);
    for (g::strategy s : g::all_strategies) {
        SCOPED_TRACE(g::to_string(s));
        const auto r = g::compiled::pagerank(dg.view(), p, graph_options(s));
        if (s == g::strategy::tasks) {
            EXPECT_LE(g::l1_distance(exact, r.labels),
                      g::pagerank_tasks_bound(gr, p.damping, g::pagerank_tasks_default_tolerance,
                                              static_cast<double>(r.tasks)));
        } else {
            // Fixed point: bit-identical to the host's fixed-point power iteration.
            const g::pagerank_fixed_result ref =
                g::reference_pagerank_fixed(gr, p.damping, p.iterations, p.tolerance);
            EXPECT_EQ(r.labels, g::ranks_to_double(ref.rank));
        }
        const auto c = g::compiled::color(dg.view(), graph_options(s));
        const auto v = g::validate_coloring(gr, c.labels);
        EXPECT_TRUE(v.ok) << v.message;
        EXPECT_EQ(c.labels,
                  s == g::strategy::tasks ? g::reference_greedy_color(gr) : g::reference_jones_plassmann(gr));
    }
}

} // namespace
