// canopy graph: the bridge to the graph strategies (device-compiled; graph_backend.hpp). The runs of
// each algorithm are in graph_backend_<algo>.cpp, which compile in parallel.
#include "graph_backend.hpp"

#include <string>

#include "backend.hpp"
#include "canopy/platform/platform.hpp"
#include "canopy/runtime/runtime.hpp"
#include "canopy/workloads/graph/strategies.hpp"
#include "graph_backend_parts.hpp"

#if defined(CANOPY_BACKEND_CPU)
#    include "canopy/emulator/launch.hpp"
#endif

namespace canopy::cli {

namespace graph = workloads::graph;

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
        out = graph_parts::bfs(dg.view(), source, o);
    } else if (s.algorithm == "sssp") {
        out = graph_parts::sssp(dg.view(), source, o);
    } else if (s.algorithm == "pagerank") {
        out = graph_parts::pagerank(dg.view(), s, o);
    } else if (s.algorithm == "color") {
        out = graph_parts::color(dg.view(), o);
    } else {
        throw error("canopy graph: unknown algorithm '" + s.algorithm +
                    "' (valid: bfs, sssp, pagerank, color)");
    }
    out.core = std::string(runtime::to_string(o.tasks.queues)) + " " + runtime::to_string(o.tasks.order);
    out.device = query_device().name;
#if defined(CANOPY_BACKEND_CPU)
    const auto& rep = emu::last_report();
    out.scheduler = emu::to_string(rep.scheduler);
    out.memory_model = rep.memory_model;
#endif
    return out;
}

} // namespace canopy::cli
