// canopy graph: the device-compiled runs of each algorithm, one source each (graph_backend_<algo>.cpp) so
// that the four compile in parallel: in one source they were the GPU builds' longest compile. Internal
// to the cli; graph_backend.cpp dispatches to them.
#pragma once

#include <cstdint>
#include <string>

#include "canopy/runtime/runtime.hpp"
#include "canopy/workloads/graph/strategies.hpp"
#include "graph_backend.hpp"

namespace canopy::cli {

/// The run's counts and (for a tasks run) the runtime's stats, in the CLI's terms.
template <class R> void copy_counts(graph_device_outcome& o, const R& r) {
    o.iterations = r.iterations;
    o.launches = r.launches;
    o.barriers = r.barriers;
    o.tasks = r.tasks;
    o.workgroups = r.workgroups;
    o.seconds = r.seconds;
    const runtime::stats& st = r.stats;
    if (r.tasks != 0) {
        auto add = [&](const std::string& k, unsigned long long v) { o.stats.emplace_back(k, v); };
        add("workgroups", st.workgroups);
        add("participants", st.participants);
        add("subgroups", st.subgroups);
        for (unsigned l = 0; l < runtime::num_levels; ++l) {
            add(std::string("tasks_") + runtime::level_name(l), st.tasks[l]);
        }
        add("tasks_spawned", st.tasks_spawned);
        add("partial_fronts", st.partial_fronts);
        add("donations_to_workgroup", st.donations_to_workgroup);
        add("donations_to_device", st.donations_to_device);
        add("steal_requests", st.steal_requests);
        add("steals_received", st.steals_received);
        for (unsigned l = 0; l < runtime::num_levels; ++l) {
            add(std::string("fronts_") + runtime::level_name(l), st.fronts[l]);
        }
        // The last launch's scoped-cache counters (zero without --memory-model scoped): where the
        // modelled time of a tasks run goes.
        add("flushes", st.flushes);
        add("invalidations", st.invalidations);
        add("lines_written_back", st.lines_written_back);
        add("remote_ops", st.remote_ops);
        add("cycles_total", st.cycles_total);
        add("cycles_max_cu", st.cycles_max_cu);
    }
}

namespace graph_parts {
graph_device_outcome bfs(const workloads::graph::csr_view& g, std::uint32_t source,
                         const workloads::graph::run_options& o);
graph_device_outcome sssp(const workloads::graph::csr_view& g, std::uint32_t source,
                          const workloads::graph::run_options& o);
graph_device_outcome pagerank(const workloads::graph::csr_view& g, const graph_run_settings& s,
                              const workloads::graph::run_options& o);
graph_device_outcome color(const workloads::graph::csr_view& g, const workloads::graph::run_options& o);
} // namespace graph_parts

} // namespace canopy::cli
