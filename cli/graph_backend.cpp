// canopy graph: the bridge to the graph strategies (device-compiled; graph_backend.hpp). The runs of
// each algorithm are compiled once for the build, in canopy_graph_runs
// (canopy/workloads/graph/compiled_runs.hpp), which the benches and the tests call too.
#include "graph_backend.hpp"

#include <string>
#include <utility>

#include "backend.hpp"
#include "canopy/platform/platform.hpp"
#include "canopy/runtime/runtime.hpp"
#include "canopy/workloads/graph/compiled_runs.hpp"
#include "canopy/workloads/graph/strategies.hpp"

#if defined(CANOPY_BACKEND_CPU)
#    include "canopy/emulator/launch.hpp"
#endif

namespace canopy::cli {

namespace graph = workloads::graph;

namespace {

/// The run's counts and (for a tasks run) the runtime's stats, in the CLI's terms.
template <class R> void copy_counts(graph_device_outcome& o, const R& r) {
    o.iterations = r.iterations;
    o.launches = r.launches;
    o.barriers = r.barriers;
    o.tasks = r.tasks;
    o.workgroups = r.workgroups;
    o.seconds = r.seconds;
    o.device_ms = r.time.span_ms;
    o.kernels_ms = r.time.kernels_ms;
    o.kernels = r.time.kernels;
    o.device_clock = device_clock;
    const runtime::stats& st = r.stats;
    if (r.tasks != 0) {
        // runtime::stats' one field list (the scoped-cache counters when the model ran: where the
        // modelled time of a tasks run goes).
        st.for_each_field([&](const std::string& k, std::uint64_t v) { o.stats.emplace_back(k, v); });
    }
}

} // namespace

graph_device_outcome run_graph_algorithm(const graph::csr_graph& g, std::uint32_t source,
                                         const graph_run_settings& s) {
    graph::run_options o;
    o.how = graph::parse_strategy(s.strategy);
    o.block = s.block;
    o.tasks = graph::run_options::default_tasks_config(runtime::parse_policy(s.policy), g.num_vertices());
    if (s.delta >= 0) {
        o.tasks_delta = static_cast<std::uint64_t>(s.delta);
    }
    if (s.private_capacity != 0) {
        o.tasks.private_capacity = s.private_capacity;
    }
    o.tasks.queues = runtime::parse_queue_design(s.queues);
    o.tasks.device_rings = s.device_rings;
    if (!s.order.empty()) {
        o.tasks.order = runtime::parse_task_order(s.order);
    } else if (o.tasks.queues == runtime::queue_design::locked) {
        o.tasks.order = runtime::task_order::lifo; // the HRF paper's core runs depth-first only
    }
    const graph::device_graph dg(g);
    graph_device_outcome out;
    if (s.algorithm == "bfs") {
        auto r = graph::compiled::bfs(dg.view(), source, o);
        copy_counts(out, r);
        out.levels = std::move(r.labels);
    } else if (s.algorithm == "sssp") {
        auto r = graph::compiled::sssp(dg.view(), source, o);
        copy_counts(out, r);
        out.distances.assign(r.labels.begin(), r.labels.end());
    } else if (s.algorithm == "pagerank") {
        graph::pagerank_options p;
        p.damping = s.damping;
        p.iterations = s.iterations;
        p.tolerance = s.tolerance;
        p.error = s.error;
        o.pagerank_pull = s.pagerank_tasks == "pull";
        o.pagerank_block_arcs = s.pagerank_block_arcs;
        auto r = graph::compiled::pagerank(dg.view(), p, o);
        copy_counts(out, r);
        out.guarantee = r.guarantee;
        out.generations = r.generations;
        out.ranks = std::move(r.labels);
    } else if (s.algorithm == "color") {
        o.color_speculative = s.coloring == "speculative";
        auto r = graph::compiled::color(dg.view(), o);
        copy_counts(out, r);
        out.colors = std::move(r.labels);
    } else {
        throw error("canopy graph: unknown algorithm '" + s.algorithm +
                    "' (valid: bfs, sssp, pagerank, color)");
    }
    out.core = std::string(runtime::to_string(o.tasks.queues)) + " " + runtime::to_string(o.tasks.order);
    describe_last_launch(out);
    return out;
}

void describe_last_launch(graph_device_outcome& o) {
    o.device = query_device().name;
#if defined(CANOPY_BACKEND_CPU)
    const auto& rep = emu::last_report();
    o.scheduler = emu::to_string(rep.scheduler);
    o.memory_model = rep.memory_model;
#endif
}

} // namespace canopy::cli
