// canopy uts: the command line's view of the UTS workload, in plain types (see backend.hpp for why the
// host-only CLI files include nothing from platform/). uts_backend.cpp is compiled by the device compiler.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace canopy::cli {

/// A bad tree name or UTS flag: a usage error (exit code 2).
struct uts_usage_error : std::invalid_argument {
    using std::invalid_argument::invalid_argument;
};

struct uts_tree_spec {
    std::string tree;                                       // sample tree name ("" with raw flags only)
    std::vector<std::pair<std::string, std::string>> flags; // raw reference flags over the tree's
};

struct uts_resolved {
    std::string name;  // the sample tree's name, or "custom"
    std::string flags; // every parameter as reference flags
    std::string description;
    bool has_expected = false; // published counts
    unsigned long long expected_nodes = 0, expected_leaves = 0;
    int expected_depth = 0;
};
/// Resolves a tree spec; throws uts_usage_error with a clear message.
uts_resolved resolve_uts_tree(const uts_tree_spec& spec);

struct uts_sample_tree {
    std::string name, description, flags;
};
std::vector<uts_sample_tree> uts_sample_trees();

struct uts_outcome {
    unsigned long long nodes = 0, leaves = 0;
    int depth = 0;
    double seconds = 0;
    // Runtime runs only: the kernel alone (platform/kernel_timer.hpp) and the clock that timed it ("gpu
    // events", or the emulator's host time); device_clock is empty for the sequential reference.
    double device_ms = 0;
    std::string device_clock;
    std::vector<std::pair<std::string, unsigned long long>> stats; // runtime runs only
    std::string device, scheduler, memory_model;                   // runtime runs only
};

/// The sequential reference traversal; `progress(nodes, seconds)` about every 4M nodes.
uts_outcome run_uts_reference(const uts_tree_spec& spec,
                              const std::function<void(unsigned long long, double)>& progress);

struct uts_runtime_settings {
    std::string policy = "hrf-indirect";
    std::string queues = "ring"; // ring | locked
    unsigned device_rings = 0;   // ring core (0: one per 8 work-groups)
    unsigned block = 64;
    bool joins = false;               // counts by joins (every subtree's, bottom-up), not by atomics
    unsigned join_records = 1u << 20; // the join pool's capacity (joins open at once)
    bool join_peak = false;           // with joins: count the records open at once (stats join_records_peak)
    unsigned devices = 1;             // emulated devices in one launch (the system level)
    unsigned system_poll = 4, system_stock = 8; // runtime::config's
};
/// The runtime version on the configured backend (configure_emulator first on the emulator).
uts_outcome run_uts_runtime(const uts_tree_spec& spec, const uts_runtime_settings& s);

/// Scale-out rounds (canopy/workloads/uts/rounds.hpp), in plain types: a node is uts_node_words words
/// (its 20-byte state, height and type), which the host moves between ranks without reading.
inline constexpr unsigned uts_node_words = 7;
struct uts_round_outcome {
    unsigned long long nodes = 0, leaves = 0;
    int depth = 0;
    std::vector<std::uint32_t> frontier; // the nodes the round handed back, uts_node_words each
};
/// The tree's root as a frontier of one node.
std::vector<std::uint32_t> uts_root_frontier(const uts_tree_spec& spec);
/// One round over `frontier` (uts_node_words per node): runs nodes until `budget` have started and
/// hands the rest back.
uts_round_outcome run_uts_round(const uts_tree_spec& spec, const uts_runtime_settings& s,
                                const std::vector<std::uint32_t>& frontier, std::uint64_t budget);

/// A traversal over several ranks or devices, in rounds.
struct uts_ranks_outcome {
    uts_outcome total;            // the whole tree's counts (on every rank) and this rank's wall time
    unsigned rounds = 0;          // rounds every rank went through (the same on all)
    unsigned long long moved = 0; // nodes moved between ranks, all rounds
    std::vector<std::uint64_t> nodes_per_rank; // nodes each rank ran
    std::uint64_t critical_nodes = 0; // the sum over rounds of the most nodes one rank ran (rounds.hpp)
    std::uint64_t frontier_nodes = 0; // the sum over rounds of the job's frontier (nodes staged to a host)
    // Emulated devices under --timed: the sum over rounds of the longest device's simulated makespan,
    // and of every device's (0 otherwise).
    std::uint64_t critical_cycles = 0, device_cycles = 0;
};

/// The tree over `devices` emulated devices in this process (canopy uts --devices): the rounds of
/// the MPI ranks, each device's round run in turn (uts::traverse_ranks_in_process).
uts_ranks_outcome run_uts_devices(const uts_tree_spec& spec, const uts_runtime_settings& s, unsigned devices,
                                  std::uint64_t round_nodes);

} // namespace canopy::cli
