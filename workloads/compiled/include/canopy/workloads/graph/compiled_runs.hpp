// The four graph algorithms' device runs, compiled once for the whole build (canopy_graph_runs), for
// the canopy command, the benches and the tests.
//
// Why: graph::run<P>, run_pagerank and run_color are header templates and inline functions, so every
// source that called them instantiated every strategy's kernels and the task runtime under them again:
// the command, two benches and four test sources did, and that was a quarter of CI's build (the graph
// experiment bench alone took 177 CPU-seconds with g++ -O2, the same as the command's four run sources
// together). Here they are instantiated in four sources (one per algorithm, so they compile in
// parallel), and each caller compiles a call.
//
// Internal to the build: not installed. The installed package keeps the header-only runs
// (canopy/workloads/graph/strategies.hpp, pagerank.hpp, coloring.hpp), which these only forward to.
#pragma once

#include <cstdint>
#include <type_traits>

#include "canopy/workloads/graph/csr_view.hpp"
#include "canopy/workloads/graph/pagerank.hpp"
#include "canopy/workloads/graph/problems.hpp"
#include "canopy/workloads/graph/strategies.hpp"

namespace canopy::workloads::graph::compiled {

/// graph::run<bfs_problem>(g, source, o).
run_result<bfs_problem::label> bfs(const csr_view& g, vertex_id source, const run_options& o = {});
/// graph::run<sssp_problem>(g, source, o).
run_result<sssp_problem::label> sssp(const csr_view& g, vertex_id source, const run_options& o = {});
/// graph::run_pagerank(g, p, o).
run_result<double> pagerank(const csr_view& g, const pagerank_options& p, const run_options& o = {});
/// graph::run_color(g, o).
run_result<std::uint32_t> color(const csr_view& g, const run_options& o = {});

/// graph::run<P> for BFS and SSSP, for callers generic in the problem.
template <class P>
run_result<typename P::label> run(const csr_view& g, vertex_id source, const run_options& o = {}) {
    if constexpr (std::is_same_v<P, bfs_problem>) {
        return bfs(g, source, o);
    } else {
        static_assert(std::is_same_v<P, sssp_problem>, "compiled runs: BFS and SSSP only");
        return sssp(g, source, o);
    }
}

} // namespace canopy::workloads::graph::compiled
