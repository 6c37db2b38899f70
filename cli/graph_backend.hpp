// canopy graph: the command line's view of the graph algorithms, in plain types (see backend.hpp for
// why the host-only CLI files include nothing from platform/). graph_backend.cpp is compiled by the
// device compiler; the graph itself is the host-only csr_graph (csr.hpp includes no platform/ header).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "canopy/workloads/graph/csr.hpp"

namespace canopy::cli {

struct graph_run_settings {
    std::string algorithm = "bfs";         // bfs | sssp | pagerank | color
    std::string strategy = "multi-kernel"; // multi-kernel | persistent | tasks
    std::string policy = "hrf-indirect";   // tasks only
    std::string queues = "ring";           // tasks only: ring | locked
    unsigned device_rings = 0;             // tasks, ring core (0: one per 8 work-groups)
    std::string order;                     // tasks only: lifo | fifo (empty: the algorithm's default)
    unsigned block = 64;
    unsigned private_capacity = 0; // tasks: fronts per sub-group queue (0: sized by the graph)
    std::int64_t delta = -1;       // tasks: round width (-1: the problem's default; 0: one round)
    double damping = 0.85;         // pagerank
    unsigned iterations = 20;      // pagerank: the count (tolerance 0) or the most iterations
    double tolerance = 0;          // pagerank: L1 tolerance (0: fixed iterations; tasks: their default)
    double error = 0;              // pagerank, tasks: L1 error target (pagerank_options::error)
    std::string coloring = "dag";  // color, tasks only: dag (priority-order greedy) | speculative
    // pagerank, tasks only: push (residual push) | pull (block pull) | auto (pull under an error target,
    // push under a tolerance: run_rank_or_color decides before the run)
    std::string pagerank_tasks = "auto";
    // pagerank, tasks by pull: a block's in-arcs at most (0: from the graph)
    std::uint64_t pagerank_block_arcs = 0;
};

struct graph_device_outcome {
    std::vector<std::uint32_t> levels;    // bfs
    std::vector<std::uint64_t> distances; // sssp
    std::vector<double> ranks;            // pagerank
    std::vector<std::uint32_t> colors;    // color
    unsigned long long iterations = 0, launches = 0, barriers = 0, tasks = 0;
    unsigned workgroups = 0;
    double guarantee = -1;              // pagerank tasks with an error target: the run's measured guarantee
    unsigned long long generations = 0; // pagerank tasks by pull: the generations its rounds ran
    double seconds = 0; // the algorithm on the device, from its first launch to the labels read back
    // The kernels alone (platform/kernel_timer.hpp): the first kernel's start to the last one's end,
    // and their own times summed over `kernels` launches. device_clock names the clock ("gpu events",
    // or the emulator's host time); empty where the run was not timed (a partitioned BFS).
    double device_ms = 0, kernels_ms = 0;
    unsigned long long kernels = 0;
    std::string device_clock;
    std::vector<std::pair<std::string, unsigned long long>> stats; // tasks only
    std::string device, scheduler, memory_model;
    std::string core; // tasks: the runtime core and order, e.g. "ring fifo"
    // BFS over a 1-D block partition (under mpirun, or --devices): the parts (0: one device, no
    // partition), the arcs expanded whose target another part owns, the vertices exchanged (those arcs
    // less the duplicates) and the vertices each part reached.
    unsigned parts = 0;
    unsigned long long remote_arcs = 0, sent = 0;
    std::vector<std::uint64_t> reached_per_part;
};

/// Runs the algorithm on the configured backend (configure_emulator first on the emulator). Throws
/// canopy::error (a std::runtime_error) on a runtime failure.
graph_device_outcome run_graph_algorithm(const workloads::graph::csr_graph& g, std::uint32_t source,
                                         const graph_run_settings& s);

/// Fills o.device, o.scheduler and o.memory_model from the backend and the last launch, for runs the
/// command drives itself (graph_ranks.hpp).
void describe_last_launch(graph_device_outcome& o);

} // namespace canopy::cli
