// canopy uts: the bridge to the UTS workload (device-compiled; uts_backend.hpp).
#include "uts_backend.hpp"

#include <chrono>
#include <cstring>
#include <string>

#include "backend.hpp"
#include "canopy/platform/platform.hpp"
#include "canopy/runtime/runtime.hpp"
#include "canopy/workloads/uts/compiled_runs.hpp"
#include "canopy/workloads/uts/uts.hpp"

#if defined(CANOPY_BACKEND_CPU)
#    include "canopy/emulator/launch.hpp"
#endif

namespace canopy::cli {

namespace uts = workloads::uts;

namespace {
uts::params params_of(const uts_tree_spec& spec) {
    try {
        uts::params p = spec.tree.empty() ? uts::params{} : uts::sample_params(spec.tree);
        for (const auto& [flag, value] : spec.flags) {
            uts::apply_flag(p, flag, value);
        }
        return p;
    } catch (const uts::bad_params& e) {
        throw uts_usage_error(e.what());
    }
}
} // namespace

uts_resolved resolve_uts_tree(const uts_tree_spec& spec) {
    const uts::params p = params_of(spec);
    uts_resolved r;
    r.flags = uts::to_flags(p);
    const uts::sample_tree* t = spec.tree.empty() ? nullptr : uts::find_sample_tree(spec.tree);
    if (t && spec.flags.empty()) {
        r.name = t->name;
        r.description = t->description;
        if (t->expected.known()) {
            r.has_expected = true;
            r.expected_nodes = t->expected.nodes;
            r.expected_leaves = t->expected.leaves;
            r.expected_depth = t->expected.depth;
        }
    } else {
        r.name = t ? std::string(t->name) + "+flags" : "custom";
        r.description = std::string(uts::to_string(p.type)) +
                        (p.type == uts::tree_type::geo || p.type == uts::tree_type::hybrid
                             ? std::string(", ") + uts::to_string(p.shape)
                             : std::string());
    }
    return r;
}

std::vector<uts_sample_tree> uts_sample_trees() {
    std::vector<uts_sample_tree> v;
    for (const auto& t : uts::sample_trees()) {
        v.push_back({t.name, t.description, t.flags});
    }
    return v;
}

uts_outcome run_uts_reference(const uts_tree_spec& spec,
                              const std::function<void(unsigned long long, double)>& progress) {
    const uts::params p = params_of(spec);
    const auto t0 = std::chrono::steady_clock::now();
    auto since = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
    uts::progress_fn fn;
    if (progress) {
        fn = [&](const uts::counts& c) { progress(c.nodes, since()); };
    }
    const uts::counts c = uts::traverse_sequential(p, fn);
    uts_outcome o;
    o.seconds = since();
    o.nodes = c.nodes;
    o.leaves = c.leaves;
    o.depth = c.depth;
    return o;
}

static_assert(sizeof(uts::node_payload) == uts_node_words * sizeof(std::uint32_t),
              "a frontier node is uts_node_words words");

namespace {
/// The runtime's configuration for the command's settings.
runtime::config config_of(const uts_runtime_settings& s) {
    runtime::config c = uts::default_config(runtime::parse_policy(s.policy), s.block);
    c.queues = runtime::parse_queue_design(s.queues);
    c.device_rings = s.device_rings;
    c.devices = s.devices;
    c.system_poll = s.system_poll;
    c.system_stock = s.system_stock;
    return c;
}

std::vector<std::uint32_t> to_words(const std::vector<uts::node_payload>& nodes) {
    std::vector<std::uint32_t> w(nodes.size() * uts_node_words);
    if (!nodes.empty()) {
        std::memcpy(w.data(), nodes.data(), w.size() * sizeof(std::uint32_t));
    }
    return w;
}
} // namespace

std::vector<std::uint32_t> uts_root_frontier(const uts_tree_spec& spec) {
    return to_words({uts::root_payload(params_of(spec))});
}

uts_round_outcome run_uts_round(const uts_tree_spec& spec, const uts_runtime_settings& s,
                                const std::vector<std::uint32_t>& frontier, std::uint64_t budget) {
    if (frontier.size() % uts_node_words != 0) {
        throw error("canopy uts: a frontier is whole nodes of " + std::to_string(uts_node_words) + " words");
    }
    std::vector<uts::node_payload> seeds(frontier.size() / uts_node_words);
    if (!seeds.empty()) {
        std::memcpy(seeds.data(), frontier.data(), frontier.size() * sizeof(std::uint32_t));
    }
    const runtime::config c = config_of(s);
    const uts::round_result r = uts::compiled::traverse_round(params_of(spec), c, seeds, budget);
    uts_round_outcome o;
    o.nodes = r.c.nodes;
    o.leaves = r.c.leaves;
    o.depth = r.c.depth;
    o.frontier = to_words(r.frontier);
    return o;
}

uts_ranks_outcome run_uts_devices(const uts_tree_spec& spec, const uts_runtime_settings& s, unsigned devices,
                                  std::uint64_t round_nodes) {
    const runtime::config c = config_of(s);
    const auto t0 = std::chrono::steady_clock::now();
    const uts::ranks_result r =
        uts::compiled::traverse_ranks_in_process(params_of(spec), c, devices, round_nodes);
    uts_ranks_outcome o;
    o.total.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    o.total.nodes = r.c.nodes;
    o.total.leaves = r.c.leaves;
    o.total.depth = r.c.depth;
    o.total.device = query_device().name;
#if defined(CANOPY_BACKEND_CPU)
    const auto& rep = emu::last_report();
    o.total.scheduler = emu::to_string(rep.scheduler);
    o.total.memory_model = rep.memory_model;
#endif
    o.rounds = r.rounds;
    o.moved = r.moved;
    o.nodes_per_rank = r.nodes_per_rank;
    o.critical_nodes = r.critical_nodes;
    o.frontier_nodes = r.frontier_nodes;
    o.critical_cycles = r.critical_cycles;
    o.device_cycles = r.total_cycles;
    return o;
}

uts_outcome run_uts_runtime(const uts_tree_spec& spec, const uts_runtime_settings& s) {
    const uts::params p = params_of(spec);
    const runtime::config c = config_of(s);
    const uts::runtime_result r =
        s.joins ? uts::compiled::traverse_runtime_joins(p, c, s.join_records, uts::sha1_model_cycles,
                                                        uts::default_max_rows, s.join_peak)
                : uts::compiled::traverse_runtime(p, c);
    uts_outcome o;
    o.seconds = r.stats.seconds;
    o.device_ms = r.stats.device_ms;
    o.device_clock = device_clock;
    o.nodes = r.c.nodes;
    o.leaves = r.c.leaves;
    o.depth = r.c.depth;
    const runtime::stats& st = r.stats;
    auto add = [&](const std::string& k, unsigned long long v) { o.stats.emplace_back(k, v); };
    st.for_each_field(add); // runtime::stats' one field list
    if (s.joins && s.join_peak) {
        add("join_records_peak", r.join_peak); // what --join-records must hold for this run
    }
#if defined(CANOPY_BACKEND_CPU)
    const auto& rep = emu::last_report();
    o.device = query_device().name;
    o.scheduler = emu::to_string(rep.scheduler);
    o.memory_model = rep.memory_model;
    add("scheduler_steps", rep.steps); // the one launch's, for steps per second (bench/emulator_speed.sh)
#else
    o.device = query_device().name;
#endif
    return o;
}

} // namespace canopy::cli
